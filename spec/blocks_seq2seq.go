package spec

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
	return &Family{Name: name, Class: class, ModelTypes: []string{mt}, SeqCls: "-",
		Defs:   cat(defs, []Def{tie("true")}),
		Global: cat([]T{{Name: "model.decoder.embed_tokens.weight", Shape: []string{"V", "H"}, Role: RoleEmbedding}}, global),
		Stacks: []Stack{{Prefix: "model.decoder.layers.{l}.", Layers: "L", Tensors: layer}},
		Final:  cat(final, bartLM),
		Embed:  "model.decoder.embed_tokens.weight",
	}
}
