package spec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/internal/numfmt"
)

// planner evaluates one family against one config.
type planner struct {
	f    *Family
	c    *Config
	head string
	env  env
	// defaulted maps each field config.json omits (or sets to null) to
	// what was used instead, for the legend.
	defaulted map[string]string
	field     map[string]string // symbol → the config field it was read from
}

// Expect derives the tensor set config.json implies.
func Expect(c *Config) (*Plan, error) { return ExpectHeld(c, -1) }

// ExpectHeld derives the plan for files that hold held tensors (held >=
// 0), which bounds the expected set (expectedFactor, expectedSlack): a
// config cannot make the checker build a set far larger than the files.
func ExpectHeld(c *Config, held int) (*Plan, error) {
	f, head, note, err := lookupFamily(c)
	if err != nil {
		return nil, err
	}
	p, err := f.plan(c, head, held)
	if err == nil && note != "" {
		p.Notes = append(p.Notes, note)
	}
	return p, err
}

func (f *Family) plan(c *Config, head string, held int) (*Plan, error) {
	pl := &planner{f: f, c: c, head: head, defaulted: map[string]string{}, field: map[string]string{},
		env: env{vals: map[string]any{"true": int64(1), "false": int64(0), "empty": []any{}, "causal": b2i(head == HeadCausalLM), "seqcls": b2i(head == HeadSeqCls),
			"tf5": b2i(writtenByV5(c))}}}
	var labels uint64
	var labelsWhy string
	if head == HeadSeqCls || f.task != nil && f.task.Labels {
		var err error
		if labels, labelsWhy, err = numLabels(c); err != nil {
			return nil, err
		}
		pl.env.vals["C"] = int64(labels)
	}
	if err := pl.defs(); err != nil {
		return nil, err
	}
	bound, err := pl.bound(held)
	if err != nil {
		return nil, err
	}
	quant, err := quantConfig(c)
	if err != nil {
		return nil, err
	}
	dtype, err := c.DType()
	if err != nil {
		return nil, err
	}
	if f.task != nil && f.task.FP32First && dtype == "float32" {
		// transformers wrote the dtype of the class's first parameter,
		// one it always keeps in float32, not the weights'.
		dtype = ""
	}
	p := &Plan{Arch: f.Name, Head: head, DType: dtype, QuantMethod: quant.Method, Quant: quant, Embed: f.Embed, HeadName: f.Head, BasePrefix: f.BasePrefix, variants: f.Variants, altNote: f.AltNote}
	switch {
	case f.task != nil:
		p.Arch = f.taskClass(f.task)
	case head == HeadSeqCls:
		p.Arch = f.seqCls()
	}
	if t, ok := pl.env.vals["tied"].(int64); ok && (head == HeadCausalLM || f.task != nil && (f.task.HeadName != "" || f.task.CausalHead)) {
		p.Tied = t != 0
	}
	p.fields = map[string]Dim{}
	for _, d := range f.compiled.defs {
		if v, ok := pl.env.vals[d.Sym].(int64); ok && v >= 0 && d.Field != "" {
			for _, field := range strings.Split(strings.ReplaceAll(d.Field, "!", ""), "|") {
				p.fields[field] = Dim{Sym: d.Sym, Val: uint64(v)}
			}
		}
	}
	if err := pl.legend(p, labels, labelsWhy); err != nil {
		return nil, err
	}
	p.Tensors = make([]ExpectedTensor, 0, bound)
	if err := pl.tensors(p); err != nil {
		return nil, err
	}
	p.untieMismatched()
	if top, ok := pl.env.vals["tiedTop"].(int64); ok {
		if text, ok := pl.env.vals["tiedText"].(int64); ok && top != text {
			p.Notes = append(p.Notes, fmt.Sprintf("tie_word_embeddings (%v) and text_config's (%v) disagree: transformers 4.x ties by text_config, 5.x by the top level; config.json was written by %s, so the head is %s",
				top != 0, text != 0, map[bool]string{true: "5.x", false: "4.x"}[writtenByV5(c)], map[bool]string{true: "tied", false: "its own"}[p.Tied]))
		}
	}
	if len(f.compiled.stacks) > 0 {
		if L, ok := pl.stackLayers(0); ok {
			p.Ignore = f.ignoreRegexps(L)
		}
	}
	return p, nil
}

// defs evaluates the family's definitions: in order, each one reading
// those it needs first.
func (pl *planner) defs() error {
	index := map[string]int{}
	for i, d := range pl.f.compiled.defs {
		index[d.Sym] = i
	}
	busy := map[string]bool{}
	pl.env.resolve = func(name string) (any, error) {
		i, ok := index[name]
		if !ok || busy[name] {
			return nil, &exprError{"unknown symbol " + name}
		}
		busy[name] = true
		defer delete(busy, name)
		v, err := pl.def(&pl.f.compiled.defs[i])
		if err != nil {
			return nil, err
		}
		pl.env.vals[name] = v
		return v, nil
	}
	for _, d := range pl.f.compiled.defs {
		if _, err := pl.env.lookup(d.Sym); err != nil {
			return err
		}
	}
	return nil
}

func (pl *planner) class() string { return pl.f.configClass() }

// def reads one definition: its field, or its default where absent.
func (pl *planner) def(d *cDef) (any, error) {
	if d.Field == "" {
		return pl.eval(d.def, d.Sym, "")
	}
	fields := strings.Split(d.Field, "|")
	field := fields[0]
	var raw json.RawMessage
	var present bool
	for _, f := range fields {
		// "field!" is read under that name alone, never an attribute_map
		// alias (T5's num_layers as its num_decoder_layers' default).
		exact := strings.HasSuffix(f, "!")
		f = strings.TrimSuffix(f, "!")
		if r, ok := pl.c.find(f, !exact); ok {
			raw, present, field = r, true, f
			break
		}
	}
	field = strings.TrimSuffix(field, "!")
	pl.field[d.Sym] = field
	isNull := present && string(raw) == "null"
	var v any
	var err error
	switch {
	case present && !isNull:
		v, err = pl.c.value(field, raw, d.Type)
	case isNull && d.Type != Bool && d.Null == "" && d.def != nil:
		return nil, pl.c.errorf(field, "is null, which %s does not replace (transformers would fail)", pl.class())
	case isNull && d.null != nil:
		v, err = pl.eval(d.null, d.Sym, field)
		pl.defaulted[field] = pl.defaultText(d.null, typed(v, d.Type))
	case d.def == nil:
		return nil, pl.c.errorf(field, "is missing")
	default:
		v, err = pl.eval(d.def, d.Sym, field)
		pl.defaulted[field] = pl.defaultText(d.def, typed(v, d.Type))
	}
	if err != nil {
		return nil, err
	}
	if n, ok := v.(int64); ok {
		why := ""
		if w, ok := pl.defaulted[field]; ok {
			why = " (not in config: " + w + ")"
		}
		switch {
		case n < 0 && d.Type != Signed:
			return nil, pl.c.errorf(field, "must not be negative, found %d%s", n, why)
		case d.Pos && n == 0:
			return nil, pl.c.errorf(field, "must be positive")
		case d.Max > 0 && n > int64(d.Max):
			return nil, pl.c.errorf(field, "is %d, more than the %d%s fsmount accepts%s", n, d.Max, boundWhat(d.Max), boundReal(d.Max))
		}
		if d.Divides != "" {
			mv, err := pl.env.lookup(d.Divides)
			if err != nil {
				return nil, err
			}
			m, _ := mv.(int64)
			if n == 0 || m%n != 0 {
				return nil, pl.c.errorf(field, "is %d%s, which does not divide %s %d", n, why, pl.field[d.Divides], m)
			}
		}
	}
	return v, nil
}

func boundWhat(max int) string {
	switch max {
	case MaxExperts:
		return " experts"
	case MaxLayers:
		return " layers"
	}
	return "" // a bound of its own (a VQ-GAN's resolutions, multimodal_vq.go)
}

func boundReal(max int) string {
	switch max {
	case MaxLayers:
		return " (the largest real models have 126)"
	case MaxExperts:
		return " (the largest real models have 512)"
	}
	return ""
}

// eval evaluates an expression of the family; an evaluation error is a
// ConfigError on the field being read (or, for a derived value, on
// config.json as a whole).
func (pl *planner) eval(x expr, sym, field string) (any, error) {
	v, err := x.eval(&pl.env)
	var ee *exprError
	if errors.As(err, &ee) {
		return nil, pl.c.errorf(field, "cannot be derived: %s (for %s)", ee.msg, sym)
	}
	return v, err
}

// defaultText says what was used for an absent field: "Qwen3Config's
// 128", "= num_attention_heads", "H/heads = 64/8".
func (pl *planner) defaultText(x expr, v any) string {
	switch x := x.(type) {
	case numExpr, strExpr:
		return fmt.Sprintf("%s's %s", pl.class(), valueText(v))
	case symExpr:
		if f, ok := pl.field[x.name]; ok {
			return "= " + f
		}
		if x.name == "true" || x.name == "false" || x.name == "empty" {
			return fmt.Sprintf("%s's %s", pl.class(), valueText(v))
		}
	}
	return x.src() + " = " + pl.substitute(x)
}

// substitute renders an expression with each symbol replaced by its
// value: H/heads → 64/8.
func (pl *planner) substitute(x expr) string {
	switch x := x.(type) {
	case symExpr:
		if v, ok := pl.env.get(x.name); ok {
			return valueText(v)
		}
	case binExpr:
		return binExpr{x.op, numExpr{s: pl.substitute(x.a)}, numExpr{s: pl.substitute(x.b)}}.src()
	}
	return x.src()
}

// typed renders a Bool's 1 or 0 as true or false.
func typed(v any, t DefType) any {
	if n, ok := v.(int64); ok && t == Bool {
		return n != 0
	}
	return v
}

func valueText(v any) string {
	switch v := v.(type) {
	case []any:
		parts := make([]string, len(v))
		for i, x := range v {
			parts[i] = valueText(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

// readers decode the types whose reading is a method of its own.
var readers = map[DefType]func(*Config, string, json.RawMessage) (any, error){
	Count: (*Config).countValue, Milli: (*Config).milliValue, Signed: (*Config).signedValue,
	Chars: (*Config).charsValue, BoolStr: (*Config).boolStrValue, Sign: (*Config).signValue,
	MilliList: (*Config).milliListValue, LayerMap: (*Config).layerMapValue,
}

// value decodes a present, non-null field.
func (c *Config) value(field string, raw json.RawMessage, t DefType) (any, error) {
	if read, ok := readers[t]; ok {
		return read(c, field, raw)
	}
	switch t {
	case Bool:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, c.errorf(field, "must be true or false, found %s", kindOf(raw))
		}
		return b2i(b), nil
	case Str:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, c.errorf(field, "must be a string, found %s", kindOf(raw))
		}
		return s, nil
	case Lens, Widths, Heights:
		return c.lensValue(field, raw, t)
	case Present:
		return int64(1), nil
	case MaxOf:
		l, err := c.value(field, raw, List)
		if err != nil {
			return nil, err
		}
		m := int64(0)
		for _, v := range l.([]any) {
			n, ok := v.(int64)
			if !ok {
				return nil, c.errorf(field, "must be an array of integers, found %s", describe(v))
			}
			m = max(m, n)
		}
		return m, nil
	case Lists:
		items, err := c.arrayItems(field, raw)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(items))
		for i, it := range items {
			if len(it) > 0 && it[0] == '[' { // an array: its own Lists, to any depth (TextNet's kernel pairs per layer per stage)
				out[i], err = c.value(field, it, Lists)
			} else { // a scalar entry, read as a List's
				var one any
				if one, err = c.value(field, json.RawMessage("["+string(it)+"]"), List); err == nil {
					out[i] = one.([]any)[0]
				}
			}
			if err != nil {
				return nil, err
			}
		}
		return out, nil
	case IntOrList:
		if t = Int; len(raw) > 0 && raw[0] == '[' {
			t = List
		}
		return c.value(field, raw, t)
	case List:
		items, err := c.arrayItems(field, raw)
		if err != nil {
			return nil, err
		}
		out := make([]any, len(items))
		for i, it := range items {
			var s string
			if json.Unmarshal(it, &s) == nil {
				out[i] = s
				continue
			}
			var b bool // a list of flags (Transformer-XL's tie_projs) reads as 1 and 0
			if json.Unmarshal(it, &b) == nil {
				out[i] = b2i(b)
				continue
			}
			if obj, ok := objectEntry(it); ok { // a list of objects (UDOP's relative_bias_args): read with key()
				out[i] = obj
				continue
			}
			n, err := c.parseInt(field, it)
			if err != nil {
				return nil, err
			}
			out[i] = int64(n)
		}
		return out, nil
	}
	n, err := c.parseInt(field, raw)
	return int64(n), err
}

// lookup finds a field, "a.b" inside the object a, "a.2.b" inside
// entry 2 of the list a (Jukebox's prior_config_list), or an
// attribute_map alias of it.
func (c *Config) lookup(path string) (json.RawMessage, bool) { return c.find(path, true) }

// find is lookup, trying the aliases only where alias holds.
func (c *Config) find(path string, alias bool) (json.RawMessage, bool) {
	fields := c.fields
	for {
		i := strings.IndexByte(path, '.')
		if i < 0 {
			if v, ok := fields[path]; ok {
				return v, true
			}
			if !alias {
				return nil, false
			}
			return aliased(fields, path)
		}
		sub, ok := fields[path[:i]]
		if !ok {
			return nil, false
		}
		path = path[i+1:]
		for len(sub) > 0 && sub[0] == '[' { // a list: the next component is an index
			var items []json.RawMessage
			if json.Unmarshal(sub, &items) != nil {
				return nil, false
			}
			idx, rest, more := strings.Cut(path, ".")
			k, err := strconv.Atoi(idx)
			if err != nil || k < 0 || k >= len(items) {
				return nil, false
			}
			if !more {
				return items[k], true
			}
			sub, path = items[k], rest
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(sub, &m) != nil {
			return nil, false
		}
		fields = m
	}
}

// legend lists the dimensions: those always shown, the classification
// labels, then every other field config.json omits, with what was used.
func (pl *planner) legend(p *Plan, labels uint64, labelsWhy string) error {
	var rest []LegendRow
	for i := range pl.f.compiled.defs {
		d := &pl.f.compiled.defs[i]
		if d.Field == "" {
			continue
		}
		field := pl.field[d.Sym]
		why, defaulted := pl.defaulted[field]
		if !d.Show && !defaulted {
			continue
		}
		row := LegendRow{Sym: d.Legend, Field: field, Default: why}
		switch v := pl.env.vals[d.Sym].(type) {
		case int64:
			if d.Type == Bool {
				row.Text = fmt.Sprint(v != 0)
			} else {
				row.Value = uint64(v)
			}
		default:
			row.Text = valueText(v)
		}
		var b strings.Builder
		for _, part := range d.desc {
			if part.x == nil {
				b.WriteString(part.text)
				continue
			}
			v, err := pl.eval(part.x, d.Sym, field)
			if err != nil {
				return err
			}
			b.WriteString(valueText(v))
		}
		row.Desc = b.String()
		if d.Show {
			p.Legend = append(p.Legend, row)
		} else {
			rest = append(rest, row)
		}
	}
	if pl.head == HeadSeqCls || pl.f.task != nil && pl.f.task.Labels {
		p.Legend = append(p.Legend, LegendRow{Sym: "C", Field: "num_labels", Value: labels, Desc: "classes of the score head", Default: labelsWhy})
	}
	p.Legend = append(p.Legend, rest...)
	for i := range p.Legend {
		if l := &p.Legend[i]; l.Default != "" {
			l.Desc += "   (default) not in config: " + l.Default
		}
	}
	return nil
}

func (pl *planner) stackLayers(i int) (int64, bool) {
	v, err := pl.f.compiled.stacks[i].layers.eval(&pl.env)
	n, ok := v.(int64)
	return n, err == nil && ok
}

// count returns the expected set's size bound: every tensor of every
// layer as if each condition held.
func (pl *planner) count() (n uint64, field, what string, err error) {
	one := func(ts []cT, env *env) (uint64, error) {
		var k uint64
		for _, t := range ts {
			if t.experts == nil {
				k++
				continue
			}
			e, err := evalInt(t.experts, env)
			if err != nil {
				return 0, err
			}
			if sym, ok := t.experts.(symExpr); ok && field == "" {
				field = pl.field[sym.name]
			}
			k += uint64(max(e, 0))
			what = fmt.Sprintf("%d experts", e)
		}
		return k, nil
	}
	g, err := one(pl.f.compiled.global, &pl.env)
	if err != nil {
		return 0, "", "", err
	}
	fin, err := one(pl.f.compiled.final, &pl.env)
	if err != nil {
		return 0, "", "", err
	}
	n = g + fin
	var layers []string
	lfield := ""
	for i, s := range pl.f.compiled.stacks {
		L, err := evalInt(s.layers, &pl.env)
		if err != nil {
			return 0, "", "", err
		}
		if sym, ok := s.layers.(symExpr); ok && lfield == "" {
			lfield = pl.field[sym.name]
		}
		// Each layer counted with its l bound: a count may vary by layer
		// (a Swin stage's depth, at(depths, l)). Past MaxLayers layers
		// (a stack whose count has no Def.Max) the last layer's count
		// stands for the rest, which the bound then refuses.
		var k uint64
		for l := range min(max(L, 0), MaxLayers) {
			pl.env.layer = map[string]any{"l": l}
			k, err = one(s.tensors, &pl.env)
			pl.env.layer = nil
			if err != nil {
				return 0, "", "", err
			}
			n += k
		}
		if L > MaxLayers {
			n += uint64(min(L-MaxLayers, 1<<40)) * max(k, 1) // saturating: the bound refuses it anyway
		}
		if i == 0 {
			layers = append(layers, fmt.Sprintf("%d layers", L))
		}
	}
	if field == "" {
		field, what = lfield, strings.Join(layers, ", ")
	} else {
		what = strings.Join(layers, ", ") + " of " + what
	}
	return n, field, what, nil
}

// bound refuses an expected set too large in itself or, with held >= 0,
// too large for files holding held tensors.
func (pl *planner) bound(held int) (int, error) {
	n, field, what, err := pl.count()
	if err != nil {
		var ee *exprError
		if errors.As(err, &ee) {
			return 0, pl.c.errorf(field, "cannot be used: %s", ee.msg)
		}
		return 0, err
	}
	if n > MaxExpected {
		return 0, pl.c.errorf(field, "is too large: %s imply up to %s tensors, more than the %s fsmount accepts", what, numfmt.Commas(n), numfmt.Commas(MaxExpected))
	}
	if held >= 0 && n > expectedFactor*uint64(held)+expectedSlack {
		return 0, pl.c.errorf(field, "is too large for the files: %s imply up to %s tensors, the files hold %s (at most %d× + %d is checked)",
			what, numfmt.Commas(n), numfmt.Commas(uint64(held)), expectedFactor, expectedSlack)
	}
	return int(n), nil
}

// truth evaluates a tensor's condition x (its If or its Optional) in the
// current environment: def when it has none; an error names the tensor.
func (pl *planner) truth(x expr, def bool, name string) (bool, error) {
	if x == nil {
		return def, nil
	}
	v, err := evalInt(x, &pl.env)
	if err != nil {
		return false, pl.c.errorf("", "%s: %v", name, err)
	}
	return v != 0, nil
}

// tensors generates the expected set: globals, each stack's layers in
// order, then finals.
func (pl *planner) tensors(p *Plan) error {
	var buf []byte // an expert's name
	emit := func(ts []cT, prefix string, stack, layer int, final bool) error {
		for i := range ts {
			t := &ts[i]
			if t.PerCopy { // each copy evaluated with e bound (T.PerCopy)
				if err := pl.emitPerCopy(p, t, prefix, stack, layer, final); err != nil {
					return err
				}
				continue
			}
			present, err := pl.truth(t.cond, true, t.Name)
			if err != nil {
				return err
			}
			if !present {
				continue
			}
			shape := make([]Dim, len(t.shape))
			for j, x := range t.shape {
				v, err := evalInt(x, &pl.env)
				if err != nil {
					return pl.c.errorf("", "%s: %v", t.Name, err)
				}
				if v < 0 || v == 0 && !t.ZeroOK {
					return pl.c.errorf("", "%s: dimension %s is %d", prefix+t.Name, t.syms[j], v)
				}
				shape[j] = Dim{t.syms[j], uint64(v)}
			}
			optional, err := pl.truth(t.optional, false, t.Name)
			if err != nil {
				return err
			}
			alt, err := pl.altShape(t, prefix+t.Name)
			if err != nil {
				return err
			}
			if t.each != nil { // one copy per entry of a list, named by it (T.Each)
				v, err := t.each.eval(&pl.env)
				if err != nil {
					return pl.c.errorf("", "%s: %v", t.Name, err)
				}
				entries, ok := v.([]any)
				if !ok {
					return pl.c.errorf("", "%s: %s is not a list", t.Name, t.Each)
				}
				for _, entry := range entries {
					p.Tensors = append(p.Tensors, ExpectedTensor{Name: prefix + t.parts[0] + fmt.Sprint(entry) + t.parts[1], Shape: shape, Role: t.Role,
						Optional: optional, Layer: layer, Stack: stack, Expert: -1, Final: final, AnyDType: t.AnyDType, Alt: alt})
				}
				continue
			}
			if t.experts == nil {
				p.Tensors = append(p.Tensors, ExpectedTensor{Name: prefix + t.Name, Shape: shape, Role: t.Role, Optional: optional,
					Layer: layer, Stack: stack, Expert: -1, Final: final, AnyDType: t.AnyDType, Alt: alt})
				continue
			}
			n, err := evalInt(t.experts, &pl.env)
			if err != nil {
				return pl.c.errorf("", "%s: %v", t.Name, err)
			}
			if n > 0 && p.Experts == 0 && t.from == nil {
				p.Experts = int(n)
			}
			var from int64
			if t.from != nil {
				if from, err = evalInt(t.from, &pl.env); err != nil {
					return pl.c.errorf("", "%s: %v", t.Name, err)
				}
			}
			for e := from; e < from+n; e++ {
				// One allocation a name: an MoE has hundreds of thousands.
				buf = append(append(buf[:0], prefix...), t.parts[0]...)
				if len(t.parts) == 2 {
					buf = append(strconv.AppendInt(buf, e, 10), t.parts[1]...)
				}
				name := string(buf)
				p.Tensors = append(p.Tensors, ExpectedTensor{Name: name, Shape: shape, Role: t.Role, Optional: optional,
					Layer: layer, Stack: stack, Expert: int(e), Final: final, AnyDType: t.AnyDType, Alt: alt})
			}
		}
		return nil
	}
	if err := emit(pl.f.compiled.global, "", 0, -1, false); err != nil {
		return err
	}
	for si := range pl.f.compiled.stacks {
		s := &pl.f.compiled.stacks[si]
		L, err := evalInt(s.layers, &pl.env)
		if err != nil {
			return pl.c.errorf("", "layers of %s: %v", s.Prefix, err)
		}
		var kinds []BlockKind
		index := map[string]int{}
		for l := range L {
			pl.env.layer = map[string]any{"l": l}
			kind := ""
			for _, k := range s.kinds {
				pl.env.layer[k.name] = int64(0)
			}
			for _, k := range s.kinds {
				ok := int64(1)
				if k.cond != nil {
					if ok, err = evalInt(k.cond, &pl.env); err != nil {
						pl.env.layer = nil
						return pl.c.errorf("", "layer %d: %v", l, err)
					}
				}
				if ok != 0 {
					kind = k.name
					pl.env.layer[k.name] = int64(1)
					break
				}
			}
			prefix := strings.ReplaceAll(s.Prefix, "{l}", strconv.FormatInt(l, 10))
			i, ok := index[kind]
			if !ok {
				i = len(kinds)
				index[kind] = i
				kinds = append(kinds, BlockKind{Name: kind, Stack: s.Name, Prefix: prefix, StackIndex: si})
			}
			kinds[i].Layers = append(kinds[i].Layers, int(l))
			if err := emit(s.tensors, prefix, si, int(l), false); err != nil {
				pl.env.layer = nil
				return err
			}
		}
		pl.env.layer = nil
		if len(kinds) == 1 {
			kinds[0].Name = ""
		}
		p.Blocks = append(p.Blocks, kinds...)
	}
	return emit(pl.f.compiled.final, "", 0, -1, true)
}

// emitPerCopy emits the copies of a T.PerCopy tensor, each with e bound
// to its index in its condition, shape and optional expressions.
func (pl *planner) emitPerCopy(p *Plan, t *cT, prefix string, stack, layer int, final bool) error {
	var entries []any // with Each: the copies' names, e their index
	var n int64
	var err error
	if t.each != nil {
		v, err := t.each.eval(&pl.env)
		if err != nil {
			return pl.c.errorf("", "%s: %v", t.Name, err)
		}
		var ok bool
		if entries, ok = v.([]any); !ok {
			return pl.c.errorf("", "%s: %s is not a list", t.Name, t.Each)
		}
		n = int64(len(entries))
	} else if n, err = evalInt(t.experts, &pl.env); err != nil {
		return pl.c.errorf("", "%s: %v", t.Name, err)
	}
	var from int64
	if t.from != nil {
		if from, err = evalInt(t.from, &pl.env); err != nil {
			return pl.c.errorf("", "%s: %v", t.Name, err)
		}
	}
	saved := pl.env.layer
	defer func() { pl.env.layer = saved }()
	for e := from; e < from+n; e++ {
		bound := map[string]any{"e": e}
		for k, v := range saved {
			bound[k] = v
		}
		pl.env.layer = bound
		present, err := pl.truth(t.cond, true, t.Name)
		if err != nil {
			return err
		}
		if !present {
			continue
		}
		name := prefix + t.parts[0]
		switch {
		case entries != nil:
			name += fmt.Sprint(entries[e-from]) + t.parts[1]
		case len(t.parts) == 2:
			name += strconv.FormatInt(e, 10) + t.parts[1]
		}
		shape := make([]Dim, len(t.shape))
		for j, x := range t.shape {
			v, err := evalInt(x, &pl.env)
			if err != nil {
				return pl.c.errorf("", "%s: %v", name, err)
			}
			if v < 0 || v == 0 && !t.ZeroOK {
				return pl.c.errorf("", "%s: dimension %s is %d", name, t.syms[j], v)
			}
			shape[j] = Dim{t.syms[j], uint64(v)}
		}
		optional, err := pl.truth(t.optional, false, name)
		if err != nil {
			return err
		}
		alt, err := pl.altShape(t, name)
		if err != nil {
			return err
		}
		p.Tensors = append(p.Tensors, ExpectedTensor{Name: name, Shape: shape, Role: t.Role, Optional: optional,
			Layer: layer, Stack: stack, Expert: -1, Final: final, AnyDType: t.AnyDType, Alt: alt})
	}
	return nil
}

// altShape evaluates a tensor's Alt shape (T.Alt), nil without one.
func (pl *planner) altShape(t *cT, name string) ([]Dim, error) {
	if len(t.alt) == 0 {
		return nil, nil
	}
	alt := make([]Dim, len(t.alt))
	for j, x := range t.alt {
		v, err := evalInt(x, &pl.env)
		if err != nil {
			return nil, pl.c.errorf("", "%s: %v", name, err)
		}
		if v <= 0 {
			return nil, pl.c.errorf("", "%s: dimension %s is %d", name, t.Alt[j], v)
		}
		alt[j] = Dim{strings.ReplaceAll(t.Alt[j], "*", "·"), uint64(v)}
	}
	return alt, nil
}

// milliValue reads a Milli: round(1000·x) of a non-negative number.
func (c *Config) milliValue(field string, raw json.RawMessage) (any, error) {
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil || x < 0 || x > 1e12 {
		return nil, c.errorf(field, "must be a non-negative number, found %s", kindOf(raw))
	}
	return int64(math.Round(x * 1000)), nil
}

// countValue reads a Count: an array's length, else 1 for a number.
func (c *Config) countValue(field string, raw json.RawMessage) (any, error) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) == nil {
		if len(items) == 0 {
			return nil, c.errorf(field, "is an empty array")
		}
		return int64(len(items)), nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, c.errorf(field, "must be a number or an array, found %s", kindOf(raw))
	}
	return int64(1), nil
}

// objectEntry reads an object entry of a List field as a map of its
// integer, boolean (1 or 0) and string members; other members (nested
// objects, arrays, fractions) are left out, as no shape reads them.
func objectEntry(raw json.RawMessage) (map[string]any, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || m == nil {
		return nil, false
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		var s string
		var b bool
		var n int64
		switch {
		case json.Unmarshal(v, &s) == nil:
			out[k] = s
		case json.Unmarshal(v, &b) == nil:
			out[k] = b2i(b)
		case json.Unmarshal(v, &n) == nil:
			out[k] = n
		}
	}
	return out, true
}

// untieMismatched lifts the tie of a head whose shape is not its
// embedding's (Mllama's and Moshi's embeddings have extra rows, RemBERT's
// a width of their own): transformers 4.x drops such a head on save all
// the same (the head is Optional where tied), 5.x keeps it, untied. A
// tie cannot hold bytes of two shapes, so the head is checked as its own
// tensor.
func (p *Plan) untieMismatched() {
	if !p.Tied {
		return
	}
	var head, emb *ExpectedTensor
	for i := range p.Tensors {
		switch p.Tensors[i].Name {
		case p.HeadName:
			head = &p.Tensors[i]
		case p.Embed:
			emb = &p.Tensors[i]
		}
	}
	if head == nil || emb == nil || slices.Equal(head.ShapeValues(), emb.ShapeValues()) {
		return
	}
	p.Tied = false
	p.Notes = append(p.Notes, fmt.Sprintf("tie_word_embeddings is true but %s %v and %s %v differ in shape: transformers 4.x omits the head on save, 5.x writes it untied; either is accepted",
		p.HeadName, head.ShapeValues(), p.Embed, emb.ShapeValues()))
}

// arrayItems splits a field's JSON array into its entries, refusing
// anything else and more entries than any layer list can have.
func (c *Config) arrayItems(field string, raw json.RawMessage) ([]json.RawMessage, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, c.errorf(field, "must be an array, found %s", kindOf(raw))
	}
	if len(items) > MaxLayers*4 {
		return nil, c.errorf(field, "has %d entries, more than fsmount reads", len(items))
	}
	return items, nil
}
