package assess

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/analyze"
	"github.com/openshift-eng/prowcrawl/db"
)

// backendsShown is how many backends' disruption the assessment shows.
const backendsShown = 6

// Seconds is a distribution of seconds per run, for JSON: nil statistics
// when there are no runs.
type Seconds struct {
	Runs   int      `json:"runs"`
	Median *float64 `json:"median_s"`
	P95    *float64 `json:"p95_s"`
	Max    *float64 `json:"max_s"`
}

func seconds(d analyze.Distribution) Seconds {
	return Seconds{Runs: d.Runs, Median: Round6(d.Median), P95: Round6(d.P95), Max: Round6(d.Max)}
}

// BackendImpact is one backend's disruption in the runs that showed the
// symptom, against the runs of the same edges that did not, and the
// analysis's release comparison of the edges where it regressed.
type BackendImpact struct {
	Backend string  `json:"backend"`
	With    Seconds `json:"with_symptom"`
	Without Seconds `json:"without_symptom"`
	// Release are the comparisons (sample P95 against the same edge one
	// release earlier, both counted from the page's runs) of the edges
	// that show the symptom, the regressed ones first.
	Release []ReleaseDisruption `json:"release_comparison,omitempty"`
	Text    string              `json:"text"`
}

// ReleaseDisruption is one edge's disruption against its basis.
type ReleaseDisruption struct {
	Edge     string   `json:"edge"`
	Basis    string   `json:"basis"`
	Sample   Seconds  `json:"sample"`
	BasisS   Seconds  `json:"basis_seconds"`
	P95Delta *float64 `json:"p95_delta_s"`
	Verdict  string   `json:"verdict"`
	// The starts (RFC 3339) of the first and last run of each side.
	SampleFrom string `json:"sample_from"`
	SampleTo   string `json:"sample_to"`
	BasisFrom  string `json:"basis_from"`
	BasisTo    string `json:"basis_to"`
}

// TestShare is a test that failed in runs showing the symptom.
type TestShare struct {
	Name string `json:"name"`
	Runs int    `json:"runs"`
	Text string `json:"text"`
}

// Remediation answers "how involved is remediation" from the runs' own
// timelines.
type Remediation struct {
	// Duration is how long the symptom lasted in the runs whose evidence
	// has times (last evidence minus first).
	Duration Seconds `json:"duration"`
	// Recovered counts the runs where the cluster recovered by itself: the
	// upgrade completed and the symptom's last evidence came before the run
	// ended. NotRecovered the runs where the upgrade did not complete or
	// the symptom lasted to the run's end; Unknown the others (no times,
	// no upgrade state).
	Recovered    int       `json:"recovered_by_itself"`
	NotRecovered int       `json:"not_recovered"`
	Unknown      int       `json:"unknown"`
	Share        *float64  `json:"recovered_share"`
	Runs         []Example `json:"not_recovered_runs"`
	Text         string    `json:"answer"`
}

// durationWords is seconds in words: "42 s", "3 min 5 s", "1 h 2 min".
func durationWords(s float64) string {
	if math.IsNaN(s) {
		return "-"
	}
	d := time.Duration(math.Round(s)) * time.Second
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%.0f s", math.Round(s))
	case d < time.Hour:
		m := int(d / time.Minute)
		if sec := int((d % time.Minute) / time.Second); sec > 0 {
			return fmt.Sprintf("%d min %d s", m, sec)
		}
		return fmt.Sprintf("%d min", m)
	}
	h := int(d / time.Hour)
	return fmt.Sprintf("%d h %d min", h, int((d%time.Hour)/time.Minute))
}

// SecondsWords is "median 2 s, P95 9 s, worst 14 s over 6 runs".
func SecondsWords(d analyze.Distribution) string {
	if d.Runs == 0 {
		return "no runs"
	}
	runs := "runs"
	if d.Runs == 1 {
		runs = "run"
	}
	return fmt.Sprintf("median %s, P95 %s, worst %s over %d %s", Secs(d.Median), Secs(d.P95), Secs(d.Max), d.Runs, runs)
}

// backendImpacts compares each backend's disruption in the runs showing
// the symptom with the runs of the same edges that do not, keeping the
// backends the symptomatic runs saw disrupted, the worst first; and for
// each of edges (those showing it, the regressed first) against the same
// edge one release earlier.
func backendImpacts(x analyze.RunNumbers, edges []string) []BackendImpact {
	type pair struct{ with, without []float64 }
	by := map[string]*pair{}
	for _, s := range x.Disruption {
		p := by[s.Backend]
		if p == nil {
			p = &pair{}
			by[s.Backend] = p
		}
		for range s.Runs {
			if s.Shows {
				p.with = append(p.with, s.Seconds)
			} else {
				p.without = append(p.without, s.Seconds)
			}
		}
	}
	stats := slices.Clone(x.Stats)
	slices.SortStableFunc(stats, func(a, b db.DisruptionStat) int {
		return cmp.Compare(slices.Index(edges, a.Key), slices.Index(edges, b.Key))
	})
	var out []BackendImpact
	for backend, p := range by {
		with, without := analyze.Distribute(p.with), analyze.Distribute(p.without)
		if with.Runs == 0 || !(with.Max > 0) {
			continue
		}
		b := BackendImpact{Backend: backend, With: seconds(with), Without: seconds(without)}
		b.Text = fmt.Sprintf("%s: %s in the runs showing it; %s in the other runs of the same edges", backend, SecondsWords(with), SecondsWords(without))
		for _, st := range stats {
			if st.Backend != backend || st.Comparison != db.CompareRelease || !slices.Contains(edges, st.Key) {
				continue
			}
			b.Release = append(b.Release, ReleaseDisruption{Edge: st.Key, Basis: st.BasisLabel,
				Sample:   Seconds{Runs: st.SampleRuns, Median: Round6(st.SampleMedian), P95: Round6(st.SampleP95), Max: Round6(st.SampleMax)},
				BasisS:   Seconds{Runs: st.BasisRuns, Median: Round6(st.BasisMedian), P95: Round6(st.BasisP95), Max: Round6(st.BasisMax)},
				P95Delta: Round6(st.P95Delta), Verdict: st.Verdict,
				SampleFrom: RFC3339(st.SampleFrom), SampleTo: RFC3339(st.SampleTo), BasisFrom: RFC3339(st.BasisFrom), BasisTo: RFC3339(st.BasisTo)})
			sample := fmt.Sprintf("%s (%s)", st.Key, runsSpan(st.SampleRuns, st.SampleFrom, st.SampleTo))
			basis := fmt.Sprintf("%s (%s)", st.BasisLabel, runsSpan(st.BasisRuns, st.BasisFrom, st.BasisTo))
			switch st.Verdict {
			case db.DisruptionWorse:
				b.Text += fmt.Sprintf("; on %s the P95 is %s worse than on %s: %s against %s", sample, Secs(st.P95Delta), basis, Secs(st.SampleP95), Secs(st.BasisP95))
			case db.DisruptionOK:
				b.Text += fmt.Sprintf("; on %s the P95 is not worse than on %s: %s against %s", sample, basis, Secs(st.SampleP95), Secs(st.BasisP95))
			default:
				b.Text += fmt.Sprintf("; %s against %s: too few runs to compare", sample, basis)
			}
		}
		out = append(out, b)
	}
	slices.SortFunc(out, func(a, b BackendImpact) int {
		return cmp.Or(-cmp.Compare(deref(a.With.P95), deref(b.With.P95)), -cmp.Compare(deref(a.With.Max), deref(b.With.Max)), cmp.Compare(a.Backend, b.Backend))
	})
	return out[:min(len(out), backendsShown)]
}

// runsSpan is "9 runs, 2026-11-16..2026-11-25", or "no runs".
func runsSpan(n int, from, to time.Time) string {
	switch n {
	case 0:
		return "no runs"
	case 1:
		return "1 run, " + Span(from, to)
	}
	return fmt.Sprintf("%d runs, %s", n, Span(from, to))
}

func deref(f *float64) float64 {
	if f == nil {
		return math.NaN()
	}
	return *f
}

// recovered says whether the cluster of r recovered by itself: the upgrade
// completed and the symptom's last evidence came before the run ended. ok
// is false when the run does not say.
func recovered(r db.SymptomRun) (yes, ok bool) {
	switch {
	case r.UpgradeState == "Partial":
		return false, true
	case r.LastAt.IsZero() || r.FinishedAt.IsZero() || r.UpgradeState == "":
		return false, false
	case r.UpgradeState == "Completed" && r.LastAt.Before(r.FinishedAt):
		return true, true
	}
	return false, true
}

func remediation(x analyze.RunNumbers) Remediation {
	rem := Remediation{Runs: []Example{}}
	var durations []float64
	for _, r := range x.Runs {
		if !r.At.IsZero() && !r.LastAt.IsZero() {
			durations = append(durations, r.LastAt.Sub(r.At).Seconds())
		}
		switch yes, ok := recovered(r); {
		case !ok:
			rem.Unknown++
		case yes:
			rem.Recovered++
		default:
			rem.NotRecovered++
			if len(rem.Runs) < examples {
				rem.Runs = append(rem.Runs, Example{URL: r.URL, Job: r.Job, BuildID: r.BuildID, Result: r.Result, Edge: r.Edge,
					Started: r.StartedAt.UTC().Format(time.RFC3339), Excerpt: notRecoveredWhy(r)})
			}
		}
	}
	d := analyze.Distribute(durations)
	rem.Duration = seconds(d)
	known := rem.Recovered + rem.NotRecovered
	if known > 0 {
		rem.Share = Round6(float64(rem.Recovered) / float64(known))
	}
	var b strings.Builder
	switch {
	case len(x.Runs) == 0:
		b.WriteString("No finished run shows it.")
	case d.Runs == 0:
		fmt.Fprintf(&b, "None of the %d runs that show it dated its evidence, so how long it lasted is unknown.", len(x.Runs))
	default:
		fmt.Fprintf(&b, "From its first to its last evidence, it lasted a median of %s (P95 %s, worst %s) in the %d of %d runs whose evidence has times.",
			durationWords(d.Median), durationWords(d.P95), durationWords(d.Max), d.Runs, len(x.Runs))
	}
	if known > 0 {
		fmt.Fprintf(&b, " The cluster recovered by itself (the upgrade completed and the symptom stopped before the run ended) in %d of %d runs (%s); it did not in %d.",
			rem.Recovered, known, Percent(float64(rem.Recovered)/float64(known)), rem.NotRecovered)
	}
	if rem.Unknown > 0 {
		fmt.Fprintf(&b, " %d runs do not say (no times or no upgrade state).", rem.Unknown)
	}
	if len(x.Runs) > 0 {
		b.WriteString(" CI runs cannot tell whether an admin action would have fixed it sooner.")
	}
	rem.Text = b.String()
	return rem
}

// notRecoveredWhy says why r counts as not recovered.
func notRecoveredWhy(r db.SymptomRun) string {
	if r.UpgradeState == "Partial" {
		return "the upgrade did not complete (clusterversion Partial)"
	}
	return fmt.Sprintf("the symptom lasted until the run ended (last evidence %s, run ended %s)",
		r.LastAt.UTC().Format(time.TimeOnly), r.FinishedAt.UTC().Format(time.TimeOnly))
}

// whoNumbers are the dates, jobs, first payload and untested edges of "who
// is impacted".
type whoNumbers struct {
	FirstSeen, LastSeen string
	Jobs                []string
	FirstPayload        string
	Untested            []string
}

func who(x analyze.RunNumbers, verdicts []db.SymptomVerdict, regressed map[string]bool) whoNumbers {
	var w whoNumbers
	jobs := map[string]bool{}
	for _, r := range x.Runs {
		if w.FirstSeen == "" {
			w.FirstSeen = r.StartedAt.UTC().Format(time.DateOnly)
		}
		w.LastSeen = r.StartedAt.UTC().Format(time.DateOnly)
		jobs[r.Job] = true
	}
	w.Jobs = slices.Sorted(maps.Keys(jobs))
	// The first payload: of the first run on a regressed edge, else of the
	// first run.
	for _, pass := range []bool{true, false} {
		for _, r := range x.Runs {
			if r.ToVersion != "" && (!pass || regressed[r.Edge]) {
				w.FirstPayload = r.ToVersion
				break
			}
		}
		if w.FirstPayload != "" {
			break
		}
	}
	// An edge compared with one that has no runs: that one is untested.
	untested := map[string]bool{}
	for _, v := range verdicts {
		if v.Scope == db.ScopeEdge && v.Comparison == db.CompareRelease && v.BasisRuns == 0 {
			untested[v.BasisLabel] = true
		}
	}
	w.Untested = slices.Sorted(maps.Keys(untested))
	return w
}

// lifecycleWords says since when the symptom's regressions are open.
func lifecycleWords(regs []db.Regression) []string {
	var out []string
	for _, r := range regs {
		if r.Scope != db.ScopeEdge {
			continue
		}
		switch r.Status {
		case db.RegressionOpen:
			from := r.OpenedAt
			if !r.ReopenedAt.IsZero() {
				from = r.ReopenedAt
			}
			s := fmt.Sprintf("%s: a regression open since the analysis of %s (%s to the newest that found it)", r.Key,
				from.UTC().Format(time.DateOnly), Days(max(0, int(r.LastSeenAt.Sub(from).Hours()/24))))
			if !r.FirstRunAt.IsZero() && r.FirstRunAt.Before(from) {
				// Open since its first run, as the page says, not since
				// the analysis that found it.
				s = fmt.Sprintf("%s: a regression open since its first run, %s (%s to the newest analysis that found it; found by the analysis of %s)", r.Key,
					r.FirstRunAt.UTC().Format(time.DateOnly), Days(max(0, int(r.LastSeenAt.Sub(r.FirstRunAt).Hours()/24))), from.UTC().Format(time.DateOnly))
			}
			if r.Reopened > 0 {
				s += fmt.Sprintf(", reopened %d times", r.Reopened)
			}
			out = append(out, s)
		case db.RegressionClosed:
			out = append(out, fmt.Sprintf("%s: a regression from %s, closed %s", r.Key, r.OpenedAt.UTC().Format(time.DateOnly), r.ClosedAt.UTC().Format(time.DateOnly)))
		}
	}
	return out
}
