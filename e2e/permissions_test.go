package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

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
	cfg, err := os.ReadFile(filepath.Join(model, "config.json"))
	require.NoError(t, err)
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
	b, err := os.ReadFile(filepath.Join(mnt, "config.json"))
	require.NoError(t, err)
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
