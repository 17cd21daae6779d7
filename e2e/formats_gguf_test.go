package e2e

import (
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/gguf"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// realGGUF is ollama's tiny random-weight Llama 2 (F16 and F32 tensors, a
// 32,000-token vocabulary), copied into gguf/testdata.
func realGGUF() string { return repoPath("gguf", "testdata", "llama-2-tiny-random.gguf") }

func TestInspectGGUFReal(t *testing.T) {
	r := runCmd(t, "fsinspect", realGGUF())
	require.Equal(t, 0, r.code, r.stderr)
	assertContainsAll(t, r.stdout,
		"── dimensions (from the GGUF metadata) ─",
		"V  vocab_size              32000",
		"attn_q.weight                 F16   [8, 8]",
		"token_embd.weight             F16   [32000, 8]",
		"✓ all 12 expected tensors present, shapes match the config",
		"params: 513,048 stored · 513,048 logical",
	)
	// A directory holding one GGUF file is that model.
	dir := t.TempDir()
	b := readFile(t, realGGUF())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tiny.gguf"), b, 0o644))
	r2 := runCmd(t, "fsinspect", dir)
	require.Equal(t, 0, r2.code, r2.stderr)
	assert.Equal(t, strings.ReplaceAll(r.stdout, realGGUF(), "M"), strings.ReplaceAll(r2.stdout, filepath.Join(dir, "tiny.gguf"), "M"))
}

// TestMountGGUFReal mounts the real GGUF file: the tensors under the same
// paths as the safetensors tree, metadata/ and tokenizer/ one file per
// key, by-name/ under GGUF's names, and values.npy equal to numpy's own
// reading of the F16 data.
func TestMountGGUFReal(t *testing.T) {
	mnt, _ := mountModel(t, realGGUF())
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join(mnt, p))
		require.NoError(t, err, p)
		return string(b)
	}
	assert.Equal(t, "1\n", read("metadata/llama.block_count"))
	assert.Equal(t, "llama\n", read("metadata/general.architecture"))
	toks := strings.Split(strings.TrimSuffix(read("tokenizer/tokens"), "\n"), "\n")
	assert.Len(t, toks, 32000)
	assert.Equal(t, read("tokenizer/tokens"), read("metadata/tokenizer.ggml.tokens"))
	assert.Equal(t, "[8, 8]\n", read("layers/0/self_attn/q_proj/shape"))
	assert.Equal(t, "F16\n", read("layers/0/self_attn/q_proj/dtype"))
	assert.Equal(t, "[32000, 8]\n", read("embed_tokens/shape"))
	assert.Equal(t, read("layers/0/self_attn/q_proj/data"), read("by-name/blk.0.attn_q.weight/data"))
	assert.Contains(t, read("shapes"), "blk.0.ffn_down.weight\t[8, 32]\n")
	out, code := sh(t, "diff -r "+mnt+"/expected/layers "+mnt+"/layers "+shapeDiffExcludes)
	assert.Equal(t, 0, code, out)

	script := `
import sys, numpy as np
m = sys.argv[1]
a = np.load(m + "/embed_tokens/values.npy", mmap_mode="r")
assert a.shape == (32000, 8) and a.dtype == np.float16, (a.shape, a.dtype)
np.testing.assert_array_equal(a, np.fromfile(m + "/embed_tokens/data", dtype="<f2").reshape(32000, 8))
n = np.load(m + "/norm/values.npy")
np.testing.assert_array_equal(n, np.fromfile(m + "/norm/data", dtype="<f4"))
print("ok")
`
	o, err := exec.Command(testmodel.Numpy(t), "-c", script, mnt).CombinedOutput()
	require.NoError(t, err, string(o))
}

// TestGGUFMalformed damages the real file one rule at a time: both
// commands exit 2 with one line naming the file and the rule.
func TestGGUFMalformed(t *testing.T) {
	orig := readFile(t, realGGUF())
	cases := []struct {
		name, code string
		edit       func([]byte) []byte
	}{
		{"bad magic", "bad_magic", func(b []byte) []byte { copy(b, "GGML"); return b }},
		{"version 1", "version", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[4:], 1); return b }},
		{"version 9", "bad_version", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[4:], 9); return b }},
		{"tensor count past the file", "bad_count", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[8:], 1<<40); return b }},
		{"truncated data", "out_of_bounds", func(b []byte) []byte { return b[:len(b)-100] }},
		{"truncated header", "truncated", func(b []byte) []byte { return b[:40] }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "bad.gguf")
			require.NoError(t, os.WriteFile(p, c.edit(append([]byte(nil), orig...)), 0o644))
			refusedByBoth(t, p, c.code)
		})
	}
}

// q80 returns Q8_0 blocks of 32 values: scale 1/2 (F16 0x3800) and
// quants q(i).
func q80(n int, q func(i int) int8) []byte {
	var out []byte
	for b := 0; b < n/32; b++ {
		out = append(out, 0x00, 0x38)
		for i := range 32 {
			out = append(out, byte(q(b*32+i)))
		}
	}
	return out
}

// llamaKVs is the metadata of a one-layer Llama GGUF of width 32 (FFN
// 64) with heads attention heads over 2 KV heads, and then more.
func llamaKVs(heads uint32, more ...testmodel.GGUFKV) []testmodel.GGUFKV {
	return append([]testmodel.GGUFKV{
		{Key: "general.architecture", Value: "llama"},
		{Key: "llama.block_count", Value: uint32(1)},
		{Key: "llama.embedding_length", Value: uint32(32)},
		{Key: "llama.feed_forward_length", Value: uint32(64)},
		{Key: "llama.attention.head_count", Value: heads},
		{Key: "llama.attention.head_count_kv", Value: uint32(2)},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: float32(1e-5)},
	}, more...)
}

// quantizedGGUF writes a one-layer llama of Q8_0 matrices (H 32, two
// heads of 16, FFN 64, 4 tokens, tied head) and F32 norms.
func quantizedGGUF(t *testing.T) string {
	t.Helper()
	f32 := func(n int) []byte { return make([]byte, 4*n) }
	ramp := func(i int) int8 { return int8(i%17 - 8) }
	mat := func(name string, in, out uint64) testmodel.GGUFTensor {
		return testmodel.GGUFTensor{Name: name, Type: 8, Dims: []uint64{in, out}, Data: q80(int(in*out), ramp)}
	}
	ts := []testmodel.GGUFTensor{
		mat("token_embd.weight", 32, 4),
		{Name: "output_norm.weight", Type: 0, Dims: []uint64{32}, Data: f32(32)},
		{Name: "blk.0.attn_norm.weight", Type: 0, Dims: []uint64{32}, Data: f32(32)},
		mat("blk.0.attn_q.weight", 32, 32), mat("blk.0.attn_k.weight", 32, 32), mat("blk.0.attn_v.weight", 32, 32),
		mat("blk.0.attn_output.weight", 32, 32),
		{Name: "blk.0.ffn_norm.weight", Type: 0, Dims: []uint64{32}, Data: f32(32)},
		mat("blk.0.ffn_gate.weight", 32, 64), mat("blk.0.ffn_up.weight", 32, 64), mat("blk.0.ffn_down.weight", 64, 32),
	}
	kvs := llamaKVs(2, testmodel.GGUFKV{Key: "general.quantization_version", Value: uint32(2)},
		testmodel.GGUFKV{Key: "tokenizer.ggml.tokens", Value: []string{"a", "b", "c", "d"}})
	p := filepath.Join(t.TempDir(), "q8.gguf")
	require.NoError(t, testmodel.WriteGGUF(p, kvs, ts))
	return p
}

// TestGGUFQuantized: a Q8_0 model checks clean with its quantization mix
// in the verdict, and its values are the dequantized ones (scale × quant).
func TestGGUFQuantized(t *testing.T) {
	p := quantizedGGUF(t)
	r := runCmd(t, "fsinspect", p)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ all 11 expected tensors present")
	assert.Contains(t, r.stdout, "quantization mix (share of tensor bytes): Q8_0 ")
	assert.Contains(t, r.stdout, "bits per weight")
	mnt, _ := mountModel(t, p)
	b := readFile(t, filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "values"))
	first := strings.Fields(strings.SplitN(string(b), "\n", 2)[0])
	require.Len(t, first, 32)
	assert.Equal(t, "-4.00000000e+00", first[0], "quant -8 × scale 1/2")
	assert.Equal(t, "+0.00000000e+00", first[8])
	assert.Equal(t, "+4.00000000e+00", first[16])
}

// TestGGUFMalformedRules writes a GGUF file breaking one rule at a time
// (the rules of gguf.md §1.7 beyond what TestGGUFMalformed damages in the
// real file): both commands exit 2 with one line naming the file and the
// rule's code.
func TestGGUFMalformedRules(t *testing.T) {
	good := func() ([]testmodel.GGUFKV, []testmodel.GGUFTensor) {
		return []testmodel.GGUFKV{
				{Key: "general.architecture", Value: "llama"},
				{Key: "general.alignment", Value: uint32(32)},
			}, []testmodel.GGUFTensor{
				{Name: "a.weight", Type: 0, Dims: []uint64{8}, Data: make([]byte, 32)},
				{Name: "b.weight", Type: 0, Dims: []uint64{8}, Data: make([]byte, 32)},
			}
	}
	cases := []struct {
		name, code string
		edit       func(kvs []testmodel.GGUFKV, ts []testmodel.GGUFTensor) ([]testmodel.GGUFKV, []testmodel.GGUFTensor)
	}{
		{"duplicate key", "duplicate_key", func(k []testmodel.GGUFKV, ts []testmodel.GGUFTensor) ([]testmodel.GGUFKV, []testmodel.GGUFTensor) {
			return append(k, testmodel.GGUFKV{Key: "general.architecture", Value: "qwen3"}), ts
		}},
		{"alignment not a power of two", "bad_alignment", func(k []testmodel.GGUFKV, ts []testmodel.GGUFTensor) ([]testmodel.GGUFKV, []testmodel.GGUFTensor) {
			k[1].Value = uint32(24)
			return k, ts
		}},
		{"tensor name of 64 bytes", "bad_tensor_name", func(k []testmodel.GGUFKV, ts []testmodel.GGUFTensor) ([]testmodel.GGUFKV, []testmodel.GGUFTensor) {
			ts[0].Name = strings.Repeat("x", 64)
			return k, ts
		}},
		{"duplicate tensor", "duplicate_tensor", func(k []testmodel.GGUFKV, ts []testmodel.GGUFTensor) ([]testmodel.GGUFKV, []testmodel.GGUFTensor) {
			ts[1].Name = ts[0].Name
			return k, ts
		}},
		{"rank 5", "bad_dims", func(k []testmodel.GGUFKV, ts []testmodel.GGUFTensor) ([]testmodel.GGUFKV, []testmodel.GGUFTensor) {
			ts[0].Dims = []uint64{2, 1, 2, 1, 2}
			return k, ts
		}},
		{"unknown type", "bad_type", func(k []testmodel.GGUFKV, ts []testmodel.GGUFTensor) ([]testmodel.GGUFKV, []testmodel.GGUFTensor) {
			ts[0].Type = 99
			return k, ts
		}},
		{"row not a whole number of blocks", "not_block_multiple", func(k []testmodel.GGUFKV, ts []testmodel.GGUFTensor) ([]testmodel.GGUFKV, []testmodel.GGUFTensor) {
			ts[0].Type, ts[0].Dims, ts[0].Data = 8, []uint64{16, 2}, make([]byte, 34) // Q8_0: 32 per block
			return k, ts
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			kvs, ts := c.edit(good())
			p := filepath.Join(t.TempDir(), "bad.gguf")
			require.NoError(t, testmodel.WriteGGUF(p, kvs, ts))
			refusedByBoth(t, p, c.code)
		})
	}
	// The file unbroken is valid: an architecture without a spec, so its
	// tensors get the structural check only (here nothing to compare).
	kvs, ts := good()
	kvs[0].Value = "internlm2"
	p := filepath.Join(t.TempDir(), "good.gguf")
	require.NoError(t, testmodel.WriteGGUF(p, kvs, ts))
	r := runCmd(t, "fsinspect", p)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stdout, `structural check only: no spec for architecture internlm2 (GGUF, no name map)`)
}

// refusedByBoth checks that fsinspect and fsmount refuse the file p with
// exit 2 and one line naming it and holding code.
func refusedByBoth(t *testing.T, p, code string) {
	t.Helper()
	for _, cmd := range []string{"fsinspect", "fsmount"} {
		args := []string{p}
		if cmd == "fsmount" {
			requireFUSE(t)
			args = append(args, t.TempDir())
		}
		r := runCmd(t, cmd, args...)
		assert.Equal(t, 2, r.code, "%s: %s", cmd, r.stderr)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
		assert.Contains(t, r.stderr, p+": ")
		assert.Contains(t, r.stderr, code)
	}
}

// TestGGMLTypesThroughMount mounts a GGUF holding one tensor of each
// ggml block type, filled with blocks that ggml's own C code decoded
// (internal/quant/testdata/ggml), and wants each values.f32 byte for byte
// what ggml wrote. A Q8_1 tensor (never dequantized) has a values.f32
// whose read fails with EIO rather than text, and values saying why.
func TestGGMLTypesThroughMount(t *testing.T) {
	files, err := filepath.Glob(repoPath("internal", "quant", "testdata", "ggml", "*.bin.gz"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	want := map[string][]byte{}
	var ts []testmodel.GGUFTensor
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".bin.gz")
		dt, ok := tensor.ParseDType(name)
		require.True(t, ok, name)
		blocks, floats := testmodel.ReadGGMLBlocks(t, path, dt)
		n := uint64(len(blocks)) / dt.BlockBytes()
		tn := "t_" + strings.ToLower(name)
		id, ok := gguf.GGMLTypeOf(dt)
		require.True(t, ok, name)
		ts = append(ts, testmodel.GGUFTensor{Name: tn + ".weight", Type: uint32(id), Dims: []uint64{dt.BlockElems(), n}, Data: blocks})
		want[tn] = floats
	}
	q81, _ := gguf.GGMLTypeOf(tensor.Q8_1)
	ts = append(ts, testmodel.GGUFTensor{Name: "t_q8_1.weight", Type: uint32(q81), Dims: []uint64{32, 2}, Data: make([]byte, 72)})
	kvs := []testmodel.GGUFKV{{Key: "general.architecture", Value: "ggmltypes"}}
	p := filepath.Join(t.TempDir(), "types.gguf")
	require.NoError(t, testmodel.WriteGGUF(p, kvs, ts))

	mnt, _ := mountModel(t, p)
	for tn, w := range want {
		got, err := os.ReadFile(filepath.Join(mnt, tn, "values.f32"))
		require.NoError(t, err, tn)
		require.Equal(t, len(w), len(got), tn)
		require.True(t, string(w) == string(got), "%s: values.f32 differs from ggml's dequantize_row", tn)
	}
	f32 := filepath.Join(mnt, "t_q8_1", "values.f32")
	st, err := os.Stat(f32)
	require.NoError(t, err)
	require.Equal(t, int64(4*64), st.Size(), "Q8_1 values.f32 keeps the size of its floats")
	_, err = os.ReadFile(f32)
	require.True(t, errors.Is(err, syscall.EIO), "reading Q8_1 values.f32: %v, want EIO", err)
	text := readFile(t, filepath.Join(mnt, "t_q8_1", "values"))
	require.Contains(t, string(text), "not decoded")
}

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
	require.NoError(t, testmodel.WriteGGUF(g, llamaKVs(4, testmodel.GGUFKV{Key: "tokenizer.ggml.tokens", Value: toks}), gts))

	r := runCmd(t, "fsinspect", g)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	r = runCmd(t, "fsinspect", "--compare", hf, "--tolerance", "0", g)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Equal(t, 12, strings.Count(r.stdout, " equal "), r.stdout)
	assert.NotContains(t, r.stdout, "only-")

	assert.Equal(t, 2, permuted, "the GGUF holds Q and K with their rows permuted")
}

// The blocks llama.cpp's listings below are built from: the embedding,
// final norm and head; the attention of separate Q, K, V (widths 16, 8, 8),
// without and with biases, and its output; a gated MLP; experts of width w stacked in a third
// dimension; and the layer-normed, biased block of GPT-2 and StarCoder2.
const (
	ggufTop     = "token_embd.weight 16,32\noutput_norm.weight 16\noutput.weight 16,32"
	ggufNorm    = "blk.0.attn_norm.weight 16"
	ggufQKV     = "blk.0.attn_q.weight 16,16\nblk.0.attn_k.weight 16,8\nblk.0.attn_v.weight 16,8"
	ggufQKVBias = "blk.0.attn_q.weight 16,16\nblk.0.attn_q.bias 16\nblk.0.attn_k.weight 16,8\nblk.0.attn_k.bias 8\nblk.0.attn_v.weight 16,8\nblk.0.attn_v.bias 8"
	ggufOut     = "blk.0.attn_output.weight 16,16"
	ggufGLU     = "blk.0.ffn_gate.weight 16,24\nblk.0.ffn_up.weight 16,24\nblk.0.ffn_down.weight 24,16"
	// the biased layer-norm block: its norms, then (after the attention)
	// the output projection and the plain MLP
	ggufLNNorms = "output_norm.weight 16\noutput_norm.bias 16\nblk.0.attn_norm.weight 16\nblk.0.attn_norm.bias 16"
	ggufLNTail  = "blk.0.attn_output.weight 16,16\nblk.0.attn_output.bias 16\nblk.0.ffn_norm.weight 16\nblk.0.ffn_norm.bias 16\n" +
		"blk.0.ffn_up.weight 16,24\nblk.0.ffn_up.bias 24\nblk.0.ffn_down.weight 24,16\nblk.0.ffn_down.bias 16"
)

// ggufExperts is the router and the stacked experts of width w, 3 of them.
func ggufExperts(w int) string {
	return fmt.Sprintf("blk.0.ffn_gate_inp.weight 16,3\nblk.0.ffn_gate_exps.weight 16,%[1]d,3\n"+
		"blk.0.ffn_up_exps.weight 16,%[1]d,3\nblk.0.ffn_down_exps.weight %[1]d,16,3", w)
}

// ggufLines joins blocks and single lines into one listing.
func ggufLines(parts ...string) string { return strings.Join(parts, "\n") }

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
	{"llama", nil, ggufLines(ggufTop, "rope_freqs.weight 2", ggufNorm, ggufQKV, ggufOut, "blk.0.ffn_norm.weight 16", ggufGLU)},
	// Mixtral converts as llama, its experts stacked.
	{"llama", map[string]uint32{"expert_count": 3, "expert_used_count": 2},
		ggufLines(ggufTop, ggufNorm, ggufQKV, ggufOut, "blk.0.ffn_norm.weight 16", ggufExperts(24))},
	{"qwen2moe", map[string]uint32{"expert_count": 3, "expert_used_count": 2, "expert_feed_forward_length": 6, "expert_shared_feed_forward_length": 10},
		ggufLines(ggufTop, ggufNorm,
			ggufQKVBias,
			ggufOut, "blk.0.ffn_norm.weight 16", ggufExperts(6),
			"blk.0.ffn_gate_inp_shexp.weight 16,1\nblk.0.ffn_gate_shexp.weight 16,10\nblk.0.ffn_up_shexp.weight 16,10\nblk.0.ffn_down_shexp.weight 10,16")},
	// Phi-3: fused qkv and gate+up; LongRoPE factors of no HF tensor.
	{"phi3", nil, ggufLines(ggufTop, "rope_factors_long.weight 2\nrope_factors_short.weight 2", ggufNorm,
		"blk.0.attn_qkv.weight 16,32", ggufOut, "blk.0.ffn_norm.weight 16\nblk.0.ffn_up.weight 16,48\nblk.0.ffn_down.weight 24,16")},
	// StarCoder2: layer norms and projections with biases, plain MLP,
	// the head tied.
	{"starcoder2", nil, ggufLines("token_embd.weight 16,32", ggufLNNorms,
		ggufQKVBias,
		ggufLNTail)},
	// Command-R: one norm, parallel attention and MLP, tied head.
	{"command-r", nil, ggufLines("token_embd.weight 16,32\noutput_norm.weight 16", ggufNorm, ggufQKV, ggufOut, ggufGLU)},
	// OLMo 2: norms after attention and MLP, q/k norms over all heads.
	{"olmo2", nil, ggufLines(ggufTop, ggufQKV, "blk.0.attn_q_norm.weight 16\nblk.0.attn_k_norm.weight 8", ggufOut,
		"blk.0.post_attention_norm.weight 16", ggufGLU, "blk.0.post_ffw_norm.weight 16")},
	// DeepSeek-V2-Lite, one dense layer: q without compression, kv_b cut
	// into attn_k_b [heads, kv_lora, nope] and attn_v_b [heads, v, kv_lora].
	{"deepseek2", map[string]uint32{"attention.key_length": 10, "attention.value_length": 8, "attention.kv_lora_rank": 8,
		"attention.key_length_mla": 6, "attention.value_length_mla": 6, "rope.dimension_count": 2, "leading_dense_block_count": 1},
		ggufLines(ggufTop, ggufNorm, "blk.0.attn_q.weight 16,24\nblk.0.attn_kv_a_mqa.weight 16,10\nblk.0.attn_kv_a_norm.weight 8",
			"blk.0.attn_k_b.weight 4,8,4\nblk.0.attn_v_b.weight 8,6,4\nblk.0.attn_output.weight 24,16", "blk.0.ffn_norm.weight 16", ggufGLU)},
	// GPT-2: transformer.h.N, the Conv1D weights transposed to [out, in],
	// learned positions, the head tied.
	{"gpt2", nil, ggufLines("token_embd.weight 16,32\nposition_embd.weight 16,64", ggufLNNorms,
		"blk.0.attn_qkv.weight 16,48\nblk.0.attn_qkv.bias 48", ggufLNTail)},
	{"gemma3", map[string]uint32{"attention.key_length": 4}, ggufLines("token_embd.weight 16,32\noutput_norm.weight 16", ggufNorm, ggufQKV,
		"blk.0.attn_q_norm.weight 4\nblk.0.attn_k_norm.weight 4", ggufOut, "blk.0.post_attention_norm.weight 16\nblk.0.ffn_norm.weight 16", ggufGLU,
		"blk.0.post_ffw_norm.weight 16")},
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
