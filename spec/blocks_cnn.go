package spec

// Shared blocks of convolutional and hierarchical vision backbones
// (vision_cnn.go): a convolution with its BatchNorm, residual blocks
// repeated per stage, and the ResNet encoder other models take as their
// backbone (UperNet, the DETR-likes).

// cbn is a convolution and the norm after it, under a layer's prefix:
// ResNet's ResNetConvLayer (convolution, normalization), MobileNet's,
// EfficientNet's. Shapes are expressions.
type cbn struct {
	Conv, Norm string // the sub-module names; Norm "" when there is none
	Out, In    string // channels
	K, KW      string // kernel side (KW: its width when not square)
	Groups     string // "" is 1; the weight's input dimension is In/Groups
	Bias       string // the convolution's bias condition ("" none)
	NormBias   string // LayerNorm-style norm (weight, bias) instead of BatchNorm when set: its bias condition
}

// at is the layer's tensors under pre ("embedder.embedder.").
func (o cbn) at(pre string) []T {
	in := o.In
	if o.Groups != "" && o.Groups != "1" {
		in = "(" + o.In + ")/(" + o.Groups + ")"
	}
	kw := o.KW
	if kw == "" {
		kw = o.K
	}
	out := []T{{Name: pre + o.Conv + ".weight", Shape: []string{o.Out, in, o.K, kw}, Role: RoleLinear}}
	if o.Bias != "" {
		out = append(out, T{Name: pre + o.Conv + ".bias", Shape: []string{o.Out}, Role: RoleBias, If: o.Bias})
	}
	switch {
	case o.Norm == "":
	case o.NormBias != "":
		out = cat(out, norm(pre+o.Norm, o.Out, o.NormBias))
	default:
		out = cat(out, batchNorm(pre+o.Norm, o.Out))
	}
	return out
}

// convLayer is ResNet's conv layer (ResNetConvLayer, RegNet's, BiT's
// names): a bias-free convolution "convolution" and BatchNorm
// "normalization".
func convLayer(pre, out, in, k string) []T {
	return cbn{Conv: "convolution", Norm: "normalization", Out: out, In: in, K: k}.at(pre)
}

// blocksOf is ts repeated n times under pre+"{e}." (a stage's residual
// blocks): e, the block's index, is bound in their shapes and conditions.
func blocksOf(pre, n string, ts []T) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		out[i].Name = pre + "{e}." + out[i].Name
		out[i].Experts, out[i].PerCopy = n, true
	}
	return out
}

// stageWidth is entry l of the per-stage list hs; stageIn is the width
// entering block e of stage l: the stem's (stem) for the first block of
// the first stage, the previous stage's for every first block, the
// stage's own after.
func stageIn(hs, stem string) string {
	return "(e > 0 ? at(" + hs + ", l) : (l > 0 ? at(" + hs + ", l-1) : " + stem + "))"
}

// resnetEncoder is a ResNet (ResNetModel) under pre ("resnet."), its
// fields under cfg ("" or "backbone_config."): a 7×7 stem convolution
// embedding_size wide, then a stage per entry of depths and hidden_sizes
// of depths[l] residual blocks (bottleneck: 1×1 to a quarter width, 3×3,
// 1×1 out; basic: two 3×3), the first block of each stage with a
// projection shortcut where its width or stride changes (every stage
// after the first; the first where embedding_size differs or
// downsample_in_first_stage). Symbols: rC, rE, rhs, rdp, rN, rBot, rDF,
// rH (the last stage's width).
func resnetEncoder(pre, cfg string) encoderPart {
	defs := append(resnetDefs(cfg), derived("rH", "at(rhs, rN-1)"))
	w, in := "at(rhs, l)", stageIn("rhs", "rE")
	q := "(" + w + ")/4"
	block := cat(
		when("e == 0 && (l > 0 || rDF || rE != at(rhs, 0))", convLayer("shortcut.", w, in, "1")),
		when("rBot", convLayer("layer.0.", q, in, "1"), convLayer("layer.1.", q, q, "3"), convLayer("layer.2.", w, q, "1")),
		when("!rBot", convLayer("layer.0.", w, in, "3"), convLayer("layer.1.", w, w, "3")))
	return encoderPart{Name: "ResNet", Defs: defs,
		Global: convLayer(pre+"embedder.embedder.", "rE", "rC", "7"),
		Stacks: []Stack{{Name: "stage", Prefix: pre + "encoder.stages.{l}.", Layers: "rN", Tensors: blocksOf("layers.", "at(rdp, l)", block)}}}
}

// invRes is MobileNet v2's inverted residual (MobileViT's, v1 and v2):
// a 1×1 expansion to Mid channels, a depthwise 3×3 and a 1×1 projection
// to Out, each a bias-free convolution with its BatchNorm
// (expand_1x1, conv_3x3, reduce_1x1).
type invRes struct{ In, Mid, Out string }

// at is the block's tensors under pre ("layer.0.").
func (o invRes) at(pre string) []T {
	return cat(convLayer(pre+"expand_1x1.", o.Mid, o.In, "1"),
		cbn{Conv: "convolution", Norm: "normalization", Out: o.Mid, In: o.Mid, Groups: o.Mid, K: "3"}.at(pre+"conv_3x3."),
		convLayer(pre+"reduce_1x1.", o.Out, o.Mid, "1"))
}

// deepLabV3 is the DeepLabV3 segmentation head of MobileViT (v1 and v2):
// an atrous spatial pyramid on In channels (a 1×1 and three 3×3
// branches, an image-pooling 1×1, a projection of the five, each
// convolution Out wide with its BatchNorm) and a biased 1×1 classifier
// to the C labels.
type deepLabV3 struct{ In, Out string }

// at is the head under pre ("segmentation_head.").
func (o deepLabV3) at(pre string) []T {
	a := pre + "aspp."
	return cat(convLayer(a+"convs.0.", o.Out, o.In, "1"),
		convLayer(a+"convs.1.", o.Out, o.In, "3"), convLayer(a+"convs.2.", o.Out, o.In, "3"), convLayer(a+"convs.3.", o.Out, o.In, "3"),
		convLayer(a+"convs.4.conv_1x1.", o.Out, o.In, "1"), convLayer(a+"project.", o.Out, "5*("+o.Out+")", "1"),
		cbn{Conv: "convolution", Out: "C", In: o.Out, K: "1", Bias: "true"}.at(pre+"classifier."))
}

// stemStages are a CNN's image channels (Ch), its stem's width (E,
// embedding_size), each stage's width (hs, described by widthDesc) and
// blocks (dp), and the stage count nS, with the class's defaults.
func stemStages(stem, widths, depths, widthDesc string) []Def {
	return []Def{
		channels("Ch", "num_channels"),
		{Sym: "E", Field: "embedding_size", Default: stem, Legend: "E", Desc: "stem width", Show: true, Pos: true},
		listOf("hs", "hidden_sizes", widths, widthDesc),
		listOf("dp", "depths", depths, "each stage's blocks"),
		derived("nS", "min(len(hs), len(dp))"),
	}
}

// encoderStages are a hierarchical encoder's stage count (nS,
// num_encoder_blocks), each stage's width (hs) and blocks (dp), with the
// class's defaults.
func encoderStages(widths, depths string) []Def {
	return []Def{
		{Sym: "nS", Field: "num_encoder_blocks", Default: "4", Legend: "stages", Desc: "stages", Show: true, Pos: true, Max: 16},
		listOf("hs", "hidden_sizes", widths, "each stage's width"),
		listOf("dp", "depths", depths, "each stage's blocks"),
	}
}

// resnetDefs are ResNetConfig's fields under cfg (RT-DETR's ResNet-D
// reads the same): symbols rC, rE, rhs, rdp, rN, rLT, rBot, rDF.
func resnetDefs(cfg string) []Def {
	return []Def{
		channels("rC", cfg+"num_channels"),
		{Sym: "rE", Field: cfg + "embedding_size", Default: "64", Legend: "E", Desc: "stem width", Show: true, Pos: true},
		listOf("rhs", cfg+"hidden_sizes", "list(256, 512, 1024, 2048)", "each stage's width"),
		listOf("rdp", cfg+"depths", "list(3, 4, 6, 3)", "each stage's blocks"),
		derived("rN", "min(len(rhs), len(rdp))"),
		{Sym: "rLT", Field: cfg + "layer_type", Type: Str, Default: "'bottleneck'", Desc: "the residual block: bottleneck or basic"},
		derived("rBot", "rLT == 'bottleneck'"),
		flag("rDF", cfg+"downsample_in_first_stage", "false", "the first stage downsamples"),
	}
}
