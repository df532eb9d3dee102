package db

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl"
)

// shardAt writes a shard of runs 1 to 3 with a cursor at 3, then lets
// poison change it behind prowcrawl's back, as an older version, a hand
// edit or a hostile file would.
func shardAt(t *testing.T, path, poison string) string {
	t.Helper()
	d := openAt(t, path)
	write(t, d, []prowcrawl.Record{testRecord(1, 2), testRecord(2, 2), testRecord(3, 2)}, prowcrawl.Cursor{Bucket: bucket, Job: jobName, BuildID: 3, StartedAt: started})
	if poison != "" {
		if _, err := openRaw(t, path).ExecContext(t.Context(), poison); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// TestMergeRefusesUntrusted: merge checks every row of an input with the
// checks the crawler makes of what it reads, and refuses the input whole,
// before it writes anything, when one fails. Before, a shard with
// started_at = 'garbage' was merged and its output could not be exported.
func TestMergeRefusesUntrusted(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, poison, says string }{
		{"garbage start", `UPDATE runs SET started_at = 'garbage' WHERE build_id = 2`, "started_at 'garbage'"},
		{"the year 58829", `UPDATE runs SET started_at = '58829-05-12T19:10:00Z' WHERE build_id = 2`, "58829"},
		{"a start in 2099", `UPDATE runs SET started_at = '2099-01-01T00:00:00Z', finished_at = '2099-01-01T01:00:00Z' WHERE build_id = 2`, "2099"},
		{"a date that is none", `UPDATE runs SET started_at = '2026-02-30T00:00:00Z' WHERE build_id = 2`, "2026-02-30"},
		{"a number for a time", `UPDATE runs SET finished_at = 1794308181 WHERE build_id = 2`, "1794308181"},
		{"finished before started", `UPDATE runs SET finished_at = '2020-01-01T00:00:00Z' WHERE build_id = 2`, "finished_at '2020-01-01T00:00:00Z'"},
		{"crawled in 2099", `UPDATE runs SET crawled_at = '2099-01-01T00:00:00Z' WHERE build_id = 2`, "crawled_at '2099"},
		{"a symptom at garbage", `INSERT INTO symptoms (id, title, source) VALUES ('x', 'x', 'builtin');
			INSERT INTO run_symptoms (job, build_id, symptom_id, hits, at) VALUES ('` + jobName + `', 2, 'x', 1, 'soon')`, "'soon'"},
		{"a cursor at garbage", `UPDATE crawl_cursors SET started_at = 'garbage'`, "crawl cursors"},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := shardAt(t, filepath.Join(dir, strings.Repeat("s", i+1)+".db"), tc.poison)
			out := openAt(t, filepath.Join(t.TempDir(), "out.db"))
			write(t, out, []prowcrawl.Record{testRecord(9, 1)})
			before := dumpRows(t, out)
			if err := CheckShard(t.Context(), in); !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("CheckShard: %v, want ErrUntrusted saying %q", err, tc.says)
			}
			_, err := out.Merge(t.Context(), in)
			if !errors.Is(err, ErrUntrusted) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "nothing of it was merged") {
				t.Fatalf("merge: %v, want ErrUntrusted saying %q", err, tc.says)
			}
			if after := dumpRows(t, out); !slices.Equal(after, before) {
				t.Errorf("the refused input changed the output:\n%q\n%q", before, after)
			}
		})
	}
}

// TestMergeCursorPastItsRuns: a shard's cursor past the newest run it
// holds of its job (9223372036854775807) is taken at that run: it cannot
// make the merged database skip runs no shard read. Before, it stopped the
// job for good.
func TestMergeCursorPastItsRuns(t *testing.T) {
	dir := t.TempDir()
	in := shardAt(t, filepath.Join(dir, "in.db"), `UPDATE crawl_cursors SET build_id = 9223372036854775807;
		INSERT INTO crawl_cursors (bucket, job, build_id, updated_at) VALUES ('`+bucket+`', 'no-runs-upgrade', 5, '2026-01-01T00:00:00Z')`)
	out := openAt(t, filepath.Join(dir, "out.db"))
	st, err := out.Merge(t.Context(), in)
	if err != nil {
		t.Fatal(err)
	}
	if st.Cursors != 2 || st.Runs != 3 {
		t.Errorf("merge stats %+v, want 3 runs and 2 cursors taken back", st)
	}
	if got := queryStrings(t, out.db, `SELECT job || ' ' || build_id || ' ' || coalesce(started_at, 'NULL') FROM crawl_cursors`); !slices.Equal(got, []string{jobName + " 3 NULL"}) {
		t.Errorf("cursors %q, want the job's at its newest run, the other dropped", got)
	}
}

// TestMergeInputNames: an input is attached read-only by an escaped URI:
// '#' and '?' in its name are part of the name. Before, 'sh#1.db' merged
// the file 'sh', and 'shard#1.db' left an empty file 'shard' behind.
func TestMergeInputNames(t *testing.T) {
	dir := t.TempDir()
	decoy := shardAt(t, filepath.Join(dir, "sh"), "")
	in := shardAt(t, filepath.Join(dir, "sh#1.db"), `DELETE FROM runs WHERE build_id <> 2`)
	out := openAt(t, filepath.Join(dir, "out.db"))
	st, err := out.Merge(t.Context(), in)
	if err != nil || st.Runs != 1 {
		t.Fatalf("merge of sh#1.db: %+v, %v; want its one run, not the three of %s", st, err, decoy)
	}
	info, _ := os.Stat(in)
	for _, name := range []string{"shard#1.db", "x?mode=rw.db"} {
		p := filepath.Join(dir, name)
		if _, err := out.Merge(t.Context(), p); err == nil {
			t.Errorf("merge of the missing %s succeeded", name)
		}
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	for _, stray := range []string{"shard", "x"} {
		if slices.Contains(names, stray) {
			t.Errorf("a merge left a stray file %q: %q", stray, names)
		}
	}
	if after, _ := os.Stat(in); !after.ModTime().Equal(info.ModTime()) || after.Size() != info.Size() {
		t.Error("the merge wrote to its input")
	}
}
