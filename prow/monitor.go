package prow

import (
	"bytes"
	"time"
)

// MonitorLine is one timestamped line of a log: an e2e monitor event or
// interval, a klog line, or a line that starts with an RFC 3339 time.
type MonitorLine struct {
	// At is the line's time in UTC.
	At time.Time
	// Level is the monitor level letter ('I', 'W', 'E') or the klog
	// severity ('I', 'W', 'E', 'F'); 0 when the line has none.
	Level byte
	// Duration is the length of a monitor interval; zero for an instant
	// and for the other forms.
	Duration time.Duration
	// Namespace and Node are the values of the first "ns/" and "node/"
	// tokens of Text, or empty.
	Namespace, Node string
	// Text is what follows the timestamp (and the level and the interval
	// length of a monitor line; the klog header of a klog line), trimmed.
	Text string
}

// Monitor lines carry no year. A run lasts hours, so a line's month is never
// far from its run's start; a month more than this far before the start's
// month belongs to the next year (a run over New Year), one more than this
// far after it to the previous year.
const maxMonthsFromStart = 6

// ParseMonitorLine parses a line of openshift-tests monitor output, the form
// of origin's monitorapi Interval.String():
//
//	Jan 12 20:58:46.230 W ns/<ns> pod/<name> node/<node> <message>
//	Jan 12 21:02:10.118 - 12s   E disruption/kube-api connection/new ...
//
// The time is UTC and has no year: it is taken from start, the run's start
// (see maxMonthsFromStart for runs over New Year). ok is false when line is
// not of this form.
func ParseMonitorLine(line []byte, start time.Time) (m MonitorLine, ok bool) {
	at, n, ok := parseStamp(line, start)
	if !ok {
		return MonitorLine{}, false
	}
	rest := line[n:]
	if len(rest) < 2 || rest[0] != ' ' {
		return MonitorLine{}, false
	}
	rest = rest[1:]
	if rest[0] == '-' && len(rest) > 1 && rest[1] == ' ' {
		d, k, ok := parseIntervalLength(rest[2:])
		if !ok {
			return MonitorLine{}, false
		}
		m.Duration = d
		rest = bytes.TrimLeft(rest[2+k:], " ")
	}
	if len(rest) == 0 || rest[0] < 'A' || rest[0] > 'Z' || (len(rest) > 1 && rest[1] != ' ') {
		return MonitorLine{}, false
	}
	m.At, m.Level = at, rest[0]
	m.setText(rest[1:])
	return m, true
}

// ParseKlogTime returns the time of a klog line such as
//
//	W0902 08:18:41.941578       1 clientconn.go:1120] message
//
// whose header has no year; start supplies it as for ParseMonitorLine.
func ParseKlogTime(line []byte, start time.Time) (time.Time, bool) {
	m, ok := parseKlog(line, start)
	return m.At, ok
}

// LineTime returns the time at the start of line in any of the forms that
// ParseTimedLine knows.
func LineTime(line []byte, start time.Time) (time.Time, bool) {
	if len(line) == 0 {
		return time.Time{}, false
	}
	if isDigit(line[0]) {
		if at, _, ok := parseRFC3339(line); ok {
			return at, true
		}
		return time.Time{}, false
	}
	if at, _, ok := parseStamp(line, start); ok {
		return at, true
	}
	return ParseKlogTime(line, start)
}

// ParseTimedLine parses a line that starts with a timestamp: a monitor line
// (see ParseMonitorLine), a line starting with a "Jan 02 15:04:05.000" stamp
// and no level (journal and syslog forms), a klog line (see ParseKlogTime),
// or a line starting with an RFC 3339 time such as
// "2026-11-18T03:12:09.114506Z", common in newer logs. start is the run's
// start; only the year-less forms use it.
func ParseTimedLine(line []byte, start time.Time) (MonitorLine, bool) {
	if len(line) == 0 {
		return MonitorLine{}, false
	}
	if isDigit(line[0]) {
		at, n, ok := parseRFC3339(line)
		if !ok {
			return MonitorLine{}, false
		}
		m := MonitorLine{At: at}
		m.setText(line[n:])
		return m, true
	}
	if m, ok := ParseMonitorLine(line, start); ok {
		return m, true
	}
	if at, n, ok := parseStamp(line, start); ok {
		m := MonitorLine{At: at}
		m.setText(line[n:])
		return m, true
	}
	return parseKlog(line, start)
}

// setText sets Text from rest and Namespace and Node from its tokens.
func (m *MonitorLine) setText(rest []byte) {
	rest = bytes.TrimSpace(rest)
	m.Text = string(rest)
	m.Namespace, m.Node = locatorTokens(m.Text)
}

// locatorTokens returns the values of the first "ns/" and "node/" tokens of
// a locator or a monitor line's text.
func locatorTokens(s string) (ns, node string) {
	for i := 0; i < len(s) && (ns == "" || node == ""); {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		j := i
		for j < len(s) && s[j] != ' ' {
			j++
		}
		tok := s[i:j]
		switch {
		case ns == "" && len(tok) > 3 && tok[:3] == "ns/":
			ns = tok[3:]
		case node == "" && len(tok) > 5 && tok[:5] == "node/":
			node = tok[5:]
		}
		i = j
	}
	return ns, node
}

var months = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// parseStamp parses "Jan 12 20:58:46.230" (the day may be space padded, the
// fraction has 1 to 9 digits or is missing) at the start of line and
// returns the time and the stamp's length.
func parseStamp(line []byte, start time.Time) (time.Time, int, bool) {
	if len(line) < 15 || line[3] != ' ' {
		return time.Time{}, 0, false
	}
	month := 0
	for i, name := range months {
		if string(line[:3]) == name {
			month = i + 1
			break
		}
	}
	if month == 0 {
		return time.Time{}, 0, false
	}
	i := 4
	if line[i] == ' ' {
		i++
	}
	day, k := digits(line[i:], 2)
	if k == 0 || i+k >= len(line) || line[i+k] != ' ' {
		return time.Time{}, 0, false
	}
	i += k + 1
	clock, n, ok := parseClock(line[i:])
	if !ok {
		return time.Time{}, 0, false
	}
	at, ok := yearless(start, time.Month(month), day, clock)
	return at, i + n, ok
}

// parseKlog parses the header "Lmmdd hh:mm:ss.uuuuuu threadid file:line] ".
func parseKlog(line []byte, start time.Time) (MonitorLine, bool) {
	if len(line) < 14 || !bytes.ContainsRune([]byte("IWEF"), rune(line[0])) {
		return MonitorLine{}, false
	}
	month, k := digits(line[1:], 2)
	day, k2 := digits(line[3:], 2)
	if k != 2 || k2 != 2 || line[5] != ' ' {
		return MonitorLine{}, false
	}
	clock, n, ok := parseClock(line[6:])
	if !ok || month < 1 || month > 12 {
		return MonitorLine{}, false
	}
	at, ok := yearless(start, time.Month(month), day, clock)
	if !ok {
		return MonitorLine{}, false
	}
	rest := line[6+n:]
	if len(rest) > 0 && rest[0] != ' ' {
		return MonitorLine{}, false
	}
	// The message follows the "file.go:123] " that ends the header.
	if i := bytes.Index(rest[:min(len(rest), 128)], []byte("] ")); i >= 0 {
		rest = rest[i+2:]
	}
	m := MonitorLine{At: at, Level: line[0]}
	m.setText(rest)
	return m, true
}

// parseClock parses "15:04:05" with an optional fraction of 1 to 9 digits,
// returning the time of day and its length.
func parseClock(b []byte) (time.Duration, int, bool) {
	if len(b) < 8 || b[2] != ':' || b[5] != ':' {
		return 0, 0, false
	}
	h, k1 := digits(b, 2)
	m, k2 := digits(b[3:], 2)
	s, k3 := digits(b[6:], 2)
	if k1 != 2 || k2 != 2 || k3 != 2 || h > 23 || m > 59 || s > 59 {
		return 0, 0, false
	}
	d := time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second
	n := 8
	if n < len(b) && b[n] == '.' {
		frac, k := digits(b[n+1:], 9)
		if k == 0 {
			return 0, 0, false
		}
		for range 9 - k {
			frac *= 10
		}
		d += time.Duration(frac)
		n += 1 + k
	}
	return d, n, true
}

// yearless places a month, day and time of day in the year that puts it
// nearest to start. A zero start puts every time in year 1, which keeps
// the times of one log in order.
func yearless(start time.Time, month time.Month, day int, clock time.Duration) (time.Time, bool) {
	year := start.Year()
	switch diff := int(start.Month()) - int(month); {
	case start.IsZero():
	case diff > maxMonthsFromStart:
		year++
	case diff < -maxMonthsFromStart:
		year--
	}
	t := time.Date(year, month, day, 0, 0, 0, 0, time.UTC)
	if t.Day() != day || t.Month() != month {
		return time.Time{}, false // Feb 30 and the like
	}
	return t.Add(clock), true
}

// parseRFC3339 parses an RFC 3339 time that is the first token of line.
func parseRFC3339(line []byte) (time.Time, int, bool) {
	if len(line) < 20 || line[4] != '-' || line[7] != '-' || line[10] != 'T' {
		return time.Time{}, 0, false
	}
	n := bytes.IndexAny(line, " \t")
	if n < 0 {
		n = len(line)
	}
	if n > 40 {
		return time.Time{}, 0, false
	}
	at, err := time.Parse(time.RFC3339Nano, string(line[:n]))
	if err != nil {
		return time.Time{}, 0, false
	}
	return at.UTC(), n, true
}

// parseIntervalLength parses the "%-5s" interval length of a monitor line,
// "<n>ms" or "<n>s", and returns it and its length without padding.
func parseIntervalLength(b []byte) (time.Duration, int, bool) {
	v, k := digits(b, 12)
	switch {
	case k == 0:
		return 0, 0, false
	case k+2 <= len(b) && string(b[k:k+2]) == "ms":
		return time.Duration(v) * time.Millisecond, k + 2, true
	case k < len(b) && b[k] == 's':
		return time.Duration(v) * time.Second, k + 1, true
	}
	return 0, 0, false
}

// digits parses up to max leading decimal digits of b.
func digits(b []byte, limit int) (v, n int) {
	for n < len(b) && n < limit && isDigit(b[n]) {
		v = v*10 + int(b[n]-'0')
		n++
	}
	return v, n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
