// Package merge proves that a merged model is a base model plus a LoRA
// adapter: every adapted weight equals base + scale·B·A (DoRA: the
// magnitude times the row-normalised sum) within the rounding of the
// merged dtype, every full copy the adapter saves (modules to save,
// trained biases) equals that copy, and every other tensor is identical
// to the base's. It reads each tensor once, in chunks of rows, on every
// core, computing each delta row from the factors (package adapter) and
// never a whole matrix.
package merge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fsmount/fsmount/internal/numfmt"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// Kinds of tensors the proof checks.
const (
	KindAdapted   = "adapted"   // base + delta
	KindCopy      = "copy"      // the adapter's full copy
	KindUntouched = "untouched" // the base's, identical
)

// Tensor is the verdict on one tensor of the merged model.
type Tensor struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	OK   bool   `json:"ok"`
	// Shape is the merged tensor's.
	Shape []uint64 `json:"shape"`
	// Off counts the elements outside the tolerance (adapted, copies)
	// or differing (untouched), of Elements.
	Off      uint64 `json:"off"`
	Elements uint64 `json:"elements"`
	// First is the flat index of the first element off, and Got and Want
	// its values there, Tol the tolerance there.
	First uint64  `json:"first,omitempty"`
	Got   float64 `json:"got,omitempty"`
	Want  float64 `json:"want,omitempty"`
	Tol   float64 `json:"tolerance,omitempty"`
	// Worst is the largest |merged − expected| / tolerance.
	Worst float64 `json:"worst_ratio"`
	// NonFinite counts the elements off because the merged value, the
	// base's or the delta is NaN or infinite (adapted, copies): no
	// tolerance proves those. They are counted in Off too.
	NonFinite uint64 `json:"non_finite,omitempty"`
	Detail    string `json:"detail,omitempty"` // why it was not compared
}

// Result is the proof.
type Result struct {
	Merged, Base, Adapter string
	Tensors               []*Tensor
	// Missing are base tensors the merged model lacks, Extra merged
	// tensors neither the base nor the adapter has.
	Missing, Extra []string
}

// OK reports whether the merged model is the base plus the adapter.
func (r *Result) OK() bool {
	if len(r.Missing) > 0 || len(r.Extra) > 0 {
		return false
	}
	for _, t := range r.Tensors {
		if !t.OK {
			return false
		}
	}
	return true
}

// Options are the options of Prove; nil means defaults.
type Options struct {
	// Workers is the goroutines reading; 0 means GOMAXPROCS.
	Workers int
	// Progress, if set, is told the bytes of the merged model done.
	Progress func(done, total int64)
}

// unit returns the unit roundoff of a float dtype, or 0.
func unit(dt tensor.DType) float64 {
	switch dt {
	case tensor.F32:
		return 0x1p-24
	case tensor.BF16:
		return 0x1p-8
	case tensor.F16:
		return 0x1p-11
	case tensor.F64:
		return 0x1p-53
	}
	return 0
}

// job is one chunk of one tensor.
type job struct {
	t          *Tensor
	merged     *tensor.Tensor
	base       *tensor.Tensor // the base tensor, or the adapter's copy
	mod        *adapter.Module
	delta      *adapter.Delta
	magnitude  []float32
	start, n   uint64 // elements
	rows, cols uint64
}

// Prove checks merged against the checked adapter r and its base.
func Prove(r *adapter.Report, merged *model.Model, opts *Options) (*Result, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	base := r.Base
	res := &Result{Merged: merged.Location, Base: base.Location, Adapter: r.Adapter.Location}
	byWeight := map[string]*adapter.Module{}
	for _, m := range r.Modules {
		if m.Weight != nil {
			byWeight[m.Weight.Name] = m
		}
	}
	var jobs []job
	var total int64
	for _, bt := range base.Tensors() {
		mt := merged.Tensor(bt.Name)
		if mt == nil {
			res.Missing = append(res.Missing, bt.Name)
			continue
		}
		t := &Tensor{Name: bt.Name, Kind: KindUntouched, OK: true, Elements: mt.NumElements(), Shape: mt.Shape}
		res.Tensors = append(res.Tensors, t)
		ref := bt
		var mod *adapter.Module
		var d *adapter.Delta
		var mag []float32
		switch {
		case byWeight[bt.Name] != nil:
			t.Kind, mod = KindAdapted, byWeight[bt.Name]
			var err error
			if d, err = mod.Delta(); err != nil {
				t.OK, t.Detail = false, err.Error()
				continue
			}
			if err := d.NonFinite(); err != nil {
				t.OK, t.Detail = false, err.Error()
				continue
			}
			if mod.Magnitude != nil {
				if mod.Kind != adapter.KindLinear {
					t.OK, t.Detail = false, "DoRA on a "+mod.Kind+" is not proved"
					continue
				}
				if mag, err = decode.Values(mod.Magnitude); err != nil {
					return nil, err
				}
				if err := adapter.CheckFinite(mod.Magnitude, mag); err != nil {
					t.OK, t.Detail = false, err.Error()
					continue
				}
				if uint64(len(mag)) != d.Rows {
					t.OK, t.Detail = false, fmt.Sprintf("magnitude has %d values for %d rows", len(mag), d.Rows)
					continue
				}
			}
		case r.Copies[bt.Name] != nil:
			t.Kind, ref = KindCopy, r.Copies[bt.Name]
		}
		if !slices.Equal(mt.Shape, ref.Shape) {
			t.OK, t.Detail = false, fmt.Sprintf("merged is %s, expected %s", tensor.FormatShape(mt.Shape), tensor.FormatShape(ref.Shape))
			continue
		}
		if t.Kind != KindUntouched && unit(mt.DType) == 0 {
			t.OK, t.Detail = false, "merged dtype "+mt.DType.String()+" is not a float type the proof reads"
			continue
		}
		total += mt.Length
		rows, cols := uint64(1), t.Elements
		if len(mt.Shape) >= 2 {
			cols = mt.Shape[len(mt.Shape)-1]
			rows = t.Elements / max(cols, 1)
		}
		chunkRows := max(1, (1<<18)/max(cols, 1))
		if mag != nil {
			chunkRows = max(1, chunkRows) // DoRA needs whole rows: chunks are rows
		}
		if t.Kind == KindUntouched && mt.DType == ref.DType {
			// Bytes: 4 MiB at a time.
			per := uint64(4 << 20)
			for off := uint64(0); off < uint64(mt.Length) || off == 0; off += per {
				jobs = append(jobs, job{t: t, merged: mt, base: ref, start: off, n: min(per, uint64(mt.Length)-off)})
				if mt.Length == 0 {
					break
				}
			}
			continue
		}
		for r0 := uint64(0); r0 < rows; r0 += chunkRows {
			nr := min(chunkRows, rows-r0)
			jobs = append(jobs, job{t: t, merged: mt, base: ref, mod: mod, delta: d, magnitude: mag, start: r0 * cols, n: nr * cols, rows: nr, cols: cols})
		}
	}
	for _, mt := range merged.Tensors() {
		if base.Tensor(mt.Name) == nil {
			if c := r.Copies[mt.Name]; c != nil {
				t := &Tensor{Name: mt.Name, Kind: KindCopy, OK: true, Elements: mt.NumElements(), Shape: mt.Shape}
				res.Tensors = append(res.Tensors, t)
				if !slices.Equal(mt.Shape, c.Shape) || unit(mt.DType) == 0 {
					t.OK, t.Detail = false, fmt.Sprintf("merged is %s %s, the adapter's copy %s", mt.DType, tensor.FormatShape(mt.Shape), tensor.FormatShape(c.Shape))
					continue
				}
				total += mt.Length
				cols := mt.Shape[len(mt.Shape)-1]
				jobs = append(jobs, job{t: t, merged: mt, base: c, start: 0, n: t.Elements, rows: t.Elements / max(cols, 1), cols: cols})
				continue
			}
			res.Extra = append(res.Extra, mt.Name)
		}
	}
	slices.SortFunc(res.Tensors, func(a, b *Tensor) int { return strings.Compare(a.Name, b.Name) })
	if err := run(jobs, o, total); err != nil {
		return nil, err
	}
	return res, nil
}

// run does the jobs on o.Workers goroutines; the first error stops the
// claims.
func run(jobs []job, o Options, total int64) error {
	var mu sync.Mutex
	var done int64
	ws := make([]worker, max(1, min(o.Workers, len(jobs))))
	return par.Do(context.Background(), len(ws), len(jobs), func(_ context.Context, w, i int) error {
		j := &jobs[i]
		out, bytesDone, err := ws[w].do(j)
		mu.Lock()
		defer mu.Unlock()
		out.into(j.t)
		done += bytesDone
		if o.Progress != nil {
			o.Progress(min(done, total), total)
		}
		return err
	})
}

// outcome is one job's findings.
type outcome struct {
	off            uint64
	first          uint64
	got, want, tol float64
	worst          float64
	hasFirst       bool
	nonFinite      uint64
}

func (o *outcome) into(t *Tensor) {
	t.Worst = max(t.Worst, o.worst)
	if o.off == 0 {
		return
	}
	if t.Off == 0 || o.first < t.First {
		t.First, t.Got, t.Want, t.Tol = o.first, o.got, o.want, o.tol
	}
	t.Off += o.off
	t.NonFinite += o.nonFinite
	t.OK = false
}

// worker holds the buffers one goroutine reuses.
type worker struct {
	a, b    []byte
	m, w    []float64
	d, dabs []float32
	mf, wf  []float32
}

// narrow reports whether a dtype's values are 16-bit floats, whose
// rounding (2⁻⁸, 2⁻¹¹) float32 arithmetic resolves with room to spare.
func narrow(dt tensor.DType) bool { return dt == tensor.BF16 || dt == tensor.F16 }

// narrow checks an adapted tensor whose base and merged dtypes are 16-bit
// floats, in float32: each element's w + d and tolerance in float32 (their
// rounding, 2⁻²⁴ relative, is far inside the 16-bit one); an element
// beyond, or NaN, is judged again in float64 with the delta's own error
// bound, as the general path does.
func (w *worker) narrow(j *job) (outcome, int64, error) {
	var o outcome
	mb, bb := int(j.merged.DType.BlockBytes()), int(j.base.DType.BlockBytes())
	a, err := bytesAt(j.merged, int64(j.start)*int64(mb), int64(j.n)*int64(mb), &w.a)
	if err != nil {
		return o, 0, err
	}
	b, err := bytesAt(j.base, int64(j.start)*int64(bb), int64(j.n)*int64(bb), &w.b)
	if err != nil {
		return o, 0, err
	}
	w.mf, w.wf = grow(w.mf, j.n), grow(w.wf, j.n)
	if _, err := decode.Float32(j.merged.DType, a, w.mf); err != nil {
		return o, 0, err
	}
	if _, err := decode.Float32(j.base.DType, b, w.wf); err != nil {
		return o, 0, err
	}
	w.d, w.dabs = grow(w.d, j.cols), grow(w.dabs, j.cols)
	u := float32(unit(j.merged.DType))
	td := float32(tiny(j.merged.DType))
	ud, tdd := float64(u), float64(td)
	eps32 := float64(j.delta.Rank()+2) * 0x1p-24
	r0 := j.start / j.cols
	// The worst diff/tol, kept as the pair, compared by cross-multiplying:
	// no division per element.
	wDiff, wTol := float32(0), float32(1)
	for i := range j.rows {
		row := r0 + i
		j.delta.Row(row, 0, w.d)
		hasAbs := false
		m := w.mf[i*j.cols : (i+1)*j.cols]
		bw := w.wf[i*j.cols : (i+1)*j.cols]
		for c, d := range w.d {
			x, wv := m[c], bw[c]
			want := wv + d
			tol := 2*u*(abs32(wv)+abs32(d)) + td
			diff := abs32(x - want)
			if diff <= tol && tol <= math.MaxFloat32 {
				if diff*wTol > wDiff*tol {
					wDiff, wTol = diff, tol
				}
				continue
			}
			// Again in float64, with the delta's own rounding.
			if !hasAbs {
				j.delta.RowAbs(row, 0, w.dabs)
				hasAbs = true
			}
			wantD := float64(wv) + float64(d)
			tolD := 2*ud*(math.Abs(float64(wv))+math.Abs(float64(d))) + tdd + eps32*float64(w.dabs[c])
			o.checkFinite(row*j.cols+uint64(c), float64(x), wantD, tolD)
		}
	}
	o.worst = max(o.worst, float64(wDiff)/float64(wTol))
	return o, int64(j.n) * int64(mb), nil
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

func grow[T any](s []T, n uint64) []T {
	if uint64(cap(s)) < n {
		return make([]T, n)
	}
	return s[:n]
}

func (w *worker) do(j *job) (o outcome, done int64, err error) {
	// A mapped file truncated underneath faults: an error, not a crash.
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			o, done, err = outcome{}, 0, fmt.Errorf("%s: a mapped file failed while read: %v", j.t.Name, r)
		}
	}()
	return w.check(j)
}

func (w *worker) check(j *job) (outcome, int64, error) {
	var o outcome
	if j.rows == 0 {
		// Bytes of an untouched tensor of the same dtype.
		a, err := bytesAt(j.merged, int64(j.start), int64(j.n), &w.a)
		if err != nil {
			return o, 0, err
		}
		b, err := bytesAt(j.base, int64(j.start), int64(j.n), &w.b)
		if err != nil {
			return o, 0, err
		}
		if !bytes.Equal(a, b) {
			bb := int(j.merged.DType.BlockBytes())
			for i := range a {
				if a[i] != b[i] && !o.hasFirst {
					o.first, o.hasFirst = (j.start+uint64(i))/uint64(max(bb, 1))*j.merged.DType.BlockElems(), true
				}
			}
			// Count differing elements.
			for i := 0; i+bb <= len(a); i += bb {
				if !bytes.Equal(a[i:i+bb], b[i:i+bb]) {
					o.off++
				}
			}
		}
		return o, int64(j.n), nil
	}
	if j.delta != nil && j.magnitude == nil && narrow(j.merged.DType) && narrow(j.base.DType) {
		return w.narrow(j)
	}
	md, err := decode.NewDecoder(j.merged)
	if err != nil {
		return o, 0, err
	}
	bd, err := decode.NewDecoder(j.base)
	if err != nil {
		return o, 0, err
	}
	w.m, w.w = grow(w.m, j.n), grow(w.w, j.n)
	if err := md.Float64(j.start, w.m); err != nil {
		return o, 0, err
	}
	if err := bd.Float64(j.start, w.w); err != nil {
		return o, 0, err
	}
	u := unit(j.merged.DType)
	if j.delta == nil {
		// Identical values (an untouched tensor stored in another
		// dtype), or the adapter's copy within the merged rounding.
		for i, x := range w.m {
			if j.t.Kind == KindCopy {
				want := w.w[i]
				o.checkFinite(j.start+uint64(i), x, want, u*math.Abs(want)+tiny(j.merged.DType))
				continue
			}
			o.check(j.start+uint64(i), x, w.w[i], 0)
		}
		return o, int64(j.n) * int64(j.merged.DType.BlockBytes()) / int64(j.merged.DType.BlockElems()), nil
	}
	w.d, w.dabs = grow(w.d, j.cols), grow(w.dabs, j.cols)
	r0 := j.start / j.cols
	// The float32 delta is within (rank+2)·2⁻²⁴ of Σ|terms| of the exact one.
	eps32 := float64(j.delta.Rank()+2) * 0x1p-24
	td := tiny(j.merged.DType)
	for i := range j.rows {
		j.delta.Row(r0+i, 0, w.d)
		// Σ|terms| bounds the float32 delta's own error; it is computed
		// only for a row where the tolerance without it is exceeded.
		hasAbs := false
		abs := func(c int) float64 {
			if !hasAbs {
				j.delta.RowAbs(r0+i, 0, w.dabs)
				hasAbs = true
			}
			return float64(w.dabs[c])
		}
		m := w.m[i*j.cols : (i+1)*j.cols]
		b := w.w[i*j.cols : (i+1)*j.cols]
		if j.magnitude != nil {
			// DoRA: merged = magnitude · (W + ΔW) / ‖W + ΔW‖ (row norm).
			var ss float64
			for c := range b {
				v := b[c] + float64(w.d[c])
				ss += v * v
			}
			f := float64(j.magnitude[r0+i]) / math.Sqrt(ss)
			for c, x := range m {
				want := (b[c] + float64(w.d[c])) * f
				tol := 2*u*math.Abs(want) + math.Abs(f)*2*u*(math.Abs(b[c])+math.Abs(float64(w.d[c]))) + td
				if math.Abs(x-want) > tol {
					tol += math.Abs(f) * eps32 * abs(c)
				}
				o.checkFinite((r0+i)*j.cols+uint64(c), x, want, tol)
			}
			continue
		}
		for c, x := range m {
			d := float64(w.d[c])
			want := b[c] + d
			// Two roundings to the merged dtype (delta, then the sum)
			// and the delta's own float32 error.
			tol := 2*u*(math.Abs(b[c])+math.Abs(d)) + td
			if math.Abs(x-want) > tol {
				tol += eps32 * abs(c)
			}
			o.checkFinite((r0+i)*j.cols+uint64(c), x, want, tol)
		}
	}
	return o, int64(j.n) * int64(j.merged.DType.BlockBytes()) / int64(j.merged.DType.BlockElems()), nil
}

// tiny is the smallest positive normal of a float dtype: the absolute
// floor of a tolerance, for values that round to a subnormal.
func tiny(dt tensor.DType) float64 {
	switch dt {
	case tensor.F16:
		return 0x1p-14
	case tensor.BF16, tensor.F32:
		return 0x1p-126
	}
	return 0x1p-1022
}

// checkFinite is check for a value computed with a tolerance (an adapted
// weight, a copy): a NaN or an infinity in the merged value, the base's
// or the delta is off, whatever it equals, since a tolerance made from it
// is no bound (an Inf in lora_A made it +Inf and passed anything).
func (o *outcome) checkFinite(idx uint64, got, want, tol float64) {
	if finite(got) && finite(want) && finite(tol) {
		o.check(idx, got, want, tol)
		return
	}
	o.off++
	o.nonFinite++
	if !o.hasFirst {
		o.first, o.got, o.want, o.tol, o.hasFirst = idx, got, want, tol, true
	}
}

func finite(x float64) bool { return x-x == 0 }

// check counts an element off when got is beyond tol of want; a NaN that
// stayed NaN, or the same infinity, is not off (an untouched tensor).
func (o *outcome) check(idx uint64, got, want, tol float64) {
	if got != got && want != want || got == want {
		return // both NaN (a NaN weight stays NaN), or equal (±Inf too)
	}
	diff := math.Abs(got - want)
	if tol > 0 {
		o.worst = max(o.worst, diff/tol)
	}
	if diff <= tol {
		return
	}
	o.off++
	if !o.hasFirst {
		o.first, o.got, o.want, o.tol, o.hasFirst = idx, got, want, tol, true
	}
}

// bytesAt returns n bytes of t from offset off within it: a slice of the
// file's mapping where it has one (no copy; a fault of the mapping is
// recovered in do), else read into *buf.
func bytesAt(t *tensor.Tensor, off, n int64, buf *[]byte) ([]byte, error) {
	if m, ok := t.File.(source.Mappable); ok {
		if data, err := m.Mapping(); err == nil && t.Offset+off+n <= int64(len(data)) && off >= 0 {
			return data[t.Offset+off : t.Offset+off+n], nil
		}
	}
	*buf = grow(*buf, uint64(n))
	return *buf, readAt(t, *buf, off)
}

func readAt(t *tensor.Tensor, p []byte, off int64) error {
	n, err := t.File.ReadAt(p, t.Offset+off)
	if n == len(p) {
		return nil
	}
	return &decode.ShortReadError{Name: t.Name, Offset: t.Offset + off, Want: len(p), Got: n, Err: err}
}

// Text renders the proof.
func (r *Result) Text() string {
	var b strings.Builder
	b.WriteString(check.SectionRule("merge proof"))
	line := func(format string, args ...any) {
		b.WriteString("  ")
		b.WriteString(check.Escape(fmt.Sprintf(format, args...)))
		b.WriteByte('\n')
	}
	line("merged   %s", r.Merged)
	line("base     %s", r.Base)
	line("adapter  %s", r.Adapter)
	count := map[string]int{}
	worst := map[string]float64{}
	var bad []*Tensor
	for _, t := range r.Tensors {
		if t.OK {
			count[t.Kind]++
			worst[t.Kind] = max(worst[t.Kind], t.Worst)
		} else {
			bad = append(bad, t)
		}
	}
	if n := count[KindAdapted]; n > 0 {
		line("✓ %d adapted %s = base + scale·B·A within the merged dtype's rounding (worst error %.2f of the tolerance)", n, plural(n, "tensor", "tensors"), worst[KindAdapted])
	}
	if n := count[KindCopy]; n > 0 {
		line("✓ %d %s the adapter's full copies (modules to save, trained biases)", n, plural(n, "tensor is", "tensors are"))
	}
	if n := count[KindUntouched]; n > 0 {
		line("✓ %d untouched %s identical to the base", n, plural(n, "tensor", "tensors"))
	}
	for _, t := range bad {
		switch {
		case t.Detail != "":
			line("✗ %s (%s): %s", t.Name, t.Kind, t.Detail)
		case t.NonFinite > 0:
			line("✗ %s (%s): %s of %s elements not finite (NaN or Inf in the merged weight, the base's or the delta: no tolerance proves them), first at %s: merged %.8g, expected %.8g", t.Name, t.Kind, numfmt.Commas(t.NonFinite), numfmt.Commas(t.Elements), tensor.FormatIndex(t.First, t.Shape), t.Got, t.Want)
		case t.Kind == KindUntouched:
			line("✗ %s (untouched): %s of %s elements differ from the base, first at %s", t.Name, numfmt.Commas(t.Off), numfmt.Commas(t.Elements), tensor.FormatIndex(t.First, t.Shape))
		default:
			line("✗ %s (%s): %s of %s elements off, first at %s: merged %.8g, expected %.8g (tolerance %.3g)", t.Name, t.Kind, numfmt.Commas(t.Off), numfmt.Commas(t.Elements), tensor.FormatIndex(t.First, t.Shape), t.Got, t.Want, t.Tol)
		}
	}
	for _, n := range r.Missing {
		line("✗ missing: %s is in the base, not in the merged model", n)
	}
	for _, n := range r.Extra {
		line("✗ unexpected: %s is in the merged model, neither in the base nor in the adapter", n)
	}
	if r.OK() {
		line("✓ the merged model is the base plus the adapter")
	} else {
		n := len(bad) + len(r.Missing) + len(r.Extra)
		line("✗ the merged model is not the base plus the adapter: %d %s", n, plural(n, "tensor differs", "tensors differ"))
	}
	return b.String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// JSON renders the proof for machines.
func (r *Result) JSON() []byte {
	j := struct {
		OK      bool      `json:"ok"`
		Merged  string    `json:"merged"`
		Base    string    `json:"base"`
		Adapter string    `json:"adapter"`
		Tensors []*Tensor `json:"tensors"`
		Missing []string  `json:"missing"`
		Extra   []string  `json:"unexpected"`
	}{r.OK(), r.Merged, r.Base, r.Adapter, r.Tensors, r.Missing, r.Extra}
	if j.Missing == nil {
		j.Missing = []string{}
	}
	if j.Extra == nil {
		j.Extra = []string{}
	}
	out, _ := json.MarshalIndent(j, "", "  ")
	return append(out, '\n')
}

// MarshalJSON renders t; a non-finite got, want, tolerance or worst
// ratio, which JSON has no number for, is the string "NaN", "+Inf" or
// "-Inf".
func (t *Tensor) MarshalJSON() ([]byte, error) {
	type plain Tensor
	c := plain(*t)
	strs := map[string]string{}
	for k, p := range map[string]*float64{"got": &c.Got, "want": &c.Want, "tolerance": &c.Tol, "worst_ratio": &c.Worst} {
		if !finite(*p) {
			strs[k] = strconv.FormatFloat(*p, 'g', -1, 64)
			*p = 0
		}
	}
	b, err := json.Marshal(c)
	if err != nil || len(strs) == 0 {
		return b, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range strs {
		m[k] = v
	}
	return json.Marshal(m)
}
