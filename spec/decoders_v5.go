package spec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
)

// Decoder language models new in transformers 5.x (their model types do
// not exist in 4.57): Qwen3.5 (dense and MoE, text and vision-language),
// … Their layouts are 5.x's own; the oracle's --v5 is their truth.

// qwen35Dims are Qwen3_5TextConfig's (Qwen3_5MoeTextConfig's) fields: the
// attention and Gated DeltaNet widths and the layer pattern (layer_types,
// else every full_attention_interval-th layer full).
func qwen35Dims(moe bool) []Def {
	var d []Def
	if moe {
		d = cat(withoutDefs(sized(llamaDims("256", "", "2", ""), "V", "248320", "H", "2048", "L", "40", "heads", "16", "I", "0"), "I"),
			experts("num_experts", "256", "moe_intermediate_size", "512", "num_experts_per_tok", "8"),
			[]Def{{Sym: "Is", Field: "shared_expert_intermediate_size", Default: "512", Legend: "Is", Desc: "shared expert inner width", Show: true}})
	} else {
		d = sized(llamaDims("256", "", "4", ""), "V", "248320", "H", "4096", "L", "32", "heads", "16", "I", "12288")
	}
	return cat(d, []Def{
		list("lt", "layer_types", "each layer's attention (absent: every interval-th full)"),
		field("interval", "full_attention_interval", "4", "every interval-th layer is full attention (without layer_types)"),
		opt("nk", "linear_num_key_heads", "16"), opt("dk", "linear_key_head_dim", "128"),
		opt("nv", "linear_num_value_heads", "32"), opt("dv", "linear_value_head_dim", "128"),
		opt("K", "linear_conv_kernel_dim", "4"),
		tie("false"), attnBiasFlag,
	})
}

// fullAttnKind is a layer of layer_types "full_attention" (or the legacy
// "attention" transformers 5.x remaps to it), else every interval-th.
var fullAttnKind = "len(lt) > 0 ? at(lt, l) == 'full_attention' || at(lt, l) == 'attention' : (l+1) % interval == 0"

// gatedDeltaNet is Qwen3.5's linear attention under pre: separate qkv, z,
// b and a input projections (Qwen3-Next fuses them in pairs), a
// depthwise causal conv over q, k and v, a gated RMS norm of dv.
func gatedDeltaNet(pre string) []T {
	return cat(
		linear(pre+"in_proj_qkv", "2*nk*dk+nv*dv", "H", ""), linear(pre+"in_proj_z", "nv*dv", "H", ""),
		linear(pre+"in_proj_b", "nv", "H", ""), linear(pre+"in_proj_a", "nv", "H", ""),
		[]T{{Name: pre + "conv1d.weight", Shape: []string{"2*nk*dk+nv*dv", "1", "K"}, Role: RoleLinear}},
		vec(pre+"dt_bias", "nv"), vec(pre+"A_log", "nv"), norm(pre+"norm", "dv", ""),
		linear(pre+"out_proj", "H", "nv*dv", ""))
}

// gatedAttn is Qwen3-Next's and Qwen3.5's gated full attention: q_proj
// twice as wide (the query and its output gate), per-head q/k norms.
var gatedAttn = cat(linear("self_attn.q_proj", "heads*d*2", "H", "attention_bias"), linear("self_attn.k_proj", "kv*d", "H", "attention_bias"),
	linear("self_attn.v_proj", "kv*d", "H", "attention_bias"), qkNorm("self_attn.", "d", "d"),
	linear("self_attn.o_proj", "H", "heads*d", "attention_bias"))

// qwen35MoE is Qwen3.5-MoE's sparse block: routed experts, a shared
// expert of Is with its sigmoid gate [1, H].
var qwen35MoE = cat(router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"),
	gatedMLP("mlp.shared_expert.", "Is", ""), []T{{Name: "mlp.shared_expert_gate.weight", Shape: []string{"1", "H"}, Role: RoleRouter}})

// qwen35Text is the Qwen3.5 (or Qwen3.5-MoE) language model: Gated
// DeltaNet and gated full attention by layer pattern, a SwiGLU (or the
// MoE block) in every layer. Its multi-token-prediction weights (mtp.)
// are ignored by transformers on load.
func qwen35Text(moe bool) *Family {
	name, class, causal, mt := "Qwen3.5", "Qwen3_5Text", "Qwen3_5ForCausalLM", "qwen3_5_text"
	mlp := gatedMLP("mlp.", "I", "")
	if moe {
		name, class, causal, mt = "Qwen3.5-MoE", "Qwen3_5MoeText", "Qwen3_5MoeForCausalLM", "qwen3_5_moe_text"
		mlp = qwen35MoE
	}
	f := std(name, class, []string{mt}, qwen35Dims(moe), []Kind{{Name: "full", If: fullAttnKind}, {Name: "linear"}},
		norm("input_layernorm", "H", ""), when("full", gatedAttn), when("linear", gatedDeltaNet("linear_attn.")),
		norm("post_attention_layernorm", "H", ""), mlp)
	f.Causal, f.Embed, f.Head = causal, "model.embed_tokens.weight", "lm_head.weight"
	f.Ignore = []string{`^mtp\.`}
	if moe {
		f.SeqCls = "-"
	}
	return f
}

var (
	qwen35TextF    = qwen35Text(false)
	qwen35MoeTextF = qwen35Text(true)
)

// qwen35Vision is Qwen3.5's vision side as a VLM row: Qwen3-VL's ViT and
// merger, without DeepStack mergers.
func qwen35Vision(name, class, mt string) Family {
	f := qwen3VLVision(name, class, mt)
	f.Defs = replaceDef(f.Defs, derived("vDS", "0"))
	f.Stacks = slices.DeleteFunc(f.Stacks, func(s Stack) bool { return s.Name == "deepstack" })
	return f
}

// vlmClassifiers are a VLM's sequence and token classifiers: score over
// the language model's last hidden state, the whole VLM kept.
var vlmClassifiers = []Task{
	{Suffix: HeadSeqCls, KeepFinal: true, Head: linear("score", "C", "H", ""), Labels: true},
	{Suffix: TaskTokenCls, KeepFinal: true, Head: linear("score", "C", "H", "true"), Labels: true},
}

var _ = register(
	func() *Family { return qwen35TextF }, func() *Family { return qwen35MoeTextF },
	func() *Family {
		return (&vlm{Family: qwen35Vision("Qwen3.5", "Qwen3_5", "qwen3_5"), textF: qwen35TextF, reroot: newLM, tasks: vlmClassifiers}).register()
	},
	func() *Family {
		return (&vlm{Family: qwen35Vision("Qwen3.5-MoE", "Qwen3_5Moe", "qwen3_5_moe"), textF: qwen35MoeTextF, reroot: newLM}).register()
	},
)

// vecAny is a vector whose dtype is not config.json's (a router's
// correction bias some models keep in float32).
func vecAny(name, dim string) []T {
	return []T{{Name: name, Shape: []string{dim}, Role: RoleBias, AnyDType: true}}
}

// mlpKind is the sparse/dense pattern of mlp_layer_types ("sparse",
// "dense"), else the layers from first on sparse.
func mlpKind(first string) []Kind {
	return []Kind{{Name: "sparse", If: "len(mlt) > 0 ? at(mlt, l) == 'sparse' : l >= " + first}, {Name: "dense"}}
}

// mimoSWA is true in MiMo-V2-Flash's sliding-window layers.
const mimoSWA = "(len(lt) > 0 ? at(lt, l) == 'sliding_attention' : !(l == 0 || (l+1) % 6 == 0))"

var mltDef = list("mlt", "mlp_layer_types", "each layer's MLP, sparse or dense")

// sharedExperts are num_shared·Im wide shared experts under pre, built
// (zero-wide) when num_shared is 0.
func sharedExperts(pre string) []T { return zeroOK(gatedMLP(pre, "shared*Im", "")) }

// zeroOK lets ts have zero dimensions.
func zeroOK(ts []T) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		out[i].ZeroOK = true
	}
	return out
}

var _ = register(
	// Ministral 3: Mistral's layout with head_dim (null: H/heads).
	func() *Family {
		return std("Ministral3", "Ministral3", []string{"ministral3"},
			cat(sized(llamaDims("128", "H/heads", "8", ""), "V", "131072", "H", "4096", "L", "34", "heads", "32", "I", "14336"), []Def{tie("false")}), nil,
			llamaBlock("", "", gatedMLP("mlp.", "I", "")))
	},
	// CWM: Llama's layout, mlp_bias.
	func() *Family {
		return std("CWM", "Cwm", []string{"cwm"},
			cat(sized(llamaDims("128", "H/heads", "8", ""), "V", "128256", "H", "6144", "L", "64", "heads", "48", "I", "21504"), []Def{tie("false"), mlpBiasFlag}), nil,
			llamaBlock("", "", gatedMLP("mlp.", "I", "mlp_bias"))).with(func(f *Family) { f.SeqCls = "-" })
	},
	// Mellum: q/k norms per head, MoE or dense by mlp_layer_types
	// (absent: all sparse); experts written one module each.
	func() *Family {
		return std("Mellum", "Mellum", []string{"mellum"},
			cat(sized(llamaDims("128", "", "4", ""), "V", "98304", "H", "2304", "L", "28", "heads", "32", "I", "7168"),
				experts("num_local_experts|num_experts", "64", "moe_intermediate_size", "896", "num_experts_per_tok", "8"),
				[]Def{mltDef, tie("false"), attnBiasFlag}), mlpKind("0"),
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")), postNorm,
			when("sparse", router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj")),
			when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-" })
	},
	// MiniMax-M2: q/k norms over all heads, Mixtral's experts with a
	// sigmoid router's correction bias.
	func() *Family {
		return std("MiniMax-M2", "MiniMaxM2", []string{"minimax_m2"},
			cat(sized(llamaDims("128", "", "8", ""), "V", "200064", "H", "3072", "L", "62", "heads", "48", "I", "1536"),
				expertsI("num_local_experts|num_experts", "256", "num_experts_per_tok", "8"), []Def{tie("false")}), nil,
			inNorm, attn("self_attn.", "", "", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
			router("block_sparse_moe.gate.weight"), vecAny("block_sparse_moe.e_score_correction_bias", "E"),
			expertMLPs("block_sparse_moe.experts.", "w1", "w3", "w2")).with(func(f *Family) { f.SeqCls = "-" })
	},
	// Cohere2-MoE: Cohere's parallel block (one norm), dense prefix
	// layers (mlp_layer_types, else first_k_dense_replace) of
	// prefix_dense_intermediate_size, experts of intermediate_size and
	// num_shared_experts shared ones; tied by default.
	func() *Family {
		return std("Cohere2-MoE", "Cohere2Moe", []string{"cohere2_moe"},
			cat(sized(llamaDims("128", "", "heads", "heads"), "V", "256000", "H", "8192", "L", "40", "heads", "64", "I", "22528"),
				expertsI("num_experts", "8", "num_experts_per_tok", "2"), []Def{
					field("shared", "num_shared_experts", "0", "shared experts (one MLP of shared·I)"),
					{Sym: "Id", Field: "prefix_dense_intermediate_size", Default: "I", Null: "I", Desc: "dense layers' FFN width"},
					field("first_dense", "first_k_dense_replace", "0", "the first k blocks are dense (without mlp_layer_types)"),
					mltDef, tie("true"), attnBiasFlag}), mlpKind("first_dense"),
			inNorm, attn("self_attn.", "attention_bias", "attention_bias"),
			when("sparse", router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"),
				when("shared > 0", sharedExperts("mlp.shared_experts."))),
			when("dense", gatedMLP("mlp.", "Id", ""))).with(func(f *Family) { f.SeqCls = "-" })
	},
	// Solar Open: GLM-4-MoE's sparse block in every layer (routed and
	// shared experts, a float32 correction bias), q, k, v biased by
	// attention_bias.
	func() *Family {
		return std("Solar-Open", "SolarOpen", []string{"solar_open"},
			cat(withoutDefs(sized(llamaDims("128", "", "8", ""), "V", "196608", "H", "4096", "L", "48", "heads", "64", "I", "0"), "I"),
				deepseekStyle("128", "1280", "8", "1", "0"), []Def{tie("false"), attnBiasFlag}), nil,
			llamaBlock("attention_bias", "", deepseekMoE("true"))).with(func(f *Family) { f.SeqCls = "-" })
	},
	// EXAONE-MoE: q/k norms, dense then sparse layers (mlp_layer_types,
	// else first_k_dense_replace), shared experts always built
	// (num_shared_experts·Im wide), the correction bias under mlp.
	func() *Family {
		return std("EXAONE-MoE", "ExaoneMoe", []string{"exaone_moe"},
			cat(sized(llamaDims("H/heads", "H/heads", "32", ""), "V", "102400", "H", "4096", "L", "32", "heads", "32", "I", "16384"),
				experts("num_experts", "64", "moe_intermediate_size", "1024", "num_experts_per_tok", "8"), []Def{
					field("shared", "num_shared_experts", "1", "shared experts (one MLP of shared·Im)"),
					field("first_dense", "first_k_dense_replace", "1", "the first k blocks are dense (without mlp_layer_types)"),
					mltDef, tie("false")}), mlpKind("first_dense"),
			inNorm, attn("self_attn.", "", "", qkNorm("self_attn.", "d", "d")), postNorm,
			when("sparse", router("mlp.gate.weight"), vecAny("mlp.e_score_correction_bias", "E"),
				expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), sharedExperts("mlp.shared_experts.")),
			when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`mtp.`} })
	},
	// AFMoE: gated attention (q/k norms, a sigmoid gate_proj), norms
	// before and after both attention and MLP, num_dense_layers dense
	// layers, then routed experts with an expert bias and shared experts
	// (always built, num_shared_experts·Im wide).
	func() *Family {
		return std("AFMoE", "Afmoe", []string{"afmoe"},
			cat(sized(llamaDims("128", "", "heads", "heads"), "V", "200192", "H", "2048", "L", "32", "heads", "16", "I", "6144"),
				experts("num_experts", "64", "moe_intermediate_size", "1408", "num_experts_per_tok", "6"), []Def{
					field("shared", "num_shared_experts", "2", "shared experts (one MLP of shared·Im)"),
					field("first_dense", "num_dense_layers", "1", "the first k blocks are dense"),
					tie("false"), attnBiasFlag}), []Kind{{Name: "sparse", If: "l >= first_dense"}, {Name: "dense"}},
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d"), linear("self_attn.gate_proj", "heads*d", "H", "")),
			postNorm, norm("pre_mlp_layernorm", "H", ""), norm("post_mlp_layernorm", "H", ""),
			when("sparse", router("mlp.router.gate.weight"), vecAny("mlp.expert_bias", "E"),
				expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), sharedExperts("mlp.shared_experts.")),
			when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-" })
	},
	// Jais 2: LayerNorms with biases, a biased up/down MLP, attention
	// biases (attention_bias, mlp_bias default true).
	func() *Family {
		return (&Family{Name: "Jais2", Class: "Jais2", ModelTypes: []string{"jais2"},
			Defs: cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "150272", "H", "3328", "L", "32", "heads", "26", "I", "26624"),
				[]Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k, v and o projections have biases"),
					flag("mlp_bias", "mlp_bias", "true", "the MLP's projections have biases")}),
			Global: embed("model.embed_tokens.weight"),
			Stacks: decoderLayers(nil, norm("input_layernorm", "H", "true"), attn("self_attn.", "attention_bias", "attention_bias"),
				norm("post_attention_layernorm", "H", "true"), plainMLP("mlp.up_proj", "mlp.down_proj", "I", "mlp_bias")),
			Final: cat(norm("model.norm", "H", "true"), lmHead("lm_head.weight")),
		}).with(func(f *Family) { f.SeqCls = "-" })
	},
	// Laguna: per-layer query heads (num_attention_heads_per_layer), q/k
	// norms, a softplus output gate per head (gating true) or per
	// channel; dense then sparse layers (mlp_layer_types) with a shared
	// expert and the router's correction bias kept under experts.
	func() *Family {
		return std("Laguna", "Laguna", []string{"laguna"},
			cat(sized(llamaDims("128", "", "8", ""), "V", "100352", "H", "2048", "L", "40", "heads", "48", "I", "8192"),
				experts("num_experts", "256", "moe_intermediate_size", "512", "num_experts_per_tok", "8"), []Def{
					{Sym: "Is", Field: "shared_expert_intermediate_size", Default: "512", Legend: "Is", Desc: "shared expert inner width", Show: true},
					list("hpl", "num_attention_heads_per_layer", "each layer's query heads (absent: num_attention_heads)"),
					{Sym: "gating", Field: "gating", Type: BoolStr, Default: "'true'", Desc: "the attention's output gate (true or 'per-head': one per head)"},
					derived("gate_head", "gating == 'true' || gating == 'per-head'"),
					mltDef, tie("false"), attnBiasFlag}), mlpKind("1"),
			inNorm,
			renameSyms(attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d"),
				linear("self_attn.g_proj", "gate_head ? heads : heads*d", "H", "")), "heads", "(len(hpl) > 0 ? at(hpl, l) : heads)"),
			postNorm,
			when("sparse", router("mlp.gate.weight"), vecAny("mlp.experts.e_score_correction_bias", "E"),
				expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), gatedMLP("mlp.shared_expert.", "Is", "")),
			when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-" })
	},
	// MiMo-V2-Flash: sliding-window layers (layer_types, else all but
	// the first and every sixth) have twice the key/value heads and
	// attention sinks; v and o are v_head_dim wide; dense then sparse
	// layers without shared experts.
	func() *Family {
		return std("MiMo-V2-Flash", "MiMoV2Flash", []string{"mimo_v2_flash"},
			cat(sized(llamaDims("192", "", "4", ""), "V", "152576", "H", "4096", "L", "48", "heads", "64", "I", "16384"),
				experts("n_routed_experts|num_local_experts", "256", "moe_intermediate_size", "2048", "num_experts_per_tok", "8"), []Def{
					opt("vd", "v_head_dim", "128"), list("lt", "layer_types", "each layer's attention (absent: full at 0 and every sixth)"),
					mltDef, tie("false"), attnBiasFlag}), mlpKind("1"),
			inNorm,
			renameSyms(cat(linear("self_attn.q_proj", "heads*d", "H", "attention_bias"), linear("self_attn.k_proj", "kv*d", "H", "attention_bias"),
				linear("self_attn.v_proj", "kv*vd", "H", "attention_bias"), linear("self_attn.o_proj", "H", "heads*vd", "")),
				"kv", "("+mimoSWA+" ? 2*kv : kv)"),
			when(mimoSWA, vec("self_attn.attention_sink_bias", "heads")),
			postNorm,
			when("sparse", router("mlp.gate.weight"), []T{{Name: "mlp.gate.e_score_correction_bias", Shape: []string{"E"}, Role: RoleBias, AnyDType: true}},
				expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj")),
			when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.mtp\.`} })
	},
	// MiniMax-M3 (its VLM's language model, minimax_m3_vl_text): q/k
	// norms per head, a lightning indexer in "minimax_m3_sparse" layers
	// (layer_types, else sparse_attention_config's sparse_attention_freq),
	// sparse or dense MLPs (mlp_layer_types, else moe_layer_freq, else
	// all sparse): stacked experts of intermediate_size, a router with a
	// correction bias and a fused shared expert; dense layers a fused
	// gate_up of dense_intermediate_size.
	func() *Family {
		return std("MiniMax-M3", "MiniMaxM3VLText", []string{"minimax_m3_vl_text"}, minimaxM3Defs(), minimaxM3Kinds,
			inNorm, attn("self_attn.", "", "", qkNorm("self_attn.", "d", "d")),
			when(minimaxM3Indexer,
				linear("self_attn.indexer.q_proj", "ixn*ixd", "H", ""), linear("self_attn.indexer.k_proj", "ixd", "H", ""),
				qkNorm("self_attn.indexer.", "ixd", "ixd")),
			postNorm,
			when("sparse", router("mlp.gate.weight"), vecAny("mlp.gate.e_score_correction_bias", "E"),
				stackedExperts("mlp.experts.gate_up_proj", "mlp.experts.down_proj"),
				linear("mlp.shared_experts.gate_up_proj", "2*Ish", "H", ""), linear("mlp.shared_experts.down_proj", "H", "Ish", "")),
			when("dense", linear("mlp.gate_up_proj", "2*Id", "H", ""), linear("mlp.down_proj", "H", "Id", ""))).
			with(func(f *Family) { f.Causal, f.SeqCls, f.Ignore = "MiniMaxM3VLForCausalLM", "-", []string{`(^|\.)mtp\.`} })
	},
	// Granite-SWA: Granite with attention sinks; tied by default.
	func() *Family {
		return std("Granite-SWA", "GraniteSWA", []string{"granite_swa"},
			cat(sized(llamaDims("H/heads", "H/heads", "4", "heads"), "V", "100352", "H", "2560", "L", "24", "heads", "20", "I", "8192"),
				[]Def{tie("true"), attnBiasFlag, mlpBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias"), vec("self_attn.sinks", "heads"), postNorm,
			gatedMLP("mlp.", "I", "mlp_bias")).with(func(f *Family) { f.SeqCls = "-" })
	},
	// GraniteMoE-SWA: GraniteMoE's stacked experts and router, attention
	// sinks, a shared MLP where shared_intermediate_size > 0.
	func() *Family {
		return std("GraniteMoE-SWA", "GraniteMoeSWA", []string{"granitemoe_swa"},
			cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "11008"),
				expertsI("num_local_experts", "8", "num_experts_per_tok", "2"), []Def{
					field("Is", "shared_intermediate_size", "0", "shared MLP width (0: none)"), tie("false"), attnBiasFlag}), nil,
			inNorm, attn("self_attn.", "attention_bias", "attention_bias"), vec("self_attn.sinks", "heads"), postNorm,
			router("block_sparse_moe.router.weight"), stackedExperts("block_sparse_moe.experts.gate_up_proj", "block_sparse_moe.experts.down_proj"),
			when("Is > 0", linear("shared_mlp.input_linear", "2*Is", "H", ""), linear("shared_mlp.output_linear", "H", "Is", ""))).
			with(func(f *Family) { f.SeqCls = "-" })
	},
	// HyperCLOVA X: Llama with post-norms after attention and MLP
	// (use_post_norm).
	func() *Family {
		return std("HyperCLOVAX", "HyperCLOVAX", []string{"hyperclovax"},
			cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "11008"),
				[]Def{tie("false"), attnBiasFlag, mlpBiasFlag, flag("post", "use_post_norm", "true", "norms after attention and MLP")}), nil,
			llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias")),
			when("post", norm("post_norm1", "H", ""), norm("post_norm2", "H", ""))).with(func(f *Family) { f.SeqCls = "-" })
	},
	// HY-V3: q/k norms, a dense first layer (mlp_layer_types), then
	// routed experts with an expert bias and num_shared_experts shared
	// ones (shared_mlp; none asked for builds one of intermediate_size);
	// a multi-token-prediction layer past the last is ignored on load.
	func() *Family {
		return std("HY-V3", "HYV3", []string{"hy_v3"},
			cat(sized(llamaDims("128", "", "8", ""), "V", "120832", "H", "4096", "L", "80", "heads", "64", "I", "13312"),
				experts("num_experts|num_local_experts", "192", "moe_intermediate_size", "1536", "num_experts_per_tok", "8"), []Def{
					field("shared", "num_shared_experts", "1", "shared experts (one MLP of shared·Im)"),
					mltDef, tie("false"), attnBiasFlag, mlpBiasFlag}), mlpKind("1"),
			inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")), postNorm,
			when("sparse", router("mlp.router.gate.weight"), vecAny("mlp.expert_bias", "E"),
				expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), gatedMLP("mlp.shared_mlp.", "shared > 0 ? shared*Im : I", "mlp_bias")),
			when("dense", gatedMLP("mlp.", "I", "mlp_bias"))).with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.layers\.{L}\.`} })
	},
)

// mla5Dims are MLA's widths as transformers 5.x reads them: the q/k head
// width is always qk_nope_head_dim + qk_rope_head_dim (a stored
// qk_head_dim is recomputed).
func mla5Dims(qr, kvr, nope, rope, vd string) []Def {
	return mlaDims("nope+rope", qr, kvr, nope, rope, vd)
}

// dsaIndexer is DeepSeek sparse attention's lightning indexer under
// pre: index_n_heads query heads of index_head_dim from the q low rank,
// one key head with its LayerNorm, per-head weights.
func dsaIndexer(pre string) []T {
	return cat(linear(pre+"wq_b", "ixn*ixd", "qr", ""), linear(pre+"wk", "ixd", "H", ""), norm(pre+"k_norm", "ixd", "true"),
		linear(pre+"weights_proj", "ixn", "H", ""))
}

// dsaDefs are the indexer's widths.
func dsaDefs(heads, dim string) []Def {
	return []Def{opt("ixn", "index_n_heads", heads), opt("ixd", "index_head_dim", dim)}
}

// mlaMoE5 is the DeepSeek-V3 sparse block as transformers 5.x builds it
// for its new MLA families: shared experts always (n_shared·Im wide).
func mlaMoE5(corr string) []T {
	return cat(router("mlp.gate.weight"),
		[]T{{Name: "mlp.gate.e_score_correction_bias", Shape: []string{"E"}, Role: RoleBias, If: corr, AnyDType: true}},
		expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), sharedExperts("mlp.shared_experts."))
}

// deepseekDims are dims with DeepSeek's class defaults (no head_dim: MLA).
func deepseekDims(v, h, l, heads, i string) []Def {
	return sized(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size"), "V", v, "H", h, "L", l, "heads", heads, "I", i)
}

var _ = register(
	// DeepSeek-V3.2: DeepSeek-V3 with the sparse-attention indexer in
	// every layer; dense layers by mlp_layer_types (else the first
	// first_k_dense_replace). The multi-token-prediction layer past the
	// last is ignored on load.
	func() *Family {
		return std("DeepSeek-V3.2", "DeepseekV32", []string{"deepseek_v32"},
			cat(deepseekDims("129280", "7168", "61", "128", "18432"), mla5Dims("1536", "512", "128", "64", "128"),
				replaceDef(deepseekStyle("256", "2048", "8", "1", "3"), Def{Sym: "E", Field: "num_experts|n_routed_experts", Default: "256", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts}),
				dsaDefs("64", "128"), []Def{mltDef, tie("false"), attnBiasFlag}), mlpKind("first_dense"),
			inNorm, mla, dsaIndexer("self_attn.indexer."), postNorm, when("sparse", mlaMoE5("true")), when("dense", gatedMLP("mlp.", "I", ""))).
			with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.layers\.{L}\.`} })
	},
	// GLM-MoE-DSA (GLM-5): DeepSeek-V3.2's layout; a layer runs its own
	// indexer where indexer_types says "full" ("shared" reuses the
	// previous one's).
	func() *Family {
		return std("GLM-MoE-DSA", "GlmMoeDsa", []string{"glm_moe_dsa"},
			cat(deepseekDims("154880", "6144", "78", "64", "12288"), mla5Dims("2048", "512", "192", "64", "256"),
				replaceDef(deepseekStyle("256", "2048", "8", "1", "3"), Def{Sym: "E", Field: "num_experts|n_routed_experts", Default: "256", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts}),
				dsaDefs("32", "128"), []Def{mltDef, tie("false"), attnBiasFlag,
					list("ixt", "indexer_types", "each layer's indexer, full or shared"),
					opt("ixfreq", "index_topk_freq", "1"), opt("ixoff", "index_skip_topk_offset", "2")}), mlpKind("first_dense"),
			inNorm, mla, when("len(ixt) > 0 ? at(ixt, l) == 'full' : max(l - ixoff + 1, 0) % max(ixfreq, 1) == 0", dsaIndexer("self_attn.indexer.")),
			postNorm, when("sparse", mlaMoE5("true")), when("dense", gatedMLP("mlp.", "I", ""))).
			with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.layers\.{L}\.`} })
	},
	// GLM-4.7-Flash (glm4_moe_lite): MLA with GLM-4-MoE's sparse block,
	// the first layer dense (mlp_layer_types).
	func() *Family {
		return std("GLM-4-MoE-Lite", "Glm4MoeLite", []string{"glm4_moe_lite"},
			cat(deepseekDims("154880", "2048", "47", "20", "10240"), mla5Dims("768", "512", "192", "64", "256"),
				deepseekStyle("64", "1536", "4", "1", "1"), []Def{mltDef, tie("false"), attnBiasFlag}), mlpKind("1"),
			inNorm, mla, postNorm, when("sparse", mlaMoE5("true")), when("dense", gatedMLP("mlp.", "I", ""))).
			with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.layers\.{L}\.`} })
	},
	// Mistral 4: MLA, DeepSeek's sparse block without a correction bias,
	// its experts stacked ([E, 2·Im, H], [E, H, Im]).
	func() *Family {
		return std("Mistral4", "Mistral4", []string{"mistral4"},
			cat(deepseekDims("131072", "4096", "36", "32", "12288"), mla5Dims("1024", "256", "64", "64", "128"),
				deepseekStyle("128", "2048", "4", "1", "0"), []Def{tie("false"), attnBiasFlag}), []Kind{{Name: "sparse", If: "l >= first_dense"}, {Name: "dense"}},
			inNorm, mla, postNorm,
			when("sparse", router("mlp.gate.weight"), stackedExperts("mlp.experts.gate_up_proj", "mlp.experts.down_proj"), sharedExperts("mlp.shared_experts.")),
			when("dense", gatedMLP("mlp.", "I", "")))
	},
	// A.X K1: DeepSeek-V3 with a norm after the sparse block's output
	// (post_mlp_layernorm, written at the layer's level).
	func() *Family {
		return std("AXK1", "AXK1", []string{"axk1"},
			cat(deepseekDims("163840", "7168", "61", "64", "18432"), mla5Dims("1536", "512", "128", "64", "128"),
				replaceDef(deepseekStyle("192", "2048", "8", "1", "1"), Def{Sym: "E", Field: "n_routed_experts|num_local_experts", Default: "192", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts}),
				[]Def{tie("false"), attnBiasFlag}), []Kind{{Name: "sparse", If: "l >= first_dense"}, {Name: "dense"}},
			inNorm, mla, postNorm, when("sparse", mlaMoE5("true"), norm("post_mlp_layernorm", "H", "")), when("dense", gatedMLP("mlp.", "I", "")))
	},
	// Youtu-LLM: MLA with a dense SwiGLU; tied by default.
	func() *Family {
		return std("Youtu", "Youtu", []string{"youtu"},
			cat(deepseekDims("128256", "2048", "32", "16", "6144"), mla5Dims("1536", "512", "128", "64", "128"), []Def{tie("true"), attnBiasFlag}), nil,
			inNorm, mla, postNorm, gatedMLP("mlp.", "I", "")).with(func(f *Family) { f.SeqCls = "-" })
	},
	// MiniCPM3: MLA (v_head_dim null: H/heads) with a dense SwiGLU
	// (mlp_bias); tied by default.
	func() *Family {
		return std("MiniCPM3", "MiniCPM3", []string{"minicpm3"},
			cat(deepseekDims("73448", "2560", "62", "40", "6400"),
				replaceDef(mla5Dims("768", "256", "64", "32", "H/heads"), Def{Sym: "vd", Field: "v_head_dim", Default: "H/heads", Null: "H/heads", Desc: "per-head v width", Pos: true}),
				[]Def{tie("true"), attnBiasFlag, mlpBiasFlag}), nil,
			inNorm, mla, postNorm, gatedMLP("mlp.", "I", "mlp_bias"))
	},
)

// charsValue reads a Chars field.
func (c *Config) charsValue(field string, raw json.RawMessage) (any, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, c.errorf(field, "must be a string, found %s", kindOf(raw))
	}
	if len(s) > MaxLayers*4 {
		return nil, c.errorf(field, "has %d characters, more than fsmount reads", len(s))
	}
	out := make([]any, 0, len(s))
	for _, r := range s {
		out = append(out, string(r))
	}
	return out, nil
}

// nemotronHType is layer l's mixer: layers_block_type, else the
// characters of hybrid_override_pattern (M mamba, E MoE, * attention,
// - MLP), else the class's four-layer default.
const nemotronHType = "(len(lbt) > 0 ? at(lbt, l) : (len(pat) > 0 ? at(pat, l) : at(list('linear_attention', 'moe', 'full_attention', 'mlp'), l)))"

var _ = register(
	// Nemotron-H: one mixer per block (Mamba2, attention, a relu² MLP or
	// a MoE of relu² experts with a shared expert and an optional latent
	// projection) after one RMS norm. The block list's length is the
	// layer count (num_hidden_layers is ignored). transformers 5.x reads
	// backbone.embedding or backbone.embeddings (and model. for
	// backbone.).
	func() *Family {
		return &Family{Name: "Nemotron-H", Class: "NemotronH", ModelTypes: []string{"nemotron_h"}, SeqCls: "-",
			Defs: cat(trunk("131072", "4096", "", "blocks")[:2], []Def{
				list("lbt", "layers_block_type|layer_types", "each block's mixer"),
				{Sym: "pat", Field: "hybrid_override_pattern", Type: Chars, Default: "empty", Null: "=", Desc: "each block's mixer, one character each"},
				{Sym: "L", Default: "len(lbt) > 0 ? len(lbt) : (len(pat) > 0 ? len(pat) : 4)", Legend: "L", Desc: "blocks (the block list's length)", Show: true, Max: MaxLayers},
				{Sym: "heads", Field: "num_attention_heads", Default: "32", Desc: qWidth, Show: true, Pos: true},
				{Sym: "d", Field: "head_dim", Default: "128", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
				kvDef("num_key_value_heads", "8", "heads"),
				{Sym: "I", Field: "intermediate_size", Default: "21504", Legend: "I", Desc: "MLP inner width", Show: true, Pos: true},
				mlpBiasFlag,
				{Sym: "nh", Field: "mamba_num_heads", Default: "128", Desc: "SSM heads", Show: true, Pos: true},
				opt("mhd", "mamba_head_dim", "64"), derived("Ism", "nh*mhd"),
				{Sym: "G", Field: "mamba_n_groups|n_groups", Default: "8", Legend: "G", Desc: "B/C groups", Show: true, Pos: true},
				{Sym: "N", Field: "ssm_state_size", Default: "128", Legend: "N", Desc: "SSM state per channel", Show: true, Pos: true},
				{Sym: "K", Field: "mamba_d_conv|conv_kernel", Default: "4", Legend: "K", Desc: "causal conv kernel", Show: true, Pos: true},
				flag("use_conv_bias", "mamba_conv_bias|use_conv_bias", "true", "the conv has a bias"),
				flag("use_bias", "use_bias", "false", "the Mamba in and out projections have biases"),
				{Sym: "E", Field: "n_routed_experts|num_local_experts", Default: "8", Legend: "E", Desc: "routed experts per MoE block", Show: true, Max: MaxExperts},
				{Sym: "Im", Field: "moe_intermediate_size", Default: "7688", Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
				opt("Ish", "moe_shared_expert_intermediate_size", "7688"),
				{Sym: "lat", Field: "moe_latent_size", Default: "0", Null: "0", Desc: "the experts' latent width (0: none)"},
				derived("tied", "false"),
			}),
			Global: embed("backbone.embedding.weight"),
			Stacks: []Stack{{Prefix: "backbone.layers.{l}.", Layers: "L", Kinds: []Kind{
				{Name: "mamba", If: "in(" + nemotronHType + ", list('linear_attention', 'mamba', 'M'))"},
				{Name: "moe", If: "in(" + nemotronHType + ", list('moe', 'E'))"},
				{Name: "attention", If: "in(" + nemotronHType + ", list('full_attention', 'attention', '*'))"},
				{Name: "mlp"}},
				Tensors: cat(norm("norm", "H", ""),
					when("mamba", renameSyms(mamba2MixerOut("mixer.", "use_conv_bias", "use_bias", "use_bias", "true"), "I", "Ism")),
					when("attention", attn("mixer.", "", "")),
					when("mlp", plainMLP("mixer.up_proj", "mixer.down_proj", "I", "mlp_bias")),
					when("moe", router("mixer.gate.weight"), vecAny("mixer.gate.e_score_correction_bias", "E"),
						[]T{{Name: "mixer.experts.{e}.up_proj.weight", Shape: []string{"Im", "lat > 0 ? lat : H"}, Role: RoleLinear, Experts: "E"},
							{Name: "mixer.experts.{e}.down_proj.weight", Shape: []string{"lat > 0 ? lat : H", "Im"}, Role: RoleLinear, Experts: "E"}},
						zeroOK(plainMLP("mixer.shared_experts.up_proj", "mixer.shared_experts.down_proj", "Ish", "mlp_bias")),
						when("lat > 0", linear("mixer.fc1_latent_proj", "lat", "H", "mlp_bias"), linear("mixer.fc2_latent_proj", "H", "lat", "mlp_bias"))),
				)}},
			Final:    cat(norm("backbone.norm_f", "H", ""), lmHead("lm_head.weight")),
			Embed:    "backbone.embedding.weight",
			Ignore:   []string{`mtp.`},
			Variants: [][][2]string{{{"backbone.embedding.", "backbone.embeddings."}}, {{"backbone.embedding.", "model.embeddings."}, {"backbone.", "model."}}},
		}
	},
)

// boolStrValue reads a BoolStr field.
func (c *Config) boolStrValue(field string, raw json.RawMessage) (any, error) {
	var b bool
	if json.Unmarshal(raw, &b) == nil {
		return fmt.Sprint(b), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, c.errorf(field, "must be a boolean or a string, found %s", kindOf(raw))
	}
	return s, nil
}

// Decoder language models and vision-language models new in transformers
// 5.x, second part: Gemma 4 (text, vision, unified), DeepSeek-V4, A.X K2,
// Zaya, HRM-text, Kimi-K2.5, OLMo-hybrid, Inkling, GLM-Image, Cosmos 3,
// Muse Glimmer. Their layouts are 5.x's own; the oracle's --v5 is their
// truth.

// layerMapValue reads a LayerMap.
func (c *Config) layerMapValue(field string, raw json.RawMessage) (any, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, c.errorf(field, "must be an object keyed by layer index, found %s", kindOf(raw))
	}
	byLayer := map[int]map[string]any{}
	n := 0
	for k, v := range m {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= MaxLayers {
			return nil, c.errorf(field, "has the key %q, not a layer index below %d", k, MaxLayers)
		}
		obj, ok := objectEntry(v)
		if !ok {
			if string(v) != "null" {
				return nil, c.errorf(field+"."+k, "must be an object, found %s", kindOf(v))
			}
			obj = map[string]any{}
		}
		byLayer[i] = obj
		n = max(n, i+1)
	}
	out := make([]any, n)
	for i := range out {
		if obj, ok := byLayer[i]; ok {
			out[i] = obj
		} else {
			out[i] = map[string]any{}
		}
	}
	return out, nil
}

// perLayer is the expression for a per_layer_config override of the
// field name in layer l (the symbol plc, read when plcSet), else def.
func perLayer(name, def, unset string) string {
	return "(plcSet ? (l < len(plc) ? key(at(plc, l), '" + name + "', " + def + ") : " + def + ") : (" + unset + "))"
}

// gemma4Full is true in Gemma 4's full-attention layers: layer_types
// (absent: every sixth), the last layer always (the config forces it).
const gemma4Full = "(l == L-1 || (len(lt) > l ? at(lt, l) != 'sliding_attention' : (l+1) % 6 == 0))"

// gemma4Dims are Gemma4TextConfig's fields (Gemma4UnifiedTextConfig's
// with ple false: no per-layer inputs, no MoE block). Full-attention
// layers take head_dim (and, with attention_k_eq_v, key/value heads)
// from per_layer_config, which the config writes from global_head_dim
// and num_global_key_value_heads when it is absent.
func gemma4Dims(ple bool) []Def {
	d := cat(sized(llamaDims("256", "", "4", ""), "V", "262144", "H", "2304", "L", "30", "heads", "8", "I", "9216"), []Def{
		list("lt", "layer_types", "each layer's attention (absent: every sixth full)"),
		{Sym: "plc", Field: "per_layer_config", Type: LayerMap, Default: "empty", Null: "=", Desc: "per-layer overrides (head_dim, num_key_value_heads)"},
		{Sym: "plcSet", Field: "per_layer_config", Type: Present, Default: "0", Null: "0", Desc: "per_layer_config is given"},
		opt("gd", "global_head_dim", "512"),
		{Sym: "gkv", Field: "num_global_key_value_heads", Default: "0", Null: "0", Desc: "full-attention key/value heads with attention_k_eq_v (0: num_key_value_heads)"},
		flag("keqv", "attention_k_eq_v", "false", "full-attention layers reuse the key projection as values"),
		field("kvs", "num_kv_shared_layers", "0", "the last layers reuse earlier layers' keys and values"),
		flag("wide", "use_double_wide_mlp", "false", "kv-shared layers have a twice as wide MLP"),
		attnBiasFlag, tie("true"),
	})
	if ple {
		d = cat(d, []Def{
			{Sym: "Hpl", Field: "hidden_size_per_layer_input", Default: "256", Null: "0", Legend: "Hpl", Desc: "per-layer input width (0: none)", Show: true},
			{Sym: "Vpl", Field: "vocab_size_per_layer_input", Default: "262144", Desc: "rows of the per-layer input table", Pos: true},
			flag("moe", "enable_moe_block", "false", "each layer adds a mixture of experts beside its MLP"),
			{Sym: "E", Field: "num_experts", Default: "0", Null: "0", Legend: "E", Desc: "experts of the MoE block", Show: true, Max: MaxExperts},
			{Sym: "Im", Field: "moe_intermediate_size", Default: "0", Null: "0", Legend: "Im", Desc: "expert FFN inner width"},
		})
	} else {
		d = cat(d, []Def{derived("Hpl", "0"), derived("Vpl", "0"), derived("moe", "false"), derived("E", "0"), derived("Im", "0")})
	}
	return d
}

// gemma4Layer is a Gemma 4 decoder layer: attention with q/k norms (v's
// has no scale) whose head width and key/value heads may differ by
// layer; kv-shared layers have no key/value projections; sandwich norms;
// a per-layer input gate where Hpl > 0; an MoE block beside the MLP
// where moe.
func gemma4Layer() []T {
	d := perLayer("head_dim", "d", gemma4Full+" ? gd : d")
	kv := perLayer("num_key_value_heads", "kv", gemma4Full+" && keqv && gkv > 0 ? gkv : kv")
	shared := "(L - kvs >= 0 && l >= L - kvs)"
	ts := cat(
		norm("input_layernorm", "H", ""),
		linear("self_attn.q_proj", "heads*dl", "H", "attention_bias"),
		norm("self_attn.q_norm", "dl", ""),
		when("!"+shared, norm("self_attn.k_norm", "dl", ""), linear("self_attn.k_proj", "kvl*dl", "H", "attention_bias"),
			when("!(keqv && "+gemma4Full+")", linear("self_attn.v_proj", "kvl*dl", "H", "attention_bias"))),
		linear("self_attn.o_proj", "H", "heads*dl", "attention_bias"),
		gatedMLP("mlp.", "(wide && L - kvs > 0 && l >= L - kvs ? 2*I : I)", ""),
		norm("post_attention_layernorm", "H", ""), norm("pre_feedforward_layernorm", "H", ""), norm("post_feedforward_layernorm", "H", ""),
		[]T{{Name: "layer_scalar", Shape: []string{"1"}, Role: RoleNorm, AnyDType: true}},
		when("Hpl > 0", linear("per_layer_input_gate", "Hpl", "H", ""), linear("per_layer_projection", "H", "Hpl", ""),
			norm("post_per_layer_input_norm", "H", "")),
		when("moe", linear("router.proj", "E", "H", ""), vec("router.scale", "H"), vec("router.per_expert_scale", "E"),
			stackedExperts("experts.gate_up_proj", "experts.down_proj"),
			norm("post_feedforward_layernorm_1", "H", ""), norm("post_feedforward_layernorm_2", "H", ""), norm("pre_feedforward_layernorm_2", "H", "")),
	)
	return renameSyms(ts, "dl", d, "kvl", kv)
}

// gemma4Text is Gemma 4's language model (gemma4_text, or with ple
// false gemma4_unified_text): embed_tokens, the per-layer input table
// and its projection where Hpl > 0, the layers, norm, a head tied by
// default.
func gemma4Text(name, class, mt string, ple bool) *Family {
	f := &Family{Name: name, Class: class, ConfigClass: class + "TextConfig", ModelTypes: []string{mt}, SeqCls: "-",
		Defs: gemma4Dims(ple),
		Global: cat(embed("model.embed_tokens.weight"),
			when("Hpl > 0", []T{{Name: "model.embed_tokens_per_layer.weight", Shape: []string{"Vpl", "L*Hpl"}, Role: RoleEmbedding},
				{Name: "model.per_layer_model_projection.weight", Shape: []string{"L*Hpl", "H"}, Role: RoleLinear}},
				norm("model.per_layer_projection_norm", "Hpl", ""))),
		Stacks: decoderLayers(nil, gemma4Layer()),
		Final:  cat(norm("model.norm", "H", ""), lmHead("lm_head.weight")),
		Tasks:  []Task{{Suffix: "TextModel", Prefix: "-"}},
	}
	return f
}

var (
	gemma4TextF        = gemma4Text("Gemma4-Text", "Gemma4", "gemma4_text", true)
	gemma4UnifiedTextF = gemma4Text("Gemma4-Unified-Text", "Gemma4Unified", "gemma4_unified_text", false)
)

var _ = register(func() *Family { return gemma4TextF }, func() *Family { return gemma4UnifiedTextF })

// clippable is Gemma 4's Gemma4ClippableLinear under name: a bias-free
// linear (name.linear) and, where clip holds, its four clamp bounds
// (scalar buffers).
func clippable(name, out, in, clip string) []T {
	ts := linear(name+".linear", out, in, "")
	for _, b := range []string{"input_min", "input_max", "output_min", "output_max"} {
		ts = append(ts, T{Name: name + "." + b, Shape: []string{}, Role: RoleNorm, If: clip, AnyDType: true})
	}
	return ts
}

// gemma4Vision is Gemma 4's vision tower (Gemma4VisionModel) with its
// fields under cfg ("vision_config." in the VLM) and its names under
// pre: a linear patch embedding, a two-axis position table, layers of
// clippable linears with q/k norms and sandwich norms, and the
// standardize buffers.
func gemma4Vision(cfg, pre string) ([]Def, []T, Stack) {
	defs := cat(vTower(cfg, "768", "16", "3072", "16"), []Def{
		{Sym: "vheads", Field: cfg + "num_attention_heads", Default: "12", Desc: "vision attention heads", Pos: true},
		{Sym: "vkv", Field: cfg + "num_key_value_heads", Default: "12", Desc: "vision key/value heads", Pos: true},
		{Sym: "vd", Field: cfg + "head_dim", Default: "64", Desc: "vision head width", Pos: true},
		opt("vPos", cfg+"position_embedding_size", "10240"),
		flag("vClip", cfg+"use_clipped_linears", "false", "the vision linears carry clamp bounds"),
		flag("vStd", cfg+"standardize", "false", "the pooled features are standardized (std_bias, std_scale)"),
	})
	global := []T{{Name: pre + "patch_embedder.input_proj.weight", Shape: []string{"vH", "3*vP*vP"}, Role: RoleLinear},
		{Name: pre + "patch_embedder.position_embedding_table", Shape: []string{"2", "vPos", "vH"}, Role: RoleEmbedding}}
	global = cat(global, when("vStd", []T{{Name: pre + "std_bias", Shape: []string{"vH"}, Role: RoleBias, AnyDType: true},
		{Name: pre + "std_scale", Shape: []string{"vH"}, Role: RoleNorm, AnyDType: true}}))
	layer := cat(norm("input_layernorm", "vH", ""),
		clippable("self_attn.q_proj", "vheads*vd", "vH", "vClip"), clippable("self_attn.k_proj", "vkv*vd", "vH", "vClip"),
		clippable("self_attn.v_proj", "vkv*vd", "vH", "vClip"), clippable("self_attn.o_proj", "vH", "vheads*vd", "vClip"),
		norm("self_attn.q_norm", "vd", ""), norm("self_attn.k_norm", "vd", ""),
		clippable("mlp.gate_proj", "vI", "vH", "vClip"), clippable("mlp.up_proj", "vI", "vH", "vClip"), clippable("mlp.down_proj", "vH", "vI", "vClip"),
		norm("post_attention_layernorm", "vH", ""), norm("pre_feedforward_layernorm", "vH", ""), norm("post_feedforward_layernorm", "vH", ""))
	return defs, global, Stack{Name: "vision", Prefix: pre + "encoder.layers.{l}.", Layers: "vL", Tensors: layer}
}

// presentDef is 1 when the sub-config field is given (not null): the
// tower it configures is built.
func presentDef(sym, field string) Def {
	return Def{Sym: sym, Field: field, Type: Present, Default: "0", Null: "0", Desc: field + " is given (its tower is built)"}
}

// gemma4VLM is Gemma 4 (Gemma4ForConditionalGeneration): the Gemma 4
// language model under model.language_model, the vision tower (where
// vision_config is given) under model.vision_tower with its projection
// model.embed_vision. An audio tower (audio_config) is not modelled: such
// a checkpoint is checked structurally only.
func gemma4VLM() *Family {
	defs, global, stack := gemma4Vision(vcfg, "model.vision_tower.")
	stack.Layers = "hasV ? vL : 0"
	v := &vlm{Family: Family{Name: "Gemma4", Class: "Gemma4", ModelTypes: []string{"gemma4"}, Causal: "Gemma4ForConditionalGeneration",
		Defs:   cat([]Def{presentDef("hasV", "vision_config")}, defs),
		Global: when("hasV", global),
		Stacks: []Stack{stack},
		Final:  when("hasV", linear("model.embed_vision.embedding_projection", "H", "vH", "")),
	}, textF: gemma4TextF, reroot: newLM}
	return withoutSubConfig(v.register(), "audio_config", "its audio tower (audio_config) has no spec yet")
}

// withoutSubConfig refuses (exit 3, checked structurally) a config that
// gives the sub-config field, which builds a part the family does not
// model.
func withoutSubConfig(f *Family, field, why string) *Family {
	inner := f.compose
	f.compose = func(c *Config) (*Family, error) {
		if raw, ok := c.lookup(field); ok && string(raw) != "null" {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: why}
		}
		return inner(c)
	}
	return f
}

// gemma4UnifiedVLM is Gemma 4 unified: no vision or audio tower; raw
// patches go through a LayerNorm–Dense–LayerNorm embedder with a
// factorized 2-D position table (saved as vision_embedder) and a
// projection into the language model (embed_vision), where
// vision_config is given; raw audio frames through one projection
// (audio_config).
func gemma4UnifiedVLM() *Family {
	e := "model.vision_embedder."
	v := &vlm{Family: Family{Name: "Gemma4-Unified", Class: "Gemma4Unified", ModelTypes: []string{"gemma4_unified"},
		Causal: "Gemma4UnifiedForConditionalGeneration",
		// The names transformers loads (its conversion mapping, reversed
		// on save): the embedder under embed_vision.
		Variants: [][][2]string{{{"model.embed_vision.embedding_projection.", "model.embed_vision.multimodal_embedder.embedding_projection."},
			{e, "model.embed_vision."}}},
		Defs: []Def{presentDef("hasV", "vision_config"), presentDef("hasA", "audio_config"),
			vPatch(vcfg, "16"), opt("vK", "vision_config.pooling_kernel_size", "3"),
			{Sym: "mmD", Field: "vision_config.mm_embed_dim", Default: "3840", Desc: "patch embedding width", Pos: true},
			opt("mmPos", "vision_config.mm_posemb_size", "1120"),
			{Sym: "vOut", Field: "vision_config.output_proj_dims", Default: "3840", Desc: "vision embedder width", Pos: true},
			{Sym: "aD", Field: "audio_config.audio_embed_dim", Default: "640", Desc: "audio frame width", Pos: true},
			derived("vPD", "3*(vP*vK)*(vP*vK)"),
		},
		Final: cat(when("hasV", norm(e+"patch_ln1", "vPD", "true"), linear(e+"patch_dense", "mmD", "vPD", "true"), norm(e+"patch_ln2", "mmD", "true"),
			[]T{{Name: e + "pos_embedding", Shape: []string{"mmPos", "2", "mmD"}, Role: RoleEmbedding}}, norm(e+"pos_norm", "mmD", "true"),
			linear("model.embed_vision.embedding_projection", "H", "vOut", "")),
			when("hasA", linear("model.embed_audio.embedding_projection", "H", "aD", ""))),
	}, textF: gemma4UnifiedTextF, reroot: newLM}
	return v.register()
}

// gemma4VisionAlone is Gemma4VisionModel: the tower with its fields at
// the top level.
func gemma4VisionAlone() *Family {
	defs, global, stack := gemma4Vision("", "")
	return &Family{Name: "Gemma4 vision", Class: "Gemma4", ConfigClass: "Gemma4VisionConfig", ModelTypes: []string{"gemma4_vision"},
		Causal: "-", SeqCls: "-", Tasks: []Task{{Suffix: "VisionModel", KeepFinal: true}},
		Defs: defs, Global: global, Stacks: []Stack{stack}}
}

var _ = register(gemma4VLM, gemma4UnifiedVLM, gemma4VisionAlone)

// dsv4Type is DeepSeek-V4 layer l's attention: layer_types, else the
// legacy compress_ratios (0 sliding, 4 CSA, 128 HCA), else two HCA
// layers then CSA and HCA in turn.
const dsv4Type = "(len(lt) > l ? at(lt, l) : (len(cr) > l ? (at(cr, l) == 0 ? 'sliding_attention' : (at(cr, l) == 4 ? 'compressed_sparse_attention' : 'heavily_compressed_attention')) : " +
	"(l >= 2 && (l-2) % 2 == 1 ? 'compressed_sparse_attention' : 'heavily_compressed_attention')))"

// dsv4Compressor is a DeepSeek-V4 KV compressor under pre of width w
// (the overlapping CSA and its indexer compress 2·w at once): its
// gate and kv projections, positional bias of rate rows and a norm of d.
func dsv4Compressor(pre, w, d, rate string) []T {
	return cat([]T{{Name: pre + "ape", Shape: []string{rate, w}, Role: RoleEmbedding}}, norm(pre+"norm", d, ""),
		linear(pre+"wgate", w, "H", ""), linear(pre+"wkv", w, "H", ""))
}

// dsv4HC is a DeepSeek-V4 hyper-connection's parameters (attn or ffn):
// (2+m)·m mixing logits from the m residual streams.
func dsv4HC(which string) []T {
	return []T{{Name: "hc_" + which + "_base", Shape: []string{"(2+m)*m"}, Role: RoleNorm},
		{Name: "hc_" + which + "_fn", Shape: []string{"(2+m)*m", "m*H"}, Role: RoleLinear},
		{Name: "hc_" + which + "_scale", Shape: []string{"3"}, Role: RoleNorm}}
}

var _ = register(
	// DeepSeek-V4: one-key-head attention with a q low rank, grouped
	// low-rank output (wo_a, wo_b) and per-head sinks; per layer type a
	// KV compressor (heavily compressed, or compressed-sparse with its
	// lightning indexer) or none (sliding); m residual streams mixed by
	// hyper-connections around attention and FFN; hash-routed MoE layers
	// (a token→expert table) then score-routed ones with a correction
	// bias; a shared expert of the expert width. transformers 5.x saves
	// the checkpoint's own names (attn., ffn., w1/w2/w3, head.), its
	// conversion mapping reversed.
	func() *Family {
		return &Family{Name: "DeepSeek-V4", Class: "DeepseekV4", ModelTypes: []string{"deepseek_v4"}, SeqCls: "-",
			Defs: cat(deepseekDims("129280", "4096", "43", "64", "2048")[:4], []Def{
				{Sym: "hd", Field: "head_dim", Default: "512", Legend: "d", Desc: "width of the one key/value head and of each query head", Show: true, Pos: true},
				{Sym: "qr", Field: "q_lora_rank", Default: "1024", Desc: "q low rank", Pos: true},
				opt("g", "o_groups", "8"), opt("r", "o_lora_rank", "1024"),
				{Sym: "E", Field: "n_routed_experts|num_local_experts", Default: "256", Legend: "E", Desc: "routed experts per block, {topk} active per token", Show: true, Max: MaxExperts},
				{Sym: "Im", Field: "moe_intermediate_size|intermediate_size", Default: "2048", Legend: "Im", Desc: "expert (and shared expert) FFN width", Show: true, Pos: true},
				field("topk", "num_experts_per_tok", "6", "experts active per token"),
				list("lt", "layer_types", "each layer's attention: sliding, compressed sparse (CSA) or heavily compressed (HCA)"),
				list("cr", "compress_ratios", "legacy: each layer's compression ratio"),
				list("mlt", "mlp_layer_types", "each layer's routing: hash_moe or moe"),
				opt("nhash", "num_hash_layers", "3"),
				opt("rcsa", "compress_rates.compressed_sparse_attention|compress_rate_csa", "4"),
				opt("rhca", "compress_rates.heavily_compressed_attention|compress_rate_hca", "128"),
				opt("ixn", "index_n_heads", "64"), opt("ixd", "index_head_dim", "128"),
				opt("m", "hc_mult", "4"),
				mlpBiasFlag, tie("false"),
			}),
			Global: embed("model.embed_tokens.weight"),
			Stacks: []Stack{{Prefix: "model.layers.{l}.", Layers: "L", Kinds: []Kind{
				{Name: "csa", If: dsv4Type + " == 'compressed_sparse_attention'"},
				{Name: "hca", If: dsv4Type + " == 'heavily_compressed_attention'"},
				{Name: "swa"}},
				Tensors: cat(norm("attn_norm", "H", ""),
					vec("attn.attn_sink", "heads"),
					linear("attn.wq_a", "qr", "H", ""), norm("attn.q_norm", "qr", ""), linear("attn.wq_b", "heads*hd", "qr", ""),
					linear("attn.wkv", "hd", "H", ""), norm("attn.norm", "hd", ""),
					linear("attn.wo_a", "g*r", "heads*hd/g", ""), linear("attn.wo_b", "H", "g*r", ""),
					when("hca", dsv4Compressor("attn.compressor.", "hd", "hd", "rhca")),
					when("csa", dsv4Compressor("attn.compressor.", "2*hd", "hd", "rcsa"), dsv4Compressor("attn.indexer.compressor.", "2*ixd", "ixd", "rcsa"),
						linear("attn.indexer.weights_proj", "ixn", "H", ""), linear("attn.indexer.wq_b", "ixn*ixd", "qr", "")),
					dsv4HC("attn"), dsv4HC("ffn"),
					norm("ffn_norm", "H", ""),
					router("ffn.gate.weight"),
					[]T{{Name: "ffn.gate.tid2eid", Shape: []string{"V", "topk"}, Role: RoleNorm, AnyDType: true, If: "len(mlt) > l ? at(mlt, l) == 'hash_moe' : l < nhash"},
						{Name: "ffn.gate.bias", Shape: []string{"E"}, Role: RoleBias, AnyDType: true, If: "len(mlt) > l ? at(mlt, l) != 'hash_moe' : l >= nhash"}},
					expertMLPs("ffn.experts.", "w1", "w3", "w2"),
					linear("ffn.shared_experts.w1", "Im", "H", "mlp_bias"), linear("ffn.shared_experts.w2", "H", "Im", "mlp_bias"), linear("ffn.shared_experts.w3", "Im", "H", "mlp_bias"),
				)}},
			Final: cat([]T{{Name: "model.hc_head.hc_base", Shape: []string{"m"}, Role: RoleNorm},
				{Name: "model.hc_head.hc_fn", Shape: []string{"m", "m*H"}, Role: RoleLinear},
				{Name: "model.hc_head.hc_scale", Shape: []string{"1"}, Role: RoleNorm}},
				norm("model.norm", "H", ""), lmHead("head.weight")),
			Head:   "head.weight",
			Ignore: []string{`(^|\.)mtp\.`},
			// The released checkpoints (and DeepseekV4Model as 5.x saves it):
			// no model. prefix, embed and hc_head_* by their own names.
			Variants: [][][2]string{{{"model.embed_tokens.", "embed."}, {"model.hc_head.hc_", "hc_head_"}, {"model.", ""}}},
		}
	},
)

// llama4Vision is Llama 4's vision side as a VLM row (multimodal.go) and,
// re-rooted, Llama4VisionModel.
func llama4Vision() Family {
	return Family{Name: "Llama4", Class: "Llama4", ModelTypes: []string{"llama4"}, Causal: "Llama4ForConditionalGeneration",
		Defs: append(vTower(vcfg, "768", "34", "5632", "14"),
			opt("vS", "vision_config.image_size", "448"), opt("vC", "vision_config.num_channels", "3"),
			opt("vOut", "vision_config.vision_output_dim", "7680"),
			opt("pIn", "vision_config.projector_input_dim", "4096"), opt("pOut", "vision_config.projector_output_dim", "4096")),
		Global: cat(
			[]T{{Name: "vision_model.patch_embedding.linear.weight", Shape: []string{"vH", "vC*vP*vP"}, Role: RoleLinear},
				{Name: "vision_model.class_embedding", Shape: []string{"vH"}, Role: RoleNorm},
				{Name: "vision_model.positional_embedding_vlm", Shape: []string{"(vS/vP)*(vS/vP)+1", "vH"}, Role: RoleEmbedding}},
			norm("vision_model.layernorm_pre", "vH", "true")),
		Stacks: []Stack{{Name: "vision", Prefix: "vision_model.model.layers.{l}.", Layers: "vL", Tensors: renameSyms(cat(
			norm("input_layernorm", "H", "true"), attn("self_attn.", "true", "true"), norm("post_attention_layernorm", "H", "true"),
			plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH", "heads*d", "vH", "kv*d", "vH")}},
		Final: cat(norm("vision_model.layernorm_post", "vH", "true"),
			linear("vision_model.vision_adapter.mlp.fc1", "pIn", "vI", ""), linear("vision_model.vision_adapter.mlp.fc2", "pOut", "pOut", ""),
			linear("multi_modal_projector.linear_1", "H", "vOut", "")),
	}
}

// mllamaVision is Mllama's vision side as a VLM row (multimodal.go) and,
// re-rooted, MllamaVisionModel.
func mllamaVision() Family {
	return Family{Name: "Mllama", Class: "Mllama", ModelTypes: []string{"mllama"}, Causal: "MllamaForConditionalGeneration",
		Defs: []Def{
			vWidth(vcfg, "1280"),
			{Sym: "vL", Field: "vision_config.num_hidden_layers", Default: "32", Legend: "vL", Desc: "local vision layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "vG", Field: "vision_config.num_global_layers", Default: "8", Legend: "vG", Desc: "global vision layers", Show: true, Pos: true, Max: MaxLayers},
			vFFN(vcfg, "5120"),
			vPatch(vcfg, "14"),
			opt("vS", "vision_config.image_size", "448"), opt("vC", "vision_config.num_channels", "3"),
			opt("vT", "vision_config.max_num_tiles", "4"),
			{Sym: "vAR", Field: "vision_config.supported_aspect_ratios", Type: Count, Default: "8", Desc: "aspect ratios (tile layouts)"},
			opt("vOut", "vision_config.vision_output_dim", "7680"),
			derived("vN", "(vS/vP)*(vS/vP)+1"),
		},
		Global: cat(
			[]T{{Name: "vision_model.patch_embedding.weight", Shape: []string{"vH", "vC", "vP", "vP"}, Role: RoleLinear},
				{Name: "vision_model.class_embedding", Shape: []string{"vH"}, Role: RoleNorm},
				{Name: "vision_model.gated_positional_embedding.embedding", Shape: []string{"vN", "vH"}, Role: RoleEmbedding},
				{Name: "vision_model.gated_positional_embedding.gate", Shape: []string{"1"}, Role: RoleNorm},
				{Name: "vision_model.gated_positional_embedding.tile_embedding.weight", Shape: []string{"vAR+1", "vT*vN*vH"}, Role: RoleEmbedding},
				{Name: "vision_model.pre_tile_positional_embedding.embedding.weight", Shape: []string{"vAR+1", "vT*vH"}, Role: RoleEmbedding},
				{Name: "vision_model.pre_tile_positional_embedding.gate", Shape: []string{"1"}, Role: RoleNorm},
				{Name: "vision_model.post_tile_positional_embedding.embedding.weight", Shape: []string{"vAR+1", "vT*vH"}, Role: RoleEmbedding},
				{Name: "vision_model.post_tile_positional_embedding.gate", Shape: []string{"1"}, Role: RoleNorm}},
			norm("vision_model.layernorm_pre", "vH", "true"), norm("vision_model.layernorm_post", "vH", "true")),
		Stacks: []Stack{
			{Name: "vision", Prefix: "vision_model.transformer.layers.{l}.", Layers: "vL", Tensors: mllamaVisionLayer},
			{Name: "vision global", Prefix: "vision_model.global_transformer.layers.{l}.", Layers: "vG", Tensors: cat(mllamaVisionLayer,
				[]T{{Name: "gate_attn", Shape: []string{"1"}, Role: RoleNorm}, {Name: "gate_ffn", Shape: []string{"1"}, Role: RoleNorm}})},
		},
		Final: linear("multi_modal_projector", "H", "vOut", "true"),
	}
}

var _ = register(
	func() *Family {
		return towerVision(llama4Vision(), "vision_model.", "Llama4", "VisionModel", "llama4_vision_model")
	},
	func() *Family {
		return towerVision(mllamaVision(), "vision_model.", "Mllama", "VisionModel", "mllama_vision_model")
	},
)

// kimiLayout is one of the three layouts transformers 5.x saves
// Kimi-K2.5 in: its conversion mapping, reversed on save, renames the
// full model's names back to the released checkpoint's (fused wqkv,
// norm0/norm1, fc0/fc1, wo, language_model.model.blocks), only part of
// them in the base model, none in the vision model alone.
type kimiLayout int

const (
	kimiFull  kimiLayout = iota // Kimi_K25ForConditionalGeneration
	kimiBase                    // Kimi_K25Model
	kimiAlone                   // Kimi_K25VisionModel
)

// kimiVision is Kimi-K2.5's MoonViT tower (fields under cfg, names
// under pre) in layout k: a biased patch conv, a learned 2-D position
// table, pre-norm blocks with a biased attention and GELU MLP, a final
// LayerNorm.
func kimiVision(cfg, pre string, k kimiLayout) ([]Def, []T, Stack) {
	defs := cat(vTower(cfg, "1152", "27", "4304", "14"), []Def{opt("vPH", cfg+"pos_emb_height", "64"), opt("vPW", cfg+"pos_emb_width", "64")})
	enc, pos, blocks := pre+"encoder.", pre+"patch_embed.pos_emb.weight", "encoder.blocks.{l}."
	if k != kimiFull {
		enc, pos, blocks = pre, pre+"patch_embed.pos_emb.position_embeddings", "blocks.{l}."
	}
	global := cat([]T{{Name: enc + "patch_embed.proj.weight", Shape: []string{"vH", "3", "vP", "vP"}, Role: RoleLinear}}, vec(enc+"patch_embed.proj.bias", "vH"),
		[]T{{Name: pos, Shape: []string{"vPH", "vPW", "vH"}, Role: RoleEmbedding}})
	var layer []T
	switch k {
	case kimiFull:
		layer = cat(norm("norm0", "vH", "true"), norm("norm1", "vH", "true"), linear("wqkv", "3*vH", "vH", "true"), linear("wo", "vH", "vH", "true"),
			linear("mlp.fc0", "vI", "vH", "true"), linear("mlp.fc1", "vH", "vI", "true"))
	case kimiBase:
		layer = cat(norm("norm1", "vH", "true"), norm("norm2", "vH", "true"), linear("wqkv", "3*vH", "vH", "true"), linear("attn.proj", "vH", "vH", "true"),
			linear("mlp.fc1", "vI", "vH", "true"), linear("mlp.fc2", "vH", "vI", "true"))
	default:
		blocks = "layers.{l}."
		layer = cat(norm("norm1", "vH", "true"), norm("norm2", "vH", "true"), linear("attn.q_proj", "vH", "vH", "true"), linear("attn.k_proj", "vH", "vH", "true"),
			linear("attn.v_proj", "vH", "vH", "true"), linear("attn.proj", "vH", "vH", "true"),
			linear("mlp.fc1", "vI", "vH", "true"), linear("mlp.fc2", "vH", "vI", "true"))
	}
	return defs, global, Stack{Name: "vision", Prefix: pre + blocks, Layers: "vL", Tensors: layer}
}

// kimiVLM is Kimi-K2.5 (full: Kimi_K25ForConditionalGeneration, else
// Kimi_K25Model): the MoonViT tower, a projector of merge_kernel_size²
// patches (LayerNorm, two linears) and a DeepSeek-V3 language model
// (text_config, kimi_k2 read as deepseek_v3) whose layers are saved as
// blocks.
func kimiVLM(k kimiLayout) *vlm {
	defs, global, stack := kimiVision(vcfg, "vision_tower.", k)
	enc := "vision_tower.encoder."
	if k != kimiFull {
		enc = "vision_tower."
	}
	mk := "(len(vMK) > 1 ? at(vMK, 0)*at(vMK, 1) : 4)"
	v := &vlm{Family: Family{Name: "Kimi-K2.5", Class: "Kimi_K25", ModelTypes: []string{"kimi_k25"}, Causal: "Kimi_K25ForConditionalGeneration",
		Defs: cat(defs, []Def{listOf("vMK", "vision_config.merge_kernel_size", "list(2, 2)", "patches merged by the projector"),
			opt("pH", "projection_hidden_size", "1152")}),
		Global: global, Stacks: []Stack{stack},
		Final: cat(norm(enc+"final_layernorm", "vH", "true"), norm("mm_projector.pre_norm", "pH", "true"),
			zeroOK(cat(linear("mm_projector.in_proj", "vH*"+mk, "vH*"+mk, "true"), linear("mm_projector.out_proj", "H", "vH*"+mk, "true")))),
	}, text: "deepseek_v3", alias: map[string]string{"kimi_k2": "deepseek_v3"}, reroot: [][2]string{{"model.layers.", "language_model.model.blocks."}, {"model.", "language_model.model."}, {"lm_head.", "language_model.lm_head."}}}
	if k == kimiFull {
		v.Final = rerootTs(v.Final, [][2]string{{"mm_projector.pre_norm.", "model.mm_projector.pre_norm."}, {"mm_projector.in_proj.", "mm_projector.proj.0."}, {"mm_projector.out_proj.", "mm_projector.proj.2."}})
	} else {
		v.Causal, v.reroot, v.head = "Kimi_K25Model", [][2]string{{"model.layers.", "language_model.blocks."}, {"model.", "language_model."}}, []T{}
	}
	return v
}

var (
	kimiFullVLM = kimiVLM(kimiFull)
	kimiBaseVLM = kimiVLM(kimiBase)
)

var _ = register(
	// Kimi-K2.5: the full model's and the base model's layouts differ in
	// more than a prefix, so each is a VLM of its own, chosen by
	// architectures.
	func() *Family {
		return &Family{Name: "Kimi-K2.5", Class: "Kimi_K25", ModelTypes: []string{"kimi_k25"}, Causal: "Kimi_K25ForConditionalGeneration", SeqCls: "-",
			Tasks: []Task{{Suffix: TaskBase}},
			compose: func(c *Config) (*Family, error) {
				if c.Architecture() == "Kimi_K25Model" {
					return kimiBaseVLM.compose(c)
				}
				return kimiFullVLM.compose(c)
			}}
	},
	func() *Family {
		return func() *Family {
			defs, global, stack := kimiVision("", "", kimiAlone)
			return &Family{Name: "Kimi-K2.5 vision", Class: "Kimi_K25", ConfigClass: "Kimi_K25VisionConfig", ModelTypes: []string{"kimi_k25_vision"},
				Causal: "-", SeqCls: "-", Tasks: []Task{{Suffix: "VisionModel", KeepFinal: true}},
				Defs: defs, Global: global, Stacks: []Stack{stack}, Final: norm("final_layernorm", "vH", "true")}
		}()
	},
)

// axk2GatedNorm is A.X K2's gated RMS norm under pre: the norm and a
// low-rank sigmoid gate (W_down [gr, H], W_up [H, gr]; the released
// names, which transformers 5.x saves).
func axk2GatedNorm(pre string) []T {
	return cat(norm(pre+"norm", "H", ""), linear(pre+"W_down", "gr", "H", ""), linear(pre+"W_up", "H", "gr", ""))
}

var _ = register(
	// A.X K2: DeepSeek-V3.2's MLA with the sparse-attention indexer, its
	// query up-projection fused with a per-head output gate (q_b_proj
	// [heads·(qk+v), 2·q_lora_rank]), gated norms before attention and
	// before the sparse blocks' MLP, dense then sparse layers
	// (mlp_layer_types, else first_k_dense_replace/moe_layer_freq).
	func() *Family {
		return std("AXK2", "AXK2", []string{"axk2"},
			cat(deepseekDims("163840", "2048", "48", "32", "5120"), mla5Dims("384", "128", "64", "32", "64"),
				replaceDef(deepseekStyle("128", "512", "8", "1", "1"), Def{Sym: "E", Field: "n_routed_experts|num_local_experts", Default: "128", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts}),
				dsaDefs("16", "128"), []Def{mltDef, opt("moe_every", "moe_layer_freq", "1"), opt("gr", "gated_norm_rank", "16"), tie("false"), attnBiasFlag}),
			[]Kind{{Name: "sparse", If: "len(mlt) > l ? at(mlt, l) == 'sparse' : l >= first_dense && l % max(moe_every, 1) == 0"}, {Name: "dense"}},
			axk2GatedNorm("input_layernorm."),
			linear("self_attn.q_a_proj", "qr", "H", "attention_bias"), norm("self_attn.q_a_layernorm", "qr", ""),
			linear("self_attn.q_b_proj", "heads*(qkd+vd)", "2*qr", ""),
			linear("self_attn.kv_a_proj_with_mqa", "kvr+rope", "H", "attention_bias"), norm("self_attn.kv_a_layernorm", "kvr", ""),
			linear("self_attn.kv_b_proj", "heads*(nope+vd)", "kvr", ""), linear("self_attn.o_proj", "H", "heads*vd", "attention_bias"),
			dsaIndexer("self_attn.indexer."),
			when("sparse", axk2GatedNorm("post_attention_layernorm."), mlaMoE5("true")),
			when("dense", norm("post_attention_layernorm", "H", ""), gatedMLP("mlp.", "I", "")))
	},
)

// zayaResidual is ZAYA's learned residual scaling under pre: a scale
// and bias of the block's output and of the residual.
func zayaResidual(pre string) []T {
	return cat(vec(pre+"hidden_states_bias", "H"), vec(pre+"hidden_states_scale", "H"), vec(pre+"residual_bias", "H"), vec(pre+"residual_scale", "H"))
}

// zayaConv is a biased 1-D convolution [out, in per group, k].
func zayaConv(name, out, in, k string) []T {
	return []T{{Name: name + ".weight", Shape: []string{out, in, k}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

var _ = register(
	// ZAYA1: compressed convolutional attention (q, k and two half-width
	// v projections, a depthwise then a per-head grouped conv over q and
	// k, a learned q/k temperature per kv head), residual scalings after
	// attention and MoE, and an MoE of stacked experts whose router (a
	// down projection, an MLP, one class more than experts: the skip
	// expert) carries state from layer to layer (router_states_scale
	// from the second layer on).
	func() *Family {
		return (&Family{Name: "ZAYA", Class: "Zaya", ModelTypes: []string{"zaya"}, SeqCls: "-",
			Defs: cat(sized(llamaDims("128", "", "2", ""), "V", "262272", "H", "2048", "L", "40", "heads", "8", "I", "0")[:6], []Def{
				{Sym: "E", Field: "num_experts", Default: "16", Legend: "E", Desc: "experts per block (and one skip class)", Show: true, Max: MaxExperts},
				{Sym: "Im", Field: "moe_intermediate_size", Default: "2048", Legend: "Im", Desc: "expert FFN inner width", Show: true, Pos: true},
				opt("R", "router_hidden_size", "256"), opt("t0", "cca_time0", "2"), opt("t1", "cca_time1", "2"),
				attnBiasFlag, flag("lm_head_bias", "lm_head_bias", "false", "lm_head has a bias"), tie("true"),
			}),
			Global: cat(embed("model.embed_tokens.weight"), vec("model.input_hidden_states_bias", "H"), vec("model.input_hidden_states_scale", "H")),
			Stacks: decoderLayers(nil, norm("input_layernorm", "H", ""),
				linear("self_attn.qkv_proj.q_proj", "heads*d", "H", "attention_bias"), linear("self_attn.qkv_proj.k_proj", "kv*d", "H", "attention_bias"),
				linear("self_attn.qkv_proj.v_proj_current", "kv*d/2", "H", "attention_bias"), linear("self_attn.qkv_proj.v_proj_delayed", "kv*d/2", "H", "attention_bias"),
				zayaConv("self_attn.qkv_proj.conv_qk_depthwise", "(heads+kv)*d", "1", "t0"), zayaConv("self_attn.qkv_proj.conv_qk_grouped", "(heads+kv)*d", "d", "t1"),
				vec("self_attn.qk_norm.temp", "kv"),
				linear("self_attn.o_proj", "H", "heads*d", "attention_bias"),
				norm("post_attention_layernorm", "H", ""),
				linear("mlp.gate.down_proj", "R", "H", "true"), vecIf("mlp.gate.router_states_scale", "R", "l > 0"),
				norm("mlp.gate.router_mlp.norm", "R", ""), linear("mlp.gate.router_mlp.fc1", "R", "R", "true"), linear("mlp.gate.router_mlp.fc2", "R", "R", "true"),
				linear("mlp.gate.router_mlp.out_proj", "E+1", "R", ""), vecAny("mlp.gate.balancing_biases", "E+1"),
				stackedExperts("mlp.experts.gate_up_proj", "mlp.experts.down_proj"),
				zayaResidual("post_attention_residual_scale."), zayaResidual("post_mlp_residual_scale.")),
			Final: cat(norm("model.norm", "H", ""), lmHead("lm_head.weight"), []T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias, If: "causal && lm_head_bias"}}),
		})
	},
)

// hrmStack is one of HRM-text's two recurrent modules under pre: layers
// of a gated attention (gate, q, k, v fused as gqkv_proj, the released
// name 5.x saves back; their biases keep the module names) and a
// SwiGLU (gate and up fused), no norm weights.
func hrmStack(name, pre string) Stack {
	return Stack{Name: name, Prefix: pre + "layers.{l}.", Layers: "Ls", Tensors: cat(
		linear("attn.gqkv_proj", "4*heads*d", "H", ""),
		when("attention_bias", vec("self_attn.gate_proj.bias", "heads*d"), vec("self_attn.q_proj.bias", "heads*d"),
			vec("self_attn.k_proj.bias", "heads*d"), vec("self_attn.v_proj.bias", "heads*d")),
		linear("attn.o_proj", "H", "heads*d", "attention_bias"),
		linear("mlp.gate_up_proj", "2*I", "H", ""),
		when("mlp_bias", vec("mlp.gate_proj.bias", "I"), vec("mlp.up_proj.bias", "I")),
		linear("mlp.down_proj", "H", "I", "mlp_bias"))}
}

var _ = register(
	// HRM-text: a hierarchical recurrent model, a high-level and a
	// low-level module of num_layers_per_stack layers each (multi-head
	// attention, no kv grouping), the low module's learned initial state.
	func() *Family {
		return &Family{Name: "HRM-text", Class: "HrmText", ModelTypes: []string{"hrm_text"}, SeqCls: "-",
			Defs: cat(sized(llamaDims("128", "", "heads", "heads"), "V", "151808", "H", "1536", "L", "16", "heads", "12", "I", "4096")[:5],
				[]Def{{Sym: "I", Field: "intermediate_size", Default: "4096", Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
					// Absent, num_hidden_layers is the per-module count (the
					// config then rewrites it to the unrolled total).
					{Sym: "Ls", Field: "num_layers_per_stack", Default: "L", Null: "L", Legend: "Ls", Desc: "layers of each module", Show: true, Max: MaxLayers},
					attnBiasFlag, mlpBiasFlag, tie("false")}),
			Global: cat(embed("model.embed_tokens.weight"), vec("model.z_L_init", "H")),
			Stacks: []Stack{hrmStack("high", "model.H_module."), hrmStack("low", "model.L_module.")},
			Final:  lmHead("lm_head.weight"),
		}
	},
)

var _ = register(glmImageText, glmImageVQ, glmImageVision)

// glmImageText is GLM-Image's language model alone (GlmImageTextModel):
// GLM-4's layer (sandwich norms, fused gate_up, q/k/v biases by
// attention_bias) with head_dim H/heads unless given.
func glmImageText() *Family {
	return std("GLM-Image text", "GlmImage", []string{"glm_image_text"},
		cat(sized(llamaDims("H/heads", "", "2", ""), "V", "168064", "H", "4096", "L", "40", "heads", "32", "I", "13696"),
			[]Def{flag("attention_bias", "attention_bias", "true", "q, k and v projections have biases")}), nil,
		inNorm, attn("self_attn.", "attention_bias", ""), postNorm, norm("post_self_attn_layernorm", "H", ""),
		linear("mlp.gate_up_proj", "2*I", "H", ""), linear("mlp.down_proj", "H", "I", ""), norm("post_mlp_layernorm", "H", "")).
		with(func(f *Family) {
			f.ConfigClass, f.Causal, f.SeqCls = "GlmImageTextConfig", "-", "-"
			f.Final = norm("model.norm", "H", "")
			f.Tasks = []Task{{Suffix: "TextModel", Prefix: "-"}}
		})
}

// glmImageVQ is GLM-Image's VQ tokenizer (GlmImageVQVAE): only the
// codebook and the 1×1 convs into and out of it are parameters.
func glmImageVQ() *Family {
	return &Family{Name: "GLM-Image VQ-VAE", Class: "GlmImage", ConfigClass: "GlmImageVQVAEConfig", ModelTypes: []string{"glm_image_vqmodel"},
		Causal: "-", SeqCls: "-", Tasks: []Task{{Suffix: "VQVAE", KeepFinal: true}},
		Defs: []Def{
			{Sym: "qD", Field: "embed_dim", Default: "2048", Legend: "D", Desc: "codebook entry width", Show: true, Pos: true},
			{Sym: "qN", Field: "num_embeddings", Default: "16384", Legend: "N", Desc: "codebook entries", Show: true, Pos: true},
			{Sym: "qC", Field: "latent_channels", Default: "1536", Desc: "latent channels", Pos: true},
		},
		Final: cat([]T{{Name: "quantize.embedding.weight", Shape: []string{"qN", "qD"}, Role: RoleEmbedding},
			{Name: "quant_conv.weight", Shape: []string{"qD", "qC", "1", "1"}, Role: RoleLinear}}, vec("quant_conv.bias", "qD"),
			[]T{{Name: "post_quant_conv.weight", Shape: []string{"qC", "qD", "1", "1"}, Role: RoleLinear}}, vec("post_quant_conv.bias", "qC")),
	}
}

// glmImageVision is GLM-Image's vision tower alone (GlmImageVisionModel):
// a biased patch conv, a learned position table of
// (image_size/patch_size)² rows, pre-norm blocks with a fused qkv and
// proj (biased by attention_bias) and a GELU MLP.
func glmImageVision() *Family {
	return &Family{Name: "GLM-Image vision", Class: "GlmImage", ConfigClass: "GlmImageVisionConfig", ModelTypes: []string{"glm_image_vision"},
		Causal: "-", SeqCls: "-", Tasks: []Task{{Suffix: "VisionModel", KeepFinal: true}},
		Defs: []Def{
			{Sym: "vH", Field: "hidden_size", Default: "1536", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
			{Sym: "vL", Field: "depth", Default: "40", Legend: "vL", Desc: "vision blocks", Show: true, Pos: true, Max: MaxLayers},
			vFFN("", "6144"), vPatch("", "16"), opt("vS", "image_size", "2048"), opt("vC", "in_channels", "3"),
			flag("vBias", "attention_bias", "true", "qkv and proj have biases"),
		},
		Global: cat([]T{{Name: "patch_embed.proj.weight", Shape: []string{"vH", "vC", "vP", "vP"}, Role: RoleLinear}}, vec("patch_embed.proj.bias", "vH"),
			[]T{{Name: "embeddings.position_embedding.weight", Shape: []string{"(vS/vP)*(vS/vP)", "vH"}, Role: RoleEmbedding}}),
		Stacks: []Stack{{Name: "vision", Prefix: "blocks.{l}.", Layers: "vL", Tensors: cat(
			norm("norm1", "vH", "true"), norm("norm2", "vH", "true"),
			linear("attn.qkv", "3*vH", "vH", "vBias"), linear("attn.proj", "vH", "vH", "vBias"),
			linear("mlp.fc1", "vI", "vH", "true"), linear("mlp.fc2", "vH", "vI", "true"))}},
	}
}

// minimaxM3Defs are MiniMaxM3VLTextConfig's fields (the VLM's language
// model, alone or inside minimax_m3_vl).
func minimaxM3Defs() []Def {
	return cat(sized(llamaDims("128", "", "4", ""), "V", "200064", "H", "6144", "L", "60", "heads", "64", "I", "3072"),
		expertsI("num_local_experts|num_experts", "128", "num_experts_per_tok", "4"), []Def{
			opt("Ish", "shared_intermediate_size", "3072"), opt("Id", "dense_intermediate_size", "12288"),
			list("lt", "layer_types", "each layer's attention"),
			list("saf", "sparse_attention_config.sparse_attention_freq", "sparse attention layers (without layer_types)"),
			list("mlf", "moe_layer_freq", "MoE layers (without mlp_layer_types)"),
			opt("ixn", "sparse_attention_config.sparse_num_index_heads|index_n_heads", "4"),
			opt("ixd", "sparse_attention_config.sparse_index_dim|index_head_dim", "128"),
			mltDef, tie("false")})
}

// minimaxM3Kinds are MiniMax-M3's sparse and dense MLP layers
// (mlp_layer_types, else moe_layer_freq, else all sparse);
// minimaxM3Indexer is true in its layers with a lightning indexer
// ("minimax_m3_sparse" in layer_types, else sparse_attention_freq).
var minimaxM3Kinds = []Kind{{Name: "sparse", If: "len(mlt) > 0 ? at(mlt, l) == 'sparse' : (len(mlf) > 0 ? in(at(mlf, l), list(1, 'true')) : true)"}, {Name: "dense"}}

const minimaxM3Indexer = "len(lt) > 0 ? at(lt, l) == 'minimax_m3_sparse' : (len(saf) > 0 && in(at(saf, l), list(1, 'true')))"
