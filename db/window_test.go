package db

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// staleCopies lists the rows of run_symptoms and run_disruptions whose
// copies of their run's columns differ from the run's (NULL for a row
// without a run).
const staleCopies = `SELECT 'run_symptoms ' || s.job || '/' || s.build_id || ' ' || s.symptom_id
FROM run_symptoms s LEFT JOIN runs r ON r.job = s.job AND r.build_id = s.build_id
WHERE s.run_started_at IS NOT r.started_at OR s.run_result IS NOT r.result OR s.run_upgrade_started IS NOT r.upgrade_started
	OR s.run_release IS NOT r.release OR s.run_from_release IS NOT r.from_release OR s.run_upgrade IS NOT r.upgrade
UNION ALL
SELECT 'run_disruptions ' || d.job || '/' || d.build_id || ' ' || d.file || ' ' || d.backend
FROM run_disruptions d LEFT JOIN runs r ON r.job = d.job AND r.build_id = d.build_id
WHERE d.run_started_at IS NOT r.started_at OR d.run_result IS NOT r.result OR d.run_upgrade_started IS NOT r.upgrade_started
	OR d.run_release IS NOT r.release OR d.run_from_release IS NOT r.from_release OR d.run_upgrade IS NOT r.upgrade
ORDER BY 1`

// checkCopies fails unless every row's copies equal its run's columns, and
// there are rows to compare.
func checkCopies(t *testing.T, d *DB, when string) {
	t.Helper()
	if stale := queryStrings(t, d.db, staleCopies); len(stale) > 0 {
		t.Errorf("%s: rows whose copies of the run's columns are stale:\n  %s", when, strings.Join(stale, "\n  "))
	}
	if count(t, d, "run_symptoms") == 0 || count(t, d, "run_disruptions") == 0 {
		t.Errorf("%s: no rows to compare", when)
	}
}

// winRun is anRun with a disruption file of two backends.
func winRun(j Job, build int64, result string, start time.Time, symptoms ...string) Record {
	r := anRun(j, build, result, start, symptoms...)
	for i, b := range []string{"kube-api-new-connections", "pod-to-pod-new-connections"} {
		r.Disruptions = append(r.Disruptions, RunDisruption{File: "artifacts/e2e/backend-disruption_upgrade.json", Backend: b,
			Connection: "new", Seconds: float64(build + int64(i)), Source: DisruptionFromFile})
	}
	return r
}

// TestWindowCopiesFollowWriters checks that the copies of a run's columns
// in run_symptoms and run_disruptions (migration 0017), which the counts of
// a window read instead of the run, follow every writer: a crawl's writes
// and rewrites, reclassify, an update of runs in SQL (as a migration's
// derivation does), a merge of shards and a deletion.
func TestWindowCopiesFollowWriters(t *testing.T) {
	dir := t.TempDir()
	d := anStore(t)
	h := time.Hour

	// A pending run, then finished later, on another edge and started at
	// another time; a refetch that finds the upgrade never began.
	write(t, d, []Record{winRun(anMicro, 20, "pending", anNow.Add(-h), "etcd")})
	checkCopies(t, d, "a pending run")
	moved := winRun(anMicro, 20, "failure", anNow.Add(-2*h), "etcd", "upgrade")
	moved.Run.Release, moved.Run.FromRelease, moved.Run.Upgrade = "4.15", "4.14", "minor"
	write(t, d, []Record{moved})
	checkCopies(t, d, "the run finished")
	never := false
	moved.Run.UpgradeStarted = &never
	write(t, d, []Record{moved, winRun(anMinor, 21, "success", anNow.Add(-3*h), "upgrade")})
	checkCopies(t, d, "a refetch")

	// reclassify replaces a run's symptoms only.
	if err := d.ReplaceSymptoms(t.Context(), []Reclassified{{Job: anMinor.Name, BuildID: 21,
		Symptoms: []RunSymptom{{SymptomID: "etcd", Hits: 1}, {SymptomID: "upgrade", Hits: 2}}}}); err != nil {
		t.Fatal(err)
	}
	checkCopies(t, d, "reclassify")

	// An update of runs alone, as the derivations of a migration make.
	if _, err := d.db.ExecContext(t.Context(), `UPDATE runs SET release = '4.16', from_release = NULL, upgrade = 'micro',
		upgrade_started = 1, started_at = '2026-01-10T00:00:00Z', result = 'error' WHERE build_id IN (20, 21)`); err != nil {
		t.Fatal(err)
	}
	checkCopies(t, d, "an update of runs")

	// A merge of a shard that read run 21 again, later, and a new run.
	shardPath := filepath.Join(dir, "shard.db")
	shard := openAt(t, shardPath)
	if err := shard.SyncSymptoms(t.Context(), []Symptom{{ID: "etcd", Title: "etcd refused", Source: "builtin"},
		{ID: "upgrade", Title: "upgrade incomplete", Source: "builtin"}}); err != nil {
		t.Fatal(err)
	}
	again := winRun(anMinor, 21, "failure", anNow.Add(-5*h), "etcd")
	again.Run.CrawledAt = time.Now().Add(time.Hour) // after the store's own read
	write(t, shard, []Record{again, winRun(anMinor, 22, "success", anNow.Add(-6*h), "upgrade")})
	if err := shard.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Merge(t.Context(), shardPath); err != nil {
		t.Fatal(err)
	}
	checkCopies(t, d, "a merge")
	var result, start string
	if err := d.db.QueryRowContext(t.Context(), `SELECT run_result, run_started_at FROM run_disruptions WHERE build_id = 21 LIMIT 1`).Scan(&result, &start); err != nil {
		t.Fatal(err)
	}
	if want := formatTime(anNow.Add(-5 * h)); result != "failure" || start != want {
		t.Errorf("after the merge, run 21's disruption copies %s, %s; want failure, %s", result, start, want)
	}

	// A run deleted: its rows go with it.
	if _, err := d.db.ExecContext(t.Context(), `DELETE FROM runs WHERE build_id = 22`); err != nil {
		t.Fatal(err)
	}
	checkCopies(t, d, "a deletion")
}

// TestWindowCopiesMigration opens databases stored before the copies
// existed: the migration fills them for every row.
func TestWindowCopiesMigration(t *testing.T) {
	// Version 16, with symptom and disruption rows.
	path := filepath.Join(t.TempDir(), "v16.db")
	old, err := OpenAtVersion(t.Context(), path, 16)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.db.ExecContext(t.Context(), `
INSERT INTO jobs (name, type, release, from_release, upgrade) VALUES ('j-upgrade', 'periodic', '4.14', '4.13', 'minor');
INSERT INTO symptoms (id, title, source) VALUES ('etcd', 'etcd', 'builtin');
INSERT INTO runs (job, build_id, bucket, path, url, started_at, result, release, from_release, upgrade, upgrade_started, fetch_status, crawled_at)
VALUES ('j-upgrade', 1, 'b', 'p1', 'u1', '2026-11-01T10:00:00Z', 'failure', '4.14', '4.13', 'minor', NULL, 'complete', '2026-11-02T00:00:00Z'),
	('j-upgrade', 2, 'b', 'p2', 'u2', '2026-11-03T10:00:00Z', 'success', '4.14', '4.13', 'minor', 0, 'complete', '2026-11-04T00:00:00Z');
INSERT INTO run_symptoms (job, build_id, symptom_id, hits) VALUES ('j-upgrade', 1, 'etcd', 1), ('j-upgrade', 2, 'etcd', 3);
INSERT INTO run_disruptions (job, build_id, file, backend, disrupted_s, source)
VALUES ('j-upgrade', 1, 'f', 'kube-api-new-connections', 2, 'backend-disruption'), ('j-upgrade', 2, 'f', 'kube-api-new-connections', 0, 'backend-disruption');`); err != nil {
		t.Fatal(err)
	}
	if err := old.Close(); err != nil {
		t.Fatal(err)
	}
	d := openAt(t, path)
	checkCopies(t, d, "after the migration from version 16")
	if got := queryStrings(t, d.db, `SELECT run_started_at || ' ' || run_result || ' ' || coalesce(run_upgrade_started, 'NULL') FROM run_disruptions ORDER BY build_id`); strings.Join(got, ", ") != "2026-11-01T10:00:00Z failure NULL, 2026-11-03T10:00:00Z success 0" {
		t.Errorf("copies after the migration: %q", got)
	}
}

// TestWindowPlans checks that the counts of a window read one range of the
// indexes in window order and look no run up.
func TestWindowPlans(t *testing.T) {
	d := anStore(t)
	for _, c := range []struct {
		query string
		want  []string
		not   []string
	}{
		{`SELECT rs.symptom_id, count(*) FROM symptoms s CROSS JOIN run_symptoms rs INDEXED BY run_symptoms_window ON rs.symptom_id = s.id
WHERE s.active = 1 AND rs.run_result IN ('success', 'failure', 'error') AND rs.run_upgrade_started IS NOT 0 AND rs.run_started_at >= '2026-01-01T00:00:00Z'
GROUP BY rs.symptom_id, rs.job, rs.run_release, rs.run_from_release, rs.run_upgrade`,
			[]string{"COVERING INDEX run_symptoms_window (symptom_id=? AND run_started_at>?)"}, []string{"runs"}},
		{`SELECT d.backend, d.job, d.build_id, d.run_started_at, d.disrupted_s FROM run_disruptions d INDEXED BY run_disruptions_window
WHERE d.run_result IN ('success', 'failure', 'error') AND d.run_upgrade_started IS NOT 0 AND d.run_started_at >= '2026-01-01T00:00:00Z'`,
			[]string{"COVERING INDEX run_disruptions_window (run_started_at>?)"}, []string{"TEMP B-TREE", "runs"}},
	} {
		plan := queryPlan(t, d, c.query)
		for _, w := range c.want {
			if !strings.Contains(plan, w) {
				t.Errorf("%s\nplan does not use %s:\n%s", c.query, w, plan)
			}
		}
		for _, n := range c.not {
			if strings.Contains(plan, n) {
				t.Errorf("%s\nplan has %s:\n%s", c.query, n, plan)
			}
		}
	}
}
