package remote

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// A slab is an anonymous mapping outside the Go heap, aligned to and a
// multiple of 2 MiB and advised MADV_HUGEPAGE, that a pool carves into
// chunk arrays. Backed by huge pages, a streamed tensor's arrays cost a
// fault per 2 MiB instead of 512, and pinning them for the FUSE reply
// and filling them from the socket walk a page per 2 MiB: daemon CPU
// for a 300 MB first read fell from about 215 to 175 ms. A slab is
// unmapped only when every array of it is back in the pool's free list
// (bufPool.trim), so no reference can outlive its memory.
type slab struct {
	mem  unsafe.Pointer
	size uintptr
	n    int // arrays carved from it
	free int // of them, how many are in the pool's free list
}

const hugePage = 2 << 20

// slabBytes is the size of the slab holding arrays of size bytes: size
// rounded up to whole huge pages.
func slabBytes(size int64) uintptr {
	return (uintptr(size) + hugePage - 1) &^ (hugePage - 1)
}

// mapSlab maps a slab of arrays of size bytes, or returns nil if the
// system refuses (the pool then falls back to the Go heap).
func mapSlab(size int64) *slab {
	want := slabBytes(size)
	// Map a huge page more than wanted and unmap what lies outside the
	// aligned part: mmap aligns to pages only.
	raw, err := unix.MmapPtr(-1, 0, nil, want+hugePage, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil
	}
	head := (hugePage - uintptr(raw)%hugePage) % hugePage
	if head > 0 {
		unix.MunmapPtr(raw, head)
	}
	mem := unsafe.Add(raw, head)
	if tail := hugePage - head; tail > 0 {
		unix.MunmapPtr(unsafe.Add(mem, want), tail)
	}
	s := &slab{mem: mem, size: want, n: int(want / uintptr(size))}
	// Only advice: without huge pages the slab still works.
	unix.Madvise(s.bytes(), unix.MADV_HUGEPAGE)
	return s
}

// bytes returns the whole slab as a slice.
func (s *slab) bytes() []byte { return unsafe.Slice((*byte)(s.mem), s.size) }

// array returns the i-th array of size bytes of the slab.
func (s *slab) array(i int, size int64) []byte {
	return s.bytes()[int64(i)*size : int64(i+1)*size : int64(i+1)*size]
}

// unmap gives the slab back to the system. No array of it may be used
// again.
func (s *slab) unmap() {
	unix.MunmapPtr(s.mem, s.size)
	s.mem = nil
}
