package spec_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fsmount/fsmount/spec"
)

// TestSwitchesP1 flips the switches of the families of families_p1.go
// that the reference layouts leave at one value: a tensor with a shape
// must be expected with it, one with nil must not be expected, and those
// in optional may be absent (a shared block's later uses). The modules
// are read from transformers' modeling_*.py.
func TestSwitchesP1(t *testing.T) {
	const zamba2 = `"model_type":"zamba2","vocab_size":16,"hidden_size":32,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,
		"mamba_d_state":4,"n_mamba_heads":2,"adapter_rank":8`
	for _, c := range []struct {
		name, config string
		want         map[string][]uint64
		optional     []string
	}{
		{"zamba2 two shared blocks over four hybrid layers, attention adapters, biases", `{` + zamba2 + `,"num_hidden_layers":7,
			"layers_block_type":["mamba","hybrid","mamba","hybrid","hybrid","mamba","hybrid"],"num_mem_blocks":2,
			"use_shared_attention_adapter":true,"add_bias_linear":true}`, map[string][]uint64{
			// Layer 1 uses block 0 (adapters 0 and 2), layer 3 block 1 (1 and 3).
			"model.layers.1.shared_transformer.feed_forward.gate_up_proj_adapter_list.0.0.weight": {8, 32},
			"model.layers.1.shared_transformer.feed_forward.gate_up_proj_adapter_list.2.1.weight": {48, 8},
			"model.layers.1.shared_transformer.feed_forward.gate_up_proj_adapter_list.1.0.weight": nil,
			"model.layers.3.shared_transformer.feed_forward.gate_up_proj_adapter_list.3.0.weight": {8, 32},
			"model.layers.3.shared_transformer.feed_forward.gate_up_proj_adapter_list.0.0.weight": nil,
			"model.layers.3.shared_transformer.self_attn.linear_k_adapter_list.3.1.weight":        {64, 8},
			"model.layers.1.shared_transformer.self_attn.linear_q_adapter_list.2.0.weight":        {8, 64},
			"model.layers.1.shared_transformer.self_attn.k_proj.weight":                           {32, 64},
			"model.layers.1.shared_transformer.self_attn.o_proj.weight":                           {32, 64},
			"model.layers.1.shared_transformer.input_layernorm.weight":                            {64},
			"model.layers.1.shared_transformer.feed_forward.down_proj.bias":                       {32},
			"model.layers.0.mamba.in_proj.bias":                                                   {2*64 + 2*4 + 2},
			"model.layers.6.mamba_decoder.mamba.out_proj.bias":                                    {32},
			"model.layers.6.linear.weight":                                                        {32, 32},
			"model.layers.5.linear.weight":                                                        nil,
		}, []string{"model.layers.4.shared_transformer.self_attn.q_proj.weight", "model.layers.6.shared_transformer.feed_forward.down_proj.weight",
			"model.layers.6.shared_transformer.feed_forward.gate_up_proj_adapter_list.3.1.weight", "lm_head.weight"}},
		{"zamba2 default pattern: 54 layers, hybrid at 6…42, 47, 51", `{` + zamba2 + `}`, map[string][]uint64{
			"model.layers.6.shared_transformer.feed_forward.gate_up_proj_adapter_list.8.1.weight": {48, 8},
			"model.layers.6.shared_transformer.self_attn.linear_q_adapter_list.0.0.weight":        nil,
			"model.layers.6.shared_transformer.feed_forward.gate_up_proj.weight":                  {48, 32},
			"model.layers.47.linear.weight":                                                       {32, 32},
			"model.layers.51.mamba_decoder.input_layernorm.weight":                                {32},
			"model.layers.48.linear.weight":                                                       nil,
			"model.layers.53.mamba.in_proj.weight":                                                {2*64 + 2*4 + 2, 32},
			"model.layers.54.mamba.in_proj.weight":                                                nil,
			"model.layers.0.mamba.in_proj.bias":                                                   nil,
			"model.layers.0.mamba.conv1d.bias":                                                    {64 + 8},
		}, []string{"model.layers.51.shared_transformer.pre_ff_layernorm.weight"}},
		{"gemma3n text: kv sharing, one intermediate_size, biases, two AltUp streams, untied", `{"model_type":"gemma3n_text","vocab_size":16,
			"hidden_size":32,"num_hidden_layers":6,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"intermediate_size":24,
			"vocab_size_per_layer_input":12,"hidden_size_per_layer_input":4,"laurel_rank":3,"altup_num_inputs":2,"num_kv_shared_layers":2,
			"attention_bias":true,"tie_word_embeddings":false}`, map[string][]uint64{
			"model.language_model.layers.3.self_attn.k_proj.weight":                 {16, 32},
			"model.language_model.layers.3.self_attn.k_proj.bias":                   {16},
			"model.language_model.layers.5.self_attn.o_proj.bias":                   {32},
			"model.language_model.layers.5.mlp.down_proj.weight":                    {32, 24},
			"model.language_model.layers.5.altup.prediction_coefs.weight":           {4, 2},
			"model.language_model.altup_projections.0.weight":                       {32, 32},
			"model.language_model.altup_projections.1.weight":                       nil,
			"model.language_model.embed_tokens_per_layer.weight":                    {12, 24},
			"model.language_model.per_layer_model.language_model_projection.weight": {24, 32},
			"model.language_model.layers.2.laurel.linear_left.weight":               {3, 32},
			"model.language_model.layers.2.self_attn.v_norm.weight":                 nil,
			"lm_head.weight": {16, 32},
		}, []string{"model.language_model.layers.4.self_attn.k_proj.weight", "model.language_model.layers.5.self_attn.v_proj.bias",
			"model.language_model.layers.5.self_attn.k_norm.weight"}},
		{"gemma3n text: an intermediate_size per layer", `{"model_type":"gemma3n_text","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,
			"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"intermediate_size":[24,40]}`, map[string][]uint64{
			"model.language_model.layers.0.mlp.gate_proj.weight": {24, 32}, "model.language_model.layers.1.mlp.up_proj.weight": {40, 32},
			"model.language_model.layers.1.self_attn.k_proj.weight": {16, 32}, "model.language_model.altup_projections.2.weight": {32, 32}}, nil},
		{"chameleon: two VQ-GAN levels, attention at 32 px, double latent, biases, tied", `{"model_type":"chameleon","vocab_size":16,"hidden_size":32,
			"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"attention_bias":true,"mlp_bias":true,
			"tie_word_embeddings":true,"vq_config":{"base_channels":32,"channel_multiplier":[1,2],"num_res_blocks":2,"resolution":64,
			"attn_resolutions":[32],"double_latent":true,"latent_channels":8,"embed_dim":4,"num_embeddings":10}}`, map[string][]uint64{
			"model.vqmodel.encoder.down.1.attn.1.q.weight":             {64, 64, 1, 1},
			"model.vqmodel.encoder.down.1.attn.0.norm.bias":            {64},
			"model.vqmodel.encoder.down.0.attn.0.q.weight":             nil,
			"model.vqmodel.encoder.down.0.downsample.conv.weight":      {32, 32, 3, 3},
			"model.vqmodel.encoder.down.1.downsample.conv.weight":      nil,
			"model.vqmodel.encoder.down.1.block.0.nin_shortcut.weight": {64, 32, 1, 1},
			"model.vqmodel.encoder.down.1.block.1.nin_shortcut.weight": nil,
			"model.vqmodel.encoder.down.0.block.0.nin_shortcut.weight": nil,
			"model.vqmodel.encoder.down.2.block.0.conv1.weight":        nil,
			"model.vqmodel.encoder.mid.attn_1.proj_out.weight":         {64, 64, 1, 1},
			"model.vqmodel.encoder.conv_out.weight":                    {16, 64, 3, 3},
			"model.vqmodel.quant_conv.weight":                          {4, 8, 1, 1},
			"model.vqmodel.quantize.embedding.weight":                  {10, 4},
			"model.layers.1.self_attn.k_norm.bias":                     {2, 8},
			"model.layers.1.self_attn.o_proj.bias":                     {32},
			"model.layers.1.mlp.up_proj.bias":                          {24},
		}, []string{"lm_head.weight"}},
		{"chameleon: VQ-GAN without attention", `{"model_type":"chameleon","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,
			"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"vq_config":{"attn_type":"none","attn_resolutions":[32]}}`,
			map[string][]uint64{"model.vqmodel.encoder.mid.attn_1.q.weight": nil, "model.vqmodel.encoder.down.4.attn.0.q.weight": nil,
				"model.vqmodel.encoder.down.4.block.1.conv2.weight": {512, 512, 3, 3}, "model.vqmodel.encoder.down.3.downsample.conv.bias": {256},
				"lm_head.weight": {16, 32}}, nil},
		{"emu3: two levels, no attention, double latent, temporal factor 8", `{"model_type":"emu3","text_config":{"vocab_size":16,"hidden_size":32,
			"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24},"vq_config":{"base_channels":32,
			"channel_multiplier":[1,2],"num_res_blocks":1,"attn_resolutions":[],"double_latent":true,"latent_channels":8,"embed_dim":6,
			"codebook_size":10,"temporal_downsample_factor":8,"hidden_size":16,"out_channels":1}}`, map[string][]uint64{
			"vqmodel.encoder.down_block.down.1.attn.0.q_proj.weight":    nil,
			"vqmodel.encoder.middle_block.attn_1.q_proj.weight":         {16, 16},
			"vqmodel.encoder.conv_out.weight":                           {16, 64, 3, 3},
			"vqmodel.encoder.time_conv.2.conv.conv.weight":              {16, 16, 4, 3, 3},
			"vqmodel.encoder.time_conv.3.conv.conv.weight":              nil,
			"vqmodel.encoder.time_res_stack.0.norm2.running_var":        {16},
			"vqmodel.encoder.time_res_stack.1.norm2.running_var":        nil,
			"vqmodel.decoder.time_conv.2.conv.conv.weight":              {8, 8, 3, 3, 3},
			"vqmodel.decoder.conv_in.weight":                            {64, 8, 3, 3},
			"vqmodel.decoder.up_block.up.0.block.1.conv1.weight":        {32, 32, 3, 3},
			"vqmodel.decoder.up_block.up.0.block.0.nin_shortcut.weight": {32, 64, 1, 1},
			"vqmodel.decoder.up_block.up.1.block.0.nin_shortcut.weight": nil,
			"vqmodel.decoder.up_block.up.1.upsample.conv.weight":        {64, 64, 3, 3},
			"vqmodel.decoder.up_block.up.0.upsample.conv.weight":        nil,
			"vqmodel.decoder.up_block.up.1.block.1.norm2.conv_y.weight": {64, 6, 1, 1},
			"vqmodel.decoder.conv_out.weight":                           {1, 32, 3, 3},
			"vqmodel.quant_conv.conv.weight":                            {6, 8, 3, 1, 1},
			"vqmodel.quantize.embedding.weight":                         {10, 6},
			"text_model.model.layers.0.self_attn.k_proj.weight":         {16, 32},
			"text_model.lm_head.weight":                                 {16, 32},
		}, nil},
		{"emu3: attention at levels 0 and 1", `{"model_type":"emu3","text_config":{"vocab_size":16,"hidden_size":32,"num_hidden_layers":1,
			"num_attention_heads":8,"intermediate_size":24},"vq_config":{"channel_multiplier":[1,2],"attn_resolutions":[0,1],"hidden_size":16}}`,
			map[string][]uint64{"vqmodel.encoder.down_block.down.0.attn.1.out_proj.bias": {16}, "vqmodel.encoder.down_block.down.1.attn_norms.1.weight": {512},
				"vqmodel.decoder.up_block.up.0.attn.2.v_proj.weight": {16, 16}, "vqmodel.decoder.up_block.up.1.attn_norms.2.conv_b.weight": {512, 4, 1, 1},
				"text_model.model.layers.0.self_attn.k_proj.weight": {32, 32}}, nil},
		{"evolla: adapters every 4th of 8 layers, absolute protein positions, embedding norm, out projection without bias", `{"model_type":"evolla",
			"vocab_size":16,"hidden_size":32,"num_hidden_layers":8,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,
			"aligner_num_add_layers":2,"aligner_enable_bias":false,"aligner_ffn_mult":2,"resampler_depth":1,"resampler_heads":2,"resampler_dim_head":4,
			"resampler_num_latents":3,"protein_encoder_config":{"hidden_size":16,"num_hidden_layers":2,"num_attention_heads":2,"intermediate_size":20,
			"max_position_embeddings":10,"position_embedding_type":"absolute","emb_layer_norm_before":true}}`, map[string][]uint64{
			"model.layers.3.adapter.query.bias":                                                     {32},
			"model.layers.7.adapter.ff.fc1.weight":                                                  {64, 32},
			"model.layers.7.adapter.out_proj.bias":                                                  nil,
			"model.layers.2.adapter.query.weight":                                                   nil,
			"model.layers.7.adapter.gate_ffw":                                                       {1},
			"model.layers.0.self_attn.k_proj.weight":                                                {16, 32},
			"model.protein_encoder.model.embeddings.position_embeddings.weight":                     {10, 16},
			"model.protein_encoder.model.embeddings.layer_norm.bias":                                {16},
			"model.protein_encoder.model.encoder.layer.1.attention.self.rotary_embeddings.inv_freq": nil,
			"model.protein_encoder.model.rotary_embeddings.inv_freq":                                nil,
			"model.protein_encoder.model.encoder.layer.1.intermediate.dense.weight":                 {20, 16},
			"model.protein_encoder.sequence_compressor_resampler.layers.0.0.to_kv.weight":           {16, 16},
			"model.protein_encoder.sequence_compressor_resampler.layers.0.1.fc2.weight":             {16, 64},
			"model.protein_encoder.sequence_compressor_resampler.layers.1.1.fc2.weight":             nil,
			"model.protein_encoder.sequence_compressor_resampler.latents":                           {3, 16},
			"model.protein_encoder.sequence_compressor_resampler.protein_projector.weight":          {32, 16},
		}, nil},
		{"evolla: relative-key protein positions", `{"model_type":"evolla","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":8,
			"intermediate_size":24,"protein_encoder_config":{"hidden_size":16,"num_hidden_layers":1,"num_attention_heads":2,"max_position_embeddings":10,
			"position_embedding_type":"relative_key"}}`, map[string][]uint64{
			"model.protein_encoder.model.encoder.layer.0.attention.self.distance_embedding.weight": {19, 8},
			"model.protein_encoder.model.embeddings.position_embeddings.weight":                    nil,
			"model.layers.0.adapter.out_proj.bias":                                                 {32}}, nil},
		{"florence2: two DaViT stages, prenorm first, MLP ratio 2.5, qkv without bias, untied", `{"model_type":"florence2","tie_word_embeddings":false,
			"text_config":{"model_type":"bart","vocab_size":16,"d_model":32,"encoder_layers":1,"decoder_layers":2,"encoder_ffn_dim":24,"decoder_ffn_dim":40,
			"max_position_embeddings":10},"vision_config":{"depths":[2,1],"embed_dim":[8,16],"patch_size":[5,3],"patch_prenorm":[true,false],
			"mlp_ratio":2.5,"qkv_bias":false,"projection_dim":32,"max_position_embeddings":6,"max_temporal_embeddings":4,"in_channels":1}}`, map[string][]uint64{
			"model.vision_tower.convs.0.conv.weight":                                 {8, 1, 5, 5},
			"model.vision_tower.convs.0.norm.weight":                                 {1},
			"model.vision_tower.convs.1.conv.weight":                                 {16, 8, 3, 3},
			"model.vision_tower.convs.1.norm.bias":                                   {16},
			"model.vision_tower.blocks.0.1.spatial_block.ffn.fc1.weight":             {20, 8},
			"model.vision_tower.blocks.0.1.channel_block.channel_attn.qkv.bias":      nil,
			"model.vision_tower.blocks.0.1.channel_block.channel_attn.qkv.weight":    {24, 8},
			"model.vision_tower.blocks.1.1.spatial_block.conv1.weight":               nil,
			"model.vision_tower.blocks.1.0.channel_block.ffn.fc2.weight":             {16, 40},
			"model.multi_modal_projector.image_projection.weight":                    {32, 16},
			"model.multi_modal_projector.image_position_embed.row_embeddings.weight": {6, 8},
			"model.multi_modal_projector.visual_temporal_embed.pos_idx_to_embed":     {4, 16},
			"model.language_model.encoder.layers.0.fc1.weight":                       {24, 32},
			"model.language_model.encoder.layers.0.encoder_attn.q_proj.weight":       nil,
			"model.language_model.decoder.layers.1.encoder_attn.k_proj.bias":         {32},
			"model.language_model.decoder.layers.1.fc2.weight":                       {32, 40},
			"model.language_model.decoder.embed_positions.weight":                    {12, 32},
			"lm_head.weight": {16, 32},
		}, nil},
		{"blt: encoder cross-attending every layer, no patcher, GQA, token projection, three hashed n-gram sizes × 2 functions", `{"model_type":"blt",
			"vocab_size":16,"encoder_hash_byte_group_size":[3,4,5],"encoder_hash_byte_group_vocab":10,"encoder_hash_byte_group_nb_functions":2,
			"patch_in_forward":false,"encoder_config":{"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,
			"intermediate_size":24,"cross_attn_all_layers":true,"vocab_size":20},"decoder_config":{"hidden_size":16,"num_hidden_layers":2,
			"num_attention_heads":2,"intermediate_size":8,"cross_attn_all_layers":false,"hidden_size_global":48},
			"global_config":{"hidden_size":48,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":40}}`, map[string][]uint64{
			"model.encoder_hash_tok_embedding.weight":                    {60, 32},
			"model.local_encoder.embed_tokens.weight":                    {20, 32},
			"model.local_encoder.cross_attn_layers.1.k_proj.weight":      {16, 32},
			"model.local_encoder.layers.1.self_attn.v_proj.weight":       {16, 32},
			"model.local_encoder.patch_embedding_projection.weight":      {64, 32},
			"model.global_transformer.token_embedding_projection.weight": {48, 64},
			"model.global_transformer.layers.0.mlp.up_proj.weight":       {40, 48},
			"model.local_decoder.cross_attn_layers.0.q_norm.weight":      {16},
			"model.local_decoder.cross_attn_layers.1.q_norm.weight":      nil,
			"model.local_decoder.patch_embedding_projection.weight":      {32, 48},
			"model.patcher.layers.0.self_attn.q_proj.weight":             nil,
			"model.patcher.lm_head.weight":                               nil,
			"lm_head.weight":                                             {16, 16},
		}, nil},
		{"blt defaults: 1/9/25/14 layers, no token projection", `{"model_type":"blt"}`, map[string][]uint64{
			"model.local_decoder.layers.8.mlp.down_proj.weight":          {1024, 2816},
			"model.local_decoder.cross_attn_layers.8.o_proj.weight":      {1024, 1024},
			"model.global_transformer.layers.24.self_attn.q_proj.weight": {2048, 2048},
			"model.patcher.layers.13.mlp.gate_proj.weight":               {2048, 768},
			"model.local_encoder.cross_attn_layers.1.q_proj.weight":      nil,
			"model.global_transformer.token_embedding_projection.weight": nil,
			"model.encoder_hash_tok_embedding.weight":                    {3000012, 1024},
		}, nil},
		// The config classes' defaults alone: the full-size models.
		{"gemma3n text defaults: 35 layers, the last 15 kv-shared", `{"model_type":"gemma3n_text"}`, map[string][]uint64{
			"model.language_model.layers.34.mlp.gate_proj.weight":    {16384, 2048},
			"model.language_model.embed_tokens_per_layer.weight":     {262144, 35 * 256},
			"model.language_model.layers.19.self_attn.k_proj.weight": {512, 2048},
			"model.language_model.layers.35.self_attn.q_proj.weight": nil,
		}, []string{"model.language_model.layers.20.self_attn.k_proj.weight"}},
		{"emu3 defaults", `{"model_type":"emu3"}`, map[string][]uint64{
			"text_model.model.layers.31.self_attn.k_proj.weight": {1024, 4096},
			"text_model.model.embed_tokens.weight":               {184622, 4096},
			"vqmodel.decoder.up_block.up.3.attn.2.q_proj.weight": {1024, 1024},
			"vqmodel.quantize.embedding.weight":                  {32768, 4},
		}, nil},
		{"evolla defaults: adapters every 4th of 32 layers, 33 SaProt layers", `{"model_type":"evolla"}`, map[string][]uint64{
			"model.layers.3.adapter.query.weight":                                        {4096, 4096},
			"model.layers.4.adapter.query.weight":                                        nil,
			"model.layers.31.adapter.gate_ffw":                                           {1},
			"model.protein_encoder.model.encoder.layer.32.output.dense.weight":           {1280, 5120},
			"model.protein_encoder.sequence_compressor_resampler.layers.5.0.to_q.weight": {512, 1280},
		}, nil},
		{"florence2 defaults: 12+12 BART layers, DaViT 1/1/9/1", `{"model_type":"florence2"}`, map[string][]uint64{
			"model.language_model.decoder.layers.11.encoder_attn.v_proj.weight": {1024, 1024},
			"model.vision_tower.blocks.2.8.channel_block.ffn.fc1.weight":        {2048, 512},
			"model.vision_tower.blocks.2.9.channel_block.ffn.fc1.weight":        nil,
		}, []string{"lm_head.weight"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := expectJSON(t, c.config)
			for name, shape := range c.want {
				got := shapeOf(p, name)
				if shape == nil {
					assert.Nil(t, got, "%s should not be expected", name)
				} else {
					assert.Equal(t, shape, got, name)
					assert.False(t, optionalIn(p, name), "%s should be required", name)
				}
			}
			for _, name := range c.optional {
				assert.NotNil(t, shapeOf(p, name), name)
				assert.True(t, optionalIn(p, name), "%s should be optional", name)
			}
		})
	}
}

func optionalIn(p *spec.Plan, name string) bool {
	for _, e := range p.Tensors {
		if e.Name == name {
			return e.Optional
		}
	}
	return false
}
