package spec

import (
	"slices"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/model"
)

// Rename gives the plan's tensors the names the files use, for a
// format with names of its own (GGUF's "blk.0.attn_q.weight"), and stacks
// an MoE layer's experts into one tensor, with the expert count as a new
// outermost dimension, where the format does. A tensor the format cuts
// into parts (DeepSeek's kv_b_proj), or reshapes under its own name
// (Mamba's conv1d), is expected as its parts, unless the files hold it
// whole under a name of its own (has: older converters' attn_kv_b), or
// whole and in parts (converters of spring 2025 wrote attn_kv_b, attn_k_b
// and attn_v_b: where one part is there, all are expected). A tensor without a name in
// the format keeps its Hugging Face name, and shows as missing.
func (p *Plan) Rename(names model.Names, has func(string) bool) {
	out := make([]ExpectedTensor, 0, len(p.Tensors))
	stacked := map[string]bool{}
	for _, e := range p.Tensors {
		if e.Role == RoleConv1D && names.Transposed() && len(e.Shape) == 2 {
			e.Shape = []Dim{e.Shape[1], e.Shape[0]}
			e.Role = RoleLinear
		}
		name, expert, ok := names.File(e.Name)
		if parts, cut := names.Parts(e.Name); cut {
			whole := ok && has(name) && !slices.ContainsFunc(parts, func(p model.Part) bool { return p.Name == name })
			if ps, ok := p.parts(e, parts); ok && (!whole || slices.ContainsFunc(ps, func(e ExpectedTensor) bool { return has(e.Name) })) {
				out = append(out, ps...)
				if !whole {
					continue
				}
			}
		}
		switch {
		case !ok:
		case expert < 0:
			e.Name = name
		case stacked[name]:
			continue // the first expert stands for the stack
		default:
			stacked[name] = true
			e.Name, e.Expert = name, -1
			e.Shape = append([]Dim{{Sym: "X", Val: uint64(p.Experts)}}, e.Shape...)
		}
		out = append(out, e)
	}
	p.Tensors = fuse(out, names, has)
}

// fuse replaces each pair of tensors the files hold fused (GGUF's
// --fuse-gate-up-exps: ffn_gate_exps and ffn_up_exps as one
// ffn_gate_up_exps, rows concatenated) by the fused one, its second
// outermost dimension the sum: every pair, where the files hold one
// fused tensor.
func fuse(ts []ExpectedTensor, names model.Names, has func(string) bool) []ExpectedTensor {
	// A writer fuses every layer or none: one fused tensor in the files
	// makes every pair expected fused.
	fusedFile := slices.ContainsFunc(ts, func(e ExpectedTensor) bool {
		fused, _, ok := names.Fused(e.Name)
		return ok && has(fused)
	})
	if !fusedFile {
		return ts
	}
	for i := 0; i < len(ts); i++ {
		fused, other, ok := names.Fused(ts[i].Name)
		if !ok || len(ts[i].Shape) < 2 {
			continue
		}
		j := slices.IndexFunc(ts, func(e ExpectedTensor) bool { return e.Name == other })
		if j < 0 || len(ts[j].Shape) != len(ts[i].Shape) {
			continue
		}
		a, b := ts[i].Shape[1], ts[j].Shape[1]
		e := ts[i]
		e.Name = fused
		e.Shape = slices.Clone(e.Shape)
		e.Shape[1] = Dim{Sym: a.Sym + "+" + b.Sym, Val: a.Val + b.Val}
		ts[i] = e
		ts = slices.Delete(ts, j, j+1)
		if j < i {
			i--
		}
	}
	return ts
}

// parts are the expected tensors a format cuts e into, their shapes read
// from the config fields the format names ("#i": e's own dimension i);
// false when one is not a field the spec reads.
func (p *Plan) parts(e ExpectedTensor, parts []model.Part) ([]ExpectedTensor, bool) {
	out := make([]ExpectedTensor, len(parts))
	for i, part := range parts {
		x := e
		x.Name, x.Shape = part.Name, make([]Dim, len(part.Shape))
		for j, f := range part.Shape {
			d, ok := p.partDim(e, f)
			if !ok {
				return nil, false
			}
			x.Shape[j] = d
		}
		out[i] = x
	}
	return out, true
}

// partDim is one dimension of a part (model.Part's Shape): a config
// field, "#i" the tensor's own dimension i, a whole number, a/b of two
// of those that divides (Mamba-2's norm regrouped [G, I/G]), or sums
// and products of those ("+" binding loosest, "/" tightest: Qwen3-Next's
// q, k and v cut from in_proj_qkvz, 2*nk*dk+nv*dv rows).
func (p *Plan) partDim(e ExpectedTensor, f string) (Dim, bool) {
	for _, op := range []string{"+", "*"} {
		a, b, ok := strings.Cut(f, op)
		if !ok {
			continue
		}
		x, okA := p.partDim(e, a)
		y, okB := p.partDim(e, b)
		if !okA || !okB {
			return Dim{}, false
		}
		if op == "+" {
			return Dim{Sym: x.Sym + "+" + y.Sym, Val: x.Val + y.Val}, true
		}
		return Dim{Sym: x.Sym + "*" + y.Sym, Val: x.Val * y.Val}, true
	}
	if a, b, ok := strings.Cut(f, "/"); ok {
		x, okA := p.partDim(e, a)
		y, okB := p.partDim(e, b)
		if !okA || !okB || y.Val == 0 || x.Val%y.Val != 0 {
			return Dim{}, false
		}
		return Dim{Sym: x.Sym + "/" + y.Sym, Val: x.Val / y.Val}, true
	}
	if d, ok := p.fields[f]; ok {
		return d, true
	}
	if i, err := strconv.Atoi(strings.TrimPrefix(f, "#")); strings.HasPrefix(f, "#") && err == nil && i >= 0 && i < len(e.Shape) {
		return e.Shape[i], true // the tensor's own dimension
	}
	if n, err := strconv.ParseUint(f, 10, 32); err == nil {
		return Dim{Sym: f, Val: n}, true
	}
	return Dim{}, false
}
