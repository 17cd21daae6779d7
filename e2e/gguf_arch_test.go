package e2e

import (
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// llamaCppGGUFs are one-layer GGUFs written by hand the way llama.cpp's
// convert_hf_to_gguf.py names and shapes them (gguf-py's constants.py
// MODEL_TENSORS and TENSOR_NAMES, the loader's create_tensor calls in
// ne order, innermost first), independently of fsmount's name table:
// n_embd 16, vocab 32, n_ff 24, 4 heads of 4, 2 KV heads, 3 experts of
// width 6 where there are experts.
var llamaCppGGUFs = []struct {
	arch    string
	keys    map[string]uint32 // beyond the common ones
	tensors string            // "name ne0,ne1,…" lines
}{
	{"llama", nil, `token_embd.weight 16,32
output_norm.weight 16
output.weight 16,32
rope_freqs.weight 2
blk.0.attn_norm.weight 16
blk.0.attn_q.weight 16,16
blk.0.attn_k.weight 16,8
blk.0.attn_v.weight 16,8
blk.0.attn_output.weight 16,16
blk.0.ffn_norm.weight 16
blk.0.ffn_gate.weight 16,24
blk.0.ffn_up.weight 16,24
blk.0.ffn_down.weight 24,16`},
	// Mixtral converts as llama, its experts stacked.
	{"llama", map[string]uint32{"expert_count": 3, "expert_used_count": 2}, `token_embd.weight 16,32
output_norm.weight 16
output.weight 16,32
blk.0.attn_norm.weight 16
blk.0.attn_q.weight 16,16
blk.0.attn_k.weight 16,8
blk.0.attn_v.weight 16,8
blk.0.attn_output.weight 16,16
blk.0.ffn_norm.weight 16
blk.0.ffn_gate_inp.weight 16,3
blk.0.ffn_gate_exps.weight 16,24,3
blk.0.ffn_up_exps.weight 16,24,3
blk.0.ffn_down_exps.weight 24,16,3`},
	{"qwen2moe", map[string]uint32{"expert_count": 3, "expert_used_count": 2, "expert_feed_forward_length": 6, "expert_shared_feed_forward_length": 10}, `token_embd.weight 16,32
output_norm.weight 16
output.weight 16,32
blk.0.attn_norm.weight 16
blk.0.attn_q.weight 16,16
blk.0.attn_q.bias 16
blk.0.attn_k.weight 16,8
blk.0.attn_k.bias 8
blk.0.attn_v.weight 16,8
blk.0.attn_v.bias 8
blk.0.attn_output.weight 16,16
blk.0.ffn_norm.weight 16
blk.0.ffn_gate_inp.weight 16,3
blk.0.ffn_gate_exps.weight 16,6,3
blk.0.ffn_up_exps.weight 16,6,3
blk.0.ffn_down_exps.weight 6,16,3
blk.0.ffn_gate_inp_shexp.weight 16,1
blk.0.ffn_gate_shexp.weight 16,10
blk.0.ffn_up_shexp.weight 16,10
blk.0.ffn_down_shexp.weight 10,16`},
	// Phi-3: fused qkv and gate+up; LongRoPE factors of no HF tensor.
	{"phi3", nil, `token_embd.weight 16,32
output_norm.weight 16
output.weight 16,32
rope_factors_long.weight 2
rope_factors_short.weight 2
blk.0.attn_norm.weight 16
blk.0.attn_qkv.weight 16,32
blk.0.attn_output.weight 16,16
blk.0.ffn_norm.weight 16
blk.0.ffn_up.weight 16,48
blk.0.ffn_down.weight 24,16`},
	// StarCoder2: layer norms and projections with biases, plain MLP,
	// the head tied.
	{"starcoder2", nil, `token_embd.weight 16,32
output_norm.weight 16
output_norm.bias 16
blk.0.attn_norm.weight 16
blk.0.attn_norm.bias 16
blk.0.attn_q.weight 16,16
blk.0.attn_q.bias 16
blk.0.attn_k.weight 16,8
blk.0.attn_k.bias 8
blk.0.attn_v.weight 16,8
blk.0.attn_v.bias 8
blk.0.attn_output.weight 16,16
blk.0.attn_output.bias 16
blk.0.ffn_norm.weight 16
blk.0.ffn_norm.bias 16
blk.0.ffn_up.weight 16,24
blk.0.ffn_up.bias 24
blk.0.ffn_down.weight 24,16
blk.0.ffn_down.bias 16`},
	// Command-R: one norm, parallel attention and MLP, tied head.
	{"command-r", nil, `token_embd.weight 16,32
output_norm.weight 16
blk.0.attn_norm.weight 16
blk.0.attn_q.weight 16,16
blk.0.attn_k.weight 16,8
blk.0.attn_v.weight 16,8
blk.0.attn_output.weight 16,16
blk.0.ffn_gate.weight 16,24
blk.0.ffn_up.weight 16,24
blk.0.ffn_down.weight 24,16`},
	// OLMo 2: norms after attention and MLP, q/k norms over all heads.
	{"olmo2", nil, `token_embd.weight 16,32
output_norm.weight 16
output.weight 16,32
blk.0.attn_q.weight 16,16
blk.0.attn_k.weight 16,8
blk.0.attn_v.weight 16,8
blk.0.attn_q_norm.weight 16
blk.0.attn_k_norm.weight 8
blk.0.attn_output.weight 16,16
blk.0.post_attention_norm.weight 16
blk.0.ffn_gate.weight 16,24
blk.0.ffn_up.weight 16,24
blk.0.ffn_down.weight 24,16
blk.0.post_ffw_norm.weight 16`},
	// DeepSeek-V2-Lite, one dense layer: q without compression, kv_b cut
	// into attn_k_b [heads, kv_lora, nope] and attn_v_b [heads, v, kv_lora].
	{"deepseek2", map[string]uint32{"attention.key_length": 10, "attention.value_length": 8, "attention.kv_lora_rank": 8,
		"attention.key_length_mla": 6, "attention.value_length_mla": 6, "rope.dimension_count": 2, "leading_dense_block_count": 1}, `token_embd.weight 16,32
output_norm.weight 16
output.weight 16,32
blk.0.attn_norm.weight 16
blk.0.attn_q.weight 16,24
blk.0.attn_kv_a_mqa.weight 16,10
blk.0.attn_kv_a_norm.weight 8
blk.0.attn_k_b.weight 4,8,4
blk.0.attn_v_b.weight 8,6,4
blk.0.attn_output.weight 24,16
blk.0.ffn_norm.weight 16
blk.0.ffn_gate.weight 16,24
blk.0.ffn_up.weight 16,24
blk.0.ffn_down.weight 24,16`},
	// GPT-2: transformer.h.N, the Conv1D weights transposed to [out, in],
	// learned positions, the head tied.
	{"gpt2", nil, `token_embd.weight 16,32
position_embd.weight 16,64
output_norm.weight 16
output_norm.bias 16
blk.0.attn_norm.weight 16
blk.0.attn_norm.bias 16
blk.0.attn_qkv.weight 16,48
blk.0.attn_qkv.bias 48
blk.0.attn_output.weight 16,16
blk.0.attn_output.bias 16
blk.0.ffn_norm.weight 16
blk.0.ffn_norm.bias 16
blk.0.ffn_up.weight 16,24
blk.0.ffn_up.bias 24
blk.0.ffn_down.weight 24,16
blk.0.ffn_down.bias 16`},
	{"gemma3", map[string]uint32{"attention.key_length": 4}, `token_embd.weight 16,32
output_norm.weight 16
blk.0.attn_norm.weight 16
blk.0.attn_q.weight 16,16
blk.0.attn_k.weight 16,8
blk.0.attn_v.weight 16,8
blk.0.attn_q_norm.weight 4
blk.0.attn_k_norm.weight 4
blk.0.attn_output.weight 16,16
blk.0.post_attention_norm.weight 16
blk.0.ffn_norm.weight 16
blk.0.ffn_gate.weight 16,24
blk.0.ffn_up.weight 16,24
blk.0.ffn_down.weight 24,16
blk.0.post_ffw_norm.weight 16`},
}

// writeLlamaCppGGUF writes one of llamaCppGGUFs, its lines edited first.
func writeLlamaCppGGUF(t *testing.T, i int, edit func([]string) []string) string {
	t.Helper()
	tc := llamaCppGGUFs[i]
	keys := map[string]uint32{"embedding_length": 16, "block_count": 1, "feed_forward_length": 24, "attention.head_count": 4,
		"attention.head_count_kv": 2, "context_length": 64}
	maps.Copy(keys, tc.keys)
	lines := strings.Split(tc.tensors, "\n")
	if edit != nil {
		lines = edit(lines)
	}
	path := filepath.Join(t.TempDir(), tc.arch+".gguf")
	require.NoError(t, testmodel.WriteGGUFListing(path, tc.arch, keys, lines))
	return path
}

// TestInspectGGUFArchitectures runs fsinspect on GGUFs named the way
// llama.cpp writes them: each checks fully (exit 0); a dropped tensor and
// a changed dimension exit 1, naming the tensor.
func TestInspectGGUFArchitectures(t *testing.T) {
	for i, tc := range llamaCppGGUFs {
		t.Run(fmt.Sprint(i, "-", tc.arch), func(t *testing.T) {
			r := runCmd(t, "fsinspect", writeLlamaCppGGUF(t, i, nil))
			require.Equal(t, 0, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, "expected tensors present, shapes match the config")
			assert.NotContains(t, r.stdout, "structural check only")
			if strings.Contains(tc.tensors, "rope_") {
				assert.Contains(t, r.stdout, "llama.cpp rotary factor")
			}

			lines := strings.Split(tc.tensors, "\n")
			drop := strings.Fields(lines[len(lines)-2])[0]
			r = runCmd(t, "fsinspect", writeLlamaCppGGUF(t, i, func(ls []string) []string {
				return append(ls[:len(ls)-2:len(ls)-2], ls[len(ls)-1])
			}))
			require.Equal(t, 1, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, drop)

			k := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "blk.0.attn_") && strings.Contains(l, " 16") })
			bent := strings.Fields(lines[k])[0]
			r = runCmd(t, "fsinspect", writeLlamaCppGGUF(t, i, func(ls []string) []string {
				ls = append([]string(nil), ls...)
				ls[k] = strings.Replace(ls[k], " 16", " 17", 1)
				return ls
			}))
			require.Equal(t, 1, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stdout, bent)
		})
	}
}

// TestInspectGGUFNoNameMap: a GGUF of an architecture without a name map
// gets the structural check from its metadata: consistent (exit 3: not fully checked), and
// an embedding with fewer rows than the vocabulary is a problem
// (exit 1).
func TestInspectGGUFNoNameMap(t *testing.T) {
	saved := llamaCppGGUFs[0].arch
	llamaCppGGUFs[0].arch = "internlm2"
	t.Cleanup(func() { llamaCppGGUFs[0].arch = saved })
	r := runCmd(t, "fsinspect", writeLlamaCppGGUF(t, 0, nil))
	require.Equal(t, 3, r.code, r.stdout+r.stderr) // consistent, not fully checked
	assert.Contains(t, r.stdout, "structural check only: no spec for architecture internlm2 (GGUF, no name map); its tensors are consistent: layers 0..0 (num_hidden_layers); embedding rows = vocab_size")

	r = runCmd(t, "fsinspect", writeLlamaCppGGUF(t, 0, func(ls []string) []string {
		ls = append([]string(nil), ls...)
		ls[0] = "token_embd.weight 16,31"
		return ls
	}))
	require.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "token_embd.weight")
}
