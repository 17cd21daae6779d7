package safetensors

import (
	"fmt"
	"io"
	"os"

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

// ReadAt implements io.ReaderAt over the mapping.
func (m *mapping) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off > int64(len(m.data)) {
		return 0, fmt.Errorf("read at %d: outside the %d-byte mapping", off, len(m.data))
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *mapping) unmap() error {
	if m.data == nil {
		return nil
	}
	err := unix.Munmap(m.data)
	m.data = nil
	return err
}
