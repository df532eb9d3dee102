package suggest

import (
	"bytes"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Placeholders stand for the parts of a failure text that differ from run
// to run. Each is written in angle brackets in a normalised text, and each
// has the character class a proposed rule matches it with (placeholderRE).
const (
	phNum  = "<n>"    // a number: 42, 0.5 (each part of a dotted number)
	phIP   = "<ip>"   // an IPv4 or IPv6 address
	phHex  = "<hex>"  // a hash or pointer: 0xc0016a2f40, 3f786850e387
	phUUID = "<uuid>" // 0b0e9c3e-6d4a-4b1e-9b7a-4f1c2d3e4f5a
	phTime = "<time>" // a date, a clock or both: 2026-01-12T20:58:46.230Z, 20:58:46.230
	phMon  = "<mon>"  // a month name before a day: the Jan of "Jan 12 20:58:46.230"
	phDur  = "<dur>"  // a Go duration: 1h2m3.5s, 250ms
	phID   = "<id>"   // a generated part of a name: the x2x7k of etcd-operator-5c6d8f7b9d-x2x7k
)

// placeholderRE is the regular expression each placeholder becomes in a
// rule: wide enough for every value the normaliser replaces with it.
var placeholderRE = map[string]string{
	phNum:  `[0-9]+`,
	phIP:   `\[?[0-9a-fA-F:.]+\]?`, // an IPv6 address may be bracketed before a port
	phHex:  `(?:0x)?[0-9a-fA-F]+`,
	phUUID: `[0-9a-fA-F-]{36}`,
	phTime: `[0-9][-0-9:.TZ+]*(?: [0-9][-0-9:.TZ+]*)?`,
	phMon:  `[A-Z][a-z]{2}`,
	phDur:  `[0-9][0-9.hmsuµn]*`,
	phID:   `[A-Za-z0-9]+`,
}

// ephemeralPort is the lowest port Linux hands out to outgoing connections:
// a port below it after an address is a service's (etcd's 2379, the API's
// 6443) and is kept, since it tells which service failed; one from it up
// differs in every run and is replaced.
const ephemeralPort = 32768

// maxLineBytes caps a normalised line and maxTextLines the lines of a text,
// so that a pathological message (a whole log in a JUnit failure) costs no
// more than a short one. Triage truncates at 10,000 characters.
const (
	maxLineBytes = 512
	maxTextLines = 12
)

// Normalize returns text with the parts that differ from run to run
// replaced by placeholders (<n>, <ip>, <hex>, <uuid>, <time>, <mon>, <dur>,
// <id>), runs of blanks collapsed to one space, blank lines dropped and
// each line trimmed, so that the same failure in two runs reads the same.
// Unlike triage, which renames every noisy token to UNIQ1, UNIQ2, ..., the
// placeholders are typed (a proposed rule matches each with its own class),
// the stable part of a generated name stays (etcd-operator-<id>-<id>), and
// a service port stays (dial tcp <ip>:2379).
func Normalize(text string) string {
	var n normalizer
	n.text(text)
	return n.String()
}

// normalizer builds a normalised text; its buffer is reused between texts.
type normalizer struct {
	out   []byte
	lines int
}

func (n *normalizer) reset() { n.out, n.lines = n.out[:0], 0 }

func (n *normalizer) String() string { return string(n.out) }

// text appends the normalised lines of s.
func (n *normalizer) text(s string) {
	for s != "" && n.lines < maxTextLines {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		n.line(line)
	}
}

// line appends one normalised line, unless it is blank.
func (n *normalizer) line(s string) {
	start := len(n.out)
	if n.lines > 0 {
		n.out = append(n.out, '\n')
	}
	body := len(n.out)
	space := false
	for i := 0; i < len(s) && len(n.out)-body < maxLineBytes; {
		c := s[i]
		if c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' {
			space = true
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); unicode.IsSpace(r) {
				space = true // a no-break or an ideographic space
				i += size
				continue
			}
		}
		if space && len(n.out) > body {
			n.out = append(n.out, ' ')
		}
		space = false
		if c == ':' && i+1 < len(s) && s[i+1] == ':' {
			if k := ipv6Len(s[i:]); k > 0 && (i == 0 || !isAlnum(s[i-1])) {
				n.out = append(n.out, phIP...) // ::1, ::ffff:10.0.0.1 is not
				i += k
				continue
			}
		}
		if !isAlnum(c) {
			if c < utf8.RuneSelf {
				n.out = append(n.out, c)
				i++
				continue
			}
			_, size := utf8.DecodeRuneInString(s[i:])
			n.out = append(n.out, s[i:i+size]...)
			i += size
			continue
		}
		// A token starts here: a word boundary, since every alphanumeric
		// byte of a word is consumed with it.
		i += n.token(s, i)
	}
	if len(n.out)-body > maxLineBytes {
		// The last token crossed the cap (a word is appended whole):
		// cut at the last blank before the cap, so that no placeholder
		// is cut in two, or on a rune's start when the line has none.
		end := body + maxLineBytes
		if k := bytes.LastIndexByte(n.out[body:end], ' '); k > 0 {
			end = body + k
		}
		for end > body && !utf8.RuneStart(n.out[end]) {
			end--
		}
		n.out = n.out[:end]
	}
	if len(n.out) == body {
		n.out = n.out[:start] // blank: no line
		return
	}
	n.lines++
}

// token appends the normalised form of the token at s[i] (an alphanumeric
// byte after a non-alphanumeric one) and returns the bytes it consumed.
func (n *normalizer) token(s string, i int) int {
	rest := s[i:]
	prev := byte(0)
	if i > 0 {
		prev = s[i-1]
	}
	if k := uuidLen(rest); k > 0 {
		n.out = append(n.out, phUUID...)
		return k
	}
	if k := dateTimeLen(rest); k > 0 {
		n.out = append(n.out, phTime...)
		return k
	}
	if k := clockLen(rest); k > 0 {
		n.out = append(n.out, phTime...)
		return k
	}
	if k := klogLen(rest); k > 0 {
		// I0112, W0112, E0112, F0112: the level stays, the date goes.
		n.out = append(n.out, rest[0])
		n.out = append(n.out, phTime...)
		return k
	}
	if k := ipv4Len(rest); k > 0 {
		n.out = append(n.out, phIP...)
		return k + n.port(rest[k:])
	}
	if k := ipv6Len(rest); k > 0 {
		if len(n.out) > 0 && n.out[len(n.out)-1] == '[' && k < len(rest) && rest[k] == ']' {
			// [fd01::1]:6443 reads as 10.0.0.1:6443 does: one template
			// for both families of one failure.
			n.out = append(n.out[:len(n.out)-1], phIP...)
			return k + 1 + n.port(rest[k+1:])
		}
		n.out = append(n.out, phIP...)
		return k
	}
	if k := monthLen(rest); k > 0 {
		n.out = append(n.out, phMon...)
		return k
	}
	if k := durationLen(rest); k > 0 {
		n.out = append(n.out, phDur...)
		return k
	}
	if len(rest) > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') {
		if k := 2 + runLen(rest[2:], isHex); k > 2 && !(k < len(rest) && isAlnum(rest[k])) {
			n.out = append(n.out, phHex...)
			return k
		}
	}
	// A plain word: letters and digits.
	k := runLen(rest, isAlnum)
	word := rest[:k]
	switch {
	case isAllDigits(word) && bytesHasSuffix(n.out, phIP+"]:"):
		n.out = n.out[:len(n.out)-1]
		return n.port(s[i-1:]) - 1 // the port of [fd02::1]:443
	case isAllDigits(word):
		n.out = append(n.out, phNum...)
	case prev == '-' && generated(word, n.out):
		n.out = append(n.out, phID...)
	case prev == '-' && bytesHasSuffix(n.out, phID+"-") && len(word) <= 6 && isLowerAlnum(word) && hasDigit(word):
		// The part after a generated one, such as the infrastructure
		// id's suffix in ci-op-2kxzb3ph-88eec.
		n.out = append(n.out, phID...)
	case isHexHash(word):
		n.out = append(n.out, phHex...)
	case len(word) >= 16 && hasDigit(word) && hasLetter(word):
		n.out = append(n.out, phID...) // a token, a key, a long random id
	default:
		n.out = append(n.out, word...)
	}
	return k
}

// port appends the port after an address (":2379") and returns its length:
// a service port is kept, an ephemeral one replaced.
func (n *normalizer) port(s string) int {
	if len(s) < 2 || s[0] != ':' || !isDigit(s[1]) {
		return 0
	}
	k := 1 + runLen(s[1:], isDigit)
	if k < len(s) && isAlnum(s[k]) {
		return 0
	}
	p := 0
	for _, c := range []byte(s[1:k]) {
		p = p*10 + int(c-'0')
		if p > 65535 {
			break
		}
	}
	n.out = append(n.out, ':')
	if p >= ephemeralPort || k > 6 {
		n.out = append(n.out, phNum...)
	} else {
		n.out = append(n.out, s[1:k]...)
	}
	return k
}

// generated reports whether word, a segment of a dashed name, was generated
// rather than written: a pod's random suffix (x2x7k), a ReplicaSet's
// template hash (5c6d8f7b9d), a CI namespace's hash (ci-op-2kxzb3ph), a
// zone or instance id. Kubernetes draws its suffixes from an alphabet
// without vowels or the digits 0, 1 and 3, so that they never spell words.
func generated(word string, before []byte) bool {
	if len(word) < 5 || !isLowerAlnum(word) || stableSegments[word] {
		return false
	}
	if len(word) <= 10 && allIn(word, k8sAlphabet) {
		return true
	}
	if bytesHasSuffix(before, "ci-op-") || bytesHasSuffix(before, "ci-ln-") {
		return true // a CI namespace's or cluster's hash
	}
	// Mixed letters and digits: a zone, an instance id, a hash; but not a
	// short written name such as test2 or pod1.
	return len(word) >= 8 && hasDigit(word) && hasLetter(word)
}

// k8sAlphabet is the alphabet of Kubernetes' generated names
// (k8s.io/apimachinery/pkg/util/rand).
const k8sAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// stableSegments are segments of dashed names that look generated but are
// written: architectures, digests' algorithms, schemes.
var stableSegments = map[string]bool{
	"https": true, "amd64": true, "arm64": true, "s390x": true, "ppc64le": true,
	"sha256": true, "sha512": true, "base64": true, "ipv4": true, "ipv6": true,
}

// isHexHash reports whether word is a hash: hexadecimal digits, at least 8
// (a short git commit has 7, but so do words), with letters and digits both
// (an all-letter run such as "deadbeef" or "accepted" is a word).
func isHexHash(word string) bool {
	return len(word) >= 8 && allIn(word, "0123456789abcdefABCDEF") && hasDigit(word) && hasLetter(word)
}

// uuidLen is the length of the UUID at the start of s, or 0.
func uuidLen(s string) int {
	if len(s) < 36 {
		return 0
	}
	for i := range 36 {
		switch i {
		case 8, 13, 18, 23:
			if s[i] != '-' {
				return 0
			}
		default:
			if !isHex(s[i]) {
				return 0
			}
		}
	}
	if len(s) > 36 && isAlnum(s[36]) {
		return 0
	}
	return 36
}

// dateTimeLen is the length of a date (2026-01-12) at the start of s, with
// what follows it of a time: T or a blank, a clock, a fraction, a zone (Z,
// +00:00, +0000, UTC).
func dateTimeLen(s string) int {
	if len(s) < 10 || !digits(s[0:4]) || s[4] != '-' || !digits(s[5:7]) || s[7] != '-' || !digits(s[8:10]) {
		return 0
	}
	k := 10
	if k+1 < len(s) && (s[k] == 'T' || s[k] == ' ') {
		if c := clockLen(s[k+1:]); c > 0 {
			k += 1 + c
		}
	}
	if k < len(s) && isAlnum(s[k]) {
		return 0
	}
	return k
}

// clockLen is the length of a clock (20:58:46, 20:58:46.230123) at the
// start of s with its zone, or 0.
func clockLen(s string) int {
	h := runLen(s, isDigit)
	if h < 1 || h > 2 || len(s) < h+6 || s[h] != ':' || !digits(s[h+1:h+3]) || s[h+3] != ':' || !digits(s[h+4:h+6]) {
		return 0
	}
	k := h + 6
	if k+1 < len(s) && (s[k] == '.' || s[k] == ',') && isDigit(s[k+1]) {
		k += 1 + runLen(s[k+1:], isDigit)
	}
	switch {
	case k < len(s) && s[k] == 'Z':
		k++
	case k+5 < len(s)+0 && (s[k] == '+' || s[k] == '-') && digits(s[k+1:k+3]) && s[k+3] == ':' && digits(s[k+4:k+6]):
		k += 6
	case k+4 < len(s)+0 && (s[k] == '+' || s[k] == '-') && digits(s[k+1:k+5]):
		k += 5
	}
	if k < len(s) && isAlnum(s[k]) {
		return 0
	}
	return k
}

// klogLen is the length of a klog header's level and date (I0112) when a
// clock follows it, or 0.
func klogLen(s string) int {
	if len(s) < 7 || !strings.ContainsRune("IWEF", rune(s[0])) || !digits(s[1:5]) || s[5] != ' ' {
		return 0
	}
	if clockLen(s[6:]) == 0 {
		return 0
	}
	return 5
}

// ipv4Len is the length of a dotted IPv4 address at the start of s, or 0.
func ipv4Len(s string) int {
	k := 0
	for part := range 4 {
		if part > 0 {
			if k >= len(s) || s[k] != '.' {
				return 0
			}
			k++
		}
		d := runLen(s[k:], isDigit)
		if d < 1 || d > 3 {
			return 0
		}
		v := 0
		for _, c := range []byte(s[k : k+d]) {
			v = v*10 + int(c-'0')
		}
		if v > 255 {
			return 0
		}
		k += d
	}
	// Not part of a longer dotted number (a version 4.14.0.1.2) or a word.
	if k < len(s) && (isAlnum(s[k]) || (s[k] == '.' && k+1 < len(s) && isDigit(s[k+1]))) {
		return 0
	}
	return k
}

// ipv6Len is the length of an IPv6 address at the start of s (fd01:0:0:3::1,
// 2001:db8::8a2e:370:7334, fe80::1%eth0 without the zone), or 0. It needs
// "::" or all eight groups, and a digit, so that a word before a colon
// ("Error:") or a clock is not taken for one.
func ipv6Len(s string) int {
	k := runLen(s, func(c byte) bool { return isHex(c) || c == ':' })
	for k > 0 && s[k-1] == ':' && !(k >= 2 && s[k-2] == ':') {
		k-- // a colon that ends a phrase: "on fd00::1:"
	}
	if k < 3 || (k < len(s) && (isAlnum(s[k]) || s[k] == '.')) {
		return 0
	}
	a := s[:k]
	colons := strings.Count(a, ":")
	double := strings.Count(a, "::")
	if colons < 2 || double > 1 || (double == 0 && colons != 7) || strings.Contains(a, ":::") || !hasDigit(a) {
		return 0
	}
	for _, g := range strings.Split(a, ":") {
		if len(g) > 4 {
			return 0
		}
	}
	return k
}

var months = []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}

// monthLen is 3 when s starts with a month's abbreviation followed by a
// day ("Jan 12", "Jan  2"), as monitor lines and syslog stamp them.
func monthLen(s string) int {
	if len(s) < 5 {
		return 0
	}
	for _, m := range months {
		if s[:3] == m {
			j := 3
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j > 3 && j < len(s) && isDigit(s[j]) {
				return 3
			}
			return 0
		}
	}
	return 0
}

// durationLen is the length of a Go duration at the start of s (3s, 1.5s,
// 250ms, 1h2m3.5s, 5µs), or 0.
func durationLen(s string) int {
	k, units := 0, 0
	for k < len(s) && isDigit(s[k]) {
		d := runLen(s[k:], isDigit)
		j := k + d
		if j+1 < len(s) && s[j] == '.' && isDigit(s[j+1]) {
			j += 1 + runLen(s[j+1:], isDigit)
		}
		u := unitLen(s[j:])
		if u == 0 {
			break
		}
		k, units = j+u, units+1
	}
	if units == 0 || (k < len(s) && isAlnum(s[k])) {
		return 0
	}
	return k
}

// unitLen is the length of a Go duration unit at the start of s.
func unitLen(s string) int {
	for _, u := range []string{"ns", "us", "µs", "ms", "h", "m", "s"} {
		if strings.HasPrefix(s, u) {
			if u == "m" && strings.HasPrefix(s, "ms") {
				continue
			}
			return len(u)
		}
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F') }
func isAlnum(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// runLen is how many bytes at the start of s satisfy ok.
func runLen(s string, ok func(byte) bool) int {
	k := 0
	for k < len(s) && ok(s[k]) {
		k++
	}
	return k
}

func digits(s string) bool { return s != "" && runLen(s, isDigit) == len(s) }

func isAllDigits(s string) bool { return digits(s) }

func isLowerAlnum(s string) bool {
	return runLen(s, func(c byte) bool { return isDigit(c) || ('a' <= c && c <= 'z') }) == len(s)
}

func allIn(s, set string) bool {
	for i := range len(s) {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

func hasDigit(s string) bool { return strings.ContainsAny(s, "0123456789") }

func hasLetter(s string) bool {
	for i := range len(s) {
		if c := s[i]; ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') {
			return true
		}
	}
	return false
}

func bytesHasSuffix(b []byte, suffix string) bool {
	return len(b) >= len(suffix) && string(b[len(b)-len(suffix):]) == suffix
}
