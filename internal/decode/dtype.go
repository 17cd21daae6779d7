package decode

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/fsmount/fsmount/tensor"
)

// F6Packing states the bit order this package assumes for F6_E2M3 and
// F6_E3M2, which no specification defines (see the package doc).
const F6Packing = "little-endian bit stream: element k of each 3-byte group is bits 6k..6k+5 of the group read as a 24-bit little-endian integer"

// kind is how a type is decoded.
type kind uint8

const (
	kUnsupported kind = iota
	kTable8           // one byte per element, a 256-entry table
	kBF16
	kF16
	kI16
	kU16
	kF4
	kF6
	kF32
	kF64
	kI32
	kU32
	kI64
	kU64
	kBlock // a registered block decoder
)

// tableKind reports whether statistics of k are counted per bit pattern.
func (k kind) table() bool { return k >= kTable8 && k <= kF6 }

// special is how a minifloat spends its top codes.
type special uint8

const (
	ieee special = iota // top exponent: Inf (mantissa 0) or NaN
	fn                  // no Inf; NaN only where exponent and mantissa are all ones
	fnuz                // no Inf, no -0; NaN only at the negative-zero code
	none                // all codes finite
)

// minifloat is a sign-exponent-mantissa format with E exponent bits, M
// mantissa bits and the given bias.
type minifloat struct {
	e, m, bias uint32
	sp         special
}

var formats = map[tensor.DType]minifloat{
	tensor.F16:         {5, 10, 15, ieee},
	tensor.F8_E5M2:     {5, 2, 15, ieee},
	tensor.F8_E4M3:     {4, 3, 7, fn},
	tensor.F8_E4M3FNUZ: {4, 3, 8, fnuz},
	tensor.F8_E5M2FNUZ: {5, 2, 16, fnuz},
	tensor.F6_E2M3:     {2, 3, 1, none},
	tensor.F6_E3M2:     {3, 2, 3, none},
	tensor.F4:          {2, 1, 1, none},
}

const qNaN32 = 0x7fc00000

// bits32 returns the float32 bit pattern of code, built with integer
// arithmetic: re-biasing the exponent, normalizing subnormals.
func (f minifloat) bits32(code uint32) uint32 {
	maxE := uint32(1)<<f.e - 1
	maxM := uint32(1)<<f.m - 1
	s := code >> (f.e + f.m) & 1
	ex := code >> f.m & maxE
	man := code & maxM
	sign := s << 31
	switch f.sp {
	case ieee:
		if ex == maxE {
			return sign | 0x7f800000 | man<<(23-f.m) // Inf, or NaN keeping its payload
		}
	case fn:
		if ex == maxE && man == maxM {
			return sign | qNaN32
		}
	case fnuz:
		if s == 1 && ex == 0 && man == 0 {
			return qNaN32
		}
	}
	if ex == 0 {
		if man == 0 {
			return sign
		}
		// man·2^(1-bias-M): shift the leading one to the implicit bit.
		exp := int32(1) - int32(f.bias)
		for man&(1<<f.m) == 0 {
			man <<= 1
			exp--
		}
		man &= maxM
		return sign | uint32(exp+127)<<23 | man<<(23-f.m)
	}
	return sign | uint32(int32(ex)-int32(f.bias)+127)<<23 | man<<(23-f.m)
}

// subnormal reports whether code is a subnormal of the format.
func (f minifloat) subnormal(code uint32) bool {
	return code>>f.m&(1<<f.e-1) == 0 && code&(1<<f.m-1) != 0
}

func e8m0Bits32(code uint32) uint32 {
	switch code {
	case 0xff:
		return qNaN32
	case 0:
		return 0x00400000 // 2^-127, a float32 subnormal
	}
	return code << 23
}

// decodeTables holds every value of the types decoded by lookup.
type decodeTables struct {
	t8  map[tensor.DType]*[256]float32
	f16 *[65536]float32
	f4  [16]float32
	f6  map[tensor.DType]*[64]float32
}

// tables returns the lookup tables, built on first use. They are reached
// only through it, so no path (values, statistics, histograms) can read
// them before they exist.
var tables = sync.OnceValue(buildTables)

func buildTables() *decodeTables {
	tb := &decodeTables{t8: make(map[tensor.DType]*[256]float32), f6: make(map[tensor.DType]*[64]float32)}
	for _, dt := range []tensor.DType{tensor.F8_E5M2, tensor.F8_E4M3, tensor.F8_E4M3FNUZ, tensor.F8_E5M2FNUZ} {
		t := new([256]float32)
		for c := range t {
			t[c] = math.Float32frombits(formats[dt].bits32(uint32(c)))
		}
		tb.t8[dt] = t
	}
	e8, u8, i8, b := new([256]float32), new([256]float32), new([256]float32), new([256]float32)
	for c := range 256 {
		e8[c] = math.Float32frombits(e8m0Bits32(uint32(c)))
		u8[c] = float32(c)
		i8[c] = float32(int8(c))
		if c != 0 {
			b[c] = 1
		}
	}
	tb.t8[tensor.F8_E8M0], tb.t8[tensor.U8], tb.t8[tensor.I8], tb.t8[tensor.BOOL] = e8, u8, i8, b
	tb.f16 = new([65536]float32)
	for c := range tb.f16 {
		tb.f16[c] = math.Float32frombits(formats[tensor.F16].bits32(uint32(c)))
	}
	for c := range tb.f4 {
		tb.f4[c] = math.Float32frombits(formats[tensor.F4].bits32(uint32(c)))
	}
	for _, dt := range []tensor.DType{tensor.F6_E2M3, tensor.F6_E3M2} {
		t := new([64]float32)
		for c := range t {
			t[c] = math.Float32frombits(formats[dt].bits32(uint32(c)))
		}
		tb.f6[dt] = t
	}
	return tb
}

// BlockFunc decodes whole blocks of a block-quantized type: src holds a
// whole number of blocks, dst exactly their elements.
type BlockFunc func(dt tensor.DType, src []byte, dst []float32) error

var (
	blockMu  sync.RWMutex
	blockFns = map[tensor.DType]BlockFunc{}
)

// Register makes fn the decoder of the block-quantized type dt. It
// refuses a type that is not block-quantized.
func Register(dt tensor.DType, fn BlockFunc) error {
	if !dt.Quantized() || fn == nil {
		return &UnsupportedError{DType: dt, Reason: "only block-quantized types take a registered decoder"}
	}
	blockMu.Lock()
	blockFns[dt] = fn
	blockMu.Unlock()
	return nil
}

// RegisterBlocks makes fn the decoder of every block-quantized type; fn
// returns its own error for a type it does not decode.
func RegisterBlocks(fn BlockFunc) {
	for dt := tensor.Q4_0; dt.Valid(); dt++ {
		_ = Register(dt, fn)
	}
}

func blockFunc(dt tensor.DType) BlockFunc {
	blockMu.RLock()
	defer blockMu.RUnlock()
	return blockFns[dt]
}

func kindOf(dt tensor.DType) kind {
	switch dt {
	case tensor.BOOL, tensor.U8, tensor.I8, tensor.F8_E5M2, tensor.F8_E4M3,
		tensor.F8_E8M0, tensor.F8_E4M3FNUZ, tensor.F8_E5M2FNUZ:
		return kTable8
	case tensor.BF16:
		return kBF16
	case tensor.F16:
		return kF16
	case tensor.I16:
		return kI16
	case tensor.U16:
		return kU16
	case tensor.F4:
		return kF4
	case tensor.F6_E2M3, tensor.F6_E3M2:
		return kF6
	case tensor.F32:
		return kF32
	case tensor.F64:
		return kF64
	case tensor.I32:
		return kI32
	case tensor.U32:
		return kU32
	case tensor.I64:
		return kI64
	case tensor.U64:
		return kU64
	}
	if dt.Quantized() && blockFunc(dt) != nil {
		return kBlock
	}
	return kUnsupported
}

// Supported returns nil when dt can be decoded, else an
// *UnsupportedError saying why not.
func Supported(dt tensor.DType) error {
	if kindOf(dt) != kUnsupported {
		return nil
	}
	switch {
	case dt == tensor.C64:
		return &UnsupportedError{DType: dt, Reason: "complex values have no single real number"}
	case dt.Quantized():
		return &UnsupportedError{DType: dt, Reason: "no block decoder registered"}
	}
	return &UnsupportedError{DType: dt, Reason: "unknown type"}
}

// Elements returns how many elements nbytes bytes of dt hold, checking
// that they are whole blocks.
func Elements(dt tensor.DType, nbytes int) (int, error) {
	bb, be := dt.BlockBytes(), dt.BlockElems()
	if bb == 0 {
		return 0, Supported(dt)
	}
	if uint64(nbytes)%bb != 0 {
		return 0, &LengthError{DType: dt, What: "bytes not a whole number of blocks", Got: uint64(nbytes), Want: uint64(nbytes) / bb * bb}
	}
	return int(uint64(nbytes) / bb * be), nil
}

// check returns dt's kind and the elements of nsrc bytes, and fails for a
// type not decoded, bytes not whole elements, or a destination of fewer
// than ndst elements.
func check(dt tensor.DType, nsrc, ndst int) (kind, int, error) {
	k := kindOf(dt)
	if k == kUnsupported {
		return k, 0, Supported(dt)
	}
	n, err := Elements(dt, nsrc)
	if err != nil {
		return k, 0, err
	}
	if ndst < n {
		return k, 0, &LengthError{DType: dt, What: "destination elements", Got: uint64(ndst), Want: uint64(n)}
	}
	return k, n, nil
}

// Float32 decodes src, whole elements (whole blocks) of dt, into dst and
// returns the number of elements, which dst must have room for.
func Float32(dt tensor.DType, src []byte, dst []float32) (int, error) {
	k, n, err := check(dt, len(src), len(dst))
	if err != nil {
		return 0, err
	}
	tb := tables()
	d := dst[:n]
	le := binary.LittleEndian
	switch k {
	case kTable8:
		t := tb.t8[dt]
		s := src[:n]
		for i, c := range s {
			d[i] = t[c]
		}
	case kBF16:
		s := src[:2*n]
		for i := range d {
			d[i] = math.Float32frombits(uint32(s[2*i])<<16 | uint32(s[2*i+1])<<24)
		}
	case kF16:
		t := tb.f16
		s := src[:2*n]
		for i := range d {
			d[i] = t[uint16(s[2*i])|uint16(s[2*i+1])<<8]
		}
	case kI16:
		for i := range d {
			d[i] = float32(int16(le.Uint16(src[2*i:])))
		}
	case kU16:
		for i := range d {
			d[i] = float32(le.Uint16(src[2*i:]))
		}
	case kF4:
		t := &tb.f4
		for i, c := range src {
			d[2*i] = t[c&15]
			d[2*i+1] = t[c>>4]
		}
	case kF6:
		t := tb.f6[dt]
		for g := 0; g+3 <= len(src); g += 3 {
			v := uint32(src[g]) | uint32(src[g+1])<<8 | uint32(src[g+2])<<16
			o := d[g/3*4 : g/3*4+4]
			o[0], o[1], o[2], o[3] = t[v&63], t[v>>6&63], t[v>>12&63], t[v>>18&63]
		}
	case kF32:
		for i := range d {
			d[i] = math.Float32frombits(le.Uint32(src[4*i:]))
		}
	case kF64:
		for i := range d {
			d[i] = float32(math.Float64frombits(le.Uint64(src[8*i:])))
		}
	case kI32, kU32, kI64, kU64:
		integers(k, src, d)
	case kBlock:
		if err := blockFunc(dt)(dt, src, d); err != nil {
			return 0, err
		}
	}
	return n, nil
}

// Float64 decodes src, whole elements (whole blocks) of dt, into dst and
// returns the number of elements, which dst must have room for. Every
// floating value is exact; 64-bit integers beyond 2^53 are rounded.
func Float64(dt tensor.DType, src []byte, dst []float64) (int, error) {
	k, n, err := check(dt, len(src), len(dst))
	if err != nil {
		return 0, err
	}
	d := dst[:n]
	le := binary.LittleEndian
	switch k {
	case kF64:
		for i := range d {
			d[i] = math.Float64frombits(le.Uint64(src[8*i:]))
		}
		return n, nil
	case kI32, kU32, kI64, kU64:
		integers(k, src, d)
		return n, nil
	}
	// Every other type is exact in float32: decode in pieces and widen.
	var buf [1024]float32
	for done := 0; done < n; {
		m := min(n-done, len(buf))
		be := int(dt.BlockElems())
		m -= m % be
		bb := int(dt.BlockBytes())
		src0 := done / be * bb
		if _, err := Float32(dt, src[src0:src0+m/be*bb], buf[:m]); err != nil {
			return 0, err
		}
		for i, v := range buf[:m] {
			d[done+i] = float64(v)
		}
		done += m
	}
	return n, nil
}

// integers decodes src, little-endian integers of kind k (kI32, kU32,
// kI64 or kU64), into d.
func integers[F float32 | float64](k kind, src []byte, d []F) {
	switch k {
	case kI32:
		ints32[int32](src, d)
	case kU32:
		ints32[uint32](src, d)
	case kI64:
		ints64[int64](src, d)
	case kU64:
		ints64[uint64](src, d)
	}
}

func ints32[I int32 | uint32, F float32 | float64](src []byte, d []F) {
	for i := range d {
		d[i] = F(I(binary.LittleEndian.Uint32(src[4*i:])))
	}
}

func ints64[I int64 | uint64, F float32 | float64](src []byte, d []F) {
	for i := range d {
		d[i] = F(I(binary.LittleEndian.Uint64(src[8*i:])))
	}
}

// Subnormal reports whether code, one element's bits of the floating
// type dt, is a subnormal of dt itself. It is false for every other type
// (and for F8_E8M0, which has none).
func Subnormal(dt tensor.DType, code uint64) bool {
	switch dt {
	case tensor.BF16:
		return code&0x7f80 == 0 && code&0x7f != 0
	case tensor.F32:
		return code&0x7f800000 == 0 && code&0x7fffff != 0
	case tensor.F64:
		return code&0x7ff0000000000000 == 0 && code&0xfffffffffffff != 0
	}
	if f, ok := formats[dt]; ok {
		return f.subnormal(uint32(code))
	}
	return false
}
