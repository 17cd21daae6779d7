package pytorch_test

import (
	"io"
	"os"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/pytorch"
)

// FuzzNewFile: no input panics, hangs or reads a tensor outside the
// file; whatever opens has tensors that read whole. The corpus
// (testdata/fuzz/FuzzNewFile) holds small archives and pickles.
func FuzzNewFile(f *testing.F) {
	for _, p := range []string{"testdata/realworld/phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/scheduler.pt",
		"testdata/realworld/phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/rng_state.pth"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := pytorch.NewFile(&testmodel.MemFile{B: b})
		if err != nil {
			return
		}
		for _, tt := range pf.Tensors() {
			if _, err := io.Copy(io.Discard, tt.Reader()); err != nil {
				t.Fatalf("%s: %v", tt.Name, err)
			}
		}
	})
}
