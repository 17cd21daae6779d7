package views

import (
	"io"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// memFile and memTensor are testmodel's.
type memFile = testmodel.MemFile

var errInjected = testmodel.ErrInjected

func memTensor(name string, dt tensor.DType, shape []uint64, data []byte) *tensor.Tensor {
	return testmodel.MemTensor(name, dt, shape, data)
}

// readWhole reads a view with one ReadAt past its end, checking io.EOF
// and that exactly Size bytes came back.
func readWhole(t *testing.T, what string, v View) []byte {
	t.Helper()
	size := v.Size()
	p := make([]byte, size+17)
	n, err := v.ReadAt(p, 0)
	if int64(n) != size || err != io.EOF {
		t.Fatalf("%s: ReadAt(whole) = %d, %v; Size %d", what, n, err, size)
	}
	if n, err := v.ReadAt(p[:1], size); n != 0 || err != io.EOF {
		t.Fatalf("%s: ReadAt at Size = %d, %v", what, n, err)
	}
	return p[:n]
}
