package views

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

func lookupOf(ts ...*tensor.Tensor) func(string) *tensor.Tensor {
	m := map[string]*tensor.Tensor{}
	for _, t := range ts {
		m[t.Name] = t
	}
	return func(n string) *tensor.Tensor { return m[n] }
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func bf16Bytes(vs []float32) []byte {
	b := make([]byte, 2*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(decode.RoundTo(tensor.BF16, v))>>16))
	}
	return b
}

func readF32(t *testing.T, v *Tensor) []float32 {
	t.Helper()
	b := testmodel.ReadView(t, "values.f32", v.ValuesF32())
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// A compressed-tensors W4A16 weight whose width (20) the packing pads
// (3 words a row hold 24 codes): weight_shape gives the width, the
// group of 8 its scales; the views show the dequantized [6, 20] weight
// under base.weight, as compressed-tensors' decompress computes it.
func TestCompanionsCTPacked(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const o, in, g = 6, 20, 8
	packed := testmodel.MemTensor("l.weight_packed", tensor.I32, []uint64{o, 3}, randomBytes(r, o*3*4))
	scales := make([]float32, o*3)
	for i := range scales {
		scales[i] = r.Float32() - 0.5
	}
	sc := testmodel.MemTensor("l.weight_scale", tensor.BF16, []uint64{o, 3}, bf16Bytes(scales))
	ws := make([]byte, 16)
	binary.LittleEndian.PutUint64(ws, o)
	binary.LittleEndian.PutUint64(ws[8:], in)
	shape := testmodel.MemTensor("l.weight_shape", tensor.I64, []uint64{2}, ws)
	config := []byte(`{"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
		"config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 8, "symmetric": true}}}}}`)
	c := NewCompanions(lookupOf(packed, sc, shape), config)
	w, err := c.Weight(packed)
	require.NoError(t, err)
	require.NotNil(t, w)
	assert.Equal(t, "l.weight", w.Name)
	assert.Equal(t, []uint64{o, in}, w.Decoder.Shape())
	assert.True(t, c.Aux("l.weight_scale"))
	assert.True(t, c.Aux("l.weight_shape"))
	assert.False(t, c.Aux("l.weight_packed"))

	got := readF32(t, NewTensor(packed, c.Options(packed)))
	raw := packed.File.(*testmodel.MemFile).B[3:]
	for row := range o {
		for i := range in {
			word := binary.LittleEndian.Uint32(raw[(row*3+i/8)*4:])
			q := float32(int32(word>>(4*(i%8))&15) - 8)
			s := decode.RoundTo(tensor.BF16, scales[row*3+i/g])
			assert.Equal(t, decode.RoundTo(tensor.BF16, q*s), got[row*in+i], "[%d, %d]", row, i)
		}
	}
}

// An MLX affine 4-bit weight: w·scales + biases, rounded in BF16 after
// each step, from codes low bits first.
func TestCompanionsMLXAffine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const o, in, g = 4, 64, 32
	w := testmodel.MemTensor("m.weight", tensor.U32, []uint64{o, in / 8}, randomBytes(r, o*in/2))
	f := func() []float32 {
		v := make([]float32, o*in/g)
		for i := range v {
			v[i] = r.Float32()*2 - 1
		}
		return v
	}
	scales, biases := f(), f()
	sc := testmodel.MemTensor("m.scales", tensor.BF16, []uint64{o, in / g}, bf16Bytes(scales))
	bi := testmodel.MemTensor("m.biases", tensor.BF16, []uint64{o, in / g}, bf16Bytes(biases))
	c := NewCompanions(lookupOf(w, sc, bi), []byte(`{"quantization": {"group_size": 32, "bits": 4}}`))
	got := readF32(t, NewTensor(w, c.Options(w)))
	require.Len(t, got, o*in)
	raw := w.File.(*testmodel.MemFile).B[3:]
	rb := func(x float32) float32 { return decode.RoundTo(tensor.BF16, x) }
	for row := range o {
		for i := range in {
			word := binary.LittleEndian.Uint32(raw[(row*in/8+i/8)*4:])
			q := float32(word >> (4 * (i % 8)) & 15)
			k := row*in/g + i/g
			assert.Equal(t, rb(rb(q*rb(scales[k]))+rb(biases[k])), got[row*in+i], "[%d, %d]", row, i)
		}
	}
}

// A ModelOpt NVFP4 weight found from hf_quant_config.json alone (an
// export whose config.json has no quantization_config): FP4 pairs times
// the FP8 block scale times weight_scale_2.
func TestCompanionsModelOptFile(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const o, in = 2, 32
	w := testmodel.MemTensor("n.weight", tensor.U8, []uint64{o, in / 2}, randomBytes(r, o*in/2))
	sc := testmodel.MemTensor("n.weight_scale", tensor.F8_E4M3, []uint64{o, 2}, []byte{0x38, 0x40, 0x30, 0xB8})
	s2 := testmodel.MemTensor("n.weight_scale_2", tensor.F32, []uint64{}, binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.25)))
	is := testmodel.MemTensor("n.input_scale", tensor.F32, []uint64{}, binary.LittleEndian.AppendUint32(nil, math.Float32bits(1)))
	hf := []byte(`{"producer": {"name": "modelopt"}, "quantization": {"quant_algo": "NVFP4", "group_size": 16, "exclude_modules": ["lm_head"]}}`)
	c := NewCompanionsFiles(lookupOf(w, sc, s2, is), []byte(`{"model_type": "llama"}`), func(name string) ([]byte, error) {
		if name == "hf_quant_config.json" {
			return hf, nil
		}
		return nil, assert.AnError
	})
	got := readF32(t, NewTensor(w, c.Options(w)))
	require.Len(t, got, o*in)
	lut := [16]float32{0, 0.5, 1, 1.5, 2, 3, 4, 6, 0, -0.5, -1, -1.5, -2, -3, -4, -6}
	scales := []float32{1, 2, 0.5, -1}
	raw := w.File.(*testmodel.MemFile).B[3:]
	for row := range o {
		for i := range in {
			b := raw[row*in/2+i/2]
			if i%2 == 1 {
				b >>= 4
			}
			assert.Equal(t, lut[b&15]*(scales[row*2+i/16]*0.25), got[row*in+i], "[%d, %d]", row, i)
		}
	}
}

// A method the rules do not model leaves the codes as they are.
func TestCompanionsUnknownMethod(t *testing.T) {
	w := testmodel.MemTensor("x.weight_packed", tensor.I32, []uint64{1, 1}, make([]byte, 4))
	sc := testmodel.MemTensor("x.weight_scale", tensor.BF16, []uint64{1, 1}, make([]byte, 2))
	c := NewCompanions(lookupOf(w, sc), []byte(`{"quantization_config": {"quant_method": "bogus"}}`))
	d, err := c.Weight(w)
	assert.NoError(t, err)
	assert.Nil(t, d)
	assert.False(t, c.Aux("x.weight_scale"))
}
