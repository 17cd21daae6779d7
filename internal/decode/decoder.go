package decode

import (
	"errors"
	"io"
	"strconv"
	"sync"

	"github.com/fsmount/fsmount/tensor"
)

// Decoder decodes ranges of a tensor's elements, by flat (row-major)
// index, reading only the blocks that hold them. A Decoder made by
// [NewScaled] dequantizes with a block-scale companion. A Decoder is safe
// for concurrent use.
type Decoder struct {
	t     *tensor.Tensor
	k     kind
	n     uint64
	scale *blockScale
	// shape and packed are set for an integer-packed weight (GPTQ,
	// AWQ), whose decoded shape is not its tensor's.
	shape  []uint64
	packed *packed
	// quant is set for a quantized weight of NewQuantized, likewise.
	quant *quantized
	// fn, if set, computes the values (NewComputed); t then has no file.
	fn ValuesFunc
	// rowOf, if set, reorders the outermost dimension: element row r of
	// the values is stored row rowOf(r) (see WithRows).
	rowOf  func(r uint64) uint64
	rowLen uint64
}

// WithRows returns a decoder of the same tensor whose values have the
// outermost dimension reordered: row r of the values is stored row
// rowOf(r), which must be a permutation of the rows. GGUF's llama Q and K
// projections are stored with their rows permuted per head; WithRows
// undoes it, so they compare with the Hugging Face tensors row for row.
// Statistics are the same either way (Scan ignores the order).
func (d *Decoder) WithRows(rowOf func(r uint64) uint64) *Decoder {
	shape := d.Shape()
	if len(shape) == 0 || shape[0] == 0 {
		return d
	}
	e := *d
	e.rowOf, e.rowLen = rowOf, d.n/shape[0]
	return &e
}

// blockScale is an FP8 block-scale companion, loaded whole on first use.
type blockScale struct {
	t       *tensor.Tensor
	bn, bk  uint64
	rows    uint64 // of the weight: N
	cols    uint64 // of the weight: K
	sc      uint64 // scale columns: ceil(K/bk)
	once    sync.Once
	vals    []float32
	loadErr error
}

// MaxScaleElements bounds the elements of a scale companion, which is
// held in memory whole: 16M float32 (64 MiB).
const MaxScaleElements = 16 << 20

// NewDecoder returns a decoder of t, checking that its type is decodable
// and that its byte length is what its shape and type imply.
func NewDecoder(t *tensor.Tensor) (*Decoder, error) {
	k := kindOf(t.DType)
	if k == kUnsupported {
		return nil, Supported(t.DType)
	}
	n, ok := numElements(t.Shape)
	if !ok {
		return nil, &LengthError{DType: t.DType, What: t.Name + ": element count overflows", Got: 0, Want: 0}
	}
	size, ok := t.DType.ByteSize(n)
	if !ok || t.Length < 0 || uint64(t.Length) != size {
		return nil, &LengthError{DType: t.DType, What: t.Name + ": byte length for shape " + tensor.FormatShape(t.Shape), Got: uint64(max(t.Length, 0)), Want: size}
	}
	return &Decoder{t: t, k: k, n: n}, nil
}

// Values decodes the whole of t into memory as float32: for the tensors
// a caller needs whole (an adapter's LoRA factors, a DoRA magnitude). Its
// size is what NewDecoder checked against the tensor's byte length.
func Values(t *tensor.Tensor) ([]float32, error) {
	d, err := NewDecoder(t)
	if err != nil {
		return nil, err
	}
	v := make([]float32, d.Len())
	return v, d.Float32(0, v)
}

func numElements(shape []uint64) (uint64, bool) {
	n := uint64(1)
	for _, d := range shape {
		if d != 0 && n > ^uint64(0)/d {
			return 0, false
		}
		n *= d
	}
	return n, true
}

// NewScaled returns a decoder of the block-quantized weight w, of shape
// [N, K], whose element [i, j] is w[i, j] · scale[i/bn, j/bk] (rounded to
// float32), the scale having shape [ceil(N/bn), ceil(K/bk)]: the FP8
// layout of DeepSeek-V3 and transformers' "fp8" quantization, whose
// weight_scale_inv is a multiplier despite its name. block is
// the weight_block_size [bn, bk] (see package quantconfig).
func NewScaled(w, scale *tensor.Tensor, block [2]uint64) (*Decoder, error) {
	d, err := NewDecoder(w)
	if err != nil {
		return nil, err
	}
	if d.k == kBlock {
		return nil, &ShapeError{Weight: w.Name, Scale: scale.Name, Reason: "weight is block-quantized already"}
	}
	if len(w.Shape) != 2 {
		return nil, &ShapeError{Weight: w.Name, Scale: scale.Name, Reason: "weight shape " + tensor.FormatShape(w.Shape) + " is not [N, K]"}
	}
	bn, bk := block[0], block[1]
	if bn == 0 || bk == 0 {
		return nil, &ShapeError{Weight: w.Name, Scale: scale.Name, Reason: "block size has a zero"}
	}
	rows, cols := w.Shape[0], w.Shape[1]
	want := []uint64{(rows + bn - 1) / bn, (cols + bk - 1) / bk}
	if len(scale.Shape) != 2 || scale.Shape[0] != want[0] || scale.Shape[1] != want[1] {
		return nil, &ShapeError{Weight: w.Name, Scale: scale.Name, Reason: "scale shape " + tensor.FormatShape(scale.Shape) + ", want " + tensor.FormatShape(want) + " for block [" + strconv.FormatUint(bn, 10) + ", " + strconv.FormatUint(bk, 10) + "]"}
	}
	sd, err := NewDecoder(scale)
	if err != nil {
		return nil, err
	}
	if sd.k == kBlock {
		return nil, &ShapeError{Weight: w.Name, Scale: scale.Name, Reason: "scale is block-quantized"}
	}
	if sd.n > MaxScaleElements {
		return nil, &ShapeError{Weight: w.Name, Scale: scale.Name, Reason: "scale has " + strconv.FormatUint(sd.n, 10) + " elements, more than the " + strconv.Itoa(MaxScaleElements) + " held in memory"}
	}
	d.scale = &blockScale{t: scale, bn: bn, bk: bk, rows: rows, cols: cols, sc: want[1]}
	return d, nil
}

func (s *blockScale) load() ([]float32, error) {
	s.once.Do(func() {
		d, err := NewDecoder(s.t)
		if err != nil {
			s.loadErr = err
			return
		}
		vals := make([]float32, d.n)
		if err := d.Float32(0, vals); err != nil {
			s.loadErr = err
			return
		}
		s.vals = vals
	})
	return s.vals, s.loadErr
}

// Tensor returns the tensor decoded (the weight, for a scaled decoder).
func (d *Decoder) Tensor() *tensor.Tensor { return d.t }

// Len returns the number of elements.
func (d *Decoder) Len() uint64 { return d.n }

// Shape returns the tensor's shape; callers must not modify it.
func (d *Decoder) Shape() []uint64 {
	if d.shape != nil {
		return d.shape
	}
	return d.t.Shape
}

// ValueType is the type whose values the decoder produces: the tensor's
// own, or F32 for dequantized values (a scaled or block-quantized
// tensor). It decides the precision that values are printed with.
func (d *Decoder) ValueType() tensor.DType {
	if d.scale != nil || d.k == kBlock {
		return tensor.F32
	}
	return d.t.DType
}

// Dequantized reports whether values are computed from codes and scales
// rather than being the tensor's own elements.
func (d *Decoder) Dequantized() bool { return d.scale != nil || d.k == kBlock }

// Float32 decodes elements [start, start+len(dst)) into dst.
func (d *Decoder) Float32(start uint64, dst []float32) error {
	n := uint64(len(dst))
	if start > d.n || n > d.n-start {
		return &LengthError{DType: d.t.DType, What: d.t.Name + ": elements past the end", Got: start + n, Want: d.n}
	}
	if n == 0 {
		return nil
	}
	if d.rowOf != nil {
		plain := *d
		plain.rowOf = nil
		for done := uint64(0); done < n; {
			e := start + done
			r, col := e/d.rowLen, e%d.rowLen
			m := min(n-done, d.rowLen-col)
			if err := plain.Float32(d.rowOf(r)*d.rowLen+col, dst[done:done+m]); err != nil {
				return err
			}
			done += m
		}
		return nil
	}
	if d.quant != nil {
		return d.quant.float32s(start, dst)
	}
	if d.packed != nil {
		return d.packed.float32s(start, dst)
	}
	if d.fn != nil {
		return d.fn(start, dst)
	}
	be, bb := d.t.DType.BlockElems(), d.t.DType.BlockBytes()
	b0 := start / be
	b1 := (start + n + be - 1) / be
	rp := getRaw(int((b1 - b0) * bb))
	defer rawPool.Put(rp)
	raw := *rp
	if err := readFull(d.t, int64(b0*bb), raw); err != nil {
		return err
	}
	first := b0 * be
	if first == start && (b1-b0)*be == n {
		return d.decodeRaw(first, raw, dst)
	}
	tmp := make([]float32, (b1-b0)*be)
	if err := d.decodeRaw(first, raw, tmp); err != nil {
		return err
	}
	copy(dst, tmp[start-first:])
	return nil
}

// rawPool holds the buffers Float32 reads a range's bytes into, so that
// serving a view's reads does not allocate a buffer for each.
var rawPool sync.Pool

// getRaw returns a pooled buffer of n bytes.
func getRaw(n int) *[]byte {
	if p, ok := rawPool.Get().(*[]byte); ok && cap(*p) >= n {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n)
	return &b
}

// Float64 decodes elements [start, start+len(dst)) into dst.
func (d *Decoder) Float64(start uint64, dst []float64) error {
	if d.rowOf != nil || d.scale != nil || d.k == kBlock || d.k.table() || d.k == kF32 {
		// Exact in float32: decode there and widen.
		var buf [2048]float32
		for done := 0; done < len(dst); {
			m := min(len(dst)-done, len(buf))
			if err := d.Float32(start+uint64(done), buf[:m]); err != nil {
				return err
			}
			for i, v := range buf[:m] {
				dst[done+i] = float64(v)
			}
			done += m
		}
		return nil
	}
	n := uint64(len(dst))
	if start > d.n || n > d.n-start {
		return &LengthError{DType: d.t.DType, What: d.t.Name + ": elements past the end", Got: start + n, Want: d.n}
	}
	bb := d.t.DType.BlockBytes()
	raw := make([]byte, n*bb)
	if err := readFull(d.t, int64(start*bb), raw); err != nil {
		return err
	}
	_, err := Float64(d.t.DType, raw, dst)
	return err
}

// rawBytes reads tensor t whole, undecoded (see [Decoder.Raw]).
func rawBytes(t *tensor.Tensor) ([]byte, error) {
	d, err := NewDecoder(t)
	if err != nil {
		return nil, err
	}
	return d.Raw(0, d.Len())
}

// Raw reads the bytes of elements [start, start+n), which must be whole
// blocks, into a new slice.
func (d *Decoder) Raw(start, n uint64) ([]byte, error) {
	be, bb := d.t.DType.BlockElems(), d.t.DType.BlockBytes()
	if d.packed != nil || d.quant != nil {
		return nil, &UnsupportedError{DType: d.t.DType, Reason: "a packed weight's elements have no raw bytes of their own"}
	}
	if d.fn != nil {
		return nil, &UnsupportedError{DType: d.t.DType, Reason: "computed values have no bytes"}
	}
	if start > d.n || n > d.n-start || start%be != 0 || n%be != 0 {
		return nil, &LengthError{DType: d.t.DType, What: d.t.Name + ": raw range not whole blocks within the tensor", Got: start + n, Want: d.n}
	}
	raw := make([]byte, n/be*bb)
	return raw, readFull(d.t, int64(start/be*bb), raw)
}

// decodeRaw decodes raw, the whole blocks starting at element first, into
// dst, applying the block scales if any.
func (d *Decoder) decodeRaw(first uint64, raw []byte, dst []float32) error {
	n, err := Float32(d.t.DType, raw, dst)
	if err != nil || d.scale == nil {
		return err
	}
	s := d.scale
	vals, err := s.load()
	if err != nil {
		return err
	}
	out := dst[:n]
	i, j := first/s.cols, first%s.cols
	for len(out) > 0 {
		// One run of a row within one scale block.
		run := min(uint64(len(out)), s.cols-j, s.bk-j%s.bk)
		f := vals[(i/s.bn)*s.sc+j/s.bk]
		seg := out[:run]
		for x := range seg {
			seg[x] *= f
		}
		out = out[run:]
		j += run
		if j == s.cols {
			i, j = i+1, 0
		}
	}
	return nil
}

// readFull reads len(p) bytes of t at offset off within the tensor; a
// short read is a *ShortReadError.
func readFull(t *tensor.Tensor, off int64, p []byte) error {
	if off < 0 || off > t.Length || int64(len(p)) > t.Length-off {
		return &ShortReadError{Name: t.Name, Offset: t.Offset + off, Want: len(p), Err: errors.New("range outside the tensor")}
	}
	n, err := t.File.ReadAt(p, t.Offset+off)
	if n == len(p) {
		return nil
	}
	if err == nil {
		err = io.ErrUnexpectedEOF
	}
	return &ShortReadError{Name: t.Name, Offset: t.Offset + off, Want: len(p), Got: n, Err: err}
}
