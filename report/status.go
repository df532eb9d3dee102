package report

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// WriteStatus writes s as aligned tables that fit opts.Width (long names
// shortened in the middle, each run's link on a line of its own), or with
// opts.Wide every name whole. Every name, state and message from the
// bucket is one safe cell (safe.Line): a tab, a newline or an escape
// sequence in a job name neither forges a row nor reaches the terminal.
func WriteStatus(w io.Writer, s analyze.Status, opts Options) error {
	width := opts.width()
	if opts.Wide {
		width = 0
	}
	unread := 0
	for _, j := range s.Jobs {
		unread += j.Unread
	}
	head := []string{"JOB", "EDGE", "PLATFORM", "RUNS", "SUCCESS", "FAILURE", "ABORTED", "ERROR", "PENDING", "FLAKES", "NEWEST RUN"}
	if width > 0 {
		head = []string{"JOB", "EDGE", "PLATFORM", "RUNS", "OK", "FAIL", "ABORT", "ERR", "PEND", "FLAKES", "NEWEST"}
	}
	if unread > 0 { // a run that could not be read has no result: neither pending nor any other
		head = slices.Insert(head, 9, "UNREAD")
	}
	short := func(job string) string { return job }
	if width > 0 {
		short = func(job string) string { return strings.TrimPrefix(job, periodicPrefix) }
	}
	var body [][]string
	for _, j := range s.Jobs {
		row := []string{short(j.Job), jobEdge(j), dashed(j.Platform + " " + j.Network), strconv.Itoa(j.Runs), strconv.Itoa(j.Success), strconv.Itoa(j.Failure),
			strconv.Itoa(j.Aborted), strconv.Itoa(j.Error), strconv.Itoa(j.Pending)}
		if unread > 0 {
			row = append(row, strconv.Itoa(j.Unread))
		}
		body = append(body, append(row, strconv.Itoa(j.Flakes), dateOrDash(j.Newest, time.DateOnly)))
	}
	if err := writeFitted(w, head, body, width, 0); err != nil {
		return err
	}
	note := func(text string) { fmt.Fprintln(w, wrapPlain(text, cmp.Or(width, 1<<20))) }
	if len(s.Jobs) > 0 {
		fmt.Fprintln(w)
		if width > 0 {
			note("Jobs are named without " + periodicPrefix + "; whole names and columns: --wide.")
		}
		note(overallLine(s.Tally.Overall))
		note(prowcrawl.LeftOut(s.Tally.Populations))
	}
	if len(s.Symptoms) > 0 {
		fmt.Fprintln(w, "\nSymptoms (counted runs showing each, of which did not succeed):")
		note(prowcrawl.CountedLine)
		body = body[:0]
		for _, c := range s.Symptoms {
			body = append(body, []string{short(c.Job), c.Symptom, strconv.Itoa(c.Runs), strconv.Itoa(c.Failed)})
		}
		if err := writeFitted(w, []string{"JOB", "SYMPTOM", "RUNS", "FAILED"}, body, width, 0); err != nil {
			return err
		}
	}
	if s.RunsAsked > 0 {
		fmt.Fprintf(w, "\nRuns with symptoms (newest %d):\n", s.RunsAsked)
		// The Prow link names the job and the build: last on the row, or
		// on a line of its own under it, where the row would not fit.
		var buf bytes.Buffer
		body = body[:0]
		for _, r := range s.Runs {
			body = append(body, []string{dateOrDash(r.StartedAt, "2006-01-02 15:04"), string(r.Result), strings.Join(r.Symptoms, ", "), r.URL})
		}
		if err := writeFitted(&buf, []string{"STARTED", "RESULT", "SYMPTOMS", "RUN"}, body, 0); err != nil {
			return err
		}
		if width == 0 || maxLine(buf.String()) <= width {
			io.Copy(w, &buf)
		} else {
			for i := range body {
				body[i] = body[i][:3]
			}
			buf.Reset()
			if err := writeFitted(&buf, []string{"STARTED", "RESULT", "SYMPTOMS"}, body, width, 2); err != nil {
				return err
			}
			for i, line := range strings.SplitAfter(buf.String(), "\n") {
				fmt.Fprint(w, line)
				if i > 0 && i <= len(s.Runs) {
					fmt.Fprintf(w, "  %s\n", safe.Line(s.Runs[i-1].URL))
				}
			}
		}
	}
	if err := writeProblems(w, s, width); err != nil {
		return err
	}
	if c := s.LastCrawl; c != nil {
		if _, err := fmt.Fprintf(w, "\nlast %s of %s: %s at %s, %d new runs, %d updated, %d errors\n",
			safe.Line(c.Command), safe.Line(c.Bucket), safe.Line(c.Status), c.StartedAt.Format(time.RFC3339), c.NewRuns, c.UpdatedRuns, c.Errors); err != nil {
			return err
		}
	}
	return nil
}

// periodicPrefix begins the name of every periodic job of
// openshift/release's master branch: the tables that fit a terminal leave
// it out.
const periodicPrefix = "periodic-ci-openshift-release-master-"

// maxLine is the width in runes of the longest line of s.
func maxLine(s string) int {
	n := 0
	for line := range strings.Lines(s) {
		n = max(n, utf8.RuneCountInString(strings.TrimRight(line, "\n")))
	}
	return n
}

// overallLine counts the runs by Sippy's overall result, in Sippy's order,
// the codes no run has left out.
func overallLine(runs map[prowcrawl.OverallResult]int) string {
	var parts []string
	for _, o := range prowcrawl.OverallResults {
		if n := runs[o.Code]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s (%s)", n, o.Code, o.Meaning))
		}
	}
	if n := runs[""]; n > 0 {
		parts = append(parts, fmt.Sprintf("%d not derived yet (stored before overall results were)", n))
	}
	if len(parts) == 0 {
		return "Overall results (Sippy's): no run stored."
	}
	return "Overall results (Sippy's): " + strings.Join(parts, ", ") + "."
}

// dateOrDash is t in layout, "-" for a run whose start is not known (it
// could not be read).
func dateOrDash(t time.Time, layout string) string {
	if t.IsZero() {
		return "-"
	}
	return t.Format(layout)
}

// shellWord is s as one word of a shell command line: quoted when it holds
// anything but letters, digits and ./_-.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./_-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(safe.Line(s), "'", `'\''`) + "'"
}

// jobEdge is a job's upgrade edge as its name says it, keyed as prowcrawl.Edge
// keys an edge ("4.13->4.14 minor"), or why it has none.
func jobEdge(j db.JobStatus) string {
	switch {
	case j.Upgrade == "none":
		return "no upgrade"
	case j.Release == "":
		return "from the runs"
	}
	return prowcrawl.Edge{From: j.FromRelease, To: j.Release, Kind: j.Upgrade}.String()
}

// dashed is s, or "-" for a blank platform and network.
func dashed(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return strings.TrimSpace(s)
}

// writeProblems lists the runs not read whole or read with problems, and
// how to read again the runs given up on.
func writeProblems(w io.Writer, s analyze.Status, width int) error {
	p := s.Problems
	total := p.Unreadable + p.GivenUp + p.Malformed
	if total == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nRuns with problems: %d not read whole (read again by the next crawl), %d given up, %d read with parse problems:\n",
		p.Unreadable, p.GivenUp, p.Malformed)
	var body [][]string
	for _, r := range s.ProblemRuns {
		state := r.FetchStatus
		switch {
		case !r.GivenUpAt.IsZero():
			state = fmt.Sprintf("given up (%d crawls)", r.FetchAttempts)
		case r.FetchStatus != string(prowcrawl.FetchComplete):
			state = fmt.Sprintf("%s (%d crawls)", r.FetchStatus, r.FetchAttempts)
		case r.Kind != "":
			state = r.Kind
		}
		problem := r.FetchError
		if r.Message != "" && (problem == "" || r.FetchStatus == string(prowcrawl.FetchComplete)) {
			problem = r.Message
		}
		if r.Errors > 1 {
			problem = fmt.Sprintf("%s (and %d more)", problem, r.Errors-1)
		}
		body = append(body, []string{dateOrDash(r.StartedAt, "2006-01-02 15:04"), r.Job, strconv.FormatInt(r.BuildID, 10), state, oneLine(problem, 160)})
	}
	if err := writeFitted(w, []string{"STARTED", "JOB", "BUILD", "STATE", "PROBLEM"}, body, width, 1, 4); err != nil {
		return err
	}
	if rest := total - len(s.ProblemRuns); rest > 0 {
		fmt.Fprintf(w, "%d more: sqlite3 %s 'select job, build_id, fetch_status, kind, object, message from runs join run_errors using (job, build_id)'\n", rest, shellWord(cmp.Or(s.DB, "prowcrawl.db")))
	}
	if p.GivenUp > 0 {
		fmt.Fprintln(w, "Read the runs given up on again: prowcrawl crawl --retry-given-up")
	}
	return nil
}

// oneLine is s on one safe line (safe.Line), cut to at most n runes.
func oneLine(s string, n int) string {
	s = safe.Line(strings.Join(strings.Fields(s), " "))
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
