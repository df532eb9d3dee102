package main

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/report"
	"github.com/openshift-eng/prowcrawl/suggest"
)

// suggestOptions are the flags of suggest.
type suggestOptions struct {
	DB, Cache, Rules   string
	Top                int
	Since, Until, Job  string
	Format             string
	MinRuns, Templates int
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
	fs.StringVar(&o.Job, "job", o.Job, "only runs of jobs matching this regular expression")
	fs.StringVar(&o.Format, "format", o.Format, "table, yaml (a rules file to edit and pass to reclassify --rules) or json")
	fs.IntVar(&o.MinRuns, "min-runs", 3, "the least failed runs no rule explains that a proposal must cover")
	fs.IntVar(&o.Templates, "max-templates", 200_000, "distinct normalised texts kept in memory at most; past it, the rarest are dropped")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: prowcrawl suggest [--top N] [--since T] [--until T] [--job REGEX] [--format table|yaml|json] [--db PATH] [--cache DIR] [--rules FILE]\n\n"+
			"Proposes symptoms for the failures no rule explains: what failed runs share that is rare in passed runs,\n"+
			"each as a rule to edit and try with 'prowcrawl reclassify --rules'.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
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
	if o.Job != "" {
		if job, err = regexp.Compile(o.Job); err != nil {
			return usagef("--job %q is not a valid regular expression: %v", o.Job, err)
		}
	}
	if o.Rules != "" {
		eng, err := loadRules(o.Rules)
		if err != nil {
			return err
		}
		q.Active = []string{}
		for _, r := range eng.Rules() {
			q.Active = append(q.Active, r.ID)
		}
	}
	store, err := openExisting(ctx, o.DB, stderr)
	if err != nil {
		return err
	}
	defer store.Close()
	res, err := gatherSuggestions(ctx, store, q, job, suggest.Options{MaxTemplates: o.Templates, MinRuns: o.MinRuns}, o.Top)
	if err != nil {
		return err
	}
	return report.WriteSuggestions(stdout, res, o.Format)
}

// gatherSuggestions feeds the failures of the stored runs to a collector:
// the messages of failed tests, run by run, and asks it for proposals.
func gatherSuggestions(ctx context.Context, store *db.DB, q db.FailureQuery, job *regexp.Regexp, opts suggest.Options, top int) (suggest.Result, error) {
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
	for _, r := range stored {
		if job != nil && !job.MatchString(r.Job) {
			continue
		}
		failed := r.Result != "success"
		index[key{r.Job, r.BuildID}] = len(runs)
		runs = append(runs, suggest.Run{Job: r.Job, BuildID: r.BuildID, Edge: r.Edge, Failed: failed, Explained: failed && r.Explained})
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
	return col.Propose(top)
}
