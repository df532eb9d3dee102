package report

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// BenchmarkReportSince30d computes and writes the pages a release engineer
// asks for about the last 30 days: the verdict table, the HTML page (with
// the weekly trends) and the assessment of pod-network-cross-node, each
// counted for the window from the database. On the fixture by default;
// PROWCRAWL_BENCH_DB names a larger database to read (the million runs of
// analyze's BenchmarkAnalyze, kept there).
func BenchmarkReportSince30d(b *testing.B) {
	var store *db.DB
	since := fixtureNow.AddDate(0, 0, -30)
	if path := os.Getenv("PROWCRAWL_BENCH_DB"); path != "" {
		d, err := db.Open(b.Context(), path)
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		newest, err := d.NewestRunStart(b.Context())
		if err != nil {
			b.Fatal(err)
		}
		store, since = d, newest.AddDate(0, 0, -30)
	} else {
		store = openFixture(b)
	}
	for _, c := range []struct {
		name   string
		render func() error
	}{
		{"table", func() error {
			d, err := Load(b.Context(), store, Query{Since: since})
			if err != nil {
				return err
			}
			return Write(io.Discard, d, FormatTable, Options{})
		}},
		{"html", func() error {
			d, err := Load(b.Context(), store, Query{Since: since, Trend: true})
			if err != nil {
				return err
			}
			return Write(io.Discard, d, FormatHTML, Options{})
		}},
		{"assess", func() error {
			in, err := LoadAssessment(b.Context(), store, Query{Symptom: "pod-network-cross-node", Since: since}, 10)
			if err != nil {
				return err
			}
			return WriteAssessment(io.Discard, Assess(in), FormatTable)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			start := time.Now()
			for b.Loop() {
				if err := c.render(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(time.Since(start).Seconds()/float64(b.N), "s/page")
		})
	}
}
