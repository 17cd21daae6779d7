package par_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/par"
)

func TestEachBoundAndErrors(t *testing.T) {
	var running, peak atomic.Int32
	errs := par.Each(50, 4, func(i int) error {
		n := running.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		defer running.Add(-1)
		if i%7 == 0 {
			return fmt.Errorf("item %d", i)
		}
		return nil
	})
	require.Len(t, errs, 50)
	for i, err := range errs {
		if i%7 == 0 {
			assert.EqualError(t, err, fmt.Sprintf("item %d", i))
		} else {
			assert.NoError(t, err)
		}
	}
	assert.LessOrEqual(t, peak.Load(), int32(4))
	assert.Empty(t, par.Each(0, 0, func(int) error { panic("no item") }))
}

func TestDo(t *testing.T) {
	const n, workers = 1000, 3
	var mu sync.Mutex
	seen := map[int]int{}
	perWorker := make([]int, workers)
	require.NoError(t, par.Do(context.Background(), workers, n, func(_ context.Context, w, i int) error {
		perWorker[w]++ // w's own: no lock
		mu.Lock()
		seen[i]++
		mu.Unlock()
		return nil
	}))
	assert.Len(t, seen, n)
	for i := range n {
		assert.Equal(t, 1, seen[i], "item %d", i)
	}
	assert.Equal(t, n, perWorker[0]+perWorker[1]+perWorker[2])
}

func TestDoFirstErrorStops(t *testing.T) {
	bad := errors.New("bad")
	var calls atomic.Int32
	err := par.Do(context.Background(), 2, 1_000_000, func(ctx context.Context, _, i int) error {
		calls.Add(1)
		if i == 10 {
			return bad
		}
		return nil
	})
	assert.ErrorIs(t, err, bad)
	assert.Less(t, calls.Load(), int32(1_000_000), "the claims stop")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = par.Do(ctx, 2, 10, func(context.Context, int, int) error { return nil })
	assert.ErrorIs(t, err, context.Canceled)
}

func TestRangesAndCut(t *testing.T) {
	for _, tt := range []struct{ n, parts int }{{10, 3}, {3, 10}, {0, 2}, {1 << 20, 7}} {
		got := make([][2]int, tt.parts)
		par.Ranges(tt.n, tt.parts, func(w, lo, hi int) { got[w] = [2]int{lo, hi} })
		at := 0
		for w, r := range got {
			assert.Equal(t, at, r[0], "part %d of %v", w, tt)
			assert.LessOrEqual(t, r[1]-r[0], tt.n/tt.parts+1)
			at = r[1]
		}
		assert.Equal(t, tt.n, at)
	}
	// No overflow where i·n does not fit in 64 bits.
	assert.Equal(t, uint64(1<<63), par.Cut(1<<32, 1<<63, 1<<32))
}
