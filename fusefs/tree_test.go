package fusefs

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

// TestTreeNamesReserved builds the tiny model's tree and checks that
// every name the builder itself chose (the root's files, each tensor
// directory's files) is one of treeNames, so that the escaping of tensor
// paths, which reserves exactly those, cannot miss one.
func TestTreeNamesReserved(t *testing.T) {
	m, err := model.Open(filepath.Join("..", "testdata", "tiny-qwen3"))
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	r, err := spec.Check(m)
	require.NoError(t, err)
	tr, err := buildTree(r, 0, 0, nil)
	require.NoError(t, err)
	for _, c := range tr.root.children {
		if c.name != "layers" && c.name != "embed_tokens" && c.name != "norm" && c.name != "lm_head" {
			assert.True(t, layout.Reserved(c.name), "root entry %q is not in treeNames", c.name)
		}
	}
	var walk func(e *entry)
	walk = func(e *entry) {
		for _, c := range tr.list(e) {
			if c.mode&syscall.S_IFMT == syscall.S_IFREG {
				assert.True(t, layout.Reserved(c.name), "file %q is not in treeNames", c.name)
			}
			if c.isDir() && !(e == tr.root && c.name == layout.Files) {
				walk(c)
			}
		}
	}
	walk(tr.root)
}

func TestFinishRefusesDuplicates(t *testing.T) {
	tr := &tree{perms: newPerms(0, 0)}
	root := tr.newEntry("", syscall.S_IFDIR|0o555, nil)
	dir := tr.mkdirs(root, []string{"a", "b"}, nil)
	tr.text(dir, "x", "1", nil, nil)
	tr.text(dir, "y", "2", nil, nil)
	tr.text(dir, "x", "3", nil, nil)
	err := tr.finish(root, "")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `two entries named "x" in /a/b`)

	ok := tr.newEntry("", syscall.S_IFDIR|0o555, nil)
	tr.text(ok, "b", "", nil, nil)
	tr.text(ok, "a", "", nil, nil)
	require.NoError(t, tr.finish(ok, ""))
	assert.Equal(t, "a", ok.children[0].name, "sorted")
}

func TestViewCacheBounded(t *testing.T) {
	m, err := model.Open(filepath.Join("..", "testdata", "tiny-qwen3"))
	require.NoError(t, err)
	t.Cleanup(func() { m.Close() })
	r, err := spec.Check(m)
	require.NoError(t, err)
	tr, err := buildTree(r, 0, 0, nil)
	require.NoError(t, err)
	tr.viewCache.max = 2
	var dirs []*tensorDir
	var walk func(e *entry)
	walk = func(e *entry) {
		if e.td != nil {
			dirs = append(dirs, e.td)
		}
		for _, c := range e.children {
			walk(c)
		}
	}
	walk(tr.root)
	require.Greater(t, len(dirs), 3)
	a := tr.views(dirs[0])
	assert.Same(t, a, tr.views(dirs[0]), "kept while in use")
	tr.views(dirs[1])
	tr.views(dirs[2])
	assert.Equal(t, 2, tr.viewCache.order.Len())
	assert.NotSame(t, a, tr.views(dirs[0]), "the least recently used was dropped, and is made again")
}
