package e2e

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// plantedTiny writes the tiny model with a NaN in one tensor, an Inf in
// another and a third all zero.
func plantedTiny(t *testing.T) string {
	t.Helper()
	return testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			n := testmodel.NBytes(ts[i].DType, ts[i].Shape)
			switch ts[i].Name {
			case "model.layers.0.self_attn.q_proj.weight":
				d := testmodel.Fill(1, ts[i].Name, n)
				for j := 0; j < len(d); j += 2 {
					d[j+1] &= 0x3f // finite values
				}
				binary.LittleEndian.PutUint16(d[20:], 0x7fc0) // NaN
				ts[i].Data = d
			case "model.layers.1.mlp.up_proj.weight":
				d := make([]byte, n)
				binary.LittleEndian.PutUint16(d[6:], 0xff80) // -Inf
				ts[i].Data = d
			case "model.layers.1.input_layernorm.weight":
				ts[i].Data = make([]byte, n)
			}
		}
		return ts
	})
}

func TestInspectScan(t *testing.T) {
	r := runCmd(t, "fsinspect", "--scan", plantedTiny(t))
	assert.Equal(t, 1, r.code, r.stderr)
	for _, want := range []string{
		"── values ─",
		"✗ nan: model.layers.0.self_attn.q_proj.weight holds 1 NaN",
		"✗ inf: model.layers.1.mlp.up_proj.weight holds 0 NaN, 0 +Inf, 1 -Inf",
		"✗ zero: every one of the 32 values of model.layers.1.input_layernorm.weight is zero",
		"✗ 25 tensors scanned: 3 bad",
	} {
		assert.Contains(t, r.stdout, want)
	}
	assert.Empty(t, r.stderr, "no progress bar when stderr is not a terminal")

	clean := runCmd(t, "fsinspect", repoPath("testdata", "tiny-qwen3"), "--scan")
	assert.Equal(t, 0, clean.code, clean.stderr)
	assert.Contains(t, clean.stdout, "✓ 25 tensors scanned: 0 bad, 0 warnings, 0 not decoded")

	j := runCmd(t, "fsinspect", "--scan", "--json", plantedTiny(t))
	assert.Equal(t, 1, j.code)
	var v struct {
		Clean bool `json:"clean"`
		Scan  struct {
			Failed  bool `json:"failed"`
			Tensors []struct {
				Name   string `json:"name"`
				Health string `json:"health"`
				NaN    uint64 `json:"nan"`
			} `json:"tensors"`
		} `json:"scan"`
	}
	require.NoError(t, json.Unmarshal([]byte(j.stdout), &v))
	assert.True(t, v.Clean, "the layout is clean")
	assert.True(t, v.Scan.Failed)
	health := map[string]string{}
	for _, x := range v.Scan.Tensors {
		health[x.Name] = x.Health
	}
	assert.Equal(t, "nan", health["model.layers.0.self_attn.q_proj.weight"])
	assert.Equal(t, "zero", health["model.layers.1.input_layernorm.weight"])
	assert.Equal(t, "ok", health["model.norm.weight"])
}

// bf16Bits rounds float32 to BF16 (to nearest even).
func bf16Bits(v float32) uint16 {
	b := math.Float32bits(v)
	return uint16((b + 0x7fff + (b>>16)&1) >> 16)
}

// TestInspectCompare compares checkpoints made for the test: identical;
// one tensor perturbed by a known ε; a BF16 model against its exact F32
// re-save; a tensor renamed.
func TestInspectCompare(t *testing.T) {
	base := filepath.Join(repoPath("testdata", "tiny-qwen3"))
	r := runCmd(t, "fsinspect", "--compare", base, "--tolerance", "0", base)
	assert.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "identical")
	assert.NotContains(t, r.stdout, "differs")

	// o_proj of layer 1 scaled by 1.01 (rounded to BF16): the test
	// computes the relative L2 itself from the bytes.
	const name = "model.layers.1.self_attn.o_proj.weight"
	var want float64
	perturbed := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			if ts[i].Name != name {
				continue
			}
			d := append([]byte(nil), ts[i].Data...)
			var num, den float64
			for j := 0; j < len(d); j += 2 {
				a := math.Float32frombits(uint32(binary.LittleEndian.Uint16(d[j:])) << 16)
				b := bf16Bits(a * 1.01)
				binary.LittleEndian.PutUint16(d[j:], b)
				nb := math.Float32frombits(uint32(b) << 16)
				num += (float64(nb) - float64(a)) * (float64(nb) - float64(a))
				den += float64(a) * float64(a)
			}
			want = math.Sqrt(num / den)
			ts[i].Data = d
		}
		return ts
	})
	r = runCmd(t, "fsinspect", "--compare", base, "--tolerance", "1e-6", perturbed)
	assert.Equal(t, 1, r.code, r.stderr)
	j := runCmd(t, "fsinspect", "--compare", base, "--json", perturbed)
	require.Equal(t, 0, j.code, j.stderr)
	got := relL2Of(t, j.stdout, name)
	assert.InDelta(t, want, got, 1e-12*want, "relative L2 of %s", name)
	lines := strings.Split(r.stdout, "\n")
	var row string
	for _, l := range lines {
		if strings.HasPrefix(l, name+" ") {
			row = l
		}
	}
	assert.Contains(t, row, "differs")
	assert.Equal(t, 0, runCmd(t, "fsinspect", "--compare", base, "--tolerance", "0.02", perturbed).code)

	// BF16 against its F32 widening: equal as numbers.
	f32 := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			src := ts[i].Data
			d := make([]byte, 2*len(src))
			for j := 0; j < len(src); j += 2 {
				binary.LittleEndian.PutUint32(d[2*j:], uint32(binary.LittleEndian.Uint16(src[j:]))<<16)
			}
			ts[i].DType, ts[i].Data = "F32", d
		}
		return ts
	})
	r = runCmd(t, "fsinspect", "--compare", base, "--tolerance", "0", f32)
	assert.Equal(t, 0, r.code, r.stdout)
	assert.Contains(t, r.stdout, "equal")

	// A tensor renamed: the name sets differ, the gate fails.
	renamed := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			if ts[i].Name == "model.norm.weight" {
				ts[i].Name = "model.final_norm.weight"
			}
		}
		return ts
	})
	r = runCmd(t, "fsinspect", "--compare", base, "--tolerance", "1", renamed)
	assert.Equal(t, 1, r.code, r.stdout)
	assert.Contains(t, r.stdout, "model.final_norm.weight")
	assert.Contains(t, r.stdout, "model.norm.weight")
}

func relL2Of(t *testing.T, js, name string) float64 {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal([]byte(js), &v))
	var find func(x any) (float64, bool)
	find = func(x any) (float64, bool) {
		switch y := x.(type) {
		case map[string]any:
			if y["name"] == name {
				switch r := y["rel_l2"].(type) {
				case float64:
					return r, true
				case string:
					f, _ := strconv.ParseFloat(r, 64)
					return f, true
				}
			}
			for _, z := range y {
				if f, ok := find(z); ok {
					return f, true
				}
			}
		case []any:
			for _, z := range y {
				if f, ok := find(z); ok {
					return f, true
				}
			}
		}
		return 0, false
	}
	f, ok := find(v)
	require.True(t, ok, "no rel_l2 for %s in %s", name, js[:min(300, len(js))])
	return f
}

// TestMountCompare: compare/summary is fsinspect --compare's table, and
// compare/<path>/delta.npy is MODEL − OTHER as numpy computes it.
func TestMountCompare(t *testing.T) {
	base := repoPath("testdata", "tiny-qwen3")
	other := plantedTiny(t)
	mnt, _ := mountModel(t, other, "--compare", base)
	b, err := os.ReadFile(filepath.Join(mnt, "compare", "summary"))
	require.NoError(t, err)
	r := runCmd(t, "fsinspect", "--compare", base, other)
	assert.Equal(t, r.stdout, string(b))
	// up_proj of layer 1 is all zero but one -Inf in MODEL: numpy
	// computes MODEL − OTHER from the two files itself.
	script := `
import sys, json, struct, numpy as np
m, base = sys.argv[1], sys.argv[2]
def bf16(b):
    return (np.frombuffer(b, dtype="<u2").astype(np.uint32) << 16).view(np.float32)
with open(base + "/model.safetensors", "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    h = json.loads(f.read(n))
    lo, hi = h["model.layers.1.mlp.up_proj.weight"]["data_offsets"]
    f.seek(8 + n + lo)
    o = bf16(f.read(hi - lo)).reshape(64, 32)
a = bf16(open(m + "/layers/1/mlp/up_proj/data", "rb").read()).reshape(64, 32)
d = np.load(m + "/compare/layers/1/mlp/up_proj/delta.npy")
assert d.shape == (64, 32) and d.dtype == np.float32, (d.shape, d.dtype)
np.testing.assert_array_equal(d, a - o)
print(int(np.isinf(d).sum()))
`
	out, err := exec.Command(testmodel.Numpy(t), "-c", script, mnt, base).CombinedOutput()
	require.NoError(t, err, string(out))
	assert.Equal(t, "1\n", string(out), "the one -Inf")
	names, err := os.ReadFile(filepath.Join(mnt, "compare", "only-in-model"))
	require.NoError(t, err)
	assert.Empty(t, strings.TrimSpace(string(names)))
}
