package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// forgedName, printed raw, moves the cursor up, clears the line and
// writes a verdict of its own.
const forgedName = "model.x\x1b[2A\x1b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n"

const forgedEscaped = `model.x\x1b[2A\x1b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n`

func forgedDir(t *testing.T) string {
	return testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		return append(ts, testmodel.Tensor{Name: forgedName, DType: "BF16", Shape: []uint64{2}})
	})
}

// noForgery checks that text carries no terminal control and no line that
// claims success.
func noForgery(t *testing.T, what, text string) {
	t.Helper()
	assert.NotContains(t, text, "\x1b", what)
	assert.NotContains(t, text, "\r", what)
	for _, l := range strings.Split(text, "\n") {
		assert.False(t, strings.HasPrefix(strings.TrimSpace(l), "✓"), "%s: forged line %q", what, l)
	}
}

func TestSpecHardeningInspectEscapesNames(t *testing.T) {
	r := runCmd(t, "fsinspect", forgedDir(t))
	assert.Equal(t, 1, r.code, r.stderr)
	noForgery(t, "fsinspect", r.stdout)
	assert.Contains(t, r.stdout, "✗ unexpected: "+forgedEscaped+" BF16 [2] is not part of Qwen3")

	r = runCmd(t, "fsinspect", "--json", forgedDir(t))
	assert.Contains(t, r.stdout, `"model.x\u001b[2A\u001b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n"`, "JSON escapes the name itself, exactly")
}

func TestSpecHardeningMountEscapesNames(t *testing.T) {
	mnt, _ := mountModel(t, forgedDir(t))
	for _, f := range []string{"report", "verdict", "shapes"} {
		b, err := os.ReadFile(filepath.Join(mnt, f))
		require.NoError(t, err, f)
		noForgery(t, f, string(b))
		assert.Contains(t, string(b), forgedEscaped, f)
	}
	b, err := os.ReadFile(filepath.Join(mnt, "shapes"))
	require.NoError(t, err)
	assert.Contains(t, string(b), forgedEscaped+"\t[2]\n")
	assert.Equal(t, 26, strings.Count(string(b), "\n"), "one line per tensor")
}
