package artifact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/sourcegraph/conc"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/prow"
)

// maxDisruptionFile bounds a backend-disruption file, which is parsed
// whole; real ones are a few KiB.
const maxDisruptionFile = 16 << 20

// disruptionSources are the files a run's disruption is read from: its
// backend-disruption_*.json files, or, when it has none, the events files
// of one family (prow.DisruptionEventFiles), whose disruption intervals
// are summed. source says which.
func disruptionSources(files []File, loose bool) (srcs []File, source string) {
	var names []string
	for _, f := range files {
		name := f.Name()
		if !loose && !strings.HasPrefix(name, "artifacts/") {
			continue
		}
		if prow.IsBackendDisruptionFile(name) {
			srcs = append(srcs, f)
		}
		names = append(names, name)
	}
	if len(srcs) > 0 {
		return srcs, prowcrawl.DisruptionFromFile
	}
	want := map[string]bool{}
	for _, n := range prow.DisruptionEventFiles(names) {
		want[n] = true
	}
	for _, f := range files {
		if want[f.Name()] {
			srcs = append(srcs, f)
		}
	}
	return srcs, prowcrawl.DisruptionFromEvents
}

// parseDisruption reads the disruption rows of one file from in.
func (r *reading) parseDisruption(f File, source string, in io.Reader) ([]prowcrawl.RunDisruption, error) {
	var list []prow.Disruption
	switch source {
	case prowcrawl.DisruptionFromFile:
		b, err := io.ReadAll(io.LimitReader(in, maxDisruptionFile+1))
		if err != nil {
			return nil, readErr{err}
		}
		if len(b) > maxDisruptionFile {
			return nil, fmt.Errorf("%w (%d bytes)", ErrTooLarge, maxDisruptionFile)
		}
		if list, err = prow.ParseDisruption(b); err != nil {
			return nil, err
		}
	default:
		var di prow.DisruptionIntervals
		err := prow.ParseEvents(in, func(ev prow.Event) error {
			di.Add(ev)
			return nil
		})
		// The intervals read before a problem are real: keep them.
		list = di.Disruptions()
		if err != nil {
			return rows(r.run.Dir+f.Name(), source, list), err
		}
	}
	return rows(r.run.Dir+f.Name(), source, list), nil
}

// rows are a file's entries as rows of run_disruptions.
func rows(file, source string, list []prow.Disruption) []prowcrawl.RunDisruption {
	out := make([]prowcrawl.RunDisruption, 0, len(list))
	for _, d := range list {
		secs := d.Duration.Seconds()
		if d.NoDuration {
			secs = math.NaN()
		}
		out = append(out, prowcrawl.RunDisruption{File: file, Backend: d.Name, BackendName: d.BackendName(),
			Connection: d.ConnectionKind(), Seconds: secs, Source: source})
	}
	return out
}

// recordDisruption keeps what parseDisruption found, and records its
// problem, if any.
func (r *reading) recordDisruption(f File, got []prowcrawl.RunDisruption, err error) {
	// A backend cannot be down for longer than the run lasted: such a row
	// (an interval that ends in 2999, 9999h in a two-hour run) is a
	// problem of the file, not disruption.
	longest := r.longestDisruption()
	for _, d := range got {
		if d.Seconds > longest.Seconds() || d.Seconds < 0 {
			r.fail(f.Name(), "parse", fmt.Errorf("disruption %s%s: backend %s down for %.0f s, longer than the run can be (%s): left out",
				r.run.Dir, f.Name(), d.Backend, d.Seconds, longest))
			continue
		}
		r.res.Disruptions = append(r.res.Disruptions, d)
	}
	switch {
	case err == nil:
	case errors.Is(err, ErrTooLarge):
		r.fail(f.Name(), prowcrawl.ErrorSize, fmt.Errorf("read %s%s: %w", r.run.Dir, f.Name(), err))
	case isReadErr(err):
		r.fail(f.Name(), prowcrawl.ErrorRead, fmt.Errorf("read %s%s: %w", r.run.Dir, f.Name(), err))
	default:
		r.fail(f.Name(), prowcrawl.ErrorParse, fmt.Errorf("disruption %s%s: %w", r.run.Dir, f.Name(), err))
	}
}

// teeDisruption returns a reader of in whose bytes the disruption of f is
// parsed from as well, and finish, which gives the parser what the reader's
// consumer left and records what it found: a file a rule reads is
// downloaded once for both.
func (r *reading) teeDisruption(f File, source string, in io.Reader) (io.Reader, func()) {
	pr, pw := io.Pipe()
	var wg conc.WaitGroup
	var got []prowcrawl.RunDisruption
	var perr error
	wg.Go(func() {
		got, perr = r.parseDisruption(f, source, pr)
		_, _ = io.Copy(io.Discard, pr) // a parser that stopped early takes no more
		pr.Close()
	})
	sink := &teeSink{w: pw, left: math.MaxInt64}
	tee := io.TeeReader(in, sink)
	return tee, func() {
		_, _ = io.Copy(io.Discard, tee)
		pw.Close()
		wg.Wait()
		r.recordDisruption(f, got, perr)
	}
}

// disruptions reads the disruption sources no rule read (the others were
// parsed while they were scanned).
func (r *reading) disruptions(ctx context.Context, p plan) {
	for _, f := range p.disruption {
		if p.reads[f.Name()] {
			continue
		}
		rc, err := f.Open(ctx)
		if err != nil {
			r.fail(f.Name(), prowcrawl.ErrorRead, err)
			continue
		}
		cr := &capReader{r: rc, left: r.opts.MaxObjectBytes}
		got, err := r.parseDisruption(f, p.disruptionSource, cr)
		rc.Close()
		if cr.err != nil {
			err = readErr{cr.err}
		} else if cr.over {
			err = fmt.Errorf("%w (%d bytes)", ErrTooLarge, r.opts.MaxObjectBytes)
		}
		r.recordDisruption(f, got, err)
	}
}

// runMargin is how much longer than its recorded span a run's disruption
// may last (the clocks of the run's start, its end and its monitor differ),
// and unendedRun how long a run without a recorded end may have lasted.
const (
	runMargin  = time.Hour
	unendedRun = 48 * time.Hour
)

// longestDisruption is the longest a backend of the run can have been
// down: the run's span, plus a margin.
func (r *reading) longestDisruption() time.Duration {
	run := r.res.Record.Run
	if !run.StartedAt.IsZero() && run.FinishedAt.After(run.StartedAt) {
		return run.FinishedAt.Sub(run.StartedAt) + runMargin
	}
	return unendedRun + runMargin
}
