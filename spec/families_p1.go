package spec

// Families of the arch-p1 branch: Zamba2, Gemma 3n (text), Chameleon,
// Emu3, BLT, Evolla, Florence-2. docs/arch-notes-p1.md has the notes.

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
			{Name: pre + name + ".{e}.0.weight", Shape: []string{"r", in}, Role: RoleLinear, Experts: "nh", PerCopy: true, If: cond + "e % M == hyb % M"},
			{Name: pre + name + ".{e}.1.weight", Shape: []string{out, "r"}, Role: RoleLinear, Experts: "nh", PerCopy: true, If: cond + "e % M == hyb % M"},
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

var _ = register(
	// Zamba2: Mamba2 layers, and hybrid layers that run one of
	// num_mem_blocks shared transformer blocks (cycled over the hybrid
	// layers), a linear, and a Mamba2 layer. The blocks' weights are
	// shared: a checkpoint holds each where it is first used (the first
	// num_mem_blocks hybrid layers), the later uses are optional.
	// Zamba2Config derives the attention widths from hidden_size whatever
	// config.json says (attention_hidden_size, attention_head_dim,
	// mamba_headdim), and hybrid_layer_ids from layers_block_type.
	&Family{Name: "Zamba2", Class: "Zamba2", ModelTypes: []string{"zamba2"},
		Defs: []Def{
			{Sym: "V", Field: "vocab_size", Default: "32000", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "hidden_size", Default: "2560", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "54", Legend: "L", Desc: "blocks", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_attention_heads", Default: "32", Desc: "query heads of the shared attention", Show: true, Pos: true},
			derived("AH", "2*H"), derived("d", "AH/heads"),
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
			tie("true"),
		},
		Global: embed("model.embed_tokens.weight"),
		Stacks: []Stack{{Prefix: "model.layers.{l}.", Layers: "L",
			Kinds: []Kind{{Name: "hybrid", If: "len(lbt) > 0 ? at(lbt, l) == 'hybrid' : (l <= 42 ? l > 0 && l % 6 == 0 : l == 47 || l == 51)"}, {Name: "mamba"}},
			Tensors: cat(
				when("mamba", norm("input_layernorm", "H", ""), renameSyms(mamba2Mixer("mamba.", "true", "bias", "true"), "I", "Im")),
				when("hybrid", linear("linear", "H", "H", ""), norm("mamba_decoder.input_layernorm", "H", ""),
					renameSyms(mamba2Mixer("mamba_decoder.mamba.", "true", "bias", "true"), "I", "Im")),
				// hyb: the layer's index among the hybrid layers.
				renameSyms(optionalIf("hyb >= M", when("hybrid", zamba2Shared("shared_transformer."))),
					"hyb", "(len(lbt) > 0 ? count(lbt, 'hybrid', l) : (l <= 42 ? l/6 - 1 : (l == 47 ? 7 : 8)))", "nh", "nhyb"),
			)}},
		Final: cat(norm("model.final_layernorm", "H", ""), lmHead("lm_head.weight")),
	},
)
