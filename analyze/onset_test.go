package analyze

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/benchdb"
)

// plantPayloads stores, for job j, one to three runs of each of n nightly
// payloads built a day apart, each run showing symptom at the rate rate(i)
// of its payload i (a seeded draw), and returns the payloads' names.
func plantPayloads(t *testing.T, p *planter, j prowcrawl.Job, n int, rate func(i int) float64) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	start := now.AddDate(0, 0, -n-1)
	names := make([]string, n)
	for i := range n {
		built := start.AddDate(0, 0, i).Add(3*time.Hour + 17*time.Minute)
		names[i] = fmt.Sprintf("%s.0-0.nightly-%s", j.Release, built.Format("2006-01-02-150405"))
		for r := range 1 + rng.IntN(3) {
			var shows []string
			if rng.Float64() < rate(i) {
				shows = []string{symptom}
			}
			result := "success"
			if len(shows) > 0 {
				result = "failure"
			}
			// Runs start hours after their payload, out of build order, so
			// that only the payload's own time orders them.
			rec := p.run(j, result, built.Add(time.Duration(5-r)*time.Hour), shows...)
			rec.Run.ToVersion = names[i]
		}
	}
	return names
}

// TestOnsetAndEndByPayload: a symptom absent from an edge's first 15
// nightlies that shows in half the runs of the next 15 and none of the last
// 12 has its onset and its end found at the planted payloads (each within
// its interval), with the release controller's pages and the changelog
// between the two payloads either side; a constant rate has none.
func TestOnsetAndEndByPayload(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	j := benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn")
	names := plantPayloads(t, p, j, 42, func(i int) float64 {
		if i >= 15 && i < 30 {
			return 0.5
		}
		return 0
	})
	flat := benchdb.UpgradeJob("4.14", "4.14", "micro", "aws", "ovn")
	plantPayloads(t, p, flat, 30, func(int) float64 { return 0.3 })
	p.flush()
	keys := [][2]string{{db.ScopeEdge, "4.13->4.14 minor"}, {db.ScopeEdge, "4.14 micro"}, {db.ScopeVariant, "4.13->4.14 minor aws ovn amd64 ha"}}
	onsets, err := Changes(t.Context(), d, symptom, KindOnset, db.Bounds{}, keys)
	if err != nil {
		t.Fatal(err)
	}
	ends, err := Changes(t.Context(), d, symptom, KindEnd, db.Bounds{}, keys)
	if err != nil {
		t.Fatal(err)
	}
	// within says whether the planted first payload of the change lies in
	// the interval: after Before, at or before After.
	within := func(c Change, planted string) bool {
		lo, hi := slices.Index(names, c.Before), slices.Index(names, c.After)
		at := slices.Index(names, planted)
		return lo >= 0 && hi >= 0 && lo < at && at <= hi && len(c.Interval) == hi-lo-1
	}
	for _, c := range []Change{onsets[0], onsets[2]} {
		if !c.Found || !within(c, names[15]) || c.P >= 0.01 || c.HitsBefore > c.RunsBefore/10 {
			t.Errorf("onset %s: %+v, want one at %s", c.Key, c, names[15])
		}
		if c.Changelog == nil || !strings.Contains(c.Changelog.URL, "from="+c.Before) || !strings.Contains(c.Changelog.URL, "to="+c.After) {
			t.Errorf("onset %s: changelog %+v", c.Key, c.Changelog)
		}
		if len(c.Pages) != len(c.Interval)+2 || !strings.HasSuffix(c.Pages[0].URL, "/releasestream/4.14.0-0.nightly/release/"+c.Before) || !c.Pages[0].Verified {
			t.Errorf("onset %s: pages %+v", c.Key, c.Pages)
		}
	}
	if e := ends[0]; !e.Found || !within(e, names[30]) {
		t.Errorf("end: %+v, want one at %s", e, names[30])
	}
	if o := onsets[1]; o.Found || o.Payloads != 30 || o.Before != "" {
		t.Errorf("a constant rate has an onset: %+v", o)
	}
}

// TestPayloadPoints: the points of an edge are its payloads in the order
// of the time in their names, whatever their runs' start; a payload with no
// time in its name (a z-stream) by its first run's start; a run naming no
// payload is a point of its own.
func TestPayloadPoints(t *testing.T) {
	d := openStore(t)
	p := newPlanter(t, d)
	j := benchdb.UpgradeJob("4.13", "4.14", "minor", "aws", "ovn")
	name := func(stream string, ago int) string {
		return "4.14.0-0." + stream + "-" + now.Add(-time.Duration(ago)*time.Hour).Format("2006-01-02-150405")
	}
	ci, nightly := name("ci", 40), name("nightly", 35)
	var builds []int64
	for _, r := range []struct {
		payload string
		ago     int
	}{
		{nightly, 1}, {ci, 2}, {nightly, 30}, {"4.14.3", 50}, {"", 60}, {"", 3},
	} {
		rec := p.run(j, "success", now.Add(-time.Duration(r.ago)*time.Hour))
		rec.Run.ToVersion = r.payload
		builds = append(builds, rec.Run.BuildID)
	}
	p.flush()
	c, err := d.PayloadCounts(t.Context(), symptom, db.Bounds{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, pt := range payloadPoints(c, symptom)[scopeKey{db.ScopeEdge, "4.13->4.14 minor"}] {
		got = append(got, fmt.Sprintf("%s %d", pt.Name, pt.Runs))
	}
	run := func(i int) string { return fmt.Sprintf("%s/%d 1", j.Name, builds[i]) }
	want := []string{run(4), "4.14.3 1", ci + " 1", nightly + " 2", run(5)}
	if !slices.Equal(got, want) {
		t.Errorf("points\n got %q\nwant %q", got, want)
	}
}
