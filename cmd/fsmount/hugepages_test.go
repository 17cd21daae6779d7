package main

import (
	"runtime"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHugeHeap: after hugeHeap, memory the heap grows into is first
// touched in 2 MB pages: 64 MB cost a few dozen page faults, not 16,384
// (without the advice every 4 KB page is one). Where the kernel gives
// huge pages to no one, or to everyone, there is nothing to test.
func TestHugeHeap(t *testing.T) {
	if !thpOnRequest() || strictOvercommit() {
		t.Skip("transparent huge pages are not given on request here")
	}
	if raceBuild {
		t.Skip("the race detector's shadow memory faults in 4 KB pages")
	}
	done := hugeHeap()
	defer done()
	before := minorFaults(t)
	b := make([]byte, 64<<20)
	for i := 0; i < len(b); i += 4096 {
		b[i] = 1
	}
	faults := minorFaults(t) - before
	assert.Less(t, faults, int64(len(b)/4096/8), "first touch of %d MB: %d faults", len(b)>>20, faults)
}

// TestHugeHeapAfterGarbage: where the pages at the heap's end were used
// and freed before (the packages' initialization leaves such garbage),
// hugeHeap does not touch the whole block: one allocation of it was then
// zeroed whole, 262,144 faults of 4 KB for 1 GiB.
func TestHugeHeapAfterGarbage(t *testing.T) {
	if !thpOnRequest() || strictOvercommit() {
		t.Skip("transparent huge pages are not given on request here")
	}
	if raceBuild {
		t.Skip("the race detector's shadow memory faults in 4 KB pages")
	}
	garbage := make([][]byte, 64)
	for i := range garbage {
		garbage[i] = make([]byte, 128<<10)
		garbage[i][0] = 1
	}
	garbage = nil
	runtime.GC()
	before := minorFaults(t)
	done := hugeHeap()
	defer done()
	faults := minorFaults(t) - before
	assert.Less(t, faults, int64(64<<20/4096), "hugeHeap touched %d pages", faults)
}

func minorFaults(t *testing.T) int64 {
	var ru syscall.Rusage
	require.NoError(t, syscall.Getrusage(syscall.RUSAGE_SELF, &ru))
	return ru.Minflt
}

func TestMemAvailable(t *testing.T) {
	assert.Greater(t, memAvailable(), 1<<20)
}
