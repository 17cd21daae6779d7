package views

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/fsmount/fsmount/tensor"
)

// TestCompanionsFP8: an F8_E4M3 weight with a weight_scale_inv and a
// weight_block_size in quantization_config decodes dequantized (each
// 2×2 block times its scale); other tensors have no companions.
func TestCompanionsFP8(t *testing.T) {
	// E4M3 0x38 is 1.0, 0x40 is 2.0.
	w := memTensor("m.w.weight", tensor.F8_E4M3, []uint64{2, 4}, []byte{0x38, 0x38, 0x40, 0x40, 0x38, 0x38, 0x40, 0x40})
	scales := make([]byte, 8)
	binary.LittleEndian.PutUint32(scales, math.Float32bits(0.5))
	binary.LittleEndian.PutUint32(scales[4:], math.Float32bits(3))
	s := memTensor("m.w.weight_scale_inv", tensor.F32, []uint64{1, 2}, scales)
	byName := map[string]*tensor.Tensor{w.Name: w, s.Name: s}
	c := NewCompanions(func(n string) *tensor.Tensor { return byName[n] }, []byte(`{"quantization_config":{"quant_method":"fp8","weight_block_size":[2,2]}}`))
	o := c.Options(w)
	if o == nil || o.Scale != s || o.Block != [2]uint64{2, 2} {
		t.Fatalf("options %+v", o)
	}
	got := readWhole(t, "values.f32", NewTensor(w, o).ValuesF32())
	want := []float32{0.5, 0.5, 6, 6, 0.5, 0.5, 6, 6}
	for i, v := range want {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != v {
			t.Errorf("element %d: %v, want %v", i, g, v)
		}
	}
	if c.Options(s) != nil {
		t.Error("the scale has companions")
	}
	// Without weight_block_size, the block quantconfig infers from the
	// scale's grid (as compare does): 128 along the rows, where one
	// scale row fits, 2 along the columns, where 2 scales cover 4; the
	// values are the same.
	c = NewCompanions(func(n string) *tensor.Tensor { return byName[n] }, nil)
	o = c.Options(w)
	if o == nil || o.Block != [2]uint64{128, 2} {
		t.Fatalf("inferred block: %+v", o)
	}
	got = readWhole(t, "values.f32", NewTensor(w, o).ValuesF32())
	for i, v := range want {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != v {
			t.Errorf("inferred block, element %d: %v, want %v", i, g, v)
		}
	}
	var nilC *Companions
	if nilC.Options(w) != nil {
		t.Error("nil Companions")
	}
}
