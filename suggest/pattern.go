package suggest

import (
	"regexp"
	"strings"
)

// The common literal text of a cluster is found line by line: a line of
// the leader is intersected with the closest line of each other member by
// a longest common subsequence of tokens, and what the members do not
// share becomes a gap. The rule's regular expression is that sequence:
// literals quoted, placeholders as their character classes, gaps as .*.
const (
	maxMembers  = 16 // members the leader's lines are intersected with
	minLiteral  = 12 // bytes of literal text a rule's expression needs
	minWords    = 2  // literal words it needs
	maxTitle    = 96
	minKeepFrac = 0.5 // a member keeps a line if it shares half its tokens
)

// ctok is a token of a line's common sequence.
type ctok struct {
	text  string
	space bool // blank before it
	gap   bool // tokens of some member dropped before it
}

// lineTokens splits one normalised line into tokens, noting blanks.
func lineTokens(line string) []ctok {
	var out []ctok
	space := false
	for i := 0; i < len(line); {
		if line[i] == ' ' {
			space = true
			i++
			continue
		}
		toks := tokenize(line[i:], nil)
		if len(toks) == 0 {
			break
		}
		out = append(out, ctok{text: toks[0], space: space})
		space = false
		i += len(toks[0])
	}
	return out
}

// intersect returns the longest common subsequence of a and b's tokens,
// a's tokens with gap set where either side had tokens between two kept.
func intersect(a, b []ctok) []ctok {
	n, m := len(a), len(b)
	// dp[i][j]: LCS length of a[i:] and b[j:].
	dp := make([]int32, (n+1)*(m+1))
	at := func(i, j int) *int32 { return &dp[i*(m+1)+j] }
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i].text == b[j].text {
				*at(i, j) = *at(i+1, j+1) + 1
			} else {
				*at(i, j) = max(*at(i+1, j), *at(i, j+1))
			}
		}
	}
	var out []ctok
	i, j := 0, 0
	gap := false
	for i < n && j < m {
		switch {
		case a[i].text == b[j].text:
			t := a[i]
			// A blank in one and not the other: a gap takes both.
			t.gap = t.gap || gap || t.space != b[j].space
			if len(out) == 0 {
				t.gap = t.gap || i > 0 || j > 0
			}
			out = append(out, t)
			gap = false
			i, j = i+1, j+1
		case *at(i+1, j) >= *at(i, j+1):
			i, gap = i+1, true
		default:
			j, gap = j+1, true
		}
	}
	return out
}

// commonLine is a cluster's best line: its common tokens, the members
// (by index) that keep it, and the literal bytes in it.
type commonLine struct {
	toks    []ctok
	members []int
	literal int
}

// commonLines returns, for each line of the leader, its common sequence
// with the members that have a close line.
func commonLines(c *cluster) []commonLine {
	var out []commonLine
	lead := c.members[0]
	var memberLines [][][]ctok
	for _, m := range c.members[1:min(len(c.members), maxMembers)] {
		var ls [][]ctok
		for _, l := range strings.Split(m.text, "\n") {
			ls = append(ls, lineTokens(l))
		}
		memberLines = append(memberLines, ls)
	}
	for _, l := range strings.Split(lead.text, "\n") {
		if c.avoid[strings.TrimSpace(l)] {
			continue // what the modes it was split from share
		}
		common := lineTokens(l)
		cl := commonLine{members: []int{0}}
		for mi, ls := range memberLines {
			var best []ctok
			for _, ml := range ls {
				if x := intersect(common, ml); len(x) > len(best) {
					best = x
				}
			}
			if float64(len(best)) < minKeepFrac*float64(len(common)) || len(best) == 0 {
				continue
			}
			common = best
			cl.members = append(cl.members, mi+1)
		}
		cl.toks = trimEnds(common)
		for _, t := range cl.toks {
			if _, ph := placeholderRE[t.text]; !ph {
				cl.literal += len(t.text)
			}
		}
		out = append(out, cl)
	}
	return out
}

// trimEnds drops placeholders at either end: an expression is not
// anchored, so they add nothing but cost.
func trimEnds(toks []ctok) []ctok {
	for len(toks) > 0 && isPlaceholder(toks[0].text) {
		toks = toks[1:]
	}
	for len(toks) > 0 && isPlaceholder(toks[len(toks)-1].text) {
		toks = toks[:len(toks)-1]
	}
	if len(toks) > 0 {
		toks[0].gap, toks[0].space = false, false
	}
	return toks
}

func isPlaceholder(s string) bool { _, ok := placeholderRE[s]; return ok }

// words counts the literal words of a line.
func words(toks []ctok) int {
	n := 0
	for _, t := range toks {
		if !isPlaceholder(t.text) && isAlnum(t.text[0]) && len(t.text) > 1 {
			n++
		}
	}
	return n
}

// xmlForms are the ways a JUnit file may write a character that XML
// escapes; a rule over the file's lines must accept each.
var xmlForms = map[string]string{
	`"`: `(?:"|&#34;|&quot;)`,
	`'`: `(?:'|&#39;|&apos;)`,
	`&`: `(?:&|&amp;)`,
	`<`: `(?:<|&lt;)`,
	`>`: `(?:>|&gt;)`,
}

// expression builds the regular expression of a common line. In a JUnit
// file, the characters XML escapes may be escaped. A blank is one blank,
// as the text was normalised: an expression of long literals reads as the
// failure does, and is what the engine's literal prefilter is fast on;
// with wide set, for texts that align columns with runs of blanks or
// tabs, it is \s+.
func expression(toks []ctok, xml, wide bool) string {
	var b strings.Builder
	for i, t := range toks {
		switch {
		case i > 0 && t.gap:
			b.WriteString(`.*`)
		case i > 0 && t.space && wide:
			b.WriteString(`\s+`)
		case i > 0 && t.space:
			b.WriteByte(' ')
		}
		if re, ok := placeholderRE[t.text]; ok {
			b.WriteString(re)
			continue
		}
		if xml {
			if f, ok := xmlForms[t.text]; ok {
				b.WriteString(f)
				continue
			}
		}
		b.WriteString(regexp.QuoteMeta(t.text))
	}
	return b.String()
}

// display is a common line as a person reads it: gaps as "...".
func display(toks []ctok) string {
	var b strings.Builder
	for i, t := range toks {
		switch {
		case i > 0 && t.gap:
			b.WriteString(" ... ")
		case i > 0 && t.space:
			b.WriteByte(' ')
		}
		b.WriteString(t.text)
	}
	s := b.String()
	if len(s) > maxTitle {
		s = capText(s, maxTitle-3) + "..."
	}
	return s
}

// slug is the id part made of a line's first literal words.
func slug(toks []ctok) string {
	var parts []string
	size := 0
	for _, t := range toks {
		if isPlaceholder(t.text) || !isAlnum(t.text[0]) {
			continue
		}
		w := strings.ToLower(strings.Trim(strings.Map(func(r rune) rune {
			if ('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9') {
				return r
			}
			return '-'
		}, t.text), "-"))
		if w == "" {
			continue
		}
		if size+len(w) > 40 || len(parts) == 5 {
			break
		}
		parts = append(parts, w)
		size += len(w) + 1
	}
	return strings.Join(parts, "-")
}
