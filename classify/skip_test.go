package classify

import (
	"bytes"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestSkipperLines checks the skipper against looking for every literal in
// every line, on texts below and above the size that is cut in four: the
// lines that hold one, and which ones each holds.
func TestSkipperLines(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	lits := []string{"readiness probe failed", ": i/o timeout", "ns/openshift-sdn", "desc = transport is closing", "aaaaaab",
		"ns/openshift-ovn-kubernetes", ": connect: no route to host", ": connect: connection timed out"}
	k := newSkipper(dedup(lits))
	if k == nil {
		t.Fatal("no skipper")
	}
	words := []string{"Readiness probe", "failed", "READINESS PROBE FAILED", ": i/o", " timeout", ": I/O TIMEOUT", "ns/openshift-",
		"sdn", "ovn-kubernetes", ": connect: ", "no route to host", "connection timed out", "aaaaaaab", "aaaaab", "desc = ", "transport is closing", "x", " ", "\x00", "\xff", "é"}
	var spare [3][]span
	for round := range 200 {
		var b bytes.Buffer
		n := 1 + rng.IntN(40)
		if round%20 == 0 {
			n = 2000
		}
		for range n {
			for range rng.IntN(12) {
				b.WriteString(words[rng.IntN(len(words))])
			}
			b.WriteByte('\n')
		}
		text := b.Bytes()
		if rng.IntN(2) == 0 {
			text = text[:len(text)-1]
		}
		var want []span
		start := 0
		for _, line := range bytes.SplitAfter(text, []byte("\n")) {
			body := bytes.TrimSuffix(line, []byte("\n"))
			var found uint64
			for i, l := range k.lits {
				if strings.Contains(foldASCII(string(body)), l) {
					found |= 1 << i
				}
			}
			if found != 0 {
				want = append(want, span{start, start + len(body), found})
			}
			start += len(line)
		}
		got := k.lines(text, nil, &spare)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d: skipper %v, want %v", round, got, want)
		}
	}
}
