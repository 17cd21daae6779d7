package spec

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Blocks of the speech encoders of the wav2vec2 lineage (wav2vec2,
// HuBERT, UniSpeech(-SAT), WavLM, Data2VecAudio, SEW, SEW-D, the
// conformer variants): a convolutional feature extractor over the raw
// waveform, a projection to hidden_size, a positional convolution, the
// encoder layers, and the heads transformers puts on them (CTC, the
// utterance and frame classifiers, the TDNN x-vector head, the
// pretraining quantizer).

// w2vDefs are a Wav2Vec2Config-like config's fields (every class of the
// lineage has the same defaults; a family changes the few it differs
// in with withDefault).
func w2vDefs(projLN, bn string) []Def {
	return cat(trunk("32", "768", "12", "encoder layers"), []Def{
		encHeads("num_attention_heads", "12"), inner("intermediate_size", "3072"),
		{Sym: "cd", Field: "conv_dim", Type: List, Default: "list(512, 512, 512, 512, 512, 512, 512)", Desc: "feature extractor channels per layer"},
		{Sym: "ck", Field: "conv_kernel", Type: List, Default: "list(10, 3, 3, 3, 3, 2, 2)", Desc: "feature extractor kernels per layer"},
		// The config class sets num_feat_extract_layers to len(conv_dim)
		// whatever config.json says.
		derived("nconv", "len(cd)"),
		derived("C0", "at(cd, len(cd)-1)"),
		flag("conv_bias", "conv_bias", "false", "the feature extractor's convolutions have biases"),
		{Sym: "fen", Field: "feat_extract_norm", Type: Str, Default: "'group'", Desc: "group norm on the first conv layer, or layer norm on each"},
		{Sym: "pk", Field: "num_conv_pos_embeddings", Default: "128", Desc: "positional convolution kernel", Pos: true},
		{Sym: "pg", Field: "num_conv_pos_embedding_groups", Default: "16", Desc: "its groups", Pos: true},
		{Sym: "mtp", Field: "mask_time_prob", Type: Milli, Default: "50", Desc: "time-masking probability (×1000)"},
		{Sym: "mfp", Field: "mask_feature_prob", Type: Milli, Default: "0", Desc: "feature-masking probability (×1000)"},
		projLNDef(projLN), posBN(bn),
		flag("stable", "do_stable_layer_norm", "false", "pre-norm encoder layers"),
		{Sym: "aad", Field: "adapter_attn_dim", Default: "0", Null: "0", Desc: "the per-layer attention adapters' width (0: none)"},
		flag("adapter", "add_adapter", "false", "an adapter after the encoder"),
		{Sym: "OH", Field: "output_hidden_size", Default: "H", Null: "H", Desc: "the adapter's width", Pos: true},
		{Sym: "nad", Field: "num_adapter_layers", Default: "3", Desc: "adapter layers"},
		{Sym: "ak", Field: "adapter_kernel_size", Default: "3", Desc: "adapter kernel", Pos: true},
		{Sym: "cps", Field: "classifier_proj_size", Default: "256", Desc: "the utterance classifier's projection", Pos: true},
		flag("wls", "use_weighted_layer_sum", "false", "the classifier mixes every layer's output"),
		{Sym: "tdd", Field: "tdnn_dim", Type: List, Default: "list(512, 512, 512, 512, 1500)", Desc: "the x-vector head's TDNN widths"},
		{Sym: "tdk", Field: "tdnn_kernel", Type: List, Default: "list(5, 3, 3, 1, 1)", Desc: "the x-vector head's TDNN kernels"},
		{Sym: "xvo", Field: "xvector_output_dim", Default: "512", Desc: "the x-vector width", Pos: true},
		{Sym: "cvg", Field: "num_codevector_groups", Default: "2", Desc: "the quantizer's codebooks", Pos: true},
		{Sym: "cvn", Field: "num_codevectors_per_group", Default: "320", Desc: "entries per codebook", Pos: true},
		{Sym: "cvd", Field: "codevector_dim", Default: "256", Desc: "the quantized vectors' width", Pos: true},
		{Sym: "pcd", Field: "proj_codevector_dim", Default: "256", Desc: "the contrastive projection's width", Pos: true},
	})
}

// posBN is HuBERT's conv_pos_batch_norm: a batch norm before a plain
// (not weight-normed) positional convolution; false for wav2vec2.
func posBN(field string) Def {
	if field == "" {
		return derived("posbn", "false")
	}
	return flag("posbn", field, "false", "the positional convolution has a batch norm, no weight norm")
}

// projLNDef is whether the feature projection has a layer norm: HuBERT's
// field, always for wav2vec2 (field "").
func projLNDef(field string) Def {
	if field == "" {
		return derived("projLN", "true")
	}
	return flag("projLN", field, "true", "the feature projection has a layer norm")
}

// convFeatures is the convolutional feature extractor under pre
// ("wav2vec2.feature_extractor."): layer e maps cd[e-1] (1 for the
// first) channels to cd[e] with kernel ck[e]; feat_extract_norm "group"
// puts a group norm on the first layer only, "layer" a layer norm on
// each.
func convFeatures(pre string) []T {
	p := pre + "conv_layers.{e}."
	return []T{{Name: p + "conv.weight", Shape: []string{"at(cd, e)", "e == 0 ? 1 : at(cd, e-1)", "at(ck, e)"}, Role: RoleLinear, Experts: "nconv", PerCopy: true},
		{Name: p + "conv.bias", Shape: []string{"at(cd, e)"}, Role: RoleBias, Experts: "nconv", PerCopy: true, If: "conv_bias"},
		{Name: p + "layer_norm.weight", Shape: []string{"at(cd, e)"}, Role: RoleNorm, Experts: "nconv", PerCopy: true, If: "fen == 'layer' || e == 0"},
		{Name: p + "layer_norm.bias", Shape: []string{"at(cd, e)"}, Role: RoleBias, Experts: "nconv", PerCopy: true, If: "fen == 'layer' || e == 0"}}
}

// featProjection is wav2vec2's feature projection under pre: a layer
// norm over the extractor's channels (where projLN) and a linear map to
// hidden_size.
func featProjection(pre string) []T {
	return cat(when("projLN", norm(pre+"layer_norm", "C0", "true")), linear(pre+"projection", "H", "C0", "true"))
}

// maskedSpecEmbed is the learned mask vector, built where cond holds
// ("" always).
func maskedSpecEmbed(pre, cond string) []T {
	return []T{{Name: pre + "masked_spec_embed", Shape: []string{"H"}, Role: RoleNorm, If: cond}}
}

// maskCond is the usual condition of masked_spec_embed.
const maskCond = "mtp > 0 || mfp > 0"

// posConvWN is the weight-normed positional convolution under pre
// ("…encoder.pos_conv_embed.conv."), as torch's parametrizations name it
// (weightNorm4x gives the older weight_g/weight_v names); with HuBERT's
// posbn a batch norm and a plain convolution instead.
func posConvWN(pre string) []T {
	c := pre + "conv."
	return cat([]T{{Name: c + "parametrizations.weight.original0", Shape: []string{"1", "1", "pk"}, Role: RoleNorm, If: "!posbn"},
		{Name: c + "parametrizations.weight.original1", Shape: []string{"H", "H/pg", "pk"}, Role: RoleLinear, If: "!posbn"},
		{Name: c + "weight", Shape: []string{"H", "H/pg", "pk"}, Role: RoleLinear, If: "posbn"},
		{Name: c + "bias", Shape: []string{"H"}, Role: RoleBias}},
		when("posbn", batchNorm(pre+"batch_norm", "H")))
}

// batchNorm is a BatchNorm1d: weight, bias and its running statistics
// (kept in float32 by some writers).
func batchNorm(pre, dim string) []T {
	return cat(norm(pre, dim, "true"),
		[]T{{Name: pre + ".running_mean", Shape: []string{dim}, Role: RoleNorm, AnyDType: true},
			{Name: pre + ".running_var", Shape: []string{dim}, Role: RoleNorm, AnyDType: true},
			{Name: pre + ".num_batches_tracked", Shape: []string{}, Role: RoleNorm, AnyDType: true}})
}

// w2vLayer is a wav2vec2 encoder layer (post- or pre-norm, the same
// names) with, where attnAdapter, the per-layer attention adapter a
// pre-norm encoder has when adapter_attn_dim is set (MMS).
func w2vLayer(attn []T, attnAdapter bool) []T {
	ad := "false"
	if attnAdapter {
		ad = "stable && aad > 0"
	}
	if attn == nil {
		attn = w2vAttn("attention.")
	}
	return cat(attn, norm("layer_norm", "H", "true"),
		linear("feed_forward.intermediate_dense", "I", "H", "true"), linear("feed_forward.output_dense", "H", "I", "true"),
		norm("final_layer_norm", "H", "true"),
		when(ad, norm("adapter_layer.norm", "H", "true"),
			linear("adapter_layer.linear_1", "aad", "H", "true"), linear("adapter_layer.linear_2", "H", "aad", "true")))
}

// w2vAttn is BART-style attention with biases: q, k, v, out_proj [H, H].
func w2vAttn(pre string) []T {
	return cat(linear(pre+"q_proj", "H", "H", "true"), linear(pre+"k_proj", "H", "H", "true"),
		linear(pre+"v_proj", "H", "H", "true"), linear(pre+"out_proj", "H", "H", "true"))
}

// w2vAdapter is the adapter after the encoder (add_adapter): a
// projection to output_hidden_size where it differs, then strided GLU
// convolutions.
func w2vAdapter(pre string) []T {
	return when("adapter", when("OH != H", linear(pre+"adapter.proj", "OH", "H", "true"), norm(pre+"adapter.proj_layer_norm", "OH", "true")),
		[]T{{Name: pre + "adapter.layers.{e}.conv.weight", Shape: []string{"2*OH", "OH", "ak"}, Role: RoleLinear, Experts: "nad"},
			{Name: pre + "adapter.layers.{e}.conv.bias", Shape: []string{"2*OH"}, Role: RoleBias, Experts: "nad"}})
}

// w2vGlobal are wav2vec2's base model's tensors before the layers,
// under pre: extractor, projection, mask vector, positional convolution
// and the encoder's norm.
func w2vGlobal(pre string) []T {
	return cat(convFeatures(pre+"feature_extractor."), featProjection(pre+"feature_projection."),
		maskedSpecEmbed(pre, maskCond), posConvWN(pre+"encoder.pos_conv_embed."), norm(pre+"encoder.layer_norm", "H", "true"))
}

// weightNorm4x is how checkpoints written before torch's parametrizations
// name the positional convolution's weight norm (weight_g, weight_v).
func weightNorm4x(pre string) [][][2]string {
	p := pre + "encoder.pos_conv_embed.conv."
	return [][][2]string{{{p + "parametrizations.weight.original0", p + "weight_g"}, {p + "parametrizations.weight.original1", p + "weight_v"}}}
}

// speechHeads says which heads a speech encoder's family has beyond the
// base model, CTC and the utterance classifier.
type speechHeads struct {
	CTCIn    string // the CTC head's input width ("" H)
	Frame    bool   // ForAudioFrameClassification
	XVector  bool   // ForXVector
	MaskedLM bool   // ForMaskedLM (wav2vec2's deprecated class)
	PreTrain []T    // ForPreTraining's head, nil none
	// PreTrainFP32: the pretraining class's first parameter is kept in
	// float32 (Task.FP32First).
	PreTrainFP32 bool
}

// layerWeights is the classifiers' mix of every layer's output.
var layerWeights = []T{{Name: "layer_weights", Shape: []string{"L+1"}, Role: RoleNorm, If: "wls"}}

// xvectorHead is the TDNN x-vector head: a projection to tdnn_dim[0],
// the TDNN layers (each a linear over kernel × its input), the
// statistics pooling's projection, the classifier and the AM-softmax
// objective [xvector_output_dim, labels].
func xvectorHead() []T {
	return cat(layerWeights, linear("projector", "at(tdd, 0)", "H", "true"),
		[]T{{Name: "tdnn.{e}.kernel.weight", Shape: []string{"at(tdd, e)", "(e == 0 ? at(tdd, 0) : at(tdd, e-1)) * at(tdk, e)"}, Role: RoleLinear, Experts: "len(tdd)", PerCopy: true},
			{Name: "tdnn.{e}.kernel.bias", Shape: []string{"at(tdd, e)"}, Role: RoleBias, Experts: "len(tdd)", PerCopy: true}},
		linear("feature_extractor", "xvo", "2*at(tdd, len(tdd)-1)", "true"), linear("classifier", "xvo", "xvo", "true"),
		[]T{{Name: "objective.weight", Shape: []string{"xvo", "C"}, Role: RoleLinear}})
}

// quantizer is the Gumbel vector quantizer of the pretraining heads:
// codevectors [1, groups·entries, codevector_dim/groups] (kept in
// float32) and the projection from in to the logits.
func quantizer(in string) []T {
	return cat([]T{{Name: "quantizer.codevectors", Shape: []string{"1", "cvg*cvn", "cvd/cvg"}, Role: RoleNorm, AnyDType: true}},
		linear("quantizer.weight_proj", "cvg*cvn", in, "true"))
}

// w2vPreTraining is wav2vec2's pretraining head: the quantizer over the
// extractor's features and the two contrastive projections.
func w2vPreTraining() []T {
	return cat(quantizer("C0"), linear("project_hid", "pcd", "H", "true"), linear("project_q", "pcd", "cvd", "true"))
}

// tasks are the task classes of a speech encoder with these heads.
func (h speechHeads) tasks() []Task {
	in := h.CTCIn
	if in == "" {
		in = "H"
	}
	ts := []Task{
		{Suffix: TaskBase, Prefix: "-"},
		{Suffix: "ForCTC", Head: linear("lm_head", "V", in, "true")},
		{Suffix: HeadSeqCls, Labels: true, Head: cat(layerWeights, linear("projector", "cps", "H", "true"), linear("classifier", "C", "cps", "true"))},
	}
	if h.Frame {
		ts = append(ts, Task{Suffix: "ForAudioFrameClassification", Labels: true, Head: cat(layerWeights, linear("classifier", "C", "H", "true"))})
	}
	if h.XVector {
		ts = append(ts, Task{Suffix: "ForXVector", Labels: true, Head: xvectorHead()})
	}
	if h.MaskedLM {
		ts = append(ts, Task{Suffix: "ForMaskedLM", Head: linear("lm_head", "V", "H", "true")})
	}
	if h.PreTrain != nil {
		ts = append(ts, Task{Suffix: TaskPreTrain, Head: h.PreTrain, FP32First: h.PreTrainFP32})
	}
	return ts
}

// speechEncoder is a family of the wav2vec2 lineage: its base model
// under base (global tensors, the layer stack, final tensors), its
// defs and heads.
type speechEncoder struct {
	Name, Class, ModelType, Base string
	Defs                         []Def
	Global, Layer, Final         []T
	LayerPrefix                  string // "" encoder.layers.{l}.
	Heads                        speechHeads
	Variants                     [][][2]string // nil: weightNorm4x(Base)
	Embed                        string        // "" the first convolution
}

func (s speechEncoder) family() *Family {
	lp := s.LayerPrefix
	if lp == "" {
		lp = "encoder.layers.{l}."
	}
	v := s.Variants
	if v == nil {
		v = weightNorm4x(s.Base)
	}
	embed := s.Embed
	if embed == "" {
		embed = s.Base + "feature_extractor.conv_layers.0.conv.weight"
	}
	return &Family{Name: s.Name, Class: s.Class, ModelTypes: []string{s.ModelType}, Causal: "-", SeqCls: "-",
		Defs: s.Defs, Global: s.Global, Stacks: []Stack{{Prefix: s.Base + lp, Layers: "L", Tensors: s.Layer}}, Final: s.Final,
		Embed: embed, Head: "-",
		Variants: v, Tasks: s.Heads.tasks()}
}

// conformerDefs are the fields of the conformer variants (wav2vec2-
// conformer, W2V-BERT): the positional scheme, the depthwise kernel,
// and vocab_size, which may be null (no CTC head).
func conformerDefs(defs []Def, pet string) []Def {
	defs = replaceDef(defs, Def{Sym: "V", Field: "vocab_size", Default: "0", Null: "0", Legend: "V", Desc: "CTC output classes", Show: true})
	return append(defs,
		Def{Sym: "pet", Field: "position_embeddings_type", Type: Str, Default: pet, Null: "''", Desc: "relative, relative_key, rotary or none"},
		field("dwk", "conv_depthwise_kernel_size", "31", "the convolution module's depthwise kernel"),
		field("lmp", "left_max_position_embeddings", "64", "relative_key's positions to the left"),
		field("rmp", "right_max_position_embeddings", "8", "relative_key's positions to the right"))
}

// conformerAttn is the conformer's self-attention under pre, of width w:
// linear_q/k/v/out with biases; "relative" adds linear_pos and the u/v
// biases, "relative_key" a distance embedding (where pos holds).
func conformerAttn(pre, w string, pos bool) []T {
	ts := cat(linear(pre+"linear_q", w, w, "true"), linear(pre+"linear_k", w, w, "true"),
		linear(pre+"linear_v", w, w, "true"), linear(pre+"linear_out", w, w, "true"))
	if !pos {
		return ts
	}
	return cat(ts, when("pet == 'relative'", linear(pre+"linear_pos", w, w, ""),
		[]T{{Name: pre + "pos_bias_u", Shape: []string{"heads", w + "/heads"}, Role: RoleNorm},
			{Name: pre + "pos_bias_v", Shape: []string{"heads", w + "/heads"}, Role: RoleNorm}}),
		when("pet == 'relative_key'", []T{{Name: pre + "distance_embedding.weight", Shape: []string{"lmp+rmp+1", w + "/heads"}, Role: RoleEmbedding}}))
}

// ffn is wav2vec2's feed-forward under pre, width w, inner I.
func ffn(pre, w string) []T {
	return cat(linear(pre+"intermediate_dense", "I", w, "true"), linear(pre+"output_dense", w, "I", "true"))
}

// conformerLayer is a conformer layer: a half-step feed-forward, self-
// attention, the convolution module (pointwise GLU, depthwise, a batch
// norm — W2V-BERT: a layer norm, bert — and pointwise), a second
// feed-forward and the final norm.
func conformerLayer(bert bool) []T {
	var dwNorm []T
	if bert {
		dwNorm = norm("conv_module.depthwise_layer_norm", "H", "true")
	} else {
		dwNorm = batchNorm("conv_module.batch_norm", "H")
	}
	return cat(norm("ffn1_layer_norm", "H", "true"), ffn("ffn1.", "H"),
		norm("self_attn_layer_norm", "H", "true"), conformerAttn("self_attn.", "H", true),
		norm("conv_module.layer_norm", "H", "true"),
		[]T{{Name: "conv_module.pointwise_conv1.weight", Shape: []string{"2*H", "H", "1"}, Role: RoleLinear},
			{Name: "conv_module.depthwise_conv.weight", Shape: []string{"H", "1", "dwk"}, Role: RoleLinear}},
		dwNorm,
		[]T{{Name: "conv_module.pointwise_conv2.weight", Shape: []string{"H", "H", "1"}, Role: RoleLinear}},
		norm("ffn2_layer_norm", "H", "true"), ffn("ffn2.", "H"), norm("final_layer_norm", "H", "true"))
}

// w2vBertAdapter is W2V-BERT's adapter (add_adapter): a projection to
// output_hidden_size where it differs, then layers of a strided residual
// convolution, a strided attention and a feed-forward, all of width OH.
func w2vBertAdapter(pre string) []T {
	l := pre + "adapter.layers.{e}."
	per := cat(norm(l+"residual_layer_norm", "OH", "true"),
		[]T{{Name: l + "residual_conv.weight", Shape: []string{"2*OH", "OH", "ak"}, Role: RoleLinear}}, vec(l+"residual_conv.bias", "2*OH"),
		norm(l+"self_attn_layer_norm", "OH", "true"),
		[]T{{Name: l + "self_attn_conv.weight", Shape: []string{"2*OH", "OH", "ak"}, Role: RoleLinear}}, vec(l+"self_attn_conv.bias", "2*OH"),
		conformerAttn(l+"self_attn.", "OH", false), norm(l+"ffn_layer_norm", "OH", "true"), ffn(l+"ffn.", "OH"))
	for i := range per {
		per[i].Experts = "nad"
	}
	return when("adapter", when("OH != H", linear(pre+"adapter.proj", "OH", "H", "true"), norm(pre+"adapter.proj_layer_norm", "OH", "true")), per)
}

// disentangledDefs are the fields of DeBERTa-v2's disentangled attention
// with the given defaults (SEW-D's differ from DeBERTa's).
func disentangledDefs(rel, pb, pat, share, nre string) []Def {
	return []Def{
		{Sym: "P", Field: "max_position_embeddings", Default: "512", Desc: "positions", Pos: true},
		flag("rel", "relative_attention", rel, "disentangled relative attention"),
		{Sym: "mrp", Field: "max_relative_positions", Type: Signed, Default: "0-1", Null: "0-1", Desc: "relative distances (< 1: max_position_embeddings)"},
		{Sym: "pb", Field: "position_buckets", Type: Signed, Default: pb, Null: "0-1", Desc: "log-bucketed relative positions (≤ 0: none)"},
		listOf("pat", "pos_att_type", pat, "position attention kinds (c2p, p2c)"),
		flag("share", "share_att_key", share, "position projections share the content ones"),
		{Sym: "nre", Field: "norm_rel_ebd", Type: Str, Default: nre, Null: "=", Desc: "normalisation of the relative embeddings"},
		{Sym: "cks", Field: "conv_kernel_size", Default: "0", Desc: "convolution beside the first layer (0: none)"},
		{Sym: "cg", Field: "conv_groups", Default: "1", Pos: true, Desc: "its groups"},
		derived("ebd", "pb > 0 ? pb : (mrp < 1 ? P : mrp)"),
	}
}

// disentangledLayer is a DeBERTa-v2 layer: content projections, the
// position projections of their own unless share_att_key, the output
// dense and norms.
func disentangledLayer() []T {
	return cat(linear("attention.self.query_proj", "H", "H", "true"), linear("attention.self.key_proj", "H", "H", "true"),
		linear("attention.self.value_proj", "H", "H", "true"),
		when("rel && !share && in('c2p', pat)", linear("attention.self.pos_key_proj", "H", "H", "true")),
		when("rel && !share && in('p2c', pat)", linear("attention.self.pos_query_proj", "H", "H", "true")),
		linear("attention.output.dense", "H", "H", "true"), norm("attention.output.LayerNorm", "H", "true"),
		linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))
}

// disentangledFinal are the encoder's tensors after DeBERTa-v2 layers
// under pre ("deberta.encoder."): the relative embeddings, their norm,
// the convolution beside the first layer.
func disentangledFinal(pre string) []T {
	return cat([]T{{Name: pre + "rel_embeddings.weight", Shape: []string{"2*ebd", "H"}, Role: RoleEmbedding, If: "rel"}},
		when("nre == 'layer_norm'", norm(pre+"LayerNorm", "H", "true")),
		when("cks > 0", []T{{Name: pre + "conv.conv.weight", Shape: []string{"H", "H/cg", "cks"}, Role: RoleLinear},
			{Name: pre + "conv.conv.bias", Shape: []string{"H"}, Role: RoleBias}},
			norm(pre+"conv.LayerNorm", "H", "true")))
}

// whisperEncoderDefs are the fields of a Whisper-like audio encoder's
// config under cfg ("audio_config."), with Qwen2AudioEncoderConfig's
// defaults: aH, aL, aheads, aI, amel, aPs. Voxtral's and Audio Flamingo
// 3's encoders name the same fields hidden_size, num_hidden_layers, …
// (with Whisper's names as attribute_map aliases).
func whisperEncoderDefs(cfg string) []Def {
	return []Def{
		{Sym: "aH", Field: cfg + "d_model|" + cfg + "hidden_size", Default: "1280", Legend: "aH", Desc: "audio encoder width", Show: true, Pos: true},
		{Sym: "aL", Field: cfg + "encoder_layers|" + cfg + "num_hidden_layers", Default: "32", Legend: "aL", Desc: "audio encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "aheads", Field: cfg + "encoder_attention_heads|" + cfg + "num_attention_heads", Default: "20", Desc: "audio attention heads", Pos: true, Divides: "aH"},
		{Sym: "aI", Field: cfg + "encoder_ffn_dim|" + cfg + "intermediate_size", Default: "5120", Legend: "aI", Desc: "audio FFN inner width", Show: true, Pos: true},
		{Sym: "amel", Field: cfg + "num_mel_bins", Default: "128", Desc: "log-mel input channels", Pos: true},
		{Sym: "aPs", Field: cfg + "max_source_positions", Default: "1500", Desc: "audio positions", Pos: true},
	}
}

// whisperEncoder is Whisper's encoder under pre ("audio_tower."): two
// convolutions over the mel bins, learned positions, pre-norm layers
// whose k_proj has no bias, a final norm.
func whisperEncoder(pre, name string) ([]T, Stack, []T) {
	global := []T{{Name: pre + "conv1.weight", Shape: []string{"aH", "amel", "3"}, Role: RoleLinear},
		{Name: pre + "conv1.bias", Shape: []string{"aH"}, Role: RoleBias},
		{Name: pre + "conv2.weight", Shape: []string{"aH", "aH", "3"}, Role: RoleLinear},
		{Name: pre + "conv2.bias", Shape: []string{"aH"}, Role: RoleBias},
		{Name: pre + "embed_positions.weight", Shape: []string{"aPs", "aH"}, Role: RoleEmbedding}}
	layer := cat(linear("self_attn.q_proj", "aH", "aH", "true"), linear("self_attn.k_proj", "aH", "aH", ""),
		linear("self_attn.v_proj", "aH", "aH", "true"), linear("self_attn.out_proj", "aH", "aH", "true"),
		norm("self_attn_layer_norm", "aH", "true"), linear("fc1", "aI", "aH", "true"), linear("fc2", "aH", "aI", "true"),
		norm("final_layer_norm", "aH", "true"))
	return global, Stack{Name: name, Prefix: pre + "layers.{l}.", Layers: "aL", Tensors: layer}, norm(pre+"layer_norm", "aH", "true")
}

// parakeetDefs are ParakeetEncoderConfig's fields under cfg
// ("encoder_config."), symbols pH, pL, pheads, pI.
func parakeetDefs(cfg string) []Def {
	return []Def{
		{Sym: "pH", Field: cfg + "hidden_size", Default: "1024", Legend: "pH", Desc: "encoder width", Show: true, Pos: true},
		{Sym: "pL", Field: cfg + "num_hidden_layers", Default: "24", Legend: "pL", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "pheads", Field: cfg + "num_attention_heads", Default: "8", Desc: "attention heads", Pos: true, Divides: "pH"},
		{Sym: "pd", Field: cfg + "head_dim", Default: "pH/pheads", Null: "pH/pheads", Desc: "width of one attention head", Pos: true},
		{Sym: "pI", Field: cfg + "intermediate_size", Default: "4096", Legend: "pI", Desc: "FFN inner width", Show: true, Pos: true},
		flag("pab", cfg+"attention_bias", "true", "attention and feed-forward linears have biases"),
		// 4.57 has no convolution_bias (always biased) and sets
		// num_key_value_heads to num_attention_heads whatever
		// config.json says; 5.x reads both.
		flag("pcbf", cfg+"convolution_bias", "true", "the convolution module's convolutions have biases (5.x)"),
		derived("pcb", "!tf5 || pcbf"),
		{Sym: "pkvf", Field: cfg + "num_key_value_heads", Default: "pheads", Null: "pheads", Desc: "key/value heads (5.x)", Pos: true},
		derived("pkv", "tf5 ? pkvf : pheads"),
		{Sym: "pck", Field: cfg + "conv_kernel_size", Default: "9", Desc: "the depthwise kernel", Pos: true},
		{Sym: "psf", Field: cfg + "subsampling_factor", Default: "8", Desc: "time subsampling (a power of 2)", Pos: true},
		{Sym: "psc", Field: cfg + "subsampling_conv_channels", Default: "256", Desc: "subsampling channels", Pos: true},
		{Sym: "psk", Field: cfg + "subsampling_conv_kernel_size", Default: "3", Desc: "subsampling kernel", Pos: true},
		{Sym: "pss", Field: cfg + "subsampling_conv_stride", Default: "2", Desc: "subsampling stride", Pos: true},
		{Sym: "pmel", Field: cfg + "num_mel_bins", Default: "80", Desc: "mel bins", Pos: true},
		derived("pns", "log2(psf)"),
	}
}

// parakeetMaxSteps bounds the depthwise subsampling steps modelled
// (subsampling_factor up to 2^9).
const parakeetMaxSteps = 8

// parakeetEncoder is Parakeet's FastConformer encoder under pre: a
// subsampling stack (a convolution, then per halving a depthwise and a
// pointwise one, interleaved with activations: module indices 0, 2+3i,
// 3+3i) and a linear to hidden_size, then conformer blocks with
// relative-position attention.
func parakeetEncoder(pre string) ([]T, Stack) { return fastConformer(pre, false) }

// nemotronSubsamplingDefs are the frequency bins left after each of the
// Nemotron streaming encoder's causal subsampling steps (padded by
// kernel−1 + stride−1): nf0 … nf9, nfo the last.
func nemotronSubsamplingDefs() []Def {
	ds := []Def{derived("nf0", "pmel")}
	for i := 0; i <= parakeetMaxSteps; i++ {
		ds = append(ds, derived(fmt.Sprintf("nf%d", i+1), fmt.Sprintf("pns > %d ? (nf%d + pss - 2)/pss + 1 : nf%d", i, i, i)))
	}
	return append(ds, derived("nfo", fmt.Sprintf("nf%d", parakeetMaxSteps+1)))
}

// fastConformer is Parakeet's FastConformer encoder under pre, or with
// nemotron the Nemotron streaming encoder's: causal subsampling
// (conv_in, then per halving a depthwise and a pointwise convolution
// under layers.{i}) and a layer norm, not a batch norm, in the
// convolution module.
func fastConformer(pre string, nemotron bool) ([]T, Stack) {
	sub := pre + "subsampling."
	var global []T
	if nemotron {
		global = conv2dT(sub+"conv_in", "psc", "1", "psk")
		for i := 0; i < parakeetMaxSteps; i++ {
			cond := fmt.Sprintf("pns-1 > %d", i)
			p := fmt.Sprintf("%slayers.%d.", sub, i)
			global = cat(global, when(cond, conv2dT(p+"depthwise_conv", "psc", "1", "psk"), conv2dT(p+"pointwise_conv", "psc", "psc", "1")))
		}
		global = cat(global, linear(sub+"linear", "pH", "psc*nfo", "true"))
	} else {
		global = parakeetSubsampling(sub)
	}
	ff := func(p string) []T {
		return cat(linear(p+"linear1", "pI", "pH", "pab"), linear(p+"linear2", "pH", "pI", "pab"))
	}
	convNorm := batchNorm("conv.norm", "pH")
	if nemotron {
		convNorm = norm("conv.norm", "pH", "true")
	}
	cv := func(name, out, in, k string) []T {
		return cat([]T{{Name: name + ".weight", Shape: []string{out, in, k}, Role: RoleLinear}}, when("pcb", vec(name+".bias", out)))
	}
	layer := cat(norm("norm_feed_forward1", "pH", "true"), ff("feed_forward1."),
		norm("norm_self_att", "pH", "true"),
		linear("self_attn.q_proj", "pheads*pd", "pH", "pab"), linear("self_attn.k_proj", "pkv*pd", "pH", "pab"),
		linear("self_attn.v_proj", "pkv*pd", "pH", "pab"), linear("self_attn.o_proj", "pH", "pheads*pd", "pab"),
		linear("self_attn.relative_k_proj", "pheads*pd", "pH", ""),
		[]T{{Name: "self_attn.bias_u", Shape: []string{"pheads", "pd"}, Role: RoleNorm}, {Name: "self_attn.bias_v", Shape: []string{"pheads", "pd"}, Role: RoleNorm}},
		norm("norm_conv", "pH", "true"),
		cv("conv.pointwise_conv1", "2*pH", "pH", "1"), cv("conv.depthwise_conv", "pH", "1", "pck"), convNorm,
		cv("conv.pointwise_conv2", "pH", "pH", "1"),
		norm("norm_feed_forward2", "pH", "true"), ff("feed_forward2."), norm("norm_out", "pH", "true"))
	return global, Stack{Prefix: pre + "layers.{l}.", Layers: "pL", Tensors: layer}
}

// lstm is a torch LSTM under pre ("decoder.lstm."): n layers of width h,
// the first reading in features, each with weight_ih_l{k} [4h, in],
// weight_hh_l{k} [4h, h] and both biases.
func lstm(pre, n, in, h string) []T {
	return []T{{Name: pre + "weight_ih_l{e}", Shape: []string{"4*" + h, "e == 0 ? " + in + " : " + h}, Role: RoleLinear, Experts: n, PerCopy: true},
		{Name: pre + "weight_hh_l{e}", Shape: []string{"4*" + h, h}, Role: RoleLinear, Experts: n},
		{Name: pre + "bias_ih_l{e}", Shape: []string{"4*" + h}, Role: RoleBias, Experts: n},
		{Name: pre + "bias_hh_l{e}", Shape: []string{"4*" + h}, Role: RoleBias, Experts: n}}
}

// lensValue reads a Lens, Widths or Heights field.
func (c *Config) lensValue(field string, raw json.RawMessage, t DefType) (any, error) {
	widths := t != Lens
	items, err := c.arrayItems(field, raw)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(items))
	for i, it := range items {
		var sub []json.RawMessage
		if json.Unmarshal(it, &sub) != nil {
			if !widths {
				out[i] = int64(1)
				continue
			}
			sub = []json.RawMessage{it}
		}
		if widths {
			if len(sub) == 0 {
				return nil, c.errorf(field, "entry %d is an empty array", i)
			}
			pick := sub[len(sub)-1]
			if t == Heights {
				pick = sub[0]
			}
			n, err := c.parseInt(field, pick)
			if err != nil {
				return nil, err
			}
			out[i] = int64(n)
			continue
		}
		if len(sub) > MaxLayers*4 {
			return nil, c.errorf(field, "entry %d has %d entries, more than fsmount reads", i, len(sub))
		}
		out[i] = int64(len(sub))
	}
	return out, nil
}

// hifiGanDefs are a HiFi-GAN vocoder's fields with their usual defaults
// (SeamlessM4T's, FastSpeech2's, SpeechT5's): the initial width, the
// upsampling rates and kernels (one transposed convolution each, halving
// the width), the residual blocks' kernels and dilations.
func hifiGanDefs(cfg string) []Def {
	return []Def{
		field("uic", cfg+"upsample_initial_channel", "512", "the vocoder's initial width"),
		{Sym: "ur", Field: cfg + "upsample_rates", Type: List, Default: "list(5, 4, 4, 2, 2)", Desc: "the vocoder's upsampling rates"},
		{Sym: "uk", Field: cfg + "upsample_kernel_sizes", Type: List, Default: "list(11, 8, 8, 4, 4)", Desc: "their kernels"},
		{Sym: "rk", Field: cfg + "resblock_kernel_sizes", Type: List, Default: "list(3, 7, 11)", Desc: "the residual blocks' kernels"},
		{Sym: "rd", Field: cfg + "resblock_dilation_sizes", Type: Lens, Default: "list(3, 3, 3)", Desc: "their dilations (counts)"},
		// transformers zips the rates with the kernels, and the residual
		// kernels with the dilations: the shorter list wins.
		derived("nup", "min(len(ur), len(uk))"), derived("nrk", "min(len(rk), len(rd))"),
	}
}

// hifiGan is a HiFi-GAN generator under pre ("vocoder.hifi_gan."),
// reading in channels: conv_pre, one transposed convolution per
// upsampling rate (uic/2^i → uic/2^(i+1), [in, out, kernel]), and the
// stack of residual blocks (len(rk) per upsampling stage, each
// len(dilations) pairs of convolutions at the stage's width), conv_post
// to one channel. Plain weights: the weight norm is applied at load.
func hifiGan(pre, in string) ([]T, []T, Stack) {
	// A kernel of 0 builds (an empty convolution): ZeroOK.
	global := cat(conv1d3(pre+"conv_pre", "uic", in, "7", "true"),
		[]T{{Name: pre + "upsampler.{e}.weight", Shape: []string{"uic/pow(2, e)", "uic/pow(2, e+1)", "at(uk, e)"}, Role: RoleLinear, Experts: "nup", PerCopy: true, ZeroOK: true},
			{Name: pre + "upsampler.{e}.bias", Shape: []string{"uic/pow(2, e+1)"}, Role: RoleBias, Experts: "nup", PerCopy: true}})
	ch, k := "uic/pow(2, l/nrk+1)", "at(rk, l%nrk)"
	n := "at(rd, l%nrk)"
	res := []T{{Name: "convs1.{e}.weight", Shape: []string{ch, ch, k}, Role: RoleLinear, Experts: n, ZeroOK: true},
		{Name: "convs1.{e}.bias", Shape: []string{ch}, Role: RoleBias, Experts: n},
		{Name: "convs2.{e}.weight", Shape: []string{ch, ch, k}, Role: RoleLinear, Experts: n, ZeroOK: true},
		{Name: "convs2.{e}.bias", Shape: []string{ch}, Role: RoleBias, Experts: n}}
	final := conv1d3(pre+"conv_post", "1", "uic/pow(2, nup)", "7", "true")
	return global, final, Stack{Name: "vocoder", Prefix: pre + "resblocks.{l}.", Layers: "nup*nrk", Tensors: res}
}

// conv1d3 is a 1-D convolution under name: weight [out, in, k], and a
// bias [out] where bias holds ("" none, as linear's).
func conv1d3(name, out, in, k, bias string) []T {
	if bias == "" {
		return []T{{Name: name + ".weight", Shape: []string{out, in, k}, Role: RoleLinear}}
	}
	return cat([]T{{Name: name + ".weight", Shape: []string{out, in, k}, Role: RoleLinear}}, vecIf(name+".bias", out, bias))
}

// variancePredictor is FastSpeech's duration/pitch/energy predictor
// under pre: two convolutions of kernel k (in → hid → hid), each with a
// layer norm, and a projection to one value.
func variancePredictor(pre, in, hid, k string) []T {
	return cat(conv1d3(pre+"conv1", hid, in, k, "true"), norm(pre+"ln1", hid, "true"),
		conv1d3(pre+"conv2", hid, hid, k, "true"), norm(pre+"ln2", hid, "true"), linear(pre+"proj", "1", hid, "true"))
}

// parakeetSubsampling is Parakeet's subsampling stack under sub: a
// convolution, then per halving a depthwise and a pointwise one,
// interleaved with activations (module indices 0, 2+3i, 3+3i), and a
// linear to hidden_size.
func parakeetSubsampling(sub string) []T {
	global := []T{{Name: sub + "layers.0.weight", Shape: []string{"psc", "1", "psk", "psk"}, Role: RoleLinear},
		{Name: sub + "layers.0.bias", Shape: []string{"psc"}, Role: RoleBias}}
	for i := 0; i < parakeetMaxSteps; i++ {
		cond := fmt.Sprintf("pns-1 > %d", i)
		dw, pw := fmt.Sprintf("%slayers.%d.", sub, 2+3*i), fmt.Sprintf("%slayers.%d.", sub, 3+3*i)
		global = append(global,
			T{Name: dw + "weight", Shape: []string{"psc", "1", "psk", "psk"}, Role: RoleLinear, If: cond},
			T{Name: dw + "bias", Shape: []string{"psc"}, Role: RoleBias, If: cond},
			T{Name: pw + "weight", Shape: []string{"psc", "psc", "1", "1"}, Role: RoleLinear, If: cond},
			T{Name: pw + "bias", Shape: []string{"psc"}, Role: RoleBias, If: cond})
	}
	return cat(global, linear(sub+"linear", "pH", "psc*(pmel/pow(pss, pns))", "true"))
}

// conv2dT is a biased 2-D convolution under name: weight [out, in, k, k].
func conv2dT(name, out, in, k string) []T {
	return []T{{Name: name + ".weight", Shape: []string{out, in, k, k}, Role: RoleLinear}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

// withSub is a family holding another registered model whole, its
// tensors under pre and its fields under cfg (Kyutai's speech-to-text
// model with its Mimi codec under codec_model.): the classes of with
// hold it — the family the sub-config's model_type (else mt) names,
// its symbols prefixed by sym — and the family's other classes are the
// family alone (KyutaiSpeechToTextModel). Without a spec for the
// sub-model, the classes holding it are not checked (exit 3).
type withSub struct {
	base              *Family
	cfg, pre, mt, sym string
	with              []string
	cache             sync.Map // sub-model's family → *Family
}

func (w *withSub) register() *Family {
	f := *w.base
	f.compose = w.compose
	return &f
}

func (w *withSub) compose(c *Config) (*Family, error) {
	arch := c.Architecture()
	if arch == "" {
		arch = w.base.causal()
	}
	if !slices.Contains(w.with, arch) {
		return w.base, nil
	}
	mt := subType(c, strings.TrimSuffix(w.cfg, "."))
	if mt == "" {
		mt = w.mt
	}
	sub := familyOf(mt)
	if sub == nil || sub.compose != nil {
		return nil, &NoSpecError{Arch: arch, ModelType: c.ModelType(),
			Reason: fmt.Sprintf("the model it holds, %smodel_type %q, has no spec", w.cfg, mt)}
	}
	if f, ok := w.cache.Load(sub); ok {
		return f.(*Family), nil
	}
	var pairs []string
	for _, d := range sub.Defs {
		pairs = append(pairs, d.Sym, w.sym+d.Sym)
	}
	rx := symRenamer(pairs...)
	names := [][2]string{{"", w.pre}}
	f := *w.base
	f.compose, f.Name = nil, w.base.Name+" + "+sub.Name
	f.Defs = slices.Clone(w.base.Defs)
	for _, d := range sub.Defs {
		d.Sym, d.Default, d.Desc = w.sym+d.Sym, rx(d.Default), sub.Name+": "+rx(d.Desc)
		if d.Null != "" && d.Null != "=" {
			d.Null = rx(d.Null)
		}
		if d.Divides != "" {
			d.Divides = w.sym + d.Divides
		}
		if d.Legend != "" {
			d.Legend = w.sym + d.Legend
		}
		if d.Field != "" {
			alts := strings.Split(d.Field, "|")
			for i := range alts {
				alts[i] = w.cfg + alts[i]
			}
			d.Field = strings.Join(alts, "|")
		}
		f.Defs = append(f.Defs, d)
	}
	f.Global = cat(w.base.Global, rerootTs(renameSyms(sub.Global, pairs...), names))
	f.Stacks = slices.Clone(w.base.Stacks)
	for _, s := range sub.Stacks {
		f.Stacks = append(f.Stacks, renamedStack(s, cmp.Or(s.Name, sub.Name), w.pre+s.Prefix, pairs...))
	}
	f.Final = cat(w.base.Final, rerootTs(renameSyms(sub.Final, pairs...), names))
	for _, v := range sub.Variants {
		var nv [][2]string
		for _, r := range v {
			nv = append(nv, [2]string{w.pre + r[0], w.pre + r[1]})
		}
		f.Variants = append(f.Variants, nv)
	}
	if err := f.compile(); err != nil {
		return nil, fmt.Errorf("spec: %s with %s: %w", w.base.Name, sub.Name, err)
	}
	g, _ := w.cache.LoadOrStore(sub, &f)
	return g.(*Family), nil
}
