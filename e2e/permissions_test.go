package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestPermissionsNoWiderThanSources mounts, as root with allow_other, a
// model whose config.json is a symlink to a 0600 secret and whose weights
// are world-readable: user nobody reads the tensors, but not config.json
// nor anything derived from it (verdict, report, shapes, expected/), and
// a 0600 model file makes its tensors unreadable too. Nobody may read
// through the mount what they could not read from the files; a directory
// is open to whoever may read everything it holds.
func TestPermissionsNoWiderThanSources(t *testing.T) {
	requireRootForOtherUser(t)
	model := testmodel.TinyDir(t, nil)
	require.NoError(t, os.Chmod(model, 0o755))
	secret := filepath.Join(t.TempDir(), "secret.json")
	cfg := readFile(t, filepath.Join(model, "config.json"))
	require.NoError(t, os.WriteFile(secret, cfg, 0o600))
	require.NoError(t, os.Remove(filepath.Join(model, "config.json")))
	require.NoError(t, os.Symlink(secret, filepath.Join(model, "config.json")))

	mnt, _ := mountModel(t, model, "-o", "allow_other")
	require.NoError(t, os.Chmod(filepath.Dir(mnt), 0o755))
	out, code := asNobody(t, "cat "+mnt+"/config.json")
	assert.NotEqual(t, 0, code, "nobody read the 0600 config through the mount: %s", out)
	assert.Contains(t, out, "Permission denied")
	for _, p := range []string{"verdict", "report", "shapes", "expected/shapes"} {
		out, code := asNobody(t, "cat "+mnt+"/"+p)
		assert.NotEqual(t, 0, code, "nobody read %s, derived from the secret: %s", p, out)
	}
	// The root holds what derives from the secret, so nobody cannot list it.
	out, code = asNobody(t, "ls "+mnt)
	assert.NotEqual(t, 0, code, out)

	// Root still reads everything.
	b := readFile(t, filepath.Join(mnt, "config.json"))
	assert.Equal(t, cfg, b)
	st, err := os.Stat(filepath.Join(mnt, "config.json"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o400), st.Mode().Perm())
	st, err = os.Stat(filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "data"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o444), st.Mode().Perm(), "the weights are world-readable, so are their tensors")

	// A model whose weights are 0600: their tensors are not readable either.
	private := testmodel.TinyDir(t, nil)
	require.NoError(t, os.Chmod(private, 0o755))
	require.NoError(t, os.Chmod(filepath.Join(private, "model.safetensors"), 0o600))
	mnt2, _ := mountModel(t, private, "-o", "allow_other")
	require.NoError(t, os.Chmod(filepath.Dir(mnt2), 0o755))
	for _, p := range []string{"layers/0/self_attn/q_proj/data", "layers/0/self_attn/q_proj/shape", "verdict"} {
		out, code := asNobody(t, "cat "+mnt2+"/"+p)
		assert.NotEqual(t, 0, code, "nobody read %s of a 0600 model: %s", p, out)
		assert.True(t, strings.Contains(out, "Permission denied"), out)
	}
	// config.json is 0644, but it sits in the root, which lists tensors
	// of the private file: a directory is open only to whoever may read
	// all it holds.
	out, code = asNobody(t, "cat "+mnt2+"/config.json")
	assert.NotEqual(t, 0, code, out)
	st, err = os.Stat(mnt2)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o500), st.Mode().Perm())
}

// asNobody runs a shell command as uid/gid 65534 (needs root).
func asNobody(t *testing.T, script string) (string, int) {
	t.Helper()
	return command(t, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", script)
}

func requireRootForOtherUser(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: switching to another uid needs root; the root run of this suite covers it")
	}
	if _, err := exec.LookPath("setpriv"); err != nil {
		t.Fatalf("setpriv (util-linux) is needed: %v", err)
	}
}

// TestOtherUserShutOut: without allow_other, another uid cannot even stat
// the mount.
func TestOtherUserShutOut(t *testing.T) {
	requireRootForOtherUser(t)
	mnt, _ := mountModel(t, repoPath("testdata", "tiny-qwen3"))
	// Let nobody reach the mount point, so that only the mount refuses.
	require.NoError(t, os.Chmod(filepath.Dir(mnt), 0o755))
	for _, cmd := range []string{"cat " + mnt + "/verdict", "ls " + mnt, "cat " + mnt + "/embed_tokens/data"} {
		out, code := asNobody(t, cmd)
		assert.NotEqual(t, 0, code, "%s as nobody succeeded: %s", cmd, out)
		assert.Contains(t, out, "Permission denied", cmd)
	}
}

// TestAllowOther: with allow_other another uid may read, and the kernel
// still enforces the tree's modes (default_permissions): nothing is
// writable.
func TestAllowOther(t *testing.T) {
	requireRootForOtherUser(t)
	mnt, _ := mountModel(t, repoPath("testdata", "tiny-qwen3"), "-o", "allow_other")
	require.NoError(t, os.Chmod(filepath.Dir(mnt), 0o755))
	out, code := asNobody(t, "cat "+mnt+"/verdict")
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "✓")
	out, code = asNobody(t, "test -w "+mnt+"/verdict || test -w "+mnt+"/layers || echo denied")
	assert.Equal(t, 0, code)
	assert.Equal(t, "denied\n", out)
	out, code = asNobody(t, "echo x > "+mnt+"/verdict")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, out, "Read-only file system")

	mounts := readFile(t, "/proc/self/mounts")
	var opts string
	for _, l := range strings.Split(string(mounts), "\n") {
		if f := strings.Fields(l); len(f) > 3 && f[1] == mnt {
			opts = f[3]
		}
	}
	for _, o := range []string{"ro", "default_permissions", "allow_other", "nosuid", "nodev"} {
		assert.Contains(t, strings.Split(opts, ","), o, opts)
	}
}

// TestRemoteCacheIsPrivate: fsmount refuses a --cache-dir another user
// owns, in one line and with exit status 2, mounting nothing; and with
// neither XDG_CACHE_HOME, HOME nor XDG_RUNTIME_DIR set, fsinspect keeps
// no disk cache (no shared /tmp/fsmount) and its report says so.
func TestRemoteCacheIsPrivate(t *testing.T) {
	srv, _ := remoteRoot(t)
	model := srv.URL + "/tiny/"

	_, statErr := os.Lstat(filepath.Join(os.TempDir(), "fsmount"))
	t.Setenv("XDG_CACHE_HOME", "")
	t.Setenv("HOME", "")
	t.Setenv("XDG_RUNTIME_DIR", "")
	r := runCmd(t, "fsinspect", model)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "warning: no disk cache: none of XDG_CACHE_HOME, HOME and XDG_RUNTIME_DIR is set")
	if os.IsNotExist(statErr) {
		_, err := os.Lstat(filepath.Join(os.TempDir(), "fsmount"))
		assert.True(t, os.IsNotExist(err), "fsinspect made %s: %v", filepath.Join(os.TempDir(), "fsmount"), err)
	}

	if os.Geteuid() != 0 {
		t.Skip("SKIPPING the other user's directory: making one needs root")
	}
	requireFUSE(t)
	theirs := filepath.Join(t.TempDir(), "cache")
	require.NoError(t, os.Mkdir(theirs, 0o700))
	require.NoError(t, os.Chown(theirs, 65534, 65534))
	mnt := t.TempDir()
	r = runTimeout(t, time.Minute, "fsmount", "--cache-dir", theirs, model, mnt)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), r.stderr)
	assert.Contains(t, r.stderr, "cache directory "+theirs+" is owned by uid 65534, not by you (uid 0)")
	assert.False(t, mounted(t, mnt))
	ents, err := os.ReadDir(theirs)
	require.NoError(t, err)
	assert.Empty(t, ents, "fsmount wrote into another user's directory")
}
