package adapter

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// toBin is a script for Debian's python3-torch: it reads a safetensors
// adapter with json and numpy alone and writes the same tensors with
// torch.save as adapter_model.bin, as older PEFT versions saved them.
const toBin = `
import json, sys, numpy as np, torch
src, dst = sys.argv[1], sys.argv[2]
raw = open(src, "rb").read()
n = int.from_bytes(raw[:8], "little")
header = json.loads(raw[8:8 + n])
out = {}
for name, e in header.items():
    if name == "__metadata__":
        continue
    assert e["dtype"] == "F32", e["dtype"]
    a, b = e["data_offsets"]
    out[name] = torch.from_numpy(np.frombuffer(raw[8 + n + a:8 + n + b], dtype=np.float32).reshape(e["shape"]).copy())
torch.save(out, dst)
`

// TestAdapterBin: an adapter saved as adapter_model.bin by torch reads
// like the same adapter in safetensors: the same tensors, the same
// bytes, the same clean check against the tiny base.
func TestAdapterBin(t *testing.T) {
	testmodel.Torch(t)
	st := filepath.Join(t.TempDir(), "st")
	require.NoError(t, testmodel.WriteAdapter(st, testmodel.TinyAdapterConfig, testmodel.TinyAdapterTensors()))
	bin := filepath.Join(t.TempDir(), "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	cfg, err := os.ReadFile(filepath.Join(st, "adapter_config.json"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(bin, "adapter_config.json"), cfg, 0o644))
	testmodel.RunTorch(t, "-c", toBin, filepath.Join(st, WeightsName), filepath.Join(bin, BinName))

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
