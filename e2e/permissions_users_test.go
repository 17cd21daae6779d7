package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// asNobody runs a shell command as uid/gid 65534 (needs root).
func asNobody(t *testing.T, script string) (string, int) {
	t.Helper()
	out, err := exec.Command("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", script).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("setpriv: %v", err)
	}
	return string(out), code
}

func requireRootForOtherUser(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: switching to another uid needs root; the root run of this suite covers it")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatalf("setpriv (util-linux) is needed: %v", err)
	}
}

// TestOtherUserShutOut: without allow_other, another uid cannot even stat
// the mount.
func TestOtherUserShutOut(t *testing.T) {
	requireRootForOtherUser(t)
	mnt, _ := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	// Let nobody reach the mount point, so that only the mount refuses.
	require.NoError(t, os.Chmod(filepath.Dir(mnt), 0o755))
	for _, cmd := range []string{"cat " + mnt + "/verdict", "ls " + mnt, "cat " + mnt + "/embed_tokens/data"} {
		out, code := asNobody(t, cmd)
		assert.NotEqual(t, 0, code, "%s as nobody succeeded: %s", cmd, out)
		assert.Contains(t, out, "Permission denied", cmd)
	}
}

// TestAllowOther: with allow_other another uid may read, and the kernel
// still enforces the tree's modes (default_permissions): nothing is
// writable.
func TestAllowOther(t *testing.T) {
	requireRootForOtherUser(t)
	mnt, _ := mountModel(t, repoPath("testdata", "tiny-qwen3"), "-o", "allow_other")
	require.NoError(t, os.Chmod(filepath.Dir(mnt), 0o755))
	out, code := asNobody(t, "cat "+mnt+"/verdict")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "✓")
	out, code = asNobody(t, "test -w "+mnt+"/verdict || test -w "+mnt+"/layers || echo denied")
	assert.Equal(t, 0, code)
	assert.Equal(t, "denied\n", out)
	out, code = asNobody(t, "echo x > "+mnt+"/verdict")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, out, "Read-only file system")

	mounts, err := os.ReadFile("/proc/self/mounts")
	require.NoError(t, err)
	var opts string
	for _, l := range strings.Split(string(mounts), "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[1] == mnt {
			opts = f[3]
		}
	}
	for _, o := range []string{"ro", "default_permissions", "allow_other", "nosuid", "nodev"} {
		assert.Contains(t, strings.Split(opts, ","), o, opts)
	}
}
