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

// code16 is a 16-bit code and the value it stands for.
type code16 struct {
	bits uint16
	want float32
}

// TestKnown16 decodes known codes of BF16 and F16, one at a time (want
// compared with its sign: -0 is not 0; NaN is any NaN) and two in one
// call.
func TestKnown16(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	negZero := float32(math.Copysign(0, -1))
	for _, tc := range []struct {
		dt    tensor.DType
		codes []code16
		two   []byte // two codes decoded in one call
		want  []float32
	}{
		{tensor.BF16, []code16{
			{0x3f80, 1}, {0xc000, -2}, {0x0000, 0}, {0x3f00, 0.5},
			{0x4049, 3.140625}, {0x7f7f, 3.3895314e38}, {0x0080, 1.1754944e-38},
			{0x7f80, inf}, {0xff80, -inf}, {0x7fc0, nan},
		}, []byte{0x80, 0x3f, 0x00, 0xc0}, []float32{1, -2}},
		{tensor.F16, []code16{
			{0x3c00, 1}, {0xc000, -2}, {0x3800, 0.5}, {0x7bff, 65504},
			{0x0001, 5.9604645e-08}, // smallest subnormal, 2^-24
			{0x03ff, 6.097555e-05},  // largest subnormal
			{0x0400, 6.1035156e-05}, // smallest normal, 2^-14
			{0x3555, 0.33325195},    // nearest to 1/3
			{0x4248, 3.140625},
			{0x8000, negZero}, {0x7c00, inf}, {0xfc00, -inf}, {0x7e00, nan},
		}, []byte{0x00, 0x3c, 0xff, 0x7b}, []float32{1, 65504}},
	} {
		t.Run(tc.dt.String(), func(t *testing.T) {
			for _, c := range tc.codes {
				got := one(t, tc.dt, c.bits)
				if math.IsNaN(float64(c.want)) {
					assert.True(t, math.IsNaN(float64(got)), "%#04x: %v", c.bits, got)
					continue
				}
				assert.Equal(t, c.want, got, "%#04x", c.bits)
				assert.Equal(t, math.Signbit(float64(c.want)), math.Signbit(float64(got)), "%#04x: sign", c.bits)
			}
			got := make([]float32, 2)
			_, err := decode.Float32(tc.dt, tc.two, got)
			assert.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
