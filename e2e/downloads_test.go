package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// Users' broken downloads, in each format: a Git LFS pointer, an HTML
// page or a truncated file in place of the weights, a Hugging Face cache
// directory, an index naming absent shards. Each is one line naming the
// file, the cause and the fix, exit 2, from both commands.
func TestBrokenDownloadsNamed(t *testing.T) {
	root := t.TempDir()
	cases, err := testmodel.WriteBroken(root, realGGUF())
	require.NoError(t, err)
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			r := runCmd(t, "fsinspect", c.Path)
			assert.Equal(t, 2, r.code, r.stdout+r.stderr)
			assert.Empty(t, r.stdout)
			assert.Regexp(t, `^fsinspect: [^\n]+\n$`, r.stderr, "one line")
			assert.Contains(t, r.stderr, c.Phrase)
			assert.Contains(t, r.stderr, root, "it names the file")
		})
	}
	// fsmount says the same, and mounts nothing.
	requireFUSE(t)
	for _, c := range cases[:3] {
		mnt := t.TempDir()
		r := runCmd(t, "fsmount", c.Path, mnt)
		assert.Equal(t, 2, r.code, r.stderr)
		assert.Contains(t, r.stderr, c.Phrase)
		assert.False(t, mounted(t, mnt))
	}
}

// A typo'd path is told in our words, with the nearest name; --list
// shows where each model is, absolute; --html into a non-empty
// directory is a bad command line.
func TestCarelessUser(t *testing.T) {
	r := runCmd(t, "fsinspect", repoPath("testdata", "tiny-qwen"))
	assert.Equal(t, 2, r.code)
	assert.Equal(t, "fsinspect: "+repoPath("testdata", "tiny-qwen")+": nothing at this path (no such file or directory); did you mean "+repoPath("testdata", "tiny-qwen3")+"?\n", r.stderr)
	assert.NotContains(t, r.stderr, "stat ")
	r = runCmd(t, "fsmount", repoPath("testdata", "tiny-qwen"), t.TempDir())
	assert.Equal(t, 2, r.code)
	assert.Contains(t, r.stderr, "nothing at this path")

	full := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(full, "notes.txt"), []byte("mine"), 0o644))
	r = runCmd(t, "fsinspect", "--html", full, repoPath("testdata", "tiny-qwen3"))
	assert.Equal(t, 64, r.code, "a usage error, not an invalid model: "+r.stderr)
	assert.Contains(t, r.stderr, "the directory is not empty")
	b, err := os.ReadFile(filepath.Join(full, "notes.txt"))
	require.NoError(t, err)
	assert.Equal(t, "mine", string(b))

	// A model mounted by a relative path: --list shows it absolute.
	rel := repoPath("testdata", "tiny-qwen3")
	require.False(t, filepath.IsAbs(rel))
	mnt, _ := mountModel(t, rel)
	abs, err := filepath.Abs(rel)
	require.NoError(t, err)
	list := runCmd(t, "fsmount", "--list").stdout
	assert.Regexp(t, "(?m)^"+regexp.QuoteMeta(mnt)+" +"+regexp.QuoteMeta(abs)+" ", list)
	assert.False(t, strings.Contains(list, " "+rel+" "))
}
