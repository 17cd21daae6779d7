// Package e2e runs the built fsinspect and fsmount binaries the way a user
// does, on the tiny model in testdata and on the real Qwen3-0.6B layout.
//
// TestMain builds both commands into a temporary directory, unless
// FSMOUNT_BIN_DIR names a directory that already holds them (the CI run as
// an unprivileged user uses binaries built beforehand).
package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

var binDir string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	binDir = os.Getenv("FSMOUNT_BIN_DIR")
	if binDir == "" {
		dir, err := os.MkdirTemp("", "fsmount-e2e-bin")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer os.RemoveAll(dir)
		cmd := exec.Command("go", "build", "-o", dir+"/", "../cmd/...")
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building the commands:", err)
			return 1
		}
		binDir = dir
	}
	defer stopS3() // the SeaweedFS of the s3:// tests, if one started
	return m.Run()
}

// result is what a command run produced.
type result struct {
	stdout, stderr string
	code           int
}

// runCmd runs one of the built commands and returns its output and exit
// code.
func runCmd(t *testing.T, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return result{out.String(), errb.String(), code}
}

func repoPath(parts ...string) string {
	return filepath.Join(append([]string{".."}, parts...)...)
}
