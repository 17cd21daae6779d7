package site

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/numfmt"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/tensor"
)

// The root page as it was rendered whole, before it was streamed
// (#25): the reference the streamed page must equal byte for byte.

// markOutliers turns the health of the block tensors whose RMS is far
// above their kind's median from ok to outlier.
func oldMarkOutliers(pages []*Tensor, rows []tensorStats) {
	names := make([]string, len(pages))
	rms := make([]float64, len(pages))
	for i, p := range pages {
		names[i], rms[i] = p.v.Tensor().Name, math.NaN()
		if rows[i].st != nil {
			rms[i] = rows[i].st.RMS
		}
	}
	for i, out := range render.Outliers(names, rms) {
		if out && rows[i].health == "ok" {
			rows[i].health = "outlier"
		}
	}
}

// rootPage writes the root index.html; rows nil writes blank fields.
func (s *Site) oldRootPage(rows []tensorStats) []byte {
	var b bytes.Buffer
	s.rootHead(&b) // the head, which streaming does not change
	for i, p := range s.pages {
		t := p.v.Tensor()
		b.WriteString("<tr><td><a href=\"" + href(0, p.Dir+"/"+layout.Index) + "\">" + esc(t.Name) + "</a></td><td>" + esc(dtypeOf(p.v)) + "</td><td>" + tensor.FormatShape(render.ShapeOf(p.v)) + "</td><td class=\"n\">" + numfmt.Commas(t.NumElements()) + "</td>")
		var ts *tensorStats
		if rows != nil {
			ts = &rows[i]
		}
		for _, f := range []func(*decode.Stats) float64{
			func(st *decode.Stats) float64 { return st.RMS },
			func(st *decode.Stats) float64 { return st.AbsMax },
		} {
			b.WriteString(`<td class="n">`)
			v := ""
			if ts != nil {
				v = "-"
				if ts.st != nil {
					v = render.Sci(f(ts.st), 5)
				}
			}
			padTo(&b, v, floatW)
			b.WriteString("</td>")
		}
		healthCell(&b, ts)
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n<p>health: ok, nan (a NaN), inf (an infinity), zero (all zeros), constant (all equal), empty, outlier (RMS over 10&times; the median of its kind across layers, or of 255 tensors spread evenly over a larger kind), n/a (not decoded), error (statistics failed).</p>\n</body>\n</html>\n")
	return b.Bytes()
}

func (s *Site) oldRoot() []byte {
	rows := make([]tensorStats, len(s.pages))
	for i, p := range s.pages {
		rows[i] = s.statsOf(context.Background(), p.v)
	}
	oldMarkOutliers(s.pages, rows)
	return s.oldRootPage(rows)
}

// The streamed root page equals the whole one, read at any offset in
// pieces of any size, outliers and odd names included.
func TestRootStreamedEqualsWhole(t *testing.T) {
	for _, dir := range []string{plantedDir(t), testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		return append(ts, testmodel.Tensor{Name: "odd.<b>&\"name\"%2F\x1b", DType: "BF16", Shape: []uint64{2, 0, 3}})
	})} {
		s := open(t, dir)
		want := s.oldRoot()
		root := s.Root()
		require.Equal(t, int64(len(want)), root.Size())
		require.Equal(t, string(want), string(testmodel.ReadView(t, "root", root)))
		rng := rand.New(rand.NewPCG(5, 6))
		for range 300 {
			off := rng.Int64N(int64(len(want)))
			p := make([]byte, 1+rng.IntN(5000))
			n, _ := root.ReadAt(p, off)
			require.Equal(t, string(want[off:min(off+int64(len(p)), int64(len(want)))]), string(p[:n]), "%d bytes at %d", len(p), off)
		}
	}
}

// A read of the root page computes the statistics of the rows it covers
// and of at most KindSample tensors of each of their kinds, not of the
// whole model (#25: a 500,000-tensor MoE, whose expert kinds each cover
// every expert of every layer); what it shows is still the whole page's.
func TestRootFirstReadScansItsRows(t *testing.T) {
	dir := t.TempDir()
	n, err := testmodel.WriteMoE(dir, 1, 2*KindSample)
	require.NoError(t, err)
	s := open(t, dir)
	root := s.Root()
	p := make([]byte, 16<<10)
	k, err := root.ReadAt(p, 0)
	require.NoError(t, err)
	want := s.oldRoot()
	require.Equal(t, string(want[:k]), string(p[:k]))
	// The rows read, and a sample of each of their three expert kinds.
	require.Less(t, root.scanned, 4*KindSample, "statistics of %d of %d tensors", root.scanned, n)
	require.Equal(t, string(want), string(testmodel.ReadView(t, "root", root)))
	require.Equal(t, n, root.scanned)
}

func TestSample(t *testing.T) {
	xs := make([]int32, 1000)
	for i := range xs {
		xs[i] = int32(i)
	}
	require.Equal(t, xs[:5], sample(xs[:5], 5))
	got := sample(xs, 5)
	require.Equal(t, []int32{0, 249, 499, 749, 999}, got)
}

// The page's size is known without the views of any tensor, and a read
// makes those of the rows it covers and of their kinds' samples alone
// (#25: sizing a 500,000-tensor page made a view per tensor and rendered
// every row, 8.8 s before the first byte).
func TestRootSizeMakesNoViews(t *testing.T) {
	dir := t.TempDir()
	n, err := testmodel.WriteMoE(dir, 1, 2*KindSample)
	require.NoError(t, err)
	s := open(t, dir)
	made := 0
	root := NewRoot(s.report, RootTensors{
		N:      len(s.pages),
		Tensor: func(i int) *tensor.Tensor { return s.pages[i].v.Tensor() },
		Shown:  func(i int) (string, []uint64) { return views.Shown(s.pages[i].v.Tensor(), nil) },
		View:   func(i int) *views.Tensor { made++; return s.pages[i].v },
		Dir:    func(i int) string { return s.pages[i].Dir },
	})
	want := s.oldRoot()
	require.Equal(t, int64(len(want)), root.Size())
	require.Zero(t, made, "views made to size the page")
	p := make([]byte, 16<<10)
	k, err := root.ReadAt(p, 0)
	require.NoError(t, err)
	require.Equal(t, string(want[:k]), string(p[:k]))
	require.Less(t, made, 4*KindSample, "views made for the first 16 KiB of %d tensors", n)
}

// A row's size computed from its fields is the size it renders to, for
// names, types and directories that escaping lengthens.
func TestRowLen(t *testing.T) {
	for _, d := range []rowDesc{
		{name: "a", dir: "a", dtype: "BF16", shape: []uint64{}, params: 1},
		{name: "model.layers.0.mlp.experts.3.up_proj.weight", dir: "layers/0/mlp/experts/3/up_proj", dtype: "F8_E4M3 (as F32)", shape: []uint64{7168, 2048}, params: 7168 * 2048},
		{name: `odd.<b>&"name"'%2F` + "\x1b", dir: "odd/%3Cb%3E&\"name\"'/x y/é/~-_.", dtype: "I32", shape: []uint64{2, 0, 3}, params: 0},
		{name: "big", dir: "q:r/s;t,u?v#w", dtype: "<&>", shape: []uint64{1 << 63, 1<<64 - 1}, params: 1<<64 - 1},
		{name: "é", dir: "é", dtype: "F32", shape: []uint64{999, 1000}, params: 999000},
	} {
		var b bytes.Buffer
		rootRow(&b, &d, nil)
		require.Equal(t, int64(b.Len()), rowLen(&d), "%+v", d)
		for _, rs := range []rootStats{{known: true, health: "na"}, {known: true, decoded: true, rms: -1.5e300, absmax: math.NaN(), health: "outlier"}} {
			b.Reset()
			rootRow(&b, &d, &rs)
			require.Equal(t, int64(b.Len()), rowLen(&d), "%+v", d)
		}
	}
}

// The first read of a large page keeps the statistics of the rows it
// computes, not a table of every row (#25: 20 MB for 500,000 tensors,
// of which the first MiB computes 3,600 rows and the samples of their
// kinds).
func TestRootFirstReadAllocatesItsRows(t *testing.T) {
	const n = 120_000 // one kind: its 255 samples are far apart
	ts := make([]*tensor.Tensor, n)
	for i := range ts {
		ts[i] = testmodel.MemTensor(fmt.Sprintf("model.layers.0.mlp.experts.%06d.up_proj.weight", i), tensor.BF16, []uint64{2}, []byte{0, 0x3f, 0, 0x40})
	}
	s := open(t, testmodel.TinyDir(t, nil))
	root := NewRoot(s.report, RootTensors{
		N:      n,
		Tensor: func(i int) *tensor.Tensor { return ts[i] },
		Shown:  func(i int) (string, []uint64) { return views.Shown(ts[i], nil) },
		View:   func(i int) *views.Tensor { return views.NewTensor(ts[i], nil) },
		Dir:    func(i int) string { return strconv.Itoa(i) },
	})
	p := make([]byte, 16<<10)
	_, err := root.ReadAt(p, 0)
	require.NoError(t, err)
	require.Less(t, root.scanned, 2*KindSample)
	// The rows computed are a few hundred, the rows kept their pages
	// (one page a sample, 64 rows each), not every row.
	kept := 0
	for _, page := range root.rows {
		if page != nil {
			kept += len(page)
		}
	}
	require.Less(t, kept, n/4, "rows kept for %d computed", root.scanned)
}
