package artifact

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/prow"
)

// Caps on what one object may expand to. Real metadata files are a few KiB
// and real JUnit files a few MiB; anything far beyond is broken or hostile.
const (
	maxMetadata = 4 << 20
	maxJUnit    = 256 << 20
)

// Options says how a run is read.
type Options struct {
	// Rules classifies the run's failures by symptom; nil skips it.
	Rules *classify.Engine
	// MaxObjectBytes caps what is matched of one file (after
	// decompression); a longer one is matched on its first part and
	// recorded. Zero means 1 GiB.
	MaxObjectBytes int64
	// Keep, unless nil, is asked with the run's start time whether to read
	// on; when it says no, Read returns ErrNotKept.
	Keep func(started time.Time) bool
	// Triage reads what is there: a run without started.json, or one still
	// running, is read all the same (tests, versions and symptoms), as
	// someone triaging a downloaded run wants. Start dates year-less log
	// lines when there is no started.json.
	Triage bool
	Start  time.Time
	// Loose says the files' places in a run are unknown (files given on
	// their own): a JUnit or clusterversion.json file is read as one
	// wherever it is, not only under artifacts/.
	Loose bool
	// Now is the reader's clock, which bounds the times the run's files
	// may give (see prow.ArtifactTime); zero means time.Now.
	Now time.Time
	// MaxTests caps the tests kept of the run whatever their outcome
	// (past it only failures and flakes are kept, and a size problem
	// is recorded); zero means prow.MaxRunTests.
	MaxTests int
	// Topology is the cluster topology of the run's job (from its name),
	// for the rules limited to some topologies; empty when unknown.
	Topology string
}

// Result is what Read found in a run. Its Record holds the run's row (the
// fields its artifacts give: times, result, tags, versions, upgrade
// state), its tests, symptoms and problems; Job holds only the type
// prowjob.json gives, when it does.
type Result struct {
	prowcrawl.Record
	// Partial says an object could not be read (as opposed to being
	// malformed or too large): the run should be read again.
	Partial bool
	// Networks are the cluster's own networks, from gather-extra's
	// config-resources.json; zero when the run does not say.
	Networks prow.Networks
}

// Read reads a run: its metadata, then, once it is finished, its tests,
// upgrade versions and symptoms. A returned error means the run's metadata
// could not be read (or Keep refused it); the Result holds what was found
// all the same, problems included. Lesser problems are in Result.Errors.
func Read(ctx context.Context, run Run, opts Options) (Result, error) {
	if opts.MaxObjectBytes <= 0 {
		opts.MaxObjectBytes = 1 << 30
	}
	r := &reading{run: run, opts: opts}
	err := r.read(ctx)
	r.res.Record.Run.Result = cmp.Or(r.res.Record.Run.Result, prowcrawl.ResultPending)
	return r.res, err
}

// reading is the state of one Read.
type reading struct {
	run  Run
	opts Options
	res  Result
}

func (r *reading) fail(name string, kind prowcrawl.ErrorKind, err error) {
	r.res.Errors = append(r.res.Errors, prowcrawl.RunError{Object: r.run.Dir + name, Kind: kind, Message: err.Error()})
	if kind == prowcrawl.ErrorRead {
		r.res.Partial = true
	}
}

// plan is the files a run's reading opens, in the order it opens them.
type plan struct {
	started, prowjob, finished File
	junits                     []File
	cv                         File
	network                    File   // config-resources.json
	scanned                    []File // the files a rule reads, besides the JUnit files
	order                      map[string]int
	reads                      map[string]bool // by name: a rule reads it
	// disruption are the files the run's disruption is read from, of
	// disruptionSource; isDisruption has their names. Those a rule reads
	// are parsed from the bytes the rules' scan reads.
	disruption       []File
	disruptionSource string
	isDisruption     map[string]bool
}

func (r *reading) plan() plan {
	var p plan
	p.order = make(map[string]int, len(r.run.Files))
	p.reads = make(map[string]bool)
	for i, f := range r.run.Files {
		name := f.Name()
		switch name {
		case "started.json":
			p.started = f
		case "prowjob.json":
			p.prowjob = f
		case "finished.json":
			p.finished = f
		}
		junit := isJUnit(name, r.opts.Loose)
		if junit {
			p.junits = append(p.junits, f)
		}
		if isConfigResources(name, r.opts.Loose) && p.network == nil {
			p.network = f
		}
		if isClusterVersion(name, r.opts.Loose) && (p.cv == nil || (strings.Contains(name, "/gather-extra/") && !strings.Contains(p.cv.Name(), "/gather-extra/"))) {
			p.cv = f
		}
		if r.opts.Rules != nil && r.opts.Rules.Wants(name) {
			p.order[name] = i + 1
			p.reads[name] = true
			if !junit {
				p.scanned = append(p.scanned, f)
			}
		}
	}
	p.disruption, p.disruptionSource = disruptionSources(r.run.Files, r.opts.Loose)
	p.isDisruption = make(map[string]bool, len(p.disruption))
	for _, f := range p.disruption {
		p.isDisruption[f.Name()] = true
	}
	return p
}

func (p plan) meta() []File {
	var out []File
	for _, f := range []File{p.started, p.prowjob, p.finished} {
		if f != nil {
			out = append(out, f)
		}
	}
	return out
}

func (p plan) rest() []File {
	out := slices.Clip(p.junits)
	if p.cv != nil && !slices.Contains(out, p.cv) {
		out = append(out, p.cv)
	}
	if p.network != nil && !slices.Contains(out, p.network) {
		out = append(out, p.network)
	}
	for _, f := range p.scanned {
		if f != p.cv {
			out = append(out, f)
		}
	}
	for _, f := range p.disruption {
		if !slices.ContainsFunc(out, func(o File) bool { return o.Name() == f.Name() }) {
			out = append(out, f)
		}
	}
	return out
}

func (r *reading) ahead(ctx context.Context, files []File) func() {
	if r.run.Ahead == nil || len(files) == 0 {
		return func() {}
	}
	return r.run.Ahead.ReadAhead(ctx, files)
}

// now is the reader's clock (Options.Now).
func (r *reading) now() time.Time {
	if r.opts.Now.IsZero() {
		return time.Now()
	}
	return r.opts.Now
}

func (r *reading) read(ctx context.Context) error {
	p := r.plan()
	run := &r.res.Record.Run
	if p.started == nil && !r.opts.Triage {
		return fmt.Errorf("%sstarted.json: %w", r.run.Dir, fs.ErrNotExist)
	}
	// The metadata first, then every other object the run needs, read
	// ahead in the order they are opened below. A run known to be wanted
	// (Keep is nil) and known to be finished (finished.json is listed) is
	// read ahead in one go; any other waits for its metadata before the
	// rest is asked for.
	oneGo := r.opts.Keep == nil && p.finished != nil
	first := p.meta()
	if oneGo {
		first = append(first, p.rest()...)
	}
	release := r.ahead(ctx, first)
	defer func() { release() }()

	start := r.opts.Start
	if p.started != nil {
		// A time that cannot be a run's is a parse problem of its file,
		// and the run is kept out of the rates like one whose metadata
		// is unreadable.
		var at time.Time
		if err := r.json(ctx, p.started, func(b []byte) error {
			started, err := prow.ParseStarted(b)
			if err == nil {
				at, err = prow.ArtifactTime(started.Timestamp, r.now())
			}
			return err
		}); err != nil && !r.opts.Triage {
			return err
		} else if err == nil {
			run.StartedAt = at
			start = run.StartedAt
		}
		if r.opts.Keep != nil && !r.opts.Keep(run.StartedAt) {
			return ErrNotKept
		}
	}

	var pj prow.ProwJob
	if p.prowjob != nil {
		_ = r.json(ctx, p.prowjob, func(b []byte) (err error) {
			pj, err = prow.ParseProwJob(b)
			return err
		})
		run.Tag, run.FromTag = pj.Tag, pj.FromTag
		r.res.Job.Type = pj.Type
	}
	run.Result = prowcrawl.ResultPending
	if p.finished != nil {
		var fin prow.Finished
		var end time.Time
		err := r.json(ctx, p.finished, func(b []byte) (err error) {
			fin, err = prow.ParseFinished(b)
			if err == nil && fin.Timestamp > 0 {
				if end, err = prow.ArtifactTime(fin.Timestamp, r.now()); err == nil {
					err = prow.CheckRunTimes(run.StartedAt, end)
				}
			}
			return err
		})
		if err != nil && !r.opts.Triage {
			return err
		} else if err == nil {
			run.Result = resultOf(fin.Result, fin.Passed)
			run.FinishedAt = end
		}
	} else if st := prowcrawl.Result(prow.NormalizeResult(pj.State)); isFinal(st) && !pj.CompletionTime.IsZero() &&
		prow.CheckTime(pj.CompletionTime, r.now()) == nil && prow.CheckRunTimes(run.StartedAt, pj.CompletionTime) == nil {
		// Prow gave up on the pod and never uploaded finished.json.
		run.Result = st
		run.FinishedAt = pj.CompletionTime.UTC()
	}

	// A running job's artifacts are incomplete: it is read again once done.
	if run.Result == prowcrawl.ResultPending && !r.opts.Triage {
		run.Overall = prowcrawl.OverallRunning
		return nil
	}
	if !oneGo {
		release()
		release = r.ahead(ctx, p.rest())
	}
	// The cluster's own networks decide which addresses are pods': read
	// them before any file is matched. A file that cannot be read or
	// parsed is recorded, and the run is matched as one that says nothing.
	if p.network != nil {
		_ = r.json(ctx, p.network, func(b []byte) (err error) {
			r.res.Networks, err = prow.ParseNetworks(b)
			return err
		})
	}
	var scan *classify.Scan
	if r.opts.Rules != nil {
		// Only a start read from started.json bounds the evidence times:
		// one given by hand (a file's modification time) is a guess.
		scan = r.opts.Rules.Begin(classify.RunInfo{Start: start, Topology: r.opts.Topology, StartGuessed: run.StartedAt.IsZero(),
			ClusterNetworks: r.res.Networks.Cluster})
	}
	tests := r.tests(ctx, p, scan)
	for _, t := range tests {
		r.res.Tests = append(r.res.Tests, prowcrawl.Test{Suite: t.Suite, Name: t.Name, Status: string(t.Status), DurationS: t.Duration, Message: t.Message})
	}
	var cvRead *prow.ClusterVersion
	if p.cv != nil {
		var cv prow.ClusterVersion
		if err := r.json(ctx, p.cv, func(b []byte) (err error) {
			cv, err = prow.ParseClusterVersion(b)
			return err
		}); err == nil {
			run.FromVersion, run.ToVersion = cv.FromVersion, cv.ToVersion
			if cv.State == "Completed" || cv.State == "Partial" {
				run.UpgradeState = cv.State
			}
			cvRead = &cv
		}
	}
	if began, ok := prow.UpgradeBegan(cvRead, tests, len(tests) > 0); ok {
		run.UpgradeStarted = &began
	}
	run.Overall = prowcrawl.OverallOf(run.Result, tests, run.UpgradeStarted)
	for _, p := range r.res.Networks.Cluster {
		run.ClusterNetworks = append(run.ClusterNetworks, p.String())
	}
	for _, p := range r.res.Networks.Service {
		run.ServiceNetworks = append(run.ServiceNetworks, p.String())
	}
	if scan != nil {
		r.res.Symptoms = r.classify(ctx, p, scan, tests, run.UpgradeState)
		r.res.Rules = r.opts.Rules.Versions()
	} else {
		r.res.NotClassified = true
	}
	r.disruptions(ctx, p)
	return nil
}

// json reads a small metadata object and parses it. A read error is
// returned (and recorded); a parse error too.
func (r *reading) json(ctx context.Context, f File, parse func([]byte) error) error {
	b, err := r.readAll(ctx, f, maxMetadata)
	if err != nil {
		kind := prowcrawl.ErrorRead
		if errors.Is(err, ErrTooLarge) {
			kind = prowcrawl.ErrorSize
		}
		r.fail(f.Name(), kind, err)
		return err
	}
	// A body that is no JSON at all (an HTML page answered in its place)
	// was not read: the run is read again.
	if err := prow.CheckBody(prow.BodyJSON, b); err != nil {
		err = fmt.Errorf("read %s%s: %w", r.run.Dir, f.Name(), err)
		r.fail(f.Name(), prowcrawl.ErrorRead, err)
		return err
	}
	if err := parse(b); err != nil {
		r.fail(f.Name(), prowcrawl.ErrorParse, err)
		return err
	}
	return nil
}

// readAll reads a whole file of at most limit bytes.
func (r *reading) readAll(ctx context.Context, f File, limit int64) ([]byte, error) {
	name := r.run.Dir + f.Name()
	rc, err := f.Open(ctx)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return ReadAtMost(rc, name, limit)
}

// ReadAtMost reads r, the bytes of name, to their end, when there are at
// most limit of them; more is ErrTooLarge. The errors name name.
func ReadAtMost(r io.Reader, name string, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("read %s: %w (%d bytes)", name, ErrTooLarge, limit)
	}
	return b, nil
}

// classify streams the files some rule reads, apart from the JUnit files
// (scanned while parsed), through the run's scan and returns what it found.
// A file that cannot be read makes the run partial; a malformed one is
// recorded, and what was matched before the problem still counts.
func (r *reading) classify(ctx context.Context, p plan, scan *classify.Scan, tests []prow.TestResult, upgradeState string) []prowcrawl.RunSymptom {
	for _, f := range p.scanned {
		name := r.run.Dir + f.Name()
		rc, err := f.Open(ctx)
		if err != nil {
			r.fail(f.Name(), prowcrawl.ErrorRead, err)
			continue
		}
		cr := &capReader{r: rc, left: r.opts.MaxObjectBytes}
		var in io.Reader = cr
		finish := func() {}
		if p.isDisruption[f.Name()] {
			in, finish = r.teeDisruption(f, p.disruptionSource, cr)
		}
		err = scan.FileAt(ctx, f.Name(), p.order[f.Name()], in)
		finish()
		rc.Close()
		switch {
		case cr.over:
			r.fail(f.Name(), prowcrawl.ErrorSize, fmt.Errorf("read %s: %w (%d bytes); matched on the first part only", name, ErrTooLarge, r.opts.MaxObjectBytes))
		case cr.err != nil:
			r.fail(f.Name(), prowcrawl.ErrorRead, fmt.Errorf("read %s: %w", name, cr.err))
		case err != nil:
			r.fail(f.Name(), prowcrawl.ErrorParse, fmt.Errorf("classify %s: %w", name, err))
		}
	}
	scan.SetRun(tests, upgradeState)
	for _, tp := range scan.OutOfRun() {
		r.fail(tp.File, "parse", fmt.Errorf("classify %s%s: evidence dated %s, which cannot be the run's (it started %s): counted undated",
			r.run.Dir, tp.File, tp.At.UTC().Format(time.RFC3339), r.res.Record.Run.StartedAt.UTC().Format(time.RFC3339)))
	}
	var out []prowcrawl.RunSymptom
	for _, m := range scan.Matches() {
		file := m.File
		if file != "" {
			file = r.run.Dir + file
		}
		out = append(out, prowcrawl.RunSymptom{SymptomID: m.Symptom, Hits: m.Hits, File: file, Line: m.Line, Excerpt: m.Excerpt, At: m.At, LastAt: m.LastAt,
			RuleHash: r.opts.Rules.RuleHash(m.Symptom)})
	}
	return out
}

// isJUnit matches JUnit files anywhere under artifacts/ (anywhere at all
// when loose): junit*.xml and *junit*.xml, as testgrid and Sippy find them.
func isJUnit(rel string, loose bool) bool {
	if !loose && !strings.HasPrefix(rel, "artifacts/") {
		return false
	}
	base := path.Base(rel)
	return strings.HasSuffix(base, ".xml") && strings.Contains(base, "junit")
}

// isConfigResources matches gather-extra's config-resources.json, which
// holds the cluster's network.config.openshift.io.
func isConfigResources(rel string, loose bool) bool {
	return (loose || strings.HasPrefix(rel, "artifacts/")) && path.Base(rel) == "config-resources.json"
}

// isClusterVersion matches clusterversion.json: gather-extra's in
// multi-stage jobs, the target directory's in template-era jobs.
func isClusterVersion(rel string, loose bool) bool {
	return (loose || strings.HasPrefix(rel, "artifacts/")) && path.Base(rel) == "clusterversion.json"
}

// IsJUnit says whether a run's file is one of its JUnit files.
func IsJUnit(rel string) bool { return isJUnit(rel, false) }

func isFinal(result prowcrawl.Result) bool {
	switch result {
	case prowcrawl.ResultSuccess, prowcrawl.ResultFailure, prowcrawl.ResultAborted, prowcrawl.ResultError:
		return true
	}
	return false
}

// resultOf maps finished.json to a run result.
func resultOf(result string, passed *bool) prowcrawl.Result {
	if r := prowcrawl.Result(prow.NormalizeResult(result)); isFinal(r) {
		return r
	}
	if passed != nil && *passed {
		return prowcrawl.ResultSuccess
	}
	if passed != nil {
		return prowcrawl.ResultFailure
	}
	return prowcrawl.ResultError
}
