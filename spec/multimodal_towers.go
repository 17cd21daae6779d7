package spec

import (
	"fmt"
	"slices"
)

// Dual encoders, vision towers and video models checked as models of
// their own: SigLIP2, BLIP and BLIP-2's other classes, … Each reuses
// the blocks of the VLM or dual encoder it is a part of (multimodal.go,
// multimodal_clip.go); the blocks only these need are in
// blocks_towers.go. Also Pixio, Sapiens 2 and C-RADIO (vision towers 5.x
// saves in their original checkpoint's names), TVLT, VideoPrism and
// GroupViT.

var _ = register(
	// SigLIP2: SigLIP's dual encoder with the NaFlex tower (a linear
	// patch embedding, num_patches learned positions).
	func() *Family {
		return dualEncoder("SigLIP2", "Siglip2", "siglip2", "siglip2_vision_model", siglipVision, siglipText, true)
	},
	func() *Family {
		return visionAlone("SigLIP2 vision", "Siglip2Vision", "siglip2_vision_model", "siglip2_vision_model", siglipVision)
	},
)

// blipModel is BLIP's dual encoder (BlipModel: the text encoder with its
// pooler under text_model., both projections, the logit scale) and
// blipQA its question answering (BlipForQuestionAnswering: the text
// encoder without pooler under text_encoder., the captioning decoder):
// the captioning family's text and vision blocks re-rooted.
func blipClasses() []Task {
	vd, vg, vs, vf := blipVision("768", "12", "3072", "16", "384")
	td, tg, ts, tf := blipText()
	enc := func(to string) ([]T, Stack) {
		r := [][2]string{{"text_decoder.bert.", to}}
		return rerootTs(tg, r), rerootStack(ts, r)
	}
	defs := cat(td, vd, noRelPos)
	mg, ms := enc("text_model.")
	model := &Family{Name: "BLIP", Class: "Blip", ModelTypes: []string{"blip"},
		Defs:   cat(defs, []Def{{Sym: "proj", Field: "projection_dim", Default: "512", Legend: "proj", Desc: "shared embedding width", Show: true, Pos: true}}),
		Global: cat(mg, vg), Stacks: []Stack{ms, vs},
		Final: cat(linear("text_model.pooler.dense", "H", "H", "true"), vf,
			[]T{{Name: "visual_projection.weight", Shape: []string{"proj", "vH"}, Role: RoleLinear},
				{Name: "text_projection.weight", Shape: []string{"proj", "H"}, Role: RoleLinear},
				{Name: "logit_scale", Shape: []string{}, Role: RoleNorm}}),
		Embed: "text_model.embeddings.word_embeddings.weight"}
	qg, qs := enc("text_encoder.")
	qa := &Family{Name: "BLIP", Class: "Blip", ModelTypes: []string{"blip"},
		Defs: defs, Global: cat(tg, qg, vg), Stacks: []Stack{ts, qs, vs}, Final: cat(tf, vf),
		Embed: "text_decoder.bert.embeddings.word_embeddings.weight"}
	return []Task{classOf(TaskBase, model), classOf("ForQuestionAnswering", qa, headsOf(tf)...)}
}

// qformerStack is the BLIP-2 Q-Former's layers under pre ("qformer."),
// cross-attending every cross_attention_frequency layers; text: the
// condition of the text FFN.
func qformerStack(pre, text string) Stack {
	return Stack{Name: "qformer", Prefix: pre + "encoder.layer.{l}.", Layers: "qL",
		Kinds: []Kind{{Name: "cross", If: "l % qFreq == 0"}, {Name: "self"}}, Tensors: qformerLayer(text)}
}

// blip2Classes adds BLIP-2's and InstructBLIP's other classes to v.
// InstructBlipModel keeps the language model's base model (OPTModel)
// under language_model., without the head; Blip2ForImageTextRetrieval
// is the tower and the Q-Former with the Q-Former's text embeddings,
// the two projections to image_text_hidden_size and the image-text
// matching head, without a language model.
func blip2Classes(v *vlm, instruct bool) {
	if instruct {
		v.BasePrefix = "language_model.model."
		v.tasks = []Task{{Suffix: TaskBase, Prefix: "language_model.", KeepFinal: true}}
		return
	}
	vd, vg, vs, vf := blipVision("1408", "39", "6144", "14", "224")
	ret := &Family{Name: "BLIP-2", Class: "Blip2", ModelTypes: []string{"blip-2"},
		Defs: cat(vd, qformerDefs, []Def{opt("itH", "image_text_hidden_size", "256")}),
		Global: cat(vg, []T{{Name: "query_tokens", Shape: []string{"1", "nQ", "Q"}, Role: RoleEmbedding},
			{Name: "embeddings.word_embeddings.weight", Shape: []string{"qV", "Q"}, Role: RoleEmbedding},
			{Name: "embeddings.position_embeddings.weight", Shape: []string{"qP", "Q"}, Role: RoleEmbedding}}),
		Stacks: []Stack{vs, qformerStack("qformer.", "qText")},
		Final: cat(vf, norm("qformer.layernorm", "Q", "true"),
			linear("vision_projection", "itH", "Q", "true"), linear("text_projection", "itH", "Q", "true"), linear("itm_head", "2", "Q", "true")),
		Embed: "embeddings.word_embeddings.weight"}
	v.tasks = []Task{classOf("ForImageTextRetrieval", ret)}
}

var _ = register(
	// InstructBLIP-Video: InstructBLIP's layout under its own classes.
	func() *Family { return blip2("InstructBLIP-Video", "InstructBlipVideo", "instructblipvideo", true) },
	// The BLIP-2 Q-Former alone (Blip2QFormerModel): its layers and final
	// norm at the top level, fields of its own config.
	func() *Family {
		return &Family{Name: "BLIP-2 Q-Former", Class: "Blip2QFormer", ModelTypes: []string{"blip_2_qformer"}, Causal: "-", SeqCls: "-",
			Defs: subDefs(qformerDefs, "qformer_config."), Stacks: []Stack{qformerStack("", "qText")}, Final: norm("layernorm", "Q", "true"),
			Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	},
)

// dinov3ViT is DINOv3's ViT: class, mask and register tokens, rotary
// positions (no table), q/k/v/o projections with a bias switch each, layer
// scales, an MLP (gated where use_gated_mlp) with mlp_bias, a final
// norm; the layers at the top level (layer.{l}).
func dinov3ViT() *Family {
	return &Family{Name: "DINOv3 ViT", Class: "DINOv3ViT", ModelTypes: []string{"dinov3_vit"}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("384", "12", "6", "16", "224"), []Def{inner("intermediate_size", "1536"),
			{Sym: "R", Field: "num_register_tokens", Default: "0", Desc: "register tokens"},
			flag("qb", "query_bias", "true", "the query has a bias"), flag("kb", "key_bias", "false", "the key has a bias"),
			flag("vb", "value_bias", "true", "the value has a bias"), flag("ob", "proj_bias", "true", "the output projection has a bias"),
			flag("mb", "mlp_bias", "true", "the MLP has biases"), flag("gated", "use_gated_mlp", "false", "a gated MLP")}),
		Global: cat([]T{{Name: "embeddings.cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
			{Name: "embeddings.mask_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
			{Name: "embeddings.register_tokens", Shape: []string{"1", "R", "H"}, Role: RoleNorm, ZeroOK: true}},
			conv("embeddings.patch_embeddings", "H", "Ch", "P", "P")),
		Stacks: []Stack{{Prefix: "layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.q_proj", "H", "H", "qb"), linear("attention.k_proj", "H", "H", "kb"),
			linear("attention.v_proj", "H", "H", "vb"), linear("attention.o_proj", "H", "H", "ob"),
			vec("layer_scale1.lambda1", "H"), vec("layer_scale2.lambda1", "H"),
			when("gated", gatedMLP("mlp.", "I", "mb")),
			when("!gated", plainMLP("mlp.up_proj", "mlp.down_proj", "I", "mb")),
			norm("norm1", "H", "true"), norm("norm2", "H", "true"))}},
		Final: norm("norm", "H", "true"),
		Embed: "embeddings.patch_embeddings.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
	}
}

var _ = register(dinov3ViT)

var chineseCLIPVision = [5]string{"768", "12", "3072", "32", "224"}

var _ = register(
	// Chinese-CLIP: CLIP's vision tower and a BERT text encoder (no
	// pooler, no relative positions).
	func() *Family {
		return clipPair("Chinese-CLIP", "ChineseCLIP", "chinese_clip", chineseCLIPVision,
			bertText("text_model.", "30522", "768", "12", "12", "3072", "512", "2", "false"), "512")
	},
	func() *Family {
		return visionAlone("Chinese-CLIP vision", "ChineseCLIPVision", "chinese_clip_vision_model", "clip_vision_model", chineseCLIPVision)
	},
	// AltCLIP: CLIP's vision tower and an XLM-R text encoder (4.x builds
	// relative positions' distance embeddings, 5.x none), a pre-LayerNorm
	// and a transformation to project_dim.
	func() *Family {
		return func() *Family {
			t := bertText("text_model.roberta.", "250002", "1024", "24", "16", "4096", "514", "1",
				"!tf5 && (pos_type == 'relative_key' || pos_type == 'relative_key_query')")
			t.Defs = append(t.Defs, Def{Sym: "tPD", Field: "text_config.project_dim", Default: "768", Desc: "the text transformation's width", Pos: true})
			t.Final = cat(norm("text_model.pre_LN", "H", "true"), linear("text_model.transformation", "tPD", "H", "true"))
			t.Width = "tPD"
			f := clipPair("AltCLIP", "AltCLIP", "altclip", [5]string{"768", "12", "3072", "32", "224"}, t, "768")
			// 5.x names the vision tower's layers encoder.layer.{l}.
			f.Variants = [][][2]string{{{"vision_model.encoder.layers.", "vision_model.encoder.layer."}}}
			return f
		}()
	},
)

// videoMAE is VideoMAE: tubelet patches (a 3-D convolution), fixed
// sinusoidal positions (not stored), maeLayer layers, a final LayerNorm
// unless use_mean_pooling (then the classifier's fc_norm); its
// pre-training class adds the decoder (its own width, depth and FFN)
// predicting tubelet·patch²·channels pixels.
func videoMAE() *Family {
	pre := "videomae."
	return &Family{Name: "VideoMAE", Class: "VideoMAE", ModelTypes: []string{"videomae"}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("768", "12", "12", "16", "224"), []Def{inner("intermediate_size", "3072"),
			opt("T", "tubelet_size", "2"), flag("meanPool", "use_mean_pooling", "true", "mean pooling (fc_norm, no final norm)")}),
		Global: conv3d(pre+"embeddings.patch_embeddings.projection", "H", "Ch", "T", "P", "P"),
		Stacks: []Stack{{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: maeLayer("H", "I", "qkv_bias")}},
		Final:  when("!meanPool", norm(pre+"layernorm", "H", "true")),
		Embed:  pre + "embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForVideoClassification", Labels: true, Head: cat(when("meanPool", norm("fc_norm", "H", "true")), classifier("classifier", "H"))},
			{Suffix: TaskPreTrain, Defs: []Def{
				{Sym: "dH", Field: "decoder_hidden_size", Default: "384", Legend: "dH", Desc: "decoder width", Show: true, Pos: true},
				{Sym: "dL", Field: "decoder_num_hidden_layers", Default: "4", Legend: "dL", Desc: "decoder layers", Show: true, Pos: true, Max: MaxLayers},
				{Sym: "dI", Field: "decoder_intermediate_size", Default: "1536", Desc: "decoder FFN inner width", Pos: true}},
				Head: cat(linear("encoder_to_decoder", "dH", "H", ""), []T{{Name: "mask_token", Shape: []string{"1", "1", "dH"}, Role: RoleNorm}},
					perBlock("dL", prefixed("decoder.decoder_layers.{e}.", maeLayer("dH", "dI", "qkv_bias"))),
					norm("decoder.norm", "dH", "true"), linear("decoder.head", "Ch*T*P*P", "dH", "true"))}},
	}
}

var _ = register(videoMAE)

// vlmTowerAlone is a VLM's CLIP, SigLIP or Pixtral tower (visionTower,
// towerDefs) as a model of its own: the class class+suffix of model_type
// mt, its fields at the top level, its names without a prefix.
func vlmTowerAlone(name, class, suffix, mt string) *Family {
	g, s, f := visionTower("", "")
	return &Family{Name: name, Class: class, ConfigClass: class + "Config", ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: subDefs(towerDefs(mt), vcfg), Global: g, Stacks: s, Final: f,
		Tasks: []Task{{Suffix: suffix, KeepFinal: true}}}
}

// mlcd is MLCD's vision tower: CLIP's without learned positions (rotary
// ones, and the class token's half-head-wide rotary table class_pos_emb).
func mlcd() *Family {
	f := visionAlone("MLCD", "MLCDVision", "mlcd", "clip_vision_model", [5]string{"1664", "48", "8192", "14", "336"})
	f.ModelTypes = []string{"mlcd", "mlcd_vision_model"}
	f.ConfigClass = "MLCDVisionConfig"
	f.Defs = append(f.Defs, Def{Sym: "vheads", Field: "num_attention_heads", Default: "16", Desc: "attention heads", Pos: true, Divides: "vH"})
	f.Global = slices.DeleteFunc(f.Global, func(t T) bool { return t.Name == "vision_model.embeddings.position_embedding.weight" })
	f.Global = append(f.Global, T{Name: "vision_model.class_pos_emb", Shape: []string{"1", "vH/vheads/2"}, Role: RoleEmbedding})
	return f
}

var _ = register(
	func() *Family {
		return vlmTowerAlone("Idefics3 vision", "Idefics3Vision", "Transformer", "idefics3_vision")
	},
	func() *Family {
		return vlmTowerAlone("SmolVLM vision", "SmolVLMVision", "Transformer", "smolvlm_vision")
	},
	func() *Family { return vlmTowerAlone("Pixtral vision", "Pixtral", "VisionModel", "pixtral") },
	// MetaCLIP 2: CLIP's layout under its own classes.
	func() *Family {
		return dualEncoder("MetaCLIP 2", "MetaClip2", "metaclip_2", "clip_vision_model", clipVision, clipText, false)
	},
	mlcd,
)

// vivit is ViViT: ViT's layers over tubelets (a 3-D convolution of
// tubelet_size [t, h, w]) with a class token and learned positions of
// every tubelet; the base model's pooler, the video classifier.
func vivit() *Family {
	pre := "vivit."
	return &Family{Name: "ViViT", Class: "Vivit", ModelTypes: []string{"vivit"}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("768", "12", "12", "16", "224"), []Def{inner("intermediate_size", "3072"),
			{Sym: "tub", Field: "tubelet_size", Type: List, Default: "list(2, 16, 16)", Desc: "tubelet [frames, height, width]"},
			opt("F", "num_frames", "32"),
			derived("tN", "(F/at(tub, 0))*(S/at(tub, 1))*(S/at(tub, 2))")}),
		Global: cat([]T{{Name: pre + "embeddings.cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm}},
			conv3d(pre+"embeddings.patch_embeddings.projection", "H", "Ch", "at(tub, 0)", "at(tub, 1)", "at(tub, 2)"),
			[]T{{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "tN+1", "H"}, Role: RoleEmbedding}}),
		Stacks: []Stack{{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: cat(vitAttention,
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"))}},
		Final: cat(norm(pre+"layernorm", "H", "true"), when("pool", linear(pre+"pooler.dense", "H", "H", "true"))),
		Embed: pre + "embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-", Defs: []Def{derived("pool", "true")}},
			{Suffix: "ForVideoClassification", Head: classifier("classifier", "H"), Labels: true}},
	}
}

// timesformer is TimeSformer: ViT patches with a class token, learned
// positions and (but for space_only attention) time embeddings per frame,
// fused-qkv layers, and with divided_space_time attention a temporal
// attention, its LayerNorm and dense before the spatial one.
func timesformer() *Family {
	pre := "timesformer."
	att := func(p string) []T {
		return cat(linear(p+"attention.qkv", "3*H", "H", "qkv_bias"), linear(p+"output.dense", "H", "H", "true"))
	}
	return &Family{Name: "TimeSformer", Class: "Timesformer", ModelTypes: []string{"timesformer"}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("768", "12", "12", "16", "224"), []Def{inner("intermediate_size", "3072"), opt("F", "num_frames", "8"),
			{Sym: "attType", Field: "attention_type", Type: Str, Default: "'divided_space_time'", Desc: "how attention spans space and time"},
			derived("divided", "attType == 'divided_space_time'")}),
		Global: cat([]T{{Name: pre + "embeddings.cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm}},
			conv(pre+"embeddings.patch_embeddings.projection", "H", "Ch", "P", "P"),
			[]T{{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "N+1", "H"}, Role: RoleEmbedding},
				{Name: pre + "embeddings.time_embeddings", Shape: []string{"1", "F", "H"}, Role: RoleEmbedding, If: "attType != 'space_only'"}}),
		Stacks: []Stack{{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: cat(att("attention."),
			when("divided", att("temporal_attention."), norm("temporal_layernorm", "H", "true"), linear("temporal_dense", "H", "H", "true")),
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"))}},
		Final: norm(pre+"layernorm", "H", "true"),
		Embed: pre + "embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForVideoClassification", Head: classifier("classifier", "H"), Labels: true}},
	}
}

var _ = register(vivit, timesformer)

// aimv2Layer is an AIMv2 layer of width h and FFN i: RMS norms,
// q/k/v/out projections biased where qkv, a SwiGLU FFN biased where mlp.
func aimv2Layer(h, i, qkv, mlp string) []T {
	return renameSyms(cat(
		linear("attention.q_proj", "H", "H", qkv), linear("attention.k_proj", "H", "H", qkv),
		linear("attention.v_proj", "H", "H", qkv), linear("attention.out_proj", "H", "H", qkv),
		gatedMLP("ffn.", "I", mlp), norm("rms_norm1", "H", ""), norm("rms_norm2", "H", "")), "H", h, "I", i)
}

// aimv2Vision is AIMv2's vision tower under pre, fields under cfg: a
// patch convolution and RMS norm, learned positions unless is_native,
// aimv2Layer layers, a final RMS norm and (use_head) the attention-pooling
// head of a class token.
func aimv2Vision(cfg, pre string) ([]Def, []T, Stack, []T) {
	defs := cat(vTower(cfg, "1024", "24", "2816", "14"), []Def{
		opt("vS", cfg+"image_size", "224"), opt("vC", cfg+"num_channels", "3"),
		flag("vqkv", cfg+"qkv_bias", "false", "vision q, k, v and out projections have biases"),
		flag("vmlp", cfg+"mlp_bias", "false", "vision FFN has biases"),
		flag("vhead", cfg+"use_head", "true", "the attention-pooling head"),
		flag("vnative", cfg+"is_native", "false", "native resolution (no learned positions)")})
	global := cat(conv(pre+"embeddings.patch_embed", "vH", "vC", "vP", "vP"), norm(pre+"embeddings.rms_norm", "vH", ""),
		[]T{{Name: pre + "embeddings.position_embedding.weight", Shape: []string{"(vS/vP)*(vS/vP)", "vH"}, Role: RoleEmbedding, If: "!vnative"}})
	final := cat(norm(pre+"rms_norm", "vH", ""), when("vhead",
		[]T{{Name: pre + "head.cls_token", Shape: []string{"1", "1", "vH"}, Role: RoleNorm}},
		renameSyms(cat(linear(pre+"head.k_proj", "H", "H", "vqkv"), linear(pre+"head.v_proj", "H", "H", "vqkv"),
			linear(pre+"head.output_proj", "H", "H", "true")), "H", "vH")))
	return defs, global, Stack{Name: "vision", Prefix: pre + "encoder.layers.{l}.", Layers: "vL", Tensors: aimv2Layer("vH", "vI", "vqkv", "vmlp")}, final
}

func aimv2() *Family {
	vd, vg, vs, vf := aimv2Vision(vcfg, "vision_model.")
	c := "text_config."
	td := []Def{
		{Sym: "tV", Field: c + "vocab_size", Default: "49408", Legend: "tV", Desc: "text tokens", Show: true, Pos: true},
		{Sym: "tH", Field: c + "hidden_size", Default: "768", Legend: "tH", Desc: "text tower width", Show: true, Pos: true},
		{Sym: "tL", Field: c + "num_hidden_layers", Default: "12", Legend: "tL", Desc: "text tower layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "tI", Field: c + "intermediate_size", Default: "2048", Legend: "tI", Desc: "text FFN inner width", Show: true, Pos: true},
		opt("tP", c+"max_position_embeddings", "77"),
		flag("tqkv", c+"qkv_bias", "false", "text q, k, v and out projections have biases"),
		flag("tmlp", c+"mlp_bias", "false", "text FFN has biases"),
		{Sym: "proj", Field: "projection_dim", Default: "512", Legend: "proj", Desc: "shared embedding width", Show: true, Pos: true},
	}
	return &Family{Name: "AIMv2", Class: "Aimv2", ModelTypes: []string{"aimv2"}, Causal: "-", SeqCls: "-",
		Defs: cat(td, vd),
		Global: cat([]T{{Name: "text_model.embeddings.token_embedding.weight", Shape: []string{"tV", "tH"}, Role: RoleEmbedding},
			{Name: "text_model.embeddings.position_embedding.weight", Shape: []string{"tP", "tH"}, Role: RoleEmbedding}}, vg),
		Stacks: []Stack{{Name: "text", Prefix: "text_model.encoder.layers.{l}.", Layers: "tL", Tensors: aimv2Layer("tH", "tI", "tqkv", "tmlp")}, vs},
		Final: cat(norm("text_model.rms_norm", "tH", ""), vf, []T{{Name: "visual_projection.weight", Shape: []string{"proj", "vH"}, Role: RoleLinear},
			{Name: "text_projection.weight", Shape: []string{"proj", "tH"}, Role: RoleLinear},
			{Name: "logit_scale", Shape: []string{}, Role: RoleNorm}}),
		Embed: "text_model.embeddings.token_embedding.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
	}
}

var _ = register(aimv2, func() *Family {
	return func() *Family {
		d, g, s, f := aimv2Vision("", "")
		return &Family{Name: "AIMv2 vision", Class: "Aimv2Vision", ModelTypes: []string{"aimv2_vision_model"}, Causal: "-", SeqCls: "-",
			Defs: d, Global: g, Stacks: []Stack{s}, Final: f, Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}}
	}()
})

// vjepa2Layer is a V-JEPA 2 layer of width h and FFN i: query, key,
// value (biased where qkv_bias) and proj, a biased MLP, two LayerNorms.
func vjepa2Layer(h, i string) []T {
	return renameSyms(cat(
		linear("attention.query", "H", "H", "qkv_bias"), linear("attention.key", "H", "H", "qkv_bias"),
		linear("attention.value", "H", "H", "qkv_bias"), linear("attention.proj", "H", "H", "true"),
		plainMLP("mlp.fc1", "mlp.fc2", "I", "true"), norm("norm1", "H", "true"), norm("norm2", "H", "true")), "H", h, "I", i)
}

// vjepa2 is V-JEPA 2: the encoder (tubelet patches, rotary positions,
// vjepa2Layer layers of mlp_ratio) and the predictor (its own width,
// depth and mlp_ratio, mask tokens, projections in and out); the video
// classifier adds the attentive pooler (a query token, num_pooler_layers
// self-attention layers and a cross-attention layer, MLPs of 4×).
func vjepa2() *Family {
	pre := "vjepa2."
	pool := "pooler."
	poolMLP := plainMLP("mlp.fc1", "mlp.fc2", "4*H", "true")
	return &Family{Name: "V-JEPA 2", Class: "VJEPA2", ModelTypes: []string{"vjepa2"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunkAt("=0", "hidden_size=1024", "num_hidden_layers=24", "encoder layers")[1:], []Def{
			encHeads("num_attention_heads", "16"),
			{Sym: "P", Field: "patch_size", Default: "16", Legend: "P", Desc: "patch side, pixels", Show: true, Pos: true},
			opt("Ch", "in_chans", "3"), opt("T", "tubelet_size", "2"),
			{Sym: "ratio", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
			derived("I", "H*ratio/1000"),
			flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
			{Sym: "pH", Field: "pred_hidden_size", Default: "384", Legend: "pH", Desc: "predictor width", Show: true, Pos: true},
			{Sym: "pL", Field: "pred_num_hidden_layers", Default: "12", Legend: "pL", Desc: "predictor layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "pratio", Field: "pred_mlp_ratio", Type: Milli, Default: "4000", Desc: "predictor FFN width over its width (×1000)"},
			derived("pI", "pH*pratio/1000"),
			opt("pM", "pred_num_mask_tokens", "10"),
			{Sym: "nPool", Field: "num_pooler_layers", Default: "3", Desc: "the pooler's self-attention layers", Max: MaxLayers},
		}),
		Global: conv3d(pre+"encoder.embeddings.patch_embeddings.proj", "H", "Ch", "T", "P", "P"),
		Stacks: []Stack{{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: vjepa2Layer("H", "I")},
			{Name: "predictor", Prefix: pre + "predictor.layer.{l}.", Layers: "pL", Tensors: vjepa2Layer("pH", "pI")}},
		Final: cat(norm(pre+"encoder.layernorm", "H", "true"),
			[]T{{Name: pre + "predictor.embeddings.mask_tokens", Shape: []string{"pM", "1", "1", "pH"}, Role: RoleEmbedding, ZeroOK: true}},
			linear(pre+"predictor.embeddings.predictor_embeddings", "pH", "H", "true"),
			norm(pre+"predictor.layernorm", "pH", "true"), linear(pre+"predictor.proj", "H", "pH", "true")),
		Embed: pre + "encoder.embeddings.patch_embeddings.proj.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForVideoClassification", Labels: true, Head: cat(
				[]T{{Name: pool + "query_tokens", Shape: []string{"1", "1", "H"}, Role: RoleEmbedding}},
				prefixed(pool+"cross_attention_layer.", cat(linear("cross_attn.q_proj", "H", "H", "true"), linear("cross_attn.k_proj", "H", "H", "true"),
					linear("cross_attn.v_proj", "H", "H", "true"), norm("layer_norm1", "H", "true"), norm("layer_norm2", "H", "true"), poolMLP)),
				perBlock("nPool", prefixed(pool+"self_attention_layers.{e}.", cat(
					linear("self_attn.q_proj", "H", "H", "true"), linear("self_attn.k_proj", "H", "H", "true"),
					linear("self_attn.v_proj", "H", "H", "true"), linear("self_attn.out_proj", "H", "H", "true"),
					norm("layer_norm1", "H", "true"), norm("layer_norm2", "H", "true"), poolMLP))),
				classifier("classifier", "H"))}},
	}
}

var _ = register(vjepa2)

// align is ALIGN: an EfficientNet image tower without its top
// convolution (efficientNetEncoder) under vision_model., a BERT text
// tower with its pooler (no relative positions, no cross-attention),
// a biased text projection to projection_dim and the temperature.
func align() *Family {
	t := bertText("text_model.", "30522", "768", "12", "12", "3072", "512", "2", "false")
	v := efficientNetEncoder("vision_model.", vcfg, false)
	return &Family{Name: "ALIGN", Class: "Align", ModelTypes: []string{"align"}, Causal: "-", SeqCls: "-",
		Defs: cat(replaceDef(t.Defs, derived("cross", "false")), v.Defs,
			[]Def{{Sym: "proj", Field: "projection_dim", Default: "640", Legend: "proj", Desc: "shared embedding width", Show: true, Pos: true}}),
		Global: cat(t.Global, v.Global), Stacks: cat(t.Stacks, v.Stacks),
		Final: cat(linear("text_model.pooler.dense", "H", "H", "true"), linear("text_projection", "proj", "H", "true"),
			[]T{{Name: "temperature", Shape: []string{}, Role: RoleNorm}}),
		Embed: t.Global[0].Name,
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
	}
}

var _ = register(align)

// CLIPSeg's dual encoder (CLIPSegModel) is CLIP's layout and defaults
// under its own classes; the segmentation decoder is another class.
var _ = register(func() *Family {
	return func() *Family {
		f := dualEncoder("CLIPSeg", "CLIPSeg", "clipseg", "clip_vision_model", clipVision, clipText, false)
		f.Tasks = f.Tasks[:1]
		return f
	}()
})

// xclip is X-CLIP: CLIP's towers (the vision tower's pre-norm spelled
// pre_layernorm, each vision layer with its message token's dense,
// LayerNorm and attention), the multi-frame integration transformer
// (mit: CLIP layers of its own width over num_frames learned
// positions) and the video-specific prompt generator (prompt_layers
// cross-attention layers of projection_dim, 4× MLPs).
func xclip() *Family {
	f := dualEncoder("X-CLIP", "XCLIP", "xclip", "clip_vision_model", clipVision, clipText, false)
	f.Defs = cat(f.Defs, []Def{
		{Sym: "vF", Field: "vision_config.num_frames", Default: "8", Desc: "frames", Pos: true},
		{Sym: "mH", Field: "vision_config.mit_hidden_size", Default: "512", Legend: "mH", Desc: "multi-frame integration width", Show: true, Pos: true},
		{Sym: "mL", Field: "vision_config.mit_num_hidden_layers", Default: "1", Desc: "multi-frame integration layers", Max: MaxLayers},
		{Sym: "mI", Field: "vision_config.mit_intermediate_size", Default: "2048", Desc: "multi-frame integration FFN width", Pos: true},
		{Sym: "pL", Field: "prompt_layers", Default: "2", Desc: "prompt generator layers", Max: MaxLayers}})
	f.Global = rerootTs(f.Global, [][2]string{{"vision_model.pre_layrnorm", "vision_model.pre_layernorm"}})
	f.Stacks[1].Tensors = cat(f.Stacks[1].Tensors, linear("message_fc", "vH", "vH", "true"), norm("message_ln", "vH", "true"),
		clipAttn("message_attn.", "vH"))
	f.Stacks = append(f.Stacks, Stack{Name: "mit", Prefix: "mit.encoder.layers.{l}.", Layers: "mL", Tensors: clipLayer("mH", "mI")})
	pg := "prompts_generator."
	f.Final = cat(f.Final, []T{{Name: "mit.position_embedding", Shape: []string{"1", "vF", "mH"}, Role: RoleEmbedding},
		{Name: "prompts_visual_projection", Shape: []string{"vH", "proj"}, Role: RoleLinear}},
		norm("prompts_visual_layernorm", "vH", "true"), norm(pg+"layernorm", "proj", "true"), vec(pg+"alpha", "proj"),
		perBlock("pL", prefixed(pg+"decoder.{e}.", renameSyms(cat(
			linear("cross_attn.q_proj", "H", "H", ""), linear("cross_attn.k_proj", "H", "H", ""),
			linear("cross_attn.v_proj", "H", "H", ""), linear("cross_attn.proj", "H", "H", "true"),
			norm("norm1", "H", "true"), norm("norm3", "H", "true"),
			linear("mlp.0", "4*H", "H", "true"), linear("mlp.3", "H", "4*H", "true")), "H", "proj"))))
	f.Tasks = f.Tasks[:1]
	return f
}

var _ = register(xclip)

// vilt is ViLT: one ViT-layer encoder over BERT text embeddings and
// ViT patch embeddings (a class token, learned positions of the patches
// and it, a modality-type embedding), a final LayerNorm and the pooler;
// question answering is a 2H MLP (Linear, LayerNorm, Linear) to the
// labels.
func vilt() *Family {
	pre := "vilt."
	return &Family{Name: "ViLT", Class: "Vilt", ModelTypes: []string{"vilt"}, Causal: "-", SeqCls: "-",
		Defs: cat(vitDefs("768", "12", "12", "32", "384"), []Def{inner("intermediate_size", "3072"),
			opt("V", "vocab_size", "30522"), opt("TV", "type_vocab_size", "2"), opt("tP", "max_position_embeddings", "40"),
			opt("MV", "modality_type_vocab_size", "2")}),
		Global: cat([]T{{Name: pre + "embeddings.cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm}},
			conv(pre+"embeddings.patch_embeddings.projection", "H", "Ch", "P", "P"),
			[]T{{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "N+1", "H"}, Role: RoleEmbedding},
				{Name: pre + "embeddings.token_type_embeddings.weight", Shape: []string{"MV", "H"}, Role: RoleEmbedding}},
			renameSyms(bertEmbeddings(pre+"embeddings.text_embeddings.", "H", true, true), "P", "tP")),
		Stacks: []Stack{{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: cat(vitAttention,
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"))}},
		Final: cat(norm(pre+"layernorm", "H", "true"), linear(pre+"pooler.dense", "H", "H", "true")),
		Embed: pre + "embeddings.text_embeddings.word_embeddings.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: TaskQA, Labels: true, Head: cat(linear("classifier.0", "2*H", "H", "true"), norm("classifier.1", "2*H", "true"),
				linear("classifier.3", "C", "2*H", "true"))}},
	}
}

var _ = register(vilt)

// bridgeTower is BridgeTower: a RoBERTa text tower with its pooler (4.x
// builds relative positions' distance embeddings in every self- and
// cross-modal attention, 5.x none; the text layers' own cross-attention
// is absolute), a CLIP ViT image tower of nn.MultiheadAttention
// resblocks (the last dropped where remove_last_layer; a LayerNorm per
// layer unless share_layernorm), and num_hidden_layers cross-modal
// layers per modality (BERT layers with cross-attention, of the text
// tower's widths), their input transforms (one per layer unless
// share_cross_modal_transformer_layers), link towers between layers
// (one unless share_link_tower_layers; scaled_add's factor,
// interpolate's beta), poolers and LayerNorms of hidden_size.
func bridgeTower() *Family {
	t := bertText("text_model.", "50265", "768", "12", "12", "3072", "514", "1",
		"!tf5 && (pos_type == 'relative_key' || pos_type == 'relative_key_query')")
	t.Stacks[0].Tensors = cat(bertAttn("attention."), norm("attention.output.LayerNorm", "H", "true"),
		when("cross", renameSyms(bertAttn("crossattention."), "rel", "false"), norm("crossattention.output.LayerNorm", "H", "true")),
		linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))
	vc, vv := vcfg, "vision_model.visual."
	xLayer := cat(bertAttn("attention."), norm("attention.output.LayerNorm", "H", "true"),
		bertAttn("crossattention."), norm("crossattention.output.LayerNorm", "H", "true"),
		linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))
	perLayer := func(name, n, shared string, ts []T) []T {
		return cat(when(shared, prefixed(name, ts)), when("!("+shared+")", perBlock(n, prefixed(name+".{e}", ts))))
	}
	link := cat(when("linkT == 'add' || linkT == 'scaled_add' || linkT == 'interpolate'", norm(".LayerNorm", "xH", "true")),
		[]T{{Name: ".scaled_factor", Shape: []string{}, Role: RoleNorm, If: "linkT == 'scaled_add'"},
			{Name: ".beta", Shape: []string{}, Role: RoleNorm, If: "linkT == 'interpolate'"}})
	return &Family{Name: "BridgeTower", Class: "BridgeTower", ModelTypes: []string{"bridgetower"}, Causal: "-", SeqCls: "-",
		Defs: cat(t.Defs, []Def{
			{Sym: "vH", Field: vc + "hidden_size", Default: "768", Legend: "vH", Desc: "vision tower width", Show: true, Pos: true},
			{Sym: "vL", Field: vc + "num_hidden_layers", Default: "12", Legend: "vL", Desc: "vision tower layers", Show: true, Pos: true, Max: MaxLayers},
			opt("vP", vc+"patch_size", "16"), opt("vS", vc+"image_size", "288"), opt("vC", vc+"num_channels", "3"),
			flag("vShareLN", vc+"share_layernorm", "true", "one LayerNorm for every vision layer's output"),
			flag("vRmLast", vc+"remove_last_layer", "false", "the last vision layer is dropped"),
			{Sym: "xH", Field: "hidden_size", Default: "768", Legend: "xH", Desc: "cross-modal width", Show: true, Pos: true},
			{Sym: "xL", Field: "num_hidden_layers", Default: "6", Legend: "xL", Desc: "cross-modal layers", Show: true, Pos: true, Max: MaxLayers},
			flag("xShare", "share_cross_modal_transformer_layers", "true", "one input transform per modality"),
			flag("linkShare", "share_link_tower_layers", "false", "one link tower per modality"),
			{Sym: "linkT", Field: "link_tower_type", Type: Str, Default: "'add'", Desc: "how link towers merge"},
		}),
		Global: cat(t.Global, []T{{Name: "token_type_embeddings.weight", Shape: []string{"2", "xH"}, Role: RoleEmbedding}},
			vec(vv+"embeddings.class_embedding", "vH"),
			[]T{{Name: vv + "embeddings.patch_embedding.weight", Shape: []string{"vH", "vC", "vP", "vP"}, Role: RoleLinear},
				{Name: vv + "embeddings.position_embedding.weight", Shape: []string{"(vS/vP)*(vS/vP)+1", "vH"}, Role: RoleEmbedding}},
			norm(vv+"ln_pre", "vH", "true")),
		Stacks: cat(t.Stacks, []Stack{
			{Name: "vision", Prefix: vv + "transformer.resblocks.{l}.", Layers: "vRmLast ? vL-1 : vL", Tensors: renameSyms(cat(
				[]T{{Name: "attn.in_proj_weight", Shape: []string{"3*H", "H"}, Role: RoleLinear}, {Name: "attn.in_proj_bias", Shape: []string{"3*H"}, Role: RoleBias}},
				linear("attn.out_proj", "H", "H", "true"), norm("ln_1", "H", "true"), norm("ln_2", "H", "true"),
				linear("mlp.c_fc", "4*H", "H", "true"), linear("mlp.c_proj", "H", "4*H", "true")), "H", "vH")},
			{Name: "cross-modal image", Prefix: "cross_modal_image_layers.{l}.", Layers: "xL", Tensors: xLayer},
			{Name: "cross-modal text", Prefix: "cross_modal_text_layers.{l}.", Layers: "xL", Tensors: xLayer}}),
		Final: cat(linear("text_model.pooler.dense", "H", "H", "true"), norm(vv+"ln_post", "vH", "true"),
			when("!vShareLN", perBlock("vL", norm(vv+"ln_separate.{e}", "vH", "true"))),
			perLayer("cross_modal_text_transform", "xL", "xShare", linear("", "xH", "H", "true")),
			perLayer("cross_modal_image_transform", "xL", "xShare", linear("", "xH", "vH", "true")),
			linear("cross_modal_image_pooler.dense", "xH", "xH", "true"), linear("cross_modal_text_pooler.dense", "xH", "xH", "true"),
			norm("cross_modal_text_layernorm", "xH", "true"), norm("cross_modal_image_layernorm", "xH", "true"),
			perLayer("cross_modal_text_link_tower", "xL-1", "linkShare", link),
			perLayer("cross_modal_image_link_tower", "xL-1", "linkShare", link)),
		Embed: t.Global[0].Name,
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
	}
}

var _ = register(bridgeTower)

// flavaLayer is a FLAVA (ViT-named) layer of width h and FFN i, q/k/v
// biased where qkv.
func flavaLayer(h, i, qkv string) []T {
	return renameSyms(cat(vitAttention, linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
		norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true")), "H", h, "I", i, "qkv_bias", qkv)
}

// flavaPredHead is FLAVA's masked prediction head under pre: transform
// dense and LayerNorm of width h, the decoder [v, h] and its bias (4.x
// writes it as pre+"bias", 5.x as decoder.bias).
func flavaPredHead(pre, v, h string) []T {
	return cat(renameSyms(cat(linear(pre+"transform.dense", "H", "H", "true"), norm(pre+"transform.LayerNorm", "H", "true"),
		[]T{{Name: pre + "decoder.weight", Shape: []string{"V", "H"}, Role: RoleLinear}},
		[]T{{Name: pre + "bias", Shape: []string{"V"}, Role: RoleBias, If: "!tf5"},
			{Name: pre + "decoder.bias", Shape: []string{"V"}, Role: RoleBias, If: "tf5"}}), "H", h, "V", v))
}

// flavaCodebook is FLAVA's DALL-E image codebook under pre: a 7×7 input
// convolution hidden_size wide, four groups (fixed, whatever
// num_groups says) of num_blocks_per_group residual blocks 1, 2, 4 and
// 8 times as wide (blocks numbered from 1; a 1×1 id_path where the
// width changes; res_path's four convolutions at a quarter width), a
// 1×1 output convolution to vocab_size.
func flavaCodebook(pre string) []T {
	out := cat(conv(pre+"blocks.input", "cH", "cC", "7", "7"), conv(pre+"blocks.output.conv", "cV", "8*cH", "1", "1"))
	for g := 1; g <= 4; g++ {
		w := fmt.Sprintf("%d*cH", 1<<(g-1))
		in := "cH"
		if g > 1 {
			in = fmt.Sprintf("%d*cH", 1<<(g-2))
		}
		first := "(e == 1 ? " + in + " : " + w + ")"
		q := "(" + w + ")/4"
		out = cat(out, perBlockFrom("cB", "1", prefixed(fmt.Sprintf("%sblocks.group_%d.group.block_{e}.", pre, g), cat(
			when(fmt.Sprintf("e == 1 && %d > 1", g), conv("id_path", w, first, "1", "1")),
			conv("res_path.path.conv_1", q, first, "3", "3"), conv("res_path.path.conv_2", q, q, "3", "3"),
			conv("res_path.path.conv_3", q, q, "3", "3"), conv("res_path.path.conv_4", w, q, "1", "1")))))
	}
	return out
}

// perBlockFrom is perBlock with the copies numbered from from.
func perBlockFrom(n, from string, ts []T) []T {
	out := perBlock(n, ts)
	for i := range out {
		out[i].From = from
	}
	return out
}

// flava is FLAVA: image, text and multimodal encoders of ViT-named
// layers, each with a final LayerNorm and pooler (the image one with a
// class token, a mask token where image_config.mask_token, learned
// positions; the text one BERT embeddings; the multimodal one a class
// token where use_cls_token), the image and text projections to
// projection_dim and to the multimodal width, the logit scale; its
// pre-training class (the model under flava.) adds the image codebook
// (init_codebook), the masked image/text and multimodal prediction
// heads and the image-text matching head.
func flava() *Family {
	pre := "flava."
	ic, tc, mc, cc := "image_config.", "text_config.", "multimodal_config.", "image_codebook_config."
	dim := func(sym, field, def, desc string) Def {
		return Def{Sym: sym, Field: field, Default: def, Legend: sym, Desc: desc, Show: true, Pos: true}
	}
	layers := func(sym, field, def, desc string) Def {
		return Def{Sym: sym, Field: field, Default: def, Legend: sym, Desc: desc, Show: true, Pos: true, Max: MaxLayers}
	}
	return &Family{Name: "FLAVA", Class: "Flava", ModelTypes: []string{"flava"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			dim("iH", ic+"hidden_size", "768", "image encoder width"), layers("iL", ic+"num_hidden_layers", "12", "image encoder layers"),
			opt("iI", ic+"intermediate_size", "3072"), opt("iP", ic+"patch_size", "16"), opt("iS", ic+"image_size", "224"),
			opt("iC", ic+"num_channels", "3"), opt("iV", ic+"vocab_size", "8192"),
			flag("iqkv", ic+"qkv_bias", "true", "image q, k, v biases"), flag("iMask", ic+"mask_token", "true", "the image mask token"),
			dim("tH", tc+"hidden_size", "768", "text encoder width"), layers("tL", tc+"num_hidden_layers", "12", "text encoder layers"),
			opt("tI", tc+"intermediate_size", "3072"), opt("V", tc+"vocab_size", "30522"), opt("P", tc+"max_position_embeddings", "512"),
			opt("TV", tc+"type_vocab_size", "2"), flag("tqkv", tc+"qkv_bias", "true", "text q, k, v biases"),
			dim("mH", mc+"hidden_size", "768", "multimodal encoder width"), layers("mL", mc+"num_hidden_layers", "6", "multimodal encoder layers"),
			opt("mI", mc+"intermediate_size", "3072"), flag("mqkv", mc+"qkv_bias", "true", "multimodal q, k, v biases"),
			flag("mCls", mc+"use_cls_token", "true", "the multimodal class token"),
			dim("H", "hidden_size", "768", "the matching head's width"), opt("proj", "projection_dim", "768"),
			flag("cb", "init_codebook", "true", "the image codebook is built"),
			opt("cH", cc+"hidden_size", "256"), opt("cC", cc+"input_channels", "3"), opt("cB", cc+"num_blocks_per_group", "2"),
			opt("cV", cc+"vocab_size", "8192"),
		},
		Global: cat([]T{{Name: pre + "image_model.embeddings.cls_token", Shape: []string{"1", "1", "iH"}, Role: RoleNorm},
			{Name: pre + "image_model.embeddings.mask_token", Shape: []string{"1", "1", "iH"}, Role: RoleNorm, If: "iMask"}},
			conv(pre+"image_model.embeddings.patch_embeddings.projection", "iH", "iC", "iP", "iP"),
			[]T{{Name: pre + "image_model.embeddings.position_embeddings", Shape: []string{"1", "(iS/iP)*(iS/iP)+1", "iH"}, Role: RoleEmbedding}},
			bertEmbeddings(pre+"text_model.embeddings.", "tH", true, true),
			[]T{{Name: pre + "multimodal_model.cls_token", Shape: []string{"1", "1", "mH"}, Role: RoleNorm, If: "mCls"}}),
		Stacks: []Stack{
			{Name: "image", Prefix: pre + "image_model.encoder.layer.{l}.", Layers: "iL", Tensors: flavaLayer("iH", "iI", "iqkv")},
			{Name: "text", Prefix: pre + "text_model.encoder.layer.{l}.", Layers: "tL", Tensors: flavaLayer("tH", "tI", "tqkv")},
			{Name: "multimodal", Prefix: pre + "multimodal_model.encoder.layer.{l}.", Layers: "mL", Tensors: flavaLayer("mH", "mI", "mqkv")}},
		Final: cat(
			norm(pre+"image_model.layernorm", "iH", "true"), linear(pre+"image_model.pooler.dense", "iH", "iH", "true"),
			norm(pre+"text_model.layernorm", "tH", "true"), linear(pre+"text_model.pooler.dense", "tH", "tH", "true"),
			norm(pre+"multimodal_model.layernorm", "mH", "true"), linear(pre+"multimodal_model.pooler.dense", "mH", "mH", "true"),
			linear(pre+"image_projection", "proj", "iH", "true"), linear(pre+"text_projection", "proj", "tH", "true"),
			linear(pre+"image_to_mm_projection", "mH", "iH", "true"), linear(pre+"text_to_mm_projection", "mH", "tH", "true"),
			[]T{{Name: pre + "logit_scale", Shape: []string{}, Role: RoleNorm}}),
		Embed: pre + "text_model.embeddings.word_embeddings.weight", BasePrefix: pre,
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: TaskPreTrain, Head: cat(when("cb", flavaCodebook("image_codebook.")),
				flavaPredHead("mim_head.", "iV", "iH"), flavaPredHead("mlm_head.", "V", "tH"),
				linear("itm_head.pooler.dense", "H", "H", "true"), linear("itm_head.seq_relationship", "2", "H", "true"),
				flavaPredHead("mmm_image_head.", "iV", "iH"), flavaPredHead("mmm_text_head.", "V", "tH"))}},
	}
}

var _ = register(flava)

// InternVL's vision tower alone (InternVLVisionModel): the VLM row's
// InternViT re-rooted at the top level.
var _ = register(func() *Family {
	return func() *Family {
		f := towerVision(internVL(), "vision_tower.", "InternVLVision", "Model", "internvl_vision")
		f.ConfigClass, f.Defs = "InternVLVisionConfig", withoutDefs(f.Defs, "mm_in")
		return f
	}()
})

// mgpStr is MGP-STR: a ViT of fused-qkv blocks (mlp_ratio FFN) over
// patches of an [h, w] image, a class token (positions for a
// distillation token too where distilled, the token itself never
// built), and three A³ modules (grouped 1×1 convolutions selecting
// max_token_length tokens) each with its character, BPE or wordpiece
// head.
func mgpStr() *Family {
	pre := "mgp_str."
	a3 := func(p string) []T {
		return cat([]T{{Name: p + "tokenLearner.0.weight", Shape: []string{"H", "H/8", "1", "1"}, Role: RoleLinear},
			{Name: p + "tokenLearner.1.weight", Shape: []string{"T", "H", "1", "1"}, Role: RoleLinear},
			{Name: p + "feat.weight", Shape: []string{"H", "H/8", "1", "1"}, Role: RoleLinear}},
			norm(p+"norm", "H", "true"), norm(p+"token_norm", "H", "true"))
	}
	return &Family{Name: "MGP-STR", Class: "Mgpstr", ModelTypes: []string{"mgp-str"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "H", Field: "hidden_size", Default: "768", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "12", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "Sl", Field: "image_size", Type: IntOrList, Default: "list(32, 128)", Desc: "image [height, width]"},
			{Sym: "Pl", Field: "patch_size", Type: IntOrList, Default: "4", Desc: "patch side, or [height, width]"},
			derived("Ph", "pick(Pl, 0)"), derived("Pw", "pick(Pl, 1)"),
			derived("N", "(pick(Sl, 0)/Ph)*(pick(Sl, 1)/Pw)"),
			opt("Ch", "num_channels", "3"),
			{Sym: "ratio", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
			derived("I", "H*ratio/1000"),
			flag("qkv_bias", "qkv_bias", "true", "the fused qkv has a bias"),
			flag("distilled", "distilled", "false", "positions for a distillation token"),
			opt("T", "max_token_length", "27"),
			opt("nChar", "num_character_labels", "38"), opt("nBPE", "num_bpe_labels", "50257"), opt("nWP", "num_wordpiece_labels", "30522"),
		},
		Global: cat([]T{{Name: pre + "embeddings.cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
			{Name: pre + "embeddings.pos_embed", Shape: []string{"1", "N+1+distilled", "H"}, Role: RoleEmbedding}},
			conv(pre+"embeddings.proj", "H", "Ch", "Ph", "Pw")),
		Stacks: []Stack{{Prefix: pre + "encoder.blocks.{l}.", Layers: "L", Tensors: cat(
			linear("attn.qkv", "3*H", "H", "qkv_bias"), linear("attn.proj", "H", "H", "true"),
			plainMLP("mlp.fc1", "mlp.fc2", "I", "true"), norm("norm1", "H", "true"), norm("norm2", "H", "true"))}},
		Embed: pre + "embeddings.proj.weight",
		Tasks: []Task{{Suffix: "ForSceneTextRecognition", Head: cat(a3("char_a3_module."), a3("bpe_a3_module."), a3("wp_a3_module."),
			linear("char_head", "nChar", "H", "true"), linear("bpe_head", "nBPE", "H", "true"), linear("wp_head", "nWP", "H", "true"))}},
	}
}

var _ = register(mgpStr)

// pixio is Pixio (5.x only): a ViT with n_cls_tokens class tokens (their
// positions too), image and patch sides each an int or [h, w], an MLP of
// hidden_size·mlp_ratio, layers written in ViT's names with DINOv2's
// norm1/norm2 (5.x saves the original checkpoint's names, the reverse of
// its conversion mapping), a final LayerNorm. Its backbone keeps the
// model under encoder. and a LayerNorm of its own.
func pixio() *Family {
	pre := "pixio."
	return &Family{Name: "Pixio", Class: "Pixio", ModelTypes: []string{"pixio"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunkAt("=0", "hidden_size=1280", "num_hidden_layers=32", "encoder layers")[1:], []Def{
			encHeads("num_attention_heads", "16"),
			{Sym: "ratio", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
			derived("I", "H*ratio/1000"),
			{Sym: "Pl", Field: "patch_size", Type: IntOrList, Default: "16", Legend: "P", Desc: "patch side, pixels (or [h, w])", Show: true},
			{Sym: "Sl", Field: "image_size", Type: IntOrList, Default: "256", Desc: "image side, pixels (or [h, w])"},
			channels("Ch", "num_channels"),
			{Sym: "nCls", Field: "n_cls_tokens", Default: "8", Desc: "class tokens"},
			flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
			derived("N", "(pick(Sl, 0)/pick(Pl, 0))*(pick(Sl, 1)/pick(Pl, 1))"),
		}),
		Global: []T{{Name: pre + "embeddings.cls_token", Shape: []string{"1", "nCls", "H"}, Role: RoleNorm, ZeroOK: true},
			{Name: pre + "embeddings.patch_embeddings.projection.weight", Shape: []string{"H", "Ch", "pick(Pl, 0)", "pick(Pl, 1)"}, Role: RoleLinear},
			{Name: pre + "embeddings.patch_embeddings.projection.bias", Shape: []string{"H"}, Role: RoleBias},
			{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "N+nCls", "H"}, Role: RoleEmbedding}},
		Stacks: []Stack{{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: cat(vitAttention,
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
			norm("norm1", "H", "true"), norm("norm2", "H", "true"))}},
		Final: norm(pre+"layernorm", "H", "true"),
		Embed: pre + "embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "Backbone", Prefix: "encoder.", Head: norm("layernorm", "H", "true")}},
	}
}

var _ = register(pixio)

// sapiens2 is Sapiens 2 (5.x only): a ViT with a class token, register
// ("storage") tokens, rotary positions (no table), RMSNorms, per-layer
// key/value heads (num_key_value_heads_per_layer, else full heads in the
// first and last layers and num_key_value_attention_heads between),
// q/k norms, a layer scale after the attention only and a gated MLP
// (its gate and up projections stored as one w12) or a plain one (its
// up projection as w12 all the same); 5.x
// saves the original checkpoint's names (its conversion mapping
// reversed). The backbone has the model's own attributes.
func sapiens2() *Family {
	kv := "(len(kvl) > 0 ? at(kvl, l) : ((l < nFF || l >= L-nLF) ? heads : kvh))"
	return &Family{Name: "Sapiens 2", Class: "Sapiens2", ModelTypes: []string{"sapiens2"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunkAt("=0", "hidden_size=1024", "num_hidden_layers=24", "encoder layers")[1:], []Def{
			encHeads("num_attention_heads", "16"), inner("intermediate_size", "4096"),
			derived("d", "H/heads"),
			{Sym: "Pl", Field: "patch_size", Type: IntOrList, Default: "16", Legend: "P", Desc: "patch side, pixels (or [h, w])", Show: true},
			channels("Ch", "num_channels"),
			{Sym: "R", Field: "num_register_tokens", Default: "8", Desc: "register (storage) tokens"},
			list("kvl", "num_key_value_heads_per_layer", "key/value heads of each layer"),
			{Sym: "kvh", Field: "num_key_value_attention_heads", Default: "8", Desc: "key/value heads of the middle layers", Pos: true},
			opt("nFF", "num_first_full_attention_layers", "8"), opt("nLF", "num_last_full_attention_layers", "8"),
			flag("qb", "query_bias", "true", "the query has a bias"), flag("kb", "key_bias", "true", "the key has a bias"),
			flag("vb", "value_bias", "true", "the value has a bias"), flag("ob", "proj_bias", "true", "the output projection has a bias"),
			flag("mb", "mlp_bias", "true", "the MLP has biases"), flag("gated", "use_gated_mlp", "true", "a gated MLP"),
			flag("qk", "use_qk_norm", "true", "q and k norms"), flag("mask", "use_mask_token", "false", "a mask token"),
		}),
		Global: []T{{Name: "cls_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm},
			{Name: "embeddings.mask_token", Shape: []string{"1", "1", "H"}, Role: RoleNorm, If: "mask"},
			{Name: "storage_tokens", Shape: []string{"1", "R", "H"}, Role: RoleNorm, ZeroOK: true},
			{Name: "patch_embed.projection.weight", Shape: []string{"H", "Ch", "pick(Pl, 0)", "pick(Pl, 1)"}, Role: RoleLinear},
			{Name: "patch_embed.projection.bias", Shape: []string{"H"}, Role: RoleBias}},
		Stacks: []Stack{{Prefix: "blocks.{l}.", Layers: "L", Tensors: cat(
			norm("ln1", "H", ""), norm("ln2", "H", ""),
			linear("attn.wq", "H", "H", "qb"),
			renameSyms(cat(linear("attn.wk", "K", "H", "kb"), linear("attn.wv", "K", "H", "vb")), "K", kv+"*d"),
			linear("attn.proj", "H", "H", "ob"),
			when("qk", norm("attn.q_norm", "d", ""), norm("attn.k_norm", "d", "")),
			vec("attn.gamma.weight", "H"),
			renameSyms(linear("ffn.w12", "W", "H", "mb"), "W", "(gated ? 2*I : I)"),
			linear("ffn.w3", "H", "I", "mb"))}},
		Final: norm("ln1", "H", ""),
		Embed: "patch_embed.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}, {Suffix: "Backbone", KeepFinal: true}},
	}
}

var _ = register(sapiens2)

// radio is C-RADIO (5.x only): an input conditioner's mean and std
// buffers, a linear patch embedding, positions of the largest image
// (max_img_size/patch_size squared) and the class and register tokens
// as one table, DINOv2-like layers (layer scales, a plain or SwiGLU
// MLP) without a final norm, the summary token indices as an int64
// buffer; 5.x saves the original checkpoint's names under
// radio_model. (its conversion mapping reversed: a fused qkv).
func radio() *Family {
	pre := "radio_model."
	m := pre + "model."
	return &Family{Name: "C-RADIO", Class: "Radio", ModelTypes: []string{"radio"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunkAt("=0", "hidden_size=1280", "num_hidden_layers=32", "encoder layers")[1:], []Def{
			encHeads("num_attention_heads", "16"),
			{Sym: "ratio", Field: "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
			flag("swiglu", "use_swiglu_ffn", "false", "a SwiGLU FFN"),
			derived("I", "H*ratio/1000"),
			derived("Isw", "((I*2/3) + 7) / 8 * 8"),
			{Sym: "P", Field: "patch_size", Default: "16", Legend: "P", Desc: "patch side, pixels", Show: true, Pos: true},
			channels("Ch", "num_channels"),
			{Sym: "maxS", Field: "max_img_size", Default: "2048", Desc: "largest image side, pixels (the position table's)", Pos: true},
			{Sym: "nCls", Field: "num_cls_tokens", Default: "3", Desc: "class tokens"},
			{Sym: "nReg", Field: "num_registers", Default: "7", Desc: "register tokens"},
			{Sym: "sIdx", Field: "summary_idxs", Type: List, Default: "list(0, 1)", Null: "list(0, 1)", Desc: "the summary tokens"},
			{Sym: "nMean", Field: "norm_mean", Type: Count, Default: "3", Desc: "input channels normalized"},
			{Sym: "nStd", Field: "norm_std", Type: Count, Default: "3", Desc: "input channels normalized"},
			flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
		}),
		Global: []T{{Name: pre + "summary_idxs", Shape: []string{"len(sIdx)"}, Role: RoleNorm, AnyDType: true, ZeroOK: true},
			{Name: pre + "input_conditioner.norm_mean", Shape: []string{"nMean", "1", "1"}, Role: RoleNorm, AnyDType: true},
			{Name: pre + "input_conditioner.norm_std", Shape: []string{"nStd", "1", "1"}, Role: RoleNorm, AnyDType: true},
			{Name: m + "patch_generator.cls_token.token", Shape: []string{"nCls+nReg", "H"}, Role: RoleNorm, ZeroOK: true},
			{Name: m + "patch_generator.embedder.weight", Shape: []string{"H", "Ch*P*P"}, Role: RoleLinear},
			{Name: m + "patch_generator.pos_embed", Shape: []string{"1", "(maxS/P)*(maxS/P)", "H"}, Role: RoleEmbedding}},
		Stacks: []Stack{{Prefix: m + "blocks.{l}.", Layers: "L", Tensors: cat(
			linear("attn.qkv", "3*H", "H", "qkv_bias"), linear("attn.proj", "H", "H", "true"),
			vec("layer_scale1.lambda1", "H"), vec("layer_scale2.lambda1", "H"),
			when("!swiglu", linear("mlp.fc1", "I", "H", "true"), linear("mlp.fc2", "H", "I", "true")),
			when("swiglu", linear("mlp.weights_in", "2*Isw", "H", "true"), linear("mlp.weights_out", "H", "Isw", "true")),
			norm("norm1", "H", "true"), norm("norm2", "H", "true"))}},
		Embed: m + "patch_generator.embedder.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
	}
}

var _ = register(radio)

// tvltLayer is TVLT's layer (ViT's) of width h and FFN width i.
func tvltLayer(h, i string) []T {
	return renameSyms(cat(vitAttention,
		linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
		norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true")), "H", h, "I", i)
}

// tvlt is TVLT (4.x only): pixel and audio patch embeddings with their
// type, temporal (num_frames), frequency and position tables, a class
// embedding, ViT layers and a final LayerNorm unless use_mean_pooling;
// its pre-training class adds the matching head (task_matching) and
// the masked autoencoder (task_mae: a projection to the decoder's
// width, mask tokens, the decoder's own tables, layers and norm, and a
// pixel and an audio prediction head — the pixel head's output reads
// image_patch_size[0] twice, as transformers does).
func tvlt() *Family {
	pre := "tvlt."
	ip0, ip1 := "pick(ipl, 0)", "pick(ipl, 1)"
	ap0, ap1 := "pick(apl, 0)", "pick(apl, 1)"
	nfp := "(F/" + ap1 + ")"
	nap := "((F/" + ap1 + ")*(SL/" + ap0 + "))"
	return &Family{Name: "TVLT", Class: "Tvlt", ModelTypes: []string{"tvlt"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunkAt("=0", "hidden_size=768", "num_hidden_layers=12", "encoder layers")[1:], []Def{
			encHeads("num_attention_heads", "12"), inner("intermediate_size", "3072"),
			{Sym: "Sl", Field: "image_size", Type: IntOrList, Default: "224", Desc: "image side, pixels (or [h, w])"},
			{Sym: "ipl", Field: "image_patch_size", Type: IntOrList, Default: "list(16, 16)", Null: "=", Desc: "image patch [h, w]"},
			{Sym: "apl", Field: "audio_patch_size", Type: IntOrList, Default: "list(16, 16)", Null: "=", Desc: "audio patch [time, frequency]"},
			{Sym: "SL", Field: "spectrogram_length", Default: "2048", Desc: "spectrogram frames", Pos: true},
			{Sym: "F", Field: "frequency_length", Default: "128", Desc: "spectrogram frequency bins", Pos: true},
			channels("iC", "num_image_channels"),
			{Sym: "aC", Field: "num_audio_channels", Default: "1", Desc: "audio channels", Pos: true},
			{Sym: "nF", Field: "num_frames", Default: "8", Desc: "video frames (temporal positions)", Pos: true},
			flag("qkv_bias", "qkv_bias", "true", "query, key and value have biases"),
			flag("meanPool", "use_mean_pooling", "false", "mean pooling (no final LayerNorm)"),
			derived("match", "false"), derived("mae", "false"),
			{Sym: "dH", Field: "decoder_hidden_size", Default: "512", Desc: "decoder width", Pos: true},
			{Sym: "dL", Field: "decoder_num_hidden_layers", Default: "8", Desc: "decoder layers", Max: MaxLayers},
			{Sym: "dI", Field: "decoder_intermediate_size", Default: "2048", Desc: "decoder FFN inner width", Pos: true},
			{Sym: "dHeads", Field: "decoder_num_attention_heads", Default: "16", Desc: "decoder heads", Pos: true, Divides: "dH"},
			derived("nPix", "(pick(Sl, 1)/"+ip1+")*(pick(Sl, 0)/"+ip0+")"),
		}),
		Global: cat(conv(pre+"pixel_embeddings.patch_embeddings.projection", "H", "iC", ip0, ip1),
			conv(pre+"audio_embeddings.patch_embeddings.projection", "H", "aC", ap0, ap1),
			[]T{{Name: pre + "pixel_embeddings.type_embed_v", Shape: []string{"1", "1", "H"}, Role: RoleEmbedding},
				{Name: pre + "pixel_embeddings.temporal_embed", Shape: []string{"1", "nF", "H"}, Role: RoleEmbedding},
				{Name: pre + "pixel_embeddings.pos_embed_v", Shape: []string{"1", "nPix", "H"}, Role: RoleEmbedding},
				{Name: pre + "audio_embeddings.type_embed_a", Shape: []string{"1", "1", "H"}, Role: RoleEmbedding},
				{Name: pre + "audio_embeddings.pos_embed_a", Shape: []string{"1", nap + "/" + nfp, "H"}, Role: RoleEmbedding},
				{Name: pre + "audio_embeddings.freq_embed", Shape: []string{"1", nfp, "H"}, Role: RoleEmbedding},
				{Name: pre + "cls_embedding", Shape: []string{"1", "1", "H"}, Role: RoleEmbedding}}),
		Stacks: []Stack{
			{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: tvltLayer("H", "I")},
			{Name: "decoder", Prefix: "decoder.decoder_layers.{l}.", Layers: "mae ? dL : 0", Tensors: tvltLayer("dH", "dI")}},
		Final: cat(when("!meanPool", norm(pre+"layernorm", "H", "true")),
			when("match", linear("matching_head.pooler.dense", "H", "H", "true"), linear("matching_head.fc", "1", "H", "true")),
			when("mae", linear("encoder_to_decoder", "dH", "H", "true"),
				[]T{{Name: "pixel_mask_token", Shape: []string{"1", "1", "dH"}, Role: RoleNorm},
					{Name: "audio_mask_token", Shape: []string{"1", "1", "dH"}, Role: RoleNorm},
					{Name: "decoder_pixel_pos_embed", Shape: []string{"1", "nPix", "dH"}, Role: RoleEmbedding},
					{Name: "decoder_temporal_embed", Shape: []string{"1", "nF", "dH"}, Role: RoleEmbedding},
					{Name: "decoder_pixel_type_embed", Shape: []string{"1", "1", "dH"}, Role: RoleEmbedding},
					{Name: "decoder_audio_pos_embed", Shape: []string{"1", nap + "/" + nfp, "dH"}, Role: RoleEmbedding},
					{Name: "decoder_freq_embed", Shape: []string{"1", nfp, "dH"}, Role: RoleEmbedding},
					{Name: "decoder_audio_type_embed", Shape: []string{"1", "1", "dH"}, Role: RoleEmbedding}},
				norm("decoder.layernorm", "dH", "true"),
				linear("pixel_mae_head.decoder", ip0+"*"+ip0+"*iC", "dH", "true"),
				linear("audio_mae_head.decoder", ap0+"*"+ap1+"*aC", "dH", "true"))),
		Embed: pre + "pixel_embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: TaskPreTrain, KeepFinal: true, Defs: []Def{flag("match", "task_matching", "true", "the audio-visual matching head"),
				flag("mae", "task_mae", "true", "the masked autoencoder")}}},
	}
}

var _ = register(tvlt)

// vpDefs are a VideoPrism vision or text config's fields under cfg,
// their symbols prefixed by s ("v", "t"): width, FFN width, heads and
// head width (a head_dim field where config.json has one, as the
// attention reads it), qkv_bias.
func vpDefs(s, cfg, h, i, heads string) []Def {
	return []Def{
		{Sym: s + "H", Field: cfg + "hidden_size", Default: h, Legend: s + "H", Desc: "width", Show: true, Pos: true},
		{Sym: s + "I", Field: cfg + "intermediate_size", Default: i, Legend: s + "I", Desc: "FFN inner width", Show: true, Pos: true},
		{Sym: s + "heads", Field: cfg + "num_attention_heads", Default: heads, Desc: "attention heads", Pos: true},
		{Sym: s + "d", Field: cfg + "head_dim", Default: s + "H/" + s + "heads", Null: "=", Desc: "head width", Pos: true},
		flag(s+"qkv", cfg+"qkv_bias", "true", "query, key and value have biases"),
	}
}

// vpLayer is VideoPrism's layer with the symbols of vpDefs' s.
func vpLayer(s string) []T {
	return renameSyms(cat(
		linear("attention.q_proj", "A", "H", "qkv"), linear("attention.k_proj", "A", "H", "qkv"),
		linear("attention.v_proj", "A", "H", "qkv"), linear("attention.o_proj", "H", "A", "true"),
		norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true"),
		linear("mlp.fc1", "I", "H", "true"), linear("mlp.fc2", "H", "I", "true")),
		"A", s+"heads*"+s+"d", "H", s+"H", "I", s+"I", "qkv", s+"qkv")
}

// vpVision is VideoPrism's factorized video encoder under pre, fields
// under cfg (symbols v…): a tubelet Conv3d, spatial positions of the
// image/tubelet patches and temporal ones of num_frames, spatial then
// temporal layers, two LayerNorms; and its attention-pooling head
// (q/k/v to intermediate_size/heads per head, a per-dimension scale, a
// learned query) with its LayerNorm under headPre.
func vpVision(pre, cfg string) (defs []Def, global []T, stacks []Stack, head func(headPre string) []T) {
	defs = cat(vpDefs("v", cfg, "768", "3072", "12"), []Def{
		{Sym: "vSl", Field: cfg + "image_size", Type: IntOrList, Default: "288", Desc: "frame side, pixels (or [h, w])"},
		listOf("vTl", cfg+"tubelet_size", "list(1, 18, 18)", "tubelet [frames, h, w]"),
		channels("vC", cfg+"num_channels"),
		{Sym: "vF", Field: cfg + "num_frames", Default: "16", Desc: "frames (temporal positions)", Pos: true},
		{Sym: "vSL", Field: cfg + "num_spatial_layers", Default: "12", Legend: "sL", Desc: "spatial layers", Show: true, Max: MaxLayers},
		{Sym: "vTL", Field: cfg + "num_temporal_layers", Default: "4", Legend: "tL", Desc: "temporal layers", Show: true, Max: MaxLayers},
		{Sym: "vAux", Field: cfg + "num_auxiliary_layers", Default: "2", Desc: "the video model's auxiliary layers", Max: MaxLayers},
		derived("vhd", "vI/vheads"),
	})
	global = []T{
		{Name: pre + "spatial_embeddings.patch_embeddings.projection.weight", Shape: []string{"vH", "vC", "at(vTl, 0)", "at(vTl, 1)", "at(vTl, 2)"}, Role: RoleLinear},
		{Name: pre + "spatial_embeddings.patch_embeddings.projection.bias", Shape: []string{"vH"}, Role: RoleBias},
		{Name: pre + "spatial_embeddings.position_embeddings", Shape: []string{"1", "(pick(vSl, 0)/at(vTl, 1))*(pick(vSl, 1)/at(vTl, 2))", "vH"}, Role: RoleEmbedding},
		{Name: pre + "temporal_embeddings.position_embeddings", Shape: []string{"1", "vF", "vH"}, Role: RoleEmbedding},
	}
	global = cat(global, norm(pre+"layernorm1", "vH", "true"), norm(pre+"layernorm2", "vH", "true"))
	stacks = []Stack{{Name: "spatial", Prefix: pre + "spatial_layers.{l}.", Layers: "vSL", Tensors: vpLayer("v")},
		{Name: "temporal", Prefix: pre + "temporal_layers.{l}.", Layers: "vTL", Tensors: vpLayer("v")}}
	head = func(hp string) []T {
		return cat(renameSyms(cat(linear(hp+"head.q_proj", "A", "vH", "vqkv"), linear(hp+"head.k_proj", "A", "vH", "vqkv"),
			linear(hp+"head.v_proj", "A", "vH", "vqkv"), linear(hp+"head.o_proj", "vH", "A", "true")), "A", "vheads*vhd"),
			vec(hp+"head.per_dim_scale", "vhd"),
			[]T{{Name: hp + "head.pooling_attention_query", Shape: []string{"1", "1", "vH"}, Role: RoleNorm}},
			norm(hp+"head_layernorm", "vH", "true"))
	}
	return defs, global, stacks, head
}

// videoPrismVision is VideoPrism's vision model (VideoPrismVisionModel)
// and its video classifier (the vision model under vision_model., the
// pooling head, a classifier).
func videoPrismVision() *Family {
	defs, global, stacks, head := vpVision("vision_model.", "")
	return &Family{Name: "VideoPrism vision", Class: "VideoPrism", ConfigClass: "VideoPrismVisionConfig", ModelTypes: []string{"videoprism_vision_model"},
		Causal: "-", SeqCls: "-", Defs: defs, Global: global, Stacks: stacks,
		Embed: "vision_model.spatial_embeddings.patch_embeddings.projection.weight",
		Tasks: []Task{{Suffix: "VisionModel", Prefix: "-"},
			{Suffix: "ForVideoClassification", Labels: true, Head: cat(head(""), classifier("classifier", "vH"))}},
	}
}

// videoPrismClip is VideoPrism's video-text model (VideoPrismClipModel):
// the video model (the vision model, auxiliary layers and the pooling
// head) under video_model. and the text model (token embeddings, the
// sinusoidal position table and position ids as buffers, a class
// embedding, layers, a LayerNorm) under text_model.
func videoPrismClip() *Family {
	defs, global, stacks, head := vpVision("video_model.vision_model.", "vision_config.")
	t := "text_model."
	return &Family{Name: "VideoPrism", Class: "VideoPrism", ModelTypes: []string{"videoprism"}, Causal: "-", SeqCls: "-",
		Defs: cat(defs, vpDefs("t", "text_config.", "768", "3072", "12"), []Def{
			{Sym: "V", Field: "text_config.vocab_size", Default: "32000", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "tL", Field: "text_config.num_hidden_layers", Default: "12", Legend: "tL", Desc: "text layers", Show: true, Max: MaxLayers},
			{Sym: "tP", Field: "text_config.max_position_embeddings", Default: "64", Desc: "text positions", Pos: true},
		}),
		Global: cat(global, []T{{Name: t + "embeddings.token_embedding.weight", Shape: []string{"V", "tH"}, Role: RoleEmbedding},
			{Name: t + "embeddings.position_embedding", Shape: []string{"tP", "tH"}, Role: RoleNorm, AnyDType: true},
			{Name: t + "embeddings.position_ids", Shape: []string{"1", "tP"}, Role: RoleNorm, AnyDType: true},
			{Name: t + "embeddings.cls_emb", Shape: []string{"1", "1", "tH"}, Role: RoleEmbedding}}),
		Stacks: append(stacks, Stack{Name: "auxiliary", Prefix: "video_model.auxiliary_layers.{l}.", Layers: "vAux", Tensors: vpLayer("v")},
			Stack{Name: "text", Prefix: t + "layers.{l}.", Layers: "tL", Tensors: vpLayer("t")}),
		Final: cat(head("video_model."), norm(t+"layernorm", "tH", "true")),
		Embed: t + "embeddings.token_embedding.weight",
		Tasks: []Task{{Suffix: "ClipModel", KeepFinal: true}},
	}
}

var _ = register(videoPrismVision, videoPrismClip)

// gvLayer is GroupViT's encoder layer (CLIP's) of width h and FFN width
// i: attn is the attention's name.
func gvLayer(attn, h, i string) []T {
	return renameSyms(cat(norm("layer_norm1", "H", "true"), norm("layer_norm2", "H", "true"),
		linear(attn+".q_proj", "H", "H", "true"), linear(attn+".k_proj", "H", "H", "true"),
		linear(attn+".v_proj", "H", "H", "true"), linear(attn+".out_proj", "H", "H", "true"),
		linear("mlp.fc1", "I", "H", "true"), linear("mlp.fc2", "H", "I", "true")), "H", h, "I", i)
}

// gvProjection is GroupViT's projection from width in: a linear to
// projection_intermediate_dim, a BatchNorm, a linear to projection_dim.
func gvProjection(pre, in string) []T {
	return cat(linear(pre+".0", "PI", in, "true"), batchNorm(pre+".1", "PI"), linear(pre+".3", "P", "PI", "true"))
}

// groupViT is GroupViT (GroupViTModel): CLIP's text transformer and a
// grouping vision transformer — a stage per entry of depths, each with
// num_group_tokens[l] group tokens (where positive: a token-assignment
// downsampling to num_output_groups[l] groups, and a projector of the
// previous stage's groups where it had any), MLP projections with a
// BatchNorm, the logit scale.
func groupViT() *Family {
	ngt, nog := "at(ngt, l)", "at(nog, l)"
	a := "downsample."
	down := cat(norm(a+"norm_tokens", "vH", "true"), norm(a+"norm_post_tokens", "vH", "true"),
		norm(a+"norm_x", "vH", "true"), norm(a+"norm_new_x", "vH", "true"),
		linear(a+"mlp_inter.fc1", "TD", ngt, "true"), linear(a+"mlp_inter.fc2", nog, "TD", "true"),
		under(a+"pre_assign_attn.", renameSyms(cat(linear("attn.q_proj", "H", "H", "true"), linear("attn.k_proj", "H", "H", "true"),
			linear("attn.v_proj", "H", "H", "true"), linear("attn.out_proj", "H", "H", "true"),
			norm("norm2", "H", "true"), norm("norm_post", "H", "true"),
			plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH")),
		renameSyms(cat(linear(a+"assign.q_proj", "H", "H", "true"), linear(a+"assign.k_proj", "H", "H", "true"),
			linear(a+"assign.v_proj", "H", "H", "true"), linear(a+"assign.proj", "H", "H", "true"),
			plainMLP(a+"mlp_channels.fc1", a+"mlp_channels.fc2", "CD", "true")), "H", "vH"))
	prev := "at(nog, l-1)"
	proj := cat(norm("group_projector.0", "vH", "true"),
		linear("group_projector.1.fc1", "vH/2", prev, "true"), linear("group_projector.1.fc2", ngt, "vH/2", "true"))
	stage := cat([]T{{Name: "group_token", Shape: []string{"1", ngt, "vH"}, Role: RoleNorm, If: ngt + " > 0"}},
		blocksOf("layers.", "at(dp, l)", gvLayer("self_attn", "vH", "vI")),
		when(ngt+" > 0", down),
		when("l > 0 && "+ngt+" > 0 && "+prev+" > 0", proj))
	v, t := "vision_model.", "text_model."
	return &Family{Name: "GroupViT", Class: "GroupViT", ModelTypes: []string{"groupvit"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "V", Field: "text_config.vocab_size", Default: "49408", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "tH", Field: "text_config.hidden_size", Default: "256", Legend: "tH", Desc: "text width", Show: true, Pos: true},
			{Sym: "tI", Field: "text_config.intermediate_size", Default: "1024", Desc: "text FFN inner width", Pos: true},
			{Sym: "tL", Field: "text_config.num_hidden_layers", Default: "12", Legend: "tL", Desc: "text layers", Show: true, Max: MaxLayers},
			{Sym: "tP", Field: "text_config.max_position_embeddings", Default: "77", Desc: "text positions", Pos: true},
			{Sym: "vH", Field: "vision_config.hidden_size", Default: "384", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
			{Sym: "vI", Field: "vision_config.intermediate_size", Default: "1536", Desc: "vision FFN inner width", Pos: true},
			listOf("dp", "vision_config.depths", "list(6, 3, 3)", "each stage's layers"),
			listOf("ngt", "vision_config.num_group_tokens", "list(64, 8, 0)", "each stage's group tokens"),
			listOf("nog", "vision_config.num_output_groups", "list(64, 8, 8)", "each stage's output groups"),
			{Sym: "nS", Field: "", Default: "len(dp)", Max: 16},
			{Sym: "amr", Field: "vision_config.assign_mlp_ratio", Type: MilliList, Default: "list(500, 4000)", Null: "=", Desc: "the token and channel MLPs' ratios (×1000)"},
			derived("TD", "at(amr, 0)*vH/1000"), derived("CD", "at(amr, len(amr)-1)*vH/1000"),
			{Sym: "Sl", Field: "vision_config.image_size", Type: IntOrList, Default: "224", Desc: "image side, pixels (or [h, w])"},
			{Sym: "Pl", Field: "vision_config.patch_size", Type: IntOrList, Default: "16", Legend: "P", Desc: "patch side, pixels (or [h, w])", Show: true},
			channels("Ch", "vision_config.num_channels"),
			{Sym: "P", Field: "projection_dim", Default: "256", Legend: "proj", Desc: "shared embedding width", Show: true, Pos: true},
			{Sym: "PI", Field: "projection_intermediate_dim", Default: "4096", Desc: "the projections' inner width", Pos: true},
		},
		Global: cat([]T{{Name: t + "embeddings.token_embedding.weight", Shape: []string{"V", "tH"}, Role: RoleEmbedding},
			{Name: t + "embeddings.position_embedding.weight", Shape: []string{"tP", "tH"}, Role: RoleEmbedding}},
			conv(v+"embeddings.patch_embeddings.projection", "vH", "Ch", "pick(Pl, 0)", "pick(Pl, 1)"),
			[]T{{Name: v + "embeddings.position_embeddings", Shape: []string{"1", "(pick(Sl, 1)/pick(Pl, 1))*(pick(Sl, 0)/pick(Pl, 0))", "vH"}, Role: RoleEmbedding}},
			norm(v+"embeddings.layernorm", "vH", "true")),
		Stacks: []Stack{{Name: "text", Prefix: t + "encoder.layers.{l}.", Layers: "tL", Tensors: gvLayer("self_attn", "tH", "tI")},
			{Name: "vision stage", Prefix: v + "encoder.stages.{l}.", Layers: "nS", Tensors: stage}},
		Final: cat(norm(t+"final_layer_norm", "tH", "true"), norm(v+"layernorm", "vH", "true"),
			gvProjection("visual_projection", "vH"), gvProjection("text_projection", "tH"),
			[]T{{Name: "logit_scale", Shape: []string{}, Role: RoleNorm}}),
		Embed: t + "embeddings.token_embedding.weight",
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
	}
}

var _ = register(groupViT)
