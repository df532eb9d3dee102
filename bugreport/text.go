package bugreport

import (
	"regexp"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/openshift-eng/prowcrawl/prow"
)

// Text is a bug report's text, taken apart.
type Text struct {
	// Lines are its quoted log lines in order, each cleaned (colour codes
	// removed, dedented) and unwrapped.
	Lines []Line
	// Links are the runs it links, each once, in order.
	Links []Link
	// Cluster is its first `oc get clusterversion` dump with a history,
	// or nil.
	Cluster *Dump
}

// Line is one quoted log line of a bug report.
type Line struct {
	// At is the number, from 1, of its first line in the text.
	At int
	// Text is the line as a log wrote it: without colour codes, quote
	// markers and indentation, its wrapped parts joined.
	Text string
	// Kind is what kind of log line it is.
	Kind LineKind
	// Parts are the text's lines it was joined from (one when it was not
	// wrapped), cleaned.
	Parts []string
	// fixed says that Text joined its parts without a blank, as a
	// terminal wraps at a column, rather than with one.
	fixed bool
}

// LineKind is the form of a quoted log line.
type LineKind string

// The kinds of quoted lines.
const (
	// KindMonitor is an e2e monitor line: "Jan 12 20:58:46.230 W ns/...".
	KindMonitor LineKind = "monitor"
	// KindKlog is a klog line ("W0902 08:18:41.941578 1 file.go:1120] ...")
	// or the part of one after its header ("controlbuf.go:508] ...").
	KindKlog LineKind = "klog"
	// KindTimed starts with another timestamp (RFC 3339, a journal's).
	KindTimed LineKind = "timed"
	// KindEvent is a line of `oc get events` or `oc describe`'s events.
	KindEvent LineKind = "event"
	// KindStructured is a logfmt or JSON log line.
	KindStructured LineKind = "structured"
	// KindQuoted is any other line of a code block or a quotation.
	KindQuoted LineKind = "quoted"
)

// reference is the clock that dates year-less lines while they are only
// recognised: their times are not used here.
var reference = time.Date(2020, time.June, 15, 0, 0, 0, 0, time.UTC)

var (
	// klogFragment is a klog line cut after its header's time, as people
	// quote them: "controlbuf.go:508] transport: ...".
	klogFragment = regexp.MustCompile(`^[A-Za-z0-9_.-]+\.go:[0-9]+\] `)
	structured   = regexp.MustCompile(`^(?:(?:time|ts|level|lvl)=|\{"(?:level|ts|time|msg|severity)":)`)
	// eventLine is a row of `oc get events` (age, type, reason, object)
	// or of the events of `oc describe` (type, reason, age).
	eventLine = regexp.MustCompile(`^(?:[0-9]+[smhd][0-9smh]*\s+(?:Normal|Warning)\s+\S+|(?:Normal|Warning)\s+[A-Z][A-Za-z]+\s+\S)`)
	// fence opens or closes a block of quoted text: Markdown's ``` or ~~~,
	// Jira's {code} and {noformat}.
	fence = regexp.MustCompile(`^(?:` + "```" + `|~~~|\{code(?::[^}]*)?\}|\{noformat\})`)
	// repeated is the count an event line ends with.
	repeated = regexp.MustCompile(`\s*\((?:[0-9]+ times|x[0-9]+ over [0-9a-z]+)\)\s*$`)
)

// kindOf says whether s, a cleaned line, starts a log line, and of what
// kind.
func kindOf(s string) (LineKind, bool) {
	if s == "" {
		return "", false
	}
	if m, ok := prow.ParseTimedLine([]byte(s), reference); ok {
		switch {
		case m.Level != 0 && s[0] >= 'A' && s[0] <= 'Z' && len(s) > 4 && s[1] >= '0' && s[1] <= '9':
			return KindKlog, true
		case m.Level != 0:
			return KindMonitor, true
		}
		return KindTimed, true
	}
	switch {
	case klogFragment.MatchString(s):
		return KindKlog, true
	case structured.MatchString(s):
		return KindStructured, true
	case eventLine.MatchString(s):
		return KindEvent, true
	}
	return "", false
}

// Parse takes a bug report's text apart: its quoted log lines, the runs it
// links, and its clusterversion dump.
func Parse(text string) Text {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	clean := make([]string, len(raw))
	plain := make([]string, len(raw)) // without colour, indented as written
	indented := make([]bool, len(raw))
	for i, l := range raw {
		c := stripColour(l)
		plain[i] = strings.TrimRight(c, " \t")
		d := dedent(c)
		indented[i] = d != strings.TrimLeft(c, " \t") || len(d) < len(strings.TrimRight(c, " \t"))
		clean[i] = strings.TrimRight(d, " \t")
		// A line with trailing blanks was cut at one: keep one, so that
		// joining it with the next keeps the words apart.
		if strings.TrimRight(d, " \t") != d && clean[i] != "" {
			clean[i] += " "
		}
	}
	var t Text
	t.Links = links(clean)
	dump := dumpLines(plain)
	t.Cluster = parseDump(plain, dump)
	width := wrapWidth(clean)
	inBlock := false
	var cur *Line
	end := func() {
		if cur != nil {
			cur.Text = strings.TrimSpace(cur.Text)
			t.Lines = append(t.Lines, *cur)
			cur = nil
		}
	}
	for i, s := range clean {
		if dump[i] {
			end()
			continue
		}
		trimmed := strings.TrimSpace(s)
		if fence.MatchString(trimmed) {
			end()
			inBlock = !inBlock
			continue
		}
		if trimmed == "" {
			end()
			continue
		}
		kind, starts := kindOf(trimmed)
		if !starts && cur != nil && continues(raw[i], trimmed, cur) {
			sep := " "
			last := cur.Parts[len(cur.Parts)-1]
			if !indented[i] && width > 0 && utf8.RuneCountInString(strings.TrimRight(last, " ")) == width && !strings.HasSuffix(last, " ") {
				sep, cur.fixed = "", true // cut at a column, not at a blank
			}
			if strings.HasSuffix(last, " ") {
				sep = ""
			}
			cur.Text += sep + trimmed
			cur.Parts = append(cur.Parts, trimmed)
			continue
		}
		end()
		// In a code block every line is quoted; elsewhere (a quotation
		// of an earlier comment included) only the lines a log writes.
		if !starts && !inBlock {
			continue
		}
		if !starts {
			kind = KindQuoted
		}
		cur = &Line{At: i + 1, Text: trimmed, Kind: kind, Parts: []string{trimmed}}
	}
	end()
	return t
}

// continues says whether a line that starts no log line (s, cleaned; raw,
// as written) is the wrapped rest of cur: it is indented, or cur's last
// part is long and s does not begin a sentence.
func continues(raw, s string, cur *Line) bool {
	if strings.HasPrefix(raw, " ") || strings.HasPrefix(raw, "\t") {
		return true
	}
	last := cur.Parts[len(cur.Parts)-1]
	if utf8.RuneCountInString(last) < 60 {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	return !unicode.IsUpper(r) || !strings.Contains(s, " ")
}

// wrapWidth is the column at which the text's long lines were cut, when
// they were (two or more lines of 60 runes or more of the same length,
// each followed by a line that starts no log line); 0 when not.
func wrapWidth(clean []string) int {
	count := make(map[int]int)
	for i := 0; i+1 < len(clean); i++ {
		n := utf8.RuneCountInString(strings.TrimRight(clean[i], " "))
		next := strings.TrimSpace(clean[i+1])
		if _, starts := kindOf(next); n >= 60 && next != "" && !starts {
			count[n]++
		}
	}
	best := 0
	for n, c := range count {
		if c >= 2 && (best == 0 || c > count[best] || c == count[best] && n > best) {
			best = n
		}
	}
	return best
}

// dedent removes a line's indentation and quotation markers ("> ", ">> "),
// and the "$ " of a shell prompt before a command is left.
func dedent(s string) string {
	s = strings.TrimLeft(s, " \t")
	for strings.HasPrefix(s, ">") {
		s = strings.TrimLeft(s[1:], " \t")
	}
	return s
}

// stripColour removes colour codes: ANSI escape sequences, and what is
// left of one when the ESC byte was lost on the way into the bug (U+FFFD,
// a caret form "^[", or nothing before "[31m"). A bracket that goes on
// with a digit or closes ("[5m0s]", "[5m]") is text, not a code.
func stripColour(s string) string {
	s = prow.StripANSI(s)
	if !strings.Contains(s, "m") || !strings.Contains(s, "[") {
		return s
	}
	var b strings.Builder
	last := 0
	for _, m := range residue.FindAllStringIndex(s, -1) {
		if m[1] < len(s) && (isDigit(s[m[1]]) || s[m[1]] == ']') {
			continue
		}
		b.WriteString(s[last:m[0]])
		last = m[1]
	}
	b.WriteString(s[last:])
	return b.String()
}

var residue = regexp.MustCompile(`(?:\x{FFFD}|\^\[)?\[(?:[0-9]{1,3}(?:;[0-9]{1,3})*)?m`)

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// bare returns a log line without the count an event line ends with:
// "(2 times)", "(x5 over 10m)".
func bare(s string) string { return repeated.ReplaceAllString(s, "") }
