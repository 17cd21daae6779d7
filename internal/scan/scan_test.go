package scan_test

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/scan"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

func bf16s(vs ...float32) []byte {
	b := make([]byte, 2*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(math.Float32bits(v)>>16))
	}
	return b
}

// planted writes the tiny model with edits to named tensors' data.
func planted(t *testing.T, edit map[string]func(n int) []byte) *model.Model {
	t.Helper()
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			if f := edit[ts[i].Name]; f != nil {
				ts[i].Data = f(int(testmodel.NBytes(ts[i].DType, ts[i].Shape) / 2))
			}
		}
		return ts
	})
	m, err := model.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	return m
}

func TestScanClean(t *testing.T) {
	m, err := model.Open(filepath.Join("..", "..", "testdata", "tiny-qwen3"))
	require.NoError(t, err)
	defer m.Close()
	var calls atomic.Int64
	r, err := scan.Model(context.Background(), m, scan.Options{Progress: func(done, total int64) {
		calls.Add(1)
		assert.LessOrEqual(t, done, total)
	}})
	require.NoError(t, err)
	assert.False(t, r.Failed())
	assert.Len(t, r.Entries, 25)
	assert.Empty(t, r.Duplicates, "the tied head is not a duplicate")
	assert.Positive(t, calls.Load())
	assert.Contains(t, r.Text(), "✓ 25 tensors scanned: 0 bad, 0 warnings, 0 not decoded")
}

func TestScanPlanted(t *testing.T) {
	m := planted(t, map[string]func(int) []byte{
		"model.layers.0.self_attn.q_proj.weight": func(n int) []byte {
			vs := make([]float32, n)
			for i := range vs {
				vs[i] = float32(i%7) - 3
			}
			vs[5] = float32(math.NaN())
			return bf16s(vs...)
		},
		"model.layers.1.mlp.down_proj.weight": func(n int) []byte {
			vs := make([]float32, n)
			vs[0] = float32(math.Inf(-1))
			return bf16s(vs...)
		},
		"model.layers.1.input_layernorm.weight":          func(n int) []byte { return make([]byte, 2*n) },
		"model.layers.0.input_layernorm.weight":          func(n int) []byte { return bf16s(repeat(1, n)...) },
		"model.layers.0.post_attention_layernorm.weight": func(n int) []byte { return bf16s(ramp(n)...) },
		"model.layers.1.post_attention_layernorm.weight": func(n int) []byte { return bf16s(ramp(n)...) },
	})
	r, err := scan.Model(context.Background(), m, scan.Options{Workers: 2})
	require.NoError(t, err)
	assert.True(t, r.Failed())
	health := map[string]decode.Health{}
	for _, e := range r.Entries {
		require.NoError(t, e.Err, e.Name)
		health[e.Name] = e.Stats.Health()
	}
	assert.Equal(t, decode.HealthNaN, health["model.layers.0.self_attn.q_proj.weight"])
	assert.Equal(t, decode.HealthInf, health["model.layers.1.mlp.down_proj.weight"])
	assert.Equal(t, decode.HealthZero, health["model.layers.1.input_layernorm.weight"])
	assert.Equal(t, decode.HealthConstant, health["model.layers.0.input_layernorm.weight"])
	assert.Equal(t, [][]string{{"model.layers.0.post_attention_layernorm.weight", "model.layers.1.post_attention_layernorm.weight"}}, r.Duplicates)
	text := r.Text()
	for _, want := range []string{
		"✗ nan: model.layers.0.self_attn.q_proj.weight holds 1 NaN, 0 +Inf, 0 -Inf in 2,048 values",
		"✗ inf: model.layers.1.mlp.down_proj.weight holds 0 NaN, 0 +Inf, 1 -Inf in 2,048 values",
		"✗ zero: every one of the 32 values of model.layers.1.input_layernorm.weight is zero",
		"! constant: every one of the 32 values of model.layers.0.input_layernorm.weight is 1",
		"! duplicate: model.layers.0.post_attention_layernorm.weight = model.layers.1.post_attention_layernorm.weight are byte-identical",
		"✗ 25 tensors scanned: 3 bad, 2 warnings, 0 not decoded",
	} {
		assert.Contains(t, text, want)
	}
	assert.True(t, strings.HasPrefix(text, "── values ─"))
	j, err := json.Marshal(r.JSON())
	require.NoError(t, err)
	assert.Contains(t, string(j), `"failed":true`)
	assert.Contains(t, string(j), `"health":"nan"`)
}

func repeat(v float32, n int) []float32 {
	vs := make([]float32, n)
	for i := range vs {
		vs[i] = v
	}
	return vs
}

func ramp(n int) []float32 {
	vs := make([]float32, n)
	for i := range vs {
		vs[i] = float32(i) / 8
	}
	return vs
}
