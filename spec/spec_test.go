package spec_test

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

var update = flag.Bool("update", false, "rewrite golden files")

const repo = ".."

func TestConfigStrict(t *testing.T) {
	base := map[string]any{
		"architectures": []string{"Qwen3ForCausalLM"}, "model_type": "qwen3",
		"vocab_size": 128, "hidden_size": 32, "num_hidden_layers": 2,
		"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
		"intermediate_size": 64, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
	}
	cases := []struct {
		name  string
		edit  func(m map[string]any)
		field string // named in the error; "" means no error
		msg   string
	}{
		{"valid", func(m map[string]any) {}, "", ""},
		{"missing hidden_size", func(m map[string]any) { delete(m, "hidden_size") }, "hidden_size", "is missing"},
		{"null vocab_size", func(m map[string]any) { m["vocab_size"] = nil }, "vocab_size", "is missing"},
		{"string layers", func(m map[string]any) { m["num_hidden_layers"] = "28" }, "num_hidden_layers", "must be an integer"},
		{"fractional heads", func(m map[string]any) { m["num_attention_heads"] = 4.5 }, "num_attention_heads", "must be an integer"},
		{"negative intermediate", func(m map[string]any) { m["intermediate_size"] = -64 }, "intermediate_size", "must not be negative"},
		{"absurd layers", func(m map[string]any) { m["num_hidden_layers"] = 1e12 }, "num_hidden_layers", "more than"},
		{"zero hidden", func(m map[string]any) { m["hidden_size"] = 0 }, "hidden_size", "must be positive"},
		{"bool tie as string", func(m map[string]any) { m["tie_word_embeddings"] = "yes" }, "tie_word_embeddings", "must be true or false"},
		{"kv not dividing", func(m map[string]any) { m["num_key_value_heads"] = 3 }, "num_key_value_heads", "does not divide"},
		{"integral float ok", func(m map[string]any) { m["hidden_size"] = 32.0 }, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := map[string]any{}
			for k, v := range base {
				m[k] = v
			}
			c.edit(m)
			raw, _ := json.Marshal(m)
			cfg, err := spec.ParseConfig("x/config.json", raw)
			require.NoError(t, err)
			err = assertExpectErr(t, cfg, c.field, c.msg)
			if c.field != "" {
				assert.Contains(t, err.Error(), "x/config.json")
			}
		})
	}
	_, err := spec.ParseConfig("c.json", []byte("[1,2]"))
	assert.ErrorContains(t, err, "not a JSON object")
}

func TestHeadDimRule(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["LlamaForCausalLM"],"vocab_size":10,"hidden_size":64,
		"num_hidden_layers":1,"num_attention_heads":8,"intermediate_size":128}`))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	// head_dim absent: H/heads = 8; num_key_value_heads absent: = heads.
	byName := map[string]spec.ExpectedTensor{}
	for _, e := range p.Tensors {
		byName[e.Name] = e
	}
	assert.Equal(t, []uint64{64, 64}, byName["model.layers.0.self_attn.k_proj.weight"].ShapeValues())
	_, hasQNorm := byName["model.layers.0.self_attn.q_norm.weight"]
	assert.False(t, hasQNorm, "Llama has no q_norm")
	assert.Contains(t, p.Legend[3].Desc, "not in config: H/heads = 64/8")
}

func TestExpectQwen3RealConfig(t *testing.T) {
	cfg, err := testmodel.LoadConfig(filepath.Join(repo, "testdata", "qwen3-0.6b-layout", "config.json"))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	assert.Equal(t, "Qwen3", p.Arch)
	assert.Len(t, p.Tensors, 3+11*28)
	var required, params uint64
	for _, e := range p.Tensors {
		if !e.Optional {
			required++
			n := uint64(1)
			for _, d := range e.Shape {
				n *= d.Val
			}
			params += n
		}
	}
	assert.Equal(t, uint64(310), required)
	assert.Equal(t, uint64(596_049_920), params, "logical parameters")
	last := p.Tensors[len(p.Tensors)-1]
	assert.Equal(t, "lm_head.weight", last.Name)
	assert.True(t, last.Optional, "tied head is optional")
}

func TestNoSpec(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["FancyNetForCausalLM"],"model_type":"fancy"}`))
	require.NoError(t, err)
	_, err = spec.Expect(cfg)
	var ns *spec.NoSpecError
	require.True(t, errors.As(err, &ns))
	assert.Equal(t, "no spec for architecture FancyNetForCausalLM", err.Error())
}

func check(t *testing.T, dir string) *spec.Report {
	t.Helper()
	m, err := model.Open(dir)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	r, err := spec.Check(m)
	require.NoError(t, err)
	return r
}

func find(ts []testmodel.Tensor, name string) int {
	for i := range ts {
		if ts[i].Name == name {
			return i
		}
	}
	panic(name)
}

// TestCrossCheck builds each case through the real parser from a written
// file.
func TestCrossCheck(t *testing.T) {
	cases := []struct {
		name     string
		edit     func([]testmodel.Tensor) []testmodel.Tensor
		problems []string // "kind: detail substring"
		note     string
		logical  uint64
	}{
		{"clean and dedup", func(ts []testmodel.Tensor) []testmodel.Tensor { return ts },
			nil, "redundant byte-identical copy of embed_tokens (4,096 params counted once)", 28_896},
		{"shape mismatch", func(ts []testmodel.Tensor) []testmodel.Tensor {
			i := find(ts, "model.layers.1.self_attn.q_proj.weight")
			ts[i].Shape, ts[i].Data = []uint64{64, 31}, nil
			return ts
		}, []string{"mis-shaped: model.layers.1.self_attn.q_proj.weight is [64, 31], expected [heads·d, H] = [64, 32]: dim 1 is 31, H is 32"}, "", 28_896 - 64},
		{"missing", func(ts []testmodel.Tensor) []testmodel.Tensor {
			i := find(ts, "model.layers.0.mlp.up_proj.weight")
			return append(ts[:i], ts[i+1:]...)
		}, []string{"missing: model.layers.0.mlp.up_proj.weight, expected [I, H] = [64, 32]"}, "", 28_896 - 2048},
		{"unexpected", func(ts []testmodel.Tensor) []testmodel.Tensor {
			return append(ts, testmodel.Tensor{Name: "model.layers.0.self_attn.extra.weight", DType: "BF16", Shape: []uint64{3}})
		}, []string{"unexpected: model.layers.0.self_attn.extra.weight BF16 [3] is not part of Qwen3"}, "", 28_896 + 3},
		{"tied head omitted", func(ts []testmodel.Tensor) []testmodel.Tensor { return ts[:len(ts)-1] },
			nil, "lm_head.weight omitted", 28_896},
		{"tied head differs", func(ts []testmodel.Tensor) []testmodel.Tensor {
			head := append([]byte(nil), ts[len(ts)-1].Data...)
			head[1000] ^= 1
			ts[len(ts)-1].Data = head
			return ts
		}, []string{"tied head differs: lm_head.weight is tied but differs from embed_tokens, first at byte 1,000 of 8,192"}, "", 32_992},
		{"dtype", func(ts []testmodel.Tensor) []testmodel.Tensor {
			i := find(ts, "model.norm.weight")
			ts[i].DType, ts[i].Data = "F32", nil
			return ts
		}, []string{"dtype: model.norm.weight is F32, config.json says bfloat16 (BF16)"}, "", 28_896},
		{"legacy inv_freq ignored", func(ts []testmodel.Tensor) []testmodel.Tensor {
			return append(ts, testmodel.Tensor{Name: "model.layers.0.self_attn.rotary_emb.inv_freq", DType: "F32", Shape: []uint64{8}})
		}, nil, "1 legacy rotary_emb.inv_freq buffer ignored", 28_896},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := check(t, testmodel.TinyDir(t, c.edit))
			var got []string
			for _, p := range r.Problems {
				got = append(got, string(p.Kind)+": "+p.Detail)
			}
			assert.Equal(t, c.problems, got)
			assert.Equal(t, len(c.problems) == 0, r.Clean())
			if c.note != "" {
				assert.Contains(t, strings.Join(r.Notes, "\n"), c.note)
			}
			assert.Equal(t, c.logical, r.Logical)
			v := r.Verdict()
			if r.Clean() {
				assert.True(t, strings.HasPrefix(v, "  ✓ "), v)
			} else {
				assert.True(t, strings.HasPrefix(v, "  ✗ 1 problem: "), v)
				assert.Contains(t, v, c.problems[0])
			}
		})
	}
}

func TestSingleFileSkipsCheck(t *testing.T) {
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor { return ts })
	r := check(t, filepath.Join(dir, "model.safetensors"))
	assert.Nil(t, r.Plan)
	assert.True(t, r.Clean())
	assert.Contains(t, r.Text(), "– cross-check skipped: a single file was given")
	assert.Contains(t, r.Text(), "model.layers.1.mlp.up_proj.weight")
	assert.Contains(t, r.Text(), "params: 32,992 stored in 25 tensors")

	require.NoError(t, os.Remove(filepath.Join(dir, "config.json")))
	r = check(t, dir)
	assert.Contains(t, r.Verdict(), "there is no config.json in "+dir)
}

func TestGoldenTinyReport(t *testing.T) {
	dir := filepath.Join(repo, "testdata", "tiny-qwen3")
	r := check(t, dir)
	golden(t, filepath.Join(dir, "report.golden"), r.Text())
	golden(t, filepath.Join(dir, "report.json.golden"), string(r.JSON()))
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(want), got)
}

// TestRealityAnchor checks the real Qwen3-0.6B layout, written as a sparse
// file with the real names and offsets, against the seed's figures and its
// whole report.
func TestRealityAnchor(t *testing.T) {
	layout := filepath.Join(repo, "testdata", "qwen3-0.6b-layout")
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteSparseModel(dir, filepath.Join(layout, "model.safetensors.tensor-listing.tsv"), filepath.Join(layout, "config.json")))
	r := check(t, dir)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Len(t, r.Model.Tensors(), 311)
	assert.Equal(t, uint64(751_632_384), r.Stored)
	assert.Equal(t, uint64(596_049_920), r.Logical)
	assert.Equal(t, uint64(155_582_464), r.Embeddings)
	assert.Equal(t, "26.1", strings.TrimSpace(strings.Split(strings.Split(r.Verdict(), "= ")[1], "%")[0]))
	assert.Equal(t, "0.6B", spec.SizeLabel(r.Logical))
	// report.golden is the seed page's report, transcribed; never -update it.
	want, err := os.ReadFile(filepath.Join(layout, "report.golden"))
	require.NoError(t, err)
	assert.Equal(t, string(want), r.Text())
	assert.Len(t, r.ExpectedSet(), 311)
}

func TestSizeLabel(t *testing.T) {
	for n, want := range map[uint64]string{
		596_049_920: "0.6B", 30_532_122_624: "30.5B", 8_190_735_360: "8.2B",
		494_032_768: "0.5B", 1_235_814_400: "1.2B", 28_896: "28.9K", 5_000_000: "5.0M",
	} {
		assert.Equal(t, want, spec.SizeLabel(n), n)
	}
}

// TestArchitectureCounts checks each spec's tensor count per block against
// the modules of transformers' modeling files: Llama 9L+2, Qwen2 12L+2, Qwen3 11L+2, Gemma2 11L+2
// (plus an untied lm_head), and the switches that add biases.
func TestArchitectureCounts(t *testing.T) {
	const dims = `"vocab_size":16,"hidden_size":8,"num_hidden_layers":3,"num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":12`
	for _, c := range []struct {
		arch, extra string
		perLayer    int
		tied        bool
		spec        string
	}{
		{"LlamaForCausalLM", "", 9, false, "Llama"},
		{"LlamaForCausalLM", `,"attention_bias":true,"mlp_bias":true`, 9 + 4 + 3, false, "Llama"},
		{"MistralForCausalLM", `,"head_dim":16,"attention_bias":true`, 9, false, "Mistral"},
		{"Qwen2ForCausalLM", `,"tie_word_embeddings":true`, 12, true, "Qwen2"},
		{"Qwen3ForCausalLM", "", 11, false, "Qwen3"},
		{"GemmaForCausalLM", `,"head_dim":4`, 9, true, "Gemma"},
		{"Gemma2ForCausalLM", `,"head_dim":4`, 11, true, "Gemma2"},
	} {
		t.Run(c.arch+c.extra, func(t *testing.T) {
			cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["`+c.arch+`"],`+dims+c.extra+`}`))
			require.NoError(t, err)
			p, err := spec.Expect(cfg)
			require.NoError(t, err)
			assert.Equal(t, c.spec, p.Arch)
			assert.Equal(t, c.tied, p.Tied, "the config class's tie_word_embeddings default")
			assert.Len(t, p.Tensors, c.perLayer*3+3)
			if c.arch == "Gemma2ForCausalLM" {
				assert.Equal(t, "model.layers.0.post_feedforward_layernorm.weight", p.Tensors[c.perLayer].Name)
			}
		})
	}
	// model_type alone selects the spec when "architectures" is absent.
	cfg, err := spec.ParseConfig("c", []byte(`{"model_type":"qwen2",`+dims+`}`))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	assert.Equal(t, "Qwen2", p.Arch)
}

// TestReportLongNames: names, dtypes and shapes longer than the seed's
// columns widen them for the whole table, so that the columns stay apart
// and aligned; where everything fits, the seed's layout is unchanged
// (TestRealityAnchor).
func TestReportLongNames(t *testing.T) {
	dir := filepath.Join(repo, "testdata", "tiny-qwen3", "model.safetensors")
	r := check(t, dir) // a single file: full names, up to 46 runes
	lines := strings.Split(r.Text(), "\n")
	var rows []string
	for _, l := range lines {
		if strings.HasPrefix(l, "    model.") || strings.HasPrefix(l, "    lm_head") {
			rows = append(rows, l)
		}
	}
	require.Len(t, rows, 25)
	header := lines[1]
	require.True(t, strings.HasPrefix(header, "  TENSOR "), header)
	dtypeCol := strings.Index(header, "DTYPE")
	shapeCol := strings.Index(header, "SHAPE")
	for _, row := range rows {
		assert.Equal(t, "BF16", row[dtypeCol:dtypeCol+4], "dtype column: %q", row)
		assert.Equal(t, byte(' '), row[dtypeCol-1], "a space before the dtype: %q", row)
		assert.Equal(t, byte('['), row[shapeCol], "shape column: %q", row)
	}
	assert.Contains(t, r.Text(), "    model.layers.0.post_attention_layernorm.weight BF16  [32]   ")
}

// TestAbsurdDimensions: a small config that asks for an enormous expected
// set is refused at once, with a ConfigError naming the field and the
// bound, instead of taking seconds and gigabytes.
func TestAbsurdDimensions(t *testing.T) {
	const dense = `"architectures":["Qwen3ForCausalLM"],"model_type":"qwen3","vocab_size":128,"hidden_size":32,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":64,"tie_word_embeddings":true,"torch_dtype":"bfloat16"`
	const moe = `"architectures":["Qwen3MoeForCausalLM"],"model_type":"qwen3_moe","vocab_size":128,"hidden_size":32,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":64,"moe_intermediate_size":16,
		"num_experts_per_tok":2,"tie_word_embeddings":true,"torch_dtype":"bfloat16"`
	for _, c := range []struct {
		name, config, field, msg string
	}{
		{"262144 layers", `{` + dense + `,"num_hidden_layers":262144}`, "num_hidden_layers",
			`field "num_hidden_layers" is 262144, more than the 1024 layers fsmount accepts`},
		{"100000 experts", `{` + moe + `,"num_hidden_layers":2,"num_experts":100000}`, "num_experts",
			`field "num_experts" is 100000, more than the 4096 experts fsmount accepts`},
		{"set above MaxExpected", `{` + moe + `,"num_hidden_layers":1024,"num_experts":4096}`, "num_experts",
			"1024 layers of 4096 experts imply up to 12,599,300 tensors, more than the 1,048,576 fsmount accepts"},
		{"set far above the files", `{` + moe + `,"num_hidden_layers":1000,"num_experts":300}`, "num_experts",
			"1000 layers of 300 experts imply up to 916,004 tensors, the files hold 25"},
		{"dense set above the files", `{` + dense + `,"num_hidden_layers":1000}`, "num_hidden_layers",
			"1000 layers imply up to 15,004 tensors, the files hold 25"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := testmodel.TinyDir(t, nil)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(c.config), 0o644))
			m, err := model.Open(dir)
			require.NoError(t, err)
			defer m.Close()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = spec.Check(m)
			runtime.ReadMemStats(&after)
			var ce *spec.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, c.field, ce.Field)
			assert.Contains(t, err.Error(), c.msg)
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated")
		})
	}
}

// TestBoundsAdmitRealModels: the real sharded checkpoints, the largest
// expected sets we have, are within the bounds (TestRealShardedIndexes
// checks them whole); here a plan as large as Kimi-K2's is accepted.
func TestBoundsAdmitRealModels(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["Qwen3MoeForCausalLM"],"vocab_size":16,"hidden_size":8,
		"num_hidden_layers":61,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12,
		"num_experts":384,"moe_intermediate_size":4,"num_experts_per_tok":8}`))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	assert.Greater(t, len(p.Tensors), 70_000)
	assert.True(t, strings.HasPrefix(p.Tensors[0].Name, "model."))
}

// TestFamiliesCompile: every registered family's expressions parse and
// name only known symbols.
func TestFamiliesCompile(t *testing.T) {
	require.NoError(t, spec.CompileFamilies())
}

// TestLacking: the expected tensors the files lack, as the tree lays
// them out beside the files' (Report.Lacking), are exactly those of the
// expected set that are not in the files, without making the set.
func TestLacking(t *testing.T) {
	layout := filepath.Join(repo, "testdata", "qwen3-0.6b-layout")
	raw, err := os.ReadFile(filepath.Join(layout, "model.safetensors.tensor-listing.tsv"))
	require.NoError(t, err)
	// The listing without five tensors, the others' offsets closed up.
	kept := []string{strings.SplitAfter(string(raw), "\n")[0]}
	var off uint64
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n")[1:] {
		f := strings.Split(line, "\t")
		if strings.Contains(f[0], "layers.3.mlp.") || strings.Contains(f[0], "layers.5.self_attn.q_norm") {
			continue
		}
		n, err := strconv.ParseUint(f[5], 10, 64)
		require.NoError(t, err)
		kept = append(kept, fmt.Sprintf("%s\t%s\t%s\t%d\t%d\t%d\n", f[0], f[1], f[2], off, off+n, n))
		off += n
	}
	listing := filepath.Join(t.TempDir(), "listing.tsv")
	require.NoError(t, os.WriteFile(listing, []byte(strings.Join(kept, "")), 0o644))
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteSparseModel(dir, listing, filepath.Join(layout, "config.json")))
	r := check(t, dir)
	var want []string
	for _, e := range r.ExpectedSet() {
		if r.Model.Tensor(e.Name) == nil {
			want = append(want, e.Name)
		}
	}
	got := r.Lacking()
	require.Len(t, want, 4)
	assert.ElementsMatch(t, want, got)
	assert.Empty(t, check(t, filepath.Join(repo, "testdata", "tiny-qwen3")).Lacking())
}
