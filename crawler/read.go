package crawler

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// ErrTooLarge is returned when an object is larger than the read cap.
var ErrTooLarge = errors.New("object exceeds the size cap")

// reader opens objects through a Source, undoing gzip that was left on the
// bytes (a mirror made with `gcloud storage cp` keeps content-encoded
// objects compressed) and capping how much is read, so that a hostile
// object cannot exhaust memory. It counts objects and bytes for the summary.
type reader struct {
	src     Source
	objects atomic.Int64
	bytes   atomic.Int64
}

// readAll reads a whole object of at most limit bytes after decompression.
func (r *reader) readAll(ctx context.Context, name string, limit int64) ([]byte, error) {
	rc, err := r.open(ctx, name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if int64(len(b)) > limit {
		return nil, fmt.Errorf("read %s: %w (%d bytes)", name, ErrTooLarge, limit)
	}
	return b, nil
}

// open returns a stream of the object's decompressed bytes. Callers that
// stream must bound what they read themselves.
func (r *reader) open(ctx context.Context, name string) (io.ReadCloser, error) {
	rc, err := r.src.Open(ctx, name)
	if err != nil {
		return nil, err
	}
	r.objects.Add(1)
	counted := &countingReader{r: rc, n: &r.bytes}
	br := bufio.NewReaderSize(counted, 32<<10)
	magic, _ := br.Peek(2)
	if len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return nil, fmt.Errorf("read %s: gzip: %w", name, err)
		}
		return readCloser{Reader: &gzipErrReader{zr: zr, name: name}, close: rc.Close}, nil
	}
	return readCloser{Reader: br, close: rc.Close}, nil
}

type readCloser struct {
	io.Reader
	close func() error
}

func (r readCloser) Close() error { return r.close() }

type countingReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// gzipErrReader names the object in decompression errors.
type gzipErrReader struct {
	zr   *gzip.Reader
	name string
}

func (g *gzipErrReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("read %s: gzip: %w", g.name, err)
	}
	return n, err
}
