package e2e

import (
	"compress/gzip"
	"encoding/binary"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/gguf"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// TestGGMLTypesThroughMount mounts a GGUF holding one tensor of each
// ggml block type, filled with blocks that ggml's own C code decoded
// (internal/quant/testdata/ggml), and wants each values.f32 byte for byte
// what ggml wrote. A Q8_1 tensor (never dequantized) has a values.f32
// whose read fails with EIO rather than text, and values saying why.
func TestGGMLTypesThroughMount(t *testing.T) {
	files, err := filepath.Glob(repoPath("internal", "quant", "testdata", "ggml", "*.bin.gz"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	want := map[string][]byte{}
	var ts []testmodel.GGUFTensor
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".bin.gz")
		dt, ok := tensor.ParseDType(name)
		require.True(t, ok, name)
		blocks, floats := readGGMLBlocks(t, path, dt)
		n := uint64(len(blocks)) / dt.BlockBytes()
		tn := "t_" + strings.ToLower(name)
		id, ok := gguf.GGMLTypeOf(dt)
		require.True(t, ok, name)
		ts = append(ts, testmodel.GGUFTensor{Name: tn + ".weight", Type: uint32(id), Dims: []uint64{dt.BlockElems(), n}, Data: blocks})
		want[tn] = floats
	}
	q81, _ := gguf.GGMLTypeOf(tensor.Q8_1)
	ts = append(ts, testmodel.GGUFTensor{Name: "t_q8_1.weight", Type: uint32(q81), Dims: []uint64{32, 2}, Data: make([]byte, 72)})
	kvs := []testmodel.GGUFKV{{Key: "general.architecture", Value: "ggmltypes"}}
	p := filepath.Join(t.TempDir(), "types.gguf")
	require.NoError(t, testmodel.WriteGGUF(p, kvs, ts))

	mnt, _ := mountModel(t, p)
	for tn, w := range want {
		got, err := os.ReadFile(filepath.Join(mnt, tn, "values.f32"))
		require.NoError(t, err, tn)
		require.Equal(t, len(w), len(got), tn)
		require.True(t, string(w) == string(got), "%s: values.f32 differs from ggml's dequantize_row", tn)
	}
	f32 := filepath.Join(mnt, "t_q8_1", "values.f32")
	st, err := os.Stat(f32)
	require.NoError(t, err)
	require.Equal(t, int64(4*64), st.Size(), "Q8_1 values.f32 keeps the size of its floats")
	_, err = os.ReadFile(f32)
	require.True(t, errors.Is(err, syscall.EIO), "reading Q8_1 values.f32: %v, want EIO", err)
	text, err := os.ReadFile(filepath.Join(mnt, "t_q8_1", "values"))
	require.NoError(t, err)
	require.Contains(t, string(text), "not decoded")
}

// readGGMLBlocks reads a file of internal/quant/testdata/ggml: a uint32
// block count, the blocks, and ggml's float32 values of them.
func readGGMLBlocks(t *testing.T, path string, dt tensor.DType) (blocks, floats []byte) {
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	n := uint64(binary.LittleEndian.Uint32(b))
	bb := n * dt.BlockBytes()
	require.Equal(t, 4+bb+4*n*dt.BlockElems(), uint64(len(b)))
	return b[4 : 4+bb], b[4+bb:]
}
