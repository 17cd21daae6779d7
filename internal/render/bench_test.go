package render

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/tensor"
)

// bigRows × bigCols is Qwen3-0.6B's embedding: 311 MB of BF16.
const bigRows, bigCols = 151936, 1024

// bigBF16 returns a synthetic BF16 [151936, 1024] tensor of normal values
// (σ 0.02), written once to $TMPDIR/fsmount-render-bench-bf16.bin and
// reused.
func bigBF16(tb testing.TB) *tensor.Tensor {
	tb.Helper()
	t := testmodel.BigBF16(tb, "fsmount-render-bench-bf16.bin", []uint64{bigRows, bigCols}, 21, func(_ uint64, r *rand.Rand) float32 {
		return float32(r.NormFloat64() * 0.02)
	})
	t.Name = "model.embed_tokens.weight"
	return t
}

// BenchmarkBigScan is decode.Scan (with the histogram hist.png uses) of
// the 311 MB tensor: the reference for BenchmarkBigHeatmap, which must
// take at most 1.5 times as long.
func BenchmarkBigScan(b *testing.B) {
	t := bigBF16(b)
	b.SetBytes(t.Length)
	for b.Loop() {
		if _, err := decode.Scan(context.Background(), t, &decode.ScanOptions{HistBins: views.DefaultHistBins}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBigHeatmap renders the heatmap.png of the 311 MB tensor.
func BenchmarkBigHeatmap(b *testing.B) {
	s := views.NewTensor(bigBF16(b), nil)
	b.SetBytes(s.Tensor().Length)
	for b.Loop() {
		if _, err := renderHeatmap(context.Background(), s, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBigHeatmapVsScan alternates a decode.Scan and a heatmap of the
// 311 MB tensor, so that both see the same load on a shared machine, and
// reports each one's median time and the ratio of the medians (the
// target is at most 1.5).
func BenchmarkBigHeatmapVsScan(b *testing.B) {
	t := bigBF16(b)
	ctx := context.Background()
	var scans, maps []float64
	for b.Loop() {
		start := time.Now()
		if _, err := decode.Scan(ctx, t, &decode.ScanOptions{HistBins: views.DefaultHistBins}); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := renderHeatmap(ctx, views.NewTensor(t, nil), 0); err != nil {
			b.Fatal(err)
		}
		scans = append(scans, mid.Sub(start).Seconds()*1e3)
		maps = append(maps, time.Since(mid).Seconds()*1e3)
	}
	ms, mh := median(scans), median(maps)
	b.ReportMetric(ms, "scan-ms")
	b.ReportMetric(mh, "heatmap-ms")
	b.ReportMetric(mh/ms, "ratio")
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
