package spec

import (
	"encoding/json"
	"fmt"
)

// Shared blocks of vision towers: CLIP/SigLIP-style towers, ViT and Swin
// encoders, convolutions.

// ── a vision tower's dimensions ─────────────────────────────────────────

// vcfg is where a composite model keeps its vision tower's config.
const vcfg = "vision_config."

// vWidth, vLayers, vFFN and vPatch are a vision tower's width (vH), layers
// (vL), FFN width (vI) and patch side (vP), read from the fields of the
// tower's config under cfg (vcfg, or a prefix of the family's own), with
// the class's default.
func vWidth(cfg, def string) Def {
	return Def{Sym: "vH", Field: cfg + "hidden_size", Default: def, Legend: "vH", Desc: "vision tower width", Show: true, Pos: true}
}

func vLayers(cfg, def string) Def {
	return Def{Sym: "vL", Field: cfg + "num_hidden_layers", Default: def, Legend: "vL", Desc: "vision tower layers", Show: true, Pos: true, Max: MaxLayers}
}

func vFFN(cfg, def string) Def {
	return Def{Sym: "vI", Field: cfg + "intermediate_size", Default: def, Legend: "vI", Desc: "vision FFN inner width", Show: true, Pos: true}
}

func vPatch(cfg, def string) Def {
	return Def{Sym: "vP", Field: cfg + "patch_size", Default: def, Legend: "vP", Desc: "patch side, pixels", Show: true, Pos: true}
}

// vDepth is a Qwen2-VL-style vision tower's blocks (vision_config.depth).
func vDepth(def string) Def {
	return Def{Sym: "vL", Field: vcfg + "depth", Default: def, Legend: "vL", Desc: "vision blocks", Show: true, Pos: true, Max: MaxLayers}
}

// patchEmbed3D is a video patch embedding's convolution under name:
// [vH, vC, vT, vP, vP], vT frames of vP × vP pixels.
func patchEmbed3D(name string) []T {
	return []T{{Name: name, Shape: []string{"vH", "vC", "vT", "vP", "vP"}, Role: RoleLinear}}
}

// vTower is a ViT's four dimensions under cfg with the class's defaults:
// width, layers, FFN inner width and patch side.
func vTower(cfg, width, layers, ffn, patch string) []Def {
	return []Def{vWidth(cfg, width), vLayers(cfg, layers), vFFN(cfg, ffn), vPatch(cfg, patch)}
}

// vitEncoder is a ViT (ViTModel with its pooler) under pre ("encoder."),
// fields under cfg: a class token (and DeiT's distillation token:
// tokens 2), patch and position embeddings, post-norm-free layers of
// BERT-named attention and FFN, a final LayerNorm and the pooler.
func vitEncoder(name, pre, cfg string, tokens int) encoderPart {
	defs := []Def{
		{Sym: "eH", Field: cfg + "hidden_size", Default: "768", Legend: "eH", Desc: "encoder width", Show: true, Pos: true},
		{Sym: "eL", Field: cfg + "num_hidden_layers", Default: "12", Legend: "eL", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "eI", Field: cfg + "intermediate_size", Default: "3072", Legend: "eI", Desc: "encoder FFN inner width", Show: true, Pos: true},
		{Sym: "eP", Field: cfg + "patch_size", Default: "16", Legend: "eP", Desc: "patch side, pixels", Show: true, Pos: true},
		opt("eS", cfg+"image_size", "224"), opt("eC", cfg+"num_channels", "3"),
		flag("eqkv", cfg+"qkv_bias", "true", "encoder query, key, value have biases"),
		{Sym: "ePool", Field: cfg + "pooler_output_size", Default: "eH", Null: "eH", Desc: "pooler width", Pos: true},
	}
	global := []T{{Name: pre + "embeddings.cls_token", Shape: []string{"1", "1", "eH"}, Role: RoleEmbedding}}
	if tokens == 2 {
		global = append(global, T{Name: pre + "embeddings.distillation_token", Shape: []string{"1", "1", "eH"}, Role: RoleEmbedding})
	}
	global = cat(global, []T{
		{Name: pre + "embeddings.patch_embeddings.projection.weight", Shape: []string{"eH", "eC", "eP", "eP"}, Role: RoleLinear},
		{Name: pre + "embeddings.patch_embeddings.projection.bias", Shape: []string{"eH"}, Role: RoleBias},
		{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", fmt.Sprintf("(eS/eP)*(eS/eP)+%d", tokens), "eH"}, Role: RoleEmbedding}})
	layer := renameSyms(cat(
		linear("attention.attention.query", "H", "H", "eqkv"), linear("attention.attention.key", "H", "H", "eqkv"),
		linear("attention.attention.value", "H", "H", "eqkv"), linear("attention.output.dense", "H", "H", "true"),
		linear("intermediate.dense", "eI", "H", "true"), linear("output.dense", "H", "eI", "true"),
		norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true")), "H", "eH")
	return encoderPart{Name: name, Defs: defs, Global: global,
		Stacks: []Stack{{Name: "encoder", Prefix: pre + "encoder.layer.{l}.", Layers: "eL", Tensors: layer}},
		Final:  cat(norm(pre+"layernorm", "eH", "true"), linear(pre+"pooler.dense", "ePool", "eH", "true"))}
}

// swinEncoder is a Swin Transformer (SwinModel; DonutSwinModel, Donut's
// and Nougat's encoder, without the final LayerNorm: final false) under
// pre, fields under cfg: a patch embedding, len(depths) stages of
// depths[l] windowed-attention blocks of width embed_dim·2^l with a
// relative-position table per block (and its index buffer, written as
// int64), a patch merging between stages. eH, the encoder's output width,
// is embed_dim·2^(stages-1). The absolute positions have a slot for a
// class token Swin does not have (eCls; 5.x's SwinModel dropped it).
func swinEncoder(name, pre, cfg string, final bool) encoderPart {
	return swinEncoderV(name, pre, cfg, final, false)
}

// swinEncoderV is swinEncoder, or where v2 a Swin Transformer V2's
// (Swinv2Model: a log-spaced continuous position bias MLP and a logit
// scale per block in place of the table, no key bias, the merging's norm
// after its reduction).
func swinEncoderV(name, pre, cfg string, final, v2 bool) encoderPart {
	depths, heads := []int{2, 2, 6, 2}, []int{3, 6, 12, 24}
	defs := []Def{
		{Sym: "eE", Field: cfg + "embed_dim", Default: "96", Legend: "eE", Desc: "first stage width", Show: true, Pos: true},
		list("eDl", cfg+"depths", "blocks per stage (absent: [2, 2, 6, 2])"),
		{Sym: "eN", Field: cfg + "depths", Type: Count, Default: "4", Null: "=", Max: 16, Desc: "stages"},
		list("eHl", cfg+"num_heads", "heads per stage (absent: [3, 6, 12, 24])"),
		{Sym: "eW", Field: cfg + "window_size", Default: "7", Desc: "attention window side", Pos: true},
		opt("eP", cfg+"patch_size", "4"), opt("eC", cfg+"num_channels", "3"),
		{Sym: "eSl", Field: cfg + "image_size", Type: IntOrList, Default: "224", Desc: "image side, or [height, width]"},
		derived("eSh", "pick(eSl, 0)"), derived("eSw", "pick(eSl, 1)"),
		{Sym: "emr", Field: cfg + "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width ratio in thousandths", Pos: true},
		flag("eqkv", cfg+"qkv_bias", "true", "query, key, value have biases"),
		flag("eAbs", cfg+"use_absolute_embeddings", "false", "learned absolute positions"),
		derived("eH", "eE*pow(2, eN-1)"),
		// The masked-image decoder reads num_layers, which the config
		// class derives from depths; 5.x keeps config.json's value.
		{Sym: "eNL", Field: cfg + "num_layers", Default: "eN", Desc: "stages, as the masked-image decoder reads them", Pos: true, Max: 16},
		derived("eMimH", "eE*pow(2, (tf5 ? eNL : eN)-1)"),
	}
	if name == "Swin" {
		// 5.x's SwinModel: no class-token slot, the index buffer not
		// persistent (4.x writes it).
		defs = append(defs, derived("eCls", "tf5 ? 0 : 1"), derived("eIdxOpt", "tf5"))
	} else {
		defs = append(defs, derived("eCls", "1"), derived("eIdxOpt", "false"))
	}
	dim := "eE*pow(2, l)"
	lin := func(name, out, in, bias string) []T {
		return renameSyms(linear(name, "O", "N", bias), "O", out, "N", in)
	}
	ffn := "(" + dim + ")*emr/1000"
	pos := []T{{Name: "attention.self.relative_position_bias_table", Shape: []string{"(2*eW-1)*(2*eW-1)", listAt("eHl", "l", heads)}, Role: RoleEmbedding},
		// A persistent int64 buffer, recomputed from window_size at
		// load: written by 4.x, by 5.x but for Swin itself.
		{Name: "attention.self.relative_position_index", Shape: []string{"eW*eW", "eW*eW"}, Role: RoleNorm, AnyDType: true, Optional: "eIdxOpt"}}
	kBias, merged := "eqkv", "4*"+dim
	if v2 {
		pos = cat([]T{{Name: "attention.self.logit_scale", Shape: []string{listAt("eHl", "l", heads), "1", "1"}, Role: RoleNorm}},
			linear("attention.self.continuous_position_bias_mlp.0", "512", "2", "true"),
			renameSyms(linear("attention.self.continuous_position_bias_mlp.2", "O", "512", ""), "O", listAt("eHl", "l", heads)))
		kBias, merged = "", "2*"+dim
	}
	block := cat(norm("layernorm_before", dim, "true"), pos,
		lin("attention.self.query", dim, dim, "eqkv"), lin("attention.self.key", dim, dim, kBias), lin("attention.self.value", dim, dim, "eqkv"),
		lin("attention.output.dense", dim, dim, "true"), norm("layernorm_after", dim, "true"),
		lin("intermediate.dense", ffn, dim, "true"), lin("output.dense", dim, ffn, "true"))
	for i := range block {
		block[i].Name = "blocks.{e}." + block[i].Name
		block[i].Experts, block[i].PerCopy = listAt("eDl", "l", depths), true
	}
	stage := cat(block, when("l < eN-1",
		lin("downsample.reduction", "2*"+dim, "4*"+dim, ""), norm("downsample.norm", merged, "true")))
	global := cat([]T{{Name: pre + "embeddings.patch_embeddings.projection.weight", Shape: []string{"eE", "eC", "eP", "eP"}, Role: RoleLinear},
		{Name: pre + "embeddings.patch_embeddings.projection.bias", Shape: []string{"eE"}, Role: RoleBias},
		{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "(eSh/eP)*(eSw/eP)+eCls", "eE"}, Role: RoleEmbedding, If: "eAbs"}},
		norm(pre+"embeddings.norm", "eE", "true"))
	var fin []T
	if final {
		fin = norm(pre+"layernorm", "eH", "true")
	}
	return encoderPart{Name: name, Defs: defs, Global: global,
		Stacks: []Stack{{Name: "encoder stage", Prefix: pre + "encoder.layers.{l}.", Layers: "eN", Tensors: stage}}, Final: fin}
}

// conv is a biased 2-D convolution [out, in, kh, kw].
func conv(name, out, in, kh, kw string) []T {
	return []T{{Name: name + ".weight", Shape: []string{out, in, kh, kw}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

// perBlock makes ts one copy per residual block of a level: {e} the
// block, e bound in shapes and conditions.
func perBlock(n string, ts []T) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		out[i].Experts, out[i].PerCopy = n, true
	}
	return out
}

// clipTowerDefs are the symbols visionTower reads for a CLIP-style tower
// (class embedding, pre- and post-norm) whose config fields live under
// cfg ("vision_config."), with its config class's defaults: hidden is
// the width's field name (IDEFICS says embed_dim), then the defaults of
// width, layers, FFN width, patch and image side.
func clipTowerDefs(cfg, hidden, h, l, i, p, s string) []Def {
	return towerAs("clip_vision_model", cfg, hidden, h, l, i, p, s)
}

// siglipTowerDefs are clipTowerDefs for a SigLIP tower with its pooling
// head (a tower class of its own with SigLIP's layout: Phi-4-multimodal's).
func siglipTowerDefs(cfg, hidden, h, l, i, p, s string) []Def {
	return towerAs("siglip_vision_model", cfg, hidden, h, l, i, p, s)
}

func towerAs(mt, cfg, hidden, h, l, i, p, s string) []Def {
	clip, s2 := mt == "clip_vision_model", mt == "siglip2_vision_model"
	np := derived("vNP", "0")
	if s2 {
		np = opt("vNP", cfg+"num_patches", "256")
	}
	return []Def{
		derived("vmt", "'"+mt+"'"),
		derived("clip", fmt.Sprint(clip)), derived("pix", "false"), derived("s2", fmt.Sprint(s2)),
		// SigLIP's (and SigLIP2's) tower reads vision_use_head when the
		// config has it (no config class declares it).
		{Sym: "vhead", Field: cfg + "vision_use_head", Type: Bool, Default: fmt.Sprint(!clip), Null: "=", Desc: "SigLIP's attention-pooling head"}, np,
		{Sym: "vH", Field: cfg + hidden, Default: h, Legend: "vH", Desc: "vision tower width", Show: true, Pos: true},
		vLayers(cfg, l),
		vFFN(cfg, i),
		vPatch(cfg, p),
		{Sym: "vS", Field: cfg + "image_size", Default: s, Desc: "image side, pixels", Pos: true},
		channels("vC", cfg+"num_channels"),
		derived("vN", "(vS/vP)*(vS/vP)"),
	}
}

// towerDefs are vision_config's fields, with the defaults of the tower
// class vision_config.model_type names (mt is the VLM's default tower).
func towerDefs(mt string) []Def {
	byMT := func(pix, idefics3, idefics2, clip, siglip string) string {
		return fmt.Sprintf("vmt == 'pixtral' ? %s : (vmt == 'idefics3_vision' || vmt == 'smolvlm_vision' ? %s : (vmt == 'idefics2_vision' ? %s : (vmt == 'clip_vision_model' ? %s : %s)))",
			pix, idefics3, idefics2, clip, siglip)
	}
	return cat([]Def{
		{Sym: "vmt", Field: "vision_config.model_type", Type: Str, Default: "'" + mt + "'", Desc: "the vision tower"},
		derived("clip", "vmt == 'clip_vision_model'"),
		derived("pix", "vmt == 'pixtral'"),
		derived("s2", "vmt == 'siglip2_vision_model'"),
		opt("vNP", "vision_config.num_patches", "256"),
	}, vTower(vcfg, byMT("1024", "1152", "768", "768", "768"), byMT("24", "12", "12", "12", "12"),
		byMT("4096", "3072", "3072", "3072", "3072"), byMT("16", "32", "32", "32", "16")), []Def{
		{Sym: "vS", Field: "vision_config.image_size", Default: byMT("1024", "224", "224", "224", "224"), Desc: "image side, pixels", Pos: true},
		channels("vC", "vision_config.num_channels"),
		{Sym: "vhead", Field: "vision_config.vision_use_head", Type: Bool, Default: "true", Null: "=", Desc: "SigLIP's attention-pooling head"},
		derived("vN", "(vS/vP)*(vS/vP)"),
	})
}

// visionTower is a CLIP, SigLIP (and Idefics2/3's SigLIP) or Pixtral tower:
// CLIP and SigLIP under pre ("vision_tower.vision_model."), Pixtral under
// pixPre ("vision_tower."). Its tensors are globals, a stack and finals.
func visionTower(pre, pixPre string) (global []T, stacks []Stack, final []T) {
	vln := func(name string) []T { return norm(name, "vH", "true") }
	global = cat(
		when("!pix && !s2", []T{{Name: pre + "embeddings.patch_embedding.weight", Shape: []string{"vH", "vC", "vP", "vP"}, Role: RoleLinear}}),
		when("s2", []T{{Name: pre + "embeddings.patch_embedding.weight", Shape: []string{"vH", "vC*vP*vP"}, Role: RoleLinear},
			{Name: pre + "embeddings.position_embedding.weight", Shape: []string{"vNP", "vH"}, Role: RoleEmbedding}}),
		when("!pix && !clip", vecIf(pre+"embeddings.patch_embedding.bias", "vH", "")),
		when("clip", vec(pre+"embeddings.class_embedding", "vH"),
			[]T{{Name: pre + "embeddings.position_embedding.weight", Shape: []string{"vN+1", "vH"}, Role: RoleEmbedding}},
			vln(pre+"pre_layrnorm")),
		when("!pix && !clip && !s2", []T{{Name: pre + "embeddings.position_embedding.weight", Shape: []string{"vN", "vH"}, Role: RoleEmbedding}}),
		when("pix", []T{{Name: pixPre + "patch_conv.weight", Shape: []string{"vH", "vC", "vP", "vP"}, Role: RoleLinear}},
			norm(pixPre+"ln_pre", "vH", "")),
	)
	stacks = []Stack{
		{Name: "vision", Prefix: pre + "encoder.layers.{l}.", Layers: "pix ? 0 : vL", Tensors: cat(
			renameSyms(cat(linear("self_attn.q_proj", "H", "H", "true"), linear("self_attn.k_proj", "H", "H", "true"),
				linear("self_attn.v_proj", "H", "H", "true"), linear("self_attn.out_proj", "H", "H", "true"),
				plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH"),
			vln("layer_norm1"), vln("layer_norm2"))},
		{Name: "vision", Prefix: pixPre + "transformer.layers.{l}.", Layers: "pix ? vL : 0", Tensors: renameSyms(cat(
			norm("attention_norm", "H", ""),
			linear("attention.q_proj", "H", "H", ""), linear("attention.k_proj", "H", "H", ""),
			linear("attention.v_proj", "H", "H", ""), linear("attention.o_proj", "H", "H", ""),
			norm("ffn_norm", "H", ""), gatedMLP("feed_forward.", "vI", "")), "H", "vH")},
	}
	final = cat(
		when("!pix", vln(pre+"post_layernorm")),
		when("(vmt == 'siglip_vision_model' || s2) && vhead",
			[]T{{Name: pre + "head.probe", Shape: []string{"1", "1", "vH"}, Role: RoleNorm},
				{Name: pre + "head.attention.in_proj_weight", Shape: []string{"3*vH", "vH"}, Role: RoleLinear},
				{Name: pre + "head.attention.in_proj_bias", Shape: []string{"3*vH"}, Role: RoleBias}},
			renameSyms(linear(pre+"head.attention.out_proj", "H", "H", "true"), "H", "vH"),
			vln(pre+"head.layernorm"),
			renameSyms(plainMLP(pre+"head.mlp.fc1", pre+"head.mlp.fc2", "vI", "true"), "H", "vH")),
	)
	return global, stacks, final
}

// swinOutNorms are a Swin backbone's LayerNorms on the stages it
// outputs (out_indices, eOut; the last stage when absent), under pre:
// SwinBackbone's hidden_states_norms.{stem,stageK} (byIndex false),
// MaskFormerSwinBackbone's hidden_states_norms.K of every stage K
// (byIndex true) — each as wide as its stage.
func swinOutNorms(pre string, byIndex bool) []T {
	if byIndex {
		return perCopyNorm(pre+"hidden_states_norms.{e}", "eE*pow(2, e)", "eN", "", "true")
	}
	return backboneNorms(pre, "eOut", "eE", "eE*pow(2, e-1)", "eN")
}

// backboneNorms are a backbone's LayerNorms on the stages it outputs
// (the list out: out_indices, 0 the stem), under pre:
// hidden_states_norms.stem as wide as stem, and .stageK for K in 1..n as
// wide as width (an expression of e = K).
func backboneNorms(pre, out, stem, width, n string) []T {
	return cat(when("in(0, "+out+")", norm(pre+"hidden_states_norms.stem", stem, "true")),
		perCopyNorm(pre+"hidden_states_norms.stage{e}", width, n, "1", "in(e, "+out+")"))
}

// perCopyNorm is a biased LayerNorm per copy e (n copies from from),
// each width wide, where cond holds.
func perCopyNorm(name, width, n, from, cond string) []T {
	out := norm(name, width, "true")
	for i := range out {
		out[i].Experts, out[i].From, out[i].PerCopy, out[i].If = n, from, true, cond
	}
	return out
}

// swinOutDefs are a backbone's out_indices (eOut), the last stage when
// absent.
func swinOutDefs(cfg string) []Def {
	return []Def{listOf("eOut", cfg+"out_indices", "list(eN)", "the stages a backbone outputs")}
}

// signValue reads a Sign.
func (c *Config) signValue(field string, raw json.RawMessage) (any, error) {
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil {
		return nil, c.errorf(field, "must be a number, found %s", kindOf(raw))
	}
	switch {
	case x > 0:
		return int64(1), nil
	case x < 0:
		return int64(-1), nil
	}
	return int64(0), nil
}
