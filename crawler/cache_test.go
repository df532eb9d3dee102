package crawler

import (
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/artifact"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/mirror"
)

// TestCachedRunReadsAsLocal crawls the sample bucket with a cache, then
// reads every finished run twice, from the bucket's directory and from the
// cache: the same metadata, tests, problems and symptoms, evidence order
// and rule versions included.
func TestCachedRunReadsAsLocal(t *testing.T) {
	t.Parallel()
	src, err := mirror.New(sampleDir)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	cc, err := cache.Open(filepath.Join(t.TempDir(), "cache"), 0)
	if err != nil {
		t.Fatal(err)
	}
	d := openDB(t)
	cfg := shortSample(sampleConfig())
	cfg.Cache = cc
	if _, err := New(src, d, cfg).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	runs, err := d.StoredRuns(t.Context(), db.RunFilter{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) < 30 {
		t.Fatalf("%d stored runs", len(runs))
	}
	// Read again from the directory, through a crawler without a cache.
	local := New(src, d, sampleConfig())
	symptoms := 0
	for _, r := range runs {
		fresh := local.fetch(t.Context(), task{job: r.Job, id: r.BuildID, path: r.Path, known: true, presubmit: r.JobType == "presubmit"})
		if fresh.rec == nil {
			t.Fatalf("%s: not read", r.Path)
		}
		got, err := ReadCached(t.Context(), cc, cache.Key{Bucket: r.Bucket, Path: r.Path}, artifact.Options{Rules: builtinRules})
		if err != nil {
			t.Fatalf("%s: %v", r.Path, err)
		}
		want := fresh.rec
		type view struct {
			Started, Finished                     string
			Result, From, To, State, Tag, FromTag string
			Tests                                 []prowcrawl.Test
			Errors                                []prowcrawl.RunError
			Symptoms                              []prowcrawl.RunSymptom
		}
		of := func(rec prowcrawl.Record) view {
			return view{rec.Run.StartedAt.String(), rec.Run.FinishedAt.String(), string(rec.Run.Result), rec.Run.FromVersion, rec.Run.ToVersion,
				rec.Run.UpgradeState, rec.Run.Tag, rec.Run.FromTag, rec.Tests, rec.Errors, rec.Symptoms}
		}
		if g, w := of(got.Record), of(*want); !reflect.DeepEqual(g, w) {
			t.Errorf("%s: from the cache\n%+v\nfrom the directory\n%+v", r.Path, g, w)
		}
		symptoms += len(got.Symptoms)
	}
	if symptoms == 0 {
		t.Fatal("no symptoms in the sample: the comparison proves little")
	}

	// A file a new rule reads that no crawl downloaded: the run is not in
	// the cache whole, and says which file.
	r := runs[0]
	k := cache.Key{Bucket: r.Bucket, Path: r.Path}
	cr, err := cc.Open(k)
	if err != nil {
		t.Fatal(err)
	}
	var notCached string
	for _, f := range cr.Files() {
		if !f.Cached {
			notCached = f.Name
			break
		}
	}
	cr.Close()
	if notCached == "" {
		t.Skip("the run's every file is cached")
	}
	eng := rulesReading(t, notCached)
	if _, err := ReadCached(t.Context(), cc, k, artifact.Options{Rules: eng}); !errors.Is(err, ErrIncomplete) || !errors.Is(err, cache.ErrNotCached) {
		t.Fatalf("a run lacking a file the rules read: %v, want ErrIncomplete", err)
	}
}

// rulesReading is an engine with a rule that reads the file name.
func rulesReading(t *testing.T, name string) *classify.Engine {
	t.Helper()
	e, err := classify.NewEngine([]classify.Rule{{ID: "reads-it", Title: "reads " + name, Files: []string{name},
		Match: []classify.Matcher{{Lines: &classify.LinesMatcher{Any: []string{"never matches this"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return e
}
