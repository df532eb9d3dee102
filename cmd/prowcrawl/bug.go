package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/bugreport"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/report"
)

// maxBugText bounds the text of a bug report read: a bug with its
// comments is kilobytes, a pasted log megabytes.
const maxBugText = 16 << 20

func runBug(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	dbPath, rulesPath, format := "prowcrawl.db", "", report.FormatText
	var fetch, gcsAuth bool
	var co cacheOptions
	fs := pflag.NewFlagSet("bug", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dbPath, "db", dbPath, "SQLite database file whose history answers the questions")
	co.addFlags(fs, false)
	fs.StringVar(&rulesPath, "rules", rulesPath, "a rules file that adds symptoms or replaces built-in ones by id")
	fs.StringVar(&format, "format", format, "text, markdown (a comment to paste into the bug) or json")
	fs.BoolVar(&fetch, "fetch", fetch, "read a linked run that the database's cache does not hold from its bucket, into memory")
	fs.BoolVar(&gcsAuth, "gcs-auth", gcsAuth, "with --fetch: use Application Default Credentials instead of anonymous access")
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: prowcrawl bug FILE|- [--format text|markdown|json] [--db PATH] [--rules FILE] [--cache DIR] [--fetch]\n\n"+
			"Reads a bug report's text as people paste it (quoted log lines, Prow links, an oc get clusterversion dump)\n"+
			"and drafts its UpgradeBlocker answers: the symptoms its lines show, a proposed rule for the failure lines\n"+
			"no rule matches (with how often the cached runs show it), its runs, and the four answers from the stored\n"+
			"history. It writes nothing; a linked run is read from the cache, or with --fetch from its bucket.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, true); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("bug takes one file of a bug report's text, or - for standard input; got %d arguments", fs.NArg())
	}
	if !slices.Contains(report.BugFormats, format) {
		return usagef("--format %q: want %s", format, strings.Join(report.BugFormats, ", "))
	}
	text, err := readBugText(fs.Arg(0), stdin)
	if err != nil {
		return err
	}
	eng, err := loadRules(rulesPath)
	if err != nil {
		return err
	}
	src := bugreport.Sources{Rules: eng.Rules(), Fetch: fetch, GCS: gcs.Options{Auth: gcsAuth}}
	if _, err := os.Stat(dbPath); err == nil || fs.Changed("db") {
		store, err := openReader(ctx, dbPath, stderr)
		if err != nil {
			return err
		}
		defer store.Close()
		src.Store = store
		if src.Cache, err = optionalCache(co, dbPath); err != nil {
			return err
		}
	}
	r, err := bugreport.Draft(ctx, bugreport.Parse(text), src)
	if err != nil {
		return err
	}
	return report.WriteBug(stdout, r, format)
}

// readBugText reads the text of a bug report from path, or from stdin for
// "-".
func readBugText(path string, stdin io.Reader) (string, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return "", usagef("bug report: %v", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxBugText+1))
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	if len(b) > maxBugText {
		return "", usagef("bug report %s is larger than %d MiB: give the bug's text, not a whole log", path, maxBugText>>20)
	}
	return string(b), nil
}

// optionalCache opens the database's artifact cache when there is one, or
// gives nil: without it, the bug's runs and proposals are read and
// measured as far as the database alone allows.
func optionalCache(co cacheOptions, dbPath string) (*cache.Cache, error) {
	dir := co.dir(dbPath)
	if dir == "" || !cacheExists(dir) {
		if co.fs != nil && co.fs.Changed("cache") && dir != "" {
			return nil, usagef("no artifact cache at %s: a crawl fills it (--cache, on by default)", dir)
		}
		return nil, nil
	}
	return co.open(dbPath)
}
