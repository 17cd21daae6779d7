package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// passthroughRefused is what fsmount --passthrough logs where the kernel
// refuses passthrough.
const passthroughRefused = "kernel passthrough unavailable"

// TestFilesPassthrough mounts the tiny model with fsmount -d
// --passthrough and reads only files/: every file is byte for byte the
// model's, the daemon's request log shows the kernel took the model files
// as backing files and sent not a single READ (it read them itself), and
// small files still read right. Where the kernel refuses passthrough (as
// a user other than root, or on a kernel without it) the log says why
// and files/ is still right, spliced; the passthrough checks are then
// skipped, also under FSMOUNT_REQUIRE_FUSE, since CI's kernel may differ.
func TestFilesPassthrough(t *testing.T) {
	requireFUSE(t)
	model := repoPath("testdata", "tiny-qwen3")
	mnt := t.TempDir()
	cmd := exec.Command(filepath.Join(binDir, "fsmount"), "-d", "--passthrough", model, mnt)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	require.NoError(t, cmd.Start())
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cmd.Process.Signal(syscall.SIGTERM)
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	waitFor(t, "the mount", func() bool { return mounted(t, mnt) })

	for _, n := range []string{"config.json", "model.safetensors"} {
		want, err := os.ReadFile(filepath.Join(model, n))
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(mnt, "files", n))
		require.NoError(t, err)
		assert.Equal(t, want, got, n)
	}
	stop()
	requests := log.String()
	if i := strings.Index(requests, passthroughRefused); i >= 0 {
		assert.Contains(t, requests, ": READ n", "without passthrough the daemon serves the reads")
		t.Skipf("SKIPPING the passthrough checks: %s", strings.SplitN(requests[i:], "\n", 2)[0])
	}
	assert.Contains(t, requests, "PASSTHROUGH}", "an OPEN reply names a backing file")
	assert.NotContains(t, requests, ": READ n", "the kernel reads files/ itself: no READ reaches the daemon")
}

// TestMountPassthroughSmallFiles: with --passthrough every open is
// answered, and the tree's small files, tensor data and files/ read as
// without it; on a remote model, which has no local file to pass
// through, the mount is as without --passthrough and says why.
func TestMountPassthroughSmallFiles(t *testing.T) {
	model := repoPath("testdata", "tiny-qwen3")
	requireFUSE(t)
	mnt := t.TempDir()
	r := runCmd(t, "fsmount", "--passthrough", model, mnt)
	require.Equal(t, 0, r.code, r.stderr)
	t.Cleanup(func() { runCmd(t, "fsmount", "-u", mnt) })
	if os.Geteuid() == 0 && !strings.Contains(r.stderr, passthroughRefused) {
		assert.Empty(t, r.stderr)
	}
	for i := 0; i < 2; i++ { // the second time from the page cache
		out, _ := sh(t, "cat "+mnt+"/verdict")
		assert.Contains(t, out, "✓ all 25 expected tensors present")
		out, _ = sh(t, "cat "+mnt+"/layers/0/self_attn/q_proj/shape "+mnt+"/layers/0/self_attn/q_proj/dtype")
		assert.Equal(t, "[64, 32]\nBF16\n", out)
		out, code := sh(t, "diff "+mnt+"/expected/shapes "+mnt+"/shapes")
		assert.Equal(t, 0, code, out)
		out, code = sh(t, "cmp "+mnt+"/files/model.safetensors "+model+"/model.safetensors")
		assert.Equal(t, 0, code, out)
	}
	checkData(t, mnt, filepath.Join(model, "model.safetensors"))
	checkReadOnly(t, mnt)

	srv, root := remoteRoot(t)
	rmnt := t.TempDir()
	r = runCmd(t, "fsmount", "--passthrough", srv.URL+"/tiny/", rmnt)
	require.Equal(t, 0, r.code, r.stderr)
	t.Cleanup(func() { runCmd(t, "fsmount", "-u", rmnt) })
	assert.Contains(t, r.stderr, passthroughRefused)
	out, code := sh(t, "cmp "+rmnt+"/files/model.safetensors "+filepath.Join(root, "tiny", "model.safetensors"))
	assert.Equal(t, 0, code, out)
}
