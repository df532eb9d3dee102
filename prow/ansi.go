package prow

import (
	"bytes"
	"io"
	"strings"
)

const (
	esc = 0x1b
	// maxCSIParams bounds how many parameter bytes an escape sequence may
	// have. A longer run is not a terminal escape but text that happens to
	// follow "ESC [", and it is given back rather than swallowed.
	maxCSIParams = 32
)

// ansiState is the position of an ansiFilter inside an escape sequence.
type ansiState uint8

const (
	ansiText ansiState = iota // outside any sequence
	ansiEsc                   // after ESC
	ansiCSI                   // after ESC [, reading parameter bytes
)

// ansiFilter removes ANSI escape sequences from a byte stream that may be cut
// anywhere: control sequences "ESC [ params final" (params in 0x20-0x3F,
// final in 0x40-0x7E) and any other ESC byte on its own. Its state survives
// between calls, so a sequence split across two reads is still removed.
type ansiFilter struct {
	state   ansiState
	pending []byte // parameter bytes of the sequence being read
}

// filter appends to dst the bytes of src that are not part of a sequence.
func (f *ansiFilter) filter(dst, src []byte) []byte {
	for len(src) > 0 {
		if f.state == ansiText {
			// Copy the text up to the next ESC in one go.
			i := bytes.IndexByte(src, esc)
			if i < 0 {
				return append(dst, src...)
			}
			dst = append(dst, src[:i]...)
			src = src[i:]
		}
		c := src[0]
		src = src[1:]
		switch f.state {
		case ansiText:
			if c == esc {
				f.state = ansiEsc
				continue
			}
			dst = append(dst, c)
		case ansiEsc:
			switch {
			case c == '[':
				f.state = ansiCSI
				f.pending = f.pending[:0]
			case c == esc:
				// Another ESC starts a sequence of its own.
			default:
				// A bare ESC: drop it and keep what follows.
				f.state = ansiText
				dst = append(dst, c)
			}
		case ansiCSI:
			switch {
			case c >= 0x20 && c <= 0x3f && len(f.pending) < maxCSIParams:
				f.pending = append(f.pending, c)
			case c >= 0x40 && c <= 0x7e:
				f.state = ansiText
			default:
				// Not a control sequence after all: drop "ESC [" only.
				dst = append(dst, f.pending...)
				f.state = ansiText
				if c == esc {
					f.state = ansiEsc
					continue
				}
				dst = append(dst, c)
			}
		}
	}
	return dst
}

// flush appends what an unfinished sequence held back at the end of input.
func (f *ansiFilter) flush(dst []byte) []byte {
	if f.state == ansiCSI {
		dst = append(dst, f.pending...)
	}
	f.state = ansiText
	return dst
}

// StripANSI returns s without ANSI escape sequences (colour and cursor codes
// such as "\x1b[1m" or "\x1b[38;5;9m") and without stray ESC bytes.
func StripANSI(s string) string {
	if strings.IndexByte(s, esc) < 0 {
		return s
	}
	var f ansiFilter
	out := f.filter(make([]byte, 0, len(s)), []byte(s))
	return string(f.flush(out))
}

// NewANSIStripper returns a reader that yields r's bytes without ANSI escape
// sequences, as StripANSI does for a string. It holds only a small buffer,
// whatever the size of r. Go's XML decoder rejects the ESC byte, so JUnit
// files that captured coloured output must be read through it.
func NewANSIStripper(r io.Reader) io.Reader {
	return &ansiReader{r: r}
}

const (
	// ansiReaderChunk is how much an ansiReader reads from its source at once.
	ansiReaderChunk = 32 << 10
	// maxEmptyReads is how many reads that yield nothing a reader tolerates
	// from its source before it gives up, as bufio does.
	maxEmptyReads = 100
)

type ansiReader struct {
	r   io.Reader
	f   ansiFilter
	in  []byte
	buf []byte // backing array of out
	out []byte // filtered bytes not yet returned
	err error  // the source's error, returned once out is drained
}

// Read implements io.Reader.
func (a *ansiReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for empty := 0; len(a.out) == 0; {
		if a.err != nil {
			return 0, a.err
		}
		if empty >= maxEmptyReads {
			return 0, io.ErrNoProgress
		}
		if a.in == nil {
			a.in = make([]byte, ansiReaderChunk)
			a.buf = make([]byte, 0, ansiReaderChunk+2*maxCSIParams)
		}
		n, err := a.r.Read(a.in)
		if n == 0 && err == nil {
			empty++
		}
		a.out = a.f.filter(a.buf[:0], a.in[:n])
		if err != nil {
			a.err = err
			if err == io.EOF {
				a.out = a.f.flush(a.out)
			}
		}
	}
	n := copy(p, a.out)
	a.out = a.out[n:]
	return n, nil
}
