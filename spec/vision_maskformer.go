package spec

// The MaskFormer lineage of universal segmentation models (Mask2Former,
// OneFormer): a backbone's feature maps (withFeatureBackbone), a pixel
// decoder of multi-scale deformable attention with an FPN, and a
// transformer decoder over learned queries.

// maskPixelDefs are the fields of a Mask2Former-style pixel decoder:
// F (its width, field width), MD (the mask features', field mask), EF,
// EL, heads, the feature strides fs (field strides) and common_stride
// cs; and the FPN's adapter count as transformers builds it:
// int(log2(min of the last three strides) - log2(cs)) stages, a slice
// of the feature maps (negative: all but that many). Where the strides'
// ratio is a power of two of numbers that are not, the float
// difference may fall just short of the integer and int() truncate it
// (log2(28) - log2(7) is 1.999…): nA counts the larger, nA0 the
// smaller, and the adapters between are optional.
func maskPixelDefs(width, mask, strides string) []Def {
	fs := func(k string) string { return "at(fs, len(fs)-" + k + ")" }
	cnt := func(k string) string { return "(" + k + " >= 0 ? min(" + k + ", nFm) : max(nFm + " + k + ", 0))" }
	return []Def{
		{Sym: "F", Field: width, Default: "256", Legend: "F", Desc: "the pixel decoder's width", Show: true, Pos: true},
		{Sym: "MD", Field: mask, Default: "256", Desc: "the mask features' width", Pos: true},
		{Sym: "EF", Field: "encoder_feedforward_dim", Default: "1024", Desc: "the pixel decoder's FFN width", Pos: true},
		{Sym: "EL", Field: "encoder_layers", Default: "6", Legend: "EL", Desc: "pixel decoder layers", Show: true, Max: MaxLayers},
		{Sym: "heads", Field: "num_attention_heads", Default: "8", Desc: "attention heads", Pos: true},
		{Sym: "fs", Field: strides, Type: List, Default: "list(4, 8, 16, 32)", Null: "=", Desc: "the backbone's feature strides"},
		{Sym: "cs", Field: "common_stride", Default: "4", Desc: "the mask features' stride", Pos: true},
		derived("nFm", "len(bOut)"),
		derived("ms", "len(fs) >= 3 ? min(min("+fs("3")+", "+fs("2")+"), "+fs("1")+") : len(fs) == 2 ? min(at(fs, 0), at(fs, 1)) : at(fs, 0)"),
		derived("fk", "ms >= cs ? log2(ms/cs) : -log2(cs/ms)"),
		derived("famb", "fk != 0 && pow(2, log2(ms)) != ms && (ms >= cs ? ms % cs == 0 && pow(2, fk)*cs == ms : cs % ms == 0 && pow(2, -fk)*ms == cs)"),
		derived("fk2", "famb ? (fk > 0 ? fk - 1 : fk + 1) : fk"),
		derived("nA", "max("+cnt("fk")+", "+cnt("fk2")+")"),
		derived("nA0", "min("+cnt("fk")+", "+cnt("fk2")+")"),
	}
}

// maskPixelDecoder is the pixel decoder under pre (maskPixelDefs'
// symbols; bCh and bOut the backbone's): a level embedding, a 1×1
// convolution and GroupNorm from each of the last three feature maps
// (the last first), EL layers of deformable attention over three levels
// of four points, the mask projection, and the FPN's adapter_K and
// layer_K (bias-free convolutions and GroupNorms) on the first nA maps.
func maskPixelDecoder(pre string) ([]T, Stack) {
	ch := func(i string) string { return "at(bCh, at(bOut, " + i + "))" }
	adapters := copies("nA", convNB(pre+"adapter_{e}.0", "F", ch("e-1"), "1", "1"), norm(pre+"adapter_{e}.1", "F", "true"),
		convNB(pre+"layer_{e}.0", "F", "F", "3", "3"), norm(pre+"layer_{e}.1", "F", "true"))
	for i := range adapters {
		adapters[i].From, adapters[i].Optional = "1", "e > nA0"
	}
	ts := cat([]T{{Name: pre + "level_embed", Shape: []string{"3", "F"}, Role: RoleNorm}},
		copies("min(3, nFm)", conv(pre+"input_projections.{e}.0", "F", ch("nFm-1-e"), "1", "1"), norm(pre+"input_projections.{e}.1", "F", "true")),
		conv(pre+"mask_projection", "MD", "F", "1", "1"), adapters)
	// transformers 4.x's weight init replaces the sampling offsets'
	// bias by a float32 parameter, which its checkpoints keep.
	da := deformAttn("self_attn.", "F", "heads", "3", "4", "", false)
	for i := range da {
		da[i].AnyDType = da[i].Name == "self_attn.sampling_offsets.bias"
	}
	layers := Stack{Name: "pixel decoder", Prefix: pre + "encoder.layers.{l}.", Layers: "EL", Tensors: cat(
		da, norm("self_attn_layer_norm", "F", "true"),
		linear("fc1", "EF", "F", "true"), linear("fc2", "F", "EF", "true"), norm("final_layer_norm", "F", "true"))}
	return ts, layers
}

// torchMHA is torch's nn.MultiheadAttention under pre on width d: the
// packed in_proj [3·d, d] and the out_proj, all biased.
func torchMHA(pre, d string) []T {
	return cat([]T{{Name: pre + "in_proj_weight", Shape: []string{"3*" + d, d}, Role: RoleLinear},
		{Name: pre + "in_proj_bias", Shape: []string{"3*" + d}, Role: RoleBias}},
		linear(pre+"out_proj", d, d, "true"))
}

// maskDecoderDefs are the config fields of Mask2Former's transformer
// decoder, which OneFormer's shares: its width, layers (one fewer are
// built), FFN width and queries (q by default).
func maskDecoderDefs(q string) []Def {
	return []Def{
		{Sym: "HD", Field: "hidden_dim", Default: "256", Legend: "HD", Desc: "the transformer decoder's width", Show: true, Pos: true},
		{Sym: "DL", Field: "decoder_layers", Default: "10", Legend: "DL", Desc: "decoder layers (one fewer are built)", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "FF", Field: "dim_feedforward", Default: "2048", Desc: "the decoder's FFN width", Pos: true},
		{Sym: "Q", Field: "num_queries", Default: q, Desc: "queries", Pos: true},
	}
}

// mask2FormerFamily is Mask2Former's base model: the backbone
// (backbone_config, its Backbone class) under
// pixel_level_module.encoder., the pixel decoder, and the transformer
// module: query embeddings and features, a level embedding, and
// decoder_layers-1 masked-attention layers (self-attention, torch
// cross-attention, an FFN) with the final LayerNorm and the 3-layer
// mask MLP. Its input projections are a plain list, never saved.
// Mask2FormerForUniversalSegmentation is not modelled: transformers
// cannot build it without scipy (its loss), so it has no oracle truth.
func mask2FormerFamily() *Family {
	pix, pixLayers := maskPixelDecoder("model.pixel_level_module.decoder.")
	const tm = "model.transformer_module."
	return withFeatureBackbone(&Family{Name: "Mask2Former", Class: "Mask2Former", ModelTypes: []string{"mask2former"}, Causal: "-", SeqCls: "-",
		BasePrefix: "model.",
		Defs:       cat(maskPixelDefs("feature_size", "mask_feature_size", "feature_strides"), maskDecoderDefs("100")),
		Stacks: []Stack{pixLayers, {Name: "decoder", Prefix: tm + "decoder.layers.{l}.", Layers: "DL-1", Tensors: cat(
			mhaOut("self_attn.", "HD"), norm("self_attn_layer_norm", "HD", "true"),
			torchMHA("cross_attn.", "HD"), norm("cross_attn_layer_norm", "HD", "true"),
			linear("fc1", "FF", "HD", "true"), linear("fc2", "HD", "FF", "true"), norm("final_layer_norm", "HD", "true"))}},
		Final: cat(pix,
			[]T{{Name: tm + "queries_embedder.weight", Shape: []string{"Q", "HD"}, Role: RoleEmbedding},
				{Name: tm + "queries_features.weight", Shape: []string{"Q", "HD"}, Role: RoleEmbedding},
				{Name: tm + "level_embed.weight", Shape: []string{"3", "HD"}, Role: RoleEmbedding}},
			norm(tm+"decoder.layernorm", "HD", "true"),
			linear(tm+"decoder.mask_predictor.mask_embedder.0.0", "HD", "HD", "true"),
			linear(tm+"decoder.mask_predictor.mask_embedder.1.0", "HD", "HD", "true"),
			linear(tm+"decoder.mask_predictor.mask_embedder.2.0", "MD", "HD", "true")),
		Embed: tm + "queries_embedder.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"}},
	}, "backbone_config.", "model.pixel_level_module.encoder.")
}

var _ = register(mask2FormerFamily)

// predictionMLP is the MLP head of OneFormer (PredictionBlocks in a
// Sequential) under pre: layers.K.0, n (at least 1) biased layers from in
// through hid to out.
func predictionMLP(pre, in, hid, out, n string) []T {
	return copies("max("+n+", 1)", linear(pre+"layers.{e}.0", "e == max("+n+", 1)-1 ? "+out+" : "+hid, "e == 0 ? "+in+" : "+hid, "true"))
}

// oneFormerFamily is OneFormer's base model: the backbone and pixel
// decoder of Mask2Former (conv_dim, mask_dim, strides), the transformer
// module (query embeddings, a level embedding; the decoder's query
// transformer of query_dec_layers torch decoder layers, the input
// projection, decoder_layers-1 layers of torch cross-attention,
// self-attention and an FFN, the class and mask heads), the task MLP,
// and where is_training the text mapper (a CLIP-like text encoder of
// width/64 heads, its projector, the prompt context).
// OneFormerForUniversalSegmentation is not modelled (its loss needs
// scipy: no oracle truth).
func oneFormerFamily() *Family {
	pix, pixLayers := maskPixelDecoder("model.pixel_level_module.decoder.")
	const tm, dec = "model.transformer_module.", "model.transformer_module.decoder."
	const te = "model.text_mapper.text_encoder."
	return withFeatureBackbone(&Family{Name: "OneFormer", Class: "OneFormer", ModelTypes: []string{"oneformer"}, Causal: "-", SeqCls: "-",
		BasePrefix: "model.",
		Defs: cat(maskPixelDefs("conv_dim", "mask_dim", "strides"), maskDecoderDefs("150"), []Def{
			{Sym: "QL", Field: "query_dec_layers", Default: "2", Desc: "the query transformer's layers", Max: MaxLayers},
			{Sym: "TS", Field: "task_seq_len", Default: "77", Desc: "the task tokens' length", Pos: true},
			flag("train", "is_training", "false", "the text mapper is built"),
			{Sym: "TW", Field: "text_encoder_width", Default: "256", Desc: "the text encoder's width", Pos: true},
			{Sym: "TL", Field: "text_encoder_num_layers", Default: "6", Desc: "the text encoder's layers", Max: MaxLayers},
			{Sym: "TV", Field: "text_encoder_vocab_size", Default: "49408", Desc: "the text encoder's vocabulary"},
			{Sym: "TC", Field: "text_encoder_context_length", Default: "77", Desc: "the text encoder's positions"},
			{Sym: "TP", Field: "text_encoder_proj_layers", Default: "2", Desc: "the text projector's layers"},
			{Sym: "NC", Field: "text_encoder_n_ctx", Default: "16", Desc: "prompt context tokens"},
		}),
		Stacks: []Stack{pixLayers,
			{Name: "query transformer", Prefix: dec + "query_transformer.decoder.layers.{l}.", Layers: "QL", Tensors: cat(
				torchMHA("self_attn.", "HD"), torchMHA("multihead_attn.", "HD"),
				linear("linear1", "FF", "HD", "true"), linear("linear2", "HD", "FF", "true"),
				norm("norm1", "HD", "true"), norm("norm2", "HD", "true"), norm("norm3", "HD", "true"))},
			{Name: "decoder", Prefix: dec + "layers.{l}.", Layers: "DL-1", Tensors: cat(
				torchMHA("cross_attn.multihead_attn.", "HD"), norm("cross_attn.norm", "HD", "true"),
				mhaOut("self_attn.self_attn.", "HD"), norm("self_attn.norm", "HD", "true"),
				linear("ffn.linear1", "FF", "HD", "true"), linear("ffn.linear2", "HD", "FF", "true"), norm("ffn.norm", "HD", "true"))},
			{Name: "text", Prefix: te + "transformer.layers.{l}.", Layers: "train ? TL : 0", Tensors: cat(
				torchMHA("self_attn.", "TW"), norm("layer_norm1", "TW", "true"),
				linear("mlp.fc1", "4*TW", "TW", "true"), linear("mlp.fc2", "TW", "4*TW", "true"), norm("layer_norm2", "TW", "true"))},
		},
		Final: cat(pix,
			[]T{{Name: tm + "queries_embedder.weight", Shape: []string{"Q", "HD"}, Role: RoleEmbedding},
				{Name: tm + "level_embed.weight", Shape: []string{"3", "HD"}, Role: RoleEmbedding}},
			norm(dec+"query_transformer.decoder.norm", "HD", "true"), norm(dec+"decoder_norm", "HD", "true"),
			conv(dec+"query_input_projection", "HD", "F", "1", "1"),
			linear(dec+"class_embed", "C+1", "HD", "true"),
			predictionMLP(dec+"mask_embed.", "HD", "HD", "MD", "3"),
			predictionMLP("model.task_encoder.task_mlp.", "TS", "HD", "HD", "2"),
			when("train",
				[]T{{Name: te + "positional_embedding", Shape: []string{"TC", "TW"}, Role: RoleNorm},
					{Name: te + "token_embedding.weight", Shape: []string{"TV", "TW"}, Role: RoleEmbedding}},
				norm(te+"ln_final", "TW", "true"),
				predictionMLP("model.text_mapper.text_projector.", "TW", "HD", "HD", "TP"),
				[]T{{Name: "model.text_mapper.prompt_ctx.weight", Shape: []string{"NC", "TW"}, Role: RoleEmbedding, If: "NC > 0"}})),
		Embed: tm + "queries_embedder.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-", Labels: true}},
	}, "backbone_config.", "model.pixel_level_module.encoder.")
}

var _ = register(oneFormerFamily)

// maskFormerFamily is MaskFormer's base model: the backbone
// (backbone_config: MaskFormer's Swin or a ResNet, their Backbone
// classes; a plain Swin config, which transformers turns into
// MaskFormer's with four stages forced, is not modelled) under
// pixel_level_module.encoder.; the pixel decoder, an FPN of
// fpn_feature_size FS (a stem on the last feature map, a lateral
// projection and a block per other map, the last first: bias-free
// convolutions and GroupNorms) and the mask projection; the
// transformer module: query embeddings, an input projection where the
// last map's width is not the decoder's, and DETR's decoder
// (decoder_config: d_model, decoder_layers, decoder_ffn_dim,
// num_queries). decoder_config's own backbone is never built: both
// writers save the same tensors whatever it names (a timm ResNet-50 in
// the published configs, which 5.x resolves on the Hub when it loads
// them). MaskFormerForInstanceSegmentation is not modelled (its loss
// needs scipy: no oracle truth).
func maskFormerFamily() *Family {
	const pix, tm = "model.pixel_level_module.decoder.", "model.transformer_module."
	ch := func(i string) string { return "at(bCh, at(bOut, " + i + "))" }
	last := ch("len(bOut)-1")
	dc := "decoder_config."
	return onlyBackbones(withFeatureBackbone(&Family{Name: "MaskFormer", Class: "MaskFormer", ModelTypes: []string{"maskformer"}, Causal: "-", SeqCls: "-",
		BasePrefix: "model.",
		Defs: []Def{
			{Sym: "FS", Field: "fpn_feature_size", Default: "256", Legend: "FS", Desc: "the FPN's width", Show: true, Pos: true},
			{Sym: "MF", Field: "mask_feature_size", Default: "256", Desc: "the mask features' width", Pos: true},
			{Sym: "D", Field: dc + "d_model", Default: "256", Legend: "D", Desc: "the DETR decoder's width", Show: true, Pos: true},
			{Sym: "DL", Field: dc + "decoder_layers", Default: "6", Legend: "DL", Desc: "DETR decoder layers", Show: true, Max: MaxLayers},
			{Sym: "DF", Field: dc + "decoder_ffn_dim", Default: "2048", Desc: "the DETR decoder's FFN width", Pos: true},
			{Sym: "Q", Field: dc + "num_queries", Default: "100", Desc: "queries", Pos: true},
		},
		Stacks: []Stack{{Name: "decoder", Prefix: tm + "decoder.layers.{l}.", Layers: "DL", Tensors: cat(
			mhaOut("self_attn.", "D"), norm("self_attn_layer_norm", "D", "true"),
			mhaOut("encoder_attn.", "D"), norm("encoder_attn_layer_norm", "D", "true"),
			linear("fc1", "DF", "D", "true"), linear("fc2", "D", "DF", "true"), norm("final_layer_norm", "D", "true"))}},
		Final: cat(
			convNB(pix+"fpn.stem.0", "FS", last, "3", "3"), norm(pix+"fpn.stem.1", "FS", "true"),
			copies("len(bOut)-1", convNB(pix+"fpn.layers.{e}.proj.0", "FS", ch("len(bOut)-2-e"), "1", "1"), norm(pix+"fpn.layers.{e}.proj.1", "FS", "true"),
				convNB(pix+"fpn.layers.{e}.block.0", "FS", "FS", "3", "3"), norm(pix+"fpn.layers.{e}.block.1", "FS", "true")),
			conv(pix+"mask_projection", "MF", "FS", "3", "3"),
			[]T{{Name: tm + "queries_embedder.weight", Shape: []string{"Q", "D"}, Role: RoleEmbedding}},
			when(last+" != D", conv(tm+"input_projection", "D", last, "1", "1")),
			norm(tm+"decoder.layernorm", "D", "true")),
		Embed: tm + "queries_embedder.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"}},
	}, "backbone_config.", "model.pixel_level_module.encoder."), "backbone_config.", "maskformer-swin", "resnet")
}

var _ = register(maskFormerFamily)
