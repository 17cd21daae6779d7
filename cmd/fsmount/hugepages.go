package main

import (
	"bytes"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Mounting a large model allocates hundreds of MB that the daemon then
// touches for the first time (0.45 GB for 500,000 tensors), and on a
// virtual machine each first touch of a 4 KB page is a costly fault:
// 115,000 of them were a third of the daemon's CPU to mount-ready. The
// Go runtime does not ask the kernel for 2 MB pages, and where
// transparent huge pages are "madvise" (the usual default) the kernel
// gives them only to memory that asks. hugeHeap makes the heap the
// mount is about to grow into ask: it allocates a large block, which the
// runtime maps without touching it, marks its range MADV_HUGEPAGE, and
// frees it, so that the mount's allocations reuse that range; a first
// touch then maps 2 MB at once (3,500 faults instead of 115,000).
// Untouched, the block costs no memory, only address space.
//
// The block is allocated in pieces of hugeChunk: the runtime zeroes an
// allocation that reuses any page freed before (the garbage of the
// packages' initialization), and one block starting on such a page was
// zeroed whole, a first touch of 1 GiB in 4 KB pages (2 s of CPU, seen
// once in ten mounts). A piece that reuses freed pages is zeroed alone.
//
// The returned function, called once mounted, withdraws the advice:
// from then on the range is as any other memory, so that the daemon's
// idle release (FreeOSMemory) splits what it frees back to 4 KB pages,
// and khugepaged never collapses a sparse range into a 2 MB page.

// hugeHeapSize is the block hugeHeap advises: above the peak heap of
// mounting 500,000 tensors, and a quarter of the available memory at
// most.
const hugeHeapSize = 1 << 30

// hugeChunk is the piece the block is allocated in.
const hugeChunk = 4 << 20

// hugePage is the size of a transparent huge page on amd64 and arm64
// (with 4 KB base pages).
const hugePage = 2 << 20

func hugeHeap() (done func()) {
	advised := adviseHeap()
	return func() { withdraw(advised) }
}

// withdraw withdraws the advice of adviseHeap.
func withdraw(advised []span) {
	for _, s := range advised {
		madvise(s.beg, s.end-s.beg, unix.MADV_NOHUGEPAGE)
	}
}

// span is a range of addresses, kept as numbers: the pieces of the block
// are freed before the advice is withdrawn.
type span struct{ beg, end uintptr }

// adviseHeap is hugeHeap's advice; it returns the ranges advised.
func adviseHeap() []span {
	if !thpOnRequest() || strictOvercommit() {
		return nil
	}
	n := min(hugeHeapSize, memAvailable()/4) / hugeChunk
	if n < 4 {
		return nil
	}
	var spans []span
	// No collection meanwhile: the pieces are garbage once advised, and
	// one collection (below) frees them all.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	pieces := make([][]byte, n)
	for i := range pieces {
		pieces[i] = make([]byte, hugeChunk)
		lo := uintptr(unsafe.Pointer(unsafe.SliceData(pieces[i])))
		// Adjacent pieces (the usual case) are advised as one range.
		if k := len(spans) - 1; k >= 0 && spans[k].end == lo {
			spans[k].end = lo + hugeChunk
		} else {
			spans = append(spans, span{lo, lo + hugeChunk})
		}
	}
	var advised []span
	for _, s := range spans {
		beg := (s.beg + hugePage - 1) &^ (hugePage - 1)
		end := s.end &^ (hugePage - 1)
		if beg < end && madvise(beg, end-beg, unix.MADV_HUGEPAGE) == nil {
			advised = append(advised, span{beg, end})
		}
	}
	clear(pieces)
	runtime.GC() // frees the pieces for what comes next
	return advised
}

// madvise is madvise(2) on an address range that no Go pointer need
// hold: the block is freed, its range stays the heap's.
func madvise(addr, n uintptr, advice int) error {
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, addr, n, uintptr(advice)); e != 0 {
		return e
	}
	return nil
}

// thpOnRequest reports whether the kernel gives transparent huge pages
// to memory that asks (enabled is "madvise"): with "always" the heap has
// them already, with "never" asking is useless.
func thpOnRequest() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && bytes.Contains(b, []byte("[madvise]"))
}

// strictOvercommit reports whether the kernel counts mapped but untouched
// memory against a limit (vm.overcommit_memory 2): the block would then
// count, and could fail the allocation.
func strictOvercommit() bool {
	b, err := os.ReadFile("/proc/sys/vm/overcommit_memory")
	return err != nil || len(bytes.TrimSpace(b)) != 1 || bytes.TrimSpace(b)[0] == '2'
}

// memAvailable is MemAvailable of /proc/meminfo in bytes, or 0.
func memAvailable() int {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil || kb < 0 || kb > 1<<40 {
				return 0
			}
			return int(kb << 10)
		}
	}
	return 0
}
