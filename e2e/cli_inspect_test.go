package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/cli"
	"github.com/fsmount/fsmount/internal/testmodel"
)

func TestInspectTiny(t *testing.T) {
	r := runCmd(t, "fsinspect", repoPath("testdata", "tiny-qwen3"))
	require.Equal(t, 0, r.code, r.stderr)
	want, err := os.ReadFile(repoPath("testdata", "tiny-qwen3", "report.golden"))
	require.NoError(t, err)
	assert.Equal(t, string(want), r.stdout)
	assert.Empty(t, r.stderr)

	r = runCmd(t, "fsinspect", "--json", repoPath("testdata", "tiny-qwen3"))
	require.Equal(t, 0, r.code)
	var j map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	assert.Equal(t, true, j["clean"])
	assert.Equal(t, float64(25), j["tensors"])
}

func TestInspectRealLayout(t *testing.T) {
	r := runCmd(t, "fsinspect", testmodel.Sparse06BDir(t))
	require.Equal(t, 0, r.code, r.stderr)
	want, err := os.ReadFile(repoPath("testdata", "qwen3-0.6b-layout", "report.golden"))
	require.NoError(t, err)
	assert.Equal(t, string(want), r.stdout)
	for _, fig := range []string{"all 311 expected tensors", "751,632,384 stored", "596,049,920 logical", `(the "0.6B")`, "26.1% of logical"} {
		assert.Contains(t, r.stdout, fig)
	}
}

func TestInspectProblemsExit1(t *testing.T) {
	cases := map[string]struct {
		edit func([]testmodel.Tensor) []testmodel.Tensor
		want string
	}{
		"mis-shaped": {func(ts []testmodel.Tensor) []testmodel.Tensor {
			ts[3].Shape, ts[3].Data = []uint64{32, 33}, nil
			return ts
		}, "✗ mis-shaped: model.layers.0.self_attn.k_proj.weight is [32, 33]"},
		"missing": {func(ts []testmodel.Tensor) []testmodel.Tensor { return append(ts[:5:5], ts[6:]...) },
			"✗ missing: model.layers.0.self_attn.q_norm.weight"},
		"unexpected": {func(ts []testmodel.Tensor) []testmodel.Tensor {
			return append(ts, testmodel.Tensor{Name: "model.layers.2.mlp.up_proj.weight", DType: "BF16", Shape: []uint64{64, 32}})
		}, "✗ unexpected: model.layers.2.mlp.up_proj.weight"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := runCmd(t, "fsinspect", testmodel.TinyDir(t, c.edit))
			assert.Equal(t, 1, r.code)
			assert.Contains(t, r.stdout, c.want)
			assert.Contains(t, r.stdout, "  ✗ 1 problem: ")
		})
	}
}

func TestInspectInvalidExit2(t *testing.T) {
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor { return ts })
	path := filepath.Join(dir, "model.safetensors")
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, st.Size()-2))
	r := runCmd(t, "fsinspect", dir)
	assert.Equal(t, 2, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "file is 2 bytes short")
	assert.Contains(t, r.stderr, path+": incomplete_buffer (safetensors: MetadataIncompleteBuffer)")
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)

	r = runCmd(t, "fsinspect", filepath.Join(dir, "nope"))
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no such file or directory")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"architectures":["Qwen3ForCausalLM"],"hidden_size":"big"}`), 0o644))
	require.NoError(t, testmodel.WriteFile(path, testmodel.TinyQwen3Tensors(), nil, 0))
	r = runCmd(t, "fsinspect", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `config.json: field "vocab_size" is missing`)
}

func TestInspectUsage(t *testing.T) {
	r := runCmd(t, "fsinspect")
	assert.Equal(t, 64, r.code)
	assert.Contains(t, r.stderr, "usage: fsinspect")
	r = runCmd(t, "fsinspect", "--bogus", "x")
	assert.Equal(t, 64, r.code)
	r = runCmd(t, "fsinspect", "--help")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, cli.Help("fsinspect"), "--help ends with the shared exit-code table")
	assert.Contains(t, r.stdout, "  70  An internal error (a bug)")
	r = runCmd(t, "fsinspect", "--version")
	assert.Equal(t, 0, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "fsinspect "), r.stdout)
}

func TestInspectSingleFile(t *testing.T) {
	r := runCmd(t, "fsinspect", repoPath("testdata", "tiny-qwen3", "model.safetensors"))
	assert.Equal(t, 3, r.code, "not checked has its own exit code")
	assert.Contains(t, r.stdout, "– cross-check skipped: a single file was given")
}

// TestInspectJSONPaths: every tensor of --json names its directory in the
// mount's tree, where its data file has the tensor's bytes.
func TestInspectJSONPaths(t *testing.T) {
	model := repoPath("testdata", "tiny-qwen3")
	r := runCmd(t, "fsinspect", "--json", model)
	require.Equal(t, 0, r.code, r.stderr)
	var j struct {
		Tensors []struct {
			Name  string `json:"name"`
			Path  string `json:"path"`
			Bytes int64  `json:"bytes"`
		} `json:"tensor_list"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	require.Len(t, j.Tensors, 25)
	mnt, _ := mountModel(t, model)
	for _, tt := range j.Tensors {
		st, err := os.Stat(filepath.Join(mnt, tt.Path, "data"))
		require.NoError(t, err, tt.Name)
		assert.Equal(t, tt.Bytes, st.Size(), tt.Name)
	}
	paths := map[string]string{}
	for _, tt := range j.Tensors {
		paths[tt.Name] = tt.Path
	}
	assert.Equal(t, "layers/0/self_attn/q_proj", paths["model.layers.0.self_attn.q_proj.weight"])
	assert.Equal(t, "lm_head", paths["lm_head.weight"])
}
