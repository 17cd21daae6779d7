package render

import (
	"bufio"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/fsmount/fsmount/decode"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
	"github.com/fsmount/fsmount/views"
)

// bigRows × bigCols is Qwen3-0.6B's embedding: 311 MB of BF16.
const bigRows, bigCols = 151936, 1024

// bigBF16 returns a synthetic BF16 [151936, 1024] tensor of normal values
// (σ 0.02), written once to $TMPDIR/fsmount-render-bench-bf16.bin and
// reused.
func bigBF16(tb testing.TB) *tensor.Tensor {
	tb.Helper()
	const n = bigRows * bigCols
	path := filepath.Join(os.TempDir(), "fsmount-render-bench-bf16.bin")
	if st, err := os.Stat(path); err != nil || st.Size() != 2*n {
		f, err := os.Create(path + ".tmp")
		if err != nil {
			tb.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		r := rand.New(rand.NewPCG(21, 22))
		var b [2]byte
		for range n {
			binary.LittleEndian.PutUint16(b[:], uint16(math.Float32bits(float32(r.NormFloat64()*0.02))>>16))
			w.Write(b[:])
		}
		if err := w.Flush(); err != nil {
			tb.Fatal(err)
		}
		f.Close()
		if err := os.Rename(path+".tmp", path); err != nil {
			tb.Fatal(err)
		}
	}
	f, err := source.OpenLocal(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return &tensor.Tensor{Name: "model.embed_tokens.weight", DType: tensor.BF16, Shape: []uint64{bigRows, bigCols}, File: f, Length: 2 * n}
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
		if _, err := RenderHeatmap(context.Background(), s, 0); err != nil {
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
		if _, err := RenderHeatmap(ctx, views.NewTensor(t, nil), 0); err != nil {
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
