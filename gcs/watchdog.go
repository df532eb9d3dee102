package gcs

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"
)

// watchdog cancels a request's context when one step of it (opening,
// a listing page, one read) takes longer than its timeout. The client's
// own retries run inside the step, so the timeout bounds them too.
type watchdog struct {
	cancel  context.CancelCauseFunc
	timer   *time.Timer
	timeout time.Duration
	fired   atomic.Bool
}

func newWatchdog(ctx context.Context, timeout time.Duration) (context.Context, *watchdog) {
	ctx, cancel := context.WithCancelCause(ctx)
	w := &watchdog{cancel: cancel, timeout: timeout}
	w.timer = time.AfterFunc(timeout, func() {
		w.fired.Store(true)
		cancel(w.err())
	})
	w.timer.Stop()
	return ctx, w
}

func (w *watchdog) err() error { return fmt.Errorf("%w for %s", ErrStalled, w.timeout) }

// kick starts a step; pause ends it.
func (w *watchdog) kick()  { w.timer.Reset(w.timeout) }
func (w *watchdog) pause() { w.timer.Stop() }

// stop releases the context.
func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel(context.Canceled)
}

// explain replaces the context error the client returns after the
// watchdog fired by the reason it fired.
func (w *watchdog) explain(err error) error {
	if err == nil || err == io.EOF || !w.fired.Load() {
		return err
	}
	return w.err()
}
