package remote

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/source"
)

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
