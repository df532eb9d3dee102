package artifact

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/sourcegraph/conc"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/classify"
	"github.com/openshift-eng/prowcrawl/prow"
)

// tests parses the run's JUnit files and merges the cases: a test failed
// and passed in one run is a flake. A JUnit file a rule reads is scanned as
// it is parsed, from the same bytes. The cases are folded in as they are
// parsed, never held together, and past the cap on a run's tests
// (Options.MaxTests) only failures and flakes are kept: a `size` problem
// on the file where the cap was passed says what was left out.
func (r *reading) tests(ctx context.Context, p plan, scan *classify.Scan) []prow.TestResult {
	limit := cmp.Or(r.opts.MaxTests, prow.MaxRunTests)
	m := prow.NewMerger(limit)
	overAt := "" // the file in which the cap was passed
	for _, f := range p.junits {
		var feed func(io.Reader) error
		if scan != nil && p.reads[f.Name()] {
			feed = func(in io.Reader) error { return scan.FileAt(ctx, f.Name(), p.order[f.Name()], in) }
		}
		// A truncated file still gives the cases read before the problem.
		tee, err := r.junit(ctx, f, feed, m.Add)
		if err != nil {
			kind := prowcrawl.ErrorParse
			switch {
			case errors.Is(err, ErrTooLarge):
				kind = prowcrawl.ErrorSize
			case isReadErr(err):
				kind = prowcrawl.ErrorRead
			}
			r.fail(f.Name(), kind, err)
		}
		switch {
		case tee.over:
			r.fail(f.Name(), prowcrawl.ErrorSize, fmt.Errorf("read %s%s: %w (%d bytes); matched on the first part only", r.run.Dir, f.Name(), ErrTooLarge, r.opts.MaxObjectBytes))
		case tee.err != nil && !isReadErr(err):
			r.fail(f.Name(), prowcrawl.ErrorParse, fmt.Errorf("classify %s%s: %w", r.run.Dir, f.Name(), tee.err))
		}
		if n, _, _ := m.Dropped(); n > 0 && overAt == "" {
			overAt = f.Name()
		}
	}
	if cases, failures, forgotten := m.Dropped(); cases > 0 {
		what := fmt.Sprintf("every failure and flake kept up to %d tests", 2*limit)
		if failures > 0 {
			what = fmt.Sprintf("%d of them failed, past %d tests", failures, 2*limit)
		}
		if forgotten {
			what += "; too many passing tests left out to tell every later failure of one from a flake"
		}
		r.fail(overAt, prowcrawl.ErrorSize, fmt.Errorf("read %s%s: %w: %d cases of tests past the first %d of the run left out (%s)",
			r.run.Dir, overAt, ErrTooManyTests, cases, limit, what))
	}
	return m.Results()
}

// teeResult is how the scan of a JUnit file went, beside its parsing.
type teeResult struct {
	over bool  // the file was longer than MaxObjectBytes: scanned in part
	err  error // the scan's error
}

// readErr marks errors of the source, as opposed to errors of the content.
type readErr struct{ err error }

func (e readErr) Error() string { return e.err.Error() }
func (e readErr) Unwrap() error { return e.err }

func isReadErr(err error) bool {
	var re readErr
	return errors.As(err, &re)
}

// junit parses one JUnit file and gives each of its cases to add. With
// feed, the bytes parsed also go to feed as they arrive, all of them even
// when the parser stops early, up to MaxObjectBytes: the parser and the
// scan read one download together. The cases before a problem have been
// given to add.
func (r *reading) junit(ctx context.Context, f File, feed func(io.Reader) error, add func(prow.TestCase)) (tee teeResult, err error) {
	name := r.run.Dir + f.Name()
	rc, err := f.Open(ctx)
	if err != nil {
		return tee, readErr{err}
	}
	defer rc.Close()
	lr := &capReader{r: rc, left: maxJUnit}
	var in io.Reader = lr
	if feed != nil {
		pr, pw := io.Pipe()
		sink := &teeSink{w: pw, left: r.opts.MaxObjectBytes}
		var wg conc.WaitGroup
		var scanErr error
		wg.Go(func() {
			scanErr = feed(pr)
			pr.Close() // a scan that stopped early takes no more bytes
		})
		in = io.TeeReader(lr, sink)
		defer func() {
			_, _ = io.Copy(io.Discard, in) // what the parser left, for the scan
			pw.Close()
			wg.Wait()
			tee = teeResult{over: sink.over, err: scanErr}
		}()
	}
	// A body that is no XML at all (an HTML page answered in its place)
	// was not read: the run is partial and read again.
	br := bufio.NewReaderSize(in, 4096)
	if head, _ := br.Peek(512); prow.CheckBody(prow.BodyXML, head) != nil {
		return tee, readErr{fmt.Errorf("read %s: %w", name, prow.CheckBody(prow.BodyXML, head))}
	}
	err = prow.ScanJUnit(br, add)
	switch {
	case lr.over:
		return tee, fmt.Errorf("read %s: %w (%d bytes)", name, ErrTooLarge, maxJUnit)
	case lr.err != nil:
		return tee, readErr{fmt.Errorf("read %s: %w", name, lr.err)}
	case err != nil:
		return tee, fmt.Errorf("parse %s: %w", name, err)
	}
	return tee, nil
}

// teeSink passes bytes on to a scan, up to a cap; it never fails the
// reader it is teed from, whatever the scan does.
type teeSink struct {
	w    *io.PipeWriter
	left int64
	over bool
	dead bool
}

func (t *teeSink) Write(p []byte) (int, error) {
	n := len(p)
	if t.dead || t.over {
		return n, nil
	}
	if int64(len(p)) > t.left {
		p, t.over = p[:t.left], true
	}
	t.left -= int64(len(p))
	if _, err := t.w.Write(p); err != nil {
		t.dead = true
	}
	return n, nil
}

// capReader stops at a size cap and remembers whether the source failed, so
// that a broken download is not mistaken for broken content.
type capReader struct {
	r    io.Reader
	left int64
	over bool
	err  error
}

func (c *capReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		// At the cap: the object is over it only if it goes on.
		var one [1]byte
		_, err := io.ReadFull(c.r, one[:])
		switch {
		case err == io.EOF:
			return 0, io.EOF
		case err != nil:
			c.err = err
			return 0, err
		}
		c.over = true
		return 0, ErrTooLarge
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}
