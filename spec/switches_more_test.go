package spec_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

// TestSwitchesMore flips the switches of the SSM, encoder and
// vision-language families (families_ssm.go, families_encoder.go,
// families_vision.go) that the reference layouts leave at one value: a
// tensor with a shape must be expected with it, one with nil must not be
// expected. The expected modules are read from transformers'
// modeling_*.py.
func TestSwitchesMore(t *testing.T) {
	const bert = `"vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":24,"max_position_embeddings":10,"type_vocab_size":2`
	const llamaText = `"text_config":{"model_type":"llama","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":24}`
	for _, c := range []struct {
		name, config string
		want         map[string][]uint64
	}{
		{"bert relative positions and cross-attention", `{"model_type":"bert",` + bert + `,"position_embedding_type":"relative_key","add_cross_attention":true}`,
			map[string][]uint64{
				"bert.encoder.layer.1.attention.self.distance_embedding.weight":      {19, 8},
				"bert.encoder.layer.1.crossattention.self.distance_embedding.weight": {19, 8},
				"bert.encoder.layer.0.crossattention.output.LayerNorm.bias":          {32},
				"cls.predictions.decoder.weight":                                     {16, 32}}},
		{"bert absolute, no cross-attention", `{"model_type":"bert",` + bert + `}`, map[string][]uint64{
			"bert.encoder.layer.1.attention.self.distance_embedding.weight": nil, "bert.encoder.layer.0.crossattention.self.query.weight": nil}},
		{"electra embeddings as wide as the model", `{"model_type":"electra",` + bert + `,"embedding_size":32}`, map[string][]uint64{
			"electra.embeddings_project.weight": nil, "electra.embeddings.word_embeddings.weight": {16, 32}, "generator_predictions.dense.weight": {32, 32}}},
		{"ernie task embeddings", `{"model_type":"ernie",` + bert + `,"use_task_id":true,"task_type_vocab_size":5}`, map[string][]uint64{
			"ernie.embeddings.task_type_embeddings.weight": {5, 32}}},
		{"roc_bert without shape embeddings", `{"model_type":"roc_bert",` + bert + `,"enable_shape":false,"pronunciation_embed_dim":6}`, map[string][]uint64{
			"roc_bert.embeddings.shape_embed.weight": nil, "roc_bert.embeddings.map_inputs_layer.weight": {32, 38}}},
		{"mvp prompts", `{"model_type":"mvp","vocab_size":16,"d_model":32,"decoder_layers":2,"decoder_ffn_dim":24,"max_position_embeddings":10,
			"use_prompt":true,"prompt_length":3,"prompt_mid_dim":7}`, map[string][]uint64{
			"model.decoder.self_attn_prompt.prompt_embedding.weight": {3, 32}, "model.decoder.cross_attn_prompt.prompt_trans.2.weight": {2 * 2 * 32, 7},
			"model.decoder.embed_positions.weight": {12, 32}}},
		{"trocr sinusoidal positions, no embedding norm", `{"model_type":"trocr","vocab_size":16,"d_model":32,"decoder_layers":2,"decoder_ffn_dim":24,
			"use_learned_position_embeddings":false,"layernorm_embedding":false}`, map[string][]uint64{
			"model.decoder.embed_positions.weight": nil, "model.decoder.layernorm_embedding.weight": nil, "model.decoder.layers.1.fc1.weight": {24, 32}}},
		{"mamba biases, default time-step rank", `{"model_type":"mamba","vocab_size":16,"hidden_size":40,"num_hidden_layers":2,"state_size":4,
			"use_bias":true,"use_conv_bias":false}`, map[string][]uint64{
			"backbone.layers.1.mixer.in_proj.bias": {160}, "backbone.layers.1.mixer.out_proj.bias": {40}, "backbone.layers.1.mixer.conv1d.bias": nil,
			"backbone.layers.1.mixer.x_proj.weight": {3 + 8, 80}, "backbone.layers.1.mixer.dt_proj.weight": {80, 3}}},
		{"mamba2 without conv bias", `{"model_type":"mamba2","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_heads":4,"head_dim":16,
			"n_groups":2,"state_size":8,"use_conv_bias":false}`, map[string][]uint64{
			"backbone.layers.0.mixer.in_proj.weight": {2*64 + 2*2*8 + 4, 32}, "backbone.layers.0.mixer.conv1d.bias": nil, "backbone.layers.0.mixer.A_log": {4}}},
		{"jamba patterns, a single expert", `{"model_type":"jamba","vocab_size":16,"hidden_size":32,"num_hidden_layers":4,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"attn_layer_period":2,"attn_layer_offset":1,"num_experts":1,"mamba_dt_rank":4}`, map[string][]uint64{
			"model.layers.1.self_attn.k_proj.weight": {16, 32}, "model.layers.3.self_attn.q_proj.weight": {32, 32}, "model.layers.2.mamba.dt_proj.weight": {64, 4},
			"model.layers.1.feed_forward.router.weight": nil, "model.layers.1.feed_forward.gate_proj.weight": {24, 32}}},
		{"bamba attention layer", `{"model_type":"bamba","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,
			"intermediate_size":24,"attn_layer_indices":[1],"mamba_n_heads":4,"mamba_d_state":8}`, map[string][]uint64{
			"model.layers.1.self_attn.v_proj.weight": {16, 32}, "model.layers.1.mamba.in_proj.weight": nil, "model.layers.0.mamba.in_proj.weight": {2*64 + 2*8 + 4, 32}}},
		{"granitemoehybrid dense, no shared MLP, all mamba", `{"model_type":"granitemoehybrid","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,
			"num_attention_heads":4,"intermediate_size":24,"num_local_experts":0,"shared_intermediate_size":0,"mamba_n_heads":4,"mamba_d_state":8}`, map[string][]uint64{
			"model.layers.1.block_sparse_moe.router.layer.weight": nil, "model.layers.1.shared_mlp.input_linear.weight": nil,
			"model.layers.1.self_attn.q_proj.weight": nil, "model.layers.1.mamba.norm.weight": {64}}},
		{"lfm2 convolutions, plain FFN", `{"model_type":"lfm2","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"full_attn_idxs":[1],"block_auto_adjust_ff_dim":false,"conv_bias":true}`, map[string][]uint64{
			"model.layers.0.conv.in_proj.weight": {96, 32}, "model.layers.0.conv.conv.bias": {32}, "model.layers.0.self_attn.q_proj.weight": nil,
			"model.layers.1.self_attn.q_layernorm.weight": {8}, "model.layers.1.feed_forward.w1.weight": {24, 32}, "lm_head.weight": {16, 32}}},
		{"llava with two feature layers, no projector bias, a SigLIP tower", `{"model_type":"llava",` + llamaText + `,
			"vision_feature_layer":[-2,-5],"multimodal_projector_bias":false,
			"vision_config":{"model_type":"siglip_vision_model","hidden_size":16,"intermediate_size":20,"num_hidden_layers":2,"image_size":32,"patch_size":8}}`,
			map[string][]uint64{
				"multi_modal_projector.linear_1.weight": {32, 32}, "multi_modal_projector.linear_1.bias": nil,
				"vision_tower.vision_model.embeddings.class_embedding": nil, "vision_tower.vision_model.embeddings.position_embedding.weight": {16, 16},
				"vision_tower.vision_model.head.probe": {1, 1, 16}, "language_model.model.layers.1.mlp.up_proj.weight": {24, 32}}},
		{"llava-1.5's text_config, only what differs from LlamaConfig", `{"model_type":"llava","text_config":{"model_type":"llama","vocab_size":32064,
			"max_position_embeddings":4096},"vision_config":{"hidden_size":1024,"intermediate_size":4096,"num_hidden_layers":24,"image_size":336,"patch_size":14}}`,
			map[string][]uint64{
				"language_model.model.embed_tokens.weight": {32064, 4096}, "language_model.model.layers.31.mlp.down_proj.weight": {4096, 11008},
				"language_model.model.layers.32.mlp.down_proj.weight": nil, "multi_modal_projector.linear_1.weight": {4096, 1024},
				"vision_tower.vision_model.embeddings.position_embedding.weight": {577, 1024}}},
		{"vipllava default feature layers", `{"model_type":"vipllava",` + llamaText + `,
			"vision_config":{"model_type":"clip_vision_model","hidden_size":16,"intermediate_size":20,"num_hidden_layers":2,"image_size":32,"patch_size":8}}`,
			map[string][]uint64{"multi_modal_projector.projector_layernorm.weight": {80}, "vision_tower.vision_model.embeddings.position_embedding.weight": {17, 16}}},
		{"qwen2-vl flat config", `{"model_type":"qwen2_vl","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"vision_config":{"depth":1,"embed_dim":8,"hidden_size":32}}`, map[string][]uint64{
			"model.layers.1.self_attn.k_proj.bias": {16}, "visual.merger.mlp.2.weight": {32, 32}, "visual.blocks.0.mlp.fc1.weight": {32, 8}}},
		{"internvl RMS norms, qk norms, final norm", `{"model_type":"internvl","text_config":{"model_type":"qwen2","vocab_size":16,"hidden_size":32,
			"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24},"downsample_ratio":0.25,
			"vision_config":{"hidden_size":16,"num_hidden_layers":1,"intermediate_size":20,"image_size":[32,32],"patch_size":[8,8],
			"norm_type":"rms_norm","use_qk_norm":true,"use_mean_pooling":false,"layer_scale_init_value":0.0}}`, map[string][]uint64{
			"vision_tower.encoder.layer.0.attention.q_norm.weight": {16}, "vision_tower.encoder.layer.0.layernorm_before.bias": nil,
			"vision_tower.encoder.layer.0.lambda_1": nil, "vision_tower.layernorm.weight": {16}, "multi_modal_projector.linear_1.weight": {32, 256},
			"vision_tower.embeddings.position_embeddings": {1, 17, 16}}},
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

// TestVLMTextSpec: a vision-language model whose language model has no
// spec is not fully checked (it falls back to the structural check),
// and the reason names text_config.model_type.
func TestVLMTextSpec(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"model_type":"llava","text_config":{"model_type":"no_such_lm","vocab_size":16,"hidden_size":32}}`))
	require.NoError(t, err)
	_, err = spec.Expect(cfg)
	var ns *spec.NoSpecError
	require.True(t, errors.As(err, &ns), "%v", err)
	assert.Contains(t, err.Error(), `text_config.model_type "no_such_lm"`)
}

// TestVLMIgnoredOnLoad: what the language model's family ignores on load
// is ignored under the VLM's names too (GLM-4.5V's multi-token-prediction
// layer after the last one).
func TestVLMIgnoredOnLoad(t *testing.T) {
	cfg := []byte(`{"model_type":"glm4v_moe","torch_dtype":"bfloat16","text_config":{"model_type":"Glm4vMoe_text","vocab_size":16,"hidden_size":32,
		"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"moe_intermediate_size":6,"n_routed_experts":2,
		"n_shared_experts":1,"first_k_dense_replace":1},"vision_config":{"hidden_size":16,"depth":1,"intermediate_size":20,"out_hidden_size":32,"image_size":28}}`)
	c, err := spec.ParseConfig("config.json", cfg)
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err)
	var ts []testmodel.Tensor
	for _, e := range p.Tensors {
		ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "BF16", Shape: e.ShapeValues()})
	}
	assert.Equal(t, []uint64{16}, shapeOf(p, "model.language_model.layers.0.self_attn.k_proj.bias"))
	mtp := testmodel.Tensor{Name: "model.language_model.layers.2.eh_proj.weight", DType: "BF16", Shape: []uint64{32, 64}}
	r := checkLayout(t, cfg, append(ts, mtp))
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), "ignores on load (e.g. model.language_model.layers.2.eh_proj.weight)")
}
