package compare_test

import (
	"encoding/binary"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

// writeModel writes config and tensors into a new directory and opens it.
func writeModel(t testing.TB, config string, ts []testmodel.Tensor) *model.Model {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteModelDir(dir, config, ts))
	m, err := model.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

// tiny returns the tiny Qwen3 model's tensors (lm_head a byte copy of
// embed_tokens), each with its own copy of the data.
func tiny() []testmodel.Tensor {
	ts := testmodel.TinyQwen3Tensors()
	for i := range ts {
		ts[i].Data = slices.Clone(ts[i].Data)
	}
	return ts
}

func find(ts []testmodel.Tensor, name string) *testmodel.Tensor {
	for i := range ts {
		if ts[i].Name == name {
			return &ts[i]
		}
	}
	return nil
}

func without(ts []testmodel.Tensor, name string) []testmodel.Tensor {
	return slices.DeleteFunc(ts, func(t testmodel.Tensor) bool { return t.Name == name })
}

// bf16s decodes little-endian BF16 bytes: the bits shifted into float32's
// high half.
func bf16s(b []byte) []float64 {
	out := make([]float64, len(b)/2)
	for i := range out {
		out[i] = float64(math.Float32frombits(uint32(binary.LittleEndian.Uint16(b[2*i:])) << 16))
	}
	return out
}

// toBF16 rounds float32 values to BF16 (nearest, ties to even) bytes.
func toBF16(xs []float32) []byte {
	b := make([]byte, 2*len(xs))
	for i, x := range xs {
		u := math.Float32bits(x)
		u += 0x7fff + (u>>16)&1
		binary.LittleEndian.PutUint16(b[2*i:], uint16(u>>16))
	}
	return b
}

// widenF32 re-saves BF16 tensors as F32: the exact widening.
func widenF32(ts []testmodel.Tensor) []testmodel.Tensor {
	out := make([]testmodel.Tensor, len(ts))
	for i, t := range ts {
		out[i] = t
		if t.DType != "BF16" {
			continue
		}
		vals := bf16s(t.Data)
		d := make([]byte, 4*len(vals))
		for k, v := range vals {
			binary.LittleEndian.PutUint32(d[4*k:], math.Float32bits(float32(v)))
		}
		out[i].DType, out[i].Data = "F32", d
	}
	return out
}

// e4m3 is every finite non-negative F8_E4M3 (e4m3fn) value by code,
// from the format's definition: 4 exponent bits of bias 7, 3 mantissa
// bits, subnormals at exponent 0, code 0x7F NaN.
func e4m3() []float64 {
	v := make([]float64, 0x7f)
	for c := range 0x7f {
		e, m := c>>3, c&7
		if e == 0 {
			v[c] = float64(m) / 8 * math.Ldexp(1, -6)
		} else {
			v[c] = (1 + float64(m)/8) * math.Ldexp(1, e-7)
		}
	}
	return v
}

// encodeE4M3 rounds x to the nearest E4M3 code (ties to the even code),
// saturating at ±448.
func encodeE4M3(tab []float64, x float64) byte {
	a := math.Abs(x)
	best := 0
	for c := 1; c < len(tab); c++ {
		d, bd := math.Abs(tab[c]-a), math.Abs(tab[best]-a)
		if d < bd || d == bd && c%2 == 0 {
			best = c
		}
	}
	code := byte(best)
	if x < 0 {
		code |= 0x80
	}
	return code
}

// quantizeFP8 quantizes the 2-D BF16 weights named "*_proj.weight" to
// F8_E4M3 with a F32 weight_scale_inv per bn×bk block (the scale is the
// block's max |w| / 448, as transformers' Fp8Quantize), and returns the
// tensors and, for each quantized weight, its dequantized values.
func quantizeFP8(ts []testmodel.Tensor, bn, bk int) ([]testmodel.Tensor, map[string][]float64, map[string][]float64) {
	tab := e4m3()
	var out []testmodel.Tensor
	deq := map[string][]float64{}
	scales := map[string][]float64{} // per element: its block's scale
	for _, t := range ts {
		if len(t.Shape) != 2 || !strings.HasSuffix(t.Name, "_proj.weight") {
			out = append(out, t)
			continue
		}
		rows, cols := int(t.Shape[0]), int(t.Shape[1])
		w := bf16s(t.Data)
		sr, sc := (rows+bn-1)/bn, (cols+bk-1)/bk
		s := make([]float32, sr*sc)
		for i := range rows {
			for j := range cols {
				k := (i/bn)*sc + j/bk
				s[k] = max(s[k], float32(math.Abs(w[i*cols+j])))
			}
		}
		for k := range s {
			s[k] /= 448
			if s[k] == 0 {
				s[k] = 1
			}
		}
		q := make([]byte, rows*cols)
		d := make([]float64, rows*cols)
		se := make([]float64, rows*cols)
		for i := range rows {
			for j := range cols {
				f := s[(i/bn)*sc+j/bk]
				c := encodeE4M3(tab, w[i*cols+j]/float64(f))
				q[i*cols+j] = c
				v := tab[c&0x7f]
				if c&0x80 != 0 {
					v = -v
				}
				d[i*cols+j] = float64(float32(v) * f)
				se[i*cols+j] = float64(f)
			}
		}
		sb := make([]byte, 4*len(s))
		for k, x := range s {
			binary.LittleEndian.PutUint32(sb[4*k:], math.Float32bits(x))
		}
		out = append(out, testmodel.Tensor{Name: t.Name, DType: "F8_E4M3", Shape: t.Shape, Data: q},
			testmodel.Tensor{Name: strings.TrimSuffix(t.Name, "weight") + "weight_scale_inv", DType: "F32",
				Shape: []uint64{uint64(sr), uint64(sc)}, Data: sb})
		deq[t.Name] = d
		scales[t.Name] = se
	}
	return out, deq, scales
}

// relL2 is ‖a − b‖ / ‖b‖ in float64.
func relL2(a, b []float64) float64 {
	var dd, bb float64
	for i := range a {
		dd += (a[i] - b[i]) * (a[i] - b[i])
		bb += b[i] * b[i]
	}
	return math.Sqrt(dd) / math.Sqrt(bb)
}
