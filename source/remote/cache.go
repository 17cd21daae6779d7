package remote

import (
	"container/list"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"sync"
)

// chunkKey names one chunk of one version of one file: version is a hash
// of the URL, the ETag, the size and the chunk size, so chunks of a file
// replaced on the server are never taken for the new file's.
type chunkKey struct {
	version string
	index   int64
}

// memCache is an LRU of chunks bounded by the sum of their lengths. It
// holds a reference to each buf it keeps; the bufs are never written
// while referenced.
type memCache struct {
	mu    sync.Mutex
	limit int64
	size  int64
	lru   *list.List // of *memEntry, most recent at the front
	items map[chunkKey]*list.Element
}

type memEntry struct {
	key chunkKey
	buf *buf
}

func newMemCache(limit int64) *memCache {
	return &memCache{limit: limit, lru: list.New(), items: map[chunkKey]*list.Element{}}
}

// get returns chunk k with a reference the caller must release, or nil.
func (c *memCache) get(k chunkKey) *buf {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*memEntry).buf.ref()
	}
	return nil
}

// has reports whether chunk k is cached.
func (c *memCache) has(k chunkKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[k]
	return ok
}

// put keeps b (with a reference of its own) as chunk k, unless k is
// cached already or b is larger than the cache.
func (c *memCache) put(k chunkKey, b *buf) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if int64(len(b.data)) > c.limit {
		return
	}
	if e, ok := c.items[k]; ok {
		c.lru.MoveToFront(e)
		return
	}
	c.items[k] = c.lru.PushFront(&memEntry{key: k, buf: b.ref()})
	c.size += int64(len(b.data))
	for c.size > c.limit {
		c.dropLocked(c.lru.Back())
	}
}

// remove drops chunk k if it is cached.
func (c *memCache) remove(k chunkKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.dropLocked(e)
	}
}

func (c *memCache) dropLocked(e *list.Element) {
	ent := e.Value.(*memEntry)
	c.lru.Remove(e)
	delete(c.items, ent.key)
	c.size -= int64(len(ent.buf.data))
	ent.buf.release()
}

// bytes returns the cache's current size.
func (c *memCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
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
