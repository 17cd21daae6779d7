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
		cat(sized(llamaDims("128", "", "2", "heads"), "V", "151552", "H", "4096", "L", "40", "heads", "32", "I", "13696"), []Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k and v projections have biases")}), nil,
		inNorm, attn("self_attn.", "attention_bias", ""), postNorm, norm("post_self_attn_layernorm", "H", ""),
		linear("mlp.gate_up_proj", "2*I", "H", ""), linear("mlp.down_proj", "H", "I", ""), norm("post_mlp_layernorm", "H", "")),
	std("Granite", "Granite", []string{"granite"},
		cat(sized(llamaDimsNoHD("heads", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "11008"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
		llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias"))),
	// OLMo: parameter-free layer norms.
	std("OLMo", "Olmo", []string{"olmo"},
		cat(sized(llamaDimsNoHD("heads", "heads"), "V", "50304", "H", "4096", "L", "32", "heads", "32", "I", "11008"), []Def{tie("false"), attnBiasFlag}), nil,
		attn("self_attn.", "attention_bias", "attention_bias"), gatedMLP("mlp.", "I", "")).withFinal(lmHead("lm_head.weight")),
	// OLMo 2 and 3: norms after attention and MLP; q/k norms over all heads.
	std("OLMo2", "Olmo2", []string{"olmo2"},
		cat(sized(llamaDimsNoHD("heads", "heads"), "V", "50304", "H", "4096", "L", "32", "heads", "32", "I", "11008"), []Def{tie("false"), attnBiasFlag}), nil,
		attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
		gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", "")),
	std("OLMo3", "Olmo3", []string{"olmo3"},
		cat(llamaDimsNoHD("heads", "heads"), []Def{tie("false"), attnBiasFlag}), nil,
		attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
		gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", "")),
	// Cohere: parallel attention and MLP after one norm; optional
	// per-head q/k norms [heads, d].
	std("Cohere", "Cohere", []string{"cohere"},
		cat(sized(llamaDimsNoHD("heads", "heads"), "V", "256000", "H", "8192", "L", "40", "heads", "64", "I", "22528"), []Def{tie("true"), attnBiasFlag, flag("qk_norm", "use_qk_norm", "false", "per-head q and k norms")}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias",
			[]T{{Name: "self_attn.q_norm.weight", Shape: []string{"heads", "d"}, Role: RoleNorm, If: "qk_norm"},
				{Name: "self_attn.k_norm.weight", Shape: []string{"kv", "d"}, Role: RoleNorm, If: "qk_norm"}}),
		gatedMLP("mlp.", "I", "")),
	std("Cohere2", "Cohere2", []string{"cohere2"},
		cat(sized(llamaDims("128", "", "heads", "heads"), "V", "256000", "H", "8192", "L", "40", "heads", "64", "I", "22528"), []Def{tie("true"), attnBiasFlag}), nil,
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
		cat(sized(llamaDims("H/heads", "H/heads", "8", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "14336"), []Def{
			{Sym: "E", Field: "num_local_experts", Default: "8", Legend: "E", Desc: "experts per block, {topk} active per token", Show: true, Max: MaxExperts},
			derived("Im", "I"), field("topk", "num_experts_per_tok", "2", "experts active per token"), tie("false")}), nil,
		llamaBlock("", "", router("block_sparse_moe.gate.weight"), expertMLPs("block_sparse_moe.experts.", "w1", "w3", "w2"))),
)

var _ = register(
	std("Phi-3", "Phi3", []string{"phi3"},
		cat(sized(llamaDimsNoHD("heads", "heads"), "V", "32064", "H", "3072", "L", "32", "heads", "32", "I", "8192"), []Def{tie("false")}), nil,
		inNorm, linear("self_attn.qkv_proj", "(heads+2*kv)*d", "H", ""), linear("self_attn.o_proj", "H", "heads*d", ""),
		postNorm, linear("mlp.gate_up_proj", "2*I", "H", ""), linear("mlp.down_proj", "H", "I", "")),
	// Phi (1, 1.5, 2): biases everywhere, a biased LM head, optional
	// per-head q/k layer norms.
	std("Phi", "Phi", []string{"phi"},
		cat(sized(llamaDimsNoHD("heads", "heads"), "V", "51200", "H", "2048", "L", "24", "heads", "32", "I", "8192"), []Def{tie("false"), flag("qk_ln", "qk_layernorm", "false", "q and k layer norms")}), nil,
		norm("input_layernorm", "H", "true"),
		linear("self_attn.q_proj", "heads*d", "H", "true"), linear("self_attn.k_proj", "kv*d", "H", "true"), linear("self_attn.v_proj", "kv*d", "H", "true"),
		when("qk_ln", norm("self_attn.q_layernorm", "d", "true"), norm("self_attn.k_layernorm", "d", "true")),
		linear("self_attn.dense", "H", "heads*d", "true"),
		plainMLP("mlp.fc1", "mlp.fc2", "I", "true")).
		withFinal(norm("model.final_layernorm", "H", "true"), lmHead("lm_head.weight"), []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal"}}),
	std("Gemma3", "Gemma3", []string{"gemma3_text"},
		cat(sized(llamaDims("256", "", "4", ""), "V", "262208", "H", "2304", "L", "26", "heads", "8", "I", "9216"), []Def{tie("true"), attnBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")),
		postNorm, norm("pre_feedforward_layernorm", "H", ""), gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", "")).
		with(func(f *Family) { f.ConfigClass, f.SeqCls = "Gemma3TextConfig", "Gemma3TextForSequenceClassification" }),
	std("VaultGemma", "VaultGemma", []string{"vaultgemma"},
		cat(llamaDims("256", "", "4", ""), []Def{tie("true"), attnBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias"), norm("pre_feedforward_layernorm", "H", ""), gatedMLP("mlp.", "I", "")),
	std("StarCoder2", "Starcoder2", []string{"starcoder2"},
		cat(sized(llamaDimsNoHD("2", "heads"), "V", "49152", "H", "3072", "L", "30", "heads", "24", "I", "12288"), []Def{tie("true"), flag("bias", "use_bias", "true", "every projection has a bias")}), nil,
		norm("input_layernorm", "H", "true"), attn("self_attn.", "bias", "bias"), norm("post_attention_layernorm", "H", "true"),
		plainMLP("mlp.c_fc", "mlp.c_proj", "I", "bias")).
		withFinal(norm("model.norm", "H", "true"), lmHead("lm_head.weight")),
	std("EXAONE-4", "Exaone4", []string{"exaone4"},
		cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "102400", "H", "4096", "L", "32", "heads", "32", "I", "16384"), []Def{tie("false")}), nil,
		attn("self_attn.", "", "", qkNorm("self_attn.", "d", "d")), postNorm, gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", "")),
	std("ERNIE-4.5", "Ernie4_5", []string{"ernie4_5"},
		cat(sized(llamaDims("128", "", "2", "heads"), "V", "103424", "H", "1024", "L", "18", "heads", "16", "I", "3072"), []Def{tie("true"), flag("bias", "use_bias", "false", "every projection has a bias")}), nil,
		llamaBlock("bias", "bias", gatedMLP("mlp.", "I", "bias"))),
	std("Hunyuan-Dense", "HunYuanDenseV1", []string{"hunyuan_v1_dense"},
		cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias", norm("self_attn.query_layernorm", "d", ""), norm("self_attn.key_layernorm", "d", "")),
		postNorm, gatedMLP("mlp.", "I", "mlp_bias")),
	std("BitNet", "BitNet", []string{"bitnet"},
		cat(llamaDimsNoHD("5", "heads"), []Def{tie("false"), attnBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias", norm("self_attn.attn_sub_norm", "H", "")), postNorm,
		gatedMLP("mlp.", "I", ""), norm("mlp.ffn_sub_norm", "I", "")),
	// Nemotron: layer norms (1p) with biases, a plain squared-ReLU MLP.
	std("Nemotron", "Nemotron", []string{"nemotron"},
		cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
		norm("input_layernorm", "H", "true"), attn("self_attn.", "attention_bias", "attention_bias"), norm("post_attention_layernorm", "H", "true"),
		plainMLP("mlp.up_proj", "mlp.down_proj", "I", "mlp_bias")).
		withFinal(norm("model.norm", "H", "true"), lmHead("lm_head.weight")),
	// Persimmon: a fused query_key_value with biases, per-head q/k layer
	// norms, layer norms with biases.
	std("Persimmon", "Persimmon", []string{"persimmon"},
		cat(llamaDimsNoHD("heads", "heads")[:3], []Def{derived("d", "H/heads"), llamaDimsNoHD("heads", "heads")[4], derived("kv", "heads"),
			llamaDimsNoHD("heads", "heads")[6], tie("false"), flag("qk_ln", "qk_layernorm", "true", "q and k layer norms")}), nil,
		norm("input_layernorm", "H", "true"), linear("self_attn.query_key_value", "3*heads*d", "H", "true"),
		when("qk_ln", norm("self_attn.q_layernorm", "d", "true"), norm("self_attn.k_layernorm", "d", "true")),
		linear("self_attn.dense", "H", "heads*d", "true"), norm("post_attention_layernorm", "H", "true"),
		plainMLP("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "I", "true")).
		withFinal(norm("model.final_layernorm", "H", "true"), lmHead("lm_head.weight")),
	std("Open-Llama", "OpenLlama", []string{"open-llama"},
		cat(llamaDimsNoHD("heads", "heads")[:5], []Def{derived("kv", "heads"), llamaDimsNoHD("heads", "heads")[6], tie("false"),
			flag("stable_emb", "use_stable_embedding", "true", "a layer norm after the embedding"),
			flag("shared", "shared_input_output_embedding", "true", "the LM head is the embedding")}), nil,
		llamaBlock("", "", gatedMLP("mlp.", "I", ""))).
		with(func(f *Family) {
			f.Global = cat(f.Global, when("stable_emb", norm("model.embed_layer_norm", "H", "true")))
			f.Final = cat(norm("model.norm", "H", ""), when("!shared || seqcls", lmHead("lm_head.weight")))
		}),
	std("DiffLlama", "DiffLlama", []string{"diffllama"},
		cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias", []T{
			{Name: "self_attn.lambda_q1", Shape: []string{"d"}, Role: RoleNorm}, {Name: "self_attn.lambda_k1", Shape: []string{"d"}, Role: RoleNorm},
			{Name: "self_attn.lambda_q2", Shape: []string{"d"}, Role: RoleNorm}, {Name: "self_attn.lambda_k2", Shape: []string{"d"}, Role: RoleNorm}}),
		postNorm, gatedMLP("mlp.", "I", "")),
	// Llama 4's text model: stacked experts (gate_up [E, H, 2·I], down
	// [E, I, H]) and a shared expert in the MoE layers, a wider dense MLP
	// in the others.
	std("Llama4", "Llama4", []string{"llama4_text"},
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
		with(func(f *Family) { f.ConfigClass, f.SeqCls = "Llama4TextConfig", "-" }),
)

var _ = register(
	std("Emu3-Text", "Emu3", []string{"emu3_text_model"},
		cat(llamaDims("H/heads", "H/heads", "8", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
		llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias"))).
		with(func(f *Family) { f.ConfigClass, f.SeqCls = "Emu3TextConfig", "-" }),
	// Mllama's text model: cross-attention layers (with q/k norms and
	// tanh gates) at cross_attention_layers, 8 extra embedding rows for
	// the image tokens.
	std("Mllama-Text", "Mllama", []string{"mllama_text_model"},
		cat(sized(llamaDimsNoHD("8", "heads"), "V", "128256", "H", "4096", "L", "40", "heads", "32", "I", "14336"), []Def{
			{Sym: "cross_layers", Field: "cross_attention_layers", Type: List, Default: mllamaCross, Null: "=", Desc: "the cross-attention blocks"}, tie("false")}),
		[]Kind{{Name: "cross", If: "in(l, cross_layers)"}, {Name: "self"}},
		inNorm, when("self", attn("self_attn.", "", "")),
		when("cross", attn("cross_attn.", "", "", qkNorm("cross_attn.", "d", "d")),
			[]T{{Name: "cross_attn_attn_gate", Shape: []string{"1"}, Role: RoleNorm}, {Name: "cross_attn_mlp_gate", Shape: []string{"1"}, Role: RoleNorm}}),
		postNorm, gatedMLP("mlp.", "I", "")).
		with(func(f *Family) {
			f.ConfigClass, f.SeqCls = "MllamaTextConfig", "-"
			f.Global = []T{{Name: "model.embed_tokens.weight", Shape: []string{"V+8", "H"}, Role: RoleEmbedding}}
			f.Final = cat(norm("model.norm", "H", ""), []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}})
		}),
	// Moshi's text decoder: an extra embedding row, gated fc1 [ffn, H]
	// feeding fc2 [H, ffn/2], projections under .linear.
	std("Moshi", "Moshi", []string{"moshi"},
		cat(withDefault(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "ffn_dim"), "I", "22528"),
			[]Def{{Sym: "d", Field: "head_dim", Default: "H/heads", Null: "H/heads", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
				kvDef("num_key_value_heads", "heads", "heads"), tie("false")}), nil,
		inNorm, linear("self_attn.q_proj.linear", "heads*d", "H", ""), linear("self_attn.k_proj.linear", "kv*d", "H", ""),
		linear("self_attn.v_proj.linear", "kv*d", "H", ""), linear("self_attn.o_proj.linear", "H", "heads*d", ""),
		postNorm, linear("mlp.fc1", "I", "H", ""), linear("mlp.fc2", "H", "I/2", "")).
		with(func(f *Family) {
			f.SeqCls = "-"
			f.Global = []T{{Name: "model.embed_tokens.weight", Shape: []string{"V+1", "H"}, Role: RoleEmbedding}}
			f.Final = cat(norm("model.norm", "H", ""), []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}})
		}),
	// CPM-Ant: prompt rows in the input embedding, segment embeddings, a
	// relative position bias shared by all layers.
	&Family{Name: "CPM-Ant", Class: "CpmAnt", ModelTypes: []string{"cpmant"}, SeqCls: "-",
		Defs: cat(withDefault(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "dim_ff"), "I", "10240"), []Def{
			field("d", "dim_head", "128", "width of one attention head"),
			field("pt", "prompt_types", "32", "prompt types"), field("pl", "prompt_length", "32", "prompt length"),
			field("seg", "segment_types", "32", "segment types"), field("buckets", "position_bias_num_buckets", "512", "relative position buckets"),
			tie("true")}),
		Global: []T{{Name: "cpmant.input_embedding.weight", Shape: []string{"V+pt*pl", "H"}, Role: RoleEmbedding},
			{Name: "cpmant.segment_embedding.weight", Shape: []string{"seg", "H"}, Role: RoleEmbedding},
			{Name: "cpmant.position_bias.relative_attention_bias", Shape: []string{"seg*seg+buckets", "heads"}, Role: RoleEmbedding}},
		Stacks: []Stack{{Prefix: "cpmant.encoder.layers.{l}.", Layers: "L", Tensors: cat(
			norm("self_att.layernorm_before_attention", "H", ""),
			linear("self_att.self_attention.project_q", "heads*d", "H", ""), linear("self_att.self_attention.project_k", "heads*d", "H", ""),
			linear("self_att.self_attention.project_v", "heads*d", "H", ""), linear("self_att.self_attention.attention_out", "H", "heads*d", ""),
			norm("ffn.layernorm_before_ffn", "H", ""),
			linear("ffn.ffn.w_in.w_0", "I", "H", ""), linear("ffn.ffn.w_in.w_1", "I", "H", ""), linear("ffn.ffn.w_out", "H", "I", ""))}},
		Final: cat(norm("cpmant.encoder.output_layernorm", "H", ""),
			[]T{{Name: "lm_head.weight", Shape: []string{"V+pt*pl", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}}),
		Embed: "cpmant.input_embedding.weight", BasePrefix: "cpmant."},
)
