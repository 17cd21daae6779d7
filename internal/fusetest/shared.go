package fusetest

import (
	"bytes"
	"net"
	"runtime"
	"sync"
)

// BytesAllocated is what fn allocates, the least of n runs (n at least 1;
// a run may meet a collection that empties a pool fn draws from, and -race
// drops some of what is put in a pool).
func BytesAllocated(n int, fn func()) uint64 {
	least := ^uint64(0)
	for range max(n, 1) {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		fn()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}

// SyncBuffer collects what a process or a daemon writes (its log, its
// output) for a test that reads it meanwhile. Max, if above 0, is how
// many bytes it keeps; what comes after is dropped.
type SyncBuffer struct {
	Max int

	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.Max > 0 && b.buf.Len() > b.Max {
		return len(p), nil
	}
	return b.buf.Write(p)
}

// String returns what was written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// FreePort returns a port of 127.0.0.1 that was free a moment ago, for a
// server (nginx, weed) that cannot be told to pick one itself.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
