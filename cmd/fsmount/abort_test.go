package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/mountinfo"
)

// fakeFusectl replaces where abortConnection looks: a connections
// directory, the mount table, whether the path shows fusectl (statfs)
// and the mount of fusectl, which shows it and lists connection 7.
type fakeFusectl struct {
	conns, info string
	shown       bool // what statfs of conns says
	mounts      int
}

func newFakeFusectl(t *testing.T) *fakeFusectl {
	dir := t.TempDir()
	f := &fakeFusectl{conns: filepath.Join(dir, "connections"), info: filepath.Join(dir, "mountinfo")}
	require.NoError(t, os.Mkdir(f.conns, 0o755))
	oldInfo, oldConns, oldEuid, oldAt, oldMount := mountinfoPath, fuseConnections, euid, fusectlAt, mountFusectl
	t.Cleanup(func() {
		mountinfoPath, fuseConnections, euid, fusectlAt, mountFusectl = oldInfo, oldConns, oldEuid, oldAt, oldMount
	})
	mountinfoPath, fuseConnections = f.info, f.conns
	fusectlAt = func(path string) (bool, error) {
		assert.Equal(t, f.conns, path)
		return f.shown, nil
	}
	mountFusectl = func() error {
		f.mounts++
		f.shown = true
		return os.MkdirAll(filepath.Join(f.conns, "7"), 0o755)
	}
	return f
}

// table writes the mount table: sysfs, fusectl on conns when listed,
// and the FUSE mounts given.
func (f *fakeFusectl) table(t *testing.T, listed bool, fuse ...string) {
	lines := "22 1 0:21 / /sys rw - sysfs sysfs rw\n"
	if listed {
		lines += "35 22 0:33 / " + f.conns + " rw - fusectl fusectl rw\n"
	}
	for _, l := range fuse {
		lines += l + "\n"
	}
	require.NoError(t, os.WriteFile(f.info, []byte(lines), 0o600))
}

// TestAbortConnectionSaysWhy: abortConnection's error names what is wrong
// (fusectl not mounted, mounted but hidden under another mount, or shown
// without the connection), and as root it mounts fusectl wherever the
// path does not show it, hidden or not, and nowhere it shows.
func TestAbortConnectionSaysWhy(t *testing.T) {
	f := newFakeFusectl(t)
	notMounted := "fusectl is not mounted on " + f.conns +
		", where the kernel lets a connection be aborted (as root: mount -t fusectl fusectl " + f.conns + ")"
	hidden := "fusectl is mounted on " + f.conns + ", but another mount hides it there, so no connection can be aborted" +
		" (as root: mount -t fusectl fusectl " + f.conns + ", over it)"
	noConn := func(n string) string {
		return "fusectl on " + f.conns + " lists no connection " + n + ", though the mount table gives the mount that number (device 0:" + n + ")"
	}

	euid = func() int { return 1000 }
	f.table(t, false)
	assert.EqualError(t, abortConnection(7), notMounted)
	// Listed in the table but not what the path shows: the old check
	// (the table) called it mounted and the connection missing.
	f.table(t, true)
	assert.EqualError(t, abortConnection(7), hidden)
	f.shown = true
	err := abortConnection(7)
	assert.EqualError(t, err, noConn("7"))
	var nc *noConnectionError
	assert.ErrorAs(t, err, &nc)
	assert.Zero(t, f.mounts, "a user mounted fusectl")

	euid = func() int { return 0 }
	for _, listed := range []bool{false, true} {
		f.table(t, listed)
		f.shown, f.mounts = false, 0
		require.NoError(t, os.RemoveAll(filepath.Join(f.conns, "7")))
		require.NoError(t, abortConnection(7), "listed %v", listed)
		assert.Equal(t, 1, f.mounts, "listed %v: root mounts fusectl where it does not show", listed)
		b, err := os.ReadFile(filepath.Join(f.conns, "7", "abort"))
		require.NoError(t, err)
		assert.Equal(t, "1\n", string(b))
	}
	// Shown already: not mounted again, and a missing connection is named.
	assert.EqualError(t, abortConnection(8), noConn("8"))
	assert.Equal(t, 1, f.mounts, "fusectl mounted a second time over the first")
}

// TestAbortHungGoneMeanwhile: a hung mount's connection is aborted only
// while the table still holds that mount (its number may be another's
// once it is gone); one whose connection fusectl no longer lists has
// gone meanwhile, which -u says instead of blaming fusectl; one still in
// the table without its connection listed is named as such.
func TestAbortHungGoneMeanwhile(t *testing.T) {
	f := newFakeFusectl(t)
	f.shown = true
	euid = func() int { return 1000 }
	const mnt = "/m/x"
	line := "40 22 0:7 / " + mnt + " rw - fuse.fsmount m rw,user_id=1000"
	e, ok := mountinfo.ParseLine(line)
	require.True(t, ok)

	// Gone before the abort: connection 7 is not touched.
	f.table(t, true)
	require.NoError(t, os.MkdirAll(filepath.Join(f.conns, "7"), 0o755))
	assert.EqualError(t, abortHung(mnt, &e), mnt+" is not a mount point (it was unmounted meanwhile)")
	assert.NoFileExists(t, filepath.Join(f.conns, "7", "abort"), "aborted a connection whose mount was gone")

	// Listed: aborted.
	f.table(t, true, line)
	require.NoError(t, abortHung(mnt, &e))
	assert.FileExists(t, filepath.Join(f.conns, "7", "abort"))

	// The connection ended as the abort came (its mount went with it).
	require.NoError(t, os.RemoveAll(filepath.Join(f.conns, "7")))
	f.table(t, true, line)
	before := mountinfoPath
	mountFusectl = nil // never called: fusectl shows
	// The table read before the abort holds the mount, the one after
	// does not: a second file, switched to once the abort has failed.
	after := filepath.Join(t.TempDir(), "after")
	require.NoError(t, os.WriteFile(after, []byte("22 1 0:21 / /sys rw - sysfs sysfs rw\n"), 0o600))
	fusectlAt = func(string) (bool, error) { mountinfoPath = after; return true, nil }
	assert.EqualError(t, abortHung(mnt, &e), mnt+" is not a mount point (it was unmounted meanwhile)")

	// Still in the table, connection not listed: said as it is.
	mountinfoPath = before
	fusectlAt = func(string) (bool, error) { return true, nil }
	assert.EqualError(t, abortHung(mnt, &e), mnt+": the daemon does not answer and its FUSE connection could not be aborted: "+
		"fusectl on "+f.conns+" lists no connection 7, though the mount table gives the mount that number (device 0:7)")
}

// TestRunning: a daemon that runs may answer yet; a stopped one cannot,
// nor a process gone or another started under its pid.
func TestRunning(t *testing.T) {
	self := os.Getpid()
	start, ok := procStart(self)
	require.True(t, ok)
	assert.True(t, running(self, start))
	assert.False(t, running(self, start+1), "another process under the pid")

	cmd := exec.Command("sleep", "60")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	pid := cmd.Process.Pid
	start, ok = procStart(pid)
	require.True(t, ok)
	assert.True(t, running(pid, start), "sleeping")
	require.NoError(t, cmd.Process.Signal(syscall.SIGSTOP))
	for i := 0; i < 1000 && running(pid, start); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	assert.False(t, running(pid, start), "stopped")
	require.NoError(t, cmd.Process.Kill())
	require.Error(t, cmd.Wait())
	assert.False(t, running(pid, start), "gone")
}

// TestSigPending: SIGKILL pending for the main thread (SigPnd) or the
// process (ShdPnd) is seen; other signals are not SIGKILL.
func TestSigPending(t *testing.T) {
	for _, c := range []struct {
		status string
		want   bool
	}{
		{"Name:\tfsmount\nSigPnd:\t0000000000000000\nShdPnd:\t0000000000000000\n", false},
		{"SigPnd:\t0000000000000100\nShdPnd:\t0000000000000000\n", true},
		{"SigPnd:\t0000000000000000\nShdPnd:\t0000000000000100\n", true},
		{"SigPnd:\t0000000000004000\nShdPnd:\t0000000000000080\n", false}, // SIGTERM, SIGSEGV
		{"SigPnd:\tzz\n", false},
		{"", false},
	} {
		assert.Equal(t, c.want, sigPending(c.status, syscall.SIGKILL), "%q", c.status)
	}
}
