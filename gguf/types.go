package gguf

import (
	"strconv"

	"github.com/fsmount/fsmount/tensor"
)

// GGMLType is a tensor type id as ggml numbers it (ggml_type), such as 12
// for Q4_K. Ids 4, 5, 31–33 and 36–38 belonged to types that were removed;
// files may not use them.
type GGMLType uint32

// ggmlTypes maps each ggml id a GGUF file may use to our type; removed ids
// are absent (Invalid), with their old names in removedTypes.
var ggmlTypes = [...]tensor.DType{
	0:  tensor.F32,
	1:  tensor.F16,
	2:  tensor.Q4_0,
	3:  tensor.Q4_1,
	6:  tensor.Q5_0,
	7:  tensor.Q5_1,
	8:  tensor.Q8_0,
	9:  tensor.Q8_1,
	10: tensor.Q2_K,
	11: tensor.Q3_K,
	12: tensor.Q4_K,
	13: tensor.Q5_K,
	14: tensor.Q6_K,
	15: tensor.Q8_K,
	16: tensor.IQ2_XXS,
	17: tensor.IQ2_XS,
	18: tensor.IQ3_XXS,
	19: tensor.IQ1_S,
	20: tensor.IQ4_NL,
	21: tensor.IQ3_S,
	22: tensor.IQ2_S,
	23: tensor.IQ4_XS,
	24: tensor.I8,
	25: tensor.I16,
	26: tensor.I32,
	27: tensor.I64,
	28: tensor.F64,
	29: tensor.IQ1_M,
	30: tensor.BF16,
	34: tensor.TQ1_0,
	35: tensor.TQ2_0,
	39: tensor.MXFP4,
	40: tensor.NVFP4,
	41: tensor.Q1_0,
	42: tensor.Q2_0,
}

var removedTypes = map[GGMLType]string{
	4: "Q4_2", 5: "Q4_3",
	31: "Q4_0_4_4", 32: "Q4_0_4_8", 33: "Q4_0_8_8",
	36: "IQ4_NL_4_4", 37: "IQ4_NL_4_8", 38: "IQ4_NL_8_8",
}

// DType returns the type of the id, and false for an unknown or removed id.
func (t GGMLType) DType() (tensor.DType, bool) {
	if int(t) >= len(ggmlTypes) || ggmlTypes[t] == tensor.Invalid {
		return tensor.Invalid, false
	}
	return ggmlTypes[t], true
}

// String returns the type's name ("Q4_K"), or a description of a removed
// or unknown id.
func (t GGMLType) String() string {
	if d, ok := t.DType(); ok {
		return d.String()
	}
	if n, ok := removedTypes[t]; ok {
		return "removed type " + strconv.FormatUint(uint64(t), 10) + " (" + n + ")"
	}
	return "unknown type " + strconv.FormatUint(uint64(t), 10)
}

// GGMLTypeOf returns the ggml id of a type, and false for a type ggml does
// not have (the safetensors-only types, such as F8_E4M3 or U32).
func GGMLTypeOf(d tensor.DType) (GGMLType, bool) {
	if d == tensor.Invalid {
		return 0, false
	}
	for i, x := range ggmlTypes {
		if x == d {
			return GGMLType(i), true
		}
	}
	return 0, false
}
