package spec

import (
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
	towerText(qwenVLText, "Qwen2VLText", "qwen2_vl_text"),
	towerText(qwenVLText, "Qwen2_5_VLText", "qwen2_5_vl_text"),
	towerText(qwen3VLText, "Qwen3VLText", "qwen3_vl_text"),
	towerText(glm4vText, "Glm4vText", "glm4v_text"),
	towerVision(qwen3VLVision("Qwen3-VL", "Qwen3VL", "qwen3_vl"), "model.visual.", "Qwen3VL", "VisionModel", "qwen3_vl_vision"),
	towerVision(qwen3VLVision("Qwen3-VL-MoE", "Qwen3VLMoe", "qwen3_vl_moe"), "model.visual.", "Qwen3VLMoe", "VisionModel", "qwen3_vl_moe_vision"),
	towerVision(qwen35Vision("Qwen3.5", "Qwen3_5", "qwen3_5"), "model.visual.", "Qwen3_5", "VisionModel", "qwen3_5_vision"),
	towerVision(qwen35Vision("Qwen3.5-MoE", "Qwen3_5Moe", "qwen3_5_moe"), "model.visual.", "Qwen3_5Moe", "VisionModel", "qwen3_5_moe_vision"),
	towerVision(glm4vVision("GLM-4V", "Glm4v", "glm4v"), "model.visual.", "Glm4v", "VisionModel", "glm4v_vision"),
	towerVision(glm4vVision("GLM-4V-MoE", "Glm4vMoe", "glm4v_moe"), "model.visual.", "Glm4vMoe", "VisionModel", "glm4v_moe_vision"),
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
			g := towerText(byType["glm4_moe"], "Glm4vMoeText", "Glm4vMoe_text", "glm4v_moe_text")
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

var _ = register(qwen3VLMoeTextAlone, glm4vMoeText)

var _ = register(
	// GLM-4.6V (glm46v, and glmga's configs of the same classes): GLM-4V's
	// towers and language model under new classes.
	func() *Family {
		v := &vlm{Family: glm4vVision("GLM-4.6V", "Glm46V", "glm46v"), textF: glm4vText, reroot: newLM}
		v.ModelTypes = []string{"glm46v", "glmga"}
		return v.register()
	}(),
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
			{Sym: "vL", Field: "vision_config.depth", Default: "32", Legend: "vL", Desc: "vision blocks", Show: true, Pos: true, Max: MaxLayers},
			vFFN(vcfg, "3420"), vPatch(vcfg, "14"),
			{Sym: "vheads", Field: "vision_config.num_heads", Default: "16", Desc: "vision attention heads", Pos: true, Divides: "vH"},
			{Sym: "vkv", Field: "vision_config.num_key_value_heads", Default: "8", Desc: "vision key/value heads", Pos: true},
			opt("vT", "vision_config.temporal_patch_size", "2"), opt("vC", "vision_config.in_channels", "3"),
			opt("vM", "vision_config.spatial_merge_size", "2"),
			{Sym: "vOut", Field: "vision_config.out_hidden_size", Default: "3584", Desc: "merger output width", Show: true, Pos: true},
		},
		Global: []T{{Name: "model.visual.patch_embed.proj.weight", Shape: []string{"vH", "vC", "vT", "vP", "vP"}, Role: RoleLinear}},
		Stacks: []Stack{{Name: "vision", Prefix: "model.visual.blocks.{l}.", Layers: "vL", Tensors: block}},
		Final: cat(norm("model.visual.merger.ln_q", "vH", ""), linear("model.visual.merger.mlp.0", "vH*vM*vM", "vH*vM*vM", "true"),
			linear("model.visual.merger.mlp.2", "vOut", "vH*vM*vM", "true")),
	}
}

var _ = register(
	// EXAONE 4.5: the EXAONE 4 language model (text_config, exaone4 or
	// exaone4_5_text) with exaone45Vision.
	(&vlm{Family: exaone45Vision(), text: "exaone4", alias: map[string]string{"exaone4_5_text": "exaone4"}, reroot: newLM}).register(),
	towerVision(exaone45Vision(), "model.visual.", "Exaone4_5_", "VisionModel", "exaone4_5_vision"),
)

var _ = register(
	// LightOnOCR: a Pixtral tower under model.vision_encoder, Mistral 3's
	// projector (RMS norm, patch merger, two bias-free linears) under
	// model.vision_projection, a Qwen3 language model (text_config);
	// tied by default (the top-level tie_word_embeddings).
	withTower(&vlm{Family: Family{Name: "LightOnOCR", Class: "LightOnOcr", ModelTypes: []string{"lighton_ocr"}, Causal: "LightOnOcrForConditionalGeneration"},
		text: "qwen3", reroot: newLM, defaults: map[string]string{"tied": "true"}},
		"pixtral", "model.vision_encoder.", "model.vision_encoder.",
		[]Def{opt("mm_m", "spatial_merge_size", "2")},
		cat(norm("model.vision_projection.norm", "vH", ""),
			[]T{{Name: "model.vision_projection.patch_merger.merging_layer.weight", Shape: []string{"vH", "vH*mm_m*mm_m"}, Role: RoleLinear}},
			linear("model.vision_projection.linear_1", "H", "vH", ""), linear("model.vision_projection.linear_2", "H", "H", ""))),
)
