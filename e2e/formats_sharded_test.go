package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestMountRealSharded rebuilds each real sharded index as sparse shards
// and mounts it: one tree, shard boundaries invisible, clean verdict.
func TestMountRealSharded(t *testing.T) {
	for _, c := range []struct {
		dir     string
		tensors int
		probe   string // a tensor dir and its shape
		shape   string
	}{
		{"Devstral-Small-2507", 363, "layers/39/self_attn/q_proj", "[4096, 5120]"},
		{"cogito-v1-preview-qwen-14B", 579, "layers/47/self_attn/k_proj/bias", "[1024]"},
		{"Qwen3-Coder-30B-A3B-Instruct", 18_867, "layers/47/mlp/experts/127/down_proj", "[2048, 768]"},
		{"Qwen3-Coder-30B-A3B-Instruct-FP8", 37_491, "layers/0/mlp/experts/5/up_proj/weight_scale_inv", "[6, 16]"},
		{"Llama-3.1-8B-Instruct-bnb8bit-finetune", 739, "layers/31/mlp/down_proj/SCB", "[4096]"},
	} {
		t.Run(c.dir, func(t *testing.T) {
			model := t.TempDir()
			_, err := testmodel.WriteRealSharded(model, repoPath("testdata", "realworld", c.dir))
			require.NoError(t, err)

			start := time.Now()
			r := runCmd(t, "fsinspect", model)
			t.Logf("%s: fsinspect %v", c.dir, time.Since(start))
			require.Equal(t, 0, r.code, r.stderr)

			start = time.Now()
			mnt, _ := mountModel(t, model)
			t.Logf("%s: mount-ready %v", c.dir, time.Since(start))

			v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
			require.NoError(t, err)
			assert.Contains(t, string(v), "✓ all ")
			s, err := os.ReadFile(filepath.Join(mnt, c.probe, "shape"))
			require.NoError(t, err)
			assert.Equal(t, c.shape+"\n", string(s))
			shapes, err := os.ReadFile(filepath.Join(mnt, "shapes"))
			require.NoError(t, err)
			assert.Equal(t, c.tensors, strings.Count(string(shapes), "\n"))
			out, code := sh(t, "diff "+mnt+"/expected/shapes "+mnt+"/shapes")
			assert.Equal(t, 0, code, out)
			entries, err := os.ReadDir(filepath.Join(mnt, "by-name"))
			require.NoError(t, err)
			assert.Len(t, entries, c.tensors)
		})
	}
}

// TestMountSafeTensorsJLSharded mounts the SafeTensors.jl sharded fixture
// (six real shards, no config) as one tree.
func TestMountSafeTensorsJLSharded(t *testing.T) {
	model := repoPath("testdata", "realworld", "SafeTensors.jl-sharded")
	mnt, _ := mountModel(t, model)
	top, err := os.ReadDir(mnt)
	require.NoError(t, err)
	var names []string
	for _, e := range top {
		names = append(names, e.Name())
	}
	assert.Contains(t, names, "float32_357", "tensors from shard 2 sit next to those of shard 1")
	assert.Contains(t, names, "int8_357")
	assert.NotContains(t, strings.Join(names, " "), "model-0000", "no shard shows")
	b, err := os.ReadFile(filepath.Join(mnt, "float32_357", "shape"))
	require.NoError(t, err)
	assert.Equal(t, "[3, 5, 7]\n", string(b))
	checkDataSharded(t, mnt, model)
}

// checkDataSharded compares every data file with its shard's bytes.
func checkDataSharded(t *testing.T, mnt, model string) {
	t.Helper()
	shards, _ := filepath.Glob(filepath.Join(model, "*.safetensors"))
	require.NotEmpty(t, shards)
	for _, s := range shards {
		checkData(t, mnt, s)
	}
}

func TestMountMissingShards(t *testing.T) {
	requireFUSE(t)
	mnt := t.TempDir()
	r := runCmd(t, "fsmount", repoPath("testdata", "realworld", "Llama-3.2-3B-per-tensor-shards"), mnt)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "missing_shard: 243 of the 254 shards it names are missing")
	assert.False(t, mounted(t, mnt))
}

func TestMountUnknownArchitecture(t *testing.T) {
	model := t.TempDir()
	cfg := strings.Replace(testmodel.TinyQwen3Config, "Qwen3ForCausalLM", "FancyNetForCausalLM", 1)
	cfg = strings.Replace(cfg, `"qwen3"`, `"fancynet"`, 1)
	require.NoError(t, testmodel.WriteModelDir(model, cfg, testmodel.TinyQwen3Tensors()))
	r := runCmd(t, "fsinspect", model)
	assert.Equal(t, 3, r.code, "not fully checked has its own exit code")
	assert.Contains(t, r.stdout, "no spec for architecture FancyNetForCausalLM")
	mnt, _ := mountModel(t, model)
	v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
	require.NoError(t, err)
	assert.Contains(t, string(v), "– structural check only: no spec for architecture FancyNetForCausalLM; its tensors are consistent: layers 0..1 (num_hidden_layers)")
	s, err := os.ReadFile(filepath.Join(mnt, "layers", "1", "mlp", "up_proj", "shape"))
	require.NoError(t, err)
	assert.Equal(t, "[64, 32]\n", string(s))
}
