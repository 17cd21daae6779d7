package compare_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/compare"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func run(t *testing.T, other, mdl []testmodel.Tensor, opts *compare.Options) *compare.Result {
	t.Helper()
	return runCfg(t, testmodel.TinyQwen3Config, other, testmodel.TinyQwen3Config, mdl, opts)
}

func runCfg(t *testing.T, otherCfg string, other []testmodel.Tensor, modelCfg string, mdl []testmodel.Tensor, opts *compare.Options) *compare.Result {
	t.Helper()
	r, err := compare.Models(writeModel(t, otherCfg, other), writeModel(t, modelCfg, mdl), opts)
	require.NoError(t, err)
	return r
}

func TestIdentical(t *testing.T) {
	r := run(t, tiny(), tiny(), nil)
	require.Len(t, r.Entries, len(tiny()))
	for _, e := range r.Entries {
		assert.Equal(t, compare.Identical, e.Status, e.Name)
		assert.Zero(t, float64(e.RelL2), e.Name)
		assert.Equal(t, 1.0, float64(e.Cosine), e.Name)
		assert.False(t, e.Decoded, e.Name)
	}
	assert.True(t, r.Within(0))
	assert.Empty(t, r.OnlyInModel())
	assert.Empty(t, r.OnlyInOther())
}

func TestOneElementMixedChunks(t *testing.T) {
	// One element changed and chunks of 100 elements: most chunks are
	// byte-equal, and their values are read afterwards for the norms.
	const name = "model.embed_tokens.weight"
	mdl := tiny()
	p := find(mdl, name)
	p.Data[2*1234] ^= 1
	a, b := bf16s(p.Data), bf16s(find(tiny(), name).Data)
	var na, nb, dot float64
	for i := range a {
		na += a[i] * a[i]
		nb += b[i] * b[i]
		dot += a[i] * b[i]
	}
	r := run(t, tiny(), mdl, &compare.Options{ChunkElements: 100})
	e := r.Entry(name)
	assert.Equal(t, compare.Differs, e.Status)
	assert.Equal(t, uint64(1), e.Differ)
	assert.Equal(t, math.Abs(a[1234]-b[1234]), float64(e.MaxAbs))
	assert.InEpsilon(t, math.Sqrt(na), float64(e.NormModel), 1e-13)
	assert.InEpsilon(t, math.Sqrt(nb), float64(e.NormOther), 1e-13)
	assert.InEpsilon(t, dot/math.Sqrt(na*nb), float64(e.Cosine), 1e-13)
	assert.InEpsilon(t, relL2(a, b), float64(e.RelL2), 1e-12)
}

func TestPerturbed(t *testing.T) {
	const name = "model.layers.1.mlp.down_proj.weight"
	const eps = 1.0 / 64
	other := tiny()
	mdl := tiny()
	p := find(mdl, name)
	vals := bf16s(p.Data)
	x := make([]float32, len(vals))
	for i, v := range vals {
		x[i] = float32(v)
		if i%3 == 0 {
			x[i] += eps
		}
	}
	p.Data = toBF16(x)

	// The expected figures, from the bytes written.
	a, b := bf16s(p.Data), bf16s(find(other, name).Data)
	var wantDiffer uint64
	var wantMax, sumAbs, dot, na, nb float64
	for i := range a {
		if a[i] != b[i] {
			wantDiffer++
		}
		d := math.Abs(a[i] - b[i])
		wantMax = max(wantMax, d)
		sumAbs += d
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	wantRel := relL2(a, b)
	require.Greater(t, wantRel, 0.0)

	for _, chunk := range []int{0, 100, 1000} {
		r := run(t, other, mdl, &compare.Options{ChunkElements: chunk})
		for _, e := range r.Entries {
			if e.Name != name {
				assert.Equal(t, compare.Identical, e.Status, e.Name)
				continue
			}
			assert.Equal(t, compare.Differs, e.Status)
			assert.True(t, e.Decoded)
			assert.Equal(t, wantDiffer, e.Differ)
			assert.Equal(t, wantMax, float64(e.MaxAbs))
			assert.InEpsilon(t, wantRel, float64(e.RelL2), 1e-12)
			assert.InEpsilon(t, sumAbs/float64(len(a)), float64(e.MeanAbs), 1e-12)
			assert.InEpsilon(t, dot/math.Sqrt(na*nb), float64(e.Cosine), 1e-12)
			assert.InEpsilon(t, math.Sqrt(nb), float64(e.NormOther), 1e-12)
			t.Logf("chunk %d: rel L2 %.6g (want %.6g), max |Δ| %g, %d differ", chunk, float64(e.RelL2), wantRel, float64(e.MaxAbs), e.Differ)
		}
		assert.False(t, r.Within(wantRel*0.99))
		assert.True(t, r.Within(wantRel*1.01))
		assert.False(t, r.Within(0))
		// The summary lists the perturbed tensor first in its layer.
		lines := strings.Split(r.Text(), "\n")
		for i, l := range lines {
			if strings.HasPrefix(l, "[layer 1]") {
				assert.True(t, strings.HasPrefix(lines[i+1], name+" "), lines[i+1])
			}
		}
	}
}

func TestBF16AgainstF32(t *testing.T) {
	r := run(t, widenF32(tiny()), tiny(), nil)
	for _, e := range r.Entries {
		assert.Equal(t, compare.Equal, e.Status, e.Name)
		assert.Equal(t, "BF16", e.ModelDType)
		assert.Equal(t, "F32", e.OtherDType)
		assert.True(t, e.DTypeChanged())
		assert.Equal(t, 0.0, float64(e.RelL2), e.Name) // exactly
		assert.Equal(t, 0.0, float64(e.MaxAbs), e.Name)
		assert.Equal(t, uint64(0), e.Differ)
		assert.Equal(t, 1.0, float64(e.Cosine), e.Name)
	}
	assert.True(t, r.Within(0))
}

const fp8Config = `{"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "tie_word_embeddings": true,
 "quantization_config": {"quant_method": "fp8", "fmt": "e4m3", "activation_scheme": "dynamic", "weight_block_size": [16, 16]}}`

func TestFP8AgainstBF16(t *testing.T) {
	src := tiny()
	q, deq, scales := quantizeFP8(src, 16, 16)
	require.NotEmpty(t, deq)
	r := runCfg(t, testmodel.TinyQwen3Config, src, fp8Config, q, nil)
	assert.Len(t, r.AuxModel, len(deq))
	assert.Len(t, r.Entries, len(src))
	// E4M3 has 3 mantissa bits: rounding to nearest is off by at most
	// 2^-4 of a normal value, and by at most half the subnormal step,
	// 2^-10, below 2^-6, both in units of the block's scale; the product
	// with the scale is rounded to float32 (2^-24).
	for _, e := range r.Entries {
		d, ok := deq[e.Name]
		if !ok {
			assert.Equal(t, compare.Identical, e.Status, e.Name)
			continue
		}
		w := bf16s(find(src, e.Name).Data)
		var bound2, ww, maxBound float64
		for i, x := range w {
			b := (math.Ldexp(math.Abs(x), -4)+math.Ldexp(scales[e.Name][i], -10))*(1+0x1p-23) + math.Abs(d[i])*0x1p-24
			bound2 += b * b
			ww += x * x
			maxBound = max(maxBound, b)
		}
		bound := math.Sqrt(bound2 / ww)
		assert.Contains(t, []compare.Status{compare.Differs, compare.Equal}, e.Status, e.Name)
		assert.Equal(t, "F8_E4M3", e.ModelDType)
		assert.Contains(t, e.ModelValues, "weight_scale_inv")
		assert.LessOrEqual(t, float64(e.RelL2), bound, e.Name)
		assert.LessOrEqual(t, float64(e.MaxAbs), maxBound, e.Name)
		// And the figure itself, against the test's own dequantization.
		assert.InEpsilon(t, relL2(d, w), float64(e.RelL2), 1e-12, e.Name)
		t.Logf("%s: rel L2 %.4g ≤ bound %.4g; max |Δ| %.4g ≤ %.4g", e.Name, float64(e.RelL2), bound, float64(e.MaxAbs), maxBound)
	}
	assert.True(t, r.Within(0.0625))
	assert.False(t, r.Within(0))
	// delta.f32 of a dequantized weight is its dequantized values minus
	// the source's.
	c, err := compare.New(writeModel(t, testmodel.TinyQwen3Config, src), writeModel(t, fp8Config, q), nil)
	require.NoError(t, err)
	const w = "model.layers.1.self_attn.o_proj.weight"
	fs := c.TensorFiles(w)
	require.Len(t, fs, 3)
	got := testmodel.ReadView(t, "view", fs[1].View)
	ws := bf16s(find(src, w).Data)
	for i, x := range deq[w] {
		require.Equal(t, float32(x-ws[i]), math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])), i)
	}
	// The other way round: BF16 as MODEL, FP8 as OTHER.
	r2 := runCfg(t, fp8Config, q, testmodel.TinyQwen3Config, src, nil)
	assert.Len(t, r2.AuxOther, len(deq))
	assert.True(t, r2.Within(0.0625))
	// Without a config the block is inferred from the scale's shape.
	r3 := runCfg(t, testmodel.TinyQwen3Config, src, `{"model_type": "qwen3"}`, q, nil)
	for _, e := range r3.Entries {
		if _, ok := deq[e.Name]; ok {
			assert.Contains(t, e.ModelValues, "block [16, 16]", e.Name)
			assert.InEpsilon(t, float64(r.Entry(e.Name).RelL2), float64(e.RelL2), 1e-15)
		}
	}
}

func TestRenamedAndMissing(t *testing.T) {
	const gone = "model.layers.0.self_attn.q_norm.weight"
	const was, now = "model.layers.1.mlp.up_proj.weight", "model.layers.1.mlp.up.weight"
	mdl := without(tiny(), gone)
	find(mdl, was).Name = now
	r := run(t, tiny(), mdl, nil)
	assert.Equal(t, []string{now}, r.OnlyInModel())
	assert.Equal(t, []string{gone, was}, r.OnlyInOther())
	assert.False(t, r.Within(1))
	// A shape change.
	mdl = tiny()
	p := find(mdl, "model.norm.weight")
	p.Shape, p.Data = []uint64{16}, p.Data[:32]
	r = run(t, tiny(), mdl, nil)
	assert.Equal(t, compare.ShapeChanged, r.Entry("model.norm.weight").Status)
	assert.False(t, r.Within(1))
	assert.Contains(t, r.Text(), "model.norm.weight")
}

func TestPrefix(t *testing.T) {
	bare := tiny()
	for i := range bare {
		bare[i].Name = strings.TrimPrefix(bare[i].Name, "model.")
	}
	for _, dir := range []bool{false, true} {
		var r *compare.Result
		if dir {
			r = run(t, bare, tiny(), nil)
		} else {
			r = run(t, tiny(), bare, nil)
		}
		assert.Len(t, r.Entries, len(bare))
		for _, e := range r.Entries {
			assert.Equal(t, compare.Identical, e.Status, e.Name)
			if e.Name != "lm_head.weight" {
				assert.Equal(t, compare.MatchPrefix, e.Match, e.Name)
				assert.NotEqual(t, e.ModelName, e.OtherName)
			}
		}
		assert.True(t, r.Within(0))
		// Layers are grouped with or without the prefix.
		assert.Contains(t, r.Text(), "[layer 1] 11 tensors")
	}
}

func TestTiedHead(t *testing.T) {
	untied := tiny() // lm_head present, a copy of embed_tokens
	tied := without(tiny(), "lm_head.weight")
	for _, tc := range []struct {
		name        string
		other, mdl  []testmodel.Tensor
		wantModel   string
		wantOther   string
		onlyInModel bool
	}{
		{"model has the head", tied, untied, "lm_head.weight", "model.embed_tokens.weight", false},
		{"other has the head", untied, tied, "model.embed_tokens.weight", "lm_head.weight", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.other, tc.mdl, nil)
			e := r.Entry("lm_head.weight")
			require.NotNil(t, e)
			assert.Equal(t, compare.MatchTied, e.Match)
			assert.Equal(t, tc.wantModel, e.ModelName)
			assert.Equal(t, tc.wantOther, e.OtherName)
			assert.Equal(t, compare.Identical, e.Status)
			assert.Equal(t, "final", e.Group)
			assert.True(t, r.Within(0))
		})
	}
	// A head that differs from the embedding it is compared with.
	h := tiny()
	find(h, "lm_head.weight").Data = testmodel.FillBF16(9, "lm_head.weight", uint64(len(find(h, "lm_head.weight").Data)))
	r := run(t, tied, h, nil)
	assert.Equal(t, compare.Differs, r.Entry("lm_head.weight").Status)
	// A config that unties the embeddings: the head is missing.
	untiedCfg := strings.Replace(testmodel.TinyQwen3Config, `"tie_word_embeddings": true`, `"tie_word_embeddings": false`, 1)
	r = runCfg(t, untiedCfg, tied, testmodel.TinyQwen3Config, untied, nil)
	assert.Equal(t, []string{"lm_head.weight"}, r.OnlyInModel())
	assert.False(t, r.Within(1))
}

func TestNonFinite(t *testing.T) {
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	vals := func(xs ...float32) []byte { return toBF16(xs) }
	other := []testmodel.Tensor{
		{Name: "a", DType: "BF16", Shape: []uint64{6}, Data: vals(nan, inf, 1, 2, nan, 3)},
		{Name: "z", DType: "BF16", Shape: []uint64{2}, Data: vals(0, 0)},
		{Name: "zn", DType: "F32", Shape: []uint64{2}, Data: make([]byte, 8)},
	}
	mdl := []testmodel.Tensor{
		{Name: "a", DType: "BF16", Shape: []uint64{6}, Data: vals(nan, inf, 1, 2, 5, 3)},
		{Name: "z", DType: "BF16", Shape: []uint64{2}, Data: vals(0, float32(math.Copysign(0, -1)))},
		{Name: "zn", DType: "F32", Shape: []uint64{2}, Data: binary.LittleEndian.AppendUint32(make([]byte, 4), math.Float32bits(1))},
	}
	r := runCfg(t, `{}`, other, `{}`, mdl, nil)
	a := r.Entry("a")
	assert.Equal(t, compare.Differs, a.Status)
	assert.Equal(t, uint64(1), a.Differ)    // the NaN against 5
	assert.Equal(t, uint64(1), a.NonFinite) // ... which has a NaN
	assert.Equal(t, 0.0, float64(a.RelL2))  // the finite pairs agree
	assert.False(t, r.Within(1))
	z := r.Entry("z")
	assert.Equal(t, compare.Equal, z.Status) // -0 equals +0
	assert.Equal(t, 1.0, float64(z.Cosine))
	zn := r.Entry("zn")
	assert.True(t, math.IsInf(float64(zn.RelL2), 1))
	assert.Equal(t, 0.0, float64(zn.Cosine))
	j, err := r.JSON()
	require.NoError(t, err)
	assert.Contains(t, string(j), `"rel_l2": "+Inf"`)
	var back compare.Result
	require.NoError(t, json.Unmarshal(j, &back))
	assert.True(t, math.IsInf(float64(back.Entry("zn").RelL2), 1))
}

func TestProgress(t *testing.T) {
	mdl := widenF32(tiny())
	var last, total int64
	calls := 0
	r := run(t, tiny(), mdl, &compare.Options{ChunkElements: 500, Workers: 3, Progress: func(d, tot int64) {
		assert.GreaterOrEqual(t, d, last)
		last, total = d, tot
		calls++
	}})
	assert.True(t, r.Within(0))
	var want int64
	for _, ts := range [][]testmodel.Tensor{tiny(), mdl} {
		for _, x := range ts {
			want += int64(len(x.Data))
		}
	}
	assert.Equal(t, want, total)
	assert.Equal(t, total, last)
	assert.Greater(t, calls, 10)
}

func TestViews(t *testing.T) {
	const name = "model.layers.0.mlp.gate_proj.weight"
	other := tiny()
	mdl := widenF32(tiny())
	p := find(mdl, name)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < len(p.Data); i += 4 {
		x := math.Float32frombits(binary.LittleEndian.Uint32(p.Data[i:]))
		binary.LittleEndian.PutUint32(p.Data[i:], math.Float32bits(x+float32(rng.NormFloat64()*1e-3)))
	}
	om, mm := writeModel(t, testmodel.TinyQwen3Config, other), writeModel(t, testmodel.TinyQwen3Config, mdl)
	c, err := compare.New(om, mm, nil)
	require.NoError(t, err)

	// Sizes before anything is computed.
	sum := c.Summary()
	size := sum.Size()
	fs := c.TensorFiles(name)
	require.Len(t, fs, 3)
	assert.Equal(t, layout.DeltaF32, fs[1].Name)
	n := 64 * 32
	assert.Equal(t, int64(4*n), fs[1].View.Size())
	assert.Equal(t, int64(4*n+128), fs[2].View.Size())
	assert.Equal(t, int64(15*37), fs[0].View.Size())
	assert.Equal(t, int64(0), c.OnlyInModel().Size())
	assert.Len(t, c.Shared(), len(other))

	whole := testmodel.ReadView(t, "view", fs[1].View)
	a := mdl[0]
	_ = a
	ma := decodeF32(find(mdl, name).Data)
	ob := bf16s(find(other, name).Data)
	for i := range n {
		got := math.Float32frombits(binary.LittleEndian.Uint32(whole[4*i:]))
		require.Equal(t, float32(ma[i]-ob[i]), got, i)
	}
	for range 200 {
		off := rng.Int64N(int64(len(whole)) + 10)
		buf := make([]byte, rng.IntN(300))
		k, err := fs[1].View.ReadAt(buf, off)
		end := min(off+int64(len(buf)), int64(len(whole)))
		if off >= int64(len(whole)) {
			assert.Equal(t, io.EOF, err)
			continue
		}
		assert.Equal(t, int(end-off), k)
		assert.Equal(t, whole[off:end], buf[:k])
		if end-off < int64(len(buf)) {
			assert.Equal(t, io.EOF, err)
		} else {
			assert.NoError(t, err)
		}
	}
	npy := testmodel.ReadView(t, "view", fs[2].View)
	assert.Equal(t, whole, npy[128:])

	st := string(testmodel.ReadView(t, "view", fs[0].View))
	assert.True(t, strings.HasPrefix(st, "status      "+strings.Repeat(" ", 24-len("differs"))+"differs\n"), st)
	text := testmodel.ReadView(t, "view", sum)
	assert.Equal(t, size, int64(len(text)))
	r, err := c.Run(context.Background())
	require.NoError(t, err)
	assert.Equal(t, r.Text(), string(text))
	lines := strings.Split(strings.TrimSuffix(r.Text(), "\n"), "\n")
	for _, l := range lines {
		assert.Equal(t, len(lines[0]), len(l), l)
	}
	t.Logf("summary:\n%s", r.Text())

	// numpy loads delta.npy and finds MODEL − OTHER.
	dir := t.TempDir()
	npyPath := filepath.Join(dir, "delta.npy")
	require.NoError(t, os.WriteFile(npyPath, npy, 0o644))
	script := filepath.Join("testdata", "delta_check.py")
	out := testmodel.RunNumpy(t, script, npyPath, filepath.Join(mm.Location, "model.safetensors"), filepath.Join(om.Location, "model.safetensors"), name)
	assert.Contains(t, out, "ok")
}

func decodeF32(b []byte) []float64 {
	out := make([]float64, len(b)/4)
	for i := range out {
		out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:])))
	}
	return out
}

func TestReadError(t *testing.T) {
	om := writeModel(t, testmodel.TinyQwen3Config, tiny())
	mm := writeModel(t, testmodel.TinyQwen3Config, widenF32(tiny()))
	// The file shrinks after it was opened: the last tensors cannot be read.
	path := filepath.Join(mm.Location, "model.safetensors")
	st, err := os.Stat(path)
	require.NoError(t, err)
	require.NoError(t, os.Truncate(path, st.Size()-100))
	r, err := compare.Models(om, mm, nil)
	require.NoError(t, err)
	errs := 0
	for _, e := range r.Entries {
		if e.Status == compare.Error {
			errs++
			assert.Contains(t, e.Err, "reading")
		}
	}
	assert.Equal(t, 1, errs)
	assert.False(t, r.Within(1))
	assert.Contains(t, r.Text(), " 1 errors")
}

func TestCancel(t *testing.T) {
	c, err := compare.New(writeModel(t, testmodel.TinyQwen3Config, tiny()), writeModel(t, testmodel.TinyQwen3Config, widenF32(tiny())), &compare.Options{ChunkElements: 10})
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = c.Run(ctx)
	assert.ErrorIs(t, err, context.Canceled)
	// Nothing half-done is kept: a later run completes.
	r, err := c.Run(context.Background())
	require.NoError(t, err)
	assert.True(t, r.Within(0))
}

// TestGPTQ compares a GPTQ 4-bit layer (checkpoint format v1, group 32)
// with the BF16 weight it encodes exactly (scales powers of two): equal
// as numbers; the companions are not compared.
func TestGPTQ(t *testing.T) {
	const out, in, group = 32, 64, 32
	const ng = in / group
	rng := rand.New(rand.NewPCG(9, 10))
	q := make([][]uint32, in) // q[i][o]
	for i := range q {
		q[i] = make([]uint32, out)
		for o := range q[i] {
			q[i][o] = uint32(rng.IntN(16))
		}
	}
	z := [ng][out]uint32{}
	sc := [ng][out]float32{}
	for g := range ng {
		for o := range out {
			z[g][o] = uint32(1 + rng.IntN(14)) // stored minus one (v1)
			sc[g][o] = float32(math.Ldexp(1, -rng.IntN(8)))
		}
	}
	qweight := make([]byte, 4*(in/8)*out)
	for i := range in {
		for o := range out {
			k := 4 * ((i/8)*out + o)
			w := binary.LittleEndian.Uint32(qweight[k:]) | q[i][o]<<(4*(i%8))
			binary.LittleEndian.PutUint32(qweight[k:], w)
		}
	}
	qzeros := make([]byte, 4*ng*(out/8))
	scales := make([]byte, 4*ng*out)
	for g := range ng {
		for o := range out {
			k := 4 * (g*(out/8) + o/8)
			w := binary.LittleEndian.Uint32(qzeros[k:]) | (z[g][o]-1)<<(4*(o%8))
			binary.LittleEndian.PutUint32(qzeros[k:], w)
			binary.LittleEndian.PutUint32(scales[4*(g*out+o):], math.Float32bits(sc[g][o]))
		}
	}
	wf := make([]float32, out*in)
	for o := range out {
		for i := range in {
			g := i / group
			wf[o*in+i] = sc[g][o] * (float32(q[i][o]) - float32(z[g][o]))
		}
	}
	const base = "model.layers.0.mlp.down_proj"
	dense := []testmodel.Tensor{{Name: base + ".weight", DType: "BF16", Shape: []uint64{out, in}, Data: toBF16(wf)}}
	packed := []testmodel.Tensor{
		{Name: base + ".qweight", DType: "I32", Shape: []uint64{in / 8, out}, Data: qweight},
		{Name: base + ".qzeros", DType: "I32", Shape: []uint64{ng, out / 8}, Data: qzeros},
		{Name: base + ".scales", DType: "F32", Shape: []uint64{ng, out}, Data: scales},
	}
	cfg := `{"model_type": "qwen3", "quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 32, "checkpoint_format": "gptq"}}`
	r := runCfg(t, `{}`, dense, cfg, packed, nil)
	require.Len(t, r.Entries, 1)
	e := r.Entries[0]
	assert.Equal(t, base+".weight", e.Name)
	assert.Equal(t, base+".weight", e.ModelName)
	assert.Equal(t, compare.Equal, e.Status, e.Err)
	assert.Equal(t, "I32", e.ModelDType)
	assert.Contains(t, e.ModelValues, ".qweight")
	assert.Equal(t, []string{base + ".qzeros", base + ".scales"}, r.AuxModel)
	assert.True(t, r.Within(0))
	// Without a quantization_config the weight cannot be decoded.
	r = runCfg(t, `{}`, dense, `{}`, packed, nil)
	assert.Equal(t, compare.Error, r.Entries[0].Status)
}

// TestFP8ViewsAgree: without weight_block_size, the views' values of an
// FP8 weight and compare's delta.f32 decode it with the same block (the
// one package quantconfig infers from the scale's shape, 16 here, not
// 128), so values.f32 minus the other's values is delta.f32, bit for bit.
func TestFP8ViewsAgree(t *testing.T) {
	src := tiny()
	q, deq, _ := quantizeFP8(src, 16, 16)
	const w = "model.layers.1.self_attn.o_proj.weight"
	require.Contains(t, deq, w)
	mm := writeModel(t, `{"model_type": "qwen3", "quantization_config": {"quant_method": "fp8"}}`, q)
	c, err := compare.New(writeModel(t, testmodel.TinyQwen3Config, src), mm, nil)
	require.NoError(t, err)
	fs := c.TensorFiles(w)
	require.Len(t, fs, 3)
	delta := testmodel.ReadView(t, "view", fs[1].View)

	tt := mm.Tensor(w)
	opts := views.NewCompanions(mm.Tensor, mm.Config).Options(tt)
	require.NotNil(t, opts)
	assert.Equal(t, [2]uint64{16, 16}, opts.Block)
	vals := testmodel.ReadView(t, "view", views.NewTensor(tt, opts).ValuesF32())
	require.Len(t, vals, len(delta))
	ws := bf16s(find(src, w).Data)
	for i := range ws {
		v := math.Float32frombits(binary.LittleEndian.Uint32(vals[4*i:]))
		require.Equal(t, float32(deq[w][i]), v, "values.f32[%d] is the dequantized weight", i)
		require.Equal(t, float32(float64(v)-ws[i]), math.Float32frombits(binary.LittleEndian.Uint32(delta[4*i:])), i)
	}
}

// benchLayout is a dense BF16 Qwen3-shaped layout of about 300 MB: a
// 32768×1024 embedding (tied, no head) and 8 layers of hidden 1024,
// 16 heads of 128, 8 KV heads, intermediate 3072.
func benchLayout() []testmodel.Tensor {
	return testmodel.Qwen3Tensors(32768, 1024, 8, 16, 8, 128, 3072, false)
}

// benchFiles writes, once into $TMPDIR, three files of benchLayout: a
// (normal values, σ 0.02), b (a with every element moved by about 1%,
// so that every tensor differs) and c (a byte copy of a).
func benchFiles(tb testing.TB) (a, b, c string) {
	tb.Helper()
	dir := filepath.Join(os.TempDir(), "fsmount-bench-compare")
	a, b, c = filepath.Join(dir, "a.safetensors"), filepath.Join(dir, "b.safetensors"), filepath.Join(dir, "c.safetensors")
	if _, err := os.Stat(filepath.Join(dir, "done")); err == nil {
		return a, b, c
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	entries, _ := testmodel.Layout(benchLayout())
	hdr := testmodel.Header(entries, map[string]string{"format": "pt"})
	var files [3]*bufio.Writer
	var fs [3]*os.File
	for i, p := range []string{a, b, c} {
		f, err := os.Create(p)
		if err != nil {
			tb.Fatal(err)
		}
		fs[i], files[i] = f, bufio.NewWriterSize(f, 1<<20)
		files[i].Write(hdr)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var buf [2][2]byte
	for _, e := range entries {
		for range (e.Offsets[1] - e.Offsets[0]) / 2 {
			x := float32(rng.NormFloat64() * 0.02)
			y := x * float32(1+rng.NormFloat64()*0.01)
			binary.LittleEndian.PutUint16(buf[0][:], uint16(math.Float32bits(x)>>16))
			binary.LittleEndian.PutUint16(buf[1][:], uint16(math.Float32bits(y)>>16))
			files[0].Write(buf[0][:])
			files[1].Write(buf[1][:])
			files[2].Write(buf[0][:])
		}
	}
	for i := range files {
		if err := files[i].Flush(); err != nil {
			tb.Fatal(err)
		}
		if err := fs[i].Close(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "done"), nil, 0o644); err != nil {
		tb.Fatal(err)
	}
	return a, b, c
}

// warm reads a file once, so that every timing finds it in the page cache.
func warm(tb testing.TB, paths ...string) {
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			tb.Fatal(err)
		}
		io.Copy(io.Discard, f)
		f.Close()
	}
}

func open(tb testing.TB, path string) *model.Model {
	m, err := model.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { m.Close() })
	return m
}

func tensorBytes(m *model.Model) int64 {
	var n int64
	for _, t := range m.Tensors() {
		n += t.Length
	}
	return n
}

// benchModels times compare.Models on two files, reporting bytes of both
// per second, and returns the last result and the seconds per run.
func benchModels(b *testing.B, pa, pb string, opts *compare.Options) (*compare.Result, float64) {
	ma, mb := open(b, pa), open(b, pb)
	warm(b, pa, pb)
	b.SetBytes(tensorBytes(ma) + tensorBytes(mb))
	var r *compare.Result
	start := time.Now()
	b.ResetTimer()
	for b.Loop() {
		var err error
		if r, err = compare.Models(mb, ma, opts); err != nil {
			b.Fatal(err)
		}
	}
	return r, time.Since(start).Seconds() / float64(b.N)
}

// BenchmarkDenseDiffer compares two BF16 files that differ in every
// tensor, then has numpy compute the same figures (the script in
// testdata), and reports x-numpy: numpy's time over ours. It checks
// numpy's figures against ours.
func BenchmarkDenseDiffer(b *testing.B) {
	py := testmodel.Numpy(b)
	pa, pb, _ := benchFiles(b)
	for _, w := range []int{0, 1} {
		name := map[int]string{0: "all-cores", 1: "one-core"}[w]
		b.Run(name, func(b *testing.B) {
			r, secs := benchModels(b, pa, pb, &compare.Options{Workers: w})
			b.StopTimer()
			out, err := exec.Command(py, filepath.Join("testdata", "compare_numpy.py"), pa, pb).Output()
			if err != nil {
				b.Fatal(err)
			}
			var np struct {
				Seconds float64
				Tensors map[string]struct {
					RelL2   float64 `json:"rel_l2"`
					Cosine  float64
					MaxAbs  float64 `json:"max_abs"`
					MeanAbs float64 `json:"mean_abs"`
					Differ  uint64
				}
			}
			if err := json.Unmarshal(out, &np); err != nil {
				b.Fatal(err)
			}
			if len(np.Tensors) != len(r.Entries) {
				b.Fatalf("numpy compared %d tensors, we %d", len(np.Tensors), len(r.Entries))
			}
			for _, e := range r.Entries {
				n := np.Tensors[e.Name]
				if e.Status != compare.Differs || e.Differ != n.Differ || float64(e.MaxAbs) != n.MaxAbs ||
					math.Abs(float64(e.RelL2)-n.RelL2) > 1e-9*n.RelL2 || math.Abs(float64(e.Cosine)-n.Cosine) > 1e-12 ||
					math.Abs(float64(e.MeanAbs)-n.MeanAbs) > 1e-9*n.MeanAbs {
					b.Fatalf("%s: ours %+v, numpy %+v", e.Name, e, n)
				}
			}
			b.ReportMetric(np.Seconds/secs, "x-numpy")
			b.ReportMetric(np.Seconds, "numpy-s")
		})
	}
}

// BenchmarkDenseIdentical compares two byte-identical files, then times
// cmp on them, and reports x-cmp: cmp's time over ours.
func BenchmarkDenseIdentical(b *testing.B) {
	pa, _, pc := benchFiles(b)
	r, secs := benchModels(b, pa, pc, nil)
	b.StopTimer()
	if !r.Within(0) || r.Counts()[compare.Identical] != len(r.Entries) {
		b.Fatal("not identical")
	}
	cmpPath, err := exec.LookPath("cmp")
	if err != nil {
		b.Skip("SKIPPING the ratio: no cmp")
	}
	var best float64
	for i := range 3 {
		start := time.Now()
		if err := exec.Command(cmpPath, pa, pc).Run(); err != nil {
			b.Fatal(err)
		}
		if s := time.Since(start).Seconds(); i == 0 || s < best {
			best = s
		}
	}
	b.ReportMetric(best/secs, "x-cmp")
	b.ReportMetric(best, "cmp-s")
}
