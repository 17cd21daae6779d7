package spec

import "slices"

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
