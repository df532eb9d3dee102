package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/crawler"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

func runReclassify(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	dbPath, rules, bucket := "prowcrawl.db", "", ""
	var fetch, wait, gcsAuth bool
	concurrency := 16
	var sel storedRunOptions
	var co cacheOptions
	var a analyzeOptions
	lo := logOptions{Format: "text", Level: "warn"}
	fs := pflag.NewFlagSet("reclassify", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dbPath, "db", dbPath, "SQLite database file")
	co.addFlags(fs, true)
	fs.StringVar(&rules, "rules", rules, "a rules file that adds symptoms or replaces built-in ones by id (see 'prowcrawl rules')")
	sel.addFlags(fs)
	fs.BoolVar(&fetch, "fetch", fetch, "download the runs the cache does not hold whole from their bucket (and cache them); without it they are only listed")
	fs.StringVar(&bucket, "bucket", bucket, "with --fetch: where to download from (default: each run's own bucket, gs://NAME); a directory mirroring the runs' bucket works too")
	fs.BoolVar(&gcsAuth, "gcs-auth", gcsAuth, "with --fetch: use Application Default Credentials instead of anonymous access")
	fs.IntVar(&concurrency, "concurrency", concurrency, "with --fetch: requests to the bucket in flight at once")
	fs.BoolVar(&wait, "wait", wait, "when a crawl is writing the database, wait for it to finish instead of failing")
	lo.addFlags(fs)
	a.addFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: prowcrawl reclassify [--rules FILE] [--since T] [--until T] [--job REGEX]... [--fetch]\n\n"+
			"Classifies stored runs again from the artifact cache, with the rules as they are now, replaces their\n"+
			"symptoms and analyzes. It makes no request to the bucket for a cached run; a run the cache does not\n"+
			"hold whole is listed, and downloaded with --fetch.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	if concurrency < 1 || concurrency > 1024 {
		return usagef("--concurrency %d: want 1 to 1024", concurrency)
	}
	picked, err := sel.parse(time.Now())
	if err != nil {
		return err
	}
	logger, err := lo.logger(stderr)
	if err != nil {
		return err
	}
	eng, err := loadRules(rules)
	if err != nil {
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
	cc, err := co.openExisting(dbPath)
	if err != nil {
		return err
	}
	runs, err := picked.runs(ctx, store)
	if err != nil {
		return err
	}
	sum, err := crawler.Reclassify(ctx, store, cc, runs, crawler.ReclassifyOptions{Rules: eng})
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "reclassify: %d runs, %d classified again from the cache (%d symptoms found), %d not in the cache, %d unreadable there, in %s; no request to the bucket\n",
		sum.Runs, sum.Cached, sum.Symptoms, len(sum.Missing), len(sum.Failed), sum.Duration.Round(time.Millisecond))
	missing := append(sum.Missing, sum.Failed...)
	var fetchErr error
	if len(missing) > 0 && !fetch {
		fmt.Fprintf(stdout, "runs not classified again (--fetch downloads them):\n")
		for i, r := range missing {
			if i == 20 {
				fmt.Fprintf(stdout, "  ... and %d more\n", len(missing)-i)
				break
			}
			fmt.Fprintf(stdout, "  %s\n", safe.Line(r.URL))
		}
	}
	if len(missing) > 0 && fetch {
		fetchErr = refetch(ctx, store, co, dbPath, bucket, crawler.Config{Command: "reclassify", Rules: eng, Concurrency: concurrency, Logger: logger}, gcsAuth, missing, stdout)
		if fetchErr != nil && !errors.Is(fetchErr, crawler.ErrRunsFailed) {
			return fetchErr
		}
	}
	if err := runAnalysis(ctx, store, opts, stdout); err != nil {
		return err
	}
	if len(missing) > 0 && !fetch {
		// A cron must see it: those runs' rates read "not classified
		// yet" for every rule of this reclassify until they are read.
		return fmt.Errorf("reclassify: %d of %d runs not classified again (not whole in the cache); "+
			"the rules count them as not classified yet until reclassify --fetch or backfill --refetch reads them", len(missing), sum.Runs)
	}
	return fetchErr
}

// refetch downloads runs from their bucket (or from bucket when given),
// caching them, and stores them as backfill --refetch does.
func refetch(ctx context.Context, store *db.DB, co cacheOptions, dbPath, bucket string, cfg crawler.Config, auth bool, runs []db.StoredRun, stdout io.Writer) error {
	cc, err := co.open(dbPath)
	if err != nil {
		return err
	}
	cfg.Cache = cc
	err = crawler.RefetchStored(ctx, store, cfg, bucket, gcs.Options{Auth: auth}, runs, func(sum crawler.Summary) {
		fmt.Fprintln(stdout, summaryLine("reclassify --fetch", sum))
	})
	if be := (crawler.BucketError{}); errors.As(err, &be) {
		return usageError{be}
	}
	return err
}
