package spec

// Speech recognizers built on a language model: Granite Speech (a
// conformer CTC encoder and a Q-Former projector before any registered
// causal LM).

// graniteEncoderDefs are GraniteSpeechEncoderConfig's fields under cfg
// ("encoder_config."), symbols g….
func graniteEncoderDefs(cfg string) []Def {
	return []Def{
		{Sym: "gH", Field: cfg + "hidden_dim", Default: "1024", Legend: "gH", Desc: "speech encoder width", Show: true, Pos: true},
		{Sym: "gL", Field: cfg + "num_layers", Default: "10", Legend: "gL", Desc: "speech encoder (conformer) layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "gheads", Field: cfg + "num_heads", Default: "8", Desc: "speech encoder attention heads", Pos: true},
		field("gdh", cfg+"dim_head", "128", "width of one of its heads"),
		field("gin", cfg+"input_dim", "160", "input features"),
		field("gout", cfg+"output_dim", "42", "the mid-encoder CTC classes"),
		field("gff", cfg+"feedforward_mult", "4", "the feed-forwards' width multiple"),
		field("gmp", cfg+"max_pos_emb", "512", "relative positions each side"),
		field("gck", cfg+"conv_kernel_size", "15", "the depthwise kernel"),
		field("gce", cfg+"conv_expansion_factor", "2", "the convolution module's expansion"),
	}
}

// graniteEncoder is Granite Speech's CTC encoder under pre ("encoder."):
// an input linear, conformer blocks (two half-step feed-forwards,
// attention with a relative-position table, a GLU convolution module
// with a batch norm), and the mid-encoder CTC projection and its way
// back (out, out_mid).
func graniteEncoder(pre string) ([]T, Stack, []T) {
	ff := func(p string) []T {
		return cat(norm(p+"pre_norm", "gH", "true"), linear(p+"up_proj", "gH*gff", "gH", "true"), linear(p+"down_proj", "gH", "gH*gff", "true"))
	}
	in := "gH*gce"
	layer := cat(ff("ff1."),
		norm("attn.pre_norm", "gH", "true"), linear("attn.to_q", "gheads*gdh", "gH", ""), linear("attn.to_kv", "2*gheads*gdh", "gH", ""),
		linear("attn.to_out", "gH", "gheads*gdh", "true"),
		[]T{{Name: "attn.rel_pos_emb.weight", Shape: []string{"2*gmp+1", "gdh"}, Role: RoleEmbedding}},
		norm("conv.norm", "gH", "true"), conv1d3("conv.up_conv", "2*"+in, "gH", "1", "true"),
		conv1d3("conv.depth_conv.conv", in, "1", "gck", "false"), batchNorm("conv.batch_norm", in),
		conv1d3("conv.down_conv", "gH", in, "1", "true"),
		ff("ff2."), norm("post_norm", "gH", "true"))
	return linear(pre+"input_linear", "gH", "gin", "true"), Stack{Name: "speech encoder", Prefix: pre + "layers.{l}.", Layers: "gL", Tensors: layer},
		cat(linear(pre+"out", "gout", "gH", "true"), linear(pre+"out_mid", "gH", "gout", "true"))
}

// graniteSpeech is Granite Speech (and Granite Speech Plus, whose
// encoder's cat_hidden_layers changes no tensor): the encoder, a Q-Former
// (projector_config, BLIP-2's) over windows of window_size frames with
// window_size/downsample_rate learned queries, a linear to the language
// model text_config names (Granite by default), 4.x's layout
// (language_model.model., language_model.lm_head); the generation
// class of 5.x nests the base model once more.
func graniteSpeech(name, class, mt string) *Family {
	g, s, f := graniteEncoder("encoder.")
	q := "projector."
	return (&vlm{Family: Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: class + "ForConditionalGeneration",
		Defs: cat(graniteEncoderDefs("encoder_config."), underCfg(subDefs(qformerDefs, "qformer_config."), "projector_config."), []Def{
			field("gws", "window_size", "15", "frames per Q-Former window"),
			field("gdr", "downsample_rate", "5", "frames per query"),
		}),
		Global:   cat(g, []T{{Name: q + "query", Shape: []string{"1", "gws/gdr", "Q"}, Role: RoleEmbedding}}),
		Stacks:   []Stack{s, qformerStack(q+"qformer.", "qText")},
		Final:    cat(f, norm(q+"qformer.layernorm", "Q", "true"), linear(q+"linear", "H", "Q", "true")),
		Variants: [][][2]string{{{"language_model.model.", "language_model.model.model."}}}},
		text: "granite", reroot: legacyLM, tasks: []Task{}}).register()
}

var _ = register(func() *Family { return graniteSpeech("Granite Speech", "GraniteSpeech", "granite_speech") },
	func() *Family {
		return graniteSpeech("Granite Speech Plus", "GraniteSpeechPlus", "granite_speech_plus")
	})

// kyutaiSTT is Kyutai's speech-to-text model: Moshi's text decoder
// (projections under .linear, a gated fc1 [ffn, H] feeding fc2
// [H, ffn/2]) whose embedding also holds every codebook's audio tokens
// and the audio padding token; the generation class holds the codec
// (codec_config, Mimi) under codec_model.
func kyutaiSTT() *Family {
	f := &Family{Name: "Kyutai STT", Class: "KyutaiSpeechToText", ModelTypes: []string{"kyutai_speech_to_text"},
		Causal: "KyutaiSpeechToTextForConditionalGeneration", SeqCls: "-",
		Defs: cat(sized(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "ffn_dim"), "V", "4001", "H", "2048", "L", "48", "heads", "32", "I", "11264"),
			[]Def{{Sym: "d", Field: "head_dim", Default: "H/heads", Null: "H/heads", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
				kvDef("num_key_value_heads", "heads", "heads"),
				field("nc", "num_codebooks", "32", "audio codebooks"), field("cv", "codebook_vocab_size", "2049", "tokens per codebook"),
				tie("false")}),
		Global: []T{{Name: "model.embed_tokens.embed_tokens.weight", Shape: []string{"V+nc*cv+1", "H"}, Role: RoleEmbedding}},
		Stacks: decoderLayers(nil, inNorm, linear("self_attn.q_proj.linear", "heads*d", "H", ""), linear("self_attn.k_proj.linear", "kv*d", "H", ""),
			linear("self_attn.v_proj.linear", "kv*d", "H", ""), linear("self_attn.o_proj.linear", "H", "heads*d", ""),
			postNorm, linear("mlp.fc1", "I", "H", ""), linear("mlp.fc2", "H", "I/2", "")),
		Final: cat(norm("model.norm", "H", ""), []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}),
		Embed: "model.embed_tokens.embed_tokens.weight",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"}}}
	return (&withSub{base: f, cfg: "codec_config.", pre: "codec_model.", mt: "mimi", sym: "c_",
		with: []string{"KyutaiSpeechToTextForConditionalGeneration"}}).register()
}

var _ = register(kyutaiSTT)
