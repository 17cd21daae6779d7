package views

import (
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
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
	"github.com/stretchr/testify/require"
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
		cs = append(cs, tcase{name, testmodel.MemTensor(name, dt, shape, randBytes(r, int(size))), nil})
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
	w := testmodel.MemTensor("w", tensor.F8_E4M3, []uint64{5, 9}, randBytes(r, 45))
	var sb []byte
	for i := range 2 * 3 {
		sb = binary.LittleEndian.AppendUint32(sb, math.Float32bits(float32(i+1)/64))
	}
	s := testmodel.MemTensor("w_scale_inv", tensor.F32, []uint64{2, 3}, sb)
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
	qwt := testmodel.MemTensor("qweight", tensor.I32, []uint64{4, 4}, qw)
	d, err := decode.NewGPTQ(decode.GPTQ{QWeight: qwt, QZeros: testmodel.MemTensor("qzeros", tensor.I32, []uint64{1, 1}, qz),
		Scales: testmodel.MemTensor("scales", tensor.F32, []uint64{1, 4}, sc), Bits: 8, GroupSize: -1})
	require.NoError(t, err)
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
		v := NewTensor(testmodel.MemTensor("x", dt, []uint64{uint64(ncodes) / cols, cols}, raw), nil)
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
		{testmodel.MemTensor("a", tensor.BF16, []uint64{2, 3}, bf(0x3F80, 0xBF80, 0x7FC0, 0x7F80, 0xFF80, 0x8000)),
			"+1.000e+00 -1.000e+00 nan       \n" + "inf -inf -0.000e+00             \n"},
		{testmodel.MemTensor("b", tensor.F64, []uint64{2}, le.AppendUint64(le.AppendUint64(nil, math.Float64bits(0.1)), math.Float64bits(-1e-300))),
			"+1.0000000000000001e-001\n-1.0000000000000000e-300\n"},
		{testmodel.MemTensor("c", tensor.I8, []uint64{}, []byte{0x80}), "-128\n"},
		{testmodel.MemTensor("d", tensor.U16, []uint64{1, 2}, bf(7, 65535)), "00007 65535\n"},
		{testmodel.MemTensor("e", tensor.I64, []uint64{1}, le.AppendUint64(nil, 1<<63)), "-9223372036854775808\n"},
		{testmodel.MemTensor("f", tensor.BOOL, []uint64{3}, []byte{0, 1, 7}), "0\n1\n1\n"},
		{testmodel.MemTensor("g", tensor.F4, []uint64{2}, []byte{0xC3}), "+1.50e+00\n-2.00e+00\n"},
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
		require.NoError(t, os.WriteFile(path, content, 0o644))
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
		require.NoError(t, err)
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
		NewTensor(testmodel.MemTensor("a.nan", tensor.F32, []uint64{3}, f32(1, nan, inf)), nil),
		NewTensor(testmodel.MemTensor("b.inf", tensor.F32, []uint64{2}, f32(1, -inf)), nil),
		NewTensor(testmodel.MemTensor("c.zero", tensor.F32, []uint64{2}, f32(0, float32(math.Copysign(0, -1)))), nil),
		NewTensor(testmodel.MemTensor("d.const", tensor.F32, []uint64{3}, f32(1, 1, 1)), nil),
		NewTensor(testmodel.MemTensor("e.ok", tensor.F32, []uint64{2}, f32(1, 2)), nil),
		NewTensor(testmodel.MemTensor("f.empty", tensor.F32, []uint64{0}, nil), nil),
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
		tt := testmodel.MemTensor("x", dt, []uint64{64, 64}, randBytes(r, int(64*64*dt.BlockBytes())))
		tt.File.(*testmodel.MemFile).FailAt = tt.Length / 2
		v := NewTensor(tt, nil)
		m := NewModel([]*Tensor{v})
		for _, f := range append(v.Files(), File{"table", m.StatsTable()}) {
			p := make([]byte, f.View.Size())
			n, err := f.View.ReadAt(p, 0)
			if err == nil || err == io.EOF {
				t.Errorf("%s/%s: ReadAt = %d, %v; want an error", dt, f.Name, n, err)
			}
			if !errors.Is(err, testmodel.ErrInjected) {
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
		{testmodel.MemTensor("c", tensor.C64, []uint64{2, 3}, make([]byte, 48)), []string{"values.f32"}},
		// Q8_1 is never dequantized (an intermediate of ggml's dot products)
		{testmodel.MemTensor("q", tensor.Q8_1, []uint64{2, 32}, make([]byte, 72)), []string{"values.f32", "values.npy"}},
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

// TestShellTools runs head, sed, awk and sort -g on a values file.
func TestShellTools(t *testing.T) {
	for _, tool := range []string{"sh", "sort", "awk", "sed", "head"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIP: %s not installed", tool)
		}
	}
	r := rand.New(rand.NewPCG(9, 9))
	raw := randBytes(r, 2*2000)
	v := NewTensor(testmodel.MemTensor("x", tensor.BF16, []uint64{2000}, raw), nil)
	text := readWhole(t, "values", v.Values())
	dir := t.TempDir()
	path := filepath.Join(dir, "values")
	require.NoError(t, os.WriteFile(path, text, 0o644))
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	run := func(script string) string {
		out, err := exec.Command("sh", "-c", script, "sh", path).Output()
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		return string(out)
	}
	if got := run(`sed -n 5p "$1"`); got != lines[4]+"\n" {
		t.Errorf("sed -n 5p: %q, want %q", got, lines[4])
	}
	if got := run(`head -n 3 "$1"`); got != strings.Join(lines[:3], "\n")+"\n" {
		t.Errorf("head: %q", got)
	}
	// awk sums the finite values as numbers.
	var want float64
	var finite []float64
	for _, l := range lines {
		x, _ := strconv.ParseFloat(strings.TrimSpace(l), 64)
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			want += x
			finite = append(finite, x)
		}
	}
	got, err := strconv.ParseFloat(strings.TrimSpace(run(`awk '$1 != "nan" && $1 != "inf" && $1 != "-inf" { s += $1 } END { printf "%.17g\n", s }' "$1"`)), 64)
	if err != nil || math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("awk sum %v, want %v (%v)", got, want, err)
	}
	// sort -g orders the finite values numerically.
	sorted := run(`grep -v -e nan -e inf "$1" | sort -g`)
	var seq []float64
	for _, l := range strings.Split(strings.TrimSuffix(sorted, "\n"), "\n") {
		x, _ := strconv.ParseFloat(strings.TrimSpace(l), 64)
		seq = append(seq, x)
	}
	if !slices.IsSorted(seq) || len(seq) != len(finite) {
		t.Errorf("sort -g: %d values, sorted %v", len(seq), slices.IsSorted(seq))
	}
}

// TestConcurrentReads reads every view from many goroutines at once, so
// that the race detector sees the caches and the row index shared.
func TestConcurrentReads(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	v := NewTensor(testmodel.MemTensor("x", tensor.BF16, []uint64{4, 9000}, randBytes(r, 2*4*9000)), nil)
	m := NewModel([]*Tensor{v})
	files := append(v.Files(), File{"table", m.StatsTable()})
	want := make([][]byte, len(files))
	for i, f := range files {
		want[i] = readWhole(t, f.Name, f.View)
	}
	fresh := NewTensor(v.Tensor(), nil)
	files = append(fresh.Files(), File{"table", NewModel([]*Tensor{fresh}).StatsTable()})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(uint64(g), 1))
			for range 50 {
				i := rr.IntN(len(files))
				size := files[i].View.Size()
				off := rr.Int64N(size)
				p := make([]byte, rr.IntN(5000)+1)
				n, _ := files[i].View.ReadAt(p, off)
				if !bytes.Equal(p[:n], want[i][off:off+int64(n)]) {
					t.Errorf("%s: concurrent read at %d differs", files[i].Name, off)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// TestCompanionsFP8: an F8_E4M3 weight with a weight_scale_inv and a
// weight_block_size in quantization_config decodes dequantized (each
// 2×2 block times its scale); other tensors have no companions.
func TestCompanionsFP8(t *testing.T) {
	// E4M3 0x38 is 1.0, 0x40 is 2.0.
	w := testmodel.MemTensor("m.w.weight", tensor.F8_E4M3, []uint64{2, 4}, []byte{0x38, 0x38, 0x40, 0x40, 0x38, 0x38, 0x40, 0x40})
	scales := make([]byte, 8)
	binary.LittleEndian.PutUint32(scales, math.Float32bits(0.5))
	binary.LittleEndian.PutUint32(scales[4:], math.Float32bits(3))
	s := testmodel.MemTensor("m.w.weight_scale_inv", tensor.F32, []uint64{1, 2}, scales)
	byName := map[string]*tensor.Tensor{w.Name: w, s.Name: s}
	c := NewCompanions(func(n string) *tensor.Tensor { return byName[n] }, []byte(`{"quantization_config":{"quant_method":"fp8","weight_block_size":[2,2]}}`))
	o := c.Options(w)
	if o == nil || o.Scale != s || o.Block != [2]uint64{2, 2} {
		t.Fatalf("options %+v", o)
	}
	got := readWhole(t, "values.f32", NewTensor(w, o).ValuesF32())
	want := []float32{0.5, 0.5, 6, 6, 0.5, 0.5, 6, 6}
	for i, v := range want {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != v {
			t.Errorf("element %d: %v, want %v", i, g, v)
		}
	}
	if c.Options(s) != nil {
		t.Error("the scale has companions")
	}
	// Without weight_block_size, the block quantconfig infers from the
	// scale's grid (as compare does): 128 along the rows, where one
	// scale row fits, 2 along the columns, where 2 scales cover 4; the
	// values are the same.
	c = NewCompanions(func(n string) *tensor.Tensor { return byName[n] }, nil)
	o = c.Options(w)
	if o == nil || o.Block != [2]uint64{128, 2} {
		t.Fatalf("inferred block: %+v", o)
	}
	got = readWhole(t, "values.f32", NewTensor(w, o).ValuesF32())
	for i, v := range want {
		if g := math.Float32frombits(binary.LittleEndian.Uint32(got[4*i:])); g != v {
			t.Errorf("inferred block, element %d: %v, want %v", i, g, v)
		}
	}
	var nilC *Companions
	if nilC.Options(w) != nil {
		t.Error("nil Companions")
	}
}
