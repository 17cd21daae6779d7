package spec

import (
	"encoding/json"
	"fmt"
	"slices"
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
	qwen35TextF, qwen35MoeTextF,
	(&vlm{Family: qwen35Vision("Qwen3.5", "Qwen3_5", "qwen3_5"), textF: qwen35TextF, reroot: newLM, tasks: vlmClassifiers}).register(),
	(&vlm{Family: qwen35Vision("Qwen3.5-MoE", "Qwen3_5Moe", "qwen3_5_moe"), textF: qwen35MoeTextF, reroot: newLM}).register(),
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
	std("Ministral3", "Ministral3", []string{"ministral3"},
		cat(sized(llamaDims("128", "H/heads", "8", ""), "V", "131072", "H", "4096", "L", "34", "heads", "32", "I", "14336"), []Def{tie("false")}), nil,
		llamaBlock("", "", gatedMLP("mlp.", "I", ""))),
	// CWM: Llama's layout, mlp_bias.
	std("CWM", "Cwm", []string{"cwm"},
		cat(sized(llamaDims("128", "H/heads", "8", ""), "V", "128256", "H", "6144", "L", "64", "heads", "48", "I", "21504"), []Def{tie("false"), mlpBiasFlag}), nil,
		llamaBlock("", "", gatedMLP("mlp.", "I", "mlp_bias"))).with(func(f *Family) { f.SeqCls = "-" }),
	// Mellum: q/k norms per head, MoE or dense by mlp_layer_types
	// (absent: all sparse); experts written one module each.
	std("Mellum", "Mellum", []string{"mellum"},
		cat(sized(llamaDims("128", "", "4", ""), "V", "98304", "H", "2304", "L", "28", "heads", "32", "I", "7168"),
			experts("num_local_experts|num_experts", "64", "moe_intermediate_size", "896", "num_experts_per_tok", "8"),
			[]Def{mltDef, tie("false"), attnBiasFlag}), mlpKind("0"),
		inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")), postNorm,
		when("sparse", router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj")),
		when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-" }),
	// MiniMax-M2: q/k norms over all heads, Mixtral's experts with a
	// sigmoid router's correction bias.
	std("MiniMax-M2", "MiniMaxM2", []string{"minimax_m2"},
		cat(sized(llamaDims("128", "", "8", ""), "V", "200064", "H", "3072", "L", "62", "heads", "48", "I", "1536"),
			expertsI("num_local_experts|num_experts", "256", "num_experts_per_tok", "8"), []Def{tie("false")}), nil,
		inNorm, attn("self_attn.", "", "", qkNorm("self_attn.", "heads*d", "kv*d")), postNorm,
		router("block_sparse_moe.gate.weight"), vecAny("block_sparse_moe.e_score_correction_bias", "E"),
		expertMLPs("block_sparse_moe.experts.", "w1", "w3", "w2")).with(func(f *Family) { f.SeqCls = "-" }),
	// Cohere2-MoE: Cohere's parallel block (one norm), dense prefix
	// layers (mlp_layer_types, else first_k_dense_replace) of
	// prefix_dense_intermediate_size, experts of intermediate_size and
	// num_shared_experts shared ones; tied by default.
	std("Cohere2-MoE", "Cohere2Moe", []string{"cohere2_moe"},
		cat(sized(llamaDims("128", "", "heads", "heads"), "V", "256000", "H", "8192", "L", "40", "heads", "64", "I", "22528"),
			expertsI("num_experts", "8", "num_experts_per_tok", "2"), []Def{
				field("shared", "num_shared_experts", "0", "shared experts (one MLP of shared·I)"),
				{Sym: "Id", Field: "prefix_dense_intermediate_size", Default: "I", Null: "I", Desc: "dense layers' FFN width"},
				field("first_dense", "first_k_dense_replace", "0", "the first k blocks are dense (without mlp_layer_types)"),
				mltDef, tie("true"), attnBiasFlag}), mlpKind("first_dense"),
		inNorm, attn("self_attn.", "attention_bias", "attention_bias"),
		when("sparse", router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"),
			when("shared > 0", sharedExperts("mlp.shared_experts."))),
		when("dense", gatedMLP("mlp.", "Id", ""))).with(func(f *Family) { f.SeqCls = "-" }),
	// Solar Open: GLM-4-MoE's sparse block in every layer (routed and
	// shared experts, a float32 correction bias), q, k, v biased by
	// attention_bias.
	std("Solar-Open", "SolarOpen", []string{"solar_open"},
		cat(withoutDefs(sized(llamaDims("128", "", "8", ""), "V", "196608", "H", "4096", "L", "48", "heads", "64", "I", "0"), "I"),
			deepseekStyle("128", "1280", "8", "1", "0"), []Def{tie("false"), attnBiasFlag}), nil,
		llamaBlock("attention_bias", "", deepseekMoE("true"))).with(func(f *Family) { f.SeqCls = "-" }),
	// EXAONE-MoE: q/k norms, dense then sparse layers (mlp_layer_types,
	// else first_k_dense_replace), shared experts always built
	// (num_shared_experts·Im wide), the correction bias under mlp.
	std("EXAONE-MoE", "ExaoneMoe", []string{"exaone_moe"},
		cat(sized(llamaDims("H/heads", "H/heads", "32", ""), "V", "102400", "H", "4096", "L", "32", "heads", "32", "I", "16384"),
			experts("num_experts", "64", "moe_intermediate_size", "1024", "num_experts_per_tok", "8"), []Def{
				field("shared", "num_shared_experts", "1", "shared experts (one MLP of shared·Im)"),
				field("first_dense", "first_k_dense_replace", "1", "the first k blocks are dense (without mlp_layer_types)"),
				mltDef, tie("false")}), mlpKind("first_dense"),
		inNorm, attn("self_attn.", "", "", qkNorm("self_attn.", "d", "d")), postNorm,
		when("sparse", router("mlp.gate.weight"), vecAny("mlp.e_score_correction_bias", "E"),
			expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), sharedExperts("mlp.shared_experts.")),
		when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`mtp.`} }),
	// AFMoE: gated attention (q/k norms, a sigmoid gate_proj), norms
	// before and after both attention and MLP, num_dense_layers dense
	// layers, then routed experts with an expert bias and shared experts
	// (always built, num_shared_experts·Im wide).
	std("AFMoE", "Afmoe", []string{"afmoe"},
		cat(sized(llamaDims("128", "", "heads", "heads"), "V", "200192", "H", "2048", "L", "32", "heads", "16", "I", "6144"),
			experts("num_experts", "64", "moe_intermediate_size", "1408", "num_experts_per_tok", "6"), []Def{
				field("shared", "num_shared_experts", "2", "shared experts (one MLP of shared·Im)"),
				field("first_dense", "num_dense_layers", "1", "the first k blocks are dense"),
				tie("false"), attnBiasFlag}), []Kind{{Name: "sparse", If: "l >= first_dense"}, {Name: "dense"}},
		inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d"), linear("self_attn.gate_proj", "heads*d", "H", "")),
		postNorm, norm("pre_mlp_layernorm", "H", ""), norm("post_mlp_layernorm", "H", ""),
		when("sparse", router("mlp.router.gate.weight"), vecAny("mlp.expert_bias", "E"),
			expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), sharedExperts("mlp.shared_experts.")),
		when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-" }),
	// Jais 2: LayerNorms with biases, a biased up/down MLP, attention
	// biases (attention_bias, mlp_bias default true).
	(&Family{Name: "Jais2", Class: "Jais2", ModelTypes: []string{"jais2"},
		Defs: cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "150272", "H", "3328", "L", "32", "heads", "26", "I", "26624"),
			[]Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k, v and o projections have biases"),
				flag("mlp_bias", "mlp_bias", "true", "the MLP's projections have biases")}),
		Global: embed("model.embed_tokens.weight"),
		Stacks: decoderLayers(nil, norm("input_layernorm", "H", "true"), attn("self_attn.", "attention_bias", "attention_bias"),
			norm("post_attention_layernorm", "H", "true"), plainMLP("mlp.up_proj", "mlp.down_proj", "I", "mlp_bias")),
		Final: cat(norm("model.norm", "H", "true"), lmHead("lm_head.weight")),
	}).with(func(f *Family) { f.SeqCls = "-" }),
	// Laguna: per-layer query heads (num_attention_heads_per_layer), q/k
	// norms, a softplus output gate per head (gating true) or per
	// channel; dense then sparse layers (mlp_layer_types) with a shared
	// expert and the router's correction bias kept under experts.
	std("Laguna", "Laguna", []string{"laguna"},
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
		when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-" }),
	// MiMo-V2-Flash: sliding-window layers (layer_types, else all but
	// the first and every sixth) have twice the key/value heads and
	// attention sinks; v and o are v_head_dim wide; dense then sparse
	// layers without shared experts.
	std("MiMo-V2-Flash", "MiMoV2Flash", []string{"mimo_v2_flash"},
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
		when("dense", gatedMLP("mlp.", "I", ""))).with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.mtp\.`} }),
	// MiniMax-M3 (its VLM's language model, minimax_m3_vl_text): q/k
	// norms per head, a lightning indexer in "minimax_m3_sparse" layers
	// (layer_types, else sparse_attention_config's sparse_attention_freq),
	// sparse or dense MLPs (mlp_layer_types, else moe_layer_freq, else
	// all sparse): stacked experts of intermediate_size, a router with a
	// correction bias and a fused shared expert; dense layers a fused
	// gate_up of dense_intermediate_size.
	std("MiniMax-M3", "MiniMaxM3VLText", []string{"minimax_m3_vl_text"},
		cat(sized(llamaDims("128", "", "4", ""), "V", "200064", "H", "6144", "L", "60", "heads", "64", "I", "3072"),
			expertsI("num_local_experts|num_experts", "128", "num_experts_per_tok", "4"), []Def{
				opt("Ish", "shared_intermediate_size", "3072"), opt("Id", "dense_intermediate_size", "12288"),
				list("lt", "layer_types", "each layer's attention"),
				list("saf", "sparse_attention_config.sparse_attention_freq", "sparse attention layers (without layer_types)"),
				list("mlf", "moe_layer_freq", "MoE layers (without mlp_layer_types)"),
				opt("ixn", "sparse_attention_config.sparse_num_index_heads|index_n_heads", "4"),
				opt("ixd", "sparse_attention_config.sparse_index_dim|index_head_dim", "128"),
				mltDef, tie("false")}),
		[]Kind{{Name: "sparse", If: "len(mlt) > 0 ? at(mlt, l) == 'sparse' : (len(mlf) > 0 ? in(at(mlf, l), list(1, 'true')) : true)"}, {Name: "dense"}},
		inNorm, attn("self_attn.", "", "", qkNorm("self_attn.", "d", "d")),
		when("len(lt) > 0 ? at(lt, l) == 'minimax_m3_sparse' : (len(saf) > 0 && in(at(saf, l), list(1, 'true')))",
			linear("self_attn.indexer.q_proj", "ixn*ixd", "H", ""), linear("self_attn.indexer.k_proj", "ixd", "H", ""),
			qkNorm("self_attn.indexer.", "ixd", "ixd")),
		postNorm,
		when("sparse", router("mlp.gate.weight"), vecAny("mlp.gate.e_score_correction_bias", "E"),
			stackedExperts("mlp.experts.gate_up_proj", "mlp.experts.down_proj"),
			linear("mlp.shared_experts.gate_up_proj", "2*Ish", "H", ""), linear("mlp.shared_experts.down_proj", "H", "Ish", "")),
		when("dense", linear("mlp.gate_up_proj", "2*Id", "H", ""), linear("mlp.down_proj", "H", "Id", ""))).
		with(func(f *Family) { f.Causal, f.SeqCls, f.Ignore = "MiniMaxM3VLForCausalLM", "-", []string{`(^|\.)mtp\.`} }),
	// Granite-SWA: Granite with attention sinks; tied by default.
	std("Granite-SWA", "GraniteSWA", []string{"granite_swa"},
		cat(sized(llamaDims("H/heads", "H/heads", "4", "heads"), "V", "100352", "H", "2560", "L", "24", "heads", "20", "I", "8192"),
			[]Def{tie("true"), attnBiasFlag, mlpBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias"), vec("self_attn.sinks", "heads"), postNorm,
		gatedMLP("mlp.", "I", "mlp_bias")).with(func(f *Family) { f.SeqCls = "-" }),
	// GraniteMoE-SWA: GraniteMoE's stacked experts and router, attention
	// sinks, a shared MLP where shared_intermediate_size > 0.
	std("GraniteMoE-SWA", "GraniteMoeSWA", []string{"granitemoe_swa"},
		cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "11008"),
			expertsI("num_local_experts", "8", "num_experts_per_tok", "2"), []Def{
				field("Is", "shared_intermediate_size", "0", "shared MLP width (0: none)"), tie("false"), attnBiasFlag}), nil,
		inNorm, attn("self_attn.", "attention_bias", "attention_bias"), vec("self_attn.sinks", "heads"), postNorm,
		router("block_sparse_moe.router.weight"), stackedExperts("block_sparse_moe.experts.gate_up_proj", "block_sparse_moe.experts.down_proj"),
		when("Is > 0", linear("shared_mlp.input_linear", "2*Is", "H", ""), linear("shared_mlp.output_linear", "H", "Is", ""))).
		with(func(f *Family) { f.SeqCls = "-" }),
	// HyperCLOVA X: Llama with post-norms after attention and MLP
	// (use_post_norm).
	std("HyperCLOVAX", "HyperCLOVAX", []string{"hyperclovax"},
		cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "11008"),
			[]Def{tie("false"), attnBiasFlag, mlpBiasFlag, flag("post", "use_post_norm", "true", "norms after attention and MLP")}), nil,
		llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias")),
		when("post", norm("post_norm1", "H", ""), norm("post_norm2", "H", ""))).with(func(f *Family) { f.SeqCls = "-" }),
	// HY-V3: q/k norms, a dense first layer (mlp_layer_types), then
	// routed experts with an expert bias and num_shared_experts shared
	// ones (shared_mlp; none asked for builds one of intermediate_size);
	// a multi-token-prediction layer past the last is ignored on load.
	std("HY-V3", "HYV3", []string{"hy_v3"},
		cat(sized(llamaDims("128", "", "8", ""), "V", "120832", "H", "4096", "L", "80", "heads", "64", "I", "13312"),
			experts("num_experts|num_local_experts", "192", "moe_intermediate_size", "1536", "num_experts_per_tok", "8"), []Def{
				field("shared", "num_shared_experts", "1", "shared experts (one MLP of shared·Im)"),
				mltDef, tie("false"), attnBiasFlag, mlpBiasFlag}), mlpKind("1"),
		inNorm, attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")), postNorm,
		when("sparse", router("mlp.router.gate.weight"), vecAny("mlp.expert_bias", "E"),
			expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"), gatedMLP("mlp.shared_mlp.", "shared > 0 ? shared*Im : I", "mlp_bias")),
		when("dense", gatedMLP("mlp.", "I", "mlp_bias"))).with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.layers\.{L}\.`} }),
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
	std("DeepSeek-V3.2", "DeepseekV32", []string{"deepseek_v32"},
		cat(deepseekDims("129280", "7168", "61", "128", "18432"), mla5Dims("1536", "512", "128", "64", "128"),
			replaceDef(deepseekStyle("256", "2048", "8", "1", "3"), Def{Sym: "E", Field: "num_experts|n_routed_experts", Default: "256", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts}),
			dsaDefs("64", "128"), []Def{mltDef, tie("false"), attnBiasFlag}), mlpKind("first_dense"),
		inNorm, mla, dsaIndexer("self_attn.indexer."), postNorm, when("sparse", mlaMoE5("true")), when("dense", gatedMLP("mlp.", "I", ""))).
		with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.layers\.{L}\.`} }),
	// GLM-MoE-DSA (GLM-5): DeepSeek-V3.2's layout; a layer runs its own
	// indexer where indexer_types says "full" ("shared" reuses the
	// previous one's).
	std("GLM-MoE-DSA", "GlmMoeDsa", []string{"glm_moe_dsa"},
		cat(deepseekDims("154880", "6144", "78", "64", "12288"), mla5Dims("2048", "512", "192", "64", "256"),
			replaceDef(deepseekStyle("256", "2048", "8", "1", "3"), Def{Sym: "E", Field: "num_experts|n_routed_experts", Default: "256", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts}),
			dsaDefs("32", "128"), []Def{mltDef, tie("false"), attnBiasFlag,
				list("ixt", "indexer_types", "each layer's indexer, full or shared"),
				opt("ixfreq", "index_topk_freq", "1"), opt("ixoff", "index_skip_topk_offset", "2")}), mlpKind("first_dense"),
		inNorm, mla, when("len(ixt) > 0 ? at(ixt, l) == 'full' : max(l - ixoff + 1, 0) % max(ixfreq, 1) == 0", dsaIndexer("self_attn.indexer.")),
		postNorm, when("sparse", mlaMoE5("true")), when("dense", gatedMLP("mlp.", "I", ""))).
		with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.layers\.{L}\.`} }),
	// GLM-4.7-Flash (glm4_moe_lite): MLA with GLM-4-MoE's sparse block,
	// the first layer dense (mlp_layer_types).
	std("GLM-4-MoE-Lite", "Glm4MoeLite", []string{"glm4_moe_lite"},
		cat(deepseekDims("154880", "2048", "47", "20", "10240"), mla5Dims("768", "512", "192", "64", "256"),
			deepseekStyle("64", "1536", "4", "1", "1"), []Def{mltDef, tie("false"), attnBiasFlag}), mlpKind("1"),
		inNorm, mla, postNorm, when("sparse", mlaMoE5("true")), when("dense", gatedMLP("mlp.", "I", ""))).
		with(func(f *Family) { f.SeqCls = "-"; f.Ignore = []string{`^model\.layers\.{L}\.`} }),
	// Mistral 4: MLA, DeepSeek's sparse block without a correction bias,
	// its experts stacked ([E, 2·Im, H], [E, H, Im]).
	std("Mistral4", "Mistral4", []string{"mistral4"},
		cat(deepseekDims("131072", "4096", "36", "32", "12288"), mla5Dims("1024", "256", "64", "64", "128"),
			deepseekStyle("128", "2048", "4", "1", "0"), []Def{tie("false"), attnBiasFlag}), []Kind{{Name: "sparse", If: "l >= first_dense"}, {Name: "dense"}},
		inNorm, mla, postNorm,
		when("sparse", router("mlp.gate.weight"), stackedExperts("mlp.experts.gate_up_proj", "mlp.experts.down_proj"), sharedExperts("mlp.shared_experts.")),
		when("dense", gatedMLP("mlp.", "I", ""))),
	// A.X K1: DeepSeek-V3 with a norm after the sparse block's output
	// (post_mlp_layernorm, written at the layer's level).
	std("AXK1", "AXK1", []string{"axk1"},
		cat(deepseekDims("163840", "7168", "61", "64", "18432"), mla5Dims("1536", "512", "128", "64", "128"),
			replaceDef(deepseekStyle("192", "2048", "8", "1", "1"), Def{Sym: "E", Field: "n_routed_experts|num_local_experts", Default: "192", Legend: "E", Desc: "routed experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts}),
			[]Def{tie("false"), attnBiasFlag}), []Kind{{Name: "sparse", If: "l >= first_dense"}, {Name: "dense"}},
		inNorm, mla, postNorm, when("sparse", mlaMoE5("true"), norm("post_mlp_layernorm", "H", "")), when("dense", gatedMLP("mlp.", "I", ""))),
	// Youtu-LLM: MLA with a dense SwiGLU; tied by default.
	std("Youtu", "Youtu", []string{"youtu"},
		cat(deepseekDims("128256", "2048", "32", "16", "6144"), mla5Dims("1536", "512", "128", "64", "128"), []Def{tie("true"), attnBiasFlag}), nil,
		inNorm, mla, postNorm, gatedMLP("mlp.", "I", "")).with(func(f *Family) { f.SeqCls = "-" }),
	// MiniCPM3: MLA (v_head_dim null: H/heads) with a dense SwiGLU
	// (mlp_bias); tied by default.
	std("MiniCPM3", "MiniCPM3", []string{"minicpm3"},
		cat(deepseekDims("73448", "2560", "62", "40", "6400"),
			replaceDef(mla5Dims("768", "256", "64", "32", "H/heads"), Def{Sym: "vd", Field: "v_head_dim", Default: "H/heads", Null: "H/heads", Desc: "per-head v width", Pos: true}),
			[]Def{tie("true"), attnBiasFlag, mlpBiasFlag}), nil,
		inNorm, mla, postNorm, gatedMLP("mlp.", "I", "mlp_bias")),
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
	&Family{Name: "Nemotron-H", Class: "NemotronH", ModelTypes: []string{"nemotron_h"}, SeqCls: "-",
		Defs: cat(trunk("131072", "4096", "", "blocks")[:2], []Def{
			{Sym: "lbt", Field: "layers_block_type|layer_types", Type: List, Default: "empty", Null: "=", Desc: "each block's mixer"},
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
