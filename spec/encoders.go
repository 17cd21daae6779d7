package spec

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
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

// XLM: per-layer modules in parallel lists (attentions.{l},
// layer_norm1.{l}, ffns.{l}, layer_norm2.{l}), FFN 4·E, the output
// projection tied to the embeddings; Flaubert is the same model. Its
// sequence and choice heads are a sequence summary (xlmSummary).
func xlmLike(name, class, mt string) *Family {
	return (&Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: class + "WithLMHeadModel", SeqCls: "-",
		Defs: cat([]Def{
			{Sym: "V", Field: "vocab_size", Default: "30145", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "emb_dim", Default: "2048", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
			{Sym: "L", Field: "n_layers", Default: "12", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "learned positions", Show: true, Pos: true},
			opt("langs", "n_langs", "1"),
			flag("lang_emb", "use_lang_emb", "true", "language embeddings (when n_langs > 1)"),
			flag("sinusoidal", "sinusoidal_embeddings", "false", "fixed sinusoidal positions"),
			tie("true"),
		}, summaryDefs("true")),
		Global: cat(embed("transformer.embeddings.weight"),
			[]T{{Name: "transformer.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding},
				{Name: "transformer.lang_embeddings.weight", Shape: []string{"langs", "H"}, Role: RoleEmbedding, If: "langs > 1 && lang_emb"}},
			norm("transformer.layer_norm_emb", "H", "true")),
		Stacks: []Stack{
			{Prefix: "transformer.attentions.{l}.", Layers: "L", Tensors: squareLinears("", "q_lin", "k_lin", "v_lin", "out_lin")},
			{Prefix: "transformer.layer_norm1.{l}.", Layers: "L", Tensors: vecs("H", "weight", "bias")},
			{Prefix: "transformer.ffns.{l}.", Layers: "L", Tensors: plainMLP("lin1", "lin2", "4*H", "true")},
			{Prefix: "transformer.layer_norm2.{l}.", Layers: "L", Tensors: vecs("H", "weight", "bias")},
		},
		Final: []T{{Name: "pred_layer.proj.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "pred_layer.proj.bias", Shape: []string{"V"}, Role: RoleBias}},
		Embed: "transformer.embeddings.weight", Head: "pred_layer.proj.weight",
		Tasks: encTasks("transformer.", nil,
			encHead{Suffix: HeadSeqCls, Head: seqSummary(), Labels: true},
			encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
			encHead{Suffix: "ForQuestionAnsweringSimple", Head: classifier("qa_outputs", "H"), Labels: true},
			encHead{Suffix: TaskMultChoice, Head: cat(seqSummary(), linear("logits_proj", "1", "C", "true")), Labels: true}),
	}).with(notModelled("asm", "the adaptive softmax output layer (asm) is not modelled"))
}

var _ = register(
	func() *Family {
		return bertLike("BERT", "Bert", "bert", "BertLMHeadModel", "bert", cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos),
			bertEmbeddings("bert.embeddings.", "H", true, true), postLN, bertHead("H"), bertHeadName)
	},
	func() *Family {
		return bertLike("ERNIE", "Ernie", "ernie", "ErnieForCausalLM", "ernie",
			cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
				flag("task_id", "use_task_id", "false", "task-type embeddings"),
				{Sym: "TT", Field: "task_type_vocab_size", Default: "3", Desc: "task types", Pos: true}}),
			cat(bertEmbeddings("ernie.embeddings.", "H", true, true),
				[]T{{Name: "ernie.embeddings.task_type_embeddings.weight", Shape: []string{"TT", "H"}, Role: RoleEmbedding, If: "task_id"}}),
			postLN, bertHead("H"), bertHeadName)
	},
	// BigBird: its pooler in every class but question answering's (pool).
	func() *Family {
		return bertLike("BigBird", "BigBird", "big_bird", "BigBirdForCausalLM", "bert", cat(bertDefs("50358", "768", "12", "3072", "4096", "2"), noRelPos,
			[]Def{derived("pool", "true"), flag("qkvb", "use_bias", "true", "query, key and value have biases")}),
			bertEmbeddings("bert.embeddings.", "H", true, true), biasIf(postLN, "qkvb", `self\.(query|key|value)\.bias$`), cat(when("pool", linear("bert.pooler", "H", "H", "true")), bertHead("H")), bertHeadName)
	},
	func() *Family {
		return bertLike("Megatron-BERT", "MegatronBert", "megatron-bert", "MegatronBertForCausalLM", "bert", cat(bertDefs("29056", "1024", "16", "4096", "512", "2"), relPos),
			bertEmbeddings("bert.embeddings.", "H", true, false), megatronLN, cat(norm("bert.encoder.ln", "H", "true"), bertHead("H")), bertHeadName)
	},
	func() *Family {
		return bertLike("BertGeneration", "BertGeneration", "bert-generation", "BertGenerationDecoder", "bert", cat(bertDefs("50358", "1024", "16", "4096", "512", "2"), relPos),
			bertEmbeddings("bert.embeddings.", "H", false, true), postLN,
			[]T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias},
				{Name: "lm_head.decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
				{Name: "lm_head.decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}},
			"lm_head.decoder.weight").with(func(f *Family) { f.Tasks = []Task{{Suffix: "Encoder", Prefix: "-"}} })
	},
	// ELECTRA: embeddings of embedding_size E, projected to H when they differ.
	func() *Family {
		return bertLike("ELECTRA", "Electra", "electra", "ElectraForCausalLM", "electra",
			cat(bertDefs("30522", "256", "4", "1024", "512", "2"), relPos,
				[]Def{{Sym: "E", Field: "embedding_size", Default: "128", Legend: "E", Desc: "embedding width", Show: true, Pos: true}}),
			cat(bertEmbeddings("electra.embeddings.", "E", true, true), when("E != H", linear("electra.embeddings_project", "H", "E", "true"))),
			postLN,
			cat(linear("generator_predictions.dense", "E", "H", "true"), norm("generator_predictions.LayerNorm", "E", "true"),
				[]T{{Name: "generator_lm_head.weight", Shape: []string{"V", "E"}, Role: RoleHead, Optional: "tied"},
					{Name: "generator_lm_head.bias", Shape: []string{"V"}, Role: RoleBias}}),
			"generator_lm_head.weight")
	},
	// RemBERT: input embeddings of E, mapped to H; output embeddings of O, untied.
	func() *Family {
		return bertLike("RemBERT", "RemBert", "rembert", "RemBertForCausalLM", "rembert",
			cat(bertDefs("250300", "1152", "18", "4608", "512", "2"), noRelPos, []Def{
				{Sym: "E", Field: "input_embedding_size", Default: "256", Legend: "E", Desc: "input embedding width", Show: true, Pos: true},
				{Sym: "O", Field: "output_embedding_size", Default: "1664", Legend: "O", Desc: "output embedding width", Show: true, Pos: true},
				tie("false")}),
			cat(bertEmbeddings("rembert.embeddings.", "E", true, true), linear("rembert.encoder.embedding_hidden_mapping_in", "H", "E", "true")),
			postLN,
			cat(linear("cls.predictions.dense", "O", "H", "true"), norm("cls.predictions.LayerNorm", "O", "true"),
				[]T{{Name: "cls.predictions.decoder.weight", Shape: []string{"V", "O"}, Role: RoleHead, Optional: "tied && O == E"},
					{Name: "cls.predictions.decoder.bias", Shape: []string{"V"}, Role: RoleBias}}),
			bertHeadName)
	},
	// RoCBERT: pronunciation and shape embeddings, mapped into H.
	func() *Family {
		return bertLike("RoCBert", "RoCBert", "roc_bert", "RoCBertForCausalLM", "roc_bert",
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
			postLN, bertHead("H"), bertHeadName)
	},
	// RoFormer: no position embeddings; rotary tables [P, d] are written.
	func() *Family {
		return bertLike("RoFormer", "RoFormer", "roformer", "RoFormerForCausalLM", "roformer",
			cat(bertDefs("50000", "768", "12", "3072", "1536", "2"), noRelPos,
				[]Def{{Sym: "E", Field: "embedding_size", Default: "H", Null: "H", Legend: "E", Desc: "embedding width", Show: true, Pos: true}}),
			cat([]T{{Name: "roformer.embeddings.word_embeddings.weight", Shape: []string{"V", "E"}, Role: RoleEmbedding},
				{Name: "roformer.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "E"}, Role: RoleEmbedding}},
				norm("roformer.embeddings.LayerNorm", "E", "true"),
				when("E != H", linear("roformer.embeddings_project", "H", "E", "true")),
				[]T{{Name: "roformer.encoder.embed_positions.weight", Shape: []string{"P", "d"}, Role: RoleEmbedding}}),
			postLN, bertHead("E"), bertHeadName)
	},
	func() *Family {
		return roberta("RoBERTa", "Roberta", "roberta", "roberta", bertDefs("50265", "768", "12", "3072", "512", "2"))
	},
	func() *Family {
		return roberta("XLM-RoBERTa", "XLMRoberta", "xlm-roberta", "roberta", bertDefs("30522", "768", "12", "3072", "512", "2"))
	},
	func() *Family {
		return roberta("CamemBERT", "Camembert", "camembert", "roberta", bertDefs("30522", "768", "12", "3072", "512", "2"))
	},
	func() *Family {
		return roberta("Data2VecText", "Data2VecText", "data2vec-text", "data2vec_text", bertDefs("30522", "768", "12", "3072", "512", "2"))
	},
	func() *Family {
		return bertLike("RoBERTa-PreLayerNorm", "RobertaPreLayerNorm", "roberta-prelayernorm", "RobertaPreLayerNormForCausalLM", "roberta_prelayernorm",
			cat(bertDefs("50265", "768", "12", "3072", "512", "2"), relPos),
			bertEmbeddings("roberta_prelayernorm.embeddings.", "H", true, true), robertaPreLN,
			cat(norm("roberta_prelayernorm.LayerNorm", "H", "true"), robertaHead()), "lm_head.decoder.weight")
	},
	func() *Family {
		return bertLike("XLM-RoBERTa-XL", "XLMRobertaXL", "xlm-roberta-xl", "XLMRobertaXLForCausalLM", "roberta",
			cat(bertDefs("250880", "2560", "32", "10240", "514", "1"), relPos),
			bertEmbeddings("roberta.embeddings.", "H", true, false), xlLN,
			cat(norm("roberta.encoder.LayerNorm", "H", "true"), robertaHead()), "lm_head.decoder.weight")
	},
	func() *Family { return xlmLike("XLM", "XLM", "xlm") },
	// XLNet: two-stream relative attention with [H, heads, d] projections.
	func() *Family {
		return &Family{Name: "XLNet", Class: "XLNet", ModelTypes: []string{"xlnet"}, Causal: "XLNetLMHeadModel", SeqCls: "-",
			Defs: cat(trunkAt("vocab_size=32000", "d_model=1024", "n_layer=24", "layers"), []Def{
				encHeads("n_head", "16"),
				{Sym: "d", Field: "d_head", Default: "H/heads", Legend: "d", Desc: "width of one head", Show: true, Pos: true},
				inner("d_inner", "4096"),
				tie("true"),
				summaryDefs("false")[0], summaryDefs("false")[1],
			}),
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
		}
	},
	// Mega: moving-average gated attention (a damped EMA of kernel width
	// 2·H when bidirectional, single-head gated attention of width Z) and an
	// optional normalized FFN; its norms are one of five kinds.

	func() *Family {
		return &Family{Name: "Mega", Class: "Mega", ModelTypes: []string{"mega"}, SeqCls: "-",
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
		}
	},
	// X-MOD: RoBERTa with a bottleneck adapter per language after each FFN
	// (languages absent: en_XX, XmodConfig's default), and with pre_norm a
	// final encoder LayerNorm.

	func() *Family {
		return bertLike("X-MOD", "Xmod", "xmod", "XmodForCausalLM", "roberta",
			cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
				list("langs", "languages", "languages with an adapter (absent: en_XX)"),
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
			"lm_head.decoder.weight")
	},
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
	{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true}, // num_labels wide
	{Suffix: TaskMultChoice, Head: cat(linear("pooler.dense", "PH", "PH", "true"), choiceHead("classifier", "H"))},
}

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
	func() *Family {
		return &Family{Name: "DistilBERT", Class: "DistilBert", ModelTypes: []string{"distilbert"}, Causal: "-", SeqCls: "-",
			Defs: cat(trunkAt("vocab_size=30522", "dim=768", "n_layers=6", "encoder layers"), []Def{
				encHeads("n_heads", "12"), inner("hidden_dim", "3072"),
				{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "positions (sinusoidal ones are written too)", Show: true, Pos: true},
				tie("true")}),
			Global: bertEmbeddings("distilbert.embeddings.", "H", false, true),
			Stacks: []Stack{{Prefix: "distilbert.transformer.layer.{l}.", Layers: "L", Tensors: cat(
				squareLinears("attention.", "q_lin", "k_lin", "v_lin", "out_lin"), norm("sa_layer_norm", "H", "true"),
				plainMLP("ffn.lin1", "ffn.lin2", "I", "true"), norm("output_layer_norm", "H", "true"))}},
			Embed: "distilbert.embeddings.word_embeddings.weight",
			Tasks: distilTasks,
		}
	},
	// MPNet: BERT's layer with attn.{q,k,v,o}, one relative-position
	// bias table shared by the layers, RoBERTa's heads.
	func() *Family {
		return &Family{Name: "MPNet", Class: "MPNet", ModelTypes: []string{"mpnet"}, Causal: "-", SeqCls: "-",
			Defs: cat(trunk("30527", "768", "12", "encoder layers"), []Def{
				encHeads("num_attention_heads", "12"), inner("intermediate_size", "3072"),
				{Sym: "P", Field: "max_position_embeddings", Default: "514", Legend: "P", Desc: "learned positions", Show: true, Pos: true},
				{Sym: "buckets", Field: "relative_attention_num_buckets", Default: "32", Desc: "relative-position buckets", Pos: true},
				tie("true")}),
			Global: bertEmbeddings("mpnet.embeddings.", "H", false, true),
			Stacks: []Stack{{Prefix: "mpnet.encoder.layer.{l}.", Layers: "L", Tensors: cat(
				squareLinears("attention.attn.", "q", "k", "v", "o"), norm("attention.LayerNorm", "H", "true"),
				plainMLP("intermediate.dense", "output.dense", "I", "true"), norm("output.LayerNorm", "H", "true"))}},
			Final: []T{{Name: "mpnet.encoder.relative_attention_bias.weight", Shape: []string{"buckets", "heads"}, Role: RoleEmbedding}},
			Embed: "mpnet.embeddings.word_embeddings.weight",
			Tasks: withTask(robertaTasks("mpnet."), Task{Suffix: TaskMaskedLM, Head: robertaHead(), HeadName: "lm_head.decoder.weight"}),
		}
	},
	func() *Family { return modernBert },
	// DeBERTa-v2 (and v3): disentangled attention over a relative-position
	// table (relative_attention), position projections of their own unless
	// share_att_key, an optional convolution beside the first layer.
	func() *Family {
		return &Family{Name: "DeBERTa-v2", Class: "DebertaV2", ModelTypes: []string{"deberta-v2"}, Causal: "-", SeqCls: "-",
			Defs: cat(debertaDefs("128100", "1536", "24", "24", "6144"), []Def{
				{Sym: "mrp", Field: "max_relative_positions", Type: Signed, Default: "0-1", Null: "0-1", Desc: "relative distances (< 1: max_position_embeddings)"},
				{Sym: "pb", Field: "position_buckets", Type: Signed, Default: "0-1", Null: "0-1", Desc: "log-bucketed relative positions (≤ 0: none)"},
				list("pat", "pos_att_type", "position attention kinds (c2p, p2c)"),
				flag("share", "share_att_key", "false", "position projections share the content ones"),
				{Sym: "nre", Field: "norm_rel_ebd", Type: Str, Default: "'none'", Null: "=", Desc: "normalisation of the relative embeddings"},
				{Sym: "ck", Field: "conv_kernel_size", Default: "0", Desc: "convolution beside the first layer (0: none)"},
				{Sym: "cg", Field: "conv_groups", Default: "1", Pos: true, Desc: "its groups"},
				{Sym: "PH", Field: "pooler_hidden_size", Default: "H", Desc: "context pooler width", Pos: true},
				flag("legacy", "legacy", "true", "the masked-LM head is the legacy cls.predictions"),
				derived("ebd", "pb > 0 ? pb : (mrp < 1 ? P : mrp)"),
				derived("wordTied", "false"),
				tie("true")}),
			Global: debertaEmbeddings(),
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
		}
	},
)

// ModernBERT: no attention norm in layer 0, fused Wqkv, a GLU MLP (Wi
// [2I, H]), biases only where the *_bias switches say; every head
// reads its own dense + norm first.
var modernBert = &Family{Name: "ModernBERT", Class: "ModernBert", ModelTypes: []string{"modernbert"}, Causal: "-", SeqCls: "-",
	Defs: cat(trunk("50368", "768", "22", "encoder layers"), []Def{
		encHeads("num_attention_heads", "12"), inner("intermediate_size", "1152")}, modernBertSwitches),
	Global: modernBertEmbeddings(),
	Stacks: modernBertLayers(linear("attn.Wqkv", "3*H", "H", "attention_bias")),
	Final:  norm("model.final_norm", "H", "norm_bias"),
	Embed:  "model.embeddings.tok_embeddings.weight",
	Tasks: []Task{
		{Suffix: TaskBase, Prefix: "-"},
		{Suffix: TaskMaskedLM, HeadName: "decoder.weight", Head: cat(modernBertHead,
			[]T{{Name: "decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}, vecIf("decoder.bias", "V", "dec_bias"))},
		{Suffix: HeadSeqCls, Head: cat(modernBertHead, classifier("classifier", "H")), Labels: true},
		{Suffix: TaskTokenCls, Head: cat(modernBertHead, classifier("classifier", "H")), Labels: true},
		{Suffix: TaskQA, Head: cat(modernBertHead, classifier("classifier", "H")), Labels: true},
		{Suffix: TaskMultChoice, Head: cat(modernBertHead, choiceHead("classifier", "H"))},
	},
}

// More encoder-only text models, each with every task class transformers
// defines for it (encTasks).

// albertLayer is one ALBERT layer inside a layer group (albert_layers.{e}.).
var albertLayer = perBlock("inner", cat(
	linear("albert_layers.{e}.attention.query", "H", "H", "true"), linear("albert_layers.{e}.attention.key", "H", "H", "true"),
	linear("albert_layers.{e}.attention.value", "H", "H", "true"),
	[]T{{Name: "albert_layers.{e}.attention.distance_embedding.weight", Shape: []string{"2*P-1", "d"}, Role: RoleEmbedding, If: "rel"}},
	linear("albert_layers.{e}.attention.dense", "H", "H", "true"), norm("albert_layers.{e}.attention.LayerNorm", "H", "true"),
	linear("albert_layers.{e}.ffn", "I", "H", "true"), linear("albert_layers.{e}.ffn_output", "H", "I", "true"),
	norm("albert_layers.{e}.full_layer_layer_norm", "H", "true")))

var _ = register(
	// ALBERT: factorized embeddings of E mapped to H, num_hidden_groups
	// layer groups of inner_group_num layers shared across the depth.
	func() *Family {
		return &Family{Name: "ALBERT", Class: "Albert", ModelTypes: []string{"albert"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("30000", "4096", "64", "16384", "512", "2"), relPos, []Def{
				{Sym: "E", Field: "embedding_size", Default: "128", Legend: "E", Desc: "embedding width", Show: true, Pos: true},
				{Sym: "G", Field: "num_hidden_groups", Default: "1", Desc: "layer groups (shared weights)", Show: true, Pos: true, Max: MaxLayers},
				{Sym: "inner", Field: "inner_group_num", Default: "1", Desc: "layers per group", Pos: true, Max: MaxLayers},
				tie("true")}),
			Global: cat(bertEmbeddings("albert.embeddings.", "E", true, true), linear("albert.encoder.embedding_hidden_mapping_in", "H", "E", "true")),
			Stacks: []Stack{{Prefix: "albert.encoder.albert_layer_groups.{l}.", Layers: "G", Tensors: albertLayer}},
			Embed:  "albert.embeddings.word_embeddings.weight",
			Tasks: encTasks("albert.", linear("pooler", "H", "H", "true"), cat(
				[]encHead{{Suffix: TaskMaskedLM, Head: mlmHead("predictions.", "E", false), HeadName: "predictions.decoder.weight"},
					{Suffix: TaskPreTrain, Head: cat(mlmHead("predictions.", "E", false), classifier("sop_classifier.classifier", "H")), Pool: true, Labels: true, HeadName: "predictions.decoder.weight"}},
				stdEncHeads(true, true))...),
		}
	},
	// DeBERTa (v1): one fused in_proj without bias, q_bias and v_bias
	// kept in float32, optional talking heads; DeBERTa-v2's heads.
	func() *Family {
		return &Family{Name: "DeBERTa", Class: "Deberta", ModelTypes: []string{"deberta"}, Causal: "-", SeqCls: "-",
			Defs: cat(debertaDefs("50265", "768", "12", "12", "3072"), []Def{
				flag("talk", "talking_head", "false", "talking-heads projections"),
				{Sym: "mrp", Field: "max_relative_positions", Type: Signed, Default: "0-1", Null: "0-1", Desc: "relative distances (< 1: max_position_embeddings)"},
				list("pat", "pos_att_type", "position attention kinds (c2p, p2c)"),
				{Sym: "PH", Field: "pooler_hidden_size", Default: "H", Desc: "context pooler width", Pos: true},
				flag("legacy", "legacy", "true", "the masked-LM head is the legacy cls.predictions"),
				derived("wordTied", "false"),
				tie("true")}),
			Global: debertaEmbeddings(),
			Stacks: []Stack{{Prefix: "deberta.encoder.layer.{l}.", Layers: "L", Tensors: cat(
				linear("attention.self.in_proj", "3*H", "H", ""),
				anyDType(cat(vec("attention.self.q_bias", "H"), vec("attention.self.v_bias", "H"))),
				when("talk", linear("attention.self.head_logits_proj", "heads", "heads", ""), linear("attention.self.head_weights_proj", "heads", "heads", "")),
				when("rel && in('c2p', pat)", linear("attention.self.pos_proj", "H", "H", "")),
				when("rel && in('p2c', pat)", linear("attention.self.pos_q_proj", "H", "H", "true")),
				linear("attention.output.dense", "H", "H", "true"), norm("attention.output.LayerNorm", "H", "true"),
				linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))}},
			Final: []T{{Name: "deberta.encoder.rel_embeddings.weight", Shape: []string{"2*(mrp < 1 ? P : mrp)", "H"}, Role: RoleEmbedding, If: "rel"}},
			Embed: "deberta.embeddings.word_embeddings.weight",
			Tasks: withoutTasks(debertaTasks, TaskMultChoice),
		}
	},
	// Longformer: RoBERTa's layout with global-attention projections
	// beside the local ones.
	func() *Family {
		return &Family{Name: "Longformer", Class: "Longformer", ModelTypes: []string{"longformer"}, Causal: "-", SeqCls: "-",
			Defs:   cat(bertDefs("30522", "768", "12", "3072", "512", "2"), noRelPos, []Def{tie("true")}),
			Global: bertEmbeddings("longformer.embeddings.", "H", true, true),
			Stacks: []Stack{{Prefix: "longformer.encoder.layer.{l}.", Layers: "L", Tensors: cat(postLN,
				linear("attention.self.query_global", "H", "H", "true"), linear("attention.self.key_global", "H", "H", "true"),
				linear("attention.self.value_global", "H", "H", "true"))}},
			Embed: "longformer.embeddings.word_embeddings.weight",
			Tasks: encTasks("longformer.", pooler(""),
				encHead{Suffix: TaskMaskedLM, Head: robertaHead(), HeadName: "lm_head.decoder.weight"},
				encHead{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
				encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true},
				encHead{Suffix: TaskMultChoice, Head: choiceHead("classifier", "H"), Pool: true}),
		}
	},
	func() *Family { return xlmLike("Flaubert", "Flaubert", "flaubert") },
	// ConvBERT: ELECTRA-style embeddings of E, attention of heads/head_ratio
	// heads of half width beside a span-based dynamic convolution, FFNs of
	// num_groups grouped linears.
	func() *Family {
		return &Family{Name: "ConvBERT", Class: "ConvBert", ModelTypes: []string{"convbert"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("30522", "768", "12", "3072", "512", "2"), noRelPos, []Def{
				{Sym: "E", Field: "embedding_size", Default: "768", Legend: "E", Desc: "embedding width", Show: true, Pos: true},
				{Sym: "ratio", Field: "head_ratio", Default: "2", Desc: "attention heads per convolution head", Pos: true},
				{Sym: "k", Field: "conv_kernel_size", Default: "9", Desc: "convolution kernel", Pos: true},
				{Sym: "G", Field: "num_groups", Default: "1", Desc: "FFN groups", Pos: true},
				derived("nh", "heads/ratio < 1 ? 1 : heads/ratio"), derived("A", "nh*((H/nh)/2)"),
				tie("true")}, summaryDefsProj("false", "false")),
			Global: cat(bertEmbeddings("convbert.embeddings.", "E", true, true), when("E != H", linear("convbert.embeddings_project", "H", "E", "true"))),
			Stacks: []Stack{{Prefix: "convbert.encoder.layer.{l}.", Layers: "L", Tensors: cat(
				convBertAttn("attention."),
				// The cross-attention is a ConvBERT attention too (oracle).
				when("cross", convBertAttn("crossattention.")),
				groupedLinear("intermediate.dense", "I", "H", "G"), groupedLinear("output.dense", "H", "I", "G"), norm("output.LayerNorm", "H", "true"))}},
			Embed: "convbert.embeddings.word_embeddings.weight",
			Tasks: encTasks("convbert.", nil,
				encHead{Suffix: TaskMaskedLM, HeadName: "generator_lm_head.weight", Head: cat(
					linear("generator_predictions.dense", "E", "H", "true"), norm("generator_predictions.LayerNorm", "E", "true"),
					[]T{{Name: "generator_lm_head.weight", Shape: []string{"V", "E"}, Role: RoleHead, Optional: "tied"}}, vec("generator_lm_head.bias", "V"))},
				encHead{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
				encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true},
				encHead{Suffix: TaskMultChoice, Head: cat(seqSummary(), choiceHead("classifier", "H"))}),
		}
	},
	// SqueezeBERT: every projection a grouped 1×1 convolution; the base
	// model is transformer. in the task classes, each with the pooler.
	func() *Family {
		return &Family{Name: "SqueezeBERT", Class: "SqueezeBert", ModelTypes: []string{"squeezebert"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("30522", "768", "12", "3072", "512", "2"), noRelPos, []Def{
				{Sym: "E", Field: "embedding_size", Default: "768", Legend: "E", Desc: "embedding width", Show: true, Pos: true},
				field("qg", "q_groups", "4", "query groups"), field("kg", "k_groups", "4", "key groups"), field("vg", "v_groups", "4", "value groups"),
				field("pg", "post_attention_groups", "1", "post-attention groups"), field("ig", "intermediate_groups", "4", "intermediate groups"),
				field("og", "output_groups", "4", "output groups"), tie("true")}),
			BasePrefix: "transformer.",
			Global:     bertEmbeddings("transformer.embeddings.", "E", true, true),
			Stacks: []Stack{{Prefix: "transformer.encoder.layers.{l}.", Layers: "L", Tensors: cat(
				conv1x1("attention.query", "H", "H", "qg"), conv1x1("attention.key", "H", "H", "kg"), conv1x1("attention.value", "H", "H", "vg"),
				conv1x1("post_attention.conv1d", "H", "H", "pg"), norm("post_attention.layernorm", "H", "true"),
				conv1x1("intermediate.conv1d", "I", "H", "ig"), conv1x1("output.conv1d", "H", "I", "og"), norm("output.layernorm", "H", "true"))}},
			Final: pooler("transformer."),
			Embed: "transformer.embeddings.word_embeddings.weight",
			Tasks: encTasks("transformer.", nil,
				encHead{Suffix: TaskMaskedLM, Head: mlmHead("cls.predictions.", "H", true), HeadName: "cls.predictions.decoder.weight"},
				encHead{Suffix: HeadSeqCls, Head: classifier("classifier", "H"), Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
				encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true},
				encHead{Suffix: TaskMultChoice, Head: choiceHead("classifier", "H")}),
		}
	},
	// ESM: pre-LN BERT layers, absolute, relative or rotary positions
	// (rotary: an inv_freq buffer per layer), a contact-prediction head over
	// every layer's attention maps in the base model; 5.x writes the layers'
	// LayerNorms as gamma and beta.
	func() *Family {
		return &Family{Name: "ESM", Class: "Esm", ModelTypes: []string{"esm"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("", "768", "12", "3072", "1026", "1"), relPos, []Def{
				flag("lnBefore", "emb_layer_norm_before", "false", "a LayerNorm after the embeddings"),
				tie("true")}),
			Global: cat(embed("esm.embeddings.word_embeddings.weight"),
				when("lnBefore", norm("esm.embeddings.layer_norm", "H", "true")),
				[]T{{Name: "esm.embeddings.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding, If: "pos_type == 'absolute'"}}),
			Stacks: []Stack{{Prefix: "esm.encoder.layer.{l}.", Layers: "L", Tensors: cat(
				normGB("attention.LayerNorm", "H"), bertAttn("attention."),
				[]T{{Name: "attention.self.rotary_embeddings.inv_freq", Shape: []string{"(d+1)/2"}, Role: RoleNorm, AnyDType: true, If: "pos_type == 'rotary'"}},
				when("cross", normGB("crossattention.LayerNorm", "H"), bertAttn("crossattention."),
					[]T{{Name: "crossattention.self.rotary_embeddings.inv_freq", Shape: []string{"(d+1)/2"}, Role: RoleNorm, AnyDType: true, If: "pos_type == 'rotary'"}}),
				normGB("LayerNorm", "H"), linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"))}},
			Final: cat(norm("esm.encoder.emb_layer_norm_after", "H", "true"), linear("esm.contact_head.regression", "1", "L*heads", "true")),
			Embed: "esm.embeddings.word_embeddings.weight",
			Tasks: encTasks("esm.", pooler(""),
				encHead{Suffix: TaskMaskedLM, Head: robertaHead(), HeadName: "lm_head.decoder.weight"},
				encHead{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true}),
		}
	},
	// LayoutLM: BERT with 2-D position embeddings (x, y, h, w); every
	// class keeps the pooler.
	func() *Family {
		return &Family{Name: "LayoutLM", Class: "LayoutLM", ModelTypes: []string{"layoutlm"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("30522", "768", "12", "3072", "512", "2"), noRelPos, []Def{
				{Sym: "P2", Field: "max_2d_position_embeddings", Default: "1024", Desc: "2-D positions", Pos: true}, tie("true")}),
			Global: cat(bertEmbeddings("layoutlm.embeddings.", "H", true, true),
				[]T{{Name: "layoutlm.embeddings.x_position_embeddings.weight", Shape: []string{"P2", "H"}, Role: RoleEmbedding},
					{Name: "layoutlm.embeddings.y_position_embeddings.weight", Shape: []string{"P2", "H"}, Role: RoleEmbedding},
					{Name: "layoutlm.embeddings.h_position_embeddings.weight", Shape: []string{"P2", "H"}, Role: RoleEmbedding},
					{Name: "layoutlm.embeddings.w_position_embeddings.weight", Shape: []string{"P2", "H"}, Role: RoleEmbedding}}),
			Stacks: []Stack{{Prefix: "layoutlm.encoder.layer.{l}.", Layers: "L", Tensors: postLN}},
			Final:  pooler("layoutlm."),
			Embed:  "layoutlm.embeddings.word_embeddings.weight",
			Tasks: encTasks("layoutlm.", nil, cat([]encHead{
				{Suffix: TaskMaskedLM, Head: mlmHead("cls.predictions.", "H", true), HeadName: "cls.predictions.decoder.weight"}},
				stdEncHeads(false, false))...),
		}
	},
	// NEZHA: BERT without absolute positions (functional relative ones).
	func() *Family {
		return &Family{Name: "NEZHA", Class: "Nezha", ModelTypes: []string{"nezha"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("21128", "768", "12", "3072", "512", "2"), noRelPos, []Def{tie("true")}),
			Global: cat(embed("nezha.embeddings.word_embeddings.weight"),
				[]T{{Name: "nezha.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "H"}, Role: RoleEmbedding}},
				norm("nezha.embeddings.LayerNorm", "H", "true")),
			Stacks: []Stack{{Prefix: "nezha.encoder.layer.{l}.", Layers: "L", Tensors: postLN}},
			Embed:  "nezha.embeddings.word_embeddings.weight",
			Tasks: encTasks("nezha.", pooler(""), cat([]encHead{
				{Suffix: TaskMaskedLM, Head: mlmHead("cls.predictions.", "H", true), HeadName: "cls.predictions.decoder.weight"},
				{Suffix: TaskPreTrain, Head: cat(mlmHead("cls.predictions.", "H", true), nsp), Pool: true, HeadName: "cls.predictions.decoder.weight"},
				{Suffix: TaskNextSent, Head: nsp, Pool: true}},
				stdEncHeads(true, true))...),
		}
	},
	// YOSO and Nyströmformer: BERT layers with max_position_embeddings+2
	// positions and an optional depthwise convolution over each head's
	// values (conv_window, conv_kernel_size); no pooler.
	func() *Family {
		return bertNoPool("YOSO", "Yoso", "yoso", bertDefs("50265", "768", "12", "3072", "4096", "1"), "conv_window", "0")
	},
	func() *Family {
		return bertNoPool("Nyströmformer", "Nystromformer", "nystromformer", bertDefs("30000", "768", "12", "3072", "510", "2"), "conv_kernel_size", "65")
	},
	// Splinter: BERT without pooler; its QA and pre-training heads are the
	// question-aware span selection (splinter_qass).
	func() *Family {
		return &Family{Name: "Splinter", Class: "Splinter", ModelTypes: []string{"splinter"}, Causal: "-", SeqCls: "-",
			// Splinter and MarkupLM ignore position_embedding_type (oracle).
			Defs:   cat(bertDefs("30522", "768", "12", "3072", "512", "2"), noRelPos, []Def{tie("true")}),
			Global: bertEmbeddings("splinter.embeddings.", "H", true, true),
			Stacks: []Stack{{Prefix: "splinter.encoder.layer.{l}.", Layers: "L", Tensors: postLN}},
			Embed:  "splinter.embeddings.word_embeddings.weight",
			Tasks: encTasks("splinter.", nil,
				encHead{Suffix: TaskQA, Head: splinterQASS}, encHead{Suffix: TaskPreTrain, Head: splinterQASS}),
		}
	},
	// ERNIE-M: a paddle-style encoder (self_attn, linear1/2, norm1/2),
	// positions but no token types.
	func() *Family {
		return &Family{Name: "ERNIE-M", Class: "ErnieM", ModelTypes: []string{"ernie_m"}, Causal: "-", SeqCls: "-",
			Defs:   cat(bertDefs("250002", "768", "12", "3072", "514", "2"), relPos, []Def{tie("true")}),
			Global: cat(bertEmbeddings("ernie_m.embeddings.", "H", false, false), norm("ernie_m.embeddings.layer_norm", "H", "true")),
			Stacks: []Stack{{Prefix: "ernie_m.encoder.layers.{l}.", Layers: "L", Tensors: cat(
				linear("self_attn.self_attn.q_proj", "H", "H", "true"), linear("self_attn.self_attn.k_proj", "H", "H", "true"),
				linear("self_attn.self_attn.v_proj", "H", "H", "true"),
				[]T{{Name: "self_attn.self_attn.distance_embedding.weight", Shape: []string{"2*P-1", "d"}, Role: RoleEmbedding, If: "rel"}},
				linear("self_attn.out_proj", "H", "H", "true"),
				linear("linear1", "I", "H", "true"), linear("linear2", "H", "I", "true"), norm("norm1", "H", "true"), norm("norm2", "H", "true"))}},
			Embed: "ernie_m.embeddings.word_embeddings.weight",
			Tasks: encTasks("ernie_m.", pooler(""), stdEncHeads(true, true)...),
		}
	},
	// LiLT: a text stream (BERT) beside a layout stream of H/r channels
	// (channel_shrink_ratio) with its own 2-D embeddings and layers.
	func() *Family {
		return &Family{Name: "LiLT", Class: "Lilt", ModelTypes: []string{"lilt"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
				{Sym: "r", Field: "channel_shrink_ratio", Default: "4", Desc: "layout channels: H/{r}", Pos: true},
				{Sym: "P2", Field: "max_2d_position_embeddings", Default: "1024", Desc: "2-D positions", Pos: true}, tie("true")}),
			Global: cat(bertEmbeddings("lilt.embeddings.", "H", true, true),
				[]T{{Name: "lilt.layout_embeddings.x_position_embeddings.weight", Shape: []string{"P2", "H/6"}, Role: RoleEmbedding},
					{Name: "lilt.layout_embeddings.y_position_embeddings.weight", Shape: []string{"P2", "H/6"}, Role: RoleEmbedding},
					{Name: "lilt.layout_embeddings.h_position_embeddings.weight", Shape: []string{"P2", "H/6"}, Role: RoleEmbedding},
					{Name: "lilt.layout_embeddings.w_position_embeddings.weight", Shape: []string{"P2", "H/6"}, Role: RoleEmbedding},
					{Name: "lilt.layout_embeddings.box_position_embeddings.weight", Shape: []string{"P", "H/r"}, Role: RoleEmbedding}},
				linear("lilt.layout_embeddings.box_linear_embeddings", "H/r", "H", "true"), norm("lilt.layout_embeddings.LayerNorm", "H/r", "true")),
			Stacks: []Stack{{Prefix: "lilt.encoder.layer.{l}.", Layers: "L", Tensors: cat(postLN,
				linear("attention.self.layout_query", "H/r", "H/r", "true"), linear("attention.self.layout_key", "H/r", "H/r", "true"),
				linear("attention.self.layout_value", "H/r", "H/r", "true"),
				linear("attention.layout_output.dense", "H/r", "H/r", "true"), norm("attention.layout_output.LayerNorm", "H/r", "true"),
				linear("layout_intermediate.dense", "I/r", "H/r", "true"), linear("layout_output.dense", "H/r", "I/r", "true"),
				norm("layout_output.LayerNorm", "H/r", "true"))}},
			Embed: "lilt.embeddings.word_embeddings.weight",
			Tasks: encTasks("lilt.", pooler(""),
				encHead{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
				encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true}),
		}
	},
	// MarkupLM: BERT with XPath embeddings, one tag and one subscript
	// table per depth level (max_depth) of xpath_unit_hidden_size U.
	func() *Family {
		return &Family{Name: "MarkupLM", Class: "MarkupLM", ModelTypes: []string{"markuplm"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("30522", "768", "12", "3072", "512", "2"), noRelPos, []Def{
				{Sym: "D", Field: "max_depth", Default: "50", Desc: "XPath depth", Pos: true, Max: MaxLayers},
				{Sym: "U", Field: "xpath_unit_hidden_size", Default: "32", Desc: "XPath unit width", Pos: true},
				{Sym: "XT", Field: "max_xpath_tag_unit_embeddings", Default: "256", Desc: "XPath tags", Pos: true},
				{Sym: "XS", Field: "max_xpath_subs_unit_embeddings", Default: "1024", Desc: "XPath subscripts", Pos: true}, tie("true")}),
			Global: cat(bertEmbeddings("markuplm.embeddings.", "H", true, true),
				linear("markuplm.embeddings.xpath_embeddings.xpath_unitseq2_embeddings", "H", "U*D", "true"),
				linear("markuplm.embeddings.xpath_embeddings.xpath_unitseq2_inner", "4*H", "U*D", "true"),
				linear("markuplm.embeddings.xpath_embeddings.inner2emb", "H", "4*H", "true"),
				[]T{{Name: "markuplm.embeddings.xpath_embeddings.xpath_tag_sub_embeddings.{e}.weight", Shape: []string{"XT", "U"}, Role: RoleEmbedding, Experts: "D"},
					{Name: "markuplm.embeddings.xpath_embeddings.xpath_subs_sub_embeddings.{e}.weight", Shape: []string{"XS", "U"}, Role: RoleEmbedding, Experts: "D"}}),
			Stacks: []Stack{{Prefix: "markuplm.encoder.layer.{l}.", Layers: "L", Tensors: postLN}},
			Embed:  "markuplm.embeddings.word_embeddings.weight",
			Tasks: encTasks("markuplm.", pooler(""),
				encHead{Suffix: HeadSeqCls, Head: classifier("classifier", "H"), Pool: true, Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
				encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true}),
		}
	},
	// FNet: Fourier mixing instead of attention (no parameters), a
	// projection after the embeddings; every class keeps the pooler.
	func() *Family {
		return &Family{Name: "FNet", Class: "FNet", ModelTypes: []string{"fnet"}, Causal: "-", SeqCls: "-",
			Defs: cat(trunk("32000", "768", "12", "encoder layers"), []Def{inner("intermediate_size", "3072"),
				{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "learned positions", Show: true, Pos: true},
				{Sym: "TV", Field: "type_vocab_size", Default: "4", Desc: "token types", Pos: true}, tie("true")}),
			Global: cat(bertEmbeddings("fnet.embeddings.", "H", true, true), linear("fnet.embeddings.projection", "H", "H", "true")),
			Stacks: []Stack{{Prefix: "fnet.encoder.layer.{l}.", Layers: "L", Tensors: cat(norm("fourier.output.LayerNorm", "H", "true"),
				linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))}},
			Final: pooler("fnet."),
			Embed: "fnet.embeddings.word_embeddings.weight",
			Tasks: encTasks("fnet.", nil, cat([]encHead{
				{Suffix: TaskMaskedLM, Head: mlmHead("cls.predictions.", "H", true), HeadName: "cls.predictions.decoder.weight"},
				{Suffix: TaskPreTrain, Head: cat(mlmHead("cls.predictions.", "H", true), nsp), HeadName: "cls.predictions.decoder.weight"},
				{Suffix: TaskNextSent, Head: nsp}},
				stdEncHeads(false, false))...),
		}
	},
	// MobileBERT: narrow layers of T = intra_bottleneck_size (with
	// use_bottleneck) inside the H-wide stream, bottlenecks in and out,
	// num_feedforward_networks stacked FFNs, trigram input embeddings of
	// E; its norms (NoNorm or LayerNorm) both have weight and bias.
	func() *Family {
		return &Family{Name: "MobileBERT", Class: "MobileBert", ModelTypes: []string{"mobilebert"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("30522", "512", "4", "512", "512", "2"), noRelPos, []Def{
				{Sym: "E", Field: "embedding_size", Default: "128", Legend: "E", Desc: "embedding width", Show: true, Pos: true},
				{Sym: "B", Field: "intra_bottleneck_size", Default: "128", Desc: "bottleneck width", Pos: true},
				flag("tri", "trigram_input", "true", "trigram input embeddings (3·E)"),
				flag("bn", "use_bottleneck", "true", "layers work at the bottleneck width"),
				flag("bnAttn", "use_bottleneck_attention", "false", "values from the bottleneck"),
				flag("kqShared", "key_query_shared_bottleneck", "true", "a bottleneck for keys and queries"),
				{Sym: "NF", Field: "num_feedforward_networks", Default: "4", Desc: "FFNs per layer", Pos: true, Max: MaxLayers},
				flag("clsAct", "classifier_activation", "true", "the pooler has a dense layer"),
				// 5.x's config keeps a true_hidden_size config.json gives
				// (its __post_init__ value is overwritten); 4.x derives it.
				{Sym: "Tj", Field: "true_hidden_size", Default: "0", Null: "0", Desc: "layer width as 5.x reads it"},
				derived("T", "tf5 && Tj > 0 ? Tj : (bn ? B : H)"), derived("A", "heads*(T/heads)"),
				tie("true")}),
			Global: cat([]T{{Name: "mobilebert.embeddings.word_embeddings.weight", Shape: []string{"V", "E"}, Role: RoleEmbedding},
				{Name: "mobilebert.embeddings.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding},
				{Name: "mobilebert.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "H"}, Role: RoleEmbedding}},
				linear("mobilebert.embeddings.embedding_transformation", "H", "tri ? 3*E : E", "true"), norm("mobilebert.embeddings.LayerNorm", "H", "true")),
			Stacks: []Stack{{Prefix: "mobilebert.encoder.layer.{l}.", Layers: "L", Tensors: cat(
				linear("attention.self.query", "A", "T", "true"), linear("attention.self.key", "A", "T", "true"),
				linear("attention.self.value", "A", "bnAttn ? T : H", "true"),
				linear("attention.output.dense", "T", "T", "true"), norm("attention.output.LayerNorm", "T", "true"),
				linear("intermediate.dense", "I", "T", "true"), linear("output.dense", "T", "I", "true"), norm("output.LayerNorm", "T", "true"),
				when("bn", linear("output.bottleneck.dense", "H", "T", "true"), norm("output.bottleneck.LayerNorm", "H", "true"),
					linear("bottleneck.input.dense", "B", "H", "true"), norm("bottleneck.input.LayerNorm", "B", "true")),
				when("bn && kqShared", linear("bottleneck.attention.dense", "B", "H", "true"), norm("bottleneck.attention.LayerNorm", "B", "true")),
				when("NF > 1", perBlock("NF-1", cat(linear("ffn.{e}.intermediate.dense", "I", "T", "true"),
					linear("ffn.{e}.output.dense", "T", "I", "true"), norm("ffn.{e}.output.LayerNorm", "T", "true")))))}},
			Embed: "mobilebert.embeddings.word_embeddings.weight",
			Tasks: encTasks("mobilebert.", when("clsAct", pooler("")), cat([]encHead{
				{Suffix: TaskMaskedLM, Head: mobileBertMLM, HeadName: "cls.predictions.decoder.weight"},
				{Suffix: TaskPreTrain, Head: cat(mobileBertMLM, nsp), Pool: true, HeadName: "cls.predictions.decoder.weight"},
				{Suffix: TaskNextSent, Head: nsp, Pool: true}},
				stdEncHeads(true, true))...),
		}
	},
	// Funnel Transformer: blocks of block_sizes layers (pooled between
	// blocks, no parameters), relative attention with [H, heads, d]
	// kernels, and a decoder of num_decoder_layers upsampled layers that
	// FunnelBaseModel and its sequence and choice heads leave out (dec).
	func() *Family {
		return &Family{Name: "Funnel", Class: "Funnel", ModelTypes: []string{"funnel"}, Causal: "-", SeqCls: "-",
			Defs: []Def{
				{Sym: "V", Field: "vocab_size", Default: "30522", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
				{Sym: "H", Field: "d_model", Default: "768", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
				{Sym: "bs", Field: "block_sizes", Type: List, Default: "list(4, 4, 4)", Desc: "layers per block"},
				{Sym: "ND", Field: "num_decoder_layers", Default: "2", Desc: "decoder layers", Max: MaxLayers},
				{Sym: "heads", Field: "n_head", Default: "12", Desc: "attention heads", Show: true, Pos: true},
				{Sym: "d", Field: "d_head", Default: "64", Legend: "d", Desc: "width of one head", Show: true, Pos: true},
				inner("d_inner", "3072"),
				derived("dec", "true"), tie("true")},
			Global: cat(embed("funnel.embeddings.word_embeddings.weight"), norm("funnel.embeddings.layer_norm", "H", "true")),
			Stacks: []Stack{{Prefix: "funnel.encoder.blocks.{l}.", Layers: "len(bs)", Tensors: perBlock("at(bs, l)", funnelLayer("{e}."))},
				{Prefix: "funnel.decoder.layers.{l}.", Layers: "dec ? ND : 0", Name: "decoder", Tensors: funnelLayer("")}},
			Embed: "funnel.embeddings.word_embeddings.weight",
			Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
				{Suffix: "BaseModel", Prefix: "-", Defs: []Def{derived("dec", "false")}},
				{Suffix: TaskMaskedLM, HeadName: "lm_head.weight", Head: []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
					{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias}}},
				{Suffix: TaskPreTrain, Head: cat(linear("discriminator_predictions.dense", "H", "H", "true"), linear("discriminator_predictions.dense_prediction", "1", "H", "true"))},
				{Suffix: HeadSeqCls, Defs: []Def{derived("dec", "false")}, Labels: true,
					Head: cat(linear("classifier.linear_hidden", "H", "H", "true"), linear("classifier.linear_out", "C", "H", "true"))},
				{Suffix: TaskMultChoice, Defs: []Def{derived("dec", "false")},
					Head: cat(linear("classifier.linear_hidden", "H", "H", "true"), linear("classifier.linear_out", "1", "H", "true"))},
				{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
				{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true}},
		}
	},
	// DPR: a BERT without pooler under question_encoder, ctx_encoder or
	// span_predictor.encoder, with a projection of projection_dim (0: none).
	func() *Family {
		return &Family{Name: "DPR", Class: "DPR", ModelTypes: []string{"dpr"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
				{Sym: "proj", Field: "projection_dim", Default: "0", Desc: "output projection (0: none)"}, tie("true")}),
			BasePrefix: "question_encoder.bert_model.",
			Global:     bertEmbeddings("question_encoder.bert_model.embeddings.", "H", true, true),
			Stacks:     []Stack{{Prefix: "question_encoder.bert_model.encoder.layer.{l}.", Layers: "L", Tensors: postLN}},
			Embed:      "question_encoder.bert_model.embeddings.word_embeddings.weight",
			Tasks: []Task{{Suffix: "QuestionEncoder", Head: when("proj > 0", linear("question_encoder.encode_proj", "proj", "H", "true"))},
				{Suffix: "ContextEncoder", Prefix: "ctx_encoder.bert_model.", Head: when("proj > 0", linear("ctx_encoder.encode_proj", "proj", "H", "true"))},
				{Suffix: "Reader", Prefix: "span_predictor.encoder.bert_model.", Head: cat(
					when("proj > 0", linear("span_predictor.encoder.encode_proj", "proj", "H", "true")),
					linear("span_predictor.qa_outputs", "2", "proj > 0 ? proj : H", "true"),
					linear("span_predictor.qa_classifier", "1", "proj > 0 ? proj : H", "true"))}},
		}
	},
	// EuroBERT (5.x): Llama's layers without a causal mask; the masked-LM
	// head is lm_head with mlp_bias's bias.
	func() *Family {
		return &Family{Name: "EuroBERT", Class: "EuroBert", ModelTypes: []string{"eurobert"}, Causal: "-", SeqCls: "-",
			Defs: cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "128256", "H", "768", "L", "12", "heads", "12", "I", "3072"),
				[]Def{attnBiasFlag, mlpBiasFlag, tie("false")}),
			Global: embed("model.embed_tokens.weight"),
			Stacks: decoderLayers(nil, llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias"))),
			Final:  norm("model.norm", "H", ""),
			Embed:  "model.embed_tokens.weight",
			Tasks: encTasks("model.", nil,
				encHead{Suffix: TaskMaskedLM, HeadName: "lm_head.weight", Head: []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
					{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "mlp_bias"}}},
				encHead{Suffix: HeadSeqCls, Head: cat(linear("dense", "H", "H", "true"), classifier("classifier", "H")), Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true}),
		}
	},
	// Nomic BERT (5.x): rotary post-LN layers with a fused Wqkv and a
	// SwiGLU MLP (fc11, fc12, fc2), saved under the original checkpoint's
	// names; the pooler only in the sequence classifier.
	func() *Family {
		return &Family{Name: "Nomic BERT", Class: "NomicBert", ModelTypes: []string{"nomic_bert"}, Causal: "-", SeqCls: "-",
			Defs: cat(withoutDefs(bertDefs("30528", "768", "12", "3072", "2048", "2"), "d"), []Def{
				{Sym: "d", Field: "head_dim", Default: "H/heads", Null: "H/heads", Legend: "d", Desc: "width of one head", Pos: true}, tie("true")}),
			Global: cat(embed("nomic_bert.embeddings.word_embeddings.weight"),
				[]T{{Name: "nomic_bert.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "H"}, Role: RoleEmbedding}},
				norm("nomic_bert.emb_ln", "H", "true")),
			Stacks: []Stack{{Prefix: "nomic_bert.encoder.layers.{l}.", Layers: "L", Tensors: cat(
				linear("attn.Wqkv", "3*heads*d", "H", ""), linear("attn.out_proj", "H", "heads*d", ""), norm("norm1", "H", "true"),
				linear("mlp.fc11", "I", "H", ""), linear("mlp.fc12", "I", "H", ""), linear("mlp.fc2", "H", "I", ""), norm("norm2", "H", "true"))}},
			Embed: "nomic_bert.embeddings.word_embeddings.weight",
			Tasks: encTasks("nomic_bert.", nil,
				encHead{Suffix: TaskMaskedLM, HeadName: "cls.predictions.decoder.weight", Head: cat(
					linear("cls.predictions.transform.dense", "H", "H", "true"), norm("cls.predictions.transform.layer_norm", "H", "true"),
					vec("cls.predictions.bias", "V"),
					[]T{{Name: "cls.predictions.decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
						{Name: "cls.predictions.decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}})},
				encHead{Suffix: HeadSeqCls, Head: cat(pooler("nomic_bert."), classifier("classifier", "H")), Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true}),
		}
	},
	// Jina Embeddings v3 (5.x): XLM-R's vocabulary over rotary post-LN
	// layers with a fused Wqkv (mixer) and a plain MLP, saved under the
	// original checkpoint's names; RoBERTa's heads under roberta.
	func() *Family {
		return &Family{Name: "Jina Embeddings v3", Class: "JinaEmbeddingsV3", ModelTypes: []string{"jina_embeddings_v3"}, Causal: "-", SeqCls: "-",
			Defs: cat(bertDefs("250002", "1024", "16", "4096", "8194", "1"), []Def{tie("true")}),
			Global: cat(embed("roberta.embeddings.word_embeddings.weight"),
				[]T{{Name: "roberta.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "H"}, Role: RoleEmbedding}},
				norm("roberta.emb_ln", "H", "true")),
			Stacks: []Stack{{Prefix: "roberta.encoder.layers.{l}.", Layers: "L", Tensors: cat(
				linear("mixer.Wqkv", "3*H", "H", "true"), linear("mixer.out_proj", "H", "H", "true"), norm("norm1", "H", "true"),
				linear("mlp.fc1", "I", "H", "true"), linear("mlp.fc2", "H", "I", "true"), norm("norm2", "H", "true"))}},
			Embed: "roberta.embeddings.word_embeddings.weight",
			Tasks: encTasks("roberta.", pooler(""),
				encHead{Suffix: TaskMaskedLM, Head: robertaHead(), HeadName: "lm_head.decoder.weight"},
				encHead{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
				encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
				encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true}),
		}
	},
)

// splinterQASS is Splinter's question-aware span selection head.
var splinterQASS = cat(
	linear("splinter_qass.query_start_transform.dense", "H", "H", "true"), norm("splinter_qass.query_start_transform.LayerNorm", "H", "true"),
	linear("splinter_qass.query_end_transform.dense", "H", "H", "true"), norm("splinter_qass.query_end_transform.LayerNorm", "H", "true"),
	linear("splinter_qass.start_transform.dense", "H", "H", "true"), norm("splinter_qass.start_transform.LayerNorm", "H", "true"),
	linear("splinter_qass.end_transform.dense", "H", "H", "true"), norm("splinter_qass.end_transform.LayerNorm", "H", "true"),
	linear("splinter_qass.start_classifier", "H", "H", ""), linear("splinter_qass.end_classifier", "H", "H", ""))

// bertNoPool is a BERT-layout encoder without pooler whose positions are
// max_position_embeddings+2 and whose attention has an optional per-head
// convolution of kernel convField (null: none), with BERT's masked-LM head,
// RoBERTa's sequence classifier and a pre-classifier before the choice
// head (YOSO, Nyströmformer).
func bertNoPool(name, class, mt string, defs []Def, convField, convDef string) *Family {
	base := strings.ToLower(class) + "."
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: cat(defs, noRelPos, []Def{{Sym: "ck", Field: convField, Default: convDef, Null: "0", Desc: "per-head convolution kernel (null: none)"}, tie("true")}),
		Global: cat(embed(base+"embeddings.word_embeddings.weight"),
			[]T{{Name: base + "embeddings.position_embeddings.weight", Shape: []string{"P+2", "H"}, Role: RoleEmbedding},
				{Name: base + "embeddings.token_type_embeddings.weight", Shape: []string{"TV", "H"}, Role: RoleEmbedding}},
			norm(base+"embeddings.LayerNorm", "H", "true")),
		Stacks: []Stack{{Prefix: base + "encoder.layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.self.query", "H", "H", "true"), linear("attention.self.key", "H", "H", "true"), linear("attention.self.value", "H", "H", "true"),
			[]T{{Name: "attention.self.conv.weight", Shape: []string{"heads", "1", "ck", "1"}, Role: RoleLinear, If: "ck > 0"}},
			linear("attention.output.dense", "H", "H", "true"), norm("attention.output.LayerNorm", "H", "true"),
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))}},
		Embed: base + "embeddings.word_embeddings.weight",
		Tasks: encTasks(base, nil,
			encHead{Suffix: TaskMaskedLM, Head: mlmHead("cls.predictions.", "H", true), HeadName: "cls.predictions.decoder.weight"},
			encHead{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
			encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
			encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true},
			encHead{Suffix: TaskMultChoice, Head: cat(linear("pre_classifier", "H", "H", "true"), choiceHead("classifier", "H"))}),
	}
}

// mobileBertMLM is MobileBERT's masked-LM head: BERT's transform, a dense
// [H-E, V] that widens the tied decoder [V, E] to H, the bias.
var mobileBertMLM = cat(
	linear("cls.predictions.transform.dense", "H", "H", "true"), norm("cls.predictions.transform.LayerNorm", "H", "true"),
	[]T{{Name: "cls.predictions.dense.weight", Shape: []string{"H-E", "V"}, Role: RoleLinear},
		{Name: "cls.predictions.decoder.weight", Shape: []string{"V", "E"}, Role: RoleHead, Optional: "tied"},
		{Name: "cls.predictions.decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}},
	vec("cls.predictions.bias", "V"))

// funnelLayer is a Funnel Transformer layer under pre: relative
// attention (q without bias, k and v with, [H, heads, d] position
// kernel, segment embeddings) and its FFN, each with a LayerNorm.
func funnelLayer(pre string) []T {
	return cat(
		linear(pre+"attention.q_head", "heads*d", "H", ""), linear(pre+"attention.k_head", "heads*d", "H", "true"),
		linear(pre+"attention.v_head", "heads*d", "H", "true"),
		[]T{{Name: pre + "attention.r_w_bias", Shape: []string{"heads", "d"}, Role: RoleNorm},
			{Name: pre + "attention.r_r_bias", Shape: []string{"heads", "d"}, Role: RoleNorm},
			{Name: pre + "attention.r_kernel", Shape: []string{"H", "heads", "d"}, Role: RoleLinear},
			{Name: pre + "attention.r_s_bias", Shape: []string{"heads", "d"}, Role: RoleNorm},
			{Name: pre + "attention.seg_embed", Shape: []string{"2", "heads", "d"}, Role: RoleEmbedding}},
		linear(pre+"attention.post_proj", "H", "heads*d", "true"), norm(pre+"attention.layer_norm", "H", "true"),
		linear(pre+"ffn.linear_1", "I", "H", "true"), linear(pre+"ffn.linear_2", "H", "I", "true"), norm(pre+"ffn.layer_norm", "H", "true"))
}

// megaTasks are Mega's task classes: the pooler in the base model and the
// choice head, the masked LM's optional dense then mlm_head tied to the
// word embeddings.
var megaTasks = encTasks("mega.", pooler(""),
	encHead{Suffix: TaskMaskedLM, HeadName: "mlm_head.weight", Head: cat(when("dense", linear("dense", "H", "H", "true")),
		[]T{{Name: "mlm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}, vec("mlm_head.bias", "V"))},
	encHead{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
	encHead{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
	encHead{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true},
	encHead{Suffix: TaskMultChoice, Head: choiceHead("classifier", "H"), Pool: true})

// debertaDefs are the fields both DeBERTa versions read, with a class's
// defaults: V, H, L, heads, F, positions, token types, the embedding
// width and the position switches.
func debertaDefs(vocab, hidden, layers, heads, ffn string) []Def {
	return cat(trunk(vocab, hidden, layers, "encoder layers"), []Def{
		encHeads("num_attention_heads", heads), inner("intermediate_size", ffn),
		{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "positions", Show: true, Pos: true},
		{Sym: "TV", Field: "type_vocab_size", Default: "0", Desc: "token types (0: none)"},
		{Sym: "E", Field: "embedding_size", Default: "H", Null: "H", Legend: "E", Desc: "embedding width", Pos: true},
		flag("pbi", "position_biased_input", "true", "absolute position embeddings are added"),
		flag("rel", "relative_attention", "false", "disentangled relative attention"),
	})
}

// debertaEmbeddings are DeBERTa's embeddings (v1 and v2): word,
// position (where position_biased_input) and token-type tables E wide,
// projected to H where E differs, and their norm.
func debertaEmbeddings() []T {
	return cat([]T{{Name: "deberta.embeddings.word_embeddings.weight", Shape: []string{"V", "E"}, Role: RoleEmbedding, Optional: "wordTied"},
		{Name: "deberta.embeddings.position_embeddings.weight", Shape: []string{"P", "E"}, Role: RoleEmbedding, If: "pbi"},
		{Name: "deberta.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "E"}, Role: RoleEmbedding, If: "TV > 0"}},
		when("E != H", linear("deberta.embeddings.embed_proj", "H", "E", "")),
		norm("deberta.embeddings.LayerNorm", "H", "true"))
}

// convBertAttn is ConvBERT's attention under pre: heads of half width
// beside a span-based dynamic convolution, then the output dense and
// its norm.
func convBertAttn(pre string) []T {
	return cat(
		linear(pre+"self.query", "A", "H", "true"), linear(pre+"self.key", "A", "H", "true"), linear(pre+"self.value", "A", "H", "true"),
		[]T{{Name: pre + "self.key_conv_attn_layer.depthwise.weight", Shape: []string{"H", "1", "k"}, Role: RoleLinear},
			{Name: pre + "self.key_conv_attn_layer.pointwise.weight", Shape: []string{"A", "H", "1"}, Role: RoleLinear},
			{Name: pre + "self.key_conv_attn_layer.bias", Shape: []string{"A", "1"}, Role: RoleBias}},
		linear(pre+"self.conv_kernel_layer", "nh*k", "A", "true"), linear(pre+"self.conv_out_layer", "A", "H", "true"),
		linear(pre+"output.dense", "H", "H", "true"), norm(pre+"output.LayerNorm", "H", "true"),
	)
}
