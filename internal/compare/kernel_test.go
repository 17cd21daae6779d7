package compare

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAgainstItself reduces values against themselves through both
// kernels: the difference is exactly 0 and the cosine exactly 1.
func TestAgainstItself(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	raw := make([]byte, 2*10001)
	vals := make([]float64, 10001)
	for i := range vals {
		x := float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(20)-10)))
		binary.LittleEndian.PutUint16(raw[2*i:], uint16(math.Float32bits(x)>>16))
		vals[i] = bf16(raw[2*i:])
	}
	var p, q partial
	p.reduceBF16(raw, raw)
	q.reduce64(vals, vals)
	for _, s := range []partial{p, q} {
		assert.Equal(t, 0.0, s.sdd)
		assert.Equal(t, 0.0, s.max)
		assert.Equal(t, uint64(0), s.differ)
		assert.Equal(t, uint64(len(vals)), s.finite)
		e := finish(&Entry{}, &pair{}, &work{parts: []partial{s}})
		assert.Equal(t, Equal, e.Status)
		assert.Equal(t, 0.0, float64(e.RelL2))
		assert.Equal(t, 1.0, float64(e.Cosine))
	}
	assert.InEpsilon(t, p.saa, q.saa, 1e-14) // summed in another order
}

func BenchmarkKernelBF16(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := make([]byte, 2<<20), make([]byte, 2<<20)
	for i := 0; i < len(x); i += 2 {
		v := float32(rng.NormFloat64() * 0.02)
		binary.LittleEndian.PutUint16(x[i:], uint16(math.Float32bits(v)>>16))
		binary.LittleEndian.PutUint16(y[i:], uint16(math.Float32bits(v*float32(1+rng.NormFloat64()*0.01))>>16))
	}
	b.SetBytes(int64(2 * len(x)))
	for _, k := range []struct {
		name string
		avx2 bool
	}{{"kernel", true}, {"scalar", false}} {
		b.Run(k.name, func(b *testing.B) {
			if k.avx2 && !haveAVX2 {
				b.Skip("no AVX2 kernel here (not amd64, -tags purego, or the CPU lacks it)")
			}
			useAVX2 = k.avx2
			defer func() { useAVX2 = true }()
			b.SetBytes(int64(2 * len(x)))
			for b.Loop() {
				var p partial
				p.reduceBF16(x, y)
			}
		})
	}
}

// TestAVX2 checks the AVX2 kernel against the scalar one on values with
// NaNs, infinities, zeros of both signs and subnormals, at every length
// up to 100 pairs and at 100,003.
func TestAVX2(t *testing.T) {
	if !haveAVX2 {
		t.Skip("SKIPPING: no AVX2")
	}
	rng := rand.New(rand.NewPCG(7, 8))
	special := []uint16{0x7fc0, 0x7f80, 0xff80, 0x0000, 0x8000, 0x0001, 0x807f, 0x7f7f}
	gen := func(n int) ([]byte, []byte) {
		a, b := make([]byte, 2*n), make([]byte, 2*n)
		for i := range n {
			u := uint16(math.Float32bits(float32(rng.NormFloat64())) >> 16)
			v := u
			switch rng.IntN(10) {
			case 0:
				v = special[rng.IntN(len(special))]
			case 1:
				u = special[rng.IntN(len(special))]
			case 2, 3, 4:
				v = u + uint16(rng.IntN(3))
			}
			binary.LittleEndian.PutUint16(a[2*i:], u)
			binary.LittleEndian.PutUint16(b[2*i:], v)
		}
		return a, b
	}
	for _, n := range append(seq(100), 100003) {
		a, b := gen(n)
		var fast, slow partial
		fast.reduceBF16(a, b)
		useAVX2 = false
		slow.reduceBF16(a, b)
		useAVX2 = true
		assert.Equal(t, slow.finite, fast.finite, n)
		assert.Equal(t, slow.differ, fast.differ, n)
		assert.Equal(t, slow.mismatch, fast.mismatch, n)
		assert.Equal(t, slow.max, fast.max, n)
		for _, x := range [][2]float64{{slow.sdd, fast.sdd}, {slow.saa, fast.saa}, {slow.sbb, fast.sbb}, {slow.sab, fast.sab}, {slow.sabs, fast.sabs}} {
			assert.InDelta(t, x[0], x[1], 1e-12*math.Abs(x[0]), n)
		}
	}
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// BenchmarkKernel64 is the path of pairs of other types (BF16 against
// F32, say): values decoded to float64 blocks, then reduced.
func BenchmarkKernel64(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, y := make([]float64, block), make([]float64, block)
	for i := range x {
		x[i] = rng.NormFloat64()
		y[i] = x[i] * (1 + rng.NormFloat64()*0.01)
	}
	b.SetBytes(int64(16 * len(x)))
	for b.Loop() {
		var p partial
		p.reduce64(x, y)
	}
}
