// Package testmodel writes model files and directories for tests and
// benchmarks, in every format fsmount reads (safetensors, torch.save
// archives, Distributed Checkpoints, GGUF, LoRA adapters, broken
// downloads): small dense models with deterministic contents, and sparse
// files that carry a real model's header over holes, so that a
// multi-gigabyte layout costs no disk. Its helpers also run the
// reference implementations the tests compare against (numpy, torch,
// Pillow).
//
// It is test support only; the product code never imports it.
package testmodel

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"

	"github.com/fsmount/fsmount/spec"
	"github.com/fsmount/fsmount/tensor"
)

// Tensor is one tensor to write. Data, if nil, is filled by the writer
// (zeros, or pseudo-random bytes in Encode with a seed).
type Tensor struct {
	Name  string
	DType string
	Shape []uint64
	Data  []byte
}

// Entry is one header entry with explicit offsets, for layouts that are
// copied from a real file or deliberately broken.
type Entry struct {
	Name    string
	DType   string
	Shape   []uint64
	Offsets [2]uint64
}

// dtypeBits gives the element size of the dtypes the writers use.
var dtypeBits = map[string]uint64{
	"BOOL": 8, "U8": 8, "I8": 8, "F8_E4M3": 8, "F8_E5M2": 8, "F8_E8M0": 8,
	"I16": 16, "U16": 16, "F16": 16, "BF16": 16,
	"I32": 32, "U32": 32, "F32": 32, "I64": 64, "U64": 64, "F64": 64, "C64": 64,
	"F4": 4, "F6_E2M3": 6, "F6_E3M2": 6,
}

// NBytes returns the byte size of a tensor of the given dtype and shape.
func NBytes(dtype string, shape []uint64) uint64 {
	n := uint64(1)
	for _, d := range shape {
		n *= d
	}
	return n * dtypeBits[dtype] / 8
}

// Header renders the JSON header for entries, in the given order, with
// optional metadata, padded with spaces to a multiple of 8 bytes as the
// official writer does. It returns the 8-byte length prefix and the header.
func Header(entries []Entry, meta map[string]string) []byte {
	var b strings.Builder
	b.WriteByte('{')
	first := true
	sep := func() {
		if !first {
			b.WriteByte(',')
		}
		first = false
	}
	if meta != nil {
		sep()
		mb, _ := json.Marshal(meta)
		b.WriteString(`"__metadata__":`)
		b.Write(mb)
	}
	for _, e := range entries {
		sep()
		nb, _ := json.Marshal(e.Name)
		b.Write(nb)
		shape := make([]string, len(e.Shape))
		for i, d := range e.Shape {
			shape[i] = fmt.Sprint(d)
		}
		fmt.Fprintf(&b, `:{"dtype":%q,"shape":[%s],"data_offsets":[%d,%d]}`, e.DType, strings.Join(shape, ","), e.Offsets[0], e.Offsets[1])
	}
	b.WriteByte('}')
	for (8+b.Len())%8 != 0 {
		b.WriteByte(' ')
	}
	out := make([]byte, 8, 8+b.Len())
	binary.LittleEndian.PutUint64(out, uint64(b.Len()))
	return append(out, b.String()...)
}

// Layout lays tensors out back to back in the given order and returns
// their entries and the data section length.
func Layout(tensors []Tensor) ([]Entry, uint64) {
	entries := make([]Entry, len(tensors))
	var off uint64
	for i, t := range tensors {
		n := NBytes(t.DType, t.Shape)
		entries[i] = Entry{Name: t.Name, DType: t.DType, Shape: t.Shape, Offsets: [2]uint64{off, off + n}}
		off += n
	}
	return entries, off
}

// Encode returns a complete safetensors file. Tensors without Data get
// deterministic pseudo-random bytes derived from seed and their name.
func Encode(tensors []Tensor, meta map[string]string, seed uint64) []byte {
	entries, dataLen := Layout(tensors)
	out := Header(entries, meta)
	out = append(make([]byte, 0, len(out)+int(dataLen)), out...)
	for i, t := range tensors {
		d := t.Data
		if d == nil {
			d = Fill(seed, t.Name, entries[i].Offsets[1]-entries[i].Offsets[0])
		}
		out = append(out, d...)
	}
	return out
}

// Fill returns n deterministic pseudo-random bytes for the named tensor.
// For 16-bit float dtypes, callers that want finite values use FillBF16.
func Fill(seed uint64, name string, n uint64) []byte {
	x := seed ^ 0x9e3779b97f4a7c15
	for _, c := range []byte(name) {
		x = (x ^ uint64(c)) * 0x100000001b3
	}
	out := make([]byte, n)
	for i := uint64(0); i < n; i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], x)
		copy(out[i:], w[:])
	}
	return out
}

// FillBF16 returns n bytes of finite bfloat16 values in about [-2, 2],
// deterministic for seed and name.
func FillBF16(seed uint64, name string, n uint64) []byte {
	out := Fill(seed, name, n)
	for i := 0; i+1 < len(out); i += 2 {
		// Keep the sign and mantissa, force the exponent into 2^-8..2^0.
		hi := out[i+1]
		exp := 0x77 + (hi&0x7f)%8 // biased exponents 119..126, upper 7 bits
		out[i+1] = hi&0x80 | exp>>1
		out[i] = out[i]&0x7f | (exp&1)<<7
	}
	return out
}

// ConstF32 returns n float32 values, every one v, little-endian.
func ConstF32(n uint64, v float32) []byte {
	out := make([]byte, 4*n)
	for i := range n {
		binary.LittleEndian.PutUint32(out[4*i:], math.Float32bits(v))
	}
	return out
}

// WriteFile writes Encode's output to path.
func WriteFile(path string, tensors []Tensor, meta map[string]string, seed uint64) error {
	return os.WriteFile(path, Encode(tensors, meta, seed), 0o644)
}

// WriteSparse writes the header for entries and extends the file with a
// hole to cover the data section, so it occupies almost no disk. The
// entries must tile [0, dataLen); they are written in name order.
func WriteSparse(path string, entries []Entry, meta map[string]string) error {
	sorted := append([]Entry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	var dataLen uint64
	for _, e := range entries {
		dataLen = max(dataLen, e.Offsets[1])
	}
	hdr := Header(sorted, meta)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(hdr); err != nil {
		f.Close()
		return err
	}
	if err := f.Truncate(int64(len(hdr)) + int64(dataLen)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Bytes returns a tensor's bytes, read from its file, or nil if they
// cannot be read.
func Bytes(t *tensor.Tensor) []byte {
	b := make([]byte, t.Length)
	if n, _ := t.File.ReadAt(b, t.Offset); int64(n) != t.Length {
		return nil
	}
	return b
}

// Plan parses the bytes of a config.json and derives from it the tensors
// package spec expects.
func Plan(raw []byte) (*spec.Plan, error) {
	c, err := spec.ParseConfig("config.json", raw)
	if err != nil {
		return nil, err
	}
	return spec.Expect(c)
}

// LoadConfig reads and parses a config.json.
func LoadConfig(path string) (*spec.Config, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return spec.ParseConfig(path, raw)
}
