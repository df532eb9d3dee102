package report

import (
	"bytes"
	"encoding/json"
	"html"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// TestChanges renders report --changes after the fixture's analysis (which
// opens its regressions), then after a second analysis of the same data
// (they stay open).
func TestChanges(t *testing.T) {
	d := openFixture(t)
	at := fixtureNow
	render := func(format string) string {
		t.Helper()
		c, err := d.RegressionChanges(t.Context(), time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := WriteChanges(&b, c, format, at); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	table := render(FormatTable)
	for _, want := range []string{"Regressions changed by the newest analysis (2026-11-30 12:00 UTC, runs up to 2026-11-30)",
		"opened  pod-network-cross-node", "4.13->4.14 minor", "29% (7/24)", "0% (0/24)", "  first run: https://prow.ci.openshift.org/view/gs/", "2 opened, 0 reopened, 0 closed, 0 still open."} {
		if !strings.Contains(table, want) {
			t.Errorf("table lacks %q:\n%s", want, table)
		}
	}
	md := render(FormatMarkdown)
	if !strings.Contains(md, "- Opened `pod-network-cross-node` on [4.13-\\>4.14 minor](https://prow.ci.openshift.org/view/gs/") ||
		!strings.Contains(md, "29% (7/24) against 0% (0/24) on 4.12-\\>4.13 minor, p = 0.0047") {
		t.Errorf("markdown:\n%s", md)
	}

	opts := analyze.DefaultOptions()
	opts.Now, opts.AnalysedAt = fixtureNow, fixtureNow.Add(24*time.Hour)
	if _, err := analyze.Run(t.Context(), d, opts); err != nil {
		t.Fatal(err)
	}
	at = opts.AnalysedAt
	md = render(FormatMarkdown)
	if !strings.Contains(md, "0 opened, 0 reopened, 0 closed, 2 still open.") || !strings.Contains(md, "- Still open `pod-network-cross-node`") ||
		!strings.Contains(md, ", open 1 day") {
		t.Errorf("markdown after the second analysis:\n%s", md)
	}
	if n := strings.Count(md, "\n"); n > 1+4*changeLines+4 {
		t.Errorf("markdown has %d lines: too long for a chat", n)
	}
	var doc struct {
		Analyses int         `json:"analyses"`
		Rows     []ChangeRow `json:"changes"`
	}
	if err := json.Unmarshal([]byte(render(FormatJSON)), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Analyses != 1 || len(doc.Rows) != 2 || doc.Rows[0].Change != stillOpen || doc.Rows[0].AgeDays != 1 {
		t.Errorf("json %+v", doc)
	}
	if err := WriteChanges(&bytes.Buffer{}, db.Changes{}, "csv", fixtureNow); err == nil {
		t.Error("csv accepted")
	}
}

// TestChangesWithOnsets: the regressions opened are said with their onset
// (analyze.RegressionOnsets over the fixture's runs) in every format; a
// found onset is said with its payloads and its changelog.
func TestChangesWithOnsets(t *testing.T) {
	d := openFixture(t)
	c, err := d.RegressionChanges(t.Context(), time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	onsets, err := analyze.RegressionOnsets(t.Context(), d, c.Opened)
	if err != nil {
		t.Fatal(err)
	}
	if len(onsets) != len(c.Opened) || len(onsets) == 0 {
		t.Fatalf("%d onsets of %d regressions opened", len(onsets), len(c.Opened))
	}
	var b bytes.Buffer
	if err := WriteChangesOnsets(&b, c, onsets, FormatJSON, fixtureNow, Options{}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Changes []struct {
			Key   string `json:"scope_key"`
			Onset *struct {
				Edge     string   `json:"edge"`
				Interval []string `json:"interval"`
				Runs     int      `json:"runs_before"`
				After    int      `json:"runs_after"`
				P        float64  `json:"p_value"`
			} `json:"onset"`
		} `json:"changes"`
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Changes {
		if o := r.Onset; o == nil || o.Edge != r.Key || o.Runs+o.After == 0 || o.P <= 0 || o.P > 1 || o.Interval == nil {
			t.Errorf("%s: onset %+v", r.Key, o)
		}
	}
	// A found onset, as the analysis would give it.
	for k, o := range onsets {
		o.Found, o.Before, o.After = true, "4.14.0-0.nightly-2026-11-09-010101", "4.14.0-0.nightly-2026-11-11-105549"
		l, _ := prowcrawl.Changelog(o.Before, o.After)
		o.Changelog = &l
		onsets[k] = o
	}
	for _, format := range []string{FormatTable, FormatMarkdown} {
		b.Reset()
		if err := WriteChangesOnsets(&b, c, onsets, format, fixtureNow, Options{}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), "4.14.0-0.nightly-2026-11-11-105549") || !strings.Contains(b.String(), "changelog?from=4.14.0-0.nightly-2026-11-09-010101") {
			t.Errorf("%s does not name the onset:\n%s", format, b.String())
		}
	}
}

// TestHTMLMarksOnsets: the page's trend of a symptom marks the week of
// each found onset of its edge regressions, and its open regressions say
// each onset.
func TestHTMLMarksOnsets(t *testing.T) {
	d := load(t, openFixture(t), analyze.TableQuery{Trend: true})
	if len(d.Onsets) == 0 {
		t.Fatal("no onsets of the open regressions")
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "Onset by payload") || !strings.Contains(b.String(), "No onset within") || strings.Contains(b.String(), "stroke-dasharray=\"4 3\"") {
		t.Errorf("the page does not say the onsets, or marks one not found")
	}
	var edge analyze.Change
	for k, o := range d.Onsets {
		if o.Scope == db.ScopeEdge {
			o.Found, o.Before, o.After, o.AfterAt = true, "4.14.0-0.nightly-2026-11-09-010101", "4.14.0-0.nightly-2026-11-11-105549", time.Date(2026, 11, 11, 10, 55, 49, 0, time.UTC)
			d.Onsets[k], edge = o, o
		}
	}
	b.Reset()
	if err := WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `stroke-dasharray="4 3"`) || !strings.Contains(b.String(), "onset "+html.EscapeString(edge.Key)) {
		t.Errorf("the trend does not mark the onset on %s", edge.Key)
	}
}
