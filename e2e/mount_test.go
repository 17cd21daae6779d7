package e2e

import (
	"encoding/binary"
	"errors"
	"fmt"
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
	"github.com/fsmount/fsmount/safetensors"
)

func TestMountTiny(t *testing.T) {
	model := repoPath("testdata", "tiny-qwen3")
	mnt, pid := mountModel(t, model)

	out, code := sh(t, "cat "+mnt+"/verdict")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "✓ all 25 expected tensors present")

	out, _ = sh(t, "cat "+mnt+"/layers/0/self_attn/q_proj/shape")
	assert.Equal(t, "[64, 32]\n", out)
	out, code = sh(t, "diff "+mnt+"/expected/shapes "+mnt+"/shapes")
	assert.Equal(t, 0, code, out)
	out, _ = sh(t, "ls "+mnt+"/layers | wc -l")
	assert.Equal(t, "2", strings.TrimSpace(out))

	inspect := runCmd(t, "fsinspect", model)
	report, err := os.ReadFile(filepath.Join(mnt, "report"))
	require.NoError(t, err)
	assert.Equal(t, inspect.stdout, string(report), "report is byte for byte fsinspect's output")
	cfg, err := os.ReadFile(filepath.Join(model, "config.json"))
	require.NoError(t, err)
	out, _ = sh(t, "cat "+mnt+"/config.json")
	assert.Equal(t, string(cfg), out)

	checkData(t, mnt, filepath.Join(model, "model.safetensors"))
	checkReadOnly(t, mnt)

	out, code = sh(t, "umount "+mnt)
	require.Equal(t, 0, code, out)
	assert.False(t, mounted(t, mnt))
	waitFor(t, "the daemon to exit", func() bool { return !fusetest.Alive(pid) })
}

// checkData compares every data file with the same range of the model
// file, and its st_size with the byte count.
func checkData(t *testing.T, mnt, file string) {
	t.Helper()
	f, err := safetensors.Open(file)
	require.NoError(t, err)
	defer f.Close()
	raw, err := os.Open(file)
	require.NoError(t, err)
	defer raw.Close()
	for _, tt := range f.Tensors() {
		p := filepath.Join(mnt, "by-name", tt.Name, "data")
		out, _ := sh(t, "stat -L -c %s "+p)
		assert.Equal(t, strconv.FormatInt(tt.Length, 10), strings.TrimSpace(out), tt.Name)
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		want := make([]byte, tt.Length)
		_, err = raw.ReadAt(want, tt.Offset)
		require.NoError(t, err)
		assert.Equal(t, want, got, tt.Name)
	}
}

func checkReadOnly(t *testing.T, mnt string) {
	t.Helper()
	data := mnt + "/layers/0/mlp/up_proj/data"
	for _, cmd := range []string{
		"echo x > " + data,
		"echo x >> " + mnt + "/verdict",
		"mkdir " + mnt + "/newdir",
		"chmod 644 " + data,
		"touch " + mnt + "/newfile",
		"rm " + data,
	} {
		out, code := sh(t, cmd+" 2>&1")
		assert.NotEqual(t, 0, code, "%s succeeded", cmd)
		assert.Contains(t, out, "Read-only file system", cmd)
	}
}

// TestMountBF16WithPython unpacks bf16 values from a data file with
// python3's struct, as a user would, and compares them with ours.
func TestMountBF16WithPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	require.NoError(t, err, "python3 is needed for this test")
	mnt, _ := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	p := filepath.Join(mnt, "layers", "0", "self_attn", "k_proj", "data")
	script := `import struct,sys
d=open(sys.argv[1],'rb').read(16)
print(' '.join(repr(struct.unpack('<f', struct.pack('<I', h<<16))[0]) for h in struct.unpack('<8H', d)))`
	out, err := exec.Command(python, "-c", script, p).Output()
	require.NoError(t, err)

	raw, err := os.ReadFile(p)
	require.NoError(t, err)
	var want []string
	for i := 0; i < 8; i++ {
		v := math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16) // BF16 is the top half of an F32
		want = append(want, strconv.FormatFloat(float64(v), 'g', -1, 64))
	}
	assert.Equal(t, strings.Join(want, " "), strings.TrimSpace(string(out)))
}

func TestMountRealLayout(t *testing.T) {
	model := testmodel.Sparse06BDir(t)
	start := time.Now()
	mnt, pid := mountModel(t, model)
	t.Logf("mount-ready: %v", time.Since(start))

	out, _ := sh(t, "cat "+mnt+"/verdict")
	assert.Contains(t, out, "✓ all 311 expected tensors present")
	out, _ = sh(t, "cat "+mnt+"/layers/0/self_attn/q_proj/shape")
	assert.Equal(t, "[2048, 1024]\n", out)
	out, _ = sh(t, "ls "+mnt+"/layers | wc -l")
	assert.Equal(t, "28", strings.TrimSpace(out))
	out, code := sh(t, "diff "+mnt+"/expected/shapes "+mnt+"/shapes")
	assert.Equal(t, 0, code, out)
	out, _ = sh(t, "stat -c %s "+mnt+"/embed_tokens/data")
	assert.Equal(t, "311164928", strings.TrimSpace(out))
	report, err := os.ReadFile(filepath.Join(mnt, "report"))
	require.NoError(t, err)
	assert.Equal(t, runCmd(t, "fsinspect", model).stdout, string(report))

	// A range of the big tensor equals the file's bytes (zeros: a hole).
	out, code = sh(t, fmt.Sprintf("cmp -n 1048576 %s/lm_head/data %s/model.safetensors -i 0:%d", mnt, model, dataStart(t, model)))
	assert.Equal(t, 0, code, out)

	runCmd(t, "fsmount", "-u", mnt)
	assert.False(t, mounted(t, mnt))
	waitFor(t, "the daemon to exit", func() bool { return !fusetest.Alive(pid) })
}

func dataStart(t *testing.T, model string) int64 {
	f, err := safetensors.Open(filepath.Join(model, "model.safetensors"))
	require.NoError(t, err)
	defer f.Close()
	return f.Tensor("lm_head.weight").Offset
}

func TestMountBrokenDiff(t *testing.T) {
	model := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		ts[3].Shape, ts[3].Data = []uint64{32, 33}, nil // k_proj of layer 0
		return ts
	})
	mnt, _ := mountModel(t, model)
	out, code := sh(t, "diff "+mnt+"/expected/shapes "+mnt+"/shapes")
	assert.Equal(t, 1, code)
	assert.Equal(t, "9c9\n< model.layers.0.self_attn.k_proj.weight\t[32, 32]\n---\n> model.layers.0.self_attn.k_proj.weight\t[32, 33]\n", out)
	v, _ := sh(t, "cat "+mnt+"/verdict")
	assert.Contains(t, v, "✗ mis-shaped: model.layers.0.self_attn.k_proj.weight")
	out, code = sh(t, "diff -r "+mnt+"/expected/layers/0 "+mnt+"/layers/0")
	assert.Equal(t, 1, code, "diff -r exits 1 on a difference")
	assert.Contains(t, out, "< [32, 32]\n---\n> [32, 33]")
}

func TestMountRefusals(t *testing.T) {
	requireFUSE(t)
	model := repoPath("testdata", "tiny-qwen3")

	short := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor { return ts })
	st, err := os.Stat(filepath.Join(short, "model.safetensors"))
	require.NoError(t, err)
	require.NoError(t, os.Truncate(filepath.Join(short, "model.safetensors"), st.Size()-2))

	notEmpty := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(notEmpty, "x"), nil, 0o644))
	file := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(file, nil, 0o644))

	cases := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"invalid model", []string{short, t.TempDir()}, 2, "file is 2 bytes short"},
		{"missing model", []string{filepath.Join(short, "nope"), t.TempDir()}, 2, "no such file or directory"},
		{"missing mount point", []string{model, filepath.Join(notEmpty, "nope")}, 10, "does not exist"},
		{"not a directory", []string{model, file}, 10, "is not a directory"},
		{"not empty", []string{model, notEmpty}, 10, "is not empty"},
		{"bad option", []string{"-o", "rw", model, t.TempDir()}, 64, `unknown mount option "rw"`},
		{"one operand", []string{model}, 64, "expected MODEL and MOUNTPOINT"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCmd(t, "fsmount", c.args...)
			assert.Equal(t, c.code, r.code, r.stderr)
			assert.Contains(t, r.stderr, c.msg)
			assert.True(t, strings.HasPrefix(r.stderr, "fsmount: "), r.stderr)
			if c.code != 64 {
				assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
			}
			if mnt := c.args[len(c.args)-1]; c.code != 64 {
				assert.False(t, mounted(t, mnt), "something was mounted")
				assert.Zero(t, fusetest.DaemonPid(mnt, "fsmount"), "a daemon was left")
			}
		})
	}
	r := runCmd(t, "fsmount", "--help")
	assert.Equal(t, 0, r.code)
	assert.Contains(t, r.stdout, "usage: fsmount [options] MODEL MOUNTPOINT")
	assert.Contains(t, r.stdout, cli.Help("fsmount"), "--help ends with the shared exit-code table")
	r = runCmd(t, "fsmount", "--version")
	assert.Equal(t, 0, r.code)
	assert.True(t, strings.HasPrefix(r.stdout, "fsmount "))
	notMounted := t.TempDir()
	r = runCmd(t, "fsmount", "-u", notMounted)
	assert.Equal(t, 1, r.code)
	assert.Equal(t, "fsmount: "+notMounted+" is not a mount point\n", r.stderr)
}

// TestForegroundSignals runs fsmount -f and stops it with SIGINT and
// SIGTERM: each time the mount goes away and the process exits 0.
func TestForegroundSignals(t *testing.T) {
	requireFUSE(t)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			mnt := t.TempDir()
			cmd := exec.Command(filepath.Join(binDir, "fsmount"), "-f", repoPath("testdata", "tiny-qwen3"), mnt)
			require.NoError(t, cmd.Start())
			waitFor(t, "the mount", func() bool { return mounted(t, mnt) })
			b, err := os.ReadFile(filepath.Join(mnt, "verdict"))
			require.NoError(t, err)
			assert.Contains(t, string(b), "✓")
			require.NoError(t, cmd.Process.Signal(sig))
			require.NoError(t, cmd.Wait(), "exit status after %v", sig)
			assert.False(t, mounted(t, mnt))
		})
	}
}

// TestStaleMount kills the daemon with -9: the mount point is dead, a new
// mount there is refused with a hint, fsmount -u clears it and a remount
// works.
func TestStaleMount(t *testing.T) {
	model := repoPath("testdata", "tiny-qwen3")
	mnt, pid := mountModel(t, model)
	require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
	waitFor(t, "the daemon to die", func() bool { return !fusetest.Alive(pid) })
	_, err := os.Stat(filepath.Join(mnt, "verdict"))
	// ENOTCONN, or ECONNABORTED / EIO for a request caught by the kill.
	assert.True(t, errors.Is(err, syscall.ENOTCONN) || errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EIO), "dead mount: %v", err)

	r := runCmd(t, "fsmount", model, mnt)
	assert.Equal(t, 10, r.code)
	assert.Contains(t, r.stderr, "dead FUSE mount")
	assert.Contains(t, r.stderr, "fsmount -u "+mnt)

	r = runCmd(t, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
	assert.False(t, mounted(t, mnt))

	r = runCmd(t, "fsmount", model, mnt)
	require.Equal(t, 0, r.code, r.stderr)
	b, err := os.ReadFile(filepath.Join(mnt, "verdict"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "✓")
	r = runCmd(t, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
}

// rssKB reads a field such as RssAnon from /proc/PID/status, in kB.
func rssKB(t *testing.T, pid int, field string) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// TestDaemonMemoryFlat reads every data file of the 1.5 GB Qwen3-0.6B
// layout through the mount: the daemon's anonymous memory must not grow
// with what is read, because data is never copied onto its heap.
func TestDaemonMemoryFlat(t *testing.T) {
	mnt, pid := mountModel(t, testmodel.Sparse06BDir(t))
	before := rssKB(t, pid, "RssAnon")
	out, code := sh(t, "find "+mnt+" -name data -path '*/data' -not -path '*/by-name/*' -not -path '*/expected/*' | xargs cat | wc -c")
	require.Equal(t, 0, code, out)
	assert.Equal(t, "1503264768", strings.TrimSpace(out), "every data byte read once")
	after := rssKB(t, pid, "RssAnon")
	t.Logf("daemon RssAnon before %d kB, after reading 1.5 GB %d kB", before, after)
	assert.Less(t, after-before, 16*1024, "RssAnon grew by %d kB", after-before)
	assert.Less(t, after, 32*1024, "RssAnon %d kB", after)
}

// TestDaemonSIGTERMRelative mounts at a relative path from another
// directory and stops the background daemon with SIGTERM: it unmounts
// even though it has left its working directory.
func TestDaemonSIGTERMRelative(t *testing.T) {
	requireFUSE(t)
	parent := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(parent, "mnt"), 0o755))
	model, err := filepath.Abs(repoPath("testdata", "tiny-qwen3"))
	require.NoError(t, err)
	cmd := exec.Command(filepath.Join(binDir, "fsmount"), model, "mnt")
	cmd.Dir = parent
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, string(out))
	mnt := filepath.Join(parent, "mnt")
	require.True(t, mounted(t, mnt))
	pid := fusetest.DaemonPid("mnt", "fsmount")
	require.NotZero(t, pid)
	require.NoError(t, syscall.Kill(pid, syscall.SIGTERM))
	waitFor(t, "the daemon to exit", func() bool { return !fusetest.Alive(pid) })
	assert.False(t, mounted(t, mnt))
}
