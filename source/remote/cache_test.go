package remote

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/nginxtest"
)

// TestDiskCacheFiles checks the disk cache's files directly: chunks come
// back after a restart, eviction punches their bytes out of the sparse
// file, a version whose last chunk goes loses its files, and what is not
// a version's pair of files (an index of garbage, an older release's
// directory of chunk files) is removed when the directory is opened.
func TestDiskCacheFiles(t *testing.T) {
	const chunk = 64 << 10
	dir := t.TempDir()
	oldFormat := filepath.Join(dir, "0123456789abcdef0123456789abcdef")
	require.NoError(t, os.MkdirAll(oldFormat, 0o700))
	writeFile(t, oldFormat, "3", []byte("an older release's chunk"))
	garbage := "fedcba9876543210fedcba9876543210"
	writeFile(t, dir, garbage+".index", []byte("not an index"))
	writeFile(t, dir, "notes.txt", []byte("kept"))

	c, err := openDiskCache(dir, 3*chunk+versionCost)
	require.NoError(t, err)
	for _, p := range []string{oldFormat, filepath.Join(dir, garbage+".index")} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s was not removed: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("a file of someone else's was removed: %v", err)
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
	if got := diskUsage(t, dir); got > 3*chunk+versionCost+int64(len("kept")+4095)/4096*4096 {
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
	require.NoError(t, err)
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
}

// nobody is the uid (and gid) another local user's files get here.
const nobody = 65534

func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: making files another user's needs root; the root run covers it")
	}
}

// TestCacheDirRefused: a cache directory that another user owns or that
// group or others may write is refused, and so is one reached through a
// symlink another user owns; the user's own directory, and one created
// (with its parents) under a sticky /tmp-like directory, is taken.
func TestCacheDirRefused(t *testing.T) {
	base := t.TempDir()
	mk := func(name string, mode os.FileMode) string {
		p := filepath.Join(base, name)
		require.NoError(t, os.Mkdir(p, 0o700))
		require.NoError(t, os.Chmod(p, mode))
		return p
	}
	worldWritable := mk("world", 0o777)
	groupWritable := mk("group", 0o770)
	_, err := openDiskCache(worldWritable, 1<<30)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writable by group or others (mode 0777)")
	_, err = openDiskCache(groupWritable, 1<<30)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "writable by group or others (mode 0770)")
	// A parent others may write, not sticky: they could rename ours away.
	_, err = openDiskCache(filepath.Join(worldWritable, "sub", "cache"), 1<<30)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not sticky")
	_, err = os.Lstat(filepath.Join(worldWritable, "sub"))
	assert.True(t, os.IsNotExist(err), "a directory was made where it is refused: %v", err)

	// The user's own, created with its parents under a sticky directory
	// (as /tmp): taken, and made 0700.
	sticky := mk("sticky", os.ModeSticky|0o777)
	dir := filepath.Join(sticky, "a", "b")
	_, err = openDiskCache(dir, 1<<30)
	require.NoError(t, err)
	for _, p := range []string{filepath.Join(sticky, "a"), dir} {
		st, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700)|os.ModeDir, st.Mode()&(os.ModeDir|0o777), p)
	}

	requireRoot(t)
	// Created by another user (as /tmp/fsmount could be, first).
	theirs := filepath.Join(sticky, "theirs")
	require.NoError(t, os.Mkdir(theirs, 0o700))
	require.NoError(t, os.Chown(theirs, nobody, nobody))
	_, err = openDiskCache(theirs, 1<<30)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "is owned by uid 65534, not by you (uid 0)")
	fsys, err := New("http://127.0.0.1:1/", Options{CacheDir: theirs})
	require.Error(t, err, "New took %v", fsys)
	wantCode(t, err, CodeBadLocation)
	assert.NotContains(t, err.Error(), "\n")

	// A symlink another user planted, to a directory of the user's own:
	// the cache would go where they chose.
	mine := mk("mine", 0o700)
	link := filepath.Join(sticky, "link")
	require.NoError(t, os.Symlink(mine, link))
	require.NoError(t, os.Lchown(link, nobody, nobody))
	_, err = openDiskCache(link, 1<<30)
	require.Error(t, err)
	assert.Contains(t, err.Error(), link+" is owned by uid 65534")
}

// TestDefaultCacheDirIsPrivate: with neither XDG_CACHE_HOME nor HOME the
// cache goes to XDG_RUNTIME_DIR, and without that too there is none (and
// the FS says so), never a shared directory such as /tmp/fsmount.
func TestDefaultCacheDirIsPrivate(t *testing.T) {
	run := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", run)
	assert.Equal(t, filepath.Join(run, "fsmount"), DefaultCacheDir())
	t.Setenv("XDG_RUNTIME_DIR", "")
	assert.Equal(t, "", DefaultCacheDir())
	fsys, err := New("http://127.0.0.1:1/", Options{})
	require.NoError(t, err)
	defer fsys.Close()
	assert.Nil(t, fsys.disk)
	require.Len(t, fsys.Warnings(), 1)
	assert.Contains(t, fsys.Warnings()[0], "no disk cache")
	t.Setenv("HOME", "/home/someone")
	assert.Equal(t, "/home/someone/.cache/fsmount", DefaultCacheDir())
}

// plantedSetup serves two 64 KiB chunks with an ETag (so they go to the
// disk cache) and returns the server's bytes and the version name the
// cache files them under.
func plantedSetup(t *testing.T) (url string, data []byte, opts Options, version string) {
	t.Helper()
	const chunk = 64 << 10
	data = pattern(2*chunk, 9)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	}))
	t.Cleanup(hs.Close)
	opts = testOptions()
	opts.ChunkSize = chunk
	opts.MaxReadahead = -1
	opts.CacheSize = 1 << 30
	opts.CacheDir = t.TempDir()
	t.Cleanup(func() { forgetDiskCache(t, opts.CacheDir) })
	return hs.URL, data, opts, versionOf(hs.URL+"/blob.bin", `"v1"`, int64(len(data)), chunk)
}

// plantIndex writes an index that records chunks as cached with the
// checksums of the given bytes, as anyone can compute them (nil: a chunk
// not cached).
func plantIndex(t *testing.T, path string, chunk int64, chunks ...[]byte) {
	t.Helper()
	b := []byte(indexMagic)
	b = binary.LittleEndian.AppendUint64(b, uint64(chunk))
	for _, c := range chunks {
		if c == nil { // not cached
			b = binary.LittleEndian.AppendUint64(b, 0)
			continue
		}
		b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(c, castagnoli))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(c)+1))
	}
	require.NoError(t, os.WriteFile(path, b, 0o600))
}

// TestPlantedSymlinkChunk: a cache's data file that is a symlink to a
// root-only file, with an index whose checksums match that file's bytes,
// is neither read (the bytes served are the server's) nor written (the
// file keeps its bytes).
func TestPlantedSymlinkChunk(t *testing.T) {
	url, data, opts, version := plantedSetup(t)
	chunk := opts.ChunkSize
	secret := bytes.Repeat([]byte("secret!\n"), int(2*chunk/8))
	victim := filepath.Join(t.TempDir(), "shadow")
	require.NoError(t, os.WriteFile(victim, secret, 0o600))
	require.NoError(t, os.Symlink(victim, filepath.Join(opts.CacheDir, version+".data")))
	plantIndex(t, filepath.Join(opts.CacheDir, version+".index"), chunk, nil, secret[chunk:])

	fsys := newFS(t, url, opts)
	f := openFile(t, fsys, "blob.bin")
	readAt(t, f, data, 0, 2*chunk)
	fsys.disk.flush()
	got, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(secret, got), "the symlink's target was written: %q…", got[:16])
	st, err := os.Lstat(filepath.Join(opts.CacheDir, version+".data"))
	if err == nil {
		assert.True(t, st.Mode().IsRegular(), "the planted symlink is still there: %v", st.Mode())
	}
}

// TestCacheFIFO: a FIFO where an index should be neither blocks the
// cache's start nor is trusted.
func TestCacheFIFO(t *testing.T) {
	url, data, opts, version := plantedSetup(t)
	require.NoError(t, unix.Mkfifo(filepath.Join(opts.CacheDir, version+".index"), 0o600))
	done := make(chan struct{})
	go func() {
		defer close(done)
		f := openFile(t, newFS(t, url, opts), "blob.bin")
		readAt(t, f, data, 0, int64(len(data)))
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("opening the cache blocks on a FIFO")
	}
}

// TestPlantedForeignChunk: a cache version whose files another user made
// (chunks of 666.0 with matching checksums) is not trusted: the bytes
// served are the server's, both when the process finds the files at start
// and when they appear later.
func TestPlantedForeignChunk(t *testing.T) {
	requireRoot(t)
	url, data, opts, version := plantedSetup(t)
	chunk := opts.ChunkSize
	planted := bytes.Repeat([]byte{0x00, 0x80, 0x26, 0x44}, int(2*chunk/4)) // 666.0 as float32
	plant := func() {
		p := filepath.Join(opts.CacheDir, version)
		require.NoError(t, os.WriteFile(p+".data", planted, 0o600))
		plantIndex(t, p+".index", chunk, planted[:chunk], planted[chunk:])
		for _, s := range []string{".data", ".index"} {
			require.NoError(t, os.Chown(p+s, nobody, nobody))
		}
	}
	plant()
	fsys := newFS(t, url, opts)
	f := openFile(t, fsys, "blob.bin")
	readAt(t, f, data, 0, 2*chunk)

	// Planted again while the process runs, under an index it has not
	// opened yet: a new process finds them at start.
	fsys.disk.flush()
	forgetDiskCache(t, opts.CacheDir)
	for _, s := range []string{".data", ".index"} {
		os.Remove(filepath.Join(opts.CacheDir, version+s))
	}
	plant()
	g := openFile(t, newFS(t, url, opts), "blob.bin")
	readAt(t, g, data, chunk, chunk)
	readAt(t, g, data, 0, chunk)
}

// TestDefaultCacheDirUnusable: a default cache directory that cannot be
// made or is refused (a system user's HOME such as /nonexistent, a path
// through a file) costs the disk cache, with a warning naming it, not the
// mount; a --cache-dir the user named still fails.
func TestDefaultCacheDirUnusable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	t.Setenv("XDG_CACHE_HOME", file)
	fsys, err := New("http://127.0.0.1:1/", Options{})
	require.NoError(t, err)
	defer fsys.Close()
	assert.Nil(t, fsys.disk)
	require.Len(t, fsys.Warnings(), 1)
	assert.Contains(t, fsys.Warnings()[0], "no disk cache: the default directory "+filepath.Join(file, "fsmount")+" cannot be used (")

	_, err = New("http://127.0.0.1:1/", Options{CacheDir: filepath.Join(file, "fsmount")})
	wantCode(t, err, CodeBadLocation)
}

// TestWeakETagNotOnDisk: a weak ETag promises an equivalent file, not the
// same bytes (RFC 9111 3.4: parts of a file are combined only under a
// strong validator), so a file that has only one is kept out of the disk
// cache: a later process reading the file replaced under the same weak
// ETag gets the new bytes, not the old chunks.
func TestWeakETagNotOnDisk(t *testing.T) {
	const chunk = 64 << 10
	var mu sync.Mutex
	data := pattern(2*chunk, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		b := data
		mu.Unlock()
		w.Header().Set("ETag", `W/"same"`)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(hs.Close)
	opts := testOptions()
	opts.ChunkSize = chunk
	opts.MaxReadahead = -1
	opts.CacheSize = 1 << 30
	opts.CacheDir = t.TempDir()
	t.Cleanup(func() { forgetDiskCache(t, opts.CacheDir) })

	fsys := newFS(t, hs.URL, opts)
	readAt(t, openFile(t, fsys, "blob.bin"), data, 0, 2*chunk)
	fsys.disk.flush()

	mu.Lock()
	data = pattern(2*chunk, 2)
	mu.Unlock()
	forgetDiskCache(t, opts.CacheDir) // a later process
	fsys = newFS(t, hs.URL, opts)
	readAt(t, openFile(t, fsys, "blob.bin"), data, 0, 2*chunk)
}

// TestReusedBuffers has streaming and random readers share one file and
// two handles on it through a memory cache of four chunks, a small disk
// cache and readahead, so that chunk arrays are released and reused all
// the time. Every released array is poisoned before reuse: a reader that
// still copied from one, or a fetch that wrote into one still held, would
// return wrong bytes (and -race sees the two touching it). At the end no
// reference is released twice and every array out of the pool is one the
// memory cache still holds.
func TestReusedBuffers(t *testing.T) {
	root := t.TempDir()
	const cs = 64 << 10
	data := pattern(6<<20+321, 3)
	writeFile(t, root, "blob.bin", data)
	s := nginxtest.Start(t, root)
	opts := testOptions()
	opts.ChunkSize = cs
	opts.MemCacheSize = 4 * cs
	opts.MaxReadahead = 16 * cs
	opts.CacheDir = t.TempDir()
	opts.CacheSize = 24 * (cs + 4)
	fsys := newFS(t, s.URL, opts)
	fsys.bufs.recycle = func(b []byte) {
		for i := range b {
			b[i] = 0xa5
		}
	}
	before := overReleased.Load()
	files := []*File{openFile(t, fsys, "blob.bin"), openFile(t, fsys, "blob.bin")}

	var wg sync.WaitGroup
	errs := make(chan string, 64)
	check := func(f *File, off, n int64) bool {
		buf := make([]byte, n)
		k, err := f.ReadAt(buf, off)
		want := data[off:min(off+n, int64(len(data)))]
		if k != len(want) || !bytes.Equal(buf[:k], want) || (err != nil && off+n <= int64(len(data))) {
			errs <- fmt.Sprintf("reading %d bytes at %d: %d bytes, equal %v, %v", n, off, k, bytes.Equal(buf[:k], want), err)
			return false
		}
		return true
	}
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f := files[g%2]
			r := rand.New(rand.NewPCG(uint64(g), 1))
			if g < 4 {
				// A streamer: sequential reads of uneven sizes, from a
				// random start, three times.
				for range 3 {
					for off := r.Int64N(int64(len(data)) / 2); off < int64(len(data)); {
						n := 1 + r.Int64N(3*cs)
						if !check(f, off, n) {
							return
						}
						off += n
					}
				}
				return
			}
			// A random reader, across chunk boundaries.
			for range 300 {
				if !check(f, r.Int64N(int64(len(data))), 1+r.Int64N(2*cs)) {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	for _, f := range files {
		waitIdle(t, f)
	}
	fsys.disk.flush()
	if n := overReleased.Load() - before; n != 0 {
		t.Errorf("%d references released twice", n)
	}
	checkNoLeak(t, fsys)
}

// checkNoLeak checks that the only pooled arrays out are those the memory
// cache holds, each with its one reference, once the calls that just
// ended have let go of theirs (finish releases a moment after a call
// leaves the in-flight set).
func checkNoLeak(t *testing.T, fsys *FS) {
	t.Helper()
	// held counts the pooled arrays the memory cache holds, and extra the
	// references to them beyond the cache's own.
	count := func() (held, extra int64) {
		fsys.mem.mu.Lock()
		defer fsys.mem.mu.Unlock()
		for _, e := range fsys.mem.items {
			if b := e.Value.(*memEntry).buf; b.pool != nil {
				held++
				extra += int64(b.refs.Load()) - 1
			}
		}
		return held, extra
	}
	settled := func() bool {
		held, extra := count()
		return fsys.bufs.out.Load() == held && extra == 0
	}
	for deadline := time.Now().Add(5 * time.Second); !settled() && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if held, extra := count(); fsys.bufs.out.Load() != held || extra != 0 {
		t.Errorf("%d chunk arrays out of the pool; the memory cache holds %d, with %d references beyond its own: references leak",
			fsys.bufs.out.Load(), held, extra)
	}
}

// TestLendHoldsChunks: the pieces Lend returns are the file's bytes
// across chunk boundaries, cut at the end, and stay intact while other
// reads evict their chunks and reuse (poisoned) arrays, until released.
func TestLendHoldsChunks(t *testing.T) {
	root := t.TempDir()
	const cs = 64 << 10
	data := pattern(40*cs+99, 5)
	writeFile(t, root, "blob.bin", data)
	s := nginxtest.Start(t, root)
	opts := testOptions()
	opts.ChunkSize = cs
	opts.MemCacheSize = 2 * cs
	opts.MaxReadahead = -1
	fsys := newFS(t, s.URL, opts)
	fsys.bufs.recycle = func(b []byte) {
		for i := range b {
			b[i] = 0xa5
		}
	}
	f := openFile(t, fsys, "blob.bin")
	join := func(pieces [][]byte) []byte { return bytes.Join(pieces, nil) }

	off := int64(3*cs - 10)
	pieces, release, err := f.Lend(off, 2*cs+20) // parts of chunks 2, 3, 4 and 5
	require.NoError(t, err)
	if len(pieces) != 4 {
		t.Errorf("%d pieces for a range over 4 chunks", len(pieces))
	}
	for i := int64(10); i < 30; i++ { // evicts chunks 2-5 from memory
		readAt(t, f, data, i*cs, 100)
	}
	if !bytes.Equal(join(pieces), data[off:off+2*cs+20]) {
		t.Fatal("lent bytes changed before they were released")
	}
	release()
	release() // a second call does nothing
	checkNoLeak(t, fsys)
	fsys.bufs.mu.Lock()
	kept := len(fsys.bufs.free)
	fsys.bufs.mu.Unlock()
	if kept == 0 {
		t.Error("no released array kept for reuse")
	}
	f.Trim()
	for _, b := range fsys.bufs.free { // kept: only a slab partly in use
		if b.slab == nil || b.slab.free == b.slab.n {
			t.Fatal("Trim kept an array it could give back")
		}
	}

	pieces, release, err = f.Lend(int64(len(data))-50, 1000)
	if err != nil || !bytes.Equal(join(pieces), data[len(data)-50:]) {
		t.Errorf("a range past the end: %d bytes, %v", len(join(pieces)), err)
	}
	release()
	if pieces, release, err = f.Lend(int64(len(data)), 10); err != nil || len(pieces) != 0 {
		t.Errorf("a range at the end: %d pieces, %v", len(pieces), err)
	}
	release()
}

// TestSlabs: a pool carves huge-page slabs into arrays that can be
// written whole, and trim unmaps a slab only once all its arrays are
// back, keeping a partly used slab's free arrays for reuse.
func TestSlabs(t *testing.T) {
	const size = 512 << 10 // four arrays per 2 MiB slab
	p := &bufPool{size: size}
	var got []*buf
	for range 6 { // two slabs
		b := p.get(size)
		if len(b.data) != size || b.slab == nil {
			t.Fatalf("an array of %d bytes, slab %v", len(b.data), b.slab)
		}
		for i := range b.data {
			b.data[i] = byte(i)
		}
		got = append(got, b)
	}
	if p.slabs != 2 {
		t.Fatalf("%d slabs for 6 arrays of a quarter slab", p.slabs)
	}
	for _, b := range got[:4] { // the first slab's arrays, all back
		b.release()
	}
	p.trim()
	if p.slabs != 1 || len(p.free) != 2 {
		t.Errorf("after trim: %d slabs, %d free arrays; want 1 and the second slab's 2", p.slabs, len(p.free))
	}
	b := p.get(size) // reuses the second slab
	if b.slab != got[4].slab || p.slabs != 1 {
		t.Error("a free array of a slab in use was not reused")
	}
	for _, b := range append(got[4:], b) {
		b.release()
	}
	p.trim()
	if p.slabs != 0 || len(p.free) != 0 || p.out.Load() != 0 {
		t.Errorf("after all came back and trim: %d slabs, %d free, %d out", p.slabs, len(p.free), p.out.Load())
	}
}

// TestLendFailingLate: a Lend whose range takes two runs of chunks, the
// second failing (the file changed on the server), hands out nothing and
// keeps no reference to the first run's chunks.
func TestLendFailingLate(t *testing.T) {
	root := t.TempDir()
	const cs = 64 << 10
	data := pattern(8*cs, 8)
	writeFile(t, root, "blob.bin", data)
	s := nginxtest.Start(t, root)
	opts := testOptions()
	opts.ChunkSize = cs
	opts.MaxReadahead = -1
	fsys := newFS(t, s.URL, opts)
	fsys.maxRun = 1 // a run per chunk, as with chunks of 16 MiB or more
	f := openFile(t, fsys, "blob.bin")
	readAt(t, f, data, cs, 10) // chunk 1 in memory
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(root, "blob.bin"), later, later); err != nil {
		t.Fatal(err) // nginx's ETag is the mtime and size
	}
	pieces, release, err := f.Lend(cs, 2*cs)
	wantCode(t, err, CodeChanged)
	if pieces != nil || release != nil {
		t.Error("a failed Lend handed out pieces or a release")
	}
	checkNoLeak(t, fsys)
}

// TestBufMisusePanics: in tests (and -tags debugbuf builds) a release
// past zero and a read after the last release panic, so that a broken
// reference count is found where it happens, not as another chunk's bytes.
func TestBufMisusePanics(t *testing.T) {
	b := newBuf([]byte("chunk"))
	assert.Equal(t, []byte("chunk"), b.bytes())
	b.ref().release()
	b.release()
	assert.PanicsWithValue(t, "remote: a chunk buffer used after its last release", func() { b.bytes() })
	assert.PanicsWithValue(t, "remote: a chunk buffer released more often than it was referenced", b.release)
	overReleased.Add(-1) // the count the other tests check stays theirs
}
