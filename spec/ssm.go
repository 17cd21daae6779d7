package spec

// State-space, recurrent and hybrid models: Mamba, RWKV, xLSTM, and the
// hybrids that interleave them with attention.

// zamba2Shared is one of Zamba2's num_mem_blocks shared transformer
// blocks under pre, as the hybrid layer using it holds it: attention on
// the concatenated input and embeddings (AH = 2·H wide), a fused gate-up
// MLP, and per-use LoRA-style adapters: the block's adapter lists have an
// entry at every hybrid index e (0..nh-1) with e % M == its id (the
// others are identities), the attention's only with
// use_shared_attention_adapter.
func zamba2Shared(pre string) []T {
	adapter := func(name, out, in, cond string) []T {
		return []T{
			{Name: pre + name + ".{e}.0.weight", Shape: []string{"r", in}, Role: RoleLinear, Experts: "nh", PerCopy: true, If: cond + "(e % M == hyb % M || v5multi)", Optional: "v5multi"},
			{Name: pre + name + ".{e}.1.weight", Shape: []string{out, "r"}, Role: RoleLinear, Experts: "nh", PerCopy: true, If: cond + "(e % M == hyb % M || v5multi)", Optional: "v5multi"},
		}
	}
	return cat(
		norm(pre+"input_layernorm", "AH", ""),
		linear(pre+"self_attn.q_proj", "heads*d", "AH", ""), linear(pre+"self_attn.k_proj", "kv*d", "AH", ""),
		linear(pre+"self_attn.v_proj", "kv*d", "AH", ""),
		adapter("self_attn.linear_q_adapter_list", "AH", "AH", "attn_adapter && "),
		adapter("self_attn.linear_k_adapter_list", "AH", "AH", "attn_adapter && "),
		adapter("self_attn.linear_v_adapter_list", "AH", "AH", "attn_adapter && "),
		linear(pre+"self_attn.o_proj", "H", "heads*d", ""),
		norm(pre+"pre_ff_layernorm", "H", ""),
		linear(pre+"feed_forward.gate_up_proj", "2*I", "H", "bias"),
		adapter("feed_forward.gate_up_proj_adapter_list", "2*I", "H", ""),
		linear(pre+"feed_forward.down_proj", "H", "I", "bias"),
	)
}

// mambaMixer is Mamba's selective-scan mixer under pre: I inner width, N
// state, K conv kernel, R time-step rank; convBias and projBias are the
// conditions of the conv and in/out projection biases. A_log is kept in
// float32 by transformers 4.x and in the config's dtype by 5.x: its dtype
// is not held to config.json's where anyALog.
func mambaMixer(pre, convBias, projBias string, anyALog bool) []T {
	return cat(
		linear(pre+"in_proj", "2*I", "H", projBias),
		[]T{{Name: pre + "conv1d.weight", Shape: []string{"I", "1", "K"}, Role: RoleLinear}},
		vecIf(pre+"conv1d.bias", "I", convBias),
		[]T{{Name: pre + "x_proj.weight", Shape: []string{"R+2*N", "I"}, Role: RoleLinear}},
		linear(pre+"dt_proj", "I", "R", "true"),
		[]T{{Name: pre + "A_log", Shape: []string{"I", "N"}, Role: RoleNorm, AnyDType: anyALog}},
		vec(pre+"D", "I"),
		linear(pre+"out_proj", "H", "I", projBias),
	)
}

// mamba2Mixer is Mamba2's mixer under pre: I inner width, G groups, N
// state, nh heads, K conv kernel; its conv runs over I + 2·G·N channels.
func mamba2Mixer(pre, convBias, projBias, norm string) []T {
	return mamba2MixerOut(pre, convBias, projBias, projBias, norm)
}

// mamba2MixerOut is mamba2Mixer with the out projection's bias apart.
func mamba2MixerOut(pre, convBias, projBias, outBias, norm string) []T {
	return cat(
		linear(pre+"in_proj", "2*I+2*G*N+nh", "H", projBias),
		[]T{{Name: pre + "conv1d.weight", Shape: []string{"I+2*G*N", "1", "K"}, Role: RoleLinear}},
		vecIf(pre+"conv1d.bias", "I+2*G*N", convBias),
		vec(pre+"dt_bias", "nh"), vec(pre+"A_log", "nh"), vec(pre+"D", "nh"),
		when(norm, vec(pre+"norm.weight", "I")),
		linear(pre+"out_proj", "H", "I", outBias),
	)
}

// mambaDefs are MambaConfig's fields (FalconMambaConfig's are the same):
// intermediate_size is expand·H unless given, time_step_rank ceil(H/16)
// ("auto") unless given.
func mambaDefs(vocab string) []Def {
	return cat(trunk(vocab, "768", "32", "mixer blocks"), []Def{
		opt("expand", "expand", "2"),
		{Sym: "I", Field: "intermediate_size", Default: "expand*H", Legend: "I", Desc: "mixer inner width", Show: true, Pos: true},
		{Sym: "N", Field: "state_size", Default: "16", Legend: "N", Desc: "SSM state per channel", Show: true, Pos: true},
		{Sym: "K", Field: "conv_kernel", Default: "4", Legend: "K", Desc: "causal conv kernel", Show: true, Pos: true},
		{Sym: "R", Field: "time_step_rank", Default: "(H+15)/16", Legend: "R", Desc: "time-step (Δ) projection rank", Show: true, Pos: true},
		flag("use_bias", "use_bias", "false", "in and out projections have biases"),
		flag("use_conv_bias", "use_conv_bias", "true", "the conv has a bias"),
		tie("true"),
	})
}

// mambaFamily is a Mamba's layout, all under backbone.: the embeddings,
// each layer a norm and mixer, norm_f; lm_head.
func mambaFamily(name, class, mt string, defs []Def, mixer []T) *Family {
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, SeqCls: "-",
		Defs:   defs,
		Global: embed("backbone.embeddings.weight"),
		Stacks: []Stack{{Prefix: "backbone.layers.{l}.", Layers: "L", Tensors: cat(norm("norm", "H", ""), mixer)}},
		Final:  cat(norm("backbone.norm_f", "H", ""), lmHead("lm_head.weight")),
		Embed:  "backbone.embeddings.weight",
	}
}

// mamba is Mamba's or FalconMamba's (their configs are the same).
func mamba(name, class, mt string) *Family {
	return mambaFamily(name, class, mt, mambaDefs("50280"), mambaMixer("mixer.", "use_conv_bias", "use_bias", true))
}

// hybridDefs are the fields Bamba, GraniteMoeHybrid and Falcon-H1 share
// (their mamba_* names), with the class's defaults: vocab, hidden, layers,
// heads, kv heads, intermediate, then the Mamba2 mixer's heads and state.
func hybridDefs(v, h, l, heads, kv, i, nh, n string) []Def {
	return cat(trunk(v, h, l, "blocks"), []Def{
		{Sym: "heads", Field: "num_attention_heads", Default: heads, Desc: "query heads", Show: true, Pos: true},
		kvDef("num_key_value_heads", kv, "heads"),
		derived("d", "H/heads"),
		{Sym: "I", Field: "intermediate_size", Default: i, Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
		opt("expand", "mamba_expand", "2"),
		{Sym: "nh", Field: "mamba_n_heads", Default: nh, Desc: "SSM heads", Show: true, Pos: true},
		{Sym: "G", Field: "mamba_n_groups", Default: "1", Legend: "G", Desc: "B/C groups", Show: true, Pos: true},
		{Sym: "N", Field: "mamba_d_state", Default: n, Legend: "N", Desc: "SSM state per head channel", Show: true, Pos: true},
		{Sym: "K", Field: "mamba_d_conv", Default: "4", Legend: "K", Desc: "causal conv kernel", Show: true, Pos: true},
		flag("conv_bias", "mamba_conv_bias", "true", "the conv has a bias"),
		flag("proj_bias", "mamba_proj_bias", "false", "in and out projections have biases"),
		attnBiasFlag,
		tie("false"),
	})
}

// zambaMamba is Zamba's multi-head Mamba mixer under pre: nmh heads of
// Im/nmh channels each, per-head x/dt projections as 3-D parameters.
func zambaMamba(pre string) []T {
	return cat(
		linear(pre+"in_proj", "2*Im", "H", "proj_bias"),
		[]T{{Name: pre + "conv1d.weight", Shape: []string{"Im", "1", "K"}, Role: RoleLinear}}, vecIf(pre+"conv1d.bias", "Im", "conv_bias"),
		[]T{{Name: pre + "x_proj_weight", Shape: []string{"nmh", "R+2*N", "Im/nmh"}, Role: RoleLinear},
			{Name: pre + "dt_proj_weight", Shape: []string{"nmh", "Im/nmh", "R"}, Role: RoleLinear},
			{Name: pre + "dt_proj_bias", Shape: []string{"nmh", "Im/nmh"}, Role: RoleBias},
			{Name: pre + "A_log", Shape: []string{"nmh", "Im/nmh", "N"}, Role: RoleNorm, AnyDType: true},
			{Name: pre + "D", Shape: []string{"nmh", "Im/nmh"}, Role: RoleNorm}},
		linear(pre+"out_proj", "H", "Im", "proj_bias"),
	)
}

var _ = register(
	// xLSTM (transformers' own implementation): num_blocks mLSTM blocks
	// (absent: num_hidden_layers) of width H, each an mLSTM layer (q, k of
	// ⌊H·qk_dim_factor⌋, v and the output gate of ⌊H·v_dim_factor⌋, per-head
	// input and forget gates; fused into two matrices when weight_mode is
	// fused) and a gated FFN of H·ffn_proj_factor rounded up to a multiple;
	// the embeddings are embedding_dim wide (absent: H).

	func() *Family {
		return &Family{Name: "xLSTM", Class: "xLSTM", ModelTypes: []string{"xlstm"}, SeqCls: "-",
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
		}
	},
	// Zamba2: Mamba2 layers, and hybrid layers that run one of
	// num_mem_blocks shared transformer blocks (cycled over the hybrid
	// layers), a linear, and a Mamba2 layer. The blocks' weights are
	// shared: a checkpoint holds each where it is first used (the first
	// num_mem_blocks hybrid layers), the later uses are optional.
	// Zamba2Config 4.x derives the attention widths from hidden_size
	// whatever config.json says (attention_hidden_size,
	// attention_head_dim), 5.x reads them; hybrid_layer_ids come from
	// layers_block_type. 5.x writes the adapters of a block used more
	// than once under other indices (or not at all): with more than one
	// hybrid layer, its adapter entries are optional at any index.
	func() *Family {
		return hybridStd("Zamba2", "Zamba2", []string{"zamba2"}, cat(trunk("32000", "2560", "54", "blocks"), []Def{
			{Sym: "heads", Field: "num_attention_heads", Default: "32", Desc: "query heads of the shared attention", Show: true, Pos: true},
			// 4.x derives the attention widths from hidden_size whatever
			// config.json says; 5.x reads the stored ones.
			{Sym: "AHs", Field: "attention_hidden_size", Default: "2*H", Null: "2*H", Desc: "attention_hidden_size (read by 5.x; 4.x uses 2·H)", Pos: true},
			derived("AH", "tf5 ? AHs : 2*H"),
			{Sym: "ds", Field: "attention_head_dim", Default: "AH/heads", Null: "AH/heads", Desc: "attention_head_dim (read by 5.x; 4.x uses 2·H/heads)", Pos: true},
			derived("d", "tf5 ? ds : AH/heads"),
			kvDef("num_key_value_heads", "heads", "heads"),
			{Sym: "I", Field: "intermediate_size", Default: "4*H", Null: "4*H", Legend: "I", Desc: "shared MLP inner width", Show: true, Pos: true},
			opt("expand", "mamba_expand", "2"), derived("Im", "expand*H"),
			{Sym: "N", Field: "mamba_d_state", Default: "64", Legend: "N", Desc: "SSM state per channel", Show: true, Pos: true},
			{Sym: "K", Field: "mamba_d_conv", Default: "4", Legend: "K", Desc: "causal conv kernel", Show: true, Pos: true},
			opt("G", "mamba_ngroups", "1"),
			{Sym: "nh", Field: "n_mamba_heads", Default: "8", Desc: "Mamba heads", Show: true, Pos: true},
			{Sym: "M", Field: "num_mem_blocks", Default: "1", Desc: "shared transformer blocks, cycled over the hybrid layers", Show: true, Pos: true},
			opt("r", "adapter_rank", "128"),
			flag("bias", "add_bias_linear", "false", "Mamba in/out and shared MLP projections have biases"),
			flag("attn_adapter", "use_shared_attention_adapter", "false", "the shared attention's q, k, v have per-use adapters"),
			list("lbt", "layers_block_type", "each layer's kind (absent: Zamba2Config's 54-layer pattern, hybrid at 6, 12, …, 42, 47, 51)"),
			// The hybrid layers' count over the whole pattern: the adapter
			// lists' length.
			derived("nhyb", "len(lbt) > 0 ? count(lbt, 'hybrid', len(lbt)) : 9"),
			derived("v5multi", "tf5 && nhyb > 1"),
			tie("true"),
		}),
			[]Kind{{Name: "hybrid", If: "len(lbt) > 0 ? at(lbt, l) == 'hybrid' : (l <= 42 ? l > 0 && l % 6 == 0 : l == 47 || l == 51)"}, {Name: "mamba"}},
			when("mamba", norm("input_layernorm", "H", ""), renameSyms(mamba2Mixer("mamba.", "true", "bias", "true"), "I", "Im")),
			when("hybrid", linear("linear", "H", "H", ""), norm("mamba_decoder.input_layernorm", "H", ""),
				renameSyms(mamba2Mixer("mamba_decoder.mamba.", "true", "bias", "true"), "I", "Im")),
			// hyb: the layer's index among the hybrid layers.
			renameSyms(optionalIf("hyb >= M", when("hybrid", zamba2Shared("shared_transformer."))),
				"hyb", "(len(lbt) > 0 ? count(lbt, 'hybrid', l) : (l <= 42 ? l/6 - 1 : (l == 47 ? 7 : 8)))", "nh", "nhyb"),
		)
	},
	func() *Family { return mamba("Mamba", "Mamba", "mamba") },
	func() *Family { return mamba("FalconMamba", "FalconMamba", "falcon_mamba") },
	func() *Family {
		return mambaFamily("Mamba2", "Mamba2", "mamba2", cat(trunk("32768", "4096", "64", "mixer blocks"), []Def{
			opt("expand", "expand", "2"),
			derived("I", "expand*H"),
			{Sym: "nh", Field: "num_heads", Default: "128", Desc: "SSM heads", Show: true, Pos: true},
			{Sym: "G", Field: "n_groups", Default: "8", Legend: "G", Desc: "B/C groups", Show: true, Pos: true},
			{Sym: "N", Field: "state_size", Default: "128", Legend: "N", Desc: "SSM state per head channel", Show: true, Pos: true},
			{Sym: "K", Field: "conv_kernel", Default: "4", Legend: "K", Desc: "causal conv kernel", Show: true, Pos: true},
			flag("use_bias", "use_bias", "false", "in and out projections have biases"),
			flag("use_conv_bias", "use_conv_bias", "true", "the conv has a bias"),
			tie("false"),
		}), mamba2Mixer("mixer.", "use_conv_bias", "use_bias", "true"))
	},
	// Jamba: attention every attn_layer_period-th layer from
	// attn_layer_offset, Mamba elsewhere; MoE every expert_layer_period-th
	// layer from expert_layer_offset when there is more than one expert.
	func() *Family {
		return hybridStd("Jamba", "Jamba", []string{"jamba"}, cat(trunk("65536", "4096", "32", "blocks"), []Def{
			{Sym: "heads", Field: "num_attention_heads", Default: "32", Desc: "query heads", Show: true, Pos: true},
			kvDef("num_key_value_heads", "8", ""),
			derived("d", "H/heads"),
			{Sym: "I", Field: "intermediate_size", Default: "14336", Legend: "I", Desc: "FFN and expert inner width", Show: true, Pos: true},
			derived("Im", "I"),
			{Sym: "E", Field: "num_experts", Default: "16", Legend: "E", Desc: "experts per MoE block", Show: true, Pos: true, Max: MaxExperts},
			opt("ap", "attn_layer_period", "8"), opt("ao", "attn_layer_offset", "4"),
			opt("ep", "expert_layer_period", "2"), opt("eo", "expert_layer_offset", "1"),
			opt("expand", "mamba_expand", "2"),
			derived("Imamba", "expand*H"),
			{Sym: "N", Field: "mamba_d_state", Default: "16", Legend: "N", Desc: "SSM state per channel", Show: true, Pos: true},
			{Sym: "K", Field: "mamba_d_conv", Default: "4", Legend: "K", Desc: "causal conv kernel", Show: true, Pos: true},
			{Sym: "R", Field: "mamba_dt_rank", Default: "(H+15)/16", Legend: "R", Desc: "time-step (Δ) projection rank", Show: true, Pos: true},
			flag("conv_bias", "mamba_conv_bias", "true", "the conv has a bias"),
			flag("proj_bias", "mamba_proj_bias", "false", "in and out projections have biases"),
			tie("false"),
		}),
			[]Kind{
				{Name: "attention_moe", If: "l % ap == ao && E > 1 && l % ep == eo"},
				{Name: "attention", If: "l % ap == ao"},
				{Name: "mamba_moe", If: "E > 1 && l % ep == eo"},
				{Name: "mamba"},
			},
			norm("input_layernorm", "H", ""),
			when("attention_moe || attention", attn("self_attn.", "", "")),
			when("mamba_moe || mamba", renameSyms(mambaMixer("mamba.", "conv_bias", "proj_bias", false), "I", "Imamba"),
				vec("mamba.dt_layernorm.weight", "R"), vec("mamba.b_layernorm.weight", "N"), vec("mamba.c_layernorm.weight", "N")),
			norm("pre_ff_layernorm", "H", ""),
			when("attention_moe || mamba_moe", router("feed_forward.router.weight"), expertMLPs("feed_forward.experts.", "gate_proj", "up_proj", "down_proj")),
			when("attention || mamba", gatedMLP("feed_forward.", "I", "")),
		)
	},
	// Bamba: Mamba2 mixers, attention at attn_layer_indices.
	func() *Family {
		return hybridStd("Bamba", "Bamba", []string{"bamba"}, cat(replaceDef(hybridDefs("128000", "4096", "32", "32", "8", "14336", "128", "256"), kvDef("num_key_value_heads", "8", "")), []Def{
			derived("Is", "expand*H"),
			list("attn_at", "attn_layer_indices", "layers with attention instead of a Mamba2 mixer"),
			// BambaConfig sets mlp_bias = False in its __init__, but a
			// config.json's mlp_bias overrides it (both versions).
			mlpBiasFlag,
		}),
			[]Kind{{Name: "attention", If: "in(l, attn_at)"}, {Name: "mamba"}},
			norm("input_layernorm", "H", ""),
			when("attention", attn("self_attn.", "attention_bias", "attention_bias")),
			when("mamba", renameSyms(mamba2Mixer("mamba.", "conv_bias", "proj_bias", "true"), "I", "Is")),
			norm("pre_ff_layernorm", "H", ""),
			gatedMLP("feed_forward.", "I", "mlp_bias"),
		).with(func(f *Family) { f.SeqCls = "-" })
	},
	// GraniteMoeHybrid: layer_types of mamba and attention (absent: all
	// Mamba2), fused-expert MoE and a shared MLP in every layer.
	func() *Family {
		return std("GraniteMoeHybrid", "GraniteMoeHybrid", []string{"granitemoehybrid"}, cat(hybridDefs("32000", "4096", "32", "32", "heads", "11008", "128", "256"), []Def{
			derived("Is", "expand*H"),
			{Sym: "E", Field: "num_local_experts", Default: "8", Legend: "E", Desc: "experts per MoE block", Show: true, Max: MaxExperts},
			{Sym: "S", Field: "shared_intermediate_size", Default: "1024", Legend: "S", Desc: "shared MLP inner width", Show: true},
			list("lt", "layer_types", "each layer's mixer (absent: all mamba)"),
		}),
			[]Kind{{Name: "attention", If: "len(lt) > 0 && (at(lt, l) == 'attention' || at(lt, l) == 'full_attention')"}, {Name: "mamba"}},
			norm("input_layernorm", "H", ""),
			when("attention", attn("self_attn.", "attention_bias", "attention_bias")),
			when("mamba", renameSyms(mamba2Mixer("mamba.", "conv_bias", "proj_bias", "true"), "I", "Is")),
			norm("post_attention_layernorm", "H", ""),
			when("E > 0", []T{
				{Name: "block_sparse_moe.input_linear.weight", Shape: []string{"E", "2*I", "H"}, Role: RoleLinear},
				{Name: "block_sparse_moe.output_linear.weight", Shape: []string{"E", "H", "I"}, Role: RoleLinear}},
				router("block_sparse_moe.router.layer.weight")),
			when("S > 0", linear("shared_mlp.input_linear", "2*S", "H", ""), linear("shared_mlp.output_linear", "H", "S", "")),
		).with(func(f *Family) { f.SeqCls = "-" })
	},
	// Falcon-H1: attention and a Mamba2 mixer side by side in every layer;
	// the mixer is mamba_d_ssm wide (FalconH1Config's 1024; null:
	// mamba_expand·H). Its attention reads head_dim when config.json has
	// it (every released checkpoint: 64 or 128, not H/heads).
	func() *Family {
		return hybridStd("Falcon-H1", "FalconH1", []string{"falcon_h1"}, cat(replaceDef(hybridDefs("128000", "4096", "32", "32", "8", "14336", "128", "256"),
			Def{Sym: "d", Field: "head_dim", Default: "H/heads", Null: "H/heads", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true}), []Def{
			{Sym: "Is", Field: "mamba_d_ssm", Default: "1024", Null: "expand*H", Legend: "Is", Desc: "mixer inner width", Show: true, Pos: true},
			flag("ssm_norm", "mamba_rms_norm", "false", "the mixer's gated RMS norm has a weight"),
			flag("out_bias", "projectors_bias", "false", "the mixer's out projection has a bias"),
			mlpBiasFlag,
		}),
			nil,
			norm("input_layernorm", "H", ""),
			attn("self_attn.", "attention_bias", "attention_bias"),
			renameSyms(mamba2MixerOut("mamba.", "conv_bias", "proj_bias", "out_bias", "ssm_norm"), "I", "Is"),
			norm("pre_ff_layernorm", "H", ""),
			gatedMLP("feed_forward.", "I", "mlp_bias"),
		).with(func(f *Family) { f.SeqCls = "-" })
	},
	// LFM2: short-convolution and attention layers (layer_types, else
	// full_attn_idxs, else all attention), a SwiGLU whose width is
	// auto-adjusted to 2/3 and rounded up to block_multiple_of (the
	// float block_ffn_dim_multiplier is taken as its usual 1.0).
	func() *Family {
		return &Family{Name: "LFM2", Class: "Lfm2", ModelTypes: []string{"lfm2"}, SeqCls: "-",
			Defs: cat(trunk("65536", "2560", "32", "blocks"), []Def{
				{Sym: "heads", Field: "num_attention_heads", Default: "32", Desc: "query heads", Show: true, Pos: true},
				kvDef("num_key_value_heads", "8", ""),
				derived("d", "H/heads"),
				{Sym: "I", Field: "block_ff_dim|intermediate_size", Default: "12288", Desc: "FFN width before adjustment", Show: true, Pos: true},
				flag("ff_auto", "block_auto_adjust_ff_dim", "true", "the FFN width is 2/3 of it, rounded up"),
				opt("ff_mult", "block_multiple_of", "256"),
				derived("F", "ff_auto ? ff_mult*((2*I/3+ff_mult-1)/ff_mult) : I"),
				{Sym: "Lc", Field: "conv_L_cache", Default: "3", Legend: "Lc", Desc: "short-conv kernel", Show: true, Pos: true},
				flag("conv_bias", "conv_bias", "false", "the short convolutions have biases"),
				list("lt", "layer_types", "each layer's operator"),
				list("attn_at", "full_attn_idxs", "attention layers when layer_types is absent (absent: all)"),
				{Sym: "tied", Field: "tie_word_embeddings|tie_embedding", Type: Bool, Default: "true", Desc: "lm_head shares embed_tokens' weights"},
			}),
			Global: embed("model.embed_tokens.weight"),
			Stacks: decoderLayers([]Kind{
				{Name: "attention", If: "len(lt) > 0 ? at(lt, l) == 'full_attention' : len(attn_at) == 0 || in(l, attn_at)"},
				{Name: "conv"}},
				norm("operator_norm", "H", ""),
				when("attention", linear("self_attn.q_proj", "heads*d", "H", ""), linear("self_attn.k_proj", "kv*d", "H", ""),
					linear("self_attn.v_proj", "kv*d", "H", ""), linear("self_attn.out_proj", "H", "heads*d", ""),
					norm("self_attn.q_layernorm", "d", ""), norm("self_attn.k_layernorm", "d", "")),
				when("conv", linear("conv.in_proj", "3*H", "H", "conv_bias"),
					[]T{{Name: "conv.conv.weight", Shape: []string{"H", "1", "Lc"}, Role: RoleLinear}}, vecIf("conv.conv.bias", "H", "conv_bias"),
					linear("conv.out_proj", "H", "H", "conv_bias")),
				norm("ffn_norm", "H", ""),
				linear("feed_forward.w1", "F", "H", ""), linear("feed_forward.w3", "F", "H", ""), linear("feed_forward.w2", "H", "F", ""),
			),
			Final: cat(norm("model.embedding_norm", "H", ""), lmHead("lm_head.weight")),
		}
	},
	// Qwen3-Next: Gated DeltaNet linear attention and gated full attention
	// (layer_types, else every 4th full), MoE with a gated shared expert.
	func() *Family {
		return std("Qwen3-Next", "Qwen3Next", []string{"qwen3_next"}, cat(llamaDims("256", "", "2", ""),
			experts("num_experts", "512", "moe_intermediate_size", "512", "num_experts_per_tok", "10"),
			[]Def{
				{Sym: "Is", Field: "shared_expert_intermediate_size", Default: "512", Legend: "Is", Desc: "shared expert inner width", Show: true},
				field("step", "decoder_sparse_step", "1", "every step-th block is sparse"),
				list("mlp_only", "mlp_only_layers", "no block is forced dense"),
				list("lt", "layer_types", "each layer's attention (absent: every 4th full)"),
				opt("nk", "linear_num_key_heads", "16"), opt("dk", "linear_key_head_dim", "128"),
				opt("nv", "linear_num_value_heads", "32"), opt("dv", "linear_value_head_dim", "128"),
				opt("K", "linear_conv_kernel_dim", "4"),
				tie("false"), attnBiasFlag,
			}),
			[]Kind{
				{Name: "full_sparse", If: "(len(lt) > 0 ? at(lt, l) == 'full_attention' : (l+1) % 4 == 0) && E > 0 && !in(l, mlp_only) && (l+1) % step == 0"},
				{Name: "full", If: "len(lt) > 0 ? at(lt, l) == 'full_attention' : (l+1) % 4 == 0"},
				{Name: "linear_sparse", If: "E > 0 && !in(l, mlp_only) && (l+1) % step == 0"},
				{Name: "linear"}},
			norm("input_layernorm", "H", ""),
			when("full_sparse || full", linear("self_attn.q_proj", "heads*d*2", "H", "attention_bias"), linear("self_attn.k_proj", "kv*d", "H", "attention_bias"),
				linear("self_attn.v_proj", "kv*d", "H", "attention_bias"), norm("self_attn.q_norm", "d", ""), norm("self_attn.k_norm", "d", ""),
				linear("self_attn.o_proj", "H", "heads*d", "attention_bias")),
			when("linear_sparse || linear",
				linear("linear_attn.in_proj_qkvz", "2*nk*dk+2*nv*dv", "H", ""), linear("linear_attn.in_proj_ba", "2*nv", "H", ""),
				[]T{{Name: "linear_attn.conv1d.weight", Shape: []string{"2*nk*dk+nv*dv", "1", "K"}, Role: RoleLinear}},
				vec("linear_attn.dt_bias", "nv"), vec("linear_attn.A_log", "nv"), norm("linear_attn.norm", "dv", ""),
				linear("linear_attn.out_proj", "H", "nv*dv", "")),
			norm("post_attention_layernorm", "H", ""),
			when("full_sparse || linear_sparse", router("mlp.gate.weight"), expertMLPs("mlp.experts.", "gate_proj", "up_proj", "down_proj"),
				gatedMLP("mlp.shared_expert.", "Is", ""), []T{{Name: "mlp.shared_expert_gate.weight", Shape: []string{"1", "H"}, Role: RoleRouter}}),
			when("full || linear", gatedMLP("mlp.", "I", "")),
		)
	},
	// MiniMax: lightning (linear) attention and full attention by
	// layer_types (absent: even layers full), Mixtral's MoE in every
	// layer. The linear attention's decay tables are persistent buffers.
	func() *Family {
		return std("MiniMax", "MiniMax", []string{"minimax"}, cat(llamaDims("H/heads", "H/heads", "8", "heads"),
			experts("num_local_experts", "8", "intermediate_size", "14336", "num_experts_per_tok", "2")[:1],
			[]Def{derived("Im", "I"), opt("topk", "num_experts_per_tok", "2"), opt("B", "block_size", "256"),
				list("lt", "layer_types", "each layer's attention (absent: even layers full)"), tie("false")}),
			[]Kind{{Name: "full", If: "len(lt) > 0 ? at(lt, l) == 'full_attention' : l % 2 == 0"}, {Name: "linear"}},
			norm("input_layernorm", "H", ""),
			when("full", attn("self_attn.", "", "")),
			when("linear", linear("self_attn.qkv_proj", "3*heads*d", "H", ""), linear("self_attn.output_gate", "heads*d", "H", ""),
				linear("self_attn.out_proj", "H", "heads*d", ""), norm("self_attn.norm", "heads*d", ""),
				[]T{{Name: "self_attn.slope_rate", Shape: []string{"heads", "1", "1"}, Role: RoleNorm, AnyDType: true},
					{Name: "self_attn.query_decay", Shape: []string{"heads", "B", "1"}, Role: RoleNorm, AnyDType: true},
					{Name: "self_attn.key_decay", Shape: []string{"heads", "B", "1"}, Role: RoleNorm, AnyDType: true},
					{Name: "self_attn.diagonal_decay", Shape: []string{"1", "heads", "B", "B"}, Role: RoleNorm, AnyDType: true}}),
			norm("post_attention_layernorm", "H", ""),
			router("block_sparse_moe.gate.weight"), expertMLPs("block_sparse_moe.experts.", "w1", "w3", "w2"),
		)
	},
	// RecurrentGemma (Griffin): RG-LRU recurrent blocks and local
	// attention in the block_types cycle, a biased GeGLU of I/2.
	func() *Family {
		return &Family{Name: "RecurrentGemma", Class: "RecurrentGemma", ModelTypes: []string{"recurrent_gemma"}, SeqCls: "-",
			Defs: cat(trunk("256000", "2560", "26", "blocks"), []Def{
				{Sym: "d", Field: "head_dim", Default: "256", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
				{Sym: "heads", Field: "num_attention_heads", Default: "10", Desc: "query heads (and RG-LRU blocks)", Show: true, Pos: true},
				kvDef("num_key_value_heads", "10", ""),
				{Sym: "I", Field: "intermediate_size", Default: "7680", Legend: "I", Desc: "MLP width (each half: I/2)", Show: true, Pos: true},
				{Sym: "W", Field: "lru_width", Default: "H", Null: "H", Legend: "W", Desc: "recurrence width", Show: true, Pos: true},
				opt("cw", "conv1d_width", "4"),
				list("bt", "block_types", "the block cycle (absent: recurrent, recurrent, attention)"),
				attnBiasFlag,
				tie("true"),
			}),
			Global: embed("model.embed_tokens.weight"),
			Stacks: decoderLayers([]Kind{{Name: "attention", If: "len(bt) > 0 ? at(bt, l % len(bt)) == 'attention' : l % 3 == 2"}, {Name: "recurrent"}},
				norm("temporal_pre_norm", "H", ""),
				when("attention", linear("temporal_block.q_proj", "heads*d", "H", "attention_bias"), linear("temporal_block.k_proj", "kv*d", "H", "attention_bias"),
					linear("temporal_block.v_proj", "kv*d", "H", "attention_bias"), linear("temporal_block.o_proj", "H", "heads*d", "true")),
				when("recurrent", linear("temporal_block.linear_y", "W", "H", "true"), linear("temporal_block.linear_x", "W", "H", "true"),
					linear("temporal_block.linear_out", "H", "W", "true"),
					[]T{{Name: "temporal_block.conv_1d.weight", Shape: []string{"W", "1", "cw"}, Role: RoleLinear}}, vecIf("temporal_block.conv_1d.bias", "W", ""),
					[]T{{Name: "temporal_block.rg_lru.input_gate_weight", Shape: []string{"heads", "W/heads", "W/heads"}, Role: RoleLinear},
						{Name: "temporal_block.rg_lru.input_gate_bias", Shape: []string{"heads", "W/heads"}, Role: RoleBias},
						{Name: "temporal_block.rg_lru.recurrent_gate_weight", Shape: []string{"heads", "W/heads", "W/heads"}, Role: RoleLinear},
						{Name: "temporal_block.rg_lru.recurrent_gate_bias", Shape: []string{"heads", "W/heads"}, Role: RoleBias}},
					vec("temporal_block.rg_lru.recurrent_param", "W")),
				norm("channel_pre_norm", "H", ""),
				gatedMLP("mlp_block.", "I/2", "true"),
			),
			Final: cat(norm("model.final_norm", "H", ""), lmHead("lm_head.weight")),
		}
	},
	// RWKV (v4): time-mix and channel-mix blocks, a LayerNorm before the
	// first block; attention_hidden_size and intermediate_size default to
	// H and 4·H.
	func() *Family {
		return &Family{Name: "RWKV", Class: "Rwkv", ModelTypes: []string{"rwkv"}, SeqCls: "-",
			Defs: cat(trunk("50277", "4096", "32", "blocks"), []Def{
				{Sym: "A", Field: "attention_hidden_size", Default: "H", Null: "H", Legend: "A", Desc: "time-mix width", Show: true, Pos: true},
				{Sym: "I", Field: "intermediate_size", Default: "4*H", Null: "4*H", Legend: "I", Desc: "channel-mix width", Show: true, Pos: true},
				tie("false"),
			}),
			Global: embed("rwkv.embeddings.weight"),
			Stacks: []Stack{{Prefix: "rwkv.blocks.{l}.", Layers: "L", Kinds: []Kind{{Name: "first", If: "l == 0"}, {Name: "rest"}}, Tensors: cat(
				when("first", norm("pre_ln", "H", "true")),
				norm("ln1", "H", "true"), norm("ln2", "H", "true"),
				linear("attention.key", "A", "H", ""), linear("attention.value", "A", "H", ""), linear("attention.receptance", "A", "H", ""),
				linear("attention.output", "H", "A", ""), vec("attention.time_decay", "A"), vec("attention.time_first", "A"),
				[]T{{Name: "attention.time_mix_key", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
					{Name: "attention.time_mix_value", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
					{Name: "attention.time_mix_receptance", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
					{Name: "feed_forward.time_mix_key", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
					{Name: "feed_forward.time_mix_receptance", Shape: []string{"1", "1", "H"}, Role: RoleNorm}},
				linear("feed_forward.key", "I", "H", ""), linear("feed_forward.value", "H", "I", ""), linear("feed_forward.receptance", "H", "H", ""),
			)}},
			Final: cat(norm("rwkv.ln_out", "H", "true"), lmHead("head.weight")),
			Embed: "rwkv.embeddings.weight", Head: "head.weight",
		}
	},
	// Zamba: Mamba layers, and hybrid layers that add one shared attention
	// block (on the concatenated input and embeddings, 2·H wide) and a
	// linear. The shared block's weights are one set, written under one
	// hybrid layer (which one depends on the writer, below).
	func() *Family {
		return hybridStd("Zamba", "Zamba", []string{"zamba"}, cat(trunk("32000", "3712", "76", "blocks"), []Def{
			{Sym: "heads", Field: "num_attention_heads", Default: "16", Desc: "query heads", Show: true, Pos: true},
			kvDef("num_key_value_heads", "heads", "heads"),
			{Sym: "AH", Field: "attention_hidden_size", Default: "2*H", Null: "2*H", Legend: "AH", Desc: "shared attention input width", Show: true, Pos: true},
			{Sym: "d", Field: "attention_head_dim", Default: "AH/heads", Null: "AH/heads", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
			{Sym: "I", Field: "intermediate_size", Default: "14848", Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
			opt("expand", "mamba_expand", "2"), derived("Im", "expand*H"),
			{Sym: "N", Field: "mamba_d_state", Default: "16", Legend: "N", Desc: "SSM state per channel", Show: true, Pos: true},
			{Sym: "K", Field: "mamba_d_conv", Default: "4", Legend: "K", Desc: "causal conv kernel", Show: true, Pos: true},
			{Sym: "R", Field: "mamba_dt_rank", Default: "(H+15)/16", Legend: "R", Desc: "time-step (Δ) projection rank", Show: true, Pos: true},
			{Sym: "nmh", Field: "n_mamba_heads", Default: "2", Desc: "Mamba heads", Show: true, Pos: true},
			opt("ap", "attn_layer_period", "6"), opt("ao", "attn_layer_offset", "4"),
			list("lbt", "layers_block_type", "each layer's kind (absent: layer 2, then every attn_layer_period-th)"),
			flag("conv_bias", "mamba_conv_bias", "true", "the conv has a bias"),
			flag("proj_bias", "mamba_proj_bias", "false", "in and out projections have biases"),
			tie("true"),
		}),
			[]Kind{{Name: "hybrid", If: "len(lbt) > 0 ? at(lbt, l) == 'hybrid' : l == 2 || l >= 3 && (l-3) % ap == ao"}, {Name: "mamba"}},
			when("mamba", norm("input_layernorm", "H", ""), zambaMamba("mamba.")),
			when("hybrid", linear("linear", "H", "H", ""), norm("mamba_decoder.input_layernorm", "H", ""), zambaMamba("mamba_decoder.mamba.")),
			// The shared block's copies are one set: transformers 4.x keeps
			// the copy of the layer whose name sorts last (model.layers.5
			// after model.layers.10), 5.x the first hybrid layer's; without
			// layers_block_type any copy may hold it.
			optionalIf("len(lbt) == 0 || (tf5 ? count(lbt, 'hybrid', l) > 0 : l != lexlast(lbt, 'hybrid'))", when("hybrid", norm("shared_transf.input_layernorm", "AH", ""),
				linear("shared_transf.self_attn.q_proj", "heads*d", "AH", ""), linear("shared_transf.self_attn.k_proj", "kv*d", "AH", ""),
				linear("shared_transf.self_attn.v_proj", "kv*d", "AH", ""), linear("shared_transf.self_attn.o_proj", "H", "heads*d", ""),
				norm("shared_transf.pre_ff_layernorm", "H", ""), gatedMLP("shared_transf.feed_forward.", "I", ""))),
		)
	},
)

var _ = register(olmoHybrid)

// olmoHybrid is OLMo Hybrid (5.x): Gated DeltaNet linear attention in the
// layers layer_types marks "linear_attention" (absent: all but every
// fourth, and the last when there is no fourth), OLMo 3's post-norm full
// attention in the others, a SwiGLU in both. Its norms are saved as the
// original checkpoints name them (attention_layer_norm,
// feedforward_layer_norm), and the fused depthwise conv over q, k and v
// as q_conv1d, k_conv1d, v_conv1d: transformers 5.15 splits it in equal
// thirds when it saves, the original checkpoints by the q, k and v
// widths (both load; T.Alt).
func olmoHybrid() *Family {
	const conv, third = "2*nk*dk+nv*dv", "(2*nk*dk+nv*dv+2)/3"
	convT := func(name, shape, alt string) T {
		return T{Name: "linear_attn." + name + ".weight", Shape: []string{shape, "1", "K"}, Alt: []string{alt, "1", "K"}, Role: RoleLinear}
	}
	f := std("OLMo-Hybrid", "OlmoHybrid", []string{"olmo_hybrid"},
		cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "100352", "H", "3840", "L", "32", "heads", "30", "I", "11008"), []Def{
			list("lt", "layer_types", "each layer's attention (absent: every fourth full, else the last)"),
			opt("nk", "linear_num_key_heads", "heads"), opt("nv", "linear_num_value_heads", "heads"),
			opt("dk", "linear_key_head_dim", "3*H/(4*nk)"), opt("dv", "linear_value_head_dim", "2*dk"),
			opt("K", "linear_conv_kernel_dim", "4"),
			tie("false"), attnBiasFlag}),
		[]Kind{{Name: "full", If: "len(lt) > 0 ? !in(at(lt, l), list('linear_attention', 'mamba', 'conv')) : l % 4 == 3 || L < 4 && l == L-1"}, {Name: "linear"}},
		when("linear", norm("attention_layer_norm", "H", ""),
			linear("linear_attn.q_proj", "nk*dk", "H", ""), linear("linear_attn.k_proj", "nk*dk", "H", ""),
			linear("linear_attn.v_proj", "nv*dv", "H", ""), linear("linear_attn.a_proj", "nv", "H", ""),
			linear("linear_attn.b_proj", "nv", "H", ""), linear("linear_attn.g_proj", "nv*dv", "H", ""),
			linear("linear_attn.o_proj", "H", "nv*dv", ""),
			[]T{convT("q_conv1d", third, "nk*dk"), convT("k_conv1d", third, "nk*dk"), convT("v_conv1d", conv+"-2*("+third+")", "nv*dv")},
			vecAny("linear_attn.A_log", "nv"), vec("linear_attn.dt_bias", "nv"), norm("linear_attn.o_norm", "dv", "")),
		when("full", attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "heads*d", "kv*d")),
			norm("post_feedforward_layernorm", "H", "")),
		norm("feedforward_layer_norm", "H", ""), gatedMLP("mlp.", "I", ""))
	f.SeqCls = "-"
	f.Ignore = []string{`^mtp\.`}
	f.AltNote = "q/k/v_conv1d split by the q, k and v widths, as the original checkpoints are (transformers 5.15's save_pretrained splits the fused conv in equal thirds)"
	return f
}
