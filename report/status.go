package report

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
	"github.com/openshift-eng/prowcrawl/internal/safe"
)

// WriteStatus writes s as aligned tables. Every name, state and message
// from the bucket is one safe cell (safe.Line): a tab, a newline or an
// escape sequence in a job name neither forges a row nor reaches the
// terminal.
func WriteStatus(w io.Writer, s analyze.Status) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	unread := 0
	for _, j := range s.Jobs {
		unread += j.Unread
	}
	head := "JOB\tEDGE\tPLATFORM\tRUNS\tSUCCESS\tFAILURE\tABORTED\tERROR\tPENDING\tFLAKES\tNEWEST RUN"
	if unread > 0 { // a run that could not be read has no result: neither pending nor any other
		head = strings.Replace(head, "PENDING", "PENDING\tUNREAD", 1)
	}
	fmt.Fprintln(tw, head)
	for _, j := range s.Jobs {
		counts := fmt.Sprintf("%d\t%d\t%d\t%d\t%d\t%d", j.Runs, j.Success, j.Failure, j.Aborted, j.Error, j.Pending)
		if unread > 0 {
			counts += fmt.Sprintf("\t%d", j.Unread)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", safe.Line(j.Job), safe.Line(jobEdge(j)), safe.Line(dashed(j.Platform+" "+j.Network)),
			counts, j.Flakes, dateOrDash(j.Newest, time.DateOnly))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(s.Jobs) > 0 {
		fmt.Fprintf(w, "\n%s\n%s\n", overallLine(s.Tally.Overall), prowcrawl.LeftOut(s.Tally.Populations))
	}
	if len(s.Symptoms) > 0 {
		fmt.Fprintln(w, "\nSymptoms (counted runs showing each, of which did not succeed):")
		fmt.Fprintln(w, prowcrawl.CountedLine)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "JOB\tSYMPTOM\tRUNS\tFAILED")
		for _, c := range s.Symptoms {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\n", safe.Line(c.Job), safe.Line(c.Symptom), c.Runs, c.Failed)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if s.RunsAsked > 0 {
		fmt.Fprintf(w, "\nRuns with symptoms (newest %d):\n", s.RunsAsked)
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		// The Prow link names the job and the build.
		fmt.Fprintln(tw, "STARTED\tRESULT\tSYMPTOMS\tRUN")
		for _, r := range s.Runs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", dateOrDash(r.StartedAt, "2006-01-02 15:04"), safe.Line(string(r.Result)), safe.Line(strings.Join(r.Symptoms, ", ")), safe.Line(r.URL))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	if err := writeProblems(w, s); err != nil {
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
func writeProblems(w io.Writer, s analyze.Status) error {
	p := s.Problems
	total := p.Unreadable + p.GivenUp + p.Malformed
	if total == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nRuns with problems: %d not read whole (read again by the next crawl), %d given up, %d read with parse problems:\n",
		p.Unreadable, p.GivenUp, p.Malformed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STARTED\tJOB\tBUILD\tSTATE\tPROBLEM")
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
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", dateOrDash(r.StartedAt, "2006-01-02 15:04"), safe.Line(r.Job), r.BuildID, safe.Line(state), oneLine(problem, 160))
	}
	if err := tw.Flush(); err != nil {
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
