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
	std("Moshi", "Moshi", []string{"moshi"},
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
		}),
	// Whisper: k_proj has no bias; positions [max_target_positions, H].
	func() *Family {
		f := seq2seqDecoder("Whisper", "Whisper", "whisper", cat(s2sDefs("vocab_size=51865", "d_model=384", "decoder_layers=4", "decoder_ffn_dim=1536"), []Def{posDef("max_target_positions", "448")}),
			decoderPositions("P"), s2sLayer(true, "true", "", "true"), finalLN)
		f.Final = cat(finalLN, lmHead("proj_out.weight"))
		f.Head = "proj_out.weight"
		return f
	}(),
	musicgen("MusicGen", "Musicgen", "musicgen_decoder", true),
	musicgen("MusicGen-Melody", "MusicgenMelody", "musicgen_melody_decoder", false),
)

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
	f := s2sFull(byType["whisper"], false, extra...)
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
