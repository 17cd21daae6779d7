package render

import (
	"bytes"
	"context"
	"errors"
	"image/color"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/tensor"
)

func TestPNGSizeAndValidity(t *testing.T) {
	for _, d := range [][2]int{{1, 1}, {3, 2}, {100, 219}, {21845, 1}, {21846, 2}, {640, 400}} {
		c := newCanvas(d[0], d[1])
		c.fill(0, 0, 1, 1, color.RGBA{10, 20, 30, 255})
		b := c.png()
		if int64(len(b)) != pngSize(d[0], d[1]) {
			t.Fatalf("%v: %d bytes, pngSize %d", d, len(b), pngSize(d[0], d[1]))
		}
		img := decodePNG(t, b, d[0], d[1])
		if r, g, bl, _ := img.At(0, 0).RGBA(); r>>8 != 10 || g>>8 != 20 || bl>>8 != 30 {
			t.Fatalf("%v: pixel (0,0) = %d %d %d", d, r>>8, g>>8, bl>>8)
		}
	}
}

var shapes = [][]uint64{
	{}, {1}, {7}, {5000}, {1, 1}, {3, 4}, {2000, 3}, {3, 2000}, {1500, 1100}, {2, 3, 4}, {0}, {0, 4}, {4, 0}, {2, 0, 3},
}

func randVals(r *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// TestSizes checks Size() == the bytes produced, that image/png decodes
// every picture at the dimensions announced, and that rendering twice
// gives the same bytes.
func TestSizes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	c := NewCache(0)
	var srcs []Source
	for _, sh := range shapes {
		s := bf16Tensor("model.layers.0.mlp.up_proj.weight", sh, randVals(r, numel(sh)))
		srcs = append(srcs, s)
		hm, hs := NewHeatmap(s, c), NewHist(s, c)
		w, h := HeatmapDims(sh)
		b := testmodel.ReadView(t, "view", hm)
		decodePNG(t, b, w, h)
		again, err := renderHeatmap(context.Background(), s, 3)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, again) {
			t.Fatalf("%v: heatmap differs between renderings", sh)
		}
		decodePNG(t, testmodel.ReadView(t, "view", hs), HistW, HistH)
	}
	ov := NewOverview(srcs, c)
	decodePNG(t, testmodel.ReadView(t, "view", ov), OverviewW, OverviewH)
	if c.Used() > DefaultCacheBytes {
		t.Fatalf("cache holds %d bytes, over its bound", c.Used())
	}
}

// bruteGrid is the grid computed the obvious way.
func bruteGrid(vals []float32, rows, cols uint64, gw, gh int) []float32 {
	g := &Grid{Rows: rows, Cols: cols, W: gw, H: gh}
	out := make([]float32, gw*gh)
	for i := range gh {
		for j := range gw {
			best, nan := float32(0), false
			first := true
			for r := g.RowStart(i); r < g.RowStart(i+1); r++ {
				for c := g.ColStart(j); c < g.ColStart(j+1); c++ {
					v := vals[r*cols+c]
					if v != v {
						nan = true
						continue
					}
					a, b := math.Abs(float64(v)), math.Abs(float64(best))
					if first || a > b || (a == b && !math.Signbit(float64(v)) && math.Signbit(float64(best))) {
						best, first = v, false
					}
				}
			}
			if nan {
				best = float32(math.NaN())
			}
			out[i*gw+j] = best
		}
	}
	return out
}

func TestGridMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][]uint64{{1, 1}, {7}, {3, 4}, {9000, 5}, {40000, 7}, {2050, 3}, {3, 2050}, {1030, 1027}, {300000}, {2, 3, 700}} {
		n := numel(sh)
		vals := randVals(r, n)
		if n > 100 {
			for k := 0; k < n/5000+1; k++ {
				vals[r.IntN(n)] = float32(math.NaN())
			}
		}
		vals[r.IntN(n)] = float32(math.Inf(1))
		var prev []float32
		for _, c := range []struct {
			s       *views.Tensor
			workers int
		}{{f32Tensor("x", sh, vals), 1}, {f32Tensor("x", sh, vals), 3}, {bf16Tensor("x", sh, vals), 1}, {bf16Tensor("x", sh, vals), 2}} {
			s, workers := c.s, c.workers
			if s.Tensor().DType == tensor.BF16 {
				for i := range vals {
					vals[i] = math.Float32frombits(math.Float32bits(vals[i]) &^ 0xffff)
				}
			}
			g, err := heatmapGrid(context.Background(), s.Decoder(), workers)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteGrid(vals, g.Rows, g.Cols, g.W, g.H)
			for i := range want {
				if math.Float32bits(want[i]) != math.Float32bits(g.Cells[i]) && !(want[i] != want[i] && g.Cells[i] != g.Cells[i]) {
					t.Fatalf("%v workers %d: cell %d = %v, want %v", sh, workers, i, g.Cells[i], want[i])
				}
			}
			if c.s.Tensor().DType == tensor.BF16 && workers == 1 {
				prev = nil // a new type: other values
			}
			if prev != nil && !bytes.Equal(f32bytes(prev), f32bytes(g.Cells)) {
				t.Fatalf("%v: grid depends on the worker count", sh)
			}
			prev = g.Cells
			if g.NaNCells == 0 {
				lo, hi := float32(math.NaN()), float32(math.NaN())
				for _, v := range vals {
					if math.Signbit(float64(v)) {
						lo = nanMin(lo, v)
					} else {
						hi = nanMax(hi, v)
					}
				}
				if !same(g.Min, lo) || !same(g.Max, hi) {
					t.Fatalf("%v: min %v max %v, want %v %v", sh, g.Min, g.Max, lo, hi)
				}
			}
		}
	}
}

func same(a, b float32) bool { return a == b || (a != a && b != b) }

func f32bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		u := math.Float32bits(x)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return b
}

// TestHeatmapPixels spot-checks colours: a positive block is red, a
// negative one blue, zero neutral, NaN black.
func TestHeatmapPixels(t *testing.T) {
	vals := []float32{1, -1, 0, float32(math.NaN()), 0.5, -0.25}
	s := f32Tensor("w", []uint64{2, 3}, vals)
	b, err := renderHeatmap(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, h := HeatmapDims(s.Tensor().Shape)
	img := decodePNG(t, b, w, h)
	l := layoutFor(s.Tensor().Shape)
	at := func(i, j int) (int, int, int) {
		r, g, b, _ := img.At(margin+j*l.cw+l.cw/2, headerH+i*l.ch+l.ch/2).RGBA()
		return int(r >> 8), int(g >> 8), int(b >> 8)
	}
	if r, g, b := at(0, 0); !(r > 2*b && r > g) {
		t.Errorf("+1 cell = %d %d %d, want red", r, g, b)
	}
	if r, g, b := at(0, 1); !(b > 2*r && b > g) {
		t.Errorf("-1 cell = %d %d %d, want blue", r, g, b)
	}
	if r, g, b := at(0, 2); !(r > 240 && g > 240 && b > 240) {
		t.Errorf("0 cell = %d %d %d, want near white", r, g, b)
	}
	if r, g, b := at(1, 0); r+g+b != 0 {
		t.Errorf("NaN cell = %d %d %d, want black", r, g, b)
	}
	if r, _, b := at(1, 1); !(r > b) {
		t.Errorf("+0.5 cell not red-ish")
	}
}

// small is the synthetic tensor of the golden pictures: a smooth
// pattern with one outlier, BF16 [48, 40].
func small() *views.Tensor {
	const rows, cols = 48, 40
	vals := make([]float32, rows*cols)
	for i := range rows {
		for j := range cols {
			vals[i*cols+j] = float32(0.05 * math.Sin(float64(i)/5) * math.Cos(float64(j)/7))
		}
	}
	vals[10*cols+30] = 0.2
	return bf16Tensor("model.layers.0.self_attn.o_proj.weight", []uint64{rows, cols}, vals)
}

func TestGolden(t *testing.T) {
	s := small()
	hm, err := renderHeatmap(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "small-heatmap.png", hm)
	hs, err := renderHist(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "small-hist.png", hs)
}

// TestPIL decodes the pictures with Pillow, an independent decoder.
func TestPIL(t *testing.T) {
	dir := t.TempDir()
	s := small()
	hm, _ := renderHeatmap(context.Background(), s, 0)
	hs, _ := renderHist(context.Background(), s)
	ov, _ := buildOverview(context.Background(), []Source{s})
	w, h := HeatmapDims(s.Tensor().Shape)
	for _, f := range []struct {
		name string
		b    []byte
		w, h int
	}{{"heatmap.png", hm, w, h}, {"hist.png", hs, HistW, HistH}, {"overview.png", ov.PNG(), OverviewW, OverviewH}} {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.b, 0o644); err != nil {
			t.Fatal(err)
		}
		// load() decompresses every row and checks the CRCs and Adler-32.
		out := testmodel.RunPillow(t, "-c", `import sys, PIL.Image
im = PIL.Image.open(sys.argv[1]); im.load(); print(im.format, im.mode, im.size[0], im.size[1])`, p)
		if want := "PNG RGB " + itoa(f.w) + " " + itoa(f.h) + "\n"; string(out) != want {
			t.Fatalf("%s: PIL says %q, want %q", f.name, out, want)
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestOverviewPlantedLayer scales one layer's down_proj by 100 and checks
// that its plotted point is far above the others, and that Outliers
// names it alone.
func TestOverviewPlantedLayer(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var srcs []Source
	var names []string
	var rms []float64
	const layers, bad = 6, 3
	for l := range layers {
		for _, k := range []string{"self_attn.q_proj", "mlp.down_proj", "input_layernorm"} {
			sh := []uint64{16, 8}
			vals := randVals(r, 128)
			for i := range vals {
				vals[i] *= 0.02
				if k == "input_layernorm" {
					vals[i] = 1 + vals[i]
				}
				if l == bad && k == "mlp.down_proj" {
					vals[i] *= 100
				}
			}
			s := bf16Tensor("model.layers."+itoa(l)+"."+k+".weight", sh, vals)
			srcs = append(srcs, s)
			st, err := s.Stats(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			names, rms = append(names, s.Tensor().Name), append(rms, st.RMS)
		}
	}
	ov := NewOverview(srcs, nil)
	o, err := ov.Data(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Series) != 3 || o.Layers != layers {
		t.Fatalf("series %d, layers %d", len(o.Series), o.Layers)
	}
	_, yBad, _ := o.Point("mlp.down_proj", bad)
	for l := range layers {
		if l == bad {
			continue
		}
		_, y, ok := o.Point("mlp.down_proj", l)
		if !ok || y-yBad < (ovY1-ovY0)/(o.yhi-o.ylo) { // at least a decade higher
			t.Fatalf("layer %d at y %d, planted layer at %d: not far above", l, y, yBad)
		}
	}
	img := decodePNG(t, testmodel.ReadView(t, "view", ov), OverviewW, OverviewH)
	x, y, _ := o.Point("mlp.down_proj", bad)
	if r, g, b, _ := img.At(x, y).RGBA(); r>>8 == 255 && g>>8 == 255 && b>>8 == 255 {
		t.Fatal("no point drawn at the planted layer")
	}
	out := Outliers(names, rms)
	for i, o := range out {
		if want := names[i] == "model.layers.3.mlp.down_proj.weight"; o != want {
			t.Errorf("%s: outlier %v, want %v", names[i], o, want)
		}
	}
}

func TestLayerKind(t *testing.T) {
	for _, c := range []struct {
		name  string
		layer int
		kind  string
		ok    bool
	}{
		{"model.layers.12.self_attn.q_proj.weight", 12, "self_attn.q_proj", true},
		{"model.layers.0.input_layernorm.weight", 0, "input_layernorm", true},
		{"model.layers.3.mlp.experts.17.down_proj.weight", 3, "mlp.experts.*.down_proj", true},
		{"model.layers.1.self_attn.q_proj.bias", 1, "self_attn.q_proj.bias", true},
		{"model.language_model.layers.2.mlp.up_proj.weight", 2, "mlp.up_proj", true},
		{"model.embed_tokens.weight", 0, "", false},
		{"model.norm.weight", 0, "", false},
	} {
		l, k, ok := LayerKind(c.name)
		if l != c.layer || k != c.kind || ok != c.ok {
			t.Errorf("%s: %d %q %v, want %d %q %v", c.name, l, k, ok, c.layer, c.kind, c.ok)
		}
	}
}

func TestCacheBound(t *testing.T) {
	c := NewCache(3 * histSize())
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 10 {
		s := bf16Tensor("t"+itoa(i), []uint64{64}, randVals(r, 64))
		testmodel.ReadView(t, "view", NewHist(s, c))
		if c.Used() > 3*histSize() {
			t.Fatalf("cache holds %d bytes, bound %d", c.Used(), 3*histSize())
		}
	}
	if c.Used() != 3*histSize() {
		t.Fatalf("cache holds %d bytes, want 3 pictures", c.Used())
	}
}

func TestNotDecoded(t *testing.T) {
	tt := &tensor.Tensor{Name: "c", DType: tensor.C64, Shape: []uint64{2, 2}, File: &memFile{B: make([]byte, 32)}, Length: 32}
	s := views.NewTensor(tt, nil)
	if s.Decoder() != nil {
		t.Skip("C64 became decodable")
	}
	w, h := HeatmapDims(tt.Shape)
	decodePNG(t, testmodel.ReadView(t, "view", NewHeatmap(s, nil)), w, h)
	decodePNG(t, testmodel.ReadView(t, "view", NewHist(s, nil)), HistW, HistH)
}

// failFile fails every read at or past off.
type failFile struct {
	memFile
	off int64
}

var errDisk = errors.New("injected I/O error")

func (f *failFile) ReadAt(p []byte, off int64) (int, error) {
	if off+int64(len(p)) > f.off {
		return 0, errDisk
	}
	return f.memFile.ReadAt(p, off)
}

// TestReadError checks that a failed read is an error of ReadAt, not a
// picture, and that it is not cached: the next read tries again.
func TestReadError(t *testing.T) {
	b := make([]byte, 2*64*64)
	f := &failFile{memFile: memFile{B: b}, off: 1000}
	tt := &tensor.Tensor{Name: "w", DType: tensor.BF16, Shape: []uint64{64, 64}, File: f, Length: int64(len(b))}
	s := views.NewTensor(tt, nil)
	hm := NewHeatmap(s, nil)
	if _, err := hm.ReadAt(make([]byte, 10), 0); !errors.Is(err, errDisk) {
		t.Fatalf("ReadAt: %v, want the injected error", err)
	}
	f.off = math.MaxInt64
	if n, err := hm.ReadAt(make([]byte, 10), 0); n != 10 || err != nil {
		t.Fatalf("ReadAt after the disk healed: %d, %v", n, err)
	}
}

// TestConcurrentReads reads one picture from many goroutines at random
// offsets while it is first rendered.
func TestConcurrentReads(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	s := bf16Tensor("w", []uint64{300, 200}, randVals(r, 60000))
	hm := NewHeatmap(s, NewCache(1)) // nothing is kept: every read renders
	want, err := renderHeatmap(context.Background(), s, 0)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			rr := rand.New(rand.NewPCG(uint64(g), 1))
			for range 5 {
				off := rr.Int64N(hm.Size())
				p := make([]byte, 5000)
				n, err := hm.ReadAt(p, off)
				if err != nil && err != io.EOF {
					t.Error(err)
					return
				}
				if !bytes.Equal(p[:n], want[off:off+int64(n)]) {
					t.Errorf("bytes at %d differ", off)
					return
				}
			}
		})
	}
	wg.Wait()
}

// LayerKind finds what the regular expression it replaced (#25: too slow
// for the 500,000 names of a large MoE's root page) found.
func TestLayerKindAsRegexp(t *testing.T) {
	re := regexp.MustCompile(`(?:^|\.)layers\.([0-9]+)\.(.+)$`)
	names := []string{
		"layers.0.x", "layers.0.", "layers..x", "xlayers.0.a", "a.xlayers.0.b.layers.1.c",
		"a.layers.x.layers.2.c", "a.layers.3.\nb", "a.layers.3.b\n.layers.4.c", "a.layers.5.b\n",
		"layers.99999999999999999999999.a", "m.layers.7.mlp.experts.12.w.weight", "m.layers.8.a.weight",
		"m.layers.9.weight", "layers.1.2", "layers.1.a.+3.-4.+.-.5x.99999999999999999999.é.", "layers.2.a..b.", "layers.01.+1.-2.weight", ".layers.4.a", "layers.4", "\xfflayers.5.\xff",
	}
	for _, n := range names {
		l, k, ok := LayerKind(n)
		m := re.FindStringSubmatch(n)
		if m == nil {
			require.False(t, ok, n)
			continue
		}
		want, err := strconv.Atoi(m[1])
		if err != nil {
			require.False(t, ok, n)
			continue
		}
		require.True(t, ok, n)
		require.Equal(t, want, l, n)
		parts := strings.Split(strings.TrimSuffix(m[2], ".weight"), ".")
		for i, p := range parts {
			if _, err := strconv.Atoi(p); err == nil {
				parts[i] = "*"
			}
		}
		require.Equal(t, strings.Join(parts, "."), k, n)
	}
}
