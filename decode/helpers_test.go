package decode

import (
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

// numpyPython returns a python3 that imports numpy, or skips the test
// (fails it when FSMOUNT_REQUIRE_NUMPY is set).
func numpyPython(t testing.TB) string {
	t.Helper()
	cands := []string{os.Getenv("FSMOUNT_PYTHON"), "python3", "/usr/bin/python3"}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if err := exec.Command(c, "-c", "import numpy").Run(); err == nil {
			return c
		}
	}
	if os.Getenv("FSMOUNT_REQUIRE_NUMPY") != "" {
		t.Fatal("no python3 with numpy found (FSMOUNT_PYTHON, python3, /usr/bin/python3) and FSMOUNT_REQUIRE_NUMPY is set")
	}
	t.Skip("SKIP: no python3 with numpy (set FSMOUNT_PYTHON, or apt-get install python3-numpy)")
	return ""
}
