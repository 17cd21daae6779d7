package fusetest

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/mountinfo"
)

// UnmountTimeout bounds how long Unmount waits for go-fuse's Unmount
// before it aborts the connection: far beyond what an unmount takes on
// a loaded machine, so that reaching it means a hang.
const UnmountTimeout = 2 * time.Minute

// Unmount ends a mount that this test process serves, and never hangs
// the test run. go-fuse's Server.Unmount unmounts and then waits for its
// reader loops, which end only when the kernel ends the FUSE connection:
// when the last copy of the mount goes. A mount namespace made while the
// mount was up (unshare -m: the transformers oracle's runs, a container)
// holds a copy, so that unmounting it here leaves the connection up and
// Server.Unmount waiting until that namespace ends — minutes, beside a
// long oracle run (TestUnmountCopiedMount). So the connection of a mount
// copied elsewhere is aborted first, while its number is surely this
// mount's (the copies are left dead). A mount the kernel calls busy makes
// Server.Unmount fail, and Server.Wait would then wait forever: it is
// detached (MNT_DETACH, or fusermount3 -z). An unmount that has not
// returned within UnmountTimeout has its connection aborted (which ends
// whatever waits on the daemon), and the error then carries every
// goroutine's stack, taken before the abort: what the server was stuck
// on.
func Unmount(server *fuse.Server, mnt string) error {
	conn := -1
	if es, err := mountinfo.Read(); err == nil {
		if e := mountinfo.Top(es, mnt); e != nil {
			conn = e.Minor
		}
	}
	var copied error
	if conn >= 0 {
		if pids := mountinfo.Elsewhere(conn); len(pids) > 0 {
			if err := Abort(conn); err != nil {
				copied = fmt.Errorf("%s is also mounted in the mount namespace of pid %d, and its connection could not be aborted: %v", mnt, pids[0], err)
			}
		}
	}
	done := make(chan error, 1)
	go func() { done <- server.Unmount() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(UnmountTimeout):
		buf := make([]byte, 1<<22)
		stacks := buf[:runtime.Stack(buf, true)]
		abortErr := Abort(conn)
		select {
		case <-done:
		case <-time.After(UnmountTimeout):
		}
		return errors.Join(copied, fmt.Errorf("unmounting %s did not end within %v (abort: %v); goroutines:\n%s", mnt, UnmountTimeout, abortErr, stacks))
	}
	if err != nil {
		// Busy: detach it, so that the server's loops end.
		if os.Geteuid() == 0 {
			err = errors.Join(err, unix.Unmount(mnt, unix.MNT_DETACH))
		} else if out, zerr := exec.Command("fusermount3", "-u", "-z", mnt).CombinedOutput(); zerr != nil {
			err = errors.Join(err, fmt.Errorf("fusermount3 -u -z: %v: %s", zerr, out))
		}
	}
	waited := make(chan struct{})
	go func() { server.Wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(UnmountTimeout):
		buf := make([]byte, 1<<22)
		err = errors.Join(err, fmt.Errorf("the server of %s did not end within %v of its unmount; goroutines:\n%s", mnt, UnmountTimeout, buf[:runtime.Stack(buf, true)]))
		Abort(conn)
	}
	return errors.Join(copied, err)
}

// Abort aborts FUSE connection conn through fusectl (mounting it, as
// root, where the path does not show it): every request waiting on it
// fails.
func Abort(conn int) error {
	if conn < 0 {
		return errors.New("no FUSE connection known")
	}
	if shown, err := mountinfo.FusectlAt(mountinfo.Connections); err == nil && !shown && os.Geteuid() == 0 {
		if err := unix.Mount("fusectl", mountinfo.Connections, "fusectl", 0, ""); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(mountinfo.Connections, strconv.Itoa(conn), "abort"), []byte("1\n"), 0)
}

// CopyNamespace starts a process in a new mount namespace, as unshare -m
// makes one (the transformers oracle's runs, a container), which holds a
// copy of every mount there is now, and returns its pid; it ends with
// the test. It needs root and unshare (util-linux): t is skipped without.
func CopyNamespace(t testing.TB) int {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: unshare -m needs root; the root run covers it")
	}
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("SKIPPING: unshare (util-linux) is missing")
	}
	ns := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", "echo ready; exec sleep 3600")
	out, err := ns.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := ns.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Process.Kill(); ns.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "ready\n" {
		t.Fatalf("unshare -m: %q, %v", line, err)
	}
	return ns.Process.Pid
}
