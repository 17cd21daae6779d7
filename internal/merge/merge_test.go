package merge_test

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/internal/merge"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

func tinyBase(t testing.TB) string {
	root, err := testmodel.RepoRoot()
	require.NoError(t, err)
	return filepath.Join(root, "testdata", "tiny-qwen3")
}

func pairs(extra func(k string, out uint64) []testmodel.Tensor) []testmodel.Tensor {
	var ts []testmodel.Tensor
	for l := range 2 {
		for _, m := range []struct {
			name    string
			out, in uint64
		}{{"q_proj", 64, 32}, {"v_proj", 32, 32}} {
			k := fmt.Sprintf("base_model.model.model.layers.%d.self_attn.%s", l, m.name)
			ts = append(ts, testmodel.Tensor{Name: k + ".lora_A.weight", DType: "F32", Shape: []uint64{4, m.in}},
				testmodel.Tensor{Name: k + ".lora_B.weight", DType: "F32", Shape: []uint64{m.out, 4}})
			if extra != nil {
				ts = append(ts, extra(k, m.out)...)
			}
		}
	}
	return ts
}

// numpyMerge merges with the independent numpy reference.
func numpyMerge(t *testing.T, adapterDir string, args ...string) string {
	t.Helper()
	root, err := testmodel.RepoRoot()
	require.NoError(t, err)
	out := t.TempDir()
	testmodel.RunNumpy(t, append([]string{filepath.Join(root, "adapter", "testdata", "lora.py"), "merge", tinyBase(t), adapterDir, out}, args...)...)
	return out
}

func prove(t *testing.T, adapterDir, merged string) *merge.Result {
	t.Helper()
	return proveOn(t, tinyBase(t), adapterDir, merged)
}

func bad(res *merge.Result) []string {
	var out []string
	for _, t := range res.Tensors {
		if !t.OK {
			out = append(out, t.Kind+" "+t.Name)
		}
	}
	return out
}

func TestProve(t *testing.T) {
	const cfg = `{"peft_type": "LORA", "r": 4, "lora_alpha": %s, "target_modules": ["q_proj", "v_proj"]%s}`
	head := func(k string, out uint64) []testmodel.Tensor {
		if k != "base_model.model.model.layers.0.self_attn.q_proj" {
			return nil
		}
		return []testmodel.Tensor{{Name: "base_model.model.lm_head.weight", DType: "F32", Shape: []uint64{128, 32}}}
	}
	dora := func(k string, out uint64) []testmodel.Tensor {
		return []testmodel.Tensor{{Name: k + ".lora_magnitude_vector", DType: "F32", Shape: []uint64{out}}}
	}
	cases := []struct {
		name, config string
		extra        func(string, uint64) []testmodel.Tensor
		off          string
		want         []string
	}{
		{"exact", fmt.Sprintf(cfg, "8", ""), nil, "", nil},
		{"rsLoRA, rank_pattern", fmt.Sprintf(cfg, "16", `, "use_rslora": true, "alpha_pattern": {"v_proj": 3}`), nil, "", nil},
		{"DoRA", fmt.Sprintf(cfg, "8", `, "use_dora": true`), dora, "", nil},
		{"adapted tensor off", fmt.Sprintf(cfg, "8", ""), nil, "model.layers.1.self_attn.v_proj.weight", []string{"adapted model.layers.1.self_attn.v_proj.weight"}},
		{"untouched tensor off", fmt.Sprintf(cfg, "8", ""), nil, "model.layers.0.mlp.up_proj.weight", []string{"untouched model.layers.0.mlp.up_proj.weight"}},
		{"modules_to_save", fmt.Sprintf(cfg, "8", `, "modules_to_save": ["lm_head"]`), head, "", nil},
		{"modules_to_save off", fmt.Sprintf(cfg, "8", `, "modules_to_save": ["lm_head"]`), head, "lm_head.weight", []string{"copy lm_head.weight"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, testmodel.WriteAdapter(dir, c.config, pairs(c.extra)))
			var args []string
			if c.off != "" {
				args = []string{"--off", c.off}
			}
			res := prove(t, dir, numpyMerge(t, dir, args...))
			assert.Equal(t, c.want, bad(res), res.Text())
			assert.Equal(t, c.want == nil, res.OK())
			kinds := map[string]int{}
			for _, x := range res.Tensors {
				kinds[x.Kind]++
			}
			want := map[string]int{merge.KindAdapted: 4, merge.KindUntouched: 21}
			if strings.Contains(c.config, "lm_head") {
				want = map[string]int{merge.KindAdapted: 4, merge.KindUntouched: 20, merge.KindCopy: 1}
			}
			assert.Equal(t, want, kinds)
			if c.want != nil {
				assert.Contains(t, res.Text(), "✗ "+c.off)
				assert.Contains(t, res.Text(), "✗ the merged model is not the base plus the adapter: 1 tensor differs")
			} else {
				assert.Contains(t, res.Text(), "✓ the merged model is the base plus the adapter")
			}
		})
	}
}

// The base itself is not the merge of a nonzero adapter: every adapted
// tensor is off.
func TestProveBaseIsNotMerged(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteAdapter(dir, `{"peft_type": "LORA", "r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]}`, pairs(nil)))
	res := prove(t, dir, tinyBase(t))
	assert.Len(t, bad(res), 4)
	assert.False(t, res.OK())
}

// A NaN or an infinity in the delta or the merged weight fails the
// proof, named: the tolerance made from it is no bound. Without the
// check, +Inf in lora_A made the tolerance +Inf and a q_proj of all 0.5
// was "proved".
func TestProveNonFinite(t *testing.T) {
	const cfg = `{"peft_type": "LORA", "r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]}`
	const q0 = "base_model.model.model.layers.0.self_attn.q_proj"
	// factors sets layer 0's q_proj factors to a and b (nil: Fill's),
	// and zeroes every other lora_B: those modules change nothing.
	factors := func(a, b func(n uint64) []byte) []testmodel.Tensor {
		ts := pairs(nil)
		for i := range ts {
			n := testmodel.NBytes("F32", ts[i].Shape)
			switch {
			case ts[i].Name == q0+".lora_A.weight" && a != nil:
				ts[i].Data = a(n / 4)
			case ts[i].Name == q0+".lora_B.weight" && b != nil:
				ts[i].Data = b(n / 4)
			case strings.HasSuffix(ts[i].Name, ".lora_B.weight") && !strings.HasPrefix(ts[i].Name, q0):
				ts[i].Data = make([]byte, n)
			}
		}
		return ts
	}
	const weight = "model.layers.0.self_attn.q_proj.weight"
	// halves is the base with layer 0's q_proj all 0.5, in dtype.
	halves := func(t *testing.T, dtype string) string {
		return testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
			for i := range ts {
				if ts[i].Name == weight {
					n := ts[i].Shape[0] * ts[i].Shape[1]
					ts[i].DType = dtype
					if dtype == "F32" {
						ts[i].Data = testmodel.ConstF32(n, 0.5)
						continue
					}
					ts[i].Data = make([]byte, 2*n)
					for j := range n {
						binary.LittleEndian.PutUint16(ts[i].Data[2*j:], 0x3f00)
					}
				}
			}
			return ts
		})
	}
	inf := func(n uint64) []byte { return testmodel.ConstF32(n, float32(math.Inf(1))) }
	cases := []struct {
		name    string
		a, b    func(n uint64) []byte
		dtype   string
		want    string // in the text
		factors bool   // the factors themselves are not finite
	}{
		{"+Inf lora_A, merged all 0.5 (BF16)", inf, func(n uint64) []byte { return testmodel.ConstF32(n, 0.25) }, "BF16",
			"✗ model.layers.0.self_attn.q_proj.weight (adapted): " + q0 + ".lora_A.weight holds +Inf at [0, 0]: the delta is not finite", true},
		{"+Inf lora_A, merged all 0.5 (F32)", inf, func(n uint64) []byte { return testmodel.ConstF32(n, 0.25) }, "F32",
			q0 + ".lora_A.weight holds +Inf at [0, 0]", true},
		{"NaN lora_B", nil, func(n uint64) []byte { return testmodel.ConstF32(n, float32(math.NaN())) }, "BF16",
			q0 + ".lora_B.weight holds NaN at [0, 0]", true},
		{"scale·lora_B overflows", nil, func(n uint64) []byte { return testmodel.ConstF32(n, 3e38) }, "BF16",
			q0 + ".lora_B.weight times the scale 2 overflows float32 (3e+38 at [0, 0])", true},
		{"finite factors, the product overflows (BF16)", func(n uint64) []byte { return testmodel.ConstF32(n, 1e30) }, func(n uint64) []byte { return testmodel.ConstF32(n, 1e30) }, "BF16",
			"✗ model.layers.0.self_attn.q_proj.weight (adapted): 2,048 of 2,048 elements not finite", false},
		{"finite factors, the product overflows (F32)", func(n uint64) []byte { return testmodel.ConstF32(n, 1e30) }, func(n uint64) []byte { return testmodel.ConstF32(n, 1e30) }, "F32",
			"✗ model.layers.0.self_attn.q_proj.weight (adapted): 2,048 of 2,048 elements not finite", false},
	}
	base := testmodel.TinyDir(t, nil)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, testmodel.WriteAdapter(dir, cfg, factors(c.a, c.b)))
			res := proveOn(t, base, dir, halves(t, c.dtype))
			assert.False(t, res.OK(), res.Text())
			assert.Equal(t, []string{"adapted " + weight}, bad(res), res.Text())
			assert.Contains(t, res.Text(), c.want)
			var q *merge.Tensor
			for _, x := range res.Tensors {
				if x.Name == weight {
					q = x
				}
			}
			if c.factors {
				assert.NotEmpty(t, q.Detail)
			} else {
				assert.Equal(t, uint64(2048), q.NonFinite)
			}
			var j struct {
				OK bool `json:"ok"`
			}
			require.NoError(t, json.Unmarshal(res.JSON(), &j), "the JSON holds no bare Inf")
			assert.False(t, j.OK)
		})
	}
	// The factors' error is typed.
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteAdapter(dir, cfg, factors(inf, nil)))
	a, err := adapter.Open(dir, nil)
	require.NoError(t, err)
	defer a.Close()
	b, err := model.Open(base)
	require.NoError(t, err)
	defer b.Close()
	for _, m := range adapter.Check(a, b, "").Modules {
		d, err := m.Delta()
		require.NoError(t, err, "a delta of non-finite factors is still served (the mount's views show it)")
		var nf *adapter.NonFiniteError
		if m.A.Name == q0+".lora_A.weight" {
			require.ErrorAs(t, d.NonFinite(), &nf)
			assert.Equal(t, q0+".lora_A.weight", nf.Tensor)
		} else {
			assert.NoError(t, d.NonFinite())
		}
	}
}

// proveOn is prove with another base.
func proveOn(t *testing.T, base, adapterDir, merged string) *merge.Result {
	t.Helper()
	a, err := adapter.Open(adapterDir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	b, err := model.Open(base)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	r := adapter.Check(a, b, "")
	require.True(t, r.Clean(), r.Text())
	m, err := model.Open(merged)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	res, err := merge.Prove(r, m, nil)
	require.NoError(t, err)
	return res
}
