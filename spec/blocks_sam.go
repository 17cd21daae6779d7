package spec

// Blocks of the SAM 2 group (vision_sam.go): SAM 2's Hiera image encoder
// and FPN neck, the two-way mask decoder and prompt encoder SAM, SAM 2
// and SAM 3's tracker share (named by an option struct), the video
// models' memory attention and memory encoder. Each returns plain data
// to concatenate with cat, as the blocks of blocks.go do.

// samDecoder names the parts of a SAM-style two-way mask decoder that
// differ between generations.
type samDecoder struct {
	MLP [2]string // the two-way layers' MLP: lin1/lin2 (SAM), proj_in/proj_out (SAM 2)
	Out string    // the attentions' output projection: out_proj (SAM), o_proj (SAM 2)
	// Sam2 adds the object-score token and head and the high-resolution
	// feature convolutions conv_s0/conv_s1, and makes the two-way layers'
	// MLP num_hidden_layers deep (SAM 2's Sam2FeedForward takes the
	// decoder's layer count as its depth: layers.K [mlp_dim, mlp_dim]).
	Sam2 bool
}

var (
	samV1Decoder = samDecoder{MLP: [2]string{"lin1", "lin2"}, Out: "out_proj"}
	sam2Decoder  = samDecoder{MLP: [2]string{"proj_in", "proj_out"}, Out: "o_proj", Sam2: true}
)

// attn is q/k/v/out projections under pre, width w on hidden h.
func (o samDecoder) attn(pre, h, w string) []T {
	return cat(linear(pre+"q_proj", w, h, "true"), linear(pre+"k_proj", w, h, "true"),
		linear(pre+"v_proj", w, h, "true"), linear(pre+o.Out, h, w, "true"))
}

// build is the mask decoder under pre ("mask_decoder."): the two-way
// transformer (a stack), its final attention, the output tokens, the
// upscaling and the hypernetwork and IoU MLPs (samPromptDefs' symbols).
func (o samDecoder) build(pre string) (stack Stack, final []T) {
	w := "mH/mDS"
	var deep []T
	if o.Sam2 {
		deep = copies("max(mL-2, 0)", linear("mlp.layers.{e}", "mI", "mI", "true"))
	}
	stack = Stack{Name: "mask decoder", Prefix: pre + "transformer.layers.{l}.", Layers: "mL", Tensors: cat(
		o.attn("self_attn.", "mH", "mH"), norm("layer_norm1", "mH", "true"),
		o.attn("cross_attn_token_to_image.", "mH", w), norm("layer_norm2", "mH", "true"),
		linear("mlp."+o.MLP[0], "mI", "mH", "true"), linear("mlp."+o.MLP[1], "mH", "mI", "true"), norm("layer_norm3", "mH", "true"), deep,
		norm("layer_norm4", "mH", "true"), o.attn("cross_attn_image_to_token.", "mH", w))}
	final = cat(o.attn(pre+"transformer.final_attn_token_to_image.", "mH", w),
		norm(pre+"transformer.layer_norm_final_attn", "mH", "true"),
		[]T{{Name: pre + "iou_token.weight", Shape: []string{"1", "mH"}, Role: RoleEmbedding},
			{Name: pre + "mask_tokens.weight", Shape: []string{"mMM+1", "mH"}, Role: RoleEmbedding}},
		convT(pre+"upscale_conv1", "mH", "mH/4", "2"), convT(pre+"upscale_conv2", "mH/4", "mH/8", "2"),
		norm(pre+"upscale_layer_norm", "mH/4", "true"),
		copies("mMM+1", samFeedForward(pre+"output_hypernetworks_mlps.{e}.", "mH", "mH", "mH/8", "3", true)),
		samFeedForward(pre+"iou_prediction_head.", "mH", "mIouH", "mMM+1", "mIouD", false))
	if o.Sam2 {
		final = cat(final, conv(pre+"conv_s0", "mH/8", "mH", "1", "1"), conv(pre+"conv_s1", "mH/4", "mH", "1", "1"),
			[]T{{Name: pre + "obj_score_token.weight", Shape: []string{"1", "mH"}, Role: RoleEmbedding}},
			samFeedForward(pre+"pred_obj_score_head.", "mH", "mH", "1", "3", true))
	}
	return stack, final
}

// samPrompt says how a SAM-style prompt encoder stores its random
// positions and point embeddings.
type samPrompt struct {
	Pos string // the random Fourier features' count: sNPF (SAM's vision config), pH/2 (SAM 2)
	// PointTable: the point embeddings are one table [N, H] (SAM 2), not
	// N embeddings of one row (SAM).
	PointTable bool
}

// build is the prompt encoder under pre ("" or "tracker_model."), with
// the shared random positions (written by 4.x under prompt_encoder too;
// 5.x ties it).
func (o samPrompt) build(pre string) []T {
	points := copies("pN", []T{{Name: pre + "prompt_encoder.point_embed.{e}.weight", Shape: []string{"1", "pH"}, Role: RoleEmbedding}})
	if o.PointTable {
		points = []T{{Name: pre + "prompt_encoder.point_embed.weight", Shape: []string{"pN", "pH"}, Role: RoleEmbedding}}
	}
	return cat(
		[]T{{Name: pre + "shared_image_embedding.positional_embedding", Shape: []string{"2", o.Pos}, Role: RoleNorm},
			{Name: pre + "prompt_encoder.shared_embedding.positional_embedding", Shape: []string{"2", o.Pos}, Role: RoleNorm, Optional: "true"}},
		conv(pre+"prompt_encoder.mask_embed.conv1", "pMC/4", "1", "2", "2"),
		conv(pre+"prompt_encoder.mask_embed.conv2", "pMC", "pMC/4", "2", "2"),
		conv(pre+"prompt_encoder.mask_embed.conv3", "pH", "pMC", "1", "1"),
		norm(pre+"prompt_encoder.mask_embed.layer_norm1", "pMC/4", "true"),
		norm(pre+"prompt_encoder.mask_embed.layer_norm2", "(pMC/4)*4", "true"),
		[]T{{Name: pre + "prompt_encoder.no_mask_embed.weight", Shape: []string{"1", "pH"}, Role: RoleEmbedding},
			{Name: pre + "prompt_encoder.not_a_point_embed.weight", Shape: []string{"1", "pH"}, Role: RoleEmbedding}},
		points)
}

// hieraDefs are Sam2HieraDetConfig's fields under cfg ("" alone,
// "backbone_config." in the vision model): per-stage block counts,
// widths and windows.
func hieraDefs(cfg string) []Def {
	return []Def{
		{Sym: "hH", Field: cfg + "hidden_size", Default: "96", Legend: "H", Desc: "patch embedding width", Show: true, Pos: true},
		{Sym: "hC", Field: cfg + "num_channels", Default: "3", Desc: "image channels", Pos: true},
		{Sym: "hPK", Field: cfg + "patch_kernel_size", Type: IntOrList, Default: "list(7, 7)", Null: "=", Desc: "patch kernel"},
		{Sym: "hBG", Field: cfg + "window_positional_embedding_background_size", Type: IntOrList, Default: "list(7, 7)", Null: "=", Desc: "background position table side"},
		{Sym: "hBPS", Field: cfg + "blocks_per_stage", Type: List, Default: "list(1, 2, 7, 2)", Null: "=", Desc: "blocks per stage"},
		{Sym: "hED", Field: cfg + "embed_dim_per_stage", Type: List, Default: "list(96, 192, 384, 768)", Null: "=", Desc: "each stage's width"},
		{Sym: "hWS", Field: cfg + "window_size_per_stage", Type: List, Default: "list(8, 4, 14, 7)", Null: "=", Desc: "each stage's window"},
		{Sym: "hR", Field: cfg + "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over a stage's width (×1000)"},
		derived("hL", "sum(hBPS)"),
	}
}

// hieraEncoder is SAM 2's Hiera image encoder under pre: the patch
// embedding, the windowed position tables and the blocks of every
// stage as one flat list (a stage's first block widens from the
// previous stage's width, with a projection).
func hieraEncoder(pre string) (global []T, stack Stack) {
	global = cat(conv(pre+"patch_embed.projection", "hH", "hC", "pick(hPK, 0)", "pick(hPK, 1)"),
		[]T{{Name: pre + "pos_embed", Shape: []string{"1", "hH", "pick(hBG, 0)", "pick(hBG, 1)"}, Role: RoleEmbedding},
			{Name: pre + "pos_embed_window", Shape: []string{"1", "hH", "at(hWS, 0)", "at(hWS, 0)"}, Role: RoleEmbedding}})
	s, j := "segof(hBPS, l)", "segpos(hBPS, l)"
	in := "(" + s + " > 0 && " + j + " == 0 ? at(hED, " + s + "-1) : at(hED, " + s + "))"
	out := "at(hED, " + s + ")"
	stack = Stack{Name: "image encoder", Prefix: pre + "blocks.{l}.", Layers: "hL", Tensors: cat(
		norm("layer_norm1", in, "true"),
		linear("attn.qkv", "3*"+out, in, "true"), linear("attn.proj", out, out, "true"),
		norm("layer_norm2", out, "true"),
		linear("mlp.proj_in", out+"*hR/1000", out, "true"), linear("mlp.proj_out", out, out+"*hR/1000", "true"),
		when(in+" != "+out, linear("proj", out, in, "true")))}
	return global, stack
}

// sam2NeckDefs are Sam2VisionConfig's FPN fields under cfg.
func sam2NeckDefs(cfg string) []Def {
	return []Def{
		{Sym: "nH", Field: cfg + "fpn_hidden_size", Default: "256", Legend: "F", Desc: "FPN width", Show: true, Pos: true},
		{Sym: "nK", Field: cfg + "fpn_kernel_size", Type: IntOrList, Default: "1", Desc: "FPN kernel"},
		{Sym: "nCL", Field: cfg + "backbone_channel_list", Type: List, Default: "list(768, 384, 192, 96)", Null: "=", Desc: "the backbone's widths, deepest first"},
	}
}

// sam2Neck is SAM 2's FPN neck under pre: one convolution per backbone
// width.
func sam2Neck(pre string) []T {
	return copies("len(nCL)", conv(pre+"convs.{e}", "nH", "at(nCL, e)", "pick(nK, 0)", "pick(nK, 1)"))
}

// samMemoryDefs are the video models' memory fields (Sam2VideoConfig,
// EdgeTamVideoConfig, Sam3TrackerVideoConfig: the same names).
func samMemoryDefs() []Def {
	return []Def{
		{Sym: "maH", Field: "memory_attention_hidden_size", Default: "256", Legend: "M", Desc: "memory attention width", Show: true, Pos: true},
		{Sym: "maL", Field: "memory_attention_num_layers", Default: "4", Legend: "mL", Desc: "memory attention layers", Show: true, Max: MaxLayers},
		{Sym: "maDS", Field: "memory_attention_downsample_rate", Default: "1", Desc: "memory attention width divisor", Pos: true},
		{Sym: "maI", Field: "memory_attention_feed_forward_hidden_size", Default: "2048", Desc: "memory attention FFN width", Pos: true},
		{Sym: "meH", Field: "memory_encoder_hidden_size", Default: "256", Desc: "memory encoder width", Pos: true},
		{Sym: "meOut", Field: "memory_encoder_output_channels", Default: "64", Desc: "memory channels", Pos: true},
		{Sym: "mdE", Field: "mask_downsampler_embed_dim", Default: "256", Desc: "mask downsampler width", Pos: true},
		{Sym: "mdK", Field: "mask_downsampler_kernel_size", Default: "3", Desc: "mask downsampler kernel", Pos: true},
		{Sym: "mdS", Field: "mask_downsampler_stride", Default: "2", Desc: "mask downsampler stride", Pos: true},
		{Sym: "mdT", Field: "mask_downsampler_total_stride", Default: "16", Desc: "mask downsampler total stride", Pos: true},
		{Sym: "mfL", Field: "memory_fuser_num_layers", Default: "2", Desc: "memory fuser blocks", Max: MaxLayers},
		{Sym: "mfE", Field: "memory_fuser_embed_dim", Default: "256", Desc: "memory fuser width", Pos: true},
		{Sym: "mfI", Field: "memory_fuser_intermediate_dim", Default: "1024", Desc: "memory fuser FFN width", Pos: true},
		{Sym: "mfK", Field: "memory_fuser_kernel_size", Default: "7", Desc: "memory fuser kernel", Pos: true},
		{Sym: "nMem", Field: "num_maskmem", Default: "7", Desc: "memories attended"},
		flag("tpe", "enable_temporal_pos_encoding_for_object_pointers", "true", "object pointers' temporal projection"),
		flag("occ", "enable_occlusion_spatial_embedding", "true", "occlusion embedding"),
		derived("mdN", "log2(mdT)/log2(mdS)"),
	}
}

// samMemory is a video model's memory attention (a stack; its MLP
// named mlp: linear1/linear2 or up_proj/down_proj), memory encoder and
// the tracking parameters, under pre. The image features' width is nH
// (the FPN's); the cross-attention reads 64-wide memories whatever the
// config says (transformers hard-codes kv_in_dim=64).
func samMemory(pre string, mlp [2]string) (stack Stack, final []T) {
	w := "maH/maDS"
	ra := func(p, kv string) []T {
		return cat(linear(p+"q_proj", w, "maH", "true"), linear(p+"k_proj", w, kv, "true"),
			linear(p+"v_proj", w, kv, "true"), linear(p+"o_proj", "maH", w, "true"))
	}
	stack = Stack{Name: "memory attention", Prefix: pre + "memory_attention.layers.{l}.", Layers: "maL", Tensors: cat(
		ra("self_attn.", "maH"), ra("cross_attn_image.", "64"),
		linear(mlp[0], "maI", "maH", "true"), linear(mlp[1], "maH", "maI", "true"),
		norm("layer_norm1", "maH", "true"), norm("layer_norm2", "maH", "true"), norm("layer_norm3", "maH", "true"))}
	me := pre + "memory_encoder."
	final = cat(norm(pre+"memory_attention.layer_norm", "maH", "true"),
		copies("mdN", conv(me+"mask_downsampler.layers.{e}.conv", "pow(mdS*mdS, e+1)", "pow(mdS*mdS, e)", "mdK", "mdK"),
			norm(me+"mask_downsampler.layers.{e}.layer_norm", "pow(mdS*mdS, e+1)", "true")),
		conv(me+"mask_downsampler.final_conv", "mdE", "pow(mdS*mdS, mdN)", "1", "1"),
		conv(me+"feature_projection", "meH", "meH", "1", "1"),
		copies("mfL", conv(me+"memory_fuser.layers.{e}.depthwise_conv", "mfE", "1", "mfK", "mfK"),
			norm(me+"memory_fuser.layers.{e}.layer_norm", "mfE", "true"),
			linear(me+"memory_fuser.layers.{e}.pointwise_conv1", "mfI", "mfE", "true"),
			linear(me+"memory_fuser.layers.{e}.pointwise_conv2", "mfE", "mfI", "true"),
			vec(me+"memory_fuser.layers.{e}.scale", "mfE")),
		conv(me+"projection", "meOut", "meH", "1", "1"),
		[]T{{Name: pre + "no_memory_positional_encoding", Shape: []string{"1", "1", "nH"}, Role: RoleNorm},
			{Name: pre + "memory_temporal_positional_encoding", Shape: []string{"nMem", "1", "1", "meOut"}, Role: RoleNorm},
			{Name: pre + "no_object_pointer", Shape: []string{"1", "nH"}, Role: RoleNorm},
			{Name: pre + "occlusion_spatial_embedding_parameter", Shape: []string{"1", "meOut"}, Role: RoleNorm, If: "occ"}},
		conv(pre+"mask_downsample", "1", "1", "4", "4"),
		samFeedForward(pre+"object_pointer_proj.", "nH", "nH", "nH", "3", true),
		when("tpe", linear(pre+"temporal_positional_encoding_projection_layer", "meOut", "nH", "true")))
	return stack, final
}
