package remote

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
