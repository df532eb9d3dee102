package crawler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/artifact"
	"github.com/openshift-eng/prowcrawl/prow"
)

// result is one run read, or nil rec for a run outside the window; or,
// with plan set, a job listed; or, with listed set, the end of the
// listing: every run to read is known.
type result struct {
	task    task
	rec     *prowcrawl.Record
	started time.Time
	plan    *jobPlan
	listed  bool
	held    int64 // of the crawl's byte budget, until stored
}

// fetch reads one run: it lists the run's directory and hands the listing,
// as an artifact.Run, to artifact.Read. It never returns an error: what
// cannot be read is recorded on the run, which is then read again by the
// next crawl.
func (c *Crawler) fetch(ctx context.Context, t task) result {
	return c.fetchWith(ctx, t, c.readOptions(t))
}

// fetchWith is fetch with the given options of artifact.Read.
func (c *Crawler) fetchWith(ctx context.Context, t task, opts artifact.Options) result {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RunTimeout)
	defer cancel()
	var count counter
	var read artifact.Result
	var unread []prowcrawl.RunError // listed, never to be read (see Entry.Problem)
	dir := t.path
	err := func() error {
		if dir == "" {
			b, err := c.rd.readAll(ctx, t.link, 4<<10, &count)
			if err != nil {
				return err
			}
			if dir, err = runDir(string(b)); err != nil {
				return err
			}
		}
		objs, err := c.src.List(ctx, prowcrawl.Query{Prefix: dir + "/"})
		if err != nil {
			return err
		}
		unread = unreadable(objs)
		run, w := c.teeRun(dir, c.runOf(dir+"/", objs, &count))
		read, err = artifact.Read(ctx, run, opts)
		c.keepRun(w, read, err)
		return err
	}()
	res := result{task: t, started: read.Run.StartedAt}
	if errors.Is(err, artifact.ErrNotKept) {
		return res
	}
	rec := read.Record
	rec.Errors = append(rec.Errors, spelledTwice(t)...)
	rec.Errors = append(rec.Errors, unread...)
	read.Partial = read.Partial || len(unread) > 0
	rec.Job = jobRow(t.job, t.presubmit)
	if read.Job.Type != "" {
		rec.Job.Type = read.Job.Type
	}
	if rec.Job.Upgrade == prow.UpgradeNone {
		rec.Run.UpgradeStarted = nil // a job that does not upgrade: every run counts
	}
	run := &rec.Run
	run.Job, run.BuildID, run.Bucket, run.Path = t.job, t.id, c.src.Bucket(), dir
	run.Result = cmp.Or(run.Result, prowcrawl.ResultPending)
	run.FetchStatus, run.CrawledAt = prowcrawl.FetchComplete, c.cfg.Now().UTC()
	if rp, ok := prow.ParseRunPath(dir); ok {
		run.Pull = rp.Pull
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		// Whatever was cut off by the deadline, the run is incomplete,
		// even where a parser took the cut for the end of a file.
		run.FetchStatus = prowcrawl.FetchError
		run.FetchError = fmt.Sprintf("the run was not read within its time limit (%s)", c.cfg.RunTimeout)
	case err != nil:
		run.FetchStatus = prowcrawl.FetchError
		run.FetchError = err.Error()
	case read.Partial:
		// The run is partial because an object could not be read: say
		// which, not a malformed one recorded before it.
		run.FetchStatus = prowcrawl.FetchPartial
		i := slices.IndexFunc(rec.Errors, func(e prowcrawl.RunError) bool { return e.Kind == prowcrawl.ErrorRead })
		run.FetchError = rec.Errors[max(i, 0)].Message
	}
	if dir != "" {
		run.URL = prow.ViewURL(c.src.Bucket(), dir)
	}
	run.ObjectsRead = int(count.objects.Load())
	run.BytesRead = count.bytes.Load()
	e := prowcrawl.EdgeOfRun(rec.Job, *run)
	run.Release, run.FromRelease, run.Upgrade = e.To, e.From, e.Kind
	res.rec = &rec
	return res
}

// readOptions says how artifact.Read reads t.
func (c *Crawler) readOptions(t task) artifact.Options {
	opts := artifact.Options{Rules: c.cfg.Rules, MaxObjectBytes: c.cfg.MaxObjectBytes, MaxTests: c.cfg.MaxTests,
		Topology: prow.ParseJobName(t.job).Topology, Now: c.cfg.Now()}
	// Only a listed run whose id does not date it well inside
	// --since/--until (or --lookback) is checked against them once
	// started.json is read.
	if t.listed && !t.inside {
		opts.Keep = func(started time.Time) bool { return inWindow(started, t.since, c.cfg.Until) }
	}
	return opts
}

// jobRow derives the jobs row from the job name alone.
func jobRow(name string, presubmit bool) prowcrawl.Job {
	return prowcrawl.JobFromName(name, presubmit)
}
