package spec

import "strings"

// Blocks of the dual encoders, vision towers and video models
// (multimodal_towers.go): a class checked as a whole family, towers
// re-rooted under another prefix.

// classOf is the task class suffix of a composite model checked as the
// whole family f (its globals, stacks and finals with their names as
// written), plus head: for models whose classes are not one base model
// with a head (BLIP's dual encoder and its question answering).
func classOf(suffix string, f *Family, head ...T) Task {
	return Task{Suffix: suffix, Of: f, KeepFinal: true, Head: head}
}

// rerootStack is s with its prefix moved by pairs.
func rerootStack(s Stack, pairs [][2]string) Stack {
	s.Prefix = rebase(s.Prefix, pairs)
	return s
}

// headsOf are the tensors of ts whose role is the LM head or a score,
// which a class checked by classOf gives as its head.
func headsOf(ts []T) []T {
	var out []T
	for _, t := range ts {
		if t.Role == RoleHead || t.Role == RoleScore {
			out = append(out, t)
		}
	}
	return out
}

// subDefs are the definitions of defs read under the sub-config cfg
// ("qformer_config."), moved to the top level for the sub-model checked
// alone; derived ones are kept, the others' fields dropped.
func subDefs(defs []Def, cfg string) []Def {
	var out []Def
	for _, d := range defs {
		if d.Field != "" {
			var alts []string
			for _, a := range strings.Split(d.Field, "|") {
				if s, ok := strings.CutPrefix(a, cfg); ok {
					alts = append(alts, s)
				}
			}
			if len(alts) == 0 {
				continue
			}
			d.Field = strings.Join(alts, "|")
		}
		out = append(out, d)
	}
	return out
}

// underCfg is defs with their fields read under the sub-config cfg
// ("text_config."): a model's own fields as a composite's part.
func underCfg(defs []Def, cfg string) []Def {
	out := make([]Def, len(defs))
	for i, d := range defs {
		if d.Field != "" {
			alts := strings.Split(d.Field, "|")
			for j := range alts {
				alts[j] = cfg + alts[j]
			}
			d.Field = strings.Join(alts, "|")
		}
		out[i] = d
	}
	return out
}

// textPart is a dual encoder's text tower: its definitions, tensors and
// its output's width (an expression), which text_projection reads.
type textPart struct {
	Defs          []Def
	Global, Final []T
	Stacks        []Stack
	Width         string
}

// bertText is a BERT-layout text tower under pre ("text_model."), fields
// under text_config. with the class's defaults (bertDefs' arguments and
// the layers), without pooler; rel: the condition of relative
// positions' distance embeddings.
func bertText(pre string, v, h, l, heads, i, pos, types, rel string) textPart {
	defs := bertDefs(v, h, heads, i, pos, types)
	defs = withDefault(defs, "L", l)
	defs = cat(underCfg(cat(defs, relPos[:1]), "text_config."), []Def{derived("rel", rel)})
	return textPart{Defs: defs, Global: bertEmbeddings(pre+"embeddings.", "H", true, true),
		Stacks: []Stack{{Name: "text", Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: postLN}}, Width: "H"}
}

// clipPair is a CLIP-style dual encoder with another text tower: CLIP's
// vision tower (vd: its class's defaults) under vision_model., the text
// tower, visual and text projections to projection_dim (default proj)
// and the logit scale; its vision model class (model_type vmt) reads the
// tower alone.
func clipPair(name, class, mt string, vd [5]string, t textPart, proj string) *Family {
	f := towerFamily(name, class, mt, "clip_vision_model", "vision_config.", vd)
	f.Defs = cat(t.Defs, f.Defs, []Def{{Sym: "proj", Field: "projection_dim", Default: proj, Legend: "proj", Desc: "shared embedding width", Show: true, Pos: true}})
	f.Global = cat(t.Global, f.Global)
	f.Stacks = cat(t.Stacks, f.Stacks)
	f.Final = cat(t.Final, f.Final, []T{{Name: "visual_projection.weight", Shape: []string{"proj", "vH"}, Role: RoleLinear},
		{Name: "text_projection.weight", Shape: []string{"proj", t.Width}, Role: RoleLinear},
		{Name: "logit_scale", Shape: []string{}, Role: RoleNorm}})
	f.Embed = t.Global[0].Name
	f.Tasks = []Task{{Suffix: TaskBase, KeepFinal: true}}
	return f
}

// maeLayer is a VideoMAE-style ViT layer (VideoMAE, and the blocks that
// copy it): query, key and value, with biases where qkv — 4.x keeps
// query's and value's apart (q_bias, v_bias) and none for the key, 5.x
// writes all three as the linears' biases —, BERT-named output, FFN and
// the two LayerNorms; h and i its widths.
func maeLayer(h, i, qkv string) []T {
	b5 := "(" + qkv + ") && tf5"
	return renameSyms(cat(
		linear("attention.attention.query", "H", "H", b5), linear("attention.attention.key", "H", "H", b5),
		linear("attention.attention.value", "H", "H", b5),
		when("("+qkv+") && !tf5", vec("attention.attention.q_bias", "H"), vec("attention.attention.v_bias", "H")),
		linear("attention.output.dense", "H", "H", "true"),
		linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"),
		norm("layernorm_before", "H", "true"), norm("layernorm_after", "H", "true")), "H", h, "I", i)
}

// clipAttn is a CLIP attention under pre ("self_attn."): q, k, v and
// out projections of width h, all biased.
func clipAttn(pre, h string) []T {
	return renameSyms(cat(linear(pre+"q_proj", "H", "H", "true"), linear(pre+"k_proj", "H", "H", "true"),
		linear(pre+"v_proj", "H", "H", "true"), linear(pre+"out_proj", "H", "H", "true")), "H", h)
}

// clipLayer is a CLIP encoder layer of width h and FFN i: clipAttn,
// fc1/fc2 and the two LayerNorms.
func clipLayer(h, i string) []T {
	return cat(clipAttn("self_attn.", h), renameSyms(cat(plainMLP("mlp.fc1", "mlp.fc2", "I", "true"),
		norm("layer_norm1", "H", "true"), norm("layer_norm2", "H", "true")), "H", h, "I", i))
}
