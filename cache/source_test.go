package cache

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"testing"
	"time"
)

// TestArtifact hands a cached run out as an artifact.Run of its whole
// listing: cached files open with their content and stored size, listed
// files the crawl did not read fail with ErrNotCached, and Missed names
// both those and a damaged file.
func TestArtifact(t *testing.T) {
	c := openCache(t, 0)
	w, err := c.Create(key)
	if err != nil {
		t.Fatal(err)
	}
	w.SetStarted(time.Now())
	w.SetListing([]File{
		{Name: "build-log.txt", Size: 6},
		{Name: "pods/etcd.log", Size: 40, Encoding: "gzip"},
		{Name: "started.json", Size: 2},
	})
	for name, body := range map[string]string{"build-log.txt": "a log\n", "started.json": "{}"} {
		if err := w.Put(name, bytes.NewReader([]byte(body))); err != nil {
			t.Fatal(err)
		}
	}
	r := commitOpen(t, c, w, key)
	run := r.Artifact()
	if run.Dir != key.Path+"/" {
		t.Errorf("Dir = %q, want %q", run.Dir, key.Path+"/")
	}
	var got []string
	for _, f := range run.Files {
		rc, err := f.Open(t.Context())
		if err != nil {
			if !errors.Is(err, ErrNotCached) || errors.Is(err, ErrDamaged) {
				t.Errorf("open %s: %v, want ErrNotCached", f.Name(), err)
			}
			got = append(got, f.Name()+" not cached")
			continue
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil || int64(len(b)) != f.Size() {
			t.Errorf("read %s: %q (size %d), %v", f.Name(), b, f.Size(), err)
		}
		got = append(got, f.Name()+" "+string(bytes.TrimSpace(b)))
	}
	want := []string{"build-log.txt a log", "pods/etcd.log not cached", "started.json {}"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("files %q, want %q", got, want)
	}
	if run.Files[1].Size() != -1 {
		t.Errorf("size of a content-encoded file not cached = %d, want -1 (unknown)", run.Files[1].Size())
	}
	if names, damaged := r.Missed(); !reflect.DeepEqual(names, []string{"pods/etcd.log"}) || damaged {
		t.Errorf("Missed() = %q, %v; want the file not cached, no damage", names, damaged)
	}
}

// TestArtifactDamaged: a file whose content is damaged fails its read with
// ErrDamaged, and Missed says the run is damaged.
func TestArtifactDamaged(t *testing.T) {
	c := openCache(t, 0)
	writeRun(t, c, key, time.Now(), logLines(3, 4000))
	p, _ := c.file(key)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	b[headerSize+100] ^= 0x40
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := c.Open(key)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, f := range r.Artifact().Files {
		rc, err := f.Open(t.Context())
		if err == nil {
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
		}
		if !errors.Is(err, ErrDamaged) {
			t.Errorf("read %s: %v, want ErrDamaged", f.Name(), err)
		}
	}
	if names, damaged := r.Missed(); len(names) != 1 || !damaged {
		t.Errorf("Missed() = %q, %v; want build-log.txt, damaged", names, damaged)
	}
}
