package render

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The overview picture's fixed geometry.
const (
	OverviewW = 960
	OverviewH = 540

	ovX0, ovX1 = 80, 700 // plot area
	ovY0, ovY1 = 50, 470
	ovLegendX  = 720
)

// overviewSize is the byte size of every overview.png.
func overviewSize() int64 { return pngSize(OverviewW, OverviewH) }

// palette colours the overview's lines, in the order of the kinds.
var palette = []color.RGBA{
	{31, 119, 180, 255}, {255, 127, 14, 255}, {44, 160, 44, 255}, {214, 39, 40, 255},
	{148, 103, 189, 255}, {140, 86, 75, 255}, {227, 119, 194, 255}, {127, 127, 127, 255},
	{188, 189, 34, 255}, {23, 190, 207, 255}, {0, 0, 0, 255}, {255, 187, 120, 255},
}

// LayerKind splits a block tensor's name, "model.layers.N.<module>.weight"
// (any prefix before "layers."), into its layer N and its kind: the
// module path with a final ".weight" dropped and every further number
// (an expert's index) written "*", such as "self_attn.q_proj",
// "mlp.experts.*.down_proj" or "input_layernorm"; a bias keeps ".bias".
// ok is false for a tensor outside the blocks.
//
// It matches the first "layers.N." (at the start or after a '.') followed
// by a rest without a newline, as the regular expression
// `(?:^|\.)layers\.([0-9]+)\.(.+)$` does, without one: the root page of
// a 500,000-tensor model asks for the kind of every tensor.
func LayerKind(name string) (layer int, kind string, ok bool) {
	var buf [64]byte
	layer, b, ok := AppendLayerKind(buf[:0], name)
	return layer, string(b), ok
}

// AppendLayerKind is [LayerKind] appending the kind to dst: a caller
// asking for the kinds of 500,000 names makes no string for each.
func AppendLayerKind(dst []byte, name string) (layer int, kind []byte, ok bool) {
	const key = "layers."
	for from := 0; ; {
		j := strings.Index(name[from:], key)
		if j < 0 {
			return 0, dst, false
		}
		at := from + j
		from = at + 1
		if at > 0 && name[at-1] != '.' {
			continue
		}
		rest := name[at+len(key):]
		k := 0
		for k < len(rest) && '0' <= rest[k] && rest[k] <= '9' {
			k++
		}
		if k == 0 || k+1 >= len(rest) || rest[k] != '.' || strings.IndexByte(rest[k+1:], '\n') >= 0 {
			continue
		}
		n, err := strconv.Atoi(rest[:k])
		if err != nil {
			return 0, dst, false
		}
		return n, appendBlockKind(dst, rest[k+1:]), true
	}
}

// appendBlockKind appends the kind of a block tensor whose name after
// "layers.N." is rest (see [LayerKind]) to b.
func appendBlockKind(b []byte, rest string) []byte {
	rest = strings.TrimSuffix(rest, ".weight")
	for i := 0; ; i++ {
		p, after, more := strings.Cut(rest, ".")
		if i > 0 {
			b = append(b, '.')
		}
		if isInt(p) {
			b = append(b, '*')
		} else {
			b = append(b, p...)
		}
		if !more {
			return b
		}
		rest = after
	}
}

// isInt reports whether strconv.Atoi accepts p, without the error it
// makes for every word that is not a number.
func isInt(p string) bool {
	d := p
	if len(d) > 0 && (d[0] == '+' || d[0] == '-') {
		d = d[1:]
	}
	if d == "" {
		return false
	}
	for i := range len(d) {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	_, err := strconv.Atoi(p)
	return err == nil
}

// Series is one kind's RMS against the layer index, layers ascending.
type Series struct {
	Kind   string
	Layers []int
	RMS    []float64
}

// Overview is what overview.png plots: per kind of block weight, its RMS
// at every layer (the RMS over every element of the kind in the layer:
// over all experts together for an expert kind), on a log scale.
type Overview struct {
	Layers  int // highest layer index + 1
	Series  []Series
	Missing int // block tensors without statistics (not decoded, or a failed scan)
	ylo     int // the y axis spans 10^ylo .. 10^yhi
	yhi     int
}

// buildOverview collects the series from the statistics of srcs.
func buildOverview(ctx context.Context, srcs []Source) (*Overview, error) {
	type acc struct{ sumSq, n float64 }
	byKind := map[string]map[int]*acc{}
	o := &Overview{}
	for _, s := range srcs {
		layer, kind, ok := LayerKind(s.Tensor().Name)
		if !ok {
			continue
		}
		if s.Decoder() == nil {
			o.Missing++
			continue
		}
		st, err := s.Stats(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			o.Missing++
			continue
		}
		fin := float64(st.Finite())
		if fin == 0 {
			continue
		}
		if byKind[kind] == nil {
			byKind[kind] = map[int]*acc{}
		}
		a := byKind[kind][layer]
		if a == nil {
			a = &acc{}
			byKind[kind][layer] = a
		}
		a.sumSq += st.RMS * st.RMS * fin
		a.n += fin
		o.Layers = max(o.Layers, layer+1)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, kind := range slices.Sorted(mapKeys(byKind)) {
		sr := Series{Kind: kind}
		for _, l := range slices.Sorted(mapKeys(byKind[kind])) {
			a := byKind[kind][l]
			v := math.Sqrt(a.sumSq / a.n)
			sr.Layers, sr.RMS = append(sr.Layers, l), append(sr.RMS, v)
			if v > 0 && !math.IsInf(v, 0) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		o.Series = append(o.Series, sr)
	}
	o.ylo, o.yhi = -3, 1
	if lo <= hi {
		o.ylo, o.yhi = int(math.Floor(math.Log10(lo))), int(math.Ceil(math.Log10(hi)))
		if o.yhi <= o.ylo {
			o.yhi = o.ylo + 1
		}
	}
	return o, nil
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (o *Overview) x(layer int) int {
	if o.Layers <= 1 {
		return (ovX0 + ovX1) / 2
	}
	return ovX0 + layer*(ovX1-ovX0)/(o.Layers-1)
}

func (o *Overview) y(v float64) int {
	if !(v > 0) {
		return ovY1
	}
	f := (math.Log10(v) - float64(o.ylo)) / float64(o.yhi-o.ylo)
	return ovY1 - int(math.Round(f*float64(ovY1-ovY0)))
}

// Point returns the pixel at which the kind's value at layer is plotted.
func (o *Overview) Point(kind string, layer int) (x, y int, ok bool) {
	for _, s := range o.Series {
		if s.Kind != kind {
			continue
		}
		for i, l := range s.Layers {
			if l == layer {
				return o.x(l), max(ovY0, min(o.y(s.RMS[i]), ovY1)), true
			}
		}
	}
	return 0, 0, false
}

// PNG draws the overview: exactly overviewSize() bytes.
func (o *Overview) PNG() []byte {
	c := newCanvas(OverviewW, OverviewH)
	c.text(margin, margin, "RMS of each kind of block weight against the layer index (log scale)", 0, black)
	if o.Missing > 0 {
		c.text(margin, margin+lineH, fmt.Sprintf("%d block tensors without statistics are left out", o.Missing), 0, black)
	}
	c.box(ovX0-1, ovY0-1, ovX1+1, ovY1+1, grey)
	for k := o.ylo; k <= o.yhi; k++ {
		y := o.y(math.Pow10(k))
		c.fill(ovX0, y, ovX1, y+1, light)
		c.fill(ovX0-5, y, ovX0, y+1, black)
		c.textRight(ovX0-7, y-6, "1e"+strconv.Itoa(k), black)
	}
	step := max(1, (o.Layers+14)/15)
	for l := 0; l < o.Layers; l += step {
		x := o.x(l)
		c.fill(x, ovY1, x+1, ovY1+5, black)
		s := strconv.Itoa(l)
		c.text(x-len(s)*charW/2, ovY1+7, s, 0, black)
	}
	c.text((ovX0+ovX1)/2-5*charW, ovY1+7+lineH, "layer index", 0, black)
	c.text(margin, ovY0-lineH-2, "RMS", 0, black)
	if len(o.Series) == 0 {
		c.text(ovX0+10, ovY0+10, "no block tensors (model.layers.N.*)", 0, black)
	}
	legendRows := (OverviewH - ovY0 - margin) / lineH
	for i, s := range o.Series {
		col := palette[i%len(palette)]
		for k := range s.Layers {
			x, y, _ := o.Point(s.Kind, s.Layers[k])
			if k > 0 {
				px, py, _ := o.Point(s.Kind, s.Layers[k-1])
				c.line(px, py, x, y, 2, col)
			}
			c.fill(x-2, y-2, x+3, y+3, col)
		}
		if i < legendRows {
			ly := ovY0 + i*lineH
			c.fill(ovLegendX, ly+5, ovLegendX+16, ly+8, col)
			c.text(ovLegendX+22, ly, s.Kind, (OverviewW-ovLegendX-22-margin)/charW, black)
		}
	}
	return c.png()
}

// OverviewFile is the overview.png file of a model.
type OverviewFile struct {
	*Lazy
	srcs []Source
}

// NewOverview returns the overview.png of srcs, rendered on the first
// read (scanning any tensor whose statistics are not yet known) and kept
// in c.
func NewOverview(srcs []Source, c *Cache) *OverviewFile {
	f := &OverviewFile{srcs: srcs}
	f.Lazy = NewLazy(overviewSize(), c, func(ctx context.Context) ([]byte, error) {
		o, err := f.Data(ctx)
		if err != nil {
			return nil, err
		}
		return o.PNG(), nil
	})
	return f
}

// Data returns the series the picture plots.
func (f *OverviewFile) Data(ctx context.Context) (*Overview, error) {
	return buildOverview(ctx, f.srcs)
}

// Outliers reports, for tensors of the given names and RMS values,
// whether each is a block tensor whose RMS is more than 10 times the
// median RMS of its kind (see [LayerKind]) over the layers; a kind needs
// at least 3 tensors with a finite RMS to have outliers.
func Outliers(names []string, rms []float64) []bool {
	out := make([]bool, len(names))
	byKind := map[string][]float64{}
	kinds := make([]string, len(names))
	for i, n := range names {
		if _, k, ok := LayerKind(n); ok && !math.IsNaN(rms[i]) {
			kinds[i] = k
			byKind[k] = append(byKind[k], rms[i])
		}
	}
	median := map[string]float64{}
	for k, v := range byKind {
		if len(v) < 3 {
			continue
		}
		slices.Sort(v)
		m := v[len(v)/2]
		if len(v)%2 == 0 {
			m = (v[len(v)/2-1] + v[len(v)/2]) / 2
		}
		median[k] = m
	}
	for i := range names {
		if m, ok := median[kinds[i]]; ok && kinds[i] != "" && rms[i] > 10*m {
			out[i] = true
		}
	}
	return out
}
