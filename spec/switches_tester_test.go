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

// TestSwitchesTester tries the most downloaded families on configs the
// reference layouts do not have: switches flipped, multi-query attention,
// head_dim ≠ hidden/heads, odd layer counts and patterns, and the config
// classes' full-size defaults (a config of only model_type). Each
// expectation was derived from transformers' configuration_*.py and
// modeling_*.py, not from the spec: a tensor with a shape must be expected
// with it, one with nil must not be expected, and total (when not 0) is
// the number of tensors the model has.
func TestSwitchesTester(t *testing.T) {
	// dims of a small model: hidden 32, 4 heads, MQA unless a row says.
	const small = `"vocab_size":16,"hidden_size":32,"num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":24`
	layers := func(n int) string { return fmt.Sprintf(`,"num_hidden_layers":%d`, n) }
	for _, c := range []struct {
		name, config string
		want         map[string][]uint64
		total        int
	}{
		// ── bugs found: these failed before the fix ──────────────────────
		// DeepseekV2MLP is LlamaMLP (bias=config.mlp_bias): the dense MLP,
		// every routed expert and the shared experts get biases.
		{"deepseek-v2 mlp_bias", `{"model_type":"deepseek_v2",` + small + layers(2) + `,"q_lora_rank":null,"kv_lora_rank":8,"qk_nope_head_dim":4,
			"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":2,"moe_intermediate_size":6,"first_k_dense_replace":1,"mlp_bias":true}`,
			map[string][]uint64{
				"model.layers.0.mlp.gate_proj.bias": {24}, "model.layers.0.mlp.down_proj.bias": {32},
				"model.layers.1.mlp.experts.1.up_proj.bias": {6}, "model.layers.1.mlp.experts.0.down_proj.bias": {32},
				"model.layers.1.mlp.shared_experts.gate_proj.bias": {12}, "model.layers.1.mlp.shared_experts.down_proj.bias": {32},
				"model.layers.1.mlp.gate.bias": nil, "model.layers.1.self_attn.o_proj.bias": nil, "model.layers.0.self_attn.q_proj.bias": nil},
			// layer 0: 7 of MLA and norms, 3 weights and 3 biases; layer 1: 7, the router, 2 experts and the shared
			// experts, each 3 weights and 3 biases; embed, norm, head
			13 + 26 + 3},
		{"deepseek-v2 without mlp_bias", `{"model_type":"deepseek_v2",` + small + layers(2) + `,"q_lora_rank":null,"kv_lora_rank":8,"qk_nope_head_dim":4,
			"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":2,"moe_intermediate_size":6,"first_k_dense_replace":1}`,
			map[string][]uint64{"model.layers.0.mlp.gate_proj.bias": nil, "model.layers.1.mlp.experts.1.up_proj.bias": nil,
				"model.layers.1.mlp.shared_experts.gate_proj.bias": nil}, 30},
		// GPT2Block with add_cross_attention: crossattention (Conv1D c_attn
		// [H, 2H] of k and v, q_attn [H, H], c_proj) and ln_cross_attn.
		{"gpt-2 add_cross_attention", `{"model_type":"gpt2","vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4,"n_positions":8,"add_cross_attention":true}`,
			map[string][]uint64{
				"transformer.h.1.crossattention.c_attn.weight": {32, 64}, "transformer.h.1.crossattention.c_attn.bias": {64},
				"transformer.h.1.crossattention.q_attn.weight": {32, 32}, "transformer.h.1.crossattention.c_proj.bias": {32},
				"transformer.h.0.ln_cross_attn.weight": {32}, "transformer.h.0.ln_cross_attn.bias": {32}, "transformer.wpe.weight": {8, 32}}, 2 + 2*20 + 3},
		{"gpt-2 without cross-attention", `{"model_type":"gpt2","vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4}`,
			map[string][]uint64{"transformer.h.1.crossattention.c_attn.weight": nil, "transformer.h.0.ln_cross_attn.weight": nil}, 2 + 2*12 + 3},
		// A config of only model_type is the class's full-size model
		// (a missing key takes its config class's default): before, these
		// were refused with "vocab_size is missing".
		{"deepseek-v3 defaults: 61 layers, 3 dense, 256 experts", `{"model_type":"deepseek_v3","architectures":["DeepseekV3ForCausalLM"]}`,
			map[string][]uint64{
				"model.embed_tokens.weight": {129280, 7168}, "model.layers.2.mlp.down_proj.weight": {7168, 18432},
				"model.layers.3.mlp.experts.255.gate_proj.weight": {2048, 7168}, "model.layers.60.mlp.shared_experts.up_proj.weight": {2048, 7168},
				"model.layers.60.mlp.gate.e_score_correction_bias": {256}, "model.layers.60.self_attn.q_b_proj.weight": {128 * 192, 1536},
				"model.layers.60.self_attn.kv_a_proj_with_mqa.weight": {576, 7168}, "model.layers.60.self_attn.kv_b_proj.weight": {128 * 256, 512},
				"model.layers.60.self_attn.o_proj.weight": {7168, 128 * 128}, "model.layers.61.input_layernorm.weight": nil,
				"model.layers.2.mlp.gate.weight": nil, "lm_head.weight": {129280, 7168}},
			// 3 dense layers of 12, 58 sparse of 9 + 2 + 256·3 + 3, embed, norm, head
			3*12 + 58*(9+2+256*3+3) + 3},
		// Qwen3MoeConfig has no head_dim: the attention's getattr falls back
		// to hidden/heads = 64 (Qwen3Config's is 128).
		{"qwen3-moe defaults: 24 layers × 128 experts", `{"model_type":"qwen3_moe"}`, map[string][]uint64{
			"model.layers.23.mlp.experts.127.down_proj.weight": {2048, 768}, "model.layers.23.self_attn.q_proj.weight": {32 * 64, 2048},
			"model.layers.23.self_attn.k_proj.weight": {4 * 64, 2048}, "model.layers.0.self_attn.q_norm.weight": {64},
			"model.embed_tokens.weight": {151936, 2048}, "model.layers.24.input_layernorm.weight": nil}, 24*(8+1+128*3) + 3},
		{"qwen2-moe defaults: 24 layers × 60 experts and a shared expert", `{"model_type":"qwen2_moe"}`, map[string][]uint64{
			"model.layers.23.mlp.experts.59.up_proj.weight": {1408, 2048}, "model.layers.23.mlp.shared_expert.up_proj.weight": {5632, 2048},
			"model.layers.23.mlp.shared_expert_gate.weight": {1, 2048}, "model.layers.0.self_attn.k_proj.bias": {2048}}, 24*(2+7+1+60*3+3+1) + 3},
		{"mixtral defaults: 32 layers × 8 experts", `{"model_type":"mixtral"}`, map[string][]uint64{
			"model.layers.31.block_sparse_moe.experts.7.w2.weight": {4096, 14336}, "model.layers.31.self_attn.k_proj.weight": {1024, 4096}}, 32*(2+4+1+8*3) + 3},
		{"gpt-oss defaults: 36 layers × 128 experts", `{"model_type":"gpt_oss"}`, map[string][]uint64{
			"model.layers.35.mlp.experts.gate_up_proj": {128, 2880, 2 * 2880}, "model.layers.35.self_attn.q_proj.weight": {64 * 64, 2880},
			"model.layers.35.self_attn.k_proj.bias": {8 * 64}, "model.layers.35.self_attn.sinks": {64}, "model.embed_tokens.weight": {201088, 2880}},
			36*(2+8+1+2+4) + 3},
		{"deepseek-v2 defaults: 32 layers × 64 experts, 2 shared", `{"model_type":"deepseek_v2"}`, map[string][]uint64{
			"model.layers.31.mlp.experts.63.down_proj.weight": {4096, 1407}, "model.layers.31.mlp.shared_experts.down_proj.weight": {4096, 2 * 1407},
			"model.layers.0.self_attn.q_a_proj.weight": {1536, 4096}, "model.embed_tokens.weight": {32000, 4096}}, 32*(9+1+64*3+3) + 3},
		{"olmoe defaults", `{"model_type":"olmoe"}`, map[string][]uint64{"model.layers.15.mlp.experts.63.gate_proj.weight": {2048, 2048},
			"model.layers.15.self_attn.k_norm.weight": {2048}}, 16*(1+4+2+1+1+64*3) + 3},
		{"phimoe defaults", `{"model_type":"phimoe"}`, map[string][]uint64{"model.layers.31.block_sparse_moe.experts.15.w1.weight": {6400, 4096},
			"model.layers.31.input_layernorm.bias": {4096}, "model.norm.bias": {4096}}, 32*(4+4+1+16*3) + 4},
		{"llama defaults: Llama-2-7B", `{"model_type":"llama"}`, map[string][]uint64{
			"model.layers.31.mlp.down_proj.weight": {4096, 11008}, "model.embed_tokens.weight": {32000, 4096}}, 32*9 + 3},
		{"gemma2 defaults: 26 layers, tied", `{"model_type":"gemma2"}`, map[string][]uint64{
			"model.layers.25.self_attn.q_proj.weight": {8 * 256, 2304}, "model.layers.25.self_attn.k_proj.weight": {4 * 256, 2304}}, 0},
		{"gpt-neox defaults: 44 layers", `{"model_type":"gpt_neox"}`, map[string][]uint64{
			"gpt_neox.layers.43.attention.query_key_value.weight": {3 * 6144, 6144}, "embed_out.weight": {50432, 6144}}, 44*12 + 4},
		{"falcon defaults: Falcon-7B, multi-query, parallel", `{"model_type":"falcon"}`, map[string][]uint64{
			"transformer.h.31.self_attention.query_key_value.weight": {4544 + 2*64, 4544}, "transformer.h.31.input_layernorm.bias": {4544},
			"transformer.h.31.post_attention_layernorm.weight": nil, "transformer.h.0.mlp.dense_h_to_4h.weight": {4 * 4544, 4544}}, 32*6 + 4},
		// MllamaTextConfig: cross_attention_layers absent or null is
		// [3, 8, 13, …, 38] of 40 layers (before: no cross-attention).
		{"mllama text defaults: 40 layers, cross-attention every 5th from 3", `{"model_type":"mllama_text_model"}`, map[string][]uint64{
			"model.layers.3.cross_attn.k_norm.weight": {128}, "model.layers.38.cross_attn_mlp_gate": {1}, "model.layers.3.self_attn.q_proj.weight": nil,
			"model.layers.39.self_attn.k_proj.weight": {1024, 4096}, "model.embed_tokens.weight": {128264, 4096}}, 32*9 + 8*13 + 3},
		{"mllama text, cross_attention_layers null", `{"model_type":"mllama_text_model","vocab_size":16,"hidden_size":32,"num_hidden_layers":9,
			"num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":24,"cross_attention_layers":null}`, map[string][]uint64{
			"model.layers.3.cross_attn.k_proj.weight": {8, 32}, "model.layers.8.cross_attn.q_norm.weight": {8}, "model.layers.4.self_attn.q_proj.weight": {32, 32}}, 0},
		{"mllama defaults", `{"model_type":"mllama"}`, map[string][]uint64{
			"language_model.model.layers.33.cross_attn.o_proj.weight": {4096, 4096}, "vision_model.global_transformer.layers.7.gate_ffn": {1},
			"vision_model.gated_positional_embedding.tile_embedding.weight": {9, 4 * 1025 * 1280}, "multi_modal_projector.weight": {4096, 7680}}, 0},
		{"an explicit null is still refused", `{"model_type":"deepseek_v3","vocab_size":null}`, nil, -1},

		// ── covered without finding a bug ─────────────────────────────────
		{"mistral MQA, head_dim 16 ≠ 32/4, 3 layers", `{"model_type":"mistral",` + small + layers(3) + `,"head_dim":16}`, map[string][]uint64{
			"model.layers.2.self_attn.q_proj.weight": {64, 32}, "model.layers.2.self_attn.k_proj.weight": {16, 32},
			"model.layers.2.self_attn.o_proj.weight": {32, 64}, "model.layers.3.self_attn.q_proj.weight": nil, "lm_head.weight": {16, 32}}, 3*9 + 3},
		{"qwen2 tied, head_dim given", `{"model_type":"qwen2",` + small + layers(1) + `,"head_dim":12,"tie_word_embeddings":true}`, map[string][]uint64{
			"model.layers.0.self_attn.q_proj.bias": {48}, "model.layers.0.self_attn.v_proj.bias": {12}, "model.layers.0.self_attn.o_proj.bias": nil}, 0},
		{"qwen3 attention_bias, MQA", `{"model_type":"qwen3",` + small + layers(1) + `,"head_dim":12,"attention_bias":true}`, map[string][]uint64{
			"model.layers.0.self_attn.o_proj.bias": {32}, "model.layers.0.self_attn.k_proj.bias": {12}, "model.layers.0.self_attn.k_norm.weight": {12}}, 0},
		{"qwen3-moe every 2nd layer sparse, layer 3 forced dense", `{"model_type":"qwen3_moe",` + small + layers(5) + `,"head_dim":8,"num_experts":2,
			"moe_intermediate_size":6,"decoder_sparse_step":2,"mlp_only_layers":[3]}`, map[string][]uint64{
			"model.layers.0.mlp.gate_proj.weight": {24, 32}, "model.layers.1.mlp.experts.1.down_proj.weight": {32, 6},
			"model.layers.3.mlp.gate.weight": nil, "model.layers.3.mlp.up_proj.weight": {24, 32}, "model.layers.4.mlp.gate.weight": nil}, 0},
		{"gemma with attention biases, untied", `{"model_type":"gemma",` + small + layers(1) + `,"head_dim":8,"attention_bias":true,"tie_word_embeddings":false}`,
			map[string][]uint64{"model.layers.0.self_attn.o_proj.bias": {32}, "model.layers.0.self_attn.k_proj.bias": {8}, "lm_head.weight": {16, 32}}, 13 + 3},
		{"gemma3_text MQA, 7 layers (5 sliding, 1 full, 1 sliding)", `{"model_type":"gemma3_text",` + small + layers(7) + `,"head_dim":8}`, map[string][]uint64{
			"model.layers.6.self_attn.k_norm.weight": {8}, "model.layers.5.pre_feedforward_layernorm.weight": {32}}, 7*13 + 3},
		{"phi-3 tied (Phi-4-mini), MQA", `{"model_type":"phi3",` + small + layers(1) + `,"tie_word_embeddings":true}`, map[string][]uint64{
			"model.layers.0.self_attn.qkv_proj.weight": {(4 + 2) * 8, 32}, "model.layers.0.mlp.gate_up_proj.weight": {48, 32}}, 0},
		{"falcon-40b: new architecture, 8 kv heads", `{"model_type":"falcon","vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":16,
			"num_kv_heads":2,"new_decoder_architecture":true}`, map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {(16 + 4) * 4, 64}, "transformer.h.0.ln_attn.weight": {64},
			"transformer.h.0.input_layernorm.weight": nil, "transformer.h.0.self_attention.query_key_value.bias": nil}, 0},
		{"falcon2-11b: new architecture, one norm in parallel", `{"model_type":"falcon","vocab_size":16,"hidden_size":64,"num_hidden_layers":1,
			"num_attention_heads":16,"num_kv_heads":2,"new_decoder_architecture":true,"num_ln_in_parallel_attn":1}`, map[string][]uint64{
			"transformer.h.0.input_layernorm.weight": {64}, "transformer.h.0.ln_attn.weight": nil, "transformer.h.0.ln_mlp.weight": nil}, 0},
		{"falcon new architecture, sequential", `{"model_type":"falcon","vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":16,
			"num_kv_heads":1,"new_decoder_architecture":true,"parallel_attn":false}`, map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {(16 + 2) * 4, 64}, "transformer.h.0.post_attention_layernorm.weight": {64},
			"transformer.h.0.ln_attn.weight": nil}, 0},
		{"gpt-neox without attention biases", `{"model_type":"gpt_neox","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,
			"intermediate_size":24,"attention_bias":false,"use_parallel_residual":false}`, map[string][]uint64{
			"gpt_neox.layers.0.attention.query_key_value.bias": nil, "gpt_neox.layers.0.attention.dense.bias": nil,
			"gpt_neox.layers.0.mlp.dense_h_to_4h.bias": {24}, "gpt_neox.layers.0.post_attention_layernorm.weight": {32}}, 0},
		{"gpt-j n_inner given, untied head with a bias", `{"model_type":"gptj","vocab_size":16,"n_embd":32,"n_layer":1,"n_head":4,"n_inner":24}`,
			map[string][]uint64{"transformer.h.0.mlp.fc_in.weight": {24, 32}, "lm_head.bias": {16}, "transformer.h.0.attn.q_proj.bias": nil}, 0},
		{"bloom with n_embed", `{"model_type":"bloom","vocab_size":16,"n_embed":32,"n_layer":1,"n_head":4}`, map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {96, 32}, "transformer.word_embeddings_layernorm.bias": {32}}, 0},
		{"olmo2 MQA: k_norm over the kv width", `{"model_type":"olmo2",` + small + layers(1) + `}`, map[string][]uint64{
			"model.layers.0.self_attn.q_norm.weight": {32}, "model.layers.0.self_attn.k_norm.weight": {8}, "model.layers.0.input_layernorm.weight": nil}, 0},
		{"olmo: parameter-free norms", `{"model_type":"olmo",` + small + layers(1) + `,"attention_bias":true}`, map[string][]uint64{
			"model.layers.0.self_attn.k_proj.bias": {8}, "model.norm.weight": nil, "model.layers.0.input_layernorm.weight": nil}, 0},
		{"granite mlp_bias, attention_bias", `{"model_type":"granite",` + small + layers(1) + `,"mlp_bias":true,"attention_bias":true}`, map[string][]uint64{
			"model.layers.0.mlp.up_proj.bias": {24}, "model.layers.0.self_attn.v_proj.bias": {8}}, 0},
		{"granitemoe MQA with biases", `{"model_type":"granitemoe",` + small + layers(1) + `,"num_local_experts":2,"attention_bias":true}`, map[string][]uint64{
			"model.layers.0.block_sparse_moe.input_linear.weight": {2, 48, 32}, "model.layers.0.self_attn.k_proj.bias": {8}}, 0},
		{"cohere2 untied, biases", `{"model_type":"cohere2",` + small + layers(1) + `,"head_dim":12,"attention_bias":true,"tie_word_embeddings":false}`,
			map[string][]uint64{"model.layers.0.self_attn.q_proj.weight": {48, 32}, "model.layers.0.post_attention_layernorm.weight": nil, "lm_head.weight": {16, 32}}, 0},
		{"starcoder2 without biases, untied", `{"model_type":"starcoder2",` + small + layers(1) + `,"use_bias":false,"tie_word_embeddings":false}`,
			map[string][]uint64{"model.layers.0.mlp.c_fc.bias": nil, "model.layers.0.self_attn.q_proj.bias": nil,
				"model.layers.0.input_layernorm.bias": {32}, "model.norm.bias": {32}, "lm_head.weight": {16, 32}}, 0},
		{"gpt-oss without attention biases, head_dim 12", `{"model_type":"gpt_oss",` + small + layers(1) + `,"head_dim":12,"num_local_experts":2,"attention_bias":false}`,
			map[string][]uint64{"model.layers.0.self_attn.q_proj.weight": {48, 32}, "model.layers.0.self_attn.q_proj.bias": nil,
				"model.layers.0.mlp.router.bias": {2}, "model.layers.0.mlp.experts.down_proj": {2, 24, 32}}, 0},
		{"phimoe biased head and attention", `{"model_type":"phimoe",` + small + layers(1) + `,"num_local_experts":2,"attention_bias":true,"lm_head_bias":true}`,
			map[string][]uint64{"lm_head.bias": {16}, "model.layers.0.self_attn.k_proj.bias": {8}}, 0},
		{"ernie4.5 biases, head_dim 12", `{"model_type":"ernie4_5",` + small + layers(1) + `,"head_dim":12,"use_bias":true,"tie_word_embeddings":false}`,
			map[string][]uint64{"model.layers.0.self_attn.o_proj.bias": {32}, "model.layers.0.mlp.down_proj.bias": {32}, "lm_head.weight": {16, 32}}, 0},
		{"ernie4.5-moe every 2nd layer from 1, no shared experts", `{"model_type":"ernie4_5_moe",` + small + layers(4) + `,"moe_num_experts":2,
			"moe_intermediate_size":6,"moe_layer_interval":2,"moe_num_shared_experts":0}`, map[string][]uint64{
			"model.layers.0.mlp.gate_proj.weight": {24, 32}, "model.layers.1.mlp.experts.1.up_proj.weight": {6, 32},
			"model.layers.1.mlp.shared_experts.up_proj.weight": nil, "model.layers.2.mlp.gate.weight": nil, "model.layers.3.mlp.moe_statics.e_score_correction_bias": {1, 2}}, 0},
		{"glm4 without biases", `{"model_type":"glm4",` + small + layers(1) + `,"head_dim":12,"attention_bias":false}`, map[string][]uint64{
			"model.layers.0.self_attn.q_proj.bias": nil, "model.layers.0.mlp.gate_up_proj.weight": {48, 32}, "model.layers.0.post_mlp_layernorm.weight": {32}}, 0},
		{"exaone4 tied, head_dim 16", `{"model_type":"exaone4",` + small + layers(1) + `,"head_dim":16,"tie_word_embeddings":true}`, map[string][]uint64{
			"model.layers.0.self_attn.q_proj.weight": {64, 32}, "model.layers.0.input_layernorm.weight": nil}, 0},
		{"nemotron biases, head_dim 16", `{"model_type":"nemotron",` + small + layers(1) + `,"head_dim":16,"attention_bias":true,"mlp_bias":true}`,
			map[string][]uint64{"model.layers.0.self_attn.o_proj.weight": {32, 64}, "model.layers.0.mlp.up_proj.bias": {24}, "model.norm.bias": {32}}, 0},
		{"deepseek-v3 with q_lora_rank, all sparse, 2 shared, attention biases", `{"model_type":"deepseek_v3",` + small + layers(1) + `,"q_lora_rank":6,
			"kv_lora_rank":8,"qk_nope_head_dim":4,"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":2,"moe_intermediate_size":6,"n_shared_experts":2,
			"first_k_dense_replace":0,"attention_bias":true}`, map[string][]uint64{
			"model.layers.0.self_attn.q_a_proj.bias": {6}, "model.layers.0.self_attn.q_b_proj.weight": {24, 6}, "model.layers.0.self_attn.q_b_proj.bias": nil,
			"model.layers.0.self_attn.kv_a_proj_with_mqa.bias": {10}, "model.layers.0.mlp.shared_experts.down_proj.weight": {32, 12},
			"model.layers.0.mlp.gate_proj.weight": nil}, 0},
		{"jamba mamba biases, MQA attention, 3 experts every 2nd layer", `{"model_type":"jamba",` + small + layers(2) + `,"attn_layer_period":2,
			"attn_layer_offset":1,"expert_layer_period":2,"expert_layer_offset":1,"num_experts":3,"mamba_dt_rank":4,"mamba_proj_bias":true,"mamba_conv_bias":false,
			"mamba_d_state":5,"mamba_expand":3,"mamba_d_conv":3}`, map[string][]uint64{
			"model.layers.0.mamba.in_proj.bias": {192}, "model.layers.0.mamba.conv1d.weight": {96, 1, 3}, "model.layers.0.mamba.conv1d.bias": nil,
			"model.layers.0.mamba.x_proj.weight": {4 + 10, 96}, "model.layers.0.mamba.out_proj.bias": {32}, "model.layers.0.mamba.b_layernorm.weight": {5},
			"model.layers.1.self_attn.k_proj.weight": {8, 32}, "model.layers.1.feed_forward.experts.2.down_proj.weight": {32, 24},
			"model.layers.0.feed_forward.router.weight": nil}, 0},
		{"mamba2 with biases", `{"model_type":"mamba2","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_heads":4,"head_dim":16,"n_groups":2,
			"state_size":8,"use_bias":true,"conv_kernel":3}`, map[string][]uint64{
			"backbone.layers.0.mixer.in_proj.bias": {2*64 + 2*2*8 + 4}, "backbone.layers.0.mixer.out_proj.bias": {32},
			"backbone.layers.0.mixer.conv1d.weight": {64 + 2*2*8, 1, 3}}, 0},
		{"bamba MQA attention, mamba projection biases", `{"model_type":"bamba",` + small + layers(2) + `,"attn_layer_indices":[1],"mamba_n_heads":4,
			"mamba_d_state":8,"mamba_conv_bias":false,"mamba_proj_bias":true,"mamba_n_groups":2,"mamba_d_head":16}`, map[string][]uint64{
			"model.layers.0.mamba.in_proj.bias": {164}, "model.layers.0.mamba.conv1d.bias": nil, "model.layers.1.self_attn.k_proj.weight": {8, 32},
			"model.layers.1.mamba.in_proj.weight": nil}, 0},
		{"falcon-h1 without the mixer's norm weight", `{"model_type":"falcon_h1",` + small + layers(1) + `,"head_dim":12,"mamba_d_ssm":48,"mamba_n_heads":4,
			"mamba_d_head":12,"mamba_n_groups":2,"mamba_d_state":8,"mamba_rms_norm":false}`, map[string][]uint64{
			"model.layers.0.mamba.norm.weight": nil, "model.layers.0.mamba.in_proj.weight": {48 + 80 + 4, 32}, "model.layers.0.self_attn.k_proj.weight": {12, 32}}, 0},
		{"mllama: cross-attention at layer 1 of 3, 3 aspect ratios", `{"model_type":"mllama","text_config":{"vocab_size":16,"hidden_size":32,
			"num_hidden_layers":3,"num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":24,"cross_attention_layers":[1]},"vision_config":{"hidden_size":16,
			"intermediate_size":20,"num_hidden_layers":1,"num_global_layers":1,"image_size":32,"patch_size":8,"attention_heads":2,"max_num_tiles":2,
			"supported_aspect_ratios":[[1,1],[1,2],[2,1]],"intermediate_layers_indices":[0],"vision_output_dim":48}}`, map[string][]uint64{
			"language_model.model.layers.1.cross_attn.k_norm.weight": {8}, "language_model.model.layers.1.self_attn.q_proj.weight": nil,
			"language_model.model.layers.2.cross_attn.q_proj.weight": nil, "language_model.model.embed_tokens.weight": {24, 32},
			"vision_model.gated_positional_embedding.tile_embedding.weight": {4, 2 * 17 * 16}, "vision_model.pre_tile_positional_embedding.embedding.weight": {4, 32},
			"multi_modal_projector.weight": {32, 48}}, 0},
		{"llava-next, three feature layers, a Mistral with head_dim", `{"model_type":"llava_next","vision_feature_layer":[-1,-2,-3],"text_config":{"model_type":"mistral",` +
			small + layers(1) + `,"head_dim":16},"vision_config":{"hidden_size":16,"intermediate_size":20,"num_hidden_layers":1,"image_size":32,"patch_size":8}}`,
			map[string][]uint64{"multi_modal_projector.linear_1.weight": {32, 48}, "image_newline": {32}, "language_model.model.layers.0.self_attn.q_proj.weight": {64, 32},
				"vision_tower.vision_model.embeddings.position_embedding.weight": {17, 16}}, 0},
		{"idefics3 scale factor 3", `{"model_type":"idefics3","scale_factor":3,"text_config":{"model_type":"llama",` + small + layers(1) + `},
			"vision_config":{"hidden_size":16,"intermediate_size":20,"num_hidden_layers":1,"image_size":24,"patch_size":8}}`, map[string][]uint64{
			"model.connector.modality_projection.proj.weight": {32, 16 * 9}, "model.vision_model.embeddings.position_embedding.weight": {9, 16},
			"model.text_model.layers.0.self_attn.k_proj.weight": {8, 32}}, 0},
		{"qwen2.5-vl: gated vision MLP, RMS norms", `{"model_type":"qwen2_5_vl","text_config":{` + small + layers(1) + `},"vision_config":{"depth":1,
			"hidden_size":8,"intermediate_size":12,"out_hidden_size":32,"num_heads":2}}`, map[string][]uint64{
			"visual.blocks.0.mlp.gate_proj.bias": {12}, "visual.blocks.0.norm1.bias": nil, "visual.merger.mlp.0.weight": {32, 32},
			"visual.merger.ln_q.bias": nil, "model.layers.0.self_attn.k_proj.bias": {8}}, 0},
		{"qwen2.5-vl flat config as released: tied, window attention, 2×2 merger", `{"model_type":"qwen2_5_vl",` + small + layers(1) + `,
			"tie_word_embeddings":true,"vision_config":{"depth":2,"hidden_act":"silu","hidden_size":40,"intermediate_size":36,"num_heads":4,"in_chans":3,
			"out_hidden_size":32,"patch_size":14,"spatial_merge_size":2,"spatial_patch_size":14,"window_size":112,"fullatt_block_indexes":[1],"temporal_patch_size":2}}`,
			map[string][]uint64{"visual.patch_embed.proj.weight": {40, 3, 2, 14, 14}, "visual.merger.mlp.0.weight": {160, 160}, "visual.merger.mlp.2.weight": {32, 160},
				"visual.blocks.1.mlp.down_proj.weight": {40, 36}, "visual.blocks.1.attn.qkv.bias": {120}, "model.layers.0.self_attn.k_proj.weight": {8, 32}}, 0},
		{"gemma-3-4b's config: SigLIP 896/14 without head, text defaults for the rest", `{"model_type":"gemma3","text_config":{"hidden_size":2560,
			"intermediate_size":10240,"model_type":"gemma3_text","num_attention_heads":8,"num_hidden_layers":1,"num_key_value_heads":4,"head_dim":256},
			"vision_config":{"hidden_size":1152,"image_size":896,"intermediate_size":4304,"model_type":"siglip_vision_model","num_attention_heads":16,
			"num_hidden_layers":1,"patch_size":14,"vision_use_head":false},"mm_tokens_per_image":256}`, map[string][]uint64{
			"vision_tower.vision_model.embeddings.position_embedding.weight": {4096, 1152}, "vision_tower.vision_model.head.probe": nil,
			"multi_modal_projector.mm_input_projection_weight": {1152, 2560}, "language_model.model.embed_tokens.weight": {262208, 2560},
			"language_model.model.layers.0.self_attn.q_proj.weight": {8 * 256, 2560}}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.total < 0 {
				cfg, err := spec.ParseConfig("c", []byte(c.config))
				require.NoError(t, err)
				_, err = spec.Expect(cfg)
				assert.ErrorContains(t, err, `"vocab_size" is null`)
				return
			}
			p := expectJSON(t, c.config)
			for name, shape := range c.want {
				got := shapeOf(p, name)
				if shape == nil {
					assert.Nil(t, got, "%s should not be expected", name)
				} else {
					assert.Equal(t, shape, got, name)
				}
			}
			if c.total > 0 {
				assert.Len(t, p.Tensors, c.total, "tensors expected (a tied head counted)")
			}
		})
	}
}

// TestFP8BlockScalesTester: DeepSeek-V3 as released, in FP8 with a
// weight_scale_inv of ceil(out/128)×ceil(in/128) blocks beside every
// linear weight but the router, norms and embeddings (float16, as
// torch_dtype says), a float32 correction bias and YaRN rope_scaling:
// clean, with the scales auxiliaries.
func TestFP8BlockScalesTester(t *testing.T) {
	cfg := []byte(`{"model_type":"deepseek_v3","architectures":["DeepseekV3ForCausalLM"],"vocab_size":300,"hidden_size":200,"num_hidden_layers":2,
		"num_attention_heads":2,"intermediate_size":260,"q_lora_rank":150,"kv_lora_rank":130,"qk_nope_head_dim":64,"qk_rope_head_dim":32,"v_head_dim":64,
		"n_routed_experts":3,"moe_intermediate_size":140,"first_k_dense_replace":1,"torch_dtype":"float16",
		"rope_scaling":{"type":"yarn","factor":40,"original_max_position_embeddings":4096,"mscale":1.0,"mscale_all_dim":1.0,"beta_fast":32,"beta_slow":1},
		"quantization_config":{"quant_method":"fp8","fmt":"e4m3","activation_scheme":"dynamic","weight_block_size":[128,128]}}`)
	c, err := spec.ParseConfig("config.json", cfg)
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err)
	var ts []testmodel.Tensor
	scales := 0
	for _, e := range p.Tensors {
		s := e.ShapeValues()
		switch {
		case e.Role == spec.RoleLinear && len(s) == 2 && !strings.Contains(e.Name, "mlp.gate."):
			ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "F8_E4M3", Shape: s},
				testmodel.Tensor{Name: strings.TrimSuffix(e.Name, ".weight") + ".weight_scale_inv", DType: "F32", Shape: []uint64{(s[0] + 127) / 128, (s[1] + 127) / 128}})
			scales++
		case strings.HasSuffix(e.Name, "e_score_correction_bias"):
			ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "F32", Shape: s})
		default:
			ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "F16", Shape: s})
		}
	}
	require.Greater(t, scales, 20)
	r := checkLayout(t, cfg, ts)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Positive(t, r.Auxiliary)

	// A scale without its weight, or a weight dropped, is still found.
	var dropped []testmodel.Tensor
	for _, x := range ts {
		if x.Name != "model.layers.1.mlp.experts.2.down_proj.weight" {
			dropped = append(dropped, x)
		}
	}
	r = checkLayout(t, cfg, dropped)
	assert.False(t, r.Clean())
	assert.Contains(t, r.Text(), "experts.2.down_proj.weight")
}
