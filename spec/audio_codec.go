package spec

// Neural audio codecs and text-to-speech models: EnCodec, Mimi, DAC, …,
// built from blocks_codec.go's SEANet stacks, weight-normed
// convolutions and residual vector quantizers.

import (
	"fmt"
	"strings"
	"sync"
)

// codecBase is the task table of a codec: its base model alone, every
// tensor kept.
var codecBase = []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true}}

var _ = register(
	// EnCodec: SEANet with an LSTM, weight-normed (or group-normed:
	// norm_type time_group_norm) convolutions, and a residual vector
	// quantizer of num_quantizers codebooks (EncodecConfig's property:
	// the last target bandwidth over the frame rate times the codebook's
	// bits), each with its k-means buffers.
	func() *Family {
		return &Family{Name: "EnCodec", Class: "Encodec", ModelTypes: []string{"encodec"}, Causal: "-", SeqCls: "-",
			Defs: cat(seanetDefs("128", "32", "7", "true"), []Def{
				field("nlstm", "num_lstm_layers", "2", "LSTM layers"),
				{Sym: "ntype", Field: "norm_type", Type: Str, Default: "'weight_norm'", Desc: "the convolutions' norm"},
				derived("wn", "ntype == 'weight_norm'"), derived("gn", "ntype == 'time_group_norm'"),
				field("sr", "sampling_rate", "24000", "sampling rate"),
				{Sym: "cs", Field: "codebook_size", Default: "1024", Desc: "codebook entries", Pos: true},
				{Sym: "cd", Field: "codebook_dim", Default: "H", Null: "H", Desc: "codebook width"},
				{Sym: "tb", Field: "target_bandwidths", Type: MilliList, Default: "list(1500, 3000, 6000, 12000, 24000)", Null: "=", Desc: "target bandwidths (×1000)"},
				derived("fr", "(sr + prod(ur) - 1) / prod(ur)"),
				derived("nq", "at(tb, len(tb)-1) / (fr * log2(2*cs-1))"),
			}),
			Stacks: seanet("", "true"),
			Final: []T{{Name: "quantizer.layers.{e}.codebook.inited", Shape: []string{"1"}, Role: RoleNorm, Experts: "nq"},
				{Name: "quantizer.layers.{e}.codebook.cluster_size", Shape: []string{"cs"}, Role: RoleNorm, Experts: "nq"},
				{Name: "quantizer.layers.{e}.codebook.embed", Shape: []string{"cs", "cd"}, Role: RoleEmbedding, Experts: "nq"},
				{Name: "quantizer.layers.{e}.codebook.embed_avg", Shape: []string{"cs", "cd"}, Role: RoleEmbedding, Experts: "nq"}},
			Variants: wnVariant,
			Tasks:    codecBase,
		}
	},
	// DAC: Snake activations and plain convolutions; encoder blocks of
	// three residual units and a strided convolution doubling the width
	// from encoder_hidden_size, decoder blocks halving it from
	// decoder_hidden_size with a transposed convolution, and n_codebooks
	// quantizers projecting to codebook_dim and back. hidden_size and
	// upsampling_ratios, derived by the config class, are read from
	// config.json where written there.
	func() *Family {
		eg, es, ef := dacEncoder("encoder.", "")
		d := dacEncoderDefs("", "", "list(2, 4, 8, 8)")
		return &Family{Name: "DAC", Class: "Dac", ModelTypes: []string{"dac"}, Causal: "-", SeqCls: "-",
			Defs: []Def{d[0],
				{Sym: "D", Field: "decoder_hidden_size", Default: "1536", Legend: "D", Desc: "decoder's first width (halving per block)", Show: true, Pos: true},
				d[1],
				list("urf", "upsampling_ratios", "the decoder's strides (default dr reversed)"),
				derived("nd", "len(urf) > 0 ? len(urf) : len(dr)"),
				d[2],
				field("nq", "n_codebooks", "9", "quantizers"),
				{Sym: "cs", Field: "codebook_size", Default: "1024", Desc: "codebook entries", Pos: true},
				field("cd", "codebook_dim", "8", "codebook width"),
			},
			Global: eg,
			Stacks: []Stack{es,
				{Name: "decoder", Prefix: "decoder.block.{l}.", Layers: "nd", Tensors: cat(
					snake("snake1", "D/pow(2, l)"), renameSyms(conv1d3t("conv_t1", "D/pow(2, l)", "w", "2*(len(urf) > 0 ? at(urf, l) : at(dr, len(dr)-1-l))"), "w", "(D/pow(2, l+1))"),
					renameSyms(dacResUnits("w"), "w", "(D/pow(2, l+1))"))},
			},
			Final: cat(ef,
				conv1d3("decoder.conv1", "D", "H", "7", "true"), snake("decoder.snake1", "D/pow(2, nd)"), conv1d3("decoder.conv2", "1", "D/pow(2, nd)", "7", "true"),
				[]T{{Name: "quantizer.quantizers.{e}.in_proj.weight", Shape: []string{"cd", "H", "1"}, Role: RoleLinear, Experts: "nq"},
					{Name: "quantizer.quantizers.{e}.in_proj.bias", Shape: []string{"cd"}, Role: RoleBias, Experts: "nq"},
					{Name: "quantizer.quantizers.{e}.out_proj.weight", Shape: []string{"H", "cd", "1"}, Role: RoleLinear, Experts: "nq"},
					{Name: "quantizer.quantizers.{e}.out_proj.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "nq"},
					{Name: "quantizer.quantizers.{e}.codebook.weight", Shape: []string{"cs", "cd"}, Role: RoleEmbedding, Experts: "nq"}}),
			Tasks: codecBase,
		}
	},
	// Mimi: SEANet without LSTM or weight norm, a transformer (layer
	// norms, layer scales) after the encoder and before the decoder, a
	// strided down- and a grouped transposed up-sampling convolution
	// when the frame rate is not the encoder's, and a split residual
	// vector quantizer (semantic and acoustic halves, each with its 1×1
	// projections when the quantizer's width is not the latent's).
	func() *Family {
		return &Family{Name: "Mimi", Class: "Mimi", ModelTypes: []string{"mimi"}, Causal: "-", SeqCls: "-",
			Defs: cat(seanetDefs("512", "64", "3", "false"), []Def{
				derived("wn", "false"), derived("gn", "false"), derived("nlstm", "0"),
				{Sym: "L", Field: "num_hidden_layers", Default: "8", Legend: "L", Desc: "transformer layers (encoder and decoder each)", Show: true, Pos: true, Max: MaxLayers},
				{Sym: "heads", Field: "num_attention_heads", Default: "8", Desc: "attention heads", Pos: true},
				kvDef("num_key_value_heads", "8", ""),
				{Sym: "d", Field: "head_dim", Default: "H/heads", Null: "H/heads", Desc: "head width"},
				inner("intermediate_size", "2048"), attnBiasFlag,
				field("sr", "sampling_rate", "24000", "sampling rate"),
				{Sym: "frm", Field: "_frame_rate|frame_rate", Type: Milli, Default: "0", Null: "=", Desc: "frame rate (×1000; default the encoder's over 2)"},
				derived("hop", "prod(ur)"), derived("efr", "(sr + hop - 1) / hop"),
				derived("resample", "frm == 0 ? sr != efr*2*hop : frm != efr*1000"),
				derived("dk", "2 * (frm == 0 ? efr*2*hop/sr : efr*1000/frm)"),
				field("ug", "upsample_groups", "512", "the upsampling convolution's groups"),
				{Sym: "cs", Field: "codebook_size", Default: "2048", Desc: "codebook entries", Pos: true},
				{Sym: "cd", Field: "codebook_dim", Default: "256", Null: "H", Desc: "codebook width"},
				field("nq", "num_quantizers", "32", "quantizers"),
				field("nsem", "num_semantic_quantizers", "1", "semantic quantizers"),
				field("vqh", "vector_quantization_hidden_dimension", "256", "the quantizer's width"),
			}),
			Stacks: cat(seanet("", "false"), []Stack{mimiTransformer("encoder_transformer.layers.{l}."), mimiTransformer("decoder_transformer.layers.{l}.")}),
			Final: cat(when("resample", codecConv("downsample.", "H", "H", "dk", false, ""), codecConv("upsample.", "H", "H/ug", "dk", false, "")),
				mimiRVQ("quantizer.semantic_residual_vector_quantizer.", "nsem"), mimiRVQ("quantizer.acoustic_residual_vector_quantizer.", "nq-nsem")),
			Tasks: codecBase,
		}
	},
)

// mimiTransformer is Mimi's transformer under prefix: pre-norm layers
// with layer norms, plain MLP (fc1, fc2, no biases) and a learned scale
// after attention and after the MLP.
func mimiTransformer(prefix string) Stack {
	return Stack{Name: prefix[:len(prefix)-len(".layers.{l}.")], Prefix: prefix, Layers: "L", Tensors: cat(
		norm("input_layernorm", "H", "true"), attn("self_attn.", "attention_bias", "attention_bias"), vec("self_attn_layer_scale.scale", "H"),
		norm("post_attention_layernorm", "H", "true"), linear("mlp.fc1", "I", "H", ""), linear("mlp.fc2", "H", "I", ""), vec("mlp_layer_scale.scale", "H"))}
}

// mimiRVQ is one of Mimi's residual vector quantizers under pre: n
// codebooks with their usage buffers, and the 1×1 projections in and
// out when vqh is not H.
func mimiRVQ(pre, n string) []T {
	return cat(when("vqh != H", []T{{Name: pre + "input_proj.weight", Shape: []string{"vqh", "H", "1"}, Role: RoleLinear}}),
		[]T{{Name: pre + "layers.{e}.codebook.initialized", Shape: []string{"1"}, Role: RoleNorm, Experts: n, AnyDType: true},
			{Name: pre + "layers.{e}.codebook.cluster_usage", Shape: []string{"cs"}, Role: RoleNorm, Experts: n},
			{Name: pre + "layers.{e}.codebook.embed_sum", Shape: []string{"cs", "cd"}, Role: RoleEmbedding, Experts: n}},
		when("vqh != H", []T{{Name: pre + "output_proj.weight", Shape: []string{"H", "vqh", "1"}, Role: RoleLinear}}))
}

// barkGPT is one of Bark's GPT-like sub-models under pre ("semantic."),
// its fields under cfg with symbols prefixed x: token and position
// tables, layers of a fused qkv (att_proj) and a 4× MLP, biased (and
// the layer norms too) where bias says, and, when causal, the saved
// causal-mask buffer; the causal ones end in one LM head, the fine one
// in a head per predicted codebook (tied to the next codebook's table
// unless tie_word_embeddings is false).
func barkGPT(pre, cfg, x string, causal bool) ([]Def, []T, Stack, []T) {
	s := func(n string) string { return x + n }
	defs := []Def{
		{Sym: s("H"), Field: cfg + "hidden_size", Default: "768", Legend: s("H"), Desc: pre + " width", Show: true, Pos: true},
		{Sym: s("L"), Field: cfg + "num_layers", Default: "12", Legend: s("L"), Desc: pre + " layers", Show: true, Pos: true, Max: MaxLayers},
		field(s("inV"), cfg+"input_vocab_size", "10048", "input tokens"),
		field(s("outV"), cfg+"output_vocab_size", "10048", "output tokens"),
		field(s("P"), cfg+"block_size", "1024", "positions"),
		flag(s("bias"), cfg+"bias", "true", "biases in linears and layer norms"),
	}
	lnBias := "true"
	if causal {
		lnBias = s("bias")
	}
	layer := renameSyms(cat(norm("layernorm_1", "H", lnBias), linear("attn.att_proj", "3*H", "H", "bias"), linear("attn.out_proj", "H", "H", "bias"),
		when(fmt.Sprint(causal), []T{{Name: "attn.bias", Shape: []string{"1", "1", "P", "P"}, Role: RoleNorm, AnyDType: true}}),
		norm("layernorm_2", "H", lnBias), linear("mlp.in_proj", "4*H", "H", "bias"), linear("mlp.out_proj", "H", "4*H", "bias")),
		"H", s("H"), "P", s("P"), "bias", s("bias"))
	stack := Stack{Name: pre[:len(pre)-1], Prefix: pre + "layers.{l}.", Layers: s("L"), Tensors: layer}
	pos := []T{{Name: pre + "position_embeds_layer.weight", Shape: []string{s("P"), s("H")}, Role: RoleEmbedding}}
	final := norm(pre+"layernorm_final", s("H"), lnBias)
	if causal {
		return defs, cat([]T{{Name: pre + "input_embeds_layer.weight", Shape: []string{s("inV"), s("H")}, Role: RoleEmbedding}}, pos), stack,
			cat(final, []T{{Name: pre + "lm_head.weight", Shape: []string{s("outV"), s("H")}, Role: RoleLinear}})
	}
	defs = append(defs, field(s("nt"), cfg+"n_codes_total", "8", "codebooks"), field(s("ng"), cfg+"n_codes_given", "1", "codebooks given"),
		flag(s("tie"), cfg+"tie_word_embeddings", "true", "heads tied to the next codebook's table"))
	return defs, cat([]T{{Name: pre + "input_embeds_layers.{e}.weight", Shape: []string{s("inV"), s("H")}, Role: RoleEmbedding, Experts: s("nt")}}, pos), stack,
		cat(final, []T{{Name: pre + "lm_heads.{e}.weight", Shape: []string{s("outV"), s("H")}, Role: RoleLinear, Experts: s("nt") + "-" + s("ng"), If: "!" + s("tie")}})
}

// bark is Bark: the semantic, coarse and fine GPT-like models and the
// codec its codec_config names (EnCodec), under codec_model., built on
// first use from the registered codec family.
var bark = &Family{Name: "Bark", Class: "Bark", ModelTypes: []string{"bark"}, Causal: "-", SeqCls: "-", Tasks: codecBase,
	compose: func(*Config) (*Family, error) {
		barkOnce.Do(func() {
			f := &Family{Name: "Bark", Class: "Bark", ModelTypes: []string{"bark"}, Causal: "-", SeqCls: "-", Tasks: codecBase, Variants: wnVariant}
			for _, m := range []struct {
				pre, cfg, x string
				causal      bool
			}{{"semantic.", "semantic_config.", "s_", true}, {"coarse_acoustics.", "coarse_acoustics_config.", "a_", true}, {"fine_acoustics.", "fine_acoustics_config.", "f_", false}} {
				d, g, st, fin := barkGPT(m.pre, m.cfg, m.x, m.causal)
				f.Defs, f.Global, f.Stacks, f.Final = cat(f.Defs, d), cat(f.Global, g), append(f.Stacks, st), cat(f.Final, fin)
			}
			codec, _ := familyPart("encodec", TaskBase, "codec_config.", "codec_model.", "c_")
			f.Defs, f.Global, f.Stacks, f.Final = cat(f.Defs, codec.Defs), cat(f.Global, codec.Global), append(f.Stacks, codec.Stacks...), cat(f.Final, codec.Final)
			barkErr = f.compile()
			barkF = f
		})
		return barkF, barkErr
	},
}

var (
	barkOnce sync.Once
	barkF    *Family
	barkErr  error
)

var _ = register(func() *Family { return bark })

// vitsDDS is VITS's dilated depth-separable convolution stack under pre:
// dsl layers of a depthwise (kernel dk) and a pointwise convolution, each
// with a layer norm.
func vitsDDS(pre string) []T {
	return []T{{Name: pre + "convs_dilated.{e}.weight", Shape: []string{"H", "1", "dk"}, Role: RoleLinear, Experts: "dsl"},
		{Name: pre + "convs_dilated.{e}.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "dsl"},
		{Name: pre + "convs_pointwise.{e}.weight", Shape: []string{"H", "H", "1"}, Role: RoleLinear, Experts: "dsl"},
		{Name: pre + "convs_pointwise.{e}.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "dsl"},
		{Name: pre + "norms_1.{e}.weight", Shape: []string{"H"}, Role: RoleNorm, Experts: "dsl"},
		{Name: pre + "norms_1.{e}.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "dsl"},
		{Name: pre + "norms_2.{e}.weight", Shape: []string{"H"}, Role: RoleNorm, Experts: "dsl"},
		{Name: pre + "norms_2.{e}.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "dsl"}}
}

// vitsFlows is the stochastic duration predictor's flows under pre
// ("duration_predictor.flows."): an elementwise affine (flows.0) and nf
// spline flows, each a 1×1 convolution in, a depth-separable stack and
// the projection to the spline's bins.
func vitsFlows(name, pre string) Stack {
	return Stack{Name: name, Prefix: pre + "{l}.", Layers: "sdp ? nf+1 : 0", Kinds: []Kind{{Name: "affine", If: "l == 0"}, {Name: "spline"}},
		Tensors: cat(when("affine", []T{{Name: "translate", Shape: []string{"dsc", "1"}, Role: RoleNorm}, {Name: "log_scale", Shape: []string{"dsc", "1"}, Role: RoleNorm}}),
			when("spline", conv1d3("conv_pre", "H", "dsc/2", "1", "true"), vitsDDS("conv_dds."), conv1d3("conv_proj", "(dsc/2)*(bins*3-1)", "H", "1", "true")))}
}

// vits is VITS (MMS-TTS): a text encoder with relative-position
// attention (window_size) and convolutional FFNs, the prior's coupling
// flows and the posterior encoder over weight-normed WaveNets, the
// stochastic (or plain) duration predictor, and the HiFi-GAN decoder
// (conv_post without bias), speaker-conditioned where
// speaker_embedding_size is not 0.
func vits() *Family {
	hg, _, hgStack := hifiGan("decoder.", "flow")
	return &Family{Name: "VITS", Class: "Vits", ModelTypes: []string{"vits"}, Causal: "-", SeqCls: "-",
		Defs: cat([]Def{
			{Sym: "V", Field: "vocab_size", Default: "38", Legend: "V", Desc: "text tokens", Show: true, Pos: true},
			{Sym: "H", Field: "hidden_size", Default: "192", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "6", Legend: "L", Desc: "text encoder layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_attention_heads", Default: "2", Desc: "attention heads", Pos: true, Divides: "H"},
			{Sym: "ws", Field: "window_size", Default: "4", Null: "0", Desc: "relative attention window (0: none)"},
			flag("ub", "use_bias", "true", "attention biases"),
			inner("ffn_dim", "768"), field("fk", "ffn_kernel_size", "3", "FFN kernel"),
			field("flow", "flow_size", "192", "flow width"), field("sbins", "spectrogram_bins", "513", "spectrogram bins"),
			flag("sdp", "use_stochastic_duration_prediction", "true", "stochastic duration predictor"),
			field("nspk", "num_speakers", "1", "speakers"), field("spk", "speaker_embedding_size", "0", "speaker embedding width"),
			field("dsc", "depth_separable_channels", "2", "duration flows' channels"), {Sym: "dsl", Field: "depth_separable_num_layers", Default: "3", Desc: "depth-separable layers", Max: MaxLayers},
			field("bins", "duration_predictor_flow_bins", "10", "spline bins"), field("dk", "duration_predictor_kernel_size", "3", "duration kernel"),
			{Sym: "nf", Field: "duration_predictor_num_flows", Default: "4", Desc: "duration flows", Max: MaxLayers},
			field("dpfc", "duration_predictor_filter_channels", "256", "plain duration predictor's width"),
			{Sym: "pnf", Field: "prior_encoder_num_flows", Default: "4", Desc: "prior flows", Max: MaxLayers},
			{Sym: "pwn", Field: "prior_encoder_num_wavenet_layers", Default: "4", Desc: "prior WaveNet layers", Max: MaxLayers},
			{Sym: "qwn", Field: "posterior_encoder_num_wavenet_layers", Default: "16", Desc: "posterior WaveNet layers", Max: MaxLayers},
			field("wk", "wavenet_kernel_size", "5", "WaveNet kernel"),
		}, hifiGanDefs("")),
		Global: cat(embed("text_encoder.embed_tokens.weight"), conv1d3("text_encoder.project", "2*flow", "H", "1", "true"),
			conv1d3("posterior_encoder.conv_pre", "H", "sbins", "1", "true"), waveNet("posterior_encoder.wavenet.", "qwn"),
			conv1d3("posterior_encoder.conv_proj", "2*flow", "H", "1", "true"),
			hg, conv1d3("decoder.conv_post", "1", "uic/pow(2, nup)", "7", "false"), when("spk != 0", conv1d3("decoder.cond", "uic", "spk", "1", "true")),
			when("sdp", conv1d3("duration_predictor.conv_pre", "H", "H", "1", "true"), conv1d3("duration_predictor.conv_proj", "H", "H", "1", "true"),
				vitsDDS("duration_predictor.conv_dds."), conv1d3("duration_predictor.post_conv_pre", "H", "1", "1", "true"),
				conv1d3("duration_predictor.post_conv_proj", "H", "H", "1", "true"), vitsDDS("duration_predictor.post_conv_dds.")),
			when("!sdp", conv1d3("duration_predictor.conv_1", "dpfc", "H", "dk", "true"), norm("duration_predictor.norm_1", "dpfc", "true"),
				conv1d3("duration_predictor.conv_2", "dpfc", "dpfc", "dk", "true"), norm("duration_predictor.norm_2", "dpfc", "true"),
				conv1d3("duration_predictor.proj", "1", "dpfc", "1", "true")),
			when("spk != 0", conv1d3("duration_predictor.cond", "H", "spk", "1", "true")),
			when("nspk > 1", []T{{Name: "embed_speaker.weight", Shape: []string{"nspk", "spk"}, Role: RoleEmbedding}})),
		Stacks: []Stack{
			{Prefix: "text_encoder.encoder.layers.{l}.", Layers: "L", Tensors: cat(
				linear("attention.k_proj", "H", "H", "ub"), linear("attention.v_proj", "H", "H", "ub"), linear("attention.q_proj", "H", "H", "ub"),
				linear("attention.out_proj", "H", "H", "ub"),
				when("ws > 0", []T{{Name: "attention.emb_rel_k", Shape: []string{"1", "2*ws+1", "H/heads"}, Role: RoleEmbedding},
					{Name: "attention.emb_rel_v", Shape: []string{"1", "2*ws+1", "H/heads"}, Role: RoleEmbedding}}),
				norm("layer_norm", "H", "true"), conv1d3("feed_forward.conv_1", "I", "H", "fk", "true"), conv1d3("feed_forward.conv_2", "H", "I", "fk", "true"),
				norm("final_layer_norm", "H", "true"))},
			{Name: "flow", Prefix: "flow.flows.{l}.", Layers: "pnf", Tensors: cat(conv1d3("conv_pre", "H", "flow/2", "1", "true"),
				waveNet("wavenet.", "pwn"), conv1d3("conv_post", "flow/2", "H", "1", "true"))},
			vitsFlows("duration flows", "duration_predictor.flows."),
			vitsFlows("duration post-flows", "duration_predictor.post_flows."),
			hgStack,
		},
		Variants: wnVariant,
		Tasks:    codecBase,
	}
}

var _ = register(vits)

// univnet is UnivNet: a vocoder of location-variable convolution blocks,
// one per stride (a transposed upsampling convolution, a kernel
// predictor from the spectrogram predicting each residual layer's
// kernels and biases, and a residual convolution per dilation).
var univnet = &Family{Name: "UnivNet", Class: "UnivNet", ModelTypes: []string{"univnet"}, Causal: "-", SeqCls: "-",
	Defs: []Def{
		{Sym: "mic", Field: "model_in_channels", Default: "64", Legend: "Cin", Desc: "noise channels", Show: true, Pos: true},
		{Sym: "H", Field: "model_hidden_channels", Default: "32", Legend: "H", Desc: "hidden channels", Show: true, Pos: true},
		field("nmel", "num_mel_bins", "100", "mel bins"),
		listOf("rk", "resblock_kernel_sizes", "list(3, 3, 3)", "each block's kernel"),
		listOf("rs", "resblock_stride_sizes", "list(8, 8, 4)", "each block's stride"),
		{Sym: "rd", Field: "resblock_dilation_sizes", Type: Lens, Default: "list(4, 4, 4)", Null: "=", Desc: "each block's dilations (counts)"},
		{Sym: "kpnb", Field: "kernel_predictor_num_blocks", Default: "3", Desc: "kernel predictor's residual blocks", Max: MaxLayers},
		field("kph", "kernel_predictor_hidden_channels", "64", "kernel predictor's width"),
		field("kpk", "kernel_predictor_conv_size", "3", "kernel predictor's kernel"),
	},
	Global: conv1d3("conv_pre", "H", "mic", "7", "true"),
	Stacks: []Stack{{Prefix: "resblocks.{l}.", Layers: "len(rs)", Tensors: cat(
		conv1d3t("convt_pre", "H", "H", "2*at(rs, l)"),
		conv1d3("kernel_predictor.input_conv", "kph", "nmel", "5", "true"),
		[]T{{Name: "kernel_predictor.resblocks.{e}.conv1.weight", Shape: []string{"mic", "mic", "kpk"}, Role: RoleLinear, Experts: "kpnb"},
			{Name: "kernel_predictor.resblocks.{e}.conv1.bias", Shape: []string{"mic"}, Role: RoleBias, Experts: "kpnb"},
			{Name: "kernel_predictor.resblocks.{e}.conv2.weight", Shape: []string{"mic", "mic", "kpk"}, Role: RoleLinear, Experts: "kpnb"},
			{Name: "kernel_predictor.resblocks.{e}.conv2.bias", Shape: []string{"mic"}, Role: RoleBias, Experts: "kpnb"}},
		conv1d3("kernel_predictor.kernel_conv", "H*2*H*at(rk, l)*at(rd, l)", "kph", "kpk", "true"),
		conv1d3("kernel_predictor.bias_conv", "2*H*at(rd, l)", "kph", "kpk", "true"),
		[]T{{Name: "resblocks.{e}.conv.weight", Shape: []string{"H", "H", "at(rk, l)"}, Role: RoleLinear, Experts: "at(rd, l)"},
			{Name: "resblocks.{e}.conv.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "at(rd, l)"}})}},
	Final: conv1d3("conv_post", "1", "H", "7", "true"),
	Tasks: codecBase,
}

var _ = register(func() *Family { return univnet })

// diaDims are one of Dia's stacks' fields under cfg, symbols prefixed x.
func diaDims(cfg, x, h, l, heads, kv, i, v string) []Def {
	return []Def{
		{Sym: x + "H", Field: cfg + "hidden_size", Default: h, Legend: x + "H", Desc: cfg + " width", Show: true, Pos: true},
		{Sym: x + "L", Field: cfg + "num_hidden_layers", Default: l, Legend: x + "L", Desc: cfg + " layers", Show: true, Pos: true, Max: MaxLayers},
		field(x+"heads", cfg+"num_attention_heads", heads, "attention heads"), field(x+"kv", cfg+"num_key_value_heads", kv, "key/value heads"),
		{Sym: x + "d", Field: cfg + "head_dim", Default: "128", Null: x + "H/" + x + "heads", Desc: "head width"},
		field(x+"I", cfg+"intermediate_size", i, "MLP width"), field(x+"V", cfg+"vocab_size", v, "tokens"),
	}
}

// diaAttn is a Dia attention under pre: no biases, keys and values from
// kvIn wide states.
func diaAttn(pre, x, heads, kv, d, kvIn string) []T {
	return cat(linear(pre+"q_proj", heads+"*"+d, x+"H", ""), linear(pre+"k_proj", kv+"*"+d, kvIn, ""),
		linear(pre+"v_proj", kv+"*"+d, kvIn, ""), linear(pre+"o_proj", x+"H", heads+"*"+d, ""))
}

// diaMLP is Dia's fused gated MLP.
func diaMLP(x string) []T {
	return cat(linear("mlp.gate_up_proj", "2*"+x+"I", x+"H", ""), linear("mlp.down_proj", x+"H", x+"I", ""))
}

var _ = register(
	// Dia: a text encoder and an audio decoder over num_channels codebook
	// streams (one table of vocab·channels rows), RMS norms, fused gated
	// MLPs, the decoder's cross-attention reading cross_hidden_size wide
	// states, and the generation head of channels·vocab logits.
	func() *Family {
		return &Family{Name: "Dia", Class: "Dia", ModelTypes: []string{"dia"}, Causal: "-", SeqCls: "-", BasePrefix: "model.",
			Defs: cat(diaDims("encoder_config.", "e", "1024", "12", "16", "16", "4096", "256"), diaDims("decoder_config.", "", "2048", "18", "16", "4", "8192", "1028"), []Def{
				field("cheads", "decoder_config.cross_num_attention_heads", "16", "cross-attention heads"),
				field("ckv", "decoder_config.cross_num_key_value_heads", "16", "cross-attention key/value heads"),
				field("cd", "decoder_config.cross_head_dim", "128", "cross-attention head width"),
				field("cH", "decoder_config.cross_hidden_size", "1024", "the encoder states' width"),
				field("nch", "decoder_config.num_channels", "9", "codebook channels"),
			}),
			Global: cat([]T{{Name: "model.encoder.embedding.weight", Shape: []string{"eV", "eH"}, Role: RoleEmbedding}},
				[]T{{Name: "model.decoder.embeddings.embed.weight", Shape: []string{"V*nch", "H"}, Role: RoleEmbedding}}),
			Stacks: []Stack{
				{Name: "encoder", Prefix: "model.encoder.layers.{l}.", Layers: "eL", Tensors: cat(norm("pre_sa_norm", "eH", ""),
					diaAttn("self_attention.", "e", "eheads", "ekv", "ed", "eH"), norm("post_sa_norm", "eH", ""), diaMLP("e"))},
				{Name: "decoder", Prefix: "model.decoder.layers.{l}.", Layers: "L", Tensors: cat(norm("pre_sa_norm", "H", ""),
					diaAttn("self_attention.", "", "heads", "kv", "d", "H"), norm("pre_ca_norm", "H", ""),
					diaAttn("cross_attention.", "", "cheads", "ckv", "cd", "cH"), norm("pre_mlp_norm", "H", ""), diaMLP(""))},
			},
			Final: cat(norm("model.encoder.norm", "eH", ""), norm("model.decoder.norm", "H", "")),
			Tasks: []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true},
				{Suffix: "ForConditionalGeneration", KeepFinal: true, Head: linear("logits_dense", "nch*V", "H", "")}},
		}
	},
)

// fs2Stack is one of FastSpeech2-Conformer's conformer stacks (the
// encoder's or the decoder's: x is "e" or "d", their fields under
// encoder_config / decoder_config, which config.json's dicts set over
// the flat fields): relative-position attention, macaron and
// convolutional FFNs (1-D convolutions), the convolution module where
// use_cnn_in_conformer, a concat linear where concat_after.
func fs2Stack(pre, x string) Stack {
	s := func(n string) string { return x + n }
	ffn := func(p string) []T {
		return cat(conv1d3(p+".conv1", s("I"), "H", "pk", "true"), conv1d3(p+".conv2", "H", s("I"), "pk", "true"))
	}
	return Stack{Name: pre[:len(pre)-1], Prefix: pre + "conformer_layers.{l}.", Layers: s("L"), Tensors: cat(
		linear("self_attn.linear_q", "H", "H", "true"), linear("self_attn.linear_k", "H", "H", "true"), linear("self_attn.linear_v", "H", "H", "true"),
		linear("self_attn.linear_out", "H", "H", "true"), linear("self_attn.linear_pos", "H", "H", ""),
		[]T{{Name: "self_attn.pos_bias_u", Shape: []string{s("heads"), "H/" + s("heads")}, Role: RoleNorm}, {Name: "self_attn.pos_bias_v", Shape: []string{s("heads"), "H/" + s("heads")}, Role: RoleNorm}},
		ffn("feed_forward"), when("macaron", ffn("feed_forward_macaron"), norm("ff_macaron_layer_norm", "H", "true")),
		when("cnn", conv1d3("conv_module.pointwise_conv1", "2*H", "H", "1", "true"), conv1d3("conv_module.depthwise_conv", "H", "1", s("K"), "true"),
			batchNorm("conv_module.norm", "H"), conv1d3("conv_module.pointwise_conv2", "H", "H", "1", "true"),
			norm("conv_layer_norm", "H", "true"), norm("final_layer_norm", "H", "true")),
		norm("ff_layer_norm", "H", "true"), norm("self_attn_layer_norm", "H", "true"),
		when(s("cat"), linear("concat_linear", "H", "2*H", "true")))}
}

// fs2Defs are one conformer stack's fields.
func fs2Defs(x, cfg, heads, layers, units, kernel string) []Def {
	c := func(k, flat string) string { return cfg + "." + k + "|" + flat }
	return []Def{
		{Sym: x + "L", Field: c("layers", cfg[:len(cfg)-len("_config")]+"_layers"), Default: layers, Legend: x + "L", Desc: cfg + " layers", Show: true, Max: MaxLayers},
		{Sym: x + "heads", Field: c("num_attention_heads", cfg[:len(cfg)-len("_config")]+"_num_attention_heads"), Default: heads, Desc: "attention heads (head width H/heads, floored)", Pos: true},
		field(x+"I", c("linear_units", cfg[:len(cfg)-len("_config")]+"_linear_units"), units, "FFN width"),
		field(x+"K", c("kernel_size", cfg[:len(cfg)-len("_config")]+"_kernel_size"), kernel, "convolution module's kernel"),
		flag(x+"cat", c("concat_after", cfg[:len(cfg)-len("_config")]+"_concat_after"), "false", "a concat linear after attention"),
	}
}

// fs2Predictor is a FastSpeech2 variance predictor under pre: n
// convolutions (kernel k, ch wide, the first from H) with layer norms,
// and a linear to one value.
func fs2Predictor(pre, n, ch, k string) []T {
	return cat([]T{{Name: pre + "conv_layers.{e}.conv.weight", Shape: []string{ch, "e == 0 ? H : " + ch, k}, Role: RoleLinear, Experts: n, PerCopy: true},
		{Name: pre + "conv_layers.{e}.conv.bias", Shape: []string{ch}, Role: RoleBias, Experts: n},
		{Name: pre + "conv_layers.{e}.layer_norm.weight", Shape: []string{ch}, Role: RoleNorm, Experts: n},
		{Name: pre + "conv_layers.{e}.layer_norm.bias", Shape: []string{ch}, Role: RoleBias, Experts: n}},
		linear(pre+"linear", "1", ch, "true"))
}

// fastSpeech2 is FastSpeech2-Conformer's acoustic model under pre.
func fastSpeech2(pre string) ([]Def, []T, []Stack) {
	defs := cat([]Def{
		{Sym: "H", Field: "hidden_size", Default: "384", Legend: "H", Desc: "width", Show: true, Pos: true},
		{Sym: "V", Field: "vocab_size", Default: "78", Legend: "V", Desc: "text tokens", Show: true, Pos: true},
		field("mel", "num_mel_bins", "80", "mel bins"), field("rf", "reduction_factor", "1", "frames per step"),
		field("pk", "positionwise_conv_kernel_size", "3", "FFN kernel"),
		flag("macaron", "use_macaron_style_in_conformer", "true", "macaron FFNs"), flag("cnn", "use_cnn_in_conformer", "true", "convolution modules"),
		{Sym: "pnl", Field: "speech_decoder_postnet_layers", Default: "5", Desc: "postnet layers", Max: MaxLayers},
		field("pu", "speech_decoder_postnet_units", "256", "postnet width"), field("pnk", "speech_decoder_postnet_kernel", "5", "postnet kernel"),
		{Sym: "dpl", Field: "duration_predictor_layers", Default: "2", Desc: "duration predictor layers", Max: MaxLayers},
		field("dpc", "duration_predictor_channels", "256", "its width"), field("dpk", "duration_predictor_kernel_size", "3", "its kernel"),
		{Sym: "epl", Field: "energy_predictor_layers", Default: "2", Desc: "energy predictor layers", Max: MaxLayers},
		field("epc", "energy_predictor_channels", "256", "its width"), field("epk", "energy_predictor_kernel_size", "3", "its kernel"),
		{Sym: "ppl", Field: "pitch_predictor_layers", Default: "5", Desc: "pitch predictor layers", Max: MaxLayers},
		field("ppc", "pitch_predictor_channels", "256", "its width"), field("ppk", "pitch_predictor_kernel_size", "5", "its kernel"),
		field("pek", "pitch_embed_kernel_size", "1", "pitch embedding kernel"), field("eek", "energy_embed_kernel_size", "1", "energy embedding kernel"),
		{Sym: "nspk", Field: "num_speakers", Default: "0", Null: "0", Desc: "speakers"},
		{Sym: "nlang", Field: "num_languages", Default: "0", Null: "0", Desc: "languages"},
		{Sym: "sed", Field: "speaker_embed_dim", Default: "0", Null: "0", Desc: "speaker embedding width"},
	}, fs2Defs("e", "encoder_config", "2", "4", "1536", "7"), fs2Defs("d", "decoder_config", "2", "4", "1536", "31"))
	global := cat(when("nlang > 1", []T{{Name: pre + "language_id_embedding.weight", Shape: []string{"nlang", "H"}, Role: RoleEmbedding}}),
		when("nspk > 1", []T{{Name: pre + "speaker_id_embedding.weight", Shape: []string{"nspk", "H"}, Role: RoleEmbedding}}),
		when("sed > 0", linear(pre+"projection", "H", "H+sed", "true")),
		[]T{{Name: pre + "encoder.embed.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding}},
		fs2Predictor(pre+"duration_predictor.", "dpl", "dpc", "dpk"), fs2Predictor(pre+"pitch_predictor.", "ppl", "ppc", "ppk"),
		conv1d3(pre+"pitch_embed.conv", "H", "1", "pek", "true"), fs2Predictor(pre+"energy_predictor.", "epl", "epc", "epk"),
		conv1d3(pre+"energy_embed.conv", "H", "1", "eek", "true"),
		linear(pre+"speech_decoder_postnet.feat_out", "mel*rf", "H", "true"),
		[]T{{Name: pre + "speech_decoder_postnet.layers.{e}.conv.weight", Shape: []string{"e == pnl-1 ? mel : pu", "e == 0 ? mel : pu", "pnk"}, Role: RoleLinear, Experts: "pnl", PerCopy: true}})
	for _, t := range batchNorm(pre+"speech_decoder_postnet.layers.{e}.batch_norm", "w") {
		t.Experts, t.PerCopy = "pnl", true
		t.Shape = renameSyms([]T{t}, "w", "(e == pnl-1 ? mel : pu)")[0].Shape
		global = append(global, t)
	}
	return defs, global, []Stack{fs2Stack(pre+"encoder.", "e"), fs2Stack(pre+"decoder.", "d")}
}

var _ = register(func() *Family {
	return func() *Family {
		d, g, st := fastSpeech2("")
		return &Family{Name: "FastSpeech2-Conformer", Class: "FastSpeech2Conformer", ModelTypes: []string{"fastspeech2_conformer"}, Causal: "-", SeqCls: "-",
			Defs: d, Global: g, Stacks: st, Tasks: codecBase}
	}()
}, func() *Family {
	return func() *Family {
		// FastSpeech2-Conformer with its HiFi-GAN vocoder: the acoustic
		// model under model. (fields under model_config), the vocoder under
		// vocoder. (fields under vocoder_config) with its saved mean and
		// scale of the model_in_dim mel bins.
		d, g, st := fastSpeech2("model.")
		hg, hgFinal, hgStack := hifiGan("vocoder.", "vin")
		return &Family{Name: "FastSpeech2-Conformer with HiFi-GAN", Class: "FastSpeech2ConformerWithHifiGan", ModelTypes: []string{"fastspeech2_conformer_with_hifigan"},
			Causal: "-", SeqCls: "-", Defs: cat(underCfg(d, "model_config."), hifiGanDefs("vocoder_config."), []Def{field("vin", "vocoder_config.model_in_dim", "80", "the vocoder's mel bins")}),
			Global: cat(g, []T{{Name: "vocoder.mean", Shape: []string{"vin"}, Role: RoleNorm}, {Name: "vocoder.scale", Shape: []string{"vin"}, Role: RoleNorm}}, hg),
			Stacks: append(st, hgStack), Final: hgFinal,
			Tasks: []Task{{Suffix: "", KeepFinal: true}}}
	}()
})

// vibeVoiceTokenizers are VibeVoice's acoustic tokenizer (transformers
// 5.x only: the encoder and decoder of ConvNeXt-1d blocks over causal
// convolutions, under encoder. and decoder.) and its encoder and
// decoder alone; the tokenizer's decoder reads depths reversed, the
// decoder alone as written.
func vibeVoiceTokenizers() (*Family, *Family, *Family) {
	eg, es, ef := vibeVoiceCoder("encoder.", false, false)
	dg, ds, df := vibeVoiceCoder("decoder.", true, true)
	tok := &Family{Name: "VibeVoice acoustic tokenizer", Class: "VibeVoiceAcousticTokenizer", ModelTypes: []string{"vibevoice_acoustic_tokenizer"},
		Causal: "-", SeqCls: "-", Tasks: codecBase, Defs: vibeVoiceDefs(),
		Global: cat(eg, dg), Stacks: []Stack{es, ds}, Final: cat(ef, df)}
	eg, es, ef = vibeVoiceCoder("", false, false)
	enc := &Family{Name: "VibeVoice acoustic tokenizer encoder", Class: "VibeVoiceAcousticTokenizerEncoder", ModelTypes: []string{"vibevoice_acoustic_tokenizer_encoder"},
		Causal: "-", SeqCls: "-", Tasks: codecBase, Defs: vibeVoiceDefs(), Global: eg, Stacks: []Stack{es}, Final: ef}
	dg, ds, df = vibeVoiceCoder("", true, false)
	dec := &Family{Name: "VibeVoice acoustic tokenizer decoder", Class: "VibeVoiceAcousticTokenizerDecoder", ModelTypes: []string{"vibevoice_acoustic_tokenizer_decoder"},
		Causal: "-", SeqCls: "-", Tasks: codecBase, Defs: vibeVoiceDefs(), Global: dg, Stacks: []Stack{ds}, Final: df}
	return tok, enc, dec
}

var _ = registerGroup(func() []*Family {
	tok, enc, dec := vibeVoiceTokenizers()
	return []*Family{tok, enc, dec, vibeVoiceAsr(enc)}
})

// vibeVoiceAsr is VibeVoice ASR (transformers 5.x only): the acoustic
// and semantic tokenizers' encoders (enc's layout, their fields under
// acoustic_/semantic_tokenizer_encoder_config), a projector of each to
// the text width (linear, RMS norm, linear) and the language model
// text_config names (Qwen2 by default). transformers 5.15 saves the
// generation class's language model under language_model.model.model.
// (its rename of the base model's language_model applied twice on
// save) and the base class's under language_model.model.; the names
// one level shallower and the in-memory ones (model.language_model.,
// lm_head) load too and are variants.
func vibeVoiceAsr(enc *Family) *Family {
	part := func(cfg, pre, sym, what string) ([]Def, []T, []Stack, []T) {
		p, _ := partOf(enc, TaskBase, cfg, pre, sym)
		var defs []Def
		for _, d := range p.Defs {
			d.Desc = strings.Replace(d.Desc, "backbone: ", what+": ", 1)
			defs = append(defs, d)
		}
		return defs, p.Global, p.Stacks, p.Final
	}
	ad, ag, as, af := part("acoustic_tokenizer_encoder_config.", "acoustic_tokenizer_encoder.", "a_", "acoustic encoder")
	sd, sg, ss, sf := part("semantic_tokenizer_encoder_config.", "semantic_tokenizer_encoder.", "s_", "semantic encoder")
	// The semantic encoder's width defaults to 128 when its config is
	// absent (a dict without hidden_size takes the class's 64).
	sd = append(sd, Def{Sym: "s_mt", Field: "semantic_tokenizer_encoder_config.model_type", Type: Str, Default: "''", Null: "''", Desc: "the semantic encoder's config type"})
	sd = withDefault(sd, "s_H", "s_mt == '' ? 128 : 64")
	proj := func(p, in string) []T {
		return cat(linear(p+"_linear_1", "H", in, "true"), norm(p+"_norm", "H", ""), linear(p+"_linear_2", "H", "H", "true"))
	}
	shallow := [][2]string{{"language_model.model.model.", "language_model.model."}}
	inMemory := [][2]string{{"language_model.model.model.", "model.language_model."}, {"language_model.lm_head.", "lm_head."},
		{"acoustic_tokenizer_encoder.", "model.acoustic_tokenizer_encoder."}, {"semantic_tokenizer_encoder.", "model.semantic_tokenizer_encoder."},
		{"multi_modal_projector.", "model.multi_modal_projector."}}
	return (&vlm{Family: Family{Name: "VibeVoice ASR", Class: "VibeVoiceAsr", ModelTypes: []string{"vibevoice_asr"},
		Causal: "VibeVoiceAsrForConditionalGeneration", BasePrefix: "language_model.model.",
		Defs:   cat(ad, sd),
		Global: cat(ag, sg), Stacks: cat(as, ss),
		Final:    cat(af, sf, proj("multi_modal_projector.acoustic", "a_H"), proj("multi_modal_projector.semantic", "s_H")),
		Variants: [][][2]string{shallow, inMemory}},
		text: "qwen2", reroot: [][2]string{{"model.", "language_model.model.model."}, {"lm_head.", "language_model.lm_head."}},
		tasks: []Task{{Suffix: TaskBase, Prefix: "language_model.", KeepFinal: true,
			Variants: [][][2]string{{{"language_model.model.", "language_model."}}}}}}).register()
}

// xcodec2 is X-Codec 2 (transformers 5.x only): a semantic encoder (the
// base model semantic_model_config names, Wav2Vec2-BERT in its
// checkpoints: withPart) and its four-convolution adapter, DAC's
// acoustic encoder with anti-aliased SnakeBeta activations, a linear
// mixing both into a finite scalar quantizer's projections, and a Vocos
// decoder: ResNet blocks around RMS-normed attention layers and an
// inverse-STFT head of n_fft+2 = 4·prod(downsampling_ratios)+2 outputs.
// Its rotary, quantizer and resampling filter buffers are not saved.
func xcodec2() *Family {
	d := dacEncoderDefs("", "", "list(2, 2, 4, 4, 5)")
	eg, es, ef := dacEncoder("acoustic_encoder.", "")
	es.Tensors, ef = snakeBeta(es.Tensors), snakeBeta(ef)
	resnet := func(pre string) []T {
		return copies("2", under(pre+"{e}.", norm("norm1", "H", "true"), conv1d3("conv1", "H", "H", "3", "true"),
			norm("norm2", "H", "true"), conv1d3("conv2", "H", "H", "3", "true")))
	}
	const dec = "acoustic_decoder."
	return withPart(&Family{Name: "X-Codec 2", Class: "Xcodec2", ModelTypes: []string{"xcodec2"}, Causal: "-", SeqCls: "-",
		Defs: cat(sized(withoutDefs(llamaDims("64", "H/heads", "16", "heads"), "V"), "H", "1024", "L", "12", "heads", "16", "I", "4096"),
			[]Def{attnBiasFlag, d[0], d[1],
				{Sym: "sH", Field: "semantic_model_config.hidden_size", Default: "1024", Legend: "sH", Desc: "the semantic encoder's width", Show: true, Pos: true},
				{Sym: "Q", Field: "quantization_dim", Default: "2048", Desc: "the quantizer's input width", Pos: true},
				{Sym: "ql", Field: "quantization_levels", Type: List, Default: "list(4, 4, 4, 4, 4, 4, 4, 4)", Null: "=", Desc: "the scalar quantizer's levels per dimension"},
			}),
		Global: cat(conv1d3("semantic_adapter.conv1", "sH", "sH", "3", ""), conv1d3("semantic_adapter.conv2", "sH", "sH", "3", "true"),
			conv1d3("semantic_adapter.conv3", "sH", "sH", "3", "true"), conv1d3("semantic_adapter.conv4", "sH", "sH", "3", ""), eg),
		Stacks: []Stack{es, {Name: "decoder", Prefix: dec + "layers.{l}.", Layers: "L", Tensors: cat(inNorm, attn("self_attn.", "attention_bias", "attention_bias"),
			postNorm, linear("mlp.fc1", "I", "H", ""), linear("mlp.fc2", "H", "I", ""))}},
		Final: cat(ef, linear("fc_encoder", "H+sH", "H+sH", "true"),
			linear("quantizer.project_in", "len(ql)", "Q", "true"), linear("quantizer.project_out", "Q", "len(ql)", "true"),
			linear(dec+"fc", "H", "H+sH", "true"), conv1d3(dec+"embed", "H", "H", "7", "true"), resnet(dec+"prior_net."),
			resnet(dec+"post_net."), norm(dec+"norm", "H", "true"), linear(dec+"head.linear", "4*prod(dr)+2", "H", "true")),
		Tasks: codecBase}, "semantic_model_config.", "semantic_encoder.", TaskBase)
}

var _ = register(xcodec2)

// snakeBeta turns DAC's Snake activations (alpha [1, w, 1]) into
// anti-aliased SnakeBeta ones: act.alpha and act.beta, [w] each.
func snakeBeta(ts []T) []T {
	var out []T
	for _, t := range ts {
		pre, ok := strings.CutSuffix(t.Name, ".alpha")
		if !ok {
			out = append(out, t)
			continue
		}
		for _, p := range []string{".act.alpha", ".act.beta"} {
			u := t
			u.Name, u.Shape = pre+p, []string{t.Shape[1]}
			out = append(out, u)
		}
	}
	return out
}
