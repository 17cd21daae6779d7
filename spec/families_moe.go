package spec

// Mixture-of-experts decoders: routed experts (one module each, or
// stacked), shared experts, router biases, dense-first layers and MoE
// frequencies; DeepSeek's multi-head latent attention (MLA).

// mla is DeepSeek's multi-head latent attention: q through a low rank
// (q_lora_rank) or directly, k and v through kv_lora_rank plus a shared
// rope key.
var mla = cat(
	when("qr > 0", linear("self_attn.q_a_proj", "qr", "H", "attention_bias"), norm("self_attn.q_a_layernorm", "qr", ""),
		linear("self_attn.q_b_proj", "heads*qkd", "qr", "")),
	when("qr == 0", linear("self_attn.q_proj", "heads*qkd", "H", "")),
	linear("self_attn.kv_a_proj_with_mqa", "kvr+rope", "H", "attention_bias"), norm("self_attn.kv_a_layernorm", "kvr", ""),
	linear("self_attn.kv_b_proj", "heads*(nope+vd)", "kvr", ""),
	linear("self_attn.o_proj", "H", "heads*vd", "attention_bias"),
)

// mlaDims are MLA's widths with the class's defaults.
func mlaDims(qr, kvr, nope, rope, vd string) []Def {
	return []Def{
		{Sym: "qr", Field: "q_lora_rank", Default: qr, Null: "0", Desc: "q low rank (null: no q compression)"},
		{Sym: "kvr", Field: "kv_lora_rank", Default: kvr, Legend: "r", Desc: "kv low rank", Show: true, Pos: true},
		{Sym: "nope", Field: "qk_nope_head_dim", Default: nope, Desc: "per-head q/k width without rope", Pos: true},
		{Sym: "rope", Field: "qk_rope_head_dim", Default: rope, Desc: "per-head q/k rope width", Pos: true},
		{Sym: "qkd", Field: "qk_head_dim", Default: "nope+rope", Desc: "per-head q/k width", Pos: true},
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

var _ = register(
	std("DeepSeek-V2", "DeepseekV2", []string{"deepseek_v2"},
		cat(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"),
			mlaDims("1536", "512", "128", "64", "128"),
			[]Def{{Sym: "E", Field: "n_routed_experts", Default: "64", Null: "0", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts},
				{Sym: "Im", Field: "moe_intermediate_size", Default: "1407", Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
				{Sym: "topk", Field: "num_experts_per_tok", Default: "6", Null: "0", Desc: "experts active per token"},
				{Sym: "shared", Field: "n_shared_experts", Default: "2", Null: "0", Desc: "shared experts (one MLP of shared·Im)"},
				field("first_dense", "first_k_dense_replace", "0", "the first k blocks are dense"),
				field("moe_freq", "moe_layer_freq", "1", "every freq-th block after them is sparse"),
				tie("false"), attnBiasFlag}), denseFirst,
		inNorm, mla, postNorm, when("sparse", deepseekMoE("false")), when("dense", gatedMLP("mlp.", "I", ""))),
	std("DeepSeek-V3", "DeepseekV3", []string{"deepseek_v3"},
		cat(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"),
			mlaDims("1536", "512", "128", "64", "128"),
			[]Def{{Sym: "E", Field: "n_routed_experts", Default: "256", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts},
				{Sym: "Im", Field: "moe_intermediate_size", Default: "2048", Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
				field("topk", "num_experts_per_tok", "8", "experts active per token"),
				field("shared", "n_shared_experts", "1", "shared experts (one MLP of shared·Im)"),
				field("first_dense", "first_k_dense_replace", "3", "the first k blocks are dense"),
				derived("moe_freq", "1"),
				tie("false"), attnBiasFlag}), denseFirst,
		inNorm, mla, postNorm, when("sparse", deepseekMoE("true")), when("dense", gatedMLP("mlp.", "I", ""))).
		with(func(f *Family) { f.Ignore = []string{`^model\.layers\.{L}\.`} }),
	std("Qwen2-MoE", "Qwen2Moe", []string{"qwen2_moe"},
		cat(llamaDimsNoHD("16", "heads"), experts("num_experts", "60", "moe_intermediate_size", "1408", "num_experts_per_tok", "4"),
			[]Def{field("Is", "shared_expert_intermediate_size", "5632", "shared expert inner width"),
				tie("false"), flag("qkv_bias", "qkv_bias", "true", "q, k and v projections have biases"),
				field("step", "decoder_sparse_step", "1", "every step-th block is sparse"), list("mlp_only", "mlp_only_layers", "no block is forced dense")}),
		qwenMoE,
		llamaBlock("qkv_bias", "", when("sparse", router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"),
			gatedMLP("mlp.shared_expert.", "Is", ""), []T{{Name: "mlp.shared_expert_gate.weight", Shape: []string{"1", "H"}, Role: RoleRouter}}),
			when("dense", gatedMLP("mlp.", "I", "")))),
)

var _ = register(
	std("OLMoE", "Olmoe", []string{"olmoe"},
		cat(llamaDimsNoHD("heads", "heads"), expertsI("num_experts", "64", "num_experts_per_tok", "8"), []Def{tie("false"), attnBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
		router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj")),
	std("FlexOlmo", "FlexOlmo", []string{"flex_olmo"},
		cat(llamaDimsNoHD("heads", "heads"), expertsI("num_experts", "7", "num_experts_per_tok", "5"), []Def{tie("false"), attnBiasFlag}), nil,
		attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
		router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), norm("post_feedforward_layernorm", "H", "")),
	std("PhiMoE", "PhiMoE", []string{"phimoe"},
		cat(llamaDimsNoHD("8", "heads"), expertsI("num_local_experts", "16", "num_experts_per_tok", "2"),
			[]Def{tie("false"), attnBiasFlag, flag("lm_head_bias", "lm_head_bias", "false", "lm_head has a bias")}), nil,
		norm("input_layernorm", "H", "true"), attn("self_attn.", "attention_bias", "attention_bias"), norm("post_attention_layernorm", "H", "true"),
		router("block_sparse_moe.gate.weight"), expertMLPs("block_sparse_moe.experts.", "w1", "w3", "w2")).
		withFinal(norm("model.norm", "H", "true"), lmHead("lm_head.weight"), []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal && lm_head_bias"}}),
	std("GraniteMoE", "GraniteMoe", []string{"granitemoe"},
		cat(llamaDimsNoHD("heads", "heads"), expertsI("num_local_experts", "8", "num_experts_per_tok", "2"), []Def{tie("true"), attnBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias"), postNorm,
		router("block_sparse_moe.router.layer.weight"), stackedExperts("block_sparse_moe.input_linear.weight", "block_sparse_moe.output_linear.weight")),
	std("GraniteMoE-Shared", "GraniteMoeShared", []string{"granitemoeshared"},
		cat(llamaDimsNoHD("heads", "heads"), expertsI("num_local_experts", "8", "num_experts_per_tok", "2"),
			[]Def{field("Is", "shared_intermediate_size", "0", "shared expert inner width (0: none)"), tie("true"), attnBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias"), postNorm,
		router("block_sparse_moe.router.layer.weight"), stackedExperts("block_sparse_moe.input_linear.weight", "block_sparse_moe.output_linear.weight"),
		when("Is > 0", linear("shared_mlp.input_linear", "2*Is", "H", ""), linear("shared_mlp.output_linear", "H", "Is", ""))),
)
