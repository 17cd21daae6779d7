package spec

import "encoding/json"

// SAM 2 and its kin (SAM 2 video, EdgeTAM, SAM 3's tracker), built from
// the blocks of blocks_sam.go: a table of option structs, one builder.

// samTracker describes one SAM 2-style promptable segmenter: its image
// encoder, where its names sit, and whether it tracks through video.
type samTracker struct {
	Name, Class, MT, ConfigClass string
	// Suffix is the image model's class suffix ("Model"); VideoSuffix
	// the video model's ("VideoModel", "" none).
	Suffix, VideoSuffix string
	Pre                 string    // every name's prefix ("tracker_model.": SAM 3's tracker)
	Memory              samMemory // the video model's memory modules
	// Vision: the image encoder, "hiera" (a Sam2VisionConfig under
	// vision_config) or "sam3" (SAM 3's ViT, saved as the detector's,
	// and the tracker's own FPN neck: transformers 5.x's checkpoint
	// names).
	Vision string
	// Only, when set, refuses (exit 3) a config whose sub-model is not
	// the one modelled.
	Only *samOnly
}

// samOnly refuses a config whose Field (a string, absent: the class's
// default, never Want) is not Want; Want "*": a config without Field
// (an object).
type samOnly struct{ Field, Want, Why string }

// apply makes f refuse the configs o does not model.
func (o *samOnly) apply(f *Family) *Family {
	if o == nil {
		return f
	}
	f.compose = func(c *Config) (*Family, error) {
		var v string
		raw, ok := c.lookup(o.Field)
		if o.Want == "*" && (!ok || string(raw) == "null") || o.Want != "*" && (!ok || json.Unmarshal(raw, &v) != nil || v != o.Want) {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: o.Why}
		}
		return f, nil
	}
	return f
}

// parts are the tensors and fields of t's image model (video: with the
// memory modules), its fields under cfg, its names under pre; without
// backbone the image encoder and its neck are left out (SAM 3 video's
// tracker reads the detector's).
func (t samTracker) parts(video bool, cfg, pre string, backbone bool) (defs []Def, global []T, stacks []Stack, final []T) {
	var vg, vf []T
	var vs Stack
	switch t.Vision {
	case "hiera":
		defs = cat(hieraDefs("vision_config.backbone_config."), sam2NeckDefs("vision_config."))
		vg, vs = hieraEncoder(pre + "vision_encoder.backbone.")
		vf = sam2Neck(pre + "vision_encoder.neck.")
	case "sam3":
		defs = cat(sam3ViTDefs("vision_config.backbone_config."), sam3NeckDefs("vision_config."))
		var ln []T
		vg, vs, ln = sam3ViT(pre + "detector_model.vision_encoder.backbone.")
		vf = cat(ln, sam3Neck(pre+"tracker_neck."))
	}
	if !backbone {
		vg, vf = nil, nil
	}
	defs = underCfg(cat(defs, samPromptDefs()), cfg)
	ms, mf := sam2Decoder.build(pre + "mask_decoder.")
	global = cat(vg, samPrompt{Pos: "pH/2", PointTable: true}.build(pre))
	stacks = []Stack{ms}
	if backbone {
		stacks = []Stack{vs, ms}
	}
	final = cat(vf, mf, []T{{Name: pre + "no_memory_embedding", Shape: []string{"1", "1", "nH"}, Role: RoleNorm}})
	if video {
		defs = cat(defs, underCfg(t.Memory.defs(), cfg))
		s, f := t.Memory.build(pre)
		stacks = append(stacks, s...)
		final = cat(final, f)
	}
	return defs, global, stacks, final
}

// family is t's family: the image model, and the video model where
// t has one (the image class then checked as the image model alone).
func (t samTracker) family() *Family {
	img := func(video bool) *Family {
		d, g, s, f := t.parts(video, "", t.Pre, true)
		return &Family{Name: t.Name, Class: t.Class, ConfigClass: t.ConfigClass, ModelTypes: []string{t.MT}, Causal: "-", SeqCls: "-",
			Defs: d, Global: g, Stacks: s, Final: f, Embed: g[0].Name, Tasks: []Task{{Suffix: t.Suffix, KeepFinal: true}}}
	}
	if t.VideoSuffix == "" {
		return t.Only.apply(img(false))
	}
	f := img(true)
	image := img(false)
	image.ModelTypes = nil
	f.Tasks = []Task{{Suffix: t.Suffix, KeepFinal: true, Of: image}, {Suffix: t.VideoSuffix, KeepFinal: true}}
	return t.Only.apply(f)
}

// sam2VisionFamily is SAM 2's vision model alone (Sam2VisionModel: the
// Hiera backbone and the FPN neck) and the Hiera backbone alone
// (Sam2HieraDetModel).
func sam2VisionFamilies() []*Family {
	g, s := hieraEncoder("backbone.")
	vis := &Family{Name: "SAM 2 vision", Class: "Sam2Vision", ModelTypes: []string{"sam2_vision_model"}, Causal: "-", SeqCls: "-",
		Defs: cat(hieraDefs("backbone_config."), sam2NeckDefs("")), Global: g, Stacks: []Stack{s}, Final: sam2Neck("neck."),
		Embed: g[0].Name, Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	g, s = hieraEncoder("")
	hiera := &Family{Name: "SAM 2 Hiera", Class: "Sam2HieraDet", ModelTypes: []string{"sam2_hiera_det_model"}, Causal: "-", SeqCls: "-",
		Defs: hieraDefs(""), Global: g, Stacks: []Stack{s}, Embed: g[0].Name, Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	return []*Family{vis, hiera}
}

// sam3VisionFamilies are SAM 3's vision model alone (Sam3VisionModel:
// the ViT and the FPN neck) and its ViT alone (Sam3ViTModel).
func sam3VisionFamilies() []*Family {
	g, s, ln := sam3ViT("backbone.")
	vis := &Family{Name: "SAM 3 vision", Class: "Sam3Vision", ModelTypes: []string{"sam3_vision_model"}, Causal: "-", SeqCls: "-",
		Defs: cat(sam3ViTDefs("backbone_config."), sam3NeckDefs("")), Global: g, Stacks: []Stack{s}, Final: cat(ln, sam3Neck("neck.")),
		Embed: g[0].Name, Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	g, s, ln = sam3ViT("")
	vit := &Family{Name: "SAM 3 ViT", Class: "Sam3ViT", ModelTypes: []string{"sam3_vit_model"}, Causal: "-", SeqCls: "-",
		Defs: sam3ViTDefs(""), Global: g, Stacks: []Stack{s}, Final: ln, Embed: g[0].Name, Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	return []*Family{vis, vit}
}

var sam2Memory = samMemory{MLP: [2]string{"linear1", "linear2"}, MLPField: "memory_attention_feed_forward_hidden_size", Layers: "4"}

// sam2VisionOnly: EdgeTAM's default vision model is a timm RepViT
// (edgetam_vision_model, a timm_wrapper backbone), not modelled; with a
// SAM 2 vision config it is SAM 2's.
var sam2VisionOnly = &samOnly{Field: "vision_config.model_type", Want: "sam2_vision_model",
	Why: "its vision model (vision_config.model_type other than sam2_vision_model: EdgeTAM's timm RepViT) is not modelled"}

var samTrackers = []samTracker{
	{Name: "SAM 2", Class: "Sam2", MT: "sam2", Suffix: TaskBase, Vision: "hiera"},
	{Name: "SAM 2 video", Class: "Sam2", MT: "sam2_video", ConfigClass: "Sam2VideoConfig", Suffix: TaskBase, VideoSuffix: "VideoModel",
		Vision: "hiera", Memory: sam2Memory},
	{Name: "EdgeTAM", Class: "EdgeTam", MT: "edgetam_video", ConfigClass: "EdgeTamVideoConfig", Suffix: TaskBase, VideoSuffix: "VideoModel",
		Vision: "hiera", Only: sam2VisionOnly, Memory: samMemory{MLP: [2]string{"mlp.up_proj", "mlp.down_proj"},
			MLPField: "memory_attention_mlp_hidden_size", Layers: "2", Perceiver: true}},
	{Name: "SAM 3 tracker", Class: "Sam3Tracker", MT: "sam3_tracker", Suffix: TaskBase, Pre: "tracker_model.", Vision: "sam3"},
	{Name: "SAM 3 tracker video", Class: "Sam3Tracker", MT: "sam3_tracker_video", ConfigClass: "Sam3TrackerVideoConfig", Suffix: TaskBase, VideoSuffix: "VideoModel",
		Pre: "tracker_model.", Vision: "sam3", Memory: sam2Memory},
}

var _ = registerGroup(func() []*Family { return append(sam2VisionFamilies(), sam3VisionFamilies()...) })

var _ = registerGroup(func() []*Family {
	return func() []*Family {
		var fs []*Family
		for _, t := range samTrackers {
			fs = append(fs, t.family())
		}
		return fs
	}()
})

// sam3Detectors are SAM 3 (Sam3Model: a DETR detector with text and
// geometry prompts on SAM 3's ViT) and SAM 3 lite text (its MobileCLIP
// text encoder), and the lite text encoder alone.
func sam3Detectors() []*Family {
	det := func(name, class, mt string, text sam3Text, only *samOnly) *Family {
		g, s, f := sam3Detector("", text)
		return only.apply(&Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
			Defs: sam3DetectorDefs("", text), Global: g, Stacks: s, Final: f, Embed: g[0].Name,
			Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}})
	}
	g, s, f := sam3LiteText.build("")
	lite := &Family{Name: "SAM 3 lite text encoder", Class: "Sam3LiteTextText", ModelTypes: []string{"sam3_lite_text_text_model"}, Causal: "-", SeqCls: "-",
		Defs: sam3LiteText.defs(""), Global: g, Stacks: []Stack{s}, Final: f, Embed: g[0].Name, Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	return []*Family{
		det("SAM 3", "Sam3", "sam3", sam3CLIPText, sam3NeedsText),
		det("SAM 3 lite text", "Sam3LiteText", "sam3_lite_text", sam3LiteText, nil),
		lite,
	}
}

// sam3NeedsText: without a text_config SAM 3 builds a 1024-wide CLIP
// text encoder, with one CLIPTextConfig's 512-wide defaults for what it
// leaves out; the first is not modelled.
var sam3NeedsText = &samOnly{Field: "text_config", Want: "*", Why: "its default text encoder (no text_config) is not modelled"}

var _ = registerGroup(sam3Detectors)

// sam3Video is SAM 3 video (Sam3VideoModel): the SAM 3 detector under
// detector_model (detector_config) and SAM 3's video tracker without its
// image encoder under tracker_model.tracker_model (tracker_config), its
// FPN neck at the top (tracker_neck, on the detector's vision config).
// The tracker's symbols that would
// collide with the detector's (its neck's, its ViT width) are renamed
// with a k prefix.
func sam3Video() *Family {
	dg, ds, df := sam3Detector("detector_model.", sam3CLIPText)
	var tr samTracker
	for _, t := range samTrackers {
		if t.MT == "sam3_tracker_video" {
			tr = t
		}
	}
	td, tg, ts, tf := tr.parts(true, "tracker_config.", "tracker_model.tracker_model.", false)
	pairs := []string{"xH", "kxH", "xL", "kxL", "xI", "kxI", "xC", "kxC", "xP", "kxP", "xPre", "kxPre", "nH", "knH", "nSF", "knSF"}
	rx := symRenamer(pairs...)
	for i := range td {
		td[i].Sym, td[i].Default = rx(td[i].Sym), rx(td[i].Default)
		if td[i].Null != "" && td[i].Null != "=" {
			td[i].Null = rx(td[i].Null)
		}
		if td[i].Legend != "" {
			td[i].Legend = "tracker " + td[i].Legend
		}
	}
	for i := range ts {
		ts[i] = renamedStack(ts[i], "tracker "+ts[i].Name, ts[i].Prefix, pairs...)
	}
	return sam3VideoNeedsText.apply(&Family{Name: "SAM 3 video", Class: "Sam3", ConfigClass: "Sam3VideoConfig", ModelTypes: []string{"sam3_video"}, Causal: "-", SeqCls: "-",
		Defs: cat(sam3DetectorDefs("detector_config.", sam3CLIPText), td), Global: cat(dg, renameSyms(tg, pairs...)),
		Stacks: cat(ds, ts), Final: cat(df, renameSyms(tf, pairs...), sam3Neck("tracker_neck.")), Embed: dg[0].Name,
		Tasks: []Task{{Suffix: "VideoModel", KeepFinal: true}}})
}

var sam3VideoNeedsText = &samOnly{Field: "detector_config.text_config", Want: "*", Why: sam3NeedsText.Why}

var _ = register(sam3Video)

// tipsFamilies are TIPSv2: the dual encoder (Tipsv2Model, and its
// Tipsv2VisionBackbone: the image encoder alone under vision_config),
// the image encoder alone (Tipsv2VisionModel, Tipsv2VisionBackbone) and
// the text encoder alone. Transformers 5.x saves them in the original
// checkpoint's names (its conversion mapping).
func tipsFamilies() []*Family {
	vg, vs, vf := tipsVision("")
	vision := &Family{Name: "TIPSv2 vision", Class: "Tipsv2Vision", ModelTypes: []string{"tipsv2_vision_model"}, Causal: "-", SeqCls: "-",
		Defs: tipsDefs(""), Global: vg, Stacks: []Stack{vs}, Final: vf, Embed: vg[0].Name,
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}, {Suffix: "Backbone", KeepFinal: true}}}
	tg, ts, tf := tipsText("")
	text := &Family{Name: "TIPSv2 text", Class: "Tipsv2Text", ModelTypes: []string{"tipsv2_text_model"}, Causal: "-", SeqCls: "-",
		Defs: tipsTextDefs(""), Global: tg, Stacks: []Stack{ts}, Final: tf, Embed: tg[0].Name,
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	vg2, vs2, vf2 := tipsVision("vision_encoder.")
	tg2, ts2, tf2 := tipsText("text_encoder.")
	backbone := &Family{Name: "TIPSv2 vision", Class: "Tipsv2", ModelTypes: nil, Causal: "-", SeqCls: "-",
		Defs: tipsDefs("vision_config."), Global: vg, Stacks: []Stack{vs}, Final: vf, Embed: vg[0].Name}
	dual := &Family{Name: "TIPSv2", Class: "Tipsv2", ModelTypes: []string{"tipsv2"}, Causal: "-", SeqCls: "-",
		Defs: cat(tipsDefs("vision_config."), tipsTextDefs("text_config.")), Global: cat(vg2, tg2), Stacks: []Stack{vs2, ts2},
		Final: cat(vf2, tf2, []T{{Name: "temperature", Shape: []string{}, Role: RoleNorm}}), Embed: vg2[0].Name,
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}, {Suffix: "VisionBackbone", KeepFinal: true, Of: backbone}}}
	return []*Family{vision, text, dual}
}

var _ = registerGroup(tipsFamilies)

// tipsDPT is TIPSv2's DPT (tipsv2_dpt): the TIPSv2 image encoder as its
// backbone (backbone_config) under vision_encoder, and per task class
// one DPT head of its own (depth: num_depth_bins wide, normals: 3,
// segmentation: the labels).
func tipsDPT() *Family {
	vg, vs, vf := tipsVision("vision_encoder.")
	head := func(suffix, pre, name, out string, labels bool) Task {
		return Task{Suffix: suffix, KeepFinal: true, Labels: labels, Head: tipsDPTHead(pre, name, out)}
	}
	return tipsNeedsBackbone.apply(&Family{Name: "TIPSv2 DPT", Class: "Tipsv2Dpt", ModelTypes: []string{"tipsv2_dpt"}, Causal: "-", SeqCls: "-",
		Defs: cat(tipsDefs("backbone_config."), []Def{
			{Sym: "F", Field: "fusion_hidden_size", Default: "256", Legend: "F", Desc: "fusion width", Show: true, Pos: true},
			listOf("nh", "neck_hidden_sizes", "list(96, 192, 384, 768)", "the neck's widths"),
			{Sym: "rf", Field: "reassemble_factors", Type: MilliList, Default: "list(4000, 2000, 1000, 500)", Null: "=", Desc: "each feature's resize factor (×1000)"},
			{Sym: "bins", Field: "num_depth_bins", Default: "256", Desc: "depth bins", Pos: true}}),
		Global: vg, Stacks: []Stack{vs}, Final: vf, Embed: vg[0].Name,
		Tasks: []Task{head("ForDepthEstimation", "depth_head.", "depth_head", "bins", false),
			head("ForNormalEstimation", "normals_head.", "normals_head", "3", false),
			head("ForSemanticSegmentation", "segmentation_head.", "segmentation_head", "C", true)}})
}

// tipsNeedsBackbone: without a backbone_config TIPSv2's DPT loads its
// default backbone, not modelled.
var tipsNeedsBackbone = &samOnly{Field: "backbone_config", Want: "*", Why: "its default backbone (no backbone_config) is not modelled"}

var _ = register(tipsDPT)

// lightGlue is LightGlue (LightGlueForKeypointMatching): its keypoint
// detector (the registered family keypoint_detector_config.model_type
// names, SuperPoint's ForKeypointDetection class: withPart) under
// keypoint_detector, the input projection where the detector's
// descriptors are not descriptor_dim wide, the self/cross attention
// layers (an MLP on intermediate_size, 2·descriptor_dim unless
// config.json says otherwise: both writers take it over their own), the
// match assignment layers and one token confidence layer fewer.
func lightGlue() *Family {
	attn := func(pre string) []T {
		return cat(linear(pre+"q_proj", "heads*(H/heads)", "H", "aBias"), linear(pre+"k_proj", "kv*(H/heads)", "H", "aBias"),
			linear(pre+"v_proj", "kv*(H/heads)", "H", "aBias"), linear(pre+"o_proj", "H", "heads*(H/heads)", "aBias"))
	}
	mlp := func(pre string) []T {
		return cat(linear(pre+"fc1", "I", "I", "true"), linear(pre+"fc2", "H", "I", "true"), norm(pre+"layer_norm", "I", "true"))
	}
	return withPart(&Family{Name: "LightGlue", Class: "LightGlue", ModelTypes: []string{"lightglue"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "D", Field: "descriptor_dim", Default: "256", Legend: "D", Desc: "descriptor width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "9", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_attention_heads", Default: "4", Desc: "heads", Pos: true},
			{Sym: "kv", Field: "num_key_value_heads", Default: "heads", Null: "heads", Desc: "key/value heads", Pos: true},
			{Sym: "H", Field: "hidden_size", Default: "D", Desc: "attention width", Pos: true},
			{Sym: "I", Field: "intermediate_size", Default: "2*D", Desc: "MLP width", Pos: true},
			flag("aBias", "attention_bias", "true", "attention biases"),
			{Sym: "kD", Field: "keypoint_detector_config.descriptor_decoder_dim", Default: "256", Desc: "the detector's descriptor width", Pos: true},
		},
		Global: cat(when("D != kD", linear("input_projection", "D", "kD", "true")),
			[]T{{Name: "positional_encoder.projector.weight", Shape: []string{"D/heads/2", "2"}, Role: RoleLinear}}),
		Stacks: []Stack{{Name: "matcher", Prefix: "transformer_layers.{l}.", Layers: "L", Tensors: cat(
			attn("self_attention."), mlp("self_mlp."), attn("cross_attention."), mlp("cross_mlp."))}},
		Final: cat(copies("L", linear("match_assignment_layers.{e}.final_projection", "D", "D", "true"),
			linear("match_assignment_layers.{e}.matchability", "1", "D", "true")),
			copies("L-1", linear("token_confidence.{e}.token", "1", "D", "true"))),
		Embed: "positional_encoder.projector.weight",
		Tasks: []Task{{Suffix: "ForKeypointMatching", KeepFinal: true}}}, "keypoint_detector_config.", "keypoint_detector.", "ForKeypointDetection")
}

var _ = register(lightGlue)

// efficientLoFTR is EfficientLoFTR: a RepVGG backbone (stage l of
// stage_num_blocks[l] blocks, each a 3×3 and a 1×1 convolution with
// their BatchNorms and, where the block keeps its width at stride 1, an
// identity BatchNorm) and the aggregated-attention transformer (self-
// and cross-attention per layer: a depthwise query aggregation, a norm,
// the attention, an MLP on the concatenated states); the matching class
// adds the fine fusion layers. The per-block lists
// (stage_block_in_channels, …) are config.json's where it has them —
// transformers sets them after computing them from out_features,
// stage_stride and stage_num_blocks —, else computed so; so are
// fine_fusion_dims, intermediate_size and num_key_value_heads.
func efficientLoFTR() *Family {
	const base = "efficientloftr."
	blk := func(sym, def string) string {
		return "(len(" + sym + ") > 0 ? at(at(" + sym + ", l), e) : (" + def + "))"
	}
	in := blk("sbi", "e == 0 ? (l == 0 ? 1 : at(of, l-1)) : at(of, l)")
	out := blk("sbo", "at(of, l)")
	stride := blk("sbs", "e == 0 ? at(ss, l) : 1")
	ffd := func(i string) string {
		return "(len(ffdj) > 0 ? at(ffdj, " + i + ") : at(of, len(of)-1-(" + i + ")))"
	}
	agg := func(pre string) []T {
		return cat([]T{{Name: pre + "aggregation.q_aggregation.weight", Shape: []string{"H", "1", "qk", "qk"}, Role: RoleLinear}},
			norm(pre+"aggregation.norm", "H", "true"),
			linear(pre+"attention.q_proj", "heads*hd", "H", "ab"), linear(pre+"attention.k_proj", "kv*hd", "H", "ab"),
			linear(pre+"attention.v_proj", "kv*hd", "H", "ab"), linear(pre+"attention.o_proj", "H", "heads*hd", "ab"),
			linear(pre+"mlp.fc1", "I", "2*H", ""), linear(pre+"mlp.fc2", "H", "I", ""), norm(pre+"mlp.layer_norm", "H", "true"))
	}
	return &Family{Name: "EfficientLoFTR", Class: "EfficientLoFTR", ModelTypes: []string{"efficientloftr"}, Causal: "-", SeqCls: "-",
		BasePrefix: base,
		Defs: []Def{
			{Sym: "H", Field: "hidden_size", Default: "256", Legend: "H", Desc: "the transformer's width", Show: true, Pos: true},
			{Sym: "L", Field: "num_attention_layers", Default: "4", Legend: "L", Desc: "transformer layers", Show: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_attention_heads", Default: "8", Desc: "attention heads", Pos: true},
			{Sym: "kv", Field: "num_key_value_heads", Default: "heads", Null: "heads", Desc: "key/value heads", Pos: true},
			{Sym: "hd", Field: "head_dim", Default: "H/heads", Null: "H/heads", Desc: "head width", Pos: true},
			{Sym: "I", Field: "intermediate_size", Default: "2*H", Null: "2*H", Legend: "I", Desc: "MLP width", Show: true, Pos: true},
			flag("ab", "attention_bias", "false", "the attention projections have biases"),
			{Sym: "qk", Field: "q_aggregation_kernel_size", Default: "4", Desc: "the query aggregation's kernel side", Pos: true},
			listOf("nb", "stage_num_blocks", "list(1, 2, 4, 14)", "each stage's blocks"),
			listOf("ss", "stage_stride", "list(2, 1, 2, 2)", "each stage's stride"),
			listOf("of", "out_features", "list(64, 64, 128, 256)", "each stage's width"),
			{Sym: "sbi", Field: "stage_block_in_channels", Type: Lists, Default: "empty", Null: "=", Desc: "each block's input width"},
			{Sym: "sbo", Field: "stage_block_out_channels", Type: Lists, Default: "empty", Null: "=", Desc: "each block's width"},
			{Sym: "sbs", Field: "stage_block_stride", Type: Lists, Default: "empty", Null: "=", Desc: "each block's stride"},
			list("ffdj", "fine_fusion_dims", "the fine fusion's widths (absent: out_features reversed, but the first)"),
			derived("nffd", "len(ffdj) > 0 ? len(ffdj) : len(of)-1"),
		},
		Stacks: []Stack{
			{Name: "stage", Prefix: base + "backbone.stages.{l}.", Layers: "len(ss)", Tensors: blocksOf("blocks.", "at(nb, l)", cat(
				renameSyms(cat(convNB("conv1.conv", "O", "N", "3", "3"), batchNorm("conv1.norm", "O"),
					convNB("conv2.conv", "O", "N", "1", "1"), batchNorm("conv2.norm", "O"),
					when("N == O && S == 1", batchNorm("identity", "N"))), "O", out, "N", in, "S", stride)))},
			{Prefix: base + "local_feature_transformer.layers.{l}.", Layers: "L", Tensors: cat(agg("self_attention."), agg("cross_attention."))},
		},
		Embed: base + "backbone.stages.0.blocks.0.conv1.conv.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForKeypointMatching", Head: cat(convNB("refinement_layer.out_conv", ffd("0"), ffd("0"), "1", "1"),
				copies("nffd-1", renameSyms(cat(convNB("refinement_layer.out_conv_layers.{e}.out_conv1", "M", "D", "1", "1"),
					convNB("refinement_layer.out_conv_layers.{e}.out_conv2", "M", "M", "3", "3"), batchNorm("refinement_layer.out_conv_layers.{e}.batch_norm", "M"),
					convNB("refinement_layer.out_conv_layers.{e}.out_conv3", "D", "M", "3", "3")), "M", ffd("e"), "D", ffd("e+1"))))}},
	}
}

var _ = register(efficientLoFTR)
