package render

import (
	"image"
	"image/color"
	"image/draw"
	"runtime"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/fsmount/fsmount/internal/par"
)

// The text face: the 7×13 fixed font of golang.org/x/image (X11
// misc-fixed), drawn without anti-aliasing, so that text is identical on
// every platform.
const (
	charW = 7
	lineH = 15 // a text line's height with its spacing
)

var (
	white = color.RGBA{255, 255, 255, 255}
	black = color.RGBA{0, 0, 0, 255}
	grey  = color.RGBA{128, 128, 128, 255}
	light = color.RGBA{225, 225, 225, 255}
)

// canvas is a picture being drawn.
type canvas struct{ img *image.RGBA }

func newCanvas(w, h int) *canvas {
	c := &canvas{img: image.NewRGBA(image.Rect(0, 0, w, h))}
	c.fill(0, 0, w, 1, white)
	p := c.img.Pix
	for n := 4 * w; n < len(p); n *= 2 {
		copy(p[n:], p[:n])
	}
	return c
}

// fill paints the rectangle [x0, x1) × [y0, y1), clipped.
func (c *canvas) fill(x0, y0, x1, y1 int, col color.RGBA) {
	r := image.Rect(x0, y0, x1, y1).Intersect(c.img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		p := c.img.Pix[y*c.img.Stride+4*r.Min.X : y*c.img.Stride+4*r.Max.X]
		for i := 0; i < len(p); i += 4 {
			p[i], p[i+1], p[i+2], p[i+3] = col.R, col.G, col.B, 255
		}
	}
}

// cells paints a grid of cells w wide (each cw×ch pixels, the first at
// (x0, y0)) in the diverging colours of vals for the range ±rng.
func (c *canvas) cells(x0, y0, cw, ch, w int, vals []float32, rng float64) {
	img := c.img
	scale := 127 / rng
	rows := len(vals) / max(w, 1)
	par.Ranges(rows, min(runtime.GOMAXPROCS(0), max(1, rows/64)), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			y := y0 + i*ch
			p := img.Pix[y*img.Stride+4*x0 : y*img.Stride+4*(x0+w*cw)]
			for j, v := range vals[i*w : (i+1)*w] {
				col := nanCol
				if l, ok := levelScaled(float64(v), scale); ok {
					col = divMap[l]
				}
				q := p[4*j*cw : 4*(j+1)*cw]
				for k := 0; k < len(q); k += 4 {
					q[k], q[k+1], q[k+2], q[k+3] = col.R, col.G, col.B, 255
				}
			}
			// The other pixel rows of the cells are copies of the first.
			for dy := 1; dy < ch; dy++ {
				copy(img.Pix[(y+dy)*img.Stride+4*x0:], p)
			}
		}
	})
}

// line draws a line w pixels thick from (x0, y0) to (x1, y1), with
// integer steps (Bresenham).
func (c *canvas) line(x0, y0, x1, y1, w int, col color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		c.fill(x0-w/2, y0-w/2, x0-w/2+w, y0-w/2+w, col)
		if x0 == x1 && y0 == y1 {
			return
		}
		if e2 := 2 * e; e2 >= dy {
			e += dy
			x0 += sx
		} else {
			e += dx
			y0 += sy
		}
	}
}

// box draws the outline of [x0, x1) × [y0, y1).
func (c *canvas) box(x0, y0, x1, y1 int, col color.RGBA) {
	c.fill(x0, y0, x1, y0+1, col)
	c.fill(x0, y1-1, x1, y1, col)
	c.fill(x0, y0, x0+1, y1, col)
	c.fill(x1-1, y0, x1, y1, col)
}

// text writes s with its top-left corner at (x, y), cut to maxChars
// characters ("..." marking the cut) when maxChars > 0. Bytes outside
// printable ASCII are drawn as '?'.
func (c *canvas) text(x, y int, s string, maxChars int, col color.RGBA) {
	b := []byte(s)
	for i, ch := range b {
		if ch < 0x20 || ch > 0x7e {
			b[i] = '?'
		}
	}
	if maxChars > 0 && len(b) > maxChars {
		b = append(b[:max(0, maxChars-3)], "..."...)
		b = b[:min(len(b), maxChars)]
	}
	d := font.Drawer{
		Dst:  c.img,
		Src:  image.NewUniform(col),
		Face: basicfont.Face7x13,
		Dot:  fixed.P(x, y+basicfont.Face7x13.Ascent),
	}
	d.DrawBytes(b)
}

// textRight writes s ending at x.
func (c *canvas) textRight(x, y int, s string, col color.RGBA) {
	c.text(x-charW*len(s), y, s, 0, col)
}

func (c *canvas) png() []byte { return encodePNG(c.img) }

var _ draw.Image = (*image.RGBA)(nil)

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}
