package spec

import (
	"encoding/json"
	"fmt"
	"slices"
)

// The DETR lineage of detectors: RT-DETR (and its ResNet backbone),
// RT-DETR v2, LW-DETR, RF-DETR, and on HGNet-v2 (vision_cnn.go) D-FINE,
// DEIMv2, PP-DocLayout v2 and v3; Grounding DINO and MM Grounding DINO
// (a Swin backbone, a BERT text tower, fusion layers). Each family is
// data: a detrOpts of the shared blocks of blocks_detr.go, its backbone
// the registered family backbone_config names (withDetrBackbone,
// withFeatureBackbone).

// detrOpts says how one RT-DETR-like detector differs from RT-DETR.
type detrOpts struct {
	Name, Class, MT string
	DefaultBackbone string // backbone_config.model_type when absent
	PointsScale     string // the deformable attention's per-point scale buffer ("" none)
	ExtraDefs       []Def
	Edit            func(f *Family) // changes to the detector before its backbone is composed ("" none)
}

// rtDetrDefs are RTDetrConfig's fields (its defaults).
func rtDetrDefs() []Def {
	return []Def{
		{Sym: "E", Field: "encoder_hidden_dim", Default: "256", Legend: "E", Desc: "hybrid encoder width", Show: true, Pos: true},
		listOf("eic", "encoder_in_channels", "list(512, 1024, 2048)", "the encoder's input levels (their count: FPN/PAN stages + 1)"),
		listOf("epl", "encode_proj_layers", "list(2)", "the levels with an AIFI transformer encoder"),
		{Sym: "eL", Field: "encoder_layers", Default: "1", Desc: "layers of each AIFI encoder", Max: MaxLayers},
		{Sym: "eI", Field: "encoder_ffn_dim", Default: "1024", Desc: "AIFI FFN width", Pos: true},
		{Sym: "hx", Field: "hidden_expansion", Type: Milli, Default: "1000", Desc: "CSP blocks' width over encoder_hidden_dim (×1000)"},
		{Sym: "D", Field: "d_model", Default: "256", Legend: "D", Desc: "decoder width", Show: true, Pos: true},
		{Sym: "Q", Field: "num_queries", Default: "300", Desc: "object queries", Pos: true},
		listOf("dic", "decoder_in_channels", "list(256, 256, 256)", "the decoder's input levels' widths"),
		{Sym: "nfl", Field: "num_feature_levels", Default: "3", Desc: "feature levels the decoder samples", Pos: true},
		{Sym: "np", Field: "decoder_n_points", Default: "4", Desc: "sampling points per head and level", Pos: true},
		{Sym: "dL", Field: "decoder_layers", Default: "6", Legend: "L", Desc: "decoder layers", Show: true, Max: MaxLayers},
		{Sym: "dHeads", Field: "decoder_attention_heads", Default: "8", Desc: "decoder heads", Pos: true},
		{Sym: "dI", Field: "decoder_ffn_dim", Default: "1024", Desc: "decoder FFN width", Pos: true},
		{Sym: "nd", Field: "num_denoising", Default: "100", Desc: "denoising queries (0: no label embedding)"},
		flag("liq", "learn_initial_query", "false", "learned initial queries"),
		listOf("bOut", "backbone_config.out_indices", "list(2, 3, 4)", "the backbone stages the encoder takes"),
		derived("hid", "E*hx/1000"),
		derived("nlv", "nfl"),
		derived("bCh", "0"),
		derived("bCh1", "0"),
	}
}

// cspRep is RT-DETR's CSPRepLayer under pre: two 1×1 convolutions to
// hid from 2·E, three RepVGG blocks (3×3 and 1×1) at hid, and a 1×1
// back to E where hid differs.
func cspRep(pre string) []T {
	return cat(convNorm(pre+"conv1.", "hid", "2*E", "1", ""), convNorm(pre+"conv2.", "hid", "2*E", "1", ""),
		copies("3", convNorm(pre+"bottlenecks.{e}.conv1.", "hid", "hid", "3", ""), convNorm(pre+"bottlenecks.{e}.conv2.", "hid", "hid", "1", "")),
		when("hid != E", convNorm(pre+"conv3.", "E", "hid", "1", "")))
}

// rtDetrFamily is an RT-DETR-like detector: the backbone, the encoder
// input projections (one per backbone output), the hybrid encoder (AIFI
// layers on encode_proj_layers, the FPN and PAN), the query selection
// heads, the decoder input projections and the deformable decoder; the
// detection class adds a class and box head per decoder layer (saved
// under model.decoder., where the decoder holds them).
func rtDetrFamily(o detrOpts) *Family {
	const m = "model."
	aifi, dec := rtAIFI(), rtDecoderLayer(o.PointsScale)
	extra := extraDecoderProj(m)
	f := &Family{Name: o.Name, Class: o.Class, ModelTypes: []string{o.MT}, Causal: "-", SeqCls: "-",
		Defs:       withDefs(rtDetrDefs(), o.ExtraDefs...),
		BasePrefix: m,
		Global: cat(
			copies("len(bOut)", convNB(m+"encoder_input_proj.{e}.0", "E", "bCh", "1", "1"), batchNorm(m+"encoder_input_proj.{e}.1", "E"))),
		Stacks: []Stack{
			{Name: "AIFI", Prefix: m + "encoder.encoder.{l}.", Layers: "len(epl)", Tensors: copies("eL", under("layers.{e}.", aifi))},
			{Name: "lateral", Prefix: m + "encoder.lateral_convs.{l}.", Layers: "len(eic)-1", Tensors: convNorm("", "E", "E", "1", "")},
			{Name: "FPN", Prefix: m + "encoder.fpn_blocks.{l}.", Layers: "len(eic)-1", Tensors: cspRep("")},
			{Name: "downsample", Prefix: m + "encoder.downsample_convs.{l}.", Layers: "len(eic)-1", Tensors: convNorm("", "E", "E", "3", "")},
			{Name: "PAN", Prefix: m + "encoder.pan_blocks.{l}.", Layers: "len(eic)-1", Tensors: cspRep("")},
			{Name: "decoder", Prefix: m + "decoder.layers.{l}.", Layers: "dL", Tensors: dec},
		},
		Final: cat(
			[]T{{Name: m + "denoising_class_embed.weight", Shape: []string{"C+1", "D"}, Role: RoleEmbedding, If: "nd > 0"},
				{Name: m + "weight_embedding.weight", Shape: []string{"Q", "D"}, Role: RoleEmbedding, If: "liq"}},
			linear(m+"enc_output.0", "D", "D", "true"), norm(m+"enc_output.1", "D", "true"),
			linear(m+"enc_score_head", "C", "D", "true"), mlpHead(m+"enc_bbox_head.", "D", "D", "4", "3"),
			copies("len(dic)", convNB(m+"decoder_input_proj.{e}.0", "D", "at(dic, e)", "1", "1"), batchNorm(m+"decoder_input_proj.{e}.1", "D")),
			extra,
			mlpHead(m+"decoder.query_pos_head.", "4", "2*D", "D", "2")),
		Embed: m + "encoder_input_proj.0.0.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Labels: true},
			{Suffix: "ForObjectDetection", Labels: true, Head: copies("dL", linear(m+"decoder.class_embed.{e}", "C", "D", "true"),
				mlpFixed(m+"decoder.bbox_embed.{e}.", "D", "D", "4", 3))},
		},
	}
	if o.Edit != nil {
		o.Edit(f)
	}
	return withDetrBackbone(f, detrBB{Pre: m + "backbone.model.", Default: o.DefaultBackbone})
}

// rtAIFI is RT-DETR's AIFI transformer encoder layer on width E (FFN
// eI): a biased self-attention, fc1/fc2 and two LayerNorms.
func rtAIFI() []T {
	return cat(mhaOut("self_attn.", "E"), norm("self_attn_layer_norm", "E", "true"),
		linear("fc1", "eI", "E", "true"), linear("fc2", "E", "eI", "true"), norm("final_layer_norm", "E", "true"))
}

// rtDecoderLayer is RT-DETR's decoder layer on width D: self-attention,
// multi-scale deformable cross-attention (nlv levels, np points, the
// per-point scale buffer scale where set), an FFN, three LayerNorms.
func rtDecoderLayer(scale string) []T {
	return cat(mhaOut("self_attn.", "D"), norm("self_attn_layer_norm", "D", "true"),
		deformAttn("encoder_attn.", "D", "dHeads", "nlv", "np", scale, false), norm("encoder_attn_layer_norm", "D", "true"),
		linear("fc1", "dI", "D", "true"), linear("fc2", "D", "dI", "true"), norm("final_layer_norm", "D", "true"))
}

// withDefs is defs with each of more replacing the one of its symbol,
// or appended.
func withDefs(defs []Def, more ...Def) []Def {
	out := append([]Def(nil), defs...)
	for _, d := range more {
		if slices.ContainsFunc(out, func(x Def) bool { return x.Sym == d.Sym }) {
			out = replaceDef(out, d)
		} else {
			out = append(out, d)
		}
	}
	return out
}

// conv3Proj is a decoder input projection past the backbone's levels: a
// stride-2 3×3 convolution from the previous level (the last of
// decoder_in_channels, then D) and its BatchNorm, under pre (copy e).
func conv3Proj(pre string) []T {
	return cat(convNB(pre+"0", "D", "e == len(dic) ? at(dic, len(dic)-1) : D", "3", "3"), batchNorm(pre+"1", "D"))
}

// rtDetrResNetFamily is RT-DETR's ResNet-D alone (RTDetrResNetBackbone).
func rtDetrResNetFamily() *Family {
	enc := rtDetrResNet("", "")
	return &Family{Name: "RT-DETR ResNet", Class: "RTDetrResNet", ModelTypes: []string{"rt_detr_resnet"}, Causal: "-", SeqCls: "-",
		Defs: enc.Defs, Global: enc.Global, Stacks: enc.Stacks, Final: enc.Final, Embed: enc.Global[0].Name,
		Tasks: []Task{{Suffix: "Backbone", KeepFinal: true}}}
}

var _ = register(
	rtDetrResNetFamily,
	func() *Family {
		return rtDetrFamily(detrOpts{Name: "RT-DETR", Class: "RTDetr", MT: "rt_detr", DefaultBackbone: "rt_detr_resnet"})
	},
	func() *Family {
		return rtDetrFamily(detrOpts{Name: "RT-DETR v2", Class: "RTDetrV2", MT: "rt_detr_v2", DefaultBackbone: "rt_detr_resnet", PointsScale: "n_points_scale",
			ExtraDefs: []Def{{Sym: "nlv", Field: "decoder_n_levels", Default: "3", Desc: "feature levels the deformable attention samples", Pos: true}}})
	},
)

// lwDetrViTFamily is LW-DETR's ViT alone (LwDetrViTBackbone).
func lwDetrViTFamily() *Family {
	enc := lwDetrViT("", "")
	return &Family{Name: "LW-DETR ViT", Class: "LwDetrViT", ModelTypes: []string{"lw_detr_vit"}, Causal: "-", SeqCls: "-",
		Defs: enc.Defs, Global: enc.Global, Stacks: enc.Stacks, Final: enc.Final, Embed: "embeddings.projection.weight",
		Tasks: []Task{{Suffix: "Backbone", KeepFinal: true}}}
}

// lwDetrDefs are LwDetrConfig's fields.
func lwDetrDefs() []Def {
	return []Def{
		{Sym: "D", Field: "d_model", Default: "256", Legend: "D", Desc: "decoder width", Show: true, Pos: true},
		{Sym: "psf", Field: "projector_scale_factors", Type: MilliList, Default: "empty", Null: "=", Desc: "the projector's scales (×1000): one feature level each"},
		{Sym: "hx", Field: "hidden_expansion", Type: Milli, Default: "500", Desc: "C2F blocks' width over d_model (×1000)"},
		{Sym: "nb", Field: "c2f_num_blocks", Default: "3", Desc: "the C2F layer's blocks"},
		{Sym: "Q", Field: "num_queries", Default: "300", Desc: "object queries per group", Pos: true},
		{Sym: "G", Field: "group_detr", Default: "13", Desc: "query groups (Group DETR)", Pos: true, Max: MaxExperts},
		{Sym: "np", Field: "decoder_n_points", Default: "4", Desc: "sampling points per head and level"},
		{Sym: "dL", Field: "decoder_layers", Default: "3", Legend: "L", Desc: "decoder layers", Show: true, Max: MaxLayers},
		{Sym: "sHeads", Field: "decoder_self_attention_heads", Default: "8", Desc: "decoder self-attention heads", Pos: true},
		{Sym: "xHeads", Field: "decoder_cross_attention_heads", Default: "16", Desc: "decoder cross-attention heads", Pos: true},
		{Sym: "dI", Field: "decoder_ffn_dim", Default: "2048", Desc: "decoder FFN width", Pos: true},
		flag("ab", "attention_bias", "true", "the self-attention projections have biases"),
		listOf("bOut", "backbone_config.out_indices", "list(2, 4, 5, 9)", "the backbone stages the projector takes"),
		// __post_init__ sets len(projector_scale_factors), but a
		// num_feature_levels in config.json is set after it and wins.
		{Sym: "nfl", Field: "num_feature_levels", Default: "len(psf)", Null: "=", Desc: "feature levels the decoder samples"},
		derived("hc", "D*hx/1000"),
		derived("bCh", "0"),
	}
}

// lwDetrProjector is LW-DETR's multi-scale projector under pre: per
// scale s of psf, a sampling layer per backbone output (×2: a transposed
// convolution, behind a halving 1×1 ConvNorm past 512 channels; ×0.5: a
// strided 3×3 ConvNorm), then a C2F layer on their concatenation and a
// LayerNorm.
func lwDetrProjector(pre string) []T {
	f := "at(psf, l)"
	up := f + " == 2000"
	in := "(" + up + " ? (bCh > 512 ? bCh/4 : bCh/2) : bCh)*len(bOut)"
	return cat(
		copies("len(bOut)", when(up+" && bCh > 512", convNorm(pre+"sampling_layers.{e}.layers.0.", "bCh/2", "bCh", "1", ""),
			convT(pre+"sampling_layers.{e}.layers.1", "bCh/2", "bCh/4", "2")),
			when(up+" && bCh <= 512", convT(pre+"sampling_layers.{e}.layers.0", "bCh", "bCh/2", "2")),
			when(f+" == 500", convNorm(pre+"sampling_layers.{e}.layers.0.", "bCh", "bCh", "3", ""))),
		convNorm(pre+"projector_layer.conv1.", "2*hc", in, "1", ""), convNorm(pre+"projector_layer.conv2.", "D", "(2+nb)*hc", "1", ""),
		copies("nb", convNorm(pre+"projector_layer.bottlenecks.{e}.conv1.", "hc", "hc", "3", ""), convNorm(pre+"projector_layer.bottlenecks.{e}.conv2.", "hc", "hc", "3", "")),
		norm(pre+"layer_norm", "D", "true"))
}

// lwDetrFamily is LW-DETR: a ViT backbone and its projector, Group DETR's
// query and encoder-output heads (group_detr copies), a deformable
// decoder; the detection class adds one class and box head.
func lwDetrFamily() *Family {
	const m = "model."
	dec := cat(linear("self_attn.q_proj", "D", "D", "ab"), linear("self_attn.k_proj", "D", "D", "ab"),
		linear("self_attn.v_proj", "D", "D", "ab"), linear("self_attn.o_proj", "D", "D", "ab"), norm("self_attn_layer_norm", "D", "true"),
		deformAttn("cross_attn.", "D", "xHeads", "nfl", "np", "", false), norm("cross_attn_layer_norm", "D", "true"),
		linear("mlp.fc1", "dI", "D", "true"), linear("mlp.fc2", "D", "dI", "true"), norm("layer_norm", "D", "true"))
	f := &Family{Name: "LW-DETR", Class: "LwDetr", ModelTypes: []string{"lw_detr"}, Causal: "-", SeqCls: "-",
		Defs: lwDetrDefs(), BasePrefix: m,
		Stacks: []Stack{
			{Name: "projector", Prefix: m + "backbone.projector.scale_layers.{l}.", Layers: "len(psf)", Tensors: lwDetrProjector("")},
			{Name: "decoder", Prefix: m + "decoder.layers.{l}.", Layers: "dL", Tensors: dec},
		},
		Final: cat(
			[]T{{Name: m + "query_feat.weight", Shape: []string{"Q*G", "D"}, Role: RoleEmbedding},
				{Name: m + "reference_point_embed.weight", Shape: []string{"Q*G", "4"}, Role: RoleEmbedding}},
			norm(m+"decoder.layernorm", "D", "true"), mlpHead(m+"decoder.ref_point_head.", "2*D", "D", "D", "2"),
			copies("G", linear(m+"enc_output.{e}", "D", "D", "true"), norm(m+"enc_output_norm.{e}", "D", "true"),
				linear(m+"enc_out_class_embed.{e}", "C", "D", "true"), mlpFixed(m+"enc_out_bbox_embed.{e}.", "D", "D", "4", 3))),
		Embed: m + "query_feat.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Labels: true},
			{Suffix: "ForObjectDetection", Labels: true, Head: cat(linear("class_embed", "C", "D", "true"), mlpHead("bbox_embed.", "D", "D", "4", "3"))},
		},
	}
	return withDetrBackbone(f, detrBB{Pre: m + "backbone.backbone.", Rename: lwDetrViTNames})
}

var _ = register(lwDetrViTFamily, lwDetrFamily)

// rfDetrDefs are RfDetrConfig's fields: LW-DETR's, one feature level.
func rfDetrDefs() []Def {
	return withDefs(lwDetrDefs(),
		Def{Sym: "nfl", Field: "num_feature_levels", Default: "1", Desc: "feature levels the decoder samples"},
		Def{Sym: "bOut", Field: "backbone_config.out_indices", Type: List, Desc: "the backbone stages the projector takes"},
		Def{Sym: "sI", Field: "intermediate_size", Default: "1024", Desc: "the segmentation head's MLP width", Pos: true})
}

// rfDetrFamily is RF-DETR as its checkpoints name it (transformers 5
// writes the original names back): a DINOv2 backbone with windowed
// attention and a one-scale C2F projector (LayerNorms, no BatchNorm),
// LW-DETR's Group DETR heads and a deformable decoder whose self-attention
// is torch's MultiheadAttention (in_proj); the instance segmentation
// class holds the detector under model. and adds a mask head of
// decoder_layers depthwise blocks.
func rfDetrFamily() *Family {
	const m = "model."
	ln := func(pre, d string) []T { return norm(pre, d, "true") }
	c2f := func(pre, out, in, k string) []T {
		return cat(convNB(pre+"conv", out, in, k, k), ln(pre+"bn", out))
	}
	proj := "backbone.0.projector.stages.0."
	dec := cat([]T{{Name: "self_attn.in_proj_weight", Shape: []string{"3*D", "D"}, Role: RoleLinear},
		{Name: "self_attn.in_proj_bias", Shape: []string{"3*D"}, Role: RoleBias, If: "ab"}},
		linear("self_attn.out_proj", "D", "D", "ab"), ln("norm1", "D"),
		deformAttn("cross_attn.", "D", "xHeads", "nfl", "np", "", false), ln("norm2", "D"),
		linear("linear1", "dI", "D", "true"), linear("linear2", "D", "dI", "true"), ln("norm3", "D"))
	f := &Family{Name: "RF-DETR", Class: "RfDetr", ModelTypes: []string{"rf_detr"}, Causal: "-", SeqCls: "-",
		Defs: rfDetrDefs(), BasePrefix: m,
		Global: under(m,
			c2f(proj+"0.cv1.", "2*hc", "bCh*len(bOut)", "1"), c2f(proj+"0.cv2.", "D", "(2+nb)*hc", "1"),
			copies("nb", c2f(proj+"0.m.{e}.cv1.", "hc", "hc", "3"), c2f(proj+"0.m.{e}.cv2.", "hc", "hc", "3")),
			ln(proj+"1", "D")),
		Stacks: []Stack{{Name: "decoder", Prefix: m + "transformer.decoder.layers.{l}.", Layers: "dL", Tensors: dec}},
		Final: under(m,
			[]T{{Name: "query_feat.weight", Shape: []string{"Q*G", "D"}, Role: RoleEmbedding},
				{Name: "refpoint_embed.weight", Shape: []string{"Q*G", "4"}, Role: RoleEmbedding}},
			ln("transformer.decoder.norm", "D"), mlpHead("transformer.decoder.ref_point_head.", "2*D", "D", "D", "2"),
			copies("G", linear("transformer.enc_output.{e}", "D", "D", "true"), ln("transformer.enc_output_norm.{e}", "D"),
				linear("transformer.enc_out_class_embed.{e}", "C", "D", "true"), mlpFixed("transformer.enc_out_bbox_embed.{e}.", "D", "D", "4", 3))),
		Embed: m + "query_feat.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Labels: true},
			{Suffix: "ForObjectDetection", Prefix: "-", Labels: true, Head: cat(linear("class_embed", "C", "D", "true"), mlpHead("bbox_embed.", "D", "D", "4", "3"))},
			{Suffix: "ForInstanceSegmentation", Labels: true, Head: cat(linear("class_embed", "C", "D", "true"), mlpHead("bbox_embed.", "D", "D", "4", "3"),
				under("segmentation_head.",
					copies("dL", conv("blocks.{e}.dwconv", "D", "1", "3", "3"), ln("blocks.{e}.norm", "D"), linear("blocks.{e}.pwconv1", "D", "D", "true")),
					conv("spatial_features_proj", "D", "D", "1", "1"),
					ln("query_features_block.norm_in", "D"), linear("query_features_block.layers.0", "sI", "D", "true"),
					linear("query_features_block.layers.2", "D", "sI", "true"),
					linear("query_features_proj", "D", "D", "true"), vec("bias", "1")))},
		},
	}
	return withDetrBackbone(f, detrBB{Pre: m + "backbone.0.encoder.encoder."})
}

var _ = register(
	func() *Family {
		return dinov2Family("RF-DETR DINOv2", "RfDetrDinov2", "rf_detr_dinov2", "rf_detr_dinov2.", "14", false).with(func(f *Family) {
			f.Tasks = []Task{{Suffix: "Backbone", Prefix: "-"}}
		})
	},
	rfDetrFamily)

// pyRound is Python's round() of a Milli value x (thousandths): to the
// nearest integer, a half to the even one.
func pyRound(x string) string {
	return "((" + x + ")/1000 + (((" + x + ")%1000 > 500 || ((" + x + ")%1000 == 500 && ((" + x + ")/1000)%2 == 1)) ? 1 : 0))"
}

// dFineDefs are DFineConfig's fields (RT-DETR's, plus D-FINE's
// fine-grained distribution heads).
func dFineDefs() []Def {
	return withDefs(rtDetrDefs(),
		Def{Sym: "np", Field: "decoder_n_points", Type: IntOrList, Default: "4", Desc: "sampling points per head and level (or a list, one per level)"},
		Def{Sym: "dm", Field: "depth_mult", Type: Milli, Default: "1000", Desc: "the CSP layers' depth multiplier (×1000)"},
		Def{Sym: "ei", Field: "eval_idx", Type: Signed, Default: "-1", Desc: "the decoder layer evaluated (negative: from the end)"},
		Def{Sym: "ls", Field: "layer_scale", Type: Milli, Default: "1000", Desc: "the width of the box heads past eval_idx over d_model (×1000)"},
		Def{Sym: "nbin", Field: "max_num_bins", Default: "32", Desc: "bins of each box edge's distribution"},
		Def{Sym: "tpv", Field: "top_prob_values", Default: "4", Desc: "top probabilities the quality estimator reads"},
		Def{Sym: "lqH", Field: "lqe_hidden_dim", Default: "64", Desc: "the quality estimator's width"},
		Def{Sym: "lqL", Field: "lqe_layers", Default: "2", Desc: "the quality estimator's layers"},
		derived("eix", "ei >= 0 ? ei : dL + ei"),
		derived("c4", "hx*E/2000"),
		derived("nbk", pyRound("3*dm")),
		derived("tp", "islist(np) ? sum(np) : np*nfl"),
		derived("sd", pyRound("ls*D")),
	)
}

// cspRepD is D-FINE's CSPRepLayer under pre (expansion 1): two 1×1
// convolutions from in to out, nbk RepVGG blocks (3×3 and 1×1) at out.
func cspRepD(pre, in, out string) []T {
	return cat(convNorm(pre+"conv1.", out, in, "1", ""), convNorm(pre+"conv2.", out, in, "1", ""),
		copies("nbk", convNorm(pre+"bottlenecks.{e}.conv1.", out, out, "3", ""), convNorm(pre+"bottlenecks.{e}.conv2.", out, out, "1", "")))
}

// repNCSPELAN4 is D-FINE's RepNCSPELAN4 block under pre on width E: a
// 1×1 to 2·E split in halves, two CSP branches of c4 with a 3×3 after
// each, and a 1×1 of the concatenation (2·E + 2·c4) back to E.
func repNCSPELAN4(pre string) []T {
	return cat(convNorm(pre+"conv1.", "2*E", "2*E", "1", ""), cspRepD(pre+"csp_rep1.", "E", "c4"),
		convNorm(pre+"conv2.", "c4", "c4", "3", ""), cspRepD(pre+"csp_rep2.", "c4", "c4"),
		convNorm(pre+"conv3.", "c4", "c4", "3", ""), convNorm(pre+"conv4.", "E", "2*E+2*c4", "1", ""))
}

// dFineFamily is D-FINE: RT-DETR's layout with an HGNet-v2 backbone by
// default, a hybrid encoder of RepNCSPELAN4 blocks and SCDown
// downsampling, a decoder of gated layers whose deformable attention
// samples the encoder's features directly (no value or output
// projection), eval_idx's extra layers, and the fine-grained
// distribution heads: the box heads 4·(max_num_bins+1) wide (past
// eval_idx layer_scale·d_model wide), a location-quality estimator per
// layer. The decoder's input projections are built only where d_model
// differs from decoder_in_channels' last entry, every one of them from
// that last width.
func dFineFamily() *Family {
	const m = "model."
	aifi := cat(mhaOut("self_attn.", "E"), norm("self_attn_layer_norm", "E", "true"),
		linear("fc1", "eI", "E", "true"), linear("fc2", "E", "eI", "true"), norm("final_layer_norm", "E", "true"))
	dec := cat(mhaOut("self_attn.", "D"), norm("self_attn_layer_norm", "D", "true"),
		linear("encoder_attn.sampling_offsets", "dHeads*tp*2", "D", "true"), linear("encoder_attn.attention_weights", "dHeads*tp", "D", "true"),
		[]T{{Name: "encoder_attn.num_points_scale", Shape: []string{"tp"}, Role: RoleNorm, AnyDType: true}},
		linear("fc1", "dI", "D", "true"), linear("fc2", "D", "dI", "true"), norm("final_layer_norm", "D", "true"),
		linear("gateway.gate", "2*D", "2*D", "true"), norm("gateway.norm", "D", "true"))
	last := "at(dic, len(dic)-1)"
	bw := "(e <= eix ? D : sd)"
	f := &Family{Name: "D-FINE", Class: "DFine", ModelTypes: []string{"d_fine"}, Causal: "-", SeqCls: "-",
		Defs: dFineDefs(), BasePrefix: m,
		Global: copies("len(dic)", convNB(m+"encoder_input_proj.{e}.0", "E", "bCh", "1", "1"), batchNorm(m+"encoder_input_proj.{e}.1", "E")),
		Stacks: []Stack{
			{Name: "AIFI", Prefix: m + "encoder.encoder.{l}.", Layers: "len(epl)", Tensors: copies("eL", under("layers.{e}.", aifi))},
			{Name: "lateral", Prefix: m + "encoder.lateral_convs.{l}.", Layers: "len(eic)-1", Tensors: convNorm("", "E", "E", "1", "")},
			{Name: "FPN", Prefix: m + "encoder.fpn_blocks.{l}.", Layers: "len(eic)-1", Tensors: repNCSPELAN4("")},
			{Name: "downsample", Prefix: m + "encoder.downsample_convs.{l}.", Layers: "len(eic)-1",
				Tensors: cat(convNorm("conv1.", "E", "E", "1", ""), convNorm("conv2.", "E", "E", "3", "E"))},
			{Name: "PAN", Prefix: m + "encoder.pan_blocks.{l}.", Layers: "len(eic)-1", Tensors: repNCSPELAN4("")},
			{Name: "decoder", Prefix: m + "decoder.layers.{l}.", Layers: "dL + max(dL-eix-1, 0)", Tensors: dec},
			{Name: "quality", Prefix: m + "decoder.lqe_layers.{l}.", Layers: "dL", Tensors: mlpHead("reg_conf.", "4*(tpv+1)", "lqH", "1", "max(lqL, 1)")},
		},
		Final: cat(
			[]T{{Name: m + "denoising_class_embed.weight", Shape: []string{"C+1", "D"}, Role: RoleEmbedding, If: "nd > 0"},
				{Name: m + "weight_embedding.weight", Shape: []string{"Q", "D"}, Role: RoleEmbedding, If: "liq"}},
			linear(m+"enc_output.0", "D", "D", "true"), norm(m+"enc_output.1", "D", "true"),
			linear(m+"enc_score_head", "C", "D", "true"), mlpHead(m+"enc_bbox_head.", "D", "D", "4", "3"),
			when("D != "+last,
				copies("nfl", convNB(m+"decoder_input_proj.{e}.0", "D", last, "e < len(dic) ? 1 : 3", "e < len(dic) ? 1 : 3"),
					batchNorm(m+"decoder_input_proj.{e}.1", "D"))),
			mlpHead(m+"decoder.query_pos_head.", "4", "2*D", "D", "2"),
			[]T{{Name: m + "decoder.reg_scale", Shape: []string{"1"}, Role: RoleNorm}, {Name: m + "decoder.up", Shape: []string{"1"}, Role: RoleNorm}},
			mlpHead(m+"decoder.pre_bbox_head.", "D", "D", "4", "3")),
		Embed: m + "encoder_input_proj.0.0.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Labels: true},
			{Suffix: "ForObjectDetection", Labels: true, Head: cat(copies("dL", linear(m+"decoder.class_embed.{e}", "C", "D", "true")),
				copies("dL", mlpFixed(m+"decoder.bbox_embed.{e}.", bw, bw, "4*(nbin+1)", 3)))},
		},
	}
	return withDetrBackbone(f, detrBB{Pre: m + "backbone.model.", Default: "hgnet_v2"})
}

var _ = register(dFineFamily)

// ppDocLayoutV3Family is PP-DocLayout v3 (transformers 5): RT-DETR's
// hybrid encoder and decoder on an HGNet-v2 backbone of four outputs,
// the first (x4_feat_dim wide) feeding a mask branch rather than the
// encoder (encoder_input_proj projects outputs 1…); a mask feature FPN
// (a scale head per feat_strides entry, in ascending order, of
// max(1, log2(stride/smallest)) 3×3 convolutions, each behind an
// upsampling where the stride is not the smallest), the mask lateral
// and output convolutions to num_prototypes; a reading-order head
// (decoder_order_head per decoder layer, a global pointer), a mask query
// head. The decoder's class and box heads are enc_score_head's and
// enc_bbox_head's (saved only where tie_word_embeddings is false); the
// detection class's denoising embedding has num_labels rows, the base
// model's num_labels+1.
func ppDocLayoutV3Family() *Family {
	const m = "model."
	const mh = m + "encoder.mask_feature_head."
	fs := "sort(fs)"
	up := "at(" + fs + ", l) != at(" + fs + ", 0)"
	hl := "max(1, log2(at(" + fs + ", l)/at(" + fs + ", 0)))"
	mf0, mf1 := "at(mfc, 0)", "at(mfc, 1)"
	scale := copies("("+up+") ? 2*"+hl+"-1 : 1", when("!("+up+") || e%2 == 0", convLayer("layers.{e}.", mf0, "e == 0 ? E : "+mf0, "3")))
	f := &Family{Name: "PP-DocLayout v3", Class: "PPDocLayoutV3", ModelTypes: []string{"pp_doclayout_v3"}, Causal: "-", SeqCls: "-",
		Defs: withDefs(rtDetrDefs(),
			listOf("bOut", "backbone_config.out_indices", "list(1, 2, 3, 4)", "the backbone stages taken (the first feeds the mask branch)"),
			listOf("fs", "feat_strides", "list(8, 16, 32)", "the encoder levels' strides (a mask scale head each)"),
			listOf("mfc", "mask_feature_channels", "list(64, 64)", "the mask FPN's feature and output widths"),
			Def{Sym: "x4", Field: "x4_feat_dim", Default: "128", Desc: "the backbone's first output's width, as the mask lateral takes it", Pos: true},
			Def{Sym: "npr", Field: "num_prototypes", Default: "32", Desc: "mask prototypes", Pos: true},
			Def{Sym: "gph", Field: "global_pointer_head_size", Default: "64", Desc: "the reading-order pointer's width", Pos: true},
			tie("true")),
		BasePrefix: m,
		Global:     copies("len(bOut)-1", convNB(m+"encoder_input_proj.{e}.0", "E", "bCh1", "1", "1"), batchNorm(m+"encoder_input_proj.{e}.1", "E")),
		Stacks: []Stack{
			{Name: "AIFI", Prefix: m + "encoder.encoder.{l}.", Layers: "len(epl)", Tensors: copies("eL", under("layers.{e}.", rtAIFI()))},
			{Name: "lateral", Prefix: m + "encoder.lateral_convs.{l}.", Layers: "len(eic)-1", Tensors: convNorm("", "E", "E", "1", "")},
			{Name: "FPN", Prefix: m + "encoder.fpn_blocks.{l}.", Layers: "len(eic)-1", Tensors: cspRep("")},
			{Name: "downsample", Prefix: m + "encoder.downsample_convs.{l}.", Layers: "len(eic)-1", Tensors: convNorm("", "E", "E", "3", "")},
			{Name: "PAN", Prefix: m + "encoder.pan_blocks.{l}.", Layers: "len(eic)-1", Tensors: cspRep("")},
			{Name: "mask scale", Prefix: mh + "scale_heads.{l}.", Layers: "len(fs)", Tensors: scale},
			{Name: "decoder", Prefix: m + "decoder.layers.{l}.", Layers: "dL", Tensors: rtDecoderLayer("")},
		},
		Final: cat(
			convLayer(mh+"output_conv.", mf1, mf0, "3"), convLayer(m+"encoder.encoder_mask_lateral.", mf1, "x4", "3"),
			convLayer(m+"encoder.encoder_mask_output.base_conv.", mf1, mf1, "3"), conv(m+"encoder.encoder_mask_output.conv", "npr", mf1, "1", "1"),
			[]T{{Name: m + "weight_embedding.weight", Shape: []string{"Q", "D"}, Role: RoleEmbedding, If: "liq"}},
			linear(m+"enc_output.0", "D", "D", "true"), norm(m+"enc_output.1", "D", "true"),
			linear(m+"enc_score_head", "C", "D", "true"), mlpHead(m+"enc_bbox_head.", "D", "D", "4", "3"),
			when("!tied", linear(m+"decoder.class_embed", "C", "D", "true"), mlpHead(m+"decoder.bbox_embed.", "D", "D", "4", "3")),
			copies("len(dic)", convNB(m+"decoder_input_proj.{e}.0", "D", "at(dic, e)", "1", "1"), batchNorm(m+"decoder_input_proj.{e}.1", "D")),
			extraDecoderProj(m),
			mlpHead(m+"decoder.query_pos_head.", "4", "2*D", "D", "2"),
			copies("dL", linear(m+"decoder_order_head.{e}", "D", "D", "true")),
			linear(m+"decoder_global_pointer.dense", "2*gph", "D", "true"), norm(m+"decoder_norm", "D", "true"),
			mlpHead(m+"mask_query_head.", "D", "D", "npr", "3")),
		Embed: m + "enc_output.0.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Labels: true,
				Head: []T{{Name: "denoising_class_embed.weight", Shape: []string{"C+1", "D"}, Role: RoleEmbedding, If: "nd > 0"}}},
			{Suffix: "ForObjectDetection", Labels: true,
				Head: []T{{Name: m + "denoising_class_embed.weight", Shape: []string{"C", "D"}, Role: RoleEmbedding}}},
		},
	}
	return withDetrBackbone(f, detrBB{Pre: m + "backbone.model.", Default: "hgnet_v2"})
}

// extraDecoderProj are RT-DETR's decoder input projections past
// decoder_in_channels (num_feature_levels more): stride-2 3×3
// convolutions, the first from the last entry's width, then d_model.
func extraDecoderProj(m string) []T {
	extra := copies("max(nfl-len(dic), 0)", conv3Proj(m+"decoder_input_proj.{e}."))
	for i := range extra {
		extra[i].From = "len(dic)"
	}
	return extra
}

var _ = register(ppDocLayoutV3Family)

// readingOrder is PP-DocLayout v2's reading-order model under pre, its
// fields under cfg (reading_order_config): LayoutLMv3's text embeddings
// (their LayerNorm named norm; a spatial projection of the four
// coordinate and two shape embeddings), LayoutLMv3 layers (norms named
// norm), the relative position biases where has_relative_attention_bias
// and has_spatial_attention_bias say, a box-relation bias convolution, a
// label embedding and projection, a global-pointer head.
func readingOrder(pre, cfg string) ([]Def, []T, Stack) {
	defs := []Def{
		{Sym: "rH", Field: cfg + "hidden_size", Default: "512", Legend: "rH", Desc: "reading-order width", Show: true, Pos: true},
		{Sym: "rL", Field: cfg + "num_hidden_layers", Default: "6", Legend: "rL", Desc: "reading-order layers", Show: true, Max: MaxLayers},
		{Sym: "rHeads", Field: cfg + "num_attention_heads", Default: "8", Desc: "reading-order heads", Pos: true},
		{Sym: "rI", Field: cfg + "intermediate_size", Default: "2048", Desc: "reading-order FFN width", Pos: true},
		{Sym: "rV", Field: cfg + "vocab_size", Default: "4", Desc: "reading-order tokens", Pos: true},
		{Sym: "rP", Field: cfg + "max_position_embeddings", Default: "514", Desc: "reading-order positions", Pos: true},
		{Sym: "rP2", Field: cfg + "max_2d_position_embeddings", Default: "1024", Desc: "2-D positions", Pos: true},
		{Sym: "rT", Field: cfg + "type_vocab_size", Default: "1", Desc: "token types", Pos: true},
		{Sym: "rCo", Field: cfg + "coordinate_size", Default: "171", Desc: "coordinate embedding width", Pos: true},
		{Sym: "rSh", Field: cfg + "shape_size", Default: "170", Desc: "shape embedding width", Pos: true},
		{Sym: "rNC", Field: cfg + "num_classes", Default: "20", Desc: "layout classes the labels embed", Pos: true},
		{Sym: "rRB", Field: cfg + "rel_pos_bins", Default: "32", Desc: "relative position bins", Pos: true},
		{Sym: "rR2", Field: cfg + "rel_2d_pos_bins", Default: "64", Desc: "2-D relative position bins", Pos: true},
		{Sym: "rRE", Field: cfg + "relation_bias_embed_dim", Default: "16", Desc: "the box-relation embedding width", Pos: true},
		{Sym: "rGP", Field: cfg + "global_pointer_head_size", Default: "64", Desc: "the order pointer's width", Pos: true},
		flag("rRel", cfg+"has_relative_attention_bias", "false", "a 1-D relative position bias"),
		flag("rSp", cfg+"has_spatial_attention_bias", "true", "2-D relative position biases"),
	}
	e := pre + "embeddings."
	global := cat(embedAs(e+"word_embeddings", "rV", "rH"), embedAs(e+"token_type_embeddings", "rT", "rH"), embedAs(e+"position_embeddings", "rP", "rH"),
		embedAs(e+"x_position_embeddings", "rP2", "rCo"), embedAs(e+"y_position_embeddings", "rP2", "rCo"),
		embedAs(e+"h_position_embeddings", "rP2", "rSh"), embedAs(e+"w_position_embeddings", "rP2", "rSh"),
		norm(e+"norm", "rH", "true"), linear(e+"spatial_proj", "rH", "4*rCo+2*rSh", "true"),
		embedAs(pre+"label_embeddings", "rNC", "rH"), linear(pre+"label_features_projection", "rH", "rH", "true"),
		when("rRel", linear(pre+"encoder.rel_pos_bias", "rHeads", "rRB", "")),
		when("rSp", linear(pre+"encoder.rel_pos_x_bias", "rHeads", "rR2", ""), linear(pre+"encoder.rel_pos_y_bias", "rHeads", "rR2", "")),
		conv(pre+"encoder.rel_bias_module.pos_proj", "rHeads", "4*rRE", "1", "1"),
		linear(pre+"relative_head.dense", "2*rGP", "rH", "true"))
	layer := cat(linear("attention.self.query", "rH", "rH", "true"), linear("attention.self.key", "rH", "rH", "true"),
		linear("attention.self.value", "rH", "rH", "true"), linear("attention.output.dense", "rH", "rH", "true"),
		norm("attention.output.norm", "rH", "true"), linear("intermediate.dense", "rI", "rH", "true"),
		linear("output.dense", "rH", "rI", "true"), norm("output.norm", "rH", "true"))
	return defs, global, Stack{Name: "reading order", Prefix: pre + "encoder.layer.{l}.", Layers: "rL", Tensors: layer}
}

// embedAs is an embedding table name.weight [rows, width].
func embedAs(name, rows, width string) []T {
	return []T{{Name: name + ".weight", Shape: []string{rows, width}, Role: RoleEmbedding}}
}

// ppDocLayoutV2Family is PP-DocLayout v2 (transformers 5): RT-DETR's
// detector on an HGNet-v2 backbone (its denoising embedding num_labels
// rows, built whatever num_denoising says) and, beside it, a
// reading-order model (readingOrder) of its own config.
func ppDocLayoutV2Family() *Family {
	rdefs, rglobal, rstack := readingOrder("reading_order.", "reading_order_config.")
	return rtDetrFamily(detrOpts{Name: "PP-DocLayout v2", Class: "PPDocLayoutV2", MT: "pp_doclayout_v2", DefaultBackbone: "hgnet_v2",
		ExtraDefs: rdefs,
		Edit: func(f *Family) {
			for i, t := range f.Final {
				if t.Name == "model.denoising_class_embed.weight" {
					f.Final[i].Shape, f.Final[i].If = []string{"C", "D"}, ""
				}
			}
			f.Stacks = append(f.Stacks, rstack)
			for i := range f.Tasks {
				if f.Tasks[i].Suffix == "ForObjectDetection" {
					f.Tasks[i].Head = cat(f.Tasks[i].Head, rglobal)
				}
			}
		}})
}

var _ = register(ppDocLayoutV2Family)

// cspRep5 is DEIMv2's CSPRepLayer under pre: one 1×1 from in to 2·out
// (split into the residual and the path), nbk RepVGG blocks at out, and
// a trailing 3×3 where encoder_has_trailing_conv (trail).
func cspRep5(pre, in, out string) []T {
	return cat(convNorm(pre+"conv1.", "2*("+out+")", in, "1", ""),
		copies("nbk", convNorm(pre+"bottlenecks.{e}.conv1.", out, out, "3", ""), convNorm(pre+"bottlenecks.{e}.conv2.", out, out, "1", "")),
		when("trail", convNorm(pre+"conv2.", out, out, "3", "")))
}

// repNCSPELAN5 is DEIMv2's RepNCSPELAN5 under pre on width E: a 1×1 to
// 2·E split in halves, two CSP branches of c4, a 1×1 of the four
// (2·E + 2·c4) back to E.
func repNCSPELAN5(pre string) []T {
	return cat(convNorm(pre+"conv1.", "2*E", "E", "1", ""), cspRep5(pre+"csp_rep1.", "E", "c4"), cspRep5(pre+"csp_rep2.", "c4", "c4"),
		convNorm(pre+"conv2.", "E", "2*E+2*c4", "1", ""))
}

// deimv2Family is DEIMv2 (transformers 5): D-FINE's decoder and heads
// with RMSNorms, a SwiGLU FFN decoder_ffn_dim/2 wide, the gate where
// use_gateway (else an RMSNorm after the cross-attention), a three-layer
// query position head, ConvNorm input projections (encoder_input_proj
// in the conv encoder beside the backbone, none for the lite encoder),
// and an encoder by encoder_type: the hybrid one (AIFI layers, lateral
// ConvNorms, RepNCSPELAN5 FPN/PAN blocks, SCDown) or the lite one (input
// projections, two downsampling ConvNorms, a fusion ConvNorm, one FPN
// and one PAN block). With share_bbox_head every decoder layer's box
// head is the first one (saved once). A DINOv3 backbone (its spatial
// tuning adapter) is not modelled: exit 3.
func deimv2Family() *Family {
	const m = "model."
	rms := func(name string) []T { return norm(name, "D", "") }
	aifi := cat(linear("self_attn.q_proj", "E", "E", "true"), linear("self_attn.k_proj", "E", "E", "true"),
		linear("self_attn.v_proj", "E", "E", "true"), linear("self_attn.o_proj", "E", "E", "true"), norm("self_attn_layer_norm", "E", "true"),
		linear("mlp.layers.0", "eI", "E", "true"), linear("mlp.layers.1", "E", "eI", "true"), norm("final_layer_norm", "E", "true"))
	dec := cat(linear("self_attn.q_proj", "D", "D", "true"), linear("self_attn.k_proj", "D", "D", "true"),
		linear("self_attn.v_proj", "D", "D", "true"), linear("self_attn.o_proj", "D", "D", "true"), rms("self_attn_layer_norm"),
		linear("encoder_attn.sampling_offsets", "dHeads*tp*2", "D", "true"), linear("encoder_attn.attention_weights", "dHeads*tp", "D", "true"),
		[]T{{Name: "encoder_attn.num_points_scale", Shape: []string{"tp"}, Role: RoleNorm, AnyDType: true}},
		when("!gw", rms("encoder_attn_layer_norm")), rms("final_layer_norm"),
		linear("mlp.gate_proj", "dI/2", "D", "true"), linear("mlp.up_proj", "dI/2", "D", "true"), linear("mlp.down_proj", "D", "dI/2", "true"),
		when("gw", linear("gateway.gate", "2*D", "2*D", "true"), rms("gateway.norm")))
	last := "at(dic, len(dic)-1)"
	bw := "(e <= eix ? D : sd)"
	hybrid := "etype != 'lite'"
	// A shared box head is saved once, under the copy whose index sorts
	// last as a string (as Zamba's shared block).
	sharedBox := copies("sbh ? min(dL, 1) : dL", mlpFixed(m+"decoder.bbox_embed.{e}.", "(sbh ? D : "+bw+")", "(sbh ? D : "+bw+")", "4*(nbin+1)", 3))
	for i := range sharedBox {
		sharedBox[i].From = "sbh ? " + lexLastIndex("dL") + " : 0"
	}
	enc := m + "encoder."
	f := &Family{Name: "DEIMv2", Class: "Deimv2", ModelTypes: []string{"deimv2"}, Causal: "-", SeqCls: "-",
		Defs: withDefs(dFineDefs(),
			Def{Sym: "etype", Field: "encoder_type", Type: Str, Default: "'hybrid'", Desc: "the encoder: hybrid or lite"},
			flag("trail", "encoder_has_trailing_conv", "true", "the CSP blocks end with a 3×3 convolution"),
			flag("gw", "use_gateway", "true", "a gate after the cross-attention (else an RMSNorm)"),
			flag("sbh", "share_bbox_head", "false", "one box head for every decoder layer")),
		BasePrefix: m,
		Global:     when(hybrid, copies("len(bOut)", convNorm(m+"conv_encoder.encoder_input_proj.{e}.", "E", "bCh", "1", ""))),
		Stacks: []Stack{
			{Name: "AIFI", Prefix: enc + "aifi.{l}.", Layers: "(" + hybrid + ") ? len(epl) : 0", Tensors: copies("eL", under("layers.{e}.", aifi))},
			{Name: "lateral", Prefix: enc + "lateral_convs.{l}.", Layers: "(" + hybrid + ") ? len(eic)-1 : 0", Tensors: convNorm("", "E", "E", "1", "")},
			{Name: "FPN", Prefix: enc + "fpn_blocks.{l}.", Layers: "(" + hybrid + ") ? len(eic)-1 : 0", Tensors: repNCSPELAN5("")},
			{Name: "downsample", Prefix: enc + "downsample_convs.{l}.", Layers: "(" + hybrid + ") ? len(eic)-1 : 0",
				Tensors: cat(convNorm("conv1.", "E", "E", "1", ""), convNorm("conv2.", "E", "E", "3", "E"))},
			{Name: "PAN", Prefix: enc + "pan_blocks.{l}.", Layers: "(" + hybrid + ") ? len(eic)-1 : 0", Tensors: repNCSPELAN5("")},
			{Name: "lite input", Prefix: enc + "input_proj.{l}.", Layers: "(" + hybrid + ") ? 0 : len(eic)", Tensors: convNorm("", "E", "at(eic, l)", "1", "")},
			{Name: "decoder", Prefix: m + "decoder.layers.{l}.", Layers: "dL + max(dL-eix-1, 0)", Tensors: dec},
			{Name: "quality", Prefix: m + "decoder.lqe_layers.{l}.", Layers: "dL", Tensors: mlpHead("reg_conf.", "4*(tpv+1)", "lqH", "1", "max(lqL, 1)")},
		},
		Final: cat(
			when("!("+hybrid+")", convNorm(enc+"down_conv1.", "E", "E", "1", ""), convNorm(enc+"down_conv2.", "E", "E", "1", ""),
				convNorm(enc+"bi_fusion_conv.", "E", "E", "1", ""), repNCSPELAN5(enc+"fpn_block."), repNCSPELAN5(enc+"pan_block.")),
			[]T{{Name: m + "denoising_class_embed.weight", Shape: []string{"C+1", "D"}, Role: RoleEmbedding, If: "nd > 0"},
				{Name: m + "weight_embedding.weight", Shape: []string{"Q", "D"}, Role: RoleEmbedding, If: "liq"}},
			linear(m+"enc_output.0", "D", "D", "true"), norm(m+"enc_output.1", "D", "true"),
			linear(m+"enc_score_head", "C", "D", "true"), mlpHead(m+"enc_bbox_head.", "D", "D", "4", "3"),
			when("D != "+last, copies("nfl", cbn{Conv: "conv", Norm: "norm", Out: "D", In: last, K: "e < len(dic) ? 1 : 3"}.at(m+"decoder_input_proj.{e}."))),
			mlpHead(m+"decoder.query_pos_head.", "4", "D", "D", "3"),
			[]T{{Name: m + "decoder.reg_scale", Shape: []string{"1"}, Role: RoleNorm}, {Name: m + "decoder.up", Shape: []string{"1"}, Role: RoleNorm}},
			mlpHead(m+"decoder.pre_bbox_head.", "D", "D", "4", "3")),
		Embed: m + "enc_output.0.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-", Labels: true},
			{Suffix: "ForObjectDetection", Labels: true, Head: cat(copies("dL", linear(m+"decoder.class_embed.{e}", "C", "D", "true")), sharedBox)},
		},
	}
	return withDetrBackbone(f, detrBB{Pre: m + "conv_encoder.model.", Default: "hgnet_v2"})
}

var _ = register(deimv2Family)

// lexLastIndex is the index among 0…n-1 whose decimal text sorts last
// (n ≤ MaxLayers): the copy of a module shared by n slots that
// transformers keeps on save.
func lexLastIndex(n string) string {
	return "(" + n + " <= 10 ? " + n + "-1 : (" + n + " <= 90 ? 9 : (" + n + " <= 100 ? " + n + "-1 : (" + n + " <= 990 ? 99 : (" + n + " <= 1000 ? " + n + "-1 : 999)))))"
}

// groundingDinoDefs are GroundingDinoConfig's fields (its defaults).
func groundingDinoDefs() []Def {
	return []Def{
		{Sym: "D", Field: "d_model", Default: "256", Legend: "D", Desc: "encoder and decoder width", Show: true, Pos: true},
		{Sym: "Q", Field: "num_queries", Default: "900", Desc: "object queries", Pos: true},
		{Sym: "xL", Field: "encoder_layers", Default: "6", Legend: "xL", Desc: "encoder layers (text enhancer, fusion, deformable)", Show: true, Max: MaxLayers},
		{Sym: "xI", Field: "encoder_ffn_dim", Default: "2048", Desc: "the deformable layers' FFN width (half of it: the text enhancer's and the fusion's)", Pos: true},
		{Sym: "xHeads", Field: "encoder_attention_heads", Default: "8", Desc: "encoder heads", Pos: true},
		{Sym: "xnp", Field: "encoder_n_points", Default: "4", Desc: "encoder sampling points per head and level", Pos: true},
		{Sym: "dL", Field: "decoder_layers", Default: "6", Legend: "dL", Desc: "decoder layers", Show: true, Max: MaxLayers},
		{Sym: "dI", Field: "decoder_ffn_dim", Default: "2048", Desc: "decoder FFN width", Pos: true},
		{Sym: "dHeads", Field: "decoder_attention_heads", Default: "8", Desc: "decoder heads", Pos: true},
		{Sym: "dnp", Field: "decoder_n_points", Default: "4", Desc: "decoder sampling points per head and level", Pos: true},
		{Sym: "nfl", Field: "num_feature_levels", Default: "4", Desc: "feature levels the deformable attention samples", Pos: true},
		{Sym: "qd", Field: "query_dim", Default: "4", Desc: "reference point coordinates (the reference-point head reads qd/2·D)"},
		{Sym: "pe", Field: "position_embedding_type", Type: Str, Default: "'sine'", Null: "=", Desc: "the backbone's position embedding ('learned': row and column tables)"},
		flag("two", "two_stage", "true", "two-stage: encoder-output proposals (else learned reference points)"),
		flag("eit", "embedding_init_target", "true", "learned query position embeddings"),
		flag("share", "decoder_bbox_embed_share", "true", "one box head shared by the decoder layers"),
	}
}

// groundingDino is Grounding DINO (mm: MM Grounding DINO) under
// "model.": the backbone backbone_config names (a Swin's feature maps,
// withFeatureBackbone) and its input projections (a 1×1 convolution and
// GroupNorm per output; 3×3 stride-2 ones for the levels past them), a
// BERT text tower (text_backbone, no pooler) and its projection, an
// encoder of text-enhancer, bi-attention fusion and deformable layers,
// a decoder with self-, text cross- and deformable attention. The
// detection class's box heads: one where decoder_bbox_embed_share, else
// one per decoder layer — 4.x saves the first at the top level and the
// others under model.decoder. (the tied names it keeps), 5.x all at the
// top level. MM Grounding DINO always has a head per layer, and a
// contrastive class head with a bias; 5.x ties them all to the first.
func groundingDino(name, class, mt string, mm bool) *Family {
	const m = "model."
	// BertModel without its pooler; 5.x builds no relative positions.
	t := bertText(m+"text_backbone.", "30522", "768", "12", "12", "3072", "512", "2",
		"!tf5 && (pos_type == 'relative_key' || pos_type == 'relative_key_query')")
	mha := func(pre string) []T {
		return cat(linear(pre+"query", "D", "D", "true"), linear(pre+"key", "D", "D", "true"),
			linear(pre+"value", "D", "D", "true"), linear(pre+"out_proj", "D", "D", "true"))
	}
	enc := cat(
		under("text_enhancer_layer.", mha("self_attn."), linear("fc1", "xI/2", "D", "true"), linear("fc2", "D", "xI/2", "true"),
			norm("layer_norm_before", "D", "true"), norm("layer_norm_after", "D", "true")),
		under("fusion_layer.", norm("layer_norm_vision", "D", "true"), norm("layer_norm_text", "D", "true"),
			linear("attn.vision_proj", "xI/2", "D", "true"), linear("attn.text_proj", "xI/2", "D", "true"),
			linear("attn.values_vision_proj", "xI/2", "D", "true"), linear("attn.values_text_proj", "xI/2", "D", "true"),
			linear("attn.out_vision_proj", "D", "xI/2", "true"), linear("attn.out_text_proj", "D", "xI/2", "true"),
			vec("vision_param", "D"), vec("text_param", "D")),
		under("deformable_layer.", deformAttn("self_attn.", "D", "xHeads", "nfl", "xnp", "", false), norm("self_attn_layer_norm", "D", "true"),
			linear("fc1", "xI", "D", "true"), linear("fc2", "D", "xI", "true"), norm("final_layer_norm", "D", "true")))
	dec := cat(mha("self_attn."), norm("self_attn_layer_norm", "D", "true"),
		mha("encoder_attn_text."), norm("encoder_attn_text_layer_norm", "D", "true"),
		deformAttn("encoder_attn.", "D", "dHeads", "nfl", "dnp", "", false), norm("encoder_attn_layer_norm", "D", "true"),
		linear("fc1", "dI", "D", "true"), linear("fc2", "D", "dI", "true"), norm("final_layer_norm", "D", "true"))
	// The input projections: one per backbone output (one, of the last,
	// where Grounding DINO samples one level), then the extra levels.
	nOut, ch := "(nfl > 1 || mm ? len(bOut) : 1)", "at(bCh, at(bOut, nfl > 1 || mm ? e : len(bOut)-1))"
	extra := copies("max(nfl - len(bOut), 0)", conv(m+"input_proj_vision.{e}.0", "D", "e == len(bOut) ? at(bCh, at(bOut, len(bOut)-1)) : D", "3", "3"),
		groupNorm(m+"input_proj_vision.{e}.1", "D"))
	for i := range extra {
		extra[i].From, extra[i].If = "len(bOut)", "nfl > 1 || mm"
	}
	defs := cat(t.Defs, groundingDinoDefs())
	if mm { // no box-sharing switches: a head per layer, tied by 5.x
		defs = withDefs(withoutDefs(defs, "share"), derived("share", "tf5"))
	}
	defs = cat(defs, []Def{derived("mm", fmt.Sprint(mm))})
	cls := func(pre string) []T { return when("mm", []T{{Name: pre + "bias", Shape: []string{}, Role: RoleNorm}}) }
	head := cat(mlpFixed("bbox_embed.0.", "D", "D", "4", 3), cls("class_embed.0."),
		when("!share && tf5", copies("dL-1", under("bbox_embed.{e}.", mlpFixed("", "D", "D", "4", 3)), cls("class_embed.{e}."))),
		when("!share && !tf5", copies("dL-1", under(m+"decoder.bbox_embed.{e}.", mlpFixed("", "D", "D", "4", 3)), cls(m+"decoder.class_embed.{e}."))))
	for i := range head {
		if head[i].Experts != "" {
			head[i].From = "1"
		}
	}
	f := &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: defs, BasePrefix: m,
		Global: cat(
			copies(nOut, conv(m+"input_proj_vision.{e}.0", "D", ch, "1", "1"), groupNorm(m+"input_proj_vision.{e}.1", "D")), extra,
			when("pe == 'learned'", []T{{Name: m + "backbone.position_embedding.row_embeddings.weight", Shape: []string{"50", "D/2"}, Role: RoleEmbedding},
				{Name: m + "backbone.position_embedding.column_embeddings.weight", Shape: []string{"50", "D/2"}, Role: RoleEmbedding}}),
			t.Global),
		Stacks: cat(t.Stacks, []Stack{
			{Name: "encoder", Prefix: m + "encoder.layers.{l}.", Layers: "xL", Tensors: enc},
			{Name: "decoder", Prefix: m + "decoder.layers.{l}.", Layers: "dL", Tensors: dec},
		}),
		Final: cat(
			linear(m+"text_projection", "D", "H", "true"),
			[]T{{Name: m + "query_position_embeddings.weight", Shape: []string{"Q", "D"}, Role: RoleEmbedding, If: "eit || !two"},
				{Name: m + "level_embed", Shape: []string{"nfl", "D"}, Role: RoleNorm},
				{Name: m + "reference_points.weight", Shape: []string{"Q", "4"}, Role: RoleEmbedding, If: "!two && !mm"}},
			when("two || mm", linear(m+"enc_output", "D", "D", "true"), norm(m+"enc_output_norm", "D", "true"),
				mlpFixed(m+"encoder_output_bbox_embed.", "D", "D", "4", 3), cls(m+"encoder_output_class_embed.")),
			norm(m+"decoder.layer_norm", "D", "true"), mlpHead(m+"decoder.reference_points_head.", "(qd/2)*D", "D", "D", "2")),
		Embed: m + "text_backbone.embeddings.word_embeddings.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForObjectDetection", Head: head},
		},
	}
	return onlyBackbones(withGroundingText(withFeatureBackbone(f, "backbone_config.", m+"backbone.conv_encoder.model.")), "backbone_config.", "swin")
}

// withGroundingText refuses (exit 3) what Grounding DINO's layout here
// does not model: a timm backbone or one loaded by name (backbone), and
// a text tower other than BERT (text_config.model_type).
func withGroundingText(f *Family) *Family {
	inner := f.compose
	f.compose = func(c *Config) (*Family, error) {
		no := func(why string) (*Family, error) {
			return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: why}
		}
		if on, err := c.BoolOr("use_timm_backbone", false); err != nil || on {
			return no("a timm backbone is not modelled")
		}
		if raw, ok := c.lookup("backbone"); ok && string(raw) != "null" {
			return no("a backbone loaded by name (backbone) is not modelled")
		}
		if raw, ok := c.lookup("text_config.model_type"); ok {
			var mt string
			if err := json.Unmarshal(raw, &mt); err != nil || mt != "bert" {
				return no(fmt.Sprintf("its text tower, text_config.model_type %s, is not modelled (only bert)", raw))
			}
		}
		return inner(c)
	}
	return f
}

var _ = register(
	func() *Family { return groundingDino("Grounding DINO", "GroundingDino", "grounding-dino", false) },
	func() *Family {
		return groundingDino("MM Grounding DINO", "MMGroundingDino", "mm-grounding-dino", true)
	},
)
