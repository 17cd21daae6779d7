package e2e

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// realGGUF is ollama's tiny random-weight Llama 2 (F16 and F32 tensors, a
// 32,000-token vocabulary), copied into gguf/testdata.
func realGGUF() string { return repoPath("gguf", "testdata", "llama-2-tiny-random.gguf") }

func TestInspectGGUFReal(t *testing.T) {
	r := runCmd(t, "fsinspect", realGGUF())
	require.Equal(t, 0, r.code, r.stderr)
	for _, want := range []string{
		"── dimensions (from the GGUF metadata) ─",
		"V  vocab_size              32000",
		"attn_q.weight                 F16   [8, 8]",
		"token_embd.weight             F16   [32000, 8]",
		"✓ all 12 expected tensors present, shapes match the config",
		"params: 513,048 stored · 513,048 logical",
	} {
		assert.Contains(t, r.stdout, want)
	}
	// A directory holding one GGUF file is that model.
	dir := t.TempDir()
	b, err := os.ReadFile(realGGUF())
	require.NoError(t, err)
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
	orig, err := os.ReadFile(realGGUF())
	require.NoError(t, err)
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
	kvs := []testmodel.GGUFKV{
		{Key: "general.architecture", Value: "llama"},
		{Key: "llama.block_count", Value: uint32(1)},
		{Key: "llama.embedding_length", Value: uint32(32)},
		{Key: "llama.feed_forward_length", Value: uint32(64)},
		{Key: "llama.attention.head_count", Value: uint32(2)},
		{Key: "llama.attention.head_count_kv", Value: uint32(2)},
		{Key: "llama.attention.layer_norm_rms_epsilon", Value: float32(1e-5)},
		{Key: "general.quantization_version", Value: uint32(2)},
		{Key: "tokenizer.ggml.tokens", Value: []string{"a", "b", "c", "d"}},
	}
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
	b, err := os.ReadFile(filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "values"))
	require.NoError(t, err)
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
