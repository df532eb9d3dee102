package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/export"
	"github.com/openshift-eng/prowcrawl/internal/outfile"
)

func runMerge(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var a analyzeOptions
	wait := false
	fs := pflag.NewFlagSet("merge", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.BoolVar(&wait, "wait", wait, "when a crawl is writing the output database, wait for it to finish instead of failing")
	a.addFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: prowcrawl merge OUT.db IN.db...

Merges the databases of shard crawls (crawl --shard i/N) into OUT.db, which
is created when missing, then analyzes it. A run found twice is taken where
it was read more completely, or later. Merging again changes nothing.

`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usagef("merge needs an output database and at least one input")
	}
	opts, err := a.options(time.Now())
	if err != nil {
		return err
	}
	outPath, inputs := fs.Arg(0), fs.Args()[1:]
	for _, in := range inputs {
		if _, err := os.Stat(in); err != nil {
			return usagef("input %v", err)
		}
		if abs(in) == abs(outPath) || sameFile(in, outPath) {
			return usagef("input %s is the output", in)
		}
		// An input the job cannot use stops it (exit 1) before anything
		// is merged.
		if err := db.ReadyToMerge(ctx, in); err != nil {
			return err
		}
	}
	lock, err := lockDB(ctx, outPath, wait)
	if err != nil {
		return err
	}
	defer lock.Release()
	out, err := db.Open(ctx, outPath)
	if err != nil {
		return usageError{err}
	}
	defer out.Close()
	for _, in := range inputs {
		st, err := out.Merge(ctx, in)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "merge: %s: %d runs, %d tests, %d symptoms taken\n", in, st.Runs, st.Tests, st.Symptoms)
		if st.Cursors > 0 {
			fmt.Fprintf(stdout, "merge: %s: %d cursors were past the input's newest run of their job and were taken at that run\n", in, st.Cursors)
		}
	}
	return runAnalysis(ctx, out, opts, stdout)
}

// sameFile says whether two paths reach one file (a link, a second mount).
func sameFile(a, b string) bool {
	fa, err1 := os.Stat(a)
	fb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}

func abs(p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	return a
}

func runExport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	dbPath, format, outPath, schemaPath := "prowcrawl.db", "jsonl", "", ""
	fs := pflag.NewFlagSet("export", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dbPath, "db", dbPath, "SQLite database file")
	fs.StringVar(&format, "format", format, "output format: jsonl (newline-delimited JSON, one run a line)")
	fs.StringVar(&outPath, "out", outPath, "write the runs to this file instead of standard output")
	fs.StringVar(&schemaPath, "schema", schemaPath, "also write the BigQuery schema of the lines to this file")
	fs.Usage = func() {
		fmt.Fprint(stderr, `Usage: prowcrawl export [--db PATH] [--format jsonl] [--out FILE] [--schema FILE]

Writes every run with its edge, variant and job's variants, and its tests,
symptoms and disruption per backend nested, one JSON object a line (build_id
a string), loadable into BigQuery:
  bq load --source_format=NEWLINE_DELIMITED_JSON DATASET.runs runs.jsonl schema.json

`)
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if format != "jsonl" {
		return usagef("--format %q: want jsonl", format)
	}
	store, err := openReader(ctx, dbPath, stderr)
	if err != nil {
		return err
	}
	defer store.Close()
	if schemaPath != "" {
		if err := writeFile(schemaPath, export.WriteSchema); err != nil {
			return err
		}
	}
	write := func(w io.Writer) error {
		ew := export.NewWriter(w)
		if err := store.ExportRuns(ctx, func(r db.ExportRun) error { return ew.Write(export.FromDB(r)) }); err != nil {
			return err
		}
		if err := ew.Flush(); err != nil {
			return err
		}
		if outPath != "" {
			fmt.Fprintf(stdout, "export: %d runs to %s\n", ew.Count(), outPath)
		}
		return nil
	}
	if outPath == "" {
		return write(stdout)
	}
	return writeFile(outPath, write)
}

// writeFile writes an output file a user named (--out, --schema): a file
// whole or not at all, a symbolic link's target, a FIFO or a device
// through, a directory never (outfile.Write).
func writeFile(path string, write func(io.Writer) error) error {
	return outfile.Write(path, write)
}
