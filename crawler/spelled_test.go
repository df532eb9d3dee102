package crawler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestBuildSpelledTwice: a job directory that holds 09999/ beside 9999/
// (one build number spelled twice, as a copy by hand or a tool that pads
// names leaves it) stores the run once, read from 9999/, the spelling Prow
// writes, and records a problem on it that names both directories. Before,
// the listing kept whichever sorted first (09999/) and dropped the other
// without a word. Both from a mirror directory and through the emulator.
func TestBuildSpelledTwice(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	at := now.Add(-5 * time.Hour)
	job := "logs/" + hostileJob + "/"
	const junitDir = "artifacts/e2e/junit/"
	junit := func(name, status string) string {
		body := ""
		if status == "fail" {
			body = `<failure message="boom">boom</failure>`
		}
		return fmt.Sprintf(`<testsuite name="openshift-tests"><testcase name=%q time="1">%s</testcase></testsuite>`, name, body)
	}
	files := map[string]string{
		// The padded copy, listed first.
		job + "09999/started.json":                    started(at),
		job + "09999/finished.json":                   finished(at.Add(time.Hour), "FAILURE"),
		job + "09999/" + junitDir + "junit_e2e_1.xml": junit("[sig-arch] only in the padded copy", "fail"),
		job + "9999/started.json":                     started(at),
		job + "9999/finished.json":                    finished(at.Add(time.Hour), "SUCCESS"),
		job + "9999/" + junitDir + "junit_e2e_1.xml":  junit("[sig-arch] only in the plain one", "pass"),
		// One number, two spellings, neither of them plain: the first
		// listed is read.
		job + "00042/started.json":  started(at),
		job + "00042/finished.json": finished(at.Add(time.Hour), "SUCCESS"),
		job + "042/started.json":    started(at),
		job + "042/finished.json":   finished(at.Add(time.Hour), "FAILURE"),
		// An ordinary run beside them.
		job + "10000/started.json":  started(at.Add(time.Minute)),
		job + "10000/finished.json": finished(at.Add(time.Hour), "SUCCESS"),
	}
	dir := writeTree(t, files)
	sources := map[string]func(t *testing.T) prowcrawl.Source{
		"mirror": func(t *testing.T) prowcrawl.Source {
			src, err := mirror.New(dir)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { src.Close() })
			return src
		},
		"gcs": func(t *testing.T) prowcrawl.Source {
			newEmulator(t, "ci", bucketObjects(t, dir, "ci"))
			src, err := gcs.New(t.Context(), "gs://ci", gcs.Options{})
			if err != nil {
				t.Fatal(err)
			}
			return src
		},
	}
	for name, open := range sources {
		t.Run(name, func(t *testing.T) {
			d := openDB(t)
			cfg := Config{Jobs: upgradeJobs, Since: now.Add(-24 * time.Hour), Now: func() time.Time { return now }}
			if _, err := New(open(t), d, cfg).Run(t.Context()); err != nil {
				t.Fatal(err)
			}
			want := []string{
				"42|" + job + "00042|success|complete",
				"9999|" + job + "9999|success|complete",
				"10000|" + job + "10000|success|complete",
			}
			if got := query(t, d, `SELECT build_id, path, result, fetch_status FROM runs ORDER BY build_id`); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			if got := query(t, d, `SELECT name, status FROM tests WHERE build_id = 9999`); len(got) != 1 || got[0] != "[sig-arch] only in the plain one|pass" {
				t.Errorf("tests of 9999: %q, want the plain directory's", got)
			}
			wantErr := []string{
				"42|" + job + "042/|parse|build 42 is spelled twice: " + job + "00042/ was read and " + job + "042/ was not",
				"9999|" + job + "09999/|parse|build 9999 is spelled twice: " + job + "9999/ was read and " + job + "09999/ was not",
			}
			got := query(t, d, `SELECT build_id, object, kind, message FROM run_errors ORDER BY build_id`)
			if len(got) != len(wantErr) {
				t.Fatalf("run_errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantErr, "\n"))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], wantErr[i]) {
					t.Errorf("run_errors[%d] = %q, want it to start %q", i, got[i], wantErr[i])
				}
			}
		})
	}
}
