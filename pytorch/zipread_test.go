package pytorch

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memFile is a file in memory whose reads past failAt (when set) fail.
type memFile struct {
	b      []byte
	failAt int64
}

var errInjected = errors.New("injected")

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if f.failAt > 0 && off+int64(len(p)) > f.failAt {
		return copy(p, f.b[min(off, f.failAt):f.failAt]), errInjected
	}
	if off >= int64(len(f.b)) {
		return 0, io.EOF
	}
	n := copy(p, f.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestWindowReader: whatever windows it reads, a read through
// windowReader returns the bytes and the error of the same read of the
// file: at random offsets and lengths, near and past its end, with
// windows of every kind set, and over a file whose reads fail past a
// point.
func TestWindowReader(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 300<<10)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for _, failAt := range []int64{0, 200 << 10} {
		src := &memFile{b: b, failAt: failAt}
		size := int64(len(b))
		head := make([]byte, 1000)
		_, err := src.ReadAt(head, 0)
		require.NoError(t, err)
		w := newWindowReader(src, size, head)
		at := int64(0)
		for i := range 20000 {
			n := r.IntN(5000)
			off := r.Int64N(size + 100)
			switch i % 4 {
			case 0: // sequential, as a central directory is read
				off = at
			case 1: // a local header with a run of small storages ahead
				w.aheadLen = r.IntN(aheadMax)
			case 2:
				w.aheadLen = 0
			}
			want := make([]byte, n)
			wn, werr := src.ReadAt(want, off)
			got := make([]byte, n)
			gn, gerr := w.ReadAt(got, off)
			require.Equal(t, wn, gn, "read %d at %d (failing at %d)", n, off, failAt)
			require.True(t, bytes.Equal(want[:wn], got[:gn]), "read %d at %d (failing at %d): other bytes", n, off, failAt)
			assert.Equal(t, werr, gerr, "read %d at %d (failing at %d)", n, off, failAt)
			at = off + int64(n)
		}
	}
}
