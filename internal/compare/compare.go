package compare

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"sort"
	"sync"

	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/tensor"
)

// Options are the options of [New] and [Models]; nil means defaults.
type Options struct {
	// Workers bounds the goroutines reading and reducing at once, over
	// all tensors; 0 means GOMAXPROCS.
	Workers int
	// ChunkElements is the elements of each tensor read and reduced at a
	// time; 0 means DefaultChunkElements. Memory is a few chunks per
	// worker, whatever the tensors' sizes.
	ChunkElements int
	// Progress, if non-nil, is called after each chunk with the bytes
	// done and the total: the stored bytes of both tensors of every pair
	// whose values are compared. Calls are serialized; done reaches total
	// when [Comparison.Run] returns without error.
	Progress func(done, total int64)
	// Block, if non-zero, is the FP8 weight_block_size [bn, bk] of both
	// models; otherwise each model's own, by the rule of package
	// quantconfig (the config's, else inferred from the scale's shape),
	// which the views follow too.
	Block [2]uint64
}

// DefaultChunkElements is the default chunk: 1M elements.
const DefaultChunkElements = 1 << 20

// Status is the outcome for one name.
type Status string

// The statuses, in the order the summary lists them within a group
// (after the ones that were not compared, by relative L2).
const (
	// Error: a tensor's values could not be decoded or read; Err says why.
	Error Status = "error"
	// ShapeChanged: both present with different (decoded) shapes.
	ShapeChanged Status = "shape"
	// OnlyModel and OnlyOther: present in one model only.
	OnlyModel Status = "only-model"
	OnlyOther Status = "only-other"
	// Differs: some elements differ as numbers.
	Differs Status = "differs"
	// Equal: every element is equal as a number, though the bytes
	// differ (another dtype, a dequantized weight, -0 for +0, NaN
	// payloads).
	Equal Status = "equal"
	// Identical: the same dtype, shape and bytes.
	Identical Status = "identical"
)

// Entry is the comparison of one name. Name is MODEL's tensor name, or
// OTHER's for a tensor only in OTHER or a head that MODEL ties; ModelName
// and OtherName are the tensors compared (an FP8 or packed weight's
// logical name "….weight").
type Entry struct {
	Name      string `json:"name"`
	ModelName string `json:"model_name,omitempty"`
	OtherName string `json:"other_name,omitempty"`
	// Match is how the names were paired: "" the same name, "prefix"
	// the same but for a leading "model.", "tied" a head against the
	// other's embedding.
	Match  string `json:"match,omitempty"`
	Group  string `json:"group"`
	Status Status `json:"status"`
	Err    string `json:"error,omitempty"`

	// The stored types and decoded shapes; ModelValues/OtherValues say
	// how a dequantized side's values are made.
	ModelDType  string   `json:"model_dtype,omitempty"`
	OtherDType  string   `json:"other_dtype,omitempty"`
	ModelShape  []uint64 `json:"model_shape,omitempty"`
	OtherShape  []uint64 `json:"other_shape,omitempty"`
	ModelValues string   `json:"model_values,omitempty"`
	OtherValues string   `json:"other_values,omitempty"`

	// Elements is the element count of a compared pair.
	Elements uint64 `json:"elements"`
	// Decoded reports whether values were decoded: false for a
	// byte-identical pair (whose figures are then 0 and cosine 1 without
	// reading values) and for pairs not compared.
	Decoded bool `json:"decoded"`
	// Differ counts the pairs that differ as numbers (-0 equals +0; two
	// NaNs are equal; a NaN or an infinity against anything else
	// differs). NonFinite counts those of them with a NaN or an infinity:
	// they are left out of every sum below.
	Differ    uint64 `json:"differ"`
	NonFinite uint64 `json:"nonfinite_mismatch"`
	// MaxAbs and MeanAbs are max and mean of |MODEL − OTHER| over the
	// finite pairs; RelL2 is ‖MODEL − OTHER‖ / ‖OTHER‖ (0 when both are
	// 0, +Inf when only ‖OTHER‖ is); Cosine is ⟨MODEL, OTHER⟩ /
	// (‖MODEL‖·‖OTHER‖) (1 when both norms are 0, 0 when one is). Norms
	// are L2 over the finite pairs, omitted from the JSON when not
	// decoded (Decoded false). All in float64.
	MaxAbs    Float `json:"max_abs"`
	MeanAbs   Float `json:"mean_abs"`
	RelL2     Float `json:"rel_l2"`
	Cosine    Float `json:"cosine"`
	NormModel Float `json:"norm_model,omitempty"`
	NormOther Float `json:"norm_other,omitempty"`
	NormDelta Float `json:"norm_delta,omitempty"`
	// SNR is 20·log10(‖OTHER‖ / ‖MODEL − OTHER‖) in decibels, the
	// signal-to-noise ratio of a quantized MODEL against its base OTHER
	// (omitted when the pair is equal or ‖OTHER‖ is 0).
	SNR Float `json:"snr_db,omitempty"`
}

// Compared reports whether the pair's values were compared (identical,
// equal or differs).
func (e *Entry) Compared() bool {
	return e.Status == Identical || e.Status == Equal || e.Status == Differs
}

// DTypeChanged reports whether both are present with different stored
// types.
func (e *Entry) DTypeChanged() bool {
	return e.ModelDType != "" && e.OtherDType != "" && e.ModelDType != e.OtherDType
}

// Comparison is two models' tensors paired by name, ready to compare: the
// pairing, the lists of names in one model only and the sizes of every
// view are known at once; values are read when [Comparison.Run] or a
// view needs them. It is safe for concurrent use.
type Comparison struct {
	model, other *model.Model
	opts         Options

	entries  []*Entry // sorted by Name; the outcome of uncompared pairs
	pairs    []*pair  // pairs[i] for entries[i], nil when not compared
	byName   map[string]int
	auxModel []string
	auxOther []string

	mu      sync.Mutex
	done    []*Entry // computed entries of pairs; nil until computed
	summary *summaryView
}

// pair is two tensors to compare element by element.
type pair struct {
	i      int
	a, b   *side // MODEL, OTHER
	n      uint64
	bytes  bool  // same dtype, both plain: byte compare first
	length int64 // bytes of both tensors, for progress
}

// New pairs the tensors of model and other (see the package doc for the
// rules), reading only their headers.
func New(other, model *model.Model, opts *Options) (*Comparison, error) {
	if other == nil || model == nil {
		return nil, errors.New("compare: nil model")
	}
	c := &Comparison{model: model, other: other, byName: map[string]int{}}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.Workers <= 0 {
		c.opts.Workers = runtime.GOMAXPROCS(0)
	}
	if c.opts.ChunkElements <= 0 {
		c.opts.ChunkElements = DefaultChunkElements
	}
	ms, os := newSideSet(model, c.opts.Block), newSideSet(other, c.opts.Block)
	c.auxModel, c.auxOther = ms.aux, os.aux
	ms2 := matchNames(ms, os, tied(model), tied(other))
	for _, m := range ms2 {
		e := &Entry{ModelName: m.model, OtherName: m.other, Match: m.how}
		var a, b *side
		if m.model != "" {
			a = ms.byName[m.model]
			e.Name, e.ModelDType, e.ModelShape, e.ModelValues = m.model, a.t.DType.String(), a.shape(), a.how
		}
		if m.other != "" {
			b = os.byName[m.other]
			e.OtherDType, e.OtherShape, e.OtherValues = b.t.DType.String(), b.shape(), b.how
			if m.model == "" || m.how == MatchTied && headNames[canonical(m.other)] {
				e.Name = m.other
			}
		}
		var p *pair
		switch {
		case a == nil:
			e.Status = OnlyOther
		case b == nil:
			e.Status = OnlyModel
		case a.err != nil:
			e.Status, e.Err = Error, "model: "+a.err.Error()
		case b.err != nil:
			e.Status, e.Err = Error, "other: "+b.err.Error()
		case !sameShape(a.shape(), b.shape()):
			e.Status = ShapeChanged
		default:
			e.Elements = a.dec.Len()
			p = &pair{a: a, b: b, n: e.Elements, length: a.t.Length + b.t.Length,
				bytes: a.plain && b.plain && a.t.DType == b.t.DType && a.t.Length == b.t.Length}
		}
		e.Group = groupLabel(group(e.Name))
		c.entries = append(c.entries, e)
		c.pairs = append(c.pairs, p)
	}
	order := make([]int, len(c.entries))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool { return c.entries[order[x]].Name < c.entries[order[y]].Name })
	es, ps := make([]*Entry, len(order)), make([]*pair, len(order))
	for k, i := range order {
		es[k], ps[k] = c.entries[i], c.pairs[i]
		if ps[k] != nil {
			ps[k].i = k
		}
		c.byName[es[k].Name] = k
	}
	c.entries, c.pairs = es, ps
	c.done = make([]*Entry, len(c.entries))
	return c, nil
}

func sameShape(a, b []uint64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Models compares model with other: every tensor name in either, values
// decoded and compared for the pairs of one shape. It is [New] and
// [Comparison.Run].
func Models(other, model *model.Model, opts *Options) (*Result, error) {
	c, err := New(other, model, opts)
	if err != nil {
		return nil, err
	}
	return c.Run(context.Background())
}

// Run compares every pair not yet compared and returns the result. A
// tensor that cannot be read is an entry with status error, not an error
// of Run, which fails only when ctx is done.
func (c *Comparison) Run(ctx context.Context) (*Result, error) {
	var todo []*pair
	c.mu.Lock()
	for i, p := range c.pairs {
		if p != nil && c.done[i] == nil {
			todo = append(todo, p)
		}
	}
	c.mu.Unlock()
	if err := c.compute(ctx, todo, c.opts.Progress); err != nil {
		return nil, err
	}
	r := &Result{Model: c.model.Location, Other: c.other.Location, AuxModel: c.auxModel, AuxOther: c.auxOther}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if c.done[i] != nil {
			e = c.done[i]
		}
		r.Entries = append(r.Entries, *e)
	}
	return r, nil
}

// entry returns entry i, comparing its pair first if need be.
func (c *Comparison) entry(ctx context.Context, i int) (*Entry, error) {
	c.mu.Lock()
	e, p := c.done[i], c.pairs[i]
	c.mu.Unlock()
	if e != nil || p == nil {
		if e == nil {
			e = c.entries[i]
		}
		return e, nil
	}
	if err := c.compute(ctx, []*pair{p}, nil); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.done[i], nil
}

// task is one chunk of one pair.
type task struct {
	p      *pair
	c      int
	decode bool // reduce even if the bytes are equal
}

// work is a pair under comparison: its chunks' partial sums, merged in
// chunk order at the end so that the figures do not depend on the
// scheduling.
type work struct {
	parts []partial
	err   error
	once  sync.Once
}

func (c *Comparison) chunks(p *pair) int {
	ce := uint64(c.opts.ChunkElements)
	return int((p.n + ce - 1) / ce)
}

// compute compares the pairs, on at most Workers goroutines, and stores
// their entries.
func (c *Comparison) compute(ctx context.Context, ps []*pair, progress func(done, total int64)) error {
	if len(ps) == 0 {
		if progress != nil {
			progress(0, 0)
		}
		return nil
	}
	ws := make([]*work, len(ps))
	var total int64
	for k, p := range ps {
		ws[k] = &work{parts: make([]partial, c.chunks(p))}
		total += p.length
	}
	var pmu sync.Mutex
	var done int64
	report := func(d int64) {
		if progress == nil {
			return
		}
		pmu.Lock()
		done += d
		progress(done, total)
		pmu.Unlock()
	}
	run := func(tasks func(yield func(k int, t task) bool)) error {
		type job struct {
			k int
			t task
		}
		jobs := make(chan job)
		// A worker that panics stops the feeding (fctx), so that the
		// others end and Wait raises the panic here.
		fctx, stop := context.WithCancel(ctx)
		defer stop()
		var g par.Group
		for range min(c.opts.Workers, 1<<16) {
			g.Go(func() {
				defer func() {
					if v := recover(); v != nil {
						stop()
						panic(v)
					}
				}()
				w := &worker{}
				for j := range jobs {
					wk := ws[j.k]
					d, err := c.runTask(w, j.t, &wk.parts[j.t.c])
					if err != nil {
						wk.once.Do(func() { wk.err = err })
					}
					if !j.t.decode {
						report(d)
					}
				}
			})
		}
		tasks(func(k int, t task) bool {
			if ws[k].err != nil {
				return true
			}
			select {
			case jobs <- job{k, t}:
				return true
			case <-fctx.Done():
				return false
			}
		})
		close(jobs)
		g.Wait()
		return ctx.Err()
	}
	err := run(func(yield func(int, task) bool) {
		for k, p := range ps {
			for ch := range ws[k].parts {
				if !yield(k, task{p: p, c: ch}) {
					return
				}
			}
		}
	})
	if err != nil {
		return err
	}
	// A pair found byte-equal in some chunks and not in others needs the
	// values of the equal chunks too.
	err = run(func(yield func(int, task) bool) {
		for k, p := range ps {
			if ws[k].err != nil || !p.bytes || !mixed(ws[k].parts) {
				continue
			}
			for ch := range ws[k].parts {
				if ws[k].parts[ch].equal && !yield(k, task{p: p, c: ch, decode: true}) {
					return
				}
			}
		}
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, p := range ps {
		if c.done[p.i] == nil {
			c.done[p.i] = finish(c.entries[p.i], p, ws[k])
		}
	}
	return nil
}

func mixed(parts []partial) bool {
	var eq, ne bool
	for i := range parts {
		if parts[i].equal {
			eq = true
		} else {
			ne = true
		}
	}
	return eq && ne
}

// finish derives the entry of a compared pair from its chunks' sums.
func finish(e0 *Entry, p *pair, wk *work) *Entry {
	e := *e0
	if wk.err != nil {
		e.Status, e.Err = Error, wk.err.Error()
		return &e
	}
	var s partial
	allEqual := true
	for i := range wk.parts {
		allEqual = allEqual && wk.parts[i].equal
		s.add(&wk.parts[i])
	}
	if allEqual {
		e.Status, e.Cosine = Identical, 1
		return &e
	}
	e.Decoded = true
	e.Differ, e.NonFinite = s.differ, s.mismatch
	e.MaxAbs = Float(s.max)
	if s.finite > 0 {
		e.MeanAbs = Float(s.sabs / float64(s.finite))
	}
	na, nb, nd := math.Sqrt(s.saa), math.Sqrt(s.sbb), math.Sqrt(s.sdd)
	e.NormModel, e.NormOther, e.NormDelta = Float(na), Float(nb), Float(nd)
	switch {
	case nb > 0:
		e.RelL2 = Float(nd / nb)
		if nd > 0 {
			e.SNR = Float(20 * math.Log10(nb/nd))
		}
	case nd > 0:
		e.RelL2 = Float(math.Inf(1))
	}
	switch {
	case na == 0 && nb == 0:
		e.Cosine = 1
	case na == 0 || nb == 0:
		e.Cosine = 0
	default:
		den := math.Sqrt(s.saa * s.sbb)
		if math.IsInf(den, 0) || den == 0 {
			den = na * nb
		}
		e.Cosine = Float(max(-1, min(1, s.sab/den)))
	}
	e.Status = Differs
	if s.differ == 0 {
		e.Status = Equal
	}
	return &e
}

// worker holds one goroutine's buffers: a chunk of each side's bytes or
// values, and a block of each side's float64 values.
type worker struct {
	raw  [2][]byte
	f32  [2][]float32
	vals [2][block]float64
}

// runTask reduces one chunk into part and returns the stored bytes it
// covers (for progress).
func (c *Comparison) runTask(w *worker, t task, part *partial) (int64, error) {
	p := t.p
	ce := uint64(c.opts.ChunkElements)
	start := uint64(t.c) * ce
	m := min(ce, p.n-start)
	covered := share(p.length, start+m, p.n) - share(p.length, start, p.n)
	sides := [2]*side{p.a, p.b}
	for k, s := range sides {
		if err := w.load(k, s, start, m); err != nil {
			return covered, err
		}
	}
	*part = partial{}
	if p.bytes && !t.decode && bytes.Equal(w.raw[0], w.raw[1]) {
		part.equal = true
		return covered, nil
	}
	if p.a.plain && p.b.plain && p.a.t.DType == tensor.BF16 && p.b.t.DType == tensor.BF16 {
		part.reduceBF16(w.raw[0], w.raw[1])
		return covered, nil
	}
	for off := 0; off < int(m); off += block {
		k := min(block, int(m)-off)
		for j, s := range sides {
			if err := w.values(j, s, off, k); err != nil {
				return covered, err
			}
		}
		part.reduce64(w.vals[0][:k], w.vals[1][:k])
	}
	return covered, nil
}

// share returns length·x/n without overflow.
func share(length int64, x, n uint64) int64 {
	if n == 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(length), x)
	q, _ := bits.Div64(hi, lo, n)
	return int64(q)
}

// load reads elements [start, start+m) of side s into buffer k: the
// bytes of a plain side, the float32 values of a dequantized one.
func (w *worker) load(k int, s *side, start, m uint64) error {
	if s.plain {
		n := int(m) * s.esz
		if cap(w.raw[k]) < n {
			w.raw[k] = make([]byte, n)
		}
		buf := w.raw[k][:n]
		w.raw[k] = buf
		off := int64(start) * int64(s.esz)
		got, err := s.t.File.ReadAt(buf, s.t.Offset+off)
		if got == n {
			return nil
		}
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return fmt.Errorf("reading %s at byte %d: %w", s.t.Name, s.t.Offset+off+int64(got), err)
	}
	if cap(w.f32[k]) < int(m) {
		w.f32[k] = make([]float32, m)
	}
	w.f32[k] = w.f32[k][:m]
	return s.dec.Float32(start, w.f32[k])
}

// values decodes elements [off, off+k) of the loaded chunk of side s
// into w.vals[j].
func (w *worker) values(j int, s *side, off, k int) error {
	dst := w.vals[j][:k]
	if s.plain {
		_, err := decodeFloat64(s.t.DType, w.raw[j][off*s.esz:(off+k)*s.esz], dst)
		return err
	}
	for i, v := range w.f32[j][off : off+k] {
		dst[i] = float64(v)
	}
	return nil
}
