package e2e

import (
	"encoding/binary"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/gguf"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestCompareGGUFWithSafetensors converts a small Llama checkpoint to GGUF
// the way llama.cpp's converter does — names mapped, dimensions reversed,
// Q and K rows permuted per head, BF16 widened to F32 — and compares the
// two: every tensor pairs with its original and equals it as numbers.
func TestCompareGGUFWithSafetensors(t *testing.T) {
	const cfg = `{"architectures":["LlamaForCausalLM"],"model_type":"llama","vocab_size":16,"hidden_size":32,
"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":64,
"tie_word_embeddings":false,"torch_dtype":"bfloat16","rms_norm_eps":1e-5}`
	shapes := map[string][]uint64{
		"model.embed_tokens.weight": {16, 32}, "model.norm.weight": {32}, "lm_head.weight": {16, 32},
		"model.layers.0.input_layernorm.weight": {32}, "model.layers.0.post_attention_layernorm.weight": {32},
		"model.layers.0.self_attn.q_proj.weight": {32, 32}, "model.layers.0.self_attn.k_proj.weight": {16, 32},
		"model.layers.0.self_attn.v_proj.weight": {16, 32}, "model.layers.0.self_attn.o_proj.weight": {32, 32},
		"model.layers.0.mlp.gate_proj.weight": {64, 32}, "model.layers.0.mlp.up_proj.weight": {64, 32},
		"model.layers.0.mlp.down_proj.weight": {32, 64},
	}
	var ts []testmodel.Tensor
	var gts []testmodel.GGUFTensor
	permuted := 0 // Q and K tensors whose stored rows differ from the original order
	for name, shape := range shapes {
		n := testmodel.NBytes("BF16", shape)
		d := testmodel.Fill(5, name, n)
		for i := 0; i < len(d); i += 2 {
			d[i+1] &= 0x3f // finite, moderate values
		}
		ts = append(ts, testmodel.Tensor{Name: name, DType: "BF16", Shape: shape, Data: d})
		rows, cols := int(shape[0]), 1
		if len(shape) == 2 {
			cols = int(shape[1])
		}
		heads := 0
		switch {
		case strings.Contains(name, "q_proj"):
			heads = 4
		case strings.Contains(name, "k_proj"):
			heads = 2
		}
		f32 := make([]byte, 4*rows*cols)
		for g := range rows {
			src := g
			if heads > 0 {
				h, err := gguf.HFRow(g, rows, heads)
				require.NoError(t, err)
				src = h
			}
			for c := range cols {
				bits := binary.LittleEndian.Uint16(d[2*(src*cols+c):])
				binary.LittleEndian.PutUint32(f32[4*(g*cols+c):], uint32(bits)<<16)
			}
		}
		if heads > 0 {
			for i := 0; i < rows*cols; i++ {
				if binary.LittleEndian.Uint32(f32[4*i:]) != uint32(binary.LittleEndian.Uint16(d[2*i:]))<<16 {
					permuted++
					break
				}
			}
		}
		gname, ok := gguf.GGUFName("llama", name)
		require.True(t, ok, name)
		dims := []uint64{uint64(cols), uint64(rows)}
		if len(shape) == 1 {
			dims = []uint64{uint64(rows)}
		}
		gts = append(gts, testmodel.GGUFTensor{Name: gname, Type: 0, Dims: dims, Data: f32})
	}
	hf := t.TempDir()
	require.NoError(t, testmodel.WriteModelDir(hf, cfg, ts))
	toks := make([]string, 16)
	for i := range toks {
		toks[i] = string(rune('a' + i))
	}
	g := filepath.Join(t.TempDir(), "llama.gguf")
	require.NoError(t, testmodel.WriteGGUF(g, []testmodel.GGUFKV{
		{Key: "general.architecture", Value: "llama"},
		{Key: "llama.block_count", Value: uint32(1)},
		{Key: "llama.embedding_length", Value: uint32(32)},
		{Key: "llama.feed_forward_length", Value: uint32(64)},
		{Key: "llama.attention.head_count", Value: uint32(4)},
		{Key: "llama.attention.head_count_kv", Value: uint32(2)},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: float32(1e-5)},
		{Key: "tokenizer.ggml.tokens", Value: toks},
	}, gts))

	r := runCmd(t, "fsinspect", g)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = runCmd(t, "fsinspect", "--compare", hf, "--tolerance", "0", g)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Equal(t, 12, strings.Count(r.stdout, " equal "), r.stdout)
	assert.NotContains(t, r.stdout, "only-")

	assert.Equal(t, 2, permuted, "the GGUF holds Q and K with their rows permuted")
}
