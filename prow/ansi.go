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
	ansiText   ansiState = iota // outside any sequence
	ansiEsc                     // after ESC
	ansiCSI                     // after ESC [, reading parameter bytes
	ansiRep1                    // after the first byte of U+FFFD (residue mode)
	ansiRep2                    // after its second byte
	ansiRep                     // after U+FFFD
	ansiRepCSI                  // after U+FFFD [, reading parameter bytes
)

// replacement is U+FFFD in UTF-8: what Go's encoding/xml, and so origin's
// JUnit writer, puts in place of an ESC byte, leaving "\uFFFD[1m" behind.
const replacement = "\uFFFD"

// ansiFilter removes ANSI escape sequences from a byte stream that may be cut
// anywhere: control sequences "ESC [ params final" (params in 0x20-0x3F,
// final in 0x40-0x7E) and any other ESC byte on its own. Its state survives
// between calls, so a sequence split across two reads is still removed.
//
// With residue set it also removes what is left of a sequence whose ESC a
// writer replaced by U+FFFD: "\uFFFD[" then digits and semicolons, then "m"
// (colours) or, after at least one digit, a cursor letter. That is stricter
// than after an ESC, because U+FFFD followed by "[" may be text.
type ansiFilter struct {
	state   ansiState
	residue bool
	pending []byte // parameter bytes of the sequence being read
}

// filter appends to dst the bytes of src that are not part of a sequence.
func (f *ansiFilter) filter(dst, src []byte) []byte {
	for len(src) > 0 {
		if f.state == ansiText {
			// Copy the text up to the next ESC (or U+FFFD) in one go.
			i := f.next(src)
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
			switch {
			case c == esc:
				f.state = ansiEsc
			case c == replacement[0]:
				f.state = ansiRep1
			default:
				dst = append(dst, c)
			}
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
				dst, src = f.resume(dst, c, src)
			}
		case ansiRep1, ansiRep2:
			if c != replacement[f.state-ansiRep1+1] {
				// Not U+FFFD: give back what was held, look at c again.
				dst = append(dst, replacement[:f.state-ansiRep1+1]...)
				dst, src = f.resume(dst, c, src)
				continue
			}
			f.state++
		case ansiRep:
			if c == '[' {
				f.state = ansiRepCSI
				f.pending = f.pending[:0]
				continue
			}
			dst = append(dst, replacement...)
			dst, src = f.resume(dst, c, src)
		case ansiRepCSI:
			switch {
			case (c >= '0' && c <= '9' || c == ';') && len(f.pending) < maxCSIParams:
				f.pending = append(f.pending, c)
			case c == 'm' || len(f.pending) > 0 && f.pending[0] != ';' && strings.IndexByte("ABCDEFGHJKST", c) >= 0:
				f.state = ansiText
			default:
				// Text after all: give all of it back.
				dst = append(dst, replacement+"["...)
				dst = append(dst, f.pending...)
				dst, src = f.resume(dst, c, src)
			}
		}
	}
	return dst
}

// next returns the index in src of the next byte that may start a
// sequence, or -1.
func (f *ansiFilter) next(src []byte) int {
	if !f.residue {
		return bytes.IndexByte(src, esc)
	}
	for i, c := range src {
		if c == esc || c == replacement[0] {
			return i
		}
	}
	return -1
}

// resume returns to text with c, a byte that ended a would-be sequence:
// c may start a sequence itself, so it is pushed back in front of src.
func (f *ansiFilter) resume(dst []byte, c byte, src []byte) ([]byte, []byte) {
	f.state = ansiText
	switch {
	case c == esc:
		f.state = ansiEsc
	case f.residue && c == replacement[0]:
		f.state = ansiRep1
	default:
		dst = append(dst, c)
	}
	return dst, src
}

// flush appends what an unfinished sequence held back at the end of input.
func (f *ansiFilter) flush(dst []byte) []byte {
	switch f.state {
	case ansiCSI:
		dst = append(dst, f.pending...)
	case ansiRep1, ansiRep2:
		dst = append(dst, replacement[:f.state-ansiRep1+1]...)
	case ansiRep:
		dst = append(dst, replacement...)
	case ansiRepCSI:
		dst = append(dst, replacement+"["...)
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

// newResidueStripper is NewANSIStripper that also removes sequences whose
// ESC a writer replaced by U+FFFD (see ansiFilter), as in JUnit files that
// Go's encoding/xml wrote.
func newResidueStripper(r io.Reader) io.Reader {
	return &ansiReader{r: r, f: ansiFilter{residue: true}}
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
	if err := a.fill(); err != nil {
		return 0, err
	}
	n := copy(p, a.out)
	a.out = a.out[n:]
	return n, nil
}

// ReadByte implements io.ByteReader, so that encoding/xml reads the
// filtered bytes as they are, without a buffer of its own.
func (a *ansiReader) ReadByte() (byte, error) {
	if len(a.out) == 0 {
		if err := a.fill(); err != nil {
			return 0, err
		}
	}
	b := a.out[0]
	a.out = a.out[1:]
	return b, nil
}

// fill reads from the source until some filtered bytes are waiting, or
// returns the source's error once they are all read.
func (a *ansiReader) fill() error {
	for empty := 0; len(a.out) == 0; {
		if a.err != nil {
			return a.err
		}
		if empty >= maxEmptyReads {
			return io.ErrNoProgress
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
	return nil
}
