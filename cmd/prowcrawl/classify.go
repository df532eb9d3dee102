package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/crawler"
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
	var findings []crawler.Finding
	for _, p := range fs.Args() {
		if _, err := os.Stat(p); err != nil {
			return usagef("%v", err)
		}
		f, err := crawler.ClassifyPath(ctx, eng.Rules(), p)
		if err != nil {
			return err
		}
		findings = append(findings, f)
	}
	if format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(findingsJSON(findings))
	}
	for i, f := range findings {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		printFinding(stdout, f)
	}
	return nil
}

func printFinding(w io.Writer, f crawler.Finding) {
	head := f.Path
	if !f.Started.IsZero() {
		head += ", started " + f.Started.Format(time.RFC3339)
	}
	if f.Result != "" {
		head += ", " + f.Result
	}
	fmt.Fprintln(w, head)
	if len(f.Matches) == 0 {
		fmt.Fprintln(w, "  no symptom found")
	}
	for _, m := range f.Matches {
		where := m.File
		if m.Line > 0 {
			where = fmt.Sprintf("%s:%d", m.File, m.Line)
		}
		if where == "" {
			where = "run metadata"
		}
		at := ""
		if !m.At.IsZero() {
			at = " at " + m.At.Format(time.RFC3339)
		}
		fmt.Fprintf(w, "  %s: %d hits, first in %s%s\n", m.SymptomID, m.Hits, where, at)
		if m.Excerpt != "" {
			fmt.Fprintf(w, "    %s\n", m.Excerpt)
		}
	}
	for _, p := range f.Problems {
		fmt.Fprintf(w, "  could not use %s (%s): %s\n", p.Object, p.Kind, p.Message)
	}
}

type matchJSON struct {
	Symptom string    `json:"symptom"`
	Hits    int       `json:"hits"`
	File    string    `json:"file,omitempty"`
	Line    int       `json:"line,omitempty"`
	Excerpt string    `json:"excerpt,omitempty"`
	At      time.Time `json:"at,omitzero"`
}

type findingJSON struct {
	Path     string      `json:"path"`
	Started  time.Time   `json:"started,omitzero"`
	Result   string      `json:"result,omitempty"`
	Symptoms []matchJSON `json:"symptoms"`
	Problems []string    `json:"problems,omitempty"`
}

func findingsJSON(fs []crawler.Finding) []findingJSON {
	out := make([]findingJSON, 0, len(fs))
	for _, f := range fs {
		j := findingJSON{Path: f.Path, Started: f.Started, Result: f.Result, Symptoms: []matchJSON{}}
		for _, m := range f.Matches {
			j.Symptoms = append(j.Symptoms, matchJSON{Symptom: m.SymptomID, Hits: m.Hits, File: m.File, Line: m.Line, Excerpt: m.Excerpt, At: m.At})
		}
		for _, p := range f.Problems {
			j.Problems = append(j.Problems, p.Object+": "+p.Message)
		}
		out = append(out, j)
	}
	return out
}
