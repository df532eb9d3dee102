package classify

import (
	"bytes"
	"net/netip"
	"regexp/syntax"
	"strings"
)

// groupFinder finds what the first match of an expression captures in a
// group without the regexp package, for the expressions of the shape
// that address checks are written in: a few literal strings, then the
// group, one or more bytes of an ASCII class, then the rest:
//
//	dial tcp (?P<ip>[0-9.]+):[0-9]+: i/o timeout
//	https?://(?P<ip>[0-9.]+)[:/][^\s"]*"?: net/http: request canceled
//
// The regexp package's backtracker spends microseconds on such a match.
// Here every match starts with one of the strings, so the leftmost match
// starts at the first place where one of them is followed by a byte of
// the class and the rest matches after the run of those bytes. The run is
// the longest one: the rest cannot start with a byte of the class, so no
// shorter run is followed by a match, and the longest run is tried first.
// Whether the rest matches there is asked of a lazy DFA of the rest
// anchored at that place; the rest holds no assertion that would look at
// the byte before it.
type groupFinder struct {
	heads []string // none a prefix of another, none empty
	class [128]bool
	rest  *lazyDFA // ^(?:rest)
}

// maxGroupHeads bounds the strings a groupFinder searches for.
const maxGroupHeads = 8

// newGroupFinder returns the finder of capture group number group of
// pattern, or nil when the expression is not of its shape.
func newGroupFinder(pattern string, group int) *groupFinder {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat {
		return nil
	}
	at := -1
	for i, sub := range re.Sub {
		if sub.Op == syntax.OpCapture && sub.Cap == group {
			at = i
		}
	}
	if at <= 0 || at == len(re.Sub)-1 {
		return nil
	}
	g := &groupFinder{}
	// The strings before the group.
	heads := []string{""}
	for _, sub := range re.Sub[:at] {
		s, ok := exactStrings(sub)
		if !ok || len(heads)*len(s) > maxGroupHeads {
			return nil
		}
		var next []string
		for _, h := range heads {
			for _, t := range s {
				next = append(next, h+t)
			}
		}
		heads = next
	}
	for i, h := range heads {
		if h == "" {
			return nil
		}
		for j, o := range heads {
			if i != j && strings.HasPrefix(o, h) {
				return nil // two could start at one place, in an order
			}
		}
	}
	g.heads = dedup(heads)
	// The group: one or more of an ASCII class, greedy.
	plus := re.Sub[at].Sub[0]
	if plus.Op != syntax.OpPlus || plus.Flags&syntax.NonGreedy != 0 {
		return nil
	}
	if !asciiClass(plus.Sub[0], &g.class) {
		return nil
	}
	// The rest: no assertion, and no first byte in the class.
	rest := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: re.Sub[at+1:]}
	if hasAssertion(rest) {
		return nil
	}
	rprog, err := syntax.Compile(rest.Simplify())
	if err != nil {
		return nil
	}
	starts, ok := firstSet(rprog)
	if !ok || starts.empty() {
		return nil
	}
	for b := range g.class {
		if g.class[b] && starts.has(byte(b)) {
			return nil
		}
	}
	anchored := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: []*syntax.Regexp{{Op: syntax.OpBeginText}, rest}}
	if g.rest = dfaOf(anchored); g.rest == nil {
		return nil
	}
	return g
}

// exactStrings returns every string a node matches, case-sensitively,
// when they are few: literals, small classes, alternations, ?.
func exactStrings(re *syntax.Regexp) ([]string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		for _, r := range re.Rune {
			if r >= 0x80 {
				return nil, false
			}
		}
		return []string{string(re.Rune)}, true
	case syntax.OpQuest:
		if re.Flags&syntax.NonGreedy != 0 {
			return nil, false
		}
		s, ok := exactStrings(re.Sub[0])
		return append(s, ""), ok
	case syntax.OpConcat:
		out := []string{""}
		for _, sub := range re.Sub {
			s, ok := exactStrings(sub)
			if !ok || len(out)*len(s) > maxGroupHeads {
				return nil, false
			}
			var next []string
			for _, h := range out {
				for _, t := range s {
					next = append(next, h+t)
				}
			}
			out = next
		}
		return out, true
	case syntax.OpAlternate:
		var out []string
		for _, sub := range re.Sub {
			s, ok := exactStrings(sub)
			if !ok || len(out)+len(s) > maxGroupHeads {
				return nil, false
			}
			out = append(out, s...)
		}
		return out, true
	case syntax.OpCapture:
		return exactStrings(re.Sub[0])
	}
	return nil, false
}

// asciiClass fills class with the bytes a one-rune node matches, and
// reports whether they are all ASCII (and none a newline).
func asciiClass(re *syntax.Regexp, class *[128]bool) bool {
	var ranges []rune
	switch re.Op {
	case syntax.OpCharClass:
		ranges = re.Rune
	case syntax.OpLiteral:
		if len(re.Rune) != 1 || re.Flags&syntax.FoldCase != 0 {
			return false
		}
		ranges = []rune{re.Rune[0], re.Rune[0]}
	default:
		return false
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1] >= 0x80 || ranges[i] <= '\n' && ranges[i+1] >= '\n' {
			return false
		}
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			class[r] = true
		}
	}
	return true
}

// hasAssertion reports whether a node holds ^, $, \b, \B, \A or \z.
func hasAssertion(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, sub := range re.Sub {
		if hasAssertion(sub) {
			return true
		}
	}
	return false
}

// byteSet is a set of bytes.
type byteSet [4]uint64

func (s *byteSet) add(b byte)      { s[b/64] |= 1 << (b % 64) }
func (s *byteSet) has(b byte) bool { return s[b/64]&(1<<(b%64)) != 0 }
func (s *byteSet) empty() bool     { return s[0]|s[1]|s[2]|s[3] == 0 }
func (s *byteSet) addRange(lo, hi rune) {
	for r := lo; r <= hi && r < 0x80; r++ {
		s.add(byte(r))
	}
}

// firstSet returns the ASCII bytes a match of prog can start with; ok is
// false when a match can be empty or start with a rune outside ASCII.
func firstSet(prog *syntax.Prog) (set byteSet, ok bool) {
	for in := range leadingInsts(prog, false) {
		switch in.Op {
		case syntax.InstRune1:
			if in.Rune[0] >= 0x80 || syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
				return set, false
			}
			set.add(byte(in.Rune[0]))
		case syntax.InstRune:
			if len(in.Rune) == 1 {
				// One rune, folded (a single rune unfolded is InstRune1).
				return set, false
			}
			for i := 0; i+1 < len(in.Rune); i += 2 {
				if in.Rune[i+1] >= 0x80 {
					return set, false
				}
				set.addRange(in.Rune[i], in.Rune[i+1])
			}
		default:
			// InstMatch, InstEmptyWidth, InstRuneAny, InstRuneAnyNotNL,
			// InstFail.
			return set, false
		}
	}
	return set, true
}

// first decides on line what the first match of the expression captures
// in the group: found is whether it is an address inside one of cidr,
// and decided is false when the finder cannot tell (the first match's
// address is outside them, so later matches count, or the automaton read
// a byte it does not read); the regexp must then be asked.
func (g *groupFinder) first(s *Scan, line []byte, cidr []netip.Prefix) (found, decided bool) {
	// next[i] is where heads[i] is next found at or after pos (-1:
	// nowhere), searched again only once pos has passed it.
	var next [maxGroupHeads]int
	for i := range g.heads {
		next[i] = -2
	}
	for pos := 0; pos < len(line); {
		at, head := -1, ""
		for i, h := range g.heads {
			if next[i] == -2 || next[i] >= 0 && next[i] < pos {
				next[i] = -1
				if j := bytes.Index(line[pos:], []byte(h)); j >= 0 {
					next[i] = pos + j
				}
			}
			if n := next[i]; n >= 0 && (at < 0 || n < at) {
				at, head = n, h
			}
		}
		if at < 0 {
			return false, true // no match
		}
		a := at + len(head)
		b := a
		for b < len(line) && line[b] < 0x80 && g.class[line[b]] {
			b++
		}
		if b > a {
			m, ok := dfaMatchText(s.cache(g.rest), line[b:])
			if !ok {
				return false, false
			}
			if m {
				if inPrefixes(line[a:b], cidr) {
					return true, true
				}
				return false, false
			}
		}
		pos = at + 1
	}
	return false, true
}
