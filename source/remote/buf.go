package remote

import (
	"log"
	"sync"
	"sync/atomic"
	"testing"
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
	slab *slab    // where data lives, nil for the Go heap
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
// pool. A release past zero is a bug (see misuse).
func (b *buf) release() {
	n := b.refs.Add(-1)
	if n < 0 {
		overReleased.Add(1)
		misuse("a chunk buffer released more often than it was referenced")
		return
	}
	if n == 0 && b.pool != nil {
		b.pool.put(b)
	}
}

// bytes returns the chunk's bytes to a holder of a reference. Reading a
// buf without one is a bug (see misuse): its array may already hold
// another chunk.
func (b *buf) bytes() []byte {
	if b.refs.Load() <= 0 {
		misuse("a chunk buffer used after its last release")
	}
	return b.data
}

// overReleased counts releases past zero, which are bugs: tests check it
// stays 0.
var overReleased atomic.Int64

// strictBufs makes a misuse of a buf panic: in tests, and in a build with
// -tags debugbuf (debugbuf.go).
var strictBufs = debugBuf || testing.Testing()

// misuseLogged makes production log a misuse once.
var misuseLogged sync.Once

// misuse reports a broken reference-counting rule, which could serve one
// chunk's bytes for another: a panic in tests and debugbuf builds, where
// the stack finds the culprit; in production one log line, the first time,
// and the read goes on (it may be wrong, but the daemon stays up).
func misuse(what string) {
	if strictBufs {
		panic("remote: " + what)
	}
	misuseLogged.Do(func() { log.Printf("remote: internal error, please report: %s (logged once)", what) })
}

// bufPool keeps the arrays of released full-size chunks for reuse. It
// makes a new array only when none is free, so the arrays it has are
// what a stream needs in flight at once (bounded by the caches, the
// readahead and the disk queue); unlike a sync.Pool it keeps them across
// collections, and gives them back only when the daemon is idle
// ([bufPool.trim]). Its arrays live in huge-page slabs ([slab]), or on
// the Go heap in race-detector builds (so that the detector sees every
// access to them) and where the system refuses a slab.
type bufPool struct {
	size     int64
	heapOnly bool // no slabs: a race-detector build

	mu    sync.Mutex
	free  []*buf
	slabs int // slabs mapped (for tests)
	// out counts the bufs taken and not yet returned (for tests).
	out atomic.Int64
	// recycle, if not nil, sees each array as it returns: tests poison it,
	// so that a reader still using it reads garbage and fails.
	recycle func([]byte)
}

func newBufPool(size int64) *bufPool { return &bufPool{size: size, heapOnly: raceBuild} }

// get returns a buf of n bytes with one reference: from the pool when n
// is the full chunk size, otherwise a fresh one that is never reused.
func (p *bufPool) get(n int64) *buf {
	if n != p.size {
		return newBuf(make([]byte, n))
	}
	p.out.Add(1)
	p.mu.Lock()
	if len(p.free) == 0 {
		p.growLocked()
	}
	k := len(p.free) - 1
	b := p.free[k]
	p.free[k] = nil
	p.free = p.free[:k]
	if b.slab != nil {
		b.slab.free--
	}
	p.mu.Unlock()
	b.refs.Store(1)
	return b
}

// growLocked adds a slab's arrays to the free list, or one array of the
// Go heap.
func (p *bufPool) growLocked() {
	if !p.heapOnly {
		if s := mapSlab(p.size); s != nil {
			p.slabs++
			for i := range s.n {
				p.free = append(p.free, &buf{data: s.array(i, p.size), pool: p, slab: s})
			}
			s.free = s.n
			return
		}
	}
	p.free = append(p.free, &buf{data: make([]byte, p.size), pool: p})
}

func (p *bufPool) put(b *buf) {
	p.out.Add(-1)
	if p.recycle != nil {
		p.recycle(b.data)
	}
	p.mu.Lock()
	p.free = append(p.free, b)
	if b.slab != nil {
		b.slab.free++
	}
	p.mu.Unlock()
}

// trim gives back what the free list holds: the Go heap's arrays to the
// collector, and every slab all of whose arrays are free to the system.
// Arrays of a slab partly in use stay free for reuse.
func (p *bufPool) trim() {
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.free[:0]
	for _, b := range p.free {
		switch {
		case b.slab == nil:
		case b.slab.free < b.slab.n:
			kept = append(kept, b)
		case b.slab.mem != nil:
			b.slab.unmap()
			p.slabs--
		}
	}
	clear(p.free[len(kept):])
	p.free = kept
}

// releaseAll releases every buf of bs that is not nil.
func releaseAll(bs []*buf) {
	for _, b := range bs {
		if b != nil {
			b.release()
		}
	}
}
