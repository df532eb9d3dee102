package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/assess"
	"github.com/openshift-eng/prowcrawl/cache"
	"github.com/openshift-eng/prowcrawl/internal/safe"
	"github.com/openshift-eng/prowcrawl/search"
)

// SearchRun is a matching run as `search --format json` writes it. These
// names are stable: add fields, never rename them.
type SearchRun struct {
	Job       string       `json:"job"`
	BuildID   int64        `json:"build_id,string"` // a string: 19 digits do not survive a float64 reader
	URL       string       `json:"url"`
	Result    string       `json:"result"`
	StartedAt time.Time    `json:"started_at"`
	Edge      string       `json:"edge"`
	Matches   int          `json:"matches"` // matching lines; Lines holds the first of them
	Lines     []SearchLine `json:"lines"`
}

// SearchLine is a matching line: the object's path in the bucket, its
// line number from 1, and the line.
type SearchLine struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Text string `json:"text"`
}

// SearchGroup is the share of one job's runs on one edge that match.
type SearchGroup struct {
	Job         string   `json:"job"`
	Edge        string   `json:"edge"`
	Runs        int      `json:"runs"`
	Hits        int      `json:"hits"`
	Failed      int      `json:"failed"`
	FailedHits  int      `json:"failed_hits"`
	Passed      int      `json:"passed"`
	PassedHits  int      `json:"passed_hits"`
	Share       *float64 `json:"share"`
	FailedShare *float64 `json:"failed_share"`
	PassedShare *float64 `json:"passed_share"`
	PValue      *float64 `json:"p_value"` // matching runs fail more often: one-sided Fisher exact test
}

// SearchOutput is the object `search --format json` prints: the matching
// runs in Runs, and the shares per job and edge.
type SearchOutput struct {
	Pattern   string        `json:"pattern"`
	Runs      []SearchRun   `json:"runs"`
	Groups    []SearchGroup `json:"groups"`
	Searched  int           `json:"searched"`
	NotCached int           `json:"not_cached"`
	Files     int           `json:"files"`
	Bytes     int64         `json:"bytes"`
}

func searchOutput(r search.Result) SearchOutput {
	out := SearchOutput{Pattern: r.Pattern, Runs: []SearchRun{}, Groups: []SearchGroup{}, Searched: r.Searched,
		NotCached: len(r.NotCached), Files: r.Files, Bytes: r.Bytes}
	for _, run := range r.Runs {
		sr := SearchRun{Job: run.Job, BuildID: run.BuildID, URL: run.URL, Result: string(run.Result), StartedAt: run.StartedAt,
			Edge: run.Edge.String(), Matches: run.Matches, Lines: []SearchLine{}}
		for _, l := range run.Lines {
			sr.Lines = append(sr.Lines, SearchLine(l))
		}
		out.Runs = append(out.Runs, sr)
	}
	for _, g := range r.Groups {
		out.Groups = append(out.Groups, SearchGroup{Job: g.Job, Edge: g.Edge, Runs: g.Runs, Hits: g.Hits,
			Failed: g.Failed, FailedHits: g.FailedHits, Passed: g.Passed, PassedHits: g.PassedHits,
			Share: ratio(g.Hits, g.Runs), FailedShare: ratio(g.FailedHits, g.Failed), PassedShare: ratio(g.PassedHits, g.Passed),
			PValue: assess.Round6(g.P)})
	}
	return out
}

func ratio(n, of int) *float64 {
	if of == 0 {
		return nil
	}
	return assess.Round6(float64(n) / float64(of))
}

// WriteSearch renders what a search found: "table" lists each matching
// run's link and lines, then the shares per job and edge; "json" writes a
// SearchOutput. In the table a matched line, an object's and a job's name
// are each one safe line (safe.Line): a log line's escape sequence (one
// that sets the clipboard, the title, or clears the screen) is shown, not
// acted on, and its newline forges no line of the output. The table fits
// opts.Width (a matched line under its file, broken where it would not
// fit, the job names of the shares shortened), or with opts.Wide has each
// match on one line.
func WriteSearch(w io.Writer, r search.Result, format string, opts Options) error {
	width := opts.width()
	if opts.Wide {
		width = 0
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(searchOutput(r))
	case "table", "":
	default:
		return fmt.Errorf("unknown format %q (want table or json)", format)
	}
	bw := &errWriter{w: w}
	for _, run := range r.Runs {
		fmt.Fprintf(bw, "%s %s %s\n", run.StartedAt.Format("2006-01-02 15:04"), safe.Line(string(run.Result)), safe.Line(run.URL))
		for _, l := range run.Lines {
			at := fmt.Sprintf("  %s:%d:", safe.Line(strings.TrimPrefix(l.File, run.Path+"/")), l.Line)
			text := safe.Line(l.Text)
			if width == 0 || utf8.RuneCountInString(at)+1+utf8.RuneCountInString(text) <= width {
				fmt.Fprintf(bw, "%s %s\n", at, text)
				continue
			}
			fmt.Fprintln(bw, middle(at, width))
			for _, part := range breakRunes(text, width-4) {
				fmt.Fprintf(bw, "    %s\n", part)
			}
		}
		if more := run.Matches - len(run.Lines); more > 0 {
			fmt.Fprintf(bw, "  ... %d more matching lines\n", more)
		}
	}
	if len(r.Runs) > 0 {
		fmt.Fprintln(bw)
	}
	fmt.Fprintf(bw, "%d of %d runs searched match (%d files, %s)", len(r.Runs), r.Searched, r.Files, Size(r.Bytes))
	if n := len(r.NotCached); n > 0 {
		fmt.Fprintf(bw, "; %d runs not in the cache were not searched", n)
	}
	fmt.Fprintf(bw, ", in %s.\n", r.Duration.Round(time.Millisecond))
	if bw.err != nil {
		return bw.err
	}
	hits := 0
	for _, g := range r.Groups {
		hits += g.Hits
	}
	if hits == 0 {
		return nil // no counted run matches: no table of zeros to read
	}
	note := func(text string) { fmt.Fprintln(w, wrapPlain(text, cmp.Or(width, 1<<20))) }
	fmt.Fprintln(w)
	note("Finished runs that match, per job and edge (P: matching runs fail more often, one-sided Fisher exact test):")
	leftOut, infra := 0, 0
	for _, g := range r.Groups {
		leftOut += g.LeftOut
		infra += g.Infra
	}
	note(fmt.Sprintf("Counted: the finished runs searched whose upgrade began, not infrastructure failures nor aggregated (%d left out: %s); "+
		"a pattern is no rule, so every such run counts.", leftOut, prowcrawl.LeftOutWhy(leftOut, infra)))
	var body [][]string
	for _, g := range r.Groups {
		if g.Hits == 0 {
			continue
		}
		job := g.Job
		if width > 0 {
			job = strings.TrimPrefix(job, periodicPrefix)
		}
		body = append(body, []string{job, dashed(g.Edge), strconv.Itoa(g.Runs), countPct(g.Hits, g.Runs),
			strconv.Itoa(g.Failed), countPct(g.FailedHits, g.Failed), strconv.Itoa(g.Passed), countPct(g.PassedHits, g.Passed), pValue(g.P)})
	}
	if err := writeFitted(w, []string{"JOB", "EDGE", "RUNS", "MATCH", "FAILED", "MATCH", "PASSED", "MATCH", "P"}, body, width, 0); err != nil {
		return err
	}
	if width > 0 {
		fmt.Fprintln(w, wrapPlain("Jobs are named without "+periodicPrefix+"; whole names, and each match on one line: --wide.", width))
	}
	return nil
}

// breakRunes cuts s into pieces of at most n runes, the last shorter.
func breakRunes(s string, n int) []string {
	r := []rune(s)
	var parts []string
	for n > 0 && len(r) > n {
		parts = append(parts, string(r[:n]))
		r = r[n:]
	}
	return append(parts, string(r))
}

func countPct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%d (%.0f%%)", n, 100*float64(n)/float64(of))
}

// Size renders a byte count in binary units: "512 B", "3.1 MiB".
func Size(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// errWriter remembers the first error of a series of writes.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// WriteCacheStatus is the line `status` shows for the artifact cache: its
// size against its bound and the span of the runs it holds.
func WriteCacheStatus(w io.Writer, dir string, s cache.Stats) error {
	var err error
	switch {
	case s.Runs == 0:
		_, err = fmt.Fprintf(w, "\ncache %s: empty (bound %s)\n", safe.Line(dir), Size(s.MaxBytes))
	default:
		_, err = fmt.Fprintf(w, "\ncache %s: %d runs, %s of %s, runs started %s to %s\n", safe.Line(dir), s.Runs, Size(s.Bytes), Size(s.MaxBytes),
			s.Oldest.Format(time.DateOnly), s.Newest.Format(time.DateOnly))
	}
	if err == nil && s.Temp > 0 {
		_, err = fmt.Fprintf(w, "  %s in files being written, or left by a writer that was killed (removed by the next eviction)\n", Size(s.Temp))
	}
	return err
}
