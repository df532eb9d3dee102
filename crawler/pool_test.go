package crawler

import (
	"bytes"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// TestAheadEncoded checks that content-encoded objects, whose size as
// read the listing does not give, are read ahead with the others, and
// that one that arrives larger than the budget can hold is dropped, read
// again when opened, and leaves the budget whole.
func TestAheadEncoded(t *testing.T) {
	small := gzipped(t, "Missing CNI default network\n")
	// Stored small, read large: a mirror hands out what it holds, and
	// this one holds more than the budget spares once its charge is in.
	big := bytes.Repeat([]byte("x"), 3*aheadExpand*1000)
	src := newGateSource(t, 3, map[string][]byte{
		"r/a.log": small, "r/b.log": small, "r/c.log": big,
	})
	c := testCrawler(src, 8)
	budget := int64(2*aheadMinCharge + aheadExpand*1000 + 1000)
	c.ahead = newBudget(budget)
	ents := []prowcrawl.Entry{
		{Name: "r/a.log", Size: int64(len(small)), Encoding: "gzip"},
		{Name: "r/b.log", Size: int64(len(small)), Encoding: "gzip"},
		{Name: "r/c.log", Size: 1000, Encoding: "gzip"}, // as stored
	}
	var count counter
	run := c.runOf("r/", ents, &count)
	release := run.Ahead.ReadAhead(t.Context(), run.Files)
	for i, want := range []string{"Missing CNI default network\n", "Missing CNI default network\n", string(big)} {
		b, err := readFile(t, run.Files[i])
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != want {
			t.Errorf("%s: %d bytes, want %d", run.Files[i].Name(), len(b), len(want))
		}
	}
	release()
	if src.peak != 3 {
		t.Errorf("at most %d objects requested at once, want all 3 read ahead", src.peak)
	}
	opens := map[string]int{}
	for _, n := range src.opened {
		opens[n]++
	}
	if opens["r/a.log"] != 1 || opens["r/b.log"] != 1 || opens["r/c.log"] != 2 {
		t.Errorf("opened %v: want the three read ahead, and the one dropped again", src.opened)
	}
	if n := count.objects.Load(); n != 3 {
		t.Errorf("run counted %d objects, want 3", n)
	}
	if !c.ahead.TryAcquire(budget) {
		t.Error("budget not given back after release")
	}
}

// TestAheadEncodedTooLarge checks that a content-encoded object stored
// larger than aheadMaxEncoded is not read ahead but streamed when opened.
func TestAheadEncodedTooLarge(t *testing.T) {
	src := newGateSource(t, 1, map[string][]byte{"r/big.log": []byte("line\n")})
	c := testCrawler(src, 8)
	run := c.runOf("r/", []prowcrawl.Entry{{Name: "r/big.log", Size: aheadMaxEncoded + 1, Encoding: "gzip"}}, nil)
	release := run.Ahead.ReadAhead(t.Context(), run.Files)
	defer release()
	time.Sleep(10 * time.Millisecond)
	src.mu.Lock()
	n := len(src.opened)
	src.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d objects read ahead, want none", n)
	}
	if b, err := readFile(t, run.Files[0]); err != nil || string(b) != "line\n" {
		t.Fatalf("big.log: %q, %v", b, err)
	}
}
