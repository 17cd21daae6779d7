package spec

// Blocks of the neural audio codecs (EnCodec, Mimi, DAC, …): SEANet's
// convolutional encoder and decoder, whose module lists interleave
// convolutions with parameter-free activations (so a module's index is
// computed from the stage, the residual-block count and the switches),
// convolutions with or without weight norm, and residual vector
// quantizers. The families are in audio_codec.go.

import (
	"fmt"
	"strings"
)

// wnVariant is the older naming of every weight-normed convolution:
// torch before its parametrizations (and the checkpoints converted with
// it, facebook/encodec_24khz's) saves weight_g and weight_v where
// transformers under torch 2.x saves parametrizations.weight.original0
// and original1 (the same shapes); either loads.
var wnVariant = [][][2]string{{{"*.parametrizations.weight.original0", "*.weight_g"}, {"*.parametrizations.weight.original1", "*.weight_v"}}}

// codecConv is a 1-D convolution under pre+"conv." (SEANet wraps each
// nn.Conv1d in a module with its padding): weight [out, in, k] — a
// transposed one's [in, out, k] — stored as weight norm's magnitude
// [dim 0, 1, 1] and direction where the symbol wn holds, its bias where
// bias holds, and a group norm of out channels (pre+"norm.") where gn
// holds. The family defines wn and gn.
func codecConv(pre, out, in, k string, transposed bool, bias string) []T {
	w := []string{out, in, k}
	if transposed {
		w = []string{in, out, k}
	}
	c := pre + "conv."
	ts := []T{{Name: c + "weight", Shape: w, Role: RoleLinear, If: "!wn"},
		{Name: c + "parametrizations.weight.original0", Shape: []string{w[0], "1", "1"}, Role: RoleNorm, If: "wn"},
		{Name: c + "parametrizations.weight.original1", Shape: w, Role: RoleLinear, If: "wn"}}
	if bias != "" {
		ts = append(ts, T{Name: c + "bias", Shape: []string{out}, Role: RoleBias, If: bias})
	}
	return cat(ts, when("gn", norm(pre+"norm", out, "true")))
}

// seanetDefs are SEANet's fields (EnCodec's and Mimi's config names) with
// the class defaults given: the latent width H, the first width F
// (doubling at each downsampling), the upsampling ratios (the decoder's
// order; the encoder takes them reversed), the residual blocks per
// stage, their kernel and compression, the first and last kernels, the
// conv shortcut.
func seanetDefs(hidden, filters, lastKernel, shortcut string) []Def {
	return []Def{
		{Sym: "H", Field: "hidden_size", Default: hidden, Legend: "H", Desc: "latent width", Show: true, Pos: true},
		{Sym: "F", Field: "num_filters", Default: filters, Legend: "F", Desc: "first convolution's width (doubling per stage)", Show: true, Pos: true},
		field("ach", "audio_channels", "1", "audio channels"),
		listOf("ur", "upsampling_ratios", "list(8, 5, 4, 2)", "the decoder's upsampling ratios (the encoder's strides, reversed)"),
		derived("ns", "len(ur)"),
		{Sym: "nres", Field: "num_residual_layers", Default: "1", Desc: "residual blocks per stage", Max: MaxLayers},
		field("k", "kernel_size", "7", "first kernel"),
		field("lk", "last_kernel_size", lastKernel, "last kernel"),
		field("rk", "residual_kernel_size", "3", "residual kernel"),
		field("comp", "compress", "2", "residual blocks' width reduction"),
		flag("sc", "use_conv_shortcut", shortcut, "residual blocks have a 1×1 convolution shortcut"),
		derived("st", "nres+2"),
	}
}

// seanetRes is SEANet's residual block at width w: ELU, conv (w → w/comp,
// kernel rk), ELU, conv (→ w, kernel 1) at block.1 and block.3, and the
// 1×1 shortcut where sc holds.
func seanetRes(w string) []T {
	return cat(codecConv("block.1.", w+"/comp", w, "rk", false, "true"), codecConv("block.3.", w, w+"/comp", "1", false, "true"),
		when("sc", codecConv("shortcut.", w, w, "1", false, "true")))
}

// seanet is SEANet's encoder and decoder module lists (EnCodec's,
// Mimi's) under pre+"encoder.layers." and pre+"decoder.layers.", a stack
// each over the module index: a convolution, per stage nres residual
// blocks, an ELU and the strided convolution (the decoder: ELU, the
// transposed one, the residual blocks), an LSTM of nlstm layers where
// lstm holds (after the encoder's stages, before the decoder's), an ELU
// and the last convolution. The ELUs hold no tensors.
func seanet(pre, lstmCond string) []Stack {
	lstmAt := func(w string) []T { return when("lstm", lstm("lstm.", "nlstm", w, w)) }
	top := "F*pow(2, ns)"
	enc := Stack{Name: "encoder", Prefix: pre + "encoder.layers.{l}.", Layers: fmt.Sprintf("1 + ns*st + ((%s) ? 3 : 2)", lstmCond),
		Kinds: []Kind{{Name: "first", If: "l == 0"},
			{Name: "res", If: "l < 1 + ns*st && (l-1)%st < nres"},
			{Name: "down", If: "l < 1 + ns*st && (l-1)%st == nres+1"},
			{Name: "lstm", If: fmt.Sprintf("(%s) && l == 1 + ns*st", lstmCond)},
			{Name: "last", If: fmt.Sprintf("l == ns*st + ((%s) ? 3 : 2)", lstmCond)}},
		Tensors: cat(when("first", codecConv("", "F", "ach", "k", false, "true")),
			when("res", renameSyms(seanetRes("w"), "w", "(F*pow(2, (l-1)/st))")),
			when("down", codecConv("", "2*F*pow(2, (l-1)/st)", "F*pow(2, (l-1)/st)", "2*at(ur, ns-1-(l-1)/st)", false, "true")),
			renameSyms(lstmAt("w"), "w", top),
			when("last", codecConv("", "H", top, "lk", false, "true")))}
	b := fmt.Sprintf("((%s) ? 2 : 1)", lstmCond)
	s, j := "((l-"+b+")/st)", "((l-"+b+")%st)"
	in := "(F*pow(2, ns-" + s + "))"
	dec := Stack{Name: "decoder", Prefix: pre + "decoder.layers.{l}.", Layers: b + " + ns*st + 2",
		Kinds: []Kind{{Name: "first", If: "l == 0"},
			{Name: "lstm", If: fmt.Sprintf("(%s) && l == 1", lstmCond)},
			{Name: "up", If: fmt.Sprintf("l >= %s && l < %s + ns*st && %s == 1", b, b, j)},
			{Name: "res", If: fmt.Sprintf("l >= %s && l < %s + ns*st && %s >= 2", b, b, j)},
			{Name: "last", If: fmt.Sprintf("l == %s + ns*st + 1", b)}},
		Tensors: cat(when("first", codecConv("", top, "H", "k", false, "true")),
			renameSyms(lstmAt("w"), "w", top),
			when("up", codecConv("", in+"/2", in, "2*at(ur, "+s+")", true, "true")),
			when("res", renameSyms(seanetRes("w"), "w", in+"/2")),
			when("last", codecConv("", "ach", "F", "lk", false, "true")))}
	return []Stack{enc, dec}
}

// snake is a Snake activation's learned frequency under pre: alpha
// [1, w, 1].
func snake(pre, w string) []T {
	return []T{{Name: pre + ".alpha", Shape: []string{"1", w, "1"}, Role: RoleNorm}}
}

// dacResUnits are DAC's three residual units at width w under pre
// (res_unit1..3: Snake, a kernel-7 dilated convolution, Snake, a 1×1
// one, all biased).
func dacResUnits(w string) []T {
	var out []T
	for i := 1; i <= 3; i++ {
		p := fmt.Sprintf("res_unit%d.", i)
		out = append(out, cat(snake(p+"snake1", w), conv1d3(p+"conv1", w, w, "7", "true"), snake(p+"snake2", w), conv1d3(p+"conv2", w, w, "1", "true"))...)
	}
	return out
}

// conv1d3t is a biased transposed 1-D convolution from in to out
// channels: weight [in, out, k], bias [out].
func conv1d3t(name, in, out, k string) []T {
	return []T{{Name: name + ".weight", Shape: []string{in, out, k}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

// wnConv is a weight-normed biased 1-D convolution under name (always
// weight-normed, not by a switch): magnitude [out, 1, 1], direction
// [out, in, k], bias [out].
func wnConv(name, out, in, k string) []T {
	return []T{{Name: name + ".parametrizations.weight.original0", Shape: []string{out, "1", "1"}, Role: RoleNorm},
		{Name: name + ".parametrizations.weight.original1", Shape: []string{out, in, k}, Role: RoleLinear},
		{Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

// waveNet is VITS's WaveNet under pre ("flow.flows.{l}.wavenet."), of n
// layers at width H: weight-normed in_layers (H → 2H, kernel wk) and
// res_skip_layers (→ 2H, the last → H), and the speaker conditioning
// layer where spk (speaker_embedding_size) is not 0. e is bound per
// layer.
func waveNet(pre, n string) []T {
	per := func(ts []T) []T {
		for i := range ts {
			ts[i].Name = pre + strings.Replace(ts[i].Name, "#", "{e}", 1)
			ts[i].Experts, ts[i].PerCopy = n, true
		}
		return ts
	}
	return cat(when("spk != 0", wnConv(pre+"cond_layer", "2*H*("+n+")", "spk", "1")),
		per(wnConv("in_layers.#", "2*H", "H", "wk")), per(wnConv("res_skip_layers.#", "e < ("+n+")-1 ? 2*H : H", "H", "1")))
}

// dacEncoder is DAC's encoder under pre ("encoder."), DacConfig's
// symbols x+E (encoder_hidden_size), x+dr (downsampling_ratios) and x+H
// (the latent width): a kernel-7 convolution to E, a block per ratio
// (three residual units, Snake, a strided convolution doubling the
// width), Snake and a kernel-3 convolution to H. PE-Audio embeds it.
func dacEncoder(pre, x string) ([]T, Stack, []T) {
	ts, st, f := conv1d3(pre+"conv1", "E", "1", "7", "true"),
		Stack{Name: "encoder", Prefix: pre + "block.{l}.", Layers: "len(dr)", Tensors: cat(
			renameSyms(dacResUnits("w"), "w", "(E*pow(2, l))"), snake("snake1", "E*pow(2, l)"),
			conv1d3("conv1", "E*pow(2, l+1)", "E*pow(2, l)", "2*at(dr, l)", "true"))},
		cat(snake(pre+"snake1", "E*pow(2, len(dr))"), conv1d3(pre+"conv2", "H", "E*pow(2, len(dr))", "3", "true"))
	if x == "" {
		return ts, st, f
	}
	pairs := []string{"E", x + "E", "dr", x + "dr", "H", x + "H"}
	return renameSyms(ts, pairs...), renamedStack(st, "DAC encoder", st.Prefix, pairs...), renameSyms(f, pairs...)
}

// dacEncoderDefs are the fields dacEncoder reads, under cfg, symbols
// prefixed x, with the default ratios given (DAC's own, or a model's
// for its DAC encoder).
func dacEncoderDefs(cfg, x, ratios string) []Def {
	return []Def{
		{Sym: x + "E", Field: cfg + "encoder_hidden_size", Default: "64", Legend: x + "E", Desc: "DAC encoder's first width (doubling per block)", Show: true, Pos: true},
		listOf(x+"dr", cfg+"downsampling_ratios", ratios, "the DAC encoder's strides"),
		{Sym: x + "H", Field: cfg + "hidden_size", Default: x + "E*pow(2, len(" + x + "dr))", Null: x + "E*pow(2, len(" + x + "dr))",
			Legend: x + "H", Desc: "DAC latent width", Show: true, Pos: true},
	}
}

// vibeVoiceDefs are VibeVoiceAcousticTokenizerConfig's fields (the
// encoder's and decoder's configs are the same class).
func vibeVoiceDefs() []Def {
	return []Def{
		{Sym: "H", Field: "hidden_size", Default: "64", Legend: "H", Desc: "latent width", Show: true, Pos: true},
		{Sym: "F", Field: "num_filters", Default: "32", Legend: "F", Desc: "first width (doubling per stage)", Show: true, Pos: true},
		field("ch", "channels", "1", "audio channels"),
		field("k", "kernel_size", "7", "the convolutions' kernel"),
		field("x", "ffn_expansion", "4", "the feed-forwards' width multiple"),
		listOf("R", "downsampling_ratios", "list(2, 2, 4, 5, 5, 8)", "the encoder's strides (the decoder's, reversed)"),
		listOf("D", "depths", "list(3, 3, 3, 3, 3, 3, 8)", "ConvNeXt blocks of the stem and of each stage"),
	}
}

// vibeVoiceBlocks are n ConvNeXt-1d blocks at width w under pre
// ("stage."): RMS norms, a depthwise causal convolution mixer, a biased
// x·w feed-forward and the two layer scales.
func vibeVoiceBlocks(pre, n, w string) []T {
	return blocksOf(pre, n, cat(norm("norm", w, ""), conv1d3("mixer.conv", w, "1", "k", "true"), vec("gamma", w),
		norm("ffn_norm", w, ""), linear("ffn.linear1", "x*"+w, w, "true"), linear("ffn.linear2", w, "x*"+w, "true"), vec("ffn_gamma", w)))
}

// vibeVoiceCoder is VibeVoice's acoustic tokenizer encoder (or decoder)
// under pre: a stem (a causal convolution and depths[0] blocks), a
// stage per ratio (a strided convolution doubling the width, or a
// transposed one halving it, and its blocks), a head convolution. The
// decoder reads its depths reversed where rev (the tokenizer model
// builds its decoder from its own config so).
func vibeVoiceCoder(pre string, decoder, rev bool) ([]T, Stack, []T) {
	dep := func(j string) string { return "at(D, " + j + ")" }
	if rev {
		dep = func(j string) string { return "at(D, len(D)-1-(" + j + "))" }
	}
	if !decoder {
		return cat(conv1d3(pre+"stem.conv.conv", "F", "ch", "k", "true"), vibeVoiceBlocks(pre+"stem.stage.", dep("0"), "F")),
			Stack{Name: "encoder", Prefix: pre + "conv_layers.{l}.", Layers: "len(R)", Tensors: cat(
				conv1d3("conv.conv", "F*pow(2, l+1)", "F*pow(2, l)", "2*at(R, l)", "true"), vibeVoiceBlocks("stage.", dep("l+1"), "F*pow(2, l+1)"))},
			conv1d3(pre+"head.conv", "H", "F*pow(2, len(R))", "k", "true")
	}
	top := "F*pow(2, len(D)-1)"
	return cat(conv1d3(pre+"stem.conv.conv", top, "H", "k", "true"), vibeVoiceBlocks(pre+"stem.stage.", dep("0"), top)),
		Stack{Name: "decoder", Prefix: pre + "conv_layers.{l}.", Layers: "len(R)", Tensors: cat(
			conv1d3t("convtr.convtr", "F*pow(2, len(D)-1-l)", "F*pow(2, len(D)-2-l)", "2*at(R, len(R)-1-l)"),
			vibeVoiceBlocks("stage.", dep("l+1"), "F*pow(2, len(D)-2-l)"))},
		conv1d3(pre+"head.conv", "ch", "F", "k", "true")
}
