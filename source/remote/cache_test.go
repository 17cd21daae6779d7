package remote

import (
	"bytes"
	"encoding/binary"
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
