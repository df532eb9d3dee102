package search

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"sync"
	"unicode/utf8"
)

// blockSize is how much of a file one search of the expression covers: a
// search of a whole block lets the expression's literal prefix skip the
// lines that cannot match at memchr speed, instead of one call per line.
const blockSize = 1 << 20

// maxLine is how much of a line is matched: a longer line is matched on
// its first part, as the classifier does.
const maxLine = 64 << 10

// grep calls hit with the number (from 1) and text of every line of r that
// re matches, and where in the line the match starts, until hit returns false. re must be compiled with (?m), so
// that ^ and $ hold at the ends of every line of a block.
func grep(r io.Reader, re *regexp.Regexp, hit func(line int, text []byte, at int) bool) error {
	b := buffers.Get().(*buffer)
	defer buffers.Put(b)
	br, buf := b.br, b.blk
	br.Reset(r)
	defer br.Reset(nil)
	line := 1
	for eof := false; !eof; {
		buf = buf[:0]
		for len(buf) < blockSize && !eof {
			chunk, err := br.ReadSlice('\n')
			buf = append(buf, chunk...)
			if err == bufio.ErrBufferFull {
				// A line longer than maxLine: its first part stands for
				// it, the rest is skipped.
				for err == bufio.ErrBufferFull {
					_, err = br.ReadSlice('\n')
				}
				buf = append(buf, '\n')
			}
			switch {
			case err == io.EOF:
				eof = true
			case err != nil:
				return err
			}
		}
		more := grepBlock(buf, re, line, hit)
		if !more {
			return nil
		}
		line += bytes.Count(buf, []byte{'\n'})
	}
	return nil
}

// buffer is what one grep reads with, reused: a run has many small files.
type buffer struct {
	br  *bufio.Reader
	blk []byte
}

var buffers = sync.Pool{New: func() any {
	return &buffer{br: bufio.NewReaderSize(nil, maxLine), blk: make([]byte, 0, blockSize+maxLine+1)}
}}

// grepBlock matches the lines of blk, whose first line is number first;
// false when hit asked to stop.
func grepBlock(blk []byte, re *regexp.Regexp, first int, hit func(int, []byte, int) bool) bool {
	pos, counted, line := 0, 0, first
	for pos < len(blk) {
		loc := re.FindIndex(blk[pos:])
		if loc == nil {
			return true
		}
		ms, me := pos+loc[0], pos+loc[1]
		if ms == len(blk) && blk[ms-1] == '\n' {
			return true // an empty match after the last line is no line
		}
		ls := max(bytes.LastIndexByte(blk[:ms], '\n')+1, pos)
		le := len(blk)
		if i := bytes.IndexByte(blk[ms:], '\n'); i >= 0 {
			le = ms + i
		}
		line += bytes.Count(blk[counted:ls], []byte{'\n'})
		counted = ls
		// A match that runs past its line's end counts only if the line
		// matches on its own.
		switch {
		case me <= le:
			if !hit(line, blk[ls:le], ms-ls) {
				return false
			}
		case re.Match(blk[ls:le]):
			at := re.FindIndex(blk[ls:le])[0]
			if !hit(line, blk[ls:le], at) {
				return false
			}
		}
		pos = le + 1
	}
	return true
}

// excerpt is a line as reported: without a trailing carriage return, valid
// UTF-8, and at most about limit bytes: a longer line is cut to the part
// around at (where its match starts), marked with "..." where it was cut.
func excerpt(b []byte, at, limit int) string {
	b = bytes.TrimRight(b, "\r")
	if len(b) > limit {
		start := max(0, min(at-limit/4, len(b)-limit))
		end := start + limit
		for start > 0 && !utf8.RuneStart(b[start]) {
			start--
		}
		for end < len(b) && !utf8.RuneStart(b[end]) {
			end--
		}
		cut := string(bytes.ToValidUTF8(b[start:end], []byte("\uFFFD")))
		if start > 0 {
			cut = "..." + cut
		}
		if end < len(b) {
			cut += "..."
		}
		return cut
	}
	return string(bytes.ToValidUTF8(b, []byte("\uFFFD")))
}
