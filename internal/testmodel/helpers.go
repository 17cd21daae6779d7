package testmodel

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/model"
)

// RepoRoot finds the module root (the directory holding go.mod) from the
// working directory up.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above " + dir)
		}
	}
}

// WriteTiny writes the tiny Qwen3 model into dir, with edit (if not nil)
// applied to its tensors first.
func WriteTiny(dir string, edit func([]Tensor) []Tensor) error {
	ts := TinyQwen3Tensors()
	if edit != nil {
		ts = edit(ts)
	}
	return WriteModelDir(dir, TinyQwen3Config, ts)
}

// WriteFancyNet writes into dir the tiny model with five layers, as
// FancyNetForCausalLM (an architecture without a spec), layer 2's
// mlp.up_proj.weight left out: the structural check finds it missing.
func WriteFancyNet(dir string) error {
	cfg := strings.Replace(TinyQwen3Config, "Qwen3ForCausalLM", "FancyNetForCausalLM", 1)
	cfg = strings.Replace(cfg, `"model_type": "qwen3"`, `"model_type": "fancynet"`, 1)
	cfg = strings.Replace(cfg, `"num_hidden_layers": 2`, `"num_hidden_layers": 5`, 1)
	cfg = strings.Replace(cfg, `"max_window_layers": 2`, `"max_window_layers": 5`, 1)
	var ts []Tensor
	for _, t := range Qwen3Tensors(128, 32, 5, 4, 2, 16, 64, true) {
		if t.Name == "model.layers.2.mlp.up_proj.weight" {
			continue
		}
		t.Data = FillBF16(1, t.Name, NBytes(t.DType, t.Shape))
		ts = append(ts, t)
	}
	ts[len(ts)-1].Data = ts[0].Data // lm_head a copy of embed_tokens, as in the tiny model
	return WriteModelDir(dir, cfg, ts)
}

// FancyNetFormats writes the tiny model as FancyNetForCausalLM (an
// architecture without a spec), the tensor drop left out (none if
// empty), twice: as model.safetensors in the first directory it returns
// and as a torch.save pytorch_model.bin in the second.
func FancyNetFormats(t testing.TB, drop string) (st, pt string) {
	t.Helper()
	cfg := strings.Replace(TinyQwen3Config, "Qwen3ForCausalLM", "FancyNetForCausalLM", 1)
	cfg = strings.Replace(cfg, `"model_type": "qwen3"`, `"model_type": "fancynet"`, 1)
	var kept []Tensor
	for _, x := range TinyQwen3Tensors() {
		if x.Name != drop {
			kept = append(kept, x)
		}
	}
	st = t.TempDir()
	require.NoError(t, WriteModelDir(st, cfg, kept))
	pt = filepath.Join(t.TempDir(), "pt")
	require.NoError(t, ConvertToTorch(st, pt))
	return st, pt
}

// WriteSparse06B writes the real Qwen3-0.6B layout (testdata/
// qwen3-0.6b-layout) into dir as a sparse model.safetensors and its
// config.json.
func WriteSparse06B(dir string) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	layout := filepath.Join(root, "testdata", "qwen3-0.6b-layout")
	return WriteSparseModel(dir, filepath.Join(layout, "model.safetensors.tensor-listing.tsv"), filepath.Join(layout, "config.json"))
}

// TinyDir writes the tiny Qwen3 model, with edit (if not nil) applied to
// its tensors, into a new temporary directory of t.
func TinyDir(t testing.TB, edit func([]Tensor) []Tensor) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteTiny(dir, edit); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Checked opens the model in dir and checks it, failing tb if either
// fails; the model is closed when the test ends.
func Checked(tb testing.TB, dir string) (*model.Model, *check.Report) {
	tb.Helper()
	m, err := model.Open(dir)
	return m, CheckOpened(tb, m, err)
}

// CheckOpened checks a model just opened (err is the opening's), failing
// tb if either failed; the model is closed when the test ends.
func CheckOpened(tb testing.TB, m *model.Model, err error) *check.Report {
	tb.Helper()
	require.NoError(tb, err)
	tb.Cleanup(func() { m.Close() })
	r, err := check.Check(m)
	require.NoError(tb, err)
	return r
}

// Sparse06BDir writes the real Qwen3-0.6B layout, sparse, into a new
// temporary directory of t.
func Sparse06BDir(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteSparse06B(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// imports holds, by interpreter and modules, whether the interpreter
// could import them: each is asked once a test binary, not once a test
// (importing torch costs seconds of CPU, as much as most of the tests
// that use it).
var imports sync.Map // "py\x00modules" → *importProbe

type importProbe struct {
	once sync.Once
	err  error
}

// canImport reports whether python py can import modules ("torch, numpy").
func canImport(py, modules string) error {
	v, _ := imports.LoadOrStore(py+"\x00"+modules, &importProbe{})
	p := v.(*importProbe)
	p.once.Do(func() { p.err = exec.Command(py, "-c", "import "+modules).Run() })
	return p.err
}

// Numpy returns a python3 that can import numpy ($FSMOUNT_PYTHON if set,
// then Debian's, in /usr/bin, which a Python of the user's may shadow on
// PATH), or skips t, failing it instead when FSMOUNT_REQUIRE_NUMPY=1.
func Numpy(t testing.TB) string {
	t.Helper()
	for _, py := range []string{os.Getenv("FSMOUNT_PYTHON"), "/usr/bin/python3", "python3"} {
		if py != "" && canImport(py, "numpy") == nil {
			return py
		}
	}
	if os.Getenv("FSMOUNT_REQUIRE_NUMPY") == "1" {
		t.Fatal("numpy is required (FSMOUNT_REQUIRE_NUMPY=1) but no python3 can import it: apt-get install python3-numpy")
	}
	t.Skip("SKIPPING: no python3 with numpy (apt-get install python3-numpy)")
	return ""
}

// HostileNames are tensor names that try to escape the tree, shadow its
// files or break path rules.
var HostileNames = []string{
	"..", "a..b", "x/y", "", strings.Repeat("p", 300) + ".weight", "layer.shape",
	"model.verdict.weight", "model.by-name", "shapes", "weight", "a", "a.weight",
	"lm_head.weight", "model.lm_head.weight", "%", "%25", "%+", ".", "..weight",
	"model.expected.weight", "n\x00ul", "data", "model." + strings.Repeat("q", 600),
}

// RunNumpy runs the python3 Numpy finds with args (a script and its
// arguments) and returns its combined output; t fails if it does not exit
// 0, and skips (as Numpy does) where there is no numpy.
func RunNumpy(t testing.TB, args ...string) string {
	t.Helper()
	return run(t, Numpy(t), args)
}

// Torch returns Debian's python3 (/usr/bin/python3) if it can import torch
// and numpy, or skips t, failing it instead when FSMOUNT_REQUIRE_TORCH=1.
// Under -short (./test.sh --quick) it skips t: importing torch alone
// costs seconds of CPU, twice per test (the probe, then the script):
// with them, the tests of pytorch, adapter and model took 27 s of CPU,
// without them 4. The full run compares with torch.
func Torch(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the comparisons with torch run without -short")
	}
	py := "/usr/bin/python3"
	if err := canImport(py, "torch, numpy"); err != nil {
		if os.Getenv("FSMOUNT_REQUIRE_TORCH") == "1" {
			t.Fatalf("torch is required (FSMOUNT_REQUIRE_TORCH=1): %v", err)
		}
		t.Skip("no python3-torch")
	}
	return py
}

// RunTorch runs Torch's python3 with args and returns its combined
// output; t fails if it does not exit 0.
func RunTorch(t testing.TB, args ...string) string {
	t.Helper()
	return run(t, Torch(t), args)
}

func run(t testing.TB, py string, args []string) string {
	t.Helper()
	out, err := exec.Command(py, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", py, strings.Join(args, " "), err, out)
	}
	return string(out)
}
