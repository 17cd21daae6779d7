package check_test

import (
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

// readQuantLayouts reads the archive's layouts by their directory
// (quantized/SCHEME/ARCH or base/ARCH).
func readQuantLayouts(t *testing.T) map[string]*quantLayout {
	t.Helper()
	ls, err := testmodel.ReadLayouts(quantLayouts)
	require.NoError(t, err)
	out := map[string]*quantLayout{}
	for _, l := range ls {
		out[l.Arch+"/"+l.Variant] = &quantLayout{config: l.Config, tensors: l.Tensors}
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
	for _, method := range []string{"bogus", "gptqmodel"} {
		cfg := strings.Replace(string(b.config), `"model_type"`, `"quantization_config": {"quant_method": "`+method+`"}, "model_type"`, 1)
		m, err := testmodel.OpenHeaderOnly([]byte(cfg), b.tensors)
		r := testmodel.CheckOpened(t, m, err)
		assert.Empty(t, problemsOf(r))
		assert.False(t, r.Checked(), method)
		require.NotNil(t, r.Quant)
		assert.Contains(t, r.Quant.Partial, method)
	}
	// Every compressed-tensors and ModelOpt reference layout under a
	// method nobody models: never a failure.
	for d, l := range all {
		if !strings.HasPrefix(d, "quantized/ct-") && !strings.HasPrefix(d, "quantized/modelopt-") {
			continue
		}
		cfg := strings.Replace(strings.Replace(string(l.config), `"quant_method": "compressed-tensors"`, `"quant_method": "bogus"`, 1), `"quant_method": "modelopt"`, `"quant_method": "bogus"`, 1)
		m, err := testmodel.OpenHeaderOnly([]byte(cfg), l.tensors)
		r := testmodel.CheckOpened(t, m, err)
		assert.Empty(t, problemsOf(r), d)
		assert.False(t, r.Checked(), d)
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

// TestMLXGPTOSS: mlx-lm's GPT-OSS conversion (gpt_oss.py's sanitize)
// splits each layer's expert stack gate_up_proj [E, H, 2I] into
// gate_proj and up_proj [E, I, H], keeps down_proj as [E, H, I] and
// splits the biases; the experts in MXFP4, the rest 8-bit affine where
// the width divides 64. Built here from the base layout by those rules.
func TestMLXGPTOSS(t *testing.T) {
	all := readQuantLayouts(t)
	b := all["base/gpt_oss"]
	const E, H, I = 6, 320, 736
	var ts []testmodel.Tensor
	affine := func(name string, o, i uint64) {
		mod := strings.TrimSuffix(name, ".weight")
		if i%64 != 0 {
			ts = append(ts, testmodel.Tensor{Name: name, DType: "BF16", Shape: []uint64{o, i}})
			return
		}
		ts = append(ts, testmodel.Tensor{Name: name, DType: "U32", Shape: []uint64{o, i / 4}},
			testmodel.Tensor{Name: mod + ".scales", DType: "BF16", Shape: []uint64{o, i / 64}},
			testmodel.Tensor{Name: mod + ".biases", DType: "BF16", Shape: []uint64{o, i / 64}})
	}
	overrides := []string{}
	for _, x := range b.tensors {
		switch {
		case strings.HasSuffix(x.Name, ".experts.gate_up_proj"):
			pre := strings.TrimSuffix(x.Name, "gate_up_proj")
			for _, p := range []string{"gate_proj", "up_proj"} {
				ts = append(ts, testmodel.Tensor{Name: pre + p + ".weight", DType: "U32", Shape: []uint64{E, I, H / 8}},
					testmodel.Tensor{Name: pre + p + ".scales", DType: "U8", Shape: []uint64{E, I, H / 32}})
				overrides = append(overrides, `"`+pre+p+`": {"group_size": 32, "bits": 4, "mode": "mxfp4"}`)
			}
		case strings.HasSuffix(x.Name, ".experts.down_proj"):
			ts = append(ts, testmodel.Tensor{Name: x.Name + ".weight", DType: "U32", Shape: []uint64{E, H, I / 8}},
				testmodel.Tensor{Name: x.Name + ".scales", DType: "U8", Shape: []uint64{E, H, I / 32}})
			overrides = append(overrides, `"`+x.Name+`": {"group_size": 32, "bits": 4, "mode": "mxfp4"}`)
		case strings.HasSuffix(x.Name, ".experts.gate_up_proj_bias"):
			pre := strings.TrimSuffix(x.Name, "gate_up_proj_bias")
			ts = append(ts, testmodel.Tensor{Name: pre + "gate_proj.bias", DType: "BF16", Shape: []uint64{E, I}},
				testmodel.Tensor{Name: pre + "up_proj.bias", DType: "BF16", Shape: []uint64{E, I}})
		case strings.HasSuffix(x.Name, ".experts.down_proj_bias"):
			ts = append(ts, testmodel.Tensor{Name: strings.Replace(x.Name, "down_proj_bias", "down_proj.bias", 1), DType: "BF16", Shape: []uint64{E, H}})
		case len(x.Shape) == 2 && strings.HasSuffix(x.Name, ".weight"):
			affine(x.Name, x.Shape[0], x.Shape[1])
		default:
			ts = append(ts, x)
		}
	}
	q := `"quantization": {"group_size": 64, "bits": 8, "mode": "affine", ` + strings.Join(overrides, ", ") + `}, `
	checkQuantized(t, b, q, ts, "model.layers.2.mlp.experts.up_proj.scales") // a scale of the split experts
}

// TestGPTOSSMXFP4: openai's GPT-OSS release keeps its expert stacks in
// MXFP4 (transformers' mxfp4 quantizer): gate_up_proj [E, H, 2I] as
// gate_up_proj_blocks U8 [E, 2I, H/32, 16] and gate_up_proj_scales
// [E, 2I, H/32], down_proj likewise; everything else as it is.
func TestGPTOSSMXFP4(t *testing.T) {
	all := readQuantLayouts(t)
	b := all["base/gpt_oss"]
	const E, H, I = 6, 320, 736
	var ts []testmodel.Tensor
	for _, x := range b.tensors {
		switch {
		case strings.HasSuffix(x.Name, ".experts.gate_up_proj"):
			ts = append(ts, testmodel.Tensor{Name: x.Name + "_blocks", DType: "U8", Shape: []uint64{E, 2 * I, H / 32, 16}},
				testmodel.Tensor{Name: x.Name + "_scales", DType: "U8", Shape: []uint64{E, 2 * I, H / 32}})
		case strings.HasSuffix(x.Name, ".experts.down_proj"):
			ts = append(ts, testmodel.Tensor{Name: x.Name + "_blocks", DType: "U8", Shape: []uint64{E, H, I / 32, 16}},
				testmodel.Tensor{Name: x.Name + "_scales", DType: "U8", Shape: []uint64{E, H, I / 32}})
		default:
			ts = append(ts, x)
		}
	}
	q := `"quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router", "model.embed_tokens", "lm_head"]}, `
	checkQuantized(t, b, q, ts, "model.layers.1.mlp.experts.down_proj_scales")
}

// checkQuantized checks the base layout b quantized: its tensors ts under
// the quantization key q (inserted before model_type) are fully checked
// and clean, with the same logical tensors as b, and with the tensor drop
// missing, a problem names it.
func checkQuantized(t *testing.T, b *quantLayout, q string, ts []testmodel.Tensor, drop string) {
	t.Helper()
	cfg := strings.Replace(string(b.config), `"model_type"`, q+`"model_type"`, 1)
	m, err := testmodel.OpenHeaderOnly([]byte(cfg), ts)
	r := testmodel.CheckOpened(t, m, err)
	require.Empty(t, problemsOf(r))
	require.True(t, r.Checked())
	mb, err := testmodel.OpenHeaderOnly(b.config, b.tensors)
	assert.Equal(t, testmodel.CheckOpened(t, mb, err).Logical, r.Logical)
	i := slices.IndexFunc(ts, func(x testmodel.Tensor) bool { return x.Name == drop })
	require.GreaterOrEqual(t, i, 0, drop)
	m, err = testmodel.OpenHeaderOnly([]byte(cfg), slices.Delete(slices.Clone(ts), i, i+1))
	assertProblem(t, testmodel.CheckOpened(t, m, err), check.Missing, drop)
}
