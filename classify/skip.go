package classify

import (
	"bytes"
	"encoding/binary"
)

// skipper finds the places where a set of literals may occur by skipping
// through the text (Wu and Manber's multi-pattern search): it looks at the
// four bytes that end a window as long as the shortest literal, and a
// table says how far the window can move before those bytes could be part
// of the start of a literal. Lines of real logs hold few of the literals'
// four-byte sequences, so it moves most of a literal's length at a time,
// several times faster than an automaton that reads every byte. Bytes are
// folded as foldASCII folds them.
type skipper struct {
	m     int // the shortest literal's length, at most maxSkipWindow
	shift [skipTable]uint8
	// head[h] is 1 + the index in heads of the literals whose first m
	// bytes end in four bytes of hash h, or 0.
	head  [skipTable]uint8
	heads [][]int32
	lits  []string
	// pre[i] is the first 8 bytes of lits[i] (when it has them) with 0x20
	// set in each: a window that differs from it cannot start the literal.
	pre []uint64
}

const (
	skipBits  = 15
	skipTable = 1 << skipBits
	// minSkipWindow is the shortest literal that skipping pays for.
	minSkipWindow = 6
	// maxSkipWindow bounds the window, and so a shift, to a uint8.
	maxSkipWindow = 64
)

// newSkipper returns a skipper for lits (folded), or nil when one of them
// is too short to skip by, or when there are too many.
func newSkipper(lits []string) *skipper {
	if len(lits) == 0 || len(lits) > 255 {
		return nil
	}
	m := maxSkipWindow
	for _, l := range lits {
		m = min(m, len(l))
	}
	if m < minSkipWindow {
		return nil
	}
	k := &skipper{m: m, lits: lits}
	for i := range k.shift {
		k.shift[i] = uint8(m - 3)
	}
	for li, l := range lits {
		b := []byte(l)
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
		var pre uint64
		if len(b) >= 8 {
			pre = binary.LittleEndian.Uint64(b) | 0x2020202020202020
		}
		k.pre = append(k.pre, pre)
	}
	return k
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
// four bytes may end one's first m bytes. Each literal that starts there
// is noted in the span of its line, added to out unless it is the last
// one already. It returns the end of the next window, one byte on: the
// line may hold other literals. The window is moved on by the caller's
// zero shift.
//
//go:noinline
func (k *skipper) check(text []byte, pos int, out *[]span) int {
	start := pos - k.m + 1
	i := k.head[skipHash(text, pos)]
	if i == 0 {
		return pos + 1 // four bytes inside a literal, not at the end of its window
	}
	var win uint64
	if len(text)-start >= 8 {
		win = binary.LittleEndian.Uint64(text[start:]) | 0x2020202020202020
	}
	var found uint64
	any := false
	for _, li := range k.heads[i-1] {
		if pre := k.pre[li]; pre != 0 && win != 0 && win != pre {
			continue
		}
		if hasFoldedPrefix(text[start:], k.lits[li]) {
			any = true
			if li < 64 && len(k.lits) <= 64 {
				found |= 1 << li
			}
		}
	}
	if !any {
		return pos + 1
	}
	if n := len(*out); n > 0 && (*out)[n-1].end >= start {
		(*out)[n-1].lits |= found // another literal of the same line
		return pos + 1
	}
	ls := bytes.LastIndexByte(text[:start], '\n') + 1
	le := len(text)
	if i := bytes.IndexByte(text[start:], '\n'); i >= 0 {
		le = start + i
	}
	*out = append(*out, span{ls, le, found})
	return pos + 1
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
