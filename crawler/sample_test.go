package crawler

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fsouza/fake-gcs-server/fakestorage"

	"github.com/openshift-eng/prowcrawl/artifact"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/mirror"
	"github.com/openshift-eng/prowcrawl/prow"
)

// sampleDir is the bundled sample bucket; its MANIFEST.json is the answer key.
var sampleDir = filepath.Join("..", "testdata", "bucket")

type manifestRun struct {
	Path         string         `json:"path"`
	Job          string         `json:"job"`
	BuildID      string         `json:"build_id"`
	Started      string         `json:"started"`
	Finished     string         `json:"finished"`
	Result       string         `json:"result"`
	FromVersion  string         `json:"from_version"`
	ToVersion    string         `json:"to_version"`
	UpgradeState string         `json:"upgrade_state"`
	Symptoms     []string       `json:"symptoms"`
	FlakyTests   []manifestTest `json:"flaky_tests"`
	FailedTests  []manifestTest `json:"failed_tests"`
}

type manifestTest struct {
	Suite string `json:"suite"`
	Name  string `json:"name"`
}

func (m manifestTest) String() string { return m.Suite + "|" + m.Name }

func readManifest(t *testing.T) []manifestRun {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sampleDir, "MANIFEST.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Runs []manifestRun `json:"runs"`
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m.Runs
}

var upgradeJobs = []*regexp.Regexp{regexp.MustCompile("upgrade")}

// builtinRules is the engine of the built-in symptom rules.
var builtinRules = func() *classify.Engine {
	e, err := classify.NewEngine(classify.Builtin())
	if err != nil {
		panic(err)
	}
	return e
}()

// sampleConfig crawls the whole sample bucket, presubmits included, with
// the built-in rules.
func sampleConfig() Config {
	return Config{Jobs: upgradeJobs, Since: time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC), Presubmits: true, Rules: builtinRules}
}

// shortSample narrows cfg, under -short, to three jobs of the sample that
// show every built-in symptom between them (of 79 runs, 38), for the tests
// whose cost grows with every run they crawl and check.
func shortSample(cfg Config) Config {
	if testing.Short() {
		cfg.Jobs = []*regexp.Regexp{shortJobs}
	}
	return cfg
}

var shortJobs = regexp.MustCompile(`4\.14-upgrade-from-stable-4\.13|nightly-4\.14-e2e-aws-sdn-upgrade|release-openshift-origin-installer`)

// shortObjects is the sample's objects for an emulator, under -short only
// those of the jobs shortSample crawls: the emulator finds an object by a
// scan of the whole bucket, which costs most of such a test's time under
// the race detector.
func shortObjects(t testing.TB) []fakestorage.Object {
	objs := bucketObjects(t, sampleDir, "bucket")
	if testing.Short() {
		objs = slices.DeleteFunc(objs, func(o fakestorage.Object) bool { return !shortJobs.MatchString(o.Name) })
	}
	return objs
}

// sampleCrawl is the database of one crawl of the whole sample bucket from
// the directory with sampleConfig(), and its summary, made once for the
// tests that only read what it stored. They must not write to it.
func sampleCrawl(t *testing.T) (*db.DB, Summary) {
	t.Helper()
	crawled.once.Do(func() {
		crawled.err = func() error {
			src, err := mirror.New(sampleDir)
			if err != nil {
				return err
			}
			defer src.Close()
			if crawled.dir, err = os.MkdirTemp("", "prowcrawl-sample-"); err != nil {
				return err
			}
			if crawled.db, err = db.Open(context.Background(), filepath.Join(crawled.dir, "prowcrawl.db")); err != nil {
				return err
			}
			if crawled.sum, err = New(src, crawled.db, sampleConfig()).Run(context.Background()); err != nil {
				return fmt.Errorf("crawl: %w (%+v)", err, crawled.sum)
			}
			raw, err := sql.Open("sqlite", "file:"+crawled.db.Path()+"?mode=ro")
			if err != nil {
				return err
			}
			readers.Store(crawled.db.Path(), raw)
			return nil
		}()
	})
	if crawled.err != nil {
		t.Fatalf("the crawl of the sample bucket: %v", crawled.err)
	}
	return crawled.db, crawled.sum
}

var crawled struct {
	once sync.Once
	dir  string
	db   *db.DB
	sum  Summary
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if crawled.db != nil {
		crawled.db.Close()
	}
	if crawled.dir != "" {
		os.RemoveAll(crawled.dir)
	}
	os.Exit(code)
}

// TestCrawlSampleBucket crawls testdata/bucket and checks every run against
// the answer key.
func TestCrawlSampleBucket(t *testing.T) {
	d, sum := sampleCrawl(t)
	var want []manifestRun
	for _, r := range readManifest(t) {
		if upgradeJobs[0].MatchString(r.Job) {
			want = append(want, r)
		}
	}
	if sum.New != len(want) || sum.Errors != 0 {
		t.Errorf("summary %+v, want %d new runs and no errors", sum, len(want))
	}
	if n := query(t, d, `SELECT count(*) FROM runs WHERE job NOT LIKE '%upgrade%'`); n[0] != "0" {
		t.Errorf("%s runs of non-upgrade jobs stored", n[0])
	}
	for _, r := range want {
		t.Run(r.Job+"/"+r.BuildID, func(t *testing.T) {
			got := query(t, d, `SELECT path, result, coalesce(started_at, ''), coalesce(finished_at, ''),
				coalesce(from_version, ''), coalesce(to_version, ''), coalesce(upgrade_state, ''), fetch_status
				FROM runs WHERE job = ? AND build_id = ?`, r.Job, r.BuildID)
			wantRow := strings.Join([]string{r.Path, r.Result, r.Started, r.Finished, r.FromVersion, r.ToVersion, r.UpgradeState, "complete"}, "|")
			if r.Result == "pending" {
				// A running job has no results yet; only its start is known.
				wantRow = strings.Join([]string{r.Path, r.Result, r.Started, "", "", "", "", "complete"}, "|")
			}
			if len(got) != 1 || got[0] != wantRow {
				t.Fatalf("run row\n got %v\nwant %s", got, wantRow)
			}
			flakes := query(t, d, `SELECT suite, name FROM tests WHERE job = ? AND build_id = ? AND status = 'flake' ORDER BY 1, 2`, r.Job, r.BuildID)
			var wantFlakes []string
			for _, f := range r.FlakyTests {
				wantFlakes = append(wantFlakes, f.String())
			}
			slices.Sort(wantFlakes)
			if !slices.Equal(flakes, wantFlakes) {
				t.Errorf("flakes %q, want %q", flakes, wantFlakes)
			}
			symptoms := query(t, d, `SELECT symptom_id FROM run_symptoms WHERE job = ? AND build_id = ? ORDER BY 1`, r.Job, r.BuildID)
			if want := slices.Sorted(slices.Values(r.Symptoms)); !slices.Equal(symptoms, want) && !(len(symptoms) == 0 && len(want) == 0) {
				t.Errorf("symptoms %q, want %q", symptoms, want)
			}
			failed := query(t, d, `SELECT suite, name FROM tests WHERE job = ? AND build_id = ? AND status = 'fail'`, r.Job, r.BuildID)
			for _, f := range r.FailedTests {
				if !slices.Contains(failed, f.String()) {
					t.Errorf("test %q not recorded as failed (failed: %q)", f, failed)
				}
			}
		})
	}
}

// dumpDB renders every table that a crawl fills, without the columns that
// record when or from where it ran.
func dumpDB(t *testing.T, d *db.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		`SELECT * FROM jobs ORDER BY name`,
		`SELECT job, build_id, bucket, path, url, started_at, finished_at, result, release, from_release, upgrade,
		        from_version, to_version, upgrade_state, tag, from_tag, pull, fetch_status, fetch_error, objects_read, bytes_read
		 FROM runs ORDER BY job, build_id`,
		`SELECT * FROM tests ORDER BY job, build_id, suite, name`,
		`SELECT * FROM run_errors ORDER BY job, build_id, object`,
		`SELECT bucket, job, build_id, started_at FROM crawl_cursors ORDER BY bucket, job`,
	} {
		for _, row := range query(t, d, q) {
			b.WriteString(row)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

// cleanSample returns dumpDB of a crawl of the sample bucket from the
// directory with shortSample(sampleConfig()); the crawl is made once for every test that
// compares with it.
func cleanSample(t *testing.T) string {
	t.Helper()
	cleanOnce.Do(func() {
		local, err := mirror.New(sampleDir)
		if err != nil {
			t.Fatal(err)
		}
		d := openDB(t)
		if _, err := New(local, d, shortSample(sampleConfig())).Run(t.Context()); err != nil {
			t.Fatal(err)
		}
		cleanDump = dumpDB(t, d)
	})
	if cleanDump == "" {
		t.Fatal("the clean crawl of the sample bucket failed")
	}
	return cleanDump
}

var (
	cleanOnce sync.Once
	cleanDump string
)

// TestSourcesGiveSameDatabase crawls the sample bucket from the directory
// and from the GCS emulator (pod logs stored gzip content-encoded, as Prow
// uploads them) and expects identical databases.
func TestSourcesGiveSameDatabase(t *testing.T) {
	a := cleanSample(t)

	// The directory source names its bucket after the directory.
	newEmulator(t, "bucket", shortObjects(t))
	remote, err := gcs.New(t.Context(), "gs://bucket", gcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d2 := openDB(t)
	if _, err := New(remote, d2, shortSample(sampleConfig())).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	b := dumpDB(t, d2)
	if a != b {
		al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
		for i := range min(len(al), len(bl)) {
			if al[i] != bl[i] {
				t.Fatalf("databases differ at line %d:\nlocal %s\ngcs   %s", i, al[i], bl[i])
			}
		}
		t.Fatalf("databases differ in length: %d and %d lines", len(al), len(bl))
	}
	if strings.Count(a, "\n") < 1000 {
		t.Errorf("the dump has only %d lines: the comparison proves little", strings.Count(a, "\n"))
	}
}

// TestIncrementalCrawl: a second crawl of an unchanged bucket lists but
// reads no object of a stored run; a new run and a run that was pending are
// picked up by the next one.
func TestIncrementalCrawl(t *testing.T) {
	e := newEmulator(t, "bucket", shortObjects(t))
	src, err := gcs.New(t.Context(), "gs://bucket", gcs.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	now := time.Date(2026, 11, 30, 6, 0, 0, 0, time.UTC)
	cfg := shortSample(sampleConfig()) // the short jobs hold the pending run
	cfg.Now = func() time.Time { return now }
	if _, err := New(src, d, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	pending := query(t, d, `SELECT path FROM runs WHERE result = 'pending'`)
	if len(pending) != 1 {
		t.Fatalf("pending runs %v, want the one of the sample", pending)
	}
	jobs := len(query(t, d, `SELECT name FROM jobs`))

	// Every object is downloaded once: a JUnit file a rule reads is
	// scanned while it is parsed, not downloaded again.
	_, first := e.counts()
	seen := make(map[string]bool)
	junits := 0
	for _, name := range first {
		if seen[name] {
			t.Errorf("the first crawl downloaded %s twice", name)
		}
		seen[name] = true
		if artifact.IsJUnit(name[strings.Index(name, "/artifacts/")+1:]) {
			junits++
		}
	}
	if junits == 0 {
		t.Fatal("the first crawl read no JUnit file")
	}

	// Nightly crawl of an unchanged bucket: incremental, no --since.
	cfg.Since = time.Time{}
	e.listOffsets()
	sum, err := New(src, d, cfg).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	lists, reads := e.counts()
	for _, name := range reads {
		if !strings.HasPrefix(name, pending[0]+"/") {
			t.Errorf("the second crawl read %s, an object of a stored run", name)
		}
	}
	// The two top-level listings, one per job, and one of the pending run.
	if want := 2 + jobs + 1; lists != want {
		t.Errorf("the second crawl made %d listings, want %d", lists, want)
	}
	// A job of snowflake ids is listed from its cursor on, so the listing
	// grows with new builds, not with the job's history; a job of old
	// sequential ids cannot be (ids of different lengths sort wrongly).
	offsets := e.listOffsets()
	for _, job := range query(t, d, `SELECT j.name, max(r.build_id) FROM jobs j JOIN runs r ON r.job = j.name GROUP BY j.name`) {
		name, maxID, _ := strings.Cut(job, "|")
		prefix := "logs/" + name + "/"
		if strings.HasPrefix(name, "pull-") {
			prefix = "pr-logs/directory/" + name + "/"
		}
		off, listed := offsets[prefix]
		switch {
		case !listed:
			t.Errorf("job %s was not listed", name)
		case len(maxID) == 19 && !strings.HasPrefix(off, prefix):
			t.Errorf("job %s was listed from %q, want from its cursor", name, off)
		case len(maxID) < 19 && off != "":
			t.Errorf("job %s of sequential ids was listed from %q", name, off)
		}
	}
	if sum.New != 0 || sum.Updated != 1 || sum.Pending != 1 {
		t.Errorf("second crawl %+v, want only the pending run looked at again", sum)
	}

	// The pending run finishes and a new run appears.
	rp, _ := prow.ParseRunPath(pending[0])
	fin := now.Add(-time.Hour)
	e.fake.CreateObject(obj("bucket", pending[0]+"/finished.json", []byte(finished(fin, "SUCCESS"))))
	newStart := now.Add(-30 * time.Minute)
	newID := prow.MinBuildIDAt(newStart.Add(-time.Minute)) + 7
	newDir := fmt.Sprintf("logs/%s/%d", rp.Job, newID)
	for _, o := range []fakestorage.Object{
		obj("bucket", newDir+"/started.json", []byte(started(newStart))),
		obj("bucket", newDir+"/finished.json", []byte(finished(newStart.Add(20*time.Minute), "FAILURE"))),
		obj("bucket", newDir+"/artifacts/e2e/openshift-e2e-test/artifacts/junit/junit_upgrade_1.xml", []byte(junitWithFlake)),
	} {
		e.fake.CreateObject(o)
	}
	e.counts()
	sum, err = New(src, d, cfg).Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 1 || sum.Updated != 1 || sum.Pending != 0 {
		t.Errorf("third crawl %+v, want the new run and the finished one", sum)
	}
	_, reads = e.counts()
	for _, name := range reads {
		if !strings.HasPrefix(name, pending[0]+"/") && !strings.HasPrefix(name, newDir+"/") {
			t.Errorf("the third crawl read %s, an object of a stored run", name)
		}
	}
	got := query(t, d, `SELECT result FROM runs WHERE path = ? UNION ALL SELECT result FROM runs WHERE path = ?`, pending[0], newDir)
	if strings.Join(got, ",") != "success,failure" {
		t.Errorf("results %v, want the pending run now success and the new one failure", got)
	}
	if flakes := query(t, d, `SELECT count(*) FROM tests WHERE build_id = ? AND status = 'flake'`, newID); flakes[0] != "1" {
		t.Errorf("the new run has %s flakes, want 1", flakes[0])
	}
}
