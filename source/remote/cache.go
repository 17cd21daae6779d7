package remote

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
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

// bytes returns the cache's current size.
func (c *memCache) bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size
}

// diskCache keeps chunks as files dir/<version>/<index>, each the chunk's
// bytes followed by their CRC-32C, and evicts the least recently used
// chunks to stay within its limit. One diskCache serves each directory
// per process (see [openDiskCache]); recency survives the process as the
// files' modification times, touched on every hit. Other processes sharing the
// directory are tolerated (writes are atomic renames, a vanished or
// corrupt file is a miss) but may make it overshoot until it is next
// opened.
type diskCache struct {
	dir   string
	limit int64

	// Writes go through a bounded queue to one writer, so that reading
	// never waits for the disk; a chunk that finds the queue full is not
	// cached.
	queueOnce sync.Once
	queue     chan pendingChunk
	pending   sync.WaitGroup

	mu    sync.Mutex
	size  int64
	lru   *list.List // of *diskEntry, most recent at the front
	items map[string]*list.Element
}

type diskEntry struct {
	rel  string // version/index
	size int64  // bytes on disk
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var (
	diskCachesMu sync.Mutex
	diskCaches   = map[string]*diskCache{}
)

// openDiskCache returns the process's cache for dir, creating dir and
// indexing what it holds (oldest first by modification time) on first use.
// A later call with another limit lowers or raises the bound.
func openDiskCache(dir string, limit int64) (*diskCache, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	diskCachesMu.Lock()
	defer diskCachesMu.Unlock()
	if c, ok := diskCaches[dir]; ok {
		c.mu.Lock()
		c.limit = limit
		c.evictLocked()
		c.mu.Unlock()
		return c, nil
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	c := &diskCache{dir: dir, limit: limit, lru: list.New(), items: map[string]*list.Element{}}
	type found struct {
		rel   string
		size  int64
		mtime int64
	}
	var files []found
	filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || len(files) >= 1<<20 {
			return nil
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil || strings.HasPrefix(d.Name(), ".tmp") {
			return nil
		}
		if info, err := d.Info(); err == nil {
			files = append(files, found{filepath.ToSlash(rel), info.Size(), info.ModTime().UnixNano()})
		}
		return nil
	})
	slices.SortFunc(files, func(a, b found) int { return int(min(max(a.mtime-b.mtime, -1), 1)) })
	for _, f := range files {
		c.items[f.rel] = c.lru.PushFront(&diskEntry{rel: f.rel, size: f.size})
		c.size += f.size
	}
	c.evictLocked()
	diskCaches[dir] = c
	return c, nil
}

func (k chunkKey) rel() string { return k.version + "/" + strconv.FormatInt(k.index, 10) }

// get returns the chunk if it is cached with want bytes and an intact
// checksum.
func (c *diskCache) get(k chunkKey, want int64) []byte {
	rel := k.rel()
	c.mu.Lock()
	e, ok := c.items[rel]
	if ok {
		c.lru.MoveToFront(e)
	}
	c.mu.Unlock()
	if !ok {
		return nil
	}
	path := filepath.Join(c.dir, filepath.FromSlash(rel))
	buf, err := os.ReadFile(path)
	if err != nil || int64(len(buf)) != want+4 ||
		crc32.Checksum(buf[:want], castagnoli) != binary.LittleEndian.Uint32(buf[want:]) {
		c.remove(rel)
		return nil
	}
	// The modification time is the recency a later process indexes by.
	now := time.Now()
	os.Chtimes(path, now, now)
	return buf[:want:want]
}

// has reports whether the chunk is indexed (it may still turn out to be
// missing or corrupt when read).
func (c *diskCache) has(k chunkKey) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.items[k.rel()]
	return ok
}

type pendingChunk struct {
	k    chunkKey
	data []byte
}

// diskQueue is how many chunks may wait to be written.
const diskQueue = 64

// put stores the chunk in the background, evicting older ones first. data
// must not change afterwards. Failures only mean the chunk is not cached.
func (c *diskCache) put(k chunkKey, data []byte) {
	c.queueOnce.Do(func() {
		c.queue = make(chan pendingChunk, diskQueue)
		go func() {
			for p := range c.queue {
				c.putNow(p.k, p.data)
				c.pending.Done()
			}
		}()
	})
	c.pending.Add(1)
	select {
	case c.queue <- pendingChunk{k, data}:
	default:
		c.pending.Done()
	}
}

// flush waits for the chunks queued so far to be written.
func (c *diskCache) flush() { c.pending.Wait() }

// putNow stores the chunk, evicting older ones first.
func (c *diskCache) putNow(k chunkKey, data []byte) {
	size := int64(len(data)) + 4
	if size > c.limit {
		return
	}
	rel := k.rel()
	c.mu.Lock()
	if _, ok := c.items[rel]; ok {
		c.mu.Unlock()
		return
	}
	c.mu.Unlock()
	dir := filepath.Join(c.dir, k.version)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(dir, ".tmp")
	if err != nil {
		return
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc32.Checksum(data, castagnoli))
	_, err = tmp.Write(data)
	if err == nil {
		_, err = tmp.Write(sum[:])
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.items[rel]; ok {
		os.Remove(tmp.Name())
		return
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, strconv.FormatInt(k.index, 10))); err != nil {
		os.Remove(tmp.Name())
		return
	}
	c.size += size
	c.items[rel] = c.lru.PushFront(&diskEntry{rel: rel, size: size})
	c.evictLocked()
}

func (c *diskCache) remove(rel string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removeLocked(rel)
}

func (c *diskCache) removeLocked(rel string) {
	if e, ok := c.items[rel]; ok {
		c.lru.Remove(e)
		delete(c.items, rel)
		c.size -= e.Value.(*diskEntry).size
		os.Remove(filepath.Join(c.dir, filepath.FromSlash(rel)))
	}
}

func (c *diskCache) evictLocked() {
	for c.size > c.limit && c.lru.Len() > 0 {
		c.removeLocked(c.lru.Back().Value.(*diskEntry).rel)
	}
}

// bytes returns the cache's size as indexed.
func (c *diskCache) bytes() int64 {
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
