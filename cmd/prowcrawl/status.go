package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/report"
)

func runStatus(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	dbPath := "prowcrawl.db"
	runs, wide := 0, false
	fs := pflag.NewFlagSet("status", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&dbPath, "db", dbPath, "SQLite database file")
	fs.IntVar(&runs, "runs", runs, "also list the newest N runs that show symptoms")
	fs.BoolVar(&wide, "wide", wide, "every name whole, however wide (by default the tables fit 120 columns, or the terminal's)")
	var co cacheOptions
	co.addFlags(fs, false)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: prowcrawl status [--db PATH] [--runs N] [--wide] [--cache DIR]\n\nShows the runs stored per job, the symptoms they show, the last crawl, and the artifact cache.\n\n")
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}
	store, err := openReader(ctx, dbPath, stderr)
	if err != nil {
		return err
	}
	defer store.Close()
	s, err := analyze.LoadStatus(ctx, store, runs)
	if err != nil {
		return err
	}
	s.DB = dbPath
	if err := report.WriteStatus(stdout, s, report.Options{Wide: wide, Width: termWidth(stdout)}); err != nil {
		return err
	}
	// The artifact cache, when there is one: its size and span.
	if dir := co.dir(dbPath); dir != "" && cacheExists(dir) {
		cc, err := co.open(dbPath)
		if err != nil {
			return err
		}
		st, err := cc.Stats()
		if err != nil {
			return err
		}
		return report.WriteCacheStatus(stdout, dir, st)
	}
	return nil
}
