package compare_test

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/compare"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

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
