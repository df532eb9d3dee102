package cache

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"time"
)

// A run file is
//
//	magic (8 bytes)
//	the cached objects' zstd frames, one after another, in name order
//	the index: zstd-compressed JSON (index)
//	trailer (32 bytes): index offset, index length (uint64 LE), the
//	  index's CRC-32C, the format version (uint32 LE), magic
//
// Everything a reader trusts is behind a checksum: the index by the
// trailer's, each frame by the index's.
const (
	magic       = "PCRUN\x00\r\n"
	version     = 1
	headerSize  = len(magic)
	trailerSize = 32
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// index is a run file's table of contents.
type index struct {
	Bucket  string      `json:"bucket"`
	Path    string      `json:"path"`
	Started time.Time   `json:"started,omitzero"`
	Stored  time.Time   `json:"stored"`
	Listed  bool        `json:"listed"` // Files is the run's whole listing
	Files   []fileEntry `json:"files"`
}

// fileEntry is one object of the run, cached or only listed.
type fileEntry struct {
	Name     string `json:"name"`
	Size     int64  `json:"size"`
	Encoding string `json:"encoding,omitempty"`
	Cached   bool   `json:"cached,omitempty"`
	Raw      int64  `json:"raw,omitempty"` // bytes of content
	Off      int64  `json:"off,omitempty"` // the frame's place in the file
	Len      int64  `json:"len,omitempty"` // the frame's length
	CRC      uint32 `json:"crc,omitempty"` // CRC-32C of the frame
}

type trailer struct {
	off, n  uint64
	crc     uint32
	version uint32
}

func (t trailer) encode() []byte {
	b := make([]byte, trailerSize)
	binary.LittleEndian.PutUint64(b[0:], t.off)
	binary.LittleEndian.PutUint64(b[8:], t.n)
	binary.LittleEndian.PutUint32(b[16:], t.crc)
	binary.LittleEndian.PutUint32(b[20:], t.version)
	copy(b[24:], magic)
	return b
}

// decodeTrailer reads the trailer of a file of size bytes.
func decodeTrailer(b []byte, size int64) (trailer, error) {
	if len(b) != trailerSize || string(b[24:]) != magic {
		return trailer{}, fmt.Errorf("%w: no trailer (a write that did not finish?)", ErrDamaged)
	}
	t := trailer{
		off:     binary.LittleEndian.Uint64(b[0:]),
		n:       binary.LittleEndian.Uint64(b[8:]),
		crc:     binary.LittleEndian.Uint32(b[16:]),
		version: binary.LittleEndian.Uint32(b[20:]),
	}
	if t.version != version {
		return trailer{}, fmt.Errorf("%w: format version %d, want %d", ErrDamaged, t.version, version)
	}
	end := uint64(size - trailerSize)
	if t.off < uint64(headerSize) || t.off > end || t.n > end-t.off {
		return trailer{}, fmt.Errorf("%w: index at %d+%d outside the file", ErrDamaged, t.off, t.n)
	}
	return t, nil
}

// check validates an index read from a file whose frames end at end.
func (ix *index) check(end int64) error {
	prev := ""
	for i, f := range ix.Files {
		if i > 0 && f.Name <= prev {
			return fmt.Errorf("%w: index not in name order at %q", ErrDamaged, f.Name)
		}
		prev = f.Name
		if !f.Cached {
			continue
		}
		if f.Off < int64(headerSize) || f.Len <= 0 || f.Off > end || f.Len > end-f.Off || f.Raw < 0 {
			return fmt.Errorf("%w: %s: frame at %d+%d outside the file", ErrDamaged, f.Name, f.Off, f.Len)
		}
	}
	return nil
}

func marshalIndex(ix *index) ([]byte, error) {
	return json.Marshal(ix)
}
