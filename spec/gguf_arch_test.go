package spec_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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

func checkGGUF(t *testing.T, path string) *spec.Report {
	t.Helper()
	m, err := model.Open(path)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	require.Empty(t, m.NoConfig)
	r, err := spec.Check(m)
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
				assert.Equal(t, spec.Missing, r.Problems[0].Kind)
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
