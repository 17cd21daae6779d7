package decode

import (
	"encoding/binary"
	"strconv"
	"sync"

	"github.com/fsmount/fsmount/tensor"
)

// GPTQ names the tensors and settings of a GPTQ-quantized linear layer
// (AutoGPTQ / GPTQModel / transformers "gptq"): QWeight I32 [in·b/32,
// out] packed along the input dimension, QZeros I32 [ng, out·b/32]
// packed along the output dimension, Scales [ng, out] (F16, BF16 or F32)
// and, optionally, GIdx I32 [in], the group of each input channel
// (default i / GroupSize). The decoded weight is W [out, in] with
//
//	W[o, i] = Scales[g, o] · (q[i, o] − z[g, o]),  g = GIdx[i],
//
// q[i, o] = qweight[i / pf, o] >> ((i mod pf)·b) & (2^b − 1) (pf = 32/b),
// z likewise from qzeros[g, o / pf], plus 1 (masked to b bits) for the
// v1 checkpoint format. The product is exact in float32.
type GPTQ struct {
	QWeight, QZeros, Scales, GIdx *tensor.Tensor
	// Bits is 2, 4 or 8; 3-bit packing straddles words and is refused.
	Bits int
	// GroupSize is the group size, or -1 for one group over all inputs.
	GroupSize int
	// V1 is the "gptq" checkpoint format, whose zeros are stored minus one;
	// false is "gptq_v2".
	V1 bool
}

// AWQ names the tensors and settings of an AWQ GEMM 4-bit linear layer
// (AutoAWQ, version "gemm"): QWeight I32 [in, out/8] packed along the
// output dimension in the nibble order [0, 2, 4, 6, 1, 3, 5, 7], QZeros
// I32 [in/G, out/8] likewise, Scales [in/G, out]. The decoded weight is W
// [out, in] with W[o, i] = Scales[i/G, o] · (q[i, o] − z[i/G, o]) (no +1).
type AWQ struct {
	QWeight, QZeros, Scales *tensor.Tensor
	GroupSize               int
}

// awqSlot is the nibble slot of output column o mod 8 in an AWQ word.
var awqSlot = [8]uint{0, 4, 1, 5, 2, 6, 3, 7}

// packed decodes an integer-packed weight with per-group zeros and scales.
type packed struct {
	qw      *tensor.Tensor
	in, out uint64
	bits    uint
	pf      uint64
	alongIn bool // GPTQ: words pack input rows; AWQ: output columns
	plusOne bool
	group   uint64 // when gidx is nil
	ng      uint64
	zc      uint64 // words per qzeros row
	qz, sc  *tensor.Tensor
	gi      *tensor.Tensor
	once    sync.Once
	zeros   []uint32
	scales  []float32
	gidx    []uint32
	loadErr error
}

func packErr(w *tensor.Tensor, reason string) error {
	return &ShapeError{Weight: w.Name, Scale: "its companions", Reason: reason}
}

func want2(t *tensor.Tensor, dt tensor.DType, a, b uint64) bool {
	return t != nil && t.DType == dt && len(t.Shape) == 2 && t.Shape[0] == a && t.Shape[1] == b
}

func scaleType(t *tensor.Tensor) bool {
	return t != nil && (t.DType == tensor.F16 || t.DType == tensor.BF16 || t.DType == tensor.F32)
}

// NewGPTQ returns a decoder of the GPTQ layer g's weight, [out, in].
func NewGPTQ(g GPTQ) (*Decoder, error) {
	qw := g.QWeight
	if qw == nil || g.QZeros == nil || g.Scales == nil {
		return nil, &UnsupportedError{DType: tensor.I32, Reason: "GPTQ needs qweight, qzeros and scales"}
	}
	switch g.Bits {
	case 2, 4, 8:
	case 3:
		return nil, &UnsupportedError{DType: qw.DType, Reason: "3-bit GPTQ (values straddle words) is not decoded"}
	default:
		return nil, &UnsupportedError{DType: qw.DType, Reason: "GPTQ bits " + strconv.Itoa(g.Bits)}
	}
	if qw.DType != tensor.I32 || len(qw.Shape) != 2 {
		return nil, packErr(qw, "qweight is not I32 [in·bits/32, out]")
	}
	pf := uint64(32 / g.Bits)
	in, out := qw.Shape[0]*pf, qw.Shape[1]
	gs := uint64(in)
	if g.GroupSize > 0 {
		gs = uint64(g.GroupSize)
	} else if g.GroupSize != -1 {
		return nil, packErr(qw, "group size "+strconv.Itoa(g.GroupSize))
	}
	ng := (in + gs - 1) / gs
	zc := (out + pf - 1) / pf
	if !want2(g.QZeros, tensor.I32, ng, zc) {
		return nil, packErr(qw, "qzeros "+g.QZeros.DType.String()+" "+tensor.FormatShape(g.QZeros.Shape)+", want I32 "+tensor.FormatShape([]uint64{ng, zc}))
	}
	if !scaleType(g.Scales) || len(g.Scales.Shape) != 2 || g.Scales.Shape[0] != ng || g.Scales.Shape[1] != out {
		return nil, packErr(qw, "scales "+tensor.FormatShape(g.Scales.Shape)+", want "+tensor.FormatShape([]uint64{ng, out}))
	}
	if g.GIdx != nil && (g.GIdx.DType != tensor.I32 || len(g.GIdx.Shape) != 1 || g.GIdx.Shape[0] != in) {
		return nil, packErr(qw, "g_idx "+tensor.FormatShape(g.GIdx.Shape)+", want I32 ["+strconv.FormatUint(in, 10)+"]")
	}
	p := &packed{qw: qw, in: in, out: out, bits: uint(g.Bits), pf: pf, alongIn: true, plusOne: g.V1,
		group: gs, ng: ng, zc: zc, qz: g.QZeros, sc: g.Scales, gi: g.GIdx}
	return newPackedDecoder(p)
}

// NewAWQ returns a decoder of the AWQ GEMM layer a's weight, [out, in].
func NewAWQ(a AWQ) (*Decoder, error) {
	qw := a.QWeight
	if qw == nil || a.QZeros == nil || a.Scales == nil {
		return nil, &UnsupportedError{DType: tensor.I32, Reason: "AWQ needs qweight, qzeros and scales"}
	}
	if qw.DType != tensor.I32 || len(qw.Shape) != 2 {
		return nil, packErr(qw, "qweight is not I32 [in, out/8]")
	}
	in, out := qw.Shape[0], qw.Shape[1]*8
	if a.GroupSize <= 0 || in%uint64(a.GroupSize) != 0 {
		return nil, packErr(qw, "group size "+strconv.Itoa(a.GroupSize)+" does not divide in = "+strconv.FormatUint(in, 10))
	}
	gs := uint64(a.GroupSize)
	ng := in / gs
	if !want2(a.QZeros, tensor.I32, ng, out/8) {
		return nil, packErr(qw, "qzeros "+tensor.FormatShape(a.QZeros.Shape)+", want I32 "+tensor.FormatShape([]uint64{ng, out / 8}))
	}
	if !scaleType(a.Scales) || len(a.Scales.Shape) != 2 || a.Scales.Shape[0] != ng || a.Scales.Shape[1] != out {
		return nil, packErr(qw, "scales "+tensor.FormatShape(a.Scales.Shape)+", want "+tensor.FormatShape([]uint64{ng, out}))
	}
	p := &packed{qw: qw, in: in, out: out, bits: 4, pf: 8, group: gs, ng: ng, zc: out / 8, qz: a.QZeros, sc: a.Scales}
	return newPackedDecoder(p)
}

func newPackedDecoder(p *packed) (*Decoder, error) {
	if _, err := NewDecoder(p.qw); err != nil {
		return nil, err
	}
	if p.ng*p.out > MaxScaleElements || p.in > MaxScaleElements {
		return nil, packErr(p.qw, "companions too large to hold in memory")
	}
	n, ok := numElements([]uint64{p.out, p.in})
	if !ok {
		return nil, packErr(p.qw, "element count overflows")
	}
	return &Decoder{t: p.qw, k: kBlock, n: n, shape: []uint64{p.out, p.in}, packed: p}, nil
}

func (p *packed) load() error {
	p.once.Do(func() { p.loadErr = p.read() })
	return p.loadErr
}

// read reads the companions whole: the packed zeros and g_idx as 32-bit
// words, the scales as float32; without a g_idx, column i is in group
// i/group.
func (p *packed) read() error {
	zeros, err := words(p.qz)
	if err != nil {
		return err
	}
	scales, err := Values(p.sc)
	if err != nil {
		return err
	}
	var gidx []uint32
	if p.gi != nil {
		if gidx, err = words(p.gi); err != nil {
			return err
		}
		for i, g := range gidx {
			if uint64(g) >= p.ng {
				return packErr(p.qw, "g_idx["+strconv.Itoa(i)+"] = "+strconv.Itoa(int(int32(g)))+" is not a group")
			}
		}
	} else {
		gidx = make([]uint32, p.in)
		for i := range gidx {
			gidx[i] = uint32(uint64(i) / p.group)
		}
	}
	p.zeros, p.scales, p.gidx = zeros, scales, gidx
	return nil
}

// words reads the 32-bit tensor t whole as little-endian words.
func words(t *tensor.Tensor) ([]uint32, error) {
	raw, err := rawBytes(t)
	if err != nil {
		return nil, err
	}
	out := make([]uint32, len(raw)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return out, nil
}

// float32s decodes elements [start, start+len(dst)) of W [out, in].
func (p *packed) float32s(start uint64, dst []float32) error {
	if len(dst) == 0 {
		return nil
	}
	if err := p.load(); err != nil {
		return err
	}
	n := uint64(len(dst))
	o0, o1 := start/p.in, (start+n-1)/p.in
	mask := uint32(1)<<p.bits - 1
	cols := p.qw.Shape[1]
	// Read, for every word row, the words holding outputs o0..o1.
	var c0, c1 uint64
	if p.alongIn {
		c0, c1 = o0, o1
	} else {
		c0, c1 = o0/p.pf, o1/p.pf
	}
	span := c1 - c0 + 1
	rows := p.qw.Shape[0]
	words := make([]uint32, rows*span)
	buf := make([]byte, span*4)
	for r := range rows {
		if err := readFull(p.qw, int64((r*cols+c0)*4), buf); err != nil {
			return err
		}
		for k := range span {
			words[r*span+k] = binary.LittleEndian.Uint32(buf[4*k:])
		}
	}
	for x := range dst {
		e := start + uint64(x)
		o, i := e/p.in, e%p.in
		var q uint32
		if p.alongIn {
			q = words[(i/p.pf)*span+(o-c0)] >> (uint(i%p.pf) * p.bits) & mask
		} else {
			q = words[i*span+(o/p.pf-c0)] >> (awqSlot[o%8] * 4) & mask
		}
		g := uint64(p.gidx[i])
		zw := p.zeros[g*p.zc+o/p.pf]
		var z uint32
		if p.alongIn {
			z = zw >> (uint(o%p.pf) * p.bits) & mask
		} else {
			z = zw >> (awqSlot[o%8] * 4) & mask
		}
		if p.plusOne {
			z = (z + 1) & mask
		}
		dst[x] = p.scales[g*p.out+o] * float32(int32(q)-int32(z))
	}
	return nil
}
