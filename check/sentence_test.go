package check_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

// sentenceDir copies testdata/tiny-sentence into a temporary directory
// and applies edit to it.
func sentenceDir(t *testing.T, edit func(dir string)) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "st")
	require.NoError(t, os.CopyFS(dir, os.DirFS("../testdata/tiny-sentence")))
	if edit != nil {
		edit(dir)
	}
	return dir
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
}

// writeDense replaces 2_Dense with a config and header-only tensors.
func writeDense(t *testing.T, dir, config string, tensors ...testmodel.Tensor) {
	t.Helper()
	d := filepath.Join(dir, "2_Dense")
	require.NoError(t, os.RemoveAll(d))
	require.NoError(t, testmodel.WriteHeaderOnly(d, config, tensors))
}

const dense3216 = `{"in_features": 32, "out_features": 16, "bias": true, "activation_function": "torch.nn.modules.activation.Tanh"}`

func TestSentenceTransformersClean(t *testing.T) {
	_, r := testmodel.Checked(t, "../testdata/tiny-sentence")
	require.Empty(t, r.Problems)
	require.Len(t, r.Modules, 4)
	assert.Equal(t, check.DepthFull, r.Depth)
	for i, want := range []uint64{32, 32, 16, 16} {
		assert.True(t, r.Modules[i].Checked)
		assert.Equal(t, want, r.Modules[i].Out, "module %d's output", i)
	}
	text := r.Text()
	for _, s := range []string{"module 1: 1_Pooling (Pooling)", "module 2: 2_Dense (Dense)", "✓ linear.weight  F32   [16, 32]", "module 3: 3_Normalize (Normalize)"} {
		assert.Contains(t, text, s)
	}
	assert.Contains(t, string(r.JSON()), `"output_dimension": 16`)
}

// Each mutant of the repository is caught, naming the tensor or field.
func TestSentenceTransformersMutants(t *testing.T) {
	f32 := func(name string, shape ...uint64) testmodel.Tensor {
		return testmodel.Tensor{Name: name, DType: "F32", Shape: shape}
	}
	for _, tc := range []struct {
		name   string
		edit   func(t *testing.T, dir string)
		kind   check.ProblemKind
		tensor string
		detail string
	}{
		{"dense weight mis-shaped", func(t *testing.T, dir string) {
			writeDense(t, dir, dense3216, f32("linear.weight", 16, 24), f32("linear.bias", 16))
		}, check.Misshaped, "2_Dense/linear.weight", "2_Dense/linear.weight is [16, 24], 2_Dense/config.json implies [16, 32]"},
		{"dense weight transposed", func(t *testing.T, dir string) {
			writeDense(t, dir, dense3216, f32("linear.weight", 32, 16), f32("linear.bias", 16))
		}, check.Misshaped, "2_Dense/linear.weight", "is [32, 16]"},
		{"dense bias missing", func(t *testing.T, dir string) {
			writeDense(t, dir, dense3216, f32("linear.weight", 16, 32))
		}, check.Missing, "2_Dense/linear.bias", "2_Dense/linear.bias [16] is missing (2_Dense/config.json: bias true)"},
		{"dense bias where bias false", func(t *testing.T, dir string) {
			writeDense(t, dir, strings.Replace(dense3216, `"bias": true`, `"bias": false`, 1), f32("linear.weight", 16, 32), f32("linear.bias", 16))
		}, check.Unexpected, "2_Dense/linear.bias", "not a tensor of Dense"},
		{"dense in_features off the pooling output", func(t *testing.T, dir string) {
			writeDense(t, dir, strings.Replace(dense3216, `"in_features": 32`, `"in_features": 64`, 1), f32("linear.weight", 16, 64), f32("linear.bias", 16))
		}, check.WrongDim, "2_Dense/linear.weight", "in_features 64 ≠ 32, the output of 1_Pooling"},
		{"pooling dimension wrong", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "1_Pooling", "config.json")
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			writeFile(t, p, strings.Replace(string(b), `"word_embedding_dimension": 32`, `"word_embedding_dimension": 48`, 1))
		}, check.WrongDim, "1_Pooling", "1_Pooling/config.json: word_embedding_dimension 48 ≠ 32, the transformer's hidden_size"},
		{"two pooling modes double the dense input", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "1_Pooling", "config.json")
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			writeFile(t, p, strings.Replace(string(b), `"pooling_mode_cls_token": false`, `"pooling_mode_cls_token": true`, 1))
		}, check.WrongDim, "2_Dense/linear.weight", "in_features 32 ≠ 64, the output of 1_Pooling (hidden size 32 × 2 pooling modes)"},
		{"mean pooling by default, with cls: twice the width", func(t *testing.T, dir string) {
			writeFile(t, filepath.Join(dir, "1_Pooling", "config.json"), `{"word_embedding_dimension": 32, "pooling_mode_cls_token": true}`)
		}, check.WrongDim, "2_Dense/linear.weight", "in_features 32 ≠ 64, the output of 1_Pooling (hidden size 32 × 2 pooling modes)"},
		{"weights in normalize", func(t *testing.T, dir string) {
			require.NoError(t, testmodel.WriteHeaderOnly(filepath.Join(dir, "3_Normalize"), "{}", []testmodel.Tensor{f32("scale", 16)}))
		}, check.Unexpected, "3_Normalize/scale", "Normalize has no weights"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sentenceDir(t, func(dir string) { tc.edit(t, dir) })
			_, r := testmodel.Checked(t, dir)
			require.Len(t, r.Problems, 1, "%v", r.Problems)
			p := r.Problems[0]
			assert.Equal(t, tc.kind, p.Kind)
			assert.Equal(t, tc.tensor, p.Tensor)
			assert.Contains(t, p.Detail, tc.detail)
			assert.False(t, r.Clean())
			assert.Contains(t, r.Verdict(), tc.detail)
		})
	}
}

// A module's config that cannot be used makes the input invalid, naming
// the file.
func TestSentenceTransformersBadConfig(t *testing.T) {
	for _, tc := range []struct {
		name, file, content, want string
	}{
		{"dense config not JSON", "2_Dense/config.json", "{", "2_Dense/config.json: not a Dense config"},
		{"dense without out_features", "2_Dense/config.json", `{"in_features": 32}`, "2_Dense/config.json: no in_features or out_features"},
		{"pooling without dimension", "1_Pooling/config.json", `{"pooling_mode_mean_tokens": true}`, "1_Pooling/config.json: no word_embedding_dimension"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := sentenceDir(t, func(dir string) { writeFile(t, filepath.Join(dir, tc.file), tc.content) })
			m, err := model.Open(dir)
			require.NoError(t, err)
			defer m.Close()
			_, err = check.Check(m)
			var ce *check.ModuleConfigError
			require.True(t, errors.As(err, &ce), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
	t.Run("dense config missing", func(t *testing.T) {
		dir := sentenceDir(t, func(dir string) { require.NoError(t, os.Remove(filepath.Join(dir, "2_Dense", "config.json"))) })
		m, err := model.Open(dir)
		require.NoError(t, err)
		defer m.Close()
		_, err = check.Check(m)
		assert.ErrorContains(t, err, "2_Dense/config.json: missing")
	})
}

// A module fsmount does not know is named, not checked, and leaves the
// repository only partly checked; what follows it is not checked against
// its output.
func TestSentenceTransformersUnknownModule(t *testing.T) {
	dir := sentenceDir(t, func(dir string) {
		writeFile(t, filepath.Join(dir, "modules.json"), `[
 {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
 {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"},
 {"idx": 2, "name": "2", "path": "2_LayerNorm", "type": "sentence_transformers.models.LayerNorm"},
 {"idx": 3, "name": "3", "path": "2_Dense", "type": "sentence_transformers.models.Dense"}
]`)
		writeDense(t, dir, strings.Replace(dense3216, `"in_features": 32`, `"in_features": 64`, 1),
			testmodel.Tensor{Name: "linear.weight", DType: "F32", Shape: []uint64{16, 64}}, testmodel.Tensor{Name: "linear.bias", DType: "F32", Shape: []uint64{16}})
	})
	_, r := testmodel.Checked(t, dir)
	assert.Empty(t, r.Problems)
	assert.True(t, r.Clean())
	assert.False(t, r.ModulesChecked())
	assert.False(t, r.FullyClean())
	assert.False(t, r.Modules[2].Checked)
	assert.Contains(t, r.Verdict(), "– module 2_LayerNorm (sentence_transformers.models.LayerNorm) not checked")
	assert.Contains(t, r.Verdict(), "sentence-transformers: 3 of 4 modules checked, sentence embedding dimension 16")
}
