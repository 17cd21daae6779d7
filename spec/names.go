package spec

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/tensor"
)

// renamePlan gives the plan's tensors the names the files use, for a
// format with names of its own (GGUF's "blk.0.attn_q.weight"), and stacks
// an MoE layer's experts into one tensor, with the expert count as a new
// outermost dimension, where the format does. A tensor the format cuts
// into parts (DeepSeek's kv_b_proj), or reshapes under its own name
// (Mamba's conv1d), is expected as its parts, unless the files hold it
// whole under a name of its own (has: older converters' attn_kv_b), or
// whole and in parts (converters of spring 2025 wrote attn_kv_b, attn_k_b
// and attn_v_b: where one part is there, all are expected). A tensor without a name in
// the format keeps its Hugging Face name, and shows as missing.
func renamePlan(p *Plan, names model.Names, has func(string) bool) {
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
	p.Tensors = out
}

// parts are the expected tensors a format cuts e into, their shapes read
// from the config fields the format names; false when one is not a field
// the spec reads.
func (p *Plan) parts(e ExpectedTensor, parts []model.Part) ([]ExpectedTensor, bool) {
	out := make([]ExpectedTensor, len(parts))
	for i, part := range parts {
		x := e
		x.Name, x.Shape = part.Name, make([]Dim, len(part.Shape))
		for j, f := range part.Shape {
			d, ok := p.fields[f]
			if !ok {
				return nil, false
			}
			x.Shape[j] = d
		}
		out[i] = x
	}
	return out, true
}

// fileName is a Hugging Face tensor name as the model's files name it.
func fileName(m *model.Model, hf string) string {
	if m.Names == nil {
		return hf
	}
	if n, e, ok := m.Names.File(hf); ok && e < 0 {
		return n
	}
	return hf
}

// layerPrefix returns the prefix of a layer's tensor names as the files
// name them, from one of its tensors: what precedes and includes ".N."
// ("blk.3." of "blk.3.attn_q.weight"), or fallback.
func layerPrefix(name string, layer int, fallback string) string {
	mark := fmt.Sprintf(".%d.", layer)
	if i := strings.Index(name, mark); i >= 0 {
		return name[:i+len(mark)]
	}
	return fallback
}

// quantMix describes a model of block-quantized tensors: each type's
// share of the tensor bytes, and the bits per weight overall.
func quantMix(m *model.Model) string {
	bytes := map[tensor.DType]int64{}
	var total int64
	var params uint64
	quantized := false
	for _, t := range m.Tensors() {
		bytes[t.DType] += t.Length
		total += t.Length
		params += t.NumElements()
		quantized = quantized || t.DType.Quantized()
	}
	if !quantized || total == 0 || params == 0 {
		return ""
	}
	types := make([]tensor.DType, 0, len(bytes))
	for d := range bytes {
		types = append(types, d)
	}
	slices.SortFunc(types, func(a, b tensor.DType) int {
		if bytes[a] != bytes[b] {
			if bytes[a] > bytes[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a.String(), b.String())
	})
	parts := make([]string, len(types))
	for i, d := range types {
		parts[i] = fmt.Sprintf("%s %.1f%%", d, 100*float64(bytes[d])/float64(total))
	}
	return fmt.Sprintf("quantization mix (share of tensor bytes): %s · %.2f bits per weight", strings.Join(parts, ", "), float64(total)*8/float64(params))
}
