package render

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/fsmount/fsmount/internal/decode"
)

// The histogram picture's fixed geometry.
const (
	HistW = 640
	HistH = 400

	histX0, histX1 = 70, 620 // plot area
	histY0, histY1 = 80, 340
)

var barCol = color3(70, 110, 170)

// histSize is the byte size of every hist.png.
func histSize() int64 { return pngSize(HistW, HistH) }

// countLabel formats a power of ten for the count axis.
func countLabel(k int) string {
	if k < 4 {
		return strconv.Itoa(int(math.Pow10(k)))
	}
	return "1e" + strconv.Itoa(k)
}

// barHeight is the log-scaled height of count c in h pixels, the peak
// filling them: h·log(1+c)/log(1+peak).
func barHeight(c, peak uint64, h int) int {
	if c == 0 || peak == 0 {
		return 0
	}
	return max(1, int(math.Round(float64(h)*math.Log1p(float64(c))/math.Log1p(float64(peak)))))
}

// drawHist draws the histogram of the statistics s of the tensor named
// name (s nil: why says why there is none).
func drawHist(name string, s *decode.Stats, why string) *canvas {
	c := newCanvas(HistW, HistH)
	maxChars := (HistW - 2*margin) / charW
	c.text(margin, margin, name, maxChars, black)
	c.box(histX0-1, histY0-1, histX1+1, histY1+1, grey)
	if s == nil || s.Hist == nil || len(s.Hist.Counts) == 0 {
		if why == "" {
			why = "no histogram"
		}
		c.text(margin, margin+lineH, why, maxChars, black)
		return c
	}
	h := s.Hist
	c.text(margin, margin+lineH, fmt.Sprintf("%s  count %d  min %s  max %s", s.DType, s.Count, Sci(s.Min, 4), Sci(s.Max, 4)), maxChars, black)
	c.text(margin, margin+2*lineH, fmt.Sprintf("mean %s  std %s  NaN %d  +Inf %d  -Inf %d", Sci(s.Mean, 4), Sci(s.Std, 4), s.NaN, s.PosInf, s.NegInf), maxChars, black)
	var peak uint64
	for _, n := range h.Counts {
		peak = max(peak, n)
	}
	ph := histY1 - histY0
	bins := len(h.Counts)
	for i, n := range h.Counts {
		x0 := histX0 + i*(histX1-histX0)/bins
		x1 := histX0 + (i+1)*(histX1-histX0)/bins
		bh := barHeight(n, peak, ph)
		c.fill(x0, histY1-bh, max(x0+1, x1-1), histY1, barCol)
	}
	// The count axis: a tick at every power of ten up to the peak.
	c.text(margin, histY0-lineH-2, "count (log)", 0, black)
	for k := 0; peak > 0 && math.Pow10(k) <= float64(peak); k++ {
		y := histY1 - barHeight(uint64(math.Pow10(k)), peak, ph)
		c.fill(histX0-5, y, histX0, y+1, black)
		c.textRight(histX0-7, y-6, countLabel(k), black)
	}
	// The value axis: min, the middle and max.
	for _, f := range []float64{0, 0.5, 1} {
		x := histX0 + int(f*float64(histX1-histX0-1))
		c.fill(x, histY1, x+1, histY1+5, black)
		v := h.Min + f*(h.Max-h.Min)
		lbl := Sci(v, 3)
		lx := max(0, min(x-len(lbl)*charW/2, HistW-len(lbl)*charW))
		c.text(lx, histY1+7, lbl, 0, black)
	}
	c.text((histX0+histX1)/2-2*charW, histY1+7+lineH, "value", 0, black)
	c.text(margin, HistH-margin-13, fmt.Sprintf("%d equal-width bins over [min, max] of the finite values", bins), maxChars, black)
	return c
}

// renderHist renders the hist.png of s: exactly histSize() bytes.
func renderHist(ctx context.Context, s Source) ([]byte, error) {
	name := s.Tensor().Name
	if s.Decoder() == nil {
		return drawHist(name, nil, "not decoded").png(), nil
	}
	st, err := s.Stats(ctx)
	if err != nil {
		return nil, err
	}
	return drawHist(name, st, "").png(), nil
}

// NewHist returns the hist.png file of s, rendered on the first read and
// kept in c.
func NewHist(s Source, c *Cache) *Lazy {
	return NewLazy(histSize(), c, func(ctx context.Context) ([]byte, error) { return renderHist(ctx, s) })
}
