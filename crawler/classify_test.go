package crawler

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/gcs"
)

// matchRows are a finding's matches as run_symptoms rows are queried below.
func matchRows(ms []prowcrawl.RunSymptom) []string {
	var out []string
	for _, m := range ms {
		at := "NULL"
		if !m.At.IsZero() {
			at = m.At.UTC().Format(time.RFC3339) // as stored
		}
		out = append(out, fmt.Sprintf("%s|%d|%s|%d|%s|%s", m.SymptomID, m.Hits, m.File, m.Line, m.Excerpt, at))
	}
	slices.Sort(out)
	return out
}

// storedMatches are a run's run_symptoms rows.
func storedMatches(t *testing.T, d *db.DB, job string, id int64) []string {
	t.Helper()
	rows := query(t, d, `SELECT symptom_id, hits, coalesce(file, ''), coalesce(line, 0), coalesce(excerpt, ''), coalesce(at, 'NULL')
		FROM run_symptoms WHERE job = ? AND build_id = ? ORDER BY symptom_id`, job, id)
	var out []string
	for _, r := range rows {
		// Times as stored are RFC 3339 text; normalise them as above.
		parts := strings.Split(r, "|")
		if at := parts[len(parts)-1]; at != "NULL" {
			if ts, err := time.Parse(time.RFC3339Nano, at); err == nil {
				parts[len(parts)-1] = ts.UTC().Format(time.RFC3339)
			}
		}
		out = append(out, strings.Join(parts, "|"))
	}
	slices.Sort(out)
	return out
}

// TestClassifyRemoteEqualsCrawl: classify on a run's Prow link and on its
// gs:// path, through the emulator, finds what a crawl of the same bucket
// stores in run_symptoms for that run, and downloads only the objects the
// crawl downloaded for it.
func TestClassifyRemoteEqualsCrawl(t *testing.T) {
	e := newEmulator(t, "bucket", shortObjects(t))
	src, err := gcs.New(t.Context(), "gs://bucket", gcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	if _, err := New(src, d, shortSample(sampleConfig())).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	_, crawled := e.counts()
	// Every run with a symptom of its own kind of evidence, and one without.
	picked := query(t, d, `SELECT job, build_id, path FROM runs WHERE (job, build_id) IN (
			SELECT job, min(build_id) FROM run_symptoms GROUP BY symptom_id
			UNION SELECT job, max(build_id) FROM run_symptoms GROUP BY symptom_id)
		UNION SELECT * FROM (SELECT job, build_id, path FROM runs WHERE result = 'success'
			AND (job, build_id) NOT IN (SELECT job, build_id FROM run_symptoms) LIMIT 1)`)
	if len(picked) < 5 {
		t.Fatalf("only %d runs picked from the crawl: %v", len(picked), picked)
	}
	rules := classify.Builtin()
	for _, p := range picked {
		parts := strings.Split(p, "|")
		job, dir := parts[0], parts[2]
		var id int64
		fmt.Sscan(parts[1], &id)
		want := storedMatches(t, d, job, id)
		for _, target := range []string{
			"https://prow.ci.openshift.org/view/gs/bucket/" + dir,
			"gs://bucket/" + dir + "/",
		} {
			_, before := e.counts()
			got, err := Classify(t.Context(), rules, target, gcs.Options{})
			if err != nil {
				t.Fatalf("classify %s: %v", target, err)
			}
			if len(got) != 1 {
				t.Fatalf("classify %s: %d findings, want 1", target, len(got))
			}
			if m := matchRows(got[0].Matches); !slices.Equal(m, want) {
				t.Errorf("classify %s:\n%s\nthe crawl stored:\n%s", target, strings.Join(m, "\n"), strings.Join(want, "\n"))
			}
			_, after := e.counts()
			var crawlReads []string
			for _, n := range crawled {
				if strings.HasPrefix(n, dir+"/") {
					crawlReads = append(crawlReads, n)
				}
			}
			read := slices.Clone(after[len(before):])
			slices.Sort(read)
			slices.Sort(crawlReads)
			if !slices.Equal(read, crawlReads) {
				t.Errorf("classify %s downloaded %v, the crawl %v", target, read, crawlReads)
			}
		}
	}

	// Wrong places in the bucket: one sentence each, matching ErrNotRun.
	job := path.Dir(strings.Split(picked[0], "|")[2])
	for _, tc := range []struct{ target, says string }{
		{"gs://bucket/" + job, "is a job's directory, not a run"},
		{"https://prow.ci.openshift.org/view/gs/bucket/logs", "is not a run"},
		{"gs://bucket/" + job + "/999", "holds no objects"},
		{"https://prow.ci.openshift.org/pr-history/?org=openshift", "is not a Prow link to a run"},
		{"gs://bucket", "names no run"},
	} {
		_, err := Classify(t.Context(), rules, tc.target, gcs.Options{})
		if !errors.Is(err, ErrNotRun) || !strings.Contains(err.Error(), tc.says) || strings.Count(err.Error(), ". ") > 0 {
			t.Errorf("classify %s: %v, want ErrNotRun saying %q", tc.target, err, tc.says)
		}
	}
}

// copyTree copies the directory src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if de.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestClassifyDirectories: a run directory, a run one level down (what
// gsutil cp -r makes when the target exists) and a job's directory are
// classified, each run in it; an empty directory, a directory of jobs and a
// directory of other files are refused with one sentence.
func TestClassifyDirectories(t *testing.T) {
	rules := classify.Builtin()
	jobDir := filepath.Join(sampleDir, "logs", "release-openshift-origin-installer-e2e-aws-upgrade")
	runDir := filepath.Join(jobDir, "14098")
	one, err := Classify(t.Context(), rules, runDir, gcs.Options{})
	if err != nil || len(one) != 1 || len(one[0].Matches) == 0 || one[0].Result != "failure" {
		t.Fatalf("classify the run directory: %v, %+v", err, one)
	}

	down := t.TempDir()
	copyTree(t, runDir, filepath.Join(down, "14098"))
	got, err := Classify(t.Context(), rules, down, gcs.Options{})
	if err != nil || len(got) != 1 || got[0].Path != filepath.Join(down, "14098") {
		t.Fatalf("classify a run one level down: %v, %+v", err, got)
	}
	if a, b := matchRows(got[0].Matches), matchRows(one[0].Matches); !slices.Equal(a, b) {
		t.Errorf("the run one level down gives\n%s\nthe run directory\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}

	ents, _ := os.ReadDir(jobDir)
	var runs int
	for _, e := range ents {
		if e.IsDir() {
			runs++
		}
	}
	got, err = Classify(t.Context(), rules, jobDir, gcs.Options{})
	if err != nil || len(got) != runs || runs < 2 {
		t.Fatalf("classify a job directory: %v, %d findings, want one per run, %d", err, len(got), runs)
	}

	empty := t.TempDir()
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "notes.txt"), []byte("what I saw\n"), 0o644)
	os.Mkdir(filepath.Join(other, "screenshots"), 0o755)
	for _, tc := range []struct{ target, says string }{
		{empty, "is an empty directory, not a run"},
		{sampleDir, "holds the runs of several jobs"},
		{filepath.Join(sampleDir, "logs"), "holds the runs of several jobs"},
		{other, "is not a run"},
		{filepath.Join(empty, "nothing-here"), "no such file or directory"},
	} {
		_, err := Classify(t.Context(), rules, tc.target, gcs.Options{})
		if !errors.Is(err, ErrNotRun) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("classify %s: %v, want ErrNotRun saying %q", tc.target, err, tc.says)
		}
	}
}

// TestClassifySingleFiles: each kind of file given on its own finds the
// symptom a crawl found in it, JUnit and clusterversion.json files included
// although their paths do not start with artifacts/; a truncated one reports
// its parse error.
func TestClassifySingleFiles(t *testing.T) {
	t.Parallel()
	d, _ := sampleCrawl(t)
	rules := classify.Builtin()
	// A file of each kind that holds the evidence of a symptom.
	evidence := func(like string) (symptom, file string) {
		t.Helper()
		got := query(t, d, `SELECT symptom_id, file FROM run_symptoms WHERE file LIKE ? ORDER BY job, build_id LIMIT 1`, like)
		if len(got) == 0 && strings.Contains(like, "backend-disruption") {
			// A match reports its earliest dated evidence, and a log
			// line dates it before the disruption file does: the file of
			// a run whose pod network was disrupted holds evidence too.
			got = query(t, d, `SELECT s.symptom_id, d.file FROM run_symptoms s JOIN run_disruptions d USING (job, build_id)
				WHERE s.symptom_id = 'pod-network-cross-node' AND d.file LIKE ? AND d.disrupted_s > 0
				AND (d.backend LIKE '%pod%' OR d.backend LIKE '%network-liveness%') ORDER BY s.job, s.build_id LIMIT 1`, like)
		}
		if len(got) == 0 {
			t.Fatalf("no evidence in a file like %s in the sample bucket", like)
		}
		symptom, file, _ = strings.Cut(got[0], "|")
		return symptom, filepath.Join(sampleDir, file)
	}
	dir := t.TempDir()
	type fileCase struct{ name, file, symptom, problem string }
	var cases []fileCase
	for _, kind := range []struct{ name, like string }{
		{"events", "%/e2e-events_%.json"},
		{"disruption", "%/backend-disruption_%.json"},
		{"pod log", "%/pods/%.log"},
		{"build log", "%/build-log.txt"},
	} {
		symptom, file := evidence(kind.like)
		cases = append(cases, fileCase{kind.name, file, symptom, ""})
	}
	// JUnit: a failed upgrade test the junit matchers name.
	junitRun := query(t, d, `SELECT r.path FROM runs r JOIN run_symptoms s USING (job, build_id)
		WHERE s.symptom_id = 'api-unavailable-during-upgrade' AND s.file IS NULL ORDER BY r.job, r.build_id LIMIT 1`)
	if len(junitRun) == 0 {
		t.Fatal("no run with api-unavailable-during-upgrade found in its tests")
	}
	var junit string
	filepath.WalkDir(filepath.Join(sampleDir, junitRun[0]), func(p string, de os.DirEntry, err error) error {
		if err == nil && !de.IsDir() && strings.Contains(de.Name(), "junit") && strings.HasSuffix(de.Name(), ".xml") {
			// The file with the failed availability test, not merely the
			// first with a failure.
			if b, _ := os.ReadFile(p); apiAvailableFailed.Match(b) && junit == "" {
				junit = p
			}
		}
		return nil
	})
	if junit == "" {
		t.Fatalf("no JUnit file with a failed API availability test in %s", junitRun[0])
	}
	cases = append(cases, fileCase{"junit", junit, "api-unavailable-during-upgrade", ""})
	// clusterversion.json of an upgrade that never completed.
	cvRun := query(t, d, `SELECT path FROM runs WHERE upgrade_state = 'Partial' ORDER BY job, build_id LIMIT 1`)
	if len(cvRun) == 0 {
		t.Fatal("no run with a Partial upgrade in the sample bucket")
	}
	cv := filepath.Join(sampleDir, cvRun[0], "artifacts")
	filepath.WalkDir(cv, func(p string, de os.DirEntry, err error) error {
		if err == nil && de.Name() == "clusterversion.json" {
			cv = p
		}
		return nil
	})
	cases = append(cases, fileCase{"clusterversion", cv, "upgrade-incomplete", ""})
	// Truncated copies, under their own names.
	for _, f := range []struct{ from, name string }{{junit, "junit_e2e.xml"}, {cv, "clusterversion.json"}} {
		b, err := os.ReadFile(f.from)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "truncated-"+strings.TrimSuffix(f.name, path.Ext(f.name)), f.name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, b[:len(b)/2], 0o644)
		cases = append(cases, fileCase{"truncated " + f.name, p, "", "parse"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Classify(t.Context(), rules, tc.file, gcs.Options{})
			if err != nil || len(got) != 1 {
				t.Fatalf("classify %s: %v, %d findings", tc.file, err, len(got))
			}
			var ids, problems []string
			for _, m := range got[0].Matches {
				ids = append(ids, m.SymptomID)
			}
			for _, p := range got[0].Problems {
				problems = append(problems, string(p.Kind))
			}
			if tc.symptom != "" && !slices.Contains(ids, tc.symptom) {
				t.Errorf("classify %s found %v, want %s", tc.file, ids, tc.symptom)
			}
			if got := strings.Join(problems, ","); got != tc.problem {
				t.Errorf("classify %s: problems %q, want %q", tc.file, got, tc.problem)
			}
		})
	}
}

// apiAvailableFailed finds a failed API availability test in a JUnit file.
var apiAvailableFailed = regexp.MustCompile(`(?s)<testcase [^>]*name="[^"]*APIs remain available[^"]*"[^>]*>\s*<failure`)
