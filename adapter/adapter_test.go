package adapter_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

// tinyShapes are the tiny Qwen3's linear weights, [out, in], written out
// here rather than derived, so that the tests do not share the code they
// test.
var tinyShapes = map[string][2]uint64{
	"self_attn.q_proj": {64, 32}, "self_attn.k_proj": {32, 32}, "self_attn.v_proj": {32, 32}, "self_attn.o_proj": {32, 64},
	"mlp.gate_proj": {64, 32}, "mlp.up_proj": {64, 32}, "mlp.down_proj": {32, 64},
}

const pfx = "base_model.model."

// pair returns the lora_A and lora_B PEFT saves for module m of layer l
// at rank r.
func pair(l int, m string, r uint64) []testmodel.Tensor {
	s := tinyShapes[m]
	k := fmt.Sprintf("%smodel.layers.%d.%s", pfx, l, m)
	return []testmodel.Tensor{{Name: k + ".lora_A.weight", DType: "F32", Shape: []uint64{r, s[1]}}, {Name: k + ".lora_B.weight", DType: "F32", Shape: []uint64{s[0], r}}}
}

func tinyAdapter(t testing.TB, config string, ts []testmodel.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteAdapter(dir, config, ts))
	return dir
}

func tinyBase(t testing.TB) string {
	t.Helper()
	root, err := testmodel.RepoRoot()
	require.NoError(t, err)
	return filepath.Join(root, "testdata", "tiny-qwen3")
}

func cfg(extra string) string {
	return `{"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "tiny-qwen3", "r": 4, "lora_alpha": 8, "bias": "none"` + extra + `}`
}

func qv(r uint64) []testmodel.Tensor {
	var ts []testmodel.Tensor
	for l := range 2 {
		ts = append(ts, pair(l, "self_attn.q_proj", r)...)
		ts = append(ts, pair(l, "self_attn.v_proj", r)...)
	}
	return ts
}

// Adapters PEFT would save on the tiny model, each checked clean against
// it, with the modules, ranks and scales PEFT gives them.
func TestTinyAdapters(t *testing.T) {
	allLinear := func() []testmodel.Tensor {
		var ts []testmodel.Tensor
		for l := range 2 {
			for m := range tinyShapes {
				ts = append(ts, pair(l, m, 4)...)
			}
		}
		return ts
	}
	cases := []struct {
		name    string
		config  string
		tensors []testmodel.Tensor
		modules int
		kind    string
		ranks   map[string]int
		scales  map[string]float64
	}{
		{"q/v", cfg(`, "target_modules": ["q_proj", "v_proj"]`), qv(4), 4, "LoRA",
			map[string]int{"model.layers.0.self_attn.q_proj": 4}, map[string]float64{"model.layers.1.self_attn.v_proj": 2}},
		{"q/v full names", cfg(`, "target_modules": ["model.layers.0.self_attn.q_proj", "self_attn.v_proj"]`),
			append(pair(0, "self_attn.q_proj", 4), append(pair(0, "self_attn.v_proj", 4), pair(1, "self_attn.v_proj", 4)...)...), 3, "LoRA", nil, nil},
		{"all-linear", cfg(`, "target_modules": "all-linear"`), allLinear(), 14, "LoRA", nil, nil},
		{"regex", cfg(`, "target_modules": "model\\.layers\\.1\\..*(q|k)_proj"`),
			append(pair(1, "self_attn.q_proj", 4), pair(1, "self_attn.k_proj", 4)...), 2, "LoRA", nil, nil},
		{"layers_to_transform", cfg(`, "target_modules": ["q_proj", "v_proj"], "layers_to_transform": [1], "layers_pattern": "layers"`),
			append(pair(1, "self_attn.q_proj", 4), pair(1, "self_attn.v_proj", 4)...), 2, "LoRA", nil, nil},
		{"rank_pattern", cfg(`, "target_modules": ["q_proj", "v_proj"], "rank_pattern": {"q_proj": 2, "layers.1.self_attn.v_proj": 6}, "alpha_pattern": {"v_proj": 12}`),
			append(append(pair(0, "self_attn.q_proj", 2), pair(1, "self_attn.q_proj", 2)...), append(pair(0, "self_attn.v_proj", 4), pair(1, "self_attn.v_proj", 6)...)...), 4, "LoRA",
			map[string]int{"model.layers.0.self_attn.q_proj": 2, "model.layers.0.self_attn.v_proj": 4, "model.layers.1.self_attn.v_proj": 6},
			map[string]float64{"model.layers.0.self_attn.q_proj": 4, "model.layers.0.self_attn.v_proj": 3, "model.layers.1.self_attn.v_proj": 2}},
		{"rsLoRA", cfg(`, "target_modules": ["q_proj", "v_proj"], "use_rslora": true`), qv(4), 4, "rsLoRA", nil, map[string]float64{"model.layers.0.self_attn.q_proj": 4}},
		{"DoRA", cfg(`, "target_modules": ["q_proj", "v_proj"], "use_dora": true`), func() []testmodel.Tensor {
			ts := qv(4)
			for l := range 2 {
				ts = append(ts, testmodel.Tensor{Name: fmt.Sprintf("%smodel.layers.%d.self_attn.q_proj.lora_magnitude_vector", pfx, l), DType: "F32", Shape: []uint64{64}},
					testmodel.Tensor{Name: fmt.Sprintf("%smodel.layers.%d.self_attn.v_proj.lora_magnitude_vector", pfx, l), DType: "F32", Shape: []uint64{32}})
			}
			return ts
		}(), 4, "DoRA", nil, nil},
		{"embedding", cfg(`, "target_modules": ["embed_tokens", "q_proj"]`), append(append(pair(0, "self_attn.q_proj", 4), pair(1, "self_attn.q_proj", 4)...),
			testmodel.Tensor{Name: pfx + "model.embed_tokens.lora_embedding_A", DType: "F32", Shape: []uint64{4, 128}},
			testmodel.Tensor{Name: pfx + "model.embed_tokens.lora_embedding_B", DType: "F32", Shape: []uint64{32, 4}},
			testmodel.Tensor{Name: pfx + "model.embed_tokens.base_layer.weight", DType: "F32", Shape: []uint64{128, 32}}), 3, "LoRA", nil, nil},
		{"modules_to_save", cfg(`, "target_modules": ["q_proj", "v_proj"], "modules_to_save": ["lm_head"]`),
			append(qv(4), testmodel.Tensor{Name: pfx + "lm_head.weight", DType: "BF16", Shape: []uint64{128, 32}}), 4, "LoRA", nil, nil},
		{"adapter name in keys", cfg(`, "target_modules": ["q_proj", "v_proj"]`), func() []testmodel.Tensor {
			ts := qv(4)
			for i := range ts {
				ts[i].Name = strings.Replace(ts[i].Name, ".weight", ".default.weight", 1)
			}
			return ts
		}(), 4, "LoRA", nil, nil},
		{"SEQ_CLS head", `{"peft_type": "LORA", "task_type": "SEQ_CLS", "r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]}`,
			append(qv(4), testmodel.Tensor{Name: pfx + "score.weight", DType: "F32", Shape: []uint64{3, 32}}), 4, "LoRA", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := tinyAdapter(t, c.config, c.tensors)
			r := checkAdapter(t, dir, tinyBase(t))
			require.Empty(t, problemNames(r), r.Text())
			assert.Len(t, r.Modules, c.modules)
			assert.Equal(t, len(c.tensors), r.Expected)
			assert.Equal(t, c.kind, r.Adapter.Config.Kind())
			for k, want := range c.ranks {
				require.NotNil(t, r.Module(k), k)
				assert.Equal(t, want, r.Module(k).Rank, k)
			}
			for k, want := range c.scales {
				require.NotNil(t, r.Module(k), k)
				assert.InDelta(t, want, r.Module(k).Scale, 1e-12, k)
			}
			// Alone, the same adapter is consistent too.
			ra := checkAdapter(t, dir, "")
			assert.Empty(t, problemNames(ra), ra.Text())
		})
	}
}

// Adapters that do not fit: each problem named as the model check names
// it, with the tensor.
func TestTinyAdapterProblems(t *testing.T) {
	drop := func(name string) []testmodel.Tensor {
		var out []testmodel.Tensor
		for _, x := range qv(4) {
			if x.Name != name {
				out = append(out, x)
			}
		}
		return out
	}
	reshape := func(name string, shape ...uint64) []testmodel.Tensor {
		ts := qv(4)
		for i := range ts {
			if ts[i].Name == name {
				ts[i].Shape = shape
			}
		}
		return ts
	}
	qA := pfx + "model.layers.1.self_attn.q_proj.lora_A.weight"
	qB := pfx + "model.layers.1.self_attn.q_proj.lora_B.weight"
	cases := []struct {
		name   string
		config string
		ts     []testmodel.Tensor
		want   []string // kind tensor, with the base
		alone  []string // without it
		detail string
	}{
		{"missing B", cfg(`, "target_modules": ["q_proj", "v_proj"]`), drop(qB), []string{"missing " + qB}, []string{"missing " + qB}, ""},
		{"wrong in", cfg(`, "target_modules": ["q_proj", "v_proj"]`), reshape(qA, 4, 48), []string{"mis-shaped " + qA}, []string{"mis-shaped " + qA},
			"is [4, 48], expected [r, in] = [4, 32]: dim 1 is 48, in is 32"},
		{"wrong rank", cfg(`, "target_modules": ["q_proj", "v_proj"]`), reshape(qA, 8, 32), []string{"mis-shaped " + qA}, []string{"mis-shaped " + qA}, "dim 0 is 8, r is 4"},
		{"untargeted module", cfg(`, "target_modules": ["q_proj", "v_proj"]`), append(qv(4), pair(0, "mlp.up_proj", 4)...),
			[]string{"unexpected " + pfx + "model.layers.0.mlp.up_proj.lora_A.weight", "unexpected " + pfx + "model.layers.0.mlp.up_proj.lora_B.weight"},
			[]string{"unexpected " + pfx + "model.layers.0.mlp.up_proj.lora_A.weight", "unexpected " + pfx + "model.layers.0.mlp.up_proj.lora_B.weight"}, ""},
		{"DoRA without magnitudes", cfg(`, "target_modules": ["q_proj"], "use_dora": true`), append(pair(0, "self_attn.q_proj", 4), pair(1, "self_attn.q_proj", 4)...),
			[]string{"missing " + pfx + "model.layers.0.self_attn.q_proj.lora_magnitude_vector", "missing " + pfx + "model.layers.1.self_attn.q_proj.lora_magnitude_vector"},
			[]string{"missing " + pfx + "model.layers.0.self_attn.q_proj.lora_magnitude_vector", "missing " + pfx + "model.layers.1.self_attn.q_proj.lora_magnitude_vector"}, ""},
		{"head of another width", `{"peft_type": "LORA", "task_type": "SEQ_CLS", "r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]}`,
			append(qv(4), testmodel.Tensor{Name: pfx + "score.weight", DType: "F32", Shape: []uint64{3, 48}}), []string{"mis-shaped " + pfx + "score.weight"}, nil, "dim 1 is 48, H is 32"},
		{"no prefix", cfg(`, "target_modules": ["q_proj", "v_proj"]`), func() []testmodel.Tensor {
			ts := qv(4)
			ts[0].Name = strings.TrimPrefix(ts[0].Name, pfx)
			return ts
		}(), []string{"missing " + pfx + "model.layers.0.self_attn.q_proj.lora_A.weight", "unexpected model.layers.0.self_attn.q_proj.lora_A.weight"},
			[]string{"missing " + pfx + "model.layers.0.self_attn.q_proj.lora_A.weight", "unexpected model.layers.0.self_attn.q_proj.lora_A.weight"}, "lacks PEFT's key prefix"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := tinyAdapter(t, c.config, c.ts)
			r := checkAdapter(t, dir, tinyBase(t))
			assert.Equal(t, c.want, problemNames(r), r.Text())
			if c.detail != "" {
				assert.Contains(t, r.Text(), c.detail)
			}
			ra := checkAdapter(t, dir, "")
			assert.Equal(t, c.alone, problemNames(ra), ra.Text())
		})
	}
}

// Without a base, a layer that lacks a module the other layers have is
// missing it.
func TestAloneSameModulesInEveryLayer(t *testing.T) {
	var ts []testmodel.Tensor
	for _, x := range qv(4) {
		if !strings.Contains(x.Name, "layers.1.self_attn.v_proj") {
			ts = append(ts, x)
		}
	}
	r := checkAdapter(t, tinyAdapter(t, cfg(`, "target_modules": ["q_proj", "v_proj"]`), ts), "")
	assert.Equal(t, []string{"missing " + pfx + "model.layers.1.self_attn.v_proj.lora_A.weight", "missing " + pfx + "model.layers.1.self_attn.v_proj.lora_B.weight"}, problemNames(r))
	for _, p := range r.Problems {
		assert.Equal(t, check.Missing, p.Kind)
	}
}

// Malformed configs and adapters are errors, one line naming the file.
func TestOpenErrors(t *testing.T) {
	cases := []struct {
		name, config string
		bin          bool
		want         string
	}{
		{"not json", `{`, false, "adapter_config.json: not a JSON object"},
		{"not lora", `{"peft_type": "PREFIX_TUNING"}`, false, `peft_type is "PREFIX_TUNING": only LoRA adapters are read`},
		{"bad r", `{"peft_type": "LORA", "r": -1}`, false, "r must be a positive integer"},
		{"bad targets", `{"peft_type": "LORA", "target_modules": 3}`, false, "target_modules must be a string or a list of strings"},
		{"bad regex", `{"peft_type": "LORA", "target_modules": "(?<=x)q"}`, false, "target_modules is not a regular expression Go can run"},
		{"bad bias", `{"peft_type": "LORA", "bias": "some"}`, false, `bias is "some"`},
		{"peft_type not a string", `{"peft_type": 1}`, false, "peft_type must be a string"},
		{"revision not a string", `{"peft_type": "LORA", "revision": ["main"]}`, false, "revision must be a string"},
		{"use_dora not a bool", `{"peft_type": "LORA", "use_dora": "yes"}`, false, "use_dora must be true or false"},
		{"lora_bias not a bool", `{"peft_type": "LORA", "lora_bias": 0}`, false, "lora_bias must be true or false"},
		{"bin not a checkpoint", `{"peft_type": "LORA"}`, true, "adapter_model.bin: not a PyTorch checkpoint"},
		{"no weights", `{"peft_type": "LORA"}`, false, "no adapter_model.safetensors"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, adapter.ConfigName), []byte(c.config), 0o644))
			if c.bin {
				require.NoError(t, os.WriteFile(filepath.Join(dir, adapter.BinName), []byte("PK"), 0o644))
			}
			_, err := adapter.Open(dir, nil)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	_, err := adapter.Open(tinyBase(t), nil)
	assert.ErrorIs(t, err, adapter.ErrNotAdapter)
}

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
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteLlamaBase(dir, filepath.Join(realDir(t, "bases"), "Llama-3.2-1B", "config.json")))
	return dir
}

func headerBase(t testing.TB, config string, ts []testmodel.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteHeaderOnly(dir, config, ts))
	return dir
}

func checkAdapter(t testing.TB, adapterDir, baseDir string) *adapter.Report {
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
			r := checkAdapter(t, realDir(t, c.name), c.base(t))
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
	r := checkAdapter(t, realDir(t, "abrhaleyarefaine1997"), headerBase(t, testmodel.GPT2Config(12), testmodel.GPT2Tensors(12)))
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
			r := checkAdapter(t, realDir(t, name), "")
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
		r := checkAdapter(t, realDir(t, "Kuntya"), b)
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
	r := checkAdapter(t, realDir(t, "phuongsky"), headerBase(t, testmodel.GPT2Config(6), ts))
	require.Len(t, r.Problems, 12)
	for _, p := range r.Problems {
		assert.Equal(t, check.Misshaped, p.Kind)
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

// An adapter over HTTP (Range requests, as from the Hub) reads as a local
// one; IsAdapter makes no request for it.
func TestOpenHTTP(t *testing.T) {
	dir := realDir(t, "phuongsky")
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	t.Cleanup(srv.Close)
	assert.False(t, adapter.IsAdapter(srv.URL+"/"))
	assert.True(t, adapter.IsRemote(srv.URL+"/"))
	a, err := adapter.Open(srv.URL+"/", nil)
	require.NoError(t, err)
	defer a.Close()
	local := checkAdapter(t, dir, "")
	r := adapter.Check(a, nil, "no base")
	assert.Empty(t, problemNames(r))
	assert.Equal(t, local.Params, r.Params)
	require.Len(t, r.Modules, 6)
	d, err := r.Modules[0].Delta()
	require.NoError(t, err)
	ld, err := local.Modules[0].Delta()
	require.NoError(t, err)
	row, lrow := make([]float32, d.Cols), make([]float32, ld.Cols)
	d.Row(7, 0, row)
	ld.Row(7, 0, lrow)
	assert.Equal(t, lrow, row)
}

// TestConfigPatternBounds: the patterns and lists of adapter_config.json
// are matched against every module of the base, so a config under a MB
// could cost minutes (a 660 KB target_modules expression): past the
// bounds each is refused at once, in one line naming the field.
func TestConfigPatternBounds(t *testing.T) {
	quoted := func(s string) string { return fmt.Sprintf("%q", s) }
	names := func(n int) string {
		l := make([]string, n)
		for i := range l {
			l[i] = quoted(fmt.Sprintf("m%d", i))
		}
		return "[" + strings.Join(l, ",") + "]"
	}
	keys := func(n int, key func(i int) string) string {
		l := make([]string, n)
		for i := range l {
			l[i] = quoted(key(i)) + ": 4"
		}
		return "{" + strings.Join(l, ",") + "}"
	}
	for _, c := range []struct {
		name, field, json, says string
	}{
		{"a 660 KB target_modules", "target_modules", quoted(".*(" + strings.Repeat("q_proj|", 660<<10/7) + "v_proj)"), "at most 4096 are read"},
		{"a target_modules of 5,000 instructions", "target_modules", quoted(strings.Repeat("[a-z]{1000}", 5)), "instructions once compiled"},
		{"an exclude_modules of 5 KB", "exclude_modules", quoted(strings.Repeat("a", 5<<10)), "at most 4096 are read"},
		{"100,000 target_modules", "target_modules", names(100000), "lists 100000 names"},
		{"2,000 modules_to_save", "modules_to_save", names(2000), "lists 2000 names"},
		{"2,000 layers_pattern", "layers_pattern", names(2000), "lists 2000 names"},
		{"a layers_pattern of 5 KB", "layers_pattern", quoted(strings.Repeat("a", 5<<10)), "at most 4096 are read"},
		{"2,000 rank_pattern keys", "rank_pattern", keys(2000, func(i int) string { return fmt.Sprint("m", i) }), "more than 1024 keys"},
		{"alpha_pattern keys of 40,000 instructions", "alpha_pattern", keys(10, func(i int) string { return strings.Repeat("[a-z]{900}", 4) + fmt.Sprint(i) }), "past 32768 instructions"},
	} {
		t.Run(c.name, func(t *testing.T) {
			raw := []byte(`{"peft_type": "LORA", "r": 4, "layers_to_transform": [1], "` + c.field + `": ` + c.json + `}`)
			_, err := adapter.ParseConfig("adapter_config.json", raw)
			require.Error(t, err)
			var ce *adapter.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, c.field, ce.Field)
			assert.Contains(t, err.Error(), c.says)
			assert.True(t, strings.HasPrefix(err.Error(), "adapter_config.json: "+c.field), err.Error())
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	// Within the bounds: read, and layers_pattern compiled once, not for
	// each module matched.
	c, err := adapter.ParseConfig("adapter_config.json", []byte(`{"peft_type": "LORA", "target_modules": ["q_proj"], "layers_to_transform": [1], "layers_pattern": ["blocks", "layers"]}`))
	require.NoError(t, err)
	assert.True(t, c.Targeted("model.layers.1.self_attn.q_proj", nil, nil))
	assert.False(t, c.Targeted("model.layers.2.self_attn.q_proj", nil, nil))
	allocs := testing.AllocsPerRun(100, func() { c.Targeted("model.layers.1.self_attn.q_proj", nil, nil) })
	assert.LessOrEqual(t, allocs, 8.0, "allocations to match one module")
}
