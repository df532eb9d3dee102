package crawler

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/artifact"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/mirror"
	"github.com/openshift-eng/prowcrawl/prow"
)

// Finding is what classification found in a run (downloaded, in a bucket,
// or named by its Prow link) or in a file that someone downloaded to triage
// by hand.
type Finding struct {
	Path     string    // what was classified, as given (a run of a directory of runs: its directory)
	Started  time.Time // zero when the run's started.json is not there
	Result   string    // "" when finished.json is not there
	Matches  []prowcrawl.RunSymptom
	Problems []prowcrawl.RunError // artifacts that could not be read or parsed
}

// ErrNotRun is matched (errors.Is) by the error of Classify for a target
// that is not a run, a directory of runs or a file: its message says what
// it is instead, in one sentence.
var ErrNotRun = errors.New("not a run")

type notRunError struct{ msg string }

func (e notRunError) Error() string        { return e.msg }
func (e notRunError) Is(target error) bool { return target == ErrNotRun }

func notRun(format string, args ...any) error { return notRunError{fmt.Sprintf(format, args...)} }

// Classify classifies what target names:
//
//   - a Prow view link (https://prow.ci.openshift.org/view/gs/BUCKET/PATH)
//     or a run in a bucket (gs://BUCKET/PATH): the run is listed and the
//     objects the rules and the parsers read are downloaded, into memory,
//     by the same code as a crawl's, through opts;
//   - a run directory downloaded from the bucket (its layout kept below
//     it, with whatever subset of its artifacts was downloaded);
//   - a directory of run directories (a job's directory, or what
//     `gsutil cp -r` makes of a run when its target exists): each run in
//     it is classified;
//   - a single file of any kind: JUnit, clusterversion.json, events,
//     disruption or a log, given to every rule, since its place in a run
//     is unknown.
//
// Anything else (an empty directory, a bucket's directory of jobs, a job
// in a bucket, a directory without run files) gives an error matching
// ErrNotRun.
func Classify(ctx context.Context, rules []classify.Rule, target string, opts gcs.Options) ([]Finding, error) {
	if bucket, dir, ok, err := remoteRun(target); err != nil {
		return nil, err
	} else if ok {
		eng, err := classify.NewEngine(rules)
		if err != nil {
			return nil, err
		}
		f, err := classifyRemote(ctx, eng, bucket, dir, target, opts)
		if err != nil {
			return nil, err
		}
		return []Finding{f}, nil
	}
	st, err := os.Stat(target)
	if err != nil {
		return nil, notRun("%s: %v", target, errors.Unwrap(err))
	}
	if !st.IsDir() {
		f, err := ClassifyPath(ctx, rules, target)
		return []Finding{f}, err
	}
	ents, err := os.ReadDir(target)
	if err != nil {
		return nil, err
	}
	if len(ents) == 0 {
		return nil, notRun("%s is an empty directory, not a run", target)
	}
	if isRunDir(ents) {
		f, err := ClassifyPath(ctx, rules, target)
		return []Finding{f}, err
	}
	// A directory of runs: each is classified.
	var out []Finding
	var below bool // runs two levels down: a bucket's or a logs/ directory
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(target, e.Name())
		kids, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		if !isRunDir(kids) {
			below = below || hasRunDir(sub, kids, 2)
			continue
		}
		f, err := ClassifyPath(ctx, rules, sub)
		if err != nil {
			return out, err
		}
		out = append(out, f)
	}
	switch {
	case len(out) > 0:
		return out, nil
	case below:
		return nil, notRun("%s holds the runs of several jobs (a bucket's or a logs directory), not a run: name a run's directory or a job's", target)
	}
	return nil, notRun("%s is not a run: it has no started.json, finished.json, prowjob.json, build-log.txt or artifacts directory, nor a run directory in it", target)
}

// runMarkers are the names at the top of a run directory.
func isRunMarker(name string, dir bool) bool {
	if dir {
		return name == "artifacts"
	}
	switch name {
	case "started.json", "finished.json", "prowjob.json", "build-log.txt":
		return true
	}
	return false
}

func isRunDir(ents []os.DirEntry) bool {
	for _, e := range ents {
		if isRunMarker(e.Name(), e.IsDir()) {
			return true
		}
	}
	return false
}

// hasRunDir says whether a directory up to depth levels below dir (whose
// entries are ents) is a run, looking at a few of them on each level.
func hasRunDir(dir string, ents []os.DirEntry, depth int) bool {
	n := 0
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		if n++; n > 20 {
			break
		}
		sub := filepath.Join(dir, e.Name())
		kids, err := os.ReadDir(sub)
		if err != nil {
			continue
		}
		if isRunDir(kids) || (depth > 1 && hasRunDir(sub, kids, depth-1)) {
			return true
		}
	}
	return false
}

// remoteRun parses a Prow view link or a gs:// URL into a bucket and the
// object path it names; ok is false for anything else (a local path).
func remoteRun(target string) (bucket, dir string, ok bool, err error) {
	rest, isGS := strings.CutPrefix(target, "gs://")
	if !isGS {
		if !strings.HasPrefix(target, "https://") && !strings.HasPrefix(target, "http://") {
			return "", "", false, nil
		}
		u, err := url.Parse(target)
		if err != nil {
			return "", "", false, notRun("%s is not a Prow link: %v", target, err)
		}
		var found bool
		for _, view := range []string{"/view/gs/", "/view/gcs/"} {
			if i := strings.Index(u.Path, view); i >= 0 {
				rest, found = u.Path[i+len(view):], true
				break
			}
		}
		if !found {
			return "", "", false, notRun("%s is not a Prow link to a run: want https://prow.ci.openshift.org/view/gs/BUCKET/PATH", target)
		}
	}
	bucket, dir, _ = strings.Cut(rest, "/")
	dir = strings.Trim(dir, "/")
	if bucket == "" || dir == "" {
		return "", "", false, notRun("%s names no run: want gs://BUCKET/PATH or a Prow link to a run", target)
	}
	return bucket, dir, true, nil
}

// ReadRemote reads the run a Prow link or a gs:// URL names as Classify
// does, into memory, and returns its record: the run (versions, result,
// times), its job, tests and symptoms. Nothing is stored.
func ReadRemote(ctx context.Context, rules []classify.Rule, target string, opts gcs.Options) (prowcrawl.Record, error) {
	bucket, dir, ok, err := remoteRun(target)
	if err != nil {
		return prowcrawl.Record{}, err
	}
	if !ok {
		return prowcrawl.Record{}, notRun("%s is neither a Prow link nor a gs:// URL of a run", target)
	}
	eng, err := classify.NewEngine(rules)
	if err != nil {
		return prowcrawl.Record{}, err
	}
	return readRemote(ctx, eng, bucket, dir, target, opts)
}

// classifyRemote reads the run under dir in bucket as a crawl does, into
// memory, and classifies it.
func classifyRemote(ctx context.Context, eng *classify.Engine, bucket, dir, shown string, opts gcs.Options) (Finding, error) {
	f := Finding{Path: shown}
	rec, err := readRemote(ctx, eng, bucket, dir, shown, opts)
	if err != nil {
		return f, err
	}
	run := rec.Run
	f.Started, f.Result = run.StartedAt, string(run.Result)
	if run.Result == prowcrawl.ResultPending {
		f.Result = ""
	}
	f.Matches, f.Problems = rec.Symptoms, rec.Errors
	return f, nil
}

// readRemote reads the run under dir in bucket as a crawl does, into
// memory: its record.
func readRemote(ctx context.Context, eng *classify.Engine, bucket, dir, shown string, opts gcs.Options) (prowcrawl.Record, error) {
	src, err := gcs.New(ctx, "gs://"+bucket, opts)
	if err != nil {
		return prowcrawl.Record{}, err
	}
	defer src.Close()
	c := New(src, nil, Config{Rules: eng})
	top, err := c.src.List(ctx, prowcrawl.Query{Prefix: dir + "/", Delimiter: "/"})
	if err != nil {
		return prowcrawl.Record{}, fmt.Errorf("list %s: %w", shown, err)
	}
	if len(top) == 0 {
		return prowcrawl.Record{}, notRun("%s holds no objects: no run is there", shown)
	}
	var isRun, builds bool
	for _, e := range top {
		name := strings.TrimSuffix(path.Base(e.Name), "/")
		if isRunMarker(name, e.Prefix) {
			isRun = true
		}
		if _, err := strconv.ParseInt(name, 10, 64); err == nil && e.Prefix {
			builds = true
		}
	}
	if !isRun {
		if builds {
			return prowcrawl.Record{}, notRun("%s is a job's directory, not a run: name one of its runs, as %s/BUILD_ID", shown, strings.TrimSuffix(shown, "/"))
		}
		return prowcrawl.Record{}, notRun("%s is not a run: it has no started.json, finished.json, prowjob.json, build-log.txt or artifacts/", shown)
	}
	t := task{path: dir, presubmit: strings.HasPrefix(dir, "pr-logs/")}
	if rp, ok := prow.ParseRunPath(dir); ok {
		t.job, t.id = rp.Job, rp.BuildID
	} else {
		t.job = path.Base(path.Dir(dir))
		t.id, _ = strconv.ParseInt(path.Base(dir), 10, 64)
	}
	ropts := c.readOptions(t)
	ropts.Triage = true // a run still going is read all the same
	res := c.fetchWith(ctx, t, ropts)
	if err := ctx.Err(); err != nil {
		return prowcrawl.Record{}, err
	}
	if res.rec.Run.FetchStatus == prowcrawl.FetchError {
		return prowcrawl.Record{}, fmt.Errorf("read %s: %s", shown, res.rec.Run.FetchError)
	}
	return *res.rec, nil
}

// ClassifyPath classifies a downloaded run directory (laid out as in the
// bucket, with whatever subset of its artifacts was downloaded) or a single
// file. A directory is read as a crawl reads a run: each rule sees the
// files its globs name. A single file is given to every rule, since its
// place in the run is unknown, and a JUnit or clusterversion.json file is
// read as one wherever it was.
func ClassifyPath(ctx context.Context, rules []classify.Rule, target string) (Finding, error) {
	f := Finding{Path: target}
	st, err := os.Stat(target)
	if err != nil {
		return f, err
	}
	dir, only := target, ""
	if !st.IsDir() {
		dir, only = filepath.Dir(target), filepath.Base(target)
		anyFile := make([]classify.Rule, len(rules))
		for i, r := range rules {
			r.Files = []string{"**"}
			anyFile[i] = r
		}
		rules = anyFile
	}
	eng, err := classify.NewEngine(rules)
	if err != nil {
		return f, err
	}
	src, err := mirror.New(dir)
	if err != nil {
		return f, err
	}
	defer src.Close()
	c := New(src, nil, Config{Rules: eng})
	var objs []prowcrawl.Entry
	if only != "" {
		objs = []prowcrawl.Entry{{Name: only, Size: st.Size()}}
	} else if objs, err = src.List(ctx, prowcrawl.Query{}); err != nil {
		return f, err
	}
	var count counter
	opts := artifact.Options{Rules: eng, Triage: true, Start: st.ModTime().UTC(), Loose: only != ""}
	if only == "" {
		// A run directory downloaded with the bucket's layout sits in its
		// job's directory, which names the job's topology.
		if abs, err := filepath.Abs(target); err == nil {
			opts.Topology = prow.ParseJobName(filepath.Base(filepath.Dir(abs))).Topology
		}
	}
	res, err := artifact.Read(ctx, c.runOf("", objs, &count), opts)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return f, fmt.Errorf("classify %s: %w", target, err)
	}
	f.Started, f.Result = res.Run.StartedAt, string(res.Run.Result)
	if res.Run.Result == prowcrawl.ResultPending {
		f.Result = ""
	}
	f.Matches, f.Problems = res.Symptoms, append(res.Errors, unreadable(objs)...)
	return f, ctx.Err()
}
