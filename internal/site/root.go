package site

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/tensor"
)

// RootFile is the root index.html, streamed: a head, one table row per
// tensor, a foot. A row's size is fixed by the tensor's name, dtype and
// shape (its statistics have fixed-width cells), so the page's size and
// every row's offset are known without statistics, and a read renders
// only the rows it covers. A row's statistics (RMS, absmax, health) are
// computed when a read first covers it, and kept (40 bytes a tensor).
// Its outlier mark compares its RMS with the median of its kind
// ([render.LayerKind]), computed when a row of the kind is first read:
// over every tensor of the kind when it has at most [KindSample], else
// over KindSample of them spread evenly over it (an expert's kind in a
// large MoE covers every expert of every layer, and its exact median
// would need the statistics of most of the model before the first row).
// So the first MiB of a 500,000-tensor page costs the statistics of the
// rows it shows and a few samples, not of the model.
type RootFile struct {
	s    *Site
	n    int
	ts   RootTensors
	head []byte
	foot []byte
	ends []int64 // ends[i]: offset of the end of row i, from the first row

	mu      sync.Mutex
	rows    []*[rowPage]rootStats // rows[i/rowPage][i%rowPage], each page made when first needed; known once computed
	kinds   []int32               // each tensor's kind, -1 outside the blocks; on the first read
	members [][]int32             // each kind's tensors
	medians []kindMedian          // each kind's, computed on first use
	scanned int                   // rows whose statistics were computed (tests)
}

// RootTensors are the root page's tensors: how it gets each, by its
// index in the page. The page keeps nothing they return, so each may
// make what it returns anew on each call.
type RootTensors struct {
	N int
	// Tensor returns tensor i.
	Tensor func(i int) *tensor.Tensor
	// Shown returns tensor i's type and shape as its views show them
	// ([views.Shown]), without making its views: the page's size needs
	// every row's, which needs no statistics.
	Shown func(i int) (dtype string, shape []uint64)
	// View returns tensor i's views, for its statistics.
	View func(i int) *views.Tensor
	// Dir returns tensor i's directory; nil means the report's own
	// layout, [check.Report.Paths].
	Dir func(i int) string
}

// KindSample is the most tensors of one kind whose RMS the root page's
// outlier mark takes the median of.
const KindSample = 255

// kindMedian is the median RMS of a kind, once known.
type kindMedian struct {
	done, ok bool // computed; a median exists (3 finite RMS at least)
	m        float64
}

// NewRoot returns the root index.html of the report r for the tensors
// ts. It is byte for byte the Root of [New] over the same tensors. It
// makes no views: the page's size is the sum of its rows', each computed
// from a tensor's name, directory, type and shape.
func NewRoot(r *check.Report, ts RootTensors) *RootFile {
	if ts.Dir == nil {
		paths := r.Paths()
		ts.Dir = func(i int) string {
			return strings.Join(paths[ts.Tensor(i).Name], "/")
		}
	}
	s := &Site{report: r}
	f := &RootFile{s: s, n: ts.N, ts: ts, ends: make([]int64, ts.N)}
	var b bytes.Buffer
	s.rootHead(&b)
	f.head = bytes.Clone(b.Bytes())
	b.Reset()
	rootFoot(&b)
	f.foot = bytes.Clone(b.Bytes())
	var end int64
	for i := range f.n {
		d := f.desc(i)
		end += rowLen(&d)
		f.ends[i] = end
	}
	return f
}

// desc returns row i's description.
func (f *RootFile) desc(i int) rowDesc {
	dtype, shape := f.ts.Shown(i)
	return describe(f.ts.Tensor(i), dtype, shape, f.ts.Dir(i))
}

// Size returns the page's size, known without statistics.
func (f *RootFile) Size() int64 {
	var rows int64
	if f.n > 0 {
		rows = f.ends[f.n-1]
	}
	return int64(len(f.head)) + rows + int64(len(f.foot))
}

// prepare makes the table of the rows' statistics on the first read. It
// is called with mu held.
func (f *RootFile) prepare() {
	if f.rows == nil {
		f.kindsOf()
		f.rows = make([]*[rowPage]rootStats, (f.n+rowPage-1)/rowPage)
		f.medians = make([]kindMedian, len(f.members))
	}
}

// kindsOf fills kinds and members (see [RootFile]).
func (f *RootFile) kindsOf() {
	f.kinds = make([]int32, f.n)
	ids := map[string]int32{}
	var buf []byte
	for i := range f.n {
		f.kinds[i] = -1
		var ok bool
		if _, buf, ok = render.AppendLayerKind(buf[:0], f.ts.Tensor(i).Name); !ok {
			continue
		}
		id, seen := ids[string(buf)] // no string made to look it up
		if !seen {
			id = int32(len(f.members))
			ids[string(buf)] = id
			f.members = append(f.members, nil)
		}
		f.kinds[i] = id
		f.members[id] = append(f.members[id], int32(i))
	}
}

// rowPage is how many rows' statistics are allocated at once: the first
// MiB of a 500,000-tensor page covers 3,600 rows and samples 255 tensors
// of each of their kinds, spread over the model; a table of every row
// would be 20 MB.
const rowPage = 64

// rowStats returns row i's statistics, computing them once. It is called
// with mu held.
func (f *RootFile) rowStats(ctx context.Context, i int) (*rootStats, error) {
	page := f.rows[i/rowPage]
	if page == nil {
		page = new([rowPage]rootStats)
		f.rows[i/rowPage] = page
	}
	rs := &page[i%rowPage]
	if rs.known {
		return rs, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	ts := f.s.statsOf(ctx, f.ts.View(i))
	rs.known, rs.health, rs.rms = true, ts.health, math.NaN()
	if st := ts.st; st != nil {
		// Keep the two figures the row shows, not the statistics.
		rs.rms, rs.absmax, rs.decoded = st.RMS, st.AbsMax, true
	}
	f.scanned++
	return rs, nil
}

// median returns the median RMS of kind k (see [RootFile]), and whether
// it has one. It is called with mu held.
func (f *RootFile) median(ctx context.Context, k int32) (float64, bool, error) {
	km := &f.medians[k]
	if km.done {
		return km.m, km.ok, nil
	}
	members := f.members[k]
	var rms []float64
	for _, i := range sample(members, KindSample) {
		rs, err := f.rowStats(ctx, int(i))
		if err != nil {
			return 0, false, err
		}
		if !math.IsNaN(rs.rms) {
			rms = append(rms, rs.rms)
		}
	}
	if len(rms) >= 3 {
		slices.Sort(rms)
		km.m, km.ok = rms[len(rms)/2], true
		if len(rms)%2 == 0 {
			km.m = (rms[len(rms)/2-1] + rms[len(rms)/2]) / 2
		}
	}
	km.done = true
	return km.m, km.ok, nil
}

// sample returns all of xs if they are at most n, else n of them spread
// evenly, the first and the last included.
func sample(xs []int32, n int) []int32 {
	if len(xs) <= n {
		return xs
	}
	out := make([]int32, n)
	for j := range n {
		out[j] = xs[j*(len(xs)-1)/(n-1)]
	}
	return out
}

// shown returns what row i shows: its statistics, with ok turned to
// outlier where its RMS is over 10 times its kind's median. It is called
// with mu held.
func (f *RootFile) shown(ctx context.Context, i int) (rootStats, error) {
	rs, err := f.rowStats(ctx, i)
	if err != nil {
		return rootStats{}, err
	}
	out := *rs
	if k := f.kinds[i]; k >= 0 && out.health == "ok" && !math.IsNaN(out.rms) {
		m, ok, err := f.median(ctx, k)
		if err != nil {
			return rootStats{}, err
		}
		if ok && out.rms > 10*m {
			out.health = "outlier"
		}
	}
	return out, nil
}

// ReadAt reads the page at off, rendering the rows the range covers.
func (f *RootFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, render.ErrBadOffset
	}
	size := f.Size()
	if off >= size {
		return 0, io.EOF
	}
	n := 0
	put := func(b []byte, at int64) { // b lies at page offset at
		if at+int64(len(b)) <= off+int64(n) || n == len(p) {
			return
		}
		n += copy(p[n:], b[off+int64(n)-at:])
	}
	put(f.head, 0)
	h := int64(len(f.head))
	if n < len(p) && f.n > 0 && off+int64(n) < h+f.ends[f.n-1] {
		f.mu.Lock()
		defer f.mu.Unlock()
		f.prepare()
		ctx := context.Background()
		i := sort.Search(f.n, func(i int) bool { return h+f.ends[i] > off+int64(n) })
		var b bytes.Buffer
		for ; i < f.n && n < len(p); i++ {
			rs, err := f.shown(ctx, i)
			if err != nil {
				return n, err
			}
			b.Reset()
			d := f.desc(i)
			rootRow(&b, &d, &rs)
			start := h + f.ends[i] - int64(b.Len())
			if start+int64(b.Len()) != h+f.ends[i] || (i > 0 && start != h+f.ends[i-1]) {
				return n, errSize
			}
			put(b.Bytes(), start)
		}
	}
	if n < len(p) {
		put(f.foot, size-int64(len(f.foot)))
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

var errSize = errors.New("site: a row rendered to a size other than the one announced (a bug)")
