package classify

import (
	"bytes"
	"encoding/binary"
	"iter"
	"net/netip"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
)

// lazyDFA decides whether a regular expression matches a line, the way
// (*regexp.Regexp).Match does, as a deterministic automaton built while it
// runs: one table lookup per byte, where Go's backtracker tries each start
// position in turn. It reads ASCII lines only and says so when a line holds
// a byte it does not read (a newline or any byte from 0x80, whose runes
// and invalid encodings it leaves to the regexp package); the caller then
// asks the regexp.
//
// A state is the set of the program's threads waiting on a byte, with the
// kind of byte before it (none, a word byte, another byte): that, and the
// byte being read, decide the empty-width assertions (^, $, \b, \B)
// between them. The start thread joins at every position (an unanchored
// search), and a state whose closure reaches the match instruction
// reports a match at once: Match does not care where.
//
// The states live in a cache that one goroutine uses at a time; a pool
// keeps them between lines and scans.
type lazyDFA struct {
	prog *syntax.Prog
	// class maps a byte to its class: bytes that every instruction and
	// assertion treats alike share one, so that a state's row is short.
	// Class 0 is the bytes the automaton does not read.
	class  [256]uint8
	stride int
	// first lists the bytes a match can start with, when they are at most
	// maxFirst ASCII bytes and nothing else can start one: between
	// matches the automaton skips to the next of them.
	first []byte
	pool  sync.Pool // of *dfaCache
	id    int       // numbers the engine's automata: a Scan keeps its caches by it
}

// maxFirst is the most bytes a match may start with for the automaton
// to skip to them.
const maxFirst = 3

// firstBytes returns the bytes a match of prog can start with, or nil when
// there are more than maxFirst, when a rune outside ASCII can start one, or
// when a match can be empty. Assertions are taken to hold: the set is one
// for every context.
func firstBytes(prog *syntax.Prog) []byte {
	var set [128]bool
	for in := range leadingInsts(prog, true) {
		switch in.Op {
		case syntax.InstMatch, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			return nil
		case syntax.InstRune1:
			if in.Rune[0] >= 0x80 {
				return nil
			}
			set[in.Rune[0]] = true
		case syntax.InstRune:
			if len(in.Rune) == 1 && syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				// One rune and its case variants, which may lie outside
				// ASCII (k and the Kelvin sign).
				r := in.Rune[0]
				for f := unicode.SimpleFold(r); ; f = unicode.SimpleFold(f) {
					if f >= 0x80 {
						return nil
					}
					set[f] = true
					if f == r {
						break
					}
				}
				continue
			}
			for i := 0; i+1 < len(in.Rune); i += 2 {
				if in.Rune[i+1] >= 0x80 {
					return nil
				}
				for r := in.Rune[i]; r <= in.Rune[i+1]; r++ {
					set[r] = true
				}
			}
		}
	}
	var out []byte
	for b, ok := range set {
		if ok {
			out = append(out, byte(b))
		}
	}
	if len(out) == 0 || len(out) > maxFirst || slices.Contains(out, '\n') {
		return nil
	}
	return out
}

// leadingInsts yields, once each, the instructions of prog a match can
// begin at: walking from its start, alternations, captures and no-ops are
// passed through, and so are empty-width assertions when assertions is
// true (they are then taken to hold); every other instruction reached is
// yielded, and not walked past.
func leadingInsts(prog *syntax.Prog, assertions bool) iter.Seq[*syntax.Inst] {
	return func(yield func(*syntax.Inst) bool) {
		seen := make([]bool, len(prog.Inst))
		stack := []uint32{uint32(prog.Start)}
		for len(stack) > 0 {
			pc := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if seen[pc] {
				continue
			}
			seen[pc] = true
			in := &prog.Inst[pc]
			switch {
			case in.Op == syntax.InstAlt || in.Op == syntax.InstAltMatch:
				stack = append(stack, in.Out, in.Arg)
			case in.Op == syntax.InstCapture || in.Op == syntax.InstNop || in.Op == syntax.InstEmptyWidth && assertions:
				stack = append(stack, in.Out)
			default:
				if !yield(in) {
					return
				}
			}
		}
	}
}

// maxDFAStates bounds one cache; past it the cache starts over.
const maxDFAStates = 4096

// Transition entries: above zero the next state; these below.
const (
	dfaUnknown  int32 = 0  // not computed yet
	dfaMatch    int32 = -1 // the regex matches before this byte
	dfaFallback int32 = -2 // a byte the automaton does not read
)

// Kinds of the byte before a position.
const (
	prevNone  = iota // the start of the text
	prevOther        // a byte that is not a word byte
	prevWord         // [0-9A-Za-z_]
)

// newLazyDFA compiles pattern, which regexp.Compile accepted, as
// regexp.Compile does. It returns nil when the pattern cannot be parsed.
func newLazyDFA(pattern string) *lazyDFA {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	return dfaOf(re)
}

// dfaOf compiles a parsed regular expression.
func dfaOf(re *syntax.Regexp) *lazyDFA {
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil
	}
	d := &lazyDFA{prog: prog}
	d.first = firstBytes(prog)
	classes := make(map[string]uint8)
	sig := make([]byte, 0, len(prog.Inst)+1)
	for b := 0; b < 0x80; b++ {
		if b == '\n' {
			continue
		}
		sig = sig[:0]
		if syntax.IsWordChar(rune(b)) {
			sig = append(sig, 1)
		} else {
			sig = append(sig, 0)
		}
		for i := range prog.Inst {
			in := &prog.Inst[i]
			switch in.Op {
			case syntax.InstRune, syntax.InstRune1:
				if runeMatches(in, byte(b)) {
					sig = append(sig, 1)
				} else {
					sig = append(sig, 0)
				}
			}
		}
		k, ok := classes[string(sig)]
		if !ok {
			k = uint8(len(classes) + 1)
			classes[string(sig)] = k
		}
		d.class[b] = k
	}
	d.stride = len(classes) + 1
	return d
}

// runeMatches reports whether the rune instruction in reads the ASCII byte b.
func runeMatches(in *syntax.Inst, b byte) bool {
	switch in.Op {
	case syntax.InstRune:
		return in.MatchRunePos(rune(b)) >= 0
	case syntax.InstRune1:
		return rune(b) == in.Rune[0]
	case syntax.InstRuneAny:
		return true
	case syntax.InstRuneAnyNotNL:
		return b != '\n'
	}
	return false
}

// dfaCache holds the states of a lazyDFA built so far.
type dfaCache struct {
	d      *lazyDFA
	trans  []int32    // trans[s+class]: the entry of state s (premultiplied by the stride) for a byte class; row 0 unused
	pcs    [][]uint32 // by state: the threads waiting on a byte, sorted
	prev   []uint8    // by state: the kind of byte before it
	final  []int8     // by state: 1 matches at the end of the text, -1 not, 0 unknown
	index  map[string]int32
	start  [3]int32 // the state of no threads, by the kind of byte before
	closed sparseSet
	next   sparseSet
	stack  []uint32
	key    []byte
}

func (d *lazyDFA) get() *dfaCache {
	if c, _ := d.pool.Get().(*dfaCache); c != nil {
		return c
	}
	n := len(d.prog.Inst)
	c := &dfaCache{d: d, closed: newSparseSet(n), next: newSparseSet(n)}
	c.reset()
	return c
}

func (d *lazyDFA) put(c *dfaCache) { d.pool.Put(c) }

// reset drops every state.
func (c *dfaCache) reset() {
	c.trans = append(c.trans[:0], make([]int32, c.d.stride)...)
	c.pcs, c.prev, c.final = c.pcs[:0], c.prev[:0], c.final[:0]
	c.pcs, c.prev, c.final = append(c.pcs, nil), append(c.prev, 0), append(c.final, 0)
	c.index = make(map[string]int32)
	for k := range c.start {
		c.start[k] = c.state(nil, uint8(k))
	}
}

// state returns the state of the threads pcs (sorted) after a byte of kind
// prev, adding it when it is new; 0 when the cache is full.
func (c *dfaCache) state(pcs []uint32, prev uint8) int32 {
	c.key = append(c.key[:0], prev)
	for _, pc := range pcs {
		c.key = binary.LittleEndian.AppendUint32(c.key, pc)
	}
	if s, ok := c.index[string(c.key)]; ok {
		return s
	}
	if len(c.pcs) > maxDFAStates {
		return 0
	}
	s := int32(len(c.pcs) * c.d.stride)
	c.pcs = append(c.pcs, slices.Clone(pcs))
	c.prev = append(c.prev, prev)
	c.final = append(c.final, 0)
	row := make([]int32, c.d.stride)
	row[0] = dfaFallback
	c.trans = append(c.trans, row...)
	c.index[string(c.key)] = s
	return s
}

// prevRune is a rune of each kind of byte before a position, as
// syntax.EmptyOpContext takes it.
var prevRune = [3]rune{-1, ' ', 'a'}

// closure fills c.closed with the threads of state s and the start thread,
// followed through every instruction that reads nothing and whose
// assertions hold between the byte before and next (-1: the end). It
// reports whether one of them is the match.
func (c *dfaCache) closure(s int32, next rune) bool {
	i := int(s) / c.d.stride
	prog := c.d.prog
	cond := syntax.EmptyOpContext(prevRune[c.prev[i]], next)
	c.closed.clear()
	c.stack = append(c.stack[:0], uint32(prog.Start))
	c.stack = append(c.stack, c.pcs[i]...)
	matched := false
	for len(c.stack) > 0 {
		pc := c.stack[len(c.stack)-1]
		c.stack = c.stack[:len(c.stack)-1]
		if !c.closed.add(pc) {
			continue
		}
		in := &prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			c.stack = append(c.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop:
			c.stack = append(c.stack, in.Out)
		case syntax.InstEmptyWidth:
			if syntax.EmptyOp(in.Arg)&^cond == 0 {
				c.stack = append(c.stack, in.Out)
			}
		case syntax.InstMatch:
			matched = true
		}
	}
	return matched
}

// step computes the entry of state s for the ASCII byte b.
func (c *dfaCache) step(s int32, b byte) int32 {
	if c.closure(s, rune(b)) {
		return dfaMatch
	}
	c.next.clear()
	for _, pc := range c.closed.dense {
		if in := &c.d.prog.Inst[pc]; runeMatches(in, b) {
			c.next.add(in.Out)
		}
	}
	pcs := slices.Clone(c.next.dense)
	slices.Sort(pcs)
	prev := uint8(prevOther)
	if syntax.IsWordChar(rune(b)) {
		prev = prevWord
	}
	return c.state(pcs, prev)
}

// dfaText is what a lazyDFA reads.
type dfaText interface{ string | []byte }

// dfaMatchText reports whether the regex of c matches text; ok is false
// when the automaton cannot tell (a byte it does not read, a full cache)
// and the regexp must be asked.
func dfaMatchText[T dfaText](c *dfaCache, text T) (matched, ok bool) {
	trans, class := c.trans, &c.d.class
	first := c.d.first
	// The states of no threads are the first three; from them the
	// automaton skips to the next byte a match can start with.
	idle := int32(3 * c.d.stride)
	s := c.start[prevNone]
	for i := 0; i < len(text); i++ {
		if s <= idle && first != nil {
			j := nextOf(text[i:], first)
			if j < 0 {
				s = c.start[prevKind(text[len(text)-1])]
				break
			}
			if j > 0 {
				i += j
				if text[i-1] == '\n' {
					return false, false // ^ in (?m) would hold here
				}
				s = c.start[prevKind(text[i-1])]
			}
		}
		b := text[i]
		t := trans[int(s)+int(class[b])]
		if t <= 0 {
			switch t {
			case dfaMatch:
				return true, true
			case dfaFallback:
				return false, false
			}
			if t = c.step(s, b); t == 0 {
				c.reset()
				return false, false
			}
			trans = c.trans
			trans[int(s)+int(class[b])] = t
			if t == dfaMatch {
				return true, true
			}
		}
		s = t
	}
	f := &c.final[int(s)/c.d.stride]
	switch *f {
	case 1:
		return true, true
	case -1:
		return false, true
	}
	m := c.closure(s, -1)
	*f = -1
	if m {
		*f = 1
	}
	return m, true
}

// nextOf returns the index of the first byte of set in text, or -1.
func nextOf[T dfaText](text T, set []byte) int {
	best := -1
	for _, b := range set {
		var j int
		switch t := any(text).(type) {
		case string:
			j = strings.IndexByte(t, b)
		case []byte:
			j = bytes.IndexByte(t, b)
		}
		if j >= 0 && (best < 0 || j < best) {
			best = j
			text = text[:j]
		}
	}
	return best
}

// prevKind is the kind of the byte b before a position.
func prevKind(b byte) uint8 {
	if syntax.IsWordChar(rune(b)) {
		return prevWord
	}
	return prevOther
}

// sparseSet is a set of small integers that clears in constant time and
// lists its members in the order they were added.
type sparseSet struct {
	sparse []uint32
	dense  []uint32
}

func newSparseSet(n int) sparseSet {
	return sparseSet{sparse: make([]uint32, n), dense: make([]uint32, 0, n)}
}

func (s *sparseSet) clear() { s.dense = s.dense[:0] }

// add adds x and reports whether it was new.
func (s *sparseSet) add(x uint32) bool {
	if i := s.sparse[x]; int(i) < len(s.dense) && s.dense[i] == x {
		return false
	}
	s.sparse[x] = uint32(len(s.dense))
	s.dense = append(s.dense, x)
	return true
}

// fastRegexp is a regexp whose Match asks its lazy DFA first.
type fastRegexp struct {
	re  *regexp.Regexp
	dfa *lazyDFA // nil: ask re alone
}

func newFastRegexp(re *regexp.Regexp) *fastRegexp {
	return &fastRegexp{re: re, dfa: newLazyDFA(re.String())}
}

// matches reports whether f's regexp matches text, with the automaton's
// cache that s holds.
func matches[T dfaText](s *Scan, f *fastRegexp, text T) bool {
	if f.dfa != nil {
		if m, ok := dfaMatchText(s.cache(f.dfa), text); ok {
			return m
		}
	}
	switch t := any(text).(type) {
	case string:
		return f.re.MatchString(t)
	case []byte:
		return f.re.Match(t)
	}
	panic("unreachable")
}

// cidrDFA returns the automaton of pattern with its capture group number
// group replaced by an expression that every address inside one of
// prefixes matches (and more): where it does not match a line, no match of
// pattern on that line captures an address inside them, and the regexp
// need not be asked for its groups.
func cidrDFA(pattern string, group int, prefixes []netip.Prefix) *lazyDFA {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || len(prefixes) == 0 {
		return nil
	}
	var alts []string
	v4, v6 := false, false
	for _, p := range prefixes {
		if p.Addr().Is4() {
			alts = append(alts, prefixPattern(p))
			v4 = true
		} else {
			v6 = true
		}
	}
	if v4 {
		// An IPv4 address written as IPv6 (::ffff:10.128.0.1) holds the
		// group ffff, in either case.
		alts = append(alts, `(?is:.*ffff.*)`)
	}
	if v6 {
		// Any IPv6 address holds a colon.
		alts = append(alts, `(?s:.*:.*)`)
	}
	addr, err := syntax.Parse(strings.Join(alts, "|"), syntax.Perl)
	if err != nil {
		return nil
	}
	found := false
	var replace func(r *syntax.Regexp) *syntax.Regexp
	replace = func(r *syntax.Regexp) *syntax.Regexp {
		if r.Op == syntax.OpCapture && r.Cap == group {
			found = true
			return addr
		}
		c := *r
		c.Sub = nil
		for _, sub := range r.Sub {
			c.Sub = append(c.Sub, replace(sub))
		}
		c.Sub0 = [1]*syntax.Regexp{}
		return &c
	}
	re = replace(re)
	if !found {
		return nil
	}
	return dfaOf(re)
}

// prefixPattern is an expression that the addresses of the IPv4 prefix p,
// written as netip.ParseAddr reads them, match: its fixed octets, the
// values of a partly fixed one, and digits for the rest.
func prefixPattern(p netip.Prefix) string {
	p = p.Masked()
	a := p.Addr().As4()
	var octets []string
	for k := range 4 {
		fixed := p.Bits() - 8*k
		switch {
		case fixed >= 8:
			octets = append(octets, strconv.Itoa(int(a[k])))
		case fixed <= 0:
			octets = append(octets, `[0-9]{1,3}`)
		default:
			span := 1 << (8 - fixed)
			var vals []string
			for v := int(a[k]); v < int(a[k])+span; v++ {
				vals = append(vals, strconv.Itoa(v))
			}
			octets = append(octets, "(?:"+strings.Join(vals, "|")+")")
		}
	}
	return strings.Join(octets, `\.`)
}
