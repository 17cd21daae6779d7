package spec_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

// ggufSwitches are GGUFs of the variants the reference layouts do not
// cover, written by hand as llama.cpp's converter and loader lay them out
// (gguf-py's TENSOR_NAMES, the loader's create_tensor shapes, ne order):
// hidden 16, vocab 32, 4 heads, 2 layers.
var ggufSwitches = []struct {
	name, arch, model string // model: the model_type it must check as
	keys              map[string]uint32
	tensors           string // "name ne0,ne1,…" lines; blk.L. lines are repeated for L in layers
	layers            []int
}{
	// DeepSeek-V2-Lite: no q compression (attn_q), kv_b cut into attn_k_b
	// and attn_v_b by a newer converter, one dense layer first, softmax
	// gating; MLA widths kv_lora 8, rope 2, nope 4, v 6.
	{"deepseek2-lite-split", "deepseek2", "deepseek_v2", map[string]uint32{
		"feed_forward_length": 24, "attention.head_count_kv": 1, "attention.key_length": 10, "attention.value_length": 8,
		"leading_dense_block_count": 1, "attention.kv_lora_rank": 8, "attention.key_length_mla": 6, "attention.value_length_mla": 6,
		"expert_feed_forward_length": 6, "expert_count": 3, "expert_shared_count": 1, "expert_used_count": 2,
		"rope.dimension_count": 2, "expert_gating_func": 1}, `token_embd.weight 16,32
output_norm.weight 16
output.weight 16,32
blk.L.attn_norm.weight 16
blk.L.attn_q.weight 16,24
blk.L.attn_kv_a_mqa.weight 16,10
blk.L.attn_kv_a_norm.weight 8
blk.L.attn_k_b.weight 4,8,4
blk.L.attn_v_b.weight 8,6,4
blk.L.attn_output.weight 24,16
blk.L.ffn_norm.weight 16
blk.0.ffn_gate.weight 16,24
blk.0.ffn_up.weight 16,24
blk.0.ffn_down.weight 24,16
blk.1.ffn_gate_inp.weight 16,3
blk.1.ffn_gate_exps.weight 16,6,3
blk.1.ffn_up_exps.weight 16,6,3
blk.1.ffn_down_exps.weight 6,16,3
blk.1.ffn_gate_shexp.weight 16,6
blk.1.ffn_up_shexp.weight 16,6
blk.1.ffn_down_shexp.weight 6,16`, []int{0, 1}},
	// DeepSeek-V3 from an older converter: q through q_lora 12, kv_b
	// whole, key_length and value_length the per-head widths (no *_mla
	// keys), sigmoid gating with the correction bias; no dense layer.
	{"deepseek3-kvb-whole", "deepseek2", "deepseek_v3", map[string]uint32{
		"feed_forward_length": 24, "attention.head_count_kv": 4, "attention.key_length": 6, "attention.value_length": 6,
		"leading_dense_block_count": 0, "attention.q_lora_rank": 12, "attention.kv_lora_rank": 8,
		"expert_feed_forward_length": 6, "expert_count": 3, "expert_shared_count": 2, "expert_used_count": 2,
		"rope.dimension_count": 2, "expert_gating_func": 2}, `token_embd.weight 16,32
output_norm.weight 16
output.weight 16,32
blk.L.attn_norm.weight 16
blk.L.attn_q_a.weight 16,12
blk.L.attn_q_a_norm.weight 12
blk.L.attn_q_b.weight 12,24
blk.L.attn_kv_a_mqa.weight 16,10
blk.L.attn_kv_a_norm.weight 8
blk.L.attn_kv_b.weight 8,40
blk.L.attn_output.weight 24,16
blk.L.ffn_norm.weight 16
blk.L.ffn_gate_inp.weight 16,3
blk.L.exp_probs_b.bias 3
blk.L.ffn_gate_exps.weight 16,6,3
blk.L.ffn_up_exps.weight 16,6,3
blk.L.ffn_down_exps.weight 6,16,3
blk.L.ffn_gate_shexp.weight 16,12
blk.L.ffn_up_shexp.weight 16,12
blk.L.ffn_down_shexp.weight 12,16`, []int{0, 1}},
	// DeepSeek-V3 from a converter of spring 2025: kv_b whole and cut
	// (attn_kv_b, attn_k_b, attn_v_b), the *_mla keys.
	{"deepseek3-kvb-and-parts", "deepseek2", "deepseek_v3", map[string]uint32{
		"feed_forward_length": 24, "attention.head_count_kv": 4, "attention.key_length": 10, "attention.value_length": 8, "attention.key_length_mla": 6, "attention.value_length_mla": 6,
		"leading_dense_block_count": 0, "attention.q_lora_rank": 12, "attention.kv_lora_rank": 8,
		"expert_feed_forward_length": 6, "expert_count": 3, "expert_shared_count": 2, "expert_used_count": 2,
		"rope.dimension_count": 2, "expert_gating_func": 2}, `token_embd.weight 16,32
output_norm.weight 16
output.weight 16,32
blk.L.attn_norm.weight 16
blk.L.attn_q_a.weight 16,12
blk.L.attn_q_a_norm.weight 12
blk.L.attn_q_b.weight 12,24
blk.L.attn_kv_a_mqa.weight 16,10
blk.L.attn_kv_a_norm.weight 8
blk.L.attn_kv_b.weight 8,40
blk.L.attn_k_b.weight 4,8,4
blk.L.attn_v_b.weight 8,6,4
blk.L.attn_output.weight 24,16
blk.L.ffn_norm.weight 16
blk.L.ffn_gate_inp.weight 16,3
blk.L.exp_probs_b.bias 3
blk.L.ffn_gate_exps.weight 16,6,3
blk.L.ffn_up_exps.weight 16,6,3
blk.L.ffn_down_exps.weight 6,16,3
blk.L.ffn_gate_shexp.weight 16,12
blk.L.ffn_up_shexp.weight 16,12
blk.L.ffn_down_shexp.weight 12,16`, []int{0, 1}},
	// Falcon-40B: grouped KV heads (2 of 4), two norms with biases
	// (ln_mlp is attn_norm, ln_attn attn_norm_2), an untied head.
	{"falcon-40b", "falcon", "falcon", map[string]uint32{"feed_forward_length": 64, "attention.head_count_kv": 2}, `token_embd.weight 16,32
output_norm.weight 16
output_norm.bias 16
output.weight 16,32
blk.L.attn_norm.weight 16
blk.L.attn_norm.bias 16
blk.L.attn_norm_2.weight 16
blk.L.attn_norm_2.bias 16
blk.L.attn_qkv.weight 16,32
blk.L.attn_output.weight 16,16
blk.L.ffn_up.weight 16,64
blk.L.ffn_down.weight 64,16`, []int{0, 1}},
	// GraniteMoE with a shared MLP (GraniteMoeShared): cut from
	// shared_mlp.input_linear like the experts from input_linear.
	{"granitemoe-shared", "granitemoe", "granitemoeshared", map[string]uint32{"feed_forward_length": 24, "attention.head_count_kv": 2,
		"expert_count": 3, "expert_used_count": 2, "expert_shared_feed_forward_length": 10}, `token_embd.weight 16,32
output_norm.weight 16
blk.L.attn_norm.weight 16
blk.L.attn_q.weight 16,16
blk.L.attn_k.weight 16,8
blk.L.attn_v.weight 16,8
blk.L.attn_output.weight 16,16
blk.L.ffn_norm.weight 16
blk.L.ffn_gate_inp.weight 16,3
blk.L.ffn_gate_exps.weight 16,24,3
blk.L.ffn_up_exps.weight 16,24,3
blk.L.ffn_down_exps.weight 24,16,3
blk.L.ffn_gate_shexp.weight 16,10
blk.L.ffn_up_shexp.weight 16,10
blk.L.ffn_down_shexp.weight 10,16`, []int{0, 1}},
	// StarCoder 1 with multi-head attention (multi_query false): a qkv of
	// 3·H rows.
	{"starcoder-mha", "starcoder", "gpt_bigcode", map[string]uint32{"feed_forward_length": 64, "attention.head_count_kv": 4, "context_length": 8}, `token_embd.weight 16,32
position_embd.weight 16,8
output_norm.weight 16
output_norm.bias 16
blk.L.attn_norm.weight 16
blk.L.attn_norm.bias 16
blk.L.attn_qkv.weight 16,48
blk.L.attn_qkv.bias 48
blk.L.attn_output.weight 16,16
blk.L.attn_output.bias 16
blk.L.ffn_norm.weight 16
blk.L.ffn_norm.bias 16
blk.L.ffn_up.weight 16,64
blk.L.ffn_up.bias 64
blk.L.ffn_down.weight 64,16
blk.L.ffn_down.bias 16`, []int{0, 1}},
}

// writeSwitch writes one of ggufSwitches, its tensor lines edited first.
func writeSwitch(t *testing.T, i int, edit func([]string) []string) string {
	t.Helper()
	tc := ggufSwitches[i]
	kvs := []testmodel.GGUFKV{{Key: "general.architecture", Value: tc.arch}}
	common := map[string]uint32{"embedding_length": 16, "block_count": uint32(len(tc.layers)), "attention.head_count": 4, "context_length": 64}
	for k, v := range tc.keys {
		common[k] = v
	}
	for k, v := range common {
		kvs = append(kvs, testmodel.GGUFKV{Key: tc.arch + "." + k, Value: v})
	}
	toks := make([]string, 32)
	for j := range toks {
		toks[j] = fmt.Sprint("t", j)
	}
	kvs = append(kvs, testmodel.GGUFKV{Key: "tokenizer.ggml.tokens", Value: toks})
	lines := switchLines(i)
	if edit != nil {
		lines = edit(lines)
	}
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
		g.Data = make([]byte, n)
		ts = append(ts, g)
	}
	path := filepath.Join(t.TempDir(), "model.gguf")
	require.NoError(t, testmodel.WriteGGUF(path, kvs, ts))
	return path
}

// switchLines are a case's tensor lines, the blk.L. ones once per layer.
func switchLines(i int) []string {
	var out []string
	for _, l := range strings.Split(ggufSwitches[i].tensors, "\n") {
		if !strings.HasPrefix(l, "blk.L.") {
			out = append(out, l)
			continue
		}
		for _, layer := range ggufSwitches[i].layers {
			out = append(out, strings.Replace(l, "blk.L.", fmt.Sprintf("blk.%d.", layer), 1))
		}
	}
	return out
}

// TestGGUFSwitches: each variant checks fully as its model_type and
// clean; a dropped tensor and a changed dimension are problems naming
// the tensor.
func TestGGUFSwitches(t *testing.T) {
	for i, tc := range ggufSwitches {
		t.Run(tc.name, func(t *testing.T) {
			r := checkGGUF(t, writeSwitch(t, i, nil))
			require.Equal(t, spec.DepthFull, r.Depth, r.Skipped)
			assert.Equal(t, tc.model, r.Config.ModelType())
			assert.True(t, r.FullyClean(), "%v", r.Problems)

			lines := switchLines(i)
			for k := len(lines) / 2; k < len(lines); k += 3 {
				name := strings.Fields(lines[k])[0]
				r = checkGGUF(t, writeSwitch(t, i, func(ls []string) []string { return slices.Delete(slices.Clone(ls), k, k+1) }))
				require.Len(t, r.Problems, 1, "%s dropped: %v", name, r.Problems)
				assert.Equal(t, spec.Missing, r.Problems[0].Kind)
				assert.Equal(t, name, r.Problems[0].Tensor)

				r = checkGGUF(t, writeSwitch(t, i, func(ls []string) []string {
					ls = slices.Clone(ls)
					n, dims, _ := strings.Cut(ls[k], " ")
					ds := strings.Split(dims, ",")
					v, _ := strconv.Atoi(ds[0])
					ds[0] = strconv.Itoa(v + 1)
					ls[k] = n + " " + strings.Join(ds, ",")
					return ls
				}))
				require.NotEmpty(t, r.Problems, "%s changed", name)
				assert.Equal(t, spec.Misshaped, r.Problems[0].Kind, "%v", r.Problems)
				assert.Equal(t, name, r.Problems[0].Tensor)
			}
		})
	}
}
