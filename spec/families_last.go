package spec

// The last architectures of the reference layouts (issue #21): GIT, …
// Each row is built from the shared blocks of blocks.go and the encoder
// and vision helpers of families_encoder.go and families_vision.go.

// gitDefs are GitConfig's fields (a BERT-like decoder without
// cross-attention) and GitVisionConfig's (a CLIP tower), with their
// classes' defaults.
func gitDefs() []Def {
	text := bertDefs("30522", "768", "6", "3072", "1024", "2")[:7]
	text[2].Default = "6"
	return cat(text, relPos, []Def{
		derived("cross", "false"),
		tie("false"),
		{Sym: "nimg", Field: "num_image_with_embedding", Default: "0", Null: "=", Desc: "temporal embeddings of video frames"},
		derived("vmt", "'git_vision_model'"),
		derived("clip", "true"), derived("pix", "false"), derived("s2", "false"), derived("vhead", "false"), derived("vNP", "0"),
		{Sym: "vH", Field: "vision_config.hidden_size", Default: "768", Legend: "vH", Desc: "vision tower width", Show: true, Pos: true},
		{Sym: "vL", Field: "vision_config.num_hidden_layers", Default: "12", Legend: "vL", Desc: "vision tower layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "vI", Field: "vision_config.intermediate_size", Default: "3072", Legend: "vI", Desc: "vision FFN inner width", Show: true, Pos: true},
		{Sym: "vP", Field: "vision_config.patch_size", Default: "16", Legend: "vP", Desc: "patch side, pixels", Show: true, Pos: true},
		{Sym: "vS", Field: "vision_config.image_size", Default: "224", Desc: "image side, pixels", Pos: true},
		{Sym: "vC", Field: "vision_config.num_channels", Default: "3", Desc: "image channels", Pos: true},
		derived("vN", "(vS/vP)*(vS/vP)"),
	})
}

var _ = register(func() *Family {
	g, s, f := visionTower("git.image_encoder.vision_model.", "git.image_encoder.")
	return &Family{Name: "GIT", Class: "Git", ModelTypes: []string{"git"}, Causal: "GitForCausalLM", SeqCls: "-",
		Defs: gitDefs(),
		Global: cat(bertEmbeddings("git.embeddings.", "H", false, true), g,
			[]T{{Name: "git.img_temporal_embedding.{e}", Shape: []string{"1", "1", "vH"}, Role: RoleEmbedding, Experts: "nimg"}}),
		Stacks: append(s, Stack{Prefix: "git.encoder.layer.{l}.", Layers: "L", Tensors: postLN}),
		Final: cat(f,
			linear("git.visual_projection.visual_projection.0", "H", "vH", "true"),
			norm("git.visual_projection.visual_projection.1", "H", "true"),
			[]T{{Name: "output.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
				{Name: "output.bias", Shape: []string{"V"}, Role: RoleBias}}),
		Embed: "git.embeddings.word_embeddings.weight", Head: "output.weight",
	}
}())

// Doge: Llama-like layers with a dynamic-mask attention (A and dt_proj
// per kv head), per-head q/k norms, learned residual scales, and with
// is_moe the CDMoE: the dense MLP plus E single-vector experts routed by
// product keys (2·⌊√E⌋ router rows).
var _ = register(std("Doge", "Doge", []string{"doge"},
	cat(withDefault(withDefault(withDefault(withDefault(withDefault(
		llamaDims("H/heads", "H/heads", "heads", "heads"),
		"V", "32768"), "H", "1024"), "L", "32"), "heads", "8"), "I", "2048"),
		[]Def{tie("false"), attnBiasFlag, mlpBiasFlag,
			flag("moe", "is_moe", "false", "the MLP is a cross-domain mixture of experts"),
			{Sym: "E", Field: "num_experts", Default: "16384", Legend: "E", Desc: "single-vector experts, {isqrt(E)}² addressable by product keys", Pos: true}}),
	nil,
	inNorm,
	attn("self_attn.", "attention_bias", "attention_bias",
		[]T{{Name: "self_attn.A", Shape: []string{"kv"}, Role: RoleNorm}},
		linear("self_attn.dt_proj", "kv", "kv*d", "attention_bias"),
		qkNorm("self_attn.", "d", "d")),
	[]T{{Name: "input_residual", Shape: []string{"H"}, Role: RoleNorm}},
	postNorm,
	gatedMLP("mlp.", "I", "mlp_bias"),
	when("moe", []T{{Name: "mlp.router_gate.weight", Shape: []string{"2*isqrt(E)", "H"}, Role: RoleRouter},
		{Name: "mlp.down_embed.weight", Shape: []string{"E", "H"}, Role: RoleEmbedding},
		{Name: "mlp.up_embed.weight", Shape: []string{"E", "H"}, Role: RoleEmbedding}}),
	[]T{{Name: "post_attention_residual", Shape: []string{"H"}, Role: RoleNorm}},
))
