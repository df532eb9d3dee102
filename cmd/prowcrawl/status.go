package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/db"
)

func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	dbPath := "prowcrawl.db"
	runs := 0
	fs := pflag.NewFlagSet("status", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dbPath, "db", dbPath, "SQLite database file")
	fs.IntVar(&runs, "runs", runs, "also list the newest N runs that show symptoms")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: prowcrawl status [--db PATH] [--runs N]\n\nShows the runs stored per job, the symptoms they show, and the last crawl.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	store, err := openExisting(ctx, dbPath, stderr)
	if err != nil {
		return err
	}
	defer store.Close()
	jobs, err := store.Status(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tEDGE\tPLATFORM\tRUNS\tSUCCESS\tFAILURE\tABORTED\tERROR\tPENDING\tFLAKES\tNEWEST RUN")
	for _, j := range jobs {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", j.Job, edge(j), dash(j.Platform+" "+j.Network),
			j.Runs, j.Success, j.Failure, j.Aborted, j.Error, j.Pending, j.Flakes, j.Newest.Format(time.DateOnly))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	counts, err := store.SymptomCounts(ctx)
	if err != nil {
		return err
	}
	if len(counts) > 0 {
		fmt.Fprintln(stdout, "\nSymptoms (runs showing each, of which failed):")
		tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "JOB\tSYMPTOM\tRUNS\tFAILED")
		for _, c := range counts {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", c.Job, c.Symptom, c.Runs, c.Failed)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if runs > 0 {
		list, err := store.RunsWithSymptoms(ctx, runs)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nRuns with symptoms (newest %d):\n", runs)
		tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "STARTED\tJOB\tBUILD\tRESULT\tSYMPTOMS")
		for _, r := range list {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", r.StartedAt.Format("2006-01-02 15:04"), r.Job, r.BuildID, r.Result, strings.Join(r.Symptoms, ", "))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if c, ok, err := store.LastCrawl(ctx); err != nil {
		return err
	} else if ok {
		fmt.Fprintf(stdout, "\nlast %s of %s: %s at %s, %d new runs, %d updated, %d errors\n",
			c.Command, c.Bucket, c.Status, c.StartedAt.Format(time.RFC3339), c.NewRuns, c.UpdatedRuns, c.Errors)
	}
	return nil
}

// edge renders a job's upgrade edge as analysts write it: "4.13->4.14 minor".
func edge(j db.JobStatus) string {
	switch {
	case j.Upgrade == "none":
		return "no upgrade"
	case j.Release == "":
		return "from the runs"
	case j.FromRelease == j.Release:
		return j.Release + " " + j.Upgrade
	}
	return j.FromRelease + "->" + j.Release + " " + j.Upgrade
}

func dash(s string) string {
	if s == " " {
		return "-"
	}
	return s
}
