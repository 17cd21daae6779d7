package tensor_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

func TestFirstDifference(t *testing.T) {
	data := testmodel.Fill(1, "x", 64<<10)
	other := append([]byte(nil), data...)
	other[40000] ^= 1
	tensors := []testmodel.Tensor{
		{Name: "a", DType: "U8", Shape: []uint64{64 << 10}, Data: data},
		{Name: "b", DType: "U8", Shape: []uint64{64 << 10}, Data: data},
		{Name: "c", DType: "U8", Shape: []uint64{64 << 10}, Data: other},
	}
	raw := testmodel.Encode(tensors, nil, 0)
	path := filepath.Join(t.TempDir(), "m.safetensors")
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	for _, open := range map[string]func() (*safetensors.File, error){
		"mapped": func() (*safetensors.File, error) { return safetensors.Open(path) },
		"read": func() (*safetensors.File, error) {
			return safetensors.NewFile(source.NewReaderFile(path, bytes.NewReader(raw), int64(len(raw))))
		},
	} {
		f, err := open()
		require.NoError(t, err)
		off, err := tensor.FirstDifference(f.Tensor("a"), f.Tensor("b"))
		require.NoError(t, err)
		assert.Equal(t, int64(-1), off)
		off, err = tensor.FirstDifference(f.Tensor("a"), f.Tensor("c"))
		require.NoError(t, err)
		assert.Equal(t, int64(40000), off)
		f.Close()
	}

	// A file truncated under the mapping is an error, not a crash.
	f, err := safetensors.Open(path)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, os.Truncate(path, 4096))
	_, err = tensor.FirstDifference(f.Tensor("b"), f.Tensor("c"))
	assert.Error(t, err)
}

func TestDTypeSizes(t *testing.T) {
	for _, c := range []struct {
		d           tensor.DType
		elems, size uint64
		ok          bool
	}{
		{tensor.BF16, 3, 6, true},
		{tensor.F4, 4, 2, true},
		{tensor.F4, 3, 0, false},
		{tensor.F6_E2M3, 8, 6, true},
		{tensor.Q4_0, 64, 36, true},
		{tensor.Q4_0, 33, 0, false},
		{tensor.Q4_K, 512, 288, true},
		{tensor.F64, 1 << 62, 0, false},
		{tensor.Invalid, 1, 0, false},
	} {
		got, ok := c.d.ByteSize(c.elems)
		assert.Equal(t, c.ok, ok, "%s × %d", c.d, c.elems)
		assert.Equal(t, c.size, got, "%s × %d", c.d, c.elems)
	}
	num, den := tensor.Q4_K.Bits()
	assert.Equal(t, [2]uint64{9, 2}, [2]uint64{num, den})
	for _, name := range []string{"BF16", "Q6_K", "MXFP4", "U64"} {
		d, ok := tensor.ParseDType(name)
		assert.True(t, ok)
		assert.Equal(t, name, d.String())
	}
	assert.True(t, tensor.Q8_0.Quantized())
	assert.False(t, tensor.F8_E4M3.Quantized())
}
