package classify

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/bits"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/openshift-eng/prowcrawl/prow"
)

const (
	// chunkSize is how much of a text file is read at once.
	chunkSize = 256 << 10
	// maxLine is how much of a line is matched; the rest of a longer line
	// is skipped, and the line counts as one.
	maxLine = 64 << 10
	// maxDisruptionFile bounds a backend-disruption file, which is parsed
	// whole; real ones are a few kilobytes.
	maxDisruptionFile = 16 << 20
	// maxGunzipped bounds what a gzip file may expand to.
	maxGunzipped = 4 << 30
	// eventsPerCheck is how many events are matched between checks of the
	// context.
	eventsPerCheck = 1024
)

// probeAdded marks a probe whose literal sets are all on the line and that
// has been collected for it.
const probeAdded = 0x80

// ErrTooLarge reports a file over a limit of the engine.
var ErrTooLarge = errors.New("file too large")

// bufPool holds the read buffers of text files: a chunk and the start of a
// line carried over from the chunk before.
var bufPool = sync.Pool{New: func() any {
	b := make([]byte, chunkSize+maxLine)
	return &b
}}

// Scan matches the files of one run. Feed it every file the engine Wants,
// then read Matches. A Scan is not safe for concurrent use.
type Scan struct {
	e     *Engine
	info  RunInfo
	files int // files fed so far
	state []matcherState
	wins  map[int]*seqWindow // sequence state by matcher id, per file
	// rel is the file being matched; outside the first time of each file
	// that could not be the run's (OutOfRun).
	rel     string
	outside map[string]time.Time
	// cluster are the run's cluster networks (DefaultClusterNetwork when
	// it does not say); ownNetwork says that the run said.
	cluster    []netip.Prefix
	ownNetwork bool

	// Reused between blocks.
	hits       []hit
	spare      [3][]hit
	cands      []candLine
	arena      []int32
	mask       []uint8  // by probe: the literal sets found on the line, and probeAdded
	masked     []uint64 // by probe: the stamp of the line mask is about
	stamp      uint64
	serial     uint64 // numbers the lines evaluated
	probes     []int32
	spans      []span
	spareSpans [3][]span
	dfas       []*dfaCache // by lazyDFA id, taken from their pools for a file
	cat        []byte      // candidate lines, together
	catLines   []catLine   // where they came from
}

// matcherState is the evidence one matcher found in a run so far.
type matcherState struct {
	count   int
	decided uint64 // serial of the last line the matcher decided on
	has     bool
	ev      evidence
	// timed is the evidence with the earliest time (hasTimed: there is
	// one): the evidence a match reports when any of it is dated, so that
	// an undated line read first (a JUnit failure body) never hides the
	// time of the same event in a log.
	hasTimed bool
	timed    evidence
	// earliest and latest are the times of the earliest and the latest
	// evidence counted, zero while none was dated: how long the run
	// showed it.
	earliest, latest time.Time
}

// offerTimed keeps e as the matcher's timed evidence when it is dated and
// earlier than the one kept (in feed order when as early).
func (st *matcherState) offerTimed(e evidence) {
	if e.at.IsZero() {
		return
	}
	if !st.hasTimed || e.at.Before(st.timed.at) || (e.at.Equal(st.timed.at) && e.before(&st.timed)) {
		st.hasTimed, st.timed = true, e
	}
}

// maxRunSpan is how long after its start a run's evidence can be dated,
// and runEarly how long before it: a time outside (an interval that ends
// in 2999, a log line of another year) is no evidence of when the run
// showed a symptom, and its evidence counts undated.
const (
	maxRunSpan = 48 * time.Hour
	runEarly   = time.Hour
)

// inRun is t when it can be a time of the run, else zero (undated). A scan
// without the run's own start (none, or a guessed one) bounds nothing.
func (s *Scan) inRun(t time.Time) time.Time {
	if t.IsZero() || s.info.Start.IsZero() || s.info.StartGuessed {
		return t
	}
	if t.Before(s.info.Start.Add(-runEarly)) || t.After(s.info.Start.Add(maxRunSpan)) {
		if _, ok := s.outside[s.rel]; !ok {
			if s.outside == nil {
				s.outside = map[string]time.Time{}
			}
			s.outside[s.rel] = t
		}
		return time.Time{}
	}
	return t
}

// TimeProblem is a file whose evidence bore a time the run cannot have:
// the evidence counted, undated. At is the first such time.
type TimeProblem struct {
	File string // relative to the run directory
	At   time.Time
}

// OutOfRun lists, by file, the evidence times that could not be the
// run's (more than an hour before its start, more than two days after):
// a parse problem of the file, for the caller to record.
func (s *Scan) OutOfRun() []TimeProblem {
	out := make([]TimeProblem, 0, len(s.outside))
	for f, at := range s.outside {
		out = append(out, TimeProblem{File: f, At: at})
	}
	slices.SortFunc(out, func(a, b TimeProblem) int { return cmp.Compare(a.File, b.File) })
	return out
}

// seen widens the matcher's span of dated evidence to t (zero: undated).
func (st *matcherState) seen(t time.Time) {
	if t.IsZero() {
		return
	}
	if st.earliest.IsZero() || t.Before(st.earliest) {
		st.earliest = t
	}
	if t.After(st.latest) {
		st.latest = t
	}
}

// evidence is the first thing a matcher found.
type evidence struct {
	file    int // feed order: 0 for RunInfo, then 1, 2, ... for files
	rel     string
	line    int
	excerpt string
	at      time.Time
}

// reported is the evidence a match reports of the matcher: its earliest
// dated evidence, else the first found.
func (st *matcherState) reported() *evidence {
	if st.hasTimed && (st.ev.at.IsZero() || st.timed.at.Before(st.ev.at)) {
		return &st.timed
	}
	return &st.ev
}

// earlier reports whether a match reports a rather than b: dated evidence
// before undated, the earlier time first, then the feed order.
func (a *evidence) earlier(b *evidence) bool {
	switch {
	case a.at.IsZero() != b.at.IsZero():
		return !a.at.IsZero()
	case !a.at.Equal(b.at):
		return a.at.Before(b.at)
	}
	return a.before(b)
}

// before reports whether a was found before b.
func (a *evidence) before(b *evidence) bool {
	return a.file < b.file || (a.file == b.file && a.line < b.line)
}

// Begin starts the scan of one run and matches what info holds (tests and
// upgrade state). Those can also be given later, with SetRun.
func (e *Engine) Begin(info RunInfo) *Scan {
	s := &Scan{e: e, info: info, state: make([]matcherState, len(e.matchers)), wins: make(map[int]*seqWindow),
		cluster: []netip.Prefix{DefaultClusterNetwork}}
	if len(info.ClusterNetworks) > 0 {
		s.cluster, s.ownNetwork = info.ClusterNetworks, true
	}
	s.SetRun(info.Tests, info.UpgradeState)
	return s
}

// SetRun matches the run's merged test results and upgrade state, in place
// of those Begin was given: a crawl learns them while it reads the files.
func (s *Scan) SetRun(tests []prow.TestResult, upgradeState string) {
	s.info.Tests, s.info.UpgradeState = tests, upgradeState
	for _, m := range s.e.matchers {
		st := &s.state[m.id]
		switch m.kind {
		case kindJUnit:
			*st = matcherState{}
			for _, t := range tests {
				if !slices.Contains(m.junit.status, t.Status) || !m.junit.name.MatchString(t.Name) {
					continue
				}
				st.count++
				if !st.has {
					text := t.Name
					if first, _, _ := strings.Cut(strings.TrimSpace(t.Message), "\n"); first != "" {
						text += ": " + first
					}
					st.has, st.ev = true, evidence{excerpt: excerpt([]byte(text))}
				}
			}
		case kindUpgrade:
			*st = matcherState{}
			if upgradeState == m.upgrade {
				st.count = 1
				st.has, st.ev = true, evidence{excerpt: "clusterversion history[0].state = " + m.upgrade}
			}
		}
	}
}

// File matches one file of the run. rel is its path relative to the run
// directory, with forward slashes; only the rules whose files match rel
// read it. r is read once, as a stream (gzip content is expanded): a
// backend-disruption*.json file is matched by disruption matchers, an
// e2e-events*.json, e2e-intervals*.json, e2e-timelines*.json or
// AdditionalEvents*.json file by events matchers and, one line per item,
// by lines and sequence matchers, and any other file by lines and sequence
// matchers.
//
// A read or parse error is returned; what was matched before it counts.
func (s *Scan) File(ctx context.Context, rel string, r io.Reader) error {
	return s.FileAt(ctx, rel, s.files+1, r)
}

// FileAt is File for the file at place order (from 1) among the run's
// files. Files may then be given in any order: where several hold evidence
// of a rule, the one with the lowest order is reported, as if they had come
// in that order. A run's files are given either all with File or all with
// FileAt.
func (s *Scan) FileAt(ctx context.Context, rel string, order int, r io.Reader) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	active := make([]bool, len(s.e.compiled))
	some := false
	for i, cr := range s.e.compiled {
		active[i] = cr.files.MatchString(rel)
		some = some || active[i]
	}
	if !some {
		return nil
	}
	kind := kindOf(rel)
	p := s.e.programFor(kind, active)
	if len(p.matchers) == 0 {
		return nil
	}
	s.files = max(s.files, order)
	s.rel = rel
	for _, m := range p.matchers {
		if m.kind == kindSequence {
			delete(s.wins, m.id)
		}
	}
	src, err := plain(r)
	if err != nil {
		return err
	}
	defer s.releaseCaches()
	f := &fileState{p: p, rel: rel, file: order, lineNo: 1}
	switch kind {
	case fileDisruption:
		return s.disruption(f, src)
	case fileEvents:
		return s.events(ctx, f, src)
	}
	return s.text(ctx, f, src)
}

// Matches returns the symptoms found so far, sorted by id. Call it after
// the last File.
func (s *Scan) Matches() []Match {
	var out []Match
	for _, cr := range s.e.compiled {
		if !cr.rule.appliesTo(s.info.Topology) {
			continue
		}
		hits := 0
		var first *evidence
		var span matcherState
		for _, m := range cr.matchers {
			st := &s.state[m.id]
			if st.count == 0 || st.count < m.min {
				continue
			}
			hits += st.count
			if ev := st.reported(); first == nil || ev.earlier(first) {
				first = ev
			}
			span.seen(st.earliest)
			span.seen(st.latest)
		}
		if hits == 0 {
			continue
		}
		m := Match{Symptom: cr.rule.ID, Hits: hits, File: first.rel, Line: first.line, Excerpt: first.excerpt, At: first.at}
		// LastAt is the latest evidence's time, never before At; unknown
		// when At is.
		if !m.At.IsZero() {
			m.LastAt = m.At
			if span.latest.After(m.At) {
				m.LastAt = span.latest
			}
		}
		out = append(out, m)
	}
	slices.SortFunc(out, func(a, b Match) int { return cmp.Compare(a.Symptom, b.Symptom) })
	return out
}

// plain returns r, expanded when it holds gzip data.
func plain(r io.Reader) (io.Reader, error) {
	var head [2]byte
	n, err := io.ReadFull(r, head[:])
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, fmt.Errorf("read: %w", err)
	}
	src := io.MultiReader(bytes.NewReader(head[:n]), r)
	if n == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(src)
		if err != nil {
			return nil, fmt.Errorf("gunzip: %w", err)
		}
		return &limitedReader{r: zr, left: maxGunzipped}, nil
	}
	return src, nil
}

// limitedReader fails with ErrTooLarge past its limit, where io.LimitReader
// would end quietly.
type limitedReader struct {
	r    io.Reader
	left int64
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("gunzip: %w", ErrTooLarge)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// fileState is the position in one file.
type fileState struct {
	p    *program
	rel  string
	file int

	// Text files: the block being matched, the number of its first line,
	// and a count of its lines up to countPos, made as needed.
	blk       []byte
	lineNo    int
	countPos  int
	countLine int

	// Events files: the item being matched and its number from 1.
	event     *prow.Event
	eventLine int
	eventText string
}

// lineAt returns the number of the line that starts at off in the block.
// Calls must come with offsets in increasing order.
func (f *fileState) lineAt(off int) int {
	if f.event != nil {
		return f.eventLine
	}
	f.countLine += bytes.Count(f.blk[f.countPos:off], []byte{'\n'})
	f.countPos = off
	return f.countLine
}

// candLine is a line that holds literals: blk[start:end], and the probes
// those literals call for, arena[from:to].
type candLine struct {
	start, end int
	from, to   int
}

// text matches a text file.
func (s *Scan) text(ctx context.Context, f *fileState, r io.Reader) error {
	r = &lazyStripper{src: r}
	bp := bufPool.Get().(*[]byte)
	defer bufPool.Put(bp)
	buf := *bp
	carry, skipping := 0, false
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := fill(r, buf[carry:carry+chunkSize])
		last := rerr != nil
		if rerr == io.EOF {
			rerr = nil
		}
		data := buf[:carry+n]
		if skipping {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				carry = 0
				if last {
					return readError(rerr)
				}
				continue
			}
			// The rest of an over-long line, already counted.
			data, skipping = data[i+1:], false
		}
		blk, rest := data, []byte(nil)
		if !last {
			i := bytes.LastIndexByte(data, '\n')
			blk, rest = data[:i+1], data[i+1:]
		}
		if len(blk) > 0 {
			s.block(f, blk)
			if s.needsLines(f) {
				f.lineNo += bytes.Count(blk, []byte{'\n'})
			}
		}
		if last {
			return readError(rerr)
		}
		if len(rest) > maxLine {
			// A line longer than maxLine with no end in sight: match
			// its start and skip the rest of it. The byte past maxLine
			// goes along so that the line is seen to be longer.
			s.block(f, rest[:maxLine+1])
			f.lineNo++
			carry, skipping = 0, true
			continue
		}
		carry = copy(buf, rest)
	}
}

// lazyStripper is prow.NewANSIStripper(src) that reads src straight into
// the caller's buffer until the first ESC byte, and only from there on
// through the stripper: most logs hold no escape sequence, and the stripper
// copies every byte twice. Before an ESC the stripper gives its input
// back as it is and its state is that of the start, so starting it at the
// first ESC gives the same bytes.
type lazyStripper struct {
	src   io.Reader
	strip io.Reader // the stripper, from the first ESC on; nil before it
}

func (l *lazyStripper) Read(p []byte) (int, error) {
	if l.strip != nil {
		return l.strip.Read(p)
	}
	n, err := l.src.Read(p)
	i := bytes.IndexByte(p[:n], 0x1b)
	if i < 0 {
		return n, err
	}
	rest := io.Reader(bytes.NewReader(bytes.Clone(p[i:n])))
	if err == nil {
		rest = io.MultiReader(rest, l.src)
	} else if err != io.EOF {
		rest = io.MultiReader(rest, errReader{err})
	}
	l.strip = prow.NewANSIStripper(rest)
	if i > 0 {
		return i, nil
	}
	return l.strip.Read(p)
}

// errReader fails with err.
type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// cache returns the cache of d that the scan holds, taking one from d's
// pool when it holds none.
func (s *Scan) cache(d *lazyDFA) *dfaCache {
	if d.id >= len(s.dfas) {
		s.dfas = append(s.dfas, make([]*dfaCache, d.id+1-len(s.dfas))...)
	}
	c := s.dfas[d.id]
	if c == nil {
		c = d.get()
		s.dfas[d.id] = c
	}
	return c
}

// releaseCaches gives the automata's caches back to their pools.
func (s *Scan) releaseCaches() {
	for i, c := range s.dfas {
		if c != nil {
			c.d.put(c)
			s.dfas[i] = nil
		}
	}
}

// needsLines reports whether a matcher of the file may still take its
// evidence, and so its line number, from the file. Once none may, the
// file's lines are no longer counted: a line number is kept only as
// evidence, and a matcher with evidence from this file or one before it
// takes no other.
func (s *Scan) needsLines(f *fileState) bool {
	for _, m := range f.p.matchers {
		if st := &s.state[m.id]; !st.has || f.file < st.ev.file {
			return true
		}
	}
	return false
}

// fill reads into p until it is full or r fails; unlike io.ReadFull it
// gives r's own error, io.EOF included, as it is.
func fill(r io.Reader, p []byte) (int, error) {
	n, empty := 0, 0
	for n < len(p) {
		m, err := r.Read(p[n:])
		n += m
		if err != nil {
			return n, err
		}
		if m == 0 {
			if empty++; empty >= 100 {
				return n, io.ErrNoProgress
			}
		}
	}
	return n, nil
}

func readError(err error) error {
	if err != nil {
		return fmt.Errorf("read: %w", err)
	}
	return nil
}

// block matches the lines of blk, which end with a newline except perhaps
// the last. It first finds every line that contains a literal of a probe,
// in one pass of the automaton over the whole block, then runs the probes
// those literals call for on those lines only (and the probes without
// literals on every line).
func (s *Scan) block(f *fileState, blk []byte) {
	p := f.p
	f.blk, f.countPos, f.countLine = blk, 0, f.lineNo
	if cap(s.mask) < len(p.probes) {
		s.mask, s.masked = make([]uint8, len(p.probes)), make([]uint64, len(p.probes))
	}
	s.mask, s.masked = s.mask[:len(p.probes)], s.masked[:len(p.probes)]
	s.cands, s.arena = s.cands[:0], s.arena[:0]
	switch {
	case p.skipProbes != nil:
		// The skipper's lines, with the probes their literals call for.
		// A probe is called for by its first set alone: its expression
		// decides, and a line without the other sets fails it.
		s.spans = p.skip.lines(blk, s.spans[:0], &s.spareSpans)
		for _, l := range s.spans {
			s.stamp++
			from := len(s.arena)
			for set := l.lits; set != 0; set &= set - 1 {
				for _, pi := range p.skipProbes[bits.TrailingZeros64(set)] {
					if s.masked[pi] != s.stamp {
						s.masked[pi] = s.stamp
						s.arena = append(s.arena, pi)
					}
				}
			}
			s.cands = append(s.cands, candLine{start: l.start, end: l.end, from: from, to: len(s.arena)})
		}
	case p.ac != nil:
		if p.skip == nil {
			s.hits = p.ac.scan(blk, s.hits[:0], &s.spare)
		} else {
			s.hits = s.candidateHits(p, blk)
		}
		lineStart, lineEnd := 0, -1
		for _, h := range s.hits {
			last := int(h.end) - 1 // the literal's last byte
			if last > lineEnd {
				if len(s.cands) > 0 {
					s.cands[len(s.cands)-1].to = len(s.arena)
				}
				from := lineEnd + 1
				lineStart = from + bytes.LastIndexByte(blk[from:last], '\n') + 1
				if i := bytes.IndexByte(blk[last:], '\n'); i >= 0 {
					lineEnd = last + i
				} else {
					lineEnd = len(blk)
				}
				s.stamp++
				s.cands = append(s.cands, candLine{start: lineStart, end: lineEnd, from: len(s.arena)})
			}
			if int(h.end)-lineStart > maxLine {
				continue // past the part of the line that is matched
			}
			for _, lit := range p.ac.outputs(h) {
				for _, t := range p.litTarget[lit] {
					pi := t.probe
					if s.masked[pi] != s.stamp {
						s.masked[pi], s.mask[pi] = s.stamp, 0
					}
					m := s.mask[pi] | 1<<t.bit
					if m == p.full[pi] {
						m |= probeAdded
						s.arena = append(s.arena, pi)
					}
					s.mask[pi] = m
				}
			}
		}
		if len(s.cands) > 0 {
			s.cands[len(s.cands)-1].to = len(s.arena)
		}
	}
	if len(p.always) == 0 {
		for _, c := range s.cands {
			if c.to > c.from {
				s.line(f, blk[c.start:c.end], c.start, s.arena[c.from:c.to])
			}
		}
		return
	}
	ci := 0
	for start := 0; start < len(blk); {
		end := len(blk)
		if i := bytes.IndexByte(blk[start:], '\n'); i >= 0 {
			end = start + i
		}
		s.probes = append(s.probes[:0], p.always...)
		if ci < len(s.cands) && s.cands[ci].start == start {
			c := s.cands[ci]
			s.probes = append(s.probes, s.arena[c.from:c.to]...)
			ci++
		}
		s.line(f, blk[start:end], start, s.probes)
		start = end + 1
	}
}

// candidateHits returns the hits of the automaton in the lines of blk that
// hold a literal of a probe's first set, which the skipper finds. Those
// lines are copied together and scanned at once, the automaton's fastest
// way; the hits are then moved back to the lines' places in blk.
func (s *Scan) candidateHits(p *program, blk []byte) []hit {
	s.spans = p.skip.lines(blk, s.spans[:0], &s.spareSpans)
	s.cat, s.catLines = s.cat[:0], s.catLines[:0]
	for _, l := range s.spans {
		s.catLines = append(s.catLines, catLine{cat: len(s.cat), blk: l.start})
		s.cat = append(s.cat, blk[l.start:l.end]...)
		s.cat = append(s.cat, '\n')
	}
	hits := p.ac.scan(s.cat, s.hits[:0], &s.spare)
	j := 0
	for i := range hits {
		last := int(hits[i].end) - 1
		for j+1 < len(s.catLines) && s.catLines[j+1].cat <= last {
			j++
		}
		hits[i].end += int32(s.catLines[j].blk - s.catLines[j].cat)
	}
	return hits
}

// catLine is where a candidate line starts in Scan.cat and in the block.
type catLine struct {
	cat, blk int
}

// lineText returns what of a line is matched: at most maxLine bytes, and
// without the '\r' of a CRLF ending.
func lineText(line []byte) []byte {
	if len(line) > maxLine {
		return line[:maxLine]
	}
	if n := len(line); n > 0 && line[n-1] == '\r' {
		return line[:n-1]
	}
	return line
}

// line runs probes on one line, at offset start of the block.
func (s *Scan) line(f *fileState, raw []byte, start int, probes []int32) {
	line := lineText(raw)
	s.serial++
	p := f.p
	var timed prow.MonitorLine
	timedState := 0 // 0 not parsed, 1 parsed, -1 no timestamp
	timedLine := func() bool {
		if timedState == 0 {
			timedState = -1
			switch {
			case f.event != nil:
				if !f.event.From.IsZero() {
					timed = prow.MonitorLine{At: f.event.From, Namespace: f.event.Namespace, Node: f.event.Node, Text: f.eventText}
					timedState = 1
				}
			default:
				if m, ok := prow.ParseTimedLine(line, s.info.Start); ok {
					timed, timedState = m, 1
				}
			}
		}
		return timedState == 1
	}
	// Lines matchers and sequence ends first, then sequence starts, so that
	// a line matching both ends of a sequence does not pair with itself.
	for pass := 0; pass < 2; pass++ {
		for _, pi := range probes {
			pr := p.probes[pi]
			switch {
			case pass == 0 && (pr.kind == probeAny || pr.kind == probeAll):
				s.linesProbe(f, pr, line, start)
			case pass == 0 && pr.kind == probeThen:
				// A "then" with no "first" waiting pairs with nothing.
				if w := s.wins[pr.matcher.id]; w == nil || w.head == len(w.firsts) {
					continue
				}
				if timedLine() && matches(s, pr.fast, timed.Text) {
					s.seqThen(f, pr.matcher, &timed, line, start)
				}
			case pass == 1 && pr.kind == probeFirst:
				if timedLine() && matches(s, pr.fast, timed.Text) {
					s.seqFirst(f, pr.matcher, &timed, line, start)
				}
			}
		}
	}
}

// linesProbe decides a lines matcher on a line once one of its probes'
// literals is on it.
func (s *Scan) linesProbe(f *fileState, pr *probe, line []byte, start int) {
	m := pr.matcher
	st := &s.state[m.id]
	if st.decided == s.serial {
		return
	}
	if pr.kind == probeAny && !s.matchAny(pr, line, s.cidrOf(m.lines)) {
		return
	}
	st.decided = s.serial
	for _, re := range m.all {
		if !matches(s, re, line) {
			return
		}
	}
	for _, re := range m.not {
		if matches(s, re, line) {
			return
		}
	}
	st.count++
	var at time.Time
	if f.event != nil {
		at = s.inRun(f.event.From)
		st.seen(s.inRun(f.event.To))
	} else if t, ok := prow.LineTime(line, s.info.Start); ok {
		at = s.inRun(s.dated(t))
	}
	st.seen(at)
	if !st.has || f.file < st.ev.file {
		st.has, st.ev = true, evidence{file: f.file, rel: f.rel, line: f.lineAt(start), excerpt: excerpt(line), at: at}
	}
	if !at.IsZero() && (!st.hasTimed || at.Before(st.timed.at)) {
		st.offerTimed(evidence{file: f.file, rel: f.rel, line: f.lineAt(start), excerpt: excerpt(line), at: at})
	}
}

// cidrOf are the networks the "ip" groups of l must hold an address of, in
// this run: its own cluster networks when l says cluster.
func (s *Scan) cidrOf(l *linesProgram) []netip.Prefix {
	switch {
	case !l.cluster:
		return l.cidr
	case len(l.cidr) == 0:
		return s.cluster
	}
	return append(slices.Clone(l.cidr), s.cluster...)
}

// matchAny reports whether an "any" regex matches line, with its "ip"
// group inside one of cidr when that is set.
func (s *Scan) matchAny(pr *probe, line []byte, cidr []netip.Prefix) bool {
	if len(cidr) == 0 || pr.ipGroup < 0 {
		return matches(s, pr.fast, line)
	}
	if pr.group != nil {
		if found, ok := pr.group.first(s, line, cidr); ok {
			return found
		}
	}
	if pr.cidr != nil && (!pr.cidrDefault || !s.ownNetwork) {
		if m, ok := dfaMatchText(s.cache(pr.cidr), line); ok && !m {
			return false
		}
	}
	return inCIDR(pr, line, cidr)
}

// inCIDR reports whether a match of pr's regex on line captures an
// address inside cidr in its "ip" group.
func inCIDR(pr *probe, line []byte, cidr []netip.Prefix) bool {
	// Most often the first match decides; the others are found only when
	// it does not.
	first := pr.re.FindSubmatchIndex(line)
	if first == nil {
		return false
	}
	if a, b := first[2*pr.ipGroup], first[2*pr.ipGroup+1]; a >= 0 && inPrefixes(line[a:b], cidr) {
		return true
	}
	for _, loc := range pr.re.FindAllSubmatchIndex(line, -1)[1:] {
		a, b := loc[2*pr.ipGroup], loc[2*pr.ipGroup+1]
		if a >= 0 && inPrefixes(line[a:b], cidr) {
			return true
		}
	}
	return false
}

// dated returns t, or the zero time when t has only the placeholder year
// that a zero RunInfo.Start gives year-less timestamps.
func (s *Scan) dated(t time.Time) time.Time {
	if s.info.Start.IsZero() && t.Year() <= 1 {
		return time.Time{}
	}
	return t
}
