package classify

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"

	"github.com/openshift-eng/prowcrawl/prow"
)

// TestLazyStripper checks that the stripper started at the first ESC gives
// the bytes of prow's stripper over the whole stream, whatever the reads'
// sizes and wherever the first sequence lies (in the first read, later,
// split across reads, at the very end, nowhere), and passes on a read
// error after the bytes before it.
func TestLazyStripper(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"plain text ", "\n", "\x1b[31m", "\x1b[0m", "\x1b", "[", "1;2", "m", "\x1b[", "x"}
	for round := range 300 {
		var b bytes.Buffer
		first := rng.IntN(3) // 0: no ESC, 1: one early, 2: one late
		for i := range 20 + rng.IntN(200) {
			p := pieces[rng.IntN(len(pieces))]
			if first == 0 || first == 2 && i < 150 {
				p = pieces[rng.IntN(2)]
			}
			b.WriteString(p)
		}
		data := b.Bytes()
		want, err := io.ReadAll(prow.NewANSIStripper(bytes.NewReader(data)))
		if err != nil {
			t.Fatal(err)
		}
		readers := []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data)),
			iotest.HalfReader(bytes.NewReader(data)), iotest.DataErrReader(bytes.NewReader(data))}
		for k, r := range readers {
			got, err := io.ReadAll(&lazyStripper{src: r})
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("round %d, reader %d: %q, %v; want %q", round, k, got, err, want)
			}
		}
		// A read error after the data: the bytes, then the error.
		boom := errors.New("boom")
		got, err := io.ReadAll(&lazyStripper{src: io.MultiReader(bytes.NewReader(data), iotest.ErrReader(boom))})
		if !errors.Is(err, boom) || !bytes.Equal(got, want[:len(got)]) {
			t.Fatalf("round %d: after an error %q, %v; want a prefix of %q and %v", round, got, err, want, boom)
		}
	}
}
