package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/openshift-eng/prowcrawl/cache"
)

// requestLog counts the emulator's requests: object reads (downloads) and
// every request at all, by path.
type requestLog struct {
	mu    sync.Mutex
	all   int
	reads []string
}

func (l *requestLog) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.all++
		// Downloads: the XML API (/BUCKET/OBJECT) and the JSON API's media.
		if !strings.HasPrefix(r.URL.Path, "/storage/v1/b") || r.URL.Query().Get("alt") == "media" || strings.HasPrefix(r.URL.Path, "/download/") {
			l.reads = append(l.reads, r.URL.Path)
		}
		l.mu.Unlock()
		h.ServeHTTP(w, r)
	})
}

func (l *requestLog) reset() (all int, reads []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	all, reads = l.all, l.reads
	l.all, l.reads = 0, nil
	return all, reads
}

// symptomRows is run_symptoms, every column.
func symptomRows(t *testing.T, dbPath string) string {
	t.Helper()
	return rows(t, openSQL(t, dbPath), `SELECT * FROM run_symptoms ORDER BY job, build_id, symptom_id`)
}

func runOK(t *testing.T, args ...string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := run(t.Context(), args, &stdout, &stderr); err != nil {
		t.Fatalf("prowcrawl %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// TestReclassifyFromCache crawls the sample through the emulator, then
// classifies it again with a new rules file from the cache: the same
// run_symptoms as backfill --refetch --rules of the same runs, and not
// one request to the bucket. A damaged cache entry is left out, listed,
// and read again from the bucket with --fetch, alone.
func TestReclassifyFromCache(t *testing.T) {
	const bucket = "test-platform-results-public"
	var log requestLog
	emulate(t, bucket, sampleBucket, log.wrap)
	dir := t.TempDir()
	rules := filepath.Join(dir, "my-rules.yaml")
	if err := os.WriteFile(rules, []byte(userRules), 0o644); err != nil {
		t.Fatal(err)
	}
	viaCache, viaBucket := filepath.Join(dir, "a", "prowcrawl.db"), filepath.Join(dir, "b", "prowcrawl.db")
	os.MkdirAll(filepath.Dir(viaCache), 0o755)
	os.MkdirAll(filepath.Dir(viaBucket), 0o755)
	common := withShortJob("--bucket", "gs://"+bucket, "--since", "2019-01-01", "--presubmits", "--now", "2026-12-01")
	runOK(t, append([]string{"crawl", "--db", viaCache}, common...)...)
	// The second database is the same crawl's: a copy of the file, without
	// the cache.
	copyDB(t, viaCache, viaBucket)
	if _, reads := log.reset(); len(reads) == 0 {
		t.Fatal("the crawls downloaded nothing: the request log is broken")
	}
	before := symptomRows(t, viaCache)

	out := runOK(t, "reclassify", "--db", viaCache, "--rules", rules, "--now", "2026-12-01")
	if all, reads := log.reset(); all != 0 {
		t.Fatalf("reclassify made %d requests to the bucket (%d downloads: %q)", all, len(reads), reads)
	}
	if !strings.Contains(out, "0 not in the cache") {
		t.Errorf("reclassify summary %q", out)
	}
	runOK(t, append([]string{"backfill", "--refetch", "--rules", rules, "--db", viaBucket, "--cache", ""}, common...)...)
	if _, reads := log.reset(); len(reads) == 0 {
		t.Fatal("backfill --refetch downloaded nothing")
	}
	got, want := symptomRows(t, viaCache), symptomRows(t, viaBucket)
	if got != want {
		t.Fatalf("run_symptoms after reclassify and after backfill --refetch differ: %s", firstDiff(want, got))
	}
	if got == before || !strings.Contains(got, "api-port-refused") {
		t.Fatal("the new rule found nothing: the comparison proves little")
	}
	if n := countRows(t, viaCache, `SELECT count(*) FROM run_symptoms WHERE rule_hash IS NULL OR length(rule_hash) <> 16`); n != 0 {
		t.Errorf("%d run_symptoms rows without a rule hash", n)
	}

	// Damage one run's cache file: it is not trusted, but listed.
	cc, err := cache.Open(defaultCacheDir(viaCache), 0)
	if err != nil {
		t.Fatal(err)
	}
	var victim cache.Entry
	for e, err := range cc.Runs() {
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(e.Key.Path, "4.14-upgrade-from-stable-4.13") && (victim.Key.Path == "" || e.Key.Path < victim.Key.Path) {
			victim = e
		}
	}
	file := filepath.Join(cc.Dir(), "runs", victim.Key.Bucket, filepath.FromSlash(victim.Key.Path)+".run")
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/3] ^= 0x10
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	// A run left unclassified is a failure a cron sees: exit 1, one
	// sentence, the summary and the run's link printed all the same.
	var stdout, stderr bytes.Buffer
	err = run(t.Context(), []string{"reclassify", "--db", viaCache, "--rules", rules, "--now", "2026-12-01"}, &stdout, &stderr)
	if code := exitCode(err, &stderr); code != 1 || !regexp.MustCompile(`reclassify: 1 of \d+ runs not classified again`).MatchString(stderr.String()) {
		t.Errorf("reclassify with a damaged entry: exit %d, %q; want 1 and how many runs it left", code, stderr.String())
	}
	out = stdout.String()
	if all, _ := log.reset(); all != 0 {
		t.Fatalf("reclassify with a damaged entry made %d requests", all)
	}
	if !strings.Contains(out, "1 not in the cache") || !strings.Contains(out, victim.Key.Path) {
		t.Errorf("the damaged run is not listed:\n%s", out)
	}
	if got := symptomRows(t, viaCache); got != want {
		t.Fatalf("a damaged entry changed run_symptoms: %s", firstDiff(want, got))
	}
	out = runOK(t, "reclassify", "--db", viaCache, "--rules", rules, "--fetch", "--now", "2026-12-01")
	if !strings.Contains(out, "reclassify --fetch: ") || !strings.Contains(out, "1 updated") {
		t.Errorf("--fetch summary:\n%s", out)
	}
	_, reads := log.reset()
	if len(reads) == 0 {
		t.Fatal("--fetch read nothing from the bucket")
	}
	for _, r := range reads {
		if !strings.Contains(r, victim.Key.Path) {
			t.Errorf("--fetch read %s, which is not the damaged run's", r)
		}
	}
	run, err := cc.Open(victim.Key)
	if err != nil {
		t.Fatalf("the refetched run is not in the cache again: %v", err)
	}
	if err := run.Verify(); err != nil {
		t.Fatal(err)
	}
	run.Close()
	if got := symptomRows(t, viaCache); got != want {
		t.Fatalf("after --fetch: %s", firstDiff(want, got))
	}
	status := runOK(t, "status", "--db", viaCache)
	span := "runs started 2020-01-02 to 2026-11-28"
	if shortJob() != "" {
		span = "runs started 2026-" // the one job's runs are of this year's November
	}
	if !strings.Contains(status, fmt.Sprintf("cache %s: %d runs", cc.Dir(), cachedRuns(t, cc.Dir()))) || !strings.Contains(status, span) {
		t.Errorf("status shows no cache, or the wrong one:\n%s", status)
	}
}

// TestSearchCommand: search reads the cache only, and its JSON lists every
// matching run with its lines.
func TestSearchCommand(t *testing.T) {
	const bucket = "test-platform-results-public"
	var log requestLog
	emulate(t, bucket, sampleBucket, log.wrap)
	dbPath := filepath.Join(t.TempDir(), "prowcrawl.db")
	runOK(t, withShortJob("crawl", "--db", dbPath, "--bucket", "gs://"+bucket, "--since", "2019-01-01", "--presubmits")...)
	log.reset()
	out := runOK(t, "search", "--db", dbPath, "--format", "json", "--files", "**/openshift-e2e-test/build-log.txt", `dial tcp [0-9.]+:6443: connect: connection refused`)
	if all, _ := log.reset(); all != 0 {
		t.Fatalf("search made %d requests to the bucket", all)
	}
	var res struct {
		Runs []struct {
			Job     string `json:"job"`
			BuildID int64  `json:"build_id,string"`
			URL     string `json:"url"`
			Result  string `json:"result"`
			Lines   []struct {
				File string `json:"file"`
				Line int    `json:"line"`
				Text string `json:"text"`
			} `json:"lines"`
		} `json:"runs"`
		Searched int `json:"searched"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// The runs whose step log holds the line, by plain search of the
	// bucket's files (of the upgrade jobs a crawl reads by default, and
	// of the presubmits, which --presubmits adds).
	want := map[string]bool{}
	var logs []string
	for _, pattern := range []string{
		"logs/*upgrade*/*/artifacts/*/openshift-e2e-test/build-log.txt",
		"pr-logs/pull/*/*upgrade*/*/artifacts/*/openshift-e2e-test/build-log.txt",
		"pr-logs/pull/*/*/*upgrade*/*/artifacts/*/openshift-e2e-test/build-log.txt",
	} {
		found, _ := filepath.Glob(filepath.Join(sampleBucket, filepath.FromSlash(pattern)))
		logs = append(logs, found...)
	}
	for _, l := range logs {
		if !strings.Contains(l, shortJob()) {
			continue // not crawled
		}
		if b, _ := os.ReadFile(l); bytes.Contains(b, []byte(":6443: connect: connection refused")) {
			rel, _ := filepath.Rel(sampleBucket, l)
			run, _, _ := strings.Cut(filepath.ToSlash(rel), "/artifacts/")
			want[run] = true
		}
	}
	// Every run in the cache is searched.
	cached := cachedRuns(t, defaultCacheDir(dbPath))
	if len(want) == 0 || len(res.Runs) != len(want) || res.Searched != cached {
		t.Fatalf("%d runs match of %d searched, want %d of %d", len(res.Runs), res.Searched, len(want), cached)
	}
	for _, r := range res.Runs {
		path := strings.TrimPrefix(r.URL, "https://prow.ci.openshift.org/view/gs/"+bucket+"/")
		if !want[path] || r.Job == "" || r.BuildID == 0 || r.Result == "" || len(r.Lines) == 0 {
			t.Errorf("run %+v", r)
			continue
		}
		for _, l := range r.Lines {
			if !strings.HasPrefix(l.File, path+"/artifacts/") || l.Line < 1 || !strings.Contains(l.Text, ":6443: connect: connection refused") {
				t.Errorf("line %+v", l)
			}
		}
	}
}

// TestCacheUsageErrors: mistakes with the cache's commands are one
// sentence and exit status 2.
func TestCacheUsageErrors(t *testing.T) {
	dir := t.TempDir()
	dbPath := filepath.Join(dir, "prowcrawl.db")
	runOK(t, "crawl", "--bucket", sampleBucket, "--db", dbPath, "--since", "2026-11-20", "--cache", "")
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"search", "--db", dbPath}, "search takes one regular expression"},
		{[]string{"search", "--db", dbPath, "("}, "not a valid regular expression"},
		{[]string{"search", "--db", dbPath, "x"}, "no artifact cache at " + filepath.Join(dir, "prowcrawl-cache")},
		{[]string{"search", "--db", dbPath, "--cache", "", "x"}, "give --cache DIR"},
		{[]string{"search", "--db", dbPath, "--files", "/abs", "x"}, "--files"},
		{[]string{"search", "--db", dbPath, "--format", "xml", "x"}, "--format"},
		{[]string{"reclassify", "--db", dbPath}, "no artifact cache at"},
		{[]string{"reclassify", "--db", dbPath, "--job", "("}, "not a valid regular expression"},
		{[]string{"crawl", "--db", dbPath, "--cache-size", "lots"}, "--cache-size"},
		{[]string{"crawl", "--db", dbPath, "--cache-size", "10KiB"}, "at least 1MiB"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(t.Context(), tc.args, &stdout, &stderr)
			if code := exitCode(err, &stderr); code != 2 {
				t.Fatalf("exit %d, want 2 (err %v)", code, err)
			}
			if got := strings.TrimSpace(stderr.String()); !strings.Contains(got, tc.want) || strings.Count(got, "\n") > 0 {
				t.Errorf("stderr %q, want one sentence containing %q", got, tc.want)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "1048576": 1 << 20, "10GiB": 10 << 30, "20GB": 20e9, "1.5 gib": 3 << 29, "500MiB": 500 << 20, "2m": 2e6} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"x", "-1GiB", "1PB", "10KiB", "1e9"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) accepted", in)
		}
	}
}

// cachedRuns counts the runs the cache in dir holds.
// copyDB copies the closed database at from (and its WAL, if any) to to.
func copyDB(t *testing.T, from, to string) {
	t.Helper()
	for _, suffix := range []string{"", "-wal"} {
		b, err := os.ReadFile(from + suffix)
		if suffix != "" && errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to+suffix, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func cachedRuns(t *testing.T, dir string) int {
	t.Helper()
	cc, err := cache.Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, err := range cc.Runs() {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}
