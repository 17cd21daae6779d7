package decode

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os/exec"
	"strconv"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// refFormat is a format's definition, written out independently of the
// code under test: the value of a code is computed with math.Ldexp.
type refFormat struct {
	bits, e, m, bias int
	inf              bool // IEEE: top exponent is Inf / NaN
	nanAllOnes       bool // fn: S.1..1.1..1 is NaN
	nanNegZero       bool // fnuz: 1.0..0.0..0 is NaN
}

var refFormats = map[tensor.DType]refFormat{
	tensor.BF16:        {16, 8, 7, 127, true, false, false},
	tensor.F16:         {16, 5, 10, 15, true, false, false},
	tensor.F8_E5M2:     {8, 5, 2, 15, true, false, false},
	tensor.F8_E4M3:     {8, 4, 3, 7, false, true, false},
	tensor.F8_E4M3FNUZ: {8, 4, 3, 8, false, false, true},
	tensor.F8_E5M2FNUZ: {8, 5, 2, 16, false, false, true},
	tensor.F6_E2M3:     {6, 2, 3, 1, false, false, false},
	tensor.F6_E3M2:     {6, 3, 2, 3, false, false, false},
	tensor.F4:          {4, 2, 1, 1, false, false, false},
}

func (f refFormat) value(code int) float64 {
	s := code >> (f.e + f.m) & 1
	ex := code >> f.m & (1<<f.e - 1)
	man := code & (1<<f.m - 1)
	maxE, maxM := 1<<f.e-1, 1<<f.m-1
	switch {
	case f.inf && ex == maxE && man == 0:
		return math.Inf(1 - 2*s)
	case f.inf && ex == maxE, f.nanAllOnes && ex == maxE && man == maxM, f.nanNegZero && code == 1<<(f.bits-1):
		return math.NaN()
	}
	var v float64
	if ex == 0 {
		v = math.Ldexp(float64(man), 1-f.bias-f.m)
	} else {
		v = math.Ldexp(float64(man+1<<f.m), ex-f.bias-f.m)
	}
	if s == 1 {
		v = math.Copysign(v, -1)
	}
	return v
}

func refValue(dt tensor.DType, code int) float64 {
	if dt == tensor.F8_E8M0 {
		if code == 0xff {
			return math.NaN()
		}
		return math.Ldexp(1, code-127)
	}
	return refFormats[dt].value(code)
}

func sameValue(got, want float64) bool {
	if math.IsNaN(want) {
		return math.IsNaN(got)
	}
	return got == want && math.Signbit(got) == math.Signbit(want)
}

// encodeCodes packs one code per element into the type's bytes.
func encodeCodes(dt tensor.DType, codes []int) []byte {
	switch dt {
	case tensor.F4:
		b := make([]byte, len(codes)/2)
		for i := range b {
			b[i] = byte(codes[2*i]) | byte(codes[2*i+1])<<4
		}
		return b
	case tensor.F6_E2M3, tensor.F6_E3M2:
		b := make([]byte, 0, len(codes)/4*3)
		for i := 0; i+4 <= len(codes); i += 4 {
			v := codes[i] | codes[i+1]<<6 | codes[i+2]<<12 | codes[i+3]<<18
			b = append(b, byte(v), byte(v>>8), byte(v>>16))
		}
		return b
	case tensor.BF16, tensor.F16:
		b := make([]byte, 2*len(codes))
		for i, c := range codes {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(c))
		}
		return b
	}
	b := make([]byte, len(codes))
	for i, c := range codes {
		b[i] = byte(c)
	}
	return b
}

// TestEveryCode decodes every bit pattern of every type of 16 bits or
// fewer, at every position of its packing, to float32 and float64.
func TestEveryCode(t *testing.T) {
	types := []tensor.DType{tensor.BF16, tensor.F16, tensor.F8_E5M2, tensor.F8_E4M3, tensor.F8_E8M0,
		tensor.F8_E4M3FNUZ, tensor.F8_E5M2FNUZ, tensor.F6_E2M3, tensor.F6_E3M2, tensor.F4}
	for _, dt := range types {
		bits := 8
		if f, ok := refFormats[dt]; ok {
			bits = f.bits
		}
		ncodes := 1 << bits
		per := int(dt.BlockElems())
		// Each code at each position in the block: rotate the codes.
		var codes []int
		for shift := range per {
			for c := range ncodes {
				codes = append(codes, (c+shift*7)%ncodes)
			}
		}
		for len(codes)%per != 0 {
			codes = append(codes, 0)
		}
		src := encodeCodes(dt, codes)
		f32 := make([]float32, len(codes))
		f64 := make([]float64, len(codes))
		if n, err := Float32(dt, src, f32); err != nil || n != len(codes) {
			t.Fatalf("%s: Float32 = %d, %v", dt, n, err)
		}
		if n, err := Float64(dt, src, f64); err != nil || n != len(codes) {
			t.Fatalf("%s: Float64 = %d, %v", dt, n, err)
		}
		bad := 0
		for i, c := range codes {
			want := refValue(dt, c)
			if !sameValue(float64(f32[i]), want) || !sameValue(f64[i], want) {
				if bad++; bad < 5 {
					t.Errorf("%s code %#x at %d: got f32 %v f64 %v, want %v", dt, c, i, f32[i], f64[i], want)
				}
			}
		}
	}
}

// TestKnownAnswers checks the reference's known-answer tables.
func TestKnownAnswers(t *testing.T) {
	cases := []struct {
		dt   tensor.DType
		code int
		want float64
	}{
		{tensor.F8_E4M3, 0x01, 0.001953125}, {tensor.F8_E4M3, 0x07, 0.013671875}, {tensor.F8_E4M3, 0x38, 1},
		{tensor.F8_E4M3, 0x7E, 448}, {tensor.F8_E4M3, 0x7F, math.NaN()}, {tensor.F8_E4M3, 0xFE, -448},
		{tensor.F8_E4M3, 0xFF, math.NaN()}, {tensor.F8_E4M3, 0x80, math.Copysign(0, -1)},
		{tensor.F8_E5M2, 0x01, 1.52587890625e-05}, {tensor.F8_E5M2, 0x7B, 57344}, {tensor.F8_E5M2, 0x7C, math.Inf(1)},
		{tensor.F8_E5M2, 0xFC, math.Inf(-1)}, {tensor.F8_E5M2, 0x7D, math.NaN()},
		{tensor.F8_E4M3FNUZ, 0x40, 1}, {tensor.F8_E4M3FNUZ, 0x7F, 240}, {tensor.F8_E4M3FNUZ, 0x80, math.NaN()},
		{tensor.F8_E4M3FNUZ, 0xFF, -240}, {tensor.F8_E4M3FNUZ, 0x01, math.Ldexp(1, -10)},
		{tensor.F8_E5M2FNUZ, 0x3C, 0.5}, {tensor.F8_E5M2FNUZ, 0x7F, 57344}, {tensor.F8_E5M2FNUZ, 0x80, math.NaN()},
		{tensor.F8_E8M0, 0x00, math.Ldexp(1, -127)}, {tensor.F8_E8M0, 0x7F, 1}, {tensor.F8_E8M0, 0xFE, math.Ldexp(1, 127)},
		{tensor.F8_E8M0, 0xFF, math.NaN()},
		{tensor.F6_E2M3, 0x01, 0.125}, {tensor.F6_E2M3, 0x08, 1}, {tensor.F6_E2M3, 0x1F, 7.5}, {tensor.F6_E2M3, 0x3F, -7.5},
		{tensor.F6_E3M2, 0x01, 0.0625}, {tensor.F6_E3M2, 0x0C, 1}, {tensor.F6_E3M2, 0x1F, 28}, {tensor.F6_E3M2, 0x3F, -28},
		{tensor.F4, 0x1, 0.5}, {tensor.F4, 0x5, 3}, {tensor.F4, 0x7, 6}, {tensor.F4, 0xF, -6}, {tensor.F4, 0x8, math.Copysign(0, -1)},
		{tensor.BF16, 0x4049, 3.140625}, {tensor.BF16, 0x7F7F, 3.3895313892515355e38}, {tensor.BF16, 0x0001, 9.183549615799121e-41},
		{tensor.F16, 0x7BFF, 65504}, {tensor.F16, 0x0001, math.Ldexp(1, -24)}, {tensor.F16, 0x3555, 0.333251953125},
	}
	for _, c := range cases {
		per := int(c.dt.BlockElems())
		codes := make([]int, per)
		codes[0] = c.code
		got := make([]float64, per)
		if _, err := Float64(c.dt, encodeCodes(c.dt, codes), got); err != nil {
			t.Fatal(err)
		}
		if !sameValue(got[0], c.want) {
			t.Errorf("%s %#x: got %v, want %v", c.dt, c.code, got[0], c.want)
		}
	}
	// F4 packing: byte 0xC3 is [1.5, -2.0].
	got := make([]float32, 2)
	if _, err := Float32(tensor.F4, []byte{0xC3}, got); err != nil || got[0] != 1.5 || got[1] != -2 {
		t.Errorf("F4 0xC3 = %v, %v; want [1.5 -2]", got, err)
	}
	// E8M0 0x00 is the float32 subnormal 2^-127.
	if _, err := Float32(tensor.F8_E8M0, []byte{0}, got[:1]); err != nil || math.Float32bits(got[0]) != 0x00400000 {
		t.Errorf("E8M0 0x00 = %#x, %v", math.Float32bits(got[0]), err)
	}
}

// TestF16AgainstNumpy compares every F16 pattern, NaN payloads included,
// with numpy's float16 → float32 conversion.
func TestF16AgainstNumpy(t *testing.T) {
	py := testmodel.Numpy(t)
	script := `import numpy as np, sys
a = np.arange(65536, dtype=np.uint32).astype(np.uint16).view(np.float16).astype(np.float32).view(np.uint32)
sys.stdout.write("\n".join("%08x" % v for v in a.tolist()) + "\n")`
	out, err := exec.Command(py, "-c", script).Output()
	if err != nil {
		t.Fatal(err)
	}
	codes := make([]int, 65536)
	for i := range codes {
		codes[i] = i
	}
	got := make([]float32, 65536)
	if _, err := Float32(tensor.F16, encodeCodes(tensor.F16, codes), got); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	i, bad := 0, 0
	for ; sc.Scan(); i++ {
		want, err := strconv.ParseUint(sc.Text(), 16, 32)
		if err != nil {
			t.Fatal(err)
		}
		if g := math.Float32bits(got[i]); uint64(g) != want {
			if bad++; bad < 5 {
				t.Errorf("F16 %#04x: got bits %#08x, numpy %#08x", i, g, want)
			}
		}
	}
	if i != 65536 {
		t.Fatalf("numpy printed %d values", i)
	}
}

func TestIntegersAndWide(t *testing.T) {
	le := binary.LittleEndian
	cases := []struct {
		dt   tensor.DType
		raw  []byte
		want []float64
	}{
		{tensor.BOOL, []byte{0, 1, 2, 255}, []float64{0, 1, 1, 1}},
		{tensor.U8, []byte{0, 1, 255}, []float64{0, 1, 255}},
		{tensor.I8, []byte{0, 0x7f, 0x80, 0xff}, []float64{0, 127, -128, -1}},
		{tensor.I16, le.AppendUint16(le.AppendUint16(nil, 0x8000), 0x7fff), []float64{-32768, 32767}},
		{tensor.U16, le.AppendUint16(nil, 0xffff), []float64{65535}},
		{tensor.I32, le.AppendUint32(le.AppendUint32(nil, 0x80000000), 5), []float64{-2147483648, 5}},
		{tensor.U32, le.AppendUint32(nil, 0xffffffff), []float64{4294967295}},
		{tensor.I64, le.AppendUint64(nil, 1<<63), []float64{-9223372036854775808}},
		{tensor.U64, le.AppendUint64(nil, 1<<53+1), []float64{1 << 53}}, // rounded, documented
		{tensor.F32, le.AppendUint32(nil, 0x00000001), []float64{math.Ldexp(1, -149)}},
		{tensor.F64, le.AppendUint64(nil, math.Float64bits(-0.1)), []float64{-0.1}},
	}
	for _, c := range cases {
		got := make([]float64, len(c.want))
		if n, err := Float64(c.dt, c.raw, got); err != nil || n != len(c.want) {
			t.Fatalf("%s: %d, %v", c.dt, n, err)
		}
		g32 := make([]float32, len(c.want))
		if _, err := Float32(c.dt, c.raw, g32); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if !sameValue(got[i], c.want[i]) || !sameValue(float64(g32[i]), float64(float32(c.want[i]))) {
				t.Errorf("%s[%d]: got %v / %v, want %v", c.dt, i, got[i], g32[i], c.want[i])
			}
		}
	}
	// F64 → float32 rounds to nearest and overflows to Inf.
	g := make([]float32, 2)
	Float32(tensor.F64, le.AppendUint64(le.AppendUint64(nil, math.Float64bits(1e300)), math.Float64bits(0.1)), g)
	if !math.IsInf(float64(g[0]), 1) || g[1] != float32(0.1) {
		t.Errorf("F64 to f32: %v", g)
	}
}

func TestErrors(t *testing.T) {
	var le *LengthError
	if _, err := Float32(tensor.BF16, []byte{1, 2, 3}, make([]float32, 2)); !errors.As(err, &le) {
		t.Errorf("odd BF16 bytes: %v", err)
	}
	if _, err := Float32(tensor.F6_E2M3, []byte{1, 2}, make([]float32, 4)); !errors.As(err, &le) {
		t.Errorf("F6 partial group: %v", err)
	}
	if _, err := Float32(tensor.F32, make([]byte, 8), make([]float32, 1)); !errors.As(err, &le) {
		t.Errorf("short destination: %v", err)
	}
	for _, dt := range []tensor.DType{tensor.C64, tensor.Q8_1, tensor.Invalid} { // Q8_1: no decoder registered
		if _, err := Float32(dt, nil, nil); !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: %v", dt, err)
		}
	}
	if err := Register(tensor.BF16, func(tensor.DType, []byte, []float32) error { return nil }); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Register(BF16): %v", err)
	}
	if _, err := NewDecoder(testmodel.MemTensor("w", tensor.BF16, []uint64{3}, make([]byte, 4))); !errors.As(err, &le) {
		t.Errorf("length mismatch: %v", err)
	}
}
