package spec_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSwitchesTester2 flips config switches of the encoder-decoders,
// hybrids, MoEs, VLMs and odd decoders that the reference layouts leave at
// one value, on odd sizes, and checks the expected set both ways against
// the modules of transformers' modeling_*.py: a tensor with a shape must
// be expected with that shape, one with nil must not be expected.
func TestSwitchesTester2(t *testing.T) {
	const ernie = `"model_type":"ernie4_5_moe","vocab_size":16,"hidden_size":32,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"moe_intermediate_size":8,"moe_num_experts":3`
	for _, c := range []struct {
		name, config string
		want         map[string][]uint64
	}{
		// Ernie4_5_MoeSparseMoeBlock's experts are Ernie4_5_MoeMLP (bias=use_bias); the head is Linear(bias=use_bias), its bias kept when tied.
		{"ernie4_5_moe use_bias: expert and head biases", `{` + ernie + `,"num_hidden_layers":2,"use_bias":true}`, map[string][]uint64{
			"model.layers.1.mlp.experts.2.gate_proj.bias": {8}, "model.layers.1.mlp.experts.0.down_proj.bias": {32},
			"model.layers.1.mlp.shared_experts.up_proj.bias": {16}, "model.layers.0.mlp.down_proj.bias": {32},
			"model.layers.1.self_attn.o_proj.bias": {32}, "lm_head.bias": {16}}},
		{"ernie4_5_moe no bias, MoE every 2nd of 0..4, no shared experts", `{` + ernie + `,"num_hidden_layers":6,"moe_layer_interval":2,"moe_layer_start_index":0,"moe_layer_end_index":4,"moe_num_shared_experts":0}`,
			map[string][]uint64{"model.layers.1.mlp.experts.2.gate_proj.weight": {8, 32}, "model.layers.3.mlp.moe_statics.e_score_correction_bias": {1, 3},
				"model.layers.5.mlp.gate.weight": nil, "model.layers.5.mlp.down_proj.weight": {32, 24}, "model.layers.0.mlp.gate.weight": nil,
				"model.layers.1.mlp.shared_experts.up_proj.weight": nil, "model.layers.1.mlp.experts.0.gate_proj.bias": nil, "lm_head.bias": nil}},
		// HunYuanMoE: shared_mlp is always HunYuanMoEV1MLP(config) (intermediate_size, bias=False); the class has no
		// num_shared_expert or mlp_bias (a real config's are ignored); num_experts may be a list, one per layer.
		{"hunyuan_v1_moe experts per layer, shared MLP of I without biases", `{"model_type":"hunyuan_v1_moe","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,
			"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"num_experts":[2,3],"moe_topk":[1,2],"num_shared_expert":2,"mlp_bias":true,"attention_bias":true}`,
			map[string][]uint64{"model.layers.0.mlp.gate.wg.weight": {2, 32}, "model.layers.1.mlp.gate.wg.weight": {3, 32},
				"model.layers.0.mlp.experts.2.up_proj.weight": nil, "model.layers.1.mlp.experts.2.up_proj.weight": {24, 32},
				"model.layers.1.mlp.shared_mlp.gate_proj.weight": {24, 32}, "model.layers.1.mlp.shared_mlp.gate_proj.bias": nil,
				"model.layers.1.mlp.shared_mlp.down_proj.weight": {32, 24}, "model.layers.0.self_attn.o_proj.bias": {32},
				"model.layers.0.self_attn.query_layernorm.weight": {8}}},
		// JetMoeConfig has no num_attention_heads argument (it sets kv·topk): a config without it still checks.
		{"jetmoe without num_attention_heads, untied, 3 experts", `{"model_type":"jetmoe","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_key_value_heads":2,
			"kv_channels":8,"intermediate_size":24,"num_local_experts":3,"num_experts_per_tok":2,"tie_word_embeddings":false}`, map[string][]uint64{
			"model.layers.1.self_attention.experts.input_linear.weight": {3, 16, 32}, "model.layers.1.self_attention.kv_proj.weight": {32, 32},
			"model.layers.1.mlp.input_linear.weight": {3, 48, 32}, "model.layers.1.mlp.bias": {32}, "lm_head.weight": {16, 32}}},
		// MarianDecoder's embed_tokens is [decoder_vocab_size, H]; MarianForCausalLM's lm_head is Linear(H, vocab_size).
		{"marian untied, decoder vocabulary of its own", `{"model_type":"marian","vocab_size":16,"decoder_vocab_size":20,"d_model":32,"decoder_layers":1,
			"decoder_attention_heads":4,"decoder_ffn_dim":24,"max_position_embeddings":40,"tie_word_embeddings":false}`, map[string][]uint64{
			"model.decoder.embed_tokens.weight": {20, 32}, "lm_head.weight": {16, 32}, "model.decoder.embed_positions.weight": {40, 32},
			"model.decoder.layers.0.encoder_attn.k_proj.bias": {32}, "model.decoder.layers.1.fc1.weight": nil, "model.decoder.layer_norm.weight": nil}},
		// HeliumConfig's head_dim defaults to 128; HeliumAttention's o_proj is Linear(H, H, bias=False).
		{"helium attention biases, head_dim by default", `{"model_type":"helium","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"attention_bias":true,"mlp_bias":true}`, map[string][]uint64{
			"model.layers.0.self_attn.q_proj.weight": {512, 32}, "model.layers.0.self_attn.k_proj.bias": {256},
			"model.layers.0.self_attn.o_proj.weight": {32, 32}, "model.layers.0.self_attn.o_proj.bias": nil, "model.layers.0.mlp.down_proj.bias": {32}}},
		{"helium head_dim null: H/heads", `{"model_type":"helium","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"head_dim":null}`,
			map[string][]uint64{"model.layers.0.self_attn.q_proj.weight": {32, 32}, "model.layers.0.self_attn.v_proj.weight": {16, 32}}},
		// Covered without a bug (read from the modeling files, checked both ways):
		{"zamba hybrid layers: 2, then offset among the rest", `{"model_type":"zamba","vocab_size":16,"hidden_size":32,"num_hidden_layers":8,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"attn_layer_offset":1,"attn_layer_period":3,"mamba_d_state":4,"mamba_d_conv":3,"n_mamba_heads":2,"mamba_expand":2}`,
			map[string][]uint64{"model.layers.2.linear.weight": {32, 32}, "model.layers.4.linear.weight": {32, 32}, "model.layers.7.linear.weight": {32, 32},
				"model.layers.1.linear.weight": nil, "model.layers.2.shared_transf.self_attn.q_proj.weight": {64, 64}, "model.layers.2.shared_transf.self_attn.o_proj.weight": {32, 64}}},
		{"falcon_mamba biases on, conv bias off", `{"model_type":"falcon_mamba","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"state_size":4,"expand":2,"conv_kernel":3,
			"use_bias":true,"use_conv_bias":false,"time_step_rank":5}`, map[string][]uint64{"backbone.layers.0.mixer.in_proj.bias": {128},
			"backbone.layers.0.mixer.out_proj.bias": {32}, "backbone.layers.0.mixer.conv1d.bias": nil, "backbone.layers.0.mixer.x_proj.weight": {13, 64}}},
		{"recurrent_gemma attention/recurrent cycle, attention biases", `{"model_type":"recurrent_gemma","vocab_size":16,"hidden_size":32,"num_hidden_layers":3,
			"num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":24,"lru_width":40,"block_types":["attention","recurrent"],"attention_bias":true,"conv1d_width":3}`,
			map[string][]uint64{"model.layers.0.temporal_block.q_proj.weight": {1024, 32}, "model.layers.0.temporal_block.q_proj.bias": {1024},
				"model.layers.2.temporal_block.k_proj.bias": {256}, "model.layers.1.temporal_block.rg_lru.input_gate_weight": {4, 10, 10},
				"model.layers.1.temporal_block.q_proj.weight": nil, "model.layers.1.mlp_block.down_proj.bias": {32}}},
		{"rwkv attention width of its own, intermediate null", `{"model_type":"rwkv","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"attention_hidden_size":40,"intermediate_size":null}`,
			map[string][]uint64{"rwkv.blocks.0.attention.key.weight": {40, 32}, "rwkv.blocks.0.attention.output.weight": {32, 40},
				"rwkv.blocks.0.feed_forward.key.weight": {128, 32}, "rwkv.blocks.0.pre_ln.weight": {32}, "head.weight": {16, 32}}},
		{"qwen3_next linear/full pattern, sparse step 2, mlp_only_layers", `{"model_type":"qwen3_next","vocab_size":16,"hidden_size":32,"num_hidden_layers":4,"num_attention_heads":4,
			"num_key_value_heads":2,"head_dim":8,"intermediate_size":24,"moe_intermediate_size":8,"shared_expert_intermediate_size":12,"num_experts":3,"decoder_sparse_step":2,
			"mlp_only_layers":[3],"layer_types":["full_attention","linear_attention","full_attention","linear_attention"],"linear_num_value_heads":4,"linear_num_key_heads":2,
			"linear_key_head_dim":8,"linear_value_head_dim":6,"linear_conv_kernel_dim":3}`, map[string][]uint64{
			"model.layers.0.self_attn.q_proj.weight": {64, 32}, "model.layers.1.linear_attn.in_proj_qkvz.weight": {80, 32}, "model.layers.1.linear_attn.conv1d.weight": {56, 1, 3},
			"model.layers.1.mlp.experts.2.up_proj.weight": {8, 32}, "model.layers.1.mlp.shared_expert_gate.weight": {1, 32}, "model.layers.3.mlp.gate.weight": nil,
			"model.layers.3.mlp.down_proj.weight": {32, 24}, "model.layers.2.mlp.gate.weight": nil, "model.layers.2.linear_attn.A_log": nil}},
		{"dbrx GQA Wqkv, experts flattened", `{"model_type":"dbrx","vocab_size":16,"d_model":32,"n_layers":1,"n_heads":4,"attn_config":{"kv_n_heads":2},"ffn_config":{"ffn_hidden_size":24,"moe_num_experts":3}}`,
			map[string][]uint64{"transformer.blocks.0.norm_attn_norm.attn.Wqkv.weight": {64, 32}, "transformer.blocks.0.ffn.experts.mlp.w1": {72, 32},
				"transformer.blocks.0.norm_attn_norm.norm_1.bias": nil, "lm_head.weight": {16, 32}}},
		{"seed_oss attention bias without out bias", `{"model_type":"seed_oss","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,
			"head_dim":8,"intermediate_size":24,"attention_bias":true,"attention_out_bias":false}`, map[string][]uint64{
			"model.layers.0.self_attn.k_proj.bias": {16}, "model.layers.0.self_attn.o_proj.bias": nil, "model.layers.0.mlp.up_proj.bias": nil}},
		{"persimmon without qk layernorm", `{"model_type":"persimmon","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24,"qk_layernorm":false}`,
			map[string][]uint64{"model.layers.0.self_attn.q_layernorm.weight": nil, "model.layers.0.self_attn.query_key_value.bias": {96}}},
		{"mistral3 two feature layers, projector without bias", `{"model_type":"mistral3","vision_feature_layer":[-2,-5],"multimodal_projector_bias":false,
			"text_config":{"model_type":"llama","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24},"vision_config":{"num_hidden_layers":1}}`,
			map[string][]uint64{"multi_modal_projector.linear_1.weight": {32, 2048}, "multi_modal_projector.linear_1.bias": nil, "multi_modal_projector.norm.weight": {1024}}},
		{"llava_onevision two feature layers of a SigLIP dict's defaults", `{"model_type":"llava_onevision","vision_feature_layer":[-2,-5],"multimodal_projector_bias":false,
			"text_config":{"model_type":"llama","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24},"vision_config":{"num_hidden_layers":1}}`,
			map[string][]uint64{"multi_modal_projector.linear_1.weight": {32, 1536}, "multi_modal_projector.linear_2.bias": nil, "image_newline": {32}}},
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
