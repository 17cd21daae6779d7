package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/mountinfo"
)

// unmount unmounts the fsmount mount at mnt, and refuses anything else.
// A dead mount (its daemon exited) is unmounted like a live one. A daemon
// that does not answer (stopped, or killed while one of its own threads
// waited on the mount, which leaves that thread unkillable) has its FUSE
// connection aborted first, or the unmount and everything touching the
// mount would wait on it forever; one that runs but answers slowly is
// waited for, up to slowTimeout. A busy mount whose daemon answers is
// detached lazily: the kernel lets it go when the last open file is
// closed. It returns an error unless the mount is gone from the tree.
// Once a mount is gone (not detached) it waits, up to daemonExitTimeout,
// for its daemon to exit, and says so if it has not; where another mount
// namespace holds a copy of the mount, the daemon serves that copy on,
// and it says so at once.
func unmount(mnt string, stderr io.Writer) error {
	mnt = canonical(mnt)
	entries, err := readMountinfo()
	if err != nil {
		return err
	}
	e := mountinfo.Top(entries, mnt)
	if e == nil {
		if _, err := os.Lstat(mnt); errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s does not exist", mnt)
		}
		return fmt.Errorf("%s is not a mount point", mnt)
	}
	if e.FSType != fsType {
		return fmt.Errorf("%s is not an fsmount mount (it is %s from %s): left alone", mnt, e.FSType, e.Source)
	}
	if uid := os.Geteuid(); uid != 0 && e.UserID >= 0 && e.UserID != uid {
		// fusermount3 would say the mount is not in /etc/mtab.
		return fmt.Errorf("%s was mounted by uid %d, not by you (uid %d): only they or root can unmount it", mnt, e.UserID, uid)
	}
	// The daemon, found before its connection goes: with it its number.
	daemon := daemonPid(e.Minor)
	daemonStart, _ := procStart(daemon)
	// Copies of the mount in other mount namespaces keep its connection,
	// and the daemon serving them, after this one is gone.
	elsewhere := mountinfo.Elsewhere(e.Minor)
	detached := false
	// A daemon that runs but answers slowly (a loaded machine) is waited
	// for: aborting it would end the reads of its open files, which a
	// busy mount's detach lets finish.
	h, waited := probePatient(mnt, func() bool { return daemon != 0 && running(daemon, daemonStart) })
	switch h {
	case hung:
		if err := abortHung(mnt, e); err != nil {
			return err
		}
		elsewhere = nil // the abort ended the connection of every copy
		fmt.Fprintf(stderr, "fsmount: %s: the daemon did not answer within %v: aborted its FUSE connection\n", mnt, waited)
	case dead:
		elsewhere = nil // the copies are as dead: they keep no daemon serving
	}
	err = unmountOnce(mnt)
	// Right after an abort, the killed daemon may still be letting go of
	// the mount: give it a moment before calling it busy.
	for i := 0; errors.Is(err, syscall.EBUSY) && i < 20 && probe(mnt) != healthy; i++ {
		time.Sleep(50 * time.Millisecond)
		err = unmountOnce(mnt)
	}
	// Another fsmount -u (or umount) may get there first: what the kernel
	// then says to this one (EINVAL) tells nothing.
	meanwhile := func() bool { gone, _ := mountGone(e); return gone }
	if errors.Is(err, syscall.EBUSY) {
		if err := lazyUnmount(mnt); err != nil {
			if meanwhile() {
				return fmt.Errorf("%s is not a mount point (it was unmounted meanwhile)", mnt)
			}
			return fmt.Errorf("%s is busy and could not be detached: %v", mnt, err)
		}
		fmt.Fprintf(stderr, "fsmount: %s is busy: detached; it goes away when the last open file is closed\n", mnt)
		err, detached = nil, true
	}
	if err != nil {
		if meanwhile() {
			return fmt.Errorf("%s is not a mount point (it was unmounted meanwhile)", mnt)
		}
		return err
	}
	if gone, _ := mountGone(e); !gone {
		return fmt.Errorf("%s is still mounted after unmounting it", mnt)
	}
	// A detached mount's daemon serves its open files until they close.
	if daemon != 0 && !detached && len(elsewhere) > 0 {
		fmt.Fprintf(stderr, "fsmount: %s is unmounted, but its daemon (pid %d) serves on: the mount namespace of pid %d holds a copy of the mount (made while it was mounted: unshare -m, a container), and the daemon exits when that copy goes, or now with kill %d\n", mnt, daemon, elsewhere[0], daemon)
	} else if daemon != 0 && !detached {
		switch waitExit(daemon, daemonStart, daemonExitTimeout) {
		case 'T', 't':
			fmt.Fprintf(stderr, "fsmount: %s is unmounted, but its daemon (pid %d) is stopped: it exits once continued (kill -CONT %d)\n", mnt, daemon, daemon)
		case 0:
		default:
			fmt.Fprintf(stderr, "fsmount: %s is unmounted, but its daemon (pid %d) has not exited within %v\n", mnt, daemon, daemonExitTimeout)
		}
	}
	return nil
}

// daemonExitTimeout bounds how long -u waits for the daemon to exit once
// its mount is gone. The daemon exits as soon as its FUSE connection ends,
// without waiting for requests it is still handling.
var daemonExitTimeout = 5 * time.Second

// waitExit waits up to timeout for the process pid, started at start, to
// exit (or become a zombie). It returns 0 once it has, else its state:
// at once if it is stopped ('T', or 't' traced), which it cannot leave
// by itself.
func waitExit(pid int, start uint64, timeout time.Duration) byte {
	deadline := time.Now().Add(timeout)
	for {
		s, state := procStat(pid)
		switch {
		case state == 0 || state == 'Z' || state == 'X' || s != start:
			return 0
		case state == 'T' || state == 't' || time.Now().After(deadline):
			return state
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mountGone reports whether the mount e has left the table: no entry has
// its ID, mount point and connection. The ID alone is not enough: the
// kernel gives a new mount the lowest free ID, so another mount made
// right after the unmount (another fsmount, a test running beside) can
// take it.
func mountGone(e *mountinfo.Entry) (bool, error) {
	entries, err := readMountinfo()
	if err != nil {
		return false, err
	}
	for _, m := range entries {
		if m.ID == e.ID && m.Point == e.Point && m.Minor == e.Minor {
			return false, nil
		}
	}
	return true, nil
}

// unmountOnce unmounts mnt without detaching; EBUSY means busy.
func unmountOnce(mnt string) error {
	if os.Geteuid() == 0 {
		err := unix.Unmount(mnt, 0)
		if err == nil || errors.Is(err, syscall.EBUSY) {
			return err
		}
		return fmt.Errorf("unmounting %s: %v", mnt, err)
	}
	out, err := fusermount("-u", mnt)
	if err != nil && strings.Contains(out, "busy") {
		return syscall.EBUSY
	}
	if err != nil {
		if out = strings.TrimSpace(out); out != "" {
			return errors.New(out)
		}
		return fmt.Errorf("unmounting %s: %v", mnt, err)
	}
	return nil
}

// abortHung aborts the FUSE connection of the mount e at mnt, whose
// daemon does not answer. Its number is used only while the mount table
// still holds that mount: once a mount is gone its number is free, and
// the next FUSE mount made (anyone's) may get it. A connection fusectl
// no longer lists has ended, its mount with it: gone meanwhile (its
// daemon, slow to answer, unmounted it on SIGTERM; another -u did).
func abortHung(mnt string, e *mountinfo.Entry) error {
	unmounted := fmt.Errorf("%s is not a mount point (it was unmounted meanwhile)", mnt)
	if gone, _ := mountGone(e); gone {
		return unmounted
	}
	err := abortConnection(e.Minor)
	var nc *noConnectionError
	if errors.As(err, &nc) {
		if gone, _ := mountGone(e); gone {
			return unmounted
		}
	}
	if err != nil {
		return fmt.Errorf("%s: the daemon does not answer and its FUSE connection could not be aborted: %v", mnt, err)
	}
	return nil
}

// noConnectionError: fusectl shows, but lists no directory for the
// connection. The kernel lists a connection from before its mount is
// made until its last copy is gone, so this means the mount has gone.
type noConnectionError struct {
	dir  string
	conn int
}

func (e *noConnectionError) Error() string {
	return fmt.Sprintf("fusectl on %s lists no connection %d, though the mount table gives the mount that number (device 0:%d)", e.dir, e.conn, e.conn)
}

// abortConnection aborts FUSE connection conn: every request waiting on it
// fails with ENOTCONN, and threads stuck waiting for its daemon are freed.
// As root it mounts fusectl where the path does not show it; a user can
// abort only their own connections, and only where fusectl shows. Whether
// it shows is asked of the path (statfs), not of the mount table, which
// also lists a fusectl mount hidden under a later one. Its error says
// what is wrong: fusectl not mounted, mounted but hidden, or shown
// without the connection (a *noConnectionError).
func abortConnection(conn int) error {
	abort := filepath.Join(fuseConnections, strconv.Itoa(conn), "abort")
	if euid() == 0 {
		shown, err := fusectlAt(fuseConnections)
		if err != nil {
			return err
		}
		if !shown {
			if err := mountFusectl(); err != nil {
				return fmt.Errorf("mounting fusectl on %s: %v", fuseConnections, err)
			}
		}
	}
	err := os.WriteFile(abort, []byte("1\n"), 0)
	if !errors.Is(err, os.ErrNotExist) {
		return err
	}
	shown, err := fusectlAt(fuseConnections)
	if err != nil {
		return err
	}
	if shown {
		return &noConnectionError{dir: fuseConnections, conn: conn}
	}
	entries, err := readMountinfo()
	if err != nil {
		return err
	}
	if mountinfo.FusectlListed(entries, fuseConnections) {
		return fmt.Errorf("fusectl is mounted on %s, but another mount hides it there, so no connection can be aborted (as root: mount -t fusectl fusectl %s, over it)", fuseConnections, fuseConnections)
	}
	return fmt.Errorf("fusectl is not mounted on %s, where the kernel lets a connection be aborted (as root: mount -t fusectl fusectl %s)", fuseConnections, fuseConnections)
}

// Where abortConnection looks and what it does, replaced by tests.
var (
	euid         = os.Geteuid
	fusectlAt    = mountinfo.FusectlAt
	mountFusectl = func() error { return unix.Mount("fusectl", fuseConnections, "fusectl", 0, "") }
)

// lazyUnmount detaches mnt even while files are open.
func lazyUnmount(mnt string) error {
	if os.Geteuid() == 0 {
		return unix.Unmount(mnt, unix.MNT_DETACH)
	}
	out, err := fusermount("-u", "-z", mnt)
	if err != nil && strings.TrimSpace(out) != "" {
		return errors.New(strings.TrimSpace(out))
	}
	return err
}

// fusermountBin finds fusermount3 (or the older fusermount).
func fusermountBin() (string, error) {
	for _, name := range []string{"fusermount3", "fusermount"} {
		if bin, err := exec.LookPath(name); err == nil {
			return bin, nil
		}
	}
	return "", errors.New("fusermount3 is not installed (Debian package fuse3)")
}

func fusermount(args ...string) (string, error) {
	bin, err := fusermountBin()
	if err != nil {
		return "", err
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}
