// Package fusetest holds what the mount tests of several packages share.
package fusetest

import (
	"os"
	"os/exec"
	"testing"
)

// RequireFUSE skips a test that needs FUSE where it is missing, loudly,
// unless FSMOUNT_REQUIRE_FUSE=1 (as in CI), when it fails instead. As a
// user other than root, mounting also needs fusermount3.
func RequireFUSE(t testing.TB) {
	t.Helper()
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
