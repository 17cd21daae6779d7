package spec

import (
	"fmt"
	"strings"
)

// Convolutional and hierarchical vision backbones and their heads:
// ResNet (the backbone of many other models: blocks_cnn.go's
// resnetEncoder), HGNet-v2 (the DETR-likes' of vision_detr.go), Hiera, EfficientFormer, … Each is data built from blocks_cnn.go's stage and
// block helpers: per-stage lists of depths and widths from the config.

// cnnFamily is a vision family of one encoder under base with the usual
// three classes: the base model (names without base), an image
// classifier (head, full names) and, where backbone, a backbone (names
// without base, plus bbHead).
type cnnOpts struct {
	Name, Class, MT string
	Base            string // the base model's prefix: "resnet."
	Enc             encoderPart
	Defs            []Def
	Cls             []T // the image classifier's head; nil: no such class
	ClsDefs         []Def
	Backbone        bool // a Backbone class
	BackboneBase    bool // the backbone holds the base model under Base (BiT's)
	BackboneHead    []T  // the backbone's further tensors (its output norms)
	BaseHead        []T  // the base model's further tensors (a pooler)
	Tasks           []Task
	Variants        [][][2]string
}

func cnnFamily(o cnnOpts) *Family {
	// A family without a base prefix (the base model class alone) keeps
	// its final tensors in the base model.
	tasks := []Task{{Suffix: TaskBase, Prefix: "-", Head: o.BaseHead, KeepFinal: o.Base == ""}}
	if o.Cls != nil {
		tasks = append(tasks, Task{Suffix: "ForImageClassification", Head: o.Cls, Labels: true, Defs: o.ClsDefs})
	}
	if o.Backbone {
		bb := Task{Suffix: "Backbone", Prefix: "-", Head: o.BackboneHead}
		if o.BackboneBase {
			bb.Prefix = ""
		}
		tasks = append(tasks, bb)
	}
	embed := ""
	if len(o.Enc.Global) > 0 {
		embed = o.Enc.Global[0].Name
	}
	return &Family{Name: o.Name, Class: o.Class, ModelTypes: []string{o.MT}, Causal: "-", SeqCls: "-",
		Defs: cat(o.Enc.Defs, o.Defs), Global: o.Enc.Global, Stacks: o.Enc.Stacks, Final: o.Enc.Final,
		Embed: embed, BasePrefix: o.Base, Tasks: append(tasks, o.Tasks...), Variants: o.Variants}
}

var _ = register(
	// ResNet: the classifier is a Sequential(Flatten, Linear).
	func() *Family {
		return cnnFamily(cnnOpts{Name: "ResNet", Class: "ResNet", MT: "resnet", Base: "resnet.", Enc: resnetEncoder("resnet.", ""),
			Cls: classifier("classifier.1", "rH"), Backbone: true})
	},
)

// mobileNetV1 is MobileNet v1: a 3×3 stride-2 stem 32·depth_multiplier
// wide (at least min_depth), then 13 depthwise-separable pairs (a 3×3
// depthwise convolution, layer.{2i}; a 1×1 pointwise one, layer.{2i+1})
// whose width doubles at pairs 0, 1, 3, 5 and 11.
func mobileNetV1() *Family {
	wd := func(i string) string { // the width after pair i
		return "max(32*pow(2, 1 + (" + i + " >= 1) + (" + i + " >= 3) + (" + i + " >= 5) + (" + i + " >= 11))*dm/1000, minD)"
	}
	i := "(l/2)"
	in := "(" + i + " == 0 ? stem : " + wd(i+"-1") + ")"
	pre := "mobilenet_v1."
	return cnnFamily(cnnOpts{Name: "MobileNet v1", Class: "MobileNetV1", MT: "mobilenet_v1", Base: pre,
		Enc: encoderPart{
			Defs: []Def{
				channels("Ch", "num_channels"),
				{Sym: "dm", Field: "depth_multiplier", Type: Milli, Default: "1000", Legend: "dm", Desc: "width multiplier (×1000)", Show: true, Pos: true},
				{Sym: "minD", Field: "min_depth", Default: "8", Desc: "the narrowest layer"},
				derived("stem", "max(32*dm/1000, minD)"), derived("H", wd("12")),
			},
			Global: convLayer(pre+"conv_stem.", "stem", "Ch", "3"),
			Stacks: []Stack{{Prefix: pre + "layer.{l}.", Layers: "26", Kinds: []Kind{{Name: "dw", If: "l % 2 == 0"}, {Name: "pw", If: "true"}},
				Tensors: cat(when("dw", cbn{Conv: "convolution", Norm: "normalization", Out: in, In: in, Groups: in, K: "3"}.at("")),
					when("pw", convLayer("", wd(i), in, "1")))}},
		},
		Cls: when("C > 0", classifier("classifier", "H"))})
}

// mobileNetV2 is MobileNet v2: a stem (3×3 stride-2 convolution, an
// optional 1×1 expansion, a 3×3 depthwise, a 1×1 projection), 16
// inverted residuals between the channels of the paper's table (each
// scaled by depth_multiplier and rounded by make_divisible), each an
// expansion by expand_ratio, a depthwise 3×3 and a projection, and a
// final 1×1 to 1280 (scaled unless finegrained_output and a multiplier
// below 1). Its segmentation head is DeepLabV3+'s.
func mobileNetV2() *Family {
	adm := func(c string) string { return "makediv((" + c + "*dm + 500)/1000, 1, dd, minD)" }
	ch := func(i string) string { return adm("at(mb2c, " + i + ")") }
	x := "makediv((" + ch("l") + "*er + 500)/1000, 1, dd, minD)"
	pre := "mobilenet_v2."
	layer := func(name, out, in, k string) []T { return convLayer(name+".", out, in, k) }
	dw := func(name, w string) []T {
		return cbn{Conv: "convolution", Norm: "normalization", Out: w, In: w, Groups: w, K: "3"}.at(name + ".")
	}
	seg := "segmentation_head."
	return cnnFamily(cnnOpts{Name: "MobileNet v2", Class: "MobileNetV2", MT: "mobilenet_v2", Base: pre,
		Enc: encoderPart{
			Defs: []Def{
				channels("Ch", "num_channels"),
				{Sym: "dm", Field: "depth_multiplier", Type: Milli, Default: "1000", Legend: "dm", Desc: "width multiplier (×1000)", Show: true, Pos: true},
				{Sym: "dd", Field: "depth_divisible_by", Default: "8", Desc: "channels round to a multiple of this", Pos: true},
				{Sym: "minD", Field: "min_depth", Default: "8", Desc: "the narrowest layer"},
				{Sym: "er", Field: "expand_ratio", Type: Milli, Default: "6000", Desc: "inverted residuals' expansion (×1000)", Pos: true},
				flag("fle", "first_layer_is_expansion", "true", "the stem's first convolution is its expansion"),
				flag("fgo", "finegrained_output", "true", "the last convolution stays 1280 wide under a multiplier below 1"),
				derived("mb2c", "list(16, 24, 24, 32, 32, 32, 64, 64, 64, 64, 96, 96, 96, 160, 160, 160, 320)"),
				derived("stem", adm("32")),
				derived("H", "fgo && dm < 1000 ? 1280 : "+adm("1280")),
			},
			Global: cat(layer(pre+"conv_stem.first_conv", "stem", "Ch", "3"), when("!fle", layer(pre+"conv_stem.expand_1x1", "stem", "stem", "1")),
				dw(pre+"conv_stem.conv_3x3", "stem"), layer(pre+"conv_stem.reduce_1x1", ch("0"), "stem", "1")),
			Stacks: []Stack{{Prefix: pre + "layer.{l}.", Layers: "16", Tensors: invRes{In: ch("l"), Mid: x, Out: ch("l+1")}.at("")}},
			Final:  layer(pre+"conv_1x1", "H", ch("16"), "1"),
		},
		Cls: when("C > 0", classifier("classifier", "H")),
		Tasks: []Task{{Suffix: "ForSemanticSegmentation", Labels: true, Head: cat(
			layer(seg+"conv_pool", "256", adm("320"), "1"), layer(seg+"conv_aspp", "256", adm("320"), "1"),
			layer(seg+"conv_projection", "256", "512", "1"),
			cbn{Conv: "convolution", Out: "C", In: "256", K: "1", Bias: "true"}.at(seg+"classifier."))}}})
}

var _ = register(mobileNetV1, mobileNetV2)

// efficientNet is EfficientNet (efficientNetEncoder with its top
// convolution and BatchNorm) and its image classifier.
func efficientNet() *Family {
	return cnnFamily(cnnOpts{Name: "EfficientNet", Class: "EfficientNet", MT: "efficientnet", Base: "efficientnet.",
		Enc: efficientNetEncoder("efficientnet.", "", true),
		Cls: when("C > 0", classifier("classifier", "H"))})
}

// efficientNetEncoder is EfficientNet's encoder under pre, fields under
// cfg ("" or "vision_config."): a 3×3 stem, then per base stage i
// ceil(depth_coefficient·num_block_repeats[i]) MBConv blocks, numbered
// on through the stages (encoder.blocks.{k}): an expansion by
// expand_ratios[i] (none where 1), a depthwise kernel_sizes[i]
// convolution, a squeeze-excite of in·squeeze_expansion_ratio, a
// projection; widths in_channels/out_channels scaled by
// width_coefficient (round_filters); where top, a 1×1 top convolution
// to round_filters(1280) and a BatchNorm hidden_dim wide (H; ALIGN's
// vision tower has neither).
func efficientNetEncoder(pre, cfg string, top bool) encoderPart {
	rf := func(c string) string { return "makediv((" + c + ")*wc, 1000, dvs, dvs)" }
	i, j := "segof(R, l)", "segpos(R, l)"
	in := "(" + j + " == 0 ? " + rf("at(ic, "+i+")") + " : " + rf("at(oc, "+i+")") + ")"
	out := rf("at(oc, " + i + ")")
	er := "at(er, " + i + ")"
	d := "(" + er + " != 1 ? " + in + "*" + er + " : " + in + ")"
	se := "max(1, " + in + "*ser/1000)"
	bn := func(conv, norm, out, in, k string, groups string) []T {
		return cbn{Conv: conv, Norm: norm, Out: out, In: in, K: k, Groups: groups}.at("")
	}
	enc := encoderPart{
		Defs: []Def{
			channels("Ch", cfg+"num_channels"),
			{Sym: "wc", Field: cfg + "width_coefficient", Type: Milli, Default: "2000", Legend: "wc", Desc: "width multiplier (×1000)", Show: true, Pos: true},
			{Sym: "dc", Field: cfg + "depth_coefficient", Type: Milli, Default: "3100", Legend: "dc", Desc: "depth multiplier (×1000)", Show: true, Pos: true},
			{Sym: "dvs", Field: cfg + "depth_divisor", Default: "8", Desc: "channels round to a multiple of this", Pos: true},
			listOf("ks", cfg+"kernel_sizes", "list(3, 3, 5, 3, 5, 5, 3)", "each stage's depthwise kernel"),
			listOf("ic", cfg+"in_channels", "list(32, 16, 24, 40, 80, 112, 192)", "each stage's input width"),
			listOf("oc", cfg+"out_channels", "list(16, 24, 40, 80, 112, 192, 320)", "each stage's output width"),
			listOf("nbr", cfg+"num_block_repeats", "list(1, 2, 2, 3, 3, 4, 1)", "each stage's blocks before depth_coefficient"),
			listOf("er", cfg+"expand_ratios", "list(1, 6, 6, 6, 6, 6, 6)", "each stage's expansion"),
			{Sym: "ser", Field: cfg + "squeeze_expansion_ratio", Type: Milli, Default: "250", Desc: "squeeze-excite width over the block's input (×1000)"},
			derived("R", "ceilmul(nbr, dc)"),
			derived("nB", "len(ic)"),
		},
		Global: cat(bn(pre+"embeddings.convolution", pre+"embeddings.batchnorm", rf("32"), "Ch", "3", "")),
		Stacks: []Stack{{Name: "block", Prefix: pre + "encoder.blocks.{l}.", Layers: "sum(R)", Tensors: cat(
			when(er+" != 1", bn("expansion.expand_conv", "expansion.expand_bn", d, in, "1", "")),
			bn("depthwise_conv.depthwise_conv", "depthwise_conv.depthwise_norm", d, d, "at(ks, "+i+")", d),
			cbn{Conv: "squeeze_excite.reduce", Out: se, In: d, K: "1", Bias: "true"}.at(""),
			cbn{Conv: "squeeze_excite.expand", Out: d, In: se, K: "1", Bias: "true"}.at(""),
			bn("projection.project_conv", "projection.project_bn", out, d, "1", ""))}},
	}
	if top {
		enc.Defs = append(enc.Defs, Def{Sym: "H", Field: cfg + "hidden_dim", Default: "2560", Legend: "H", Desc: "the top BatchNorm's width", Show: true, Pos: true})
		enc.Final = cat([]T{{Name: pre + "encoder.top_conv.weight", Shape: []string{rf("1280"), rf("at(oc, nB-1)"), "1", "1"}, Role: RoleLinear}},
			batchNorm(pre+"encoder.top_bn", "H"))
	}
	return enc
}

var _ = register(efficientNet)

// swinV2 is Swin Transformer V2 (blocks_vision.go's swinEncoderV): the
// base model with its final LayerNorm, an image classifier, masked image
// modeling (a mask token and a 1×1 convolution to stride²·channels) and a
// backbone without output norms.
func swinV2() *Family {
	enc := swinEncoderV("Swin V2", "swinv2.", "", true, true)
	return &Family{Name: "Swin V2", Class: "Swinv2", ModelTypes: []string{"swinv2"}, Causal: "-", SeqCls: "-",
		Defs: cat(enc.Defs, []Def{derived("mask", "false"), derived("fin", "true"),
			{Sym: "stride", Field: "encoder_stride", Default: "32", Desc: "the masked-image decoder's upsampling", Pos: true}}),
		Global: cat(enc.Global, []T{{Name: "swinv2.embeddings.mask_token", Shape: []string{"1", "1", "eE"}, Role: RoleNorm, If: "mask"}}),
		Stacks: enc.Stacks,
		Final:  when("fin", norm("swinv2.layernorm", "eH", "true")),
		Embed:  "swinv2.embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForImageClassification", Head: when("C > 0", classifier("classifier", "eH")), Labels: true},
			{Suffix: "ForMaskedImageModeling", Defs: []Def{derived("mask", "true")}, Head: conv("decoder.0", "stride*stride*eC", "eMimH", "1", "1")},
			{Suffix: "Backbone", Prefix: "-", Defs: []Def{derived("fin", "false")}},
		},
	}
}

var _ = register(swinV2)

// regNet is RegNet: a 3×3 stem, then a stage per entry of depths and
// hidden_sizes of X blocks (1×1, grouped 3×3 of groups_width-wide groups,
// 1×1) or Y blocks (X with a squeeze-excite of round(in/4) after the
// 3×3), the first block of each stage with a projection shortcut (every
// stage downsamples: 4.x hard-codes downsample_in_first_stage, 5.x reads
// it, true by default).
func regNet() *Family {
	pre := "regnet."
	w, in := "at(hs, l)", stageIn("hs", "E")
	g := "max(1, (" + w + ")/gw)"
	se := "(" + in + "/4 + (" + in + " % 4 > 2 || " + in + " % 4 == 2 && (" + in + "/4) % 2 == 1))" // Python's round(in/4), half to even
	block := cat(
		when("e == 0 && (l > 0 || dfs || E != at(hs, 0))", convLayer("shortcut.", w, in, "1")),
		convLayer("layer.0.", w, in, "1"),
		cbn{Conv: "convolution", Norm: "normalization", Out: w, In: w, K: "3", Groups: g}.at("layer.1."),
		when("!y", convLayer("layer.2.", w, w, "1")),
		when("y", cbn{Conv: "attention.0", Out: se, In: w, K: "1", Bias: "true"}.at("layer.2."),
			cbn{Conv: "attention.2", Out: w, In: se, K: "1", Bias: "true"}.at("layer.2."),
			convLayer("layer.3.", w, w, "1")))
	return cnnFamily(cnnOpts{Name: "RegNet", Class: "RegNet", MT: "regnet", Base: pre,
		Enc: encoderPart{
			Defs: cat(stemStages("32", "list(128, 192, 512, 1088)", "list(2, 6, 12, 2)", "each stage's width"), []Def{
				{Sym: "gw", Field: "groups_width", Default: "64", Desc: "channels per group of the 3×3 convolutions", Pos: true},
				{Sym: "lt", Field: "layer_type", Type: Str, Default: "'y'", Desc: "x, or y (with squeeze-excite)"},
				derived("y", "lt != 'x'"),
				{Sym: "dfs5", Field: "downsample_in_first_stage", Type: Bool, Default: "true", Desc: "the first stage downsamples (read by 5.x only)"},
				derived("dfs", "tf5 ? dfs5 : true"),
				derived("H", "at(hs, nS-1)"),
			}),
			Global: convLayer(pre+"embedder.embedder.", "E", "Ch", "3"),
			Stacks: []Stack{{Name: "stage", Prefix: pre + "encoder.stages.{l}.", Layers: "nS", Tensors: blocksOf("layers.", "at(dp, l)", block)}},
		},
		Cls: when("C > 0", classifier("classifier.1", "H"))})
}

var _ = register(regNet)

// bit is BiT (Big Transfer): a weight-standardized 7×7 stem (with a
// GroupNorm unless pre-activation), stages of bottlenecks out =
// make_div(hidden_sizes[l]·width_factor) wide with a quarter-width middle,
// pre-activation (norms before each convolution, a bare downsampling
// convolution) or not ("bottleneck": norms after, the downsampling
// normed; ViT-hybrid's), the first block of each stage downsampling;
// the pre-activation model's final GroupNorm is hidden_sizes[-1] wide.
func bit() *Family {
	pre := "bit."
	w := "makediv(at(hs, l)*wf, 1, 8, 8)"
	in := "(e > 0 ? " + w + " : (l > 0 ? makediv(at(hs, l-1)*wf, 1, 8, 8) : E))"
	mid := "makediv(" + w + ", 4, 8, 8)"
	conv := func(name, out, in, k string) []T {
		return []T{{Name: name + ".weight", Shape: []string{out, in, k, k}, Role: RoleLinear}}
	}
	gn := func(name, dim string) []T { return norm(name, dim, "true") }
	block := cat(conv("downsample.conv", w, in, "1"), when("!preact", gn("downsample.norm", w)))
	for i := range block {
		block[i].If = "e == 0" + and(block[i].If)
	}
	block = cat(block,
		when("preact", gn("norm1", in), gn("norm2", mid), gn("norm3", mid)),
		when("!preact", gn("norm1", mid), gn("norm2", mid), gn("norm3", w)),
		conv("conv1", mid, in, "1"), conv("conv2", mid, mid, "3"), conv("conv3", w, mid, "1"))
	return cnnFamily(cnnOpts{Name: "BiT", Class: "Bit", MT: "bit", Base: pre,
		Enc: encoderPart{
			Defs: cat(stemStages("64", "list(256, 512, 1024, 2048)", "list(3, 4, 6, 3)", "each stage's width before width_factor"), []Def{
				{Sym: "wf", Field: "width_factor", Default: "1", Desc: "width multiplier", Pos: true},
				{Sym: "lt", Field: "layer_type", Type: Str, Default: "'preactivation'", Desc: "preactivation or bottleneck"},
				derived("preact", "lt == 'preactivation'"),
				derived("H", "makediv(at(hs, nS-1)*wf, 1, 8, 8)"),
			}),
			Global: cat(conv(pre+"embedder.convolution", "E", "Ch", "7"), when("!preact", gn(pre+"embedder.norm", "E"))),
			Stacks: []Stack{{Name: "stage", Prefix: pre + "encoder.stages.{l}.", Layers: "nS", Tensors: blocksOf("layers.", "at(dp, l)", block)}},
			Final:  when("preact", gn(pre+"norm", "at(hs, len(hs)-1)")),
		},
		Cls: when("C > 0", classifier("classifier.1", "at(hs, len(hs)-1)")), Backbone: true, BackboneBase: true})
}

var _ = register(bit)

// and is " && (cond)", or "" for no condition.
func and(cond string) string {
	if cond == "" {
		return ""
	}
	return " && (" + cond + ")"
}

// poolFormer is PoolFormer: num_encoder_blocks stages, each entered by a
// patch embedding (a patch_sizes[l] convolution, biased) and made of
// depths[l] blocks (GroupNorms around a pooling and a 1×1-convolution MLP
// of mlp_ratio, layer scales where use_layer_scale); the classifier
// norms the last stage first.
func poolFormer() *Family {
	pre := "poolformer.encoder."
	w := "at(hs, l)"
	gn := func(name string) []T { return norm(name, w, "true") }
	mlp := "(" + w + ")*mr/1000"
	block := cat(gn("before_norm"), gn("after_norm"), when("ls", vec("layer_scale_1", w), vec("layer_scale_2", w)),
		cbn{Conv: "output.conv1", Out: mlp, In: w, K: "1", Bias: "true"}.at(""),
		cbn{Conv: "output.conv2", Out: w, In: mlp, K: "1", Bias: "true"}.at(""))
	last := "at(hs, len(hs)-1)"
	return cnnFamily(cnnOpts{Name: "PoolFormer", Class: "PoolFormer", MT: "poolformer", Base: "poolformer.",
		Enc: encoderPart{
			Defs: cat([]Def{channels("Ch", "num_channels")}, encoderStages("list(64, 128, 320, 512)", "list(2, 2, 6, 2)"), []Def{
				listOf("ps", "patch_sizes", "list(7, 3, 3, 3)", "each stage's patch embedding kernel"),
				{Sym: "mr", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "MLP width over the stage's (×1000)"},
				flag("ls", "use_layer_scale", "true", "layer scales"),
			}),
			Stacks: []Stack{
				{Name: "patch embedding", Prefix: pre + "patch_embeddings.{l}.", Layers: "nS",
					Tensors: cbn{Conv: "projection", Out: w, In: "(l > 0 ? at(hs, l-1) : Ch)", K: "at(ps, l)", Bias: "true"}.at("")},
				{Name: "stage", Prefix: pre + "block.{l}.", Layers: "nS", Tensors: blocksOf("", "at(dp, l)", block)},
			},
		},
		Cls: cat(norm("norm", last, "true"), when("C > 0", classifier("classifier", last)))})
}

var _ = register(poolFormer)

// van is the Visual Attention Network (4.x only: 5.x dropped it): stages
// of a patch embedding (a biased patch_sizes[l] convolution and a
// BatchNorm), depths[l] blocks (BatchNorms, a large-kernel attention of
// depthwise 5×5 and dilated 7×7 convolutions between 1×1 projections, a
// convolutional MLP of mlp_ratios[l], two layer scales) and a LayerNorm.
func van() *Family {
	w := "at(hs, l)"
	mlp := "(" + w + ")*at(mr, l)"
	c := func(name, out, in, k, groups string) []T {
		return cbn{Conv: name, Out: out, In: in, K: k, Groups: groups, Bias: "true"}.at("")
	}
	block := cat(batchNorm("pre_normomalization", w), batchNorm("post_normalization", w),
		c("attention.pre_projection.conv", w, w, "1", ""),
		c("attention.attention_layer.attention.depth_wise", w, w, "5", w),
		c("attention.attention_layer.attention.depth_wise_dilated", w, w, "7", w),
		c("attention.attention_layer.attention.point_wise", w, w, "1", ""),
		c("attention.post_projection", w, w, "1", ""),
		vec("attention_scaling.weight", w), vec("mlp_scaling.weight", w),
		c("mlp.in_dense", mlp, w, "1", ""), c("mlp.depth_wise", mlp, mlp, "3", mlp), c("mlp.out_dense", w, mlp, "1", ""))
	stage := cat(cbn{Conv: "convolution", Norm: "normalization", Out: w, In: "(l > 0 ? at(hs, l-1) : Ch)", K: "at(ps, l)", Bias: "true"}.at("embeddings."),
		blocksOf("layers.", "at(dp, l)", block), norm("normalization", w, "true"))
	last := "at(hs, len(hs)-1)"
	return cnnFamily(cnnOpts{Name: "VAN", Class: "Van", MT: "van", Base: "van.",
		Enc: encoderPart{
			Defs: []Def{
				channels("Ch", "num_channels"),
				listOf("hs", "hidden_sizes", "list(64, 128, 320, 512)", "each stage's width"),
				listOf("dp", "depths", "list(3, 3, 12, 3)", "each stage's blocks"),
				listOf("ps", "patch_sizes", "list(7, 3, 3, 3)", "each stage's patch embedding kernel"),
				listOf("st", "strides", "list(4, 2, 2, 2)", "each stage's patch embedding stride"),
				listOf("mr", "mlp_ratios", "list(8, 8, 4, 4)", "each stage's MLP expansion"),
				derived("nS", "min(min(min(len(hs), len(dp)), min(len(ps), len(st))), min(len(mr), sum(dp)))"),
			},
			Stacks: []Stack{{Name: "stage", Prefix: "van.encoder.stages.{l}.", Layers: "nS", Tensors: stage}},
			Final:  norm("van.layernorm", last, "true"),
		},
		Cls: when("C > 0", classifier("classifier", last))})
}

var _ = register(van)

// pvtV2 is PVT v2: num_encoder_blocks stages, each an overlapping patch
// embedding (a biased patch_sizes[l] convolution and a LayerNorm),
// depths[l] blocks (attention whose keys and values are spatially
// reduced by an sr_ratios[l] convolution and a LayerNorm — a 1×1 one
// after pooling under linear_attention, none where the ratio is 1 — and
// an MLP of mlp_ratios[l] with a depthwise 3×3) and a LayerNorm.
func pvtV2() *Family {
	w := "at(hs, l)"
	mlp := "(" + w + ")*at(mr, l)"
	sr := "at(sr, l)"
	block := cat(norm("layer_norm_1", w, "true"), norm("layer_norm_2", w, "true"),
		renameSyms(cat(linear("attention.query", "W", "W", "qkv_bias"), linear("attention.key", "W", "W", "qkv_bias"),
			linear("attention.value", "W", "W", "qkv_bias"), linear("attention.proj", "W", "W", "true"),
			linear("mlp.dense1", "M", "W", "true"), linear("mlp.dense2", "W", "M", "true")), "W", w, "M", mlp),
		when("la || "+sr+" > 1", cbn{Conv: "attention.spatial_reduction", Out: w, In: w, K: "(la ? 1 : " + sr + ")", Bias: "true"}.at(""),
			norm("attention.layer_norm", w, "true")),
		cbn{Conv: "mlp.dwconv.dwconv", Out: mlp, In: mlp, Groups: mlp, K: "3", Bias: "true"}.at(""))
	stage := cat(cbn{Conv: "proj", Out: w, In: "(l > 0 ? at(hs, l-1) : Ch)", K: "at(ps, l)", Bias: "true"}.at("patch_embedding."),
		norm("patch_embedding.layer_norm", w, "true"), blocksOf("blocks.", "at(dp, l)", block), norm("layer_norm", w, "true"))
	last := "at(hs, len(hs)-1)"
	return cnnFamily(cnnOpts{Name: "PVT v2", Class: "PvtV2", MT: "pvt_v2", Base: "pvt_v2.",
		Enc: encoderPart{
			Defs: cat([]Def{channels("Ch", "num_channels")}, encoderStages("list(32, 64, 160, 256)", "list(2, 2, 2, 2)"), []Def{
				listOf("ps", "patch_sizes", "list(7, 3, 3, 3)", "each stage's patch embedding kernel"),
				listOf("sr", "sr_ratios", "list(8, 4, 2, 1)", "each stage's key/value spatial reduction"),
				listOf("mr", "mlp_ratios", "list(8, 8, 4, 4)", "each stage's MLP expansion"),
				flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
				flag("la", "linear_attention", "false", "pooled linear attention"),
			}),
			Stacks: []Stack{{Name: "stage", Prefix: "pvt_v2.encoder.layers.{l}.", Layers: "nS", Tensors: stage}},
		},
		Cls: when("C > 0", classifier("classifier", last)), Backbone: true})
}

var _ = register(pvtV2)

// pvt is PVT (v1): num_encoder_blocks stages, each a patch embedding
// (a strides[l] kernel convolution, learned positions for its patches —
// the image side halved per stage after the first, over patch_sizes[l] —
// and, in the last stage, a class token and its position) and depths[l]
// blocks whose keys and values are reduced by a
// sequence_reduction_ratios[l] convolution and a LayerNorm (none at 1);
// a final LayerNorm on the last stage.
func pvt() *Family {
	pre := "pvt.encoder."
	w := "at(hs, l)"
	mlp := "(" + w + ")*at(mr, l)"
	sr := "at(sr, l)"
	img := "(l == 0 ? S : S/pow(2, l+1))"
	np := "(" + img + "/at(ps, l))*(" + img + "/at(ps, l))"
	block := cat(norm("layer_norm_1", w, "true"), norm("layer_norm_2", w, "true"),
		renameSyms(cat(linear("attention.self.query", "W", "W", "qkv_bias"), linear("attention.self.key", "W", "W", "qkv_bias"),
			linear("attention.self.value", "W", "W", "qkv_bias"), linear("attention.output.dense", "W", "W", "true"),
			linear("mlp.dense1", "M", "W", "true"), linear("mlp.dense2", "W", "M", "true")), "W", w, "M", mlp),
		when(sr+" > 1", cbn{Conv: "attention.self.sequence_reduction", Out: w, In: w, K: sr, Bias: "true"}.at(""),
			norm("attention.self.layer_norm", w, "true")))
	last := "at(hs, len(hs)-1)"
	return cnnFamily(cnnOpts{Name: "PVT", Class: "Pvt", MT: "pvt", Base: "pvt.",
		Enc: encoderPart{
			Defs: cat([]Def{channels("Ch", "num_channels"), {Sym: "S", Field: "image_size", Default: "224", Desc: "image side, pixels", Pos: true}},
				encoderStages("list(64, 128, 320, 512)", "list(2, 2, 2, 2)"), []Def{
					listOf("ps", "patch_sizes", "list(4, 2, 2, 2)", "each stage's patch side"),
					listOf("st", "strides", "list(4, 2, 2, 2)", "each stage's patch embedding kernel"),
					listOf("sr", "sequence_reduction_ratios", "list(8, 4, 2, 1)", "each stage's key/value reduction"),
					listOf("mr", "mlp_ratios", "list(8, 8, 4, 4)", "each stage's MLP expansion"),
					flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
				}),
			Stacks: []Stack{
				{Name: "patch embedding", Prefix: pre + "patch_embeddings.{l}.", Layers: "nS", Tensors: cat(
					cbn{Conv: "projection", Out: w, In: "(l > 0 ? at(hs, l-1) : Ch)", K: "at(st, l)", Bias: "true"}.at(""),
					norm("layer_norm", w, "true"),
					[]T{{Name: "position_embeddings", Shape: []string{"1", np + " + (l == nS-1)", w}, Role: RoleEmbedding},
						{Name: "cls_token", Shape: []string{"1", "1", w}, Role: RoleNorm, If: "l == nS-1"}})},
				{Name: "stage", Prefix: pre + "block.{l}.", Layers: "nS", Tensors: blocksOf("", "at(dp, l)", block)},
			},
			Final: norm(pre+"layer_norm", last, "true"),
		},
		Cls: renameSyms(classifier("classifier", last), "C", "pC"),
		// PvtConfig declares num_labels (1000): 5.x's field wins over
		// id2label; 4.x's setter rewrites id2label from it.
		ClsDefs: []Def{{Sym: "nl", Field: "num_labels", Default: "C", Desc: "labels, as 5.x's PvtConfig reads them"}, derived("pC", "tf5 ? nl : C")}})
}

var _ = register(pvt)

// dinov3ConvNext is DINOv3's ConvNeXt: stages of downsample_layers (the
// first a 4×4 patchifying convolution and a LayerNorm, the others a
// LayerNorm and a 2×2 stride-2 convolution) and depths[l] blocks (a
// depthwise 7×7, a LayerNorm, an inverted bottleneck of 4×, a layer
// scale gamma always), one stage per entry of hidden_sizes; a final
// LayerNorm. 5.x holds the stages under model. (a variant).
func dinov3ConvNext() *Family {
	w, in := "at(hs, l)", "(l > 0 ? at(hs, l-1) : Ch)"
	block := cat(cbn{Conv: "depthwise_conv", Out: w, In: w, Groups: w, K: "7", Bias: "true"}.at(""),
		norm("layer_norm", w, "true"), vec("gamma", w),
		renameSyms(cat(linear("pointwise_conv1", "O", "W", "true"), linear("pointwise_conv2", "W", "O", "true")), "O", "4*"+w, "W", w))
	stage := cat(
		when("l == 0", conv("downsample_layers.0", w, "Ch", "4", "4"), norm("downsample_layers.1", w, "true")),
		when("l > 0", norm("downsample_layers.0", in, "true"), conv("downsample_layers.1", w, in, "2", "2")),
		blocksOf("layers.", "at(dp, l)", block))
	return cnnFamily(cnnOpts{Name: "DINOv3 ConvNeXt", Class: "DINOv3ConvNext", MT: "dinov3_convnext",
		Enc: encoderPart{
			Defs: []Def{
				channels("Ch", "num_channels"),
				listOf("hs", "hidden_sizes", "list(96, 192, 384, 768)", "each stage's width"),
				listOf("dp", "depths", "list(3, 3, 9, 3)", "each stage's blocks"),
				derived("nS", "len(hs)"),
			},
			Stacks: []Stack{{Name: "stage", Prefix: "stages.{l}.", Layers: "nS", Tensors: stage}},
			Final:  norm("layer_norm", "at(hs, nS-1)", "true"),
		},
		Variants: [][][2]string{{{"stages.", "model.stages."}}}})
}

var _ = register(dinov3ConvNext)

// cvt is CvT (Convolutional vision Transformer): one stage per entry of
// depth, each a convolutional token embedding (a patch_sizes[l]
// convolution and a LayerNorm) and depth[l] layers whose query, key and
// value are each projected by a depthwise kernel_qkv[l] convolution and
// a BatchNorm (qkv_projection_method "dw_bn"; none for "avg") before
// their linear projections (biased where qkv_bias[l]), then an MLP of
// mlp_ratio[l]; the stages with cls_token[l] hold a class token as wide
// as the last stage. The classifier norms the last stage first.
func cvt() *Family {
	w := "at(ed, l)"
	mlp := "(" + w + ")*at(mr, l)/1000"
	dw := "at(qm, l) == 'dw_bn'"
	var attn []T
	for _, p := range []string{"query", "key", "value"} {
		attn = cat(attn, when(dw, cbn{Conv: "convolution", Norm: "normalization", Out: w, In: w, Groups: w, K: "at(kq, l)"}.
			at("attention.attention.convolution_projection_"+p+".convolution_projection.")),
			linear("attention.attention.projection_"+p, "W", "W", "at(qb, l)"))
	}
	layer := renameSyms(cat(attn, linear("attention.output.dense", "W", "W", "true"),
		linear("intermediate.dense", "M", "W", "true"), linear("output.dense", "W", "M", "true"),
		norm("layernorm_before", "W", "true"), norm("layernorm_after", "W", "true")), "W", w, "M", mlp)
	last := "at(ed, len(ed)-1)"
	stage := cat([]T{{Name: "cls_token", Shape: []string{"1", "1", last}, Role: RoleNorm, If: "at(ct, l)"}},
		cbn{Conv: "projection", Out: w, In: "(l > 0 ? at(ed, l-1) : Ch)", K: "at(ps, l)", Bias: "true", Norm: "normalization", NormBias: "true"}.
			at("embedding.convolution_embeddings."),
		blocksOf("layers.", "at(dp, l)", layer))
	return cnnFamily(cnnOpts{Name: "CvT", Class: "Cvt", MT: "cvt", Base: "cvt.",
		Enc: encoderPart{
			Defs: []Def{
				channels("Ch", "num_channels"),
				listOf("dp", "depth", "list(1, 2, 10)", "each stage's layers"),
				listOf("ed", "embed_dim", "list(64, 192, 384)", "each stage's width"),
				listOf("ps", "patch_sizes", "list(7, 3, 3)", "each stage's embedding kernel"),
				listOf("kq", "kernel_qkv", "list(3, 3, 3)", "each stage's query/key/value projection kernel"),
				{Sym: "mr", Field: "mlp_ratio", Type: MilliList, Default: "list(4000, 4000, 4000)", Null: "=", Desc: "each stage's MLP expansion (×1000)"},
				listOf("qb", "qkv_bias", "list(1, 1, 1)", "each stage's query/key/value biases"),
				listOf("ct", "cls_token", "list(0, 0, 1)", "the stages with a class token"),
				listOf("qm", "qkv_projection_method", "list('dw_bn', 'dw_bn', 'dw_bn')", "each stage's query/key/value projection: dw_bn or avg"),
				derived("nS", "len(dp)"),
			},
			Stacks: []Stack{{Name: "stage", Prefix: "cvt.encoder.stages.{l}.", Layers: "nS", Tensors: stage}},
		},
		Cls: cat(norm("layernorm", last, "true"), when("C > 0", classifier("classifier", last)))})
}

var _ = register(cvt)

// mobileViTOpts say how a MobileViT differs from v1: the five stages'
// widths (w(i): the width after stage i, i = -1 the stem's), the
// attention stages' transformer layers (tl: v2's n_attn_blocks) and
// widths (tw), the transformer layer, and whether the kxk convolution
// is depthwise and a fusion follows (v1).
type mobileViTOpts struct {
	Name, Class, MT, Base string
	Defs                  []Def
	W                     func(i string) string
	TL, TW                string // expressions of k = l-2, the attention stage
	Layer                 []T    // a transformer layer, its width "A"
	V1                    bool   // v1: a full kxk convolution, a fusion, the output expansion
}

// mobileViT is MobileViT (v1 and v2): a 3×3 stem, two stages of
// inverted residuals (1 and 3 blocks in v1, 1 and 2 in v2), three
// attention stages each entered by a downsampling inverted residual
// (expansion round(in·expand_ratio) made divisible by 8), a kxk
// convolution, a 1×1 into the transformer's width, its layers, a norm,
// a 1×1 projection back (and v1's fusion of the two); v1's base model
// and classifier expand the output by a 1×1, the segmenter (DeepLabV3
// on the last stage) does not.
func mobileViT(o mobileViTOpts) *Family {
	k := "max(l-2, 0)"
	rn := func(s string) string { return strings.ReplaceAll(s, "{k}", k) }
	tl, tw := rn(o.TL), rn(o.TW)
	out, in := o.W("l"), o.W("l-1")
	ir := func(in string) string { return "makediv((" + in + "*er + 500)/1000, 1, 8, 8)" }
	bin := "(e == 0 ? " + in + " : " + out + ")"
	mbBlocks := "(l == 0 ? 1 : " + map[bool]string{true: "3", false: "2"}[o.V1] + ")"
	kxk := cbn{Conv: "convolution", Norm: "normalization", Out: out, In: out, K: "cks"}
	if !o.V1 {
		kxk.Groups = out
	}
	vit := cat(invRes{In: in, Mid: ir(in), Out: out}.at("downsampling_layer."), kxk.at("conv_kxk."),
		[]T{{Name: "conv_1x1.convolution.weight", Shape: []string{tw, out, "1", "1"}, Role: RoleLinear}},
		blocksOf("transformer.layer.", tl, renameSyms(o.Layer, "A", tw)),
		norm("layernorm", tw, "true"), convLayer("conv_projection.", out, tw, "1"))
	if o.V1 {
		vit = cat(vit, convLayer("fusion.", out, "2*"+out, "cks"))
	}
	pre := o.Base
	last := o.W("4")
	fam := cnnFamily(cnnOpts{Name: o.Name, Class: o.Class, MT: o.MT, Base: pre,
		Enc: encoderPart{
			Defs: cat([]Def{
				channels("Ch", "num_channels"),
				{Sym: "cks", Field: "conv_kernel_size", Default: "3", Desc: "the attention stages' kxk convolution", Pos: true},
				{Sym: "asp", Field: "aspp_out_channels", Default: map[bool]string{true: "256", false: "512"}[o.V1], Desc: "the segmentation head's width", Pos: true},
				derived("exp", "true"),
			}, o.Defs),
			Global: convLayer(pre+"conv_stem.", o.W("-1"), "Ch", "3"),
			Stacks: []Stack{{Name: "stage", Prefix: pre + "encoder.layer.{l}.", Layers: "5",
				Kinds:   []Kind{{Name: "mb", If: "l < 2"}, {Name: "vit", If: "true"}},
				Tensors: cat(when("mb", blocksOf("layer.", mbBlocks, invRes{In: bin, Mid: ir(bin), Out: out}.at(""))), when("vit", vit))}},
		},
		Tasks: []Task{{Suffix: "ForSemanticSegmentation", Labels: true, Defs: []Def{derived("exp", "false")},
			Head: deepLabV3{In: last, Out: "asp"}.at("segmentation_head.")}},
	})
	if o.V1 {
		fam.Final = when("exp", convLayer(pre+"conv_1x1_exp.", "at(nh, 6)", last, "1"))
		fam.Tasks = append(fam.Tasks, Task{Suffix: "ForImageClassification", Head: when("C > 0", classifier("classifier", "at(nh, 6)")), Labels: true})
	} else {
		fam.Tasks = append(fam.Tasks, Task{Suffix: "ForImageClassification", Head: when("C > 0", classifier("classifier", last)), Labels: true})
	}
	return fam
}

var _ = register(
	// MobileViT: neck_hidden_sizes are the stem's and five stages' widths
	// (and the output expansion's, entry 6); the attention stages have
	// 2, 4 and 3 ViT layers of hidden_sizes[k] with mlp_ratio.
	func() *Family {
		return mobileViT(mobileViTOpts{Name: "MobileViT", Class: "MobileViT", MT: "mobilevit", Base: "mobilevit.", V1: true,
			Defs: []Def{
				listOf("nh", "neck_hidden_sizes", "list(16, 32, 64, 96, 128, 160, 640)", "the stem's, each stage's and the output's widths"),
				listOf("hs", "hidden_sizes", "list(144, 192, 240)", "the attention stages' widths"),
				{Sym: "er", Field: "expand_ratio", Type: Milli, Default: "4000", Desc: "inverted residuals' expansion (×1000)", Pos: true},
				{Sym: "mr", Field: "mlp_ratio", Type: Milli, Default: "2000", Desc: "the transformer MLP's expansion (×1000)", Pos: true},
				flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
			},
			W:  func(i string) string { return "at(nh, (" + i + ")+1)" },
			TL: "at(list(2, 4, 3), {k})", TW: "at(hs, {k})",
			Layer: renameSyms(cat(linear("attention.attention.query", "A", "A", "qkv_bias"), linear("attention.attention.key", "A", "A", "qkv_bias"),
				linear("attention.attention.value", "A", "A", "qkv_bias"), linear("attention.output.dense", "A", "A", "true"),
				linear("intermediate.dense", "M", "A", "true"), linear("output.dense", "A", "M", "true"),
				norm("layernorm_before", "A", "true"), norm("layernorm_after", "A", "true")), "M", "A*mr/1000")})
	},
	// MobileViT v2: widths 32 (clipped to [16, 64], at least 16), 64 (to
	// a multiple of 16), 128, 256, 384, 512 times width_multiplier;
	// n_attn_blocks[k] separable-attention layers (a 1+2A-wide qkv
	// convolution, GroupNorms, a convolutional FFN of ffn_multiplier·A
	// down to a multiple of 16) of base_attn_unit_dims[k]·multiplier.
	func() *Family {
		return mobileViT(mobileViTOpts{Name: "MobileViT v2", Class: "MobileViTV2", MT: "mobilevitv2", Base: "mobilevitv2.",
			Defs: []Def{
				{Sym: "wm", Field: "width_multiplier", Type: Milli, Default: "1000", Legend: "wm", Desc: "width multiplier (×1000)", Show: true, Pos: true},
				{Sym: "er", Field: "expand_ratio", Type: Milli, Default: "2000", Desc: "inverted residuals' expansion (×1000)", Pos: true},
				{Sym: "fm", Field: "ffn_multiplier", Type: Milli, Default: "2000", Desc: "the FFN's expansion (×1000)", Pos: true},
				listOf("nab", "n_attn_blocks", "list(2, 4, 3)", "the attention stages' layers"),
				listOf("bad", "base_attn_unit_dims", "list(128, 192, 256)", "the attention stages' widths before the multiplier"),
			},
			W: func(i string) string {
				return "((" + i + ") < 0 ? makediv(min(max(32*wm, 16000), 64000), 1000, 8, 16) : (" + i + ") == 0 ? makediv(64*wm, 1000, 16, 16) : " +
					"makediv(at(list(128, 256, 384, 512), (" + i + ")-1)*wm, 1000, 8, 8))"
			},
			TL: "at(nab, {k})", TW: "makediv(at(bad, {k})*wm, 1000, 8, 8)",
			Layer: cat(norm("layernorm_before", "A", "true"), norm("layernorm_after", "A", "true"),
				cbn{Conv: "attention.qkv_proj.convolution", Out: "1+2*A", In: "A", K: "1", Bias: "true"}.at(""),
				cbn{Conv: "attention.out_proj.convolution", Out: "A", In: "A", K: "1", Bias: "true"}.at(""),
				// a width below 16 rounds the FFN to nothing: transformers
				// builds it zero-wide.
				zeroOK(cat(cbn{Conv: "ffn.conv1.convolution", Out: "(fm*A/1000)/16*16", In: "A", K: "1", Bias: "true"}.at(""),
					cbn{Conv: "ffn.conv2.convolution", Out: "A", In: "(fm*A/1000)/16*16", K: "1", Bias: "true"}.at(""))))})
	},
)

// levit is LeViT: a patch embedding of four 3×3 convolutions with
// BatchNorms (to hidden_sizes[0]/8, /4, /2, then hidden_sizes[0]), then
// one stage per entry of depths, a flat list of residual layers:
// depths[l] attentions (key_dim[l]·heads queries and keys and
// attention_ratio[l] times that for values, a bias per head and offset
// of the stage's resolution²), each followed by an MLP of mlp_ratio[l]
// where that is positive; a stage whose down_ops entry is
// ["Subsample", key_dim, heads, ratio, mlp, stride] ends in a
// subsampling attention to the next stage's width (biases over its
// input resolution²) and, where mlp > 0, its MLP. 4.x's LevitConfig
// recomputes down_ops (the first two stages, key_dim[0],
// hidden_sizes[l]/key_dim[0] heads, ratio 4, MLP 2, stride 2); 5.x reads
// config.json's, those by default. Every linear is bias-free with a
// BatchNorm1d.
func levit() *Family {
	h, kd, nh, ar := "at(hs, l)", "at(kd, l)", "at(heads, l)", "at(ar, l)"
	st := "(1 + (at(mr, l) > 0))"
	main := "at(dp, l)*" + st
	d := func(i int) string { return fmt.Sprintf("at(at(dop, l), %d)", i) }
	sub := "(l < len(dop) && " + d(0) + " == 'Subsample')"
	// r(l): the resolution entering stage l, halved (by the stride) after
	// each subsampling stage; unrolled to 8 stages.
	rs := []string{"S/P"}
	for k := 1; k < 8; k++ {
		p := fmt.Sprintf("r%d", k-1)
		dk := func(i int) string { return fmt.Sprintf("at(at(dop, %d), %d)", k-1, i) }
		rs = append(rs, fmt.Sprintf("(%d < len(dop) && %s == 'Subsample' ? (%s-1)/%s+1 : %s)", k-1, dk(0), p, dk(5), p))
	}
	res := "at(list(r0, r1, r2, r3, r4, r5, r6, r7), l)"
	lin := func(name, out, in string) []T { // MLPLayerWithBN: a bias-free linear and a BatchNorm1d
		return cat([]T{{Name: name + ".linear.weight", Shape: []string{out, in}, Role: RoleLinear}}, batchNorm(name+".batch_norm", out))
	}
	h1 := "at(hs, l+1)"
	kdS, hS, arS, mS := d(1), d(2), d(3), d(4)
	mw := "(e < " + main + " ? " + h + " : " + h1 + ")"
	mm := "(e < " + main + " ? " + h + "*at(mr, l) : " + mS + "*" + h1 + ")"
	layer := cat(
		when("e < "+main+" && e % "+st+" == 0",
			lin("module.queries_keys_values", ar+"*"+kd+"*"+nh+" + 2*"+kd+"*"+nh, h),
			lin("module.projection", h, ar+"*"+kd+"*"+nh),
			[]T{{Name: "module.attention_biases", Shape: []string{nh, res + "*" + res}, Role: RoleNorm}}),
		when("e < "+main+" && e % "+st+" == 1 || "+sub+" && e == "+main+" + 1",
			lin("module.linear_up", mm, mw), lin("module.linear_down", mw, mm)),
		// a subsampling attention of hidden_sizes[l]/key_dim[0] heads
		// (4.x) has none where the stage is narrower than key_dim[0]:
		// transformers builds it zero-wide.
		zeroOK(when(sub+" && e == "+main,
			lin("keys_values", arS+"*"+kdS+"*"+hS+" + "+kdS+"*"+hS, h), lin("queries", kdS+"*"+hS, h),
			lin("projection", h1, arS+"*"+kdS+"*"+hS),
			[]T{{Name: "attention_biases", Shape: []string{hS, res + "*" + res}, Role: RoleNorm}})))
	pe := func(i int, out, in string) []T {
		return cbn{Conv: "convolution", Norm: "batch_norm", Out: out, In: in, K: "ks"}.at(fmt.Sprintf("levit.patch_embeddings.embedding_layer_%d.", i))
	}
	h0 := "at(hs, 0)"
	last := "at(hs, len(hs)-1)"
	head := func(name string) []T {
		return cat(batchNorm(name+".batch_norm", last), linear(name+".linear", "C", last, "true"))
	}
	computed := "list(list('Subsample', at(kd, 0), at(hs, 0)/at(kd, 0), 4, 2, 2), list('Subsample', at(kd, 0), at(hs, 1)/at(kd, 0), 4, 2, 2))"
	defs := []Def{
		channels("Ch", "num_channels"),
		{Sym: "S", Field: "image_size", Default: "224", Desc: "image side, pixels", Pos: true},
		{Sym: "P", Field: "patch_size", Default: "16", Desc: "patch side, pixels", Pos: true},
		{Sym: "ks", Field: "kernel_size", Default: "3", Desc: "the patch embedding's kernels", Pos: true},
		listOf("hs", "hidden_sizes", "list(128, 256, 384)", "each stage's width"),
		listOf("heads", "num_attention_heads", "list(4, 8, 12)", "each stage's heads"),
		listOf("dp", "depths", "list(4, 4, 4)", "each stage's attention layers"),
		listOf("kd", "key_dim", "list(16, 16, 16)", "each stage's key width per head"),
		listOf("mr", "mlp_ratio", "list(2, 2, 2)", "each stage's MLP expansion"),
		listOf("ar", "attention_ratio", "list(2, 2, 2)", "each stage's value width over its key width"),
		{Sym: "dopF", Field: "down_ops", Type: Lists, Default: computed, Null: "=", Desc: "each stage's subsampling (read by 5.x; 4.x recomputes it)"},
		derived("dop", "tf5 ? dopF : "+computed),
		{Sym: "nS", Field: "", Default: "len(dp)", Max: 8},
	}
	for k, r := range rs {
		defs = append(defs, derived(fmt.Sprintf("r%d", k), r))
	}
	return cnnFamily(cnnOpts{Name: "LeViT", Class: "Levit", MT: "levit", Base: "levit.",
		Enc: encoderPart{
			Defs:   defs,
			Global: cat(pe(1, h0+"/8", "Ch"), pe(2, h0+"/4", h0+"/8"), pe(3, h0+"/2", h0+"/4"), pe(4, h0, h0+"/2")),
			Stacks: []Stack{{Name: "stage", Prefix: "levit.encoder.stages.{l}.", Layers: "nS",
				Tensors: blocksOf("layers.", main+" + ("+sub+" ? 1 + ("+mS+" > 0) : 0)", layer)}},
		},
		Cls: when("C > 0", head("classifier")),
		Tasks: []Task{{Suffix: "ForImageClassificationWithTeacher", Labels: true,
			Head: when("C > 0", head("classifier"), head("classifier_distill"))}}})
}

var _ = register(levit)

// swiftFormer is SwiftFormer: a patch embedding (two 3×3 stride-2
// convolutions with BatchNorms to embed_dims[0]/2 and embed_dims[0]),
// then a network list alternating stages and, between stages i and i+1
// where downsamples[i] or their widths differ, an embedding (a biased
// down_patch_size convolution and a BatchNorm). A stage's depths[i]
// blocks are convolutional encoders (a depthwise 3×3, a BatchNorm, a
// 1×1 MLP of mlp_ratio, a layer scale) but the last, an encoder block
// (a local representation, additive attention, a convolutional MLP and,
// where use_layer_scale, two layer scales). The classifier norms the
// last stage and has a head and a distillation head.
func swiftFormer() *Family {
	// seg: each stage's network entries (1, or 2 with the embedding
	// after it), unrolled to 8 stages.
	var seg []string
	for i := 0; i < 8; i++ {
		seg = append(seg, fmt.Sprintf("1 + (%d < nS-1 && (at(dsl, %d) || at(ed, %d) != at(ed, %d)))", i, i, i, i+1))
	}
	i := "segof(seg, l)"
	w := "at(ed, " + i + ")"
	hid := "(" + w + ")*mr/1000"
	c := func(name, out, in, k, groups string) []T {
		return cbn{Conv: name, Out: out, In: in, K: k, Groups: groups, Bias: "true"}.at("")
	}
	scale := func(name string) T { return T{Name: name, Shape: []string{w, "1", "1"}, Role: RoleNorm} }
	convEnc := cat(c("depth_wise_conv", w, w, "3", w), batchNorm("norm", w), c("point_wise_conv1", hid, w, "1", ""),
		c("point_wise_conv2", w, hid, "1", ""), []T{scale("layer_scale")})
	block := cat(c("local_representation.depth_wise_conv", w, w, "3", w), batchNorm("local_representation.norm", w),
		c("local_representation.point_wise_conv1", w, w, "1", ""), c("local_representation.point_wise_conv2", w, w, "1", ""),
		[]T{scale("local_representation.layer_scale")},
		renameSyms(cat(linear("attn.to_query", "W", "W", "true"), linear("attn.to_key", "W", "W", "true"),
			[]T{{Name: "attn.w_g", Shape: []string{"W", "1"}, Role: RoleNorm}},
			linear("attn.proj", "W", "W", "true"), linear("attn.final", "W", "W", "true")), "W", w),
		batchNorm("linear.norm1", w), c("linear.fc1", hid, w, "1", ""), c("linear.fc2", w, hid, "1", ""),
		when("ls", []T{scale("layer_scale_1"), scale("layer_scale_2")}))
	stage := blocksOf("blocks.", "at(dp, "+i+")", cat(when("e < at(dp, "+i+") - 1", convEnc), when("e == at(dp, "+i+") - 1", block)))
	nx := "at(ed, " + i + "+1)"
	emb := cat(c("proj", nx, w, "dps", ""), batchNorm("norm", nx))
	e0 := "at(ed, 0)"
	last := "at(ed, len(ed)-1)"
	return cnnFamily(cnnOpts{Name: "SwiftFormer", Class: "SwiftFormer", MT: "swiftformer", Base: "swiftformer.",
		Enc: encoderPart{
			Defs: []Def{
				channels("Ch", "num_channels"),
				listOf("dp", "depths", "list(3, 3, 6, 4)", "each stage's blocks"),
				listOf("ed", "embed_dims", "list(48, 56, 112, 220)", "each stage's width"),
				listOf("dsl", "downsamples", "list(1, 1, 1, 1)", "the stages followed by a downsampling embedding"),
				{Sym: "mr", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "the MLPs' expansion (×1000)", Pos: true},
				{Sym: "dps", Field: "down_patch_size", Default: "3", Desc: "the downsampling embeddings' kernel", Pos: true},
				flag("ls", "use_layer_scale", "true", "the encoder blocks' layer scales"),
				{Sym: "nS", Field: "", Default: "len(dp)", Max: 8},
				derived("seg", "list("+strings.Join(seg, ", ")+")"),
			},
			Global: cat(c("swiftformer.patch_embed.patch_embedding.0", e0+"/2", "Ch", "3", ""), batchNorm("swiftformer.patch_embed.patch_embedding.1", e0+"/2"),
				c("swiftformer.patch_embed.patch_embedding.3", e0, e0+"/2", "3", ""), batchNorm("swiftformer.patch_embed.patch_embedding.4", e0)),
			Stacks: []Stack{{Name: "stage", Prefix: "swiftformer.encoder.network.{l}.", Layers: "nS + sum(seg) - 8",
				Kinds:   []Kind{{Name: "emb", If: "segpos(seg, l) == 1"}, {Name: "stage", If: "true"}},
				Tensors: cat(when("stage", stage), when("emb", emb))}},
		},
		Cls: cat(batchNorm("norm", last), when("C > 0", classifier("head", last), classifier("dist_head", last)))})
}

var _ = register(swiftFormer)

// focalNet is FocalNet: a patch embedding (a patch_size convolution, or
// a 7×7 one where use_conv_embed) and a LayerNorm, then one stage per
// entry of depths, embed_dim·2^l wide, of focal-modulation layers (a
// projection to 2·d + focal_levels[l] + 1, a 1×1 context convolution,
// focal_levels[l] bias-free depthwise convolutions of 2k +
// focal_windows[l], an optional post-modulation LayerNorm, an MLP of
// mlp_ratio, optional layer scales), every stage but the last ending in
// a downsampling patch embedding with its norm; a final LayerNorm. The
// backbone holds the whole model; masked image modeling adds a mask
// token and a 1×1 decoder to stride²·channels.
func focalNet() *Family {
	d := "E*pow(2, l)"
	fl := "at(flv, l)"
	// the focal levels inside each layer (a repeat inside the blocks'
	// repeat), unrolled to 16 levels: kernels of 2k + focal_windows[l].
	var focal []T
	for k := 0; k < 16; k++ {
		ks := fmt.Sprintf("%d + at(fwn, l)", 2*k)
		focal = append(focal, T{Name: fmt.Sprintf("modulation.focal_layers.%d.0.weight", k), Shape: []string{"D", "1", ks, ks}, Role: RoleLinear, If: fmt.Sprintf("%d < %s", k, fl)})
	}
	layer := renameSyms(cat(norm("norm1", "D", "true"), norm("norm2", "D", "true"),
		linear("modulation.projection_in", "2*D + "+fl+" + 1", "D", "true"),
		conv("modulation.projection_context", "D", "D", "1", "1"),
		linear("modulation.projection_out", "D", "D", "true"),
		focal,
		when("postMod", norm("modulation.layernorm", "D", "true")),
		linear("mlp.fc1", "D*mr/1000", "D", "true"), linear("mlp.fc2", "D", "D*mr/1000", "true"),
		when("ls", vec("gamma_1", "D"), vec("gamma_2", "D"))), "D", d)
	pre := "focalnet."
	k2 := "(ce ? 3 : 2)"
	stage := cat(blocksOf("layers.", "at(dp, l)", layer),
		when("l < nS-1", conv("downsample.projection", "2*"+d, d, k2, k2), norm("downsample.norm", "2*"+d, "true")))
	return cnnFamily(cnnOpts{Name: "FocalNet", Class: "FocalNet", MT: "focalnet", Base: pre,
		Enc: encoderPart{
			Defs: []Def{
				channels("Ch", "num_channels"),
				{Sym: "P", Field: "patch_size", Default: "4", Desc: "patch side, pixels", Pos: true},
				{Sym: "E", Field: "embed_dim", Default: "96", Legend: "E", Desc: "the first stage's width", Show: true, Pos: true},
				listOf("dp", "depths", "list(2, 2, 6, 2)", "each stage's layers"),
				listOf("flv", "focal_levels", "list(2, 2, 2, 2)", "each stage's focal levels"),
				listOf("fwn", "focal_windows", "list(3, 3, 3, 3)", "each stage's first focal kernel"),
				{Sym: "mr", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "the MLPs' expansion (×1000)", Pos: true},
				flag("ce", "use_conv_embed", "false", "overlapping convolutional patch embeddings"),
				flag("ls", "use_layerscale", "false", "layer scales"),
				flag("postMod", "use_post_layernorm_in_modulation", "false", "a LayerNorm after the modulation"),
				{Sym: "stride", Field: "encoder_stride", Default: "32", Desc: "the masked-image decoder's upsampling", Pos: true},
				{Sym: "nS", Field: "", Default: "len(dp)", Max: 16},
				derived("nf", "E*pow(2, nS-1)"),
				derived("mask", "false"),
			},
			Global: cat([]T{{Name: pre + "embeddings.mask_token", Shape: []string{"1", "1", "E"}, Role: RoleNorm, If: "mask"}},
				conv(pre+"embeddings.patch_embeddings.projection", "E", "Ch", "(ce ? 7 : P)", "(ce ? 7 : P)"),
				norm(pre+"embeddings.norm", "E", "true")),
			Stacks: []Stack{{Name: "stage", Prefix: pre + "encoder.stages.{l}.", Layers: "nS", Tensors: stage}},
			Final:  norm(pre+"layernorm", "nf", "true"),
		},
		Cls: when("C > 0", classifier("classifier", "nf")), Backbone: true, BackboneBase: true,
		Tasks: []Task{{Suffix: "ForMaskedImageModeling", Defs: []Def{derived("mask", "true")},
			Head: conv("decoder.0", "stride*stride*Ch", "nf", "1", "1")}}})
}

var _ = register(focalNet)

// textNet is TextNet (FAST's backbone): a stem convolution with its
// BatchNorm, then one stage per entry of conv_layer_kernel_sizes, each a
// RepVGG-style layer per kernel pair [kh, kw] (stride from
// conv_layer_strides) from hidden_sizes[l] (the first) or
// hidden_sizes[l+1] to hidden_sizes[l+1]: a main kh×kw convolution, a
// vertical kh×1 where kw != 1, a horizontal 1×kw where kh != 1, each
// bias-free with a BatchNorm, and an identity BatchNorm where the
// widths match at stride 1 (as many layers as both lists have). The
// backbone holds the model under textnet.
func textNet() *Family {
	kh, kw := "at(at(at(kls, l), e), 0)", "at(at(at(kls, l), e), 1)"
	in, out := "(e == 0 ? at(hs, l) : at(hs, l+1))", "at(hs, l+1)"
	stride := "at(at(kst, l), e)"
	bn := func(conv, norm, kh, kw string) []T {
		return cbn{Conv: conv, Norm: norm, Out: out, In: in, K: kh, KW: kw}.at("")
	}
	layer := cat(bn("main_conv", "main_batch_norm", kh, kw),
		when(kw+" != 1", bn("vertical_conv", "vertical_batch_norm", kh, "1")),
		when(kh+" != 1", bn("horizontal_conv", "horizontal_batch_norm", "1", kw)),
		when(out+" == "+in+" && "+stride+" == 1", batchNorm("rbr_identity", in)))
	last := "at(hs, len(hs)-1)"
	return cnnFamily(cnnOpts{Name: "TextNet", Class: "TextNet", MT: "textnet", Base: "textnet.",
		Enc: encoderPart{
			Defs: []Def{
				{Sym: "sk", Field: "stem_kernel_size", Default: "3", Desc: "the stem's kernel", Pos: true},
				channels("sC", "stem_num_channels"),
				{Sym: "sO", Field: "stem_out_channels", Default: "64", Desc: "the stem's width", Pos: true},
				listOf("hs", "hidden_sizes", "list(64, 64, 128, 256, 512)", "the stem's and each stage's widths"),
				{Sym: "kls", Field: "conv_layer_kernel_sizes", Type: Lists, Null: "=", Desc: "each stage's layers' kernels",
					Default: "list(list(list(3, 3), list(3, 3), list(3, 3)), list(list(3, 3), list(1, 3), list(3, 3), list(3, 1)), " +
						"list(list(3, 3), list(3, 3), list(3, 1), list(1, 3)), list(list(3, 3), list(3, 1), list(1, 3), list(3, 3)))"},
				{Sym: "kst", Field: "conv_layer_strides", Type: Lists, Null: "=", Desc: "each stage's layers' strides",
					Default: "list(list(1, 2, 1), list(2, 1, 1, 1), list(2, 1, 1, 1), list(2, 1, 1, 1))"},
				{Sym: "nS", Field: "", Default: "len(kls)", Max: 16},
			},
			Global: cbn{Conv: "conv", Norm: "batch_norm", Out: "sO", In: "sC", K: "sk"}.at("textnet.stem."),
			Stacks: []Stack{{Name: "stage", Prefix: "textnet.encoder.stages.{l}.", Layers: "nS",
				Tensors: blocksOf("stage.", "min(len(at(kls, l)), len(at(kst, l)))", layer)}}, // zip()s the two
		},
		Cls: when("C > 0", classifier("fc", last)), Backbone: true, BackboneBase: true})
}

var _ = register(textNet)

// maxHGNetBlocks bounds HGNet-v2's stage_num_blocks (a stage's blocks
// are unrolled, their layers copies; real models have 1–6, a larger one
// is refused).
const maxHGNetBlocks = 32

// gated is ts where cond holds, the condition folded into each tensor's
// copy count (a tensor without copies becomes 0 or 1 copy of itself), so
// that the expected set's bound, which counts copies but not
// conditions, counts only the copies that exist: an unrolled list of
// blocks costs nothing past its end.
func gated(cond string, ts []T) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		n := out[i].Experts
		if n == "" {
			n = "1"
		}
		out[i].Experts = "((" + cond + ") ? (" + n + ") : 0)"
	}
	return out
}

// hgnetConv is HGNet-v2's HGNetV2ConvLayer under pre: a bias-free
// convolution, its BatchNorm and, where act and use_learnable_affine_block
// (hLab), the learnable affine block lab.scale/lab.bias (one each).
func hgnetConv(pre, out, in, k, groups string, act bool) []T {
	ts := cbn{Conv: "convolution", Norm: "normalization", Out: out, In: in, K: k, Groups: groups}.at(pre)
	if act {
		ts = cat(ts, when("hLab", []T{{Name: pre + "lab.scale", Shape: []string{"1"}, Role: RoleNorm},
			{Name: pre + "lab.bias", Shape: []string{"1"}, Role: RoleNorm}}))
	}
	return ts
}

// hgnetV2Encoder is HGNet-v2 (PP-HGNetV2; HGNetV2Backbone) under pre,
// its fields under cfg: a stem of five convolution layers on
// stem_channels (stem1 3×3, stem2a/2b 2×2 at half width, stem3 on the
// pooled and convolved halves concatenated, stem4 1×1), then a stage per
// entry of stage_in_channels: a depthwise 3×3 downsample where
// stage_downsample says, and stage_num_blocks blocks of
// stage_numb_of_layers convolution layers each (kernel
// stage_kernel_size, mid channels wide; a light block's layer is a 1×1
// and a depthwise convolution), aggregated by a 1×1 squeeze to half the
// output width and a 1×1 excitation to it. Every list is read per stage
// as given (a stage's input width need not be the previous output's).
// Symbols: hE, hSC, hIn, hMid, hOut, hNB, hNL, hDS, hLB, hKS, hLab, hHS, hN.
func hgnetV2Encoder(pre, cfg string) encoderPart {
	list := func(sym, field, def, desc string) Def {
		return Def{Sym: sym, Field: cfg + field, Type: List, Default: def, Null: "=", Desc: desc}
	}
	defs := []Def{
		{Sym: "hE", Field: cfg + "embedding_size", Default: "64", Desc: "the stem's output width as a backbone reports it (its out_indices 0)"},
		list("hSC", "stem_channels", "list(3, 32, 48)", "the stem's input, middle and output widths"),
		list("hIn", "stage_in_channels", "list(48, 128, 512, 1024)", "each stage's input width"),
		list("hMid", "stage_mid_channels", "list(48, 96, 192, 384)", "each stage's layer width"),
		list("hOut", "stage_out_channels", "list(128, 512, 1024, 2048)", "each stage's output width"),
		list("hNB", "stage_num_blocks", "list(1, 1, 3, 1)", "each stage's blocks"),
		{Sym: "hNBmax", Field: cfg + "stage_num_blocks", Type: MaxOf, Default: "3", Null: "=", Desc: "the most blocks of a stage", Max: maxHGNetBlocks},
		list("hNL", "stage_numb_of_layers", "list(6, 6, 6, 6)", "each stage's layers per block"),
		list("hDS", "stage_downsample", "list(0, 1, 1, 1)", "each stage starts with a depthwise downsample"),
		list("hLB", "stage_light_block", "list(0, 0, 1, 1)", "each stage's layers are light (1×1 and depthwise)"),
		list("hKS", "stage_kernel_size", "list(3, 3, 5, 5)", "each stage's kernel"),
		list("hHS", "hidden_sizes", "list(256, 512, 1024, 2048)", "the classifier's input is the last entry"),
		flag("hLab", cfg+"use_learnable_affine_block", "false", "learnable affine blocks after the activations"),
		derived("hN", "len(hIn)"),
	}
	s0, s1, s2 := "at(hSC, 0)", "at(hSC, 1)", "at(hSC, 2)"
	stem := cat(hgnetConv(pre+"embedder.stem1.", s1, s0, "3", "", true), hgnetConv(pre+"embedder.stem2a.", s1+"/2", s1, "2", "", true),
		hgnetConv(pre+"embedder.stem2b.", s1, s1+"/2", "2", "", true), hgnetConv(pre+"embedder.stem3.", s1, "2*"+s1, "3", "", true),
		hgnetConv(pre+"embedder.stem4.", s2, s1, "1", "", true))
	mid, out, k := "at(hMid, l)", "at(hOut, l)", "at(hKS, l)"
	var blocks []T
	for b := range maxHGNetBlocks {
		in := "at(hIn, l)"
		if b > 0 {
			in = out
		}
		p := fmt.Sprintf("blocks.%d.", b)
		li := "(e == 0 ? " + in + " : " + mid + ")"
		layers := blocksOf(p+"layers.", "at(hNL, l)", cat(
			when("!at(hLB, l)", hgnetConv("", mid, li, k, "", true)),
			when("at(hLB, l)", hgnetConv("conv1.", mid, li, "1", "", false), hgnetConv("conv2.", mid, mid, k, mid, true))))
		blocks = cat(blocks, gated(fmt.Sprintf("at(hNB, l) > %d", b), cat(layers,
			hgnetConv(p+"aggregation.0.", out+"/2", in+"+at(hNL, l)*"+mid, "1", "", true),
			hgnetConv(p+"aggregation.1.", out, out+"/2", "1", "", true))))
	}
	return encoderPart{Name: "HGNet-v2", Defs: defs, Global: stem,
		Stacks: []Stack{{Name: "stage", Prefix: pre + "encoder.stages.{l}.", Layers: "hN", Tensors: cat(
			when("at(hDS, l)", hgnetConv("downsample.", "at(hIn, l)", "at(hIn, l)", "3", "at(hIn, l)", false)), blocks)}}}
}

// hgnetV2Family is HGNet-v2: the backbone (no base model class) and
// the image classifier (a linear on hidden_sizes[-1], none without
// labels), both with the encoder's names at the top level.
func hgnetV2Family() *Family {
	enc := hgnetV2Encoder("", "")
	return &Family{Name: "HGNet-v2", Class: "HGNetV2", ModelTypes: []string{"hgnet_v2"}, Causal: "-", SeqCls: "-",
		Defs: enc.Defs, Global: enc.Global, Stacks: enc.Stacks, Embed: enc.Global[0].Name,
		Tasks: []Task{
			{Suffix: "Backbone", KeepFinal: true},
			{Suffix: "ForImageClassification", KeepFinal: true, Labels: true, Head: when("C > 0", classifier("fc", "at(hHS, len(hHS)-1)"))},
		}}
}

var _ = register(hgnetV2Family)

// hiera is Hiera: a convolutional patch embedding (patch_size kernel,
// patch_stride), learned positions of the image/stride tokens, then a
// stage per entry of depths, stage l int(embed_dim·multiplier^l) wide
// (mulpow), of depths[l] layers (LayerNorm, a fused qkv to the stage's
// width, its projection, LayerNorm, an MLP of mlp_ratio; the first
// layer of a widening stage with a projection of its input), a pooler's
// LayerNorm on the last width (the base model and the classifier), the
// backbone's LayerNorms on the stages it outputs. SAM 2's Hiera
// (blocks_sam.go) is another layout.
func hiera() *Family {
	w := "mulpow(E, mul, l)"
	in := "(e > 0 ? " + w + " : (l > 0 ? mulpow(E, mul, l-1) : E))"
	layer := renameSyms(cat(norm("layernorm_before", "N", "true"),
		linear("attn.qkv", "3*D", "N", "true"), linear("attn.proj", "D", "D", "true"),
		norm("layernorm_after", "D", "true"),
		linear("mlp.fc1", "D*mr/1000", "D", "true"), linear("mlp.fc2", "D", "D*mr/1000", "true"),
		when("N != D", linear("proj", "D", "N", "true"))), "N", in, "D", w)
	pre := "hiera."
	return cnnFamily(cnnOpts{Name: "Hiera", Class: "Hiera", MT: "hiera", Base: pre,
		Enc: encoderPart{
			Defs: []Def{
				channels("Ch", "num_channels"),
				{Sym: "E", Field: "embed_dim", Default: "96", Legend: "E", Desc: "patch embedding width", Show: true, Pos: true},
				{Sym: "mul", Field: "embed_dim_multiplier", Type: Milli, Default: "2000", Desc: "each stage's widening (×1000)"},
				listOf("dp", "depths", "list(2, 3, 16, 3)", "each stage's layers"),
				{Sym: "mr", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "the MLPs' expansion (×1000)", Pos: true},
				{Sym: "Sl", Field: "image_size", Type: IntOrList, Default: "list(224, 224)", Null: "=", Desc: "image [height, width]"},
				{Sym: "Pl", Field: "patch_size", Type: IntOrList, Default: "list(7, 7)", Null: "=", Desc: "patch kernel [height, width]"},
				{Sym: "PSl", Field: "patch_stride", Type: IntOrList, Default: "list(4, 4)", Null: "=", Desc: "patch stride [height, width]"},
				{Sym: "nS", Field: "", Default: "len(dp)", Max: 16},
				derived("nf", "mulpow(E, mul, nS-1)"),
				{Sym: "hOut", Field: "out_indices", Type: List, Default: "list(nS)", Null: "list(nS)", Desc: "the stages a backbone outputs"},
				derived("pool", "true"),
			},
			Global: cat(conv(pre+"embeddings.patch_embeddings.projection", "E", "Ch", "pick(Pl, 0)", "pick(Pl, 1)"),
				[]T{{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "(pick(Sl, 0)/pick(PSl, 0))*(pick(Sl, 1)/pick(PSl, 1))", "E"}, Role: RoleEmbedding}}),
			Stacks: []Stack{{Name: "stage", Prefix: pre + "encoder.stages.{l}.", Layers: "nS", Tensors: blocksOf("layers.", "at(dp, l)", layer)}},
			Final:  when("pool", norm(pre+"pooler.layernorm", "nf", "true")),
		},
		Cls: when("C > 0", classifier("classifier", "nf")), Backbone: true,
		BackboneHead: backboneNorms("", "hOut", "E", "mulpow(E, mul, e-1)", "nS"),
		Tasks:        []Task{hieraPreTraining()}}).with(func(f *Family) {
		for i, t := range f.Tasks {
			if t.Suffix == "Backbone" || t.Suffix == TaskPreTrain {
				f.Tasks[i].Defs = append(f.Tasks[i].Defs, derived("pool", "false"))
			}
		}
	})
}

var _ = register(hiera)

// hieraPreTraining is Hiera's masked-autoencoder class: the model
// without its pooler, a LayerNorm on its output, a fusion convolution
// from each query-pooled stage's width to the last one's (a kernel of
// its mask unit over the final one), and the decoder (an embedding from
// the last width, a mask token, positions of the final tokens, a stage
// of decoder_depth Hiera layers decoder_hidden_size wide, a LayerNorm,
// a prediction of the final patch stride's pixels).
func hieraPreTraining() Task {
	qp := func(l, d string) string { return "pow(pick(QSl, " + d + "), " + l + ")" }
	mu := func(d string) string { return "pick(MUl, " + d + ")" }
	k := func(d string) string {
		return "(" + mu(d) + "/" + qp("e", d) + ")/(" + mu(d) + "/" + qp("nqp", d) + ")"
	}
	tok := func(d string) string { return "((pick(Sl, " + d + ")/pick(PSl, " + d + "))/" + qp("nqp", d) + ")" }
	stride := "(pick(PSl, 1)*" + qp("nqp", "1") + ")"
	layer := renameSyms(cat(norm("layernorm_before", "D", "true"),
		linear("attn.qkv", "3*D", "D", "true"), linear("attn.proj", "D", "D", "true"),
		norm("layernorm_after", "D", "true"),
		linear("mlp.fc1", "D*mr/1000", "D", "true"), linear("mlp.fc2", "D", "D*mr/1000", "true")), "D", "dH")
	return Task{Suffix: TaskPreTrain,
		Defs: []Def{
			{Sym: "QSl", Field: "query_stride", Type: IntOrList, Default: "list(2, 2)", Null: "=", Desc: "query pooling stride [height, width]"},
			{Sym: "MUl", Field: "masked_unit_size", Type: IntOrList, Default: "list(8, 8)", Null: "=", Desc: "mask unit [height, width]"},
			{Sym: "nqp", Field: "num_query_pool", Default: "3", Desc: "query-pooled stages"},
			{Sym: "dH", Field: "decoder_hidden_size", Desc: "decoder width", Pos: true},
			{Sym: "dL", Field: "decoder_depth", Desc: "decoder layers", Max: MaxLayers},
		},
		Head: cat(norm("encoder_norm", "nf", "true"),
			copies("nqp", conv("multiscale_fusion.multi_scale_fusion_heads.{e}", "nf", "mulpow(E, mul, e)", k("0"), k("1"))),
			linear("decoder.decoder_embeddings", "dH", "nf", "true"),
			[]T{{Name: "decoder.mask_token", Shape: []string{"1", "1", "dH"}, Role: RoleNorm},
				{Name: "decoder.decoder_position_embeddings", Shape: []string{"1", tok("0") + "*" + tok("1"), "dH"}, Role: RoleEmbedding, ZeroOK: true}},
			copies("dL", under("decoder.decoder_block.layers.{e}.", layer)),
			norm("decoder.decoder_norm", "dH", "true"),
			linear("decoder.decoder_pred", stride+"*"+stride+"*Ch", "dH", "true"))}
}

// efficientFormer is EfficientFormer (4.x only): a two-convolution stem
// to hidden_sizes[0], then a stage per entry of depths but the last, each
// of depths[l] pooling blocks (a 1×1 convolutional MLP with BatchNorms,
// layer scales where use_layer_scale) followed by a downsampling
// convolution and BatchNorm where downsamples[l] or the width changes —
// stages and downsamplings share one module list, numbered in turn
// (items: 1 or 2 entries per stage; segof/segpos find the stage) —
// then the last stage's pooling blocks and num_meta3d_blocks attention
// blocks (a fused qkv from config.dim to key_dim-wide queries and keys
// and attention_ratio·key_dim-wide values per head, a table of
// resolution² bias offsets per head and its int64 index buffer; a
// dense MLP) and a final LayerNorm.
func efficientFormer() *Family {
	const maxStages = 16
	var items []string
	for i := range maxStages {
		items = append(items, fmt.Sprintf("(%d < nS-1 ? 1 + (at(dsl, %d) || at(hs, %d) != at(hs, %d)) : 0)", i, i, i, i+1))
	}
	i := "segof(items, l)"
	w := "at(hs, " + i + ")"
	meta4D := func(d string) []T {
		return renameSyms(cat(when("ls", vec("layer_scale_1", "D"), vec("layer_scale_2", "D")),
			cbn{Conv: "mlp.convolution1", Norm: "mlp.batchnorm_before", Out: "D*mer/1000", In: "D", K: "1", Bias: "true"}.at(""),
			cbn{Conv: "mlp.convolution2", Norm: "mlp.batchnorm_after", Out: "D", In: "D*mer/1000", K: "1", Bias: "true"}.at("")), "D", d)
	}
	last := "at(hs, nS-1)"
	pre := "efficientformer."
	ls := pre + "encoder.last_stage."
	ekd := "(heads*(ar*kd/1000))"
	meta3D := cat(when("ls", vec("layer_scale_1", last), vec("layer_scale_2", last)),
		norm("layernorm1", last, "true"), norm("layernorm2", last, "true"),
		linear("token_mixer.qkv", ekd+" + 2*heads*kd", "cD", "true"), linear("token_mixer.projection", "cD", ekd, "true"),
		[]T{{Name: "token_mixer.attention_biases", Shape: []string{"heads", "res*res"}, Role: RoleNorm},
			{Name: "token_mixer.attention_bias_idxs", Shape: []string{"res*res", "res*res"}, Role: RoleNorm, AnyDType: true}},
		linear("mlp.linear_in", last+"*mer/1000", last, "true"), linear("mlp.linear_out", last, last+"*mer/1000", "true"))
	return cnnFamily(cnnOpts{Name: "EfficientFormer", Class: "EfficientFormer", MT: "efficientformer", Base: pre,
		Enc: encoderPart{
			Defs: []Def{
				channels("Ch", "num_channels"),
				listOf("hs", "hidden_sizes", "list(48, 96, 224, 448)", "each stage's width"),
				listOf("dp", "depths", "list(3, 2, 6, 4)", "each stage's blocks"),
				listOf("dsl", "downsamples", "list(1, 1, 1, 1)", "a downsampling after each stage"),
				{Sym: "nS", Field: "", Default: "len(dp)", Max: maxStages},
				{Sym: "cD", Field: "dim", Default: "448", Legend: "D", Desc: "the attention's input width", Show: true, Pos: true},
				{Sym: "kd", Field: "key_dim", Default: "32", Desc: "query and key width per head", Pos: true},
				{Sym: "ar", Field: "attention_ratio", Type: Milli, Default: "4000", Desc: "value width over key_dim (×1000)"},
				{Sym: "heads", Field: "num_attention_heads", Default: "8", Desc: "attention heads", Pos: true},
				{Sym: "res", Field: "resolution", Default: "7", Desc: "the attention's bias table side"},
				{Sym: "mer", Field: "mlp_expansion_ratio", Type: Milli, Default: "4000", Desc: "the MLPs' expansion (×1000)"},
				{Sym: "dsk", Field: "downsample_patch_size", Default: "3", Desc: "the downsampling kernel", Pos: true},
				{Sym: "m3", Field: "num_meta3d_blocks", Default: "1", Desc: "attention blocks in the last stage", Max: MaxLayers},
				flag("ls", "use_layer_scale", "true", "layer scales"),
				derived("items", "list("+strings.Join(items, ", ")+")"),
			},
			Global: cat(cbn{Conv: "convolution1", Norm: "batchnorm_before", Out: "at(hs, 0)/2", In: "Ch", K: "3", Bias: "true"}.at(pre+"patch_embed."),
				cbn{Conv: "convolution2", Norm: "batchnorm_after", Out: "at(hs, 0)", In: "at(hs, 0)/2", K: "3", Bias: "true"}.at(pre+"patch_embed.")),
			Stacks: []Stack{{Name: "stage", Prefix: pre + "encoder.intermediate_stages.{l}.", Layers: "sum(items)",
				Kinds: []Kind{{Name: "stage", If: "segpos(items, l) == 0"}, {Name: "down"}},
				Tensors: cat(when("stage", blocksOf("meta4D_layers.blocks.", "at(dp, "+i+")", meta4D(w))),
					when("down", cbn{Conv: "projection", Norm: "norm", Out: "at(hs, " + i + "+1)", In: w, K: "dsk", Bias: "true"}.at("")))}},
			Final: cat(copies("max(0, at(dp, nS-1) - m3)", under(ls+"meta4D_layers.blocks.{e}.", meta4D(last))),
				copies("m3", under(ls+"meta3D_layers.blocks.{e}.", meta3D)),
				norm(pre+"layernorm", last, "true")),
		},
		Cls: when("C > 0", classifier("classifier", last))})
}

var _ = register(efficientFormer)
