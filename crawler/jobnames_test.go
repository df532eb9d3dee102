package crawler

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestRealJobNamesIntoJobs crawls one finished run of every job of the
// real-name table (prow/testdata/jobnames.tsv) from a mirror and checks
// the jobs rows the crawl stored: the table's variants, as ParseJobName
// gives them, reach the database unchanged.
func TestRealJobNamesIntoJobs(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("..", "prow", "testdata", "jobnames.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dir := t.TempDir()
	want := map[string]string{}
	start := time.Date(2026, 11, 20, 10, 0, 0, 0, time.UTC)
	sc := bufio.NewScanner(f)
	for n := int64(1); sc.Scan(); {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		name := cols[0]
		// type, release, from_release, upgrade, platform, network, arch, topology
		want[name] = strings.Join([]string{cols[8], cols[1], cols[2], cols[3], cols[4], cols[5], cols[6], cols[7]}, " ")
		run := filepath.Join(dir, "logs", name, fmt.Sprint(n))
		if err := os.MkdirAll(run, 0o755); err != nil {
			t.Fatal(err)
		}
		started := fmt.Sprintf(`{"timestamp": %d}`, start.Add(time.Duration(n)*time.Minute).Unix())
		finished := fmt.Sprintf(`{"timestamp": %d, "passed": true, "result": "SUCCESS"}`, start.Add(time.Duration(n)*time.Minute+time.Hour).Unix())
		for file, body := range map[string]string{"started.json": started, "finished.json": finished} {
			if err := os.WriteFile(filepath.Join(run, file), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	src, err := mirror.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	store := openDB(t)
	cfg := Config{Jobs: []*regexp.Regexp{regexp.MustCompile(".")}, Since: start.Add(-time.Hour), Now: func() time.Time { return start.Add(48 * time.Hour) }}
	if _, err := New(src, store, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	got := query(t, store, `SELECT name || '|' || coalesce(type, '-') || ' ' || coalesce(release, '-') || ' ' || coalesce(from_release, '-') || ' ' ||
	coalesce(upgrade, '-') || ' ' || coalesce(platform, '-') || ' ' || coalesce(network, '-') || ' ' || coalesce(arch, '-') || ' ' ||
	coalesce(topology, '-') FROM jobs`)
	if len(got) != len(want) || len(want) < 300 {
		t.Fatalf("%d jobs stored, want the table's %d", len(got), len(want))
	}
	for _, row := range got {
		name, vars, _ := strings.Cut(row, "|")
		if want[name] != vars {
			t.Errorf("%s: stored %q, want %q", name, vars, want[name])
		}
	}
}
