package e2e

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
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/cli"
	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// The command lines of fsmount and fsinspect: the summary line, exit
// codes, options anywhere, usage errors, --version, --list, --log, the
// refusals when FUSE is unavailable, and the README's recipes.

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
	mnt := mountPoint(t)
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
	mnt := mountPoint(t)
	r = runTimeout(t, time.Minute, "fsmount", model, mnt, "--mmap", "-q")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	b := readFile(t, filepath.Join(mnt, "verdict"))
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
	abs, err := filepath.Abs(model) // mounted by a relative path, listed absolute
	require.NoError(t, err)
	assert.Equal(t, []string{mnt1, abs, strconv.Itoa(pid1), "✓", "answering"}, lines[mnt1], r.stdout)
	assert.Equal(t, []string{mnt2, broken, strconv.Itoa(pid2), "✗", "answering"}, lines[mnt2], r.stdout)
	require.NotNil(t, lines[mnt3], r.stdout)
	assert.Equal(t, []string{mnt3, abs, "-", "?", "dead", "(ENOTCONN):", "run", "fsmount", "-u", mnt3}, lines[mnt3], r.stdout)

	if os.Geteuid() == 0 {
		out, code := asNobody(t, filepath.Join(publicBin(t), "fsmount")+" --list")
		assert.Equal(t, 0, code, out)
		// None of root's mounts; the user's own may be listed (test.sh
		// runs this suite as nobody at the same time), each by a daemon
		// that is not root's.
		assert.True(t, strings.HasPrefix(out, "MOUNTPOINT  "), out)
		for _, mnt := range []string{mnt1, mnt2, mnt3} {
			assert.NotContains(t, out, mnt, "another user sees none of root's mounts")
		}
		for _, l := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
			f := strings.Fields(l)
			if len(f) < 3 {
				continue
			}
			if _, err := strconv.Atoi(f[2]); err != nil {
				continue
			}
			st, err := os.Stat("/proc/" + f[2])
			if err == nil {
				assert.NotZero(t, st.Sys().(*syscall.Stat_t).Uid, "another user sees a daemon of root's: %s", l)
			}
		}
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
	b := readFile(t, filepath.Join(binDir, "fsmount"))
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
	return command(t, "unshare", "--mount", "--propagation", "private", "sh", "-ec", script)
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

	raw := readFile(t, p)
	var want []string
	for i := 0; i < 4; i++ {
		v := math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16)
		want = append(want, strconv.FormatFloat(float64(v), 'g', -1, 64))
	}
	assert.Equal(t, "(32,) float32 ["+strings.Join(want, ", ")+"]\n", string(out))
}

func TestInspectTiny(t *testing.T) {
	r := runCmd(t, "fsinspect", repoPath("testdata", "tiny-qwen3"))
	require.Equal(t, 0, r.code, r.stderr)
	want := readFile(t, repoPath("testdata", "tiny-qwen3", "report.golden"))
	assert.Equal(t, string(want), r.stdout)
	assert.Empty(t, r.stderr)

	r = runCmd(t, "fsinspect", "--json", repoPath("testdata", "tiny-qwen3"))
	require.Equal(t, 0, r.code)
	var j map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	assert.Equal(t, true, j["clean"])
	assert.Equal(t, float64(25), j["tensors"])
}

func TestInspectRealLayout(t *testing.T) {
	r := runCmd(t, "fsinspect", testmodel.Sparse06BDir(t))
	require.Equal(t, 0, r.code, r.stderr)
	want := readFile(t, repoPath("testdata", "qwen3-0.6b-layout", "report.golden"))
	assert.Equal(t, string(want), r.stdout)
	for _, fig := range []string{"all 311 expected tensors", "751,632,384 stored", "596,049,920 logical", `(the "0.6B")`, "26.1% of logical"} {
		assert.Contains(t, r.stdout, fig)
	}
}

func TestInspectProblemsExit1(t *testing.T) {
	cases := map[string]struct {
		edit func([]testmodel.Tensor) []testmodel.Tensor
		want string
	}{
		"mis-shaped": {func(ts []testmodel.Tensor) []testmodel.Tensor {
			ts[3].Shape, ts[3].Data = []uint64{32, 33}, nil
			return ts
		}, "✗ mis-shaped: model.layers.0.self_attn.k_proj.weight is [32, 33]"},
		"missing": {func(ts []testmodel.Tensor) []testmodel.Tensor { return append(ts[:5:5], ts[6:]...) },
			"✗ missing: model.layers.0.self_attn.q_norm.weight"},
		"unexpected": {func(ts []testmodel.Tensor) []testmodel.Tensor {
			return append(ts, testmodel.Tensor{Name: "model.layers.2.mlp.up_proj.weight", DType: "BF16", Shape: []uint64{64, 32}})
		}, "✗ unexpected: model.layers.2.mlp.up_proj.weight"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := runCmd(t, "fsinspect", testmodel.TinyDir(t, c.edit))
			assert.Equal(t, 1, r.code)
			assert.Contains(t, r.stdout, c.want)
			assert.Contains(t, r.stdout, "  ✗ 1 problem: ")
		})
	}
}

func TestInspectInvalidExit2(t *testing.T) {
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor { return ts })
	path := filepath.Join(dir, "model.safetensors")
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, st.Size()-2))
	r := runCmd(t, "fsinspect", dir)
	assert.Equal(t, 2, r.code)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, path+": a truncated download: its header says 68,504 bytes, the file has 68,502: re-download it (safetensors: incomplete_buffer, MetadataIncompleteBuffer)")
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)

	r = runCmd(t, "fsinspect", filepath.Join(dir, "nope"))
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "no such file or directory")

	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"architectures":["Qwen3ForCausalLM"],"hidden_size":"big"}`), 0o644))
	require.NoError(t, testmodel.WriteFile(path, testmodel.TinyQwen3Tensors(), nil, 0))
	r = runCmd(t, "fsinspect", dir)
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, `config.json: field "vocab_size" is missing`)
}

func TestInspectUsage(t *testing.T) {
	r := runCmd(t, "fsinspect")
	assert.Equal(t, 64, r.code)
	assert.Contains(t, r.stderr, "usage: fsinspect")
	r = runCmd(t, "fsinspect", "--bogus", "x")
	assert.Equal(t, 64, r.code)
	r = runCmd(t, "fsinspect", "--help")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, cli.Help("fsinspect"), "--help ends with the shared exit-code table")
	assert.Contains(t, r.stdout, "  70  An internal error (a bug)")
	r = runCmd(t, "fsinspect", "--version")
	assert.Equal(t, 0, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "fsinspect "), r.stdout)
}

func TestInspectSingleFile(t *testing.T) {
	r := runCmd(t, "fsinspect", repoPath("testdata", "tiny-qwen3", "model.safetensors"))
	assert.Equal(t, 3, r.code, "not checked has its own exit code")
	assert.Contains(t, r.stdout, "– cross-check skipped: a single file was given")
}

// TestInspectJSONPaths: every tensor of --json names its directory in the
// mount's tree, where its data file has the tensor's bytes.
func TestInspectJSONPaths(t *testing.T) {
	model := repoPath("testdata", "tiny-qwen3")
	r := runCmd(t, "fsinspect", "--json", model)
	require.Equal(t, 0, r.code, r.stderr)
	var j struct {
		Tensors []struct {
			Name  string `json:"name"`
			Path  string `json:"path"`
			Bytes int64  `json:"bytes"`
		} `json:"tensor_list"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	require.Len(t, j.Tensors, 25)
	mnt, _ := mountModel(t, model)
	for _, tt := range j.Tensors {
		st, err := os.Stat(filepath.Join(mnt, tt.Path, "data"))
		require.NoError(t, err, tt.Name)
		assert.Equal(t, tt.Bytes, st.Size(), tt.Name)
	}
	paths := map[string]string{}
	for _, tt := range j.Tensors {
		paths[tt.Name] = tt.Path
	}
	assert.Equal(t, "layers/0/self_attn/q_proj", paths["model.layers.0.self_attn.q_proj.weight"])
	assert.Equal(t, "lm_head", paths["lm_head.weight"])
}

// plantedTiny writes the tiny model with a NaN in one tensor, an Inf in
// another and a third all zero.
func plantedTiny(t *testing.T) string {
	t.Helper()
	return testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			n := testmodel.NBytes(ts[i].DType, ts[i].Shape)
			switch ts[i].Name {
			case "model.layers.0.self_attn.q_proj.weight":
				d := testmodel.Fill(1, ts[i].Name, n)
				for j := 0; j < len(d); j += 2 {
					d[j+1] &= 0x3f // finite values
				}
				binary.LittleEndian.PutUint16(d[20:], 0x7fc0) // NaN
				ts[i].Data = d
			case "model.layers.1.mlp.up_proj.weight":
				d := make([]byte, n)
				binary.LittleEndian.PutUint16(d[6:], 0xff80) // -Inf
				ts[i].Data = d
			case "model.layers.1.input_layernorm.weight":
				ts[i].Data = make([]byte, n)
			}
		}
		return ts
	})
}

func TestInspectScan(t *testing.T) {
	r := runCmd(t, "fsinspect", "--scan", plantedTiny(t))
	assert.Equal(t, 1, r.code, r.stderr)
	assertContainsAll(t, r.stdout,
		"── values ─",
		"✗ nan: model.layers.0.self_attn.q_proj.weight holds 1 NaN",
		"✗ inf: model.layers.1.mlp.up_proj.weight holds 0 NaN, 0 +Inf, 1 -Inf",
		"✗ zero: every one of the 32 values of model.layers.1.input_layernorm.weight is zero",
		"✗ 25 tensors scanned: 3 bad",
	)
	assert.Empty(t, r.stderr, "no progress bar when stderr is not a terminal")

	clean := runCmd(t, "fsinspect", repoPath("testdata", "tiny-qwen3"), "--scan")
	assert.Equal(t, 0, clean.code, clean.stderr)
	assert.Contains(t, clean.stdout, "✓ 25 tensors scanned: 0 bad, 0 warnings, 0 not decoded")

	j := runCmd(t, "fsinspect", "--scan", "--json", plantedTiny(t))
	assert.Equal(t, 1, j.code)
	var v struct {
		Clean bool `json:"clean"`
		Scan  struct {
			Failed  bool `json:"failed"`
			Tensors []struct {
				Name   string `json:"name"`
				Health string `json:"health"`
				NaN    uint64 `json:"nan"`
			} `json:"tensors"`
		} `json:"scan"`
	}
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &v))
	assert.False(t, v.Clean, "clean is the whole verdict: a NaN is a problem, whatever the layout")
	assert.True(t, v.Scan.Failed)
	health := map[string]string{}
	for _, x := range v.Scan.Tensors {
		health[x.Name] = x.Health
	}
	assert.Equal(t, "nan", health["model.layers.0.self_attn.q_proj.weight"])
	assert.Equal(t, "zero", health["model.layers.1.input_layernorm.weight"])
	assert.Equal(t, "ok", health["model.norm.weight"])

	// A clean scan of a fully checked model: clean.
	j = runCmd(t, "fsinspect", "--scan", "--json", repoPath("testdata", "tiny-qwen3"))
	assert.Equal(t, 0, j.code, j.stderr)
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &v))
	assert.True(t, v.Clean)
	assert.False(t, v.Scan.Failed)
}

// bf16Bits rounds float32 to BF16 (to nearest even).
func bf16Bits(v float32) uint16 {
	b := math.Float32bits(v)
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// TestInspectCompare compares checkpoints made for the test: identical;
// one tensor perturbed by a known ε; a BF16 model against its exact F32
// re-save; a tensor renamed.
func TestInspectCompare(t *testing.T) {
	base := filepath.Join(repoPath("testdata", "tiny-qwen3"))
	r := runCmd(t, "fsinspect", "--compare", base, "--tolerance", "0", base)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "identical")
	assert.NotContains(t, r.stdout, "differs")

	// o_proj of layer 1 scaled by 1.01 (rounded to BF16): the test
	// computes the relative L2 itself from the bytes.
	const name = "model.layers.1.self_attn.o_proj.weight"
	var want float64
	perturbed := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			if ts[i].Name != name {
				continue
			}
			d := append([]byte(nil), ts[i].Data...)
			var num, den float64
			for j := 0; j < len(d); j += 2 {
				a := math.Float32frombits(uint32(binary.LittleEndian.Uint16(d[j:])) << 16)
				b := bf16Bits(a * 1.01)
				binary.LittleEndian.PutUint16(d[j:], b)
				nb := math.Float32frombits(uint32(b) << 16)
				num += (float64(nb) - float64(a)) * (float64(nb) - float64(a))
				den += float64(a) * float64(a)
			}
			want = math.Sqrt(num / den)
			ts[i].Data = d
		}
		return ts
	})
	r = runCmd(t, "fsinspect", "--compare", base, "--tolerance", "1e-6", perturbed)
	assert.Equal(t, 1, r.code, r.stderr)
	j := runCmd(t, "fsinspect", "--compare", base, "--json", perturbed)
	require.Equal(t, 0, j.code, j.stderr)
	got := relL2Of(t, j.stdout, name)
	assert.InDelta(t, want, got, 1e-12*want, "relative L2 of %s", name)
	lines := strings.Split(r.stdout, "\n")
	var row string
	for _, l := range lines {
		if strings.HasPrefix(l, name+" ") {
			row = l
		}
	}
	assert.Contains(t, row, "differs")
	assert.Equal(t, 0, runCmd(t, "fsinspect", "--compare", base, "--tolerance", "0.02", perturbed).code)

	// BF16 against its F32 widening: equal as numbers.
	f32 := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			src := ts[i].Data
			d := make([]byte, 2*len(src))
			for j := 0; j < len(src); j += 2 {
				binary.LittleEndian.PutUint32(d[2*j:], uint32(binary.LittleEndian.Uint16(src[j:]))<<16)
			}
			ts[i].DType, ts[i].Data = "F32", d
		}
		return ts
	})
	r = runCmd(t, "fsinspect", "--compare", base, "--tolerance", "0", f32)
	assert.Equal(t, 0, r.code, r.stdout)
	assert.Contains(t, r.stdout, "equal")

	// A tensor renamed: the name sets differ, the gate fails.
	renamed := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			if ts[i].Name == "model.norm.weight" {
				ts[i].Name = "model.final_norm.weight"
			}
		}
		return ts
	})
	r = runCmd(t, "fsinspect", "--compare", base, "--tolerance", "1", renamed)
	assert.Equal(t, 1, r.code, r.stdout)
	assert.Contains(t, r.stdout, "model.final_norm.weight")
	assert.Contains(t, r.stdout, "model.norm.weight")
}

func relL2Of(t *testing.T, js, name string) float64 {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(js), &v))
	var find func(x any) (float64, bool)
	find = func(x any) (float64, bool) {
		switch y := x.(type) {
		case map[string]any:
			if y["name"] == name {
				switch r := y["rel_l2"].(type) {
				case float64:
					return r, true
				case string:
					f, _ := strconv.ParseFloat(r, 64)
					return f, true
				}
			}
			for _, z := range y {
				if f, ok := find(z); ok {
					return f, true
				}
			}
		case []any:
			for _, z := range y {
				if f, ok := find(z); ok {
					return f, true
				}
			}
		}
		return 0, false
	}
	f, ok := find(v)
	require.True(t, ok, "no rel_l2 for %s in %s", name, js[:min(300, len(js))])
	return f
}

// TestMountCompare: compare/summary is fsinspect --compare's table, and
// compare/<path>/delta.npy is MODEL − OTHER as numpy computes it.
func TestMountCompare(t *testing.T) {
	base := repoPath("testdata", "tiny-qwen3")
	other := plantedTiny(t)
	mnt, _ := mountModel(t, other, "--compare", base)
	b := readFile(t, filepath.Join(mnt, "compare", "summary"))
	r := runCmd(t, "fsinspect", "--compare", base, other)
	assert.Equal(t, r.stdout, string(b))
	// up_proj of layer 1 is all zero but one -Inf in MODEL: numpy
	// computes MODEL − OTHER from the two files itself.
	script := `
import sys, json, struct, numpy as np
m, base = sys.argv[1], sys.argv[2]
def bf16(b):
    return (np.frombuffer(b, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
with open(base + "/model.safetensors", "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    h = json.loads(f.read(n))
    lo, hi = h["model.layers.1.mlp.up_proj.weight"]["data_offsets"]
    f.seek(8 + n + lo)
    o = bf16(f.read(hi - lo)).reshape(64, 32)
a = bf16(open(m + "/layers/1/mlp/up_proj/data", "rb").read()).reshape(64, 32)
d = np.load(m + "/compare/layers/1/mlp/up_proj/delta.npy")
assert d.shape == (64, 32) and d.dtype == np.float32, (d.shape, d.dtype)
np.testing.assert_array_equal(d, a - o)
print(int(np.isinf(d).sum()))
`
	out, err := exec.Command(testmodel.Numpy(t), "-c", script, mnt, base).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "1\n", string(out), "the one -Inf")
	names := readFile(t, filepath.Join(mnt, "compare", "only-in-model"))
	assert.Empty(t, strings.TrimSpace(string(names)))
}
