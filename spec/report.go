package spec

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fsmount/fsmount/safetensors"
)

const ruleWidth = 76 // width of the section rules, in runes

// Text renders the whole report: the dimension legend, the tensor table
// and the verdict, as fsinspect prints it.
func (r *Report) Text() string {
	var b strings.Builder
	if r.Plan != nil {
		r.writeLegend(&b)
		b.WriteByte('\n')
	}
	r.writeTensors(&b)
	b.WriteByte('\n')
	b.WriteString(sectionRule("verdict"))
	b.WriteString(r.Verdict())
	return b.String()
}

func sectionRule(title string) string {
	head := "── " + title + " "
	return head + strings.Repeat("─", max(3, ruleWidth-utf8.RuneCountInString(head))) + "\n"
}

func (r *Report) writeLegend(b *strings.Builder) {
	b.WriteString(sectionRule("dimensions (from config.json)"))
	for _, l := range r.Plan.Legend {
		fmt.Fprintf(b, "  %-2s %-20s%9d   %s\n", l.Sym, l.Field, l.Value, l.Desc)
	}
	b.WriteString("  weights are stored [out, in]; read a row as   in ──▶ out   (y = x·Wᵀ)\n")
}

// tableLine is one line of the tensor table: a heading ("  global") or a
// tensor row.
type tableLine struct {
	heading                        string
	name, dtype, shape, params, io string
}

// Column widths where every name fits: the seed's layout. There, a name
// one rune too long (post_attention_layernorm.weight) is followed by one
// space and borrows the overflow from the dtype column, as the seed's
// report shows. A longer name, or a dtype or shape longer than its
// column, widens that column for the whole table, so that columns never
// run together.
const (
	nameWidth  = 30
	dtypeWidth = 6
	shapeWidth = 16
)

// writeTable lays out the tensor table: names, dtypes and shapes
// left-aligned in their columns, the parameter count right-aligned in 11.
func writeTable(b *strings.Builder, lines []tableLine) {
	longest, dw, sw := 0, dtypeWidth, shapeWidth
	for _, l := range lines {
		if l.heading == "" {
			longest = max(longest, utf8.RuneCountInString(l.name))
			dw = max(dw, utf8.RuneCountInString(l.dtype)+1)
			sw = max(sw, utf8.RuneCountInString(l.shape)+1)
		}
	}
	nw := nameWidth
	if longest > nameWidth+1 {
		nw = longest + 1
	}
	pad := func(s string, w int) string { return s + strings.Repeat(" ", max(0, w-utf8.RuneCountInString(s))) }
	b.WriteString("  " + pad("TENSOR", nw+2) + pad("DTYPE", dw) + pad("SHAPE", sw+1) + "PARAMS   in ──▶ out\n")
	for _, l := range lines {
		if l.heading != "" {
			b.WriteString(l.heading)
			continue
		}
		b.WriteString("    ")
		b.WriteString(l.name)
		carry := 0
		if n := utf8.RuneCountInString(l.name); n < nw {
			b.WriteString(strings.Repeat(" ", nw-n))
		} else {
			b.WriteByte(' ')
			carry = n + 1 - nw
		}
		dn := utf8.RuneCountInString(l.dtype)
		b.WriteString(l.dtype)
		b.WriteString(strings.Repeat(" ", max(dw-carry, dn+1)-dn))
		b.WriteString(pad(l.shape, sw))
		fmt.Fprintf(b, "%11s", l.params)
		if l.io != "" {
			b.WriteString("  ")
			b.WriteString(l.io)
		}
		b.WriteByte('\n')
	}
}

func (r *Report) writeTensors(b *strings.Builder) {
	b.WriteString(sectionRule("tensors"))
	var lines []tableLine
	heading := func(format string, args ...any) {
		lines = append(lines, tableLine{heading: fmt.Sprintf(format, args...)})
	}
	if r.Plan == nil {
		for _, e := range r.Entries {
			t := e.Tensor
			lines = append(lines, tableLine{name: t.Name, dtype: t.DType.String(), shape: safetensors.FormatShape(t.Shape), params: commas(t.NumElements())})
		}
		writeTable(b, lines)
		return
	}
	row := func(label string, e *Entry) {
		x := e.Expected
		dtype, shape, params := "—", safetensors.FormatShape(x.ShapeValues()), "missing"
		if t := e.Tensor; t != nil {
			dtype, shape, params = t.DType.String(), safetensors.FormatShape(t.Shape), commas(t.NumElements())
		}
		io := flow(x)
		if x.Expert >= 0 {
			io += fmt.Sprintf("   (× %d experts)", r.Plan.Experts)
		}
		lines = append(lines, tableLine{name: label, dtype: dtype, shape: shape, params: params, io: io})
	}
	heading("  global\n")
	byLayer := map[int][]*Entry{}
	var finals []*Entry
	for i := range r.Entries {
		e := &r.Entries[i]
		switch x := e.Expected; {
		case x == nil:
		case x.Final:
			finals = append(finals, e)
		case x.Layer < 0:
			row(x.Name, e)
		default:
			byLayer[x.Layer] = append(byLayer[x.Layer], e)
		}
	}
	for _, k := range r.Plan.Blocks {
		if len(k.Layers) == 0 {
			continue
		}
		kind := "block"
		if k.Name != "" {
			kind = k.Name + " block"
		}
		shown := k.Layers[0]
		heading("  each %s  × %d   (shown: layer %d)\n", kind, len(k.Layers), shown)
		prefix := fmt.Sprintf("model.layers.%d.", shown)
		for _, e := range byLayer[shown] {
			label := strings.TrimPrefix(e.Expected.Name, prefix)
			switch e.Expected.Expert {
			case -1:
			case 0:
				label = strings.Replace(label, "experts.0.", fmt.Sprintf("experts.{0..%d}.", r.Plan.Experts-1), 1)
			default:
				continue // one row stands for every expert
			}
			row(label, e)
		}
	}
	heading("  final\n")
	for _, e := range finals {
		label := e.Expected.Name
		if e.Expected.Role == RoleHead && r.Plan.Tied {
			label += "   (tied)"
		}
		row(label, e)
	}
	writeTable(b, lines)
	var aux, other int
	for _, e := range r.Entries {
		switch {
		case e.Expected != nil:
		case e.Aux != "":
			aux++
		default:
			other++
		}
	}
	if aux+other > 0 {
		fmt.Fprintf(b, "  other: %s allowed extra (quantization, legacy), %d unexpected\n", commas(uint64(aux)), other)
	}
}

// flow renders the "in ──▶ out" column for an expected tensor.
func flow(x *ExpectedTensor) string {
	s := x.ShapeValues()
	switch x.Role {
	case RoleEmbedding:
		return "id ──▶ " + x.Shape[1].Sym + "   (row gather)"
	case RoleNorm:
		return fmt.Sprintf("scale %d", s[0])
	case RoleBias:
		return fmt.Sprintf("bias %d", s[0])
	case RoleRouter:
		return fmt.Sprintf("%d ──▶ %d   (router)", s[1], s[0])
	}
	return fmt.Sprintf("%d ──▶ %d", s[1], s[0])
}

// Verdict renders the verdict section's lines, without its rule.
func (r *Report) Verdict() string {
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString("  ")
		fmt.Fprintf(&b, format, args...)
		b.WriteByte('\n')
	}
	if r.Plan == nil {
		line("– cross-check skipped: %s", r.Skipped)
		for _, w := range r.Warnings {
			line("warning: %s", w)
		}
		line("params: %s stored in %d tensors", commas(r.Stored), len(r.Model.Weights.Tensors()))
		return b.String()
	}
	expected := 0
	for _, e := range r.Entries {
		if x := e.Expected; x != nil && (!x.Optional || e.Tensor != nil) {
			expected++
		}
	}
	if r.Clean() {
		line("✓ all %d expected tensors present, shapes match the config", expected)
	} else {
		counts := map[ProblemKind]int{}
		var order []ProblemKind
		for _, p := range r.Problems {
			if counts[p.Kind]++; counts[p.Kind] == 1 {
				order = append(order, p.Kind)
			}
		}
		parts := make([]string, len(order))
		for i, k := range order {
			parts[i] = fmt.Sprintf("%d %s", counts[k], k)
		}
		line("✗ %d %s: %s (of %d expected tensors)", len(r.Problems), plural(len(r.Problems), "problem", "problems"), strings.Join(parts, ", "), expected)
		for _, p := range r.Problems {
			line("✗ %s: %s", p.Kind, p.Detail)
		}
	}
	for _, n := range r.Notes {
		line("note: %s", n)
	}
	for _, w := range r.Warnings {
		line("warning: %s", w)
	}
	line("params: %s stored · %s logical (the %q)", commas(r.Stored), commas(r.Logical), SizeLabel(r.Logical))
	if len(r.ByDType) > 1 {
		line("by dtype: %s", r.dtypeSummary())
	}
	if r.Logical > 0 {
		line("embeddings: %s = %.1f%% of logical", commas(r.Embeddings), r.EmbeddingShare())
	}
	return b.String()
}

func (r *Report) dtypeSummary() string {
	keys := slices.Sorted(maps.Keys(r.ByDType))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.String() + " " + commas(r.ByDType[k])
	}
	return strings.Join(parts, " · ")
}

// EmbeddingShare returns the embeddings as a percentage of the logical
// parameters.
func (r *Report) EmbeddingShare() float64 {
	if r.Logical == 0 {
		return 0
	}
	return 100 * float64(r.Embeddings) / float64(r.Logical)
}

// SizeLabel renders a parameter count the way model names do: "0.6B",
// "30.5B", "124.4M".
func SizeLabel(n uint64) string {
	switch {
	case n >= 100_000_000:
		return fmt.Sprintf("%.1fB", float64(n)/1e9)
	case n >= 100_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1fK", float64(n)/1e3)
}

// jsonReport is the machine-readable form of a Report.
type jsonReport struct {
	Model        string            `json:"model"`
	Architecture string            `json:"architecture,omitempty"`
	Spec         string            `json:"spec,omitempty"`
	Checked      bool              `json:"checked"`
	Skipped      string            `json:"skipped,omitempty"`
	Clean        bool              `json:"clean"`
	Files        []string          `json:"files"`
	Tensors      int               `json:"tensors"`
	Expected     int               `json:"expected"`
	Dimensions   []jsonDim         `json:"dimensions,omitempty"`
	Problems     []jsonProblem     `json:"problems"`
	Notes        []string          `json:"notes"`
	Warnings     []string          `json:"warnings"`
	Params       jsonParams        `json:"params"`
	Shapes       []jsonTensorShape `json:"tensor_list"`
}

type jsonDim struct {
	Symbol string `json:"symbol,omitempty"`
	Field  string `json:"field"`
	Value  uint64 `json:"value"`
}

type jsonProblem struct {
	Kind   ProblemKind `json:"kind"`
	Tensor string      `json:"tensor"`
	Detail string      `json:"detail"`
}

type jsonParams struct {
	Stored          uint64            `json:"stored"`
	Logical         uint64            `json:"logical"`
	Label           string            `json:"label"`
	Embeddings      uint64            `json:"embeddings"`
	EmbeddingsShare float64           `json:"embeddings_percent"`
	ByDType         map[string]uint64 `json:"by_dtype"`
}

type jsonTensorShape struct {
	Name   string   `json:"name"`
	DType  string   `json:"dtype"`
	Shape  []uint64 `json:"shape"`
	Params uint64   `json:"params"`
	File   string   `json:"file"`
	Offset int64    `json:"offset"`
	Bytes  int64    `json:"bytes"`
}

// JSON renders the same facts as Text for machines.
func (r *Report) JSON() []byte {
	j := jsonReport{
		Model:    r.Model.Path,
		Checked:  r.Plan != nil,
		Skipped:  r.Skipped,
		Clean:    r.Clean(),
		Tensors:  len(r.Model.Weights.Tensors()),
		Expected: len(r.ExpectedSet()),
		Problems: []jsonProblem{},
		Notes:    append([]string{}, r.Notes...),
		Warnings: append([]string{}, r.Warnings...),
		Params: jsonParams{Stored: r.Stored, Logical: r.Logical, Label: SizeLabel(r.Logical),
			Embeddings: r.Embeddings, EmbeddingsShare: float64(int(r.EmbeddingShare()*10+0.5)) / 10, ByDType: map[string]uint64{}},
	}
	if c := r.Model.Config; c != nil {
		j.Architecture = c.Architecture()
	}
	for _, f := range r.Model.Weights.Files {
		j.Files = append(j.Files, f.Name)
	}
	if r.Plan != nil {
		j.Spec = r.Plan.Arch
		for _, l := range r.Plan.Legend {
			j.Dimensions = append(j.Dimensions, jsonDim{l.Sym, l.Field, l.Value})
		}
	}
	for _, p := range r.Problems {
		j.Problems = append(j.Problems, jsonProblem(p))
	}
	for k, v := range r.ByDType {
		j.Params.ByDType[k.String()] = v
	}
	for _, t := range r.Model.Weights.Tensors() {
		j.Shapes = append(j.Shapes, jsonTensorShape{t.Name, t.DType.String(), t.Shape, t.NumElements(), t.File().Name, t.FileOffset(), t.Size()})
	}
	out, _ := json.MarshalIndent(j, "", "  ")
	return append(out, '\n')
}
