package spec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
	"github.com/fsmount/fsmount/tensor"
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
	_, r := testmodel.Checked(t, dir)
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

func expectJSON(t *testing.T, config string) *spec.Plan {
	t.Helper()
	cfg, err := spec.ParseConfig("c", []byte(config))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	return p
}

func legendRow(t *testing.T, p *spec.Plan, field string) spec.LegendRow {
	t.Helper()
	for _, l := range p.Legend {
		if l.Field == field {
			return l
		}
	}
	t.Fatalf("no legend row for %s", field)
	return spec.LegendRow{}
}

func shapeOf(p *spec.Plan, name string) []uint64 {
	for _, e := range p.Tensors {
		if e.Name == name {
			return e.ShapeValues()
		}
	}
	return nil
}

// TestClassDefaults: a key config.json omits takes the config class's
// default, as transformers does (reference §3.2–3.3), not a guess shared
// by every architecture, and the legend says "(default)".
func TestClassDefaults(t *testing.T) {
	// hidden 64 and 8 heads: H/heads would be 8.
	const dims = `"vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":8,"intermediate_size":32`
	for _, c := range []struct {
		arch, extra  string
		headDim, nkv uint64
		hdWhy, kvWhy string
	}{
		{"Qwen3ForCausalLM", `,"num_key_value_heads":4`, 128, 4, "Qwen3Config's 128", ""},
		{"GemmaForCausalLM", `,"num_key_value_heads":4`, 256, 4, "GemmaConfig's 256", ""},
		{"Gemma2ForCausalLM", `,"num_key_value_heads":4`, 256, 4, "Gemma2Config's 256", ""},
		{"LlamaForCausalLM", "", 8, 8, "H/heads = 64/8", "= num_attention_heads"},
		{"MistralForCausalLM", "", 8, 8, "H/heads = 64/8", "MistralConfig's 8"},
		{"GemmaForCausalLM", `,"head_dim":8,"num_attention_heads":16`, 8, 16, "", "GemmaConfig's 16"},
		{"Gemma2ForCausalLM", `,"head_dim":8`, 8, 4, "", "Gemma2Config's 4"},
		{"Qwen2ForCausalLM", `,"num_attention_heads":32`, 2, 32, "H/heads = 64/32", "Qwen2Config's 32"},
		{"LlamaForCausalLM", `,"num_key_value_heads":null,"head_dim":null`, 8, 8, "H/heads = 64/8", "= num_attention_heads"},
	} {
		t.Run(c.arch+c.extra, func(t *testing.T) {
			p := expectJSON(t, `{"architectures":["`+c.arch+`"],`+dims+c.extra+`}`)
			hd, kv := legendRow(t, p, "head_dim"), legendRow(t, p, "num_key_value_heads")
			assert.Equal(t, c.headDim, hd.Value)
			assert.Equal(t, c.nkv, kv.Value)
			assert.Equal(t, c.hdWhy, hd.Default)
			assert.Equal(t, c.kvWhy, kv.Default)
			if c.hdWhy != "" {
				assert.Contains(t, hd.Desc, "(default) not in config: "+c.hdWhy)
			}
			if c.kvWhy != "" {
				assert.Contains(t, kv.Desc, "(default) not in config: "+c.kvWhy)
			}
			assert.Equal(t, []uint64{c.nkv * c.headDim, 64}, shapeOf(p, "model.layers.0.self_attn.k_proj.weight"))
		})
	}
}

func TestClassDefaultsRefused(t *testing.T) {
	const dims = `"vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":8,"intermediate_size":32`
	for _, c := range []struct{ config, field, msg string }{
		// Qwen3Config's num_key_value_heads default, 32, does not divide 8 heads.
		{`{"architectures":["Qwen3ForCausalLM"],` + dims + `}`, "num_key_value_heads", "is 32 (not in config: Qwen3Config's 32), which does not divide num_attention_heads 8"},
		{`{"architectures":["Qwen3MoeForCausalLM"],"num_key_value_heads":null,` + dims + `}`, "num_key_value_heads", "is null, which Qwen3MoeConfig does not replace"},
		{`{"architectures":["Qwen3ForCausalLM"],"num_key_value_heads":4,"head_dim":null,` + dims + `}`, "head_dim", "is null, which Qwen3Config does not replace"},
	} {
		cfg, err := spec.ParseConfig("c", []byte(c.config))
		require.NoError(t, err)
		_, err = spec.Expect(cfg)
		var ce *spec.ConfigError
		require.ErrorAs(t, err, &ce, c.config)
		assert.Equal(t, c.field, ce.Field)
		assert.Contains(t, err.Error(), c.msg)
	}
}

// TestDefaultedFlagsShown: absent booleans and MoE fields are listed in
// the legend as defaulted, with the value used.
func TestDefaultedFlagsShown(t *testing.T) {
	p := expectJSON(t, `{"architectures":["Qwen3MoeForCausalLM"],"vocab_size":16,"hidden_size":8,"num_hidden_layers":1,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12,"num_experts":4}`)
	for field, want := range map[string]string{
		"tie_word_embeddings":   "Qwen3MoeConfig's false",
		"attention_bias":        "Qwen3MoeConfig's false",
		"moe_intermediate_size": "Qwen3MoeConfig's 768",
		"num_experts_per_tok":   "Qwen3MoeConfig's 8",
		"decoder_sparse_step":   "Qwen3MoeConfig's 1",
		"mlp_only_layers":       "Qwen3MoeConfig's []",
	} {
		assert.Equal(t, want, legendRow(t, p, field).Default, field)
	}
	assert.Equal(t, "", legendRow(t, p, "num_experts").Default)
	assert.Equal(t, []uint64{768, 8}, shapeOf(p, "model.layers.0.mlp.experts.3.up_proj.weight"))

	// In the report text.
	dir := testmodel.TinyDir(t, nil)
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	require.NoError(t, err)
	raw = []byte(strings.Replace(string(raw), `"attention_bias": false,`, "", 1))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644))
	r := check(t, dir)
	assert.Contains(t, r.Text(), "     attention_bias          false   q, k, v and o projections have biases   (default) not in config: Qwen3Config's false\n")
	assert.Contains(t, string(r.JSON()), `"default": "Qwen3Config's false"`)
}

// capped are the fields the reference's a/ configs set below their
// class's default (fewer layers and experts, README), so removing them
// changes the model; every other field of an a/ config is its class's
// default.
var capped = map[string]bool{
	"num_hidden_layers": true, "num_layers": true, "n_layer": true, "n_layers": true, "layer_types": true,
	"n_routed_experts": true, "num_experts": true, "num_local_experts": true, "moe_num_experts": true,
	"num_experts_per_tok": true, "moe_topk": true, "moe_k": true, "moe_layers": true, "cross_attention_layers": true,
	"ffn_config": true, "attention_layers": true, "no_rope_layers": true, "moe_layer_end_index": true,
	// arch-more: the seq2seq decoders' and Q-Former's layer counts.
	"decoder_layers": true, "num_decoder_layers": true, "encoder_layers": true,
	// arch-last: xLSTM's num_blocks, absent = num_hidden_layers, which a/ caps.
	"num_blocks": true,
	// arch-p1: Zamba2's layers_block_type, cut to the a/ config's 7 layers.
	"layers_block_type": true,
}

// handMade are the architectures whose a/ config is a real model's, not
// the class defaults (the reference README's "hand-made base").
var handMade = map[string]bool{"dots1": true, "hunyuan_v1_dense": true, "hunyuan_v1_moe": true, "ministral": true,
	"nemotron": true, "emu3.Emu3ForCausalLM": true, "mllama.MllamaForCausalLM": true,
	// arch-more's hand-made bases.
	"aya_vision": true, "chameleon": true, "emu3.Emu3ForConditionalGeneration": true, "granitemoehybrid": true, "idefics3": true,
	"mllama.MllamaForConditionalGeneration": true, "musicgen": true, "musicgen_melody": true, "phi4_multimodal": true, "pixtral": true,
	"qwen3_vl": true, "qwen3_vl_moe": true, "reformer": true, "smolvlm": true, "vision-encoder-decoder": true}

// TestLayoutDefaults: every field of a default config (a/) is its class's
// default, so deleting it from config.json must not change the expected
// set: this checks each family's defaults against transformers' own.
func TestLayoutDefaults(t *testing.T) {
	pending := readPending(t)
	for _, l := range readLayouts(t) {
		if l.Variant != "a" || pending[l.Arch] || handMade[l.Arch] {
			continue
		}
		var fields map[string]json.RawMessage
		// Python's Infinity (Mamba2's time_step_limit) as a JSON number, so
		// that encoding/json can take the config apart.
		require.NoError(t, json.Unmarshal(bytes.ReplaceAll(l.Config, []byte("Infinity"), []byte("1e999")), &fields))
		want := plannedSet(t, l.Config)
		for k := range fields {
			// A sub-config (text_config, vision_config, …) holds capped layer
			// counts of its own: removing it whole changes the model.
			if capped[k] || k == "architectures" || k == "model_type" || strings.HasPrefix(strings.TrimSpace(string(fields[k])), "{") {
				continue
			}
			edited := map[string]json.RawMessage{}
			for k2, v := range fields {
				if k2 != k {
					edited[k2] = v
				}
			}
			raw, _ := json.Marshal(edited)
			c, err := spec.ParseConfig("config.json", raw)
			require.NoError(t, err)
			p, err := spec.Expect(c)
			if err != nil {
				assert.Contains(t, err.Error(), "is missing", "%s without %s", l.Arch, k)
				continue
			}
			assert.Equal(t, want, setOf(p), "%s: without %q the expected set changes: the spec's default is not %s's", l.Arch, k, strings.TrimSpace(string(fields[k])))
		}
	}
}

func plannedSet(t *testing.T, config []byte) []string {
	c, err := spec.ParseConfig("config.json", config)
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err)
	return setOf(p)
}

func setOf(p *spec.Plan) []string {
	var out []string
	for _, e := range p.Tensors {
		if e.Optional && e.Role == spec.RoleHead {
			continue
		}
		out = append(out, fmt.Sprint(e.Name, e.ShapeValues()))
	}
	slices.Sort(out)
	return out
}

// tinyConfig returns the tiny model's config.json with edit applied.
func tinyConfig(edit func(string) string) string { return edit(testmodel.TinyQwen3Config) }

// TestModelTypeChoosesSpec: transformers' AutoConfig goes by model_type,
// whatever architectures lists first (reference §3.5).
func TestModelTypeChoosesSpec(t *testing.T) {
	p := expectJSON(t, `{"architectures":["LlamaForCausalLM","Qwen3ForCausalLM"],"model_type":"qwen3","vocab_size":16,
		"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12}`)
	assert.Equal(t, "Qwen3", p.Arch)
	assert.Equal(t, []uint64{4}, shapeOf(p, "model.layers.0.self_attn.q_norm.weight"), "Qwen3's q_norm")
	require.Len(t, p.Notes, 1)
	assert.Contains(t, p.Notes[0], `architectures names LlamaForCausalLM, but model_type "qwen3" selects the Qwen3 classes`)

	// Without model_type, architectures decides, as before.
	p = expectJSON(t, `{"architectures":["LlamaForCausalLM"],"vocab_size":16,
		"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":12}`)
	assert.Equal(t, "Llama", p.Arch)
	assert.Empty(t, p.Notes)
}

// seqClsDir writes the tiny model as a Qwen3ForSequenceClassification
// checkpoint: no lm_head, a bias-free score [labels, H].
func seqClsDir(t *testing.T, config string, labels uint64) string {
	t.Helper()
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		ts = ts[:len(ts)-1] // lm_head
		return append(ts, testmodel.Tensor{Name: "score.weight", DType: "BF16", Shape: []uint64{labels, 32}})
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644))
	return dir
}

func seqCls(s string) string {
	return strings.Replace(s, `"Qwen3ForCausalLM"`, `"Qwen3ForSequenceClassification"`, 1)
}

// TestSequenceClassification checks the score head (reference §3.5):
// score.weight [num_labels, H], num_labels from id2label, default 2.
func TestSequenceClassification(t *testing.T) {
	r := check(t, seqClsDir(t, tinyConfig(seqCls), 2))
	require.NotNil(t, r.Plan, r.Skipped)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Equal(t, "Qwen3ForSequenceClassification", r.Plan.Arch)
	text := r.Text()
	assert.Contains(t, text, "  C  num_labels                  2   classes of the score head   (default) not in config: PretrainedConfig's 2, no id2label\n")
	assert.Contains(t, text, "    score.weight                  BF16  [2, 32]                  64  32 ──▶ 2\n")
	assert.Contains(t, text, "✓ all 25 expected tensors present")
	assert.NotContains(t, text, "lm_head")

	three := tinyConfig(func(s string) string {
		return strings.Replace(seqCls(s), "{", `{"id2label":{"0":"neg","1":"neutral","2":"pos"},`, 1)
	})
	r = check(t, seqClsDir(t, three, 3))
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Text(), "  C  num_labels                  3   classes of the score head\n")

	// Two labels stored where id2label names three.
	r = check(t, seqClsDir(t, three, 2))
	require.Len(t, r.Problems, 1)
	assert.Equal(t, "score.weight is [2, 32], expected [C, H] = [3, 32]: dim 0 is 2, C is 3", r.Problems[0].Detail)

	// An lm_head in a classification checkpoint is not part of it.
	dir := seqClsDir(t, tinyConfig(seqCls), 2)
	require.NoError(t, testmodel.WriteModelDir(dir, tinyConfig(seqCls), append(testmodel.TinyQwen3Tensors(),
		testmodel.Tensor{Name: "score.weight", DType: "BF16", Shape: []uint64{2, 32}})))
	r = check(t, dir)
	require.Len(t, r.Problems, 1)
	assert.Equal(t, "lm_head.weight", r.Problems[0].Tensor)
}

// TestOtherHeadsSaySoWhy: a head we have no spec for is checked
// structurally, with the reason in the verdict.
func TestOtherHeadsSaySoWhy(t *testing.T) {
	config := tinyConfig(func(s string) string {
		return strings.Replace(s, `"Qwen3ForCausalLM"`, `"Qwen3ForMultipleChoice"`, 1)
	})
	dir := testmodel.TinyDir(t, nil)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644))
	r := check(t, dir)
	assert.Nil(t, r.Plan)
	assert.Equal(t, spec.DepthStructural, r.Depth)
	assert.Contains(t, r.Verdict(), "– structural check only: no spec for architecture Qwen3ForMultipleChoice (the Qwen3 spec covers the Qwen3ForCausalLM and Qwen3ForSequenceClassification heads only); its tensors are consistent: layers 0..1 (num_hidden_layers); model.layers: 2 layers in 1 kind; embedding rows = vocab_size\n")
}

// TestConfigJSONStrictness refuses what Python's json.loads refuses or
// what transformers cannot use: trailing garbage after the object, and a
// size written as a float (128.0 or 1e3 is a float to Python).
func TestConfigJSONStrictness(t *testing.T) {
	const body = `"architectures":["Qwen3ForCausalLM"],"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
		"num_key_value_heads":2,"head_dim":16,"intermediate_size":64`
	cases := []struct {
		name, raw string
		parseErr  string // ParseConfig's error, if any
		field     string // Expect's ConfigError field, if any
		msg       string
	}{
		{"valid", `{` + body + `,"vocab_size":128}`, "", "", ""},
		{"trailing whitespace", `{` + body + `,"vocab_size":128}` + " \n\t\r\n", "", "", ""},
		{"trailing garbage", `{` + body + `,"vocab_size":128} x`, "not a JSON object: invalid character 'x' after top-level value", "", ""},
		{"two objects", `{` + body + `,"vocab_size":128}{}`, "not a JSON object: invalid character '{' after top-level value", "", ""},
		{"trailing comma", `{` + body + `,"vocab_size":128,}`, "not a JSON object", "", ""},
		{"float size", `{` + body + `,"vocab_size":128.0}`, "", "vocab_size", "must be an integer, found 128.0, which Python's json reads as a float"},
		{"exponent size", `{` + body + `,"vocab_size":1.28e2}`, "", "vocab_size", "must be an integer, found 1.28e2, which Python's json reads as a float"},
		{"huge float size", `{` + body + `,"vocab_size":1e30}`, "", "vocab_size", "is 1e30, more than the 16777216 any real model uses"},
		{"fraction", `{` + body + `,"vocab_size":127.5}`, "", "vocab_size", "must be an integer, found 127.5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := spec.ParseConfig("x/config.json", []byte(c.raw))
			if c.parseErr != "" {
				var ce *spec.ConfigError
				require.ErrorAs(t, err, &ce)
				assert.Contains(t, err.Error(), c.parseErr)
				assert.True(t, strings.HasPrefix(err.Error(), "x/config.json: "))
				return
			}
			require.NoError(t, err)
			assertExpectErr(t, cfg, c.field, c.msg)
		})
	}
}

// assertExpectErr checks that spec.Expect(cfg) succeeds when field is
// empty, and otherwise fails with a ConfigError naming field and saying
// msg. It returns Expect's error.
func assertExpectErr(t *testing.T, cfg *spec.Config, field, msg string) error {
	t.Helper()
	_, err := spec.Expect(cfg)
	if field == "" {
		require.NoError(t, err)
		return nil
	}
	var ce *spec.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, field, ce.Field)
	assert.Contains(t, err.Error(), msg)
	return err
}

type jsonVerdict struct {
	Checked bool   `json:"checked"`
	Depth   string `json:"depth"`
	Clean   bool   `json:"clean"`
}

func verdictOf(t *testing.T, r *spec.Report) jsonVerdict {
	t.Helper()
	var v jsonVerdict
	require.NoError(t, json.Unmarshal(r.JSON(), &v))
	return v
}

// TestDepth: the JSON's clean is true only for a full check without
// problems; depth says how far the check went.
func TestDepth(t *testing.T) {
	r := check(t, testmodel.TinyDir(t, nil))
	assert.Equal(t, jsonVerdict{true, spec.DepthFull, true}, verdictOf(t, r))

	unknown := strings.Replace(testmodel.TinyQwen3Config, `"qwen3"`, `"qwen9"`, 1)
	unknown = strings.Replace(unknown, `"Qwen3ForCausalLM"`, `"Qwen9ForCausalLM"`, 1)
	dir := testmodel.TinyDir(t, nil)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(unknown), 0o644))
	r = check(t, dir)
	assert.True(t, r.Clean())
	assert.Equal(t, jsonVerdict{false, spec.DepthStructural, false}, verdictOf(t, r), "a structural check is never clean in the JSON")
	assert.Contains(t, r.Verdict(), "– structural check only: no spec for architecture Qwen9ForCausalLM; its tensors are consistent: layers 0..1 (num_hidden_layers)")

	r = check(t, filepath.Join(dir, "model.safetensors"))
	assert.Equal(t, jsonVerdict{false, spec.DepthNone, false}, verdictOf(t, r))
}

// TestStructuralFindsMissing: an architecture without a spec whose layer
// lacks a tensor its peers have fails the structural check (exit 1).
func TestStructuralFindsMissing(t *testing.T) {
	cfg := []byte(`{"architectures":["Qwen9ForCausalLM"],"model_type":"qwen9","vocab_size":64,"hidden_size":8,"num_hidden_layers":4,"tie_word_embeddings":true}`)
	var ts []testmodel.Tensor
	ts = append(ts, testmodel.Tensor{Name: "model.embed_tokens.weight", DType: "BF16", Shape: []uint64{64, 8}})
	for l := range 4 {
		for _, n := range []string{"input_layernorm.weight", "mlp.up_proj.weight", "self_attn.q_proj.weight"} {
			if l == 2 && n == "mlp.up_proj.weight" {
				continue
			}
			shape := []uint64{8, 8}
			if strings.HasSuffix(n, "norm.weight") {
				shape = []uint64{8}
			}
			if l == 1 && n == "self_attn.q_proj.weight" {
				shape = []uint64{8, 9}
			}
			ts = append(ts, testmodel.Tensor{Name: "model.layers." + string(rune('0'+l)) + "." + n, DType: "BF16", Shape: shape})
		}
	}
	ts = append(ts, testmodel.Tensor{Name: "lm_head.weight", DType: "BF16", Shape: []uint64{60, 8}})
	r := checkLayout(t, cfg, ts)
	assert.Equal(t, spec.DepthStructural, r.Depth)
	var got []string
	for _, p := range r.Problems {
		got = append(got, string(p.Kind)+": "+p.Detail)
	}
	assert.Equal(t, []string{
		"missing: model.layers.2.mlp.up_proj.weight, expected [8, 8] as in layer 0",
		"mis-shaped: model.layers.1.self_attn.q_proj.weight is [8, 9], its 2 peers are [8, 8]",
		"tied head differs: lm_head.weight is tied (tie_word_embeddings) but [60, 8], model.embed_tokens.weight is [64, 8]",
	}, got)
	assert.Contains(t, r.Verdict(), "✗ 3 problems: 1 missing, 1 mis-shaped, 1 tied head differs (structural check only: no spec for architecture Qwen9ForCausalLM)")

	// A layer missing altogether.
	var gap []testmodel.Tensor
	for _, x := range ts {
		if !strings.HasPrefix(x.Name, "model.layers.3.") && x.Name != "lm_head.weight" {
			gap = append(gap, x)
		}
	}
	cfg5 := []byte(strings.Replace(string(cfg), `"num_hidden_layers":4`, `"num_hidden_layers":5`, 1))
	gap = append(gap, testmodel.Tensor{Name: "model.layers.4.input_layernorm.weight", DType: "BF16", Shape: []uint64{8}})
	r = checkLayout(t, cfg5, gap)
	assert.Contains(t, problemNames(r), "model.layers.3", r.Verdict())
}

// TestPythonNonFinite: config.json may hold Python's Infinity, -Infinity
// and NaN, as transformers writes them; they are not integers.
func TestPythonNonFinite(t *testing.T) {
	c, err := spec.ParseConfig("config.json", []byte(`{"time_step_limit": [0.0, Infinity], "x": -Infinity, "y": NaN, "s": "Infinity NaN \" Infinity", "n": 3}`))
	require.NoError(t, err)
	n, err := c.IntOr("n", 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), n)
	s, err := c.StringOr("s", "")
	require.NoError(t, err)
	assert.Equal(t, `Infinity NaN " Infinity`, s)
	_, err = c.Int("x")
	assert.ErrorContains(t, err, `field "x" must be an integer, found -Infinity`)
	_, err = c.Int("y")
	assert.ErrorContains(t, err, `found NaN`)

	_, err = spec.ParseConfig("config.json", []byte(`{"x": Infinit}`))
	var ce *spec.ConfigError
	assert.ErrorAs(t, err, &ce)
}

// forgedName is a tensor name that, printed raw, moves the cursor up two
// lines, clears one and writes a verdict of its own on a line of its own.
const forgedName = "model.x\x1b[2A\x1b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n"

func TestEscape(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"model.layers.0.mlp.up_proj.weight", "model.layers.0.mlp.up_proj.weight"},
		{"ünïcødé ✓ 名前", "ünïcødé ✓ 名前"},
		{"a\nb\rc\td", `a\nb\rc\td`},
		{"esc\x1b[2K", `esc\x1b[2K`},
		{"nul\x00del\x7f", `nul\x00del\x7f`},
		{"back\\slash", `back\\slash`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"ls\u2028ps\u2029", `ls\u2028ps\u2029`},
		{"bidi\u202a\u202b\u202c\u202d\u202e", `bidi\u202a\u202b\u202c\u202d\u202e`},
		{"iso\u2066\u2067\u2068\u2069", `iso\u2066\u2067\u2068\u2069`},
		{"marks\u200e\u200f\u061c\ufeff", `marks\u200e\u200f\u061c\ufeff`},
		{"bad\xffutf8", `bad\xffutf8`},
	} {
		got := spec.Escape(c.in)
		assert.Equal(t, c.want, got, "%q", c.in)
		// Reversible: the escapes are Go's, so strconv can undo them.
		back, err := strconv.Unquote(`"` + strings.ReplaceAll(got, `"`, `\"`) + `"`)
		require.NoError(t, err, got)
		assert.Equal(t, c.in, back)
	}
}

// TestForgedNameEscaped writes a file whose header holds forgedName and
// checks that neither the report nor the verdict carries its controls,
// and that no line but the real verdict's claims success.
func TestForgedNameEscaped(t *testing.T) {
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		return append(ts, testmodel.Tensor{Name: forgedName, DType: "BF16", Shape: []uint64{2}})
	})
	r := check(t, dir)
	require.False(t, r.Clean())
	for name, text := range map[string]string{"report": r.Text(), "verdict": r.Verdict()} {
		assert.NotContains(t, text, "\x1b", name)
		assert.NotContains(t, text, "\r", name)
		assert.Contains(t, text, `model.x\x1b[2A\x1b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n`, name)
		for _, l := range strings.Split(text, "\n") {
			assert.False(t, strings.HasPrefix(strings.TrimSpace(l), "✓"), "%s: forged line %q", name, l)
		}
	}
	// The JSON report stays exact: the name round-trips unchanged.
	var j struct {
		Tensors []struct{ Name string } `json:"tensor_list"`
	}
	require.NoError(t, json.Unmarshal(r.JSON(), &j))
	var names []string
	for _, tt := range j.Tensors {
		names = append(names, tt.Name)
	}
	assert.Contains(t, names, forgedName)
}

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

// hubCount counts parameters as @huggingface/hub's parseSafetensorsMetadata
// does (reference §2.7), for the methods used here: FP8 scales and the
// GPTQ/AWQ qzeros, g_idx and scales are skipped, a GPTQ/AWQ qweight counts
// floor(32/bits) values per element, rank-0 tensors are skipped.
func hubCount(ts []*tensor.Tensor, method string, bits uint64) (params, skipped uint64) {
	skip := map[string]bool{"weight_scale": true, "weight_scale_inv": true, "weight_scale_2": true, "weight_global_scale": true,
		"weight_zero_point": true, "input_scale": true, "input_global_scale": true, "input_zero_point": true, "zero_point": true,
		"weight_shape": true, "weight_g_idx": true}
	for _, t := range ts {
		suffix := t.Name[strings.LastIndexByte(t.Name, '.')+1:]
		n := t.NumElements()
		quantAux := (method == "gptq" || method == "awq") && (suffix == "qzeros" || suffix == "g_idx" || suffix == "scales")
		switch {
		case skip[suffix] || quantAux:
			skipped += n
		case len(t.Shape) == 0:
			skipped += n
		case (method == "gptq" || method == "awq") && suffix == "qweight":
			params += n * max(1, 32/bits)
		default:
			params += n
		}
	}
	return params, skipped
}

// qwen3MoE30B is the model card's count for Qwen3-30B-A3B ("30.5B"), which
// the unquantized Qwen3-Coder-30B-A3B layout also gives (RealShardedModels).
const qwen3MoE30B = 30_532_122_624

// TestGPTQLogicalCount rebuilds the real Qwen3-30B-A3B-GPTQ-Int4 layout
// from its config and checks that packed qweights count as the values
// they pack and that qzeros, scales and g_idx are auxiliaries: logical is
// the model card's 30.5B and the Hub parser's count.
func TestGPTQLogicalCount(t *testing.T) {
	dir := t.TempDir()
	q, err := testmodel.WriteGPTQSharded(dir, realworld("Qwen3-30B-A3B-GPTQ-Int4", "config.json"))
	require.NoError(t, err)
	require.Equal(t, testmodel.GPTQ{Bits: 4, GroupSize: 128}, q)
	r := check(t, dir)
	assert.True(t, r.Clean(), r.Verdict())
	hub, aux := hubCount(r.Model.Tensors(), "gptq", q.Bits)
	assert.Equal(t, hub, r.Logical, "the Hub parser's count")
	assert.Equal(t, uint64(qwen3MoE30B), r.Logical, "the model card's")
	assert.Equal(t, "30.5B", spec.SizeLabel(r.Logical))
	assert.Equal(t, aux, r.Auxiliary)
	assert.Equal(t, r.Stored, stored(r.Model.Tensors()), "stored counts every element")
	assert.Less(t, r.Stored, r.Logical, "packed: fewer stored elements than parameters")

	v := r.Verdict()
	assert.Contains(t, v, `30,532,122,624 logical (the "30.5B")`)
	assert.Contains(t, v, "  quantization auxiliaries: "+commaString(aux)+" values (scales, zero points, group indices), stored but not parameters\n")
	var j struct {
		Params struct {
			Logical uint64 `json:"logical"`
			Aux     uint64 `json:"quantization_auxiliary"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(r.JSON(), &j))
	assert.Equal(t, r.Logical, j.Params.Logical)
	assert.Equal(t, aux, j.Params.Aux)
}

// TestFP8LogicalCount: the FP8 block scales are auxiliaries, and logical
// is the Hub parser's count and the model card's.
func TestFP8LogicalCount(t *testing.T) {
	dir, _ := writeRealSharded(t, "Qwen3-Coder-30B-A3B-Instruct-FP8")
	r := check(t, dir)
	hub, aux := hubCount(r.Model.Tensors(), "fp8", 0)
	assert.Equal(t, hub, r.Logical)
	assert.Equal(t, uint64(qwen3MoE30B), r.Logical)
	assert.Equal(t, aux, r.Auxiliary)
	assert.Equal(t, uint64(1_824_768), r.Auxiliary)
}

// TestBnbLogicalCount: bitsandbytes SCB and weight_format are auxiliaries;
// logical is Llama-3.1-8B's 8,030,261,248. (The Hub parser counts SCB as
// parameters, 1,376,256 more: we do not follow it there.)
func TestBnbLogicalCount(t *testing.T) {
	dir, _ := writeRealSharded(t, "Llama-3.1-8B-Instruct-bnb8bit-finetune")
	r := check(t, dir)
	assert.Equal(t, uint64(8_030_261_248), r.Logical)
	var scb, wf uint64
	for _, tt := range r.Model.Tensors() {
		switch {
		case strings.HasSuffix(tt.Name, ".SCB"):
			scb += tt.NumElements()
		case strings.HasSuffix(tt.Name, ".weight_format"):
			wf += tt.NumElements()
		}
	}
	assert.Equal(t, scb+wf, r.Auxiliary)
	hub, _ := hubCount(r.Model.Tensors(), "bitsandbytes", 0)
	assert.Equal(t, r.Logical+scb, hub)
}

func stored(ts []*tensor.Tensor) uint64 {
	var n uint64
	for _, t := range ts {
		n += t.NumElements()
	}
	return n
}

// commaString renders 1234567 as "1,234,567".
func commaString(n uint64) string {
	d := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
