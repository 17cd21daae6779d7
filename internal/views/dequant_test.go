package views

import (
	"encoding/binary"
	"math"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

func f32Bytes(bits []uint32) []byte {
	b := make([]byte, 4*len(bits))
	for i, x := range bits {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
	return b
}

func bf16FromBits(bits []uint32) []byte {
	b := make([]byte, 2*len(bits))
	for i, x := range bits {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(x>>16))
	}
	return b
}

// decodeAll is the values of the weight the stored tensor tt holds, as
// Companions decodes it, with its logical name and shape.
func decodeAll(t *testing.T, c *Companions, tt *tensor.Tensor, name string, shape []uint64) []uint32 {
	t.Helper()
	w, err := c.Weight(tt)
	require.NoError(t, err)
	require.NotNil(t, w, tt.Name)
	assert.Equal(t, name, w.Name)
	assert.Equal(t, shape, w.Decoder.Shape())
	got := make([]float32, w.Decoder.Len())
	require.NoError(t, w.Decoder.Float32(0, got))
	// And from an offset not on a row, a block or a slab.
	part := make([]float32, len(got)-7)
	require.NoError(t, w.Decoder.Float32(7, part))
	assert.Equal(t, got[7:], part)
	out := make([]uint32, len(got))
	for i, v := range got {
		out[i] = math.Float32bits(v)
	}
	return out
}

// TestDequantLibraries: the values of a bitsandbytes NF4 (double
// quant), FP4 and int8 weight, a ModelOpt INT4_AWQ weight and a GPT-OSS
// MXFP4 expert stack are bit for bit those each library computes, on
// literal vectors (testdata/dequant_vectors.py computes them with torch
// as the library does: bitsandbytes' kDequantizeBlockwise and
// int8_vectorwise_dequant, ModelOpt's pack_int4_in_uint8 inverted and
// scaled in bf16, transformers' convert_moe_packed_tensors).
func TestDequantLibraries(t *testing.T) {
	mem := testmodel.MemTensor
	t.Run("bitsandbytes nf4 double quant", func(t *testing.T) {
		state := []byte(`{"quant_type": "nf4", "absmax": null, "blocksize": 32, "quant_map": null, "dtype": "bfloat16", "shape": [6, 20], "nested_blocksize": 256, "nested_quant_map": null, "nested_absmax": null, "nested_dtype": "float32", "nested_offset": ` + formatF32(nf4Offset) + `}`)
		nf4 := []float32{-1.0, -0.6961928009986877, -0.5250730514526367, -0.39491748809814453, -0.28444138169288635, -0.18477343022823334, -0.09105003625154495, 0.0, 0.07958029955625534, 0.16093020141124725, 0.24611230194568634, 0.33791524171829224, 0.44070982933044434, 0.5626170039176941, 0.7229568362236023, 1.0}
		var nf4Bits []uint32
		for _, v := range nf4 {
			nf4Bits = append(nf4Bits, math.Float32bits(v))
		}
		w := mem("l.weight", tensor.U8, []uint64{60, 1}, nf4Packed)
		ts := []*tensor.Tensor{w,
			mem("l.weight.absmax", tensor.U8, []uint64{4}, nf4Absmax),
			mem("l.weight.quant_map", tensor.F32, []uint64{16}, f32Bytes(nf4Bits)),
			mem("l.weight.nested_absmax", tensor.F32, []uint64{1}, f32Bytes([]uint32{nf4NAbs})),
			mem("l.weight.nested_quant_map", tensor.F32, []uint64{256}, f32Bytes(nf4NQM)),
			mem("l.weight.quant_state.bitsandbytes__nf4", tensor.U8, []uint64{uint64(len(state))}, state)}
		c := NewCompanions(lookupOf(ts...), []byte(`{"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true}}`))
		assert.Equal(t, nf4Want, decodeAll(t, c, w, "l.weight", []uint64{6, 20}))
		assert.True(t, c.Aux("l.weight.absmax"))
		// The same bytes saved as bnb_4bit_quant_storage bfloat16
		// (FSDP QLoRA) decode alike.
		ts[0] = mem("l.weight", tensor.BF16, []uint64{30, 1}, nf4Packed)
		c = NewCompanions(lookupOf(ts...), []byte(`{"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true, "bnb_4bit_quant_storage": "bfloat16"}}`))
		assert.Equal(t, nf4Want, decodeAll(t, c, ts[0], "l.weight", []uint64{6, 20}))
	})
	t.Run("bitsandbytes fp4", func(t *testing.T) {
		state := []byte(`{"quant_type": "fp4", "blocksize": 16, "dtype": "float16", "shape": [4, 12]}`)
		w := mem("l.weight", tensor.U8, []uint64{24, 1}, fp4Packed)
		ts := []*tensor.Tensor{w,
			mem("l.weight.absmax", tensor.F32, []uint64{3}, f32Bytes(fp4Absmax[:3])),
			mem("l.weight.quant_map", tensor.F32, []uint64{16}, f32Bytes(fp4Map)),
			mem("l.weight.quant_state.bitsandbytes__fp4", tensor.U8, []uint64{uint64(len(state))}, state)}
		c := NewCompanions(lookupOf(ts...), []byte(`{"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "fp4"}}`))
		assert.Equal(t, fp4Want, decodeAll(t, c, w, "l.weight", []uint64{4, 12}))
		// A quant state whose shape the codes do not hold is named.
		bad := []byte(`{"quant_type": "fp4", "blocksize": 16, "dtype": "float16", "shape": [4, 14]}`)
		ts[3] = mem("l.weight.quant_state.bitsandbytes__fp4", tensor.U8, []uint64{uint64(len(bad))}, bad)
		_, err := NewCompanions(lookupOf(ts...), []byte(`{"quantization_config": {"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "fp4"}}`)).Weight(w)
		assert.ErrorContains(t, err, "l.weight.quant_state.bitsandbytes__fp4 says [4, 14]")
	})
	t.Run("bitsandbytes int8", func(t *testing.T) {
		cb := make([]byte, len(int8CB))
		for i, v := range int8CB {
			cb[i] = byte(v)
		}
		w := mem("l.weight", tensor.I8, []uint64{5, 7}, cb)
		ts := []*tensor.Tensor{w, mem("l.SCB", tensor.F32, []uint64{5}, f32Bytes(int8SCB))}
		c := NewCompanions(lookupOf(ts...), []byte(`{"quantization_config": {"quant_method": "bitsandbytes", "load_in_8bit": true}}`))
		assert.Equal(t, int8Want, decodeAll(t, c, w, "l.weight", []uint64{5, 7}))
	})
	t.Run("ModelOpt INT4_AWQ", func(t *testing.T) {
		w := mem("l.weight", tensor.U8, []uint64{3, 64}, awqPacked)
		ts := []*tensor.Tensor{w,
			mem("l.weight_scale", tensor.BF16, []uint64{6, 2}, bf16FromBits(awqScale)),
			mem("l.pre_quant_scale", tensor.BF16, []uint64{64}, bf16FromBits(awqPQS))}
		c := NewCompanions(lookupOf(ts...), []byte(`{"quantization_config": {"quant_method": "modelopt", "quant_algo": "INT4_AWQ", "group_size": 32}}`))
		assert.Equal(t, awqWant, decodeAll(t, c, w, "l.weight", []uint64{6, 64}))
		assert.True(t, c.Aux("l.pre_quant_scale"))
	})
	t.Run("GPT-OSS MXFP4 experts", func(t *testing.T) {
		b := mem("m.experts.gate_up_proj_blocks", tensor.U8, []uint64{2, 3, 2, 16}, mxBlocks)
		ts := []*tensor.Tensor{b, mem("m.experts.gate_up_proj_scales", tensor.U8, []uint64{2, 3, 2}, mxScales)}
		c := NewCompanions(lookupOf(ts...), []byte(`{"quantization_config": {"quant_method": "mxfp4"}}`))
		assert.Equal(t, mxWant, decodeAll(t, c, b, "m.experts.gate_up_proj", []uint64{2, 64, 3}))
		assert.True(t, c.Aux("m.experts.gate_up_proj_scales"))
	})
}

// formatF32 is a float32 as the JSON of bitsandbytes' quant state
// writes it (a Python float: the float32's exact double).
func formatF32(bits uint32) string {
	return strconv.FormatFloat(float64(math.Float32frombits(bits)), 'g', -1, 64)
}
