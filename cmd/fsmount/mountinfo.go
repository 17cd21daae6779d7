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

	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/mountinfo"
	"github.com/fsmount/fsmount/internal/par"
)

// fsType is the type our mounts have in /proc/self/mountinfo (go-fuse
// prefixes "fuse." to the Name fusefs gives).
const fsType = "fuse.fsmount"

// mountinfoPath is read for the mount table; a variable for tests.
var mountinfoPath = mountinfo.Path

// readMountinfo reads the mount table.
func readMountinfo() ([]mountinfo.Entry, error) { return mountinfo.ReadFile(mountinfoPath) }

// absPath makes p absolute without a stat. filepath.Abs calls os.Getwd,
// which stats "." first: where "." is in a mount whose daemon does not
// answer (a shell sitting in the mount it means to unmount, fsmount -u .)
// that stat waits forever once the kernel's cached attributes have
// expired. getcwd(2) asks no filesystem.
func absPath(p string) (string, error) {
	if filepath.IsAbs(p) {
		return filepath.Clean(p), nil
	}
	wd, err := unix.Getwd()
	if err != nil {
		return "", err
	}
	return filepath.Join(wd, p), nil
}

// canonical returns mnt absolute with the symlinks of its parent resolved,
// as the mount table names it. The last element is not resolved: on a
// dead mount, following it would fail.
func canonical(mnt string) string {
	abs, err := absPath(mnt)
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

// slowTimeout bounds how long probePatient waits for a daemon that is
// running but slow to answer (a loaded machine).
var slowTimeout = 30 * time.Second

// probe asks the daemon serving mnt something it cannot answer from the
// kernel's caches: the lookup of a name that does not exist. A stat of
// the mount point itself may be served from the attribute cache even by
// a dead mount. The probe runs on its own thread; if the daemon never
// answers, aborting the connection (or our exit) releases it.
func probe(mnt string) health {
	h, _ := probePatient(mnt, nil)
	return h
}

// probePatient is probe that, each probeTimeout without an answer, asks
// patient whether the daemon is merely slow, and waits on while it says
// so, up to slowTimeout. It returns what it found and how long it waited
// for an answer that did not come (a multiple of probeTimeout).
func probePatient(mnt string, patient func() bool) (health, time.Duration) {
	done := make(chan error, 1)
	par.Go(func() {
		_, err := os.Lstat(filepath.Join(mnt, fmt.Sprintf(".fsmount-probe-%d-%d", os.Getpid(), time.Now().UnixNano())))
		done <- err
	})
	tick := time.NewTicker(probeTimeout)
	defer tick.Stop()
	for waited := time.Duration(0); ; {
		select {
		case err := <-done:
			if isDead(err) {
				return dead, waited
			}
			return healthy, waited
		case <-tick.C:
			waited += probeTimeout
			if patient == nil || waited >= slowTimeout || !patient() {
				return hung, waited
			}
		}
	}
}

// running reports whether the process pid, started at start, is running
// or waiting (R, S or D) and not being killed: a daemon that may answer
// yet. A stopped one (T, t) cannot until continued, and one killed (a
// SIGKILL pending: a thread stuck on its own mount keeps it from
// exiting) or exiting (Z, X, or gone) never will.
func running(pid int, start uint64) bool {
	s, state := procStat(pid)
	return s == start && (state == 'R' || state == 'S' || state == 'D') && !killPending(pid)
}

// killPending reports whether SIGKILL is pending for the process pid
// (/proc/PID/status: SigPnd, its main thread's, or ShdPnd, the
// process's; a signal's bit is its number less one).
func killPending(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	return err == nil && sigPending(string(b), syscall.SIGKILL)
}

// sigPending reports whether a /proc/PID/status text shows sig pending.
func sigPending(status string, sig syscall.Signal) bool {
	for _, line := range strings.Split(status, "\n") {
		name, val, ok := strings.Cut(line, ":")
		if !ok || (name != "SigPnd" && name != "ShdPnd") {
			continue
		}
		if mask, err := strconv.ParseUint(strings.TrimSpace(val), 16, 64); err == nil && mask&(1<<(uint(sig)-1)) != 0 {
			return true
		}
	}
	return false
}

func isDead(err error) bool {
	return errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED)
}

// fuseConnections is where the kernel lists FUSE connections (fusectl);
// a variable for tests.
var fuseConnections = mountinfo.Connections

// daemonPid returns the daemon serving FUSE connection conn, 0 if none
// is found. A connection's number is reused once its mount is gone, while
// the daemon of the old mount may still be ending: of several holders the
// one started last serves the mount (the other started before its own
// mount, which left before this one was made).
func daemonPid(conn int) int {
	best, bestStart := 0, uint64(0)
	for _, pid := range daemonPids(conn) {
		if start, ok := procStart(pid); ok && (best == 0 || start > bestStart) {
			best, bestStart = pid, start
		}
	}
	return best
}

// procStart returns a process's start time (in clock ticks since boot),
// and false if it is gone or a zombie.
func procStart(pid int) (uint64, bool) {
	start, state := procStat(pid)
	return start, state != 0 && state != 'Z' && state != 'X'
}

// procStat returns a process's start time and state ('R', 'S', 'T' for
// stopped, 'Z' …), or state 0 if there is no such process.
func procStat(pid int) (start uint64, state byte) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0
	}
	// "pid (comm) state ppid …": comm may hold spaces and parentheses;
	// the fields after its last ')' start with the state (field 3), and
	// the start time is field 22.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 || len(f[0]) != 1 {
		return 0, 0
	}
	start, err = strconv.ParseUint(f[19], 10, 64)
	if err != nil {
		return 0, 0
	}
	return start, f[0][0]
}

// daemonPids returns the processes that hold FUSE connection conn open:
// the daemon serving it, and for a moment after an unmount the daemon of
// an older mount whose connection had the same number (see daemonPid).
// /proc/PID/fdinfo of an open /dev/fuse names its connection
// (fuse_connection:, Linux 6.x). Processes of other users cannot be
// inspected and are not listed.
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
