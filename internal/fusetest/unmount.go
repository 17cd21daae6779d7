package fusetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
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
// the test run. go-fuse's Server.Unmount unmounts and then waits for
// every request being handled to return; a mount the kernel calls busy
// makes it fail, and Server.Wait would then wait forever. So: an
// unmount that fails is retried lazily (MNT_DETACH, or fusermount3 -z);
// one that has not returned within UnmountTimeout has its FUSE
// connection aborted (which ends whatever waits on the daemon), and the
// error then carries every goroutine's stack, taken before the abort:
// what the server was stuck on.
func Unmount(server *fuse.Server, mnt string) error {
	conn := -1
	if es, err := mountinfo.Read(); err == nil {
		if e := mountinfo.Top(es, mnt); e != nil {
			conn = e.Minor
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
		return fmt.Errorf("unmounting %s did not end within %v (abort: %v); goroutines:\n%s", mnt, UnmountTimeout, abortErr, stacks)
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
	return err
}

// Abort aborts FUSE connection conn through fusectl (mounting it, as
// root, where nobody has): every request waiting on it fails.
func Abort(conn int) error {
	if conn < 0 {
		return errors.New("no FUSE connection known")
	}
	const conns = "/sys/fs/fuse/connections"
	abort := filepath.Join(conns, strconv.Itoa(conn), "abort")
	if _, err := os.Stat(abort); errors.Is(err, os.ErrNotExist) && os.Geteuid() == 0 && !fusectlMounted(conns) {
		if err := unix.Mount("fusectl", conns, "fusectl", 0, ""); err != nil {
			return err
		}
	}
	return os.WriteFile(abort, []byte("1\n"), 0)
}

// fusectlMounted reports whether fusectl is mounted at conns.
func fusectlMounted(conns string) bool {
	es, err := mountinfo.Read()
	if err != nil {
		return false
	}
	for _, e := range es {
		if e.Point == conns && e.FSType == "fusectl" {
			return true
		}
	}
	return false
}
