package spec

// Inkling's language model (inkling_text, transformers 5.x): sliding and
// full attention layers of their own head counts, each with relative
// logits and short convolutions, MoE with stacked shared experts.

// inklingText is InklingForCausalLM: every layer has short depthwise
// convolutions before attention and MLP and on k and v; "hybrid_sliding"
// layers (layer_types, else local_layer_ids, else all but every sixth)
// use the swa_* head counts and a relative-logits bank as wide as the
// window, "hybrid" layers the others and rel_extent. MLPs are sparse
// (mlp_layer_types, else from dense_mlp_idx on): a router over routed and
// shared experts with a global scale and a correction bias, stacked
// routed experts and stacked shared experts; dense ones a SwiGLU with a
// global scale. The head is never tied (no tied keys).
func inklingText() *Family {
	attnT := func(h, kv, d, ext string) []T {
		return cat(linear("self_attn.q_proj", h+"*"+d, "H", ""), linear("self_attn.k_proj", kv+"*"+d, "H", ""),
			linear("self_attn.v_proj", kv+"*"+d, "H", ""), linear("self_attn.r_proj", h+"*drel", "H", ""),
			linear("self_attn.o_proj", "H", h+"*"+d, ""),
			[]T{{Name: "self_attn.k_sconv.conv1d.weight", Shape: []string{kv + "*" + d, "1", "K"}, Role: RoleLinear},
				{Name: "self_attn.v_sconv.conv1d.weight", Shape: []string{kv + "*" + d, "1", "K"}, Role: RoleLinear},
				{Name: "self_attn.rel_logits_proj.proj", Shape: []string{"drel", ext}, Role: RoleNorm}},
			norm("self_attn.q_norm", d, ""), norm("self_attn.k_norm", d, ""))
	}
	const sparse = "len(mlt) > 0 ? at(mlt, l) == 'sparse' : l >= dmi"
	f := std("Inkling", "Inkling", []string{"inkling_text"},
		cat(sized(llamaDims("128", "", "8", ""), "V", "201024", "H", "6144", "L", "66", "heads", "64", "I", "24576"), []Def{
			opt("sh", "swa_num_attention_heads", "64"), opt("skv", "swa_num_key_value_heads", "16"), opt("sd", "swa_head_dim", "128"),
			opt("W", "sliding_window_size|sliding_window", "512"), opt("drel", "d_rel", "16"), opt("rext", "rel_extent", "1024"),
			opt("K", "conv_kernel_size|sconv_kernel_size", "4"),
			list("lt", "layer_types", "each layer's attention (absent: local_layer_ids sliding, else all but every sixth)"),
			list("lids", "local_layer_ids", "the sliding-window layers (without layer_types)"),
			mltDef, opt("dmi", "dense_mlp_idx", "0"),
			opt("Im", "moe_intermediate_size", "3072"), opt("E", "n_routed_experts|num_local_experts", "256"),
			{Sym: "ns", Field: "n_shared_experts", Default: "2", Desc: "shared experts"},
			tie("false")}),
		[]Kind{{Name: "sliding", If: "len(lt) > 0 ? at(lt, l) == 'hybrid_sliding' : (len(lids) > 0 ? in(l, lids) : (l+1) % 6 != 0)"}, {Name: "full"}},
		norm("input_layernorm", "H", ""), norm("post_attention_layernorm", "H", ""),
		[]T{{Name: "attn_sconv.conv1d.weight", Shape: []string{"H", "1", "K"}, Role: RoleLinear},
			{Name: "mlp_sconv.conv1d.weight", Shape: []string{"H", "1", "K"}, Role: RoleLinear}},
		when("sliding", attnT("sh", "skv", "sd", "W")), when("full", attnT("heads", "kv", "d", "rext")),
		when(sparse, []T{{Name: "mlp.gate.weight", Shape: []string{"E+ns", "H"}, Role: RoleRouter},
			{Name: "mlp.gate.global_scale", Shape: []string{"1"}, Role: RoleNorm},
			{Name: "mlp.gate.e_score_correction_bias", Shape: []string{"E"}, Role: RoleBias},
			{Name: "mlp.experts.gate_up_proj", Shape: []string{"E", "2*Im", "H"}, Role: RoleLinear},
			{Name: "mlp.experts.down_proj", Shape: []string{"E", "H", "Im"}, Role: RoleLinear}},
			zeroOK([]T{{Name: "mlp.shared_experts.gate_proj", Shape: []string{"ns", "Im", "H"}, Role: RoleLinear},
				{Name: "mlp.shared_experts.up_proj", Shape: []string{"ns", "Im", "H"}, Role: RoleLinear},
				{Name: "mlp.shared_experts.down_proj", Shape: []string{"ns", "H", "Im"}, Role: RoleLinear}})),
		when("!("+sparse+")", gatedMLP("mlp.", "I", ""), vec("mlp.global_scale", "1")))
	f.Global = cat(f.Global, norm("model.embed_norm", "H", ""))
	// InklingModel is the multimodal model's base class, not this one's:
	// inkling_text has no base-model class of its own.
	f.SeqCls, f.Tasks, f.Ignore = "-", noTasks, []string{`^model\.mtp\.`}
	return f
}

var _ = register(inklingText)
