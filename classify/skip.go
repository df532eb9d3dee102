package classify

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
)

// skipper finds the places where a set of literals may occur by skipping
// through the text (Wu and Manber's multi-pattern search): it looks at the
// four bytes that end a window as long as the shortest literal, and a
// table says how far the window can move before those bytes could be part
// of a literal's window. Lines of real logs hold few of the literals'
// four-byte sequences, so it moves most of a literal's length at a time,
// several times faster than an automaton that reads every byte. Bytes are
// folded as foldASCII folds them.
//
// A literal's window is the part of it, m bytes long, whose last four
// bytes are least likely to be seen elsewhere (see windowOf): literals
// often start with words that most lines hold ("ns/openshift-" of
// "ns/openshift-sdn"), and each window the text matches costs a check.
type skipper struct {
	m     int // the shortest literal's length, at most maxSkipWindow
	shift [skipTable]uint8
	// head[h] is 1 + the index in heads of the literals whose windows
	// end in four bytes of hash h, or 0.
	head  [skipTable]uint8
	heads [][]int32
	lits  []string
	off   []int // by literal: where its window starts in it
	// words[i] is lits[i] in little-endian words of 8 bytes, the last one
	// ending at the literal's end (overlapping the one before), and
	// folds[i] has 0x20 in each byte that is a letter of lits[i]: a text
	// word w is the literal's word folded when w|fold == word. Nil for a
	// literal shorter than 8 bytes.
	words, folds [][]uint64
}

const (
	skipBits  = 13
	skipTable = 1 << skipBits
	// minSkipWindow is the shortest literal that skipping pays for.
	minSkipWindow = 6
	// maxSkipWindow bounds the window, and so a shift, to a uint8.
	maxSkipWindow = 64
)

// newSkipper returns a skipper for lits (folded), or nil when one of them
// is too short to skip by or holds a newline, or when there are too many.
func newSkipper(lits []string) *skipper {
	if len(lits) == 0 || len(lits) > 255 {
		return nil
	}
	m := maxSkipWindow
	for _, l := range lits {
		m = min(m, len(l))
		if strings.IndexByte(l, '\n') >= 0 {
			// A line holds none; and the lines found must come in
			// order, which a literal across lines would upset.
			return nil
		}
	}
	if m < minSkipWindow {
		return nil
	}
	k := &skipper{m: m, lits: lits}
	for i := range k.shift {
		k.shift[i] = uint8(m - 3)
	}
	for li, l := range lits {
		o := windowOf(lits, li, m)
		k.off = append(k.off, o)
		b := []byte(l[o : o+m])
		for j := 3; j < m; j++ {
			h := skipHash(b, j)
			k.shift[h] = min(k.shift[h], uint8(m-1-j))
		}
		h := skipHash(b, m-1)
		if k.head[h] == 0 {
			k.heads = append(k.heads, nil)
			k.head[h] = uint8(len(k.heads))
		}
		k.heads[k.head[h]-1] = append(k.heads[k.head[h]-1], int32(li))
		var words, folds []uint64
		if len(l) >= 8 {
			for i := 0; i < len(l); i += 8 {
				i = min(i, len(l)-8)
				w := []byte(l[i : i+8])
				var f uint64
				for j, c := range w {
					if c >= 'a' && c <= 'z' {
						f |= 0x20 << (8 * j)
					}
				}
				words = append(words, binary.LittleEndian.Uint64(w))
				folds = append(folds, f)
			}
		}
		k.words, k.folds = append(k.words, words), append(k.folds, folds)
	}
	return k
}

// windowOf returns where, in lits[li], its window of m bytes starts: at
// the window whose last four bytes are in the fewest of the other
// literals, the latest of those. What several literals share is most
// often context that many lines hold (": connect: ", "ns/openshift-"),
// and a literal's end is most often the part that tells it apart.
func windowOf(lits []string, li, m int) int {
	l := lits[li]
	best, bestScore := 0, -1
	for o := 0; o+m <= len(l); o++ {
		end := l[o+m-4 : o+m]
		score := 0
		for i, other := range lits {
			if i != li && strings.Contains(other, end) {
				score++
			}
		}
		if bestScore < 0 || score <= bestScore {
			best, bestScore = o, score
		}
	}
	return best
}

// skipHash hashes the four bytes that end at text[i]. Setting 0x20
// folds a letter's case, and merges some other bytes too: that only makes
// some shifts shorter.
func skipHash(text []byte, i int) int {
	v := binary.LittleEndian.Uint32(text[i-3:]) | 0x20202020
	return int((v * 0x9e3779b1) >> (32 - skipBits))
}

// foldTable is lowerASCII as a table.
var foldTable = func() (t [256]byte) {
	for i := range t {
		t[i] = lowerASCII(byte(i))
	}
	return t
}()

// span is a line of a text, text[start:end], without its newline, and
// the literals found on it: bit i for the skipper's literal i, when it has
// at most 64 (else none are noted).
type span struct {
	start, end int
	lits       uint64
}

// lines appends to out the lines of text that hold one of the literals,
// in order. Like the automaton's scan, a long text is cut at line starts
// into four parts whose windows are moved in one loop, so that four
// chains of lookups overlap; spare holds the lines of the other parts.
func (k *skipper) lines(text []byte, out []span, spare *[3][]span) []span {
	if len(text) < 4<<10 {
		return k.finish(text, len(text), k.m-1, out)
	}
	q := len(text) / 4
	c1 := lineStartAfter(text, q)
	c2 := lineStartAfter(text, max(2*q, c1))
	c3 := lineStartAfter(text, max(3*q, c2))
	parts := [4][]span{out, spare[0][:0], spare[1][:0], spare[2][:0]}
	e0, e1, e2, e3 := c1, c2, c3, len(text)
	m := k.m
	p0, p1, p2, p3 := m-1, c1+m-1, c2+m-1, c3+m-1
	shift := &k.shift
	for p0 < e0 && p1 < e1 && p2 < e2 && p3 < e3 {
		s0 := shift[skipHash(text, p0)]
		s1 := shift[skipHash(text, p1)]
		s2 := shift[skipHash(text, p2)]
		s3 := shift[skipHash(text, p3)]
		if s0 == 0 {
			p0 = k.check(text, p0, &parts[0])
		}
		if s1 == 0 {
			p1 = k.check(text, p1, &parts[1])
		}
		if s2 == 0 {
			p2 = k.check(text, p2, &parts[2])
		}
		if s3 == 0 {
			p3 = k.check(text, p3, &parts[3])
		}
		p0, p1, p2, p3 = p0+int(s0), p1+int(s1), p2+int(s2), p3+int(s3)
	}
	out = k.finish(text[:e0], e0, p0, parts[0])
	out = append(out, k.finish(text[:e1], e1, p1, parts[1])...)
	out = append(out, k.finish(text[:e2], e2, p2, parts[2])...)
	out = append(out, k.finish(text, e3, p3, parts[3])...)
	spare[0], spare[1], spare[2] = parts[1][:0], parts[2][:0], parts[3][:0]
	return out
}

// finish moves one window on from pos to end.
func (k *skipper) finish(text []byte, end, pos int, out []span) []span {
	for pos < end {
		if sh := k.shift[skipHash(text, pos)]; sh > 0 {
			pos += int(sh)
			continue
		}
		pos = k.check(text, pos, &out)
	}
	return out
}

// check looks for literals in the window that ends at pos, whose last
// four bytes may end one's window. Each literal found there is noted in
// the span of its line, added to out unless it is the last one already.
// It returns the end of the next window, one byte on: the line may hold
// other literals. The window is moved on by the caller's zero shift.
//
//go:noinline
func (k *skipper) check(text []byte, pos int, out *[]span) int {
	i := k.head[skipHash(text, pos)]
	if i == 0 {
		return pos + 1 // four bytes inside a window, not at its end
	}
	win := pos - k.m + 1
	var found uint64
	at := -1 // where a literal found starts
	for _, li := range k.heads[i-1] {
		start := win - k.off[li]
		li := int(li)
		if start < 0 || !k.at(text, start, li) {
			continue
		}
		if at < 0 || start < at {
			at = start
		}
		if len(k.lits) <= 64 {
			found |= 1 << li
		}
	}
	if at < 0 {
		return pos + 1
	}
	if n := len(*out); n > 0 && (*out)[n-1].end >= at {
		(*out)[n-1].lits |= found // another literal of the same line
		return pos + 1
	}
	ls := lastNewline(text[:at]) + 1
	le := len(text)
	if i := bytes.IndexByte(text[at:], '\n'); i >= 0 {
		le = at + i
	}
	*out = append(*out, span{ls, le, found})
	return pos + 1
}

// at reports whether lits[li] starts at text[start:], folded.
func (k *skipper) at(text []byte, start, li int) bool {
	lit := k.lits[li]
	if len(text)-start < len(lit) {
		return false
	}
	words := k.words[li]
	if words == nil {
		return hasFoldedPrefix(text[start:], lit)
	}
	folds := k.folds[li]
	for j, w := range words {
		o := min(8*j, len(lit)-8)
		if binary.LittleEndian.Uint64(text[start+o:])|folds[j] != w {
			return false
		}
	}
	return true
}

// lastNewline returns the index of the last newline of text, or -1,
// eight bytes at a time.
func lastNewline(text []byte) int {
	i := len(text)
	for ; i >= 8; i -= 8 {
		w := binary.LittleEndian.Uint64(text[i-8:]) ^ 0x0a0a0a0a0a0a0a0a
		// The high bit of each byte of t is set unless the byte of w is
		// zero: exact for every byte, with no carry between them.
		t := ((w & 0x7f7f7f7f7f7f7f7f) + 0x7f7f7f7f7f7f7f7f) | w
		if z := ^t & 0x8080808080808080; z != 0 {
			return i - 8 + (63-bits.LeadingZeros64(z))/8
		}
	}
	return bytes.LastIndexByte(text[:i], '\n')
}

// hasFoldedPrefix reports whether text starts with lit (folded) once
// folded.
func hasFoldedPrefix(text []byte, lit string) bool {
	if len(text) < len(lit) {
		return false
	}
	for i := 0; i < len(lit); i++ {
		if foldTable[text[i]] != lit[i] {
			return false
		}
	}
	return true
}
