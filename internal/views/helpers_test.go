package views

import (
	"io"
	"testing"
)

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
