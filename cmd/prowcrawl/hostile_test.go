package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// hostileName is what a bucket's job or object name may hold: an OSC 52
// that sets the clipboard, a clear of the screen, a C1 CSI, a
// right-to-left override, a tab, and a ")" that closes a Markdown link
// for the attacker's to follow. GCS refuses CR and LF in a name; a name
// part holds no "/".
const hostileName = "\x1b]52;c;aGk=\x07\x1b[2J\u009b31m\u202e\tforged|x|)[x](https:evil.example)"

// hostileLine is a log line that does the same.
const hostileLine = "E1130 12:00:00.000000 1 router.go:1] error: lease lost \x1b]52;c;aGk=\x07\x1b[2J\u202e\r\nforged | row |)[x](https://evil.example)"

// hostileBucket is a mirror of some of the sample's runs of one job: the
// first three under a job whose name ends in hostileName, the next six
// under the job's own name; each with a hostile line in its build log and
// an object whose name holds hostileName.
func hostileBucket(t *testing.T) (dir, job string) {
	t.Helper()
	dir = t.TempDir()
	job = plantedEdgeJob + hostileName
	src := filepath.Join(sampleBucket, "logs", plantedEdgeJob)
	builds, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, b := range builds {
		if !b.IsDir() || n == 9 {
			continue
		}
		n++
		to := filepath.Join(dir, "logs", plantedEdgeJob, b.Name())
		if n <= 3 {
			to = filepath.Join(dir, "logs", job, b.Name())
		}
		// Copied, not linked: the test appends to the logs.
		err := filepath.WalkDir(filepath.Join(src, b.Name()), func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(filepath.Join(src, b.Name()), p)
			if d.IsDir() {
				return os.MkdirAll(filepath.Join(to, rel), 0o755)
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			if d.Name() == "build-log.txt" {
				data = append(data, []byte("\n"+hostileLine+"\n")...)
			}
			return os.WriteFile(filepath.Join(to, rel), data, 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
		hostileDir := filepath.Join(to, "artifacts", "e2e"+hostileName)
		if err := os.MkdirAll(hostileDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(hostileDir, "build-log.txt"), []byte(hostileLine+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, job
}

// checkOutput fails unless every line of out is one safe line and none
// was forged by a line break from the bucket.
func checkOutput(t *testing.T, what, out string) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if safe.Line(line) != line {
			t.Errorf("%s: line %d is not one safe line: %q", what, i+1, line)
		}
		if strings.HasPrefix(strings.TrimLeft(line, " \t|-#"), "forged") {
			t.Errorf("%s: line %d was forged by a line break from the bucket: %q", what, i+1, line)
		}
	}
	// In Markdown, outside inline code (where no link is read), the
	// bucket's "[x](" is escaped.
	if strings.Contains(what, "markdown") && strings.Contains(regexp.MustCompile("`[^`]*`").ReplaceAllString(out, ""), "[x](") {
		t.Errorf("%s: the bucket's text makes a link:\n%s", what, out)
	}
}

// TestHostileBucket crawls a bucket whose job and object names and log
// lines hold escape sequences, line breaks and Markdown, with the real
// crawl, and runs every command that prints them: nothing of it reaches
// the output raw.
func TestHostileBucket(t *testing.T) {
	dir, job := hostileBucket(t)
	// Served by the GCS emulator: a directory mirror refuses control
	// characters in names, GCS does not.
	const bucket = "test-platform-results-public"
	emulate(t, bucket, dir, nil)
	dbPath := filepath.Join(t.TempDir(), "prowcrawl.db")
	cacheDir := filepath.Join(t.TempDir(), "cache")
	runOK(t, "crawl", "--bucket", "gs://"+bucket, "--db", dbPath, "--cache", cacheDir, "--since", "2019-01-01")
	for _, args := range [][]string{
		{"status", "--db", dbPath, "--runs", "10", "--cache", cacheDir, "--wide"},
		{"report", "--db", dbPath, "--by", "job", "--min-runs", "1"},
		{"report", "--db", dbPath, "--by", "job", "--min-runs", "1", "--format", "markdown"},
		{"report", "--db", dbPath, "--by", "job", "--min-runs", "1", "--format", "csv"},
		{"report", "--db", dbPath, "--changes", "--format", "markdown"},
		// The cache holds no run of the hostile job (it refuses the
		// name): search and suggest read the others.
		{"search", "--db", dbPath, "--cache", cacheDir, "--job", `upgrade$`, "lease lost"},
		{"classify", filepath.Join(dir, "logs", job)},
		{"suggest", "--db", dbPath, "--cache", cacheDir, "--job", `upgrade$`},
		{"suggest", "--db", dbPath, "--cache", cacheDir, "--job", `upgrade$`, "--format", "yaml"},
	} {
		what := strings.Join(args[:1], " ")
		for i, a := range args {
			if a == "--format" {
				what += " --format " + args[i+1]
			}
		}
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), args, &stdout, &stderr); err != nil {
			t.Errorf("%s: %v\n%s", what, err, stderr.String())
			continue
		}
		checkOutput(t, what, stdout.String())
		if what == "status" && !strings.Contains(stdout.String(), `\x1b]52;c;aGk=\a`) {
			t.Errorf("status does not show the job name, escaped:\n%s", stdout.String())
		}
		if what == "search" && strings.Count(stdout.String(), "lease lost") < 2 {
			t.Errorf("search found too little:\n%s", stdout.String())
		}
	}

	// suggest and search of every run, the hostile job's included (the
	// cache refuses its name): that run is left out, the command goes on.
	// Before, suggest failed whole on it.
	for _, args := range [][]string{
		{"suggest", "--db", dbPath, "--cache", cacheDir},
		{"search", "--db", dbPath, "--cache", cacheDir, "lease lost"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(t.Context(), args, &stdout, &stderr); err != nil {
			t.Errorf("%s of every run: %v\n%s", args[0], err, stderr.String())
			continue
		}
		checkOutput(t, args[0]+" of every run", stdout.String())
	}
}
