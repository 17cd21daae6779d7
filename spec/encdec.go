package spec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Encoder-decoder models and the decoders of encoder-decoder pairs (BART,
// Marian, ProphetNet, TrOCR, …), and the composite VisionEncoderDecoder.

// encoderPart is an encoder of an encoder-decoder composition: its
// symbols (e…, fields under "encoder.") and tensors (names under
// "encoder.").
type encoderPart struct {
	Name   string
	Defs   []Def
	Global []T
	Stacks []Stack
	Final  []T
	// Variants are the part's other layouts, in the part's names
	// (familyPart; a composition joins them to its own: joinVariants).
	Variants [][][2]string
}

// encDec is an encoder-decoder composition (VisionEncoderDecoderModel):
// the encoder encoder.model_type names (a table of its own), and the
// decoder decoder.model_type names — the registered causal-LM family of
// that model_type, its fields read from "decoder.", its names under
// "decoder." — joined by enc_to_dec_proj when the widths differ.
type encDec struct {
	Family
	encoders map[string]encoderPart
	// anyEncoder: an encoder model_type without an entry in encoders is
	// the base model of its registered family (familyEncoder).
	anyEncoder bool
	// adapterOut: the encoder's output width is its output_hidden_size
	// where it has one (a speech encoder's adapter), which decides
	// enc_to_dec_proj; the projection still reads its hidden_size
	// (SpeechEncoderDecoderModel).
	adapterOut bool
	// decDefaults are the core dimensions of a decoder config class that
	// its family requires but a decoder config may leave out, as
	// transformers fills them from the class (GPT2Config's 768).
	decDefaults map[string]map[string]string
	cache       sync.Map // "encoder/decoder" model_types → *Family
}

func (v *encDec) register() *Family {
	return &Family{Name: v.Name, Class: v.Class, ConfigClass: v.ConfigClass, ModelTypes: v.ModelTypes,
		Causal: v.Causal, SeqCls: "-", Tasks: noTasks, compose: v.compose}
}

// subType is the model_type of the sub-config at field ("encoder").
func subType(c *Config, field string) string {
	var s string
	if raw, ok := c.lookup(field + ".model_type"); ok {
		_ = json.Unmarshal(raw, &s)
	}
	return s
}

func (v *encDec) compose(c *Config) (*Family, error) {
	emt, dmt := subType(c, "encoder"), subType(c, "decoder")
	key := emt + "/" + dmt
	if f, ok := v.cache.Load(key); ok {
		return f.(*Family), nil
	}
	enc, ok := v.encoders[emt]
	if !ok && v.anyEncoder {
		enc, ok = familyEncoder(emt)
	}
	if !ok {
		return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
			Reason: fmt.Sprintf("its encoder, encoder.model_type %q, has no spec", emt)}
	}
	df := familyOf(dmt)
	if df == nil || df.compose != nil || df.causal() == "" {
		return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
			Reason: fmt.Sprintf("its decoder, decoder.model_type %q, has no causal-LM spec", dmt)}
	}
	dec := [][2]string{{"", "decoder."}}
	f := &Family{Name: v.Name + " (" + enc.Name + " + " + df.Name + ")", Class: v.Class, ConfigClass: v.ConfigClass, ModelTypes: v.ModelTypes,
		Causal: v.Causal, SeqCls: "-", Tasks: noTasks, Embed: "decoder." + df.Embed, Head: "decoder." + df.Head}
	for _, d := range df.Defs {
		if d.Field != "" {
			alts := strings.Split(d.Field, "|")
			for i := range alts {
				alts[i] = "decoder." + alts[i]
			}
			d.Field = strings.Join(alts, "|")
			if x, ok := v.decDefaults[dmt][d.Sym]; ok && d.Default == "" {
				d.Default = x
			}
		}
		f.Defs = append(f.Defs, d)
	}
	f.Defs = cat(f.Defs, enc.Defs, []Def{
		{Sym: "xH", Field: "decoder.cross_attention_hidden_size", Default: "0", Null: "=", Desc: "width the decoder's cross-attention reads (0: its own)"}})
	f.Global = cat(enc.Global, rerootTs(df.Global, dec))
	f.Stacks = append(f.Stacks, enc.Stacks...)
	for _, s := range df.Stacks {
		s.Prefix = "decoder." + s.Prefix
		f.Stacks = append(f.Stacks, s)
	}
	out := "eH"
	if v.adapterOut && hasDef(enc.Defs, "e_OH") {
		out = "e_OH"
	}
	f.Final = cat(enc.Final, rerootTs(df.Final, dec),
		// The encoder's output into the decoder's width, when they differ
		// and the decoder does not cross-attend at the encoder's width.
		when(out+" != H && xH == 0", linear("enc_to_dec_proj", "H", "eH", "true")))
	for _, ig := range df.Ignore {
		if strings.HasPrefix(ig, "^") {
			ig = `^decoder\.` + ig[1:]
		}
		f.Ignore = append(f.Ignore, ig)
	}
	if err := f.compile(); err != nil {
		return nil, fmt.Errorf("spec: %s with %s and %s: %w", v.Name, enc.Name, df.Name, err)
	}
	v.cache.Store(key, f)
	return f, nil
}

var bartLayer = s2sLayer(true, "true", "true", "true")

// mvpPrompt is MVP's prompt module under pre (use_prompt).
func mvpPrompt(pre string) []T {
	return cat([]T{{Name: pre + "prompt_embedding.weight", Shape: []string{"PL", "H"}, Role: RoleEmbedding}},
		linear(pre+"prompt_trans.0", "PM", "H", "true"), linear(pre+"prompt_trans.2", "L*2*H", "PM", "true"))
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
				{Name: "prophetnet.decoder.ngram_embeddings.weight", Shape: []string{"ngram", "H"}, Role: RoleEmbedding},
				// Untied, 5.x also writes the decoder's own copy of the
				// word embeddings.
				{Name: "prophetnet.decoder.word_embeddings.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5 && !tied"}},
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

// t5SelfAttn is a T5 attention under pre (q, k, v [heads·d_kv, H], o),
// no biases; bias adds the relative-position bucket table (a stack's
// first block).
func t5SelfAttn(pre string, bias bool) []T {
	ts := cat(linear(pre+"q", "heads*dkv", "H", ""), linear(pre+"k", "heads*dkv", "H", ""), linear(pre+"v", "heads*dkv", "H", ""),
		linear(pre+"o", "H", "heads*dkv", ""))
	if bias {
		ts = append(ts, T{Name: pre + "relative_attention_bias.weight", Shape: []string{"buckets", "heads"}, Role: RoleEmbedding, If: "l == 0"})
	}
	return ts
}

// t5FFN is T5's DenseReluDense under pre: wi (or gated wi_0 and wi_1) and
// wo, no biases.
func t5FFN(pre string) []T {
	return cat(when("!gated", linear(pre+"wi", "F", "H", "")), when("gated", linear(pre+"wi_0", "F", "H", ""), linear(pre+"wi_1", "F", "H", "")),
		linear(pre+"wo", "H", "F", ""))
}

// udopBiases are a UDOP stack's relative_bias_args biases under pre: one
// bucket table per entry that is not '1d' (the 1d ones are tied to the
// first block's and stored there), relative_attention_num_buckets rows
// (+2 with prefix_bucket, unless expand).
func udopBiases(pre string) []T {
	entry := func(k, def string) string {
		return "(len(rb) > 0 ? key(at(rb, e), '" + k + "', " + def + ") : " + def + ")"
	}
	return []T{{Name: pre + "relative_bias.biases.{e}.relative_attention_bias.weight", Role: RoleEmbedding, Experts: "len(rb) > 0 ? len(rb) : 3", PerCopy: true,
		If:    "keep1d || (len(rb) > 0 ? key(at(rb, e), 'type', '') : (e == 0 ? '1d' : 'horizontal')) != '1d'",
		Shape: []string{entry("relative_attention_num_buckets", "32") + " + (" + entry("prefix_bucket", "0") + " && !" + entry("expand", "0") + " ? 2 : 0)", "heads"}}}
}

var _ = register(
	func() *Family {
		return seq2seqDecoder("BART", "Bart", "bart", cat(s2sDefs("vocab_size=50265", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "1024")}),
			cat(decoderPositions("P+2"), embLN), bartLayer, nil)
	},
	func() *Family {
		return seq2seqDecoder("mBART", "MBart", "mbart", cat(s2sDefs("vocab_size=50265", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "1024")}),
			cat(decoderPositions("P+2"), embLN), bartLayer, finalLN)
	},
	func() *Family {
		return seq2seqDecoder("PLBart", "PLBart", "plbart", cat(s2sDefs("vocab_size=50005", "d_model=768", "decoder_layers=6", "decoder_ffn_dim=3072"), []Def{posDef("max_position_embeddings", "1024")}),
			cat(decoderPositions("P+2"), embLN), bartLayer, nil)
	},
	func() *Family {
		return seq2seqDecoder("MVP", "Mvp", "mvp", cat(s2sDefs("vocab_size=50267", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "1024"),
			flag("prompt", "use_prompt", "false", "layer-wise prompts"), opt("PL", "prompt_length", "100"), opt("PM", "prompt_mid_dim", "800")}),
			// MvpForCausalLM builds its decoder without prompts whatever
			// use_prompt says; the encoder-decoder's decoder has them.
			cat(decoderPositions("P+2"), embLN, when("prompt && !causal", mvpPrompt("model.decoder.self_attn_prompt."), mvpPrompt("model.decoder.cross_attn_prompt."))), bartLayer, nil)
	},
	// Marian: a sinusoidal table [P, H], and a decoder vocabulary of its own.
	func() *Family {
		return seq2seqDecoder("Marian", "Marian", "marian", cat(
			[]Def{{Sym: "Vsrc", Field: "vocab_size", Default: "58101", Pos: true}},
			withNull(s2sDefs("decoder_vocab_size=Vsrc", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), "V", "Vsrc"),
			[]Def{posDef("max_position_embeddings", "1024")}),
			decoderPositions("P"), bartLayer, nil).
			// MarianForCausalLM's head is Linear(H, vocab_size): decoder_vocab_size
			// only through tying to embed_tokens.
			withFinal([]T{{Name: "lm_head.weight", Shape: []string{"tied ? V : Vsrc", "H"}, Role: RoleHead, If: "causal", Optional: "tied"}})
	},
	func() *Family {
		return seq2seqDecoder("Pegasus", "Pegasus", "pegasus", cat(s2sDefs("vocab_size=50265", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "1024")}),
			decoderPositions("P"), bartLayer, finalLN)
	},
	func() *Family {
		return seq2seqDecoder("Blenderbot", "Blenderbot", "blenderbot", cat(s2sDefs("vocab_size=8008", "d_model=2560", "decoder_layers=24", "decoder_ffn_dim=10240"), []Def{posDef("max_position_embeddings", "128")}),
			decoderPositions("P"), bartLayer, finalLN)
	},
	func() *Family {
		return seq2seqDecoder("BlenderbotSmall", "BlenderbotSmall", "blenderbot-small", cat(s2sDefs("vocab_size=50265", "d_model=512", "decoder_layers=8", "decoder_ffn_dim=2048"), []Def{posDef("max_position_embeddings", "512")}),
			cat(decoderPositions("P"), embLN), bartLayer, nil)
	},
	// BigBirdPegasus: attention without biases unless use_bias.
	func() *Family {
		return seq2seqDecoder("BigBirdPegasus", "BigBirdPegasus", "bigbird_pegasus", cat(s2sDefs("vocab_size=96103", "d_model=1024", "decoder_layers=16", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "4096"),
			flag("use_bias", "use_bias", "false", "attention projections have biases")}),
			cat(decoderPositions("P"), embLN), s2sLayer(true, "use_bias", "use_bias", "true"), nil)
	},
	// TrOCR: learned positions (offset 2) or sinusoidal ones not written.
	func() *Family {
		return func() *Family {
			f := seq2seqDecoder("TrOCR", "TrOCR", "trocr", cat(s2sDefs("vocab_size=50265", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{posDef("max_position_embeddings", "512"),
				flag("learned", "use_learned_position_embeddings", "true", "learned positions"),
				flag("emb_ln", "layernorm_embedding", "true", "a LayerNorm after the embeddings"),
				// The encoder's width the cross-attention's keys and values read
				// (TrOCR-base: a 768-wide ViT under a 1024-wide decoder).
				{Sym: "xk", Field: "cross_attention_hidden_size", Default: "H", Null: "H", Desc: "width of the encoder states the cross-attention reads"}}),
				// Sinusoidal positions keep a persistent buffer, _float_tensor,
				// that 4.x writes and 5.x no longer has.
				cat(when("learned", decoderPositions("P+2")), when("emb_ln", embLN),
					[]T{{Name: "model.decoder.embed_positions._float_tensor", Shape: []string{"1"}, Role: RoleNorm, AnyDType: true, If: "!learned", Optional: "tf5"}}),
				cat(s2sAttn("self_attn.", "true", "true"), norm("self_attn_layer_norm", "H", "true"),
					linear("encoder_attn.q_proj", "H", "H", "true"), linear("encoder_attn.k_proj", "H", "xk", "true"),
					linear("encoder_attn.v_proj", "H", "xk", "true"), linear("encoder_attn.out_proj", "H", "H", "true"),
					norm("encoder_attn_layer_norm", "H", "true"),
					linear("fc1", "F", "H", "true"), linear("fc2", "H", "F", "true"), norm("final_layer_norm", "H", "true")), nil)
			f.Final = lmHead("output_projection.weight")
			f.Head = "output_projection.weight"
			return f
		}()
	},
	func() *Family { return prophetNet("ProphetNet", "ProphetNet", "prophetnet") },
	func() *Family { return prophetNet("XLM-ProphetNet", "XLMProphetNet", "xlm-prophetnet") },
	// VisionEncoderDecoder: a ViT, DeiT, Swin or Donut-Swin encoder and any decoder with a
	// causal-LM spec (GPT-2, BERT, RoBERTa, TrOCR, mBART, …), its
	// cross-attention switched on by add_cross_attention as the
	// composition sets it.
	func() *Family {
		return (&encDec{Family: Family{Name: "VisionEncoderDecoder", Class: "VisionEncoderDecoder", ModelTypes: []string{"vision-encoder-decoder"},
			Causal: "VisionEncoderDecoderModel"},
			encoders: map[string]encoderPart{
				"vit":        vitEncoder("ViT", "encoder.", "encoder.", 1),
				"deit":       vitEncoder("DeiT", "encoder.", "encoder.", 2),
				"swin":       swinEncoder("Swin", "encoder.", "encoder.", true),
				"donut-swin": swinEncoder("Donut-Swin", "encoder.", "encoder.", false),
			},
			decDefaults: map[string]map[string]string{"gpt2": {"V": "50257", "H": "768", "heads": "12"}},
		}).register()
	},
	// EncoderDecoder (BERT2BERT and kin): any encoder whose family has a
	// base-model spec, and any decoder with a causal-LM spec.
	func() *Family {
		return (&encDec{Family: Family{Name: "EncoderDecoder", Class: "EncoderDecoder", ModelTypes: []string{"encoder-decoder"},
			Causal: "EncoderDecoderModel"}, anyEncoder: true,
			decDefaults: map[string]map[string]string{"gpt2": {"V": "50257", "H": "768", "heads": "12"}},
		}).register()
	},
	// SpeechEncoderDecoder: any speech encoder with a base-model spec
	// (wav2vec2 and its lineage, the conformers) and any decoder with a
	// causal-LM spec; an encoder adapter of another width decides the
	// projection.
	func() *Family {
		return (&encDec{Family: Family{Name: "SpeechEncoderDecoder", Class: "SpeechEncoderDecoder", ModelTypes: []string{"speech-encoder-decoder"},
			Causal: "SpeechEncoderDecoderModel"}, anyEncoder: true, adapterOut: true,
			decDefaults: map[string]map[string]string{"gpt2": {"V": "50257", "H": "768", "heads": "12"}},
		}).register()
	},
	// UDOP: a T5 encoder-decoder over text and image patches (a shared
	// patch embedding, 2-D cell position embeddings in the encoder) with
	// the relative biases relative_bias_args lists in both stacks.
	func() *Family {
		return &Family{Name: "UDOP", Class: "Udop", ModelTypes: []string{"udop"}, Causal: "UdopForConditionalGeneration", SeqCls: "-",
			Defs: cat(trunkAt("vocab_size=33201", "d_model=1024", "num_layers=24", "encoder blocks"), []Def{
				{Sym: "Ld", Field: "num_decoder_layers", Default: "L", Null: "L", Legend: "Ld", Desc: "decoder blocks", Show: true, Pos: true, Max: MaxLayers},
				{Sym: "heads", Field: "num_heads", Default: "16", Desc: "attention heads of {dkv}", Show: true, Pos: true},
				opt("dkv", "d_kv", "64"),
				{Sym: "F", Field: "d_ff", Default: "4096", Legend: "F", Desc: "FFN inner width", Show: true, Pos: true},
				{Sym: "ffp", Field: "feed_forward_proj", Type: Str, Default: "'relu'", Desc: "the FFN's activation, gated-… for a gated FFN"},
				{Sym: "gated", Field: "is_gated_act", Type: Bool, Default: "ffp == 'gated-gelu' || ffp == 'gated-relu' || ffp == 'gated-silu' || ffp == 'gated-gelu_new'", Desc: "the FFN is gated (wi_0, wi_1)"},
				opt("buckets", "relative_attention_num_buckets", "32"),
				list("rb", "relative_bias_args", "the relative biases (absent: 1d, horizontal, vertical)"),
				opt("max2d", "max_2d_position_embeddings", "1024"),
				opt("vP", "patch_size", "16"), opt("vC", "num_channels", "3"),
				// the 1-D biases are block 0's relative_attention_bias, tied
				// (not saved) but where UdopModel is written by 5.x (udopTasks).
				derived("keep1d", "false"),
				tie("true"),
			}),
			Global: cat([]T{{Name: "shared.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
				{Name: "encoder.cell_2d_embedding.x_position_embeddings.weight", Shape: []string{"max2d", "H"}, Role: RoleEmbedding},
				{Name: "encoder.cell_2d_embedding.y_position_embeddings.weight", Shape: []string{"max2d", "H"}, Role: RoleEmbedding},
				{Name: "patch_embed.proj.weight", Shape: []string{"H", "vC", "vP", "vP"}, Role: RoleLinear},
				{Name: "patch_embed.proj.bias", Shape: []string{"H"}, Role: RoleBias},
				// transformers 5.x writes the decoder's reference to the shared
				// patch embedding too.
				{Name: "decoder.embed_patches.proj.weight", Shape: []string{"H", "vC", "vP", "vP"}, Role: RoleLinear, Optional: "true"},
				{Name: "decoder.embed_patches.proj.bias", Shape: []string{"H"}, Role: RoleBias, Optional: "true"}},
				udopBiases("encoder."), udopBiases("decoder.")),
			Stacks: []Stack{
				{Name: "encoder", Prefix: "encoder.block.{l}.", Layers: "L", Tensors: cat(
					t5SelfAttn("layer.0.SelfAttention.", true), norm("layer.0.layer_norm", "H", ""), t5FFN("layer.1.DenseReluDense."), norm("layer.1.layer_norm", "H", ""))},
				{Prefix: "decoder.block.{l}.", Layers: "Ld", Tensors: cat(
					t5SelfAttn("layer.0.SelfAttention.", true), norm("layer.0.layer_norm", "H", ""),
					t5SelfAttn("layer.1.EncDecAttention.", false), norm("layer.1.layer_norm", "H", ""),
					t5FFN("layer.2.DenseReluDense."), norm("layer.2.layer_norm", "H", ""))},
			},
			Final: cat(norm("encoder.final_layer_norm", "H", ""), norm("decoder.final_layer_norm", "H", ""),
				[]T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}),
			Embed: "shared.weight",
		}
	},
)

// Seq2seq models in full (BartModel, BartForConditionalGeneration, …),
// built from the decoder family the model_type already has (its
// ForCausalLM, families_encoder.go): the encoder mirrors the decoder's
// embeddings and norms under model.encoder., with its own layer count and
// FFN width, and both read model.shared. Their task classes are listed
// with the decoder family (classTasks), each a task of the full model
// (Task.Of).

// s2sFull builds the full encoder-decoder of dec. noPositions drops the
// position tables (Marian's sinusoidal ones are not saved by the full
// model).
func s2sFull(dec *Family, noPositions bool, defs ...Def) *Family {
	var L, F Def
	for _, d := range dec.Defs {
		switch d.Sym {
		case "L":
			L = d
		case "F":
			F = d
		}
	}
	encField := func(f string) string { return strings.Replace(f, "decoder_", "encoder_", 1) }
	le := Def{Sym: "Le", Field: encField(L.Field), Default: L.Default, Legend: "Le", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers}
	fe := Def{Sym: "Fe", Field: encField(F.Field), Default: F.Default, Legend: "Fe", Desc: "encoder FFN inner width", Show: true, Pos: true}
	f := &Family{Name: dec.Name, Class: dec.Class, ConfigClass: dec.configClass(), ModelTypes: dec.ModelTypes,
		Causal: "-", SeqCls: "-", Embed: "model.shared.weight", Head: "lm_head.weight"}
	f.Defs = cat(dec.Defs, []Def{le, fe}, defs)
	for i, d := range f.Defs {
		for _, o := range defs {
			if o.Sym == d.Sym && i < len(dec.Defs)+2 {
				f.Defs[i] = o
			}
		}
	}
	f.Defs = f.Defs[:len(dec.Defs)+2]
	for _, o := range defs {
		if !hasDef(f.Defs, o.Sym) {
			f.Defs = append(f.Defs, o)
		}
	}
	keep := func(t T) bool {
		return t.Name != "model.decoder.embed_tokens.weight" && !(noPositions && strings.Contains(t.Name, "embed_positions"))
	}
	toEnc := func(ts []T) []T {
		var out []T
		for _, t := range ts {
			if keep(t) && strings.HasPrefix(t.Name, "model.decoder.") {
				t.Name = "model.encoder." + strings.TrimPrefix(t.Name, "model.decoder.")
				out = append(out, t)
			}
		}
		return out
	}
	// transformers 5.x saves the stacks' embed_tokens beside shared when
	// tie_word_embeddings is false (4.57 ties them whatever it says).
	f.Global = []T{{Name: "model.shared.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
		{Name: "model.encoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5 && !tied"},
		{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5 && !tied"}}
	f.Global = append(f.Global, toEnc(dec.Global)...)
	for _, t := range dec.Global {
		if keep(t) {
			f.Global = append(f.Global, t)
		}
	}
	// The encoder layer: the decoder's without cross-attention, Fe wide.
	var encLayer []T
	for _, t := range dec.Stacks[0].Tensors {
		if strings.HasPrefix(t.Name, "encoder_attn") {
			continue
		}
		for i, s := range t.Shape {
			if s == "F" {
				t.Shape = append([]string(nil), t.Shape...)
				t.Shape[i] = "Fe"
			}
		}
		encLayer = append(encLayer, t)
	}
	f.Stacks = []Stack{{Name: "encoder", Prefix: "model.encoder.layers.{l}.", Layers: "Le", Tensors: encLayer}, dec.Stacks[0]}
	f.Final = toEnc(dec.Final)
	for _, t := range dec.Final {
		if strings.HasPrefix(t.Name, "model.decoder.") {
			f.Final = append(f.Final, t)
		}
	}
	return f
}

func hasDef(ds []Def, sym string) bool {
	for _, d := range ds {
		if d.Sym == sym {
			return true
		}
	}
	return false
}

// s2sTasks are a BART-like model's task classes, of full: the base model,
// the generation class (its head tied to model.shared, the
// final_logits_bias buffer), a sequence classifier on the last EOS token
// and extractive QA.
func s2sTasks(full *Family) []Task {
	return []Task{
		{Suffix: TaskBase, Prefix: "-", Of: full},
		{Suffix: "ForConditionalGeneration", Of: full, HeadName: "lm_head.weight", Head: []T{
			{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "final_logits_bias", Shape: []string{"1", "V"}, Role: RoleBias, AnyDType: true}}},
		{Suffix: HeadSeqCls, Of: full, Head: linear2("classification_head.", "H"), Labels: true},
		{Suffix: TaskQA, Of: full, Head: qaHead("qa_outputs", "H")},
	}
}

// linear2 is BART's classification head under pre: dense, out_proj.
func linear2(pre, dim string) []T { return denseClassifier(pre, dim) }

// s2sOf is the full model of the registered decoder family of model_type
// mt.
func s2sOf(mt string, noPositions bool, defs ...Def) *Family {
	return s2sFull(familyOf(mt), noPositions, defs...)
}

func init() {
	for _, c := range []struct{ class, mt string }{
		{"Bart", "bart"}, {"MBart", "mbart"}, {"PLBart", "plbart"}, {"Pegasus", "pegasus"},
		{"Blenderbot", "blenderbot"}, {"BlenderbotSmall", "blenderbot-small"},
	} {
		classTasks[c.class] = s2sTasks(s2sOf(c.mt, false))
	}
	// Marian: the full model shares one vocabulary (vocab_size) between
	// encoder and decoder; MarianMTModel does not save the sinusoidal
	// position tables (_keys_to_ignore_on_save), MarianModel does.
	// Without share_encoder_decoder_embeddings, both embed_tokens are
	// saved instead, the decoder's [vocab_size, H] as transformers 4.57
	// ties it, [decoder_vocab_size, H] as 5.x builds it; the head and its
	// bias are decoder_vocab_size wide.
	marian := func(noPositions bool) *Family {
		f := s2sOf("marian", noPositions, Def{Sym: "V", Default: "Vsrc"})
		f.Defs = append(f.Defs, flag("share", "share_encoder_decoder_embeddings", "true", "encoder and decoder share one embedding"),
			Def{Sym: "Vd", Field: "decoder_vocab_size", Default: "Vsrc", Null: "Vsrc", Desc: "decoder vocabulary"},
			derived("Vout", "share ? Vsrc : Vd"))
		f.Global[0].If = "share"
		f.Global = slices.DeleteFunc(f.Global, func(t T) bool { return t.If == "tf5 && !tied" })
		// transformers 5.x also saves them when tie_word_embeddings is
		// false.
		f.Global = append(f.Global, T{Name: "model.encoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "!share || tf5 && !tied"},
			T{Name: "model.decoder.embed_tokens.weight", Shape: []string{"tf5 ? Vd : V", "H"}, Role: RoleEmbedding, If: "!share || tf5 && !tied"})
		return f
	}
	mt := marian(true)
	classTasks["Marian"] = []Task{s2sTasks(marian(false))[0], {Suffix: "MTModel", Of: mt, HeadName: "lm_head.weight", Head: []T{
		{Name: "lm_head.weight", Shape: []string{"Vout", "H"}, Role: RoleHead, Optional: "tied"},
		{Name: "final_logits_bias", Shape: []string{"1", "Vout"}, Role: RoleBias, AnyDType: true}}}}
}

// The T5 lineage: an encoder and a decoder of RMSNorm'd blocks with
// relative-position bucket tables (T5, mT5: in each stack's first block;
// UMT5: in every block), embeddings in shared, the FFN gated by
// feed_forward_proj. LongT5's encoder attends locally or with transient
// global tokens (encoder_attention_type), the latter adding a global
// bucket table and a norm.
var _ = register(
	func() *Family {
		return t5Family("T5", "T5", "t5", t5Defs("32128", "512", "6", "8", "2048", "relu", "true"), t5Opts{EncAttn: t5Attention("SelfAttention.", "l == 0"), Bias: "l == 0"})
	},
	func() *Family {
		return t5Family("mT5", "MT5", "mt5", t5Defs("250112", "512", "8", "6", "1024", "gated-gelu", "false"), t5Opts{EncAttn: t5Attention("SelfAttention.", "l == 0"), Bias: "l == 0"})
	},
	func() *Family {
		return t5Family("UMT5", "UMT5", "umt5", t5Defs("250112", "512", "8", "6", "1024", "gated-gelu", "true"), t5Opts{EncAttn: t5Attention("SelfAttention.", "true"), Bias: "true"})
	},
	// LongT5: transformers 5.x saves the stacks' embed_tokens beside
	// shared when tie_word_embeddings is false; 4.57 ties them whatever
	// it says.
	func() *Family {
		return t5Family("LongT5", "LongT5", "longt5", cat(t5Defs("32128", "512", "6", "8", "2048", "relu", "true"), []Def{
			{Sym: "eat", Field: "encoder_attention_type", Type: Str, Default: "'local'", Desc: "the encoder's attention: local or transient-global"},
			derived("tglobal", "eat == 'transient-global'")}),
			t5Opts{EncAttn: cat(when("!tglobal", t5Attention("LocalSelfAttention.", "l == 0")),
				when("tglobal", t5Attention("TransientGlobalSelfAttention.", "l == 0"),
					[]T{{Name: "TransientGlobalSelfAttention.global_relative_attention_bias.weight", Shape: []string{"buckets", "heads"}, Role: RoleEmbedding, If: "l == 0"}},
					norm("TransientGlobalSelfAttention.global_input_layer_norm", "H", ""))),
				Bias: "l == 0", Embeds: "tf5 && !tied", NoHeads: true})
	},
	// Switch Transformers: T5 (v1.0's plain FFN) whose every step-th
	// block (l % step == 1, or all at step 1) is sparse: E experts and a
	// router. The steps config.json gives win over the ones
	// num_sparse_*_layers imply, as both versions read them.
	func() *Family {
		return t5Family("SwitchTransformers", "SwitchTransformers", "switch_transformers", cat(
			replaceDef(withoutDefs(t5Defs("32128", "768", "12", "12", "2048", "relu", "true"), "ffp", "gated"),
				Def{Sym: "Ld", Field: "num_decoder_layers", Default: "12", Null: "Lnl", Legend: "Ld", Desc: "decoder blocks", Show: true, Pos: true, Max: MaxLayers}),
			[]Def{
				{Sym: "E", Field: "num_experts", Default: "8", Legend: "E", Desc: "experts per sparse block", Show: true, Pos: true, Max: MaxExperts},
				flag("router_bias", "router_bias", "false", "the router has a bias"),
				opt("nse", "num_sparse_encoder_layers", "3"), opt("nsd", "num_sparse_decoder_layers", "3"),
				opt("estep", "encoder_sparse_step", "nse > 0 ? L / nse : L"), opt("dstep", "decoder_sparse_step", "nsd > 0 ? Ld / nsd : Ld"),
			}),
			t5Opts{EncAttn: t5Attention("SelfAttention.", "l == 0"), Bias: "l == 0", Embeds: "tf5 && !tied", NoHeads: true, FFN: func(dec bool) []T {
				step := "estep"
				if dec {
					step = "dstep"
				}
				sparse := step + " > 0 && (l % " + step + " == 1 || " + step + " == 1)"
				return cat(when("!("+sparse+")", linear("mlp.wi", "F", "H", ""), linear("mlp.wo", "H", "F", "")),
					when(sparse,
						[]T{{Name: "mlp.router.classifier.weight", Shape: []string{"E", "H"}, Role: RoleRouter, AnyDType: true},
							{Name: "mlp.router.classifier.bias", Shape: []string{"E"}, Role: RoleBias, If: "router_bias", AnyDType: true},
							{Name: "mlp.experts.expert_{e}.wi.weight", Shape: []string{"F", "H"}, Role: RoleLinear, Experts: "E"},
							{Name: "mlp.experts.expert_{e}.wo.weight", Shape: []string{"H", "F"}, Role: RoleLinear, Experts: "E"}}))
			}})
	},
	// Pop2Piano: T5 with a composer embedding conditioning the encoder.
	func() *Family {
		return t5Family("Pop2Piano", "Pop2Piano", "pop2piano", cat(t5Defs("2400", "512", "6", "8", "2048", "gated-gelu", "true"), []Def{opt("Vc", "composer_vocab_size", "21")}),
			t5Opts{EncAttn: t5Attention("SelfAttention.", "l == 0"), Bias: "l == 0", Embeds: "tf5 && !tied", NoHeads: true,
				Global: []T{{Name: "transformer.mel_conditioner.embedding.weight", Shape: []string{"Vc", "H"}, Role: RoleEmbedding}}})
	},
)

// BART-like encoder-decoders without a causal-LM class of their own
// (LED, M2M100): their decoder, registered for the model_type, is only
// the base of the full model their task classes check (s2sFull).
var (
	ledDecoder = seq2seqDecoder("LED", "LED", "led", cat(s2sDefs("vocab_size=50265", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"),
		[]Def{posDef("max_decoder_position_embeddings", "1024")}), cat(decoderPositions("P"), embLN), bartLayer, nil).
		with(func(f *Family) { f.Causal = "-" })
	m2m100Decoder = seq2seqDecoder("M2M100", "M2M100", "m2m_100", s2sDefs("vocab_size=128112", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"),
		nil, bartLayer, finalLN).with(func(f *Family) { f.Causal = "-" })
	_ = register(func() *Family { return ledDecoder }, func() *Family { return m2m100Decoder })
)

func init() {
	// MVP: the encoder has its own layer-wise prompt (self-attention
	// only), Le layers deep.
	mvp := s2sOf("mvp", false)
	// transformers 5.x builds the encoder without it (MvpModel passes
	// use_prompt as MvpEncoder's embed_tokens argument).
	mvp.Global = slices.DeleteFunc(s2sRename(mvp.Global, "model.encoder.self_attn_prompt.", "L", "Le"),
		func(t T) bool { return strings.HasPrefix(t.Name, "model.encoder.cross_attn_prompt.") })
	for i, t := range mvp.Global {
		if strings.HasPrefix(t.Name, "model.encoder.self_attn_prompt.") {
			mvp.Global[i].If = "(" + t.If + ") && !tf5"
		}
	}
	classTasks["Mvp"] = s2sTasks(mvp)
	// BigBird-Pegasus: the encoder's block-sparse attention
	// (self_attn.self, self_attn.output), biased only with use_bias.
	bbp := s2sOf("bigbird_pegasus", false)
	s2sEncoderAttn(bbp, cat(linear("self_attn.self.query", "H", "H", "use_bias"), linear("self_attn.self.key", "H", "H", "use_bias"),
		linear("self_attn.self.value", "H", "H", "use_bias"), linear("self_attn.output", "H", "H", "use_bias")))
	classTasks["BigBirdPegasus"] = s2sTasks(bbp)
	// LED: Longformer's local and global projections in the encoder, its
	// own position count; the task classes keep the base model under led.
	led := s2sFull(ledDecoder, false, Def{Sym: "Pe", Field: "max_encoder_position_embeddings", Default: "16384", Legend: "Pe", Desc: "encoder positions", Show: true, Pos: true})
	led.Global = s2sRename(led.Global, "model.encoder.embed_positions", "P", "Pe")
	var lf []T
	for _, p := range []string{"query", "key", "value", "query_global", "key_global", "value_global"} {
		lf = cat(lf, linear("self_attn.longformer_self_attn."+p, "H", "H", "true"))
	}
	s2sEncoderAttn(led, cat(lf, linear("self_attn.output", "H", "H", "true")))
	classTasks["LED"] = s2sTasksUnder(led, "led.", true)
	// M2M100: sinusoidal positions (not saved), no final_logits_bias.
	classTasks["M2M100"] = s2sTasksUnder(s2sFull(m2m100Decoder, true), "", false, TaskBase, "ForConditionalGeneration")
}

// t5GemmaStack is a T5Gemma encoder's (x "e") or decoder's (x "d")
// sub-config fields, read under "encoder." or "decoder."; the decoder's
// default to the encoder's when config.json has no decoder (T5GemmaConfig
// copies the encoder), else to T5GemmaModuleConfig's.
func t5GemmaDefs() []Def {
	var out []Def
	for _, s := range []struct{ x, cfg, desc string }{{"e", "encoder.", "encoder"}, {"d", "decoder.", "decoder"}} {
		def := func(sym, d string) string {
			if s.x == "d" {
				return "hasdec ? " + d + " : e" + sym
			}
			return d
		}
		if s.x == "d" {
			out = append(out, Def{Sym: "dmt", Field: "decoder.model_type", Type: Str, Default: "''"}, derived("hasdec", "dmt != ''"))
		}
		out = append(out,
			Def{Sym: s.x + "V", Field: s.cfg + "vocab_size", Default: def("V", "256000"), Legend: s.x + "V", Desc: s.desc + " vocabulary", Show: true, Pos: true},
			Def{Sym: s.x + "H", Field: s.cfg + "hidden_size", Default: def("H", "2304"), Legend: s.x + "H", Desc: s.desc + " width", Show: true, Pos: true},
			Def{Sym: s.x + "L", Field: s.cfg + "num_hidden_layers", Default: def("L", "26"), Legend: s.x + "L", Desc: s.desc + " layers", Show: true, Pos: true, Max: MaxLayers},
			Def{Sym: s.x + "heads", Field: s.cfg + "num_attention_heads", Default: def("heads", "8"), Desc: s.desc + " attention heads", Show: true, Pos: true},
			Def{Sym: s.x + "kv", Field: s.cfg + "num_key_value_heads", Default: def("kv", "4"), Desc: s.desc + " kv heads", Show: true, Pos: true},
			Def{Sym: s.x + "d", Field: s.cfg + "head_dim", Default: def("d", "256"), Desc: s.desc + " head width", Show: true, Pos: true},
			Def{Sym: s.x + "I", Field: s.cfg + "intermediate_size", Default: def("I", "9216"), Legend: s.x + "I", Desc: s.desc + " FFN inner width", Show: true, Pos: true},
			Def{Sym: s.x + "bias", Field: s.cfg + "attention_bias", Type: Bool, Default: def("bias", "false"), Desc: s.desc + " attention projections have biases"})
	}
	return out
}

// t5GemmaLayer is a T5Gemma layer with x's symbols ("e", "d"): Gemma 2's
// sandwich norms around self-attention, (the decoder's) cross-attention
// reading the encoder's width, and the gated MLP.
func t5GemmaLayer(x string, cross bool) []T {
	ts := cat(attn("self_attn.", "bias", "bias"), norm("pre_self_attn_layernorm", "H", ""), norm("post_self_attn_layernorm", "H", ""))
	if cross {
		ts = cat(ts, linear("cross_attn.q_proj", "heads*d", "H", "bias"), linear("cross_attn.k_proj", "kv*d", "eH", "bias"),
			linear("cross_attn.v_proj", "kv*d", "eH", "bias"), linear("cross_attn.o_proj", "H", "heads*d", "bias"),
			norm("pre_cross_attn_layernorm", "H", ""), norm("post_cross_attn_layernorm", "H", ""))
	}
	ts = cat(ts, gatedMLP("mlp.", "I", ""), norm("pre_feedforward_layernorm", "H", ""), norm("post_feedforward_layernorm", "H", ""))
	return renameSyms(ts, "H", x+"H", "heads", x+"heads", "kv", x+"kv", "d", x+"d", "I", x+"I", "bias", x+"bias")
}

// T5Gemma: a Gemma 2 encoder and decoder of their own sizes; an
// encoder-only configuration (is_encoder_decoder false) is the encoder
// alone, which the classifiers then read.
var t5Gemma = &Family{Name: "T5Gemma", Class: "T5Gemma", ModelTypes: []string{"t5gemma"}, Causal: "-", SeqCls: "-",
	Defs: cat(t5GemmaDefs(), []Def{flag("encdec", "is_encoder_decoder", "true", "an encoder and a decoder (else the encoder alone)"),
		// transformers 4.57 ties the head by the decoder's
		// tie_word_embeddings (its text config), 5.x by the top level's.
		flag("ttop", "tie_word_embeddings", "true", "lm_head shares the decoder's embed_tokens (transformers 5.x)"),
		flag("tdec", "decoder.tie_word_embeddings|encoder.tie_word_embeddings", "true", "lm_head shares the decoder's embed_tokens (transformers 4.x)"),
		derived("tied", "tf5 ? ttop : tdec"),
		derived("H", "encdec ? dH : eH")}),
	Global: cat([]T{{Name: "model.encoder.embed_tokens.weight", Shape: []string{"eV", "eH"}, Role: RoleEmbedding}},
		[]T{{Name: "model.decoder.embed_tokens.weight", Shape: []string{"dV", "dH"}, Role: RoleEmbedding, If: "encdec"}}),
	Stacks: []Stack{{Name: "encoder", Prefix: "model.encoder.layers.{l}.", Layers: "eL", Tensors: t5GemmaLayer("e", false)},
		{Prefix: "model.decoder.layers.{l}.", Layers: "encdec ? dL : 0", Tensors: t5GemmaLayer("d", true)}},
	Final: cat(norm("model.encoder.norm", "eH", ""), when("encdec", norm("model.decoder.norm", "dH", ""))),
	Embed: "model.decoder.embed_tokens.weight",
	Tasks: []Task{
		{Suffix: TaskBase, Prefix: "-", Defs: []Def{derived("encdec", "true")}},
		{Suffix: "ForConditionalGeneration", Defs: []Def{derived("encdec", "true")}, HeadName: "lm_head.out_proj.weight",
			Head: []T{{Name: "lm_head.out_proj.weight", Shape: []string{"dV", "dH"}, Role: RoleHead, Optional: "tied"}}},
		{Suffix: "EncoderModel", Prefix: "-", Defs: []Def{derived("encdec", "false")}},
		{Suffix: HeadSeqCls, Head: linear("score.out_proj", "C", "H", "true"), Labels: true},
		{Suffix: TaskTokenCls, Head: linear("score.out_proj", "C", "H", "true"), Labels: true},
	},
}

var _ = register(func() *Family { return t5Gemma })

// prophetNetFull is ProphetNet's encoder-decoder (ProphetNetModel,
// …ForConditionalGeneration): its decoder family's tensors under
// prophetnet. with an encoder of its own depth and FFN width beside it,
// the LM head tied to word_embeddings.
func prophetNetFull(name, class, mt string) *Family {
	f := prophetNet(name, class, mt)
	f.BasePrefix = "prophetnet."
	f.Defs = cat(f.Defs, []Def{
		{Sym: "Le", Field: "num_encoder_layers", Default: "12", Legend: "Le", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "Fe", Field: "encoder_ffn_dim", Default: "4096", Legend: "Fe", Desc: "encoder FFN inner width", Show: true, Pos: true}})
	// transformers 5.x saves the stacks' word_embeddings too when
	// tie_word_embeddings is false.
	f.Global = cat(f.Global, []T{{Name: "prophetnet.encoder.position_embeddings.weight", Shape: []string{"P", "H"}, Role: RoleEmbedding},
		{Name: "prophetnet.encoder.word_embeddings.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5 && !tied"},
		{Name: "prophetnet.decoder.word_embeddings.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5 && !tied"}},
		norm("prophetnet.encoder.embeddings_layer_norm", "H", "true"))
	f.Stacks = append([]Stack{{Name: "encoder", Prefix: "prophetnet.encoder.layers.{l}.", Layers: "Le", Tensors: cat(
		prophetNetAttn("self_attn."), norm("self_attn_layer_norm", "H", "true"),
		linear("feed_forward.intermediate", "Fe", "H", "true"), linear("feed_forward.output", "H", "Fe", "true"),
		norm("feed_forward_layer_norm", "H", "true"))}}, f.Stacks...)
	f.Final = nil
	return f
}

func init() {
	for _, c := range []struct{ name, class, mt string }{{"ProphetNet", "ProphetNet", "prophetnet"}, {"XLM-ProphetNet", "XLMProphetNet", "xlm-prophetnet"}} {
		full := prophetNetFull(c.name, c.class, c.mt)
		classTasks[c.class] = []Task{
			{Suffix: TaskBase, Prefix: "-", Of: full},
			{Suffix: "ForConditionalGeneration", Of: full, HeadName: "lm_head.weight",
				Head: []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}},
		}
	}
}

var (
	// Pegasus-X: BART-layout layers without attention biases, sinusoidal
	// positions (not saved), and in the encoder global tokens with their
	// own norm.
	pegasusXDecoder = seq2seqDecoder("Pegasus-X", "PegasusX", "pegasus_x", cat(s2sDefs("vocab_size=96103", "d_model=1024", "decoder_layers=16", "decoder_ffn_dim=4096"),
		[]Def{opt("G", "num_global_tokens", "32")}), nil, s2sLayer(true, "", "", "true"), finalLN).
		with(func(f *Family) { f.Causal = "-" })
	// FSMT: source and target vocabularies of their own, sinusoidal
	// positions saved [P+pad+1, H], the decoder's output projection.
	fsmtDecoder = seq2seqDecoder("FSMT", "FSMT", "fsmt", cat(s2sDefs("tgt_vocab_size=42024", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"),
		[]Def{posDef("max_position_embeddings", "1024"), opt("pad", "pad_token_id", "1"),
			{Sym: "Vs", Field: "src_vocab_size", Default: "42024", Legend: "Vs", Desc: "source vocabulary", Show: true, Pos: true}}),
		decoderPositions("P+pad+1"), bartLayer, nil).
		with(func(f *Family) { f.Causal = "-"; f.Defs = withDefault(f.Defs, "tied", "false") })
	_ = register(func() *Family { return pegasusXDecoder }, func() *Family { return fsmtDecoder })
)

func init() {
	px := s2sFull(pegasusXDecoder, true)
	px.Global = append(px.Global, T{Name: "model.encoder.embed_global.weight", Shape: []string{"G", "H"}, Role: RoleEmbedding})
	px.Stacks[0].Tensors = cat(px.Stacks[0].Tensors, norm("global_self_attn_layer_norm", "H", "true"))
	classTasks["PegasusX"] = s2sTasksUnder(px, "", false, TaskBase, "ForConditionalGeneration")

	// FSMT's tying differs by writer: transformers 4.57 saves the
	// encoder's embed_tokens (and the output projection unless tied),
	// 5.x the decoder's embed_tokens, the encoder's and the output
	// projection only when untied.
	fsmt := s2sFull(fsmtDecoder, false)
	fsmt.Global = cat([]T{{Name: "model.encoder.embed_tokens.weight", Shape: []string{"Vs", "H"}, Role: RoleEmbedding, If: "!tf5 || !tied"},
		{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5"}},
		slices.DeleteFunc(fsmt.Global, func(t T) bool { return strings.Contains(t.Name, "embed_tokens") || t.Name == "model.shared.weight" }))
	for i, t := range fsmt.Global {
		if strings.Contains(t.Name, "embed_positions") {
			fsmt.Global[i].AnyDType = true // 4.57 keeps the sinusoidal tables in float32
		}
	}
	fsmt.Final = []T{{Name: "model.decoder.output_projection.weight", Shape: []string{"V", "H"}, Role: RoleHead, If: "!tied"}}
	fsmt.Embed, fsmt.Head = "model.encoder.embed_tokens.weight", "-"
	classTasks["FSMT"] = []Task{{Suffix: TaskBase, Prefix: "-", Of: fsmt}, {Suffix: "ForConditionalGeneration", Of: fsmt}}
}

// nllbMoELayer is an NLLB-MoE layer (cross: the decoder's): BART-style
// attention, then a dense FFN f wide, or in every step-th layer
// ((l+1) % step == 0) E experts of it and a router.
func nllbMoELayer(cross bool, f, step string) []T {
	ts := cat(s2sAttn("self_attn.", "true", "true"), norm("self_attn_layer_norm", "H", "true"))
	if cross {
		ts = cat(ts, s2sAttn("cross_attention.", "true", "true"), norm("cross_attention_layer_norm", "H", "true"))
	}
	sparse := step + " > 0 && (l + 1) % " + step + " == 0"
	return cat(ts, norm("ff_layer_norm", "H", "true"),
		when("!("+sparse+")", linear("ffn.fc1", f, "H", "true"), linear("ffn.fc2", "H", f, "true")),
		when(sparse, []T{{Name: "ffn.router.classifier.weight", Shape: []string{"E", "H"}, Role: RoleRouter, AnyDType: true},
			{Name: "ffn.router.classifier.bias", Shape: []string{"E"}, Role: RoleBias, If: "router_bias", AnyDType: true},
			{Name: "ffn.experts.expert_{e}.fc1.weight", Shape: []string{f, "H"}, Role: RoleLinear, Experts: "E"},
			{Name: "ffn.experts.expert_{e}.fc1.bias", Shape: []string{f}, Role: RoleBias, Experts: "E"},
			{Name: "ffn.experts.expert_{e}.fc2.weight", Shape: []string{"H", f}, Role: RoleLinear, Experts: "E"},
			{Name: "ffn.experts.expert_{e}.fc2.bias", Shape: []string{"H"}, Role: RoleBias, Experts: "E"}}))
}

// NLLB-MoE: M2M100's layout (sinusoidal positions not saved, final
// norms) with sparse FFNs every encoder_/decoder_sparse_step layers.
var nllbMoE = &Family{Name: "NLLB-MoE", Class: "NllbMoe", ModelTypes: []string{"nllb-moe"}, Causal: "-", SeqCls: "-",
	Defs: cat(s2sDefs("vocab_size=128112", "d_model=1024", "decoder_layers=12", "decoder_ffn_dim=4096"), []Def{
		{Sym: "Le", Field: "encoder_layers", Default: "12", Legend: "Le", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "Fe", Field: "encoder_ffn_dim", Default: "4096", Legend: "Fe", Desc: "encoder FFN inner width", Show: true, Pos: true},
		{Sym: "E", Field: "num_experts", Default: "128", Legend: "E", Desc: "experts per sparse layer", Show: true, Pos: true, Max: MaxExperts},
		flag("router_bias", "router_bias", "false", "the router has a bias"),
		opt("estep", "encoder_sparse_step", "4"), opt("dstep", "decoder_sparse_step", "4"), tie("true")}),
	Global: cat([]T{{Name: "model.shared.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
		{Name: "model.encoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5 && !tied"},
		{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "tf5 && !tied"}}),
	Stacks: []Stack{{Name: "encoder", Prefix: "model.encoder.layers.{l}.", Layers: "Le", Tensors: nllbMoELayer(false, "Fe", "estep")},
		{Prefix: "model.decoder.layers.{l}.", Layers: "L", Tensors: nllbMoELayer(true, "F", "dstep")}},
	Final: cat(norm("model.encoder.layer_norm", "H", "true"), norm("model.decoder.layer_norm", "H", "true")),
	Embed: "model.shared.weight",
}

var _ = register(func() *Family {
	return nllbMoE.with(func(f *Family) {
		f.Tasks = s2sTasksUnder(f, "", false, TaskBase, "ForConditionalGeneration")
	})
})

// familyEncoder is the encoder part of a composition made from the
// registered family of model_type mt: its base model (the family's
// "Model" task class, as AutoModel builds the encoder), every symbol
// prefixed "e_" and read under "encoder.", every name under "encoder.";
// eH is its width (e_H). False when mt has no such family.
func familyEncoder(mt string) (encoderPart, bool) {
	f := familyOf(mt)
	if f == nil || f.compose != nil {
		return encoderPart{}, false
	}
	t := f.findTask(f.Class + TaskBase)
	if t == nil {
		return encoderPart{}, false
	}
	g := f.forTask(t)
	var pairs []string
	for _, d := range g.Defs {
		pairs = append(pairs, d.Sym, "e_"+d.Sym)
	}
	if !slices.Contains(pairs, "H") {
		return encoderPart{}, false
	}
	rx := symRenamer(pairs...)
	// With tie_encoder_decoder, transformers saves the weights the
	// encoder shares with the decoder under the decoder's names only.
	optional := func(ts []T) []T {
		for i := range ts {
			if ts[i].Optional == "" {
				ts[i].Optional = "ted"
			} else {
				ts[i].Optional = "(" + ts[i].Optional + ") || ted"
			}
		}
		return ts
	}
	reroot := func(ts []T) []T {
		out := renameSyms(ts, pairs...)
		for i := range out {
			out[i].Name = "encoder." + out[i].Name
		}
		return optional(out)
	}
	p := encoderPart{Name: f.Name, Global: reroot(g.Global), Final: reroot(g.Final)}
	for _, d := range g.Defs {
		d.Sym, d.Default, d.Desc = "e_"+d.Sym, rx(d.Default), "encoder: "+rx(d.Desc)
		if d.Null != "" && d.Null != "=" {
			d.Null = rx(d.Null)
		}
		if d.Divides != "" {
			d.Divides = "e_" + d.Divides
		}
		if d.Legend != "" {
			d.Legend = "e" + d.Legend
		}
		if d.Field != "" {
			alts := strings.Split(d.Field, "|")
			for i := range alts {
				alts[i] = "encoder." + alts[i]
			}
			d.Field = strings.Join(alts, "|")
		}
		p.Defs = append(p.Defs, d)
	}
	p.Defs = append(p.Defs, derived("eH", "e_H"),
		flag("ted", "tie_encoder_decoder", "false", "the encoder's weights are the decoder's (saved once)"))
	for _, s := range g.Stacks {
		s = renamedStack(s, "encoder", "encoder."+s.Prefix, pairs...)
		s.Tensors = optional(s.Tensors)
		p.Stacks = append(p.Stacks, s)
	}
	return p, true
}

// Speech2Text: a convolutional subsampler (GLU halves each conv's
// output) before a BART-layout encoder, sinusoidal positions (not
// saved), and the decoder's own embed_tokens, no shared table.
var s2tDecoder = seq2seqDecoder("Speech2Text", "Speech2Text", "speech_to_text", cat(s2sDefs("vocab_size=10000", "d_model=256", "decoder_layers=6", "decoder_ffn_dim=2048"), []Def{
	listOf("ks", "conv_kernel_sizes", "list(5, 5)", "the subsampler's kernel sizes, one per conv"),
	opt("cC", "conv_channels", "1024"), opt("feat", "input_feat_per_channel", "80"), opt("ich", "input_channels", "1")}),
	nil, bartLayer, finalLN).with(func(f *Family) { f.Causal = "-" })

var _ = register(func() *Family { return s2tDecoder })

func init() {
	f := s2sFull(s2tDecoder, true, Def{Sym: "Le", Field: "encoder_layers", Default: "12", Legend: "Le", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers})
	f.Global = []T{{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding},
		{Name: "model.encoder.conv.conv_layers.{e}.weight", Shape: []string{"e < len(ks) - 1 ? cC : 2*H", "e == 0 ? feat*ich : cC/2", "at(ks, e)"}, Role: RoleLinear, Experts: "len(ks)", PerCopy: true},
		{Name: "model.encoder.conv.conv_layers.{e}.bias", Shape: []string{"e < len(ks) - 1 ? cC : 2*H"}, Role: RoleBias, Experts: "len(ks)", PerCopy: true}}
	f.Embed = "model.decoder.embed_tokens.weight"
	classTasks["Speech2Text"] = s2sTasksUnder(f, "", false, TaskBase, "ForConditionalGeneration")
}

// T5Gemma 2 (transformers 5.x): a Gemma 3 text encoder with a SigLIP
// tower and its projector (encoder.text_config, encoder.vision_config),
// and a decoder whose self-attention also reads the encoder (one set of
// projections), q/k norms in both; the decoder's embed_tokens and the
// head are tied to the encoder's.
var t5Gemma2 = func() *Family {
	txt := func(x, cfg, desc string) []Def {
		return []Def{
			{Sym: x + "V", Field: cfg + "vocab_size", Default: "262208", Legend: x + "V", Desc: desc + " vocabulary", Show: true, Pos: true},
			{Sym: x + "H", Field: cfg + "hidden_size", Default: "2304", Legend: x + "H", Desc: desc + " width", Show: true, Pos: true},
			{Sym: x + "L", Field: cfg + "num_hidden_layers", Default: "26", Legend: x + "L", Desc: desc + " layers", Show: true, Pos: true, Max: MaxLayers},
			{Sym: x + "heads", Field: cfg + "num_attention_heads", Default: "8", Desc: desc + " attention heads", Show: true, Pos: true},
			{Sym: x + "kv", Field: cfg + "num_key_value_heads", Default: "4", Desc: desc + " kv heads", Show: true, Pos: true},
			{Sym: x + "d", Field: cfg + "head_dim", Default: "256", Desc: desc + " head width", Show: true, Pos: true},
			{Sym: x + "I", Field: cfg + "intermediate_size", Default: "9216", Legend: x + "I", Desc: desc + " FFN inner width", Show: true, Pos: true},
			{Sym: x + "bias", Field: cfg + "attention_bias", Type: Bool, Default: "false", Desc: desc + " attention projections have biases"},
		}
	}
	layer := func(x string) []T {
		ts := cat(attn("self_attn.", "bias", "bias", qkNorm("self_attn.", "d", "d")), norm("pre_self_attn_layernorm", "H", ""), norm("post_self_attn_layernorm", "H", ""),
			gatedMLP("mlp.", "I", ""), norm("pre_feedforward_layernorm", "H", ""), norm("post_feedforward_layernorm", "H", ""))
		return renameSyms(ts, "H", x+"H", "heads", x+"heads", "kv", x+"kv", "d", x+"d", "I", x+"I", "bias", x+"bias")
	}
	vg, vs, vf := visionTower("model.encoder.vision_tower.", "")
	return &Family{Name: "T5Gemma2", Class: "T5Gemma2", ModelTypes: []string{"t5gemma2"}, Causal: "-", SeqCls: "-",
		Defs: cat(txt("e", "encoder.text_config.", "encoder"), txt("d", "decoder.", "decoder"),
			siglipTowerDefs("encoder.vision_config.", "hidden_size", "768", "12", "3072", "16", "224"), // SiglipVisionConfig()
			[]Def{tie("true"), derived("H", "dH")}),
		Global: cat([]T{{Name: "model.encoder.embed_tokens.weight", Shape: []string{"eV", "eH"}, Role: RoleEmbedding}},
			vec("model.encoder.embed_tokens.eoi_embedding", "eH"),
			// untied (the top level's tie_word_embeddings), the decoder's own
			[]T{{Name: "model.decoder.embed_tokens.weight", Shape: []string{"dV", "dH"}, Role: RoleEmbedding, If: "!tied"},
				{Name: "model.decoder.embed_tokens.eoi_embedding", Shape: []string{"dH"}, Role: RoleNorm, If: "!tied"}}, vg,
			[]T{{Name: "model.encoder.multi_modal_projector.mm_input_projection_weight", Shape: []string{"vH", "eH"}, Role: RoleLinear}},
			vec("model.encoder.multi_modal_projector.mm_soft_emb_norm.weight", "vH")),
		Stacks: cat(vs, []Stack{{Name: "encoder", Prefix: "model.encoder.layers.{l}.", Layers: "eL", Tensors: layer("e")},
			{Prefix: "model.decoder.layers.{l}.", Layers: "dL", Tensors: layer("d")}}),
		Final: cat(vf, norm("model.encoder.norm", "eH", ""), norm("model.decoder.norm", "dH", "")),
		Embed: "model.encoder.embed_tokens.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: "ForConditionalGeneration", HeadName: "lm_head.out_proj.weight",
				Head: []T{{Name: "lm_head.out_proj.weight", Shape: []string{"dV", "dH"}, Role: RoleHead, Optional: "tied"}}},
			{Suffix: HeadSeqCls, Head: linear("score.out_proj", "C", "H", "true"), Labels: true},
			{Suffix: TaskTokenCls, Head: linear("score.out_proj", "C", "H", "true"), Labels: true},
		},
	}
}()

var _ = register(func() *Family { return t5Gemma2 })

// SpeechT5's base model (SpeechT5Model, no pre- or post-nets): a
// post-norm encoder with a relative-position table and a BART-like
// decoder under wrapped_encoder / wrapped_decoder. Its speech and text
// pre- and post-nets are its task classes' (speech.go: speechT5Tasks).
var speechT5 = &Family{Name: "SpeechT5", Class: "SpeechT5", ModelTypes: []string{"speecht5"}, Causal: "-", SeqCls: "-",
	Defs: append([]Def{
		{Sym: "V", Field: "vocab_size", Default: "81", Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: "hidden_size", Default: "768", Legend: "H", Desc: "residual-stream width", Show: true, Pos: true},
		{Sym: "Le", Field: "encoder_layers", Default: "12", Legend: "Le", Desc: "encoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "L", Field: "decoder_layers", Default: "6", Legend: "L", Desc: "decoder layers", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "Fe", Field: "encoder_ffn_dim", Default: "3072", Legend: "Fe", Desc: "encoder FFN inner width", Show: true, Pos: true},
		{Sym: "F", Field: "decoder_ffn_dim", Default: "3072", Legend: "F", Desc: "decoder FFN inner width", Show: true, Pos: true},
		{Sym: "eheads", Field: "encoder_attention_heads", Default: "12", Desc: "encoder attention heads", Pos: true},
		opt("maxrel", "encoder_max_relative_position", "160"),
	}, speechT5NetDefs()...),
	Global: []T{{Name: "speecht5.encoder.wrapped_encoder.embed_positions.pe_k.weight", Shape: []string{"2*maxrel", "H/eheads"}, Role: RoleEmbedding}},
	Stacks: []Stack{{Name: "encoder", Prefix: "speecht5.encoder.wrapped_encoder.layers.{l}.", Layers: "Le", Tensors: cat(
		s2sAttn("attention.", "true", "true"), norm("layer_norm", "H", "true"),
		linear("feed_forward.intermediate_dense", "Fe", "H", "true"), linear("feed_forward.output_dense", "H", "Fe", "true"),
		norm("final_layer_norm", "H", "true"))},
		{Prefix: "speecht5.decoder.wrapped_decoder.layers.{l}.", Layers: "L", Tensors: cat(
			s2sAttn("self_attn.", "true", "true"), norm("self_attn_layer_norm", "H", "true"),
			s2sAttn("encoder_attn.", "true", "true"), norm("encoder_attn_layer_norm", "H", "true"),
			linear("feed_forward.intermediate_dense", "F", "H", "true"), linear("feed_forward.output_dense", "H", "F", "true"),
			norm("final_layer_norm", "H", "true"))}},
	Final:      norm("speecht5.encoder.wrapped_encoder.layer_norm", "H", "true"),
	Embed:      "-",
	BasePrefix: "speecht5.",
	Tasks:      speechT5Tasks(),
	Variants:   speechT5WeightNorm4x,
}

var _ = register(func() *Family { return speechT5 })
