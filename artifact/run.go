package artifact

import (
	"bytes"
	"context"
	"errors"
	"io"
)

// File is one object of a run.
type File interface {
	// Name is the object's path below the run's directory, with forward
	// slashes: "started.json", "artifacts/e2e/junit/junit_e2e.xml".
	Name() string
	// Size is the object's size in bytes as Open reads it, or -1 when
	// unknown (an object stored gzip-encoded).
	Size() int64
	// Open opens the object's content (decompressed) for reading. An error
	// of Open, or of a Read of what it returns, is an error of the source
	// (the object could not be read), never of the content.
	Open(ctx context.Context) (io.ReadCloser, error)
}

// Run is a run's files in the order of its directory's listing, which is
// the order evidence is reported in.
type Run struct {
	// Dir is the run's directory in its bucket ("logs/JOB/ID/", ending in
	// a slash), or "" for files that are not in a bucket. The object
	// names recorded (in evidence and problems) are Dir + File.Name().
	Dir string
	// Files are the run's objects.
	Files []File
	// Ahead, unless nil, reads files ahead of their opening.
	Ahead Ahead
}

// Ahead reads files ahead: a source far away downloads the files of a run
// together rather than one round trip after the other.
type Ahead interface {
	// ReadAhead is told that files are about to be opened, in this order.
	// It may start reading them; release drops whatever was read and not
	// opened. Opening a file not read ahead, or opening one again, works
	// as without reading ahead.
	ReadAhead(ctx context.Context, files []File) (release func())
}

// ErrTooLarge is returned when an object is larger than a cap.
var ErrTooLarge = errors.New("object exceeds the size cap")

// ErrTooManyTests is recorded (as a size problem) on a run with more tests
// than its cap: what was left out is said with it.
var ErrTooManyTests = errors.New("more tests than a run keeps")

// ErrNotKept is returned by Read when Options.Keep refused the run.
var ErrNotKept = errors.New("run not kept")

// memFile is a File held in memory.
type memFile struct {
	name string
	data []byte
}

// Bytes returns a File whose content is b.
func Bytes(name string, b []byte) File { return memFile{name: name, data: b} }

func (m memFile) Name() string { return m.name }
func (m memFile) Size() int64  { return int64(len(m.data)) }
func (m memFile) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(bytes.NewReader(m.data)), nil
}
