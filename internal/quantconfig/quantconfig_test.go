package quantconfig

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/tensor"
)

func TestParse(t *testing.T) {
	for _, c := range []struct {
		config string
		want   Config
		bad    bool
	}{
		{``, Config{}, false},
		{`{"model_type": "qwen3"}`, Config{}, false},
		{`{"quantization_config": null}`, Config{}, false},
		{`{"quantization_config": {}}`, Config{Method: "quantized", GroupSize: -1}, false},
		{`{"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 64]}}`, Config{Method: "fp8", GroupSize: -1, Block: [2]uint64{128, 64}}, false},
		{`{"quantization_config": {"quant_method": "gptq"}}`, Config{Method: "gptq", Bits: 4, GroupSize: -1}, false},
		{`{"quantization_config": {"quant_method": "gptq", "bits": 8, "group_size": 128, "checkpoint_format": "gptq_v2"}}`, Config{Method: "gptq", Bits: 8, GroupSize: 128, Format: "gptq_v2"}, false},
		{`{"quantization_config": {"quant_method": "awq", "bits": 5}}`, Config{Method: "awq", Bits: 4, GroupSize: -1}, true},
		{`{"quantization_config": {"quant_method": "awq", "bits": "four"}}`, Config{Method: "awq", Bits: 4, GroupSize: -1}, true},
	} {
		got, err := Parse([]byte(c.config))
		assert.Equal(t, c.want, got, c.config)
		assert.Equal(t, c.bad, err != nil, "%s: %v", c.config, err)
	}
}

func TestFP8Block(t *testing.T) {
	w := &tensor.Tensor{Shape: []uint64{256, 300}}
	for _, c := range []struct {
		block [2]uint64
		scale []uint64
		want  [2]uint64
	}{
		{[2]uint64{64, 64}, []uint64{1, 1}, [2]uint64{64, 64}}, // the config wins
		{[2]uint64{}, []uint64{2, 3}, [2]uint64{128, 128}},     // DeepSeek's grid
		{[2]uint64{}, []uint64{4, 5}, [2]uint64{64, 60}},       // inferred from the grid
		{[2]uint64{}, []uint64{4}, [2]uint64{128, 128}},        // not a grid: 128
	} {
		got := Config{Block: c.block}.FP8Block(w, &tensor.Tensor{Shape: c.scale})
		require.Equal(t, c.want, got, "%v %v", c.block, c.scale)
	}
}
