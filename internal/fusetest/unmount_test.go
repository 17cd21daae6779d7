package fusetest

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"testing"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/mountinfo"
)

// TestUnmountCopiedMount: a mount namespace made while a mount is up
// (unshare -m, as the transformers oracle's runs and container runtimes
// do) holds a copy of it. Unmounting it here then leaves the kernel's
// FUSE connection alive, and go-fuse's Server.Unmount waits for reader
// loops that end only with the connection: until the other namespace
// ends (TestLazyDropped sat 20 minutes so in cleanup beside oracle runs).
// Unmount returns at once, having ended the connection, and the copy is
// left dead. Without that, this test waits for UnmountTimeout and fails.
func TestUnmountCopiedMount(t *testing.T) {
	RequireFUSE(t)
	if os.Geteuid() != 0 {
		t.Skip("unshare -m needs root")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("unshare (util-linux) is missing")
	}
	mnt := t.TempDir()
	server, err := fs.Mount(mnt, &fs.Inode{}, &fs.Options{})
	require.NoError(t, err)
	require.NotNil(t, mountinfo.Top(mustRead(t), mnt))

	// A namespace holding a copy of the mount, alive past the unmount.
	ns := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", "echo ready; exec sleep 3600")
	out, err := ns.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, ns.Start())
	t.Cleanup(func() { ns.Process.Kill(); ns.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "ready\n", line)
	copied, err := mountinfo.ReadFile("/proc/" + strconv.Itoa(ns.Process.Pid) + "/mountinfo")
	require.NoError(t, err)
	require.NotNil(t, mountinfo.Top(copied, mnt), "the new namespace holds a copy of the mount")

	require.NoError(t, Unmount(server, mnt)) // and its server has ended
	assert.Nil(t, mountinfo.Top(mustRead(t), mnt), "unmounted here")
	if _, err := exec.LookPath("nsenter"); err == nil {
		b, err := exec.Command("nsenter", "-t", strconv.Itoa(ns.Process.Pid), "-m", "stat", mnt).CombinedOutput()
		assert.Error(t, err, "the copy is dead")
		assert.Contains(t, string(b), "not connected")
	}
}

func mustRead(t *testing.T) []mountinfo.Entry {
	t.Helper()
	es, err := mountinfo.Read()
	require.NoError(t, err)
	return es
}
