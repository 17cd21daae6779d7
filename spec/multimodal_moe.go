package spec

// Vision-language models whose language model is a mixture of experts
// of its own (ERNIE-4.5-VL-MoE's modality-isolated experts), written in
// their original checkpoints' layout.

// ernie45VLMoe is ERNIE-4.5-VL-MoE: a Qwen2-VL-style ViT (a bias-free
// linear patch embedding, fused qkv, LayerNorms, a GELU MLP, a final
// ln) under model.vision_model, the variable-resolution resampler
// (spatial and temporal MLPs, a linear to the text width, an RMS norm),
// and the text decoder, whose sparse layers (mlp_layer_types) hold E
// text experts of moe_intermediate_size[0], then E vision experts of
// [1], the shared experts (one MLP of shared·[0]) and the float32
// routers of both as saved by the original checkpoints ([H, E]: gate,
// gate.weight_1) with their correction biases [2, E].
func ernie45VLMoe() *Family {
	t, v := "text_config.", vcfg
	vit := renameSyms(cat(norm("norm1", "H", "true"), norm("norm2", "H", "true"),
		linear("attn.qkv", "3*H", "H", "true"), linear("attn.proj", "H", "H", "true"),
		linear("mlp.fc1", "vI", "H", "true"), linear("mlp.fc2", "H", "vI", "true")), "H", "vH")
	mlp := func(pre, in string) []T {
		return cat(linear(pre+"0", "vS", in, "true"), linear(pre+"2", "vS", "vS", "true"), norm(pre+"3", "vS", "true"))
	}
	sparse := cat([]T{
		{Name: "mlp.gate.weight", Shape: []string{"H", "E"}, Role: RoleRouter, AnyDType: true},
		{Name: "mlp.gate.weight_1", Shape: []string{"H", "E"}, Role: RoleRouter, AnyDType: true},
		{Name: "mlp.moe_statics.e_score_correction_bias", Shape: []string{"2", "E"}, Role: RoleBias, AnyDType: true},
		{Name: "mlp.experts.{e}.gate_proj.weight", Shape: []string{"e < E ? Im : Imv", "H"}, Role: RoleLinear, Experts: "2*E", PerCopy: true},
		{Name: "mlp.experts.{e}.up_proj.weight", Shape: []string{"e < E ? Im : Imv", "H"}, Role: RoleLinear, Experts: "2*E", PerCopy: true},
		{Name: "mlp.experts.{e}.down_proj.weight", Shape: []string{"H", "e < E ? Im : Imv"}, Role: RoleLinear, Experts: "2*E", PerCopy: true},
	}, when("shared > 0", gatedMLP("mlp.shared_experts.", "shared*Im", "bias")))
	return &Family{Name: "ERNIE-4.5-VL-MoE", Class: "Ernie4_5_VLMoe", ModelTypes: []string{"ernie4_5_vl_moe"},
		Causal: "Ernie4_5_VLMoeForConditionalGeneration", SeqCls: "-",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}},
		Defs: cat(underCfg(sized(llamaDims("H/heads", "H/heads", "4", "heads"), "V", "103424", "H", "2560", "L", "28", "heads", "20", "I", "12288"), t),
			[]Def{
				{Sym: "E", Field: t + "moe_num_experts|" + t + "num_experts", Default: "64", Legend: "E", Desc: "text (and as many vision) experts per sparse block, {topk} active per token", Show: true, Max: MaxExperts},
				{Sym: "Iml", Field: t + "moe_intermediate_size", Type: List, Default: "list(1536, 512)", Desc: "text expert width (entry 0)"},
				derived("Im", "at(Iml, 0)"), derived("Imv", "at(Iml, 1)"),
				field("topk", t+"moe_k|"+t+"num_experts_per_tok", "6", "experts active per token"),
				field("shared", t+"moe_num_shared_experts", "2", "shared experts (one MLP of shared·Im)"),
				{Sym: "mlt", Field: t + "mlp_layer_types", Type: List, Desc: "each block's MLP: 'dense' or 'sparse' (default: the first dense)"},
				flag("bias", t+"use_bias", "false", "every text projection has a bias"),
			},
			writerTie(t+"tie_word_embeddings", "tie_word_embeddings", "true", ""),
			[]Def{
				{Sym: "vH", Field: v + "hidden_size", Default: "1280", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
				{Sym: "vL", Field: v + "depth", Default: "32", Legend: "vL", Desc: "vision blocks", Show: true, Pos: true, Max: MaxLayers},
				vFFN(v, "5120"), vPatch(v, "14"), opt("vC", v+"in_channels", "3"),
				opt("vM", v+"spatial_merge_size", "2"), opt("vTM", v+"temporal_merge_size", "2"),
				derived("vS", "vH*vM*vM"),
			}),
		Global: cat(embed("model.embed_tokens.weight"),
			[]T{{Name: "model.vision_model.patch_embed.proj.weight", Shape: []string{"vH", "vC*vP*vP"}, Role: RoleLinear}}),
		Stacks: []Stack{
			{Prefix: "model.layers.{l}.", Layers: "L",
				Kinds:   []Kind{{Name: "sparse", If: "len(mlt) > 0 ? at(mlt, l) == 'sparse' : l > 0"}, {Name: "dense"}},
				Tensors: llamaBlock("bias", "bias", when("sparse", sparse), when("dense", gatedMLP("mlp.", "I", "bias")))},
			{Name: "vision", Prefix: "model.vision_model.blocks.{l}.", Layers: "vL", Tensors: vit},
		},
		Final: cat(norm("model.norm", "H", ""), norm("model.vision_model.ln", "vH", "true"),
			mlp("model.resampler_model.spatial_linear.", "vS"), mlp("model.resampler_model.temporal_linear.", "vS*vTM"),
			linear("model.resampler_model.mlp", "H", "vS", "true"), norm("model.resampler_model.after_norm", "H", ""),
			lmHead("lm_head.weight")),
		Embed: "model.embed_tokens.weight", Head: "lm_head.weight",
	}
}

var _ = register(ernie45VLMoe)

// miniCPMV46 is MiniCPM-V 4.6: a SigLIP-layout tower without pooling
// head under model.vision_tower with its window-attention merger
// (vit_merger: an attention over the tower's width, then an MLP over
// window_kernel_size's patches), the downsampling merger (merger_times
// MLPs over 4 patches, the last to the text width) and a Qwen3.5 text
// model (text_config) under model.language_model.
func miniCPMV46() *Family {
	g, s, f := visionTower("model.vision_tower.", "model.vision_tower.")
	vm := "model.vision_tower.vit_merger."
	attn := renameSyms(cat(linear("self_attn.q_proj", "H", "H", "true"), linear("self_attn.k_proj", "H", "H", "true"),
		linear("self_attn.v_proj", "H", "H", "true"), linear("self_attn.out_proj", "H", "H", "true")), "H", "vH")
	// A window side of 0 builds (zero-wide modules).
	win := cat(norm(vm+"pre_norm", "vH*vW", "true"), linear(vm+"linear_1", "vI*vW", "vH*vW", "true"), linear(vm+"linear_2", "vH", "vI*vW", "true"))
	for i := range win {
		win[i].ZeroOK = true
	}
	merger := cat(under(vm, norm("layer_norm1", "vH", "true"), attn), win)
	down := copies("mmT", cat(norm("model.merger.mlp.{e}.pre_norm", "4*vH", "true"),
		linear("model.merger.mlp.{e}.linear_1", "4*vH", "4*vH", "true"),
		linear("model.merger.mlp.{e}.linear_2", "e == mmT-1 ? H : vH", "4*vH", "true")))
	return (&vlm{Family: Family{Name: "MiniCPM-V 4.6", Class: "MiniCPMV4_6", ModelTypes: []string{"minicpmv4_6"},
		Causal: "MiniCPMV4_6ForConditionalGeneration",
		Defs: cat(replaceDef(siglipTowerDefs(vcfg, "hidden_size", "768", "12", "3072", "16", "224"), derived("vhead", "false")),
			[]Def{{Sym: "vWK", Field: "vision_config.window_kernel_size", Type: List, Default: "list(2, 2)", Desc: "the vision merger's window"},
				derived("vW", "at(vWK, 0)*at(vWK, 1)"),
				{Sym: "mmT", Field: "merger_times", Default: "1", Desc: "downsampling merger rounds", Pos: true, Max: MaxLayers}}),
		Global: g, Stacks: s, Final: cat(f, merger, down)},
		text: "qwen3_5_text", reroot: newLM, tieTop: "false"}).register()
}

var _ = register(miniCPMV46)

// hyNames are the names one HunYuan-VL class saves its vision tower
// under: transformers 5.x reverses its conversion mapping on save only
// where the mapping's patterns match the class's own names, so the
// conditional-generation class writes the original checkpoint's names
// (vit., perceive., input_layernorm), the base model a mix, and the
// tower alone its module names.
type hyNames struct{ vit, ln1, ln2, fc1, fc2, merger, conv, out string }

var (
	hyOriginal = hyNames{"vit.", "input_layernorm", "post_attention_layernorm", "mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "perceive.", "proj.0", "proj.2"}
	hyBase     = hyNames{"model.vision_tower.", "layer_norm1", "layer_norm2", "mlp.dense_h_to_4h", "mlp.dense_4h_to_h", "perceive.", "proj.0", "proj.2"}
	hyModules  = hyNames{"", "layer_norm1", "layer_norm2", "mlp.fc1", "mlp.fc2", "patch_merger.", "proj_conv", "proj_out"}
)

// hunyuanVLVisionDefs are HunYuanVLVisionConfig's fields under cfg;
// its text_hidden_size is the text model's width (tH), which the VLM's
// config sets from text_config.
func hunyuanVLVisionDefs(cfg, tH string) []Def {
	return []Def{
		{Sym: "vH", Field: cfg + "hidden_size", Default: "1152", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
		vLayers(cfg, "27"), vFFN(cfg, "4304"), vPatch(cfg, "16"), opt("vC", cfg+"num_channels", "3"),
		opt("vM", cfg+"spatial_merge_size", "2"), opt("vImg", cfg+"max_image_size", "2048"),
		derived("vtH", tH),
	}
}

// hunyuanVLVision is HunYuan-VL's ViT under n's names: a biased patch
// conv, (max_image_size/patch)²+1 learned positions, LayerNorm blocks
// with biased attention and MLP, and the patch merger (RMS norms, a
// strided conv to 2·vH, a 1×1 conv to 4·vH, a linear to the text width,
// a newline of 4·vH and begin/end/separator embeddings of the text
// width).
func hunyuanVLVision(n hyNames) ([]T, Stack, []T) {
	global := cat(conv(n.vit+"embeddings.patch_embedding", "vH", "vC", "vP", "vP"),
		[]T{{Name: n.vit + "embeddings.position_embedding.weight", Shape: []string{"(vImg/vP)*(vImg/vP)+1", "vH"}, Role: RoleEmbedding}})
	layer := renameSyms(cat(norm(n.ln1, "H", "true"), norm(n.ln2, "H", "true"),
		linear("self_attn.q_proj", "H", "H", "true"), linear("self_attn.k_proj", "H", "H", "true"),
		linear("self_attn.v_proj", "H", "H", "true"), linear("self_attn.o_proj", "H", "H", "true"),
		linear(n.fc1, "vI", "H", "true"), linear(n.fc2, "H", "vI", "true")), "H", "vH")
	m := n.vit + n.merger
	final := cat(norm(m+"before_rms", "vH", ""), norm(m+"after_rms", "vtH", ""),
		conv(m+n.conv, "2*vH", "vH", "vM", "vM"), conv(m+n.out, "4*vH", "2*vH", "1", "1"),
		linear(m+"mlp", "vtH", "4*vH", "true"), vec(m+"image_newline", "4*vH"),
		vec(m+"image_begin", "vtH"), vec(m+"image_end", "vtH"), vec(m+"image_sep", "vtH"))
	return global, Stack{Name: "vision", Prefix: n.vit + "layers.{l}.", Layers: "vL", Tensors: layer}, final
}

// hunyuanVLText is HunYuan-VL's language model: Hunyuan-Dense's layer
// (query/key RMS norms per head) without MLP biases,
// HunYuanVLTextConfig's defaults (tied).
var hunyuanVLText = std("HunYuan-VL text", "HunYuanVLText", nil,
	cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "290943", "H", "4096", "L", "32", "heads", "32", "I", "11008"),
		[]Def{tie("true"), attnBiasFlag}), nil,
	inNorm, attn("self_attn.", "attention_bias", "attention_bias", norm("self_attn.query_layernorm", "d", ""), norm("self_attn.key_layernorm", "d", "")),
	postNorm, gatedMLP("mlp.", "I", ""))

// hunyuanVL is the VLM: the text model (text_config) under model. in
// the conditional-generation class's original layout, or under
// model.language_model with the tower under model.vision_tower in the
// base model's (saved without model.).
func hunyuanVL(n hyNames, lm [][2]string) *Family {
	g, s, f := hunyuanVLVision(n)
	v := &vlm{Family: Family{Name: "HunYuan-VL", Class: "HunYuanVL", ModelTypes: []string{"hunyuan_vl"},
		Causal: "HunYuanVLForConditionalGeneration", Defs: hunyuanVLVisionDefs(vcfg, "H"),
		Global: g, Stacks: []Stack{s}, Final: f}, textF: hunyuanVLText, reroot: lm}
	v.register()
	return &Family{Name: v.Name, Class: v.Class, ModelTypes: v.ModelTypes, Causal: v.Causal, SeqCls: "-", compose: v.compose,
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}}}
}

var (
	hunyuanVLCG   = hunyuanVL(hyOriginal, nil)
	hunyuanVLBase = hunyuanVL(hyBase, newLM)
)

var _ = register(
	func() *Family {
		return &Family{Name: "HunYuan-VL", Class: "HunYuanVL", ModelTypes: []string{"hunyuan_vl"}, Causal: "HunYuanVLForConditionalGeneration", SeqCls: "-",
			Tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}},
			compose: func(c *Config) (*Family, error) {
				if c.Architecture() == "HunYuanVLModel" {
					return hunyuanVLBase.compose(c)
				}
				return hunyuanVLCG.compose(c)
			}}
	},
	func() *Family { return towerText(hunyuanVLText, "HunYuanVLText", "hunyuan_vl_text") },
	func() *Family {
		return func() *Family {
			g, s, f := hunyuanVLVision(hyModules)
			return &Family{Name: "HunYuan-VL vision", Class: "HunYuanVL", ConfigClass: "HunYuanVLVisionConfig", ModelTypes: []string{"hunyuan_vl_vision"},
				Causal: "-", SeqCls: "-", Tasks: []Task{{Suffix: "VisionTransformer", KeepFinal: true}},
				Defs:   cat([]Def{opt("tH", "text_hidden_size", "3072")}, hunyuanVLVisionDefs("", "tH")),
				Global: g, Stacks: []Stack{s}, Final: f}
		}()
	},
)

// pi0Dit are PI0's action expert's fields (dit_config, a Gemma; symbols
// d…) with GemmaConfig's defaults.
func pi0DitDefs() []Def {
	c := "dit_config."
	return []Def{
		{Sym: "dV", Field: c + "vocab_size", Default: "256000", Desc: "action expert vocabulary (its unused embedding)", Pos: true},
		{Sym: "dH", Field: c + "hidden_size", Default: "3072", Legend: "dH", Desc: "action expert width", Show: true, Pos: true},
		{Sym: "dL", Field: c + "num_hidden_layers", Default: "28", Legend: "dL", Desc: "action expert blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "dheads", Field: c + "num_attention_heads", Default: "16", Desc: "action expert attention heads", Pos: true},
		{Sym: "dkv", Field: c + "num_key_value_heads", Default: "16", Desc: "action expert key/value heads", Pos: true},
		{Sym: "dd", Field: c + "head_dim", Default: "256", Desc: "action expert head width", Pos: true},
		{Sym: "dI", Field: c + "intermediate_size", Default: "24576", Desc: "action expert FFN width", Pos: true},
		flag("dab", c+"attention_bias", "false", "the action expert's attention has biases"),
		opt("aS", "max_state_dim", "32"), opt("aA", "max_action_dim", "32"),
	}
}

// pi0 is PI0 (PaliGemma with a Gemma action expert): the registered
// PaliGemma (vlm_config) without its head and the expert, under the
// names one class saves: the base model its modules' (vlm., dit.), the
// conditional-generation class the original checkpoint's
// (paligemma_with_expert.…, the expert's embedding as its lm_head) with
// the state and action projections.
func pi0(vlmPre, ditPre, ditEmbed string, cg bool) *Family {
	layer := renameSyms(llamaBlock("dab", "dab", gatedMLP("mlp.", "I", "")), "H", "dH", "heads", "dheads", "kv", "dkv", "d", "dd", "I", "dI")
	w := &wrap{Name: "PI0", Class: "PI0", Causal: "PI0ForConditionalGeneration", ModelTypes: []string{"pi0"},
		sub: "vlm_config.", mt: "paligemma", headIf: "false",
		names:  [][2]string{{"vision_tower.vision_model.", vlmPre + "vision_tower."}, {"", vlmPre}},
		Defs:   pi0DitDefs(),
		Global: []T{{Name: ditEmbed, Shape: []string{"dV", "dH"}, Role: RoleEmbedding}},
		Stacks: []Stack{{Name: "action expert", Prefix: ditPre + "layers.{l}.", Layers: "dL", Tensors: layer}},
		Final:  norm(ditPre+"norm", "dH", "")}
	if !cg {
		// The base model is checked as a whole class of its own (it has
		// no head to drop).
		w.Causal = "PI0Model"
	} else {
		w.Final = cat(w.Final, linear("state_proj", "dH", "aS", "true"), linear("action_in_proj", "dH", "aA", "true"),
			linear("action_out_proj", "aA", "dH", "true"), linear("action_time_mlp_in", "dH", "2*dH", "true"),
			linear("action_time_mlp_out", "dH", "dH", "true"))
	}
	return w.register()
}

var (
	pi0CG   = pi0("paligemma_with_expert.paligemma.model.", "paligemma_with_expert.gemma_expert.model.", "paligemma_with_expert.gemma_expert.lm_head.weight", true)
	pi0Base = pi0("vlm.", "dit.", "dit.embed_tokens.weight", false)
)

var _ = register(func() *Family {
	return &Family{Name: "PI0", Class: "PI0", ModelTypes: []string{"pi0"}, Causal: "PI0ForConditionalGeneration", SeqCls: "-",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}},
		compose: func(c *Config) (*Family, error) {
			if c.Architecture() == "PI0Model" {
				return pi0Base.compose(c)
			}
			return pi0CG.compose(c)
		}}
})
