package spec

import "strings"

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
