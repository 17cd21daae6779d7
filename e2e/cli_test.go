package e2e

// The command lines of fsmount and fsinspect: the summary line, exit
// codes, options anywhere, usage errors, --version, --list, --log, the
// refusals when FUSE is unavailable, and the README's recipes.

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/mountinfo"
	"github.com/fsmount/fsmount/internal/testmodel"
)

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

func TestVersionFromBuildInfo(t *testing.T) {
	if os.Getenv("FSMOUNT_BIN_DIR") != "" {
		t.Skip("SKIPPING: binaries built elsewhere; the root run builds them with VCS stamping")
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("SKIPPING: not a git checkout (or no git): %v", err)
	}
	porcelain, err := exec.Command("git", "status", "--porcelain").Output()
	require.NoError(t, err)
	dir := t.TempDir()
	out, err := exec.Command("go", "build", "-buildvcs=true", "-o", dir+"/", "../cmd/...").CombinedOutput()
	require.NoError(t, err, string(out))
	if st, err := os.Stat(repoPath(".git")); err == nil && !st.IsDir() {
		// go build finds no repository from a worktree's .git file and
		// stamps nothing; a clone (as CI uses) has a .git directory.
		t.Skip("SKIPPING: a git worktree, where go build does not stamp VCS information")
	}
	rev := strings.TrimSpace(string(head))[:12]
	want := "(revision " + rev + ")\n"
	if len(porcelain) > 0 {
		want = "(revision " + rev + ", modified)\n"
	}
	for _, name := range []string{"fsmount", "fsinspect"} {
		out, err := exec.Command(filepath.Join(dir, name), "--version").Output()
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(out), name+" v"), "module version: %q", out)
		assert.True(t, strings.HasSuffix(string(out), want), "%q should end in %q", out, want)
		assert.NotContains(t, string(out), "devel-")
	}
}

func TestMountSummaryLine(t *testing.T) {
	requireFUSE(t)
	model := repoPath("testdata", "tiny-qwen3")
	mnt := t.TempDir()
	t.Cleanup(func() { forceClear(t, mnt) })
	r := runTimeout(t, time.Minute, "fsmount", model, mnt)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, "mounted "+mnt+": ✓ 25 tensors, 28.9K params — cat "+mnt+"/verdict\n", r.stdout)
	require.Equal(t, 0, runTimeout(t, time.Minute, "fsmount", "-u", mnt).code)

	r = runTimeout(t, time.Minute, "fsmount", "-q", model, mnt)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout+r.stderr, "-q prints nothing")
	require.Equal(t, 0, runTimeout(t, time.Minute, "fsmount", "-u", mnt).code)

	broken := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		ts[3].Shape, ts[3].Data = []uint64{32, 33}, nil
		return ts
	})
	r = runTimeout(t, time.Minute, "fsmount", broken, mnt)
	require.Equal(t, 0, r.code, "problems are no mount failure: %s", r.stderr)
	assert.Equal(t, "mounted "+mnt+": ✗ 1 problem, 25 tensors, 28.9K params — cat "+mnt+"/verdict\n", r.stdout)
	require.Equal(t, 0, runTimeout(t, time.Minute, "fsmount", "-u", mnt).code)

	r = runTimeout(t, time.Minute, "fsmount", "--strict", broken, mnt)
	assert.Equal(t, 1, r.code, "--strict: the verdict's status")
	assert.True(t, mounted(t, mnt), "--strict still mounts")
	require.Equal(t, 0, runTimeout(t, time.Minute, "fsmount", "-u", mnt).code)

	r = runTimeout(t, time.Minute, "fsmount", filepath.Join(model, "model.safetensors"), mnt, "--strict")
	assert.Equal(t, 3, r.code, "--strict, not checked")
	assert.Contains(t, r.stdout, ": – not checked, 25 tensors")
	assert.True(t, mounted(t, mnt))
	require.Equal(t, 0, runTimeout(t, time.Minute, "fsmount", "-u", mnt).code)

	r = runTimeout(t, time.Minute, "fsmount", "--strict", "-q", model, mnt)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	require.Equal(t, 0, runTimeout(t, time.Minute, "fsmount", "-u", mnt).code)
}

func TestOptionsAfterOperands(t *testing.T) {
	model := repoPath("testdata", "tiny-qwen3")
	r := runCmd(t, "fsinspect", model, "--json")
	require.Equal(t, 0, r.code, r.stderr)
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &v), "JSON after the operand")
	r = runCmd(t, "fsinspect", "--", model)
	assert.Equal(t, 0, r.code, r.stderr)
	r = runCmd(t, "fsinspect", "--", "--json")
	assert.Equal(t, 2, r.code, "after --, --json is a MODEL (that does not exist)")
	assert.Contains(t, r.stderr, "--json")

	requireFUSE(t)
	mnt := t.TempDir()
	t.Cleanup(func() { forceClear(t, mnt) })
	r = runTimeout(t, time.Minute, "fsmount", model, mnt, "--mmap", "-q")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	b, err := os.ReadFile(filepath.Join(mnt, "verdict"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "✓")
	r = runTimeout(t, time.Minute, "fsmount", mnt, "-u")
	require.Equal(t, 0, r.code, r.stderr)
	r = runTimeout(t, time.Minute, "fsmount", "-q", "--", model, mnt, "-f")
	assert.Equal(t, 64, r.code, "after --, -f is a third operand")
	assert.Contains(t, r.stderr, "got 3 arguments")
}

func TestUsageErrorsOneLine(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		args []string
		msg  string
	}{
		{"fsinspect", nil, "no MODEL given"},
		{"fsinspect", []string{"a", "b"}, "expected one MODEL, got 2 arguments"},
		{"fsinspect", []string{"--bogus", "x"}, "flag provided but not defined: -bogus"},
		{"fsinspect", []string{"x", "--bogus"}, "flag provided but not defined: -bogus"},
		{"fsmount", nil, "expected MODEL and MOUNTPOINT, got 0 arguments"},
		{"fsmount", []string{"m", "d", "--nope"}, "flag provided but not defined: -nope"},
		{"fsmount", []string{"-o", "rw", "m", "d"}, `unknown mount option "rw"`},
		{"fsmount", []string{"-u"}, "-u takes one MOUNTPOINT, got 0 arguments"},
		{"fsmount", []string{"--list", "x"}, "--list takes no arguments"},
		{"fsmount", []string{"m", "d", "--log"}, "flag needs an argument: -log"},
		{"fsmount", []string{"--timeout", "0", "m", "d"}, `invalid value "0" for flag -timeout: must be more than 0`},
		{"fsinspect", []string{"x", "--timeout", "soon"}, `invalid value "soon" for flag -timeout: not a duration such as 30s or 2m`},
	} {
		r := runCmd(t, c.cmd, c.args...)
		assert.Equal(t, 64, r.code, "%s %v", c.cmd, c.args)
		assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
		assert.True(t, strings.HasPrefix(r.stderr, c.cmd+": "), r.stderr)
		assert.Contains(t, r.stderr, c.msg)
		assert.True(t, strings.HasSuffix(r.stderr, " (see "+c.cmd+" --help)\n"), r.stderr)
		assert.Empty(t, r.stdout)
	}
}

// TestInspectNotChecked: a model that could not be checked has its own
// exit code, 3, so that "fsinspect model && deploy" stops; its tensors
// are still listed.
func TestInspectNotChecked(t *testing.T) {
	noConfig := t.TempDir()
	require.NoError(t, testmodel.WriteFile(filepath.Join(noConfig, "model.safetensors"), testmodel.TinyQwen3Tensors(), nil, 0))
	r := runCmd(t, "fsinspect", noConfig)
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stdout, "– cross-check skipped: there is no config.json in")
	assert.Contains(t, r.stdout, "model.layers.0.self_attn.q_proj.weight")

	r = runCmd(t, "fsinspect", repoPath("testdata", "tiny-qwen3", "model.safetensors"))
	assert.Equal(t, 3, r.code)
	assert.Contains(t, r.stdout, "model.embed_tokens.weight", "a lone file is still listed")

	r = runCmd(t, "fsinspect", "--json", noConfig)
	assert.Equal(t, 3, r.code)
	assert.Contains(t, r.stdout, `"checked": false`)

	_, code := sh(t, filepath.Join(binDir, "fsinspect")+" "+noConfig+" >/dev/null && echo deployed")
	assert.Equal(t, 3, code)

	r = runCmd(t, "fsinspect", "--help")
	assert.Contains(t, r.stdout, "  3   Not fully checked")
}

func TestListMounts(t *testing.T) {
	model := repoPath("testdata", "tiny-qwen3")
	mnt1, pid1 := mountModel(t, model)
	broken := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		ts[3].Shape, ts[3].Data = []uint64{32, 33}, nil
		return ts
	})
	mnt2, pid2 := mountModel(t, broken)
	mnt3, pid3 := mountModel(t, model)
	require.NoError(t, exec.Command("kill", "-9", strconv.Itoa(pid3)).Run())
	waitFor(t, "the daemon to die", func() bool { return !fusetest.Alive(pid3) })

	r := runTimeout(t, time.Minute, "fsmount", "--list")
	require.Equal(t, 0, r.code, r.stderr)
	lines := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(r.stdout), "\n")[1:] {
		f := strings.Fields(l)
		lines[f[0]] = f
	}
	assert.True(t, strings.HasPrefix(r.stdout, "MOUNTPOINT "), r.stdout)
	assert.Equal(t, []string{mnt1, model, strconv.Itoa(pid1), "✓", "answering"}, lines[mnt1], r.stdout)
	assert.Equal(t, []string{mnt2, broken, strconv.Itoa(pid2), "✗", "answering"}, lines[mnt2], r.stdout)
	require.NotNil(t, lines[mnt3], r.stdout)
	assert.Equal(t, []string{mnt3, model, "-", "?", "dead", "(ENOTCONN):", "run", "fsmount", "-u", mnt3}, lines[mnt3], r.stdout)

	if os.Geteuid() == 0 {
		out, code := asNobody(t, filepath.Join(publicBin(t), "fsmount")+" --list")
		assert.Equal(t, 0, code, out)
		assert.Equal(t, "MOUNTPOINT  MODEL  PID  VERDICT  DAEMON\n", out, "another user sees none of root's mounts")
	}
}

// TestLogFile: --log sends the daemon's warnings to a file; at a terminal
// the background mount says where warnings go, once.
func TestLogFile(t *testing.T) {
	model := testmodel.TinyDir(t, nil)
	logFile := filepath.Join(t.TempDir(), "fsmount.log")
	mnt, _ := mountModel(t, model, "--log", logFile)
	st, err := os.Stat(filepath.Join(model, "model.safetensors"))
	require.NoError(t, err)
	require.NoError(t, os.Truncate(filepath.Join(model, "model.safetensors"), st.Size()/2))
	names, err := os.ReadDir(filepath.Join(mnt, "by-name"))
	require.NoError(t, err)
	failed := 0
	for _, n := range names {
		if _, err := os.ReadFile(filepath.Join(mnt, "by-name", n.Name(), "data")); err != nil {
			failed++
		}
	}
	require.NotZero(t, failed, "reads past the new end fail")
	waitFor(t, "the warning in the log file", func() bool {
		b, _ := os.ReadFile(logFile)
		return strings.Contains(string(b), "changed size since it was opened")
	})

	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("SKIPPING the terminal part: script (util-linux) is missing")
	}
	mnt2 := t.TempDir()
	t.Cleanup(func() { forceClear(t, mnt2) })
	cmd := exec.Command("script", "-qec", filepath.Join(binDir, "fsmount")+" "+repoPath("testdata", "tiny-qwen3")+" "+mnt2, "/dev/null")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	code, ok := waitTimeout(cmd, time.Minute)
	require.True(t, ok, "fsmount under script did not finish")
	require.Equal(t, 0, code, out.String())
	assert.Equal(t, 1, strings.Count(out.String(), "warnings go to syslog"), out.String())
	require.Equal(t, 0, runTimeout(t, time.Minute, "fsmount", "-u", mnt2).code)
}

// publicBin copies fsmount into a directory every user can read, for
// runs as another user (binDir may be private to root).
func publicBin(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	for _, d := range []string{filepath.Dir(bin), bin} {
		require.NoError(t, os.Chmod(d, 0o755))
	}
	b, err := os.ReadFile(filepath.Join(binDir, "fsmount"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(bin, "fsmount"), b, 0o755))
	return bin
}

// inNamespace runs script as root in a private mount namespace, where it
// may bind-mount files over /dev/fuse and /etc/fuse.conf without anyone
// else seeing them.
func inNamespace(t *testing.T, script string) (string, int) {
	t.Helper()
	requireRootForOtherUser(t)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Fatalf("unshare (util-linux) is needed: %v", err)
	}
	out, err := exec.Command("unshare", "--mount", "--propagation", "private", "sh", "-ec", script).CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("unshare: %v", err)
	}
	return string(out), code
}

// TestFUSEUnavailable: a user who cannot open /dev/fuse, --allow-other
// without user_allow_other, and fusermount3 refusing each get one line
// saying what to fix and exit status 10, not "fusermount exited with code
// 256" and 1.
func TestFUSEUnavailable(t *testing.T) {
	requireRootForOtherUser(t)
	work := t.TempDir()
	require.NoError(t, os.Chmod(work, 0o755))
	require.NoError(t, os.Chmod(filepath.Dir(work), 0o755)) // for nobody
	model := filepath.Join(work, "model")
	require.NoError(t, os.CopyFS(model, os.DirFS(repoPath("testdata", "tiny-qwen3"))))
	mnt := filepath.Join(work, "mnt")
	require.NoError(t, os.Mkdir(mnt, 0o777))
	require.NoError(t, os.Chmod(mnt, 0o777))
	bin := publicBin(t)
	// A fusermount3 that refuses, as the real one does without
	// user_allow_other, after printing its reason.
	require.NoError(t, os.WriteFile(filepath.Join(bin, "fusermount3"), []byte("#!/bin/sh\necho 'fusermount3: refusing for the test' >&2\nexit 1\n"), 0o755))
	for _, f := range []string{"closed", "open", "noconf", "conf"} {
		require.NoError(t, os.WriteFile(filepath.Join(work, f), nil, 0o600))
	}
	require.NoError(t, os.Chmod(filepath.Join(work, "open"), 0o666))
	require.NoError(t, os.WriteFile(filepath.Join(work, "conf"), []byte("# test\nuser_allow_other\n"), 0o644))
	require.NoError(t, os.Chmod(filepath.Join(work, "noconf"), 0o644))
	asNobody := "setpriv --reuid=65534 --regid=65534 --clear-groups env PATH=" + bin + ":/usr/bin:/bin fsmount "

	cases := []struct {
		name, devFuse, conf, args, msg string
	}{
		{"no access to /dev/fuse", "closed", "noconf", model + " " + mnt,
			"fsmount: /dev/fuse (mode 0600) is not readable and writable by this user: FUSE is unavailable to users other than root until it is 0666"},
		{"allow_other without user_allow_other", "open", "noconf", "--allow-other " + model + " " + mnt,
			"fsmount: --allow-other as a user other than root needs the line user_allow_other in /etc/fuse.conf\n"},
		{"fusermount3 refuses", "open", "conf", "--allow-other " + model + " " + mnt,
			"fsmount: fusermount3 refused to mount " + mnt + " (its reason is above): FUSE is unavailable for this mount\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			// /etc/fuse.conf may not exist to bind over: a copy of /etc
			// with the test's fuse.conf goes over /etc instead.
			etc := filepath.Join(t.TempDir(), "etc")
			out, code := inNamespace(t, "cp -a /etc "+etc+"\n"+
				"cp "+filepath.Join(work, c.conf)+" "+etc+"/fuse.conf\n"+
				"mount --bind "+etc+" /etc\n"+
				"mount --bind "+filepath.Join(work, c.devFuse)+" /dev/fuse\n"+
				"exec "+asNobody+c.args)
			assert.Equal(t, 10, code, out)
			assert.Contains(t, out, c.msg)
			lines := 1
			if c.name == "fusermount3 refuses" {
				lines = 2 // fusermount3's own line, then ours
				assert.True(t, strings.HasPrefix(out, "fusermount3: refusing for the test\n"), out)
			}
			assert.Equal(t, lines, strings.Count(out, "\n"), out)
			assert.NotContains(t, out, "fusermount exited with code")
			assert.False(t, mounted(t, mnt))
		})
	}
}

// shapeDiffExcludes are the files of a tensor's directory that expected/
// does not have, which the README's diff -r recipe leaves out.
const shapeDiffExcludes = "-x data -x dtype -x location -x 'values*' -x stats -x sha256 -x 'hist*' -x heatmap.png -x index.html"

// TestShapeDiffRecipe runs the README's recipe, in its exact words, on a
// mounted model with a mis-shaped tensor and on a clean one: it shows the
// shape problem and nothing else.
func TestShapeDiffRecipe(t *testing.T) {
	const recipe = "diff -r " + shapeDiffExcludes + " expected/layers layers"
	broken := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		ts[3].Shape, ts[3].Data = []uint64{32, 33}, nil // k_proj of layer 0
		return ts
	})
	mnt, _ := mountModel(t, broken)
	out, code := sh(t, "cd "+mnt+" && "+recipe)
	assert.Equal(t, 1, code, out)
	assert.Equal(t, "diff -r "+shapeDiffExcludes+" expected/layers/0/self_attn/k_proj/shape layers/0/self_attn/k_proj/shape\n"+
		"1c1\n< [32, 32]\n---\n> [32, 33]\n", out)

	clean, _ := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	out, code = sh(t, "cd "+clean+" && "+recipe)
	assert.Equal(t, 0, code, out)
	assert.Empty(t, out)
}

// TestNumpyBF16Recipe runs the README's numpy lines that read a BF16 data
// file as float32, and compares their values with ours.
func TestNumpyBF16Recipe(t *testing.T) {
	python := ""
	for _, p := range []string{"python3", "/usr/bin/python3"} {
		if exec.Command(p, "-c", "import numpy").Run() == nil {
			python = p
			break
		}
	}
	if python == "" {
		t.Skip("SKIPPING: numpy is not installed (Debian package python3-numpy; .ci/run installs it)")
	}
	mnt, _ := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	p := filepath.Join(mnt, "norm", "data")
	script := "import numpy as np\n" +
		"a = np.fromfile('" + p + "', dtype=np.uint16)                # the raw BF16 bits\n" +
		"w = (a.astype(np.uint32) << 16).view(np.float32)   # BF16 is the top half of an f32\n" +
		"print(w.shape, w.dtype, w[:4].tolist())\n"
	out, err := exec.Command(python, "-c", script).CombinedOutput()
	require.NoError(t, err, string(out))

	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	var want []string
	for i := 0; i < 4; i++ {
		v := math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16)
		want = append(want, strconv.FormatFloat(float64(v), 'g', -1, 64))
	}
	assert.Equal(t, "(32,) float32 ["+strings.Join(want, ", ")+"]\n", string(out))
}
