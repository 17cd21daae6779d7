package remote

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// faultSetup serves a 4 MiB file (and a small one) by nginx behind a
// fault-injecting proxy.
func faultSetup(t *testing.T) (s *nginxtest.Server, p *nginxtest.Proxy, data []byte) {
	t.Helper()
	root := t.TempDir()
	data = pattern(4<<20, 7)
	writeFile(t, root, "blob.bin", data)
	writeFile(t, root, "config.json", []byte(`{"small":true}`))
	s = nginxtest.Start(t, root)
	p = nginxtest.NewProxy(t, s.URL)
	return s, p, data
}

func proxied(p *nginxtest.Proxy) int {
	n := 0
	for _, r := range p.Requests() {
		if r.Path == "/blob.bin" {
			n++
		}
	}
	return n
}

func TestRetriedStatuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fault   nginxtest.Fault
		minWait time.Duration
	}{
		{"500", nginxtest.Fault{Kind: nginxtest.Status, Status: 500}, 0},
		{"503", nginxtest.Fault{Kind: nginxtest.Status, Status: 503}, 0},
		{"429 Retry-After", nginxtest.Fault{Kind: nginxtest.Status, Status: 429, RetryAfter: "1"}, time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, p, data := faultSetup(t)
			fsys := newFS(t, p.URL, testOptions())
			p.Inject("/blob.bin", tc.fault) // on Open
			f := openFile(t, fsys, "blob.bin")
			p.Inject("/blob.bin", tc.fault, tc.fault) // on a read
			start := time.Now()
			readAt(t, f, data, 3<<20, 1000)
			if d := time.Since(start); d < 2*tc.minWait {
				t.Errorf("read took %v, Retry-After asked for %v twice", d, tc.minWait)
			}
			if n := proxied(p); n != 5 {
				t.Errorf("%d requests, want 5 (2 for Open, 3 for the read)", n)
			}
		})
	}
}

func TestRetriesAreBounded(t *testing.T) {
	_, p, _ := faultSetup(t)
	opts := testOptions()
	opts.MaxRetries = 3
	fsys := newFS(t, p.URL, opts)
	p.SetDefault(nginxtest.Fault{Kind: nginxtest.Status, Status: 503})
	_, err := fsys.Open("blob.bin")
	wantCode(t, err, CodeUnavailable)
	if e := new(Error); !errors.As(err, &e) || e.Status != 503 || e.URL != p.URL+"/blob.bin" {
		t.Errorf("error %#v", err)
	}
	if n := proxied(p); n != 4 {
		t.Errorf("%d requests, want 1 + 3 retries", n)
	}
}

func TestResetMidBodyResumes(t *testing.T) {
	s, p, data := faultSetup(t)
	fsys := newFS(t, p.URL, testOptions())
	f := openFile(t, fsys, "blob.bin")
	p.Inject("/blob.bin", nginxtest.Fault{Kind: nginxtest.Reset, After: 300000})
	readAt(t, f, data, 2<<20+10, 100)
	got := ranges(s.Requests(t), "/blob.bin")
	// nginx may log the cut request as 206 with fewer bytes; the resumed
	// one starts where the body stopped.
	if len(got) != 3 || got[2] != "bytes=2397152-3145727 206" {
		t.Errorf("requests %q", got)
	}
}

func TestStalledBody(t *testing.T) {
	_, p, data := faultSetup(t)
	opts := testOptions()
	fsys := newFS(t, p.URL, opts)
	f := openFile(t, fsys, "blob.bin")

	// A stall is abandoned after StallTimeout and retried.
	p.Inject("/blob.bin", nginxtest.Fault{Kind: nginxtest.Stall, After: 1000, Stall: 10 * time.Second})
	start := time.Now()
	readAt(t, f, data, 1<<20, 100)
	if d := time.Since(start); d < opts.StallTimeout || d > opts.StallTimeout+3*time.Second {
		t.Errorf("stalled read took %v, StallTimeout %v", d, opts.StallTimeout)
	}

	// Stalling every time: a timeout error, within the bounds.
	opts.MaxRetries = 1
	fsys = newFS(t, p.URL, opts)
	f = openFile(t, fsys, "blob.bin")
	p.SetDefault(nginxtest.Fault{Kind: nginxtest.Stall, After: 10, Stall: 10 * time.Second})
	start = time.Now()
	_, err := f.ReadAt(make([]byte, 10), 3<<20)
	wantCode(t, err, CodeTimeout)
	if d := time.Since(start); d > 2*opts.StallTimeout+2*time.Second {
		t.Errorf("gave up after %v", d)
	}
}

// TestReadTimeoutSaysSo: a read cut by ReadTimeout while a body is
// still coming says that its time ran out and how far the body came, not
// only "context deadline exceeded" (what it said before; fsmount
// --timeout makes ReadTimeout as short as the stall timeout, so a stall
// showed that way).
func TestReadTimeoutSaysSo(t *testing.T) {
	_, p, _ := faultSetup(t)
	opts := testOptions()
	opts.ReadTimeout = 500 * time.Millisecond
	opts.StallTimeout = 5 * time.Second
	fsys := newFS(t, p.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	p.SetDefault(nginxtest.Fault{Kind: nginxtest.Stall, After: 10, Stall: 10 * time.Second})
	_, err := f.ReadAt(make([]byte, 10), 3<<20)
	wantCode(t, err, CodeTimeout)
	want := p.URL + "/blob.bin: remote: timeout: no answer within 500ms (with retries): body cut after 10 of 1048576 bytes: context deadline exceeded"
	if err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("errors.Is(context.DeadlineExceeded) false for %v", err)
	}
}

// TestSlowResponse: an answer slower than usual but within the response
// timeout is read, one that does not come within it fails with
// CodeTimeout. Both are held at the proxy rather than delayed by a clock,
// so that the machine's load cannot turn one into the other.
func TestSlowResponse(t *testing.T) {
	_, p, data := faultSetup(t)
	patient := calmOptions()
	patient.MaxRetries = -1
	f := openFile(t, newFS(t, p.URL, patient), "blob.bin")
	hold, held := make(chan struct{}), make(chan struct{}, 1)
	p.SetDefault(nginxtest.Fault{Hold: hold, Held: held})
	go func() { <-held; close(hold) }() // let go once it waits
	readAt(t, f, data, 2<<20, 10)

	opts := calmOptions()
	opts.ResponseTimeout = 300 * time.Millisecond
	opts.MaxRetries = -1
	f = openFile(t, newFS(t, p.URL, opts), "blob.bin")
	p.SetDefault(nginxtest.Fault{Hold: make(chan struct{})}) // never answered
	_, err := f.ReadAt(make([]byte, 10), 3<<20)
	wantCode(t, err, CodeTimeout)
}

func TestRangeIgnored(t *testing.T) {
	_, p, data := faultSetup(t)
	fsys := newFS(t, p.URL, testOptions())
	f := refusedOnce(t, fsys, p, nginxtest.IgnoreRange, CodeRangeIgnored)
	readAt(t, f, data, 2<<20, 10) // the next attempt is fine

	// A small file sent whole is exactly the bytes asked for.
	p.Inject("/config.json", nginxtest.Fault{Kind: nginxtest.IgnoreRange})
	small := openFile(t, fsys, "config.json")
	buf := make([]byte, small.Size())
	if _, err := small.ReadAt(buf, 0); err != nil || string(buf) != `{"small":true}` {
		t.Errorf("small file sent whole: %q, %v", buf, err)
	}
}

func TestNginxIgnoringRange(t *testing.T) {
	s, _, _ := faultSetup(t)
	fsys := newFS(t, s.URL+"/norange/", testOptions())
	_, err := fsys.Open("blob.bin")
	wantCode(t, err, CodeRangeIgnored)
}

func TestWrongContentRange(t *testing.T) {
	_, p, _ := faultSetup(t)
	refusedOnce(t, newFS(t, p.URL, testOptions()), p, nginxtest.WrongContentRange, CodeBadContentRange)
}

func TestETagChanges(t *testing.T) {
	s, p, data := faultSetup(t)
	fsys := newFS(t, p.URL, testOptions())
	f := openFile(t, fsys, "blob.bin")
	if err := f.Revalidate(); err != nil {
		t.Fatalf("Changed before any change: %v", err)
	}

	// A 206 with another ETag.
	p.Inject("/blob.bin", nginxtest.Fault{Kind: nginxtest.ChangeETag})
	_, err := f.ReadAt(make([]byte, 10), 2<<20)
	wantCode(t, err, CodeChanged)
	readAt(t, f, data, 2<<20, 10)

	// The file replaced on the server: nginx's ETag changes, If-Range
	// makes it answer 200, and the read is an error, never new bytes.
	writeFile(t, s.Root, "blob.bin", pattern(len(data), 99))
	touch(t, s.Root, "blob.bin", time.Now().Add(time.Hour))
	_, err = f.ReadAt(make([]byte, 10), 3<<20)
	wantCode(t, err, CodeChanged)
	if !errors.Is(err, ErrChanged) {
		t.Errorf("errors.Is(ErrChanged) false for %v", err)
	}
	wantCode(t, f.Revalidate(), CodeChanged)
	readAt(t, f, data, 2<<20, 10) // still cached from before: the old file's bytes

	// The same size but shorter: a 416 or a total that differs.
	writeFile(t, s.Root, "blob.bin", data[:1000])
	_, err = f.ReadAt(make([]byte, 10), 3<<20+500)
	wantCode(t, err, CodeChanged)
}

func TestServerDownThenUp(t *testing.T) {
	_, p, data := faultSetup(t)
	opts := testOptions()
	opts.ReadTimeout = 2 * time.Second
	opts.RetryBase = 100 * time.Millisecond
	opts.RetryMax = 400 * time.Millisecond
	opts.MaxRetries = 20
	fsys := newFS(t, p.URL, opts)
	f := openFile(t, fsys, "blob.bin")
	p.Stop()
	start := time.Now()
	_, err := f.ReadAt(make([]byte, 10), 2<<20)
	if c := CodeOf(err); c != CodeTimeout && c != CodeUnavailable {
		t.Fatalf("read from a server that is down: %v", err)
	}
	if d := time.Since(start); d > opts.ReadTimeout+time.Second {
		t.Errorf("failed after %v, ReadTimeout %v", d, opts.ReadTimeout)
	}
	t.Logf("down: %v after %v", err, time.Since(start).Round(time.Millisecond))
	p.Restart(t)
	readAt(t, f, data, 2<<20, 10)
	readAt(t, f, data, 3<<20, 10)
}

// TestMalformedAnswers opens a file of a server that answers wrongly, and
// checks that the error names what is wrong, at once where a retry cannot
// help: a redirect to a scheme other than http(s), a Content-Length that
// is not the length of the Content-Range, a body compressed although
// identity was asked for.
func TestMalformedAnswers(t *testing.T) {
	data := pattern(4096, 3)
	var zipped bytes.Buffer
	zw := gzip.NewWriter(&zipped)
	zw.Write(data)
	zw.Close()

	for _, tc := range []struct {
		name     string
		handler  http.HandlerFunc
		code     Code
		detail   string
		requests int64 // how many the server should see: 1 = no retry
	}{
		{
			name: "redirect to file://",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
			},
			code: CodeBadLocation, detail: "redirected to a file:// URL", requests: 1,
		},
		{
			name: "redirect to ftp://",
			handler: func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "ftp://127.0.0.1/blob.bin", http.StatusMovedPermanently)
			},
			code: CodeBadLocation, detail: "redirected to a ftp:// URL", requests: 1,
		},
		{
			name: "Content-Length longer than the range",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(data)-1, len(data)))
				w.Header().Set("Content-Length", strconv.Itoa(len(data)+100))
				w.WriteHeader(http.StatusPartialContent)
				w.Write(data)
				// The handler returns with the body short of its
				// Content-Length: net/http closes the connection.
			},
			code:     CodeBadContentRange,
			detail:   fmt.Sprintf(`Content-Length %d does not match Content-Range "bytes 0-4095/4096" (4096 bytes)`, len(data)+100),
			requests: 1,
		},
		{
			name: "Content-Length shorter than the range",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(data)-1, len(data)))
				w.Header().Set("Content-Length", "1000")
				w.WriteHeader(http.StatusPartialContent)
				w.Write(data[:1000])
			},
			code:     CodeBadContentRange,
			detail:   `Content-Length 1000 does not match Content-Range "bytes 0-4095/4096" (4096 bytes)`,
			requests: 1,
		},
		{
			name: "gzip-encoded 206",
			handler: func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Content-Range", fmt.Sprintf("bytes 0-%d/%d", len(data)-1, len(data)))
				w.Header().Set("Content-Length", strconv.Itoa(zipped.Len()))
				w.WriteHeader(http.StatusPartialContent)
				w.Write(zipped.Bytes())
			},
			code: CodeBadContentRange, detail: "server compressed a range response (Content-Encoding: gzip)", requests: 1,
		},
		{
			name: "gzip-encoded 200",
			handler: func(w http.ResponseWriter, r *http.Request) {
				// The whole (small) file, compressed: its length is
				// plausible, its bytes are not the file's.
				w.Header().Set("Content-Encoding", "gzip")
				w.Header().Set("Content-Length", strconv.Itoa(zipped.Len()))
				w.Write(zipped.Bytes())
			},
			code: CodeBadContentRange, detail: "server compressed a range response (Content-Encoding: gzip)", requests: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				n.Add(1)
				tc.handler(w, r)
			}))
			defer srv.Close()
			fsys := newFS(t, srv.URL, testOptions())
			_, err := fsys.Open("blob.bin")
			require.Error(t, err)
			var e *Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tc.code, e.Code, "error: %v", err)
			assert.Contains(t, e.Detail, tc.detail, "error: %v", err)
			assert.Equal(t, tc.requests, n.Load(), "requests the server saw (1: not retried)")
		})
	}
}

// refusedOnce injects a fault of kind for /blob.bin twice: the open
// fails with code, and so does a read of the file opened after it. It
// returns the file.
func refusedOnce(t *testing.T, fsys *FS, p *nginxtest.Proxy, kind nginxtest.FaultKind, code Code) *File {
	t.Helper()
	p.Inject("/blob.bin", nginxtest.Fault{Kind: kind})
	_, err := fsys.Open("blob.bin")
	wantCode(t, err, code)
	f := openFile(t, fsys, "blob.bin")
	p.Inject("/blob.bin", nginxtest.Fault{Kind: kind})
	_, err = f.ReadAt(make([]byte, 10), 2<<20)
	wantCode(t, err, code)
	return f
}
