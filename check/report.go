package check

import (
	"encoding/json"
	"fmt"
	"github.com/fsmount/fsmount/spec"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/tensor"
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
	r.writeModules(&b)
	b.WriteString(SectionRule("verdict"))
	b.WriteString(r.Verdict())
	return b.String()
}

// SectionRule is the rule that opens a section of the report: "── title ───…".
func SectionRule(title string) string {
	head := "── " + title + " "
	return head + strings.Repeat("─", max(3, ruleWidth-utf8.RuneCountInString(head))) + "\n"
}

func (r *Report) writeLegend(b *strings.Builder) {
	from := "config.json"
	if r.Model.Format == model.FormatGGUF {
		from = "the GGUF metadata"
	}
	b.WriteString(SectionRule("dimensions (from " + from + ")"))
	for _, l := range r.Plan.Legend {
		v := l.Text
		if v == "" {
			v = fmt.Sprint(l.Value)
		}
		fmt.Fprintf(b, "  %-2s %-20s%9s   %s\n", l.Sym, l.Field, v, l.Desc)
	}
	b.WriteString("  weights are stored [out, in]; read a row as   in ──▶ out   (y = x·Wᵀ)\n")
}

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
	for i := range lines {
		lines[i].name = Escape(lines[i].name)
	}
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
	b.WriteString(SectionRule("tensors"))
	var lines []tableLine
	heading := func(format string, args ...any) {
		lines = append(lines, tableLine{heading: fmt.Sprintf(format, args...)})
	}
	if r.Plan == nil {
		for _, e := range r.Entries {
			t := e.Tensor
			lines = append(lines, tableLine{name: t.Name, dtype: t.DType.String(), shape: tensor.FormatShape(t.Shape), params: commas(t.NumElements())})
		}
		writeTable(b, lines)
		return
	}
	row := func(label string, e *Entry) {
		x := e.Expected
		dtype, shape, params := "—", tensor.FormatShape(x.ShapeValues()), "missing"
		if t := e.Tensor; t != nil {
			dtype, shape, params = t.DType.String(), tensor.FormatShape(t.Shape), commas(t.NumElements())
		}
		io := flow(x)
		if e.Scheme != "" {
			// The codes stand for the weight's values.
			params = commas(elements(x.ShapeValues()))
			io += "   (" + e.Scheme + ")"
		}
		if x.Expert >= 0 {
			io += fmt.Sprintf("   (× %d experts)", r.Plan.Experts)
		}
		lines = append(lines, tableLine{name: label, dtype: dtype, shape: shape, params: params, io: io})
	}
	heading("  global\n")
	type at struct{ stack, layer int }
	byLayer := map[at][]*Entry{}
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
			byLayer[at{x.Stack, x.Layer}] = append(byLayer[at{x.Stack, x.Layer}], e)
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
		if k.Stack != "" {
			kind = k.Stack + " " + kind
		}
		shown := k.Layers[0]
		heading("  each %s  × %d   (shown: layer %d)\n", kind, len(k.Layers), shown)
		prefix := k.Prefix
		if es := byLayer[at{k.StackIndex, shown}]; r.Model.Names != nil && len(es) > 0 {
			prefix = layerPrefix(es[0].Expected.Name, shown, prefix)
		}
		for _, e := range byLayer[at{k.StackIndex, shown}] {
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
		if e.Expected.Role == spec.RoleHead && r.Plan.Tied {
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
func flow(x *spec.ExpectedTensor) string {
	s := x.ShapeValues()
	if len(s) == 0 {
		return "scalar"
	}
	if len(s) == 1 && x.Role != spec.RoleNorm && x.Role != spec.RoleBias {
		return fmt.Sprintf("vector %d", s[0])
	}
	switch x.Role {
	case spec.RoleEmbedding:
		return "id ──▶ " + x.Shape[1].Sym + "   (row gather)"
	case spec.RoleNorm:
		return fmt.Sprintf("scale %d", s[0])
	case spec.RoleBias:
		return fmt.Sprintf("bias %d", s[0])
	case spec.RoleRouter:
		return fmt.Sprintf("%d ──▶ %d   (router)", s[1], s[0])
	case spec.RoleConv1D:
		if len(s) == 2 {
			return fmt.Sprintf("%d ──▶ %d   ([in, out])", s[0], s[1])
		}
	}
	if len(s) != 2 {
		return tensor.FormatShape(s)
	}
	return fmt.Sprintf("%d ──▶ %d", s[1], s[0])
}

// Verdict renders the verdict section's lines, without its rule. Each
// line is passed through [Escape], so that a tensor name, a file name or a
// config string can neither break a line nor forge one.
func (r *Report) Verdict() string {
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString("  ")
		b.WriteString(Escape(fmt.Sprintf(format, args...)))
		b.WriteByte('\n')
	}
	if r.Plan == nil && r.Depth == DepthStructural {
		r.structuralVerdict(line)
		return b.String()
	}
	if r.Plan == nil {
		line("– cross-check skipped: %s", r.Skipped)
		r.modulesVerdict(line)
		for _, w := range r.Warnings {
			line("warning: %s", w)
		}
		line("params: %s stored in %d tensors", commas(r.Stored), len(r.Model.Tensors()))
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
		line("✗ %d %s: %s (of %d expected tensors)", len(r.Problems), plural(len(r.Problems), "problem", "problems"), KindCounts(r.Problems), expected)
		for _, p := range r.Problems {
			line("✗ %s: %s", p.Kind, p.Detail)
		}
	}
	r.modulesVerdict(line)
	for _, n := range r.Notes {
		line("note: %s", n)
	}
	for _, w := range r.Warnings {
		line("warning: %s", w)
	}
	line("params: %s stored · %s logical (the %q)", commas(r.Stored), commas(r.Logical), SizeLabel(r.Logical))
	if r.Auxiliary > 0 {
		line("quantization auxiliaries: %s values (scales, zero points, group indices), stored but not parameters", commas(r.Auxiliary))
	}
	if len(r.ByDType) > 1 {
		line("by dtype: %s", r.dtypeSummary())
	}
	if r.Logical > 0 {
		line("embeddings: %s = %.1f%% of logical", commas(r.Embeddings), r.EmbeddingShare())
	}
	return b.String()
}

// KindCounts counts problems by kind, in the order each kind first
// appears: "2 missing, 1 shape".
func KindCounts(problems []Problem) string {
	counts := map[ProblemKind]int{}
	var order []ProblemKind
	for _, p := range problems {
		if counts[p.Kind]++; counts[p.Kind] == 1 {
			order = append(order, p.Kind)
		}
	}
	parts := make([]string, len(order))
	for i, k := range order {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return strings.Join(parts, ", ")
}

// structuralVerdict is the verdict of a model checked structurally.
func (r *Report) structuralVerdict(line func(string, ...any)) {
	st := r.Structure
	what := []string{}
	if st.Layers > 0 {
		what = append(what, fmt.Sprintf("layers 0..%d (%s)", st.Layers-1, st.Field))
	}
	for _, s := range st.Stacks {
		if s.Layers > 1 {
			what = append(what, fmt.Sprintf("%s: %d layers in %d %s", s.Prefix, s.Layers, s.Kinds, plural(s.Kinds, "kind", "kinds")))
		}
	}
	if r.Embeddings > 0 {
		what = append(what, "embedding rows = vocab_size")
	}
	summary := "nothing it could compare"
	if len(what) > 0 {
		summary = strings.Join(what, "; ")
	}
	if r.Clean() {
		line("– structural check only: %s; its tensors are consistent: %s", r.Skipped, summary)
	} else {
		line("✗ %d %s: %s (structural check only: %s)", len(r.Problems), plural(len(r.Problems), "problem", "problems"), KindCounts(r.Problems), r.Skipped)
		for _, p := range r.Problems {
			line("✗ %s: %s", p.Kind, p.Detail)
		}
		line("checked: %s", summary)
	}
	r.modulesVerdict(line)
	for _, n := range r.Notes {
		line("note: %s", n)
	}
	for _, w := range r.Warnings {
		line("warning: %s", w)
	}
	line("params: %s stored in %d tensors", commas(r.Stored), len(r.Model.Tensors()))
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
	Depth        string            `json:"depth"`
	Skipped      string            `json:"skipped,omitempty"`
	Clean        bool              `json:"clean"`
	Files        []string          `json:"files"`
	Tensors      int               `json:"tensors"`
	Expected     int               `json:"expected"`
	Dimensions   []jsonDim         `json:"dimensions"`
	Problems     []jsonProblem     `json:"problems"`
	Notes        []string          `json:"notes"`
	Warnings     []string          `json:"warnings"`
	Params       jsonParams        `json:"params"`
	Quant        *Quantization     `json:"quantization,omitempty"`
	Shapes       []jsonTensorShape `json:"tensor_list"`
	Modules      []jsonModule      `json:"modules,omitempty"`
}

// jsonModule is a sentence-transformers module as checked.
type jsonModule struct {
	Index    int           `json:"idx"`
	Name     string        `json:"name"`
	Path     string        `json:"path"`
	Type     string        `json:"type"`
	Checked  bool          `json:"checked"`
	Out      uint64        `json:"output_dimension,omitempty"`
	Lines    []string      `json:"checks"`
	Problems []jsonProblem `json:"problems"`
}

// jsonDim is a legend row. Value is the number, or for a flag 1 (true)
// or 0; Default, present only for a field config.json omits, says what
// was used instead.
type jsonDim struct {
	Symbol  string `json:"symbol,omitempty"`
	Field   string `json:"field"`
	Value   uint64 `json:"value"`
	Text    string `json:"text,omitempty"`
	Default string `json:"default,omitempty"`
}

// jsonProblem is a Problem for machines: the optional fields are present
// where the kind has them (see [Problem]).
type jsonProblem struct {
	Kind       ProblemKind       `json:"kind"`
	Tensor     string            `json:"tensor"`
	Detail     string            `json:"detail"`
	Expected   *jsonShape        `json:"expected,omitempty"`
	Shape      *[]uint64         `json:"shape,omitempty"`
	DType      string            `json:"dtype,omitempty"`
	WantDType  string            `json:"expected_dtype,omitempty"`
	Mismatches *[]jsonDimProblem `json:"mismatches,omitempty"`
}

// jsonShape is an expected shape: its values and each dimension's legend
// symbol.
type jsonShape struct {
	Shape   []uint64 `json:"shape"`
	Symbols []string `json:"symbols"`
}

type jsonDimProblem struct {
	Index    int    `json:"index"`
	Symbol   string `json:"symbol"`
	Expected uint64 `json:"expected"`
	Actual   uint64 `json:"actual"`
}

// MarshalJSON renders a problem as the report's JSON does.
func (p Problem) MarshalJSON() ([]byte, error) { return json.Marshal(newJSONProblem(p)) }

func newJSONProblem(p Problem) jsonProblem {
	j := jsonProblem{Kind: p.Kind, Tensor: p.Tensor, Detail: p.Detail, DType: p.DType, WantDType: p.WantDType}
	if p.Expected != nil {
		e := &jsonShape{Shape: make([]uint64, len(p.Expected)), Symbols: make([]string, len(p.Expected))}
		for i, d := range p.Expected {
			e.Shape[i], e.Symbols[i] = d.Val, d.Sym
		}
		j.Expected = e
	}
	if p.HasShape {
		s := append([]uint64{}, p.Shape...)
		j.Shape = &s
	}
	if p.Kind == Misshaped {
		mm := make([]jsonDimProblem, len(p.Mismatches))
		for i, m := range p.Mismatches {
			mm[i] = jsonDimProblem{m.Index, m.Sym, m.Expected, m.Actual}
		}
		j.Mismatches = &mm
	}
	return j
}

type jsonParams struct {
	Stored          uint64            `json:"stored"`
	Logical         uint64            `json:"logical"`
	Auxiliary       uint64            `json:"quantization_auxiliary,omitempty"`
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
	Path   string   `json:"path,omitempty"`
}

// JSON renders the same facts as Text for machines.
func (r *Report) JSON() []byte {
	j := jsonReport{
		Model:      r.Model.Location,
		Checked:    r.Checked(),
		Depth:      r.Depth,
		Skipped:    r.Skipped,
		Clean:      r.FullyClean(),
		Tensors:    len(r.Model.Tensors()),
		Expected:   len(r.ExpectedSet()),
		Files:      []string{},
		Dimensions: []jsonDim{},
		Problems:   []jsonProblem{},
		Shapes:     []jsonTensorShape{},
		Notes:      append([]string{}, r.Notes...),
		Warnings:   append([]string{}, r.Warnings...),
		Params: jsonParams{Stored: r.Stored, Logical: r.Logical, Auxiliary: r.Auxiliary, Label: SizeLabel(r.Logical),
			Embeddings: r.Embeddings, EmbeddingsShare: float64(int(r.EmbeddingShare()*10+0.5)) / 10, ByDType: map[string]uint64{}},
		Quant: r.Quant,
	}
	if c := r.Config; c != nil {
		j.Architecture = c.Architecture()
	}
	for _, f := range r.Model.Files {
		j.Files = append(j.Files, f.Name())
	}
	if r.Plan != nil {
		j.Spec = r.Plan.Arch
		for _, l := range r.Plan.Legend {
			v := l.Value
			if l.Text == "true" {
				v = 1
			}
			j.Dimensions = append(j.Dimensions, jsonDim{l.Sym, l.Field, v, l.Text, l.Default})
		}
	}
	for _, p := range r.Problems {
		j.Problems = append(j.Problems, newJSONProblem(p))
	}
	for k, v := range r.ByDType {
		j.Params.ByDType[k.String()] = v
	}
	paths := r.Paths()
	for _, t := range r.Model.Tensors() {
		js := jsonTensorShape{t.Name, t.DType.String(), t.Shape, t.NumElements(), t.File.Name(), t.Offset, t.Length, strings.Join(paths[t.Name], "/")}
		j.Shapes = append(j.Shapes, js)
	}
	for _, mc := range r.Modules {
		jm := jsonModule{mc.Module.Index, mc.Module.Name, mc.Module.Path, mc.Module.Type, mc.Checked, mc.Out, mc.Lines, []jsonProblem{}}
		for _, p := range mc.Problems {
			jm.Problems = append(jm.Problems, newJSONProblem(p))
		}
		j.Modules = append(j.Modules, jm)
	}
	out, _ := json.MarshalIndent(j, "", "  ")
	return append(out, '\n')
}

// Paths maps the name of every tensor of the files, and of every expected
// tensor they lack, to its directory's components in the tree a mount
// shows and fsinspect --html writes (package layout).
func (r *Report) Paths() map[string][]string {
	m := r.Model
	tensors := m.Tensors()
	lacking := r.Lacking()
	names := make([]string, len(tensors), len(tensors)+len(lacking))
	for i, tt := range tensors {
		names[i] = tt.Name
	}
	var hf layout.HFNamer
	if m.Names != nil {
		hf = m.Names
	}
	return layout.Tensors(append(names, lacking...), hf)
}
