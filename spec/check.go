package spec

import (
	"errors"
	"fmt"
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
	Expected []Dim
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
	AuxQuant  = "quantization"
	AuxLegacy = "legacy buffer"
)

// Entry is one tensor of the expected set resolved against the files: the
// plan's tensor and the file's, either of which may be nil.
type Entry struct {
	Expected *ExpectedTensor // nil for a file tensor the plan does not name
	Tensor   *tensor.Tensor  // nil when missing from the files
	Aux      string          // AuxQuant or AuxLegacy for allowed extras
}

// Report is the result of checking a model: everything fsinspect prints
// and the mount serves.
type Report struct {
	Model *model.Model
	// Config is the parsed config.json, or nil when the model has none.
	Config *Config
	// Plan is nil when the cross-check was skipped.
	Plan *Plan
	// Skipped says why the cross-check was not done, or is "".
	Skipped string
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
}

// Clean reports whether the check found no problem.
func (r *Report) Clean() bool { return len(r.Problems) == 0 }

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

// NamedShape is a tensor name and a shape.
type NamedShape struct {
	Name  string
	Shape []uint64
}

// Check cross-checks a model's files against its config.json.
func Check(m *model.Model) (*Report, error) {
	r := &Report{Model: m, ByDType: map[tensor.DType]uint64{}}
	r.Warnings = append(r.Warnings, m.Warnings()...)
	for _, t := range m.Tensors() {
		n := t.NumElements()
		r.Stored += n
		r.ByDType[t.DType] += n
	}
	r.Logical = r.Stored
	if emb := m.Tensor(fileName(m, "model.embed_tokens.weight")); emb != nil {
		r.Embeddings = emb.NumElements()
	}
	if mix := quantMix(m); mix != "" {
		r.Notes = append(r.Notes, mix)
	}
	switch {
	case m.Config == nil:
		r.Skipped = m.NoConfig
	default:
		c, err := ParseConfig(m.ConfigName, m.Config)
		if err != nil {
			return nil, err
		}
		r.Config = c
		plan, err := expect(c, len(m.Tensors()))
		var noSpec *NoSpecError
		if errors.As(err, &noSpec) {
			r.Skipped = noSpec.Error() + ": its tensors are listed, not checked"
		} else if err != nil {
			return nil, err
		} else {
			if m.Names != nil {
				renamePlan(plan, m.Names)
			}
			r.Plan = plan
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

func (r *Report) crossCheck() error {
	p, w := r.Plan, r.Model
	r.Notes = append(r.Notes, p.Notes...)
	want, hasWant := configDType(p.DType)
	if p.DType != "" && !hasWant {
		r.Notes = append(r.Notes, fmt.Sprintf("config dtype %q has no safetensors equivalent: dtypes not checked", p.DType))
	}
	quantized := p.QuantMethod != ""
	named := make(map[string]bool, len(p.Tensors))
	var problems []Problem
	for i := range p.Tensors {
		e := &p.Tensors[i]
		named[e.Name] = true
		t := w.Tensor(e.Name)
		r.Entries = append(r.Entries, Entry{Expected: e, Tensor: t})
		if t == nil {
			// A quantizer may replace a linear weight by its packed form.
			if quantized && e.Role == RoleLinear && w.Tensor(strings.TrimSuffix(e.Name, ".weight")+".qweight") != nil {
				continue
			}
			if !e.Optional {
				problems = append(problems, Problem{Kind: Missing, Tensor: e.Name, Detail: fmt.Sprintf("%s, expected %s", e.Name, expectedShape(e)), Expected: e.Shape})
			}
			continue
		}
		if d, mm := shapeMismatch(e, t.Shape); d != "" {
			problems = append(problems, Problem{Kind: Misshaped, Tensor: e.Name, Detail: d, Expected: e.Shape, Shape: t.Shape, HasShape: true, Mismatches: mm})
		}
		if hasWant && t.DType != want && !(quantized && e.Role == RoleLinear) {
			problems = append(problems, Problem{Kind: WrongDType, Tensor: e.Name, Detail: fmt.Sprintf("%s is %s, config.json says %s (%s)", e.Name, t.DType, p.DType, want),
				DType: t.DType.String(), WantDType: want.String()})
		}
	}
	var nQuant, nLegacy int
	for _, t := range w.Tensors() {
		if named[t.Name] {
			continue
		}
		switch {
		case quantized && quantAux.MatchString(t.Name):
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
		case ignorable.MatchString(t.Name) || w.Format == model.FormatGGUF && t.Name == "rope_freqs.weight":
			nLegacy++
			r.Logical -= t.NumElements()
			r.Entries = append(r.Entries, Entry{Tensor: t, Aux: AuxLegacy})
		default:
			r.Entries = append(r.Entries, Entry{Tensor: t})
			problems = append(problems, Problem{Kind: Unexpected, Tensor: t.Name, Detail: fmt.Sprintf("%s %s %s is not part of %s", t.Name, t.DType, tensor.FormatShape(t.Shape), p.Arch),
				Shape: t.Shape, HasShape: true, DType: t.DType.String()})
		}
	}
	if head, emb := w.Tensor(fileName(w, "lm_head.weight")), w.Tensor(fileName(w, "model.embed_tokens.weight")); p.Tied {
		switch {
		case head == nil:
			r.Notes = append(r.Notes, "lm_head.weight omitted: tied to embed_tokens, as tie_word_embeddings says")
		case emb == nil:
		case !slices.Equal(head.Shape, emb.Shape):
			problems = append(problems, Problem{Kind: TiedDiffers, Tensor: head.Name, Detail: fmt.Sprintf("lm_head.weight is tied but %s, embed_tokens is %s",
				tensor.FormatShape(head.Shape), tensor.FormatShape(emb.Shape)), Shape: head.Shape, HasShape: true})
		case source.IsRemote(head.File) || source.IsRemote(emb.File):
			// Comparing would fetch both tensors: not at check time.
			r.Logical -= head.NumElements()
			r.Notes = append(r.Notes, fmt.Sprintf("lm_head.weight present and tied, as tie_word_embeddings says (%s params counted once); its bytes are not compared with embed_tokens over the network — compare them by reading the tensors", commas(head.NumElements())))
		default:
			off, err := tensor.FirstDifference(head, emb)
			if err != nil {
				return err
			}
			if off >= 0 {
				problems = append(problems, Problem{Kind: TiedDiffers, Tensor: head.Name, Detail: fmt.Sprintf("lm_head.weight is tied but differs from embed_tokens, first at byte %s of %s",
					commas(uint64(off)), commas(uint64(head.Length)))})
			} else {
				r.Logical -= head.NumElements()
				r.Notes = append(r.Notes, fmt.Sprintf("lm_head.weight present but tied — a redundant byte-identical copy of embed_tokens (%s params counted once)", commas(head.NumElements())))
			}
		}
	}
	if nQuant > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%s quantization %s (%s) allowed by %s; linear-weight dtypes not checked",
			commas(uint64(nQuant)), plural(nQuant, "auxiliary", "auxiliaries"), p.QuantMethod, quantconfig.Field))
	}
	if nLegacy > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d legacy rotary_emb.inv_freq %s ignored, as transformers does", nLegacy, plural(nLegacy, "buffer", "buffers")))
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
func unpackedCount(q Quant, t *tensor.Tensor) (uint64, bool) {
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

func expectedShape(e *ExpectedTensor) string {
	syms := make([]string, len(e.Shape))
	for i, d := range e.Shape {
		syms[i] = d.Sym
	}
	return "[" + strings.Join(syms, ", ") + "] = " + tensor.FormatShape(e.ShapeValues())
}

// shapeMismatch describes how got differs from e's shape, naming each
// offending dimension by its legend symbol, or returns "".
func shapeMismatch(e *ExpectedTensor, got []uint64) (string, []DimMismatch) {
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
