package classify

import "bytes"

// automaton is an Aho-Corasick automaton compiled to a DFA over ASCII
// case-folded bytes: it finds every occurrence of a set of literals in one
// pass, one table lookup per byte, whatever the number of literals.
//
// Bytes are first mapped to equivalence classes (bytes that occur in no
// literal share class 0, and an upper-case letter shares its lower-case
// letter's class), so a row of the table has a few dozen entries and the
// hot part of the table stays in the L1 cache.
type automaton struct {
	class  [256]uint8
	stride int32
	// trans[s+c] is the state after state s reads a byte of class c.
	// States are premultiplied by stride; a negative entry -t means that
	// state t ends at least one literal.
	trans []int32
	// out[t/stride] lists the literals that end in state t.
	out [][]int32
	// small is trans in an array of a fixed size, when it fits: indexed
	// with a uint16 the scan needs no bounds checks.
	small *[1 << 16]int32
}

// maxAutomatonStates bounds the trie, so that premultiplied states fit an
// int32 whatever the number of byte classes.
const maxAutomatonStates = 1 << 16

// newAutomaton builds the automaton of patterns, already folded with
// foldASCII. Pattern i is reported as i. Empty patterns are ignored.
func newAutomaton(patterns []string) *automaton {
	a := &automaton{}
	// Classes: 0 for bytes in no pattern, then one per distinct byte.
	var used [256]bool
	for _, p := range patterns {
		for i := 0; i < len(p); i++ {
			used[p[i]] = true
		}
	}
	// At most 231 classes: A-Z never get their own.
	nclass := 1
	for c := 0; c < 256; c++ {
		if used[c] {
			a.class[c] = uint8(nclass)
			nclass++
		}
	}
	for c := 'A'; c <= 'Z'; c++ {
		a.class[c] = a.class[c+'a'-'A']
	}
	stride := int32(nclass)
	a.stride = stride

	// The trie, as a table of goto transitions (-1: none).
	type node struct {
		fail int32
		out  []int32
	}
	nodes := []node{{}}
	next := make([]int32, stride) // next[s*stride+c]
	for i := range next {
		next[i] = -1
	}
	for pi, p := range patterns {
		if p == "" {
			continue
		}
		s := int32(0)
		for i := 0; i < len(p); i++ {
			c := int32(a.class[p[i]])
			t := next[s*stride+c]
			if t < 0 {
				t = int32(len(nodes))
				nodes = append(nodes, node{})
				next = append(next, make([]int32, stride)...)
				for j := t * stride; j < (t+1)*stride; j++ {
					next[j] = -1
				}
				next[s*stride+c] = t
			}
			s = t
		}
		nodes[s].out = append(nodes[s].out, int32(pi))
	}
	// Breadth-first: failure links, inherited outputs, and the DFA
	// transitions (a missing goto follows the failure link, whose row is
	// already complete because it is shallower).
	queue := make([]int32, 0, len(nodes))
	for c := int32(0); c < stride; c++ {
		if t := next[c]; t > 0 {
			nodes[t].fail = 0
			queue = append(queue, t)
		} else {
			next[c] = 0
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := nodes[s].fail
		nodes[s].out = append(nodes[s].out, nodes[f].out...)
		for c := int32(0); c < stride; c++ {
			t := next[s*stride+c]
			if t < 0 {
				next[s*stride+c] = next[f*stride+c]
				continue
			}
			nodes[t].fail = next[f*stride+c]
			queue = append(queue, t)
		}
	}
	a.trans = make([]int32, len(next))
	a.out = make([][]int32, len(nodes))
	for i, t := range next {
		v := t * stride
		if len(nodes[t].out) > 0 {
			v = -v
		}
		a.trans[i] = v
	}
	for i, n := range nodes {
		a.out[i] = n.out
	}
	if len(a.trans) <= 1<<16 {
		a.small = new([1 << 16]int32)
		copy(a.small[:], a.trans)
	}
	return a
}

// hit is a place where literals end: at byte offset end (exclusive), the
// literals a.out[state/stride].
type hit struct {
	end, state int32
}

// scan appends to hits every place in text where a literal ends, in order.
// The literals that matter hold no newline (a line is matched alone), so
// the scan may start over in the root state at the start of any line.
//
// One scan is a chain of dependent table lookups, each waiting for the
// last, so a long text is cut at line starts into four parts that are
// scanned in one loop: the four chains overlap and the scan runs at
// several times the speed of one. spare holds scratch slices for the hits
// of the other parts.
func (a *automaton) scan(text []byte, hits []hit, spare *[3][]hit) []hit {
	if len(text) < 4<<10 {
		return a.scanOne(text, 0, 0, hits)
	}
	q := len(text) / 4
	c1 := lineStartAfter(text, q)
	c2 := lineStartAfter(text, max(2*q, c1))
	c3 := lineStartAfter(text, max(3*q, c2))
	p0, p1, p2, p3 := text[:c1], text[c1:c2], text[c2:c3], text[c3:]
	n := min(len(p0), len(p1), len(p2), len(p3))
	parts := partHits{hits: [4][]hit{hits, spare[0][:0], spare[1][:0], spare[2][:0]}, base: [4]int32{0, int32(c1), int32(c2), int32(c3)}}
	trans, class := a.trans, &a.class
	var s0, s1, s2, s3 int32
	p0, p1, p2, p3 = p0[:n], p1[:n], p2[:n], p3[:n]
	if small := a.small; small != nil {
		for i := range p0 {
			s0 = small[uint16(s0+int32(class[p0[i]]))]
			s1 = small[uint16(s1+int32(class[p1[i]]))]
			s2 = small[uint16(s2+int32(class[p2[i]]))]
			s3 = small[uint16(s3+int32(class[p3[i]]))]
			if s0|s1|s2|s3 < 0 {
				s0, s1, s2, s3 = parts.record(int32(i+1), s0, s1, s2, s3)
			}
		}
	} else {
		for i := range p0 {
			s0 = trans[int(s0)+int(class[p0[i]])]
			s1 = trans[int(s1)+int(class[p1[i]])]
			s2 = trans[int(s2)+int(class[p2[i]])]
			s3 = trans[int(s3)+int(class[p3[i]])]
			if s0|s1|s2|s3 < 0 {
				s0, s1, s2, s3 = parts.record(int32(i+1), s0, s1, s2, s3)
			}
		}
	}
	hits, h1, h2, h3 := parts.hits[0], parts.hits[1], parts.hits[2], parts.hits[3]
	// The parts' tails, each from where its chain stopped.
	hits = a.scanOne(text[n:c1], n, s0, hits)
	hits = append(hits, h1...)
	hits = a.scanOne(text[c1+n:c2], c1+n, s1, hits)
	hits = append(hits, h2...)
	hits = a.scanOne(text[c2+n:c3], c2+n, s2, hits)
	hits = append(hits, h3...)
	hits = a.scanOne(text[c3+n:], c3+n, s3, hits)
	spare[0], spare[1], spare[2] = h1, h2, h3
	return hits
}

// partHits collects the hits of the four parts of a scan.
type partHits struct {
	hits [4][]hit
	base [4]int32
}

// record notes the hits of the parts whose state is negative and returns
// the states made positive. It is kept out of the scan's loop, which then
// holds its four states in registers.
//
//go:noinline
func (p *partHits) record(end int32, s0, s1, s2, s3 int32) (int32, int32, int32, int32) {
	s := [4]int32{s0, s1, s2, s3}
	for j, v := range s {
		if v < 0 {
			s[j] = -v
			p.hits[j] = append(p.hits[j], hit{p.base[j] + end, -v})
		}
	}
	return s[0], s[1], s[2], s[3]
}

// scanOne scans text, which starts at offset base of the whole, from state
// s.
func (a *automaton) scanOne(text []byte, base int, s int32, hits []hit) []hit {
	trans, class := a.trans, &a.class
	for i, b := range text {
		s = trans[int(s)+int(class[b])]
		if s < 0 {
			s = -s
			hits = append(hits, hit{int32(base + i + 1), s})
		}
	}
	return hits
}

// lineStartAfter returns the offset of the first line that starts at or
// after pos, or len(text).
func lineStartAfter(text []byte, pos int) int {
	if pos == 0 || pos >= len(text) {
		return min(pos, len(text))
	}
	if text[pos-1] == '\n' {
		return pos
	}
	i := bytes.IndexByte(text[pos:], '\n')
	if i < 0 {
		return len(text)
	}
	return pos + i + 1
}

// outputs returns the literals that end in the state of h.
func (a *automaton) outputs(h hit) []int32 {
	return a.out[h.state/a.stride]
}
