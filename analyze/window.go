package analyze

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/openshift-eng/prowcrawl/db"
)

// ErrUnknownSymptom is returned (wrapped, with the known ids) for a symptom
// id that the database does not know.
var ErrUnknownSymptom = errors.New("unknown symptom")

// ErrNoJob is returned (wrapped) when no stored job matches Selection.Job.
var ErrNoJob = errors.New("no job matches")

// Selection is which runs a windowed analysis counts, and with what
// thresholds. The zero value is every run stored, with DefaultOptions.
type Selection struct {
	// Job keeps the runs of the jobs it matches: every number (rates,
	// comparisons, trends, examples) counts only their runs.
	Job *regexp.Regexp
	// Since and Until bound the runs counted by start time (Since included,
	// Until excluded; zero: no bound): every number is computed from the
	// runs between them, never filtered from the stored all-time analysis.
	Since, Until time.Time
	// Options are the analysis thresholds; a zero Alpha: DefaultOptions.
	Options Options
}

// Tally counts the runs s selects by population and overall result.
func (s Selection) Tally(ctx context.Context, store *db.DB) (db.RunTally, error) {
	var keep func(string) bool
	if s.Job != nil {
		keep = s.Job.MatchString
	}
	t, err := store.TallyRuns(ctx, db.RunFilter{Since: s.Since, Until: s.Until}, keep)
	if err != nil {
		return t, fmt.Errorf("analyze: %w", err)
	}
	return t, nil
}

// Thresholds are s.Options, or DefaultOptions when they are unset.
func (s Selection) Thresholds() Options {
	if s.Options.Alpha == 0 {
		return DefaultOptions()
	}
	return s.Options
}

// Bounded says whether s counts only some of the runs stored.
func (s Selection) Bounded() bool { return !s.Since.IsZero() || !s.Until.IsZero() || s.Job != nil }

// Bounds are the database bounds of s: its times, and the stored jobs that
// s.Job matches (ErrNoJob when none does).
func (s Selection) Bounds(ctx context.Context, store *db.DB) (db.Bounds, error) {
	b := db.Bounds{Since: s.Since, Until: s.Until}
	if s.Job == nil {
		return b, nil
	}
	jobs, err := store.JobNames(ctx)
	if err != nil {
		return b, fmt.Errorf("analyze: %w", err)
	}
	b.Jobs = []string{}
	for _, j := range jobs {
		if s.Job.MatchString(j) {
			b.Jobs = append(b.Jobs, j)
		}
	}
	if len(b.Jobs) == 0 {
		return b, fmt.Errorf("%w %q", ErrNoJob, s.Job.String())
	}
	return b, nil
}

// Window computes, storing nothing, the analysis of the runs s selects
// with s's thresholds: Compute for s's bounds, so that every number of a
// page is counted from the runs between them. q asks for the weekly rates
// and the disruption comparisons; its Bounds are replaced by s's. (A
// loader that needs the bounds for reads of its own, as LoadSymptom,
// resolves them once and calls Compute.)
func Window(ctx context.Context, store *db.DB, s Selection, q Query) (Result, error) {
	b, err := s.Bounds(ctx, store)
	if err != nil {
		return Result{}, err
	}
	q.Bounds = b
	return Compute(ctx, store, s.Thresholds(), q)
}

// ActiveSymptoms returns the active symptoms, and checks that id (when
// set) is one the database knows (ErrUnknownSymptom when it is not).
func ActiveSymptoms(ctx context.Context, store *db.DB, id string) ([]db.Symptom, error) {
	all, err := store.Symptoms(ctx)
	if err != nil {
		return nil, fmt.Errorf("analyze: %w", err)
	}
	var active, ids []string
	var out []db.Symptom
	for _, s := range all {
		ids = append(ids, s.ID)
		if s.Active {
			active = append(active, s.ID)
			out = append(out, s)
		}
	}
	if id != "" && !slices.Contains(ids, id) {
		if len(active) == 0 {
			return nil, fmt.Errorf("%w %q: the database has no symptoms yet (crawl first)", ErrUnknownSymptom, id)
		}
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownSymptom, id, strings.Join(active, ", "))
	}
	return out, nil
}
