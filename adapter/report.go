package adapter

import (
	"encoding/json"
	"fmt"
	"github.com/fsmount/fsmount/internal/numfmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/tensor"
)

// Text renders the report as fsinspect prints it: the adapter's
// summary, its adapted modules, and the verdict.
func (r *Report) Text() string {
	var b strings.Builder
	c := r.Adapter.Config
	b.WriteString(check.SectionRule("adapter (" + ConfigName + ")"))
	row := func(k, format string, args ...any) {
		fmt.Fprintf(&b, "  %-10s %s\n", k, check.Escape(fmt.Sprintf(format, args...)))
	}
	row("type", "%s", c.Kind())
	row("base", "%s", r.baseLine())
	row("rank", "%s", r.rankLine())
	row("alpha", "%s", r.alphaLine())
	row("scaling", "%s", r.scaleLine())
	row("targets", "%s", r.targetLine())
	if len(r.Modules) > 0 {
		row("modules", "%s", r.modulesLine())
		if l := r.layersLine(); l != "" {
			row("layers", "%s", l)
		}
	}
	if s := c.ToSave(); len(s) > 0 {
		row("saved", "%s (modules_to_save: full copies)", strings.Join(s, ", "))
	}
	if c.Bias != "none" {
		row("bias", "%s", c.Bias)
	}
	row("params", "%s", r.paramsLine())
	row("dtype", "%s", r.dtypeLine())
	b.WriteByte('\n')
	b.WriteString(check.SectionRule("verdict"))
	b.WriteString(r.Verdict())
	return b.String()
}

// Verdict renders the verdict lines.
func (r *Report) Verdict() string {
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString("  ")
		b.WriteString(check.Escape(fmt.Sprintf(format, args...)))
		b.WriteByte('\n')
	}
	switch {
	case r.Clean() && r.Base != nil:
		line("✓ all %d expected tensors present, shapes match the config and the base", r.Expected)
	case r.Clean():
		line("✓ %d tensors consistent with the config (pairs, ranks, the same modules in every layer)", r.Expected)
	default:
		line("✗ %d %s: %s (of %d expected tensors)", len(r.Problems), plural(len(r.Problems), "problem", "problems"), check.KindCounts(r.Problems), r.Expected)
		for _, p := range r.Problems {
			line("✗ %s: %s", p.Kind, p.Detail)
		}
	}
	if r.Base == nil {
		line("– partial check: %s", r.NoBase)
	}
	for _, n := range r.Notes {
		line("note: %s", n)
	}
	for _, w := range r.Adapter.Warnings {
		line("warning: %s", w)
	}
	return b.String()
}

func (r *Report) baseLine() string {
	c := r.Adapter.Config
	named := c.Base
	if named == "" {
		named = "(base_model_name_or_path not set)"
	}
	if r.Base == nil {
		return named + " — not checked against it"
	}
	if r.Base.Location == c.Base {
		return named + " (the local directory it names)"
	}
	return fmt.Sprintf("%s, checked against %s", named, r.Base.Location)
}

func (r *Report) rankLine() string {
	c := r.Adapter.Config
	s := strconv.Itoa(c.R)
	if len(c.RankPattern) > 0 {
		var ps []string
		for _, p := range c.RankPattern {
			ps = append(ps, fmt.Sprintf("%s → %v", p.Key, p.Value))
		}
		s += " (rank_pattern: " + strings.Join(ps, ", ") + ")"
	}
	if rs := r.distinct(func(m *Module) string { return strconv.Itoa(m.Rank) }); len(rs) > 1 {
		s += "; modules have ranks " + strings.Join(rs, ", ")
	}
	return s
}

func (r *Report) alphaLine() string {
	c := r.Adapter.Config
	s := fmtNum(c.Alpha)
	if len(c.AlphaPattern) > 0 {
		var ps []string
		for _, p := range c.AlphaPattern {
			ps = append(ps, fmt.Sprintf("%s → %v", p.Key, p.Value))
		}
		s += " (alpha_pattern: " + strings.Join(ps, ", ") + ")"
	}
	return s
}

func (r *Report) scaleLine() string {
	c := r.Adapter.Config
	rule := "alpha/r"
	if c.UseRSLoRA {
		rule = "alpha/√r"
	}
	var s string
	if c.UseRSLoRA {
		s = fmt.Sprintf("%s = %s/√%d = %s", rule, fmtNum(c.Alpha), c.R, fmtNum(c.Scale("")))
	} else {
		s = fmt.Sprintf("%s = %s/%d = %s", rule, fmtNum(c.Alpha), c.R, fmtNum(c.Scale("")))
	}
	if ss := r.distinct(func(m *Module) string { return fmtNum(m.Scale) }); len(ss) > 1 {
		s += "; modules have " + strings.Join(ss, ", ")
	}
	return s
}

func (r *Report) targetLine() string {
	c := r.Adapter.Config
	var s string
	switch {
	case c.AllLinear:
		s = "all-linear (every Linear and Conv1D but the output head)"
	case c.TargetRegex != nil:
		s = fmt.Sprintf("%q (a regular expression, matched in full)", c.TargetText)
	case len(c.Targets) > 0:
		s = strings.Join(c.Targets, ", ") + " (a module name or its last parts)"
	default:
		s = "none"
	}
	if len(c.Layers) > 0 {
		s += fmt.Sprintf("; layers_to_transform %v", c.Layers)
		if len(c.LayersPattern) > 0 {
			s += " of " + strings.Join(c.LayersPattern, ", ")
		}
	}
	if len(c.Excludes) > 0 || c.ExcludeRegex != nil {
		s += "; excluding " + strings.Join(c.Excludes, ", ")
		if c.ExcludeRegex != nil {
			s += c.ExcludeRegex.String()
		}
	}
	return s
}

// modulesLine counts the adapted modules by their name without the
// layer part and by kind.
func (r *Report) modulesLine() string {
	names := map[string]int{}
	kinds := map[string]int{}
	for _, m := range r.Modules {
		k := m.Key
		if m.Layer >= 0 {
			k = lastPart(k)
		}
		names[k]++
		kinds[m.Kind]++
	}
	var parts []string
	for _, n := range slices.Sorted(maps.Keys(names)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", n, names[n]))
	}
	var ks []string
	for _, k := range slices.Sorted(maps.Keys(kinds)) {
		ks = append(ks, fmt.Sprintf("%d %s", kinds[k], k))
	}
	return fmt.Sprintf("%d adapted (%s): %s", len(r.Modules), strings.Join(ks, ", "), strings.Join(parts, ", "))
}

func (r *Report) layersLine() string {
	set := map[int]bool{}
	for _, m := range r.Modules {
		if m.Layer >= 0 {
			set[m.Layer] = true
		}
	}
	if len(set) == 0 {
		return ""
	}
	ls := slices.Sorted(maps.Keys(set))
	return fmt.Sprintf("%s (%d %s)", ranges(ls), len(ls), plural(len(ls), "layer", "layers"))
}

// ranges renders sorted ints as "0–5, 8, 10–11".
func ranges(ls []int) string {
	var parts []string
	for i := 0; i < len(ls); {
		j := i
		for j+1 < len(ls) && ls[j+1] == ls[j]+1 {
			j++
		}
		if j == i {
			parts = append(parts, strconv.Itoa(ls[i]))
		} else {
			parts = append(parts, fmt.Sprintf("%d–%d", ls[i], ls[j]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

func (r *Report) paramsLine() string {
	s := fmt.Sprintf("%s in %d tensors", numfmt.Commas(r.Params), len(r.Adapter.Tensors))
	if r.BaseParams > 0 {
		s += fmt.Sprintf(" = %.4f%% of the base's %s", 100*float64(r.Params)/float64(r.BaseParams), numfmt.Commas(r.BaseParams))
	}
	return s
}

func (r *Report) dtypeLine() string {
	keys := slices.Sorted(maps.Keys(r.ByDType))
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.String()
		if len(keys) > 1 {
			parts[i] += " " + numfmt.Commas(r.ByDType[k])
		}
	}
	return strings.Join(parts, " · ")
}

func (r *Report) distinct(f func(*Module) string) []string {
	set := map[string]bool{}
	for _, m := range r.Modules {
		set[f(m)] = true
	}
	return slices.Sorted(maps.Keys(set))
}

// fmtNum prints a float without trailing zeros, to 6 significant digits.
func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e15 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', 6, 64)
}

type jsonModule struct {
	Module string   `json:"module"`
	Kind   string   `json:"kind"`
	Layer  *int     `json:"layer,omitempty"`
	Rank   int      `json:"rank"`
	Alpha  float64  `json:"alpha"`
	Scale  float64  `json:"scale"`
	A      string   `json:"lora_A"`
	B      string   `json:"lora_B"`
	Weight string   `json:"base_weight,omitempty"`
	Shape  []uint64 `json:"delta_shape,omitempty"`
}

type jsonReport struct {
	Adapter    string            `json:"adapter"`
	Type       string            `json:"type"`
	BaseNamed  string            `json:"base_named"`
	Base       string            `json:"base,omitempty"`
	Partial    bool              `json:"partial"`
	NoBase     string            `json:"no_base,omitempty"`
	Clean      bool              `json:"clean"`
	R          int               `json:"r"`
	Alpha      float64           `json:"alpha"`
	Scale      float64           `json:"scale"`
	Expected   int               `json:"expected_tensors"`
	Params     uint64            `json:"params"`
	BaseParams uint64            `json:"base_params,omitempty"`
	ByDType    map[string]uint64 `json:"params_by_dtype"`
	Modules    []jsonModule      `json:"modules"`
	Problems   []check.Problem   `json:"problems"`
	Notes      []string          `json:"notes"`
}

// JSON renders the report for machines.
func (r *Report) JSON() []byte {
	c := r.Adapter.Config
	j := jsonReport{Adapter: r.Adapter.Location, Type: c.Kind(), BaseNamed: c.Base, Partial: r.Partial(), NoBase: r.NoBase, Clean: r.Clean(),
		R: c.R, Alpha: c.Alpha, Scale: c.Scale(""), Expected: r.Expected, Params: r.Params, BaseParams: r.BaseParams,
		ByDType: map[string]uint64{}, Modules: []jsonModule{}, Problems: r.Problems, Notes: r.Notes}
	if r.Base != nil {
		j.Base = r.Base.Location
	}
	if j.Problems == nil {
		j.Problems = []check.Problem{}
	}
	if j.Notes == nil {
		j.Notes = []string{}
	}
	for k, v := range r.ByDType {
		j.ByDType[k.String()] = v
	}
	for _, m := range r.Modules {
		jm := jsonModule{Module: m.Key, Kind: m.Kind, Rank: m.Rank, Alpha: m.Alpha, Scale: m.Scale, A: m.A.Name, B: m.B.Name}
		if m.Layer >= 0 {
			l := m.Layer
			jm.Layer = &l
		}
		if m.Weight != nil {
			jm.Weight = m.Weight.Name
		}
		jm.Shape = m.DeltaShape()
		j.Modules = append(j.Modules, jm)
	}
	out, _ := json.MarshalIndent(j, "", "  ")
	return append(out, '\n')
}

var _ = tensor.F32
