package e2e

import (
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/mountinfo"
)

func requireFUSE(t *testing.T) { fusetest.RequireFUSE(t) }

// mounted reports whether mnt is a mount point, from /proc/self/mountinfo.
func mounted(t *testing.T, mnt string) bool {
	t.Helper()
	es, err := mountinfo.Read()
	require.NoError(t, err)
	return mountinfo.Top(es, mnt) != nil
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mountModel runs fsmount MODEL MNT as a user would and returns the mount
// point and the daemon's pid; the mount is removed when the test ends.
func mountModel(t *testing.T, model string, opts ...string) (string, int) {
	t.Helper()
	requireFUSE(t)
	mnt := t.TempDir()
	r := runCmd(t, "fsmount", append(opts, model, mnt)...)
	require.Equal(t, 0, r.code, "fsmount: %s", r.stderr)
	require.Empty(t, r.stderr)
	require.True(t, mounted(t, mnt), "fsmount returned before the mount was live")
	pid := fusetest.DaemonPid(mnt, "fsmount")
	require.NotZero(t, pid, "no daemon serves %s", mnt)
	t.Cleanup(func() {
		if mounted(t, mnt) {
			runCmd(t, "fsmount", "-u", mnt)
		}
		if fusetest.Alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return mnt, pid
}

// sh runs a shell command line and returns its output and exit code.
func sh(t *testing.T, script string) (string, int) {
	t.Helper()
	out, err := exec.Command("sh", "-c", script).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("sh -c %q: %v", script, err)
	}
	return string(out), code
}
