package e2e

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestMountRemoteReplacedLastModified mounts a model from Go's
// http.FileServer, which sends Last-Modified and no ETag, and replaces the
// file there (the same size, other values): a read of what was not yet
// fetched fails with EIO and the verdict turns to "files changed", never
// a tensor of old and new bytes. From a server that sends neither
// validator, the verdict warns that a change cannot be detected.
func TestMountRemoteReplacedLastModified(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Chmod(root, 0o755))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ts := []testmodel.Tensor{{Name: "a", DType: "F32", Shape: []uint64{1 << 20}}}
	file := filepath.Join(root, "m.safetensors")
	require.NoError(t, testmodel.WriteFile(file, ts, nil, 1))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(file, old, old))
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(srv.Close)

	mnt, _ := mountModel(t, srv.URL+"/m.safetensors")
	require.NoError(t, testmodel.WriteFile(file+".new", ts, nil, 2))
	require.NoError(t, os.Rename(file+".new", file))
	_, err := os.ReadFile(filepath.Join(mnt, "a", "data"))
	assert.ErrorIs(t, err, syscall.EIO)
	waitFor(t, "the verdict to say the files changed", func() bool {
		v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
		return err == nil && strings.HasPrefix(string(v), "✗ files changed since mounting")
	})

	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(file)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(bare.Close)
	r := runCmd(t, "fsinspect", bare.URL+"/m.safetensors")
	require.Equal(t, 3, r.code, "a lone file is not checked: %s", r.stderr)
	assert.Contains(t, r.stdout, "warning: "+bare.URL+"/m.safetensors: the server sends neither an ETag nor Last-Modified, so a file replaced there while in use cannot be detected")
}
