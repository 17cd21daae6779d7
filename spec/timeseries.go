package spec

// Time-series models: PatchTST, PatchTSMixer, TimesFM 2.5 and the
// forecasting encoder-decoders (Informer, Autoformer, Time Series
// Transformer). Their heads share the distribution projection of
// transformers' time_series_utils (distProj) and the batch norms with
// running statistics of blocks_speech.go (batchNorm).

// tsLossDefs are the switches of a probabilistic head: loss ("mse": a
// plain linear) and distribution_output (student_t has three parameters,
// normal and negative_binomial two).
func tsLossDefs(loss string) []Def {
	return []Def{
		{Sym: "loss", Field: "loss", Type: Str, Default: loss, Null: "=", Desc: "training loss (mse: a point head)"},
		{Sym: "dist", Field: "distribution_output", Type: Str, Default: "'student_t'", Null: "=", Desc: "the distribution the head parameterizes"},
		derived("nargs", "dist == 'student_t' ? 3 : 2"),
	}
}

// distProj is a head of out outputs from in features: a linear where
// point holds, else a ParameterProjection (name.proj.0, .1 and, for
// Student's t, .2: one linear of out per distribution argument).
func distProj(name, out, in, point string) []T {
	return cat(when(point, linear(name, out, in, "true")),
		when("!("+point+")", linear(name+".proj.0", out, in, "true"), linear(name+".proj.1", out, in, "true")),
		when("!("+point+") && nargs == 3", linear(name+".proj.2", out, in, "true")))
}

// tsNorm is a PatchTST-style norm: a batch norm (under .batchnorm) or a
// layer norm, as norm_type says.
func tsNorm(name string) []T {
	return cat(when("ntype == 'batchnorm'", batchNorm(name+".batchnorm", "H")), when("ntype == 'layernorm'", norm(name, "H", "true")))
}

var _ = register(
	// PatchTST: patches of a univariate or multivariate series embedded
	// (per channel unless share_embedding), positional encodings (saved,
	// sincos too), post- or pre-norm layers with batch or layer norms and
	// an optional channel-attention norm; heads for pre-training,
	// prediction (per channel unless share_projection), regression and
	// classification.
	&Family{Name: "PatchTST", Class: "PatchTST", ModelTypes: []string{"patchtst"}, Causal: "-", SeqCls: "-",
		Defs: cat([]Def{
			{Sym: "H", Field: "d_model", Default: "128", Legend: "H", Desc: "model width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "3", Legend: "L", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_attention_heads", Default: "4", Desc: "attention heads", Show: true, Pos: true, Divides: "H"},
			inner("ffn_dim", "512"),
			{Sym: "ch", Field: "num_input_channels", Default: "1", Desc: "input channels", Pos: true, Max: MaxLayers},
			{Sym: "ctx", Field: "context_length", Default: "32", Desc: "context length", Pos: true},
			{Sym: "pl", Field: "patch_length", Default: "1", Desc: "patch length", Pos: true},
			{Sym: "ps", Field: "patch_stride", Default: "1", Desc: "patch stride", Pos: true},
			derived("np", "(max(ctx, pl) - pl) / ps + 1"),
			flag("shareEmb", "share_embedding", "true", "one input embedding for all channels"),
			flag("chAttn", "channel_attention", "false", "attention across channels (a second norm)"),
			{Sym: "ntype", Field: "norm_type", Type: Str, Default: "'batchnorm'", Desc: "norm kind"},
			flag("bias", "bias", "true", "the FFN's linears have biases"),
			flag("cls", "use_cls_token", "false", "a class token"),
			flag("shareProj", "share_projection", "true", "one prediction head for all channels"),
			{Sym: "pool", Field: "pooling_type", Type: Str, Default: "'mean'", Null: "''", Desc: "pooling of the prediction head"},
			{Sym: "pred", Field: "prediction_length", Default: "24", Desc: "forecast horizon", Pos: true},
			{Sym: "NT", Field: "num_targets", Default: "1", Desc: "regression or classification targets", Pos: true},
		}, tsLossDefs("'mse'")),
		BasePrefix: "model.",
		Global: cat(when("shareEmb", linear("model.encoder.embedder.input_embedding", "H", "pl", "true")),
			when("!shareEmb", []T{{Name: "model.encoder.embedder.input_embedding.{e}.weight", Shape: []string{"H", "pl"}, Role: RoleLinear, Experts: "ch"},
				{Name: "model.encoder.embedder.input_embedding.{e}.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "ch"}}),
			[]T{{Name: "model.encoder.positional_encoder.cls_token", Shape: []string{"1", "1", "1", "H"}, Role: RoleEmbedding, If: "cls"},
				{Name: "model.encoder.positional_encoder.position_enc", Shape: []string{"cls ? np+1 : np", "H"}, Role: RoleEmbedding}}),
		Stacks: []Stack{{Prefix: "model.encoder.layers.{l}.", Layers: "L", Tensors: cat(
			linear("self_attn.q_proj", "H", "H", "true"), linear("self_attn.k_proj", "H", "H", "true"),
			linear("self_attn.v_proj", "H", "H", "true"), linear("self_attn.out_proj", "H", "H", "true"),
			tsNorm("norm_sublayer1"), when("chAttn", tsNorm("norm_sublayer2")),
			linear("ff.0", "I", "H", "bias"), linear("ff.3", "H", "I", "bias"), tsNorm("norm_sublayer3"))}},
		Embed: "model.encoder.positional_encoder.position_enc",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForPretraining", Head: linear("head.linear", "pl", "H", "true")},
			{Suffix: "ForPrediction", Defs: []Def{derived("hd", "pool != '' || cls ? H : H*np")}, Head: cat(
				when("shareProj", distProj("head.projection", "pred", "hd", "loss == 'mse'")),
				when("!shareProj", perBlock("ch", distProj("head.projections.{e}", "pred", "hd", "loss == 'mse'"))))},
			{Suffix: "ForRegression", Head: distProj("head.projection", "NT", "ch*H", "loss == 'mse'")},
			{Suffix: "ForClassification", Head: linear("head.linear", "NT", "ch*H", "true")}},
	},
	// TimesFM 2.5 (5.x): patches of 2·patch_length (values and mask)
	// through a residual block, Gemma-style layers with q/k norms and a
	// learned per-dimension query scale, and point and quantile residual
	// heads (no biases) of horizon and output_quantile_len steps for each
	// quantile and the mean. 5.x saves the MLP's fc1/fc2 as ff0/ff1.
	&Family{Name: "TimesFM 2.5", Class: "TimesFm2_5", ModelTypes: []string{"timesfm2_5"}, Causal: "-", SeqCls: "-",
		Defs: cat(withoutDefs(sized(llamaDims("80", "H/heads", "16", "heads"), "H", "1280", "L", "20", "heads", "16", "I", "1280"), "V"), []Def{
			{Sym: "pl", Field: "patch_length", Default: "32", Desc: "patch length", Pos: true},
			{Sym: "hor", Field: "horizon_length", Default: "128", Desc: "forecast horizon", Pos: true},
			{Sym: "oql", Field: "output_quantile_len", Default: "1024", Desc: "quantile head steps", Pos: true},
			{Sym: "nq", Field: "quantiles", Type: Count, Default: "9", Desc: "quantiles (the mean is one more output)"},
			attnBiasFlag, flag("use_bias", "use_bias", "false", "the MLP has biases")}),
		BasePrefix: "model.",
		Global:     residualBlock("model.input_ff_layer.", "2*pl", "H", "H", "true"),
		Stacks: []Stack{{Prefix: "model.layers.{l}.", Layers: "L", Tensors: cat(
			norm("input_layernorm", "H", ""), attn("self_attn.", "attention_bias", "attention_bias", qkNorm("self_attn.", "d", "d")),
			vec("self_attn.scaling", "d"), norm("post_attention_layernorm", "H", ""), norm("pre_feedforward_layernorm", "H", ""),
			linear("mlp.ff0", "I", "H", "use_bias"), linear("mlp.ff1", "H", "I", "use_bias"), norm("post_feedforward_layernorm", "H", ""))}},
		Embed: "model.input_ff_layer.input_layer.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ModelForPrediction", Head: cat(residualBlock("output_projection_point.", "H", "H", "hor*(nq+1)", ""),
				residualBlock("output_projection_quantiles.", "H", "H", "oql*(nq+1)", ""))}},
	},
)

// residualBlock is TimesFM's residual block under pre: input_layer
// (in → hidden), output_layer (hidden → out) and residual_layer (in →
// out), biased where bias holds.
func residualBlock(pre, in, hidden, out, bias string) []T {
	return cat(linear(pre+"input_layer", hidden, in, bias), linear(pre+"output_layer", out, hidden, bias), linear(pre+"residual_layer", out, in, bias))
}
