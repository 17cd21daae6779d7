package e2e

// The daemon and fsmount -u under abuse: a closed stderr, kills at any
// moment of start-up, foreign mounts, racing mounts. Every wait is
// bounded, so that a hang fails the test rather than CI.

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/mountinfo"
)

// statTimeout stats path in a child process and reports whether it
// finished within d; a stat stuck on a hung mount must not hang the test.
func statTimeout(t *testing.T, path string, d time.Duration) bool {
	t.Helper()
	cmd := exec.Command("stat", "-c", "%n", path)
	require.NoError(t, cmd.Start())
	_, ok := waitTimeout(cmd, d)
	return ok
}

// shTimeout runs a shell command line like sh, but gives up after d (ok
// is false then).
func shTimeout(t *testing.T, d time.Duration, script string) (out string, code int, ok bool) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	var b strings.Builder
	cmd.Stdout, cmd.Stderr = &b, &b
	require.NoError(t, cmd.Start())
	code, ok = waitTimeout(cmd, d)
	return b.String(), code, ok
}

// TestDaemonSurvivesClosedStderr: fsmount -f -d with its log into head,
// which exits after two lines. The next log line meets a closed pipe; the
// daemon must keep serving, and unmount cleanly when asked.
func TestDaemonSurvivesClosedStderr(t *testing.T) {
	requireFUSE(t)
	model := repoPath("testdata", "tiny-qwen3")
	for i := range 4 {
		mnt := t.TempDir()
		t.Cleanup(func() { forceClear(t, mnt) })
		cmd := exec.Command("sh", "-c", "exec "+filepath.Join(binDir, "fsmount")+" -f -d "+model+" "+mnt+" 2>&1 | head -2 >/dev/null")
		require.NoError(t, cmd.Start())
		waitFor(t, "the mount", func() bool { return mounted(t, mnt) })
		// Each request logs: plenty of writes to the closed pipe. The
		// reads run in a child, so that a hung mount fails the test.
		out, code, ok := shTimeout(t, 10*time.Second, "for i in 1 2 3 4 5 6 7 8 9 10; do ls "+mnt+"/layers/$i "+mnt+"/nope$i 2>/dev/null; done; cat "+mnt+"/verdict")
		require.True(t, ok, "try %d: the mount hangs: the daemon died of its closed stderr", i)
		require.Equal(t, 0, code, "try %d: %s", i, out)
		assert.Contains(t, out, "✓")
		r := runTimeout(t, 30*time.Second, "fsmount", "-u", mnt)
		require.Equal(t, 0, r.code, "try %d: %s", i, r.stderr)
		code, ok = waitTimeout(cmd, 10*time.Second)
		require.True(t, ok, "try %d: the daemon did not exit after -u", i)
		assert.Equal(t, 0, code, "try %d", i)
		assert.False(t, mounted(t, mnt))
	}
}

// TestKilledAtRandomMoments kills fsmount -f with SIGKILL or SIGTERM at
// random moments of its first 20 ms, the window in which go-fuse opens a
// file on its own new mount. Whatever the moment, fsmount -u clears what
// is left (aborting the connection of a daemon stuck in the kernel), the
// killed process is reaped, and the mount point is usable again.
func TestKilledAtRandomMoments(t *testing.T) {
	requireFUSE(t)
	model := repoPath("testdata", "tiny-qwen3")
	mnt := t.TempDir()
	t.Cleanup(func() { forceClear(t, mnt) })
	for i := range 24 {
		sig := syscall.SIGKILL
		if i%2 == 1 {
			sig = syscall.SIGTERM
		}
		delay := time.Duration(rand.IntN(20_000)+200) * time.Microsecond
		cmd := exec.Command(filepath.Join(binDir, "fsmount"), "-f", "-q", model, mnt)
		require.NoError(t, cmd.Start())
		time.Sleep(delay)
		require.NoError(t, cmd.Process.Signal(sig))
		what := sig.String() + " after " + delay.String()
		time.Sleep(50 * time.Millisecond)
		if mounted(t, mnt) {
			r := runTimeout(t, 30*time.Second, "fsmount", "-u", mnt)
			require.Equal(t, 0, r.code, "%s: fsmount -u: %s", what, r.stderr)
			require.False(t, mounted(t, mnt), "%s: still mounted after -u", what)
		}
		code, ok := waitTimeout(cmd, 10*time.Second)
		require.True(t, ok, "%s: the killed fsmount was not reaped: stuck in the kernel", what)
		if sig == syscall.SIGTERM {
			assert.Contains(t, []int{0, -1}, code, "%s: exit status", what)
		}
		require.True(t, statTimeout(t, mnt, 5*time.Second), "%s: the mount point hangs", what)
		require.Equal(t, 0, runTimeout(t, time.Minute, "fsmount", "-q", model, mnt).code, "%s: remount", what)
		require.Equal(t, 0, runTimeout(t, 30*time.Second, "fsmount", "-u", mnt).code, "%s: unmount", what)
	}
}

// TestUnmountHungDaemon: a daemon that cannot answer (stopped here, as a
// killed one stuck in the kernel cannot either) has its connection
// aborted by fsmount -u, which says so and succeeds.
func TestUnmountHungDaemon(t *testing.T) {
	mnt, pid := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	require.NoError(t, syscall.Kill(pid, syscall.SIGSTOP))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL); syscall.Kill(pid, syscall.SIGCONT) })
	r := runTimeout(t, 30*time.Second, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stderr, "the daemon did not answer within 2s: aborted its FUSE connection")
	assert.False(t, mounted(t, mnt))
	require.NoError(t, syscall.Kill(pid, syscall.SIGCONT))
	waitFor(t, "the daemon to exit", func() bool { return !fusetest.Alive(pid) })
}

// TestUnmountRefusesForeignMounts: fsmount -u unmounts only fsmount
// mounts; anything else gets one line and a non-zero exit, and stays.
func TestUnmountRefusesForeignMounts(t *testing.T) {
	dir := t.TempDir()
	r := runCmd(t, "fsmount", "-u", dir)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "fsmount: "+dir+" is not a mount point\n", r.stderr)

	if os.Geteuid() != 0 {
		t.Skip("SKIPPING the tmpfs part: mounting one needs root")
	}
	tmpfs := t.TempDir()
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=1m", "fsmount-test", tmpfs).CombinedOutput()
	require.NoError(t, err, string(out))
	t.Cleanup(func() { exec.Command("umount", "-l", tmpfs).Run() })
	r = runCmd(t, "fsmount", "-u", tmpfs)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "fsmount: "+tmpfs+" is not an fsmount mount (it is tmpfs from fsmount-test): left alone\n", r.stderr)
	assert.True(t, mounted(t, tmpfs), "the tmpfs is still mounted")
}

// TestRacingMounts launches several fsmount calls for one mount point at
// once: exactly one mounts, the others exit 10 saying the point is busy,
// and nothing is stacked.
func TestRacingMounts(t *testing.T) {
	requireFUSE(t)
	model := repoPath("testdata", "tiny-qwen3")
	for round := range 3 {
		mnt := t.TempDir()
		t.Cleanup(func() { forceClear(t, mnt) })
		const n = 6
		results := make([]result, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() { results[i] = runTimeout(t, time.Minute, "fsmount", "-q", model, mnt) })
		}
		wg.Wait()
		won := 0
		for _, r := range results {
			switch r.code {
			case 0:
				won++
			case 10:
				assert.Contains(t, r.stderr, "is busy", "round %d", round)
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "round %d: %q", round, r.stderr)
			default:
				t.Errorf("round %d: exit %d: %s", round, r.code, r.stderr)
			}
		}
		assert.Equal(t, 1, won, "round %d: exactly one wins: %+v", round, results)
		es, err := mountinfo.Read()
		require.NoError(t, err)
		stacked := 0
		for _, e := range es {
			if e.Point == mnt {
				stacked++
			}
		}
		assert.Equal(t, 1, stacked, "round %d: one mount, nothing stacked", round)
		require.Equal(t, 0, runTimeout(t, 30*time.Second, "fsmount", "-u", mnt).code)
		assert.False(t, mounted(t, mnt), "round %d", round)
	}
}
