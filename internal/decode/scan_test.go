package decode

import (
	"context"
	"crypto/sha256"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// TestScanSHA256SlowClaimant stalls the worker that claimed chunk 0 (the
// first the digest needs) until every other worker waits for a buffer:
// the scan must still finish. Buffers taken by chunks after 0 are freed
// only once chunk 0 is hashed, so a design where the stalled worker's
// buffer can be taken by the others deadlocks here; the deadline turns
// that hang into a failure with the goroutines' stacks.
func TestScanSHA256SlowClaimant(t *testing.T) {
	const workers, chunk, chunks = 4, 256, 64
	raw := randBytes(rand.New(rand.NewPCG(3, 4)), chunk*chunks)
	tt := testmodel.MemTensor("x", tensor.BF16, []uint64{uint64(len(raw) / 2)}, raw)

	var mu sync.Mutex
	waiting := map[int]bool{}
	othersWait := make(chan struct{})
	released := false
	stalled := -1
	testHookClaimed = func(w int, c int64) {
		if c == 0 {
			mu.Lock()
			stalled = w
			mu.Unlock()
			<-othersWait
		}
	}
	testHookBufferWait = func(w int) {
		mu.Lock()
		defer mu.Unlock()
		if released || w == stalled {
			return
		}
		waiting[w] = true
		if len(waiting) == workers-1 {
			released = true
			close(othersWait)
		}
	}
	t.Cleanup(func() { testHookClaimed, testHookBufferWait = nil, nil })

	type result struct {
		s   *Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Scan(context.Background(), tt, &ScanOptions{ChunkBytes: chunk, Workers: workers, SHA256: true})
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		require.NoError(t, r.err)
		want := sha256.Sum256(raw)
		assert.Equal(t, want[:], r.s.SHA256)
	case <-time.After(time.Minute):
		buf := make([]byte, 1<<20)
		t.Fatalf("the scan deadlocked:\n%s", buf[:runtime.Stack(buf, true)])
	}
}
