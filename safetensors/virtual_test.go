package safetensors_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/tensor"
)

// TestVirtual: a generated safetensors file is valid by our own rules
// (the same as the reference's), holds each tensor's bytes, and reads
// the same at every offset and length, across tensors, an empty one
// included.
func TestVirtual(t *testing.T) {
	base := &testmodel.MemFile{B: []byte("0123456789abcdefXYZ")}
	ts := []*tensor.Tensor{
		{Name: "a", DType: tensor.F32, Shape: []uint64{2}, File: base, Offset: 0, Length: 8},
		{Name: "empty", DType: tensor.F32, Shape: []uint64{0}, File: base, Offset: 8, Length: 0},
		{Name: "b", DType: tensor.U8, Shape: []uint64{3}, File: base, Offset: 16, Length: 3},
		{Name: "tied", DType: tensor.F32, Shape: []uint64{2}, File: base, Offset: 0, Length: 8},
	}
	v, err := safetensors.NewVirtual("model.safetensors", ts, map[string]string{"format": "pt"}, base)
	require.NoError(t, err)
	whole, err := io.ReadAll(io.NewSectionReader(v, 0, v.Size()))
	require.NoError(t, err)
	require.EqualValues(t, v.Size(), len(whole))
	f, err := safetensors.NewFile(&testmodel.MemFile{B: whole})
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"format": "pt"}, f.Metadata())
	for _, want := range ts {
		got := f.Tensor(want.Name)
		require.NotNil(t, got, want.Name)
		assert.Equal(t, want.Shape, got.Shape)
		assert.Equal(t, base.B[want.Offset:want.Offset+want.Length], whole[got.Offset:got.Offset+got.Length], want.Name)
	}
	for off := int64(0); off < v.Size(); off++ {
		for n := int64(1); n <= 9 && off+n <= v.Size(); n++ {
			p := make([]byte, n)
			k, err := v.ReadAt(p, off)
			require.NoError(t, err)
			require.EqualValues(t, n, k)
			require.True(t, bytes.Equal(whole[off:off+n], p), "at %d, %d bytes", off, n)
		}
	}
}
