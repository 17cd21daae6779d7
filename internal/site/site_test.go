package site

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/model"
)

var update = flag.Bool("update", false, "rewrite testdata/readme")

// open opens the model in dir, checks it, and returns its site.
func open(t *testing.T, dir string) *Site {
	t.Helper()
	m, err := model.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	r, err := check.Check(m)
	if err != nil {
		t.Fatal(err)
	}
	var vs []*views.Tensor
	for _, tt := range m.Tensors() {
		vs = append(vs, views.NewTensor(tt, nil))
	}
	s, err := New(r, vs, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var hrefRE = regexp.MustCompile(`(?:href|src)="([^"]+)"`)

// TestTinySite reads every file of the tiny model's site: sizes as
// announced, every PNG decodes, every link and picture resolves to a
// file of the site, and the table lists every tensor.
func TestTinySite(t *testing.T) {
	s := open(t, testmodel.TinyDir(t, nil))
	files := map[string][]byte{}
	sizes := map[string]int64{}
	for _, f := range s.Files() {
		sizes[f.Path] = f.View.Size() // before anything is rendered
	}
	for _, f := range s.Files() {
		b := testmodel.ReadView(t, f.Path, f.View)
		if int64(len(b)) != sizes[f.Path] {
			t.Fatalf("%s: %d bytes, announced %d", f.Path, len(b), sizes[f.Path])
		}
		files[f.Path] = b
		if strings.HasSuffix(f.Path, ".png") {
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Fatalf("%s: %v", f.Path, err)
			}
		}
	}
	for p, b := range files {
		if !strings.HasSuffix(p, ".html") {
			continue
		}
		if bytes.Contains(b, []byte("<script")) || bytes.Contains(b, []byte("http:")) || bytes.Contains(b, []byte("https:")) {
			t.Fatalf("%s: script or network reference", p)
		}
		for _, m := range hrefRE.FindAllSubmatch(b, -1) {
			target := filepath.ToSlash(filepath.Clean(filepath.Join(filepath.Dir(p), string(m[1]))))
			if _, ok := files[target]; !ok {
				t.Fatalf("%s: link %s to %s: no such file", p, m[1], target)
			}
		}
	}
	root := string(files[layout.Index])
	for _, name := range []string{"model.embed_tokens.weight", "model.layers.1.mlp.down_proj.weight", "lm_head.weight"} {
		if !strings.Contains(root, ">"+name+"</a>") {
			t.Fatalf("root page does not list %s", name)
		}
	}
	if n := strings.Count(root, "<tr><td><a href="); n != len(s.pages) {
		t.Fatalf("%d tensor rows, want %d", n, len(s.pages))
	}
	if strings.Contains(root, "outlier ") && strings.Contains(root, `class="h outlier`) {
		t.Fatal("the tiny model has an outlier")
	}
}

// TestNewTensor: one tensor's page made alone (as a mount makes it on
// lookup) is byte for byte its page in the whole site.
func TestNewTensor(t *testing.T) {
	s := open(t, testmodel.TinyDir(t, nil))
	paths := s.report.Paths()
	dir := &Options{Path: func(n string) string { return strings.Join(paths[n], "/") }}
	if _, err := NewTensor(s.pages[0].v, nil); err == nil {
		t.Fatal("NewTensor without a Path was accepted")
	}
	for _, p := range s.pages {
		alone, err := NewTensor(p.v, dir)
		if err != nil {
			t.Fatal(err)
		}
		if alone.Dir != p.Dir || alone.Index.Size() != p.Index.Size() {
			t.Fatalf("%s: alone %s, %d bytes; in the site %s, %d", p.v.Tensor().Name, alone.Dir, alone.Index.Size(), p.Dir, p.Index.Size())
		}
		if a, b := testmodel.ReadView(t, "alone", alone.Index), testmodel.ReadView(t, "site", p.Index); !bytes.Equal(a, b) {
			t.Fatalf("%s: the page made alone differs from the site's", p.v.Tensor().Name)
		}
	}
	if _, err := NewTensor(s.pages[0].v, &Options{Path: func(string) string { return "../up" }}); err == nil {
		t.Fatal("a directory outside the site was accepted")
	}
}

// TestFixedWidthFields checks that pages keep their size whatever the
// statistics: NaN, Inf, zeros and huge values, names with markup.
func TestFixedWidthFields(t *testing.T) {
	edit := func(ts []testmodel.Tensor) []testmodel.Tensor {
		put := func(name string, f func(i int) float32) {
			for k := range ts {
				if ts[k].Name == name {
					d := ts[k].Data
					for i := 0; i < len(d)/2; i++ {
						binary.LittleEndian.PutUint16(d[2*i:], uint16(math.Float32bits(f(i))>>16))
					}
				}
			}
		}
		put("model.layers.0.input_layernorm.weight", func(i int) float32 { return float32(math.NaN()) })
		put("model.layers.1.input_layernorm.weight", func(i int) float32 { return float32(math.Inf(-1)) })
		put("model.layers.0.self_attn.q_norm.weight", func(i int) float32 { return 0 })
		put("model.layers.1.self_attn.q_norm.weight", func(i int) float32 { return -3e38 })
		ts = append(ts, testmodel.Tensor{Name: "odd.<b>&\"name\"%2F", DType: "BF16", Shape: []uint64{2, 0, 3}, Data: nil})
		return ts
	}
	s := open(t, testmodel.TinyDir(t, edit))
	for _, f := range s.Files() {
		size := f.View.Size()
		if b := testmodel.ReadView(t, f.Path, f.View); int64(len(b)) != size {
			t.Fatalf("%s: %d bytes, announced %d", f.Path, len(b), size)
		}
	}
	root := string(testmodel.ReadView(t, "root", s.Root()))
	for _, want := range []string{`class="h nan     ">&#x2717; nan`, `class="h inf     ">&#x2717; inf`, `class="h zero    ">&#x2717; zero`, `class="h empty   ">`, "odd.&lt;b&gt;&amp;&#34;name&#34;%2F"} {
		if !strings.Contains(root, want) {
			t.Errorf("root page lacks %q", want)
		}
	}
}

// plantedDir writes a 6-layer tiny Qwen3 whose layer 3 down_proj is
// scaled by 100.
func plantedDir(t *testing.T) string {
	ts := testmodel.Qwen3Tensors(128, 32, 6, 4, 2, 16, 64, false)
	for i := range ts {
		ts[i].Data = testmodel.FillBF16(1, ts[i].Name, testmodel.NBytes(ts[i].DType, ts[i].Shape))
		if ts[i].Name == "model.layers.3.mlp.down_proj.weight" {
			d := ts[i].Data
			for k := 0; k < len(d); k += 2 {
				x := math.Float32frombits(uint32(binary.LittleEndian.Uint16(d[k:])) << 16)
				binary.LittleEndian.PutUint16(d[k:], uint16(math.Float32bits(x*100)>>16))
			}
		}
	}
	cfg := strings.Replace(testmodel.TinyQwen3Config, `"num_hidden_layers": 2`, `"num_hidden_layers": 6`, 1)
	cfg = strings.Replace(cfg, `"max_window_layers": 2`, `"max_window_layers": 6`, 1)
	dir := t.TempDir()
	if err := testmodel.WriteModelDir(dir, cfg, ts); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestPlantedLayer(t *testing.T) {
	s := open(t, plantedDir(t))
	o, err := s.Overview().Data(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	_, yBad, ok := o.Point("mlp.down_proj", 3)
	if !ok {
		t.Fatal("no down_proj point at layer 3")
	}
	for l := range 6 {
		if _, y, _ := o.Point("mlp.down_proj", l); l != 3 && y-yBad < 50 {
			t.Fatalf("layer %d down_proj at y %d, the planted one at %d: not far above", l, y, yBad)
		}
	}
	root := string(testmodel.ReadView(t, "root", s.Root()))
	rows := regexp.MustCompile(`(?m)^<tr><td><a href="[^"]*">([^<]*)</a>.*class="h (\w+)`).FindAllStringSubmatch(root, -1)
	if len(rows) != len(s.pages) {
		t.Fatalf("%d rows parsed, want %d", len(rows), len(s.pages))
	}
	for _, r := range rows {
		if want := r[1] == "model.layers.3.mlp.down_proj.weight"; (r[2] == "outlier") != want {
			t.Errorf("%s: health %s", r[1], r[2])
		}
	}
}

func TestWrite(t *testing.T) {
	s := open(t, testmodel.TinyDir(t, nil))
	dir := t.TempDir()
	calls := 0
	err := Write(context.Background(), dir, s, func(done, total int, path string) {
		calls++
		if done != calls || total != len(s.Files()) {
			t.Errorf("progress %d/%d after %d calls", done, total, calls)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Files() {
		st, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f.Path)))
		if err != nil || st.Size() != f.View.Size() {
			t.Fatalf("%s: %v, size %v, want %d", f.Path, err, st, f.View.Size())
		}
	}
}

func TestBadPaths(t *testing.T) {
	m, err := model.Open(testmodel.TinyDir(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	r, _ := check.Check(m)
	var vs []*views.Tensor
	for _, tt := range m.Tensors() {
		vs = append(vs, views.NewTensor(tt, nil))
	}
	for _, p := range []func(string) string{
		func(string) string { return "../x" },
		func(string) string { return "/abs" },
		func(string) string { return "same" },
		func(string) string { return "" },
		func(n string) string { return n + "/index.html" },
	} {
		if _, err := New(r, vs, &Options{Path: p}); err == nil {
			t.Errorf("path %q accepted", p("t"))
		}
	}
	// The default is the tree's layout, as a mount lays it out.
	s, err := New(r, vs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p := s.byName["model.layers.0.self_attn.q_proj.weight"]; p == nil || p.Dir != "layers/0/self_attn/q_proj" {
		t.Errorf("default directory of q_proj: %+v", p)
	}
}

// TestReadmePictures checks that the tiny model's pictures committed
// under testdata/readme (re-encoded compressed, for the README) are
// pixel for pixel what the site renders, and that the rendered bytes are
// those whose SHA-256 testdata/readme/SHA256SUMS lists.
func TestReadmePictures(t *testing.T) {
	s := open(t, testmodel.TinyDir(t, nil))
	checkReadmePictures(t, "SHA256SUMS", []readmePicture{
		{name: "overview.png", v: s.Overview()},
		{name: "down_proj-heatmap.png", v: s.Tensor("model.layers.1.mlp.down_proj.weight").Heatmap},
		{name: "down_proj-hist.png", v: s.Tensor("model.layers.1.mlp.down_proj.weight").Hist},
		{name: "embed_tokens-heatmap.png", v: s.Tensor("model.embed_tokens.weight").Heatmap},
	})
}

// TestReadmePictures06B does the same for the dense 1.5 GB Qwen3-0.6B
// layout (its values are testmodel's deterministic pseudo-random bytes):
// the overview and the 311 MB embed_tokens's heatmap.
func TestReadmePictures06B(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 1.5 GB model")
	}
	dir := t.TempDir()
	root, err := testmodel.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	layout := filepath.Join(root, "testdata", "qwen3-0.6b-layout")
	if err := testmodel.WriteDenseModel(dir, filepath.Join(layout, "model.safetensors.tensor-listing.tsv"), filepath.Join(layout, "config.json")); err != nil {
		t.Fatal(err)
	}
	s := open(t, dir)
	checkReadmePictures(t, "SHA256SUMS-0.6B", []readmePicture{
		{name: "q06b-overview.png", v: s.Overview()},
		// Noise does not compress (1.5 MB): its digest only is committed.
		{"q06b-embed_tokens-heatmap.png", s.Tensor("model.embed_tokens.weight").Heatmap, true},
		{name: "q06b-embed_tokens-hist.png", v: s.Tensor("model.embed_tokens.weight").Hist},
	})
}

type readmePicture struct {
	name string
	v    views.View
	// digestOnly: only the SHA-256 of the rendered bytes is checked.
	digestOnly bool
}

func checkReadmePictures(t *testing.T, sumsName string, pics []readmePicture) {
	t.Helper()
	var sums strings.Builder
	for _, p := range pics {
		b := testmodel.ReadView(t, p.name, p.v)
		d := sha256.Sum256(b)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(d[:]), p.name)
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		if p.digestOnly {
			continue
		}
		path := filepath.Join("testdata", "readme", p.name)
		f := testmodel.Golden(t, path, *update, func() []byte {
			var z bytes.Buffer
			if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&z, img); err != nil {
				t.Fatal(err)
			}
			return z.Bytes()
		})
		want, err := png.Decode(bytes.NewReader(f))
		if err != nil {
			t.Fatal(err)
		}
		if !samePixels(img, want) {
			t.Errorf("%s: pixels differ from %s", p.name, path)
		}
	}
	sumPath := filepath.Join("testdata", "readme", sumsName)
	want := testmodel.Golden(t, sumPath, *update, func() []byte { return []byte(sums.String()) })
	if string(want) != sums.String() {
		t.Errorf("rendered bytes differ from %s:\n%s", sumPath, sums.String())
	}
}

func samePixels(a, b image.Image) bool {
	if a.Bounds() != b.Bounds() {
		return false
	}
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, _ := a.At(x, y).RGBA()
			r2, g2, b2, _ := b.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				return false
			}
		}
	}
	return true
}

var _ = render.OverviewW
