package assess

import (
	"fmt"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/stats"
)

// Change is where, by payload, a symptom began (its onset) or stopped (its
// end) on an edge: the JSON of is_it_a_regression.onset and .end.
type Change struct {
	Edge string `json:"edge"`
	// Found is set when the change is significant; otherwise the fields
	// are the best split, and Text says there is none.
	Found bool `json:"found"`
	// For an onset: the last payload before the interval (clean) and the
	// first after it (bad). For an end: the last bad and the first clean
	// (the fix, fixedIn of a blocked-edges draft).
	LastClean  string `json:"last_clean"`
	FirstBad   string `json:"first_bad"`
	LastBad    string `json:"last_bad,omitempty"`
	FirstClean string `json:"first_clean,omitempty"`
	// Interval are the payloads between them, any of which can be the
	// change; empty when it lies between the two.
	Interval   []string `json:"interval"`
	RunsBefore int      `json:"runs_before"`
	HitsBefore int      `json:"hits_before"`
	RunsAfter  int      `json:"runs_after"`
	HitsAfter  int      `json:"hits_after"`
	PValue     float64  `json:"p_value"`
	Payloads   int      `json:"payloads"`
	// Pages are the release controller's pages of the payloads from the
	// one before the interval to the one after; Changelog the changes
	// between those two. Verified is false for an address form built by
	// analogy.
	Pages     []prowcrawl.Link `json:"release_pages"`
	Changelog *prowcrawl.Link  `json:"changelog"`
	Text      string           `json:"text"`
}

// ChangeOf is c in the assessment's words; nil for nil.
func ChangeOf(c *analyze.Change) *Change {
	if c == nil {
		return nil
	}
	out := &Change{Edge: c.Key, Found: c.Found, Interval: c.Interval, RunsBefore: c.RunsBefore, HitsBefore: c.HitsBefore,
		RunsAfter: c.RunsAfter, HitsAfter: c.HitsAfter, PValue: *Round6(c.P), Payloads: c.Payloads, Pages: c.Pages, Changelog: c.Changelog}
	if out.Pages == nil {
		out.Pages = []prowcrawl.Link{}
	}
	if c.Kind == analyze.KindOnset {
		out.LastClean, out.FirstBad = c.Before, c.After
	} else {
		out.LastBad, out.FirstClean = c.Before, c.After
	}
	out.Text = changeText(c)
	return out
}

// changeText says a change in one or two sentences.
func changeText(c *analyze.Change) string {
	sides := fmt.Sprintf("%d of %d runs before, %d of %d after, %s", c.HitsBefore, c.RunsBefore, c.HitsAfter, c.RunsAfter, PPhrase(c.P))
	between := func() string {
		s := fmt.Sprintf("between payload %s and payload %s", c.Before, c.After)
		if n := len(c.Interval); n > 0 {
			s += fmt.Sprintf(" (%s in between could be the first)", Plural(n, "payload"))
		}
		return s
	}
	switch {
	case c.Payloads < 2:
		return fmt.Sprintf("No onset or end by payload on %s: it has %s.", c.Key, Plural(c.Payloads, "payload"))
	case !c.Found && c.Kind == analyze.KindOnset && c.RunsBefore == 0:
		return fmt.Sprintf("No onset within %s's %d payloads: the rate is the same throughout; it began before %s, the first of them, or with the edge itself.",
			c.Key, c.Payloads, c.First)
	case !c.Found && c.Kind == analyze.KindOnset:
		return fmt.Sprintf("No onset within %s's %d payloads: no split is significant (the best: %s; an onset needs p < %g), so the rate "+
			"is the same throughout; it began before %s, the first of them, or with the edge itself.", c.Key, c.Payloads, sides, stats.ChangeAlpha, c.First)
	case !c.Found:
		return fmt.Sprintf("No end on %s: its recent payloads are not significantly cleaner.", c.Key)
	}
	s := "It began on " + c.Key + " " + between() + ": " + sides + "."
	if c.Kind == analyze.KindEnd {
		s = "It stopped on " + c.Key + " " + between() + ": " + sides + "; fixed in " + c.After + "."
	}
	if c.Changelog != nil {
		s += " The changes between them: " + c.Changelog.URL
		if !c.Changelog.Verified {
			s += " (address form not verified)"
		}
		s += "."
	}
	return s
}
