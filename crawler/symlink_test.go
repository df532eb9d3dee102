package crawler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestMirrorSymlinks: a mirror follows the symbolic links whose target
// stays inside it (a symlinked JUnit file, artifacts directory, build
// directory and job directory are read as if they were there) and records
// those that do not: a link to a file or a build directory outside the
// mirror, a dangling link and a link back up its own path are named in the
// run's problems, the run is not complete, and nothing outside is read.
// Before, every symlink was skipped without a word and the run was
// complete with the tests of its plain files only.
func TestMirrorSymlinks(t *testing.T) {
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	at := now.Add(-5 * time.Hour)
	other := strings.Replace(hostileJob, "aws", "gcp", 1)
	junit := func(names ...string) string {
		var b strings.Builder
		b.WriteString(`<testsuite name="openshift-tests">`)
		for _, n := range names {
			fmt.Fprintf(&b, `<testcase name=%q time="1"/>`, n)
		}
		b.WriteString(`</testsuite>`)
		return b.String()
	}
	run := func(job string, id int) map[string]string {
		dir := fmt.Sprintf("logs/%s/%d/", job, id)
		return map[string]string{
			dir + "started.json":  started(at.Add(time.Duration(id) * time.Second)),
			dir + "finished.json": finished(at.Add(time.Hour), "SUCCESS"),
		}
	}
	files := map[string]string{}
	for _, m := range []map[string]string{run(hostileJob, 100), run(other, 300)} {
		for k, v := range m {
			files[k] = v
		}
	}
	job := "logs/" + hostileJob + "/"
	files[job+"100/artifacts/e2e/junit/junit_e2e_1.xml"] = junit("[sig-arch] a plain file")
	// Inside the mirror, but not in any job: the targets of the links.
	files["stash/junit_shared.xml"] = junit("[sig-arch] through a file link")
	files["stash/gather/junit_gather.xml"] = junit("[sig-arch] through a directory link")
	files["stash/build/started.json"] = started(at.Add(time.Minute))
	files["stash/build/finished.json"] = finished(at.Add(time.Hour), "SUCCESS")
	files["stash/build/artifacts/junit_e2e.xml"] = junit("[sig-arch] in a linked build directory")
	dir := writeTree(t, files)
	outside := filepath.Join(filepath.Dir(dir), "outside")
	for name, body := range map[string]string{
		"junit_secret.xml":        junit("[sig-arch] outside the mirror"),
		"build/started.json":      started(at.Add(2 * time.Minute)),
		"build/finished.json":     finished(at.Add(time.Hour), "SUCCESS"),
		"build/artifacts/j.xml":   junit("[sig-arch] outside the mirror"),
		"job/400/started.json":    started(at.Add(3 * time.Minute)),
		"job/400/finished.json":   finished(at.Add(time.Hour), "SUCCESS"),
		"job/400/artifacts/j.xml": junit("[sig-arch] outside the mirror"),
	} {
		p := filepath.Join(outside, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.FromSlash(target), p); err != nil {
			t.Fatal(err)
		}
	}
	junitDir := job + "100/artifacts/e2e/junit/"
	link("../../../../../../stash/junit_shared.xml", junitDir+"junit_e2e_2.xml") // inside: read
	link("../../../../../stash/gather", job+"100/artifacts/e2e/gather-extra")    // inside: read
	link(filepath.Join(outside, "junit_secret.xml"), junitDir+"junit_e2e_3.xml") // outside: recorded
	link("../../../../../../../outside/junit_secret.xml", junitDir+"junit_e2e_4.xml")
	link("missing.xml", junitDir+"junit_e2e_5.xml")                                 // dangling: recorded
	link("..", job+"100/artifacts/e2e/loop")                                        // a loop: recorded
	link("../../stash/build", job+"101")                                            // a build directory inside: read
	link(filepath.Join(outside, "build"), job+"102")                                // a build directory outside: recorded
	link("../stash/jobs/"+other, "logs/"+strings.Replace(other, "gcp", "azure", 1)) // a job directory inside
	if err := os.MkdirAll(filepath.Join(dir, "stash", "jobs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(dir, "logs", other), filepath.Join(dir, "stash", "jobs", other)); err != nil {
		t.Fatal(err)
	}
	link("../stash/jobs/"+other, "logs/"+other)
	link(filepath.Join(outside, "job"), "logs/"+strings.Replace(hostileJob, "aws", "metal", 1)) // a job directory outside

	src, err := mirror.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	d := openDB(t)
	cfg := Config{Jobs: upgradeJobs, Since: now.Add(-24 * time.Hour), Now: func() time.Time { return now }}
	// The crawl goes on, and ends saying that some runs and a job were
	// not read whole (exit status 1).
	sum, err := New(src, d, cfg).Run(t.Context())
	if !errors.Is(err, ErrRunsFailed) {
		t.Errorf("crawl: %v, want %v", err, ErrRunsFailed)
	}
	if sum.Unlisted != 1 {
		t.Errorf("%d jobs not listed, want 1 (the job directory outside the mirror)", sum.Unlisted)
	}
	got := query(t, d, `SELECT r.job, r.build_id, r.fetch_status, (SELECT group_concat(name, ',') FROM (SELECT name FROM tests s WHERE s.job = r.job AND s.build_id = r.build_id ORDER BY name))
FROM runs r ORDER BY r.job, r.build_id`)
	azure := strings.Replace(other, "gcp", "azure", 1)
	want := []string{
		hostileJob + "|100|partial|[sig-arch] a plain file,[sig-arch] through a directory link,[sig-arch] through a file link",
		hostileJob + "|101|complete|[sig-arch] in a linked build directory",
		hostileJob + "|102|error|NULL",
		azure + "|300|complete|NULL",
		other + "|300|complete|NULL",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("runs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	problems := query(t, d, `SELECT object, kind, message FROM run_errors WHERE build_id = 100 ORDER BY object`)
	wantProblems := []string{
		job + "100/artifacts/e2e/junit/junit_e2e_3.xml|read|" + junitDir + "junit_e2e_3.xml is a symbolic link to " + filepath.Join(outside, "junit_secret.xml") + ", which leads outside the mirror: not read",
		job + "100/artifacts/e2e/junit/junit_e2e_4.xml|read|" + junitDir + "junit_e2e_4.xml is a symbolic link to ../../../../../../../outside/junit_secret.xml, which leads outside the mirror: not read",
		job + "100/artifacts/e2e/junit/junit_e2e_5.xml|read|" + junitDir + "junit_e2e_5.xml is a symbolic link to missing.xml, which does not exist: not read",
		job + "100/artifacts/e2e/loop|read|" + job + "100/artifacts/e2e/loop is a symbolic link to a directory that holds it (a loop): not followed",
	}
	if strings.Join(problems, "\n") != strings.Join(wantProblems, "\n") {
		t.Errorf("problems of run 100:\n%s\nwant:\n%s", strings.Join(problems, "\n"), strings.Join(wantProblems, "\n"))
	}
	if got := query(t, d, `SELECT fetch_error FROM runs WHERE build_id = 102`); len(got) != 1 ||
		!strings.Contains(got[0], job+"102 is a symbolic link to "+filepath.Join(outside, "build")+", which leads outside the mirror: not read") {
		t.Errorf("fetch_error of run 102 = %q, want it to name the link and say why it is not read", got)
	}
	if got := query(t, d, `SELECT count(*) FROM tests WHERE name LIKE '%outside the mirror%'`); got[0] != "0" {
		t.Errorf("%s tests read from outside the mirror", got[0])
	}
}
