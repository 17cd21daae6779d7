package spec

import "strings"

// Shared blocks of BERT-style encoders: their config fields, attention,
// layer and embeddings.

// BERT-like encoders used as decoders (their ForCausalLM / LMHead
// classes), from one shared layer block in four layer-norm placements.

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

// biasIf is a layer whose tensors named with one of the suffixes exist
// only where cond holds (BigBird's use_bias switches its query, key and
// value biases).
func biasIf(ts []T, cond string, suffixes ...string) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		for _, s := range suffixes {
			if strings.HasSuffix(out[i].Name, s) {
				out[i] = when(cond, out[i:i+1])[0]
			}
		}
	}
	return out
}
