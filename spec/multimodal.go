package spec

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Multimodal models: vision-language models that compose a vision tower
// with a registered text family (vlm), and the others that carry their own
// text model (BLIP, Kosmos-2, Florence-2, Phi-4-multimodal, …).

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
	}, vTower(vcfg, "768", "12", "3072", "16"), []Def{
		{Sym: "vS", Field: "vision_config.image_size", Default: "224", Desc: "image side, pixels", Pos: true},
		channels("vC", "vision_config.num_channels"),
		derived("vN", "(vS/vP)*(vS/vP)"),
	})
}

// evollaFF is Evolla's feed-forward under pre: a layer norm and two
// bias-free linears of mult·dim.
func evollaFF(pre, dim, mult string) []T {
	return cat(norm(pre+"norm", dim, "true"), linear(pre+"fc1", mult+"*"+dim, dim, ""), linear(pre+"fc2", dim, mult+"*"+dim, ""))
}

// davitBlock is one DaViT block of a stage (stage l, C channels): a
// spatial (window attention) and a channel-attention half, each with
// depthwise 3×3 position convs, layer norms and an MLP of mlp_ratio·C.
func davitBlock(pre string) []T {
	half := func(p, attn string) []T {
		return cat(
			[]T{{Name: p + "conv1.weight", Shape: []string{"C", "1", "3", "3"}, Role: RoleLinear}}, vec(p+"conv1.bias", "C"),
			norm(p+"norm1", "C", "true"), linear(p+attn+".qkv", "3*C", "C", "vQKVBias"), linear(p+attn+".proj", "C", "C", "true"),
			[]T{{Name: p + "conv2.weight", Shape: []string{"C", "1", "3", "3"}, Role: RoleLinear}}, vec(p+"conv2.bias", "C"),
			norm(p+"norm2", "C", "true"), linear(p+"ffn.fc1", "C*vMlp/1000", "C", "true"), linear(p+"ffn.fc2", "C", "C*vMlp/1000", "true"))
	}
	return renameSyms(cat(half(pre+"spatial_block.", "window_attn"), half(pre+"channel_block.", "channel_attn")), "C", "at(vE, l)")
}

// kosmosTextDefs are Kosmos2TextConfig's fields (and Kosmos-2.5's) under
// text_config, with the class's defaults.
func kosmosTextDefs(v, h, l, heads, ffn string) []Def {
	return append([]Def{
		{Sym: "V", Field: "text_config.vocab_size", Default: v, Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: "text_config.embed_dim", Default: h, Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
		{Sym: "L", Field: "text_config.layers", Default: l, Legend: "L", Desc: "text blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "heads", Field: "text_config.attention_heads", Default: heads, Desc: "attention heads", Show: true, Pos: true, Divides: "H"},
		{Sym: "I", Field: "text_config.ffn_dim", Default: ffn, Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
		flag("cross", "text_config.add_cross_attention", "false", "each block has cross-attention to an encoder"),
		// The head's tie: Kosmos2TextForCausalLM's config (PretrainedConfig's
		// default true), or the composite's.
	}, writerTie("text_config.tie_word_embeddings", "tie_word_embeddings", "true", "tiedTop || tiedText")...)
}

// kosmosAttn is a Kosmos text attention under pre: q, k, v, out, all
// biased, H wide; inner adds the sub-LayerNorm before out_proj (Kosmos-2's
// self-attention).
func kosmosAttn(pre string, inner bool) []T {
	ts := cat(linear(pre+"q_proj", "H", "H", "true"), linear(pre+"k_proj", "H", "H", "true"), linear(pre+"v_proj", "H", "H", "true"),
		linear(pre+"out_proj", "H", "H", "true"))
	if inner {
		ts = cat(ts, norm(pre+"inner_attn_ln", "H", "true"))
	}
	return ts
}

// kosmosText is the Kosmos text decoder under text_model.: pre-LN blocks
// (self-attention, optional cross-attention, an FFN with its own
// LayerNorm of width I), sinusoidal positions (not stored), a final
// LayerNorm and the tied head; segments adds Kosmos-2.5's segment
// embedding.
func kosmosText(inner, segments bool) ([]T, Stack, []T) {
	global := embed("text_model.model.embed_tokens.weight")
	if segments {
		global = append(global, T{Name: "text_model.model.segment_emb.weight", Shape: []string{"2", "H"}, Role: RoleEmbedding})
	}
	layer := cat(kosmosAttn("self_attn.", inner), norm("self_attn_layer_norm", "H", "true"),
		when("cross", kosmosAttn("encoder_attn.", false), norm("encoder_attn_layer_norm", "H", "true")),
		linear("ffn.fc1", "I", "H", "true"), linear("ffn.fc2", "H", "I", "true"), norm("ffn.ffn_layernorm", "I", "true"),
		norm("final_layer_norm", "H", "true"))
	final := cat(norm("text_model.model.layer_norm", "H", "true"),
		[]T{{Name: "text_model.lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}})
	return global, Stack{Prefix: "text_model.model.layers.{l}.", Layers: "L", Tensors: layer}, final
}

// kosmosProjection is the image-to-text projection: a dense layer from
// the tower's width, latent_query_num learned queries and one attention
// over them.
func kosmosProjection(nq string) ([]Def, []T) {
	return []Def{opt("nq", "latent_query_num", nq)},
		cat(linear("image_to_text_projection.dense", "H", "vH", "true"),
			[]T{{Name: "image_to_text_projection.latent_query", Shape: []string{"nq", "H"}, Role: RoleEmbedding}},
			kosmosAttn("image_to_text_projection.x_attn.", false))
}

// phi4Audio is Phi-4-multimodal's Conformer audio encoder under pre:
// mean/variance normalisation buffers, a NeMo subsampling (a strided conv,
// then depthwise and pointwise convs per further halving of
// time_reduction), a relative-position bias table and num_blocks
// Conformer blocks (macaron FFNs around attention and a GLU conv module).
func phi4Audio(pre string) ([]Def, []T, Stack) {
	a := "audio_config."
	defs := []Def{
		{Sym: "aH", Field: a + "hidden_size", Default: "1024", Legend: "aH", Desc: "audio encoder width", Show: true, Pos: true},
		{Sym: "aL", Field: a + "num_blocks", Default: "24", Legend: "aL", Desc: "Conformer blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "aI", Field: a + "intermediate_size", Default: "1536", Legend: "aI", Desc: "audio FFN inner width", Show: true, Pos: true},
		{Sym: "aHeads", Field: a + "num_attention_heads", Default: "16", Desc: "audio attention heads", Pos: true},
		opt("aIn", a+"input_size", "80"), opt("aC", a+"nemo_conv_channels", "1024"),
		{Sym: "aTR", Field: a + "time_reduction", Default: "8", Desc: "time reduction of the subsampling", Pos: true, Max: 2048},
		// The subsampling stages: int(log2(time_reduction)).
		derived("aS", "log2(aTR)"),
		// nemo_final_size: input_size halved (rounding up) once per stage,
		// as 4.x computes it whatever config.json says; 5.x reads it.
		derived("aFc", "(aIn + pow(2, aS) - 1) / pow(2, aS)"),
		{Sym: "aFs", Field: a + "nemo_final_size", Default: "aFc", Null: "aFc", Desc: "nemo_final_size (read by 5.x)", Pos: true},
		derived("aF", "tf5 ? aFs : aFc"),
		opt("aEPW", a+"ext_pw_out_channel", "1024"), opt("aDSC", a+"depthwise_seperable_out_channel|"+a+"depthwise_separable_out_channel", "1024"),
		opt("aDM", a+"depthwise_multiplier", "1"), opt("aK", a+"kernel_size", "3"),
		opt("aBD", a+"bias_max_distance", "1000"), flag("aSym", a+"bias_symmetric", "false", "the audio relative bias is symmetric"),
		opt("aDR", a+"downsample_rate", "1"),
	}
	enc := pre + "encoder."
	global := []T{
		{Name: enc + "encoder_embedding.global_mean", Shape: []string{"aIn"}, Role: RoleNorm},
		{Name: enc + "encoder_embedding.global_invstd", Shape: []string{"aIn"}, Role: RoleNorm},
		// conv.0 a strided conv from one channel; then per further stage a
		// depthwise conv (3k+2) and a pointwise one (3k+3); the others are
		// activations.
		{Name: enc + "embed.conv.{e}.weight", Experts: "max(3*aS-2, 1)", PerCopy: true, If: "e % 3 != 1", Role: RoleLinear,
			Shape: []string{"aC", "e > 0 && e % 3 == 0 ? aC : 1", "e > 0 && e % 3 == 0 ? 1 : 3", "e > 0 && e % 3 == 0 ? 1 : 3"}},
		{Name: enc + "embed.conv.{e}.bias", Experts: "max(3*aS-2, 1)", PerCopy: true, If: "e % 3 != 1", Role: RoleBias, Shape: []string{"aC"}},
		{Name: enc + "relative_attention_bias_layer.bias_values.weight", Shape: []string{"aSym ? aBD : 2*aBD", "aHeads"}, Role: RoleEmbedding},
	}
	global = cat(global, linear(enc+"embed.out", "aH", "aC*aF", "true"))
	ffn := func(p string) []T {
		return cat(norm(p+"layer_norm", "aH", "true"), linear(p+"gate_up_proj", "2*aI", "aH", "true"), linear(p+"down_proj", "aH", "aI", "true"))
	}
	conv1d := func(name, out, in, k string) []T {
		return []T{{Name: name + ".weight", Shape: []string{out, in, k}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
	}
	layer := cat(ffn("feed_forward_in."),
		renameSyms(cat(linear("self_attn.q_proj", "H", "H", "true"), linear("self_attn.k_proj", "H", "H", "true"),
			linear("self_attn.v_proj", "H", "H", "true"), linear("self_attn.o_proj", "H", "H", "true")), "H", "aH"),
		norm("conv.layer_norm", "aH", "true"),
		conv1d("conv.glu.ext_pw_conv_1d", "2*aEPW", "aH", "1"),
		[]T{{Name: "conv.glu.b1", Shape: []string{"1", "aEPW", "1"}, Role: RoleBias}, {Name: "conv.glu.b2", Shape: []string{"1", "aEPW", "1"}, Role: RoleBias}},
		conv1d("conv.dw_sep_conv_1d.dw_conv", "aH*aDM", "1", "aK"), conv1d("conv.dw_sep_conv_1d.pw_conv", "aDSC", "aH*aDM", "1"),
		conv1d("conv.ext_pw_conv_1d", "aEPW", "aH", "1"),
		ffn("feed_forward_out."), norm("layer_norm_att", "aH", "true"), norm("layer_norm", "aH", "true"))
	return defs, global, Stack{Name: "audio", Prefix: enc + "encoders.{l}.", Layers: "aL", Tensors: layer}
}

// Vision-language models: a vision tower, a projector, and a language
// model. The language model is whatever family text_config.model_type
// names (Llama, Mistral, Qwen2, Gemma, …), its names re-rooted under the
// VLM's ("model." → "language_model.model."), its fields read from
// text_config with that family's defaults. The vision side is a shared
// tower block (CLIP, SigLIP, Pixtral, chosen by vision_config.model_type)
// and a projector row.

// vlm is a vision-language family: the vision side as a Family's Defs,
// Global, Stacks and Final (symbols v…, mm_…), and the language model's
// place.
type vlm struct {
	Family
	// tie5 is the rule transformers 5.x ties the head by (writerTie):
	// "" the top level, else an expression of tiedTop and tiedText.
	tie5 string
	// tieTop, when set, is the default of the top-level
	// tie_word_embeddings, which then does not fall back to the text
	// config's (Qwen2.5-Omni's thinker: false).
	tieTop string
	text   string      // text_config's default model_type
	textF  *Family     // the language model, when it is the VLM's own (Qwen2-VL)
	reroot [][2]string // the language model's names: {"model.", "language_model.model."}
	// flat: the text fields may also sit at the top level (Qwen2-VL's
	// configs before text_config), tried after text_config's.
	flat bool
	// baseVariants are other layouts of the base model class alone
	// (Task.Variants).
	baseVariants [][][2]string
	// alias maps a text model_type without a family of its own to the
	// family whose layout it has, with the text config class's defaults
	// where they differ (symbol → default expression).
	// head, when set, replaces the language model's LM head (Ovis2 sizes
	// it from its own top-level fields).
	head     []T
	alias    map[string]string
	defaults map[string]string
	// tasks are task classes beyond the base model (Qwen3.5's sequence
	// and token classifiers over the whole VLM).
	tasks []Task
	cache sync.Map // text model_type → *Family
}

// register makes the VLM a table row (named in Architectures) whose
// tensors are those of its composition with a language model.
func (v *vlm) register() *Family {
	f := &Family{Name: v.Name, Class: v.Class, ConfigClass: v.ConfigClass, ModelTypes: v.ModelTypes,
		Causal: v.Causal, SeqCls: "-", compose: v.compose}
	if v.tasks != nil {
		f.Tasks = vlmTasks(v.reroot, v.tasks, v.baseVariants...)
	}
	return f
}

// compose builds the family for c: the VLM with the language model
// text_config.model_type names.
func (v *vlm) compose(c *Config) (*Family, error) {
	tf, mt := v.textF, ""
	if tf == nil {
		mt = v.text
		if raw, ok := c.lookup("text_config.model_type"); ok {
			var s string
			if json.Unmarshal(raw, &s) == nil && s != "" {
				mt = s
			}
		}
		if f, ok := v.cache.Load(mt); ok {
			return f.(*Family), nil
		}
		of := mt
		if a, ok := v.alias[mt]; ok {
			of = a
		}
		tf = familyOf(of)
		if tf == nil || tf.compose != nil {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
				Reason: fmt.Sprintf("its language model, text_config.model_type %q, has no spec", mt)}
		}
	} else if f, ok := v.cache.Load(""); ok {
		return f.(*Family), nil
	}
	f := &Family{Name: v.Name + " + " + tf.Name, Class: v.Class, ConfigClass: v.ConfigClass, ModelTypes: v.ModelTypes,
		Causal: v.Causal, SeqCls: "-", Variants: v.Variants, Tasks: vlmTasks(v.reroot, v.tasks, v.baseVariants...),
		BasePrefix: v.BasePrefix,
		Embed:      rebase(tf.Embed, v.reroot), Head: rebase(tf.Head, v.reroot)}
	for _, d := range tf.Defs {
		if d.Field != "" {
			var alts []string
			for _, a := range strings.Split(d.Field, "|") {
				alts = append(alts, "text_config."+a)
				if v.flat {
					alts = append(alts, a)
				}
			}
			d.Field = strings.Join(alts, "|")
		}
		if x, ok := v.defaults[d.Sym]; ok {
			d.Default = x
		}
		if x, ok := textClassDefaults[mt][d.Sym]; ok && d.Default == "" {
			d.Default = x
		}
		if d.Sym == "tied" {
			ds := writerTie(d.Field, "tie_word_embeddings", d.Default, v.tie5)
			if v.tieTop != "" {
				ds[1].Field, ds[1].Default = "tie_word_embeddings", v.tieTop
			}
			f.Defs = append(f.Defs, ds...)
			continue
		}
		f.Defs = append(f.Defs, d)
	}
	f.Defs = append(f.Defs, v.Defs...)
	f.Global = cat(rerootTs(tf.Global, v.reroot), v.Global)
	for _, s := range tf.Stacks {
		s.Prefix = rebase(s.Prefix, v.reroot)
		f.Stacks = append(f.Stacks, s)
	}
	f.Stacks = append(f.Stacks, v.Stacks...)
	final := rerootTs(tf.Final, v.reroot)
	if v.head != nil {
		final = slices.DeleteFunc(final, func(t T) bool { return t.Role == RoleHead })
		final = cat(final, v.head)
	}
	f.Final = cat(final, v.Final)
	// What transformers ignores on load in the language model, re-rooted
	// (GLM-4.5's multi-token-prediction layer).
	for _, ig := range tf.Ignore {
		for _, r := range v.reroot {
			if from := "^" + regexp.QuoteMeta(r[0]); strings.HasPrefix(ig, from) {
				ig = "^" + regexp.QuoteMeta(r[1]) + ig[len(from):]
				break
			}
		}
		f.Ignore = append(f.Ignore, ig)
	}
	if err := f.compile(); err != nil {
		return nil, fmt.Errorf("spec: %s with %s: %w", v.Name, tf.Name, err)
	}
	v.cache.Store(mt, f)
	return f, nil
}

// writerTie is the tie of a composite model's LM head, which depends on
// the writer when its text config and the top level disagree: 4.x ties
// by the text config (text, its class's default def); 5.x by the top
// level (top, else the text config's) unless tie5 gives its rule in
// tiedTop and tiedText (BLIP-2 and Llama 4 keep the text config's,
// BLIP and Kosmos-2 tie when either says so). Plan notes a
// disagreement.
func writerTie(text, top, def, tie5 string) []Def {
	if tie5 == "" {
		tie5 = "tiedTop"
	}
	return []Def{
		{Sym: "tiedText", Field: text, Type: Bool, Default: def, Desc: "text_config's tie_word_embeddings (transformers 4.x ties by it)"},
		{Sym: "tiedTop", Field: top + "|" + text, Type: Bool, Default: def, Desc: "tie_word_embeddings (transformers 5.x ties by it)"},
		derived("tied", "tf5 ? ("+tie5+") : tiedText"),
	}
}

func rerootTs(ts []T, pairs [][2]string) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		out[i].Name = rebase(out[i].Name, pairs)
	}
	return out
}

// Where the language model's names go.
var (
	// legacyLM is 4.x's layout of the LLaVA family: the whole causal LM
	// under language_model.
	legacyLM = [][2]string{{"model.", "language_model.model."}, {"lm_head.", "language_model.lm_head."}}
	// newLM puts the base model under model.language_model, the head on top.
	newLM = [][2]string{{"model.", "model.language_model."}}
	// textLM is Idefics2/3's: model.text_model.
	textLM = [][2]string{{"model.", "model.text_model."}}
)

// withTower is a VLM row: the tower under pre/pixPre with default tower
// mt, and the projector's definitions and tensors.
func withTower(v *vlm, mt, pre, pixPre string, defs []Def, proj []T) *Family {
	g, s, f := visionTower(pre, pixPre)
	v.Defs = cat(towerDefs(mt), defs)
	v.Global, v.Stacks, v.Final = cat(g, v.Global), cat(s, v.Stacks), cat(f, proj)
	return v.register()
}

// llavaProjector is LLaVA's two-layer MLP from the tower's width to the
// language model's, biased unless multimodal_projector_bias is false.
// Its input is the concatenation of the vision_feature_layer layers (one,
// or a list).
func llavaProjector(pre string, biasDefault string) ([]Def, []T) {
	return []Def{flag("mm_bias", "multimodal_projector_bias", biasDefault, "the projector's linears have biases"),
			{Sym: "vk", Field: "vision_feature_layer", Type: Count, Default: "1", Null: "=", Desc: "vision layers the projector reads"}},
		cat(linear(pre+"linear_1", "H", "vH*vk", "mm_bias"), linear(pre+"linear_2", "H", "H", "mm_bias"))
}

// towerOnly5x is the 5.x layout of a tower under vision_tower.
var towerOnly5x = [][][2]string{{{"vision_tower.vision_model.", "vision_tower."}}}

func llava(name, class, mt, text, tower string, extra []T) *Family {
	d, t := llavaProjector("multi_modal_projector.", "true")
	return withTower(&vlm{Family: Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: class + "ForConditionalGeneration",
		Variants: towerOnly5x}, text: text, reroot: legacyLM},
		tower, "vision_tower.vision_model.", "vision_tower.", d, cat(t, extra))
}

var imageNewline = []T{{Name: "image_newline", Shape: []string{"H"}, Role: RoleNorm}}

func gemma3(name, mt string) *Family {
	return withTower(&vlm{Family: Family{Name: name, Class: "Gemma3", ConfigClass: "Gemma3Config", ModelTypes: []string{mt}, Causal: "Gemma3ForConditionalGeneration",
		Variants: [][][2]string{
			{{"vision_tower.vision_model.", "vision_tower."}},
			// ShieldGemma2 in 5.x: everything under model.
			{{"vision_tower.vision_model.", "model.vision_tower."}, {"language_model.model.", "model.language_model.model."},
				{"language_model.lm_head.", "lm_head."}, {"multi_modal_projector.", "model.multi_modal_projector."}},
		}}, text: "gemma3_text", reroot: legacyLM, tasks: vlmClassifiers[:1]},
		"siglip_vision_model", "vision_tower.vision_model.", "vision_tower.",
		nil,
		cat([]T{{Name: "multi_modal_projector.mm_input_projection_weight", Shape: []string{"vH", "H"}, Role: RoleLinear}},
			norm("multi_modal_projector.mm_soft_emb_norm", "vH", "")))
}

func idefics3(name, class, mt, tower string) *Family {
	return withTower(&vlm{Family: Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: class + "ForConditionalGeneration"},
		text: "llama", reroot: textLM},
		tower, "model.vision_model.", "model.vision_model.",
		[]Def{opt("mm_s", "scale_factor", "2")},
		[]T{{Name: "model.connector.modality_projection.proj.weight", Shape: []string{"H", "vH*mm_s*mm_s"}, Role: RoleLinear}})
}

// qwenVLText is the language model of Qwen2-VL and Qwen2.5-VL: Qwen2's
// layout (q, k, v biases), with their text configs' defaults.
var qwenVLText = &Family{Name: "Qwen2-VL text", Class: "Qwen2VLText", SeqCls: "-",
	Defs:   cat(llamaDimsNoHD("8", ""), []Def{tie("false")}),
	Global: embed("model.embed_tokens.weight"),
	Stacks: decoderLayers(nil, llamaBlock("true", "", gatedMLP("mlp.", "I", ""))),
	Final:  cat(norm("model.norm", "H", ""), lmHead("lm_head.weight")),
	Embed:  "model.embed_tokens.weight", Head: "lm_head.weight",
}

// qwenVisual is the Qwen2-VL vision transformer under visual.: a 3-D patch
// embedding (temporal_patch_size frames), depth blocks of fused-qkv
// attention, and a merger of spatial_merge_size² patches to out. v25 is
// Qwen2.5-VL's: RMS norms and a gated MLP of intermediate_size.
func qwenVisual(v25 bool) ([]Def, []T, []Stack, []T) {
	defs := []Def{
		vDepth("32"),
		vPatch(vcfg, "14"),
		opt("vT", "vision_config.temporal_patch_size", "2"),
		opt("vC", "vision_config.in_channels", "3"),
		opt("vM", "vision_config.spatial_merge_size", "2"),
	}
	var block, merger []T
	if v25 {
		defs = append(defs,
			Def{Sym: "vH", Field: "vision_config.hidden_size", Default: "3584", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
			vFFN(vcfg, "3420"),
			Def{Sym: "vOut", Field: "vision_config.out_hidden_size", Default: "3584", Desc: "merger output width", Show: true, Pos: true})
		block = renameSyms(cat(norm("norm1", "H", ""), norm("norm2", "H", ""), linear("attn.qkv", "3*H", "H", "true"), linear("attn.proj", "H", "H", "true"),
			gatedMLP("mlp.", "vI", "true")), "H", "vH")
		merger = norm("visual.merger.ln_q", "vH", "")
	} else {
		defs = append(defs,
			Def{Sym: "vH", Field: "vision_config.embed_dim", Default: "1280", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
			Def{Sym: "vr", Field: "vision_config.mlp_ratio", Default: "4", Desc: "vision FFN width ratio", Pos: true},
			derived("vI", "vH*vr"),
			Def{Sym: "vOut", Field: "vision_config.hidden_size", Default: "3584", Desc: "merger output width", Show: true, Pos: true})
		block = renameSyms(cat(norm("norm1", "H", "true"), norm("norm2", "H", "true"), linear("attn.qkv", "3*H", "H", "true"), linear("attn.proj", "H", "H", "true"),
			plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH")
		merger = norm("visual.merger.ln_q", "vH", "true")
	}
	global := patchEmbed3D("visual.patch_embed.proj.weight")
	stacks := []Stack{{Name: "vision", Prefix: "visual.blocks.{l}.", Layers: "vL", Tensors: block}}
	final := cat(merger, linear("visual.merger.mlp.0", "vH*vM*vM", "vH*vM*vM", "true"), linear("visual.merger.mlp.2", "vOut", "vH*vM*vM", "true"))
	return defs, global, stacks, final
}

func qwenVL(name, class, mt string, v25 bool) *Family {
	d, g, s, f := qwenVisual(v25)
	v := &vlm{Family: Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: class + "ForConditionalGeneration",
		Defs: d, Global: g, Stacks: s, Final: f}, textF: qwenVLText, flat: true,
		// The base model class: 4.x writes it as the causal LM does
		// (model., visual.), 5.x as the module tree is (language_model.).
		baseVariants: [][][2]string{{{"model.", "language_model."}}}}
	return v.register()
}

// mllamaText is Mllama's language model: Llama layers, with cross-attention
// (q/k norms, tanh gates) instead of self-attention at
// cross_attention_layers, and 8 extra embedding rows for image tokens.
var mllamaText = &Family{Name: "Mllama text", Class: "MllamaText", SeqCls: "-",
	Defs: cat(sized(llamaDimsNoHD("8", ""), "V", "128256", "H", "4096", "L", "40", "heads", "32", "I", "14336"), []Def{
		// MllamaTextConfig: absent or null, [3, 8, 13, …, 38].
		listOf("xl", "cross_attention_layers", mllamaCross, "layers with cross-attention to the image"),
		tie("false")}),
	Global: []T{{Name: "model.embed_tokens.weight", Shape: []string{"V+8", "H"}, Role: RoleEmbedding}},
	Stacks: decoderLayers([]Kind{{Name: "cross", If: "in(l, xl)"}, {Name: "self"}},
		norm("input_layernorm", "H", ""),
		when("self", attn("self_attn.", "", "")),
		when("cross", attn("cross_attn.", "", "", qkNorm("cross_attn.", "d", "d")),
			[]T{{Name: "cross_attn_attn_gate", Shape: []string{"1"}, Role: RoleNorm}, {Name: "cross_attn_mlp_gate", Shape: []string{"1"}, Role: RoleNorm}}),
		norm("post_attention_layernorm", "H", ""), gatedMLP("mlp.", "I", "")),
	Final: cat(norm("model.norm", "H", ""), lmHead("lm_head.weight")),
	Embed: "model.embed_tokens.weight", Head: "lm_head.weight",
}

// mllamaVisionLayer is a layer of Mllama's tiled ViT (the global ones add
// tanh gates).
var mllamaVisionLayer = renameSyms(cat(
	norm("input_layernorm", "H", "true"), attn("self_attn.", "", ""), norm("post_attention_layernorm", "H", "true"),
	plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH", "heads*d", "vH", "kv*d", "vH")

// qwen3VLText is Qwen3-VL's language model: Qwen3's layout (q/k norms),
// Qwen3VLTextConfig's defaults.
var qwen3VLText = &Family{Name: "Qwen3-VL text", Class: "Qwen3VLText", SeqCls: "-",
	Defs:   cat(llamaDims("128", "", "32", "heads"), []Def{tie("false"), attnBiasFlag}),
	Global: embed("model.embed_tokens.weight"),
	Stacks: decoderLayers(nil, norm("input_layernorm", "H", ""), attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")),
		norm("post_attention_layernorm", "H", ""), gatedMLP("mlp.", "I", "")),
	Final: cat(norm("model.norm", "H", ""), lmHead("lm_head.weight")),
	Embed: "model.embed_tokens.weight", Head: "lm_head.weight",
}

// qwen3Merger is a Qwen3-VL patch merger under pre: a LayerNorm over vH
// (or, after the shuffle, vH·m²), two linears to out.
func qwen3Merger(pre, normDim string) []T {
	return cat(norm(pre+"norm", normDim, "true"), linear(pre+"linear_fc1", "vH*vM*vM", "vH*vM*vM", "true"), linear(pre+"linear_fc2", "vOut", "vH*vM*vM", "true"))
}

// qwen3VLMoeText is Qwen3-VL-MoE's language model.
var qwen3VLMoeText = &Family{Name: "Qwen3-VL-MoE text", Class: "Qwen3VLMoeText", SeqCls: "-",
	Defs: cat(llamaDims("128", "", "16", "heads"), experts("num_experts|num_local_experts", "60", "moe_intermediate_size", "1408", "num_experts_per_tok", "4"),
		[]Def{tie("false"), attnBiasFlag, field("step", "decoder_sparse_step", "1", "every step-th block is sparse"), list("mlp_only", "mlp_only_layers", "no block is forced dense")}),
	Global: embed("model.embed_tokens.weight"),
	Stacks: decoderLayers(qwenMoE, norm("input_layernorm", "H", ""), attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")),
		norm("post_attention_layernorm", "H", ""),
		when("sparse", router("mlp.gate.weight"),
			[]T{{Name: "mlp.experts.gate_up_proj", Shape: []string{"E", "v5 ? 2*Im : H", "v5 ? H : 2*Im"}, Role: RoleLinear},
				{Name: "mlp.experts.down_proj", Shape: []string{"E", "v5 ? H : Im", "v5 ? Im : H"}, Role: RoleLinear}}),
		when("dense", gatedMLP("mlp.", "I", ""))),
	Final: cat(norm("model.norm", "H", ""), lmHead("lm_head.weight")),
	Embed: "model.embed_tokens.weight", Head: "lm_head.weight",
}

// qwen3VLVision is Qwen3-VL's vision side as a VLM row.
func qwen3VLVision(name, class, mt string) Family {
	return Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: class + "ForConditionalGeneration",
		Defs: []Def{
			{Sym: "vH", Field: "vision_config.hidden_size", Default: "1152", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
			vDepth("27"),
			vFFN(vcfg, "4304"),
			vPatch(vcfg, "16"),
			opt("vT", "vision_config.temporal_patch_size", "2"), opt("vC", "vision_config.in_channels", "3"),
			opt("vM", "vision_config.spatial_merge_size", "2"),
			{Sym: "vOut", Field: "vision_config.out_hidden_size", Default: "3584", Desc: "merger output width", Show: true, Pos: true},
			opt("vPos", "vision_config.num_position_embeddings", "2304"),
			// An empty list is no DeepStack merger (Count refuses it).
			{Sym: "vDSl", Field: "vision_config.deepstack_visual_indexes", Type: List, Default: "list(8, 16, 24)", Desc: "layers feeding DeepStack mergers"},
			derived("vDS", "len(vDSl)"),
		},
		Global: cat(patchEmbed3D("model.visual.patch_embed.proj.weight"), []T{
			{Name: "model.visual.patch_embed.proj.bias", Shape: []string{"vH"}, Role: RoleBias},
			{Name: "model.visual.pos_embed.weight", Shape: []string{"vPos", "vH"}, Role: RoleEmbedding}}),
		Stacks: []Stack{
			{Name: "vision", Prefix: "model.visual.blocks.{l}.", Layers: "vL", Tensors: renameSyms(cat(
				norm("norm1", "H", "true"), norm("norm2", "H", "true"), linear("attn.qkv", "3*H", "H", "true"), linear("attn.proj", "H", "H", "true"),
				plainMLP("mlp.linear_fc1", "mlp.linear_fc2", "vI", "true")), "H", "vH")},
			{Name: "deepstack", Prefix: "model.visual.deepstack_merger_list.{l}.", Layers: "vDS", Tensors: qwen3Merger("", "vH*vM*vM")},
		},
		Final: qwen3Merger("model.visual.merger.", "vH"),
	}
}

// blipVision is the BLIP, BLIP-2 and InstructBLIP vision tower (with its
// class's defaults) under
// vision_model.: fused qkv (biased when qkv_bias), class and position
// embeddings with a batch axis.
func blipVision(h, l, i, p, img string) ([]Def, []T, Stack, []T) {
	defs := append(vTower(vcfg, h, l, i, p),
		opt("vS", "vision_config.image_size", img),
		flag("vqkv_bias", "vision_config.qkv_bias", "true", "the vision qkv has a bias"))
	global := []T{{Name: "vision_model.embeddings.class_embedding", Shape: []string{"1", "1", "vH"}, Role: RoleNorm},
		{Name: "vision_model.embeddings.patch_embedding.weight", Shape: []string{"vH", "3", "vP", "vP"}, Role: RoleLinear},
		{Name: "vision_model.embeddings.patch_embedding.bias", Shape: []string{"vH"}, Role: RoleBias},
		{Name: "vision_model.embeddings.position_embedding", Shape: []string{"1", "(vS/vP)*(vS/vP)+1", "vH"}, Role: RoleEmbedding}}
	stack := Stack{Name: "vision", Prefix: "vision_model.encoder.layers.{l}.", Layers: "vL", Tensors: renameSyms(cat(
		linear("self_attn.qkv", "3*H", "H", "vqkv_bias"), linear("self_attn.projection", "H", "H", "true"),
		norm("layer_norm1", "H", "true"), norm("layer_norm2", "H", "true"), plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH")}
	return defs, global, stack, norm("vision_model.post_layernorm", "vH", "true")
}

// qformerLayer is a Q-Former layer: BERT self-attention, cross-attention
// to the vision tower every cross_attention_frequency layers, and the
// query FFN, and the text FFN where text holds (InstructBLIP always,
// BLIP-2 with use_qformer_text_input).
func qformerLayer(text string) []T {
	att := func(pre, kv string) []T {
		return cat(linear(pre+"attention.query", "Q", "Q", "true"), linear(pre+"attention.key", "Q", kv, "true"),
			linear(pre+"attention.value", "Q", kv, "true"), linear(pre+"output.dense", "Q", "Q", "true"), norm(pre+"output.LayerNorm", "Q", "true"))
	}
	ts := cat(att("attention.", "Q"), when("cross", att("crossattention.", "qEnc")),
		linear("intermediate_query.dense", "qI", "Q", "true"), linear("output_query.dense", "Q", "qI", "true"), norm("output_query.LayerNorm", "Q", "true"))
	return cat(ts, when(text, linear("intermediate.dense", "qI", "Q", "true"), linear("output.dense", "Q", "qI", "true"), norm("output.LayerNorm", "Q", "true")))
}

var qformerDefs = []Def{
	{Sym: "Q", Field: "qformer_config.hidden_size", Default: "768", Legend: "Q", Desc: "Q-Former width", Show: true, Pos: true},
	{Sym: "qL", Field: "qformer_config.num_hidden_layers", Default: "12", Legend: "qL", Desc: "Q-Former layers", Show: true, Pos: true, Max: MaxLayers},
	{Sym: "qI", Field: "qformer_config.intermediate_size", Default: "3072", Desc: "Q-Former FFN inner width", Pos: true},
	opt("qFreq", "qformer_config.cross_attention_frequency", "2"),
	{Sym: "qEnc", Field: "qformer_config.encoder_hidden_size", Default: "1408", Desc: "width the Q-Former attends to", Pos: true},
	opt("qV", "qformer_config.vocab_size", "30522"), opt("qP", "qformer_config.max_position_embeddings", "512"),
	opt("nQ", "num_query_tokens", "32"),
	flag("qText", "qformer_config.use_qformer_text_input", "false", "the Q-Former layers have the text FFN"),
}

// blip2 is BLIP-2 (instruct false) or InstructBLIP (instruct: the Q-Former
// also reads the instruction, so it has embeddings and the text FFN).
func blip2(name, class, mt string, instruct bool) *Family {
	vd, vg, vs, vf := blipVision("1408", "39", "6144", "14", "224")
	global := cat(vg, []T{{Name: "query_tokens", Shape: []string{"1", "nQ", "Q"}, Role: RoleEmbedding}})
	final := cat(vf, linear("language_projection", "H", "Q", "true"))
	if instruct {
		global = cat(global, []T{{Name: "qformer.embeddings.word_embeddings.weight", Shape: []string{"qV", "Q"}, Role: RoleEmbedding},
			{Name: "qformer.embeddings.position_embeddings.weight", Shape: []string{"qP", "Q"}, Role: RoleEmbedding}},
			norm("qformer.embeddings.layernorm", "Q", "true"))
	} else {
		final = cat(final, norm("qformer.layernorm", "Q", "true"))
	}
	v := &vlm{Family: Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: class + "ForConditionalGeneration",
		Defs:   cat(vd, qformerDefs),
		Global: global,
		Stacks: []Stack{vs, qformerStack("qformer.", map[bool]string{true: "true", false: "qText"}[instruct])},
		Final:  final,
	}, text: "opt", reroot: legacyLM, tie5: "tiedText"}
	blip2Classes(v, instruct)
	return v.register()
}

// glm4vText is GLM-4V's language model: GLM-4's sandwich norms, fused
// gate_up, q/k/v biases (Glm4vTextConfig's attention_bias true).
var glm4vText = &Family{Name: "GLM-4V text", Class: "Glm4vText", SeqCls: "-",
	Defs:   cat(llamaDimsNoHD("2", ""), []Def{tie("false"), flag("attention_bias", "attention_bias", "true", "q, k and v projections have biases")}),
	Global: embed("model.embed_tokens.weight"),
	Stacks: decoderLayers(nil, norm("input_layernorm", "H", ""), attn("self_attn.", "attention_bias", ""),
		norm("post_self_attn_layernorm", "H", ""), norm("post_attention_layernorm", "H", ""),
		linear("mlp.gate_up_proj", "2*I", "H", ""), linear("mlp.down_proj", "H", "I", ""), norm("post_mlp_layernorm", "H", "")),
	Final: cat(norm("model.norm", "H", ""), lmHead("lm_head.weight")),
	Embed: "model.embed_tokens.weight", Head: "lm_head.weight",
}

// glm4vVision is GLM-4V's vision side as a VLM row.
func glm4vVision(name, class, mt string) Family {
	return Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: class + "ForConditionalGeneration",
		Defs: []Def{
			{Sym: "vH", Field: "vision_config.hidden_size", Default: "1536", Legend: "vH", Desc: "vision width", Show: true, Pos: true},
			vDepth("24"),
			{Sym: "vI", Field: "vision_config.intermediate_size", Default: "13696", Legend: "vI", Desc: "merger MLP inner width", Show: true, Pos: true},
			{Sym: "vOut", Field: "vision_config.out_hidden_size", Default: "4096", Desc: "merger width (and the blocks' MLP)", Show: true, Pos: true},
			vPatch(vcfg, "14"),
			opt("vS", "vision_config.image_size", "336"), opt("vT", "vision_config.temporal_patch_size", "2"),
			opt("vC", "vision_config.in_channels", "3"), opt("vM", "vision_config.spatial_merge_size", "2"),
			flag("vbias", "vision_config.attention_bias", "false", "vision qkv has biases (proj never has one)"),
		},
		Global: cat(patchEmbed3D("model.visual.patch_embed.proj.weight"), []T{
			{Name: "model.visual.patch_embed.proj.bias", Shape: []string{"vH"}, Role: RoleBias},
			{Name: "model.visual.embeddings.position_embedding.weight", Shape: []string{"(vS/vP)*(vS/vP)", "vH"}, Role: RoleEmbedding}},
			norm("model.visual.post_conv_layernorm", "vH", "")),
		Stacks: []Stack{{Name: "vision", Prefix: "model.visual.blocks.{l}.", Layers: "vL", Tensors: renameSyms(cat(
			norm("norm1", "H", ""), norm("norm2", "H", ""), linear("attn.qkv", "3*H", "H", "vbias"), linear("attn.proj", "H", "H", ""),
			gatedMLP("mlp.", "vOut", "")), "H", "vH")}},
		Final: cat(norm("model.visual.post_layernorm", "vH", ""),
			[]T{{Name: "model.visual.downsample.weight", Shape: []string{"vOut", "vH", "vM", "vM"}, Role: RoleLinear},
				{Name: "model.visual.downsample.bias", Shape: []string{"vOut"}, Role: RoleBias}},
			linear("model.visual.merger.proj", "vOut", "vOut", ""), norm("model.visual.merger.post_projection_norm", "vOut", "true"),
			renameSyms(gatedMLP("model.visual.merger.", "vI", ""), "H", "vOut")),
	}
}

// blipText is BLIP's text decoder: a BERT whose layers all cross-attend
// to the vision tower (encoder_hidden_size wide), no token types.
func blipText() ([]Def, []T, Stack, []T) {
	defs := []Def{
		{Sym: "V", Field: "text_config.vocab_size", Default: "30524", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: "text_config.hidden_size", Default: "768", Legend: "H", Desc: "text width", Show: true, Pos: true},
		{Sym: "L", Field: "text_config.num_hidden_layers", Default: "12", Legend: "L", Desc: "text layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "I", Field: "text_config.intermediate_size", Default: "3072", Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
		{Sym: "P", Field: "text_config.max_position_embeddings", Default: "512", Legend: "P", Desc: "learned positions", Show: true, Pos: true},
		{Sym: "enc", Field: "text_config.encoder_hidden_size", Default: "768", Desc: "width the text cross-attends to", Pos: true},
		{Sym: "heads", Field: "text_config.num_attention_heads", Default: "8", Desc: "text attention heads", Pos: true},
		derived("d", "H/heads"),
	}
	defs = cat(defs, writerTie("text_config.tie_word_embeddings", "tie_word_embeddings", "true", "tiedTop || tiedText"))
	pre := "text_decoder.bert."
	global := []T{{Name: pre + "embeddings.word_embeddings.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
		{Name: pre + "embeddings.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding}}
	global = cat(global, norm(pre+"embeddings.LayerNorm", "H", "true"))
	layer := cat(bertAttn("attention."), norm("attention.output.LayerNorm", "H", "true"),
		linear("crossattention.self.query", "H", "H", "true"), linear("crossattention.self.key", "H", "enc", "true"),
		linear("crossattention.self.value", "H", "enc", "true"), linear("crossattention.output.dense", "H", "H", "true"),
		norm("crossattention.output.LayerNorm", "H", "true"),
		linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))
	final := cat([]T{{Name: "text_decoder.cls.predictions.bias", Shape: []string{"V"}, Role: RoleBias}},
		linear("text_decoder.cls.predictions.transform.dense", "H", "H", "true"), norm("text_decoder.cls.predictions.transform.LayerNorm", "H", "true"),
		[]T{{Name: "text_decoder.cls.predictions.decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "text_decoder.cls.predictions.decoder.bias", Shape: []string{"V"}, Role: RoleBias, If: "tf5 && !tied"}})
	return defs, global, Stack{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: layer}, final
}

// samDefs are a SAM ViT's fields under cfg ("vision_config."), symbols
// prefixed s: width, layers, heads, MLP width, image and patch, window,
// the global-attention layers, the neck's output channels.
func samDefs(cfg string) []Def {
	return []Def{
		{Sym: "sH", Field: cfg + "hidden_size", Default: "768", Legend: "sH", Desc: "SAM tower width", Show: true, Pos: true},
		{Sym: "sL", Field: cfg + "num_hidden_layers", Default: "12", Legend: "sL", Desc: "SAM tower layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "sHeads", Field: cfg + "num_attention_heads", Default: "12", Desc: "SAM attention heads", Pos: true, Divides: "sH"},
		{Sym: "sI", Field: cfg + "mlp_dim", Default: "3072", Desc: "SAM MLP inner width", Pos: true},
		opt("sS", cfg+"image_size", "1024"), opt("sP", cfg+"patch_size", "16"), opt("sC", cfg+"num_channels", "3"),
		opt("sW", cfg+"window_size", "14"), opt("sOut", cfg+"output_channels", "256"),
		list("sGlobal", cfg+"global_attn_indexes", "layers with global attention"),
		flag("sQKVBias", cfg+"qkv_bias", "true", "SAM qkv has a bias"),
		flag("sAbs", cfg+"use_abs_pos", "true", "SAM absolute positions"),
		flag("sRel", cfg+"use_rel_pos", "true", "SAM relative positions"),
	}
}

// samTower is a SAM ViT under pre with its neck: windowed attention with
// relative-position tables of 2·window−1 rows, 2·(image/patch)−1 in the
// global layers.
func samTower(pre string) ([]T, Stack, []T) {
	global := []T{{Name: pre + "patch_embed.projection.weight", Shape: []string{"sH", "sC", "sP", "sP"}, Role: RoleLinear},
		{Name: pre + "patch_embed.projection.bias", Shape: []string{"sH"}, Role: RoleBias},
		{Name: pre + "pos_embed", Shape: []string{"1", "sS/sP", "sS/sP", "sH"}, Role: RoleEmbedding, If: "sAbs"}}
	layer := cat(norm("layer_norm1", "sH", "true"), norm("layer_norm2", "sH", "true"),
		linear("attn.qkv", "3*sH", "sH", "sQKVBias"), linear("attn.proj", "sH", "sH", "true"),
		[]T{{Name: "attn.rel_pos_h", Shape: []string{"in(l, sGlobal) ? 2*(sS/sP)-1 : 2*sW-1", "sH/sHeads"}, Role: RoleEmbedding, If: "sRel"},
			{Name: "attn.rel_pos_w", Shape: []string{"in(l, sGlobal) ? 2*(sS/sP)-1 : 2*sW-1", "sH/sHeads"}, Role: RoleEmbedding, If: "sRel"}},
		linear("mlp.lin1", "sI", "sH", "true"), linear("mlp.lin2", "sH", "sI", "true"))
	neck := cat([]T{{Name: pre + "neck.conv1.weight", Shape: []string{"sOut", "sH", "1", "1"}, Role: RoleLinear}}, norm(pre+"neck.layer_norm1", "sOut", "true"),
		[]T{{Name: pre + "neck.conv2.weight", Shape: []string{"sOut", "sOut", "3", "3"}, Role: RoleLinear}}, norm(pre+"neck.layer_norm2", "sOut", "true"))
	return global, Stack{Name: "vision", Prefix: pre + "layers.{l}.", Layers: "sL", Tensors: layer}, neck
}

// t5Attn is a T5-style attention under pre: query, key, value [inner, h]
// and output [h, inner], no biases.
func t5Attn(pre, inner, h string) []T {
	return cat(linear(pre+"query", inner, h, ""), linear(pre+"key", inner, h, ""),
		linear(pre+"value", inner, h, ""), linear(pre+"output", h, inner, ""))
}

// textClassDefaults are the core dimensions of the text config classes
// (LlamaConfig's 4096, …), which the text families require at the top
// level of a config but which a VLM's text_config may leave out, as
// transformers fills them from the class: LLaVA-1.5's text_config lists
// only what differs from LlamaConfig.
var textClassDefaults = map[string]map[string]string{
	"llama":       {"V": "32000", "H": "4096", "L": "32", "heads": "32", "I": "11008"},
	"mistral":     {"V": "32000", "H": "4096", "L": "32", "heads": "32", "I": "14336"},
	"qwen2":       {"V": "151936", "H": "4096", "L": "32", "heads": "32", "I": "22016"},
	"gemma":       {"V": "256000", "H": "3072", "L": "28", "heads": "16", "I": "24576"},
	"gemma2":      {"V": "256000", "H": "2304", "L": "26", "heads": "8", "I": "9216"},
	"gemma3_text": {"V": "262208", "H": "2304", "L": "26", "heads": "8", "I": "9216"},
}

var _ = register(
	func() *Family {
		return func() *Family {
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
		}()
	},
	func() *Family {
		return func() *Family {
			pe := "model.protein_encoder.model."
			rs := "model.protein_encoder.sequence_compressor_resampler."
			// Evolla: a Llama decoder whose every (L / aligner_num_add_layers)-th
			// layer adds a gated cross-attention to the protein (its adapter), a
			// SaProt (ESM) protein encoder, and a Perceiver resampler of
			// resampler_num_latents latents into the decoder's width. The SaProt
			// rotary inv_freq buffer is written per layer by transformers 4.x and
			// once, at the encoder, by 5.x.
			return &Family{Name: "Evolla", Class: "Evolla", ModelTypes: []string{"evolla", "EvollaModel"}, Causal: "EvollaForProteinText2Text", SeqCls: "-",
				Defs: cat(withDefault(withDefault(withDefault(withDefault(withDefault(llamaDims("H/heads", "H/heads", "8", "heads"), "V", "128256"), "H", "4096"),
					"L", "32"), "heads", "32"), "I", "14336"),
					[]Def{attnBiasFlag, mlpBiasFlag, tie("false"),
						opt("nadd", "aligner_num_add_layers", "8"), opt("aMult", "aligner_ffn_mult", "4"),
						flag("aBias", "aligner_enable_bias", "true", "the adapters' out projection has a bias"),
						opt("rDepth", "resampler_depth", "6"), opt("rDh", "resampler_dim_head", "64"), opt("rHeads", "resampler_heads", "8"),
						opt("rLat", "resampler_num_latents", "64"), opt("rMult", "resampler_ff_mult", "4"),
						{Sym: "pV", Field: "protein_encoder_config.vocab_size", Default: "446", Desc: "protein tokens", Pos: true},
						{Sym: "pH", Field: "protein_encoder_config.hidden_size", Default: "1280", Legend: "pH", Desc: "protein encoder width", Show: true, Pos: true},
						{Sym: "pL", Field: "protein_encoder_config.num_hidden_layers", Default: "33", Legend: "pL", Desc: "protein encoder layers", Show: true, Pos: true, Max: MaxLayers},
						{Sym: "pHeads", Field: "protein_encoder_config.num_attention_heads", Default: "20", Desc: "protein encoder heads", Pos: true, Divides: "pH"},
						{Sym: "pI", Field: "protein_encoder_config.intermediate_size", Default: "5120", Desc: "protein encoder FFN width", Pos: true},
						opt("pP", "protein_encoder_config.max_position_embeddings", "1026"),
						{Sym: "pPos", Field: "protein_encoder_config.position_embedding_type", Type: Str, Default: "'rotary'", Null: "''", Desc: "protein encoder positions (null: none)"},
						flag("pLNBefore", "protein_encoder_config.emb_layer_norm_before", "false", "the protein embeddings have a layer norm"),
					}),
				Global: cat(embed("model.embed_tokens.weight"),
					[]T{{Name: pe + "embeddings.word_embeddings.weight", Shape: []string{"pV", "pH"}, Role: RoleEmbedding},
						{Name: pe + "embeddings.position_embeddings.weight", Shape: []string{"pP", "pH"}, Role: RoleEmbedding, If: "pPos == 'absolute'"}},
					when("pLNBefore", norm(pe+"embeddings.layer_norm", "pH", "true")),
					[]T{{Name: pe + "rotary_embeddings.inv_freq", Shape: []string{"pH/pHeads/2"}, Role: RoleNorm, AnyDType: true, If: "pPos == 'rotary' && tf5"}}),
				Stacks: []Stack{
					{Prefix: "model.layers.{l}.", Layers: "L", Kinds: []Kind{{Name: "aligned", If: "(l+1) % max(L/nadd, 1) == 0"}, {Name: "plain"}}, Tensors: cat(
						llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias")),
						when("aligned", norm("adapter.attention_norm", "H", ""), linear("adapter.query", "H", "H", "true"),
							linear("adapter.key_protein", "H", "H", "true"), linear("adapter.value_protein", "H", "H", "true"),
							linear("adapter.out_proj", "H", "H", "aBias"), evollaFF("adapter.ff.", "H", "aMult"),
							vec("adapter.gate_attention", "1"), vec("adapter.gate_ffw", "1")))},
					{Name: "protein", Prefix: pe + "encoder.layer.{l}.", Layers: "pL", Tensors: cat(
						renameSyms(cat(linear("attention.self.query", "H", "H", "true"), linear("attention.self.key", "H", "H", "true"),
							linear("attention.self.value", "H", "H", "true")), "H", "pH"),
						[]T{{Name: "attention.self.rotary_embeddings.inv_freq", Shape: []string{"pH/pHeads/2"}, Role: RoleNorm, AnyDType: true, If: "pPos == 'rotary' && !tf5"},
							{Name: "attention.self.distance_embedding.weight", Shape: []string{"2*pP-1", "pH/pHeads"}, Role: RoleEmbedding, If: "pPos == 'relative_key' || pPos == 'relative_key_query'"}},
						renameSyms(linear("attention.output.dense", "H", "H", "true"), "H", "pH"), norm("attention.LayerNorm", "pH", "true"),
						renameSyms(cat(linear("intermediate.dense", "pI", "H", "true"), linear("output.dense", "H", "pI", "true")), "H", "pH"),
						norm("LayerNorm", "pH", "true"))},
					{Name: "resampler", Prefix: rs + "layers.{l}.", Layers: "rDepth", Tensors: cat(
						norm("0.norm_media", "pH", "true"), norm("0.norm_latents", "pH", "true"),
						linear("0.to_q", "rHeads*rDh", "pH", ""), linear("0.to_kv", "2*rHeads*rDh", "pH", ""), linear("0.to_out", "pH", "rHeads*rDh", ""),
						evollaFF("1.", "pH", "rMult"))},
				},
				Final: cat(norm(pe+"encoder.emb_layer_norm_after", "pH", "true"),
					[]T{{Name: rs + "latents", Shape: []string{"rLat", "pH"}, Role: RoleEmbedding}},
					norm(rs+"norm", "H", "true"), linear(rs+"protein_projector", "H", "pH", "true"),
					norm("model.norm", "H", ""), lmHead("lm_head.weight")),
			}
		}()
	},
	func() *Family {
		return func() *Family {
			lm := "model.language_model."
			vt := "model.vision_tower."
			mp := "model.multi_modal_projector."
			layer := func(cross bool, ffn string) []T { return renameSyms(s2sLayer(cross, "true", "true", "true"), "F", ffn) }
			// Florence-2: a DaViT vision tower (per stage a strided conv embedding
			// and depths[stage] blocks of window and channel attention), a
			// projector with learned 2-D and cosine temporal positions, and a BART
			// encoder-decoder (text_config) whose LM head is tied to its shared
			// embedding by default.
			return &Family{Name: "Florence2", Class: "Florence2", ModelTypes: []string{"florence2"}, Causal: "Florence2ForConditionalGeneration", SeqCls: "-",
				Defs: cat(writerTie("text_config.tie_word_embeddings", "tie_word_embeddings", "true", ""), []Def{
					{Sym: "V", Field: "text_config.vocab_size", Default: "50265", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
					{Sym: "H", Field: "text_config.d_model", Default: "1024", Legend: "H", Desc: "encoder-decoder width", Show: true, Pos: true},
					{Sym: "Le", Field: "text_config.encoder_layers", Default: "12", Legend: "Le", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
					{Sym: "L", Field: "text_config.decoder_layers", Default: "12", Legend: "L", Desc: "decoder layers", Show: true, Pos: true, Max: MaxLayers},
					{Sym: "Fe", Field: "text_config.encoder_ffn_dim", Default: "4096", Desc: "encoder FFN width", Pos: true},
					{Sym: "Fd", Field: "text_config.decoder_ffn_dim", Default: "4096", Desc: "decoder FFN width", Pos: true},
					opt("P", "text_config.max_position_embeddings", "1024"),
					channels("vIn", "vision_config.in_channels"),
					{Sym: "vDepths", Field: "vision_config.depths", Type: List, Default: "list(1, 1, 9, 1)", Desc: "DaViT blocks per stage"},
					{Sym: "vE", Field: "vision_config.embed_dim", Type: List, Default: "list(128, 256, 512, 1024)", Desc: "DaViT channels per stage"},
					{Sym: "vPatch", Field: "vision_config.patch_size", Type: List, Default: "list(7, 3, 3, 3)", Desc: "DaViT conv embedding kernels"},
					{Sym: "vPre", Field: "vision_config.patch_prenorm", Type: List, Default: "list(0, 1, 1, 1)", Desc: "DaViT conv embeddings normed before the conv"},
					{Sym: "vMlp", Field: "vision_config.mlp_ratio", Type: Milli, Default: "4000", Desc: "DaViT MLP width per channel (thousandths)"},
					flag("vQKVBias", "vision_config.qkv_bias", "true", "DaViT qkv has a bias"),
					{Sym: "vPj", Field: "vision_config.projection_dim", Default: "1024", Legend: "Pj", Desc: "projector output width", Show: true, Pos: true},
					opt("vPos", "vision_config.max_position_embeddings", "50"), opt("vTemp", "vision_config.max_temporal_embeddings", "100"),
					derived("vStages", "len(vE)"), derived("vTop", "at(vE, vStages-1)"),
				}),
				Global: cat([]T{{Name: lm + "shared.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
					// 5.x writes the encoder's and decoder's copies of the shared
					// embedding when text_config does not tie them.
					{Name: lm + "encoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5 && !tiedText"},
					{Name: lm + "decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5 && !tiedText"},
					{Name: lm + "encoder.embed_positions.weight", Shape: []string{"P+2", "H"}, Role: RoleEmbedding}},
					norm(lm+"encoder.layernorm_embedding", "H", "true"),
					[]T{{Name: lm + "decoder.embed_positions.weight", Shape: []string{"P+2", "H"}, Role: RoleEmbedding}},
					norm(lm+"decoder.layernorm_embedding", "H", "true")),
				Stacks: []Stack{
					{Name: "encoder", Prefix: lm + "encoder.layers.{l}.", Layers: "Le", Tensors: layer(false, "Fe")},
					{Prefix: lm + "decoder.layers.{l}.", Layers: "L", Tensors: layer(true, "Fd")},
					{Name: "vision", Prefix: vt + "convs.{l}.", Layers: "vStages", Tensors: cat(
						conv("conv", "at(vE, l)", "l == 0 ? vIn : at(vE, l-1)", "at(vPatch, l)", "at(vPatch, l)"),
						norm("norm", "at(vPre, l) == 1 ? (l == 0 ? vIn : at(vE, l-1)) : at(vE, l)", "true"))},
					{Name: "vision", Prefix: vt + "blocks.{l}.", Layers: "vStages", Tensors: perBlock("at(vDepths, l)", davitBlock("{e}."))},
				},
				Final: cat(linear(mp+"image_projection", "vPj", "vTop", ""), norm(mp+"image_proj_norm", "vPj", "true"),
					[]T{{Name: mp + "image_position_embed.row_embeddings.weight", Shape: []string{"vPos", "vTop/2"}, Role: RoleEmbedding},
						{Name: mp + "image_position_embed.column_embeddings.weight", Shape: []string{"vPos", "vTop - vTop/2"}, Role: RoleEmbedding},
						{Name: mp + "visual_temporal_embed.pos_idx_to_embed", Shape: []string{"vTemp", "vTop"}, Role: RoleEmbedding, AnyDType: true},
						{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}}),
				Embed: lm + "shared.weight",
			}
		}()
	},
	func() *Family {
		return func() *Family {
			g, s, f := visionTower("model.vision_model.", "model.vision_model.")
			// The perceiver's attention and ReLU MLP are vision-width (vH) wide.
			perceiver := cat(
				norm("0.context_layer_norm", "vH", "true"), norm("0.latents_layer_norm", "vH", "true"),
				when("rs_qk", norm("0.q_layer_norm", "rs_hd", "true"), norm("0.k_layer_norm", "rs_hd", "true")),
				linear("0.q_proj", "rs_heads*rs_hd", "vH", ""), linear("0.k_proj", "rs_heads*rs_hd", "vH", ""),
				linear("0.v_proj", "rs_heads*rs_hd", "vH", ""), linear("0.output_proj", "vH", "rs_heads*rs_hd", ""),
				norm("1.ln", "vH", "true"), linear("1.fc", "4*vH", "vH", ""), linear("1.c_proj", "vH", "4*vH", ""))
			alpha := func(name string) []T {
				return []T{{Name: name, Shape: []string{"1"}, Role: RoleNorm, If: "!alpha_vec"}, {Name: name, Shape: []string{"1", "1", "H"}, Role: RoleNorm, If: "alpha_vec"}}
			}
			// IDEFICS (v1): a LLaMA decoder, a CLIP tower, and a gated
			// cross-attention layer (tanh-gated by alpha_cross_attn/alpha_dense,
			// scalars or H-vectors) before every cross_layer_interval-th layer;
			// with use_resampler, a perceiver resampler of the image features;
			// additional_vocab_size extra rows in a decoupled embedding and head.
			return &Family{Name: "IDEFICS", Class: "Idefics", ModelTypes: []string{"idefics"}, Causal: "IdeficsForVisionText2Text", SeqCls: "-",
				Defs: cat(
					withDefault(withDefault(withDefault(withDefault(withDefault(llamaDimsNoHD("heads", "heads"), "V", "32000"), "H", "4096"), "L", "32"), "heads", "32"), "I", "11008"),
					[]Def{
						tie("false"),
						opt("addV", "additional_vocab_size", "0"),
						{Sym: "xi", Field: "cross_layer_interval", Default: "1", Desc: "a gated cross-attention layer every {xi} layers", Pos: true},
						flag("qk", "qk_layer_norms", "false", "cross-attention q and k norms"),
						{Sym: "alpha", Field: "alpha_type", Type: Str, Default: "'float'", Desc: "the gates: a scalar (float) or an H-vector (vector)"},
						derived("alpha_vec", "alpha == 'vector'"),
						flag("resampler", "use_resampler", "false", "a perceiver resampler of the image features"),
						opt("rs_depth", "perceiver_config.resampler_depth", "6"), opt("rs_lat", "perceiver_config.resampler_n_latents", "64"),
						opt("rs_heads", "perceiver_config.resampler_n_heads", "16"), opt("rs_hd", "perceiver_config.resampler_head_dim", "96"),
						flag("rs_qk", "perceiver_config.qk_layer_norms_perceiver", "false", "perceiver q and k norms"),
					},
					clipTowerDefs("vision_config.", "embed_dim", "768", "32", "5120", "14", "224")),
				Global: cat(embed("model.embed_tokens.weight"),
					[]T{{Name: "model.embed_tokens.additional_embedding.weight", Shape: []string{"addV", "H"}, Role: RoleEmbedding, If: "addV > 0"}},
					g),
				Stacks: cat(
					decoderLayers(nil, llamaBlock("", "", gatedMLP("mlp.", "I", ""))),
					[]Stack{{Name: "cross", Prefix: "model.gated_cross_attn_layers.{l}.", Layers: "L / xi", Tensors: cat(
						alpha("alpha_cross_attn"), alpha("alpha_dense"),
						linear("cross_attn.q_proj", "H", "H", ""), linear("cross_attn.k_proj", "H", "vH", ""), linear("cross_attn.v_proj", "H", "vH", ""),
						linear("cross_attn.o_proj", "H", "H", ""),
						when("qk", norm("cross_attn.q_layer_norm", "d", ""), norm("cross_attn.k_layer_norm", "d", "")),
						inNorm, postNorm, gatedMLP("mlp.", "I", ""))}},
					s,
					[]Stack{{Name: "resampler", Prefix: "model.perceiver_resampler.blocks.{l}.", Layers: "resampler ? rs_depth : 0", Tensors: perceiver}}),
				Final: cat(f, norm("model.norm", "H", ""),
					when("resampler", []T{{Name: "model.perceiver_resampler.latents", Shape: []string{"rs_lat", "vH"}, Role: RoleEmbedding}},
						norm("model.perceiver_resampler.layer_norm", "vH", "true")),
					lmHead("lm_head.weight"),
					[]T{{Name: "lm_head.additional_fc.weight", Shape: []string{"addV", "H"}, Role: RoleLinear, If: "addV > 0", Optional: "tied"}}),
				Ignore: []string{`\.rotary_emb\.inv_freq$`},
			}
		}()
	},
	func() *Family {
		return func() *Family {
			tg, ts, tf := kosmosText(true, false)
			vg, vs, vf := visionTower("vision_model.model.", "vision_model.model.")
			pd, pt := kosmosProjection("64")
			// Kosmos-2: a CLIP tower, the image-to-text projection, and the
			// Kosmos text decoder (MAGNETO sub-LayerNorms).
			return &Family{Name: "Kosmos-2", Class: "Kosmos2", ModelTypes: []string{"kosmos-2"}, Causal: "Kosmos2ForConditionalGeneration", SeqCls: "-",
				Defs:   cat(kosmosTextDefs("65037", "2048", "24", "32", "8192"), clipTowerDefs("vision_config.", "hidden_size", "1024", "24", "4096", "14", "224"), pd),
				Global: cat(tg, vg), Stacks: cat([]Stack{ts}, vs), Final: cat(tf, vf, pt),
				Embed: "text_model.model.embed_tokens.weight", Head: "text_model.lm_head.weight",
				// The base model: the same tensors without the head.
				Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
			}
		}()
	},
	func() *Family {
		return func() *Family {
			tg, ts, tf := kosmosText(false, true)
			pd, pt := kosmosProjection("2048")
			// Kosmos-2.5: a Pix2Struct-style vision encoder (flattened patches,
			// row and column embeddings, T5 layers of heads·head_dim), the
			// image-to-text projection and the Kosmos text decoder with segment
			// embeddings.
			return &Family{Name: "Kosmos-2.5", Class: "Kosmos2_5", ModelTypes: []string{"kosmos-2.5"}, Causal: "Kosmos2_5ForConditionalGeneration", SeqCls: "-",
				Defs: cat(kosmosTextDefs("108481", "1536", "24", "16", "6144"), []Def{
					{Sym: "vH", Field: "vision_config.hidden_size", Default: "1536", Legend: "vH", Desc: "vision encoder width", Show: true, Pos: true},
					{Sym: "vL", Field: "vision_config.num_hidden_layers", Default: "18", Legend: "vL", Desc: "vision encoder layers", Show: true, Pos: true, Max: MaxLayers},
					{Sym: "vI", Field: "vision_config.intermediate_size|vision_config.d_ff", Default: "3968", Legend: "vI", Desc: "vision FFN inner width", Show: true, Pos: true},
					opt("vheads", "vision_config.num_attention_heads", "24"), opt("vdkv", "vision_config.head_dim|vision_config.d_kv", "64"),
					opt("vPE", "vision_config.patch_embed_hidden_size", "768"), opt("vSeq", "vision_config.max_num_patches|vision_config.seq_len", "4096"),
				}, pd),
				Global: cat(tg, linear("vision_model.embeddings.patch_projection", "vH", "vPE", "true"),
					[]T{{Name: "vision_model.embeddings.row_embedder.weight", Shape: []string{"vSeq", "vH"}, Role: RoleEmbedding},
						{Name: "vision_model.embeddings.column_embedder.weight", Shape: []string{"vSeq", "vH"}, Role: RoleEmbedding}}),
				Stacks: []Stack{ts, {Name: "vision", Prefix: "vision_model.encoder.layer.{l}.", Layers: "vL", Tensors: cat(
					t5Attn("attention.", "vheads*vdkv", "vH"), norm("pre_attention_layer_norm", "vH", ""), norm("pre_mlp_layer_norm", "vH", ""),
					linear("mlp.wi_0", "vI", "vH", ""), linear("mlp.wi_1", "vI", "vH", ""), linear("mlp.wo", "vH", "vI", ""))}},
				Final: cat(tf, norm("vision_model.layernorm", "vH", ""), pt),
				Embed: "text_model.model.embed_tokens.weight", Head: "text_model.lm_head.weight",
				// The base model: the same tensors without the head.
				Tasks: []Task{{Suffix: TaskBase, KeepFinal: true}},
			}
		}()
	},
	func() *Family {
		return func() *Family {
			const img, aud = "model.embed_tokens_extend.image_embed.", "model.embed_tokens_extend.audio_embed."
			vg, vs, vf := visionTower(img+"img_processor.", img+"img_processor.")
			ad, ag, as := phi4Audio(aud)
			// Phi-4-multimodal: the Phi-3 language model (its fields at the top
			// level, Phi4MultimodalConfig's defaults), a SigLIP tower with the
			// image projection and feature separators, and the Conformer audio
			// encoder with its speech and vision-speech projections.
			return (&vlm{Family: Family{Name: "Phi-4-multimodal", Class: "Phi4Multimodal", ModelTypes: []string{"phi4_multimodal"}, Causal: "Phi4MultimodalForCausalLM",
				Defs:   cat(siglipTowerDefs("vision_config.", "hidden_size", "1152", "27", "4304", "14", "448"), ad),
				Global: cat(vg, ag),
				Stacks: cat(vs, []Stack{as}),
				Final: cat(vf,
					linear(img+"img_projection_up", "H", "vH", "true"), linear(img+"img_projection_down", "H", "H", "true"),
					[]T{{Name: img + "global_img_feature_extensor", Shape: []string{"1", "1", "vH"}, Role: RoleEmbedding},
						{Name: img + "sub_img_feature_extensor", Shape: []string{"1", "1", "1", "vH"}, Role: RoleEmbedding}},
					linear(aud+"up_proj_for_speech", "H", "aH*aDR", "true"), linear(aud+"down_proj_for_speech", "H", "H", "true"),
					linear(aud+"up_proj_for_vision_speech", "H", "aH*aDR", "true"), linear(aud+"down_proj_for_vision_speech", "H", "H", "true")),
			}, text: "phi3", flat: true, tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}},
				defaults: map[string]string{"V": "200064", "H": "3072", "L": "32", "heads": "32", "kv": "8", "I": "8192"}}).register()
		}()
	},
	func() *Family { return llava("LLaVA", "Llava", "llava", "llama", "clip_vision_model", nil) },
	func() *Family {
		return llava("LLaVA-NeXT", "LlavaNext", "llava_next", "llama", "clip_vision_model", imageNewline)
	},
	func() *Family {
		return llava("LLaVA-NeXT-Video", "LlavaNextVideo", "llava_next_video", "llama", "clip_vision_model", imageNewline)
	},
	func() *Family {
		return llava("LLaVA-OneVision", "LlavaOnevision", "llava_onevision", "qwen2", "siglip_vision_model", imageNewline)
	},
	// VipLLaVA: the projector reads the concatenation of
	// len(vision_feature_layers) layers (VipLlavaConfig's [-2, -5, -8, -11, 6]).
	func() *Family {
		return withTower(&vlm{Family: Family{Name: "VipLLaVA", Class: "VipLlava", ModelTypes: []string{"vipllava"}, Causal: "VipLlavaForConditionalGeneration",
			Variants: towerOnly5x}, text: "llama", reroot: legacyLM},
			"clip_vision_model", "vision_tower.vision_model.", "vision_tower.",
			[]Def{{Sym: "vk", Field: "vision_feature_layers", Type: Count, Default: "5", Desc: "vision layers the projector reads"}},
			cat(norm("multi_modal_projector.projector_layernorm", "vH*vk", "true"),
				linear("multi_modal_projector.linear_1", "H", "vH*vk", "true"), linear("multi_modal_projector.linear_2", "H", "H", "true")))
	},
	// Mistral3: RMS norm, a patch merger of spatial_merge_size² patches,
	// then LLaVA's MLP without biases by default.
	func() *Family {
		return func() *Family {
			d, t := llavaProjector("multi_modal_projector.", "false")
			return withTower(&vlm{Family: Family{Name: "Mistral3", Class: "Mistral3", ModelTypes: []string{"mistral3"}, Causal: "Mistral3ForConditionalGeneration"},
				text: "mistral", reroot: legacyLM},
				"pixtral", "vision_tower.vision_model.", "vision_tower.",
				cat(d, []Def{opt("mm_m", "spatial_merge_size", "2")}),
				cat(norm("multi_modal_projector.norm", "vH", ""),
					[]T{{Name: "multi_modal_projector.patch_merger.merging_layer.weight", Shape: []string{"vH", "vH*mm_m*mm_m"}, Role: RoleLinear}}, t))
		}()
	},
	// PaliGemma: one linear to vision_config.projection_dim.
	func() *Family {
		return withTower(&vlm{Family: Family{Name: "PaliGemma", Class: "PaliGemma", ModelTypes: []string{"paligemma"}, Causal: "PaliGemmaForConditionalGeneration",
			Variants: towerOnly5x}, text: "gemma", reroot: legacyLM},
			"siglip_vision_model", "vision_tower.vision_model.", "vision_tower.",
			[]Def{{Sym: "mm_p", Field: "vision_config.projection_dim|projection_dim", Default: "2048", Legend: "Pj", Desc: "projector output width", Show: true, Pos: true}},
			linear("multi_modal_projector.linear", "mm_p", "vH", "true"))
	},
	// Gemma 3 (and ShieldGemma 2, multimodal_v5.go): a soft-embedding
	// RMS norm and a bare projection matrix [vH, H].
	func() *Family { return gemma3("Gemma3", "gemma3") },
	// Aya Vision: pixel-shuffled (downsample_factor²) features, LayerNorm,
	// SwiGLU of alignment_intermediate_size (absent: the text width).
	func() *Family {
		return withTower(&vlm{Family: Family{Name: "AyaVision", Class: "AyaVision", ModelTypes: []string{"aya_vision"}, Causal: "AyaVisionForConditionalGeneration",
			Variants: towerOnly5x}, text: "cohere2", reroot: legacyLM},
			"siglip_vision_model", "vision_tower.vision_model.", "vision_tower.",
			[]Def{opt("mm_f", "downsample_factor", "2"), {Sym: "mm_a", Field: "alignment_intermediate_size", Default: "H", Desc: "projector SwiGLU width", Pos: true}},
			cat(norm("multi_modal_projector.layernorm", "vH*mm_f*mm_f", "true"),
				linear("multi_modal_projector.linear_1", "mm_a", "vH*mm_f*mm_f", "true"), linear("multi_modal_projector.linear_2", "H", "mm_a/2", "true")))
	},
	// Idefics3 and SmolVLM: pixel-shuffled (scale_factor²) features, one
	// linear.
	func() *Family { return idefics3("Idefics3", "Idefics3", "idefics3", "idefics3_vision") },
	func() *Family { return idefics3("SmolVLM", "SmolVLM", "smolvlm", "smolvlm_vision") },
	// Idefics2: a gated MLP to the text width, then a perceiver resampler.
	func() *Family {
		return withTower(&vlm{Family: Family{Name: "Idefics2", Class: "Idefics2", ModelTypes: []string{"idefics2"}, Causal: "Idefics2ForConditionalGeneration",
			Stacks: []Stack{{Name: "resampler", Prefix: "model.connector.perceiver_resampler.layers.{l}.", Layers: "rs_depth", Tensors: cat(
				norm("input_latents_norm", "H", ""), norm("input_context_norm", "H", ""),
				linear("self_attn.q_proj", "rs_heads*rs_hd", "H", ""), linear("self_attn.k_proj", "rs_kv*rs_hd", "H", ""),
				linear("self_attn.v_proj", "rs_kv*rs_hd", "H", ""), linear("self_attn.o_proj", "H", "rs_heads*rs_hd", ""),
				norm("post_attention_layernorm", "H", ""), gatedMLP("mlp.", "4*H", ""))}}},
			text: "mistral", reroot: textLM},
			"idefics2_vision", "model.vision_model.", "model.vision_model.",
			[]Def{
				opt("rs_depth", "perceiver_config.resampler_depth", "3"), opt("rs_lat", "perceiver_config.resampler_n_latents", "64"),
				opt("rs_heads", "perceiver_config.resampler_n_heads", "16"), opt("rs_hd", "perceiver_config.resampler_head_dim", "96"),
				opt("rs_kv", "perceiver_config.num_key_value_heads", "4"),
			},
			cat(linear("model.connector.modality_projection.gate_proj", "I", "vH", ""), linear("model.connector.modality_projection.up_proj", "I", "vH", ""),
				linear("model.connector.modality_projection.down_proj", "H", "I", ""),
				[]T{{Name: "model.connector.perceiver_resampler.latents", Shape: []string{"rs_lat", "H"}, Role: RoleEmbedding}},
				norm("model.connector.perceiver_resampler.norm", "H", "")))
	},
	func() *Family { return qwenVL("Qwen2-VL", "Qwen2VL", "qwen2_vl", false) },
	func() *Family { return qwenVL("Qwen2.5-VL", "Qwen2_5_VL", "qwen2_5_vl", true) },
	// Cohere2-Vision: pixel-shuffled (downsample_factor²) features, SwiGLU
	// of alignment_intermediate_size, all under model.
	func() *Family {
		return withTower(&vlm{Family: Family{Name: "Cohere2-Vision", Class: "Cohere2Vision", ModelTypes: []string{"cohere2_vision"}, Causal: "Cohere2VisionForConditionalGeneration",
			Variants: [][][2]string{{{"model.vision_tower.vision_model.", "model.vision_tower."}}}}, text: "cohere2", reroot: newLM},
			"siglip_vision_model", "model.vision_tower.vision_model.", "model.vision_tower.",
			[]Def{opt("mm_f", "downsample_factor", "2"), {Sym: "mm_a", Field: "alignment_intermediate_size", Default: "36864", Desc: "projector SwiGLU width", Pos: true}},
			cat(linear("model.multi_modal_projector.linear_1", "mm_a", "vH*mm_f*mm_f", "true"), linear("model.multi_modal_projector.linear_2", "H", "mm_a/2", "true")))
	},
	// DeepSeek-VL: SigLIP under model.vision_model, a two-layer aligner.
	func() *Family {
		return withTower(&vlm{Family: Family{Name: "DeepSeek-VL", Class: "DeepseekVL", ModelTypes: []string{"deepseek_vl"}, Causal: "DeepseekVLForConditionalGeneration",
			Variants: [][][2]string{{{"model.vision_model.vision_model.", "model.vision_model."}}}}, text: "llama", reroot: newLM},
			"siglip_vision_model", "model.vision_model.vision_model.", "model.vision_model.",
			nil,
			cat(linear("model.aligner.linear1", "H", "vH", "true"), linear("model.aligner.linear2", "H", "H", "true")))
	},
	// Fuyu: no tower; image patches (patch_size² · num_channels values)
	// projected straight into the language model (Persimmon).
	func() *Family {
		return (&vlm{Family: Family{Name: "Fuyu", Class: "Fuyu", ModelTypes: []string{"fuyu"}, Causal: "FuyuForCausalLM",
			// The patch projection is FuyuConfig's own hidden_size wide (its
			// default 4096), not text_config's: the two may disagree.
			Defs:   []Def{opt("vP", "patch_size", "30"), opt("vC", "num_channels", "3"), opt("fH", "hidden_size", "4096")},
			Global: linear("vision_embed_tokens", "fH", "vP*vP*vC", "true")}, text: "persimmon", reroot: legacyLM, flat: true}).register()
	},
	// Llama 4: a ViT with a linear patch embedding, a pixel-shuffle MLP
	// adapter, and one linear into the language model (Llama4 text).
	func() *Family {
		return (&vlm{Family: llama4Vision(), text: "llama4_text", reroot: legacyLM, tie5: "tiedText"}).register()
	},
	// Mllama (Llama 3.2 Vision): a tiled ViT (gated tile and position
	// embeddings, a local and a global transformer) and one linear into
	// the language model's cross-attention.
	func() *Family { return (&vlm{Family: mllamaVision(), textF: mllamaText, reroot: legacyLM}).register() },
	// Qwen3-VL: a ViT with learned positions, a merger, and one DeepStack
	// merger per deepstack_visual_indexes entry.
	func() *Family {
		return (&vlm{Family: qwen3VLVision("Qwen3-VL", "Qwen3VL", "qwen3_vl"), textF: qwen3VLText, reroot: newLM}).register()
	},
	// Qwen3-VL-MoE: the same vision side, a Qwen3-MoE text model with fused
	// experts. transformers 5.x writes them transposed ([E, 2·Im, H] and
	// [E, H, Im]); its configs name the tower qwen3_vl_moe_vision, 4.x's
	// qwen3_vl_moe, which tells the two layouts apart.
	func() *Family {
		return (&vlm{Family: func() Family {
			f := qwen3VLVision("Qwen3-VL-MoE", "Qwen3VLMoe", "qwen3_vl_moe")
			f.Defs = append(f.Defs, Def{Sym: "vmt", Field: "vision_config.model_type", Type: Str, Default: "'qwen3_vl_moe'", Desc: "the vision config's type"},
				derived("v5", "vmt == 'qwen3_vl_moe_vision'"))
			return f
		}(), textF: qwen3VLMoeText, reroot: newLM}).register()
	},
	func() *Family { return blip2("BLIP-2", "Blip2", "blip-2", false) },
	func() *Family { return blip2("InstructBLIP", "InstructBlip", "instructblip", true) },
	// InternVL: InternViT (layer scale, optional qk norms, RMS or layer
	// norms), pixel-shuffled (downsample_ratio) features into an MLP.
	func() *Family { return (&vlm{Family: internVL(), text: "qwen2", reroot: legacyLM}).register() },
	// LFM2-VL: a SigLIP2 (NaFlex) tower, pixel-shuffled
	// (downsample_factor²) features, LayerNorm and a two-layer MLP through
	// projector_hidden_size, into LFM2.
	func() *Family {
		return withTower(&vlm{Family: Family{Name: "LFM2-VL", Class: "Lfm2Vl", ModelTypes: []string{"lfm2-vl"}, Causal: "Lfm2VlForConditionalGeneration"},
			text: "lfm2", reroot: newLM},
			"siglip2_vision_model", "model.vision_tower.vision_model.", "model.vision_tower.",
			[]Def{opt("mm_f", "downsample_factor", "2"), opt("mm_h", "projector_hidden_size", "2560"),
				flag("mm_bias", "projector_bias", "true", "the projector's linears have biases"),
				flag("mm_ln", "projector_use_layernorm", "true", "a LayerNorm before the projector")},
			cat(when("mm_ln", norm("model.multi_modal_projector.layer_norm", "vH*mm_f*mm_f", "true")),
				linear("model.multi_modal_projector.linear_1", "mm_h", "vH*mm_f*mm_f", "mm_bias"),
				linear("model.multi_modal_projector.linear_2", "H", "mm_h", "mm_bias")))
	},
	// Aria: an Idefics3 (SigLIP) tower, a projector of learned queries
	// cross-attending to the patches, then an MLP into Aria's MoE text
	// model.
	func() *Family {
		return withTower(&vlm{Family: Family{Name: "Aria", Class: "Aria", ModelTypes: []string{"aria"}, Causal: "AriaForConditionalGeneration"},
			text: "aria_text", reroot: legacyLM},
			"idefics3_vision", "vision_tower.", "vision_tower.",
			[]Def{opt("mm_q", "max_value_projector_patch_to_query_dict", "256")},
			cat([]T{{Name: "multi_modal_projector.query", Shape: []string{"mm_q", "vH"}, Role: RoleEmbedding}},
				renameSyms(cat(
					linear("multi_modal_projector.cross_attn.q_proj", "H", "H", ""), linear("multi_modal_projector.cross_attn.k_proj", "H", "H", ""),
					linear("multi_modal_projector.cross_attn.v_proj", "H", "H", ""),
					[]T{{Name: "multi_modal_projector.cross_attn.multihead_attn.in_proj_weight", Shape: []string{"3*H", "H"}, Role: RoleLinear},
						{Name: "multi_modal_projector.cross_attn.multihead_attn.in_proj_bias", Shape: []string{"3*H"}, Role: RoleBias}},
					linear("multi_modal_projector.cross_attn.multihead_attn.out_proj", "H", "H", "true"),
					linear("multi_modal_projector.cross_attn.linear", "H", "H", "true"),
					norm("multi_modal_projector.cross_attn.layer_norm", "H", "true"), norm("multi_modal_projector.cross_attn.layer_norm_kv", "H", "true"),
					norm("multi_modal_projector.layer_norm", "H", "true")), "H", "vH"),
				linear("multi_modal_projector.feed_forward.linear_in", "H", "vH", ""), linear("multi_modal_projector.feed_forward.linear_out", "H", "H", "")))
	},
	// GLM-4V: a ViT with a 3-D patch embedding and learned positions, a
	// strided-conv downsample and a gated merger MLP.
	func() *Family {
		return (&vlm{Family: glm4vVision("GLM-4V", "Glm4v", "glm4v"), textF: glm4vText, reroot: newLM}).register()
	},
	// GLM-4.5V: the same vision side, GLM-4.5's MoE text model (the
	// glm4_moe layout, Glm4vMoeTextConfig's attention_bias default true).
	func() *Family {
		return (&vlm{Family: glm4vVision("GLM-4V-MoE", "Glm4vMoe", "glm4v_moe"), text: "Glm4vMoe_text", reroot: newLM,
			// 5.x names the text config glm4v_moe_text.
			alias: map[string]string{"Glm4vMoe_text": "glm4_moe", "glm4v_moe_text": "glm4_moe"}, defaults: map[string]string{"attention_bias": "true"}}).register()
	},
	func() *Family {
		return func() *Family {
			vd, vg, vs, vf := blipVision("768", "12", "3072", "16", "384")
			td, tg, ts, tf := blipText()
			// BLIP (captioning): the vision tower and the cross-attending BERT
			// decoder; its relative-position switch is not a field of BLIP.
			return &Family{Name: "BLIP", Class: "Blip", ModelTypes: []string{"blip"}, Causal: "BlipForConditionalGeneration", SeqCls: "-",
				Defs: cat(td, vd, noRelPos), Global: cat(tg, vg), Stacks: []Stack{ts, vs}, Final: cat(tf, vf),
				Embed: "text_decoder.bert.embeddings.word_embeddings.weight", Head: "text_decoder.cls.predictions.decoder.weight",
				Tasks: blipClasses()}
		}()
	},
	func() *Family {
		return func() *Family {
			g, s, n := samTower("vision_tower.")
			// GOT-OCR 2: a SAM tower, two strided convs and a linear into Qwen2.
			return (&vlm{Family: Family{Name: "GOT-OCR2", Class: "GotOcr2", ModelTypes: []string{"got_ocr2"}, Causal: "GotOcr2ForConditionalGeneration",
				Defs: samDefs("vision_config."), Global: g, Stacks: []Stack{s},
				Final: cat(n, []T{{Name: "multi_modal_projector.conv_upsampler1.weight", Shape: []string{"2*sOut", "sOut", "3", "3"}, Role: RoleLinear},
					{Name: "multi_modal_projector.conv_upsampler2.weight", Shape: []string{"H", "2*sOut", "3", "3"}, Role: RoleLinear}},
					linear("multi_modal_projector.multimodal_projector", "H", "H", "true")),
			}, text: "qwen2", reroot: legacyLM}).register()
		}()
	},
	func() *Family {
		return func() *Family {
			g, s, n := samTower("model.high_res_vision_model.vision_encoder.")
			hiNeck := rerootTs(n, [][2]string{{"model.high_res_vision_model.vision_encoder.neck.", "model.high_res_vision_neck."}})
			// DeepSeek-VL-Hybrid: DeepSeek-VL's SigLIP and a high-resolution SAM
			// tower (its neck, a second neck, two strided convs), both aligned
			// into the language model.
			return withTower(&vlm{Family: Family{Name: "DeepSeek-VL-Hybrid", Class: "DeepseekVLHybrid", ModelTypes: []string{"deepseek_vl_hybrid"},
				Causal: "DeepseekVLHybridForConditionalGeneration", Global: g, Stacks: []Stack{s},
				Variants: [][][2]string{{{"model.vision_model.vision_model.", "model.vision_model."}}}}, text: "llama", reroot: newLM},
				"siglip_vision_model", "model.vision_model.vision_model.", "model.vision_model.",
				samDefs("high_res_vision_config."),
				cat(n, hiNeck,
					[]T{{Name: "model.high_res_vision_proj.conv1.weight", Shape: []string{"2*sOut", "sOut", "3", "3"}, Role: RoleLinear},
						{Name: "model.high_res_vision_proj.conv2.weight", Shape: []string{"4*sOut", "2*sOut", "3", "3"}, Role: RoleLinear},
						{Name: "model.high_res_vision_alpha", Shape: []string{"1"}, Role: RoleNorm}},
					linear("model.aligner.vision_proj", "H/2", "vH", "true"), linear("model.aligner.high_res_vision_proj", "H/2", "4*sOut", "true"),
					linear("model.aligner.proj", "H", "H", "true")))
		}()
	},
	// Ovis2: a SigLIP-like tower with RMS norms and a gated MLP, a visual
	// vocabulary head (softmax over visual words) and an embedding table
	// of visual words. Its LM head is sized by Ovis2Config's own
	// vocab_size and hidden_size.
	func() *Family {
		return (&vlm{Family: Family{Name: "Ovis2", Class: "Ovis2", ModelTypes: []string{"ovis2"}, Causal: "Ovis2ForConditionalGeneration",
			Defs: cat([]Def{
				{Sym: "oV", Field: "vocab_size", Default: "151643", Desc: "LM head rows (Ovis2Config's vocab_size)", Show: true, Pos: true},
				{Sym: "oH", Field: "hidden_size", Default: "1536", Desc: "LM head and visual table width (Ovis2Config's hidden_size)", Show: true, Pos: true},
			}, vTower(vcfg, "1024", "24", "2816", "14"), []Def{
				opt("vS", "vision_config.image_size", "224"), opt("vC", "vision_config.num_channels", "3"),
				opt("vHS", "vision_config.hidden_stride", "1"),
				{Sym: "vV", Field: "vision_config.vocab_size", Default: "16384", Legend: "vV", Desc: "visual words", Show: true, Pos: true},
				opt("vInd", "vision_config.num_visual_indicator_tokens", "5"),
				flag("vqkv", "vision_config.qkv_bias", "false", "vision q, k, v and out_proj have biases"),
				flag("vmlp", "vision_config.mlp_bias", "false", "vision MLP has biases"),
			}),
			Global: cat([]T{{Name: "model.vision_tower.transformer.embeddings.patch_embedding.weight", Shape: []string{"vH", "vC", "vP", "vP"}, Role: RoleLinear},
				{Name: "model.vision_tower.transformer.embeddings.patch_embedding.bias", Shape: []string{"vH"}, Role: RoleBias},
				{Name: "model.vision_tower.transformer.embeddings.position_embedding.weight", Shape: []string{"(vS/vP)*(vS/vP)", "vH"}, Role: RoleEmbedding}},
				norm("model.vision_tower.transformer.embeddings.rms_norm", "vH", "")),
			Stacks: []Stack{{Name: "vision", Prefix: "model.vision_tower.transformer.encoder.layers.{l}.", Layers: "vL", Tensors: renameSyms(cat(
				linear("attention.q_proj", "H", "H", "vqkv"), linear("attention.k_proj", "H", "H", "vqkv"), linear("attention.v_proj", "H", "H", "vqkv"),
				linear("attention.out_proj", "H", "H", "vqkv"), norm("rms_norm1", "H", ""), norm("rms_norm2", "H", ""),
				gatedMLP("ffn.", "vI", "vmlp")), "H", "vH")}},
			Final: cat(norm("model.vision_tower.transformer.rms_norm", "vH", ""),
				linear("model.vision_tower.head_linear", "vV-vInd", "vH*vHS*vHS", ""), norm("model.vision_tower.head_norm", "vV-vInd", "true"),
				[]T{{Name: "model.visual_embeddings_table.weight", Shape: []string{"vV", "oH"}, Role: RoleEmbedding}}),
		}, text: "qwen2", reroot: newLM,
			head: []T{{Name: "lm_head.weight", Shape: []string{"oV", "oH"}, Role: RoleHead, If: "causal", Optional: "tied"}}}).register()
	},
	// Pix2Struct: a T5-style encoder over flattened patches with row and
	// column embeddings, and a T5-style decoder (relative-position bias in
	// its first layer's self-attention). The encoder's attention is
	// heads·d_kv wide, the decoder's hidden_size wide whatever d_kv says.
	func() *Family {
		return &Family{Name: "Pix2Struct", Class: "Pix2Struct", ModelTypes: []string{"pix2struct"}, Causal: "Pix2StructForConditionalGeneration", SeqCls: "-",
			Defs: cat(trunkAt("text_config.vocab_size=50244", "text_config.hidden_size=768", "text_config.num_layers=12", "decoder layers"), []Def{
				{Sym: "heads", Field: "text_config.num_heads", Default: "12", Desc: "decoder heads", Show: true, Pos: true},
				opt("F", "text_config.d_ff", "2048"),
				opt("buckets", "text_config.relative_attention_num_buckets", "32"),
				{Sym: "vH", Field: "vision_config.hidden_size", Default: "768", Legend: "vH", Desc: "encoder width", Show: true, Pos: true},
				{Sym: "vL", Field: "vision_config.num_hidden_layers", Default: "12", Legend: "vL", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
				opt("vheads", "vision_config.num_attention_heads", "12"), opt("vdkv", "vision_config.d_kv", "64"), opt("vF", "vision_config.d_ff", "2048"),
				opt("vPE", "vision_config.patch_embed_hidden_size", "768"), opt("vSeq", "vision_config.seq_len", "4096"),
				tie("false"),
			}),
			Global: cat(linear("encoder.embeddings.patch_projection", "vH", "vPE", "true"),
				[]T{{Name: "encoder.embeddings.row_embedder.weight", Shape: []string{"vSeq", "vH"}, Role: RoleEmbedding},
					{Name: "encoder.embeddings.column_embedder.weight", Shape: []string{"vSeq", "vH"}, Role: RoleEmbedding},
					{Name: "decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding}}),
			Stacks: []Stack{
				{Name: "vision", Prefix: "encoder.encoder.layer.{l}.", Layers: "vL", Tensors: cat(
					t5Attn("attention.", "vheads*vdkv", "vH"), norm("pre_attention_layer_norm", "vH", ""), norm("pre_mlp_layer_norm", "vH", ""),
					linear("mlp.wi_0", "vF", "vH", ""), linear("mlp.wi_1", "vF", "vH", ""), linear("mlp.wo", "vH", "vF", ""))},
				{Prefix: "decoder.layer.{l}.", Layers: "L", Tensors: cat(
					t5Attn("self_attention.attention.", "H", "H"),
					[]T{{Name: "self_attention.attention.relative_attention_bias.weight", Shape: []string{"buckets", "heads"}, Role: RoleEmbedding, If: "l == 0"}},
					norm("self_attention.layer_norm", "H", ""),
					t5Attn("encoder_decoder_attention.attention.", "H", "H"), norm("encoder_decoder_attention.layer_norm", "H", ""),
					linear("mlp.DenseReluDense.wi_0", "F", "H", ""), linear("mlp.DenseReluDense.wi_1", "F", "H", ""), linear("mlp.DenseReluDense.wo", "H", "F", ""),
					norm("mlp.layer_norm", "H", ""))},
			},
			Final: cat(norm("encoder.layernorm", "vH", ""), norm("decoder.final_layer_norm", "H", ""),
				[]T{{Name: "decoder.lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}),
			Embed: "decoder.embed_tokens.weight", Head: "decoder.lm_head.weight",
		}
	},
)

// internVL is InternVL's row: InternViT (layer scale, optional qk
// norms, RMS or layer norms) under vision_tower., pixel-shuffled
// (downsample_ratio) features into an MLP; internvl_vision's
// InternVLVisionModel is its tower alone (towerVision).
func internVL() Family {
	return Family{Name: "InternVL", Class: "InternVL", ModelTypes: []string{"internvl"}, Causal: "InternVLForConditionalGeneration",
		Defs: []Def{
			vWidth(vcfg, "1024"),
			vLayers(vcfg, "24"),
			vFFN(vcfg, "4096"),
			list("vSl", "vision_config.image_size", "image size (absent: 448)"),
			list("vPl", "vision_config.patch_size", "patch size (absent: 14)"),
			derived("vS", "len(vSl) > 0 ? at(vSl, 0) : 448"), derived("vS2", "len(vSl) > 1 ? at(vSl, 1) : vS"),
			derived("vP", "len(vPl) > 0 ? at(vPl, 0) : 14"), derived("vP2", "len(vPl) > 1 ? at(vPl, 1) : vP"),
			opt("vC", "vision_config.num_channels", "3"),
			{Sym: "vnorm", Field: "vision_config.norm_type", Type: Str, Default: "'layer_norm'", Desc: "the tower's norms"},
			derived("vln", "vnorm == 'layer_norm'"),
			flag("vqk", "vision_config.use_qk_norm", "false", "q and k norms"),
			flag("vbias", "vision_config.attention_bias", "false", "q, k, v have biases"),
			flag("vmask", "vision_config.use_mask_token", "false", "a mask token"),
			flag("vabs", "vision_config.use_absolute_position_embeddings", "true", "learned absolute positions"),
			flag("vmean", "vision_config.use_mean_pooling", "true", "mean pooling (no final norm)"),
			{Sym: "vscale", Field: "vision_config.layer_scale_init_value", Type: Milli, Default: "100", Desc: "layer scale (λ) in thousandths"},
			{Sym: "mm_ds", Field: "downsample_ratio", Type: Milli, Default: "500", Desc: "pixel-shuffle ratio in thousandths", Pos: true},
			derived("mm_in", "vH*1000*1000/(mm_ds*mm_ds)"),
		},
		Global: cat(
			[]T{{Name: "vision_tower.embeddings.cls_token", Shape: []string{"1", "1", "vH"}, Role: RoleNorm},
				{Name: "vision_tower.embeddings.mask_token", Shape: []string{"1", "1", "vH"}, Role: RoleNorm, If: "vmask"},
				{Name: "vision_tower.embeddings.patch_embeddings.projection.weight", Shape: []string{"vH", "vC", "vP", "vP2"}, Role: RoleLinear},
				{Name: "vision_tower.embeddings.position_embeddings", Shape: []string{"1", "(vS/vP)*(vS2/vP2)+1", "vH"}, Role: RoleEmbedding, If: "vabs"}},
			vecIf("vision_tower.embeddings.patch_embeddings.projection.bias", "vH", "true")),
		Stacks: []Stack{{Name: "vision", Prefix: "vision_tower.encoder.layer.{l}.", Layers: "vL", Tensors: renameSyms(cat(
			linear("attention.q_proj", "H", "H", "vbias"), linear("attention.k_proj", "H", "H", "vbias"), linear("attention.v_proj", "H", "H", "vbias"),
			when("vqk", norm("attention.q_norm", "H", ""), norm("attention.k_norm", "H", "")),
			linear("attention.projection_layer", "H", "H", "true"),
			vec("lambda_1", "H"), vec("lambda_2", "H"), // built whatever layer_scale_init_value
			norm("layernorm_before", "H", "vln"), norm("layernorm_after", "H", "vln"),
			plainMLP("mlp.fc1", "mlp.fc2", "vI", "true")), "H", "vH")}},
		Final: cat(when("!vmean", norm("vision_tower.layernorm", "vH", "true")), // a LayerNorm whatever norm_type
			norm("multi_modal_projector.layer_norm", "mm_in", "true"),
			linear("multi_modal_projector.linear_1", "H", "mm_in", "true"), linear("multi_modal_projector.linear_2", "H", "H", "true")),
	}
}
