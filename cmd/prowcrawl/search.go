package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/safe"
	"github.com/openshift-eng/prowcrawl/report"
	"github.com/openshift-eng/prowcrawl/search"
)

// storedRunOptions select stored runs, as reclassify and search do.
type storedRunOptions struct {
	Since, Until string
	Jobs         []string
}

func (o *storedRunOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Since, "since", o.Since, "only runs started at or after T: a date (2026-11-01), an RFC 3339 time, or a duration back from now (72h, 14d)")
	fs.StringVar(&o.Until, "until", o.Until, "only runs started before T (same forms as --since)")
	fs.StringArrayVar(&o.Jobs, "job", o.Jobs, "only jobs matching this regular expression; repeat to add more (default: every stored job)")
}

// selection is what storedRunOptions select, checked.
type selection struct {
	filter db.RunFilter
	jobs   []*regexp.Regexp
}

// parse checks the options.
func (o storedRunOptions) parse(now time.Time) (selection, error) {
	var sel selection
	var err error
	if sel.filter.Since, err = parseTime(o.Since, now); err != nil {
		return sel, usagef("--since: %v", err)
	}
	if sel.filter.Until, err = parseTime(o.Until, now); err != nil {
		return sel, usagef("--until: %v", err)
	}
	if !sel.filter.Since.IsZero() && !sel.filter.Until.IsZero() && !sel.filter.Since.Before(sel.filter.Until) {
		return sel, usagef("--since %s is not before --until %s", o.Since, o.Until)
	}
	for _, j := range o.Jobs {
		re, err := regexp.Compile(j)
		if err != nil {
			return sel, usagef("--job %q is not a valid regular expression: %v", j, err)
		}
		sel.jobs = append(sel.jobs, re)
	}
	return sel, nil
}

// runs lists the stored runs selected.
func (sel selection) runs(ctx context.Context, store *db.DB) ([]db.StoredRun, error) {
	all, err := store.StoredRuns(ctx, sel.filter)
	if err != nil || len(sel.jobs) == 0 {
		return all, err
	}
	var out []db.StoredRun
	for _, r := range all {
		for _, re := range sel.jobs {
			if re.MatchString(r.Job) {
				out = append(out, r)
				break
			}
		}
	}
	return out, nil
}

// slowPattern is the rate of matching (bytes a second, on realistic log
// lines) below which search warns that a pattern is slow.
const slowPattern = 4 << 20

func runSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	dbPath, format, files, wide := "prowcrawl.db", "table", "", false
	var sel storedRunOptions
	var co cacheOptions
	opts := search.Options{MaxLines: 10, MaxTime: 2 * time.Minute}
	fs := pflag.NewFlagSet("search", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dbPath, "db", dbPath, "SQLite database file")
	co.addFlags(fs, false)
	sel.addFlags(fs)
	fs.StringVar(&files, "files", files, "only cached files whose path below the run's directory matches this glob (the rules' syntax: **/build-log.txt)")
	fs.StringVar(&format, "format", format, "output format: table or json")
	fs.IntVar(&opts.MaxLines, "lines", opts.MaxLines, "matching lines shown per run (all are counted)")
	fs.DurationVar(&opts.MaxTime, "max-time", opts.MaxTime, "stop searching after this long and show what was found (0: no bound)")
	fs.BoolVar(&wide, "wide", wide, "table: each match on one line and whole job names, however wide (by default it fits 120 columns, or the terminal's)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: prowcrawl search REGEX [--since T] [--until T] [--job REGEX]... [--files GLOB] [--format table|json] [--wide]\n\n"+
			"Finds the lines of the cached files of stored runs that match REGEX (RE2 syntax), lists them per run with\n"+
			"its link, and shows per job and edge the share of runs, of failed and of passed runs that match.\n"+
			"It reads the artifact cache only, never the bucket.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("search takes one regular expression, got %d arguments", fs.NArg())
	}
	opts.Pattern = fs.Arg(0)
	re, err := search.Compile(opts.Pattern)
	if err != nil {
		return usagef("%q is not a valid regular expression: %v", opts.Pattern, err)
	}
	if opts.MaxTime < 0 {
		return usagef("--max-time %s: want 0 (no bound) or more", opts.MaxTime)
	}
	// A pattern whose cost grows with the text (a counted repeat of a
	// large class) is said to be one before it runs for minutes.
	if rate := search.Rate(re); rate < slowPattern {
		fmt.Fprintf(stderr, "prowcrawl: `%s` matches about %.2f MiB of log text a second (a plain pattern: hundreds); the search stops after --max-time %s with what it found\n",
			safe.Line(opts.Pattern), rate/(1<<20), opts.MaxTime)
	}
	if format != "table" && format != "json" {
		return usagef("--format %q: want table or json", format)
	}
	if opts.MaxLines < 1 {
		return usagef("--lines %d: want at least 1", opts.MaxLines)
	}
	picked, err := sel.parse(time.Now())
	if err != nil {
		return err
	}
	if files != "" {
		re, err := classify.CompileGlob(files)
		if err != nil {
			return usagef("--files: %v", err)
		}
		opts.Files = re
	}
	store, err := openReader(ctx, dbPath, stderr)
	if err != nil {
		return err
	}
	defer store.Close()
	cc, err := co.openExisting(dbPath)
	if err != nil {
		return err
	}
	runs, err := picked.runs(ctx, store)
	if err != nil {
		return err
	}
	res, err := search.Search(ctx, cc, runs, opts)
	if err != nil {
		return err
	}
	if err := report.WriteSearch(stdout, res, format, report.Options{Wide: wide, Width: termWidth(stdout)}); err != nil {
		return err
	}
	if res.NotSearched > 0 {
		return fmt.Errorf("search stopped after --max-time %s: %d of %d runs not searched; raise --max-time or simplify the pattern", opts.MaxTime, res.NotSearched, len(runs))
	}
	return nil
}
