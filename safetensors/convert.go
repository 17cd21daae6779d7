package safetensors

import (
	"encoding/binary"
	"math"
)

// BF16ToF32 widens a bfloat16 value, given as its 16 bits, to float32.
// bfloat16 is the upper half of a float32, so the conversion is exact.
func BF16ToF32(bits uint16) float32 {
	return math.Float32frombits(uint32(bits) << 16)
}

// F16ToF32 widens an IEEE 754 half-precision value, given as its 16 bits,
// to float32. The conversion is exact, including subnormals, infinities
// and NaN payloads.
func F16ToF32(bits uint16) float32 {
	sign := uint32(bits>>15) << 31
	exp := uint32(bits>>10) & 0x1f
	frac := uint32(bits) & 0x3ff
	switch {
	case exp == 0 && frac == 0:
		return math.Float32frombits(sign)
	case exp == 0:
		// Subnormal: normalise the fraction.
		e := uint32(127 - 15 + 1)
		for frac&0x400 == 0 {
			frac <<= 1
			e--
		}
		frac &= 0x3ff
		return math.Float32frombits(sign | e<<23 | frac<<13)
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	default:
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	}
}

// DecodeBF16 converts little-endian bfloat16 bytes to float32 values.
// A trailing odd byte is ignored.
func DecodeBF16(b []byte) []float32 {
	out := make([]float32, len(b)/2)
	for i := range out {
		out[i] = BF16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

// DecodeF16 converts little-endian half-precision bytes to float32 values.
// A trailing odd byte is ignored.
func DecodeF16(b []byte) []float32 {
	out := make([]float32, len(b)/2)
	for i := range out {
		out[i] = F16ToF32(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}
