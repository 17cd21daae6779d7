// Package quant decodes ggml's block-quantized tensor types into float32:
// its one job is [Dequantize]. The block layouts and formulas are those of
// ggml's dequantize_row_* (ggml-quants.c).
//
// A block of BlockElems elements is BlockBytes bytes; rows are whole
// numbers of blocks and blocks are independent, so any run of whole
// blocks can be decoded on its own (a FUSE read of part of a tensor
// decodes only the blocks it covers).
//
// Decoded: every block type ggml defines — Q4_0, Q4_1, Q5_0, Q5_1, Q8_0,
// the K-quants Q2_K … Q8_K, the grid types IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS,
// IQ2_S, IQ3_XXS and IQ3_S (grids.bin holds ggml's grids, written by
// gengrids.go), IQ4_NL, IQ4_XS, the ternary TQ1_0 and TQ2_0, the FP4
// types MXFP4 and NVFP4, and Q1_0 and Q2_0. Q8_1 is not: it is an
// intermediate of ggml's dot products, never dequantized ([Supported]
// says so).
//
// Results are bit for bit ggml's dequantize_row_* (testdata/ggml holds
// blocks decoded by ggml's own C code, NaN scales included): the same
// float operations in the same order, and a sign applied by multiplying
// with ±1 loaded from a variable, never by a constant the compiler would
// fold into a negation (which flips a NaN's sign where ggml's multiply
// keeps it).
package quant

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/fsmount/fsmount/tensor"
)

// ErrUnsupported is matched by the error of Dequantize for a type this
// package does not decode.
var ErrUnsupported = errors.New("quant: type not decoded")

// ErrLength is matched by the error of Dequantize for a source that is not
// a whole number of blocks, or a destination of the wrong length.
var ErrLength = errors.New("quant: wrong length")

type decoder func(src []byte, dst []float32)

var decoders = map[tensor.DType]decoder{
	tensor.Q4_0: q4_0,
	tensor.Q4_1: q4_1,
	tensor.Q5_0: q5_0,
	tensor.Q5_1: q5_1,
	tensor.Q8_0: q8_0,
	tensor.Q2_K: q2K,
	tensor.Q3_K: q3K,
	tensor.Q4_K: q4K,
	tensor.Q5_K: q5K,
	tensor.Q6_K: q6K,
	tensor.Q8_K: q8K,

	tensor.IQ4_NL: iq4NL,
	tensor.IQ4_XS: iq4XS,
	tensor.TQ2_0:  tq2_0,
	tensor.MXFP4:  mxfp4,

	tensor.IQ2_XXS: iq2XXS,
	tensor.IQ2_XS:  iq2XS,
	tensor.IQ2_S:   iq2S,
	tensor.IQ3_XXS: iq3XXS,
	tensor.IQ3_S:   iq3S,
	tensor.IQ1_S:   iq1S,
	tensor.IQ1_M:   iq1M,
	tensor.TQ1_0:   tq1_0,
	tensor.NVFP4:   nvfp4,
	tensor.Q1_0:    q1_0,
	tensor.Q2_0:    q2_0,
}

// Supported reports whether Dequantize decodes dt and, when it does not,
// why.
func Supported(dt tensor.DType) (ok bool, why string) {
	if _, ok := decoders[dt]; ok {
		return true, ""
	}
	switch dt {
	case tensor.F32, tensor.F16, tensor.BF16, tensor.F64, tensor.I8, tensor.I16, tensor.I32, tensor.I64:
		return false, dt.String() + " is a plain element type, not block-quantized: its values are read directly"
	case tensor.Q8_1:
		return false, "Q8_1 is an intermediate type of ggml's dot products (no dequantize_row_q8_1 in ggml); not decoded"
	}
	if !dt.Valid() {
		return false, "invalid type"
	}
	return false, dt.String() + " is not a ggml block type"
}

// Dequantize decodes src, a whole number of blocks of dt, into dst, which
// must hold exactly their elements.
func Dequantize(dt tensor.DType, src []byte, dst []float32) error {
	dec, ok := decoders[dt]
	if !ok {
		_, why := Supported(dt)
		return fmt.Errorf("%w: %s", ErrUnsupported, why)
	}
	bb, be := int(dt.BlockBytes()), int(dt.BlockElems())
	if len(src)%bb != 0 {
		return fmt.Errorf("%w: %d bytes of %s are not a whole number of %d-byte blocks", ErrLength, len(src), dt, bb)
	}
	if n := len(src) / bb * be; len(dst) != n {
		return fmt.Errorf("%w: %d bytes of %s hold %d elements, destination has %d", ErrLength, len(src), dt, n, len(dst))
	}
	dec(src, dst)
	return nil
}

// f16 converts an IEEE binary16 value to float32.
func f16(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	man := uint32(h) & 0x3ff
	switch exp {
	case 0x1f: // infinity, NaN
		return math.Float32frombits(sign | 0x7f800000 | man<<13)
	case 0:
		// zero and subnormals: man * 2^-24, exact in float32
		f := float32(man) * (1.0 / (1 << 24))
		if sign != 0 {
			f = -f
		}
		return f
	}
	return math.Float32frombits(sign | (exp+112)<<23 | man<<13)
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }

// The decoders. Each takes whole blocks (checked by Dequantize) and works a
// block at a time through fixed-size array pointers, so that the compiler
// drops the bounds checks of the inner loops. Where a block applies one
// scale to 4-bit codes, the 16 possible outputs are computed once and
// looked up: the same float operations as the reference, in the same
// order, so the results are bit for bit those of ggml.

func q4_0(src []byte, dst []float32) { levelBlocks(src, dst, &q4_0Levels) }

// q4_0Levels are Q4_0's 16 levels, a nibble minus 8.
var q4_0Levels = [16]float32{-8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7}

// levelBlocks dequantizes blocks of an F16 scale d and 32 nibbles (the
// low ones are elements 0-15, the high ones 16-31) to d·levels[nibble]:
// Q4_0 and IQ4_NL.
func levelBlocks(src []byte, dst []float32, levels *[16]float32) {
	var lut [16]float32
	for ; len(src) >= 18; src, dst = src[18:], dst[32:] {
		b := (*[18]byte)(src)
		y := (*[32]float32)(dst)
		d := f16(le16(b[0:2]))
		for i, k := range levels {
			lut[i] = d * k
		}
		splitNibbles(y, (*[16]byte)(b[2:]), &lut)
	}
}

func q4_1(src []byte, dst []float32) {
	var lut [16]float32
	for ; len(src) >= 20; src, dst = src[20:], dst[32:] {
		b := (*[20]byte)(src)
		y := (*[32]float32)(dst)
		d, m := f16(le16(b[0:2])), f16(le16(b[2:4]))
		for i := range lut {
			lut[i] = float32(i)*d + m
		}
		splitNibbles(y, (*[16]byte)(b[4:]), &lut)
	}
}

func q5_0(src []byte, dst []float32) {
	for ; len(src) >= 22; src, dst = src[22:], dst[32:] {
		b := (*[22]byte)(src)
		y := (*[32]float32)(dst)
		d := f16(le16(b[0:2]))
		qh := binary.LittleEndian.Uint32(b[2:6])
		qs := (*[16]byte)(b[6:])
		for j, q := range qs {
			x0 := int32(q&0xF) | int32((qh>>j)&1)<<4
			x1 := int32(q>>4) | int32((qh>>(j+16))&1)<<4
			y[j] = float32(x0-16) * d
			y[j+16] = float32(x1-16) * d
		}
	}
}

func q5_1(src []byte, dst []float32) {
	for ; len(src) >= 24; src, dst = src[24:], dst[32:] {
		b := (*[24]byte)(src)
		y := (*[32]float32)(dst)
		d, m := f16(le16(b[0:2])), f16(le16(b[2:4]))
		qh := binary.LittleEndian.Uint32(b[4:8])
		qs := (*[16]byte)(b[8:])
		for j, q := range qs {
			x0 := int32(q&0xF) | int32((qh>>j)&1)<<4
			x1 := int32(q>>4) | int32((qh>>(j+16))&1)<<4
			y[j] = float32(x0)*d + m
			y[j+16] = float32(x1)*d + m
		}
	}
}

func q8_0(src []byte, dst []float32) {
	for ; len(src) >= 34; src, dst = src[34:], dst[32:] {
		b := (*[34]byte)(src)
		y := (*[32]float32)(dst)
		d := f16(le16(b[0:2]))
		qs := (*[32]byte)(b[2:])
		for j, q := range qs {
			y[j] = float32(int8(q)) * d
		}
	}
}

func q2K(src []byte, dst []float32) {
	for ; len(src) >= 84; src, dst = src[84:], dst[256:] {
		b := (*[84]byte)(src)
		d, dmin := f16(le16(b[80:82])), f16(le16(b[82:84]))
		sc := (*[16]byte)(b[0:16])
		out := dst[:256:256]
		is := 0
		for n := 0; n < 2; n++ {
			q := (*[32]byte)(b[16+32*n:])
			for shift := uint(0); shift < 8; shift += 2 {
				for half := 0; half < 2; half++ {
					s := sc[is&15]
					is++
					dl, ml := d*float32(s&0xF), dmin*float32(s>>4)
					lut := [4]float32{dl*0 - ml, dl*1 - ml, dl*2 - ml, dl*3 - ml}
					qq := (*[16]byte)(q[16*half:])
					y := (*[16]float32)(out)
					for l, v := range qq {
						y[l] = lut[(v>>shift)&3]
					}
					out = out[16:]
				}
			}
		}
	}
}

// k3Scales unpacks Q3_K's sixteen 6-bit scales, stored with an offset of 32.
func k3Scales(b *[12]byte) [16]int32 {
	var s [16]int32
	for i := 0; i < 4; i++ {
		s[i] = int32(b[i]&0xF|(b[8+i]>>0&3)<<4) - 32
		s[4+i] = int32(b[4+i]&0xF|(b[8+i]>>2&3)<<4) - 32
		s[8+i] = int32(b[i]>>4|(b[8+i]>>4&3)<<4) - 32
		s[12+i] = int32(b[4+i]>>4|(b[8+i]>>6&3)<<4) - 32
	}
	return s
}

// q3Levels are Q3_K's codes: 2 bits, minus 4 unless the hmask bit is set.
// A variable, not constants: ggml multiplies by them (a NaN scale keeps
// its sign), and the compiler would turn dl·(−1) into −dl and dl·1 into dl.
var q3Levels = [8]float32{-4, -3, -2, -1, 0, 1, 2, 3}

func q3K(src []byte, dst []float32) {
	for ; len(src) >= 110; src, dst = src[110:], dst[256:] {
		b := (*[110]byte)(src)
		hm := (*[32]byte)(b[0:32])
		d := f16(le16(b[108:110]))
		scales := k3Scales((*[12]byte)(b[96:108]))
		out := dst[:256:256]
		is := 0
		k := uint(0) // the hmask bit of this run
		for n := 0; n < 2; n++ {
			q := (*[32]byte)(b[32+32*n:])
			for shift := uint(0); shift < 8; shift += 2 {
				for half := 0; half < 2; half++ {
					dl := d * float32(scales[is&15])
					is++
					// code c (2 bits) with the high bit set is c, without it c-4
					var lut [8]float32
					for i, v := range q3Levels {
						lut[i] = dl * v
					}
					qq := (*[16]byte)(q[16*half:])
					hh := (*[16]byte)(hm[16*half:])
					y := (*[16]float32)(out)
					for l, v := range qq {
						hi := (hh[l] >> k & 1) << 2
						y[l] = lut[((v>>shift)&3|hi)&7]
					}
					out = out[16:]
				}
				k++
			}
		}
	}
}

// scaleMinK4 is ggml's get_scale_min_k4: the 6-bit scale and min of
// sub-block j of Q4_K and Q5_K.
func scaleMinK4(j int, q *[12]byte) (sc, m byte) {
	if j < 4 {
		return q[j] & 63, q[j+4] & 63
	}
	return q[j+4]&0xF | (q[j-4]>>6)<<4, q[j+4]>>4 | (q[j]>>6)<<4
}

// minLUT fills lut with the values of sub-block j's codes i of Q4_K and
// Q5_K: d·scale·i − dmin·min.
func minLUT(lut []float32, d, dmin float32, j int, scales *[12]byte) {
	sc, mn := scaleMinK4(j, scales)
	dl, ml := d*float32(sc), dmin*float32(mn)
	for i := range lut {
		lut[i] = dl*float32(i) - ml
	}
}

func q4K(src []byte, dst []float32) {
	var lut [16]float32
	for ; len(src) >= 144; src, dst = src[144:], dst[256:] {
		b := (*[144]byte)(src)
		d, dmin := f16(le16(b[0:2])), f16(le16(b[2:4]))
		scales := (*[12]byte)(b[4:16])
		for c := 0; c < 4; c++ {
			q := (*[32]byte)(b[16+32*c:])
			y := (*[64]float32)(dst[64*c:])
			minLUT(lut[:], d, dmin, 2*c, scales)
			for l, v := range q {
				y[l] = lut[v&0xF]
			}
			minLUT(lut[:], d, dmin, 2*c+1, scales)
			for l, v := range q {
				y[32+l] = lut[v>>4]
			}
		}
	}
}

func q5K(src []byte, dst []float32) {
	var lut [32]float32
	for ; len(src) >= 176; src, dst = src[176:], dst[256:] {
		b := (*[176]byte)(src)
		d, dmin := f16(le16(b[0:2])), f16(le16(b[2:4]))
		scales := (*[12]byte)(b[4:16])
		qh := (*[32]byte)(b[16:48])
		for c := 0; c < 4; c++ {
			k := uint(2 * c) // the qh bit of the low nibbles; k+1 of the high
			q := (*[32]byte)(b[48+32*c:])
			y := (*[64]float32)(dst[64*c:])
			minLUT(lut[:], d, dmin, 2*c, scales)
			for l, v := range q {
				hi := (qh[l] >> k & 1) << 4
				y[l] = lut[(v&0xF|hi)&31]
			}
			minLUT(lut[:], d, dmin, 2*c+1, scales)
			for l, v := range q {
				hi := (qh[l] >> (k + 1) & 1) << 4
				y[32+l] = lut[(v>>4|hi)&31]
			}
		}
	}
}

func q6K(src []byte, dst []float32) {
	for ; len(src) >= 210; src, dst = src[210:], dst[256:] {
		b := (*[210]byte)(src)
		d := f16(le16(b[208:210]))
		for n := 0; n < 2; n++ {
			ql := (*[64]byte)(b[64*n:])
			qh := (*[32]byte)(b[128+32*n:])
			sc := (*[8]byte)(b[192+8*n:])
			y := (*[128]float32)(dst[128*n:])
			var ds [8]float32
			for i, s := range sc {
				ds[i] = d * float32(int8(s))
			}
			for l := 0; l < 32; l++ {
				is := l >> 4
				h := qh[l]
				a, c := ql[l], ql[l+32]
				q1 := int32(a&0xF|(h&3)<<4) - 32
				q2 := int32(c&0xF|(h>>2&3)<<4) - 32
				q3 := int32(a>>4|(h>>4&3)<<4) - 32
				q4 := int32(c>>4|(h>>6&3)<<4) - 32
				y[l] = ds[is&7] * float32(q1)
				y[l+32] = ds[(is+2)&7] * float32(q2)
				y[l+64] = ds[(is+4)&7] * float32(q3)
				y[l+96] = ds[(is+6)&7] * float32(q4)
			}
		}
	}
}

func q8K(src []byte, dst []float32) {
	for ; len(src) >= 292; src, dst = src[292:], dst[256:] {
		b := (*[292]byte)(src)
		y := (*[256]float32)(dst)
		d := math.Float32frombits(binary.LittleEndian.Uint32(b[0:4]))
		qs := (*[256]byte)(b[4:])
		for j, q := range qs {
			y[j] = d * float32(int8(q))
		}
	}
}

// kvaluesIQ4NL is ggml's kvalues_iq4nl, the 16 levels of IQ4_NL and IQ4_XS.
var kvaluesIQ4NL = [16]float32{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

func iq4NL(src []byte, dst []float32) { levelBlocks(src, dst, &kvaluesIQ4NL) }

func iq4XS(src []byte, dst []float32) {
	var lut [16]float32
	for ; len(src) >= 136; src, dst = src[136:], dst[256:] {
		b := (*[136]byte)(src)
		d := f16(le16(b[0:2]))
		sh := le16(b[2:4])
		for ib := 0; ib < 8; ib++ {
			ls := int32(b[4+ib/2]>>(4*(ib%2))&0xF) | int32(sh>>(2*ib)&3)<<4
			dl := d * float32(ls-32)
			for i, k := range kvaluesIQ4NL {
				lut[i] = dl * k
			}
			splitNibbles((*[32]float32)(dst[32*ib:]), (*[16]byte)(b[8+16*ib:]), &lut)
		}
	}
}

func tq2_0(src []byte, dst []float32) {
	for ; len(src) >= 66; src, dst = src[66:], dst[256:] {
		b := (*[66]byte)(src)
		d := f16(le16(b[64:66]))
		var lut [4]float32
		for i, v := range q2Levels {
			lut[i] = v * d
		}
		out := dst[:256:256]
		for j := 0; j < 64; j += 32 {
			qs := (*[32]byte)(b[j:])
			for l := uint(0); l < 8; l += 2 {
				y := (*[32]float32)(out)
				for m, q := range qs {
					y[m] = lut[(q>>l)&3]
				}
				out = out[32:]
			}
		}
	}
}

// kvaluesMXFP4 is ggml's kvalues_mxfp4: the E2M1 values doubled, which
// the halved E8M0 scale undoes.
var kvaluesMXFP4 = [16]float32{0, 1, 2, 3, 4, 6, 8, 12, 0, -1, -2, -3, -4, -6, -8, -12}

// splitNibbles writes the 32 values of 16 packed bytes through lut: the
// low nibbles are elements 0-15, the high ones 16-31 (ggml's order).
func splitNibbles(y *[32]float32, qs *[16]byte, lut *[16]float32) {
	for j, q := range qs {
		y[j] = lut[q&0xF]
		y[j+16] = lut[q>>4]
	}
}

func mxfp4(src []byte, dst []float32) {
	var lut [16]float32
	for ; len(src) >= 17; src, dst = src[17:], dst[32:] {
		b := (*[17]byte)(src)
		y := (*[32]float32)(dst)
		// ggml_e8m0_to_fp32_half: 2^(e-128), subnormal for e < 2; e = 255
		// (NaN in E8M0) is not special-cased, as in ggml.
		d := float32(math.Ldexp(1, int(b[0])-128))
		for i, k := range kvaluesMXFP4 {
			lut[i] = k * d
		}
		splitNibbles(y, (*[16]byte)(b[1:]), &lut)
	}
}
