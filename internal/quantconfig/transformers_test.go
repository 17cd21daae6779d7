package quantconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/tensor"
)

// TestTransformersHead: transformers 5 converts the output head of these
// quantizers unless the skip list names it (quantizers_utils.py
// should_convert_module): a head quantized is then expected, and one
// stored unquantized is still accepted; a head the list names is not
// quantized.
func TestTransformersHead(t *testing.T) {
	head := Weight{Name: "lm_head.weight", Kind: Head, Shape: []uint64{1000, 64}}
	r, err := Load([]byte(`{"quantization_config": {"quant_method": "higgs", "bits": 4, "group_size": 32, "modules_to_not_convert": []}}`), nil)
	require.NoError(t, err)
	f, _ := r.Expect(head)
	require.NotNil(t, f)
	quantized := map[string]*tensor.Tensor{
		"lm_head.weight":  {Name: "lm_head.weight", DType: tensor.I16, Shape: []uint64{250, 64}},
		"lm_head.scales":  {Name: "lm_head.scales", DType: tensor.BF16, Shape: []uint64{1000, 2}},
		"lm_head.tables":  {Name: "lm_head.tables", DType: tensor.BF16, Shape: []uint64{16}},
		"lm_head.tables2": {Name: "lm_head.tables2", DType: tensor.BF16, Shape: []uint64{16, 16, 2}},
	}
	res := Resolve(head, f, func(n string) *tensor.Tensor { return quantized[n] })
	assert.True(t, res.Quantized)
	assert.Empty(t, res.Findings)
	plain := &tensor.Tensor{Name: "lm_head.weight", DType: tensor.BF16, Shape: []uint64{1000, 64}}
	res = Resolve(head, f, func(n string) *tensor.Tensor {
		if n == plain.Name {
			return plain
		}
		return nil
	})
	assert.False(t, res.Quantized)

	r, err = Load([]byte(`{"quantization_config": {"quant_method": "higgs", "bits": 4, "group_size": 32}}`), nil)
	require.NoError(t, err)
	f, why := r.Expect(head)
	assert.Nil(t, f)
	assert.Equal(t, "modules_to_not_convert", why)
}
