package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAbortConnectionSaysWhy: abortConnection's error names what is wrong
// (fusectl not mounted, or mounted without the connection), and as root
// it mounts fusectl only where nobody has. The connections' directory
// and the mount table are fakes.
func TestAbortConnectionSaysWhy(t *testing.T) {
	dir := t.TempDir()
	conns := filepath.Join(dir, "connections")
	require.NoError(t, os.Mkdir(conns, 0o755))
	info := filepath.Join(dir, "mountinfo")
	table := func(fusectl bool) {
		lines := "22 1 0:21 / /sys rw - sysfs sysfs rw\n"
		if fusectl {
			lines += "35 22 0:33 / " + conns + " rw - fusectl fusectl rw\n"
		}
		require.NoError(t, os.WriteFile(info, []byte(lines), 0o600))
	}
	oldInfo, oldConns, oldEuid, oldMount := mountinfoPath, fuseConnections, euid, mountFusectl
	t.Cleanup(func() { mountinfoPath, fuseConnections, euid, mountFusectl = oldInfo, oldConns, oldEuid, oldMount })
	mountinfoPath, fuseConnections = info, conns
	mounts := 0
	mountFusectl = func() error {
		mounts++
		table(true)
		return os.MkdirAll(filepath.Join(conns, "7"), 0o755)
	}
	user := func() int { return 1000 }
	root := func() int { return 0 }

	euid = user
	table(false)
	assert.EqualError(t, abortConnection(7), "fusectl is not mounted on "+conns+
		", where the kernel lets a connection be aborted (as root: mount -t fusectl fusectl "+conns+")")
	table(true)
	assert.EqualError(t, abortConnection(7), "fusectl is mounted on "+conns+", but it lists no connection 7")
	assert.Zero(t, mounts, "a user mounted fusectl")

	euid = root
	table(false)
	require.NoError(t, abortConnection(7))
	assert.Equal(t, 1, mounts)
	b, err := os.ReadFile(filepath.Join(conns, "7", "abort"))
	require.NoError(t, err)
	assert.Equal(t, "1\n", string(b))
	// Mounted already: not again, and a missing connection is named.
	assert.EqualError(t, abortConnection(8), "fusectl is mounted on "+conns+", but it lists no connection 8")
	assert.Equal(t, 1, mounts, "fusectl mounted a second time over the first")
}
