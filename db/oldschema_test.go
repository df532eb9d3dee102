package db

import (
	"testing"
)

// oldColumns are the columns of the tables before migration 0005.
var oldColumns = map[string]string{
	"jobs": "name, type, release, from_release, upgrade, platform, network, arch",
	"runs": `job, build_id, bucket, path, url, started_at, finished_at, result, release, from_release, upgrade,
	from_version, to_version, upgrade_state, tag, from_tag, pull, fetch_status, fetch_error, objects_read, bytes_read, crawled_at`,
	"tests":        "job, build_id, suite, name, status, duration_s, message",
	"symptoms":     "id, title, description, bug, source, active",
	"run_symptoms": "job, build_id, symptom_id, hits, file, line, excerpt, at",
}

// oldDatabase makes at path a database of schema version (3 or 4) that
// holds src's jobs, runs, tests and symptoms: what an older prowcrawl left.
func oldDatabase(t *testing.T, src *DB, path string, version int64) {
	t.Helper()
	old, err := OpenAtVersion(t.Context(), path, version)
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	if _, err := old.db.ExecContext(t.Context(), `ATTACH DATABASE ? AS src`, src.Path()); err != nil {
		t.Fatal(err)
	}
	for _, table := range []string{"jobs", "symptoms", "runs", "tests", "run_symptoms"} {
		cols := oldColumns[table]
		if _, err := old.db.ExecContext(t.Context(), `INSERT INTO main.`+table+` (`+cols+`) SELECT `+cols+` FROM src.`+table); err != nil {
			t.Fatalf("copy %s: %v", table, err)
		}
	}
	if version >= 4 {
		if _, err := old.db.ExecContext(t.Context(), `DELETE FROM main.test_counts; INSERT INTO main.test_counts SELECT * FROM src.test_counts`); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := old.db.ExecContext(t.Context(), `DETACH DATABASE src`); err != nil {
		t.Fatal(err)
	}
}
