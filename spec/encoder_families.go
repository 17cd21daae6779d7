package spec

import (
	"encoding/json"
	"strconv"
)

// Encoders checked only through their task classes (no causal LM): the
// sentence embedders' and classifiers' backbones — DistilBERT, MPNet,
// ModernBERT, DeBERTa-v2/v3 — each with its heads as transformers names
// them.

// distilTasks are DistilBERT's heads: a pre-classifier before the
// sequence and choice classifiers, its own masked-LM head.
var distilTasks = []Task{
	{Suffix: TaskBase, Prefix: "-"},
	{Suffix: TaskMaskedLM, HeadName: "vocab_projector.weight", Head: cat(
		linear("vocab_transform", "H", "H", "true"), norm("vocab_layer_norm", "H", "true"),
		[]T{{Name: "vocab_projector.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"},
			{Name: "vocab_projector.bias", Shape: []string{"V"}, Role: RoleBias}})},
	{Suffix: HeadSeqCls, Head: cat(linear("pre_classifier", "H", "H", "true"), classifier("classifier", "H")), Labels: true},
	{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
	{Suffix: TaskQA, Head: qaHead("qa_outputs", "H")},
	{Suffix: TaskMultChoice, Head: cat(linear("pre_classifier", "H", "H", "true"), choiceHead("classifier", "H"))},
}

// modernBertHead is ModernBERT's prediction head before every task's
// output layer: dense then norm.
var modernBertHead = cat(linear("head.dense", "H", "H", "cls_bias"), norm("head.norm", "H", "norm_bias"))

// debertaHeads are DeBERTa-v2's: the legacy masked-LM head (cls.) or the
// new one (lm_predictions.), a context pooler of pooler_hidden_size before
// the sequence and choice classifiers.
var debertaTasks = []Task{
	{Suffix: TaskBase, Prefix: "-"},
	// The new head (legacy false) declares its dense layer the output
	// embedding: tied, transformers 4.x ties it to the word embeddings, so
	// the dense is [V, H] (its bias padded to V) and is saved in their
	// place; 5.x keeps both as built.
	{Suffix: TaskMaskedLM, HeadName: "cls.predictions.decoder.weight", Defs: []Def{derived("wordTied", "!legacy && tied && !tf5")}, Head: cat(
		when("legacy", linear("cls.predictions.transform.dense", "E", "H", "true"), norm("cls.predictions.transform.LayerNorm", "E", "true"),
			[]T{{Name: "cls.predictions.decoder.weight", Shape: []string{"V", "E"}, Role: RoleHead, Optional: "tied"},
				{Name: "cls.predictions.bias", Shape: []string{"V"}, Role: RoleBias},
				{Name: "cls.predictions.decoder.bias", Shape: []string{"V"}, Role: RoleBias, Optional: "true"}}),
		when("!legacy", linear("lm_predictions.lm_head.dense", "wordTied ? V : H", "H", "true"), norm("lm_predictions.lm_head.LayerNorm", "H", "true"),
			[]T{{Name: "lm_predictions.lm_head.bias", Shape: []string{"V"}, Role: RoleBias}}))},
	{Suffix: HeadSeqCls, Head: cat(linear("pooler.dense", "PH", "PH", "true"), classifier("classifier", "H")), Labels: true},
	{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
	{Suffix: TaskQA, Head: qaHead("qa_outputs", "H")},
	{Suffix: TaskMultChoice, Head: cat(linear("pooler.dense", "PH", "PH", "true"), choiceHead("classifier", "H"))},
}

// Signed is a definition's type: an integer that may be negative, a
// sentinel such as DeBERTa's max_relative_positions -1 ("none").
const Signed = Str + 4

// signedValue reads a Signed integer, bounded as sizes are.
func (c *Config) signedValue(field string, raw json.RawMessage) (any, error) {
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil || n < -maxDim || n > maxDim {
		return nil, c.errorf(field, "must be an integer, found %s", kindOf(raw))
	}
	return n, nil
}

// encHeads is an encoder's attention heads, dividing H.
func encHeads(field, def string) Def {
	return Def{Sym: "heads", Field: field, Default: def, Desc: "attention heads", Show: true, Pos: true, Divides: "H"}
}

// inner is the FFN's inner width.
func inner(field, def string) Def {
	return Def{Sym: "I", Field: field, Default: def, Legend: "I", Desc: "FFN inner width", Show: true, Pos: true}
}

var _ = register(
	&Family{Name: "DistilBERT", Class: "DistilBert", ModelTypes: []string{"distilbert"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunkAt("vocab_size=30522", "dim=768", "n_layers=6", "encoder layers"), []Def{
			encHeads("n_heads", "12"), inner("hidden_dim", "3072"),
			{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "positions (sinusoidal ones are written too)", Show: true, Pos: true},
			tie("true")}),
		Global: bertEmbeddings("distilbert.embeddings.", "H", false, true),
		Stacks: []Stack{{Prefix: "distilbert.transformer.layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.q_lin", "H", "H", "true"), linear("attention.k_lin", "H", "H", "true"),
			linear("attention.v_lin", "H", "H", "true"), linear("attention.out_lin", "H", "H", "true"),
			norm("sa_layer_norm", "H", "true"),
			linear("ffn.lin1", "I", "H", "true"), linear("ffn.lin2", "H", "I", "true"), norm("output_layer_norm", "H", "true"))}},
		Embed: "distilbert.embeddings.word_embeddings.weight",
		Tasks: distilTasks,
	},
	// MPNet: BERT's layer with attn.{q,k,v,o}, one relative-position
	// bias table shared by the layers, RoBERTa's heads.
	&Family{Name: "MPNet", Class: "MPNet", ModelTypes: []string{"mpnet"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunk("30527", "768", "12", "encoder layers"), []Def{
			encHeads("num_attention_heads", "12"), inner("intermediate_size", "3072"),
			{Sym: "P", Field: "max_position_embeddings", Default: "514", Legend: "P", Desc: "learned positions", Show: true, Pos: true},
			{Sym: "buckets", Field: "relative_attention_num_buckets", Default: "32", Desc: "relative-position buckets", Pos: true},
			tie("true")}),
		Global: bertEmbeddings("mpnet.embeddings.", "H", false, true),
		Stacks: []Stack{{Prefix: "mpnet.encoder.layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.attn.q", "H", "H", "true"), linear("attention.attn.k", "H", "H", "true"),
			linear("attention.attn.v", "H", "H", "true"), linear("attention.attn.o", "H", "H", "true"),
			norm("attention.LayerNorm", "H", "true"),
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))}},
		Final: []T{{Name: "mpnet.encoder.relative_attention_bias.weight", Shape: []string{"buckets", "heads"}, Role: RoleEmbedding}},
		Embed: "mpnet.embeddings.word_embeddings.weight",
		Tasks: withTask(robertaTasks("mpnet."), Task{Suffix: TaskMaskedLM, Head: robertaHead(), HeadName: "lm_head.decoder.weight"}),
	},
	// ModernBERT: no attention norm in layer 0, fused Wqkv, a GLU MLP (Wi
	// [2I, H]), biases only where the *_bias switches say; every head
	// reads its own dense + norm first.
	&Family{Name: "ModernBERT", Class: "ModernBert", ModelTypes: []string{"modernbert"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunk("50368", "768", "22", "encoder layers"), []Def{
			encHeads("num_attention_heads", "12"), inner("intermediate_size", "1152"),
			flag("attention_bias", "attention_bias", "false", "attention projections have biases"),
			flag("mlp_bias", "mlp_bias", "false", "MLP projections have biases"),
			flag("norm_bias", "norm_bias", "false", "layer norms have biases"),
			flag("cls_bias", "classifier_bias", "false", "the head's dense has a bias"),
			flag("dec_bias", "decoder_bias", "true", "the decoder has a bias"),
			tie("true")}),
		Global: cat(embed("model.embeddings.tok_embeddings.weight"), norm("model.embeddings.norm", "H", "norm_bias")),
		Stacks: decoderLayers([]Kind{{Name: "first", If: "l == 0"}, {Name: "rest"}},
			when("rest", norm("attn_norm", "H", "norm_bias")),
			linear("attn.Wqkv", "3*H", "H", "attention_bias"), linear("attn.Wo", "H", "H", "attention_bias"),
			norm("mlp_norm", "H", "norm_bias"),
			linear("mlp.Wi", "2*I", "H", "mlp_bias"), linear("mlp.Wo", "H", "I", "mlp_bias")),
		Final: norm("model.final_norm", "H", "norm_bias"),
		Embed: "model.embeddings.tok_embeddings.weight",
		Tasks: []Task{
			{Suffix: TaskBase, Prefix: "-"},
			{Suffix: TaskMaskedLM, HeadName: "decoder.weight", Head: cat(modernBertHead,
				[]T{{Name: "decoder.weight", Shape: []string{"V", "H"}, Role: RoleHead, Optional: "tied"}}, vecIf("decoder.bias", "V", "dec_bias"))},
			{Suffix: HeadSeqCls, Head: cat(modernBertHead, classifier("classifier", "H")), Labels: true},
			{Suffix: TaskTokenCls, Head: cat(modernBertHead, classifier("classifier", "H")), Labels: true},
			{Suffix: TaskQA, Head: cat(modernBertHead, classifier("classifier", "H")), Labels: true},
			{Suffix: TaskMultChoice, Head: cat(modernBertHead, choiceHead("classifier", "H"))},
		},
	},
	// DeBERTa-v2 (and v3): disentangled attention over a relative-position
	// table (relative_attention), position projections of their own unless
	// share_att_key, an optional convolution beside the first layer.
	&Family{Name: "DeBERTa-v2", Class: "DebertaV2", ModelTypes: []string{"deberta-v2"}, Causal: "-", SeqCls: "-",
		Defs: cat(trunk("128100", "1536", "24", "encoder layers"), []Def{
			encHeads("num_attention_heads", "24"), inner("intermediate_size", "6144"),
			{Sym: "P", Field: "max_position_embeddings", Default: "512", Legend: "P", Desc: "positions", Show: true, Pos: true},
			{Sym: "TV", Field: "type_vocab_size", Default: "0", Desc: "token types (0: none)"},
			{Sym: "E", Field: "embedding_size", Default: "H", Null: "H", Legend: "E", Desc: "embedding width", Pos: true},
			flag("pbi", "position_biased_input", "true", "absolute position embeddings are added"),
			flag("rel", "relative_attention", "false", "disentangled relative attention"),
			{Sym: "mrp", Field: "max_relative_positions", Type: Signed, Default: "0-1", Null: "0-1", Desc: "relative distances (< 1: max_position_embeddings)"},
			{Sym: "pb", Field: "position_buckets", Type: Signed, Default: "0-1", Null: "0-1", Desc: "log-bucketed relative positions (≤ 0: none)"},
			{Sym: "pat", Field: "pos_att_type", Type: List, Default: "empty", Null: "=", Desc: "position attention kinds (c2p, p2c)"},
			flag("share", "share_att_key", "false", "position projections share the content ones"),
			{Sym: "nre", Field: "norm_rel_ebd", Type: Str, Default: "'none'", Null: "=", Desc: "normalisation of the relative embeddings"},
			{Sym: "ck", Field: "conv_kernel_size", Default: "0", Desc: "convolution beside the first layer (0: none)"},
			{Sym: "cg", Field: "conv_groups", Default: "1", Pos: true, Desc: "its groups"},
			{Sym: "PH", Field: "pooler_hidden_size", Default: "H", Desc: "context pooler width", Pos: true},
			flag("legacy", "legacy", "true", "the masked-LM head is the legacy cls.predictions"),
			derived("ebd", "pb > 0 ? pb : (mrp < 1 ? P : mrp)"),
			derived("wordTied", "false"),
			tie("true")}),
		Global: cat([]T{{Name: "deberta.embeddings.word_embeddings.weight", Shape: []string{"V", "E"}, Role: RoleEmbedding, Optional: "wordTied"},
			{Name: "deberta.embeddings.position_embeddings.weight", Shape: []string{"P", "E"}, Role: RoleEmbedding, If: "pbi"},
			{Name: "deberta.embeddings.token_type_embeddings.weight", Shape: []string{"TV", "E"}, Role: RoleEmbedding, If: "TV > 0"}},
			when("E != H", linear("deberta.embeddings.embed_proj", "H", "E", "")),
			norm("deberta.embeddings.LayerNorm", "H", "true")),
		Stacks: []Stack{{Prefix: "deberta.encoder.layer.{l}.", Layers: "L", Tensors: cat(
			linear("attention.self.query_proj", "H", "H", "true"), linear("attention.self.key_proj", "H", "H", "true"),
			linear("attention.self.value_proj", "H", "H", "true"),
			when("rel && !share && in('c2p', pat)", linear("attention.self.pos_key_proj", "H", "H", "true")),
			when("rel && !share && in('p2c', pat)", linear("attention.self.pos_query_proj", "H", "H", "true")),
			linear("attention.output.dense", "H", "H", "true"), norm("attention.output.LayerNorm", "H", "true"),
			linear("intermediate.dense", "I", "H", "true"), linear("output.dense", "H", "I", "true"), norm("output.LayerNorm", "H", "true"))}},
		Final: cat([]T{{Name: "deberta.encoder.rel_embeddings.weight", Shape: []string{"2*ebd", "H"}, Role: RoleEmbedding, If: "rel"}},
			when("nre == 'layer_norm'", norm("deberta.encoder.LayerNorm", "H", "true")),
			when("ck > 0", []T{{Name: "deberta.encoder.conv.conv.weight", Shape: []string{"H", "H/cg", "ck"}, Role: RoleLinear},
				{Name: "deberta.encoder.conv.conv.bias", Shape: []string{"H"}, Role: RoleBias}},
				norm("deberta.encoder.conv.LayerNorm", "H", "true"))),
		Embed: "deberta.embeddings.word_embeddings.weight",
		Tasks: debertaTasks,
	},
)
