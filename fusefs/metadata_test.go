package fusefs

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// writeMetaGGUF writes a one-tensor GGUF of an architecture without a spec with the given keys after
// its architecture.
func writeMetaGGUF(t *testing.T, kvs ...testmodel.GGUFKV) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "meta.gguf")
	all := append([]testmodel.GGUFKV{{Key: "general.architecture", Value: "bomb"}}, kvs...)
	ts := []testmodel.GGUFTensor{{Name: "token_embd.weight", Type: 0, Dims: []uint64{8, 2}, Data: make([]byte, 64)}}
	require.NoError(t, testmodel.WriteGGUF(p, all, ts))
	return p
}

// A 100-million-element BOOL array (#25): the mount costs a small
// constant per element (the parser's marks), not a Go string per
// element as when metadata/ was rendered at mount (4.65 GB), and its
// file is rendered when read, from anywhere in it.
func TestMetadataBoolBombBoundedMemory(t *testing.T) {
	requireFUSE(t)
	if testing.Short() {
		t.Skip("a 100 MB sparse GGUF")
	}
	const n = 100_000_000
	p := writeMetaGGUF(t,
		testmodel.GGUFKV{Key: "bomb.bools", Value: testmodel.GGUFZeros{Elem: 7, N: n}},
		testmodel.GGUFKV{Key: "tokenizer.ggml.tokens", Value: []string{"a", "b\n\x1b"}})
	// The baseline: what a mount of a 1,000-element array keeps (go-fuse's
	// request buffers, the compiled spec, what a process sets up once).
	// The large array may keep at most a sixteenth of a byte per element
	// more.
	// Every measure collects twice first: an earlier test's garbage with
	// a finalizer (an os.File) survives one collection, and freed during
	// the baseline it made it negative (CI: -1 MB, and the bound failed).
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	small, _ := mountDir(t, writeMetaGGUF(t, testmodel.GGUFKV{Key: "small.bools", Value: testmodel.GGUFZeros{Elem: 7, N: 1000}}))
	_, err := os.ReadFile(filepath.Join(small, "metadata", "small.bools"))
	require.NoError(t, err)
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	base := max(int64(after.HeapAlloc)-int64(before.HeapAlloc), 0)
	runtime.ReadMemStats(&before)
	mnt, _ := mountDir(t, p)

	// ls -l metadata: every size.
	entries, err := os.ReadDir(filepath.Join(mnt, "metadata"))
	require.NoError(t, err)
	for _, e := range entries {
		_, err := e.Info()
		require.NoError(t, err)
	}
	bomb := filepath.Join(mnt, "metadata", "bomb.bools")
	st, err := os.Stat(bomb)
	require.NoError(t, err)
	require.Equal(t, int64(n*len("false\n")), st.Size())
	f, err := os.Open(bomb)
	require.NoError(t, err)
	defer f.Close()
	head := make([]byte, 1<<20)
	_, err = f.ReadAt(head, 0)
	require.NoError(t, err)
	assert.Equal(t, strings.Repeat("false\n", len(head)/6+1)[:len(head)], string(head))
	tail := make([]byte, 12)
	_, err = f.ReadAt(tail, st.Size()-12)
	require.NoError(t, err)
	assert.Equal(t, "false\nfalse\n", string(tail))
	mid := make([]byte, 7)
	_, err = f.ReadAt(mid, 6*(n/2)+3)
	require.NoError(t, err)
	assert.Equal(t, "se\nfals", string(mid))
	require.NoError(t, f.Close())

	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	// Twice: what sync.Pools hold (go-fuse's read buffers among them)
	// survives one collection in the pools' victim caches.
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&after)
	kept := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("mount, ls and reads allocated %d bytes (%.3f per element), kept %d (a mount of 1,000 elements kept %d)", alloc, float64(alloc)/n, kept, base)
	// The old renderer allocated 66 bytes an element; a quarter of a
	// byte (half under the race detector, whose sync.Pool keeps nothing)
	// is the mount's own constant cost spread over 100M elements.
	limit := uint64(n / 4)
	if raceBuild {
		limit = n / 2
	}
	assert.Less(t, alloc, limit, "bytes allocated for a %d-element array", n)
	assert.Less(t, kept-base, int64(n/16), "bytes kept for a %d-element array, beyond a small one's", n)

	tok, err := os.ReadFile(filepath.Join(mnt, "tokenizer", "tokens"))
	require.NoError(t, err)
	assert.Equal(t, "\"a\"\n\"b\\n\\x1b\"\n", string(tok))
}

// Metadata keys with control bytes (#25): a terminal escape, a bell, a
// line break. They are listed percent-encoded, as tensor names are, and
// open by those names; no name in the tree carries a control byte.
func TestMetadataKeysEscaped(t *testing.T) {
	requireFUSE(t)
	keys := map[string]string{
		"x\x1b]0;title\x07y":          "x%1B]0;title%07y",
		"two\nlines":                  "two%0Alines",
		"del\x7f":                     "del%7F",
		"tokenizer.ggml.bell\x07":     "tokenizer.ggml.bell%07",
		"tokenizer.ggml.percent%\x01": "tokenizer.ggml.percent%25%01",
	}
	var kvs []testmodel.GGUFKV
	for k := range keys {
		kvs = append(kvs, testmodel.GGUFKV{Key: k, Value: "value of " + k})
	}
	mnt, _ := mountDir(t, writeMetaGGUF(t, kvs...))
	entries, err := os.ReadDir(filepath.Join(mnt, "metadata"))
	require.NoError(t, err)
	var listed []string
	for _, e := range entries {
		listed = append(listed, e.Name())
	}
	for k, esc := range keys {
		assert.Contains(t, listed, esc)
		b, err := os.ReadFile(filepath.Join(mnt, "metadata", esc))
		require.NoError(t, err, "%q", esc)
		assert.Equal(t, "value of "+k+"\n", string(b))
		back, err := layout.Unescape([]string{esc})
		require.NoError(t, err)
		assert.Equal(t, k, back)
	}
	b, err := os.ReadFile(filepath.Join(mnt, "tokenizer", "bell%07"))
	require.NoError(t, err)
	assert.Equal(t, "value of tokenizer.ggml.bell\x07\n", string(b))
	require.NoError(t, filepath.WalkDir(mnt, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		noControl(t, d.Name())
		return nil
	}))
}
