package decode

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fsmount/fsmount/tensor"
)

// fakeQ8 stands in for a ggml block decoder: Q8_0 blocks of 34 bytes,
// an F16 scale then 32 int8 codes.
func fakeQ8(dt tensor.DType, src []byte, dst []float32) error {
	if dt != tensor.Q8_0 {
		return &UnsupportedError{DType: dt, Reason: "fake decodes Q8_0 only"}
	}
	for b := 0; b*34 < len(src); b++ {
		blk := src[b*34 : b*34+34]
		var d [1]float32
		if _, err := Float32(tensor.F16, blk[:2], d[:]); err != nil {
			return err
		}
		for i := range 32 {
			dst[b*32+i] = d[0] * float32(int8(blk[2+i]))
		}
	}
	return nil
}

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// TestRandomAccess checks that any range decodes to the same values as
// the whole tensor, for byte, sub-byte, wide and block types.
func TestRandomAccess(t *testing.T) {
	if err := Register(tensor.Q8_0, fakeQ8); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, dt := range []tensor.DType{tensor.BF16, tensor.F4, tensor.F6_E3M2, tensor.F8_E4M3, tensor.F64, tensor.I64, tensor.Q8_0} {
		n := uint64(32 * 37)
		size, _ := dt.ByteSize(n)
		tt := memTensor("x", dt, []uint64{37, 32}, randBytes(r, int(size)))
		d, err := NewDecoder(tt)
		if err != nil {
			t.Fatal(err)
		}
		raw, err := d.Raw(0, n)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]float32, n)
		if _, err := Float32(dt, raw, all); err != nil {
			t.Fatal(err)
		}
		all64 := make([]float64, n)
		if err := d.Float64(0, all64); err != nil {
			t.Fatal(err)
		}
		for range 200 {
			s := r.Uint64N(n + 1)
			m := r.Uint64N(n - s + 1)
			got := make([]float32, m)
			if err := d.Float32(s, got); err != nil {
				t.Fatalf("%s [%d,+%d): %v", dt, s, m, err)
			}
			got64 := make([]float64, m)
			if err := d.Float64(s, got64); err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if !sameValue(float64(got[i]), float64(all[s+uint64(i)])) || !sameValue(got64[i], all64[s+uint64(i)]) {
					t.Fatalf("%s element %d: range gives %v/%v, whole %v/%v", dt, s+uint64(i), got[i], got64[i], all[s+uint64(i)], all64[s+uint64(i)])
				}
			}
		}
		if err := d.Float32(n, make([]float32, 1)); err == nil {
			t.Errorf("%s: read past the end succeeded", dt)
		}
	}
}

func TestShortRead(t *testing.T) {
	tt := memTensor("x", tensor.F32, []uint64{100}, make([]byte, 400))
	tt.File.(*memFile).FailAt = 200
	d, err := NewDecoder(tt)
	if err != nil {
		t.Fatal(err)
	}
	var se *ShortReadError
	if err := d.Float32(0, make([]float32, 100)); !errors.As(err, &se) || !errors.Is(err, errInjected) {
		t.Errorf("short read: %v", err)
	}
	if err := d.Float32(0, make([]float32, 10)); err != nil {
		t.Errorf("read before the fault: %v", err)
	}
}

// TestScaled dequantizes an FP8 weight with partial edge blocks against
// the formula computed element by element.
func TestScaled(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const N, K, bn, bk = 7, 10, 3, 4
	wb := randBytes(r, N*K)
	for _, sdt := range []tensor.DType{tensor.F32, tensor.BF16} {
		sn, sk := (N+bn-1)/bn, (K+bk-1)/bk
		scales := make([]float32, sn*sk)
		var sb []byte
		for i := range scales {
			f := float32(math.Ldexp(1+float64(i)/8, -i%5))
			scales[i] = f
			if sdt == tensor.F32 {
				sb = binary.LittleEndian.AppendUint32(sb, math.Float32bits(f))
			} else {
				sb = binary.LittleEndian.AppendUint16(sb, uint16(math.Float32bits(f)>>16))
			}
		}
		w := memTensor("w", tensor.F8_E4M3, []uint64{N, K}, wb)
		s := memTensor("w_scale_inv", sdt, []uint64{uint64(sn), uint64(sk)}, sb)
		d, err := NewScaled(w, s, [2]uint64{bn, bk})
		if err != nil {
			t.Fatal(err)
		}
		if d.ValueType() != tensor.F32 || !d.Dequantized() {
			t.Errorf("value type %s", d.ValueType())
		}
		got := make([]float32, N*K)
		if err := d.Float32(0, got); err != nil {
			t.Fatal(err)
		}
		for i := range N {
			for j := range K {
				q := refValue(tensor.F8_E4M3, int(wb[i*K+j]))
				want := float32(q) * scales[(i/bn)*sk+j/bk]
				if !sameValue(float64(got[i*K+j]), float64(want)) {
					t.Fatalf("%s scale: [%d,%d] = %v, want %v", sdt, i, j, got[i*K+j], want)
				}
			}
		}
		// A range starting mid-row.
		part := make([]float32, 13)
		if err := d.Float32(17, part); err != nil {
			t.Fatal(err)
		}
		for i, v := range part {
			if !sameValue(float64(v), float64(got[17+i])) {
				t.Fatalf("range [17+%d] = %v, want %v", i, v, got[17+i])
			}
		}
	}
	var se *ShapeError
	w := memTensor("w", tensor.F8_E4M3, []uint64{N, K}, wb)
	if _, err := NewScaled(w, memTensor("s", tensor.F32, []uint64{2, 3}, make([]byte, 24)), [2]uint64{bn, bk}); !errors.As(err, &se) {
		t.Errorf("wrong scale shape: %v", err)
	}
	if _, err := NewScaled(w, memTensor("s", tensor.F32, []uint64{3, 3}, make([]byte, 36)), [2]uint64{0, bk}); !errors.As(err, &se) {
		t.Errorf("zero block: %v", err)
	}
}

func TestWithRows(t *testing.T) {
	raw := make([]byte, 4*12)
	for i := range 12 {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(i)))
	}
	d, err := NewDecoder(memTensor("m", tensor.F32, []uint64{4, 3}, raw))
	if err != nil {
		t.Fatal(err)
	}
	perm := []uint64{2, 0, 3, 1}
	p := d.WithRows(func(r uint64) uint64 { return perm[r] })
	got := make([]float32, 12)
	if err := p.Float32(0, got); err != nil {
		t.Fatal(err)
	}
	want := []float32{6, 7, 8, 0, 1, 2, 9, 10, 11, 3, 4, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	part := make([]float32, 5)
	if err := p.Float32(2, part); err != nil {
		t.Fatal(err)
	}
	for i := range part {
		if part[i] != want[2+i] {
			t.Fatalf("from 2: got %v, want %v", part, want[2:7])
		}
	}
	f64 := make([]float64, 4)
	if err := p.Float64(4, f64); err != nil || f64[0] != 1 || f64[3] != 10 {
		t.Fatalf("Float64: %v %v", f64, err)
	}
}
