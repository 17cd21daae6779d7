package spec

// Speech and audio generation: SeamlessM4T(v2) (speech and text in,
// text and speech out), the codecs and text-to-speech models. Their
// convolution stacks are data over the config's lists (blocks_speech.go:
// hifiGan, variancePredictor).

// seamlessParts say which sub-models a SeamlessM4T class builds.
type seamlessParts struct{ text, speech, t2u bool }

// seamlessDefs are SeamlessM4TConfig's fields (v2: SeamlessM4Tv2Config's
// defaults where they differ, and its fields of its own).
func seamlessDefs(v2 bool) []Def {
	pet := "'relative'"
	if v2 {
		pet = "'relative_key'"
	}
	d := []Def{
		{Sym: "V", Field: "vocab_size", Default: "256102", Legend: "V", Desc: "text tokens", Show: true, Pos: true},
		{Sym: "H", Field: "hidden_size", Default: "1024", Legend: "H", Desc: "width of every sub-model", Show: true, Pos: true},
		{Sym: "eL", Field: "encoder_layers", Default: "24", Legend: "eL", Desc: "text encoder layers", Show: true, Pos: true, Max: MaxLayers},
		field("eF", "encoder_ffn_dim", "8192", "the text encoder's FFN width"),
		{Sym: "L", Field: "decoder_layers", Default: "24", Legend: "L", Desc: "text decoder layers", Show: true, Pos: true, Max: MaxLayers},
		field("dF", "decoder_ffn_dim", "8192", "the text decoder's FFN width"),
		{Sym: "sL", Field: "speech_encoder_layers", Default: "24", Legend: "sL", Desc: "speech encoder (conformer) layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "heads", Field: "speech_encoder_attention_heads", Default: "16", Desc: "speech encoder attention heads", Pos: true},
		inner("speech_encoder_intermediate_size", "4096"),
		field("fpi", "feature_projection_input_dim", "160", "input features (log-mel bins × stride)"),
		flag("adapter", "add_adapter", "true", "an adapter after the speech encoder"),
		derived("OH", "H"),
		{Sym: "nad", Field: "num_adapter_layers", Default: "1", Desc: "adapter layers"},
		{Sym: "ak", Field: "adaptor_kernel_size", Default: "8", Desc: "adapter kernel", Pos: true},
		{Sym: "pet", Field: "position_embeddings_type", Type: Str, Default: pet, Null: "''", Desc: "relative, relative_key, rotary or none"},
		field("dwk", "conv_depthwise_kernel_size", "31", "the convolution module's depthwise kernel"),
		field("lmp", "left_max_position_embeddings", "64", "relative_key's positions to the left"),
		field("rmp", "right_max_position_embeddings", "8", "relative_key's positions to the right"),
		{Sym: "tV", Field: "t2u_vocab_size", Default: "10082", Legend: "tV", Desc: "speech units", Show: true, Pos: true},
		{Sym: "teL", Field: "t2u_encoder_layers", Default: "6", Desc: "text-to-unit encoder layers", Pos: true, Max: MaxLayers},
		field("teF", "t2u_encoder_ffn_dim", "8192", "its FFN width"),
		{Sym: "tdL", Field: "t2u_decoder_layers", Default: "6", Desc: "text-to-unit decoder layers", Pos: true, Max: MaxLayers},
		field("tdF", "t2u_decoder_ffn_dim", "8192", "its FFN width"),
		field("cV", "char_vocab_size", "10943", "the unit decoder's characters (v2)"),
		field("tvE", "t2u_variance_predictor_embed_dim", "1024", "the unit duration predictor's input (v2)"),
		field("tvH", "t2u_variance_predictor_hidden_dim", "256", "its width (v2)"),
		field("tvK", "t2u_variance_predictor_kernel_size", "3", "its kernel (v2)"),
		field("uV", "unit_hifi_gan_vocab_size", "10000", "the vocoder's units"),
		field("ued", "unit_embed_dim", "1280", "the vocoder's unit embedding"),
		field("led", "lang_embed_dim", "256", "its language embedding"),
		field("sed", "spkr_embed_dim", "256", "its speaker embedding"),
		field("nlang", "vocoder_num_langs", "36", "the vocoder's languages"),
		field("nspk", "vocoder_num_spkrs", "200", "the vocoder's speakers"),
		field("vpk", "variance_predictor_kernel_size", "3", "the vocoder's duration predictor kernel"),
		tie("true"),
	}
	return cat(d, hifiGanDefs(""))
}

// seamlessOwnEmbed: untied, the text encoder and decoder keep token
// embeddings of their own; transformers 4.x shares them with shared
// all the same (not saved), 5.x saves them.
const seamlessOwnEmbed = "!tied && tf5"

// seamlessAttn is SeamlessM4T's attention under pre: q, k, v, out_proj
// [H, H], biased.
func seamlessAttn(pre string) []T {
	return cat(linear(pre+"q_proj", "H", "H", "true"), linear(pre+"k_proj", "H", "H", "true"),
		linear(pre+"v_proj", "H", "H", "true"), linear(pre+"out_proj", "H", "H", "true"))
}

// seamlessLayer is a SeamlessM4T encoder (or, cross, decoder) layer of
// FFN width F.
func seamlessLayer(F string, cross bool) []T {
	ts := cat(seamlessAttn("self_attn."), norm("self_attn_layer_norm", "H", "true"))
	if cross {
		ts = cat(ts, seamlessAttn("cross_attention."), norm("cross_attention_layer_norm", "H", "true"))
	}
	return cat(ts, linear("ffn.fc1", F, "H", "true"), linear("ffn.fc2", "H", F, "true"), norm("ffn_layer_norm", "H", "true"))
}

// seamless is the SeamlessM4T(v2) class building parts p.
func seamless(v2 bool, class, mt string, p seamlessParts) *Family {
	f := &Family{Name: "SeamlessM4T", Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: seamlessDefs(v2), Embed: "shared.weight", Head: "lm_head.weight"}
	if v2 {
		f.Name = "SeamlessM4Tv2"
	}
	f.Global = []T{{Name: "shared.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding}}
	if p.text {
		f.Global = cat(f.Global, []T{{Name: "text_encoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: seamlessOwnEmbed}})
		f.Stacks = append(f.Stacks, Stack{Name: "text encoder", Prefix: "text_encoder.layers.{l}.", Layers: "eL", Tensors: seamlessLayer("eF", false)})
		f.Final = cat(f.Final, norm("text_encoder.layer_norm", "H", "true"))
	}
	if p.speech {
		se := "speech_encoder."
		f.Global = cat(f.Global, norm(se+"feature_projection.layer_norm", "fpi", "true"), linear(se+"feature_projection.projection", "H", "fpi", "true"),
			[]T{{Name: se + "encoder.embed_positions.inv_freq", Shape: []string{"(H/heads+1)/2"}, Role: RoleNorm, AnyDType: true, If: "pet == 'rotary'"}})
		f.Stacks = append(f.Stacks, Stack{Name: "speech encoder", Prefix: se + "encoder.layers.{l}.", Layers: "sL", Tensors: conformerLayer(v2)})
		f.Final = cat(f.Final, norm(se+"encoder.layer_norm", "H", "true"), ffn(se+"intermediate_ffn.", "H"),
			w2vBertAdapter(se), norm(se+"inner_layer_norm", "H", "true"))
	}
	f.Global = cat(f.Global, []T{{Name: "text_decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: seamlessOwnEmbed}})
	f.Stacks = append(f.Stacks, Stack{Prefix: "text_decoder.layers.{l}.", Layers: "L", Tensors: seamlessLayer("dF", true)})
	f.Final = cat(f.Final, norm("text_decoder.layer_norm", "H", "true"))
	if p.t2u {
		t := "t2u_model."
		f.Stacks = append(f.Stacks, Stack{Name: "unit encoder", Prefix: t + "model.encoder.layers.{l}.", Layers: "teL", Tensors: seamlessLayer("teF", false)})
		dec := seamlessLayer("tdF", true)
		if v2 {
			dec = cat(seamlessAttn("self_attn."), norm("self_attn_layer_norm", "H", "true"),
				conv1d3("conv1", "H", "H", "7", "true"), conv1d3("conv2", "H", "H", "7", "true"), norm("conv_layer_norm", "H", "true"))
		}
		f.Stacks = append(f.Stacks, Stack{Name: "unit decoder", Prefix: t + "model.decoder.layers.{l}.", Layers: "tdL", Tensors: dec})
		f.Final = cat(f.Final, norm(t+"model.encoder.layer_norm", "H", "true"),
			[]T{{Name: t + "model.decoder.embed_tokens.weight", Shape: []string{"tV", "H"}, Role: RoleEmbedding}},
			norm(t+"model.decoder.layer_norm", "H", "true"),
			[]T{{Name: t + "lm_head.weight", Shape: []string{"tV", "H"}, Role: RoleLinear, If: "!tied"}})
		if v2 {
			f.Final = cat(f.Final, []T{{Name: t + "model.decoder.embed_char.weight", Shape: []string{"cV", "H"}, Role: RoleEmbedding},
				{Name: t + "model.decoder.pos_emb_alpha", Shape: []string{"1"}, Role: RoleNorm},
				{Name: t + "model.decoder.pos_emb_alpha_char", Shape: []string{"1"}, Role: RoleNorm}},
				variancePredictor(t+"model.decoder.duration_predictor.", "tvE", "tvH", "tvK"))
		}
		g, fin, st := hifiGan("vocoder.hifi_gan.", "ued+led+sed")
		f.Stacks = append(f.Stacks, st)
		f.Final = cat(f.Final, g, fin, []T{{Name: "vocoder.unit_embedding.weight", Shape: []string{"uV", "ued"}, Role: RoleEmbedding},
			{Name: "vocoder.speaker_embedding.weight", Shape: []string{"nspk", "sed"}, Role: RoleEmbedding},
			{Name: "vocoder.language_embedding.weight", Shape: []string{"nlang", "led"}, Role: RoleEmbedding}},
			variancePredictor("vocoder.dur_predictor.", "ued", "ued", "vpk"))
	}
	return f
}

// seamlessFamily is SeamlessM4T (v2) with its classes: the model of
// every part, text-to-text, speech-to-text, text-to-speech and
// speech-to-speech, each the parts its class builds, the LM head tied to
// the shared embedding.
func seamlessFamily(v2 bool) *Family {
	class, mt := "SeamlessM4T", "seamless_m4t"
	if v2 {
		class, mt = "SeamlessM4Tv2", "seamless_m4t_v2"
	}
	head := []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}
	task := func(suffix string, p seamlessParts) Task {
		return Task{Suffix: suffix, Of: seamless(v2, class, mt, p), KeepFinal: true, Head: head, HeadName: "lm_head.weight"}
	}
	f := seamless(v2, class, mt, seamlessParts{true, true, true})
	f.Tasks = []Task{task(TaskBase, seamlessParts{true, true, true}),
		task("ForTextToText", seamlessParts{text: true}), task("ForSpeechToText", seamlessParts{speech: true}),
		task("ForTextToSpeech", seamlessParts{text: true, t2u: true}), task("ForSpeechToSpeech", seamlessParts{speech: true, t2u: true})}
	return f
}

var _ = register(func() *Family { return seamlessFamily(false) }, func() *Family { return seamlessFamily(true) })

// higgsAudioV2 is Higgs Audio v2 (transformers 5.x only): Llama's layers
// with a second, audio-token pre-norm, post-norm and gated MLP beside the
// text ones (the attention is shared), one embedding of every codebook's
// tokens (num_codebooks·codebook_size) and the audio head of the same
// width; the text head (use_text_head) is never built by the class
// transformers maps, and no weight is tied.
func higgsAudioV2() *Family {
	return &Family{Name: "Higgs Audio v2", Class: "HiggsAudioV2", ModelTypes: []string{"higgs_audio_v2"},
		Causal: "HiggsAudioV2ForConditionalGeneration", SeqCls: "-", Tasks: noTasks,
		Defs: cat(sized(llamaDims("128", "H/heads", "8", "heads"), "V", "128256", "H", "3072", "L", "28", "heads", "24", "I", "8192"),
			[]Def{attnBiasFlag, mlpBiasFlag,
				field("nc", "num_codebooks", "8", "audio codebooks"), field("cb", "codebook_size", "1024", "tokens per codebook")}),
		Global: cat(embed("model.embed_tokens.weight"),
			[]T{{Name: "model.embed_audio_tokens.embed_audio_tokens.weight", Shape: []string{"nc*cb", "H"}, Role: RoleEmbedding}}),
		Stacks: decoderLayers(nil, llamaBlock("attention_bias", "attention_bias", gatedMLP("mlp.", "I", "mlp_bias")),
			norm("audio_input_layernorm", "H", ""), norm("audio_post_attention_layernorm", "H", ""), gatedMLP("audio_mlp.", "I", "mlp_bias")),
		Final:  cat(norm("model.norm", "H", ""), []T{{Name: "audio_lm_head.weight", Shape: []string{"nc*cb", "H"}, Role: RoleHead}}),
		Ignore: []string{`^text_lm_head\.weight$`},
	}
}

var _ = register(higgsAudioV2)
