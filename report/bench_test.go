package report

import (
	"io"
	"os"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/benchdb"
	"github.com/openshift-eng/prowcrawl/internal/testutil"
)

// BenchmarkReportSince30d computes and writes the pages a release engineer
// asks for about the last 30 days: the verdict table, the HTML page (with
// the weekly trends) and the assessment of pod-network-cross-node, each
// counted for the window from the database. On the fixture by default;
// PROWCRAWL_BENCH_DB names a larger database to read: analyze's
// BenchmarkAnalyze's, generated there (PROWCRAWL_BENCH_RUNS runs, a million
// by default, PROWCRAWL_BENCH_TESTS tests each, none by default: a report
// reads no test but the assessment's failed tests) when the file does not
// exist.
func BenchmarkReportSince30d(b *testing.B) {
	var store *db.DB
	since := fixtureNow.AddDate(0, 0, -30)
	if path := os.Getenv("PROWCRAWL_BENCH_DB"); path != "" {
		start := time.Now()
		d, generated, err := benchdb.Open(b.Context(), path, testutil.EnvInt(b, "PROWCRAWL_BENCH_RUNS", 1_000_000), testutil.EnvInt(b, "PROWCRAWL_BENCH_TESTS", 0))
		if err != nil {
			b.Fatal(err)
		}
		defer d.Close()
		if generated {
			b.Logf("generated %s in %v", path, time.Since(start).Round(time.Second))
		}
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
			d, err := analyze.LoadTable(b.Context(), store, analyze.TableQuery{Selection: analyze.Selection{Since: since}})
			if err != nil {
				return err
			}
			return Write(io.Discard, d, FormatTable, Options{})
		}},
		{"html", func() error {
			d, err := analyze.LoadTable(b.Context(), store, analyze.TableQuery{Selection: analyze.Selection{Since: since}, Trend: true})
			if err != nil {
				return err
			}
			return Write(io.Discard, d, FormatHTML, Options{})
		}},
		{"assess", func() error {
			in, err := analyze.LoadSymptom(b.Context(), store, "pod-network-cross-node", analyze.Selection{Since: since})
			if err != nil {
				return err
			}
			return WriteAssessment(io.Discard, assess.Assess(in), FormatTable)
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
