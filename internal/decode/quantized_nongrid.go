package decode

import (
	"strconv"

	"github.com/fsmount/fsmount/tensor"
)

// The layouts of NewQuantized that are not a row of codes times a grid
// of scales: bitsandbytes' blockwise codes over the flattened weight,
// ModelOpt's INT4 packed along the output dimension, and the MXFP4
// expert stacks stored transposed.

// newFlat checks a FlatBlock weight: codes over the flattened weight
// (CodeTable4: two a byte; CodeElement: one an element), one scale a
// block of FlatBlock elements.
func newFlat(p *quantized, n uint64) (*Decoder, error) {
	q := &p.q
	if q.FlatBlock == 0 {
		return nil, qErr(q, "a 4-bit table code needs its block size")
	}
	want := n * uint64(q.Values.DType.BlockBytes())
	switch q.Code {
	case CodeTable4:
		// Any storage dtype: the bytes are the codes (bitsandbytes'
		// quant_storage views the packed bytes as it).
		if q.Table == nil {
			return nil, qErr(q, "a 4-bit table code needs its table")
		}
		bb := uint64(q.Values.DType.BlockBytes())
		want = (n + 1) / 2
		want = (want + bb - 1) / bb * bb
	case CodeElement:
	default:
		return nil, qErr(q, "a flat block of this code")
	}
	if uint64(q.Values.Length) != want {
		return nil, qErr(q, q.Values.Name+" holds "+strconv.FormatInt(q.Values.Length, 10)+" bytes, "+tensor.FormatShape(q.Shape)+" packs into "+strconv.FormatUint(want, 10))
	}
	blocks := (n + q.FlatBlock - 1) / q.FlatBlock
	if prod(q.Scale.Shape) != blocks || blocks > MaxScaleElements {
		return nil, qErr(q, "scale "+tensor.FormatShape(q.Scale.Shape)+" is not one value a block of "+strconv.FormatUint(q.FlatBlock, 10))
	}
	if nq := q.Nested; nq != nil {
		if q.Scale.DType != tensor.U8 || nq.Table == nil || nq.Absmax == nil || nq.Block == 0 ||
			prod(nq.Table.Shape) != 256 || prod(nq.Absmax.Shape) != (blocks+nq.Block-1)/nq.Block {
			return nil, qErr(q, "nested scale "+tensor.FormatShape(q.Scale.Shape)+" does not fit its table and absmax")
		}
	}
	if q.Zero != nil || q.Biases != nil || q.GIdx != nil || q.ColScale != nil || q.Transposed {
		return nil, qErr(q, "a flat-block weight with zero points, biases, g_idx, input factors or transposed")
	}
	p.so, p.si = blocks, 1
	return &Decoder{t: q.Values, k: kBlock, n: n, shape: q.Shape, quant: p}, nil
}

// nested dequantizes a double-quantized scale (bitsandbytes
// functional.py dequantize_4bit: absmax = dequantize_blockwise(absmax,
// state2) + offset, each step in float32).
func (p *quantized) nested() ([]float32, error) {
	nq := p.q.Nested
	codes, err := rawBytes(p.q.Scale)
	if err != nil {
		return nil, err
	}
	table, err := Values(nq.Table)
	if err != nil {
		return nil, err
	}
	abs, err := Values(nq.Absmax)
	if err != nil {
		return nil, err
	}
	out := make([]float32, len(codes))
	for j, c := range codes {
		v := table[c] * abs[uint64(j)/nq.Block]
		out[j] = v + nq.Offset
	}
	return out, nil
}

// flatFloat32s decodes elements [start, start+len(dst)) of a FlatBlock
// weight: code · scale of its block, · PostScale, rounded to RoundMul
// (bitsandbytes' kDequantizeBlockwise computes in float32 and stores
// in the quant state's dtype).
func (p *quantized) flatFloat32s(start uint64, dst []float32) error {
	q := &p.q
	n := uint64(len(dst))
	var codes []float32
	switch q.Code {
	case CodeTable4:
		b0, b1 := start/2, (start+n+1)/2
		raw := make([]byte, b1-b0)
		if err := readFull(q.Values, int64(b0), raw); err != nil {
			return err
		}
		codes = make([]float32, n)
		for k := range n {
			e := start + k
			c := raw[e/2-b0]
			if e%2 == 0 {
				c >>= 4
			}
			codes[k] = p.table[c&0xF]
		}
	default:
		bb := uint64(q.Values.DType.BlockBytes())
		raw := make([]byte, n*bb)
		if err := readFull(q.Values, int64(start*bb), raw); err != nil {
			return err
		}
		codes = make([]float32, n)
		if _, err := Float32(q.Values.DType, raw, codes); err != nil {
			return err
		}
	}
	for k, c := range codes {
		v := c * p.scale[(start+uint64(k))/q.FlatBlock]
		if p.post != 0 {
			v *= p.post
		}
		dst[k] = RoundTo(q.RoundMul, v)
	}
	return nil
}

// int4Row reads one weight row of ModelOpt's output-packed INT4: the
// high nibbles of the byte row for an odd row, the low for an even,
// two's complement.
func int4Row(row []byte, high bool, out []float32) {
	for i, b := range row {
		if high {
			b >>= 4
		}
		out[i] = float32(int8(b<<4) >> 4)
	}
}

// transposed decodes elements [start, start+len(dst)) of a weight whose
// shape is [.., in, out] and whose codes are stored [.., out, in]: for
// each slab, the stored rows' bytes of the inputs the range covers.
func (p *quantized) transposed(start uint64, dst []float32) error {
	q := &p.q
	n := uint64(len(dst))
	slab := p.in * p.outs
	row := make([]byte, p.rowBytes)
	codes := make([]float32, p.in)
	for done := uint64(0); done < n; {
		e := (start + done) / slab
		off := (start + done) % slab
		m := min(n-done, slab-off)
		a0, a1 := off/p.outs, (off+m-1)/p.outs // the inputs (logical rows) covered
		fp4Part := q.Code == CodeFP4 && q.Values.DType == tensor.U8
		var slabBytes []byte
		if fp4Part {
			var err error
			if slabBytes, err = p.slab(e); err != nil {
				return err
			}
		}
		if slabBytes != nil {
			// Row by row of the result: sequential writes, and the
			// stored bytes of a few inputs stay in cache.
			k := off
			for k < off+m {
				a, b := k/p.outs, k%p.outs
				end := min(off+m, (a+1)*p.outs)
				shift := uint(a%2) * 4
				col := a / 2
				g := a / p.ci
				for ; k < end; k, b = k+1, b+1 {
					c := slabBytes[b*p.rowBytes+col] >> shift
					r := e*p.outs + b
					v := fp4[c&0xF] * p.scale[(r/p.ro)*p.si+g]
					dst[done+k-off] = RoundTo(q.RoundMul, v)
				}
			}
			done += m
			continue
		}
		for b := range p.outs {
			r := e*p.outs + b
			if fp4Part {
				// Only the bytes of inputs a0..a1.
				part := row[a0/2 : a1/2+1]
				if slabBytes != nil {
					copy(part, slabBytes[b*p.rowBytes+a0/2:])
				} else if err := readFull(q.Values, int64(r*p.rowBytes+a0/2), part); err != nil {
					return err
				}
				for a := a0; a <= a1; a++ {
					c := part[a/2-a0/2]
					if a%2 == 1 {
						c >>= 4
					}
					codes[a] = fp4[c&0xF]
				}
			} else {
				if err := readFull(q.Values, int64(r*p.rowBytes), row); err != nil {
					return err
				}
				if err := p.codes(row, codes); err != nil {
					return err
				}
			}
			srow := (r / p.ro) * p.si
			for a := a0; a <= a1; a++ {
				k := a*p.outs + b
				if k < off || k >= off+m {
					continue
				}
				dst[done+k-off] = RoundTo(q.RoundMul, codes[a]*p.scale[srow+a/p.ci])
			}
		}
		done += m
	}
	return nil
}

// maxSlabBytes bounds the stored bytes of the slabs a transposed decoder
// keeps: a stack's expert (GPT-OSS-120B's 2880×5760 is 8 MiB) is read
// once, not once a request per stored row.
const maxSlabBytes = 32 << 20

// slab returns the stored bytes of slab e, read whole and kept while
// they fit maxSlabBytes (the most recent ones); nil when one slab alone
// is larger.
func (p *quantized) slab(e uint64) ([]byte, error) {
	size := p.outs * p.rowBytes
	if size > maxSlabBytes {
		return nil, nil
	}
	p.slabMu.Lock()
	defer p.slabMu.Unlock()
	for _, s := range p.slabs {
		if s.e == e {
			return s.b, nil
		}
	}
	b := make([]byte, size)
	if err := readFull(p.q.Values, int64(e*size), b); err != nil {
		return nil, err
	}
	keep := max(1, int(maxSlabBytes/size))
	if len(p.slabs) >= keep {
		p.slabs = p.slabs[1:]
	}
	p.slabs = append(p.slabs, slabBuf{e, b})
	return b, nil
}

type slabBuf struct {
	e uint64
	b []byte
}
