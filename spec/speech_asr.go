package spec

// Speech recognizers built on a language model: Granite Speech (a
// conformer CTC encoder and a Q-Former projector before any registered
// causal LM), Cohere ASR (a FastConformer encoder and a transformer
// decoder, in NeMo's names).

import (
	"slices"
	"strings"
)

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

// renameInfix is ts with every name's part from rewritten to to, pair
// by pair (a checkpoint format's names for a block's modules).
func renameInfix(ts []T, pairs ...string) []T {
	out := slices.Clone(ts)
	r := strings.NewReplacer(pairs...)
	for i := range out {
		out[i].Name = r.Replace(out[i].Name)
	}
	return out
}

// cohereAsr is Cohere's speech recognizer (transformers 5.x only):
// Parakeet's FastConformer encoder (encoder_config, defaulting to
// CohereAsrConfig's encoder defaults) and a post-norm transformer
// decoder with learned positions, its cross-attention reading the
// encoder states projected to the decoder width; the generation head
// proj_out is biased and tied to the token embedding where
// tie_word_embeddings. transformers saves it in NeMo's names (its
// conversion mapping reversed on save: pre_encode, linear_q,
// transf_decoder._decoder, first_sub_layer, log_softmax.mlp.layer0…),
// which are the names here.
func cohereAsr() *Family {
	g, s := parakeetEncoder("model.encoder.")
	nemo := []string{"subsampling.layers.", "pre_encode.conv.", "subsampling.linear.", "pre_encode.out.",
		"self_attn.q_proj.", "self_attn.linear_q.", "self_attn.k_proj.", "self_attn.linear_k.", "self_attn.v_proj.", "self_attn.linear_v.",
		"self_attn.o_proj.", "self_attn.linear_out.", "self_attn.relative_k_proj.", "self_attn.linear_pos.",
		"self_attn.bias_u", "self_attn.pos_bias_u", "self_attn.bias_v", "self_attn.pos_bias_v", "conv.norm.", "conv.batch_norm."}
	s.Name, s.Tensors = "encoder", renameInfix(s.Tensors, nemo...)
	enc := parakeetDefs("encoder_config.")
	for sym, x := range map[string]string{"pH": "1280", "pL": "48", "pI": "5120", "pmel": "128"} {
		enc = withDefault(enc, sym, x)
	}
	dec := "model.transf_decoder."
	att := func(pre string) []T {
		return cat(linear(pre+"query_net", "heads*d", "H", "attention_bias"), linear(pre+"key_net", "kv*d", "H", "attention_bias"),
			linear(pre+"value_net", "kv*d", "H", "attention_bias"), linear(pre+"out_projection", "H", "heads*d", "attention_bias"))
	}
	return &Family{Name: "Cohere ASR", Class: "CohereAsr", ModelTypes: []string{"cohere_asr"}, Causal: "CohereAsrForConditionalGeneration", SeqCls: "-",
		Defs: cat(sized(llamaDims("H/heads", "H/heads", "heads", "heads"), "V", "16384", "H", "1024", "L", "8", "heads", "8", "I", "4096"),
			[]Def{attnBiasFlag, field("P", "max_position_embeddings", "1024", "decoder positions"), tie("false")},
			withDefault(enc, "pab", "true")),
		Global: cat(renameInfix(g, nemo...),
			[]T{{Name: dec + "_embedding.token_embedding.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
				{Name: dec + "_embedding.position_embedding.pos_enc", Shape: []string{"P", "H"}, Role: RoleEmbedding}},
			norm(dec+"_embedding.layer_norm", "H", "true"), linear("model.encoder_decoder_proj", "H", "pH", "true")),
		Stacks: []Stack{s, {Name: "decoder", Prefix: dec + "_decoder.layers.{l}.", Layers: "L", Tensors: cat(
			norm("layer_norm_1", "H", "true"), att("first_sub_layer."), norm("layer_norm_2", "H", "true"), att("second_sub_layer."),
			norm("layer_norm_3", "H", "true"), linear("third_sub_layer.dense_in", "I", "H", "true"), linear("third_sub_layer.dense_out", "H", "I", "true"))}},
		Final: cat(norm(dec+"_decoder.final_layer_norm", "H", "true"),
			[]T{{Name: "log_softmax.mlp.layer0.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}, {Name: "log_softmax.mlp.layer0.bias", Shape: []string{"V"}, Role: RoleBias}}),
		Embed: dec + "_embedding.token_embedding.weight", Head: "log_softmax.mlp.layer0.weight", BasePrefix: "model.",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"}},
	}
}

var _ = register(cohereAsr)
