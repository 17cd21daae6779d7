package decode

import (
	"encoding/binary"
	"math"
	"strconv"
	"sync"

	"github.com/fsmount/fsmount/tensor"
)

// Code is how a quantized weight stores each value.
type Code int

// The codes of the quantized layouts.
const (
	// CodeInt is an integer of Bits bits packed densely into 32-bit
	// words along the row (element i at bit i·Bits, little-endian,
	// straddling words): compressed-tensors' pack-quantized (signed:
	// the stored code less 2^(Bits−1)) and MLX's affine (unsigned).
	CodeInt Code = iota
	// CodeFP4 is an FP4 E2M1 pair per byte, the low nibble first:
	// NVFP4 and MXFP4 (compressed-tensors, ModelOpt, MLX).
	CodeFP4
	// CodeElement is the tensor's own element type (I8, F8_E4M3, or
	// MLX's mxfp8 bytes in U32 words, read as F8_E4M3).
	CodeElement
	// CodeTable4 is a 4-bit index into Table, two a byte, the high
	// nibble first, over the flattened weight (bitsandbytes' NF4 and
	// FP4: functional.py dequantize_4bit, kDequantizeBlockwise).
	CodeTable4
	// CodeInt4Out is a signed 4-bit integer packed along the output
	// dimension: byte [r/2, i] holds row r in its low nibble when r is
	// even, its high nibble when odd (ModelOpt's pack_int4_in_uint8,
	// modelopt/torch/export/quant_utils.py).
	CodeInt4Out
)

// Nested is a scale that is itself quantized (bitsandbytes' double
// quantization): scale[j] = Table[code[j]] · Absmax[j / Block] + Offset,
// in float32 (functional.py dequantize_blockwise, then += offset).
type Nested struct {
	Table, Absmax *tensor.Tensor
	Block         uint64
	Offset        float32
}

// Quantized describes a quantized weight for [NewQuantized]. Its values
// are, for the logical weight W [rows, in] (a stack's leading dimensions
// folded into rows),
//
//	W[r, i] = round(round((c[r, i] − Z[r, g]) · S[r, g]) + B[r, g])
//
// with c the code, g the scale's column of input i, S the scale (its
// element type decoded; E8M0 exponents 2^(e−127)) times or divided by
// Global, and each round to RoundMul or RoundAdd (F32: none), as the
// library computes it in the scale's dtype.
type Quantized struct {
	Values *tensor.Tensor
	Code   Code
	Bits   int  // CodeInt: 1 to 8
	Signed bool // CodeInt: the stored code is offset by 2^(Bits−1)
	// Shape is the logical weight's shape.
	Shape []uint64
	// Scale is [.., so, si] (or [1] / [] for one scale), of any float
	// type, F8_E4M3, or U8 holding E8M0 exponents (ScaleE8M0).
	Scale     *tensor.Tensor
	ScaleE8M0 bool
	// Zero is the zero point, the shape of Scale, unpacked; ZeroPacked
	// is compressed-tensors' zero point packed along the output
	// dimension (I32 [ceil(rows·Bits/32), si]).
	Zero       *tensor.Tensor
	ZeroPacked bool
	// Block is the rows and inputs each scale covers ([1, group] for
	// groups, [bn, bk] for blocks); zero derives it from the scale's
	// shape, which is right only where it divides the weight.
	Block [2]uint64
	// ScaleE4M3 reads U8 scales as FP8 E4M3 codes (MLX's nvfp4).
	ScaleE4M3 bool
	// GIdx is the group of each input (I32 [in]), or nil.
	GIdx *tensor.Tensor
	// Biases is MLX's affine offset, the shape of Scale.
	Biases *tensor.Tensor
	// Global is one F32 that divides the scale (GlobalDivides:
	// compressed-tensors' weight_global_scale) or multiplies it
	// (ModelOpt's weight_scale_2).
	Global        *tensor.Tensor
	GlobalDivides bool
	// RoundMul and RoundAdd are the types the product and the sum are
	// rounded to (F32 or 0: not rounded; BF16, F16).
	RoundMul, RoundAdd tensor.DType
	// Table is CodeTable4's 16 values (F32).
	Table *tensor.Tensor
	// FlatBlock, when set, is the number of consecutive elements of the
	// flattened weight each scale covers (bitsandbytes' blocksize); the
	// scale is then one value per block, of any shape.
	FlatBlock uint64
	// Nested dequantizes a U8 scale (bitsandbytes' double quant).
	Nested *Nested
	// PostScale, when not 0, multiplies each value after its scale
	// (bitsandbytes int8: · 7.874015718698502e-3, its 1/127).
	PostScale float32
	// ColScale [in], when set, multiplies each value by its input's
	// factor after the scale (ModelOpt AWQ's pre_quant_scale folded
	// into the weight the layer applies).
	ColScale *tensor.Tensor
	// Transposed: Shape is [.., in, out] of codes stored as [.., out,
	// in] (transformers' mxfp4 experts: convert_moe_packed_tensors
	// transposes the last two dimensions).
	Transposed bool
}

// quantized decodes a Quantized weight.
type quantized struct {
	q        Quantized
	rows, in uint64
	outs     uint64 // the stored rows of one slab (Shape[-2], or Shape[-1] when Transposed)
	post     float32
	col      []float32
	table    []float32
	slabMu   sync.Mutex
	slabs    []slabBuf // transposed: the stored bytes of recent slabs
	rowBytes uint64
	so, si   uint64 // scale grid
	ro, ci   uint64 // rows and inputs per scale cell
	once     sync.Once
	scale    []float32
	zero     []float32
	bias     []float32
	gidx     []uint32
	loadErr  error
}

func qErr(q *Quantized, what string) error {
	return &ShapeError{Weight: q.Values.Name, Scale: "its companions", Reason: what}
}

// NewQuantized returns a decoder of the quantized weight q: values of
// q.Shape, as the library that wrote it dequantizes them.
func NewQuantized(q Quantized) (*Decoder, error) {
	if q.Values == nil || q.Scale == nil || len(q.Shape) < 2 {
		return nil, &UnsupportedError{DType: tensor.U8, Reason: "a quantized weight needs its values, its scale and a 2-D shape"}
	}
	if _, err := NewDecoder(q.Values); err != nil {
		return nil, err
	}
	n, ok := numElements(q.Shape)
	if !ok || n > 1<<62/4 {
		return nil, qErr(&q, "element count overflows")
	}
	in := q.Shape[len(q.Shape)-1]
	outs := q.Shape[len(q.Shape)-2]
	if q.Transposed {
		in, outs = outs, in
	}
	rows := n / max(in, 1)
	p := &quantized{q: q, rows: rows, in: in, outs: outs}
	if q.Code == CodeTable4 || q.FlatBlock > 0 {
		return newFlat(p, n)
	}
	switch q.Code {
	case CodeInt:
		if q.Bits < 1 || q.Bits > 8 {
			return nil, qErr(&q, "bits "+strconv.Itoa(q.Bits))
		}
		p.rowBytes = 4 * ((in*uint64(q.Bits) + 31) / 32)
	case CodeFP4:
		p.rowBytes = (in + 1) / 2
		if q.Values.DType == tensor.U32 {
			p.rowBytes = 4 * ((in + 7) / 8)
		}
	case CodeElement:
		p.rowBytes = in * uint64(q.Values.DType.BlockBytes())
		if q.Values.DType == tensor.U32 {
			p.rowBytes = in // MLX's mxfp8: one byte a value
		}
	case CodeInt4Out:
		if outs%2 != 0 {
			return nil, qErr(&q, "an odd output dimension cannot pack along it")
		}
		p.rowBytes = in // one byte row holds two weight rows
		rows /= 2
	default:
		return nil, qErr(&q, "unknown code")
	}
	if want := rows * p.rowBytes; uint64(q.Values.Length) != want {
		return nil, qErr(&q, q.Values.Name+" holds "+strconv.FormatInt(q.Values.Length, 10)+" bytes, "+tensor.FormatShape(q.Shape)+" packs into "+strconv.FormatUint(want, 10))
	}
	if q.Code == CodeInt4Out {
		rows *= 2
	}
	ss := q.Scale.Shape
	switch {
	case len(ss) <= 1 && prod(ss) == 1:
		p.so, p.si = 1, 1
	case len(ss) == 1 && ss[0] == rows:
		p.so, p.si = rows, 1 // one scale a row (bitsandbytes' SCB)
	case len(ss) >= 2:
		p.si = ss[len(ss)-1]
		p.so = prod(ss) / max(p.si, 1)
	default:
		return nil, qErr(&q, "scale shape "+tensor.FormatShape(ss))
	}
	if p.so == 0 || p.si == 0 || p.so*p.si > MaxScaleElements {
		return nil, qErr(&q, "scale shape "+tensor.FormatShape(ss))
	}
	p.ro, p.ci = (rows+p.so-1)/p.so, (in+p.si-1)/p.si
	if q.Block[0] > 0 && q.Block[1] > 0 {
		p.ro, p.ci = q.Block[0], q.Block[1]
	}
	if p.so == 1 {
		p.ro = max(rows, 1)
	}
	if p.si == 1 {
		p.ci = max(in, 1)
	}
	if (rows+p.ro-1)/p.ro != p.so || (in+p.ci-1)/p.ci != p.si && q.GIdx == nil {
		return nil, qErr(&q, "scale shape "+tensor.FormatShape(ss)+" does not tile "+tensor.FormatShape(q.Shape))
	}
	if q.GIdx != nil && (len(q.GIdx.Shape) != 1 || q.GIdx.Shape[0] != in || q.GIdx.DType != tensor.I32) {
		return nil, qErr(&q, "g_idx "+tensor.FormatShape(q.GIdx.Shape)+", want I32 ["+strconv.FormatUint(in, 10)+"]")
	}
	for _, c := range []*tensor.Tensor{q.Biases, q.Zero} {
		if c != nil && !q.ZeroPacked && prod(c.Shape) != p.so*p.si {
			return nil, qErr(&q, c.Name+" "+tensor.FormatShape(c.Shape)+" is not the scale's "+tensor.FormatShape(ss))
		}
	}
	if q.ColScale != nil && prod(q.ColScale.Shape) != in {
		return nil, qErr(&q, q.ColScale.Name+" "+tensor.FormatShape(q.ColScale.Shape)+" is not one value an input")
	}
	if q.Transposed && (q.Zero != nil || q.Biases != nil || q.GIdx != nil || q.ColScale != nil) {
		return nil, qErr(&q, "a transposed weight with zero points, biases, g_idx or input factors")
	}
	return &Decoder{t: q.Values, k: kBlock, n: n, shape: q.Shape, quant: p}, nil
}

func (p *quantized) load() error {
	p.once.Do(func() { p.loadErr = p.read() })
	return p.loadErr
}

// floats reads a companion whole as float32.
func floats(t *tensor.Tensor, exponents, e4m3 bool) ([]float32, error) {
	if !exponents && !e4m3 {
		return Values(t)
	}
	raw, err := rawBytes(t)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(raw))
	if e4m3 {
		_, err := Float32(tensor.F8_E4M3, raw, out)
		return out, err
	}
	for i, e := range raw {
		out[i] = e8m0(e)
	}
	return out, nil
}

func prod(shape []uint64) uint64 {
	n, ok := numElements(shape)
	if !ok {
		return math.MaxUint64
	}
	return n
}

// e8m0 is 2^(e−127), as compressed-tensors and MLX decode an MX scale
// (255 overflows to +Inf; 0 is 2^−127, a subnormal).
func e8m0(e byte) float32 {
	return float32(math.Ldexp(1, int(e)-127))
}

func (p *quantized) read() error {
	q := &p.q
	var err error
	if q.Nested != nil {
		p.scale, err = p.nested()
	} else {
		p.scale, err = floats(q.Scale, q.ScaleE8M0, q.ScaleE4M3)
	}
	if err != nil {
		return err
	}
	p.post = q.PostScale
	if q.ColScale != nil {
		if p.col, err = Values(q.ColScale); err != nil {
			return err
		}
	}
	if q.Table != nil {
		if p.table, err = Values(q.Table); err != nil {
			return err
		}
		if len(p.table) != 16 {
			return qErr(q, q.Table.Name+" does not hold 16 values")
		}
	}
	if q.Global != nil {
		g, err := Values(q.Global)
		if err != nil {
			return err
		}
		if len(g) != 1 {
			return qErr(q, q.Global.Name+" is not one value")
		}
		for i, s := range p.scale {
			if q.GlobalDivides {
				p.scale[i] = s / g[0]
			} else {
				p.scale[i] = s * g[0]
			}
		}
	}
	if q.Biases != nil {
		if p.bias, err = Values(q.Biases); err != nil {
			return err
		}
	}
	if q.Zero != nil {
		if p.zero, err = p.readZero(); err != nil {
			return err
		}
	}
	if q.GIdx != nil {
		if p.gidx, err = words(q.GIdx); err != nil {
			return err
		}
		for i, g := range p.gidx {
			if uint64(g) >= p.si {
				return qErr(q, "g_idx["+strconv.Itoa(i)+"] = "+strconv.Itoa(int(int32(g)))+" is not a group")
			}
		}
	}
	return nil
}

// readZero reads the zero point as float32 [so, si]: compressed-tensors
// packs it along the output dimension, signed as the weight's codes.
func (p *quantized) readZero() ([]float32, error) {
	q := &p.q
	if !q.ZeroPacked {
		return Values(q.Zero)
	}
	b := uint64(q.Bits)
	if len(q.Zero.Shape) != 2 || q.Zero.DType != tensor.I32 || q.Zero.Shape[0] != (p.so*b+31)/32 || q.Zero.Shape[1] != p.si {
		return nil, qErr(q, "zero point "+tensor.FormatShape(q.Zero.Shape)+" is not I32 ["+strconv.FormatUint((p.so*b+31)/32, 10)+", "+strconv.FormatUint(p.si, 10)+"]")
	}
	w, err := words(q.Zero)
	if err != nil {
		return nil, err
	}
	out := make([]float32, p.so*p.si)
	off := int32(1) << (b - 1)
	for c := range p.si {
		for r := range p.so {
			bit := r * b
			var u uint64
			for k := range b {
				x := bit + k
				u |= uint64(w[(x/32)*p.si+c]>>(x%32)&1) << k
			}
			out[r*p.si+c] = float32(int32(u) - off)
		}
	}
	return out, nil
}

// fp4 are the values of the E2M1 codes.
var fp4 = [16]float32{0, 0.5, 1, 1.5, 2, 3, 4, 6, float32(math.Copysign(0, -1)), -0.5, -1, -1.5, -2, -3, -4, -6}

// RoundTo rounds a float32 to the nearest value of dt (BF16 or F16;
// any other type: unchanged), ties to even, as torch and MLX round a
// product computed in float32.
func RoundTo(dt tensor.DType, x float32) float32 {
	switch dt {
	case tensor.BF16:
		b := math.Float32bits(x)
		if x != x {
			return x
		}
		b += 0x7FFF + (b>>16)&1
		return math.Float32frombits(b &^ 0xFFFF)
	case tensor.F16:
		var h [2]byte
		binary.LittleEndian.PutUint16(h[:], f32ToF16(x))
		var out [1]float32
		_, _ = Float32(tensor.F16, h[:], out[:])
		return out[0]
	}
	return x
}

// f32ToF16 converts to IEEE half, round to nearest even.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23&0xFF) - 127 + 15
	man := b & 0x7FFFFF
	switch {
	case b&0x7FFFFFFF > 0x7F800000:
		return sign | 0x7E00
	case exp >= 31:
		return sign | 0x7C00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		man |= 0x800000
		shift := uint(14 - exp)
		h := man >> shift
		rem := man & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || rem == half && h&1 == 1 {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | man>>13
	rem := man & 0x1FFF
	if rem > 0x1000 || rem == 0x1000 && h&1 == 1 {
		h++
	}
	return sign | uint16(h)
}

// float32s decodes elements [start, start+len(dst)).
func (p *quantized) float32s(start uint64, dst []float32) error {
	if len(dst) == 0 {
		return nil
	}
	if err := p.load(); err != nil {
		return err
	}
	q := &p.q
	if q.FlatBlock > 0 {
		return p.flatFloat32s(start, dst)
	}
	if q.Transposed {
		return p.transposed(start, dst)
	}
	n := uint64(len(dst))
	r0, r1 := start/p.in, (start+n-1)/p.in
	row := make([]byte, p.rowBytes)
	codes := make([]float32, p.in)
	for r := r0; r <= r1; r++ {
		off := r * p.rowBytes
		if q.Code == CodeInt4Out {
			off = (r / 2) * p.rowBytes
		}
		if err := readFull(q.Values, int64(off), row); err != nil {
			return err
		}
		if q.Code == CodeInt4Out {
			int4Row(row, r%2 == 1, codes)
		} else if err := p.codes(row, codes); err != nil {
			return err
		}
		i0, i1 := uint64(0), p.in
		if r == r0 {
			i0 = start - r*p.in
		}
		if r == r1 {
			i1 = start + n - r*p.in
		}
		srow := (r / p.ro) * p.si
		out := dst[r*p.in+i0-start : r*p.in+i1-start]
		if p.zero == nil && p.bias == nil && p.gidx == nil && p.col == nil && p.post == 0 {
			p.scaleRow(codes[i0:i1], i0, p.scale[srow:srow+p.si], out)
			continue
		}
		for i := i0; i < i1; i++ {
			var g uint64
			if p.gidx != nil {
				g = uint64(p.gidx[i])
			} else {
				g = i / p.ci
			}
			k := srow + g
			x := codes[i]
			if p.zero != nil {
				x = RoundTo(q.RoundMul, x-p.zero[k])
			}
			v := RoundTo(q.RoundMul, x*p.scale[k])
			if p.post != 0 {
				v = RoundTo(q.RoundMul, v*p.post)
			}
			if p.col != nil {
				v = RoundTo(q.RoundMul, v*p.col[i])
			}
			if p.bias != nil {
				v = RoundTo(q.RoundAdd, v+p.bias[k])
			}
			out[i-i0] = v
		}
	}
	return nil
}

// scaleRow is the common case of float32s: codes times their group's
// scale, rounded, for the inputs from i0 of one row.
func (p *quantized) scaleRow(codes []float32, i0 uint64, scales []float32, out []float32) {
	for j := 0; j < len(codes); {
		i := i0 + uint64(j)
		g := i / p.ci
		end := min(len(codes), j+int((g+1)*p.ci-i))
		s := scales[g]
		switch p.q.RoundMul {
		case tensor.BF16:
			for ; j < end; j++ {
				v := codes[j] * s
				b := math.Float32bits(v)
				if v == v {
					b += 0x7FFF + (b>>16)&1
					v = math.Float32frombits(b &^ 0xFFFF)
				}
				out[j] = v
			}
		case tensor.F16:
			for ; j < end; j++ {
				out[j] = RoundTo(tensor.F16, codes[j]*s)
			}
		default:
			for ; j < end; j++ {
				out[j] = codes[j] * s
			}
		}
	}
}

// codes decodes one stored row's codes.
func (p *quantized) codes(row []byte, out []float32) error {
	q := &p.q
	switch q.Code {
	case CodeInt:
		b := uint64(q.Bits)
		off := int32(0)
		if q.Signed {
			off = 1 << (b - 1)
		}
		if b == 4 || b == 8 || b == 2 {
			// Whole codes a word: no straddling.
			per := 32 / b
			mask := uint32(1)<<b - 1
			for w := uint64(0); w*per < p.in; w++ {
				word := binary.LittleEndian.Uint32(row[w*4:])
				for k := uint64(0); k < per && w*per+k < p.in; k++ {
					out[w*per+k] = float32(int32(word>>(k*b)&mask) - off)
				}
			}
			return nil
		}
		for i := range p.in {
			bit := i * b
			w := uint64(binary.LittleEndian.Uint32(row[(bit/32)*4:]))
			if (bit%32)+b > 32 {
				w |= uint64(binary.LittleEndian.Uint32(row[(bit/32+1)*4:])) << 32
			}
			u := int32(w >> (bit % 32) & (1<<b - 1))
			out[i] = float32(u - off)
		}
	case CodeFP4:
		for i := range p.in {
			c := row[i/2]
			if i%2 == 1 {
				c >>= 4
			}
			out[i] = fp4[c&0xF]
		}
	case CodeElement:
		dt := q.Values.DType
		if dt == tensor.U32 || dt == tensor.U8 {
			dt = tensor.F8_E4M3
		}
		if _, err := Float32(dt, row, out); err != nil {
			return err
		}
	}
	return nil
}
