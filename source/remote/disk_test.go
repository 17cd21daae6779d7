package remote

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/nginxtest"
)

// TestDiskCacheFiles checks the disk cache's files directly: chunks come
// back after a restart, eviction punches their bytes out of the sparse
// file, a version whose last chunk goes loses its files, and what the
// cache did not provably create is never touched, whatever its name: a
// directory named like a version holding someone's file, an "index" of
// garbage, any other file. The directory gets a CACHEDIR.TAG.
func TestDiskCacheFiles(t *testing.T) {
	const chunk = 64 << 10
	dir := t.TempDir()
	oldFormat := filepath.Join(dir, "0123456789abcdef0123456789abcdef")
	if err := os.MkdirAll(oldFormat, 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, oldFormat, "3", []byte("an older release's chunk"))
	garbage := "fedcba9876543210fedcba9876543210"
	writeFile(t, dir, garbage+".index", []byte("not an index"))
	writeFile(t, dir, "notes.txt", []byte("kept"))

	c, err := openDiskCache(dir, 3*chunk+versionCost)
	if err != nil {
		t.Fatal(err)
	}
	kept := func() {
		t.Helper()
		for _, p := range []string{filepath.Join(oldFormat, "3"), filepath.Join(dir, garbage+".index"), filepath.Join(dir, "notes.txt")} {
			if _, err := os.Stat(p); err != nil {
				t.Errorf("a file the cache did not create was removed: %v", err)
			}
		}
	}
	kept()
	if tag, err := os.ReadFile(filepath.Join(dir, "CACHEDIR.TAG")); err != nil || !bytes.HasPrefix(tag, []byte("Signature: 8a477f597d28d172789f06886806bc55")) {
		t.Errorf("CACHEDIR.TAG: %q, %v", tag, err)
	}

	const v = "00000000000000000000000000000001"
	chunks := make([][]byte, 4)
	for i := range chunks {
		chunks[i] = pattern(chunk, byte(i+1))
	}
	chunks[3] = chunks[3][:1000] // the file's short last chunk
	for i, b := range chunks[:3] {
		c.put(chunkKey{v, int64(i)}, chunk, newBuf(b))
	}
	c.flush()
	if got := diskUsage(t, dir) - diskUsage(t, oldFormat) - 3*4096; got > 3*chunk+versionCost {
		t.Errorf("%d bytes on disk for 3 chunks", got)
	}
	c.put(chunkKey{v, 3}, chunk, newBuf(chunks[3])) // evicts chunk 0
	c.flush()
	if c.has(chunkKey{v, 0}) || !c.has(chunkKey{v, 3}) {
		t.Fatal("chunk 0 not evicted for chunk 3")
	}
	if got := c.bytes(); got != 2*chunk+1000+versionCost {
		t.Errorf("cache size %d", got)
	}
	data := filepath.Join(dir, v+".data")
	if got := diskUsage(t, data); got > 3*chunk {
		t.Errorf("the data file takes %d bytes after eviction, want at most %d (the hole punched)", got, 3*chunk)
	}

	forgetDiskCache(t, dir)
	c2, err := openDiskCache(dir, 3*chunk+versionCost)
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range chunks {
		got := make([]byte, len(b))
		ok := c2.get(chunkKey{v, int64(i)}, chunk, got)
		if i == 0 {
			if ok {
				t.Error("the evicted chunk came back")
			}
			continue
		}
		if !ok || !bytes.Equal(got, b) {
			t.Errorf("chunk %d after a restart: found %v, equal %v", i, ok, bytes.Equal(got, b))
		}
	}
	if c2.get(chunkKey{v, 1}, chunk, make([]byte, chunk-1)) {
		t.Error("a chunk of another length was returned")
	}
	// Lowering the bound to nothing removes the version's files.
	if _, err := openDiskCache(dir, 0); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{data, filepath.Join(dir, v+".index")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s kept with no chunk cached: %v", p, err)
		}
	}
	kept() // through restarts and evictions
}

// TestDiskCacheRun stores a run of consecutive chunks with one write (as
// the writer does with the chunks of a stream queued together) and reads
// each back after a restart, from the pool's aligned arrays (O_DIRECT)
// and from the heap's (buffered); a chunk already cached in the run is
// kept, not counted twice.
func TestDiskCacheRun(t *testing.T) {
	const chunk = 64 << 10
	for _, pooled := range []bool{true, false} {
		dir := t.TempDir()
		c, err := openDiskCache(dir, 16*chunk+versionCost)
		if err != nil {
			t.Fatal(err)
		}
		const v = "00000000000000000000000000000002"
		pool := newBufPool(chunk)
		run := make([]pendingChunk, 6)
		for i := range run {
			b := newBuf(pattern(chunk, byte(3*i+1)))
			if pooled {
				b = pool.get(chunk)
				copy(b.data, pattern(chunk, byte(3*i+1)))
			}
			run[i] = pendingChunk{chunkKey{v, int64(i + 2)}, chunk, b}
		}
		c.putRun(run)
		if got := c.bytes(); got != 6*chunk+versionCost {
			t.Errorf("pooled %v: cache size %d after the run, want %d", pooled, got, 6*chunk+versionCost)
		}
		c.putRun(run[2:4]) // already cached: stored one by one, i.e. not again
		if got := c.bytes(); got != 6*chunk+versionCost {
			t.Errorf("pooled %v: cache size %d after the run again", pooled, got)
		}
		forgetDiskCache(t, dir)
		c2, err := openDiskCache(dir, 16*chunk+versionCost)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range run {
			got := make([]byte, chunk)
			if !c2.get(p.k, chunk, got) || !bytes.Equal(got, p.buf.data) {
				t.Errorf("pooled %v: chunk %d of the run not read back", pooled, i)
			}
		}
		if c2.has(chunkKey{v, 1}) || c2.has(chunkKey{v, 8}) {
			t.Errorf("pooled %v: chunks around the run cached", pooled)
		}
	}
}

// TestStreamedReadCachedWhole streams a file sequentially, as a first cat
// does (readahead on, so the writer gets the chunks in runs), and checks
// that a new FS on the same cache directory (a new mount) reads all of it
// from disk: one request, the open's, and the same bytes.
func TestStreamedReadCachedWhole(t *testing.T) {
	const chunk = 64 << 10
	_, data, s := serveBlob(t, 64*chunk, 5)
	opts := testOptions()
	opts.ChunkSize = chunk
	opts.CacheDir = t.TempDir()
	opts.CacheSize = 1 << 30
	fsys := newFS(t, s.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	for off := int64(0); off < int64(len(data)); off += 32 << 10 {
		readAt(t, f, data, off, 32<<10)
	}
	fsys.disk.flush()
	require.Equal(t, int64(63*chunk+versionCost), fsys.disk.bytes(), "every chunk but the first on disk")

	forgetDiskCache(t, opts.CacheDir)
	before := nginxtest.Count(s.Requests(t), "/blob.bin", nil)
	f2 := openFile(t, newFS(t, s.URL, opts), "blob.bin")
	readAt(t, f2, data, 0, int64(len(data)))
	assert.Equal(t, 1, nginxtest.Count(s.Requests(t), "/blob.bin", nil)-before, "requests for a file cached on disk (the open only)")
}
