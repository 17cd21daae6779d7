package spec_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		t.Run(c.name, func(t *testing.T) { assertExpected(t, c.config, c.want) })
	}
}

// TestIgnoredOnLoad: what transformers ignores on load (DeepSeek-V3's
// multi-token-prediction layer, legacy attention-mask buffers) is a
// note, not a problem, and not counted.
func TestIgnoredOnLoad(t *testing.T) {
	cfg := []byte(`{"model_type":"deepseek_v3","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24,
		"q_lora_rank":null,"kv_lora_rank":8,"qk_nope_head_dim":4,"qk_rope_head_dim":2,"v_head_dim":3,"first_k_dense_replace":1,"torch_dtype":"bfloat16"}`)
	_, ts := expectedBF16(t, cfg)
	mtp := testmodel.Tensor{Name: "model.layers.1.eh_proj.weight", DType: "BF16", Shape: []uint64{32, 64}}
	r := checkLayout(t, cfg, append(ts, mtp))
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), "note: 1 tensor that DeepSeek-V3 ignores on load (e.g. model.layers.1.eh_proj.weight): not checked, not counted")
	assert.Equal(t, r.Stored-32*64, r.Logical)

	// GPT-2 as openai-community/gpt2 stores it: the base model, without
	// "transformer.", with its attention-mask buffers.
	gcfg := []byte(`{"model_type":"gpt2","architectures":["GPT2LMHeadModel"],"vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4,"n_positions":8}`)
	_, all := expectedBF16(t, gcfg)
	ts = nil
	for _, e := range all {
		if e.Name != "lm_head.weight" {
			e.Name = strings.TrimPrefix(e.Name, "transformer.")
			ts = append(ts, e)
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
	_, all := expectedBF16(t, cfg)
	var ts []testmodel.Tensor
	for _, e := range all {
		switch {
		case strings.HasSuffix(e.Name, "experts.gate_up_proj"):
			ts = append(ts, testmodel.Tensor{Name: e.Name + "_blocks", DType: "U8", Shape: []uint64{2, 64, 1, 16}},
				testmodel.Tensor{Name: e.Name + "_scales", DType: "U8", Shape: []uint64{2, 64, 1}})
		case strings.HasSuffix(e.Name, "experts.down_proj"):
			ts = append(ts, testmodel.Tensor{Name: e.Name + "_blocks", DType: "U8", Shape: []uint64{2, 32, 1, 16}},
				testmodel.Tensor{Name: e.Name + "_scales", DType: "U8", Shape: []uint64{2, 32, 1}})
		default:
			ts = append(ts, e)
		}
	}
	r := checkLayout(t, cfg, ts)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), "4 quantization auxiliaries (mxfp4)")
}

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
		t.Run(c.name, func(t *testing.T) { assertExpected(t, c.config, c.want) })
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
	p, ts := expectedBF16(t, cfg)
	assert.Equal(t, []uint64{16}, shapeOf(p, "model.language_model.layers.0.self_attn.k_proj.bias"))
	mtp := testmodel.Tensor{Name: "model.language_model.layers.2.eh_proj.weight", DType: "BF16", Shape: []uint64{32, 64}}
	r := checkLayout(t, cfg, append(ts, mtp))
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), "ignores on load (e.g. model.language_model.layers.2.eh_proj.weight)")
}

// TestSwitchesLast flips the switches of the families of families_last.go
// that the reference layouts leave at one value: a tensor with a shape
// must be expected with it, one with nil must not be expected. The
// modules are read from transformers' modeling_*.py.
func TestSwitchesLast(t *testing.T) {
	const doge = `"vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24`
	for _, c := range []struct {
		name, config string
		want         map[string][]uint64
	}{
		{"doge cross-domain MoE, 10 experts, biases", `{"model_type":"doge",` + doge + `,"is_moe":true,"num_experts":10,"attention_bias":true,"mlp_bias":true}`,
			map[string][]uint64{
				"model.layers.1.mlp.router_gate.weight": {2 * 3, 32}, "model.layers.1.mlp.down_embed.weight": {10, 32},
				"model.layers.1.mlp.up_embed.weight": {10, 32}, "model.layers.1.mlp.gate_proj.bias": {24},
				"model.layers.0.self_attn.dt_proj.weight": {2, 16}, "model.layers.0.self_attn.dt_proj.bias": {2},
				"model.layers.0.self_attn.o_proj.bias": {32}}},
		{"doge dense", `{"model_type":"doge",` + doge + `}`, map[string][]uint64{
			"model.layers.1.mlp.router_gate.weight": nil, "model.layers.0.self_attn.dt_proj.bias": nil, "model.layers.0.self_attn.A": {2},
			"model.layers.0.self_attn.q_norm.weight": {8}}},
		{"git video: temporal embeddings", `{"model_type":"git","num_hidden_layers":1,"num_image_with_embedding":3,"vision_config":{"hidden_size":16,"num_hidden_layers":1}}`,
			map[string][]uint64{"git.img_temporal_embedding.2": {1, 1, 16}, "git.img_temporal_embedding.3": nil,
				"git.visual_projection.visual_projection.0.weight": {768, 16}}},
		{"mega batch norm, simple bias, one-way EMA, no FFN, token types", `{"model_type":"mega","hidden_size":32,"num_hidden_layers":2,"intermediate_size":24,
			"shared_representation_size":8,"normalization_type":"batchnorm","relative_positional_bias":"simple","max_positions":10,"bidirectional":false,
			"use_normalized_ffn":false,"add_token_type_embeddings":true,"add_lm_hidden_dense_layer":false,"tie_word_embeddings":false}`, map[string][]uint64{
			"mega.layers.1.mega_layer.norm.norm.weight": {32}, "mega.layers.1.mega_layer.norm.norm.running_var": {32},
			"mega.layers.1.mega_layer.norm.norm.num_batches_tracked": {}, "mega.layers.1.mega_layer.norm.norm.scalar": nil,
			"mega.layers.1.mega_layer.rel_pos_bias.rel_pos_bias": {19}, "mega.layers.1.mega_layer.rel_pos_bias.alpha": nil,
			"mega.layers.0.mega_layer.ema_gate.decay_factor": {32, 16, 1}, "mega.layers.0.nffn.fc1.weight": nil,
			"mega.embedding_layer.token_type_embeddings.weight": {2, 32}, "dense.weight": nil, "lm_head.weight": {30522, 32}}},
		{"mega rms norm without affine, cross-attention", `{"model_type":"mega","hidden_size":32,"num_hidden_layers":1,"normalization_type":"rmsnorm",
			"norm_affine":false,"add_cross_attention":true,"shared_representation_size":8}`, map[string][]uint64{
			"mega.layers.0.mega_layer.norm.norm.weight": nil, "mega.layers.0.cross_attn.q_proj.weight": {72, 32},
			"mega.layers.0.cross_attn.rel_pos_bias.b_param": {1, 8}, "mega.layers.0.nffn.norm.norm.weight": nil}},
		{"xmod two languages, adapter norm, pre-norm", `{"model_type":"xmod","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"intermediate_size":24,"languages":["de_DE","fr_XX"],"adapter_reduction_factor":4,"adapter_layer_norm":true,"pre_norm":true}`, map[string][]uint64{
			"roberta.encoder.layer.1.output.adapter_modules.de_DE.dense1.weight": {8, 32}, "roberta.encoder.layer.1.output.adapter_modules.fr_XX.dense2.bias": {32},
			"roberta.encoder.layer.1.output.adapter_modules.en_XX.dense1.weight": nil, "roberta.encoder.layer.0.output.adapter_layer_norm.weight": {32},
			"roberta.encoder.LayerNorm.bias": {32}}},
		{"xmod without languages: en_XX", `{"model_type":"xmod","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24}`,
			map[string][]uint64{"roberta.encoder.layer.0.output.adapter_modules.en_XX.dense2.weight": {32, 16},
				"roberta.encoder.layer.0.output.adapter_layer_norm.weight": nil, "roberta.encoder.LayerNorm.bias": nil}},
		{"reformer defaults: six layers, local then lsh, 64×64 axial", `{"model_type":"reformer"}`, map[string][]uint64{
			"reformer.encoder.layers.5.attention.self_attention.query_key.weight": {768, 256}, "reformer.encoder.layers.4.attention.self_attention.key.weight": {768, 256},
			"reformer.encoder.layers.6.attention.layer_norm.weight": nil, "reformer.embeddings.position_embeddings.weights.1": {1, 64, 192},
			"lm_head.decoder.weight": {320, 512}}},
		{"reformer three axial axes", `{"model_type":"reformer","attn_layers":["lsh"],"axial_pos_shape":[8,4,2],"axial_pos_embds_dim":[100,100,56],"max_position_embeddings":64}`,
			map[string][]uint64{"reformer.embeddings.position_embeddings.weights.2": {1, 1, 2, 56}, "reformer.embeddings.position_embeddings.weights.0": {8, 1, 1, 100},
				"reformer.encoder.layers.0.attention.self_attention.query.weight": nil}},
		{"reformer learned positions", `{"model_type":"reformer","attn_layers":["local"],"axial_pos_embds":false,"max_position_embeddings":100}`, map[string][]uint64{
			"reformer.embeddings.position_embeddings.embedding.weight": {100, 256}, "reformer.embeddings.position_embeddings.weights.0": nil}},
		{"xlstm fused with biases, blocks from num_hidden_layers", `{"model_type":"xlstm","vocab_size":16,"hidden_size":64,"num_hidden_layers":2,"num_heads":4,
			"weight_mode":"fused","use_bias":true,"qk_dim_factor":0.25,"ffn_proj_factor":1.3,"ffn_round_up_to_multiple_of":32}`, map[string][]uint64{
			"backbone.blocks.1.mlstm_layer.qkv_opreact.weight": {2*16 + 2*64, 64}, "backbone.blocks.1.mlstm_layer.qkv_opreact.bias": {160},
			"backbone.blocks.1.mlstm_layer.ifgate_preact.bias": {8}, "backbone.blocks.1.mlstm_layer.q.weight": nil,
			"backbone.blocks.1.ffn.proj_up_gate_z.weight": {2 * 96, 64}, "backbone.blocks.1.ffn.proj_down.bias": {64},
			"backbone.blocks.0.norm_mlstm.bias": {64}, "backbone.blocks.0.mlstm_layer.multihead_norm.bias": {64},
			"backbone.blocks.2.norm_ffn.weight": nil, "backbone.embeddings.weight": {16, 64}}},
		{"xlstm embeddings of their own width, 3 blocks", `{"model_type":"xlstm","vocab_size":16,"hidden_size":64,"embedding_dim":128,"num_blocks":3,"num_heads":4}`,
			map[string][]uint64{"backbone.embeddings.weight": {16, 128}, "backbone.blocks.2.ffn.proj_up.weight": {192, 64},
				"backbone.blocks.2.mlstm_layer.k.weight": {32, 64}, "lm_head.weight": {16, 64}}},
		{"transfo-xl one cluster width, d_embed ≠ d_model, shared r biases, untied", `{"model_type":"transfo-xl","vocab_size":100,"d_model":32,"d_embed":16,
			"n_layer":2,"n_head":4,"d_head":8,"d_inner":24,"cutoffs":[10,50],"div_val":1,"untie_r":false,"tie_word_embeddings":false,"tie_projs":[false,true,false]}`,
			map[string][]uint64{"transformer.word_emb.emb_layers.0.weight": {100, 16}, "transformer.word_emb.emb_layers.1.weight": nil,
				"transformer.word_emb.emb_projs.0": {32, 16}, "crit.out_layers.0.weight": {100, 16}, "crit.out_layers.0.bias": {100},
				"crit.out_layers.1.bias": nil, "crit.out_projs.2": {32, 16}, "crit.cluster_weight": {2, 16},
				"transformer.r_w_bias": {4, 8}, "transformer.layers.1.dec_attn.r_r_bias": nil, "transformer.pos_emb.inv_freq": {16}}},
		{"transfo-xl clusters of their own width", `{"model_type":"transfo-xl","vocab_size":100,"d_model":32,"d_embed":32,"n_layer":1,"n_head":4,"d_head":8,
			"d_inner":24,"cutoffs":[10,50],"div_val":2}`, map[string][]uint64{
			"transformer.word_emb.emb_layers.1.weight": {40, 16}, "transformer.word_emb.emb_layers.2.weight": {50, 8},
			"transformer.word_emb.emb_projs.2": {32, 8}, "crit.out_layers.2.bias": {50}, "crit.out_projs.0": {32, 32},
			"transformer.layers.0.dec_attn.r_w_bias": {4, 8}, "transformer.word_emb.emb_layers.3.weight": nil}},
	} {
		t.Run(c.name, func(t *testing.T) { assertExpected(t, c.config, c.want) })
	}
}

// assertExpected checks the plan of config against want: a tensor with a
// shape must be expected with it, one with nil must not be expected.
func assertExpected(t *testing.T, config string, want map[string][]uint64) {
	t.Helper()
	p := expectJSON(t, config)
	for name, shape := range want {
		got := shapeOf(p, name)
		if shape == nil {
			assert.Nil(t, got, "%s should not be expected", name)
		} else {
			assert.Equal(t, shape, got, name)
		}
	}
}

// expectedBF16 returns the plan of config and its tensors as a BF16
// checkpoint would store them.
func expectedBF16(t *testing.T, config []byte) (*spec.Plan, []testmodel.Tensor) {
	t.Helper()
	c, err := spec.ParseConfig("config.json", config)
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err)
	var ts []testmodel.Tensor
	for _, e := range p.Tensors {
		ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "BF16", Shape: e.ShapeValues()})
	}
	return p, ts
}
