package quantconfig

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/tensor"
)

// ctSparse is compressed-tensors' sparsity_config: the format its
// sparsity compressor writes and the modules it compresses (targets
// less ignore, matched as the quantization's).
type ctSparse struct {
	format string
	target []matcher
	ignore []matcher
}

// loadSparsity reads sparsity_config; the error names what is not
// modelled.
func (c *ctConfig) loadSparsity(raw json.RawMessage) error {
	var sp struct {
		Format    string   `json:"format"`
		Targets   []string `json:"targets"`
		Ignore    []string `json:"ignore"`
		Structure string   `json:"sparsity_structure"`
	}
	if err := json.Unmarshal(raw, &sp); err != nil {
		return fmt.Errorf("compressed-tensors sparsity_config: %v", err)
	}
	switch sp.Format {
	case "", "dense":
		return nil
	case "sparse-24-bitmask", "sparse-bitmask":
	default:
		return fmt.Errorf("compressed-tensors sparsity format %q is not modelled", sp.Format)
	}
	if sp.Format == "sparse-24-bitmask" && sp.Structure != "" && sp.Structure != "2:4" {
		return fmt.Errorf("compressed-tensors sparse-24-bitmask with sparsity_structure %q", sp.Structure)
	}
	s := &ctSparse{format: sp.Format}
	if len(sp.Targets) == 0 {
		sp.Targets = []string{"Linear"}
	}
	for _, t := range sp.Targets {
		m, err := newMatcher(t)
		if err != nil {
			return fmt.Errorf("compressed-tensors sparsity target: %v", err)
		}
		if m.class != "" && !knownClasses[m.class] {
			return fmt.Errorf("compressed-tensors sparsity target class %q is not modelled", m.class)
		}
		s.target = append(s.target, m)
	}
	for _, t := range sp.Ignore {
		m, err := newMatcher(t)
		if err != nil {
			return fmt.Errorf("compressed-tensors sparsity ignore: %v", err)
		}
		s.ignore = append(s.ignore, m)
	}
	c.sparse = s
	return nil
}

func (s *ctSparse) targets(w Weight) bool {
	if len(w.Shape) != 2 || w.Kind == Embedding {
		return false
	}
	match := func(m matcher) bool { return m.match(w) > 0 }
	return slices.ContainsFunc(s.target, match) && !slices.ContainsFunc(s.ignore, match)
}

// form is the sparse form of the weight w whose quantized form (or nil,
// unquantized) is q. compressed-tensors' Sparse24BitMaskTensor.dict
// (compressors/sparse_compressors/sparse_24_bitmask.py) replaces
// X.weight [o, i] by X.shape (I64 [2, 1]: torch.tensor(shape).reshape(-1,
// 1)), X.compressed [o, i/2] in the weight's dtype and X.bitmask U8
// [o, ceil(i/8)] (pack_bitmasks: numpy.packbits along rows, little
// bit order); BitmaskTensor.dict (sparse_bitmask.py) by X.shape I64
// [2], X.compressed [nnz] 1-D, X.bitmask and X.row_offsets I64 [o]. A
// quantized weight keeps its scales; one packed by its quantization
// (weight_packed) is not compressed again.
func (s *ctSparse) form(w Weight, q *Form) *Form {
	base := w.Module()
	o, i := w.Shape[0], w.Shape[1]
	dt := floats
	var keep []Stored
	scheme := "dense"
	if q != nil {
		v := q.Tensor(RoleValues)
		if v == nil {
			q.roles()
			v = q.Tensor(RoleValues)
		}
		if v == nil || v.Name != w.Name {
			return q // packed: the sparsity compressor leaves it
		}
		dt, scheme = v.DTypes, q.Scheme
		for _, t := range q.Tensors {
			if !t.Values {
				keep = append(keep, t)
			}
		}
	}
	var ts []Stored
	if s.format == "sparse-24-bitmask" {
		ts = []Stored{
			{Name: base + ".compressed", DTypes: dt, Shape: []uint64{o, i / 2}, Values: true},
			{Name: base + ".bitmask", DTypes: u8, Shape: []uint64{o, ceil(i, 8)}},
			{Name: base + ".shape", DTypes: []tensor.DType{tensor.I64, tensor.I32}, Shape: []uint64{2, 1}},
		}
		scheme += " 2:4 sparse (bitmask)"
	} else {
		ts = []Stored{
			{Name: base + ".compressed", DTypes: dt, AnyShape: true, Values: true},
			{Name: base + ".bitmask", DTypes: u8, Shape: []uint64{o, ceil(i, 8)}},
			{Name: base + ".shape", DTypes: []tensor.DType{tensor.I64, tensor.I32}, Shape: []uint64{2}},
			{Name: base + ".row_offsets", DTypes: []tensor.DType{tensor.I64, tensor.I32}, Shape: []uint64{o}},
		}
		scheme += " sparse (bitmask)"
	}
	return &Form{Scheme: strings.TrimPrefix(scheme, "dense "), Tensors: append(ts, keep...)}
}
