package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCrawlOfNothingFails: a crawl whose --job matches no job, or of a
// bucket that holds none, exits 1 with one sentence after its summary, so
// that a cron does not take it for a good night. Before, both exited 0
// with "crawl: 0 jobs".
func TestCrawlOfNothingFails(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a --job that matches nothing", []string{"--bucket", sampleBucket, "--job", "upgrdae"}, "0 of 8 jobs under logs/ of " + sampleBucket + " match --job upgrdae"},
		{"an empty bucket", []string{"--bucket", t.TempDir()}, "no logs/ under "},
		{"a mirror's logs/, one level too deep", []string{"--bucket", filepath.Join(sampleBucket, "logs")}, "no logs/ under " + filepath.Join(sampleBucket, "logs") + ": did you mean its parent, " + sampleBucket + "?"},
	} {
		args := append([]string{"crawl", "--db", filepath.Join(t.TempDir(), "p.db"), "--since", "2019-01-01"}, c.args...)
		code, stdout, stderr := runCmd(t, args...)
		if code != 1 || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") > 0 || !strings.HasPrefix(stdout, "crawl: 0 jobs") {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 1, the summary and one sentence with %q", c.name, code, stdout, stderr, c.want)
		}
	}
}

// TestDBSymlinkLoop: a --db that is a loop of symbolic links is said to be
// one, not a missing database.
func TestDBSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	if err := os.Symlink(b, a); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"status"}, {"report"}, {"search", "x"}, {"suggest"}, {"analyze"}} {
		code, _, stderr := runCmd(t, append(args, "--db", a)...)
		if code != 2 || !strings.Contains(stderr, "symbolic links") {
			t.Errorf("%s --db LOOP: exit %d, %q; want 2 and the loop named", args[0], code, stderr)
		}
	}
}

// TestJobFlagsAddUp: report --job A --job B counts the runs of both, as
// every other command does. Before, only B was kept, without a word.
func TestJobFlagsAddUp(t *testing.T) {
	dbPath := demoDB(t)
	runs := func(args ...string) string {
		return runOK(t, append([]string{"report", "--by", "job", "--format", "csv", "--min-runs", "1", "--db", dbPath}, args...)...)
	}
	a, b := `4\.13-upgrade-from`, `4\.14-upgrade-from`
	both := runs("--job", a, "--job", b)
	for _, want := range []string{"ci-4.13-upgrade-from-stable-4.12", "ci-4.14-upgrade-from-stable-4.13"} {
		if !strings.Contains(both, want) {
			t.Errorf("report --job A --job B has no row of %s", want)
		}
	}
	if strings.Contains(runs("--job", b), "ci-4.13-upgrade-from-stable-4.12") {
		t.Error("report --job B alone counts A's job")
	}
	if code, _, stderr := runCmd(t, "report", "--job", "(", "--db", dbPath); code != 2 || !strings.Contains(stderr, `--job "("`) {
		t.Errorf("a bad --job: exit %d, %q", code, stderr)
	}
}

// TestCachePerDatabase: two databases of one directory get a cache each,
// named after them, so that neither evicts the other's runs.
func TestCachePerDatabase(t *testing.T) {
	for db, want := range map[string]string{"prowcrawl.db": "prowcrawl-cache", "shard-1.db": "shard-1-cache", "runs.sqlite3": "runs-cache", "plain": "plain-cache", ".db": ".db-cache"} {
		if got := filepath.Base(defaultCacheDir(filepath.Join("/srv", db))); got != want {
			t.Errorf("the cache of %s is %s, want %s", db, got, want)
		}
	}
	dir := t.TempDir()
	for _, name := range []string{"a.db", "b.db"} {
		runOK(t, "crawl", "--bucket", sampleBucket, "--db", filepath.Join(dir, name), "--since", "2026-11-25", "--job", "4.14-upgrade-from")
	}
	for _, c := range []string{"a-cache", "b-cache"} {
		if ents, err := os.ReadDir(filepath.Join(dir, c, "runs")); err != nil || len(ents) == 0 {
			t.Errorf("%s: %v, %d entries; want the runs of its database", c, err, len(ents))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "prowcrawl-cache")); err == nil {
		t.Error("a shared prowcrawl-cache was made")
	}
}

// TestCrawlReadOnlyDatabase: a crawl into a database it may not write is a
// configuration problem: exit 2 and one sentence that says so. Before, it
// exited 1 with SQLite's "attempt to write a readonly database (8)".
func TestCrawlReadOnlyDatabase(t *testing.T) {
	_, ro := readOnlyDemoDB(t)
	code, _, stderr := runCmd(t, "crawl", "--bucket", sampleBucket, "--db", ro, "--cache", "", "--job", "4.14-upgrade-from")
	if code != 2 || !strings.Contains(stderr, "read-only") || strings.Count(stderr, "\n") > 0 {
		t.Errorf("crawl into a read-only database: exit %d, %q; want exit 2 and one sentence saying it is read-only", code, stderr)
	}
}

// TestSearchBounded: a pattern whose cost grows with the text is said to
// be slow before the search, and the search stops at --max-time with what
// it found, exit 1 and one sentence. Before, it ran for 94 s over 4 MiB of
// cache without a word.
func TestSearchBounded(t *testing.T) {
	dbPath := demoDB(t)
	code, stdout, stderr := runCmd(t, "search", `[\x{0}-\x{10FFFF}]{1000}`, "--max-time", "10ms", "--db", dbPath)
	if code != 1 || !strings.Contains(stderr, "MiB of log text a second") || !strings.Contains(stderr, "search stopped after --max-time 10ms") || stdout == "" {
		t.Errorf("a slow pattern: exit %d, stdout %d bytes, stderr %q", code, len(stdout), stderr)
	}
	code, _, stderr = runCmd(t, "search", "etcdserver: request timed out", "--db", dbPath)
	if code != 0 || stderr != "" {
		t.Errorf("a plain pattern: exit %d, stderr %q", code, stderr)
	}
}

// TestJSONLogEndsInJSON: with --log-format json, the error a command ends
// with is a JSON log record too. Before, a plain-text line ended the log.
func TestJSONLogEndsInJSON(t *testing.T) {
	args := []string{"crawl", "--bucket", t.TempDir(), "--db", filepath.Join(t.TempDir(), "p.db"), "--log-format", "json"}
	if !jsonLogAsked(args) || jsonLogAsked([]string{"crawl", "--log-format", "text"}) || !jsonLogAsked([]string{"x", "--log-format=json"}) {
		t.Fatal("jsonLogAsked misreads the flags")
	}
	var stdout, stderr strings.Builder
	err := run(t.Context(), args, &stdout, &stderr)
	code := exitCodeLogged(err, &stderr, jsonLogAsked(args))
	lines := strings.Split(strings.TrimSpace(stderr.String()), "\n")
	var last struct{ Level, Msg string }
	if code != 1 || json.Unmarshal([]byte(lines[len(lines)-1]), &last) != nil || last.Level != "ERROR" || !strings.Contains(last.Msg, "no logs/ under ") {
		t.Errorf("exit %d, last line %q; want a JSON record of the error", code, lines[len(lines)-1])
	}
}
