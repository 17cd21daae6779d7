package pytorch_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/pytorch"
)

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
		src := &testmodel.MemFile{B: b, FailAt: failAt}
		size := int64(len(b))
		head := make([]byte, 1000)
		_, err := src.ReadAt(head, 0)
		require.NoError(t, err)
		w, ahead := pytorch.NewWindowReader(src, size, head)
		at := int64(0)
		for i := range 20000 {
			n := r.IntN(5000)
			off := r.Int64N(size + 100)
			switch i % 4 {
			case 0: // sequential, as a central directory is read
				off = at
			case 1: // a local header with a run of small storages ahead
				ahead(r.IntN(pytorch.AheadMax))
			case 2:
				ahead(0)
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
