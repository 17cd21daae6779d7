package spec

// GPT-2 and the decoders of its lineage: transformer.h.{l} (or
// gpt_neox.layers, transformer.blocks), layer norms with biases, fused or
// separate attention projections, plain MLPs, learned or no position
// embeddings. Their configs use GPT-2's field names (n_embd, n_layer,
// n_head) or their own.

// gpt2Dims are GPT-2's field names: n_inner absent or null is 4·H.
func gpt2Dims(layers, inner string) []Def {
	d := withDefault(dims("vocab_size", "n_embd", "n_layer", "n_head", "n_inner"), "I", inner)
	return cat(withDefault(d, "L", layers), []Def{derived("d", "H/heads")})
}

// positions is a learned position embedding [P, H].
func positions(name, field, def string) ([]Def, []T) {
	return []Def{{Sym: "P", Field: field, Default: def, Legend: "P", Desc: "positions (learned embedding rows)", Show: true, Pos: true}},
		[]T{{Name: name, Shape: []string{"P", "H"}, Role: RoleEmbedding}}
}

// conv1d is GPT-2's Conv1D: a weight stored [in, out] and a bias [out].
func conv1d(name, in, out string) []T {
	return []T{{Name: name + ".weight", Shape: []string{in, out}, Role: RoleConv1D}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

var (
	gpt2Pos, gpt2PosT = positions("transformer.wpe.weight", "n_positions", "1024")
	neoPos, neoPosT   = positions("transformer.wpe.weight", "max_position_embeddings", "2048")
)

// old GPT-2-style checkpoints carry the attention masks as buffers.
var gptBuffers = []string{`^(transformer\.)?h\.\d+\.attn\.(masked_)?bias$`, `^(transformer\.)?h\.\d+\.attn\.attention\.(masked_)?bias$`}

var _ = register(
	&Family{Name: "GPT-2", Class: "GPT2", ModelTypes: []string{"gpt2"}, Causal: "GPT2LMHeadModel",
		Defs: cat(gpt2Dims("12", "4*H"), gpt2Pos, []Def{tie("true"),
			flag("cross", "add_cross_attention", "false", "each layer has cross-attention to an encoder")}),
		Global: cat(embed("transformer.wte.weight"), gpt2PosT),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
			norm("ln_1", "H", "true"), conv1d("attn.c_attn", "H", "3*H"), conv1d("attn.c_proj", "H", "H"),
			// add_cross_attention (a VisionEncoderDecoder's decoder): K and V
			// fused, Q apart.
			when("cross", conv1d("crossattention.c_attn", "H", "2*H"), conv1d("crossattention.q_attn", "H", "H"),
				conv1d("crossattention.c_proj", "H", "H"), norm("ln_cross_attn", "H", "true")),
			norm("ln_2", "H", "true"), conv1d("mlp.c_fc", "H", "I"), conv1d("mlp.c_proj", "I", "H"))}},
		Final: cat(norm("transformer.ln_f", "H", "true"), lmHead("lm_head.weight")),
		Embed: "transformer.wte.weight", Ignore: gptBuffers, BasePrefix: "transformer."},
	// GPT-BigCode (StarCoder 1, SantaCoder): Linear layers, multi-query
	// attention by default.
	&Family{Name: "GPT-BigCode", Class: "GPTBigCode", ModelTypes: []string{"gpt_bigcode"},
		Defs: cat(gpt2Dims("12", "4*H"), gpt2Pos, []Def{tie("true"),
			flag("mq", "multi_query", "true", "one key/value head for all query heads")}),
		Global: cat(embed("transformer.wte.weight"), gpt2PosT),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
			norm("ln_1", "H", "true"), linear("attn.c_attn", "mq ? H+2*d : 3*H", "H", "true"), linear("attn.c_proj", "H", "H", "true"),
			norm("ln_2", "H", "true"), plainMLP("mlp.c_fc", "mlp.c_proj", "I", "true"))}},
		Final: cat(norm("transformer.ln_f", "H", "true"), lmHead("lm_head.weight")),
		Embed: "transformer.wte.weight", BasePrefix: "transformer."},
	&Family{Name: "GPT-Neo", Class: "GPTNeo", ModelTypes: []string{"gpt_neo"},
		Defs: cat(withDefault(dims("vocab_size", "hidden_size", "num_layers", "num_heads", "intermediate_size"), "I", "4*H"), neoPos,
			[]Def{derived("d", "H/heads"), tie("true")}),
		Global: cat(embed("transformer.wte.weight"), neoPosT),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
			norm("ln_1", "H", "true"), linear("attn.attention.q_proj", "H", "H", ""), linear("attn.attention.k_proj", "H", "H", ""),
			linear("attn.attention.v_proj", "H", "H", ""), linear("attn.attention.out_proj", "H", "H", "true"),
			norm("ln_2", "H", "true"), plainMLP("mlp.c_fc", "mlp.c_proj", "I", "true"))}},
		Final: cat(norm("transformer.ln_f", "H", "true"), lmHead("lm_head.weight")),
		Embed: "transformer.wte.weight", Ignore: gptBuffers, BasePrefix: "transformer."},
	&Family{Name: "GPT-NeoX", Class: "GPTNeoX", ModelTypes: []string{"gpt_neox"},
		Defs: cat(llamaDimsNoHD("heads", "heads")[:5], []Def{derived("kv", "heads"), llamaDimsNoHD("heads", "heads")[6], tie("false"),
			flag("attention_bias", "attention_bias", "true", "query_key_value and dense have biases"),
			flag("parallel", "use_parallel_residual", "true", "attention and MLP in parallel")}),
		Global: embed("gpt_neox.embed_in.weight"),
		Stacks: []Stack{{Prefix: "gpt_neox.layers.{l}.", Layers: "L", Tensors: cat(
			norm("input_layernorm", "H", "true"), norm("post_attention_layernorm", "H", "true"),
			linear("attention.query_key_value", "3*H", "H", "attention_bias"), linear("attention.dense", "H", "H", "attention_bias"),
			plainMLP("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "I", "true"))}},
		Final: cat(norm("gpt_neox.final_layer_norm", "H", "true"), lmHead("embed_out.weight")),
		Embed: "gpt_neox.embed_in.weight", Head: "embed_out.weight", BasePrefix: "gpt_neox.",
		Ignore: []string{`^gpt_neox\.layers\.\d+\.attention\.(bias|masked_bias|rotary_emb\.inv_freq)$`}},
	&Family{Name: "GPT-J", Class: "GPTJ", ModelTypes: []string{"gptj"},
		Defs:   cat(gpt2Dims("28", "4*H"), []Def{tie("false")}),
		Global: embed("transformer.wte.weight"),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
			norm("ln_1", "H", "true"), linear("attn.q_proj", "H", "H", ""), linear("attn.k_proj", "H", "H", ""), linear("attn.v_proj", "H", "H", ""),
			linear("attn.out_proj", "H", "H", ""), plainMLP("mlp.fc_in", "mlp.fc_out", "I", "true"))}},
		Final: cat(norm("transformer.ln_f", "H", "true"), lmHead("lm_head.weight"), []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal"}}),
		Embed: "transformer.wte.weight", BasePrefix: "transformer.",
		Ignore: []string{`^(transformer\.)?h\.\d+\.attn\.(masked_)?bias$`}},
	&Family{Name: "CodeGen", Class: "CodeGen", ModelTypes: []string{"codegen"}, SeqCls: "-",
		Defs:   cat(gpt2Dims("28", "4*H"), []Def{tie("false")}),
		Global: embed("transformer.wte.weight"),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
			norm("ln_1", "H", "true"), linear("attn.qkv_proj", "3*H", "H", ""), linear("attn.out_proj", "H", "H", ""),
			plainMLP("mlp.fc_in", "mlp.fc_out", "I", "true"))}},
		Final: cat(norm("transformer.ln_f", "H", "true"), lmHead("lm_head.weight"), []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal"}}),
		Embed: "transformer.wte.weight", BasePrefix: "transformer.",
		Ignore: []string{`^(transformer\.)?h\.\d+\.attn\.(causal_mask|masked_bias)$`}},
	&Family{Name: "BLOOM", Class: "Bloom", ModelTypes: []string{"bloom"},
		Defs: []Def{
			{Sym: "V", Field: "vocab_size", Default: "250880", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "hidden_size|n_embed", Default: "64", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
			{Sym: "L", Field: "n_layer|num_hidden_layers", Default: "2", Legend: "L", Desc: "transformer blocks", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "n_head|num_attention_heads", Default: "8", Desc: "attention heads", Show: true, Pos: true},
			derived("I", "4*H"), tie("true")},
		Global: cat(embed("transformer.word_embeddings.weight"), norm("transformer.word_embeddings_layernorm", "H", "true")),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
			norm("input_layernorm", "H", "true"), linear("self_attention.query_key_value", "3*H", "H", "true"), linear("self_attention.dense", "H", "H", "true"),
			norm("post_attention_layernorm", "H", "true"), plainMLP("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "I", "true"))}},
		Final: cat(norm("transformer.ln_f", "H", "true"), lmHead("lm_head.weight")),
		Embed: "transformer.word_embeddings.weight", BasePrefix: "transformer."},
	// Falcon: multi-query or grouped (new_decoder_architecture) fused
	// qkv; one or two norms per block as parallel_attn and
	// num_ln_in_parallel_attn say.
	&Family{Name: "Falcon", Class: "Falcon", ModelTypes: []string{"falcon"},
		Defs: cat(withDefault(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "ffn_hidden_size"), "I", "4*H"), []Def{
			derived("d", "H/heads"),
			flag("new_arch", "new_decoder_architecture", "false", "grouped kv heads, two norms"),
			flag("mq", "multi_query", "true", "one key/value head (old architecture)"),
			{Sym: "kv", Field: "num_kv_heads", Default: "heads", Null: "heads", Desc: "kv heads (new architecture)", Pos: true},
			flag("parallel", "parallel_attn", "true", "attention and MLP in parallel"),
			{Sym: "nln", Field: "num_ln_in_parallel_attn", Default: "new_arch ? 2 : 1", Null: "new_arch ? 2 : 1", Desc: "norms of a parallel block"},
			flag("bias", "bias", "false", "linear layers have biases"), tie("true")}),
		Global: embed("transformer.word_embeddings.weight"),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
			when("!parallel || nln != 2", norm("input_layernorm", "H", "true")),
			when("parallel && nln == 2", norm("ln_attn", "H", "true"), norm("ln_mlp", "H", "true")),
			when("!parallel", norm("post_attention_layernorm", "H", "true")),
			linear("self_attention.query_key_value", "new_arch ? (heads+2*kv)*d : (mq ? H+2*d : 3*H)", "H", "bias"),
			linear("self_attention.dense", "H", "H", "bias"),
			plainMLP("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "I", "bias"))}},
		Final: cat(norm("transformer.ln_f", "H", "true"), lmHead("lm_head.weight")),
		Embed: "transformer.word_embeddings.weight", BasePrefix: "transformer."},
	&Family{Name: "MPT", Class: "Mpt", ModelTypes: []string{"mpt"},
		Defs: cat(dims("vocab_size", "d_model", "n_layers", "n_heads", "")[:4], []Def{
			field("ratio", "expansion_ratio", "4", "MLP width / d_model"), derived("I", "ratio*H"),
			flag("no_bias", "no_bias", "true", "no biases"), tie("true")}),
		Global: embed("transformer.wte.weight"),
		Stacks: []Stack{{Prefix: "transformer.blocks.{l}.", Layers: "L", Tensors: cat(
			norm("norm_1", "H", "!no_bias"), linear("attn.Wqkv", "3*H", "H", "!no_bias"), linear("attn.out_proj", "H", "H", "!no_bias"),
			norm("norm_2", "H", "!no_bias"), plainMLP("ffn.up_proj", "ffn.down_proj", "I", "!no_bias"))}},
		Final: cat(norm("transformer.norm_f", "H", "!no_bias"), lmHead("lm_head.weight")),
		Embed: "transformer.wte.weight", BasePrefix: "transformer."},
)

// bartLike is the decoder layer of OPT, BioGPT and XGLM: self_attn with
// biases, its layer norm, fc1/fc2 and the final layer norm.
func bartLike(bias, affine string) []T {
	ln := func(name string) []T {
		return when(affine, norm(name, "H", "true"))
	}
	return cat(linear("self_attn.q_proj", "H", "H", bias), linear("self_attn.k_proj", "H", "H", bias), linear("self_attn.v_proj", "H", "H", bias),
		linear("self_attn.out_proj", "H", "H", bias), ln("self_attn_layer_norm"),
		plainMLP("fc1", "fc2", "I", bias), ln("final_layer_norm"))
}

var _ = register(
	// OPT: embeddings of word_embed_proj_dim projected in and out when it
	// differs from hidden_size; learned positions with an offset of 2.
	&Family{Name: "OPT", Class: "OPT", ModelTypes: []string{"opt"},
		Defs: cat(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "ffn_dim"), []Def{
			{Sym: "W", Field: "word_embed_proj_dim", Default: "H", Null: "H", Legend: "W", Desc: "embedding width", Show: true, Pos: true},
			{Sym: "P", Field: "max_position_embeddings", Default: "2048", Legend: "P", Desc: "positions (learned, + 2 offset rows)", Show: true, Pos: true},
			flag("bias", "enable_bias", "true", "linear layers have biases"),
			flag("affine", "layer_norm_elementwise_affine", "true", "layer norms have weights and biases"),
			flag("ln_before", "do_layer_norm_before", "true", "pre-norm (and a final layer norm)"),
			flag("no_final", "_remove_final_layer_norm", "false", "the final layer norm is removed"),
			tie("true")}),
		Global: cat([]T{{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "W"}, Role: RoleEmbedding},
			{Name: "model.decoder.embed_positions.weight", Shape: []string{"P+2", "H"}, Role: RoleEmbedding}},
			when("W != H", linear("model.decoder.project_in", "H", "W", ""), linear("model.decoder.project_out", "W", "H", ""))),
		Stacks: []Stack{{Prefix: "model.decoder.layers.{l}.", Layers: "L", Tensors: bartLike("bias", "affine")}},
		Final: cat(when("affine && ln_before && !no_final", norm("model.decoder.final_layer_norm", "H", "true")),
			[]T{{Name: "lm_head.weight", Shape: []string{"V", "W"}, Role: RoleHead, If: "causal", Optional: "tied"},
				{Name: "score.weight", Shape: []string{"C", "W"}, Role: RoleScore, If: "seqcls"}}),
		Embed: "model.decoder.embed_tokens.weight", BasePrefix: "model."},
	&Family{Name: "OpenAI-GPT", Class: "OpenAIGPT", ModelTypes: []string{"openai-gpt"}, Causal: "OpenAIGPTLMHeadModel",
		Defs:   cat(gpt2Dims("12", "4*H"), []Def{{Sym: "P", Field: "n_positions", Default: "512", Legend: "P", Desc: "positions (learned embedding rows)", Show: true, Pos: true}, tie("true")}),
		Global: cat(embed("transformer.tokens_embed.weight"), []T{{Name: "transformer.positions_embed.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding}}),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
			conv1d("attn.c_attn", "H", "3*H"), conv1d("attn.c_proj", "H", "H"), norm("ln_1", "H", "true"),
			conv1d("mlp.c_fc", "H", "I"), conv1d("mlp.c_proj", "I", "H"), norm("ln_2", "H", "true"))}},
		Final: lmHead("lm_head.weight"),
		Embed: "transformer.tokens_embed.weight", BasePrefix: "transformer.", Ignore: gptBuffers},
	&Family{Name: "CTRL", Class: "CTRL", ModelTypes: []string{"ctrl"}, Causal: "CTRLLMHeadModel", SeqCls: "-",
		Defs:   cat(gpt2Dims("48", "8192")[:4], []Def{field("I", "dff", "8192", "FFN inner width"), derived("d", "H/heads"), tie("true")}),
		Global: embed("transformer.w.weight"),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
			linear("multi_head_attention.Wq", "H", "H", "true"), linear("multi_head_attention.Wk", "H", "H", "true"),
			linear("multi_head_attention.Wv", "H", "H", "true"), linear("multi_head_attention.dense", "H", "H", "true"),
			linear("ffn.0", "I", "H", "true"), linear("ffn.2", "H", "I", "true"),
			norm("layernorm1", "H", "true"), norm("layernorm2", "H", "true"))}},
		Final: cat(norm("transformer.layernorm", "H", "true"), lmHead("lm_head.weight"), []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal"}}),
		Embed: "transformer.w.weight", BasePrefix: "transformer."},
	&Family{Name: "BioGPT", Class: "BioGpt", ModelTypes: []string{"biogpt"},
		Defs: cat(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"), []Def{
			{Sym: "P", Field: "max_position_embeddings", Default: "1024", Legend: "P", Desc: "positions (learned, + 2 offset rows)", Show: true, Pos: true}, tie("true")}),
		Global: cat(embed("biogpt.embed_tokens.weight"), []T{{Name: "biogpt.embed_positions.weight", Shape: []string{"P+2", "H"}, Role: RoleEmbedding}}),
		Stacks: []Stack{{Prefix: "biogpt.layers.{l}.", Layers: "L", Tensors: bartLike("true", "true")}},
		Final:  cat(norm("biogpt.layer_norm", "H", "true"), lmHead("output_projection.weight")),
		Embed:  "biogpt.embed_tokens.weight", Head: "output_projection.weight", BasePrefix: "biogpt."},
	&Family{Name: "XGLM", Class: "XGLM", ModelTypes: []string{"xglm"}, SeqCls: "-",
		Defs:       cat(dims("vocab_size", "d_model", "num_layers", "attention_heads", "ffn_dim"), []Def{tie("true")}),
		Global:     embed("model.embed_tokens.weight"),
		Stacks:     []Stack{{Prefix: "model.layers.{l}.", Layers: "L", Tensors: bartLike("true", "true")}},
		Final:      cat(norm("model.layer_norm", "H", "true"), lmHead("lm_head.weight")),
		BasePrefix: "model.", Ignore: []string{`^model\.embed_positions\.weights$`}},
	// GPT-NeoX-Japanese: the last layer's attention alone has a bias.
	&Family{Name: "GPT-NeoX-Japanese", Class: "GPTNeoXJapanese", ModelTypes: []string{"gpt_neox_japanese"}, SeqCls: "-",
		Defs: cat(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "")[:4], []Def{
			field("mult", "intermediate_multiple_size", "4", "MLP width / hidden_size"), derived("I", "mult*H"), tie("true")}),
		Global: embed("gpt_neox_japanese.embed_in.weight"),
		Stacks: []Stack{{Prefix: "gpt_neox_japanese.layers.{l}.", Layers: "L", Tensors: cat(
			norm("input_layernorm", "H", "true"), norm("post_attention_layernorm", "H", "true"),
			linear("attention.query_key_value", "3*H", "H", ""), linear("attention.dense", "H", "H", ""),
			[]T{{Name: "attention.dense_bias", Shape: []string{"H"}, Role: RoleBias, If: "l == L-1"}},
			plainMLP("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "I", ""))}},
		Final: cat(norm("gpt_neox_japanese.final_layer_norm", "H", "true"), lmHead("embed_out.weight")),
		Embed: "gpt_neox_japanese.embed_in.weight", Head: "embed_out.weight", BasePrefix: "gpt_neox_japanese.",
		Ignore: []string{`\.attention\.(rotary_emb\.inv_freq|bias|masked_bias)$`}},
)
