package pytorch

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"sync"
	"time"

	"github.com/fsmount/fsmount/internal/lru"
	"github.com/fsmount/fsmount/source"
)

// strided is the row-major bytes of a non-contiguous tensor (a transposed
// weight, a view) as a file of its own, computed on read: a
// [source.File] of exactly numel × element-size bytes. The storage bytes
// the tensor reaches are read and laid out on a read, and kept in its
// file's [gathered] views, evicted when they need the room; a
// contiguous tensor never needs this.
type strided struct {
	base    source.File
	g       *gathered
	off     int64 // file offset of element 0
	es      uint64
	shape   []uint64
	strides []uint64
	size    int64
	span    int64 // bytes of storage the tensor reaches

	// guarded by g.mu
	err       error // a failed gather, for good
	gathering bool  // a gather of this tensor is under way
}

// maxStrided bounds the bytes of a non-contiguous tensor kept in memory.
const maxStrided = 4 << 30

// gathered is the non-contiguous tensors of one file laid out in memory,
// under one budget of four times the file's size (at most maxStrided):
// a view has no more elements than its storage holds (an expanded view
// is refused), so the largest fits with room for the others being read
// at the same time (a scan's workers, a mount's readers), and however
// many views a file makes of one storage they hold no more than that
// between them. A gather under
// way counts its storage span and its tensor against the budget too;
// the least recently read views are evicted to make room, and are
// gathered again when read again.
type gathered struct {
	mu       sync.Mutex
	room     sync.Cond // signalled when a gather ends
	max      int64
	inflight int64 // bytes of the gathers under way
	views    lru.Cache[*strided, []byte]
}

func newGathered(fileSize int64) *gathered {
	g := &gathered{max: max(min(4*fileSize, maxStrided), 1)}
	g.room.L = &g.mu
	g.views.Max = g.max
	g.views.Cost = func(b []byte) int64 { return int64(len(b)) }
	return g
}

// get returns the row-major bytes of s, gathering them if they are not
// held.
func (g *gathered) get(s *strided) (data []byte, err error) {
	need := s.size + s.span
	g.mu.Lock()
	for {
		if s.err != nil {
			g.mu.Unlock()
			return nil, s.err
		}
		if b, ok := g.views.Get(s); ok {
			g.mu.Unlock()
			return b, nil
		}
		if !s.gathering && g.views.Used()+g.inflight+need <= g.max {
			break
		}
		if !s.gathering && g.views.Len() > 0 {
			g.views.RemoveOldest()
			continue
		}
		if !s.gathering && g.inflight == 0 {
			break // s alone is past the budget: it is gathered by itself
		}
		g.room.Wait() // for s, gathered by another reader, or for room
	}
	g.inflight += need
	s.gathering = true
	g.mu.Unlock()
	done := false
	defer func() {
		// Also when gather panics: the budget and the waiters are
		// released, and the panic goes on.
		g.mu.Lock()
		g.inflight -= need
		s.gathering = false
		switch {
		case !done:
		case err != nil:
			s.err = err
		default:
			g.views.Add(s, data)
		}
		g.room.Broadcast()
		g.mu.Unlock()
	}()
	data, err = s.gather()
	done = true
	return data, err
}

func newStrided(base source.File, g *gathered, off int64, es uint64, shape, strides []uint64, numel uint64) *strided {
	span := uint64(1)
	for i, d := range shape {
		if d == 0 {
			span = 0
			break
		}
		span += (d - 1) * strides[i]
	}
	return &strided{base: base, g: g, off: off, es: es, shape: shape, strides: strides, size: int64(numel * es), span: int64(span * es)}
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
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset", s.base.Name())
	}
	if off >= s.size {
		return 0, io.EOF
	}
	data, err := s.g.get(s)
	if err != nil {
		return 0, err
	}
	return bytes.NewReader(data).ReadAt(p, off)
}

// gather reads the span of storage the tensor reaches and lays its
// elements out in row-major order.
func (s *strided) gather() ([]byte, error) {
	if s.size > maxStrided {
		return nil, fmt.Errorf("%s: a non-contiguous tensor of %d bytes, more than the %d gathered in memory", s.base.Name(), s.size, maxStrided)
	}
	src := make([]byte, s.span)
	if err := readAtFull(s.base, src, s.off); err != nil {
		return nil, err
	}
	data := make([]byte, s.size)
	// Row by row of the last dimension: the row's start from the other
	// indices, then its elements a stride apart (a run, when 1).
	last := len(s.shape) - 1
	if last < 0 {
		copy(data, src)
		return data, nil
	}
	idx := make([]uint64, last)
	es, n, stride := s.es, s.shape[last], s.strides[last]
	rowBytes := n * es
	for out := uint64(0); out < uint64(s.size); out += rowBytes {
		at := uint64(0)
		for i, x := range idx {
			at += x * s.strides[i]
		}
		row := data[out : out+rowBytes]
		if stride == 1 {
			copy(row, src[at*es:])
		} else {
			for j := uint64(0); j < n; j++ {
				a := (at + j*stride) * es
				copy(row[j*es:j*es+es], src[a:a+es])
			}
		}
		for i := last - 1; i >= 0; i-- {
			idx[i]++
			if idx[i] < s.shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return data, nil
}

var (
	_ source.File    = (*strided)(nil)
	_ source.Derived = (*strided)(nil)
)
