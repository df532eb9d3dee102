package classify

import (
	"strings"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl/prow"
)

// MaxExcerpt is the most bytes of an evidence excerpt.
const MaxExcerpt = 512

// excerpt returns line as evidence: without ANSI escapes, trimmed, valid
// UTF-8 with control characters replaced, at most MaxExcerpt bytes.
func excerpt(line []byte) string {
	if len(line) > 4*MaxExcerpt {
		line = line[:4*MaxExcerpt] // escapes and trimming shrink it; no more can be kept
	}
	s := strings.TrimSpace(prow.StripANSI(string(line)))
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\t') || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, s)
	return strings.TrimSpace(truncateUTF8(s, MaxExcerpt))
}

// truncateUTF8 returns the longest prefix of s of at most limit bytes that
// ends on a rune boundary.
func truncateUTF8(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut]
}
