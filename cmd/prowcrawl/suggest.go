package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/report"
	"github.com/openshift-eng/prowcrawl/suggest"
)

// suggestOptions are the flags of suggest.
type suggestOptions struct {
	DB, Cache, Rules   string
	Top                int
	Since, Until       string
	Jobs               []string
	Format             string
	MinRuns, Templates int
	Wide               bool
}

func runSuggest(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := suggestOptions{DB: "prowcrawl.db", Top: 10, Format: report.FormatTable}
	fs := pflag.NewFlagSet("suggest", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.DB, "db", o.DB, "SQLite database file")
	fs.StringVar(&o.Cache, "cache", o.Cache, "artifact cache directory whose logs are read too (default: prowcrawl-cache beside the database; '' for none)")
	fs.StringVar(&o.Rules, "rules", o.Rules, "the rules that explain a run: the built-in ones and this file's (default: the symptoms the database marks active)")
	fs.IntVar(&o.Top, "top", o.Top, "show at most N proposals, the strongest first (0: all)")
	fs.StringVar(&o.Since, "since", o.Since, "only runs started since T (a date, an RFC 3339 time, or a duration back from now: 14d)")
	fs.StringVar(&o.Until, "until", o.Until, "only runs started before T")
	fs.StringArrayVar(&o.Jobs, "job", o.Jobs, "only runs of jobs matching this regular expression; repeat to add more")
	fs.StringVar(&o.Format, "format", o.Format, "table, yaml (a rules file to edit and pass to reclassify --rules) or json")
	fs.BoolVar(&o.Wide, "wide", o.Wide, "table: whole titles and each detail on one line, however wide (by default it fits 120 columns, or the terminal's)")
	fs.IntVar(&o.MinRuns, "min-runs", 3, "the least failed runs no rule explains that a proposal must cover")
	fs.IntVar(&o.Templates, "max-templates", 200_000, "distinct normalised texts kept in memory at most; past it, the rarest are dropped")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: prowcrawl suggest [--top N] [--since T] [--until T] [--job REGEX]... [--format table|yaml|json] [--wide] [--db PATH] [--cache DIR] [--rules FILE]\n\n"+
			"Proposes symptoms for the failures no rule explains: what failed runs share that is rare in passed runs,\n"+
			"each as a rule to edit and try with 'prowcrawl reclassify --rules'.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	var logs *cache.Cache
	switch dir := o.Cache; {
	case !fs.Changed("cache"):
		dir = defaultCacheDir(o.DB)
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			break // no cache: the messages of failed tests only
		}
		fallthrough
	case dir != "":
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return usagef("--cache %s: no such directory", dir)
		}
		c, err := cache.Open(dir, 0)
		if err != nil {
			return usagef("--cache %s: %v", dir, err)
		}
		logs = c
	}
	if !slices.Contains(report.SuggestFormats, o.Format) {
		return usagef("--format %q: want %s", o.Format, strings.Join(report.SuggestFormats, ", "))
	}
	if o.Top < 0 || o.MinRuns < 1 || o.Templates < 1000 {
		return usagef("--top, --min-runs and --max-templates: want N >= 0, N >= 1 and N >= 1000")
	}
	now := time.Now()
	var q db.FailureQuery
	var err error
	if q.Since, err = parseTime(o.Since, now); err != nil {
		return usagef("--since: %v", err)
	}
	if q.Until, err = parseTime(o.Until, now); err != nil {
		return usagef("--until: %v", err)
	}
	var job *regexp.Regexp
	if len(o.Jobs) > 0 {
		if job, err = jobsRegexp(o.Jobs); err != nil {
			return err
		}
	}
	var eng *classify.Engine
	if o.Rules != "" {
		if eng, err = loadRules(o.Rules); err != nil {
			return err
		}
		q.Active = []string{}
		for _, r := range eng.Rules() {
			q.Active = append(q.Active, r.ID)
		}
	}
	store, err := openReader(ctx, o.DB, stderr)
	if err != nil {
		return err
	}
	defer store.Close()
	if eng == nil {
		if eng, err = activeBuiltins(ctx, store); err != nil {
			return err
		}
	}
	res, err := gatherSuggestions(ctx, store, logs, q, job, suggest.Options{MaxTemplates: o.Templates, MinRuns: o.MinRuns, Rules: eng}, o.Top)
	if err != nil {
		return err
	}
	return report.WriteSuggestions(stdout, res, o.Format, report.Options{Wide: o.Wide, Width: termWidth(stdout)})
}

// activeBuiltins are the built-in rules the database marks active (all of
// them when it has none yet): the rules whose matches tell suggest which
// failed tests' messages are explained. A user's rules that the database
// marks active are known only by their id; --rules names them.
func activeBuiltins(ctx context.Context, store *db.DB) (*classify.Engine, error) {
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

// gatherSuggestions feeds the failures of the stored runs to a collector:
// the messages of failed tests, run by run, then the error-like lines of
// the runs' cached logs, and asks it for proposals.
func gatherSuggestions(ctx context.Context, store *db.DB, logs *cache.Cache, q db.FailureQuery, job *regexp.Regexp, opts suggest.Options, top int) (suggest.Result, error) {
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
