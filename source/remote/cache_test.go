package remote

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
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
	"github.com/fsmount/fsmount/source"
)

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

// logged serves h and records each request's Range and If-Range.
type logged struct {
	h    http.Handler
	mu   sync.Mutex
	reqs []http.Header
}

func (l *logged) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	l.mu.Lock()
	l.reqs = append(l.reqs, r.Header.Clone())
	l.mu.Unlock()
	l.h.ServeHTTP(w, r)
}

func (l *logged) ifRanges() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, h := range l.reqs {
		out = append(out, h.Get("If-Range"))
	}
	return out
}

// TestLastModifiedValidates reads a file from Go's http.FileServer, which
// sends Last-Modified and no ETag, and replaces the file (same size, a
// later mtime) between two reads: the second read must fail with
// source.ErrChanged, never give the new file's bytes as the old one's.
func TestLastModifiedValidates(t *testing.T) {
	root := t.TempDir()
	data := pattern(4<<20, 5)
	writeFile(t, root, "blob.bin", data)
	path := filepath.Join(root, "blob.bin")
	opened := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(path, opened, opened))
	srv := &logged{h: http.FileServer(http.Dir(root))}
	hs := httptest.NewServer(srv)
	defer hs.Close()

	opts := testOptions()
	opts.MaxReadahead = -1
	fsys := newFS(t, hs.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	require.Empty(t, f.ETag(), "http.FileServer sends no ETag")
	require.Equal(t, opened.UTC(), f.ModTime().UTC())
	assert.Equal(t, "Last-Modified", f.Validator())

	readAt(t, f, data, 2<<20, 100)
	require.NoError(t, f.Revalidate())
	irs := srv.ifRanges()
	assert.Equal(t, "", irs[0], "the first request has nothing to validate against")
	for _, ir := range irs[1:] {
		assert.Equal(t, opened.UTC().Format(http.TimeFormat), ir, "If-Range of a later request")
	}

	// The file replaced in place: the same size, other bytes.
	require.NoError(t, os.WriteFile(path, pattern(len(data), 77), 0o644))
	later := opened.Add(30 * time.Minute)
	require.NoError(t, os.Chtimes(path, later, later))
	buf := make([]byte, 100)
	n, err := f.ReadAt(buf, 3<<20)
	require.Error(t, err, "read %d bytes of a replaced file: %v", n, buf[:min(n, 8)])
	assert.True(t, errors.Is(err, source.ErrChanged), "error %v", err)
	assert.Contains(t, err.Error(), "Last-Modified")
	wantCode(t, f.Revalidate(), CodeChanged)
	readAt(t, f, data, 2<<20, 100) // cached from before: still the old file's bytes

	// A server that ignores If-Range (or a proxy that drops it) and
	// answers 206 from the new file is caught by the comparison of
	// Last-Modified on every answer.
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Header.Del("If-Range")
		http.FileServer(http.Dir(root)).ServeHTTP(w, r)
	}))
	defer plain.Close()
	require.NoError(t, os.WriteFile(path, data, 0o644))
	require.NoError(t, os.Chtimes(path, opened, opened))
	g := openFile(t, newFS(t, plain.URL, opts), "blob.bin")
	readAt(t, g, data, 1<<20, 100)
	require.NoError(t, os.WriteFile(path, pattern(len(data), 78), 0o644))
	require.NoError(t, os.Chtimes(path, later, later))
	_, err = g.ReadAt(buf, 3<<20)
	assert.True(t, errors.Is(err, source.ErrChanged), "error %v", err)

	// A file modified less than a minute before the server's Date: its
	// Last-Modified is no strong validator (RFC 9110, 8.8.2.2), so If-Range
	// does not carry it; a replacement is still caught by comparing it.
	fresh := time.Now().Add(-5 * time.Second)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	require.NoError(t, os.Chtimes(path, fresh, fresh))
	srv.mu.Lock()
	srv.reqs = nil
	srv.mu.Unlock()
	h := openFile(t, newFS(t, hs.URL, opts), "blob.bin")
	readAt(t, h, data, 1<<20, 100)
	assert.Equal(t, []string{"", ""}, srv.ifRanges(), "If-Range with a Last-Modified of 5 s ago")
	require.NoError(t, os.WriteFile(path, pattern(len(data), 79), 0o644))
	later = fresh.Add(2 * time.Second)
	require.NoError(t, os.Chtimes(path, later, later))
	_, err = h.ReadAt(buf, 3<<20)
	assert.True(t, errors.Is(err, source.ErrChanged), "error %v", err)
}

// TestNoValidator serves a file with neither ETag nor Last-Modified: the
// file says it has no validator, which the model's warnings tell.
func TestNoValidator(t *testing.T) {
	data := pattern(3<<20, 2)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
	}))
	defer hs.Close()
	f := openFile(t, newFS(t, hs.URL, testOptions()), "blob.bin")
	assert.Empty(t, f.Validator())
	readAt(t, f, data, 2<<20, 100)
}

// TestWeakETag serves a file with only a weak ETag: the file names it as
// its validator, no request carries it in If-Range (RFC 9110 forbids
// it), and a file replaced under a new weak ETag is still detected, from
// the answers' ETag.
func TestWeakETag(t *testing.T) {
	var mu sync.Mutex
	data, etag := pattern(3<<20, 2), `W/"one"`
	l := &logged{h: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		d, e := data, etag
		mu.Unlock()
		w.Header().Set("ETag", e)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(d))
	})}
	hs := httptest.NewServer(l)
	defer hs.Close()
	opts := testOptions()
	opts.MaxReadahead = -1
	f := openFile(t, newFS(t, hs.URL, opts), "blob.bin")
	assert.Equal(t, "weak ETag", f.Validator())
	readAt(t, f, data, 1<<20, 100)
	l.mu.Lock()
	for _, h := range l.reqs {
		assert.Empty(t, h.Get("If-Range"), "a weak ETag sent in If-Range")
		assert.Empty(t, h.Get("If-Match"), "a weak ETag sent in If-Match")
	}
	l.mu.Unlock()

	mu.Lock()
	data, etag = pattern(3<<20, 3), `W/"two"`
	mu.Unlock()
	buf := make([]byte, 100)
	_, err := f.ReadAt(buf, 2<<20)
	assert.True(t, errors.Is(err, source.ErrChanged), "a file replaced under a new weak ETag: %v", err)
}
