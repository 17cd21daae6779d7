package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// unmount unmounts mnt, including a dead mount whose daemon was killed.
// If the mount is busy it is detached lazily, and the kernel lets it go
// when the last open file is closed.
func unmount(mnt string, stderr io.Writer) error {
	if os.Geteuid() == 0 {
		err := unix.Unmount(mnt, 0)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EBUSY):
			fmt.Fprintf(stderr, "fsmount: %s is busy: detached; it goes away when the last open file is closed\n", mnt)
			return unix.Unmount(mnt, unix.MNT_DETACH)
		case errors.Is(err, syscall.EINVAL):
			return fmt.Errorf("%s is not a mount point", mnt)
		case errors.Is(err, syscall.ENOENT):
			return fmt.Errorf("%s does not exist", mnt)
		}
		return fmt.Errorf("unmounting %s: %v", mnt, err)
	}
	out, err := fusermount("-u", mnt)
	if err != nil && strings.Contains(out, "busy") {
		fmt.Fprintf(stderr, "fsmount: %s is busy: detached; it goes away when the last open file is closed\n", mnt)
		out, err = fusermount("-u", "-z", mnt)
	}
	if err != nil {
		if out = strings.TrimSpace(out); out != "" {
			return errors.New(out)
		}
		return fmt.Errorf("unmounting %s: %v", mnt, err)
	}
	return nil
}

// lazyUnmount detaches mnt even while files are open.
func lazyUnmount(mnt string) {
	if os.Geteuid() == 0 {
		unix.Unmount(mnt, unix.MNT_DETACH)
		return
	}
	fusermount("-u", "-z", mnt)
}

func fusermount(args ...string) (string, error) {
	bin, err := exec.LookPath("fusermount3")
	if err != nil {
		if bin, err = exec.LookPath("fusermount"); err != nil {
			return "", errors.New("fusermount3 is not installed (Debian package fuse3)")
		}
	}
	var out bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	return out.String(), err
}
