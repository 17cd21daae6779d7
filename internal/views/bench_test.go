package views

import (
	"math/rand/v2"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// benchView reads a view of a 4096×4096 tensor sequentially in 128 KiB
// reads, as the kernel does; MB/s are of the view's bytes.
func benchView(b *testing.B, dt tensor.DType, pick func(*Tensor) View) {
	r := rand.New(rand.NewPCG(1, 1))
	n := 4096 * 4096
	size, _ := dt.ByteSize(uint64(n))
	raw := make([]byte, size)
	for i := 0; i < len(raw); i += 2 {
		// Plausible BF16 weights: sign, exponent near 2^-6, random mantissa.
		raw[i] = byte(r.Uint32())
		raw[i+1] = 0x3c | byte(r.Uint32()&0x80)
	}
	v := pick(NewTensor(testmodel.MemTensor("w", dt, []uint64{4096, 4096}, raw), nil))
	p := make([]byte, 128<<10)
	b.SetBytes(v.Size())
	for b.Loop() {
		for off := int64(0); off < v.Size(); off += int64(len(p)) {
			if _, err := v.ReadAt(p, off); err != nil && off+int64(len(p)) < v.Size() {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkValuesBF16(b *testing.B) {
	benchView(b, tensor.BF16, func(v *Tensor) View { return v.Values() })
}
func BenchmarkValuesF32FromBF16(b *testing.B) {
	benchView(b, tensor.BF16, func(v *Tensor) View { return v.ValuesF32() })
}
func BenchmarkNPYFromBF16(b *testing.B) {
	benchView(b, tensor.BF16, func(v *Tensor) View { return v.NPY() })
}
