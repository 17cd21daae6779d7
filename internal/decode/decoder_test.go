package decode

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, Register(tensor.Q8_0, fakeQ8))
	r := rand.New(rand.NewPCG(1, 2))
	for _, dt := range []tensor.DType{tensor.BF16, tensor.F4, tensor.F6_E3M2, tensor.F8_E4M3, tensor.F64, tensor.I64, tensor.Q8_0} {
		n := uint64(32 * 37)
		size, _ := dt.ByteSize(n)
		tt := testmodel.MemTensor("x", dt, []uint64{37, 32}, randBytes(r, int(size)))
		d, err := NewDecoder(tt)
		require.NoError(t, err)
		raw, err := d.Raw(0, n)
		require.NoError(t, err)
		all := make([]float32, n)
		if _, err := Float32(dt, raw, all); err != nil {
			t.Fatal(err)
		}
		all64 := make([]float64, n)
		require.NoError(t, d.Float64(0, all64))
		for range 200 {
			s := r.Uint64N(n + 1)
			m := r.Uint64N(n - s + 1)
			got := make([]float32, m)
			if err := d.Float32(s, got); err != nil {
				t.Fatalf("%s [%d,+%d): %v", dt, s, m, err)
			}
			got64 := make([]float64, m)
			require.NoError(t, d.Float64(s, got64))
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
	tt := testmodel.MemTensor("x", tensor.F32, []uint64{100}, make([]byte, 400))
	tt.File.(*testmodel.MemFile).FailAt = 200
	d, err := NewDecoder(tt)
	require.NoError(t, err)
	var se *ShortReadError
	if err := d.Float32(0, make([]float32, 100)); !errors.As(err, &se) || !errors.Is(err, testmodel.ErrInjected) {
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
		w := testmodel.MemTensor("w", tensor.F8_E4M3, []uint64{N, K}, wb)
		s := testmodel.MemTensor("w_scale_inv", sdt, []uint64{uint64(sn), uint64(sk)}, sb)
		d, err := NewScaled(w, s, [2]uint64{bn, bk})
		require.NoError(t, err)
		if d.ValueType() != tensor.F32 || !d.Dequantized() {
			t.Errorf("value type %s", d.ValueType())
		}
		got := make([]float32, N*K)
		require.NoError(t, d.Float32(0, got))
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
		require.NoError(t, d.Float32(17, part))
		for i, v := range part {
			if !sameValue(float64(v), float64(got[17+i])) {
				t.Fatalf("range [17+%d] = %v, want %v", i, v, got[17+i])
			}
		}
	}
	var se *ShapeError
	w := testmodel.MemTensor("w", tensor.F8_E4M3, []uint64{N, K}, wb)
	if _, err := NewScaled(w, testmodel.MemTensor("s", tensor.F32, []uint64{2, 3}, make([]byte, 24)), [2]uint64{bn, bk}); !errors.As(err, &se) {
		t.Errorf("wrong scale shape: %v", err)
	}
	if _, err := NewScaled(w, testmodel.MemTensor("s", tensor.F32, []uint64{3, 3}, make([]byte, 36)), [2]uint64{0, bk}); !errors.As(err, &se) {
		t.Errorf("zero block: %v", err)
	}
}

func TestWithRows(t *testing.T) {
	raw := make([]byte, 4*12)
	for i := range 12 {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(i)))
	}
	d, err := NewDecoder(testmodel.MemTensor("m", tensor.F32, []uint64{4, 3}, raw))
	require.NoError(t, err)
	perm := []uint64{2, 0, 3, 1}
	p := d.WithRows(func(r uint64) uint64 { return perm[r] })
	got := make([]float32, 12)
	require.NoError(t, p.Float32(0, got))
	want := []float32{6, 7, 8, 0, 1, 2, 9, 10, 11, 3, 4, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	part := make([]float32, 5)
	require.NoError(t, p.Float32(2, part))
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

func i32Tensor(name string, shape []uint64, words []uint32) *tensor.Tensor {
	var b []byte
	for _, w := range words {
		b = binary.LittleEndian.AppendUint32(b, w)
	}
	return testmodel.MemTensor(name, tensor.I32, shape, b)
}

func f32Tensor(name string, shape []uint64, vals []float32) *tensor.Tensor {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return testmodel.MemTensor(name, tensor.F32, shape, b)
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
		require.NoError(t, d.Float32(s, part))
		for k := range part {
			if part[k] != want[s+uint64(k)] {
				t.Fatalf("%s: range [%d+%d] = %v, want %v", what, s, k, part[k], want[s+uint64(k)])
			}
		}
	}
	st, err := d.Scan(context.Background(), &ScanOptions{HistBins: 8, SHA256: true})
	require.NoError(t, err)
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
			require.NoError(t, err)
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
	require.NoError(t, err)
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
	require.NoError(t, err)
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
	w := testmodel.MemTensor("w", tensor.F8_E4M3, []uint64{300, 70}, randBytes(r, 300*70))
	sv := make([]float32, 3*3)
	for i := range sv {
		sv[i] = float32(i+1) * 1e-3
	}
	d, err := NewScaled(w, f32Tensor("s", []uint64{3, 3}, sv), [2]uint64{128, 32})
	require.NoError(t, err)
	got, err := d.Scan(context.Background(), &ScanOptions{ChunkBytes: 1000, HistBins: 8})
	require.NoError(t, err)
	compareStats(t, "scaled", got, naive(t, d, 8), 1e-12)
	if got.DType != tensor.F32 {
		t.Errorf("stats type %s", got.DType)
	}
}

// A computed decoder's values come from its function, by flat index; it
// scans (statistics, histogram) like a stored tensor, and refuses what
// needs bytes.
func TestComputed(t *testing.T) {
	fn := func(start uint64, dst []float32) error {
		for i := range dst {
			dst[i] = float32(start + uint64(i))
		}
		return nil
	}
	d, err := NewComputed("delta", []uint64{300, 7}, fn)
	require.NoError(t, err)
	assert.True(t, d.Computed())
	assert.True(t, d.Dequantized())
	assert.Equal(t, []uint64{300, 7}, d.Shape())
	v := make([]float64, 3)
	require.NoError(t, d.Float64(100, v))
	assert.Equal(t, []float64{100, 101, 102}, v)
	assert.Error(t, d.Float32(2099, make([]float32, 2)), "past the end")

	s, err := d.Scan(context.Background(), &ScanOptions{HistBins: 4})
	require.NoError(t, err)
	assert.Equal(t, uint64(2100), s.Count)
	assert.Equal(t, 0.0, s.Min)
	assert.Equal(t, 2099.0, s.Max)
	assert.InDelta(t, 1049.5, s.Mean, 1e-9)
	require.NotNil(t, s.Hist)
	assert.Equal(t, uint64(2100), s.Hist.Counts[0]+s.Hist.Counts[1]+s.Hist.Counts[2]+s.Hist.Counts[3])

	_, err = d.Raw(0, 7)
	assert.ErrorIs(t, err, ErrUnsupported)
	_, err = d.Scan(context.Background(), &ScanOptions{SHA256: true})
	assert.ErrorIs(t, err, ErrUnsupported)

	boom := errors.New("boom")
	e, err := NewComputed("bad", []uint64{4}, func(uint64, []float32) error { return boom })
	require.NoError(t, err)
	_, err = e.Scan(context.Background(), nil)
	assert.ErrorIs(t, err, boom)

	_, err = NewComputed("huge", []uint64{math.MaxUint32, math.MaxUint32, 4}, fn)
	assert.Error(t, err)
}
