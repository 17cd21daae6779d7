package spec

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// NVIDIA's Cosmos 3 reasoners (transformers 5.x): Cosmos3 Edge (a
// SigLIP2 NaFlex tower, a patch-merging projector and a Llama-derived
// language model with a plain ReLU² MLP) and Cosmos3 Omni (Qwen3-VL's
// modules under a model type of its own). Both keep their checkpoints in
// other names than their module trees: transformers' conversion mapping
// renames them on load and reverses the renaming on save, so the names
// checked are the saved ones (ckptNames).

// ckptRule is one rule of a conversion mapping reversed: every match of
// re in a module-tree name is replaced by to, as save_pretrained writes
// it.
type ckptRule struct {
	re *regexp.Regexp
	to string
}

// ckptRules are rules from (pattern, replacement) pairs, applied in
// order, each to the result of the previous one.
func ckptRules(pairs ...string) []ckptRule {
	out := make([]ckptRule, len(pairs)/2)
	for i := range out {
		out[i] = ckptRule{regexp.MustCompile(pairs[2*i]), pairs[2*i+1]}
	}
	return out
}

func applyCkpt(name string, rules []ckptRule) string {
	for _, r := range rules {
		name = r.re.ReplaceAllString(name, r.to)
	}
	return name
}

// ckptNames is f (in module-tree names) with every name as its
// checkpoint keeps it: rules applied to each global and final tensor,
// each stack's prefix, and each stack tensor's full name (its relative
// name is what follows the renamed prefix). Variants are renamed alike;
// own are the checkpoint's other layouts, in its names.
func ckptNames(f *Family, rules []ckptRule, own [][][2]string) (*Family, error) {
	g := &Family{Name: f.Name, Class: f.Class, ConfigClass: f.ConfigClass, ModelTypes: f.ModelTypes, Causal: f.Causal, SeqCls: f.SeqCls,
		Defs: f.Defs, Tasks: f.Tasks, task: f.task, BasePrefix: f.BasePrefix, Ignore: f.Ignore,
		Embed: applyCkpt(f.Embed, rules), Head: applyCkpt(f.Head, rules)}
	names := func(ts []T) []T {
		out := append([]T(nil), ts...)
		for i := range out {
			out[i].Name = applyCkpt(out[i].Name, rules)
		}
		return out
	}
	g.Global, g.Final = names(f.Global), names(f.Final)
	for _, s := range f.Stacks {
		pre := applyCkpt(s.Prefix, rules)
		ts := append([]T(nil), s.Tensors...)
		for i := range ts {
			full := applyCkpt(s.Prefix+ts[i].Name, rules)
			rel, ok := strings.CutPrefix(full, pre)
			if !ok {
				return nil, fmt.Errorf("spec: %s: %s%s renamed %s, outside its stack's %s", f.Name, s.Prefix, ts[i].Name, full, pre)
			}
			ts[i].Name = rel
		}
		s.Prefix, s.Tensors = pre, ts
		g.Stacks = append(g.Stacks, s)
	}
	for _, v := range f.Variants {
		var nv [][2]string
		for _, r := range v {
			nv = append(nv, [2]string{applyCkpt(r[0], rules), applyCkpt(r[1], rules)})
		}
		g.Variants = append(g.Variants, nv)
	}
	g.Variants = append(g.Variants, own...)
	return g, nil
}

// ckptVLM is a composed VLM family (a vlm row: module-tree names, its
// base model a task) whose checkpoints keep the names rules give: the
// causal class checked in those names, the base model class in its own
// module names renamed by the same rules (anchored rules of the causal
// layout do not match them). own are other layouts of the checkpoint
// (older checkpoints' names), ignore what transformers drops on load.
func ckptVLM(f *Family, rules []ckptRule, own [][][2]string, ignore []string) *Family {
	inner := f.compose
	var cache sync.Map // inner composition → *Family
	f.Tasks = []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}}
	f.compose = func(c *Config) (*Family, error) {
		in, err := inner(c)
		if err != nil {
			return nil, err
		}
		if g, ok := cache.Load(in); ok {
			return g.(*Family), nil
		}
		t := in.findTask(in.Class + TaskBase)
		if t == nil {
			return nil, fmt.Errorf("spec: %s has no base model class", in.Name)
		}
		base, err := ckptNames(in.forTask(t), rules, own)
		if err != nil {
			return nil, err
		}
		base.Ignore, base.task = append(base.Ignore, ignore...), nil
		g, err := ckptNames(in, rules, own)
		if err != nil {
			return nil, err
		}
		g.Ignore = append(g.Ignore, ignore...)
		g.Tasks = []Task{{Suffix: TaskBase, Of: base, KeepFinal: true}}
		if err := g.compile(); err != nil {
			return nil, err
		}
		if err := base.compile(); err != nil {
			return nil, err
		}
		g2, _ := cache.LoadOrStore(in, g)
		return g2.(*Family), nil
	}
	return f
}

// cosmosAttnNames are the Diffusers-style attention names Cosmos 3
// checkpoints keep (to_q, to_out, norm_q) for the module tree's q_proj,
// o_proj, q_norm: the conversion mapping's renames reversed.
var cosmosAttnNames = []string{
	`\.self_attn\.q_proj\.`, ".self_attn.to_q.", `\.self_attn\.k_proj\.`, ".self_attn.to_k.",
	`\.self_attn\.v_proj\.`, ".self_attn.to_v.", `\.self_attn\.o_proj\.`, ".self_attn.to_out.",
}

// cosmosModuleNames is the layout of older checkpoints (and of the
// module tree) inside the same prefixes: q_proj … where the newer ones
// keep to_q …; either loads.
func cosmosModuleNames(mlp bool) [][][2]string {
	v := [][2]string{{"*.self_attn.to_q.", "*.self_attn.q_proj."}, {"*.self_attn.to_k.", "*.self_attn.k_proj."},
		{"*.self_attn.to_v.", "*.self_attn.v_proj."}, {"*.self_attn.to_out.", "*.self_attn.o_proj."}}
	if mlp {
		v = append(v, [2]string{"*.mlp.up_proj.", "*.mlp.fc1."}, [2]string{"*.mlp.down_proj.", "*.mlp.fc2."})
	} else {
		v = append(v, [2]string{"*.self_attn.norm_q.", "*.self_attn.q_norm."}, [2]string{"*.self_attn.norm_k.", "*.self_attn.k_norm."})
	}
	return [][][2]string{v}
}

// cosmos3EdgeText is Cosmos3 Edge's language model (Cosmos3EdgeTextModel):
// Llama's attention (every projection biased by attention_bias) and a
// two-layer MLP fc1/fc2 (biased by mlp_bias), Cosmos3EdgeTextConfig's
// defaults; head_dim 128 unless given.
var cosmos3EdgeText = &Family{Name: "Cosmos3-Edge text", Class: "Cosmos3EdgeText", SeqCls: "-",
	Defs:   cat(sized(llamaDims("128", "", "8", "heads"), "V", "131072", "H", "2048", "L", "28", "heads", "16", "I", "9216"), []Def{attnBiasFlag, mlpBiasFlag}),
	Global: embed("model.embed_tokens.weight"),
	Stacks: decoderLayers(nil, inNorm, attn("self_attn.", "attention_bias", "attention_bias"), postNorm,
		plainMLP("mlp.fc1", "mlp.fc2", "I", "mlp_bias")),
	Final: norm("model.norm", "H", ""),
	Embed: "model.embed_tokens.weight",
}

// cosmos3EdgeVision is Cosmos3 Edge's vision side in module names: a
// SigLIP2 NaFlex tower (a linear patch embedding, num_patches learned
// positions, no pooling head) under model.visual, and the projector:
// a LayerNorm over the tower's width, then two biased linears from
// spatial_merge_size² patches through projector_hidden_size.
func cosmos3EdgeVision() Family {
	g, s, f := visionTower("model.visual.", "model.visual.")
	return Family{Name: "Cosmos3-Edge", Class: "Cosmos3Edge", ModelTypes: []string{"cosmos3_edge"}, Causal: "Cosmos3EdgeForConditionalGeneration",
		// No pooling head; no image_size (the NaFlex tower's positions
		// are num_patches).
		Defs: cat(replaceDef(replaceDef(towerAs("siglip2_vision_model", vcfg, "hidden_size", "1152", "27", "4304", "16", "224"),
			derived("vhead", "false")), derived("vS", "vP")),
			[]Def{opt("vM", "vision_config.spatial_merge_size", "2"),
				{Sym: "pI", Field: "projector_hidden_size", Default: "11520", Desc: "projector inner width", Pos: true}}),
		Global: g, Stacks: s,
		Final: cat(f, norm("model.projector.norm", "vH", "true"), linear("model.projector.linear_fc1", "pI", "vH*vM*vM", "true"),
			linear("model.projector.linear_fc2", "H", "pI", "true")),
	}
}

// cosmos3EdgeCkpt is the conversion mapping of cosmos3_edge reversed:
// the language model's names at the top level, the attention's
// Diffusers-style, the MLPs' fc1/fc2 (the tower's too) as up/down_proj.
var cosmos3EdgeCkpt = ckptRules(append([]string{
	`^model\.language_model\.embed_tokens\.`, "embed_tokens.", `^model\.language_model\.norm\.`, "norm.",
	`^model\.language_model\.layers\.`, "layers.",
	`\.mlp\.fc1\.`, ".mlp.up_proj.", `\.mlp\.fc2\.`, ".mlp.down_proj."}, cosmosAttnNames...)...)

// cosmos3EdgeIgnore are the generator's tensors a Cosmos3 Edge checkpoint
// may hold, which transformers drops on load
// (_keys_to_ignore_on_load_unexpected).
var cosmos3EdgeIgnore = []string{
	`^(?:model\.language_model\.)?action_modality_embed$`,
	`^(?:model\.language_model\.)?action_proj_(?:in|out)\.(?:bias|fc)\.weight$`,
	`^(?:model\.language_model\.)?time_embedder\.`,
	`^(?:model\.language_model\.)?proj_(?:in|out)\.`,
	`^(?:model\.language_model\.)?norm_moe_gen\.`,
	`^(?:model\.language_model\.)?layers\.\d+\.input_layernorm_moe_gen\.`,
	`^(?:model\.language_model\.)?layers\.\d+\.post_attention_layernorm_moe_gen\.`,
	`^(?:model\.language_model\.)?layers\.\d+\.mlp_moe_gen\.`,
	`^(?:model\.language_model\.)?layers\.\d+\.self_attn\.(?:add_[qkv]_proj|to_add_out|norm_added_[qk]|k_norm_und_for_gen)\.`,
}

// cosmos3OmniCkpt is the conversion mapping of cosmos3_omni reversed:
// the language model's and the vision tower's names at the top level,
// the attention's Diffusers-style.
var cosmos3OmniCkpt = ckptRules(append([]string{
	`^model\.language_model\.(layers\.|embed_tokens\.|norm\.)`, "$1",
	`^model\.visual\.(blocks\.|merger\.|patch_embed\.|pos_embed\.|deepstack_merger_list\.)`, "$1",
	`\.self_attn\.q_norm\.`, ".self_attn.norm_q.", `\.self_attn\.k_norm\.`, ".self_attn.norm_k."}, cosmosAttnNames...)...)

// cosmos3OmniIgnore are the unified checkpoint's generator, sound and
// action towers, which transformers drops on load.
var cosmos3OmniIgnore = []string{
	`\.add_q_proj\.`, `\.add_k_proj\.`, `\.add_v_proj\.`, `\.to_add_out\.`, `\.norm_added_q\.`, `\.norm_added_k\.`, `moe_gen`,
	`^proj_out\.`, `^proj_in\.`, `^time_embedder\.`,
	`^audio_proj_out\.`, `^audio_proj_in\.`, `^audio_modality_embed$`,
	`^action_proj_out\.`, `^action_proj_in\.`, `^action_modality_embed$`,
}

var _ = register(
	// Cosmos3 Edge: its head is never tied (no tied keys), whatever
	// tie_word_embeddings says.
	func() *Family {
		v := &vlm{Family: cosmos3EdgeVision(), textF: cosmos3EdgeText, reroot: newLM,
			head: []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, If: "causal"}}}
		return ckptVLM(v.register(), cosmos3EdgeCkpt, cosmosModuleNames(true), cosmos3EdgeIgnore)
	},
	// Its towers alone keep their module names (the mapping is
	// cosmos3_edge's).
	func() *Family { return towerText(cosmos3EdgeText, "Cosmos3EdgeText", "cosmos3_edge_text") },
	func() *Family {
		return towerVision(cosmos3EdgeVision(), "model.visual.", "Cosmos3Edge", "VisionModel", "cosmos3_edge_vision")
	},
	// Cosmos3 Omni: Qwen3-VL (its vision tower; the language model
	// text_config.model_type names, qwen3_vl_text by default) with
	// Cosmos3OmniConfig's top-level tie_word_embeddings (false).
	func() *Family {
		v := &vlm{Family: qwen3VLVision("Cosmos3-Omni", "Cosmos3Omni", "cosmos3_omni"), text: "qwen3_vl_text", reroot: newLM, tieTop: "false"}
		return withVisionType(ckptVLM(v.register(), cosmos3OmniCkpt, cosmosModuleNames(false), cosmos3OmniIgnore),
			"qwen3_vl_vision", "qwen3_vl")
	},
)

// withVisionType refuses (exit 3) a config whose vision_config names
// another model_type than mts: transformers builds whatever tower it
// names (AutoModel), the family models only its own.
func withVisionType(f *Family, mts ...string) *Family {
	inner := f.compose
	f.compose = func(c *Config) (*Family, error) {
		mt := mts[0]
		if raw, ok := c.lookup("vision_config.model_type"); ok && string(raw) != "null" {
			if err := json.Unmarshal(raw, &mt); err != nil {
				return nil, c.errorf("vision_config.model_type", "must be a string, found %s", kindOf(raw))
			}
		}
		if !slices.Contains(mts, mt) {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
				Reason: fmt.Sprintf("its vision tower, vision_config.model_type %q, is not modelled", mt)}
		}
		return inner(c)
	}
	return f
}
