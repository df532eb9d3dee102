package crawler

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/prow"
)

// storedJob is what the database holds of one job when it is planned.
type storedJob struct {
	states    map[int64]db.RunState // every stored run, by build id
	cursor    prowcrawl.Cursor      // where the last crawl's listing stopped
	hasCursor bool
	// revisit are the stored runs that were pending or could not be read
	// whole, and so are read again (those given up on only with
	// window.retryGivenUp).
	revisit []prowcrawl.Run
}

// window is what a crawl reads of a job: runs that started in [since,
// until) (a zero bound is open), of build ids from floor up.
type window struct {
	since, until time.Time
	// incremental is a crawl without --since: a job with a cursor is
	// listed past it, one without from --lookback (since).
	incremental bool
	// floor is the first build id of a job with sequential ids that
	// started in the window (sequentialFloor), or 0.
	floor int64
	// refetch reads every run in the window again, stored or not;
	// retryGivenUp reads those given up on again.
	refetch, retryGivenUp bool
}

// listQuery is the listing of job j's builds. GCS lists names in byte
// order, which is numeric order only among ids of the same length.
// Snowflake ids all have 19 digits, so a job known to use them can start
// the listing at a build id.
func listQuery(j jobRef, s storedJob, w window) prowcrawl.Query {
	q := prowcrawl.Query{Prefix: j.prefix, Delimiter: "/"}
	if len(s.states) > 0 && allSnowflakes(s.states) {
		switch {
		case w.incremental && s.hasCursor:
			// From well before the cursor: a run that appears after a
			// newer one (a pod that waited to be scheduled, a late
			// upload) is found below it (see lateMargin).
			q.StartOffset = j.prefix + strconv.FormatInt(lateStart(s.cursor.BuildID), 10)
		case !w.since.IsZero():
			q.StartOffset = j.prefix + strconv.FormatInt(prow.MinBuildIDAt(w.since.Add(-idMargin)), 10)
		}
	}
	return q
}

// planned is a job's plan and what is worth saying about it.
type planned struct {
	plan *jobPlan
	// twice are the builds stored whole under one spelling of their
	// number whose directory is now listed under several.
	twice []twiceSpelled
	// late counts the runs behind the cursor not stored yet, which are read
	// without moving it.
	late int
}

// twiceSpelled is a build whose number more than one listed name spells.
type twiceSpelled struct {
	id        int64
	spellings []string
}

// planJob decides which runs of job j in bucket to read, from the listing
// of its builds (ents), what the database holds of it and the window: runs
// not stored yet in the window, runs stored as pending or not fully read,
// and, with window.refetch, every run in the window. An incremental crawl
// lists only past the job's cursor when build ids allow it (listQuery), and
// never reads an object of a stored run. It does no I/O.
func planJob(bucket string, j jobRef, ents []prowcrawl.Entry, s storedJob, w window) planned {
	states, cur, hasCursor := s.states, s.cursor, s.hasCursor
	since, until, incremental := w.since, w.until, w.incremental
	out := planned{plan: &jobPlan{job: j.name}}
	plan := out.plan
	var listed []int64
	var late []task
	// A late run lies among the runs stored: one older than all of them
	// was left out by the first crawl's window, not late.
	oldest := int64(math.MaxInt64)
	for id := range states {
		oldest = min(oldest, id)
	}
	spelled := buildSpellings(ents, j)
	for _, e := range ents {
		id, ok := buildOf(e, j)
		if !ok || spelled[id][0] != e.Name {
			continue // not a build, or a second spelling of one
		}
		var t task
		if j.presubmit {
			t.link = e
		}
		if names := spelled[id]; len(names) > 1 {
			t.spellings = names
		}
		st, known := states[id]
		if len(t.spellings) > 1 && known && !w.refetch && st.FetchStatus == prowcrawl.FetchComplete && st.Result != prowcrawl.ResultPending {
			out.twice = append(out.twice, twiceSpelled{id: id, spellings: t.spellings})
		}
		if incremental && hasCursor && id <= cur.BuildID {
			// Behind the cursor: stored ones are revisited below when
			// they need it; one not stored appeared late, and is read
			// without moving the cursor.
			if !known && id > oldest && lateCandidate(id, cur.BuildID) {
				late = append(late, task{job: j.name, presubmit: j.presubmit, id: id, link: t.link, path: t.path, spellings: t.spellings})
				if !j.presubmit {
					late[len(late)-1].path = strings.TrimSuffix(e.Name, "/")
				}
			}
			continue
		}
		if id < w.floor {
			continue // started before the window (see sequentialFloor)
		}
		if bt, ok := prow.BuildTime(id); ok {
			if !since.IsZero() && bt.Before(since.Add(-idMargin)) {
				continue
			}
			if !until.IsZero() && bt.After(until.Add(idMargin)) {
				continue
			}
			t.inside = (since.IsZero() || bt.After(since.Add(idMargin))) && (until.IsZero() || bt.Before(until.Add(-idMargin)))
		}
		if known && !st.StartedAt.IsZero() && !inWindow(st.StartedAt, since, until) {
			continue
		}
		listed = append(listed, id)
		if known && !w.refetch && (st.Result != prowcrawl.ResultPending && st.FetchStatus == prowcrawl.FetchComplete || st.GivenUp && !w.retryGivenUp) {
			continue
		}
		t.job, t.presubmit, t.id, t.known, t.listed, t.since = j.name, j.presubmit, id, known, true, since
		t.attempts = st.FetchAttempts
		if !j.presubmit {
			t.path = strings.TrimSuffix(e.Name, "/")
		}
		plan.tasks = append(plan.tasks, t)
	}
	slices.Sort(listed)
	plan.cursor = newCursorTracker(bucket, j.name, listed, plan.tasks, cur.BuildID)
	out.late = len(late)
	plan.tasks = append(plan.tasks, late...)
	// The cursor may come to rest on a run stored by an earlier crawl that
	// was stopped before its cursor caught up: it carries that run's start.
	for _, id := range listed {
		if st, ok := states[id]; ok && !st.StartedAt.IsZero() {
			plan.cursor.started[id] = st.StartedAt
		}
	}

	// Runs that were pending or could not be read last time are read again,
	// wherever the listing started.
	queued := make(map[int64]bool, len(plan.tasks))
	for _, t := range plan.tasks {
		queued[t.id] = true
	}
	for _, r := range s.revisit {
		if queued[r.BuildID] {
			continue
		}
		plan.tasks = append(plan.tasks, task{job: j.name, presubmit: j.presubmit, id: r.BuildID, path: r.Path, known: true, attempts: r.FetchAttempts})
	}
	slices.SortFunc(plan.tasks, func(a, b task) int { return cmpInt(a.id, b.id) })
	return out
}
