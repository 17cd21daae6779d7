// Package e2e runs the built fsinspect and fsmount binaries the way a user
// does, on the tiny model in testdata and on the real Qwen3-0.6B layout.
//
// TestMain builds both commands into a temporary directory, unless
// FSMOUNT_BIN_DIR names a directory that already holds them (the CI run as
// an unprivileged user uses binaries built beforehand). This file also
// holds the helpers every test file uses: running a command, mounting a
// model and unmounting it when the test ends, bounded waits.
//
// The tests are filed by topic: cli (the command lines, fsinspect's
// checks, --scan and --compare), mount, remote (HTTP, its faults and
// s3://, with the remote benchmarks), faults (the backing files and the
// daemon under abuse), permissions, formats (safetensors: hostile,
// sharded, POSIX conformance; PyTorch; LoRA adapters), formats_gguf (real,
// quantized and malformed GGUFs, llama.cpp's names per architecture),
// adapters (merge proofs with non-finite values, real adapters' biases,
// old PEFT's fused layers, a base given as config.json alone), downloads
// (users' broken downloads and careless command lines), structural (the
// check without a spec, in every format), site (the HTML pages in
// Chromium) and readme (README.md's examples, run and compared with its
// transcripts).
package e2e

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/mountinfo"
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
	return runResult(t, exec.Command(filepath.Join(binDir, name), args...), nil)
}

// runResult runs cmd and returns its output and exit code; with
// hung, called after the run, a command it finds hung is a failure.
func runResult(t *testing.T, cmd *exec.Cmd, hung func(stderr string)) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if hung != nil {
		hung(errb.String())
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return result{out.String(), errb.String(), code}
}

func repoPath(parts ...string) string {
	return filepath.Join(append([]string{".."}, parts...)...)
}

func requireFUSE(t *testing.T) { fusetest.RequireFUSE(t) }

// mounted reports whether mnt is a mount point, from /proc/self/mountinfo.
func mounted(t *testing.T, mnt string) bool {
	t.Helper()
	es, err := mountinfo.Read()
	require.NoError(t, err)
	return mountinfo.Top(es, mnt) != nil
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// mountModel runs fsmount MODEL MNT as a user would and returns the mount
// point and the daemon's pid; the mount is removed when the test ends.
func mountModel(t *testing.T, model string, opts ...string) (string, int) {
	t.Helper()
	requireFUSE(t)
	mnt := t.TempDir()
	r := runCmd(t, "fsmount", append(opts, model, mnt)...)
	require.Equal(t, 0, r.code, "fsmount: %s", r.stderr)
	require.Empty(t, r.stderr)
	require.True(t, mounted(t, mnt), "fsmount returned before the mount was live")
	pid := fusetest.DaemonPid(mnt, "fsmount")
	require.NotZero(t, pid, "no daemon serves %s", mnt)
	t.Cleanup(func() {
		if mounted(t, mnt) {
			runCmd(t, "fsmount", "-u", mnt)
		}
		if fusetest.Alive(pid) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return mnt, pid
}

// sh runs a shell command line and returns its output and exit code.
func sh(t *testing.T, script string) (string, int) {
	t.Helper()
	return command(t, "sh", "-c", script)
}

// command runs a program and returns its combined output and exit code;
// t fails if it cannot be run at all.
func command(t *testing.T, name string, args ...string) (string, int) {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s %q: %v", name, args, err)
	}
	return string(out), code
}

// readFile returns the contents of the file at path, failing t if it
// cannot be read.
func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return b
}

// assertServesTiny checks a mount of the tiny model whose files are in
// local: q_proj's data is the bytes of model.safetensors its location
// names, and the verdict is the clean one.
func assertServesTiny(t *testing.T, mnt, local string) {
	t.Helper()
	raw := readFile(t, filepath.Join(local, "model.safetensors"))
	var name string
	var off, n int64
	loc := readFile(t, filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "location"))
	_, err := fmt.Sscan(string(loc), &name, &off, &n)
	require.NoError(t, err)
	got := readFile(t, filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "data"))
	assert.Equal(t, raw[off:off+n], got)
	assert.Contains(t, string(readFile(t, filepath.Join(mnt, "verdict"))), "✓ all 25 expected tensors present")
}

// countFiles counts the regular files under dir.
func countFiles(dir string) int {
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// assertContainsAll checks that out contains each of wants.
func assertContainsAll(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, want := range wants {
		assert.Contains(t, out, want)
	}
}

// mountPoint returns an empty directory for a test that mounts on its own
// (not through mountModel); whatever is left mounted there when the test
// ends is cleared by force.
func mountPoint(t *testing.T) string {
	mnt := t.TempDir()
	t.Cleanup(func() { forceClear(t, mnt) })
	return mnt
}

// runTimeout runs one of the built commands like runCmd, but fails the
// test instead of hanging when it does not finish within d.
func runTimeout(t *testing.T, d time.Duration, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, name), args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Start())
	code, ok := waitTimeout(cmd, d)
	if !ok {
		t.Fatalf("%s %v did not finish within %v (stderr %q)", name, args, d, errb.String())
	}
	return result{out.String(), errb.String(), code}
}

// waitTimeout waits for a started command; ok is false if it is still
// running after d (it is then sent SIGKILL, which a process stuck in the
// kernel may not obey, so it is not waited for again).
func waitTimeout(cmd *exec.Cmd, d time.Duration) (code int, ok bool) {
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, isExit := err.(*exec.ExitError); isExit {
			return ee.ExitCode(), true
		}
		if err != nil {
			return -1, true
		}
		return 0, true
	case <-time.After(d):
		cmd.Process.Kill()
		return -1, false
	}
}

// fuseConn returns the FUSE connection number of the mount at mnt (the
// minor of its device), or -1.
func fuseConn(t *testing.T, mnt string) int {
	t.Helper()
	es, err := mountinfo.Read()
	require.NoError(t, err)
	if e := mountinfo.Top(es, mnt); e != nil {
		return e.Minor
	}
	return -1
}

// forceClear is the last resort of a test's cleanup: whatever fsmount
// left at mnt is aborted and detached, so that a failing test does not
// leave a mount that hangs everything after it.
func forceClear(t *testing.T, mnt string) {
	for i := 0; i < 5 && mounted(t, mnt); i++ {
		if conn := fuseConn(t, mnt); conn >= 0 {
			os.WriteFile("/sys/fs/fuse/connections/"+strconv.Itoa(conn)+"/abort", []byte("1"), 0)
		}
		exec.Command("umount", "-l", mnt).Run()
		exec.Command("fusermount3", "-u", "-z", mnt).Run()
	}
}

// statTimeout stats path in a child process and reports whether it
// finished within d; a stat stuck on a hung mount must not hang the test.
func statTimeout(t *testing.T, path string, d time.Duration) bool {
	t.Helper()
	cmd := exec.Command("stat", "-c", "%n", path)
	require.NoError(t, cmd.Start())
	_, ok := waitTimeout(cmd, d)
	return ok
}

// shTimeout runs a shell command line like sh, but gives up after d (ok
// is false then).
func shTimeout(t *testing.T, d time.Duration, script string) (out string, code int, ok bool) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	var b strings.Builder
	cmd.Stdout, cmd.Stderr = &b, &b
	require.NoError(t, cmd.Start())
	code, ok = waitTimeout(cmd, d)
	return b.String(), code, ok
}

// rssKB reads a field such as RssAnon from /proc/PID/status, in kB.
func rssKB(t *testing.T, pid int, field string) int {
	t.Helper()
	n, err := fusetest.StatusKB(pid, field)
	require.NoError(t, err)
	return int(n)
}
