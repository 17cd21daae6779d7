// Package scan computes the statistics of every tensor of a model, in
// parallel and in bounded memory, for fsinspect --scan: NaN, Inf and
// all-zero tensors are failures, constant tensors and tensors
// byte-identical to another are warnings. It renders the report's
// "values" section and its JSON.
package scan

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/numfmt"
	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// Options tune a scan; the zero value is fine.
type Options struct {
	// Workers bounds the goroutines; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, is called with the bytes scanned so far and the
	// total, from any goroutine, at most every 100 ms or so.
	Progress func(done, total int64)
}

// Entry is one tensor's result.
type Entry struct {
	Name  string
	Stats *decode.Stats // nil when Err is set
	// Err says why the tensor could not be decoded or read.
	Err error
}

// Result is a model's scan.
type Result struct {
	Entries []Entry // in the model's order (by name)
	// Duplicates are groups of byte-identical tensors, other than a
	// tied head and its embedding.
	Duplicates [][]string
	Bytes      int64
	Elapsed    time.Duration
}

// bigTensor is the size from which one tensor is scanned on every core;
// smaller ones are scanned one per core.
const bigTensor = 64 << 20

// Model scans every tensor of m. A tensor that cannot be decoded is an
// Entry with Err, not a failure of the scan; a read error is returned.
func Model(ctx context.Context, m *model.Model, opts Options) (*Result, error) {
	return Tensors(ctx, m.Tensors(), m.Tensor, m.Config, m.Source, opts)
}

// Tensors scans ts, sorted by name, as Model scans a model's: lookup
// finds a tensor by name (a quantized weight's companions, the
// duplicates' bytes), config is config.json's bytes, or nil, and fsys
// holds the files beside it (a quantization's own config), or is nil.
// An adapter's tensors are scanned this way.
func Tensors(ctx context.Context, ts []*tensor.Tensor, lookup func(string) *tensor.Tensor, config []byte, fsys source.FS, opts Options) (*Result, error) {
	start := time.Now()
	comp := views.NewCompanionsFS(lookup, config, fsys)
	res := &Result{Entries: make([]Entry, len(ts))}
	for _, t := range ts {
		res.Bytes += t.Length
	}
	workers := cmp.Or(opts.Workers, runtime.GOMAXPROCS(0))
	var done atomic.Int64
	var lastReport atomic.Int64
	progress := func(n int64) {
		d := done.Add(n)
		if opts.Progress == nil {
			return
		}
		now := time.Now().UnixNano()
		if last := lastReport.Load(); now-last > int64(100*time.Millisecond) && lastReport.CompareAndSwap(last, now) {
			opts.Progress(d, res.Bytes)
		}
	}
	scanOne := func(i int, w int) error {
		t := ts[i]
		v := views.NewTensor(t, comp.Options(t))
		if err := v.Err(); err != nil {
			res.Entries[i] = Entry{Name: t.Name, Err: err}
			progress(t.Length)
			return nil
		}
		var (
			mu   sync.Mutex
			prev int64
		)
		st, err := v.Decoder().Scan(ctx, &decode.ScanOptions{Workers: w, Progress: func(d, _ int64) {
			mu.Lock()
			defer mu.Unlock()
			if d > prev {
				progress(d - prev)
				prev = d
			}
		}})
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		progress(t.Length - prev)
		res.Entries[i] = Entry{Name: t.Name, Stats: st}
		return nil
	}
	// Big tensors one at a time on every core, then the rest on a pool.
	var small []int
	for i, t := range ts {
		if t.Length < bigTensor {
			small = append(small, i)
			continue
		}
		if err := scanOne(i, workers); err != nil {
			return nil, err
		}
	}
	err := par.Do(ctx, workers, len(small), func(_ context.Context, _, j int) error { return scanOne(small[j], 1) })
	if err != nil {
		return nil, err
	}
	if opts.Progress != nil {
		opts.Progress(res.Bytes, res.Bytes)
	}
	dups, err := duplicates(lookup, res)
	if err != nil {
		return nil, err
	}
	res.Duplicates = dups
	res.Elapsed = time.Since(start)
	return res, nil
}

// duplicates finds byte-identical tensors: tensors of one dtype and
// length whose statistics are equal are compared byte for byte. A tied
// head and its embedding are not reported.
func duplicates(lookup func(string) *tensor.Tensor, res *Result) ([][]string, error) {
	type key struct {
		dt                    tensor.DType
		n                     int64
		count, nan, zeros     uint64
		mean, std, lo, hi, ab uint64
	}
	groups := map[key][]*tensor.Tensor{}
	for _, e := range res.Entries {
		if e.Stats == nil || e.Stats.Count < 2 {
			continue
		}
		t, s := lookup(e.Name), e.Stats
		k := key{t.DType, t.Length, s.Count, s.NaN, s.Zeros,
			math.Float64bits(s.Mean), math.Float64bits(s.Std), math.Float64bits(s.Min), math.Float64bits(s.Max), math.Float64bits(s.AbsMax)}
		groups[k] = append(groups[k], t)
	}
	var out [][]string
	for _, g := range groups {
		for len(g) > 1 {
			same := []string{g[0].Name}
			var rest []*tensor.Tensor
			for _, u := range g[1:] {
				off, err := tensor.FirstDifference(g[0], u)
				if err != nil {
					return nil, err
				}
				if off < 0 {
					same = append(same, u.Name)
				} else {
					rest = append(rest, u)
				}
			}
			if len(same) > 1 && !tiedPair(same) {
				out = append(out, same)
			}
			g = rest
		}
	}
	slices.SortFunc(out, func(a, b []string) int { return strings.Compare(a[0], b[0]) })
	return out, nil
}

func tiedPair(names []string) bool {
	return len(names) == 2 && names[0] == "lm_head.weight" && names[1] == "model.embed_tokens.weight"
}

// Failed reports whether a tensor holds NaN or Inf or is all zero: the
// scan's exit code 1.
func (r *Result) Failed() bool {
	for _, e := range r.Entries {
		if e.Stats != nil {
			switch e.Stats.Health() {
			case decode.HealthNaN, decode.HealthInf, decode.HealthZero:
				return true
			}
		}
	}
	return false
}

// Text renders the report's values section.
func (r *Result) Text() string {
	var b strings.Builder
	b.WriteString(check.SectionRule("values"))
	var bad, warn, undecoded int
	for _, e := range r.Entries {
		name := check.Escape(e.Name)
		if e.Err != nil {
			undecoded++
			fmt.Fprintf(&b, "  - not decoded: %s: %s\n", name, e.Err)
			continue
		}
		s := e.Stats
		switch s.Health() {
		case decode.HealthNaN, decode.HealthInf:
			bad++
			fmt.Fprintf(&b, "  ✗ %s: %s holds %s NaN, %s +Inf, %s -Inf in %s values\n", s.Health(), name, numfmt.Commas(s.NaN), numfmt.Commas(s.PosInf), numfmt.Commas(s.NegInf), numfmt.Commas(s.Count))
		case decode.HealthZero:
			bad++
			fmt.Fprintf(&b, "  ✗ zero: every one of the %s values of %s is zero\n", numfmt.Commas(s.Count), name)
		case decode.HealthConstant:
			warn++
			fmt.Fprintf(&b, "  ! constant: every one of the %s values of %s is %g\n", numfmt.Commas(s.Count), name, s.Min)
		}
	}
	for _, d := range r.Duplicates {
		warn++
		esc := make([]string, len(d))
		for i, n := range d {
			esc[i] = check.Escape(n)
		}
		fmt.Fprintf(&b, "  ! duplicate: %s are byte-identical\n", strings.Join(esc, " = "))
	}
	mark := "✓"
	if bad > 0 {
		mark = "✗"
	}
	fmt.Fprintf(&b, "  %s %s tensors scanned: %s bad, %s %s, %s not decoded\n", mark, numfmt.Commas(uint64(len(r.Entries))), numfmt.Commas(uint64(bad)), numfmt.Commas(uint64(warn)), plural(warn, "warning", "warnings"), numfmt.Commas(uint64(undecoded)))
	secs := r.Elapsed.Seconds()
	fmt.Fprintf(&b, "  %s bytes in %.2f s (%.2f GB/s)\n", numfmt.Commas(uint64(r.Bytes)), secs, float64(r.Bytes)/1e9/math.Max(secs, 1e-9))
	return b.String()
}

// JSON returns the scan as a value for encoding/json: per tensor its
// statistics and health, and the duplicate groups.
func (r *Result) JSON() any {
	type jt struct {
		Name       string   `json:"name"`
		Health     string   `json:"health,omitempty"`
		Error      string   `json:"error,omitempty"`
		Count      uint64   `json:"count"`
		NaN        uint64   `json:"nan"`
		PosInf     uint64   `json:"posinf"`
		NegInf     uint64   `json:"neginf"`
		Zeros      uint64   `json:"zeros"`
		Subnormals uint64   `json:"subnormals"`
		Min        *float64 `json:"min"`
		Max        *float64 `json:"max"`
		Mean       *float64 `json:"mean"`
		Std        *float64 `json:"std"`
		AbsMax     *float64 `json:"absmax"`
		RMS        *float64 `json:"rms"`
	}
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	out := struct {
		Failed     bool       `json:"failed"`
		Bytes      int64      `json:"bytes"`
		Seconds    float64    `json:"seconds"`
		Tensors    []jt       `json:"tensors"`
		Duplicates [][]string `json:"duplicates"`
	}{Failed: r.Failed(), Bytes: r.Bytes, Seconds: r.Elapsed.Seconds(), Tensors: []jt{}, Duplicates: [][]string{}}
	out.Duplicates = append(out.Duplicates, r.Duplicates...)
	for _, e := range r.Entries {
		j := jt{Name: e.Name}
		if e.Err != nil {
			j.Error = e.Err.Error()
		} else {
			s := e.Stats
			j.Health = string(s.Health())
			j.Count, j.NaN, j.PosInf, j.NegInf, j.Zeros, j.Subnormals = s.Count, s.NaN, s.PosInf, s.NegInf, s.Zeros, s.Subnormals
			j.Min, j.Max, j.Mean, j.Std, j.AbsMax, j.RMS = num(s.Min), num(s.Max), num(s.Mean), num(s.Std), num(s.AbsMax), num(s.RMS)
		}
		out.Tensors = append(out.Tensors, j)
	}
	return out
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
