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

// memCache is an LRU of chunks bounded by the sum of their lengths. The
// slices it holds are never written after they are put.
type memCache struct {
	mu    sync.Mutex
	limit int64
	size  int64
	lru   *list.List // of *memEntry, most recent at the front
	items map[chunkKey]*list.Element
}

type memEntry struct {
	key  chunkKey
	data []byte
}

func newMemCache(limit int64) *memCache {
	return &memCache{limit: limit, lru: list.New(), items: map[chunkKey]*list.Element{}}
}

func (c *memCache) get(k chunkKey) []byte {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*memEntry).data
	}
	return nil
}

func (c *memCache) put(k chunkKey, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if int64(len(data)) > c.limit {
		return
	}
	if e, ok := c.items[k]; ok {
		c.lru.MoveToFront(e)
		return
	}
	c.items[k] = c.lru.PushFront(&memEntry{key: k, data: data})
	c.size += int64(len(data))
	for c.size > c.limit {
		back := c.lru.Back()
		ent := back.Value.(*memEntry)
		c.lru.Remove(back)
		delete(c.items, ent.key)
		c.size -= int64(len(ent.data))
	}
}

// remove drops chunk k if it is cached.
func (c *memCache) remove(k chunkKey) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.lru.Remove(e)
		delete(c.items, k)
		c.size -= int64(len(e.Value.(*memEntry).data))
	}
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
