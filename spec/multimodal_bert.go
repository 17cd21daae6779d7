package spec

// Vision-language encoders: ModernVBERT (a SigLIP tower and a ModernBERT
// joined by Idefics3's pixel-shuffle connector) and its retriever,
// ColModernVBERT.

// modernVBert is ModernVBERT: ModernBERT (the registered family, its
// fields read under text_config) under model.text_model., a SigLIP
// vision tower (vision_config is always read as siglip_vision_model)
// under model.vision_model., and the connector from
// pixel_shuffle_factor² patches of the tower's width to the text width.
// The masked LM's projection_head and the classifiers' head are
// ModernBERT's prediction head; the top-level tie_word_embeddings ties
// lm_head (transformers 5.x, where ModernVBERT is new).
func modernVBert() *Family {
	text := [][2]string{{"model.", "model.text_model."}}
	var defs []Def
	for _, d := range underCfg(modernBert.Defs, "text_config.") {
		if d.Sym == "tied" {
			d = tie("false")
		}
		defs = append(defs, d)
	}
	vg, vs, vf := visionTower("model.vision_model.", "model.vision_model.")
	var stacks []Stack
	for _, s := range modernBert.Stacks {
		stacks = append(stacks, rerootStack(s, text))
	}
	head := func(pre string) []T {
		return cat(linear(pre+"dense", "H", "H", "cls_bias"), norm(pre+"norm", "H", "norm_bias"))
	}
	cls := cat(head("head."), classifier("classifier", "H"))
	return &Family{Name: "ModernVBERT", Class: "ModernVBert", ModelTypes: []string{"modernvbert"}, Causal: "-", SeqCls: "-",
		Defs: cat(defs, siglipTowerDefs("vision_config.", "hidden_size", "768", "12", "3072", "16", "224"),
			[]Def{field("psf", "pixel_shuffle_factor", "4", "patches merged per side by the connector")}),
		Global: cat(rerootTs(modernBert.Global, text), vg),
		Stacks: cat(stacks, vs),
		Final:  cat(rerootTs(modernBert.Final, text), vf, linear("model.connector.modality_projection", "H", "vH*psf*psf", "")),
		Embed:  "model.text_model.embeddings.tok_embeddings.weight", Head: "lm_head.weight", BasePrefix: "model.",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: TaskMaskedLM, HeadName: "lm_head.weight", Head: cat(head("projection_head."),
				[]T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}, vecIf("lm_head.bias", "V", "dec_bias"))},
			{Suffix: HeadSeqCls, Head: cls, Labels: true},
			{Suffix: TaskTokenCls, Head: cls, Labels: true},
		}}
}

var _ = register(modernVBert,
	// ColModernVBERT: ModernVBertModel under vlm. (its config
	// vlm_config) and a projection of the text width to embedding_dim.
	func() *Family {
		return (&wrap{Name: "ColModernVBERT", Class: "ColModernVBert", Causal: "ColModernVBertForRetrieval", ModelTypes: []string{"colmodernvbert"},
			sub: "vlm_config.", mt: "modernvbert", names: [][2]string{{"model.", "vlm."}},
			Defs: colEmbedDefs, Final: colEmbedProj}).register()
	})
