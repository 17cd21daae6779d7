package dcp

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzMetadata: no .metadata panics, hangs or allocates past its
// length's worth; whatever parses has its tensors' tilings checked
// without a panic either. The corpus (testdata/fuzz/FuzzMetadata) holds
// small inputs the fuzzer found; the real and hostile .metadata files of
// testdata/realworld seed it too. They are tens of KB: run it with
// -fuzzminimizetime 1s, or the minimizing of each new input stalls it.
func FuzzMetadata(f *testing.F) {
	paths, _ := filepath.Glob("testdata/realworld/*/checkpoint/.metadata")
	more, _ := filepath.Glob("testdata/realworld/hostile/*/checkpoint/.metadata")
	for _, p := range append(paths, more...) {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		md, err := parseMetadata("fuzz", b)
		if err != nil {
			return
		}
		pairs := 0
		for i := range md.entries {
			if !md.entries[i].isBytes {
				_ = checkTiling("fuzz", &md.entries[i], &pairs)
			}
		}
	})
}
