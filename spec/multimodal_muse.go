package spec

// Meta's Muse Glimmer (transformers 5.x): a VLM of its own vision tower,
// a bias-free adapter and projection, and a language model with gated
// attention and sandwich norms; and its assistant (a draft model over
// the target's hidden states). Each tower is checked alone too.

// museText is Muse Glimmer's language model (MuseGlimmerTextModel):
// q/k/v/o biased by attention_bias and a sigmoid gate_proj beside them,
// a scale-free q/k norm and embedding norm (no parameters), four norms
// per layer (input, post-attention, pre- and post-feedforward) and a
// SwiGLU; MuseGlimmerTextConfig's defaults.
var museText = &Family{Name: "Muse-Glimmer text", Class: "MuseGlimmerText", SeqCls: "-",
	Defs:   cat(sized(llamaDims("128", "", "2", ""), "V", "202048", "H", "6656", "L", "52", "heads", "32", "I", "19968"), []Def{attnBiasFlag, tie("false")}),
	Global: embed("model.embed_tokens.weight"),
	Stacks: decoderLayers(nil, inNorm, attn("self_attn.", "attention_bias", "attention_bias"), linear("self_attn.gate_proj", "heads*d", "H", ""),
		postNorm, norm("pre_feedforward_layernorm", "H", ""), norm("post_feedforward_layernorm", "H", ""), gatedMLP("mlp.", "I", "")),
	Final: cat(norm("model.norm", "H", ""), lmHead("lm_head.weight")),
	Embed: "model.embed_tokens.weight", Head: "lm_head.weight",
}

// museVision is Muse Glimmer's vision side: the tower under
// model.vision_tower (a bias-free linear patch embedding of
// patch_temporal·3·patch_size² pixels, a pos_emb_height·pos_emb_width
// position table, ln_pre, pre-norm layers with biased q/k/v and proj, a
// biased GELU MLP, ln_post) and the bias-free vision_adapter
// (out_hidden_size → projector_hidden_size, twice) and
// vision_projection into the language model.
func museVision() Family {
	layer := renameSyms(cat(norm("norm1", "H", "true"), norm("norm2", "H", "true"),
		linear("attn.q_proj", "H", "H", "true"), linear("attn.k_proj", "H", "H", "true"), linear("attn.v_proj", "H", "H", "true"),
		linear("attn.proj", "H", "H", "true"), plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH")
	pre := "model.vision_tower."
	return Family{Name: "Muse-Glimmer", Class: "MuseGlimmer", ModelTypes: []string{"muse_glimmer"}, Causal: "MuseGlimmerForConditionalGeneration",
		Defs: []Def{
			{Sym: "vH", Field: "vision_config.hidden_size", Default: "1536", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
			{Sym: "vL", Field: "vision_config.num_hidden_layers", Default: "50", Legend: "vL", Desc: "vision layers", Show: true, Pos: true, Max: MaxLayers},
			vFFN(vcfg, "8960"), vPatch(vcfg, "14"),
			{Sym: "vT", Field: "vision_config.patch_temporal", Default: "2", Desc: "frames per patch", Pos: true},
			{Sym: "vPH", Field: "vision_config.pos_emb_height", Default: "32", Desc: "position table height", Pos: true},
			{Sym: "vPW", Field: "vision_config.pos_emb_width", Default: "32", Desc: "position table width", Pos: true},
			{Sym: "mmO", Field: "out_hidden_size", Default: "6144", Desc: "adapter input width", Pos: true},
			{Sym: "mmI", Field: "projector_hidden_size", Default: "4096", Desc: "adapter width", Show: true, Pos: true},
		},
		Global: []T{{Name: pre + "patch_embedder.patch_embedding.weight", Shape: []string{"vH", "vT*3*vP*vP"}, Role: RoleLinear},
			{Name: pre + "patch_embedder.position_embedding_table.weight", Shape: []string{"vPH*vPW", "vH"}, Role: RoleEmbedding},
			{Name: pre + "ln_pre.weight", Shape: []string{"vH"}, Role: RoleNorm}, {Name: pre + "ln_pre.bias", Shape: []string{"vH"}, Role: RoleBias}},
		Stacks: []Stack{{Name: "vision", Prefix: pre + "layers.{l}.", Layers: "vL", Tensors: layer}},
		Final: cat(norm(pre+"ln_post", "vH", "true"),
			linear("model.vision_adapter.fc1", "mmI", "mmO", ""), linear("model.vision_adapter.fc2", "mmI", "mmI", ""),
			linear("model.vision_projection", "H", "mmI", "")),
	}
}

// museAssistant is Muse Glimmer's assistant (MuseGlimmerAssistantModel,
// a DFlash-style drafter): no embedding; a projection of the target's
// target_layer_ids hidden states (concatenated) to the width and its
// norm, Qwen3-layout layers (q/k norms, bias-free), the final norm.
func museAssistant() *Family {
	return &Family{Name: "Muse-Glimmer assistant", Class: "MuseGlimmerAssistant", ModelTypes: []string{"muse_glimmer_assistant"},
		Causal: "-", SeqCls: "-", Tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}},
		Defs: cat(sized(withoutDefs(llamaDims("128", "", "8", ""), "V"), "H", "6656", "L", "5", "heads", "32", "I", "19968"), []Def{
			{Sym: "nT", Field: "target_layer_ids", Type: Count, Default: "5", Null: "=", Desc: "target layers whose hidden states are read"}}),
		Global: cat(linear("encoder.fc", "H", "nT*H", ""), norm("encoder.output_norm_enc", "H", "")),
		Stacks: []Stack{{Prefix: "layers.{l}.", Layers: "L", Tensors: cat(inNorm, attn("self_attn.", "", "", qkNorm("self_attn.", "d", "d")), postNorm, gatedMLP("mlp.", "I", ""))}},
		Final:  norm("norm", "H", ""),
	}
}

var _ = register(
	// Muse Glimmer: its language model is always MuseGlimmerTextModel;
	// the head is tied by the top-level tie_word_embeddings alone, which
	// MuseGlimmerConfig does not declare (false unless config.json
	// gives it).
	func() *Family {
		return (&vlm{Family: museVision(), textF: museText, reroot: newLM, tieTop: "false"}).register()
	},
	func() *Family { return towerText(museText, "MuseGlimmerText", "muse_glimmer_text") },
	func() *Family {
		return towerVision(museVision(), "model.vision_tower.", "MuseGlimmer", "VisionModel", "muse_glimmer_vision")
	},
	museAssistant,
)
