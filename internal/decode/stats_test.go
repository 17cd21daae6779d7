package decode

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// synth makes n elements of dt drawn around zero with planted specials.
func synth(r *rand.Rand, dt tensor.DType, n int, plant bool) []byte {
	le := binary.LittleEndian
	var b []byte
	for i := range n {
		x := r.NormFloat64() * 0.02
		if i%97 == 5 {
			x = 0
		}
		var special float64
		hasSpecial := false
		if plant {
			switch i % 1009 {
			case 7:
				special, hasSpecial = math.NaN(), true
			case 11:
				special, hasSpecial = math.Inf(1), true
			case 13:
				special, hasSpecial = math.Inf(-1), true
			case 17:
				special, hasSpecial = math.Ldexp(1, -140), true // subnormal in BF16/F32
			}
		}
		if hasSpecial {
			x = special
		}
		switch dt {
		case tensor.BF16:
			b = le.AppendUint16(b, uint16(math.Float32bits(float32(x))>>16))
		case tensor.F16:
			b = le.AppendUint16(b, f16bits(x))
		case tensor.F32:
			b = le.AppendUint32(b, math.Float32bits(float32(x)))
		case tensor.F64:
			b = le.AppendUint64(b, math.Float64bits(x))
		case tensor.I32:
			b = le.AppendUint32(b, uint32(int32(x*1e6)))
		default:
			b = append(b, byte(r.Uint32()))
		}
	}
	return b
}

// f16bits rounds x to a nearby F16 by search over the decoded table (test
// data only needs to be valid F16, not correctly rounded).
func f16bits(x float64) uint16 {
	if x != x {
		return 0x7e00
	}
	if math.IsInf(x, 0) {
		if x > 0 {
			return 0x7c00
		}
		return 0xfc00
	}
	bits := math.Float32bits(float32(x))
	sign := uint16(bits>>16) & 0x8000
	a := math.Abs(x)
	if a < math.Ldexp(1, -24) {
		return sign
	}
	e := math.Ilogb(a)
	if e < -14 {
		return sign | uint16(a/math.Ldexp(1, -24))
	}
	m := uint16((a/math.Ldexp(1, e) - 1) * 1024)
	return sign | uint16(e+15)<<10 | m
}

// naive computes the statistics element by element from Float64.
func naive(t *testing.T, d *Decoder, bins int) *Stats {
	vals := make([]float64, d.Len())
	if err := d.Float64(0, vals); err != nil {
		t.Fatal(err)
	}
	var raw []byte
	if !d.Dequantized() || d.scale != nil {
		var err error
		if raw, err = d.Raw(0, d.t.NumElements()); err != nil {
			t.Fatal(err)
		}
	}
	s := &Stats{Count: uint64(len(vals)), Min: math.Inf(1), Max: math.Inf(-1)}
	var fin []float64
	for i, x := range vals {
		switch {
		case math.IsNaN(x):
			s.NaN++
		case math.IsInf(x, 1):
			s.PosInf++
		case math.IsInf(x, -1):
			s.NegInf++
		default:
			fin = append(fin, x)
			s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
			if x == 0 {
				s.Zeros++
			}
			bb := int(d.t.DType.BlockBytes())
			switch d.t.DType {
			case tensor.F4:
				if Subnormal(tensor.F4, uint64(raw[i/2]>>(4*(i%2))&15)) {
					s.Subnormals++
				}
			case tensor.F6_E2M3, tensor.F6_E3M2:
				g := raw[i/4*3:]
				v := uint64(g[0]) | uint64(g[1])<<8 | uint64(g[2])<<16
				if Subnormal(d.t.DType, v>>(6*(i%4))&63) {
					s.Subnormals++
				}
			}
			if d.Dequantized() && x != 0 && math.Abs(x) < 0x1p-126 {
				s.Subnormals++
			}
			if d.t.DType.BlockElems() == 1 && bb <= 8 && !d.Dequantized() {
				var code uint64
				for k := bb - 1; k >= 0; k-- {
					code = code<<8 | uint64(raw[i*bb+k])
				}
				if Subnormal(d.t.DType, code) {
					s.Subnormals++
				}
			}
		}
	}
	sum := 0.0
	for _, x := range fin {
		sum += x
	}
	s.Mean = sum / float64(len(fin))
	m2, sq := 0.0, 0.0
	for _, x := range fin {
		m2 += (x - s.Mean) * (x - s.Mean)
		sq += x * x
	}
	s.Std = math.Sqrt(m2 / float64(len(fin)))
	s.RMS = math.Sqrt(sq / float64(len(fin)))
	s.AbsMax = math.Max(-s.Min, s.Max)
	if bins > 0 {
		s.Hist = &Histogram{Counts: make([]uint64, bins)}
		for _, x := range fin {
			i := int((x - s.Min) / (s.Max - s.Min) * float64(bins))
			if s.Max == s.Min || i < 0 {
				i = 0
			}
			s.Hist.Counts[min(i, bins-1)]++
		}
	}
	return s
}

func near(a, b, rel float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b))
}

func compareStats(t *testing.T, what string, got, want *Stats, rel float64) {
	t.Helper()
	if got.Count != want.Count || got.NaN != want.NaN || got.PosInf != want.PosInf || got.NegInf != want.NegInf ||
		got.Zeros != want.Zeros || got.Subnormals != want.Subnormals {
		t.Errorf("%s counts: got %d/%d/%d/%d/%d/%d, want %d/%d/%d/%d/%d/%d", what,
			got.Count, got.NaN, got.PosInf, got.NegInf, got.Zeros, got.Subnormals,
			want.Count, want.NaN, want.PosInf, want.NegInf, want.Zeros, want.Subnormals)
	}
	if !near(got.Min, want.Min, 0) || !near(got.Max, want.Max, 0) || !near(got.AbsMax, want.AbsMax, 0) {
		t.Errorf("%s min/max/absmax: got %v %v %v, want %v %v %v", what, got.Min, got.Max, got.AbsMax, want.Min, want.Max, want.AbsMax)
	}
	// Mean is compared relative to the spread: a mean near zero has no
	// meaningful relative error of its own.
	if math.Abs(got.Mean-want.Mean) > rel*math.Max(math.Abs(want.Mean), want.RMS) || !near(got.Std, want.Std, rel) || !near(got.RMS, want.RMS, rel) {
		t.Errorf("%s mean/std/rms: got %.17g %.17g %.17g, want %.17g %.17g %.17g", what, got.Mean, got.Std, got.RMS, want.Mean, want.Std, want.RMS)
	}
	if want.Hist != nil {
		if got.Hist == nil || len(got.Hist.Counts) != len(want.Hist.Counts) {
			t.Fatalf("%s: histogram missing", what)
		}
		for i := range want.Hist.Counts {
			if got.Hist.Counts[i] != want.Hist.Counts[i] {
				t.Errorf("%s hist bin %d: got %d, want %d", what, i, got.Hist.Counts[i], want.Hist.Counts[i])
			}
		}
	}
}

// TestScanAgainstNaive runs every accumulation path (per-code counts,
// per-block moments, dequantized values) with chunks small enough that
// several workers merge, against an element-by-element computation.
func TestScanAgainstNaive(t *testing.T) {
	if err := Register(tensor.Q8_0, fakeQ8); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, dt := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32, tensor.F64, tensor.I32, tensor.U8, tensor.I8,
		tensor.BOOL, tensor.F8_E4M3, tensor.F8_E5M2, tensor.F8_E8M0, tensor.F4, tensor.F6_E2M3, tensor.Q8_0} {
		n := 12000
		var raw []byte
		if dt.BlockBytes() == 1 && dt.BlockElems() == 1 || dt.BlockElems() > 1 {
			size, _ := dt.ByteSize(uint64(n))
			raw = randBytes(r, int(size))
		} else {
			raw = synth(r, dt, n, true)
		}
		tt := testmodel.MemTensor("x", dt, []uint64{uint64(n)}, raw)
		d, err := NewDecoder(tt)
		if err != nil {
			t.Fatal(err)
		}
		want := naive(t, d, 16)
		for _, o := range []ScanOptions{{HistBins: 16}, {ChunkBytes: 1000, Workers: 3, HistBins: 16}, {ChunkBytes: 1, Workers: 2, HistBins: 16}} {
			got, err := d.Scan(context.Background(), &o)
			if err != nil {
				t.Fatalf("%s: %v", dt, err)
			}
			compareStats(t, dt.String(), got, want, 1e-12)
		}
	}
}

func TestScanSHA256AndProgress(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	raw := randBytes(r, 1<<20+6)
	tt := testmodel.MemTensor("x", tensor.BF16, []uint64{uint64(len(raw) / 2)}, raw)
	var last, calls int64
	s, err := Scan(context.Background(), tt, &ScanOptions{ChunkBytes: 4096, Workers: 4, SHA256: true, Progress: func(done, total int64) {
		if done < last || total != int64(len(raw)) {
			t.Errorf("progress %d/%d after %d", done, total, last)
		}
		last = done
		calls++
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := sha256.Sum256(raw)
	if string(s.SHA256) != string(want[:]) {
		t.Errorf("sha256 %x, want %x", s.SHA256, want)
	}
	if last != int64(len(raw)) || calls < 2 {
		t.Errorf("progress ended at %d after %d calls", last, calls)
	}
	// Wide type, two passes: progress counts both.
	tt = testmodel.MemTensor("x", tensor.F32, []uint64{1 << 10}, raw[:4096])
	last = 0
	_, err = Scan(context.Background(), tt, &ScanOptions{ChunkBytes: 512, HistBins: 8, SHA256: true, Progress: func(done, total int64) {
		if total != 8192 || done < last {
			t.Errorf("two-pass progress %d/%d", done, total)
		}
		last = done
	}})
	if err != nil || last != 8192 {
		t.Errorf("two-pass: %v, progress %d", err, last)
	}
}

// TestScanSHA256SlowClaimant stalls the worker that claimed chunk 0 (the
// first the digest needs) until every other worker waits for a buffer:
// the scan must still finish. Buffers taken by chunks after 0 are freed
// only once chunk 0 is hashed, so a design where the stalled worker's
// buffer can be taken by the others deadlocks here; the deadline turns
// that hang into a failure with the goroutines' stacks.
func TestScanSHA256SlowClaimant(t *testing.T) {
	const workers, chunk, chunks = 4, 256, 64
	raw := randBytes(rand.New(rand.NewPCG(3, 4)), chunk*chunks)
	tt := testmodel.MemTensor("x", tensor.BF16, []uint64{uint64(len(raw) / 2)}, raw)

	var mu sync.Mutex
	waiting := map[int]bool{}
	othersWait := make(chan struct{})
	released := false
	stalled := -1
	testHookClaimed = func(w int, c int64) {
		if c == 0 {
			mu.Lock()
			stalled = w
			mu.Unlock()
			<-othersWait
		}
	}
	testHookBufferWait = func(w int) {
		mu.Lock()
		defer mu.Unlock()
		if released || w == stalled {
			return
		}
		waiting[w] = true
		if len(waiting) == workers-1 {
			released = true
			close(othersWait)
		}
	}
	t.Cleanup(func() { testHookClaimed, testHookBufferWait = nil, nil })

	type result struct {
		s   *Stats
		err error
	}
	done := make(chan result, 1)
	go func() {
		s, err := Scan(context.Background(), tt, &ScanOptions{ChunkBytes: chunk, Workers: workers, SHA256: true})
		done <- result{s, err}
	}()
	select {
	case r := <-done:
		require.NoError(t, r.err)
		want := sha256.Sum256(raw)
		assert.Equal(t, want[:], r.s.SHA256)
	case <-time.After(time.Minute):
		buf := make([]byte, 1<<20)
		t.Fatalf("the scan deadlocked:\n%s", buf[:runtime.Stack(buf, true)])
	}
}

func TestScanErrors(t *testing.T) {
	raw := make([]byte, 1<<16)
	for _, sha := range []bool{false, true} {
		tt := testmodel.MemTensor("x", tensor.BF16, []uint64{1 << 15}, raw)
		tt.File.(*testmodel.MemFile).FailAt = 40000
		if _, err := Scan(context.Background(), tt, &ScanOptions{ChunkBytes: 1024, SHA256: sha}); !errors.Is(err, testmodel.ErrInjected) {
			t.Errorf("sha=%v: short read gave %v", sha, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tt := testmodel.MemTensor("x", tensor.BF16, []uint64{1 << 15}, raw)
	if _, err := Scan(ctx, tt, &ScanOptions{ChunkBytes: 1024, SHA256: true}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	// Empty tensor.
	s, err := Scan(context.Background(), testmodel.MemTensor("e", tensor.F32, []uint64{0, 5}, nil), &ScanOptions{SHA256: true, HistBins: 4})
	if err != nil || s.Count != 0 || !math.IsNaN(s.Mean) || s.Health() != HealthEmpty {
		t.Errorf("empty: %+v, %v", s, err)
	}
}

func TestHealth(t *testing.T) {
	cases := []struct {
		s    Stats
		want Health
	}{
		{Stats{}, HealthEmpty},
		{Stats{Count: 5, NaN: 1, PosInf: 1}, HealthNaN},
		{Stats{Count: 5, NegInf: 1}, HealthInf},
		{Stats{Count: 5, Zeros: 5}, HealthZero},
		{Stats{Count: 5, Min: 1, Max: 1}, HealthConstant},
		{Stats{Count: 1, Min: 1, Max: 1}, HealthOK},
		{Stats{Count: 5, Min: 0, Max: 1, Zeros: 1}, HealthOK},
	}
	for _, c := range cases {
		if got := c.s.Health(); got != c.want {
			t.Errorf("%+v: got %s, want %s", c.s, got, c.want)
		}
	}
}

// numpyStats runs testdata/stats.py on a raw file.
func numpyStats(t testing.TB, py, path string, dt tensor.DType) map[string]float64 {
	t.Helper()
	out, err := exec.Command(py, "testdata/stats.py", path, dt.String()).Output()
	if err != nil {
		t.Fatalf("stats.py: %v", err)
	}
	var m map[string]float64
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("stats.py output %q: %v", out, err)
	}
	return m
}

func fromNumpy(m map[string]float64) *Stats {
	s := &Stats{Count: uint64(m["count"]), NaN: uint64(m["nan"]), PosInf: uint64(m["posinf"]), NegInf: uint64(m["neginf"]),
		Zeros: uint64(m["zeros"]), Subnormals: uint64(m["subnormals"]), Min: math.NaN(), Max: math.NaN(), Mean: math.NaN(),
		Std: math.NaN(), AbsMax: math.NaN(), RMS: math.NaN()}
	if _, ok := m["mean"]; ok {
		s.Min, s.Max, s.Mean, s.Std, s.AbsMax, s.RMS = m["min"], m["max"], m["mean"], m["std"], m["absmax"], m["rms"]
	}
	return s
}

// TestScanAgainstNumpy compares with numpy on synthetic tensors with
// NaN, ±Inf, zeros and subnormals planted.
func TestScanAgainstNumpy(t *testing.T) {
	py := testmodel.Numpy(t)
	r := rand.New(rand.NewPCG(9, 10))
	dir := t.TempDir()
	for _, dt := range []tensor.DType{tensor.BF16, tensor.F16, tensor.F32, tensor.F64, tensor.I32} {
		for _, plant := range []bool{false, true} {
			raw := synth(r, dt, 300001, plant)
			path := filepath.Join(dir, dt.String())
			if err := os.WriteFile(path, raw, 0o644); err != nil {
				t.Fatal(err)
			}
			want := fromNumpy(numpyStats(t, py, path, dt))
			bb := dt.BlockBytes()
			got, err := Scan(context.Background(), testmodel.MemTensor("x", dt, []uint64{uint64(len(raw)) / bb}, raw), &ScanOptions{ChunkBytes: 1 << 16})
			if err != nil {
				t.Fatal(err)
			}
			compareStats(t, dt.String(), got, want, 1e-9)
		}
	}
}

// A small 16-bit tensor, counted in a sorted list of its codes rather
// than a table (#25: the root page of a large MoE scans thousands of
// them), has bit for bit the statistics the table gives.
func TestScanSmallSparseEqualsTable(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 4))
	for _, dt := range []tensor.DType{tensor.BF16, tensor.F16, tensor.I16, tensor.U16} {
		for _, n := range []int{1, 7, 2048, sparseCodes} {
			var raw []byte
			if dt == tensor.BF16 || dt == tensor.F16 {
				raw = synth(r, dt, n, true)
			} else {
				raw = randBytes(r, 2*n)
			}
			d, err := NewDecoder(testmodel.MemTensor("x", dt, []uint64{uint64(n)}, raw))
			if err != nil {
				t.Fatal(err)
			}
			counts := make([]uint64, 65536)
			for i := 0; i+2 <= len(raw); i += 2 {
				counts[binary.LittleEndian.Uint16(raw[i:])]++
			}
			want := tableStats(dt, nil, counts, d.codeValue, 16)
			for _, o := range []ScanOptions{{HistBins: 16}, {ChunkBytes: 1000, Workers: 3, HistBins: 16}, {ChunkBytes: 2, Workers: 2, HistBins: 16}} {
				got, err := d.Scan(context.Background(), &o)
				if err != nil {
					t.Fatal(err)
				}
				g, w := *got, *want
				g.Hist, w.Hist = nil, nil
				if g, w := fmt.Sprintf("%v %v", g, *got.Hist), fmt.Sprintf("%v %v", w, *want.Hist); g != w {
					t.Fatalf("%s, %d elements, %+v:\n got %s\nwant %s", dt, n, o, g, w)
				}
			}
			compareStats(t, dt.String(), want, naive(t, d, 16), 1e-12)
		}
	}
}

// Scanning a small 16-bit tensor allocates about its size, not a table
// of 65,536 counts (768 KB: #25, thousands of them for the first MiB of
// a large MoE's root page), nor a list of codes grown by appending and
// a buffer of 1,024 float64 that a counted scan never uses (64 KB).
func TestScanSmallAllocates(t *testing.T) {
	r := rand.New(rand.NewPCG(25, 5))
	d, err := NewDecoder(testmodel.MemTensor("x", tensor.BF16, []uint64{64, 32}, synth(r, tensor.BF16, 2048, false)))
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 20
	for range runs {
		if _, err := d.Scan(context.Background(), &ScanOptions{HistBins: 32}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 32<<10 {
		t.Fatalf("a scan of 2,048 BF16 elements allocates %d bytes", per)
	}
}
