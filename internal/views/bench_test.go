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
	benchRead(b, v)
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

// BenchmarkNPYFromW4A16 reads values.npy of a compressed-tensors W4A16
// (group 128, BF16 scales) 4096×4096 weight: its 8 MiB of codes
// dequantized into 64 MiB of float32, as the bench row asks
// (numpy unpacking the same bytes is the peer).
func BenchmarkNPYFromW4A16(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n = 4096
	packed := make([]byte, n*n/2)
	for i := range packed {
		packed[i] = byte(r.Uint32())
	}
	scales := make([]float32, n*n/128)
	for i := range scales {
		scales[i] = r.Float32() / 64
	}
	w := testmodel.MemTensor("l.weight_packed", tensor.I32, []uint64{n, n / 8}, packed)
	sc := testmodel.MemTensor("l.weight_scale", tensor.BF16, []uint64{n, n / 128}, bf16Bytes(scales))
	shape := testmodel.MemTensor("l.weight_shape", tensor.I64, []uint64{2}, []byte{0, 16, 0, 0, 0, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0})
	c := NewCompanions(lookupOf(w, sc, shape), []byte(`{"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
		"config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 128}}}}}`))
	opts := c.Options(w)
	if opts == nil {
		b.Fatal("not dequantized")
	}
	v := NewTensor(w, opts).NPY()
	benchRead(b, v)
}

// benchRead reads v whole per iteration, 128 KiB at a time, as a reader
// of the mount's file does.
func benchRead(b *testing.B, v interface {
	Size() int64
	ReadAt(p []byte, off int64) (int, error)
}) {
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
