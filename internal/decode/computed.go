package decode

import (
	"github.com/fsmount/fsmount/tensor"
)

// ValuesFunc fills dst with elements [start, start+len(dst)) of a
// computed tensor, by flat (row-major) index.
type ValuesFunc func(start uint64, dst []float32) error

// NewComputed returns a decoder of float32 values that are computed, not
// stored: fn gives them, shape is theirs. name names them in errors. Such
// a decoder scans (statistics, histogram) like any other, element range
// by element range on every core; it has no bytes, so Raw and a scan's
// SHA256 are refused. It lets every view of a tensor (values, values.f32,
// values.npy, stats, the pictures) show a derived matrix, such as the
// change a LoRA adapter makes to a weight, without storing it.
func NewComputed(name string, shape []uint64, fn ValuesFunc) (*Decoder, error) {
	n, ok := numElements(shape)
	if !ok || n > 1<<62/4 {
		return nil, &LengthError{DType: tensor.F32, What: name + ": element count overflows", Got: 0, Want: 0}
	}
	t := &tensor.Tensor{Name: name, DType: tensor.F32, Shape: shape, Length: int64(4 * n)}
	return &Decoder{t: t, k: kBlock, n: n, shape: shape, fn: fn}, nil
}

// Computed reports whether the decoder's values are computed by a
// function (NewComputed) rather than read from a file.
func (d *Decoder) Computed() bool { return d.fn != nil }
