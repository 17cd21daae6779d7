package check_test

import (
	"archive/tar"
	"compress/gzip"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// quantLayouts is the archive of the reference quantized layouts and
// their unquantized bases, kept once, with the rules they test
// (internal/quantconfig/testdata/layouts-README.md says how they were
// made).
const quantLayouts = "../internal/quantconfig/testdata/layouts.tar.gz"

type quantLayout struct {
	config  []byte
	tensors []testmodel.Tensor
}

func readQuantLayouts(t *testing.T) map[string]*quantLayout {
	t.Helper()
	f, err := os.Open(quantLayouts)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	out := map[string]*quantLayout{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		dir, file := path.Split(h.Name)
		dir = strings.TrimSuffix(dir, "/")
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		if out[dir] == nil {
			out[dir] = &quantLayout{}
		}
		switch file {
		case "config.json":
			out[dir].config = b
		case "tensors.tsv":
			out[dir].tensors, err = testmodel.ParseTensorsTSV(b)
			require.NoError(t, err)
		}
	}
	return out
}

func problemsOf(r *check.Report) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, string(p.Kind)+" "+p.Detail)
	}
	return out
}

// scaleSuffixes name a quantized weight's scale, the tensor a mutant
// drops.
var scaleSuffixes = []string{".weight_scale", ".scales", ".weight_scale_inv"}

// TestQuantizedLayouts checks every reference quantized layout — written
// by compressed-tensors itself, or by ModelOpt's and mlx-lm's export
// rules — clean and fully checked, with the unquantized model's logical
// parameter count; then three mutants of each (a scale dropped, a packed
// shape changed, a tensor added) fail naming the tensor.
func TestQuantizedLayouts(t *testing.T) {
	all := readQuantLayouts(t)
	var dirs []string
	for d := range all {
		if strings.HasPrefix(d, "quantized/") {
			dirs = append(dirs, d)
		}
	}
	sort.Strings(dirs)
	require.Len(t, dirs, 80)
	bases := map[string]uint64{}
	for _, d := range dirs {
		arch := path.Base(d)
		l := all[d]
		t.Run(strings.TrimPrefix(d, "quantized/"), func(t *testing.T) {
			if _, ok := bases[arch]; !ok {
				b := all["base/"+arch]
				m, err := testmodel.OpenHeaderOnly(b.config, b.tensors)
				r := testmodel.CheckOpened(t, m, err)
				require.Empty(t, problemsOf(r), arch)
				bases[arch] = r.Logical
			}
			m, err := testmodel.OpenHeaderOnly(l.config, l.tensors)
			r := testmodel.CheckOpened(t, m, err)
			require.Empty(t, problemsOf(r))
			require.True(t, r.Checked(), "%v", r.Notes)
			require.NotNil(t, r.Quant)
			require.NotEmpty(t, r.Quant.Schemes)
			if !(strings.HasPrefix(d, "quantized/mlx-") && arch == "gemma3") {
				// mlx-lm drops gemma3's vision tower.
				assert.Equal(t, bases[arch], r.Logical, "logical parameters")
			}

			// The scale of the first quantized weight, and its codes.
			var scale, values string
			for _, x := range l.tensors {
				for _, s := range scaleSuffixes {
					if mod, ok := strings.CutSuffix(x.Name, s); ok && scale == "" {
						for _, v := range []string{mod + ".weight_packed", mod + ".weight", mod + ".qweight"} {
							if slices.IndexFunc(l.tensors, func(y testmodel.Tensor) bool { return y.Name == v }) >= 0 {
								scale, values = x.Name, v
								break
							}
						}
					}
				}
			}
			require.NotEmpty(t, scale)
			mutate := func(edit func([]testmodel.Tensor) []testmodel.Tensor) *check.Report {
				ts := edit(slices.Clone(l.tensors))
				m, err := testmodel.OpenHeaderOnly(l.config, ts)
				return testmodel.CheckOpened(t, m, err)
			}
			dropped := mutate(func(ts []testmodel.Tensor) []testmodel.Tensor {
				return slices.DeleteFunc(ts, func(x testmodel.Tensor) bool { return x.Name == scale })
			})
			assertProblem(t, dropped, check.Missing, scale)
			bent := mutate(func(ts []testmodel.Tensor) []testmodel.Tensor {
				i := slices.IndexFunc(ts, func(x testmodel.Tensor) bool { return x.Name == values })
				ts[i].Shape = slices.Clone(ts[i].Shape)
				ts[i].Shape[len(ts[i].Shape)-1]++
				return ts
			})
			assertProblem(t, bent, check.Misshaped, values)
			extra := strings.TrimSuffix(values, path.Ext(values)) + ".weight_bogus"
			added := mutate(func(ts []testmodel.Tensor) []testmodel.Tensor {
				return append(ts, testmodel.Tensor{Name: extra, DType: "F32", Shape: []uint64{1}})
			})
			assertProblem(t, added, check.Unexpected, extra)
		})
	}
}

func assertProblem(t *testing.T, r *check.Report, kind check.ProblemKind, name string) {
	t.Helper()
	for _, p := range r.Problems {
		if p.Kind == kind && p.Tensor == name {
			assert.Contains(t, p.Detail, name)
			return
		}
	}
	t.Errorf("no %s problem naming %s: %v", kind, name, problemsOf(r))
}

// TestQuantMethodNotUnderstood: a method the rules do not model is a
// partial check (exit 3) naming it, never a failure and never clean.
func TestQuantMethodNotUnderstood(t *testing.T) {
	all := readQuantLayouts(t)
	b := all["base/qwen3"]
	for _, method := range []string{"bogus", "hqq"} {
		cfg := strings.Replace(string(b.config), `"model_type"`, `"quantization_config": {"quant_method": "`+method+`"}, "model_type"`, 1)
		m, err := testmodel.OpenHeaderOnly([]byte(cfg), b.tensors)
		r := testmodel.CheckOpened(t, m, err)
		assert.Empty(t, problemsOf(r))
		assert.False(t, r.Checked(), method)
		require.NotNil(t, r.Quant)
		assert.Contains(t, r.Quant.Partial, method)
	}
}

// TestGPTQAuxiliariesChecked is the hardening issue's item 8: a GPTQ
// q_proj.qweight of [1, 1] with no qzeros, scales or g_idx fails, naming
// them.
func TestGPTQAuxiliariesChecked(t *testing.T) {
	all := readQuantLayouts(t)
	b := all["base/qwen3"]
	cfg := strings.Replace(string(b.config), `"model_type"`, `"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 32}, "model_type"`, 1)
	ts := slices.Clone(b.tensors)
	i := slices.IndexFunc(ts, func(x testmodel.Tensor) bool { return x.Name == "model.layers.0.self_attn.q_proj.weight" })
	ts[i] = testmodel.Tensor{Name: "model.layers.0.self_attn.q_proj.qweight", DType: "I32", Shape: []uint64{1, 1}}
	m, err := testmodel.OpenHeaderOnly([]byte(cfg), ts)
	r := testmodel.CheckOpened(t, m, err)
	assertProblem(t, r, check.Misshaped, "model.layers.0.self_attn.q_proj.qweight")
	assertProblem(t, r, check.Missing, "model.layers.0.self_attn.q_proj.qzeros")
	assertProblem(t, r, check.Missing, "model.layers.0.self_attn.q_proj.scales")
}
