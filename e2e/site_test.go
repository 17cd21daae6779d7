package e2e

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/site"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/model"
)

// chromium returns the headless browser, or skips t (fails it when
// FSMOUNT_REQUIRE_CHROMIUM=1).
func chromium(t *testing.T) string {
	t.Helper()
	for _, c := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	if os.Getenv("FSMOUNT_REQUIRE_CHROMIUM") == "1" {
		t.Fatal("chromium is required (FSMOUNT_REQUIRE_CHROMIUM=1): apt-get install chromium")
	}
	t.Skip("SKIPPING: no chromium (apt-get install chromium)")
	return ""
}

// runChromium runs the headless browser on url with args, in a profile
// of its own, and returns its standard output.
func runChromium(t *testing.T, bin, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	all := append([]string{"--headless", "--disable-gpu", "--no-sandbox", "--no-first-run",
		"--user-data-dir=" + t.TempDir(), "--allow-file-access-from-files"}, args...)
	cmd := exec.CommandContext(ctx, bin, append(all, url)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %v: %v\n%s", args, err, errb.String())
	}
	return out.Bytes()
}

// screenshot is Chromium's picture of the page at url in a 1280×2000
// window, once it has rendered.
func screenshot(t *testing.T, bin, url string) image.Image {
	t.Helper()
	shot := filepath.Join(t.TempDir(), "shot.png")
	runChromium(t, bin, url, "--screenshot="+shot, "--window-size=1280,2000", "--hide-scrollbars",
		"--run-all-compositor-stages-before-draw", "--virtual-time-budget=5000")
	f, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(f))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	return img
}

// writeTinySite writes the tiny model's site into a new directory.
func writeTinySite(t *testing.T) (string, *site.Site) {
	t.Helper()
	m, r := testmodel.Checked(t, testmodel.TinyDir(t, nil))
	var vs []*views.Tensor
	for _, tt := range m.Tensors() {
		vs = append(vs, views.NewTensor(tt, nil))
	}
	s, err := site.New(r, vs, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := site.Write(context.Background(), dir, s, nil); err != nil {
		t.Fatal(err)
	}
	return dir, s
}

// TestSiteInChromium opens the written site of the tiny model in
// headless Chromium: the screenshot of the root page is a non-blank
// PNG of the window's size, its DOM has the table of every tensor, and
// every picture of the site loads at its announced dimensions.
func TestSiteInChromium(t *testing.T) {
	bin := chromium(t)
	dir, s := writeTinySite(t)
	root := "file://" + filepath.ToSlash(filepath.Join(dir, "index.html"))

	img := screenshot(t, bin, root)
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2000 {
		t.Fatalf("screenshot is %v, want 1280x2000", b)
	}
	if n := colours(img); n < 20 {
		t.Fatalf("screenshot has %d colours: blank?", n)
	}

	dom := string(runChromium(t, bin, root, "--dump-dom", "--virtual-time-budget=5000"))
	if !strings.Contains(dom, `<table id="tensors">`) {
		t.Fatal("the DOM has no table of tensors")
	}
	rows := regexp.MustCompile(`<tr><td><a href="[^"]*">([^<]*)</a>`).FindAllStringSubmatch(dom, -1)
	m, _ := model.Open(testmodel.TinyDir(t, nil))
	defer m.Close()
	if len(rows) != len(m.Tensors()) {
		t.Fatalf("the DOM's table has %d tensors, want %d", len(rows), len(m.Tensors()))
	}

	// A page of the test's own (the site has no JavaScript) loads every
	// picture of the site and writes each one's natural size into the DOM.
	var imgs, want strings.Builder
	for _, f := range s.Files() {
		if !strings.HasSuffix(f.Path, ".png") {
			continue
		}
		w, h := pngDims(t, filepath.Join(dir, filepath.FromSlash(f.Path)))
		fmt.Fprintf(&imgs, "<img src=\"%s\">\n", f.Path)
		fmt.Fprintf(&want, "%s %d %d;", f.Path, w, h)
	}
	dom = picturesLoad(t, bin, filepath.Join(dir, "imgcheck.html"), imgs.String(), true, 10000, want.String())
	// And the root page's own <img> is the overview, at its size.
	if !strings.Contains(dom+string(readFile(t, filepath.Join(dir, "index.html"))), `src="./overview.png" width="`+strconv.Itoa(render.OverviewW)) {
		t.Fatal("root page lacks the overview picture")
	}
}

// picturesLoad writes a page of the test's own (the site has no
// JavaScript) at page, holding the <img> elements imgs and a script that
// writes each picture's natural size ("W H;", after its src when withSrc)
// into the DOM once all have loaded; it loads the page in Chromium within
// budget ms of virtual time, fails t unless that text is want, and
// returns the DOM.
func picturesLoad(t *testing.T, bin, page, imgs string, withSrc bool, budget int, want string) string {
	t.Helper()
	src := ""
	if withSrc {
		src = `im.getAttribute("src") + " " + `
	}
	check := `<!DOCTYPE html><html><body>` + imgs + `<pre id="out"></pre>
<script>
window.addEventListener("load", function () {
  var s = "";
  for (const im of document.images) s += ` + src + `im.naturalWidth + " " + im.naturalHeight + ";";
  document.getElementById("out").textContent = s;
});
</script></body></html>`
	if err := os.WriteFile(page, []byte(check), 0o644); err != nil {
		t.Fatal(err)
	}
	dom := string(runChromium(t, bin, "file://"+filepath.ToSlash(page), "--dump-dom", "--virtual-time-budget="+strconv.Itoa(budget)))
	got := regexp.MustCompile(`<pre id="out">([^<]*)</pre>`).FindStringSubmatch(dom)
	if got == nil || got[1] != want {
		t.Fatalf("pictures as loaded:\n%v\nwant\n%s", got, want)
	}
	return dom
}

func pngDims(t *testing.T, p string) (int, int) {
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := png.DecodeConfig(f)
	if err != nil {
		t.Fatalf("%s: %v", p, err)
	}
	return c.Width, c.Height
}

// colours counts the distinct colours of img, up to 1000.
func colours(img image.Image) int {
	seen := map[[3]uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 3 {
		for x := b.Min.X; x < b.Max.X; x += 3 {
			r, g, bl, _ := img.At(x, y).RGBA()
			seen[[3]uint32{r, g, bl}] = true
			if len(seen) >= 1000 {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// fourLayerTiny writes the tiny Qwen3 with four layers (layers 2 and 3
// new, with their own values), layer 2's down_proj scaled ×100.
func fourLayerTiny(t *testing.T) string {
	t.Helper()
	cfg := strings.Replace(testmodel.TinyQwen3Config, `"num_hidden_layers": 2`, `"num_hidden_layers": 4`, 1)
	if cfg == testmodel.TinyQwen3Config {
		t.Fatal("the tiny config's layer count is not where the test expects it")
	}
	ts := testmodel.TinyQwen3Tensors()
	var out []testmodel.Tensor
	for _, tt := range ts {
		out = append(out, tt)
		if rest, ok := strings.CutPrefix(tt.Name, "model.layers.1."); ok {
			for _, l := range []int{2, 3} {
				c := tt
				c.Name = fmt.Sprintf("model.layers.%d.%s", l, rest)
				c.Data = append([]byte(nil), tt.Data...)
				for i := 0; i+1 < len(c.Data); i += 2 {
					c.Data[i] ^= byte(l * 37) // other values, same scale
				}
				if l == 2 && rest == "mlp.down_proj.weight" {
					for i := 0; i+1 < len(c.Data); i += 2 {
						v := math.Float32frombits(uint32(binary.LittleEndian.Uint16(c.Data[i:])) << 16)
						binary.LittleEndian.PutUint16(c.Data[i:], uint16(math.Float32bits(v*100)>>16))
					}
				}
				out = append(out, c)
			}
		}
	}
	dir := t.TempDir()
	if err := testmodel.WriteModelDir(dir, cfg, out); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestMountedSiteInChromium opens index.html of a mounted model in
// headless Chromium: it renders, the table lists every tensor, every
// picture loads, and the planted bad layer (down_proj of layer 2 ×100)
// is named in the health column.
func TestMountedSiteInChromium(t *testing.T) {
	bin := chromium(t)
	mnt, _ := mountModel(t, fourLayerTiny(t))
	root := "file://" + filepath.ToSlash(filepath.Join(mnt, "index.html"))
	img := screenshot(t, bin, root)
	if n := colours(img); n < 20 {
		t.Fatalf("screenshot has %d colours: blank?", n)
	}
	dom := string(runChromium(t, bin, root, "--dump-dom", "--virtual-time-budget=5000"))
	rows := regexp.MustCompile(`<tr><td><a href="([^"]*)">([^<]*)</a>(.*)`).FindAllStringSubmatch(dom, -1)
	if len(rows) != 47 {
		t.Fatalf("the DOM's table has %d tensors, want 47", len(rows))
	}
	var outliers []string
	var imgs, want strings.Builder
	for _, r := range rows {
		if strings.Contains(r[3], "outlier") {
			outliers = append(outliers, r[2])
		}
		dir := filepath.Join(mnt, filepath.FromSlash(strings.TrimSuffix(r[1], "index.html")))
		for _, pic := range []string{"heatmap.png", "hist.png"} {
			p := filepath.Join(dir, pic)
			w, h := pngDims(t, p)
			fmt.Fprintf(&imgs, "<img src=\"file://%s\">\n", filepath.ToSlash(p))
			fmt.Fprintf(&want, "%d %d;", w, h)
		}
	}
	if len(outliers) != 1 || outliers[0] != "model.layers.2.mlp.down_proj.weight" {
		t.Fatalf("outliers %v, want the planted down_proj of layer 2", outliers)
	}
	picturesLoad(t, bin, filepath.Join(t.TempDir(), "imgcheck.html"), imgs.String(), false, 20000, want.String())
}

// TestInspectHTML: fsinspect --html writes the very site the mount
// serves: the same pages and pictures, byte for byte.
func TestInspectHTML(t *testing.T) {
	model := fourLayerTiny(t)
	dir := filepath.Join(t.TempDir(), "site")
	r := runCmd(t, "fsinspect", "--html", dir, model)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	mnt, _ := mountModel(t, model)
	for _, p := range []string{"index.html", "overview.png", "layers/2/mlp/down_proj/index.html", "layers/2/mlp/down_proj/heatmap.png", "norm/hist.png"} {
		want, err := os.ReadFile(filepath.Join(mnt, p))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, got) {
			t.Errorf("%s differs between the mount and --html", p)
		}
	}
	again := runCmd(t, "fsinspect", "--html", dir, model)
	if again.code != 64 || !strings.Contains(again.stderr, "is not empty") { // a bad command line, not an invalid model
		t.Errorf("a second --html into the same directory: exit %d, %q", again.code, again.stderr)
	}
}
