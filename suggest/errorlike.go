package suggest

import "strings"

// errorWords are the words that make a log line a failure text: what
// Kubernetes components, openshift-tests and the CI steps print when
// something went wrong. They are matched in lower case.
var errorWords = []string{
	"error", "fail", "panic", "fatal", "refused", "timeout", "timed out", "deadline exceeded",
	"unable to", "cannot", "could not", "denied", "unreachable", "not ready", "no route",
	"reset by peer", "crashloop", "oomkill", "evicted", "exit code", "unavailable", "degraded",
}

// errorLineBytes is how much of a line is looked at, and kept.
const errorLineBytes = 1024

// ErrorLike reports whether a log line reads as a failure: a klog error or
// fatal header (E0112, F0112), or one of the error words. Only the first
// KiB of a line is looked at.
func ErrorLike(line string) bool {
	line = strings.TrimLeft(line, " \t")
	if len(line) > errorLineBytes {
		line = line[:errorLineBytes]
	}
	if len(line) > 5 && (line[0] == 'E' || line[0] == 'F') && digits(line[1:5]) {
		return true
	}
	var buf [errorLineBytes]byte
	low := buf[:len(line)]
	for i := range len(line) {
		c := line[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	s := string(low)
	for _, w := range errorWords {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}
