package testmodel

import (
	"bytes"
	"encoding/binary"
	"os"
)

// GGUFTensor is one tensor of a GGUF file to write: its ggml type id, its
// dimensions in ggml's order (innermost first) and its bytes.
type GGUFTensor struct {
	Name string
	Type uint32
	Dims []uint64
	Data []byte
}

// GGUFKV is one metadata key; Value is a string, uint32, float32 or
// []string.
type GGUFKV struct {
	Key   string
	Value any
}

// WriteGGUF writes a GGUF v3 file with 32-byte alignment, as gguf-py lays
// it out: header, key/values, tensor infos, padding, the tensors each
// padded to the alignment.
func WriteGGUF(path string, kvs []GGUFKV, tensors []GGUFTensor) error {
	var b bytes.Buffer
	le := binary.LittleEndian
	w := func(v any) { binary.Write(&b, le, v) }
	str := func(s string) { w(uint64(len(s))); b.WriteString(s) }
	b.WriteString("GGUF")
	w(uint32(3))
	w(uint64(len(tensors)))
	w(uint64(len(kvs)))
	for _, kv := range kvs {
		str(kv.Key)
		switch v := kv.Value.(type) {
		case string:
			w(uint32(8))
			str(v)
		case uint32:
			w(uint32(4))
			w(v)
		case float32:
			w(uint32(6))
			w(v)
		case []string:
			w(uint32(9))
			w(uint32(8))
			w(uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		}
	}
	const align = 32
	pad := func(n uint64) uint64 { return (n + align - 1) / align * align }
	var off uint64
	for _, t := range tensors {
		str(t.Name)
		w(uint32(len(t.Dims)))
		for _, d := range t.Dims {
			w(d)
		}
		w(t.Type)
		w(off)
		off = pad(off + uint64(len(t.Data)))
	}
	for b.Len()%align != 0 {
		b.WriteByte(0)
	}
	for _, t := range tensors {
		b.Write(t.Data)
		for b.Len()%align != 0 {
			b.WriteByte(0)
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
