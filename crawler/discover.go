package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sourcegraph/conc/pool"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/prow"
)

// idMargin widens the --since/--until bounds when they are checked against
// the time encoded in a build id: a run starts a little after its id is
// made, so only ids well outside the window are dropped unread.
const idMargin = 6 * time.Hour

// jobRef is one job found in the bucket.
type jobRef struct {
	name      string
	presubmit bool
	prefix    string // logs/<job>/ or pr-logs/directory/<job>/
}

// task is one run to read.
type task struct {
	job       string
	presubmit bool
	id        int64
	path      string          // run directory without trailing slash; "" until resolved
	link      prowcrawl.Entry // presubmit link object naming the run directory
	known     bool            // stored before
	listed    bool            // part of this crawl's listing (moves the cursor)
	inside    bool            // its id dates it well inside --since/--until
	attempts  int             // crawls in a row that could not read it whole
	// spellings are the listed names of every directory (or presubmit
	// link) that spells this build's number, when there is more than one
	// ("09999/" and "9999/"); the first is the one read.
	spellings []string
	// since bounds its start: --since, or --lookback on a job's first
	// incremental crawl (zero when its cursor bounds the listing instead).
	since time.Time
}

// jobPlan is what one job needs read.
type jobPlan struct {
	job    string
	tasks  []task
	cursor *cursorTracker
}

// discover lists the matching jobs and, for each, the runs to read, and
// sends each job's plan to out as soon as it is made, so that runs are read
// while other jobs are still being listed. A job whose builds cannot be
// listed is logged, counted in unlisted and left for the next crawl; only a
// bucket that cannot be listed at all, or a database error, stops the
// crawl.
func (c *Crawler) discover(ctx context.Context, out chan<- *jobPlan) (planned, unlisted int, err error) {
	// The periodic and the presubmit jobs are listed at once: each
	// listing is a round trip (a page of 1,000 jobs at a time) before any
	// of its jobs' runs can be.
	var jobs, pre []jobRef
	var preErr error
	var wg sync.WaitGroup
	if c.cfg.Presubmits {
		wg.Go(func() { pre, preErr = c.listJobs(ctx, "pr-logs/directory/", true) })
	}
	jobs, err = c.listJobs(ctx, "logs/", false)
	wg.Wait()
	if err = cmp.Or(err, preErr); err != nil {
		return 0, 0, err
	}
	jobs = append(jobs, pre...)
	c.log.Info("jobs matched", "jobs", len(jobs))
	if c.cfg.Progress != nil {
		c.cfg.Progress.Jobs(len(jobs))
	}
	var mu sync.Mutex
	// The first error is the cause; the others are the cancellation it
	// brought, which must not make a database error look like an
	// interrupt.
	p := pool.New().WithContext(ctx).WithMaxGoroutines(c.cfg.Concurrency).WithCancelOnError().WithFirstError()
	for _, j := range jobs {
		p.Go(func(ctx context.Context) error {
			plan, err := c.listJob(ctx, j)
			var le listError
			if errors.As(err, &le) && ctx.Err() == nil {
				c.log.Warn("job not listed; it is listed again next time", "job", j.name, "error", err.Error())
				mu.Lock()
				unlisted++
				mu.Unlock()
				return nil
			}
			if err != nil {
				return err
			}
			select {
			case out <- plan:
			case <-ctx.Done():
				return context.Cause(ctx)
			}
			mu.Lock()
			planned++
			mu.Unlock()
			return nil
		})
	}
	err = p.Wait()
	return planned, unlisted, err
}

// listError is a job's listing that failed after the source's retries.
type listError struct{ err error }

func (e listError) Error() string { return e.err.Error() }
func (e listError) Unwrap() error { return e.err }

// listJobs lists the job directories under prefix that match --job.
func (c *Crawler) listJobs(ctx context.Context, prefix string, presubmit bool) ([]jobRef, error) {
	ents, err := c.src.List(ctx, prowcrawl.Query{Prefix: prefix, Delimiter: "/"})
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	var out []jobRef
	for _, e := range ents {
		if !e.Prefix {
			continue
		}
		name := strings.TrimSuffix(strings.TrimPrefix(e.Name, prefix), "/")
		if name == "" {
			continue
		}
		c.listed.Add(1)
		if !c.matchJob(name) {
			continue
		}
		out = append(out, jobRef{name: name, presubmit: presubmit, prefix: e.Name})
	}
	return out, nil
}

func (c *Crawler) matchJob(name string) bool {
	if c.cfg.Shards > 1 && ShardOf(name, c.cfg.Shards) != c.cfg.Shard {
		return false
	}
	if len(c.cfg.Jobs) == 0 {
		return true
	}
	for _, re := range c.cfg.Jobs {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

// listJob plans the runs of one job to read (planJob): it reads what the
// database holds of the job, lists its builds from where that allows, and
// probes a job with sequential ids for the first run in the window.
func (c *Crawler) listJob(ctx context.Context, j jobRef) (*jobPlan, error) {
	bucket := c.src.Bucket()
	stored, err := c.storedJob(ctx, bucket, j)
	if err != nil {
		return nil, err
	}
	if stored.hasCursor && !plausibleCursor(stored.cursor.BuildID, c.cfg.Now()) {
		// No id Prow has issued yet: a cursor that would stop the job.
		c.log.Warn("cursor past any build id issued yet; listing the job as if new", "job", j.name, "cursor", stored.cursor.BuildID)
		stored.cursor, stored.hasCursor = prowcrawl.Cursor{}, false
	}
	w := window{since: c.cfg.Since, until: c.cfg.Until, incremental: c.cfg.Since.IsZero(),
		refetch: c.cfg.Refetch, retryGivenUp: c.cfg.RetryGivenUp}
	if w.incremental && !stored.hasCursor {
		w.since = c.cfg.Now().Add(-c.cfg.Lookback)
	}
	ents, err := c.src.List(ctx, listQuery(j, stored, w))
	if err != nil {
		return nil, listError{fmt.Errorf("list builds of %s: %w", j.name, err)}
	}
	// Sequential ids encode no time: search for the first run in the window.
	if !j.presubmit && !(w.incremental && stored.hasCursor) {
		starts := make(map[int64]time.Time, len(stored.states))
		for id, st := range stored.states {
			if !st.StartedAt.IsZero() {
				starts[id] = st.StartedAt
			}
		}
		w.floor = c.sequentialFloor(ctx, j.prefix, sequentialIDs(ents, j.prefix), w.since, starts)
	}
	p := planJob(bucket, j, ents, stored, w)
	for _, tw := range p.twice {
		// Stored whole before the second spelling appeared: it is not
		// read again, so say so here, every crawl.
		c.log.Warn("build directories spell one build twice; the first is stored, the others are not read",
			"job", j.name, "build", strconv.FormatInt(tw.id, 10), "directories", strings.Join(tw.spellings, " "))
	}
	if p.late > 0 {
		c.log.Info("runs behind the cursor not stored yet: reading them", "job", j.name, "runs", p.late)
	}
	return p.plan, nil
}

// storedJob is what the database holds of job j in bucket.
func (c *Crawler) storedJob(ctx context.Context, bucket string, j jobRef) (storedJob, error) {
	var s storedJob
	var err error
	if s.states, err = c.db.RunStates(ctx, bucket, j.name); err != nil {
		return s, err
	}
	if s.cursor, s.hasCursor, err = c.db.Cursor(ctx, bucket, j.name); err != nil {
		return s, err
	}
	if s.revisit, err = c.db.Revisit(ctx, bucket, j.name, c.cfg.RetryGivenUp); err != nil {
		return s, err
	}
	return s, nil
}

// buildOf is the build a listed entry of job j names: a directory
// logs/<job>/<id>/, or a presubmit's link pr-logs/directory/<job>/<id>.txt.
func buildOf(e prowcrawl.Entry, j jobRef) (int64, bool) {
	base := strings.TrimSuffix(strings.TrimPrefix(e.Name, j.prefix), "/")
	if j.presubmit {
		idText, ok := strings.CutSuffix(base, ".txt")
		if e.Prefix || !ok {
			return 0, false
		}
		base = idText
	} else if !e.Prefix {
		return 0, false // latest-build.txt and other files
	}
	return prow.ParseBuildID(base)
}

// buildSpellings maps each build of a job's listing to the names that spell
// its number, the one to read first. Prow writes a build id as a plain
// number, so a directory 09999/ beside 9999/ is a copy or a rename by hand
// (or a tool that pads names) and not a second run: both name build 9999,
// and a run has one row. The plain spelling is read, as the one Prow
// wrote; without it, the first listed. Every spelling is recorded on the
// run (see fetch), so that neither directory is passed over in silence.
func buildSpellings(ents []prowcrawl.Entry, j jobRef) map[int64][]string {
	out := make(map[int64][]string)
	for _, e := range ents {
		id, ok := buildOf(e, j)
		if !ok {
			continue
		}
		names := append(out[id], e.Name)
		plain := strconv.FormatInt(id, 10)
		if name := strings.TrimSuffix(strings.TrimPrefix(e.Name, j.prefix), "/"); name == plain || name == plain+".txt" {
			// The plain spelling goes first.
			names[0], names[len(names)-1] = names[len(names)-1], names[0]
		}
		out[id] = names
	}
	return out
}

// spelledTwice is the problem recorded on a run whose build number more
// than one listed directory spells: one per spelling not read, naming both.
func spelledTwice(t task) []prowcrawl.RunError {
	if len(t.spellings) < 2 {
		return nil
	}
	var out []prowcrawl.RunError
	for _, other := range t.spellings[1:] {
		out = append(out, prowcrawl.RunError{Object: other, Kind: prowcrawl.ErrorParse, Message: fmt.Sprintf(
			"build %d is spelled twice: %s was read and %s was not (a run has one row; Prow writes build ids without leading zeros)",
			t.id, t.spellings[0], other)})
	}
	return out
}

// lateMargin is how far before its cursor an incremental crawl lists a
// job, for runs that appear in the bucket after newer ones: a build id is
// made when the job is triggered, and the run's directory appears once its
// pod starts and uploads, which can be hours later. Sippy's loader goes
// back 12 hours from the newest run it holds for the same reason. Jobs with
// sequential ids have a margin in ids instead (lateIDs).
const lateMargin = 12 * time.Hour

// lateStart is the build id a job with snowflake ids is listed from: the
// first that can have been issued lateMargin before the cursor.
func lateStart(cursor int64) int64 {
	t, ok := prow.BuildTime(cursor)
	if !ok {
		return cursor
	}
	return prow.MinBuildIDAt(t.Add(-lateMargin))
}

// lateIDs is the margin of jobs with sequential ids, which encode no time:
// the ids this far below the cursor are compared with the database (kettle
// stops at 40 builds it already holds).
const lateIDs = 40

// lateCandidate says whether a run behind the cursor that is not stored is
// read as one that appeared late.
func lateCandidate(id, cursor int64) bool {
	if t, ok := prow.BuildTime(id); ok {
		ct, _ := prow.BuildTime(cursor)
		return !t.Before(ct.Add(-lateMargin))
	}
	return id > cursor-lateIDs
}

// plausibleCursor says whether a cursor names an id Prow can have issued
// by now (a snowflake id encodes its time; a sequential one cannot be
// judged by itself).
func plausibleCursor(id int64, now time.Time) bool {
	t, ok := prow.BuildTime(id)
	return !ok || !t.After(now.Add(prow.MaxClockSkew))
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func allSnowflakes(states map[int64]db.RunState) bool {
	for id := range states {
		if _, ok := prow.BuildTime(id); !ok {
			return false
		}
	}
	return true
}

func inWindow(t, since, until time.Time) bool {
	if !since.IsZero() && t.Before(since) {
		return false
	}
	if !until.IsZero() && !t.Before(until) {
		return false
	}
	return true
}

// cursorTracker moves a job's cursor: the highest listed build id such that
// every listed id at or below it has been handled. Runs finish out of order,
// so a run stored early must not carry the cursor past one still in flight;
// otherwise a crawl killed in between would never look at that one again.
type cursorTracker struct {
	bucket, job string
	ids         []int64 // listed ids, ascending
	pending     map[int64]bool
	started     map[int64]time.Time
	next        int   // ids[:next] are handled
	at          int64 // cursor written so far
}

func newCursorTracker(bucket, job string, listed []int64, tasks []task, at int64) *cursorTracker {
	tr := &cursorTracker{bucket: bucket, job: job, ids: listed, pending: make(map[int64]bool), started: make(map[int64]time.Time), at: at}
	for _, t := range tasks {
		if t.listed {
			tr.pending[t.id] = true
		}
	}
	return tr
}

// done marks a listed run handled.
func (tr *cursorTracker) done(id int64, started time.Time) {
	delete(tr.pending, id)
	if !started.IsZero() {
		tr.started[id] = started
	}
}

// advance returns the new cursor when it moved.
func (tr *cursorTracker) advance() (prowcrawl.Cursor, bool) {
	for tr.next < len(tr.ids) && !tr.pending[tr.ids[tr.next]] {
		tr.next++
	}
	if tr.next == 0 {
		return prowcrawl.Cursor{}, false
	}
	id := tr.ids[tr.next-1]
	if id <= tr.at {
		return prowcrawl.Cursor{}, false
	}
	tr.at = id
	return prowcrawl.Cursor{Bucket: tr.bucket, Job: tr.job, BuildID: id, StartedAt: tr.startOf(tr.next - 1)}, true
}

// startOf is when the run ids[i] started: as read, or, for a run whose
// start could not be read, the time its snowflake id encodes, or else the
// start of the newest run before it that is known, so that a cursor that
// comes to rest on a run read with errors still says when it is.
func (tr *cursorTracker) startOf(i int) time.Time {
	if t, ok := tr.started[tr.ids[i]]; ok {
		return t
	}
	if t, ok := prow.BuildTime(tr.ids[i]); ok {
		return t
	}
	for j := i - 1; j >= 0; j-- {
		if t, ok := tr.started[tr.ids[j]]; ok {
			return t
		}
	}
	return time.Time{}
}

// runDir resolves a presubmit link's body (gs://BUCKET/pr-logs/pull/...) to
// a run directory relative to the source.
func runDir(link string) (string, error) {
	link = strings.TrimSpace(link)
	rest, ok := strings.CutPrefix(link, "gs://")
	if ok {
		_, rest, _ = strings.Cut(rest, "/")
	}
	rest = strings.TrimSuffix(rest, "/")
	rp, ok := prow.ParseRunPath(rest)
	if !ok {
		return "", fmt.Errorf("link %q does not name a run directory", link)
	}
	dir := path.Clean(rp.Prefix)
	// A presubmit's link names a presubmit's run: one under logs/ is a
	// periodic's or a postsubmit's, crawled as such already, and would be
	// stored twice.
	if !strings.HasPrefix(dir, "pr-logs/") {
		return "", fmt.Errorf("link %q names %s, which is not a presubmit's run (under pr-logs/)", link, dir)
	}
	return dir, nil
}

// ShardOf is the shard of n that crawls a job: FNV-1a of its name, so that
// every crawler of a fleet, on any machine and version, agrees.
func ShardOf(job string, n int) int {
	h := fnv.New32a()
	h.Write([]byte(job))
	return int(h.Sum32() % uint32(n))
}
