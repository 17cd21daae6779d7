package adapter_test

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/tensor"
)

// wujindou's BLOOM-560m LoRA, written by PEFT 0.2 with enable_lora
// [true, false, true] on the fused query_key_value (a MergedLinear):
// lora_A [16, 1024] (2·r, in) and lora_B [2048, 8, 1] (a Conv1d of two
// groups, 2·out/3, 2·r/2). It used to fail with 24 "mis-shaped".
func TestRealMergedLinear(t *testing.T) {
	dir := realDir(t, "wujindou")
	for _, base := range []string{"header-only", "alone"} {
		t.Run(base, func(t *testing.T) {
			b := ""
			if base != "alone" {
				b = headerBase(t, testmodel.BloomConfig, testmodel.BloomTensors())
			}
			r := checkAdapter(t, dir, b)
			require.Empty(t, problemNames(r), r.Text())
			require.Len(t, r.Modules, 24)
			m := r.Module("transformer.h.3.self_attention.query_key_value")
			require.NotNil(t, m)
			assert.Equal(t, []bool{true, false, true}, m.Enable)
			assert.Equal(t, []uint64{16, 1024}, m.A.Shape)
			assert.Equal(t, []uint64{2048, 8, 1}, m.B.Shape)
			if base == "alone" {
				return
			}
			assert.Equal(t, adapter.KindLinear, m.Kind, "fan_in_fan_out is reset on a Linear, as old PEFT did")
			assert.Equal(t, []uint64{3072, 1024}, m.DeltaShape())
			assert.Contains(t, strings.Join(r.Notes, "\n"), "fan_in_fan_out is true, but the base (bloom) has Linear layers")
			d, err := m.Delta()
			require.NoError(t, err)
			require.NoError(t, d.NonFinite())
			row := make([]float32, 1024)
			d.Row(1500, 0, row) // the value part: not enabled
			assert.Equal(t, make([]float32, 1024), row, "the disabled part is zero")
			d.Row(10, 0, row)
			assert.NotEqual(t, make([]float32, 1024), row, "the query part is adapted")
		})
	}
	// Another rank than the factors': mis-shaped, a real mismatch.
	other := t.TempDir()
	cfg, err := os.ReadFile(filepath.Join(dir, "adapter_config.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(other, "adapter_config.json"), []byte(strings.Replace(string(cfg), `"r": 8`, `"r": 4`, 1)), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(dir, "adapter_model.bin"), filepath.Join(other, "adapter_model.bin")))
	r := checkAdapter(t, other, headerBase(t, testmodel.BloomConfig, testmodel.BloomTensors()))
	require.Len(t, r.Problems, 48, r.Text())
	assert.Contains(t, r.Problems[0].Detail, "expected [2·r, in] = [8, 1024]")
}

func f32Tensor(name string, shape []uint64, v ...float32) *tensor.Tensor {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return testmodel.MemTensor(name, tensor.F32, shape, b)
}

// The delta of a MergedLinear, worked by hand from old PEFT's forward:
// enable_lora [T, F, T], r 1, in 2, out 6. lora_A's channels 0 and 1 go
// to lora_B's two groups (its outputs 0-1 and 2-3), which zero_pad puts
// in rows 0-1 and 4-5; rows 2-3 (the disabled part) stay zero.
func TestMergedLinearDelta(t *testing.T) {
	a := f32Tensor("a", []uint64{2, 2}, 1, 2, 3, 4)
	b := f32Tensor("b", []uint64{4, 1, 1}, 10, 20, 30, 40)
	want := []float32{10, 20, 20, 40, 0, 0, 0, 0, 90, 120, 120, 160} // [6, 2], scale 0.5 applied below
	for _, kind := range []string{adapter.KindLinear, adapter.KindConv1D} {
		m := &adapter.Module{Key: "qkv", Kind: kind, Rank: 1, Scale: 0.5, A: a, B: b, Enable: []bool{true, false, true}}
		d, err := m.Delta()
		require.NoError(t, err)
		got := make([]float32, 12)
		require.NoError(t, d.Float32(0, got))
		exp := make([]float32, 12)
		for i := range 6 {
			for j := range 2 {
				v := 0.5 * want[i*2+j]
				if kind == adapter.KindConv1D {
					exp[j*6+i] = v // stored [in, out]
				} else {
					exp[i*2+j] = v
				}
			}
		}
		assert.Equal(t, exp, got, kind)
		if kind == adapter.KindConv1D {
			assert.Equal(t, []uint64{2, 6}, m.DeltaShape())
		} else {
			assert.Equal(t, []uint64{6, 2}, m.DeltaShape())
		}
		norm, err := m.DeltaNorm()
		require.NoError(t, err)
		var ss float64
		for _, v := range exp {
			ss += float64(v) * float64(v)
		}
		assert.InDelta(t, math.Sqrt(ss), norm, 1e-9)
	}
	// Factors that are not a MergedLinear's: no delta, not a crash.
	m := &adapter.Module{Key: "qkv", Kind: adapter.KindLinear, Rank: 1, Scale: 1, A: a, B: f32Tensor("b", []uint64{3, 1, 1}, 1, 2, 3), Enable: []bool{true, false, true}}
	assert.Nil(t, m.DeltaShape())
	_, err := m.Delta()
	assert.Error(t, err)
}

// A base given as its config.json alone: the check uses the shapes the
// architecture table derives from it, and says so; a config whose shapes
// cannot be derived makes a partial check.
func TestBaseConfigAlone(t *testing.T) {
	cfgDir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(testmodel.BloomConfig), 0o644))
	a, err := adapter.Open(realDir(t, "wujindou"), nil)
	require.NoError(t, err)
	defer a.Close()
	for _, loc := range []string{cfgDir, filepath.Join(cfgDir, "config.json")} {
		b, why, err := adapter.OpenBaseShapes(a, loc, nil)
		require.NoError(t, err)
		require.NotNil(t, b, why)
		assert.Equal(t, model.FormatShapes, b.Format)
		r := adapter.Check(a, b, "")
		assert.Empty(t, problemNames(r), r.Text())
		assert.Contains(t, r.Text(), "note: the base is its config.json alone: checked against the shapes the architecture table derives from it")
		assert.Equal(t, uint64(559214592), r.BaseParams)
		// A merge proof or a mount needs the weights.
		_, _, err = adapter.OpenBase(a, loc, nil)
		assert.Error(t, err)
	}
	// Llama-3.2-1B's real config and a real adapter on it.
	l, err := adapter.Open(realDir(t, "merkulovsvt"), nil)
	require.NoError(t, err)
	defer l.Close()
	b, _, err := adapter.OpenBaseShapes(l, filepath.Join(realDir(t, "bases"), "Llama-3.2-1B", "config.json"), nil)
	require.NoError(t, err)
	r := adapter.Check(l, b, "")
	assert.Empty(t, problemNames(r), r.Text())
	assert.False(t, r.Partial())
	// An architecture without a spec: partial, saying why.
	unknown := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(unknown, []byte(`{"architectures": ["FooForCausalLM"], "model_type": "foo"}`), 0o644))
	b, why, err := adapter.OpenBaseShapes(a, unknown, nil)
	require.NoError(t, err)
	assert.Nil(t, b)
	assert.Contains(t, why, "is a config.json alone, and its shapes cannot be derived from it")
	// Invalid JSON: invalid input.
	require.NoError(t, os.WriteFile(unknown, []byte(`{`), 0o644))
	_, _, err = adapter.OpenBaseShapes(a, unknown, nil)
	assert.Error(t, err)
}

// The real MergedLinear's delta against torch running old PEFT's forward
// (lora_A's Linear, lora_B's Conv1d of two groups, zero_pad) on the
// identity: an independent implementation of what the Go code computes by
// padding lora_B.
func TestRealMergedLinearTorch(t *testing.T) {
	root, err := testmodel.RepoRoot()
	require.NoError(t, err)
	r := checkAdapter(t, realDir(t, "wujindou"), headerBase(t, testmodel.BloomConfig, testmodel.BloomTensors()))
	keys := []string{"transformer.h.0.self_attention.query_key_value", "transformer.h.23.self_attention.query_key_value"}
	args := []string{filepath.Join(root, "adapter", "testdata", "merged_linear.py"), filepath.Join(realDir(t, "wujindou"), "adapter_model.bin"), "3072", "8", "16", "101"}
	outs := map[string]string{}
	for _, key := range keys {
		outs[key] = filepath.Join(t.TempDir(), "delta.f32")
		args = append(args, key, outs[key])
	}
	testmodel.RunTorch(t, args...) // one python for both: importing torch costs seconds
	for _, key := range keys {
		m := r.Module(key)
		require.NotNil(t, m)
		out := outs[key]
		raw, err := os.ReadFile(out)
		require.NoError(t, err)
		require.Len(t, raw, 3072*1024*4)
		d, err := m.Delta()
		require.NoError(t, err)
		got := make([]float32, 3072*1024)
		require.NoError(t, d.Float32(0, got))
		var worst float64
		nonzero := 0
		for i := range got {
			want := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
			if want != 0 {
				nonzero++
			}
			worst = max(worst, math.Abs(float64(got[i]-want))/(math.Abs(float64(want))+1e-6))
		}
		assert.Less(t, worst, 1e-3, key)
		assert.Equal(t, 2048*1024, nonzero, "the query and value parts, not the key's")
	}
}
