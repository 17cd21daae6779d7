package adapter

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// rowCombine (the AVX2 kernel where the CPU has it, with its scalar
// tail) against a float64 sum, over ranks and widths that exercise the
// 32-, 8- and 1-column paths and offsets into the row.
func TestRowCombine(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, rank := range []int{1, 2, 7, 16, 64} {
		for _, cols := range []int{1, 7, 8, 31, 32, 33, 100, 1000} {
			right := make([]float32, rank*cols)
			for i := range right {
				right[i] = float32(rng.NormFloat64())
			}
			l := make([]float32, rank)
			for i := range l {
				l[i] = float32(rng.NormFloat64())
			}
			for _, c0 := range []int{0, 1, cols / 2} {
				dst := make([]float32, cols-c0)
				rowCombine(dst, l, right[c0:], cols)
				for j := range dst {
					var want, bound float64
					for k := range rank {
						x := float64(l[k]) * float64(right[k*cols+c0+j])
						want += x
						bound += math.Abs(x)
					}
					assert.LessOrEqual(t, math.Abs(float64(dst[j])-want), float64(rank+1)*0x1p-24*bound, "rank %d cols %d c0 %d j %d", rank, cols, c0, j)
				}
			}
		}
	}
}

// Float32 over any range equals Row row by row, on one core and split
// over several.
func TestDeltaRanges(t *testing.T) {
	d := &Delta{Module: &Module{Key: "m"}, Rows: 300, Cols: 301, rank: 3}
	rng := rand.New(rand.NewPCG(3, 4))
	d.left = make([]float32, 300*3)
	d.right = make([]float32, 3*301)
	for i := range d.left {
		d.left[i] = rng.Float32()
	}
	for i := range d.right {
		d.right[i] = rng.Float32()
	}
	all := make([]float32, d.Len())
	for i := range d.Rows {
		d.Row(i, 0, all[i*d.Cols:(i+1)*d.Cols])
	}
	for _, r := range [][2]uint64{{0, d.Len()}, {5, 17}, {300, 302}, {1000, 80000}, {d.Len() - 1, d.Len()}} {
		got := make([]float32, r[1]-r[0])
		require.NoError(t, d.Float32(r[0], got))
		assert.Equal(t, all[r[0]:r[1]], got)
	}
	assert.Error(t, d.Float32(d.Len()-1, make([]float32, 2)))
}

// FuzzParseConfig: any bytes give a config or a *ConfigError, never a
// panic; a config's scale is finite and positive for a positive alpha.
func FuzzParseConfig(f *testing.F) {
	root := filepath.Join("..", "testdata", "adapters")
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == ConfigName {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	f.Add([]byte(`{"peft_type": "LORA", "target_modules": "(q|v)_proj", "rank_pattern": {"q": 2}, "layers_to_transform": 3}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseConfig("adapter_config.json", b)
		if err != nil {
			var ce *ConfigError
			if assert.ErrorAs(t, err, &ce) {
				assert.NotContains(t, err.Error(), "\n")
				assert.True(t, strings.HasPrefix(err.Error(), "adapter_config.json: "), err.Error())
			}
			return
		}
		toSave := c.ToSave()
		for _, k := range []string{"model.layers.0.self_attn.q_proj", "model.layers.3.mlp.down_proj", "lm_head", "model.blocks.12.attn.c_attn", ""} {
			c.Targeted(k, toSave, map[string]bool{k: true})
			c.excluded(k, toSave)
			c.layerIndex(k)
			c.AlphaOf(k)
		}
		if c.Alpha > 0 && c.Rank("x") > 0 {
			s := c.Scale("model.layers.0.self_attn.q_proj")
			assert.False(t, math.IsNaN(s) || math.IsInf(s, 0) || s <= 0, "scale %v", s)
		}
	})
}

// TestAdapterBin: an adapter saved as adapter_model.bin by torch reads
// like the same adapter in safetensors: the same tensors, the same
// bytes, the same clean check against the tiny base.
func TestAdapterBin(t *testing.T) {
	st := filepath.Join(t.TempDir(), "st")
	require.NoError(t, testmodel.WriteAdapter(st, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors()))
	bin := filepath.Join(t.TempDir(), "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	cfg, err := os.ReadFile(filepath.Join(st, "adapter_config.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(bin, "adapter_config.json"), cfg, 0o644))
	// pytorch/testdata/torchfiles.py reads the safetensors file with json
	// and numpy alone and torch.saves its tensors, as older PEFT versions
	// saved adapter_model.bin.
	testmodel.RunTorch(t, "../pytorch/testdata/torchfiles.py", "to-bin", filepath.Join(st, WeightsName), filepath.Join(bin, BinName))

	want, err := Open(st, nil)
	require.NoError(t, err)
	defer want.Close()
	got, err := Open(bin, nil)
	require.NoError(t, err)
	defer got.Close()
	require.Equal(t, BinName, filepath.Base(got.File.Name()))
	require.Len(t, got.Tensors, len(want.Tensors))
	for i, w := range want.Tensors {
		g := got.Tensors[i]
		require.Equal(t, w.Name, g.Name)
		require.Equal(t, w.Shape, g.Shape, w.Name)
		require.Equal(t, w.DType, g.DType, w.Name)
		wb, gb := make([]byte, w.Length), make([]byte, g.Length)
		_, err := w.File.ReadAt(wb, w.Offset)
		require.NoError(t, err)
		_, err = g.File.ReadAt(gb, g.Offset)
		require.NoError(t, err)
		require.Equal(t, wb, gb, w.Name)
	}
}
