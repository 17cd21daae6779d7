package testmodel

import (
	"bufio"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/tensor"
	"github.com/stretchr/testify/require"
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
	array := func(elem uint32, n uint64) { w(uint32(9)); w(elem); w(n) } // an array's type, element type, length
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
		case []uint32:
			array(4, uint64(len(v)))
			for _, x := range v {
				w(x)
			}
		case []string:
			array(8, uint64(len(v)))
			for _, s := range v {
				str(s)
			}
		case GGUFZeros:
			array(v.Elem, v.N)
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

// ReadGGMLBlocks reads a file of internal/quant/testdata/ggml: gzipped, a
// little-endian uint32 block count n, n blocks of dt, and ggml's
// n·BlockElems float32 values of them (little-endian).
func ReadGGMLBlocks(t testing.TB, path string, dt tensor.DType) (blocks, floats []byte) {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(b), 4, path)
	n := uint64(binary.LittleEndian.Uint32(b))
	bb := n * dt.BlockBytes()
	require.Equal(t, 4+bb+4*n*dt.BlockElems(), uint64(len(b)), "%s: the size of %d blocks of %s and their values", path, n, dt)
	return b[4 : 4+bb], b[4+bb:]
}

// WriteGGUFListing writes a GGUF of architecture arch from a listing as
// llama.cpp's converter would name and shape it: each line "name
// ne0,ne1,…" (innermost dimension first) an F16 tensor of zeros. keys are
// arch's own metadata (written as arch.key); a 32-token vocabulary is
// added.
func WriteGGUFListing(path, arch string, keys map[string]uint32, lines []string) error {
	kvs := []GGUFKV{{Key: "general.architecture", Value: arch}}
	for k, v := range keys {
		kvs = append(kvs, GGUFKV{Key: arch + "." + k, Value: v})
	}
	toks := make([]string, 32)
	for j := range toks {
		toks[j] = fmt.Sprint("t", j)
	}
	kvs = append(kvs, GGUFKV{Key: "tokenizer.ggml.tokens", Value: toks})
	var ts []GGUFTensor
	for _, l := range lines {
		name, dims, _ := strings.Cut(l, " ")
		g := GGUFTensor{Name: name, Type: 1} // F16
		n := uint64(2)
		for _, d := range strings.Split(dims, ",") {
			v, err := strconv.ParseUint(d, 10, 64)
			if err != nil {
				return fmt.Errorf("%q: %v", l, err)
			}
			g.Dims = append(g.Dims, v)
			n *= v
		}
		g.Data = make([]byte, n)
		ts = append(ts, g)
	}
	return WriteGGUF(path, kvs, ts)
}
