package gguf

import (
	"errors"
	"io"
	"testing"
)

// countingFile counts the bytes read through it, and can fail reads past
// an offset.
type countingFile struct {
	*memFile
	read   int64
	calls  int
	failAt int64 // reads reaching this offset fail; 0: never
}

var errDisk = errors.New("disk on fire")

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	c.calls++
	if c.failAt > 0 && off+int64(len(p)) > c.failAt {
		return 0, errDisk
	}
	n, err := c.memFile.ReadAt(p, off)
	c.read += int64(n)
	return n, err
}

// The header is read in bounded chunks, and no tensor data is read.
func TestReadsOnlyTheHeader(t *testing.T) {
	g := small()
	g.tensors = append(g.tensors, tensorOf("big.weight", 0, 1<<20))
	raw := g.bytes()
	c := &countingFile{memFile: newMemFile("big.gguf", raw)}
	f, err := NewFile(c)
	if err != nil {
		t.Fatal(err)
	}
	if c.read > f.DataOffset()+bufSize || c.read >= int64(len(raw)) {
		t.Errorf("read %d bytes of a %d-byte file whose header is %d", c.read, len(raw), f.DataOffset())
	}
	t.Logf("%d bytes in %d reads for a %d-byte header of a %d-byte file", c.read, c.calls, f.DataOffset(), len(raw))

	// A 70B header with its 128k-token vocabulary: a few growing reads.
	g70 := llama70B()
	h, n := g70.header()
	z := &zeroTail{memFile: newMemFile("70b.gguf", h), size: int64(len(h)) + int64(n)}
	if _, err := NewFile(z); err != nil {
		t.Fatal(err)
	}
	if z.calls > 8 || z.read > 2*int64(len(h)) {
		t.Errorf("%d reads, %d bytes, for a %d-byte header", z.calls, z.read, len(h))
	}
	t.Logf("70B layout: %d-byte header in %d reads of %d bytes in all", len(h), z.calls, z.read)
}

// A failing read is an I/O error, wrapped, not a *FormatError.
func TestReadError(t *testing.T) {
	raw := llama70BHeaderOnly(t)
	c := &countingFile{memFile: newMemFile("sick.gguf", raw), failAt: 200_000}
	_, err := NewFile(c)
	var fe *FormatError
	if !errors.Is(err, errDisk) || errors.As(err, &fe) || errors.Is(err, ErrFormat) {
		t.Fatalf("error %v, want the read error", err)
	}
	// A file that shrinks under the reader (ReadAt short with io.EOF) is
	// an unexpected EOF, not a panic.
	short := &shrunk{newMemFile("shrunk.gguf", raw[:1000]), int64(len(raw))}
	if _, err := NewFile(short); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("shrunk file: %v", err)
	}
}

// shrunk claims a size larger than its bytes.
type shrunk struct {
	*memFile
	size int64
}

func (s *shrunk) Size() int64 { return s.size }

func llama70BHeaderOnly(t *testing.T) []byte {
	g := llama70B()
	g.dataLen = u64p(0)
	h, _ := g.header()
	return h
}

// zeroTail is a file of the given size whose bytes after the memFile's
// are zeros, like a sparse file.
type zeroTail struct {
	*memFile
	size  int64
	read  int64
	calls int
}

func (z *zeroTail) Size() int64 { return z.size }

func (z *zeroTail) ReadAt(p []byte, off int64) (int, error) {
	z.calls++
	if off+int64(len(p)) > z.size {
		return 0, io.ErrUnexpectedEOF
	}
	clear(p)
	if off < z.memFile.size {
		z.memFile.ReadAt(p, off)
	}
	z.read += int64(len(p))
	return len(p), nil
}
