package search

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/suggest"
)

// ActiveBuiltins are the built-in rules the database marks active (all of
// them when it has none yet): the rules whose matches tell suggest which
// failed tests' messages are explained. A user's rules that the database
// marks active are known only by their id; --rules names them.
func ActiveBuiltins(ctx context.Context, store *db.DB) (*classify.Engine, error) {
	syms, err := store.Symptoms(ctx)
	if err != nil {
		return nil, err
	}
	off := make(map[string]bool)
	for _, s := range syms {
		off[s.ID] = !s.Active
	}
	rules := classify.Builtin()
	for i := range rules {
		rules[i].Disabled = off[rules[i].ID]
	}
	eng, err := classify.NewEngine(rules)
	if err != nil {
		return nil, fmt.Errorf("built-in rules: %w", err)
	}
	return eng, nil
}

// Suggest feeds the failures of the stored runs to a collector:
// the messages of failed tests, run by run, then the error-like lines of
// the runs' cached logs (when logs is not nil), and asks it for at most top
// proposals (0: all). job, when not nil, keeps the runs of the jobs it
// matches.
func Suggest(ctx context.Context, store *db.DB, logs *cache.Cache, q db.FailureQuery, job *regexp.Regexp, opts suggest.Options, top int) (suggest.Result, error) {
	stored, err := store.FailureRuns(ctx, q)
	if err != nil {
		return suggest.Result{}, err
	}
	type key struct {
		job string
		id  int64
	}
	index := make(map[key]int, len(stored))
	runs := make([]suggest.Run, 0, len(stored))
	var keys []cache.Key // of runs, by index
	for _, r := range stored {
		if job != nil && !job.MatchString(r.Job) {
			continue
		}
		failed := r.Result != prowcrawl.ResultSuccess
		index[key{r.Job, r.BuildID}] = len(runs)
		runs = append(runs, suggest.Run{Job: r.Job, BuildID: r.BuildID, Edge: r.Edge, Failed: failed, Explained: failed && r.Explained})
		keys = append(keys, cache.Key{Bucket: r.Bucket, Path: r.Path})
	}
	col := suggest.New(runs, opts)
	for t, err := range store.FailedTests(ctx, q) {
		if err != nil {
			return suggest.Result{}, err
		}
		i, ok := index[key{t.Job, t.BuildID}]
		if !ok {
			continue
		}
		col.Add(suggest.Text{Run: i, Kind: suggest.KindJUnit, Test: t.Name, Text: t.Message})
	}
	if logs != nil {
		for i, k := range keys {
			if err := ctx.Err(); err != nil {
				return suggest.Result{}, err
			}
			if err := cachedLogLines(ctx, logs, k, func(file, line string) {
				col.Add(suggest.Text{Run: i, Kind: suggest.KindLog, File: file, Text: line})
			}); err != nil {
				return suggest.Result{}, err
			}
		}
	}
	return col.Propose(top)
}

// logFile reports whether a cached object is a log whose lines are failure
// texts: build logs and pod logs, not JUnit (whose messages the database
// holds) nor JSON.
func logFile(name string) bool {
	name = strings.TrimSuffix(name, ".gz")
	return strings.HasSuffix(name, ".log") || strings.HasSuffix(name, "build-log.txt")
}

// cachedLogLines calls add for each error-like line of the cached logs of
// a run. A run the cache does not hold, holds damaged or cannot name has
// none.
func cachedLogLines(ctx context.Context, c *cache.Cache, k cache.Key, add func(file, line string)) error {
	run, err := c.Open(k)
	if err != nil {
		// Not held, damaged, or a name the cache cannot hold (a ':' or a
		// control character in a job's name): the run has no cached
		// lines, as search leaves it out; one run never fails the whole
		// command.
		return ctx.Err()
	}
	defer run.Close()
	files := run.Artifact()
	for _, f := range files.Files {
		rc, err := f.Open(ctx)
		if errors.Is(err, cache.ErrNotCached) && !errors.Is(err, cache.ErrDamaged) {
			continue // listed, not read by the crawl
		}
		if err != nil {
			return nil // damaged: what was read so far stands
		}
		err = logLines(f.Name(), rc, add)
		rc.Close()
		if err != nil {
			return nil // damaged: what was read so far stands
		}
	}
	return nil
}

// logLines calls add for each error-like line of the file name whose
// content is r, when it is a log (logFile); any other file is read to its
// end, so that damage in it is found. It returns the error of a read.
func logLines(name string, r io.Reader, add func(file, line string)) error {
	if !logFile(name) {
		_, err := io.Copy(io.Discard, r)
		return err
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		// A line past the buffer is taken by its first 64 KiB, as the
		// classifier matches it; the rest is skipped.
		chunk, err := br.ReadSlice('\n')
		line := string(chunk)
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if line != "" && suggest.ErrorLike(line) {
			add(name, strings.TrimRight(line, "\r\n"))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
