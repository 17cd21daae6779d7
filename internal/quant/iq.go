package quant

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The grid types (IQ1_S, IQ1_M, IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S),
// the ternary TQ1_0, the FP4 NVFP4 and the 1- and 2-bit Q1_0 and Q2_0.
// The grids are ggml's (grids.bin, written from ggml-common.h by gengrids.go); the
// formulas are ggml's dequantize_row_* with the same float operations in
// the same order, so that results are bit for bit ggml's, NaNs included.
//
// A sign is applied as ggml applies it, by multiplying with ±1 — never by
// negating, which would flip a NaN's sign where ggml's multiply keeps it.
// The factors are loaded from the variables below rather than written as
// constants, since the compiler rewrites x·(−1) as −x and x·1 as x.

var (
	// plusMinus[b] is the factor of sign bit b: 1 for clear, −1 for set.
	plusMinus = [2]float32{1, -1}
	// iq1Delta[b] is IQ1_S's and IQ1_M's grid shift: ±IQ1S_DELTA.
	iq1Delta = [2]float32{0.125, -0.125}
)

// ksign is ggml's ksigns_iq2xs: seven sign bits and an eighth that makes
// their count even.
func ksign(i uint32) uint8 {
	i &= 127
	return uint8(i) | uint8(bits.OnesCount32(i)&1)<<7
}

// signedGrid8 writes y[j] = db · grid byte j · (±1 by bit j of signs).
func signedGrid8(y *[8]float32, db float32, grid uint64, signs uint8) {
	for j := range y {
		g := float32(uint8(grid >> (8 * j)))
		y[j] = db * g * plusMinus[signs>>j&1]
	}
}

func iq2XXS(src []byte, dst []float32) {
	for ; len(src) >= 66; src, dst = src[66:], dst[256:] {
		b := (*[66]byte)(src)
		d := f16(le16(b[0:2]))
		for ib := 0; ib < 8; ib++ {
			a0 := binary.LittleEndian.Uint32(b[2+8*ib:])
			a1 := binary.LittleEndian.Uint32(b[6+8*ib:])
			db := d * (0.5 + float32(a1>>28)) * 0.25
			for l := 0; l < 4; l++ {
				grid := iq2xxsGrid[uint8(a0>>(8*l))]
				signedGrid8((*[8]float32)(dst[32*ib+8*l:]), db, grid, ksign(a1>>(7*l)))
			}
		}
	}
}

// iq2Scales is the pair of sub-block scales IQ2_XS and IQ2_S make of a
// scale byte s: d·(0.5 + nibble)·0.25, low nibble first.
func iq2Scales(d float32, s byte) [2]float32 {
	return [2]float32{d * (0.5 + float32(s&0xf)) * 0.25, d * (0.5 + float32(s>>4)) * 0.25}
}

func iq2XS(src []byte, dst []float32) {
	for ; len(src) >= 74; src, dst = src[74:], dst[256:] {
		b := (*[74]byte)(src)
		d := f16(le16(b[0:2]))
		scales := (*[8]byte)(b[66:74])
		for ib := 0; ib < 8; ib++ {
			db := iq2Scales(d, scales[ib])
			for l := 0; l < 4; l++ {
				q := uint32(le16(b[2+2*(4*ib+l):]))
				signedGrid8((*[8]float32)(dst[32*ib+8*l:]), db[l/2], iq2xsGrid[q&511], ksign(q>>9))
			}
		}
	}
}

func iq2S(src []byte, dst []float32) {
	for ; len(src) >= 82; src, dst = src[82:], dst[256:] {
		b := (*[82]byte)(src)
		d := f16(le16(b[0:2]))
		qs := (*[32]byte)(b[2:34])
		signs := (*[32]byte)(b[34:66])
		qh := (*[8]byte)(b[66:74])
		scales := (*[8]byte)(b[74:82])
		for ib := 0; ib < 8; ib++ {
			db := iq2Scales(d, scales[ib])
			for l := 0; l < 4; l++ {
				idx := uint32(qs[4*ib+l]) | uint32(qh[ib])<<(8-2*l)&0x300
				signedGrid8((*[8]float32)(dst[32*ib+8*l:]), db[l/2], iq2sGrid[idx], signs[4*ib+l])
			}
		}
	}
}

// signedGrid4 writes y[j] = db · grid byte j · (±1 by bit shift+j of
// signs), for j < 4.
func signedGrid4(y []float32, db float32, grid uint32, signs uint8, shift uint) {
	y = y[:4:4]
	for j := range y {
		g := float32(uint8(grid >> (8 * j)))
		y[j] = db * g * plusMinus[signs>>(shift+uint(j))&1]
	}
}

func iq3XXS(src []byte, dst []float32) {
	for ; len(src) >= 98; src, dst = src[98:], dst[256:] {
		b := (*[98]byte)(src)
		d := f16(le16(b[0:2]))
		qs := (*[64]byte)(b[2:66])
		for ib := 0; ib < 8; ib++ {
			aux := binary.LittleEndian.Uint32(b[66+4*ib:])
			db := d * (0.5 + float32(aux>>28)) * 0.5
			for l := 0; l < 4; l++ {
				signs := ksign(aux >> (7 * l))
				y := dst[32*ib+8*l:]
				signedGrid4(y, db, iq3xxsGrid[qs[8*ib+2*l]], signs, 0)
				signedGrid4(y[4:], db, iq3xxsGrid[qs[8*ib+2*l+1]], signs, 4)
			}
		}
	}
}

func iq3S(src []byte, dst []float32) {
	for ; len(src) >= 110; src, dst = src[110:], dst[256:] {
		b := (*[110]byte)(src)
		d := f16(le16(b[0:2]))
		qs := (*[64]byte)(b[2:66])
		qh := (*[8]byte)(b[66:74])
		signs := (*[32]byte)(b[74:106])
		scales := (*[4]byte)(b[106:110])
		for ib := 0; ib < 8; ib++ {
			// ggml walks the sub-blocks in pairs sharing a scale byte:
			// the low nibble scales the even one, the high the odd.
			sc := uint32(scales[ib/2]) >> (4 * (ib & 1)) & 0xf
			db := d * float32(1+2*sc)
			h := uint32(qh[ib])
			for l := 0; l < 4; l++ {
				i1 := uint32(qs[8*ib+2*l]) | h<<(8-2*l)&256
				i2 := uint32(qs[8*ib+2*l+1]) | h<<(7-2*l)&256
				y := dst[32*ib+8*l:]
				s := signs[4*ib+l]
				signedGrid4(y, db, iq3sGrid[i1], s, 0)
				signedGrid4(y[4:], db, iq3sGrid[i2], s, 4)
			}
		}
	}
}

// iq1Grid8 writes y[j] = dl · (grid byte j as int8 + delta).
func iq1Grid8(y *[8]float32, dl float32, grid uint64, delta float32) {
	for j := range y {
		y[j] = dl * (float32(int8(grid>>(8*j))) + delta)
	}
}

func iq1S(src []byte, dst []float32) {
	for ; len(src) >= 50; src, dst = src[50:], dst[256:] {
		b := (*[50]byte)(src)
		d := f16(le16(b[0:2]))
		qs := (*[32]byte)(b[2:34])
		for ib := 0; ib < 8; ib++ {
			qh := uint32(le16(b[34+2*ib:]))
			dl := d * float32(2*(qh>>12&7)+1)
			delta := iq1Delta[qh>>15&1]
			for l := 0; l < 4; l++ {
				idx := uint32(qs[4*ib+l]) | (qh>>(3*l)&7)<<8
				iq1Grid8((*[8]float32)(dst[32*ib+8*l:]), dl, iq1sGrid[idx], delta)
			}
		}
	}
}

func iq1M(src []byte, dst []float32) {
	for ; len(src) >= 56; src, dst = src[56:], dst[256:] {
		b := (*[56]byte)(src)
		qs := (*[32]byte)(b[0:32])
		qh := (*[16]byte)(b[32:48])
		var sc [4]uint32
		for i := range sc {
			sc[i] = uint32(le16(b[48+2*i:]))
		}
		// The super-block scale is an f16 spread over the top nibbles of
		// the four scale words (ggml's iq1m_scale_t).
		d := f16(uint16(sc[0]>>12 | sc[1]>>8&0x00f0 | sc[2]>>4&0x0f00 | sc[3]&0xf000))
		for ib := 0; ib < 8; ib++ {
			s := sc[ib/2] >> (6 * (ib % 2))
			dl := [2]float32{d * float32(2*(s&7)+1), d * float32(2*(s>>3&7)+1)}
			h0, h1 := uint32(qh[2*ib]), uint32(qh[2*ib+1])
			idx := [4]uint32{
				uint32(qs[4*ib]) | h0<<8&0x700,
				uint32(qs[4*ib+1]) | h0<<4&0x700,
				uint32(qs[4*ib+2]) | h1<<8&0x700,
				uint32(qs[4*ib+3]) | h1<<4&0x700,
			}
			delta := [4]float32{iq1Delta[h0>>3&1], iq1Delta[h0>>7&1], iq1Delta[h1>>3&1], iq1Delta[h1>>7&1]}
			for l := 0; l < 4; l++ {
				iq1Grid8((*[8]float32)(dst[32*ib+8*l:]), dl[l/2], iq1sGrid[idx[l]], delta[l])
			}
		}
	}
}

// tq1Trit is ggml's digit extraction for TQ1_0: byte q holds base-3
// digits scaled so that q·3^n (mod 256), times 3, over 256, is digit n.
func tq1Trit(q byte, n int) float32 {
	m := q * pow3[n]
	return float32(int16(uint16(m)*3>>8) - 1)
}

var pow3 = [6]byte{1, 3, 9, 27, 81, 243}

func tq1_0(src []byte, dst []float32) {
	for ; len(src) >= 54; src, dst = src[54:], dst[256:] {
		b := (*[54]byte)(src)
		d := f16(le16(b[52:54]))
		y := dst[:256:256]
		k := 0
		// qs[0:32]: five digits of 32 bytes each; qs[32:48]: five of 16.
		for _, run := range [2][2]int{{0, 32}, {32, 16}} {
			for n := 0; n < 5; n++ {
				for m := 0; m < run[1]; m++ {
					y[k] = tq1Trit(b[run[0]+m], n) * d
					k++
				}
			}
		}
		// qh[4]: four digits of 4 bytes each.
		for n := 0; n < 4; n++ {
			for j := 0; j < 4; j++ {
				y[k] = tq1Trit(b[48+j], n) * d
				k++
			}
		}
	}
}

// ue4m3Half is ggml's ggml_ue4m3_to_fp32: an unsigned E4M3 scale (bias
// 7; 0 and 0x7F read as zero), halved to match kvaluesMXFP4's doubled
// values.
func ue4m3Half(x byte) float32 {
	if x == 0 || x == 0x7f {
		return 0
	}
	exp, man := int(x>>3&0xf), float32(x&7)
	var raw float32
	if exp == 0 {
		raw = float32(math.Ldexp(float64(man), -9))
	} else {
		raw = float32(math.Ldexp(float64(1+man/8), exp-7))
	}
	return raw * 0.5
}

func nvfp4(src []byte, dst []float32) {
	for ; len(src) >= 36; src, dst = src[36:], dst[64:] {
		b := (*[36]byte)(src)
		for s := 0; s < 4; s++ {
			d := ue4m3Half(b[s])
			y := (*[16]float32)(dst[16*s:])
			qs := (*[8]byte)(b[4+8*s:])
			for j, q := range qs {
				y[j] = kvaluesMXFP4[q&0xf] * d
				y[j+8] = kvaluesMXFP4[q>>4] * d
			}
		}
	}
}

func q1_0(src []byte, dst []float32) {
	for ; len(src) >= 18; src, dst = src[18:], dst[128:] {
		b := (*[18]byte)(src)
		d := f16(le16(b[0:2]))
		// ggml picks d or −d (a negation, not a multiply).
		pm := [2]float32{-d, d}
		y := (*[128]float32)(dst)
		for j := range y {
			y[j] = pm[b[2+j/8]>>(j%8)&1]
		}
	}
}

// q2Levels are Q2_0's codes minus one.
var q2Levels = [4]float32{-1, 0, 1, 2}

func q2_0(src []byte, dst []float32) {
	for ; len(src) >= 18; src, dst = src[18:], dst[64:] {
		b := (*[18]byte)(src)
		d := f16(le16(b[0:2]))
		y := (*[64]float32)(dst)
		for j := range y {
			y[j] = q2Levels[b[2+j/4]>>(2*(j%4))&3] * d
		}
	}
}
