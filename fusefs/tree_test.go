package fusefs

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestTreeNamesReserved builds the tiny model's tree and checks that
// every name the builder itself chose (the root's files, each tensor
// directory's files) is reserved by package layout, so that the escaping of tensor
// paths, which reserves exactly those, cannot miss one.
func TestTreeNamesReserved(t *testing.T) {
	_, r := testmodel.Checked(t, filepath.Join("..", "testdata", "tiny-qwen3"))
	tr, err := buildTree(r, 0, 0, nil, nil)
	require.NoError(t, err)
	for _, c := range tr.root.children {
		if c.name != "layers" && c.name != "embed_tokens" && c.name != "norm" && c.name != "lm_head" {
			assert.True(t, layout.Reserved(c.name), "root entry %q is not reserved by package layout", c.name)
		}
	}
	var walk func(e *entry)
	walk = func(e *entry) {
		for _, c := range tr.list(e) {
			if c.mode&syscall.S_IFMT == syscall.S_IFREG {
				assert.True(t, layout.Reserved(c.name), "file %q is not reserved by package layout", c.name)
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
	_, r := testmodel.Checked(t, filepath.Join("..", "testdata", "tiny-qwen3"))
	tr, err := buildTree(r, 0, 0, nil, nil)
	require.NoError(t, err)
	tr.viewCache.max = 2
	dirs := tr.dirs
	require.Greater(t, len(dirs), 3)
	a := tr.views(dirs[0])
	assert.Same(t, a, tr.views(dirs[0]), "kept while in use")
	tr.views(dirs[1])
	tr.views(dirs[2])
	assert.Equal(t, 2, tr.viewCache.views.Len())
	assert.NotSame(t, a, tr.views(dirs[0]), "the least recently used was dropped, and is made again")
}

// A lines file reads, at any offset and in any piece, as the lines
// joined: the shapes files are rendered when read.
func TestLinesContent(t *testing.T) {
	var want strings.Builder
	var lines []string
	for i := range 5000 {
		l := strings.Repeat("x", i%37) + "\t" + strconv.Itoa(i) + "\n"
		lines = append(lines, l)
		want.WriteString(l)
	}
	c := newLines(len(lines), func(b []byte, i int) []byte { return append(b, lines[i]...) })
	require.Equal(t, int64(want.Len()), c.size())
	rng := rand.New(rand.NewPCG(7, 8))
	for range 500 {
		off := rng.Int64N(c.size())
		dest := make([]byte, 1+rng.IntN(70000))
		res, errno := c.read(nil, dest, off)
		require.Zero(t, errno)
		got, _ := res.Bytes(nil)
		require.Equal(t, want.String()[off:min(off+int64(len(dest)), c.size())], string(got), "%d at %d", len(dest), off)
	}
}

// The tree of a many-tensor MoE keeps a small constant per tensor
// (#25: a 500,000-tensor mount kept 632 MB, and a find took it to
// 2.7 GB): built, it holds well under 500 bytes a tensor beyond the
// model and its check, by-name/ and expected/ included once visited
// costing more.
func TestTreeBytesPerTensor(t *testing.T) {
	dir := t.TempDir()
	n, err := testmodel.WriteMoE(dir, 4, 1000)
	r := checked(t, dir, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	tr, err := buildTree(r, 0, 0, nil, nil)
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	t.Logf("%d tensors: the tree keeps %.0f bytes a tensor", n, per)
	assert.Less(t, per, 150.0, "bytes kept per tensor") // 103 measured, 112 before the paths were one string
	runtime.KeepAlive(tr)
}

// by-name/ and expected/, once visited, keep a small constant per
// tensor too (#25: as entries, they held more than the tensors' tree).
func TestLazyTreesBytesPerTensor(t *testing.T) {
	dir := t.TempDir()
	n, err := testmodel.WriteMoE(dir, 4, 1000)
	r := checked(t, dir, err)
	tr, err := buildTree(r, 0, 0, nil, nil)
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for _, name := range []string{layout.ByName, layout.Expected} {
		tr.made(tr.root.child(name))
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / float64(n)
	t.Logf("%d tensors: by-name/ and expected/ keep %.0f bytes a tensor", n, per)
	assert.Less(t, per, 250.0, "bytes kept per tensor")
	// And they are whole: a link and a shape of the last expert.
	c := tr.child(tr.child(tr.root, layout.ByName), "model.layers.3.mlp.experts.999.up_proj.weight")
	require.NotNil(t, c)
	assert.Equal(t, "../layers/3/mlp/experts/999/up_proj", c.target)
	e := tr.root.child(layout.Expected)
	for _, c := range []string{"layers", "3", "mlp", "experts", "999", "up_proj", layout.Shape} {
		e = tr.child(e, c)
		require.NotNil(t, e, c)
	}
	assert.Equal(t, shapeContent{32, 64}, e.content)
	runtime.KeepAlive(tr)
}

// comparePathStr orders joined paths as their components compare, the
// order child's binary search over a span relies on.
func TestComparePathStr(t *testing.T) {
	ref := func(a, b string) int {
		x, y := strings.Split(a, "/"), strings.Split(b, "/")
		for i := range min(len(x), len(y)) {
			if c := strings.Compare(x[i], y[i]); c != 0 {
				return c
			}
		}
		return len(x) - len(y)
	}
	sign := func(c int) int { return min(max(c, -1), 1) }
	rng := rand.New(rand.NewPCG(3, 4))
	parts := []string{"a", "ab", "a-b", "a.b", "%2F", "0", "10", "9", "b", "+", "~"}
	path := func() string {
		comps := make([]string, 1+rng.IntN(4))
		for i := range comps {
			comps[i] = parts[rng.IntN(len(parts))]
		}
		return strings.Join(comps, "/")
	}
	for range 20000 {
		a, b := path(), path()
		require.Equal(t, sign(ref(a, b)), sign(comparePathStr(a, b)), "%q %q", a, b)
	}
}

// A directory of files alone (a tensor's, an expected tensor's) is
// listed as list gives it, without making an entry per file (#25: a find
// over a 500,000-tensor model lists 1.3 million of them, twice each).
func TestFilesOnlyListing(t *testing.T) {
	dir := t.TempDir()
	_, err := testmodel.WriteMoE(dir, 1, 3)
	r := checked(t, dir, err)
	root, err := newRoot(r, 1, 1, true, nil, nil, nil)
	require.NoError(t, err)
	tr := root.t
	var walk func(e *entry, depth int)
	seen := map[string]int{}
	walk = func(e *entry, depth int) {
		kids := tr.list(e)
		n := &node{t: tr, e: e}
		fh, _, errno := n.OpendirHandle(context.Background(), 0)
		require.Zero(t, errno)
		h := fh.(*dirHandle)
		var got []fuse.DirEntry
		for {
			de, errno := h.Readdirent(context.Background())
			require.Zero(t, errno)
			if de == nil {
				break
			}
			got = append(got, *de)
		}
		require.Len(t, got, len(kids), e.name)
		for i, c := range kids {
			require.Equal(t, fuse.DirEntry{Name: c.name, Mode: c.mode, Ino: c.ino, Off: uint64(i + 1)}, got[i], e.name)
		}
		if h.names != nil {
			seen[fmt.Sprint(len(h.names))]++
			allocs := testing.AllocsPerRun(20, func() {
				fh, _, _ := n.OpendirHandle(context.Background(), 0)
				for de, _ := fh.(*dirHandle).Readdirent(context.Background()); de != nil; de, _ = fh.(*dirHandle).Readdirent(context.Background()) {
				}
			})
			require.LessOrEqual(t, allocs, 1.0, "allocations listing %s", e.name)
		}
		for _, c := range kids {
			if c.isDir() && depth < 12 {
				walk(tr.child(e, c.name), depth+1)
			}
		}
	}
	walk(tr.root, 0)
	require.NotZero(t, seen[fmt.Sprint(len(tensorFiles))], "tensor directories listed")
	require.NotZero(t, seen["1"], "expected tensors' directories listed")
}
