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

func expectJSON(t *testing.T, config string) *spec.Plan {
	t.Helper()
	cfg, err := spec.ParseConfig("c", []byte(config))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	return p
}

func legendRow(t *testing.T, p *spec.Plan, field string) spec.LegendRow {
	t.Helper()
	for _, l := range p.Legend {
		if l.Field == field {
			return l
		}
	}
	t.Fatalf("no legend row for %s", field)
	return spec.LegendRow{}
}

func shapeOf(p *spec.Plan, name string) []uint64 {
	for _, e := range p.Tensors {
		if e.Name == name {
			return e.ShapeValues()
		}
	}
	return nil
}

// TestClassDefaults: a key config.json omits takes the config class's
// default, as transformers does (reference §3.2–3.3), not a guess shared
// by every architecture, and the legend says "(default)".
func TestClassDefaults(t *testing.T) {
	// hidden 64 and 8 heads: H/heads would be 8.
	const dims = `"vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":8,"intermediate_size":32`
	for _, c := range []struct {
		arch, extra  string
		headDim, nkv uint64
		hdWhy, kvWhy string
	}{
		{"Qwen3ForCausalLM", `,"num_key_value_heads":4`, 128, 4, "Qwen3Config's 128", ""},
		{"GemmaForCausalLM", `,"num_key_value_heads":4`, 256, 4, "GemmaConfig's 256", ""},
		{"Gemma2ForCausalLM", `,"num_key_value_heads":4`, 256, 4, "Gemma2Config's 256", ""},
		{"LlamaForCausalLM", "", 8, 8, "H/heads = 64/8", "= num_attention_heads"},
		{"MistralForCausalLM", "", 8, 8, "H/heads = 64/8", "MistralConfig's 8"},
		{"GemmaForCausalLM", `,"head_dim":8,"num_attention_heads":16`, 8, 16, "", "GemmaConfig's 16"},
		{"Gemma2ForCausalLM", `,"head_dim":8`, 8, 4, "", "Gemma2Config's 4"},
		{"Qwen2ForCausalLM", `,"num_attention_heads":32`, 2, 32, "H/heads = 64/32", "Qwen2Config's 32"},
		{"LlamaForCausalLM", `,"num_key_value_heads":null,"head_dim":null`, 8, 8, "H/heads = 64/8", "= num_attention_heads"},
	} {
		t.Run(c.arch+c.extra, func(t *testing.T) {
			p := expectJSON(t, `{"architectures":["`+c.arch+`"],`+dims+c.extra+`}`)
			hd, kv := legendRow(t, p, "head_dim"), legendRow(t, p, "num_key_value_heads")
			assert.Equal(t, c.headDim, hd.Value)
			assert.Equal(t, c.nkv, kv.Value)
			assert.Equal(t, c.hdWhy, hd.Default)
			assert.Equal(t, c.kvWhy, kv.Default)
			if c.hdWhy != "" {
				assert.Contains(t, hd.Desc, "(default) not in config: "+c.hdWhy)
			}
			if c.kvWhy != "" {
				assert.Contains(t, kv.Desc, "(default) not in config: "+c.kvWhy)
			}
			assert.Equal(t, []uint64{c.nkv * c.headDim, 64}, shapeOf(p, "model.layers.0.self_attn.k_proj.weight"))
		})
	}
}

func TestClassDefaultsRefused(t *testing.T) {
	const dims = `"vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":8,"intermediate_size":32`
	for _, c := range []struct{ config, field, msg string }{
		// Qwen3Config's num_key_value_heads default, 32, does not divide 8 heads.
		{`{"architectures":["Qwen3ForCausalLM"],` + dims + `}`, "num_key_value_heads", "is 32 (not in config: Qwen3Config's 32), which does not divide num_attention_heads 8"},
		{`{"architectures":["Qwen3MoeForCausalLM"],"num_key_value_heads":null,` + dims + `}`, "num_key_value_heads", "is null, which Qwen3MoeConfig does not replace"},
		{`{"architectures":["Qwen3ForCausalLM"],"num_key_value_heads":4,"head_dim":null,` + dims + `}`, "head_dim", "is null, which Qwen3Config does not replace"},
	} {
		cfg, err := spec.ParseConfig("c", []byte(c.config))
		require.NoError(t, err)
		_, err = spec.Expect(cfg)
		var ce *spec.ConfigError
		require.ErrorAs(t, err, &ce, c.config)
		assert.Equal(t, c.field, ce.Field)
		assert.Contains(t, err.Error(), c.msg)
	}
}

// TestDefaultedFlagsShown: absent booleans and MoE fields are listed in
// the legend as defaulted, with the value used.
func TestDefaultedFlagsShown(t *testing.T) {
	p := expectJSON(t, `{"architectures":["Qwen3MoeForCausalLM"],"vocab_size":16,"hidden_size":8,"num_hidden_layers":1,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12,"num_experts":4}`)
	for field, want := range map[string]string{
		"tie_word_embeddings":   "Qwen3MoeConfig's false",
		"attention_bias":        "Qwen3MoeConfig's false",
		"moe_intermediate_size": "Qwen3MoeConfig's 768",
		"num_experts_per_tok":   "Qwen3MoeConfig's 8",
		"decoder_sparse_step":   "Qwen3MoeConfig's 1",
		"mlp_only_layers":       "Qwen3MoeConfig's []",
	} {
		assert.Equal(t, want, legendRow(t, p, field).Default, field)
	}
	assert.Equal(t, "", legendRow(t, p, "num_experts").Default)
	assert.Equal(t, []uint64{768, 8}, shapeOf(p, "model.layers.0.mlp.experts.3.up_proj.weight"))

	// In the report text.
	dir := testmodel.TinyDir(t, nil)
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	require.NoError(t, err)
	raw = []byte(strings.Replace(string(raw), `"attention_bias": false,`, "", 1))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644))
	r := check(t, dir)
	assert.Contains(t, r.Text(), "     attention_bias          false   q, k, v and o projections have biases   (default) not in config: Qwen3Config's false\n")
	assert.Contains(t, string(r.JSON()), `"default": "Qwen3Config's false"`)
}
