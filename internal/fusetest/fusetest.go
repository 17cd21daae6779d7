// Package fusetest holds what the mount tests and the test servers
// (nginxtest, s3test) of several packages share.
package fusetest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// RequireFUSE skips a test that needs FUSE where it is missing, loudly,
// and every such test in a run without mounts (FSMOUNT_NO_MOUNT=1),
// unless FSMOUNT_REQUIRE_FUSE=1 (as in CI), when it fails instead. As a
// user other than root, mounting also needs fusermount3.
func RequireFUSE(t testing.TB) {
	t.Helper()
	if os.Getenv("FSMOUNT_NO_MOUNT") == "1" {
		t.Skip("no mounts in this run (FSMOUNT_NO_MOUNT=1, ./test.sh --quick)")
	}
	var why string
	if _, err := os.Stat("/dev/fuse"); err != nil {
		why = "/dev/fuse: " + err.Error()
	} else if os.Geteuid() != 0 {
		if _, err := exec.LookPath("fusermount3"); err != nil {
			why = "not root and no fusermount3 (Debian package fuse3)"
		}
	}
	if why == "" {
		return
	}
	if os.Getenv("FSMOUNT_REQUIRE_FUSE") == "1" {
		t.Fatalf("FUSE is required (FSMOUNT_REQUIRE_FUSE=1) but unavailable: %s", why)
	}
	t.Skipf("SKIPPING: FUSE unavailable: %s", why)
}

// DaemonPid finds a live process whose command line names mnt and whose
// program is one of progs (any program if progs is empty), or 0.
func DaemonPid(mnt string, progs ...string) int {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || len(b) == 0 {
			continue
		}
		args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
		if len(progs) > 0 && !slices.Contains(progs, filepath.Base(args[0])) {
			continue
		}
		if !slices.Contains(args[1:], mnt) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if Alive(pid) {
			return pid
		}
	}
	return 0
}

// Alive reports whether pid is a running process (not a zombie).
func Alive(pid int) bool {
	f, err := stat(pid)
	return err == nil && f[0] != "Z" && f[0] != "X"
}

// CPUSeconds returns the user and system time pid has spent, in seconds
// (at the kernel's usual 100 ticks a second).
func CPUSeconds(pid int) (float64, error) {
	f, err := stat(pid)
	if err != nil {
		return 0, err
	}
	u, err1 := strconv.ParseFloat(f[11], 64)
	k, err2 := strconv.ParseFloat(f[12], 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return (u + k) / 100, nil
}

// MinorFaults returns the minor page faults pid has taken (a first touch
// of a page: 4 KB, or 2 MB where the kernel gave a huge page).
func MinorFaults(pid int) (int64, error) {
	f, err := stat(pid)
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(f[7], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return n, nil
}

// stat returns the fields of /proc/PID/stat after the command name (the
// process state first), at least the 13 that reach the system time.
func stat(pid int) ([]string, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil, err
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return nil, fmt.Errorf("/proc/%d/stat: %d fields after the command name", pid, len(f))
	}
	return f, nil
}

// StatusKB returns a field of /proc/PID/status that counts kB, such as
// RssAnon or VmRSS.
func StatusKB(pid int, field string) (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("no %s in /proc/%d/status", field, pid)
}
