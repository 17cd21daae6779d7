package quantconfig

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/tensor"
)

// Finding is one way a quantized weight's stored tensors disagree with
// its form.
type Finding struct {
	Kind   string // "missing", "mis-shaped" or "dtype"
	Tensor string
	Detail string   // one line naming the tensor and the numbers
	Want   []uint64 // the expected shape (missing, mis-shaped)
	Got    *tensor.Tensor
}

// Resolution is a weight resolved against the files.
type Resolution struct {
	// Quantized is false when the files hold the weight unquantized
	// (its own name, a floating type, the logical shape, no companion of
	// the form): the caller checks it as any weight.
	Quantized bool
	Form      *Form
	// Found are the form's tensors the files hold, Values the one among
	// them that holds the weight's values (nil when missing).
	Found  []*tensor.Tensor
	Values *tensor.Tensor
	// Findings are the problems, in the form's order.
	Findings []Finding
}

// Float reports whether dt is a floating type a weight or a scale may be
// saved in unquantized.
func Float(dt tensor.DType) bool {
	switch dt {
	case tensor.F32, tensor.F16, tensor.BF16, tensor.F64:
		return true
	}
	return false
}

// Resolve matches the weight w, whose form the config gives as f (nil:
// unquantized), against the files' tensors (lookup).
func Resolve(w Weight, f *Form, lookup func(name string) *tensor.Tensor) Resolution {
	if f == nil {
		return Resolution{}
	}
	t := lookup(w.Name)
	unq := t != nil && Float(t.DType) && slices.Equal(t.Shape, w.Shape)
	for _, g := range append([]*Form{f}, f.Alt...) {
		for _, s := range g.Tensors {
			if s.Name != w.Name && lookup(s.Name) != nil {
				unq = false
			}
		}
	}
	if unq {
		return Resolution{}
	}
	best := resolveForm(w, f, lookup)
	for _, g := range f.Alt {
		if len(best.Findings) == 0 {
			break
		}
		if r := resolveForm(w, g, lookup); len(r.Findings) < len(best.Findings) {
			best = r
		}
	}
	return best
}

// sameShape reports whether a stored shape is the expected one; a
// single value matches any shape of one element ([] and [1]: libraries
// and their versions save a per-tensor scale either way).
func sameShape(got, want []uint64) bool {
	if slices.Equal(got, want) {
		return true
	}
	one := func(s []uint64) bool { return len(s) <= 1 && (len(s) == 0 || s[0] == 1) }
	return one(got) && one(want)
}

func resolveForm(w Weight, f *Form, lookup func(name string) *tensor.Tensor) Resolution {
	r := Resolution{Quantized: true, Form: f}
	for _, s := range f.Tensors {
		x := lookup(s.Name)
		if x == nil {
			if !s.Optional {
				what := "expected"
				if !s.AnyShape {
					what += " " + tensor.FormatShape(s.Shape)
				}
				r.Findings = append(r.Findings, Finding{Kind: "missing", Tensor: s.Name, Want: s.Shape,
					Detail: fmt.Sprintf("%s, %s (%s of %s %s)", s.Name, what, f.Scheme, w.Name, tensor.FormatShape(w.Shape))})
			}
			continue
		}
		r.Found = append(r.Found, x)
		if s.Values {
			r.Values = x
		}
		if !s.AnyShape && !sameShape(x.Shape, s.Shape) {
			r.Findings = append(r.Findings, Finding{Kind: "mis-shaped", Tensor: s.Name, Want: s.Shape, Got: x,
				Detail: fmt.Sprintf("%s is %s, expected %s (%s of %s %s)", s.Name, tensor.FormatShape(x.Shape), tensor.FormatShape(s.Shape), f.Scheme, w.Name, tensor.FormatShape(w.Shape))})
		}
		if ok := s.AnyDType || s.DTypes == nil && Float(x.DType) || slices.Contains(s.DTypes, x.DType); !ok {
			r.Findings = append(r.Findings, Finding{Kind: "dtype", Tensor: s.Name, Got: x,
				Detail: fmt.Sprintf("%s is %s, %s stores %s", s.Name, x.DType, f.Scheme, dtypeNames(s.DTypes))})
		}
	}
	return r
}

func dtypeNames(ds []tensor.DType) string {
	if ds == nil {
		return "a floating type"
	}
	var s []string
	for _, d := range ds {
		s = append(s, d.String())
	}
	return strings.Join(s, " or ")
}

// Find returns the weight whose quantized form holds the tensor named
// values as its values, and that form, when the files (lookup) hold the
// form whole and as the rules say. The weight's logical shape is the one,
// among those the stored shape can pack, whose form the files match.
func (r *Rules) Find(values string, lookup func(name string) *tensor.Tensor) (Weight, *Form, bool) {
	t := lookup(values)
	if r == nil || !r.Understood() || t == nil || Float(t.DType) || len(t.Shape) < 2 {
		return Weight{}, nil, false
	}
	name := values
	if mod, ok := strings.CutSuffix(values, ".weight_packed"); ok {
		name = mod + ".weight"
	} else if p, ok := strings.CutSuffix(values, "_blocks"); ok && len(t.Shape) == 4 {
		// GPT-OSS's MXFP4 experts: P_blocks [E, out, in/32, 16] of P
		// [E, in, out].
		w := Weight{Name: p, Kind: Experts, Shape: []uint64{t.Shape[0], t.Shape[2] * 32, t.Shape[1]}}
		if f, _ := r.Expect(w); f != nil {
			if res := Resolve(w, f, lookup); res.Quantized && len(res.Findings) == 0 && res.Values == t {
				return w, res.Form, true
			}
		}
		return Weight{}, nil, false
	} else if !strings.HasSuffix(values, ".weight") {
		return Weight{}, nil, false
	}
	kind := Linear
	switch {
	case strings.Contains(name, "embed_tokens.") || strings.Contains(name, "wte.") || strings.Contains(name, "embed_in."):
		kind = Embedding
	case strings.HasSuffix(name, "lm_head.weight"):
		kind = Head
	}
	n := len(t.Shape)
	lead, o, c := t.Shape[:n-2], t.Shape[n-2], t.Shape[n-1]
	ins := []uint64{c, 2 * c, 2*c - 1, 4 * c}
	for bits := uint64(1); bits <= 8; bits++ {
		per := 32 / bits
		for k := uint64(0); k < per && k < c*32/bits; k++ {
			ins = append(ins, c*32/bits-k)
		}
	}
	for _, oo := range []uint64{o, 2 * o, 2*o - 1} {
		for _, in := range ins {
			if in == 0 || oo == 0 {
				continue
			}
			w := Weight{Name: name, Kind: kind, Shape: with(lead, oo, in)}
			f, _ := r.Expect(w)
			if f == nil {
				continue
			}
			if res := Resolve(w, f, lookup); res.Quantized && len(res.Findings) == 0 && res.Values == t {
				return w, res.Form, true
			}
		}
	}
	return Weight{}, nil, false
}
