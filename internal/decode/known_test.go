package decode_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/tensor"
)

// Known values of BF16 and F16 codes (moved from the safetensors package,
// whose converters these were).

func one(t *testing.T, dt tensor.DType, bits uint16) float32 {
	t.Helper()
	var b [2]byte
	binary.LittleEndian.PutUint16(b[:], bits)
	out := make([]float32, 1)
	if _, err := decode.Float32(dt, b[:], out); err != nil {
		t.Fatal(err)
	}
	return out[0]
}

func TestKnownBF16(t *testing.T) {
	bf16 := func(b uint16) float32 { return one(t, tensor.BF16, b) }
	for _, c := range []struct {
		bits uint16
		want float32
	}{
		{0x3f80, 1}, {0xc000, -2}, {0x0000, 0}, {0x3f00, 0.5},
		{0x4049, 3.140625}, {0x7f7f, 3.3895314e38}, {0x0080, 1.1754944e-38},
	} {
		assert.Equal(t, c.want, bf16(c.bits), "%#04x", c.bits)
	}
	assert.True(t, math.IsInf(float64(bf16(0x7f80)), 1))
	assert.True(t, math.IsInf(float64(bf16(0xff80)), -1))
	assert.True(t, math.IsNaN(float64(bf16(0x7fc0))))
	got := make([]float32, 2)
	_, err := decode.Float32(tensor.BF16, []byte{0x80, 0x3f, 0x00, 0xc0}, got)
	assert.NoError(t, err)
	assert.Equal(t, []float32{1, -2}, got)
}

func TestKnownF16(t *testing.T) {
	f16 := func(b uint16) float32 { return one(t, tensor.F16, b) }
	for _, c := range []struct {
		bits uint16
		want float32
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x3800, 0.5}, {0x7bff, 65504},
		{0x0001, 5.9604645e-08}, // smallest subnormal, 2^-24
		{0x03ff, 6.097555e-05},  // largest subnormal
		{0x0400, 6.1035156e-05}, // smallest normal, 2^-14
		{0x3555, 0.33325195},    // nearest to 1/3
		{0x4248, 3.140625},
	} {
		assert.Equal(t, c.want, f16(c.bits), "%#04x", c.bits)
	}
	negZero := f16(0x8000)
	assert.True(t, negZero == 0 && math.Signbit(float64(negZero)))
	assert.True(t, math.IsInf(float64(f16(0x7c00)), 1))
	assert.True(t, math.IsInf(float64(f16(0xfc00)), -1))
	assert.True(t, math.IsNaN(float64(f16(0x7e00))))
	got := make([]float32, 2)
	_, err := decode.Float32(tensor.F16, []byte{0x00, 0x3c, 0xff, 0x7b}, got)
	assert.NoError(t, err)
	assert.Equal(t, []float32{1, 65504}, got)
}
