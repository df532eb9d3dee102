package db

import (
	"fmt"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// The scopes and comparisons of symptom_verdicts and test_flake_rates. The
// scopes are the root package's (prowcrawl.Scope), as the strings that the
// rows and filters hold.
const (
	ScopeJob       = string(prowcrawl.ScopeJob)
	ScopeEdge      = string(prowcrawl.ScopeEdge)
	ScopeVariant   = string(prowcrawl.ScopeVariant)
	ScopePresubmit = string(prowcrawl.ScopePresubmit)

	CompareRelease = "release"
	CompareWindow  = "window"
)

// countedRun is the SQL condition on runs r that the run counts: it finished,
// successfully or not. Aborted and pending runs never count.
const countedRun = `r.result IN ('success', 'failure', 'error')`

// Filter narrows what the readers return. Zero fields do not filter.
type Filter struct {
	Symptom string // a symptom id
	Scope   string // job, edge or variant
	Key     string // a scope key: a job name, an edge ("4.13->4.14 minor") or a variant
	// Job keeps what concerns one job: for verdicts, the job's own rows and
	// those of the edges and variants its runs are on; for rates, only the
	// job's runs are counted.
	Job string
	// Since keeps, for rates, the runs started at or after it; for
	// verdicts, the rows computed at or after it.
	Since time.Time
}

// check rejects a scope that does not exist, which would select nothing.
func (f Filter) check() error {
	switch f.Scope {
	case "", ScopeJob, ScopeEdge, ScopeVariant, ScopePresubmit:
		return nil
	}
	return fmt.Errorf("unknown scope %q (want job, edge, variant or presubmit)", f.Scope)
}

// where builds the conditions of a query.
type where struct {
	conds []string
	args  []any
}

func (w *where) add(cond string, args ...any) {
	w.conds = append(w.conds, cond)
	w.args = append(w.args, args...)
}

func (w *where) sql() string {
	if len(w.conds) == 0 {
		return ""
	}
	return " AND " + strings.Join(w.conds, " AND ")
}

// analysisWhere is the conditions of f on a table of the analysis, alias t:
// the scope, the key, the job and the time it was computed.
func (f Filter) analysisWhere(t string) *where {
	w := &where{}
	if f.Scope != "" {
		w.add(t+`.scope = ?`, f.Scope)
	}
	if f.Key != "" {
		w.add(t+`.scope_key = ?`, f.Key)
	}
	if f.Job != "" {
		// The job's edges, from the index that holds them.
		w.add(`(`+t+`.scope IN ('job', 'presubmit') AND `+t+`.scope_key = ?
	OR `+t+`.scope = 'edge' AND `+t+`.scope_key IN (SELECT r.edge FROM runs r INDEXED BY runs_key WHERE r.job = ?)
	OR `+t+`.scope = 'variant' AND `+t+`.scope_key IN (SELECT r.variant FROM runs r INDEXED BY runs_key WHERE r.job = ?))`,
			f.Job, f.Job, f.Job)
	}
	if !f.Since.IsZero() {
		w.add(t+`.computed_at >= ?`, formatTime(f.Since))
	}
	return w
}
