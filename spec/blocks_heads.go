package spec

import "slices"

// The task classes of the BERT-like encoders (families_encoder.go):
// the base model with its pooler, the masked LM (the LMHeadModel's head),
// sequence, token and multiple-choice classifiers, extractive QA, and
// BERT's pre-training heads. Each encoder names its heads its own way;
// these tables say which, keyed by the family's class prefix.

// pooler is a BERT pooler under pre (the base model's prefix, "" for the
// base model itself): dense [H, H] on the first token.
func pooler(pre string) []T { return linear(pre+"pooler.dense", "H", "H", "true") }

// nsp is BERT's next-sentence head: two logits.
var nsp = linear("cls.seq_relationship", "2", "H", "true")

// bertTasks are BERT's task classes over base ("bert."): a pooled
// classifier (classifier [C, H]) for sequences, BERT's pre-training and
// next-sentence heads.
func bertTasks(base string) []Task {
	return []Task{
		{Suffix: TaskBase, Prefix: "-", Head: pooler("")},
		{Suffix: TaskMaskedLM, CausalHead: true},
		{Suffix: HeadSeqCls, Head: cat(pooler(base), classifier("classifier", "H")), Labels: true},
		{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
		{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true}, // num_labels wide (BERT-style modeling code)
		{Suffix: TaskMultChoice, Head: cat(pooler(base), choiceHead("classifier", "H"))},
		{Suffix: TaskNextSent, Head: cat(pooler(base), nsp)},
		{Suffix: TaskPreTrain, CausalHead: true, Head: cat(pooler(base), nsp)},
	}
}

// robertaTasks are RoBERTa's: the sequence classifier is a dense layer
// then out_proj on the first token, no pooler.
func robertaTasks(base string) []Task {
	return []Task{
		{Suffix: TaskBase, Prefix: "-", Head: pooler("")},
		{Suffix: TaskMaskedLM, CausalHead: true},
		{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
		{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
		{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true}, // num_labels wide (BERT-style modeling code)
		{Suffix: TaskMultChoice, Head: cat(pooler(base), choiceHead("classifier", "H"))},
	}
}

// electraTasks are ELECTRA's: no pooler; a sequence summary before the
// multiple-choice head; the discriminator as pre-training head.
var electraTasks = noPoolerTasks(cat(linear("sequence_summary.summary", "H", "H", "true"), choiceHead("classifier", "H")),
	Task{Suffix: TaskPreTrain, Head: cat(linear("discriminator_predictions.dense", "H", "H", "true"), linear("discriminator_predictions.dense_prediction", "1", "H", "true"))})

// roformerTasks are RoFormer's: no pooler, RoBERTa's sequence
// classifier.
var roformerTasks = noPoolerTasks(choiceHead("classifier", "H"))

// noPoolerTasks are the tasks of an encoder without a pooler (ELECTRA,
// RoFormer): RoBERTa's sequence classifier, the multiple-choice head mc,
// then more.
func noPoolerTasks(mc []T, more ...Task) []Task {
	return cat([]Task{
		{Suffix: TaskBase, Prefix: "-"},
		{Suffix: TaskMaskedLM, CausalHead: true},
		{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
		{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
		{Suffix: TaskQA, Head: classifier("qa_outputs", "H"), Labels: true}, // num_labels wide (BERT-style modeling code)
		{Suffix: TaskMultChoice, Head: mc},
	}, more)
}

// withTask returns ts with t in place of the task of the same suffix,
// or appended.
func withTask(ts []Task, t Task) []Task {
	out, ok := replaced(ts, t, func(e Task) bool { return e.Suffix == t.Suffix })
	if !ok {
		out = append(out, t)
	}
	return out
}

// withoutTasks returns ts without the tasks of the given suffixes.
func withoutTasks(ts []Task, suffixes ...string) []Task {
	return slices.DeleteFunc(slices.Clone(ts), func(t Task) bool { return slices.Contains(suffixes, t.Suffix) })
}

// classTasks are the task tables of families that do not set Tasks, by
// class prefix.
var classTasks = map[string][]Task{
	"Bert":         bertTasks("bert."),
	"Ernie":        bertTasks("ernie."),
	"MegatronBert": bertTasks("bert."),
	"RoCBert":      withTask(bertTasks("roc_bert."), Task{Suffix: TaskPreTrain, CausalHead: true, Head: pooler("roc_bert.")}),
	"RemBert":      bertTasks("rembert."),
	"RoFormer":     roformerTasks,
	"Xmod":         robertaTasks("roberta."),
	// BigBird's QA head is a BERT layer's FFN then qa_outputs, without the pooler.
	"BigBird": {{Suffix: TaskBase, Prefix: "-"}, {Suffix: TaskMaskedLM, CausalHead: true},
		{Suffix: TaskPreTrain, CausalHead: true, Head: nsp},
		{Suffix: HeadSeqCls, Head: denseClassifier("classifier.", "H"), Labels: true},
		{Suffix: TaskTokenCls, Head: classifier("classifier", "H"), Labels: true},
		{Suffix: TaskQA, Defs: []Def{derived("pool", "false")}, Labels: true, Head: cat(
			linear("qa_classifier.intermediate.dense", "I", "H", "true"), linear("qa_classifier.output.dense", "H", "I", "true"),
			norm("qa_classifier.output.LayerNorm", "H", "true"), classifier("qa_classifier.qa_outputs", "H"))},
		{Suffix: TaskMultChoice, Head: choiceHead("classifier", "H")}},
	// OPT's QA head reads the projected-out states, word_embed_proj_dim wide.
	"OPT": {{Suffix: TaskBase, Prefix: "-"}, {Suffix: TaskQA, Head: qaHead("qa_outputs", "W")}},
	// XLNet keeps its heads in float32 as the rest.
	"XLNet": {{Suffix: TaskBase, Prefix: "-"}, {Suffix: TaskTokenCls, Head: anyDType(classifier("classifier", "H")), Labels: true},
		{Suffix: HeadSeqCls, Head: anyDType(cat(seqSummary(), classifier("logits_proj", "H"))), Labels: true},
		{Suffix: "ForQuestionAnsweringSimple", Head: anyDType(classifier("qa_outputs", "H")), Labels: true},
		{Suffix: TaskMultChoice, Head: anyDType(cat(seqSummary(), choiceHead("logits_proj", "H"))), Labels: true}},
	// Composite models whose base classes are not the generation class
	// less its head.
	"ProphetNet": noTasks, "XLMProphetNet": noTasks, "Reformer": reformerTasks, "Udop": udopTasks,
	"Mega":                megaTasks,
	"Roberta":             robertaTasks("roberta."),
	"XLMRoberta":          robertaTasks("roberta."),
	"Camembert":           robertaTasks("roberta."),
	"Data2VecText":        robertaTasks("data2vec_text."),
	"RobertaPreLayerNorm": robertaTasks("roberta_prelayernorm."),
	"XLMRobertaXL":        robertaTasks("roberta."),
	"Electra":             electraTasks,
	// Decoders' sequence classifiers on the last token, without bias
	// (ModernBERT-decoder's after its prediction head).
	"CTRL":      append(decoderTasks("transformer.", false), Task{Suffix: HeadSeqCls, Head: linear("classifier", "C", "H", ""), Labels: true}),
	"TransfoXL": append(decoderTasks("transformer.", false), Task{Suffix: HeadSeqCls, Head: linear("score", "C", "DE", ""), Labels: true}),
	"ModernBertDecoder": append(decoderTasks("model.", false), Task{Suffix: HeadSeqCls, Labels: true, Head: cat(
		linear("head.dense", "H", "H", "cls_bias"), norm("head.norm", "H", "norm_bias"), linear("classifier", "C", "H", "cls_bias"))}),
}
