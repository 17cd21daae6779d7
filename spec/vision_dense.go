package spec

import "strings"

// Dense-prediction vision models: segmentation, depth, detection,
// keypoints and SAM (Segment Anything: its image encoder, prompt
// encoder and mask decoder; SAM-HQ's high-quality decoder), built from
// the blocks of blocks_dense.go.

// samFamily is SAM (hq: SAM-HQ): the image encoder from vision_config,
// the prompt encoder and the mask decoder, every name at the top level.
func samFamily(name, class, mt string, hq bool) *Family {
	g, s, fin := samVisionEncoder("vision_encoder.")
	ms, mf := samMaskDecoder("mask_decoder.")
	defs := cat(samVisionDefs("vision_config."), samPromptDefs())
	if hq {
		defs = append(defs, Def{Sym: "mVit", Field: "mask_decoder_config.vit_dim", Default: "768", Desc: "the ViT features' width", Pos: true})
		mf = cat(mf, samHQDecoder("mask_decoder."))
	}
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: defs, Global: cat(g, samPromptEncoder()), Stacks: []Stack{s, ms}, Final: cat(fin, mf),
		Embed: "vision_encoder.patch_embed.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
}

// samVisionFamily is SAM's image encoder alone (SamVisionModel), its
// fields at the top level.
func samVisionFamily(name, class, mt string) *Family {
	g, s, fin := samVisionEncoder("vision_encoder.")
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: samVisionDefs(""), Global: g, Stacks: []Stack{s}, Final: fin,
		Embed: "vision_encoder.patch_embed.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
}

var _ = register(
	func() *Family { return samFamily("SAM", "Sam", "sam", false) },
	func() *Family { return samFamily("SAM-HQ", "SamHQ", "sam_hq", true) },
	func() *Family { return samVisionFamily("SAM vision", "SamVision", "sam_vision_model") },
	func() *Family { return samVisionFamily("SAM-HQ vision", "SamHQVision", "sam_hq_vision_model") },
)

// mitEncoder is the Mix Transformer encoder under base
// ("segformer.encoder."; GLPN's too): num_encoder_blocks stages, each an
// overlapping patch embedding, depths[l] blocks of efficient attention
// (a strided reduction where sr_ratios[l] > 1) and a Mix-FFN with a
// depthwise convolution, then a LayerNorm. The attention is
// heads·(width/heads) wide: 5.x builds a width its heads do not divide
// (4.x refuses it). H is the last stage's width.
func mitEncoder(base string) ([]Def, []Stack) {
	w := "at(hs, l)"
	block := cat(norm("layer_norm_1", w, "true"), norm("layer_norm_2", w, "true"),
		renameSyms(cat(linear("attention.self.query", "A", "W", "true"), linear("attention.self.key", "A", "W", "true"),
			linear("attention.self.value", "A", "W", "true"), linear("attention.output.dense", "W", "A", "true"),
			when("at(sr, l) > 1", conv("attention.self.sr", "W", "W", "at(sr, l)", "at(sr, l)"), norm("attention.self.layer_norm", "W", "true")),
			linear("mlp.dense1", "W*at(mr, l)", "W", "true"), conv("mlp.dwconv.dwconv", "W*at(mr, l)", "1", "3", "3"),
			linear("mlp.dense2", "W", "W*at(mr, l)", "true")), "A", "at(nhd, l)*(W/at(nhd, l))", "W", w))
	defs := []Def{
		{Sym: "nS", Field: "num_encoder_blocks", Default: "4", Legend: "stages", Desc: "encoder stages", Show: true, Pos: true, Max: 16},
		listOf("hs", "hidden_sizes", "list(32, 64, 160, 256)", "each stage's width"),
		listOf("dp", "depths", "list(2, 2, 2, 2)", "each stage's blocks"),
		listOf("sr", "sr_ratios", "list(8, 4, 2, 1)", "each stage's sequence reduction"),
		listOf("nhd", "num_attention_heads", "list(1, 2, 5, 8)", "each stage's heads"),
		listOf("ps", "patch_sizes", "list(7, 3, 3, 3)", "each stage's patch side"),
		listOf("mr", "mlp_ratios", "list(4, 4, 4, 4)", "each stage's FFN ratio"),
		channels("Ch", "num_channels"),
		derived("H", "at(hs, len(hs)-1)"),
	}
	return defs, []Stack{
		{Name: "patch embedding", Prefix: base + "patch_embeddings.{l}.", Layers: "nS", Tensors: cat(
			conv("proj", w, "l == 0 ? Ch : at(hs, l-1)", "at(ps, l)", "at(ps, l)"), norm("layer_norm", w, "true"))},
		{Name: "stage", Prefix: base + "block.{l}.", Layers: "nS", Tensors: copies("at(dp, l)", under("{e}.", block))},
		{Name: "stage norm", Prefix: base + "layer_norm.{l}.", Layers: "nS", Tensors: []T{
			{Name: "weight", Shape: []string{w}, Role: RoleNorm}, {Name: "bias", Shape: []string{w}, Role: RoleBias}}},
	}
}

// segformerFamily is SegFormer: the Mix Transformer encoder; the
// semantic segmentation class adds the all-MLP decode head.
func segformerFamily() *Family {
	const base = "segformer.encoder."
	defs, stacks := mitEncoder(base)
	return &Family{Name: "SegFormer", Class: "Segformer", ModelTypes: []string{"segformer"}, Causal: "-", SeqCls: "-",
		Defs: cat(defs, []Def{
			{Sym: "dH", Field: "decoder_hidden_size", Default: "256", Desc: "the decode head's width", Pos: true},
		}),
		Stacks: stacks,
		Embed:  base + "patch_embeddings.0.proj.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForImageClassification", Head: classifier("classifier", "H"), Labels: true},
			{Suffix: "ForSemanticSegmentation", Labels: true, Head: cat(
				copies("nS", linear("decode_head.linear_c.{e}.proj", "dH", "at(hs, e)", "true")),
				convNB("decode_head.linear_fuse", "dH", "dH*nS", "1", "1"), batchNorm("decode_head.batch_norm", "dH"),
				conv("decode_head.classifier", "C", "dH", "1", "1"))},
		},
	}
}

var _ = register(segformerFamily)

// dptFamily is DPT on its own ViT (DPTModel with its pooler; the depth
// and segmentation classes add the neck and their heads). DPT-Hybrid
// (a BiT backbone) and DPT on a backbone_config are not modelled (exit 3).
func dptFamily() *Family {
	const base = "dpt."
	f := &Family{Name: "DPT", Class: "DPT", ModelTypes: []string{"dpt"}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("768", "12", "12", "16", "384"), []Def{inner("intermediate_size", "3072"),
			{Sym: "PO", Field: "pooler_output_size", Default: "H", Null: "H", Desc: "pooler width", Pos: true},
			listOf("nh", "neck_hidden_sizes", "list(96, 192, 384, 768)", "the reassembled features' widths"),
			{Sym: "rf", Field: "reassemble_factors", Type: MilliList, Default: "list(4000, 2000, 1000, 500)", Null: "=", Desc: "each feature's resize factor (×1000)"},
			{Sym: "readout", Field: "readout_type", Type: Str, Default: "'project'", Desc: "how the class token is read out"},
			{Sym: "F", Field: "fusion_hidden_size", Default: "256", Desc: "the fusion stage's width", Pos: true},
			flag("fBN", "use_batch_norm_in_fusion_residual", "false", "batch norms in the fusion residuals"),
			{Sym: "fBias", Field: "use_bias_in_fusion_residual", Type: Bool, Default: "!fBN", Null: "=", Desc: "the fusion residuals' convolutions have biases"},
			flag("addProj", "add_projection", "false", "the depth head's extra projection"),
			flag("aux", "use_auxiliary_head", "true", "the segmentation's auxiliary head"),
		}),
		Global: vitEmbeddings(base+"embeddings.", vitTokens{CLS: true}),
		Stacks: []Stack{{Prefix: base + "encoder.layer.{l}.", Layers: "L", Tensors: cat(vitAttention,
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"))}},
		Final: cat(norm(base+"layernorm", "H", "true"), when("pool", linear(base+"pooler.dense", "PO", "H", "true"))),
		Embed: base + "embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Defs: []Def{derived("pool", "true")}},
			{Suffix: "ForDepthEstimation", Head: cat(dptNeck("neck.", "H"),
				when("addProj", conv("head.projection", "256", "256", "3", "3")),
				conv("head.head.0", "F/2", "F", "3", "3"), conv("head.head.2", "32", "F/2", "3", "3"), conv("head.head.4", "1", "32", "1", "1"))},
			{Suffix: "ForSemanticSegmentation", Labels: true, Head: cat(dptNeck("neck.", "H"),
				convNB("head.head.0", "F", "F", "3", "3"), batchNorm("head.head.1", "F"), conv("head.head.4", "C", "F", "1", "1"),
				when("aux", convNB("auxiliary_head.head.0", "F", "F", "3", "3"), batchNorm("auxiliary_head.head.1", "F"), conv("auxiliary_head.head.4", "C", "F", "1", "1")))},
		},
	}
	return f.with(refuseWhen([]string{"is_hybrid"}, []string{"backbone_config", "backbone"},
		"DPT-Hybrid and DPT on a backbone (backbone_config, is_hybrid) are not modelled"))
}

var _ = register(dptFamily)

// depthAnythingFamily is Depth Anything: a backbone (backbone_config,
// DINOv2's Backbone class) with DPT's neck (no readout projection, the
// fusion residuals always biased) and a three-convolution depth head;
// Prompt Depth Anything (prompt) adds a prompt-depth layer to each
// fusion layer.
func depthAnythingFamily(name, class, mt string, prompt bool) *Family {
	var pd []T
	if prompt {
		pd = copies("len(nh)", under("neck.fusion_stage.layers.{e}.prompt_depth_layer.",
			conv("convolution1", "F", "1", "3", "3"), conv("convolution2", "F", "F", "3", "3"), conv("convolution3", "F", "F", "3", "3")))
	}
	return withBackbone(&Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "RH", Field: "reassemble_hidden_size", Default: "384", Desc: "the backbone features' width", Pos: true},
			listOf("nh", "neck_hidden_sizes", "list(96, 192, 384, 768)", "the reassembled features' widths"),
			{Sym: "rf", Field: "reassemble_factors", Type: MilliList, Default: "list(4000, 2000, 1000, 500)", Null: "=", Desc: "each feature's resize factor (×1000)"},
			{Sym: "F", Field: "fusion_hidden_size", Default: "64", Desc: "the fusion stage's width", Pos: true},
			{Sym: "hh", Field: "head_hidden_size", Default: "32", Desc: "the head's width", Pos: true},
			derived("readout", "'ignore'"), derived("fBN", "false"), derived("fBias", "true"),
		},
		Final: cat(dptNeck("neck.", "RH"), pd,
			conv("head.conv1", "F/2", "F", "3", "3"), conv("head.conv2", "hh", "F/2", "3", "3"), conv("head.conv3", "1", "hh", "1", "1")),
		Embed: "neck.convs.0.weight",
		Tasks: []Task{{Suffix: "ForDepthEstimation", KeepFinal: true}},
	}, "backbone_config.", "backbone.")
}

var _ = register(func() *Family { return depthAnythingFamily("Depth Anything", "DepthAnything", "depth_anything", false) },
	func() *Family {
		return depthAnythingFamily("Prompt Depth Anything", "PromptDepthAnything", "prompt_depth_anything", true)
	})

// vitDetFamily is ViTDet (VitDetModel, VitDetBackbone: the same
// tensors): a plain ViT with absolute positions for the pre-training
// image (and a class-token slot), relative position tables where
// use_relative_position_embeddings (a window's where the layer is in
// window_block_indices, else the image's), and a bottleneck residual
// block in the layers of residual_block_indices.
func vitDetFamily() *Family {
	rel := func(k string) string {
		return "in(l, wbi) && W > 0 ? 2*W-1 : 2*(pick(S, " + k + ")/pick(P, " + k + "))-1"
	}
	return &Family{Name: "ViTDet", Class: "VitDet", ModelTypes: []string{"vitdet"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "H", Field: "hidden_size", Default: "768", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "12", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			encHeads("num_attention_heads", "12"),
			{Sym: "mr", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
			{Sym: "S", Field: "image_size", Type: IntOrList, Default: "224", Desc: "image side, or [height, width]"},
			{Sym: "PS", Field: "pretrain_image_size", Type: IntOrList, Default: "224", Desc: "the pre-training image side"},
			{Sym: "P", Field: "patch_size", Type: IntOrList, Default: "16", Desc: "patch side"},
			channels("Ch", "num_channels"),
			flag("qkv_bias", "qkv_bias", "true", "qkv has a bias"),
			flag("abs", "use_absolute_position_embeddings", "true", "learned absolute positions"),
			flag("relp", "use_relative_position_embeddings", "false", "relative position tables"),
			{Sym: "W", Field: "window_size", Default: "0", Desc: "attention window side"},
			list("wbi", "window_block_indices", "the windowed layers"),
			list("rbi", "residual_block_indices", "the layers with a residual block"),
		},
		Global: []T{{Name: "embeddings.position_embeddings", Shape: []string{"1", "(pick(PS, 1)/pick(P, 1))*(pick(PS, 0)/pick(P, 0))+1", "H"}, Role: RoleEmbedding, If: "abs"},
			{Name: "embeddings.projection.weight", Shape: []string{"H", "Ch", "pick(P, 0)", "pick(P, 1)"}, Role: RoleLinear},
			{Name: "embeddings.projection.bias", Shape: []string{"H"}, Role: RoleBias}},
		Stacks: []Stack{{Prefix: "encoder.layer.{l}.", Layers: "L", Tensors: cat(
			norm("norm1", "H", "true"), linear("attention.qkv", "3*H", "H", "qkv_bias"), linear("attention.proj", "H", "H", "true"),
			// 4.x initialises the tables in float32 and writes them so.
			[]T{{Name: "attention.rel_pos_h", Shape: []string{rel("0"), "H/heads"}, Role: RoleEmbedding, If: "relp", AnyDType: true},
				{Name: "attention.rel_pos_w", Shape: []string{rel("1"), "H/heads"}, Role: RoleEmbedding, If: "relp", AnyDType: true}},
			norm("norm2", "H", "true"), linear("mlp.fc1", "H*mr/1000", "H", "true"), linear("mlp.fc2", "H", "H*mr/1000", "true"),
			when("in(l, rbi)", convNB("residual.conv1", "H/2", "H", "1", "1"), norm("residual.norm1", "H/2", "true"),
				convNB("residual.conv2", "H/2", "H/2", "3", "3"), norm("residual.norm2", "H/2", "true"),
				convNB("residual.conv3", "H", "H/2", "1", "1"), norm("residual.norm3", "H", "true")))}},
		Embed: "embeddings.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}, {Suffix: "Backbone", KeepFinal: true}},
	}
}

var _ = register(vitDetFamily)

// vitPoseFamily is ViTPose's backbone: a ViT without class token (its
// positions keep the slot), a padded patch projection, and where
// num_experts > 1 an MLP whose last part_features outputs are one
// linear per expert (the dataset's).
func vitPoseFamily() *Family {
	ffn := "H*mr/1000"
	return &Family{Name: "ViTPose backbone", Class: "VitPoseBackbone", ConfigClass: "VitPoseBackboneConfig", ModelTypes: []string{"vitpose_backbone"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "H", Field: "hidden_size", Default: "768", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "12", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_attention_heads", Default: "12", Desc: "attention heads", Pos: true},
			{Sym: "mr", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
			{Sym: "S", Field: "image_size", Type: IntOrList, Default: "list(256, 192)", Desc: "image [height, width]"},
			{Sym: "P", Field: "patch_size", Type: IntOrList, Default: "list(16, 16)", Desc: "patch [height, width]"},
			channels("Ch", "num_channels"),
			flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
			{Sym: "E", Field: "num_experts", Default: "1", Desc: "MLP experts (datasets)", Max: MaxExperts},
			{Sym: "pf", Field: "part_features", Default: "256", Desc: "the experts' output width"},
			derived("A", "heads*(H/heads)"),
		},
		Global: []T{{Name: "embeddings.position_embeddings", Shape: []string{"1", "(pick(S, 1)/pick(P, 1))*(pick(S, 0)/pick(P, 0))+1", "H"}, Role: RoleEmbedding},
			{Name: "embeddings.patch_embeddings.projection.weight", Shape: []string{"H", "Ch", "pick(P, 0)", "pick(P, 1)"}, Role: RoleLinear},
			{Name: "embeddings.patch_embeddings.projection.bias", Shape: []string{"H"}, Role: RoleBias}},
		Stacks: []Stack{{Prefix: "encoder.layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.attention.query", "A", "H", "qkv_bias"), linear("attention.attention.key", "A", "H", "qkv_bias"),
			linear("attention.attention.value", "A", "H", "qkv_bias"), linear("attention.output.dense", "H", "H", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"),
			linear("mlp.fc1", ffn, "H", "true"),
			when("E == 1", linear("mlp.fc2", "H", ffn, "true")),
			when("E > 1", linear("mlp.fc2", "H-pf", ffn, "true"), copies("E", linear("mlp.experts.{e}", "pf", ffn, "true"))))}},
		Final: norm("layernorm", "H", "true"),
		Embed: "embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{{Suffix: "", KeepFinal: true}},
	}
}

var _ = register(vitPoseFamily)

// superPointFamily is SuperPoint: a VGG-style encoder of two 3×3
// convolutions per entry of encoder_hidden_sizes on a one-channel image,
// and the keypoint and descriptor decoders on its last width.
func superPointFamily() *Family {
	last := "at(ehs, len(ehs)-1)"
	return &Family{Name: "SuperPoint", Class: "SuperPoint", ModelTypes: []string{"superpoint"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			listOf("ehs", "encoder_hidden_sizes", "list(64, 64, 128, 128)", "the encoder blocks' widths"),
			{Sym: "dH", Field: "decoder_hidden_size", Default: "256", Desc: "the decoders' width", Pos: true},
			{Sym: "kD", Field: "keypoint_decoder_dim", Default: "65", Desc: "keypoint scores per cell", Pos: true},
			{Sym: "dD", Field: "descriptor_decoder_dim", Default: "256", Desc: "descriptor width", Pos: true},
		},
		Global: copies("len(ehs)", conv("encoder.conv_blocks.{e}.conv_a", "at(ehs, e)", "e == 0 ? 1 : at(ehs, e-1)", "3", "3"),
			conv("encoder.conv_blocks.{e}.conv_b", "at(ehs, e)", "at(ehs, e)", "3", "3")),
		Final: cat(conv("keypoint_decoder.conv_score_a", "dH", last, "3", "3"), conv("keypoint_decoder.conv_score_b", "kD", "dH", "1", "1"),
			conv("descriptor_decoder.conv_descriptor_a", "dH", last, "3", "3"), conv("descriptor_decoder.conv_descriptor_b", "dD", "dH", "1", "1")),
		Embed: "encoder.conv_blocks.0.conv_a.weight",
		Tasks: []Task{{Suffix: "ForKeypointDetection", KeepFinal: true}},
	}
}

var _ = register(superPointFamily)

// segGPTFamily is SegGPT's model: a ViT on an image pair with prompt,
// segment and type tokens, absolute positions for the pre-training image
// and relative position tables for the (rectangular) input image.
func segGPTFamily() *Family {
	tok := func(n string) T {
		return T{Name: "embeddings." + n, Shape: []string{"1", "1", "1", "H"}, Role: RoleNorm}
	}
	return &Family{Name: "SegGPT", Class: "SegGpt", ModelTypes: []string{"seggpt"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "H", Field: "hidden_size", Default: "1024", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "24", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_attention_heads", Default: "16", Desc: "attention heads", Pos: true},
			{Sym: "I", Field: "mlp_dim", Default: "H*4", Null: "=", Legend: "I", Desc: "FFN width", Show: true, Pos: true},
			{Sym: "S", Field: "image_size", Type: IntOrList, Default: "list(896, 448)", Desc: "image [height, width]"},
			{Sym: "P", Field: "patch_size", Default: "16", Desc: "patch side", Pos: true},
			{Sym: "PS", Field: "pretrain_image_size", Default: "224", Desc: "the pre-training image side", Pos: true},
			channels("Ch", "num_channels"),
			flag("qkv_bias", "qkv_bias", "true", "qkv has a bias"),
			flag("relp", "use_relative_position_embeddings", "true", "relative position tables"),
		},
		Global: []T{tok("mask_token"), tok("segment_token_input"), tok("segment_token_prompt"), tok("type_token_semantic"), tok("type_token_instance"),
			{Name: "embeddings.patch_embeddings.projection.weight", Shape: []string{"H", "Ch", "P", "P"}, Role: RoleLinear},
			{Name: "embeddings.patch_embeddings.projection.bias", Shape: []string{"H"}, Role: RoleBias},
			{Name: "embeddings.position_embeddings", Shape: []string{"1", "(PS/P)*(PS/P)+1", "H"}, Role: RoleEmbedding}},
		Stacks: []Stack{{Prefix: "encoder.layers.{l}.", Layers: "L", Tensors: cat(
			linear("attention.qkv", "3*H", "H", "qkv_bias"), linear("attention.proj", "H", "H", "true"),
			[]T{{Name: "attention.rel_pos_h", Shape: []string{"2*(pick(S, 0)/P)-1", "H/heads"}, Role: RoleEmbedding, If: "relp"},
				{Name: "attention.rel_pos_w", Shape: []string{"2*(pick(S, 1)/P)-1", "H/heads"}, Role: RoleEmbedding, If: "relp"}},
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"),
			linear("mlp.lin1", "I", "H", "true"), linear("mlp.lin2", "H", "I", "true"))}},
		Final: norm("encoder.layernorm", "H", "true"),
		Embed: "embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
	}
}

var _ = register(segGPTFamily)

// owlFamily is OWL-ViT (v2: an objectness head too): CLIP's dual
// encoder (its vision tower's pre-norm named pre_layernorm), and the
// detector, the dual encoder under "owlvit." ("owlv2.") with box and
// class heads on the vision tower's tokens.
func owlFamily(name, class, mt, base string, vd [5]string, v2 bool) *Family {
	f := dualEncoder(name, class, mt, "clip_vision_model", vd, [5]string{"49408", "512", "12", "2048", "16"}, false)
	rename := func(ts []T, pre string) []T {
		out := make([]T, len(ts))
		for i, t := range ts {
			t.Name = pre + strings.Replace(t.Name, "pre_layrnorm", "pre_layernorm", 1)
			out[i] = t
		}
		return out
	}
	f.Global, f.Final = rename(f.Global, ""), rename(f.Final, "")
	det := *f
	det.Global, det.Final = rename(f.Global, base), rename(f.Final, base)
	det.Stacks = nil
	for _, s := range f.Stacks {
		s.Prefix = base + s.Prefix
		det.Stacks = append(det.Stacks, s)
	}
	det.Embed = base + f.Embed
	head := func(pre, out string) []T {
		return cat(linear(pre+".dense0", "vH", "vH", "true"), linear(pre+".dense1", "vH", "vH", "true"), linear(pre+".dense2", out, "vH", "true"))
	}
	heads := cat(head("box_head", "4"), linear("class_head.dense0", "tH", "vH", "true"),
		linear("class_head.logit_shift", "1", "vH", "true"), linear("class_head.logit_scale", "1", "vH", "true"),
		norm("layer_norm", "vH", "true"))
	if v2 {
		heads = cat(heads, head("objectness_head", "1"))
	}
	det.Tasks = nil
	f.Tasks = []Task{{Suffix: TaskBase, KeepFinal: true},
		{Suffix: "ForObjectDetection", Of: &det, KeepFinal: true, Head: heads}}
	return f
}

var _ = register(
	func() *Family {
		return owlFamily("OWL-ViT", "OwlViT", "owlvit", "owlvit.", [5]string{"768", "12", "3072", "32", "768"}, false)
	},
	func() *Family {
		return owlFamily("OWLv2", "Owlv2", "owlv2", "owlv2.", [5]string{"768", "12", "3072", "16", "960"}, true)
	},
)

// uperNetFamily is UperNet: a backbone (backbone_config: ResNet,
// ConvNeXt, Swin; their Backbone classes) whose feature maps (bOut, of
// widths bCh) feed a pyramid pooling module on the last (one 1×1
// convolution per pool_scales entry), a bottleneck, an FPN (a lateral
// and an output convolution per other map) and its bottleneck, each a
// bias-free convolution with its BatchNorm; the auxiliary FCN head
// (use_auxiliary_head) reads the third map (auxiliary_in_channels wide
// where set).
func uperNetFamily() *Family {
	ch := func(i string) string { return "at(bCh, at(bOut, " + i + "))" }
	head := uperHead{Conv: "conv", Norm: "batch_norm", PSP: "psp_modules.{e}.1.", Bottleneck: "bottleneck.",
		Maps: "len(bOut)", AuxN: "aN == 0 ? 0 : max(aN, 1)", Ch: ch}
	return withFeatureBackbone(&Family{Name: "UperNet", Class: "UperNet", ModelTypes: []string{"upernet"}, Causal: "-", SeqCls: "-",
		Defs: cat([]Def{
			{Sym: "H", Field: "hidden_size", Default: "512", Legend: "H", Desc: "the decode head's width", Show: true, Pos: true},
			listOf("ps", "pool_scales", "list(1, 2, 3, 6)", "the pyramid pooling scales"),
		}, uperAuxDefs(ch("2"))),
		Final: head.build(),
		Embed: "decode_head.classifier.weight",
		Tasks: []Task{{Suffix: "ForSemanticSegmentation", KeepFinal: true, Labels: true}},
	}, "backbone_config.", "backbone.")
}

var _ = register(uperNetFamily)

// glpnFamily is GLPN: the Mix Transformer encoder (mitEncoder) under
// "glpn.encoder."; the depth class adds the decoder (a stage per
// hidden_sizes entry, last first: a 1×1 convolution to
// decoder_hidden_size where the widths differ, then but for the first
// stage a selective feature fusion) and the two-convolution head.
func glpnFamily() *Family {
	const base = "glpn.encoder."
	defs, stacks := mitEncoder(base)
	in := "at(hs, len(hs)-1-e)"
	st := "decoder.stages.{e}."
	return &Family{Name: "GLPN", Class: "GLPN", ModelTypes: []string{"glpn"}, Causal: "-", SeqCls: "-",
		Defs: cat(defs, []Def{
			{Sym: "D", Field: "decoder_hidden_size", Default: "64", Legend: "D", Desc: "the decoder's width", Show: true, Pos: true},
		}),
		Stacks: stacks,
		Embed:  base + "patch_embeddings.0.proj.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForDepthEstimation", Head: cat(
				copies("len(hs)", when(in+" != D", conv(st+"convolution", "D", in, "1", "1")),
					when("e > 0", conv(st+"fusion.convolutional_layer1.0", "D", "2*D", "3", "3"), batchNorm(st+"fusion.convolutional_layer1.1", "D"),
						conv(st+"fusion.convolutional_layer2.0", "D/2", "D", "3", "3"), batchNorm(st+"fusion.convolutional_layer2.1", "D/2"),
						conv(st+"fusion.convolutional_layer3", "2", "D/2", "3", "3"))),
				conv("head.head.0", "D", "D", "3", "3"), conv("head.head.2", "1", "D", "3", "3"))},
		},
	}
}

var _ = register(glpnFamily)

// swin2srFamily is Swin2SR: a 3×3 convolution to embed_dim, a patch
// embedding on it (and absolute positions where
// use_absolute_embeddings), a stage per depths entry, all embed_dim wide
// (Swin V2 blocks of num_heads[l] heads, whose key has no bias, then the
// resi_connection: one 3×3 convolution, or three), a LayerNorm and a
// convolution after the body; the super-resolution class adds the
// upsampler config.upsampler names on 64 features (upscale 2^n: n
// 4×-wide convolutions; 3: one 9×-wide).
func swin2srFamily() *Family {
	const base = "swin2sr."
	lin := func(name, out, in, bias string) []T {
		return renameSyms(linear(name, "O", "N", bias), "O", out, "N", in)
	}
	nh := "at(nhd, l)"
	layer := cat(norm("layernorm_before", "E", "true"), norm("layernorm_after", "E", "true"),
		[]T{{Name: "attention.self.logit_scale", Shape: []string{nh, "1", "1"}, Role: RoleNorm}},
		linear("attention.self.continuous_position_bias_mlp.0", "512", "2", "true"),
		lin("attention.self.continuous_position_bias_mlp.2", nh, "512", ""),
		lin("attention.self.query", "E", "E", "qkv"), lin("attention.self.key", "E", "E", ""),
		lin("attention.self.value", "E", "E", "qkv"), lin("attention.output.dense", "E", "E", "true"),
		lin("intermediate.dense", "E*mr/1000", "E", "true"), lin("output.dense", "E", "E*mr/1000", "true"))
	up := func(pre string) []T { // Upsample
		return cat(when("pow(2, log2(scale)) == scale", copies("log2(scale)", conv(pre+"convolution_{e}", "4*64", "64", "3", "3"))),
			when("scale == 3", conv(pre+"convolution", "9*64", "64", "3", "3")))
	}
	return &Family{Name: "Swin2SR", Class: "Swin2SR", ModelTypes: []string{"swin2sr"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "E", Field: "embed_dim", Default: "180", Legend: "E", Desc: "width", Show: true, Pos: true},
			listOf("dp", "depths", "list(6, 6, 6, 6, 6, 6)", "each stage's blocks"),
			listOf("nhd", "num_heads", "list(6, 6, 6, 6, 6, 6)", "each stage's heads"),
			derived("nS", "len(dp)"),
			{Sym: "S", Field: "image_size", Type: IntOrList, Default: "64", Desc: "image side, or [height, width]"},
			{Sym: "P", Field: "patch_size", Type: IntOrList, Default: "1", Desc: "patch side, or [height, width]"},
			channels("Ch", "num_channels"),
			{Sym: "Co", Field: "num_channels_out", Default: "Ch", Null: "Ch", Desc: "output channels", Pos: true},
			{Sym: "mr", Field: "mlp_ratio", Type: Milli, Default: "2000", Desc: "FFN width over embed_dim (×1000)"},
			flag("qkv", "qkv_bias", "true", "query and value have biases"),
			flag("abs", "use_absolute_embeddings", "false", "learned absolute positions"),
			{Sym: "rc", Field: "resi_connection", Type: Str, Default: "'1conv'", Desc: "each stage's residual convolution: 1conv or 3conv"},
			{Sym: "ups", Field: "upsampler", Type: Str, Default: "'pixelshuffle'", Desc: "the upsampler"},
			{Sym: "scale", Field: "upscale", Default: "2", Desc: "the upscaling factor", Pos: true},
		},
		Global: cat(conv(base+"first_convolution", "E", "Ch", "3", "3"),
			[]T{{Name: base + "embeddings.patch_embeddings.projection.weight", Shape: []string{"E", "E", "pick(P, 0)", "pick(P, 1)"}, Role: RoleLinear},
				{Name: base + "embeddings.patch_embeddings.projection.bias", Shape: []string{"E"}, Role: RoleBias},
				{Name: base + "embeddings.position_embeddings", Shape: []string{"1", "(pick(S, 0)/pick(P, 0))*(pick(S, 1)/pick(P, 1))+1", "E"}, Role: RoleEmbedding, If: "abs"}},
			norm(base+"embeddings.patch_embeddings.layernorm", "E", "true")),
		Stacks: []Stack{{Name: "stage", Prefix: base + "encoder.stages.{l}.", Layers: "nS", Tensors: cat(
			blocksOf("layers.", "at(dp, l)", layer),
			when("rc == '1conv'", conv("conv", "E", "E", "3", "3")),
			when("rc == '3conv'", conv("conv.0", "E/4", "E", "3", "3"), conv("conv.2", "E/4", "E/4", "1", "1"), conv("conv.4", "E", "E/4", "3", "3")),
			[]T{{Name: "patch_embed.projection.weight", Shape: []string{"E", "E", "pick(P, 0)", "pick(P, 1)"}, Role: RoleLinear},
				{Name: "patch_embed.projection.bias", Shape: []string{"E"}, Role: RoleBias}})}},
		Final: cat(norm(base+"layernorm", "E", "true"), conv(base+"conv_after_body", "E", "E", "3", "3")),
		Embed: base + "first_convolution.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForImageSuperResolution", Head: cat(
				when("ups == 'pixelshuffle' || ups == 'pixelshuffle_aux' || ups == 'nearest+conv'",
					conv("upsample.conv_before_upsample", "64", "E", "3", "3"), conv("upsample.final_convolution", "Co", "64", "3", "3")),
				when("ups == 'pixelshuffle' || ups == 'pixelshuffle_aux'", up("upsample.upsample.")),
				when("ups == 'pixelshuffle_aux'", conv("upsample.conv_bicubic", "64", "Ch", "3", "3"),
					conv("upsample.conv_aux", "Ch", "64", "3", "3"), conv("upsample.conv_after_aux.0", "64", "3", "3", "3")),
				when("ups == 'pixelshuffledirect'", conv("upsample.conv", "scale*scale*Co", "E", "3", "3")),
				when("ups == 'nearest+conv'", conv("upsample.conv_up1", "64", "64", "3", "3"),
					conv("upsample.conv_up2", "64", "64", "3", "3"), conv("upsample.conv_hr", "64", "64", "3", "3")),
				when("ups != 'pixelshuffle' && ups != 'pixelshuffle_aux' && ups != 'pixelshuffledirect' && ups != 'nearest+conv'",
					conv("final_convolution", "Co", "E", "3", "3")))},
		},
	}
}

var _ = register(swin2srFamily)

// zoeDepthFamily is ZoeDepth: a ViT backbone (backbone_config: BEiT's
// or DINOv2's Backbone class, whose hidden_size transformers writes
// over backbone_hidden_size), DPT's neck on it, the relative depth head
// and the metric head: with one bin configuration a seed bin regressor,
// projectors and attractors (num_attractors[i] each, twice that where
// the bin centres are normed) and a conditional log-binomial MLP; with
// several, a patch transformer routing between per-configuration
// regressors, attractors and MLPs (ModuleDicts keyed by each
// configuration's name, its attractors 16 each whatever
// num_attractors says).
func zoeDepthFamily() *Family {
	const m = "metric_head."
	proj := func(pre, in, hid string) []T {
		return cat(conv(pre+"conv1", hid, in, "1", "1"), conv(pre+"conv2", "E", hid, "1", "1"))
	}
	attr := func(out string) []T {
		return cat(conv("conv1", "E", "E", "1", "1"), conv("conv2", out+"*(bct == 'normed' ? 2 : 1)", "E", "1", "1"))
	}
	named := func(each string, ts []T) []T {
		for i := range ts {
			ts[i].Each, ts[i].PerCopy = each, true
		}
		return ts
	}
	bin := func(k, def string) string { return "key(at(bc, e), '" + k + "', " + def + ")" }
	cond := func(pre, in, f string) []T {
		return cat(conv(pre+"mlp.0", "("+in+")/"+f, in, "1", "1"), conv(pre+"mlp.2", "4", "("+in+")/"+f, "1", "1"))
	}
	const pt = m + "patch_transformer.transformer_encoder.{e}."
	f := &Family{Name: "ZoeDepth", Class: "ZoeDepth", ModelTypes: []string{"zoedepth"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			derived("b_H", "1024"), derived("RH", "b_H"),
			listOf("nh", "neck_hidden_sizes", "list(96, 192, 384, 768)", "the reassembled features' widths"),
			{Sym: "rf", Field: "reassemble_factors", Type: MilliList, Default: "list(4000, 2000, 1000, 500)", Null: "=", Desc: "each feature's resize factor (×1000)"},
			{Sym: "readout", Field: "readout_type", Type: Str, Default: "'project'", Desc: "how the class token is read out"},
			{Sym: "F", Field: "fusion_hidden_size", Default: "256", Legend: "F", Desc: "the fusion stage's width", Show: true, Pos: true},
			flag("fBN", "use_batch_norm_in_fusion_residual", "false", "batch norms in the fusion residuals"),
			{Sym: "fBias", Field: "use_bias_in_fusion_residual", Type: Bool, Default: "!fBN", Null: "=", Desc: "the fusion residuals' convolutions have biases"},
			flag("addProj", "add_projection", "false", "the relative head's extra projection"),
			{Sym: "NR", Field: "num_relative_features", Default: "32", Desc: "the relative head's width", Pos: true},
			{Sym: "BF", Field: "bottleneck_features", Default: "256", Desc: "the metric head's bottleneck width", Pos: true},
			{Sym: "E", Field: "bin_embedding_dim", Default: "128", Desc: "the bin embeddings' width", Pos: true},
			listOf("na", "num_attractors", "list(16, 8, 4, 1)", "each attractor's points"),
			{Sym: "bct", Field: "bin_centers_type", Type: Str, Default: "'softplus'", Desc: "normed or softplus bin centres"},
			list("bc", "bin_configurations", "the bin configurations (absent: one of 64 bins)"),
			derived("multi", "len(bc) > 1"),
			{Sym: "PL", Field: "num_patch_transformer_layers", Default: "0", Null: "=", Desc: "the patch transformer's layers (several bin configurations)"},
			{Sym: "PH", Field: "patch_transformer_hidden_size", Default: "0", Null: "=", Desc: "the patch transformer's width"},
			{Sym: "PI", Field: "patch_transformer_intermediate_size", Default: "0", Null: "=", Desc: "the patch transformer's FFN width"},
			{Sym: "Pheads", Field: "patch_transformer_num_attention_heads", Default: "1", Null: "=", Desc: "the patch transformer's heads"},
		},
		Final: cat(dptNeck("neck.", "RH"),
			when("addProj", conv("relative_head.projection", "256", "256", "3", "3")),
			conv("relative_head.conv1", "F/2", "F", "3", "3"), conv("relative_head.conv2", "NR", "F/2", "3", "3"),
			conv("relative_head.conv3", "1", "NR", "1", "1"),
			conv(m+"conv2", "BF", "BF", "1", "1"),
			when("!multi",
				conv(m+"seed_bin_regressor.conv1", "256", "BF", "1", "1"),
				conv(m+"seed_bin_regressor.conv2", "len(bc) > 0 ? key(at(bc, 0), 'n_bins', 16) : 64", "256", "1", "1"),
				proj(m+"seed_projector.", "BF", "128"),
				copies("4", proj(m+"projectors.{e}.", "F", "128"), under(m+"attractors.{e}.", attr("at(na, e)"))),
				cond(m+"conditional_log_binomial.", "NR+1+E", "2")),
			when("multi",
				copies("PL", linear(pt+"self_attn.query", "Pheads*(PH/Pheads)", "PH", "true"), linear(pt+"self_attn.key", "Pheads*(PH/Pheads)", "PH", "true"),
					linear(pt+"self_attn.value", "Pheads*(PH/Pheads)", "PH", "true"), linear(pt+"self_attn.out_proj", "PH", "PH", "true"),
					linear(pt+"linear1", "PI", "PH", "true"), linear(pt+"linear2", "PH", "PI", "true"),
					norm(pt+"norm1", "PH", "true"), norm(pt+"norm2", "PH", "true")),
				conv(m+"patch_transformer.embedding_convPxP", "PH", "BF", "1", "1"),
				linear(m+"mlp_classifier.linear1", "128", "128", "true"), linear(m+"mlp_classifier.linear2", "2", "128", "true"),
				named("keys(bc, 'name')", cat(conv(m+"seed_bin_regressors.{e}.conv1", "E/2", "BF", "1", "1"),
					conv(m+"seed_bin_regressors.{e}.conv2", bin("n_bins", "16"), "E/2", "1", "1"),
					cond(m+"conditional_log_binomial.{e}.", "NR+E", "4"))),
				proj(m+"seed_projector.", "BF", "E/2"),
				copies("4", proj(m+"projectors.{e}.", "F", "E/2")),
				named("cross(keys(bc, 'name'), len(na))", under(m+"attractors.{e}.", attr("16"))))),
		Embed: "neck.convs.0.weight",
		Tasks: []Task{{Suffix: "ForDepthEstimation", KeepFinal: true}},
	}
	return onlyBackbones(withBackbone(f, "backbone_config.", "backbone."), "backbone_config.", "beit", "dinov2")
}

var _ = register(zoeDepthFamily)

// chmv2Family is CHMv2 (5.x): a ViT backbone (backbone_config, DINOv3's
// ViT by default) and DPT's head adapted: the reassemble stage on
// post_process_channels (readouts only for the layers built), 3×3
// convolutions to fusion_hidden_size, fusion layers (the first without
// its residual on the previous stage), then an upsampling head to
// number_output_channels depth bins.
func chmv2Family() *Family {
	const h = "head."
	return onlyBackbones(withBackbone(&Family{Name: "CHMv2", Class: "CHMv2", ModelTypes: []string{"chmv2"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			derived("b_H", "1024"),
			listOf("nh", "post_process_channels", "list(128, 256, 512, 1024)", "the reassembled features' widths"),
			{Sym: "rf", Field: "reassemble_factors", Type: MilliList, Default: "list(4000, 2000, 1000, 500)", Null: "=", Desc: "each feature's resize factor (×1000)"},
			{Sym: "readout", Field: "readout_type", Type: Str, Default: "'project'", Desc: "how the class token is read out"},
			{Sym: "F", Field: "fusion_hidden_size", Default: "256", Legend: "F", Desc: "the fusion stage's width", Show: true, Pos: true},
			{Sym: "hh", Field: "head_hidden_size", Default: "128", Desc: "the head's width", Pos: true},
			{Sym: "NO", Field: "number_output_channels", Default: "256", Desc: "depth bins", Pos: true},
		},
		Final: cat(dptReassemble(h+"reassemble_stage.", "b_H", "min(len(nh), len(rf))"),
			copies("len(nh)", convNB(h+"convs.{e}", "F", "at(nh, e)", "3", "3"),
				conv(h+"fusion_layers.{e}.projection", "F", "F", "1", "1"),
				when("e > 0", convBias(h+"fusion_layers.{e}.residual_layer1.convolution1", "F", "F", "3", "true"),
					convBias(h+"fusion_layers.{e}.residual_layer1.convolution2", "F", "F", "3", "true")),
				convBias(h+"fusion_layers.{e}.residual_layer2.convolution1", "F", "F", "3", "true"),
				convBias(h+"fusion_layers.{e}.residual_layer2.convolution2", "F", "F", "3", "true")),
			conv(h+"conv_depth.head.0", "F/2", "F", "3", "3"), conv(h+"conv_depth.head.2", "hh", "F/2", "3", "3"),
			conv(h+"conv_depth.head.4", "NO", "hh", "1", "1")),
		Embed: h + "convs.0.weight",
		Tasks: []Task{{Suffix: "ForDepthEstimation", KeepFinal: true}},
	}, "backbone_config.", "backbone."), "backbone_config.", "dinov3_vit", "dinov2")
}

var _ = register(chmv2Family)

// depthProFamily is DepthPro: two ViTs (image_model_config and
// patch_model_config, each the base model of the family its model_type
// names: DINOv2 by default, every sub-config's image_size set to
// patch_size) and the neck upsampling their features (the image
// features, one block per scaled image and per intermediate hook, the
// latter 2+i transposed convolutions deep) and projecting them to
// fusion_hidden_size; the depth class adds the fusion stage, the head
// and, where use_fov_model, the field-of-view model (a third ViT,
// fov_model_config, and its strided convolutions).
func depthProFamily() *Family {
	const n = "depth_pro.neck."
	const fu = n + "feature_upsample."
	comb := "concat(sfd, ifd)"
	fusion := func(pre string, deconv bool) []T {
		ts := cat(convBias(pre+"residual_layer1.convolution1", "F", "F", "3", "fBias"), convBias(pre+"residual_layer1.convolution2", "F", "F", "3", "fBias"),
			convBias(pre+"residual_layer2.convolution1", "F", "F", "3", "fBias"), convBias(pre+"residual_layer2.convolution2", "F", "F", "3", "fBias"),
			when("fBN", batchNorm(pre+"residual_layer1.batch_norm1", "F"), batchNorm(pre+"residual_layer1.batch_norm2", "F"),
				batchNorm(pre+"residual_layer2.batch_norm1", "F"), batchNorm(pre+"residual_layer2.batch_norm2", "F")),
			conv(pre+"projection", "F", "F", "1", "1"))
		if deconv {
			ts = cat(ts, convNB(pre+"deconv", "F", "F", "2", "2"))
		}
		return ts
	}
	// ceil(F/2^k)
	half := func(k string) string { return "(F+pow(2, " + k + ")-1)/pow(2, " + k + ")" }
	fovK := "(PS/i_P-1)/pow(2, nFov)+1"
	f := &Family{Name: "DepthPro", Class: "DepthPro", ModelTypes: []string{"depth_pro"}, Causal: "-", SeqCls: "-",
		BasePrefix: "depth_pro.",
		Defs: []Def{
			derived("i_H", "1024"), derived("i_P", "16"), derived("p_H", "1024"), derived("f_H", "1024"),
			{Sym: "F", Field: "fusion_hidden_size", Default: "256", Legend: "F", Desc: "the fusion stage's width", Show: true, Pos: true},
			{Sym: "PS", Field: "patch_size", Default: "384", Desc: "the side of each patch the ViTs see (their image_size)", Pos: true},
			listOf("ifd", "intermediate_feature_dims", "list(256, 256)", "each intermediate hook's width"),
			listOf("sfd", "scaled_images_feature_dims", "list(1024, 1024, 512)", "each scaled image's width"),
			{Sym: "nHooks", Field: "intermediate_hook_ids", Type: Count, Default: "2", Desc: "intermediate hooks"},
			{Sym: "nScaled", Field: "scaled_images_ratios", Type: Count, Default: "3", Desc: "scaled images"},
			flag("fBN", "use_batch_norm_in_fusion_residual", "false", "batch norms in the fusion residuals"),
			{Sym: "fBias", Field: "use_bias_in_fusion_residual", Type: Bool, Default: "!fBN", Null: "!fBN", Desc: "the fusion residuals' convolutions have biases"},
			{Sym: "nFov", Field: "num_fov_head_layers", Default: "2", Desc: "the field-of-view head's strided convolutions"},
			flag("fov", "use_fov_model", "false", "the field-of-view model"),
			derived("isHead", "false"),
		},
		Stacks: []Stack{{Name: "intermediate upsampling", Prefix: fu + "intermediate.{l}.", Layers: "len(ifd)", Tensors: cat(
			convNB("layers.0", "l == 0 ? F : at(ifd, l)", "p_H", "1", "1"),
			[]T{{Name: "layers.{e}.weight", Shape: []string{"e == 1 ? (l == 0 ? F : at(ifd, l)) : at(ifd, l)", "at(ifd, l)", "2", "2"}, Role: RoleLinear, Experts: "2+l", From: "1", PerCopy: true}})}},
		Final: cat(
			convT(fu+"image_block.layers.0", "i_H", "at(sfd, 0)", "2"),
			copies("len(sfd)", convNB(fu+"scaled_images.{e}.layers.0", "at(sfd, e)", "p_H", "1", "1"), convNB(fu+"scaled_images.{e}.layers.1", "at(sfd, e)", "at(sfd, e)", "2", "2")),
			conv(n+"fuse_image_with_low_res", "at(sfd, 0)", "2*at(sfd, 0)", "1", "1"),
			copies("len("+comb+")", when("e != len("+comb+")-1 || at("+comb+", e) != F", convNB(n+"feature_projection.projections.{e}", "F", "at("+comb+", e)", "3", "3"))),
			when("isHead",
				copies("nHooks+nScaled-1", fusion("fusion_stage.intermediate.{e}.", true)), fusion("fusion_stage.final.", false),
				conv("head.layers.0", "F/2", "F", "3", "3"), convT("head.layers.1", "F/2", "F/2", "2"),
				conv("head.layers.2", "32", "F/2", "3", "3"), conv("head.layers.4", "1", "32", "1", "1")),
			when("isHead && fov",
				linear("fov_model.fov_encoder.neck", "F/2", "f_H", "true"), conv("fov_model.conv", "F/2", "F", "3", "3"),
				[]T{{Name: "fov_model.head.layers.{e}.weight", Shape: []string{half("e/2+2"), half("e/2+1"), "3", "3"}, Role: RoleLinear, Experts: "2*nFov", PerCopy: true, If: "e % 2 == 0"},
					{Name: "fov_model.head.layers.{e}.bias", Shape: []string{half("e/2+2")}, Role: RoleBias, Experts: "2*nFov", PerCopy: true, If: "e % 2 == 0"}},
				[]T{{Name: "fov_model.head.layers.{e}.weight", Shape: []string{"1", half("nFov+1"), fovK, fovK}, Role: RoleLinear, Experts: "1", From: "2*nFov", PerCopy: true},
					{Name: "fov_model.head.layers.{e}.bias", Shape: []string{"1"}, Role: RoleBias, Experts: "1", From: "2*nFov", PerCopy: true}})),
		Embed: n + "fuse_image_with_low_res.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForDepthEstimation", KeepFinal: true, Defs: []Def{derived("isHead", "true")}}},
	}
	vit := func(cfg, pre, sym string) modelPart {
		return modelPart{Cfg: cfg, Pre: pre, Suffix: TaskBase, Sym: sym, Need: []string{"H", "P"}, Set: map[string]string{"S": "PS"}}
	}
	fovPart := vit("fov_model_config.", "fov_model.fov_encoder.model.", "f_")
	fovPart.If, fovPart.Flag = "isHead", "use_fov_model"
	return withParts(f, vit("image_model_config.", "depth_pro.encoder.image_encoder.model.", "i_"),
		vit("patch_model_config.", "depth_pro.encoder.patch_encoder.model.", "p_"), fovPart)
}

var _ = register(depthProFamily)
