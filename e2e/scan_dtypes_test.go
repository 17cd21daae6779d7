package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// scanDTypes are the element types a safetensors file can hold that
// fsmount decodes: each is the first thing its own process scans.
var scanDTypes = []string{"BOOL", "U8", "I8", "F8_E4M3", "F8_E5M2", "F8_E8M0",
	"I16", "U16", "F16", "BF16", "I32", "U32", "F32", "I64", "U64", "F64", "F4", "F6_E2M3", "F6_E3M2"}

// TestScanEveryDTypeFreshProcess runs fsinspect --scan on a file of each
// element type, and reads a mount's statistics of it, each in a process
// that has decoded nothing before: the statistics must not depend on the
// values path having run first (it once held the decoding tables, and
// the statistics of an F16 or FP8 tensor panicked, or hung the reader).
func TestScanEveryDTypeFreshProcess(t *testing.T) {
	for _, dt := range scanDTypes {
		t.Run(dt, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.safetensors")
			require.NoError(t, testmodel.WriteFile(path, []testmodel.Tensor{
				{Name: "w.weight", DType: dt, Shape: []uint64{16, 32}}}, nil, 7))
			r := runCmd(t, "fsinspect", "--scan", path)
			// Random bytes hold NaNs in some types: 1 (bad values) is a
			// verdict too. 2 (invalid input) and 70 (a panic) are not.
			assert.Contains(t, []int{0, 1, 3}, r.code, "fsinspect --scan on %s: %s", dt, r.stderr)
			assert.NotContains(t, r.stderr, "panic")
			assert.Contains(t, r.stdout, "1 tensors scanned")

			mnt, _ := mountModel(t, path)
			for _, f := range []string{"stats", "w/stats", "w/hist"} {
				out, err := timedCat(filepath.Join(mnt, f))
				require.NoError(t, err, "reading %s of a %s tensor", f, dt)
				assert.NotEmpty(t, out, f)
			}
		})
	}
	t.Run("README's GGUF", func(t *testing.T) {
		r := runCmd(t, "fsinspect", "--scan", repoPath("gguf", "testdata", "llama-2-tiny-random.gguf"))
		assert.Contains(t, []int{0, 1, 3}, r.code, r.stderr)
		assert.Contains(t, r.stdout, "tensors scanned")
	})
}

// timedCat reads a file with cat, failing rather than hanging when a read
// does not return.
func timedCat(path string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "cat", path).Output()
	return string(out), err
}
