// Package fusetest holds what the mount tests and the test servers
// (nginxtest, s3test) of several packages share.
package fusetest

import (
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
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && i+2 < len(s) && s[i+2] != 'Z' && s[i+2] != 'X'
}
