package e2e

import (
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestUnmountWaitsForDaemon: a daemon still handling a read when its
// mount goes (the read's server stalls, its reader was killed) exits with
// the mount, and fsmount -u returns only once it has; a new mount at the
// same place then has one daemon in --list, not its own and the old one
// (whose FUSE connection had the same number).
func TestUnmountWaitsForDaemon(t *testing.T) {
	requireFUSE(t)
	root := t.TempDir()
	require.NoError(t, testmodel.WriteSparse06B(filepath.Join(root, "m")))
	require.NoError(t, os.Chmod(root, 0o755))
	stalled := make(chan struct{}, 1)
	release := make(chan struct{})
	files := http.FileServer(http.Dir(root))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Each file's first chunk (its header) is served; any other
		// range waits until the test ends.
		if rng := r.Header.Get("Range"); rng != "" && !strings.HasPrefix(rng, "bytes=0-") {
			select {
			case stalled <- struct{}{}:
			default:
			}
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) }) // before srv.Close, which waits for the handlers
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	model := srv.URL + "/m/"
	mnt, pid := mountModel(t, model)

	reader := exec.Command("cat", filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "data"))
	require.NoError(t, reader.Start())
	select {
	case <-stalled:
	case <-time.After(30 * time.Second):
		reader.Process.Kill()
		t.Fatal("the read never reached the server")
	}
	require.NoError(t, reader.Process.Kill())
	_, ok := waitTimeout(reader, 10*time.Second)
	require.True(t, ok, "the killed reader was not reaped")

	r := runTimeout(t, 30*time.Second, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stderr)
	assert.False(t, mounted(t, mnt))
	assert.False(t, fusetest.Alive(pid), "the daemon (pid %d) is still alive after fsmount -u returned", pid)

	// A new mount at the same place: one daemon.
	r = runTimeout(t, time.Minute, "fsmount", "-q", model, mnt)
	require.Equal(t, 0, r.code, r.stderr)
	t.Cleanup(func() { runTimeout(t, 30*time.Second, "fsmount", "-u", mnt) })
	newPid := fusetest.DaemonPid(mnt, "fsmount")
	require.NotZero(t, newPid)
	r = runTimeout(t, time.Minute, "fsmount", "--list")
	require.Equal(t, 0, r.code, r.stderr)
	var line []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == mnt {
			line = f
		}
	}
	require.NotNil(t, line, r.stdout)
	assert.Equal(t, strconv.Itoa(newPid), line[2], "--list: %s", r.stdout)
}

// TestUnmountStoppedDaemon: a daemon that cannot exit (stopped) is not
// waited for: fsmount -u aborts its connection, unmounts, and says at
// once that the daemon exits once continued; continued, it does.
func TestUnmountStoppedDaemon(t *testing.T) {
	mnt, pid := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL); syscall.Kill(pid, syscall.SIGCONT) })
	start := time.Now()
	r := runTimeout(t, 30*time.Second, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "fsmount: "+mnt+" is unmounted, but its daemon (pid "+strconv.Itoa(pid)+") is stopped: it exits once continued")
	assert.Less(t, time.Since(start), 4*time.Second, "-u waited for a stopped daemon")
	assert.False(t, mounted(t, mnt))
	require.NoError(t, syscall.Kill(pid, syscall.SIGCONT))
	waitFor(t, "the daemon to exit", func() bool { return !fusetest.Alive(pid) })
}
