package spec

import (
	"strings"
)

// Speech and audio models: Whisper's decoder, MusicGen, Moshi.

// musicgen is the MusicGen decoder: one embedding [V+1, H] and one head
// [V, H] per codebook, no biases but the norms', no positions written.
func musicgen(name, class, mt string, cross bool) *Family {
	return &Family{Name: name, Class: class, ConfigClass: class + "DecoderConfig", ModelTypes: []string{mt}, SeqCls: "-",
		Defs: cat(s2sDefs("vocab_size=2048", "hidden_size=1024", "num_hidden_layers=24", "ffn_dim=4096"), []Def{
			{Sym: "CB", Field: "num_codebooks", Default: "4", Legend: "CB", Desc: "parallel codebooks", Show: true, Pos: true},
			tie("false")}),
		Global: []T{{Name: "model.decoder.embed_tokens.{e}.weight", Shape: []string{"V+1", "H"}, Role: RoleEmbedding, Experts: "CB"}},
		Stacks: []Stack{{Prefix: "model.decoder.layers.{l}.", Layers: "L", Tensors: s2sLayer(cross, "", "", "")}},
		Final:  cat(finalLN, []T{{Name: "lm_heads.{e}.weight", Shape: []string{"V", "H"}, Role: RoleHead, Experts: "CB", If: "causal"}}),
		Embed:  "model.decoder.embed_tokens.0.weight", Head: "lm_heads.0.weight",
	}
}

var _ = register(
	// Moshi's text decoder: an extra embedding row, gated fc1 [ffn, H]
	// feeding fc2 [H, ffn/2], projections under .linear.
	func() *Family {
		return std("Moshi", "Moshi", []string{"moshi"},
			cat(withDefault(dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "ffn_dim"), "I", "22528"),
				[]Def{{Sym: "d", Field: "head_dim", Default: "H/heads", Null: "H/heads", Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
					kvDef("num_key_value_heads", "heads", "heads"), tie("false")}), nil,
			inNorm, linear("self_attn.q_proj.linear", "heads*d", "H", ""), linear("self_attn.k_proj.linear", "kv*d", "H", ""),
			linear("self_attn.v_proj.linear", "kv*d", "H", ""), linear("self_attn.o_proj.linear", "H", "heads*d", ""),
			postNorm, linear("mlp.fc1", "I", "H", ""), linear("mlp.fc2", "H", "I/2", "")).
			with(func(f *Family) {
				f.SeqCls = "-"
				f.Global = []T{{Name: "model.embed_tokens.weight", Shape: []string{"V+1", "H"}, Role: RoleEmbedding}}
				f.Final = cat(norm("model.norm", "H", ""), []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}})
			})
	},
	// Whisper: k_proj has no bias; positions [max_target_positions, H].
	func() *Family {
		return func() *Family {
			f := seq2seqDecoder("Whisper", "Whisper", "whisper", cat(s2sDefs("vocab_size=51865", "d_model=384", "decoder_layers=4", "decoder_ffn_dim=1536"), []Def{posDef("max_target_positions", "448")}),
				decoderPositions("P"), s2sLayer(true, "true", "", "true"), finalLN)
			f.Final = cat(finalLN, lmHead("proj_out.weight"))
			f.Head = "proj_out.weight"
			return f
		}()
	},
	func() *Family { return musicgen("MusicGen", "Musicgen", "musicgen_decoder", true) },
	func() *Family { return musicgen("MusicGen-Melody", "MusicgenMelody", "musicgen_melody_decoder", false) },
)

// wav2vec2 and its lineage (blocks_speech.go): the base model, the CTC
// head, the utterance, frame and x-vector classifiers, the pretraining
// heads.

var _ = register(
	func() *Family {
		return speechEncoder{Name: "wav2vec2", Class: "Wav2Vec2", ModelType: "wav2vec2", Base: "wav2vec2.", Defs: w2vDefs("", ""),
			Global: w2vGlobal("wav2vec2."), Layer: w2vLayer(nil, true), Final: w2vAdapter("wav2vec2."),
			Heads: speechHeads{CTCIn: "adapter ? OH : H", Frame: true, XVector: true, MaskedLM: true, PreTrain: w2vPreTraining()}}.family()
	},
	func() *Family {
		return speechEncoder{Name: "HuBERT", Class: "Hubert", ModelType: "hubert", Base: "hubert.", Defs: w2vDefs("feat_proj_layer_norm", "conv_pos_batch_norm"),
			Global: w2vGlobal("hubert."), Layer: w2vLayer(nil, true), Final: w2vAdapter("hubert."),
			Heads: speechHeads{CTCIn: "adapter ? OH : H"}}.family()
	},
	// UniSpeech: wav2vec2's base model; its pretraining head projects the
	// quantized vectors back to hidden_size and adds a phoneme CTC head.
	func() *Family {
		return speechEncoder{Name: "UniSpeech", Class: "UniSpeech", ModelType: "unispeech", Base: "unispeech.",
			Defs:   append(w2vDefs("", ""), field("nctc", "num_ctc_classes", "80", "the pretraining CTC head's classes")),
			Global: w2vGlobal("unispeech."), Layer: w2vLayer(nil, true),
			Heads: speechHeads{PreTrain: cat(quantizer("C0"), linear("project_q", "pcd", "cvd", "true"), linear("project_hid", "H", "pcd", "true"),
				linear("ctc_proj", "nctc", "H", "true"))}}.family()
	},
	// UniSpeech-SAT: its mask vector always exists; its quantizer reads
	// the encoder's output; speaker projection and cluster embeddings.
	func() *Family {
		return speechEncoder{Name: "UniSpeech-SAT", Class: "UniSpeechSat", ModelType: "unispeech-sat", Base: "unispeech_sat.",
			Defs: append(w2vDefs("", ""), field("ncl", "num_clusters", "504", "the pretraining's speaker clusters")),
			Global: cat(convFeatures("unispeech_sat.feature_extractor."), featProjection("unispeech_sat.feature_projection."),
				maskedSpecEmbed("unispeech_sat.", ""), posConvWN("unispeech_sat.encoder.pos_conv_embed."), norm("unispeech_sat.encoder.layer_norm", "H", "true")),
			Layer: w2vLayer(nil, true),
			Heads: speechHeads{Frame: true, XVector: true, PreTrain: cat(quantizer("H"), linear("project_hid", "pcd", "H", "true"), linear("project_q", "pcd", "cvd", "true"),
				linear("speaker_proj", "cvd", "H", "true"), norm("layer_norm_for_extract", "H", "true"),
				[]T{{Name: "label_embeddings_concat", Shape: []string{"ncl", "cvd"}, Role: RoleNorm, AnyDType: true}}), PreTrainFP32: true}}.family()
	},
	// WavLM: gated relative position bias in every layer's attention, the
	// bucket embedding in the first layer's only.
	func() *Family {
		return speechEncoder{Name: "WavLM", Class: "WavLM", ModelType: "wavlm", Base: "wavlm.",
			Defs:   append(w2vDefs("", ""), field("nbk", "num_buckets", "320", "relative position buckets")),
			Global: w2vGlobal("wavlm."),
			Layer: w2vLayer(cat(w2vAttn("attention."),
				[]T{{Name: "attention.gru_rel_pos_const", Shape: []string{"1", "heads", "1", "1"}, Role: RoleNorm}},
				linear("attention.gru_rel_pos_linear", "8", "H/heads", "true"),
				[]T{{Name: "attention.rel_attn_embed.weight", Shape: []string{"nbk", "heads"}, Role: RoleEmbedding, If: "l == 0"}}), false),
			Final: w2vAdapter("wavlm."),
			Heads: speechHeads{CTCIn: "adapter ? OH : H", Frame: true, XVector: true}}.family()
	},
	// Data2VecAudio: layer-normed convolutions throughout, and a stack of
	// num_conv_pos_embeddings plain positional convolutions.
	func() *Family {
		return speechEncoder{Name: "Data2VecAudio", Class: "Data2VecAudio", ModelType: "data2vec-audio", Base: "data2vec_audio.",
			Defs: cat(withDefault(replaceDef(w2vDefs("", ""), derived("fen", "'layer'")), "pk", "5"),
				[]Def{field("cpk", "conv_pos_kernel_size", "19", "the positional convolutions' kernel")}),
			Global: cat(convFeatures("data2vec_audio.feature_extractor."), featProjection("data2vec_audio.feature_projection."),
				maskedSpecEmbed("data2vec_audio.", maskCond),
				[]T{{Name: "data2vec_audio.encoder.pos_conv_embed.layers.{e}.conv.weight", Shape: []string{"H", "H/pg", "cpk"}, Role: RoleLinear, Experts: "pk"},
					{Name: "data2vec_audio.encoder.pos_conv_embed.layers.{e}.conv.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "pk"}},
				norm("data2vec_audio.encoder.layer_norm", "H", "true")),
			Layer: w2vLayer(nil, false), Final: w2vAdapter("data2vec_audio."), Variants: [][][2]string{},
			Heads: speechHeads{CTCIn: "adapter ? OH : H", Frame: true, XVector: true}}.family()
	},
	// SEW: a layer norm over the extractor's features, a projection only
	// where conv_dim[-1] differs from hidden_size, and an encoder that
	// squeezes the sequence and upsamples it back.
	func() *Family {
		return speechEncoder{Name: "SEW", Class: "SEW", ModelType: "sew", Base: "sew.", Defs: sewDefs(),
			Global: cat(convFeatures("sew.feature_extractor."), norm("sew.layer_norm", "C0", "true"),
				when("C0 != H", linear("sew.feature_projection", "H", "C0", "true")), maskedSpecEmbed("sew.", maskCond),
				posConvWN("sew.encoder.pos_conv_embed."), norm("sew.encoder.layer_norm", "H", "true"),
				linear("sew.encoder.upsample.projection", "H*sq", "H", "true")),
			Layer: w2vLayer(nil, false), Heads: speechHeads{}}.family()
	},
	// SEW-D: SEW with DeBERTa-v2's disentangled-attention layers.
	func() *Family {
		return speechEncoder{Name: "SEW-D", Class: "SEWD", ModelType: "sew-d", Base: "sew_d.",
			Defs: cat(sewDefs(), disentangledDefs("true", "256", "list('p2c', 'c2p')", "true", "'layer_norm'")),
			Global: cat(convFeatures("sew_d.feature_extractor."), norm("sew_d.layer_norm", "C0", "true"),
				when("C0 != H", linear("sew_d.feature_projection", "H", "C0", "true")), maskedSpecEmbed("sew_d.", maskCond),
				posConvWN("sew_d.encoder.pos_conv_embed.")),
			LayerPrefix: "encoder.encoder.layer.{l}.", Layer: disentangledLayer(),
			Final: cat(disentangledFinal("sew_d.encoder.encoder."), linear("sew_d.encoder.upsample.projection", "H*sq", "H", "true")),
			Heads: speechHeads{}}.family()
	},
	// wav2vec2-conformer: wav2vec2's extractor and positional convolution
	// before conformer layers; rotary positions keep inv_freq.
	func() *Family {
		return speechEncoder{Name: "wav2vec2-conformer", Class: "Wav2Vec2Conformer", ModelType: "wav2vec2-conformer", Base: "wav2vec2_conformer.",
			Defs: conformerDefs(w2vDefs("", ""), "'relative'"),
			Global: cat(w2vGlobal("wav2vec2_conformer."),
				[]T{{Name: "wav2vec2_conformer.encoder.embed_positions.inv_freq", Shape: []string{"(H/heads+1)/2"}, Role: RoleNorm, AnyDType: true, If: "pet == 'rotary'"}}),
			Layer: conformerLayer(false), Final: w2vAdapter("wav2vec2_conformer."),
			Heads: speechHeads{CTCIn: "adapter ? OH : H", Frame: true, XVector: true, PreTrain: w2vPreTraining()}}.family()
	},
	// W2V-BERT: log-mel features projected from feature_projection_input_dim,
	// conformer layers with a depthwise layer norm, no encoder norm; its
	// adapter layers attend.
	func() *Family {
		return speechEncoder{Name: "W2V-BERT", Class: "Wav2Vec2Bert", ModelType: "wav2vec2-bert", Base: "wav2vec2_bert.", Defs: w2vBertDefs(),
			Global: cat(norm("wav2vec2_bert.feature_projection.layer_norm", "fpi", "true"), linear("wav2vec2_bert.feature_projection.projection", "H", "fpi", "true"),
				maskedSpecEmbed("wav2vec2_bert.", maskCond)),
			Layer:    conformerLayer(true),
			Final:    cat(w2vBertAdapter("wav2vec2_bert."), when("iffn", ffn("wav2vec2_bert.intermediate_ffn.", "H"))),
			Variants: [][][2]string{}, Embed: "wav2vec2_bert.feature_projection.projection.weight",
			Heads: speechHeads{CTCIn: "adapter ? OH : H", Frame: true, XVector: true}}.family()
	},
)

// w2vBertDefs are Wav2Vec2BertConfig's fields.
func w2vBertDefs() []Def {
	d := cat(trunk("32", "1024", "24", "encoder layers"), []Def{
		encHeads("num_attention_heads", "16"), inner("intermediate_size", "4096"),
		field("fpi", "feature_projection_input_dim", "160", "input features (log-mel bins × stride)"),
		{Sym: "mtp", Field: "mask_time_prob", Type: Milli, Default: "50", Desc: "time-masking probability (×1000)"},
		{Sym: "mfp", Field: "mask_feature_prob", Type: Milli, Default: "0", Desc: "feature-masking probability (×1000)"},
		flag("adapter", "add_adapter", "false", "an adapter after the encoder"),
		{Sym: "OH", Field: "output_hidden_size", Default: "H", Null: "H", Desc: "the adapter's width", Pos: true},
		{Sym: "nad", Field: "num_adapter_layers", Default: "1", Desc: "adapter layers"},
		{Sym: "ak", Field: "adapter_kernel_size", Default: "3", Desc: "adapter kernel", Pos: true},
		flag("iffn", "use_intermediate_ffn_before_adapter", "false", "a feed-forward before the adapter"),
		{Sym: "cps", Field: "classifier_proj_size", Default: "768", Desc: "the utterance classifier's projection", Pos: true},
		flag("wls", "use_weighted_layer_sum", "false", "the classifier mixes every layer's output"),
		{Sym: "tdd", Field: "tdnn_dim", Type: List, Default: "list(512, 512, 512, 512, 1500)", Desc: "the x-vector head's TDNN widths"},
		{Sym: "tdk", Field: "tdnn_kernel", Type: List, Default: "list(5, 3, 3, 1, 1)", Desc: "the x-vector head's TDNN kernels"},
		{Sym: "xvo", Field: "xvector_output_dim", Default: "512", Desc: "the x-vector width", Pos: true},
	})
	return conformerDefs(d, "'relative_key'")
}

// sewDefs are SEWConfig's fields.
func sewDefs() []Def {
	d := withDefault(w2vDefs("", ""), "cd", "list(64, 128, 128, 128, 128, 256, 256, 256, 256, 512, 512, 512, 512)")
	d = withDefault(d, "ck", "list(10, 3, 1, 3, 1, 3, 1, 3, 1, 2, 1, 2, 1)")
	return append(d, field("sq", "squeeze_factor", "2", "the encoder's sequence squeeze"))
}

// Whisper in full (WhisperModel, WhisperForConditionalGeneration) and its
// encoder's audio classifier, from the decoder family of model_type
// whisper (WhisperForCausalLM): a two-convolution feature extractor over
// num_mel_bins, max_source_positions learned positions, the decoder's
// layer without cross-attention (k_proj unbiased), and a final norm.

func whisperFull() *Family {
	extra := []Def{
		{Sym: "mel", Field: "num_mel_bins", Default: "80", Legend: "mel", Desc: "log-mel input channels", Show: true, Pos: true},
		{Sym: "Ps", Field: "max_source_positions", Default: "1500", Desc: "encoder positions (audio frames / 2)", Pos: true},
		{Sym: "cps", Field: "classifier_proj_size", Default: "256", Desc: "the audio classifier's projection", Pos: true},
		flag("wls", "use_weighted_layer_sum", "false", "the classifier mixes every layer's output"),
	}
	f := s2sFull(familyOf("whisper"), false, extra...)
	var dec []T
	for _, t := range f.Global {
		if strings.HasPrefix(t.Name, "model.decoder.") {
			dec = append(dec, t)
		}
	}
	f.Global = cat([]T{{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
		{Name: "model.encoder.conv1.weight", Shape: []string{"H", "mel", "3"}, Role: RoleLinear},
		{Name: "model.encoder.conv1.bias", Shape: []string{"H"}, Role: RoleBias},
		{Name: "model.encoder.conv2.weight", Shape: []string{"H", "H", "3"}, Role: RoleLinear},
		{Name: "model.encoder.conv2.bias", Shape: []string{"H"}, Role: RoleBias},
		{Name: "model.encoder.embed_positions.weight", Shape: []string{"Ps", "H"}, Role: RoleEmbedding}}, dec)
	f.Embed, f.Head = "model.decoder.embed_tokens.weight", "proj_out.weight"
	return f
}

// encoderOnly is f's encoder alone under "encoder." (Whisper's audio
// classifier).
func encoderOnly(f *Family) *Family {
	g := &Family{Name: f.Name, Class: f.Class, ConfigClass: f.configClass(), ModelTypes: f.ModelTypes, Causal: "-", SeqCls: "-",
		Defs: f.Defs, Embed: "encoder.conv1.weight", Head: "-"}
	re := func(ts []T) []T {
		var out []T
		for _, t := range ts {
			if strings.HasPrefix(t.Name, "model.encoder.") {
				t.Name = strings.TrimPrefix(t.Name, "model.")
				out = append(out, t)
			}
		}
		return out
	}
	g.Global, g.Final = re(f.Global), re(f.Final)
	s := f.Stacks[0]
	s.Prefix = strings.TrimPrefix(s.Prefix, "model.")
	g.Stacks = []Stack{s}
	return g
}

func init() {
	full := whisperFull()
	classTasks["Whisper"] = []Task{
		{Suffix: TaskBase, Prefix: "-", Of: full},
		{Suffix: "ForConditionalGeneration", Of: full, HeadName: "proj_out.weight", Head: []T{
			{Name: "proj_out.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}},
		{Suffix: "ForAudioClassification", Of: encoderOnly(full), KeepFinal: true, Labels: true, Head: cat(
			[]T{{Name: "layer_weights", Shape: []string{"Le+1"}, Role: RoleNorm, If: "wls"}},
			linear("projector", "cps", "H", "true"), linear("classifier", "C", "cps", "true"))},
	}
}

// The Audio Spectrogram Transformer: a ViT (blocks_vision.go's layer)
// over a log-mel spectrogram's patches with CLS and distillation tokens;
// its classifier is a layer norm and a dense layer.
func astFamily() *Family {
	vit := vitEncoder("AST", "audio_spectrogram_transformer.", "", 2)
	pre := "audio_spectrogram_transformer."
	return &Family{Name: "AST", Class: "AST", ConfigClass: "ASTConfig", ModelTypes: []string{"audio-spectrogram-transformer"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "H", Field: "hidden_size", Default: "768", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "L", Field: "num_hidden_layers", Default: "12", Legend: "L", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
			encHeads("num_attention_heads", "12"),
			{Sym: "I", Field: "intermediate_size", Default: "3072", Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
			{Sym: "eP", Field: "patch_size", Default: "16", Desc: "patch side", Pos: true},
			flag("eqkv", "qkv_bias", "true", "query, key, value have biases"),
			{Sym: "fs", Field: "frequency_stride", Default: "10", Desc: "patch stride over frequency", Pos: true},
			{Sym: "ts", Field: "time_stride", Default: "10", Desc: "patch stride over time", Pos: true},
			{Sym: "ml", Field: "max_length", Default: "1024", Desc: "spectrogram frames", Pos: true},
			{Sym: "mel", Field: "num_mel_bins", Default: "128", Desc: "mel bins", Pos: true},
			derived("npatch", "((mel-eP)/fs+1)*((ml-eP)/ts+1)"),
		},
		Global: []T{{Name: pre + "embeddings.cls_token", Shape: []string{"1", "1", "H"}, Role: RoleEmbedding},
			{Name: pre + "embeddings.distillation_token", Shape: []string{"1", "1", "H"}, Role: RoleEmbedding},
			{Name: pre + "embeddings.patch_embeddings.projection.weight", Shape: []string{"H", "1", "eP", "eP"}, Role: RoleLinear},
			{Name: pre + "embeddings.patch_embeddings.projection.bias", Shape: []string{"H"}, Role: RoleBias},
			{Name: pre + "embeddings.position_embeddings", Shape: []string{"1", "npatch+2", "H"}, Role: RoleEmbedding}},
		Stacks: []Stack{{Prefix: pre + "encoder.layer.{l}.", Layers: "L", Tensors: renameSyms(vit.Stacks[0].Tensors, "eH", "H", "eI", "I")}},
		Final:  norm(pre+"layernorm", "H", "true"),
		Embed:  pre + "embeddings.patch_embeddings.projection.weight", Head: "-",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForAudioClassification", Labels: true, Head: cat(norm("classifier.layernorm", "H", "true"), linear("classifier.dense", "C", "H", "true"))}},
	}
}

// M-CTC-T: a GLU convolution over log-mel features, BERT-like layers
// without biases whose attention has its own head width and a
// relative-distance embedding, a scalar layer norm, a CTC head.
func mctctFamily() *Family {
	return &Family{Name: "M-CTC-T", Class: "MCTCT", ModelTypes: []string{"mctct"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunk("8065", "1536", "36", "encoder layers"), []Def{
			encHeads("num_attention_heads", "4"), inner("intermediate_size", "6144"),
			field("ad", "attention_head_dim", "384", "width of one attention head"),
			field("P", "max_position_embeddings", "920", "positions"),
			field("ncl", "num_conv_layers", "1", "GLU convolutions"),
			{Sym: "ck", Field: "conv_kernel", Type: List, Default: "list(7)", Desc: "their kernels"},
			list("cc", "conv_channels", "their inner channels"),
			field("fpc", "input_feat_per_channel", "80", "input features per channel"),
			field("ich", "input_channels", "1", "input channels"),
		}),
		Global: []T{{Name: "mctct.encoder.conv.conv_layers.{e}.weight", Shape: []string{"e < ncl-1 ? at(cc, e) : 2*H", "e == 0 ? fpc*ich : at(cc, e)", "at(ck, e)"}, Role: RoleLinear, Experts: "len(ck)", PerCopy: true},
			{Name: "mctct.encoder.conv.conv_layers.{e}.bias", Shape: []string{"e < ncl-1 ? at(cc, e) : 2*H"}, Role: RoleBias, Experts: "len(ck)", PerCopy: true},
			{Name: "mctct.encoder.layer_norm.singleton_weight", Shape: []string{"1"}, Role: RoleNorm},
			{Name: "mctct.encoder.layer_norm.singleton_bias", Shape: []string{"1"}, Role: RoleNorm}},
		Stacks: []Stack{{Prefix: "mctct.encoder.layers.{l}.", Layers: "L", Tensors: cat(
			linear("attention.self.query", "heads*ad", "H", ""), linear("attention.self.key", "heads*ad", "H", ""),
			linear("attention.self.value", "heads*ad", "H", ""),
			[]T{{Name: "attention.self.distance_embedding.weight", Shape: []string{"2*P-1", "ad"}, Role: RoleEmbedding}},
			linear("attention.output.dense", "H", "H", ""), norm("attention.output.LayerNorm", "H", "true"),
			linear("intermediate.dense", "I", "H", ""), linear("output.dense", "H", "I", ""), norm("output.LayerNorm", "H", "true"))}},
		Embed: "mctct.encoder.conv.conv_layers.0.weight", Head: "-",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"}, {Suffix: "ForCTC", Head: linear("ctc_head", "V", "H", "true")}},
	}
}

var _ = register(astFamily, mctctFamily)

// Moonshine: a three-convolution front end over the waveform, a
// pre-norm encoder (norms without biases, plain MLP), a decoder with
// cross-attention and a doubled (gated) fc1, and proj_out tied to the
// token embedding by default.
func moonshineFamily() *Family {
	attn := func(pre, heads, kv, d string) []T {
		return cat(linear(pre+"q_proj", heads+"*"+d, "H", "ab"), linear(pre+"k_proj", kv+"*"+d, "H", "ab"),
			linear(pre+"v_proj", kv+"*"+d, "H", "ab"), linear(pre+"o_proj", "H", heads+"*"+d, ""))
	}
	return &Family{Name: "Moonshine", Class: "Moonshine", ModelTypes: []string{"moonshine"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "V", Field: "vocab_size", Default: "32768", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "hidden_size", Default: "288", Legend: "H", Desc: "width", Show: true, Pos: true},
			inner("intermediate_size", "1152"),
			{Sym: "eL", Field: "encoder_num_hidden_layers", Default: "6", Legend: "eL", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "L", Field: "decoder_num_hidden_layers", Default: "6", Legend: "L", Desc: "decoder layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "eh", Field: "encoder_num_attention_heads", Default: "8", Desc: "encoder attention heads", Pos: true},
			{Sym: "dh", Field: "decoder_num_attention_heads", Default: "8", Desc: "decoder attention heads", Pos: true},
			{Sym: "ekv", Field: "encoder_num_key_value_heads", Default: "eh", Null: "eh", Desc: "encoder key/value heads", Pos: true},
			{Sym: "dkv", Field: "decoder_num_key_value_heads", Default: "dh", Null: "dh", Desc: "decoder key/value heads", Pos: true},
			{Sym: "ed", Field: "head_dim", Default: "H/eh", Null: "H/eh", Desc: "encoder head width", Pos: true},
			{Sym: "dd", Field: "head_dim", Default: "H/dh", Null: "H/dh", Desc: "decoder head width", Pos: true},
			flag("ab", "attention_bias", "false", "q, k, v have biases"),
			tie("true"),
		},
		Global: cat([]T{{Name: "model.encoder.conv1.weight", Shape: []string{"H", "1", "127"}, Role: RoleLinear},
			{Name: "model.encoder.conv2.weight", Shape: []string{"2*H", "H", "7"}, Role: RoleLinear}, {Name: "model.encoder.conv2.bias", Shape: []string{"2*H"}, Role: RoleBias},
			{Name: "model.encoder.conv3.weight", Shape: []string{"H", "2*H", "3"}, Role: RoleLinear}, {Name: "model.encoder.conv3.bias", Shape: []string{"H"}, Role: RoleBias}},
			norm("model.encoder.groupnorm", "H", "true"), embed("model.decoder.embed_tokens.weight")),
		Stacks: []Stack{
			{Name: "encoder", Prefix: "model.encoder.layers.{l}.", Layers: "eL", Tensors: cat(norm("input_layernorm", "H", ""), attn("self_attn.", "eh", "ekv", "ed"),
				norm("post_attention_layernorm", "H", ""), linear("mlp.fc1", "I", "H", "true"), linear("mlp.fc2", "H", "I", "true"))},
			{Prefix: "model.decoder.layers.{l}.", Layers: "L", Tensors: cat(norm("input_layernorm", "H", ""), attn("self_attn.", "dh", "dkv", "dd"),
				norm("post_attention_layernorm", "H", ""), attn("encoder_attn.", "dh", "dkv", "dd"), norm("final_layernorm", "H", ""),
				linear("mlp.fc1", "2*I", "H", "true"), linear("mlp.fc2", "H", "I", "true"))}},
		Final: cat(norm("model.encoder.layer_norm", "H", ""), norm("model.decoder.norm", "H", "")),
		Embed: "model.decoder.embed_tokens.weight", Head: "-",
		Tasks: []Task{{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForConditionalGeneration", HeadName: "proj_out.weight", Head: []T{{Name: "proj_out.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}}},
	}
}

var _ = register(moonshineFamily)

// Qwen2-Audio: a Whisper-like encoder (Qwen2AudioEncoder, also a class
// of its own), a linear projector and the language model text_config
// names, kept under language_model (4.x's layout; 5.15 writes its base
// model under language_model.model.model.).
func qwen2Audio() (*Family, *Family) {
	enc := audioEncoder("Qwen2-Audio encoder", "Qwen2AudioEncoder", "qwen2_audio_encoder")
	g, s, f := whisperEncoder("audio_tower.", "audio")
	full := (&vlm{Family: Family{Name: "Qwen2-Audio", Class: "Qwen2Audio", ModelTypes: []string{"qwen2_audio"}, Causal: "Qwen2AudioForConditionalGeneration",
		Defs: whisperEncoderDefs("audio_config."), Global: g, Stacks: []Stack{s},
		Final:    cat(f, linear("multi_modal_projector.linear", "H", "aH", "true")),
		Variants: [][][2]string{{{"language_model.model.", "language_model.model.model."}}}},
		text: "qwen2", reroot: legacyLM}).register()
	return enc, full
}

var _ = registerGroup(results2(qwen2Audio))

// audioEncoder is a Whisper-like audio encoder class of its own
// (VoxtralEncoder, AudioFlamingo3Encoder).
func audioEncoder(name, class, mt string) *Family {
	return encoderAlone(name, class, mt, "conv1.weight", whisperEncoderDefs(""), whisperEncoder)
}

// encoderAlone is an audio encoder saved as a model of its own (class
// = the checkpoint's whole class): build's tensors at the root, its
// config's fields at the top level (defs), embed its first tensor.
func encoderAlone(name, class, mt, embed string, defs []Def, build func(pre, stack string) ([]T, Stack, []T)) *Family {
	g, s, f := build("", "")
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: defs, Global: g, Stacks: []Stack{s}, Final: f, Embed: embed, Head: "-",
		Tasks: []Task{{Suffix: "", KeepFinal: true}}}
}

var _ = register(func() *Family { return audioEncoder("Voxtral encoder", "VoxtralEncoder", "voxtral_encoder") },
	func() *Family {
		return audioEncoder("Audio Flamingo 3 encoder", "AudioFlamingo3Encoder", "audioflamingo3_encoder")
	})

// Parakeet: the FastConformer encoder alone (ParakeetEncoder) and with
// a CTC head, a 1×1 convolution to the vocabulary.
func parakeet() (*Family, *Family) {
	g, s := parakeetEncoder("")
	enc := &Family{Name: "Parakeet encoder", Class: "ParakeetEncoder", ModelTypes: []string{"parakeet_encoder"}, Causal: "-", SeqCls: "-",
		Defs: parakeetDefs(""), Global: g, Stacks: []Stack{s}, Embed: "subsampling.linear.weight", Head: "-",
		Tasks: []Task{{Suffix: "", KeepFinal: true}}}
	g, s = parakeetEncoder("encoder.")
	ctc := &Family{Name: "Parakeet CTC", Class: "Parakeet", ConfigClass: "ParakeetCTCConfig", ModelTypes: []string{"parakeet_ctc"}, Causal: "-", SeqCls: "-",
		Defs:   append(parakeetDefs("encoder_config."), Def{Sym: "V", Field: "vocab_size", Default: "1025", Legend: "V", Desc: "CTC classes", Show: true, Pos: true}),
		Global: g, Stacks: []Stack{s}, Embed: "encoder.subsampling.linear.weight", Head: "-",
		Final: []T{{Name: "ctc_head.weight", Shape: []string{"V", "pH", "1"}, Role: RoleLinear}, {Name: "ctc_head.bias", Shape: []string{"V"}, Role: RoleBias}},
		Tasks: []Task{{Suffix: "ForCTC", KeepFinal: true}}}
	return enc, ctc
}

var _ = registerGroup(results2(parakeet))

// Parakeet RNN-T and TDT: the FastConformer encoder, a projection to the
// prediction network's width, an LSTM prediction network over token
// embeddings, and the joint network's head (TDT's also predicts
// len(durations) durations).
func parakeetTransducer(name, class, cfgClass, mt string, tdt bool) *Family {
	return transducer(name, class, cfgClass, mt, "8193", tdt, false)
}

// transducer is an RNN-T (TDT where tdt) over the FastConformer encoder,
// Nemotron's streaming one where nemotron, with V's default vocab.
func transducer(name, class, cfgClass, mt, vocab string, tdt, nemotron bool) *Family {
	g, s := fastConformer("encoder.", nemotron)
	out := "V"
	defs := parakeetDefs("encoder_config.")
	if nemotron {
		defs = cat(defs, nemotronSubsamplingDefs())
	}
	defs = append(defs,
		Def{Sym: "V", Field: "vocab_size", Default: vocab, Legend: "V", Desc: "tokens (blank included)", Show: true, Pos: true},
		field("dH", "decoder_hidden_size", "640", "the prediction and joint networks' width"),
		field("dL", "num_decoder_layers", "2", "the prediction network's LSTM layers"))
	if tdt {
		defs = append(defs, Def{Sym: "dur", Field: "durations", Type: List, Default: "list(0, 1, 2, 3, 4)", Desc: "the durations the joint network predicts"})
		out = "V+len(dur)"
	}
	return &Family{Name: name, Class: class, ConfigClass: cfgClass, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: defs, Global: g, Stacks: []Stack{s}, Embed: "encoder.subsampling.linear.weight", Head: "-",
		Final: cat(linear("encoder_projector", "dH", "pH", "true"),
			[]T{{Name: "decoder.embedding.weight", Shape: []string{"V", "dH"}, Role: RoleEmbedding}},
			lstm("decoder.lstm.", "dL", "dH", "dH"), linear("decoder.decoder_projector", "dH", "dH", "true"),
			linear("joint.head", out, "dH", "true")),
		Tasks: []Task{{Suffix: "", KeepFinal: true}}}
}

var _ = register(func() *Family {
	return parakeetTransducer("Parakeet RNN-T", "ParakeetForRNNT", "ParakeetRNNTConfig", "parakeet_rnnt", false)
},
	func() *Family {
		return parakeetTransducer("Parakeet TDT", "ParakeetForTDT", "ParakeetTDTConfig", "parakeet_tdt", true)
	})

// Voxtral: the Voxtral encoder as audio tower, a two-layer projector
// without biases from the audio FFN width (four frames stacked) to the
// language model's, and the language model (Llama by default, with
// Voxtral's own text defaults) under language_model (4.x's layout).
var _ = register(func() *Family {
	return (&vlm{Family: Family{Name: "Voxtral", Class: "Voxtral", ModelTypes: []string{"voxtral"}, Causal: "VoxtralForConditionalGeneration",
		Defs:   whisperEncoderDefs("audio_config."),
		Global: func() []T { g, _, _ := whisperEncoder("audio_tower.", "audio"); return g }(),
		Stacks: func() []Stack { _, s, _ := whisperEncoder("audio_tower.", "audio"); return []Stack{s} }(),
		Final: func() []T {
			_, _, f := whisperEncoder("audio_tower.", "audio")
			return cat(f, linear("multi_modal_projector.linear_1", "H", "aI", ""), linear("multi_modal_projector.linear_2", "H", "H", ""))
		}(),
		Variants: [][][2]string{{{"language_model.model.", "language_model.model.model."}}}},
		text: "llama", reroot: legacyLM,
		defaults: map[string]string{"V": "131072", "H": "3072", "I": "8192", "L": "30", "kv": "8", "d": "128"}}).register()
})

// speechT5NetDefs are SpeechT5Config's fields of its pre- and post-nets:
// wav2vec2's feature extractor and positional convolution (the speech
// encoder pre-net), the speech decoder's pre-net and post-net.
func speechT5NetDefs() []Def {
	w := w2vDefs("", "")
	keep := func(syms ...string) []Def {
		var out []Def
		for _, s := range syms {
			for _, d := range w {
				if d.Sym == s {
					out = append(out, d)
				}
			}
		}
		return out
	}
	return cat(keep("cd", "ck", "nconv", "C0", "conv_bias", "fen", "pk", "pg", "mtp", "mfp", "projLN", "posbn"), []Def{
		tie("true"),
		field("mel", "num_mel_bins", "80", "mel bins"),
		field("dpl", "speech_decoder_prenet_layers", "2", "the speech decoder pre-net's layers"),
		field("dpu", "speech_decoder_prenet_units", "256", "their width"),
		field("sed", "speaker_embedding_dim", "512", "the speaker embedding"),
		field("ppl", "speech_decoder_postnet_layers", "5", "the speech post-net's convolutions"),
		field("ppu", "speech_decoder_postnet_units", "256", "their width"),
		field("ppk", "speech_decoder_postnet_kernel", "5", "their kernel"),
		field("rf", "reduction_factor", "2", "frames per decoder step"),
	})
}

// speechT5WeightNorm4x: the positional convolution's weight norm as
// checkpoints before torch's parametrizations name it.
var speechT5WeightNorm4x = func() [][][2]string {
	p := "speecht5.encoder.prenet.pos_conv_embed.conv."
	return [][][2]string{{{p + "parametrizations.weight.original0", p + "weight_g"}, {p + "parametrizations.weight.original1", p + "weight_v"}}}
}()

// speechT5Tasks are SpeechT5's classes: the base model, and the
// pre-/post-nets each task puts around it: the speech encoder pre-net
// (wav2vec2's extractor, projection and positional convolution), the
// text pre-nets (token embeddings, a scaled position's alpha), the
// speech decoder pre-net (linears from the mel bins, the speaker
// embedding's projection) and post-net (batch-normed convolutions), the
// text post-net (lm_head, tied to the decoder's embedding).
func speechT5Tasks() []Task {
	pe, pd := "speecht5.encoder.prenet.", "speecht5.decoder.prenet."
	speechIn := cat(convFeatures(pe+"feature_encoder."), featProjection(pe+"feature_projection."),
		maskedSpecEmbed(pe, maskCond), posConvWN(pe+"pos_conv_embed."))
	textIn := []T{{Name: pe + "embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
		{Name: pe + "encode_positions.alpha", Shape: []string{}, Role: RoleNorm}}
	textOut := []T{{Name: pd + "embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
		{Name: "text_decoder_postnet.lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}
	pp := "speech_decoder_postnet.layers.{e}."
	out := "e == ppl-1 ? mel : ppu"
	speechOut := cat([]T{{Name: pd + "layers.{e}.weight", Shape: []string{"dpu", "e == 0 ? mel : dpu"}, Role: RoleLinear, Experts: "dpl", PerCopy: true},
		{Name: pd + "layers.{e}.bias", Shape: []string{"dpu"}, Role: RoleBias, Experts: "dpl"}},
		linear(pd+"final_layer", "H", "dpu", "true"),
		[]T{{Name: pd + "encode_positions.alpha", Shape: []string{}, Role: RoleNorm}},
		linear(pd+"speaker_embeds_layer", "H", "sed+H", "true"),
		linear("speech_decoder_postnet.feat_out", "mel*rf", "H", "true"), linear("speech_decoder_postnet.prob_out", "rf", "H", "true"),
		[]T{{Name: pp + "conv.weight", Shape: []string{out, "e == 0 ? mel : ppu", "ppk"}, Role: RoleLinear, Experts: "ppl", PerCopy: true},
			{Name: pp + "batch_norm.weight", Shape: []string{out}, Role: RoleNorm, Experts: "ppl", PerCopy: true},
			{Name: pp + "batch_norm.bias", Shape: []string{out}, Role: RoleBias, Experts: "ppl", PerCopy: true},
			{Name: pp + "batch_norm.running_mean", Shape: []string{out}, Role: RoleNorm, AnyDType: true, Experts: "ppl", PerCopy: true},
			{Name: pp + "batch_norm.running_var", Shape: []string{out}, Role: RoleNorm, AnyDType: true, Experts: "ppl", PerCopy: true},
			{Name: pp + "batch_norm.num_batches_tracked", Shape: []string{}, Role: RoleNorm, AnyDType: true, Experts: "ppl"}})
	return []Task{{Suffix: TaskBase, Prefix: "-"},
		{Suffix: "ForSpeechToText", Head: cat(speechIn, textOut), HeadName: "text_decoder_postnet.lm_head.weight"},
		{Suffix: "ForTextToSpeech", Head: cat(textIn, speechOut)},
		{Suffix: "ForSpeechToSpeech", Head: cat(speechIn, speechOut)}}
}

// audioLLM is an audio language model of the Qwen2-Audio layout: a
// Whisper-like encoder as audio_tower, a two-layer projector (biases
// where projector_bias) from the audio width to the language model's,
// and the language model text_config names (Qwen2 by default), kept
// under language_model as the base model (…Model) writes it; the
// generation class of 5.x nests it once more (language_model.model.model.,
// a variant). Audio Flamingo 3, Music Flamingo.
func audioLLM(name, class, mt, text string) *Family {
	g, s, f := whisperEncoder("audio_tower.", "audio")
	return (&vlm{Family: Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: class + "ForConditionalGeneration",
		Defs:   append(whisperEncoderDefs("audio_config."), flag("pb", "projector_bias", "true", "the projector's linears have biases")),
		Global: g, Stacks: []Stack{s},
		Final:    cat(f, linear("multi_modal_projector.linear_1", "H", "aH", "pb"), linear("multi_modal_projector.linear_2", "H", "H", "pb")),
		Variants: [][][2]string{{{"language_model.model.", "language_model.model.model."}}}},
		text: text, reroot: legacyLM, tasks: []Task{}}).register()
}

var _ = register(func() *Family { return audioLLM("Audio Flamingo 3", "AudioFlamingo3", "audioflamingo3", "qwen2") },
	func() *Family { return audioLLM("Music Flamingo", "MusicFlamingo", "musicflamingo", "qwen2") })

// rotaryAudioDefs are the fields of a rotary audio encoder's config
// under cfg (GlmAsrEncoderConfig, VoxtralRealtimeEncoderConfig), symbols
// aH, aL, aheads, akv, ad, aI, amel; heads and hd are the class's
// defaults of num_attention_heads and head_dim.
func rotaryAudioDefs(cfg, heads, hd string) []Def {
	return []Def{
		{Sym: "aH", Field: cfg + "hidden_size", Default: "1280", Legend: "aH", Desc: "audio encoder width", Show: true, Pos: true},
		{Sym: "aL", Field: cfg + "num_hidden_layers", Default: "32", Legend: "aL", Desc: "audio encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "aheads", Field: cfg + "num_attention_heads", Default: heads, Desc: "audio attention heads", Pos: true},
		{Sym: "akv", Field: cfg + "num_key_value_heads", Default: "aheads", Null: "aheads", Desc: "audio key/value heads", Pos: true},
		{Sym: "ad", Field: cfg + "head_dim", Default: hd, Null: "aH/aheads", Desc: "audio head width", Pos: true},
		{Sym: "aI", Field: cfg + "intermediate_size", Default: "5120", Legend: "aI", Desc: "audio FFN inner width", Show: true, Pos: true},
		{Sym: "amel", Field: cfg + "num_mel_bins", Default: "128", Desc: "log-mel input channels", Pos: true},
	}
}

// glmAsrDefs are GlmAsrEncoderConfig's fields under cfg.
func glmAsrDefs(cfg string) []Def { return rotaryAudioDefs(cfg, "20", "aH/aheads") }

// glmAsrEncoder is GLM-ASR's audio encoder under pre: Whisper's two
// convolutions, then pre-norm rotary layers (q, v, o biased, k not;
// grouped key/value heads), a final norm.
func glmAsrEncoder(pre, name string) ([]T, Stack, []T) {
	return rotaryAudioEncoder(pre, pre, name, "true", norm("input_layernorm", "aH", "true"),
		norm("post_attention_layernorm", "aH", "true"), linear("mlp.fc1", "aI", "aH", "true"), linear("mlp.fc2", "aH", "aI", "true"))
}

// rotaryAudioEncoder is a rotary audio encoder under pre: two
// convolutions under conv, the layers (attnNorm, attention with q, v and o
// biased, k not, then the rest), a final norm (biased where normBias).
func rotaryAudioEncoder(pre, conv, name, normBias string, attnNorm []T, rest ...[]T) ([]T, Stack, []T) {
	global := cat(conv1d3(conv+"conv1", "aH", "amel", "3", "true"), conv1d3(conv+"conv2", "aH", "aH", "3", "true"))
	layer := cat(attnNorm,
		linear("self_attn.q_proj", "aheads*ad", "aH", "true"), linear("self_attn.k_proj", "akv*ad", "aH", ""),
		linear("self_attn.v_proj", "akv*ad", "aH", "true"), linear("self_attn.o_proj", "aH", "aheads*ad", "true"), cat(rest...))
	return global, Stack{Name: name, Prefix: pre + "layers.{l}.", Layers: "aL", Tensors: layer}, norm(pre+"norm", "aH", normBias)
}

// glmAsr is GLM-ASR: its encoder alone (GlmAsrEncoder), and as the
// audio tower of a language model (Llama by default) behind a projector
// from the encoder's FFN width (frames stacked) through twice the text
// width.
func glmAsr() (*Family, *Family) {
	enc := encoderAlone("GLM-ASR encoder", "GlmAsrEncoder", "glmasr_encoder", "conv1.weight", glmAsrDefs(""), glmAsrEncoder)
	g, s, f := glmAsrEncoder("audio_tower.", "audio")
	full := (&vlm{Family: Family{Name: "GLM-ASR", Class: "GlmAsr", ModelTypes: []string{"glmasr"}, Causal: "GlmAsrForConditionalGeneration",
		Defs: glmAsrDefs("audio_config."), Global: g, Stacks: []Stack{s},
		Final:    cat(f, linear("multi_modal_projector.linear_1", "2*H", "aI", "true"), linear("multi_modal_projector.linear_2", "H", "2*H", "true")),
		Variants: [][][2]string{{{"language_model.model.", "language_model.model.model."}}}},
		text: "llama", reroot: legacyLM, tasks: []Task{}}).register()
	return enc, full
}

var _ = registerGroup(results2(glmAsr))

// qwen3AsrDefs are Qwen3ASREncoderConfig's fields under cfg.
func qwen3AsrDefs(cfg string) []Def {
	return []Def{
		{Sym: "aH", Field: cfg + "d_model", Default: "1024", Legend: "aH", Desc: "audio encoder width", Show: true, Pos: true},
		{Sym: "aL", Field: cfg + "encoder_layers", Default: "24", Legend: "aL", Desc: "audio encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "aI", Field: cfg + "encoder_ffn_dim", Default: "4096", Legend: "aI", Desc: "audio FFN inner width", Show: true, Pos: true},
		{Sym: "amel", Field: cfg + "num_mel_bins", Default: "128", Desc: "log-mel input channels", Pos: true},
		{Sym: "ads", Field: cfg + "downsample_hidden_size", Default: "480", Desc: "the 2-D downsampling convolutions' channels", Pos: true},
		{Sym: "aout", Field: cfg + "output_dim", Default: "3584", Desc: "the projector's output width", Pos: true},
	}
}

// qwen3AsrEncoder is Qwen3-ASR's audio encoder under pre: three
// stride-2 3×3 convolutions over the spectrogram, a linear from the
// flattened channels × remaining mel bins, Whisper-like layers (every
// projection biased), ln_post. Its sinusoidal positions are not saved.
func qwen3AsrEncoder(pre, name string) ([]T, Stack, []T) {
	c2 := func(n, in string) []T {
		return []T{{Name: pre + n + ".weight", Shape: []string{"ads", in, "3", "3"}, Role: RoleLinear}, {Name: pre + n + ".bias", Shape: []string{"ads"}, Role: RoleBias}}
	}
	global := cat(c2("conv2d1", "1"), c2("conv2d2", "ads"), c2("conv2d3", "ads"),
		linear(pre+"conv_out", "aH", "ads*((((amel+1)/2+1)/2+1)/2)", ""))
	layer := cat(linear("self_attn.q_proj", "aH", "aH", "true"), linear("self_attn.k_proj", "aH", "aH", "true"),
		linear("self_attn.v_proj", "aH", "aH", "true"), linear("self_attn.out_proj", "aH", "aH", "true"),
		norm("self_attn_layer_norm", "aH", "true"), linear("fc1", "aI", "aH", "true"), linear("fc2", "aH", "aI", "true"),
		norm("final_layer_norm", "aH", "true"))
	return global, Stack{Name: name, Prefix: pre + "layers.{l}.", Layers: "aL", Tensors: layer}, norm(pre+"ln_post", "aH", "true")
}

// qwen3Asr is Qwen3-ASR: the encoder alone (Qwen3ASREncoder), and as
// model.audio_tower of a Qwen3 language model at model.language_model,
// behind a projector to output_dim; its token classifier's score is
// biased where token_classification_bias.
func qwen3Asr() (*Family, *Family) {
	enc := encoderAlone("Qwen3-ASR encoder", "Qwen3ASREncoder", "qwen3_asr_encoder", "conv2d1.weight", qwen3AsrDefs(""), qwen3AsrEncoder)
	g, s, f := qwen3AsrEncoder("model.audio_tower.", "audio")
	full := (&vlm{Family: Family{Name: "Qwen3-ASR", Class: "Qwen3ASR", ModelTypes: []string{"qwen3_asr"}, Causal: "Qwen3ASRForConditionalGeneration",
		Defs:   append(qwen3AsrDefs("audio_config."), flag("tcb", "token_classification_bias", "false", "the token classifier's score has a bias")),
		Global: g, Stacks: []Stack{s},
		Final: cat(f, linear("model.multi_modal_projector.linear_1", "aH", "aH", "true"), linear("model.multi_modal_projector.linear_2", "aout", "aH", "true"))},
		text: "qwen3", reroot: newLM,
		tasks: []Task{{Suffix: TaskTokenCls, KeepFinal: true, Head: linear("score", "C", "H", "tcb"), Labels: true}}}).register()
	return enc, full
}

var _ = registerGroup(results2(qwen3Asr))

// voxtralRealtimeDefs are VoxtralRealtimeEncoderConfig's fields under cfg.
func voxtralRealtimeDefs(cfg string) []Def { return rotaryAudioDefs(cfg, "32", "64") }

// voxtralRealtimeEncoder is Voxtral Realtime's causal audio encoder
// under pre: two causal convolutions (embedder), pre-RMS-norm rotary
// layers (q, v, o biased, k not) with a gated MLP whose down_proj alone
// is biased, a final norm.
func voxtralRealtimeEncoder(pre, name string) ([]T, Stack, []T) {
	return rotaryAudioEncoder(pre, pre+"embedder.", name, "", norm("self_attn_layer_norm", "aH", ""),
		norm("final_layer_norm", "aH", ""), linear("mlp.gate_proj", "aI", "aH", ""), linear("mlp.up_proj", "aI", "aH", ""),
		linear("mlp.down_proj", "aH", "aI", "true"))
}

// voxtralRealtimeText is Voxtral Realtime's language model: Llama's
// layout (no biases) with an adaptive norm's two linears per layer.
var voxtralRealtimeText = std("Voxtral Realtime text", "VoxtralRealtimeText", []string{"voxtral_realtime_text"},
	cat(sized(llamaDims("H/heads", "H/heads", "8", "heads"), "V", "32000", "H", "4096", "L", "32", "heads", "32", "I", "14336"), []Def{tie("true")}), nil,
	llamaBlock("", "", gatedMLP("mlp.", "I", ""), linear("ada_rms_norm.linear1", "32", "H", ""), linear("ada_rms_norm.linear2", "H", "32", "")))

// voxtralRealtime is Voxtral Realtime: its encoder alone, and as the
// audio tower of its language model behind a projector from
// downsample_factor stacked frames (no biases).
func voxtralRealtime() (*Family, *Family) {
	enc := encoderAlone("Voxtral Realtime encoder", "VoxtralRealtimeEncoder", "voxtral_realtime_encoder", "embedder.conv1.weight", voxtralRealtimeDefs(""), voxtralRealtimeEncoder)
	g, s, f := voxtralRealtimeEncoder("audio_tower.", "audio")
	full := (&vlm{Family: Family{Name: "Voxtral Realtime", Class: "VoxtralRealtime", ModelTypes: []string{"voxtral_realtime"}, Causal: "VoxtralRealtimeForConditionalGeneration",
		Defs:   append(voxtralRealtimeDefs("audio_config."), field("ds", "downsample_factor", "4", "audio frames stacked per token")),
		Global: g, Stacks: []Stack{s},
		Final:    cat(f, linear("multi_modal_projector.linear_1", "H", "aH*ds", ""), linear("multi_modal_projector.linear_2", "H", "H", "")),
		Variants: [][][2]string{{{"language_model.model.", "language_model.model.model."}}}},
		textF: voxtralRealtimeText, reroot: legacyLM, tasks: []Task{}}).register()
	return enc, full
}

var _ = registerGroup(results2(voxtralRealtime))

// Nemotron ASR: the streaming FastConformer encoder alone and as an
// RNN-T; Nemotron 3.5's adds a prompt projector over the encoder's
// output and a one-hot prompt.
func nemotronAsr() (*Family, *Family, *Family) {
	g, s := fastConformer("", true)
	enc := &Family{Name: "Nemotron ASR streaming encoder", Class: "NemotronAsrStreamingEncoder", ModelTypes: []string{"nemotron_asr_streaming_encoder"}, Causal: "-", SeqCls: "-",
		Defs: cat(parakeetDefs(""), nemotronSubsamplingDefs()), Global: g, Stacks: []Stack{s}, Embed: "subsampling.conv_in.weight", Head: "-",
		Tasks: []Task{{Suffix: "", KeepFinal: true}}}
	rnnt := transducer("Nemotron ASR streaming RNN-T", "NemotronAsrStreamingForRNNT", "NemotronAsrStreamingConfig", "nemotron_asr_streaming", "1025", false, true)
	n35 := transducer("Nemotron 3.5 ASR", "Nemotron3_5AsrForRNNT", "Nemotron3_5AsrConfig", "nemotron3_5_asr", "13088", false, true)
	n35.Defs = append(n35.Defs, field("np", "num_prompts", "128", "prompts (one-hot beside the encoder's output)"),
		field("pis", "prompt_intermediate_size", "2048", "the prompt projector's width"))
	n35.Final = cat(n35.Final, linear("prompt_projector.linear_1", "pis", "pH+np", "true"), linear("prompt_projector.linear_2", "pH", "pis", "true"))
	return enc, rnnt, n35
}

var _ = registerGroup(results3(nemotronAsr))

// lasrDefs are LasrEncoderConfig's fields under cfg (symbols of
// Parakeet's encoder: pH, pL, …).
func lasrDefs(cfg string) []Def {
	return []Def{
		{Sym: "pH", Field: cfg + "hidden_size", Default: "512", Legend: "pH", Desc: "encoder width", Show: true, Pos: true},
		{Sym: "pL", Field: cfg + "num_hidden_layers", Default: "17", Legend: "pL", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "pheads", Field: cfg + "num_attention_heads", Default: "8", Desc: "attention heads", Pos: true},
		{Sym: "pkv", Field: cfg + "num_key_value_heads", Default: "pheads", Null: "pheads", Desc: "key/value heads", Pos: true},
		{Sym: "pd", Field: cfg + "head_dim", Default: "pH/pheads", Null: "pH/pheads", Desc: "width of one attention head", Pos: true},
		{Sym: "pI", Field: cfg + "intermediate_size", Default: "2048", Legend: "pI", Desc: "FFN inner width", Show: true, Pos: true},
		flag("pab", cfg+"attention_bias", "false", "attention and feed-forward linears have biases"),
		flag("pcb", cfg+"convolution_bias", "false", "the convolution module's convolutions have biases"),
		{Sym: "pck", Field: cfg + "conv_kernel_size", Default: "32", Desc: "the depthwise kernel", Pos: true},
		{Sym: "psc", Field: cfg + "subsampling_conv_channels", Default: "256", Desc: "subsampling channels", Pos: true},
		{Sym: "psk", Field: cfg + "subsampling_conv_kernel_size", Default: "5", Desc: "subsampling kernel", Pos: true},
		{Sym: "pmel", Field: cfg + "num_mel_bins", Default: "128", Desc: "mel bins", Pos: true},
	}
}

// lasrEncoder is LASR's conformer encoder under pre: a dense/conv/conv/
// dense subsampler, conformer layers with rotary grouped-query attention
// and norms without biases, an output norm.
func lasrEncoder(pre string) ([]T, Stack, []T) {
	sub := pre + "subsampler."
	global := cat(linear(sub+"dense_0", "pH", "pmel", "true"), conv1d3(sub+"conv_0", "pH", "pH", "psk", "true"),
		conv1d3(sub+"conv_1", "psc", "pH", "psk", "true"), linear(sub+"dense_1", "pH", "psc", "true"))
	ff := func(p string) []T {
		return cat(linear(p+"linear1", "pI", "pH", "pab"), linear(p+"linear2", "pH", "pI", "pab"))
	}
	layer := cat(norm("norm_feed_forward1", "pH", ""), ff("feed_forward1."), norm("norm_self_att", "pH", ""),
		linear("self_attn.q_proj", "pheads*pd", "pH", "pab"), linear("self_attn.k_proj", "pkv*pd", "pH", "pab"),
		linear("self_attn.v_proj", "pkv*pd", "pH", "pab"), linear("self_attn.o_proj", "pH", "pheads*pd", "pab"),
		norm("norm_conv", "pH", ""), conv1d3("conv.pointwise_conv1", "2*pH", "pH", "1", "pcb"), conv1d3("conv.depthwise_conv", "pH", "1", "pck", "pcb"),
		batchNorm("conv.norm", "pH"), conv1d3("conv.pointwise_conv2", "pH", "pH", "1", "pcb"),
		norm("norm_feed_forward2", "pH", ""), ff("feed_forward2."), norm("norm_out", "pH", ""))
	return global, Stack{Prefix: pre + "layers.{l}.", Layers: "pL", Tensors: layer}, norm(pre+"out_norm", "pH", "")
}

// lasr is LASR's encoder alone and with a CTC head (a 1×1 convolution).
func lasr() (*Family, *Family) {
	g, s, f := lasrEncoder("")
	enc := &Family{Name: "LASR encoder", Class: "LasrEncoder", ModelTypes: []string{"lasr_encoder"}, Causal: "-", SeqCls: "-",
		Defs: lasrDefs(""), Global: g, Stacks: []Stack{s}, Final: f, Embed: "subsampler.dense_0.weight", Head: "-",
		Tasks: []Task{{Suffix: "", KeepFinal: true}}}
	g, s, f = lasrEncoder("encoder.")
	ctc := &Family{Name: "LASR CTC", Class: "Lasr", ConfigClass: "LasrCTCConfig", ModelTypes: []string{"lasr_ctc"}, Causal: "-", SeqCls: "-",
		Defs:   append(lasrDefs("encoder_config."), Def{Sym: "V", Field: "vocab_size", Default: "512", Legend: "V", Desc: "CTC classes", Show: true, Pos: true}),
		Global: g, Stacks: []Stack{s}, Embed: "encoder.subsampler.dense_0.weight", Head: "-",
		Final: cat(f, conv1d3("ctc_head", "V", "pH", "1", "true")),
		Tasks: []Task{{Suffix: "ForCTC", KeepFinal: true}}}
	return enc, ctc
}

var _ = registerGroup(results2(lasr))

// Gemma 3n's audio encoder (Gemma3nAudioEncoder): two 2-D convolutions
// with their norms (kernels and strides as [time, frequency] pairs; the
// frequency axis padded by one each side) and a projection from the
// channels × remaining frequencies, then conformer blocks of
// bias-free linears: a half-step feed-forward at each end, attention
// with a per-dimension scale and a relative-position projection, a
// light convolution module.
func gemma3nAudio() *Family {
	ffw := func(p string) []T {
		return cat(norm(p+"pre_layer_norm", "H", ""), linear(p+"ffw_layer_1", "4*H", "H", ""), linear(p+"ffw_layer_2", "H", "4*H", ""), norm(p+"post_layer_norm", "H", ""))
	}
	conv := func(i, out, in string) []T {
		p := "subsample_conv_projection.conv_" + i + "."
		return []T{{Name: p + "conv.weight", Shape: []string{out, in, "at(skh, " + i + ")", "at(skw, " + i + ")"}, Role: RoleLinear},
			{Name: p + "norm.weight", Shape: []string{out}, Role: RoleNorm}}
	}
	return &Family{Name: "Gemma 3n audio encoder", Class: "Gemma3nAudioEncoder", ConfigClass: "Gemma3nAudioConfig", ModelTypes: []string{"gemma3n_audio"}, Causal: "-", SeqCls: "-",
		Defs: []Def{
			{Sym: "H", Field: "hidden_size", Default: "1536", Legend: "H", Desc: "width", Show: true, Pos: true},
			{Sym: "L", Field: "conf_num_hidden_layers", Default: "12", Legend: "L", Desc: "conformer layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "conf_num_attention_heads", Default: "8", Desc: "attention heads", Pos: true},
			field("ck", "conf_conv_kernel_size", "5", "the depthwise kernel"),
			field("mel", "input_feat_size", "128", "mel bins"),
			{Sym: "sc", Field: "sscp_conv_channel_size", Type: List, Default: "list(128, 32)", Desc: "the subsampling convolutions' channels"},
			{Sym: "skh", Field: "sscp_conv_kernel_size", Type: Heights, Default: "list(3, 3)", Desc: "their kernels over time"},
			{Sym: "skw", Field: "sscp_conv_kernel_size", Type: Widths, Default: "list(3, 3)", Desc: "their kernels over frequency"},
			{Sym: "ssw", Field: "sscp_conv_stride_size", Type: Widths, Default: "list(2, 2)", Desc: "their strides over frequency"},
			derived("f1", "(mel + 2 - at(skw, 0))/at(ssw, 0) + 1"),
			derived("f2", "(f1 + 2 - at(skw, 1))/at(ssw, 1) + 1"),
		},
		Global: cat(conv("0", "at(sc, 0)", "1"), conv("1", "at(sc, 1)", "at(sc, 0)"),
			linear("subsample_conv_projection.input_proj_linear", "H", "at(sc, 1)*f2", "")),
		Stacks: []Stack{{Prefix: "conformer.{l}.", Layers: "L", Tensors: cat(
			ffw("ffw_layer_start."), norm("attention.pre_attn_norm", "H", ""),
			linear("attention.attn.q_proj", "H", "H", ""), linear("attention.attn.k_proj", "H", "H", ""), linear("attention.attn.v_proj", "H", "H", ""),
			[]T{{Name: "attention.attn.per_dim_scale", Shape: []string{"H/heads"}, Role: RoleNorm}},
			linear("attention.attn.relative_position_embedding.pos_proj", "H", "H", ""),
			linear("attention.post", "H", "H", ""), norm("attention.post_norm", "H", ""),
			norm("lconv1d.pre_layer_norm", "H", ""), linear("lconv1d.linear_start", "2*H", "H", ""),
			[]T{{Name: "lconv1d.depthwise_conv1d.weight", Shape: []string{"H", "1", "ck"}, Role: RoleLinear}},
			norm("lconv1d.conv_norm", "H", ""), linear("lconv1d.linear_end", "H", "H", ""),
			ffw("ffw_layer_end."), norm("norm", "H", ""))}},
		Embed: "subsample_conv_projection.conv_0.conv.weight", Head: "-",
		Tasks: []Task{{Suffix: "", KeepFinal: true}}}
}

var _ = register(gemma3nAudio)
