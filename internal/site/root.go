package site

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"sort"
	"strings"
	"sync"

	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/spec"
)

// RootFile is the root index.html, streamed: a head, one table row per
// tensor, a foot. A row's size is fixed by the tensor's name, dtype and
// shape (its statistics have fixed-width cells), so the page's size and
// every row's offset are known without statistics, and a read renders
// only the rows it covers. The statistics (RMS, absmax, health) are
// computed for every tensor on the first read, a tensor at a time, since
// a row's outlier mark compares its RMS with every layer's of its kind;
// what is kept of them is 32 bytes a tensor. Nothing else grows with
// the page: a 500,000-tensor page (108 MB) costs its row offsets (8
// bytes a tensor) until read.
type RootFile struct {
	s      *Site
	n      int
	viewOf func(i int) *views.Tensor
	dirOf  func(name string) string
	head   []byte
	foot   []byte
	ends   []int64 // ends[i]: offset of the end of row i, from the first row

	mu   sync.Mutex
	rows []rootStats // nil until the first read
}

// NewRoot returns the root index.html of the report r for n tensors,
// tensor i's views given by viewOf (which may make them anew on each
// call: the page keeps none) and its directory by dirOf (nil: the
// report's own layout, [spec.Report.Paths]). It is byte for byte the Root of [New] over the same
// tensors.
func NewRoot(r *spec.Report, n int, viewOf func(i int) *views.Tensor, dirOf func(name string) string) *RootFile {
	if dirOf == nil {
		paths := r.Paths()
		dirOf = func(name string) string { return strings.Join(paths[name], "/") }
	}
	s := &Site{report: r}
	f := &RootFile{s: s, n: n, viewOf: viewOf, dirOf: dirOf, ends: make([]int64, n)}
	var b bytes.Buffer
	s.rootHead(&b)
	f.head = bytes.Clone(b.Bytes())
	b.Reset()
	rootFoot(&b)
	f.foot = bytes.Clone(b.Bytes())
	var end int64
	for i := range n {
		b.Reset()
		f.row(&b, i, nil)
		end += int64(b.Len())
		f.ends[i] = end
	}
	return f
}

// Size returns the page's size, known without statistics.
func (f *RootFile) Size() int64 {
	var rows int64
	if f.n > 0 {
		rows = f.ends[f.n-1]
	}
	return int64(len(f.head)) + rows + int64(len(f.foot))
}

func (f *RootFile) row(b *bytes.Buffer, i int, rs *rootStats) {
	v := f.viewOf(i)
	f.s.rootRow(b, v, f.dirOf(v.Tensor().Name), rs)
}

// stats computes every tensor's statistics once, and marks the outliers.
func (f *RootFile) stats(ctx context.Context) ([]rootStats, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rows != nil {
		return f.rows, nil
	}
	rows := make([]rootStats, f.n)
	names := make([]string, f.n)
	rms := make([]float64, f.n)
	for i := range rows {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		v := f.viewOf(i)
		ts := f.s.statsOf(ctx, v)
		names[i], rms[i] = v.Tensor().Name, math.NaN()
		rows[i].health = ts.health
		if st := ts.st; st != nil {
			// Keep the two figures the row shows, not the statistics.
			rows[i].rms, rows[i].absmax, rows[i].decoded = st.RMS, st.AbsMax, true
			rms[i] = st.RMS
		}
	}
	for i, out := range render.Outliers(names, rms) {
		if out && rows[i].health == "ok" {
			rows[i].health = "outlier"
		}
	}
	f.rows = rows
	return rows, nil
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
		rows, err := f.stats(context.Background())
		if err != nil {
			return n, err
		}
		i := sort.Search(f.n, func(i int) bool { return h+f.ends[i] > off+int64(n) })
		var b bytes.Buffer
		for ; i < f.n && n < len(p); i++ {
			b.Reset()
			f.row(&b, i, &rows[i])
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
