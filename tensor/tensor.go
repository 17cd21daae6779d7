// Package tensor is the neutral view of a stored tensor: what every
// format (safetensors, pytorch, dcp, gguf) produces and every consumer
// (the check in package check, the tree in fusefs, the views of values)
// reads. A Tensor is a
// name, an element type, a shape and a byte range of one source file;
// nothing here knows which format laid the bytes out.
package tensor

import (
	"io"
	"strconv"

	"github.com/fsmount/fsmount/source"
)

// Tensor is one stored tensor: Length bytes at Offset of File.
type Tensor struct {
	// Name is the tensor's name in its format, such as
	// "model.layers.0.self_attn.q_proj.weight".
	Name  string
	DType DType
	// Shape is outermost dimension first (row-major), as safetensors and
	// numpy write it; a format storing it the other way round reverses it.
	Shape []uint64
	// File holds the bytes; Offset is the file offset of the first.
	File   source.File
	Offset int64
	Length int64

	// Storage is set by a format whose tensors are views of shared
	// storages (PyTorch): it names the storage ("pytorch_model.bin:3"),
	// and StorageOffset is the file offset of the tensor's first element
	// in it. Tensors with the same Storage and StorageOffset are the same
	// bytes (tied weights). Empty for safetensors and GGUF.
	Storage       string
	StorageOffset int64
	// Strides are the element strides of a non-contiguous tensor
	// (outermost first), nil for a contiguous one. File is then a
	// [source.Derived] computing the row-major bytes on read, and Offset 0.
	Strides []uint64
}

// SameBytes reports whether two tensors are views of the same stored
// bytes: the same storage at the same place, shape, strides and type.
func SameBytes(a, b *Tensor) bool {
	if a.Storage == "" || a.Storage != b.Storage || a.StorageOffset != b.StorageOffset || a.DType != b.DType || len(a.Shape) != len(b.Shape) || len(a.Strides) != len(b.Strides) {
		return false
	}
	for i := range a.Shape {
		if a.Shape[i] != b.Shape[i] {
			return false
		}
	}
	for i := range a.Strides {
		if a.Strides[i] != b.Strides[i] {
			return false
		}
	}
	return true
}

// NumElements returns the product of the shape (1 for a scalar). Formats
// validate that it does not overflow.
func (t *Tensor) NumElements() uint64 {
	n := uint64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// Elements returns the number of elements over all of ts.
func Elements(ts []*Tensor) uint64 {
	var n uint64
	for _, t := range ts {
		n += t.NumElements()
	}
	return n
}

// Reader returns a reader of the tensor's bytes, reading with the file's
// ReadAt (pread for a local file: an I/O error or a truncated file is an
// error, never a fault).
func (t *Tensor) Reader() *io.SectionReader {
	return io.NewSectionReader(t.File, t.Offset, t.Length)
}

// FormatIndex renders flat (row-major) element index i of a tensor of
// shape as its coordinates, "[r, c]"; of a scalar, as i.
func FormatIndex(i uint64, shape []uint64) string {
	if len(shape) == 0 {
		return strconv.FormatUint(i, 10)
	}
	idx := make([]uint64, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] > 0 {
			idx[k] = i % shape[k]
			i /= shape[k]
		}
	}
	return FormatShape(idx)
}

// FormatShape renders a shape as "[2048, 1024]", or "[]" for a scalar.
func FormatShape(shape []uint64) string {
	b := make([]byte, 0, 2+len(shape)*8)
	b = append(b, '[')
	for i, d := range shape {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = strconv.AppendUint(b, d, 10)
	}
	return string(append(b, ']'))
}
