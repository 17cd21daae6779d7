package adapter

import (
	"cmp"
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/tensor"
)

// DeltaShape is the shape of the module's change to its base weight: the
// base weight's shape. For a Linear it is [out, in] (B's rows, A's
// columns); a Conv1D's weight is stored [in, out] and an embedding's
// [num_embeddings, embedding_dim], both the transpose of B·A. Nil for a
// convolution or a module missing A or B.
func (m *Module) DeltaShape() []uint64 {
	if m.Enable != nil {
		in, out, ok := m.mergedDims()
		switch {
		case !ok:
			return nil
		case m.transposed():
			return []uint64{in, out}
		}
		return []uint64{out, in}
	}
	if m.A == nil || m.B == nil || len(m.A.Shape) != 2 || len(m.B.Shape) != 2 {
		return nil
	}
	if m.transposed() {
		return []uint64{m.A.Shape[1], m.B.Shape[0]}
	}
	return []uint64{m.B.Shape[0], m.A.Shape[1]}
}

// mergedDims returns an old PEFT MergedLinear's input and output widths
// (its base weight's), from lora_A [k·r, in] and lora_B [k·out/n, k·r/2,
// 1], and whether the factors have those shapes.
func (m *Module) mergedDims() (in, out uint64, ok bool) {
	n, k := uint64(len(m.Enable)), enabled(m.Enable)
	if m.A == nil || m.B == nil || len(m.A.Shape) != 2 || len(m.B.Shape) != 3 || k == 0 {
		return 0, 0, false
	}
	rk, o := m.A.Shape[0], m.B.Shape[0]
	if rk%2 != 0 || o%k != 0 || o%2 != 0 || m.B.Shape[1] != rk/2 || m.B.Shape[2] != 1 {
		return 0, 0, false
	}
	return m.A.Shape[1], o / k * n, true
}

// padMerged returns an old PEFT MergedLinear's lora_B as the [out, k·r]
// factor of a plain product: its Conv1d of two groups maps channels
// [h·k·r/2, (h+1)·k·r/2) of lora_A's output to the half h of its own
// outputs, and zero_pad places those outputs, in order, in the enabled
// parts of the weight's rows, leaving the others zero.
func (m *Module) padMerged(b []float32, out uint64) []float32 {
	rk := m.A.Shape[0]
	half := rk / 2
	o := m.B.Shape[0]
	part := out / uint64(len(m.Enable))
	var parts []uint64
	for i, e := range m.Enable {
		if e {
			parts = append(parts, uint64(i))
		}
	}
	p := make([]float32, out*rk)
	for j := range o {
		h := j / (o / 2)
		row := parts[j/part]*part + j%part
		copy(p[row*rk+h*half:row*rk+(h+1)*half], b[j*half:(j+1)*half])
	}
	return p
}

func (m *Module) transposed() bool { return m.Kind == KindConv1D || m.Kind == KindEmbedding }

// MaxFactorElements bounds the elements of A plus B held in memory for a
// delta: 64M float32 (256 MiB), far above any real adapter's module.
const MaxFactorElements = 64 << 20

// Delta is the change a module makes to its base weight, scale·B·A
// (transposed for a Conv1D or an embedding), computed row by row from
// the two factors held in memory; the full matrix is never made.
// Row i is Σₖ L[i,k]·R[k,:] with L = scale·B, R = A (or L = scale·Aᵀ,
// R = Bᵀ when transposed). It is safe for concurrent use.
type Delta struct {
	Module     *Module
	Rows, Cols uint64
	rank       int
	left       []float32 // Rows × rank
	right      []float32 // rank × Cols

	absOnce           sync.Once
	absLeft, absRight []float32

	nonFinite error // the first NaN or Inf of a factor, or nil
}

// NonFiniteError says that a tensor holds a NaN or an infinity, where a
// delta (or a magnitude) made from it would carry it into every merge.
type NonFiniteError struct {
	Tensor string
	Shape  []uint64
	Index  uint64 // flat, of the first
	Value  float32
	// Scaled is set when the factor is finite and scale·lora_B is not.
	Scaled float64
}

func (e *NonFiniteError) Error() string {
	at := fmt.Sprintf("%v at %s", e.Value, tensor.FormatIndex(e.Index, e.Shape))
	if e.Scaled != 0 {
		return fmt.Sprintf("%s times the scale %g overflows float32 (%s): the delta is not finite", e.Tensor, e.Scaled, at)
	}
	return fmt.Sprintf("%s holds %s: the delta is not finite", e.Tensor, at)
}

// CheckFinite returns a *NonFiniteError for the first NaN or infinity
// of v, the values of t, or nil.
func CheckFinite(t *tensor.Tensor, v []float32) error {
	for i, x := range v {
		if x != x || math.IsInf(float64(x), 0) {
			return &NonFiniteError{Tensor: t.Name, Shape: t.Shape, Index: uint64(i), Value: x}
		}
	}
	return nil
}

// NonFinite returns a *NonFiniteError when a factor of the delta holds a
// NaN or an infinity, or scaling lora_B overflows: then every element
// the factor reaches is NaN or infinite, and no tolerance can prove a
// merge with it. Nil when the factors are finite (their product may
// still overflow, element by element).
func (d *Delta) NonFinite() error { return d.nonFinite }

// Delta loads the module's factors and returns its delta.
func (m *Module) Delta() (*Delta, error) {
	shape := m.DeltaShape()
	if shape == nil {
		return nil, fmt.Errorf("%s: no delta for a %s module", m.Key, m.Kind)
	}
	a, b, r, err := m.factors()
	if err != nil {
		return nil, err
	}
	d := &Delta{Module: m, Rows: shape[0], Cols: shape[1], rank: int(r)}
	d.nonFinite = cmp.Or(CheckFinite(m.A, a), CheckFinite(m.B, b))
	if d.nonFinite == nil {
		s := float32(m.Scale)
		for i, x := range b {
			if y := s * x; math.IsInf(float64(y), 0) || y != y {
				d.nonFinite = &NonFiniteError{Tensor: m.B.Name, Shape: m.B.Shape, Index: uint64(i), Value: x, Scaled: m.Scale}
				break
			}
		}
	}
	s := float32(m.Scale)
	in, out := m.A.Shape[1], m.B.Shape[0]
	if m.Enable != nil {
		_, out, _ = m.mergedDims() // DeltaShape checked them
		b = m.padMerged(b, out)
	}
	if !m.transposed() {
		// L = s·B [out, r], R = A [r, in].
		d.left = b
		for i := range d.left {
			d.left[i] *= s
		}
		d.right = a
		return d, nil
	}
	// L = s·Aᵀ [in, r], R = Bᵀ [r, out].
	d.left = make([]float32, in*r)
	for k := range r {
		for j := range in {
			d.left[j*r+k] = s * a[k*in+j]
		}
	}
	d.right = make([]float32, r*out)
	for i := range out {
		for k := range r {
			d.right[k*out+i] = b[i*r+k]
		}
	}
	return d, nil
}

// factors decodes lora_A and lora_B, checking their ranks agree and
// that they fit in memory, and returns them with the rank.
func (m *Module) factors() (a, b []float32, r uint64, err error) {
	r = m.A.Shape[0]
	if m.Enable == nil && (len(m.B.Shape) < 2 || m.B.Shape[1] != r) || r == 0 {
		return nil, nil, 0, fmt.Errorf("%s: lora_A has rank %d, lora_B %v", m.Key, r, m.B.Shape[1:])
	}
	total := m.A.NumElements() + m.B.NumElements()
	if m.Enable != nil {
		_, out, _ := m.mergedDims()
		total = m.A.NumElements() + out*r // the padded lora_B
	}
	if total > MaxFactorElements {
		return nil, nil, 0, fmt.Errorf("%s: factors of %d elements, more than the %d held in memory", m.Key, total, MaxFactorElements)
	}
	if a, err = decode.Values(m.A); err != nil {
		return nil, nil, 0, err
	}
	if b, err = decode.Values(m.B); err != nil {
		return nil, nil, 0, err
	}
	return a, b, r, nil
}

// Len is the number of elements.
func (d *Delta) Len() uint64 { return d.Rows * d.Cols }

// Rank is the inner dimension of the product.
func (d *Delta) Rank() int { return d.rank }

// Row computes columns [c0, c0+len(dst)) of row i.
func (d *Delta) Row(i, c0 uint64, dst []float32) {
	r := d.rank
	rowCombine(dst, d.left[i*uint64(r):(i+1)*uint64(r)], d.right[c0:], int(d.Cols))
}

// parallelMin is the number of elements from which Float32 splits a
// range over the cores.
const parallelMin = 1 << 16

// Float32 computes elements [start, start+len(dst)) in row-major order
// (the values function of a computed tensor: fusefs serves lora/delta
// from it).
func (d *Delta) Float32(start uint64, dst []float32) error {
	n := uint64(len(dst))
	if start > d.Len() || n > d.Len()-start {
		return fmt.Errorf("%s: delta elements [%d, %d) past its %d", d.Module.Key, start, start+n, d.Len())
	}
	workers := runtime.GOMAXPROCS(0)
	if n < parallelMin || workers == 1 {
		d.span(start, dst)
		return nil
	}
	// Whole rows to each worker.
	per := (n/uint64(workers) + d.Cols - 1) / d.Cols * d.Cols
	var g par.Group
	for off := uint64(0); off < n; off += per {
		part := dst[off:min(n, off+per)]
		g.Go(func() { d.span(start+off, part) })
	}
	g.Wait()
	return nil
}

func (d *Delta) span(start uint64, dst []float32) {
	for len(dst) > 0 {
		i, c := start/d.Cols, start%d.Cols
		m := min(uint64(len(dst)), d.Cols-c)
		d.Row(i, c, dst[:m])
		dst, start = dst[m:], start+m
	}
}

// rowCombine sets dst[j] = Σₖ l[k]·right[k·stride+j] for j < len(dst).
func rowCombine(dst, l, right []float32, stride int) {
	n := len(dst)
	if n == 0 {
		return
	}
	if len(l) == 0 {
		clear(dst)
		return
	}
	_ = right[(len(l)-1)*stride+n-1] // bounds, once
	done := 0
	if haveAVX2 && n >= 8 {
		// The kernel on whole groups of 8 columns.
		done = n &^ 7
		combineAVX2(&dst[0], done, &l[0], len(l), &right[0], stride)
	}
	if done == n {
		return
	}
	if haveAVX2 {
		// The last columns through the kernel too, from a padded copy:
		// an element's value must not depend on where a read starts, and
		// the kernel's fused multiply-adds round differently from the
		// loop below.
		var stack [64 * 8]float32
		pad := stack[:]
		if len(l)*8 > len(pad) {
			pad = make([]float32, len(l)*8)
		}
		m := n - done
		for k := range l {
			copy(pad[k*8:k*8+m], right[k*stride+done:k*stride+n])
		}
		var out [8]float32
		combineAVX2(&out[0], 8, &l[0], len(l), &pad[0], 8)
		copy(dst[done:], out[:m])
		return
	}
	tail := dst[done:]
	clear(tail)
	for k, lk := range l {
		row := right[k*stride+done : k*stride+n]
		for j, x := range row {
			tail[j] += lk * x
		}
	}
}

// RowAbs computes columns [c0, c0+len(dst)) of row i of Σₖ |L[i,k]·R[k,:]|,
// the sum whose float32 rounding bounds the error of Row.
func (d *Delta) RowAbs(i, c0 uint64, dst []float32) {
	d.absOnce.Do(func() {
		d.absLeft = make([]float32, len(d.left))
		for j, x := range d.left {
			d.absLeft[j] = abs32(x)
		}
		d.absRight = make([]float32, len(d.right))
		for j, x := range d.right {
			d.absRight[j] = abs32(x)
		}
	})
	r := d.rank
	rowCombine(dst, d.absLeft[i*uint64(r):(i+1)*uint64(r)], d.absRight[c0:], int(d.Cols))
}

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

// DeltaNorm returns the Frobenius norm of the module's delta, from its
// factors alone: ‖s·B·A‖² = s²·trace((BᵀB)(AAᵀ)), in float64, with r×r
// work per row and column rather than a pass over the product.
func (m *Module) DeltaNorm() (float64, error) {
	if m.A == nil || m.B == nil || len(m.A.Shape) < 2 || len(m.B.Shape) < 2 || m.Enable != nil && m.DeltaShape() == nil {
		return 0, fmt.Errorf("%s: no factors", m.Key)
	}
	a, b, r, err := m.factors()
	if err != nil {
		return 0, err
	}
	in := uint64(len(a)) / max(r, 1)
	out := m.B.Shape[0]
	if m.Enable != nil {
		_, out, _ = m.mergedDims()
		b = m.padMerged(b, out)
	}
	bb := make([]float64, r*r) // BᵀB
	for i := range out {
		row := b[i*r : (i+1)*r]
		for p := range r {
			for q := range r {
				bb[p*r+q] += float64(row[p]) * float64(row[q])
			}
		}
	}
	var sum float64
	for p := range r {
		for q := range r {
			var aa float64 // (AAᵀ)[q][p]
			ap, aq := a[p*in:(p+1)*in], a[q*in:(q+1)*in]
			for j := range ap {
				aa += float64(ap[j]) * float64(aq[j])
			}
			sum += bb[p*r+q] * aa
		}
	}
	return math.Abs(m.Scale) * math.Sqrt(max(sum, 0)), nil
}
