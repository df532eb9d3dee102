package crawler

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/openshift-eng/prowcrawl"
	"github.com/openshift-eng/prowcrawl/artifact"
)

// ErrTooLarge is returned when an object is larger than the read cap.
var ErrTooLarge = artifact.ErrTooLarge

// reader opens objects through a Source, undoing gzip that was left on the
// bytes (a mirror made with `gcloud storage cp` keeps content-encoded
// objects compressed) and capping how much is read, so that a hostile
// object cannot exhaust memory. It counts objects and bytes for the summary.
type reader struct {
	src   prowcrawl.Source
	total counter
}

// sizeKnown says whether obj's bytes as read are its listed size: a
// content-encoded object arrives decompressed (GCS transcodes it), so only
// the others can be held to their stored size.
func sizeKnown(obj prowcrawl.Entry) bool {
	return obj.Size >= 0 && obj.Encoding == ""
}

// counter counts objects opened and bytes read from the source.
type counter struct {
	objects atomic.Int64
	bytes   atomic.Int64
}

// readAll reads a whole object of at most limit bytes after decompression.
func (r *reader) readAll(ctx context.Context, obj prowcrawl.Entry, limit int64, run *counter) ([]byte, error) {
	rc, err := r.open(ctx, obj, run)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	return artifact.ReadAtMost(rc, obj.Name, limit)
}

// open returns a stream of the object's decompressed bytes, counted in the
// crawl's total and in run (which may be nil). Callers that stream must
// bound what they read themselves. An object whose bytes end before (or
// after) the size its listing gave fails at its end, so that a body cut
// short is never taken for the whole object.
func (r *reader) open(ctx context.Context, obj prowcrawl.Entry, run *counter) (io.ReadCloser, error) {
	rc, err := r.src.Open(ctx, obj.Name)
	if err != nil {
		return nil, err
	}
	o, err := r.decode(obj, rc, 32<<10)
	if err != nil {
		return nil, err
	}
	o.count(run)
	return o, nil
}

// decode turns an object's bytes as the source hands them out, from rc,
// into its content: gzip left on them (a mirror keeps content-encoded
// objects compressed) is undone, and they are held to the size the listing
// gave. The object is counted once its count method is called: one read
// ahead and never taken is not counted. The bytes are buffered in chunks
// of at most buf bytes.
func (r *reader) decode(obj prowcrawl.Entry, rc io.ReadCloser, buf int) (*object, error) {
	// Bytes are counted after decompression, as they are matched.
	br := bufio.NewReaderSize(sized(obj, rc), buf)
	magic, _ := br.Peek(2)
	return r.content(obj, br, magic, rc.Close)
}

// decodeHeld is decode for an object's bytes held in memory (read ahead):
// the same checks, without a buffer that would copy them again.
func (r *reader) decodeHeld(obj prowcrawl.Entry, data []byte, release func()) (*object, error) {
	return r.content(obj, sized(obj, bytes.NewReader(data)), data, func() error { release(); return nil })
}

// sized holds raw to the size obj's listing gave, when it gives one.
func sized(obj prowcrawl.Entry, raw io.Reader) io.Reader {
	if sizeKnown(obj) {
		return &sizeReader{r: raw, want: obj.Size}
	}
	return raw
}

// content is the object whose stored bytes are raw, starting with head:
// gzip left on them is undone. On error it is closed.
func (r *reader) content(obj prowcrawl.Entry, raw io.Reader, head []byte, closer func() error) (*object, error) {
	out := raw
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(raw)
		if err != nil {
			closer()
			return nil, fmt.Errorf("read %s: gzip: %w", obj.Name, err)
		}
		out = &gzipErrReader{zr: zr}
	}
	return &object{cr: &countingReader{r: out, total: &r.total}, close: closer}, nil
}

// object is an open object's decompressed bytes.
type object struct {
	cr    *countingReader
	close func() error
}

func (o *object) Read(p []byte) (int, error) { return o.cr.Read(p) }
func (o *object) Close() error               { return o.close() }

// count counts the object as read, in the crawl's total and in run (which
// may be nil), and its bytes from then on. It is called before any Read.
func (o *object) count(run *counter) {
	o.cr.total.objects.Add(1)
	if run != nil {
		run.objects.Add(1)
		o.cr.run = run
	}
}

// sizeReader fails at the end of an object that delivered another number
// of bytes than its listing said: a download cut short, or a file of a
// mirror changed while it was read.
type sizeReader struct {
	r         io.Reader
	want, got int64
}

func (s *sizeReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.got += int64(n)
	if err == io.EOF && s.got != s.want {
		return n, fmt.Errorf("got %d bytes of the %d listed: %w", s.got, s.want, io.ErrUnexpectedEOF)
	}
	return n, err
}

type countingReader struct {
	r          io.Reader
	total, run *counter
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.total.bytes.Add(int64(n))
	if c.run != nil {
		c.run.bytes.Add(int64(n))
	}
	return n, err
}

// gzipErrReader says that a decompression error is one. The reader of the
// stream names the object, once.
type gzipErrReader struct {
	zr *gzip.Reader
}

func (g *gzipErrReader) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("gzip: %w", err)
	}
	return n, err
}
