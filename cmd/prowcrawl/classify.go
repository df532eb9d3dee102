package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/crawler"
	"github.com/openshift-eng/prowcrawl/report"
)

func runClassify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var rulesPath, format string
	format = "table"
	fs := pflag.NewFlagSet("classify", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&rulesPath, "rules", "", "a rules file that adds symptoms or replaces built-in ones by id")
	fs.StringVar(&format, "format", format, "output: table or json")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: prowcrawl classify [--rules FILE] [--format table|json] PATH...

Prints the symptoms found in a run directory downloaded from the bucket
(keep the bucket's layout below it), or in single files, with the evidence.

`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("classify needs a run directory or a file")
	}
	if format != "table" && format != "json" {
		return usagef("--format %q: want table or json", format)
	}
	eng, err := loadRules(rulesPath)
	if err != nil {
		return err
	}
	var found []report.Classified
	for _, p := range fs.Args() {
		if _, err := os.Stat(p); err != nil {
			return usagef("%v", err)
		}
		f, err := crawler.ClassifyPath(ctx, eng.Rules(), p)
		if err != nil {
			return err
		}
		found = append(found, report.Classified(f))
	}
	return report.WriteClassified(stdout, found, format)
}
