package render

import (
	"context"
	"errors"
	"io"
	"sync"

	"github.com/fsmount/fsmount/internal/lru"
	"github.com/fsmount/fsmount/internal/views"
)

// DefaultCacheBytes is the bound of a cache made with a size of 0.
const DefaultCacheBytes = 64 << 20

// Cache keeps rendered files (pictures, pages), least recently used
// first out, up to a bound on their total bytes. A file larger than the
// bound is rendered for the read that needs it and not kept. It is safe
// for concurrent use.
type Cache struct {
	mu  sync.Mutex
	lru lru.Cache[*Lazy, []byte]
}

// NewCache returns a cache of at most maxBytes (DefaultCacheBytes if 0).
func NewCache(maxBytes int64) *Cache {
	if maxBytes <= 0 {
		maxBytes = DefaultCacheBytes
	}
	c := &Cache{}
	c.lru.Max, c.lru.Cost = maxBytes, func(b []byte) int64 { return int64(len(b)) }
	return c
}

// Used returns the bytes held.
func (c *Cache) Used() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Used()
}

func (c *Cache) get(k *Lazy) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, _ := c.lru.Get(k)
	return b
}

func (c *Cache) put(k *Lazy, b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Add(k, b)
}

// Lazy is a file of a size fixed beforehand whose bytes are rendered on
// the first read and kept in a [Cache]; reads at any offset are served
// from them. Concurrent first reads share one rendering.
type Lazy struct {
	size   int64
	render func(ctx context.Context) ([]byte, error)
	cache  *Cache
	mu     sync.Mutex // held while rendering
}

// ErrBadOffset is returned for a negative read offset.
var ErrBadOffset = errors.New("render: negative offset")

// errSize is returned when rendering produced a size other than the one
// announced (a bug).
var errSize = errors.New("render: rendered size differs from the size announced")

// NewLazy returns a file of size bytes that render produces, cached in c
// (a cache of its own of DefaultCacheBytes if c is nil).
func NewLazy(size int64, c *Cache, render func(ctx context.Context) ([]byte, error)) *Lazy {
	if c == nil {
		c = NewCache(0)
	}
	return &Lazy{size: size, render: render, cache: c}
}

// Size returns the file's size, known without rendering.
func (l *Lazy) Size() int64 { return l.size }

// Bytes returns the whole file, rendering it if it is not cached.
func (l *Lazy) Bytes(ctx context.Context) ([]byte, error) {
	if b := l.cache.get(l); b != nil {
		return b, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.cache.get(l); b != nil {
		return b, nil
	}
	b, err := l.render(ctx)
	if err != nil {
		return nil, err
	}
	if int64(len(b)) != l.size {
		return nil, errSize
	}
	l.cache.put(l, b)
	return b, nil
}

// ReadAt reads as io.ReaderAt does: a read reaching the end returns the
// bytes there and io.EOF.
func (l *Lazy) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, ErrBadOffset
	}
	if off >= l.size {
		return 0, io.EOF
	}
	if len(p) == 0 {
		return 0, nil
	}
	b, err := l.Bytes(context.Background())
	if err != nil {
		return 0, err
	}
	return views.ReadBytes(b, p, off)
}
