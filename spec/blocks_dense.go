package spec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Blocks of the dense-prediction group (vision_dense.go): detection,
// segmentation, depth, keypoints and SAM. Each returns plain data to
// concatenate with cat, as the blocks of blocks.go do.

// under is ts with pre put before every name.
func under(pre string, ts ...[]T) []T {
	out := cat(ts...)
	for i := range out {
		out[i].Name = pre + out[i].Name
	}
	return out
}

// copies is ts once per copy {e} = 0..n-1 (the ts' names hold {e}),
// e bound in shapes and conditions.
func copies(n string, ts ...[]T) []T {
	out := cat(ts...)
	for i := range out {
		out[i].Experts, out[i].PerCopy = n, true
	}
	return out
}

// convNB is a 2-D convolution without a bias [out, in, kh, kw].
func convNB(name, out, in, kh, kw string) []T {
	return []T{{Name: name + ".weight", Shape: []string{out, in, kh, kw}, Role: RoleLinear}}
}

// samFeedForward is SAM's MLP under pre: proj_in [hid, in], depth-2
// hidden layers [hid, hid] (layers.K), proj_out [out, hid], all biased.
// depth is an expression; a hypernetwork MLP, itself one copy of many
// ({e} in pre), is fixed at 3 (fixed3).
func samFeedForward(pre, in, hid, out, depth string, fixed3 bool) []T {
	var mid []T
	if fixed3 {
		mid = linear(pre+"layers.0", hid, hid, "true")
	} else {
		mid = copies("max("+depth+"-2, 0)", linear(pre+"layers.{e}", hid, hid, "true"))
	}
	return cat(linear(pre+"proj_in", hid, in, "true"), mid, linear(pre+"proj_out", out, hid, "true"))
}

// samVisionDefs are SamVisionConfig's fields under cfg ("" alone,
// "vision_config." in SamModel): the ViT-det encoder of SAM.
func samVisionDefs(cfg string) []Def {
	return []Def{
		{Sym: "sH", Field: cfg + "hidden_size", Default: "768", Legend: "H", Desc: "image encoder width", Show: true, Pos: true},
		{Sym: "sL", Field: cfg + "num_hidden_layers", Default: "12", Legend: "L", Desc: "image encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "sHeads", Field: cfg + "num_attention_heads", Default: "12", Desc: "image encoder heads", Pos: true},
		{Sym: "sR", Field: cfg + "mlp_ratio", Type: Milli, Default: "4000", Desc: "FFN width over hidden_size (×1000)"},
		{Sym: "sI", Field: cfg + "mlp_dim", Default: "sH*sR/1000", Null: "=", Legend: "I", Desc: "image encoder FFN width", Show: true, Pos: true},
		{Sym: "sOut", Field: cfg + "output_channels", Default: "256", Desc: "the neck's channels", Pos: true},
		channels("sC", cfg+"num_channels"),
		{Sym: "sS", Field: cfg + "image_size", Default: "1024", Desc: "image side, pixels", Pos: true},
		{Sym: "sP", Field: cfg + "patch_size", Default: "16", Legend: "P", Desc: "patch side, pixels", Show: true, Pos: true},
		flag("sQKV", cfg+"qkv_bias", "true", "qkv has a bias"),
		flag("sAbs", cfg+"use_abs_pos", "true", "learned absolute positions"),
		flag("sRel", cfg+"use_rel_pos", "true", "relative position tables"),
		{Sym: "sW", Field: cfg + "window_size", Default: "14", Desc: "attention window side (0: global everywhere)"},
		listOf("sG", cfg+"global_attn_indexes", "list(2, 5, 8, 11)", "the layers of global attention"),
		{Sym: "sNPF", Field: cfg + "num_pos_feats", Default: "128", Desc: "random Fourier position features", Pos: true},
		derived("sD", "sH/sHeads"),
	}
}

// samVisionEncoder is SAM's image encoder under pre ("vision_encoder."):
// patch embedding, absolute positions, windowed layers with relative
// position tables (global layers' as wide as the image), the neck.
func samVisionEncoder(pre string) (global []T, stack Stack, final []T) {
	global = cat(conv(pre+"patch_embed.projection", "sH", "sC", "sP", "sP"),
		[]T{{Name: pre + "pos_embed", Shape: []string{"1", "sS/sP", "sS/sP", "sH"}, Role: RoleEmbedding, If: "sAbs"}})
	rel := "in(l, sG) || sW == 0 ? 2*(sS/sP)-1 : 2*sW-1"
	stack = Stack{Name: "image encoder", Prefix: pre + "layers.{l}.", Layers: "sL", Tensors: cat(
		norm("layer_norm1", "sH", "true"),
		linear("attn.qkv", "3*sH", "sH", "sQKV"), linear("attn.proj", "sH", "sH", "true"),
		[]T{{Name: "attn.rel_pos_h", Shape: []string{rel, "sD"}, Role: RoleEmbedding, If: "sRel"},
			{Name: "attn.rel_pos_w", Shape: []string{rel, "sD"}, Role: RoleEmbedding, If: "sRel"}},
		norm("layer_norm2", "sH", "true"),
		linear("mlp.lin1", "sI", "sH", "true"), linear("mlp.lin2", "sH", "sI", "true"))}
	final = cat(convNB(pre+"neck.conv1", "sOut", "sH", "1", "1"), norm(pre+"neck.layer_norm1", "sOut", "true"),
		convNB(pre+"neck.conv2", "sOut", "sOut", "3", "3"), norm(pre+"neck.layer_norm2", "sOut", "true"))
	return global, stack, final
}

// samPromptDefs are SamPromptEncoderConfig's and SamMaskDecoderConfig's
// fields.
func samPromptDefs() []Def {
	const p, m = "prompt_encoder_config.", "mask_decoder_config."
	return []Def{
		{Sym: "pH", Field: p + "hidden_size", Default: "256", Desc: "prompt encoder width", Pos: true},
		{Sym: "pMC", Field: p + "mask_input_channels", Default: "16", Desc: "mask embedding channels", Pos: true},
		{Sym: "pN", Field: p + "num_point_embeddings", Default: "4", Desc: "point embeddings"},
		{Sym: "mH", Field: m + "hidden_size", Default: "256", Legend: "mH", Desc: "mask decoder width", Show: true, Pos: true},
		{Sym: "mL", Field: m + "num_hidden_layers", Default: "2", Legend: "mL", Desc: "mask decoder layers", Show: true, Max: MaxLayers},
		{Sym: "mI", Field: m + "mlp_dim", Default: "2048", Desc: "mask decoder FFN width", Pos: true},
		{Sym: "mDS", Field: m + "attention_downsample_rate", Default: "2", Desc: "cross-attention width divisor", Pos: true},
		{Sym: "mMM", Field: m + "num_multimask_outputs", Default: "3", Desc: "mask outputs besides the single one"},
		{Sym: "mIouD", Field: m + "iou_head_depth", Default: "3", Desc: "IoU head layers"},
		{Sym: "mIouH", Field: m + "iou_head_hidden_dim", Default: "256", Desc: "IoU head width", Pos: true},
	}
}

// samPromptEncoder is SAM's prompt encoder (blocks_sam.go's samPrompt).
func samPromptEncoder() []T { return samPrompt{Pos: "sNPF"}.build("") }

// samMaskDecoder is SAM's mask decoder under pre ("mask_decoder."):
// blocks_sam.go's two-way decoder with SAM's names.
func samMaskDecoder(pre string) (stack Stack, final []T) { return samV1Decoder.build(pre) }

// samHQDecoder is SAM-HQ's additions to the mask decoder: the HQ token
// and its MLP, the ViT features' compression (vit_dim wide) and the
// mask features' convolutions.
func samHQDecoder(pre string) []T {
	return cat([]T{{Name: pre + "hq_token.weight", Shape: []string{"1", "mH"}, Role: RoleEmbedding}},
		samFeedForward(pre+"hq_mask_mlp.", "mH", "mH", "mH/8", "3", true),
		convT(pre+"compress_vit_conv1", "mVit", "mH", "2"), norm(pre+"compress_vit_norm", "mH", "true"),
		convT(pre+"compress_vit_conv2", "mH", "mH/8", "2"),
		convT(pre+"encoder_conv1", "mH", "mH/4", "2"), norm(pre+"encoder_norm", "mH/4", "true"),
		convT(pre+"encoder_conv2", "mH/4", "mH/8", "2"),
		conv(pre+"mask_conv1", "mH/4", "mH/8", "3", "3"), norm(pre+"mask_norm", "mH/4", "true"),
		conv(pre+"mask_conv2", "mH/8", "mH/4", "3", "3"))
}

// milliListValue reads a MilliList; a bare number is a list of one
// (GroupViT's assign_mlp_ratio: one ratio for both MLPs, or a pair).
func (c *Config) milliListValue(field string, raw json.RawMessage) (any, error) {
	if v, err := c.milliValue(field, raw); err == nil {
		return []any{v}, nil
	}
	items, err := c.arrayItems(field, raw)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, it := range items {
		v, err := c.milliValue(field, it)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// refuseWhen makes a family refuse (exit 3, NoSpecError) a config that
// uses a piece it does not model: a true flag, or a non-null sub-config
// (a backbone_config, a timm backbone name), each with the reason.
func refuseWhen(flags, objects []string, why string) func(*Family) {
	return func(f *Family) {
		f.compose = func(c *Config) (*Family, error) {
			for _, fl := range flags {
				if on, err := c.BoolOr(fl, false); err != nil || on {
					return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: why}
				}
			}
			for _, o := range objects {
				if raw, ok := c.lookup(o); ok && string(raw) != "null" {
					return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: why}
				}
			}
			return f, nil
		}
	}
}

// dptNeck is DPT's neck (the reassemble stage on a ViT's hidden states
// of width in, the 3×3 convolutions to fusion_hidden_size F, the fusion
// stage), one reassemble layer per entry of neck_hidden_sizes (nh) and
// reassemble_factors (rf): a transposed convolution where the factor is
// above 1, a strided convolution below.
func dptNeck(pre, in string) []T {
	nh := "at(nh, e)"
	return cat(dptReassemble(pre+"reassemble_stage.", in, "len(nh)"),
		copies("len(nh)", convNB(pre+"convs.{e}", "F", nh, "3", "3"),
			conv(pre+"fusion_stage.layers.{e}.projection", "F", "F", "1", "1"),
			under(pre+"fusion_stage.layers.{e}.",
				convBias("residual_layer1.convolution1", "F", "F", "3", "fBias"), convBias("residual_layer1.convolution2", "F", "F", "3", "fBias"),
				convBias("residual_layer2.convolution1", "F", "F", "3", "fBias"), convBias("residual_layer2.convolution2", "F", "F", "3", "fBias"),
				when("fBN", batchNorm("residual_layer1.batch_norm1", "F"), batchNorm("residual_layer1.batch_norm2", "F"),
					batchNorm("residual_layer2.batch_norm1", "F"), batchNorm("residual_layer2.batch_norm2", "F")))))
}

// dptReassemble is DPT's reassemble stage under pre: a projection from
// in to each neck_hidden_sizes entry (nh) and its resize by
// reassemble_factors (rf: a transposed convolution above 1, a strided
// convolution below), as many as both lists have; the readout
// projections (readouts of them) where readout is 'project'.
func dptReassemble(pre, in, readouts string) []T {
	nh := "at(nh, e)"
	f := "at(rf, e)"
	return cat(
		copies("min(len(nh), len(rf))", conv(pre+"layers.{e}.projection", nh, in, "1", "1"),
			when(f+" > 1000", []T{{Name: pre + "layers.{e}.resize.weight", Shape: []string{nh, nh, f + "/1000", f + "/1000"}, Role: RoleLinear},
				{Name: pre + "layers.{e}.resize.bias", Shape: []string{nh}, Role: RoleBias}}),
			when(f+" < 1000", conv(pre+"layers.{e}.resize", nh, nh, "3", "3"))),
		copies(readouts, when("readout == 'project'", linear(pre+"readout_projects.{e}.0", in, "2*"+in, "true"))))
}

// convBias is a 2-D convolution [out, in, k, k] with a bias where bias
// holds.
func convBias(name, out, in, k, bias string) []T {
	return []T{{Name: name + ".weight", Shape: []string{out, in, k, k}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias, If: bias}}
}

// familyPart is a part of a composition made from the registered family
// of model_type mt: its task class of suffix (Backbone, Model; the base
// model when the family has no such task), every symbol prefixed sym
// and read under cfg ("backbone_config."), every name under pre
// ("backbone."). False when mt has no such family.
func familyPart(mt, suffix, cfg, pre, sym string) (encoderPart, bool) {
	f := familyOf(mt)
	if f == nil || f.compose != nil {
		return encoderPart{}, false
	}
	return partOf(f, suffix, cfg, pre, sym)
}

// partOf is familyPart of the family f itself (a family built beside
// the one using it, not looked up by model_type).
func partOf(f *Family, suffix, cfg, pre, sym string) (encoderPart, bool) {
	t := f.findTask(f.Class + suffix)
	if t == nil {
		if t = f.findTask(f.Class + TaskBase); t == nil {
			return encoderPart{}, false
		}
	}
	g := f.forTask(t)
	var pairs []string
	for _, d := range g.Defs {
		pairs = append(pairs, d.Sym, sym+d.Sym)
	}
	rx := symRenamer(pairs...)
	reroot := func(ts []T) []T {
		out := renameSyms(ts, pairs...)
		for i := range out {
			out[i].Name = pre + out[i].Name
			out[i].From, out[i].Each = rx(out[i].From), rx(out[i].Each)
		}
		return out
	}
	p := encoderPart{Name: f.Name, Global: reroot(g.Global), Final: reroot(g.Final)}
	for _, d := range g.Defs {
		d.Sym, d.Default, d.Desc = sym+d.Sym, rx(d.Default), "backbone: "+rx(d.Desc)
		if d.Null != "" && d.Null != "=" {
			d.Null = rx(d.Null)
		}
		if d.Divides != "" {
			d.Divides = sym + d.Divides
		}
		if d.Legend != "" {
			d.Legend = sym + d.Legend
		}
		if d.Field != "" {
			alts := strings.Split(d.Field, "|")
			for i := range alts {
				alts[i] = cfg + alts[i]
			}
			d.Field = strings.Join(alts, "|")
		}
		p.Defs = append(p.Defs, d)
	}
	for _, s := range g.Stacks {
		p.Stacks = append(p.Stacks, renamedStack(s, "backbone "+s.Name, pre+s.Prefix, pairs...))
	}
	for _, v := range g.Variants {
		var nv [][2]string
		for _, r := range v {
			if strings.HasPrefix(r[0], "*") { // an infix rewrite, wherever it is
				nv = append(nv, r)
			} else {
				nv = append(nv, [2]string{pre + r[0], pre + r[1]})
			}
		}
		p.Variants = append(p.Variants, nv)
	}
	return p, true
}

// joinVariants is the variants of a composition of two parts, each with
// its own: either part's alone, and each pair of them together (a
// composition written by transformers 5.x renames in both).
func joinVariants(a, b [][][2]string) [][][2]string {
	out := append(slices.Clone(a), b...)
	for _, x := range a {
		for _, y := range b {
			out = append(out, append(slices.Clone(x), y...))
		}
	}
	return out
}

// withBackbone makes f a composition: the backbone the config's
// cfg+"model_type" names (a registered family's Backbone class, its
// fields under cfg, its names under pre: familyPart, symbols "b_…") put
// before f's own tensors. A config without the sub-config (the class's
// default backbone, whose defaults are not the backbone family's) or
// naming a model_type without a spec is not modelled (exit 3).
func withBackbone(f *Family, cfg, pre string) *Family { return withPart(f, cfg, pre, "Backbone") }

// withPart is withBackbone with the part's task class suffix
// ("ForKeypointDetection": LightGlue's SuperPoint).
func withPart(f *Family, cfg, pre, suffix string) *Family {
	return backboneComposed(f, cfg, pre, suffix, false)
}

// backboneOutputs is what a head on a backbone's feature maps reads of
// it, in the backbone family's own symbols: Out, the stages it outputs
// (out_indices, 0 the stem; "" when the family has no such symbol: its
// config's out_indices, the last stage by default), and Ch, the list of
// every stage's width, the stem's first (the Backbone class's
// num_features).
type backboneOutputs struct{ Out, Ch string }

// backboneOuts are the backbones whose feature maps a head may read
// (withFeatureBackbone), by model_type.
var backboneOuts = map[string]backboneOutputs{
	"resnet":          {Ch: "concat(list(rE), rhs)"}, // out_indices: ResNet's are not among its symbols
	"convnext":        {Out: "eOut", Ch: "concat(list(at(hs, 0)), hs)"},
	"convnextv2":      {Out: "eOut", Ch: "concat(list(at(hs, 0)), hs)"},
	"swin":            {Out: "eOut", Ch: "list(eE, eE, 2*eE, 4*eE, 8*eE, 16*eE, 32*eE, 64*eE, 128*eE, 256*eE, 512*eE)"},
	"maskformer-swin": {Out: "eOut", Ch: "list(eE, eE, 2*eE, 4*eE, 8*eE, 16*eE, 32*eE, 64*eE, 128*eE, 256*eE, 512*eE)"},
}

// withFeatureBackbone is withBackbone for a head that reads the
// backbone's feature maps: the symbols bOut (the stages the backbone
// outputs, 0 the stem) and bCh (every stage's width, the stem's first)
// are defined from backboneOuts; a backbone not listed there is not
// modelled (exit 3).
func withFeatureBackbone(f *Family, cfg, pre string) *Family {
	// Placeholders for the family compiled alone (TestFamiliesCompile):
	// the composition replaces them.
	f.Defs = cat(f.Defs, []Def{derived("bCh", "empty"), derived("bOut", "empty")})
	return backboneComposed(f, cfg, pre, "Backbone", true)
}

func backboneComposed(f *Family, cfg, pre, suffix string, feats bool) *Family {
	var cache sync.Map
	f.compose = func(c *Config) (*Family, error) {
		obj := strings.TrimSuffix(cfg, ".")
		if raw, ok := c.lookup(obj); !ok || string(raw) == "null" {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: "its default backbone (no " + obj + ") is not modelled"}
		}
		var mt string
		if raw, ok := c.lookup(cfg + "model_type"); ok {
			if err := json.Unmarshal(raw, &mt); err != nil {
				return nil, c.errorf(cfg+"model_type", "must be a string, found %s", kindOf(raw))
			}
		}
		if g, ok := cache.Load(mt); ok {
			return g.(*Family), nil
		}
		part, ok := familyPart(mt, suffix, cfg, pre, "b_")
		if !ok {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
				Reason: fmt.Sprintf("its backbone, %smodel_type %q, has no spec", cfg, mt)}
		}
		// A symbol of the part's is the part's: the family's own
		// definition of it is a placeholder for the family compiled
		// alone (ZoeDepth's b_H).
		own := slices.DeleteFunc(slices.Clone(f.Defs), func(d Def) bool {
			return slices.ContainsFunc(part.Defs, func(p Def) bool { return p.Sym == d.Sym })
		})
		if feats {
			own = withoutDefs(own, "bCh", "bOut")
			bo, ok := backboneOuts[mt]
			if !ok {
				return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
					Reason: fmt.Sprintf("the widths of its backbone's (%smodel_type %q) feature maps are not modelled", cfg, mt)}
			}
			var pairs []string
			for _, d := range part.Defs {
				pairs = append(pairs, strings.TrimPrefix(d.Sym, "b_"), d.Sym)
			}
			rx := symRenamer(pairs...)
			out := derived("bOut", rx(bo.Out))
			if bo.Out == "" {
				out = listOf("bOut", cfg+"out_indices", "list(len(bCh)-1)", "the stages the backbone outputs")
			}
			part.Defs = append(part.Defs, derived("bCh", rx(bo.Ch)), out)
		}
		g := &Family{Name: f.Name + " (" + part.Name + ")", Class: f.Class, ConfigClass: f.ConfigClass, ModelTypes: f.ModelTypes,
			Causal: f.Causal, SeqCls: f.SeqCls, Tasks: f.Tasks, Embed: f.Embed, Head: f.Head, Ignore: f.Ignore, Variants: joinVariants(f.Variants, part.Variants), BasePrefix: f.BasePrefix,
			Defs: cat(part.Defs, own), Global: cat(part.Global, f.Global), Stacks: cat(part.Stacks, f.Stacks), Final: cat(part.Final, f.Final)}
		if err := g.compile(); err != nil {
			return nil, fmt.Errorf("spec: %s with %s: %w", f.Name, part.Name, err)
		}
		g2, _ := cache.LoadOrStore(mt, g)
		return g2.(*Family), nil
	}
	return f
}

// uperHead is UperNet's decode head under "decode_head." (a pyramid
// pooling module on the last of the feature maps: one 1×1 ConvModule per
// pool_scales entry ps, a bottleneck; an FPN: a lateral and an output
// ConvModule per other map, its bottleneck; the classifier) and, where
// aux, the FCN auxiliary head under "auxiliary_head."
// (auxiliary_num_convs ConvModules, conv_cat where aCat, a classifier).
// A ConvModule is a bias-free convolution (Conv) and its BatchNorm
// (Norm); PSP is a pooling module's name (its {e} the scale),
// Bottleneck the pyramid's. Symbols: H (the heads' width), ps, C, aux,
// aH (the auxiliary width), aCat, aIn (its input width), AuxN (the
// expression of the auxiliary convolutions' count), Maps (the feature
// maps' count), Ch (map i's width).
type uperHead struct {
	Conv, Norm, PSP, Bottleneck string
	Maps, AuxN                  string
	Ch                          func(i string) string
}

// uperBEiT is the head's names as BEiT writes them (transformers 5.x
// too: it renames them back on saving); uperBEiT5 as transformers 5.x
// writes Data2Vec-Vision's. UperNet's norms are batch_norm.
var (
	uperBEiT  = uperHead{Conv: "conv", Norm: "bn", PSP: "psp_modules.{e}.1.", Bottleneck: "bottleneck."}
	uperBEiT5 = uperHead{Conv: "convolution", Norm: "normalization", PSP: "psp_modules.blocks.{e}.conv.", Bottleneck: "psp_bottleneck."}
)

func (u uperHead) build() []T {
	cm := func(pre, out, in, k string) []T {
		return cbn{Conv: u.Conv, Norm: u.Norm, Out: out, In: in, K: k}.at(pre)
	}
	last := u.Ch(u.Maps + "-1")
	const d, a = "decode_head.", "auxiliary_head."
	return cat(conv(d+"classifier", "C", "H", "1", "1"),
		copies("len(ps)", cm(d+u.PSP, "H", last, "1")),
		cm(d+u.Bottleneck, "H", last+"+len(ps)*H", "3"),
		copies(u.Maps+"-1", cm(d+"lateral_convs.{e}.", "H", u.Ch("e"), "1"), cm(d+"fpn_convs.{e}.", "H", "H", "3")),
		cm(d+"fpn_bottleneck.", "H", u.Maps+"*H", "3"),
		when("aux", copies(u.AuxN, cm(a+"convs.{e}.", "aH", "e == 0 ? aIn : aH", "3")),
			when("aCat", cm(a+"conv_cat.", "aH", "aIn+aH", "3")),
			conv(a+"classifier", "C", "aH", "1", "1")))
}

// uperAuxDefs are the auxiliary FCN head's fields (UperNet's, BEiT's);
// in is the default of its input width.
func uperAuxDefs(in string) []Def {
	return []Def{
		flag("aux", "use_auxiliary_head", "true", "the auxiliary FCN head"),
		{Sym: "aH", Field: "auxiliary_channels", Default: "256", Desc: "the auxiliary head's width", Pos: true},
		{Sym: "aN", Field: "auxiliary_num_convs", Default: "1", Desc: "the auxiliary head's convolutions"},
		flag("aCat", "auxiliary_concat_input", "false", "the auxiliary head concatenates its input"),
		{Sym: "aIn", Field: "auxiliary_in_channels", Default: in, Null: "=", Desc: "the auxiliary head's input width"},
	}
}

// onlyBackbones makes f (a composition: withBackbone) refuse (exit 3) a
// backbone whose cfg+"model_type" is not one of mts: the ones whose
// symbols f reads (b_H) and whose outputs it models.
func onlyBackbones(f *Family, cfg string, mts ...string) *Family {
	inner := f.compose
	f.compose = func(c *Config) (*Family, error) {
		var mt string
		if raw, ok := c.lookup(cfg + "model_type"); ok {
			_ = json.Unmarshal(raw, &mt)
		}
		if !slices.Contains(mts, mt) {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
				Reason: fmt.Sprintf("its backbone, %smodel_type %q, is not modelled (only %s)", cfg, mt, strings.Join(mts, ", "))}
		}
		return inner(c)
	}
	return f
}

// modelPart is one registered model a composition holds whole (withParts):
// the family its Cfg+"model_type" names, its class of Suffix (the base
// model where it has none), its fields under Cfg, its names under Pre,
// its symbols prefixed Sym; where If is set (an expression of the
// composition's symbols) its tensors exist only where that holds. Need
// are the part's symbols (without Sym) the composition reads: a part
// whose family lacks one is not modelled (exit 3).
type modelPart struct {
	Cfg, Pre, Suffix, Sym, If string
	Need                      []string
	// Flag is a boolean config field that must hold for the part to be
	// built at all (DepthPro's use_fov_model), its default FlagDefault.
	Flag        string
	FlagDefault bool
	// Set replaces part symbols (without Sym) by expressions of the
	// composition's: a field the composition overwrites (DepthPro sets
	// each sub-config's image_size to its patch_size).
	Set map[string]string
}

// withParts makes f a composition of parts (DepthPro's three DINOv2s):
// each part's fields, tensors and variants put before f's own. f's own
// definition of a part's symbol is a placeholder for f compiled alone,
// dropped. A part whose sub-config is absent or names a model_type
// without a spec is not modelled (exit 3).
func withParts(f *Family, parts ...modelPart) *Family {
	var cache sync.Map
	f.compose = func(c *Config) (*Family, error) {
		key := ""
		var use []modelPart
		for _, p := range parts {
			if p.Flag != "" {
				on, err := c.BoolOr(p.Flag, p.FlagDefault)
				if err != nil {
					return nil, err
				}
				if !on {
					key += "|-"
					continue
				}
			}
			obj := strings.TrimSuffix(p.Cfg, ".")
			if raw, ok := c.lookup(obj); !ok || string(raw) == "null" {
				return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: "its default " + obj + " (absent) is not modelled"}
			}
			var mt string
			if raw, ok := c.lookup(p.Cfg + "model_type"); ok {
				if err := json.Unmarshal(raw, &mt); err != nil {
					return nil, c.errorf(p.Cfg+"model_type", "must be a string, found %s", kindOf(raw))
				}
			}
			key += "|" + mt
			use = append(use, p)
		}
		if g, ok := cache.Load(key); ok {
			return g.(*Family), nil
		}
		g := &Family{Name: f.Name, Class: f.Class, ConfigClass: f.ConfigClass, ModelTypes: f.ModelTypes,
			Causal: f.Causal, SeqCls: f.SeqCls, Tasks: f.Tasks, Embed: f.Embed, Head: f.Head, Ignore: f.Ignore, Variants: f.Variants, BasePrefix: f.BasePrefix}
		var names []string
		for _, p := range use {
			var mt string
			raw, _ := c.lookup(p.Cfg + "model_type")
			_ = json.Unmarshal(raw, &mt)
			part, ok := familyPart(mt, p.Suffix, p.Cfg, p.Pre, p.Sym)
			if !ok {
				return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
					Reason: fmt.Sprintf("its %smodel_type %q has no spec", p.Cfg, mt)}
			}
			for _, n := range p.Need {
				if !slices.ContainsFunc(part.Defs, func(d Def) bool { return d.Sym == p.Sym+n }) {
					return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
						Reason: fmt.Sprintf("its %smodel_type %q is not modelled", p.Cfg, mt)}
				}
			}
			for k, x := range p.Set {
				i := slices.IndexFunc(part.Defs, func(d Def) bool { return d.Sym == p.Sym+k })
				if i < 0 {
					return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
						Reason: fmt.Sprintf("its %smodel_type %q is not modelled", p.Cfg, mt)}
				}
				part.Defs[i] = derived(p.Sym+k, x)
			}
			if p.If != "" {
				part.Global, part.Final = when(p.If, part.Global), when(p.If, part.Final)
				for i := range part.Stacks {
					part.Stacks[i].Layers = "(" + p.If + ") ? (" + part.Stacks[i].Layers + ") : 0"
				}
			}
			names = append(names, part.Name)
			g.Defs, g.Global, g.Stacks, g.Final = cat(g.Defs, part.Defs), cat(g.Global, part.Global), cat(g.Stacks, part.Stacks), cat(g.Final, part.Final)
			g.Variants = joinVariants(g.Variants, part.Variants)
		}
		g.Name += " (" + strings.Join(slices.Compact(names), ", ") + ")"
		g.Defs = cat(g.Defs, slices.DeleteFunc(slices.Clone(f.Defs), func(d Def) bool {
			return slices.ContainsFunc(g.Defs, func(p Def) bool { return p.Sym == d.Sym })
		}))
		g.Global, g.Stacks, g.Final = cat(g.Global, f.Global), cat(g.Stacks, f.Stacks), cat(g.Final, f.Final)
		if err := g.compile(); err != nil {
			return nil, fmt.Errorf("spec: %s: %w", g.Name, err)
		}
		g2, _ := cache.LoadOrStore(key, g)
		return g2.(*Family), nil
	}
	return f
}
