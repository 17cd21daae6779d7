package model_test

import (
	"bytes"
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
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	defer bare.Close()
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
