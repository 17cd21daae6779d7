package safetensors

// DType is a tensor element type, as named in a safetensors header.
type DType uint8

// The 22 element types of the reference implementation, in its order
// ("increasing alignment order").
const (
	BOOL DType = iota + 1
	F4
	F6_E2M3
	F6_E3M2
	U8
	I8
	F8_E5M2
	F8_E4M3
	F8_E8M0
	F8_E4M3FNUZ
	F8_E5M2FNUZ
	I16
	U16
	F16
	BF16
	I32
	U32
	F32
	C64
	F64
	I64
	U64
)

type dtypeInfo struct {
	name string
	bits uint64
}

var dtypeTable = [...]dtypeInfo{
	BOOL:        {"BOOL", 8},
	F4:          {"F4", 4},
	F6_E2M3:     {"F6_E2M3", 6},
	F6_E3M2:     {"F6_E3M2", 6},
	U8:          {"U8", 8},
	I8:          {"I8", 8},
	F8_E5M2:     {"F8_E5M2", 8},
	F8_E4M3:     {"F8_E4M3", 8},
	F8_E8M0:     {"F8_E8M0", 8},
	F8_E4M3FNUZ: {"F8_E4M3FNUZ", 8},
	F8_E5M2FNUZ: {"F8_E5M2FNUZ", 8},
	I16:         {"I16", 16},
	U16:         {"U16", 16},
	F16:         {"F16", 16},
	BF16:        {"BF16", 16},
	I32:         {"I32", 32},
	U32:         {"U32", 32},
	F32:         {"F32", 32},
	C64:         {"C64", 64},
	F64:         {"F64", 64},
	I64:         {"I64", 64},
	U64:         {"U64", 64},
}

var dtypeByName = func() map[string]DType {
	m := make(map[string]DType, len(dtypeTable))
	for i, info := range dtypeTable {
		if info.name != "" {
			m[info.name] = DType(i)
		}
	}
	return m
}()

// AllDTypes returns every known element type in the reference's order.
func AllDTypes() []DType {
	out := make([]DType, 0, len(dtypeTable)-1)
	for i := 1; i < len(dtypeTable); i++ {
		out = append(out, DType(i))
	}
	return out
}

// ParseDType returns the element type with the given header name, such as
// "BF16", and whether the name is known. Names are case-sensitive, as in
// the reference.
func ParseDType(name string) (DType, bool) {
	d, ok := dtypeByName[name]
	return d, ok
}

// String returns the header name of d, such as "BF16".
func (d DType) String() string {
	if d == 0 || int(d) >= len(dtypeTable) {
		return "invalid"
	}
	return dtypeTable[d].name
}

// Bits returns the size of one element in bits: 4 for F4, 6 for the F6
// types, 8 to 64 for the others, 0 for an invalid DType.
func (d DType) Bits() uint64 {
	if d == 0 || int(d) >= len(dtypeTable) {
		return 0
	}
	return dtypeTable[d].bits
}
