package adapter

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
	"github.com/fsmount/fsmount/tensor"
)

// Prefix is the key prefix PEFT gives a LoRA adapter's tensors: the
// PeftModel's base_model (the LoraModel) and its model.
const Prefix = "base_model.model."

// Module kinds: the layer PEFT wraps.
const (
	KindLinear    = "Linear"
	KindConv1D    = "Conv1D"    // GPT-2's, weight stored [in, out]
	KindEmbedding = "Embedding" // lora_embedding_A/B
	KindConv      = "Conv"
)

// Module is one adapted module.
type Module struct {
	// Key is the module's name in the model (model.layers.0.self_attn.q_proj).
	Key  string
	Kind string
	// Layer is the module's layer number, -1 for none.
	Layer int
	Rank  int
	Alpha float64
	Scale float64
	// A and B are the stored lora_A and lora_B (lora_embedding_A/B),
	// Magnitude DoRA's magnitude vector; nil when missing.
	A, B, Magnitude *tensor.Tensor
	// Weight is the base's weight, nil without a base.
	Weight *tensor.Tensor
	// Enable is an old PEFT's enable_lora for a MergedLinear (nil for
	// any other layer): the weight's output is len(Enable) equal parts,
	// the enabled ones adapted. lora_A is then [k·r, in] and lora_B a
	// Conv1d's [k·out/n, k·r/2, 1] of two groups, k the enabled parts.
	Enable []bool
}

// Report is the result of checking an adapter.
type Report struct {
	Adapter *Adapter
	// Base is the model checked against, nil without one; NoBase says
	// then why, and which base the adapter names.
	Base   *model.Model
	NoBase string
	// Modules are the adapted modules in name order.
	Modules  []*Module
	Problems []check.Problem
	Notes    []string
	// Expected counts the tensors the check expected (with a base).
	Expected int
	// Params are the elements stored in the adapter, BaseParams in the
	// base (0 without one).
	Params, BaseParams uint64
	ByDType            map[tensor.DType]uint64
	// Copies maps a tensor name of the base (and of a merged model) to
	// the adapter's full copy of it, which replaces it when merged:
	// modules to save and the biases the bias mode trains.
	Copies map[string]*tensor.Tensor
	// AdapterName is the adapter name the keys carry ("" when PEFT
	// removed it, as it does).
	AdapterName string
}

// Partial reports whether the check could not use a base.
func (r *Report) Partial() bool { return r.Base == nil }

// Clean reports whether the check found no problem.
func (r *Report) Clean() bool { return len(r.Problems) == 0 }

// Module returns the adapted module of that key, or nil.
func (r *Report) Module(key string) *Module {
	i, ok := slices.BinarySearchFunc(r.Modules, key, func(m *Module, k string) int { return strings.Compare(m.Key, k) })
	if !ok {
		return nil
	}
	return r.Modules[i]
}

// loraParts are the parameter names PEFT's LoRA layers hold.
var loraParts = []string{"lora_A", "lora_B", "lora_embedding_A", "lora_embedding_B", "lora_magnitude_vector"}

// canonical removes an adapter name from a stored key, as PEFT's
// _remove_adapter_name_from_state_dict_key, for the LoRA parameters:
// q_proj.lora_A.default.weight → q_proj.lora_A.weight,
// embed_tokens.lora_embedding_A.default → embed_tokens.lora_embedding_A.
// It returns the key and the name removed.
func canonical(key string) (string, string) {
	parts := strings.Split(key, ".")
	for i := len(parts) - 1; i >= 0; i-- {
		if !slices.Contains(loraParts, parts[i]) {
			continue
		}
		rest := parts[i+1:]
		switch {
		case len(rest) == 1 && rest[0] != "weight" && rest[0] != "bias":
			return strings.Join(parts[:i+1], "."), rest[0]
		case len(rest) == 2:
			return strings.Join(append(slices.Clone(parts[:i+1]), rest[1]), "."), rest[0]
		}
		return key, ""
	}
	return key, ""
}

// split returns a canonical key's module and LoRA part ("lora_A"), or
// part "" for another tensor.
func split(rel string) (module, part string) {
	for _, p := range loraParts {
		for _, suf := range []string{"." + p + ".weight", "." + p + ".bias", "." + p} {
			if strings.HasSuffix(rel, suf) {
				return strings.TrimSuffix(rel, suf), p + strings.TrimPrefix(suf, "."+p)
			}
		}
	}
	return "", ""
}

// want is one tensor the check expects.
type want struct {
	name     string // stored name, with Prefix
	alt      string // another name PEFT has written it under, or ""
	shape    []spec.Dim
	optional bool
	// merged is the name the tensor has in a merged checkpoint, for the
	// full copies PEFT saves (modules to save, trained biases).
	merged string
}

// conv1DTypes are the model types whose linear layers are transformers'
// Conv1D (weight [in, out]); PEFT sets fan_in_fan_out for them itself.
var conv1DTypes = map[string]bool{"gpt2": true, "openai-gpt": true, "imagegpt": true, "decision_transformer": true}

// conv1DNames are the module names of GPT-2's Conv1D layers (under
// transformer.h.N): without a base, they tell a Conv1D from a Linear.
var conv1DNames = []string{"c_attn", "c_proj", "c_fc"}

// embeddingNames are the last name components of embedding modules.
var embeddingNames = []string{"embed_tokens", "wte", "wpe", "word_embeddings", "position_embeddings", "token_type_embeddings",
	"embed_positions", "shared", "embed_in", "tok_embeddings", "embeddings", "embedding"}

// outputHeads are the output-embedding modules all-linear leaves out.
var outputHeads = []string{"lm_head", "embed_out", "output"}

func lastPart(key string) string { return key[strings.LastIndexByte(key, '.')+1:] }

func isEmbedding(key string) bool { return slices.Contains(embeddingNames, lastPart(key)) }

// Check checks the adapter against base, or, with base nil, what the
// adapter alone determines; noBase then says why there is no base.
func Check(a *Adapter, base *model.Model, noBase string) *Report {
	r := &Report{Adapter: a, Base: base, NoBase: noBase, ByDType: map[tensor.DType]uint64{}, Copies: map[string]*tensor.Tensor{}}
	c := a.Config
	if base != nil && base.Format == model.FormatShapes {
		r.Notes = append(r.Notes, "the base is its config.json alone: checked against the shapes the architecture table derives from it (no weights read)")
	}
	stored := map[string]*tensor.Tensor{} // canonical name → tensor
	names := map[string]bool{}
	for _, t := range a.Tensors {
		n := t.NumElements()
		r.Params += n
		r.ByDType[t.DType] += n
		k, an := canonical(t.Name)
		if an != "" {
			names[an] = true
		}
		if prev := stored[k]; prev != nil {
			r.problem(check.Problem{Kind: check.Unexpected, Tensor: t.Name, Detail: fmt.Sprintf("%s duplicates %s once the adapter name is removed", t.Name, prev.Name), Shape: t.Shape, HasShape: true, DType: t.DType.String()})
			continue
		}
		stored[k] = t
	}
	if len(names) > 0 {
		ns := slices.Sorted(maps.Keys(names))
		r.AdapterName = strings.Join(ns, ", ")
		r.Notes = append(r.Notes, fmt.Sprintf("keys carry the adapter name %s (PEFT's save_pretrained removes it; PEFT loads them either way)", strings.Join(quoteAll(ns), ", ")))
	}
	if len(c.TargetParameters) > 0 {
		r.Notes = append(r.Notes, "target_parameters ("+strings.Join(c.TargetParameters, ", ")+") is not derived: their tensors are not checked")
	}
	// The modules the stored tensors adapt.
	mods := map[string]*Module{}
	for k, t := range stored {
		if !strings.HasPrefix(k, Prefix) {
			continue
		}
		m, part := split(strings.TrimPrefix(k, Prefix))
		if part == "" {
			continue
		}
		mod := mods[m]
		if mod == nil {
			mod = &Module{Key: m, Layer: -1, Kind: KindLinear}
			mods[m] = mod
		}
		switch part {
		case "lora_A.weight":
			mod.A = t
		case "lora_B.weight":
			mod.B = t
		case "lora_embedding_A":
			mod.A, mod.Kind = t, KindEmbedding
		case "lora_embedding_B":
			mod.B, mod.Kind = t, KindEmbedding
		case "lora_magnitude_vector", "lora_magnitude_vector.weight":
			mod.Magnitude = t
		}
	}
	guessed := false
	for _, m := range mods {
		m.Rank, m.Alpha, m.Scale = c.Rank(m.Key), c.AlphaOf(m.Key), c.Scale(m.Key)
		if i, ok := c.layerIndex(m.Key); ok {
			m.Layer = i
		}
		if m.Kind == KindLinear && c.FanInFanOut && c.EnableLoRA == nil {
			m.Kind = KindConv1D
		}
		if m.Kind == KindLinear && base == nil && slices.Contains(conv1DNames, lastPart(m.Key)) && strings.Contains(m.Key, ".h.") {
			m.Kind = KindConv1D
			guessed = true
		}
		if m.A != nil && len(m.A.Shape) > 2 {
			m.Kind = KindConv
		}
	}
	if guessed {
		r.Notes = append(r.Notes, "c_attn, c_proj and c_fc taken as GPT-2's Conv1D (weight stored [in, out]) by their names; a base would say")
	}
	var wants []want
	if base != nil {
		wants = r.expect(stored, mods)
	} else {
		wants = r.alone(stored, mods)
	}
	r.Expected = 0
	claimed := map[string]bool{}
	for _, w := range wants {
		t, name := stored[w.name], w.name
		if t == nil && w.alt != "" {
			t, name = stored[w.alt], w.alt
		}
		if t == nil {
			if !w.optional {
				r.Expected++
				r.problem(check.Problem{Kind: check.Missing, Tensor: w.name, Detail: fmt.Sprintf("%s, expected %s", w.name, dimsText(w.shape)), Expected: w.shape})
			}
			continue
		}
		r.Expected++
		claimed[name] = true
		if w.merged != "" {
			r.Copies[w.merged] = t
		}
		if d, mm := mismatch(t.Name, w.shape, t.Shape); d != "" {
			r.problem(check.Problem{Kind: check.Misshaped, Tensor: t.Name, Detail: d, Expected: w.shape, Shape: t.Shape, HasShape: true, Mismatches: mm})
		}
	}
	for _, k := range slices.Sorted(maps.Keys(stored)) {
		if claimed[k] {
			continue
		}
		t := stored[k]
		why := "is not a tensor PEFT saves for this config"
		if base != nil {
			why += " and base"
		}
		m, part := split(strings.TrimPrefix(k, Prefix))
		switch {
		case part != "" && !strings.HasPrefix(k, Prefix):
			why = "lacks PEFT's key prefix " + Prefix
		case part != "" && r.Adapter.Config.excluded(m, r.Adapter.Config.ToSave()):
			why = "adapts " + m + ", which PEFT leaves alone: a module to save (saved whole) or excluded"
		}
		r.problem(check.Problem{Kind: check.Unexpected, Tensor: t.Name, Detail: fmt.Sprintf("%s %s %s %s", t.Name, t.DType, tensor.FormatShape(t.Shape), why), Shape: t.Shape, HasShape: true, DType: t.DType.String()})
	}
	for _, m := range slices.SortedFunc(maps.Values(mods), func(x, y *Module) int { return strings.Compare(x.Key, y.Key) }) {
		if c.EnableLoRA != nil && (m.Kind == KindLinear || m.Kind == KindConv1D) {
			m.Enable = c.EnableLoRA
		}
		if m.A != nil && m.B != nil && claimed[canonKey(m.A)] && claimed[canonKey(m.B)] {
			r.Modules = append(r.Modules, m)
		}
	}
	slices.SortStableFunc(r.Problems, func(x, y check.Problem) int { return cmp.Compare(kindOrder(x.Kind), kindOrder(y.Kind)) })
	return r
}

func canonKey(t *tensor.Tensor) string { k, _ := canonical(t.Name); return k }

func kindOrder(k check.ProblemKind) int {
	return slices.Index([]check.ProblemKind{check.Missing, check.Misshaped, check.Unexpected}, k)
}

func (r *Report) problem(p check.Problem) { r.Problems = append(r.Problems, p) }

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// dims builds a shape from symbol/value pairs.
func dims(kv ...any) []spec.Dim {
	out := make([]spec.Dim, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		sym, _ := kv[i].(string)
		var v uint64
		switch x := kv[i+1].(type) {
		case uint64:
			v = x
		case int:
			v = uint64(max(x, 0))
		}
		out = append(out, spec.Dim{Sym: sym, Val: v})
	}
	return out
}

func dimsText(d []spec.Dim) string {
	syms := make([]string, len(d))
	vals := make([]uint64, len(d))
	named := false
	for i, x := range d {
		syms[i], vals[i] = x.Sym, x.Val
		named = named || x.Sym != strconv.FormatUint(x.Val, 10)
	}
	if !named {
		return tensor.FormatShape(vals)
	}
	return "[" + strings.Join(syms, ", ") + "] = " + tensor.FormatShape(vals)
}

func mismatch(name string, want []spec.Dim, got []uint64) (string, []check.DimMismatch) {
	head := fmt.Sprintf("%s is %s, expected %s", name, tensor.FormatShape(got), dimsText(want))
	if len(got) != len(want) {
		return fmt.Sprintf("%s (rank %d, expected %d)", head, len(got), len(want)), []check.DimMismatch{}
	}
	var diffs []string
	var mm []check.DimMismatch
	for i, d := range want {
		if got[i] != d.Val {
			diffs = append(diffs, fmt.Sprintf("dim %d is %d, %s is %d", i, got[i], d.Sym, d.Val))
			mm = append(mm, check.DimMismatch{Index: i, Sym: d.Sym, Expected: d.Val, Actual: got[i]})
		}
	}
	if diffs == nil {
		return "", nil
	}
	return head + ": " + strings.Join(diffs, "; "), mm
}

// loraWants returns the tensors of a LoRA layer of rank r on module key
// whose base weight has shape w, and sets m's kind.
func (r *Report) loraWants(key, kind string, rank int, w []uint64) []want {
	c := r.Adapter.Config
	p := Prefix + key
	rk := uint64(rank)
	var ws []want
	var out uint64
	if c.EnableLoRA != nil && (kind == KindLinear || kind == KindConv1D) {
		return r.mergedWants(key, kind, rank, w)
	}
	switch kind {
	case KindLinear:
		out = w[0]
		ws = append(ws, want{name: p + ".lora_A.weight", shape: dims("r", rk, "in", w[1])}, want{name: p + ".lora_B.weight", shape: dims("out", w[0], "r", rk)})
	case KindConv1D:
		out = w[1]
		ws = append(ws, want{name: p + ".lora_A.weight", shape: dims("r", rk, "in", w[0])}, want{name: p + ".lora_B.weight", shape: dims("out", w[1], "r", rk)})
	case KindEmbedding:
		ws = append(ws, want{name: p + ".lora_embedding_A", shape: dims("r", rk, "num_embeddings", w[0])}, want{name: p + ".lora_embedding_B", shape: dims("embedding_dim", w[1], "r", rk)},
			want{name: p + ".base_layer.weight", shape: dims("num_embeddings", w[0], "embedding_dim", w[1]), optional: true})
	case KindConv:
		out = w[0]
		a := dims("r", rk, "in", w[1])
		b := dims("out", w[0], "r", rk)
		for i, k := range w[2:] {
			a = append(a, spec.Dim{Sym: fmt.Sprintf("k%d", i), Val: k})
			b = append(b, spec.Dim{Sym: "1", Val: 1})
		}
		ws = append(ws, want{name: p + ".lora_A.weight", shape: a}, want{name: p + ".lora_B.weight", shape: b})
	}
	if c.UseDoRA {
		if kind == KindEmbedding {
			ws = append(ws, want{name: p + ".lora_magnitude_vector", shape: dims("embedding_dim", w[1]), optional: true})
		} else {
			ws = append(ws, want{name: p + ".lora_magnitude_vector", shape: dims("out", out)})
		}
	}
	if c.LoRABias && kind != KindEmbedding {
		ws = append(ws, want{name: p + ".lora_B.bias", shape: dims("out", out)})
	}
	return ws
}

// baseConfig is what the check reads from the base's config.json.
type baseConfig struct {
	ModelType string `json:"model_type"`
	Hidden    uint64 `json:"hidden_size"`
	NEmbd     uint64 `json:"n_embd"`
	DModel    uint64 `json:"d_model"`
	Dim       uint64 `json:"dim"`
}

// expect derives the tensors PEFT saves for this config on the base.
func (r *Report) expect(stored map[string]*tensor.Tensor, mods map[string]*Module) []want {
	c, base := r.Adapter.Config, r.Base
	var bc baseConfig
	if base.Config != nil {
		json.Unmarshal(base.Config, &bc)
	}
	hidden := cmp.Or(bc.Hidden, bc.NEmbd, bc.DModel, bc.Dim)
	weights := map[string]*tensor.Tensor{} // base module → its weight
	var modules []string                   // every module name, with parents
	seenMod := map[string]bool{}
	for _, t := range base.Tensors() {
		r.BaseParams += t.NumElements()
		if m, ok := strings.CutSuffix(t.Name, ".weight"); ok {
			weights[m] = t
		}
		for i := strings.LastIndexByte(t.Name, '.'); i > 0; i = strings.LastIndexByte(t.Name[:i], '.') {
			if m := t.Name[:i]; !seenMod[m] {
				seenMod[m] = true
				modules = append(modules, m)
			}
		}
	}
	// The checkpoint's names may lack the model's base prefix (GPT-2's
	// h.0.attn.c_attn, whose module is transformer.h.0.attn.c_attn):
	// take the prefix under which most stored modules are in the base.
	prefix, best := "", 0
	cands := map[string]int{"": 0}
	for k := range stored {
		rel := strings.TrimPrefix(k, Prefix)
		if i := strings.IndexByte(rel, '.'); i > 0 {
			cands[rel[:i+1]] = 0
		}
	}
	for p := range cands {
		n := 0
		for k := range stored {
			rel, ok := strings.CutPrefix(strings.TrimPrefix(k, Prefix), p)
			if !ok {
				continue
			}
			if m, part := split(rel); part != "" && weights[m] != nil {
				n++
			}
		}
		if n > best || n == best && n > 0 && len(p) < len(prefix) {
			prefix, best = p, n
		}
	}
	if prefix != "" {
		r.Notes = append(r.Notes, fmt.Sprintf("the base's tensor names lack the model's %q prefix (its checkpoint holds the bare model): matched with it added", strings.TrimSuffix(prefix, ".")))
	}
	toSave := c.ToSave()
	allLinear := map[string]bool{}
	if c.AllLinear {
		for m, w := range weights {
			k := prefix + m
			if len(w.Shape) != 2 || isEmbedding(k) || slices.Contains(outputHeads, lastPart(k)) && !strings.Contains(k, ".layers.") {
				continue
			}
			if c.TaskType == "SEQ_CLS" && (k == "classifier" || k == "score") {
				continue
			}
			allLinear[k] = true
		}
	}
	conv1D := c.FanInFanOut || conv1DTypes[bc.ModelType]
	if c.EnableLoRA != nil && c.FanInFanOut && bc.ModelType != "" && !conv1DTypes[bc.ModelType] {
		// Old PEFT's MergedLinear on a Linear: "fan_in_fan_out is set to
		// True but the target module is not a Conv1D. Setting
		// fan_in_fan_out to False."
		conv1D = false
		r.Notes = append(r.Notes, fmt.Sprintf("fan_in_fan_out is true, but the base (%s) has Linear layers: the PEFT that wrote enable_lora set it to false for them, as here", bc.ModelType))
	}
	var wants []want
	targeted := map[string]bool{}
	used := map[string]bool{} // target names that matched
	for _, m := range slices.Sorted(maps.Keys(weights)) {
		w, k := weights[m], prefix+m
		if !c.Targeted(k, toSave, allLinear) {
			continue
		}
		for _, t := range c.Targets {
			if k == t || strings.HasSuffix(k, "."+t) {
				used[t] = true
			}
		}
		kind := KindLinear
		switch {
		case len(w.Shape) == 2 && isEmbedding(k):
			kind = KindEmbedding
		case len(w.Shape) == 2 && conv1D:
			kind = KindConv1D
		case len(w.Shape) >= 3:
			kind = KindConv
		case len(w.Shape) < 2:
			r.Notes = append(r.Notes, fmt.Sprintf("%s matches target_modules but its weight is %s: PEFT refuses such a module", k, tensor.FormatShape(w.Shape)))
			continue
		}
		targeted[k] = true
		if mod := mods[k]; mod != nil {
			mod.Kind, mod.Weight = kind, w
		}
		wants = append(wants, r.loraWants(k, kind, c.Rank(k), w.Shape)...)
		if c.Bias == "lora_only" {
			// PEFT's get_peft_model_state_dict saves, for each LoRA key,
			// the key before "lora_" + "bias" when the model's state dict
			// has it: an old PEFT's LoRA layer was the Linear itself
			// (module.bias, saved); a PEFT with base_layer (0.7 on) holds
			// module.base_layer.bias, which that name misses, so it saves
			// none. Optional, and never named base_layer.bias.
			if b := base.Tensor(m + ".bias"); b != nil {
				wants = append(wants, want{name: Prefix + k + ".bias", shape: shapeDims(b.Shape), merged: b.Name, optional: true})
			}
		}
	}
	var loose []string // adapted modules PEFT could adapt
	for k := range mods {
		if !c.excluded(k, toSave) {
			loose = append(loose, k)
		}
	}
	if n := len(loose); n > 0 && !slices.ContainsFunc(loose, func(k string) bool { return targeted[k] }) {
		r.Notes = append(r.Notes, fmt.Sprintf("none of the adapter's %d adapted modules is a module of this base: is it the base the adapter was made for (%s)?", n, cmp.Or(c.Base, "it names none")))
	}
	if len(c.Targets) > 0 && !c.AllLinear {
		var unused []string
		for _, t := range c.Targets {
			if !used[t] {
				unused = append(unused, t)
			}
		}
		if len(unused) > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("target_modules %s %s no module of the base", strings.Join(unused, ", "), plural(len(unused), "matches", "match")))
		}
	}
	if c.Bias == "all" {
		for _, t := range base.Tensors() {
			m, ok := strings.CutSuffix(t.Name, ".bias")
			if !ok {
				continue
			}
			k := prefix + m
			if targeted[k] {
				wants = append(wants, want{name: Prefix + k + ".base_layer.bias", alt: Prefix + k + ".bias", shape: shapeDims(t.Shape), merged: t.Name})
			} else {
				wants = append(wants, want{name: Prefix + k + ".bias", shape: shapeDims(t.Shape), merged: t.Name})
			}
		}
	}
	// modules_to_save: full copies of every module whose name ends with
	// one of them (PEFT's _set_trainable matches a plain suffix).
	saved := map[string]bool{}
	for _, m := range modules {
		k := prefix + m
		for _, s := range toSave {
			if strings.HasSuffix(k, s) && !saved[m] {
				saved[m] = true
			}
		}
	}
	for _, t := range base.Tensors() {
		for m := range saved {
			if strings.HasPrefix(t.Name, m+".") && !savedInside(saved, m, t.Name) {
				wants = append(wants, want{name: Prefix + prefix + t.Name, shape: shapeDims(t.Shape), merged: t.Name})
			}
		}
	}
	// Modules to save that the base lacks: the task head a
	// classification adapter adds (score, classifier; DistilBERT's
	// pre_classifier too), new in the task model, so absent from a base
	// that is a plain LM checkpoint. Their shapes are the stored ones,
	// a weight's input checked against the base's width.
	listed := map[string]bool{}
	for _, w := range wants {
		listed[w.name] = true
	}
	added := map[string][]uint64{}
	for _, k := range slices.Sorted(maps.Keys(stored)) {
		rel, ok := strings.CutPrefix(k, Prefix)
		if _, part := split(rel); !ok || part != "" || listed[k] {
			continue
		}
		mod, param := rel, ""
		if i := strings.LastIndexByte(rel, '.'); i > 0 {
			mod, param = rel[:i], rel[i+1:]
		}
		if !slices.ContainsFunc(toSave, func(s string) bool { return strings.HasSuffix(mod, s) }) || seenMod[strings.TrimPrefix(mod, prefix)] {
			continue
		}
		t := stored[k]
		sh := shapeDims(t.Shape)
		if param == "weight" && len(t.Shape) == 2 && hidden > 0 {
			sh = dims("out", t.Shape[0], "H", hidden)
		}
		wants = append(wants, want{name: k, shape: sh, merged: strings.TrimPrefix(rel, prefix)})
		if param == "weight" {
			added[mod] = t.Shape
		}
	}
	for _, m := range slices.Sorted(maps.Keys(added)) {
		r.Notes = append(r.Notes, fmt.Sprintf("%s %s saved with the adapter, not in the base: a module the task model adds (modules_to_save)", m, tensor.FormatShape(added[m])))
	}
	return wants
}

// savedInside reports whether name is under a saved module nested in m
// (counted there instead).
func savedInside(saved map[string]bool, m, name string) bool {
	for o := range saved {
		if o != m && strings.HasPrefix(o, m+".") && strings.HasPrefix(name, o+".") {
			return true
		}
	}
	return false
}

func shapeDims(s []uint64) []spec.Dim {
	out := make([]spec.Dim, len(s))
	for i, v := range s {
		out[i] = spec.Dim{Sym: fmt.Sprint(v), Val: v}
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// enabled counts the true entries of enable_lora.
func enabled(e []bool) uint64 {
	var k uint64
	for _, b := range e {
		if b {
			k++
		}
	}
	return k
}

// mergedWants returns the tensors of an old PEFT's MergedLinear (0.1,
// 0.2: enable_lora) of rank r on module key whose base weight is w: for
// n parts of which k are enabled, lora_A is nn.Linear(in, k·r), [k·r,
// in], and lora_B nn.Conv1d(k·r, out/n·k, kernel_size=1, groups=2),
// [k·out/n, k·r/2, 1]. With no part enabled it made neither.
func (r *Report) mergedWants(key, kind string, rank int, w []uint64) []want {
	c := r.Adapter.Config
	n, k := uint64(len(c.EnableLoRA)), enabled(c.EnableLoRA)
	if k == 0 {
		return nil
	}
	in, out := w[1], w[0]
	if kind == KindConv1D {
		in, out = w[0], w[1]
	}
	if out%n != 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s: enable_lora has %d parts, which do not divide its %d outputs (the PEFT that wrote it refuses that)", key, n, out))
	}
	p := Prefix + key
	rk := uint64(rank)
	ws := []want{
		{name: p + ".lora_A.weight", shape: []spec.Dim{{Sym: fmt.Sprintf("%d·r", k), Val: k * rk}, {Sym: "in", Val: in}}},
		{name: p + ".lora_B.weight", shape: []spec.Dim{{Sym: fmt.Sprintf("%d·out/%d", k, n), Val: out / n * k}, {Sym: fmt.Sprintf("%d·r/2", k), Val: k * rk / 2}, {Sym: "1", Val: 1}}},
	}
	return ws
}
