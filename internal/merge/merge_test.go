package merge_test

import (
	"fmt"
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
	a, err := adapter.Open(adapterDir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	b, err := model.Open(tinyBase(t))
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
