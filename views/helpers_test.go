package views

import (
	"io"
	"os"
	"os/exec"
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

func numpyPython(t testing.TB) string {
	t.Helper()
	for _, c := range []string{os.Getenv("FSMOUNT_PYTHON"), "python3", "/usr/bin/python3"} {
		if c != "" && exec.Command(c, "-c", "import numpy").Run() == nil {
			return c
		}
	}
	if os.Getenv("FSMOUNT_REQUIRE_NUMPY") != "" {
		t.Fatal("no python3 with numpy found (FSMOUNT_PYTHON, python3, /usr/bin/python3) and FSMOUNT_REQUIRE_NUMPY is set")
	}
	t.Skip("SKIP: no python3 with numpy (set FSMOUNT_PYTHON, or apt-get install python3-numpy)")
	return ""
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
