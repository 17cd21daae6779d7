package pytorch

import (
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/fsmount/fsmount/source"
)

// strided is the row-major bytes of a non-contiguous tensor (a transposed
// weight, a view) as a file of its own, computed on read: a
// [source.File] of exactly numel × element-size bytes. The storage bytes
// the tensor reaches are read once, on the first read, and kept while
// the file is open; a contiguous tensor never needs this.
type strided struct {
	base    source.File
	off     int64 // file offset of element 0
	es      uint64
	shape   []uint64
	strides []uint64
	size    int64

	once sync.Once
	data []byte // the tensor, row-major
	err  error
}

// maxStrided bounds the bytes of a non-contiguous tensor kept in memory.
const maxStrided = 4 << 30

func newStrided(base source.File, off int64, es uint64, shape, strides []uint64, numel uint64) *strided {
	return &strided{base: base, off: off, es: es, shape: shape, strides: strides, size: int64(numel * es)}
}

func (s *strided) Name() string       { return s.base.Name() }
func (s *strided) Size() int64        { return s.size }
func (s *strided) ModTime() time.Time { return s.base.ModTime() }
func (s *strided) Mode() fs.FileMode  { return s.base.Mode() }
func (s *strided) Close() error       { return nil } // the base is closed by its owner
func (s *strided) Base() source.File  { return source.BaseOf(s.base) }
func (s *strided) IsRemote() bool     { return source.IsRemote(s.base) }
func (s *strided) Owner() (uint32, uint32) {
	if o, ok := s.base.(source.Owned); ok {
		return o.Owner()
	}
	return 0, 0
}

func (s *strided) ReadAt(p []byte, off int64) (int, error) {
	s.once.Do(s.gather)
	if s.err != nil {
		return 0, s.err
	}
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset", s.base.Name())
	}
	if off >= s.size {
		return 0, io.EOF
	}
	n := copy(p, s.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// gather reads the span of storage the tensor reaches and lays its
// elements out in row-major order.
func (s *strided) gather() {
	if s.size > maxStrided {
		s.err = fmt.Errorf("%s: a non-contiguous tensor of %d bytes, more than the %d gathered in memory", s.base.Name(), s.size, maxStrided)
		return
	}
	span := uint64(1)
	for i, d := range s.shape {
		if d == 0 {
			return
		}
		span += (d - 1) * s.strides[i]
	}
	src := make([]byte, span*s.es)
	if err := readAtFull(s.base, src, s.off); err != nil {
		s.err = err
		return
	}
	s.data = make([]byte, s.size)
	idx := make([]uint64, len(s.shape))
	es := s.es
	for out := uint64(0); out < uint64(s.size); out += es {
		at := uint64(0)
		for i, x := range idx {
			at += x * s.strides[i]
		}
		copy(s.data[out:out+es], src[at*es:at*es+es])
		for i := len(idx) - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < s.shape[i] {
				break
			}
			idx[i] = 0
		}
	}
}

var (
	_ source.File    = (*strided)(nil)
	_ source.Derived = (*strided)(nil)
)
