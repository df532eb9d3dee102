// Command prowcrawl crawls OpenShift CI upgrade-job runs from GCS into
// SQLite. It only parses flags into configurations and calls the packages
// that do the work; main is the only place that exits.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCodeLogged(err, os.Stderr, jsonLogAsked(os.Args[1:])))
}

// jsonLogAsked reports whether args ask for the log as JSON lines
// (--log-format json): the last line, the error's, is then one too.
func jsonLogAsked(args []string) bool {
	for i, a := range args {
		if a == "--" {
			break
		}
		if a == "--log-format=json" || a == "--log-format" && i+1 < len(args) && args[i+1] == "json" {
			return true
		}
	}
	return false
}

// usageError is a mistake in the command line or the configuration: exit 2.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// errHelp ends a run that only printed help.
var errHelp = errors.New("help requested")

// exitCode prints err as one sentence and maps it to the exit status of the
// command-line contract: 0 success, 1 some runs could not be fetched or the
// job failed, 2 bad usage or configuration.
func exitCode(err error, stderr io.Writer) int { return exitCodeLogged(err, stderr, false) }

// exitCodeLogged is exitCode, the line said as a JSON log record (level
// ERROR, msg the sentence) when the log is JSON, so that a log reader
// parses every line.
func exitCodeLogged(err error, stderr io.Writer, jsonLog bool) int {
	say := func(msg string) {
		if jsonLog {
			slog.New(slog.NewJSONHandler(stderr, nil)).Error(msg)
			return
		}
		fmt.Fprintf(stderr, "prowcrawl: %s\n", msg)
	}
	var ue usageError
	switch {
	case err == nil, errors.Is(err, errHelp):
		return 0
	case errors.Is(err, context.Canceled):
		say("interrupted; runs read so far are stored")
		return 1
	case errors.As(err, &ue):
		say(safe.Line(err.Error()))
		return 2
	default:
		// An error may name a job or an object of the bucket.
		say(safe.Line(err.Error()))
		return 1
	}
}

const usage = `prowcrawl crawls OpenShift CI upgrade-job runs from GCS into SQLite.

Usage:
  prowcrawl crawl     [--bucket URL] [--mirror-of gs://NAME] [--db PATH] [--job REGEX]... [--since T] [--until T] [--lookback D] [--concurrency N] [--rules FILE] [--cache DIR]
  prowcrawl backfill  --since T [--until T] [--refetch] ... (same flags as crawl)
  prowcrawl analyze   [--db PATH] [--alpha A] [--min-hits N] [--min-delta P] [--min-runs N] [--now T]
  prowcrawl report    [--db PATH] [--by edge|job|variant|presubmit] [--format table|csv|json|markdown|html] [--symptom ID] [--job REGEX]... [--since T] [--until T] [--out FILE]
  prowcrawl report    --assess SYMPTOM [--format table|json|markdown|blocked-edges] [--since T] [--until T]
  prowcrawl report    --changes [--since T] [--format table|markdown|json]
  prowcrawl classify  [--rules FILE] [--format table|json] [--gcs-auth] PATH|gs://BUCKET/PATH|PROW-URL...
  prowcrawl rules     [--rules FILE | --check FILE]
  prowcrawl suggest   [--top N] [--since T] [--until T] [--job REGEX]... [--format table|yaml|json] [--db PATH] [--cache DIR] [--rules FILE]
  prowcrawl bug       FILE|- [--format text|markdown|json] [--db PATH] [--rules FILE] [--cache DIR] [--fetch]
  prowcrawl merge     OUT.db IN.db...
  prowcrawl export    [--db PATH] [--format jsonl] [--out FILE] [--schema FILE]
  prowcrawl reclassify [--rules FILE] [--since T] [--until T] [--job REGEX]... [--fetch]
  prowcrawl search    REGEX [--db PATH] [--cache DIR] [--since T] [--until T] [--job REGEX]... [--files GLOB] [--format table|json]
  prowcrawl status    [--db PATH] [--runs N] [--cache DIR]
  prowcrawl version

Run 'prowcrawl COMMAND --help' for the flags of a command.
`

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return usagef("no command given")
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "crawl", "backfill":
		return runCrawl(ctx, cmd, rest, stdout, stderr)
	case "analyze":
		return runAnalyze(ctx, rest, stdout, stderr)
	case "report":
		return runReport(ctx, rest, stdout, stderr)
	case "classify":
		return runClassify(ctx, rest, stdout, stderr)
	case "rules":
		return runRules(ctx, rest, stdout, stderr)
	case "merge":
		return runMerge(ctx, rest, stdout, stderr)
	case "export":
		return runExport(ctx, rest, stdout, stderr)
	case "status":
		return runStatus(ctx, rest, stdout, stderr)
	case "search":
		return runSearch(ctx, rest, stdout, stderr)
	case "reclassify":
		return runReclassify(ctx, rest, stdout, stderr)
	case "suggest":
		return runSuggest(ctx, rest, stdout, stderr)
	case "bug":
		return runBug(ctx, rest, os.Stdin, stdout, stderr)
	case "version", "--version":
		fmt.Fprintf(stdout, "prowcrawl %s\n", version)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return usagef("unknown command %q", cmd)
	}
}

// parseFlags parses a command's flags: -h is errHelp, a mistake a usage
// error; a command that takes no arguments refuses them.
func parseFlags(fs *pflag.FlagSet, args []string, takesArgs bool) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return errHelp
		}
		return usageError{err}
	}
	if !takesArgs && fs.NArg() > 0 {
		return usagef("%s takes no arguments, got %q", fs.Name(), fs.Args())
	}
	return nil
}
