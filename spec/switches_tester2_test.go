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
