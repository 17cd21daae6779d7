package gguf

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// FuzzNewFile feeds arbitrary bytes to the parser. Errors are expected
// and must be *FormatError (the source is in memory: there is no I/O to
// fail); a panic, or a file that parses but breaks an invariant, is a
// failure. A parsed file is also written again with the test writer and
// read back: it must give the same metadata and tensors.
func FuzzNewFile(f *testing.F) {
	for _, g := range oracleFiles() {
		f.Add(g.bytes())
	}
	for _, b := range shards("m", 2) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		gf, err := NewFile(newMemFile("fuzz.gguf", raw))
		if err != nil {
			var fe *FormatError
			if !errors.As(err, &fe) || !errors.Is(err, ErrFormat) || rules[fe.Code] == "" {
				t.Fatalf("not a *FormatError with a known code: %T %v", err, err)
			}
			return
		}
		checkInvariants(t, gf, int64(len(raw)))
		again, err := NewFile(newMemFile("again.gguf", rewrite(gf).bytes()))
		if err != nil {
			t.Fatalf("the file written again does not parse: %v", err)
		}
		sameFile(t, gf, again)
	})
}

func checkInvariants(t *testing.T, f *File, size int64) {
	t.Helper()
	a := f.Alignment()
	if a == 0 || a&(a-1) != 0 {
		t.Fatalf("alignment %d", a)
	}
	if f.DataOffset() > size || (len(f.Tensors()) > 0 && uint64(f.DataOffset())%a != 0) {
		t.Fatalf("data offset %d of %d, alignment %d", f.DataOffset(), size, a)
	}
	for i, kv := range f.Metadata() {
		if v, ok := f.Lookup(kv.Key); !ok || !reflect.DeepEqual(v, kv.Value) {
			t.Fatalf("Lookup(%q) differs from entry %d", kv.Key, i)
		}
		text := textOf(t, kv.Value)
		if int64(len(text)) != kv.Value.TextSize() {
			t.Fatalf("%s: %d bytes of text, told %d", kv.Key, len(text), kv.Value.TextSize())
		}
		if kv.Value.Type() == TypeArray && len(linesOf(t, kv.Value)) != kv.Value.Len() {
			t.Fatalf("%s: %d lines for %d elements", kv.Key, len(linesOf(t, kv.Value)), kv.Value.Len())
		}
		if len(text) > 0 && text[len(text)-1] != '\n' {
			t.Fatalf("%s: text without a final newline", kv.Key)
		}
	}
	ts := f.Tensors()
	if len(ts) != len(f.TensorInfos()) {
		t.Fatalf("%d tensors, %d infos", len(ts), len(f.TensorInfos()))
	}
	for i := 1; i < len(ts); i++ {
		if ts[i-1].Name >= ts[i].Name {
			t.Fatalf("tensors not sorted and unique: %q, %q", ts[i-1].Name, ts[i].Name)
		}
	}
	type span struct{ lo, hi int64 }
	var spans []span
	for _, ti := range f.TensorInfos() {
		tt := ti.Tensor
		if f.Tensor(ti.Name) != tt || tt.Name != ti.Name || tt.File != f.Source() {
			t.Fatalf("%s: lookup", ti.Name)
		}
		if len(tt.Shape) != len(ti.Dims) || len(ti.Dims) < 1 || len(ti.Dims) > MaxDims {
			t.Fatalf("%s: shape %v, dims %v", ti.Name, tt.Shape, ti.Dims)
		}
		for j, d := range ti.Dims {
			if tt.Shape[len(ti.Dims)-1-j] != d {
				t.Fatalf("%s: shape %v is not dims %v reversed", ti.Name, tt.Shape, ti.Dims)
			}
		}
		n, ok := tt.DType.ByteSize(tt.NumElements())
		if !ok || int64(n) != tt.Length {
			t.Fatalf("%s: %d bytes for %d elements of %s", ti.Name, tt.Length, tt.NumElements(), tt.DType)
		}
		if tt.Offset != f.DataOffset()+int64(ti.Offset) || ti.Offset%a != 0 || tt.Offset+tt.Length > size {
			t.Fatalf("%s: bytes [%d, +%d) of %d, data at %d", ti.Name, tt.Offset, tt.Length, size, f.DataOffset())
		}
		if tt.Length > 0 {
			spans = append(spans, span{tt.Offset, tt.Offset + tt.Length})
		}
	}
	slices.SortFunc(spans, func(x, y span) int { return int(x.lo - y.lo) })
	for i := 1; i < len(spans); i++ {
		if spans[i].lo < spans[i-1].hi {
			t.Fatalf("overlap %v %v", spans[i-1], spans[i])
		}
	}
}

// rewrite describes a parsed file for the test writer.
func rewrite(f *File) *gfile {
	g := &gfile{version: f.Version(), align: f.Alignment(), noTail: true}
	for _, kv := range f.Metadata() {
		g.kvs = append(g.kvs, wkv{kv.Key, kv.Value.Type(), writerValue(kv.Value)})
	}
	var end uint64
	for _, ti := range f.TensorInfos() {
		g.tensors = append(g.tensors, wtensor{name: ti.Name, dims: ti.Dims, typ: uint32(ti.Type), offset: u64p(ti.Offset), nbytes: uint64(ti.Tensor.Length)})
		end = max(end, ti.Offset+uint64(ti.Tensor.Length))
	}
	g.dataLen = &end
	return g
}

func writerValue(v Value) any {
	if v.Type() == TypeBool {
		return uint8(v.bits) // as it was, 0, 1 or another byte
	}
	if v.Type() != TypeArray {
		return v.Any()
	}
	e, _ := v.ElemType()
	items := make([]any, v.Len())
	for i := range items {
		e, err := v.Index(i)
		if err != nil {
			panic(err)
		}
		items[i] = writerValue(e)
	}
	return arr{e, items}
}

func sameFile(t *testing.T, a, b *File) {
	t.Helper()
	if len(a.Metadata()) != len(b.Metadata()) || a.Version() != b.Version() || a.Alignment() != b.Alignment() {
		t.Fatalf("rewritten: %d keys v%d align %d, was %d v%d %d", len(b.Metadata()), b.Version(), b.Alignment(), len(a.Metadata()), a.Version(), a.Alignment())
	}
	for i, kv := range a.Metadata() {
		o := b.Metadata()[i]
		if kv.Key != o.Key || !sameValue(kv.Value, o.Value) {
			t.Fatalf("rewritten %s: %s, was %s", kv.Key, short(anyOf(o.Value)), short(anyOf(kv.Value)))
		}
	}
	if len(a.TensorInfos()) != len(b.TensorInfos()) {
		t.Fatalf("rewritten: %d tensors, was %d", len(b.TensorInfos()), len(a.TensorInfos()))
	}
	for i, ti := range a.TensorInfos() {
		o := b.TensorInfos()[i]
		if ti.Name != o.Name || ti.Type != o.Type || ti.Offset != o.Offset || !slices.Equal(ti.Dims, o.Dims) || ti.Tensor.Length != o.Tensor.Length {
			t.Fatalf("rewritten tensor %+v, was %+v", o, ti)
		}
	}
}
