package spec

// wav2vec2 and HuBERT: a convolutional feature extractor over the raw
// waveform (conv_dim/conv_kernel per layer, a group norm on the first
// layer or a layer norm on each), a projection to hidden_size, a
// weight-normed positional convolution, and BERT-like layers; the CTC
// head, the utterance classifier and the base model.

// w2vDefs are a Wav2Vec2Config-like config's fields.
func w2vDefs(projLN, bn string) []Def {
	return cat(trunk("32", "768", "12", "encoder layers"), []Def{
		encHeads("num_attention_heads", "12"), inner("intermediate_size", "3072"),
		{Sym: "cd", Field: "conv_dim", Type: List, Default: "list(512, 512, 512, 512, 512, 512, 512)", Desc: "feature extractor channels per layer"},
		{Sym: "ck", Field: "conv_kernel", Type: List, Default: "list(10, 3, 3, 3, 3, 2, 2)", Desc: "feature extractor kernels per layer"},
		{Sym: "nconv", Field: "num_feat_extract_layers", Default: "len(cd)", Desc: "feature extractor layers", Pos: true},
		derived("C0", "at(cd, len(cd)-1)"),
		flag("conv_bias", "conv_bias", "false", "the feature extractor's convolutions have biases"),
		{Sym: "fen", Field: "feat_extract_norm", Type: Str, Default: "'group'", Desc: "group norm on the first conv layer, or layer norm on each"},
		{Sym: "pk", Field: "num_conv_pos_embeddings", Default: "128", Desc: "positional convolution kernel", Pos: true},
		{Sym: "pg", Field: "num_conv_pos_embedding_groups", Default: "16", Desc: "its groups", Pos: true},
		{Sym: "mtp", Field: "mask_time_prob", Type: Milli, Default: "50", Desc: "time-masking probability (×1000)"},
		{Sym: "mfp", Field: "mask_feature_prob", Type: Milli, Default: "0", Desc: "feature-masking probability (×1000)"},
		projLNDef(projLN), posBN(bn),
		flag("adapter", "add_adapter", "false", "an adapter after the encoder"),
		{Sym: "OH", Field: "output_hidden_size", Default: "H", Null: "H", Desc: "the adapter's width", Pos: true},
		{Sym: "nad", Field: "num_adapter_layers", Default: "3", Desc: "adapter layers"},
		{Sym: "ak", Field: "adapter_kernel_size", Default: "3", Desc: "adapter kernel", Pos: true},
		{Sym: "cps", Field: "classifier_proj_size", Default: "256", Desc: "the utterance classifier's projection", Pos: true},
		flag("wls", "use_weighted_layer_sum", "false", "the classifier mixes every layer's output"),
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

// w2vTensors are the base model's tensors under pre.
func w2vTensors(pre string) ([]T, Stack, []T) {
	global := cat(
		[]T{{Name: pre + "feature_extractor.conv_layers.{e}.conv.weight", Shape: []string{"at(cd, e)", "e == 0 ? 1 : at(cd, e-1)", "at(ck, e)"}, Role: RoleLinear, Experts: "nconv", PerCopy: true},
			{Name: pre + "feature_extractor.conv_layers.{e}.conv.bias", Shape: []string{"at(cd, e)"}, Role: RoleBias, Experts: "nconv", PerCopy: true, If: "conv_bias"},
			{Name: pre + "feature_extractor.conv_layers.{e}.layer_norm.weight", Shape: []string{"at(cd, e)"}, Role: RoleNorm, Experts: "nconv", PerCopy: true, If: "fen == 'layer' || e == 0"},
			{Name: pre + "feature_extractor.conv_layers.{e}.layer_norm.bias", Shape: []string{"at(cd, e)"}, Role: RoleBias, Experts: "nconv", PerCopy: true, If: "fen == 'layer' || e == 0"}},
		when("projLN", norm(pre+"feature_projection.layer_norm", "C0", "true")),
		linear(pre+"feature_projection.projection", "H", "C0", "true"),
		[]T{{Name: pre + "masked_spec_embed", Shape: []string{"H"}, Role: RoleNorm, If: "mtp > 0 || mfp > 0"},
			{Name: pre + "encoder.pos_conv_embed.conv.parametrizations.weight.original0", Shape: []string{"1", "1", "pk"}, Role: RoleNorm, If: "!posbn"},
			{Name: pre + "encoder.pos_conv_embed.conv.parametrizations.weight.original1", Shape: []string{"H", "H/pg", "pk"}, Role: RoleLinear, If: "!posbn"},
			{Name: pre + "encoder.pos_conv_embed.conv.weight", Shape: []string{"H", "H/pg", "pk"}, Role: RoleLinear, If: "posbn"},
			{Name: pre + "encoder.pos_conv_embed.conv.bias", Shape: []string{"H"}, Role: RoleBias}},
		when("posbn", norm(pre+"encoder.pos_conv_embed.batch_norm", "H", "true"),
			[]T{{Name: pre + "encoder.pos_conv_embed.batch_norm.running_mean", Shape: []string{"H"}, Role: RoleNorm, AnyDType: true},
				{Name: pre + "encoder.pos_conv_embed.batch_norm.running_var", Shape: []string{"H"}, Role: RoleNorm, AnyDType: true},
				{Name: pre + "encoder.pos_conv_embed.batch_norm.num_batches_tracked", Shape: []string{}, Role: RoleNorm, AnyDType: true}}),
		norm(pre+"encoder.layer_norm", "H", "true"))
	stack := Stack{Prefix: pre + "encoder.layers.{l}.", Layers: "L", Tensors: cat(
		linear("attention.q_proj", "H", "H", "true"), linear("attention.k_proj", "H", "H", "true"),
		linear("attention.v_proj", "H", "H", "true"), linear("attention.out_proj", "H", "H", "true"),
		norm("layer_norm", "H", "true"),
		linear("feed_forward.intermediate_dense", "I", "H", "true"), linear("feed_forward.output_dense", "H", "I", "true"),
		norm("final_layer_norm", "H", "true"))}
	// The adapter (add_adapter): a projection to output_hidden_size where
	// it differs, then strided GLU convolutions.
	final := when("adapter", when("OH != H", linear(pre+"adapter.proj", "OH", "H", "true"), norm(pre+"adapter.proj_layer_norm", "OH", "true")),
		[]T{{Name: pre + "adapter.layers.{e}.conv.weight", Shape: []string{"2*OH", "OH", "ak"}, Role: RoleLinear, Experts: "nad"},
			{Name: pre + "adapter.layers.{e}.conv.bias", Shape: []string{"2*OH"}, Role: RoleBias, Experts: "nad"}})
	return global, stack, final
}

// weightNorm4x is how checkpoints written before torch's parametrizations
// name the positional convolution's weight norm (weight_g, weight_v).
func weightNorm4x(pre string) [][][2]string {
	p := pre + "encoder.pos_conv_embed.conv."
	return [][][2]string{{{p + "parametrizations.weight.original0", p + "weight_g"}, {p + "parametrizations.weight.original1", p + "weight_v"}}}
}

// speechTasks are the base model, the CTC head (vocab_size over the
// output width) and the utterance classifier.
var speechTasks = []Task{
	{Suffix: TaskBase, Prefix: "-"},
	{Suffix: "ForCTC", Head: linear("lm_head", "V", "adapter ? OH : H", "true")},
	{Suffix: HeadSeqCls, Labels: true, Head: cat(
		[]T{{Name: "layer_weights", Shape: []string{"L+1"}, Role: RoleNorm, If: "wls"}},
		linear("projector", "cps", "H", "true"), linear("classifier", "C", "cps", "true"))},
}

func speechFamily(name, class, mt, base, projLN, bn string) *Family {
	g, s, f := w2vTensors(base)
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: w2vDefs(projLN, bn), Global: g, Stacks: []Stack{s}, Final: f,
		Embed: base + "feature_projection.projection.weight", Head: "-",
		Variants: weightNorm4x(base), Tasks: speechTasks}
}

var _ = register(
	speechFamily("wav2vec2", "Wav2Vec2", "wav2vec2", "wav2vec2.", "", ""),
	speechFamily("HuBERT", "Hubert", "hubert", "hubert.", "feat_proj_layer_norm", "conv_pos_batch_norm"),
)
