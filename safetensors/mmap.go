package safetensors

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapping is a read-only shared mapping of a whole file.
type mapping struct {
	data []byte
}

func mapFile(f *os.File, size int64) (*mapping, error) {
	if size <= 0 || int64(int(size)) != size {
		return nil, fmt.Errorf("cannot map %d bytes", size)
	}
	data, err := unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	return &mapping{data: data}, nil
}

func (m *mapping) unmap() error {
	if m.data == nil {
		return nil
	}
	err := unix.Munmap(m.data)
	m.data = nil
	return err
}

func (m *mapping) pageRange(data []byte) (uintptr, uintptr) {
	if len(data) == 0 {
		return 0, 0
	}
	page := uintptr(unix.Getpagesize())
	base := uintptr(unsafe.Pointer(unsafe.SliceData(m.data)))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data))) - base
	end := start + uintptr(len(data))
	return start &^ (page - 1), min((end+page-1)&^(page-1), uintptr(len(m.data)))
}

// release drops the process's page-table entries for data, a slice of the
// mapping, so that pages read once do not stay counted in its RSS; the
// pages stay in the page cache.
func (m *mapping) release(data []byte) {
	if start, end := m.pageRange(data); start < end {
		unix.Madvise(m.data[start:end], unix.MADV_DONTNEED)
	}
}
