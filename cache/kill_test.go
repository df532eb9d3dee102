//go:build unix

package cache

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// TestMain lets the test binary play a writer that TestKillDuringWrite
// kills.
func TestMain(m *testing.M) {
	if dir := os.Getenv("PROWCRAWL_CACHE_WRITER"); dir != "" {
		writeForever(dir)
		return
	}
	os.Exit(m.Run())
}

// writeForever stores runs with large logs, one after another, until it is
// killed. Each run's log is made from its number, so a reader can tell
// what it must hold.
func writeForever(dir string) {
	c, err := Open(dir, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	for i := 0; ; i++ {
		k := Key{Bucket: "b", Path: fmt.Sprintf("logs/job/%d", i%7)}
		w, err := c.Create(k)
		if err != nil {
			os.Exit(3)
		}
		w.SetStarted(time.Unix(int64(1700000000+i), 0))
		// Over spillAt compressed: the writer spills, then copies.
		w.Put("build-log.txt", bytes.NewReader(killLog(i)))
		w.Put("started.json", bytes.NewReader([]byte(strconv.Itoa(i))))
		if err := w.Commit(); err != nil {
			os.Exit(3)
		}
		fmt.Println(i)
	}
}

func killLog(i int) []byte {
	b := make([]byte, 5<<19)
	cc := rand.NewChaCha8([32]byte{byte(i), byte(i >> 8)})
	cc.Read(b[:3<<19])
	copy(b[3<<19:], logLines(uint64(i), 4000))
	return b
}

// TestKillDuringWrite kills a writer with SIGKILL at random points, again
// and again, on one cache: every run file it left opens and holds exactly
// what was committed, the half-written ones are only temporary files, and
// eviction removes those.
func TestKillDuringWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache")
	r := rand.New(rand.NewPCG(11, 11))
	for round := range 6 {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "PROWCRAWL_CACHE_WRITER="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// The first round waits for a commit, so that there is a run to
		// check however slow the machine; then the kill lands anywhere.
		waited := round == 0 && bufio.NewScanner(out).Scan()
		go io.Copy(io.Discard, out)
		time.Sleep(time.Duration(r.IntN(700)) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		cmd.Wait()
		t.Logf("round %d killed (after a commit: %v)", round, waited)
	}
	c, err := Open(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	for e, err := range c.Runs() {
		if err != nil {
			t.Fatal(err)
		}
		run, err := c.Open(e.Key)
		if err != nil {
			t.Fatalf("%s: %v", e.Key, err)
		}
		if err := run.Verify(); err != nil {
			t.Fatalf("%s: %v", e.Key, err)
		}
		i, err := strconv.Atoi(string(readAllObj(t, run, "started.json")))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(readAllObj(t, run, "build-log.txt"), killLog(i)) {
			t.Fatalf("%s: the log is not run %d's", e.Key, i)
		}
		run.Close()
		runs++
	}
	if runs == 0 {
		t.Fatal("no run was committed before the kills: nothing was tested")
	}
	s, _ := c.Stats()
	t.Logf("%d runs, %d temporary bytes left", runs, s.Temp)
	c.now = func() time.Time { return time.Now().Add(2 * tempGrace) }
	if _, err := c.Evict(); err != nil {
		t.Fatal(err)
	}
	if s, _ := c.Stats(); s.Temp != 0 {
		t.Fatalf("%d temporary bytes left after eviction", s.Temp)
	}
}
