package render

import (
	"bufio"
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

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
