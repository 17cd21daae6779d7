package spec

import "slices"

// BERT-like encoders used as decoders (their ForCausalLM / LMHead
// classes), from one shared layer block in four layer-norm placements.
// docs/arch-notes-more.md has the notes.

// bertDefs are BertConfig-style fields with the class's defaults: vocab,
// hidden, heads, intermediate, max positions, token types.
func bertDefs(v, h, heads, i, pos, types string) []Def {
	return cat(trunk(v, h, "12", "encoder layers"), []Def{
		{Sym: "heads", Field: "num_attention_heads", Default: heads, Desc: "attention heads of {H/heads}", Show: true, Pos: true, Divides: "H"},
		derived("d", "H/heads"),
		{Sym: "I", Field: "intermediate_size", Default: i, Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
		{Sym: "P", Field: "max_position_embeddings", Default: pos, Legend: "P", Desc: "learned positions", Show: true, Pos: true},
		{Sym: "TV", Field: "type_vocab_size", Default: types, Desc: "token types", Pos: true},
		flag("cross", "add_cross_attention", "false", "each layer has cross-attention to an encoder"),
	})
}

// relPos is position_embedding_type, whose relative kinds add a distance
// embedding to every attention.
var relPos = []Def{
	{Sym: "pos_type", Field: "position_embedding_type", Type: Str, Default: "'absolute'", Null: "=", Desc: "how positions are encoded"},
	derived("rel", "pos_type == 'relative_key' || pos_type == 'relative_key_query'"),
}

// noRelPos is for classes without position_embedding_type.
var noRelPos = []Def{derived("rel", "false")}

// bertAttn is the attention of a BERT layer under pre: self.{query, key,
// value}, output.dense, all biased, and the distance embedding of
// relative positions.
func bertAttn(pre string) []T {
	return cat(
		linear(pre+"self.query", "H", "H", "true"), linear(pre+"self.key", "H", "H", "true"), linear(pre+"self.value", "H", "H", "true"),
		[]T{{Name: pre + "self.distance_embedding.weight", Shape: []string{"2*P-1", "d"}, Role: RoleEmbedding, If: "rel"}},
		linear(pre+"output.dense", "H", "H", "true"),
	)
}

// bertLayer is one encoder layer: attention, optional cross-attention,
// intermediate and output dense. The layer norms sit where the variant
// puts them: attnNorm after each attention (relative to "attention." or
// "crossattention."), ffnNorm and outNorm around the FFN (relative to the
// layer).
func bertLayer(attnNorm, ffnNorm, outNorm string) []T {
	ln := func(name string) []T {
		if name == "" {
			return nil
		}
		return norm(name, "H", "true")
	}
	return cat(
		bertAttn("attention."), ln(prefixIf("attention.", attnNorm)),
		when("cross", bertAttn("crossattention."), ln(prefixIf("crossattention.", attnNorm))),
		linear("intermediate.dense", "I", "H", "true"), ln(ffnNorm),
		linear("output.dense", "H", "I", "true"), ln(outNorm),
	)
}

func prefixIf(pre, name string) string {
	if name == "" {
		return ""
	}
	return pre + name
}

// The layer-norm placements.
var (
	postLN       = bertLayer("output.LayerNorm", "", "output.LayerNorm") // BERT, RoBERTa
	robertaPreLN = bertLayer("LayerNorm", "intermediate.LayerNorm", "")  // RoBERTa-PreLayerNorm
	megatronLN   = bertLayer("ln", "", "ln")                             // Megatron-BERT (pre-LN)
	xlLN         = bertLayer("self_attn_layer_norm", "", "LayerNorm")    // XLM-RoBERTa-XL (pre-LN)
)

// bertEmbeddings are word, position and token-type embeddings of width E
// under pre ("bert.embeddings."), with their LayerNorm unless noLN.
func bertEmbeddings(pre, E string, types, ln bool) []T {
	ts := []T{
		{Name: pre + "word_embeddings.weight", Shape: []string{"V", E}, Role: RoleEmbedding},
		{Name: pre + "position_embeddings.weight", Shape: []string{"P", E}, Role: RoleEmbedding},
	}
	if types {
		ts = append(ts, T{Name: pre + "token_type_embeddings.weight", Shape: []string{"TV", E}, Role: RoleEmbedding})
	}
	if ln {
		ts = append(ts, norm(pre+"LayerNorm", E, "true")...)
	}
	return ts
}

// bertHead is BERT's cls.predictions: a transform (dense H → E, LayerNorm
// E) and the decoder [V, E] tied to the word embeddings, its bias apart.
func bertHead(E string) []T {
	return cat(
		[]T{{Name: "cls.predictions.bias", Shape: []string{"V"}, Role: RoleBias}},
		linear("cls.predictions.transform.dense", E, "H", "true"), norm("cls.predictions.transform.LayerNorm", E, "true"),
		[]T{{Name: "cls.predictions.decoder.weight", Shape: []string{"V", E}, Role: RoleHead, Optional: "tied"}},
	)
}

// robertaHead is RoBERTa's lm_head: dense, layer_norm, the decoder tied to
// the word embeddings and its bias (saved once, as lm_head.bias).
func robertaHead() []T {
	return cat(
		[]T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias}},
		linear("lm_head.dense", "H", "H", "true"), norm("lm_head.layer_norm", "H", "true"),
		[]T{{Name: "lm_head.decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "lm_head.decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}},
	)
}

// bertLike is a family of the BERT layout: base is the base model's
// attribute ("bert", "roberta"), causal the LM class.
func bertLike(name, class, mt, causal, base string, defs []Def, global, layer, final []T, head string) *Family {
	if !slices.ContainsFunc(defs, func(d Def) bool { return d.Sym == "tied" }) {
		defs = cat(defs, []Def{tie("true")})
	}
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: causal, SeqCls: "-",
		Defs:   defs,
		Global: global,
		Stacks: []Stack{{Prefix: base + ".encoder.layer.{l}.", Layers: "L", Tensors: layer}},
		Final:  final,
		Embed:  base + ".embeddings.word_embeddings.weight", Head: head,
	}
}

// roberta is a RoBERTa-layout family (RoBERTa, XLM-R, CamemBERT,
// Data2VecText) under base.
func roberta(name, class, mt, base string, defs []Def) *Family {
	return bertLike(name, class, mt, class+HeadCausalLM, base, cat(defs, relPos),
		bertEmbeddings(base+".embeddings.", "H", true, true), postLN, robertaHead(), "lm_head.decoder.weight")
}

var bertHeadName = "cls.predictions.decoder.weight"

var _ = register(
	bertLike("BERT", "Bert", "bert", "BertLMHeadModel", "bert", cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos),
		bertEmbeddings("bert.embeddings.", "H", true, true), postLN, bertHead("H"), bertHeadName),
	bertLike("ERNIE", "Ernie", "ernie", "ErnieForCausalLM", "ernie",
		cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
			flag("task_id", "use_task_id", "false", "task-type embeddings"),
			{Sym: "TT", Field: "task_type_vocab_size", Default: "3", Desc: "task types", Pos: true}}),
		cat(bertEmbeddings("ernie.embeddings.", "H", true, true),
			[]T{{Name: "ernie.embeddings.task_type_embeddings.weight", Shape: []string{"TT", "H"}, Role: RoleEmbedding, If: "task_id"}}),
		postLN, bertHead("H"), bertHeadName),
	bertLike("BigBird", "BigBird", "big_bird", "BigBirdForCausalLM", "bert", cat(bertDefs("50358", "768", "12", "3072", "4096", "2"), noRelPos),
		bertEmbeddings("bert.embeddings.", "H", true, true), postLN, cat(linear("bert.pooler", "H", "H", "true"), bertHead("H")), bertHeadName),
	bertLike("Megatron-BERT", "MegatronBert", "megatron-bert", "MegatronBertForCausalLM", "bert", cat(bertDefs("29056", "1024", "16", "4096", "512", "2"), relPos),
		bertEmbeddings("bert.embeddings.", "H", true, false), megatronLN, cat(norm("bert.encoder.ln", "H", "true"), bertHead("H")), bertHeadName),
	bertLike("BertGeneration", "BertGeneration", "bert-generation", "BertGenerationDecoder", "bert", cat(bertDefs("50358", "1024", "16", "4096", "512", "2"), relPos),
		bertEmbeddings("bert.embeddings.", "H", false, true), postLN,
		[]T{{Name: "lm_head.bias", Shape: []string{"V"}, Role: RoleBias},
			{Name: "lm_head.decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "lm_head.decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}},
		"lm_head.decoder.weight"),
	// ELECTRA: embeddings of embedding_size E, projected to H when they differ.
	bertLike("ELECTRA", "Electra", "electra", "ElectraForCausalLM", "electra",
		cat(bertDefs("30522", "256", "4", "1024", "512", "2"), relPos,
			[]Def{{Sym: "E", Field: "embedding_size", Default: "128", Legend: "E", Desc: "embedding width", Show: true, Pos: true}}),
		cat(bertEmbeddings("electra.embeddings.", "E", true, true), when("E != H", linear("electra.embeddings_project", "H", "E", "true"))),
		postLN,
		cat(linear("generator_predictions.dense", "E", "H", "true"), norm("generator_predictions.LayerNorm", "E", "true"),
			[]T{{Name: "generator_lm_head.weight", Shape: []string{"V", "E"}, Role: RoleHead, Optional: "tied"},
				{Name: "generator_lm_head.bias", Shape: []string{"V"}, Role: RoleBias}}),
		"generator_lm_head.weight"),
	// RemBERT: input embeddings of E, mapped to H; output embeddings of O, untied.
	bertLike("RemBERT", "RemBert", "rembert", "RemBertForCausalLM", "rembert",
		cat(bertDefs("250300", "1152", "18", "4608", "512", "2"), noRelPos, []Def{
			{Sym: "E", Field: "input_embedding_size", Default: "256", Legend: "E", Desc: "input embedding width", Show: true, Pos: true},
			{Sym: "O", Field: "output_embedding_size", Default: "1664", Legend: "O", Desc: "output embedding width", Show: true, Pos: true},
			tie("false")}),
		cat(bertEmbeddings("rembert.embeddings.", "E", true, true), linear("rembert.encoder.embedding_hidden_mapping_in", "H", "E", "true")),
		postLN,
		cat(linear("cls.predictions.dense", "O", "H", "true"), norm("cls.predictions.LayerNorm", "O", "true"),
			[]T{{Name: "cls.predictions.decoder.weight", Shape: []string{"V", "O"}, Role: RoleHead, Optional: "tied && O == E"},
				{Name: "cls.predictions.decoder.bias", Shape: []string{"V"}, Role: RoleBias}}),
		bertHeadName),
	// RoCBERT: pronunciation and shape embeddings, mapped into H.
	bertLike("RoCBert", "RoCBert", "roc_bert", "RoCBertForCausalLM", "roc_bert",
		cat(bertDefs("30522", "768", "12", "3072", "512", "2"), relPos, []Def{
			flag("pron", "enable_pronunciation", "true", "pronunciation embeddings"),
			flag("shape", "enable_shape", "true", "glyph-shape embeddings"),
			{Sym: "PV", Field: "pronunciation_vocab_size", Default: "910", Pos: true},
			{Sym: "PD", Field: "pronunciation_embed_dim", Default: "768", Pos: true},
			{Sym: "SV", Field: "shape_vocab_size", Default: "24858", Pos: true},
			{Sym: "SD", Field: "shape_embed_dim", Default: "512", Pos: true}}),
		cat(bertEmbeddings("roc_bert.embeddings.", "H", true, true),
			[]T{{Name: "roc_bert.embeddings.pronunciation_embed.weight", Shape: []string{"PV", "PD"}, Role: RoleEmbedding, If: "pron"},
				{Name: "roc_bert.embeddings.shape_embed.weight", Shape: []string{"SV", "SD"}, Role: RoleEmbedding, If: "shape"}},
			when("pron || shape", linear("roc_bert.embeddings.map_inputs_layer", "H", "H+(pron ? PD : 0)+(shape ? SD : 0)", "true"))),
		postLN, bertHead("H"), bertHeadName),
	// RoFormer: no position embeddings; rotary tables [P, d] are written.
	bertLike("RoFormer", "RoFormer", "roformer", "RoFormerForCausalLM", "roformer",
		cat(bertDefs("50000", "768", "12", "3072", "1536", "2"), noRelPos,
			[]Def{{Sym: "E", Field: "embedding_size", Default: "H", Null: "H", Legend: "E", Desc: "embedding width", Show: true, Pos: true}}),
		cat([]T{{Name: "roformer.embeddings.word_embeddings.weight", Shape: []string{"V", "E"}, Role: RoleEmbedding},
			{Name: "roformer.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "E"}, Role: RoleEmbedding}},
			norm("roformer.embeddings.LayerNorm", "E", "true"),
			when("E != H", linear("roformer.embeddings_project", "H", "E", "true")),
			[]T{{Name: "roformer.encoder.embed_positions.weight", Shape: []string{"P", "d"}, Role: RoleEmbedding}}),
		postLN, bertHead("E"), bertHeadName),
	roberta("RoBERTa", "Roberta", "roberta", "roberta", bertDefs("50265", "768", "12", "3072", "512", "2")),
	roberta("XLM-RoBERTa", "XLMRoberta", "xlm-roberta", "roberta", bertDefs("30522", "768", "12", "3072", "512", "2")),
	roberta("CamemBERT", "Camembert", "camembert", "roberta", bertDefs("30522", "768", "12", "3072", "512", "2")),
	roberta("Data2VecText", "Data2VecText", "data2vec-text", "data2vec_text", bertDefs("30522", "768", "12", "3072", "512", "2")),
	bertLike("RoBERTa-PreLayerNorm", "RobertaPreLayerNorm", "roberta-prelayernorm", "RobertaPreLayerNormForCausalLM", "roberta_prelayernorm",
		cat(bertDefs("50265", "768", "12", "3072", "512", "2"), relPos),
		bertEmbeddings("roberta_prelayernorm.embeddings.", "H", true, true), robertaPreLN,
		cat(norm("roberta_prelayernorm.LayerNorm", "H", "true"), robertaHead()), "lm_head.decoder.weight"),
	bertLike("XLM-RoBERTa-XL", "XLMRobertaXL", "xlm-roberta-xl", "XLMRobertaXLForCausalLM", "roberta",
		cat(bertDefs("250880", "2560", "32", "10240", "514", "1"), relPos),
		bertEmbeddings("roberta.embeddings.", "H", true, false), xlLN,
		cat(norm("roberta.encoder.LayerNorm", "H", "true"), robertaHead()), "lm_head.decoder.weight"),
)

// Seq2seq decoders used alone (their ForCausalLM classes): BART's decoder
// layer — self-attention, cross-attention to an encoder, fc1/fc2, each
// with a post LayerNorm — under model.decoder.layers.{l}.

// s2sDefs are the decoder's fields, each "field=default" (the class's).
func s2sDefs(vocab, hidden, layers, ffn string) []Def {
	split := func(s string) (string, string) {
		for i := range s {
			if s[i] == '=' {
				return s[:i], s[i+1:]
			}
		}
		return s, ""
	}
	vf, vd := split(vocab)
	hf, hd := split(hidden)
	lf, ld := split(layers)
	ff, fd := split(ffn)
	return []Def{
		{Sym: "V", Field: vf, Default: vd, Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: hf, Default: hd, Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
		{Sym: "L", Field: lf, Default: ld, Legend: "L", Desc: "decoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "F", Field: ff, Default: fd, Legend: "F", Desc: "FFN inner width", Show: true, Pos: true},
	}
}

// posDef is max_position_embeddings (or the field named) with its default.
func posDef(field, def string) Def {
	return Def{Sym: "P", Field: field, Default: def, Legend: "P", Desc: "positions", Show: true, Pos: true}
}

// s2sAttn is a BART attention under pre: q, k, v, out_proj [H, H];
// qvoBias and kBias are the conditions of their biases.
func s2sAttn(pre, qvoBias, kBias string) []T {
	return cat(linear(pre+"q_proj", "H", "H", qvoBias), linear(pre+"k_proj", "H", "H", kBias),
		linear(pre+"v_proj", "H", "H", qvoBias), linear(pre+"out_proj", "H", "H", qvoBias))
}

// s2sLayer is the BART decoder layer: cross says whether it has
// encoder_attn; attnBias, kBias and fcBias the biases' conditions.
func s2sLayer(cross bool, attnBias, kBias, fcBias string) []T {
	ts := cat(s2sAttn("self_attn.", attnBias, kBias), norm("self_attn_layer_norm", "H", "true"))
	if cross {
		ts = cat(ts, s2sAttn("encoder_attn.", attnBias, kBias), norm("encoder_attn_layer_norm", "H", "true"))
	}
	return cat(ts, linear("fc1", "F", "H", fcBias), linear("fc2", "H", "F", fcBias), norm("final_layer_norm", "H", "true"))
}

// decoderPositions is a decoder's position table: BART's learned one is
// offset by 2 ([P+2, H]), others' learned or sinusoidal ones are [P, H].
func decoderPositions(shape string) []T {
	return []T{{Name: "model.decoder.embed_positions.weight", Shape: []string{shape, "H"}, Role: RoleEmbedding}}
}

var (
	embLN   = norm("model.decoder.layernorm_embedding", "H", "true")
	finalLN = norm("model.decoder.layer_norm", "H", "true")
	bartLM  = lmHead("lm_head.weight")
)

// seq2seqDecoder is a BART-layout decoder family; the LM head is tied to
// embed_tokens by default (PretrainedConfig's tie_word_embeddings).
func seq2seqDecoder(name, class, mt string, defs []Def, global []T, layer []T, final []T) *Family {
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, SeqCls: "-", Tasks: noTasks,
		Defs:   cat(defs, []Def{tie("true")}),
		Global: cat([]T{{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding}}, global),
		Stacks: []Stack{{Prefix: "model.decoder.layers.{l}.", Layers: "L", Tensors: layer}},
		Final:  cat(final, bartLM),
		Embed:  "model.decoder.embed_tokens.weight",
	}
}

var bartLayer = s2sLayer(true, "true", "true", "true")

// mvpPrompt is MVP's prompt module under pre (use_prompt).
func mvpPrompt(pre string) []T {
	return cat([]T{{Name: pre + "prompt_embedding.weight", Shape: []string{"PL", "H"}, Role: RoleEmbedding}},
		linear(pre+"prompt_trans.0", "PM", "H", "true"), linear(pre+"prompt_trans.2", "L*2*H", "PM", "true"))
}

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
	seq2seqDecoder("BART", "Bart", "bart", cat(s2sDefs("vocab_size=50265", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "1024")}),
		cat(decoderPositions("P+2"), embLN), bartLayer, nil),
	seq2seqDecoder("mBART", "MBart", "mbart", cat(s2sDefs("vocab_size=50265", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "1024")}),
		cat(decoderPositions("P+2"), embLN), bartLayer, finalLN),
	seq2seqDecoder("PLBart", "PLBart", "plbart", cat(s2sDefs("vocab_size=50005", "d_model=768", "decoder_layers=6", "decoder_ffn_dim=3072"), []Def{posDef("max_position_embeddings", "1024")}),
		cat(decoderPositions("P+2"), embLN), bartLayer, nil),
	seq2seqDecoder("MVP", "Mvp", "mvp", cat(s2sDefs("vocab_size=50267", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "1024"),
		flag("prompt", "use_prompt", "false", "layer-wise prompts"), opt("PL", "prompt_length", "100"), opt("PM", "prompt_mid_dim", "800")}),
		cat(decoderPositions("P+2"), embLN, when("prompt", mvpPrompt("model.decoder.self_attn_prompt."), mvpPrompt("model.decoder.cross_attn_prompt."))), bartLayer, nil),
	// Marian: a sinusoidal table [P, H], and a decoder vocabulary of its own.
	seq2seqDecoder("Marian", "Marian", "marian", cat(
		[]Def{{Sym: "Vsrc", Field: "vocab_size", Default: "58101", Pos: true}},
		withNull(s2sDefs("decoder_vocab_size=Vsrc", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), "V", "Vsrc"),
		[]Def{posDef("max_position_embeddings", "1024")}),
		decoderPositions("P"), bartLayer, nil).
		// MarianForCausalLM's head is Linear(H, vocab_size): decoder_vocab_size
		// only through tying to embed_tokens.
		withFinal([]T{{Name: "lm_head.weight", Shape: []string{"tied ? V : Vsrc", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}}),
	seq2seqDecoder("Pegasus", "Pegasus", "pegasus", cat(s2sDefs("vocab_size=50265", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "1024")}),
		decoderPositions("P"), bartLayer, finalLN),
	seq2seqDecoder("Blenderbot", "Blenderbot", "blenderbot", cat(s2sDefs("vocab_size=8008", "d_model=2560", "decoder_layers=24", "decoder_ffn_dim=10240"), []Def{posDef("max_position_embeddings", "128")}),
		decoderPositions("P"), bartLayer, finalLN),
	seq2seqDecoder("BlenderbotSmall", "BlenderbotSmall", "blenderbot-small", cat(s2sDefs("vocab_size=50265", "d_model=512", "decoder_layers=8", "decoder_ffn_dim=2048"), []Def{posDef("max_position_embeddings", "512")}),
		cat(decoderPositions("P"), embLN), bartLayer, nil),
	// BigBirdPegasus: attention without biases unless use_bias.
	seq2seqDecoder("BigBirdPegasus", "BigBirdPegasus", "bigbird_pegasus", cat(s2sDefs("vocab_size=96103", "d_model=1024", "decoder_layers=16", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "4096"),
		flag("use_bias", "use_bias", "false", "attention projections have biases")}),
		cat(decoderPositions("P"), embLN), s2sLayer(true, "use_bias", "use_bias", "true"), nil),
	// TrOCR: learned positions (offset 2) or sinusoidal ones not written.
	func() *Family {
		f := seq2seqDecoder("TrOCR", "TrOCR", "trocr", cat(s2sDefs("vocab_size=50265", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "512"),
			flag("learned", "use_learned_position_embeddings", "true", "learned positions"),
			flag("emb_ln", "layernorm_embedding", "true", "a LayerNorm after the embeddings"),
			// The encoder's width the cross-attention's keys and values read
			// (TrOCR-base: a 768-wide ViT under a 1024-wide decoder).
			{Sym: "xk", Field: "cross_attention_hidden_size", Default: "H", Null: "H", Desc: "width of the encoder states the cross-attention reads"}}),
			cat(when("learned", decoderPositions("P+2")), when("emb_ln", embLN)),
			cat(s2sAttn("self_attn.", "true", "true"), norm("self_attn_layer_norm", "H", "true"),
				linear("encoder_attn.q_proj", "H", "H", "true"), linear("encoder_attn.k_proj", "H", "xk", "true"),
				linear("encoder_attn.v_proj", "H", "xk", "true"), linear("encoder_attn.out_proj", "H", "H", "true"),
				norm("encoder_attn_layer_norm", "H", "true"),
				linear("fc1", "F", "H", "true"), linear("fc2", "H", "F", "true"), norm("final_layer_norm", "H", "true")), nil)
		f.Final = lmHead("output_projection.weight")
		f.Head = "output_projection.weight"
		return f
	}(),
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

// withNull returns ds with the definition of sym taking null to mean x
// (decoder_vocab_size: null is vocab_size).
func withNull(ds []Def, sym, x string) []Def {
	out := append([]Def(nil), ds...)
	for i := range out {
		if out[i].Sym == sym {
			out[i].Null = x
		}
	}
	return out
}

var _ = register(
	// ModernBERT-decoder: no attention norm in layer 0, a GLU MLP (Wi
	// [2I, H]), biases only where the *_bias switches say.
	&Family{Name: "ModernBERT-decoder", Class: "ModernBertDecoder", ModelTypes: []string{"modernbert-decoder"}, SeqCls: "-",
		Defs: cat(trunk("50368", "768", "22", "decoder layers"), []Def{
			{Sym: "I", Field: "intermediate_size", Default: "1152", Legend: "I", Desc: "MLP inner width", Show: true, Pos: true},
			flag("attention_bias", "attention_bias", "false", "attention projections have biases"),
			flag("mlp_bias", "mlp_bias", "false", "MLP projections have biases"),
			flag("norm_bias", "norm_bias", "false", "layer norms have biases"),
			flag("cls_bias", "classifier_bias", "false", "the head's dense has a bias"),
			flag("dec_bias", "decoder_bias", "true", "the decoder has a bias"),
			tie("true"),
		}),
		Global: cat(embed("model.embeddings.tok_embeddings.weight"), norm("model.embeddings.norm", "H", "norm_bias")),
		Stacks: decoderLayers([]Kind{{Name: "first", If: "l == 0"}, {Name: "rest"}},
			when("rest", norm("attn_norm", "H", "norm_bias")),
			linear("attn.q_proj", "H", "H", "attention_bias"), linear("attn.k_proj", "H", "H", "attention_bias"),
			linear("attn.v_proj", "H", "H", "attention_bias"), linear("attn.Wo", "H", "H", "attention_bias"),
			norm("mlp_norm", "H", "norm_bias"),
			linear("mlp.Wi", "2*I", "H", "mlp_bias"), linear("mlp.Wo", "H", "I", "mlp_bias")),
		Final: cat(norm("model.final_norm", "H", "norm_bias"), linear("lm_head.dense", "H", "H", "cls_bias"), norm("lm_head.norm", "H", "norm_bias"),
			[]T{{Name: "decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied", If: "causal"}},
			vecIf("decoder.bias", "V", "dec_bias && causal")),
		Embed: "model.embeddings.tok_embeddings.weight", Head: "decoder.weight",
	},
	// XLM: per-layer modules in parallel lists (attentions.{l},
	// layer_norm1.{l}, ffns.{l}, layer_norm2.{l}), FFN 4·E, the output
	// projection tied to the embeddings.
	&Family{Name: "XLM", Class: "XLM", ModelTypes: []string{"xlm"}, Causal: "XLMWithLMHeadModel", SeqCls: "-",
		Defs: []Def{
			{Sym: "V", Field: "vocab_size", Default: "30145", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "emb_dim", Default: "2048", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
			{Sym: "L", Field: "n_layers", Default: "12", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "learned positions", Show: true, Pos: true},
			opt("langs", "n_langs", "1"),
			flag("lang_emb", "use_lang_emb", "true", "language embeddings (when n_langs > 1)"),
			flag("sinusoidal", "sinusoidal_embeddings", "false", "fixed sinusoidal positions"),
			tie("true"),
		},
		Global: cat(embed("transformer.embeddings.weight"),
			[]T{{Name: "transformer.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding},
				{Name: "transformer.lang_embeddings.weight", Shape: []string{"langs", "H"}, Role: RoleEmbedding, If: "langs > 1 && lang_emb"}},
			norm("transformer.layer_norm_emb", "H", "true")),
		Stacks: []Stack{
			{Prefix: "transformer.attentions.{l}.", Layers: "L", Tensors: cat(linear("q_lin", "H", "H", "true"), linear("k_lin", "H", "H", "true"),
				linear("v_lin", "H", "H", "true"), linear("out_lin", "H", "H", "true"))},
			{Prefix: "transformer.layer_norm1.{l}.", Layers: "L", Tensors: vecs("H", "weight", "bias")},
			{Prefix: "transformer.ffns.{l}.", Layers: "L", Tensors: plainMLP("lin1", "lin2", "4*H", "true")},
			{Prefix: "transformer.layer_norm2.{l}.", Layers: "L", Tensors: vecs("H", "weight", "bias")},
		},
		Final: []T{{Name: "pred_layer.proj.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "pred_layer.proj.bias", Shape: []string{"V"}, Role: RoleBias}},
		Embed: "transformer.embeddings.weight", Head: "pred_layer.proj.weight",
	},
)

// vecs are vectors [dim] with the given names (a norm written as a list
// element: layer_norm1.{l}.weight, .bias).
func vecs(dim string, names ...string) []T {
	var out []T
	for _, n := range names {
		out = append(out, T{Name: n, Shape: []string{dim}, Role: RoleNorm})
	}
	return out
}

// prophetNetAttn is a ProphetNet attention under pre.
func prophetNetAttn(pre string) []T {
	return cat(linear(pre+"query_proj", "H", "H", "true"), linear(pre+"key_proj", "H", "H", "true"),
		linear(pre+"value_proj", "H", "H", "true"), linear(pre+"out_proj", "H", "H", "true"))
}

// prophetNet is ProphetNet's decoder (ForCausalLM): n-gram streams,
// bucketed relative positions in self-attention, cross-attention when
// add_cross_attention (ProphetNetConfig's true).
func prophetNet(name, class, mt string) *Family {
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, SeqCls: "-",
		Defs: cat(trunkAt("vocab_size=30522", "hidden_size=1024", "num_decoder_layers=12", "decoder layers"), []Def{
			{Sym: "heads", Field: "num_decoder_attention_heads", Default: "16", Desc: "attention heads", Show: true, Pos: true},
			{Sym: "F", Field: "decoder_ffn_dim", Default: "4096", Legend: "F", Desc: "FFN inner width", Show: true, Pos: true},
			{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "learned positions", Show: true, Pos: true},
			opt("ngram", "ngram", "2"), opt("buckets", "num_buckets", "32"),
			flag("cross", "add_cross_attention", "true", "each layer has cross-attention to an encoder"),
			tie("true"),
		}),
		Global: cat(embed("prophetnet.word_embeddings.weight"),
			[]T{{Name: "prophetnet.decoder.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding},
				{Name: "prophetnet.decoder.ngram_embeddings.weight", Shape: []string{"ngram", "H"}, Role: RoleEmbedding}},
			norm("prophetnet.decoder.embeddings_layer_norm", "H", "true")),
		Stacks: []Stack{{Prefix: "prophetnet.decoder.layers.{l}.", Layers: "L", Tensors: cat(
			prophetNetAttn("self_attn."), linear("self_attn.relative_pos_embeddings", "buckets*heads", "H", "true"),
			norm("self_attn_layer_norm", "H", "true"),
			when("cross", prophetNetAttn("cross_attn."), norm("cross_attn_layer_norm", "H", "true")),
			linear("feed_forward.intermediate", "F", "H", "true"), linear("feed_forward.output", "H", "F", "true"),
			norm("feed_forward_layer_norm", "H", "true"))}},
		Final: lmHead("lm_head.weight"),
		Embed: "prophetnet.word_embeddings.weight",
	}
}

// xlnetT is an XLNet parameter: checkpoints keep the relative-attention
// tensors in float32 whatever the rest, so dtypes are not held here.
func xlnetT(name string, shape ...string) T {
	return T{Name: name, Shape: shape, Role: RoleLinear, AnyDType: true}
}

var _ = register(
	prophetNet("ProphetNet", "ProphetNet", "prophetnet"),
	prophetNet("XLM-ProphetNet", "XLMProphetNet", "xlm-prophetnet"),
	// XLNet: two-stream relative attention with [H, heads, d] projections.
	&Family{Name: "XLNet", Class: "XLNet", ModelTypes: []string{"xlnet"}, Causal: "XLNetLMHeadModel", SeqCls: "-",
		Defs: []Def{
			{Sym: "V", Field: "vocab_size", Default: "32000", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
			{Sym: "H", Field: "d_model", Default: "1024", Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
			{Sym: "L", Field: "n_layer", Default: "24", Legend: "L", Desc: "layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "n_head", Default: "16", Desc: "attention heads", Show: true, Pos: true, Divides: "H"},
			{Sym: "d", Field: "d_head", Default: "H/heads", Legend: "d", Desc: "width of one head", Show: true, Pos: true},
			{Sym: "I", Field: "d_inner", Default: "4096", Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
			tie("true"),
		},
		Global: []T{{Name: "transformer.word_embedding.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, AnyDType: true},
			{Name: "transformer.mask_emb", Shape: []string{"1", "1", "H"}, Role: RoleNorm, AnyDType: true}},
		Stacks: []Stack{{Prefix: "transformer.layer.{l}.", Layers: "L", Tensors: anyDType(cat(
			[]T{xlnetT("rel_attn.q", "H", "heads", "d"), xlnetT("rel_attn.k", "H", "heads", "d"), xlnetT("rel_attn.v", "H", "heads", "d"),
				xlnetT("rel_attn.o", "H", "heads", "d"), xlnetT("rel_attn.r", "H", "heads", "d"),
				xlnetT("rel_attn.r_r_bias", "heads", "d"), xlnetT("rel_attn.r_s_bias", "heads", "d"), xlnetT("rel_attn.r_w_bias", "heads", "d"),
				xlnetT("rel_attn.seg_embed", "2", "heads", "d")},
			norm("rel_attn.layer_norm", "H", "true"),
			plainMLP("ff.layer_1", "ff.layer_2", "I", "true"), norm("ff.layer_norm", "H", "true")))}},
		Final: anyDType([]T{{Name: "lm_loss.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "lm_loss.bias", Shape: []string{"V"}, Role: RoleBias}}),
		Embed: "transformer.word_embedding.weight", Head: "lm_loss.weight",
	},
)

// anyDType marks tensors whose dtype is not held to config.json's.
func anyDType(ts []T) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		out[i].AnyDType = true
	}
	return out
}
