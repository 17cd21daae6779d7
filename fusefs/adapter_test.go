package fusefs

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

// mountAdapter checks the adapter at dir against the base at baseDir
// ("" for none) and mounts it as fsmount does.
func mountAdapter(t *testing.T, dir, baseDir string) (string, *adapter.Report) {
	t.Helper()
	requireFUSE(t)
	a, err := adapter.Open(dir, nil)
	require.NoError(t, err)
	var base, m *model.Model
	if baseDir != "" {
		base, err = model.Open(baseDir)
		require.NoError(t, err)
		m = base
	} else {
		m, err = model.OpenFS(dir, a.Source, adapter.WeightsName)
		require.NoError(t, err)
	}
	ar := adapter.Check(a, base, "no base given")
	r, err := spec.Check(m)
	require.NoError(t, err)
	return serveTree(t, r, &Options{Adapter: ar, DirectMount: os.Geteuid() == 0}, m, a), ar
}

const qvConfig = `{"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "tiny-qwen3", "r": 4, "lora_alpha": 8, "target_modules": ["q_proj", "v_proj"]}`

// qvTensors are qvConfig's tensors: testmodel's tiny adapter's.
func qvTensors() []testmodel.Tensor { return testmodel.TinyAdapterTensors() }

func readNPY64(t *testing.T, path string) []float64 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	require.Equal(t, "\x93NUMPY", string(b[:6]))
	hl := int(binary.LittleEndian.Uint16(b[8:10]))
	hdr := string(b[10 : 10+hl])
	require.Contains(t, hdr, "'<f8'")
	data := b[10+hl:]
	out := make([]float64, len(data)/8)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(data[8*i:]))
	}
	return out
}

func readF32(t *testing.T, path string) []float32 {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// assertDeltaMatchesNumpy compares the mount's delta/values.f32 of
// module with numpy's scale·B@A in float64: each element within the
// float32 rounding of the product, (rank+2)·2⁻²⁴·Σ|terms|.
func assertDeltaMatchesNumpy(t *testing.T, mnt, dirPath, adapterDir, module string, rank int, conv1D bool) {
	t.Helper()
	ref := filepath.Join(t.TempDir(), "delta.npy")
	args := []string{filepath.Join("..", "adapter", "testdata", "lora.py"), "delta", adapterDir, module, ref}
	if conv1D {
		args = append(args, "--conv1d")
	}
	testmodel.RunNumpy(t, args...)
	want := readNPY64(t, ref)
	bound := readNPY64(t, strings.TrimSuffix(ref, ".npy")+".abs.npy")
	got := readF32(t, filepath.Join(mnt, dirPath, "lora", "delta", "values.f32"))
	require.Len(t, got, len(want))
	bad, worst := 0, 0.0
	for i, g := range got {
		tol := float64(rank+2)*0x1p-24*bound[i] + 0x1p-140
		d := math.Abs(float64(g) - want[i])
		worst = max(worst, d/tol)
		if d > tol {
			bad++
		}
	}
	assert.Zero(t, bad, "%s: %d elements beyond float32 rounding (worst %.2f of it)", module, bad, worst)
	// Not trivially zero.
	var nz int
	for _, x := range want {
		if x != 0 {
			nz++
		}
	}
	assert.Greater(t, nz, len(want)/2)
}

func TestAdapterTreeTiny(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteAdapter(dir, qvConfig, qvTensors()))
	mnt, ar := mountAdapter(t, dir, filepath.Join("..", "testdata", "tiny-qwen3"))
	require.True(t, ar.Clean(), ar.Text())
	read := func(p string) string { return readMnt(t, mnt, p) }
	assert.Equal(t, ar.Verdict(), read("verdict"))
	assert.Equal(t, ar.Text(), read("report"))
	assert.Equal(t, qvConfig, read("adapter_config.json"))
	// The base's tensors, and lora/ beside the weight's own files.
	assert.Equal(t, "[64, 32]\n", read("layers/0/self_attn/q_proj/shape"))
	assert.Equal(t, "BF16\n", read("layers/0/self_attn/q_proj/dtype"))
	q := "layers/0/self_attn/q_proj/lora/"
	assert.Equal(t, "[4, 32]\n", read(q+"A/shape"))
	assert.Equal(t, "[64, 4]\n", read(q+"B/shape"))
	assert.Equal(t, string(testmodel.Bytes(ar.Module("model.layers.0.self_attn.q_proj").A)), read(q+"A/data"))
	assert.Equal(t, "[64, 32]\n", read(q+"delta/shape"))
	assert.Equal(t, "F32\n", read(q+"delta/dtype"))
	entries, err := os.ReadDir(filepath.Join(mnt, q, "delta"))
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"dtype", "heatmap.png", "hist", "hist.png", "shape", "stats", "values", "values.f32", "values.npy"}, names)
	_, err = os.Stat(filepath.Join(mnt, "layers/0/self_attn/k_proj/lora"))
	assert.True(t, os.IsNotExist(err), "k_proj is not adapted")

	// values, values.npy and stats agree with values.f32.
	f32 := readF32(t, filepath.Join(mnt, q, "delta", "values.f32"))
	require.Len(t, f32, 64*32)
	lines := strings.Split(strings.TrimSuffix(read(q+"delta/values"), "\n"), "\n")
	require.Len(t, lines, 64)
	var x float32
	_, err = fmt.Sscan(strings.Fields(lines[3])[5], &x)
	require.NoError(t, err)
	assert.Equal(t, f32[3*32+5], x)
	npy := read(q + "delta/values.npy")
	assert.True(t, strings.HasPrefix(npy, "\x93NUMPY"))
	assert.Contains(t, npy, "'descr': '<f4'")
	assert.Contains(t, npy, "(64, 32)")
	assert.Contains(t, read(q+"delta/stats"), "count")
	assert.True(t, strings.HasPrefix(read(q+"delta/heatmap.png"), "\x89PNG"))
	assert.True(t, strings.HasPrefix(read(q+"delta/hist.png"), "\x89PNG"))

	// Root stats: a line per module, ‖delta‖ against ‖W‖.
	st := strings.Split(strings.TrimSuffix(read("stats"), "\n"), "\n")
	require.Len(t, st, 5)
	assert.Contains(t, st[0], "|delta|/|W|")
	f := strings.Fields(st[1])
	assert.Equal(t, []string{"model.layers.0.self_attn.q_proj", "Linear", "4"}, f[:3])
	var sum float64
	for _, v := range f32 {
		sum += float64(v) * float64(v)
	}
	var dn float64
	_, err = fmt.Sscan(f[4], &dn)
	require.NoError(t, err)
	assert.InEpsilon(t, math.Sqrt(sum), dn, 1e-5)

	assertDeltaMatchesNumpy(t, mnt, "layers/1/self_attn/v_proj", dir, "model.layers.1.self_attn.v_proj", 4, false)
}

// Without a base the adapter's modules are laid out where the base's
// weights would be, and only they.
func TestAdapterTreeAlone(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteAdapter(dir, qvConfig, qvTensors()))
	mnt, ar := mountAdapter(t, dir, "")
	assert.True(t, ar.Partial())
	b, err := os.ReadFile(filepath.Join(mnt, "verdict"))
	require.NoError(t, err)
	assert.Contains(t, string(b), "– partial check: no base given")
	top, err := os.ReadDir(mnt)
	require.NoError(t, err)
	var names []string
	for _, e := range top {
		names = append(names, e.Name())
	}
	assert.Equal(t, []string{"adapter_config.json", "by-name", "expected", "files", "index.html", "layers", "overview.png", "report", "shapes", "stats", "verdict"}, names)
	b, err = os.ReadFile(filepath.Join(mnt, "layers/1/self_attn/v_proj/lora/delta/shape"))
	require.NoError(t, err)
	assert.Equal(t, "[32, 32]\n", string(b))
}

// A real GPT-2 adapter (distilgpt2, Conv1D): its delta is [in, out] like
// the base weight, (scale·B·A)ᵀ, and matches numpy on the real factors.
func TestAdapterTreeRealConv1D(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join("..", "testdata", "adapters", "phuongsky"))
	require.NoError(t, err)
	mnt, _ := mountAdapter(t, dir, "")
	p := "transformer/h/3/attn/c_attn"
	b, err := os.ReadFile(filepath.Join(mnt, p, "lora", "delta", "shape"))
	require.NoError(t, err)
	assert.Equal(t, "[768, 2304]\n", string(b))
	assertDeltaMatchesNumpy(t, mnt, p, dir, "transformer.h.3.attn.c_attn", 8, true)
}

// Embedding LoRA: delta = (scale·B·A)ᵀ, [num_embeddings, embedding_dim].
func TestAdapterTreeEmbedding(t *testing.T) {
	dir := t.TempDir()
	cfg := `{"peft_type": "LORA", "r": 4, "lora_alpha": 6, "use_rslora": true, "target_modules": ["embed_tokens"]}`
	require.NoError(t, testmodel.WriteAdapter(dir, cfg, []testmodel.Tensor{
		{Name: "base_model.model.model.embed_tokens.lora_embedding_A", DType: "F32", Shape: []uint64{4, 128}},
		{Name: "base_model.model.model.embed_tokens.lora_embedding_B", DType: "F32", Shape: []uint64{32, 4}}}))
	mnt, ar := mountAdapter(t, dir, filepath.Join("..", "testdata", "tiny-qwen3"))
	require.True(t, ar.Clean(), ar.Text())
	b, err := os.ReadFile(filepath.Join(mnt, "embed_tokens", "lora", "delta", "shape"))
	require.NoError(t, err)
	assert.Equal(t, "[128, 32]\n", string(b))
	assertDeltaMatchesNumpy(t, mnt, "embed_tokens", dir, "model.embed_tokens", 4, false)
}
