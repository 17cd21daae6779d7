package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
)

// devFuse is the FUSE device; a variable so tests can point it elsewhere.
var devFuse = "/dev/fuse"

// checkFUSE tells, in one line, why a mount cannot work here.
func checkFUSE() error {
	if _, err := os.Stat(devFuse); err != nil {
		return fmt.Errorf("%s is missing: FUSE is not available here (load the fuse module, or give the container the device)", devFuse)
	}
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			if _, err2 := exec.LookPath("fusermount"); err2 != nil {
				return errors.New("fusermount3 is not installed (Debian package fuse3); it is needed to mount as a user other than root")
			}
		}
	}
	return nil
}

// checkMountpoint refuses a mount point that is missing, not a directory,
// not empty, or a dead FUSE mount.
func checkMountpoint(mnt string) error {
	dead := func(err error) bool { return errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED) }
	st, err := os.Stat(mnt)
	switch {
	case dead(err):
		return deadMount(mnt)
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("mount point %s does not exist", mnt)
	case err != nil:
		return fmt.Errorf("mount point %s: %v", mnt, errors.Unwrap(err))
	case !st.IsDir():
		return fmt.Errorf("mount point %s is not a directory", mnt)
	}
	// The kernel may answer stat from its cache even for a dead mount;
	// opening it asks the daemon.
	d, err := os.Open(mnt)
	if dead(err) {
		return deadMount(mnt)
	} else if err != nil {
		return fmt.Errorf("mount point %s: %v", mnt, errors.Unwrap(err))
	}
	defer d.Close()
	names, err := d.Readdirnames(1)
	switch {
	case len(names) > 0:
		return fmt.Errorf("mount point %s is not empty", mnt)
	case dead(err):
		return deadMount(mnt)
	case err != nil && err != io.EOF:
		return fmt.Errorf("mount point %s: %v", mnt, err)
	}
	return nil
}

func deadMount(mnt string) error {
	return fmt.Errorf("mount point %s is a dead FUSE mount (its daemon has exited): run fsmount -u %s", mnt, mnt)
}
