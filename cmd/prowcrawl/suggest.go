package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/report"
	"github.com/openshift-eng/prowcrawl/search"
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
	fs.IntVar(&o.Templates, "max-templates", 200_000, "distinct normalised texts kept in memory at most; past it, the rarest are folded into one that begins with the same words, or left out and counted")
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
		if eng, err = search.ActiveBuiltins(ctx, store); err != nil {
			return err
		}
	}
	res, err := search.Suggest(ctx, store, logs, q, job, suggest.Options{MaxTemplates: o.Templates, MinRuns: o.MinRuns, Rules: eng}, o.Top)
	if err != nil {
		return err
	}
	return report.WriteSuggestions(stdout, res, o.Format, report.Options{Wide: o.Wide, Width: termWidth(stdout)})
}
