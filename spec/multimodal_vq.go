package spec

import (
	"fmt"
	"strings"
)

// Multimodal models that turn images into tokens with a VQ-GAN image
// tokenizer: Chameleon, Emu3, Janus.

// vqganDefs are a VQ-GAN's config fields under cfg ("vq_config.") with
// the config class's defaults: base channels, the channel multiplier per
// resolution, residual blocks per resolution, latent and codebook sizes.
// Symbols are prefixed vq.
func vqganDefs(cfg string, cm []int, base, nrb, latent, embed, codes string) []Def {
	strs := make([]string, len(cm))
	for i, m := range cm {
		strs[i] = fmt.Sprint(m)
	}
	return []Def{
		{Sym: "vq_base", Field: cfg + "base_channels", Default: base, Desc: "VQ-GAN base channels", Pos: true},
		{Sym: "vq_cm", Field: cfg + "channel_multiplier", Type: List, Default: "empty", Null: "=",
			Desc: "VQ-GAN channel multiplier per resolution (absent: [" + strings.Join(strs, ", ") + "])"},
		// The number of resolutions: the list's length (an empty list is
		// refused: the class would fail), bounded.
		{Sym: "vq_n", Field: cfg + "channel_multiplier", Type: Count, Default: fmt.Sprint(len(cm)), Null: "=", Max: 64, Desc: "VQ-GAN resolutions"},
		{Sym: "vq_nrb", Field: cfg + "num_res_blocks", Default: nrb, Desc: "VQ-GAN residual blocks per resolution", Pos: true},
		opt("vq_in", cfg+"in_channels", "3"), opt("vq_out", cfg+"out_channels", "3"),
		{Sym: "vq_lat", Field: cfg + "latent_channels", Default: latent, Desc: "VQ-GAN latent channels", Pos: true},
		flag("vq_dl", cfg+"double_latent", "false", "the VQ-GAN encoder outputs twice the latent channels"),
		{Sym: "vq_E", Field: cfg + "embed_dim", Default: embed, Legend: "vqE", Desc: "codebook vector width", Show: true, Pos: true},
		{Sym: "vq_K", Field: cfg + "num_embeddings", Default: codes, Legend: "vqK", Desc: "codebook entries (image tokens)", Show: true, Pos: true},
	}
}

// vqgan is a taming-transformers VQ-GAN under pre ("model.vqmodel."):
// an encoder of len(channel_multiplier) resolutions (num_res_blocks
// residual blocks each, attention blocks at the levels attnEnc holds,
// a strided downsample but at the last), a middle block, a codebook, and
// a mirrored decoder (num_res_blocks+1 blocks per level, in reverse
// order; attnDec in terms of the decoder's level index l). A residual
// block whose width changes has a 1×1 nin_shortcut. cm is the class
// default of channel_multiplier.
func vqgan(pre string, cm []int, attnEnc, attnDec string) (global []T, stacks []Stack, final []T) {
	ch := func(i string) string { return "vq_base*" + listAt("vq_cm", i, cm) }
	conv := func(name, out, in, k string) []T {
		return []T{{Name: name + ".weight", Shape: []string{out, in, k, k}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
	}
	gn := func(name, c string) []T { return norm(name, c, "true") }
	// A residual block from in to out channels, and an attention block.
	res := func(pre, in, out, cond string) []T {
		return cat(gn(pre+"norm1", in), conv(pre+"conv1", out, in, "3"), gn(pre+"norm2", out), conv(pre+"conv2", out, out, "3"),
			when("("+in+") != ("+out+") && ("+cond+")", conv(pre+"nin_shortcut", out, in, "1")))
	}
	attnBlock := func(pre, c string) []T {
		return cat(gn(pre+"norm", c), conv(pre+"q", c, c, "1"), conv(pre+"k", c, c, "1"), conv(pre+"v", c, c, "1"), conv(pre+"proj_out", c, c, "1"))
	}
	perBlock := func(ts []T, n string) []T {
		out := append([]T(nil), ts...)
		for i := range out {
			out[i].Experts, out[i].PerCopy = n, true
		}
		return out
	}
	last := ch("vq_n-1")
	mid := func(pre string) []T {
		return cat(res(pre+"mid.block_1.", last, last, "true"), attnBlock(pre+"mid.attn_1.", last), res(pre+"mid.block_2.", last, last, "true"))
	}
	enc, dec := pre+"encoder.", pre+"decoder."
	// Encoder level l: blocks from ch(l-1) (base at l = 0) to ch(l).
	encIn := "(l == 0 ? vq_base : " + ch("l-1") + ")"
	encBlockIn := "(e == 0 ? " + encIn + " : " + ch("l") + ")"
	// Decoder level l is resolution vq_n-1-l: blocks from the previous
	// level's width to ch(vq_n-1-l).
	decIn := "(l == 0 ? " + last + " : " + ch("vq_n-l") + ")"
	decBlockIn := "(e == 0 ? " + decIn + " : " + ch("vq_n-1-l") + ")"
	global = cat(conv(enc+"conv_in", "vq_base", "vq_in", "3"))
	stacks = []Stack{
		{Name: "vq encoder", Prefix: enc + "down.{l}.", Layers: "vq_n", Tensors: cat(
			perBlock(res("block.{e}.", encBlockIn, ch("l"), "e == 0"), "vq_nrb"),
			when(attnEnc, perBlock(attnBlock("attn.{e}.", ch("l")), "vq_nrb")),
			when("l != vq_n-1", conv("downsample.conv", ch("l"), ch("l"), "3")))},
		{Name: "vq decoder", Prefix: dec + "up.{l}.", Layers: "vq_n", Tensors: cat(
			perBlock(res("block.{e}.", decBlockIn, ch("vq_n-1-l"), "e == 0"), "vq_nrb+1"),
			when(attnDec, perBlock(attnBlock("attn.{e}.", ch("vq_n-1-l")), "vq_nrb+1")),
			when("l != vq_n-1", conv("upsample.conv", ch("vq_n-1-l"), ch("vq_n-1-l"), "3")))},
	}
	final = cat(mid(enc), gn(enc+"norm_out", last), conv(enc+"conv_out", "vq_dl ? 2*vq_lat : vq_lat", last, "3"),
		conv(dec+"conv_in", last, "vq_lat", "3"), mid(dec), gn(dec+"norm_out", ch("0")), conv(dec+"conv_out", "vq_out", ch("0"), "3"),
		conv(pre+"quant_conv", "vq_E", "vq_lat", "1"), conv(pre+"post_quant_conv", "vq_lat", "vq_E", "1"),
		[]T{{Name: pre + "quantize.embedding.weight", Shape: []string{"vq_K", "vq_E"}, Role: RoleEmbedding}})
	return global, stacks, final
}

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

// groupNorm is a GroupNorm's scale and bias.
func groupNorm(name, ch string) []T { return norm(name, ch, "true") }

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

// janusCM is JanusVQVAEConfig's default channel_multiplier.
var janusCM = []int{1, 1, 2, 2, 4}

var _ = register(
	func() *Family {
		return func() *Family {
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
		}()
	},
	func() *Family {
		return func() *Family {
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
		}()
	},
	func() *Family {
		return func() *Family {
			vg, vs, vf := vqgan("model.vqmodel.", janusCM, "l == vq_n-1", "l == 0")
			// Janus: a SigLIP-style tower (attention output "projection_layer",
			// optional q/k LayerNorms, FFN of hidden·mlp_ratio) with an MLP
			// aligner of vision_config.depth linears; a VQ-GAN with its own
			// aligner (vq_config.num_hidden_layers linears), generation
			// embeddings and head; the Llama language model under
			// model.language_model.
			return (&vlm{Family: Family{Name: "Janus", Class: "Janus", ModelTypes: []string{"janus"}, Causal: "JanusForConditionalGeneration",
				Defs: cat([]Def{
					vWidth(vcfg, "1024"),
					vLayers(vcfg, "24"),
					{Sym: "vr", Field: "vision_config.mlp_ratio", Type: Milli, Default: "4000", Desc: "vision FFN width ratio in thousandths", Pos: true},
					derived("vI", "vH*vr/1000"),
					vPatch(vcfg, "16"),
					opt("vS", "vision_config.image_size", "384"), opt("vC", "vision_config.num_channels", "3"),
					flag("vbias", "vision_config.attention_bias", "true", "vision q, k, v have biases"),
					flag("vqk", "vision_config.use_qk_norm", "false", "vision q and k LayerNorms"),
					{Sym: "vPj", Field: "vision_config.projection_dim", Default: "2048", Desc: "aligner width", Pos: true},
					{Sym: "vDepth", Field: "vision_config.depth", Default: "2", Desc: "aligner linears", Pos: true},
					{Sym: "gPj", Field: "vq_config.projection_dim", Default: "2048", Desc: "generation aligner and head width", Pos: true},
					{Sym: "gDepth", Field: "vq_config.num_hidden_layers", Default: "2", Desc: "generation aligner linears", Pos: true},
					{Sym: "gIn", Field: "vq_config.image_token_embed_dim", Default: "2048", Desc: "generation head input width", Pos: true},
				}, vqganDefs("vq_config.", janusCM, "128", "2", "256", "8", "16384")),
				Global: cat([]T{{Name: "model.vision_model.embeddings.patch_embedding.weight", Shape: []string{"vH", "vC", "vP", "vP"}, Role: RoleLinear},
					{Name: "model.vision_model.embeddings.patch_embedding.bias", Shape: []string{"vH"}, Role: RoleBias},
					{Name: "model.vision_model.embeddings.position_embedding.weight", Shape: []string{"(vS/vP)*(vS/vP)", "vH"}, Role: RoleEmbedding}}, vg),
				Stacks: cat([]Stack{{Name: "vision", Prefix: "model.vision_model.encoder.layers.{l}.", Layers: "vL", Tensors: renameSyms(cat(
					norm("layer_norm1", "H", "true"),
					linear("self_attn.q_proj", "H", "H", "vbias"), linear("self_attn.k_proj", "H", "H", "vbias"), linear("self_attn.v_proj", "H", "H", "vbias"),
					linear("self_attn.projection_layer", "H", "H", "true"),
					when("vqk", norm("self_attn.q_norm", "H", "true"), norm("self_attn.k_norm", "H", "true")),
					norm("layer_norm2", "H", "true"), plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH")}}, vs),
				Final: cat(norm("model.vision_model.post_layernorm", "vH", "true"),
					linear("model.aligner.fc1", "vPj", "vH", "true"),
					[]T{{Name: "model.aligner.hidden_layers.{e}.weight", Shape: []string{"vPj", "vPj"}, Role: RoleLinear, Experts: "vDepth-1", PerCopy: true},
						{Name: "model.aligner.hidden_layers.{e}.bias", Shape: []string{"vPj"}, Role: RoleBias, Experts: "vDepth-1", PerCopy: true}},
					vf,
					[]T{{Name: "model.generation_embeddings.weight", Shape: []string{"vq_K", "vq_E"}, Role: RoleEmbedding}},
					linear("model.generation_aligner.fc1", "gPj", "vq_E", "true"),
					[]T{{Name: "model.generation_aligner.hidden_layers.{e}.weight", Shape: []string{"gPj", "gPj"}, Role: RoleLinear, Experts: "gDepth-1", PerCopy: true},
						{Name: "model.generation_aligner.hidden_layers.{e}.bias", Shape: []string{"gPj"}, Role: RoleBias, Experts: "gDepth-1", PerCopy: true}},
					linear("model.generation_head.proj_out", "gPj", "gIn", "true"), linear("model.generation_head.vision_head", "vq_K", "gPj", "true")),
			}, text: "llama", reroot: newLM}).register()
		}()
	},
)
