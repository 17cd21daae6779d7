package quant

import (
	"encoding/binary"
	"math"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// TestAgainstGGML decodes blocks that ggml's own C code decoded
// (testdata/ggml, see its README) and wants every value bit for bit,
// NaNs too: their sign and their quiet bit.
func TestAgainstGGML(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "ggml", "*.bin.gz"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	seen := map[tensor.DType]bool{}
	for _, path := range files {
		name := filepath.Base(path)
		name = name[:len(name)-len(".bin.gz")]
		dt, ok := tensor.ParseDType(name)
		require.True(t, ok, "unknown type %s", name)
		seen[dt] = true
		t.Run(name, func(t *testing.T) {
			src, want := readGGML(t, path, dt)
			got := make([]float32, len(want))
			require.NoError(t, Dequantize(dt, src, got))
			bad := 0
			for i := range want {
				if g, w := math.Float32bits(got[i]), math.Float32bits(want[i]); g != w {
					bad++
					if bad <= 10 {
						t.Errorf("block %d y[%d] = %v (%#08x), ggml %v (%#08x)", i/int(dt.BlockElems()), i%int(dt.BlockElems()), got[i], g, want[i], w)
					}
				}
			}
			require.Zero(t, bad, "values differing from ggml")
		})
	}
	for _, dt := range []tensor.DType{tensor.IQ1_S, tensor.IQ1_M, tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S,
		tensor.IQ3_XXS, tensor.IQ3_S, tensor.TQ1_0, tensor.TQ2_0, tensor.Q3_K} {
		require.True(t, seen[dt], "no ggml blocks for %s", dt)
	}
}

// readGGML reads one testdata/ggml file: a little-endian uint32 block
// count n, n blocks, and their n·BlockElems float32 values.
func readGGML(t *testing.T, path string, dt tensor.DType) ([]byte, []float32) {
	src, fb := testmodel.ReadGGMLBlocks(t, path, dt)
	want := make([]float32, len(fb)/4)
	for i := range want {
		want[i] = math.Float32frombits(binary.LittleEndian.Uint32(fb[4*i:]))
	}
	return src, want
}

// TestGrids: grids.bin is whole, and its first and last entries are
// ggml's (iq2xxs_grid[0], iq1s_grid[2047]).
func TestGrids(t *testing.T) {
	require.Len(t, gridsBin, gridsBytes)
	require.Equal(t, uint64(0x0808080808080808), iq2xxsGrid[0])
	require.Equal(t, uint64(0x0101010101010101), iq1sGrid[2047])
}
