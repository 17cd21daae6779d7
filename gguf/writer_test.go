package gguf

import (
	"bytes"
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/fsmount/fsmount/source"
)

// This file is a small GGUF writer for tests, written from the format's
// description (gguf.md §1), with hooks to break each rule.

// memFile is a source.File over bytes.
type memFile struct {
	*bytes.Reader
	name string
	size int64
}

func newMemFile(name string, b []byte) *memFile {
	return &memFile{Reader: bytes.NewReader(b), name: name, size: int64(len(b))}
}

func (m *memFile) Close() error       { return nil }
func (m *memFile) Name() string       { return m.name }
func (m *memFile) Size() int64        { return m.size }
func (m *memFile) ModTime() time.Time { return time.Time{} }
func (m *memFile) Mode() fs.FileMode  { return 0o444 }

// memFS is a source.FS of in-memory files.
type memFS map[string][]byte

func (m memFS) Open(name string) (source.File, error) {
	b, ok := m[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return newMemFile(name, b), nil
}
func (m memFS) List() ([]string, error) { return nil, source.ErrNotListable }
func (m memFS) String() string          { return "memfs" }

// arr is an array value for the writer.
type arr struct {
	elem  ValueType
	items []any
}

type wkv struct {
	key string
	typ ValueType
	val any
}

type wtensor struct {
	name   string
	dims   []uint64 // ne order
	typ    uint32
	offset *uint64 // nil: packed after the previous one, as gguf-py does
	nbytes uint64  // data bytes (computed by the caller or by size())
}

// gfile describes a file to write. Zero values give a valid v3 file.
type gfile struct {
	magic    string  // "" means "GGUF"
	version  uint32  // 0 means 3
	nTensors *uint64 // overrides of the counts
	nKV      *uint64
	kvs      []wkv
	tensors  []wtensor
	align    uint64         // alignment used for padding and packing (0: 32)
	truncate int            // drop this many bytes from the end
	noPad    bool           // no padding before the data section
	noTail   bool           // no padding after the last tensor (gguf-py writes it)
	patch    func(b []byte) // changes the bytes written
	dataLen  *uint64        // overrides the length of the data section
}

func u64p(v uint64) *uint64 { return &v }

// refSizes is the reference table (gguf.md §2): a type's values per
// block and bytes per block.
var refSizes = map[uint32][2]uint64{
	0: {1, 4}, 1: {1, 2}, 30: {1, 2}, 2: {32, 18}, 3: {32, 20}, 6: {32, 22}, 7: {32, 24}, 8: {32, 34},
	10: {256, 84}, 11: {256, 110}, 12: {256, 144}, 13: {256, 176}, 14: {256, 210}, 24: {1, 1}, 28: {1, 8},
}

// sizeOf returns the bytes of a tensor from the reference table.
func sizeOf(typ uint32, dims []uint64) uint64 {
	size, ok := refSizes[typ]
	if !ok {
		panic("sizeOf: type not in the test table")
	}
	n := uint64(1)
	for _, d := range dims {
		n *= d
	}
	return n / size[0] * size[1]
}

// bytes returns the whole file: header, padding, and the data filled with
// a pattern.
func (g *gfile) bytes() []byte {
	h, n := g.header()
	out := append(h, make([]byte, n)...)
	for i := len(h); i < len(out); i++ {
		out[i] = byte(i)
	}
	if g.patch != nil {
		g.patch(out)
	}
	return out[:len(out)-g.truncate]
}

// header returns the header with the padding before the data, and the
// length of the data section.
func (g *gfile) header() ([]byte, uint64) {
	var b bytes.Buffer
	le := binary.LittleEndian
	w := func(v any) { binary.Write(&b, le, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	var val func(t ValueType, v any)
	val = func(t ValueType, v any) {
		switch t {
		case TypeString:
			str(v.(string))
		case TypeArray:
			a := v.(arr)
			w(uint32(a.elem))
			w(uint64(len(a.items)))
			for _, it := range a.items {
				val(a.elem, it)
			}
		case TypeBool:
			if bv, ok := v.(bool); ok {
				if bv {
					w(uint8(1))
				} else {
					w(uint8(0))
				}
			} else {
				w(v.(uint8))
			}
		default:
			w(v)
		}
	}
	magic := g.magic
	if magic == "" {
		magic = "GGUF"
	}
	b.WriteString(magic)
	v := g.version
	if v == 0 {
		v = 3
	}
	w(v)
	nt, nk := uint64(len(g.tensors)), uint64(len(g.kvs))
	if g.nTensors != nil {
		nt = *g.nTensors
	}
	if g.nKV != nil {
		nk = *g.nKV
	}
	w(nt)
	w(nk)
	for _, kv := range g.kvs {
		str(kv.key)
		w(uint32(kv.typ))
		val(kv.typ, kv.val)
	}
	align := g.align
	if align == 0 {
		align = 32
	}
	pad := func(x uint64) uint64 { return x + (align-x%align)%align }
	var next, end uint64
	for _, t := range g.tensors {
		str(t.name)
		w(uint32(len(t.dims)))
		for _, d := range t.dims {
			w(d)
		}
		w(t.typ)
		off := next
		if t.offset != nil {
			off = *t.offset
		}
		w(off)
		next = pad(off + t.nbytes)
		end = max(end, off+t.nbytes)
	}
	if len(g.tensors) > 0 && !g.noPad {
		for uint64(b.Len())%align != 0 {
			b.WriteByte(0)
		}
	}
	if !g.noTail {
		end = pad(end)
	}
	if g.dataLen != nil {
		end = *g.dataLen
	}
	return b.Bytes(), end
}

// tensorOf is a wtensor with its size filled in.
func tensorOf(name string, typ uint32, dims ...uint64) wtensor {
	return wtensor{name: name, dims: dims, typ: typ, nbytes: sizeOf(typ, dims)}
}

// small is a valid file: architecture, alignment, a vocabulary, two tensors.
func small() *gfile {
	return &gfile{
		kvs: []wkv{
			{"general.architecture", TypeString, "llama"},
			{"general.alignment", TypeUint32, uint32(32)},
			{"llama.block_count", TypeUint32, uint32(1)},
			{"tokenizer.ggml.tokens", TypeArray, arr{TypeString, []any{"a", "b", "c"}}},
		},
		tensors: []wtensor{
			tensorOf("tok.weight", 0, 32, 2),
			tensorOf("q.weight", 2, 32, 1),
		},
	}
}

// writeTemp writes b to a file in dir and returns its path.
func writeTemp(dir, name string, b []byte) (string, error) {
	p := filepath.Join(dir, name)
	return p, os.WriteFile(p, b, 0o644)
}
