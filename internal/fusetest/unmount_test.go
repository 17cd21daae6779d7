package fusetest

import (
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
	mnt := t.TempDir()
	server, err := fs.Mount(mnt, &fs.Inode{}, &fs.Options{})
	require.NoError(t, err)
	require.NotNil(t, mountinfo.Top(mustRead(t), mnt))

	pid := CopyNamespace(t) // holding a copy of the mount, alive past the unmount
	copied, err := mountinfo.ReadFile("/proc/" + strconv.Itoa(pid) + "/mountinfo")
	require.NoError(t, err)
	require.NotNil(t, mountinfo.Top(copied, mnt), "the new namespace holds a copy of the mount")

	require.NoError(t, Unmount(server, mnt)) // and its server has ended
	assert.Nil(t, mountinfo.Top(mustRead(t), mnt), "unmounted here")
	if _, err := exec.LookPath("nsenter"); err == nil {
		b, err := exec.Command("nsenter", "-t", strconv.Itoa(pid), "-m", "stat", mnt).CombinedOutput()
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
