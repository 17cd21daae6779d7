package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRemoteCacheIsPrivate: fsmount refuses a --cache-dir another user
// owns, in one line and with exit status 2, mounting nothing; and with
// neither XDG_CACHE_HOME, HOME nor XDG_RUNTIME_DIR set, fsinspect keeps
// no disk cache (no shared /tmp/fsmount) and its report says so.
func TestRemoteCacheIsPrivate(t *testing.T) {
	srv, _ := remoteRoot(t)
	model := srv.URL + "/tiny/"

	_, statErr := os.Lstat(filepath.Join(os.TempDir(), "fsmount"))
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	r := runCmd(t, "fsinspect", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "warning: no disk cache: none of XDG_CACHE_HOME, HOME and XDG_RUNTIME_DIR is set")
	if os.IsNotExist(statErr) {
		_, err := os.Lstat(filepath.Join(os.TempDir(), "fsmount"))
		assert.True(t, os.IsNotExist(err), "fsinspect made %s: %v", filepath.Join(os.TempDir(), "fsmount"), err)
	}

	if os.Geteuid() != 0 {
		t.Skip("SKIPPING the other user's directory: making one needs root")
	}
	requireFUSE(t)
	theirs := filepath.Join(t.TempDir(), "cache")
	require.NoError(t, os.Mkdir(theirs, 0o700))
	require.NoError(t, os.Chown(theirs, 65534, 65534))
	mnt := t.TempDir()
	r = runTimeout(t, time.Minute, "fsmount", "--cache-dir", theirs, model, mnt)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	assert.Contains(t, r.stderr, "cache directory "+theirs+" is owned by uid 65534, not by you (uid 0)")
	assert.False(t, mounted(t, mnt))
	ents, err := os.ReadDir(theirs)
	require.NoError(t, err)
	assert.Empty(t, ents, "fsmount wrote into another user's directory")
}
