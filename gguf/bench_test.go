package gguf

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	oracle "github.com/gpustack/gguf-parser-go"
)

// llama70B describes a Llama-3-70B Q4_K_M-like file: 723 tensors and a
// 128,256-token vocabulary (tokens and token types) in the metadata.
func llama70B() *gfile {
	const (
		E, V, L, F, KV = 8192, 128256, 80, 28672, 1024
		f32, q4k, q6k  = 0, 12, 14
	)
	tokens := make([]any, V)
	types := make([]any, V)
	for i := range tokens {
		tokens[i] = fmt.Sprintf("Ġtok%d", i)
		types[i] = int32(1)
	}
	g := &gfile{kvs: []wkv{
		kv("general.architecture", TypeString, "llama"),
		kv("general.name", TypeString, "Llama 3 70B (layout only)"),
		kv("llama.block_count", TypeUint32, uint32(L)),
		kv("llama.context_length", TypeUint32, uint32(8192)),
		kv("llama.embedding_length", TypeUint32, uint32(E)),
		kv("llama.feed_forward_length", TypeUint32, uint32(F)),
		kv("llama.attention.head_count", TypeUint32, uint32(64)),
		kv("llama.attention.head_count_kv", TypeUint32, uint32(8)),
		kv("llama.rope.freq_base", TypeFloat32, float32(500000)),
		kv("llama.attention.layer_norm_rms_epsilon", TypeFloat32, float32(1e-5)),
		kv("general.file_type", TypeUint32, uint32(15)),
		kv("general.quantization_version", TypeUint32, uint32(2)),
		kv("tokenizer.ggml.model", TypeString, "gpt2"),
		kv("tokenizer.ggml.tokens", TypeArray, arr{TypeString, tokens}),
		kv("tokenizer.ggml.token_type", TypeArray, arr{TypeInt32, types}),
	}}
	add := func(name string, typ uint32, dims ...uint64) {
		g.tensors = append(g.tensors, tensorOf(name, typ, dims...))
	}
	add("token_embd.weight", q4k, E, V)
	for i := 0; i < L; i++ {
		p := fmt.Sprintf("blk.%d.", i)
		add(p+"attn_norm.weight", f32, E)
		add(p+"attn_q.weight", q4k, E, E)
		add(p+"attn_k.weight", q4k, E, KV)
		add(p+"attn_v.weight", q6k, E, KV)
		add(p+"attn_output.weight", q4k, E, E)
		add(p+"ffn_norm.weight", f32, E)
		add(p+"ffn_gate.weight", q4k, E, F)
		add(p+"ffn_up.weight", q4k, E, F)
		add(p+"ffn_down.weight", q6k, F, E)
	}
	add("output_norm.weight", f32, E)
	add("output.weight", q6k, E, V)
	return g
}

// write70B writes the 70B layout as a sparse file: the real header, and
// a data section of the real length that is never written.
func write70B(dir string) (string, error) {
	h, n := llama70B().header()
	p := filepath.Join(dir, "llama-70b-layout.gguf")
	f, err := os.Create(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if _, err := f.Write(h); err != nil {
		return "", err
	}
	return p, f.Truncate(int64(len(h)) + int64(n))
}

func TestLlama70BLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 40 GB sparse file")
	}
	p, err := write70B(t.TempDir())
	if err != nil {
		t.Skip("cannot write a sparse file here:", err)
	}
	f, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if n := len(f.Tensors()); n != 723 {
		t.Errorf("%d tensors, want 723", n)
	}
	if got, want := f.ParameterCount(), uint64(70_553_706_496); got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	if v, _ := f.Lookup("tokenizer.ggml.tokens"); v.Len() != 128256 || index(t, v, 128255).Any() != "Ġtok128255" {
		t.Errorf("vocabulary of %d", v.Len())
	}
	if w := f.Warnings(); len(w) != 0 {
		t.Errorf("warnings %q", w)
	}
	compareOracle(t, p)
}

// BenchmarkHeader70B parses the header of the 70B layout with this
// package and with gguf-parser-go, in the same run; both open the file
// and read every metadata value.
func BenchmarkHeader70B(b *testing.B) {
	p, err := write70B(b.TempDir())
	if err != nil {
		b.Skip("cannot write a sparse file here:", err)
	}
	b.Run("fsmount", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			f, err := Open(p)
			if err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("gguf-parser-go", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := oracle.ParseGGUFFile(p); err != nil {
				b.Fatal(err)
			}
		}
	})
}
