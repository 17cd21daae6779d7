package compare

import "math"

// partial is the reduction of a run of element pairs (a from MODEL, b
// from OTHER), in float64. Pairs with a non-finite element are not in
// the sums: they are equal when both are NaN or both the same infinity,
// and otherwise count in differ and mismatch.
type partial struct {
	finite   uint64 // pairs in the sums
	differ   uint64 // pairs that differ as numbers (-0 equals +0)
	mismatch uint64 // differing pairs with a non-finite element
	sdd      float64
	saa      float64
	sbb      float64
	sab      float64
	sabs     float64
	max      float64
	// equal marks a chunk found byte-identical and not reduced.
	equal bool
}

func (p *partial) add(q *partial) {
	p.finite += q.finite
	p.differ += q.differ
	p.mismatch += q.mismatch
	p.sdd += q.sdd
	p.saa += q.saa
	p.sbb += q.sbb
	p.sab += q.sab
	p.sabs += q.sabs
	p.max = max(p.max, q.max)
}

// nonFinite handles a pair with a NaN or an infinity.
func (p *partial) nonFinite(x, y float64) {
	if x == y || (x != x && y != y) {
		return
	}
	p.differ++
	p.mismatch++
}

// block is the number of pairs summed locally before adding to the
// chunk's sums: a two-level sum, whose rounding error grows with
// block + pairs/block rather than with the pairs.
const block = 4096

// reduce64 reduces pairs of float64 values, len(a) == len(b).
func (p *partial) reduce64(a, b []float64) {
	for len(a) > 0 {
		k := min(len(a), block)
		p.reduceBlock64(a[:k], b[:k])
		a, b = a[k:], b[k:]
	}
}

func (p *partial) reduceBlock64(a, b []float64) {
	var sdd, saa, sbb, sab, sabs, mx float64
	var finite, differ uint64
	b = b[:len(a)]
	for i, x := range a {
		y := b[i]
		if !(math.Abs(x) <= math.MaxFloat64 && math.Abs(y) <= math.MaxFloat64) {
			p.nonFinite(x, y)
			continue
		}
		finite++
		if x != y {
			differ++
		}
		d := math.Abs(x - y)
		sdd += d * d
		sabs += d
		mx = max(mx, d)
		saa += x * x
		sbb += y * y
		sab += x * y
	}
	p.finite += finite
	p.differ += differ
	p.sdd += sdd
	p.saa += saa
	p.sbb += sbb
	p.sab += sab
	p.sabs += sabs
	p.max = max(p.max, mx)
}

// reduceBF16 reduces pairs of little-endian BF16 elements, len(a) ==
// len(b), decoding them in place: the dense checkpoint's fast path.
func (p *partial) reduceBF16(a, b []byte) {
	for len(a) > 0 {
		k := min(len(a), 2*block)
		p.reduceBlockBF16(a[:k], b[:k])
		a, b = a[k:], b[k:]
	}
}

func (p *partial) reduceBlockBF16(a, b []byte) {
	const expMask = 0x7f80
	// Two sets of sums, for even and odd elements, so that the
	// additions of one element do not wait for the previous one's.
	var sdd0, saa0, sbb0, sab0, sabs0, mx0 float64
	var sdd1, saa1, sbb1, sab1, sabs1, mx1 float64
	var finite, differ uint64
	n := len(a) / 2
	b = b[:2*n]
	i := 0
	for ; i+1 < n; i += 2 {
		ua0 := uint32(a[2*i]) | uint32(a[2*i+1])<<8
		ub0 := uint32(b[2*i]) | uint32(b[2*i+1])<<8
		ua1 := uint32(a[2*i+2]) | uint32(a[2*i+3])<<8
		ub1 := uint32(b[2*i+2]) | uint32(b[2*i+3])<<8
		if ua0&expMask == expMask || ub0&expMask == expMask || ua1&expMask == expMask || ub1&expMask == expMask {
			// Rare: take the pairs one by one.
			for _, k := range [2]int{i, i + 1} {
				x := bf16(a[2*k:])
				y := bf16(b[2*k:])
				if math.Abs(x) <= math.MaxFloat64 && math.Abs(y) <= math.MaxFloat64 {
					finite++
					if x != y {
						differ++
					}
					d := math.Abs(x - y)
					sdd0 += d * d
					sabs0 += d
					mx0 = max(mx0, d)
					saa0 += x * x
					sbb0 += y * y
					sab0 += x * y
				} else {
					p.nonFinite(x, y)
				}
			}
			continue
		}
		finite += 2
		x0 := float64(math.Float32frombits(ua0 << 16))
		y0 := float64(math.Float32frombits(ub0 << 16))
		x1 := float64(math.Float32frombits(ua1 << 16))
		y1 := float64(math.Float32frombits(ub1 << 16))
		if x0 != y0 {
			differ++
		}
		if x1 != y1 {
			differ++
		}
		d0 := math.Abs(x0 - y0)
		d1 := math.Abs(x1 - y1)
		sdd0 += d0 * d0
		sdd1 += d1 * d1
		sabs0 += d0
		sabs1 += d1
		mx0 = max(mx0, d0)
		mx1 = max(mx1, d1)
		saa0 += x0 * x0
		saa1 += x1 * x1
		sbb0 += y0 * y0
		sbb1 += y1 * y1
		sab0 += x0 * y0
		sab1 += x1 * y1
	}
	p.finite += finite
	p.differ += differ
	p.sdd += sdd0 + sdd1
	p.saa += saa0 + saa1
	p.sbb += sbb0 + sbb1
	p.sab += sab0 + sab1
	p.sabs += sabs0 + sabs1
	p.max = max(p.max, mx0, mx1)
	if i < n {
		var x, y [1]float64
		x[0], y[0] = bf16(a[2*i:]), bf16(b[2*i:])
		p.reduceBlock64(x[:], y[:])
	}
}

func bf16(b []byte) float64 {
	return float64(math.Float32frombits(uint32(b[0])<<16 | uint32(b[1])<<24))
}
