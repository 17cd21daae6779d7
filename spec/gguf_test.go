package spec_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/gguf"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

// ggufArchCases are small configs of each llama.cpp architecture the name
// table covers, as config.json and as the GGUF metadata the converter
// writes from it.
var ggufArchCases = []struct {
	arch, config string
}{
	{"llama", `{"model_type":"llama","attention_bias":false`},
	{"llama", `{"model_type":"mixtral","num_local_experts":3,"num_experts_per_tok":2`},
	{"qwen2", `{"model_type":"qwen2"`},
	{"qwen3", `{"model_type":"qwen3"`},
	{"qwen2moe", `{"model_type":"qwen2_moe","num_experts":3,"num_experts_per_tok":2,"moe_intermediate_size":6,"shared_expert_intermediate_size":10,"qkv_bias":true`},
	{"qwen3moe", `{"model_type":"qwen3_moe","num_experts":3,"num_experts_per_tok":2,"moe_intermediate_size":6`},
	{"gemma", `{"model_type":"gemma"`},
	{"gemma2", `{"model_type":"gemma2"`},
	{"gemma3", `{"model_type":"gemma3_text","tie_word_embeddings":false`},
	{"phi3", `{"model_type":"phi3"`},
	{"granite", `{"model_type":"granite","attention_bias":false`},
	{"olmo2", `{"model_type":"olmo2","attention_bias":false`},
	{"starcoder2", `{"model_type":"starcoder2","use_bias":true`},
	{"stablelm", `{"model_type":"stablelm","use_qkv_bias":true`},
	{"command-r", `{"model_type":"cohere","use_qk_norm":false,"attention_bias":false`},
}

const ggufDims = `,"vocab_size":32,"hidden_size":16,"num_hidden_layers":2,"intermediate_size":24,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":4,"max_position_embeddings":64,"tie_word_embeddings":%v}`

// ggufFromSpec writes the GGUF of a config the way llama.cpp's converter
// would: the spec's expected tensors under their GGUF names (experts
// stacked), dimensions innermost first, and the metadata keys.
func ggufFromSpec(t *testing.T, arch, config string, tied bool, edit func([]testmodel.GGUFTensor) []testmodel.GGUFTensor) string {
	t.Helper()
	raw := config
	if !strings.Contains(config, "tie_word_embeddings") {
		raw += fmt.Sprintf(ggufDims, tied)
	} else {
		raw += strings.Replace(fmt.Sprintf(ggufDims, tied), `,"tie_word_embeddings":`+fmt.Sprint(tied), "", 1)
	}
	c, err := spec.ParseConfig("config.json", []byte(raw))
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err, raw)
	var ts []testmodel.GGUFTensor
	seen := map[string]bool{}
	for _, e := range p.Tensors {
		if e.Optional && p.Tied {
			continue
		}
		dims := make([]uint64, len(e.Shape))
		for i, d := range e.Shape {
			dims[len(dims)-1-i] = d.Val
		}
		name, expert, ok := gguf.ExpertName(arch, e.Name)
		if ok {
			dims = append(dims, uint64(p.Experts))
		} else if name, ok = gguf.GGUFName(arch, e.Name); !ok {
			t.Fatalf("%s: no GGUF name for %s", arch, e.Name)
		}
		_ = expert
		if seen[name] {
			continue
		}
		seen[name] = true
		ts = append(ts, zeroTensor(name, dims...))
	}
	if edit != nil {
		ts = edit(ts)
	}
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(raw), &m))
	kvs := []testmodel.GGUFKV{{Key: "general.architecture", Value: arch}}
	a, ok := gguf.Architecture(arch)
	require.True(t, ok)
	keys := slices.Clone(gguf.CommonKeys)
	keys = append(keys, a.Keys...)
	keys = append(keys, gguf.ConfigKey{Key: "expert_count", Field: "num_experts"}, gguf.ConfigKey{Key: "expert_count", Field: "num_local_experts"})
	if m["model_type"] == "mixtral" {
		keys = append(keys, gguf.ConfigKey{Key: "expert_feed_forward_length", Field: "intermediate_size"})
	}
	for _, k := range keys {
		if v, ok := m[k.Field].(float64); ok {
			kvs = append(kvs, testmodel.GGUFKV{Key: arch + "." + k.Key, Value: uint32(v)})
		}
	}
	toks := make([]string, 32)
	for i := range toks {
		toks[i] = fmt.Sprint("t", i)
	}
	kvs = append(kvs, testmodel.GGUFKV{Key: "tokenizer.ggml.tokens", Value: toks})
	path := filepath.Join(t.TempDir(), "model.gguf")
	require.NoError(t, testmodel.WriteGGUF(path, kvs, ts))
	return path
}

func zeroTensor(name string, dims ...uint64) testmodel.GGUFTensor {
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	return testmodel.GGUFTensor{Name: name, Type: 0, Dims: dims, Data: make([]byte, 4*n)}
}

func checkGGUF(t *testing.T, path string) *check.Report {
	t.Helper()
	m, err := model.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	require.Empty(t, m.NoConfig)
	r, err := check.Check(m)
	require.NoError(t, err)
	return r
}

// TestGGUFArchitectures writes a GGUF of every covered architecture from
// the spec's expected set converted to GGUF names: it checks fully clean,
// and a dropped tensor or a changed dimension is a problem naming it.
func TestGGUFArchitectures(t *testing.T) {
	for _, tc := range ggufArchCases {
		for _, tied := range []bool{false, true} {
			if tc.arch == "gemma" || tc.arch == "gemma2" {
				if !tied {
					continue // always tied
				}
			}
			if tc.arch == "gemma3" && tied {
				continue
			}
			mt := strings.Split(strings.Split(tc.config, `"model_type":"`)[1], `"`)[0]
			t.Run(fmt.Sprintf("%s/%s/tied=%v", tc.arch, mt, tied), func(t *testing.T) {
				r := checkGGUF(t, ggufFromSpec(t, tc.arch, tc.config, tied, nil))
				assert.True(t, r.FullyClean(), "%v %v", r.Depth, r.Problems)

				var dropped string
				r = checkGGUF(t, ggufFromSpec(t, tc.arch, tc.config, tied, func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
					i := len(ts) / 2
					dropped = ts[i].Name
					return slices.Delete(ts, i, i+1)
				}))
				require.False(t, r.Clean())
				assert.Equal(t, check.Missing, r.Problems[0].Kind)
				assert.Equal(t, dropped, r.Problems[0].Tensor)

				var changed string
				r = checkGGUF(t, ggufFromSpec(t, tc.arch, tc.config, tied, func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
					i := len(ts) - 3
					changed = ts[i].Name
					ts[i] = zeroTensor(ts[i].Name, append([]uint64{ts[i].Dims[0] + 1}, ts[i].Dims[1:]...)...)
					return ts
				}))
				require.False(t, r.Clean())
				assert.Equal(t, changed, r.Problems[0].Tensor)
			})
		}
	}
}

// convertedCase is one GGUF as llama.cpp's converter writes it from a
// reference layout: testdata/gguf-converted.txt, the output of
// testdata/gguf_convert.py, which runs llama.cpp's own converter classes
// (their renames by gguf-py's TensorNameMap, merges, splits, transposes,
// stacked experts, dropped tensors and metadata keys) on the tensors
// transformers' save_pretrained wrote. Nothing in it comes from fsmount.
type convertedCase struct {
	name, arch string
	vocab      int
	kvs        []testmodel.GGUFKV
	tensors    []testmodel.GGUFTensor
}

func readConverted(t *testing.T) []convertedCase {
	t.Helper()
	f, err := os.Open("testdata/gguf-converted.txt")
	require.NoError(t, err)
	defer f.Close()
	var out []convertedCase
	var c *convertedCase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		switch fs[0] {
		case "case":
			require.Len(t, fs, 3, sc.Text())
			c = &convertedCase{name: fs[1], arch: fs[2]}
		case "vocab":
			c.vocab, err = strconv.Atoi(fs[1])
			require.NoError(t, err)
		case "kv":
			var vs []uint32
			for _, f := range strings.Split(fs[2], ",") {
				v, err := strconv.ParseUint(f, 10, 32)
				require.NoError(t, err, sc.Text())
				vs = append(vs, uint32(v))
			}
			if strings.Contains(fs[2], ",") {
				c.kvs = append(c.kvs, testmodel.GGUFKV{Key: fs[1], Value: vs})
			} else {
				c.kvs = append(c.kvs, testmodel.GGUFKV{Key: fs[1], Value: vs[0]})
			}
		case "tensor":
			g := testmodel.GGUFTensor{Name: fs[1], Type: 1} // F16
			n := uint64(2)
			for _, d := range strings.Split(fs[2], ",") {
				v, err := strconv.ParseUint(d, 10, 64)
				require.NoError(t, err, sc.Text())
				g.Dims = append(g.Dims, v)
				n *= v
			}
			g.Zeros = n
			c.tensors = append(c.tensors, g)
		case "end":
			out = append(out, *c)
		default:
			t.Fatalf("testdata/gguf-converted.txt: %q", sc.Text())
		}
	}
	require.NoError(t, sc.Err())
	return out
}

// write writes the case's GGUF (the tensors sparse), its tensors edited.
func (c convertedCase) write(t *testing.T, edit func([]testmodel.GGUFTensor) []testmodel.GGUFTensor) string {
	t.Helper()
	toks := make([]string, c.vocab)
	for i := range toks {
		toks[i] = strconv.Itoa(i)
	}
	kvs := append([]testmodel.GGUFKV{{Key: "general.architecture", Value: c.arch}}, c.kvs...)
	kvs = append(kvs, testmodel.GGUFKV{Key: "tokenizer.ggml.tokens", Value: toks})
	ts := slices.Clone(c.tensors)
	if edit != nil {
		ts = edit(ts)
	}
	path := filepath.Join(t.TempDir(), "model.gguf")
	require.NoError(t, testmodel.WriteGGUF(path, kvs, ts))
	return path
}

// refusedByLlamaCpp are the reference layouts whose GGUF llama.cpp's own
// loader would refuse: the converter writes metadata its tensors disagree
// with, or tensors of the wrong shape. The check must find problems with
// exactly those tensors.
var refusedByLlamaCpp = map[string]struct {
	why     string
	tensors []string // GGUF base names
}{
	"qwen3_vl_moe/a-v5": {"transformers 5.x stores the experts' gate_up_proj [E, 2·I, H] and down_proj [E, H, I] (4.x: [E, H, 2·I], [E, I, H]); the converter cuts and transposes them as 4.x's, so every stacked expert tensor has its two widths wrong",
		[]string{"ffn_gate_exps", "ffn_up_exps", "ffn_down_exps"}},
	"minicpm3/MiniCPM3ForCausalLM/b": {"v_head_dim is 40, not hidden_size / heads (32); the converter writes no value_length, so llama.cpp takes 32 (its loader's attn_kv_b and attn_output shapes)",
		[]string{"attn_kv_b", "attn_output"}},
	"glm4_moe_lite/Glm4MoeLiteForCausalLM/a": {glm4MoELiteRefused, glm4MoELiteTensors},
	"glm4_moe_lite/Glm4MoeLiteForCausalLM/b": {glm4MoELiteRefused, glm4MoELiteTensors},
	"deepseek_v3/b":                          {"its config's qk_head_dim (192, which transformers sized q_b_proj by) is not qk_nope_head_dim + qk_rope_head_dim (40), which the converter writes", []string{"attn_q_b"}},
	"falcon/b":                               {"ffn_hidden_size is 736; the converter writes feed_forward_length 4·hidden_size", []string{"ffn_up", "ffn_down"}},
	"glm/b":                                  {"head_dim is 48, not hidden_size / heads (32); the converter writes no key_length, so llama.cpp takes 32", []string{"attn_q", "attn_k", "attn_v", "attn_output"}},
	"phi/b":                                  {"5 KV heads of 10 and intermediate_size 736; the converter writes head_count_kv = head_count and feed_forward_length 4·hidden_size", []string{"attn_k", "attn_v", "ffn_up", "ffn_down"}},
}

// convertedPending are the converted cases not checked fully yet, each
// with the reason (testdata/gguf-converted-pending.txt: "case reason"
// lines). Such a file must still never fail: it is only partly checked
// (exit 3) and clean.
func convertedPending(t *testing.T) map[string]string {
	t.Helper()
	b, err := os.ReadFile("testdata/gguf-converted-pending.txt")
	require.NoError(t, err)
	out := map[string]string{}
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		name, why, _ := strings.Cut(l, " ")
		out[name] = why
	}
	return out
}

// convertedOutcome is how fsinspect ends on a converted case: 0 fully
// checked and clean and each of its three mutants (a tensor of a middle
// layer dropped, one of its dimensions changed, a tensor added beside it)
// a problem naming the tensor; 1 a problem on the clean file (or a
// mutant missed: detail says which); 2 refused as invalid input; 3
// clean but only partly checked.
func convertedOutcome(t *testing.T, c convertedCase) (code int, detail string) {
	t.Helper()
	m, err := model.Open(c.write(t, nil))
	if err != nil {
		return 2, err.Error()
	}
	defer m.Close()
	r, err := check.Check(m)
	switch {
	case err != nil:
		return 2, err.Error()
	case !r.Clean():
		return 1, fmt.Sprint(r.Problems)
	case r.Depth != check.DepthFull:
		return 3, r.Skipped
	}
	// A tensor of a middle layer: the first one after half the tensors
	// that belongs to a layer (blk.N., or T5's enc.blk.N. and dec.blk.N.).
	mid := -1
	for i := len(c.tensors) / 2; i < len(c.tensors) && mid < 0; i++ {
		if n := c.tensors[i].Name; strings.HasPrefix(n, "blk.") || strings.HasPrefix(n, "enc.blk.") || strings.HasPrefix(n, "dec.blk.") {
			mid = i
		}
	}
	if mid < 0 {
		return 1, "no layer tensor to mutate"
	}
	name := c.tensors[mid].Name
	r = checkGGUF(t, c.write(t, func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor { return slices.Delete(ts, mid, mid+1) }))
	if len(r.Problems) != 1 || r.Problems[0].Kind != check.Missing || r.Problems[0].Tensor != name {
		return 1, fmt.Sprintf("%s dropped: %v", name, r.Problems)
	}
	r = checkGGUF(t, c.write(t, func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
		g := &ts[mid]
		g.Dims = slices.Clone(g.Dims)
		g.Dims[len(g.Dims)-1]++
		g.Zeros = g.Zeros / (g.Dims[len(g.Dims)-1] - 1) * g.Dims[len(g.Dims)-1]
		return ts
	}))
	if len(r.Problems) == 0 || r.Problems[0].Kind != check.Misshaped || r.Problems[0].Tensor != name {
		return 1, fmt.Sprintf("%s changed: %v", name, r.Problems)
	}
	extra := strings.Replace(name, ".weight", "_extra.weight", 1)
	if !strings.HasSuffix(name, ".weight") {
		extra = name + "_extra"
	}
	r = checkGGUF(t, c.write(t, func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
		g := ts[mid]
		g.Name = extra
		return slices.Insert(ts, mid+1, g)
	}))
	if len(r.Problems) != 1 || r.Problems[0].Kind != check.Unexpected || r.Problems[0].Tensor != extra {
		return 1, fmt.Sprintf("%s added: %v", extra, r.Problems)
	}
	return 0, ""
}

// GLM-4.7-Flash as transformers 5.x writes its config: mlp_layer_types
// (layer 0 dense) and no first_k_dense_replace, which the converter reads
// for leading_dense_block_count (0): llama.cpp expects a sparse layer 0.
const glm4MoELiteRefused = "its config says layer 0 is dense by mlp_layer_types, which the converter does not read: it writes leading_dense_block_count 0"

var glm4MoELiteTensors = []string{"ffn_gate_inp", "exp_probs_b", "ffn_gate_exps", "ffn_up_exps", "ffn_down_exps",
	"ffn_gate_shexp", "ffn_up_shexp", "ffn_down_shexp", "ffn_gate", "ffn_up", "ffn_down"}

// TestGGUFConverted checks each GGUF llama.cpp's converter writes from
// the reference layouts (testdata/gguf-converted.txt): fully checked and
// clean, and each of its three mutants a problem naming the tensor
// (convertedOutcome). A GGUF llama.cpp itself would refuse has exactly
// the tensors it would refuse mis-shaped; one of the pending list is
// clean, only partly checked.
func TestGGUFConverted(t *testing.T) {
	cases := readConverted(t)
	require.NotEmpty(t, cases)
	pending := convertedPending(t)
	var refused atomic.Int32
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				if bad, ok := refusedByLlamaCpp[c.name]; ok {
					r := checkGGUF(t, c.write(t, nil))
					require.Equal(t, check.DepthFull, r.Depth, "%s: %s", c.arch, r.Skipped)
					refused.Add(1)
					require.NotEmpty(t, r.Problems, bad.why)
					for _, p := range r.Problems {
						_, rest, _ := strings.Cut(p.Tensor, ".")
						_, rest, _ = strings.Cut(rest, ".")
						base, _, _ := strings.Cut(rest, ".")
						assert.Contains(t, bad.tensors, base, "%s (%s)", p.Detail, bad.why)
					}
					return
				}
				code, detail := convertedOutcome(t, c)
				if why, ok := pending[c.name]; ok {
					assert.Equal(t, 3, code, "pending (%s): %s", why, detail)
					return
				}
				assert.Equal(t, 0, code, "%s: %s", c.arch, detail)
			})
		}
	})
	assert.Equal(t, len(refusedByLlamaCpp), int(refused.Load()), "a case of refusedByLlamaCpp is not in testdata/gguf-converted.txt")
	for name := range pending {
		assert.True(t, slices.ContainsFunc(cases, func(c convertedCase) bool { return c.name == name }), "%s of the pending list is not in testdata/gguf-converted.txt", name)
	}
}

// TestGGUFConvertedMeasure counts the converter's architectures (a
// general.architecture's cases: full when every one ends 0, exit 1 when
// one ends 1, else exit 3) and prints each case's outcome:
//
//	FSMOUNT_GGUF_MEASURE=1 go test -run TestGGUFConvertedMeasure -v ./spec/
func TestGGUFConvertedMeasure(t *testing.T) {
	if os.Getenv("FSMOUNT_GGUF_MEASURE") == "" {
		t.Skip("set FSMOUNT_GGUF_MEASURE=1")
	}
	cases := readConverted(t)
	worst := map[string]int{}
	for _, c := range cases {
		code, detail := convertedOutcome(t, c)
		if _, ok := refusedByLlamaCpp[c.name]; ok {
			code, detail = 0, "refused by llama.cpp too"
		}
		if len(detail) > 300 {
			detail = detail[:300]
		}
		t.Logf("case %-60s %-16s %d %s", c.name, c.arch, code, detail)
		w, seen := worst[c.arch]
		switch {
		case !seen, code == 1, code == 2 && w != 1, code == 3 && w == 0:
			worst[c.arch] = code
		}
	}
	n := map[int][]string{}
	for _, a := range slices.Sorted(maps.Keys(worst)) {
		n[worst[a]] = append(n[worst[a]], a)
	}
	t.Logf("converter architectures: %d: full %d / exit 1 %d / exit 2 %d / exit 3 %d (%d cases)", len(worst), len(n[0]), len(n[1]), len(n[2]), len(n[3]), len(cases))
	t.Logf("exit 2: %v", n[2])
	t.Logf("exit 1: %v", n[1])
	t.Logf("exit 3: %v", n[3])
}

// TestGGUFFullSizeDeepSeekV3 grows the converted DeepSeek-V3 layout (4
// layers of 8 experts) to the published model, 61 layers of 256 experts
// (the first 3 dense), as a sparse GGUF: its 1,086 tensors stand for
// 45,000 Hugging Face ones, 671B parameters, and check fully and clean
// (not refused as a config implying far more tensors than the files
// hold: each stacked tensor holds one per expert).
func TestGGUFFullSizeDeepSeekV3(t *testing.T) {
	i := slices.IndexFunc(readConverted(t), func(c convertedCase) bool { return c.name == "deepseek_v3/a" })
	require.GreaterOrEqual(t, i, 0)
	c := readConverted(t)[i]
	var ts []testmodel.GGUFTensor
	for _, g := range c.tensors {
		parts := strings.SplitN(g.Name, ".", 3)
		if parts[0] != "blk" {
			ts = append(ts, g)
			continue
		}
		l, err := strconv.Atoi(parts[1])
		require.NoError(t, err)
		from, to := l, l+1 // layers 0..2 dense, as they are
		switch {
		case l == 3:
			to = 61 // the sparse layer, repeated
		case l > 3:
			continue
		}
		for n := from; n < to; n++ {
			h := g
			h.Name = "blk." + strconv.Itoa(n) + "." + parts[2]
			if last := len(g.Dims) - 1; g.Dims[last] == 8 && (strings.Contains(h.Name, "_exps") || strings.Contains(h.Name, "ffn_gate_inp") || strings.Contains(h.Name, "exp_probs_b")) {
				h.Dims = append(slices.Clone(g.Dims[:last]), 256)
				h.Zeros = g.Zeros / 8 * 256
			}
			ts = append(ts, h)
		}
	}
	for i, kv := range c.kvs {
		switch kv.Key {
		case "deepseek2.block_count":
			c.kvs[i].Value = uint32(61)
		case "deepseek2.expert_count":
			c.kvs[i].Value = uint32(256)
		}
	}
	c.tensors = ts
	r := checkGGUF(t, c.write(t, nil))
	require.Equal(t, check.DepthFull, r.Depth, r.Skipped)
	assert.True(t, r.FullyClean(), "%v", r.Problems)
	assert.Len(t, r.Plan.Tensors, 1086)
	assert.Equal(t, uint64(671_026_419_200), r.Logical)
}

// ggufSwitch is one GGUF of testdata/gguf-switches.txt: a variant the
// reference layouts do not cover, written by hand as llama.cpp's converter
// and loader lay it out.
type ggufSwitch struct {
	name, arch, model string // model: the model_type it must check as
	keys              map[string]uint32
	tensors           []string // "name ne0,ne1,…" lines; blk.L. lines are repeated for L in layers
	layers            []int
}

// readSwitches reads testdata/gguf-switches.txt: its cases, and its parts
// (the tensor lines cases share) by name.
func readSwitches(t *testing.T) (cases []ggufSwitch, parts map[string][]string) {
	t.Helper()
	const file = "testdata/gguf-switches.txt"
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	parts = map[string][]string{}
	var c *ggufSwitch
	var part string
	for _, l := range strings.Split(string(b), "\n") {
		fs := strings.Fields(l)
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		switch {
		case fs[0] == "part" && len(fs) == 2:
			part = fs[1]
			parts[part] = nil
		case fs[0] == "case" && len(fs) == 5:
			c = &ggufSwitch{name: fs[1], arch: fs[2], model: fs[3], keys: map[string]uint32{}}
			for _, f := range strings.Split(fs[4], ",") {
				n, err := strconv.Atoi(f)
				require.NoError(t, err, "%s: %s", file, l)
				c.layers = append(c.layers, n)
			}
		case fs[0] == "keys" && c != nil:
			for _, kv := range fs[1:] {
				k, v, ok := strings.Cut(kv, "=")
				n, err := strconv.ParseUint(v, 10, 32)
				require.True(t, ok && err == nil, "%s: %s", file, l)
				c.keys[k] = uint32(n)
			}
		case fs[0] == "end" && c != nil:
			cases, c = append(cases, *c), nil
		case fs[0] == "end":
			part = ""
		default:
			lines := []string{l}
			if fs[0] == "use" {
				var ok bool
				lines, ok = parts[fs[1]]
				require.True(t, ok, "%s: no part before %s", file, l)
			} else {
				require.Len(t, fs, 2, "%s: %s", file, l)
			}
			switch {
			case c != nil:
				c.tensors = append(c.tensors, lines...)
			case part != "":
				parts[part] = append(parts[part], lines...)
			default:
				t.Fatalf("%s: %q outside a case or a part", file, l)
			}
		}
	}
	return cases, parts
}

// ggufSwitchNamed is the case of testdata/gguf-switches.txt named name.
func ggufSwitchNamed(t *testing.T, name string) ggufSwitch {
	t.Helper()
	cases, _ := readSwitches(t)
	i := slices.IndexFunc(cases, func(c ggufSwitch) bool { return c.name == name })
	require.GreaterOrEqual(t, i, 0, name)
	return cases[i]
}

// writeSwitch writes a case of testdata/gguf-switches.txt, its tensor
// lines edited first.
func writeSwitch(t *testing.T, tc ggufSwitch, edit func([]string) []string) string {
	t.Helper()
	keys := map[string]uint32{"embedding_length": 16, "block_count": uint32(len(tc.layers)), "attention.head_count": 4, "context_length": 64}
	maps.Copy(keys, tc.keys)
	lines := tc.lines()
	if edit != nil {
		lines = edit(lines)
	}
	path := filepath.Join(t.TempDir(), "model.gguf")
	require.NoError(t, testmodel.WriteGGUFListing(path, tc.arch, keys, lines))
	return path
}

// lines are a case's tensor lines, the blk.L. ones once per layer.
func (tc ggufSwitch) lines() []string {
	var out []string
	for _, l := range tc.tensors {
		if !strings.HasPrefix(l, "blk.L.") {
			out = append(out, l)
			continue
		}
		for _, layer := range tc.layers {
			out = append(out, strings.Replace(l, "blk.L.", fmt.Sprintf("blk.%d.", layer), 1))
		}
	}
	return out
}

// TestGGUFSwitches: each variant checks fully as its model_type and
// clean; a dropped tensor and a changed dimension are problems naming
// the tensor.
func TestGGUFSwitches(t *testing.T) {
	cases, _ := readSwitches(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			checkVariant(t, tc.model, tc.lines(), func(edit func([]string) []string) string { return writeSwitch(t, tc, edit) })
		})
	}
}

// checkVariant: the GGUF write writes from lines checks fully as its
// model_type and clean; every third tensor of its second half dropped,
// and its outermost-in-ggml (first listed) dimension changed, are
// problems naming it.
func checkVariant(t *testing.T, modelType string, lines []string, write func(edit func([]string) []string) string) {
	t.Helper()
	r := checkGGUF(t, write(nil))
	require.Equal(t, check.DepthFull, r.Depth, r.Skipped)
	assert.Equal(t, modelType, r.Config.ModelType())
	assert.True(t, r.FullyClean(), "%v", r.Problems)

	for k := len(lines) / 2; k < len(lines); k += 3 {
		name := strings.Fields(lines[k])[0]
		r = checkGGUF(t, write(func(ls []string) []string { return slices.Delete(slices.Clone(ls), k, k+1) }))
		require.Len(t, r.Problems, 1, "%s dropped: %v", name, r.Problems)
		assert.Equal(t, check.Missing, r.Problems[0].Kind)
		assert.Equal(t, name, r.Problems[0].Tensor)

		r = checkGGUF(t, write(func(ls []string) []string {
			ls = slices.Clone(ls)
			n, dims, _ := strings.Cut(ls[k], " ")
			ds := strings.Split(dims, ",")
			v, _ := strconv.Atoi(ds[0])
			ds[0] = strconv.Itoa(v + 1)
			ls[k] = n + " " + strings.Join(ds, ",")
			return ls
		}))
		require.NotEmpty(t, r.Problems, "%s changed", name)
		assert.Equal(t, check.Misshaped, r.Problems[0].Kind, "%v", r.Problems)
		assert.Equal(t, name, r.Problems[0].Tensor)
	}
}

// TestGGUFLFM2: an LFM2 GGUF, its layers' kinds told by the per-layer
// head_count_kv array the converter writes (0: a short convolution):
// layers 0 and 2 convolutions (conv.conv [H, 1, K] stored [H, K]), layer
// 1 attention; the FFN width written already adjusted; the final norm as
// token_embd_norm; tied. A file whose array says a convolution layer is
// attention fails.
func TestGGUFLFM2(t *testing.T) {
	_, parts := readSwitches(t)
	conv, attn, mlp := parts["lfm2-conv"], parts["lfm2-attention"], parts["llama-mlp"]
	lines := slices.Concat(parts["lfm2-globals"], ggufLayer(0, conv, mlp), ggufLayer(1, attn, mlp), ggufLayer(2, conv, mlp))
	kvHeads := []uint32{0, 2, 0}
	write := func(edit func([]string) []string) string {
		ls := lines
		if edit != nil {
			ls = edit(ls)
		}
		return writeListing(t, "lfm2", map[string]any{"embedding_length": uint32(16), "block_count": uint32(3), "attention.head_count": uint32(4),
			"context_length": uint32(64), "feed_forward_length": uint32(24), "shortconv.l_cache": uint32(3), "vocab_size": uint32(32),
			"attention.head_count_kv": kvHeads}, ls)
	}
	checkVariant(t, "lfm2", lines, write)

	kvHeads = []uint32{2, 2, 0}
	r := checkGGUF(t, write(nil))
	require.NotEmpty(t, r.Problems)
	assert.Equal(t, check.Missing, r.Problems[0].Kind, "%v", r.Problems)
	assert.Equal(t, "blk.0.attn_q.weight", r.Problems[0].Tensor)
}

// TestGGUFDeepSeekV3NoGatingFunc: llama.cpp's converter writes
// expert_gating_func only from a config's scoring_func, which
// transformers' DeepseekV3Config does not have. Such a DeepSeek-V3 GGUF
// (its first three layers dense) is told from V2 by its sparse layers'
// exp_probs_b: it checks fully and clean as deepseek_v3, and a dropped
// exp_probs_b or a changed one is a problem naming it. Where the metadata
// says softmax gating, the file is V2 and its exp_probs_b unexpected.
func TestGGUFDeepSeekV3NoGatingFunc(t *testing.T) {
	cases := readConverted(t)
	i := slices.IndexFunc(cases, func(c convertedCase) bool { return c.name == "deepseek_v3/a" })
	require.GreaterOrEqual(t, i, 0)
	c := cases[i]
	// The converter of 2026 writes no expert_gating_func for it already;
	// an older one did (2: sigmoid).
	c.kvs = slices.DeleteFunc(slices.Clone(c.kvs), func(kv testmodel.GGUFKV) bool { return kv.Key == "deepseek2.expert_gating_func" })
	softmax := append(slices.Clone(c.kvs), testmodel.GGUFKV{Key: "deepseek2.expert_gating_func", Value: uint32(1)})
	require.Equal(t, "blk.0.attn_norm.weight", c.tensors[slices.IndexFunc(c.tensors, func(g testmodel.GGUFTensor) bool { return strings.HasPrefix(g.Name, "blk.") })].Name)
	require.False(t, slices.ContainsFunc(c.tensors, func(g testmodel.GGUFTensor) bool { return g.Name == "blk.0.exp_probs_b.bias" }), "layer 0 is dense")

	r := checkGGUF(t, c.write(t, nil))
	require.Equal(t, check.DepthFull, r.Depth, r.Skipped)
	assert.Equal(t, "deepseek_v3", r.Config.ModelType())
	assert.True(t, r.FullyClean(), "%v", r.Problems)

	k := slices.IndexFunc(c.tensors, func(g testmodel.GGUFTensor) bool { return g.Name == "blk.3.exp_probs_b.bias" })
	require.GreaterOrEqual(t, k, 0)
	r = checkGGUF(t, c.write(t, func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
		g := &ts[k]
		g.Dims = []uint64{g.Dims[0] + 1}
		g.Zeros = g.Dims[0] * 2
		return ts
	}))
	require.Len(t, r.Problems, 1, "%v", r.Problems)
	assert.Equal(t, check.Misshaped, r.Problems[0].Kind)
	assert.Equal(t, "blk.3.exp_probs_b.bias", r.Problems[0].Tensor)

	c.kvs = softmax
	r = checkGGUF(t, c.write(t, nil))
	assert.Equal(t, "deepseek_v2", r.Config.ModelType())
	assert.False(t, r.Clean(), "softmax gating with a correction bias")
}

// TestGGUFGLM4MoENextN: a GLM-4.5 GGUF keeps the multi-token-prediction
// layer (num_nextn_predict_layers) the checkpoint has, counted in
// block_count, with its blk.N.nextn.* tensors; transformers does not
// build that layer and ignores it on load. The file checks fully and
// clean with num_hidden_layers = block_count − nextn_predict_layers, the
// extra layer's tensors noted as ignored, and a dropped tensor of a real
// layer is still a problem naming it.
func TestGGUFGLM4MoENextN(t *testing.T) {
	glm := ggufSwitchNamed(t, "glm4moe")
	keys := map[string]uint32{"embedding_length": 16, "attention.head_count": 4, "context_length": 64, "block_count": 4, "nextn_predict_layers": 1}
	maps.Copy(keys, glm.keys)
	lines := glm.lines()
	mtp := []string{"blk.3.nextn.eh_proj.weight 32,16", "blk.3.nextn.enorm.weight 16", "blk.3.nextn.hnorm.weight 16",
		"blk.3.nextn.shared_head_norm.weight 16", "blk.3.attn_norm.weight 16", "blk.3.attn_q.weight 16,16", "blk.3.attn_q.bias 16",
		"blk.3.attn_k.weight 16,8", "blk.3.attn_k.bias 8", "blk.3.attn_v.weight 16,8", "blk.3.attn_v.bias 8",
		"blk.3.attn_output.weight 16,16", "blk.3.post_attention_norm.weight 16", "blk.3.ffn_gate_inp.weight 16,3", "blk.3.exp_probs_b.bias 3",
		"blk.3.ffn_gate_exps.weight 16,6,3", "blk.3.ffn_up_exps.weight 16,6,3", "blk.3.ffn_down_exps.weight 6,16,3",
		"blk.3.ffn_gate_shexp.weight 16,6", "blk.3.ffn_up_shexp.weight 16,6", "blk.3.ffn_down_shexp.weight 6,16"}
	write := func(ls []string) string {
		path := filepath.Join(t.TempDir(), "model.gguf")
		require.NoError(t, testmodel.WriteGGUFListing(path, "glm4moe", keys, ls))
		return path
	}
	r := checkGGUF(t, write(append(slices.Clone(lines), mtp...)))
	require.Equal(t, check.DepthFull, r.Depth, r.Skipped)
	assert.Equal(t, "glm4_moe", r.Config.ModelType())
	assert.True(t, r.FullyClean(), "%v", r.Problems)
	assert.Len(t, r.Plan.Tensors, len(lines))
	assert.True(t, slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "ignores on load") }), "%v", r.Notes)

	k := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "blk.2.ffn_up_exps.weight ") })
	require.GreaterOrEqual(t, k, 0)
	r = checkGGUF(t, write(append(slices.Delete(slices.Clone(lines), k, k+1), mtp...)))
	require.Len(t, r.Problems, 1, "%v", r.Problems)
	assert.Equal(t, check.Missing, r.Problems[0].Kind)
	assert.Equal(t, "blk.2.ffn_up_exps.weight", r.Problems[0].Tensor)
}

// TestGGUFUncovered: architectures the converter writes that the name
// table does not cover yet (docs/gguf-architectures.md lists them) get
// the structural check: a consistent file is only partly checked (exit
// 3), never a problem — hybrid files whose layers come in several kinds
// included — and a tensor dropped from one of four alike layers is a
// problem naming it (in a hybrid file it is not: a layer of a new kind).
func TestGGUFUncovered(t *testing.T) {
	_, parts := readSwitches(t)
	moe := slices.Clone(parts["globals"]) // four attention layers with MoE MLPs
	for n := range 4 {
		moe = append(moe, ggufLayer(n, parts["llama-attention"], parts["moe-mlp"])...)
	}
	for _, tc := range []struct {
		arch   string
		layers int
		lines  []string
	}{
		{"falcon-h1", 8, jambaLayers(parts)}, // a hybrid (Jamba-like) under an architecture not covered
		{"grok", 4, moe},
		{"hunyuan-moe", 4, moe},
	} {
		t.Run(tc.arch, func(t *testing.T) {
			if _, ok := gguf.Architecture(tc.arch); ok {
				t.Fatalf("%s is covered: move it to testdata/gguf-switches.txt", tc.arch)
			}
			lines := tc.lines
			write := func(ls []string) string {
				path := filepath.Join(t.TempDir(), "model.gguf")
				require.NoError(t, testmodel.WriteGGUFListing(path, tc.arch, map[string]uint32{"embedding_length": 16, "block_count": uint32(tc.layers),
					"attention.head_count": 4, "attention.head_count_kv": 2, "feed_forward_length": 24, "expert_count": 3, "expert_used_count": 2}, ls))
				return path
			}
			r := checkGGUF(t, write(lines))
			assert.Equal(t, check.DepthStructural, r.Depth)
			assert.True(t, r.Clean(), "%v", r.Problems)

			if tc.arch == "falcon-h1" {
				return // layers of four kinds: the structural check cannot tell a dropped tensor from a fifth kind
			}
			k := slices.Index(lines, "blk.1.ffn_up_exps.weight 16,24,3")
			require.GreaterOrEqual(t, k, 0)
			r = checkGGUF(t, write(slices.Delete(slices.Clone(lines), k, k+1)))
			require.NotEmpty(t, r.Problems)
			assert.Equal(t, check.Missing, r.Problems[0].Kind, "%v", r.Problems)
			assert.Equal(t, "blk.1.ffn_up_exps.weight", r.Problems[0].Tensor)
		})
	}
}

// ggufLayer is layer n's tensors from templates of its parts (blk.L.
// standing for the layer's prefix).
func ggufLayer(n int, parts ...[]string) []string {
	var out []string
	for _, l := range slices.Concat(parts...) {
		out = append(out, strings.Replace(l, "blk.L.", fmt.Sprintf("blk.%d.", n), 1))
	}
	return out
}

// jambaLayers are a Jamba's 8 layers as llama.cpp writes them, from the
// parts of testdata/gguf-switches.txt: Mamba (inner 32, state 4, Δ rank
// 1, kernel 4, conv bias) but attention at 2 and 6; a dense MLP but MoE
// (3 experts) at 1, 3, 5, 7.
func jambaLayers(parts map[string][]string) []string {
	out := slices.Clone(parts["globals"])
	for n := range 8 {
		mix, ffn := parts["mamba-mixer"], parts["llama-mlp"]
		if n%4 == 2 {
			mix = parts["llama-attention"]
		}
		if n%2 == 1 {
			ffn = parts["moe-mlp"]
		}
		out = append(out, ggufLayer(n, mix, ffn)...)
	}
	return out
}

// writeListing writes a GGUF of "name ne0,ne1,…" lines (F16, sparse) and
// metadata keys (without the "<arch>." prefix; uint32 or []uint32), a
// 32-token vocabulary.
func writeListing(t *testing.T, arch string, keys map[string]any, lines []string) string {
	t.Helper()
	kvs := []testmodel.GGUFKV{{Key: "general.architecture", Value: arch}}
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		kvs = append(kvs, testmodel.GGUFKV{Key: arch + "." + k, Value: keys[k]})
	}
	toks := make([]string, 32)
	for i := range toks {
		toks[i] = fmt.Sprint("t", i)
	}
	kvs = append(kvs, testmodel.GGUFKV{Key: "tokenizer.ggml.tokens", Value: toks})
	var ts []testmodel.GGUFTensor
	for _, l := range lines {
		name, dims, _ := strings.Cut(l, " ")
		g := testmodel.GGUFTensor{Name: name, Type: 1}
		n := uint64(2)
		for _, d := range strings.Split(dims, ",") {
			v, err := strconv.ParseUint(d, 10, 64)
			require.NoError(t, err)
			g.Dims = append(g.Dims, v)
			n *= v
		}
		g.Zeros = n
		ts = append(ts, g)
	}
	path := filepath.Join(t.TempDir(), "model.gguf")
	require.NoError(t, testmodel.WriteGGUF(path, kvs, ts))
	return path
}

// TestGGUFJamba: a Jamba GGUF, whose attention layers the per-layer
// head_count_kv array tells (offset 2, period 4) and whose MoE layers the
// routers present tell (the converter writes no key for them: offset 1,
// period 2), checks fully and clean; mutants are problems naming the
// tensor; an array that puts attention where the file has Mamba fails.
func TestGGUFJamba(t *testing.T) {
	_, parts := readSwitches(t)
	lines := jambaLayers(parts)
	kv := []uint32{0, 0, 2, 0, 0, 0, 2, 0}
	keys := func() map[string]any {
		return map[string]any{"embedding_length": uint32(16), "block_count": uint32(8), "attention.head_count": uint32(4), "context_length": uint32(64),
			"feed_forward_length": uint32(24), "attention.head_count_kv": kv, "expert_count": uint32(3), "expert_used_count": uint32(2),
			"ssm.conv_kernel": uint32(4), "ssm.state_size": uint32(4), "ssm.time_step_rank": uint32(1), "ssm.inner_size": uint32(32)}
	}
	checkVariant(t, "jamba", lines, func(edit func([]string) []string) string {
		ls := lines
		if edit != nil {
			ls = edit(ls)
		}
		return writeListing(t, "jamba", keys(), ls)
	})

	kv = []uint32{2, 0, 2, 0, 0, 0, 2, 0}
	r := checkGGUF(t, writeListing(t, "jamba", keys(), lines))
	assert.False(t, r.Clean(), "attention said at layer 0, Mamba stored")
}

// TestGGUFFusedGateUp: llama.cpp's converter with --fuse-gate-up-exps
// writes a layer's gate and up experts as one ffn_gate_up_exps [E, 2·I,
// H] (its bias [E, 2·I]); such a file checks fully and clean, and a
// fused tensor of the wrong width is a problem naming it.
func TestGGUFFusedGateUp(t *testing.T) {
	for _, name := range []string{"gpt-oss", "glm4moe"} {
		t.Run(name, func(t *testing.T) {
			tc := ggufSwitchNamed(t, name)
			fused := func(ls []string) []string {
				var out []string
				for _, l := range ls {
					n, dims, _ := strings.Cut(l, " ")
					switch {
					case strings.Contains(n, ".ffn_up_exps."):
						continue
					case strings.Contains(n, ".ffn_gate_exps."):
						ds := strings.Split(dims, ",")
						v, _ := strconv.Atoi(ds[1])
						if strings.HasSuffix(n, ".bias") {
							v, _ = strconv.Atoi(ds[0])
							ds[0] = strconv.Itoa(2 * v)
						} else {
							ds[1] = strconv.Itoa(2 * v)
						}
						out = append(out, strings.Replace(n, "ffn_gate_exps", "ffn_gate_up_exps", 1)+" "+strings.Join(ds, ","))
					default:
						out = append(out, l)
					}
				}
				return out
			}
			lines := fused(tc.lines())
			require.True(t, slices.ContainsFunc(lines, func(l string) bool { return strings.Contains(l, "ffn_gate_up_exps.weight") }))
			checkVariant(t, tc.model, lines, func(edit func([]string) []string) string {
				return writeSwitch(t, tc, func(ls []string) []string {
					ls = fused(ls)
					if edit != nil {
						ls = edit(ls)
					}
					return ls
				})
			})

			k := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "blk.1.ffn_gate_up_exps.weight ") })
			require.GreaterOrEqual(t, k, 0)
			r := checkGGUF(t, writeSwitch(t, tc, func(ls []string) []string {
				ls = fused(ls)
				n, dims, _ := strings.Cut(ls[k], " ")
				ds := strings.Split(dims, ",")
				v, _ := strconv.Atoi(ds[1])
				ds[1] = strconv.Itoa(v / 2) // only the gate half
				ls[k] = n + " " + strings.Join(ds, ",")
				return ls
			}))
			require.Len(t, r.Problems, 1, "%v", r.Problems)
			assert.Equal(t, check.Misshaped, r.Problems[0].Kind)
			assert.Equal(t, "blk.1.ffn_gate_up_exps.weight", r.Problems[0].Tensor)
		})
	}
}

// TestGGUFDSANextN: DeepSeek-V3.2 and GLM-5 GGUFs with their
// multi-token-prediction layer, as the converter writes it (it keeps
// them: block_count counts them, nextn_predict_layers says how many, the
// layer's own tensors under blk.L. beside its blk.L.nextn.*), from the
// converted layouts: the layer is noted as ignored on load, as
// transformers ignores it, the file checks fully and clean, and a tensor
// dropped from a real layer is still a problem naming it.
func TestGGUFDSANextN(t *testing.T) {
	cases := readConverted(t)
	for _, name := range []string{"deepseek_v32/DeepseekV32ForCausalLM/a", "glm_moe_dsa/GlmMoeDsaForCausalLM/b"} {
		t.Run(name, func(t *testing.T) {
			i := slices.IndexFunc(cases, func(c convertedCase) bool { return c.name == name })
			require.GreaterOrEqual(t, i, 0)
			c := cases[i]
			c.kvs = slices.Clone(c.kvs)
			var layers, hidden uint32
			for j, kv := range c.kvs {
				switch kv.Key {
				case c.arch + ".block_count":
					layers = kv.Value.(uint32)
					c.kvs[j].Value = layers + 1
				case c.arch + ".embedding_length":
					hidden = kv.Value.(uint32)
				}
			}
			require.NotZero(t, layers)
			c.kvs = append(c.kvs, testmodel.GGUFKV{Key: c.arch + ".nextn_predict_layers", Value: uint32(1)})
			last, mtp := fmt.Sprintf("blk.%d.", layers-1), fmt.Sprintf("blk.%d.", layers)
			for _, g := range c.tensors {
				if rest, ok := strings.CutPrefix(g.Name, last); ok {
					g.Name = mtp + rest
					c.tensors = append(c.tensors, g)
				}
			}
			h := uint64(hidden)
			for _, g := range []testmodel.GGUFTensor{{Name: mtp + "nextn.eh_proj.weight", Dims: []uint64{2 * h, h}},
				{Name: mtp + "nextn.enorm.weight", Dims: []uint64{h}}, {Name: mtp + "nextn.hnorm.weight", Dims: []uint64{h}},
				{Name: mtp + "nextn.shared_head_norm.weight", Dims: []uint64{h}}} {
				g.Type, g.Zeros = 1, 2*g.Dims[0]*max(1, g.Dims[len(g.Dims)-1])
				if len(g.Dims) == 1 {
					g.Zeros = 2 * g.Dims[0]
				}
				c.tensors = append(c.tensors, g)
			}
			r := checkGGUF(t, c.write(t, nil))
			require.Equal(t, check.DepthFull, r.Depth, r.Skipped)
			assert.True(t, r.FullyClean(), "%v", r.Problems)
			assert.True(t, slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "ignores on load") }), "%v", r.Notes)

			drop := last + "indexer.attn_k.weight"
			r = checkGGUF(t, c.write(t, func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
				return slices.DeleteFunc(ts, func(g testmodel.GGUFTensor) bool { return g.Name == drop })
			}))
			require.NotEmpty(t, r.Problems)
			assert.Equal(t, check.Missing, r.Problems[0].Kind, "%v", r.Problems)
			assert.Equal(t, drop, r.Problems[0].Tensor)
		})
	}
}

// TestGGUFConvertedVariants: switches the reference layouts leave at one
// value, as the converter's output for them: a converted case with the
// tensors another config gives (the converter only renames those), which
// must check fully as its model_type and clean, each stated field read
// from the tensors, and a tensor dropped from an edited layer a problem.
func TestGGUFConvertedVariants(t *testing.T) {
	cases := readConverted(t)
	without := func(pattern string) func([]testmodel.GGUFTensor) []testmodel.GGUFTensor {
		re := regexp.MustCompile(pattern)
		return func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
			return slices.DeleteFunc(ts, func(g testmodel.GGUFTensor) bool { return re.MatchString(g.Name) })
		}
	}
	for _, tc := range []struct {
		name, from string
		edit       func([]testmodel.GGUFTensor) []testmodel.GGUFTensor
		keys       map[string]uint32 // metadata values the config changes
		fields     map[string]string // config field: its JSON
		drop       string            // a tensor of the edited file whose loss is a problem
	}{
		// GLM-5 layers that reuse the previous layer's indexer
		// (indexer_types "shared") hold none.
		{"glm-dsa shared indexers", "glm_moe_dsa/GlmMoeDsaForCausalLM/b", without(`^blk\.[13]\.indexer\.`), nil,
			map[string]string{"indexer_types": `["full","shared","full","shared","full"]`}, "blk.2.indexer.attn_k.weight"},
		// Qwen3-Next with attention_bias: the full-attention layers' q, k,
		// v and o biases (layer 0 is a DeltaNet's, without any).
		{"qwen3next attention_bias", "qwen3_next/b", func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
			for _, g := range slices.Clone(ts) {
				if n, ok := strings.CutSuffix(g.Name, ".weight"); ok && regexp.MustCompile(`^blk\.\d+\.attn_(q|k|v|output)$`).MatchString(n) {
					b := g
					b.Name, b.Dims = n+".bias", g.Dims[len(g.Dims)-1:]
					b.Zeros = 2 * b.Dims[0]
					ts = append(ts, b)
				}
			}
			return ts
		}, nil, map[string]string{"attention_bias": "true", "layer_types": `["linear_attention","linear_attention","linear_attention","full_attention","linear_attention"]`}, "blk.3.attn_k.bias"},
		// AFMoE with every layer sparse (num_dense_layers 0).
		{"afmoe no dense layer", "afmoe/AfmoeForCausalLM/b", func(ts []testmodel.GGUFTensor) []testmodel.GGUFTensor {
			ts = without(`^blk\.0\.ffn_(gate|up|down)\.`)(ts)
			for _, g := range slices.Clone(ts) {
				if rest, ok := strings.CutPrefix(g.Name, "blk.1."); ok && (strings.Contains(rest, "exps") || strings.Contains(rest, "shexp") ||
					strings.HasPrefix(rest, "ffn_gate_inp") || strings.HasPrefix(rest, "exp_probs_b")) {
					g.Name = "blk.0." + rest
					ts = append(ts, g)
				}
			}
			return ts
		}, map[string]uint32{"leading_dense_block_count": 0}, map[string]string{"num_dense_layers": "0"}, "blk.0.exp_probs_b.bias"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			i := slices.IndexFunc(cases, func(c convertedCase) bool { return c.name == tc.from })
			require.GreaterOrEqual(t, i, 0)
			c := cases[i]
			c.tensors = tc.edit(slices.Clone(c.tensors))
			c.kvs = slices.Clone(c.kvs)
			for j, kv := range c.kvs {
				if v, ok := tc.keys[strings.TrimPrefix(kv.Key, c.arch+".")]; ok {
					c.kvs[j].Value = v
				}
			}
			r := checkGGUF(t, c.write(t, nil))
			require.Equal(t, check.DepthFull, r.Depth, r.Skipped)
			assert.True(t, r.FullyClean(), "%v", r.Problems)
			var cfg map[string]json.RawMessage
			require.NoError(t, json.Unmarshal(r.Config.Raw, &cfg))
			for f, want := range tc.fields {
				assert.JSONEq(t, want, string(cfg[f]), f)
			}
			r = checkGGUF(t, c.write(t, without(`^`+regexp.QuoteMeta(tc.drop)+`$`)))
			require.NotEmpty(t, r.Problems)
			assert.Equal(t, check.Missing, r.Problems[0].Kind, "%v", r.Problems)
			assert.Equal(t, tc.drop, r.Problems[0].Tensor)
		})
	}
}
