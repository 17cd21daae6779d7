package main

import (
	"bufio"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHugeHeapAdvice: hugeHeap marks ranges of the heap MADV_HUGEPAGE
// (the kernel records the advice as the flag "hg" of the mapping, whether
// or not it can then give huge pages) and its done withdraws it ("nh").
// How many page faults the advice saves depends on the machine (free
// 2 MB pages, other load), so it is measured by the bench ("mount-ready,
// daemon minor page faults" of `go run ./bench -many`), not asserted
// here.
func TestHugeHeapAdvice(t *testing.T) {
	if !thpOnRequest() || strictOvercommit() {
		t.Skip("transparent huge pages are not given on request here")
	}
	if memAvailable()/4 < 4*hugeChunk {
		t.Skip("too little memory available for the block")
	}
	advised := adviseHeap()
	require.NotEmpty(t, advised)
	var total uintptr
	for _, s := range advised {
		assert.Zero(t, s.beg%hugePage, "range %#x-%#x not on a huge page", s.beg, s.end)
		assert.Equal(t, []string{"hg"}, vmFlags(t, s, "hg", "nh"), "range %#x-%#x", s.beg, s.end)
		total += s.end - s.beg
	}
	assert.GreaterOrEqual(t, total, uintptr(hugeChunk), "advised %d bytes", total)
	withdraw(advised)
	for _, s := range advised {
		assert.Equal(t, []string{"nh"}, vmFlags(t, s, "hg", "nh"), "range %#x-%#x after done", s.beg, s.end)
	}
}

// vmFlags returns which of flags the mappings overlapping s have among
// their VmFlags in /proc/self/smaps, each once, in the order given.
func vmFlags(t *testing.T, s span, flags ...string) []string {
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	found := map[string]bool{}
	overlaps := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		if lo, hi, ok := strings.Cut(fields[0], "-"); ok && !strings.HasSuffix(fields[0], ":") {
			b, err1 := strconv.ParseUint(lo, 16, 64)
			e, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				overlaps = uintptr(b) < s.end && s.beg < uintptr(e)
			}
			continue
		}
		if fields[0] == "VmFlags:" && overlaps {
			for _, fl := range fields[1:] {
				found[fl] = true
			}
		}
	}
	require.NoError(t, sc.Err())
	var got []string
	for _, fl := range flags {
		if found[fl] {
			got = append(got, fl)
		}
	}
	return slices.Clip(got)
}

func TestMemAvailable(t *testing.T) {
	assert.Greater(t, memAvailable(), 1<<20)
}
