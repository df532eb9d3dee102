package report

import (
	"bytes"
	"cmp"
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
)

// minRuns are the default analysis options with another threshold of runs.
func minRuns(n int) analyze.Options {
	o := analyze.DefaultOptions()
	o.MinRuns = n
	return o
}

// TestReason: a row without a verdict says whether its basis counted no
// run at all or only too few, with the basis's label.
func TestReason(t *testing.T) {
	release := func(runs, basisRuns, basisLeftOut int) db.SymptomVerdict {
		return db.SymptomVerdict{Verdict: analyze.VerdictInsufficient, Comparison: db.CompareRelease,
			SampleLabel: "4.12->4.13 minor", SampleRuns: runs, BasisLabel: "4.11->4.12 minor", BasisRuns: basisRuns, BasisLeftOut: basisLeftOut}
	}
	window := release(254, 0, 0)
	window.Comparison, window.BasisLabel = db.CompareWindow, "2026-10-22..2026-11-21"
	unread := func(runs, unclassified, basisRuns, basisUnclassified int) db.SymptomVerdict {
		v := release(runs, basisRuns, 0)
		v.SampleUnclassified, v.BasisUnclassified = unclassified, basisUnclassified
		return v
	}
	decided := release(20, 20, 0)
	decided.Verdict = analyze.VerdictFlake
	tests := []struct {
		name    string
		v       db.SymptomVerdict
		bounded bool
		want    string
	}{
		{"basis never ran", release(254, 0, 0), false, "no basis (4.11->4.12 minor never ran)"},
		{"few sample runs, basis never ran", release(6, 0, 0), false, "no basis (4.11->4.12 minor never ran)"},
		{"basis runs in other bounds", release(254, 0, 0), true, "no basis (no counted 4.11->4.12 minor run)"},
		{"basis runs left out", release(254, 0, 2), false, "no basis (no 4.11->4.12 minor run whose upgrade began)"},
		{"empty basis window", window, false, "no basis (no counted run in 2026-10-22..2026-11-21)"},
		{"few basis runs", release(254, 6, 0), false, "not enough runs"},
		{"few sample runs", release(3, 20, 0), false, "not enough runs"},
		{"a verdict", decided, false, ""},
		{"a rule added after the crawl", unread(0, 14, 0, 14), false, "not classified yet (14 runs; reclassify)"},
		{"some sample runs read", unread(3, 11, 20, 0), false, "not classified yet (11 runs; reclassify)"},
		{"the basis not read", unread(20, 0, 0, 9), false, "not classified yet (9 runs of 4.11->4.12 minor; reclassify)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := assess.Reason(tc.v, tc.bounded); got != tc.want {
				t.Errorf("reason %q, want %q", got, tc.want)
			}
			want := cmp.Or(tc.want, tc.v.Verdict)
			if got := verdictText(tc.v, tc.bounded); got != want {
				t.Errorf("verdict text %q, want %q", got, want)
			}
		})
	}
}

// TestMinRuns: the threshold decides the verdicts, not only which rows are
// shown: with 5, the 4.11->4.12 basis of 6 runs is enough; the table and
// Markdown hide the rows with fewer sample runs and say how many, CSV and
// JSON keep them.
func TestMinRuns(t *testing.T) {
	d := openFixture(t)
	verdictOf := func(data analyze.Table, symptom, key string) string {
		for _, v := range data.Rows {
			if v.Symptom == symptom && v.Key == key {
				return v.Verdict
			}
		}
		return ""
	}
	def, five := load(t, d, analyze.TableQuery{}), load(t, d, analyze.TableQuery{Selection: analyze.Selection{Options: minRuns(5)}})
	if got := verdictOf(def, "etcd-connection-refused", "4.12->4.13 minor"); got != analyze.VerdictInsufficient {
		t.Errorf("24 runs against 6 with 10 needed: %q, want insufficient", got)
	}
	if got := verdictOf(five, "etcd-connection-refused", "4.12->4.13 minor"); got == analyze.VerdictInsufficient || got == "" {
		t.Errorf("24 runs against 6 with 5 needed: %q, want a verdict", got)
	}
	for _, tc := range []struct {
		data   analyze.Table
		hidden int
		footer string
	}{
		{def, 7, "Hidden: 7 rows with fewer than 10 counted runs in the sample"},
		{five, 0, ""},
	} {
		shown, h := shownRows(tc.data, false)
		if h.Few != tc.hidden || len(shown)+h.Few+h.Quiet != len(tc.data.Rows) {
			t.Errorf("min %d: %d shown, %d hidden of %d; want %d hidden", tc.data.Query.Thresholds().MinRuns, len(shown), h.Few, len(tc.data.Rows), tc.hidden)
		}
		for _, v := range shown {
			if v.SampleHits == 0 && v.BasisHits == 0 && v.Verdict == analyze.VerdictNone {
				t.Errorf("shown: %s %s, which no run shows", v.Symptom, v.Key)
			}
		}
		if all, h := shownRows(tc.data, true); len(all) != len(tc.data.Rows) || h.any() {
			t.Errorf("--all: %d of %d rows shown, %+v hidden", len(all), len(tc.data.Rows), h)
		}
		for _, v := range shown {
			if v.SampleRuns < tc.data.Query.Thresholds().MinRuns {
				t.Errorf("shown: %s %s with %d sample runs", v.Symptom, v.Key, v.SampleRuns)
			}
		}
		for _, format := range []string{FormatTable, FormatMarkdown} {
			var b bytes.Buffer
			if err := Write(&b, tc.data, format, Options{Wide: true}); err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(b.String(), "counted runs in the sample (--min-runs"); got != (tc.footer != "") || !strings.Contains(b.String(), tc.footer) {
				t.Errorf("%s with min %d: want footer %q:\n%s", format, tc.data.Query.Thresholds().MinRuns, tc.footer, b.String())
			}
			if n := strings.Count(b.String(), "4.11->4.12 minor  release"); format == FormatTable && tc.hidden > 0 && n > 0 {
				t.Errorf("%s: %d rows of the 6-run edge shown", format, n)
			}
		}
		var j bytes.Buffer
		if err := WriteJSON(&j, tc.data); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(j.String(), `"symptom_id"`); n != len(tc.data.Rows) {
			t.Errorf("JSON holds %d rows of %d", n, len(tc.data.Rows))
		}
	}
	// Every row hidden: the table says so instead of an empty table.
	var b bytes.Buffer
	if err := WriteTable(&b, load(t, d, analyze.TableQuery{Selection: analyze.Selection{Options: minRuns(1000)}}), Options{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Every row is hidden.\nHidden: 35 rows with fewer than 1000 counted runs") || strings.Contains(b.String(), "SYMPTOM") {
		t.Errorf("every row hidden:\n%s", b.String())
	}
}
