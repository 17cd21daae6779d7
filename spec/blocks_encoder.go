package spec

import "regexp"

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
	// 5.x builds no relative positions in any BERT-family model (its
	// attention ignores position_embedding_type; the oracle on every
	// family of relPos): a 5.x-written config has no distance table.
	derived("rel", "!tf5 && (pos_type == 'relative_key' || pos_type == 'relative_key_query')"),
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
		// 4.x builds the cross-attention with absolute positions: no
		// distance table there (BERT, RoBERTa, … by the oracle).
		when("cross", renameSyms(bertAttn("crossattention."), "rel", "false"), ln(prefixIf("crossattention.", attnNorm))),
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

// encHead is one task class of an encoder's table (encTasks): the suffix,
// the head's tensors (full names), whether the class builds the base
// model's pooler (add_pooling_layer) and whether C is the label count.
type encHead struct {
	Suffix   string
	Head     []T
	Pool     bool   // the base model keeps its pooler in this class
	Labels   bool   // the head's C is num_labels
	HeadName string // the head tied to the word embeddings
	Defs     []Def
}

// encTasks is an encoder's task table: the base model under base
// ("albert.") with its pooler (pool, names relative to the base model;
// nil: none) in the classes that build it, and the heads. The base model
// class itself always has the pooler.
func encTasks(base string, pool []T, heads ...encHead) []Task {
	rel := func(ts []T, pre string) []T {
		out := append([]T(nil), ts...)
		for i := range out {
			out[i].Name = pre + out[i].Name
		}
		return out
	}
	out := []Task{{Suffix: TaskBase, Prefix: "-", Head: pool}}
	for _, h := range heads {
		t := Task{Suffix: h.Suffix, Head: h.Head, Labels: h.Labels, HeadName: h.HeadName, Defs: h.Defs}
		if h.Pool {
			t.Head = cat(rel(pool, base), h.Head)
		}
		out = append(out, t)
	}
	return out
}

// stdEncHeads are the usual sequence, token, QA and multiple-choice heads
// of an encoder: classifier [C, H], classifier [C, H], qa_outputs [2, H],
// classifier [1, H]; pooled says which of the sequence and choice heads
// read the pooler.
func stdEncHeads(seqPooled, choicePooled bool) []encHead {
	return []encHead{
		{Suffix: HeadSeqCls, Head: classifier("classifier", "H"), Pool: seqPooled, Labels: true},
		{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
		{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true},
		{Suffix: TaskMultChoice, Head: choiceHead("classifier", "H"), Pool: choicePooled},
	}
}

// mlmHead is a BERT-style masked-LM prediction head under pre
// ("predictions.", "cls.predictions."): a transform dense H → E (named
// dense, or transform.dense with transform), its LayerNorm, the bias [V]
// and the decoder [V, E] tied to the word embeddings; 5.x also writes the
// decoder's bias, the same tensor as pre+"bias".
func mlmHead(pre, E string, transform bool) []T {
	tr := pre
	if transform {
		tr = pre + "transform."
	}
	return cat(
		[]T{{Name: pre + "bias", Shape: []string{"V"}, Role: RoleBias}},
		linear(tr+"dense", E, "H", "true"), norm(tr+"LayerNorm", E, "true"),
		[]T{{Name: pre + "decoder.weight", Shape: []string{"V", E}, Role: RoleHead, Optional: "tied"},
			{Name: pre + "decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}},
	)
}

// summaryDefs are a sequence summary's switches (XLM's, XLNet's
// SequenceSummary): a projection (summary_use_proj) to num_labels
// (summary_proj_to_labels, default toLabels) or to H.
func summaryDefs(toLabels string) []Def { return summaryDefsProj("true", toLabels) }

// summaryDefsProj is summaryDefs with summary_use_proj's default (false
// where the config class has no such field).
func summaryDefsProj(proj, toLabels string) []Def {
	return []Def{flag("sumProj", "summary_use_proj", proj, "the sequence summary has a projection"),
		flag("sumLabels", "summary_proj_to_labels", toLabels, "the summary projects to the labels")}
}

// seqSummary is the sequence summary's projection [C or H, H].
func seqSummary() []T {
	return when("sumProj", linear("sequence_summary.summary", "sumLabels && C > 0 ? C : H", "H", "true"))
}

// notModelled makes a family refuse (exit 3, NoSpecError) a config whose
// boolean field is true, for its causal (LM head) class: a switch of
// that head whose tensors are not modelled.
func notModelled(field, why string) func(*Family) {
	return func(f *Family) {
		f.compose = func(c *Config) (*Family, error) {
			arch := c.Architecture()
			if on, err := c.BoolOr(field, false); (err != nil || on) && (arch == "" || arch == f.causal()) {
				return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType(), Reason: why}
			}
			return f, nil
		}
	}
}

// biasIf returns ts with the tensors whose names match re present only
// where cond holds (BigBird's use_bias on query, key and value).
func biasIf(ts []T, cond, re string) []T {
	rx := regexp.MustCompile(re)
	out := append([]T(nil), ts...)
	for i := range out {
		if rx.MatchString(out[i].Name) {
			out[i].If = joinCond(out[i].If, cond)
		}
	}
	return out
}

// joinCond is a && b, either possibly empty.
func joinCond(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return "(" + a + ") && (" + b + ")"
}

// groupedLinear is ConvBERT's GroupedLinearLayer when groups > 1 (weight
// [G, in/G, out/G], bias [out]), else a Linear.
func groupedLinear(name, out, in, groups string) []T {
	return cat(when(groups+" == 1", linear(name, out, in, "true")),
		when(groups+" > 1", []T{{Name: name + ".weight", Shape: []string{groups, in + "/" + groups, out + "/" + groups}, Role: RoleLinear},
			{Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}))
}

// conv1x1 is a Conv1d of kernel 1 and groups g under name: weight
// [out, in/g, 1], bias [out] (SqueezeBERT's layers).
func conv1x1(name, out, in, g string) []T {
	return []T{{Name: name + ".weight", Shape: []string{out, in + "/" + g, "1"}, Role: RoleLinear},
		{Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

// normGB is a LayerNorm that transformers 5.x writes as gamma and beta
// (ESM's per-layer "LayerNorm"s): weight and bias under 4.x, gamma and
// beta when config.json says 5.x wrote it (tf5).
func normGB(name, dim string) []T {
	return cat(when("!tf5", norm(name, dim, "true")),
		when("tf5", []T{{Name: name + ".gamma", Shape: []string{dim}, Role: RoleNorm}, {Name: name + ".beta", Shape: []string{dim}, Role: RoleBias}}))
}

// modernBertSwitches are the bias switches and tying ModernBERT and
// ModernBERT-decoder share.
var modernBertSwitches = []Def{
	flag("attention_bias", "attention_bias", "false", "attention projections have biases"),
	flag("mlp_bias", "mlp_bias", "false", "MLP projections have biases"),
	flag("norm_bias", "norm_bias", "false", "layer norms have biases"),
	flag("cls_bias", "classifier_bias", "false", "the head's dense has a bias"),
	flag("dec_bias", "decoder_bias", "true", "the decoder has a bias"),
	tie("true"),
}

// modernBertEmbeddings are ModernBERT's token embedding and its norm.
func modernBertEmbeddings() []T {
	return cat(embed("model.embeddings.tok_embeddings.weight"), norm("model.embeddings.norm", "H", "norm_bias"))
}

// modernBertLayers are ModernBERT's layers: no attention norm in layer
// 0, qkv (the query, key and value projections), a GLU MLP (Wi [2I, H]).
func modernBertLayers(qkv ...[]T) []Stack {
	return decoderLayers([]Kind{{Name: "first", If: "l == 0"}, {Name: "rest"}},
		when("rest", norm("attn_norm", "H", "norm_bias")), cat(qkv...), linear("attn.Wo", "H", "H", "attention_bias"),
		norm("mlp_norm", "H", "norm_bias"), linear("mlp.Wi", "2*I", "H", "mlp_bias"), linear("mlp.Wo", "H", "I", "mlp_bias"))
}
