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

// fsinspect's exit code for a sentence-transformers repository: 0 clean,
// 1 naming the module's tensor, 2 naming a bad module file, 3 with a
// module it does not know.
func TestInspectSentenceTransformers(t *testing.T) {
	r := runCmd(t, "fsinspect", repoPath("testdata", "tiny-sentence"))
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "sentence-transformers: 4 of 4 modules checked, sentence embedding dimension 16")

	copyRepo := func(t *testing.T) string {
		dir := filepath.Join(t.TempDir(), "st")
		require.NoError(t, os.CopyFS(dir, os.DirFS(repoPath("testdata", "tiny-sentence"))))
		return dir
	}
	dense := `{"in_features": 32, "out_features": 16, "bias": true, "activation_function": "torch.nn.modules.activation.Tanh"}`
	for _, tc := range []struct {
		name   string
		edit   func(dir string)
		code   int
		stdout string
		stderr string
	}{
		{"dense weight mis-shaped", func(dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "2_Dense")))
			require.NoError(t, testmodel.WriteHeaderOnly(filepath.Join(dir, "2_Dense"), dense, []testmodel.Tensor{
				{Name: "linear.weight", DType: "F32", Shape: []uint64{16, 31}}, {Name: "linear.bias", DType: "F32", Shape: []uint64{16}}}))
		}, 1, "✗ mis-shaped: 2_Dense/linear.weight is [16, 31], 2_Dense/config.json implies [16, 32]", ""},
		{"dense bias missing", func(dir string) {
			require.NoError(t, os.RemoveAll(filepath.Join(dir, "2_Dense")))
			require.NoError(t, testmodel.WriteHeaderOnly(filepath.Join(dir, "2_Dense"), dense, []testmodel.Tensor{
				{Name: "linear.weight", DType: "F32", Shape: []uint64{16, 32}}}))
		}, 1, "✗ missing: 2_Dense/linear.bias [16] is missing", ""},
		{"unknown module", func(dir string) {
			p := filepath.Join(dir, "modules.json")
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, []byte(strings.Replace(string(b), "models.Normalize", "models.LayerNorm", 1)), 0o644))
		}, 3, "– module 3_Normalize (sentence_transformers.models.LayerNorm) not checked", ""},
		{"dense config broken", func(dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "2_Dense", "config.json"), []byte("{"), 0o644))
		}, 2, "", "2_Dense/config.json: not a Dense config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := copyRepo(t)
			tc.edit(dir)
			r := runCmd(t, "fsinspect", dir)
			assert.Equal(t, tc.code, r.code, "%s%s", r.stdout, r.stderr)
			assert.Contains(t, r.stdout, tc.stdout)
			assert.Contains(t, r.stderr, tc.stderr)
			if tc.code == 2 {
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			}
		})
	}
}
