package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/fsmount/fsmount/internal/mountinfo"
)

// fsType is the type our mounts have in /proc/self/mountinfo (go-fuse
// prefixes "fuse." to the Name fusefs gives).
const fsType = "fuse.fsmount"

// mountinfoPath is read for the mount table; a variable for tests.
var mountinfoPath = mountinfo.Path

// readMountinfo reads the mount table.
func readMountinfo() ([]mountinfo.Entry, error) { return mountinfo.ReadFile(mountinfoPath) }

// canonical returns mnt absolute with the symlinks of its parent resolved,
// as the mount table names it. The last element is not resolved: on a
// dead mount, following it would fail.
func canonical(mnt string) string {
	abs, err := filepath.Abs(mnt)
	if err != nil {
		return filepath.Clean(mnt)
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// health is what a probe of a mount found.
type health int

const (
	healthy health = iota // the daemon answers
	dead                  // the connection is gone (ENOTCONN): the daemon has exited
	hung                  // no answer in time: the daemon is stopped, or killed but stuck
)

func (h health) String() string {
	return [...]string{"answering", "dead", "not answering"}[h]
}

// probeTimeout bounds how long a probe waits for the daemon.
var probeTimeout = 2 * time.Second

// probe asks the daemon serving mnt something it cannot answer from the
// kernel's caches: the lookup of a name that does not exist. A stat of
// the mount point itself may be served from the attribute cache even by
// a dead mount. The probe runs on its own thread; if the daemon never
// answers, aborting the connection (or our exit) releases it.
func probe(mnt string) health {
	done := make(chan error, 1)
	go func() {
		_, err := os.Lstat(filepath.Join(mnt, fmt.Sprintf(".fsmount-probe-%d-%d", os.Getpid(), time.Now().UnixNano())))
		done <- err
	}()
	select {
	case err := <-done:
		if isDead(err) {
			return dead
		}
		return healthy
	case <-time.After(probeTimeout):
		return hung
	}
}

func isDead(err error) bool {
	return errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED)
}

// fuseConnections is where the kernel lists FUSE connections (fusectl).
var fuseConnections = "/sys/fs/fuse/connections"

// daemonPids returns the processes that hold FUSE connection conn open:
// the daemon serving it (more than one if it forked). /proc/PID/fdinfo of
// an open /dev/fuse names its connection (fuse_connection:, Linux 6.x).
// Processes of other users cannot be inspected and are not listed.
func daemonPids(conn int) []int {
	var pids []int
	procs, _ := filepath.Glob("/proc/[0-9]*")
	want := "fuse_connection:\t" + strconv.Itoa(conn) + "\n"
	for _, p := range procs {
		fds, err := os.ReadDir(p + "/fd")
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if l, err := os.Readlink(p + "/fd/" + fd.Name()); err != nil || l != "/dev/fuse" {
				continue
			}
			info, err := os.ReadFile(p + "/fdinfo/" + fd.Name())
			if err == nil && strings.Contains(string(info)+"\n", want) {
				pid, _ := strconv.Atoi(filepath.Base(p))
				pids = append(pids, pid)
				break
			}
		}
	}
	return pids
}
