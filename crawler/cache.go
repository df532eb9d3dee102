package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"runtime"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/artifact"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/prow"
)

// The artifact cache is a source of runs like the bucket and a mirror: a
// crawl tees every object it reads into it (teeRun), and reclassify reads
// a cached run as the same artifact.Run value (cache.Run.Artifact).

// teeRun is run with every file read to its end stored in the cache too,
// and the writer that stores them; run itself and a nil writer without a
// cache. The run's listing is stored with it, so that a reader knows which
// files of the run the cache lacks.
func (c *Crawler) teeRun(dir string, run artifact.Run) (artifact.Run, *cache.Writer) {
	if c.cfg.Cache == nil {
		return run, nil
	}
	w, err := c.cfg.Cache.Create(cache.Key{Bucket: c.src.Bucket(), Path: dir})
	if err != nil {
		c.log.Warn("not caching the run", "run", dir, "err", err)
		return run, nil
	}
	listing := make([]cache.File, len(run.Files))
	files := make([]artifact.File, len(run.Files))
	for i, f := range run.Files {
		listing[i] = cache.File{Name: f.Name(), Size: f.Size()}
		files[i] = teeFile{File: f, w: w}
	}
	w.SetListing(listing)
	out := artifact.Run{Dir: run.Dir, Files: files}
	if run.Ahead != nil {
		out.Ahead = teeAhead{run.Ahead}
	}
	return out, w
}

// keepRun commits what w stored of a run once it was read, finished: a
// running job's artifacts are incomplete, and a run whose metadata could
// not be read is read again anyway. A cache that cannot be written does
// not fail the run; it is logged.
func (c *Crawler) keepRun(w *cache.Writer, res artifact.Result, err error) {
	if w == nil {
		return
	}
	if err != nil || res.Run.Result == "" || res.Run.Result == prowcrawl.ResultPending {
		w.Abort()
		return
	}
	w.SetStarted(res.Run.StartedAt)
	if err := w.Commit(); err != nil {
		c.log.Warn("could not cache the run", "run", w.Key().Path, "err", err)
	}
}

// teeFile is a file whose reads are stored in the cache.
type teeFile struct {
	artifact.File
	w *cache.Writer
}

func (f teeFile) Open(ctx context.Context) (io.ReadCloser, error) {
	rc, err := f.File.Open(ctx)
	if err != nil {
		return nil, err
	}
	return f.w.Tee(f.Name(), rc), nil
}

// teeAhead reads ahead the files a teeFile stands for.
type teeAhead struct{ a artifact.Ahead }

func (t teeAhead) ReadAhead(ctx context.Context, files []artifact.File) func() {
	inner := make([]artifact.File, len(files))
	for i, f := range files {
		if tf, ok := f.(teeFile); ok {
			f = tf.File
		}
		inner[i] = f
	}
	return t.a.ReadAhead(ctx, inner)
}

// ErrIncomplete is returned (wrapped) by ReadCached for a run the cache
// holds without a file its reading needs, or holds damaged: it must be
// read from the bucket again. It matches cache.ErrNotCached.
var ErrIncomplete = fmt.Errorf("the cache lacks files the run's reading needs (%w)", cache.ErrNotCached)

// ReadCached reads the run k from the cache as a crawl reads it from the
// bucket: the same artifact.Read of the same listing. A run the cache does
// not hold whole (a file the reading opens is missing or damaged) is
// ErrIncomplete, and its damaged file is removed so that the next crawl
// stores it anew; no result of it is trusted.
func ReadCached(ctx context.Context, c *cache.Cache, k cache.Key, opts artifact.Options) (artifact.Result, error) {
	cr, err := c.Open(k)
	if errors.Is(err, cache.ErrDamaged) {
		_ = c.Remove(k)
	}
	if err != nil {
		return artifact.Result{}, err
	}
	defer cr.Close()
	if opts.Topology == "" {
		// As a crawl does: the rules that never fire on some topologies
		// (pod-network-cross-node on a single node) need the job's.
		opts.Topology = prow.ParseJobName(path.Base(path.Dir(k.Path))).Topology
	}
	res, err := artifact.Read(ctx, cr.Artifact(), opts)
	missed, damaged := cr.Missed()
	if damaged {
		_ = c.Remove(k)
	}
	if len(missed) > 0 {
		return artifact.Result{}, fmt.Errorf("%s: %s: %w", k, missed[0], ErrIncomplete)
	}
	return res, err
}

// ReclassifyOptions says how stored runs are classified again.
type ReclassifyOptions struct {
	Rules          *classify.Engine
	MaxObjectBytes int64
	// Workers bounds the runs read at once; 0 means every core.
	Workers int
}

// Reclassified is what Reclassify did.
type Reclassified struct {
	Runs     int            // runs asked for
	Cached   int            // classified again from the cache
	Symptoms int            // matches found in them
	Missing  []db.StoredRun // not in the cache, or not whole: not classified
	Failed   []db.StoredRun // in the cache, but its metadata could not be read
	Duration time.Duration
}

// Reclassify classifies the given stored runs again from the cache, with
// the same reading a crawl does, and replaces their run_symptoms, in
// batched transactions. It makes no request to any bucket: a run the cache
// does not hold whole is listed in Missing and left as it was.
func Reclassify(ctx context.Context, store *db.DB, c *cache.Cache, runs []db.StoredRun, opts ReclassifyOptions) (Reclassified, error) {
	start := time.Now()
	sum := Reclassified{Runs: len(runs)}
	if opts.Rules == nil {
		return sum, errors.New("reclassify: no rules")
	}
	if err := store.SyncSymptoms(ctx, symptomsOf(opts.Rules)); err != nil {
		return sum, err
	}
	type outcome struct {
		symptoms []prowcrawl.RunSymptom
		err      error
	}
	out := make([]outcome, len(runs))
	p := pool.New().WithContext(ctx).WithMaxGoroutines(cmp.Or(opts.Workers, runtime.GOMAXPROCS(0)))
	for i, r := range runs {
		p.Go(func(ctx context.Context) error {
			res, err := ReadCached(ctx, c, cache.Key{Bucket: r.Bucket, Path: r.Path}, artifact.Options{Rules: opts.Rules, MaxObjectBytes: opts.MaxObjectBytes})
			out[i] = outcome{symptoms: res.Symptoms, err: err}
			return ctx.Err()
		})
	}
	if err := p.Wait(); err != nil {
		return sum, err
	}
	const batch = 256
	var recs []db.Reclassified
	for i, o := range out {
		r := runs[i]
		switch {
		case errors.Is(o.err, cache.ErrNotCached):
			sum.Missing = append(sum.Missing, r)
			continue
		case o.err != nil:
			sum.Failed = append(sum.Failed, r)
			continue
		}
		sum.Cached++
		sum.Symptoms += len(o.symptoms)
		recs = append(recs, db.Reclassified{Job: r.Job, BuildID: r.BuildID, Symptoms: o.symptoms, Rules: opts.Rules.Versions()})
		if len(recs) == batch {
			if err := store.ReplaceSymptoms(ctx, recs); err != nil {
				return sum, err
			}
			recs = recs[:0]
		}
	}
	if err := store.ReplaceSymptoms(ctx, recs); err != nil {
		return sum, err
	}
	sum.Duration = time.Since(start)
	return sum, nil
}

// Refetch reads the given stored runs again from the crawler's source, as
// backfill --refetch reads them, tees them into the cache, and stores them
// through the crawl's writer, within the crawl's bounds. The runs must be
// in the source's bucket.
func (c *Crawler) Refetch(ctx context.Context, runs []db.StoredRun) (Summary, error) {
	start := c.cfg.Now()
	var sum Summary
	if c.cfg.Rules != nil {
		if err := c.db.SyncSymptoms(ctx, symptomsOf(c.cfg.Rules)); err != nil {
			return sum, err
		}
	}
	tasks := make([]task, 0, len(runs))
	for _, r := range runs {
		tasks = append(tasks, task{job: r.Job, id: r.BuildID, path: r.Path, known: true, presubmit: r.JobType == prowcrawl.TypePresubmit})
	}
	err := c.readPlans(ctx, &sum, func(ctx context.Context, plans chan<- *jobPlan) error {
		select {
		case plans <- &jobPlan{tasks: tasks}:
			return nil
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	})
	if err == nil {
		err = context.Cause(ctx)
	}
	if err != nil {
		return sum, err
	}
	sum.Objects = c.rd.total.objects.Load()
	sum.Bytes = c.rd.total.bytes.Load()
	sum.Duration = c.cfg.Now().Sub(start)
	if sum.Errors > 0 {
		return sum, fmt.Errorf("%w: %d runs recorded with errors, to be read again next time", ErrRunsFailed, sum.Errors)
	}
	return sum, nil
}
