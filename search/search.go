package search

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/stats"
)

// Options says what to search for.
type Options struct {
	// Pattern is the regular expression (RE2 syntax) a line must match.
	Pattern string
	// Files, unless nil, selects the cached files searched by their path
	// below the run's directory; nil searches every cached file.
	Files *regexp.Regexp
	// MaxLines bounds the lines kept per run (all are counted); 0 means 10.
	MaxLines int
	// MaxExcerpt bounds the bytes kept of a line, around its match; 0
	// means 300.
	MaxExcerpt int
	// Workers bounds the runs searched at once; 0 means every core.
	Workers int
	// MaxTime bounds the search: the runs not searched by then are
	// counted in Result.NotSearched, and the search ends with what it
	// found. 0 means no bound.
	MaxTime time.Duration
}

// Line is a matching line of a cached file.
type Line struct {
	// File is the object's path in the bucket (the run's directory and
	// the file's name below it), as run_symptoms.file records evidence.
	File string
	Line int
	Text string
}

// Run is a run whose cached files have matching lines.
type Run struct {
	db.StoredRun
	// Matches counts the matching lines; Lines holds the first of them.
	Matches int
	Lines   []Line
}

// Group is the runs of one job on one edge: how many were searched, how
// many matched, in all and among the failed and the passed ones.
type Group struct {
	Job string
	// Edge is the edge's key (prowcrawl.Edge.String), "" when unknown; for a
	// presubmit job, "presubmit": its runs test a pull request's code and
	// form a scope of their own, never an edge's.
	Edge string
	// Runs counts finished runs (success, failure, error) searched whose
	// upgrade began (or is not known not to have), as every rate counts
	// them; Failed those that failed (failure, error), Passed those that
	// succeeded. Aborted runs are searched and listed but not counted.
	Runs, Failed, Passed int
	// LeftOut counts the finished runs searched that are counted apart
	// (their upgrade never began, or they failed for CI's infrastructure),
	// listed when they match, not counted; Infra those of them that are
	// infrastructure failures. An aggregated job's runs are listed and in
	// no count.
	LeftOut, Infra int
	// Hits, FailedHits and PassedHits count those of them that matched.
	Hits, FailedHits, PassedHits int
	// P is the one-sided Fisher exact test's p-value of matching runs
	// failing more often than the others: of the failed runs matching
	// more often than the passed runs.
	P float64
}

// Share of the group's runs that matched, 0 when there are none.
func (g Group) Share() float64 { return share(g.Hits, g.Runs) }

// FailedShare of the failed runs that matched: ci-search's "% of failures
// match".
func (g Group) FailedShare() float64 { return share(g.FailedHits, g.Failed) }

// PassedShare of the passed runs that matched.
func (g Group) PassedShare() float64 { return share(g.PassedHits, g.Passed) }

func share(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// Result is what a search found.
type Result struct {
	Pattern string
	// Runs are the matching runs, in job and build order.
	Runs []Run
	// Groups are the searched runs per job and edge, in job and edge order.
	Groups []Group
	// Searched counts the runs read from the cache; NotCached those the
	// cache does not hold (or holds damaged), which are not counted.
	Searched  int
	NotCached []db.StoredRun
	// Files and Bytes count the cached files searched and their content.
	Files    int
	Bytes    int64
	Duration time.Duration
	// NotSearched counts the runs left when Options.MaxTime ran out.
	NotSearched int
}

// errTimeUp is the cause of a search's end at Options.MaxTime.
var errTimeUp = errors.New("the search's time is up")

// probeText is a sample of the logs a search reads (klog, monitor and
// ginkgo lines, addresses, times), for Rate.
var probeText = []byte(strings.Repeat(`I1120 10:41:07.518273       1 reflector.go:359] Listing and watching *v1.Pod from k8s.io/client-go/informers/factory.go:160
Nov 20 10:41:08.001 E ns/openshift-etcd pod/etcd-ip-10-0-61-114.ec2.internal node/ip-10-0-61-114.ec2.internal container/etcd reason/Unhealthy Readiness probe failed: Get "https://10.0.61.114:9980/readyz": dial tcp 10.0.61.114:9980: connect: connection refused
2026-11-20T10:41:09.123456Z [sig-network] pods should be reachable across nodes [Suite:openshift/conformance/parallel] 12.3s
`, 200))

// Rate is how many bytes of log text a second re matches through, on a
// sample of realistic lines, in about 50 ms: a plain pattern goes through
// hundreds of MiB a second, a counted repeat of a large class
// ([\x{0}-\x{10FFFF}]{1000}) under one. The sample is read in slices that
// double, so that a pattern that slow is timed on a few hundred bytes, not
// on the whole sample, which would take it seconds.
func Rate(re *regexp.Regexp) float64 {
	start := time.Now()
	done := 0
	for size := 256; ; size = min(2*size, len(probeText)) {
		chunk := probeText[:min(size, len(probeText))]
		re.FindAllIndex(chunk, -1)
		done += len(chunk)
		if el := time.Since(start); el >= 50*time.Millisecond {
			return float64(done) / el.Seconds()
		}
	}
}

// Compile checks a pattern as Search compiles it.
func Compile(pattern string) (*regexp.Regexp, error) {
	// Checked as typed first, so that an error quotes the user's pattern,
	// not the (?m) Search puts before it.
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, err
	}
	return regexp.Compile(`(?m)` + pattern)
}

// Search reads the given runs' cached files and matches their lines.
func Search(ctx context.Context, c *cache.Cache, runs []db.StoredRun, opts Options) (Result, error) {
	start := time.Now()
	re, err := Compile(opts.Pattern)
	if err != nil {
		return Result{}, fmt.Errorf("search %q: %w", opts.Pattern, err)
	}
	opts.MaxLines = cmp.Or(opts.MaxLines, 10)
	opts.MaxExcerpt = cmp.Or(opts.MaxExcerpt, 300)
	opts.Workers = cmp.Or(opts.Workers, runtime.GOMAXPROCS(0))
	type outcome struct {
		run      Run
		cached   bool
		timedOut bool
	}
	out := make([]outcome, len(runs))
	var files, bytes atomic.Int64
	sctx := ctx
	if opts.MaxTime > 0 {
		var cancel context.CancelFunc
		sctx, cancel = context.WithTimeoutCause(ctx, opts.MaxTime, errTimeUp)
		defer cancel()
	}
	p := pool.New().WithContext(sctx).WithCancelOnError().WithMaxGoroutines(opts.Workers)
	for i := range runs {
		p.Go(func(ctx context.Context) error {
			if errors.Is(context.Cause(ctx), errTimeUp) {
				out[i] = outcome{run: Run{StoredRun: runs[i]}, timedOut: true}
				return nil
			}
			r, cached, nf, nb, err := searchRun(ctx, c, runs[i], re, opts)
			if err != nil && errors.Is(context.Cause(ctx), errTimeUp) {
				out[i] = outcome{run: Run{StoredRun: runs[i]}, timedOut: true}
				return nil
			}
			files.Add(nf)
			bytes.Add(nb)
			out[i] = outcome{run: r, cached: cached}
			return err
		})
	}
	if err := p.Wait(); err != nil {
		return Result{}, err
	}
	res := Result{Pattern: opts.Pattern, Files: int(files.Load()), Bytes: bytes.Load()}
	groups := map[[2]string]*Group{}
	for _, o := range out {
		if o.timedOut {
			res.NotSearched++
			continue
		}
		if !o.cached {
			res.NotCached = append(res.NotCached, o.run.StoredRun)
			continue
		}
		res.Searched++
		hit := o.run.Matches > 0
		if hit {
			res.Runs = append(res.Runs, o.run)
		}
		r := o.run.StoredRun
		key := [2]string{r.Job, scopeOf(r)}
		g := groups[key]
		if g == nil {
			g = &Group{Job: key[0], Edge: key[1]}
			groups[key] = g
		}
		failed, passed := r.Result == prowcrawl.ResultFailure || r.Result == prowcrawl.ResultError, r.Result == prowcrawl.ResultSuccess
		if !failed && !passed {
			continue
		}
		switch prowcrawl.RunPopulation(r.Facts()) {
		case prowcrawl.Counted:
		case prowcrawl.Infrastructure:
			g.LeftOut++
			g.Infra++
			continue
		case prowcrawl.NotStarted:
			g.LeftOut++
			continue
		default: // an aggregated job's run summarises others: listed, never counted
			continue
		}
		g.Runs++
		g.Hits += b2i(hit)
		if failed {
			g.Failed++
			g.FailedHits += b2i(hit)
		} else {
			g.Passed++
			g.PassedHits += b2i(hit)
		}
	}
	for _, g := range groups {
		g.P, _ = stats.FisherOneSided(g.FailedHits, g.Failed, g.PassedHits, g.Passed)
		res.Groups = append(res.Groups, *g)
	}
	slices.SortFunc(res.Groups, func(a, b Group) int { return cmp.Or(cmp.Compare(a.Job, b.Job), cmp.Compare(a.Edge, b.Edge)) })
	slices.SortFunc(res.Runs, func(a, b Run) int { return cmp.Or(cmp.Compare(a.Job, b.Job), cmp.Compare(a.BuildID, b.BuildID)) })
	res.Duration = time.Since(start)
	return res, ctx.Err()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// searchRun matches the cached files of one run. A run the cache does not
// hold, or holds damaged, is not cached; only a cancelled search is an
// error.
func searchRun(ctx context.Context, c *cache.Cache, sr db.StoredRun, re *regexp.Regexp, opts Options) (r Run, cached bool, files, bytes int64, err error) {
	r = Run{StoredRun: sr}
	cr, err := c.Open(cache.Key{Bucket: sr.Bucket, Path: sr.Path})
	if errors.Is(err, cache.ErrNotCached) {
		return r, false, 0, 0, nil
	}
	if err != nil {
		return r, false, 0, 0, nil // a name the cache cannot hold is not in it
	}
	defer cr.Close()
	run := cr.Artifact()
	for _, f := range run.Files {
		if ctx.Err() != nil {
			return r, true, files, bytes, ctx.Err()
		}
		rc, err := f.Open(ctx)
		if errors.Is(err, cache.ErrNotCached) && !errors.Is(err, cache.ErrDamaged) {
			continue // listed, not read by the crawl
		}
		if err != nil {
			// Damaged: the run's matches cannot be trusted.
			return Run{StoredRun: sr}, false, files, bytes, nil
		}
		if opts.Files != nil && !opts.Files.MatchString(f.Name()) {
			// Not searched, but read: a damaged file makes the whole
			// run's matches untrusted.
			_, err := io.Copy(io.Discard, rc)
			rc.Close()
			if err != nil {
				return Run{StoredRun: sr}, false, files, bytes, nil
			}
			continue
		}
		files++
		bytes += f.Size()
		name := run.Dir + f.Name()
		err = grep(rc, re, func(line int, text []byte, at int) bool {
			r.Matches++
			if len(r.Lines) < opts.MaxLines {
				r.Lines = append(r.Lines, Line{File: name, Line: line, Text: excerpt(text, at, opts.MaxExcerpt)})
			}
			return true
		})
		rc.Close()
		if err != nil {
			if errors.Is(err, cache.ErrDamaged) {
				return Run{StoredRun: sr}, false, files, bytes, nil
			}
			return r, true, files, bytes, err
		}
	}
	return r, true, files, bytes, nil
}

// scopeOf is the Group.Edge of a run.
func scopeOf(r db.StoredRun) string {
	if r.JobType == prowcrawl.TypePresubmit {
		return "presubmit"
	}
	return r.Edge.String()
}
