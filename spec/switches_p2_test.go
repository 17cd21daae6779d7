package spec_test

import (
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/spec"
)

// TestSwitchesP2 flips the switches of the families of families_p2.go that
// the reference layouts leave at one value: a tensor with a shape must be
// expected with it, one with nil must not be expected. The expected
// modules are read from transformers' modeling_*.py (IdeficsModel,
// JanusVQVAE, Kosmos2TextBlock, UdopStack, Phi4MultimodalAudioModel,
// VisionEncoderDecoderModel).
func TestSwitchesP2(t *testing.T) {
	const idefics = `{"model_type":"idefics","vocab_size":100,"hidden_size":64,"num_hidden_layers":8,"num_attention_heads":4,"intermediate_size":96,
		"vision_config":{"embed_dim":32,"num_hidden_layers":2,"intermediate_size":48,"image_size":28,"patch_size":14}`
	const janusText = `"text_config":{"model_type":"llama","vocab_size":100,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":96}`
	for _, c := range []struct {
		name, config string
		want         map[string][]uint64
	}{
		{"idefics as released: resampler, 2 extra tokens, a cross layer every 4", idefics + `,"use_resampler":true,"additional_vocab_size":2,"cross_layer_interval":4,
			"perceiver_config":{"resampler_depth":2,"resampler_n_latents":16,"resampler_n_heads":2,"resampler_head_dim":8}}`, map[string][]uint64{
			"model.perceiver_resampler.latents": {16, 32}, "model.perceiver_resampler.blocks.1.0.q_proj.weight": {16, 32},
			"model.perceiver_resampler.blocks.1.0.output_proj.weight": {32, 16}, "model.perceiver_resampler.blocks.1.1.fc.weight": {128, 32},
			"model.perceiver_resampler.blocks.1.0.q_layer_norm.weight": nil, "model.perceiver_resampler.blocks.2.0.q_proj.weight": nil,
			"model.perceiver_resampler.layer_norm.bias":                {32},
			"model.gated_cross_attn_layers.1.cross_attn.k_proj.weight": {64, 32}, "model.gated_cross_attn_layers.2.cross_attn.k_proj.weight": nil,
			"model.embed_tokens.additional_embedding.weight": {2, 64}, "lm_head.additional_fc.weight": {2, 64},
			"model.gated_cross_attn_layers.0.alpha_dense": {1}}},
		{"idefics 80b: q/k norms, vector gates, perceiver q/k norms", idefics + `,"use_resampler":true,"qk_layer_norms":true,"alpha_type":"vector",
			"perceiver_config":{"resampler_depth":1,"qk_layer_norms_perceiver":true}}`, map[string][]uint64{
			"model.gated_cross_attn_layers.7.cross_attn.q_layer_norm.weight": {16}, "model.gated_cross_attn_layers.7.alpha_cross_attn": {1, 1, 64},
			"model.perceiver_resampler.blocks.0.0.k_layer_norm.bias": {96}, "model.layers.0.self_attn.q_layer_norm.weight": nil,
			"model.embed_tokens.additional_embedding.weight": nil}},
		{"janus: three resolutions, one res block, q/k norms, deeper aligners, double latent", `{"model_type":"janus",` + janusText + `,
			"vision_config":{"hidden_size":32,"num_hidden_layers":1,"image_size":32,"patch_size":16,"mlp_ratio":2.5,"use_qk_norm":true,"depth":3,"projection_dim":24},
			"vq_config":{"channel_multiplier":[1,2,4],"num_res_blocks":1,"base_channels":32,"latent_channels":8,"embed_dim":4,"num_embeddings":10,
			"num_hidden_layers":1,"projection_dim":12,"image_token_embed_dim":64,"double_latent":true}}`, map[string][]uint64{
			"model.vision_model.encoder.layers.0.mlp.fc1.weight": {80, 32}, "model.vision_model.encoder.layers.0.self_attn.q_norm.bias": {32},
			"model.aligner.hidden_layers.1.weight": {24, 24}, "model.generation_aligner.hidden_layers.0.weight": nil,
			"model.vqmodel.encoder.down.1.block.0.nin_shortcut.weight": {64, 32, 1, 1}, "model.vqmodel.encoder.down.1.block.1.conv1.weight": nil,
			"model.vqmodel.encoder.down.2.attn.0.q.weight": {128, 128, 1, 1}, "model.vqmodel.encoder.down.2.downsample.conv.weight": nil,
			"model.vqmodel.encoder.down.1.downsample.conv.weight": {64, 64, 3, 3}, "model.vqmodel.encoder.conv_out.weight": {16, 128, 3, 3},
			"model.vqmodel.decoder.up.0.block.1.conv2.weight": {128, 128, 3, 3}, "model.vqmodel.decoder.up.0.attn.1.proj_out.weight": {128, 128, 1, 1},
			"model.vqmodel.decoder.up.1.block.0.nin_shortcut.weight": {64, 128, 1, 1}, "model.vqmodel.decoder.up.2.upsample.conv.weight": nil,
			"model.vqmodel.decoder.conv_out.weight": {3, 32, 3, 3}, "model.vqmodel.quantize.embedding.weight": {10, 4},
			"model.generation_head.proj_out.weight": {12, 64}, "model.generation_head.vision_head.weight": {10, 12}}},
		{"kosmos-2 text with cross-attention, untied", `{"model_type":"kosmos-2","text_config":{"vocab_size":100,"embed_dim":64,"layers":2,"attention_heads":4,
			"ffn_dim":96,"add_cross_attention":true,"tie_word_embeddings":false},"vision_config":{"hidden_size":32,"num_hidden_layers":1,"intermediate_size":48,
			"image_size":28,"patch_size":14},"latent_query_num":8}`, map[string][]uint64{
			"text_model.model.layers.1.encoder_attn.k_proj.weight": {64, 64}, "text_model.model.layers.1.encoder_attn_layer_norm.bias": {64},
			"text_model.model.layers.1.encoder_attn.inner_attn_ln.weight": nil, "text_model.model.layers.1.self_attn.inner_attn_ln.weight": {64},
			"image_to_text_projection.latent_query": {8, 64}, "vision_model.model.embeddings.position_embedding.weight": {5, 32}}},
		{"kosmos-2.5 vision heads of their own width (d_kv)", `{"model_type":"kosmos-2.5","text_config":{"embed_dim":64,"layers":1,"attention_heads":4,"ffn_dim":96},
			"vision_config":{"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":2,"head_dim":8,"intermediate_size":40,"max_num_patches":16}}`, map[string][]uint64{
			"vision_model.encoder.layer.0.attention.query.weight": {16, 32}, "vision_model.encoder.layer.0.attention.output.weight": {32, 16},
			"vision_model.embeddings.row_embedder.weight": {16, 32}, "text_model.model.segment_emb.weight": {2, 64}, "image_to_text_projection.latent_query": {2048, 64}}},
		{"udop gated FFN, prefix buckets, its own decoder depth", `{"model_type":"udop","vocab_size":100,"d_model":64,"d_kv":8,"d_ff":96,"num_layers":2,
			"num_decoder_layers":3,"num_heads":4,"feed_forward_proj":"gated-gelu","relative_bias_args":[{"type":"1d"},{"type":"horizontal","prefix_bucket":true},
			{"type":"vertical","relative_attention_num_buckets":16},{"type":"1d"}]}`, map[string][]uint64{
			"encoder.block.1.layer.1.DenseReluDense.wi_0.weight": {96, 64}, "encoder.block.1.layer.1.DenseReluDense.wi.weight": nil,
			"decoder.block.2.layer.2.DenseReluDense.wi_1.weight": {96, 64}, "decoder.block.3.layer.0.SelfAttention.q.weight": nil,
			"encoder.relative_bias.biases.1.relative_attention_bias.weight": {34, 4}, "decoder.relative_bias.biases.2.relative_attention_bias.weight": {16, 4},
			"encoder.relative_bias.biases.3.relative_attention_bias.weight": nil, "encoder.relative_bias.biases.0.relative_attention_bias.weight": nil,
			"decoder.block.0.layer.1.EncDecAttention.k.weight": {32, 64}}},
		{"udop without relative_bias_args: 1d, horizontal, vertical", `{"model_type":"udop","d_model":64,"num_layers":1,"num_heads":4}`, map[string][]uint64{
			"encoder.relative_bias.biases.2.relative_attention_bias.weight": {32, 4}, "encoder.relative_bias.biases.3.relative_attention_bias.weight": nil,
			"decoder.block.0.layer.2.DenseReluDense.wi.weight": {4096, 64}}},
		{"phi4-multimodal audio: time reduction 4, symmetric bias, depthwise ×2, downsampled", `{"model_type":"phi4_multimodal","vocab_size":100,"hidden_size":64,
			"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":96,"vision_config":{"hidden_size":32,"num_hidden_layers":1,"intermediate_size":48},
			"audio_config":{"hidden_size":32,"num_blocks":2,"num_attention_heads":2,"intermediate_size":40,"time_reduction":4,"nemo_conv_channels":16,"input_size":81,
			"bias_symmetric":true,"bias_max_distance":50,"depthwise_multiplier":2,"downsample_rate":3,"ext_pw_out_channel":24,"depthwise_seperable_out_channel":20}}`,
			map[string][]uint64{
				"model.embed_tokens_extend.audio_embed.encoder.embed.conv.0.weight": {16, 1, 3, 3}, "model.embed_tokens_extend.audio_embed.encoder.embed.conv.2.weight": {16, 1, 3, 3},
				"model.embed_tokens_extend.audio_embed.encoder.embed.conv.3.weight": {16, 16, 1, 1}, "model.embed_tokens_extend.audio_embed.encoder.embed.conv.5.weight": nil,
				"model.embed_tokens_extend.audio_embed.encoder.embed.out.weight":                                 {32, 16 * 21},
				"model.embed_tokens_extend.audio_embed.encoder.relative_attention_bias_layer.bias_values.weight": {50, 2},
				"model.embed_tokens_extend.audio_embed.encoder.encoders.1.conv.dw_sep_conv_1d.dw_conv.weight":    {64, 1, 3},
				"model.embed_tokens_extend.audio_embed.encoder.encoders.1.conv.dw_sep_conv_1d.pw_conv.weight":    {20, 64, 1},
				"model.embed_tokens_extend.audio_embed.encoder.encoders.1.conv.glu.ext_pw_conv_1d.weight":        {48, 32, 1},
				"model.embed_tokens_extend.audio_embed.up_proj_for_speech.weight":                                {64, 96},
				"model.embed_tokens_extend.image_embed.img_processor.head.probe":                                 {1, 1, 32},
				"model.layers.0.self_attn.qkv_proj.weight":                                                       {(4 + 2*2) * 16, 64}}},
		{"phi4-multimodal audio: one subsampling stage (time reduction 2)", `{"model_type":"phi4_multimodal","num_hidden_layers":1,
			"audio_config":{"num_blocks":1,"time_reduction":2}}`, map[string][]uint64{
			"model.embed_tokens_extend.audio_embed.encoder.embed.conv.0.weight": {1024, 1, 3, 3},
			"model.embed_tokens_extend.audio_embed.encoder.embed.conv.2.weight": nil,
			"model.embed_tokens_extend.audio_embed.encoder.embed.out.weight":    {1024, 1024 * 40}}},
		{"vision-encoder-decoder: DeiT into a BERT decoder of the same width", `{"model_type":"vision-encoder-decoder",
			"encoder":{"model_type":"deit","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":96,"image_size":32,"patch_size":16},
			"decoder":{"model_type":"bert","vocab_size":100,"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":96,
			"add_cross_attention":true,"is_decoder":true}}`, map[string][]uint64{
			"encoder.embeddings.distillation_token": {1, 1, 64}, "encoder.embeddings.position_embeddings": {1, 6, 64},
			"encoder.pooler.dense.weight": {64, 64}, "decoder.bert.encoder.layer.1.crossattention.self.key.weight": {64, 64},
			"enc_to_dec_proj.weight": nil}},
		{"vision-encoder-decoder: Donut (a Donut-Swin encoder, an mBART decoder)", `{"model_type":"vision-encoder-decoder",
			"encoder":{"model_type":"donut-swin","embed_dim":32,"depths":[1,3],"num_heads":[2,4],"window_size":4,"image_size":[64,48]},
			"decoder":{"model_type":"mbart","vocab_size":100,"d_model":48,"decoder_layers":1,"decoder_attention_heads":4,"decoder_ffn_dim":96,
			"max_position_embeddings":20}}`, map[string][]uint64{
			"encoder.embeddings.patch_embeddings.projection.weight": {32, 3, 4, 4}, "encoder.embeddings.norm.weight": {32},
			"encoder.embeddings.position_embeddings":                                        nil,
			"encoder.encoder.layers.0.blocks.0.attention.self.relative_position_bias_table": {49, 2},
			"encoder.encoder.layers.0.blocks.0.attention.self.relative_position_index":      {16, 16},
			"encoder.encoder.layers.0.blocks.1.attention.self.query.weight":                 nil,
			"encoder.encoder.layers.0.downsample.reduction.weight":                          {64, 128}, "encoder.encoder.layers.0.downsample.norm.bias": {128},
			"encoder.encoder.layers.1.blocks.2.intermediate.dense.weight":                   {256, 64},
			"encoder.encoder.layers.1.blocks.2.attention.self.relative_position_bias_table": {49, 4},
			"encoder.encoder.layers.1.downsample.reduction.weight":                          nil, "encoder.layernorm.weight": nil,
			"enc_to_dec_proj.weight": {48, 64}, "decoder.model.decoder.layers.0.encoder_attn.k_proj.weight": {48, 48}}},
		{"vision-encoder-decoder: a Swin encoder (final LayerNorm), default stages", `{"model_type":"vision-encoder-decoder",
			"encoder":{"model_type":"swin"},"decoder":{"model_type":"gpt2","vocab_size":100,"n_embd":768,"n_layer":1,"n_head":12,"add_cross_attention":true}}`,
			map[string][]uint64{"encoder.encoder.layers.2.blocks.5.attention.self.relative_position_bias_table": {169, 12},
				"encoder.encoder.layers.3.blocks.1.output.dense.weight": {768, 3072}, "encoder.layernorm.weight": {768},
				"encoder.encoder.layers.3.downsample.reduction.weight": nil, "enc_to_dec_proj.weight": nil}},
		{"vision-encoder-decoder: TrOCR-base (cross-attention reads the ViT's 768)", `{"model_type":"vision-encoder-decoder",
			"encoder":{"model_type":"vit","num_hidden_layers":1,"qkv_bias":false},
			"decoder":{"model_type":"trocr","vocab_size":100,"d_model":1024,"decoder_layers":1,"decoder_attention_heads":16,"decoder_ffn_dim":96,
			"cross_attention_hidden_size":768}}`, map[string][]uint64{
			"decoder.model.decoder.layers.0.encoder_attn.k_proj.weight": {1024, 768}, "decoder.model.decoder.layers.0.encoder_attn.q_proj.weight": {1024, 1024},
			"encoder.encoder.layer.0.attention.attention.query.bias": nil, "encoder.embeddings.position_embeddings": {1, 197, 768},
			"enc_to_dec_proj.weight": nil}},
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

// TestVisionEncoderDecoderParts: an encoder or decoder without a spec is
// named as the reason there is no full check.
func TestVisionEncoderDecoderParts(t *testing.T) {
	for _, c := range []struct{ config, reason string }{
		{`{"model_type":"vision-encoder-decoder","encoder":{"model_type":"beit"},"decoder":{"model_type":"mbart"}}`, `encoder.model_type "beit"`},
		{`{"model_type":"vision-encoder-decoder","encoder":{"model_type":"vit"},"decoder":{"model_type":"llava"}}`, `decoder.model_type "llava"`},
	} {
		cfg, err := spec.ParseConfig("config.json", []byte(c.config))
		require.NoError(t, err)
		_, err = spec.Expect(cfg)
		var ns *spec.NoSpecError
		require.ErrorAs(t, err, &ns)
		assert.Contains(t, ns.Reason, c.reason)
	}
}

// TestAbsurdP2: the counts the p2 families read from config.json (a
// VQ-GAN's residual blocks and resolutions, UDOP's bias list, IDEFICS's
// cross-layer interval) cannot ask for an enormous expected set: the
// config is refused at once with a ConfigError.
func TestAbsurdP2(t *testing.T) {
	many := strings.Repeat("1,", 4000) + "1"
	biases := strings.Repeat(`{"type":"vertical"},`, 5000) + `{"type":"1d"}`
	for _, c := range []struct{ name, config string }{
		{"janus: a million residual blocks", `{"model_type":"janus","vq_config":{"num_res_blocks":1000000}}`},
		{"janus: 4001 resolutions", `{"model_type":"janus","vq_config":{"channel_multiplier":[` + many + `]}}`},
		{"janus: a negative channel multiplier", `{"model_type":"janus","vq_config":{"channel_multiplier":[1,-2]}}`},
		{"udop: 5001 relative biases", `{"model_type":"udop","num_layers":1,"relative_bias_args":[` + biases + `]}`},
		{"udop: a negative bucket count", `{"model_type":"udop","num_layers":1,"relative_bias_args":[{"type":"vertical","relative_attention_num_buckets":-40}]}`},
		{"idefics: cross_layer_interval 0", `{"model_type":"idefics","num_hidden_layers":2,"cross_layer_interval":0}`},
		{"janus: no resolution", `{"model_type":"janus","vq_config":{"channel_multiplier":[]}}`},
		{"phi4: time reduction 2^20", `{"model_type":"phi4_multimodal","num_hidden_layers":1,"audio_config":{"time_reduction":1048576}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := spec.ParseConfig("config.json", []byte(c.config))
			require.NoError(t, err)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = spec.Expect(cfg)
			runtime.ReadMemStats(&after)
			var ce *spec.ConfigError
			require.ErrorAs(t, err, &ce, "%v", err)
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "bytes allocated")
			t.Log(err)
		})
	}
}

// TestSubConfigDefaultsP2: the a/ configs of these architectures are their
// classes' defaults (but for capped layer counts), sub-configs included
// (Phi-4-multimodal's and VisionEncoderDecoder's hand-made bases keep
// their sub-configs' defaults too): deleting any one field of a
// sub-config (vision_config, vq_config, perceiver_config, text_config,
// audio_config, encoder, decoder) must not change the expected set. This
// checks the sub-config classes' defaults the families hold, which
// TestLayoutDefaults (top-level fields only) does not reach.
func TestSubConfigDefaultsP2(t *testing.T) {
	want := map[string]bool{"idefics": true, "janus": true, "kosmos-2": true, "kosmos-2.5": true, "phi4_multimodal": true, "vision-encoder-decoder": true}
	for _, l := range readLayouts(t) {
		if l.Variant != "a" || !want[l.Arch] {
			continue
		}
		var fields map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(l.Config, &fields))
		base := plannedSet(t, l.Config)
		for sub, raw := range fields {
			var inner map[string]json.RawMessage
			if json.Unmarshal(raw, &inner) != nil {
				continue
			}
			for k := range inner {
				// A composition's decoder has add_cross_attention set by
				// from_encoder_decoder_configs, not by its class default.
				if capped[k] || k == "model_type" || sub == "decoder" && k == "add_cross_attention" {
					continue
				}
				edited := map[string]json.RawMessage{}
				for k2, v := range inner {
					if k2 != k {
						edited[k2] = v
					}
				}
				top := map[string]json.RawMessage{}
				for k2, v := range fields {
					top[k2] = v
				}
				top[sub], _ = json.Marshal(edited)
				cfg, _ := json.Marshal(top)
				assert.Equal(t, base, plannedSet(t, cfg), "%s: without %s.%s the expected set changes", l.Arch, sub, k)
			}
		}
	}
}
