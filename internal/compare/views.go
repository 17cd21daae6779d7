package compare

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/views"
)

// Files returns the comparison's top-level views with their file names:
// summary, only-in-model, only-in-other.
func (c *Comparison) Files() []views.File {
	return []views.File{{Name: layout.Summary, View: c.Summary()},
		{Name: layout.OnlyInModel, View: c.OnlyInModel()}, {Name: layout.OnlyInOther, View: c.OnlyInOther()}}
}

// Summary returns the summary table's view (the bytes of [Result.Text]).
// Its size is known from the names; the first read compares every pair
// (Run), and the table is then kept.
func (c *Comparison) Summary() views.View {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.summary == nil {
		c.summary = &summaryView{c: c, size: newLayout(c.entries).size(len(c.entries))}
	}
	return c.summary
}

type summaryView struct {
	c    *Comparison
	size int64
	once sync.Mutex
	b    []byte
}

func (s *summaryView) Size() int64 { return s.size }

func (s *summaryView) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, views.ErrBadOffset
	}
	if off >= s.size {
		return 0, io.EOF
	}
	s.once.Lock()
	if s.b == nil {
		r, err := s.c.Run(context.Background())
		if err != nil {
			s.once.Unlock()
			return 0, err
		}
		b := []byte(r.Text())
		if int64(len(b)) != s.size {
			s.once.Unlock()
			return 0, errors.New("compare: summary's size differs from the size announced")
		}
		s.b = b
	}
	b := s.b
	s.once.Unlock()
	return views.ReadBytes(b, p, off)
}

func (c *Comparison) list(s Status) views.View {
	var b strings.Builder
	for _, e := range c.entries {
		if e.Status == s {
			b.WriteString(safeName(e.Name))
			b.WriteByte('\n')
		}
	}
	return views.Bytes(b.String())
}

// OnlyInModel returns the view of the names only MODEL has, one a line,
// sorted (control bytes shown as '?').
func (c *Comparison) OnlyInModel() views.View { return c.list(OnlyModel) }

// OnlyInOther returns the view of the names only OTHER has.
func (c *Comparison) OnlyInOther() views.View { return c.list(OnlyOther) }

// Shared returns the names present in both models, sorted: those with
// [Comparison.TensorFiles].
func (c *Comparison) Shared() []string {
	var out []string
	for _, e := range c.entries {
		if e.ModelName != "" && e.OtherName != "" {
			out = append(out, e.Name)
		}
	}
	return out
}

// Entry returns the entry of name, comparing its pair first if need be
// (and not yet done), or nil for a name neither model has.
func (c *Comparison) Entry(ctx context.Context, name string) (*Entry, error) {
	i, ok := c.byName[name]
	if !ok {
		return nil, nil
	}
	return c.entry(ctx, i)
}

// TensorFiles returns the views of a shared name: stats, and for a pair
// whose values are compared (same decoded shape, both decodable)
// delta.f32 and delta.npy. It returns nil for a name not shared.
func (c *Comparison) TensorFiles(name string) []views.File {
	i, ok := c.byName[name]
	if !ok || c.entries[i].ModelName == "" || c.entries[i].OtherName == "" {
		return nil
	}
	fs := []views.File{{Name: layout.Stats, View: &statsView{c: c, i: i}}}
	if p := c.pairs[i]; p != nil {
		if d := newDelta(p); d != nil {
			fs = append(fs, views.File{Name: layout.DeltaF32, View: d}, views.File{Name: layout.DeltaNPY, View: newDeltaNPY(d, p.a.shape())})
		}
	}
	return fs
}

// The stats view: statsLines lines, each a name padded to 11 bytes, a
// space, the value right-aligned in 24 bytes, and "\n".
var statsNames = []string{"status", "match", "model_dtype", "other_dtype", "elements", "differ", "nonfinite",
	"max_abs", "mean_abs", "rel_l2", "cosine", "norm_model", "norm_other", "norm_delta", "snr_db"}

const statsLine = 11 + 1 + 24 + 1

type statsView struct {
	c *Comparison
	i int
}

func (s *statsView) Size() int64 { return int64(len(statsNames) * statsLine) }

func (s *statsView) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, views.ErrBadOffset
	}
	if off >= s.Size() {
		return 0, io.EOF
	}
	e, err := s.c.entry(context.Background(), s.i)
	if err != nil {
		return 0, err
	}
	return views.ReadBytes(statsText(e), p, off)
}

// statsText renders an entry's stats: counts in decimal, figures with 17
// significant digits ("+1.2345678901234567e-02"), "-" where there is no
// figure (a pair not compared; norms of a byte-identical pair).
func statsText(e *Entry) []byte {
	f := func(x Float) string {
		v := strconv.FormatFloat(float64(x), 'e', 16, 64)
		switch {
		case math.IsNaN(float64(x)):
			return "nan"
		case math.IsInf(float64(x), 0):
			return map[bool]string{true: "+inf", false: "-inf"}[x > 0]
		case v[0] != '-':
			v = "+" + v
		}
		return v
	}
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	vals := []string{string(e.Status), dash(e.Match), dash(e.ModelDType), dash(e.OtherDType), "-", "-", "-",
		"-", "-", "-", "-", "-", "-", "-", "-"}
	if e.Compared() {
		vals[4] = strconv.FormatUint(e.Elements, 10)
		vals[5] = strconv.FormatUint(e.Differ, 10)
		vals[6] = strconv.FormatUint(e.NonFinite, 10)
		for k, x := range []Float{e.MaxAbs, e.MeanAbs, e.RelL2, e.Cosine} {
			vals[7+k] = f(x)
		}
		if e.Decoded {
			for k, x := range []Float{e.NormModel, e.NormOther, e.NormDelta} {
				vals[11+k] = f(x)
			}
		}
		if hasSNR(e) {
			vals[14] = f(e.SNR)
		}
	}
	b := make([]byte, 0, len(statsNames)*statsLine)
	for k, n := range statsNames {
		b = padTo(b, n, 11, false)
		b = append(b, ' ')
		v := vals[k]
		if len(v) > 24 {
			v = v[:24]
		}
		b = padTo(b, v, 24, true)
		b = append(b, '\n')
	}
	return b
}

// DeltaView is delta.f32: MODEL − OTHER of every element, row-major,
// computed in float64 and rounded to little-endian float32, 4 bytes an
// element. Reads decode only the elements they cover.
type DeltaView struct {
	a, b *decode.Decoder
	size int64
}

func newDelta(p *pair) *DeltaView {
	if p.n > math.MaxInt64/4 {
		return nil
	}
	return &DeltaView{a: p.a.dec, b: p.b.dec, size: int64(p.n) * 4}
}

func (d *DeltaView) Size() int64 { return d.size }

// deltaPiece bounds the elements decoded at once by a read.
const deltaPiece = 16 << 10

func (d *DeltaView) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, views.ErrBadOffset
	}
	if off >= d.size {
		return 0, io.EOF
	}
	hi := off + min(int64(len(p)), d.size-off)
	var xa, xb [deltaPiece]float64
	var buf [4 * deltaPiece]byte
	n := 0
	for e0 := off / 4; e0*4 < hi; e0 += deltaPiece {
		e1 := min(e0+deltaPiece, (hi+3)/4)
		k := int(e1 - e0)
		if err := d.a.Float64(uint64(e0), xa[:k]); err != nil {
			return n, err
		}
		if err := d.b.Float64(uint64(e0), xb[:k]); err != nil {
			return n, err
		}
		for i := range k {
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(float32(xa[i]-xb[i])))
		}
		lo := max(off, e0*4)
		n += copy(p[n:], buf[lo-e0*4:min(hi, e1*4)-e0*4])
	}
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// DeltaNPY is delta.npy: a .npy v1.0 header ('<f4', MODEL's decoded
// shape, padded so that the data starts at a multiple of 64 bytes)
// followed by delta.f32.
type DeltaNPY struct {
	header []byte
	data   *DeltaView
}

func newDeltaNPY(d *DeltaView, shape []uint64) views.View {
	h, err := views.NPYHeader("<f4", shape)
	if err != nil {
		return views.Bytes("not available: " + err.Error() + "\n")
	}
	if d.size > math.MaxInt64-int64(len(h)) {
		return views.Bytes("not available: too large\n")
	}
	return &DeltaNPY{header: h, data: d}
}

// Header returns the .npy header.
func (n *DeltaNPY) Header() []byte { return n.header }

func (n *DeltaNPY) Size() int64 { return int64(len(n.header)) + n.data.size }

func (n *DeltaNPY) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, views.ErrBadOffset
	}
	if off >= n.Size() {
		return 0, io.EOF
	}
	hl := int64(len(n.header))
	done := 0
	if off < hl {
		done = copy(p, n.header[off:])
	}
	if done < len(p) {
		m, err := n.data.ReadAt(p[done:], off+int64(done)-hl)
		done += m
		if err != nil {
			return done, err
		}
	}
	return done, nil
}
