package render

import (
	"image/color"
	"math"
)

// The diverging colour map: 255 levels, level 128 (value 0) near-white,
// level 1 (-range) dark blue, level 255 (+range) dark red, interpolated
// in integers between the stops of ColorBrewer's RdBu scheme. NaN is
// black.
var (
	divStops = [5]color.RGBA{
		{5, 48, 97, 255},    // -1
		{67, 147, 195, 255}, // -0.5
		{247, 247, 247, 255},
		{214, 96, 77, 255}, // +0.5
		{103, 0, 31, 255},  // +1
	}
	divMap = buildDivMap()
	nanCol = black
)

func buildDivMap() [256]color.RGBA {
	var m [256]color.RGBA
	lerp := func(a, b uint8, num, den int) uint8 {
		return uint8((int(a)*(den-num) + int(b)*num + den/2) / den)
	}
	for lvl := 1; lvl <= 255; lvl++ {
		// k in [0, 254]: four segments of 63.5 levels; use doubled units.
		k2 := 2 * (lvl - 1) // 0..508, 127 doubled units a segment
		seg := min(k2/127, 3)
		num := k2 - 127*seg
		a, b := divStops[seg], divStops[seg+1]
		m[lvl] = color.RGBA{lerp(a.R, b.R, num, 127), lerp(a.G, b.G, num, 127), lerp(a.B, b.B, num, 127), 255}
	}
	m[0] = m[1]
	return m
}

// level maps v to a level of the map for the range ±rng: 128 +
// floor(v·(127/rng) + 1/2), clamped to [1, 255]; ok is false for NaN.
func level(v, rng float64) (int, bool) { return levelScaled(v, 127/rng) }

// levelScaled is level with scale = 127/rng.
func levelScaled(v, scale float64) (int, bool) {
	if v != v {
		return 0, false
	}
	x := math.Floor(float64(v*scale) + 0.5) // the conversion forbids a fused multiply-add
	switch {
	case x >= 127:
		return 255, true
	case x <= -127:
		return 1, true
	}
	return 128 + int(x), true
}

func divColor(v, rng float64) color.RGBA {
	l, ok := level(v, rng)
	if !ok {
		return nanCol
	}
	return divMap[l]
}

func color3(r, g, b uint8) color.RGBA { return color.RGBA{r, g, b, 255} }
