package remote

import (
	"sync"
	"sync/atomic"
)

// buf is one chunk's bytes, shared by whoever holds a reference: the call
// that fetched it (until its last waiter has it), the memory cache, the
// disk cache's writer, and each reader while it copies out. A full-size
// buf's array goes back to its pool when the last reference is released,
// so that streaming a tensor reuses a few arrays instead of faulting in
// fresh pages for every chunk (a fifth of the daemon's time otherwise).
//
// The rule that keeps reuse safe: a reference is taken only while
// another one is held and cannot be released meanwhile (under the lock
// of the cache or call that holds it), and every reference taken is
// released exactly once, after its holder's last access to data.
type buf struct {
	data []byte
	refs atomic.Int32
	pool *bufPool // nil: never reused (a short chunk, a pinned head)
}

// newBuf wraps data, not to be reused, with one reference.
func newBuf(data []byte) *buf {
	b := &buf{data: data}
	b.refs.Store(1)
	return b
}

// ref takes one more reference to b and returns it.
func (b *buf) ref() *buf {
	b.refs.Add(1)
	return b
}

// release gives back one reference; the last one returns the array to its
// pool.
func (b *buf) release() {
	n := b.refs.Add(-1)
	if n < 0 {
		overReleased.Add(1)
		return
	}
	if n == 0 && b.pool != nil {
		b.pool.put(b)
	}
}

// overReleased counts releases past zero, which are bugs: tests check it
// stays 0.
var overReleased atomic.Int64

// bufPool keeps the arrays of released full-size chunks for reuse, up
// to a bound. Unlike a sync.Pool it keeps them across collections: a
// stream allocates its pipeline's worth of arrays once, not after every
// collection (about twenty during a 300 MB first read), and the daemon
// gives them back when it is idle ([bufPool.trim]).
type bufPool struct {
	size int64
	max  int // arrays kept at most

	mu   sync.Mutex
	free []*buf
	// out counts the bufs taken and not yet returned (for tests).
	out atomic.Int64
	// recycle, if not nil, sees each array as it returns: tests poison it,
	// so that a reader still using it reads garbage and fails.
	recycle func([]byte)
}

// poolBytes bounds the arrays a pool keeps: what a stream has in flight,
// the readahead, the memory cache's lag and the disk queue, at the
// default sizes.
const poolBytes = 96 << 20

func newBufPool(size int64) *bufPool {
	return &bufPool{size: size, max: int(max(poolBytes/size, 1))}
}

// get returns a buf of n bytes with one reference: from the pool when n
// is the full chunk size, otherwise a fresh one that is never reused.
func (p *bufPool) get(n int64) *buf {
	if n != p.size {
		return newBuf(make([]byte, n))
	}
	p.out.Add(1)
	var b *buf
	p.mu.Lock()
	if k := len(p.free); k > 0 {
		b = p.free[k-1]
		p.free[k-1] = nil
		p.free = p.free[:k-1]
	}
	p.mu.Unlock()
	if b == nil {
		b = &buf{data: make([]byte, n), pool: p}
	}
	b.refs.Store(1)
	return b
}

func (p *bufPool) put(b *buf) {
	p.out.Add(-1)
	if p.recycle != nil {
		p.recycle(b.data)
	}
	p.mu.Lock()
	if len(p.free) < p.max {
		p.free = append(p.free, b)
	}
	p.mu.Unlock()
}

// trim lets the collector have the arrays kept.
func (p *bufPool) trim() {
	p.mu.Lock()
	p.free = nil
	p.mu.Unlock()
}

// releaseAll releases every buf of bs that is not nil.
func releaseAll(bs []*buf) {
	for _, b := range bs {
		if b != nil {
			b.release()
		}
	}
}
