package prow

import (
	"io"
	"unicode/utf8"
)

const (
	xmlCharChunk = 32 << 10
	// maxCharRef is the longest numeric character reference xmlCharReader
	// looks at: "&#x10FFFF;" with room for leading zeros. A longer one is
	// left for the decoder to reject.
	maxCharRef = 32
)

// xmlCharReader makes a byte stream acceptable to encoding/xml without
// losing the document: JUnit files embed whatever the tests printed, and one
// NUL byte or broken UTF-8 sequence in a failure message must not cost the
// other thousands of results. It
//
//   - replaces invalid UTF-8 and U+FFFE/U+FFFF with U+FFFD;
//   - drops C0 control bytes other than tab, newline and carriage return,
//     but keeps ESC for the ANSI stripper that reads from it;
//   - drops numeric character references to characters XML forbids
//     ("&#0;"), turning "&#27;"/"&#x1b;" into a raw ESC so that the
//     escape sequence it starts is stripped as a whole.
type xmlCharReader struct {
	r   io.Reader
	in  []byte // in[:n] holds bytes carried over from the last read, then new ones
	n   int
	buf []byte // backing array of out
	out []byte
	err error
}

func newXMLCharReader(r io.Reader) io.Reader {
	return &xmlCharReader{r: r}
}

// Read implements io.Reader.
func (x *xmlCharReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for empty := 0; len(x.out) == 0; {
		if x.err != nil {
			return 0, x.err
		}
		if empty >= maxEmptyReads {
			return 0, io.ErrNoProgress
		}
		if x.in == nil {
			x.in = make([]byte, xmlCharChunk)
			// Replacing a bad byte can triple it; append grows buf then.
			x.buf = make([]byte, 0, xmlCharChunk)
		}
		n, err := x.r.Read(x.in[x.n:])
		if n == 0 && err == nil {
			empty++
		}
		x.n += n
		final := err != nil
		var rest int
		x.out, rest = sanitizeXMLChars(x.buf[:0], x.in[:x.n], final)
		x.n = copy(x.in, x.in[x.n-rest:x.n])
		x.err = err
	}
	n := copy(p, x.out)
	x.out = x.out[n:]
	return n, nil
}

// sanitizeXMLChars appends the cleaned form of src to dst. Unless final, it
// stops before an incomplete UTF-8 sequence or character reference at the end
// of src and reports how many bytes it left for the next call.
func sanitizeXMLChars(dst, src []byte, final bool) ([]byte, int) {
	for i := 0; i < len(src); {
		// Copy a run of plain text in one go.
		j := i
		for j < len(src) && plainXMLByte[src[j]] {
			j++
		}
		dst = append(dst, src[i:j]...)
		if i = j; i == len(src) {
			break
		}
		c := src[i]
		if c >= utf8.RuneSelf {
			if !final && !utf8.FullRune(src[i:]) {
				return dst, len(src) - i
			}
			r, size := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError || r == 0xfffe || r == 0xffff {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, src[i:i+size]...)
			}
			i += size
			continue
		}
		switch {
		case c == '&':
			ref, v, status := charRef(src[i:], final)
			switch status {
			case refIncomplete:
				return dst, len(src) - i
			case refNone:
				dst = append(dst, c)
				i++
				continue
			}
			switch {
			case isXMLChar(v):
				dst = append(dst, src[i:i+ref]...)
			case v == esc:
				dst = append(dst, esc)
			}
			i += ref
			continue
		case c >= 0x20 || c == '\t' || c == '\n' || c == '\r' || c == esc:
			dst = append(dst, c)
		}
		i++
	}
	return dst, 0
}

// plainXMLByte marks the ASCII bytes sanitizeXMLChars passes on unchanged
// without a second look.
var plainXMLByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '&'
	}
	t['\t'], t['\n'], t['\r'], t[esc] = true, true, true, true
	return t
}()

// refStatus says what charRef found.
type refStatus uint8

const (
	refNone       refStatus = iota // not a numeric character reference
	refFound                       // a complete reference
	refIncomplete                  // src ends inside what may be one
)

// charRef reads a numeric character reference "&#N;" or "&#xH;" at the start
// of src and returns its length and value.
func charRef(src []byte, final bool) (int, rune, refStatus) {
	if len(src) < 2 {
		if final {
			return 0, 0, refNone
		}
		return 0, 0, refIncomplete
	}
	if src[1] != '#' {
		return 0, 0, refNone
	}
	i, base := 2, rune(10)
	if i < len(src) && (src[i] == 'x' || src[i] == 'X') {
		i, base = 3, 16
	}
	var v rune
	digits := 0
	for ; i < len(src) && i < maxCharRef; i++ {
		c := src[i]
		d := rune(-1)
		switch {
		case c >= '0' && c <= '9':
			d = rune(c - '0')
		case base == 16 && c >= 'a' && c <= 'f':
			d = rune(c-'a') + 10
		case base == 16 && c >= 'A' && c <= 'F':
			d = rune(c-'A') + 10
		case c == ';' && digits > 0:
			return i + 1, v, refFound
		}
		if d < 0 {
			return 0, 0, refNone
		}
		// Saturate so that long digit runs cannot wrap into a valid value.
		v = min(v*base+d, utf8.MaxRune+1)
		digits++
	}
	if i == len(src) && i < maxCharRef && !final {
		return 0, 0, refIncomplete
	}
	return 0, 0, refNone
}

// isXMLChar reports whether r is allowed in an XML 1.0 document.
func isXMLChar(r rune) bool {
	return r == '\t' || r == '\n' || r == '\r' ||
		(r >= 0x20 && r <= 0xd7ff) ||
		(r >= 0xe000 && r <= 0xfffd) ||
		(r >= 0x10000 && r <= 0x10ffff)
}
