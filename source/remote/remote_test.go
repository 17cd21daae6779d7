package remote

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/stretchr/testify/require"
)

func TestParseLocation(t *testing.T) {
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:9/")
	t.Setenv("HF_TOKEN", "")
	for _, tc := range []struct {
		loc      string
		ok       bool
		base     string // FS.String()
		file     string
		wantCode Code
	}{
		{loc: "models/qwen", ok: false},
		{loc: "/abs/path/model.safetensors", ok: false},
		{loc: "http://127.0.0.1:1/dir/", ok: true, base: "http://127.0.0.1:1/dir/"},
		{loc: "http://127.0.0.1:1/models/Qwen3-0.6B", ok: true, base: "http://127.0.0.1:1/models/Qwen3-0.6B/"},
		{loc: "https://127.0.0.1:1/dir/model.safetensors", ok: true, base: "https://127.0.0.1:1/dir/", file: "model.safetensors"},
		{loc: "https://127.0.0.1:1/dir/model.gguf", ok: true, base: "https://127.0.0.1:1/dir/", file: "model.gguf"},
		{loc: "http://user:secret@127.0.0.1:1/dir/", ok: true, base: "http://user:xxxxx@127.0.0.1:1/dir/"},
		{loc: "hf://Qwen/Qwen3-0.6B", ok: true, base: "http://127.0.0.1:9/Qwen/Qwen3-0.6B/resolve/main/"},
		{loc: "hf://Qwen/Qwen3-0.6B@v1.0", ok: true, base: "http://127.0.0.1:9/Qwen/Qwen3-0.6B/resolve/v1.0/"},
		{loc: "hf://org/name@refs/pr/1", ok: true, base: "http://127.0.0.1:9/org/name/resolve/refs%2Fpr%2F1/"},
		{loc: "hf://org", ok: true, wantCode: CodeBadLocation},
		{loc: "hf://org/na me", ok: true, wantCode: CodeBadLocation},
		{loc: "hf://../x", ok: true, wantCode: CodeBadLocation},
		{loc: "hf://org/name@", ok: true, wantCode: CodeBadLocation},
		{loc: "http://", ok: true, wantCode: CodeBadLocation},
		{loc: "http://127.0.0.1:1/dir/?x=1", ok: true, wantCode: CodeBadLocation},
	} {
		t.Run(tc.loc, func(t *testing.T) {
			fsys, file, ok, err := ParseLocationOptions(tc.loc, Options{CacheSize: -1})
			if ok != tc.ok {
				t.Fatalf("ok = %v", ok)
			}
			if tc.wantCode != "" {
				wantCode(t, err, tc.wantCode)
				if !errors.Is(err, ErrBadLocation) {
					t.Errorf("errors.Is(%v, ErrBadLocation) = false", err)
				}
				return
			}
			require.NoError(t, err)
			if !ok {
				if fsys != nil {
					t.Fatal("FS for a local path")
				}
				return
			}
			if fsys.String() != tc.base || file != tc.file {
				t.Errorf("got %q + %q, want %q + %q", fsys.String(), file, tc.base, tc.file)
			}
			if _, err := fsys.List(); !errors.Is(err, source.ErrNotListable) {
				t.Errorf("List: %v", err)
			}
		})
	}
}

// TestRedact hides a URL's password, all before the last "@" of one that
// does not parse (its password may hold an "@").
func TestRedact(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"http://user:secret@127.0.0.1:1/dir/", "http://user:xxxxx@127.0.0.1:1/dir/"},
		{"http://127.0.0.1:1/dir/", "http://127.0.0.1:1/dir/"},
		{"http://user:se@cret@[::1/", "…@[::1/"},
		{"http://h/%zz", "http://h/%zz"},
	} {
		require.Equal(t, tc.want, Redact(tc.raw), tc.raw)
	}
}

func TestHubTokenOnlyForEndpoint(t *testing.T) {
	t.Setenv("HF_ENDPOINT", "http://127.0.0.1:9")
	t.Setenv("HF_TOKEN", "hf_secret")
	fsys, _, _, err := ParseLocationOptions("hf://org/name", Options{CacheSize: -1})
	require.NoError(t, err)
	if fsys.(*FS).opts.Token != "hf_secret" {
		t.Error("hf:// on the endpoint did not get HF_TOKEN")
	}
	fsys, _, _, err = ParseLocationOptions("http://127.0.0.1:10/dir/", Options{CacheSize: -1})
	require.NoError(t, err)
	if fsys.(*FS).opts.Token != "" {
		t.Error("a URL on another host got HF_TOKEN")
	}
}

// TestTokenNotSentToRedirectTarget runs an endpoint and a storage server
// on two loopback ports, both capturing Authorization. It counts the
// requests, so its timeouts are ones load cannot reach: a retry after a
// timeout on a busy machine made one more.
func TestTokenNotSentToRedirectTarget(t *testing.T) {
	data := pattern(3<<20, 1)
	var mu sync.Mutex
	var storageAuth, endpointAuth []string
	storage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		storageAuth = append(storageAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("ETag", `"v1"`)
		http.ServeContent(w, r, "blob", time.Time{}, bytes.NewReader(data))
	}))
	defer storage.Close()
	endpoint := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		endpointAuth = append(endpointAuth, r.Header.Get("Authorization"))
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/missing.json") {
			http.NotFound(w, r)
			return
		}
		http.Redirect(w, r, storage.URL+"/blob?sig=1", http.StatusFound)
	}))
	defer endpoint.Close()
	t.Setenv("HF_ENDPOINT", endpoint.URL)
	t.Setenv("HF_TOKEN", "hf_secret")

	fsys, _, _, err := ParseLocationOptions("hf://org/name@main", calmOptions())
	require.NoError(t, err)
	f, err := fsys.(*FS).OpenFile("model.safetensors")
	require.NoError(t, err)
	readAt(t, f, data, 2<<20+5, 100)
	_, err = fsys.Open("missing.json")
	if !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "hf_secret") {
		t.Errorf("missing file: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(endpointAuth) == 0 || endpointAuth[0] != "Bearer hf_secret" {
		t.Errorf("endpoint saw Authorization %q", endpointAuth)
	}
	for _, a := range storageAuth {
		if a != "" {
			t.Errorf("storage host got Authorization %q", a)
		}
	}
	// The second read went to the storage URL directly, without the
	// redirect hop: one resolve for Open, one for missing.json.
	if len(storageAuth) != 2 || len(endpointAuth) != 2 {
		t.Errorf("storage saw %d requests, endpoint %d; want 2 and 2", len(storageAuth), len(endpointAuth))
	}
}

// TestModelRequests reads what a model check reads, over nginx, and
// counts the requests per file in nginx's log.
func TestModelRequests(t *testing.T) {
	root := t.TempDir()
	config := []byte(`{"architectures":["Qwen3ForCausalLM"]}`)
	index := []byte(`{"metadata":{},"weight_map":{"a":"model-00001-of-00002.safetensors"}}`)
	small := tinySafetensors(t, 1000, 0)
	big := tinySafetensors(t, 300000, 1500000) // a 1.5 MB header
	writeFile(t, root, "config.json", config)
	writeFile(t, root, "model.safetensors.index.json", index)
	writeFile(t, root, "model-00001-of-00002.safetensors", small)
	writeFile(t, root, "model-00002-of-00002.safetensors", big)
	s := nginxtest.Start(t, root)
	fsys := newFS(t, s.URL+"/", testOptions())

	for name, want := range map[string][]byte{"config.json": config, "model.safetensors.index.json": index} {
		got, err := source.ReadFile(fsys, name, 1<<20)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%s: %v", name, err)
		}
	}
	names := []string{"model-00001-of-00002.safetensors", "model-00002-of-00002.safetensors"}
	files := make([]source.File, len(names))
	for i, name := range names {
		f, err := fsys.Open(name)
		require.NoError(t, err)
		files[i] = f
		sf, err := safetensors.NewFile(f)
		if err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		if tn := sf.Tensor("a"); tn == nil {
			t.Fatalf("%s: no tensor a", names[i])
		}
		defer f.Close()
	}
	reqs := s.Requests(t)
	for name, want := range map[string]int{
		"config.json":                      1,
		"model.safetensors.index.json":     1,
		"model-00001-of-00002.safetensors": 1,
		"model-00002-of-00002.safetensors": 2,
	} {
		if got := nginxtest.Count(reqs, "/"+name, nil); got != want {
			t.Errorf("%s: %d requests, want %d: %v", name, got, want, ranges(reqs, "/"+name))
		}
	}
	// The first request of a file is its first chunk; the second goes on
	// from there, guarded by If-Range.
	var second nginxtest.Request
	for _, r := range reqs {
		if r.Path == "/"+names[1] {
			second = r
		}
	}
	if got := ranges(reqs, "/"+names[1])[0]; got != "bytes=0-1048575 206" {
		t.Errorf("first request %q", got)
	}
	if second.Range != "bytes=1048576-2097151" || second.IfRange == "" || second.Status != 206 {
		t.Errorf("second request %+v", second)
	}

	// Tensor data is fetched when read, and read right.
	f := files[1]
	buf := make([]byte, 8)
	dataStart := int64(len(big) - 300000*4)
	if _, err := f.ReadAt(buf, dataStart+4*299998); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf, big[len(big)-8:]) {
		t.Error("tensor bytes differ")
	}
}

func TestLazyReads(t *testing.T) {
	_, data, s := serveBlob(t, 10<<20+123, 3)
	fsys := newFS(t, s.URL, testOptions())
	f := openFile(t, fsys, "blob.bin")
	if f.Size() != int64(len(data)) || f.Mode() != 0o444 || f.ModTime().IsZero() || f.ETag() == "" {
		t.Fatalf("size %d mode %v mtime %v etag %q", f.Size(), f.Mode(), f.ModTime(), f.ETag())
	}
	if f.Name() != s.URL+"/blob.bin" {
		t.Errorf("Name %q", f.Name())
	}
	readAt(t, f, data, 5<<20+10, 100)
	readAt(t, f, data, 5<<20+2000, 100) // same chunk: no request
	readAt(t, f, data, 3<<20-50, 100)   // across chunks 2 and 3: one request
	readAt(t, f, data, int64(len(data))-7, 7)
	buf := make([]byte, 20)
	if n, err := f.ReadAt(buf, int64(len(data))-5); n != 5 || err != io.EOF {
		t.Errorf("read past the end: %d, %v", n, err)
	}
	if n, err := f.ReadAt(buf, int64(len(data))); n != 0 || err != io.EOF {
		t.Errorf("read at the end: %d, %v", n, err)
	}
	reqs := s.Requests(t)
	conns := map[int64]bool{}
	for _, r := range reqs {
		conns[r.Conn] = true
	}
	if len(conns) != 1 {
		t.Errorf("sequential requests used %d connections, want 1 kept alive", len(conns))
	}
	got := ranges(reqs, "/blob.bin")
	want := []string{
		"bytes=0-1048575 206",
		"bytes=5242880-6291455 206",
		"bytes=2097152-4194303 206",
		"bytes=10485760-10485882 206",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestEmptyAndSmallFiles(t *testing.T) {
	root := t.TempDir()
	writeFile(t, root, "empty", nil)
	writeFile(t, root, "sub dir/a+b.json", []byte(`{"x":1}`))
	s := nginxtest.Start(t, root)
	fsys := newFS(t, s.URL, testOptions())
	f := openFile(t, fsys, "empty")
	if f.Size() != 0 {
		t.Errorf("empty file has size %d", f.Size())
	}
	if err := f.Revalidate(); err != nil {
		t.Errorf("Changed: %v", err)
	}
	got, err := source.ReadFile(fsys, "sub dir/a+b.json", 100)
	if err != nil || string(got) != `{"x":1}` {
		t.Errorf("escaped name: %q, %v", got, err)
	}
	if _, err := fsys.Open("../etc/passwd"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("invalid name: %v", err)
	}
	if _, err := fsys.Open("nope.json"); !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, ErrNotFound) ||
		!strings.Contains(err.Error(), s.URL+"/nope.json") {
		t.Errorf("missing file: %v", err)
	}
}

func TestReadaheadAndSharedFetches(t *testing.T) {
	_, data, s := serveBlob(t, 64<<20, 5)
	fsys := newFS(t, s.URL, testOptions())
	f := openFile(t, fsys, "blob.bin")

	// Sequential 128 KiB reads, as the kernel sends them through FUSE.
	const step = 128 << 10
	for off := int64(0); off < 16<<20; off += step {
		readAt(t, f, data, off, step)
	}
	n := nginxtest.Count(s.Requests(t), "/blob.bin", nil)
	if n >= 16 {
		t.Errorf("16 MiB read sequentially took %d requests: readahead did not coalesce", n)
	}
	t.Logf("16 MiB sequential in 128 KiB reads: %d requests", n)

	// Eight readers of one chunk share one request (a chunk far beyond
	// the readahead, counted once the readahead has landed).
	waitIdle(t, f)
	before := nginxtest.Count(s.Requests(t), "/blob.bin", nil)
	var wg sync.WaitGroup
	var bad atomic.Int32
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1000)
			if _, err := f.ReadAt(buf, 60<<20+77); err != nil || !bytes.Equal(buf, data[60<<20+77:60<<20+1077]) {
				bad.Add(1)
			}
		}()
	}
	wg.Wait()
	if bad.Load() != 0 {
		t.Fatal("a concurrent reader got an error or wrong bytes")
	}
	if got := nginxtest.Count(s.Requests(t), "/blob.bin", nil) - before; got != 1 {
		t.Errorf("8 concurrent readers of one chunk made %d requests", got)
	}
}

func TestCacheBounds(t *testing.T) {
	_, data, s := serveBlob(t, 2<<20, 9)
	opts := testOptions()
	opts.ChunkSize = 64 << 10
	opts.MemCacheSize = 3 * 64 << 10
	opts.CacheDir = t.TempDir()
	opts.CacheSize = 5*(64<<10+4) + 100
	opts.MaxReadahead = -1
	fsys := newFS(t, s.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	for i := range int64(20) {
		readAt(t, f, data, i*(64<<10)+1, 10) // chunks 0..19, not sequential
		if m := fsys.mem.bytes(); m > opts.MemCacheSize {
			t.Fatalf("memory cache at %d bytes, bound %d", m, opts.MemCacheSize)
		}
		if d := fsys.disk.bytes(); d > opts.CacheSize {
			t.Fatalf("disk cache at %d bytes, bound %d", d, opts.CacheSize)
		}
	}
	fsys.disk.flush() // the disk cache writes in the background
	if d := diskUsage(t, opts.CacheDir); d > opts.CacheSize {
		t.Fatalf("cache directory holds %d bytes, bound %d", d, opts.CacheSize)
	}
	// A new FS on the same directory (a new mount) finds the recent chunks
	// on disk and fetches only the evicted ones.
	before := nginxtest.Count(s.Requests(t), "/blob.bin", nil)
	forgetDiskCache(t, opts.CacheDir)
	fsys2 := newFS(t, s.URL, opts)
	f2 := openFile(t, fsys2, "blob.bin") // one request, the first chunk
	readAt(t, f2, data, 19*(64<<10)+5, 10)
	readAt(t, f2, data, 18*(64<<10)+5, 10)
	if got := nginxtest.Count(s.Requests(t), "/blob.bin", nil) - before; got != 1 {
		t.Errorf("reading chunks cached on disk made %d requests, want 1 (the open)", got)
	}
	readAt(t, f2, data, 2*(64<<10)+5, 10) // evicted long ago
	if got := nginxtest.Count(s.Requests(t), "/blob.bin", nil) - before; got != 2 {
		t.Errorf("an evicted chunk: %d requests, want 2", got)
	}
}

// TestHubOverNginx reads an hf:// repository from nginx, whose resolve
// URLs redirect to a storage server on another port.
func TestHubOverNginx(t *testing.T) {
	root := t.TempDir()
	shard := tinySafetensors(t, 1<<20, 0) // 4 MiB of data
	writeFile(t, root, "config.json", []byte(`{}`))
	writeFile(t, root, "model.safetensors", shard)
	s := nginxtest.Start(t, root)
	t.Setenv("HF_ENDPOINT", s.URL+"/")
	t.Setenv("HF_TOKEN", "hf_secret")
	fsys, file, ok, err := ParseLocationOptions("hf://org/model@main", testOptions())
	if err != nil || !ok || file != "" {
		t.Fatal(ok, err)
	}
	if got, err := source.ReadFile(fsys, "config.json", 100); err != nil || string(got) != "{}" {
		t.Fatalf("config.json: %q, %v", got, err)
	}
	f, err := fsys.Open("model.safetensors")
	require.NoError(t, err)
	defer f.Close()
	if f.Name() != s.URL+"/org/model/resolve/main/model.safetensors" {
		t.Errorf("Name %q", f.Name())
	}
	sf, err := safetensors.NewFile(f)
	require.NoError(t, err)
	tn := sf.Tensor("a")
	buf := make([]byte, 16)
	if _, err := f.ReadAt(buf, int64(len(shard))-16); err != nil || !bytes.Equal(buf, shard[len(shard)-16:]) || tn == nil {
		t.Fatalf("tensor bytes: %v", err)
	}
	reqs := s.Requests(t)
	resolve := "/org/model/resolve/main/model.safetensors"
	for _, r := range reqs {
		switch r.Path {
		case resolve, "/org/model/resolve/main/config.json":
			if r.Status != 302 || !r.Auth {
				t.Errorf("resolve request %+v: want a 302 that got the token", r)
			}
		default:
			if r.Auth {
				t.Errorf("storage request %+v carried the token", r)
			}
		}
	}
	// Open (and with it the header) is one redirect and one range
	// request; the data read goes straight to storage.
	if n := nginxtest.Count(reqs, resolve, nil); n != 1 {
		t.Errorf("%d resolve requests, want 1", n)
	}
	if got := ranges(reqs, "/storage/model.safetensors"); len(got) != 2 || got[0] != "bytes=0-1048575 206" {
		t.Errorf("storage requests %q", got)
	}
}

// TestStreamingDropsBehind: a long sequential read keeps only the chunks
// near the reader in memory (the kernel caches what it read), however
// large the memory cache, and an early chunk read again comes back right.
func TestStreamingDropsBehind(t *testing.T) {
	_, data, s := serveBlob(t, 100<<20, 7)
	opts := testOptions()
	opts.MemCacheSize = 256 << 20
	fsys := newFS(t, s.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	peak := int64(0)
	for off := int64(0); off < int64(len(data)); off += 1 << 20 {
		readAt(t, f, data, off, 1<<20)
		peak = max(peak, fsys.mem.bytes())
	}
	// Behind the reader streamLag chunks, ahead the readahead and the
	// runs in flight (the file's first chunk is pinned as well).
	bound := int64(streamLag+2)<<20 + DefaultMaxReadahead + fsys.maxRun<<20
	if peak > bound {
		t.Errorf("memory cache peaked at %d MiB while streaming, want at most %d", peak>>20, bound>>20)
	}
	if peak < 8<<20 {
		t.Errorf("memory cache peaked at %d bytes: readahead kept nothing", peak)
	}
	readAt(t, f, data, 3<<20+5, 1000) // long dropped: fetched again
}

// waitIdle waits until f has no fetch in flight (readahead in the
// background included).
func waitIdle(t *testing.T, f *File) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		f.mu.Lock()
		n := len(f.inflight)
		f.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d chunks still in flight", n)
		}
	}
}

func TestRetryAfterIsCapped(t *testing.T) {
	_, p, data := faultSetup(t)
	opts := testOptions()
	opts.MaxRetryAfter = 200 * time.Millisecond
	fsys := newFS(t, p.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	p.Inject("/blob.bin", nginxtest.Fault{Kind: nginxtest.Status, Status: 429, RetryAfter: "3600"})
	start := time.Now()
	readAt(t, f, data, 2<<20, 10)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("Retry-After: 3600 made the read wait %v, cap %v", d, opts.MaxRetryAfter)
	}
}

func TestCorruptDiskChunkIsRefetched(t *testing.T) {
	_, data, s := serveBlob(t, 1<<20, 4)
	opts := testOptions()
	opts.ChunkSize = 64 << 10
	opts.CacheDir = t.TempDir()
	opts.CacheSize = 1 << 20
	fsys := newFS(t, s.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	readAt(t, f, data, 5*(64<<10), 10)
	fsys.disk.flush() // the disk cache writes in the background
	// Flip a byte of the cached chunk 5.
	datas, _ := filepath.Glob(filepath.Join(opts.CacheDir, "*.data"))
	if len(datas) != 1 {
		t.Fatalf("found %d chunk files, want 1: %v", len(datas), datas)
	}
	cf, err := os.OpenFile(datas[0], os.O_RDWR, 0)
	require.NoError(t, err)
	b := make([]byte, 1)
	off := int64(5*(64<<10) + 100)
	if _, err := cf.ReadAt(b, off); err != nil {
		t.Fatal(err)
	}
	b[0] ^= 0xff
	if _, err := cf.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
	cf.Close()
	forgetDiskCache(t, opts.CacheDir)
	before := nginxtest.Count(s.Requests(t), "/blob.bin", nil)
	f2 := openFile(t, newFS(t, s.URL, opts), "blob.bin")
	readAt(t, f2, data, 5*(64<<10), 1000)
	if got := nginxtest.Count(s.Requests(t), "/blob.bin", nil) - before; got != 2 {
		t.Errorf("%d requests, want 2 (open, and the corrupt chunk again)", got)
	}
}

func TestClosedFile(t *testing.T) {
	_, _, s := serveBlob(t, 3<<20, 2)
	f := openFile(t, newFS(t, s.URL, testOptions()), "blob.bin")
	f.Close()
	_, err := f.ReadAt(make([]byte, 10), 2<<20)
	wantCode(t, err, CodeClosed)
}

// TestWithTimeout: --timeout sets the bound of a read with its retries
// and cuts the connect, response and stall timeouts to it, never raising
// one.
func TestWithTimeout(t *testing.T) {
	o := Options{StallTimeout: time.Second}.WithTimeout(5 * time.Second).withDefaults()
	if o.ReadTimeout != 5*time.Second || o.ConnectTimeout != 5*time.Second || o.ResponseTimeout != 5*time.Second || o.StallTimeout != time.Second {
		t.Errorf("WithTimeout(5s): read %v, connect %v, response %v, stall %v", o.ReadTimeout, o.ConnectTimeout, o.ResponseTimeout, o.StallTimeout)
	}
	o = Options{}.WithTimeout(10 * time.Minute).withDefaults()
	if o.ReadTimeout != 10*time.Minute || o.ConnectTimeout != 10*time.Second || o.ResponseTimeout != 30*time.Second || o.StallTimeout != 20*time.Second {
		t.Errorf("WithTimeout(10m): read %v, connect %v, response %v, stall %v", o.ReadTimeout, o.ConnectTimeout, o.ResponseTimeout, o.StallTimeout)
	}
	if o := (Options{}).WithTimeout(0); o != (Options{}) {
		t.Errorf("WithTimeout(0) changed the options: %+v", o)
	}
}

// TestFallbackResumesAfterPublished: a run cut mid-body by the storage
// host a redirect led to, which then refuses the signed URL (403), is
// finished through the file's own URL and a fresh redirect, starting
// after the chunks already published to readers: those may be copied out
// or sent to FUSE at that moment and must not be written again.
func TestFallbackResumesAfterPublished(t *testing.T) {
	const cs = 64 << 10
	data := pattern(8*cs, 6)
	var mu sync.Mutex
	var log []string
	redirects := 0
	serve := func(w http.ResponseWriter, r *http.Request, cut int) {
		var a, b int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &a, &b); err != nil || b >= len(data) {
			b = len(data) - 1
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", a, b, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(b-a+1))
		w.WriteHeader(http.StatusPartialContent)
		if cut > 0 && cut < b-a+1 {
			w.Write(data[a : a+cut])
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection drops mid-body
		}
		w.Write(data[a : b+1])
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		log = append(log, r.URL.Path+" "+r.Header.Get("Range"))
		n := len(log)
		mu.Unlock()
		switch {
		case r.URL.Path == "/blob.bin":
			mu.Lock()
			redirects++
			sig := redirects
			mu.Unlock()
			http.Redirect(w, r, "/signed/"+strconv.Itoa(sig)+"/blob.bin", http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/signed/1/"):
			switch n {
			case 2: // the open's first chunk
				serve(w, r, 0)
			case 3: // the run: one chunk and a bit, then the drop
				serve(w, r, cs+1000)
			default: // the signature has expired
				w.WriteHeader(http.StatusForbidden)
			}
		default:
			serve(w, r, 0)
		}
	}))
	t.Cleanup(srv.Close)
	opts := testOptions()
	opts.ChunkSize = cs
	opts.MaxReadahead = -1
	fsys := newFS(t, srv.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	readAt(t, f, data, cs, 3*cs) // chunks 1-3 in one run
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"/blob.bin bytes=0-65535", "/signed/1/blob.bin bytes=0-65535",
		"/signed/1/blob.bin bytes=65536-262143",  // cut after chunk 1 and 1000 bytes
		"/signed/1/blob.bin bytes=132072-262143", // the retry resumes, refused
		"/blob.bin bytes=131072-262143", "/signed/2/blob.bin bytes=131072-262143",
	}
	if strings.Join(log, "\n") != strings.Join(want, "\n") {
		t.Errorf("requests:\n%s\nwant:\n%s", strings.Join(log, "\n"), strings.Join(want, "\n"))
	}
}

// TestSpanSlice checks span.slice against slicing the joined bytes, for
// every range of a span with an empty piece and pieces of several sizes,
// made at once and lazily.
func TestSpanSlice(t *testing.T) {
	pieces := [][]byte{[]byte("abc"), nil, []byte("d"), []byte("efgh")}
	whole := bytes.Join(pieces, nil)
	join := func(s span) []byte {
		var out []byte
		for p := range s.each() {
			if len(p) == 0 {
				t.Fatalf("an empty piece")
			}
			out = append(out, p...)
		}
		return out
	}
	lazy := func() (span, *[]int) {
		var made []int
		sizes := []int{3, 0, 1, 4}
		return lazySpan(sizes, func(i int) []byte {
			made = append(made, i)
			return bytes.Clone(pieces[i])
		}), &made
	}
	for _, s := range []span{spanOf(pieces...), func() span { s, _ := lazy(); return s }()} {
		if s.len() != len(whole) {
			t.Fatalf("len %d, want %d", s.len(), len(whole))
		}
		for from := 0; from <= len(whole); from++ {
			for to := from; to <= len(whole); to++ {
				got := s.slice(from, to)
				if j := join(got); !bytes.Equal(j, whole[from:to]) || got.len() != to-from {
					t.Fatalf("slice(%d, %d) = %q", from, to, j)
				}
				if j := join(s.slice(2, 7).slice(from*5/8, to*5/8)); !bytes.Equal(j, whole[2:7][from*5/8:to*5/8]) {
					t.Fatalf("slice(2, 7).slice(%d, %d) = %q", from*5/8, to*5/8, j)
				}
			}
		}
	}
	// The pieces share the span's arrays: a fetch fills the chunks.
	s := spanOf(pieces...)
	for p := range s.slice(4, 6).each() {
		p[0] = 'X'
		break
	}
	if pieces[3][0] != 'X' {
		t.Fatal("slice copied")
	}
	pieces[3][0] = 'e'

	// A lazy span makes a piece only when the bytes reach it, once, and
	// a view shares what another made.
	l, made := lazy()
	view := l.slice(3, 8)
	for p := range view.each() {
		if !slices.Equal(*made, []int{2}) {
			t.Fatalf("made %v before the first piece of bytes 3-8 was filled, want [2]", *made)
		}
		p[0] = 'Y'
		break
	}
	for p := range l.slice(3, 4).each() {
		if p[0] != 'Y' {
			t.Fatalf("a view of a piece another made reads %q", p)
		}
	}
	join(l)
	if !slices.Equal(*made, []int{2, 0, 3}) {
		t.Fatalf("made %v, want each piece once, in order of use: [2 0 3]", *made)
	}
}

// TestStreamHoldsFewArrays streams a file chunk by chunk with readahead
// from a server that stops sending at chunk gate, and counts the chunk
// arrays taken from the pool once every request is stuck there: the
// requests in flight hold an array for the chunk each is filling, not
// for all the chunks they asked for, and none for the chunks the reader
// has had (the memory cache, bounded to 4 chunks, holds those it keeps).
// Taking a run's arrays up front and keeping them until it ended held 16
// per request of the readahead window: a stream faulted in that many
// fresh arrays more.
func TestStreamHoldsFewArrays(t *testing.T) {
	const cs, chunks, gate = 64 << 10, 64, 40
	data := pattern(cs*chunks, 5)
	release := make(chan struct{})
	var mu sync.Mutex
	active, stuck := 0, 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var lo, hi int
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &lo, &hi); err != nil {
			http.Error(w, "no range", http.StatusBadRequest)
			return
		}
		hi = min(hi, len(data)-1)
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", lo, hi, len(data)))
		w.Header().Set("Content-Length", strconv.Itoa(hi-lo+1))
		w.WriteHeader(http.StatusPartialContent)
		mu.Lock()
		active++
		mu.Unlock()
		defer func() {
			mu.Lock()
			active--
			mu.Unlock()
		}()
		for pos := lo; pos <= hi; pos = (pos/cs + 1) * cs {
			if pos/cs >= gate {
				mu.Lock()
				stuck++
				mu.Unlock()
				<-release
				return
			}
			w.Write(data[pos:min((pos/cs+1)*cs, hi+1)])
			w.(http.Flusher).Flush()
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	opts := testOptions()
	opts.ChunkSize = cs
	opts.MaxReadahead = 32 * cs
	opts.MemCacheSize = 4 * cs
	opts.StallTimeout, opts.ReadTimeout = 20*time.Second, 30*time.Second
	fsys := newFS(t, srv.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	for i := int64(0); i < gate; i++ {
		readAt(t, f, data, i*cs, cs)
	}
	// Every request in flight is stuck at the gate, and the window
	// reaches the file's end.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		a, s := active, stuck
		mu.Unlock()
		f.mu.Lock()
		_, last := f.inflight[chunks-1]
		f.mu.Unlock()
		if a > 0 && a == s && last {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d requests, %d stuck at the gate, the last chunk in flight: %v", a, s, last)
		}
	}
	// The pinned first chunk, the memory cache's 4 and one per stuck
	// request.
	mu.Lock()
	want := int64(1 + 4 + stuck)
	mu.Unlock()
	if out := fsys.bufs.out.Load(); out > want {
		t.Errorf("%d chunk arrays taken from the pool with the stream stuck at chunk %d, want at most %d", out, gate, want)
	}
}
