package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// devFuse is the FUSE device; a variable so tests can point it elsewhere.
var devFuse = "/dev/fuse"

// fuseConf is fusermount3's configuration, where user_allow_other lets
// users other than root mount with allow_other.
var fuseConf = "/etc/fuse.conf"

// checkFUSE tells, in one line, why a mount cannot work here, before
// fusermount3 would fail with an exit code and a message of its own.
func checkFUSE(allowOther bool) error {
	if _, err := os.Stat(devFuse); err != nil {
		return fmt.Errorf("%s is missing: FUSE is not available here (load the fuse module, or give the container the device)", devFuse)
	}
	if os.Geteuid() == 0 {
		f, err := os.OpenFile(devFuse, os.O_RDWR, 0)
		if err != nil {
			return fmt.Errorf("cannot open %s: %v: FUSE is not available here (a container needs the device, e.g. --device /dev/fuse)", devFuse, errors.Unwrap(err))
		}
		f.Close()
		return nil
	}
	if err := unix.Access(devFuse, unix.R_OK|unix.W_OK); err != nil {
		mode := "?"
		if st, err := os.Stat(devFuse); err == nil {
			mode = fmt.Sprintf("%04o", st.Mode().Perm())
		}
		return fmt.Errorf("%s (mode %s) is not readable and writable by this user: FUSE is unavailable to users other than root until it is 0666 (chmod 666 %s, as Debian's udev sets it)", devFuse, mode, devFuse)
	}
	if _, err := fusermountBin(); err != nil {
		return fmt.Errorf("%w; it is needed to mount as a user other than root", err)
	}
	if allowOther && !userAllowOther() {
		return fmt.Errorf("--allow-other as a user other than root needs the line user_allow_other in %s", fuseConf)
	}
	return nil
}

// userAllowOther reports whether fuse.conf has user_allow_other.
func userAllowOther() bool {
	b, err := os.ReadFile(fuseConf)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if strings.TrimSpace(line) == "user_allow_other" {
			return true
		}
	}
	return false
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
