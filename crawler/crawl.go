package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/sourcegraph/conc"
	"github.com/sourcegraph/conc/pool"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
)

// Config says what a crawl reads.
type Config struct {
	// Jobs selects job names: a job is crawled when any expression matches.
	Jobs []*regexp.Regexp
	// Since and Until bound runs by start time. A zero Since makes the crawl
	// incremental: each job continues where its last crawl stopped, and a
	// job crawled for the first time looks back Lookback.
	Since, Until time.Time
	// Lookback is how far a job's first incremental crawl looks back.
	Lookback time.Duration
	// Refetch reads runs in range again even when they are stored complete.
	Refetch bool
	// GiveUpAfter is how many crawls in a row may fail to read a run whole
	// before the crawler stops reading it again (0 means
	// DefaultGiveUpAfter). The crawl that gives up counts it among its
	// errors; later crawls leave it alone, unless RetryGivenUp.
	GiveUpAfter int
	// RetryGivenUp reads the runs given up on again.
	RetryGivenUp bool
	// Rules classifies each run's failures by symptom; nil skips it.
	Rules *classify.Engine
	// Cache, unless nil, keeps every object a run's reading downloads, so
	// that reclassify and search read it again without the bucket.
	Cache *cache.Cache
	// MaxObjectBytes caps what is read of one log (after decompression);
	// a longer one is matched on its first part and recorded.
	MaxObjectBytes int64
	// MaxTests caps the tests kept of one run (see artifact.Options);
	// zero means prow.MaxRunTests.
	MaxTests int
	// Presubmits also crawls pr-logs/.
	Presubmits bool
	// Shard and Shards split a crawl by job over many crawlers: with Shards
	// above 1, only jobs whose ShardOf is Shard are crawled.
	Shard, Shards int
	// Concurrency bounds the requests in flight (listings and objects
	// open); runs start as it has room for them (see admit).
	Concurrency int
	// RunTimeout bounds the time spent on one run; a run that exceeds it is
	// recorded as a fetch error and read again next time.
	RunTimeout time.Duration
	// Command names the crawl in the crawl log ("crawl" or "backfill").
	Command string
	// Logger receives progress and per-run problems.
	Logger *slog.Logger
	// Progress, when set, is told how far the crawl is.
	Progress Progress
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Progress hears how far a crawl is: the jobs to list, each job listed
// with its runs to read, the end of the listing (the total of runs is then
// final), the runs stored, and every request in flight, so that it can say
// what a crawl that does not move waits for.
type Progress interface {
	Start()
	Jobs(n int)
	JobListed(runs int)
	ListingDone()
	Add(runs int)
	// Wait records a request; the returned function ends it.
	Wait(what string) (end func())
	// Finish ends it; err says why the crawl stopped early, nil when it
	// did not.
	Finish(err error)
}

// watched tells a Progress of every listing and opening in flight.
type watched struct {
	prowcrawl.Source
	p Progress
}

func (w watched) List(ctx context.Context, q prowcrawl.Query) ([]prowcrawl.Entry, error) {
	end := w.p.Wait("the listing of " + q.Prefix)
	defer end()
	return w.Source.List(ctx, q)
}

func (w watched) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	end := w.p.Wait(name)
	defer end()
	return w.Source.Open(ctx, name)
}

// DefaultGiveUpAfter is Config.GiveUpAfter's default.
const DefaultGiveUpAfter = 3

// Summary is what a crawl did.
type Summary struct {
	Jobs     int           // jobs that matched
	Listed   int           // jobs listed, matched or not (--job, a shard)
	New      int           // runs stored for the first time
	Updated  int           // runs stored again (pending before, refetched, or failed before)
	Pending  int           // runs stored as still running
	Errors   int           // runs stored with fetch_status error or partial
	GivenUp  int           // of those, runs this crawl gave up on (not read again)
	Problems int           // runs read whole, with an artifact malformed or too large (see run_errors)
	Skipped  int           // runs read but outside --since/--until
	Unlisted int           // jobs whose builds could not be listed (listed again next time)
	Objects  int64         // objects read
	Bytes    int64         // bytes read
	Duration time.Duration // wall time
}

// ErrRunsFailed is returned (wrapped) when the crawl finished but some runs
// could not be read; they are recorded and read again next time.
var ErrRunsFailed = errors.New("some runs could not be fetched")

// Crawler crawls one source into one database.
type Crawler struct {
	src prowcrawl.Source
	lim *limited
	db  *db.DB
	cfg Config
	rd  *reader
	log *slog.Logger
	// ahead bounds the bytes held: read ahead, and read but not yet
	// stored (see budget).
	ahead *budget
	// listed counts the jobs listed, matched or not.
	listed atomic.Int64
}

// New returns a crawler; zero fields of cfg take their defaults.
func New(src prowcrawl.Source, store *db.DB, cfg Config) *Crawler {
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = 16
	}
	if cfg.Lookback <= 0 {
		cfg.Lookback = 14 * 24 * time.Hour
	}
	if cfg.RunTimeout <= 0 {
		cfg.RunTimeout = 10 * time.Minute
	}
	if cfg.MaxObjectBytes <= 0 {
		cfg.MaxObjectBytes = 1 << 30
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Command == "" {
		cfg.Command = "crawl"
	}
	if cfg.GiveUpAfter <= 0 {
		cfg.GiveUpAfter = DefaultGiveUpAfter
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Progress != nil {
		src = watched{Source: src, p: cfg.Progress}
	}
	lim := limit(src, cfg.Concurrency)
	return &Crawler{src: lim, lim: lim, db: store, cfg: cfg, rd: &reader{src: lim}, log: log, ahead: newAheadBudget(cfg.Concurrency)}
}

// Run crawls: it finds the runs to read, reads them as the crawl's bounds
// have room for them (see admit) and stores each with a single writer. Cancelling ctx stops the
// crawl at a run boundary: runs already read are stored, none is half
// stored. The returned error wraps ErrRunsFailed when some runs could not be
// read.
func (c *Crawler) Run(ctx context.Context) (Summary, error) {
	start := c.cfg.Now()
	var sum Summary
	// The crawl log and the final writes must survive a cancelled ctx, so
	// that an interrupted crawl still records what it did.
	wctx := context.WithoutCancel(ctx)
	crawl := db.Crawl{StartedAt: start, Command: c.cfg.Command, Bucket: c.src.Bucket(), Status: "running"}
	id, err := c.db.StartCrawl(wctx, crawl)
	if err != nil {
		return sum, err
	}
	crawl.ID = id
	if c.cfg.Rules != nil {
		if err := c.db.SyncSymptoms(wctx, symptomsOf(c.cfg.Rules)); err != nil {
			return sum, err
		}
	}

	err = c.fetchAll(ctx, &sum)
	sum.Objects = c.rd.total.objects.Load()
	sum.Bytes = c.rd.total.bytes.Load()
	sum.Duration = c.cfg.Now().Sub(start)

	crawl.FinishedAt = c.cfg.Now()
	crawl.Jobs, crawl.NewRuns, crawl.UpdatedRuns = sum.Jobs, sum.New, sum.Updated
	crawl.Pending, crawl.Errors = sum.Pending, sum.Errors
	crawl.ObjectsRead, crawl.BytesRead = int(sum.Objects), sum.Bytes
	switch {
	case ctx.Err() != nil:
		crawl.Status = "interrupted"
	case err != nil:
		crawl.Status = "failed"
	case sum.Errors > 0 || sum.Unlisted > 0:
		crawl.Status = "partial"
	default:
		crawl.Status = "ok"
	}
	if ferr := c.db.FinishCrawl(wctx, crawl); ferr != nil && err == nil {
		err = ferr
	}
	if err == nil && ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	switch {
	case err != nil:
	case sum.Errors > 0 || sum.Unlisted > 0:
		err = fmt.Errorf("%w: %s", ErrRunsFailed, c.failures(sum))
	}
	return sum, err
}

// failures says what a crawl could not read and what becomes of it.
func (c *Crawler) failures(sum Summary) string {
	var parts []string
	if again := sum.Errors - sum.GivenUp; again > 0 {
		parts = append(parts, fmt.Sprintf("%d runs recorded with errors, to be read again next time", again))
	}
	if sum.GivenUp > 0 {
		parts = append(parts, fmt.Sprintf("%d runs given up after %d crawls that could not read them (prowcrawl status lists them; %s --retry-given-up reads them again)",
			sum.GivenUp, c.cfg.GiveUpAfter, c.cfg.Command))
	}
	if sum.Unlisted > 0 {
		parts = append(parts, fmt.Sprintf("%d jobs could not be listed, to be listed again next time", sum.Unlisted))
	}
	return strings.Join(parts, "; ")
}

// fetchAll discovers the runs to read, reads them as their jobs are listed
// and the bounds have room for them, and stores the results through one
// writer in batched transactions.
func (c *Crawler) fetchAll(ctx context.Context, sum *Summary) error {
	return c.readPlans(ctx, sum, func(ctx context.Context, plans chan<- *jobPlan) error {
		planned, unlisted, err := c.discover(ctx, plans)
		sum.Jobs, sum.Unlisted, sum.Listed = planned+unlisted, unlisted, int(c.listed.Load())
		return err
	})
}

// readPlans reads the runs of the plans find sends (and then closes), as
// the bounds have room for them, and stores the results through one writer
// in batched transactions. An error of find stops the reading.
func (c *Crawler) readPlans(ctx context.Context, sum *Summary, find func(context.Context, chan<- *jobPlan) error) (err error) {
	if c.cfg.Progress != nil {
		c.cfg.Progress.Start()
		defer func() {
			stop := err
			if stop == nil {
				stop = ctx.Err()
			}
			c.cfg.Progress.Finish(stop)
		}()
	}
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The writer hears of a job's plan before any of its runs.
	msgs := make(chan result, c.cfg.Concurrency)
	plans := make(chan *jobPlan)
	var derr error
	var wg conc.WaitGroup
	wg.Go(func() {
		defer close(plans)
		if derr = find(fctx, plans); derr != nil {
			cancel()
		}
	})
	wg.Go(func() {
		defer close(msgs)
		// As many runs as admit lets start (see there).
		p := pool.New().WithContext(fctx)
		var jobs, runs int
		for plan := range plans {
			jobs++
			runs += len(plan.tasks)
			if c.cfg.Progress != nil {
				c.cfg.Progress.JobListed(len(plan.tasks))
			}
			select {
			case msgs <- result{plan: plan}:
			case <-fctx.Done():
				continue // drain plans so that discovery ends
			}
			for _, t := range plan.tasks {
				if c.admit(fctx) != nil {
					break
				}
				c.lim.reserve()
				// A run being read is charged runCharge from its start,
				// and its record once read: the budget bounds the runs
				// started and not yet stored, however long their
				// parsing takes.
				c.ahead.take(runCharge)
				p.Go(func(ctx context.Context) error {
					r := c.fetch(ctx, t)
					if ctx.Err() != nil {
						// Interrupted mid-run: store nothing of it.
						c.ahead.Release(runCharge)
						return nil
					}
					r.held = recordBytes(r.rec)
					c.ahead.take(r.held)
					c.ahead.Release(runCharge)
					select {
					case msgs <- r:
					case <-ctx.Done():
						c.ahead.Release(r.held)
					}
					return nil
				})
			}
		}
		if c.cfg.Progress != nil {
			c.cfg.Progress.ListingDone()
		}
		c.log.Info("runs to read", "jobs", jobs, "runs", runs)
		select {
		case msgs <- result{listed: true}:
		case <-fctx.Done():
		}
		_ = p.Wait() // tasks never return errors: failures are recorded in results
	})
	wctx := context.WithoutCancel(ctx)
	err = c.write(wctx, msgs, sum)
	if err != nil {
		cancel()
		for range msgs { // let the workers finish
		}
	}
	wg.Wait()
	if err == nil && derr != nil && ctx.Err() == nil {
		err = derr
	}
	return err
}

// write is the single writer: it batches results into transactions, each
// carrying the runs and the cursors they move. A batch is stored when it is
// full, or when no result is waiting and it holds a few runs or its oldest
// has waited 100 ms. Once every run to read is known and no more are left
// to read than the concurrency, a batch is stored whenever no result is
// waiting, so that what is left to store when the last run is read is
// that run and the few read while the one before was stored, not a
// batch's worth. (Before that, small batches would only cost commits.)
func (c *Crawler) write(ctx context.Context, msgs <-chan result, sum *Summary) error {
	const maxBatch = 64
	const minBatch = 8                     // stored when idle with this many
	const maxWait = 100 * time.Millisecond // or with one this old
	var recs []prowcrawl.Record
	var n int
	var held int64 // of the budget, by the runs in recs
	toRead := 0    // runs listed and not yet read
	// What the batch's runs count, added to sum once they are committed:
	// a batch rolled back (a full disk) stored none of them.
	var batch Summary
	cursors := make(map[string]*cursorTracker)
	moved := make(map[string]prowcrawl.Cursor)
	flush := func() error {
		if len(recs) == 0 && len(moved) == 0 {
			return nil
		}
		cs := make([]prowcrawl.Cursor, 0, len(moved))
		for _, cur := range moved {
			cs = append(cs, cur)
		}
		sort.Slice(cs, func(i, j int) bool { return cs[i].Job < cs[j].Job })
		if err := c.db.Write(ctx, recs, cs); err != nil {
			return err
		}
		c.ahead.Release(held)
		held = 0
		sum.New += batch.New
		sum.Updated += batch.Updated
		sum.Pending += batch.Pending
		sum.Errors += batch.Errors
		sum.GivenUp += batch.GivenUp
		sum.Problems += batch.Problems
		batch = Summary{}
		if c.cfg.Progress != nil && n > 0 {
			c.cfg.Progress.Add(n)
		}
		recs, n = recs[:0], 0
		clear(moved)
		return nil
	}
	handle := func(r result) error {
		if p := r.plan; p != nil {
			// A job listed: its cursor may move at once (when it needs
			// no reads, or not before its first run to read). Runs read
			// again by their ids (Refetch) move none.
			if p.cursor != nil {
				cursors[p.job] = p.cursor
				if cur, ok := p.cursor.advance(); ok {
					moved[p.job] = cur
				}
			}
			toRead += len(p.tasks)
			return nil
		}
		toRead--
		n++
		held += r.held
		c.attempt(r)
		if r.rec == nil {
			sum.Skipped++ // nothing to store
		} else {
			c.account(r, &batch)
		}
		if r.rec != nil {
			recs = append(recs, *r.rec)
		}
		if tr := cursors[r.task.job]; tr != nil && r.task.listed {
			tr.done(r.task.id, r.started)
			if cur, ok := tr.advance(); ok {
				moved[r.task.job] = cur
			}
		}
		if len(recs) >= maxBatch {
			return flush()
		}
		return nil
	}
	timer := time.NewTimer(maxWait)
	timer.Stop()
	var since time.Time // when the oldest result not yet stored arrived
	listed := false     // every run to read is known
	for {
		var r result
		var ok bool
		select {
		case r, ok = <-msgs:
		default:
			// Nothing waiting: store what was read when it is a batch's
			// worth or has waited long enough, so that batches grow while
			// runs arrive faster than they are stored, and little is left
			// to store once the last run is read.
			if n >= minBatch || (n > 0 && ((listed && toRead <= c.cfg.Concurrency) || time.Since(since) >= maxWait)) || (n == 0 && len(moved) > 0) {
				if err := flush(); err != nil {
					return err
				}
			}
			if n == 0 {
				r, ok = <-msgs
				break
			}
			timer.Reset(maxWait - time.Since(since))
			select {
			case r, ok = <-msgs:
				timer.Stop()
			case <-timer.C:
				if err := flush(); err != nil {
					return err
				}
				continue
			}
		}
		if !ok {
			return flush()
		}
		if r.listed {
			listed = true
			continue
		}
		if n == 0 && r.plan == nil {
			since = time.Now()
		}
		if err := handle(r); err != nil {
			return err
		}
	}
}

// attempt counts the crawls in a row that could not read a run whole, and
// gives up on it after GiveUpAfter of them.
func (c *Crawler) attempt(r result) {
	if r.rec == nil {
		return
	}
	run := &r.rec.Run
	if run.FetchStatus == prowcrawl.FetchComplete {
		run.FetchAttempts, run.GivenUpAt = 0, time.Time{}
		return
	}
	run.FetchAttempts = r.task.attempts + 1
	if run.FetchAttempts >= c.cfg.GiveUpAfter {
		run.GivenUpAt = c.cfg.Now().UTC()
	}
}

func (c *Crawler) account(r result, sum *Summary) {
	run := r.rec.Run
	if r.task.known {
		sum.Updated++
	} else {
		sum.New++
	}
	if run.Result == prowcrawl.ResultPending {
		sum.Pending++
	}
	switch {
	case run.FetchStatus != prowcrawl.FetchComplete:
		sum.Errors++
		if !run.GivenUpAt.IsZero() {
			sum.GivenUp++
		}
		c.log.Warn("run not fully read", "job", run.Job, "build", strconv.FormatInt(run.BuildID, 10), "status", run.FetchStatus, "error", run.FetchError,
			"attempts", run.FetchAttempts, "given_up", !run.GivenUpAt.IsZero())
	case len(r.rec.Errors) > 0:
		sum.Problems++
		c.log.Info("run read with problems", "job", run.Job, "build", strconv.FormatInt(run.BuildID, 10), "object", r.rec.Errors[0].Object, "error", r.rec.Errors[0].Message)
	}
}

// symptomsOf lists the symptoms an engine's rules detect.
func symptomsOf(e *classify.Engine) []db.Symptom {
	var out []db.Symptom
	for _, r := range e.Rules() {
		out = append(out, db.Symptom{ID: r.ID, Title: r.Title, Description: r.Description, Bug: r.Bug, Source: r.Source,
			RuleHash: r.Hash(), Reach: r.Reach()})
	}
	return out
}
