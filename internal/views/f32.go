package views

import (
	"encoding/binary"
	"math"
	"unsafe"

	"github.com/fsmount/fsmount/internal/decode"
)

// nativeLittle is whether float32s in memory are values.f32's bytes.
var nativeLittle = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// f32View is values.f32: 4 bytes per element.
type f32View struct {
	d    *decode.Decoder
	size int64
}

func newF32(v *Tensor) View {
	if v.dec == nil {
		return newUnreadable(0, v.t.NumElements(), v.decErr)
	}
	n := v.dec.Len()
	if n > math.MaxInt64/4 {
		return newUnreadable(0, uint64(n), errTooLarge)
	}
	return &f32View{d: v.dec, size: int64(n) * 4}
}

func (f *f32View) Size() int64 { return f.size }

func (f *f32View) ReadAt(p []byte, off int64) (int, error) {
	lo, hi, err := window(f.size, p, off)
	if err != nil {
		return 0, err
	}
	if lo == hi {
		return 0, nil
	}
	e0, e1 := uint64(lo/4), uint64((hi+3)/4)
	if q := p[:hi-lo]; lo%4 == 0 && len(q)%4 == 0 && nativeLittle && uintptr(unsafe.Pointer(&q[0]))%4 == 0 {
		// Whole elements into an aligned buffer: decode in place.
		if err := f.d.Float32(e0, unsafe.Slice((*float32)(unsafe.Pointer(&q[0])), len(q)/4)); err != nil {
			return 0, err
		}
		return len(q), eofIfShort(len(q), p)
	}
	vals := make([]float32, e1-e0)
	if err := f.d.Float32(e0, vals); err != nil {
		return 0, err
	}
	buf := make([]byte, 4*len(vals))
	for i, x := range vals {
		binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(x))
	}
	n := copy(p, buf[lo-int64(e0)*4:hi-int64(e0)*4])
	return n, eofIfShort(n, p)
}
