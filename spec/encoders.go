package spec

import (
	"encoding/json"
	"slices"
	"strconv"
)

// Encoder models: BERT, RoBERTa and their kin, and other masked or
// permutation LMs.

// bertHead is BERT's cls.predictions: a transform (dense H → E, LayerNorm
// E) and the decoder [V, E] tied to the word embeddings, its bias apart.
func bertHead(E string) []T {
	return cat(
		[]T{{Name: "cls.predictions.bias", Shape: []string{"V"}, Role: RoleBias}},
		linear("cls.predictions.transform.dense", E, "H", "true"), norm("cls.predictions.transform.LayerNorm", E, "true"),
		[]T{{Name: "cls.predictions.decoder.weight", Shape: []string{"V", E}, Role: RoleHead, Optional: "tied"},
			// The decoder's bias is cls.predictions.bias; transformers 5.x
			// also writes it under the decoder when the head is untied.
			{Name: "cls.predictions.decoder.bias", Shape: []string{"V"}, Role: RoleBias, If: "tf5 && !tied"}},
	)
}

// robertaHead is RoBERTa's lm_head: dense, layer_norm, the decoder tied to
// the word embeddings and its bias (saved once, as lm_head.bias).
func robertaHead() []T {
	return cat(
		[]T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias}},
		linear("lm_head.dense", "H", "H", "true"), norm("lm_head.layer_norm", "H", "true"),
		[]T{{Name: "lm_head.decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "lm_head.decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}},
	)
}

// bertLike is a family of the BERT layout: base is the base model's
// attribute ("bert", "roberta"), causal the LM class.
func bertLike(name, class, mt, causal, base string, defs []Def, global, layer, final []T, head string) *Family {
	if !slices.ContainsFunc(defs, func(d Def) bool { return d.Sym == "tied" }) {
		defs = cat(defs, []Def{tie("true")})
	}
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: causal, SeqCls: "-",
		Defs:   defs,
		Global: global,
		Stacks: []Stack{{Prefix: base + ".encoder.layer.{l}.", Layers: "L", Tensors: layer}},
		Final:  final,
		Embed:  base + ".embeddings.word_embeddings.weight", Head: head,
	}
}

// roberta is a RoBERTa-layout family (RoBERTa, XLM-R, CamemBERT,
// Data2VecText) under base.
func roberta(name, class, mt, base string, defs []Def) *Family {
	return bertLike(name, class, mt, class+HeadCausalLM, base, cat(defs, relPos),
		bertEmbeddings(base+".embeddings.", "H", true, true), postLN, robertaHead(), "lm_head.decoder.weight")
}

var bertHeadName = "cls.predictions.decoder.weight"

// vecs are vectors [dim] with the given names (a norm written as a list
// element: layer_norm1.{l}.weight, .bias).
func vecs(dim string, names ...string) []T {
	var out []T
	for _, n := range names {
		out = append(out, T{Name: n, Shape: []string{dim}, Role: RoleNorm})
	}
	return out
}

// xlnetT is an XLNet parameter: checkpoints keep the relative-attention
// tensors in float32 whatever the rest, so dtypes are not held here.
func xlnetT(name string, shape ...string) T {
	return T{Name: name, Shape: shape, Role: RoleLinear, AnyDType: true}
}

// anyDType marks tensors whose dtype is not held to config.json's.
func anyDType(ts []T) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		out[i].AnyDType = true
	}
	return out
}

// megaNorm is Mega's MegaSequenceNorm under pre ("mega_layer.norm."): the
// normalization_type's module, its parameters only when norm_affine, a
// batch norm's running statistics always.
func megaNorm(pre string) []T {
	return cat(
		when("affine && ntype == 'scalenorm'", []T{{Name: pre + "norm.scalar", Shape: []string{"1"}, Role: RoleNorm}}),
		when("affine && ntype != 'scalenorm'", norm(pre+"norm", "H", "ntype != 'rmsnorm'")),
		when("ntype == 'batchnorm' || ntype == 'syncbatchnorm'",
			[]T{{Name: pre + "norm.running_mean", Shape: []string{"H"}, Role: RoleNorm, AnyDType: true},
				{Name: pre + "norm.running_var", Shape: []string{"H"}, Role: RoleNorm, AnyDType: true},
				{Name: pre + "norm.num_batches_tracked", Shape: []string{}, Role: RoleNorm, AnyDType: true}}),
	)
}

// megaRelPos is a Mega attention's relative-position bias under pre.
func megaRelPos(pre string) []T {
	return cat(
		when("relpos == 'simple'", []T{{Name: pre + "rel_pos_bias.rel_pos_bias", Shape: []string{"2*P-1"}, Role: RoleEmbedding}}),
		when("relpos == 'rotary'", []T{{Name: pre + "rel_pos_bias.alpha", Shape: []string{"1", "Z"}, Role: RoleEmbedding},
			{Name: pre + "rel_pos_bias.b_param", Shape: []string{"1", "Z"}, Role: RoleEmbedding},
			{Name: pre + "rel_pos_bias._float_tensor", Shape: []string{"1"}, Role: RoleNorm, AnyDType: true}}),
	)
}

// xmodAdapter is an X-MOD bottleneck adapter named by {e}, one per entry
// of each (a list expression).
func xmodAdapter(each, cond string) []T {
	ts := cat(linear("output.adapter_modules.{e}.dense1", "H/red", "H", "true"), linear("output.adapter_modules.{e}.dense2", "H", "H/red", "true"))
	for i := range ts {
		ts[i].Each, ts[i].If = each, cond
	}
	return ts
}

var _ = register(
	bertLike("BERT", "Bert", "bert", "BertLMHeadModel", "bert", cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos),
		bertEmbeddings("bert.embeddings.", "H", true, true), postLN, bertHead("H"), bertHeadName),
	bertLike("ERNIE", "Ernie", "ernie", "ErnieForCausalLM", "ernie",
		cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
			flag("task_id", "use_task_id", "false", "task-type embeddings"),
			{Sym: "TT", Field: "task_type_vocab_size", Default: "3", Desc: "task types", Pos: true}}),
		cat(bertEmbeddings("ernie.embeddings.", "H", true, true),
			[]T{{Name: "ernie.embeddings.task_type_embeddings.weight", Shape: []string{"TT", "H"}, Role: RoleEmbedding, If: "task_id"}}),
		postLN, bertHead("H"), bertHeadName),
	// BigBird: use_bias switches the query, key and value biases.
	bertLike("BigBird", "BigBird", "big_bird", "BigBirdForCausalLM", "bert", cat(bertDefs("50358", "768", "12", "3072", "4096", "2"), noRelPos,
		[]Def{flag("qkv_bias", "use_bias", "true", "query, key and value have biases")}),
		bertEmbeddings("bert.embeddings.", "H", true, true), biasIf(postLN, "qkv_bias", "self.query.bias", "self.key.bias", "self.value.bias"), cat(linear("bert.pooler", "H", "H", "true"), bertHead("H")), bertHeadName),
	bertLike("Megatron-BERT", "MegatronBert", "megatron-bert", "MegatronBertForCausalLM", "bert", cat(bertDefs("29056", "1024", "16", "4096", "512", "2"), relPos),
		bertEmbeddings("bert.embeddings.", "H", true, false), megatronLN, cat(norm("bert.encoder.ln", "H", "true"), bertHead("H")), bertHeadName),
	bertLike("BertGeneration", "BertGeneration", "bert-generation", "BertGenerationDecoder", "bert", cat(bertDefs("50358", "1024", "16", "4096", "512", "2"), relPos),
		bertEmbeddings("bert.embeddings.", "H", false, true), postLN,
		[]T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias},
			{Name: "lm_head.decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "lm_head.decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}},
		"lm_head.decoder.weight"),
	// ELECTRA: embeddings of embedding_size E, projected to H when they differ.
	bertLike("ELECTRA", "Electra", "electra", "ElectraForCausalLM", "electra",
		cat(bertDefs("30522", "256", "4", "1024", "512", "2"), relPos,
			[]Def{{Sym: "E", Field: "embedding_size", Default: "128", Legend: "E", Desc: "embedding width", Show: true, Pos: true}}),
		cat(bertEmbeddings("electra.embeddings.", "E", true, true), when("E != H", linear("electra.embeddings_project", "H", "E", "true"))),
		postLN,
		cat(linear("generator_predictions.dense", "E", "H", "true"), norm("generator_predictions.LayerNorm", "E", "true"),
			[]T{{Name: "generator_lm_head.weight", Shape: []string{"V", "E"}, Role: RoleHead, Optional: "tied"},
				{Name: "generator_lm_head.bias", Shape: []string{"V"}, Role: RoleBias}}),
		"generator_lm_head.weight"),
	// RemBERT: input embeddings of E, mapped to H; output embeddings of O, untied.
	bertLike("RemBERT", "RemBert", "rembert", "RemBertForCausalLM", "rembert",
		cat(bertDefs("250300", "1152", "18", "4608", "512", "2"), noRelPos, []Def{
			{Sym: "E", Field: "input_embedding_size", Default: "256", Legend: "E", Desc: "input embedding width", Show: true, Pos: true},
			{Sym: "O", Field: "output_embedding_size", Default: "1664", Legend: "O", Desc: "output embedding width", Show: true, Pos: true},
			tie("false")}),
		cat(bertEmbeddings("rembert.embeddings.", "E", true, true), linear("rembert.encoder.embedding_hidden_mapping_in", "H", "E", "true")),
		postLN,
		cat(linear("cls.predictions.dense", "O", "H", "true"), norm("cls.predictions.LayerNorm", "O", "true"),
			[]T{{Name: "cls.predictions.decoder.weight", Shape: []string{"V", "O"}, Role: RoleHead, Optional: "tied && O == E"},
				{Name: "cls.predictions.decoder.bias", Shape: []string{"V"}, Role: RoleBias}}),
		bertHeadName),
	// RoCBERT: pronunciation and shape embeddings, mapped into H.
	bertLike("RoCBert", "RoCBert", "roc_bert", "RoCBertForCausalLM", "roc_bert",
		cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
			flag("pron", "enable_pronunciation", "true", "pronunciation embeddings"),
			flag("shape", "enable_shape", "true", "glyph-shape embeddings"),
			{Sym: "PV", Field: "pronunciation_vocab_size", Default: "910", Pos: true},
			{Sym: "PD", Field: "pronunciation_embed_dim", Default: "768", Pos: true},
			{Sym: "SV", Field: "shape_vocab_size", Default: "24858", Pos: true},
			{Sym: "SD", Field: "shape_embed_dim", Default: "512", Pos: true},
			flag("concat", "concat_input", "true", "the embeddings are concatenated and mapped into H")}),
		// Both tables are built whatever enable_* says (the switches only
		// decide whether forward uses them); map_inputs_layer exists
		// with concat_input, its input the enabled tables' widths.
		cat(bertEmbeddings("roc_bert.embeddings.", "H", true, true),
			[]T{{Name: "roc_bert.embeddings.pronunciation_embed.weight", Shape: []string{"PV", "PD"}, Role: RoleEmbedding},
				{Name: "roc_bert.embeddings.shape_embed.weight", Shape: []string{"SV", "SD"}, Role: RoleEmbedding}},
			when("concat", linear("roc_bert.embeddings.map_inputs_layer", "H", "H+(pron ? PD : 0)+(shape ? SD : 0)", "true"))),
		postLN, bertHead("H"), bertHeadName),
	// RoFormer: no position embeddings; rotary tables [P, d] are written.
	bertLike("RoFormer", "RoFormer", "roformer", "RoFormerForCausalLM", "roformer",
		cat(bertDefs("50000", "768", "12", "3072", "1536", "2"), noRelPos,
			[]Def{{Sym: "E", Field: "embedding_size", Default: "H", Null: "H", Legend: "E", Desc: "embedding width", Show: true, Pos: true}}),
		cat([]T{{Name: "roformer.embeddings.word_embeddings.weight", Shape: []string{"V", "E"}, Role: RoleEmbedding},
			{Name: "roformer.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "E"}, Role: RoleEmbedding}},
			norm("roformer.embeddings.LayerNorm", "E", "true"),
			when("E != H", linear("roformer.embeddings_project", "H", "E", "true")),
			[]T{{Name: "roformer.encoder.embed_positions.weight", Shape: []string{"P", "d"}, Role: RoleEmbedding}}),
		postLN, bertHead("E"), bertHeadName),
	roberta("RoBERTa", "Roberta", "roberta", "roberta", bertDefs("50265", "768", "12", "3072", "512", "2")),
	roberta("XLM-RoBERTa", "XLMRoberta", "xlm-roberta", "roberta", bertDefs("30522", "768", "12", "3072", "512", "2")),
	roberta("CamemBERT", "Camembert", "camembert", "roberta", bertDefs("30522", "768", "12", "3072", "512", "2")),
	roberta("Data2VecText", "Data2VecText", "data2vec-text", "data2vec_text", bertDefs("30522", "768", "12", "3072", "512", "2")),
	bertLike("RoBERTa-PreLayerNorm", "RobertaPreLayerNorm", "roberta-prelayernorm", "RobertaPreLayerNormForCausalLM", "roberta_prelayernorm",
		cat(bertDefs("50265", "768", "12", "3072", "512", "2"), relPos),
		bertEmbeddings("roberta_prelayernorm.embeddings.", "H", true, true), robertaPreLN,
		cat(norm("roberta_prelayernorm.LayerNorm", "H", "true"), robertaHead()), "lm_head.decoder.weight"),
	bertLike("XLM-RoBERTa-XL", "XLMRobertaXL", "xlm-roberta-xl", "XLMRobertaXLForCausalLM", "roberta",
		cat(bertDefs("250880", "2560", "32", "10240", "514", "1"), relPos),
		bertEmbeddings("roberta.embeddings.", "H", true, false), xlLN,
		cat(norm("roberta.encoder.LayerNorm", "H", "true"), robertaHead()), "lm_head.decoder.weight"),
	// XLM: per-layer modules in parallel lists (attentions.{l},
	// layer_norm1.{l}, ffns.{l}, layer_norm2.{l}), FFN 4·E, the output
	// projection tied to the embeddings.
	&Family{Name: "XLM", Class: "XLM", ModelTypes: []string{"xlm"}, Causal: "XLMWithLMHeadModel", SeqCls: "-",
		Defs: []Def{
			{Sym: "V", Field: "vocab_size", Default: "30145", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "emb_dim", Default: "2048", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
			{Sym: "L", Field: "n_layers", Default: "12", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "learned positions", Show: true, Pos: true},
			opt("langs", "n_langs", "1"),
			flag("lang_emb", "use_lang_emb", "true", "language embeddings (when n_langs > 1)"),
			flag("sinusoidal", "sinusoidal_embeddings", "false", "fixed sinusoidal positions"),
			tie("true"),
		},
		Global: cat(embed("transformer.embeddings.weight"),
			[]T{{Name: "transformer.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding},
				{Name: "transformer.lang_embeddings.weight", Shape: []string{"langs", "H"}, Role: RoleEmbedding, If: "langs > 1 && lang_emb"}},
			norm("transformer.layer_norm_emb", "H", "true")),
		Stacks: []Stack{
			{Prefix: "transformer.attentions.{l}.", Layers: "L", Tensors: cat(linear("q_lin", "H", "H", "true"), linear("k_lin", "H", "H", "true"),
				linear("v_lin", "H", "H", "true"), linear("out_lin", "H", "H", "true"))},
			{Prefix: "transformer.layer_norm1.{l}.", Layers: "L", Tensors: vecs("H", "weight", "bias")},
			{Prefix: "transformer.ffns.{l}.", Layers: "L", Tensors: plainMLP("lin1", "lin2", "4*H", "true")},
			{Prefix: "transformer.layer_norm2.{l}.", Layers: "L", Tensors: vecs("H", "weight", "bias")},
		},
		Final: []T{{Name: "pred_layer.proj.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "pred_layer.proj.bias", Shape: []string{"V"}, Role: RoleBias}},
		Embed: "transformer.embeddings.weight", Head: "pred_layer.proj.weight",
	},
	// XLNet: two-stream relative attention with [H, heads, d] projections.
	&Family{Name: "XLNet", Class: "XLNet", ModelTypes: []string{"xlnet"}, Causal: "XLNetLMHeadModel", SeqCls: "-",
		Defs: []Def{
			{Sym: "V", Field: "vocab_size", Default: "32000", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "d_model", Default: "1024", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
			{Sym: "L", Field: "n_layer", Default: "24", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "n_head", Default: "16", Desc: "attention heads", Show: true, Pos: true, Divides: "H"},
			{Sym: "d", Field: "d_head", Default: "H/heads", Legend: "d", Desc: "width of one head", Show: true, Pos: true},
			{Sym: "I", Field: "d_inner", Default: "4096", Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
			tie("true"),
		},
		Global: []T{{Name: "transformer.word_embedding.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, AnyDType: true},
			{Name: "transformer.mask_emb", Shape: []string{"1", "1", "H"}, Role: RoleNorm, AnyDType: true}},
		Stacks: []Stack{{Prefix: "transformer.layer.{l}.", Layers: "L", Tensors: anyDType(cat(
			[]T{xlnetT("rel_attn.q", "H", "heads", "d"), xlnetT("rel_attn.k", "H", "heads", "d"), xlnetT("rel_attn.v", "H", "heads", "d"),
				xlnetT("rel_attn.o", "H", "heads", "d"), xlnetT("rel_attn.r", "H", "heads", "d"),
				xlnetT("rel_attn.r_r_bias", "heads", "d"), xlnetT("rel_attn.r_s_bias", "heads", "d"), xlnetT("rel_attn.r_w_bias", "heads", "d"),
				xlnetT("rel_attn.seg_embed", "2", "heads", "d")},
			norm("rel_attn.layer_norm", "H", "true"),
			plainMLP("ff.layer_1", "ff.layer_2", "I", "true"), norm("ff.layer_norm", "H", "true")))}},
		Final: anyDType([]T{{Name: "lm_loss.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "lm_loss.bias", Shape: []string{"V"}, Role: RoleBias}}),
		Embed: "transformer.word_embedding.weight", Head: "lm_loss.weight",
	},
	// Mega: moving-average gated attention (a damped EMA of kernel width
	// 2·H when bidirectional, single-head gated attention of width Z) and an
	// optional normalized FFN; its norms are one of five kinds.

	&Family{Name: "Mega", Class: "Mega", ModelTypes: []string{"mega"}, SeqCls: "-",
		Defs: cat(trunk("30522", "128", "4", "Mega blocks"), []Def{
			{Sym: "I", Field: "intermediate_size", Default: "256", Legend: "I", Desc: "gated-attention value width", Show: true, Pos: true},
			{Sym: "Z", Field: "shared_representation_size", Default: "64", Legend: "Z", Desc: "shared query/key width", Show: true, Pos: true},
			{Sym: "N", Field: "ema_projection_size", Default: "16", Desc: "EMA dimensions per channel", Pos: true},
			flag("bidir", "bidirectional", "true", "the EMA runs both ways (kernel of 2·H)"),
			{Sym: "FI", Field: "nffn_hidden_size", Default: "256", Desc: "normalized FFN inner width", Pos: true},
			flag("nffn", "use_normalized_ffn", "true", "each block has a normalized FFN"),
			{Sym: "P", Field: "max_positions", Default: "2048", Desc: "positions of the simple relative bias", Pos: true},
			{Sym: "relpos", Field: "relative_positional_bias", Type: Str, Default: "'rotary'", Desc: "relative-position bias: simple or rotary"},
			{Sym: "ntype", Field: "normalization_type", Type: Str, Default: "'scalenorm'", Desc: "norm kind"},
			flag("affine", "norm_affine", "true", "the norms have parameters"),
			flag("types", "add_token_type_embeddings", "false", "token-type embeddings"),
			{Sym: "TV", Field: "type_vocab_size", Default: "2", Desc: "token types", Pos: true},
			flag("cross", "add_cross_attention", "false", "each block has gated cross-attention"),
			flag("dense", "add_lm_hidden_dense_layer", "true", "a dense layer before the LM head"),
			tie("true"),
		}),
		Global: cat(embed("mega.embedding_layer.word_embeddings.weight"),
			when("types", []T{{Name: "mega.embedding_layer.token_type_embeddings.weight", Shape: []string{"TV", "H"}, Role: RoleEmbedding}})),
		Stacks: []Stack{{Prefix: "mega.layers.{l}.", Layers: "L", Tensors: cat(
			[]T{{Name: "mega_layer.ema_gate.damping_factor", Shape: []string{"bidir ? 2*H : H", "N", "1"}, Role: RoleNorm},
				{Name: "mega_layer.ema_gate.decay_factor", Shape: []string{"bidir ? 2*H : H", "N", "1"}, Role: RoleNorm},
				{Name: "mega_layer.ema_gate.ema_expansion_matrix", Shape: []string{"bidir ? 2*H : H", "N", "1"}, Role: RoleNorm},
				{Name: "mega_layer.ema_gate.kernel_projection_matrix", Shape: []string{"bidir ? 2*H : H", "N"}, Role: RoleNorm},
				{Name: "mega_layer.ema_gate.residual_weight", Shape: []string{"H"}, Role: RoleNorm}},
			linear("mega_layer.h_proj", "H", "I", "true"),
			linear("mega_layer.mx_proj", "Z+I+2*H", "H", "true"),
			megaNorm("mega_layer.norm."),
			[]T{{Name: "mega_layer.qk_bias", Shape: []string{"2", "Z"}, Role: RoleBias},
				{Name: "mega_layer.qk_weight", Shape: []string{"2", "Z"}, Role: RoleNorm}},
			megaRelPos("mega_layer."),
			linear("mega_layer.v_proj", "I", "H", "true"),
			when("cross", megaNorm("cross_attn.norm."),
				linear("cross_attn.k_proj", "Z", "H", "true"), linear("cross_attn.v_proj", "H", "H", "true"),
				linear("cross_attn.q_proj", "2*H+Z", "H", "true"), linear("cross_attn.h_proj", "H", "H", "true"),
				megaRelPos("cross_attn.")),
			when("nffn", linear("nffn.fc1", "FI", "H", "true"), linear("nffn.fc2", "H", "FI", "true"), megaNorm("nffn.norm.")),
		)}},
		Final: cat(when("dense", linear("dense", "H", "H", "true")),
			[]T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
				{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias}}),
		Embed: "mega.embedding_layer.word_embeddings.weight", Head: "lm_head.weight",
	},
	// X-MOD: RoBERTa with a bottleneck adapter per language after each FFN
	// (languages absent: en_XX, XmodConfig's default), and with pre_norm a
	// final encoder LayerNorm.

	bertLike("X-MOD", "Xmod", "xmod", "XmodForCausalLM", "roberta",
		cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
			{Sym: "langs", Field: "languages", Type: List, Default: "empty", Null: "=", Desc: "languages with an adapter (absent: en_XX)"},
			{Sym: "red", Field: "adapter_reduction_factor", Default: "2", Desc: "adapter bottleneck: H/{red}", Pos: true},
			flag("adapter_ln", "adapter_layer_norm", "false", "a LayerNorm before the adapters"),
			flag("pre_norm", "pre_norm", "false", "pre-LN layers and a final encoder LayerNorm"),
		}),
		bertEmbeddings("roberta.embeddings.", "H", true, true),
		cat(postLN, when("adapter_ln", norm("output.adapter_layer_norm", "H", "true")),
			xmodAdapter("langs", "len(langs) > 0"),
			[]T{{Name: "output.adapter_modules.en_XX.dense1.weight", Shape: []string{"H/red", "H"}, Role: RoleLinear, If: "len(langs) == 0"},
				{Name: "output.adapter_modules.en_XX.dense1.bias", Shape: []string{"H/red"}, Role: RoleBias, If: "len(langs) == 0"},
				{Name: "output.adapter_modules.en_XX.dense2.weight", Shape: []string{"H", "H/red"}, Role: RoleLinear, If: "len(langs) == 0"},
				{Name: "output.adapter_modules.en_XX.dense2.bias", Shape: []string{"H"}, Role: RoleBias, If: "len(langs) == 0"}}),
		cat(when("pre_norm", norm("roberta.encoder.LayerNorm", "H", "true")), robertaHead()),
		"lm_head.decoder.weight"),
)

// Encoders checked only through their task classes (no causal LM): the
// sentence embedders' and classifiers' backbones — DistilBERT, MPNet,
// ModernBERT, DeBERTa-v2/v3 — each with its heads as transformers names
// them.

// distilTasks are DistilBERT's heads: a pre-classifier before the
// sequence and choice classifiers, its own masked-LM head.
var distilTasks = []Task{
	{Suffix: TaskBase, Prefix: "-"},
	{Suffix: TaskMaskedLM, HeadName: "vocab_projector.weight", Head: cat(
		linear("vocab_transform", "H", "H", "true"), norm("vocab_layer_norm", "H", "true"),
		[]T{{Name: "vocab_projector.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "vocab_projector.bias", Shape: []string{"V"}, Role: RoleBias}})},
	{Suffix: HeadSeqCls, Head: cat(linear("pre_classifier", "H", "H", "true"), classifier("classifier", "H")), Labels: true},
	{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
	{Suffix: TaskQA, Head: qaHead("qa_outputs", "H")},
	{Suffix: TaskMultChoice, Head: cat(linear("pre_classifier", "H", "H", "true"), choiceHead("classifier", "H"))},
}

// modernBertHead is ModernBERT's prediction head before every task's
// output layer: dense then norm.
var modernBertHead = cat(linear("head.dense", "H", "H", "cls_bias"), norm("head.norm", "H", "norm_bias"))

// debertaHeads are DeBERTa-v2's: the legacy masked-LM head (cls.) or the
// new one (lm_predictions.), a context pooler of pooler_hidden_size before
// the sequence and choice classifiers.
var debertaTasks = []Task{
	{Suffix: TaskBase, Prefix: "-"},
	// The new head (legacy false) declares its dense layer the output
	// embedding: tied, transformers 4.x ties it to the word embeddings, so
	// the dense is [V, H] (its bias padded to V) and is saved in their
	// place; 5.x keeps both as built.
	{Suffix: TaskMaskedLM, HeadName: "cls.predictions.decoder.weight", Defs: []Def{derived("wordTied", "!legacy && tied && !tf5")}, Head: cat(
		when("legacy", linear("cls.predictions.transform.dense", "E", "H", "true"), norm("cls.predictions.transform.LayerNorm", "E", "true"),
			[]T{{Name: "cls.predictions.decoder.weight", Shape: []string{"V", "E"}, Role: RoleHead, Optional: "tied"},
				{Name: "cls.predictions.bias", Shape: []string{"V"}, Role: RoleBias},
				{Name: "cls.predictions.decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}}),
		when("!legacy", linear("lm_predictions.lm_head.dense", "wordTied ? V : H", "H", "true"), norm("lm_predictions.lm_head.LayerNorm", "H", "true"),
			[]T{{Name: "lm_predictions.lm_head.bias", Shape: []string{"V"}, Role: RoleBias}}))},
	{Suffix: HeadSeqCls, Head: cat(linear("pooler.dense", "PH", "PH", "true"), classifier("classifier", "H")), Labels: true},
	{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
	{Suffix: TaskQA, Head: qaHead("qa_outputs", "H")},
	{Suffix: TaskMultChoice, Head: cat(linear("pooler.dense", "PH", "PH", "true"), choiceHead("classifier", "H"))},
}

// Signed is a definition's type: an integer that may be negative, a
// sentinel such as DeBERTa's max_relative_positions -1 ("none").
const Signed = Str + 4

// signedValue reads a Signed integer, bounded as sizes are.
func (c *Config) signedValue(field string, raw json.RawMessage) (any, error) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < -maxDim || n > maxDim {
		return nil, c.errorf(field, "must be an integer, found %s", kindOf(raw))
	}
	return n, nil
}

// encHeads is an encoder's attention heads, dividing H.
func encHeads(field, def string) Def {
	return Def{Sym: "heads", Field: field, Default: def, Desc: "attention heads", Show: true, Pos: true, Divides: "H"}
}

// inner is the FFN's inner width.
func inner(field, def string) Def {
	return Def{Sym: "I", Field: field, Default: def, Legend: "I", Desc: "FFN inner width", Show: true, Pos: true}
}

var _ = register(
	&Family{Name: "DistilBERT", Class: "DistilBert", ModelTypes: []string{"distilbert"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunkAt("vocab_size=30522", "dim=768", "n_layers=6", "encoder layers"), []Def{
			encHeads("n_heads", "12"), inner("hidden_dim", "3072"),
			{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "positions (sinusoidal ones are written too)", Show: true, Pos: true},
			tie("true")}),
		Global: bertEmbeddings("distilbert.embeddings.", "H", false, true),
		Stacks: []Stack{{Prefix: "distilbert.transformer.layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.q_lin", "H", "H", "true"), linear("attention.k_lin", "H", "H", "true"),
			linear("attention.v_lin", "H", "H", "true"), linear("attention.out_lin", "H", "H", "true"),
			norm("sa_layer_norm", "H", "true"),
			linear("ffn.lin1", "I", "H", "true"), linear("ffn.lin2", "H", "I", "true"), norm("output_layer_norm", "H", "true"))}},
		Embed: "distilbert.embeddings.word_embeddings.weight",
		Tasks: distilTasks,
	},
	// MPNet: BERT's layer with attn.{q,k,v,o}, one relative-position
	// bias table shared by the layers, RoBERTa's heads.
	&Family{Name: "MPNet", Class: "MPNet", ModelTypes: []string{"mpnet"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunk("30527", "768", "12", "encoder layers"), []Def{
			encHeads("num_attention_heads", "12"), inner("intermediate_size", "3072"),
			{Sym: "P", Field: "max_position_embeddings", Default: "514", Legend: "P", Desc: "learned positions", Show: true, Pos: true},
			{Sym: "buckets", Field: "relative_attention_num_buckets", Default: "32", Desc: "relative-position buckets", Pos: true},
			tie("true")}),
		Global: bertEmbeddings("mpnet.embeddings.", "H", false, true),
		Stacks: []Stack{{Prefix: "mpnet.encoder.layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.attn.q", "H", "H", "true"), linear("attention.attn.k", "H", "H", "true"),
			linear("attention.attn.v", "H", "H", "true"), linear("attention.attn.o", "H", "H", "true"),
			norm("attention.LayerNorm", "H", "true"),
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))}},
		Final: []T{{Name: "mpnet.encoder.relative_attention_bias.weight", Shape: []string{"buckets", "heads"}, Role: RoleEmbedding}},
		Embed: "mpnet.embeddings.word_embeddings.weight",
		Tasks: withTask(robertaTasks("mpnet."), Task{Suffix: TaskMaskedLM, Head: robertaHead(), HeadName: "lm_head.decoder.weight"}),
	},
	// ModernBERT: no attention norm in layer 0, fused Wqkv, a GLU MLP (Wi
	// [2I, H]), biases only where the *_bias switches say; every head
	// reads its own dense + norm first.
	&Family{Name: "ModernBERT", Class: "ModernBert", ModelTypes: []string{"modernbert"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunk("50368", "768", "22", "encoder layers"), []Def{
			encHeads("num_attention_heads", "12"), inner("intermediate_size", "1152"),
			flag("attention_bias", "attention_bias", "false", "attention projections have biases"),
			flag("mlp_bias", "mlp_bias", "false", "MLP projections have biases"),
			flag("norm_bias", "norm_bias", "false", "layer norms have biases"),
			flag("cls_bias", "classifier_bias", "false", "the head's dense has a bias"),
			flag("dec_bias", "decoder_bias", "true", "the decoder has a bias"),
			tie("true")}),
		Global: cat(embed("model.embeddings.tok_embeddings.weight"), norm("model.embeddings.norm", "H", "norm_bias")),
		Stacks: decoderLayers([]Kind{{Name: "first", If: "l == 0"}, {Name: "rest"}},
			when("rest", norm("attn_norm", "H", "norm_bias")),
			linear("attn.Wqkv", "3*H", "H", "attention_bias"), linear("attn.Wo", "H", "H", "attention_bias"),
			norm("mlp_norm", "H", "norm_bias"),
			linear("mlp.Wi", "2*I", "H", "mlp_bias"), linear("mlp.Wo", "H", "I", "mlp_bias")),
		Final: norm("model.final_norm", "H", "norm_bias"),
		Embed: "model.embeddings.tok_embeddings.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: TaskMaskedLM, HeadName: "decoder.weight", Head: cat(modernBertHead,
				[]T{{Name: "decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}, vecIf("decoder.bias", "V", "dec_bias"))},
			{Suffix: HeadSeqCls, Head: cat(modernBertHead, classifier("classifier", "H")), Labels: true},
			{Suffix: TaskTokenCls, Head: cat(modernBertHead, classifier("classifier", "H")), Labels: true},
			{Suffix: TaskQA, Head: cat(modernBertHead, classifier("classifier", "H")), Labels: true},
			{Suffix: TaskMultChoice, Head: cat(modernBertHead, choiceHead("classifier", "H"))},
		},
	},
	// DeBERTa-v2 (and v3): disentangled attention over a relative-position
	// table (relative_attention), position projections of their own unless
	// share_att_key, an optional convolution beside the first layer.
	&Family{Name: "DeBERTa-v2", Class: "DebertaV2", ModelTypes: []string{"deberta-v2"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunk("128100", "1536", "24", "encoder layers"), []Def{
			encHeads("num_attention_heads", "24"), inner("intermediate_size", "6144"),
			{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "positions", Show: true, Pos: true},
			{Sym: "TV", Field: "type_vocab_size", Default: "0", Desc: "token types (0: none)"},
			{Sym: "E", Field: "embedding_size", Default: "H", Null: "H", Legend: "E", Desc: "embedding width", Pos: true},
			flag("pbi", "position_biased_input", "true", "absolute position embeddings are added"),
			flag("rel", "relative_attention", "false", "disentangled relative attention"),
			{Sym: "mrp", Field: "max_relative_positions", Type: Signed, Default: "0-1", Null: "0-1", Desc: "relative distances (< 1: max_position_embeddings)"},
			{Sym: "pb", Field: "position_buckets", Type: Signed, Default: "0-1", Null: "0-1", Desc: "log-bucketed relative positions (≤ 0: none)"},
			{Sym: "pat", Field: "pos_att_type", Type: List, Default: "empty", Null: "=", Desc: "position attention kinds (c2p, p2c)"},
			flag("share", "share_att_key", "false", "position projections share the content ones"),
			{Sym: "nre", Field: "norm_rel_ebd", Type: Str, Default: "'none'", Null: "=", Desc: "normalisation of the relative embeddings"},
			{Sym: "ck", Field: "conv_kernel_size", Default: "0", Desc: "convolution beside the first layer (0: none)"},
			{Sym: "cg", Field: "conv_groups", Default: "1", Pos: true, Desc: "its groups"},
			{Sym: "PH", Field: "pooler_hidden_size", Default: "H", Desc: "context pooler width", Pos: true},
			flag("legacy", "legacy", "true", "the masked-LM head is the legacy cls.predictions"),
			derived("ebd", "pb > 0 ? pb : (mrp < 1 ? P : mrp)"),
			derived("wordTied", "false"),
			tie("true")}),
		Global: cat([]T{{Name: "deberta.embeddings.word_embeddings.weight", Shape: []string{"V", "E"}, Role: RoleEmbedding, Optional: "wordTied"},
			{Name: "deberta.embeddings.position_embeddings.weight", Shape: []string{"P", "E"}, Role: RoleEmbedding, If: "pbi"},
			{Name: "deberta.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "E"}, Role: RoleEmbedding, If: "TV > 0"}},
			when("E != H", linear("deberta.embeddings.embed_proj", "H", "E", "")),
			norm("deberta.embeddings.LayerNorm", "H", "true")),
		Stacks: []Stack{{Prefix: "deberta.encoder.layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.self.query_proj", "H", "H", "true"), linear("attention.self.key_proj", "H", "H", "true"),
			linear("attention.self.value_proj", "H", "H", "true"),
			when("rel && !share && in('c2p', pat)", linear("attention.self.pos_key_proj", "H", "H", "true")),
			when("rel && !share && in('p2c', pat)", linear("attention.self.pos_query_proj", "H", "H", "true")),
			linear("attention.output.dense", "H", "H", "true"), norm("attention.output.LayerNorm", "H", "true"),
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))}},
		Final: cat([]T{{Name: "deberta.encoder.rel_embeddings.weight", Shape: []string{"2*ebd", "H"}, Role: RoleEmbedding, If: "rel"}},
			when("nre == 'layer_norm'", norm("deberta.encoder.LayerNorm", "H", "true")),
			when("ck > 0", []T{{Name: "deberta.encoder.conv.conv.weight", Shape: []string{"H", "H/cg", "ck"}, Role: RoleLinear},
				{Name: "deberta.encoder.conv.conv.bias", Shape: []string{"H"}, Role: RoleBias}},
				norm("deberta.encoder.conv.LayerNorm", "H", "true"))),
		Embed: "deberta.embeddings.word_embeddings.weight",
		Tasks: debertaTasks,
	},
)
