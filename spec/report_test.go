package spec_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
	"github.com/fsmount/fsmount/tensor"
)

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
