package spec

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// The towers of vision-language models checked on their own: a VLM's
// language model under its text model_type (qwen3_vl_text:
// Qwen3VLTextModel) and its vision tower under its vision model_type
// (qwen3_vl_vision: Qwen3VLVisionModel), each the VLM's own block with
// its names and fields re-rooted at the top level.

// towerText is a VLM's language model f as a model_type of its own: its
// base model (class+"Model") without a head.
func towerText(f *Family, class string, mts ...string) *Family {
	g := *f
	g.Class, g.ModelTypes, g.Causal, g.SeqCls, g.compiled = class, mts, "-", "-", nil
	g.Tasks = []Task{{Suffix: TaskBase, Prefix: "-"}}
	return &g
}

// visualTower is the vision tower (model.visual.) of the VLM vlm builds
// for name, class and model type mt, as its class+"VisionModel" of the
// model type mt+"_vision".
func visualTower(vlm func(name, class, mt string) Family, name, class, mt string) *Family {
	return towerVision(vlm(name, class, mt), "model.visual.", class, "VisionModel", mt+"_vision")
}

// towerVision is the vision side of a VLM row v (fields under
// vision_config., tensors under pre) as the vision model class
// class+suffix of the model types mts: fields at the top level, names
// without pre. Definitions of other fields than the tower's are left
// out, as are tensors outside pre (the projector).
func towerVision(v Family, pre, class, suffix string, mts ...string) *Family {
	g := &Family{Name: v.Name + " vision", Class: class, ConfigClass: class + "VisionConfig", ModelTypes: mts, Causal: "-", SeqCls: "-",
		Tasks: []Task{{Suffix: suffix, KeepFinal: true}}}
	g.Defs = subDefs(v.Defs, vcfg)
	strip := func(ts []T) []T {
		var out []T
		for _, t := range ts {
			if s, ok := strings.CutPrefix(t.Name, pre); ok {
				t.Name = s
				out = append(out, t)
			}
		}
		return out
	}
	g.Global, g.Final = strip(v.Global), strip(v.Final)
	for _, s := range v.Stacks {
		if p, ok := strings.CutPrefix(s.Prefix, pre); ok {
			s.Prefix = p
			g.Stacks = append(g.Stacks, s)
		}
	}
	return g
}

var _ = register(
	func() *Family { return towerText(qwenVLText, "Qwen2VLText", "qwen2_vl_text") },
	func() *Family { return towerText(qwenVLText, "Qwen2_5_VLText", "qwen2_5_vl_text") },
	func() *Family { return towerText(qwen3VLText, "Qwen3VLText", "qwen3_vl_text") },
	func() *Family { return towerText(glm4vText, "Glm4vText", "glm4v_text") },
	func() *Family { return visualTower(qwen3VLVision, "Qwen3-VL", "Qwen3VL", "qwen3_vl") },
	func() *Family { return visualTower(qwen3VLVision, "Qwen3-VL-MoE", "Qwen3VLMoe", "qwen3_vl_moe") },
	func() *Family { return visualTower(qwen35Vision, "Qwen3.5", "Qwen3_5", "qwen3_5") },
	func() *Family { return visualTower(qwen35Vision, "Qwen3.5-MoE", "Qwen3_5Moe", "qwen3_5_moe") },
	func() *Family { return visualTower(glm4vVision, "GLM-4V", "Glm4v", "glm4v") },
	func() *Family { return visualTower(glm4vVision, "GLM-4V-MoE", "Glm4vMoe", "glm4v_moe") },
)

// qwen3VLMoeTextAlone is Qwen3-VL-MoE's language model alone: its
// stacked experts' layout by writer (tf5).
var qwen3VLMoeTextAlone = func() *Family {
	f := towerText(qwen3VLMoeText, "Qwen3VLMoeText", "qwen3_vl_moe_text")
	f.Defs = append(append([]Def(nil), f.Defs...), derived("v5", "tf5"))
	return f
}()

// glm4vMoeText is GLM-4.5V's language model alone (4.x's model_type
// Glm4vMoe_text, 5.x's glm4v_moe_text): GLM-4-MoE's layout with
// Glm4vMoeTextConfig's attention_bias default true, built on first use
// from the registered GLM-4-MoE family.
var glm4vMoeText = &Family{Name: "GLM-4V-MoE text", Class: "Glm4vMoeText", ModelTypes: []string{"Glm4vMoe_text", "glm4v_moe_text"},
	Causal: "-", SeqCls: "-", Tasks: []Task{{Suffix: TaskBase, Prefix: "-"}},
	compose: func(*Config) (*Family, error) {
		glm4vMoeTextOnce.Do(func() {
			g := towerText(familyOf("glm4_moe"), "Glm4vMoeText", "Glm4vMoe_text", "glm4v_moe_text")
			g.Name, g.ConfigClass = "GLM-4V-MoE text", ""
			g.Defs = withDefault(g.Defs, "attention_bias", "true")
			glm4vMoeTextF = g
		})
		return glm4vMoeTextF, nil
	},
}

var (
	glm4vMoeTextOnce sync.Once
	glm4vMoeTextF    *Family
)

var _ = register(func() *Family { return qwen3VLMoeTextAlone }, func() *Family { return glm4vMoeText })

var _ = register(
	// GLM-4.6V (glm46v, and glmga's configs of the same classes): GLM-4V's
	// towers and language model under new classes.
	func() *Family {
		return func() *Family {
			v := &vlm{Family: glm4vVision("GLM-4.6V", "Glm46V", "glm46v"), textF: glm4vText, reroot: newLM}
			v.ModelTypes = []string{"glm46v", "glmga"}
			return v.register()
		}()
	},
)

// exaone45Vision is EXAONE 4.5's vision side: Qwen2.5-VL's tower (RMS
// norms, a biased SwiGLU, the ln_q merger) with grouped key/value heads
// in its fused qkv.
func exaone45Vision() Family {
	block := renameSyms(cat(norm("norm1", "H", ""), norm("norm2", "H", ""),
		linear("attn.qkv", "H+2*vkv*(H/vheads)", "H", "true"), linear("attn.proj", "H", "H", "true"),
		gatedMLP("mlp.", "vI", "true")), "H", "vH")
	return Family{Name: "EXAONE 4.5", Class: "Exaone4_5_", ModelTypes: []string{"exaone4_5"}, Causal: "Exaone4_5_ForConditionalGeneration",
		Defs: []Def{
			{Sym: "vH", Field: "vision_config.hidden_size", Default: "3584", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
			vDepth("32"),
			vFFN(vcfg, "3420"), vPatch(vcfg, "14"),
			{Sym: "vheads", Field: "vision_config.num_heads", Default: "16", Desc: "vision attention heads", Pos: true, Divides: "vH"},
			{Sym: "vkv", Field: "vision_config.num_key_value_heads", Default: "8", Desc: "vision key/value heads", Pos: true},
			opt("vT", "vision_config.temporal_patch_size", "2"), opt("vC", "vision_config.in_channels", "3"),
			opt("vM", "vision_config.spatial_merge_size", "2"),
			{Sym: "vOut", Field: "vision_config.out_hidden_size", Default: "3584", Desc: "merger output width", Show: true, Pos: true},
		},
		Global: patchEmbed3D("model.visual.patch_embed.proj.weight"),
		Stacks: []Stack{{Name: "vision", Prefix: "model.visual.blocks.{l}.", Layers: "vL", Tensors: block}},
		Final: cat(norm("model.visual.merger.ln_q", "vH", ""), linear("model.visual.merger.mlp.0", "vH*vM*vM", "vH*vM*vM", "true"),
			linear("model.visual.merger.mlp.2", "vOut", "vH*vM*vM", "true")),
	}
}

var _ = register(
	// EXAONE 4.5: the EXAONE 4 language model (text_config, exaone4 or
	// exaone4_5_text) with exaone45Vision.
	func() *Family {
		return (&vlm{Family: exaone45Vision(), text: "exaone4", alias: map[string]string{"exaone4_5_text": "exaone4"}, reroot: newLM}).register()
	},
	func() *Family {
		return towerVision(exaone45Vision(), "model.visual.", "Exaone4_5_", "VisionModel", "exaone4_5_vision")
	},
)

var _ = register(
	// LightOnOCR: a Pixtral tower under model.vision_encoder, Mistral 3's
	// projector (RMS norm, patch merger, two bias-free linears) under
	// model.vision_projection, a Qwen3 language model (text_config);
	// tied by default (the top-level tie_word_embeddings).
	func() *Family {
		return withTower(&vlm{Family: Family{Name: "LightOnOCR", Class: "LightOnOcr", ModelTypes: []string{"lighton_ocr"}, Causal: "LightOnOcrForConditionalGeneration"},
			text: "qwen3", reroot: newLM, defaults: map[string]string{"tied": "true"}},
			"pixtral", "model.vision_encoder.", "model.vision_encoder.",
			[]Def{opt("mm_m", "spatial_merge_size", "2")},
			cat(norm("model.vision_projection.norm", "vH", ""),
				[]T{{Name: "model.vision_projection.patch_merger.merging_layer.weight", Shape: []string{"vH", "vH*mm_m*mm_m"}, Role: RoleLinear}},
				linear("model.vision_projection.linear_1", "H", "vH", ""), linear("model.vision_projection.linear_2", "H", "H", "")))
	},
)

// VLMs made of the towers and language models the other rows already
// check (Video-LLaVA, ShieldGemma 2's classifier, the ColPali retrievers,
// …), each composed from those rows' blocks, never a copy.

var _ = register(
	// Video-LLaVA: LLaVA's projector over two CLIP towers of the same
	// vision_config, image_tower and video_tower, into a Llama.
	func() *Family {
		return func() *Family {
			d, t := llavaProjector("multi_modal_projector.", "true")
			vg, vs, vf := visionTower("video_tower.vision_model.", "video_tower.")
			return withTower(&vlm{Family: Family{Name: "Video-LLaVA", Class: "VideoLlava", ModelTypes: []string{"video_llava"},
				Causal: "VideoLlavaForConditionalGeneration", Global: vg, Stacks: vs,
				Variants: [][][2]string{{{"image_tower.vision_model.", "image_tower."}, {"video_tower.vision_model.", "video_tower."}}}},
				text: "llama", reroot: legacyLM},
				"clip_vision_model", "image_tower.vision_model.", "image_tower.", d, cat(t, vf))
		}()
	},
	// ColPali and ColQwen2: a PaliGemma or Qwen2-VL under vlm. (its
	// config vlm_config) and a projection of the text width to
	// embedding_dim. transformers 4.x holds the VLM's causal LM (its head
	// saved unless tied), 5.x its base model.
	func() *Family {
		return (&wrap{Name: "ColPali", Class: "ColPali", Causal: "ColPaliForRetrieval", ModelTypes: []string{"colpali"},
			sub: "vlm_config.", mt: "paligemma", names: [][2]string{{"", "vlm."}}, headIf: "!tf5",
			Defs: colEmbedDefs, Final: colEmbedProj}).register()
	},
	func() *Family {
		return (&wrap{Name: "ColQwen2", Class: "ColQwen2", Causal: "ColQwen2ForRetrieval", ModelTypes: []string{"colqwen2"},
			sub: "vlm_config.", mt: "qwen2_vl", headIf: "!tf5",
			names:    [][2]string{{"model.", "vlm.model.language_model."}, {"visual.", "vlm.model.visual."}, {"lm_head.", "vlm.lm_head."}},
			Variants: [][][2]string{{{"vlm.model.language_model.", "vlm.language_model."}, {"vlm.model.visual.", "vlm.visual."}}},
			Defs:     colEmbedDefs, Final: colEmbedProj}).register()
	},
	// ShieldGemma 2: Gemma 3's VLM (its configs of
	// Gemma3ForConditionalGeneration are Gemma 3's), and
	// ShieldGemma2ForImageClassification holding it under model.; 5.x
	// saves the VLM's base model under model.model. and the head as
	// model.lm_head.
	func() *Family {
		return (&wrap{Name: "ShieldGemma2", Class: "ShieldGemma2", Causal: "ShieldGemma2ForImageClassification", ModelTypes: []string{"shieldgemma2"},
			inner: gemma3("ShieldGemma2", "shieldgemma2"), other: true, names: [][2]string{{"", "model."}},
			Variants: [][][2]string{{{"model.language_model.model.", "model.model.language_model.model."},
				{"model.vision_tower.vision_model.", "model.model.vision_tower."},
				{"model.multi_modal_projector.", "model.model.multi_modal_projector."}, {"model.language_model.lm_head.", "model.lm_head."}}}}).register()
	},
)

// colEmbedDefs and colEmbedProj are the ColPali retrievers' projection of
// the text width to embedding_dim.
var (
	colEmbedDefs = []Def{{Sym: "cE", Field: "embedding_dim", Default: "128", Legend: "cE", Desc: "retrieval embedding width", Show: true, Pos: true}}
	colEmbedProj = linear("embedding_proj_layer", "cE", "H", "true")
)

// wrap is a model that holds another model whole under an attribute
// (ColPaliForRetrieval's vlm, ShieldGemma2ForImageClassification's
// model): the family the sub-config's model_type names (composed for
// that sub-config when it is a VLM), its fields read under sub, its
// names rewritten by names, plus the wrapper's own fields and tensors.
type wrap struct {
	Name, Class, Causal string
	ModelTypes          []string
	sub                 string  // the inner model's config: "vlm_config." ("" the wrapper's own)
	mt                  string  // the inner model_type when sub has none
	inner               *Family // the inner family, when it is not a registered model type's
	// names rewrites the inner model's names (first matching prefix).
	names [][2]string
	// headIf is the condition of the inner causal LM head ("" always:
	// the wrapper holds the causal LM; "!tf5": 5.x holds the base
	// model).
	headIf string
	// other: a class that is not the wrapper's is the inner family's
	// own (ShieldGemma2's configs of Gemma3ForConditionalGeneration).
	other    bool
	Variants [][][2]string
	Defs     []Def
	// Global, Stacks and Final are the wrapper's own tensors besides the
	// inner model (Qwen2.5-Omni's talker and vocoder).
	Global []T
	Stacks []Stack
	Final  []T
	cache  sync.Map // inner composition → *Family
}

func (w *wrap) register() *Family {
	return &Family{Name: w.Name, Class: w.Class, ModelTypes: w.ModelTypes, Causal: w.Causal, SeqCls: "-", Tasks: noTasks, compose: w.compose}
}

// subConfig is the config under field ("vlm_config."), or c.
func (c *Config) subConfig(field string) *Config {
	if field == "" {
		return c
	}
	raw, ok := c.lookup(strings.TrimSuffix(field, "."))
	var m map[string]json.RawMessage
	if !ok || json.Unmarshal(raw, &m) != nil || m == nil {
		m = map[string]json.RawMessage{}
	}
	return &Config{Path: c.Path, Raw: raw, fields: m}
}

func (w *wrap) compose(c *Config) (*Family, error) {
	sc := c.subConfig(w.sub)
	inner := w.inner
	if inner == nil {
		mt := w.mt
		if s := sc.ModelType(); s != "" {
			mt = s
		}
		if inner = familyOf(mt); inner == nil {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
				Reason: fmt.Sprintf("its inner model, %smodel_type %q, has no spec", w.sub, mt)}
		}
	}
	if inner.compose != nil {
		var err error
		if inner, err = inner.compose(sc); err != nil {
			return nil, err
		}
	}
	if w.other && c.Architecture() != w.Causal {
		return inner, nil
	}
	if f, ok := w.cache.Load(inner); ok {
		return f.(*Family), nil
	}
	f := &Family{Name: w.Name + " + " + inner.Name, Class: w.Class, ModelTypes: w.ModelTypes, Causal: w.Causal, SeqCls: "-", Tasks: noTasks,
		Embed: rebase(inner.Embed, w.names), Head: rebase(inner.Head, w.names)}
	for _, d := range inner.Defs {
		if d.Field != "" && w.sub != "" {
			alts := strings.Split(d.Field, "|")
			for i := range alts {
				alts[i] = w.sub + alts[i]
			}
			d.Field = strings.Join(alts, "|")
		}
		// transformers builds the inner model whether or not its key/value
		// heads divide its heads (ColQwen2's reference config: 8 of 6), so
		// the shapes, not that rule, are checked.
		d.Divides = ""
		f.Defs = append(f.Defs, d)
	}
	f.Defs = append(f.Defs, w.Defs...)
	re := func(ts []T) []T {
		out := rerootTs(ts, w.names)
		for i := range out {
			if out[i].Role == RoleHead && w.headIf != "" {
				out[i].If = "(" + w.headIf + ") && (" + cmp.Or(out[i].If, "true") + ")"
			}
		}
		return slices.DeleteFunc(out, func(t T) bool { return t.Role == RoleScore })
	}
	f.Global = cat(re(inner.Global), w.Global)
	for _, s := range inner.Stacks {
		s.Prefix = rebase(s.Prefix, w.names)
		f.Stacks = append(f.Stacks, s)
	}
	f.Stacks = append(f.Stacks, w.Stacks...)
	f.Final = cat(re(inner.Final), w.Final)
	for _, v := range inner.Variants {
		var nv [][2]string
		for _, r := range v {
			nv = append(nv, [2]string{rebase(r[0], w.names), rebase(r[1], w.names)})
		}
		f.Variants = append(f.Variants, nv)
	}
	f.Variants = append(f.Variants, w.Variants...)
	if err := f.compile(); err != nil {
		return nil, fmt.Errorf("spec: %s with %s: %w", w.Name, inner.Name, err)
	}
	g, _ := w.cache.LoadOrStore(inner, f)
	return g.(*Family), nil
}

// vlmTasks are a VLM's task classes: composedTasks' base model unless
// the VLM's own tasks give it (Phi-4-multimodal's base model drops the
// model. prefix), then its own.
func vlmTasks(reroot [][2]string, own []Task, baseVariants ...[][2]string) []Task {
	var out []Task
	for _, t := range composedTasks(reroot, baseVariants...) {
		if !slices.ContainsFunc(own, func(o Task) bool { return o.Suffix == t.Suffix }) {
			out = append(out, t)
		}
	}
	return append(out, own...)
}

// splitQKV is a block with its fused attn.qkv [3·w, w] split into
// attn.q, attn.k and attn.v, each w wide (Qwen2.5-Omni's vision tower).
func splitQKV(ts []T, w string) []T {
	var out []T
	for _, t := range ts {
		if rest, ok := strings.CutPrefix(t.Name, "attn.qkv."); ok {
			for _, p := range []string{"q", "k", "v"} {
				u := t
				u.Name, u.Shape = "attn."+p+"."+rest, slices.Clone(t.Shape)
				u.Shape[0] = w
				out = append(out, u)
			}
			continue
		}
		out = append(out, t)
	}
	return out
}

// omniAudio is Qwen2.5-Omni's audio encoder under pre: Whisper's encoder
// (Qwen2.5-Omni's config defaults are Qwen2-Audio's) without stored
// positions, its final norm ln_post, a projection to output_dim and the
// audio begin/end embeddings.
func omniAudio(pre string) ([]Def, []T, Stack, []T) {
	g, s, f := whisperEncoder(pre, "audio")
	g = slices.DeleteFunc(g, func(t T) bool { return strings.HasSuffix(t.Name, ".embed_positions.weight") })
	f = rerootTs(f, [][2]string{{pre + "layer_norm.", pre + "ln_post."}})
	defs := append(whisperEncoderDefs("audio_config."),
		Def{Sym: "aOut", Field: "audio_config.output_dim", Default: "3584", Desc: "audio projection width", Pos: true})
	return defs, g, s, cat(f, linear(pre+"proj", "aOut", "aH", "true"),
		[]T{{Name: pre + "audio_bos_eos_token.weight", Shape: []string{"2", "aOut"}, Role: RoleEmbedding}})
}

// omniText is Qwen2.5-Omni's language model: Qwen2-VL's text layout with
// Qwen2_5OmniTextConfig's defaults (untied in 4.x, tied in 5.x).
var omniText = func() *Family {
	f := *qwenVLText
	f.Name, f.Class = "Qwen2.5-Omni text", "Qwen2_5OmniText"
	f.Defs = withDefault(withDefault(sized(f.Defs, "V", "152064", "H", "3584", "L", "28", "heads", "28", "I", "18944"), "kv", "4"), "tied", "tf5")
	return &f
}()

// omniThinker is Qwen2.5-Omni's thinker: Qwen2.5-VL's vision tower with
// q, k and v apart, the audio encoder, and the language model.
func omniThinker() Family {
	vd, vg, vs, vf := qwenVisual(true)
	for i := range vs {
		vs[i].Tensors = splitQKV(vs[i].Tensors, "vH")
	}
	ad, ag, as, af := omniAudio("audio_tower.")
	return Family{Name: "Qwen2.5-Omni thinker", Class: "Qwen2_5OmniThinker", ModelTypes: []string{"qwen2_5_omni_thinker"},
		Causal: "Qwen2_5OmniThinkerForConditionalGeneration",
		Defs:   cat(vd, ad), Global: cat(vg, ag), Stacks: cat(vs, []Stack{as}), Final: cat(vf, af)}
}

var _ = register(
	// The thinker's top-level tie_word_embeddings defaults to false
	// (5.x ties by it), its text config's to false in 4.x, true in 5.x.
	// Its lm_head is the one module 4.x builds outside a sub-config:
	// in the top-level dtype, which save_pretrained does not keep (it
	// writes the first parameter's), so where the sub-configs' dtypes
	// differ from it the head is saved in another dtype than
	// config.json's (4.57's from_pretrained with dtype "auto" or a
	// dtype dict); its dtype is not held.
	func() *Family {
		return (&vlm{Family: omniThinker(), textF: omniText, tieTop: "false", head: anyDType(lmHead("lm_head.weight"))}).register()
	},
)

// glmOcrText is GLM-OCR's language model: GLM-4V's layout with q, k and
// v never biased, GlmOcrTextConfig's defaults.
var glmOcrText = func() *Family {
	f := *glm4vText
	f.Name, f.Class = "GLM-OCR text", "GlmOcrText"
	f.Defs = replaceDef(withDefault(sized(f.Defs, "V", "59392", "H", "1024", "L", "16", "heads", "16", "I", "4096"), "kv", "8"),
		derived("attention_bias", "false"))
	return &f
}()

// glmOcrVision is GLM-OCR's vision side: GLM-4V's 3-D patch embedding,
// strided-conv downsample and gated merger (its width out_hidden_size ·
// in_channels), blocks with q/k RMS norms and a biased SwiGLU of
// intermediate_size, no learned positions.
func glmOcrVision() Family {
	block := renameSyms(cat(norm("norm1", "H", ""), norm("norm2", "H", ""), linear("attn.qkv", "3*H", "H", "vbias"), linear("attn.proj", "H", "H", "vbias"),
		norm("attn.q_norm", "H/vheads", ""), norm("attn.k_norm", "H/vheads", ""), gatedMLP("mlp.", "vI", "vbias")), "H", "vH")
	return Family{Name: "GLM-OCR", Class: "GlmOcr", ModelTypes: []string{"glm_ocr"}, Causal: "GlmOcrForConditionalGeneration",
		Defs: []Def{
			{Sym: "vH", Field: "vision_config.hidden_size", Default: "1024", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
			vDepth("24"),
			vFFN(vcfg, "4096"), vPatch(vcfg, "14"),
			{Sym: "vheads", Field: "vision_config.num_heads", Default: "16", Desc: "vision attention heads", Pos: true, Divides: "vH"},
			{Sym: "vOut", Field: "vision_config.out_hidden_size", Default: "1536", Desc: "merger width", Show: true, Pos: true},
			opt("vT", "vision_config.temporal_patch_size", "2"), opt("vC", "vision_config.in_channels", "3"),
			opt("vM", "vision_config.spatial_merge_size", "2"),
			flag("vbias", "vision_config.attention_bias", "true", "vision qkv, proj and MLP have biases"),
		},
		Global: cat(patchEmbed3D("model.visual.patch_embed.proj.weight"), []T{
			{Name: "model.visual.patch_embed.proj.bias", Shape: []string{"vH"}, Role: RoleBias}}),
		Stacks: []Stack{{Name: "vision", Prefix: "model.visual.blocks.{l}.", Layers: "vL", Tensors: block}},
		Final: cat(norm("model.visual.post_layernorm", "vH", ""),
			conv("model.visual.downsample", "vOut", "vH", "vM", "vM"),
			linear("model.visual.merger.proj", "vOut", "vOut", ""), norm("model.visual.merger.post_projection_norm", "vOut", "true"),
			renameSyms(gatedMLP("model.visual.merger.", "vOut*vC", ""), "H", "vOut")),
	}
}

var _ = register(
	func() *Family { return (&vlm{Family: glmOcrVision(), textF: glmOcrText, reroot: newLM}).register() },
	func() *Family { return towerText(glmOcrText, "GlmOcrText", "glm_ocr_text") },
	func() *Family {
		return towerVision(glmOcrVision(), "model.visual.", "GlmOcr", "VisionModel", "glm_ocr_vision")
	},
)

// paddleOCRVL is PaddleOCR-VL: a SigLIP-layout tower without pooling
// head (PaddleOCRVisionConfig's defaults) under visual.vision_model, a
// projector (LayerNorm, two linears over spatial_merge_size² patches)
// saved as mlp_AR, and ERNIE 4.5 (paddleocr_vl_text) saved as model.;
// the base model keeps them as language_model. and projector.
func paddleOCRVL() *Family {
	g, s, f := visionTower("visual.vision_model.", "visual.")
	return (&vlm{Family: Family{Name: "PaddleOCR-VL", Class: "PaddleOCRVL", ModelTypes: []string{"paddleocr_vl"},
		Causal: "PaddleOCRVLForConditionalGeneration",
		Defs: cat(replaceDef(siglipTowerDefs(vcfg, "hidden_size", "1152", "27", "4304", "14", "384"), derived("vhead", "false")),
			[]Def{opt("vM", "vision_config.spatial_merge_size", "2")}),
		Global: g, Stacks: s,
		Final: cat(f, norm("mlp_AR.pre_norm", "vH", "true"), linear("mlp_AR.linear_1", "vH*vM*vM", "vH*vM*vM", "true"),
			linear("mlp_AR.linear_2", "H", "vH*vM*vM", "true")),
		Variants: [][][2]string{{{"model.", "language_model."}, {"mlp_AR.", "projector."}}}},
		text: "paddleocr_vl_text", alias: map[string]string{"paddleocr_vl_text": "ernie4_5"}}).register()
}

var _ = register(paddleOCRVL)

// videoLlama3Vision is VideoLLaMA 3's vision side: a SigLIP-layout tower
// without learned positions (rotary) or pooling head under
// model.vision_model, and a two-layer readout into the language model.
func videoLlama3Vision() Family {
	g, s, f := visionTower("model.vision_model.", "model.vision_model.")
	g = slices.DeleteFunc(g, func(t T) bool { return strings.HasSuffix(t.Name, ".position_embedding.weight") })
	return Family{Name: "VideoLLaMA3", Class: "VideoLlama3", ModelTypes: []string{"video_llama_3"}, Causal: "VideoLlama3ForConditionalGeneration",
		Defs:   replaceDef(siglipTowerDefs(vcfg, "hidden_size", "768", "12", "3072", "16", "224"), derived("vhead", "false")),
		Global: g, Stacks: s,
		Final: cat(f, linear("model.projector.readout.0", "H", "vH", "true"), linear("model.projector.readout.2", "H", "H", "true")),
	}
}

var _ = register(
	// VideoLLaMA 3: its vision tower and a Qwen2 (text_config) under
	// model.language_model.
	func() *Family { return (&vlm{Family: videoLlama3Vision(), text: "qwen2", reroot: newLM}).register() },
	func() *Family {
		return towerVision(videoLlama3Vision(), "model.vision_model.", "VideoLlama3", "VisionModel", "video_llama_3_vision")
	},
)

// glmImage is GLM-Image's vision side as a VLM row: its vision tower
// (vision_config) under model.visual and its VQ tokenizer (vq_config)
// under model.vqmodel, each the tower's own family re-rooted; the head
// predicts the vision_vocab_size image tokens and is never tied (no tied
// keys).
func glmImage() *Family {
	vis, vq := glmImageVision(), glmImageVQ()
	under := func(ts []T, pre string) []T { return rerootTs(ts, [][2]string{{"", pre}}) }
	var stacks []Stack
	for _, s := range vis.Stacks {
		stacks = append(stacks, rerootStack(s, [][2]string{{"", "model.visual."}}))
	}
	return (&vlm{Family: Family{Name: "GLM-Image", Class: "GlmImage", ModelTypes: []string{"glm_image"}, Causal: "GlmImageForConditionalGeneration",
		Defs: cat(underCfg(vis.Defs, vcfg), underCfg(vq.Defs, "vq_config."),
			[]Def{{Sym: "vV", Field: "text_config.vision_vocab_size", Default: "16512", Desc: "image tokens the head predicts", Show: true, Pos: true}}),
		Global: under(vis.Global, "model.visual."), Stacks: stacks, Final: under(vq.Final, "model.vqmodel.")},
		textF: glmImageText(), reroot: newLM,
		head: []T{{Name: "lm_head.weight", Shape: []string{"vV", "H"}, Role: RoleHead, If: "causal"}}}).register()
}

var _ = register(glmImage)
