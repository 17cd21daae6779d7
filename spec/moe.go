package spec

// Mixture-of-experts decoder language models.

// Mixture-of-experts decoders: routed experts (one module each, or
// stacked), shared experts, router biases, dense-first layers and MoE
// frequencies; DeepSeek's multi-head latent attention (MLA).

// mla is DeepSeek's multi-head latent attention: q through a low rank
// (q_lora_rank) or directly, k and v through kv_lora_rank plus a shared
// rope key.
var mla = mlaAt("self_attn.")

func mlaAt(pre string) []T {
	return cat(
		when("qr > 0", linear(pre+"q_a_proj", "qr", "H", "attention_bias"), norm(pre+"q_a_layernorm", "qr", ""),
			linear(pre+"q_b_proj", "heads*qkd", "qr", "")),
		when("qr == 0", linear(pre+"q_proj", "heads*qkd", "H", "")),
		linear(pre+"kv_a_proj_with_mqa", "kvr+rope", "H", "attention_bias"), norm(pre+"kv_a_layernorm", "kvr", ""),
		linear(pre+"kv_b_proj", "heads*(nope+vd)", "kvr", ""),
		linear(pre+"o_proj", "H", "heads*vd", "attention_bias"),
	)
}

// mlaDims are MLA's widths with the class's defaults; qkd is the per-head
// q/k width's rule, of qks (config.json's qk_head_dim), nope and rope:
// DeepSeek-V2 computes nope+rope, LongCat reads qks, DeepSeek-V3 reads
// qks in transformers 4.x and computes nope+rope in 5.x.
func mlaDims(qkd, qr, kvr, nope, rope, vd string) []Def {
	return []Def{
		{Sym: "qr", Field: "q_lora_rank", Default: qr, Null: "0", Desc: "q low rank (null: no q compression)"},
		{Sym: "kvr", Field: "kv_lora_rank", Default: kvr, Legend: "r", Desc: "kv low rank", Show: true, Pos: true},
		{Sym: "nope", Field: "qk_nope_head_dim", Default: nope, Desc: "per-head q/k width without rope", Pos: true},
		{Sym: "rope", Field: "qk_rope_head_dim", Default: rope, Desc: "per-head q/k rope width", Pos: true},
		{Sym: "qks", Field: "qk_head_dim", Default: "nope+rope", Desc: "per-head q/k width (qk_head_dim)", Pos: true},
		derived("qkd", qkd),
		{Sym: "vd", Field: "v_head_dim", Default: vd, Desc: "per-head v width", Pos: true},
	}
}

// deepseekMoE is DeepSeek's sparse block: router (with a correction
// bias where corr holds), routed experts, shared experts of
// n_shared·Im.
func deepseekMoE(corr string) []T {
	return cat(router("mlp.gate.weight"),
		[]T{{Name: "mlp.gate.e_score_correction_bias", Shape: []string{"E"}, Role: RoleBias, If: corr, AnyDType: true}},
		expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"),
		when("shared > 0", gatedMLP("mlp.shared_experts.", "shared*Im", "")))
}

// deepseekStyle are the MoE fields of the DeepSeek-V3 descendants (GLM-4
// MoE, dots.llm1): routed and shared experts, dense-first layers.
func deepseekStyle(E, Im, topk, shared, firstDense string) []Def {
	return []Def{
		{Sym: "E", Field: "n_routed_experts", Default: E, Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts},
		{Sym: "Im", Field: "moe_intermediate_size", Default: Im, Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
		field("topk", "num_experts_per_tok", topk, "experts active per token"),
		field("shared", "n_shared_experts", shared, "shared experts (one MLP of shared·Im)"),
		field("first_dense", "first_k_dense_replace", firstDense, "the first k blocks are dense"),
		derived("moe_freq", "1"),
	}
}

// longcatHalf is one of the two sub-blocks of a LongCat-Flash layer.
func longcatHalf(i string) []T {
	return cat(norm("input_layernorm."+i, "H", ""), mlaAt("self_attn."+i+"."), norm("post_attention_layernorm."+i, "H", ""),
		gatedMLP("mlps."+i+".", "I", ""))
}

// withoutHeads drops dims' heads, for a class that derives it.
func withoutHeads(d []Def) []Def { return append(d[:3:3], d[4]) }

var _ = register(
	func() *Family {
		return std("Mixtral", "Mixtral", []string{"mixtral"},
			cat(sized(llamaDims("H/heads", "H/heads", "8", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "14336"), []Def{
				{Sym: "E", Field: "num_local_experts", Default: "8", Legend: "E", Desc: "experts per block, {topk} active per token", Show: true, Max: MaxExperts},
				derived("Im", "I"), field("topk", "num_experts_per_tok", "2", "experts active per token"), tie("false")}), nil,
			llamaBlock("", "", router("block_sparse_moe.gate.weight"), expertMLPs("block_sparse_moe.experts.", "w1", "w3", "w2")))
	},
	// Llama 4's text model: stacked experts (gate_up [E, H, 2·I], down
	// [E, I, H]) and a shared expert in the MoE layers, a wider dense MLP
	// in the others.
	func() *Family {
		return std("Llama4", "Llama4", []string{"llama4_text"},
			cat(llamaDims("128", "", "8", "heads"), []Def{
				{Sym: "E", Field: "num_local_experts", Default: "16", Legend: "E", Desc: "experts per MoE block, {topk} active per token", Show: true, Max: MaxExperts},
				field("Im2", "intermediate_size_mlp", "16384", "dense MLP inner width"),
				field("topk", "num_experts_per_tok", "1", "experts active per token"),
				field("step", "interleave_moe_layer_step", "1", "every step-th block is MoE"),
				list("moe_layers", "moe_layers", "the MoE blocks, else every step-th"),
				tie("false"), attnBiasFlag}),
			[]Kind{{Name: "moe", If: "len(moe_layers) > 0 ? in(l, moe_layers) : (l+1) % step == 0"}, {Name: "dense"}},
			inNorm, attn("self_attn.", "attention_bias", "attention_bias"), postNorm,
			when("moe", router("feed_forward.router.weight"),
				[]T{{Name: "feed_forward.experts.gate_up_proj", Shape: []string{"E", "H", "2*I"}, Role: RoleLinear},
					{Name: "feed_forward.experts.down_proj", Shape: []string{"E", "I", "H"}, Role: RoleLinear}},
				gatedMLP("feed_forward.shared_expert.", "I", "")),
			when("dense", gatedMLP("feed_forward.", "Im2", ""))).
			with(func(f *Family) {
				f.ConfigClass, f.SeqCls = "Llama4TextConfig", "-"
				f.Tasks = []Task{{Suffix: "TextModel", Prefix: "-"}} // Llama4Model is the VLM's
			})
	},
	func() *Family {
		return &Family{Name: "Qwen3-MoE", Class: "Qwen3Moe", ModelTypes: []string{"qwen3_moe"},
			Defs: cat(sized(llamaDims("H/heads", "", "4", ""), "V", "151936", "H", "2048", "L", "24", "heads", "32", "I", "6144"), experts("num_experts", "128", "moe_intermediate_size", "768", "num_experts_per_tok", "8"),
				[]Def{tie("false"), attnBiasFlag, field("step", "decoder_sparse_step", "1", "every step-th block is sparse"), list("mlp_only", "mlp_only_layers", "no block is forced dense")}),
			Global: embed("model.embed_tokens.weight"),
			Stacks: decoderLayers(qwenMoE, norm("input_layernorm", "H", ""), attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")),
				norm("post_attention_layernorm", "H", ""),
				when("sparse", router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj")),
				when("dense", gatedMLP("mlp.", "I", ""))),
			Final: cat(norm("model.norm", "H", ""), lmHead("lm_head.weight")),
		}
	},
	func() *Family {
		return std("DeepSeek-V2", "DeepseekV2", []string{"deepseek_v2"},
			cat(sized(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "11008"),
				mlaDims("nope+rope", "1536", "512", "128", "64", "128"),
				[]Def{{Sym: "E", Field: "n_routed_experts", Default: "64", Null: "0", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts},
					{Sym: "Im", Field: "moe_intermediate_size", Default: "1407", Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
					{Sym: "topk", Field: "num_experts_per_tok", Default: "6", Null: "0", Desc: "experts active per token"},
					{Sym: "shared", Field: "n_shared_experts", Default: "2", Null: "0", Desc: "shared experts (one MLP of shared·Im)"},
					field("first_dense", "first_k_dense_replace", "0", "the first k blocks are dense"),
					field("moe_freq", "moe_layer_freq", "1", "every freq-th block after them is sparse"),
					tie("false"), attnBiasFlag, mlpBiasFlag}), denseFirst,
			// DeepseekV2MLP is LlamaMLP: mlp_bias gives the dense MLP, every
			// expert and the shared experts biases (transformers 4.x).
			inNorm, mla, postNorm, when("sparse", deepseekMoE("false"), expertBiases("mlp.experts.", "gate_proj", "up_proj", "down_proj", "mlp_bias"),
				when("shared > 0 && mlp_bias", gatedMLPBiases("mlp.shared_experts.", "shared*Im"))),
			when("dense", gatedMLP("mlp.", "I", "mlp_bias")))
	},
	func() *Family {
		return std("DeepSeek-V3", "DeepseekV3", []string{"deepseek_v3"},
			cat(sized(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"),
				"V", "129280", "H", "7168", "L", "61", "heads", "128", "I", "18432"),
				mlaDims("tf5 ? nope+rope : qks", "1536", "512", "128", "64", "128"),
				[]Def{{Sym: "E", Field: "n_routed_experts", Default: "256", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts},
					{Sym: "Im", Field: "moe_intermediate_size", Default: "2048", Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
					field("topk", "num_experts_per_tok", "8", "experts active per token"),
					field("shared", "n_shared_experts", "1", "shared experts (one MLP of shared·Im)"),
					field("first_dense", "first_k_dense_replace", "3", "the first k blocks are dense"),
					derived("moe_freq", "1"),
					tie("false"), attnBiasFlag}), denseFirst,
			inNorm, mla, postNorm, when("sparse", deepseekMoE("true")), when("dense", gatedMLP("mlp.", "I", ""))).
			with(func(f *Family) { f.Ignore = []string{`^model\.layers\.{L}\.`} })
	},
	func() *Family {
		return std("Qwen2-MoE", "Qwen2Moe", []string{"qwen2_moe"},
			cat(sized(llamaDimsNoHD("16", "heads"), "V", "151936", "H", "2048", "L", "24", "heads", "16", "I", "5632"), experts("num_experts", "60", "moe_intermediate_size", "1408", "num_experts_per_tok", "4"),
				[]Def{field("Is", "shared_expert_intermediate_size", "5632", "shared expert inner width"),
					tie("false"), flag("qkv_bias", "qkv_bias", "true", "q, k and v projections have biases"),
					field("step", "decoder_sparse_step", "1", "every step-th block is sparse"), list("mlp_only", "mlp_only_layers", "no block is forced dense")}),
			qwenMoE,
			llamaBlock("qkv_bias", "", when("sparse", router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"),
				gatedMLP("mlp.shared_expert.", "Is", ""), []T{{Name: "mlp.shared_expert_gate.weight", Shape: []string{"1", "H"}, Role: RoleRouter}}),
				when("dense", gatedMLP("mlp.", "I", ""))))
	},
	func() *Family {
		return std("OLMoE", "Olmoe", []string{"olmoe"},
			cat(sized(llamaDimsNoHD("heads", "heads"), "V", "50304", "H", "2048", "L", "16", "heads", "16", "I", "2048"), expertsI("num_experts", "64", "num_experts_per_tok", "8"), []Def{tie("false"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
			router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"))
	},
	func() *Family {
		return std("FlexOlmo", "FlexOlmo", []string{"flex_olmo"},
			cat(llamaDimsNoHD("heads", "heads"), expertsI("num_experts", "7", "num_experts_per_tok", "5"), []Def{tie("false"), attnBiasFlag}), nil,
			attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
			router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), norm("post_feedforward_layernorm", "H", ""))
	},
	func() *Family {
		return std("PhiMoE", "Phimoe", []string{"phimoe"},
			cat(sized(llamaDimsNoHD("8", "heads"), "V", "32064", "H", "4096", "L", "32", "heads", "32", "I", "6400"), expertsI("num_local_experts", "16", "num_experts_per_tok", "2"),
				[]Def{tie("false"), attnBiasFlag, flag("lm_head_bias", "lm_head_bias", "false", "lm_head has a bias")}), nil,
			norm("input_layernorm", "H", "true"), attn("self_attn.", "attention_bias", "attention_bias"), norm("post_attention_layernorm", "H", "true"),
			router("block_sparse_moe.gate.weight"), expertMLPs("block_sparse_moe.experts.", "w1", "w3", "w2")).
			withFinal(norm("model.norm", "H", "true"), lmHead("lm_head.weight"), []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal && lm_head_bias"}})
	},
	func() *Family {
		return std("GraniteMoE", "GraniteMoe", []string{"granitemoe"},
			cat(sized(llamaDimsNoHD("heads", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "11008"), expertsI("num_local_experts", "8", "num_experts_per_tok", "2"), []Def{tie("false"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias"), postNorm,
			router("block_sparse_moe.router.layer.weight"), stackedExperts("block_sparse_moe.input_linear.weight", "block_sparse_moe.output_linear.weight"))
	},
	func() *Family {
		return std("GraniteMoE-Shared", "GraniteMoeShared", []string{"granitemoeshared"},
			cat(llamaDimsNoHD("heads", "heads"), expertsI("num_local_experts", "8", "num_experts_per_tok", "2"),
				[]Def{field("Is", "shared_intermediate_size", "0", "shared expert inner width (0: none)"), tie("false"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias"), postNorm,
			router("block_sparse_moe.router.layer.weight"), stackedExperts("block_sparse_moe.input_linear.weight", "block_sparse_moe.output_linear.weight"),
			when("Is > 0", linear("shared_mlp.input_linear", "2*Is", "H", ""), linear("shared_mlp.output_linear", "H", "Is", "")))
	},
	func() *Family {
		return std("GLM-4-MoE", "Glm4Moe", []string{"glm4_moe"},
			cat(llamaDims("H/heads", "H/heads", "8", "heads"), deepseekStyle("128", "1408", "8", "1", "1"),
				[]Def{tie("false"), attnBiasFlag, flag("qk_norm", "use_qk_norm", "false", "q and k norms")}), denseFirst,
			inNorm, attn("self_attn.", "attention_bias", "", when("qk_norm", qkNorm("self_attn.", "d", "d"))), postNorm,
			when("sparse", deepseekMoE("true")), when("dense", gatedMLP("mlp.", "I", ""))).
			with(func(f *Family) { f.Ignore = []string{`^model\.layers\.{L}\.`} })
	},
	func() *Family {
		return std("dots.llm1", "Dots1", []string{"dots1"},
			cat(llamaDims("H/heads", "H/heads", "heads", "heads"), deepseekStyle("128", "1408", "6", "2", "1"), []Def{tie("false"), attnBiasFlag}), denseFirst,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")), postNorm,
			when("sparse", deepseekMoE("true")), when("dense", gatedMLP("mlp.", "I", "")))
	},
	// ERNIE-4.5-MoE: MoE between moe_layer_start_index and
	// moe_layer_end_index, every interval-th; a float32 router and
	// correction bias.
	func() *Family {
		return std("ERNIE-4.5-MoE", "Ernie4_5_Moe", []string{"ernie4_5_moe"},
			cat(sized(llamaDims("H/heads", "H/heads", "4", "heads"), "V", "103424", "H", "2560", "L", "28", "heads", "20", "I", "12288"), []Def{
				{Sym: "E", Field: "moe_num_experts", Default: "64", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts},
				{Sym: "Im", Field: "moe_intermediate_size", Default: "1536", Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
				field("topk", "moe_k", "6", "experts active per token"),
				field("shared", "moe_num_shared_experts", "2", "shared experts (one MLP of shared·Im)"),
				field("moe_start", "moe_layer_start_index", "1", "first MoE block"),
				{Sym: "moe_end", Field: "moe_layer_end_index", Default: "L-1", Null: "L-1", Desc: "last MoE block"},
				field("moe_every", "moe_layer_interval", "1", "every interval-th block is MoE"),
				tie("true"), flag("bias", "use_bias", "false", "every projection has a bias")}),
			[]Kind{{Name: "sparse", If: "E > 0 && (l+1) % moe_every == 0 && l >= moe_start && l <= moe_end"}, {Name: "dense"}},
			llamaBlock("bias", "bias",
				when("sparse", []T{{Name: "mlp.gate.weight", Shape: []string{"E", "H"}, Role: RoleRouter, AnyDType: true},
					{Name: "mlp.moe_statics.e_score_correction_bias", Shape: []string{"1", "E"}, Role: RoleBias, AnyDType: true}},
					expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), when("bias", expertBiases("mlp.experts.", "gate_proj", "up_proj", "down_proj", "true")), when("shared > 0", gatedMLP("mlp.shared_experts.", "shared*Im", "bias"))),
				when("dense", gatedMLP("mlp.", "I", "bias")))).
			// its head has a bias with use_bias, kept when the weight is tied.
			withFinal(norm("model.norm", "H", ""), lmHead("lm_head.weight"), []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal && bias"}})
	},
	// Hunyuan MoE: every layer sparse, experts of intermediate_size (a
	// number, or one per layer), a float32 router, one shared MLP of
	// intermediate_size; no MLP has a bias (HunYuanMoEV1MLP's bias=False).
	func() *Family {
		return std("Hunyuan-MoE", "HunYuanMoEV1", []string{"hunyuan_v1_moe"},
			cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{
				{Sym: "Es", Field: "num_experts", Type: IntOrList, Default: "1", Legend: "E", Desc: "experts per block (one, or one per layer)", Show: true},
				derived("Im", "I"),
				{Sym: "topk", Field: "moe_topk", Type: IntOrList, Default: "1", Desc: "experts active per token (one, or one per layer)"},
				tie("false"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", norm("self_attn.query_layernorm", "d", ""), norm("self_attn.key_layernorm", "d", "")),
			postNorm, []T{{Name: "mlp.gate.wg.weight", Shape: []string{"min(pick(Es, l), 4096)", "H"}, Role: RoleRouter, AnyDType: true},
				{Name: "mlp.experts.{e}.gate_proj.weight", Shape: []string{"I", "H"}, Role: RoleLinear, Experts: "min(pick(Es, l), 4096)"},
				{Name: "mlp.experts.{e}.up_proj.weight", Shape: []string{"I", "H"}, Role: RoleLinear, Experts: "min(pick(Es, l), 4096)"},
				{Name: "mlp.experts.{e}.down_proj.weight", Shape: []string{"H", "I"}, Role: RoleLinear, Experts: "min(pick(Es, l), 4096)"}},
			gatedMLP("mlp.shared_mlp.", "I", ""))
	},
	// JetMoE: mixture of attention heads (experts of kv_channels·kv heads)
	// and of MLPs, each stacked [E, out, in] with a shared output bias.
	func() *Family {
		return std("JetMoE", "JetMoe", []string{"jetmoe"},
			cat(withoutHeads(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")), []Def{
				// num_attention_heads is not the class's argument: it sets kv·topk.
				derived("heads", "kv*topk"),
				{Sym: "kvd", Field: "kv_channels", Default: "128", Desc: "width of one key/value head", Pos: true},
				{Sym: "kv", Field: "num_key_value_heads", Default: "16", Desc: "key/value heads", Pos: true},
				{Sym: "E", Field: "num_local_experts", Default: "8", Legend: "E", Desc: "experts per block, {topk} active per token", Show: true, Max: MaxExperts},
				derived("Im", "I"), field("topk", "num_experts_per_tok", "2", "experts active per token"), tie("true")}), nil,
			inNorm, linear("self_attention.kv_proj", "2*kvd*kv", "H", ""),
			[]T{{Name: "self_attention.experts.router.layer.weight", Shape: []string{"E", "H"}, Role: RoleRouter},
				{Name: "self_attention.experts.input_linear.weight", Shape: []string{"E", "kvd*kv", "H"}, Role: RoleLinear},
				{Name: "self_attention.experts.output_linear.weight", Shape: []string{"E", "H", "kvd*kv"}, Role: RoleLinear},
				{Name: "self_attention.experts.bias", Shape: []string{"H"}, Role: RoleBias}},
			postNorm, router("mlp.router.layer.weight"), stackedExperts("mlp.input_linear.weight", "mlp.output_linear.weight"),
			[]T{{Name: "mlp.bias", Shape: []string{"H"}, Role: RoleBias}})
	},
	func() *Family { return gptOss },
	// DBRX: nested ffn_config and attn_config; experts flattened to
	// [E·ffn, H] per matrix.
	func() *Family {
		return &Family{Name: "DBRX", Class: "Dbrx", ModelTypes: []string{"dbrx"},
			Defs: cat(dims("vocab_size", "d_model", "n_layers", "n_heads", "ffn_config.ffn_hidden_size"), []Def{
				derived("d", "H/heads"),
				{Sym: "kv", Field: "attn_config.kv_n_heads", Default: "1", Desc: "kv heads", Pos: true, Divides: "heads"},
				{Sym: "E", Field: "ffn_config.moe_num_experts", Default: "4", Legend: "E", Desc: "experts per block, {topk} active per token", Show: true, Max: MaxExperts},
				field("topk", "ffn_config.moe_top_k", "1", "experts active per token"), tie("false")}),
			Global: embed("transformer.wte.weight"),
			Stacks: []Stack{{Prefix: "transformer.blocks.{l}.", Layers: "L", Tensors: cat(
				norm("norm_attn_norm.norm_1", "H", ""), linear("norm_attn_norm.attn.Wqkv", "(heads+2*kv)*d", "H", ""),
				linear("norm_attn_norm.attn.out_proj", "H", "H", ""), norm("norm_attn_norm.norm_2", "H", ""),
				router("ffn.router.layer.weight"),
				[]T{{Name: "ffn.experts.mlp.w1", Shape: []string{"E*I", "H"}, Role: RoleLinear}, {Name: "ffn.experts.mlp.v1", Shape: []string{"E*I", "H"}, Role: RoleLinear},
					{Name: "ffn.experts.mlp.w2", Shape: []string{"E*I", "H"}, Role: RoleLinear}})}},
			Final: cat(norm("transformer.norm_f", "H", ""), lmHead("lm_head.weight")),
			Embed: "transformer.wte.weight", SeqCls: "-"}
	},
	func() *Family {
		return std("Aria-Text", "AriaText", []string{"aria_text"},
			cat(llamaDims("H/heads", "H/heads", "heads", "heads"), expertsI("moe_num_experts", "8", "moe_topk", "2"),
				[]Def{field("shared", "moe_num_shared_experts", "2", "shared experts (one MLP of shared·I)"), tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
			llamaBlock("attention_bias", "attention_bias", router("mlp.router.weight"),
				[]T{{Name: "mlp.experts.fc1.weight", Shape: []string{"E", "H", "2*I"}, Role: RoleLinear}, {Name: "mlp.experts.fc2.weight", Shape: []string{"E", "I", "H"}, Role: RoleLinear}},
				gatedMLP("mlp.shared_experts.", "shared*I", "mlp_bias"))).
			with(func(f *Family) { f.SeqCls = "-" })
	},
	// LongCat-Flash: num_layers layers of two attention/MLP halves and one
	// MoE whose router also scores zero_expert_num identity experts
	// (transformers 5.x writes gate and up projections for those, 4.x
	// none).
	func() *Family {
		return std("LongCat-Flash", "LongcatFlash", []string{"longcat_flash"},
			cat(dims("vocab_size", "hidden_size", "num_layers", "num_attention_heads", "ffn_hidden_size"),
				mlaDims("qks", "1536", "512", "128", "64", "128"),
				[]Def{{Sym: "E", Field: "n_routed_experts", Default: "512", Legend: "E", Desc: "routed experts per block, {topk} active per token", Show: true, Max: MaxExperts},
					{Sym: "Im", Field: "expert_ffn_hidden_size", Default: "2048", Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
					field("topk", "moe_topk", "12", "experts active per token"),
					{Sym: "Z", Field: "zero_expert_num", Default: "256", Null: "0", Desc: "zero (identity) experts the router also scores", Max: MaxExperts},
					tie("false"), attnBiasFlag}), nil,
			longcatHalf("0"), longcatHalf("1"),
			[]T{{Name: "mlp.router.classifier.weight", Shape: []string{"E+Z", "H"}, Role: RoleRouter},
				{Name: "mlp.router.e_score_correction_bias", Shape: []string{"E+Z"}, Role: RoleBias, AnyDType: true}},
			expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"),
			// 5.x's fused experts hold gate and up rows for the zero experts
			// too (written as experts E..E+Z-1), every one of them; 4.x none.
			[]T{{Name: "mlp.experts.{e}.gate_proj.weight", Shape: []string{"Im", "H"}, Role: RoleLinear, Experts: "Z", From: "E", If: "tf5"},
				{Name: "mlp.experts.{e}.up_proj.weight", Shape: []string{"Im", "H"}, Role: RoleLinear, Experts: "Z", From: "E", If: "tf5"}}).
			with(func(f *Family) { f.SeqCls = "-" })
	},
)

// GPT-OSS: attention sinks, a biased router, stacked experts with
// biases (gate_up [E, H, 2·I], down [E, I, H]).
var gptOss = std("GPT-OSS", "GptOss", []string{"gpt_oss"},
	cat(sized(llamaDims("64", "", "8", "heads"), "V", "201088", "H", "2880", "L", "36", "heads", "64", "I", "2880"), expertsI("num_local_experts", "128", "num_experts_per_tok", "4"),
		[]Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k, v and o projections have biases")}), nil,
	inNorm, attn("self_attn.", "attention_bias", "attention_bias", []T{{Name: "self_attn.sinks", Shape: []string{"heads"}, Role: RoleBias, AnyDType: true}}),
	postNorm, router("mlp.router.weight"), []T{{Name: "mlp.router.bias", Shape: []string{"E"}, Role: RoleBias},
		{Name: "mlp.experts.gate_up_proj", Shape: []string{"E", "H", "2*I"}, Role: RoleLinear},
		{Name: "mlp.experts.gate_up_proj_bias", Shape: []string{"E", "2*I"}, Role: RoleBias},
		{Name: "mlp.experts.down_proj", Shape: []string{"E", "I", "H"}, Role: RoleLinear},
		{Name: "mlp.experts.down_proj_bias", Shape: []string{"E", "H"}, Role: RoleBias}})
