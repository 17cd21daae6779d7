package spec_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

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
