package classify

import (
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// Limits of literal extraction. Past them a set is dropped rather than
// grown: a prefilter with a thousand short literals is no filter.
const (
	maxLiteralSet   = 64 // strings in one set
	maxLiteralBytes = 256
	maxClassRunes   = 10 // a larger character class is not enumerated
)

// maxConjuncts is how many literal sets a prefilter requires together.
const maxConjuncts = 3

// The shortest literal the most selective set and the other sets may
// have. A short literal is found on most lines, each find costs the
// automaton a hit, and the lines would reach the regex anyway.
const (
	minFirstLen    = 1
	minConjunctLen = 4
)

// requiredLiterals returns sets of strings such that every match of the
// regular expression contains a string of each set, most selective set
// first, in the folded form the prefilter searches (see foldASCII). It
// returns nil when there is no useful set and the expression must run on
// every line. No set holds the empty string.
func requiredLiterals(pattern string) [][]string {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil
	}
	sets := literalsOf(re.Simplify()).must
	slices.SortStableFunc(sets, compareSets)
	var out [][]string
	for i, set := range sets {
		if len(out) == maxConjuncts {
			break
		}
		if shortest(set) < minFirstLen || i > 0 && shortest(set) < minConjunctLen || slices.ContainsFunc(out, func(o []string) bool { return slices.Equal(o, set) }) {
			continue
		}
		out = append(out, set)
	}
	return out
}

// literalInfo describes what the strings matched by a node contain.
type literalInfo struct {
	// exact, when non-nil, is every string the node can match, folded.
	// It may hold "".
	exact []string
	// must lists sets one string of each of which every match contains.
	// No set holds "".
	must [][]string
}

func exactInfo(set []string) literalInfo {
	set = dedup(set)
	info := literalInfo{exact: set}
	if !slices.Contains(set, "") && len(set) > 0 {
		info.must = [][]string{set}
	}
	return info
}

func literalsOf(re *syntax.Regexp) literalInfo {
	switch re.Op {
	case syntax.OpLiteral:
		return literalOf(re.Rune, re.Flags&syntax.FoldCase != 0)
	case syntax.OpCharClass:
		return classOf(re.Rune)
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return literalInfo{exact: []string{""}}
	case syntax.OpCapture:
		return literalsOf(re.Sub[0])
	case syntax.OpConcat:
		return concatOf(re.Sub)
	case syntax.OpAlternate:
		return alternateOf(re.Sub)
	case syntax.OpQuest:
		sub := literalsOf(re.Sub[0])
		if sub.exact != nil && len(sub.exact) < maxLiteralSet {
			return literalInfo{exact: dedup(append(slices.Clone(sub.exact), ""))}
		}
	case syntax.OpPlus:
		return literalInfo{must: literalsOf(re.Sub[0]).must}
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literalInfo{must: literalsOf(re.Sub[0]).must}
		}
		if re.Max == 0 {
			return literalInfo{exact: []string{""}}
		}
	}
	// OpStar, OpAnyChar, OpAnyCharNotNL, OpNoMatch, ...: nothing is known.
	return literalInfo{}
}

// literalOf handles a literal string. The prefilter folds only ASCII
// letters, but Unicode folds some letters outside ASCII ('k' to the Kelvin
// sign, 's' to the long s, 'é' to 'É'), so a case-insensitive literal with
// such letters stands for each of their variants; when there would be too
// many, its longest piece without them is required instead.
func literalOf(runes []rune, fold bool) literalInfo {
	exact := []string{""}
	for _, r := range runes {
		var variants []string
		switch {
		case r == utf8.RuneError:
			// U+FFFD in a pattern also matches an invalid byte.
			return pieceOf(runes, func(r rune) bool { return r != utf8.RuneError && (!fold || foldsInASCII(r)) })
		case !fold || foldsInASCII(r):
			variants = []string{string(r)}
		default:
			variants = []string{string(r)}
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				variants = append(variants, string(f))
			}
		}
		if exact = product(exact, variants); exact == nil {
			return pieceOf(runes, func(r rune) bool { return r != utf8.RuneError && (!fold || foldsInASCII(r)) })
		}
	}
	for i, s := range exact {
		exact[i] = foldASCII(s)
	}
	return exactInfo(exact)
}

// pieceOf returns the longest run of runes that are all ok as a required
// literal.
func pieceOf(runes []rune, ok func(rune) bool) literalInfo {
	best, start := "", 0
	for i := 0; i <= len(runes); i++ {
		if i == len(runes) || !ok(runes[i]) {
			if s := string(runes[start:i]); len(s) > len(best) {
				best = s
			}
			start = i + 1
		}
	}
	if best == "" {
		return literalInfo{}
	}
	return literalInfo{must: [][]string{{foldASCII(best)}}}
}

// foldsInASCII reports whether every case variant of r folds to the same
// byte under foldASCII.
func foldsInASCII(r rune) bool {
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		if f >= utf8.RuneSelf || r >= utf8.RuneSelf || lowerASCII(byte(f)) != lowerASCII(byte(r)) {
			return false
		}
	}
	return true
}

// classOf enumerates a small character class.
func classOf(ranges []rune) literalInfo {
	n := 0
	for i := 0; i+1 < len(ranges); i += 2 {
		n += int(ranges[i+1]-ranges[i]) + 1
		if n > maxClassRunes {
			return literalInfo{}
		}
	}
	var set []string
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if r == utf8.RuneError || r > unicode.MaxRune || (r >= 0xD800 && r <= 0xDFFF) {
				return literalInfo{}
			}
			set = append(set, foldASCII(string(r)))
		}
	}
	if len(set) == 0 {
		return literalInfo{}
	}
	return exactInfo(set)
}

// concatOf handles a concatenation. Runs of neighbours whose strings are
// all known are multiplied out into longer literals (ns/openshift-(sdn|ovn)
// gives "ns/openshift-sdn" and "ns/openshift-ovn"); each such product, and
// each set another child requires, is required by the concatenation.
func concatOf(subs []*syntax.Regexp) literalInfo {
	var must [][]string
	exact := []string{""} // product of the whole concatenation so far
	run := []string{""}   // product of the current run of exact children
	flush := func() {
		if len(run) > 0 && !slices.Contains(run, "") {
			must = append(must, run)
		}
		run = []string{""}
	}
	for _, sub := range subs {
		info := literalsOf(sub)
		if info.exact == nil {
			exact = nil
			flush()
			must = append(must, info.must...)
			continue
		}
		if exact != nil {
			exact = product(exact, info.exact)
		}
		next := product(run, info.exact)
		if next == nil {
			// Too many strings: keep what the run had and start again.
			flush()
			next = info.exact
		}
		run = next
	}
	flush()
	if exact != nil {
		out := exactInfo(exact)
		out.must = append(out.must, must...)
		return out
	}
	return literalInfo{must: must}
}

// product returns every a+b, or nil when there would be too many or too
// long strings.
func product(as, bs []string) []string {
	if len(as)*len(bs) > maxLiteralSet {
		return nil
	}
	out := make([]string, 0, len(as)*len(bs))
	for _, a := range as {
		for _, b := range bs {
			if len(a)+len(b) > maxLiteralBytes {
				return nil
			}
			out = append(out, a+b)
		}
	}
	return dedup(out)
}

// alternateOf handles an alternation: every branch must contribute, and
// the union of each branch's most selective set is required.
func alternateOf(subs []*syntax.Regexp) literalInfo {
	var exact, must []string
	exactOK, mustOK := true, true
	for _, sub := range subs {
		info := literalsOf(sub)
		if info.exact == nil {
			exactOK = false
		} else {
			exact = append(exact, info.exact...)
		}
		if len(info.must) == 0 {
			mustOK = false
		} else {
			must = append(must, slices.MinFunc(info.must, compareSets)...)
		}
	}
	if exactOK && len(exact) <= maxLiteralSet {
		return exactInfo(exact)
	}
	if mustOK && len(must) <= maxLiteralSet {
		return literalInfo{must: [][]string{dedup(must)}}
	}
	return literalInfo{}
}

// compareSets orders literal sets most selective first: the one whose
// shortest string is longest, then the one with the fewest strings.
func compareSets(a, b []string) int {
	if sa, sb := shortest(a), shortest(b); sa != sb {
		return sb - sa
	}
	return len(a) - len(b)
}

// shortest returns the length of the shortest string of set.
func shortest(set []string) int {
	n := maxLiteralBytes + 1
	for _, s := range set {
		n = min(n, len(s))
	}
	return n
}

// dedup sorts set and removes repeats.
func dedup(set []string) []string {
	set = slices.Clone(set)
	slices.Sort(set)
	return slices.Compact(set)
}

// foldASCII maps A-Z to a-z and leaves every other byte alone: the folding
// the prefilter applies to both the literals and the text.
func foldASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		b[i] = lowerASCII(c)
	}
	return string(b)
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
