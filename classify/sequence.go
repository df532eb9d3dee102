package classify

import (
	"time"

	"github.com/openshift-eng/prowcrawl/prow"
)

// maxWindow bounds the "first" events a sequence keeps while it waits for
// a "then": a burst of more drops the oldest.
const maxWindow = 1024

// seqWindow holds the recent "first" events of a sequence in one file.
type seqWindow struct {
	firsts []seqStart
	head   int // firsts[:head] have left the window
}

// seqStart is a "first" event.
type seqStart struct {
	at       time.Time
	line     int
	ns, node string
	raw      string // the line, kept only while it could become evidence
}

func (s *Scan) window(id int) *seqWindow {
	w := s.wins[id]
	if w == nil {
		w = &seqWindow{}
		s.wins[id] = w
	}
	return w
}

// seqFirst records a "first" event.
func (s *Scan) seqFirst(f *fileState, m *compiledMatcher, t *prow.MonitorLine, line []byte, start int) {
	w := s.window(m.id)
	if len(w.firsts)-w.head >= maxWindow {
		w.head++
	}
	if w.head > 0 && w.head >= len(w.firsts)/2 {
		w.firsts = w.firsts[:copy(w.firsts, w.firsts[w.head:])]
		w.head = 0
	}
	ev := seqStart{at: t.At, line: f.lineAt(start), ns: t.Namespace, node: t.Node}
	if st := &s.state[m.id]; !st.has || f.file < st.ev.file {
		ev.raw = string(line[:min(len(line), 4*MaxExcerpt)])
	}
	w.firsts = append(w.firsts, ev)
}

// maxSequenceHalf is the share of an excerpt each end of a sequence gets.
const maxSequenceHalf = (MaxExcerpt - len(sequenceJoin)) / 2

// sequenceJoin separates the two lines of a sequence's excerpt.
const sequenceJoin = " ⏎ "

// seqThen pairs a "then" event with the "first" events before it.
func (s *Scan) seqThen(f *fileState, m *compiledMatcher, t *prow.MonitorLine, line []byte, start int) {
	w := s.wins[m.id]
	if w == nil {
		return
	}
	seq := m.sequence
	for w.head < len(w.firsts) && t.At.Sub(w.firsts[w.head].at) > seq.within {
		w.head++
	}
	st := &s.state[m.id]
	for i := w.head; i < len(w.firsts); i++ {
		first := &w.firsts[i]
		if d := t.At.Sub(first.at); d < 0 || d > seq.within {
			continue
		}
		switch seq.different {
		case differentNamespace:
			if first.ns == "" || t.Namespace == "" || first.ns == t.Namespace {
				continue
			}
		case differentNode:
			if first.node == "" || t.Node == "" || first.node == t.Node {
				continue
			}
		}
		st.count++
		st.seen(s.inRun(s.dated(first.at)))
		st.seen(s.inRun(s.dated(t.At)))
		if !st.has || f.file < st.ev.file {
			text := truncateUTF8(excerpt([]byte(first.raw)), maxSequenceHalf) + sequenceJoin + truncateUTF8(excerpt(line), maxSequenceHalf)
			st.has = true
			st.ev = evidence{file: f.file, rel: f.rel, line: first.line, excerpt: text, at: s.dated(first.at)}
		}
	}
}
