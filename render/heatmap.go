package render

import (
	"context"
	"fmt"
	"math"
	"math/bits"
	"runtime"
	"strconv"
	"sync"

	"github.com/fsmount/fsmount/decode"
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
	MaxCells   = 1024 // grid cells on a side, at most
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
		l.gw, l.gh = int(min(l.cols, MaxCells)), int(min(l.rows, MaxCells))
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

// HeatmapSize returns the byte size of the heatmap.png of a tensor of
// this shape.
func HeatmapSize(shape []uint64) int64 { return PNGSize(HeatmapDims(shape)) }

// Grid is a tensor down-sampled: Cells[i*W+j] summarises the block of
// rows [RowStart(i), RowStart(i+1)) and columns [ColStart(j),
// ColStart(j+1)) by its value of largest magnitude (the positive one on a
// tie), or NaN when the block holds a NaN. Min and Max are over the
// blocks without NaN (±Inf included); they are NaN when every block has
// one.
type Grid struct {
	Rows, Cols uint64
	W, H       int
	Cells      []float32
	Min, Max   float32
	NaNCells   int
}

// RowStart is the first row of grid row i.
func (g *Grid) RowStart(i int) uint64 { return split(uint64(i), g.Rows, uint64(g.H)) }

// ColStart is the first column of grid column j.
func (g *Grid) ColStart(j int) uint64 { return split(uint64(j), g.Cols, uint64(g.W)) }

// split is floor(i·n/parts), for i ≤ parts.
func split(i, n, parts uint64) uint64 {
	hi, lo := bits.Mul64(i, n)
	q, _ := bits.Div64(hi, lo, parts)
	return q
}

// chunkElems is the elements decoded at once by a worker (1 MiB of
// float32).
const chunkElems = 1 << 18

// HeatmapGrid computes the grid of d in one pass over its values, decoded
// in chunks of rows by up to workers goroutines (GOMAXPROCS if 0), each
// owning a band of grid rows, so that the result does not depend on
// scheduling. Memory is the grid and one chunk per worker.
func HeatmapGrid(ctx context.Context, d *decode.Decoder, workers int) (*Grid, error) {
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
		min, max float32
		any      bool
		err      error
	}
	res := make([]band, workers)
	var wg sync.WaitGroup
	for w := range workers {
		i0 := int(split(uint64(w), uint64(l.gh), uint64(workers)))
		i1 := int(split(uint64(w+1), uint64(l.gh), uint64(workers)))
		wg.Go(func() {
			b := &res[w]
			b.min, b.max = float32(math.Inf(1)), float32(math.Inf(-1))
			b.err = g.band(ctx, d, i0, i1, func(lo, hi float32) {
				b.min, b.max, b.any = min(b.min, lo), max(b.max, hi), true
			})
		})
	}
	wg.Wait()
	first := true
	for _, b := range res {
		if b.err != nil {
			return nil, b.err
		}
		if b.any {
			if first {
				g.Min, g.Max, first = b.min, b.max, false
			}
			g.Min, g.Max = min(g.Min, b.min), max(g.Max, b.max)
		}
	}
	for _, v := range g.Cells {
		if v != v {
			g.NaNCells++
		}
	}
	return g, nil
}

// band fills grid rows [i0, i1), reporting the range of each block
// without NaN to seen.
func (g *Grid) band(ctx context.Context, d *decode.Decoder, i0, i1 int, seen func(lo, hi float32)) error {
	lo := make([]float32, g.W)
	hi := make([]float32, g.W)
	reset := func() {
		for j := range lo {
			lo[j], hi[j] = float32(math.Inf(1)), float32(math.Inf(-1))
		}
	}
	reset()
	flush := func(i int) {
		row := g.Cells[i*g.W : (i+1)*g.W]
		for j := range row {
			a, b := lo[j], hi[j]
			switch {
			case a != a || b != b:
				row[j] = float32(math.NaN())
			case math.Abs(float64(b)) >= math.Abs(float64(a)):
				row[j] = b
			default:
				row[j] = a
			}
			if a == a && b == b {
				seen(a, b)
			}
		}
		reset()
	}
	cols := g.Cols
	starts := make([]uint64, g.W+1) // column starts of the cells
	for j := range starts {
		starts[j] = g.ColStart(j)
	}
	oneCol := cols == uint64(g.W)
	r, rEnd := g.RowStart(i0), g.RowStart(i1)
	i, next := i0, g.RowStart(i0+1) // grid row of r, and the first row of the next
	var c uint64                    // column of the next element
	buf := make([]float32, chunkElems)
	for e, end := r*cols, rEnd*cols; e < end; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(uint64(len(buf)), end-e)
		v := buf[:n]
		if err := d.Float32(e, v); err != nil {
			return err
		}
		e += n
		for len(v) > 0 {
			k := min(uint64(len(v)), cols-c)
			seg := v[:k]
			if oneCol && c == 0 && k == cols {
				// Every cell is one column: the common case, kept tight.
				lo, hi := lo[:len(seg)], hi[:len(seg)]
				for x, val := range seg {
					lo[x] = min(lo[x], val)
					hi[x] = max(hi[x], val)
				}
			} else {
				j := int(split(c, uint64(g.W), cols)) // near the cell of column c
				for j > 0 && starts[j] > c {
					j--
				}
				for j < g.W-1 && starts[j+1] <= c {
					j++
				}
				s := seg
				for len(s) > 0 {
					m := min(uint64(len(s)), starts[j+1]-(c+uint64(len(seg)-len(s))))
					a, b := lo[j], hi[j]
					for _, val := range s[:m] {
						a, b = min(a, val), max(b, val)
					}
					lo[j], hi[j] = a, b
					s = s[m:]
					j++
				}
			}
			v = v[k:]
			c += k
			if c == cols {
				c = 0
				r++
				if r == next {
					flush(i)
					i++
					next = g.RowStart(i + 1)
				}
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
	var counts [1 << 16]uint32
	n := 0
	maxFin := float32(0)
	for _, v := range g.Cells {
		if v != v {
			continue
		}
		a := float32(math.Abs(float64(v)))
		if a <= math.MaxFloat32 {
			maxFin = max(maxFin, a)
		}
		counts[math.Float32bits(a)>>16]++
		n++
	}
	if n == 0 {
		return 1
	}
	rank := uint64(math.Ceil(float64(n)*0.99)) - 1
	var acc uint64
	b := 0
	for ; b < len(counts); b++ {
		acc += uint64(counts[b])
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

// sci formats x as "+1.234e-02", or "nan", "+inf", "-inf".
func sci(x float64, digits int) string {
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
		for i := range g.H {
			for j := range g.W {
				x, y := px+j*l.cw, py+i*l.ch
				c.fill(x, y, x+l.cw, y+l.ch, divColor(float64(g.Cells[i*g.W+j]), rng))
			}
		}
		line := fmt.Sprintf("min %s  max %s  colours +/-%s (p99 of blocks)", sci(float64(g.Min), 3), sci(float64(g.Max), 3), strconv.FormatFloat(rng, 'e', 3, 64))
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
		c.text(lx, py, sci(rng, 3), 0, black)
		c.text(lx, py+l.plotH/2-6, " 0", 0, black)
		c.text(lx, py+l.plotH-13, sci(-rng, 3), 0, black)
	}
	fy := py + l.plotH + 4
	c.text(margin, fy, "rows: outputs (leading dims), down; columns: inputs (last dim), across", maxChars, black)
	c.text(margin, fy+lineH, "a pixel: the value of largest magnitude in its block", maxChars, black)
	return c
}

// RenderHeatmap renders the heatmap.png of s: exactly
// HeatmapSize(shape) bytes.
func RenderHeatmap(ctx context.Context, s Source, workers int) ([]byte, error) {
	t := s.Tensor()
	d := s.Decoder()
	if d == nil {
		why := "unsupported"
		if _, err := decode.NewDecoder(t); err != nil {
			why = err.Error()
		}
		return drawHeatmap(t, t.Shape, nil, why).png(), nil
	}
	g, err := HeatmapGrid(ctx, d, workers)
	if err != nil {
		return nil, err
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
	return NewLazy(HeatmapSize(ShapeOf(s)), c, func(ctx context.Context) ([]byte, error) {
		return RenderHeatmap(ctx, s, 0)
	})
}
