package model_test

import (
	"bytes"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source/remote"
)

// TestUnversionedServerWarns opens a model from a server that sends
// neither ETag nor Last-Modified: its warnings say that a change there
// cannot be detected; from http.FileServer (Last-Modified) they do not.
func TestUnversionedServerWarns(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	bare := serveWith(t, dir, nil)
	files := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer files.Close()

	opts := &remote.Options{CacheSize: -1}
	m, err := model.OpenWith(bare.URL+"/", opts)
	require.NoError(t, err)
	defer m.Close()
	var found bool
	for _, w := range m.Warnings() {
		found = found || strings.Contains(w, "neither an ETag nor Last-Modified") && strings.Contains(w, "cannot be detected")
	}
	assert.True(t, found, "warnings %q", m.Warnings())

	m2, err := model.OpenWith(files.URL+"/", opts)
	require.NoError(t, err)
	defer m2.Close()
	for _, w := range m2.Warnings() {
		assert.NotContains(t, w, "cannot be detected")
	}
}

// TestWeakETagServerWarns opens a model from a server that sends only a
// weak ETag (as nginx does for a response it transforms): the warning
// says that a weak ETag is compared with every answer but cannot make a
// range request conditional, not that the server sends no ETag.
func TestWeakETagServerWarns(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	weak := serveWith(t, dir, http.Header{"Etag": {`W/"v1"`}})
	m, err := model.OpenWith(weak.URL+"/", &remote.Options{CacheSize: -1})
	require.NoError(t, err)
	defer m.Close()
	var found bool
	for _, w := range m.Warnings() {
		assert.NotContains(t, w, "neither an ETag nor Last-Modified")
		found = found || strings.Contains(w, "only a weak ETag") && strings.Contains(w, "If-Range")
	}
	assert.True(t, found, "warnings %q", m.Warnings())
}

// serveWith serves dir's files with http.ServeContent, which sends no
// Last-Modified for them, each answer with the headers hdr; it is closed
// when the test ends.
func serveWith(t *testing.T, dir string, hdr http.Header) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		maps.Copy(w.Header(), hdr)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(s.Close)
	return s
}
