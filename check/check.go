package check

import (
	"errors"
	"fmt"
	"github.com/fsmount/fsmount/spec"
	"regexp"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/internal/numfmt"
	"github.com/fsmount/fsmount/internal/quantconfig"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// ProblemKind classifies a cross-check problem.
type ProblemKind string

// Problem kinds, in the order the verdict lists them.
const (
	Missing     ProblemKind = "missing"
	Misshaped   ProblemKind = "mis-shaped"
	Unexpected  ProblemKind = "unexpected"
	TiedDiffers ProblemKind = "tied head differs"
	WrongDType  ProblemKind = "dtype"
)

// Problem is one way the files disagree with the config. Detail is the
// sentence the report prints; the other fields are the same facts for
// machines, set where the kind has them.
type Problem struct {
	Kind   ProblemKind
	Tensor string
	Detail string // one line, naming the tensor and the numbers

	// Expected is the shape the config implies, with each dimension's
	// legend symbol (missing, mis-shaped; nil for other kinds).
	Expected []spec.Dim
	// Shape is the stored shape (mis-shaped, unexpected, tied head
	// differs), HasShape whether it is set (a scalar's shape is empty).
	Shape    []uint64
	HasShape bool
	// DType is the stored dtype and WantDType the one config.json
	// implies (dtype problems); DType is also set for unexpected tensors.
	DType, WantDType string
	// Mismatches are the dimensions of a mis-shaped tensor that differ;
	// empty when the ranks differ.
	Mismatches []DimMismatch
}

// DimMismatch is one dimension of a mis-shaped tensor.
type DimMismatch struct {
	Index    int    // 0 is the outermost
	Sym      string // the legend symbol: "H", "heads·d", …
	Expected uint64
	Actual   uint64
}

// Aux kinds of file tensors that are neither expected nor a problem.
const (
	AuxQuant   = "quantization"
	AuxLegacy  = "legacy buffer"
	AuxIgnored = "ignored on load"
)

// Entry is one tensor of the expected set resolved against the files: the
// plan's tensor and the file's, either of which may be nil.
type Entry struct {
	Expected *spec.ExpectedTensor // nil for a file tensor the plan does not name
	Tensor   *tensor.Tensor       // nil when missing from the files
	Aux      string               // AuxQuant or AuxLegacy for allowed extras
	// Scheme is the quantization scheme of a quantized weight, whose
	// Tensor is then its codes (weight_packed, qweight, …).
	Scheme string
}

// Report is the result of checking a model: everything fsinspect prints
// and the mount serves.
type Report struct {
	Model *model.Model
	// Config is the parsed config.json, or nil when the model has none.
	Config *spec.Config
	// Plan is nil when the cross-check was skipped.
	Plan *spec.Plan
	// Skipped says why the cross-check was not done, or is "".
	Skipped string
	// Depth is how far the check went: DepthFull (a spec), DepthStructural
	// (no spec: Structure says what was checked) or DepthNone.
	Depth     string
	Structure *Structure
	// Entries are the plan's tensors in plan order, then the allowed
	// extras and the unexpected tensors in name order.
	Entries  []Entry
	Problems []Problem
	Notes    []string
	Warnings []string

	Stored uint64 // elements over every tensor in the files
	// Logical is the model's parameter count, as its card gives it:
	// Stored less a tied duplicate head, legacy buffers and quantization
	// auxiliaries, with each packed weight (GPTQ, AWQ qweight) counted as
	// the values it packs.
	Logical uint64
	// Auxiliary is the elements of the quantization auxiliaries: FP8
	// scales, GPTQ/AWQ qzeros, scales and g_idx, bitsandbytes SCB and
	// weight_format.
	Auxiliary  uint64
	Embeddings uint64 // parameters of the token embedding
	ByDType    map[tensor.DType]uint64
	// Quant is what the check found of the model's quantization, nil
	// when the config quantizes nothing.
	Quant *Quantization
	// Modules are a sentence-transformers repository's modules as
	// checked, in the order they run; nil for any other model.
	Modules []ModuleCheck
}

// Checked reports whether the model was checked in full: against a
// spec, with every quantized weight's tensors understood and each of a
// sentence-transformers repository's modules against its config. A model
// that is not may still be Clean; its exit code is 3, never 0.
func (r *Report) Checked() bool {
	return r.Plan != nil && (r.Quant == nil || r.Quant.Partial == "") && r.ModulesChecked()
}

// Clean reports whether the check found no problem. A model checked only
// structurally, or not at all, may be Clean; [Report.FullyClean] is the
// stronger claim.
func (r *Report) Clean() bool { return len(r.Problems) == 0 }

// FullyClean reports whether the model was checked against its
// architecture's spec and no problem was found.
func (r *Report) FullyClean() bool { return r.Depth == DepthFull && r.Clean() && r.Checked() }

// ExpectedSet returns the expected tensors as they should be in the files:
// the plan's required tensors, its optional ones only where the files have
// them, and the allowed extras, each with the expected (or, for extras,
// the actual) shape, sorted by name. It is empty when the check was
// skipped.
func (r *Report) ExpectedSet() []NamedShape {
	var out []NamedShape
	for _, e := range r.Entries {
		switch {
		case e.Expected != nil && (e.Tensor != nil || !e.Expected.Optional):
			out = append(out, NamedShape{e.Expected.Name, e.Expected.ShapeValues()})
		case e.Expected == nil && e.Aux != "":
			out = append(out, NamedShape{e.Tensor.Name, e.Tensor.Shape})
		}
	}
	slices.SortFunc(out, func(a, b NamedShape) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lacking returns the names of the expected tensors of [Report.ExpectedSet]
// that the files lack, in plan order: those of its tensors the report
// resolved to no file tensor, without making the set.
func (r *Report) Lacking() []string {
	var out []string
	for _, e := range r.Entries {
		if e.Expected != nil && e.Tensor == nil && !e.Expected.Optional {
			out = append(out, e.Expected.Name)
		}
	}
	return out
}

// NamedShape is a tensor name and a shape.
type NamedShape struct {
	Name  string
	Shape []uint64
}

// Check cross-checks a model's files against its config.json.
//
// A sentence-transformers repository's transformer module is the model
// checked; its other modules are checked after it (Report.Modules).
func Check(m *model.Model) (*Report, error) {
	r, err := checkModel(m)
	if err != nil {
		return nil, err
	}
	if err := r.checkModules(); err != nil {
		return nil, err
	}
	return r, nil
}

// checkModel is Check of the model alone, without its modules.
func checkModel(m *model.Model) (*Report, error) {
	r := &Report{Model: m, ByDType: map[tensor.DType]uint64{}, Depth: DepthNone}
	r.Warnings = append(r.Warnings, m.Warnings()...)
	for _, t := range m.Tensors() {
		n := t.NumElements()
		r.Stored += n
		r.ByDType[t.DType] += n
	}
	r.Logical = r.Stored
	if mix := quantMix(m); mix != "" {
		r.Notes = append(r.Notes, mix)
	}
	r.Notes = append(r.Notes, m.Notes()...)
	switch {
	case m.Config == nil:
		r.Skipped = m.NoConfig
	default:
		c, err := spec.ParseConfig(m.ConfigName, m.Config)
		if err != nil {
			return nil, err
		}
		r.Config = c
		plan, err := spec.ExpectHeld(c, held(m))
		var noSpec *spec.NoSpecError
		if errors.As(err, &noSpec) {
			// Every format gets the structural check: it reads names
			// and shapes, which each format gives alike.
			r.Skipped = noSpec.Error()
			r.Depth = DepthStructural
			r.structural(c, noSpec.Name())
		} else if err != nil {
			return nil, err
		} else {
			if m.Names != nil {
				plan.Rename(m.Names, func(name string) bool { return m.Tensor(name) != nil })
			}
			plan.PickVariant(func(name string) bool { return m.Tensor(name) != nil })
			plan.PickShapes(func(name string) []uint64 {
				if t := m.Tensor(name); t != nil {
					return t.Shape
				}
				return nil
			})
			baseOnly(plan, m)
			r.Plan = plan
			r.Depth = DepthFull
		}
	}
	if r.Plan == nil {
		for _, t := range m.Tensors() {
			r.Entries = append(r.Entries, Entry{Tensor: t})
		}
		return r, nil
	}
	if err := r.crossCheck(); err != nil {
		return nil, err
	}
	return r, nil
}

// held is the number of tensors the model's files hold, as Hugging Face
// would count them: a format that stacks an MoE layer's experts into one
// tensor (GGUF's blk.N.ffn_up_exps [experts, …]) holds one per expert.
// Each stacked expert has bytes in the file, so the count grows no faster
// than the files.
func held(m *model.Model) int {
	n := len(m.Tensors())
	if m.Names == nil {
		return n
	}
	for _, t := range m.Tensors() {
		if len(t.Shape) == 3 && t.Shape[0] > 1 && t.Shape[0] < 1<<20 {
			n += int(t.Shape[0]) - 1
		}
	}
	return n
}

func (r *Report) crossCheck() error {
	p, w := r.Plan, r.Model
	r.Notes = append(r.Notes, p.Notes...)
	want, hasWant := configDType(p.DType)
	if p.DType != "" && !hasWant {
		r.Notes = append(r.Notes, fmt.Sprintf("config dtype %q has no safetensors equivalent: dtypes not checked", p.DType))
	}
	quantized := p.QuantMethod != ""
	rules, err := quantRules(w)
	if err != nil && rules.Partial == "" {
		rules.Partial = err.Error()
	}
	var qs *quantState
	switch {
	case rules.Understood():
		qs = r.prepareQuant(rules)
	case rules.Quantized():
		r.Quant = &Quantization{Method: rules.Method, Partial: rules.Partial}
	}
	// Without rules that model the method, the quantizers' tensors are
	// allowed by name, as before.
	lenient := quantized && qs == nil
	// heldModules are, for a quantization not understood, the modules
	// of the plan's weights that the files hold some tensor of: their
	// tensors are allowed, whatever the method named them.
	var heldModules map[string]bool
	if lenient || rules.Quantized() && qs == nil {
		lenient = true
		heldModules = lenientModules(p, w.Tensors())
	}
	// The file tensors the plan names, by their index in the model (no
	// map); when it names every file tensor (a clean model) the search
	// for extras is skipped.
	files := w.Tensors()
	named, nNamed := make([]bool, len(files)), 0
	r.Entries = make([]Entry, 0, len(p.Tensors)+8)
	var problems []Problem
	mark := func(t *tensor.Tensor) {
		if k := w.TensorIndex(t.Name); k >= 0 && !named[k] {
			named[k], nNamed = true, nNamed+1
		}
	}
	var nReplaced, nDropped int
	for i := range p.Tensors {
		e := &p.Tensors[i]
		if qs != nil && (qs.replaced[e.Name] || qs.dropped[e.Name]) {
			if qs.replaced[e.Name] {
				nReplaced++
			} else {
				nDropped++
			}
			continue
		}
		if qs != nil {
			if res := qs.byName[e.Name]; res != nil {
				for _, x := range res.Found {
					mark(x)
				}
				r.Entries = append(r.Entries, Entry{Expected: e, Tensor: res.Values, Scheme: res.Form.Scheme})
				for _, x := range res.Found {
					if x != res.Values {
						r.Entries = append(r.Entries, Entry{Tensor: x, Aux: AuxQuant})
					}
				}
				problems = append(problems, findingProblems(res)...)
				continue
			}
		}
		var t *tensor.Tensor
		if k := w.TensorIndex(e.Name); k >= 0 {
			t = files[k]
			if !named[k] {
				named[k], nNamed = true, nNamed+1
			}
		}
		r.Entries = append(r.Entries, Entry{Expected: e, Tensor: t})
		if t != nil {
			// The same text: keep one copy (24 MB for 500,000 tensors).
			e.Name = t.Name
		}
		if t == nil {
			// A quantizer may replace a linear weight by its packed form.
			if lenient && (heldModules[strings.TrimSuffix(e.Name, ".weight")] || w.Tensor(e.Name+"_blocks") != nil) {
				continue
			}
			if !e.Optional {
				problems = append(problems, Problem{Kind: Missing, Tensor: e.Name, Detail: fmt.Sprintf("%s, expected %s", e.Name, expectedShape(e)), Expected: e.Shape})
			}
			continue
		}
		if lenient && !quantconfig.Float(t.DType) && heldModules[strings.TrimSuffix(e.Name, ".weight")] {
			// Packed by a method the rules do not model: its shape
			// is the method's.
		} else if d, mm := shapeMismatch(e, t.Shape); d != "" {
			problems = append(problems, Problem{Kind: Misshaped, Tensor: e.Name, Detail: d, Expected: e.Shape, Shape: t.Shape, HasShape: true, Mismatches: mm})
		}
		if hasWant && t.DType != want && !e.AnyDType && !(lenient && heldModules[strings.TrimSuffix(e.Name, ".weight")]) {
			problems = append(problems, Problem{Kind: WrongDType, Tensor: e.Name, Detail: fmt.Sprintf("%s is %s, config.json says %s (%s)", e.Name, t.DType, p.DType, want),
				DType: t.DType.String(), WantDType: want.String()})
		}
	}
	if qs != nil {
		es, ps := qs.stackedEntries(w, mark)
		r.Entries = append(r.Entries, es...)
		problems = append(problems, ps...)
	}
	if emb := w.Tensor(fileName(w, p.Embed)); emb != nil {
		r.Embeddings = emb.NumElements()
	}
	var nQuant, nLegacy, nIgnored, nRope int
	extras := files
	if nNamed == len(extras) {
		extras = nil
	}
	for k, t := range extras {
		if named[k] {
			continue
		}
		switch {
		case ignoredOnLoad(p.Ignore, t.Name) || hfName(w, t.Name) != "" && ignoredOnLoad(p.Ignore, hfName(w, t.Name)):
			nIgnored++
			r.Logical -= t.NumElements()
			r.Entries = append(r.Entries, Entry{Tensor: t, Aux: AuxIgnored})
		case qs != nil && rules.KVScale(t.Name):
			nQuant++
			r.Logical -= t.NumElements()
			r.Auxiliary += t.NumElements()
			r.Entries = append(r.Entries, Entry{Tensor: t, Aux: AuxQuant})
		case lenient && (quantAux.MatchString(t.Name) || heldModules[parent(t.Name)] || heldModules[parent(parent(t.Name))]):
			nQuant++
			r.Entries = append(r.Entries, Entry{Tensor: t, Aux: AuxQuant})
			// A packed weight stands for the weight it replaces; every
			// other auxiliary (scales, zero points, group indices, SCB,
			// weight_format) is bookkeeping, not parameters.
			r.Logical -= t.NumElements()
			if n, ok := unpackedCount(p.Quant, t); ok {
				r.Logical += n
			} else {
				r.Auxiliary += t.NumElements()
			}
		case w.Format == model.FormatGGUF && ggufRope.MatchString(t.Name):
			nRope++
			r.Logical -= t.NumElements()
			r.Entries = append(r.Entries, Entry{Tensor: t, Aux: AuxLegacy})
		case ignorable.MatchString(t.Name):
			nLegacy++
			r.Logical -= t.NumElements()
			r.Entries = append(r.Entries, Entry{Tensor: t, Aux: AuxLegacy})
		default:
			r.Entries = append(r.Entries, Entry{Tensor: t})
			problems = append(problems, Problem{Kind: Unexpected, Tensor: t.Name, Detail: fmt.Sprintf("%s %s %s is not part of %s", t.Name, t.DType, tensor.FormatShape(t.Shape), p.Arch),
				Shape: t.Shape, HasShape: true, DType: t.DType.String()})
		}
	}
	hn, en := fileName(w, p.HeadName), shortName(fileName(w, p.Embed))
	if head, emb := w.Tensor(fileName(w, p.HeadName)), w.Tensor(fileName(w, p.Embed)); p.Tied {
		switch {
		case head == nil:
			r.Notes = append(r.Notes, fmt.Sprintf("%s omitted: tied to %s, as tie_word_embeddings says", hn, en))
		case emb == nil:
		case !slices.Equal(head.Shape, emb.Shape):
			problems = append(problems, Problem{Kind: TiedDiffers, Tensor: head.Name, Detail: fmt.Sprintf("%s is tied but %s, %s is %s",
				hn, tensor.FormatShape(head.Shape), en, tensor.FormatShape(emb.Shape)), Shape: head.Shape, HasShape: true})
		case tensor.SameBytes(head, emb):
			// A PyTorch checkpoint stores a tied weight once, both names
			// viewing one storage.
			r.Logical -= head.NumElements()
			r.Notes = append(r.Notes, fmt.Sprintf("%s present and tied: it shares the storage of %s in the checkpoint (%s params counted once)", hn, en, commas(head.NumElements())))
		case source.IsRemote(head.File) || source.IsRemote(emb.File):
			// Comparing would fetch both tensors: not at check time.
			r.Logical -= head.NumElements()
			r.Notes = append(r.Notes, fmt.Sprintf("%s present and tied, as tie_word_embeddings says (%s params counted once); its bytes are not compared with %s over the network — compare them by reading the tensors", hn, commas(head.NumElements()), en))
		default:
			off, err := tensor.FirstDifference(head, emb)
			if err != nil {
				return err
			}
			if off >= 0 {
				problems = append(problems, Problem{Kind: TiedDiffers, Tensor: head.Name, Detail: fmt.Sprintf("%s is tied but differs from %s, first at byte %s of %s",
					hn, en, commas(uint64(off)), commas(uint64(head.Length)))})
			} else {
				r.Logical -= head.NumElements()
				r.Notes = append(r.Notes, fmt.Sprintf("%s present but tied — a redundant byte-identical copy of %s (%s params counted once)", hn, en, commas(head.NumElements())))
			}
		}
	}
	if qs != nil {
		r.Quant = qs.summary()
		r.Notes = append(r.Notes, r.Quant.note())
		if nQuant > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s KV-cache %s, as %s says", commas(uint64(nQuant)), plural(nQuant, "scale", "scales"), quantconfig.Field))
		}
		if nReplaced > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s expert %s stored stacked (mlx-lm's switch_mlp) or split (embed_q, unembed_out)", commas(uint64(nReplaced)), plural(nReplaced, "weight", "weights")))
		}
		if nDropped > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s %s of the vision tower and projector not stored: mlx-lm keeps the language model only", commas(uint64(nDropped)), plural(nDropped, "tensor", "tensors")))
		}
	} else if r.Quant != nil {
		r.Notes = append(r.Notes, r.Quant.note())
	}
	if nQuant > 0 && qs == nil {
		r.Notes = append(r.Notes, fmt.Sprintf("%s quantization %s (%s) allowed by %s; linear-weight dtypes not checked",
			commas(uint64(nQuant)), plural(nQuant, "auxiliary", "auxiliaries"), p.QuantMethod, quantconfig.Field))
	}
	if nLegacy > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d legacy rotary_emb.inv_freq %s ignored, as transformers does", nLegacy, plural(nLegacy, "buffer", "buffers")))
	}
	if nRope > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d llama.cpp rotary factor %s (rope_freqs, rope_factors_*) not checked: no Hugging Face tensor holds them", nRope, plural(nRope, "tensor", "tensors")))
	}
	if nIgnored > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s %s that %s ignores on load (e.g. %s): not checked, not counted",
			commas(uint64(nIgnored)), plural(nIgnored, "tensor", "tensors"), p.Arch, firstIgnored(r.Entries)))
	}
	// Order by kind, then by the order found.
	for _, k := range []ProblemKind{Missing, Misshaped, Unexpected, TiedDiffers, WrongDType} {
		for _, pr := range problems {
			if pr.Kind == k {
				r.Problems = append(r.Problems, pr)
			}
		}
	}
	return nil
}

// unpackedCount returns the number of values a packed weight holds: a
// GPTQ qweight I32 [in·bits/32, out] packs 32/bits values per element
// along its first dimension, an AWQ qweight I32 [in, out·bits/32] along
// its second (reference §2.3, §2.4, §2.6). It reports false for any other
// auxiliary.
func unpackedCount(q spec.Quant, t *tensor.Tensor) (uint64, bool) {
	if !strings.HasSuffix(t.Name, ".qweight") || len(t.Shape) != 2 || q.Bits == 0 {
		return 0, false
	}
	dim := 0
	switch q.Method {
	case "gptq":
	case "awq":
		dim = 1
	default:
		return 0, false
	}
	n := uint64(1)
	for i, d := range t.Shape {
		if i == dim {
			d = d * 32 / q.Bits
		}
		n *= d
	}
	return n, true
}

// configDType maps a config.json dtype name to the safetensors dtype.
func configDType(s string) (tensor.DType, bool) {
	switch strings.TrimPrefix(s, "torch.") {
	case "bfloat16":
		return tensor.BF16, true
	case "float16", "half":
		return tensor.F16, true
	case "float32", "float":
		return tensor.F32, true
	case "float64", "double":
		return tensor.F64, true
	}
	return 0, false
}

func expectedShape(e *spec.ExpectedTensor) string {
	syms := make([]string, len(e.Shape))
	for i, d := range e.Shape {
		syms[i] = d.Sym
	}
	return "[" + strings.Join(syms, ", ") + "] = " + tensor.FormatShape(e.ShapeValues())
}

// shapeMismatch describes how got differs from e's shape, naming each
// offending dimension by its legend symbol, or returns "".
func shapeMismatch(e *spec.ExpectedTensor, got []uint64) (string, []DimMismatch) {
	if len(got) == len(e.Shape) {
		same := true
		for i, d := range e.Shape {
			same = same && got[i] == d.Val
		}
		if same {
			return "", nil
		}
	}
	head := fmt.Sprintf("%s is %s, expected %s", e.Name, tensor.FormatShape(got), expectedShape(e))
	if len(got) != len(e.Shape) {
		return fmt.Sprintf("%s (rank %d, expected %d)", head, len(got), len(e.Shape)), []DimMismatch{}
	}
	var diffs []string
	var mm []DimMismatch
	for i, d := range e.Shape {
		if got[i] != d.Val {
			diffs = append(diffs, fmt.Sprintf("dim %d is %d, %s is %d", i, got[i], d.Sym, d.Val))
			mm = append(mm, DimMismatch{i, d.Sym, d.Val, got[i]})
		}
	}
	if diffs == nil {
		return "", nil
	}
	return head + ": " + strings.Join(diffs, "; "), mm
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// commas renders 751632384 as "751,632,384".
func commas(n uint64) string { return numfmt.Commas(n) }

// ggufRope are llama.cpp's precomputed rotary factors (Llama 3's
// rope_freqs, Phi-3's LongRoPE factors), which no Hugging Face tensor
// holds.
var ggufRope = regexp.MustCompile(`^(rope_freqs|rope_factors_long|rope_factors_short)\.weight$`)

// ignoredOnLoad reports whether transformers ignores the name on load.
func ignoredOnLoad(res []*regexp.Regexp, name string) bool {
	for _, re := range res {
		if re.MatchString(name) {
			return true
		}
	}
	return false
}

func firstIgnored(es []Entry) string {
	for _, e := range es {
		if e.Aux == AuxIgnored {
			return e.Tensor.Name
		}
	}
	return ""
}

// shortName is a tensor's module name for messages: "embed_tokens" for
// "model.embed_tokens.weight".
func shortName(name string) string {
	name = strings.TrimSuffix(name, ".weight")
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// quantAux matches the auxiliary tensors that quantizers add next to (or
// instead of) a linear layer's weight: FP8 scales, bitsandbytes SCB and
// weight_format, GPTQ/AWQ qweight, qzeros, scales and g_idx.
var quantAux = regexp.MustCompile(`\.(weight_scale_inv|weight_scale|input_scale|SCB|weight_format|qweight|qzeros|scales|g_idx)$|_(blocks|scales)$`)

// ignorable matches legacy buffers that transformers ignores on load.
var ignorable = regexp.MustCompile(`^model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq$`)

// baseOnly adapts the plan to a checkpoint of the base model alone
// (GPT2Model's "wte.weight" for "transformer.wte.weight"): the prefix is
// dropped and the head, which the base model has not, may be absent.
func baseOnly(p *spec.Plan, m *model.Model) {
	if p.BasePrefix == "" || m.Tensor(p.Embed) != nil || m.Tensor(strings.TrimPrefix(p.Embed, p.BasePrefix)) == nil {
		return
	}
	for i := range p.Tensors {
		e := &p.Tensors[i]
		e.Name = strings.TrimPrefix(e.Name, p.BasePrefix)
		if e.Role == spec.RoleHead || e.Final && e.Role == spec.RoleBias {
			e.Optional = true
		}
	}
	for i := range p.Blocks {
		p.Blocks[i].Prefix = strings.TrimPrefix(p.Blocks[i].Prefix, p.BasePrefix)
	}
	p.Embed = strings.TrimPrefix(p.Embed, p.BasePrefix)
	p.Notes = append(p.Notes, fmt.Sprintf("a checkpoint of the base model: names without %q, no head required", p.BasePrefix))
}
