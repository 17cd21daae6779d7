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
	for _, d := range v.Defs {
		if d.Field != "" {
			var alts []string
			for _, a := range strings.Split(d.Field, "|") {
				if s, ok := strings.CutPrefix(a, vcfg); ok {
					alts = append(alts, s)
				}
			}
			if len(alts) == 0 {
				continue
			}
			d.Field = strings.Join(alts, "|")
		}
		g.Defs = append(g.Defs, d)
	}
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
