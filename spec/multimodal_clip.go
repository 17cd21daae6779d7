package spec

// CLIP and SigLIP as models of their own (not a VLM's tower): the dual
// encoder (CLIPModel, SiglipModel), its towers alone (CLIPVisionModel,
// CLIPTextModel, SiglipVisionModel) and the image classifier on the
// vision tower. The vision tower is the VLMs' (visionTower); the text
// tower is the same encoder layer over token and position embeddings.

// textTower are a CLIP-style text tower's symbols under cfg with its
// config class's defaults, and its tensors under pre ("text_model.").
// siglip adds SigLIP's head (projection_size wide).
func textTower(cfg, v, h, l, i, p string, siglip bool) ([]Def, []T, Stack, []T) {
	defs := []Def{
		{Sym: "tV", Field: cfg + "vocab_size", Default: v, Legend: "tV", Desc: "text tokens", Show: true, Pos: true},
		{Sym: "tH", Field: cfg + "hidden_size", Default: h, Legend: "tH", Desc: "text tower width", Show: true, Pos: true},
		{Sym: "tL", Field: cfg + "num_hidden_layers", Default: l, Legend: "tL", Desc: "text tower layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "tI", Field: cfg + "intermediate_size", Default: i, Legend: "tI", Desc: "text FFN inner width", Show: true, Pos: true},
		{Sym: "tP", Field: cfg + "max_position_embeddings", Default: p, Legend: "tP", Desc: "text positions", Show: true, Pos: true},
	}
	if siglip {
		defs = append(defs, Def{Sym: "tPS", Field: cfg + "projection_size", Default: "tH", Null: "tH", Desc: "the text head's width", Pos: true})
	}
	const pre = "text_model."
	global := []T{{Name: pre + "embeddings.token_embedding.weight", Shape: []string{"tV", "tH"}, Role: RoleEmbedding},
		{Name: pre + "embeddings.position_embedding.weight", Shape: []string{"tP", "tH"}, Role: RoleEmbedding}}
	stack := Stack{Name: "text", Prefix: pre + "encoder.layers.{l}.", Layers: "tL", Tensors: renameSyms(cat(
		linear("self_attn.q_proj", "H", "H", "true"), linear("self_attn.k_proj", "H", "H", "true"),
		linear("self_attn.v_proj", "H", "H", "true"), linear("self_attn.out_proj", "H", "H", "true"),
		plainMLP("mlp.fc1", "mlp.fc2", "tI", "true"), norm("layer_norm1", "H", "true"), norm("layer_norm2", "H", "true")), "H", "tH")}
	final := norm(pre+"final_layer_norm", "tH", "true")
	if siglip {
		final = cat(final, linear(pre+"head", "tPS", "tH", "true"))
	}
	return defs, global, stack, final
}

// towerFamily is a vision tower's family reading the fields under cfg
// ("" for the tower's own config, "vision_config." inside the dual
// encoder's), its names under vision_model.
func towerFamily(name, class, mt, tower, cfg string, vd [5]string) *Family {
	g, s, f := visionTower("vision_model.", "vision_model.")
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs:   towerAs(tower, cfg, "hidden_size", vd[0], vd[1], vd[2], vd[3], vd[4]),
		Global: g, Stacks: s, Final: f, Embed: "vision_model.embeddings.patch_embedding.weight"}
}

// dualEncoder is CLIP or SigLIP: both towers, CLIP's two projections
// (projection_dim) or SigLIP's text head, the logit scale (and SigLIP's
// bias).
func dualEncoder(name, class, mt, tower string, vd [5]string, td [5]string, siglip bool) *Family {
	f := towerFamily(name, class, mt, tower, "vision_config.", vd)
	tdefs, tg, ts, tf := textTower("text_config.", td[0], td[1], td[2], td[3], td[4], siglip)
	f.Defs = cat(tdefs, f.Defs)
	f.Global = cat(tg, f.Global)
	f.Stacks = cat([]Stack{ts}, f.Stacks)
	f.Final = cat(tf, f.Final)
	if siglip {
		f.Final = cat(f.Final, []T{{Name: "logit_scale", Shape: []string{"1"}, Role: RoleNorm}, {Name: "logit_bias", Shape: []string{"1"}, Role: RoleNorm}})
	} else {
		f.Defs = append(f.Defs, Def{Sym: "proj", Field: "projection_dim", Default: "512", Legend: "proj", Desc: "shared embedding width", Show: true, Pos: true})
		f.Final = cat(f.Final, []T{{Name: "visual_projection.weight", Shape: []string{"proj", "vH"}, Role: RoleLinear},
			{Name: "text_projection.weight", Shape: []string{"proj", "tH"}, Role: RoleLinear},
			{Name: "logit_scale", Shape: []string{}, Role: RoleNorm}})
	}
	f.Embed = "text_model.embeddings.token_embedding.weight"
	// The image classifier reads the vision tower alone, from vision_config.
	vision := towerFamily(name, class, mt, tower, "vision_config.", vd)
	f.Tasks = []Task{{Suffix: TaskBase, KeepFinal: true},
		{Suffix: "ForImageClassification", Of: vision, KeepFinal: true, Head: linear("classifier", "C", "vH", "true"), Labels: true}}
	return f
}

// towerAlone5x is how transformers 5.x writes a tower model alone
// (CLIPVisionModel): without the tower's prefix.
func towerAlone5x(pre string) [][][2]string { return [][][2]string{{{pre, ""}}} }

// visionAlone is a CLIP-like vision tower saved as a model of its own
// (CLIPVisionModel): the base class, written by 5.x without the
// vision_model. prefix too.
func visionAlone(name, class, mt, tower string, vd [5]string) *Family {
	f := towerFamily(name, class, mt, tower, "", vd)
	f.Variants = towerAlone5x("vision_model.")
	f.Tasks = []Task{{Suffix: TaskBase, KeepFinal: true}}
	return f
}

var (
	clipVision   = [5]string{"768", "12", "3072", "32", "224"}
	clipText     = [5]string{"49408", "512", "12", "2048", "77"}
	siglipVision = [5]string{"768", "12", "3072", "16", "224"}
	siglipText   = [5]string{"32000", "768", "12", "3072", "64"}
)

var _ = register(
	func() *Family {
		return dualEncoder("CLIP", "CLIP", "clip", "clip_vision_model", clipVision, clipText, false)
	},
	func() *Family {
		return dualEncoder("SigLIP", "Siglip", "siglip", "siglip_vision_model", siglipVision, siglipText, true)
	},
	func() *Family {
		f := visionAlone("CLIP vision", "CLIPVision", "clip_vision_model", "clip_vision_model", clipVision)
		f.Tasks = append(f.Tasks, Task{Suffix: "ModelWithProjection", KeepFinal: true, Head: []T{{Name: "visual_projection.weight", Shape: []string{"proj", "vH"}, Role: RoleLinear}},
			Defs: []Def{{Sym: "proj", Field: "projection_dim", Default: "512", Desc: "projection width", Pos: true}}})
		return f
	},
	func() *Family {
		return visionAlone("SigLIP vision", "SiglipVision", "siglip_vision_model", "siglip_vision_model", siglipVision)
	},
	func() *Family {
		return func() *Family {
			defs, g, s, fin := textTower("", clipText[0], clipText[1], clipText[2], clipText[3], clipText[4], false)
			return &Family{Name: "CLIP text", Class: "CLIPText", ModelTypes: []string{"clip_text_model"}, Causal: "-", SeqCls: "-",
				Defs: defs, Global: g, Stacks: []Stack{s}, Final: fin, Embed: "text_model.embeddings.token_embedding.weight",
				Variants: towerAlone5x("text_model."),
				Tasks: []Task{{Suffix: TaskBase, KeepFinal: true},
					{Suffix: "ModelWithProjection", KeepFinal: true, Head: []T{{Name: "text_projection.weight", Shape: []string{"proj", "tH"}, Role: RoleLinear}},
						Defs: []Def{{Sym: "proj", Field: "projection_dim", Default: "512", Desc: "projection width", Pos: true}}}}}
		}()
	},
)
