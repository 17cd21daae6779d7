package e2e

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// An adapter with +Inf in a lora_A: the merge proof fails naming it
// (it used to pass a merged q_proj of all 0.5, the tolerance being +Inf),
// and --scan, which now works on adapters, finds it.
func TestInspectAdapterNonFinite(t *testing.T) {
	dir := t.TempDir()
	const q0 = "base_model.model.model.layers.0.self_attn.q_proj"
	ts := testmodel.TinyAdapterTensors()
	for i := range ts {
		n := testmodel.NBytes("F32", ts[i].Shape) / 4
		switch {
		case ts[i].Name == q0+".lora_A.weight":
			ts[i].Data = testmodel.ConstF32(n, float32(math.Inf(1)))
		case ts[i].Name == q0+".lora_B.weight":
			ts[i].Data = testmodel.ConstF32(n, 0.25)
		case strings.HasSuffix(ts[i].Name, ".lora_B.weight"):
			ts[i].Data = make([]byte, 4*n) // the other modules change nothing
		}
	}
	ad := filepath.Join(dir, "lora")
	require.NoError(t, testmodel.WriteAdapter(ad, testmodel.TinyAdapterConfig, ts))
	base := testmodel.TinyDir(t, nil)
	merged := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			if ts[i].Name == "model.layers.0.self_attn.q_proj.weight" {
				for j := 0; j < len(ts[i].Data); j += 2 {
					binary.LittleEndian.PutUint16(ts[i].Data[j:], 0x3f00) // 0.5
				}
			}
		}
		return ts
	})

	r := runCmd(t, "fsinspect", "--base", base, "--compare", merged, ad)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✗ model.layers.0.self_attn.q_proj.weight (adapted): "+q0+".lora_A.weight holds +Inf at [0, 0]: the delta is not finite")
	assert.Contains(t, r.stdout, "✗ the merged model is not the base plus the adapter: 1 tensor differs")
	r = runCmd(t, "fsinspect", "--json", "--base", base, "--compare", merged, ad)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	var proof struct {
		OK bool `json:"ok"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &proof))
	assert.False(t, proof.OK)

	// --scan on the adapter: exit 1, the tensor named, clean false.
	r = runCmd(t, "fsinspect", "--scan", "--base", base, ad)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ all 8 expected tensors present")
	assert.Contains(t, r.stdout, "✗ inf: "+q0+".lora_A.weight holds 0 NaN, 128 +Inf, 0 -Inf")
	r = runCmd(t, "fsinspect", "--scan", "--json", "--base", base, ad)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	var j struct {
		Type  string `json:"type"`
		Clean bool   `json:"clean"`
		Scan  struct {
			Failed bool `json:"failed"`
		} `json:"scan"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	assert.Equal(t, "LoRA", j.Type)
	assert.False(t, j.Clean)
	assert.True(t, j.Scan.Failed)

	// A healthy adapter scans clean: its verdict's exit code.
	good := filepath.Join(dir, "good")
	require.NoError(t, testmodel.WriteAdapter(good, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors()))
	r = runCmd(t, "fsinspect", "--scan", "--base", base, good)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ 8 tensors scanned: 0 bad")
	r = runCmd(t, "fsinspect", "--scan", good)
	assert.Equal(t, 3, r.code, "partial without its base: "+r.stdout+r.stderr)
}

// A real GPT-2 LoRA (fan_in_fan_out) whose config says bias "lora_only",
// saved by a PEFT with base_layer: no bias tensor, as PEFT saves it. It
// used to exit 1 with every c_attn.base_layer.bias "missing".
func TestInspectAdapterLoRAOnlyBias(t *testing.T) {
	src, err := filepath.Abs(repoPath("testdata", "adapters", "abrhaleyarefaine1997"))
	require.NoError(t, err)
	dir := t.TempDir()
	cfg := readFile(t, filepath.Join(src, "adapter_config.json"))
	cfg = []byte(strings.Replace(string(cfg), `"bias": "none"`, `"bias": "lora_only"`, 1))
	require.Contains(t, string(cfg), "lora_only")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "adapter_config.json"), cfg, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(src, "adapter_model.safetensors"), filepath.Join(dir, "adapter_model.safetensors")))
	base := filepath.Join(t.TempDir(), "gpt2")
	require.NoError(t, testmodel.WriteHeaderOnly(base, testmodel.GPT2Config(12), testmodel.GPT2Tensors(12)))
	r := runCmd(t, "fsinspect", "--base", base, dir)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ all 72 expected tensors present")
	assert.NotContains(t, r.stdout, "base_layer.bias")
}

// An old PEFT's BLOOM LoRA (enable_lora on the fused query_key_value),
// checked against its base given as config.json alone: clean, saying
// the check used the config's shapes. It used to exit 1 with 24
// "mis-shaped", and a config.json alone was refused as a base.
func TestInspectAdapterOldPEFTConfigBase(t *testing.T) {
	bloom := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(bloom, []byte(testmodel.BloomConfig), 0o644))
	ad := repoPath("testdata", "adapters", "wujindou")
	for _, base := range []string{bloom, filepath.Dir(bloom)} {
		r := runCmd(t, "fsinspect", "--base", base, ad)
		assert.Equal(t, 0, r.code, r.stdout+r.stderr)
		assert.Contains(t, r.stdout, "✓ all 48 expected tensors present, shapes match the config and the base")
		assert.Contains(t, r.stdout, "note: the base is its config.json alone: checked against the shapes the architecture table derives from it (no weights read)")
	}
	r := runCmd(t, "fsinspect", "--base", repoPath("testdata", "adapters", "bases", "Llama-3.2-1B", "config.json"), repoPath("testdata", "adapters", "merkulovsvt"))
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ all 64 expected tensors present")

	// An architecture without a spec: a partial check, exit 3.
	foo := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(foo, []byte(`{"architectures": ["FooForCausalLM"], "model_type": "foo"}`), 0o644))
	r = runCmd(t, "fsinspect", "--base", foo, ad)
	assert.Equal(t, 3, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "its shapes cannot be derived from it")

	// A merge proof needs the base's weights.
	r = runCmd(t, "fsinspect", "--base", bloom, "--compare", filepath.Dir(bloom), ad)
	assert.Equal(t, 2, r.code, r.stdout+r.stderr)
}
