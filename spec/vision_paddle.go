package spec

import (
	"encoding/json"
	"fmt"
	"slices"
)

// PaddlePaddle's vision models as transformers 5.x ports them: PP-LCNet
// (a MobileNet-like backbone of depthwise-separable blocks whose per
// stage, per block [kernel, in, out, stride, squeeze-excite] come from
// block_configs). Built from blocks_cnn.go's cbn.

// lcnetOpts says which PP-LCNet: v1 (plain convolution layers) or v3
// (Rep: learnable reparameterization layers of conv_symmetric_num
// branches, a 1×1 branch, an identity BatchNorm where the shape is kept,
// learnable affine blocks).
type lcnetOpts struct {
	Name, Class, MT string
	Rep             bool
	Tasks           []Task
}

// maxRepBranches bounds conv_symmetric_num (a larger one is refused).
const maxRepBranches = 16

// lcnetRep is PP-LCNet v3's learnable reparameterization layer under
// pre: out×in/groups convolutions of side k, stride s.
func lcnetRep(pre, out, in, k, s, groups string) []T {
	layer := func(name, k string) []T {
		return cbn{Conv: "convolution", Norm: "normalization", Out: out, In: in, K: k, Groups: groups}.at(pre + name + ".")
	}
	var br []T
	for i := range maxRepBranches {
		br = cat(br, when(fmt.Sprintf("nb > %d", i), layer(fmt.Sprintf("conv_symmetric.%d", i), k)))
	}
	lab := func(name string) []T {
		return []T{{Name: pre + name + ".scale", Shape: []string{"1"}, Role: RoleNorm}, {Name: pre + name + ".bias", Shape: []string{"1"}, Role: RoleNorm}}
	}
	return cat(when("("+out+") == ("+in+") && ("+s+") == 1", batchNorm(pre+"identity", in)), br,
		when("("+k+") > 1", layer("conv_small_symmetric", "1")), lab("lab"), lab("act.lab"))
}

// lcnetFamily is PP-LCNet: a 3×3 stem of stem_channels, then a stage
// per block_configs entry of depthwise-separable blocks (a depthwise
// kernel×kernel convolution, a squeeze-excite of in/reduction where the
// block's flag says, a pointwise convolution), every width scaled by
// scale and rounded by make_divisible(divisor).
func lcnetFamily(o lcnetOpts) *Family {
	blk := func(i string) string { return "at(at(at(bc, l), e), " + i + ")" }
	sc := func(c string) string { return "makediv((" + c + ")*sc, 1000, dv, dv)" }
	in, out := sc(blk("1")), sc(blk("2"))
	se := zeroOK(when(blk("4"), conv("squeeze_excitation_module.convolutions.0", in+"/rd", in, "1", "1"),
		conv("squeeze_excitation_module.convolutions.2", in, in+"/rd", "1", "1")))
	layer := cat(cbn{Conv: "depthwise_convolution.convolution", Norm: "depthwise_convolution.normalization", Out: in, In: in, Groups: in, K: blk("0")}.at(""),
		se, cbn{Conv: "pointwise_convolution.convolution", Norm: "pointwise_convolution.normalization", Out: out, In: in, K: "1"}.at(""))
	defs := []Def{
		{Sym: "bc", Field: "block_configs", Type: Lists, Default: "list(list(list(3, 16, 32, 1, 0)), list(list(3, 32, 64, 2, 0), list(3, 64, 64, 1, 0)), " +
			"list(list(3, 64, 128, 2, 0), list(3, 128, 128, 1, 0)), list(list(3, 128, 256, 2, 0), list(5, 256, 256, 1, 0), list(5, 256, 256, 1, 0), " +
			"list(5, 256, 256, 1, 0), list(5, 256, 256, 1, 0), list(5, 256, 256, 1, 0)), list(list(5, 256, 512, 2, 1), list(5, 512, 512, 1, 1)))",
			Null: "=", Desc: "each stage's blocks: [kernel, in, out, stride, squeeze-excite]"},
		{Sym: "sc", Field: "scale", Type: Milli, Default: "1000", Legend: "scale", Desc: "width multiplier (×1000)", Show: true, Pos: true},
		{Sym: "dv", Field: "divisor", Default: "8", Desc: "channels round to a multiple of this", Pos: true},
		{Sym: "stem", Field: "stem_channels", Default: "16", Desc: "the stem's width", Pos: true},
		{Sym: "rd", Field: "reduction", Default: "4", Desc: "squeeze-excite reduction", Pos: true},
		{Sym: "X", Field: "class_expand", Default: "1280", Desc: "the classifier's expansion", Pos: true},
		derived("last", sc("at(at(at(bc, len(bc)-1), len(at(bc, len(bc)-1))-1), 2)")),
	}
	if o.Rep {
		layer = cat(lcnetRep("depthwise_convolution.", in, in, blk("0"), blk("3"), in), se, lcnetRep("pointwise_convolution.", out, in, "1", "1", ""))
		defs = replaceDef(defs, Def{Sym: "bc", Field: "block_configs", Type: Lists, Default: "list(list(list(3, 16, 32, 1, 0)), list(list(3, 32, 64, 2, 0), list(3, 64, 64, 1, 0)), " +
			"list(list(3, 64, 128, 2, 0), list(3, 128, 128, 1, 0)), list(list(3, 128, 256, 2, 0), list(5, 256, 256, 1, 0), list(5, 256, 256, 1, 0), " +
			"list(5, 256, 256, 1, 0), list(5, 256, 256, 1, 0)), list(list(5, 256, 512, 2, 1), list(5, 512, 512, 1, 1), list(5, 512, 512, 1, 0), list(5, 512, 512, 1, 0)))",
			Null: "=", Desc: "each stage's blocks: [kernel, in, out, stride, squeeze-excite]"})
		defs = append(defs, Def{Sym: "nb", Field: "conv_symmetric_num", Default: "4", Desc: "convolution branches of each reparameterization layer", Max: maxRepBranches})
	}
	return &Family{Name: o.Name, Class: o.Class, ModelTypes: []string{o.MT}, Causal: "-", SeqCls: "-",
		Defs:   defs,
		Global: cbn{Conv: "convolution", Norm: "normalization", Out: sc("stem"), In: "3", K: "3"}.at("encoder.convolution."),
		Stacks: []Stack{{Name: "stage", Prefix: "encoder.blocks.{l}.", Layers: "len(bc)", Tensors: blocksOf("layers.", "len(at(bc, l))", layer)}},
		Embed:  "encoder.convolution.convolution.weight",
		Tasks:  o.Tasks,
	}
}

var _ = register(
	func() *Family {
		return lcnetFamily(lcnetOpts{Name: "PP-LCNet", Class: "PPLCNet", MT: "pp_lcnet", Tasks: []Task{
			{Suffix: "Backbone", KeepFinal: true},
			// the classifier: a bias-free 1×1 convolution to class_expand, a linear head.
			{Suffix: "ForImageClassification", KeepFinal: true, Labels: true, Head: cat(
				convNB("last_convolution", "X", "last", "1", "1"), when("C > 0", classifier("head", "X")))},
		}})
	},
	func() *Family {
		return lcnetFamily(lcnetOpts{Name: "PP-LCNet v3", Class: "PPLCNetV3", MT: "pp_lcnet_v3", Rep: true, Tasks: []Task{
			{Suffix: "Backbone", KeepFinal: true},
		}})
	},
)

// ocrRecOpts says which PP-OCR text recognizer: its names, the width
// of the backbone's last stage the head reads (In, in the backbone's
// symbols b_…), the head's own fields (beyond hidden_size and
// head_out_channels, whose class defaults are H and V) and the
// recognition class's head.
type ocrRecOpts struct {
	Name, Class, MT string
	H, V            string
	Defs            []Def
	Head            []T
	Backbones       []string // the backbone model_types modelled
}

// bLastRaw is the output width of the last block of a PP-LCNet
// backbone's block_configs, unscaled (PP-OCRv6's heads read it so).
const bLastRaw = "at(at(at(b_bc, len(b_bc)-1), len(at(b_bc, len(b_bc)-1))-1), 2)"

// ocrRecFamily is a PP-OCR text recognizer: a backbone (backbone_config,
// a registered family's Backbone class) and, in the recognition class,
// the head o.Head on its last width.
func ocrRecFamily(o ocrRecOpts) *Family {
	return withBackboneOf(&Family{Name: o.Name, Class: o.Class, ModelTypes: []string{o.MT}, Causal: "-", SeqCls: "-",
		Defs: cat([]Def{
			{Sym: "H", Field: "hidden_size", Default: o.H, Legend: "H", Desc: "the neck's width", Show: true, Pos: true},
			{Sym: "V", Field: "head_out_channels", Default: o.V, Legend: "V", Desc: "characters", Show: true, Pos: true},
		}, o.Defs),
		Embed: "model.backbone.encoder.convolution.convolution.weight", BasePrefix: "model.",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForTextRecognition", Head: o.Head},
		},
	}, "backbone_config.", "model.backbone.", o.Backbones...)
}

// svtrDefs are the fields of an SVTR neck (its depth, MLP ratio, local
// convolution kernel and qkv bias) with the class's default kernel ck.
func svtrDefs(ck string) []Def {
	return []Def{
		{Sym: "L", Field: "depth", Default: "2", Legend: "L", Desc: "the SVTR neck's blocks", Show: true, Max: MaxLayers},
		{Sym: "mr", Field: "mlp_ratio", Type: Milli, Default: "2000", Desc: "FFN width over hidden_size (×1000)"},
		listOf("ck", "conv_kernel_size", ck, "the neck's convolution kernel [height, width]"),
		{Sym: "nck", Field: "conv_kernel_size", Type: Count, Default: "len(" + ck + ")", Null: "=", Desc: "the kernel's dimensions (torch builds one per entry)", Max: maxKernelRank},
		flag("qkv", "qkv_bias", "true", "qkv has a bias"),
	}
}

// ocrConvLayer is PaddleOCR's ConvLayer under pre: a bias-free
// convolution out×in/groups of kh×kw and its BatchNorm.
func ocrConvLayer(pre, out, in, kh, kw, groups string) []T {
	return cbn{Conv: "convolution", Norm: "normalization", Out: out, In: in, K: kh, KW: kw, Groups: groups}.at(pre)
}

// maxKernelRank bounds the entries of conv_kernel_size: a Conv2d given
// a longer kernel builds a weight of one dimension per entry, which
// transformers saves; a longer one is refused.
const maxKernelRank = 8

// ocrKernelLayer is ocrConvLayer of the kernel conv_kernel_size (ck,
// its nck entries), each entry a dimension of the weight.
func ocrKernelLayer(pre, out, in, groups string) []T {
	w := in
	if groups != "" {
		w = "(" + in + ")/(" + groups + ")"
	}
	var ts []T
	for n := 2; n <= maxKernelRank; n++ {
		shape := []string{out, w}
		for i := range n {
			shape = append(shape, fmt.Sprintf("at(ck, %d)", i))
		}
		ts = cat(ts, when(fmt.Sprintf("nck == %d", n), []T{{Name: pre + "convolution.weight", Shape: shape, Role: RoleLinear}}))
	}
	return cat(ts, batchNorm(pre+"normalization", out))
}

// svtrBlocks are the SVTR neck's depth transformer blocks of width H
// under e ("head.encoder.") and its final LayerNorm.
func svtrBlocks(e string) []T {
	return cat(copies("L", under(e+"svtr_block.{e}.", norm("layer_norm1", "H", "true"), norm("layer_norm2", "H", "true"),
		linear("mlp.fc1", "mulpow(H, mr, 1)", "H", "true"), linear("mlp.fc2", "H", "mulpow(H, mr, 1)", "true"),
		linear("self_attn.qkv", "3*H", "H", "qkv"), linear("self_attn.projection", "H", "H", "true"))),
		norm(e+"norm", "H", "true"))
}

// svtrV5Neck is PP-OCRv5's SVTR neck on a backbone of width in:
// convolutions to an eighth of it and to hidden_size, the blocks, back
// to it, a fusion with the input (concatenated: 2·in), then to H.
func svtrV5Neck(e, in string) []T {
	return cat(ocrKernelLayer(e+"conv_block.0.", in+"/8", in, ""), ocrConvLayer(e+"conv_block.1.", "H", in+"/8", "1", "1", ""),
		ocrConvLayer(e+"conv_block.2.", in, "H", "1", "1", ""), ocrKernelLayer(e+"conv_block.3.", in+"/8", "2*"+in, ""),
		ocrConvLayer(e+"conv_block.4.", "H", in+"/8", "1", "1", ""), svtrBlocks(e))
}

var _ = register(
	func() *Family {
		// PP-OCRv5 mobile: the SVTR neck on PP-LCNet v3's scaled last width.
		return ocrRecFamily(ocrRecOpts{Name: "PP-OCRv5 mobile rec", Class: "PPOCRV5MobileRec", MT: "pp_ocrv5_mobile_rec", H: "120", V: "18385",
			Defs: svtrDefs("list(1, 3)"), Backbones: []string{"pp_lcnet_v3"},
			Head: cat(svtrV5Neck("head.encoder.", "b_last"), linear("head.head", "V", "H", "true"))})
	},
	func() *Family {
		// PP-OCRv5 server: the same neck on HGNet-v2's last stage_out_channels.
		return ocrRecFamily(ocrRecOpts{Name: "PP-OCRv5 server rec", Class: "PPOCRV5ServerRec", MT: "pp_ocrv5_server_rec", H: "120", V: "18385",
			Defs: svtrDefs("list(1, 3)"), Backbones: []string{"hgnet_v2"},
			Head: cat(svtrV5Neck("head.encoder.", "at(b_hOut, len(b_hOut)-1)"), linear("head.head", "V", "H", "true"))})
	},
	func() *Family {
		// PP-OCRv6 small: a residual SVTR neck (a 1×1 skip convolution,
		// a 1×1 reduction, a depthwise local convolution) on the
		// backbone's unscaled last width.
		const e = "head.encoder."
		return ocrRecFamily(ocrRecOpts{Name: "PP-OCRv6 small rec", Class: "PPOCRV6SmallRec", MT: "pp_ocrv6_small_rec", H: "120", V: "18714",
			Defs: svtrDefs("list(1, 7)"), Backbones: []string{"pp_lcnet_v4"},
			Head: cat(ocrConvLayer(e+"conv_block.0.", "H", bLastRaw, "1", "1", ""), ocrConvLayer(e+"conv_block.1.", "H", bLastRaw, "1", "1", ""),
				ocrKernelLayer(e+"conv_block.2.", "H", "H", "H"), svtrBlocks(e), linear("head.head", "V", "H", "true"))})
	},
	func() *Family {
		// PP-OCRv6 tiny: a depthwise 1-D convolution of 5, a pointwise
		// one (bias-free, each with its BatchNorm), two linear layers.
		return ocrRecFamily(ocrRecOpts{Name: "PP-OCRv6 tiny rec", Class: "PPOCRV6TinyRec", MT: "pp_ocrv6_tiny_rec", H: "120", V: "6625",
			Backbones: []string{"pp_lcnet_v4"},
			Head: cat(conv1d3("head.conv1", bLastRaw, "1", "5", "false"), batchNorm("head.norm1", bLastRaw),
				conv1d3("head.conv2", bLastRaw, bLastRaw, "1", "false"), batchNorm("head.norm2", bLastRaw),
				linear("head.fc1", "H", bLastRaw, "true"), linear("head.fc2", "V", "H", "true"))})
	},
)

// lcnetV4Family is PP-LCNet v4 (PPLCNetV4Backbone): a large stem (five
// convolution layers, each with a learnable affine block where
// use_learnable_affine_block) or a small one (two), then a stage per
// block_configs entry of RepViT-like blocks (a depthwise token
// convolution, biased and norm-free where it keeps the shape, an optional
// squeeze-excite, two 1×1 channel convolutions through twice the width).
func lcnetV4Family() *Family {
	blk := func(i string) string { return "at(at(at(bc, l), e), " + i + ")" }
	in, out, k, s := blk("1"), blk("2"), blk("0"), blk("3")
	cl := func(pre, out, in, k string, act bool, groups string) []T {
		ts := cbn{Conv: "convolution", Norm: "normalization", Out: out, In: in, K: k, Groups: groups}.at(pre)
		if act {
			ts = cat(ts, when("lab", []T{{Name: pre + "lab.scale", Shape: []string{"1"}, Role: RoleNorm}, {Name: pre + "lab.bias", Shape: []string{"1"}, Role: RoleNorm}}))
		}
		return ts
	}
	keep := "(" + in + ") == (" + out + ") && (" + s + ") == 1"
	layer := cat(
		when(keep, []T{{Name: "token_conv.weight", Shape: []string{out, "1", k, k}, Role: RoleLinear}, {Name: "token_conv.bias", Shape: []string{out}, Role: RoleBias}}),
		when("!("+keep+")", cl("token_conv.", in, in, k, false, in)),
		zeroOK(when(blk("4"), conv("token_squeeze_excitation.convolutions.0", in+"/rd", in, "1", "1"),
			conv("token_squeeze_excitation.convolutions.2", in, in+"/rd", "1", "1"))),
		cl("channel_conv1.", "2*"+in, in, "1", false, ""), cl("channel_conv2.", out, "2*"+in, "1", false, ""))
	st := func(i string) string { return "at(stc, " + i + ")" }
	const p = "encoder.convolution."
	return &Family{Name: "PP-LCNet v4", Class: "PPLCNetV4", ModelTypes: []string{"pp_lcnet_v4"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "bc", Field: "block_configs", Type: Lists, Default: "list(list(list(3, 96, 96, 1, 1)), list(list(3, 96, 96, 1, 0), list(3, 96, 96, 1, 0)), " +
				"list(list(3, 96, 192, list(2, 1), 0), list(3, 192, 192, 1, 1), list(3, 192, 192, 1, 0), list(3, 192, 192, 1, 1), list(3, 192, 192, 1, 0), list(3, 192, 192, 1, 1), list(3, 192, 192, 1, 0)), " +
				"list(list(3, 192, 384, list(2, 1), 0), list(3, 384, 384, 1, 1), list(3, 384, 384, 1, 0)))",
				Null: "=", Desc: "each stage's blocks: [kernel, in, out, stride, squeeze-excite]"},
			listOf("stc", "stem_channels", "list(3, 48, 96)", "the stem's widths"),
			{Sym: "stt", Field: "stem_type", Type: Str, Default: "'large'", Desc: "the stem: large or small"},
			{Sym: "rd", Field: "reduction", Default: "4", Desc: "squeeze-excite reduction", Pos: true},
			flag("lab", "use_learnable_affine_block", "false", "learnable affine blocks in the stem"),
		},
		Global: cat(
			when("stt == 'large'", cl(p+"stem1.", st("1"), st("0"), "3", true, ""), cl(p+"stem2a.", st("1")+"/2", st("1"), "2", true, ""),
				cl(p+"stem2b.", st("1"), st("1")+"/2", "2", true, ""), cl(p+"stem3.", st("1"), "2*"+st("1"), "3", true, ""),
				cl(p+"stem4.", st("2"), st("1"), "1", true, "")),
			when("stt != 'large'", cl(p+"conv1.", st("1"), st("0"), "3", false, ""), cl(p+"conv2.", st("2"), st("1"), "3", false, ""))),
		Stacks: []Stack{{Name: "stage", Prefix: "encoder.blocks.{l}.", Layers: "len(bc)", Tensors: blocksOf("blocks.", "len(at(bc, l))", layer)}},
		Embed:  "encoder.blocks.0.blocks.0.channel_conv1.convolution.weight",
		Tasks:  []Task{{Suffix: "Backbone", KeepFinal: true}},
	}
}

var _ = register(lcnetV4Family)

// withBackboneOf is withBackbone for a head modelled only on the
// backbones of the given model_types (its widths read their symbols):
// any other backbone is not modelled (exit 3).
func withBackboneOf(f *Family, cfg, pre string, types ...string) *Family {
	g := withBackbone(f, cfg, pre)
	inner := g.compose
	g.compose = func(c *Config) (*Family, error) {
		if raw, ok := c.lookup(cfg + "model_type"); ok {
			var mt string
			if json.Unmarshal(raw, &mt) == nil && !slices.Contains(types, mt) {
				return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
					Reason: fmt.Sprintf("its head on a %smodel_type %q backbone is not modelled", cfg, mt)}
			}
		}
		return inner(c)
	}
	return g
}

// ocrDetOpts says which PP-OCR text detector: v5's neck (a projection
// of each backbone output to layer_list_out_channels, residual
// squeeze-excite input convolutions) or v6's (none, depthwise-separable
// input convolutions of dilated_kernel_size), on the backbones named.
type ocrDetOpts struct {
	Name, Class, MT string
	V6              bool
	Backbones       []string
}

// lcnetStageWidth is what a PP-LCNet Backbone's num_features says of
// stage i (0 the stem, negative from the end): stem_channels, or the
// stage's last block's output width times scale, truncated.
func lcnetStageWidth(i string) string {
	j := "((" + i + ") < 0 ? (" + i + ") + len(b_bc) + 1 : (" + i + "))"
	last := "at(at(b_bc, " + j + "-1), len(at(b_bc, " + j + "-1))-1)"
	return "(" + j + " == 0 ? b_stem : mulpow(at(" + last + ", 2), b_sc, 1))"
}

// ocrSqueeze is PP-OCR's detection-neck squeeze-excite under pre on
// width c: two biased 1×1 convolutions through c/reduction.
func ocrSqueeze(pre, c string) []T {
	return zeroOK(cat(conv(pre+"conv1", "("+c+")/rd", c, "1", "1"), conv(pre+"conv2", c, "("+c+")/rd", "1", "1")))
}

// ocrDetFamily is a PP-OCR text detector (DB): the backbone, the neck
// fusing four scales into neck_out_channels, and in the detection class
// the head (a convolution to a quarter of it, two transposed
// convolutions up to one probability map, of kernel_list's sides).
func ocrDetFamily(o ocrDetOpts) *Family {
	const n = "model.neck."
	q := "N/4"
	neck := copies("len(llo)", convNB(n+"insert_conv.{e}.in_conv", "N", "at(llo, e)", "1", "1"),
		ocrSqueeze(n+"insert_conv.{e}.squeeze_excitation_block.", "N"))
	defs := []Def{
		{Sym: "N", Field: "neck_out_channels", Default: "96", Legend: "N", Desc: "the neck's width", Show: true},
		{Sym: "rd", Field: "reduction", Default: "4", Desc: "squeeze-excite reduction", Pos: true},
		listOf("kl", "kernel_list", "list(3, 2, 2)", "the head's kernel sides"),
		listOf("llo", "layer_list_out_channels", "list(12, 18, 42, 360)", "the neck's input widths"),
	}
	proj := func(string) []T { return nil }
	if o.V6 {
		defs = append(defs, Def{Sym: "dk", Field: "dilated_kernel_size", Default: "7", Desc: "the neck's depthwise kernel side"})
		neck = cat(neck, copies("len(llo)", conv(n+"input_conv.{e}.depthwise_convolution", "N", "1", "dk", "dk"),
			convNB(n+"input_conv.{e}.pointwise_convolution", q, "N", "1", "1"),
			ocrSqueeze(n+"input_conv.{e}.squeeze_excitation_module.", q)))
	} else {
		defs = append(defs, listOf("bOut", "backbone_config.out_indices", "list(0 - 1)", "the backbone stages the neck reads (default: the last)"))
		// the projections read the backbone's symbols: in the task
		// classes, which are compiled with the backbone.
		proj = func(pre string) []T {
			return copies("len(bOut)", conv(pre+"layer.{e}", "at(llo, e)", lcnetStageWidth("at(bOut, e)"), "1", "1"))
		}
		neck = cat(neck, copies("len(llo)", convNB(n+"input_conv.{e}.in_conv", q, "N", "3", "3"), ocrSqueeze(n+"input_conv.{e}.squeeze_excitation_block.", q)))
	}
	const h = "head."
	head := zeroOK(cat(convNB(h+"conv_down.convolution", q, "N", "at(kl, 0)", "at(kl, 0)"), batchNorm(h+"conv_down.norm", q),
		conv(h+"conv_up.convolution", q, q, "at(kl, 1)", "at(kl, 1)"), batchNorm(h+"conv_up.norm", q),
		[]T{{Name: h + "conv_final.weight", Shape: []string{q, "1", "at(kl, 2)", "at(kl, 2)"}, Role: RoleLinear},
			{Name: h + "conv_final.bias", Shape: []string{"1"}, Role: RoleBias}}))
	return withBackboneOf(&Family{Name: o.Name, Class: o.Class, ModelTypes: []string{o.MT}, Causal: "-", SeqCls: "-",
		Defs: defs, Final: zeroOK(neck),
		Embed: "model.backbone.encoder.convolution.convolution.weight", BasePrefix: "model.",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Head: proj("")},
			{Suffix: "ForObjectDetection", Head: cat(proj("model."), head)},
		},
	}, "backbone_config.", "model.backbone.", o.Backbones...)
}

var _ = register(
	func() *Family {
		return ocrDetFamily(ocrDetOpts{Name: "PP-OCRv5 mobile det", Class: "PPOCRV5MobileDet", MT: "pp_ocrv5_mobile_det", Backbones: []string{"pp_lcnet_v3"}})
	},
	func() *Family {
		return ocrDetFamily(ocrDetOpts{Name: "PP-OCRv6 small det", Class: "PPOCRV6SmallDet", MT: "pp_ocrv6_small_det", V6: true, Backbones: []string{"pp_lcnet_v4"}})
	},
)

// slaDefs are the fields of the SLA table-structure head: its GRU's
// width, the structure tokens, the width of the features it attends to.
func slaDefs(h, p string) []Def {
	return []Def{
		{Sym: "Hs", Field: "hidden_size", Default: h, Legend: "H", Desc: "the structure decoder's width", Show: true, Pos: true},
		{Sym: "O", Field: "out_channels", Default: "50", Legend: "V", Desc: "structure tokens", Show: true, Pos: true},
		{Sym: "P", Field: "post_conv_out_channels", Default: p, Desc: "the width of the features the head attends to", Pos: true},
	}
}

// slaHead is the SLA head under pre ("head."): an attention GRU cell on
// features of width P, taking the previous token one-hot (O), and the
// structure MLP.
func slaHead(pre string) []T {
	const c = "structure_attention_cell."
	return under(pre, linear(c+"input_to_hidden", "Hs", "P", ""), linear(c+"hidden_to_hidden", "Hs", "Hs", "true"),
		linear(c+"score", "1", "Hs", ""),
		[]T{{Name: c + "rnn.weight_ih", Shape: []string{"3*Hs", "P+O"}, Role: RoleLinear},
			{Name: c + "rnn.weight_hh", Shape: []string{"3*Hs", "Hs"}, Role: RoleLinear},
			{Name: c + "rnn.bias_ih", Shape: []string{"3*Hs"}, Role: RoleBias},
			{Name: c + "rnn.bias_hh", Shape: []string{"3*Hs"}, Role: RoleBias}},
		linear("structure_generator.fc1", "Hs", "Hs", "true"), linear("structure_generator.fc2", "O", "Hs", "true"))
}

// slaCSPLayer is SLANet's CSP layer (2·P in, P out, half of P hidden,
// csp_num_blocks bottlenecks of a 1×1 and a depthwise-separable
// convolution of csp_kernel_size).
func slaCSPLayer() []T {
	const h = "P/2"
	return zeroOK(cat(ocrConvLayer("conv1.", h, "2*P", "1", "1", ""), ocrConvLayer("conv2.", h, "2*P", "1", "1", ""),
		ocrConvLayer("conv3.", "P", "2*("+h+")", "1", "1", ""),
		copies("nb", ocrConvLayer("bottlenecks.{e}.conv1.", h, h, "1", "1", ""),
			ocrConvLayer("bottlenecks.{e}.conv2.depthwise_convolution.", h, h, "ck", "ck", h),
			ocrConvLayer("bottlenecks.{e}.conv2.pointwise_convolution.", h, h, "1", "1", ""))))
}

// slanetFamily is SLANet: a PP-LCNet backbone (backbone_config), a
// CSP-PAN on its stages from the second on (a projection of each to
// post_conv_out_channels, top-down CSP layers, depthwise-separable
// downsamplings, bottom-up CSP layers), the SLA head.
func slanetFamily() *Family {
	const pan = "backbone.post_csp_pan."
	n := "len(b_bc)-1" // the stages from the second on: num_features[2:]
	return withBackboneOf(&Family{Name: "SLANet", Class: "SLANet", ModelTypes: []string{"slanet"}, Causal: "-", SeqCls: "-",
		Defs: cat(slaDefs("256", "96"), []Def{
			{Sym: "ck", Field: "csp_kernel_size", Default: "5", Desc: "the CSP layers' depthwise kernel side"},
			{Sym: "nb", Field: "csp_num_blocks", Default: "1", Desc: "bottlenecks per CSP layer", Max: MaxLayers},
			{Sym: "nL", Field: "backbone_config.block_configs", Type: Count, Default: "5", Null: "=", Desc: "the backbone's stages"},
		}),
		Stacks: []Stack{
			{Name: "top-down", Prefix: pan + "top_down_blocks.{l}.", Layers: "max(nL-2, 0)", Tensors: slaCSPLayer()},
			{Name: "downsample", Prefix: pan + "downsamples.{l}.", Layers: "max(nL-2, 0)", Tensors: cat(
				ocrConvLayer("depthwise_convolution.", "P", "P", "ck", "ck", "P"), ocrConvLayer("pointwise_convolution.", "P", "P", "1", "1", ""))},
			{Name: "bottom-up", Prefix: pan + "bottom_up_blocks.{l}.", Layers: "max(nL-2, 0)", Tensors: slaCSPLayer()},
		},
		Final: slaHead("head."),
		Embed: "backbone.vision_backbone.encoder.convolution.convolution.weight", BasePrefix: "backbone.",
		Tasks: []Task{{Suffix: "ForTableRecognition", KeepFinal: true, Head: copies(n,
			ocrConvLayer(pan+"channel_projector.{e}.", "P", lcnetStageWidth("e+2"), "1", "1", ""))}},
	}, "backbone_config.", "backbone.vision_backbone.", "pp_lcnet")
}

// slanextFamily is SLANeXt: SAM's ViT image encoder (vision_config,
// SLANeXtVisionConfig's defaults), a strided 3×3 convolution from
// post_conv_in_channels to post_conv_out_channels, the SLA head.
func slanextFamily() *Family {
	const v = "backbone.vision_tower."
	g, s, f := samVisionEncoder(v)
	defs := withDefault(withDefault(withoutDefs(samVisionDefs("vision_config."), "sNPF", "sR"), "sI", "3072"), "sS", "512")
	return &Family{Name: "SLANeXt", Class: "SLANeXt", ModelTypes: []string{"slanext"}, Causal: "-", SeqCls: "-",
		Defs: cat(defs, slaDefs("512", "512"), []Def{
			{Sym: "Pi", Field: "post_conv_in_channels", Default: "256", Desc: "the post convolution's input width", Pos: true},
		}),
		Global: g, Stacks: []Stack{s},
		Final: cat(f, convNB("backbone.post_conv", "P", "Pi", "3", "3"), slaHead("head.")),
		Embed: v + "patch_embed.projection.weight", BasePrefix: "backbone.",
		Tasks: []Task{{Suffix: "ForTableRecognition", KeepFinal: true}},
	}
}

var _ = register(slanetFamily, slanextFamily)

// actParams are the parameters of the activation module act names,
// under pre ("conv_down.activation."): PReLU's single slope, xIELU's
// two alphas and its beta and eps buffers; none for the others.
func actParams(pre, act string) []T {
	return cat(when(act+" == 'prelu'", []T{{Name: pre + "weight", Shape: []string{"1"}, Role: RoleNorm}}),
		// xIELU makes its tensors bfloat16 whatever the model's dtype.
		when(act+" == 'xielu'", []T{{Name: pre + "alpha_p", Shape: []string{"1"}, Role: RoleNorm, AnyDType: true}, {Name: pre + "alpha_n", Shape: []string{"1"}, Role: RoleNorm, AnyDType: true},
			{Name: pre + "beta", Shape: []string{}, Role: RoleNorm, AnyDType: true}, {Name: pre + "eps", Shape: []string{}, Role: RoleNorm, AnyDType: true}}))
}

// uvdocBackboneFamily is UVDoc's backbone: a ResNet (resnet_head's
// strided convolutions, then a stage per resnet_configs entry of
// residual blocks [in, out, dilation, downsample], biased convolutions
// of kernel_size, a projection where they downsample) and the bridge (a
// stage per stage_configs entry of dilated 3×3 convolutions [width,
// dilation]).
func uvdocBackboneFamily() *Family {
	blk := func(i string) string { return "at(at(at(rc, l), e), " + i + ")" }
	in, out := blk("0"), blk("1")
	cl := func(pre, out, in, k, bias string) []T {
		return cbn{Conv: "convolution", Norm: "normalization", Out: out, In: in, K: k, Bias: bias}.at(pre)
	}
	return &Family{Name: "UVDoc backbone", Class: "UVDoc", ConfigClass: "UVDocBackboneConfig", ModelTypes: []string{"uvdoc_backbone"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "rh", Field: "resnet_head", Type: Lists, Default: "list(list(3, 32), list(32, 32))", Null: "=", Desc: "the stem's convolutions [in, out]"},
			{Sym: "rc", Field: "resnet_configs", Type: Lists, Default: "list(list(list(32, 32, 1, 0), list(32, 32, 3, 0), list(32, 32, 3, 0)), " +
				"list(list(32, 64, 1, 1), list(64, 64, 3, 0), list(64, 64, 3, 0), list(64, 64, 3, 0)), " +
				"list(list(64, 128, 1, 1), list(128, 128, 3, 0), list(128, 128, 3, 0), list(128, 128, 3, 0), list(128, 128, 3, 0), list(128, 128, 3, 0)))",
				Null: "=", Desc: "each ResNet stage's blocks: [in, out, dilation, downsample]"},
			{Sym: "sc", Field: "stage_configs", Type: Lists, Default: "list(list(list(128, 1)), list(list(128, 2)), list(list(128, 5)), " +
				"list(list(128, 8), list(128, 3), list(128, 2)), list(list(128, 12), list(128, 7), list(128, 4)), list(list(128, 18), list(128, 12), list(128, 6)))",
				Null: "=", Desc: "each bridge stage's convolutions: [width, dilation]"},
			{Sym: "k", Field: "kernel_size", Default: "5", Desc: "the ResNet's kernel side"},
		},
		Global: copies("len(rh)", cl("resnet.resnet_head.{e}.", "at(at(rh, e), 1)", "at(at(rh, e), 0)", "k", "")),
		Stacks: []Stack{
			{Name: "resnet stage", Prefix: "resnet.resnet_down.{l}.", Layers: "len(rc)", Tensors: blocksOf("layers.", "len(at(rc, l))", cat(
				when(blk("3"), cl("conv_down.", out, in, "k", "true")),
				cl("conv_start.", out, in, "k", "true"), cl("conv_final.", out, out, "k", "true")))},
			{Name: "bridge", Prefix: "bridge.bridge.{l}.", Layers: "len(sc)", Tensors: blocksOf("blocks.", "len(at(sc, l))",
				cl("", "at(at(at(sc, l), e), 0)", "at(at(at(sc, l), e), 0)", "3", ""))},
		},
		Embed: "resnet.resnet_head.0.convolution.weight",
		Tasks: []Task{{Suffix: "Backbone", KeepFinal: true}},
	}
}

// uvdocFamily is UVDoc: its backbone (backbone_config) and the head: a
// 1×1 connector from the bridge stages' concatenated outputs
// (bridge_connector [in per stage, out]) and the 2-D point positions
// (out_point_positions2D [[in, out], [in, out]]: a convolution with its
// norm and activation, then a biased one).
func uvdocFamily() *Family {
	cl := func(pre, out, in, k string) []T {
		return cbn{Conv: "convolution", Norm: "normalization", Out: out, In: in, K: k}.at(pre)
	}
	const p = "head.out_point_positions2D."
	return withBackboneOf(&Family{Name: "UVDoc", Class: "UVDoc", ModelTypes: []string{"uvdoc"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "act", Field: "hidden_act", Type: Str, Default: "'prelu'", Desc: "the head's activation (PReLU has a parameter)"},
			{Sym: "hk", Field: "kernel_size", Default: "5", Desc: "the head's kernel side"},
			listOf("bcn", "bridge_connector", "list(128, 128)", "the connector's [input per bridge stage, output] widths"),
			{Sym: "opp", Field: "out_point_positions2D", Type: Lists, Default: "list(list(128, 32), list(32, 2))", Null: "=", Desc: "the point-position convolutions' [in, out]"},
			{Sym: "nSt", Field: "backbone_config.stage_configs", Type: Count, Default: "6", Null: "=", Desc: "the backbone's bridge stages"},
		},
		Final: cat(cl("head.bridge_connector.", "at(bcn, 1)", "at(bcn, 0)*nSt", "1"),
			cl(p+"conv_down.", "at(at(opp, 0), 1)", "at(at(opp, 0), 0)", "hk"), actParams(p+"conv_down.activation.", "act"),
			conv(p+"conv_up", "at(at(opp, 1), 1)", "at(at(opp, 1), 0)", "hk", "hk")),
		Embed: "backbone.resnet.resnet_head.0.convolution.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
	}, "backbone_config.", "backbone.", "uvdoc_backbone")
}

var _ = register(uvdocBackboneFamily, uvdocFamily)

// ppFormulaNetFamily is PP-FormulaNet: SLANeXt's SAM image encoder
// (vision_config) under model.encoder. and its projector to the decoder
// (two strided bias-free 3×3 convolutions post_conv_in → mid → out
// channels, two linears to decoder_hidden_size), an mBART decoder
// (text_config, PPFormulaNetTextConfig's defaults) and its LM head, never
// tied (the class declares no tied weights).
func ppFormulaNetFamily() *Family {
	const v, t = "model.encoder.", "text_config."
	g, s, f := samVisionEncoder(v)
	defs := withDefault(withDefault(withoutDefs(samVisionDefs("vision_config."), "sNPF", "sR"), "sI", "3072"), "sS", "512")
	return &Family{Name: "PP-FormulaNet", Class: "PPFormulaNet", ModelTypes: []string{"pp_formulanet"},
		Causal: "PPFormulaNetForConditionalGeneration", SeqCls: "-", Tasks: noTasks,
		Defs: cat(defs, s2sDefs(t+"vocab_size=50000", t+"d_model=512", t+"decoder_layers=8", t+"decoder_ffn_dim=2048"), []Def{
			posDef(t+"max_position_embeddings", "2560"),
			{Sym: "Pi", Field: "vision_config.post_conv_in_channels", Default: "256", Desc: "the projector's input width", Pos: true},
			{Sym: "Pm", Field: "vision_config.post_conv_mid_channels", Default: "512", Desc: "the projector's middle width", Pos: true},
			{Sym: "Po", Field: "vision_config.post_conv_out_channels", Default: "1024", Desc: "the projector's output width", Pos: true},
			{Sym: "Pd", Field: "vision_config.decoder_hidden_size", Default: "512", Desc: "the width the projector feeds the decoder", Pos: true},
			derived("tied", "false"),
		}),
		Global: cat(g, []T{{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding}},
			decoderPositions("P+2"), embLN),
		Stacks: []Stack{s, {Name: "decoder", Prefix: "model.decoder.layers.{l}.", Layers: "L", Tensors: s2sLayer(true, "true", "true", "true")}},
		Final: cat(f, convNB(v+"multi_modal_projector.conv1", "Pm", "Pi", "3", "3"), convNB(v+"multi_modal_projector.conv2", "Po", "Pm", "3", "3"),
			linear(v+"multi_modal_projector.linear_1", "Po", "Po", "true"), linear(v+"multi_modal_projector.linear_2", "Pd", "Po", "true"),
			finalLN, bartLM),
		Embed: "model.decoder.embed_tokens.weight",
	}
}

var _ = register(ppFormulaNetFamily)
