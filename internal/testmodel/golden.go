package testmodel

import (
	"os"
	"testing"
)

// Golden returns the bytes of the golden file at path, first writing
// what write returns to it when update is set (go test -update); t fails
// if the file cannot be written or read.
func Golden(t testing.TB, path string, update bool, write func() []byte) []byte {
	t.Helper()
	if update {
		if err := os.WriteFile(path, write(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	return b
}
