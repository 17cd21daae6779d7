package spec

import (
	"slices"
)

// Encoder models: BERT, RoBERTa and their kin, and other masked or
// permutation LMs.

// bertHead is BERT's cls.predictions: a transform (dense H → E, LayerNorm
// E) and the decoder [V, E] tied to the word embeddings, its bias apart.
func bertHead(E string) []T {
	return cat(
		[]T{{Name: "cls.predictions.bias", Shape: []string{"V"}, Role: RoleBias}},
		linear("cls.predictions.transform.dense", E, "H", "true"), norm("cls.predictions.transform.LayerNorm", E, "true"),
		[]T{{Name: "cls.predictions.decoder.weight", Shape: []string{"V", E}, Role: RoleHead, Optional: "tied"}},
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
	bertLike("BigBird", "BigBird", "big_bird", "BigBirdForCausalLM", "bert", cat(bertDefs("50358", "768", "12", "3072", "4096", "2"), noRelPos),
		bertEmbeddings("bert.embeddings.", "H", true, true), postLN, cat(linear("bert.pooler", "H", "H", "true"), bertHead("H")), bertHeadName),
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
			{Sym: "SD", Field: "shape_embed_dim", Default: "512", Pos: true}}),
		cat(bertEmbeddings("roc_bert.embeddings.", "H", true, true),
			[]T{{Name: "roc_bert.embeddings.pronunciation_embed.weight", Shape: []string{"PV", "PD"}, Role: RoleEmbedding, If: "pron"},
				{Name: "roc_bert.embeddings.shape_embed.weight", Shape: []string{"SV", "SD"}, Role: RoleEmbedding, If: "shape"}},
			when("pron || shape", linear("roc_bert.embeddings.map_inputs_layer", "H", "H+(pron ? PD : 0)+(shape ? SD : 0)", "true"))),
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
