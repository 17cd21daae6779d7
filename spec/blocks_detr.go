package spec

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
)

// Blocks of the DETR lineage (vision_detr.go): RT-DETR's ResNet, the
// hybrid encoder (AIFI layers, the FPN and PAN of CSP-RepVGG blocks),
// multi-scale deformable attention, the MLP prediction heads, and the
// composition with a backbone_config's registered backbone. Each returns
// plain data to concatenate with cat.

// convNorm is a convolution "conv" (bias-free) and its BatchNorm "norm"
// under pre: RT-DETR's ConvNormLayer. groups "" is 1.
func convNorm(pre, out, in, k, groups string) []T {
	return cbn{Conv: "conv", Norm: "norm", Out: out, In: in, K: k, Groups: groups}.at(pre)
}

// mlpHead is DETR's MLPPredictionHead under pre: n linears (n an
// expression, at least 1) in → hid → … → out, layers.K, all biased.
func mlpHead(pre, in, hid, out, n string) []T {
	mid := copies("max("+n+"-2, 0)", linear(pre+"layers.{e}", hid, hid, "true"))
	for i := range mid {
		mid[i].From = "1"
	}
	return cat(
		when(n+" == 1", linear(pre+"layers.0", out, in, "true")),
		when(n+" > 1", linear(pre+"layers.0", hid, in, "true"), mid),
		when(n+" > 1", []T{{Name: pre + "layers.{e}.weight", Shape: []string{out, hid}, Role: RoleLinear, Experts: "1", From: n + "-1", PerCopy: true},
			{Name: pre + "layers.{e}.bias", Shape: []string{out}, Role: RoleBias, Experts: "1", From: n + "-1", PerCopy: true}}))
}

// mlpFixed is mlpHead of a fixed n layers, its names without {e}: for a
// head repeated per copy (copies).
func mlpFixed(pre, in, hid, out string, n int) []T {
	var ts []T
	for k := 0; k < n; k++ {
		i, o := hid, hid
		if k == 0 {
			i = in
		}
		if k == n-1 {
			o = out
		}
		ts = cat(ts, linear(fmt.Sprintf("%slayers.%d", pre, k), o, i, "true"))
	}
	return ts
}

// deformAttn is multi-scale deformable attention under pre on width d:
// heads·levels·points sampling offsets (×2) and attention weights, the
// value and output projections; scale, when set, names the per-point
// scale buffer (RT-DETR v2's n_points_scale, D-FINE's num_points_scale,
// levels·points long) and noValue drops value_proj/output_proj (D-FINE
// samples the encoder's features directly).
func deformAttn(pre, d, heads, levels, points, scale string, noValue bool) []T {
	out := cat(linear(pre+"sampling_offsets", heads+"*"+levels+"*"+points+"*2", d, "true"),
		linear(pre+"attention_weights", heads+"*"+levels+"*"+points, d, "true"))
	for i := range out { // LW-DETR without projector scales: zero levels
		out[i].ZeroOK = true
	}
	if !noValue {
		out = cat(out, linear(pre+"value_proj", d, d, "true"), linear(pre+"output_proj", d, d, "true"))
	}
	if scale != "" {
		out = append(out, T{Name: pre + scale, Shape: []string{levels + "*" + points}, Role: RoleNorm, AnyDType: true})
	}
	return out
}

// mhaOut is a biased multi-head attention q/k/v/out_proj [d, d] under pre.
func mhaOut(pre, d string) []T {
	return cat(linear(pre+"q_proj", d, d, "true"), linear(pre+"k_proj", d, d, "true"),
		linear(pre+"v_proj", d, d, "true"), linear(pre+"out_proj", d, d, "true"))
}

// rtDetrResNet is RT-DETR's ResNet-D (RTDetrResNetBackbone) under pre,
// its fields under cfg: a stem of three 3×3 convolutions (channels →
// embedding_size/2 → embedding_size/2 → embedding_size), then a stage per
// entry of depths/hidden_sizes whose first block has the shortcut: a
// bottleneck block's where the width or stride changes (behind an
// average pool, shortcut.1, wherever it strides — every stage but the
// first unless downsample_in_first_stage — even at an unchanged width), a
// basic block's always (shortcut.1 where the width changes). Symbols: rC, rE, rhs, rdp, rN, rBot, rDF.
func rtDetrResNet(pre, cfg string) encoderPart {
	defs := resnetDefs(cfg)
	w, in := "at(rhs, l)", stageIn("rhs", "rE")
	q := "(" + w + ")/4"
	stride2 := "(l > 0 || rDF)"
	block := cat(
		when("rBot && e == 0 && "+stride2, convLayer("shortcut.1.", w, in, "1")),
		when("rBot && e == 0 && !"+stride2+" && "+in+" != "+w, convLayer("shortcut.", w, in, "1")),
		when("rBot", convLayer("layer.0.", q, in, "1"), convLayer("layer.1.", q, q, "3"), convLayer("layer.2.", w, q, "1")),
		when("!rBot && e == 0 && "+in+" != "+w, convLayer("shortcut.1.", w, in, "1")),
		when("!rBot && e == 0 && "+in+" == "+w, convLayer("shortcut.", w, in, "1")),
		when("!rBot", convLayer("layer.0.", w, in, "3"), convLayer("layer.1.", w, w, "3")))
	return encoderPart{Name: "RT-DETR ResNet", Defs: defs,
		Global: cat(convLayer(pre+"embedder.embedder.0.", "rE/2", "rC", "3"), convLayer(pre+"embedder.embedder.1.", "rE/2", "rE/2", "3"),
			convLayer(pre+"embedder.embedder.2.", "rE", "rE/2", "3")),
		Stacks: []Stack{{Name: "stage", Prefix: pre + "encoder.stages.{l}.", Layers: "rN", Tensors: blocksOf("layers.", "at(rdp, l)", block)}}}
}

// detrBackbones says, for each backbone model_type a DETR-like model
// may name in backbone_config, the width of its output e (an expression
// of the backbone's symbols, prefixed b_, and of bOut, the out_indices):
// the channels the encoder's input projections take.
var detrBackbones = map[string]string{
	"rt_detr_resnet": "at(bOut, e) == 0 ? b_rE : at(b_rhs, at(bOut, e)-1)",
	"lw_detr_vit":    "b_vH",
	"rf_detr_dinov2": "b_H",
	// BackboneMixin's channels: [embedding_size] + hidden_sizes, whatever
	// the stages' own stage_out_channels.
	"hgnet_v2": "at(bOut, e) == 0 ? b_hE : at(b_hHS, at(bOut, e)-1)",
}

// detrBB is where a DETR-like model holds its backbone: the names'
// prefix, the default backbone's model_type ("" none: a config without
// backbone_config is not modelled) and renames of the backbone's names
// in this model's checkpoints (old, new substrings).
type detrBB struct {
	Pre, Default string
	Rename       [][2]string
}

// withDetrBackbone makes f a composition with the backbone its
// backbone_config names (familyPart's Backbone class, its fields under
// "backbone_config.", its names under pre, symbols b_…), def the
// model_type of the class's default backbone (a config without
// backbone_config). The symbol bCh is then the expression of output e's (bCh1: e+1's)
// width; with freeze (freeze_backbone_batch_norms) the backbone's
// BatchNorms are frozen: no num_batches_tracked. A backbone outside
// detrBackbones, or a timm one, is not modelled (exit 3).
func withDetrBackbone(f *Family, bb detrBB) *Family {
	pre, def := bb.Pre, bb.Default
	const cfg = "backbone_config."
	var cache sync.Map
	f.compose = func(c *Config) (*Family, error) {
		mt := def
		if raw, ok := c.lookup(strings.TrimSuffix(cfg, ".")); (!ok || string(raw) == "null") && def == "" {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: "its default backbone (no backbone_config) is not modelled"}
		}
		if raw, ok := c.lookup(cfg + "model_type"); ok {
			if err := json.Unmarshal(raw, &mt); err != nil {
				return nil, c.errorf(cfg+"model_type", "must be a string, found %s", kindOf(raw))
			}
		}
		if on, err := c.BoolOr("use_timm_backbone", false); err != nil || on {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: "a timm backbone is not modelled"}
		}
		// A backbone named by checkpoint (backbone: "…") is loaded from
		// it, whatever backbone_config says: its layout is not known here.
		if raw, ok := c.lookup("backbone"); ok && string(raw) != "null" {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: "a backbone loaded by name (backbone) is not modelled"}
		}
		if g, ok := cache.Load(mt); ok {
			return g.(*Family), nil
		}
		ch, known := detrBackbones[mt]
		part, ok := familyPart(mt, "Backbone", cfg, pre, "b_")
		if !known || !ok {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
				Reason: fmt.Sprintf("its backbone, %smodel_type %q, has no spec", cfg, mt)}
		}
		frozen := func(ts []T) []T {
			out := append([]T(nil), ts...)
			for i := range out {
				for _, r := range bb.Rename {
					out[i].Name = strings.Replace(out[i].Name, r[0], r[1], 1)
				}
				if strings.HasSuffix(out[i].Name, ".num_batches_tracked") {
					out[i].If = andIf(out[i].If, "!bFrz")
				}
			}
			return out
		}
		var stacks []Stack
		for _, s := range part.Stacks {
			s.Tensors = frozen(s.Tensors)
			stacks = append(stacks, s)
		}
		ch1 := symRenamer("e", "(e+1)")(ch)
		rch := func(ts []T) []T { return renameSyms(ts, "bCh", "("+ch+")", "bCh1", "("+ch1+")") }
		for _, s := range f.Stacks {
			stacks = append(stacks, renamedStack(s, s.Name, s.Prefix, "bCh", "("+ch+")"))
		}
		defs := cat(part.Defs, []Def{flag("bFrz", "freeze_backbone_batch_norms", "true", "the backbone's BatchNorms are frozen (no num_batches_tracked)")})
		for _, d := range f.Defs {
			if d.Sym != "bCh" && d.Sym != "bCh1" {
				defs = append(defs, d)
			}
		}
		g := &Family{Name: f.Name + " (" + part.Name + ")", Class: f.Class, ConfigClass: f.ConfigClass, ModelTypes: f.ModelTypes,
			Causal: f.Causal, SeqCls: f.SeqCls, Tasks: f.Tasks, Embed: f.Embed, Head: f.Head, Ignore: f.Ignore, Variants: f.Variants,
			BasePrefix: f.BasePrefix,
			Defs:       defs, Global: cat(frozen(part.Global), rch(f.Global)), Stacks: stacks, Final: cat(frozen(part.Final), rch(f.Final))}
		if err := g.compile(); err != nil {
			return nil, fmt.Errorf("spec: %s with %s: %w", f.Name, part.Name, err)
		}
		g2, _ := cache.LoadOrStore(mt, g)
		return g2.(*Family), nil
	}
	return f
}

// andIf is the conjunction of two conditions ("" is true).
func andIf(a, b string) string {
	if a == "" {
		return b
	}
	return "(" + a + ") && (" + b + ")"
}

// lwDetrViT is LW-DETR's ViT (LwDetrViTBackbone) under pre, its fields
// under cfg: a patch embedding with absolute positions for the
// pre-training image (and a class-token slot), and layers with a
// bias-free key, layer scales (gamma_1/2) and an MLP mlp_ratio wide; q,
// k, v, o as transformers 5 names them (LW-DETR's checkpoints name them
// query/key/value/output: lwDetrViTNames). Symbols vH, vL, vHeads, vP,
// vPS, vC, vQKV, vAbs, vMR.
func lwDetrViT(pre, cfg string) encoderPart {
	defs := []Def{
		{Sym: "vH", Field: cfg + "hidden_size", Default: "768", Legend: "H", Desc: "ViT width", Show: true, Pos: true},
		{Sym: "vL", Field: cfg + "num_hidden_layers", Default: "12", Legend: "L", Desc: "ViT layers", Show: true, Max: MaxLayers},
		{Sym: "vHeads", Field: cfg + "num_attention_heads", Default: "12", Desc: "ViT heads", Pos: true},
		{Sym: "vMR", Field: cfg + "mlp_ratio", Type: Milli, Default: "4000", Desc: "MLP width over hidden_size (×1000)"},
		{Sym: "vP", Field: cfg + "patch_size", Type: IntOrList, Default: "16", Desc: "patch side"},
		{Sym: "vPS", Field: cfg + "pretrain_image_size", Type: IntOrList, Default: "224", Desc: "the pre-training image side"},
		channels("vC", cfg+"num_channels"),
		flag("vQKV", cfg+"qkv_bias", "true", "query and value have biases"),
		flag("vAbs", cfg+"use_absolute_position_embeddings", "true", "learned absolute positions"),
	}
	a := "vHeads*(vH/vHeads)"
	layer := cat(linear("attention.q_proj", a, "vH", "vQKV"), linear("attention.k_proj", a, "vH", ""),
		linear("attention.v_proj", a, "vH", "vQKV"), linear("attention.o_proj", "vH", a, "true"),
		vec("gamma_1", "vH"), vec("gamma_2", "vH"),
		linear("intermediate.fc1", "vH*vMR/1000", "vH", "true"), linear("intermediate.fc2", "vH", "vH*vMR/1000", "true"),
		norm("layernorm_before", "vH", "true"), norm("layernorm_after", "vH", "true"))
	return encoderPart{Name: "LW-DETR ViT", Defs: defs,
		Global: []T{{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "(pick(vPS, 1)/pick(vP, 1))*(pick(vPS, 0)/pick(vP, 0))+1", "vH"}, Role: RoleEmbedding, If: "vAbs"},
			{Name: pre + "embeddings.projection.weight", Shape: []string{"vH", "vC", "pick(vP, 0)", "pick(vP, 1)"}, Role: RoleLinear},
			{Name: pre + "embeddings.projection.bias", Shape: []string{"vH"}, Role: RoleBias}},
		Stacks: []Stack{{Name: "ViT", Prefix: pre + "encoder.layer.{l}.", Layers: "vL", Tensors: layer}}}
}

// lwDetrViTNames are the ViT's attention names in an LW-DETR checkpoint
// (transformers 5 writes the original ones back on save).
var lwDetrViTNames = [][2]string{
	{"attention.q_proj.", "attention.attention.query."}, {"attention.k_proj.", "attention.attention.key."},
	{"attention.v_proj.", "attention.attention.value."}, {"attention.o_proj.", "attention.output."},
}
