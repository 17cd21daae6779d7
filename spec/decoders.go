package spec

import (
	"fmt"
)

// Dense decoder language models: Llama and its kin (std), the GPT lineage, and
// the other causal LMs without experts or a state-space mixer.

// mllamaCross is MllamaTextConfig's cross_attention_layers when absent.
const mllamaCross = "list(3, 8, 13, 18, 23, 28, 33, 38)"

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

var (
	gpt2Pos, gpt2PosT = positions("transformer.wpe.weight", "n_positions", "1024")
	neoPos, neoPosT   = positions("transformer.wpe.weight", "max_position_embeddings", "2048")
)

// old GPT-2-style checkpoints carry the attention masks as buffers.
var gptBuffers = []string{`^(transformer\.)?h\.\d+\.attn\.(masked_)?bias$`, `^(transformer\.)?h\.\d+\.attn\.attention\.(masked_)?bias$`}

// gptStd is a family of the GPT lineage's layout, all under
// "transformer." (a checkpoint of the base model alone names its tensors
// without it): the token embedding transformer.<emb>, the blocks under
// transformer.h.{l}., the biased final norm transformer.ln_f and lm_head.
// with edits the rest (position embeddings, a head's bias).
func gptStd(name, class string, types []string, defs []Def, emb string, layer ...[]T) *Family {
	return &Family{Name: name, Class: class, ModelTypes: types, Defs: defs,
		Global: embed("transformer." + emb + ".weight"),
		Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(layer...)}},
		Final:  cat(norm("transformer.ln_f", "H", "true"), lmHead("lm_head.weight")),
		Embed:  "transformer." + emb + ".weight", BasePrefix: "transformer."}
}

// lmHeadBias is the LM head's bias of GPT-J, CodeGen and CTRL.
var lmHeadBias = []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal"}}

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

// bltDefs are one BLT component's fields under cfg ("encoder_config."),
// symbols s+"H", s+"L", s+"Heads", s+"Kv", s+"I"; the head width is
// always H/heads (the config classes derive it).
func bltDefs(s, cfg, name, h, l, heads, inter string) []Def {
	return []Def{
		{Sym: s + "H", Field: cfg + "hidden_size", Default: h, Legend: s + "H", Desc: name + " width", Show: true, Pos: true},
		{Sym: s + "L", Field: cfg + "num_hidden_layers", Default: l, Legend: s + "L", Desc: name + " layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: s + "Heads", Field: cfg + "num_attention_heads", Default: heads, Desc: name + " heads", Pos: true, Divides: s + "H"},
		{Sym: s + "Kv", Field: cfg + "num_key_value_heads", Default: s + "Heads", Null: s + "Heads", Desc: name + " kv heads", Pos: true},
		{Sym: s + "I", Field: cfg + "intermediate_size", Default: inter, Null: "8*" + s + "H/3", Desc: name + " FFN width", Pos: true},
	}
}

// bltSyms renames a Llama block's symbols to component s's.
func bltSyms(ts []T, s string) []T {
	return renameSyms(ts, "heads", s+"Heads", "kv", s+"Kv", "d", "("+s+"H/"+s+"Heads)", "H", s+"H", "I", s+"I")
}

var _ = register(
	// Text decoders close to Llama: the same skeleton (std), with their own
	// norms, biases, MLPs and config defaults (transformers'
	// configuration_*.py; a missing field takes the class's default).

	func() *Family {
		return std("Ministral", "Ministral", []string{"ministral"},
			cat(llamaDims("H/heads", "H/heads", "8", "heads"), []Def{tie("false")}), nil,
			llamaBlock("", "", gatedMLP("mlp.", "I", "")))
	},
	func() *Family {
		return std("SmolLM3", "SmolLM3", []string{"smollm3"},
			cat(llamaDims("H/heads", "H/heads", "4", "heads"), []Def{tie("true"), attnBiasFlag, mlpBiasFlag}), nil,
			llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias")))
	},
	// Helium's o_proj is [H, H] and never biased; head_dim's default is 128.
	func() *Family {
		return std("Helium", "Helium", []string{"helium"},
			cat(llamaDims("128", "H/heads", "20", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
			inNorm, linear("self_attn.q_proj", "heads*d", "H", "attention_bias"), linear("self_attn.k_proj", "kv*d", "H", "attention_bias"),
			linear("self_attn.v_proj", "kv*d", "H", "attention_bias"), linear("self_attn.o_proj", "H", "H", ""),
			postNorm, gatedMLP("mlp.", "I", "mlp_bias"))
	},
	func() *Family {
		return std("Arcee", "Arcee", []string{"arcee"},
			cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
			llamaBlock("attention_bias", "attention_bias", plainMLP("mlp.up_proj", "mlp.down_proj", "I", "mlp_bias")))
	},
	// Apertus: xIELU's learned parameters, QK norms, its own norm names.
	func() *Family {
		return std("Apertus", "Apertus", []string{"apertus"},
			cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
			norm("attention_layernorm", "H", ""),
			attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")),
			norm("feedforward_layernorm", "H", ""),
			plainMLP("mlp.up_proj", "mlp.down_proj", "I", "mlp_bias"),
			// xIELU builds its parameters and buffers in bfloat16 whatever
			// the model's dtype (4.57); 5.x casts them with the model.
			[]T{{Name: "mlp.act_fn.alpha_n", Shape: []string{"1"}, Role: RoleNorm, AnyDType: true}, {Name: "mlp.act_fn.alpha_p", Shape: []string{"1"}, Role: RoleNorm, AnyDType: true},
				{Name: "mlp.act_fn.beta", Role: RoleNorm, AnyDType: true}, {Name: "mlp.act_fn.eps", Role: RoleNorm, AnyDType: true}})
	},
	func() *Family {
		return std("Seed-OSS", "SeedOss", []string{"seed_oss"},
			cat(llamaDims("128", "", "8", "heads"), []Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k and v projections have biases"),
				flag("attention_out_bias", "attention_out_bias", "false", "o_proj has a bias"), mlpBiasFlag}), nil,
			llamaBlock("attention_bias", "attention_out_bias", gatedMLP("mlp.", "I", "mlp_bias")))
	},
	// GLM: fused gate_up_proj [2·I, H]; q, k, v biases.
	func() *Family {
		return std("GLM", "Glm", []string{"glm"},
			cat(llamaDims("128", "", "2", "heads"), []Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k and v projections have biases")}), nil,
			llamaBlock("attention_bias", "", linear("mlp.gate_up_proj", "2*I", "H", ""), linear("mlp.down_proj", "H", "I", "")))
	},
	func() *Family {
		return std("GLM-4", "Glm4", []string{"glm4"},
			cat(sized(llamaDims("128", "", "2", "heads"), "V", "151552", "H", "4096", "L", "40", "heads", "32", "I", "13696"), []Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k and v projections have biases")}), nil,
			inNorm, attn("self_attn.", "attention_bias", ""), postNorm, norm("post_self_attn_layernorm", "H", ""),
			linear("mlp.gate_up_proj", "2*I", "H", ""), linear("mlp.down_proj", "H", "I", ""), norm("post_mlp_layernorm", "H", ""))
	},
	func() *Family {
		return std("Granite", "Granite", []string{"granite"},
			cat(sized(llamaDimsNoHD("heads", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "11008"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
			llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias")))
	},
	// OLMo: parameter-free layer norms.
	func() *Family {
		return std("OLMo", "Olmo", []string{"olmo"},
			cat(sized(llamaDimsNoHD("heads", "heads"), "V", "50304", "H", "4096", "L", "32", "heads", "32", "I", "11008"), []Def{tie("false"), attnBiasFlag}), nil,
			attn("self_attn.", "attention_bias", "attention_bias"), gatedMLP("mlp.", "I", "")).withFinal(lmHead("lm_head.weight"))
	},
	// OLMo 2 and 3: norms after attention and MLP; q/k norms over all heads.
	func() *Family {
		return std("OLMo2", "Olmo2", []string{"olmo2"},
			cat(sized(llamaDimsNoHD("heads", "heads"), "V", "50304", "H", "4096", "L", "32", "heads", "32", "I", "11008"), []Def{tie("false"), attnBiasFlag}), nil,
			attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
			gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", ""))
	},
	func() *Family {
		return std("OLMo3", "Olmo3", []string{"olmo3"},
			cat(llamaDimsNoHD("heads", "heads"), []Def{tie("false"), attnBiasFlag}), nil,
			attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
			gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", ""))
	},
	// Cohere: parallel attention and MLP after one norm; optional
	// per-head q/k norms [heads, d].
	func() *Family {
		return std("Cohere", "Cohere", []string{"cohere"},
			cat(sized(llamaDimsNoHD("heads", "heads"), "V", "256000", "H", "8192", "L", "40", "heads", "64", "I", "22528"), []Def{tie("true"), attnBiasFlag, flag("qk_norm", "use_qk_norm", "false", "per-head q and k norms")}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias",
				[]T{{Name: "self_attn.q_norm.weight", Shape: []string{"heads", "d"}, Role: RoleNorm, If: "qk_norm"},
					{Name: "self_attn.k_norm.weight", Shape: []string{"kv", "d"}, Role: RoleNorm, If: "qk_norm"}}),
			gatedMLP("mlp.", "I", ""))
	},
	func() *Family {
		return std("Cohere2", "Cohere2", []string{"cohere2"},
			cat(sized(llamaDims("128", "", "heads", "heads"), "V", "256000", "H", "8192", "L", "40", "heads", "64", "I", "22528"), []Def{tie("true"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias"), gatedMLP("mlp.", "I", ""))
	},
	// StableLM: layer norms with biases; optional per-head q/k layer
	// norms, qkv biases and a parallel residual without the second norm.
	func() *Family {
		return std("StableLM", "StableLm", []string{"stablelm"},
			cat(llamaDimsNoHD("heads", "heads"), []Def{tie("false"), flag("qkv_bias", "use_qkv_bias", "false", "q, k and v projections have biases"),
				flag("qk_ln", "qk_layernorm", "false", "per-head q and k layer norms"),
				flag("parallel", "use_parallel_residual", "false", "attention and MLP in parallel, one norm")}), nil,
			norm("input_layernorm", "H", "true"), attn("self_attn.", "qkv_bias", "",
				[]T{{Name: "self_attn.q_layernorm.norms.{e}.weight", Shape: []string{"d"}, Role: RoleNorm, If: "qk_ln", Experts: "heads"},
					{Name: "self_attn.k_layernorm.norms.{e}.weight", Shape: []string{"d"}, Role: RoleNorm, If: "qk_ln", Experts: "kv"}}),
			when("!parallel", norm("post_attention_layernorm", "H", "true")), gatedMLP("mlp.", "I", "")).
			withFinal(norm("model.norm", "H", "true"), lmHead("lm_head.weight"))
	},
	func() *Family {
		return std("Phi-3", "Phi3", []string{"phi3"},
			cat(sized(llamaDimsNoHD("heads", "heads"), "V", "32064", "H", "3072", "L", "32", "heads", "32", "I", "8192"), []Def{tie("false")}), nil,
			inNorm, linear("self_attn.qkv_proj", "(heads+2*kv)*d", "H", ""), linear("self_attn.o_proj", "H", "heads*d", ""),
			postNorm, linear("mlp.gate_up_proj", "2*I", "H", ""), linear("mlp.down_proj", "H", "I", ""))
	},
	// Phi (1, 1.5, 2): biases everywhere, a biased LM head, optional
	// per-head q/k layer norms.
	func() *Family {
		return std("Phi", "Phi", []string{"phi"},
			cat(sized(llamaDimsNoHD("heads", "heads"), "V", "51200", "H", "2048", "L", "24", "heads", "32", "I", "8192"), []Def{tie("false"), flag("qk_ln", "qk_layernorm", "false", "q and k layer norms")}), nil,
			norm("input_layernorm", "H", "true"),
			linear("self_attn.q_proj", "heads*d", "H", "true"), linear("self_attn.k_proj", "kv*d", "H", "true"), linear("self_attn.v_proj", "kv*d", "H", "true"),
			when("qk_ln", norm("self_attn.q_layernorm", "d", "true"), norm("self_attn.k_layernorm", "d", "true")),
			linear("self_attn.dense", "H", "heads*d", "true"),
			plainMLP("mlp.fc1", "mlp.fc2", "I", "true")).
			withFinal(norm("model.final_layernorm", "H", "true"), lmHead("lm_head.weight"), []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal"}})
	},
	func() *Family {
		return std("Gemma3", "Gemma3", []string{"gemma3_text"},
			cat(sized(llamaDims("256", "", "4", ""), "V", "262208", "H", "2304", "L", "26", "heads", "8", "I", "9216"), []Def{tie("true"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")),
			postNorm, norm("pre_feedforward_layernorm", "H", ""), gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", "")).
			with(func(f *Family) {
				f.ConfigClass, f.SeqCls = "Gemma3TextConfig", "Gemma3TextForSequenceClassification"
				f.Tasks = []Task{{Suffix: "TextModel", Prefix: "-"}} // Gemma3Model is the VLM's
			})
	},
	func() *Family {
		return std("VaultGemma", "VaultGemma", []string{"vaultgemma"},
			cat(llamaDims("256", "", "4", ""), []Def{tie("true"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias"), norm("pre_feedforward_layernorm", "H", ""), gatedMLP("mlp.", "I", ""))
	},
	func() *Family {
		return std("StarCoder2", "Starcoder2", []string{"starcoder2"},
			cat(sized(llamaDimsNoHD("2", "heads"), "V", "49152", "H", "3072", "L", "30", "heads", "24", "I", "12288"), []Def{tie("true"), flag("bias", "use_bias", "true", "every projection has a bias")}), nil,
			norm("input_layernorm", "H", "true"), attn("self_attn.", "bias", "bias"), norm("post_attention_layernorm", "H", "true"),
			plainMLP("mlp.c_fc", "mlp.c_proj", "I", "bias")).
			withFinal(norm("model.norm", "H", "true"), lmHead("lm_head.weight"))
	},
	func() *Family {
		return std("EXAONE-4", "Exaone4", []string{"exaone4"},
			cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "102400", "H", "4096", "L", "32", "heads", "32", "I", "16384"), []Def{tie("false")}), nil,
			attn("self_attn.", "", "", qkNorm("self_attn.", "d", "d")), postNorm, gatedMLP("mlp.", "I", ""), norm("post_feedforward_layernorm", "H", ""))
	},
	func() *Family {
		return std("ERNIE-4.5", "Ernie4_5", []string{"ernie4_5"},
			cat(sized(llamaDims("128", "", "2", "heads"), "V", "103424", "H", "1024", "L", "18", "heads", "16", "I", "3072"), []Def{tie("true"), flag("bias", "use_bias", "false", "every projection has a bias")}), nil,
			llamaBlock("bias", "bias", gatedMLP("mlp.", "I", "bias")))
	},
	func() *Family {
		return std("Hunyuan-Dense", "HunYuanDenseV1", []string{"hunyuan_v1_dense"},
			cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", norm("self_attn.query_layernorm", "d", ""), norm("self_attn.key_layernorm", "d", "")),
			postNorm, gatedMLP("mlp.", "I", "mlp_bias"))
	},
	func() *Family {
		return std("BitNet", "BitNet", []string{"bitnet"},
			cat(llamaDimsNoHD("5", "heads"), []Def{tie("false"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", norm("self_attn.attn_sub_norm", "H", "")), postNorm,
			gatedMLP("mlp.", "I", ""), norm("mlp.ffn_sub_norm", "I", ""))
	},
	// Nemotron: layer norms (1p) with biases, a plain squared-ReLU MLP.
	func() *Family {
		return std("Nemotron", "Nemotron", []string{"nemotron"},
			cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
			norm("input_layernorm", "H", "true"), attn("self_attn.", "attention_bias", "attention_bias"), norm("post_attention_layernorm", "H", "true"),
			plainMLP("mlp.up_proj", "mlp.down_proj", "I", "mlp_bias")).
			withFinal(norm("model.norm", "H", "true"), lmHead("lm_head.weight"))
	},
	// Persimmon: a fused query_key_value with biases, per-head q/k layer
	// norms, layer norms with biases.
	func() *Family {
		return std("Persimmon", "Persimmon", []string{"persimmon"},
			cat(llamaDimsNoHD("heads", "heads")[:3], []Def{derived("d", "H/heads"), llamaDimsNoHD("heads", "heads")[4], derived("kv", "heads"),
				llamaDimsNoHD("heads", "heads")[6], tie("false"), flag("qk_ln", "qk_layernorm", "true", "q and k layer norms")}), nil,
			norm("input_layernorm", "H", "true"), linear("self_attn.query_key_value", "3*heads*d", "H", "true"),
			when("qk_ln", norm("self_attn.q_layernorm", "d", "true"), norm("self_attn.k_layernorm", "d", "true")),
			linear("self_attn.dense", "H", "heads*d", "true"), norm("post_attention_layernorm", "H", "true"),
			plainMLP("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "I", "true")).
			withFinal(norm("model.final_layernorm", "H", "true"), lmHead("lm_head.weight"))
	},
	func() *Family {
		return std("Open-Llama", "OpenLlama", []string{"open-llama"},
			cat(llamaDimsNoHD("heads", "heads")[:5], []Def{derived("kv", "heads"), llamaDimsNoHD("heads", "heads")[6], tie("false"),
				flag("stable_emb", "use_stable_embedding", "true", "a layer norm after the embedding"),
				flag("shared", "shared_input_output_embedding", "true", "the LM head is the embedding")}), nil,
			llamaBlock("", "", gatedMLP("mlp.", "I", ""))).
			with(func(f *Family) {
				f.Global = cat(f.Global, when("stable_emb", norm("model.embed_layer_norm", "H", "true")))
				f.Final = cat(norm("model.norm", "H", ""), when("!shared || seqcls", lmHead("lm_head.weight")))
			})
	},
	func() *Family {
		return std("DiffLlama", "DiffLlama", []string{"diffllama"},
			cat(llamaDims("H/heads", "H/heads", "heads", "heads"), []Def{tie("false"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", []T{
				{Name: "self_attn.lambda_q1", Shape: []string{"d"}, Role: RoleNorm}, {Name: "self_attn.lambda_k1", Shape: []string{"d"}, Role: RoleNorm},
				{Name: "self_attn.lambda_q2", Shape: []string{"d"}, Role: RoleNorm}, {Name: "self_attn.lambda_k2", Shape: []string{"d"}, Role: RoleNorm}}),
			postNorm, gatedMLP("mlp.", "I", ""))
	},
	func() *Family {
		return std("Emu3-Text", "Emu3", []string{"emu3_text_model"},
			cat(llamaDims("H/heads", "H/heads", "8", "heads"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}), nil,
			llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias"))).
			with(func(f *Family) { f.ConfigClass, f.SeqCls = "Emu3TextConfig", "-" })
	},
	// Mllama's text model: cross-attention layers (with q/k norms and
	// tanh gates) at cross_attention_layers, 8 extra embedding rows for
	// the image tokens.
	func() *Family {
		return std("Mllama-Text", "Mllama", []string{"mllama_text_model"},
			cat(sized(llamaDimsNoHD("8", "heads"), "V", "128256", "H", "4096", "L", "40", "heads", "32", "I", "14336"), []Def{
				listOf("cross_layers", "cross_attention_layers", mllamaCross, "the cross-attention blocks"), tie("false")}),
			[]Kind{{Name: "cross", If: "in(l, cross_layers)"}, {Name: "self"}},
			inNorm, when("self", attn("self_attn.", "", "")),
			when("cross", attn("cross_attn.", "", "", qkNorm("cross_attn.", "d", "d")),
				[]T{{Name: "cross_attn_attn_gate", Shape: []string{"1"}, Role: RoleNorm}, {Name: "cross_attn_mlp_gate", Shape: []string{"1"}, Role: RoleNorm}}),
			postNorm, gatedMLP("mlp.", "I", "")).
			with(func(f *Family) {
				f.ConfigClass, f.SeqCls = "MllamaTextConfig", "-"
				f.Tasks = []Task{{Suffix: "TextModel", Prefix: "-"}}
				f.Global = []T{{Name: "model.embed_tokens.weight", Shape: []string{"V+8", "H"}, Role: RoleEmbedding}}
				f.Final = cat(norm("model.norm", "H", ""), []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}})
			})
	},
	// CPM-Ant: prompt rows in the input embedding, segment embeddings, a
	// relative position bias shared by all layers.
	func() *Family {
		return &Family{Name: "CPM-Ant", Class: "CpmAnt", ModelTypes: []string{"cpmant"}, SeqCls: "-",
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
			Embed: "cpmant.input_embedding.weight", BasePrefix: "cpmant."}
	},
	// ModernBERT-decoder: ModernBERT's layers with q, k and v apart, an
	// LM head behind a dense and a norm.
	func() *Family {
		return &Family{Name: "ModernBERT-decoder", Class: "ModernBertDecoder", ModelTypes: []string{"modernbert-decoder"}, SeqCls: "-",
			Defs: cat(trunk("50368", "768", "22", "decoder layers"), []Def{
				{Sym: "I", Field: "intermediate_size", Default: "1152", Legend: "I", Desc: "MLP inner width", Show: true, Pos: true}},
				modernBertSwitches),
			Global: modernBertEmbeddings(),
			Stacks: modernBertLayers(linear("attn.q_proj", "H", "H", "attention_bias"), linear("attn.k_proj", "H", "H", "attention_bias"),
				linear("attn.v_proj", "H", "H", "attention_bias")),
			Final: cat(norm("model.final_norm", "H", "norm_bias"), linear("lm_head.dense", "H", "H", "cls_bias"), norm("lm_head.norm", "H", "norm_bias"),
				[]T{{Name: "decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied", If: "causal"}},
				vecIf("decoder.bias", "V", "dec_bias && causal")),
			Embed: "model.embeddings.tok_embeddings.weight", Head: "decoder.weight",
		}
	},
	func() *Family {
		return gptStd("GPT-2", "GPT2", []string{"gpt2"},
			cat(sized(gpt2Dims("12", "4*H"), "V", "50257", "H", "768", "heads", "12"), gpt2Pos, []Def{tie("true"),
				flag("cross", "add_cross_attention", "false", "each layer has cross-attention to an encoder")}), "wte",
			norm("ln_1", "H", "true"), conv1d("attn.c_attn", "H", "3*H"), conv1d("attn.c_proj", "H", "H"),
			// add_cross_attention (a VisionEncoderDecoder's decoder): K and V
			// fused, Q apart.
			when("cross", conv1d("crossattention.c_attn", "H", "2*H"), conv1d("crossattention.q_attn", "H", "H"),
				conv1d("crossattention.c_proj", "H", "H"), norm("ln_cross_attn", "H", "true")),
			norm("ln_2", "H", "true"), conv1d("mlp.c_fc", "H", "I"), conv1d("mlp.c_proj", "I", "H")).
			with(func(f *Family) { f.Causal, f.Global, f.Ignore = "GPT2LMHeadModel", cat(f.Global, gpt2PosT), gptBuffers })
	},
	// GPT-BigCode (StarCoder 1, SantaCoder): Linear layers, multi-query
	// attention by default.
	func() *Family {
		return gptStd("GPT-BigCode", "GPTBigCode", []string{"gpt_bigcode"},
			cat(gpt2Dims("12", "4*H"), gpt2Pos, []Def{tie("true"),
				flag("mq", "multi_query", "true", "one key/value head for all query heads")}), "wte",
			norm("ln_1", "H", "true"), linear("attn.c_attn", "mq ? H+2*d : 3*H", "H", "true"), linear("attn.c_proj", "H", "H", "true"),
			norm("ln_2", "H", "true"), plainMLP("mlp.c_fc", "mlp.c_proj", "I", "true")).
			with(func(f *Family) { f.Global = cat(f.Global, gpt2PosT) })
	},
	func() *Family {
		return gptStd("GPT-Neo", "GPTNeo", []string{"gpt_neo"},
			cat(withDefault(dims("vocab_size", "hidden_size", "num_layers", "num_heads", "intermediate_size"), "I", "4*H"), neoPos,
				[]Def{derived("d", "H/heads"), tie("true")}), "wte",
			norm("ln_1", "H", "true"), linear("attn.attention.q_proj", "H", "H", ""), linear("attn.attention.k_proj", "H", "H", ""),
			linear("attn.attention.v_proj", "H", "H", ""), linear("attn.attention.out_proj", "H", "H", "true"),
			norm("ln_2", "H", "true"), plainMLP("mlp.c_fc", "mlp.c_proj", "I", "true")).
			with(func(f *Family) { f.Global, f.Ignore = cat(f.Global, neoPosT), gptBuffers })
	},
	func() *Family {
		return &Family{Name: "GPT-NeoX", Class: "GPTNeoX", ModelTypes: []string{"gpt_neox"},
			Defs: sized(cat(llamaDimsNoHD("heads", "heads")[:5], []Def{derived("kv", "heads"), llamaDimsNoHD("heads", "heads")[6], tie("false"),
				flag("attention_bias", "attention_bias", "true", "query_key_value and dense have biases"),
				flag("parallel", "use_parallel_residual", "true", "attention and MLP in parallel")}),
				"V", "50432", "H", "6144", "L", "44", "heads", "64", "I", "24576"),
			Global: embed("gpt_neox.embed_in.weight"),
			Stacks: []Stack{{Prefix: "gpt_neox.layers.{l}.", Layers: "L", Tensors: cat(
				norm("input_layernorm", "H", "true"), norm("post_attention_layernorm", "H", "true"),
				linear("attention.query_key_value", "3*H", "H", "attention_bias"), linear("attention.dense", "H", "H", "attention_bias"),
				plainMLP("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "I", "true"))}},
			Final: cat(norm("gpt_neox.final_layer_norm", "H", "true"), lmHead("embed_out.weight")),
			Embed: "gpt_neox.embed_in.weight", Head: "embed_out.weight", BasePrefix: "gpt_neox.",
			Ignore: []string{`^gpt_neox\.layers\.\d+\.attention\.(bias|masked_bias|rotary_emb\.inv_freq)$`}}
	},
	func() *Family {
		return gptStd("GPT-J", "GPTJ", []string{"gptj"}, cat(sized(gpt2Dims("28", "4*H"), "V", "50400", "H", "4096", "heads", "16"), []Def{tie("false")}), "wte",
			norm("ln_1", "H", "true"), linear("attn.q_proj", "H", "H", ""), linear("attn.k_proj", "H", "H", ""), linear("attn.v_proj", "H", "H", ""),
			linear("attn.out_proj", "H", "H", ""), plainMLP("mlp.fc_in", "mlp.fc_out", "I", "true")).
			with(func(f *Family) {
				f.Final, f.Ignore = cat(f.Final, lmHeadBias), []string{`^(transformer\.)?h\.\d+\.attn\.(masked_)?bias$`}
			})
	},
	func() *Family {
		return gptStd("CodeGen", "CodeGen", []string{"codegen"}, cat(gpt2Dims("28", "4*H"), []Def{tie("false")}), "wte",
			norm("ln_1", "H", "true"), linear("attn.qkv_proj", "3*H", "H", ""), linear("attn.out_proj", "H", "H", ""),
			plainMLP("mlp.fc_in", "mlp.fc_out", "I", "true")).
			with(func(f *Family) {
				f.SeqCls, f.Final = "-", cat(f.Final, lmHeadBias)
				f.Ignore = []string{`^(transformer\.)?h\.\d+\.attn\.(causal_mask|masked_bias)$`}
			})
	},
	func() *Family {
		return gptStd("BLOOM", "Bloom", []string{"bloom"}, []Def{
			{Sym: "V", Field: "vocab_size", Default: "250880", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "hidden_size|n_embed", Default: "64", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
			{Sym: "L", Field: "n_layer|num_hidden_layers", Default: "2", Legend: "L", Desc: "transformer blocks", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "n_head|num_attention_heads", Default: "8", Desc: "attention heads", Show: true, Pos: true},
			derived("I", "4*H"), tie("true")}, "word_embeddings",
			norm("input_layernorm", "H", "true"), linear("self_attention.query_key_value", "3*H", "H", "true"), linear("self_attention.dense", "H", "H", "true"),
			norm("post_attention_layernorm", "H", "true"), plainMLP("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "I", "true")).
			with(func(f *Family) { f.Global = cat(f.Global, norm("transformer.word_embeddings_layernorm", "H", "true")) })
	},
	// Falcon: multi-query or grouped (new_decoder_architecture) fused
	// qkv; one or two norms per block as parallel_attn and
	// num_ln_in_parallel_attn say.
	func() *Family {
		return gptStd("Falcon", "Falcon", []string{"falcon"},
			cat(sized(withDefault(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "ffn_hidden_size"), "I", "4*H"), "V", "65024", "H", "4544", "L", "32", "heads", "71"), []Def{
				derived("d", "H/heads"),
				flag("new_arch", "new_decoder_architecture", "false", "grouped kv heads, two norms"),
				flag("mq", "multi_query", "true", "one key/value head (old architecture)"),
				{Sym: "kv", Field: "num_kv_heads", Default: "heads", Null: "heads", Desc: "kv heads (new architecture)", Pos: true},
				flag("parallel", "parallel_attn", "true", "attention and MLP in parallel"),
				{Sym: "nln", Field: "num_ln_in_parallel_attn", Default: "new_arch ? 2 : 1", Null: "new_arch ? 2 : 1", Desc: "norms of a parallel block"},
				flag("bias", "bias", "false", "linear layers have biases"), tie("true")}), "word_embeddings",
			when("!parallel || nln != 2", norm("input_layernorm", "H", "true")),
			when("parallel && nln == 2", norm("ln_attn", "H", "true"), norm("ln_mlp", "H", "true")),
			when("!parallel", norm("post_attention_layernorm", "H", "true")),
			linear("self_attention.query_key_value", "new_arch ? (heads+2*kv)*d : (mq ? H+2*d : 3*H)", "H", "bias"),
			linear("self_attention.dense", "H", "H", "bias"),
			plainMLP("mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "I", "bias"))
	},
	func() *Family {
		return &Family{Name: "MPT", Class: "Mpt", ModelTypes: []string{"mpt"},
			Defs: cat(dims("vocab_size", "d_model", "n_layers", "n_heads", "")[:4], []Def{
				// MptModel builds no bias and an MLP of 4·d_model whatever
				// no_bias and expansion_ratio say (both versions).
				derived("I", "4*H"), tie("true")}),
			Global: embed("transformer.wte.weight"),
			Stacks: []Stack{{Prefix: "transformer.blocks.{l}.", Layers: "L", Tensors: cat(
				norm("norm_1", "H", ""), linear("attn.Wqkv", "3*H", "H", ""), linear("attn.out_proj", "H", "H", ""),
				norm("norm_2", "H", ""), plainMLP("ffn.up_proj", "ffn.down_proj", "I", ""))}},
			Final: cat(norm("transformer.norm_f", "H", ""), lmHead("lm_head.weight")),
			Embed: "transformer.wte.weight", BasePrefix: "transformer."}
	},
	// OPT: embeddings of word_embed_proj_dim projected in and out when it
	// differs from hidden_size; learned positions with an offset of 2.
	func() *Family {
		return &Family{Name: "OPT", Class: "OPT", ModelTypes: []string{"opt"},
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
			Embed: "model.decoder.embed_tokens.weight", BasePrefix: "model."}
	},
	func() *Family {
		return &Family{Name: "OpenAI-GPT", Class: "OpenAIGPT", ModelTypes: []string{"openai-gpt"}, Causal: "OpenAIGPTLMHeadModel",
			Defs:   cat(gpt2Dims("12", "4*H"), []Def{{Sym: "P", Field: "n_positions", Default: "512", Legend: "P", Desc: "positions (learned embedding rows)", Show: true, Pos: true}, tie("true")}),
			Global: cat(embed("transformer.tokens_embed.weight"), []T{{Name: "transformer.positions_embed.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding}}),
			Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
				conv1d("attn.c_attn", "H", "3*H"), conv1d("attn.c_proj", "H", "H"), norm("ln_1", "H", "true"),
				conv1d("mlp.c_fc", "H", "I"), conv1d("mlp.c_proj", "I", "H"), norm("ln_2", "H", "true"))}},
			Final: lmHead("lm_head.weight"),
			Embed: "transformer.tokens_embed.weight", BasePrefix: "transformer.", Ignore: gptBuffers}
	},
	func() *Family {
		return &Family{Name: "CTRL", Class: "CTRL", ModelTypes: []string{"ctrl"}, Causal: "CTRLLMHeadModel", SeqCls: "-",
			Defs:   cat(gpt2Dims("48", "8192")[:4], []Def{field("I", "dff", "8192", "FFN inner width"), derived("d", "H/heads"), tie("true")}),
			Global: embed("transformer.w.weight"),
			Stacks: []Stack{{Prefix: "transformer.h.{l}.", Layers: "L", Tensors: cat(
				squareLinears("multi_head_attention.", "Wq", "Wk", "Wv", "dense"), plainMLP("ffn.0", "ffn.2", "I", "true"),
				norm("layernorm1", "H", "true"), norm("layernorm2", "H", "true"))}},
			Final: cat(norm("transformer.layernorm", "H", "true"), lmHead("lm_head.weight"), lmHeadBias),
			Embed: "transformer.w.weight", BasePrefix: "transformer."}
	},
	func() *Family {
		return &Family{Name: "BioGPT", Class: "BioGpt", ModelTypes: []string{"biogpt"},
			Defs: cat(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"), []Def{
				{Sym: "P", Field: "max_position_embeddings", Default: "1024", Legend: "P", Desc: "positions (learned, + 2 offset rows)", Show: true, Pos: true}, tie("true")}),
			Global: cat(embed("biogpt.embed_tokens.weight"), []T{{Name: "biogpt.embed_positions.weight", Shape: []string{"P+2", "H"}, Role: RoleEmbedding}}),
			Stacks: []Stack{{Prefix: "biogpt.layers.{l}.", Layers: "L", Tensors: bartLike("true", "true")}},
			Final:  cat(norm("biogpt.layer_norm", "H", "true"), lmHead("output_projection.weight")),
			Embed:  "biogpt.embed_tokens.weight", Head: "output_projection.weight", BasePrefix: "biogpt."}
	},
	func() *Family {
		return &Family{Name: "XGLM", Class: "XGLM", ModelTypes: []string{"xglm"}, SeqCls: "-",
			Defs: cat(dims("vocab_size", "d_model", "num_layers", "attention_heads", "ffn_dim"), []Def{tie("true"),
				flag("cross", "add_cross_attention", "false", "each layer has cross-attention to an encoder")}),
			Global: embed("model.embed_tokens.weight"),
			Stacks: []Stack{{Prefix: "model.layers.{l}.", Layers: "L", Tensors: cat(bartLike("true", "true"),
				when("cross", linear("encoder_attn.q_proj", "H", "H", "true"), linear("encoder_attn.k_proj", "H", "H", "true"),
					linear("encoder_attn.v_proj", "H", "H", "true"), linear("encoder_attn.out_proj", "H", "H", "true"),
					norm("encoder_attn_layer_norm", "H", "true")))}},
			Final:      cat(norm("model.layer_norm", "H", "true"), lmHead("lm_head.weight")),
			BasePrefix: "model.", Ignore: []string{`^model\.embed_positions\.weights$`}}
	},
	// GPT-NeoX-Japanese: the last layer's attention alone has a bias.
	func() *Family {
		return &Family{Name: "GPT-NeoX-Japanese", Class: "GPTNeoXJapanese", ModelTypes: []string{"gpt_neox_japanese"}, SeqCls: "-",
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
			Ignore: []string{`\.attention\.(rotary_emb\.inv_freq|bias|masked_bias)$`}}
	},
	// Doge: Llama-like layers with a dynamic-mask attention (A and dt_proj
	// per kv head), per-head q/k norms, learned residual scales, and with
	// is_moe the CDMoE: the dense MLP plus E single-vector experts routed by
	// product keys (2·⌊√E⌋ router rows).

	func() *Family {
		return std("Doge", "Doge", []string{"doge"},
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
		)
	},
	// Reformer: reversible layers of local or LSH attention (attn_layers
	// names each; LSH shares query and key), a chunked FFN, the two residual
	// streams concatenated (2·H) before the final norm and the head, and
	// axial position embeddings.

	func() *Family {
		return &Family{Name: "Reformer", Class: "Reformer", ModelTypes: []string{"reformer"}, Causal: "ReformerModelWithLMHead", SeqCls: "-",
			Defs: []Def{
				{Sym: "V", Field: "vocab_size", Default: "320", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
				{Sym: "H", Field: "hidden_size", Default: "256", Legend: "H", Desc: "width of each of the two residual streams", Show: true, Pos: true},
				list("al", "attn_layers", "each layer's attention, local or lsh (absent: local, lsh × 3)"),
				derived("L", "len(al) > 0 ? len(al) : 6"),
				{Sym: "heads", Field: "num_attention_heads", Default: "12", Desc: "attention heads", Show: true, Pos: true},
				{Sym: "d", Field: "attention_head_size", Default: "64", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
				{Sym: "FF", Field: "feed_forward_size", Default: "512", Legend: "FF", Desc: "FFN inner width", Show: true, Pos: true},
				{Sym: "P", Field: "max_position_embeddings", Default: "4096", Desc: "positions", Pos: true},
				flag("axial", "axial_pos_embds", "true", "axial position embeddings"),
				list("axS", "axial_pos_shape", "axial position grid (absent: 64 × 64)"),
				list("axD", "axial_pos_embds_dim", "axial embedding widths (absent: 64, 192)"),
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
				// tie_word_embeddings ties a head of another width: 4.x
				// drops it on save all the same, 5.x keeps it (untieMismatched).
				[]T{{Name: "lm_head.decoder.weight", Shape: []string{"V", "2*H"}, Role: RoleHead, Optional: "tied"},
					{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias}}),
			Embed: "reformer.embeddings.word_embeddings.weight", Head: "lm_head.decoder.weight",
		}
	},
	// Transformer-XL: relative-position layers (fused qkv, r_net, r_w/r_r
	// biases per layer when untie_r, else shared) and adaptive input and
	// output over the vocabulary clusters cutoffs split it into: cluster e
	// has rows(e) tokens and width d_embed / div_val^e, projected to d_model.
	// Tied output layers and projections (tie_word_embeddings, tie_projs)
	// are written once, under the embeddings.

	func() *Family {
		return &Family{Name: "Transformer-XL", Class: "TransfoXL", ConfigClass: "TransfoXLConfig", ModelTypes: []string{"transfo-xl"},
			Causal: "TransfoXLLMHeadModel", SeqCls: "-",
			Defs: []Def{
				{Sym: "V", Field: "vocab_size", Default: "267735", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
				{Sym: "H", Field: "d_model", Default: "1024", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
				{Sym: "DE", Field: "d_embed", Default: "1024", Legend: "DE", Desc: "embedding width of the first cluster", Show: true, Pos: true},
				{Sym: "L", Field: "n_layer", Default: "18", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
				{Sym: "heads", Field: "n_head", Default: "16", Desc: "attention heads", Show: true, Pos: true},
				{Sym: "d", Field: "d_head", Default: "64", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
				{Sym: "I", Field: "d_inner", Default: "4096", Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
				list("cut", "cutoffs", "cluster boundaries (absent: 20000, 40000, 200000)"),
				derived("K", "len(cut) > 0 ? len(cut) + 1 : 4"),
				{Sym: "div", Field: "div_val", Default: "4", Desc: "each cluster's width divides by {div}", Pos: true},
				flag("share", "proj_share_all_but_first", "true", "clusters after the first share their projections (absent tie_projs)"),
				list("tp", "tie_projs", "which output projections are the input ones"),
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
		}
	},
	// Llama and the families that share its layout: model.embed_tokens,
	// model.layers.{l} of input_layernorm, self_attn.{q,k,v,o}_proj,
	// post_attention_layernorm and a gated mlp, model.norm, lm_head.

	func() *Family {
		return std("Llama", "Llama", []string{"llama"},
			cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "11008"), []Def{tie("false"), attnBiasFlag, mlpBiasFlag}),
			nil, llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias")))
	},
	func() *Family {
		return std("Mistral", "Mistral", []string{"mistral"},
			cat(sized(llamaDims("H/heads", "H/heads", "8", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "14336"), []Def{tie("false")}),
			nil, llamaBlock("", "", gatedMLP("mlp.", "I", "")))
	},
	func() *Family {
		return std("Qwen2", "Qwen2", []string{"qwen2"},
			cat(sized(llamaDims("H/heads", "", "32", "heads"), "V", "151936", "H", "4096", "L", "32", "heads", "32", "I", "22016"), []Def{tie("false")}),
			nil, llamaBlock("true", "", gatedMLP("mlp.", "I", "")))
	},
	func() *Family {
		return std("Qwen3", "Qwen3", []string{"qwen3"},
			cat(llamaDims("128", "", "32", "heads"), []Def{tie("false"), attnBiasFlag}),
			nil, norm("input_layernorm", "H", ""), attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")),
			norm("post_attention_layernorm", "H", ""), gatedMLP("mlp.", "I", ""))
	},
	func() *Family {
		return std("Gemma", "Gemma", []string{"gemma"},
			cat(sized(llamaDims("256", "", "16", ""), "V", "256000", "H", "3072", "L", "28", "heads", "16", "I", "24576"), []Def{tie("true"), attnBiasFlag}),
			nil, llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "")))
	},
	func() *Family {
		return std("Gemma2", "Gemma2", []string{"gemma2"},
			cat(sized(llamaDims("256", "", "4", ""), "V", "256000", "H", "2304", "L", "26", "heads", "8", "I", "9216"), []Def{tie("true"), attnBiasFlag}),
			nil, norm("input_layernorm", "H", ""), attn("self_attn.", "attention_bias", "attention_bias"),
			norm("post_attention_layernorm", "H", ""), norm("pre_feedforward_layernorm", "H", ""), gatedMLP("mlp.", "I", ""),
			norm("post_feedforward_layernorm", "H", ""))
	},
	// Gemma 3n's language model: AltUp (altup_num_inputs parallel
	// streams, their projections in and out), LAuReL low-rank residuals,
	// per-layer input embeddings (a table of L·Hpl columns, projected and
	// gated into each layer), q/k norms (v's has no scale), and a
	// per-layer intermediate_size (a number or one per layer). Layers
	// from L − num_kv_shared_layers on reuse an earlier layer's keys and
	// values: transformers 4.x still writes their k/v projections, later
	// versions do not, so they are optional there. 4.x writes the model
	// under model.language_model. (its key renaming also rewrites
	// per_layer_model_projection), 5.x under model.
	func() *Family {
		return &Family{Name: "Gemma3n-Text", Class: "Gemma3n", ConfigClass: "Gemma3nTextConfig", ModelTypes: []string{"gemma3n_text"}, SeqCls: "-",
			Defs: cat(withoutDefs(withDefault(withDefault(withDefault(withDefault(llamaDims("256", "", "2", ""), "V", "262400"), "H", "2048"), "L", "35"), "heads", "8"), "I"),
				[]Def{
					{Sym: "Is", Field: "intermediate_size", Type: IntOrList, Default: "16384", Legend: "I", Desc: "FFN inner width (one, or one per layer)", Show: true},
					{Sym: "Vpl", Field: "vocab_size_per_layer_input", Default: "262144", Desc: "rows of the per-layer input table", Pos: true},
					{Sym: "Hpl", Field: "hidden_size_per_layer_input", Default: "256", Legend: "Hpl", Desc: "per-layer input width", Show: true, Pos: true},
					{Sym: "nA", Field: "altup_num_inputs", Default: "4", Desc: "AltUp streams", Pos: true},
					{Sym: "lr", Field: "laurel_rank", Default: "64", Desc: "LAuReL rank", Pos: true},
					opt("kvs", "num_kv_shared_layers", "15"),
					attnBiasFlag,
					tie("true"),
				}),
			Global: cat(embed("model.language_model.embed_tokens.weight"),
				[]T{{Name: "model.language_model.embed_tokens_per_layer.weight", Shape: []string{"Vpl", "L*Hpl"}, Role: RoleEmbedding},
					{Name: "model.language_model.per_layer_model_projection.weight", Shape: []string{"L*Hpl", "H"}, Role: RoleLinear}},
				norm("model.language_model.per_layer_projection_norm", "Hpl", ""),
				[]T{{Name: "model.language_model.altup_projections.{e}.weight", Shape: []string{"H", "H"}, Role: RoleLinear, Experts: "nA-1"},
					{Name: "model.language_model.altup_unembed_projections.{e}.weight", Shape: []string{"H", "H"}, Role: RoleLinear, Experts: "nA-1"}}),
			Stacks: []Stack{{Prefix: "model.language_model.layers.{l}.", Layers: "L", Tensors: cat(
				norm("input_layernorm", "H", ""),
				linear("self_attn.q_proj", "heads*d", "H", "attention_bias"),
				optionalIf("L - kvs > 0 && l >= L - kvs", cat(linear("self_attn.k_proj", "kv*d", "H", "attention_bias"),
					linear("self_attn.v_proj", "kv*d", "H", "attention_bias"), norm("self_attn.k_norm", "d", ""))),
				norm("self_attn.q_norm", "d", ""),
				linear("self_attn.o_proj", "H", "heads*d", "attention_bias"),
				norm("post_attention_layernorm", "H", ""), norm("pre_feedforward_layernorm", "H", ""),
				gatedMLP("mlp.", "pick(Is, l)", ""),
				norm("post_feedforward_layernorm", "H", ""),
				vec("altup.correct_output_scale", "H"),
				[]T{{Name: "altup.correction_coefs.weight", Shape: []string{"nA", "nA"}, Role: RoleLinear},
					{Name: "altup.prediction_coefs.weight", Shape: []string{"nA*nA", "nA"}, Role: RoleLinear},
					{Name: "altup.modality_router.weight", Shape: []string{"nA", "H"}, Role: RoleRouter}},
				norm("altup.router_norm", "H", ""),
				linear("laurel.linear_left", "lr", "H", ""), linear("laurel.linear_right", "H", "lr", ""), norm("laurel.post_laurel_norm", "H", ""),
				linear("per_layer_input_gate", "Hpl", "H", ""), linear("per_layer_projection", "H", "Hpl", ""),
				norm("post_per_layer_input_norm", "H", ""),
			)}},
			Final: cat(norm("model.language_model.norm", "H", ""), lmHead("lm_head.weight")),
			Embed: "model.language_model.embed_tokens.weight",
			Variants: [][][2]string{{{"model.language_model.per_layer_model_projection.", "model.language_model.per_layer_model.language_model_projection."}},
				{{"model.language_model.", "model."}}},
			// Gemma3nTextModel is the language model alone, without model.language_model.
			BasePrefix: "model.language_model.", Tasks: []Task{{Suffix: "TextModel", Prefix: "-"}},
		}
	},
	func() *Family {
		return func() *Family {
			layer := func(s string) []T { return bltSyms(llamaBlock("", "", gatedMLP("mlp.", "I", "")), s) }
			cross := func(s string) []T {
				return bltSyms(cat(norm("q_norm", "H", ""), linear("q_proj", "heads*d", "H", ""), norm("k_norm", "H", ""),
					linear("k_proj", "kv*d", "H", ""), linear("v_proj", "kv*d", "H", ""), linear("o_proj", "H", "heads*d", "")), s)
			}
			m := "model."
			// BLT (Byte Latent Transformer): a byte-level local encoder (with
			// hash n-gram embeddings and cross-attention from patches to bytes),
			// a global transformer over patches, a local decoder cross-attending
			// back, and, with patch_in_forward, the entropy patcher (a small byte
			// LM). Each component has its own width and depth.
			return &Family{Name: "BLT", Class: "Blt", ModelTypes: []string{"blt"}, SeqCls: "-",
				Defs: cat([]Def{{Sym: "V", Field: "vocab_size", Default: "260", Legend: "V", Desc: "output bytes and specials", Show: true, Pos: true}},
					bltDefs("e", "encoder_config.", "local encoder", "1024", "1", "16", "2816"),
					bltDefs("dc", "decoder_config.", "local decoder", "1024", "9", "16", "2816"),
					bltDefs("g", "global_config.", "global transformer", "2048", "25", "16", "5632"),
					bltDefs("p", "patcher_config.", "patcher", "768", "14", "12", "2048"),
					[]Def{
						opt("eV", "encoder_config.vocab_size", "260"), opt("pV", "patcher_config.vocab_size", "260"),
						opt("eK", "encoder_config.cross_attn_k", "2"), opt("dcK", "decoder_config.cross_attn_k", "2"),
						opt("dcG", "decoder_config.hidden_size_global", "2048"),
						flag("eAll", "encoder_config.cross_attn_all_layers", "false", "the encoder cross-attends after every layer"),
						flag("dcAll", "decoder_config.cross_attn_all_layers", "true", "the decoder cross-attends before every layer"),
						{Sym: "hashSizes", Field: "encoder_hash_byte_group_size", Type: Count, Default: "6", Null: "6", Desc: "hashed byte n-gram sizes"},
						opt("hashV", "encoder_hash_byte_group_vocab", "500002"), opt("hashF", "encoder_hash_byte_group_nb_functions", "1"),
						flag("patcher", "patch_in_forward", "true", "the entropy patcher is part of the model"),
						tie("false"),
					}),
				Global: cat([]T{{Name: m + "encoder_hash_tok_embedding.weight", Shape: []string{"hashV*hashSizes*hashF", "eH"}, Role: RoleEmbedding},
					// Tied, 4.x drops the head and 5.x the embedding (whatever
					// their shapes).
					{Name: m + "local_encoder.embed_tokens.weight", Shape: []string{"eV", "eH"}, Role: RoleEmbedding, Optional: "tied && tf5"}},
					linear(m+"local_encoder.patch_embedding_projection", "eH*eK", "eH", ""),
					when("eH*eK != gH", linear(m+"global_transformer.token_embedding_projection", "gH", "eH*eK", "")),
					linear(m+"local_decoder.patch_embedding_projection", "dcH*dcK", "dcG", "")),
				Stacks: []Stack{
					{Name: "local encoder", Prefix: m + "local_encoder.layers.{l}.", Layers: "eL", Tensors: layer("e")},
					{Name: "local encoder", Prefix: m + "local_encoder.cross_attn_layers.{l}.", Layers: "eAll ? eL : 1", Tensors: cross("e")},
					{Name: "global", Prefix: m + "global_transformer.layers.{l}.", Layers: "gL", Tensors: layer("g")},
					{Prefix: m + "local_decoder.layers.{l}.", Layers: "dcL", Tensors: layer("dc")},
					{Name: "local decoder", Prefix: m + "local_decoder.cross_attn_layers.{l}.", Layers: "dcAll ? dcL : 1", Tensors: cross("dc")},
					{Name: "patcher", Prefix: m + "patcher.layers.{l}.", Layers: "patcher ? pL : 0", Tensors: layer("p")},
				},
				Final: cat(norm(m+"local_decoder.norm", "dcH", ""),
					when("patcher", []T{{Name: m + "patcher.embed_tokens.weight", Shape: []string{"pV", "pH"}, Role: RoleEmbedding}},
						norm(m+"patcher.norm", "pH", ""), linear(m+"patcher.lm_head", "pV", "pH", "")),
					[]T{{Name: "lm_head.weight", Shape: []string{"V", "dcH"}, Role: RoleHead, If: "causal", Optional: "tied && !tf5"}}),
				Embed: m + "local_encoder.embed_tokens.weight",
			}
		}()
	},
)

var _ = register(
	// NanoChat (transformers 5.x): parameter-free RMS norms (no norm
	// weights at all, q/k norms included), a plain squared-ReLU MLP fc1
	// [I, H], fc2 [H, I], and head_dim read if the config sets one.
	func() *Family {
		return std("NanoChat", "NanoChat", []string{"nanochat"},
			cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "50304", "H", "768", "L", "12", "heads", "6", "I", "8192"),
				[]Def{tie("false"), attnBiasFlag}), nil,
			attn("self_attn.", "attention_bias", "attention_bias"), plainMLP("mlp.fc1", "mlp.fc2", "I", "")).
			withFinal(lmHead("lm_head.weight")).
			with(func(f *Family) { f.SeqCls = "-" })
	}, // no NanoChatForSequenceClassification
)
