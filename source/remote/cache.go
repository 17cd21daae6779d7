package remote

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"

	"github.com/fsmount/fsmount/internal/lru"
)

// chunkKey names one chunk of one version of one file: version is a hash
// of the URL, the ETag, the size and the chunk size, so chunks of a file
// replaced on the server are never taken for the new file's.
type chunkKey struct {
	version string
	index   int64
}

// memCache is an LRU of chunks bounded by the sum of their lengths. It
// holds a reference to each buf it keeps, released when the chunk is
// dropped; the bufs are never written while referenced.
type memCache struct {
	mu    sync.Mutex
	limit int64
	lru   lru.Cache[chunkKey, *buf]
}

func newMemCache(limit int64) *memCache {
	c := &memCache{limit: limit}
	c.lru.Max = limit
	c.lru.Cost = func(b *buf) int64 { return int64(len(b.data)) }
	c.lru.Evicted = func(_ chunkKey, b *buf) { b.release() }
	return c
}

// get returns chunk k with a reference the caller must release, or nil.
func (c *memCache) get(k chunkKey) *buf {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.lru.Get(k); ok {
		return b.ref()
	}
	return nil
}

// has reports whether chunk k is cached.
func (c *memCache) has(k chunkKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Contains(k)
}

// put keeps b (with a reference of its own) as chunk k, unless k is
// cached already or b is larger than the cache. It reports whether the
// cache has chunk k now.
func (c *memCache) put(k chunkKey, b *buf) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if int64(len(b.data)) > c.limit {
		return false
	}
	if _, ok := c.lru.Get(k); ok {
		return true
	}
	c.lru.Add(k, b.ref())
	return true
}

// remove drops chunk k if it is cached.
func (c *memCache) remove(k chunkKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.lru.Remove(k); ok {
		b.release()
	}
}

// bytes returns the cache's current size.
func (c *memCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Used()
}

// versionOf hashes what identifies one version of a file's chunks.
func versionOf(url, etag string, size, chunk int64) string {
	h := sha256.New()
	for _, s := range []string{url, etag, strconv.FormatInt(size, 10), strconv.FormatInt(chunk, 10)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}
