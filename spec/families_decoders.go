package spec

// Text decoders close to Llama: the same skeleton (std), with their own
// norms, biases, MLPs and config defaults (transformers'
// configuration_*.py; a missing field takes the class's default).

var _ = register(
	std("Ministral", "Ministral", []string{"ministral"},
		cat(llamaDims("H/heads", "H/heads", "8", "heads"), []Def{tie("false")}), nil,
		llamaBlock("", "", gatedMLP("mlp.", "I", ""))),
	std("SmolLM3", "SmolLM3", []string{"smollm3"},
		cat(llamaDims("H/heads", "H/heads", "4", "heads"), []Def{tie("true"), attnBiasFlag, mlpBiasFlag}), nil,
		llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias"))),
	// Helium's o_proj is [H, H].
	std("Helium", "Helium", []string{"helium"},
		cat(llamaDims("H/heads", "H/heads", "20", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
		inNorm, linear("self_attn.q_proj", "heads*d", "H", "attention_bias"), linear("self_attn.k_proj", "kv*d", "H", "attention_bias"),
		linear("self_attn.v_proj", "kv*d", "H", "attention_bias"), linear("self_attn.o_proj", "H", "H", "attention_bias"),
		postNorm, gatedMLP("mlp.", "I", "mlp_bias")),
	std("Arcee", "Arcee", []string{"arcee"},
		cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
		llamaBlock("attention_bias", "attention_bias", plainMLP("mlp.up_proj", "mlp.down_proj", "I", "mlp_bias"))),
	// Apertus: xIELU's learned parameters, QK norms, its own norm names.
	std("Apertus", "Apertus", []string{"apertus"},
		cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
		norm("attention_layernorm", "H", ""),
		attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")),
		norm("feedforward_layernorm", "H", ""),
		plainMLP("mlp.up_proj", "mlp.down_proj", "I", "mlp_bias"),
		[]T{{Name: "mlp.act_fn.alpha_n", Shape: []string{"1"}, Role: RoleNorm}, {Name: "mlp.act_fn.alpha_p", Shape: []string{"1"}, Role: RoleNorm},
			{Name: "mlp.act_fn.beta", Role: RoleNorm}, {Name: "mlp.act_fn.eps", Role: RoleNorm}}),
	std("Seed-OSS", "SeedOss", []string{"seed_oss"},
		cat(llamaDims("128", "", "8", "heads"), []Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k and v projections have biases"),
			flag("attention_out_bias", "attention_out_bias", "false", "o_proj has a bias"), mlpBiasFlag}), nil,
		llamaBlock("attention_bias", "attention_out_bias", gatedMLP("mlp.", "I", "mlp_bias"))),
	// GLM: fused gate_up_proj [2·I, H]; q, k, v biases.
	std("GLM", "Glm", []string{"glm"},
		cat(llamaDims("128", "", "2", "heads"), []Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k and v projections have biases")}), nil,
		llamaBlock("attention_bias", "", linear("mlp.gate_up_proj", "2*I", "H", ""), linear("mlp.down_proj", "H", "I", ""))),
	std("GLM-4", "Glm4", []string{"glm4"},
		cat(llamaDims("128", "", "2", "heads"), []Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k and v projections have biases")}), nil,
		inNorm, attn("self_attn.", "attention_bias", ""), postNorm, norm("post_self_attn_layernorm", "H", ""),
		linear("mlp.gate_up_proj", "2*I", "H", ""), linear("mlp.down_proj", "H", "I", ""), norm("post_mlp_layernorm", "H", "")),
	std("Granite", "Granite", []string{"granite"},
		cat(llamaDimsNoHD("heads", "heads"), []Def{tie("true"), attnBiasFlag, mlpBiasFlag}), nil,
		llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias"))),
	// OLMo: parameter-free layer norms.
	std("OLMo", "Olmo", []string{"olmo"},
		cat(llamaDimsNoHD("heads", "heads"), []Def{tie("true"), attnBiasFlag}), nil,
		attn("self_attn.", "attention_bias", "attention_bias"), gatedMLP("mlp.", "I", "")).withFinal(lmHead("lm_head.weight")),
	// OLMo 2 and 3: norms after attention and MLP; q/k norms over all heads.
	std("OLMo2", "Olmo2", []string{"olmo2"},
		cat(llamaDimsNoHD("heads", "heads"), []Def{tie("false"), attnBiasFlag}), nil,
		attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
		gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", "")),
	std("OLMo3", "Olmo3", []string{"olmo3"},
		cat(llamaDimsNoHD("heads", "heads"), []Def{tie("false"), attnBiasFlag}), nil,
		attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
		gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", "")),
	// Cohere: parallel attention and MLP after one norm; optional
	// per-head q/k norms [heads, d].
	std("Cohere", "Cohere", []string{"cohere"},
		cat(llamaDimsNoHD("heads", "heads"), []Def{tie("true"), attnBiasFlag, flag("qk_norm", "use_qk_norm", "false", "per-head q and k norms")}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias",
			[]T{{Name: "self_attn.q_norm.weight", Shape: []string{"heads", "d"}, Role: RoleNorm, If: "qk_norm"},
				{Name: "self_attn.k_norm.weight", Shape: []string{"kv", "d"}, Role: RoleNorm, If: "qk_norm"}}),
		gatedMLP("mlp.", "I", "")),
	std("Cohere2", "Cohere2", []string{"cohere2"},
		cat(llamaDims("128", "", "heads", "heads"), []Def{tie("true"), attnBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias"), gatedMLP("mlp.", "I", "")),
	// StableLM: layer norms with biases; optional per-head q/k layer
	// norms, qkv biases and a parallel residual without the second norm.
	std("StableLM", "StableLm", []string{"stablelm"},
		cat(llamaDimsNoHD("heads", "heads"), []Def{tie("false"), flag("qkv_bias", "use_qkv_bias", "false", "q, k and v projections have biases"),
			flag("qk_ln", "qk_layernorm", "false", "per-head q and k layer norms"),
			flag("parallel", "use_parallel_residual", "false", "attention and MLP in parallel, one norm")}), nil,
		norm("input_layernorm", "H", "true"), attn("self_attn.", "qkv_bias", "",
			[]T{{Name: "self_attn.q_layernorm.norms.{e}.weight", Shape: []string{"d"}, Role: RoleNorm, If: "qk_ln", Experts: "heads"},
				{Name: "self_attn.k_layernorm.norms.{e}.weight", Shape: []string{"d"}, Role: RoleNorm, If: "qk_ln", Experts: "kv"}}),
		when("!parallel", norm("post_attention_layernorm", "H", "true")), gatedMLP("mlp.", "I", "")).
		withFinal(norm("model.norm", "H", "true"), lmHead("lm_head.weight")),
	std("Mixtral", "Mixtral", []string{"mixtral"},
		cat(llamaDims("H/heads", "H/heads", "8", "heads"), []Def{
			{Sym: "E", Field: "num_local_experts", Default: "8", Legend: "E", Desc: "experts per block, {topk} active per token", Show: true, Max: MaxExperts},
			derived("Im", "I"), field("topk", "num_experts_per_tok", "2", "experts active per token"), tie("false")}), nil,
		llamaBlock("", "", router("block_sparse_moe.gate.weight"), expertMLPs("block_sparse_moe.experts.", "w1", "w3", "w2"))),
)
