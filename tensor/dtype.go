package tensor

// DType is an element type, of any format: the 22 types of safetensors
// and the types of ggml (GGUF), block-quantized ones included. A type
// stores BlockElems elements in BlockBytes bytes: (1, 2) for BF16, (2, 1)
// for F4, (4, 3) for the F6 types, (32, 18) for Q4_0, (256, 144) for Q4_K.
type DType uint8

// The safetensors types, in the reference's order ("increasing alignment
// order"), then the ggml types that safetensors does not have.
const (
	Invalid DType = iota
	BOOL
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

	Q4_0
	Q4_1
	Q5_0
	Q5_1
	Q8_0
	Q8_1
	Q2_K
	Q3_K
	Q4_K
	Q5_K
	Q6_K
	Q8_K
	IQ2_XXS
	IQ2_XS
	IQ3_XXS
	IQ1_S
	IQ4_NL
	IQ3_S
	IQ2_S
	IQ4_XS
	IQ1_M
	TQ1_0
	TQ2_0
	MXFP4
	NVFP4
	Q1_0
	Q2_0

	numDTypes
)

type dtypeInfo struct {
	name       string
	blockElems uint64
	blockBytes uint64
}

var dtypes = [numDTypes]dtypeInfo{
	BOOL:        {"BOOL", 1, 1},
	F4:          {"F4", 2, 1},
	F6_E2M3:     {"F6_E2M3", 4, 3},
	F6_E3M2:     {"F6_E3M2", 4, 3},
	U8:          {"U8", 1, 1},
	I8:          {"I8", 1, 1},
	F8_E5M2:     {"F8_E5M2", 1, 1},
	F8_E4M3:     {"F8_E4M3", 1, 1},
	F8_E8M0:     {"F8_E8M0", 1, 1},
	F8_E4M3FNUZ: {"F8_E4M3FNUZ", 1, 1},
	F8_E5M2FNUZ: {"F8_E5M2FNUZ", 1, 1},
	I16:         {"I16", 1, 2},
	U16:         {"U16", 1, 2},
	F16:         {"F16", 1, 2},
	BF16:        {"BF16", 1, 2},
	I32:         {"I32", 1, 4},
	U32:         {"U32", 1, 4},
	F32:         {"F32", 1, 4},
	C64:         {"C64", 1, 8},
	F64:         {"F64", 1, 8},
	I64:         {"I64", 1, 8},
	U64:         {"U64", 1, 8},

	Q4_0:    {"Q4_0", 32, 18},
	Q4_1:    {"Q4_1", 32, 20},
	Q5_0:    {"Q5_0", 32, 22},
	Q5_1:    {"Q5_1", 32, 24},
	Q8_0:    {"Q8_0", 32, 34},
	Q8_1:    {"Q8_1", 32, 36},
	Q2_K:    {"Q2_K", 256, 84},
	Q3_K:    {"Q3_K", 256, 110},
	Q4_K:    {"Q4_K", 256, 144},
	Q5_K:    {"Q5_K", 256, 176},
	Q6_K:    {"Q6_K", 256, 210},
	Q8_K:    {"Q8_K", 256, 292},
	IQ2_XXS: {"IQ2_XXS", 256, 66},
	IQ2_XS:  {"IQ2_XS", 256, 74},
	IQ3_XXS: {"IQ3_XXS", 256, 98},
	IQ1_S:   {"IQ1_S", 256, 50},
	IQ4_NL:  {"IQ4_NL", 32, 18},
	IQ3_S:   {"IQ3_S", 256, 110},
	IQ2_S:   {"IQ2_S", 256, 82},
	IQ4_XS:  {"IQ4_XS", 256, 136},
	IQ1_M:   {"IQ1_M", 256, 56},
	TQ1_0:   {"TQ1_0", 256, 54},
	TQ2_0:   {"TQ2_0", 256, 66},
	MXFP4:   {"MXFP4", 32, 17},
	NVFP4:   {"NVFP4", 64, 36},
	Q1_0:    {"Q1_0", 128, 18},
	Q2_0:    {"Q2_0", 64, 18},
}

var byName = func() map[string]DType {
	m := make(map[string]DType, len(dtypes))
	for i, d := range dtypes {
		if d.name != "" {
			m[d.name] = DType(i)
		}
	}
	return m
}()

// ParseDType returns the type of the given name, such as "BF16" or
// "Q4_K", and whether it is known. Names are case-sensitive.
func ParseDType(name string) (DType, bool) {
	d, ok := byName[name]
	return d, ok
}

func (d DType) info() dtypeInfo {
	if int(d) >= len(dtypes) {
		return dtypeInfo{}
	}
	return dtypes[d]
}

// String returns the type's name, such as "BF16", or "invalid".
func (d DType) String() string {
	if n := d.info().name; n != "" {
		return n
	}
	return "invalid"
}

// Valid reports whether d is a known type.
func (d DType) Valid() bool { return d.info().name != "" }

// BlockElems returns how many elements one block holds (1 for plain
// types), or 0 for an invalid type.
func (d DType) BlockElems() uint64 { return d.info().blockElems }

// BlockBytes returns the bytes of one block, or 0 for an invalid type.
func (d DType) BlockBytes() uint64 { return d.info().blockBytes }

// Quantized reports whether d is a block-quantized ggml type, whose
// elements are decoded a block at a time with the block's scales.
func (d DType) Quantized() bool { return d >= Q4_0 && d < numDTypes }

// Bits returns the storage bits per element as a fraction num/den: 16/1
// for BF16, 6/1 for F6, 144*8/256 = 9/2 for Q4_K.
func (d DType) Bits() (num, den uint64) {
	i := d.info()
	if i.blockElems == 0 {
		return 0, 1
	}
	num, den = i.blockBytes*8, i.blockElems
	for g := gcd(num, den); g > 1; g = gcd(num, den) {
		num, den = num/g, den/g
	}
	return num, den
}

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ByteSize returns the bytes n elements take, and false when n is not a
// whole number of blocks or the size overflows 64 bits.
func (d DType) ByteSize(n uint64) (uint64, bool) {
	i := d.info()
	if i.blockElems == 0 || n%i.blockElems != 0 {
		return 0, false
	}
	blocks := n / i.blockElems
	if blocks != 0 && i.blockBytes > ^uint64(0)/blocks {
		return 0, false
	}
	return blocks * i.blockBytes, true
}
