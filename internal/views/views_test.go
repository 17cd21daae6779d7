package views

import (
	"github.com/stretchr/testify/require"

	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

func randBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

type tcase struct {
	name string
	t    *tensor.Tensor
	opts *Options
}

// cases makes tensors of every decodable type and of several ranks,
// including empty ones, zero dimensions and long rows with nan and inf.
func cases(t *testing.T, r *rand.Rand) []tcase {
	var cs []tcase
	add := func(dt tensor.DType, shape []uint64) {
		n := uint64(1)
		for _, s := range shape {
			n *= s
		}
		size, ok := dt.ByteSize(n)
		if !ok {
			return
		}
		name := fmt.Sprintf("%s%v", dt, shape)
		cs = append(cs, tcase{name, memTensor(name, dt, shape, randBytes(r, int(size))), nil})
	}
	for _, dt := range []tensor.DType{tensor.BOOL, tensor.U8, tensor.I8, tensor.I16, tensor.U16, tensor.F16, tensor.BF16,
		tensor.I32, tensor.U32, tensor.F32, tensor.F64, tensor.I64, tensor.U64, tensor.C64, tensor.F8_E4M3, tensor.F8_E5M2,
		tensor.F8_E8M0, tensor.F8_E4M3FNUZ, tensor.F8_E5M2FNUZ, tensor.F4, tensor.F6_E2M3, tensor.F6_E3M2, tensor.Q4_K} {
		for _, shape := range [][]uint64{{}, {12}, {3, 8}, {2, 3, 4}, {0, 4}, {4, 0}, {0}} {
			add(dt, shape)
		}
	}
	// Long rows (beyond longRow) with many nan/inf: random BF16 and F8
	// bytes have plenty.
	add(tensor.BF16, []uint64{3, 9000})
	add(tensor.F8_E5M2, []uint64{2, 10007})
	add(tensor.I32, []uint64{2, 5000})
	// An FP8 weight with its block scales.
	w := memTensor("w", tensor.F8_E4M3, []uint64{5, 9}, randBytes(r, 45))
	var sb []byte
	for i := range 2 * 3 {
		sb = binary.LittleEndian.AppendUint32(sb, math.Float32bits(float32(i+1)/64))
	}
	s := memTensor("w_scale_inv", tensor.F32, []uint64{2, 3}, sb)
	cs = append(cs, tcase{"fp8-scaled", w, &Options{Scale: s, Block: [2]uint64{4, 4}}})
	// A GPTQ 8-bit layer, in 16 × out 4, one group: qweight [4, 4].
	var qw, qz []byte
	for range 16 {
		qw = binary.LittleEndian.AppendUint32(qw, r.Uint32())
	}
	qz = binary.LittleEndian.AppendUint32(qz, 0x80808080)
	sc := binary.LittleEndian.AppendUint32(nil, math.Float32bits(0.5))
	sc = binary.LittleEndian.AppendUint32(sc, math.Float32bits(0.25))
	sc = binary.LittleEndian.AppendUint32(sc, math.Float32bits(-1))
	sc = binary.LittleEndian.AppendUint32(sc, math.Float32bits(3))
	qwt := memTensor("qweight", tensor.I32, []uint64{4, 4}, qw)
	d, err := decode.NewGPTQ(decode.GPTQ{QWeight: qwt, QZeros: memTensor("qzeros", tensor.I32, []uint64{1, 1}, qz),
		Scales: memTensor("scales", tensor.F32, []uint64{1, 4}, sc), Bits: 8, GroupSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	cs = append(cs, tcase{"gptq", qwt, &Options{Decoder: d}})
	return cs
}

// TestSizesAndRandomAccess checks, for every view of every case, that
// Size is what reading produces and that any range read equals that
// slice of the whole.
func TestSizesAndRandomAccess(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, c := range cases(t, r) {
		v := NewTensor(c.t, c.opts)
		for _, f := range v.Files() {
			what := c.name + "/" + f.Name
			if _, ok := f.View.(*unreadable); ok {
				continue // TestUndecodableBinaryViews
			}
			if n, ok := f.View.(*NPY); ok && n.msg != nil {
				continue
			}
			whole := readWhole(t, what, f.View)
			for range 60 {
				off := r.Int64N(int64(len(whole)) + 1)
				n := r.IntN(len(whole) - int(off) + 50)
				p := make([]byte, n)
				m, err := f.View.ReadAt(p, off)
				want := whole[off:min(int(off)+n, len(whole))]
				if !bytes.Equal(p[:m], want) {
					t.Fatalf("%s: ReadAt(%d, %d) differs from the whole", what, off, n)
				}
				if m < n && err != io.EOF || m == n && err != nil && err != io.EOF {
					t.Fatalf("%s: ReadAt(%d, %d) = %d, %v", what, off, n, m, err)
				}
			}
		}
	}
}

// roundTo returns the code of the value of dt nearest to x (ties to the
// even code), found by search over all codes decoded: the re-rounding of
// a printed value, independent of the printer.
type rounder struct {
	vals  []float64 // finite values, sorted
	codes []int
}

func newRounder(t *testing.T, dt tensor.DType, all []float64) *rounder {
	r := &rounder{}
	idx := make([]int, 0, len(all))
	for c, x := range all {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			idx = append(idx, c)
		}
	}
	slices.SortFunc(idx, func(a, b int) int {
		x, y := all[a], all[b]
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		// -0 before +0.
		if math.Signbit(x) && !math.Signbit(y) {
			return -1
		}
		if !math.Signbit(x) && math.Signbit(y) {
			return 1
		}
		return 0
	})
	for _, c := range idx {
		r.vals = append(r.vals, all[c])
		r.codes = append(r.codes, c)
	}
	return r
}

func (r *rounder) round(x float64) int {
	i, _ := slices.BinarySearch(r.vals, x)
	best := -1
	bestD := math.Inf(1)
	for j := max(0, i-2); j < min(len(r.vals), i+3); j++ {
		d := math.Abs(r.vals[j] - x)
		if d < bestD || d == bestD && r.codes[j]%2 == 0 {
			best, bestD = j, d
		}
		if d == 0 && math.Signbit(r.vals[j]) == math.Signbit(x) {
			return r.codes[j]
		}
	}
	return r.codes[best]
}

// TestValuesRoundTrip prints every bit pattern of the floating types of
// 16 bits or fewer, parses each printed number and re-rounds it to the
// type: the code must come back (NaN as "nan", Inf as "inf"/"-inf").
func TestValuesRoundTrip(t *testing.T) {
	for _, dt := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F8_E4M3, tensor.F8_E5M2, tensor.F8_E8M0,
		tensor.F8_E4M3FNUZ, tensor.F8_E5M2FNUZ, tensor.F4, tensor.F6_E2M3, tensor.F6_E3M2} {
		bits := map[tensor.DType]int{tensor.BF16: 16, tensor.F16: 16, tensor.F4: 4, tensor.F6_E2M3: 6, tensor.F6_E3M2: 6}[dt]
		if bits == 0 {
			bits = 8
		}
		ncodes := 1 << bits
		codes := make([]int, ncodes)
		for i := range codes {
			codes[i] = i
		}
		var raw []byte
		switch bits {
		case 16:
			for _, c := range codes {
				raw = binary.LittleEndian.AppendUint16(raw, uint16(c))
			}
		case 8:
			for _, c := range codes {
				raw = append(raw, byte(c))
			}
		case 4:
			for i := 0; i < ncodes; i += 2 {
				raw = append(raw, byte(codes[i]|codes[i+1]<<4))
			}
		case 6:
			for i := 0; i < ncodes; i += 4 {
				v := codes[i] | codes[i+1]<<6 | codes[i+2]<<12 | codes[i+3]<<18
				raw = append(raw, byte(v), byte(v>>8), byte(v>>16))
			}
		}
		all := make([]float64, ncodes)
		if _, err := decode.Float64(dt, raw, all); err != nil {
			t.Fatal(err)
		}
		rd := newRounder(t, dt, all)
		cols := uint64(8)
		if ncodes < 8 {
			cols = 4
		}
		v := NewTensor(memTensor("x", dt, []uint64{uint64(ncodes) / cols, cols}, raw), nil)
		text := readWhole(t, dt.String(), v.Values())
		lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
		if uint64(len(lines)) != uint64(ncodes)/cols {
			t.Fatalf("%s: %d lines", dt, len(lines))
		}
		bad := 0
		for li, line := range lines {
			if len(line)+1 != len(lines[0])+1 {
				t.Fatalf("%s line %d: length %d, want %d", dt, li, len(line), len(lines[0]))
			}
			fields := strings.Split(strings.TrimRight(line, " "), " ")
			if uint64(len(fields)) != cols {
				t.Fatalf("%s line %d: %d fields in %q", dt, li, len(fields), line)
			}
			for k, f := range fields {
				c := li*int(cols) + k
				x, err := strconv.ParseFloat(f, 64)
				if err != nil {
					t.Fatalf("%s: %q: %v", dt, f, err)
				}
				want := all[c]
				var ok bool
				switch {
				case math.IsNaN(want):
					ok = f == "nan"
				case math.IsInf(want, 1):
					ok = f == "inf"
				case math.IsInf(want, -1):
					ok = f == "-inf"
				default:
					back := rd.round(x)
					ok = all[back] == want && math.Signbit(all[back]) == math.Signbit(want)
				}
				if !ok {
					if bad++; bad < 5 {
						t.Errorf("%s code %#x printed %q does not round-trip", dt, c, f)
					}
				}
			}
		}
	}
}

// TestValuesFormat pins the exact text of a few values.
func TestValuesFormat(t *testing.T) {
	le := binary.LittleEndian
	bf := func(x ...uint16) []byte {
		var b []byte
		for _, v := range x {
			b = le.AppendUint16(b, v)
		}
		return b
	}
	cases := []struct {
		t    *tensor.Tensor
		want string
	}{
		{memTensor("a", tensor.BF16, []uint64{2, 3}, bf(0x3F80, 0xBF80, 0x7FC0, 0x7F80, 0xFF80, 0x8000)),
			"+1.000e+00 -1.000e+00 nan       \n" + "inf -inf -0.000e+00             \n"},
		{memTensor("b", tensor.F64, []uint64{2}, le.AppendUint64(le.AppendUint64(nil, math.Float64bits(0.1)), math.Float64bits(-1e-300))),
			"+1.0000000000000001e-001\n-1.0000000000000000e-300\n"},
		{memTensor("c", tensor.I8, []uint64{}, []byte{0x80}), "-128\n"},
		{memTensor("d", tensor.U16, []uint64{1, 2}, bf(7, 65535)), "00007 65535\n"},
		{memTensor("e", tensor.I64, []uint64{1}, le.AppendUint64(nil, 1<<63)), "-9223372036854775808\n"},
		{memTensor("f", tensor.BOOL, []uint64{3}, []byte{0, 1, 7}), "0\n1\n1\n"},
		{memTensor("g", tensor.F4, []uint64{2}, []byte{0xC3}), "+1.50e+00\n-2.00e+00\n"},
	}
	for _, c := range cases {
		got := readWhole(t, c.t.Name, NewTensor(c.t, nil).Values())
		if string(got) != c.want {
			t.Errorf("%s: got %q, want %q", c.t.Name, got, c.want)
		}
	}
}

// TestNPYWithNumpy loads every values.npy with numpy (mmap_mode='r') and
// compares shape, dtype and data bytes.
func TestNPYWithNumpy(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dir := t.TempDir()
	type want struct {
		Shape []uint64 `json:"shape"`
		Descr string   `json:"descr"`
		SHA   string   `json:"sha"`
	}
	wants := map[string]want{}
	var files []string
	for i, c := range cases(t, r) {
		v := NewTensor(c.t, c.opts)
		npy := v.NPY()
		if npy.Header() == nil {
			continue
		}
		if len(npy.Header())%64 != 0 {
			t.Errorf("%s: header %d bytes", c.name, len(npy.Header()))
		}
		content := readWhole(t, c.name, npy)
		path := filepath.Join(dir, fmt.Sprintf("%d.npy", i))
		if err := os.WriteFile(path, content, 0o644); err != nil {
			t.Fatal(err)
		}
		var data []byte
		descr := "<f4"
		if f, off, n, ok := npy.Raw(); ok {
			data = make([]byte, n)
			if _, err := f.ReadAt(data, off); err != nil && n > 0 {
				t.Fatal(err)
			}
			descr = npyDescr[c.t.DType]
			if !bytes.Equal(content[len(npy.Header()):], data) {
				t.Errorf("%s: npy data is not the raw bytes", c.name)
			}
		} else {
			data = readWhole(t, c.name, v.ValuesF32())
		}
		sum := sha256.Sum256(data)
		shape := c.t.Shape
		if v.Decoder() != nil && descr == "<f4" {
			shape = v.Decoder().Shape()
		}
		wants[path] = want{Shape: shape, Descr: descr, SHA: hex.EncodeToString(sum[:])}
		files = append(files, path)
	}
	script := `import hashlib, json, sys, numpy as np
out = {}
for p in sys.argv[1:]:
    a = np.load(p, mmap_mode='r')
    out[p] = {"shape": list(a.shape), "descr": a.dtype.str, "sha": hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()}
print(json.dumps(out))`
	out := testmodel.RunNumpy(t, append([]string{"-c", script}, files...)...)
	var got map[string]want
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	for p, w := range wants {
		g := got[p]
		if w.Shape == nil {
			w.Shape = []uint64{}
		}
		if g.Descr != w.Descr || !slices.Equal(g.Shape, w.Shape) || g.SHA != w.SHA {
			t.Errorf("%s: numpy %+v, want %+v", p, g, w)
		}
	}
	if len(wants) < 100 {
		t.Errorf("only %d npy files checked", len(wants))
	}
}

// TestStatsViews checks stats, hist and sha256 against the scan, and
// the model table's layout.
func TestStatsViews(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var vs []*Tensor
	for _, c := range cases(t, r) {
		v := NewTensor(c.t, c.opts)
		vs = append(vs, v)
		sum := sha256.Sum256(readRaw(t, c.t))
		if got := readWhole(t, c.name, v.SHA256File()); string(got) != hex.EncodeToString(sum[:])+"\n" {
			t.Errorf("%s: sha256 %q", c.name, got)
		}
		if v.Err() != nil {
			if got := string(readWhole(t, c.name, v.StatsFile())); !strings.HasPrefix(got, "not decoded: ") || strings.Count(got, "\n") != 1 {
				t.Errorf("%s: stats of undecodable %q", c.name, got)
			}
			continue
		}
		s, err := v.Stats(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		text := string(readWhole(t, c.name, v.StatsFile()))
		lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		if len(lines) != 12 {
			t.Fatalf("%s: %d stats lines", c.name, len(lines))
		}
		parsed := map[string]float64{}
		for _, l := range lines {
			f := strings.Fields(l)
			x, err := strconv.ParseFloat(f[1], 64)
			if len(f) != 2 || err != nil || len(l) != statLine-1 {
				t.Fatalf("%s: stats line %q", c.name, l)
			}
			parsed[f[0]] = x
		}
		if parsed["count"] != float64(s.Count) || parsed["nan"] != float64(s.NaN) || !sameF(parsed["mean"], s.Mean) || !sameF(parsed["std"], s.Std) {
			t.Errorf("%s: stats file %v vs %+v", c.name, parsed, s)
		}
		hist := string(readWhole(t, c.name, v.HistFile()))
		hl := strings.Split(strings.TrimSuffix(hist, "\n"), "\n")
		if len(hl) != DefaultHistBins+4 {
			t.Fatalf("%s: %d hist lines", c.name, len(hl))
		}
		var total uint64
		for _, l := range hl[1 : 1+DefaultHistBins] {
			f := strings.Fields(l)
			n, err := strconv.ParseUint(f[2], 10, 64)
			if err != nil || len(l) != histLine-1 {
				t.Fatalf("%s: hist line %q", c.name, l)
			}
			total += n
		}
		if total != s.Finite() {
			t.Errorf("%s: hist counts %d finite values, stats %d", c.name, total, s.Finite())
		}
	}
	m := NewModel(vs)
	table := string(readWhole(t, "table", m.StatsTable()))
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	if len(lines) != len(vs)+1 {
		t.Fatalf("table: %d lines for %d tensors", len(lines), len(vs))
	}
	for i, l := range lines {
		f := strings.Split(l, "\t")
		if len(f) != 14 || len(l) != len(lines[0]) {
			t.Fatalf("table line %d: %d fields, %d bytes: %q", i, len(f), len(l), l)
		}
		if i == 0 {
			continue
		}
		health := strings.TrimSpace(f[13])
		if vs[i-1].Err() != nil {
			if health != "n/a" {
				t.Errorf("table line %d: health %q", i, health)
			}
			continue
		}
		s, _ := vs[i-1].Stats(context.Background())
		if health != string(s.Health()) {
			t.Errorf("table line %d: health %q, want %q", i, health, s.Health())
		}
	}
}

func sameF(a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return a == b
}

func readRaw(t *testing.T, tt *tensor.Tensor) []byte {
	b := make([]byte, tt.Length)
	if _, err := tt.File.ReadAt(b, tt.Offset); err != nil && tt.Length > 0 {
		t.Fatal(err)
	}
	return b
}

// TestHealthTable plants NaN, Inf, zeros and a constant and reads the
// health column.
func TestHealthTable(t *testing.T) {
	le := binary.LittleEndian
	f32 := func(xs ...float32) []byte {
		var b []byte
		for _, x := range xs {
			b = le.AppendUint32(b, math.Float32bits(x))
		}
		return b
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	ts := []*Tensor{
		NewTensor(memTensor("a.nan", tensor.F32, []uint64{3}, f32(1, nan, inf)), nil),
		NewTensor(memTensor("b.inf", tensor.F32, []uint64{2}, f32(1, -inf)), nil),
		NewTensor(memTensor("c.zero", tensor.F32, []uint64{2}, f32(0, float32(math.Copysign(0, -1)))), nil),
		NewTensor(memTensor("d.const", tensor.F32, []uint64{3}, f32(1, 1, 1)), nil),
		NewTensor(memTensor("e.ok", tensor.F32, []uint64{2}, f32(1, 2)), nil),
		NewTensor(memTensor("f.empty", tensor.F32, []uint64{0}, nil), nil),
	}
	want := []string{"nan", "inf", "zero", "constant", "ok", "empty"}
	table := string(readWhole(t, "table", NewModel(ts).StatsTable()))
	for i, l := range strings.Split(strings.TrimSuffix(table, "\n"), "\n")[1:] {
		f := strings.Split(l, "\t")
		if got := strings.TrimSpace(f[13]); got != want[i] {
			t.Errorf("%s: health %q, want %q", strings.TrimSpace(f[0]), got, want[i])
		}
	}
}

// TestReadErrors makes every view of a tensor whose file fails return
// an error, never short or wrong bytes without one.
func TestReadErrors(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, dt := range []tensor.DType{tensor.BF16, tensor.F32, tensor.I16, tensor.F8_E4M3} {
		tt := memTensor("x", dt, []uint64{64, 64}, randBytes(r, int(64*64*dt.BlockBytes())))
		tt.File.(*memFile).FailAt = tt.Length / 2
		v := NewTensor(tt, nil)
		m := NewModel([]*Tensor{v})
		for _, f := range append(v.Files(), File{"table", m.StatsTable()}) {
			p := make([]byte, f.View.Size())
			n, err := f.View.ReadAt(p, 0)
			if err == nil || err == io.EOF {
				t.Errorf("%s/%s: ReadAt = %d, %v; want an error", dt, f.Name, n, err)
			}
			if !errors.Is(err, errInjected) {
				t.Errorf("%s/%s: error %v does not wrap the I/O error", dt, f.Name, err)
			}
		}
	}
}

// TestUndecodableBinaryViews: a tensor without values (complex numbers)
// says why in its text views, while its binary views keep the size of
// their floats and fail every read — never text where numpy expects
// float32s.
func TestUndecodableBinaryViews(t *testing.T) {
	for _, c := range []struct {
		t      *tensor.Tensor
		binary []string
	}{
		// complex64 is numpy-native (values.npy is its bytes), not real
		{memTensor("c", tensor.C64, []uint64{2, 3}, make([]byte, 48)), []string{"values.f32"}},
		// Q8_1 is never dequantized (an intermediate of ggml's dot products)
		{memTensor("q", tensor.Q8_1, []uint64{2, 32}, make([]byte, 72)), []string{"values.f32", "values.npy"}},
	} {
		v := NewTensor(c.t, nil)
		got := map[string]View{}
		for _, f := range v.Files() {
			got[f.Name] = f.View
		}
		text := readWhole(t, "values", got["values"])
		require.Contains(t, string(text), "not decoded")
		for _, name := range c.binary {
			view := got[name]
			require.NotNil(t, view, name)
			require.Equal(t, int64(4*c.t.NumElements()), view.Size(), name)
			n, err := view.ReadAt(make([]byte, 8), 0)
			require.Zero(t, n, name)
			require.ErrorIs(t, err, decode.ErrUnsupported, name)
			require.NotErrorIs(t, err, io.EOF, name)
		}
	}
}
