package mirror

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openshift-eng/prowcrawl"
)

// TestSpecialFiles: a FIFO inside a run is listed with a problem, never
// as an object to read, and opening it fails at once. Before, it was
// skipped without a word and the run stored complete; a FIFO put in a
// file's place blocked the open.
func TestSpecialFiles(t *testing.T) {
	root := t.TempDir()
	run := filepath.Join(root, "logs", "job", "1")
	if err := os.MkdirAll(run, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(run, "started.json"), []byte(`{"timestamp":1763978400}`), 0o644)
	if err := syscall.Mkfifo(filepath.Join(run, "build-log.txt"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	d, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	ents, err := d.List(t.Context(), prowcrawl.Query{Prefix: "logs/job/1/"})
	if err != nil {
		t.Fatal(err)
	}
	var fifo *prowcrawl.Entry
	for i, e := range ents {
		if e.Name == "logs/job/1/build-log.txt" {
			fifo = &ents[i]
		}
	}
	if fifo == nil || !strings.Contains(fifo.Problem, "not a regular file (a FIFO)") {
		t.Fatalf("listing %+v: want the FIFO named with its problem", ents)
	}
	done := make(chan error, 1)
	go func() {
		rc, err := d.Open(t.Context(), "logs/job/1/build-log.txt")
		if err == nil {
			rc.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("opening the FIFO: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("opening the FIFO blocks")
	}
}
