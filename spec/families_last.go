package spec

import "fmt"

// The last architectures of the reference layouts (issue #21): GIT, …
// Each row is built from the shared blocks of blocks.go and the encoder
// and vision helpers of families_encoder.go and families_vision.go.

// gitDefs are GitConfig's fields (a BERT-like decoder without
// cross-attention) and GitVisionConfig's (a CLIP tower), with their
// classes' defaults.
func gitDefs() []Def {
	text := bertDefs("30522", "768", "6", "3072", "1024", "2")[:7]
	text[2].Default = "6"
	return cat(text, relPos, []Def{
		derived("cross", "false"),
		tie("false"),
		{Sym: "nimg", Field: "num_image_with_embedding", Default: "0", Null: "=", Desc: "temporal embeddings of video frames"},
		derived("vmt", "'git_vision_model'"),
		derived("clip", "true"), derived("pix", "false"), derived("s2", "false"), derived("vhead", "false"), derived("vNP", "0"),
	}, vTower(vcfg, "768", "12", "3072", "16"), []Def{
		{Sym: "vS", Field: "vision_config.image_size", Default: "224", Desc: "image side, pixels", Pos: true},
		{Sym: "vC", Field: "vision_config.num_channels", Default: "3", Desc: "image channels", Pos: true},
		derived("vN", "(vS/vP)*(vS/vP)"),
	})
}

var _ = register(func() *Family {
	g, s, f := visionTower("git.image_encoder.vision_model.", "git.image_encoder.")
	return &Family{Name: "GIT", Class: "Git", ModelTypes: []string{"git"}, Causal: "GitForCausalLM", SeqCls: "-",
		Defs: gitDefs(),
		Global: cat(bertEmbeddings("git.embeddings.", "H", false, true), g,
			[]T{{Name: "git.img_temporal_embedding.{e}", Shape: []string{"1", "1", "vH"}, Role: RoleEmbedding, Experts: "nimg"}}),
		Stacks: append(s, Stack{Prefix: "git.encoder.layer.{l}.", Layers: "L", Tensors: postLN}),
		Final: cat(f,
			linear("git.visual_projection.visual_projection.0", "H", "vH", "true"),
			norm("git.visual_projection.visual_projection.1", "H", "true"),
			[]T{{Name: "output.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
				{Name: "output.bias", Shape: []string{"V"}, Role: RoleBias}}),
		Embed: "git.embeddings.word_embeddings.weight", Head: "output.weight",
	}
}())

// Doge: Llama-like layers with a dynamic-mask attention (A and dt_proj
// per kv head), per-head q/k norms, learned residual scales, and with
// is_moe the CDMoE: the dense MLP plus E single-vector experts routed by
// product keys (2·⌊√E⌋ router rows).
var _ = register(std("Doge", "Doge", []string{"doge"},
	cat(withDefault(withDefault(withDefault(withDefault(withDefault(
		llamaDims("H/heads", "H/heads", "heads", "heads"),
		"V", "32768"), "H", "1024"), "L", "32"), "heads", "8"), "I", "2048"),
		[]Def{tie("false"), attnBiasFlag, mlpBiasFlag,
			flag("moe", "is_moe", "false", "the MLP is a cross-domain mixture of experts"),
			{Sym: "E", Field: "num_experts", Default: "16384", Legend: "E", Desc: "single-vector experts, {isqrt(E)}² addressable by product keys", Pos: true}}),
	nil,
	inNorm,
	attn("self_attn.", "attention_bias", "attention_bias",
		[]T{{Name: "self_attn.A", Shape: []string{"kv"}, Role: RoleNorm}},
		linear("self_attn.dt_proj", "kv", "kv*d", "attention_bias"),
		qkNorm("self_attn.", "d", "d")),
	[]T{{Name: "input_residual", Shape: []string{"H"}, Role: RoleNorm}},
	postNorm,
	gatedMLP("mlp.", "I", "mlp_bias"),
	when("moe", []T{{Name: "mlp.router_gate.weight", Shape: []string{"2*isqrt(E)", "H"}, Role: RoleRouter},
		{Name: "mlp.down_embed.weight", Shape: []string{"E", "H"}, Role: RoleEmbedding},
		{Name: "mlp.up_embed.weight", Shape: []string{"E", "H"}, Role: RoleEmbedding}}),
	[]T{{Name: "post_attention_residual", Shape: []string{"H"}, Role: RoleNorm}},
))

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

// Mega: moving-average gated attention (a damped EMA of kernel width
// 2·H when bidirectional, single-head gated attention of width Z) and an
// optional normalized FFN; its norms are one of five kinds.
var _ = register(&Family{Name: "Mega", Class: "Mega", ModelTypes: []string{"mega"}, SeqCls: "-",
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
})

// xmodAdapter is an X-MOD bottleneck adapter named by {e}, one per entry
// of each (a list expression).
func xmodAdapter(each, cond string) []T {
	ts := cat(linear("output.adapter_modules.{e}.dense1", "H/red", "H", "true"), linear("output.adapter_modules.{e}.dense2", "H", "H/red", "true"))
	for i := range ts {
		ts[i].Each, ts[i].If = each, cond
	}
	return ts
}

// X-MOD: RoBERTa with a bottleneck adapter per language after each FFN
// (languages absent: en_XX, XmodConfig's default), and with pre_norm a
// final encoder LayerNorm.
var _ = register(bertLike("X-MOD", "Xmod", "xmod", "XmodForCausalLM", "roberta",
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
	"lm_head.decoder.weight"))

// axial is Reformer's axial position embedding i of n: [1, …, shape_i,
// …, 1, dim_i], rank n+1 (n = 2, the default, and 3 are covered).
func axial(i, n int) T {
	shape := make([]string, 0, n+1)
	for k := range n {
		if k == i {
			shape = append(shape, fmt.Sprintf("len(axS) > 0 ? at(axS, %d) : 64", k))
		} else {
			shape = append(shape, "1")
		}
	}
	return T{Name: fmt.Sprintf("reformer.embeddings.position_embeddings.weights.%d", i),
		Shape: append(shape, fmt.Sprintf("len(axD) > 0 ? at(axD, %d) : %d", i, []int{64, 192, 0}[i])),
		Role:  RoleEmbedding, If: fmt.Sprintf("axial && (len(axS) > 0 ? len(axS) : 2) == %d", n), AnyDType: true}
}

// Reformer: reversible layers of local or LSH attention (attn_layers
// names each; LSH shares query and key), a chunked FFN, the two residual
// streams concatenated (2·H) before the final norm and the head, and
// axial position embeddings.
var _ = register(&Family{Name: "Reformer", Class: "Reformer", ModelTypes: []string{"reformer"}, Causal: "ReformerModelWithLMHead", SeqCls: "-",
	Defs: []Def{
		{Sym: "V", Field: "vocab_size", Default: "320", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: "hidden_size", Default: "256", Legend: "H", Desc: "width of each of the two residual streams", Show: true, Pos: true},
		{Sym: "al", Field: "attn_layers", Type: List, Default: "empty", Null: "=", Desc: "each layer's attention, local or lsh (absent: local, lsh × 3)"},
		derived("L", "len(al) > 0 ? len(al) : 6"),
		{Sym: "heads", Field: "num_attention_heads", Default: "12", Desc: "attention heads", Show: true, Pos: true},
		{Sym: "d", Field: "attention_head_size", Default: "64", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
		{Sym: "FF", Field: "feed_forward_size", Default: "512", Legend: "FF", Desc: "FFN inner width", Show: true, Pos: true},
		{Sym: "P", Field: "max_position_embeddings", Default: "4096", Desc: "positions", Pos: true},
		flag("axial", "axial_pos_embds", "true", "axial position embeddings"),
		{Sym: "axS", Field: "axial_pos_shape", Type: List, Default: "empty", Null: "=", Desc: "axial position grid (absent: 64 × 64)"},
		{Sym: "axD", Field: "axial_pos_embds_dim", Type: List, Default: "empty", Null: "=", Desc: "axial embedding widths (absent: 64, 192)"},
		tie("false"),
	},
	Global: cat(embed("reformer.embeddings.word_embeddings.weight"),
		[]T{axial(0, 2), axial(1, 2), axial(0, 3), axial(1, 3), axial(2, 3),
			{Name: "reformer.embeddings.position_embeddings.embedding.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding, If: "!axial"}}),
	Stacks: []Stack{{Prefix: "reformer.encoder.layers.{l}.", Layers: "L",
		Kinds: []Kind{{Name: "local", If: "len(al) > 0 ? at(al, l) == 'local' : l % 2 == 0"}, {Name: "lsh"}},
		Tensors: cat(
			norm("attention.layer_norm", "H", "true"),
			when("local", linear("attention.self_attention.query", "heads*d", "H", ""), linear("attention.self_attention.key", "heads*d", "H", "")),
			when("lsh", linear("attention.self_attention.query_key", "heads*d", "H", "")),
			linear("attention.self_attention.value", "heads*d", "H", ""),
			linear("attention.output.dense", "H", "heads*d", ""),
			norm("feed_forward.layer_norm", "H", "true"),
			linear("feed_forward.dense.dense", "FF", "H", "true"),
			linear("feed_forward.output.dense", "H", "FF", "true"),
		)}},
	Final: cat(norm("reformer.encoder.layer_norm", "2*H", "true"),
		[]T{{Name: "lm_head.decoder.weight", Shape: []string{"V", "2*H"}, Role: RoleHead},
			{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias}}),
	Embed: "reformer.embeddings.word_embeddings.weight", Head: "lm_head.decoder.weight",
})

// xLSTM (transformers' own implementation): num_blocks mLSTM blocks
// (absent: num_hidden_layers) of width H, each an mLSTM layer (q, k of
// ⌊H·qk_dim_factor⌋, v and the output gate of ⌊H·v_dim_factor⌋, per-head
// input and forget gates; fused into two matrices when weight_mode is
// fused) and a gated FFN of H·ffn_proj_factor rounded up to a multiple;
// the embeddings are embedding_dim wide (absent: H).
var _ = register(&Family{Name: "xLSTM", Class: "xLSTM", ModelTypes: []string{"xlstm"}, SeqCls: "-",
	Defs: []Def{
		{Sym: "V", Field: "vocab_size", Default: "50304", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: "hidden_size", Default: "4096", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
		{Sym: "E", Field: "embedding_dim", Default: "H", Null: "H", Legend: "E", Desc: "embedding width", Show: true, Pos: true},
		{Sym: "NL", Field: "num_hidden_layers", Default: "32", Null: "32", Desc: "num_hidden_layers"},
		{Sym: "L", Field: "num_blocks", Default: "NL", Null: "NL", Legend: "L", Desc: "mLSTM blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "heads", Field: "num_heads", Default: "8", Desc: "mLSTM heads", Show: true, Pos: true},
		{Sym: "qkf", Field: "qk_dim_factor", Type: Milli, Default: "500", Desc: "q/k width factor in thousandths"},
		{Sym: "vf", Field: "v_dim_factor", Type: Milli, Default: "1000", Desc: "value width factor in thousandths"},
		derived("QK", "H*qkf/1000"), derived("VD", "H*vf/1000"),
		{Sym: "ff", Field: "ffn_proj_factor", Type: Milli, Default: "2667", Desc: "FFN width factor in thousandths"},
		{Sym: "ffm", Field: "ffn_round_up_to_multiple_of", Default: "64", Desc: "the FFN width is a multiple of {ffm}", Pos: true},
		derived("FF", "(H*ff + 1000*(ffm-1)) / (1000*ffm) * ffm"),
		{Sym: "wm", Field: "weight_mode", Type: Str, Default: "'single'", Desc: "single or fused projections"},
		flag("bias", "use_bias", "false", "projections and norms have biases"),
		tie("false"),
	},
	Global: []T{{Name: "backbone.embeddings.weight", Shape: []string{"V", "E"}, Role: RoleEmbedding}},
	Stacks: []Stack{{Prefix: "backbone.blocks.{l}.", Layers: "L", Tensors: cat(
		norm("norm_mlstm", "H", "bias"),
		when("wm == 'single'", linear("mlstm_layer.q", "QK", "H", "bias"), linear("mlstm_layer.k", "QK", "H", "bias"),
			linear("mlstm_layer.v", "VD", "H", "bias"), linear("mlstm_layer.ogate_preact", "VD", "H", "bias"),
			linear("mlstm_layer.igate_preact", "heads", "H", "true"), linear("mlstm_layer.fgate_preact", "heads", "H", "true")),
		when("wm == 'fused'", linear("mlstm_layer.qkv_opreact", "2*QK+2*VD", "H", "bias"), linear("mlstm_layer.ifgate_preact", "2*heads", "H", "true")),
		norm("mlstm_layer.multihead_norm", "heads*(VD/heads)", "bias"),
		linear("mlstm_layer.out_proj", "H", "VD", "bias"),
		norm("norm_ffn", "H", "bias"),
		when("wm == 'single'", linear("ffn.proj_up_gate", "FF", "H", "bias"), linear("ffn.proj_up", "FF", "H", "bias")),
		when("wm == 'fused'", linear("ffn.proj_up_gate_z", "2*FF", "H", "bias")),
		linear("ffn.proj_down", "H", "FF", "bias"),
	)}},
	Final: cat(norm("backbone.out_norm", "H", ""),
		[]T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied && E == H"}}),
	Embed: "backbone.embeddings.weight", Head: "lm_head.weight",
})

// Transformer-XL: relative-position layers (fused qkv, r_net, r_w/r_r
// biases per layer when untie_r, else shared) and adaptive input and
// output over the vocabulary clusters cutoffs split it into: cluster e
// has rows(e) tokens and width d_embed / div_val^e, projected to d_model.
// Tied output layers and projections (tie_word_embeddings, tie_projs)
// are written once, under the embeddings.
var _ = register(&Family{Name: "Transformer-XL", Class: "TransfoXL", ConfigClass: "TransfoXLConfig", ModelTypes: []string{"transfo-xl"},
	Causal: "TransfoXLLMHeadModel", SeqCls: "-",
	Defs: []Def{
		{Sym: "V", Field: "vocab_size", Default: "267735", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: "d_model", Default: "1024", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
		{Sym: "DE", Field: "d_embed", Default: "1024", Legend: "DE", Desc: "embedding width of the first cluster", Show: true, Pos: true},
		{Sym: "L", Field: "n_layer", Default: "18", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "heads", Field: "n_head", Default: "16", Desc: "attention heads", Show: true, Pos: true},
		{Sym: "d", Field: "d_head", Default: "64", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
		{Sym: "I", Field: "d_inner", Default: "4096", Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
		{Sym: "cut", Field: "cutoffs", Type: List, Default: "empty", Null: "=", Desc: "cluster boundaries (absent: 20000, 40000, 200000)"},
		derived("K", "len(cut) > 0 ? len(cut) + 1 : 4"),
		{Sym: "div", Field: "div_val", Default: "4", Desc: "each cluster's width divides by {div}", Pos: true},
		flag("share", "proj_share_all_but_first", "true", "clusters after the first share their projections (absent tie_projs)"),
		{Sym: "tp", Field: "tie_projs", Type: List, Default: "empty", Null: "=", Desc: "which output projections are the input ones"},
		flag("untie_r", "untie_r", "true", "each layer has its own r_w_bias and r_r_bias"),
		{Sym: "attn_type", Field: "attn_type", Default: "0", Desc: "attention kind (only 0 is implemented)"},
		tie("true"),
	},
	Global: cat(
		[]T{tclust("transformer.word_emb.emb_layers.{e}.weight", RoleEmbedding, "", "", txlRows, txlWidth),
			tclust("transformer.word_emb.emb_projs.{e}", RoleLinear, "div != 1 || H != DE", "", "H", txlWidth)},
		[]T{{Name: "transformer.pos_emb.inv_freq", Shape: []string{"(H+1)/2"}, Role: RoleNorm, AnyDType: true},
			{Name: "transformer.r_w_bias", Shape: []string{"heads", "d"}, Role: RoleBias, If: "!untie_r", AnyDType: true},
			{Name: "transformer.r_r_bias", Shape: []string{"heads", "d"}, Role: RoleBias, If: "!untie_r", AnyDType: true}}),
	Stacks: []Stack{{Prefix: "transformer.layers.{l}.", Layers: "attn_type == 0 ? L : 0", Tensors: cat(
		linear("dec_attn.qkv_net", "3*heads*d", "H", ""),
		linear("dec_attn.r_net", "heads*d", "H", ""),
		[]T{{Name: "dec_attn.r_w_bias", Shape: []string{"heads", "d"}, Role: RoleBias, If: "untie_r", AnyDType: true},
			{Name: "dec_attn.r_r_bias", Shape: []string{"heads", "d"}, Role: RoleBias, If: "untie_r", AnyDType: true}},
		linear("dec_attn.o_net", "H", "heads*d", ""),
		norm("dec_attn.layer_norm", "H", "true"),
		linear("pos_ff.CoreNet.0", "I", "H", "true"),
		linear("pos_ff.CoreNet.3", "H", "I", "true"),
		norm("pos_ff.layer_norm", "H", "true"),
	)}},
	Final: cat(
		[]T{{Name: "crit.cluster_weight", Shape: []string{"K-1", "DE"}, Role: RoleLinear, If: "K > 1"},
			{Name: "crit.cluster_bias", Shape: []string{"K-1"}, Role: RoleBias, If: "K > 1"},
			tclust("crit.out_layers.{e}.weight", RoleHead, "", "tied", txlRows, txlWidth),
			tclust("crit.out_layers.{e}.bias", RoleBias, "", "", txlRows),
			// div_val 1: one projection per cluster, all of d_embed, when it is not d_model.
			{Name: "crit.out_projs.{e}", Shape: []string{"H", "DE"}, Role: RoleLinear, Experts: "K", PerCopy: true, AnyDType: true,
				If: "div == 1 && H != DE", Optional: txlTproj},
			{Name: "crit.out_projs.{e}", Shape: []string{"H", txlWidth}, Role: RoleLinear, Experts: "K", PerCopy: true, AnyDType: true,
				If: "div != 1", Optional: txlTproj}},
	),
	Embed: "transformer.word_emb.emb_layers.0.weight", Head: "crit.out_layers.0.weight",
})

// Transformer-XL's per-cluster expressions, e the cluster: its cutoff
// (absent cutoffs: 20000, 40000, 200000), rows, width, and whether its
// output projection is the input one (absent tie_projs: all but the first
// when proj_share_all_but_first).
const (
	txlCut   = "(len(cut) > 0 ? at(cut, %s) : (%[1]s == 0 ? 20000 : (%[1]s == 1 ? 40000 : 200000)))"
	txlWidth = "div == 1 ? DE : DE / pow(div, e)"
	txlTproj = "len(tp) > e ? at(tp, e) : e > 0 && share"
)

var txlRows = "div == 1 ? V : (e == K-1 ? V : " + fmt.Sprintf(txlCut, "e") + ") - (e == 0 ? 0 : " + fmt.Sprintf(txlCut, "e-1") + ")"

// tclust is a Transformer-XL per-cluster tensor: one per cluster (one in
// all when div_val is 1), e bound in its shape (rows, width).
func tclust(name string, role Role, cond, optional string, shape ...string) T {
	if cond == "" {
		cond = "true"
	}
	return T{Name: name, Shape: shape, Role: role, Experts: "div == 1 ? 1 : K", PerCopy: true, If: cond, Optional: optional,
		AnyDType: role == RoleLinear}
}
