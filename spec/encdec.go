package spec

import (
	"encoding/json"
	"fmt"
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
}

// encDec is an encoder-decoder composition (VisionEncoderDecoderModel):
// the encoder encoder.model_type names (a table of its own), and the
// decoder decoder.model_type names — the registered causal-LM family of
// that model_type, its fields read from "decoder.", its names under
// "decoder." — joined by enc_to_dec_proj when the widths differ.
type encDec struct {
	Family
	encoders map[string]encoderPart
	// decDefaults are the core dimensions of a decoder config class that
	// its family requires but a decoder config may leave out, as
	// transformers fills them from the class (GPT2Config's 768).
	decDefaults map[string]map[string]string
	cache       sync.Map // "encoder/decoder" model_types → *Family
}

func (v *encDec) register() *Family {
	return &Family{Name: v.Name, Class: v.Class, ConfigClass: v.ConfigClass, ModelTypes: v.ModelTypes,
		Causal: v.Causal, SeqCls: "-", compose: v.compose}
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
	if !ok {
		return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(),
			Reason: fmt.Sprintf("its encoder, encoder.model_type %q, has no spec", emt)}
	}
	df := byType[dmt]
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
	f.Final = cat(enc.Final, rerootTs(df.Final, dec),
		// The encoder's output into the decoder's width, when they differ
		// and the decoder does not cross-attend at the encoder's width.
		when("eH != H && xH == 0", linear("enc_to_dec_proj", "H", "eH", "true")))
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
		If:    "(len(rb) > 0 ? key(at(rb, e), 'type', '') : (e == 0 ? '1d' : 'horizontal')) != '1d'",
		Shape: []string{entry("relative_attention_num_buckets", "32") + " + (" + entry("prefix_bucket", "0") + " && !" + entry("expand", "0") + " ? 2 : 0)", "heads"}}}
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
		// MvpForCausalLM builds its decoder without prompts whatever
		// use_prompt says; the encoder-decoder's decoder has them.
		cat(decoderPositions("P+2"), embLN, when("prompt && !causal", mvpPrompt("model.decoder.self_attn_prompt."), mvpPrompt("model.decoder.cross_attn_prompt."))), bartLayer, nil),
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
	}(),
	prophetNet("ProphetNet", "ProphetNet", "prophetnet"),
	prophetNet("XLM-ProphetNet", "XLMProphetNet", "xlm-prophetnet"),
	// VisionEncoderDecoder: a ViT, DeiT, Swin or Donut-Swin encoder and any decoder with a
	// causal-LM spec (GPT-2, BERT, RoBERTa, TrOCR, mBART, …), its
	// cross-attention switched on by add_cross_attention as the
	// composition sets it.
	(&encDec{Family: Family{Name: "VisionEncoderDecoder", Class: "VisionEncoderDecoder", ModelTypes: []string{"vision-encoder-decoder"},
		Causal: "VisionEncoderDecoderModel"},
		encoders: map[string]encoderPart{
			"vit":        vitEncoder("ViT", "encoder.", "encoder.", 1),
			"deit":       vitEncoder("DeiT", "encoder.", "encoder.", 2),
			"swin":       swinEncoder("Swin", "encoder.", "encoder.", true),
			"donut-swin": swinEncoder("Donut-Swin", "encoder.", "encoder.", false),
		},
		decDefaults: map[string]map[string]string{"gpt2": {"V": "50257", "H": "768", "heads": "12"}},
	}).register(),
	// UDOP: a T5 encoder-decoder over text and image patches (a shared
	// patch embedding, 2-D cell position embeddings in the encoder) with
	// the relative biases relative_bias_args lists in both stacks.
	&Family{Name: "UDOP", Class: "Udop", ModelTypes: []string{"udop"}, Causal: "UdopForConditionalGeneration", SeqCls: "-",
		Defs: cat(trunkAt("vocab_size=33201", "d_model=1024", "num_layers=24", "encoder blocks"), []Def{
			{Sym: "Ld", Field: "num_decoder_layers", Default: "L", Null: "L", Legend: "Ld", Desc: "decoder blocks", Show: true, Pos: true, Max: MaxLayers},
			{Sym: "heads", Field: "num_heads", Default: "16", Desc: "attention heads of {dkv}", Show: true, Pos: true},
			opt("dkv", "d_kv", "64"),
			{Sym: "F", Field: "d_ff", Default: "4096", Legend: "F", Desc: "FFN inner width", Show: true, Pos: true},
			{Sym: "ffp", Field: "feed_forward_proj", Type: Str, Default: "'relu'", Desc: "the FFN's activation, gated-… for a gated FFN"},
			{Sym: "gated", Field: "is_gated_act", Type: Bool, Default: "ffp == 'gated-gelu' || ffp == 'gated-relu' || ffp == 'gated-silu' || ffp == 'gated-gelu_new'", Desc: "the FFN is gated (wi_0, wi_1)"},
			opt("buckets", "relative_attention_num_buckets", "32"),
			{Sym: "rb", Field: "relative_bias_args", Type: List, Default: "empty", Null: "=", Desc: "the relative biases (absent: 1d, horizontal, vertical)"},
			opt("max2d", "max_2d_position_embeddings", "1024"),
			opt("vP", "patch_size", "16"), opt("vC", "num_channels", "3"),
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
			if o.Sym == d.Sym && i < len(dec.Defs) {
				f.Defs[i] = o
			}
		}
	}
	f.Defs = f.Defs[:len(dec.Defs)+2]
	for _, o := range defs {
		if !hasDef(dec.Defs, o.Sym) {
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
	f.Global = []T{{Name: "model.shared.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding}}
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
	return s2sFull(byType[mt], noPositions, defs...)
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
		f.Global = append(f.Global, T{Name: "model.encoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: "!share"},
			T{Name: "model.decoder.embed_tokens.weight", Shape: []string{"tf5 ? Vd : V", "H"}, Role: RoleEmbedding, If: "!share"})
		return f
	}
	mt := marian(true)
	classTasks["Marian"] = []Task{s2sTasks(marian(false))[0], {Suffix: "MTModel", Of: mt, HeadName: "lm_head.weight", Head: []T{
		{Name: "lm_head.weight", Shape: []string{"Vout", "H"}, Role: RoleHead, Optional: "tied"},
		{Name: "final_logits_bias", Shape: []string{"1", "Vout"}, Role: RoleBias, AnyDType: true}}}}
}
