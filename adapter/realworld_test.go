package adapter_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

func realDir(t testing.TB, name string) string {
	t.Helper()
	root, err := testmodel.RepoRoot()
	require.NoError(t, err)
	return filepath.Join(root, "testdata", "adapters", name)
}

// llamaBase writes Llama-3.2-1B's tensor list, derived from its real
// config.json by package spec, as a header-only model.
func llamaBase(t testing.TB) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(realDir(t, "bases"), "Llama-3.2-1B", "config.json"))
	require.NoError(t, err)
	cfg, err := spec.ParseConfig("config.json", raw)
	require.NoError(t, err)
	plan, err := spec.Expect(cfg)
	require.NoError(t, err)
	var ts []testmodel.Tensor
	for _, e := range plan.Tensors {
		if e.Optional {
			continue
		}
		ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "BF16", Shape: e.ShapeValues()})
	}
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteHeaderOnly(dir, string(raw), ts))
	return dir
}

func headerBase(t testing.TB, config string, ts []testmodel.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteHeaderOnly(dir, config, ts))
	return dir
}

func check(t testing.TB, adapterDir, baseDir string) *adapter.Report {
	t.Helper()
	a, err := adapter.Open(adapterDir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { a.Close() })
	if baseDir == "" {
		return adapter.Check(a, nil, "no base")
	}
	b, err := model.Open(baseDir)
	require.NoError(t, err)
	t.Cleanup(func() { b.Close() })
	return adapter.Check(a, b, "")
}

func problemNames(r *adapter.Report) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, string(p.Kind)+" "+p.Tensor)
	}
	return out
}

// The real adapters, against bases with their base's shapes: each is
// what PEFT saved, so each must check clean, with the modules PEFT
// adapted.
func TestRealAdaptersAgainstBases(t *testing.T) {
	cases := []struct {
		name    string
		base    func(t testing.TB) string
		modules int
		kind    string
		note    string
	}{
		{"merkulovsvt", llamaBase, 32, adapter.KindLinear, ""},
		{"abrhaleyarefaine1997", func(t testing.TB) string { return headerBase(t, testmodel.GPT2Config(12), testmodel.GPT2Tensors(12)) }, 36, adapter.KindConv1D, `lack the model's "transformer" prefix`},
		{"phuongsky", func(t testing.TB) string { return headerBase(t, testmodel.GPT2Config(6), testmodel.GPT2Tensors(6)) }, 6, adapter.KindConv1D, `"transformer" prefix`},
		{"vuongGNguyen24", func(t testing.TB) string { return headerBase(t, testmodel.BloomConfig, testmodel.BloomTensors()) }, 24, adapter.KindLinear, `"transformer" prefix`},
		{"dayanidhi04", func(t testing.TB) string {
			return headerBase(t, testmodel.DistilBERTConfig, testmodel.DistilBERTTensors())
		}, 12, adapter.KindLinear, "pre_classifier [768, 768] saved with the adapter, not in the base"},
		{"Hareshjethani", func(t testing.TB) string { return headerBase(t, testmodel.BERTConfig, testmodel.BERTTensors()) }, 24, adapter.KindLinear, "classifier [2, 768] saved with the adapter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := check(t, realDir(t, c.name), c.base(t))
			require.Empty(t, problemNames(r), r.Text())
			assert.False(t, r.Partial())
			assert.Len(t, r.Modules, c.modules)
			for _, m := range r.Modules {
				assert.Equal(t, c.kind, m.Kind, m.Key)
				assert.NotNil(t, m.Weight, m.Key)
			}
			assert.Equal(t, r.Expected, len(r.Adapter.Tensors))
			if c.note != "" {
				assert.Contains(t, strings.Join(r.Notes, "\n"), c.note)
			}
			assert.Contains(t, r.Text(), "✓ all")
		})
	}
}

// GPT-2's Conv1D: lora_A is [r, in] and lora_B [out, r] although the base
// weight is stored [in, out]; the delta has the base weight's shape.
func TestConv1DShapes(t *testing.T) {
	r := check(t, realDir(t, "abrhaleyarefaine1997"), headerBase(t, testmodel.GPT2Config(12), testmodel.GPT2Tensors(12)))
	m := r.Module("transformer.h.0.mlp.c_proj")
	require.NotNil(t, m)
	assert.Equal(t, []uint64{8, 3072}, m.A.Shape)
	assert.Equal(t, []uint64{768, 8}, m.B.Shape)
	assert.Equal(t, []uint64{3072, 768}, m.Weight.Shape)
	assert.Equal(t, []uint64{3072, 768}, m.DeltaShape())
	assert.Equal(t, 4.0, m.Scale)
}

// The real adapters alone: a partial check that still finds them
// consistent.
func TestRealAdaptersAlone(t *testing.T) {
	for _, name := range []string{"merkulovsvt", "abrhaleyarefaine1997", "phuongsky", "vuongGNguyen24", "dayanidhi04", "Hareshjethani"} {
		t.Run(name, func(t *testing.T) {
			r := check(t, realDir(t, name), "")
			assert.Empty(t, problemNames(r), r.Text())
			assert.True(t, r.Partial())
			assert.Contains(t, r.Text(), "– partial check: no base")
		})
	}
}

// Kuntya's adapter targets "classifier" (a regex) on a SEQ_CLS model,
// whose classifier PEFT saves whole: PEFT does not adapt a module it
// saves, so the LoRA tensors on it (and the copies an old PEFT nested in
// the wrapper) are not what PEFT saves today.
func TestRealAdapterLoRAOnSavedModule(t *testing.T) {
	for _, base := range []string{"", "distilbert"} {
		b := ""
		if base != "" {
			b = headerBase(t, testmodel.DistilBERTConfig, testmodel.DistilBERTTensors())
		}
		r := check(t, realDir(t, "Kuntya"), b)
		assert.False(t, r.Clean())
		names := strings.Join(problemNames(r), "\n")
		assert.Contains(t, names, "unexpected base_model.model.classifier.lora_A.weight")
		assert.Contains(t, names, "unexpected base_model.model.classifier.modules_to_save.lora_B.weight")
		assert.Contains(t, r.Text(), "which PEFT leaves alone")
	}
}

// A base of another size: every adapted module's factors are
// mis-shaped, named with the dimension that differs.
func TestRealAdapterWrongBase(t *testing.T) {
	// distilgpt2's adapter on GPT-2 medium's width (1024).
	ts := testmodel.GPT2Tensors(6)
	for i := range ts {
		for j, d := range ts[i].Shape {
			switch d {
			case 768:
				ts[i].Shape[j] = 1024
			case 2304:
				ts[i].Shape[j] = 3072
			}
		}
	}
	r := check(t, realDir(t, "phuongsky"), headerBase(t, testmodel.GPT2Config(6), ts))
	require.Len(t, r.Problems, 12)
	for _, p := range r.Problems {
		assert.Equal(t, spec.Misshaped, p.Kind)
	}
	assert.Contains(t, r.Problems[0].Detail, "base_model.model.transformer.h.0.attn.c_attn.lora_A.weight is [8, 768], expected [r, in] = [8, 1024]: dim 1 is 768, in is 1024")
}

// Configs without weights (their authors committed only the config):
// each parses, and its type, rank and scaling are PEFT's.
func TestRealConfigs(t *testing.T) {
	root := realDir(t, "config-only")
	var n int
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != adapter.ConfigName {
			return err
		}
		n++
		raw, err := os.ReadFile(p)
		require.NoError(t, err)
		c, err := adapter.ParseConfig(p, raw)
		require.NoError(t, err, p)
		assert.Positive(t, c.R, p)
		assert.Equal(t, c.Alpha/float64(c.R), c.Scale("model.layers.0.self_attn.q_proj"), p)
		return nil
	})
	assert.Equal(t, 13, n)
}
