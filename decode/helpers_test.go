package decode

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/fsmount/fsmount/tensor"
)

// memFile is a source.File over bytes; failAt, if positive, makes reads
// reaching that offset short, with an error.
type memFile struct {
	b      []byte
	failAt int64
}

var errInjected = errors.New("injected I/O error")

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fs.ErrInvalid
	}
	if f.failAt > 0 && off+int64(len(p)) > f.failAt {
		n := 0
		if off < f.failAt {
			n = copy(p, f.b[off:f.failAt])
		}
		return n, errInjected
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
func (f *memFile) Close() error       { return nil }
func (f *memFile) Name() string       { return "mem" }
func (f *memFile) Size() int64        { return int64(len(f.b)) }
func (f *memFile) ModTime() time.Time { return time.Time{} }
func (f *memFile) Mode() fs.FileMode  { return 0o444 }

// memTensor places data at offset 3 of a file, so that no read is
// accidentally aligned.
func memTensor(name string, dt tensor.DType, shape []uint64, data []byte) *tensor.Tensor {
	b := append([]byte{0xaa, 0xbb, 0xcc}, data...)
	b = append(b, 0xdd)
	return &tensor.Tensor{Name: name, DType: dt, Shape: shape, File: &memFile{b: b}, Offset: 3, Length: int64(len(data))}
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
