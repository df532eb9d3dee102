package classify

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// naiveHits returns, for each end offset in text, the patterns that end
// there, searched for in folded text.
func naiveHits(patterns []string, text []byte) map[int][]int32 {
	folded := []byte(foldASCII(string(text)))
	out := make(map[int][]int32)
	for pi, p := range patterns {
		if p == "" {
			continue
		}
		for i := 0; i+len(p) <= len(folded); i++ {
			if string(folded[i:i+len(p)]) == p {
				out[i+len(p)] = append(out[i+len(p)], int32(pi))
			}
		}
	}
	for k := range out {
		slices.Sort(out[k])
	}
	return out
}

func TestAutomaton(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte("abcAB\n:é\x00")
	randText := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return b
	}
	for round := range 300 {
		var patterns []string
		for range 1 + rng.IntN(8) {
			p := randText(1 + rng.IntN(4))
			patterns = append(patterns, foldASCII(string(bytes.ReplaceAll(p, []byte("\n"), nil))))
		}
		a := newAutomaton(patterns)
		n := rng.IntN(200)
		if round%10 == 0 {
			n = 5000 + rng.IntN(20000) // long enough for the four-part scan
		}
		text := randText(n)
		var spare [3][]hit
		got := make(map[int][]int32)
		last := -1
		for _, h := range a.scan(text, nil, &spare) {
			if int(h.end) <= last {
				t.Fatalf("hits out of order: %d after %d", h.end, last)
			}
			last = int(h.end)
			got[int(h.end)] = slices.Sorted(slices.Values(a.outputs(h)))
		}
		want := naiveHits(patterns, text)
		// The scan starts over at each of its cut points, which are line
		// starts: a pattern never spans them, as no pattern holds '\n'.
		for k, v := range want {
			if !slices.Equal(got[k], v) {
				t.Fatalf("round %d, patterns %q: at %d got %v, want %v", round, patterns, k, got[k], v)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("round %d: %d hit places, want %d", round, len(got), len(want))
		}
	}
}
