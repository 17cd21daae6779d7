package remote

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/nginxtest"
)

// tinySafetensors returns a safetensors file with one F32 tensor "a" of n
// values (value i is float32(i)), its header padded by a metadata string
// of pad bytes.
func tinySafetensors(t testing.TB, n, pad int) []byte {
	t.Helper()
	hdr := map[string]any{
		"a": map[string]any{"dtype": "F32", "shape": []int{n}, "data_offsets": []int{0, 4 * n}},
	}
	if pad > 0 {
		hdr["__metadata__"] = map[string]string{"pad": strings.Repeat("p", pad)}
	}
	js, err := json.Marshal(hdr)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(js)))
	b.Write(js)
	for i := range n {
		binary.Write(&b, binary.LittleEndian, float32(i))
	}
	return b.Bytes()
}

// pattern returns n bytes that differ at every offset modulo a large
// prime, so that a shifted range is caught.
func pattern(n int, seed byte) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7+i/251) ^ seed
	}
	return b
}

func writeFile(t testing.TB, dir, name string, data []byte) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// touch sets the modification time of a file written by writeFile (to
// change nginx's ETag, which is the mtime and size).
func touch(t testing.TB, dir, name string, mtime time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(dir, filepath.FromSlash(name)), mtime, mtime); err != nil {
		t.Fatal(err)
	}
}

// testOptions are quick to fail: tests of faults must not wait for the
// defaults' seconds.
func testOptions() Options {
	return Options{
		CacheSize:       -1,
		RetryBase:       10 * time.Millisecond,
		RetryMax:        50 * time.Millisecond,
		MaxRetryAfter:   3 * time.Second,
		ConnectTimeout:  time.Second,
		ResponseTimeout: 2 * time.Second,
		StallTimeout:    500 * time.Millisecond,
		ReadTimeout:     8 * time.Second,
	}
}

// calmOptions are testOptions with timeouts that no load reaches, for
// tests whose outcome must not depend on how fast the machine answers:
// a test of one timeout sets that one short.
func calmOptions() Options {
	o := testOptions()
	o.ConnectTimeout, o.ResponseTimeout, o.StallTimeout, o.ReadTimeout = time.Minute, time.Minute, time.Minute, 2*time.Minute
	return o
}

func newFS(t testing.TB, base string, opts Options) *FS {
	t.Helper()
	f, err := New(base, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func openFile(t testing.TB, f *FS, name string) *File {
	t.Helper()
	file, err := f.OpenFile(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { file.Close() })
	return file
}

// readAt reads n bytes at off and checks them against want[off:off+n].
func readAt(t testing.TB, f *File, want []byte, off, n int64) {
	t.Helper()
	buf := make([]byte, n)
	k, err := f.ReadAt(buf, off)
	if err != nil && !(k == len(buf) && off+n == int64(len(want))) {
		t.Fatalf("ReadAt(%d, %d): %d bytes, %v", off, n, k, err)
	}
	if !bytes.Equal(buf[:k], want[off:off+int64(k)]) {
		t.Fatalf("ReadAt(%d, %d): wrong bytes", off, n)
	}
}

// ranges returns the Range headers of the logged requests for path.
func ranges(reqs []nginxtest.Request, path string) []string {
	var out []string
	for _, r := range reqs {
		if r.Path == path {
			out = append(out, fmt.Sprintf("%s %d", r.Range, r.Status))
		}
	}
	return out
}

func wantCode(t testing.TB, err error, code Code) {
	t.Helper()
	if CodeOf(err) != code {
		t.Fatalf("error %v, want code %s", err, code)
	}
}

// diskUsage sums the space the files under dir take (the cache's files
// are sparse: their sizes say nothing).
func diskUsage(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if st, ok := info.Sys().(*syscall.Stat_t); err == nil && !info.IsDir() && ok {
			n += st.Blocks * 512
		}
		return nil
	})
	return n
}

// forgetDiskCache drops the process's index of dir, as if a new process
// opened it.
func forgetDiskCache(t testing.TB, dir string) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	diskCachesMu.Lock()
	delete(diskCaches, abs)
	diskCachesMu.Unlock()
}

// serveBlob serves size bytes of pattern(size, seed) as /blob.bin from a
// new nginx; it returns the served directory, the bytes and the server.
func serveBlob(t *testing.T, size int, seed byte) (string, []byte, *nginxtest.Server) {
	t.Helper()
	root := t.TempDir()
	data := pattern(size, seed)
	writeFile(t, root, "blob.bin", data)
	return root, data, nginxtest.Start(t, root)
}
