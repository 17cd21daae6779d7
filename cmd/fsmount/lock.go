package main

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/mountinfo"
)

// lockMountpoint makes concurrent fsmount calls for one mount point
// exclusive: it takes a non-blocking flock on the mount point directory,
// to be held from the last check until the mount is in the tree. A second
// caller either fails to take the lock (the first one is mounting) or,
// once the first has mounted, finds its mount in the table (checkBusy).
// The lock sits on the directory underneath the mount and goes with the
// returned release function (or the process).
func lockMountpoint(mnt string) (release func(), err error) {
	fd, err := unix.Open(mnt, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("mount point %s: %v", mnt, err)
	}
	if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		unix.Close(fd)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("mount point %s is busy: another fsmount is mounting there", mnt)
		}
		return nil, fmt.Errorf("mount point %s is busy: %v", mnt, err)
	}
	return func() { unix.Close(fd) }, nil
}

// checkBusy refuses a mount point where fsmount already serves a model:
// mounting again would stack a second mount on the first. A dead or hung
// fsmount mount there gets the hint to clear it.
func checkBusy(mnt string) error {
	entries, err := readMountinfo()
	if err != nil {
		return err
	}
	e := mountinfo.Top(entries, canonical(mnt))
	if e == nil || e.FSType != fsType {
		return nil
	}
	switch probe(mnt) {
	case dead:
		return deadMount(mnt)
	case hung:
		return fmt.Errorf("mount point %s is an fsmount mount whose daemon does not answer: run fsmount -u %s", mnt, mnt)
	}
	return fmt.Errorf("mount point %s is busy: fsmount already serves %s there", mnt, e.Source)
}

// checkFree refuses a mount point where fsmount already serves a model
// (checkBusy) or that is not an empty directory (checkMountpoint). A point
// found not empty is checked for busy again: a racing fsmount may have
// mounted there between the two checks, and "busy" is what that caller
// must hear, not "not empty".
func checkFree(mnt string) error {
	if err := checkBusy(mnt); err != nil {
		return err
	}
	err := checkMountpoint(mnt)
	if err != nil {
		if busy := checkBusy(mnt); busy != nil {
			return busy
		}
	}
	return err
}
