package cache

import (
	"bytes"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// TestIndexBomb: a small run file whose index has a valid checksum but
// expands a thousandfold is damaged, refused before it is expanded. Before,
// a 64 KiB file made search reach 8.2 GB resident.
func TestIndexBomb(t *testing.T) {
	c := openCache(t, 0)
	k := Key{Bucket: "b", Path: "logs/job/1"}
	name, err := c.file(k)
	if err != nil {
		t.Fatal(err)
	}
	// 100 frames of 4 MiB of zeros: 400 MiB of "index" in a few KiB.
	frame := compress(make([]byte, 4<<20))
	var zix []byte
	for range 100 {
		zix = append(zix, frame...)
	}
	var file bytes.Buffer
	file.WriteString(magic)
	off := file.Len()
	file.Write(zix)
	file.Write(trailer{off: uint64(off), n: uint64(len(zix)), crc: crc32.Checksum(zix, castagnoli), version: version}.encode())
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, file.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = c.Open(k)
	runtime.ReadMemStats(&after)
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("Open of a %d-byte bomb: %v, want ErrDamaged", file.Len(), err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 64<<20 {
		t.Errorf("refusing a %d-byte bomb allocated %d MiB", file.Len(), grew>>20)
	}
}

// TestFIFOInCache: a FIFO in the place of a run file is a damaged entry,
// refused at once (not an open that waits for a writer forever).
func TestFIFOInCache(t *testing.T) {
	c := openCache(t, 0)
	k := Key{Bucket: "b", Path: "logs/job/2"}
	name, err := c.file(k)
	if err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Dir(name), 0o755)
	if err := syscall.Mkfifo(name, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.Open(k)
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrDamaged) {
			t.Fatalf("Open of a FIFO: %v, want ErrDamaged", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Open of a FIFO still waits")
	}
}
