package spec_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

// TestSwitches flips the config switches the reference layouts leave at
// one value, and checks the tensors transformers' modules would have
// (read from their modeling_*.py): a tensor with a shape must be there
// with it, a tensor with nil must not be there.
func TestSwitches(t *testing.T) {
	const llama = `"vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24`
	for _, c := range []struct {
		name, config string
		want         map[string][]uint64
	}{
		{"llama biases", `{"model_type":"llama",` + llama + `,"attention_bias":true,"mlp_bias":true}`, map[string][]uint64{
			"model.layers.1.self_attn.q_proj.bias": {32}, "model.layers.1.self_attn.k_proj.bias": {16}, "model.layers.1.self_attn.o_proj.bias": {32},
			"model.layers.1.mlp.down_proj.bias": {32}, "model.layers.1.mlp.gate_proj.bias": {24}}},
		{"llama no biases", `{"model_type":"llama",` + llama + `}`, map[string][]uint64{
			"model.layers.1.self_attn.q_proj.bias": nil, "model.layers.1.mlp.down_proj.bias": nil, "lm_head.weight": {16, 32}}},
		{"deepseek-v3 without q_lora_rank, 2 dense first", `{"model_type":"deepseek_v3",` + llama + `,"q_lora_rank":null,"kv_lora_rank":8,
			"qk_nope_head_dim":4,"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":4,"moe_intermediate_size":6,"n_shared_experts":2,"first_k_dense_replace":1}`,
			map[string][]uint64{
				"model.layers.0.self_attn.q_proj.weight": {4 * 6, 32}, "model.layers.0.self_attn.q_a_proj.weight": nil,
				"model.layers.0.self_attn.kv_a_proj_with_mqa.weight": {10, 32}, "model.layers.0.self_attn.kv_b_proj.weight": {4 * 7, 8},
				"model.layers.0.self_attn.o_proj.weight": {32, 12}, "model.layers.0.mlp.gate_proj.weight": {24, 32},
				"model.layers.1.mlp.experts.3.down_proj.weight": {32, 6}, "model.layers.1.mlp.shared_experts.up_proj.weight": {12, 32},
				"model.layers.1.mlp.gate.e_score_correction_bias": {4}, "model.layers.1.mlp.gate_proj.weight": nil}},
		{"deepseek-v2 moe every 2nd layer, no shared experts", `{"model_type":"deepseek_v2",` + strings.Replace(llama, `"num_hidden_layers":2`, `"num_hidden_layers":4`, 1) +
			`,"q_lora_rank":null,"kv_lora_rank":8,"qk_nope_head_dim":4,"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":4,"moe_intermediate_size":6,
			"n_shared_experts":null,"first_k_dense_replace":1,"moe_layer_freq":2}`, map[string][]uint64{
			"model.layers.1.mlp.gate_proj.weight": {24, 32}, "model.layers.2.mlp.gate.weight": {4, 32}, "model.layers.3.mlp.gate_proj.weight": {24, 32},
			"model.layers.2.mlp.shared_experts.up_proj.weight": nil, "model.layers.2.mlp.gate.e_score_correction_bias": nil}},
		{"qwen2-moe mlp_only_layers", `{"model_type":"qwen2_moe",` + llama + `,"num_experts":4,"moe_intermediate_size":6,"shared_expert_intermediate_size":10,"mlp_only_layers":[1],"qkv_bias":false}`,
			map[string][]uint64{"model.layers.0.mlp.shared_expert.up_proj.weight": {10, 32}, "model.layers.0.mlp.shared_expert_gate.weight": {1, 32},
				"model.layers.1.mlp.up_proj.weight": {24, 32}, "model.layers.1.mlp.gate.weight": nil, "model.layers.0.self_attn.q_proj.bias": nil}},
		{"falcon new architecture", `{"model_type":"falcon","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"new_decoder_architecture":true,"num_kv_heads":2,"bias":true}`, map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {(4 + 4) * 8, 32}, "transformer.h.0.self_attention.query_key_value.bias": {64},
			"transformer.h.0.ln_attn.weight": {32}, "transformer.h.0.ln_mlp.bias": {32}, "transformer.h.0.input_layernorm.weight": nil,
			"transformer.h.0.mlp.dense_h_to_4h.weight": {128, 32}}},
		{"falcon sequential, multi-head", `{"model_type":"falcon","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"multi_query":false,"parallel_attn":false}`, map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {96, 32}, "transformer.h.0.post_attention_layernorm.weight": {32},
			"transformer.h.0.input_layernorm.weight": {32}, "transformer.h.0.ln_attn.weight": nil, "transformer.h.0.self_attention.dense.bias": nil}},
		{"stablelm per-head norms, parallel", `{"model_type":"stablelm",` + llama + `,"qk_layernorm":true,"use_parallel_residual":true,"use_qkv_bias":true}`,
			map[string][]uint64{"model.layers.0.self_attn.q_layernorm.norms.3.weight": {8}, "model.layers.0.self_attn.k_layernorm.norms.1.weight": {8},
				"model.layers.0.self_attn.k_layernorm.norms.2.weight": nil, "model.layers.0.post_attention_layernorm.weight": nil, "model.layers.0.self_attn.v_proj.bias": {16}}},
		{"phi qk layer norms", `{"model_type":"phi",` + llama + `,"qk_layernorm":true}`, map[string][]uint64{
			"model.layers.0.self_attn.q_layernorm.weight": {8}, "model.layers.0.self_attn.k_layernorm.bias": {8}, "lm_head.bias": {16}}},
		{"gpt-bigcode multi-head", `{"model_type":"gpt_bigcode","vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4,"multi_query":false}`, map[string][]uint64{
			"transformer.h.0.attn.c_attn.weight": {96, 32}, "transformer.h.0.mlp.c_fc.weight": {128, 32}, "transformer.wpe.weight": {1024, 32}}},
		{"cohere qk norms", `{"model_type":"cohere",` + llama + `,"use_qk_norm":true}`, map[string][]uint64{
			"model.layers.0.self_attn.q_norm.weight": {4, 8}, "model.layers.0.self_attn.k_norm.weight": {2, 8}, "lm_head.weight": {16, 32}}},
		{"llama4 interleaved moe", `{"model_type":"llama4_text",` + strings.Replace(llama, `"num_hidden_layers":2`, `"num_hidden_layers":4`, 1) +
			`,"head_dim":8,"num_local_experts":3,"intermediate_size_mlp":40,"interleave_moe_layer_step":2}`, map[string][]uint64{
			"model.layers.0.feed_forward.gate_proj.weight": {40, 32}, "model.layers.1.feed_forward.experts.gate_up_proj": {3, 32, 48},
			"model.layers.3.feed_forward.router.weight": {3, 32}, "model.layers.2.feed_forward.router.weight": nil}},
		{"opt without projections", `{"model_type":"opt","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"ffn_dim":24,
			"word_embed_proj_dim":32,"do_layer_norm_before":false}`, map[string][]uint64{
			"model.decoder.project_in.weight": nil, "model.decoder.final_layer_norm.weight": nil, "model.decoder.embed_positions.weight": {2050, 32}}},
		{"granitemoe-shared with a shared MLP", `{"model_type":"granitemoeshared",` + llama + `,"num_local_experts":3,"shared_intermediate_size":20}`,
			map[string][]uint64{"model.layers.1.shared_mlp.input_linear.weight": {40, 32}, "model.layers.1.block_sparse_moe.input_linear.weight": {3, 48, 32}}},
		{"mpt with biases", `{"model_type":"mpt","vocab_size":16,"d_model":32,"n_layers":2,"n_heads":4,"no_bias":false}`, map[string][]uint64{
			"transformer.blocks.0.attn.Wqkv.bias": {96}, "transformer.blocks.0.norm_1.bias": {32}, "transformer.blocks.1.ffn.up_proj.weight": {128, 32}}},
		{"gpt-2 classification", `{"model_type":"gpt2","architectures":["GPT2ForSequenceClassification"],"vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4,"num_labels":3}`,
			map[string][]uint64{"score.weight": {3, 32}, "lm_head.weight": nil, "transformer.h.1.attn.c_attn.weight": {32, 96}}},
		{"mixtral classification", `{"model_type":"mixtral","architectures":["MixtralForSequenceClassification"],` + llama + `,"num_local_experts":2}`,
			map[string][]uint64{"score.weight": {2, 32}, "lm_head.weight": nil, "model.layers.1.block_sparse_moe.experts.1.w2.weight": {32, 24}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := expectJSON(t, c.config)
			for name, shape := range c.want {
				got := shapeOf(p, name)
				if shape == nil {
					assert.Nil(t, got, "%s should not be expected", name)
				} else {
					assert.Equal(t, shape, got, name)
				}
			}
		})
	}
}

// TestIgnoredOnLoad: what transformers ignores on load (DeepSeek-V3's
// multi-token-prediction layer, legacy attention-mask buffers) is a
// note, not a problem, and not counted.
func TestIgnoredOnLoad(t *testing.T) {
	cfg := []byte(`{"model_type":"deepseek_v3","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24,
		"q_lora_rank":null,"kv_lora_rank":8,"qk_nope_head_dim":4,"qk_rope_head_dim":2,"v_head_dim":3,"first_k_dense_replace":1,"torch_dtype":"bfloat16"}`)
	c, err := spec.ParseConfig("config.json", cfg)
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err)
	var ts []testmodel.Tensor
	for _, e := range p.Tensors {
		ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "BF16", Shape: e.ShapeValues()})
	}
	mtp := testmodel.Tensor{Name: "model.layers.1.eh_proj.weight", DType: "BF16", Shape: []uint64{32, 64}}
	r := checkLayout(t, cfg, append(ts, mtp))
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), "note: 1 tensor that DeepSeek-V3 ignores on load (e.g. model.layers.1.eh_proj.weight): not checked, not counted")
	assert.Equal(t, r.Stored-32*64, r.Logical)

	// GPT-2 as openai-community/gpt2 stores it: the base model, without
	// "transformer.", with its attention-mask buffers.
	gcfg := []byte(`{"model_type":"gpt2","architectures":["GPT2LMHeadModel"],"vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4,"n_positions":8}`)
	c, err = spec.ParseConfig("config.json", gcfg)
	require.NoError(t, err)
	p, err = spec.Expect(c)
	require.NoError(t, err)
	ts = nil
	for _, e := range p.Tensors {
		if e.Name != "lm_head.weight" {
			ts = append(ts, testmodel.Tensor{Name: strings.TrimPrefix(e.Name, "transformer."), DType: "BF16", Shape: e.ShapeValues()})
		}
	}
	for l := range 2 {
		ts = append(ts, testmodel.Tensor{Name: fmt.Sprintf("h.%d.attn.bias", l), DType: "BF16", Shape: []uint64{1, 1, 8, 8}})
	}
	r = checkLayout(t, gcfg, ts)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), `a checkpoint of the base model: names without "transformer.", no head required`)
	assert.Contains(t, r.Text(), "each block  × 2   (shown: layer 0)\n    ln_1.weight")

	// A tensor of the base model missing is still missing.
	r = checkLayout(t, gcfg, ts[1:])
	assert.False(t, r.Clean())
}

// TestMXFP4: GPT-OSS as released, its experts packed in MXFP4 blocks and
// scales, checks clean.
func TestMXFP4(t *testing.T) {
	cfg := []byte(`{"model_type":"gpt_oss","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,
		"head_dim":8,"intermediate_size":32,"num_local_experts":2,"torch_dtype":"bfloat16","quantization_config":{"quant_method":"mxfp4"}}`)
	c, err := spec.ParseConfig("config.json", cfg)
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err)
	var ts []testmodel.Tensor
	for _, e := range p.Tensors {
		switch {
		case strings.HasSuffix(e.Name, "experts.gate_up_proj"):
			ts = append(ts, testmodel.Tensor{Name: e.Name + "_blocks", DType: "U8", Shape: []uint64{2, 64, 1, 16}},
				testmodel.Tensor{Name: e.Name + "_scales", DType: "U8", Shape: []uint64{2, 64, 1}})
		case strings.HasSuffix(e.Name, "experts.down_proj"):
			ts = append(ts, testmodel.Tensor{Name: e.Name + "_blocks", DType: "U8", Shape: []uint64{2, 32, 1, 16}},
				testmodel.Tensor{Name: e.Name + "_scales", DType: "U8", Shape: []uint64{2, 32, 1}})
		default:
			ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "BF16", Shape: e.ShapeValues()})
		}
	}
	r := checkLayout(t, cfg, ts)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), "4 quantization auxiliaries (mxfp4)")
}
