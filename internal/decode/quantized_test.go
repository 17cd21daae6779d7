package decode

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

func u32s(ws ...uint32) []byte {
	b := make([]byte, 4*len(ws))
	for i, w := range ws {
		binary.LittleEndian.PutUint32(b[4*i:], w)
	}
	return b
}

func f32s(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func bf16s(vs ...float32) []byte {
	b := make([]byte, 2*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(RoundTo(tensor.BF16, v))>>16))
	}
	return b
}

func decodeAll(t *testing.T, q Quantized) []float32 {
	t.Helper()
	d, err := NewQuantized(q)
	require.NoError(t, err)
	out := make([]float32, d.Len())
	require.NoError(t, d.Float32(0, out))
	// Every suffix decodes alike (ranges starting mid-row).
	for s := uint64(1); s < d.Len(); s++ {
		part := make([]float32, d.Len()-s)
		require.NoError(t, d.Float32(s, part))
		require.Equal(t, out[s:], part, "from %d", s)
	}
	return out
}

// compressed-tensors' tests/test_compressors/test_pack_quant.py,
// test_repack_4bit and test_repack_8bit: the literal rows, packed by
// pack_to_int32 (offset 2^(b−1), element i at bit i·b), come back with
// a scale of 1.
func TestCTPackQuantizedLiterals(t *testing.T) {
	one := testmodel.MemTensor("w.weight_scale", tensor.F32, []uint64{1}, f32s(1))
	// [[1..7, 0], [-1..-8]] + 8 → nibbles 9..15, 8 and 7..0.
	w4 := testmodel.MemTensor("w.weight_packed", tensor.I32, []uint64{2, 1}, u32s(0x8FEDCBA9, 0x01234567))
	got := decodeAll(t, Quantized{Values: w4, Code: CodeInt, Bits: 4, Signed: true, Shape: []uint64{2, 8}, Scale: one})
	assert.Equal(t, []float32{1, 2, 3, 4, 5, 6, 7, 0, -1, -2, -3, -4, -5, -6, -7, -8}, got)

	// [[1, 2], [3, 4]]: one word a row, the rest of it padding.
	w4b := testmodel.MemTensor("w.weight_packed", tensor.I32, []uint64{2, 1}, u32s(0xA9, 0xCB))
	got = decodeAll(t, Quantized{Values: w4b, Code: CodeInt, Bits: 4, Signed: true, Shape: []uint64{2, 2}, Scale: one})
	assert.Equal(t, []float32{1, 2, 3, 4}, got)

	// 8 bits: [[10, 15, …, 45], [-10, …, -80]] + 128.
	row := func(vs ...int) []uint32 {
		var ws []uint32
		for i := 0; i < len(vs); i += 4 {
			var w uint32
			for k := range 4 {
				w |= uint32(vs[i+k]+128) << (8 * k)
			}
			ws = append(ws, w)
		}
		return ws
	}
	ws := append(row(10, 15, 20, 25, 30, 35, 40, 45), row(-10, -20, -30, -40, -50, -60, -70, -80)...)
	w8 := testmodel.MemTensor("w.weight_packed", tensor.I32, []uint64{2, 2}, u32s(ws...))
	got = decodeAll(t, Quantized{Values: w8, Code: CodeInt, Bits: 8, Signed: true, Shape: []uint64{2, 8}, Scale: one})
	assert.Equal(t, []float32{10, 15, 20, 25, 30, 35, 40, 45, -10, -20, -30, -40, -50, -60, -70, -80}, got)

	// 3 bits straddle words: 11 values 0..7,0..2 (signed −4..3) in 33 bits.
	codes := []uint64{0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2}
	var bits uint64
	for i, c := range codes {
		bits |= c << (3 * i)
	}
	w3 := testmodel.MemTensor("w.weight_packed", tensor.I32, []uint64{1, 2}, u32s(uint32(bits), uint32(bits>>32)))
	got = decodeAll(t, Quantized{Values: w3, Code: CodeInt, Bits: 3, Signed: true, Shape: []uint64{1, 11}, Scale: one})
	assert.Equal(t, []float32{-4, -3, -2, -1, 0, 1, 2, 3, -4, -3, -2}, got)
}

// compressed-tensors' dequantize in the scale's dtype: (q − z)·s rounded
// to BF16, with a per-group scale and a zero point packed along the
// output dimension (pack_to_int32(zp, b, packed_dim=0)).
func TestCTGroupZeroPoint(t *testing.T) {
	// W [2, 4], group 2: scales [[0.1, 3], [0.7, 1]] BF16; zero points
	// [[1, -2], [0, 3]] packed 4-bit along the rows of each column.
	w := testmodel.MemTensor("w.weight_packed", tensor.I32, []uint64{2, 1}, u32s(
		uint32(8+1)|uint32(8+2)<<4|uint32(8-1)<<8|uint32(8+3)<<12,
		uint32(8+0)|uint32(8-4)<<4|uint32(8+7)<<8|uint32(0)<<12))
	sc := testmodel.MemTensor("w.weight_scale", tensor.BF16, []uint64{2, 2}, bf16s(0.1, 3, 0.7, 1))
	zp := testmodel.MemTensor("w.weight_zero_point", tensor.I32, []uint64{1, 2}, u32s(
		uint32(8+1)|uint32(8+0)<<4, uint32(8-2)|uint32(8+3)<<4))
	got := decodeAll(t, Quantized{Values: w, Code: CodeInt, Bits: 4, Signed: true, Shape: []uint64{2, 4}, Scale: sc,
		Zero: zp, ZeroPacked: true, RoundMul: tensor.BF16})
	s := func(v float32) float32 { return RoundTo(tensor.BF16, v) }
	want := []float32{
		0, s(1 * s(0.1)), s(1 * 3), s(5 * 3),
		0, s(-4 * s(0.7)), s(4 * 1), s(-11 * 1)}
	assert.Equal(t, want, got)
}

// compressed-tensors' test_mxfp4_quant.py,
// test_decompress_decodes_mx_scales_and_restores_weight: FP4 [0.5, 1,
// 1.5, 2] with E8M0 scales [0.25, 0.5] decode to [0.125, 0.25, 0.75, 1].
func TestCTMXFP4Literal(t *testing.T) {
	packed := testmodel.MemTensor("w.weight_packed", tensor.U8, []uint64{1, 2}, []byte{0x21, 0x43})
	sc := testmodel.MemTensor("w.weight_scale", tensor.U8, []uint64{1, 2}, []byte{125, 126})
	got := decodeAll(t, Quantized{Values: packed, Code: CodeFP4, Shape: []uint64{1, 4}, Scale: sc, ScaleE8M0: true, RoundMul: tensor.BF16})
	assert.Equal(t, []float32{0.125, 0.25, 0.75, 1.0}, got)
}

// test_fp4_optimizations.py's rows: every FP4 code, low nibble first,
// decodes to its value (the reference packer's indices).
func TestFP4Codes(t *testing.T) {
	rows := [][]float32{
		{0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0},
		{-0.5, -1.0, -1.5, -2.0, -3.0, -4.0, -6.0, float32(math.Copysign(0, -1))},
		{0.0, -0.5, 1.0, -1.5, 2.0, -3.0, 4.0, -6.0},
	}
	idx := func(v float32) byte {
		for i, x := range fp4 {
			if x == v && math.Signbit(float64(x)) == math.Signbit(float64(v)) {
				return byte(i)
			}
		}
		t.Fatalf("%v is no FP4 value", v)
		return 0
	}
	one := testmodel.MemTensor("s", tensor.F32, []uint64{}, f32s(1))
	for _, r := range rows {
		var b []byte
		for i := 0; i < len(r); i += 2 {
			b = append(b, idx(r[i])|idx(r[i+1])<<4)
		}
		got := decodeAll(t, Quantized{Values: testmodel.MemTensor("w", tensor.U8, []uint64{1, 4}, b), Code: CodeFP4, Shape: []uint64{1, 8}, Scale: one})
		for i := range r {
			assert.Equal(t, math.Float32bits(r[i]), math.Float32bits(got[i]), "%v", r)
		}
	}
}

// NVFP4: compressed-tensors divides the FP8 block scale by
// weight_global_scale in float32 and rounds the product to BF16;
// ModelOpt multiplies by weight_scale_2 and keeps float32.
func TestNVFP4GlobalScale(t *testing.T) {
	// 16 values: codes 1..7, 9..15, 0, 8 (0.5 … 6, −0.5 … −6, 0, −0).
	var b []byte
	codes := []byte{1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15, 0, 8}
	for i := 0; i < 16; i += 2 {
		b = append(b, codes[i]|codes[i+1]<<4)
	}
	w := testmodel.MemTensor("w.weight_packed", tensor.U8, []uint64{1, 8}, b)
	sc := testmodel.MemTensor("w.weight_scale", tensor.F8_E4M3, []uint64{1, 1}, []byte{0x3A}) // 1.25
	gs := testmodel.MemTensor("w.weight_global_scale", tensor.F32, []uint64{1}, f32s(3))
	got := decodeAll(t, Quantized{Values: w, Code: CodeFP4, Shape: []uint64{1, 16}, Scale: sc, Global: gs, GlobalDivides: true, RoundMul: tensor.BF16})
	got2 := decodeAll(t, Quantized{Values: w, Code: CodeFP4, Shape: []uint64{1, 16}, Scale: sc, Global: gs})
	for i, c := range codes {
		assert.Equal(t, RoundTo(tensor.BF16, fp4[c]*(float32(1.25)/3)), got[i], "ct %d", i)
		assert.Equal(t, fp4[c]*(float32(1.25)*3), got2[i], "modelopt %d", i)
	}
}

// MLX's affine dequantize (mlx/ops.cpp): w·scales + biases, each op in
// the scales' dtype (BF16: rounded twice); 4-bit codes low bits first.
func TestMLXAffine(t *testing.T) {
	codes := []uint32{0, 15, 7, 8, 1, 2, 3, 4}
	var word uint32
	for i, c := range codes {
		word |= c << (4 * i)
	}
	w := testmodel.MemTensor("w.weight", tensor.U32, []uint64{1, 1}, u32s(word))
	sc := testmodel.MemTensor("w.scales", tensor.BF16, []uint64{1, 2}, bf16s(0.0123, -0.777))
	bi := testmodel.MemTensor("w.biases", tensor.BF16, []uint64{1, 2}, bf16s(-0.1, 5.5))
	got := decodeAll(t, Quantized{Values: w, Code: CodeInt, Bits: 4, Shape: []uint64{1, 8}, Scale: sc, Biases: bi, RoundMul: tensor.BF16, RoundAdd: tensor.BF16})
	s := []float32{RoundTo(tensor.BF16, 0.0123), RoundTo(tensor.BF16, -0.777)}
	bs := []float32{RoundTo(tensor.BF16, -0.1), 5.5}
	for i, c := range codes {
		g := i / 4
		want := RoundTo(tensor.BF16, RoundTo(tensor.BF16, float32(c)*s[g])+bs[g])
		assert.Equal(t, want, got[i], "%d", i)
	}
}

// MLX's mxfp8: the bytes of U32 words are E4M3 codes, times 2^(e−127).
func TestMLXMXFP8(t *testing.T) {
	w := testmodel.MemTensor("w.weight", tensor.U32, []uint64{1, 1}, []byte{0x38, 0x40, 0xB8, 0x00}) // 1, 2, -1, 0
	sc := testmodel.MemTensor("w.scales", tensor.U8, []uint64{1, 1}, []byte{128})
	got := decodeAll(t, Quantized{Values: w, Code: CodeElement, Shape: []uint64{1, 4}, Scale: sc, ScaleE8M0: true})
	assert.Equal(t, []float32{2, 4, -2, 0}, got)
}

func TestRoundTo(t *testing.T) {
	for _, c := range []struct {
		in   float32
		bf16 uint32
	}{
		{1, 0x3F800000},
		{math.Float32frombits(0x3F808000), 0x3F800000}, // a tie: to even
		{math.Float32frombits(0x3F818000), 0x3F820000}, // a tie: to even, up
		{math.Float32frombits(0x3F808001), 0x3F810000},
	} {
		assert.Equal(t, c.bf16, math.Float32bits(RoundTo(tensor.BF16, c.in)), "%x", math.Float32bits(c.in))
	}
	for _, v := range []float32{1, 0.1, 65504, 6e-5, -3.14159} {
		h := f32ToF16(v)
		var out [1]float32
		_, err := Float32(tensor.F16, []byte{byte(h), byte(h >> 8)}, out[:])
		require.NoError(t, err)
		assert.InEpsilon(t, v, out[0], 1e-3, "%v", v)
	}
}

func TestQuantizedRefusesBadLengths(t *testing.T) {
	w := testmodel.MemTensor("w.weight_packed", tensor.I32, []uint64{2, 1}, u32s(0, 0))
	one := testmodel.MemTensor("s", tensor.F32, []uint64{1}, f32s(1))
	_, err := NewQuantized(Quantized{Values: w, Code: CodeInt, Bits: 4, Signed: true, Shape: []uint64{2, 9}, Scale: one})
	var se *ShapeError
	require.ErrorAs(t, err, &se)
	_, err = NewQuantized(Quantized{Values: w, Code: CodeInt, Bits: 4, Shape: []uint64{2, 8}, Scale: testmodel.MemTensor("s", tensor.F32, []uint64{3, 1}, f32s(1, 1, 1))})
	require.ErrorAs(t, err, &se)
}

// A quantized weight scans like any other: statistics of its
// dequantized values, and the digest of its stored codes.
func TestScanQuantized(t *testing.T) {
	raw := u32s(0x8FEDCBA9, 0x01234567)
	w := testmodel.MemTensor("w.weight_packed", tensor.I32, []uint64{2, 1}, raw)
	sc := testmodel.MemTensor("w.weight_scale", tensor.F32, []uint64{2, 1}, f32s(0.5, 2))
	d, err := NewQuantized(Quantized{Values: w, Code: CodeInt, Bits: 4, Signed: true, Shape: []uint64{2, 8}, Scale: sc})
	require.NoError(t, err)
	s, err := d.Scan(t.Context(), &ScanOptions{SHA256: true, Workers: 2})
	require.NoError(t, err)
	assert.Equal(t, uint64(16), s.Count)
	assert.Equal(t, -16.0, s.Min)
	assert.Equal(t, 3.5, s.Max)
	sum := sha256.Sum256(raw)
	assert.Equal(t, sum[:], s.SHA256)
}

// Groups that do not divide the width (compressed-tensors' ceil): with
// Block given, input i is in group i/8 though 20 inputs make 3 groups;
// without it, the scale's shape alone would say 7 inputs a group.
func TestQuantizedPartialGroup(t *testing.T) {
	// 20 codes of 4 bits, all 1 (signed: 9), in 3 words.
	var words []uint32
	for range 3 {
		words = append(words, 0x99999999)
	}
	w := testmodel.MemTensor("w.weight_packed", tensor.I32, []uint64{1, 3}, u32s(words...))
	sc := testmodel.MemTensor("w.weight_scale", tensor.F32, []uint64{1, 3}, f32s(1, 10, 100))
	got := decodeAll(t, Quantized{Values: w, Code: CodeInt, Bits: 4, Signed: true, Shape: []uint64{1, 20}, Scale: sc, Block: [2]uint64{1, 8}})
	for i, v := range got {
		assert.Equal(t, []float32{1, 10, 100}[i/8], v, "%d", i)
	}
	// A block the scale does not tile is refused.
	_, err := NewQuantized(Quantized{Values: w, Code: CodeInt, Bits: 4, Signed: true, Shape: []uint64{1, 20}, Scale: sc, Block: [2]uint64{1, 4}})
	var se *ShapeError
	require.ErrorAs(t, err, &se)
}
