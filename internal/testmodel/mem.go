package testmodel

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// MemFile is a source.File over bytes in memory. FailAt, if positive,
// makes every read reaching that offset short, with ErrInjected.
type MemFile struct {
	B      []byte
	FailAt int64
}

// ErrInjected is the error of a MemFile's failing reads.
var ErrInjected = errors.New("injected I/O error")

// ReadAt reads as an io.ReaderAt does.
func (f *MemFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fs.ErrInvalid
	}
	if f.FailAt > 0 && off+int64(len(p)) > f.FailAt {
		n := 0
		if off < f.FailAt {
			n = copy(p, f.B[off:f.FailAt])
		}
		return n, ErrInjected
	}
	if off >= int64(len(f.B)) {
		return 0, io.EOF
	}
	n := copy(p, f.B[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *MemFile) Close() error       { return nil }
func (f *MemFile) Name() string       { return "mem" }
func (f *MemFile) Size() int64        { return int64(len(f.B)) }
func (f *MemFile) ModTime() time.Time { return time.Time{} }
func (f *MemFile) Mode() fs.FileMode  { return 0o444 }

// MemTensor is a tensor of data held in a MemFile at offset 3 (with a
// byte after it), so that no read is aligned by accident.
func MemTensor(name string, dt tensor.DType, shape []uint64, data []byte) *tensor.Tensor {
	b := append([]byte{0xaa, 0xbb, 0xcc}, data...)
	b = append(b, 0xdd)
	return &tensor.Tensor{Name: name, DType: dt, Shape: shape, File: &MemFile{B: b}, Offset: 3, Length: int64(len(data))}
}

// BigBF16 returns a BF16 tensor of the given shape whose element i is
// value(i, r) rounded down to BF16 (r a generator seeded with seed),
// written once to $TMPDIR/name and reused by later runs: the large
// tensors benchmarks read from the page cache.
func BigBF16(tb testing.TB, name string, shape []uint64, seed uint64, value func(i uint64, r *rand.Rand) float32) *tensor.Tensor {
	tb.Helper()
	n := uint64(1)
	for _, d := range shape {
		n *= d
	}
	path := filepath.Join(os.TempDir(), name)
	if st, err := os.Stat(path); err != nil || st.Size() != int64(2*n) {
		f, err := os.Create(path + ".tmp")
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		r := rand.New(rand.NewPCG(seed, seed+1))
		var b [2]byte
		for i := range n {
			binary.LittleEndian.PutUint16(b[:], uint16(math.Float32bits(value(i, r))>>16))
			w.Write(b[:])
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		f.Close()
		if err := os.Rename(path+".tmp", path); err != nil {
			tb.Fatal(err)
		}
	}
	f, err := source.OpenLocal(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return &tensor.Tensor{Name: name, DType: tensor.BF16, Shape: shape, File: f, Length: int64(2 * n)}
}

// Sized is what ReadView reads (a views.View, a tensor's file).
type Sized interface {
	Size() int64
	ReadAt(p []byte, off int64) (int, error)
}

// ReadView reads v in pieces of 4093 bytes from its end to its start,
// checking that exactly Size bytes come back and that a read at Size
// gives 0, io.EOF; what names v in failures.
func ReadView(t testing.TB, what string, v Sized) []byte {
	t.Helper()
	size := v.Size()
	out := make([]byte, size)
	const piece = 4093
	for off := (size - 1) / piece * piece; off >= 0; off -= piece {
		n, err := v.ReadAt(out[off:min(off+piece, size)], off)
		if err != nil && err != io.EOF {
			t.Fatalf("%s: ReadAt(%d): %v", what, off, err)
		}
		if want := min(piece, size-off); int64(n) != want {
			t.Fatalf("%s: ReadAt(%d) = %d bytes, want %d", what, off, n, want)
		}
	}
	if n, err := v.ReadAt(make([]byte, 8), size); n != 0 || err != io.EOF {
		t.Fatalf("%s: ReadAt(Size) = %d, %v; want 0, EOF", what, n, err)
	}
	return out
}
