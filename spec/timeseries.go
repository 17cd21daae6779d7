package spec

import "strings"

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
	func() *Family {
		return &Family{Name: "PatchTST", Class: "PatchTST", ModelTypes: []string{"patchtst"}, Causal: "-", SeqCls: "-",
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
		}
	},
	// TimesFM 2.5 (5.x): patches of 2·patch_length (values and mask)
	// through a residual block, Gemma-style layers with q/k norms and a
	// learned per-dimension query scale, and point and quantile residual
	// heads (no biases) of horizon and output_quantile_len steps for each
	// quantile and the mean. 5.x saves the MLP's fc1/fc2 as ff0/ff1.
	func() *Family {
		return &Family{Name: "TimesFM 2.5", Class: "TimesFm2_5", ModelTypes: []string{"timesfm2_5"}, Causal: "-", SeqCls: "-",
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
		}
	},
)

// residualBlock is TimesFM's residual block under pre: input_layer
// (in → hidden), output_layer (hidden → out) and residual_layer (in →
// out), biased where bias holds.
func residualBlock(pre, in, hidden, out, bias string) []T {
	return cat(linear(pre+"input_layer", hidden, in, bias), linear(pre+"output_layer", out, hidden, bias), linear(pre+"residual_layer", out, in, bias))
}

// tsDefs are the fields of the forecasting encoder-decoders (Time Series
// Transformer, Informer, Autoformer): widths and depths of both stacks,
// the context and prediction lengths (the sinusoidal tables' rows), and
// the value embedding's input width feature_size — the config's
// property (lags × input size, the static categorical embeddings, the
// real features, two scale features per input), read from config.json
// where save_pretrained wrote it.
func tsDefs() []Def {
	return []Def{
		{Sym: "H", Field: "d_model", Default: "64", Legend: "H", Desc: "model width", Show: true, Pos: true},
		{Sym: "eL", Field: "encoder_layers", Default: "2", Legend: "eL", Desc: "encoder layers", Show: true, Max: MaxLayers},
		{Sym: "dL", Field: "decoder_layers", Default: "2", Legend: "dL", Desc: "decoder layers", Show: true, Max: MaxLayers},
		field("eI", "encoder_ffn_dim", "32", "encoder FFN width"), field("dI", "decoder_ffn_dim", "32", "decoder FFN width"),
		{Sym: "pred", Field: "prediction_length", Desc: "forecast horizon", Pos: true},
		{Sym: "ctx", Field: "context_length", Default: "pred", Null: "pred", Desc: "context length"},
		field("insz", "input_size", "1", "input variates"),
		listOf("lags", "lags_sequence", "list(1, 2, 3, 4, 5, 6, 7)", "lags"),
		field("nscf", "num_static_categorical_features", "0", "static categorical features"),
		list("card", "cardinality", "their cardinalities"),
		list("edf", "embedding_dimension", "their embedding widths"),
		derived("edsum", "nscf > 0 ? (len(edf) > 0 ? sum(edf) : sum(ceilmul(card, 500), 50)) : 0"),
		field("ndrf", "num_dynamic_real_features", "0", "dynamic real features"),
		field("ntf", "num_time_features", "0", "time features"),
		field("nsrf", "num_static_real_features", "0", "static real features"),
		{Sym: "fs", Field: "feature_size", Default: "insz*len(lags) + edsum + ndrf + ntf + nsrf + 2*insz", Desc: "the value embedding's input width"},
	}
}

// tsEncDec is a forecasting encoder-decoder's base model: the static
// categorical embedder, then for the encoder and the decoder a value
// projection (no bias), the sinusoidal positions (saved), an embedding
// layer norm and BART layers; final is the layers' final norm's name
// (Autoformer's wraps a layer norm), extraEnc/extraDec more tensors per
// layer, extra more tensors of the model.
func tsEncDec(final string, extraEnc, extraDec []T, extra []T) ([]T, []Stack) {
	global := []T{{Name: "embedder.embedders.{e}.weight", Shape: []string{"at(card, e)", "len(edf) > 0 ? at(edf, e) : min(50, (at(card, e)+1)/2)"},
		Role: RoleEmbedding, Experts: "nscf", PerCopy: true}}
	for _, p := range []string{"encoder.", "decoder."} {
		global = cat(global, linear(p+"value_embedding.value_projection", "H", "fs", ""),
			[]T{{Name: p + "embed_positions.weight", Shape: []string{"ctx+pred", "H"}, Role: RoleEmbedding}}, norm(p+"layernorm_embedding", "H", "true"))
	}
	layer := func(cross bool, I string) []T {
		ts := renameSyms(s2sLayer(cross, "true", "true", "true"), "F", I)
		for i := range ts {
			if strings.HasPrefix(ts[i].Name, "final_layer_norm.") {
				ts[i].Name = final + strings.TrimPrefix(ts[i].Name, "final_layer_norm")
			}
		}
		return ts
	}
	return cat(global, extra), []Stack{
		{Name: "encoder", Prefix: "encoder.layers.{l}.", Layers: "eL", Tensors: cat(layer(false, "eI"), extraEnc)},
		{Name: "decoder", Prefix: "decoder.layers.{l}.", Layers: "dL", Tensors: cat(layer(true, "dI"), extraDec)}}
}

// tsFamily is a forecasting encoder-decoder's family (its base model).
func tsFamily(name, class, mt string, defs []Def, global []T, stacks []Stack) *Family {
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: cat(tsDefs(), defs), Global: global, Stacks: stacks, Tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}}}
}

var _ = register(
	// Time Series Transformer: the plain encoder-decoder.
	func() *Family {
		return func() *Family {
			g, st := tsEncDec("final_layer_norm", nil, nil, nil)
			return tsFamily("Time Series Transformer", "TimeSeriesTransformer", "time_series_transformer", nil, g, st)
		}()
	},
	// Informer: with distil, a distilling convolution (biased, batch
	// norm) after every encoder layer but the last.
	func() *Family {
		return func() *Family {
			g, st := tsEncDec("final_layer_norm", nil, nil,
				when("distil", []T{{Name: "encoder.conv_layers.{e}.downConv.weight", Shape: []string{"H", "H", "3"}, Role: RoleLinear, Experts: "eL-1"},
					{Name: "encoder.conv_layers.{e}.downConv.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "eL-1"},
					{Name: "encoder.conv_layers.{e}.norm.weight", Shape: []string{"H"}, Role: RoleNorm, Experts: "eL-1"},
					{Name: "encoder.conv_layers.{e}.norm.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "eL-1"},
					{Name: "encoder.conv_layers.{e}.norm.running_mean", Shape: []string{"H"}, Role: RoleNorm, Experts: "eL-1", AnyDType: true},
					{Name: "encoder.conv_layers.{e}.norm.running_var", Shape: []string{"H"}, Role: RoleNorm, Experts: "eL-1", AnyDType: true},
					{Name: "encoder.conv_layers.{e}.norm.num_batches_tracked", Shape: []string{}, Role: RoleNorm, Experts: "eL-1", AnyDType: true}}))
			return tsFamily("Informer", "Informer", "informer", []Def{flag("distil", "distil", "true", "distilling convolutions between encoder layers")}, g, st)
		}()
	},
	// Autoformer: layer norms wrapped (final_layer_norm.layernorm), a
	// trend projection per decoder layer and the decoder's seasonality
	// projection back to feature_size.
	func() *Family {
		return func() *Family {
			g, st := tsEncDec("final_layer_norm.layernorm", nil, []T{{Name: "trend_projection.weight", Shape: []string{"fs", "H", "3"}, Role: RoleLinear}},
				linear("decoder.seasonality_projection", "fs", "H", "true"))
			return tsFamily("Autoformer", "Autoformer", "autoformer", nil, g, st)
		}()
	},
)

// tsmixNorm is PatchTSMixer's norm layer under pre+"norm": a batch norm
// (norm.batchnorm) where norm_mlp names one, else a layer norm.
func tsmixNorm(pre string) []T {
	return cat(when("bn", batchNorm(pre+"norm.batchnorm", "H")), when("!bn", norm(pre+"norm", "H", "true")))
}

// tsmixMixer is one of PatchTSMixer's mixers under pre, over width w:
// its norm, the MLP (w → w·expansion_factor → w) and the gate where
// gated_attn.
func tsmixMixer(pre, w string) []T {
	return cat(tsmixNorm(pre+"norm."), linear(pre+"mlp.fc1", w+"*ef", w, "true"), linear(pre+"mlp.fc2", w, w+"*ef", "true"),
		when("gated", linear(pre+"gating_block.attn_layer", w, w, "true")))
}

var _ = register(
	// PatchTSMixer: patches embedded (patcher), optional positional
	// encodings, layers of patch, feature (and, in mix_channel mode,
	// channel) mixers with optional gates and a patch self-attention;
	// regression and classification heads over the flattened or
	// aggregated features, with the scale statistics injected where the
	// series are scaled.
	func() *Family {
		return &Family{Name: "PatchTSMixer", Class: "PatchTSMixer", ModelTypes: []string{"patchtsmixer"}, Causal: "-", SeqCls: "-",
			Defs: cat([]Def{
				{Sym: "H", Field: "d_model", Default: "8", Legend: "H", Desc: "model width", Show: true, Pos: true},
				{Sym: "L", Field: "num_layers", Default: "3", Legend: "L", Desc: "mixer layers", Show: true, Pos: true, Max: MaxLayers},
				field("ch", "num_input_channels", "1", "input channels"),
				field("ctx", "context_length", "32", "context length"),
				{Sym: "pl", Field: "patch_length", Default: "8", Desc: "patch length", Pos: true},
				{Sym: "ps", Field: "patch_stride", Default: "8", Desc: "patch stride", Pos: true},
				{Sym: "np", Field: "num_patches", Default: "(max(ctx, pl) - pl) / ps + 1", Desc: "patches"},
				field("ef", "expansion_factor", "2", "MLP expansion"),
				flag("gated", "gated_attn", "true", "gated mixers"),
				flag("sa", "self_attn", "false", "patch self-attention"),
				{Sym: "mode", Field: "mode", Type: Str, Default: "'common_channel'", Desc: "channel mode"},
				{Sym: "nm", Field: "norm_mlp", Type: Str, Default: "'LayerNorm'", Desc: "mixers' norm"},
				derived("bn", "in(nm, list('BatchNorm', 'batchnorm', 'Batchnorm', 'batch_norm', 'batch'))"),
				flag("pe", "use_positional_encoding", "false", "positional encodings"),
				{Sym: "scl", Field: "scaling", Type: BoolStr, Default: "'std'", Null: "'none'", Desc: "scaling"},
				derived("inject", "in(scl, list('std', 'mean', 'true'))"),
				{Sym: "agg", Field: "head_aggregation", Type: Str, Default: "'max_pool'", Null: "''", Desc: "head aggregation"},
				{Sym: "NT", Field: "num_targets", Default: "3", Desc: "regression targets or classes", Pos: true},
			}, tsLossDefs("'mse'")),
			BasePrefix: "model.",
			Global: cat(linear("model.encoder.patcher", "H", "pl", "true"),
				when("pe", []T{{Name: "model.encoder.positional_encoder.position_enc", Shape: []string{"np", "H"}, Role: RoleEmbedding}})),
			Stacks: []Stack{{Prefix: "model.encoder.mlp_mixer_encoder.mixers.{l}.", Layers: "L", Tensors: cat(
				tsmixMixer("patch_mixer.", "np"),
				when("sa", linear("patch_mixer.self_attn_layer.k_proj", "H", "H", "true"), linear("patch_mixer.self_attn_layer.v_proj", "H", "H", "true"),
					linear("patch_mixer.self_attn_layer.q_proj", "H", "H", "true"), linear("patch_mixer.self_attn_layer.out_proj", "H", "H", "true"),
					tsmixNorm("patch_mixer.norm_attn.")),
				tsmixMixer("feature_mixer.", "H"),
				when("mode == 'mix_channel'", tsmixMixer("channel_feature_mixer.", "ch")))}},
			Embed: "model.encoder.patcher.weight",
			Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
				{Suffix: "ForRegression", Head: cat(tsmixInject, distProj("head.projection", "NT", "H*ch*(agg == '' ? np : 1)", "loss == 'mse'"))},
				{Suffix: "ForTimeSeriesClassification", Head: cat(tsmixInject, linear("head.projection", "NT", "H*ch*(agg == '' ? np : 1)", "true"))}},
		}
	},
)

// tsmixInject is PatchTSMixer's injection of the scale statistics into
// its heads' input, where the series are scaled.
var tsmixInject = when("inject", linear("inject_scale.inverse_trans_expansion", "2*H", "H+2", "true"), linear("inject_scale.inverse_trans_compression", "H", "2*H", "true"),
	linear("inject_scale.map_scale_expansion", "4", "2", "true"), linear("inject_scale.map_scale_compression", "2", "4", "true"))

var _ = register(
	// Trajectory Transformer (4.x only): GPT blocks over discretized
	// transitions, a learned position parameter, and one head per
	// transition dimension (EinLinear: [transition_dim, vocab+1, H]).
	func() *Family {
		return &Family{Name: "Trajectory Transformer", Class: "TrajectoryTransformer", ModelTypes: []string{"trajectory_transformer"}, Causal: "-", SeqCls: "-",
			Defs: append(trunkAt("vocab_size=100", "n_embd=128", "n_layer=4", "blocks"),
				field("td", "transition_dim", "25", "transition dimensions"),
				field("P", "block_size", "249", "positions"),
			),
			Global: []T{{Name: "tok_emb.weight", Shape: []string{"V*td+1", "H"}, Role: RoleEmbedding}, {Name: "pos_emb", Shape: []string{"1", "P", "H"}, Role: RoleEmbedding}},
			Stacks: []Stack{{Prefix: "blocks.{l}.", Layers: "L", Tensors: cat(norm("ln1", "H", "true"), norm("ln2", "H", "true"),
				linear("attn.key", "H", "H", "true"), linear("attn.query", "H", "H", "true"), linear("attn.value", "H", "H", "true"), linear("attn.proj", "H", "H", "true"),
				linear("l1", "4*H", "H", "true"), linear("l2", "H", "4*H", "true"))}},
			Final: cat(norm("ln_f", "H", "true"), []T{{Name: "head.weight", Shape: []string{"td", "V+1", "H"}, Role: RoleLinear}}),
			Tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}},
		}
	},
)

var _ = register(
	// Graphormer (4.x only): node features (atoms, in/out degrees, a
	// graph token) hidden_size wide, attention biases per head (edges,
	// multi-hop edge distances, spatial positions), fairseq-style
	// encoder layers embedding_dim wide, and the LM head's transform.
	func() *Family {
		return &Family{Name: "Graphormer", Class: "Graphormer", ModelTypes: []string{"graphormer"}, Causal: "-", SeqCls: "-",
			Defs: []Def{
				{Sym: "E", Field: "embedding_dim", Default: "768", Legend: "E", Desc: "layers' width", Show: true, Pos: true},
				{Sym: "H", Field: "hidden_size", Default: "E", Legend: "H", Desc: "node features' width", Show: true, Pos: true},
				{Sym: "L", Field: "num_hidden_layers", Default: "12", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
				field("heads", "num_attention_heads", "32", "attention heads"),
				field("I", "ffn_embedding_dim", "768", "FFN width"),
				field("natoms", "num_atoms", "4608", "atom types"), field("nedges", "num_edges", "1536", "edge types"),
				field("nin", "num_in_degree", "512", "in-degrees"), field("nout", "num_out_degree", "512", "out-degrees"),
				field("nsp", "num_spatial", "512", "spatial positions"), field("ned", "num_edge_dis", "128", "edge distances"),
				{Sym: "etype", Field: "edge_type", Type: Str, Default: "'multi_hop'", Desc: "edge encoding"},
				{Sym: "kdim", Field: "kdim", Default: "E", Null: "E", Desc: "keys' input width"},
				{Sym: "vdim", Field: "vdim", Default: "E", Null: "E", Desc: "values' input width"},
				flag("bias", "bias", "true", "attention biases"),
				{Sym: "qn", Field: "q_noise", Type: Milli, Default: "0", Desc: "quantization noise (×1000)"},
				flag("enb", "encoder_normalize_before", "false", "an embedding layer norm"),
				flag("prel", "pre_layernorm", "false", "a final layer norm"),
			},
			Global: cat([]T{{Name: "graph_encoder.graph_node_feature.atom_encoder.weight", Shape: []string{"natoms+1", "H"}, Role: RoleEmbedding},
				{Name: "graph_encoder.graph_node_feature.in_degree_encoder.weight", Shape: []string{"nin", "H"}, Role: RoleEmbedding},
				{Name: "graph_encoder.graph_node_feature.out_degree_encoder.weight", Shape: []string{"nout", "H"}, Role: RoleEmbedding},
				{Name: "graph_encoder.graph_node_feature.graph_token.weight", Shape: []string{"1", "H"}, Role: RoleEmbedding},
				{Name: "graph_encoder.graph_attn_bias.edge_encoder.weight", Shape: []string{"nedges+1", "heads"}, Role: RoleEmbedding},
				{Name: "graph_encoder.graph_attn_bias.edge_dis_encoder.weight", Shape: []string{"ned*heads*heads", "1"}, Role: RoleEmbedding, If: "etype == 'multi_hop'"},
				{Name: "graph_encoder.graph_attn_bias.spatial_pos_encoder.weight", Shape: []string{"nsp", "heads"}, Role: RoleEmbedding},
				{Name: "graph_encoder.graph_attn_bias.graph_token_virtual_distance.weight", Shape: []string{"1", "heads"}, Role: RoleEmbedding}},
				when("qn > 0", linear("graph_encoder.quant_noise", "E", "E", "")), when("enb", norm("graph_encoder.emb_layer_norm", "E", "true")),
				when("prel", norm("graph_encoder.final_layer_norm", "E", "true"))),
			Stacks: []Stack{{Prefix: "graph_encoder.layers.{l}.", Layers: "L", Tensors: cat(
				linear("self_attn.k_proj", "E", "kdim", "bias"), linear("self_attn.v_proj", "E", "vdim", "bias"), linear("self_attn.q_proj", "E", "E", "bias"),
				linear("self_attn.out_proj", "E", "E", "bias"), norm("self_attn_layer_norm", "E", "true"),
				linear("fc1", "I", "E", "true"), linear("fc2", "E", "I", "true"), norm("final_layer_norm", "E", "true"))}},
			Final: cat(linear("lm_head_transform_weight", "E", "E", "true"), norm("layer_norm", "E", "true")),
			Tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}},
		}
	},
)
