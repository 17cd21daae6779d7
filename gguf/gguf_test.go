package gguf

import (
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

const realFile = "testdata/llama-2-tiny-random.gguf"

func parse(g *gfile) (*File, error) { return NewFile(newMemFile("test.gguf", g.bytes())) }

func mustParse(t testing.TB, g *gfile) *File {
	t.Helper()
	f, err := parse(g)
	if err != nil {
		t.Fatalf("NewFile: %v", err)
	}
	return f
}

func u32(f *File, key string) uint64 {
	v, _ := f.Lookup(key)
	if v.Type() != TypeUint32 {
		return 1<<64 - 1
	}
	n, _ := v.Uint()
	return n
}

// The figures of the real file, from SOURCES.md and the file itself.
func TestRealFile(t *testing.T) {
	f, err := Open(realFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Version() != 3 || f.Alignment() != 32 || f.Architecture() != "llama" {
		t.Errorf("version %d, alignment %d, architecture %q", f.Version(), f.Alignment(), f.Architecture())
	}
	if n := len(f.Metadata()); n != 18 {
		t.Errorf("%d metadata entries, want 18", n)
	}
	if n := len(f.Tensors()); n != 12 {
		t.Errorf("%d tensors, want 12", n)
	}
	// token_embd and output 8×32000, four 8×8 attention, three 8×32 ffn, three norms of 8
	if got, want := f.ParameterCount(), uint64(2*8*32000+4*64+3*256+3*8); got != want {
		t.Errorf("%d parameters, want %d", got, want)
	}
	for key, want := range map[string]uint64{
		"llama.block_count": 1, "llama.context_length": 4096, "llama.embedding_length": 8,
		"llama.feed_forward_length": 32, "llama.attention.head_count": 2, "llama.attention.head_count_kv": 2,
		"llama.rope.dimension_count": 4, "general.file_type": 1,
	} {
		if got := u32(f, key); got != want {
			t.Errorf("%s = %d, want %d (u32)", key, got, want)
		}
	}
	if v, _ := f.Lookup("general.name"); v.String() != "LLaMA v2" {
		t.Errorf("general.name = %q", v.String())
	}
	if v, _ := f.Lookup("llama.attention.layer_norm_rms_epsilon"); v.String() != "1e-05" {
		t.Errorf("rms epsilon renders as %q", v.String())
	}
	tokens, ok := f.Lookup("tokenizer.ggml.tokens")
	toks, _, err := tokens.Strings()
	if err != nil {
		t.Fatal(err)
	}
	if !ok || tokens.Len() != 32000 || len(toks) != 32000 || toks[0] != "<unk>" || toks[1] != "<s>" || toks[2] != "</s>" {
		t.Errorf("tokens: %d, first %q", tokens.Len(), toks[:min(3, len(toks))])
	}
	for _, key := range []string{"tokenizer.ggml.scores", "tokenizer.ggml.token_type"} {
		if v, _ := f.Lookup(key); v.Len() != 32000 {
			t.Errorf("%s has %d elements", key, v.Len())
		}
	}
	lines := linesOf(t, tokens)
	if len(lines) != 32000 || lines[0] != `"<unk>"` {
		t.Errorf("token lines: %d, first %q", len(lines), lines[0])
	}
	emb := f.Tensor("token_embd.weight")
	if emb == nil || emb.DType != tensor.F16 || !slices.Equal(emb.Shape, []uint64{32000, 8}) || emb.Offset != f.DataOffset() || emb.Length != 512000 {
		t.Errorf("token_embd.weight: %+v", emb)
	}
	if q := f.Tensor("blk.0.ffn_down.weight"); q == nil || !slices.Equal(q.Shape, []uint64{8, 32}) {
		t.Errorf("ffn_down: %+v (ne [32, 8] reversed is [8, 32])", q)
	}
	if w := f.Warnings(); len(w) != 0 {
		t.Errorf("warnings: %q", w)
	}
	// The first F32 norm reads back as the file's bytes say.
	norm := f.Tensor("output_norm.weight")
	b := make([]byte, norm.Length)
	if _, err := norm.Reader().Read(b); err != nil {
		t.Fatal(err)
	}
}

// The 608-byte file of gguf.md §1.8.
func TestWorkedExample(t *testing.T) {
	g := &gfile{
		kvs: []wkv{
			{"general.architecture", TypeString, "llama"},
			{"general.alignment", TypeUint32, uint32(32)},
			{"llama.block_count", TypeUint32, uint32(1)},
			{"tokenizer.ggml.tokens", TypeArray, arr{TypeString, []any{"a", " b", "c "}}},
		},
		tensors: []wtensor{tensorOf("tok.weight", 0, 32, 2), tensorOf("q.weight", 2, 32, 1)},
	}
	g.tensors[1].offset = u64p(256)
	b := g.bytes()
	if len(b) != 608 || string(b[:4]) != "GGUF" {
		t.Fatalf("writer made %d bytes, want 608", len(b))
	}
	f := mustParse(t, g)
	if f.DataOffset() != 320 {
		t.Errorf("data at %d, want 320", f.DataOffset())
	}
	if q := f.Tensor("q.weight"); q.Offset != 320+256 || q.Length != 18 || q.DType != tensor.Q4_0 {
		t.Errorf("q.weight %+v", q)
	}
	v, _ := f.Lookup("tokenizer.ggml.tokens")
	if got := textOf(t, v); got != "\"a\"\n\" b\"\n\"c \"\n" {
		t.Errorf("tokens render as %q", got)
	}
	// No general.quantization_version with a Q4_0 tensor.
	if w := f.Warnings(); len(w) != 1 || !strings.Contains(w[0], "quantization_version") {
		t.Errorf("warnings %q", w)
	}
}

func kv(key string, typ ValueType, val any) wkv { return wkv{key, typ, val} }

// nested returns arrays of u8 nested depth deep.
func nested(depth int) any {
	if depth == 1 {
		return arr{TypeUint8, []any{uint8(1)}}
	}
	return arr{TypeArray, []any{nested(depth - 1)}}
}

// TestMalformed has one row per rule: a file breaking it, and the code.
func TestMalformed(t *testing.T) {
	with := func(edit func(g *gfile)) *gfile {
		g := small()
		edit(g)
		return g
	}
	put64 := func(off int, v uint64) func([]byte) {
		return func(b []byte) { binary.LittleEndian.PutUint64(b[off:], v) }
	}
	tests := []struct {
		name string
		g    *gfile
		raw  []byte // instead of g
		code Code
	}{
		{name: "empty", raw: []byte{}, code: CodeBadMagic},
		{name: "magic", g: with(func(g *gfile) { g.magic = "GGUX" }), code: CodeBadMagic},
		{name: "legacy-ggjt", g: with(func(g *gfile) { g.magic = "tjgg" }), code: CodeBadMagic},
		{name: "version-1", g: with(func(g *gfile) { g.version = 1 }), code: CodeVersion1},
		{name: "version-4", g: with(func(g *gfile) { g.version = 4 }), code: CodeBadVersion},
		{name: "version-big-endian", g: with(func(g *gfile) { g.version = 0x03000000 }), code: CodeByteOrder},
		{name: "only-magic-and-version", raw: []byte("GGUF\x03\x00\x00\x00\x00"), code: CodeTruncated},
		{name: "truncated-tensor-info", raw: func() []byte {
			g := small()
			g.noPad = true
			h, _ := g.header()
			return h[:len(h)-4] // inside the last tensor's offset
		}(), code: CodeTruncated},
		{name: "kv-count-huge", g: with(func(g *gfile) { g.nKV = u64p(1 << 40) }), code: CodeBadCount},
		{name: "tensor-count-huge", g: with(func(g *gfile) { g.nTensors = u64p(1<<64 - 1) }), code: CodeBadCount},
		{name: "key-length-past-eof", g: with(func(g *gfile) { g.patch = put64(24, 1<<40) }), code: CodeBadString},
		{name: "key-empty", g: with(func(g *gfile) { g.kvs = append(g.kvs, kv("", TypeUint8, uint8(0))) }), code: CodeBadKey},
		{name: "key-duplicate", g: with(func(g *gfile) { g.kvs = append(g.kvs, kv("llama.block_count", TypeUint32, uint32(2))) }), code: CodeDuplicateKey},
		{name: "value-type-13", g: with(func(g *gfile) { g.kvs = append(g.kvs, kv("x.y", 13, uint8(0))) }), code: CodeBadValueType},
		{name: "array-elem-type-13", g: with(func(g *gfile) { g.kvs = append(g.kvs, kv("x.y", TypeArray, arr{13, nil})) }), code: CodeBadValueType},
		{name: "array-count-past-eof", g: with(func(g *gfile) {
			g.kvs = append(g.kvs, kv("x.y", TypeArray, arr{TypeUint64, nil}))
			g.nTensors = u64p(0)
			g.tensors = nil
			g.patch = func(b []byte) { binary.LittleEndian.PutUint64(b[len(b)-8:], 1<<20) }
		}), code: CodeBadCount},
		{name: "array-depth-5", g: with(func(g *gfile) { g.kvs = append(g.kvs, kv("x.y", TypeArray, nested(5))) }), code: CodeArrayDepth},
		{name: "alignment-zero", g: with(func(g *gfile) { g.kvs[1].val = uint32(0) }), code: CodeBadAlignment},
		{name: "alignment-24", g: with(func(g *gfile) { g.kvs[1].val = uint32(24) }), code: CodeBadAlignment},
		{name: "alignment-u64", g: with(func(g *gfile) { g.kvs[1] = kv("general.alignment", TypeUint64, uint64(32)) }), code: CodeBadAlignment},
		{name: "tensor-name-empty", g: with(func(g *gfile) { g.tensors[0].name = "" }), code: CodeBadTensorName},
		{name: "tensor-name-64-bytes", g: with(func(g *gfile) { g.tensors[0].name = strings.Repeat("x", 64) }), code: CodeBadTensorName},
		{name: "tensor-duplicate", g: with(func(g *gfile) { g.tensors[1].name = g.tensors[0].name }), code: CodeDuplicateTensor},
		{name: "n-dims-0", g: with(func(g *gfile) { g.tensors[0].dims = nil }), code: CodeBadDims},
		{name: "n-dims-5", g: with(func(g *gfile) { g.tensors[0].dims = []uint64{32, 1, 1, 1, 1} }), code: CodeBadDims},
		{name: "dim-2^63", g: with(func(g *gfile) { g.tensors[0].dims = []uint64{1 << 63} }), code: CodeBadDim},
		{name: "type-removed-q4_2", g: with(func(g *gfile) { g.tensors[0].typ = 4 }), code: CodeBadType},
		{name: "type-unknown-99", g: with(func(g *gfile) { g.tensors[0].typ = 99 }), code: CodeBadType},
		{name: "q4_0-row-of-16", g: with(func(g *gfile) { g.tensors[1].dims = []uint64{16, 2} }), code: CodeBlockMultiple},
		{name: "elements-overflow", g: with(func(g *gfile) { g.tensors[0].dims = []uint64{1 << 32, 1 << 32} }), code: CodeSizeOverflow},
		{name: "bytes-overflow", g: with(func(g *gfile) { g.tensors[0].dims = []uint64{1 << 62} }), code: CodeSizeOverflow},
		{name: "offset-misaligned", g: with(func(g *gfile) { g.tensors[1].offset = u64p(272) }), code: CodeMisaligned},
		{name: "offset-past-eof", g: with(func(g *gfile) { g.tensors[1].offset = u64p(1 << 40); g.dataLen = u64p(512) }), code: CodeOutOfBounds},
		{name: "data-truncated", g: with(func(g *gfile) { g.noTail = true; g.truncate = 1 }), code: CodeOutOfBounds},
		{name: "data-section-past-eof", g: with(func(g *gfile) {
			g.tensors = []wtensor{tensorOf("empty.weight", 0, 0)}
			g.noPad = true
		}), code: CodeOutOfBounds},
		{name: "overlap", g: with(func(g *gfile) { g.tensors[1].offset = u64p(0) }), code: CodeOverlap},
		{name: "overlap-partial", g: with(func(g *gfile) { g.tensors[1].offset = u64p(224) }), code: CodeOverlap},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := tt.raw
			if tt.g != nil {
				raw = tt.g.bytes()
			}
			_, err := NewFile(newMemFile("bad.gguf", raw))
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Fatalf("error %v (%T), want a *FormatError %s", err, err, tt.code)
			}
			if fe.Code != tt.code || !errors.Is(err, tt.code) || !HasCode(err, tt.code) || !errors.Is(err, ErrFormat) {
				t.Fatalf("error %v, want code %s", err, tt.code)
			}
			if fe.File != "bad.gguf" || !strings.HasPrefix(err.Error(), "bad.gguf: "+string(tt.code)) {
				t.Errorf("message %q", err.Error())
			}
			t.Log(err)
		})
	}
}

func TestErrorMatching(t *testing.T) {
	err := error(&FormatError{File: "f", Code: CodeOverlap, Tensor: "a", Detail: "d"})
	if !errors.Is(err, CodeOverlap) || errors.Is(err, CodeMisaligned) || !errors.Is(err, ErrFormat) {
		t.Error("errors.Is against codes")
	}
	if HasCode(errors.New("x"), CodeOverlap) || !HasCode(errors.Join(errors.New("x"), err), CodeOverlap) {
		t.Error("HasCode")
	}
	if got := err.Error(); got != "f: overlap (tensors overlap): a: d" {
		t.Errorf("message %q", got)
	}
	for c, s := range rules {
		if s == "" || c == "" || c.Error() != "gguf: "+s {
			t.Errorf("code %q: %q", c, s)
		}
	}
}

// Files legal here but odd, or refused by llama.cpp: accepted, with a
// warning.
func TestWarnings(t *testing.T) {
	tests := []struct {
		name string
		edit func(g *gfile)
		want string
	}{
		{"alignment-4", func(g *gfile) { g.kvs[1].val = uint32(4); g.align = 4 }, "not a multiple of 8"},
		{"unpacked", func(g *gfile) { g.tensors[1].offset = u64p(512) }, "llama.cpp expects 256"},
		{"nested-array", func(g *gfile) { g.kvs = append(g.kvs, kv("x.y", TypeArray, nested(4))) }, "array of arrays"},
		{"bool-2", func(g *gfile) { g.kvs = append(g.kvs, kv("x.b", TypeBool, uint8(2))) }, "bool byte 2"},
		{"bool-array", func(g *gfile) { g.kvs = append(g.kvs, kv("x.b", TypeArray, arr{TypeBool, []any{true, uint8(7)}})) }, "bool byte"},
		{"no-architecture", func(g *gfile) { g.kvs = g.kvs[1:] }, "no general.architecture"},
		{"zero-dim", func(g *gfile) { g.tensors[0].dims = []uint64{32, 0}; g.tensors[0].nbytes = 0 }, "zero dimension"},
		{"key-case", func(g *gfile) { g.kvs = append(g.kvs, kv("General.Name", TypeString, "x")) }, "lower_snake_case"},
		{"not-utf8", func(g *gfile) { g.kvs = append(g.kvs, kv("x.s", TypeString, "\xff")) }, "UTF-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := small()
			g.kvs = append(g.kvs, kv("general.quantization_version", TypeUint32, uint32(2)))
			tt.edit(g)
			f := mustParse(t, g)
			if w := f.Warnings(); len(w) != 1 || !strings.Contains(w[0], tt.want) {
				t.Errorf("warnings %q, want one with %q", w, tt.want)
			}
		})
	}
}

func TestValues(t *testing.T) {
	g := &gfile{kvs: []wkv{
		kv("general.architecture", TypeString, "x"),
		kv("a.u8", TypeUint8, uint8(200)),
		kv("a.i8", TypeInt8, int8(-5)),
		kv("a.u16", TypeUint16, uint16(65535)),
		kv("a.i16", TypeInt16, int16(-300)),
		kv("a.u32", TypeUint32, uint32(1<<31)),
		kv("a.i32", TypeInt32, int32(-1)),
		kv("a.f32", TypeFloat32, float32(0.1)),
		kv("a.bool", TypeBool, true),
		kv("a.str", TypeString, "line 1\nline 2"),
		kv("a.u64", TypeUint64, uint64(1<<64-1)),
		kv("a.i64", TypeInt64, int64(-1<<63)),
		kv("a.f64", TypeFloat64, float64(0.1)),
		kv("a.arr_f32", TypeArray, arr{TypeFloat32, []any{float32(1.5), float32(-2)}}),
		kv("a.arr_str", TypeArray, arr{TypeString, []any{"x", "two\nlines", ""}}),
		kv("a.arr_arr", TypeArray, arr{TypeArray, []any{arr{TypeInt16, []any{int16(1), int16(-2)}}, arr{TypeString, []any{"q"}}}}),
		kv("a.arr_empty", TypeArray, arr{TypeUint8, nil}),
	}}
	f := mustParse(t, g)
	want := map[string]string{
		"a.u8": "200", "a.i8": "-5", "a.u16": "65535", "a.i16": "-300", "a.u32": "2147483648", "a.i32": "-1",
		"a.f32": "0.1", "a.bool": "true", "a.str": "line 1\nline 2", "a.u64": "18446744073709551615",
		"a.i64": "-9223372036854775808", "a.f64": "0.1", "a.arr_f32": "1.5\n-2", "a.arr_str": "\"x\"\n\"two\\nlines\"\n\"\"",
		"a.arr_arr": "[1, -2]\n[\"q\"]", "a.arr_empty": "",
	}
	for key, w := range want {
		v, ok := f.Lookup(key)
		if !ok || v.Type() != TypeArray && v.String() != w {
			t.Errorf("%s = %q, want %q", key, v.String(), w)
		}
		if text := textOf(t, v); (v.Type() != TypeArray || v.Len() > 0) && text != w+"\n" || v.Len() == 0 && v.Type() == TypeArray && text != "" {
			t.Errorf("%s file text %q", key, text)
		}
	}
	if keys := len(f.Metadata()); keys != len(g.kvs) || f.Metadata()[1].Key != "a.u8" {
		t.Errorf("metadata order: %d entries", keys)
	}
	v, _ := f.Lookup("a.i8")
	if i, ok := v.Int(); !ok || i != -5 {
		t.Error("Int of i8")
	}
	if _, ok := v.Uint(); ok {
		t.Error("Uint of a negative i8")
	}
	v, _ = f.Lookup("a.u64")
	if _, ok := v.Int(); ok {
		t.Error("Int of 2^64-1")
	}
	v, _ = f.Lookup("a.f32")
	if x, ok := v.Float(); !ok || float32(x) != 0.1 {
		t.Error("Float of f32")
	}
	v, _ = f.Lookup("a.arr_arr")
	if e, _ := v.ElemType(); e != TypeArray || index(t, index(t, v, 1), 0).Any() != "q" || v.Len() != 2 {
		t.Error("nested array access")
	}
	if got := linesOf(t, v); !slices.Equal(got, []string{"[1, -2]", `["q"]`}) {
		t.Errorf("lines %q", got)
	}
	v, _ = f.Lookup("a.str")
	if got := linesOf(t, v); len(got) != 2 || v.TextSize() != int64(len("line 1\nline 2\n")) {
		t.Errorf("a scalar string is one value: %q", got)
	}
	if f.DataOffset() != int64(len(g.bytes())) {
		t.Error("no tensors: the data section starts at the end of the header, unpadded")
	}
}

func TestTypes(t *testing.T) {
	for id := GGMLType(0); id < 50; id++ {
		dt, ok := id.DType()
		_, removed := removedTypes[id]
		if (id <= 42 && ok == removed) || (id > 42 && ok) {
			t.Errorf("id %d: %v ok %v removed %v", id, dt, ok, removed)
		}
		if ok {
			if back, ok := GGMLTypeOf(dt); !ok || back != id {
				t.Errorf("%s round trip %d -> %d", dt, id, back)
			}
		}
	}
	if id, ok := GGMLTypeOf(tensor.Q4_K); !ok || id != 12 || id.String() != "Q4_K" {
		t.Error("Q4_K is 12")
	}
	if _, ok := GGMLTypeOf(tensor.F8_E4M3); ok {
		t.Error("F8_E4M3 is not a ggml type")
	}
	if s := GGMLType(32).String(); !strings.Contains(s, "Q4_0_4_8") {
		t.Errorf("removed id 32: %q", s)
	}
}

func TestShapeReversed(t *testing.T) {
	g := small()
	g.tensors = []wtensor{tensorOf("w", 12, 256, 3, 2, 5), tensorOf("b", 0, 7)}
	f := mustParse(t, g)
	w := f.Tensor("w")
	if !slices.Equal(w.Shape, []uint64{5, 2, 3, 256}) || w.Length != 30*144 || w.DType != tensor.Q4_K {
		t.Errorf("w: %v %d %s", w.Shape, w.Length, w.DType)
	}
	infos := f.TensorInfos()
	if infos[0].Name != "w" || !slices.Equal(infos[0].Dims, []uint64{256, 3, 2, 5}) || infos[0].Type != 12 {
		t.Errorf("info %+v", infos[0])
	}
	if names := []string{f.Tensors()[0].Name, f.Tensors()[1].Name}; !slices.Equal(names, []string{"b", "w"}) {
		t.Errorf("not sorted by name: %q", names)
	}
	var _ source.File = w.File
	if w.File != f.Source() {
		t.Error("tensor's file")
	}
}
