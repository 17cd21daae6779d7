package decode

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A computed decoder's values come from its function, by flat index; it
// scans (statistics, histogram) like a stored tensor, and refuses what
// needs bytes.
func TestComputed(t *testing.T) {
	fn := func(start uint64, dst []float32) error {
		for i := range dst {
			dst[i] = float32(start + uint64(i))
		}
		return nil
	}
	d, err := NewComputed("delta", []uint64{300, 7}, fn)
	require.NoError(t, err)
	assert.True(t, d.Computed())
	assert.True(t, d.Dequantized())
	assert.Equal(t, []uint64{300, 7}, d.Shape())
	v := make([]float64, 3)
	require.NoError(t, d.Float64(100, v))
	assert.Equal(t, []float64{100, 101, 102}, v)
	assert.Error(t, d.Float32(2099, make([]float32, 2)), "past the end")

	s, err := d.Scan(context.Background(), &ScanOptions{HistBins: 4})
	require.NoError(t, err)
	assert.Equal(t, uint64(2100), s.Count)
	assert.Equal(t, 0.0, s.Min)
	assert.Equal(t, 2099.0, s.Max)
	assert.InDelta(t, 1049.5, s.Mean, 1e-9)
	require.NotNil(t, s.Hist)
	assert.Equal(t, uint64(2100), s.Hist.Counts[0]+s.Hist.Counts[1]+s.Hist.Counts[2]+s.Hist.Counts[3])

	_, err = d.Raw(0, 7)
	assert.ErrorIs(t, err, ErrUnsupported)
	_, err = d.Scan(context.Background(), &ScanOptions{SHA256: true})
	assert.ErrorIs(t, err, ErrUnsupported)

	boom := errors.New("boom")
	e, err := NewComputed("bad", []uint64{4}, func(uint64, []float32) error { return boom })
	require.NoError(t, err)
	_, err = e.Scan(context.Background(), nil)
	assert.ErrorIs(t, err, boom)

	_, err = NewComputed("huge", []uint64{math.MaxUint32, math.MaxUint32, 4}, fn)
	assert.Error(t, err)
}
