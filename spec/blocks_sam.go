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
		channels("hC", cfg+"num_channels"),
		{Sym: "hPK", Field: cfg + "patch_kernel_size", Type: IntOrList, Default: "list(7, 7)", Null: "=", Desc: "patch kernel"},
		{Sym: "hBG", Field: cfg + "window_positional_embedding_background_size", Type: IntOrList, Default: "list(7, 7)", Null: "=", Desc: "background position table side"},
		listOf("hBPS", cfg+"blocks_per_stage", "list(1, 2, 7, 2)", "blocks per stage"),
		listOf("hED", cfg+"embed_dim_per_stage", "list(96, 192, 384, 768)", "each stage's width"),
		listOf("hWS", cfg+"window_size_per_stage", "list(8, 4, 14, 7)", "each stage's window"),
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
		listOf("nCL", cfg+"backbone_channel_list", "list(768, 384, 192, 96)", "the backbone's widths, deepest first"),
	}
}

// sam2Neck is SAM 2's FPN neck under pre: one convolution per backbone
// width.
func sam2Neck(pre string) []T {
	return copies("len(nCL)", conv(pre+"convs.{e}", "nH", "at(nCL, e)", "pick(nK, 0)", "pick(nK, 1)"))
}

// samMemory says how a video model's memory attention differs between
// SAM 2 video, EdgeTAM video and SAM 3's tracker.
type samMemory struct {
	MLP      [2]string // the memory layers' MLP: linear1/linear2, mlp.up_proj/mlp.down_proj (EdgeTAM)
	MLPField string    // its width's field
	Layers   string    // memory_attention_num_layers' default
	// Perceiver: EdgeTAM's spatial perceiver resampler of the memories.
	Perceiver bool
}

// defs are the video models' memory fields (Sam2VideoConfig,
// EdgeTamVideoConfig, Sam3TrackerVideoConfig: the same names but the
// MLP width's).
func (o samMemory) defs() []Def {
	d := []Def{
		{Sym: "maH", Field: "memory_attention_hidden_size", Default: "256", Legend: "M", Desc: "memory attention width", Show: true, Pos: true},
		{Sym: "maL", Field: "memory_attention_num_layers", Default: o.Layers, Legend: "mL", Desc: "memory attention layers", Show: true, Max: MaxLayers},
		{Sym: "maDS", Field: "memory_attention_downsample_rate", Default: "1", Desc: "memory attention width divisor", Pos: true},
		{Sym: "maI", Field: o.MLPField, Default: "2048", Desc: "memory attention FFN width", Pos: true},
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
	if o.Perceiver {
		d = append(d,
			Def{Sym: "prH", Field: "perceiver_resampler_hidden_size", Default: "64", Desc: "perceiver width", Pos: true},
			Def{Sym: "prI", Field: "perceiver_resampler_mlp_intermediate_size", Default: "256", Desc: "perceiver FFN width", Pos: true},
			Def{Sym: "prHeads", Field: "perceiver_resampler_num_attention_heads", Default: "1", Desc: "perceiver heads", Pos: true},
			Def{Sym: "prD", Field: "perceiver_resampler_attention_head_dim", Default: "64", Desc: "perceiver head width", Pos: true},
			Def{Sym: "prL", Field: "perceiver_resampler_num_layers", Default: "2", Desc: "perceiver layers", Max: MaxLayers},
			Def{Sym: "pr1", Field: "perceiver_resampler_num_latents", Default: "256", Desc: "1-D latents"},
			Def{Sym: "pr2", Field: "perceiver_resampler_num_latents_2d", Default: "256", Desc: "2-D latents"})
	}
	return d
}

// build is the memory attention (a stack), the memory encoder and the
// tracking parameters, under pre. The image features' width is nH (the
// FPN's); the cross-attention reads 64-wide memories whatever the config
// says (transformers hard-codes kv_in_dim=64).
func (o samMemory) build(pre string) (stacks []Stack, final []T) {
	w := "maH/maDS"
	ra := func(p, kv string) []T {
		return cat(linear(p+"q_proj", w, "maH", "true"), linear(p+"k_proj", w, kv, "true"),
			linear(p+"v_proj", w, kv, "true"), linear(p+"o_proj", "maH", w, "true"))
	}
	stacks = []Stack{{Name: "memory attention", Prefix: pre + "memory_attention.layers.{l}.", Layers: "maL", Tensors: cat(
		ra("self_attn.", "maH"), ra("cross_attn_image.", "64"),
		linear(o.MLP[0], "maI", "maH", "true"), linear(o.MLP[1], "maH", "maI", "true"),
		norm("layer_norm1", "maH", "true"), norm("layer_norm2", "maH", "true"), norm("layer_norm3", "maH", "true"))}}
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
	if o.Perceiver {
		sp := pre + "spatial_perceiver."
		att := func(p string) []T {
			return cat(linear(p+"q_proj", "prD*prHeads", "prH", ""), linear(p+"k_proj", "prD*prHeads", "prH", ""),
				linear(p+"v_proj", "prD*prHeads", "prH", ""), linear(p+"o_proj", "prH", "prD*prHeads", ""))
		}
		mlp := func(p string) []T {
			return cat(norm(p+"layer_norm", "prH", "true"), linear(p+"up_proj", "prI", "prH", ""), linear(p+"down_proj", "prH", "prI", ""))
		}
		stacks = append(stacks, Stack{Name: "spatial perceiver", Prefix: sp + "layers.{l}.", Layers: "prL", Tensors: cat(
			att("cross_attention."), mlp("mlp."), att("self_attention."), mlp("self_mlp."),
			norm("layer_norm_input", "prH", "true"), norm("layer_norm_latents", "prH", "true"), norm("layer_norm_self", "prH", "true"))})
		final = cat(final, norm(sp+"layer_norm", "prH", "true"),
			[]T{{Name: sp + "latents_1d", Shape: []string{"pr1", "prH"}, Role: RoleEmbedding, If: "pr1 > 0"},
				{Name: sp + "latents_2d", Shape: []string{"pr2", "prH"}, Role: RoleEmbedding, If: "pr2 > 0"}})
	}
	return stacks, final
}

// sam3ViTDefs are Sam3ViTConfig's fields under cfg: a plain ViT with
// rotary windowed attention (its rotary tables are not saved) and a
// position table of the pre-training image's patches.
func sam3ViTDefs(cfg string) []Def {
	return []Def{
		{Sym: "xH", Field: cfg + "hidden_size", Default: "1024", Legend: "vH", Desc: "image encoder width", Show: true, Pos: true},
		{Sym: "xL", Field: cfg + "num_hidden_layers", Default: "32", Legend: "vL", Desc: "image encoder layers", Show: true, Max: MaxLayers},
		{Sym: "xI", Field: cfg + "intermediate_size", Default: "4736", Legend: "vI", Desc: "image encoder FFN width", Show: true, Pos: true},
		channels("xC", cfg+"num_channels"),
		{Sym: "xP", Field: cfg + "patch_size", Type: IntOrList, Default: "14", Desc: "patch side"},
		{Sym: "xPre", Field: cfg + "pretrain_image_size", Type: IntOrList, Default: "336", Desc: "the position table's image side"},
	}
}

// sam3ViT is SAM 3's ViT under pre: patch embedding without a bias, the
// position table, the layers and the final norm.
func sam3ViT(pre string) (global []T, stack Stack, final []T) {
	global = cat(convNB(pre+"embeddings.patch_embeddings.projection", "xH", "xC", "pick(xP, 0)", "pick(xP, 1)"),
		[]T{{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "(pick(xPre, 1)/pick(xP, 1))*(pick(xPre, 0)/pick(xP, 0))", "xH"}, Role: RoleEmbedding}})
	stack = Stack{Name: "image encoder", Prefix: pre + "layers.{l}.", Layers: "xL", Tensors: cat(
		norm("layer_norm1", "xH", "true"),
		linear("attention.q_proj", "xH", "xH", "true"), linear("attention.k_proj", "xH", "xH", "true"),
		linear("attention.v_proj", "xH", "xH", "true"), linear("attention.o_proj", "xH", "xH", "true"),
		norm("layer_norm2", "xH", "true"), linear("mlp.fc1", "xI", "xH", "true"), linear("mlp.fc2", "xH", "xI", "true"))}
	return global, stack, norm(pre+"layer_norm", "xH", "true")
}

// sam3NeckDefs are Sam3VisionConfig's FPN fields under cfg.
func sam3NeckDefs(cfg string) []Def {
	return []Def{
		{Sym: "nH", Field: cfg + "fpn_hidden_size", Default: "256", Legend: "F", Desc: "FPN width", Show: true, Pos: true},
		{Sym: "nSF", Field: cfg + "scale_factors", Type: MilliList, Default: "list(4000, 2000, 1000, 500)", Null: "=", Desc: "each level's scale (×1000)"},
	}
}

// sam3Neck is SAM 3's FPN neck under pre on the ViT's xH-wide features:
// per scale factor, transposed convolutions up (×4: two, ×2: one; ×½ a
// max-pool), then a 1×1 and a 3×3 projection.
func sam3Neck(pre string) []T {
	f := "at(nSF, e)"
	in := "(" + f + " == 4000 ? xH/4 : " + f + " == 2000 ? xH/2 : xH)"
	return copies("len(nSF)",
		when(f+" == 4000 || "+f+" == 2000", convT(pre+"fpn_layers.{e}.scale_layers.0", "xH", "xH/2", "2")),
		when(f+" == 4000", convT(pre+"fpn_layers.{e}.scale_layers.2", "xH/2", "xH/4", "2")),
		conv(pre+"fpn_layers.{e}.proj1", "nH", in, "1", "1"), conv(pre+"fpn_layers.{e}.proj2", "nH", "nH", "3", "3"))
}

// sam3Attn is SAM 3's attention under pre: q/k/v/o, all h wide, biased.
func sam3Attn(pre, h string) []T {
	return cat(linear(pre+"q_proj", h, h, "true"), linear(pre+"k_proj", h, h, "true"),
		linear(pre+"v_proj", h, h, "true"), linear(pre+"o_proj", h, h, "true"))
}

// sam3MLP is SAM 3's Sam3DecoderMLP under pre: n (2 or 3) biased
// layers in → hid (→ hid) → out.
func sam3MLP(pre, in, hid, out string, n int) []T {
	if n == 2 {
		return cat(linear(pre+"layer1", hid, in, "true"), linear(pre+"layer2", out, hid, "true"))
	}
	return cat(linear(pre+"layer1", hid, in, "true"), linear(pre+"layer2", hid, hid, "true"), linear(pre+"layer3", out, hid, "true"))
}

// sam3Text says which text encoder a SAM 3 detector has.
type sam3Text int

const (
	sam3CLIPText sam3Text = iota // CLIPTextModelWithProjection (SAM 3)
	sam3LiteText                 // MobileCLIP's RepMixer text encoder (SAM 3 lite text)
)

// defs are the text encoder's fields under cfg ("text_config." of the
// detector's config): SAM 3 builds CLIPTextConfig's defaults for the
// fields a text_config leaves out (its own 1024-wide defaults only
// without a text_config: sam3Only refuses that), the lite text its
// Sam3LiteTextTextConfig's.
func (t sam3Text) defs(cfg string) []Def {
	var d []Def
	if t == sam3CLIPText {
		d, _, _, _ = textTower(cfg, clipText[0], clipText[1], clipText[2], clipText[3], clipText[4], false)
	} else {
		d, _, _, _ = textTower(cfg, "49408", "512", "12", "2048", "77", false)
		d = append(d, flag("tRep", cfg+"use_repmixer_blocks", "true", "RepMixer first and last layers"),
			Def{Sym: "tK", Field: cfg + "repmixer_kernel_size", Default: "11", Desc: "RepMixer kernel", Pos: true})
	}
	return append(d, Def{Sym: "tProj", Field: cfg + "projection_dim", Default: "512", Desc: "text projection width", Pos: true})
}

// build is the text encoder under pre ("text_encoder."): CLIP's text
// tower and projection, or the lite text encoder (RepMixer blocks first
// and last where use_repmixer_blocks, CLIP layers between).
func (t sam3Text) build(pre string) (global []T, stack Stack, final []T) {
	if t == sam3CLIPText {
		_, g, s, f := textTower("", clipText[0], clipText[1], clipText[2], clipText[3], clipText[4], false)
		s.Prefix = pre + s.Prefix
		return under(pre, g), s, cat(under(pre, f), linear(pre+"text_projection", "tProj", "tH", ""))
	}
	_, _, s, _ := textTower("", "", "", "", "", "", false)
	var clipLayer []T
	for _, x := range s.Tensors {
		x.If = "!rep"
		clipLayer = append(clipLayer, x)
	}
	bn := func(name string) []T { return batchNorm(name, "tH") }
	rep := when("rep", []T{{Name: "layer_scale", Shape: []string{"tH", "1", "1"}, Role: RoleNorm},
		{Name: "token_mixer.layer_scale", Shape: []string{"tH", "1", "1"}, Role: RoleNorm},
		{Name: "token_mixer.mixer.conv.weight", Shape: []string{"tH", "1", "1", "tK"}, Role: RoleLinear},
		{Name: "conv_feed_forward.depthwise_conv.weight", Shape: []string{"tH", "1", "1", "tK"}, Role: RoleLinear}},
		bn("token_mixer.reference_batchnorm"), bn("token_mixer.mixer.batchnorm_conv"), bn("token_mixer.mixer.batchnorm_skip"),
		bn("conv_feed_forward.depthwise_batchnorm"),
		conv("conv_feed_forward.mlp.fc1", "tI", "tH", "1", "1"), conv("conv_feed_forward.mlp.fc2", "tH", "tI", "1", "1"))
	stack = Stack{Name: "text", Prefix: pre + "layers.{l}.", Layers: "tL",
		Kinds:   []Kind{{Name: "rep", If: "tRep && (l == 0 || l == tL-1)"}, {Name: "attn", If: "true"}},
		Tensors: cat(rep, clipLayer)}
	global = []T{{Name: pre + "embeddings.token_embedding.weight", Shape: []string{"tV", "tH"}, Role: RoleEmbedding},
		{Name: pre + "embeddings.position_embedding.position_embedding", Shape: []string{"1", "1", "tP", "tH"}, Role: RoleEmbedding}}
	return global, stack, cat(norm(pre+"final_layer_norm", "tH", "true"), linear(pre+"projection", "tProj", "tH", ""))
}

// sam3DetectorDefs are Sam3Config's fields under cfg ("" or
// "detector_config." of the video model): the vision model, the text
// encoder, the geometry encoder, the DETR encoder and decoder and the
// mask decoder.
func sam3DetectorDefs(cfg string, text sam3Text) []Def {
	g, e, d, m := cfg+"geometry_encoder_config.", cfg+"detr_encoder_config.", cfg+"detr_decoder_config.", cfg+"mask_decoder_config."
	return cat(sam3ViTDefs(cfg+"vision_config.backbone_config."), sam3NeckDefs(cfg+"vision_config."), text.defs(cfg+"text_config."), []Def{
		{Sym: "geH", Field: g + "hidden_size", Default: "256", Desc: "geometry encoder width", Pos: true},
		{Sym: "geL", Field: g + "num_layers", Default: "3", Desc: "geometry encoder layers", Max: MaxLayers},
		{Sym: "geI", Field: g + "intermediate_size", Default: "2048", Desc: "geometry encoder FFN width", Pos: true},
		{Sym: "geR", Field: g + "roi_size", Default: "7", Desc: "box pooling side", Pos: true},
		{Sym: "deH", Field: e + "hidden_size", Default: "256", Legend: "D", Desc: "DETR encoder width", Show: true, Pos: true},
		{Sym: "deL", Field: e + "num_layers", Default: "6", Legend: "eL", Desc: "DETR encoder layers", Show: true, Max: MaxLayers},
		{Sym: "deI", Field: e + "intermediate_size", Default: "2048", Desc: "DETR encoder FFN width", Pos: true},
		{Sym: "ddH", Field: d + "hidden_size", Default: "256", Desc: "DETR decoder width", Pos: true},
		{Sym: "ddL", Field: d + "num_layers", Default: "6", Legend: "dL", Desc: "DETR decoder layers", Show: true, Max: MaxLayers},
		{Sym: "ddI", Field: d + "intermediate_size", Default: "2048", Desc: "DETR decoder FFN width", Pos: true},
		{Sym: "ddQ", Field: d + "num_queries", Default: "200", Legend: "Q", Desc: "object queries", Show: true, Pos: true},
		{Sym: "ddN", Field: d + "num_attention_heads", Default: "8", Desc: "DETR decoder heads", Pos: true},
		{Sym: "kH", Field: m + "hidden_size", Default: "256", Desc: "mask decoder width", Pos: true},
		{Sym: "kU", Field: m + "num_upsampling_stages", Default: "3", Desc: "pixel decoder stages"},
	})
}

// sam3Detector is SAM 3's detector under pre: vision model, text
// encoder and projection, geometry encoder, DETR encoder and decoder,
// mask decoder and the dot-product scoring.
func sam3Detector(pre string, text sam3Text) (global []T, stacks []Stack, final []T) {
	vg, vs, ln := sam3ViT(pre + "vision_encoder.backbone.")
	tg, ts, tf := text.build(pre + "text_encoder.")
	encLayer := func(h, i string) []T {
		return cat(norm("layer_norm1", h, "true"), sam3Attn("self_attn.", h), sam3Attn("cross_attn.", h),
			norm("layer_norm2", h, "true"), linear("mlp.fc1", i, h, "true"), linear("mlp.fc2", h, i, "true"), norm("layer_norm3", h, "true"))
	}
	ge, dd, md := pre+"geometry_encoder.", pre+"detr_decoder.", pre+"mask_decoder."
	stacks = []Stack{vs, ts,
		{Name: "geometry encoder", Prefix: ge + "layers.{l}.", Layers: "geL", Tensors: encLayer("geH", "geI")},
		{Name: "DETR encoder", Prefix: pre + "detr_encoder.layers.{l}.", Layers: "deL", Tensors: encLayer("deH", "deI")},
		{Name: "DETR decoder", Prefix: dd + "layers.{l}.", Layers: "ddL", Tensors: cat(
			sam3Attn("self_attn.", "ddH"), norm("self_attn_layer_norm", "ddH", "true"),
			sam3Attn("text_cross_attn.", "ddH"), norm("text_cross_attn_layer_norm", "ddH", "true"),
			sam3Attn("vision_cross_attn.", "ddH"), norm("vision_cross_attn_layer_norm", "ddH", "true"),
			linear("mlp.fc1", "ddI", "ddH", "true"), linear("mlp.fc2", "ddH", "ddI", "true"), norm("mlp_layer_norm", "ddH", "true"))}}
	final = cat(ln, sam3Neck(pre+"vision_encoder.neck."), tf,
		linear(pre+"text_projection", "deH", "tH", "true"),
		[]T{{Name: ge + "label_embed.weight", Shape: []string{"2", "geH"}, Role: RoleEmbedding},
			{Name: ge + "cls_embed.weight", Shape: []string{"1", "geH"}, Role: RoleEmbedding}},
		linear(ge+"boxes_direct_project", "geH", "4", "true"), conv(ge+"boxes_pool_project", "geH", "geH", "geR", "geR"),
		linear(ge+"boxes_pos_enc_project", "geH", "geH+2", "true"), norm(ge+"vision_layer_norm", "geH", "true"),
		linear(ge+"final_proj", "geH", "geH", "true"), norm(ge+"prompt_layer_norm", "geH", "true"), norm(ge+"output_layer_norm", "geH", "true"),
		norm(dd+"output_layer_norm", "ddH", "true"), sam3MLP(dd+"box_head.", "ddH", "ddH", "4", 3),
		[]T{{Name: dd + "query_embed.weight", Shape: []string{"ddQ", "ddH"}, Role: RoleEmbedding},
			{Name: dd + "reference_points.weight", Shape: []string{"ddQ", "4"}, Role: RoleEmbedding},
			{Name: dd + "presence_token.weight", Shape: []string{"1", "ddH"}, Role: RoleEmbedding}},
		sam3MLP(dd+"presence_head.", "ddH", "ddH", "1", 3), norm(dd+"presence_layer_norm", "ddH", "true"),
		sam3MLP(dd+"ref_point_head.", "2*ddH", "ddH", "ddH", 2),
		sam3MLP(dd+"box_rpb_embed_x.", "2", "ddH", "ddN", 2), sam3MLP(dd+"box_rpb_embed_y.", "2", "ddH", "ddN", 2),
		copies("kU", conv(md+"pixel_decoder.conv_layers.{e}", "kH", "kH", "3", "3"), norm(md+"pixel_decoder.norms.{e}", "kH", "true")),
		copies("3", linear(md+"mask_embedder.layers.{e}", "kH", "kH", "true")),
		conv(md+"instance_projection", "kH", "kH", "1", "1"), conv(md+"semantic_projection", "1", "kH", "1", "1"),
		sam3Attn(md+"prompt_cross_attn.", "kH"), norm(md+"prompt_cross_attn_norm", "kH", "true"),
		sam3MLP(pre+"dot_product_scoring.text_mlp.", "ddH", "ddI", "ddH", 2), norm(pre+"dot_product_scoring.text_mlp_out_norm", "ddH", "true"),
		linear(pre+"dot_product_scoring.text_proj", "ddH", "ddH", "true"), linear(pre+"dot_product_scoring.query_proj", "ddH", "ddH", "true"))
	return cat(vg, tg), stacks, final
}

// tipsDefs are Tipsv2VisionConfig's fields under cfg: a DINOv2-style
// ViT (class, mask and register tokens, layer scales, a plain or SwiGLU
// FFN).
func tipsDefs(cfg string) []Def {
	return []Def{
		{Sym: "vH", Field: cfg + "hidden_size", Default: "768", Legend: "vH", Desc: "image encoder width", Show: true, Pos: true},
		{Sym: "vL", Field: cfg + "num_hidden_layers", Default: "12", Legend: "vL", Desc: "image encoder layers", Show: true, Max: MaxLayers},
		{Sym: "vR", Field: cfg + "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
		channels("vC", cfg+"num_channels"),
		{Sym: "vS", Field: cfg + "image_size", Type: IntOrList, Default: "448", Desc: "image side"},
		{Sym: "vP", Field: cfg + "patch_size", Type: IntOrList, Default: "14", Desc: "patch side"},
		{Sym: "vReg", Field: cfg + "num_register_tokens", Default: "1", Desc: "register tokens"},
		flag("vQKV", cfg+"qkv_bias", "true", "qkv has a bias"),
		flag("vGLU", cfg+"use_swiglu_ffn", "false", "SwiGLU FFN"),
		derived("vI", "vH*vR/1000"),
	}
}

// tipsVision is TIPSv2's image encoder under pre, in the original
// checkpoint's names transformers 5.x saves (blocks.N.attn.qkv, ls1.gamma,
// mlp.c_fc or mlp.w12).
func tipsVision(pre string) (global []T, stack Stack, final []T) {
	global = cat(conv(pre+"patch_embed.proj", "vH", "vC", "pick(vP, 0)", "pick(vP, 1)"),
		[]T{{Name: pre + "cls_token", Shape: []string{"1", "1", "vH"}, Role: RoleEmbedding},
			{Name: pre + "mask_token", Shape: []string{"1", "vH"}, Role: RoleEmbedding},
			{Name: pre + "register_tokens", Shape: []string{"1", "vReg", "vH"}, Role: RoleEmbedding, ZeroOK: true},
			{Name: pre + "pos_embed", Shape: []string{"1", "(pick(vS, 1)/pick(vP, 1))*(pick(vS, 0)/pick(vP, 0))+1", "vH"}, Role: RoleEmbedding}})
	glu := "(((vI*2/3)+7)/8*8)"
	stack = Stack{Name: "image encoder", Prefix: pre + "blocks.{l}.", Layers: "vL", Tensors: cat(
		norm("norm1", "vH", "true"), linear("attn.qkv", "3*vH", "vH", "vQKV"), linear("attn.proj", "vH", "vH", "true"),
		vec("ls1.gamma", "vH"), norm("norm2", "vH", "true"),
		when("!vGLU", linear("mlp.c_fc", "vI", "vH", "true"), linear("mlp.c_proj", "vH", "vI", "true")),
		when("vGLU", linear("mlp.w12", "2*"+glu, "vH", "true"), linear("mlp.w3", "vH", glu, "true")),
		vec("ls2.gamma", "vH"))}
	return global, stack, norm(pre+"norm", "vH", "true")
}

// tipsTextDefs are Tipsv2TextConfig's fields under cfg.
func tipsTextDefs(cfg string) []Def {
	return []Def{
		{Sym: "tV", Field: cfg + "vocab_size", Default: "32000", Legend: "tV", Desc: "text tokens", Show: true, Pos: true},
		{Sym: "tH", Field: cfg + "hidden_size", Default: "768", Legend: "tH", Desc: "text encoder width", Show: true, Pos: true},
		{Sym: "tL", Field: cfg + "num_hidden_layers", Default: "12", Legend: "tL", Desc: "text encoder layers", Show: true, Max: MaxLayers},
		{Sym: "tI", Field: cfg + "intermediate_size", Default: "3072", Legend: "tI", Desc: "text FFN width", Show: true, Pos: true},
	}
}

// tipsText is TIPSv2's text encoder under pre, in the original names
// (transformer.resblocks.N with a fused in_proj; sinusoidal positions,
// not saved).
func tipsText(pre string) (global []T, stack Stack, final []T) {
	stack = Stack{Name: "text", Prefix: pre + "transformer.resblocks.{l}.", Layers: "tL", Tensors: cat(
		norm("ln_1", "tH", "true"),
		[]T{{Name: "attn.in_proj_weight", Shape: []string{"3*tH", "tH"}, Role: RoleLinear}, {Name: "attn.in_proj_bias", Shape: []string{"3*tH"}, Role: RoleBias}},
		linear("attn.out_proj", "tH", "tH", "true"), norm("ln_2", "tH", "true"),
		linear("mlp.c_fc", "tI", "tH", "true"), linear("mlp.c_proj", "tH", "tI", "true"))}
	return []T{{Name: pre + "token_embedding.weight", Shape: []string{"tV", "tH"}, Role: RoleEmbedding}}, stack, norm(pre+"ln_final", "tH", "true")
}

// tipsDPTHead is a TIPSv2 DPT head under pre ("depth_head."), in the
// original checkpoint's names transformers 5.x saves: the reassemble
// stage on the vH-wide backbone features (a readout projection per
// neck width, a projection and a resize per neck width and factor), the
// 3×3 convolutions to fusion_hidden_size F, the fusion blocks (the
// first without its residual unit), the projection and the head's
// linear (out wide, named name).
func tipsDPTHead(pre, name, out string) []T {
	nh, f := "at(nh, e)", "at(rf, e)"
	r := pre + "reassemble."
	return cat(
		copies("len(nh)", linear(r+"readout_projects.{e}", "vH", "2*vH", "true"),
			convNB(pre+"convs.{e}", "F", nh, "3", "3"),
			conv(pre+"fusion_blocks.{e}.out_conv", "F", "F", "1", "1"),
			convNB(pre+"fusion_blocks.{e}.main_unit.conv1", "F", "F", "3", "3"), convNB(pre+"fusion_blocks.{e}.main_unit.conv2", "F", "F", "3", "3"),
			when("e > 0", convNB(pre+"fusion_blocks.{e}.residual_unit.conv1", "F", "F", "3", "3"), convNB(pre+"fusion_blocks.{e}.residual_unit.conv2", "F", "F", "3", "3"))),
		copies("min(len(nh), len(rf))", conv(r+"out_projections.{e}", nh, "vH", "1", "1"),
			when(f+" > 1000", convT(r+"resize_layers.{e}", nh, nh, f+"/1000")),
			when(f+" < 1000", conv(r+"resize_layers.{e}", nh, nh, "3", "3"))),
		conv(pre+"project", "F", "F", "3", "3"), linear(pre+name, out, "F", "true"))
}
