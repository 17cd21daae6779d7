package site

import (
	"bytes"
	"context"
	"html"
	"net/url"
	"path"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/numfmt"
	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/tensor"
)

// tensorStats is what a page shows of a tensor's statistics.
type tensorStats struct {
	st     *decode.Stats // nil when not decoded or failed
	health string        // one of healthWords
}

// The health words and their marks, each padded to healthW.
const (
	healthW = 8
	markW   = 8 // a character reference: "&#x2713;"
	floatW  = 13
	countW  = 20
	statW   = 24
)

var marks = map[string]string{
	"ok": "&#x2713;", "na": "&#x2013;",
	// Anything else is a problem.
	"": "&#x2717;",
}

// statsOf returns the statistics of v, scanning it if not yet known.
func (s *Site) statsOf(ctx context.Context, v *views.Tensor) tensorStats {
	if v.Decoder() == nil {
		return tensorStats{health: "na"}
	}
	st, err := v.Stats(ctx)
	if err != nil {
		return tensorStats{health: "error"}
	}
	return tensorStats{st: st, health: string(st.Health())}
}

// padTo appends s right-aligned in w bytes (s is never longer; it would
// be cut).
func padTo(b *bytes.Buffer, s string, w int) {
	s = s[:min(len(s), w)]
	b.WriteString(strings.Repeat(" ", w-len(s)))
	b.WriteString(s)
}

// padLeft appends s left-aligned in w bytes.
func padLeft(b *bytes.Buffer, s string, w int) {
	s = s[:min(len(s), w)]
	b.WriteString(s)
	b.WriteString(strings.Repeat(" ", w-len(s)))
}

// healthCell writes the fixed-width health cell; ts nil writes a blank
// one of the same size.
func healthCell(b *bytes.Buffer, ts *tensorStats) {
	word, mark := "", strings.Repeat(" ", markW)
	if ts != nil {
		word = ts.health
		m, ok := marks[word]
		if !ok {
			m = marks[""]
		}
		mark = m
	}
	shown := word
	if word == "na" {
		shown = "n/a"
	}
	b.WriteString(`<td class="h `)
	padLeft(b, word, healthW)
	b.WriteString(`">`)
	b.WriteString(mark)
	b.WriteByte(' ')
	padLeft(b, shown, healthW)
	b.WriteString("</td>")
}

func esc(s string) string { return html.EscapeString(s) }

// href is the escaped relative link to a path under the root from a page
// depth directories down.
func href(depth int, p string) string {
	parts := strings.Split(p, "/")
	for i, c := range parts {
		parts[i] = url.PathEscape(c)
	}
	pre := "./"
	if depth > 0 {
		pre = strings.Repeat("../", depth)
	}
	return esc(pre + strings.Join(parts, "/"))
}

const style = `<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
table{border-collapse:collapse}
td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:left;vertical-align:top}
td.n{text-align:right;font-family:monospace;white-space:pre}
td.h{font-family:monospace;white-space:nowrap}
.ok{color:#070}.na{color:#888}
.nan,.inf,.zero,.constant,.empty,.outlier,.error{color:#b00;font-weight:bold}
pre{background:#f6f6f6;padding:8px}
</style>
`

func head(b *bytes.Buffer, title string) {
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>")
	b.WriteString(esc(title))
	b.WriteString("</title>\n")
	b.WriteString(style)
	b.WriteString("</head>\n<body>\n")
}

func img(b *bytes.Buffer, src string, w, h int, alt string) {
	b.WriteString(`<p><img src="` + src + `" width="` + strconv.Itoa(w) + `" height="` + strconv.Itoa(h) + `" alt="` + esc(alt) + `"></p>` + "\n")
}

// rootStats is what a root row shows of a tensor's statistics.
type rootStats struct {
	rms, absmax float64
	known       bool // computed
	decoded     bool // the figures are known
	health      string
}

// rootHead writes the root index.html up to its first tensor row.
func (s *Site) rootHead(b *bytes.Buffer) {
	r := s.report
	loc := ""
	if r.Model != nil {
		loc = r.Model.Location
	}
	head(b, "fsmount: "+loc)
	b.WriteString("<h1>" + esc(loc) + "</h1>\n<h2>Verdict</h2>\n<pre>" + esc(r.Verdict()) + "</pre>\n")
	if r.Plan != nil {
		b.WriteString("<h2>Dimensions (from config.json, " + esc(r.Plan.Arch) + ")</h2>\n<table class=\"legend\">\n<tr><th></th><th>field</th><th>value</th><th></th></tr>\n")
		for _, l := range r.Plan.Legend {
			b.WriteString("<tr><td>" + esc(l.Sym) + "</td><td>" + esc(l.Field) + "</td><td class=\"n\">" + strconv.FormatUint(l.Value, 10) + "</td><td>" + esc(l.Desc) + "</td></tr>\n")
		}
		b.WriteString("</table>\n<p>Weights are stored [out, in]: rows are outputs, columns inputs (y = x·W<sup>T</sup>).</p>\n")
	}
	b.WriteString("<h2>Overview</h2>\n")
	img(b, "./"+layout.Overview, render.OverviewW, render.OverviewH, "RMS of each kind of block weight against the layer index")
	b.WriteString("<h2>Tensors</h2>\n<table id=\"tensors\">\n<tr><th>name</th><th>dtype</th><th>shape</th><th>params</th><th>rms</th><th>absmax</th><th>health</th></tr>\n")
}

// rowDesc is what a root row shows of a tensor besides its statistics:
// what fixes the row's size.
type rowDesc struct {
	name, dir, dtype string
	shape            []uint64
	params           uint64
}

// describe returns the row description of t, whose views show the type
// dtype and the shape shape ([views.Shown]), and whose directory is dir.
func describe(t *tensor.Tensor, dtype string, shape []uint64, dir string) rowDesc {
	return rowDesc{name: t.Name, dir: dir, dtype: dtype, shape: shape, params: t.NumElements()}
}

// rootRow writes the table row of the tensor d; rs nil writes blank
// fields of the same widths.
func rootRow(b *bytes.Buffer, d *rowDesc, rs *rootStats) {
	b.WriteString("<tr><td><a href=\"" + href(0, d.dir+"/"+layout.Index) + "\">" + esc(d.name) + "</a></td><td>" + esc(d.dtype) + "</td><td>" + tensor.FormatShape(d.shape) + "</td><td class=\"n\">" + numfmt.Commas(d.params) + "</td>")
	for k := range 2 {
		b.WriteString(`<td class="n">`)
		cell := ""
		if rs != nil {
			cell = "-"
			if rs.decoded {
				cell = render.Sci([2]float64{rs.rms, rs.absmax}[k], 5)
			}
		}
		padTo(b, cell, floatW)
		b.WriteString("</td>")
	}
	if rs == nil {
		healthCell(b, nil)
	} else {
		healthCell(b, &tensorStats{health: rs.health})
	}
	b.WriteString("</tr>\n")
}

// rowFixed is the size of a root row less its variable fields (see
// rowLen).
var rowFixed = func() int64 {
	var b bytes.Buffer
	d := rowDesc{dir: "d"}
	rootRow(&b, &d, nil)
	return int64(b.Len()) - varLen(&d)
}()

// rowLen is the size of d's root row, computed without writing it: a
// 500,000-tensor page's size is the sum of its rows'.
func rowLen(d *rowDesc) int64 { return rowFixed + varLen(d) }

// varLen is the size of d's variable fields in its row.
func varLen(d *rowDesc) int64 {
	n := escLen(d.name) + escLen(d.dtype) + uintLen(d.params)
	n += hrefLen(d.dir)
	// The shape: "[a, b, c]".
	n += 2
	for i, x := range d.shape {
		if i > 0 {
			n += 2
		}
		n += uintLen(x)
	}
	// The separators of the params' digits.
	n += (uintLen(d.params) - 1) / 3
	return int64(n)
}

// escLen is len(esc(s)).
func escLen(s string) int {
	if strings.ContainsAny(s, `<>&'"`) {
		return len(esc(s))
	}
	return len(s)
}

// hrefLen is the length of the link to dir's index.html, len(href(0,
// dir+"/"+layout.Index)).
func hrefLen(dir string) int {
	for i := range len(dir) {
		c := dir[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.' || c == '~' || c == '/') {
			return len(href(0, dir+"/"+layout.Index))
		}
	}
	return len("./") + len(dir) + len("/"+layout.Index)
}

// uintLen is the number of decimal digits of x.
func uintLen(x uint64) int {
	n := 1
	for ; x >= 10; x /= 10 {
		n++
	}
	return n
}

// rootFoot writes the root index.html after its last tensor row.
func rootFoot(b *bytes.Buffer) {
	b.WriteString("</table>\n<p>health: ok, nan (a NaN), inf (an infinity), zero (all zeros), constant (all equal), empty, outlier (RMS over 10&times; the median of its kind across layers, or of 255 tensors spread evenly over a larger kind), n/a (not decoded), error (statistics failed).</p>\n</body>\n</html>\n")
}

func dtypeOf(v *views.Tensor) string {
	dt, _ := views.ShownBy(v.Tensor(), v.Decoder())
	return dt
}

// tensorPage writes a tensor's index.html; ts nil writes blank fields.
func (s *Site) tensorPage(p *Tensor, ts *tensorStats) []byte {
	var b bytes.Buffer
	b.Grow(4 << 10) // a page is about 3 KiB
	t := p.v.Tensor()
	depth := strings.Count(p.Dir, "/") + 1
	head(&b, t.Name)
	b.WriteString("<p><a href=\"" + href(depth, layout.Index) + "\">&larr; the model</a></p>\n<h1>" + esc(t.Name) + "</h1>\n<table>\n")
	file := ""
	if t.File != nil {
		file = path.Base(t.File.Name())
	}
	for _, kv := range [][2]string{
		{"dtype", dtypeOf(p.v)}, {"shape", tensor.FormatShape(render.ShapeOf(p.v))}, {"params", numfmt.Commas(t.NumElements())},
		{"file", file}, {"offset", strconv.FormatInt(t.Offset, 10)}, {"bytes", strconv.FormatInt(t.Length, 10)},
	} {
		b.WriteString("<tr><th>" + kv[0] + "</th><td>" + esc(kv[1]) + "</td></tr>\n")
	}
	b.WriteString("</table>\n<h2>Statistics</h2>\n<table>\n")
	var st *decode.Stats
	if ts != nil {
		st = ts.st
	}
	// The statistics' rows: blank before the statistics are known, "-"
	// for a tensor that has none.
	u := func(n uint64) string { return strconv.FormatUint(n, 10) }
	f := func(x float64) string { return render.Sci(x, 16) }
	for _, c := range []struct {
		name  string
		width int
		value func(*decode.Stats) string
	}{
		{"count", countW, func(s *decode.Stats) string { return u(s.Count) }}, {"nan", countW, func(s *decode.Stats) string { return u(s.NaN) }},
		{"+inf", countW, func(s *decode.Stats) string { return u(s.PosInf) }}, {"-inf", countW, func(s *decode.Stats) string { return u(s.NegInf) }},
		{"zeros", countW, func(s *decode.Stats) string { return u(s.Zeros) }}, {"subnormals", countW, func(s *decode.Stats) string { return u(s.Subnormals) }},
		{"min", statW, func(s *decode.Stats) string { return f(s.Min) }}, {"max", statW, func(s *decode.Stats) string { return f(s.Max) }},
		{"mean", statW, func(s *decode.Stats) string { return f(s.Mean) }}, {"std", statW, func(s *decode.Stats) string { return f(s.Std) }},
		{"absmax", statW, func(s *decode.Stats) string { return f(s.AbsMax) }}, {"rms", statW, func(s *decode.Stats) string { return f(s.RMS) }},
	} {
		b.WriteString("<tr><th>" + c.name + `</th><td class="n">`)
		v := ""
		if ts != nil {
			v = "-"
			if st != nil {
				v = c.value(st)
			}
		}
		padTo(&b, v, c.width)
		b.WriteString("</td></tr>\n")
	}
	b.WriteString("<tr><th>health</th>")
	healthCell(&b, ts)
	b.WriteString("</tr>\n</table>\n<h2>Heatmap</h2>\n")
	w, h := render.HeatmapDims(render.ShapeOf(p.v))
	img(&b, "./"+layout.Heatmap, w, h, "heatmap of "+t.Name)
	b.WriteString("<h2>Histogram</h2>\n")
	img(&b, "./"+layout.HistPNG, render.HistW, render.HistH, "histogram of "+t.Name)
	b.WriteString("</body>\n</html>\n")
	return b.Bytes()
}
