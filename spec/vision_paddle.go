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
		{Sym: "ck", Field: "conv_kernel_size", Type: List, Default: ck, Null: "=", Desc: "the neck's convolution kernel [height, width]"},
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
		linear("mlp.fc1", "H*mr/1000", "H", "true"), linear("mlp.fc2", "H", "H*mr/1000", "true"),
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
			{Sym: "stc", Field: "stem_channels", Type: List, Default: "list(3, 48, 96)", Null: "=", Desc: "the stem's widths"},
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
