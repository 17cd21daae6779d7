package model_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

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
