package spec

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
	samFamily("SAM", "Sam", "sam", false),
	samFamily("SAM-HQ", "SamHQ", "sam_hq", true),
	samVisionFamily("SAM vision", "SamVision", "sam_vision_model"),
	samVisionFamily("SAM-HQ vision", "SamHQVision", "sam_hq_vision_model"),
)

// segformerFamily is SegFormer (Mix Transformer): num_encoder_blocks
// stages, each an overlapping patch embedding, depths[l] blocks of
// efficient attention (a strided reduction where sr_ratios[l] > 1) and a
// Mix-FFN with a depthwise convolution, then a LayerNorm; the semantic
// segmentation class adds the all-MLP decode head. The attention is
// heads·(width/heads) wide: 5.x builds a width its heads do not divide
// (4.x refuses it).
func segformerFamily() *Family {
	w := "at(hs, l)"
	block := cat(norm("layer_norm_1", w, "true"), norm("layer_norm_2", w, "true"),
		renameSyms(cat(linear("attention.self.query", "A", "W", "true"), linear("attention.self.key", "A", "W", "true"),
			linear("attention.self.value", "A", "W", "true"), linear("attention.output.dense", "W", "A", "true"),
			when("at(sr, l) > 1", conv("attention.self.sr", "W", "W", "at(sr, l)", "at(sr, l)"), norm("attention.self.layer_norm", "W", "true")),
			linear("mlp.dense1", "W*at(mr, l)", "W", "true"), conv("mlp.dwconv.dwconv", "W*at(mr, l)", "1", "3", "3"),
			linear("mlp.dense2", "W", "W*at(mr, l)", "true")), "A", "at(nhd, l)*(W/at(nhd, l))", "W", w))
	const base = "segformer.encoder."
	return &Family{Name: "SegFormer", Class: "Segformer", ModelTypes: []string{"segformer"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "nS", Field: "num_encoder_blocks", Default: "4", Legend: "stages", Desc: "encoder stages", Show: true, Pos: true, Max: 16},
			{Sym: "hs", Field: "hidden_sizes", Type: List, Default: "list(32, 64, 160, 256)", Null: "=", Desc: "each stage's width"},
			{Sym: "dp", Field: "depths", Type: List, Default: "list(2, 2, 2, 2)", Null: "=", Desc: "each stage's blocks"},
			{Sym: "sr", Field: "sr_ratios", Type: List, Default: "list(8, 4, 2, 1)", Null: "=", Desc: "each stage's sequence reduction"},
			{Sym: "nhd", Field: "num_attention_heads", Type: List, Default: "list(1, 2, 5, 8)", Null: "=", Desc: "each stage's heads"},
			{Sym: "ps", Field: "patch_sizes", Type: List, Default: "list(7, 3, 3, 3)", Null: "=", Desc: "each stage's patch side"},
			{Sym: "mr", Field: "mlp_ratios", Type: List, Default: "list(4, 4, 4, 4)", Null: "=", Desc: "each stage's FFN ratio"},
			{Sym: "Ch", Field: "num_channels", Default: "3", Desc: "image channels", Pos: true},
			{Sym: "dH", Field: "decoder_hidden_size", Default: "256", Desc: "the decode head's width", Pos: true},
			derived("H", "at(hs, len(hs)-1)"),
		},
		Stacks: []Stack{
			{Name: "patch embedding", Prefix: base + "patch_embeddings.{l}.", Layers: "nS", Tensors: cat(
				conv("proj", w, "l == 0 ? Ch : at(hs, l-1)", "at(ps, l)", "at(ps, l)"), norm("layer_norm", w, "true"))},
			{Name: "stage", Prefix: base + "block.{l}.", Layers: "nS", Tensors: copies("at(dp, l)", under("{e}.", block))},
			{Name: "stage norm", Prefix: base + "layer_norm.{l}.", Layers: "nS", Tensors: []T{
				{Name: "weight", Shape: []string{w}, Role: RoleNorm}, {Name: "bias", Shape: []string{w}, Role: RoleBias}}},
		},
		Embed: base + "patch_embeddings.0.proj.weight",
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

var _ = register(segformerFamily())

// dptFamily is DPT on its own ViT (DPTModel with its pooler; the depth
// and segmentation classes add the neck and their heads). DPT-Hybrid
// (a BiT backbone) and DPT on a backbone_config are not modelled (exit 3).
func dptFamily() *Family {
	const base = "dpt."
	f := &Family{Name: "DPT", Class: "DPT", ModelTypes: []string{"dpt"}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("768", "12", "12", "16", "384"), []Def{inner("intermediate_size", "3072"),
			{Sym: "PO", Field: "pooler_output_size", Default: "H", Null: "H", Desc: "pooler width", Pos: true},
			{Sym: "nh", Field: "neck_hidden_sizes", Type: List, Default: "list(96, 192, 384, 768)", Null: "=", Desc: "the reassembled features' widths"},
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
			{Suffix: "ForDepthEstimation", Head: cat(dptNeck("neck."),
				when("addProj", conv("head.projection", "256", "256", "3", "3")),
				conv("head.head.0", "F/2", "F", "3", "3"), conv("head.head.2", "32", "F/2", "3", "3"), conv("head.head.4", "1", "32", "1", "1"))},
			{Suffix: "ForSemanticSegmentation", Labels: true, Head: cat(dptNeck("neck."),
				convNB("head.head.0", "F", "F", "3", "3"), batchNorm("head.head.1", "F"), conv("head.head.4", "C", "F", "1", "1"),
				when("aux", convNB("auxiliary_head.head.0", "F", "F", "3", "3"), batchNorm("auxiliary_head.head.1", "F"), conv("auxiliary_head.head.4", "C", "F", "1", "1")))},
		},
	}
	return f.with(refuseWhen([]string{"is_hybrid"}, []string{"backbone_config", "backbone"},
		"DPT-Hybrid and DPT on a backbone (backbone_config, is_hybrid) are not modelled"))
}

var _ = register(dptFamily())
