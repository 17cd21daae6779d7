package views

import (
	"errors"
	"io"
	"math"
	"strconv"

	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// npyDescr is the numpy descr of the types stored as their own bytes.
var npyDescr = map[tensor.DType]string{
	tensor.BOOL: "|b1", tensor.U8: "|u1", tensor.I8: "|i1", tensor.I16: "<i2", tensor.U16: "<u2",
	tensor.F16: "<f2", tensor.I32: "<i4", tensor.U32: "<u4", tensor.F32: "<f4", tensor.C64: "<c8",
	tensor.F64: "<f8", tensor.I64: "<i8", tensor.U64: "<u8",
}

// NPY is the values.npy view: a generated header followed either by the
// tensor's own bytes (numpy-native types, see [NPY.Raw]) or by its values
// as little-endian float32.
type NPY struct {
	header []byte
	t      *tensor.Tensor
	raw    bool
	data   View // the float32 values when not raw
	size   int64
	msg    View // set when not decoded
}

// NPYHeader returns the .npy v1.0 header of an array of descr and shape,
// padded with spaces so that the data starts at a multiple of 64 bytes.
func NPYHeader(descr string, shape []uint64) ([]byte, error) {
	d := "{'descr': '" + descr + "', 'fortran_order': False, 'shape': ("
	for i, s := range shape {
		if i > 0 {
			d += " "
		}
		d += strconv.FormatUint(s, 10) + ","
	}
	if len(shape) > 1 {
		d = d[:len(d)-1] // "(2, 3)" but "(3,)"
	}
	d += "), }"
	total := (10 + len(d) + 1 + 63) / 64 * 64
	hlen := total - 10
	if hlen > math.MaxUint16 {
		return nil, errors.New(".npy v1.0 header would exceed 65535 bytes")
	}
	h := make([]byte, 0, total)
	h = append(h, "\x93NUMPY\x01\x00"...)
	h = append(h, byte(hlen), byte(hlen>>8))
	h = append(h, d...)
	for len(h) < total-1 {
		h = append(h, ' ')
	}
	return append(h, '\n'), nil
}

func newNPY(v *Tensor) *NPY {
	t := v.t
	descr, raw := npyDescr[t.DType]
	if v.dec != nil && v.dec.Dequantized() {
		raw = false
	}
	if !raw {
		descr = "<f4"
		if v.dec == nil {
			return &NPY{msg: newUnreadable(0, v.t.NumElements(), v.decErr)}
		}
	}
	shape := t.Shape
	if !raw {
		shape = v.dec.Shape()
	}
	h, err := NPYHeader(descr, shape)
	if err != nil {
		return &NPY{msg: newUnreadable(0, 1, errors.New("not decoded: "+err.Error()))}
	}
	n := &NPY{header: h, t: t, raw: raw}
	if raw {
		if t.Length < 0 || t.Length > math.MaxInt64-int64(len(h)) {
			return &NPY{msg: newUnreadable(0, uint64(t.Length), errTooLarge)}
		}
		n.size = int64(len(h)) + t.Length
	} else {
		n.data = v.f32
		if _, bad := n.data.(*unreadable); bad {
			return &NPY{msg: n.data}
		}
		n.size = int64(len(h)) + n.data.Size()
	}
	return n
}

// Header returns the .npy header, or nil when the tensor is not decoded
// (the view's reads then fail).
func (n *NPY) Header() []byte { return n.header }

// Raw reports whether the data after the header is the tensor's own bytes,
// and where they are: length bytes of file at offset. A mount can then
// serve Header() from memory and splice the rest from the file.
func (n *NPY) Raw() (file source.File, offset, length int64, ok bool) {
	if n.msg != nil || !n.raw {
		return nil, 0, 0, false
	}
	return n.t.File, n.t.Offset, n.t.Length, true
}

func (n *NPY) Size() int64 {
	if n.msg != nil {
		return n.msg.Size()
	}
	return n.size
}

func (n *NPY) ReadAt(p []byte, off int64) (int, error) {
	if n.msg != nil {
		return n.msg.ReadAt(p, off)
	}
	lo, hi, err := window(n.size, p, off)
	if err != nil {
		return 0, err
	}
	if lo == hi {
		return 0, nil
	}
	hl := int64(len(n.header))
	done := 0
	if lo < hl {
		done = copy(p[:hi-lo], n.header[lo:])
	}
	if lo+int64(done) < hi {
		doff := lo + int64(done) - hl
		want := p[done : hi-lo]
		var m int
		if n.raw {
			m, err = n.t.File.ReadAt(want, n.t.Offset+doff)
			if m == len(want) {
				err = nil
			} else if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
		} else {
			m, err = n.data.ReadAt(want, doff)
			if m == len(want) && err == io.EOF {
				err = nil
			}
		}
		done += m
		if err != nil {
			return done, err
		}
	}
	return done, eofIfShort(done, p)
}
