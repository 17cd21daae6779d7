package spec

// Dual encoders, vision towers and video models checked as models of
// their own (issue 31, group mm): SigLIP2, BLIP and BLIP-2's other
// classes, … Each reuses the blocks of the VLM or dual encoder it is a
// part of (multimodal.go, multimodal_clip.go); the blocks only these
// need are in blocks_towers.go.

var _ = register(
	// SigLIP2: SigLIP's dual encoder with the NaFlex tower (a linear
	// patch embedding, num_patches learned positions).
	dualEncoder("SigLIP2", "Siglip2", "siglip2", "siglip2_vision_model", siglipVision, siglipText, true),
	func() *Family {
		f := towerFamily("SigLIP2 vision", "Siglip2Vision", "siglip2_vision_model", "siglip2_vision_model", "", siglipVision)
		f.Variants = towerAlone5x("vision_model.")
		f.Tasks = []Task{{Suffix: TaskBase, KeepFinal: true}}
		return f
	}(),
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
	blip2("InstructBLIP-Video", "InstructBlipVideo", "instructblipvideo", true),
	// The BLIP-2 Q-Former alone (Blip2QFormerModel): its layers and final
	// norm at the top level, fields of its own config.
	&Family{Name: "BLIP-2 Q-Former", Class: "Blip2QFormer", ModelTypes: []string{"blip_2_qformer"}, Causal: "-", SeqCls: "-",
		Defs: subDefs(qformerDefs, "qformer_config."), Stacks: []Stack{qformerStack("", "qText")}, Final: norm("layernorm", "Q", "true"),
		Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}}},
)
