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
