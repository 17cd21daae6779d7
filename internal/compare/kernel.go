package compare

import (
	"encoding/binary"
	"math"
)

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
		d := math.Abs(x - y)
		// x − y of finite floats is 0 only when x equals y (−0 and +0
		// included; subnormals keep it from underflowing to 0): count
		// the non-zero |d| by their bits, without a branch.
		differ += (math.Float64bits(d) + (1<<63 - 1)) >> 63
		sdd += d * d
		sabs += d
		if d > mx {
			mx = d
		}
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
	b = b[:len(a)]
	if haveAVX2 && useAVX2 {
		a, b = p.reduceAVX2(a, b)
	}
	for len(a) >= 2 {
		n := sumBF16(a, b, p)
		a, b = a[n:], b[n:]
		if len(a) >= 2 {
			// A pair with a non-finite element, or the last odd one.
			var x, y [1]float64
			x[0], y[0] = bf16(a), bf16(b)
			p.reduceBlock64(x[:], y[:])
			a, b = a[2:], b[2:]
		}
	}
}

// useAVX2 can turn the AVX2 kernel off, for the tests.
var useAVX2 = true

// reduceAVX2 reduces the whole groups of 8 pairs of a and b with the
// AVX2 kernel, the groups holding a non-finite element by reduceBlock64,
// and returns the pairs left (fewer than 8).
func (p *partial) reduceAVX2(a, b []byte) ([]byte, []byte) {
	for len(a) >= 16 {
		var acc [6][4]float64
		var differ uint64
		groups := len(a) / 16
		done := sumBF16AVX2(&a[0], &b[0], groups, &acc, &differ)
		p.finite += uint64(8 * done)
		p.differ += differ
		p.sdd += (acc[0][0] + acc[0][1]) + (acc[0][2] + acc[0][3])
		p.saa += (acc[1][0] + acc[1][1]) + (acc[1][2] + acc[1][3])
		p.sbb += (acc[2][0] + acc[2][1]) + (acc[2][2] + acc[2][3])
		p.sab += (acc[3][0] + acc[3][1]) + (acc[3][2] + acc[3][3])
		p.sabs += (acc[4][0] + acc[4][1]) + (acc[4][2] + acc[4][3])
		p.max = max(p.max, acc[5][0], acc[5][1], acc[5][2], acc[5][3])
		a, b = a[16*done:], b[16*done:]
		if done < groups {
			// A group with a NaN or an infinity.
			var x, y [8]float64
			for i := range 8 {
				x[i], y[i] = bf16(a[2*i:]), bf16(b[2*i:])
			}
			p.reduceBlock64(x[:], y[:])
			a, b = a[16:], b[16:]
		}
	}
	return a, b
}

// sumBF16 adds BF16 pairs to p, two at a time, up to the end of a or the
// first pair of elements of which one is non-finite, and returns the
// bytes it consumed. It calls nothing, so that its sums stay in
// registers.
func sumBF16(a, b []byte, p *partial) int {
	const expMask = 0x7f80
	// Two sets of sums, for even and odd elements, so that the
	// additions of one element do not wait for the previous one's.
	var sdd0, saa0, sbb0, sab0 float64
	var sdd1, saa1, sbb1, sab1 float64
	var sabs, mx float64
	var differ uint64
	n := 0
	for ; n+4 <= len(a) && n+4 <= len(b); n += 4 {
		wa, wb := binary.LittleEndian.Uint32(a[n:]), binary.LittleEndian.Uint32(b[n:])
		if wa&expMask == expMask || wb&expMask == expMask || wa>>16&expMask == expMask || wb>>16&expMask == expMask {
			// A non-finite element in one of the two pairs: the caller
			// takes the next pair alone, finite or not, and calls again.
			break
		}
		x0 := float64(math.Float32frombits(wa << 16))
		y0 := float64(math.Float32frombits(wb << 16))
		d0 := math.Abs(x0 - y0)
		// As in reduceBlock64: count the non-zero |d| by their bits.
		differ += (math.Float64bits(d0) + (1<<63 - 1)) >> 63
		sdd0 += d0 * d0
		sabs += d0
		if d0 > mx {
			mx = d0
		}
		saa0 += x0 * x0
		sbb0 += y0 * y0
		sab0 += x0 * y0
		x1 := float64(math.Float32frombits(wa &^ 0xffff))
		y1 := float64(math.Float32frombits(wb &^ 0xffff))
		d1 := math.Abs(x1 - y1)
		differ += (math.Float64bits(d1) + (1<<63 - 1)) >> 63
		sdd1 += d1 * d1
		sabs += d1
		if d1 > mx {
			mx = d1
		}
		saa1 += x1 * x1
		sbb1 += y1 * y1
		sab1 += x1 * y1
	}
	p.finite += uint64(n / 2)
	p.differ += differ
	p.sdd += sdd0 + sdd1
	p.saa += saa0 + saa1
	p.sbb += sbb0 + sbb1
	p.sab += sab0 + sab1
	p.sabs += sabs
	p.max = max(p.max, mx)
	return n
}

func bf16(b []byte) float64 {
	return float64(math.Float32frombits(uint32(b[0])<<16 | uint32(b[1])<<24))
}
