package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// analyzeOptions are the verdict thresholds, shared by analyze, crawl and
// backfill (which analyze at their end).
type analyzeOptions struct {
	opts analyze.Options
	now  string
}

func (a *analyzeOptions) addFlags(fs *pflag.FlagSet) {
	a.opts = analyze.DefaultOptions()
	fs.Float64Var(&a.opts.Alpha, "alpha", a.opts.Alpha, "significance level of the one-sided Fisher exact tests")
	fs.IntVar(&a.opts.MinHits, "min-hits", a.opts.MinHits, "sample runs that must show a symptom for a regression")
	fs.Float64Var(&a.opts.MinDelta, "min-delta", a.opts.MinDelta, "percentage points the sample rate must exceed the basis by for a regression")
	fs.IntVar(&a.opts.MinRuns, "min-runs", a.opts.MinRuns, "finished runs the sample and the basis each need for a verdict")
	fs.StringVar(&a.now, "now", a.now, "end of the last-7-days window (same forms as --since); default: the newest run's start")
}

func (a *analyzeOptions) options(now time.Time) (analyze.Options, error) {
	o := a.opts
	t, err := parseTime(a.now, now)
	if err != nil {
		return o, usagef("--now: %v", err)
	}
	o.Now = t
	return o, nil
}

// runAnalysis recomputes rates and verdicts and says so on one line.
func runAnalysis(ctx context.Context, store *db.DB, opts analyze.Options, stdout io.Writer) error {
	sum, err := analyze.Run(ctx, store, opts)
	if errors.Is(err, analyze.ErrOptions) {
		return usageError{err}
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, analyzeLine(sum))
	return nil
}

// analyzeLine is the line an analysis ends with. A regression counts once
// per scope, as `report --by SCOPE` shows it: one on an edge shows on its
// variants too.
func analyzeLine(sum analyze.Summary) string {
	scopes := []string{"edge", "variant", "job"}
	for s := range sum.RegressionsBy {
		if !slices.Contains(scopes, s) {
			scopes = append(scopes, s)
		}
	}
	slices.Sort(scopes[3:])
	by := make([]string, len(scopes))
	for i, s := range scopes {
		by[i] = fmt.Sprintf("%d by %s", sum.RegressionsBy[s], s)
	}
	return fmt.Sprintf("analyze: %d symptoms, %d verdicts; regressions: %s; in %s",
		sum.Symptoms, sum.Verdicts, strings.Join(by, ", "), sum.Duration.Round(time.Millisecond))
}

func runAnalyze(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	dbPath, wait := "prowcrawl.db", false
	var a analyzeOptions
	fs := pflag.NewFlagSet("analyze", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dbPath, "db", dbPath, "SQLite database file")
	fs.BoolVar(&wait, "wait", wait, "when a crawl is writing the database, wait for it to finish instead of failing")
	a.addFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: prowcrawl analyze [--db PATH] [thresholds]\n\nRecomputes symptom rates and verdicts (crawl and backfill do this at their end).\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	opts, err := a.options(time.Now())
	if err != nil {
		return err
	}
	store, closeDB, err := lockAndOpen(ctx, dbPath, wait)
	if err != nil {
		return err
	}
	defer closeDB()
	return runAnalysis(ctx, store, opts, stdout)
}
