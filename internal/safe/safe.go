// Package safe makes text from a bucket (job and object names, log lines,
// test messages, versions) safe to write where a reader acts on bytes: a
// terminal, a table row, a Markdown page, a YAML comment, a spreadsheet.
// Every text writer of prowcrawl passes such text through it; HTML goes
// through html/template instead, which escapes for its own contexts.
//
// Nothing is dropped silently: a control character is written as its Go
// escape (\x1b, \n, \u202e), so that a reader sees that it was there and a
// search for the text still finds it, but no terminal acts on it and no
// line or row is forged with it.
package safe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Line is s for one line of a terminal or one cell of a table: every
// control character (C0, DEL, C1; newline, carriage return and tab
// included), every bidirectional override and invalid UTF-8 written as
// its Go escape. Text without them is returned as it is.
func Line(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case unsafeRune(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// clean reports whether s needs nothing of Line.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= 0x80 {
			return cleanSlow(s)
		}
	}
	return true
}

func cleanSlow(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// unsafeRune reports whether r acts on a terminal or a reader's view of a
// line: a control character, or a bidirectional embedding, override or
// isolate, or a line or paragraph separator.
func unsafeRune(r rune) bool {
	switch {
	case unicode.IsControl(r):
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	}
	return false
}

// markdownSpecial are the characters that make Markdown of text inside a
// line (emphasis, code, links, HTML, table cells): escaped with a
// backslash. Those that act only at a line's start ("#", "-", "1.") cannot
// reach it, since Markdown writes a line's own start.
const markdownSpecial = "\\`*_[]<>|~"

// Markdown is s, made Line-safe, as literal Markdown text (a table cell, a
// list item, a link's text): every character Markdown would act on is
// escaped, so a "|" never splits a row and "](" never opens a link.
func Markdown(s string) string {
	s = Line(s)
	if !strings.ContainsAny(s, markdownSpecial) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r < utf8.RuneSelf && strings.IndexByte(markdownSpecial, byte(r)) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// URL is u for the target of a Markdown link, (u), or <u>: every byte
// outside the characters a URL may hold unescaped, and "(", ")", "<", ">"
// and the backslash, percent-encoded, so the link ends where it should.
// A "%" already in u is kept: u is a URL, not a path.
func URL(u string) string {
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		if urlByte(c) {
			b.WriteByte(c)
			continue
		}
		const hex = "0123456789ABCDEF"
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// urlByte reports whether c stays as it is in URL.
func urlByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return true
	}
	return strings.IndexByte("-._~:/?#@!$&'*+,;=%", c) >= 0
}

// CSV is s for a cell of a CSV file a spreadsheet may open: Line-safe,
// and a text that a spreadsheet would read as a formula (beginning with
// "=", "+", "-", "@", a tab or a carriage return) begins with a "'", which
// spreadsheets show as text. Numbers are not passed through it.
func CSV(s string) string {
	s = Line(s)
	if s != "" && strings.IndexByte("=+-@", s[0]) >= 0 {
		return "'" + s
	}
	return s
}

// FileName is s as one part of a file name: only letters, digits, ".",
// "-" and "_" kept, anything else (a "/", a control character) as "_",
// and never "." or ".." or a name that begins with a dot.
func FileName(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '-' || c == '_') {
			b[i] = '_'
		}
	}
	out := string(b)
	if strings.HasPrefix(out, ".") {
		out = "_" + out[1:]
	}
	if out == "" {
		return "_"
	}
	return out
}
