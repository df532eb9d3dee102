package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/crawler"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/report"
)

func runClassify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var rulesPath, format string
	var gcsAuth bool
	format = "table"
	fs := pflag.NewFlagSet("classify", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&rulesPath, "rules", "", "a rules file that adds symptoms or replaces built-in ones by id")
	fs.StringVar(&format, "format", format, "output: table or json")
	fs.BoolVar(&gcsAuth, "gcs-auth", false, "read gs:// runs with Application Default Credentials instead of anonymously")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: prowcrawl classify [--rules FILE] [--format table|json] PATH|gs://BUCKET/PATH|PROW-URL...

Prints the symptoms found in a run, with the evidence. A run is named by its
Prow link (https://prow.ci.openshift.org/view/gs/BUCKET/PATH), by its place
in a bucket (gs://BUCKET/PATH: only the objects the rules read are
downloaded, into memory), or by a directory downloaded from the bucket (keep
the bucket's layout below it). A directory of runs (a job's directory, or
what gsutil cp -r makes of a run) has each of its runs classified. A single
file (JUnit, clusterversion.json, events, disruption, a log) is given to
every rule. Anything else (an empty directory, a bucket's directory of
jobs, a job in a bucket) is refused with exit status 2.

`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("classify needs a run: a Prow link, gs://BUCKET/PATH, a run directory or a file")
	}
	if format != "table" && format != "json" {
		return usagef("--format %q: want table or json", format)
	}
	eng, err := loadRules(rulesPath)
	if err != nil {
		return err
	}
	var findings []report.Classified
	for _, p := range fs.Args() {
		got, err := crawler.Classify(ctx, eng.Rules(), p, gcs.Options{Auth: gcsAuth})
		switch {
		case errors.Is(err, crawler.ErrNotRun):
			return usageError{err}
		case errors.Is(err, gcs.ErrAccessDenied):
			return accessError(err, gcsAuth)
		case err != nil:
			return err
		}
		for _, f := range got {
			findings = append(findings, report.Classified(f))
		}
	}
	return report.Classification(stdout, findings, format)
}
