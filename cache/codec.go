package cache

import (
	"bytes"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// Encoders and decoders are reused: each holds buffers of a few MiB, and a
// crawl or a search goes through thousands of objects. With a concurrency
// of one they work in the calling goroutine and start none of their own.
var (
	encoders = sync.Pool{New: func() any {
		e, err := zstd.NewWriter(nil,
			zstd.WithEncoderLevel(zstd.SpeedDefault),
			zstd.WithEncoderConcurrency(1),
			zstd.WithWindowSize(1<<22),
			zstd.WithEncoderCRC(true),
			zstd.WithLowerEncoderMem(true))
		if err != nil {
			panic(err) // the options are constant
		}
		return e
	}}
	decoders = sync.Pool{New: func() any {
		d, err := zstd.NewReader(nil,
			zstd.WithDecoderConcurrency(1),
			zstd.WithDecoderMaxWindow(1<<26),
			zstd.WithDecoderLowmem(true))
		if err != nil {
			panic(err)
		}
		return d
	}}
)

func getEncoder(w io.Writer) *zstd.Encoder {
	e := encoders.Get().(*zstd.Encoder)
	e.Reset(w)
	return e
}

func putEncoder(e *zstd.Encoder) {
	e.Reset(nil)
	encoders.Put(e)
}

func getDecoder(r io.Reader) (*zstd.Decoder, error) {
	d := decoders.Get().(*zstd.Decoder)
	if err := d.Reset(r); err != nil {
		decoders.Put(d)
		return nil, err
	}
	return d, nil
}

func putDecoder(d *zstd.Decoder) {
	_ = d.Reset(nil)
	decoders.Put(d)
}

// compress is one whole buffer compressed, for the index.
func compress(b []byte) []byte {
	e := encoders.Get().(*zstd.Encoder)
	defer encoders.Put(e)
	return e.EncodeAll(b, nil)
}

// decompress undoes compress, refusing more than limit bytes: it
// streams, so a small frame that claims or expands to far more (a zstd
// bomb) allocates no more than limit before it is refused.
func decompress(b []byte, limit int) ([]byte, error) {
	d, err := getDecoder(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	defer putDecoder(d)
	var out bytes.Buffer
	out.Grow(min(limit, 4*len(b)+512))
	n, err := out.ReadFrom(io.LimitReader(d, int64(limit)+1))
	if err != nil {
		return nil, err
	}
	if n > int64(limit) {
		return nil, fmt.Errorf("expands past %d bytes", limit)
	}
	return out.Bytes(), nil
}
