package spec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

// tinyConfig returns the tiny model's config.json with edit applied.
func tinyConfig(edit func(string) string) string { return edit(testmodel.TinyQwen3Config) }

// TestModelTypeChoosesSpec: transformers' AutoConfig goes by model_type,
// whatever architectures lists first (reference §3.5).
func TestModelTypeChoosesSpec(t *testing.T) {
	p := expectJSON(t, `{"architectures":["LlamaForCausalLM","Qwen3ForCausalLM"],"model_type":"qwen3","vocab_size":16,
		"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12}`)
	assert.Equal(t, "Qwen3", p.Arch)
	assert.Equal(t, []uint64{4}, shapeOf(p, "model.layers.0.self_attn.q_norm.weight"), "Qwen3's q_norm")
	require.Len(t, p.Notes, 1)
	assert.Contains(t, p.Notes[0], `architectures names LlamaForCausalLM, but model_type "qwen3" selects the Qwen3 classes`)

	// Without model_type, architectures decides, as before.
	p = expectJSON(t, `{"architectures":["LlamaForCausalLM"],"vocab_size":16,
		"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":12}`)
	assert.Equal(t, "Llama", p.Arch)
	assert.Empty(t, p.Notes)
}

// seqClsDir writes the tiny model as a Qwen3ForSequenceClassification
// checkpoint: no lm_head, a bias-free score [labels, H].
func seqClsDir(t *testing.T, config string, labels uint64) string {
	t.Helper()
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		ts = ts[:len(ts)-1] // lm_head
		return append(ts, testmodel.Tensor{Name: "score.weight", DType: "BF16", Shape: []uint64{labels, 32}})
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644))
	return dir
}

func seqCls(s string) string {
	return strings.Replace(s, `"Qwen3ForCausalLM"`, `"Qwen3ForSequenceClassification"`, 1)
}

// TestSequenceClassification checks the score head (reference §3.5):
// score.weight [num_labels, H], num_labels from id2label, default 2.
func TestSequenceClassification(t *testing.T) {
	r := check(t, seqClsDir(t, tinyConfig(seqCls), 2))
	require.NotNil(t, r.Plan, r.Skipped)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Equal(t, "Qwen3ForSequenceClassification", r.Plan.Arch)
	text := r.Text()
	assert.Contains(t, text, "  C  num_labels                  2   classes of the score head   (default) not in config: PretrainedConfig's 2, no id2label\n")
	assert.Contains(t, text, "    score.weight                  BF16  [2, 32]                  64  32 ──▶ 2\n")
	assert.Contains(t, text, "✓ all 25 expected tensors present")
	assert.NotContains(t, text, "lm_head")

	three := tinyConfig(func(s string) string {
		return strings.Replace(seqCls(s), "{", `{"id2label":{"0":"neg","1":"neutral","2":"pos"},`, 1)
	})
	r = check(t, seqClsDir(t, three, 3))
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Text(), "  C  num_labels                  3   classes of the score head\n")

	// Two labels stored where id2label names three.
	r = check(t, seqClsDir(t, three, 2))
	require.Len(t, r.Problems, 1)
	assert.Equal(t, "score.weight is [2, 32], expected [C, H] = [3, 32]: dim 0 is 2, C is 3", r.Problems[0].Detail)

	// An lm_head in a classification checkpoint is not part of it.
	dir := seqClsDir(t, tinyConfig(seqCls), 2)
	require.NoError(t, testmodel.WriteModelDir(dir, tinyConfig(seqCls), append(testmodel.TinyQwen3Tensors(),
		testmodel.Tensor{Name: "score.weight", DType: "BF16", Shape: []uint64{2, 32}})))
	r = check(t, dir)
	require.Len(t, r.Problems, 1)
	assert.Equal(t, "lm_head.weight", r.Problems[0].Tensor)
}

// TestOtherHeadsSaySoWhy: a head we have no spec for is checked
// structurally, with the reason in the verdict.
func TestOtherHeadsSaySoWhy(t *testing.T) {
	config := tinyConfig(func(s string) string {
		return strings.Replace(s, `"Qwen3ForCausalLM"`, `"Qwen3ForTokenClassification"`, 1)
	})
	dir := testmodel.TinyDir(t, nil)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644))
	r := check(t, dir)
	assert.Nil(t, r.Plan)
	assert.Equal(t, spec.DepthStructural, r.Depth)
	assert.Contains(t, r.Verdict(), "– structural check only: no spec for architecture Qwen3ForTokenClassification (the Qwen3 spec covers the Qwen3ForCausalLM and Qwen3ForSequenceClassification heads only); its tensors are consistent: layers 0..1 (num_hidden_layers); model.layers: 2 layers in 1 kind; embedding rows = vocab_size\n")
}
