package spec_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestJSONEmptyListsAreLists: a model with no tensors (an empty header)
// and no config gives [] for every list, never null.
func TestJSONEmptyListsAreLists(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteModelDir(dir, "", nil))
	require.NoError(t, os.Remove(filepath.Join(dir, "config.json")))
	r := check(t, dir)
	var j map[string]any
	require.NoError(t, json.Unmarshal(r.JSON(), &j))
	for _, k := range []string{"files", "dimensions", "problems", "notes", "warnings", "tensor_list"} {
		assert.NotNil(t, j[k], k)
		assert.IsType(t, []any{}, j[k], k)
	}
	assert.Len(t, j["files"], 1)
	assert.Empty(t, j["tensor_list"])

	// A single-file check with no tensors at all.
	r = check(t, filepath.Join(dir, "model.safetensors"))
	require.NoError(t, json.Unmarshal(r.JSON(), &j))
	assert.IsType(t, []any{}, j["tensor_list"])
}

// TestJSONProblemFields gives each kind of problem its structured fields.
func TestJSONProblemFields(t *testing.T) {
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		i := find(ts, "model.layers.1.self_attn.q_proj.weight")
		ts[i].Shape, ts[i].Data = []uint64{64, 31}, nil
		i = find(ts, "model.norm.weight")
		ts[i].DType, ts[i].Data = "F32", nil
		i = find(ts, "model.layers.0.mlp.up_proj.weight")
		ts = append(ts[:i], ts[i+1:]...)
		return append(ts, testmodel.Tensor{Name: "extra", DType: "BF16", Shape: []uint64{}})
	})
	r := check(t, dir)
	var j struct {
		Problems []map[string]any `json:"problems"`
	}
	require.NoError(t, json.Unmarshal(r.JSON(), &j))
	byKind := map[string]map[string]any{}
	for _, p := range j.Problems {
		byKind[p["kind"].(string)] = p
	}
	require.Len(t, byKind, 4)
	roundTrip := func(v any) any {
		b, _ := json.Marshal(v)
		var out any
		json.Unmarshal(b, &out)
		return out
	}
	m := byKind["missing"]
	assert.Equal(t, "model.layers.0.mlp.up_proj.weight", m["tensor"])
	assert.Equal(t, roundTrip(map[string]any{"shape": []int{64, 32}, "symbols": []string{"I", "H"}}), m["expected"])
	assert.NotContains(t, m, "shape")

	m = byKind["mis-shaped"]
	assert.Equal(t, roundTrip(map[string]any{"shape": []int{64, 32}, "symbols": []string{"heads·d", "H"}}), m["expected"])
	assert.Equal(t, roundTrip([]int{64, 31}), m["shape"])
	assert.Equal(t, roundTrip([]map[string]any{{"index": 1, "symbol": "H", "expected": 32, "actual": 31}}), m["mismatches"])

	m = byKind["dtype"]
	assert.Equal(t, "model.norm.weight", m["tensor"])
	assert.Equal(t, "F32", m["dtype"])
	assert.Equal(t, "BF16", m["expected_dtype"])

	m = byKind["unexpected"]
	assert.Equal(t, "extra", m["tensor"])
	assert.Equal(t, []any{}, m["shape"], "a scalar's shape is [], not absent")
	assert.Equal(t, "BF16", m["dtype"])
}
