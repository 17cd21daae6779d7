package check_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/tensor"
)

var update = flag.Bool("update", false, "rewrite golden files")

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
			r := checkDir(t, testmodel.TinyDir(t, c.edit))
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
	r := checkDir(t, filepath.Join(dir, "model.safetensors"))
	assert.Nil(t, r.Plan)
	assert.True(t, r.Clean())
	assert.Contains(t, r.Text(), "– cross-check skipped: a single file was given")
	assert.Contains(t, r.Text(), "model.layers.1.mlp.up_proj.weight")
	assert.Contains(t, r.Text(), "params: 32,992 stored in 25 tensors")

	require.NoError(t, os.Remove(filepath.Join(dir, "config.json")))
	r = checkDir(t, dir)
	assert.Contains(t, r.Verdict(), "there is no config.json in "+dir)
}

func TestGoldenTinyReport(t *testing.T) {
	dir := filepath.Join(repo, "testdata", "tiny-qwen3")
	r := checkDir(t, dir)
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
	r := checkDir(t, dir)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Len(t, r.Model.Tensors(), 311)
	assert.Equal(t, uint64(751_632_384), r.Stored)
	assert.Equal(t, uint64(596_049_920), r.Logical)
	assert.Equal(t, uint64(155_582_464), r.Embeddings)
	assert.Equal(t, "26.1", strings.TrimSpace(strings.Split(strings.Split(r.Verdict(), "= ")[1], "%")[0]))
	assert.Equal(t, "0.6B", check.SizeLabel(r.Logical))
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
		assert.Equal(t, want, check.SizeLabel(n), n)
	}
}

// TestReportLongNames: names, dtypes and shapes longer than the seed's
// columns widen them for the whole table, so that the columns stay apart
// and aligned; where everything fits, the seed's layout is unchanged
// (TestRealityAnchor).
func TestReportLongNames(t *testing.T) {
	dir := filepath.Join(repo, "testdata", "tiny-qwen3", "model.safetensors")
	r := checkDir(t, dir) // a single file: full names, up to 46 runes
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
	r := checkDir(t, dir)
	var want []string
	for _, e := range r.ExpectedSet() {
		if r.Model.Tensor(e.Name) == nil {
			want = append(want, e.Name)
		}
	}
	got := r.Lacking()
	require.Len(t, want, 4)
	assert.ElementsMatch(t, want, got)
	assert.Empty(t, checkDir(t, filepath.Join(repo, "testdata", "tiny-qwen3")).Lacking())
}

type jsonVerdict struct {
	Checked bool   `json:"checked"`
	Depth   string `json:"depth"`
	Clean   bool   `json:"clean"`
}

func verdictOf(t *testing.T, r *check.Report) jsonVerdict {
	t.Helper()
	var v jsonVerdict
	require.NoError(t, json.Unmarshal(r.JSON(), &v))
	return v
}

// TestDepth: the JSON's clean is true only for a full check without
// problems; depth says how far the check went.
func TestDepth(t *testing.T) {
	r := checkDir(t, testmodel.TinyDir(t, nil))
	assert.Equal(t, jsonVerdict{true, check.DepthFull, true}, verdictOf(t, r))

	unknown := strings.Replace(testmodel.TinyQwen3Config, `"qwen3"`, `"qwen9"`, 1)
	unknown = strings.Replace(unknown, `"Qwen3ForCausalLM"`, `"Qwen9ForCausalLM"`, 1)
	dir := testmodel.TinyDir(t, nil)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(unknown), 0o644))
	r = checkDir(t, dir)
	assert.True(t, r.Clean())
	assert.Equal(t, jsonVerdict{false, check.DepthStructural, false}, verdictOf(t, r), "a structural check is never clean in the JSON")
	assert.Contains(t, r.Verdict(), "– structural check only: no spec for architecture Qwen9ForCausalLM; its tensors are consistent: layers 0..1 (num_hidden_layers)")

	r = checkDir(t, filepath.Join(dir, "model.safetensors"))
	assert.Equal(t, jsonVerdict{false, check.DepthNone, false}, verdictOf(t, r))
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
	assert.Equal(t, check.DepthStructural, r.Depth)
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
		got := check.Escape(c.in)
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
	r := checkDir(t, dir)
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
	r := checkDir(t, dir)
	var j map[string]any
	require.NoError(t, json.Unmarshal(r.JSON(), &j))
	for _, k := range []string{"files", "dimensions", "problems", "notes", "warnings", "tensor_list"} {
		assert.NotNil(t, j[k], k)
		assert.IsType(t, []any{}, j[k], k)
	}
	assert.Len(t, j["files"], 1)
	assert.Empty(t, j["tensor_list"])

	// A single-file check with no tensors at all.
	r = checkDir(t, filepath.Join(dir, "model.safetensors"))
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
	r := checkDir(t, dir)
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

// TestGPTQLogicalCount rebuilds the real Qwen3-30B-A3B-GPTQ-Int4 layout
// from its config and checks that packed qweights count as the values
// they pack and that qzeros, scales and g_idx are auxiliaries: logical is
// the model card's 30.5B and the Hub parser's count.
func TestGPTQLogicalCount(t *testing.T) {
	dir := t.TempDir()
	q, err := testmodel.WriteGPTQSharded(dir, realworld("Qwen3-30B-A3B-GPTQ-Int4", "config.json"))
	require.NoError(t, err)
	require.Equal(t, testmodel.GPTQ{Bits: 4, GroupSize: 128}, q)
	r := checkDir(t, dir)
	assert.True(t, r.Clean(), r.Verdict())
	hub, aux := hubCount(r.Model.Tensors(), "gptq", q.Bits)
	assert.Equal(t, hub, r.Logical, "the Hub parser's count")
	assert.Equal(t, uint64(qwen3MoE30B), r.Logical, "the model card's")
	assert.Equal(t, "30.5B", check.SizeLabel(r.Logical))
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
	r := checkDir(t, dir)
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
	r := checkDir(t, dir)
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

func checkDir(t *testing.T, dir string) *check.Report {
	t.Helper()
	_, r := testmodel.Checked(t, dir)
	return r
}

const repo = ".."

func checkLayout(t *testing.T, config []byte, ts []testmodel.Tensor) *check.Report {
	t.Helper()
	m, err := testmodel.OpenHeaderOnly(config, ts)
	return testmodel.CheckOpened(t, m, err)
}

func problemNames(r *check.Report) []string {
	var out []string
	for _, p := range r.Problems {
		out = append(out, p.Tensor)
	}
	return out
}

// forgedName is a tensor name that, printed raw, moves the cursor up two
// lines, clears one and writes a verdict of its own on a line of its own.
const forgedName = "model.x\x1b[2A\x1b[2K\r  ✓ all 25 expected tensors present, shapes match the config\n"

func realworld(parts ...string) string {
	return filepath.Join(append([]string{repo, "testdata", "realworld"}, parts...)...)
}

// qwen3MoE30B is the model card's count for Qwen3-30B-A3B ("30.5B"), which
// the unquantized Qwen3-Coder-30B-A3B layout also gives (RealShardedModels).
const qwen3MoE30B = 30_532_122_624

// RealShardedModels are the real sharded indexes the tests rebuild as
// sparse shards; the MoE and FP8 ones are large (61 GB and 31 GB apparent).
//
// Logical+Aux is what Logical was before quantization auxiliaries were
// told apart (the figure the table held then); Logical is now the model
// card's: 30.5B for both Qwen3-Coder layouts, 8,030,261,248 for
// Llama-3.1-8B, whose bnb layout adds 224 SCB rows (1,376,256) and 224
// weight_format scalars, and whose FP8 sibling 1,824,768 block scales.
var RealShardedModels = []struct {
	Dir                  string
	Spec                 string
	Tensors, Shards      int
	Stored, Logical, Aux uint64
}{
	{"Devstral-Small-2507", "Mistral", 363, 10, 23_572_403_200, 23_572_403_200, 0},
	{"cogito-v1-preview-qwen-14B", "Qwen2", 579, 6, 14_765_947_904, 14_765_947_904, 0},
	{"Qwen3-Coder-30B-A3B-Instruct", "Qwen3-MoE", 18_867, 13, 30_532_122_624, 30_532_122_624, 0},
	{"Qwen3-Coder-30B-A3B-Instruct-FP8", "Qwen3-MoE", 37_491, 7, 30_533_947_392, 30_532_122_624, 1_824_768},
	{"Llama-3.1-8B-Instruct-bnb8bit-finetune", "Llama", 739, 2, 8_031_637_728, 8_030_261_248, 1_376_480},
}

func writeRealSharded(t testing.TB, name string) (string, uint64) {
	t.Helper()
	dir := t.TempDir()
	total, err := testmodel.WriteRealSharded(dir, realworld(name))
	require.NoError(t, err)
	return dir, total
}

// TestRealShardedIndexes checks our shape rules against reality: the
// tensors our spec implies, laid out as each real index says, add up to
// the index's metadata.total_size, and the result checks clean.
func TestRealShardedIndexes(t *testing.T) {
	for _, c := range RealShardedModels {
		t.Run(c.Dir, func(t *testing.T) {
			dir, total := writeRealSharded(t, c.Dir)
			raw, err := os.ReadFile(filepath.Join(dir, "model.safetensors.index.json"))
			require.NoError(t, err)
			idx, err := safetensors.ParseIndex("model.safetensors.index.json", raw)
			require.NoError(t, err)
			require.NotNil(t, idx.TotalSize)
			assert.Equal(t, *idx.TotalSize, total, "our shapes give the index's total_size")

			start := time.Now()
			r := checkDir(t, dir)
			t.Logf("%s: open+check %v", c.Dir, time.Since(start))
			assert.True(t, r.Clean(), r.Verdict())
			assert.Equal(t, c.Spec, r.Plan.Arch)
			assert.Len(t, r.Model.Tensors(), c.Tensors)
			assert.Len(t, r.Model.Files, c.Shards)
			assert.Equal(t, c.Stored, r.Stored)
			assert.Equal(t, c.Logical, r.Logical)
			assert.Equal(t, c.Aux, r.Auxiliary)
			assert.Equal(t, len(r.ExpectedSet()), c.Tensors, "expected/ lists every tensor of a clean model")
		})
	}
}

func TestMoEReport(t *testing.T) {
	dir, _ := writeRealSharded(t, "Qwen3-Coder-30B-A3B-Instruct")
	r := checkDir(t, dir)
	text := r.Text()
	for _, want := range []string{
		"  E  num_experts               128   experts per sparse block, 8 active per token\n",
		"  Im moe_intermediate_size      768   expert FFN inner width\n",
		"  each block  × 48   (shown: layer 0)\n",
		// The expert rows' names are the longest: the name column is
		// one wider than they are, for every row.
		"    mlp.gate.weight                       BF16  [128, 2048]         262,144  2048 ──▶ 128   (router)\n",
		"    mlp.experts.{0..127}.gate_proj.weight BF16  [768, 2048]       1,572,864  2048 ──▶ 768   (× 128 experts)\n",
		"    mlp.experts.{0..127}.down_proj.weight BF16  [2048, 768]       1,572,864  768 ──▶ 2048   (× 128 experts)\n",
		"  ✓ all 18867 expected tensors present, shapes match the config\n",
		`  params: 30,532,122,624 stored · 30,532,122,624 logical (the "30.5B")` + "\n",
	} {
		assert.Contains(t, text, want)
	}
}

func TestMissingShards(t *testing.T) {
	_, err := model.Open(realworld("Llama-3.2-3B-per-tensor-shards"))
	require.ErrorIs(t, err, safetensors.CodeMissingShard)
	assert.Contains(t, err.Error(), "243 of the 254 shards it names are missing: embed_tokens.safetensors, ")
}

func TestSafeTensorsJLSharded(t *testing.T) {
	r := checkDir(t, realworld("SafeTensors.jl-sharded"))
	assert.Len(t, r.Model.Files, 6)
	assert.Len(t, r.Model.Tensors(), 36)
	var bytes int64
	for _, tt := range r.Model.Tensors() {
		bytes += tt.Length
	}
	assert.Equal(t, int64(4305), bytes)
	assert.Contains(t, r.Verdict(), "cross-check skipped: there is no config.json")
}

// TestDeepSeekV3FullSize: the full-size DeepSeek-V3 (61 layers, 256
// experts), its names and shapes repeated from transformers' layout,
// checks clean: 45,395 tensors, as the issue counts them.
func TestDeepSeekV3FullSize(t *testing.T) {
	dir, n := deepseekV3Full(t)
	assert.Equal(t, 45_395, n)
	r := checkDir(t, dir)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Equal(t, "DeepSeek-V3", r.Plan.Arch)
	assert.Len(t, r.Model.Files, 46)
}

// An architecture without a spec is checked structurally whatever the
// format holding its tensors: the same tensors as safetensors and as a
// PyTorch .bin get the same depth and the same problems (the .bin used to
// be "listed, not checked").
func TestStructuralCheckEveryFormat(t *testing.T) {
	for _, drop := range []string{"", "model.layers.1.mlp.up_proj.weight"} {
		st, pt := testmodel.FancyNetFormats(t, drop)
		var reports []*check.Report
		for _, dir := range []string{st, pt} {
			m, err := model.Open(dir)
			require.NoError(t, err)
			defer m.Close()
			r, err := check.Check(m)
			require.NoError(t, err)
			assert.Equal(t, check.DepthStructural, r.Depth, "%s (%s)", dir, m.Format)
			assert.NotContains(t, r.Skipped, "listed, not checked")
			assert.Equal(t, drop == "", r.Clean(), r.Text())
			reports = append(reports, r)
		}
		assert.Equal(t, model.FormatPyTorch, reports[1].Model.Format)
		assert.Equal(t, reports[0].Problems, reports[1].Problems, "the same problems from both formats")
	}
}
