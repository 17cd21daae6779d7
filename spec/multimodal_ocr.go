package spec

// OCR vision-language models new in transformers 5.x: Qianfan-OCR (an
// InternViT tower, InternVL's pixel-shuffle projector, a Qwen3 language
// model) and its vision tower alone.

// qianfanDefs are Qianfan-OCR's fields: InternVL's tower fields (its
// vision config class has the same defaults but for attention_bias,
// true) and the projector's input, vH·int(1/downsample_ratio)².
func qianfanDefs() []Def {
	d := replaceDef(internVL().Defs, flag("vbias", "vision_config.attention_bias", "true", "q, k, v have biases"))
	return replaceDef(d, derived("mm_in", "vH*(1000/mm_ds)*(1000/mm_ds)"))
}

// qianfanViT is Qianfan-OCR's InternViT under pre. saved: the names
// transformers 5.15 writes for the VLM (its conversion mapping reversed:
// the original checkpoints' fused attn.qkv, ls1/ls2, norm1/norm2,
// class_embedding; the q/k norms keep the model's names); else the
// vision model's own (QianfanOCRVisionModel: separate q/k/v,
// lambda_1/2, layernorm_before/after under layers.).
func qianfanViT(pre string, saved bool) (global []T, stacks []Stack, final []T) {
	e := pre + "embeddings."
	cls, patch, pos := e+"cls_token", e+"patch_embeddings.projection.", e+"position_embeddings"
	lp := pre + "layers.{l}."
	qkv := cat(linear("attention.q_proj", "vH", "vH", "vbias"), linear("attention.k_proj", "vH", "vH", "vbias"),
		linear("attention.v_proj", "vH", "vH", "vbias"))
	proj, ls1, ls2, n1, n2 := "attention.projection_layer", "lambda_1", "lambda_2", "layernorm_before", "layernorm_after"
	if saved {
		cls, patch, pos = e+"class_embedding", e+"patch_embedding.", e+"position_embedding"
		lp = pre + "encoder.layers.{l}."
		qkv = linear("attn.qkv", "3*vH", "vH", "vbias")
		proj, ls1, ls2, n1, n2 = "attn.proj", "ls1", "ls2", "norm1", "norm2"
	}
	global = cat([]T{{Name: cls, Shape: []string{"1", "1", "vH"}, Role: RoleNorm},
		{Name: e + "mask_token", Shape: []string{"1", "1", "vH"}, Role: RoleNorm, If: "vmask"},
		{Name: patch + "weight", Shape: []string{"vH", "vC", "vP", "vP2"}, Role: RoleLinear},
		{Name: pos, Shape: []string{"1", "(vS/vP)*(vS2/vP2)+1", "vH"}, Role: RoleEmbedding, If: "vabs"}},
		vec(patch+"bias", "vH"))
	stacks = []Stack{{Name: "vision", Prefix: lp, Layers: "vL", Tensors: cat(qkv,
		when("vqk", norm("attention.q_norm", "vH", ""), norm("attention.k_norm", "vH", "")),
		linear(proj, "vH", "vH", "true"),
		vec(ls1, "vH"), vec(ls2, "vH"), // built whatever layer_scale_init_value
		norm(n1, "vH", "vln"), norm(n2, "vH", "vln"),
		renameSyms(plainMLP("mlp.fc1", "mlp.fc2", "vI", "true"), "H", "vH"))}}
	final = when("!vmean", norm(pre+"layernorm", "vH", "true")) // a LayerNorm whatever norm_type
	return global, stacks, final
}

// qianfanOCR is Qianfan-OCR's row: the tower and projector as 5.15
// saves them (vision_model., mlp1.0/1/3), the language model under
// language_model.model. with its layers under encoder.layers. (the
// reversed mapping renames every "layers."); the original checkpoints
// have them under language_model.model.layers. (a variant). The base
// model (QianfanOCRModel) is saved with vision_tower.,
// multi_modal_projector. and language_model.
func qianfanOCR() *Family {
	g, s, f := qianfanViT("vision_model.", true)
	const orig = "language_model.model.layers."
	reroot := [][2]string{{"model.layers.", "language_model.model.encoder.layers."}, {"model.", "language_model.model."}, {"lm_head.", "language_model.lm_head."}}
	base := [][2]string{{"vision_model.", "vision_tower."}, {"mlp1.0.", "multi_modal_projector.layer_norm."},
		{"mlp1.1.", "multi_modal_projector.linear_1."}, {"mlp1.3.", "multi_modal_projector.linear_2."}}
	v := &vlm{Family: Family{Name: "Qianfan-OCR", Class: "QianfanOCR", ModelTypes: []string{"qianfan_ocr"},
		Causal: "QianfanOCRForConditionalGeneration", BasePrefix: "language_model.model.",
		Defs: qianfanDefs(), Global: g, Stacks: s,
		Final:    cat(f, norm("mlp1.0", "mm_in", "true"), linear("mlp1.1", "H", "mm_in", "true"), linear("mlp1.3", "H", "H", "true")),
		Variants: [][][2]string{{{"language_model.model.encoder.layers.", orig}}}},
		text: "qwen3", reroot: reroot,
		tasks: []Task{{Suffix: TaskBase, Prefix: "language_model.", KeepFinal: true,
			Variants: [][][2]string{base, append([][2]string{{"language_model.encoder.layers.", "language_model.layers."}}, base...)}}}}
	return v.register()
}

// qianfanVision is QianfanOCRVisionModel: the tower alone, in its own
// names (no mapping is reversed for it).
func qianfanVision() *Family {
	g, s, f := qianfanViT("", false)
	return &Family{Name: "Qianfan-OCR vision", Class: "QianfanOCRVision", ConfigClass: "QianfanOCRVisionConfig",
		ModelTypes: []string{"qianfan_ocr_vision"}, Causal: "-", SeqCls: "-",
		Tasks: []Task{{Suffix: "Model", KeepFinal: true}},
		Defs:  subDefs(withoutDefs(qianfanDefs(), "mm_ds", "mm_in"), vcfg), Global: g, Stacks: s, Final: f}
}

var _ = register(qianfanOCR, qianfanVision)
