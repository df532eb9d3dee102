package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/report"
)

// reportOptions are the flags of report.
type reportOptions struct {
	DB      string
	By      string
	Format  string
	Symptom string
	Jobs    []string
	Since   string
	Until   string
	Out     string
	Assess  string
	Changes bool
	Wide    bool
	All     bool
	// MinRuns is the analysis's threshold of counted runs for a verdict,
	// and the table's for showing a row; minRunsSet says it was given.
	MinRuns    int
	minRunsSet bool
}

func runReport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o := reportOptions{DB: "prowcrawl.db", By: db.ScopeEdge, Format: report.FormatTable, MinRuns: analyze.DefaultOptions().MinRuns}
	fs := pflag.NewFlagSet("report", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.DB, "db", o.DB, "SQLite database file")
	fs.StringVar(&o.By, "by", o.By, "rows per edge, job, variant or presubmit (edges and variants are compared with the release before, jobs and presubmits with the weeks before)")
	fs.StringVar(&o.Format, "format", o.Format, "table, csv, json, markdown or html (with --assess: table, json, markdown or blocked-edges; with --changes: table, markdown or json)")
	fs.StringVar(&o.Symptom, "symptom", o.Symptom, "only this symptom id")
	fs.StringArrayVar(&o.Jobs, "job", o.Jobs, "count only the runs of jobs matching this regular expression; repeat to add more")
	fs.StringVar(&o.Since, "since", o.Since, "count only runs started since T: every number is computed for that window (a date, an RFC 3339 time, or a duration back from now: 7d)")
	fs.StringVar(&o.Until, "until", o.Until, "count only runs started before T (same forms as --since)")
	fs.StringVar(&o.Out, "out", o.Out, "write to FILE instead of standard output")
	fs.StringVar(&o.Assess, "assess", o.Assess, "answer the UpgradeBlocker questions for this symptom id")
	fs.IntVar(&o.MinRuns, "min-runs", o.MinRuns, "counted runs the sample and the basis each need for a verdict; the table and Markdown hide the rows with fewer in the sample")
	fs.BoolVar(&o.Wide, "wide", o.Wide, "table (and --changes): every column, whole names and links on the rows, however wide; by default it fits 120 columns, or the terminal's")
	fs.BoolVar(&o.All, "all", o.All, "table and markdown: every row, also those with too few runs and those no run shows")
	fs.BoolVar(&o.Changes, "changes", o.Changes, "list the regressions opened, closed and still open since the previous analysis (or --since T)")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: prowcrawl report [--db PATH] [--by edge|job|variant|presubmit] [--format table|csv|json|markdown|html] [--symptom ID] [--job REGEX]... [--since T] [--until T] [--min-runs N] [--out FILE]\n"+
			"       prowcrawl report --assess SYMPTOM [--format table|json|markdown|blocked-edges] [--job REGEX]... [--since T] [--until T] [--min-runs N] [--out FILE]\n"+
			"       prowcrawl report --changes [--since T] [--format table|markdown|json] [--out FILE]\n\n"+
			"Shows each symptom's rate and verdict (regressions first), or with --assess, whether one symptom blocks an upgrade.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	o.minRunsSet = fs.Changed("min-runs")
	var q analyze.TableQuery
	var since time.Time
	var err error
	if o.Changes {
		since, err = o.changesQuery(time.Now())
	} else {
		q, err = o.query(time.Now())
	}
	if err != nil {
		return err
	}
	if o.Out != "" {
		if fi, err := os.Stat(filepath.Dir(o.Out)); err != nil || !fi.IsDir() {
			return usagef("--out %s: directory %s does not exist", o.Out, filepath.Dir(o.Out))
		}
	}
	store, err := openReader(ctx, o.DB, stderr)
	if err != nil {
		return err
	}
	defer store.Close()

	render := func(w io.Writer, color bool) error {
		if o.Changes {
			c, err := store.RegressionChanges(ctx, since)
			if err != nil {
				return err
			}
			onsets, err := analyze.RegressionOnsets(ctx, store, append(c.Opened, c.Reopened...))
			if err != nil {
				return err
			}
			return report.WriteChangesOnsets(w, c, onsets, o.Format, time.Now(), report.Options{Wide: o.Wide, Width: termWidth(w)})
		}
		if o.Assess != "" {
			in, err := analyze.LoadSymptom(ctx, store, q.Symptom, q.Selection)
			if err != nil {
				return loadError(err)
			}
			return report.WriteAssessment(w, assess.Assess(in), o.Format)
		}
		data, err := analyze.LoadTable(ctx, store, q)
		if err != nil {
			return loadError(err)
		}
		if o.Format == report.FormatHTML {
			// The page answers the four questions for each symptom with
			// an open regression.
			var answers []assess.Assessment
			for _, r := range data.Open {
				if slices.ContainsFunc(answers, func(a assess.Assessment) bool { return a.SymptomID == r.Symptom }) {
					continue
				}
				in, err := analyze.LoadSymptom(ctx, store, r.Symptom, q.Selection)
				if err != nil {
					return loadError(err)
				}
				answers = append(answers, assess.Assess(in))
			}
			return report.WriteHTML(w, data, answers...)
		}
		return report.Write(w, data, o.Format, report.Options{Color: color, Wide: o.Wide, All: o.All, Width: termWidth(w)})
	}
	if o.Out == "" {
		return render(stdout, colorful(stdout))
	}
	// writeFile (with export's) leaves no half a report behind.
	return writeFile(o.Out, func(w io.Writer) error { return render(w, false) })
}

// query validates the options and turns them into an analyze.TableQuery.
func (o reportOptions) query(now time.Time) (analyze.TableQuery, error) {
	q := analyze.TableQuery{By: o.By, Symptom: o.Symptom, Selection: analyze.Selection{Options: analyze.DefaultOptions()}}
	if o.MinRuns < 1 {
		return q, usagef("--min-runs %d: a verdict needs at least 1 counted run", o.MinRuns)
	}
	q.Options.MinRuns = o.MinRuns
	if !slices.Contains([]string{db.ScopeEdge, db.ScopeJob, db.ScopeVariant, db.ScopePresubmit}, o.By) {
		return q, usagef("--by %q: want edge, job, variant or presubmit", o.By)
	}
	formats := report.Formats
	if o.Assess != "" {
		formats = report.AssessFormats
		if o.Symptom != "" && o.Symptom != o.Assess {
			return q, usagef("--assess %s and --symptom %s name different symptoms", o.Assess, o.Symptom)
		}
		q.Symptom = o.Assess
	}
	if !slices.Contains(formats, o.Format) {
		what := "--format"
		if o.Assess != "" {
			what = "--format with --assess"
		}
		return q, usagef("%s %q: want %s", what, o.Format, strings.Join(formats, ", "))
	}
	q.Trend = o.Format == report.FormatHTML
	re, err := jobsRegexp(o.Jobs)
	if err != nil {
		return q, err
	}
	q.Job = re
	since, err := parseTime(o.Since, now)
	if err != nil {
		return q, usagef("--since: %v", err)
	}
	q.Since = since
	until, err := parseTime(o.Until, now)
	if err != nil {
		return q, usagef("--until: %v", err)
	}
	q.Until = until
	if !since.IsZero() && !until.IsZero() && !until.After(since) {
		return q, usagef("--until %s is not after --since %s", o.Until, o.Since)
	}
	return q, nil
}

// changesQuery validates the options of report --changes.
func (o reportOptions) changesQuery(now time.Time) (time.Time, error) {
	if o.Assess != "" || o.Symptom != "" || len(o.Jobs) > 0 || o.minRunsSet {
		return time.Time{}, usagef("--changes takes no --assess, --symptom, --job or --min-runs")
	}
	if !slices.Contains(report.ChangesFormats, o.Format) {
		return time.Time{}, usagef("--format with --changes %q: want %s", o.Format, strings.Join(report.ChangesFormats, ", "))
	}
	since, err := parseTime(o.Since, now)
	if err != nil {
		return time.Time{}, usagef("--since: %v", err)
	}
	return since, nil
}

// loadError makes a symptom or job the database does not know a usage error.
func loadError(err error) error {
	if errors.Is(err, analyze.ErrUnknownSymptom) || errors.Is(err, analyze.ErrNoJob) {
		return usageError{err}
	}
	return err
}

// colorful says whether w is a terminal that wants colour: never a pipe or
// a file, and not when NO_COLOR is set.
// termWidth is the columns of the terminal w is, or 0 (report.DefaultWidth)
// when it is none: a file or a pipe gets the same table on every machine.
func termWidth(w io.Writer) int {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil && cols >= 60 {
			return cols
		}
	}
	return 0
}

func colorful(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && os.Getenv("NO_COLOR") == "" && term.IsTerminal(int(f.Fd()))
}
