package testmodel

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot finds the module root (the directory holding go.mod) from the
// working directory up.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above " + dir)
		}
	}
}

// WriteTiny writes the tiny Qwen3 model into dir, with edit (if not nil)
// applied to its tensors first.
func WriteTiny(dir string, edit func([]Tensor) []Tensor) error {
	ts := TinyQwen3Tensors()
	if edit != nil {
		ts = edit(ts)
	}
	return WriteModelDir(dir, TinyQwen3Config, ts)
}

// WriteSparse06B writes the real Qwen3-0.6B layout (testdata/
// qwen3-0.6b-layout) into dir as a sparse model.safetensors and its
// config.json.
func WriteSparse06B(dir string) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	layout := filepath.Join(root, "testdata", "qwen3-0.6b-layout")
	return WriteSparseModel(dir, filepath.Join(layout, "model.safetensors.tensor-listing.tsv"), filepath.Join(layout, "config.json"))
}

// TinyDir writes the tiny Qwen3 model, with edit (if not nil) applied to
// its tensors, into a new temporary directory of t.
func TinyDir(t testing.TB, edit func([]Tensor) []Tensor) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteTiny(dir, edit); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Sparse06BDir writes the real Qwen3-0.6B layout, sparse, into a new
// temporary directory of t.
func Sparse06BDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteSparse06B(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}
