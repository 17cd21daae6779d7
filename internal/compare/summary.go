package compare

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// The summary's fields after the name, and their widths.
var summaryFields = []struct {
	name  string
	w     int
	right bool
}{
	{"status", 10, false}, {"match", 6, false}, {"model/other dtype", 25, false},
	{"rel_l2", sciW, true}, {"cosine", 12, true}, {"snr_db", snrW, true}, {"max_abs", sciW, true}, {"mean_abs", sciW, true},
	{"differ", 20, true}, {"elements", 20, true},
}

const sciW = 11 // "+1.234e-03", "+1.234e-300"

// snrW is the width of an SNR in decibels ("+23.45"; larger values,
// which only near-identical pairs reach, are cut).
const snrW = 8

// snr renders an entry's SNR: "-" where it has none (a pair not
// compared, equal, or against a zero tensor).
func snr(e *Entry) string {
	if !hasSNR(e) {
		return "-"
	}
	return snrText(float64(e.SNR))
}

func hasSNR(e *Entry) bool { return e.Status == Differs && e.NormOther > 0 && e.NormDelta > 0 }

func snrText(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	v := strconv.FormatFloat(x, 'f', 2, 64)
	if v[0] != '-' {
		v = "+" + v
	}
	if len(v) > snrW {
		v = v[:snrW]
	}
	return v
}

// geometry is the summary's fixed geometry, from the names alone.
type geometry struct {
	nameW  int
	line   int // bytes per line, "\n" included
	groups []int
	digits int // width of a count in the footer
}

func newLayout(es []*Entry) *geometry {
	l := &geometry{nameW: len("tensor")}
	seen := map[int]bool{}
	for _, e := range es {
		l.nameW = max(l.nameW, len(e.Name))
		seen[group(e.Name)] = true
	}
	for g := range seen {
		l.groups = append(l.groups, g)
	}
	sort.Ints(l.groups)
	l.digits = len(strconv.Itoa(len(es)))
	w := l.nameW
	for _, f := range summaryFields {
		w += 1 + f.w
	}
	l.line = max(w, len(l.footer(map[Status]int{}, math.NaN(), math.NaN())))
	for _, g := range l.groups {
		l.line = max(l.line, len(groupLine(g, len(es), 0, math.NaN()))-len(sci(0))+sciW)
	}
	l.line++
	return l
}

// size is the summary's size: a header line, a line per group and per
// entry, and a footer line.
func (l *geometry) size(entries int) int64 {
	return int64(2+len(l.groups)+entries) * int64(l.line)
}

func padTo(b []byte, s string, w int, right bool) []byte {
	if right {
		for range w - len(s) {
			b = append(b, ' ')
		}
		return append(b, s...)
	}
	b = append(b, s...)
	for range w - len(s) {
		b = append(b, ' ')
	}
	return b
}

// safeName replaces control bytes, which would break the lines, by '?'.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

func (l *geometry) endLine(b []byte, start int) []byte {
	if len(b)-start > l.line-1 {
		b = b[:start+l.line-1]
	}
	for len(b)-start < l.line-1 {
		b = append(b, ' ')
	}
	return append(b, '\n')
}

// sci renders x with 4 significant digits in at most sciW bytes.
func sci(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	s := strconv.FormatFloat(x, 'e', 3, 64)
	if s[0] != '-' {
		s = "+" + s
	}
	return s
}

// groupLine is a group's heading: its size, its largest relative L2
// and its lowest SNR (the quantization error a person looks for first).
func groupLine(g, n int, maxRel, minSNR float64) string {
	return "[" + groupLabel(g) + "] " + strconv.Itoa(n) + " tensors, min snr_db " + padSNR(minSNR) + ", max rel_l2 " + sciOrDash(maxRel)
}

// padSNR is snrText padded to snrW, so that lines keep their width.
func padSNR(x float64) string {
	v := snrText(x)
	return v + strings.Repeat(" ", snrW-len(v))
}

// minNaN and maxNaN are min and max where a NaN stands for "none": the
// other side wins.
func minNaN(a, b float64) float64 { return skipNaN(a, b, math.Min) }

func maxNaN(a, b float64) float64 { return skipNaN(a, b, math.Max) }

func skipNaN(a, b float64, f func(a, b float64) float64) float64 {
	switch {
	case math.IsNaN(a):
		return b
	case math.IsNaN(b):
		return a
	}
	return f(a, b)
}

func sciOrDash(x float64) string {
	if math.IsNaN(x) {
		return "-"
	}
	return sci(x)
}

func (l *geometry) footer(c map[Status]int, maxRel, minSNR float64) string {
	n := func(s Status) string {
		return strings.Repeat(" ", l.digits-len(strconv.Itoa(c[s]))) + strconv.Itoa(c[s])
	}
	maxS := sciOrDash(maxRel)
	maxS += strings.Repeat(" ", max(0, sciW-len(maxS)))
	return "total: " + n(Identical) + " identical, " + n(Equal) + " equal, " + n(Differs) + " differ, " +
		n(ShapeChanged) + " shape changed, " + n(OnlyModel) + " only in model, " + n(OnlyOther) + " only in other, " +
		n(Error) + " errors; min snr_db " + padSNR(minSNR) + ", max rel_l2 " + maxS
}

// rank orders the statuses within a group: what was not compared first.
func rank(s Status) int {
	switch s {
	case Error:
		return 0
	case ShapeChanged:
		return 1
	case OnlyModel:
		return 2
	case OnlyOther:
		return 3
	}
	return 4
}

// render lays out the entries, which must be those the layout was made
// for, computed.
func (l *geometry) render(es []*Entry) []byte {
	b := make([]byte, 0, l.size(len(es)))
	start := len(b)
	b = padTo(b, "tensor", l.nameW, false)
	for _, f := range summaryFields {
		b = append(b, ' ')
		b = padTo(b, f.name, f.w, f.right)
	}
	b = l.endLine(b, start)
	byGroup := map[int][]*Entry{}
	for _, e := range es {
		g := group(e.Name)
		byGroup[g] = append(byGroup[g], e)
	}
	counts := map[Status]int{}
	all, allSNR := math.NaN(), math.NaN()
	for _, g := range l.groups {
		rows := byGroup[g]
		sort.SliceStable(rows, func(i, j int) bool {
			a, c := rows[i], rows[j]
			if ra, rc := rank(a.Status), rank(c.Status); ra != rc {
				return ra < rc
			}
			if a.RelL2 != c.RelL2 {
				return a.RelL2 > c.RelL2
			}
			return a.Name < c.Name
		})
		gmax, gsnr := math.NaN(), math.NaN()
		for _, e := range rows {
			if e.Compared() {
				gmax = maxNaN(gmax, float64(e.RelL2))
			}
			if hasSNR(e) {
				gsnr = minNaN(gsnr, float64(e.SNR))
			}
		}
		all, allSNR = maxNaN(all, gmax), minNaN(allSNR, gsnr)
		start = len(b)
		b = append(b, groupLine(g, len(rows), gmax, gsnr)...)
		b = l.endLine(b, start)
		for _, e := range rows {
			counts[e.Status]++
			start = len(b)
			b = l.row(b, e)
			b = l.endLine(b, start)
		}
	}
	start = len(b)
	b = append(b, l.footer(counts, all, allSNR)...)
	return l.endLine(b, start)
}

func (l *geometry) row(b []byte, e *Entry) []byte {
	b = padTo(b, safeName(e.Name), l.nameW, false)
	dt := func(d, how string) string {
		if d == "" {
			return "-"
		}
		if how != "" {
			return d + "*"
		}
		return d
	}
	vals := []string{string(e.Status), e.Match, dt(e.ModelDType, e.ModelValues) + "/" + dt(e.OtherDType, e.OtherValues),
		"-", "-", "-", "-", "-", "-", "-"}
	if e.Compared() {
		vals[3] = sci(float64(e.RelL2))
		vals[4] = strconv.FormatFloat(float64(e.Cosine), 'f', 9, 64)
		if vals[4][0] != '-' {
			vals[4] = "+" + vals[4]
		}
		vals[5] = snr(e)
		vals[6] = sci(float64(e.MaxAbs))
		vals[7] = sci(float64(e.MeanAbs))
		vals[8] = strconv.FormatUint(e.Differ, 10)
		vals[9] = strconv.FormatUint(e.Elements, 10)
	}
	for k, f := range summaryFields {
		b = append(b, ' ')
		v := vals[k]
		if len(v) > f.w {
			v = v[:f.w]
		}
		b = padTo(b, v, f.w, f.right)
	}
	return b
}
