package decode

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fsmount/fsmount/tensor"
)

func i32Tensor(name string, shape []uint64, words []uint32) *tensor.Tensor {
	var b []byte
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return memTensor(name, tensor.I32, shape, b)
}

func f32Tensor(name string, shape []uint64, vals []float32) *tensor.Tensor {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return memTensor(name, tensor.F32, shape, b)
}

// gptqLayer packs random codes, zeros and scales the way AutoGPTQ's pack
// does (LSB-first, qweight along the input, qzeros along the output, v1
// zeros stored minus one) and returns the layer and its expected W.
func gptqLayer(r *rand.Rand, bits, in, out, gs int, v1, shuffle bool) (GPTQ, []float32) {
	pf := 32 / bits
	mask := 1<<bits - 1
	ng := (in + gs - 1) / gs
	q := make([]int, in*out) // [i][o]
	for k := range q {
		q[k] = r.IntN(mask + 1)
	}
	z := make([]int, ng*out)
	for k := range z {
		z[k] = r.IntN(mask + 1)
	}
	sc := make([]float32, ng*out)
	for k := range sc {
		sc[k] = float32(math.Ldexp(1+float64(r.IntN(64))/64, -r.IntN(8)))
	}
	gidx := make([]uint32, in)
	for i := range gidx {
		gidx[i] = uint32(i / gs)
	}
	if shuffle {
		r.Shuffle(in, func(a, b int) { gidx[a], gidx[b] = gidx[b], gidx[a] })
	}
	qw := make([]uint32, in/pf*out)
	for i := range in {
		for o := range out {
			qw[(i/pf)*out+o] |= uint32(q[i*out+o]) << (bits * (i % pf))
		}
	}
	zc := (out + pf - 1) / pf
	qz := make([]uint32, ng*zc)
	for g := range ng {
		for o := range out {
			stored := z[g*out+o]
			if v1 {
				stored = (stored - 1) & mask
			}
			qz[g*zc+o/pf] |= uint32(stored) << (bits * (o % pf))
		}
	}
	w := make([]float32, out*in)
	for o := range out {
		for i := range in {
			g := int(gidx[i])
			w[o*in+i] = sc[g*out+o] * float32(q[i*out+o]-z[g*out+o])
		}
	}
	layer := GPTQ{
		QWeight:   i32Tensor("qweight", []uint64{uint64(in / pf), uint64(out)}, qw),
		QZeros:    i32Tensor("qzeros", []uint64{uint64(ng), uint64(zc)}, qz),
		Scales:    f32Tensor("scales", []uint64{uint64(ng), uint64(out)}, sc),
		GIdx:      i32Tensor("g_idx", []uint64{uint64(in)}, gidx),
		Bits:      bits,
		GroupSize: gs,
		V1:        v1,
	}
	return layer, w
}

func checkDecoder(t *testing.T, what string, d *Decoder, want []float32, r *rand.Rand) {
	t.Helper()
	got := make([]float32, d.Len())
	if err := d.Float32(0, got); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	for k := range want {
		if got[k] != want[k] {
			t.Fatalf("%s: element %d = %v, want %v", what, k, got[k], want[k])
		}
	}
	for range 50 {
		s := r.Uint64N(d.Len())
		m := r.Uint64N(d.Len() - s + 1)
		part := make([]float32, m)
		if err := d.Float32(s, part); err != nil {
			t.Fatal(err)
		}
		for k := range part {
			if part[k] != want[s+uint64(k)] {
				t.Fatalf("%s: range [%d+%d] = %v, want %v", what, s, k, part[k], want[s+uint64(k)])
			}
		}
	}
	st, err := d.Scan(context.Background(), &ScanOptions{HistBins: 8, SHA256: true})
	if err != nil {
		t.Fatal(err)
	}
	compareStats(t, what, st, naive(t, d, 8), 1e-12)
	raw := make([]byte, d.t.Length)
	d.t.File.ReadAt(raw, d.t.Offset)
	if sum := sha256.Sum256(raw); string(st.SHA256) != string(sum[:]) {
		t.Errorf("%s: digest is not of the packed bytes", what)
	}
}

func TestGPTQ(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, bits := range []int{2, 4, 8} {
		for _, v1 := range []bool{true, false} {
			layer, want := gptqLayer(r, bits, 64, 24, 16, v1, bits == 4)
			d, err := NewGPTQ(layer)
			if err != nil {
				t.Fatal(err)
			}
			if s := d.Shape(); s[0] != 24 || s[1] != 64 || d.ValueType() != tensor.F32 {
				t.Fatalf("shape %v type %s", s, d.ValueType())
			}
			checkDecoder(t, "gptq", d, want, r)
		}
	}
	// The reference's packing example: 0..7 along 8 input rows.
	var word uint32
	for j := range 8 {
		word |= uint32(j) << (4 * j)
	}
	if word != 0x76543210 {
		t.Fatalf("pack example %#x", word)
	}
	// Without g_idx, groups are i / group size.
	layer, want := gptqLayer(r, 4, 32, 8, 8, true, false)
	layer.GIdx = nil
	d, err := NewGPTQ(layer)
	if err != nil {
		t.Fatal(err)
	}
	checkDecoder(t, "gptq no g_idx", d, want, r)
	layer.Bits = 3
	if _, err := NewGPTQ(layer); !errors.Is(err, ErrUnsupported) {
		t.Errorf("3-bit: %v", err)
	}
	layer.Bits = 4
	layer.QZeros = i32Tensor("qzeros", []uint64{3, 1}, make([]uint32, 3))
	var se *ShapeError
	if _, err := NewGPTQ(layer); !errors.As(err, &se) {
		t.Errorf("bad qzeros: %v", err)
	}
	// A g_idx naming a group that does not exist is an error on read.
	layer, _ = gptqLayer(r, 4, 32, 8, 8, true, false)
	layer.GIdx = i32Tensor("g_idx", []uint64{32}, append(make([]uint32, 31), 9))
	if d, err = NewGPTQ(layer); err != nil {
		t.Fatal(err)
	}
	if err := d.Float32(0, make([]float32, 8)); !errors.As(err, &se) {
		t.Errorf("bad g_idx: %v", err)
	}
}

func TestAWQ(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	const in, out, gs = 32, 24, 8
	order := [8]int{0, 2, 4, 6, 1, 3, 5, 7} // slot i holds column order[i]
	pack := func(vals []int, rows int) []uint32 {
		words := make([]uint32, rows*out/8)
		for row := range rows {
			for c := range out / 8 {
				for slot := range 8 {
					words[row*out/8+c] |= uint32(vals[row*out+c*8+order[slot]]) << (4 * slot)
				}
			}
		}
		return words
	}
	q := make([]int, in*out)
	for k := range q {
		q[k] = r.IntN(16)
	}
	z := make([]int, in/gs*out)
	for k := range z {
		z[k] = r.IntN(16)
	}
	sc := make([]float32, in/gs*out)
	for k := range sc {
		sc[k] = float32(r.IntN(100)+1) / 128
	}
	want := make([]float32, out*in)
	for o := range out {
		for i := range in {
			want[o*in+i] = sc[i/gs*out+o] * float32(q[i*out+o]-z[i/gs*out+o])
		}
	}
	layer := AWQ{
		QWeight:   i32Tensor("qweight", []uint64{in, out / 8}, pack(q, in)),
		QZeros:    i32Tensor("qzeros", []uint64{in / gs, out / 8}, pack(z, in/gs)),
		Scales:    f32Tensor("scales", []uint64{in / gs, out}, sc),
		GroupSize: gs,
	}
	d, err := NewAWQ(layer)
	if err != nil {
		t.Fatal(err)
	}
	checkDecoder(t, "awq", d, want, r)
	// The reference's example: columns 0..7 holding 0..7 pack to 0x75316420.
	ex := make([]int, out)
	for j := range 8 {
		ex[j] = j
	}
	if w := pack(append(ex, make([]int, 0)...), 1)[0]; w != 0x75316420 {
		t.Errorf("AWQ pack example %#x", w)
	}
	layer.GroupSize = 5
	if _, err := NewAWQ(layer); err == nil {
		t.Error("group size not dividing in accepted")
	}
}

// TestScanScaled checks the statistics of an FP8 weight with block scales
// are those of the dequantized values.
func TestScanScaled(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 26))
	w := memTensor("w", tensor.F8_E4M3, []uint64{300, 70}, randBytes(r, 300*70))
	sv := make([]float32, 3*3)
	for i := range sv {
		sv[i] = float32(i+1) * 1e-3
	}
	d, err := NewScaled(w, f32Tensor("s", []uint64{3, 3}, sv), [2]uint64{128, 32})
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Scan(context.Background(), &ScanOptions{ChunkBytes: 1000, HistBins: 8})
	if err != nil {
		t.Fatal(err)
	}
	compareStats(t, "scaled", got, naive(t, d, 8), 1e-12)
	if got.DType != tensor.F32 {
		t.Errorf("stats type %s", got.DType)
	}
}
