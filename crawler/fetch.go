package crawler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/prow"
)

// Caps on what one object may expand to. Real metadata files are a few KiB
// and real JUnit files a few MiB; anything far beyond is broken or hostile.
const (
	maxMetadata = 4 << 20
	maxJUnit    = 256 << 20
	maxCVO      = 32 << 20
)

// result is one run read, or nil rec for a run outside the window; or,
// with plan set, a job listed.
type result struct {
	task    task
	rec     *db.Record
	started time.Time
	plan    *jobPlan
}

// runReader collects what goes wrong while one run is read.
type runReader struct {
	errs    []db.RunError
	partial bool // an object could not be read: read the run again next time
	count   counter
	op      opener // opens the run's objects: the crawl's reader, or one opening ahead
}

func (rr *runReader) fail(object, kind string, err error) {
	rr.errs = append(rr.errs, db.RunError{Object: object, Kind: kind, Message: err.Error()})
	if kind == "read" {
		rr.partial = true
	}
}

// fetch reads one run. It never returns an error: what cannot be read is
// recorded on the run, which is then read again by the next crawl.
func (c *Crawler) fetch(ctx context.Context, t task) result {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.RunTimeout)
	defer cancel()
	rr := &runReader{}
	run := &db.Run{
		Job: t.job, BuildID: t.id, Bucket: c.src.Bucket(), Path: t.path,
		Result: "pending", FetchStatus: "complete", CrawledAt: c.cfg.Now().UTC(),
	}
	rec := &db.Record{Job: jobRow(t.job, t.presubmit)}
	res := result{task: t, rec: rec}
	err := func() error {
		if run.Path == "" {
			b, err := c.rd.readAll(ctx, t.link, 4<<10, &rr.count)
			if err != nil {
				return err
			}
			if run.Path, err = runDir(string(b)); err != nil {
				return err
			}
		}
		if rp, ok := prow.ParseRunPath(run.Path); ok {
			run.Pull = rp.Pull
		}
		objs, err := c.src.List(ctx, Query{Prefix: run.Path + "/"})
		if err != nil {
			return err
		}
		// Only a listed run whose id does not date it well inside
		// --since/--until is checked against them once started.json is
		// read.
		var keep func(time.Time) bool
		if t.listed && !t.inside {
			keep = func(started time.Time) bool { return inWindow(started, c.cfg.Since, c.cfg.Until) }
		}
		err = c.readRun(ctx, run.Path+"/", objs, run, rec, rr, keep)
		res.started = run.StartedAt
		return err
	}()
	if errors.Is(err, errOutsideWindow) {
		res.rec = nil
		return res
	}
	rec.Errors = rr.errs
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		// Whatever was cut off by the deadline, the run is incomplete,
		// even where a parser took the cut for the end of a file.
		run.FetchStatus = "error"
		run.FetchError = fmt.Sprintf("the run was not read within its time limit (%s)", c.cfg.RunTimeout)
	case err != nil:
		run.FetchStatus = "error"
		run.FetchError = err.Error()
	case rr.partial:
		// The run is partial because an object could not be read: say
		// which, not a malformed one recorded before it.
		run.FetchStatus = "partial"
		i := slices.IndexFunc(rr.errs, func(e db.RunError) bool { return e.Kind == "read" })
		run.FetchError = rr.errs[max(i, 0)].Message
	}
	if run.Path != "" {
		run.URL = prow.ViewURL(c.src.Bucket(), run.Path)
	}
	run.ObjectsRead = int(rr.count.objects.Load())
	run.BytesRead = rr.count.bytes.Load()
	rec.Run = *run
	return res
}

// errOutsideWindow stops reading a run that started outside --since/--until.
var errOutsideWindow = errors.New("run outside the time window")

// readRun reads the run whose objects are objs, all under prefix: its
// metadata, tests, upgrade versions and, with a classifier, its symptoms.
// keep, unless nil, is asked with the start time whether to go on. A
// returned error means the run's metadata could not be read; lesser
// problems are recorded in rr.
func (c *Crawler) readRun(ctx context.Context, prefix string, objs []Entry, run *db.Run, rec *db.Record, rr *runReader, keep func(time.Time) bool) error {
	names := make(map[string]Entry, len(objs))
	for _, o := range objs {
		names[strings.TrimPrefix(o.Name, prefix)] = o
	}
	if _, ok := names["started.json"]; !ok {
		return fmt.Errorf("%sstarted.json: %w", prefix, ErrNotExist)
	}
	// The metadata first, all three opened at once, then every other
	// object the run needs, opened ahead in the order they are read
	// below. JUnit files a rule reads are read once, parsed and scanned
	// at the same time. A run known to be wanted (keep is nil) and known
	// to be finished (finished.json is listed) is read in one go; any
	// other waits for its metadata before the rest is asked for.
	meta := []Entry{names["started.json"]}
	for _, n := range []string{"prowjob.json", "finished.json"} {
		if o, ok := names[n]; ok {
			meta = append(meta, o)
		}
	}
	junits := junitFiles(prefix, objs)
	wanted := c.classifyFiles(prefix, objs)
	rest := slices.Clip(junits)
	if cv, ok := clusterVersionFile(prefix, objs); ok {
		rest = append(rest, cv)
	}
	rest = append(rest, without(wanted, junits)...)
	_, done := names["finished.json"]
	oneGo := keep == nil && done
	plan := meta
	if oneGo {
		plan = append(slices.Clip(plan), rest...)
	}
	a := c.openAhead(ctx, plan)
	defer a.close()
	rr.op = a
	var started prow.Started
	if err := c.readJSON(ctx, names["started.json"], func(b []byte) (err error) {
		started, err = prow.ParseStarted(b)
		return err
	}, rr); err != nil {
		return err
	}
	run.StartedAt = time.Unix(started.Timestamp, 0).UTC()
	if keep != nil && !keep(run.StartedAt) {
		return errOutsideWindow
	}

	var pj prow.ProwJob
	if o, ok := names["prowjob.json"]; ok {
		_ = c.readJSON(ctx, o, func(b []byte) (err error) {
			pj, err = prow.ParseProwJob(b)
			return err
		}, rr)
		run.Tag, run.FromTag = pj.Tag, pj.FromTag
		if pj.Type != "" {
			rec.Job.Type = pj.Type
		}
	}
	if o, ok := names["finished.json"]; ok {
		var fin prow.Finished
		err := c.readJSON(ctx, o, func(b []byte) (err error) {
			fin, err = prow.ParseFinished(b)
			return err
		}, rr)
		if err != nil {
			return err
		}
		run.Result = resultOf(fin.Result, fin.Passed)
		if fin.Timestamp > 0 {
			run.FinishedAt = time.Unix(fin.Timestamp, 0).UTC()
		}
	} else if st := prow.NormalizeResult(pj.State); isFinal(st) && !pj.CompletionTime.IsZero() {
		// Prow gave up on the pod and never uploaded finished.json.
		run.Result = st
		run.FinishedAt = pj.CompletionTime.UTC()
	}

	// A running job's artifacts are incomplete: it is read again once done.
	if run.Result != "pending" {
		if !oneGo {
			a := c.openAhead(ctx, rest)
			defer a.close()
			rr.op = a
		}
		ss := c.beginScan(prefix, objs, wanted, run.StartedAt)
		tests := c.readTests(ctx, junits, rr, ss)
		for _, t := range tests {
			rec.Tests = append(rec.Tests, db.Test{Suite: t.Suite, Name: t.Name, Status: string(t.Status), DurationS: t.Duration, Message: t.Message})
		}
		if cv, ok := c.readClusterVersion(ctx, prefix, objs, rr); ok {
			run.FromVersion, run.ToVersion = cv.FromVersion, cv.ToVersion
			if cv.State == "Completed" || cv.State == "Partial" {
				run.UpgradeState = cv.State
			}
		}
		rec.Symptoms = c.classify(ctx, ss, junits, tests, run.UpgradeState, rr)
	}
	run.Release, run.FromRelease, run.Upgrade = edgeOf(rec.Job, *run)
	return nil
}

// symptomScan is a run's classification while the run is read: every
// object some rule reads goes through one scan, the JUnit files among them
// while they are parsed for tests (see readTests), the others after.
type symptomScan struct {
	scan   *classify.Scan
	prefix string
	order  map[string]int // object name -> place in the run's listing, from 1
	wanted []Entry        // the objects some rule reads, in listing order
}

// beginScan starts the classification of the run whose objects are objs,
// of which the rules read wanted (classifyFiles); nil without rules.
func (c *Crawler) beginScan(prefix string, objs, wanted []Entry, start time.Time) *symptomScan {
	if c.cfg.Rules == nil {
		return nil
	}
	ss := &symptomScan{scan: c.cfg.Rules.Begin(classify.RunInfo{Start: start}), prefix: prefix, order: make(map[string]int, len(wanted)), wanted: wanted}
	// wanted is a part of objs, in the same order: one walk finds where
	// each stands, without a map of every object of the run.
	i := 0
	for _, w := range wanted {
		for i < len(objs) && objs[i].Name != w.Name {
			i++
		}
		ss.order[w.Name] = i + 1
	}
	return ss
}

// reads says whether a rule reads obj.
func (ss *symptomScan) reads(obj Entry) bool {
	if ss == nil {
		return false
	}
	_, ok := ss.order[obj.Name]
	return ok
}

// rest is what a rule reads besides the JUnit files, in listing order.
func (ss *symptomScan) rest(junits []Entry) []Entry {
	if ss == nil {
		return nil
	}
	return without(ss.wanted, junits)
}

// without is objs without those of drop.
func without(objs, drop []Entry) []Entry {
	var out []Entry
	for _, o := range objs {
		if !slices.ContainsFunc(drop, func(d Entry) bool { return d.Name == o.Name }) {
			out = append(out, o)
		}
	}
	return out
}

// file scans one object read from r.
func (ss *symptomScan) file(ctx context.Context, obj Entry, r io.Reader) error {
	return ss.scan.FileAt(ctx, strings.TrimPrefix(obj.Name, ss.prefix), ss.order[obj.Name], r)
}

// classify streams the objects some rule reads, apart from the JUnit files
// (scanned while parsed), through the run's scan and returns what it found.
// An object that cannot be read makes the run partial; a malformed one is
// recorded, and what was matched before the problem still counts.
func (c *Crawler) classify(ctx context.Context, ss *symptomScan, junits []Entry, tests []prow.TestResult, upgradeState string, rr *runReader) []db.RunSymptom {
	if ss == nil {
		return nil
	}
	for _, o := range ss.rest(junits) {
		rc, err := rr.opener(c).open(ctx, o, &rr.count)
		if err != nil {
			rr.fail(o.Name, "read", err)
			continue
		}
		cr := &capReader{r: rc, left: c.cfg.MaxObjectBytes}
		err = ss.file(ctx, o, cr)
		rc.Close()
		switch {
		case cr.over:
			rr.fail(o.Name, "size", fmt.Errorf("read %s: %w (%d bytes); matched on the first part only", o.Name, ErrTooLarge, c.cfg.MaxObjectBytes))
		case cr.err != nil:
			rr.fail(o.Name, "read", fmt.Errorf("read %s: %w", o.Name, cr.err))
		case err != nil:
			rr.fail(o.Name, "parse", fmt.Errorf("classify %s: %w", o.Name, err))
		}
	}
	ss.scan.SetRun(tests, upgradeState)
	var out []db.RunSymptom
	for _, m := range ss.scan.Matches() {
		file := m.File
		if file != "" {
			file = ss.prefix + file
		}
		out = append(out, db.RunSymptom{SymptomID: m.Symptom, Hits: m.Hits, File: file, Line: m.Line, Excerpt: m.Excerpt, At: m.At, RuleHash: c.cfg.Rules.RuleHash(m.Symptom)})
	}
	return out
}

// readJSON reads a small metadata object and parses it. A read error is
// returned (and recorded); a parse error is only recorded.
func (c *Crawler) readJSON(ctx context.Context, obj Entry, parse func([]byte) error, rr *runReader) error {
	name := obj.Name
	b, err := readAll(ctx, rr.opener(c), obj, maxMetadata, &rr.count)
	if err != nil {
		kind := "read"
		if errors.Is(err, ErrTooLarge) {
			kind = "size"
		}
		rr.fail(name, kind, err)
		return err
	}
	if err := parse(b); err != nil {
		rr.fail(name, "parse", err)
		return err
	}
	return nil
}

// readTests parses the run's JUnit files and merges the cases: a test
// failed and passed in one run is a flake. A JUnit file a rule reads is
// scanned by ss as it is parsed, from the same download.
func (c *Crawler) readTests(ctx context.Context, junits []Entry, rr *runReader, ss *symptomScan) []prow.TestResult {
	var cases []prow.TestCase
	for _, o := range junits {
		var scan func(io.Reader) error
		if ss.reads(o) {
			scan = func(r io.Reader) error { return ss.file(ctx, o, r) }
		}
		got, sum, err := c.parseJUnit(ctx, rr.opener(c), o, &rr.count, scan)
		if err != nil {
			kind := "parse"
			switch {
			case errors.Is(err, ErrTooLarge):
				kind = "size"
			case isReadErr(err):
				kind = "read"
			}
			rr.fail(o.Name, kind, err)
		}
		switch {
		case sum.over:
			rr.fail(o.Name, "size", fmt.Errorf("read %s: %w (%d bytes); matched on the first part only", o.Name, ErrTooLarge, c.cfg.MaxObjectBytes))
		case sum.err != nil && !isReadErr(err):
			rr.fail(o.Name, "parse", fmt.Errorf("classify %s: %w", o.Name, sum.err))
		}
		// A truncated file still gives the cases read before the problem.
		cases = append(cases, got...)
	}
	return prow.MergeTests(cases)
}

// teeResult is how the scan of a JUnit file went, beside its parsing.
type teeResult struct {
	over bool  // the file was longer than MaxObjectBytes: scanned in part
	err  error // the scan's error
}

// readErr marks errors of the source, as opposed to errors of the content.
type readErr struct{ err error }

func (e readErr) Error() string { return e.err.Error() }
func (e readErr) Unwrap() error { return e.err }

func isReadErr(err error) bool {
	var re readErr
	return errors.As(err, &re)
}

// parseJUnit parses one JUnit file. With scan, the bytes parsed also go to
// scan as they arrive, all of them even when the parser stops early, up to
// MaxObjectBytes.
func (c *Crawler) parseJUnit(ctx context.Context, op opener, obj Entry, run *counter, scan func(io.Reader) error) (cases []prow.TestCase, tee teeResult, err error) {
	name := obj.Name
	rc, err := op.open(ctx, obj, run)
	if err != nil {
		return nil, tee, readErr{err}
	}
	defer rc.Close()
	lr := &capReader{r: rc, left: maxJUnit}
	var in io.Reader = lr
	if scan != nil {
		pr, pw := io.Pipe()
		sink := &teeSink{w: pw, left: c.cfg.MaxObjectBytes}
		done := make(chan struct{})
		var scanErr error
		go func() {
			defer close(done)
			scanErr = scan(pr)
			pr.Close() // a scan that stopped early takes no more bytes
		}()
		in = io.TeeReader(lr, sink)
		defer func() {
			_, _ = io.Copy(io.Discard, in) // what the parser left, for the scan
			pw.Close()
			<-done
			tee = teeResult{over: sink.over, err: scanErr}
		}()
	}
	cases, err = prow.ParseJUnit(in)
	switch {
	case lr.over:
		return nil, tee, fmt.Errorf("read %s: %w (%d bytes)", name, ErrTooLarge, maxJUnit)
	case lr.err != nil:
		return nil, tee, readErr{fmt.Errorf("read %s: %w", name, lr.err)}
	case err != nil:
		// The cases before the problem are real: keep them.
		return cases, tee, fmt.Errorf("parse %s: %w", name, err)
	}
	return cases, tee, nil
}

// teeSink passes bytes on to a scan, up to a cap; it never fails the
// reader it is teed from, whatever the scan does.
type teeSink struct {
	w    *io.PipeWriter
	left int64
	over bool
	dead bool
}

func (t *teeSink) Write(p []byte) (int, error) {
	n := len(p)
	if t.dead || t.over {
		return n, nil
	}
	if int64(len(p)) > t.left {
		p, t.over = p[:t.left], true
	}
	t.left -= int64(len(p))
	if _, err := t.w.Write(p); err != nil {
		t.dead = true
	}
	return n, nil
}

// capReader stops at a size cap and remembers whether the source failed, so
// that a broken download is not mistaken for broken XML.
type capReader struct {
	r    io.Reader
	left int64
	over bool
	err  error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// At the cap: the object is over it only if it goes on.
		var one [1]byte
		_, err := io.ReadFull(c.r, one[:])
		switch {
		case err == io.EOF:
			return 0, io.EOF
		case err != nil:
			c.err = err
			return 0, err
		}
		c.over = true
		return 0, ErrTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

// readClusterVersion reads the run's clusterversion.json: gather-extra's in
// multi-stage jobs, the target directory's in template-era jobs.
func (c *Crawler) readClusterVersion(ctx context.Context, prefix string, objs []Entry, rr *runReader) (prow.ClusterVersion, bool) {
	best, ok := clusterVersionFile(prefix, objs)
	if !ok {
		return prow.ClusterVersion{}, false
	}
	var cv prow.ClusterVersion
	err := c.readJSON(ctx, best, func(b []byte) (err error) {
		cv, err = prow.ParseClusterVersion(b)
		return err
	}, rr)
	return cv, err == nil
}

// clusterVersionFile picks the clusterversion.json to read: gather-extra's
// when there are several.
func clusterVersionFile(prefix string, objs []Entry) (Entry, bool) {
	var best Entry
	for _, o := range objs {
		rel := strings.TrimPrefix(o.Name, prefix)
		if !strings.HasPrefix(rel, "artifacts/") || path.Base(rel) != "clusterversion.json" {
			continue
		}
		if best.Name == "" || (strings.Contains(rel, "/gather-extra/") && !strings.Contains(best.Name, "/gather-extra/")) {
			best = o
		}
	}
	return best, best.Name != ""
}

// junitFiles are the run's JUnit files, in listing order.
func junitFiles(prefix string, objs []Entry) []Entry {
	var out []Entry
	for _, o := range objs {
		if isJUnit(strings.TrimPrefix(o.Name, prefix)) {
			out = append(out, o)
		}
	}
	return out
}

// classifyFiles are the run's objects some rule reads, in listing order.
func (c *Crawler) classifyFiles(prefix string, objs []Entry) []Entry {
	if c.cfg.Rules == nil {
		return nil
	}
	var out []Entry
	for _, o := range objs {
		if c.cfg.Rules.Wants(strings.TrimPrefix(o.Name, prefix)) {
			out = append(out, o)
		}
	}
	return out
}

// opener is how the run's objects are opened: ahead when a plan was made.
func (rr *runReader) opener(c *Crawler) opener {
	if rr.op != nil {
		return rr.op
	}
	return c.rd
}

// isJUnit matches JUnit files anywhere under artifacts/: junit*.xml and
// *junit*.xml, as testgrid and Sippy find them.
func isJUnit(rel string) bool {
	if !strings.HasPrefix(rel, "artifacts/") {
		return false
	}
	base := path.Base(rel)
	return strings.HasSuffix(base, ".xml") && strings.Contains(base, "junit")
}

func isFinal(result string) bool {
	switch result {
	case "success", "failure", "aborted", "error":
		return true
	}
	return false
}

// resultOf maps finished.json to a run result.
func resultOf(result string, passed *bool) string {
	if r := prow.NormalizeResult(result); isFinal(r) {
		return r
	}
	if passed != nil && *passed {
		return "success"
	}
	if passed != nil {
		return "failure"
	}
	return "error"
}

// jobRow derives the jobs row from the job name alone.
func jobRow(name string, presubmit bool) db.Job {
	v := prow.ParseJobName(name)
	j := db.Job{Name: name, Type: v.Type, Release: v.Release, FromRelease: v.FromRelease,
		Upgrade: v.Upgrade, Platform: v.Platform, Network: v.Network, Arch: v.Arch}
	if presubmit {
		j.Type = "presubmit"
	}
	return j
}

// edgeOf gives a run's upgrade edge: from the job name when it says, else
// (old names without a version) from the cluster's versions or the release
// controller's tags.
func edgeOf(j db.Job, run db.Run) (release, from, upgrade string) {
	if j.Release != "" {
		return j.Release, j.FromRelease, j.Upgrade
	}
	to, fromV := run.ToVersion, run.FromVersion
	if to == "" {
		to, fromV = run.Tag, run.FromTag
	}
	release, from = prow.ReleaseOf(to), prow.ReleaseOf(fromV)
	if j.Upgrade == "none" {
		return release, release, "none"
	}
	return release, from, prow.UpgradeKind(fromV, to)
}
