package model_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/source/remote"
)

// writeSharded writes two shards and an index; edit may change the index
// text before it is written.
func writeSharded(t *testing.T, index string, shards map[string][]testmodel.Tensor) string {
	t.Helper()
	dir := t.TempDir()
	for name, ts := range shards {
		require.NoError(t, testmodel.WriteFile(filepath.Join(dir, name), ts, nil, 1))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, model.IndexName), []byte(index), 0o644))
	return dir
}

func TestIndexChecks(t *testing.T) {
	a := []testmodel.Tensor{{Name: "a", DType: "F32", Shape: []uint64{2}}}
	b := []testmodel.Tensor{{Name: "b", DType: "U8", Shape: []uint64{3}}}
	two := map[string][]testmodel.Tensor{"m-00001-of-00002.safetensors": a, "m-00002-of-00002.safetensors": b}
	const good = `{"metadata":{"total_size":11},"weight_map":{"a":"m-00001-of-00002.safetensors","b":"m-00002-of-00002.safetensors"}}`
	cases := []struct {
		name   string
		index  string
		shards map[string][]testmodel.Tensor
		err    error
		msg    string
	}{
		{"valid", good, two, nil, ""},
		{"total_size as string", `{"metadata":{"total_size":"11","total_parameters":5},"weight_map":{"a":"m-00001-of-00002.safetensors","b":"m-00002-of-00002.safetensors"}}`, two, nil, ""},
		{"no metadata", `{"weight_map":{"a":"m-00001-of-00002.safetensors","b":"m-00002-of-00002.safetensors"}}`, two, nil, ""},
		{"not json", `{"weight_map":`, two, safetensors.CodeInvalidIndex, ""},
		{"no weight_map", `{"metadata":{}}`, two, safetensors.CodeInvalidIndex, "no weight_map"},
		{"duplicate tensor", `{"weight_map":{"a":"m-00001-of-00002.safetensors","a":"m-00001-of-00002.safetensors"}}`, two, safetensors.CodeInvalidIndex, `lists tensor "a" twice`},
		{"unsorted weight map", `{"metadata":{"total_size":11},"weight_map":{"b":"m-00002-of-00002.safetensors","a":"m-00001-of-00002.safetensors"}}`, two, nil, ""},
		// A duplicate is found once the names are sorted, and still
		// reported before what a reader in file order meets after it.
		{"duplicate before a syntax error", `{"weight_map":{"b":"m-00002-of-00002.safetensors","a":"m-00001-of-00002.safetensors","b":"m-00002-of-00002.safetensors","c":1}}`, two, safetensors.CodeInvalidIndex, `lists tensor "b" twice, at byte 85`},
		{"syntax error before a duplicate", `{"weight_map":{"a":"m-00001-of-00002.safetensors","c":1,"a":"m-00001-of-00002.safetensors"}}`, two, safetensors.CodeInvalidIndex, "shard must be a string"},
		{"wrong shard, unsorted (I2)", `{"weight_map":{"b":"m-00002-of-00002.safetensors","a":"m-00002-of-00002.safetensors"}}`, two, safetensors.CodeAbsentTensor, `tensor "a" is mapped to m-00002-of-00002.safetensors`},
		{"shard not a string", `{"weight_map":{"a":1}}`, two, safetensors.CodeInvalidIndex, "shard must be a string"},
		{"shard escapes the directory", `{"weight_map":{"a":"../m-00001-of-00002.safetensors"}}`, two, safetensors.CodeInvalidIndex, "not a file name"},
		{"missing shard (I1)", `{"weight_map":{"a":"m-00001-of-00002.safetensors","b":"m-00003-of-00003.safetensors"}}`, two, safetensors.CodeMissingShard, "1 of the 2 shards it names is missing: m-00003-of-00003.safetensors"},
		{"absent tensor (I2)", `{"weight_map":{"a":"m-00001-of-00002.safetensors","b":"m-00002-of-00002.safetensors","c":"m-00002-of-00002.safetensors"}}`, two, safetensors.CodeAbsentTensor, `tensor "c" is mapped to m-00002-of-00002.safetensors, which does not hold it`},
		{"wrong shard (I2)", `{"weight_map":{"a":"m-00002-of-00002.safetensors","b":"m-00002-of-00002.safetensors","x":"m-00001-of-00002.safetensors"}}`, two, safetensors.CodeAbsentTensor, `tensor "a" is mapped to m-00002-of-00002.safetensors`},
		{"unlisted tensor (I3)", `{"weight_map":{"a":"m-00001-of-00002.safetensors"}}`, map[string][]testmodel.Tensor{"m-00001-of-00002.safetensors": append(a, b...)}, safetensors.CodeUnlistedTensor, `tensor "b" is not listed`},
		{"tensor in two shards (I4)", `{"weight_map":{"a":"m-00001-of-00002.safetensors","b":"m-00002-of-00002.safetensors"}}`, map[string][]testmodel.Tensor{"m-00001-of-00002.safetensors": a, "m-00002-of-00002.safetensors": append(a, b...)}, safetensors.CodeDuplicateTensor, `tensor "a" is stored in both`},
		{"total_size (I5)", `{"metadata":{"total_size":12},"weight_map":{"a":"m-00001-of-00002.safetensors","b":"m-00002-of-00002.safetensors"}}`, two, safetensors.CodeTotalSize, "metadata.total_size is 12, the tensors hold 11 bytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := writeSharded(t, c.index, c.shards)
			ck, err := model.Open(dir)
			if c.err == nil {
				require.NoError(t, err)
				assert.Len(t, ck.Tensors(), 2)
				assert.Len(t, ck.Files, 2)
				assert.Empty(t, ck.Warnings())
				ck.Close()
				return
			}
			require.ErrorIs(t, err, c.err)
			assert.ErrorIs(t, err, safetensors.ErrFormat)
			assert.Contains(t, err.Error(), c.msg)
		})
	}
}

func TestIndexWarnings(t *testing.T) {
	a := []testmodel.Tensor{{Name: "a", DType: "F32", Shape: []uint64{2}}}
	dir := writeSharded(t, `{"weight_map":{"a":"weights.safetensors"}}`, map[string][]testmodel.Tensor{"weights.safetensors": a, "stray.safetensors": a})
	ck, err := model.Open(dir)
	require.NoError(t, err)
	defer ck.Close()
	require.Len(t, ck.Warnings(), 2)
	assert.Contains(t, ck.Warnings()[0], "1 of 1 shard names do not follow NAME-00001-of-00001.safetensors (first: weights.safetensors)")
	assert.Contains(t, ck.Warnings()[1], "1 .safetensors file in the directory is not named by the index (first: stray.safetensors)")
}

func TestCheckpointKinds(t *testing.T) {
	_, err := model.Open(t.TempDir())
	assert.ErrorIs(t, err, model.ErrNoWeights)
	ck, err := model.Open(filepath.Join("..", "safetensors", "testdata", "fixtures", "SafeTensors.jl", "sharded"))
	require.NoError(t, err)
	assert.Len(t, ck.Files, 6)
	assert.Len(t, ck.Tensors(), 36)
	assert.NotNil(t, ck.Index)
	ck.Close()
}

// TestModelPrefersSingleFile: with both model.safetensors and an index,
// transformers and the Hub load model.safetensors (transformers'
// from_pretrained looks for SAFE_WEIGHTS_NAME before
// SAFE_WEIGHTS_INDEX_NAME); the index is then ignored, with a warning.
func TestModelPrefersSingleFile(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	// A one-shard index holding a different (broken) model beside it.
	require.NoError(t, testmodel.WriteFile(filepath.Join(dir, "model-00001-of-00001.safetensors"),
		[]testmodel.Tensor{{Name: "other.weight", DType: "BF16", Shape: []uint64{2}}}, nil, 0))
	require.NoError(t, os.WriteFile(filepath.Join(dir, model.IndexName),
		[]byte(`{"metadata":{},"weight_map":{"other.weight":"model-00001-of-00001.safetensors"}}`), 0o644))
	m, err := model.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	assert.Nil(t, m.Index)
	require.Len(t, m.Files, 1)
	assert.Equal(t, model.SingleName, filepath.Base(m.Files[0].Name()))
	assert.NotNil(t, m.Tensor("model.embed_tokens.weight"))
	assert.Equal(t, []string{model.IndexName + " ignored: " + model.SingleName + " is there, and transformers loads it first"}, m.Warnings())
}

// countingFS is a local directory whose opens take a while, counting how
// many are in flight at once.
type countingFS struct {
	source.Dir
	mu       sync.Mutex
	now, max int
	opened   int
}

func (c *countingFS) Open(name string) (source.File, error) {
	c.mu.Lock()
	c.now++
	c.opened++
	c.max = max(c.max, c.now)
	c.mu.Unlock()
	time.Sleep(2 * time.Millisecond)
	c.mu.Lock()
	c.now--
	c.mu.Unlock()
	return c.Dir.Open(name)
}

// TestShardOpensBounded: a model's shards are opened concurrently (over a
// network each open is a request), at most 32 at once.
func TestShardOpensBounded(t *testing.T) {
	const n = 80
	shards := map[string][]testmodel.Tensor{}
	weights := map[string]string{}
	for i := range n {
		shard := fmt.Sprintf("model-%05d-of-%05d.safetensors", i+1, n)
		name := fmt.Sprintf("t%02d", i)
		shards[shard] = []testmodel.Tensor{{Name: name, DType: "U8", Shape: []uint64{3}}}
		weights[name] = shard
	}
	idx, err := json.Marshal(map[string]any{"weight_map": weights})
	require.NoError(t, err)
	dir := writeSharded(t, string(idx), shards)
	fsys := &countingFS{Dir: source.Dir(dir)}
	m, err := model.OpenFS(dir, fsys, "")
	require.NoError(t, err)
	defer m.Close()
	assert.Len(t, m.Tensors(), n)
	assert.GreaterOrEqual(t, fsys.opened, n)
	assert.LessOrEqual(t, fsys.max, 32, "shards opened at once")
	assert.Greater(t, fsys.max, 1, "shards opened one by one")
}

// closingFS is a local directory that records the shards opened and
// how many of their files were closed (a shard's name starts with m-).
type closingFS struct {
	source.Dir
	mu             sync.Mutex
	shards         []string
	opened, closed int
}

type closedFile struct {
	source.File
	fs *closingFS
}

func (f closedFile) Close() error {
	f.fs.mu.Lock()
	f.fs.closed++
	f.fs.mu.Unlock()
	return f.File.Close()
}

func (c *closingFS) Open(name string) (source.File, error) {
	if !strings.HasPrefix(name, "m-") {
		return c.Dir.Open(name)
	}
	c.mu.Lock()
	c.shards = append(c.shards, name)
	c.mu.Unlock()
	f, err := c.Dir.Open(name)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.opened++
	c.mu.Unlock()
	return closedFile{f, c}, nil
}

// A model's shards are opened while its index is still being read (#25:
// the index of a 500,000-tensor model is 40 MB of JSON, its shards'
// headers as much again): an index found invalid at its end is still
// reported as such, and the shards opened meanwhile are closed; a shard
// that is not a plain file name is never opened.
func TestShardsOpenWhileIndexIsRead(t *testing.T) {
	a := []testmodel.Tensor{{Name: "a", DType: "F32", Shape: []uint64{2}}}
	b := []testmodel.Tensor{{Name: "b", DType: "U8", Shape: []uint64{3}}}
	two := map[string][]testmodel.Tensor{"m-00001-of-00002.safetensors": a, "m-00002-of-00002.safetensors": b}
	dir := writeSharded(t, `{"weight_map":{"a":"m-00001-of-00002.safetensors","b":"m-00002-of-00002.safetensors","a":"m-00001-of-00002.safetensors"}}`, two)
	fsys := &closingFS{Dir: source.Dir(dir)}
	_, err := model.OpenFS(dir, fsys, "")
	require.ErrorIs(t, err, safetensors.CodeInvalidIndex)
	assert.Contains(t, err.Error(), `lists tensor "a" twice`)
	assert.ElementsMatch(t, []string{"m-00001-of-00002.safetensors", "m-00002-of-00002.safetensors"}, fsys.shards, "shards opened before the index's end")
	assert.Equal(t, fsys.opened, fsys.closed, "shards left open")

	dir = writeSharded(t, `{"weight_map":{"a":"m-00001-of-00002.safetensors","b":"../m-00002-of-00002.safetensors"}}`, two)
	fsys = &closingFS{Dir: source.Dir(dir)}
	_, err = model.OpenFS(dir, fsys, "")
	require.ErrorIs(t, err, safetensors.CodeInvalidIndex)
	assert.Equal(t, []string{"m-00001-of-00002.safetensors"}, fsys.shards)
	assert.Equal(t, fsys.opened, fsys.closed, "shards left open")

	dir = writeSharded(t, `{"weight_map":{"b":"m-00002-of-00002.safetensors","a":"m-00001-of-00002.safetensors"}}`, two)
	fsys = &closingFS{Dir: source.Dir(dir)}
	m, err := model.OpenFS(dir, fsys, "")
	require.NoError(t, err)
	assert.Len(t, m.Tensors(), 2)
	assert.ElementsMatch(t, []string{"m-00002-of-00002.safetensors", "m-00001-of-00002.safetensors"}, fsys.shards, "each opened once")
	assert.Zero(t, fsys.closed)
	require.NoError(t, m.Close())
	assert.Equal(t, 2, fsys.closed)
}

// Many metadata keys (#25: a million cost 352 MB in fsinspect): the
// model keeps the format's table as it is, and the format a sorted index
// of the keys, not a map and a copy.
func TestManyMetadataKeysBytesPerKey(t *testing.T) {
	const n = 200_000
	kvs := []testmodel.GGUFKV{{Key: "general.architecture", Value: "many"}}
	for i := range n {
		kvs = append(kvs, testmodel.GGUFKV{Key: fmt.Sprintf("many.key_%07d", i), Value: uint32(i)})
	}
	p := filepath.Join(t.TempDir(), "keys.gguf")
	require.NoError(t, testmodel.WriteGGUF(p, kvs, []testmodel.GGUFTensor{{Name: "token_embd.weight", Type: 0, Dims: []uint64{8, 2}, Data: make([]byte, 64)}}))
	kvs = nil
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	m, err := model.Open(p)
	require.NoError(t, err)
	defer m.Close()
	runtime.GC()
	runtime.ReadMemStats(&after)
	per := float64(int64(after.HeapAlloc)-int64(before.HeapAlloc)) / n
	t.Logf("%d keys: %.0f bytes kept a key", n, per)
	// A key's entry (56 bytes), its name (16) and its index (4).
	assert.Less(t, per, 120.0, "bytes kept per metadata key")
	require.Equal(t, n+1, m.Metadata.Len())
	assert.Equal(t, "many.key_0199999", m.Metadata.Key(n))
	assert.Equal(t, int64(len("199999\n")), m.Metadata.Value(n).TextSize())
}

// TestUnversionedServerWarns opens a model from a server that sends
// neither ETag nor Last-Modified: its warnings say that a change there
// cannot be detected; from http.FileServer (Last-Modified) they do not.
func TestUnversionedServerWarns(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	bare := serveWith(t, dir, nil)
	files := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer files.Close()

	opts := &remote.Options{CacheSize: -1}
	m, err := model.OpenWith(bare.URL+"/", opts)
	require.NoError(t, err)
	defer m.Close()
	var found bool
	for _, w := range m.Warnings() {
		found = found || strings.Contains(w, "neither an ETag nor Last-Modified") && strings.Contains(w, "cannot be detected")
	}
	assert.True(t, found, "warnings %q", m.Warnings())

	m2, err := model.OpenWith(files.URL+"/", opts)
	require.NoError(t, err)
	defer m2.Close()
	for _, w := range m2.Warnings() {
		assert.NotContains(t, w, "cannot be detected")
	}
}

// TestWeakETagServerWarns opens a model from a server that sends only a
// weak ETag (as nginx does for a response it transforms): the warning
// says that a weak ETag is compared with every answer but cannot make a
// range request conditional, not that the server sends no ETag.
func TestWeakETagServerWarns(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	weak := serveWith(t, dir, http.Header{"Etag": {`W/"v1"`}})
	m, err := model.OpenWith(weak.URL+"/", &remote.Options{CacheSize: -1})
	require.NoError(t, err)
	defer m.Close()
	var found bool
	for _, w := range m.Warnings() {
		assert.NotContains(t, w, "neither an ETag nor Last-Modified")
		found = found || strings.Contains(w, "only a weak ETag") && strings.Contains(w, "If-Range")
	}
	assert.True(t, found, "warnings %q", m.Warnings())
}

// serveWith serves dir's files with http.ServeContent, which sends no
// Last-Modified for them, each answer with the headers hdr; it is closed
// when the test ends.
func serveWith(t *testing.T, dir string, hdr http.Header) *httptest.Server {
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(r.URL.Path, "/"))))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		maps.Copy(w.Header(), hdr)
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(s.Close)
	return s
}

// TestLocate: a directory is a file system and no file, a local file its
// directory and its name, a URL the remote file system (no request made),
// a missing path the stat's error.
func TestLocate(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	fsys, file, err := model.Locate(dir, nil)
	require.NoError(t, err)
	assert.Equal(t, dir, fsys.String())
	assert.Empty(t, file)

	fsys, file, err = model.Locate(filepath.Join(dir, "model.safetensors"), nil)
	require.NoError(t, err)
	assert.Equal(t, dir+"/", fsys.String())
	assert.Equal(t, "model.safetensors", file)

	fsys, file, err = model.Locate("http://127.0.0.1:9/m/model.safetensors", &remote.Options{CacheSize: -1})
	require.NoError(t, err)
	assert.Contains(t, fsys.String(), "http://127.0.0.1:9/m/")
	assert.Equal(t, "model.safetensors", file)

	_, _, err = model.Locate(filepath.Join(dir, "nope"), nil)
	assert.ErrorIs(t, err, os.ErrNotExist)
}
