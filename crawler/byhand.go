package crawler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/openshift-eng/prowcrawl/artifact"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
)

// Finding is what classification found in a run directory or a file that
// someone downloaded to triage by hand.
type Finding struct {
	Path     string
	Started  time.Time // zero when the run's started.json is not there
	Result   string    // "" when finished.json is not there
	Matches  []db.RunSymptom
	Problems []db.RunError // artifacts that could not be read or parsed
}

// ClassifyPath classifies a downloaded run directory (laid out as in the
// bucket, with whatever subset of its artifacts was downloaded) or a single
// file. A directory is read as a crawl reads a run: each rule sees the
// files its globs name. A single file is given to every rule, since its
// place in the run is unknown.
func ClassifyPath(ctx context.Context, rules []classify.Rule, path string) (Finding, error) {
	f := Finding{Path: path}
	st, err := os.Stat(path)
	if err != nil {
		return f, err
	}
	dir, only := path, ""
	if !st.IsDir() {
		dir, only = filepath.Dir(path), filepath.Base(path)
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
	src, err := NewDir(dir)
	if err != nil {
		return f, err
	}
	defer src.Close()
	c := New(src, nil, Config{Rules: eng})
	var objs []Entry
	if only != "" {
		objs = []Entry{{Name: only, Size: st.Size()}}
	} else if objs, err = src.List(ctx, Query{}); err != nil {
		return f, err
	}
	var count counter
	res, err := artifact.Read(ctx, c.runOf("", objs, &count), artifact.Options{
		Rules: eng, Triage: true, Start: st.ModTime().UTC(), Loose: only != "",
	})
	if err != nil && !errors.Is(err, ErrNotExist) {
		return f, fmt.Errorf("classify %s: %w", path, err)
	}
	f.Started, f.Result = res.Run.StartedAt, res.Run.Result
	if f.Result == "pending" {
		f.Result = ""
	}
	f.Matches, f.Problems = res.Symptoms, res.Errors
	return f, ctx.Err()
}
