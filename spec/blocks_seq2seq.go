package spec

import (
	"slices"
	"strings"
)

// Shared blocks of BART-style decoders with cross-attention, used by
// encoder-decoder and speech models.

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

// ── T5 ──────────────────────────────────────────────────────────────────

// t5Defs are a T5-style config's fields with its class's defaults: V, H,
// L (encoder blocks), Ld (decoder blocks, default L), heads, dkv, F, the
// gated FFN (is_gated_act as config.json gives it, else
// feed_forward_proj's "gated-" prefix, as T5Config computes it), the
// relative-position buckets and tied. Each field also reads the name
// transformers 5.x's attribute_map gives it.
func t5Defs(vocab, hidden, layers, heads, ffn, ffp, tied string) []Def {
	return []Def{
		{Sym: "V", Field: "vocab_size", Default: vocab, Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: "d_model|hidden_size", Default: hidden, Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
		{Sym: "L", Field: "num_layers|num_hidden_layers", Default: layers, Legend: "L", Desc: "encoder blocks", Show: true, Pos: true, Max: MaxLayers},
		// num_decoder_layers defaults to num_layers as the config class
		// reads it before the attribute_map alias num_hidden_layers is set
		// ("!": no alias).
		opt("Lnl", "num_layers!", layers),
		{Sym: "Ld", Field: "num_decoder_layers", Default: "Lnl", Null: "Lnl", Legend: "Ld", Desc: "decoder blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "heads", Field: "num_heads|num_attention_heads", Default: heads, Desc: "attention heads of {dkv}", Show: true, Pos: true},
		{Sym: "dkv", Field: "d_kv|head_dim", Default: "64", Desc: "width of one attention head", Pos: true},
		{Sym: "F", Field: "d_ff", Default: ffn, Legend: "F", Desc: "FFN inner width", Show: true, Pos: true},
		{Sym: "ffp", Field: "feed_forward_proj", Type: Str, Default: "'" + ffp + "'", Desc: "the FFN's activation, gated-… for a gated FFN"},
		{Sym: "gated", Field: "is_gated_act", Type: Bool, Default: "prefix(ffp, 'gated-')", Null: "=", Desc: "the FFN is gated (wi_0, wi_1)"},
		opt("buckets", "relative_attention_num_buckets", "32"),
		tie(tied),
	}
}

// t5Attention is a T5 attention under pre: q, k, v [heads·dkv, H] and o, no
// biases; bias, unless "", is the condition of its relative-position
// table [buckets, heads] (T5: the stack's first block, "l == 0"; UMT5:
// every block's self-attention).
func t5Attention(pre, bias string) []T {
	ts := cat(linear(pre+"q", "heads*dkv", "H", ""), linear(pre+"k", "heads*dkv", "H", ""), linear(pre+"v", "heads*dkv", "H", ""),
		linear(pre+"o", "H", "heads*dkv", ""))
	if bias != "" {
		ts = append(ts, T{Name: pre + "relative_attention_bias.weight", Shape: []string{"buckets", "heads"}, Role: RoleEmbedding, If: bias})
	}
	return ts
}

// t5Opts say how a T5-style model differs from T5.
type t5Opts struct {
	// EncAttn is the encoder's self-attention, relative to its block's
	// first sub-layer (LongT5's local or transient-global attention).
	EncAttn []T
	// Bias is the condition of a self-attention's relative-position table:
	// "l == 0" (the stack's first block), "true" (UMT5: every block).
	Bias string
	// Embeds is the condition under which the stacks' own embed_tokens
	// are saved beside shared (LongT5 untied, as transformers 5.x writes
	// it); "" never.
	Embeds string
	// NoHeads: the model has only the base model, generation and
	// encoder-alone classes (LongT5), not the classification and QA heads.
	NoHeads bool
	// FFN, when set, is the feed-forward sub-layer of the encoder's
	// (dec false) or the decoder's blocks, names relative to it: Switch
	// Transformers' dense or sparse mlp. nil: T5's DenseReluDense.
	FFN func(dec bool) []T
	// Global are more tensors of the encoder-decoder, under the base
	// prefix (Pop2Piano's composer embedding).
	Global []T
}

// t5Parts are T5's embeddings, encoder and decoder blocks and final
// norms under pre ("transformer."): the encoder's self-attention, the
// decoder's self- and cross-attention, each sub-layer with its RMSNorm.
// Without the decoder (T5EncoderModel), the encoder alone.
func t5Parts(pre string, o t5Opts, decoder bool) (global []T, stacks []Stack, final []T) {
	ffn := func(p string) []T { return cat(t5FFN(p+"DenseReluDense."), norm(p+"layer_norm", "H", "")) }
	if o.FFN != nil {
		ffn = func(p string) []T {
			var ts []T
			for _, t := range o.FFN(p == "layer.2.") {
				t.Name = p + t.Name
				ts = append(ts, t)
			}
			return cat(ts, norm(p+"layer_norm", "H", ""))
		}
	}
	var enc []T
	for _, t := range o.EncAttn {
		t.Name = "layer.0." + t.Name
		enc = append(enc, t)
	}
	global = []T{{Name: pre + "shared.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding}}
	parts := []string{"encoder."}
	stacks = []Stack{{Name: "encoder", Prefix: pre + "encoder.block.{l}.", Layers: "L", Tensors: cat(enc, norm("layer.0.layer_norm", "H", ""), ffn("layer.1."))}}
	if decoder {
		parts = append(parts, "decoder.")
		stacks = append(stacks, Stack{Prefix: pre + "decoder.block.{l}.", Layers: "Ld", Tensors: cat(
			t5Attention("layer.0.SelfAttention.", o.Bias), norm("layer.0.layer_norm", "H", ""),
			t5Attention("layer.1.EncDecAttention.", ""), norm("layer.1.layer_norm", "H", ""), ffn("layer.2."))})
	}
	for _, p := range parts {
		if o.Embeds != "" {
			global = append(global, T{Name: pre + p + "embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding, If: o.Embeds})
		}
		final = cat(final, norm(pre+p+"final_layer_norm", "H", ""))
	}
	return global, stacks, final
}

// t5Family is a T5-style encoder-decoder (T5, mT5, UMT5, LongT5) and its
// task classes: the base model, the generation class (lm_head unless
// tied), the encoder alone (…EncoderModel), a sequence classifier
// (classification_head on the decoder's last EOS state), a token
// classifier on the encoder alone and extractive QA. The family's names
// are the sequence classifier's, under "transformer."; the base model,
// generation and QA classes name them at the top level, as the encoder
// alone does.
func t5Family(name, class, mt string, defs []Def, o t5Opts) *Family {
	full := &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: defs, Embed: "transformer.shared.weight", BasePrefix: "transformer."}
	full.Global, full.Stacks, full.Final = t5Parts("transformer.", o, true)
	full.Global = cat(full.Global, o.Global)
	enc := &Family{Name: name, Class: class, ModelTypes: []string{mt}, Causal: "-", SeqCls: "-",
		Defs: full.Defs, Embed: full.Embed, BasePrefix: full.BasePrefix}
	enc.Global, enc.Stacks, enc.Final = t5Parts("transformer.", o, false)
	full.Tasks = []Task{
		{Suffix: TaskBase, Prefix: "-"},
		{Suffix: "ForConditionalGeneration", Prefix: "-", HeadName: "lm_head.weight",
			Head: []T{{Name: "lm_head.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}},
		{Suffix: "EncoderModel", Prefix: "-", Of: enc},
	}
	if !o.NoHeads {
		full.Tasks = append(full.Tasks,
			Task{Suffix: HeadSeqCls, Head: denseClassifier("classification_head.", "H"), Labels: true},
			Task{Suffix: TaskTokenCls, Of: enc, Head: classifier("classifier", "H"), Labels: true},
			Task{Suffix: TaskQA, Prefix: "-", Head: classifier("qa_outputs", "H"), Labels: true}) // num_labels wide
	}
	return full
}

// ── BART-like full models ───────────────────────────────────────────────

// s2sEncoderAttn replaces the self-attention of full's encoder layers
// (its "self_attn." tensors) by attn: BigBird-Pegasus' block-sparse
// attention, LED's Longformer attention.
func s2sEncoderAttn(full *Family, attn []T) {
	var ts []T
	done := false
	for _, t := range full.Stacks[0].Tensors {
		if strings.HasPrefix(t.Name, "self_attn.") {
			if !done {
				ts, done = append(ts, attn...), true
			}
			continue
		}
		ts = append(ts, t)
	}
	full.Stacks[0].Tensors = ts
}

// s2sRename returns ts with the symbol from renamed to to in the tensors
// whose names start with pre (the encoder's position table: Pe rows).
func s2sRename(ts []T, pre string, pairs ...string) []T {
	out := append([]T(nil), ts...)
	for i, t := range out {
		if strings.HasPrefix(t.Name, pre) {
			out[i] = renameSyms([]T{t}, pairs...)[0]
		}
	}
	return out
}

// s2sTasksUnder are s2sTasks with the base model under base ("led.")
// in the head classes; bias says whether the generation class has
// final_logits_bias; suffixes keeps only those tasks (none: all).
func s2sTasksUnder(full *Family, base string, bias bool, suffixes ...string) []Task {
	var out []Task
	for _, t := range s2sTasks(full) {
		if len(suffixes) > 0 && !slices.Contains(suffixes, t.Suffix) {
			continue
		}
		if t.Prefix == "" && base != "" {
			t.Prefix = base
		}
		if !bias {
			t.Head = slices.DeleteFunc(slices.Clone(t.Head), func(x T) bool { return x.Name == "final_logits_bias" })
		}
		out = append(out, t)
	}
	return out
}
