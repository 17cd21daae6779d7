package remote

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/nginxtest"
)

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
	root := t.TempDir()
	data := pattern(1<<20, 4)
	writeFile(t, root, "blob.bin", data)
	s := nginxtest.Start(t, root)
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
	if err != nil {
		t.Fatal(err)
	}
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
	root := t.TempDir()
	data := pattern(3<<20, 2)
	writeFile(t, root, "blob.bin", data)
	s := nginxtest.Start(t, root)
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
