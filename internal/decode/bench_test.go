package decode

import (
	"context"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// bigBF16 returns a synthetic BF16 tensor of 151936×1024 normal values
// (Qwen3-0.6B's embedding)
// (σ 0.02, with a few NaN and Inf), written once to
// $TMPDIR/fsmount-bench-bf16.bin and reused.
func bigBF16(tb testing.TB) (*tensor.Tensor, string) {
	tb.Helper()
	t := testmodel.BigBF16(tb, "fsmount-bench-bf16.bin", []uint64{151936, 1024}, 11, func(i uint64, r *rand.Rand) float32 {
		x := float32(r.NormFloat64() * 0.02)
		switch i % 10000019 {
		case 3:
			x = float32(math.NaN())
		case 5:
			x = float32(math.Inf(1))
		}
		return x
	})
	return t, t.File.Name()
}

func benchScan(b *testing.B, opts *ScanOptions) {
	t, _ := bigBF16(b)
	b.SetBytes(t.Length)
	b.ResetTimer()
	for b.Loop() {
		if _, err := Scan(context.Background(), t, opts); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkScanBF16(b *testing.B)       { benchScan(b, nil) }
func BenchmarkScanBF16Hist(b *testing.B)   { benchScan(b, &ScanOptions{HistBins: 64}) }
func BenchmarkScanBF16SHA256(b *testing.B) { benchScan(b, &ScanOptions{HistBins: 64, SHA256: true}) }
func BenchmarkScanBF16OneCore(b *testing.B) {
	benchScan(b, &ScanOptions{Workers: 1})
}

// TestBigAgainstNumpy compares the 155M-element tensor with numpy to
// 1e-9; it writes a 311 MB file, so it runs only with FSMOUNT_BIG=1.
func TestBigAgainstNumpy(t *testing.T) {
	if os.Getenv("FSMOUNT_BIG") == "" {
		t.Skip("SKIP: set FSMOUNT_BIG=1 to compare a 155M-element tensor with numpy")
	}
	py := testmodel.Numpy(t)
	tt, path := bigBF16(t)
	got, err := Scan(context.Background(), tt, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := numpyStats(t, py, path, tensor.BF16)
	t.Logf("numpy: %.3f s, %.3f GB/s; mean %.17g std %.17g; ours mean %.17g std %.17g", m["seconds"], m["gbps"], m["mean"], m["std"], got.Mean, got.Std)
	compareStats(t, "big BF16", got, fromNumpy(m), 1e-9)
}

// BenchmarkScanF32Mem scans 64 MiB of F32 held in memory: the per-block
// moments path, whose histogram needs the second pass.
func BenchmarkScanF32Mem(b *testing.B) {
	r := rand.New(rand.NewPCG(13, 14))
	raw := make([]byte, 64<<20)
	for i := 0; i < len(raw); i += 4 {
		binary.LittleEndian.PutUint32(raw[i:], math.Float32bits(float32(r.NormFloat64())))
	}
	t := testmodel.MemTensor("x", tensor.F32, []uint64{uint64(len(raw) / 4)}, raw)
	for _, bins := range []int{0, 64} {
		b.Run(map[int]string{0: "stats", 64: "stats+hist"}[bins], func(b *testing.B) {
			b.SetBytes(t.Length)
			for b.Loop() {
				if _, err := Scan(context.Background(), t, &ScanOptions{HistBins: bins}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkScanGGUF dequantizes and reduces 32M elements of Q4_K and of
// Q6_K held in memory (random quants, a sane scale per block): the
// throughput fsinspect --scan has on a GGUF file, reported in GB/s of
// float32 output.
func BenchmarkScanGGUF(b *testing.B) {
	const n = 32 << 20
	for _, c := range []struct {
		dt    tensor.DType
		scale []int // byte offsets of the block's f16 scales
	}{{tensor.Q4_K, []int{0, 2}}, {tensor.Q6_K, []int{208}}} {
		b.Run(c.dt.String(), func(b *testing.B) {
			r := rand.New(rand.NewPCG(21, 22))
			bb := int(c.dt.BlockBytes())
			raw := make([]byte, n/int(c.dt.BlockElems())*bb)
			for i := range raw {
				raw[i] = byte(r.Uint32())
			}
			for blk := 0; blk < len(raw); blk += bb {
				for _, o := range c.scale {
					binary.LittleEndian.PutUint16(raw[blk+o:], 0x2c00) // 1/16
				}
			}
			t := testmodel.MemTensor("q", c.dt, []uint64{n}, raw)
			b.ResetTimer()
			for b.Loop() {
				if _, err := Scan(context.Background(), t, nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n*4)*float64(b.N)/1e9/b.Elapsed().Seconds(), "GB/s-f32")
		})
	}
}
