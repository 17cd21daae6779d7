package safetensors

import "github.com/fsmount/fsmount/tensor"

// ParseDType returns the element type a header names, such as "BF16",
// and whether safetensors has it: one of the reference's 22 types (BOOL
// to U64 in [tensor.DType]'s order). Names are case-sensitive.
func ParseDType(name string) (tensor.DType, bool) {
	d, ok := tensor.ParseDType(name)
	if !ok || d > tensor.U64 {
		return tensor.Invalid, false
	}
	return d, true
}

// bitsOf returns the bits of one element: 4 for F4, 6 for the F6 types,
// 8 to 64 for the others. Every safetensors type has a whole number.
func bitsOf(d tensor.DType) uint64 {
	return d.BlockBytes() * 8 / d.BlockElems()
}

// dtypeByName is ParseDType as a map, for the header's parser to look a
// name up in without making a string of it.
var dtypeByName = func() map[string]tensor.DType {
	m := map[string]tensor.DType{}
	for d := tensor.DType(0); d <= tensor.U64; d++ {
		if d, ok := ParseDType(d.String()); ok {
			m[d.String()] = d
		}
	}
	return m
}()
