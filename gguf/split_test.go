package gguf

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// shards writes a split model of count shards, as gguf-py does: every key
// in the first, the split keys in all, tensors spread over the shards.
func shards(prefix string, count int) memFS {
	fsys := memFS{}
	for i := 0; i < count; i++ {
		g := &gfile{}
		if i == 0 {
			g.kvs = small().kvs
		}
		g.kvs = append(g.kvs,
			kv(KeySplitNo, TypeUint16, uint16(i)),
			kv(KeySplitCount, TypeUint16, uint16(count)),
			kv(KeySplitTensorsCount, TypeInt32, int32(2*count)))
		g.tensors = []wtensor{
			tensorOf("blk."+string(rune('0'+i))+".a.weight", 0, 32, 2),
			tensorOf("blk."+string(rune('0'+i))+".b.weight", 2, 32, 1),
		}
		fsys[SplitName(prefix, i+1, count)] = g.bytes()
	}
	return fsys
}

func TestSplitNames(t *testing.T) {
	if got := SplitName("m", 2, 3); got != "m-00002-of-00003.gguf" {
		t.Errorf("SplitName: %q", got)
	}
	for name, want := range map[string]struct {
		prefix    string
		no, count int
		ok        bool
	}{
		"Llama-70B-Q4_K-00001-of-00003.gguf": {"Llama-70B-Q4_K", 1, 3, true},
		"a-b-00010-of-00012.gguf":            {"a-b", 10, 12, true},
		"-00001-of-00002.gguf":               {"", 1, 2, true},
		"m-0001-of-00003.gguf":               {},
		"m-00001-of-00003.bin":               {},
		"m-0000x-of-00003.gguf":              {},
		"m.gguf":                             {},
		"m-+0001-of-00003.gguf":              {},
	} {
		p, n, c, ok := ParseSplitName(name)
		if p != want.prefix || n != want.no || c != want.count || ok != want.ok {
			t.Errorf("ParseSplitName(%q) = %q %d %d %v", name, p, n, c, ok)
		}
	}
}

func TestOpenModelSplit(t *testing.T) {
	fsys := shards("m", 3)
	m, err := OpenModel(fsys, "m-00001-of-00003.gguf")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if len(m.Files()) != 3 || len(m.Tensors()) != 6 || m.Architecture() != "llama" {
		t.Fatalf("%d files, %d tensors, arch %q", len(m.Files()), len(m.Tensors()), m.Architecture())
	}
	for i, f := range m.Files() {
		for _, tt := range f.Tensors() {
			if m.Tensor(tt.Name) != tt || tt.File.Name() != SplitName("m", i+1, 3) {
				t.Errorf("%s in file %s", tt.Name, tt.File.Name())
			}
		}
	}
	names := []string{}
	for _, tt := range m.Tensors() {
		names = append(names, tt.Name)
	}
	if !slices.IsSorted(names) || names[0] != "blk.0.a.weight" || names[5] != "blk.2.b.weight" {
		t.Errorf("tensors %q", names)
	}
	if v, ok := m.Lookup("llama.block_count"); !ok || v.String() != "1" {
		t.Error("metadata from the first shard")
	}
	if m.ParameterCount() != 3*(64+32) {
		t.Errorf("%d parameters", m.ParameterCount())
	}
	// Join from an already parsed first shard
	src, _ := fsys.Open("m-00001-of-00003.gguf")
	first, err := NewFile(src)
	if err != nil {
		t.Fatal(err)
	}
	j, err := Join(first, fsys)
	if err != nil || len(j.Tensors()) != 6 {
		t.Fatalf("Join: %v", err)
	}
	j.Close()
}

func TestOpenModelSingle(t *testing.T) {
	fsys := memFS{"model.gguf": small().bytes()}
	m, err := OpenModel(fsys, "model.gguf")
	if err != nil || len(m.Files()) != 1 || len(m.Tensors()) != 2 || len(m.Warnings()) != 1 {
		t.Fatalf("%v %+v", err, m)
	}
	// A whole model named like a shard is read whole, with a warning.
	fsys = memFS{"m-00001-of-00002.gguf": small().bytes()}
	m, err = OpenModel(fsys, "m-00001-of-00002.gguf")
	if err != nil || len(m.Files()) != 1 || !strings.Contains(strings.Join(m.Warnings(), "\n"), "no split.count") {
		t.Fatalf("%v %q", err, m.Warnings())
	}
}

func TestOpenModelBad(t *testing.T) {
	tests := []struct {
		name string
		edit func(fsys memFS)
		open string
		code Code
	}{
		{"missing-shard", func(fsys memFS) { delete(fsys, "m-00003-of-00003.gguf") }, "", CodeMissingShard},
		{"not-first", nil, "m-00002-of-00003.gguf", CodeBadSplit},
		{"wrong-no", func(fsys memFS) { fsys["m-00003-of-00003.gguf"] = fsys["m-00002-of-00003.gguf"] }, "", CodeBadSplit},
		{"duplicate-tensor", func(fsys memFS) {
			g := &gfile{kvs: []wkv{kv(KeySplitNo, TypeUint16, uint16(2)), kv(KeySplitCount, TypeUint16, uint16(3))},
				tensors: []wtensor{tensorOf("blk.0.a.weight", 0, 8)}}
			fsys["m-00003-of-00003.gguf"] = g.bytes()
		}, "", CodeDuplicateTensor},
		{"tensor-count", func(fsys memFS) {
			g := &gfile{kvs: []wkv{kv(KeySplitNo, TypeUint16, uint16(2)), kv(KeySplitCount, TypeUint16, uint16(3))},
				tensors: []wtensor{tensorOf("blk.2.a.weight", 0, 8)}}
			fsys["m-00003-of-00003.gguf"] = g.bytes()
		}, "", CodeBadSplit},
		{"split-count-u32", func(fsys memFS) {
			g := small()
			g.kvs = append(g.kvs, kv(KeySplitCount, TypeUint32, uint32(3)))
			fsys["m-00001-of-00003.gguf"] = g.bytes()
		}, "", CodeBadSplit},
		{"renamed-first", func(fsys memFS) { fsys["model.gguf"] = fsys["m-00001-of-00003.gguf"] }, "model.gguf", CodeBadSplit},
		{"bad-shard", func(fsys memFS) { fsys["m-00002-of-00003.gguf"] = []byte("GGUF\x01\x00\x00\x00") }, "", CodeVersion1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := shards("m", 3)
			if tt.edit != nil {
				tt.edit(fsys)
			}
			open := tt.open
			if open == "" {
				open = "m-00001-of-00003.gguf"
			}
			_, err := OpenModel(fsys, open)
			if !HasCode(err, tt.code) {
				t.Fatalf("error %v, want %s", err, tt.code)
			}
			t.Log(err)
		})
	}
	if _, err := OpenModel(memFS{}, "x.gguf"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}
