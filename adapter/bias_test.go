package adapter_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// gpt2Adapter is a GPT-2 LoRA on c_attn and c_proj (attn and mlp) of
// layers 0 and 1, as PEFT keys it, with bias (each name's shape) added.
func gpt2Adapter(bias map[string][]uint64) []testmodel.Tensor {
	var ts []testmodel.Tensor
	for l := range 2 {
		for _, m := range []struct {
			name    string
			in, out uint64
		}{{"attn.c_attn", 768, 2304}, {"attn.c_proj", 768, 768}, {"mlp.c_proj", 3072, 768}} {
			k := fmt.Sprintf("%stransformer.h.%d.%s", pfx, l, m.name)
			ts = append(ts, testmodel.Tensor{Name: k + ".lora_A.weight", DType: "F32", Shape: []uint64{8, m.in}},
				testmodel.Tensor{Name: k + ".lora_B.weight", DType: "F32", Shape: []uint64{m.out, 8}})
		}
	}
	for n, s := range bias {
		ts = append(ts, testmodel.Tensor{Name: pfx + n, DType: "F32", Shape: s})
	}
	return ts
}

const gpt2LoRA = `{"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "gpt2", "r": 8, "lora_alpha": 32,
	"fan_in_fan_out": true, "target_modules": ["c_attn", "c_proj"], "bias": %q}`

// biases returns, for layers 0 and 1, the biases of the adapted modules
// under name(module) and, with others, the other biases of the layer.
func biases(name func(mod string) string, others bool) map[string][]uint64 {
	out := map[string][]uint64{}
	for l := range 2 {
		h := fmt.Sprintf("transformer.h.%d.", l)
		out[name(h+"attn.c_attn")] = []uint64{2304}
		out[name(h+"attn.c_proj")] = []uint64{768}
		out[name(h+"mlp.c_proj")] = []uint64{768}
		if others {
			for n, s := range map[string]uint64{"ln_1.bias": 768, "ln_2.bias": 768, "mlp.c_fc.bias": 3072} {
				out[h+n] = []uint64{s}
			}
		}
	}
	if others {
		out["transformer.ln_f.bias"] = []uint64{768}
	}
	return out
}

// What each bias setting saves, as PEFT's get_peft_model_state_dict does:
// "none" none; "lora_only" each adapted module's bias, named module.bias,
// by an old PEFT (the LoRA layer was the Linear) and none by a PEFT with
// base_layer (its bias is module.base_layer.bias, which the name PEFT
// looks up misses); "all" every bias, an adapted module's as
// module.base_layer.bias (new) or module.bias (old).
func TestBiasModes(t *testing.T) {
	plain := func(m string) string { return m + ".bias" }
	wrapped := func(m string) string { return m + ".base_layer.bias" }
	newAll := biases(wrapped, true)
	for n, s := range biases(plain, true) {
		if _, ok := newAll[n]; !ok && !regexp.MustCompile(`c_attn|attn\.c_proj|mlp\.c_proj`).MatchString(n) {
			newAll[n] = s
		}
	}
	wrongShape := biases(plain, false)
	wrongShape["transformer.h.1.attn.c_attn.bias"] = []uint64{768}
	cases := []struct {
		name, bias string
		stored     map[string][]uint64
		problems   []string // with the base
		copies     int
		alone      []string // without it
	}{
		{"none", "none", nil, nil, 0, nil},
		{"lora_only, new PEFT: no biases", "lora_only", nil, nil, 0, nil},
		{"lora_only, old PEFT: module.bias", "lora_only", biases(plain, false), nil, 6, nil},
		{"lora_only, some old", "lora_only", map[string][]uint64{"transformer.h.0.attn.c_attn.bias": {2304}}, nil, 1, nil},
		{"lora_only never saves base_layer.bias", "lora_only", map[string][]uint64{"transformer.h.0.attn.c_attn.base_layer.bias": {2304}},
			[]string{"unexpected base_model.model.transformer.h.0.attn.c_attn.base_layer.bias"}, 0,
			[]string{"unexpected base_model.model.transformer.h.0.attn.c_attn.base_layer.bias"}},
		{"lora_only, a bias of the wrong shape", "lora_only", wrongShape,
			[]string{"mis-shaped base_model.model.transformer.h.1.attn.c_attn.bias"}, 6, nil},
		{"all, new PEFT", "all", newAll, nil, 6 + 6 + 1, nil},
		{"all, old PEFT", "all", biases(plain, true), nil, 6 + 6 + 1, nil},
		{"all, none saved", "all", nil, []string{"missing"}, 0, nil},
	}
	base := headerBase(t, testmodel.GPT2Config(2), testmodel.GPT2Tensors(2))
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := tinyAdapter(t, fmt.Sprintf(gpt2LoRA, c.bias), gpt2Adapter(c.stored))
			r := checkAdapter(t, dir, base)
			got := problemNames(r)
			if len(c.problems) == 1 && c.problems[0] == "missing" {
				require.Len(t, got, 6+6+1, r.Text())
				for _, p := range r.Problems {
					assert.Equal(t, "missing", string(p.Kind))
				}
			} else {
				assert.Equal(t, c.problems, got, r.Text())
			}
			assert.Len(t, r.Modules, 6)
			assert.Len(t, r.Copies, c.copies)
			if c.bias == "lora_only" && c.copies > 0 {
				assert.Equal(t, pfx+"transformer.h.0.attn.c_attn.bias", r.Copies["h.0.attn.c_attn.bias"].Name, "the merged model's bias is the adapter's")
			}
			a := checkAdapter(t, dir, "")
			assert.Equal(t, c.alone, problemNames(a), a.Text())
		})
	}
}

// The real GPT-2 adapter (fan_in_fan_out, c_attn and c_proj), saved by
// PEFT 0.15 with bias "none", is what that PEFT saves for "lora_only"
// too: no bias tensor. It used to fail with every
// transformer.h.N.attn.c_attn.base_layer.bias "missing".
func TestRealGPT2LoRAOnlyBias(t *testing.T) {
	src := realDir(t, "abrhaleyarefaine1997")
	dir := t.TempDir()
	cfg, err := os.ReadFile(filepath.Join(src, "adapter_config.json"))
	require.NoError(t, err)
	cfg = regexp.MustCompile(`"bias": "none"`).ReplaceAll(cfg, []byte(`"bias": "lora_only"`))
	require.Contains(t, string(cfg), `"bias": "lora_only"`)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "adapter_config.json"), cfg, 0o644))
	require.NoError(t, os.Symlink(filepath.Join(src, "adapter_model.safetensors"), filepath.Join(dir, "adapter_model.safetensors")))
	r := checkAdapter(t, dir, headerBase(t, testmodel.GPT2Config(12), testmodel.GPT2Tensors(12)))
	assert.Empty(t, problemNames(r), r.Text())
	assert.Len(t, r.Modules, 36)
	assert.Contains(t, r.Text(), "✓ all 72 expected tensors present")
}
