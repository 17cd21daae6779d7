package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// torchPy runs pytorch/testdata/torchfiles.py with Debian's python3 and
// torch; it skips without them unless FSMOUNT_REQUIRE_TORCH=1.
func torchPy(t *testing.T, args ...string) string {
	t.Helper()
	return strings.TrimSpace(testmodel.RunTorch(t, append([]string{repoPath("pytorch", "testdata", "torchfiles.py")}, args...)...))
}

// TestPyTorchMount writes the tiny model with torch.save (BF16, F16, F32
// with a tied head, a transposed weight, two shards and their index, the
// legacy format), checks each with fsinspect, mounts it, and has torch
// and numpy compare every tensor: by-name/NAME/data against torch.load,
// and the virtual files/model.safetensors (or its shards), read with
// numpy, against the same.
func TestPyTorchMount(t *testing.T) {
	models := t.TempDir()
	torchPy(t, "write", models, repoPath("testdata", "tiny-qwen3"))
	for _, d := range []string{"bf16", "f16", "f32", "transposed", "sharded", "legacy"} {
		t.Run(d, func(t *testing.T) {
			dir := filepath.Join(models, d)
			r := runCmd(t, "fsinspect", dir)
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, "✓ all 25 expected tensors present")
			mnt, _ := mountModel(t, dir)
			assert.Equal(t, "ok 25", torchPy(t, "verify", dir, mnt))
			switch d {
			case "sharded":
				for _, f := range []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors", "model.safetensors.index.json"} {
					assert.FileExists(t, filepath.Join(mnt, "files", f))
				}
				// The mount's own files/ is a model fsinspect checks.
				r := runCmd(t, "fsinspect", filepath.Join(mnt, "files"))
				assert.Equal(t, 0, r.code, r.stdout+r.stderr)
			case "transposed":
				loc, err := os.ReadFile(filepath.Join(mnt, "layers/0/self_attn/q_proj/location"))
				require.NoError(t, err)
				assert.Contains(t, string(loc), "strides [1, 64]")
			default:
				r := runCmd(t, "fsinspect", filepath.Join(mnt, "files", "model.safetensors"))
				assert.Equal(t, 3, r.code, r.stdout+r.stderr) // no config: listed, not checked
			}
			if d == "bf16" {
				// The safetensors original and its torch.save copy are identical.
				r := runCmd(t, "fsinspect", "--compare", repoPath("testdata", "tiny-qwen3"), dir)
				assert.Equal(t, 0, r.code, r.stderr)
				assert.Contains(t, r.stdout, "total: 25 identical")
			}
		})
	}
}

// TestPyTorchRefused: files that are not checkpoints of weights, or
// would run code, are refused by both commands in one line, exit 2, no
// mount left, nothing run.
func TestPyTorchRefused(t *testing.T) {
	hostile := t.TempDir()
	marker := filepath.Join(hostile, "MARKER")
	torchPy(t, "hostile", hostile, marker)
	real := repoPath("pytorch", "testdata", "realworld")
	for _, c := range []struct{ path, say string }{
		{filepath.Join(hostile, "reduce.pt"), "posix.system"},
		{filepath.Join(hostile, "global.pt"), "_io.BytesIO"},
		{filepath.Join(real, "CodyRichter+Compsci-528-DeFault-Data-Classification/model.pt"), "TorchScript archive (torch.jit.save)"},
		{filepath.Join(real, "CodyRichter+Compsci-528-DeFault-Data-Classification/model.ptl"), "lite interpreter"},
		{filepath.Join(real, "phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/rng_state.pth"), "numpy._core.multiarray._reconstruct"},
		{filepath.Join(real, "phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/training_args.bin"), "transformers.training_args.TrainingArguments"},
		{filepath.Join(real, "phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/scheduler.pt"), "holds no tensor"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			r := runCmd(t, "fsinspect", c.path)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, c.say)
			assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
			requireFUSE(t)
			mnt := t.TempDir()
			r = runCmd(t, "fsmount", c.path, mnt)
			assert.Equal(t, 2, r.code)
			assert.Contains(t, r.stderr, c.say)
			assert.False(t, mounted(t, mnt), "half-mounted")
		})
	}
	assert.NoFileExists(t, marker, "a pickle ran its command")
}

// TestPyTorchRemote: a .bin model over HTTP (nginx) and hf://, checked
// and mounted by range requests, its values through the mount equal to
// torch's; the .bin files are never fetched whole.
func TestPyTorchRemote(t *testing.T) {
	root := t.TempDir()
	torchPy(t, "write", root, repoPath("testdata", "tiny-qwen3"))
	require.NoError(t, os.Chmod(root, 0o755))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := nginxtest.Start(t, root)
	for _, d := range []string{"bf16", "sharded"} {
		r := runCmd(t, "fsinspect", srv.URL+"/"+d+"/")
		require.Equal(t, 0, r.code, r.stderr)
		assert.Contains(t, r.stdout, "✓ all 25 expected tensors present")
	}
	hub := nginxtest.Start(t, filepath.Join(root, "bf16"))
	t.Setenv("HF_ENDPOINT", hub.URL)
	r := runCmd(t, "fsinspect", "hf://org/tiny-bin")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "✓ all 25 expected tensors present")

	mnt, _ := mountModel(t, srv.URL+"/sharded/")
	assert.Equal(t, "ok 25", torchPy(t, "verify", filepath.Join(root, "sharded"), mnt))
	for _, q := range srv.Requests(t) {
		if strings.HasSuffix(q.Path, ".bin") && q.Method == "GET" {
			assert.NotEmpty(t, q.Range, "%s fetched without a Range", q.Path)
		}
	}
}
