package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fsmount/fsmount/internal/quantconfig"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/spec"
	"github.com/fsmount/fsmount/tensor"
)

// Quantization is what the check found of a quantized model: its
// schemes, the weights each holds, and the weights the config leaves
// unquantized.
type Quantization struct {
	// Method is the quantizer ("compressed-tensors", "modelopt", "mlx",
	// "gptq", …).
	Method string `json:"method"`
	// Partial, when set, says what of the method is not modelled: its
	// tensors were allowed by name, not checked (exit 3).
	Partial string `json:"partial,omitempty"`
	// Schemes are the quantized weights by scheme, sorted by name.
	Schemes []SchemeCount `json:"schemes"`
	// Unquantized are the weights stored unquantized, by why.
	Unquantized []UnquantizedGroup `json:"unquantized"`
}

func elements(shape []uint64) uint64 {
	n := uint64(1)
	for _, d := range shape {
		n *= d
	}
	return n
}

// SchemeCount is one scheme's weights: how many, the parameters they
// stand for and the bytes they take (codes and companions).
type SchemeCount struct {
	Scheme  string `json:"scheme"`
	Weights int    `json:"weights"`
	Params  uint64 `json:"params"`
	Bytes   uint64 `json:"bytes"`
}

// UnquantizedGroup is the weights left unquantized for one reason.
type UnquantizedGroup struct {
	Why     string   `json:"why"`
	Weights []string `json:"weights"`
}

// quantState is the quantization's part of one cross-check.
type quantState struct {
	rules *quantconfig.Rules
	// byName are the plan's weights resolved to a quantized form.
	byName map[string]*quantconfig.Resolution
	// replaced are plan weights a converter stored under other names
	// (MLX's stacked experts), dropped those it does not store.
	replaced, dropped map[string]bool
	// extra are weights the files hold that the plan does not name
	// (the stacked experts), with their resolution.
	extra    []quantconfig.Weight
	extraRes []quantconfig.Resolution
	schemes  map[string]*SchemeCount
	unq      map[string][]string
}

// quantRules reads the model's quantization rules: config.json and,
// for ModelOpt, hf_quant_config.json beside it.
func quantRules(m *model.Model) (*quantconfig.Rules, error) {
	var extra func(string) ([]byte, error)
	if m.Source != nil {
		extra = func(name string) ([]byte, error) {
			f, b, err := source.ReadAll(m.Source, name, model.MaxConfigSize)
			if f != nil {
				_ = f.Close()
			}
			return b, err
		}
	}
	return quantconfig.Load(m.Config, extra)
}

// weightKind is the quantizer's view of a plan tensor: the kind of
// module it is the weight of, or false when no quantizer replaces it.
func weightKind(e *spec.ExpectedTensor) (quantconfig.Kind, bool) {
	switch e.Role {
	case spec.RoleLinear, spec.RoleConv1D, spec.RoleRouter, spec.RoleScore:
		if len(e.Shape) == 3 && !strings.HasSuffix(e.Name, ".weight") {
			return quantconfig.Experts, true
		}
		return quantconfig.Linear, len(e.Shape) >= 2
	case spec.RoleEmbedding:
		return quantconfig.Embedding, len(e.Shape) == 2
	case spec.RoleHead:
		return quantconfig.Head, len(e.Shape) == 2
	}
	return 0, false
}

// prepareQuant resolves every weight of the plan against the files.
func (r *Report) prepareQuant(rules *quantconfig.Rules) *quantState {
	p, m := r.Plan, r.Model
	q := &quantState{rules: rules, byName: map[string]*quantconfig.Resolution{}, replaced: map[string]bool{},
		dropped: map[string]bool{}, schemes: map[string]*SchemeCount{}, unq: map[string][]string{}}
	has := func(n string) bool { return m.Tensor(n) != nil }
	var ws []quantconfig.Weight
	inPlan := map[string]bool{}
	for i := range p.Tensors {
		e := &p.Tensors[i]
		if rules.Dropped(e.Name) && !has(e.Name) {
			q.dropped[e.Name] = true
			continue
		}
		k, ok := weightKind(e)
		if !ok {
			if news, ok := rules.RenamePlain(e.Name, e.ShapeValues(), has); ok {
				q.replaced[e.Name] = true
				for _, n := range news {
					q.extra = append(q.extra, n)
					q.extraRes = append(q.extraRes, quantconfig.Resolution{})
				}
			}
			continue
		}
		if e.Optional && !has(e.Name) && e.Role == spec.RoleHead && p.Tied {
			continue // a tied head, not written
		}
		ws = append(ws, quantconfig.Weight{Name: e.Name, Kind: k, Shape: e.ShapeValues()})
		inPlan[e.Name] = true
	}
	ws, from := rules.Restack(ws, has)
	for _, olds := range from {
		for _, o := range olds {
			q.replaced[o] = true
		}
	}
	for _, w := range ws {
		f, why := rules.Expect(w)
		res := quantconfig.Resolve(w, f, m.Tensor)
		if !inPlan[w.Name] {
			q.extra = append(q.extra, w)
			q.extraRes = append(q.extraRes, res)
		}
		if !res.Quantized {
			if f != nil {
				why = "targeted, stored unquantized"
			}
			if has(w.Name) {
				q.unq[why] = append(q.unq[why], w.Name)
			}
			continue
		}
		if inPlan[w.Name] {
			q.byName[w.Name] = &res
		}
		sc := q.schemes[res.Form.Scheme]
		if sc == nil {
			sc = &SchemeCount{Scheme: res.Form.Scheme}
			q.schemes[res.Form.Scheme] = sc
		}
		sc.Weights++
		n := uint64(1)
		for _, d := range w.Shape {
			n *= d
		}
		sc.Params += n
		var stored, aux uint64
		for _, t := range res.Found {
			sc.Bytes += uint64(t.Length)
			stored += t.NumElements()
			if t != res.Values {
				aux += t.NumElements()
			}
		}
		// The codes stand for the weight's values; the companions are
		// bookkeeping, not parameters.
		r.Logical = r.Logical - stored + n
		r.Auxiliary += aux
	}
	return q
}

// findings turns a resolution's findings into problems.
func findingProblems(res *quantconfig.Resolution) []Problem {
	var out []Problem
	for _, f := range res.Findings {
		pr := Problem{Tensor: f.Tensor, Detail: f.Detail}
		switch f.Kind {
		case "missing":
			pr.Kind = Missing
		case "mis-shaped":
			pr.Kind, pr.Shape, pr.HasShape = Misshaped, f.Got.Shape, true
			for i, d := range f.Want {
				if i < len(f.Got.Shape) && f.Got.Shape[i] != d {
					pr.Mismatches = append(pr.Mismatches, DimMismatch{Index: i, Expected: d, Actual: f.Got.Shape[i]})
				}
			}
		default:
			pr.Kind, pr.DType = WrongDType, f.Got.DType.String()
		}
		if f.Want != nil {
			for _, d := range f.Want {
				pr.Expected = append(pr.Expected, spec.Dim{Val: d})
			}
		}
		out = append(out, pr)
	}
	return out
}

// summary is the report's account of the quantization.
func (q *quantState) summary() *Quantization {
	out := &Quantization{Method: q.rules.Method, Partial: q.rules.Partial}
	for _, s := range q.schemes {
		out.Schemes = append(out.Schemes, *s)
	}
	sort.Slice(out.Schemes, func(i, j int) bool { return out.Schemes[i].Scheme < out.Schemes[j].Scheme })
	whys := make([]string, 0, len(q.unq))
	for w := range q.unq {
		whys = append(whys, w)
	}
	sort.Strings(whys)
	for _, w := range whys {
		out.Unquantized = append(out.Unquantized, UnquantizedGroup{Why: w, Weights: q.unq[w]})
	}
	return out
}

// note is the one line the report's notes give the quantization.
func (s *Quantization) note() string {
	if s.Partial != "" {
		return fmt.Sprintf("quantization (%s): %s — its tensors are allowed by name, not checked", s.Method, s.Partial)
	}
	var parts []string
	for _, sc := range s.Schemes {
		parts = append(parts, fmt.Sprintf("%s: %s %s, %s params in %s bytes", sc.Scheme, commas(uint64(sc.Weights)), plural(sc.Weights, "weight", "weights"), commas(sc.Params), commas(sc.Bytes)))
	}
	n := 0
	for _, u := range s.Unquantized {
		n += len(u.Weights)
	}
	line := fmt.Sprintf("quantization (%s) checked: %s", s.Method, strings.Join(parts, "; "))
	if n > 0 {
		var groups []string
		for _, u := range s.Unquantized {
			ex := u.Weights[0]
			groups = append(groups, fmt.Sprintf("%d %s (e.g. %s)", len(u.Weights), u.Why, strings.TrimSuffix(ex, ".weight")))
		}
		line += fmt.Sprintf("; %s left unquantized: %s", commas(uint64(n)), strings.Join(groups, ", "))
	}
	return line
}

// stackedEntries checks the weights the files hold under a converter's
// names (MLX's switch_mlp), which the plan does not name: an
// unquantized one must be there with its shape.
func (q *quantState) stackedEntries(m *model.Model, mark func(t *tensor.Tensor)) ([]Entry, []Problem) {
	var es []Entry
	var ps []Problem
	for i, w := range q.extra {
		res := &q.extraRes[i]
		e := &spec.ExpectedTensor{Name: w.Name, Role: spec.RoleLinear, Layer: -1, Expert: -1}
		if strings.HasSuffix(w.Name, ".bias") {
			e.Role = spec.RoleBias
		}
		for _, d := range w.Shape {
			e.Shape = append(e.Shape, spec.Dim{Val: d})
		}
		if res.Quantized {
			for _, t := range res.Found {
				mark(t)
			}
			es = append(es, Entry{Expected: e, Tensor: res.Values, Scheme: res.Form.Scheme})
			for _, t := range res.Found {
				if t != res.Values {
					es = append(es, Entry{Tensor: t, Aux: AuxQuant})
				}
			}
			ps = append(ps, findingProblems(res)...)
			continue
		}
		t := m.Tensor(w.Name)
		es = append(es, Entry{Expected: e, Tensor: t})
		switch {
		case t == nil:
			ps = append(ps, Problem{Kind: Missing, Tensor: w.Name, Detail: fmt.Sprintf("%s, expected %s", w.Name, tensor.FormatShape(w.Shape)), Expected: e.Shape})
		case !slices.Equal(t.Shape, w.Shape):
			mark(t)
			ps = append(ps, Problem{Kind: Misshaped, Tensor: w.Name, Detail: fmt.Sprintf("%s is %s, expected %s", w.Name, tensor.FormatShape(t.Shape), tensor.FormatShape(w.Shape)), Expected: e.Shape, Shape: t.Shape, HasShape: true})
		default:
			mark(t)
		}
	}
	return es, ps
}

// parent is a dotted name less its last component.
func parent(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[:i]
	}
	return ""
}

// lenientModules are the modules of the plan's weights (linear,
// embedding, head) of which the files hold a tensor under any name: a
// quantizer whose layout is not modelled may have replaced the weight
// by tensors of its own (codes, scales, a stored quant state).
func lenientModules(p *spec.Plan, files []*tensor.Tensor) map[string]bool {
	mods := map[string]bool{}
	for i := range p.Tensors {
		e := &p.Tensors[i]
		if _, ok := weightKind(e); ok {
			mods[strings.TrimSuffix(e.Name, ".weight")] = false
		}
	}
	for _, t := range files {
		for _, m := range []string{parent(t.Name), parent(parent(t.Name))} {
			if held, ok := mods[m]; ok && !held {
				mods[m] = true
			}
		}
	}
	return mods
}
