package check_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/safetensors"
)

// BenchmarkParse06B opens and validates the real Qwen3-0.6B header.
func BenchmarkParse06B(b *testing.B) {
	path := filepath.Join(testmodel.Sparse06BDir(b), "model.safetensors")
	b.ReportAllocs()
	for b.Loop() {
		f, err := safetensors.Open(path)
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}

// BenchmarkCheck06B cross-checks the opened 0.6B layout against its
// config, including the byte comparison of the 311 MB tied head.
func BenchmarkCheck06B(b *testing.B) {
	m, err := model.Open(testmodel.Sparse06BDir(b))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	b.ReportAllocs()
	for b.Loop() {
		r, err := check.Check(m)
		if err != nil || !r.Clean() {
			b.Fatal(err)
		}
	}
}

// BenchmarkReport06B renders the text report.
func BenchmarkReport06B(b *testing.B) {
	m, err := model.Open(testmodel.Sparse06BDir(b))
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	r, _ := check.Check(m)
	for b.Loop() {
		_ = r.Text()
	}
}

// deepseekV3Full writes the full-size DeepSeek-V3 layout (61 layers, the
// first 3 dense, 256 experts: transformers' names and shapes from the
// reference layout, repeated) as sparse shards of ~1,000 tensors.
func deepseekV3Full(tb testing.TB) (string, int) {
	tb.Helper()
	ls, err := testmodel.ReadLayouts(layoutsArchive)
	if err != nil {
		tb.Fatal(err)
	}
	for _, l := range ls {
		if l.Arch == "deepseek_v3" && l.Variant == "a" {
			cfg, ts, err := testmodel.ExpandMoELayout(l, 61, 256, 3)
			if err != nil {
				tb.Fatal(err)
			}
			dir := tb.TempDir()
			if err := testmodel.WriteShardedLayout(dir, cfg, ts, 1000); err != nil {
				tb.Fatal(err)
			}
			return dir, len(ts)
		}
	}
	tb.Fatal("no deepseek_v3/a layout")
	return "", 0
}

// BenchmarkCheckPerTensor opens and checks, alternately, the full-size
// DeepSeek-V3 (45,395 tensors in 46 sparse shards) and the real
// 18,867-tensor Qwen3-Coder-30B-A3B layout, and reports ns per tensor of
// each and their ratio (the bound: DeepSeek-V3 no slower per
// tensor, ratio ≤ 1).
func BenchmarkCheckPerTensor(b *testing.B) {
	ds, _ := deepseekV3Full(b)
	qw, _ := writeRealSharded(b, "Qwen3-Coder-30B-A3B-Instruct")
	dirs := []string{ds, qw}
	var spent, checking [2]time.Duration
	var tensors [2]int
	for b.Loop() {
		for i, dir := range dirs {
			start := time.Now()
			m, err := model.Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			opened := time.Now()
			r, err := check.Check(m)
			if err != nil || !r.Clean() {
				b.Fatal(err, r.Verdict())
			}
			spent[i] += time.Since(start)
			checking[i] += time.Since(opened)
			tensors[i] = len(m.Tensors())
			m.Close()
		}
	}
	per := func(d [2]time.Duration, i int) float64 {
		return float64(d[i].Nanoseconds()) / float64(b.N) / float64(tensors[i])
	}
	b.ReportMetric(per(spent, 0), "ns/tensor-deepseek")
	b.ReportMetric(per(spent, 1), "ns/tensor-qwen3moe")
	b.ReportMetric(per(spent, 0)/per(spent, 1), "ratio")
	b.ReportMetric(per(checking, 0)/per(checking, 1), "check-only-ratio")
	b.Logf("deepseek-v3 %d tensors, qwen3-moe %d tensors", tensors[0], tensors[1])
}

// BenchmarkCheckDeepSeekV3 checks the opened full-size DeepSeek-V3.
func BenchmarkCheckDeepSeekV3(b *testing.B) {
	ds, _ := deepseekV3Full(b)
	benchCheck(b, ds)
}

// BenchmarkCheckQwen3MoE checks the opened 18,867-tensor Qwen3-MoE.
func BenchmarkCheckQwen3MoE(b *testing.B) {
	qw, _ := writeRealSharded(b, "Qwen3-Coder-30B-A3B-Instruct")
	benchCheck(b, qw)
}

// benchCheck checks the model in dir b.N times and reports the time per
// tensor.
func benchCheck(b *testing.B, dir string) {
	m, err := model.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	b.ReportAllocs()
	for b.Loop() {
		if r, err := check.Check(m); err != nil || !r.Clean() {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(m.Tensors())), "ns/tensor")
}

// layoutsArchive holds the reference layouts of the architecture table
// (spec/testdata/layouts-README.md says how they were made).
const layoutsArchive = "../spec/testdata/layouts.tar.gz"
