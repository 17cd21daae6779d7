package quant

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/tensor"
)

// pattern is the block of gguf.md §3.0: byte i = (7i+3) mod 256, then the
// given little-endian u16 fields overwritten (offset → value).
func pattern(size int, fields map[int]uint16) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = byte((7*i + 3) % 256)
	}
	for off, v := range fields {
		binary.LittleEndian.PutUint16(b[off:], v)
	}
	return b
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func parseFloats(s string) []float32 {
	var out []float32
	for _, f := range strings.Fields(strings.ReplaceAll(s, "|", " ")) {
		var v float64
		fmt.Sscan(f, &v)
		out = append(out, float32(v))
	}
	return out
}

func decode(t *testing.T, dt tensor.DType, b []byte) []float32 {
	t.Helper()
	y := make([]float32, len(b)/int(dt.BlockBytes())*int(dt.BlockElems()))
	if err := Dequantize(dt, b, y); err != nil {
		t.Fatal(err)
	}
	return y
}

func sums(y []float32) (sum, abs float64) {
	for _, v := range y {
		sum += float64(v)
		abs += math.Abs(float64(v))
	}
	return
}

// knownAnswer is a block and what ggml's own dequantize_row_* decodes it
// to, from gguf.md §3 and Appendix A (testdata/known_answers.json).
type knownAnswer struct {
	name     string
	dt       tensor.DType
	block    []byte
	want     string // y[0..] as listed ("|" only groups them)
	at       map[int]float32
	sum, abs float64 // of y and of |y|
}

// readKnownAnswers reads testdata/known_answers.json. A block is
// gguf.md §3.0's pattern of size bytes with the given little-endian u16
// fields and single bytes overwritten, or the bytes of hex; where both
// are given, hex is the block as the reference prints it, and the
// pattern must make it.
func readKnownAnswers(t *testing.T) []knownAnswer {
	t.Helper()
	b, err := os.ReadFile("testdata/known_answers.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		Name, DType string
		Pattern     *struct {
			Size  int
			U16   map[int]string
			Bytes map[int]byte
		}
		Hex, Want string
		At        map[int]float32
		Sum, Abs  float64
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	var out []knownAnswer
	for _, r := range rows {
		dt, ok := tensor.ParseDType(r.DType)
		if !ok {
			t.Fatalf("%s: dtype %q", r.Name, r.DType)
		}
		k := knownAnswer{name: r.Name, dt: dt, block: mustHex(r.Hex), want: r.Want, at: r.At, sum: r.Sum, abs: r.Abs}
		if p := r.Pattern; p != nil {
			fields := map[int]uint16{}
			for off, v := range p.U16 {
				u, err := strconv.ParseUint(v, 0, 16)
				if err != nil {
					t.Fatalf("%s: %v", r.Name, err)
				}
				fields[off] = uint16(u)
			}
			k.block = pattern(p.Size, fields)
			for off, v := range p.Bytes {
				k.block[off] = v
			}
			if r.Hex != "" && hex.EncodeToString(k.block) != r.Hex {
				t.Fatalf("%s: the test's pattern block is not the reference's:\n got %x\nwant %s", r.Name, k.block, r.Hex)
			}
		}
		out = append(out, k)
	}
	return out
}

func TestKnownAnswers(t *testing.T) {
	for _, k := range readKnownAnswers(t) {
		t.Run(k.name, func(t *testing.T) {
			y := decode(t, k.dt, k.block)
			for i, w := range parseFloats(k.want) {
				if y[i] != w {
					t.Errorf("y[%d] = %v, want %v", i, y[i], w)
				}
			}
			for i, w := range k.at {
				if y[i] != w {
					t.Errorf("y[%d] = %v, want %v", i, y[i], w)
				}
			}
			if s, a := sums(y); s != k.sum || a != k.abs {
				t.Errorf("sum %v, sum |y| %v; want %v, %v", s, a, k.sum, k.abs)
			}
		})
	}
}

// Round trips through ggml's quantize_row_*_ref (gguf.md §3.5, §3.9 and
// Appendix A): blocks quantized by the reference, and the values it
// decodes them to, printed with 6 significant digits.
func TestReferenceRoundTrips(t *testing.T) {
	near := func(t *testing.T, i int, got, want float32) {
		t.Helper()
		if d := math.Abs(float64(got - want)); d > 5e-6*math.Max(1, math.Abs(float64(want))) {
			t.Errorf("y[%d] = %v, want %v", i, got, want)
		}
	}
	t.Run("Q8_0", func(t *testing.T) {
		b := mustHex("082481899199a1a9b1b9c0c8d0d8e0e8f0f8000810182028303840474f575f676f77")
		y := decode(t, tensor.Q8_0, b)
		for i, w := range []float32{-1.99988, -1.8739, -1.74792} {
			near(t, i, y[i], w)
		}
		if y[16] != 0 {
			t.Errorf("y[16] = %v, want 0", y[16])
		}
		// and close to what was quantized, x[i] = (i-16)/8
		for i, v := range y {
			if x := float32(i-16) / 8; math.Abs(float64(v-x)) > 0.016 {
				t.Errorf("y[%d] = %v, far from x = %v", i, v, x)
			}
		}
	})
	t.Run("Q4_K", func(t *testing.T) {
		b := mustHex("32180c284f4fcfcf3f2f1f10000f000f0000111122223333444455556666777788889999aaaabbbbccccddddeeeeffff00101021213232434354546565767687879899a9aababbcbccdcddedeefeffff80808191929293a3a4a4a5b5b6b6b7c7c8c8c9d9dadadaebebececfdfdfefeffcacacacbcbcbcbcbdbdcdcdcdcdcdcddedededededeeeeeefefefefeffffffff")
		y := decode(t, tensor.Q4_K, b)
		for i, w := range map[int]float32{0: -1.99182, 1: -1.99182, 2: -1.96109, 3: -1.96109, 16: -1.746, 31: -1.53091, 32: -1.48596,
			63: -1.02505, 64: -0.980103, 100: -0.444405, 127: -0.0449486, 128: 0, 200: 1.0816, 255: 1.93583} {
			near(t, i, y[i], w)
		}
		s, a := sums(y)
		if math.Abs(s-(-2.13426971)) > 1e-5 || math.Abs(a-256.118652) > 1e-4 {
			t.Errorf("sum %v, sum |y| %v; want -2.13426971, 256.118652", s, a)
		}
	})
}

func TestF16(t *testing.T) {
	for h, want := range map[uint16]float32{
		0x3C00: 1, 0x3800: 0.5, 0xC000: -2, 0x7BFF: 65504, 0x0001: 1.0 / (1 << 24),
		0x0000: 0, 0x03FF: 1023.0 / (1 << 24), 0x0400: 1.0 / (1 << 14), 0x7C00: float32(math.Inf(1)), 0xFC00: float32(math.Inf(-1)),
	} {
		if got := f16(h); got != want {
			t.Errorf("f16(%#04x) = %v, want %v", h, got, want)
		}
	}
	if got := f16(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("f16(0x8000) = %v, want -0", got)
	}
	if got := f16(0x7E00); !math.IsNaN(float64(got)) {
		t.Errorf("f16(0x7E00) = %v, want NaN", got)
	}
	// every value against the definition: (-1)^s 2^(e-15) (1 + m/1024)
	for h := 0; h < 1<<16; h++ {
		s, e, m := h>>15, (h>>10)&31, h&1023
		if e == 31 {
			continue
		}
		want := math.Ldexp(float64(m)/1024, -14)
		if e > 0 {
			want = math.Ldexp(1+float64(m)/1024, e-15)
		}
		if s == 1 {
			want = -want
		}
		if got := f16(uint16(h)); float64(got) != want {
			t.Fatalf("f16(%#04x) = %v, want %v", h, got, want)
		}
	}
}

// The reference decoders: element i of one block, straight from the
// layout tables of gguf.md §3, one element at a time. Slow and plain on
// purpose; they share nothing with the package's loops.

func refF16(b []byte, off int) float32 {
	h := uint32(b[off]) | uint32(b[off+1])<<8
	s, e, m := h>>15, (h>>10)&31, h&1023
	var v float64
	switch {
	case e == 31 && m == 0:
		v = math.Inf(1)
	case e == 31:
		v = math.NaN()
	case e == 0:
		v = math.Ldexp(float64(m)/1024, -14)
	default:
		v = math.Ldexp(1+float64(m)/1024, int(e)-15)
	}
	if s == 1 {
		v = -v
	}
	return float32(v)
}

// nib returns nibble hi (0 low, 1 high) of b.
func nib(b byte, hi int) int { return int(b>>(4*hi)) & 0xF }

// bit returns bit k of the little-endian bytes b.
func bit(b []byte, k int) int { return int(b[k/8]>>(k%8)) & 1 }

var refs = map[tensor.DType]func(b []byte, i int) float32{
	tensor.Q4_0: func(b []byte, i int) float32 {
		q := nib(b[2+i%16], i/16)
		return float32(q-8) * refF16(b, 0)
	},
	tensor.Q4_1: func(b []byte, i int) float32 {
		q := nib(b[4+i%16], i/16)
		return float32(q)*refF16(b, 0) + refF16(b, 2)
	},
	tensor.Q5_0: func(b []byte, i int) float32 {
		q := nib(b[6+i%16], i/16) + 16*bit(b[2:6], i)
		return float32(q-16) * refF16(b, 0)
	},
	tensor.Q5_1: func(b []byte, i int) float32 {
		q := nib(b[8+i%16], i/16) + 16*bit(b[4:8], i)
		return float32(q)*refF16(b, 0) + refF16(b, 2)
	},
	tensor.Q8_0: func(b []byte, i int) float32 {
		return float32(int8(b[2+i])) * refF16(b, 0)
	},
	tensor.Q2_K: func(b []byte, i int) float32 {
		// 2 halves of 128; in each, 4 shifts of 32; in each, 2 runs of 16
		n, j, half, l := i/128, i%128/32, i%32/16, i%16
		q := int(b[16+32*n+16*half+l]>>(2*j)) & 3
		sc := b[8*n+2*j+half]
		return refF16(b, 80)*float32(sc&0xF)*float32(q) - refF16(b, 82)*float32(sc>>4)
	},
	tensor.Q3_K: func(b []byte, i int) float32 {
		n, j, half, l := i/128, i%128/32, i%32/16, i%16
		q := int(b[32+32*n+16*half+l]>>(2*j)) & 3
		if bit(b[16*half+l:], 4*n+j) == 0 {
			q -= 4
		}
		// scale k: low nibble k/8 of byte k%8, high 2 bits at 2*(k/4) of byte 8+k%4
		k := 8*n + 2*j + half
		s := nib(b[96+k%8], k/8) | (int(b[96+8+k%4]>>(2*(k/4)))&3)<<4
		return refF16(b, 108) * float32(s-32) * float32(q)
	},
	tensor.Q4_K: func(b []byte, i int) float32 {
		c, r := i/64, i%64
		q := nib(b[16+32*c+r%32], r/32)
		sc, m := refScaleMin(b[4:16], 2*c+r/32)
		return refF16(b, 0)*float32(sc)*float32(q) - refF16(b, 2)*float32(m)
	},
	tensor.Q5_K: func(b []byte, i int) float32 {
		c, r := i/64, i%64
		q := nib(b[48+32*c+r%32], r/32) + 16*bit(b[16+r%32:], 2*c+r/32)
		sc, m := refScaleMin(b[4:16], 2*c+r/32)
		return refF16(b, 0)*float32(sc)*float32(q) - refF16(b, 2)*float32(m)
	},
	tensor.Q6_K: func(b []byte, i int) float32 {
		// 2 halves of 128; in each, 4 quarters of 32 sharing ql/qh bytes
		n, quarter, l := i/128, i%128/32, i%32
		lo := nib(b[64*n+l+32*(quarter%2)], quarter/2)
		hi := int(b[128+32*n+l]>>(2*quarter)) & 3
		sc := int8(b[192+8*n+l/16+2*quarter])
		return refF16(b, 208) * float32(sc) * float32(lo|hi<<4-32)
	},
	tensor.Q8_K: func(b []byte, i int) float32 {
		return math.Float32frombits(binary.LittleEndian.Uint32(b)) * float32(int8(b[4+i]))
	},
	tensor.IQ4_NL: func(b []byte, i int) float32 {
		return refF16(b, 0) * iq4nlLevels[nib(b[2+i%16], i/16)]
	},
	tensor.IQ4_XS: func(b []byte, i int) float32 {
		ib, r := i/32, i%32
		ls := nib(b[4+ib/2], ib%2) | (bit(b[2:4], 2*ib)|bit(b[2:4], 2*ib+1)<<1)<<4
		return refF16(b, 0) * float32(ls-32) * iq4nlLevels[nib(b[8+16*ib+r%16], r/16)]
	},
	tensor.TQ2_0: func(b []byte, i int) float32 {
		half, l, m := i/128, i%128/32, i%32
		q := int(b[32*half+m]>>(2*l)) & 3
		return float32(q-1) * refF16(b, 64)
	},
	tensor.MXFP4: func(b []byte, i int) float32 {
		// E2M1: sign, 2 exponent bits, 1 mantissa bit; times 2^(e-127)
		c := nib(b[1+i%16], i/16)
		e, m := c>>1&3, c&1
		v := float64(m) / 2 // subnormal: 0 or 0.5
		if e > 0 {
			v = math.Ldexp(1+float64(m)/2, e-1)
		}
		if c&8 != 0 {
			v = -v
		}
		return float32(v * math.Ldexp(1, int(b[0])-127))
	},
	// NVFP4 (gguf.md §3.14): four sub-blocks of 16, each an unsigned
	// E4M3 scale (bias 7; 0x00 and 0x7F are zero) times E2M1 values; the
	// low nibbles of a sub-block's 8 bytes are its elements 0-7.
	tensor.NVFP4: func(b []byte, i int) float32 {
		s, k := i/16, i%16
		c := nib(b[4+8*s+k%8], k/8)
		e, m := c>>1&3, c&1
		v := float64(m) / 2
		if e > 0 {
			v = math.Ldexp(1+float64(m)/2, e-1)
		}
		if c&8 != 0 {
			v = -v
		}
		x := b[s]
		var scale float64
		if x != 0 && x != 0x7f {
			se, sm := int(x>>3&15), float64(x&7)
			if se == 0 {
				scale = math.Ldexp(sm/8, -6)
			} else {
				scale = math.Ldexp(1+sm/8, se-7)
			}
		}
		return float32(v * scale)
	},
	// Q1_0 (§3.15): bit i, LSB first, is +d when set, -d when clear.
	tensor.Q1_0: func(b []byte, i int) float32 {
		d := refF16(b, 0)
		if b[2+i/8]>>(i%8)&1 == 0 {
			return -d
		}
		return d
	},
	// Q2_0 (§3.15): 2-bit codes, LSB first, y = (q - 1)·d.
	tensor.Q2_0: func(b []byte, i int) float32 {
		return float32(int(b[2+i/4]>>(2*(i%4))&3)-1) * refF16(b, 0)
	},
}

// iq4nlLevels is ggml's kvalues_iq4nl, as gguf.md §3.13 lists it.
var iq4nlLevels = [16]float32{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

// refScaleMin reads the 6-bit scale and min of sub-block j from the bit
// map gguf-py documents for Q4_K/Q5_K: bytes 0–3 hold scales 0–3 in their
// low 6 bits, bytes 4–7 mins 0–3; bytes 8–11 hold the low 4 bits of
// scales 4–7 (low nibble) and mins 4–7 (high nibble), whose top 2 bits
// are the top 2 bits of bytes 0–3 (scales) and 4–7 (mins).
func refScaleMin(s []byte, j int) (sc, m int) {
	if j < 4 {
		return int(s[j] & 63), int(s[4+j] & 63)
	}
	sc = nib(s[8+j-4], 0) | int(s[j-4]>>6)<<4
	m = nib(s[8+j-4], 1) | int(s[j]>>6)<<4
	return
}

func sameFloat(a, b float32) bool {
	return a == b || math.IsNaN(float64(a)) && math.IsNaN(float64(b))
}

// TestAgainstReference decodes random blocks, and random blocks with
// sane scales, with the package and with the reference above.
func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for dt, ref := range refs {
		t.Run(dt.String(), func(t *testing.T) {
			bb, be := int(dt.BlockBytes()), int(dt.BlockElems())
			const blocks = 300
			src := make([]byte, bb*blocks)
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			// In half the blocks, make every f16 field a finite scale
			// in [-2, 2), so the sums are not all NaN or Inf.
			for blk := 0; blk < blocks; blk += 2 {
				for _, off := range f16Fields[dt] {
					binary.LittleEndian.PutUint16(src[blk*bb+off:], uint16(rng.IntN(0x4000))|uint16(rng.IntN(2))<<15)
				}
			}
			dst := make([]float32, be*blocks)
			if err := Dequantize(dt, src, dst); err != nil {
				t.Fatal(err)
			}
			bad := 0
			for blk := 0; blk < blocks; blk++ {
				for i := 0; i < be; i++ {
					want := ref(src[blk*bb:(blk+1)*bb], i)
					if got := dst[blk*be+i]; !sameFloat(got, want) && bad < 10 {
						bad++
						t.Errorf("block %d y[%d] = %v, reference %v", blk, i, got, want)
					}
				}
			}
		})
	}
}

// f16Fields are the offsets of each type's f16 scales.
var f16Fields = map[tensor.DType][]int{
	tensor.Q4_0: {0}, tensor.Q4_1: {0, 2}, tensor.Q5_0: {0}, tensor.Q5_1: {0, 2}, tensor.Q8_0: {0},
	tensor.Q2_K: {80, 82}, tensor.Q3_K: {108}, tensor.Q4_K: {0, 2}, tensor.Q5_K: {0, 2}, tensor.Q6_K: {208},
	tensor.IQ4_NL: {0}, tensor.IQ4_XS: {0}, tensor.TQ2_0: {64},
	tensor.Q1_0: {0}, tensor.Q2_0: {0},
}

func TestErrors(t *testing.T) {
	if err := Dequantize(tensor.Q4_0, make([]byte, 17), make([]float32, 32)); !errors.Is(err, ErrLength) {
		t.Errorf("17 bytes of Q4_0: %v, want ErrLength", err)
	}
	if err := Dequantize(tensor.Q4_0, make([]byte, 36), make([]float32, 32)); !errors.Is(err, ErrLength) {
		t.Errorf("2 blocks into 32: %v, want ErrLength", err)
	}
	if err := Dequantize(tensor.Q4_K, nil, nil); err != nil {
		t.Errorf("no blocks: %v", err)
	}
	for _, dt := range []tensor.DType{tensor.F16, tensor.Q8_1, tensor.F8_E4M3, tensor.Invalid} {
		ok, why := Supported(dt)
		err := Dequantize(dt, nil, nil)
		if ok || why == "" || !errors.Is(err, ErrUnsupported) {
			t.Errorf("%s: Supported = %v %q, Dequantize = %v", dt, ok, why, err)
		}
	}
	for dt := range refs {
		if ok, why := Supported(dt); !ok {
			t.Errorf("%s not supported: %s", dt, why)
		}
	}
}

// BenchmarkDequantize reports GB/s of float32 output (SetBytes is the
// output size) for 1 MiB of decoded values per type.
func BenchmarkDequantize(b *testing.B) {
	for _, dt := range []tensor.DType{tensor.Q4_0, tensor.Q4_1, tensor.Q5_0, tensor.Q5_1, tensor.Q8_0,
		tensor.Q2_K, tensor.Q3_K, tensor.Q4_K, tensor.Q5_K, tensor.Q6_K, tensor.Q8_K,
		tensor.IQ4_NL, tensor.IQ4_XS, tensor.TQ2_0, tensor.MXFP4,
		tensor.IQ1_S, tensor.IQ1_M, tensor.IQ2_XXS, tensor.IQ2_XS, tensor.IQ2_S, tensor.IQ3_XXS, tensor.IQ3_S,
		tensor.TQ1_0, tensor.NVFP4, tensor.Q1_0, tensor.Q2_0} {
		b.Run(dt.String(), func(b *testing.B) {
			n := 1 << 18 // elements: 1 MiB of float32
			src := make([]byte, n/int(dt.BlockElems())*int(dt.BlockBytes()))
			rng := rand.New(rand.NewPCG(3, 4))
			for i := range src {
				src[i] = byte(rng.Uint32())
			}
			dst := make([]float32, n)
			b.SetBytes(int64(4 * n))
			for b.Loop() {
				Dequantize(dt, src, dst)
			}
		})
	}
}
