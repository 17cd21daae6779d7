package remote

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
)

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
