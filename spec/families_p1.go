package spec

import "slices"

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

// withoutDefs returns defs less the named symbols.
func withoutDefs(defs []Def, syms ...string) []Def {
	var out []Def
	for _, d := range defs {
		if !slices.Contains(syms, d.Sym) {
			out = append(out, d)
		}
	}
	return out
}

var _ = register(
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
	&Family{Name: "Gemma3n-Text", Class: "Gemma3n", ConfigClass: "Gemma3nTextConfig", ModelTypes: []string{"gemma3n_text"}, SeqCls: "-",
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
				{Name: "model.language_model.per_layer_model.language_model_projection.weight", Shape: []string{"L*Hpl", "H"}, Role: RoleLinear}},
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
		Variants: [][][2]string{{{"model.language_model.per_layer_model.language_model_projection.", "model.per_layer_model_projection."},
			{"model.language_model.", "model."}}},
	},
)
