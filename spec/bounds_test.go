package spec_test

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

// TestAbsurdDimensions: a small config that asks for an enormous expected
// set is refused at once, with a ConfigError naming the field and the
// bound, instead of taking seconds and gigabytes.
func TestAbsurdDimensions(t *testing.T) {
	const dense = `"architectures":["Qwen3ForCausalLM"],"model_type":"qwen3","vocab_size":128,"hidden_size":32,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":64,"tie_word_embeddings":true,"torch_dtype":"bfloat16"`
	const moe = `"architectures":["Qwen3MoeForCausalLM"],"model_type":"qwen3_moe","vocab_size":128,"hidden_size":32,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":64,"moe_intermediate_size":16,
		"num_experts_per_tok":2,"tie_word_embeddings":true,"torch_dtype":"bfloat16"`
	for _, c := range []struct {
		name, config, field, msg string
	}{
		{"262144 layers", `{` + dense + `,"num_hidden_layers":262144}`, "num_hidden_layers",
			`field "num_hidden_layers" is 262144, more than the 1024 layers fsmount accepts`},
		{"100000 experts", `{` + moe + `,"num_hidden_layers":2,"num_experts":100000}`, "num_experts",
			`field "num_experts" is 100000, more than the 4096 experts fsmount accepts`},
		{"set above MaxExpected", `{` + moe + `,"num_hidden_layers":1024,"num_experts":4096}`, "num_experts",
			"1024 layers of 4096 experts imply up to 12,599,300 tensors, more than the 1,048,576 fsmount accepts"},
		{"set far above the files", `{` + moe + `,"num_hidden_layers":1000,"num_experts":300}`, "num_experts",
			"1000 layers of 300 experts imply up to 916,004 tensors, the files hold 25"},
		{"dense set above the files", `{` + dense + `,"num_hidden_layers":1000}`, "num_hidden_layers",
			"1000 layers imply up to 15,004 tensors, the files hold 25"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := testmodel.TinyDir(t, nil)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(c.config), 0o644))
			m, err := model.Open(dir)
			require.NoError(t, err)
			defer m.Close()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = spec.Check(m)
			runtime.ReadMemStats(&after)
			var ce *spec.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, c.field, ce.Field)
			assert.Contains(t, err.Error(), c.msg)
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated")
		})
	}
}

// TestBoundsAdmitRealModels: the real sharded checkpoints, the largest
// expected sets we have, are within the bounds (TestRealShardedIndexes
// checks them whole); here a plan as large as Kimi-K2's is accepted.
func TestBoundsAdmitRealModels(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["Qwen3MoeForCausalLM"],"vocab_size":16,"hidden_size":8,
		"num_hidden_layers":61,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12,
		"num_experts":384,"moe_intermediate_size":4,"num_experts_per_tok":8}`))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	assert.Greater(t, len(p.Tensors), 70_000)
	assert.True(t, strings.HasPrefix(p.Tensors[0].Name, "model."))
}
