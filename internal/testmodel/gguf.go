package testmodel

import (
	"bufio"
	"encoding/binary"
	"io"
	"os"
)

// GGUFTensor is one tensor of a GGUF file to write: its ggml type id, its
// dimensions in ggml's order (innermost first) and its bytes; or, with
// Data nil, Zeros bytes of zeros written as a hole (a full-size layout
// costs no disk).
type GGUFTensor struct {
	Name  string
	Type  uint32
	Dims  []uint64
	Data  []byte
	Zeros uint64
}

func (t GGUFTensor) size() uint64 {
	if t.Data == nil {
		return t.Zeros
	}
	return uint64(len(t.Data))
}

// GGUFKV is one metadata key; Value is a string, uint32, float32,
// []string or a GGUFZeros.
type GGUFKV struct {
	Key   string
	Value any
}

// GGUFZeros is an array of N elements of the fixed-size GGUF value type
// Elem (7 for BOOL: N bytes), all zero, written as a hole: a
// 100-million-element array costs no disk and no memory to write.
type GGUFZeros struct {
	Elem uint32
	N    uint64
}

// ggufWidth is the bytes of one fixed-size GGUF value.
func ggufWidth(t uint32) uint64 {
	switch t {
	case 0, 1, 7:
		return 1
	case 2, 3:
		return 2
	case 4, 5, 6:
		return 4
	}
	return 8
}

// ggufWriter writes a file sequentially, counting its bytes; holes are
// seeks.
type ggufWriter struct {
	f   *os.File
	b   *bufio.Writer
	n   int64
	err error
}

func (w *ggufWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	k, err := w.b.Write(p)
	w.n += int64(k)
	w.err = err
	return k, err
}

func (w *ggufWriter) hole(n int64) {
	if w.err != nil {
		return
	}
	if w.err = w.b.Flush(); w.err == nil {
		_, w.err = w.f.Seek(n, io.SeekCurrent)
		w.n += n
	}
}

// WriteGGUF writes a GGUF v3 file with 32-byte alignment, as gguf-py lays
// it out: header, key/values, tensor infos, padding, the tensors each
// padded to the alignment. It streams: nothing the size of the file is
// held in memory.
func WriteGGUF(path string, kvs []GGUFKV, tensors []GGUFTensor) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	out := &ggufWriter{f: f, b: bufio.NewWriterSize(f, 1<<20)}
	le := binary.LittleEndian
	w := func(v any) {
		if out.err == nil {
			out.err = binary.Write(out, le, v)
		}
	}
	str := func(s string) { w(uint64(len(s))); io.WriteString(out, s) }
	io.WriteString(out, "GGUF")
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
		case GGUFZeros:
			w(uint32(9))
			w(v.Elem)
			w(v.N)
			out.hole(int64(v.N * ggufWidth(v.Elem)))
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
		off = pad(off + t.size())
	}
	zeros := make([]byte, align)
	padOut := func() { out.Write(zeros[:(align-out.n%align)%align]) }
	padOut()
	for _, t := range tensors {
		if t.Data == nil {
			out.hole(int64(t.Zeros))
		} else {
			out.Write(t.Data)
		}
		padOut()
	}
	if out.err != nil {
		return out.err
	}
	if err := out.b.Flush(); err != nil {
		return err
	}
	// A hole at the very end has no byte after it to make the size.
	if err := f.Truncate(out.n); err != nil {
		return err
	}
	return f.Close()
}
