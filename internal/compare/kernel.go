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
	mismatch uint64 // differing pairs with a non-finite element
	diffs           // sums of the finite pairs; differ counts the others too
	norms           // sums of the finite pairs
	// equal marks a chunk found byte-identical and not reduced.
	equal bool
}

// diffs sums the differences d = |a − b| of finite pairs. The kernels
// keep their sums in values of this type and of [norms], which have
// few enough fields (at most four) for the compiler to hold a local one
// in registers; their methods are small enough to be inlined.
type diffs struct {
	differ uint64  // pairs that differ as numbers (-0 equals +0)
	sdd    float64 // Σ d²
	sabs   float64 // Σ d
	max    float64 // the largest d
}

// add adds the finite pair x, y.
func (s diffs) add(x, y float64) diffs {
	d := math.Abs(x - y)
	// x − y of finite floats is 0 only when x equals y (−0 and +0
	// included; subnormals keep it from underflowing to 0): count the
	// non-zero |d| by their bits, without a branch.
	s.differ += (math.Float64bits(d) + (1<<63 - 1)) >> 63
	s.sdd += d * d
	s.sabs += d
	if d > s.max {
		s.max = d
	}
	return s
}

func (s diffs) merge(t diffs) diffs {
	return diffs{s.differ + t.differ, s.sdd + t.sdd, s.sabs + t.sabs, max(s.max, t.max)}
}

// norms sums the squares and products of the elements of finite pairs.
type norms struct {
	saa float64 // Σ a²
	sbb float64 // Σ b²
	sab float64 // Σ a·b
}

// add adds the finite pair x, y.
func (s norms) add(x, y float64) norms {
	return norms{s.saa + x*x, s.sbb + y*y, s.sab + x*y}
}

func (s norms) merge(t norms) norms {
	return norms{s.saa + t.saa, s.sbb + t.sbb, s.sab + t.sab}
}

func (p *partial) add(q *partial) {
	p.finite += q.finite
	p.mismatch += q.mismatch
	p.diffs = p.diffs.merge(q.diffs)
	p.norms = p.norms.merge(q.norms)
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
	var ds diffs
	var ns norms
	var finite uint64
	b = b[:len(a)]
	for i, x := range a {
		y := b[i]
		if !(math.Abs(x) <= math.MaxFloat64 && math.Abs(y) <= math.MaxFloat64) {
			p.nonFinite(x, y)
			continue
		}
		finite++
		ds = ds.add(x, y)
		ns = ns.add(x, y)
	}
	p.finite += finite
	p.diffs = p.diffs.merge(ds)
	p.norms = p.norms.merge(ns)
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
		p.diffs = p.diffs.merge(diffs{differ, hsum(acc[0]), hsum(acc[4]), max(acc[5][0], acc[5][1], acc[5][2], acc[5][3])})
		p.norms = p.norms.merge(norms{hsum(acc[1]), hsum(acc[2]), hsum(acc[3])})
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
	// Two sets of norms, for even and odd elements, so that the
	// additions of one element do not wait for the previous one's.
	var ds diffs
	var ns0, ns1 norms
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
		ds = ds.add(x0, y0)
		ns0 = ns0.add(x0, y0)
		x1 := float64(math.Float32frombits(wa &^ 0xffff))
		y1 := float64(math.Float32frombits(wb &^ 0xffff))
		ds = ds.add(x1, y1)
		ns1 = ns1.add(x1, y1)
	}
	p.finite += uint64(n / 2)
	p.diffs = p.diffs.merge(ds)
	p.norms = p.norms.merge(ns0.merge(ns1))
	return n
}

// hsum is the sum of an AVX2 accumulator's lanes, in pairs.
func hsum(v [4]float64) float64 { return (v[0] + v[1]) + (v[2] + v[3]) }

func bf16(b []byte) float64 {
	return float64(math.Float32frombits(uint32(b[0])<<16 | uint32(b[1])<<24))
}
