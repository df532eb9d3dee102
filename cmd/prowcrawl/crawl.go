package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/openshift-eng/prowcrawl/crawler"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/gcs"
	"github.com/openshift-eng/prowcrawl/mirror"
	"github.com/openshift-eng/prowcrawl/progress"
	"github.com/openshift-eng/prowcrawl/report"
)

// crawlOptions are the flags of crawl and backfill, with their defaults.
type crawlOptions struct {
	Bucket       string
	MirrorOf     string
	DB           string
	Jobs         []string
	Since        string
	Until        string
	Lookback     string
	Concurrency  int
	RunTimeout   time.Duration
	Presubmits   bool
	Refetch      bool
	GiveUpAfter  int
	RetryGivenUp bool
	Rules        string
	GCSAuth      bool
	JSONReads    bool
	Retries      int
	ReqTimeout   time.Duration
	Wait         bool
	Shard        string
	Shards       int
	Log          logOptions
	Analyze      analyzeOptions
	Cache        cacheOptions
}

func defaultCrawlOptions() crawlOptions {
	return crawlOptions{
		Bucket:      gcs.DefaultBucket,
		MirrorOf:    gcs.DefaultBucket,
		DB:          "prowcrawl.db",
		Jobs:        []string{"upgrade"},
		Lookback:    "14d",
		Concurrency: 16,
		RunTimeout:  10 * time.Minute,
		GiveUpAfter: crawler.DefaultGiveUpAfter,
		Retries:     gcs.DefaultMaxAttempts - 1,
		ReqTimeout:  gcs.DefaultRequestTimeout,
		Log:         logOptions{Format: "text", Level: "warn"},
	}
}

func runCrawl(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	o := defaultCrawlOptions()
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.Bucket, "bucket", o.Bucket, "bucket to crawl: gs://NAME[/PREFIX], file://DIR or a directory mirroring a bucket")
	fs.StringVar(&o.MirrorOf, "mirror-of", o.MirrorOf, "the bucket gs://NAME that a --bucket directory mirrors: its runs are stored as that bucket's, with Prow links to it")
	fs.StringVar(&o.DB, "db", o.DB, "SQLite database file (created if missing)")
	fs.StringArrayVar(&o.Jobs, "job", o.Jobs, "regular expression matched against job names; repeat to add more")
	fs.StringVar(&o.Since, "since", o.Since, "only runs started at or after T: a date (2026-11-01), an RFC 3339 time, or a duration back from now (72h, 14d)")
	fs.StringVar(&o.Until, "until", o.Until, "only runs started before T (same forms as --since)")
	fs.StringVar(&o.Lookback, "lookback", o.Lookback, "how far back the first crawl of a job looks when --since is not given")
	fs.IntVar(&o.Concurrency, "concurrency", o.Concurrency, "requests to the bucket in flight at once")
	fs.DurationVar(&o.RunTimeout, "run-timeout", o.RunTimeout, "time allowed for reading one run; a run that exceeds it is recorded as an error and read again next time")
	fs.StringVar(&o.Rules, "rules", o.Rules, "a rules file that adds symptoms or replaces built-in ones by id (see 'prowcrawl rules')")
	fs.BoolVar(&o.Presubmits, "presubmits", o.Presubmits, "also crawl presubmit runs under pr-logs/")
	fs.BoolVar(&o.GCSAuth, "gcs-auth", o.GCSAuth, "use Application Default Credentials instead of anonymous access")
	fs.BoolVar(&o.JSONReads, "gcs-json-reads", o.JSONReads, "download objects through the GCS JSON API instead of the XML API")
	fs.IntVar(&o.Retries, "retries", o.Retries, "times a failed bucket request is retried (429, 5xx, resets, cut bodies), with exponential backoff and jitter")
	fs.DurationVar(&o.ReqTimeout, "request-timeout", o.ReqTimeout, "time allowed for one bucket request, retries included: a listing page, opening an object, or a read that delivers nothing")
	fs.StringVar(&o.Shard, "shard", o.Shard, "crawl only shard i of N of the jobs (i/N, from 0), split by a stable hash of the job name; merge the shards with 'prowcrawl merge'")
	fs.IntVar(&o.Shards, "shards", o.Shards, "split into N shards and crawl the one named by JOB_COMPLETION_INDEX (as a Kubernetes Indexed Job sets it)")
	fs.IntVar(&o.GiveUpAfter, "give-up-after", o.GiveUpAfter, "crawls in a row that may fail to read a run whole before it is no longer read again (prowcrawl status lists such runs)")
	fs.BoolVar(&o.RetryGivenUp, "retry-given-up", o.RetryGivenUp, "read the runs given up on again")
	fs.BoolVar(&o.Wait, "wait", o.Wait, "when another crawl is writing the database, wait for it to finish instead of failing")
	if cmd == "backfill" {
		fs.BoolVar(&o.Refetch, "refetch", o.Refetch, "read runs in the range again even when they are stored complete")
	}
	o.Log.addFlags(fs)
	o.Analyze.addFlags(fs)
	o.Cache.addFlags(fs, true)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "Usage: prowcrawl %s [flags]\n\n", cmd)
		if cmd == "backfill" {
			fmt.Fprint(stderr, "Crawls the runs started in a past range; --since is required.\n\n")
		} else {
			fmt.Fprint(stderr, "Crawls the runs that are new since the last crawl of each job (the first crawl looks --lookback back).\n\n")
		}
		fs.PrintDefaults()
	}
	if err := parseFlags(fs, args, false); err != nil {
		return err
	}

	cfg, err := o.config(cmd, time.Now())
	if err != nil {
		return err
	}
	// On a terminal the progress bar shares stderr with the log: each log
	// line clears the bar first and the bar is drawn again under it.
	logw := stderr
	if f, ok := stderr.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		bar := progress.New(stderr, "runs")
		cfg.Progress, logw = bar, bar.Writer(stderr)
	}
	logger, err := o.Log.logger(logw)
	if err != nil {
		return err
	}
	cfg.Logger = logger
	if cfg.Rules, err = loadRules(o.Rules); err != nil {
		return err
	}

	src, err := crawler.Open(ctx, o.Bucket, gcs.Options{Auth: o.GCSAuth, JSONReads: o.JSONReads,
		MaxAttempts: o.Retries + 1, RequestTimeout: o.ReqTimeout})
	if err != nil {
		return usageError{err}
	}
	if c, ok := src.(io.Closer); ok {
		defer c.Close()
	}
	if d, ok := src.(*mirror.Dir); ok {
		if err := d.MirrorOf(o.MirrorOf); err != nil {
			return usagef("--mirror-of: %v", err)
		}
	} else if fs.Changed("mirror-of") {
		return usagef("--mirror-of names the bucket a directory mirrors; --bucket %s is a bucket itself", o.Bucket)
	}
	lock, err := lockDB(ctx, o.DB, o.Wait)
	if err != nil {
		return err
	}
	defer lock.Release()
	store, err := db.Open(ctx, o.DB)
	if err != nil {
		return usageError{err}
	}
	defer store.Close()

	opts, err := o.Analyze.options(time.Now())
	if err != nil {
		return err
	}
	if cfg.Cache, err = o.Cache.open(o.DB); err != nil {
		return err
	}
	defer crawler.RaiseProcs()()
	sum, err := crawler.New(src, store, cfg).Run(ctx)
	if err != nil && !errors.Is(err, crawler.ErrRunsFailed) && sum.Jobs == 0 && sum.Objects == 0 {
		// "0 jobs" would read as an empty bucket: nothing was listed.
		fmt.Fprintf(stdout, "%s: stopped before any job was listed\n", cmd)
	} else {
		fmt.Fprintln(stdout, summaryLine(cmd, sum))
	}
	if errors.Is(err, gcs.ErrAccessDenied) {
		return accessError(err, o.GCSAuth)
	}
	// Runs that could not be read are retried next time; what was stored
	// is analysed now.
	if err != nil && !errors.Is(err, crawler.ErrRunsFailed) {
		return err
	}
	if err == nil && sum.Jobs == 0 && sum.Unlisted == 0 {
		return nothingCrawled(o, fs.Changed("job"), sum.Listed)
	}
	if aerr := runAnalysis(ctx, store, opts, stdout); aerr != nil {
		return aerr
	}
	return err
}

// nothingCrawled says, in one sentence, why a crawl matched no job: a
// cron must not take a crawl of nothing for a good night. listed is how
// many jobs the bucket has.
func nothingCrawled(o crawlOptions, jobGiven bool, listed int) error {
	dirs := map[bool]string{true: "logs/ or pr-logs/", false: "logs/"}[o.Presubmits]
	which := "the default --job " + strings.Join(o.Jobs, ", --job ")
	if jobGiven {
		which = "--job " + strings.Join(o.Jobs, ", --job ")
	}
	if listed > 0 {
		return fmt.Errorf("0 of %d jobs under %s of %s match %s", listed, dirs, o.Bucket, which)
	}
	if base := path.Base(strings.TrimRight(o.Bucket, "/")); base == "logs" || base == "pr-logs" || base == "directory" {
		return fmt.Errorf("no %s under %s: did you mean its parent, %s?", dirs, o.Bucket, path.Dir(strings.TrimRight(o.Bucket, "/")))
	}
	return fmt.Errorf("no %s under %s: is it a bucket of Prow job artifacts?", dirs, o.Bucket)
}

// accessError says, in one sentence, what to do about a bucket that
// refused the crawl.
func accessError(err error, auth bool) error {
	var ae *gcs.AccessError
	if !errors.As(err, &ae) {
		return usageError{err}
	}
	public := strings.TrimPrefix(gcs.DefaultBucket, "gs://")
	switch {
	case auth:
		return usagef("%v: the credentials found (Application Default Credentials) may not read it; use an account that may, or crawl the public gs://%s", ae, public)
	case ae.Bucket == public:
		return usagef("%v: it needs credentials (--gcs-auth)", ae)
	}
	return usagef("%v: it needs credentials (--gcs-auth, with Application Default Credentials), or crawl the public gs://%s, where new runs are", ae, public)
}

// config validates the options and turns them into a crawler.Config.
func (o crawlOptions) config(cmd string, now time.Time) (crawler.Config, error) {
	cfg := crawler.Config{Command: cmd, Concurrency: o.Concurrency, RunTimeout: o.RunTimeout,
		Presubmits: o.Presubmits, Refetch: o.Refetch, GiveUpAfter: o.GiveUpAfter, RetryGivenUp: o.RetryGivenUp}
	for _, j := range o.Jobs {
		re, err := regexp.Compile(j)
		if err != nil {
			return cfg, usagef("--job %q is not a valid regular expression: %v", j, err)
		}
		cfg.Jobs = append(cfg.Jobs, re)
	}
	var err error
	if cfg.Since, err = parseTime(o.Since, now); err != nil {
		return cfg, usagef("--since: %v", err)
	}
	if cfg.Until, err = parseTime(o.Until, now); err != nil {
		return cfg, usagef("--until: %v", err)
	}
	if cmd == "backfill" && cfg.Since.IsZero() {
		return cfg, usagef("backfill needs --since")
	}
	if !cfg.Since.IsZero() && !cfg.Until.IsZero() && !cfg.Since.Before(cfg.Until) {
		return cfg, usagef("--since %s is not before --until %s", o.Since, o.Until)
	}
	if cfg.Lookback, err = parseDuration(o.Lookback); err != nil || cfg.Lookback <= 0 {
		return cfg, usagef("--lookback %q: want a positive duration such as 14d or 72h", o.Lookback)
	}
	if o.Concurrency < 1 || o.Concurrency > 1024 {
		return cfg, usagef("--concurrency %d: want 1 to 1024", o.Concurrency)
	}
	if o.GiveUpAfter < 1 {
		return cfg, usagef("--give-up-after %d: want 1 or more crawls", o.GiveUpAfter)
	}
	if o.RunTimeout <= 0 {
		return cfg, usagef("--run-timeout %s: want a positive duration", o.RunTimeout)
	}
	if cfg.Shard, cfg.Shards, err = o.shard(); err != nil {
		return cfg, err
	}
	if o.Retries < 0 || o.Retries > 100 {
		return cfg, usagef("--retries %d: want 0 to 100", o.Retries)
	}
	if o.ReqTimeout <= 0 {
		return cfg, usagef("--request-timeout %s: want a positive duration", o.ReqTimeout)
	}
	return cfg, nil
}

// jobsRegexp is the --job flags as one regular expression that matches a
// job matching any of them, or nil for none: every command adds them up.
func jobsRegexp(jobs []string) (*regexp.Regexp, error) {
	if len(jobs) == 0 {
		return nil, nil
	}
	parts := make([]string, len(jobs))
	for i, j := range jobs {
		if _, err := regexp.Compile(j); err != nil {
			return nil, usagef("--job %q is not a valid regular expression: %v", j, err)
		}
		parts[i] = "(?:" + j + ")"
	}
	if len(jobs) == 1 {
		return regexp.Compile(jobs[0]) // as typed, in the messages that name it
	}
	return regexp.Compile(strings.Join(parts, "|"))
}

// parseTime reads a date, an RFC 3339 time or a duration back from now.
// Empty gives the zero time.
func parseTime(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	if d, err := parseDuration(s); err == nil && d > 0 {
		return now.Add(-d).UTC(), nil
	}
	return time.Time{}, fmt.Errorf("%q is not a date (2026-11-01), an RFC 3339 time or a duration (72h, 14d)", s)
}

// parseDuration extends time.ParseDuration with days: "14d", "1d12h".
func parseDuration(s string) (time.Duration, error) {
	var days time.Duration
	if i := strings.IndexByte(s, 'd'); i > 0 {
		var n int
		if _, err := fmt.Sscanf(s[:i], "%d", &n); err != nil || fmt.Sprint(n) != s[:i] {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		days = time.Duration(n) * 24 * time.Hour
		s = s[i+1:]
		if s == "" {
			return days, nil
		}
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	return days + d, nil
}

// summaryLine is the two lines a crawl ends with, each short enough for a
// terminal: what it stored and read, then what it could not. Runs that
// could not be read whole (read errors, of which some given up on) and runs
// read whole with a malformed or oversized artifact (parse problems) are
// counted apart.
func summaryLine(cmd string, s crawler.Summary) string {
	return fmt.Sprintf("%s: %d jobs, %d new runs, %d updated, %d pending; %d objects, %s read in %s\n%s: %d read errors (%d given up), %d with parse problems, %d outside the range",
		cmd, s.Jobs, s.New, s.Updated, s.Pending, s.Objects, report.Size(s.Bytes), s.Duration.Round(time.Millisecond), cmd, s.Errors, s.GivenUp, s.Problems, s.Skipped)
}

// logOptions are the logging flags shared by every command.
type logOptions struct {
	Format string
	Level  string
}

func (l *logOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&l.Format, "log-format", l.Format, "log format: text or json")
	fs.StringVar(&l.Level, "log-level", l.Level, "log level: debug, info, warn or error")
}

func (l logOptions) logger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(l.Level)); err != nil {
		return nil, usagef("--log-level %q: want debug, info, warn or error", l.Level)
	}
	opts := &slog.HandlerOptions{Level: level}
	switch l.Format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usagef("--log-format %q: want text or json", l.Format)
}

// shard reads --shard i/N, or --shards N with the index from
// JOB_COMPLETION_INDEX. No sharding is shard 0 of 1.
func (o crawlOptions) shard() (i, n int, err error) {
	switch {
	case o.Shard != "" && o.Shards != 0:
		return 0, 0, usagef("give --shard i/N or --shards N, not both")
	case o.Shard != "":
		if _, err := fmt.Sscanf(o.Shard, "%d/%d", &i, &n); err != nil || fmt.Sprintf("%d/%d", i, n) != o.Shard || n < 1 || i < 0 || i >= n {
			return 0, 0, usagef("--shard %q: want i/N with 0 <= i < N, such as 0/4", o.Shard)
		}
		return i, n, nil
	case o.Shards != 0:
		if o.Shards < 1 {
			return 0, 0, usagef("--shards %d: want a positive count", o.Shards)
		}
		env, ok := os.LookupEnv("JOB_COMPLETION_INDEX")
		if !ok {
			return 0, 0, usagef("--shards needs JOB_COMPLETION_INDEX (set by a Kubernetes Indexed Job); use --shard i/N elsewhere")
		}
		if _, err := fmt.Sscanf(env, "%d", &i); err != nil || fmt.Sprint(i) != env || i < 0 || i >= o.Shards {
			return 0, 0, usagef("JOB_COMPLETION_INDEX %q: want 0 to %d", env, o.Shards-1)
		}
		return i, o.Shards, nil
	}
	return 0, 1, nil
}
