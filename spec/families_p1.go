package spec

import "slices"

// Families of the arch-p1 branch: Zamba2, Gemma 3n (text), Chameleon,
// Emu3, BLT, Evolla, Florence-2. docs/architectures.md lists them.

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
		Defs: cat(trunk("32000", "2560", "54", "blocks"), []Def{
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
		}),
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

// vqDefs are a VQ-GAN image tokenizer's fields under cfg ("vq_config."),
// symbols q…, with ChameleonVQVAEConfig's defaults unless given.
func vqDefs(cfg string, defaults map[string]string) []Def {
	d := func(sym, def string) string {
		if x, ok := defaults[sym]; ok {
			return x
		}
		return def
	}
	return []Def{
		{Sym: "qB", Field: cfg + "base_channels", Default: d("qB", "128"), Legend: "qB", Desc: "VQ-GAN base channels", Show: true, Pos: true},
		{Sym: "qChm", Field: cfg + "channel_multiplier", Type: List, Default: d("qChm", "list(1, 1, 2, 2, 4)"), Desc: "VQ-GAN channels per resolution level, in base channels"},
		{Sym: "qNrb", Field: cfg + "num_res_blocks", Default: d("qNrb", "2"), Desc: "VQ-GAN residual blocks per level", Pos: true},
		opt("qRes", cfg+"resolution", d("qRes", "512")), opt("qIn", cfg+"in_channels", d("qIn", "3")),
		{Sym: "qLat", Field: cfg + "latent_channels", Default: d("qLat", "256"), Desc: "VQ-GAN latent channels", Pos: true},
		flag("qDbl", cfg+"double_latent", "false", "the encoder outputs 2·latent channels"),
		{Sym: "qE", Field: cfg + "embed_dim", Default: d("qE", "256"), Legend: "qE", Desc: "codebook vector width", Show: true, Pos: true},
		{Sym: "qN", Field: cfg + "num_embeddings|" + cfg + "codebook_size", Default: d("qN", "8192"), Legend: "qN", Desc: "codebook entries", Show: true, Pos: true},
		{Sym: "qAttnRes", Field: cfg + "attn_resolutions", Type: List, Default: d("qAttnRes", "empty"), Null: "=", Desc: "resolutions whose levels have attention blocks"},
		derived("qLevels", "len(qChm)"),
		// The channels of level l's input and output, the encoder's last.
		derived("qTop", "qB*at(qChm, qLevels-1)"),
	}
}

// vqResnet is a VQ-GAN residual block under pre ("block.{e}."): group
// norms, two 3×3 convs from in to out channels, a 1×1 shortcut where
// they differ (shortcut, a condition). norm is the norm block (a group
// norm, or Emu3's spatial norm).
func vqResnet(pre, in, out, shortcut string, norm func(name, ch string) []T) []T {
	return cat(norm(pre+"norm1", in), conv(pre+"conv1", out, in, "3", "3"), norm(pre+"norm2", out), conv(pre+"conv2", out, out, "3", "3"),
		when(shortcut, conv(pre+"nin_shortcut", out, in, "1", "1")))
}

// conv is a biased 2-D convolution [out, in, kh, kw].
func conv(name, out, in, kh, kw string) []T {
	return []T{{Name: name + ".weight", Shape: []string{out, in, kh, kw}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

// groupNorm is a GroupNorm's scale and bias.
func groupNorm(name, ch string) []T { return norm(name, ch, "true") }

// perBlock makes ts one copy per residual block of a level: {e} the
// block, e bound in shapes and conditions.
func perBlock(n string, ts []T) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		out[i].Experts, out[i].PerCopy = n, true
	}
	return out
}

// chameleonVQ is Chameleon's VQ-GAN encoder under pre ("model.vqmodel."):
// conv_in, per level qNrb residual blocks (attention blocks at the
// attn_resolutions, with attn_type vanilla) and a strided downsample but
// in the last, a middle of two blocks around an attention block, and
// the quantizer.
func chameleonVQ(pre string) (global []T, stack Stack, final []T) {
	enc := pre + "encoder."
	in := "(e == 0 ? qB*(l == 0 ? 1 : at(qChm, l-1)) : qB*at(qChm, l))"
	out := "qB*at(qChm, l)"
	global = conv(enc+"conv_in", "qB", "qIn", "3", "3")
	stack = Stack{Name: "vqgan", Prefix: enc + "down.{l}.", Layers: "qLevels", Tensors: cat(
		perBlock("qNrb", vqResnet("block.{e}.", in, out, "e == 0 && (l == 0 ? 1 : at(qChm, l-1)) != at(qChm, l)", groupNorm)),
		perBlock("qNrb", when("qVanilla && in(qRes/pow(2, l), qAttnRes)", groupNorm("attn.{e}.norm", out),
			conv("attn.{e}.q", out, out, "1", "1"), conv("attn.{e}.k", out, out, "1", "1"), conv("attn.{e}.v", out, out, "1", "1"),
			conv("attn.{e}.proj_out", out, out, "1", "1"))),
		when("l < qLevels-1", conv("downsample.conv", out, out, "3", "3")),
	)}
	final = cat(vqResnet(enc+"mid.block_1.", "qTop", "qTop", "false", groupNorm),
		when("qVanilla", groupNorm(enc+"mid.attn_1.norm", "qTop"), conv(enc+"mid.attn_1.q", "qTop", "qTop", "1", "1"),
			conv(enc+"mid.attn_1.k", "qTop", "qTop", "1", "1"), conv(enc+"mid.attn_1.v", "qTop", "qTop", "1", "1"),
			conv(enc+"mid.attn_1.proj_out", "qTop", "qTop", "1", "1")),
		vqResnet(enc+"mid.block_2.", "qTop", "qTop", "false", groupNorm),
		groupNorm(enc+"norm_out", "qTop"), conv(enc+"conv_out", "qDbl ? 2*qLat : qLat", "qTop", "3", "3"),
		conv(pre+"quant_conv", "qE", "qLat", "1", "1"), conv(pre+"post_quant_conv", "qLat", "qE", "1", "1"),
		[]T{{Name: pre + "quantize.embedding.weight", Shape: []string{"qN", "qE"}, Role: RoleEmbedding}})
	return global, stack, final
}

var _ = register(func() *Family {
	g, s, f := chameleonVQ("model.vqmodel.")
	// Chameleon: a Llama-like decoder with per-head q/k layer norms
	// (weight and bias [heads, d]) and the VQ-GAN image tokenizer's
	// encoder. swin_norm moves the norms, not the tensors.
	return &Family{Name: "Chameleon", Class: "Chameleon", ModelTypes: []string{"chameleon"}, Causal: "ChameleonForConditionalGeneration", SeqCls: "-",
		Defs: cat(withDefault(withDefault(withDefault(withDefault(withDefault(llamaDimsNoHD("32", "32"), "V", "65536"), "H", "4096"), "L", "32"),
			"heads", "32"), "I", "11008"),
			[]Def{attnBiasFlag, mlpBiasFlag, tie("false")},
			vqDefs("vq_config.", nil),
			[]Def{{Sym: "qType", Field: "vq_config.attn_type", Type: Str, Default: "'vanilla'", Null: "''", Desc: "VQ-GAN attention ('vanilla' or none)"},
				derived("qVanilla", "qType == 'vanilla'")}),
		Global: cat(embed("model.embed_tokens.weight"), g),
		Stacks: []Stack{{Prefix: "model.layers.{l}.", Layers: "L", Tensors: cat(
			norm("input_layernorm", "H", ""),
			attn("self_attn.", "attention_bias", "attention_bias",
				[]T{{Name: "self_attn.q_norm.weight", Shape: []string{"heads", "d"}, Role: RoleNorm}, {Name: "self_attn.q_norm.bias", Shape: []string{"heads", "d"}, Role: RoleBias},
					{Name: "self_attn.k_norm.weight", Shape: []string{"kv", "d"}, Role: RoleNorm}, {Name: "self_attn.k_norm.bias", Shape: []string{"kv", "d"}, Role: RoleBias}}),
			norm("post_attention_layernorm", "H", ""),
			gatedMLP("mlp.", "I", "mlp_bias"))}, s},
		Final: cat(norm("model.norm", "H", ""), lmHead("lm_head.weight"), f),
	}
}())

// spatialNorm is Emu3's spatial norm of ch channels, conditioned on the
// qE-wide quantized codes: a group norm and two 1×1 convs.
func spatialNorm(name, ch string) []T {
	return cat(groupNorm(name+".norm_layer", ch), conv(name+".conv_y", ch, "qE", "1", "1"), conv(name+".conv_b", ch, "qE", "1", "1"))
}

// conv3d is a biased 3-D convolution [out, in, kt, kh, kw].
func conv3d(name, out, in, kt, kh, kw string) []T {
	return []T{{Name: name + ".weight", Shape: []string{out, in, kt, kh, kw}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

// batchNorm3d is a BatchNorm's affine and running statistics.
func batchNorm3d(name, ch string) []T {
	return cat(norm(name, ch, "true"), []T{{Name: name + ".running_mean", Shape: []string{ch}, Role: RoleNorm},
		{Name: name + ".running_var", Shape: []string{ch}, Role: RoleNorm},
		{Name: name + ".num_batches_tracked", Shape: []string{}, Role: RoleNorm, AnyDType: true}})
}

// emu3Attn is Emu3's VQ-GAN attention: q, k, v and out linears of
// vq_config.hidden_size, whatever the channels.
func emu3Attn(pre string) []T {
	return renameSyms(cat(linear(pre+"q_proj", "H", "H", "true"), linear(pre+"k_proj", "H", "H", "true"),
		linear(pre+"v_proj", "H", "H", "true"), linear(pre+"out_proj", "H", "H", "true")), "H", "qH")
}

// emu3Temporal are Emu3's temporal blocks under pre: n temporal convs
// (kernel kt×3×3) and qNrb temporal residual blocks of ch channels.
func emu3Temporal(pre, ch, kt string) []T {
	return cat(perBlock("log2(qTdf)", conv3d(pre+"time_conv.{e}.conv.conv", ch, ch, kt, "3", "3")),
		perBlock("qNrb", cat(batchNorm3d(pre+"time_res_stack.{e}.norm1", ch), conv3d(pre+"time_res_stack.{e}.conv1.conv", ch, ch, "3", "3", "3"),
			batchNorm3d(pre+"time_res_stack.{e}.norm2", ch), conv3d(pre+"time_res_stack.{e}.conv2.conv", ch, ch, "3", "3", "3"))))
}

var _ = register(func() *Family {
	enc, dec := "vqmodel.encoder.", "vqmodel.decoder."
	encOut := "(qDbl ? 2*qLat : qLat)"
	// Emu3: the Emu3 text model under text_model., and a video VQ-GAN
	// (encoder and decoder, attention at the levels attn_resolutions
	// lists, temporal convs and residual blocks, spatial norms in the
	// decoder) under vqmodel.
	return (&vlm{Family: Family{Name: "Emu3", Class: "Emu3", ModelTypes: []string{"emu3"}, Causal: "Emu3ForConditionalGeneration",
		Defs: cat(vqDefs("vq_config.", map[string]string{"qB": "256", "qChm": "list(1, 2, 2, 4)", "qLat": "4", "qE": "4", "qN": "32768", "qAttnRes": "list(3)"}),
			[]Def{opt("qOut", "vq_config.out_channels", "3"), opt("qTdf", "vq_config.temporal_downsample_factor", "4"),
				{Sym: "qH", Field: "vq_config.hidden_size", Default: "1024", Desc: "VQ-GAN attention width", Pos: true}}),
		Global: cat(conv(enc+"conv_in", "qB", "qIn", "3", "3"),
			vqResnet(enc+"middle_block.block_1.", "qTop", "qTop", "false", groupNorm), groupNorm(enc+"middle_block.attn_norm", "qTop"),
			emu3Attn(enc+"middle_block.attn_1."), vqResnet(enc+"middle_block.block_2.", "qTop", "qTop", "false", groupNorm),
			groupNorm(enc+"norm_out", "qTop"), conv(enc+"conv_out", encOut, "qTop", "3", "3"), emu3Temporal(enc, encOut, "4"),
			conv3d("vqmodel.quant_conv.conv", "qE", "qLat", "3", "1", "1"), conv3d("vqmodel.post_quant_conv.conv", "qLat", "qE", "3", "1", "1"),
			[]T{{Name: "vqmodel.quantize.embedding.weight", Shape: []string{"qN", "qE"}, Role: RoleEmbedding}},
			emu3Temporal(dec, "qLat", "3"), conv(dec+"conv_in", "qTop", "qLat", "3", "3"),
			vqResnet(dec+"middle_block.block_1.", "qTop", "qTop", "false", spatialNorm), spatialNorm(dec+"middle_block.attn_norm", "qTop"),
			emu3Attn(dec+"middle_block.attn_1."), vqResnet(dec+"middle_block.block_2.", "qTop", "qTop", "false", spatialNorm),
			spatialNorm(dec+"norm_out", "qB*at(qChm, 0)"), conv(dec+"conv_out", "qOut", "qB*at(qChm, 0)", "3", "3")),
		Stacks: []Stack{
			{Name: "vqgan encoder", Prefix: enc + "down_block.down.{l}.", Layers: "qLevels", Tensors: cat(
				perBlock("qNrb", vqResnet("block.{e}.", "(e == 0 ? qB*(l == 0 ? 1 : at(qChm, l-1)) : qB*at(qChm, l))", "qB*at(qChm, l)",
					"e == 0 && (l == 0 ? 1 : at(qChm, l-1)) != at(qChm, l)", groupNorm)),
				perBlock("qNrb", when("in(l, qAttnRes)", emu3Attn("attn.{e}."), groupNorm("attn_norms.{e}", "qB*at(qChm, l)"))),
				when("l < qLevels-1", conv("downsample.conv", "qB*at(qChm, l)", "qB*at(qChm, l)", "3", "3")))},
			// The decoder's level l runs from the level above's width (the
			// top's, for the top) to its own, in qNrb+1 blocks.
			{Name: "vqgan decoder", Prefix: dec + "up_block.up.{l}.", Layers: "qLevels", Tensors: cat(
				perBlock("qNrb+1", vqResnet("block.{e}.", "(e == 0 ? qB*at(qChm, min(l+1, qLevels-1)) : qB*at(qChm, l))", "qB*at(qChm, l)",
					"e == 0 && at(qChm, min(l+1, qLevels-1)) != at(qChm, l)", spatialNorm)),
				perBlock("qNrb+1", when("in(l, qAttnRes)", emu3Attn("attn.{e}."), spatialNorm("attn_norms.{e}", "qB*at(qChm, l)"))),
				when("l > 0", conv("upsample.conv", "qB*at(qChm, l)", "qB*at(qChm, l)", "3", "3")))},
		},
	}, text: "emu3_text_model", reroot: [][2]string{{"model.", "text_model.model."}, {"lm_head.", "text_model.lm_head."}},
		defaults: map[string]string{"V": "184622", "H": "4096", "L": "32", "heads": "32", "I": "14336"}}).register()
}())

// evollaFF is Evolla's feed-forward under pre: a layer norm and two
// bias-free linears of mult·dim.
func evollaFF(pre, dim, mult string) []T {
	return cat(norm(pre+"norm", dim, "true"), linear(pre+"fc1", mult+"*"+dim, dim, ""), linear(pre+"fc2", dim, mult+"*"+dim, ""))
}

var _ = register(func() *Family {
	pe := "model.protein_encoder.model."
	rs := "model.protein_encoder.sequence_compressor_resampler."
	// Evolla: a Llama decoder whose every (L / aligner_num_add_layers)-th
	// layer adds a gated cross-attention to the protein (its adapter), a
	// SaProt (ESM) protein encoder, and a Perceiver resampler of
	// resampler_num_latents latents into the decoder's width. The SaProt
	// rotary inv_freq buffer is written per layer by transformers 4.x and
	// once by 5.x: both optional.
	return &Family{Name: "Evolla", Class: "Evolla", ModelTypes: []string{"evolla", "EvollaModel"}, Causal: "EvollaForProteinText2Text", SeqCls: "-",
		Defs: cat(withDefault(withDefault(withDefault(withDefault(withDefault(llamaDims("H/heads", "H/heads", "8", "heads"), "V", "128256"), "H", "4096"),
			"L", "32"), "heads", "32"), "I", "14336"),
			[]Def{attnBiasFlag, mlpBiasFlag, tie("false"),
				opt("nadd", "aligner_num_add_layers", "8"), opt("aMult", "aligner_ffn_mult", "4"),
				flag("aBias", "aligner_enable_bias", "true", "the adapters' out projection has a bias"),
				opt("rDepth", "resampler_depth", "6"), opt("rDh", "resampler_dim_head", "64"), opt("rHeads", "resampler_heads", "8"),
				opt("rLat", "resampler_num_latents", "64"), opt("rMult", "resampler_ff_mult", "4"),
				{Sym: "pV", Field: "protein_encoder_config.vocab_size", Default: "446", Desc: "protein tokens", Pos: true},
				{Sym: "pH", Field: "protein_encoder_config.hidden_size", Default: "1280", Legend: "pH", Desc: "protein encoder width", Show: true, Pos: true},
				{Sym: "pL", Field: "protein_encoder_config.num_hidden_layers", Default: "33", Legend: "pL", Desc: "protein encoder layers", Show: true, Pos: true, Max: MaxLayers},
				{Sym: "pHeads", Field: "protein_encoder_config.num_attention_heads", Default: "20", Desc: "protein encoder heads", Pos: true, Divides: "pH"},
				{Sym: "pI", Field: "protein_encoder_config.intermediate_size", Default: "5120", Desc: "protein encoder FFN width", Pos: true},
				opt("pP", "protein_encoder_config.max_position_embeddings", "1026"),
				{Sym: "pPos", Field: "protein_encoder_config.position_embedding_type", Type: Str, Default: "'rotary'", Null: "''", Desc: "protein encoder positions (null: none)"},
				flag("pLNBefore", "protein_encoder_config.emb_layer_norm_before", "false", "the protein embeddings have a layer norm"),
			}),
		Global: cat(embed("model.embed_tokens.weight"),
			[]T{{Name: pe + "embeddings.word_embeddings.weight", Shape: []string{"pV", "pH"}, Role: RoleEmbedding},
				{Name: pe + "embeddings.position_embeddings.weight", Shape: []string{"pP", "pH"}, Role: RoleEmbedding, If: "pPos == 'absolute'"}},
			when("pLNBefore", norm(pe+"embeddings.layer_norm", "pH", "true")),
			[]T{{Name: pe + "rotary_embeddings.inv_freq", Shape: []string{"pH/pHeads/2"}, Role: RoleNorm, AnyDType: true, If: "pPos == 'rotary'", Optional: "true"}}),
		Stacks: []Stack{
			{Prefix: "model.layers.{l}.", Layers: "L", Kinds: []Kind{{Name: "aligned", If: "(l+1) % max(L/nadd, 1) == 0"}, {Name: "plain"}}, Tensors: cat(
				llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias")),
				when("aligned", norm("adapter.attention_norm", "H", ""), linear("adapter.query", "H", "H", "true"),
					linear("adapter.key_protein", "H", "H", "true"), linear("adapter.value_protein", "H", "H", "true"),
					linear("adapter.out_proj", "H", "H", "aBias"), evollaFF("adapter.ff.", "H", "aMult"),
					vec("adapter.gate_attention", "1"), vec("adapter.gate_ffw", "1")))},
			{Name: "protein", Prefix: pe + "encoder.layer.{l}.", Layers: "pL", Tensors: cat(
				renameSyms(cat(linear("attention.self.query", "H", "H", "true"), linear("attention.self.key", "H", "H", "true"),
					linear("attention.self.value", "H", "H", "true")), "H", "pH"),
				[]T{{Name: "attention.self.rotary_embeddings.inv_freq", Shape: []string{"pH/pHeads/2"}, Role: RoleNorm, AnyDType: true, If: "pPos == 'rotary'", Optional: "true"},
					{Name: "attention.self.distance_embedding.weight", Shape: []string{"2*pP-1", "pH/pHeads"}, Role: RoleEmbedding, If: "pPos == 'relative_key' || pPos == 'relative_key_query'"}},
				renameSyms(linear("attention.output.dense", "H", "H", "true"), "H", "pH"), norm("attention.LayerNorm", "pH", "true"),
				renameSyms(cat(linear("intermediate.dense", "pI", "H", "true"), linear("output.dense", "H", "pI", "true")), "H", "pH"),
				norm("LayerNorm", "pH", "true"))},
			{Name: "resampler", Prefix: rs + "layers.{l}.", Layers: "rDepth", Tensors: cat(
				norm("0.norm_media", "pH", "true"), norm("0.norm_latents", "pH", "true"),
				linear("0.to_q", "rHeads*rDh", "pH", ""), linear("0.to_kv", "2*rHeads*rDh", "pH", ""), linear("0.to_out", "pH", "rHeads*rDh", ""),
				evollaFF("1.", "pH", "rMult"))},
		},
		Final: cat(norm(pe+"encoder.emb_layer_norm_after", "pH", "true"),
			[]T{{Name: rs + "latents", Shape: []string{"rLat", "pH"}, Role: RoleEmbedding}},
			norm(rs+"norm", "H", "true"), linear(rs+"protein_projector", "H", "pH", "true"),
			norm("model.norm", "H", ""), lmHead("lm_head.weight")),
	}
}())

// davitBlock is one DaViT block of a stage (stage l, C channels): a
// spatial (window attention) and a channel-attention half, each with
// depthwise 3×3 position convs, layer norms and an MLP of mlp_ratio·C.
func davitBlock(pre string) []T {
	half := func(p, attn string) []T {
		return cat(
			[]T{{Name: p + "conv1.weight", Shape: []string{"C", "1", "3", "3"}, Role: RoleLinear}}, vec(p+"conv1.bias", "C"),
			norm(p+"norm1", "C", "true"), linear(p+attn+".qkv", "3*C", "C", "vQKVBias"), linear(p+attn+".proj", "C", "C", "true"),
			[]T{{Name: p + "conv2.weight", Shape: []string{"C", "1", "3", "3"}, Role: RoleLinear}}, vec(p+"conv2.bias", "C"),
			norm(p+"norm2", "C", "true"), linear(p+"ffn.fc1", "C*vMlp/1000", "C", "true"), linear(p+"ffn.fc2", "C", "C*vMlp/1000", "true"))
	}
	return renameSyms(cat(half(pre+"spatial_block.", "window_attn"), half(pre+"channel_block.", "channel_attn")), "C", "at(vE, l)")
}

var _ = register(func() *Family {
	lm := "model.language_model."
	vt := "model.vision_tower."
	mp := "model.multi_modal_projector."
	layer := func(cross bool, ffn string) []T { return renameSyms(s2sLayer(cross, "true", "true", "true"), "F", ffn) }
	// Florence-2: a DaViT vision tower (per stage a strided conv embedding
	// and depths[stage] blocks of window and channel attention), a
	// projector with learned 2-D and cosine temporal positions, and a BART
	// encoder-decoder (text_config) whose LM head is tied to its shared
	// embedding by default.
	return &Family{Name: "Florence2", Class: "Florence2", ModelTypes: []string{"florence2"}, Causal: "Florence2ForConditionalGeneration", SeqCls: "-",
		Defs: []Def{
			{Sym: "V", Field: "text_config.vocab_size", Default: "50265", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "text_config.d_model", Default: "1024", Legend: "H", Desc: "encoder-decoder width", Show: true, Pos: true},
			{Sym: "Le", Field: "text_config.encoder_layers", Default: "12", Legend: "Le", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "L", Field: "text_config.decoder_layers", Default: "12", Legend: "L", Desc: "decoder layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "Fe", Field: "text_config.encoder_ffn_dim", Default: "4096", Desc: "encoder FFN width", Pos: true},
			{Sym: "Fd", Field: "text_config.decoder_ffn_dim", Default: "4096", Desc: "decoder FFN width", Pos: true},
			opt("P", "text_config.max_position_embeddings", "1024"),
			{Sym: "tied", Field: "tie_word_embeddings|text_config.tie_word_embeddings", Type: Bool, Default: "true", Desc: "lm_head shares the shared embedding's weights"},
			{Sym: "vIn", Field: "vision_config.in_channels", Default: "3", Desc: "image channels", Pos: true},
			{Sym: "vDepths", Field: "vision_config.depths", Type: List, Default: "list(1, 1, 9, 1)", Desc: "DaViT blocks per stage"},
			{Sym: "vE", Field: "vision_config.embed_dim", Type: List, Default: "list(128, 256, 512, 1024)", Desc: "DaViT channels per stage"},
			{Sym: "vPatch", Field: "vision_config.patch_size", Type: List, Default: "list(7, 3, 3, 3)", Desc: "DaViT conv embedding kernels"},
			{Sym: "vPre", Field: "vision_config.patch_prenorm", Type: List, Default: "list(0, 1, 1, 1)", Desc: "DaViT conv embeddings normed before the conv"},
			{Sym: "vMlp", Field: "vision_config.mlp_ratio", Type: Milli, Default: "4000", Desc: "DaViT MLP width per channel (thousandths)"},
			flag("vQKVBias", "vision_config.qkv_bias", "true", "DaViT qkv has a bias"),
			{Sym: "vPj", Field: "vision_config.projection_dim", Default: "1024", Legend: "Pj", Desc: "projector output width", Show: true, Pos: true},
			opt("vPos", "vision_config.max_position_embeddings", "50"), opt("vTemp", "vision_config.max_temporal_embeddings", "100"),
			derived("vStages", "len(vE)"), derived("vTop", "at(vE, vStages-1)"),
		},
		Global: cat([]T{{Name: lm + "shared.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
			{Name: lm + "encoder.embed_positions.weight", Shape: []string{"P+2", "H"}, Role: RoleEmbedding}},
			norm(lm+"encoder.layernorm_embedding", "H", "true"),
			[]T{{Name: lm + "decoder.embed_positions.weight", Shape: []string{"P+2", "H"}, Role: RoleEmbedding}},
			norm(lm+"decoder.layernorm_embedding", "H", "true")),
		Stacks: []Stack{
			{Name: "encoder", Prefix: lm + "encoder.layers.{l}.", Layers: "Le", Tensors: layer(false, "Fe")},
			{Prefix: lm + "decoder.layers.{l}.", Layers: "L", Tensors: layer(true, "Fd")},
			{Name: "vision", Prefix: vt + "convs.{l}.", Layers: "vStages", Tensors: cat(
				conv("conv", "at(vE, l)", "l == 0 ? vIn : at(vE, l-1)", "at(vPatch, l)", "at(vPatch, l)"),
				norm("norm", "at(vPre, l) == 1 ? (l == 0 ? vIn : at(vE, l-1)) : at(vE, l)", "true"))},
			{Name: "vision", Prefix: vt + "blocks.{l}.", Layers: "vStages", Tensors: perBlock("at(vDepths, l)", davitBlock("{e}."))},
		},
		Final: cat(linear(mp+"image_projection", "vPj", "vTop", ""), norm(mp+"image_proj_norm", "vPj", "true"),
			[]T{{Name: mp + "image_position_embed.row_embeddings.weight", Shape: []string{"vPos", "vTop/2"}, Role: RoleEmbedding},
				{Name: mp + "image_position_embed.column_embeddings.weight", Shape: []string{"vPos", "vTop - vTop/2"}, Role: RoleEmbedding},
				{Name: mp + "visual_temporal_embed.pos_idx_to_embed", Shape: []string{"vTemp", "vTop"}, Role: RoleEmbedding, AnyDType: true},
				{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}}),
		Embed: lm + "shared.weight",
	}
}())

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

var _ = register(func() *Family {
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
			{Name: m + "local_encoder.embed_tokens.weight", Shape: []string{"eV", "eH"}, Role: RoleEmbedding}},
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
			[]T{{Name: "lm_head.weight", Shape: []string{"V", "dcH"}, Role: RoleHead, If: "causal", Optional: "tied"}}),
		Embed: m + "local_encoder.embed_tokens.weight",
	}
}())
