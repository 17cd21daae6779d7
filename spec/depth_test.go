package spec_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

type jsonVerdict struct {
	Checked bool   `json:"checked"`
	Depth   string `json:"depth"`
	Clean   bool   `json:"clean"`
}

func verdictOf(t *testing.T, r *spec.Report) jsonVerdict {
	t.Helper()
	var v jsonVerdict
	require.NoError(t, json.Unmarshal(r.JSON(), &v))
	return v
}

// TestDepth: the JSON's clean is true only for a full check without
// problems; depth says how far the check went.
func TestDepth(t *testing.T) {
	r := check(t, testmodel.TinyDir(t, nil))
	assert.Equal(t, jsonVerdict{true, spec.DepthFull, true}, verdictOf(t, r))

	unknown := strings.Replace(testmodel.TinyQwen3Config, `"qwen3"`, `"qwen9"`, 1)
	unknown = strings.Replace(unknown, `"Qwen3ForCausalLM"`, `"Qwen9ForCausalLM"`, 1)
	dir := testmodel.TinyDir(t, nil)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(unknown), 0o644))
	r = check(t, dir)
	assert.True(t, r.Clean())
	assert.Equal(t, jsonVerdict{false, spec.DepthStructural, false}, verdictOf(t, r), "a structural check is never clean in the JSON")
	assert.Contains(t, r.Verdict(), "– structural check only: no spec for architecture Qwen9ForCausalLM; its tensors are consistent: layers 0..1 (num_hidden_layers)")

	r = check(t, filepath.Join(dir, "model.safetensors"))
	assert.Equal(t, jsonVerdict{false, spec.DepthNone, false}, verdictOf(t, r))
}

// TestStructuralFindsMissing: an architecture without a spec whose layer
// lacks a tensor its peers have fails the structural check (exit 1).
func TestStructuralFindsMissing(t *testing.T) {
	cfg := []byte(`{"architectures":["Qwen9ForCausalLM"],"model_type":"qwen9","vocab_size":64,"hidden_size":8,"num_hidden_layers":4,"tie_word_embeddings":true}`)
	var ts []testmodel.Tensor
	ts = append(ts, testmodel.Tensor{Name: "model.embed_tokens.weight", DType: "BF16", Shape: []uint64{64, 8}})
	for l := range 4 {
		for _, n := range []string{"input_layernorm.weight", "mlp.up_proj.weight", "self_attn.q_proj.weight"} {
			if l == 2 && n == "mlp.up_proj.weight" {
				continue
			}
			shape := []uint64{8, 8}
			if strings.HasSuffix(n, "norm.weight") {
				shape = []uint64{8}
			}
			if l == 1 && n == "self_attn.q_proj.weight" {
				shape = []uint64{8, 9}
			}
			ts = append(ts, testmodel.Tensor{Name: "model.layers." + string(rune('0'+l)) + "." + n, DType: "BF16", Shape: shape})
		}
	}
	ts = append(ts, testmodel.Tensor{Name: "lm_head.weight", DType: "BF16", Shape: []uint64{60, 8}})
	r := checkLayout(t, cfg, ts)
	assert.Equal(t, spec.DepthStructural, r.Depth)
	var got []string
	for _, p := range r.Problems {
		got = append(got, string(p.Kind)+": "+p.Detail)
	}
	assert.Equal(t, []string{
		"missing: model.layers.2.mlp.up_proj.weight, expected [8, 8] as in layer 0",
		"mis-shaped: model.layers.1.self_attn.q_proj.weight is [8, 9], its 2 peers are [8, 8]",
		"tied head differs: lm_head.weight is tied (tie_word_embeddings) but [60, 8], model.embed_tokens.weight is [64, 8]",
	}, got)
	assert.Contains(t, r.Verdict(), "✗ 3 problems: 1 missing, 1 mis-shaped, 1 tied head differs (structural check only: no spec for architecture Qwen9ForCausalLM)")

	// A layer missing altogether.
	var gap []testmodel.Tensor
	for _, x := range ts {
		if !strings.HasPrefix(x.Name, "model.layers.3.") && x.Name != "lm_head.weight" {
			gap = append(gap, x)
		}
	}
	cfg5 := []byte(strings.Replace(string(cfg), `"num_hidden_layers":4`, `"num_hidden_layers":5`, 1))
	gap = append(gap, testmodel.Tensor{Name: "model.layers.4.input_layernorm.weight", DType: "BF16", Shape: []uint64{8}})
	r = checkLayout(t, cfg5, gap)
	assert.Contains(t, problemNames(r), "model.layers.3", r.Verdict())
}

// TestPythonNonFinite: config.json may hold Python's Infinity, -Infinity
// and NaN, as transformers writes them; they are not integers.
func TestPythonNonFinite(t *testing.T) {
	c, err := spec.ParseConfig("config.json", []byte(`{"time_step_limit": [0.0, Infinity], "x": -Infinity, "y": NaN, "s": "Infinity NaN \" Infinity", "n": 3}`))
	require.NoError(t, err)
	n, err := c.IntOr("n", 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), n)
	s, err := c.StringOr("s", "")
	require.NoError(t, err)
	assert.Equal(t, `Infinity NaN " Infinity`, s)
	_, err = c.Int("x")
	assert.ErrorContains(t, err, `field "x" must be an integer, found -Infinity`)
	_, err = c.Int("y")
	assert.ErrorContains(t, err, `found NaN`)

	_, err = spec.ParseConfig("config.json", []byte(`{"x": Infinit}`))
	var ce *spec.ConfigError
	assert.ErrorAs(t, err, &ce)
}
