package compare_test

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/compare"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestQuantizationError compares a compressed-tensors W4A16 (per
// channel, symmetric) quantization of the tiny model's q_proj with the
// model itself: the quantized weight pairs with the base's by name, and
// its relative error and SNR are the ones computed here from the codes
// and scales written (round-to-nearest 4-bit, BF16 scales and products).
func TestQuantizationError(t *testing.T) {
	const name = "model.layers.0.self_attn.q_proj"
	base := tiny()
	w := find(base, name+".weight")
	require.NotNil(t, w)
	o, in := w.Shape[0], w.Shape[1]
	vals := bf16s(w.Data)
	packed := make([]byte, 4*o*in/8)
	scales := make([]float32, o)
	deq := make([]float64, len(vals))
	rb := func(x float64) float64 { return bf16s(toBF16([]float32{float32(x)}))[0] }
	for r := range o {
		var amax float64
		for i := range in {
			amax = max(amax, math.Abs(vals[r*in+i]))
		}
		s := rb(amax / 7)
		scales[r] = float32(s)
		for i := range in {
			q := math.Max(-8, math.Min(7, math.RoundToEven(vals[r*in+i]/s)))
			k := 4 * (r*in/8 + i/8)
			word := binary.LittleEndian.Uint32(packed[k:]) | uint32(int(q)+8)<<(4*(i%8))
			binary.LittleEndian.PutUint32(packed[k:], word)
			deq[r*in+i] = rb(q * s)
		}
	}
	var nb, nd float64
	for i := range vals {
		nb += vals[i] * vals[i]
		nd += (deq[i] - vals[i]) * (deq[i] - vals[i])
	}
	wantRel := math.Sqrt(nd) / math.Sqrt(nb)
	shape := make([]byte, 16)
	binary.LittleEndian.PutUint64(shape, o)
	binary.LittleEndian.PutUint64(shape[8:], in)
	quant := without(tiny(), name+".weight")
	quant = append(quant,
		testmodel.Tensor{Name: name + ".weight_packed", DType: "I32", Shape: []uint64{o, in / 8}, Data: packed},
		testmodel.Tensor{Name: name + ".weight_scale", DType: "BF16", Shape: []uint64{o, 1}, Data: toBF16(scales)},
		testmodel.Tensor{Name: name + ".weight_shape", DType: "I64", Shape: []uint64{2}, Data: shape})
	cfg := strings.Replace(testmodel.TinyQwen3Config, `"model_type"`, `"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
		"config_groups": {"g": {"targets": ["re:.*q_proj$"], "weights": {"num_bits": 4, "type": "int", "strategy": "channel", "symmetric": true}}}}, "model_type"`, 1)
	r := runCfg(t, testmodel.TinyQwen3Config, base, cfg, quant, nil)
	var e *compare.Entry
	for i := range r.Entries {
		if r.Entries[i].Name == name+".weight" {
			e = &r.Entries[i]
		}
	}
	require.NotNil(t, e)
	assert.Equal(t, compare.Differs, e.Status, e.Err)
	assert.Contains(t, e.ModelValues, "weight_packed")
	assert.Equal(t, []uint64{o, in}, e.ModelShape)
	assert.InEpsilon(t, wantRel, float64(e.RelL2), 1e-9)
	assert.InEpsilon(t, -20*math.Log10(wantRel), float64(e.SNR), 1e-9)
	assert.ElementsMatch(t, []string{name + ".weight_scale", name + ".weight_shape"}, r.AuxModel)

	// The text report (the mount's compare/summary) gives the SNR in its
	// row, as the lowest of its layer and of all.
	snr := strconv.FormatFloat(-20*math.Log10(wantRel), 'f', 2, 64)
	text := r.Text()
	var row string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, name+".weight ") {
			row = l
		}
	}
	assert.Contains(t, row, " +"+snr+" ")
	assert.Contains(t, text, "[layer 0] 11 tensors, min snr_db +"+snr)
	assert.Contains(t, text, "errors; min snr_db +"+snr)
}

// TestUnmodelledQuantizationNotCompared: int8 codes beside a
// weight_scale or an SCB under a quantization the rules do not model are
// an error entry naming the companion (views.Companions says so, the one
// place that decides), never compared as if the codes were values.
func TestUnmodelledQuantizationNotCompared(t *testing.T) {
	const name = "model.layers.0.self_attn.q_proj"
	base := tiny()
	w := find(base, name+".weight")
	o, in := w.Shape[0], w.Shape[1]
	for _, comp := range []string{".weight_scale", ".SCB"} {
		quant := without(tiny(), name+".weight")
		quant = append(quant,
			testmodel.Tensor{Name: name + ".weight", DType: "I8", Shape: []uint64{o, in}, Data: make([]byte, o*in)},
			testmodel.Tensor{Name: name + comp, DType: "F32", Shape: []uint64{o}, Data: make([]byte, 4*o)})
		cfg := strings.Replace(testmodel.TinyQwen3Config, `"model_type"`, `"quantization_config": {"quant_method": "bogus"}, "model_type"`, 1)
		r := runCfg(t, testmodel.TinyQwen3Config, base, cfg, quant, nil)
		var e *compare.Entry
		for i := range r.Entries {
			if r.Entries[i].Name == name+".weight" {
				e = &r.Entries[i]
			}
		}
		require.NotNil(t, e, comp)
		assert.Equal(t, compare.Error, e.Status, comp)
		assert.Contains(t, e.Err, name+comp+" of a quantization whose decoding is not modelled", comp)
	}
}
