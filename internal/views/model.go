package views

import (
	"context"
	"strconv"

	"github.com/fsmount/fsmount/internal/decode"
)

// Model is the model-level views over a set of tensors' views.
type Model struct {
	tensors []*Tensor
	nameW   int
	line    int64
}

// The model table's fields after the name, and their widths.
var tableFields = []struct {
	name string
	w    int
}{
	{"dtype", 11}, {"count", 20}, {"nan", 20}, {"posinf", 20}, {"neginf", 20}, {"zeros", 20},
	{"min", histNumW}, {"max", histNumW}, {"mean", histNumW}, {"std", histNumW}, {"absmax", histNumW}, {"rms", histNumW},
	{"health", 8},
}

// NewModel returns the model views over tensors, in the order given (the
// caller sorts them, by name say). Sizes are fixed from the names alone.
func NewModel(tensors []*Tensor) *Model {
	m := &Model{tensors: tensors, nameW: len("name")}
	for _, t := range tensors {
		m.nameW = max(m.nameW, len(t.t.Name))
	}
	m.line = int64(m.nameW)
	for _, f := range tableFields {
		m.line += 1 + int64(f.w)
	}
	m.line++
	return m
}

// StatsTable returns the model's stats table view.
func (m *Model) StatsTable() View { return (*tableView)(m) }

type tableView Model

func (tv *tableView) Size() int64 { return int64(len(tv.tensors)+1) * tv.line }

// safeName replaces control bytes, tabs and newlines included, by '?', so
// that a name cannot break the table's lines; the length is kept.
func safeName(s string) []byte {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c == 0x7f {
			b[i] = '?'
		}
	}
	return b
}

// row renders line i: 0 the header, i ≥ 1 tensor i-1.
func (tv *tableView) row(i int) ([]byte, error) {
	b := make([]byte, 0, tv.line)
	if i == 0 {
		b = pad(b, []byte("name"), tv.nameW, false)
		for _, f := range tableFields {
			b = append(b, '\t')
			b = pad(b, []byte(f.name), f.w, false)
		}
		return append(b, '\n'), nil
	}
	t := tv.tensors[i-1]
	b = pad(b, safeName(t.t.Name), tv.nameW, false)
	vals := make([][]byte, len(tableFields))
	vals[0] = []byte(t.t.DType.String())
	if t.dec != nil && t.dec.Dequantized() {
		vals[0] = []byte(t.dec.ValueType().String())
	}
	for k := 1; k < len(vals)-1; k++ {
		vals[k] = []byte("-")
	}
	vals[len(vals)-1] = []byte("n/a")
	if t.dec != nil {
		s, err := t.Stats(context.Background())
		if err != nil {
			return nil, err
		}
		for k, c := range []uint64{s.Count, s.NaN, s.PosInf, s.NegInf, s.Zeros} {
			vals[1+k] = strconv.AppendUint(nil, c, 10)
		}
		for k, x := range []float64{s.Min, s.Max, s.Mean, s.Std, s.AbsMax, s.RMS} {
			vals[6+k] = appendSci(nil, x, 6)
		}
		vals[len(vals)-1] = []byte(s.Health())
	}
	for k, f := range tableFields {
		b = append(b, '\t')
		b = pad(b, vals[k], f.w, k >= 1 && k <= 5)
	}
	return append(b, '\n'), nil
}

func (tv *tableView) ReadAt(p []byte, off int64) (int, error) {
	lo, hi, err := window(tv.Size(), p, off)
	if err != nil {
		return 0, err
	}
	if lo == hi {
		return 0, nil
	}
	n := 0
	for r := lo / tv.line; r <= (hi-1)/tv.line; r++ {
		line, err := tv.row(int(r))
		if err != nil {
			return n, err
		}
		rs := r * tv.line
		n += copy(p[n:], line[max(lo, rs)-rs:min(hi, rs+tv.line)-rs])
	}
	return n, eofIfShort(n, p)
}

// Health classifies a tensor's statistics; see [decode.Stats.Health].
func Health(s *decode.Stats) decode.Health { return s.Health() }
