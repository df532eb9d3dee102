package db

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

func TestRunEvidence(t *testing.T) {
	d := anStore(t)
	ev, err := d.RunEvidence(t.Context(), "etcd", "", Bounds{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ev {
		got = append(got, fmt.Sprintf("%d %s %s|%s|%s", e.BuildID, e.Result, e.Edge, e.Variant, e.Type))
	}
	// Newest first; of two started at once, the higher build id. Only
	// counted runs: not the aborted one, nor the one whose upgrade never
	// began.
	want := []string{"9 failure ||presubmit", "1 success 4.13->4.14 minor|4.13->4.14 minor aws ovn amd64 ha|periodic",
		"8 failure ||periodic", "2 failure 4.13->4.14 minor|4.13->4.14 minor aws ovn amd64 ha|periodic",
		"5 error 4.14 micro|4.14 micro metal ovn amd64 ha|periodic"}
	if !slices.Equal(got, want) {
		t.Errorf("evidence\n got %q\nwant %q", got, want)
	}
	e := ev[1]
	if e.URL != "https://prow.ci.openshift.org/view/gs/test-platform-results/logs/"+anMinor.Name+"/1" || e.File != "build-log.txt" ||
		e.Line != 10 || e.Hits != 1 || !e.At.Equal(anNow.Add(-time.Hour+time.Minute)) || e.Platform != "aws" || e.Arch != "amd64" {
		t.Errorf("evidence row = %+v", e)
	}
	ev, err = d.RunEvidence(t.Context(), "etcd", "4.13->4.14 minor", Bounds{}, 1)
	if err != nil || len(ev) != 1 || ev[0].BuildID != 1 {
		t.Errorf("evidence on an edge, limit 1: %+v, %v", ev, err)
	}
	ev, err = d.RunEvidence(t.Context(), "etcd", "", Bounds{Since: anNow.Add(-2 * time.Hour), Jobs: []string{anMinor.Name, anPre.Name}}, 0)
	if err != nil || len(ev) != 2 || ev[0].BuildID != 9 || ev[1].BuildID != 1 {
		t.Errorf("evidence within bounds: %+v, %v", ev, err)
	}
}

// TestEdgeFromVersionsByDay checks the runs by edge, platform and
// from-version of a window, grouped by day without the edge, against the
// same grouping in SQL; and again when two runs of one job and edge columns
// hold different edges (derived by two versions).
func TestEdgeFromVersionsByDay(t *testing.T) {
	d := anStore(t)
	var recs []prowcrawl.Record
	for i := range 30 {
		r := winRun(anMinor, int64(200+i), "failure", anNow.Add(-time.Duration(i*7)*time.Hour))
		r.Run.FromVersion = []string{"4.13.1", "4.13.2", ""}[i%3]
		recs = append(recs, r)
	}
	write(t, d, recs)
	b := Bounds{Since: anNow.Add(-6 * 24 * time.Hour)}
	const direct = `SELECT coalesce(r.edge, '') || ' ' || coalesce(j.platform, '') || ' ' || coalesce(r.from_version, '') || ' ' || count(*)
FROM runs r JOIN jobs j ON j.name = r.job
WHERE r.result IN ('success', 'failure', 'error') AND r.upgrade_started IS NOT 0 AND r.edge IS NOT NULL AND r.started_at >= ?
GROUP BY r.edge, r.release, r.from_release, r.upgrade, j.platform, r.from_version ORDER BY r.edge, j.platform, r.from_version`
	for _, step := range []string{"one edge a group", "two edges in a group"} {
		if step == "two edges in a group" {
			if _, err := d.db.ExecContext(t.Context(), `UPDATE runs SET edge = '4.13->4.14 minor (old)' WHERE build_id = 201`); err != nil {
				t.Fatal(err)
			}
		}
		fvs, err := d.EdgeFromVersionsOf(t.Context(), nil, b)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range fvs {
			got = append(got, fmt.Sprintf("%s %s %s %d", e.Edge, e.Platform, e.FromVersion, e.Runs))
		}
		want := queryStrings(t, d.db, direct, formatTime(b.Since))
		if strings.Join(got, "\n") != strings.Join(want, "\n") || len(want) < 3 {
			t.Errorf("%s: from-versions\n%s\nwant\n%s", step, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}
