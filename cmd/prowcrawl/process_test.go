package main

import (
	"bytes"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/db"
)

// The tests in this file run prowcrawl as the separate process cron runs:
// built once into a temporary directory, killed, interrupted and run twice
// at once on one database.

// buildBinary builds prowcrawl into dir.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "prowcrawl")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// copiedBucket writes n copies of the sample bucket's periodic jobs into a
// new directory, each under other job names, so that a crawl takes long
// enough, and writes enough batches, to be stopped at many points.
func copiedBucket(t *testing.T, n int) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "bucket")
	logs := filepath.Join(sampleBucket, "logs")
	err := filepath.WalkDir(logs, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(logs, p)
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for i := range n {
			out := filepath.Join(dst, "logs", fmt.Sprintf("c%d-%s", i, rel))
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(out, b, 0o644); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// proc is one prowcrawl process.
type proc struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
}

func start(t *testing.T, bin string, args ...string) *proc {
	t.Helper()
	p := &proc{cmd: exec.Command(bin, args...)}
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// wait returns the exit status (-1 when killed by a signal).
func (p *proc) wait(t *testing.T) int {
	t.Helper()
	err := p.cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	return p.cmd.ProcessState.ExitCode()
}

func openSQL(t *testing.T, path string) *sql.DB {
	t.Helper()
	d, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// rows renders a query's rows as "|"-joined lines.
func rows(t *testing.T, d *sql.DB, q string) string {
	t.Helper()
	rs, err := d.QueryContext(t.Context(), q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var b strings.Builder
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			if i > 0 {
				b.WriteByte('|')
			}
			b.WriteString(v.String)
			if !v.Valid {
				b.WriteString("NULL")
			}
		}
		b.WriteByte('\n')
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// check runs PRAGMA integrity_check and renders what a crawl stored, but
// for when it ran.
func check(t *testing.T, path string) (dump string) {
	t.Helper()
	d := openSQL(t, path)
	if got := rows(t, d, `PRAGMA integrity_check`); got != "ok\n" {
		t.Fatalf("integrity_check of %s: %s", path, got)
	}
	if rows(t, d, `SELECT count(*) FROM sqlite_schema WHERE name = 'crawl_cursors'`) != "1\n" {
		return "" // killed before the schema was made
	}
	for _, q := range []string{
		`SELECT * FROM jobs ORDER BY name`,
		`SELECT job, build_id, bucket, path, url, started_at, finished_at, result, release, from_release, upgrade,
		        from_version, to_version, upgrade_state, tag, from_tag, pull, fetch_status, fetch_error, objects_read, bytes_read
		 FROM runs ORDER BY job, build_id`,
		`SELECT * FROM tests ORDER BY job, build_id, suite, name`,
		`SELECT * FROM run_symptoms ORDER BY job, build_id, symptom_id`,
		`SELECT * FROM run_errors ORDER BY job, build_id, object`,
		`SELECT bucket, job, build_id, started_at FROM crawl_cursors ORDER BY bucket, job`,
	} {
		dump += rows(t, d, q)
	}
	return dump
}

// waitStored waits until the database at path holds at least n runs.
func waitStored(t *testing.T, path string, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(path); err == nil {
			d, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
			if err != nil {
				t.Fatal(err)
			}
			var got int
			err = d.QueryRowContext(t.Context(), `SELECT count(*) FROM runs`).Scan(&got)
			d.Close()
			if err == nil && got >= n {
				return
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("%s never held %d runs", path, n)
}

func countOf(t *testing.T, path, q string) int {
	t.Helper()
	n, _ := strconv.Atoi(strings.TrimSpace(rows(t, openSQL(t, path), q)))
	return n
}

var crawlSummary = regexp.MustCompile(`(?m)^crawl: \d+ jobs, \d+ new runs, .* read in .*$`)

// TestProcess runs the binary: killed at random points, interrupted, and
// twice at once.
func TestProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary many times")
	}
	bin := buildBinary(t, t.TempDir())
	bucket := copiedBucket(t, 5)
	args := func(dbPath string, more ...string) []string {
		return append([]string{"crawl", "--bucket", bucket, "--db", dbPath, "--since", "2019-01-01", "--concurrency", "4"}, more...)
	}

	cleanDB := filepath.Join(t.TempDir(), "clean.db")
	began := time.Now()
	p := start(t, bin, args(cleanDB)...)
	if code := p.wait(t); code != 0 {
		t.Fatalf("clean crawl exit %d: %s", code, p.stderr.String())
	}
	cleanTime := time.Since(began)
	clean := check(t, cleanDB)
	runs := countOf(t, cleanDB, `SELECT count(*) FROM runs`)
	maxRSS := p.cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	t.Logf("clean crawl: %d runs in %s, max RSS %d MiB", runs, cleanTime.Round(time.Millisecond), maxRSS>>10)

	// SIGKILL at random points (seeded): once a random number of runs is
	// stored, after a further random delay of up to 300 ms, so that kills
	// land before, inside and between the write transactions whatever the
	// machine's speed. Then a rerun; the lock dies with the process, so it
	// needs no --wait.
	t.Run("SIGKILL", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(7, 7))
		kills := 10
		if raceEnabled {
			kills = 3 // each check reads the database under the race detector
		}
		for i := range kills {
			after := rng.IntN(runs)
			extra := time.Duration(rng.Int64N(int64(300 * time.Millisecond)))
			dbPath := filepath.Join(t.TempDir(), "killed.db")
			p := start(t, bin, args(dbPath)...)
			waitStored(t, dbPath, after)
			time.Sleep(extra)
			_ = p.cmd.Process.Kill()
			code := p.wait(t)
			stored := -1 // no schema yet
			if check(t, dbPath) != "" {
				stored = countOf(t, dbPath, `SELECT count(*) FROM runs`)
			}
			t.Logf("kill %d, %s after %d runs were stored: exit %d, %d of %d runs stored", i+1, extra.Round(time.Millisecond), after, code, stored, runs)

			p = start(t, bin, args(dbPath)...)
			if code := p.wait(t); code != 0 {
				t.Fatalf("rerun after kill %d: exit %d: %s", i+1, code, p.stderr.String())
			}
			if got := check(t, dbPath); got != clean {
				t.Fatalf("after kill %d and a rerun, the database differs from the clean crawl's:\n%s", i+1, firstDiff(clean, got))
			}
		}
	})

	// SIGKILL while the artifact cache is written: whatever the kill cut
	// short is never trusted. Every run file left opens and passes its
	// checks, a rerun completes the cache, and reclassify from it gives
	// the clean crawl's symptoms without a run missing.
	t.Run("SIGKILL during cache writes", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(9, 9))
		dir := t.TempDir()
		dbPath := filepath.Join(dir, "killed.db")
		cacheDir := defaultCacheDir(dbPath)
		for i := range 3 {
			after := rng.IntN(runs / 2)
			extra := time.Duration(rng.Int64N(int64(200 * time.Millisecond)))
			// backfill --refetch rewrites the cached runs every time.
			p := start(t, bin, append([]string{"backfill", "--refetch"}, args(dbPath)[1:]...)...)
			if i == 0 {
				waitStored(t, dbPath, after)
			}
			time.Sleep(extra)
			_ = p.cmd.Process.Kill()
			p.wait(t)
			cc, err := cache.Open(cacheDir, 0)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for e, err := range cc.Runs() {
				if err != nil {
					t.Fatal(err)
				}
				r, err := cc.Open(e.Key)
				if err != nil {
					t.Fatalf("kill %d: a run file left in place does not open: %v", i+1, err)
				}
				if err := r.Verify(); err != nil {
					t.Fatalf("kill %d: %v", i+1, err)
				}
				r.Close()
				n++
			}
			st, _ := cc.Stats()
			t.Logf("kill %d, %s after %d runs were stored: %d runs cached whole, %d bytes in temporary files", i+1, extra.Round(time.Millisecond), after, n, st.Temp)
		}
		p := start(t, bin, args(dbPath)...)
		if code := p.wait(t); code != 0 {
			t.Fatalf("rerun: exit %d: %s", code, p.stderr.String())
		}
		p = start(t, bin, "reclassify", "--db", dbPath)
		if code := p.wait(t); code != 0 || !strings.Contains(p.stdout.String(), "0 not in the cache, 0 unreadable there") {
			t.Fatalf("reclassify after the kills: exit %d: %s%s", code, p.stdout.String(), p.stderr.String())
		}
		want := rows(t, openSQL(t, cleanDB), `SELECT * FROM run_symptoms ORDER BY job, build_id, symptom_id`)
		if got := rows(t, openSQL(t, dbPath), `SELECT * FROM run_symptoms ORDER BY job, build_id, symptom_id`); got != want {
			t.Fatalf("symptoms after the kills and reclassify differ from the clean crawl's: %s", firstDiff(want, got))
		}
	})

	// SIGINT and SIGTERM stop at a run boundary: the summary is printed,
	// the exit status is 1 with one sentence, the crawl is logged as
	// interrupted, and a rerun completes the database.
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dbPath := filepath.Join(t.TempDir(), "stopped.db")
			p := start(t, bin, args(dbPath)...)
			waitStored(t, dbPath, 1) // a first batch, of several
			sent := time.Now()
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code := p.wait(t)
			t.Logf("%s: stopped %s after the signal", sig, time.Since(sent).Round(time.Millisecond))
			if code != 1 {
				t.Fatalf("exit %d, want 1; stderr %q", code, p.stderr.String())
			}
			if !crawlSummary.MatchString(p.stdout.String()) {
				t.Errorf("no summary line on stdout: %q", p.stdout.String())
			}
			if got := strings.TrimSpace(p.stderr.String()); got != "prowcrawl: interrupted; runs read so far are stored" {
				t.Errorf("stderr %q, want one sentence", got)
			}
			check(t, dbPath)
			if got := rows(t, openSQL(t, dbPath), `SELECT status FROM crawls`); got != "interrupted\n" {
				t.Errorf("crawl log %q, want one interrupted crawl", got)
			}
			if n := countOf(t, dbPath, `SELECT count(*) FROM runs`); n == runs {
				t.Logf("the crawl had stored every run before the signal")
			}
			p = start(t, bin, args(dbPath)...)
			if code := p.wait(t); code != 0 {
				t.Fatalf("rerun: exit %d: %s", code, p.stderr.String())
			}
			if got := check(t, dbPath); got != clean {
				t.Fatalf("after the rerun, the database differs from the clean crawl's:\n%s", firstDiff(clean, got))
			}
		})
	}

	// A second crawl of a database being crawled fails at once with exit
	// status 2; with --wait, it waits and then runs.
	t.Run("busy", func(t *testing.T) {
		dbPath := filepath.Join(t.TempDir(), "busy.db")
		first := start(t, bin, args(dbPath)...)
		deadline := time.Now().Add(10 * time.Second)
		for {
			if db.Holder(dbPath) == first.cmd.Process.Pid {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the first crawl never took the lock")
			}
			time.Sleep(5 * time.Millisecond)
		}
		waiter := start(t, bin, args(dbPath, "--wait")...)
		began := time.Now()
		second := start(t, bin, args(dbPath)...)
		code := second.wait(t)
		took := time.Since(began)
		want := fmt.Sprintf("prowcrawl: database %s is being written by another crawl (process %d); try again later, or pass --wait", dbPath, first.cmd.Process.Pid)
		if code != 2 || strings.TrimSpace(second.stderr.String()) != want {
			t.Errorf("second crawl: exit %d, stderr %q; want 2 and %q", code, second.stderr.String(), want)
		}
		if took > 2*time.Second {
			t.Errorf("the second crawl took %s to give up", took)
		}
		// The lock is the file's: through a hard link, a symbolic link
		// or a second directory reaching it, a crawl is refused all the
		// same. Before, each took a lock of its own name and both wrote
		// (integrity_check: "2nd reference to page").
		linkDir := t.TempDir()
		hard, soft, otherDir := filepath.Join(linkDir, "hard.db"), filepath.Join(linkDir, "soft.db"), filepath.Join(linkDir, "second")
		if err := os.Link(dbPath, hard); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(dbPath, soft); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Dir(dbPath), otherDir); err != nil {
			t.Fatal(err)
		}
		for _, other := range []string{hard, soft, filepath.Join(otherDir, filepath.Base(dbPath))} {
			p := start(t, bin, args(other)...)
			code := p.wait(t)
			want := fmt.Sprintf("prowcrawl: database %s is being written by another crawl (process %d); try again later, or pass --wait", other, first.cmd.Process.Pid)
			if code != 2 || strings.TrimSpace(p.stderr.String()) != want {
				t.Errorf("crawl through %s: exit %d, stderr %q; want 2 and %q", other, code, p.stderr.String(), want)
			}
		}
		t.Logf("the second crawl gave up after %s", took.Round(time.Millisecond))
		if code := first.wait(t); code != 0 {
			t.Fatalf("first crawl: exit %d: %s", code, first.stderr.String())
		}
		if code := waiter.wait(t); code != 0 {
			t.Fatalf("crawl with --wait: exit %d: %s", code, waiter.stderr.String())
		}
		// Had it not waited, it would have found runs to store.
		if !strings.Contains(waiter.stdout.String(), " 0 new runs") {
			t.Errorf("the crawl with --wait ran before the first finished: %q", waiter.stdout.String())
		}
		if check(t, dbPath) != clean {
			t.Error("the database of the two crawls differs from the clean crawl's")
		}
	})

	// A crawl writes its database, the database's -wal and -shm files,
	// and nothing else (the lock is taken on the database itself): not in the working directory, the home
	// directory or the temporary directory.
	t.Run("writes only the database", func(t *testing.T) {
		cwd, home, tmp, dbDir := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
		cmd := exec.Command(bin, args(filepath.Join(dbDir, "x.db"))...)
		cmd.Dir = cwd
		cmd.Env = append(os.Environ(), "HOME="+home, "TMPDIR="+tmp, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("crawl: %v\n%s", err, out)
		}
		for _, dir := range []string{cwd, home, tmp} {
			if ents, _ := os.ReadDir(dir); len(ents) > 0 {
				t.Errorf("the crawl wrote %s in %s", ents[0].Name(), dir)
			}
		}
		ents, _ := os.ReadDir(dbDir)
		for _, e := range ents {
			if !slices.Contains([]string{"x.db", "x.db-wal", "x.db-shm", "x-cache"}, e.Name()) {
				t.Errorf("the crawl wrote %s next to the database", e.Name())
			}
		}
	})
}

// firstDiff shows where two dumps part.
func firstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d:\n want %s\n got  %s", i+1, wl[i], gl[i])
		}
	}
	return fmt.Sprintf("%d lines, want %d", len(gl), len(wl))
}
