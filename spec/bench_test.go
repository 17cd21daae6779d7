package spec_test

import (
	"path/filepath"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/spec"
)

// BenchmarkParse06B opens and validates the real Qwen3-0.6B header.
func BenchmarkParse06B(b *testing.B) {
	path := filepath.Join(testmodel.Sparse06BDir(b), "model.safetensors")
	b.ReportAllocs()
	for b.Loop() {
		f, err := safetensors.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkCheck06B cross-checks the opened 0.6B layout against its
// config, including the byte comparison of the 311 MB tied head.
func BenchmarkCheck06B(b *testing.B) {
	m, err := model.Open(testmodel.Sparse06BDir(b))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	b.ReportAllocs()
	for b.Loop() {
		r, err := spec.Check(m)
		if err != nil || !r.Clean() {
			b.Fatal(err)
		}
	}
}

// BenchmarkReport06B renders the text report.
func BenchmarkReport06B(b *testing.B) {
	m, err := model.Open(testmodel.Sparse06BDir(b))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	r, _ := spec.Check(m)
	for b.Loop() {
		_ = r.Text()
	}
}
