package spec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Task is one task class of a family: the base model itself ("Model":
// BertModel, LlamaModel) or a head on it (BertForMaskedLM,
// LlamaForTokenClassification), keyed by the suffix of the class name.
// The family's tensors are the base model's under its prefix (BasePrefix,
// else the first component of the embedding's name: "bert.", "model.");
// a task renames that prefix as its class does, keeps the base model's
// final tensors and adds its head. The causal head the family's Final
// lists outside the prefix is the causal class's only.
type Task struct {
	Suffix string // the class is the family's Class + Suffix
	// Prefix is the base model's prefix in this class: "" the family's,
	// "-" none (the base model class itself), else the one that replaces
	// it (LlamaForQuestionAnswering's "transformer.").
	Prefix string
	// Defs set symbols for this class, replacing the family's of the same
	// name (add_pooling_layer: "pool").
	Defs []Def
	Head []T // the head's tensors, full names
	// HeadName is the head tied to the token embedding (the masked LM's
	// decoder), "" none.
	HeadName string
	// Labels: the head's C is the number of labels (id2label), as for a
	// sequence classifier.
	Labels bool
	// CausalHead: the head is the family's causal LM head (a BERT's masked
	// LM head is its LMHeadModel's), with its tying.
	CausalHead bool
	// Of, when set, is the family the class is a task of, instead of the
	// one whose table lists it (a seq2seq model's full encoder-decoder,
	// listed with the decoder model_type's family).
	Of *Family
	// KeepFinal keeps every final tensor of the family but the LM head
	// and score (a VLM's projector sits outside the base prefix).
	KeepFinal bool
	// FP32First: the class's first parameter is one transformers always
	// creates in float32, and save_pretrained writes that parameter's
	// dtype as config.json's: "float32" there says nothing of the
	// weights (UniSpeechSatForPreTraining's label_embeddings_concat).
	FP32First bool
	// Variants are other layouts of this class alone, in its own names
	// (transformers 5.x writes Qwen2VLModel's language model under
	// language_model., 4.x under model.): see Family.Variants.
	Variants [][][2]string
}

// Task suffixes.
const (
	TaskBase       = "Model"
	TaskMaskedLM   = "ForMaskedLM"
	TaskTokenCls   = "ForTokenClassification"
	TaskQA         = "ForQuestionAnswering"
	TaskMultChoice = "ForMultipleChoice"
	TaskPreTrain   = "ForPreTraining"
	TaskNextSent   = "ForNextSentencePrediction"
)

// basePrefix is the prefix of the base model's names in the family's
// task classes: BasePrefix, else the embedding's first component.
func (f *Family) basePrefix() string {
	if f.BasePrefix != "" {
		return f.BasePrefix
	}
	if i := strings.IndexByte(f.Embed, '.'); i > 0 {
		return f.Embed[:i+1]
	}
	return ""
}

// tasks are the family's task classes: classTasks' entry for its class,
// else its own, else those every decoder has (decoderTasks).
func (f *Family) tasks() []Task {
	if ts, ok := classTasks[f.Class]; ok {
		return ts
	}
	if f.Tasks != nil {
		return f.Tasks
	}
	return decoderTasks(f.basePrefix(), qaUnderModel[f.Class])
}

// qaUnderModel are the decoders whose ForQuestionAnswering class keeps
// the base model under model. (their own class, not transformers'
// generic one, which names it transformer.).
var qaUnderModel = map[string]bool{"MiniMax": true, "Ministral3": true, "Mistral": true, "Mixtral": true, "Qwen2Moe": true, "OPT": true}

// noTasks is for a family whose other classes are not its base model
// with a head (a seq2seq model's decoder used alone).
var noTasks = []Task{}

// composedTasks are a VLM's task classes: its base model without the
// head. A VLM whose language model transformers 4.x keeps under
// model.language_model (model.text_model) has it under language_model
// in the base model;
// one written in the legacy layout (language_model.model., its key
// mapping reversed on save) is written so by the base model too.
func composedTasks(reroot [][2]string, variants ...[][2]string) []Task {
	if len(reroot) > 0 && strings.HasPrefix(reroot[0][1], "model.") {
		return []Task{{Suffix: TaskBase, Prefix: "-", KeepFinal: true, Variants: variants}}
	}
	return []Task{{Suffix: TaskBase, KeepFinal: true, Variants: variants}}
}

// decoderTasks are the task classes transformers gives a decoder-only
// model (its generic heads): the base model, token classification (score
// with a bias under model., classifier under another prefix) and question
// answering (qa_outputs; the base model under transformer. where it is
// model.).
func decoderTasks(base string, qaModel bool) []Task {
	tok, qa := "classifier", ""
	if base == "model." {
		tok, qa = "score", "transformer."
		if qaModel {
			qa = ""
		}
	}
	return []Task{
		{Suffix: TaskBase, Prefix: "-"},
		{Suffix: TaskTokenCls, Head: linear(tok, "C", "H", "true"), Labels: true},
		{Suffix: TaskQA, Prefix: qa, Head: qaHead("qa_outputs", "H")},
	}
}

// qaHead is an extractive QA head: start and end logits, [2, dim].
func qaHead(name, dim string) []T { return linear(name, "2", dim, "true") }

// classifier is a classification head [C, dim] with its bias.
func classifier(name, dim string) []T { return linear(name, "C", dim, "true") }

// choiceHead is a multiple-choice head: one logit per choice, [1, dim].
func choiceHead(name, dim string) []T { return linear(name, "1", dim, "true") }

// denseClassifier is RoBERTa's classification head: dense [dim, dim]
// then out_proj [C, dim], under pre ("classifier.").
func denseClassifier(pre, dim string) []T {
	return cat(linear(pre+"dense", dim, dim, "true"), linear(pre+"out_proj", "C", dim, "true"))
}

// taskClass is the class name of task t.
func (f *Family) taskClass(t *Task) string { return f.Class + t.Suffix }

// findTask is the task whose class is arch, or nil.
func (f *Family) findTask(arch string) *Task {
	ts := f.tasks()
	for i := range ts {
		if f.taskClass(&ts[i]) == arch {
			return &ts[i]
		}
	}
	return nil
}

// taskFamilies caches the families derived for tasks, by family (a
// composed family is cached by its composition) and suffix.
var taskFamilies sync.Map

type taskKey struct {
	f      *Family
	suffix string
}

// forTask is the family of f's task class t: the base model's names
// under the class's prefix, its final tensors and the head.
func (f *Family) forTask(t *Task) *Family {
	if g, ok := taskFamilies.Load(taskKey{f, t.Suffix}); ok {
		return g.(*Family)
	}
	if t.Of != nil {
		g := t.Of.forTask(&Task{Suffix: t.Suffix, Prefix: t.Prefix, Defs: t.Defs, Head: t.Head, HeadName: t.HeadName,
			Labels: t.Labels, CausalHead: t.CausalHead, KeepFinal: t.KeepFinal, FP32First: t.FP32First, Variants: t.Variants})
		g2, _ := taskFamilies.LoadOrStore(taskKey{f, t.Suffix}, g)
		return g2.(*Family)
	}
	base := f.basePrefix()
	to := base
	switch t.Prefix {
	case "":
	case "-":
		to = ""
	default:
		to = t.Prefix
	}
	re := func(n string) string {
		if base != "" && strings.HasPrefix(n, base) {
			return to + n[len(base):]
		}
		return n
	}
	class := f.taskClass(t)
	g := &Family{Name: f.Name, Class: f.Class, ConfigClass: f.configClass(), ModelTypes: f.ModelTypes,
		Causal: class, SeqCls: "-", task: t, Ignore: f.Ignore}
	defs := slices.Clone(f.Defs)
	for _, d := range t.Defs {
		if i := slices.IndexFunc(defs, func(x Def) bool { return x.Sym == d.Sym }); i >= 0 {
			defs[i] = d
		} else {
			defs = append(defs, d)
		}
	}
	g.Defs = defs
	for _, x := range f.Global {
		x.Name = re(x.Name)
		g.Global = append(g.Global, x)
	}
	for _, s := range f.Stacks {
		s.Prefix = re(s.Prefix)
		g.Stacks = append(g.Stacks, s)
	}
	for _, x := range f.Final {
		if t.KeepFinal && x.Role != RoleHead && x.Role != RoleScore || !t.KeepFinal && base != "" && strings.HasPrefix(x.Name, base) {
			x.Name = re(x.Name)
			g.Final = append(g.Final, x)
		}
	}
	if t.CausalHead {
		for _, x := range f.Final {
			if base == "" || !strings.HasPrefix(x.Name, base) {
				g.Final = append(g.Final, x)
			}
		}
	}
	g.Final = append(g.Final, t.Head...)
	g.Embed = re(f.Embed)
	g.Head = t.HeadName
	if t.CausalHead {
		g.Head = f.Head
	}
	if g.Head == "" {
		g.Head = "-"
	}
	for _, v := range f.Variants {
		var nv [][2]string
		for _, r := range v {
			nv = append(nv, [2]string{re(r[0]), re(r[1])})
		}
		g.Variants = append(g.Variants, nv)
	}
	g.Variants = append(g.Variants, t.Variants...)
	g2, _ := taskFamilies.LoadOrStore(taskKey{f, t.Suffix}, g)
	return g2.(*Family)
}

// subArchitecture is architectures[0] of the sub-config under field, or
// "".
func (c *Config) subArchitecture(field string) string {
	var archs []string
	if raw, ok := c.lookup(field + ".architectures"); ok && json.Unmarshal(raw, &archs) == nil && len(archs) > 0 {
		return archs[0]
	}
	return ""
}

// writtenByV5 reports whether config.json was written by transformers 5
// or later, for the layouts that differ by writer: the symbol tf5 in
// expressions. transformers_version says; a config without it is 4.x's
// unless its model_type is one only 5.x defines (modelTypesV5).
func writtenByV5(c *Config) bool {
	v, _ := c.StringOr("transformers_version", "")
	if v == "" {
		mt, _ := c.StringOr("model_type", "")
		return modelTypesV5[mt]
	}
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	return err == nil && n >= 5
}

// coversOnly says which classes f's spec covers, for a class it does
// not: its causal and classification heads, or (an encoder without them)
// the task classes fsinspect --architectures lists.
func (f *Family) coversOnly() string {
	if cs := f.classes(); len(cs) > 0 {
		return fmt.Sprintf("the %s spec covers the %s heads only", f.Name, strings.Join(cs, " and "))
	}
	var cs []string
	for _, t := range f.tasks() {
		cs = append(cs, f.taskClass(&t))
	}
	return fmt.Sprintf("the %s spec covers %s only", f.Name, strings.Join(cs, ", "))
}

// listedTask reports whether Architectures lists the task class c:
// transformers defines it (autoClasses).
func listedTask(c string) bool { return autoClasses[c] }
