package analyze

import (
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/stats"
)

// Change kinds: where a symptom began, and where it stopped.
const (
	KindOnset = "onset"
	KindEnd   = "end"
)

// PayloadPoint is one payload of an edge (or variant): its counted runs
// and those of them showing a symptom.
type PayloadPoint struct {
	// Name is the payload (the release the runs upgraded to); a run that
	// names none is a point of its own, named by its job and build.
	Name       string
	At         time.Time // what the points are ordered by (prowcrawl.PayloadOrder)
	Runs, Hits int
}

// Change is the most likely change of a symptom's rate over an edge's
// payloads, in one direction: its onset (the rate rose) or its end (it
// fell).
type Change struct {
	Symptom, Scope, Key string
	Kind                string
	// Found is set when the change is significant (P below
	// stats.ChangeAlpha); when it is not, the counts and P are the best
	// split's and no payload is named.
	Found bool
	// Before and After are the payloads either side of the interval: for
	// an onset the last clean and the first bad, for an end the last bad and
	// the first clean (the fix). Interval are the payloads between them,
	// any of which can be the change ([] when it lies between the two).
	Before, After string
	Interval      []string
	// AfterAt is the time After is ordered by: where a chart marks it.
	AfterAt time.Time
	// The runs and hits before and after the best split.
	RunsBefore, HitsBefore, RunsAfter, HitsAfter int
	P                                            float64
	// Payloads is how many points the edge had; First is the first of them.
	Payloads int
	First    string
	// Pages are the release controller's pages of Before, the interval and
	// After; Changelog the changes between Before and After (nil when
	// either is no payload the release controller knows).
	Pages     []prowcrawl.Link
	Changelog *prowcrawl.Link
}

// payloadPoints are, for each scope key, the payload points of symptom's
// counted runs, in payload order: the groups whose runs count for the
// rule, keyed to edges and variants as every rate keys them.
func payloadPoints(c db.PayloadCounts, symptom string) map[scopeKey][]PayloadPoint {
	type pk struct {
		key  scopeKey
		name string
	}
	points := map[pk]*PayloadPoint{}
	for _, g := range c.Groups {
		if c.Population(symptom, g.Job, g.Topology, g.RuleSet) != prowcrawl.Counted {
			continue
		}
		name := g.Payload
		if name == "" {
			name = g.Job + "/" + g.Run
		}
		keys, _ := keysOfJob(g.JobRow(), g.Release, g.FromRelease, g.Upgrade)
		for _, k := range keys {
			if k.scope != db.ScopeEdge && k.scope != db.ScopeVariant {
				continue
			}
			p := points[pk{k, name}]
			if p == nil {
				p = &PayloadPoint{Name: name, At: g.First}
				points[pk{k, name}] = p
			}
			// Ordered by the name's time, else by the first run's start.
			p.At = prowcrawl.PayloadOrder(g.Payload, minTime(p.At, g.First))
			p.Runs += g.Runs
			p.Hits += g.Hits
		}
	}
	out := map[scopeKey][]PayloadPoint{}
	for k, p := range points {
		out[k.key] = append(out[k.key], *p)
	}
	for _, pts := range out {
		slices.SortFunc(pts, func(a, b PayloadPoint) int {
			return cmp.Or(a.At.Compare(b.At), cmp.Compare(a.Name, b.Name))
		})
	}
	return out
}

func minTime(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

// FindChange finds the change of kind in the points of one key: the split
// of the payloads that maximises the likelihood of two rates, its 95%
// interval and its permutation p-value (stats.FindChange), seeded by the
// symptom and the key so that a page says the same each time.
func FindChange(symptom, scope, key, kind string, pts []PayloadPoint) Change {
	c := Change{Symptom: symptom, Scope: scope, Key: key, Kind: kind, Payloads: len(pts), P: 1, Interval: []string{}}
	if len(pts) > 0 {
		c.First = pts[0].Name
	}
	sp := make([]stats.Point, len(pts))
	for i, p := range pts {
		sp[i] = stats.Point{Runs: p.Runs, Hits: p.Hits}
	}
	d := stats.Up
	if kind == KindEnd {
		d = stats.Down
	}
	h := fnv.New64a()
	fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s", symptom, scope, key, kind)
	cp := stats.FindChange(sp, d, h.Sum64())
	if cp.Split == 0 {
		return c
	}
	c.Found = cp.P < stats.ChangeAlpha
	c.P = cp.P
	c.RunsBefore, c.HitsBefore, c.RunsAfter, c.HitsAfter = cp.RunsBefore, cp.HitsBefore, cp.RunsAfter, cp.HitsAfter
	if !c.Found {
		return c // no payload to name: the best split is chance's
	}
	// The change lies between payload Lo-1 and payload Hi: those two are
	// known to be on either side, the ones between can be either.
	c.Before, c.After, c.AfterAt = pts[cp.Lo-1].Name, pts[cp.Hi].Name, pts[cp.Hi].At
	for _, p := range pts[cp.Lo:cp.Hi] {
		c.Interval = append(c.Interval, p.Name)
	}
	for _, name := range append(append([]string{c.Before}, c.Interval...), c.After) {
		if l, ok := prowcrawl.PayloadPage(name); ok {
			c.Pages = append(c.Pages, l)
		}
	}
	if l, ok := prowcrawl.Changelog(c.Before, c.After); ok {
		c.Changelog = &l
	}
	return c
}

// Changes finds, for symptom, the change of kind on each of keys (scope
// and key pairs: edges or variants) over the counted runs within b.
func Changes(ctx context.Context, store *db.DB, symptom, kind string, b db.Bounds, keys [][2]string) ([]Change, error) {
	c, err := store.PayloadCounts(ctx, symptom, b)
	if err != nil {
		return nil, fmt.Errorf("changes of %s: %w", symptom, err)
	}
	points := payloadPoints(c, symptom)
	out := make([]Change, 0, len(keys))
	for _, k := range keys {
		out = append(out, FindChange(symptom, k[0], k[1], kind, points[scopeKey{k[0], k[1]}]))
	}
	return out, nil
}

// changeKeys are the edges an assessment looks for the symptom's onset and
// end on: the onset on its first regression's edge (SortVerdicts' order),
// else a new one's, else the edge where most runs show it; the end on its
// first improved edge, else the onset's (a regression whose recent runs
// are clean has ended). "" when no edge shows it.
func changeKeys(verdicts []db.SymptomVerdict, rates []db.SymptomRate) (onset, end string) {
	vs := slices.Clone(verdicts)
	SortVerdicts(vs)
	first := func(verdict string) string {
		for _, v := range vs {
			if v.Scope == db.ScopeEdge && v.Comparison == db.CompareRelease && v.Verdict == verdict {
				return v.Key
			}
		}
		return ""
	}
	onset = cmp.Or(first(VerdictRegression), first(VerdictNew))
	if onset == "" {
		most := 0
		for _, r := range rates {
			if r.Scope == db.ScopeEdge && r.RunsWith > most {
				onset, most = r.Key, r.RunsWith
			}
		}
	}
	return onset, cmp.Or(first(VerdictImproved), onset)
}

// loadChanges finds the onset and the end of n's symptom (changeKeys) over
// the runs within b.
func (n *SymptomNumbers) loadChanges(ctx context.Context, store *db.DB, b db.Bounds) error {
	onset, end := changeKeys(n.Verdicts, n.Rates)
	if onset == "" {
		return nil
	}
	c, err := store.PayloadCounts(ctx, n.Symptom.ID, b)
	if err != nil {
		return fmt.Errorf("changes of %s: %w", n.Symptom.ID, err)
	}
	points := payloadPoints(c, n.Symptom.ID)
	o := FindChange(n.Symptom.ID, db.ScopeEdge, onset, KindOnset, points[scopeKey{db.ScopeEdge, onset}])
	e := FindChange(n.Symptom.ID, db.ScopeEdge, end, KindEnd, points[scopeKey{db.ScopeEdge, end}])
	n.Onset, n.End = &o, &e
	return nil
}

// OnsetKey names a regression's onset in RegressionOnsets.
func OnsetKey(symptom, scope, key string) string { return symptom + "\x00" + scope + "\x00" + key }

// RegressionOnsets finds the onset of each of regs on an edge or a variant
// (release comparisons; a job's window has no payload order), over every
// stored run: one read of the payload counts per symptom.
func RegressionOnsets(ctx context.Context, store *db.DB, regs []db.Regression) (map[string]Change, error) {
	keys := map[string][][2]string{}
	for _, r := range regs {
		if r.Comparison == db.CompareRelease && (r.Scope == db.ScopeEdge || r.Scope == db.ScopeVariant) {
			keys[r.Symptom] = append(keys[r.Symptom], [2]string{r.Scope, r.Key})
		}
	}
	out := map[string]Change{}
	for symptom, ks := range keys {
		changes, err := Changes(ctx, store, symptom, KindOnset, db.Bounds{}, ks)
		if err != nil {
			return nil, err
		}
		for _, c := range changes {
			out[OnsetKey(c.Symptom, c.Scope, c.Key)] = c
		}
	}
	return out, nil
}
