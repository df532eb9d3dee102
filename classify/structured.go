package classify

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/openshift-eng/prowcrawl/prow"
)

// events matches an events, intervals or timelines file: each item against
// the events matchers, and its rendering, "<locator> <message>", as one
// line against the lines and sequence matchers.
func (s *Scan) events(ctx context.Context, f *fileState, r io.Reader) error {
	p := f.p
	n := 0
	return prow.ParseEvents(r, func(ev prow.Event) error {
		n++
		if n%eventsPerCheck == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		text := renderEvent(&ev)
		for _, m := range p.matchers {
			if m.kind != kindEvents || !m.events.match(&ev) {
				continue
			}
			st := &s.state[m.id]
			st.count++
			from := s.inRun(ev.From)
			st.seen(from)
			st.seen(s.inRun(ev.To))
			if !st.has || f.file < st.ev.file {
				st.has, st.ev = true, evidence{file: f.file, rel: f.rel, line: n, excerpt: excerpt([]byte(text)), at: from}
			}
			if !from.IsZero() && (!st.hasTimed || from.Before(st.timed.at)) {
				st.offerTimed(evidence{file: f.file, rel: f.rel, line: n, excerpt: excerpt([]byte(text)), at: from})
			}
		}
		if len(p.probes) == 0 {
			return nil
		}
		f.event, f.eventLine, f.eventText = &ev, n, text
		s.block(f, []byte(text))
		f.event = nil
		return nil
	})
}

// renderEvent is the one-line text of an event that lines and sequence
// matchers see, as openshift-tests prints it: its locator, its reason as
// "reason/X" (structured messages keep it apart from the human message),
// and its message; ANSI escapes removed and newlines escaped as the
// monitor's text form does.
func renderEvent(ev *prow.Event) string {
	text := ev.Message
	if ev.Reason != "" && !strings.Contains(text, "reason/"+ev.Reason) {
		text = "reason/" + ev.Reason + " " + text
	}
	if ev.Locator != "" {
		text = ev.Locator + " " + text
	}
	text = prow.StripANSI(text)
	if strings.ContainsAny(text, "\r\n") {
		text = strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(text)
	}
	return truncateUTF8(text, maxLine)
}

// match reports whether every regex that is set matches its field.
func (e *eventsProgram) match(ev *prow.Event) bool {
	return (e.reason == nil || e.reason.MatchString(ev.Reason)) &&
		(e.locator == nil || e.locator.MatchString(ev.Locator)) &&
		(e.message == nil || e.message.MatchString(ev.Message))
}

// disruption matches a backend-disruption file.
func (s *Scan) disruption(f *fileState, r io.Reader) error {
	b, err := io.ReadAll(io.LimitReader(r, maxDisruptionFile+1))
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	if len(b) > maxDisruptionFile {
		return fmt.Errorf("backend disruption: %w (over %d bytes)", ErrTooLarge, maxDisruptionFile)
	}
	list, err := prow.ParseDisruption(b)
	if err != nil {
		return err
	}
	for _, m := range f.p.matchers {
		d := m.disruption
		st := &s.state[m.id]
		for _, e := range list {
			if e.Duration < d.min || (d.backend != nil && !d.backend.MatchString(e.Name) && !d.backend.MatchString(e.Backend)) {
				continue
			}
			st.count++
			for _, msg := range e.Messages {
				if t, ok := prow.LineTime([]byte(msg), s.info.Start); ok {
					st.seen(s.inRun(s.dated(t)))
				}
			}
			if st.has && st.ev.file <= f.file {
				continue
			}
			text := fmt.Sprintf("%s disrupted for %s", e.Name, e.Duration)
			ev := evidence{file: f.file, rel: f.rel}
			if len(e.Messages) > 0 {
				text += ": " + e.Messages[0]
				if t, ok := prow.LineTime([]byte(e.Messages[0]), s.info.Start); ok {
					ev.at = s.dated(t)
				}
			}
			ev.excerpt = excerpt([]byte(text))
			st.has, st.ev = true, ev
		}
	}
	return nil
}
