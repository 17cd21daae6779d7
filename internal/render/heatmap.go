package render

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"strconv"
	"unsafe"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/tensor"
)

// Source is a tensor with its decoder and cached statistics, as
// *views.Tensor provides them.
type Source interface {
	Tensor() *tensor.Tensor
	// Decoder returns nil when the tensor cannot be decoded.
	Decoder() *decode.Decoder
	// Stats returns the statistics with the histogram.
	Stats(ctx context.Context) (*decode.Stats, error)
}

// Heatmap geometry.
const (
	maxCells   = 1024 // grid cells on a side, at most
	minPlot    = 256  // a plot side is magnified to at least this
	margin     = 10
	barGap     = 12
	barW       = 16
	labelChars = 11
	heatMinW   = 560
	headerH    = margin + 3*lineH + 4
	footerH    = 4 + 2*lineH + margin
)

// heatLayout is where everything of a heatmap goes; it depends on the
// shape alone.
type heatLayout struct {
	rows, cols   uint64 // of the matrix: leading dimensions flattened, last
	gw, gh       int    // grid cells across and down
	cw, ch       int    // pixels of a cell
	plotW, plotH int
	barX, w, h   int
	empty        bool
}

// matrix is the shape seen as [rows, cols]: the last dimension is the
// columns, the others flattened into rows; a scalar is 1×1 and a vector
// one row.
func matrix(shape []uint64) (rows, cols uint64) {
	rows, cols = 1, 1
	if len(shape) > 0 {
		cols = shape[len(shape)-1]
		for _, d := range shape[:len(shape)-1] {
			hi, lo := bits.Mul64(rows, d)
			if hi != 0 {
				return math.MaxUint64, cols
			}
			rows = lo
		}
	}
	return rows, cols
}

func layoutFor(shape []uint64) heatLayout {
	l := heatLayout{}
	l.rows, l.cols = matrix(shape)
	if l.rows == 0 || l.cols == 0 {
		l.empty = true
		l.plotW, l.plotH = minPlot, minPlot
	} else {
		l.gw, l.gh = int(min(l.cols, maxCells)), int(min(l.rows, maxCells))
		l.cw, l.ch = max(1, minPlot/l.gw), max(1, minPlot/l.gh)
		l.plotW, l.plotH = l.gw*l.cw, l.gh*l.ch
	}
	l.barX = margin + l.plotW + barGap
	l.w = max(l.barX+barW+4+labelChars*charW+margin, heatMinW)
	l.h = headerH + l.plotH + footerH
	return l
}

// HeatmapDims returns the width and height in pixels of the heatmap of
// a tensor of this shape.
func HeatmapDims(shape []uint64) (w, h int) {
	l := layoutFor(shape)
	return l.w, l.h
}

// heatmapSize returns the byte size of the heatmap.png of a tensor of
// this shape.
func heatmapSize(shape []uint64) int64 { return pngSize(HeatmapDims(shape)) }

// Grid is a tensor down-sampled: Cells[i*W+j] summarises the block of
// rows [RowStart(i), RowStart(i+1)) and columns [ColStart(j),
// ColStart(j+1)) by its value of largest magnitude (the positive one on a
// tie), or NaN when the block holds a NaN. Max is the largest positive
// value and Min the most negative one (±Inf included; a block holding a
// NaN among its positives, or negatives, leaves them out); Max is NaN
// when there is no positive value and Min when there is no negative one
// (the pass finds the extremes of largest magnitude of each sign only).
type Grid struct {
	Rows, Cols uint64
	W, H       int
	Cells      []float32
	Min, Max   float32
	NaNCells   int
}

// RowStart is the first row of grid row i.
func (g *Grid) RowStart(i int) uint64 { return par.Cut(uint64(i), g.Rows, uint64(g.H)) }

// ColStart is the first column of grid column j.
func (g *Grid) ColStart(j int) uint64 { return par.Cut(uint64(j), g.Cols, uint64(g.W)) }

// chunkElems is the elements decoded at once by a worker (1 MiB of
// float32).
const chunkElems = 1 << 18

// heatmapGrid computes the grid of d in one pass over its values, decoded
// in chunks of rows by up to workers goroutines (GOMAXPROCS if 0), each
// owning a band of grid rows, so that the result does not depend on
// scheduling. Memory is the grid and one chunk per worker.
func heatmapGrid(ctx context.Context, d *decode.Decoder, workers int) (*Grid, error) {
	l := layoutFor(d.Shape())
	g := &Grid{Rows: l.rows, Cols: l.cols, W: l.gw, H: l.gh, Min: float32(math.NaN()), Max: float32(math.NaN())}
	if l.empty {
		return g, nil
	}
	g.Cells = make([]float32, l.gw*l.gh)
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, l.gh)
	type band struct {
		min, max float32 // NaN until seen
		err      error
	}
	res := make([]band, workers)
	par.Ranges(l.gh, workers, func(w, i0, i1 int) {
		b := &res[w]
		b.min, b.max = g.Min, g.Max
		b.err = g.band(ctx, d, i0, i1, func(neg, pos float32) {
			b.min, b.max = nanMin(b.min, neg), nanMax(b.max, pos)
		})
	})
	for _, b := range res {
		if b.err != nil {
			return nil, b.err
		}
		g.Min, g.Max = nanMin(g.Min, b.min), nanMax(g.Max, b.max)
	}
	for _, v := range g.Cells {
		if v != v {
			g.NaNCells++
		}
	}
	return g, nil
}

// A block is folded into two maxima of its values' float32 bit
// patterns, with no floating comparison: S, the largest as int32, is the
// largest positive value when S >= 0 (positive floats order as their
// bits, and every negative one is below 0 as int32); U, the largest as
// uint32, is the negative value of largest magnitude when U >= 1<<31.
// The block's value of largest magnitude is the larger of the two; a NaN
// among the positives (negatives) makes S (U) a NaN, since NaNs have the
// largest magnitudes. A bfloat16 is the top half of a float32, so BF16
// blocks are folded the same way on the 16-bit codes.

const signBit = 1 << 31

// fold32 folds whole rows v (each len(S) elements, one a cell) into S
// and U, two rows at a time.
func fold32(S []int32, U []uint32, v []float32) {
	w := len(S)
	U = U[:w]
	for ; len(v) >= 2*w; v = v[2*w:] {
		r0, r1 := v[:w], v[w:2*w]
		for x := range S {
			a, b := math.Float32bits(r0[x]), math.Float32bits(r1[x])
			S[x] = max(S[x], int32(a), int32(b))
			U[x] = max(U[x], a, b)
		}
	}
	if len(v) >= w {
		r := v[:w]
		for x := range S {
			a := math.Float32bits(r[x])
			S[x], U[x] = max(S[x], int32(a)), max(U[x], a)
		}
	}
}

// fold16 is fold32 for bfloat16 codes. Where the machine has a vector
// kernel (fold_amd64.s), it folds the leading columns and the loop below
// the rest.
func fold16(S []int16, U []uint16, k []uint16) {
	w := len(S)
	rows := len(k) / w
	if rows == 0 {
		return
	}
	lo := fold16Vector(S, U[:w], k[:rows*w], rows)
	if lo < w {
		fold16Cols(S, U[:w], k[:rows*w], lo)
	}
}

// fold16Cols folds columns [lo, len(S)) of whole rows k.
func fold16Cols(S []int16, U []uint16, k []uint16, lo int) {
	w := len(S)
	S, U = S[lo:w], U[lo:w]
	n := w - lo
	for ; len(k) >= 8*w; k = k[8*w:] {
		r0, r1, r2, r3 := k[lo:][:n], k[w+lo:][:n], k[2*w+lo:][:n], k[3*w+lo:][:n]
		r4, r5, r6, r7 := k[4*w+lo:][:n], k[5*w+lo:][:n], k[6*w+lo:][:n], k[7*w+lo:][:n]
		for x := range S {
			a, b, c, d := r0[x], r1[x], r2[x], r3[x]
			e, f, g, h := r4[x], r5[x], r6[x], r7[x]
			S[x] = max(S[x], max(max(int16(a), int16(b)), max(int16(c), int16(d))), max(max(int16(e), int16(f)), max(int16(g), int16(h))))
			U[x] = max(U[x], max(max(a, b), max(c, d)), max(max(e, f), max(g, h)))
		}
	}
	for ; len(k) >= w; k = k[w:] {
		r := k[lo:][:n]
		for x := range S {
			S[x], U[x] = max(S[x], int16(r[x])), max(U[x], r[x])
		}
	}
}

// chunk is a run of consecutive elements: BF16 codes, or float32 values.
type chunk struct {
	codes []uint16
	vals  []float32
}

func (ch *chunk) len() int {
	if ch.codes != nil {
		return len(ch.codes)
	}
	return len(ch.vals)
}

func (ch *chunk) slice(a, b int) chunk {
	if ch.codes != nil {
		return chunk{codes: ch.codes[a:b]}
	}
	return chunk{vals: ch.vals[a:b]}
}

// foldSeg folds all of ch into one block's (s, u).
func foldSeg(ch chunk, s int32, u uint32) (int32, uint32) {
	for _, c := range ch.codes {
		b := uint32(c) << 16
		s, u = max(s, int32(b)), max(u, b)
	}
	for _, v := range ch.vals {
		b := math.Float32bits(v)
		s, u = max(s, int32(b)), max(u, b)
	}
	return s, u
}

// fetcher reads chunks of d into buffers it reuses: a BF16 tensor's
// codes with ReadAt, the values of the others with d.Float32.
type fetcher struct {
	d     *decode.Decoder
	t     *tensor.Tensor
	codes []uint16
	vals  []float32
}

func newFetcher(d *decode.Decoder, n uint64) *fetcher {
	t := d.Tensor()
	f := &fetcher{d: d, t: t}
	if t.DType == tensor.BF16 && !d.Dequantized() && d.Len() == t.NumElements() {
		f.codes = make([]uint16, n)
	} else {
		f.vals = make([]float32, n)
	}
	return f
}

// fetch reads elements [e, e+n).
func (f *fetcher) fetch(e, n uint64) (chunk, error) {
	if f.codes == nil {
		v := f.vals[:n:n]
		return chunk{vals: v}, f.d.Float32(e, v)
	}
	c := f.codes[:n:n]
	raw := unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(c))), 2*n)
	off := f.t.Offset + int64(2*e)
	if got, err := f.t.File.ReadAt(raw, off); got != len(raw) {
		if err == nil {
			err = io.ErrUnexpectedEOF
		}
		return chunk{}, &decode.ShortReadError{Name: f.t.Name, Offset: off, Want: len(raw), Got: got, Err: err}
	}
	if bigEndian {
		for i, x := range c {
			c[i] = x>>8 | x<<8
		}
	}
	return chunk{codes: c}, nil
}

// bigEndian is whether this machine stores a uint16's high byte first,
// when the little-endian codes read in place need a swap.
var bigEndian = binary.NativeEndian.Uint16([]byte{1, 0}) != 1

// nanMin is the smaller of a and b, ignoring a NaN.
func nanMin(a, b float32) float32 {
	if a != a || b < a {
		return b
	}
	return a
}

// nanMax is the larger of a and b, ignoring a NaN.
func nanMax(a, b float32) float32 {
	if a != a || b > a {
		return b
	}
	return a
}

// band fills grid rows [i0, i1), reporting each grid row's largest
// positive and most negative values that are not NaN to seen (pos NaN
// when it has no such positive, neg NaN when no such negative).
func (g *Grid) band(ctx context.Context, d *decode.Decoder, i0, i1 int, seen func(neg, pos float32)) error {
	S, U := make([]int32, g.W), make([]uint32, g.W)
	S16, U16 := make([]int16, g.W), make([]uint16, g.W)
	reset := func() {
		for j := range S {
			S[j], U[j] = math.MinInt32, 0
			S16[j], U16[j] = math.MinInt16, 0
		}
	}
	reset()
	nan := float32(math.NaN())
	flush := func(i int) {
		row := g.Cells[i*g.W : (i+1)*g.W]
		// The row's largest positive and most negative values that are
		// not NaN, as bits: positive NaNs are above +Inf, negative NaNs
		// above -Inf.
		var rowS int32 = -1
		var rowU uint32
		for j := range row {
			s := max(S[j], int32(uint32(uint16(S16[j]))<<16))
			u := max(U[j], uint32(U16[j])<<16)
			hasPos, hasNeg := s >= 0, u >= signBit
			posNaN, negNaN := s > 0x7f800000, u > 0xff800000
			switch {
			case posNaN, negNaN:
				row[j] = nan
			case hasPos && (!hasNeg || u&^signBit <= uint32(s)):
				row[j] = math.Float32frombits(uint32(s))
			default:
				row[j] = math.Float32frombits(u)
			}
			if !posNaN {
				rowS = max(rowS, s)
			}
			if hasNeg && !negNaN {
				rowU = max(rowU, u)
			}
		}
		neg, pos := nan, nan
		if rowS >= 0 {
			pos = math.Float32frombits(uint32(rowS))
		}
		if rowU >= signBit {
			neg = math.Float32frombits(rowU)
		}
		seen(neg, pos)
		reset()
	}
	cols := g.Cols
	starts := make([]uint64, g.W+1) // column starts of the cells
	for j := range starts {
		starts[j] = g.ColStart(j)
	}
	oneCol := cols == uint64(g.W) // every cell one column
	size := uint64(chunkElems)
	if cols <= size {
		size = size / cols * cols // whole rows
	}
	f := newFetcher(d, size)
	r, rEnd := g.RowStart(i0), g.RowStart(i1)
	i, next := i0, g.RowStart(i0+1) // grid row of r, and the first row of the next
	var c uint64                    // column of the next element
	endRows := func(n uint64) {
		r += n
		if r == next {
			flush(i)
			i++
			next = g.RowStart(i + 1)
		}
	}
	for e, end := r*cols, rEnd*cols; e < end; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(size, end-e)
		ch, err := f.fetch(e, n)
		if err != nil {
			return err
		}
		e += n
		for ch.len() > 0 {
			if oneCol && c == 0 && uint64(ch.len()) >= cols {
				m := int(min(uint64(ch.len())/cols, next-r) * cols)
				if ch.codes != nil {
					fold16(S16, U16, ch.codes[:m])
				} else {
					fold32(S, U, ch.vals[:m])
				}
				ch = ch.slice(m, ch.len())
				endRows(uint64(m) / cols)
				continue
			}
			seg := ch.slice(0, int(min(uint64(ch.len()), cols-c)))
			ch = ch.slice(seg.len(), ch.len())
			j := int(par.Cut(c, uint64(g.W), cols)) // near the cell of column c
			for j > 0 && starts[j] > c {
				j--
			}
			for j < g.W-1 && starts[j+1] <= c {
				j++
			}
			for seg.len() > 0 {
				m := int(min(uint64(seg.len()), starts[j+1]-c))
				S[j], U[j] = foldSeg(seg.slice(0, m), S[j], U[j])
				seg, c = seg.slice(m, seg.len()), c+uint64(m)
				j++
			}
			if c == cols {
				c = 0
				endRows(1)
			}
		}
	}
	return nil
}

// ColorRange is the half-range of the colour map for a grid: the 99th
// percentile of |cell| over the cells without NaN, taken to bfloat16
// precision (the upper edge of its bucket of the top 16 bits of the
// float32), and at most the largest finite |cell|; the largest finite
// |cell| if that percentile is 0, and 1 if that is 0 too. Values beyond
// it saturate.
func (g *Grid) ColorRange() float64 {
	type part struct {
		counts [1 << 16]uint32
		n      int
		maxFin float32
	}
	parts := make([]part, min(runtime.GOMAXPROCS(0), max(1, len(g.Cells)>>16)))
	par.Ranges(len(g.Cells), len(parts), func(w, lo, hi int) {
		p := &parts[w]
		for _, v := range g.Cells[lo:hi] {
			if v != v {
				continue
			}
			b := math.Float32bits(v) &^ signBit
			if b < 0x7f800000 {
				p.maxFin = max(p.maxFin, math.Float32frombits(b))
			}
			p.counts[b>>16]++
			p.n++
		}
	})
	n, maxFin := 0, float32(0)
	for i := range parts {
		n, maxFin = n+parts[i].n, max(maxFin, parts[i].maxFin)
	}
	if n == 0 {
		return 1
	}
	rank := uint64(math.Ceil(float64(n)*0.99)) - 1
	var acc uint64
	b := 0
	for ; b < 1<<16; b++ {
		for i := range parts {
			acc += uint64(parts[i].counts[b])
		}
		if acc > rank {
			break
		}
	}
	p := float64(maxFin)
	if b < 0x7f80 {
		p = min(p, float64(math.Float32frombits(uint32(b)<<16|0xffff)))
	}
	switch {
	case p > 0:
		return p
	case maxFin > 0:
		return float64(maxFin)
	}
	return 1
}

// Sci formats x with digits digits after the point as "+1.234e-02", or
// "nan", "+inf", "-inf": the numbers on the pictures, and on the pages
// beside them (package site).
func Sci(x float64, digits int) string {
	switch {
	case x != x:
		return "nan"
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(x, 'e', digits, 64)
	if s[0] != '-' {
		s = "+" + s
	}
	return s
}

// drawHeatmap draws the picture of t from its grid (nil when the tensor
// could not be decoded: why says so).
func drawHeatmap(t *tensor.Tensor, shape []uint64, g *Grid, why string) *canvas {
	l := layoutFor(shape)
	c := newCanvas(l.w, l.h)
	maxChars := (l.w - 2*margin) / charW
	c.text(margin, margin, t.Name, maxChars, black)
	desc := fmt.Sprintf("%s %s", t.DType, tensor.FormatShape(shape))
	if !l.empty {
		desc += fmt.Sprintf(" as %d x %d, grid %d x %d", l.rows, l.cols, l.gh, l.gw)
	}
	c.text(margin, margin+lineH, desc, maxChars, black)
	px, py := margin, headerH
	c.box(px-1, py-1, px+l.plotW+1, py+l.plotH+1, grey)
	switch {
	case g == nil:
		c.fill(px, py, px+l.plotW, py+l.plotH, light)
		c.text(margin, margin+2*lineH, "not decoded: "+why, maxChars, black)
	case l.empty:
		c.fill(px, py, px+l.plotW, py+l.plotH, light)
		c.text(px+8, py+8, "empty", 0, black)
		c.text(margin, margin+2*lineH, "no elements", maxChars, black)
	default:
		rng := g.ColorRange()
		c.cells(px, py, l.cw, l.ch, g.W, g.Cells, rng)
		line := fmt.Sprintf("min %s  max %s  colours +/-%s (p99 of blocks)", Sci(float64(g.Min), 3), Sci(float64(g.Max), 3), strconv.FormatFloat(rng, 'e', 3, 64))
		if g.NaNCells > 0 {
			line += fmt.Sprintf("  NaN blocks %d (black)", g.NaNCells)
		}
		c.text(margin, margin+2*lineH, line, maxChars, black)
		// The scale bar: +rng at the top, 0 in the middle, -rng at the bottom.
		for y := range l.plotH {
			v := rng * (1 - 2*float64(y)/float64(max(1, l.plotH-1)))
			c.fill(l.barX, py+y, l.barX+barW, py+y+1, divColor(v, rng))
		}
		c.box(l.barX-1, py-1, l.barX+barW+1, py+l.plotH+1, grey)
		lx := l.barX + barW + 4
		c.text(lx, py, Sci(rng, 3), 0, black)
		c.text(lx, py+l.plotH/2-6, " 0", 0, black)
		c.text(lx, py+l.plotH-13, Sci(-rng, 3), 0, black)
	}
	fy := py + l.plotH + 4
	c.text(margin, fy, "rows: outputs (leading dims), down; columns: inputs (last dim), across", maxChars, black)
	c.text(margin, fy+lineH, "a pixel: the value of largest magnitude in its block", maxChars, black)
	return c
}

// renderHeatmap renders the heatmap.png of s: exactly
// heatmapSize(ShapeOf(s)) bytes. The grid is computed by up to workers
// goroutines (GOMAXPROCS if 0). When the tensor has no negative (or no
// positive) value, its min (max) is not found by the pass and is taken
// from s.Stats.
func renderHeatmap(ctx context.Context, s Source, workers int) ([]byte, error) {
	t := s.Tensor()
	d := s.Decoder()
	if d == nil {
		why := "unsupported"
		if _, err := decode.NewDecoder(t); err != nil {
			why = err.Error()
		}
		return drawHeatmap(t, t.Shape, nil, why).png(), nil
	}
	g, err := heatmapGrid(ctx, d, workers)
	if err != nil {
		return nil, err
	}
	if g.W > 0 && (g.Min != g.Min || g.Max != g.Max) {
		st, err := s.Stats(ctx)
		if err != nil {
			return nil, err
		}
		if g.Min != g.Min {
			g.Min = float32(st.Min)
		}
		if g.Max != g.Max {
			g.Max = float32(st.Max)
		}
	}
	return drawHeatmap(t, d.Shape(), g, "").png(), nil
}

// ShapeOf is the shape of s's values: its decoder's (which differs from
// the stored one for an integer-packed weight), or the tensor's.
func ShapeOf(s Source) []uint64 {
	if d := s.Decoder(); d != nil {
		return d.Shape()
	}
	return s.Tensor().Shape
}

// NewHeatmap returns the heatmap.png file of s, rendered on the first
// read and kept in c.
func NewHeatmap(s Source, c *Cache) *Lazy {
	return NewLazy(heatmapSize(ShapeOf(s)), c, func(ctx context.Context) ([]byte, error) {
		return renderHeatmap(ctx, s, 0)
	})
}
