package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Family is one architecture's spec, as data: the config fields it reads
// (with its config class's defaults), and the tensors they imply. A family
// is a few lines built from the shared blocks of blocks.go; ADDING.md
// says how to add one.
type Family struct {
	Name        string // the spec's name in the report: "Llama", "DeepSeek-V3"
	Class       string // the classes' prefix: Llama → LlamaForCausalLM, LlamaConfig
	ConfigClass string // the config class, named in "(default)" notes; "" is Class+"Config"
	ModelTypes  []string
	// Causal and SeqCls are the task classes covered; "" means
	// Class+"ForCausalLM" and Class+"ForSequenceClassification", "-" none.
	Causal, SeqCls string

	Defs   []Def   // config fields and derived values, in evaluation order
	Global []T     // tensors before the blocks (embeddings)
	Stacks []Stack // the repeated blocks
	Final  []T     // tensors after the blocks (final norm, heads)

	// Embed and Head name the token embedding and the LM head, for the
	// tied-head rule and the embeddings' share; "" is Llama's names.
	Embed, Head string
	// BasePrefix is the base model's prefix ("transformer."): a
	// checkpoint of the base model alone (GPT2Model, as openai-community/
	// gpt2 is) names its tensors without it and has no head.
	BasePrefix string
	// Ignore are regular expressions of names transformers ignores on
	// load (_keys_to_ignore_on_load_unexpected), reported as notes; "{L}"
	// stands for the number of layers of the first stack.
	Ignore []string
	// Variants are other layouts of the same tensors, each a list of
	// name-prefix rewrites (transformers 5.x writes a VLM's vision tower
	// without the inner "vision_model."): the check uses the layout the
	// files match best (variants.go).
	Variants [][][2]string
	// AltNote is the report's note when the files match the tensors'
	// Alt shapes (T.Alt).
	AltNote string

	// Tasks are the family's task classes beyond Causal and SeqCls (the
	// base model, masked LM, token classification, …: tasks.go); nil
	// gives a decoder's (decoderTasks).
	Tasks []Task
	// task is the task class a family derived by forTask checks.
	task *Task

	// compose, when set, builds the family a config selects: a
	// vision-language model with the language model its text_config names
	// (multimodal.go's vlm).
	compose func(c *Config) (*Family, error)

	compiled   *compiled // set on first use (ready), under compileMu
	compileErr error
}

// compileMu guards the families' compilation on first use.
var compileMu sync.Mutex

// Def is one symbol of a family's expressions: a config field read with
// its class's default, or a value derived from others.
type Def struct {
	Sym   string  // the name expressions use
	Field string  // config.json field, "text_config.hidden_size" nests; "a|b" tries a then b; "" derived
	Type  DefType // Int unless set
	// Default is the expression used when the field is absent ("" means
	// the field is required); for a derived symbol, its value.
	Default string
	// Null says what an explicit null means: "" refuses it (the class
	// would fail), "=" treats it as absent, else an expression.
	Null   string
	Legend string // the legend's letter, "" none
	Desc   string // the legend's description; "{expr}" is replaced by its value
	Show   bool   // always in the legend; otherwise only when defaulted
	Pos    bool   // must be positive
	Max    int    // upper bound, 0 none (MaxLayers, MaxExperts)
	// Divides names a symbol this value must divide (num_key_value_heads
	// divides num_attention_heads).
	Divides string
}

// DefType is the type of a Def's value.
type DefType uint8

// Def types.
const (
	Int  DefType = iota
	Bool         // true or false, 1 or 0 in expressions
	List         // an array of integers or strings
	Str          // a string

	// Count is a definition's type: the number of entries of an array, 1
	// for a single value (vision_feature_layer: one layer, or several
	// whose features are concatenated).
	Count

	// Milli is a definition's type: a number read in thousandths (0.5 is
	// 500), for the fractional fields shapes depend on (InternVL's
	// downsample_ratio).
	Milli

	// IntOrList is a definition's type: a number, or an array of them
	// (one per layer: Gemma 3n's intermediate_size); pick(x, l) reads
	// either.
	IntOrList

	// Signed is a definition's type: an integer that may be negative, a
	// sentinel such as DeBERTa's max_relative_positions -1 ("none").
	Signed

	// Chars is a definition's type: a string read as the list of its
	// characters (Nemotron-H's hybrid_override_pattern "M-M*E…", one
	// character per layer).
	Chars

	// BoolStr is a definition's type: a boolean or a string, read as
	// text ('true', 'false' or the string: Laguna's gating, true or
	// "per-head").
	BoolStr

	// Sign is a definition's type: the sign of a number (-1, 0 or 1),
	// for a fraction whose being positive adds tensors (ConvNeXt's
	// layer_scale_init_value, 1e-6).
	Sign

	// Lens is a definition's type: a list of lists read as the list of
	// their lengths (HiFi-GAN's resblock_dilation_sizes, whose entries'
	// lengths are the residual blocks' convolution counts; a number
	// entry counts 1).
	Lens

	// MilliList is a definition's type: an array of numbers, each read
	// as round(1000·x) (DPT's reassemble_factors, [4, 2, 1, 0.5]).
	MilliList

	// LayerMap is a definition's type: an object keyed by layer index
	// ("05": {"head_dim": 512}, transformers 5.x's per_layer_config),
	// read as a list of objects by layer (an empty object for a layer
	// without overrides), for key(at(x, l), 'field', default).
	LayerMap

	// Present is a definition's type: 1 when the field is present and
	// not null (a sub-config that builds a tower), whatever its value.
	Present

	// Widths is a definition's type: a list of [height, width] pairs
	// read as the list of their widths (Gemma 3n's
	// sscp_conv_kernel_size; a number entry is its own width).
	Widths

	// Heights is Widths' other half: the pairs' first entries.
	Heights

	// Lists is a definition's type: an array of arrays (to any depth),
	// each read as a List (PP-LCNet's block_configs, per stage per block
	// [kernel, in, out, stride, se]; LeViT's down_ops, ["Subsample", 16, 8, 4, 2,
	// 2] per stage; TextNet's kernel pairs per layer per stage), read
	// with at(at(x, l), i).
	Lists

	// MaxOf is a definition's type: an array of integers read as its
	// largest entry (0 when empty), for a Max bound on a per-stage count
	// a family unrolls (HGNet-v2's stage_numb_of_layers).
	MaxOf
)

// Stack is a repeated block: the layers of a decoder, of a vision tower.
type Stack struct {
	Name    string // "" for the main stack, else shown in the report: "vision"
	Prefix  string // the layer's name prefix: "model.layers.{l}."
	Layers  string // the number of layers, an expression: "L"
	Kinds   []Kind // the kinds of layers, first match wins; none: all alike
	Tensors []T
}

// Kind is a kind of layer: the layers where If holds (with l the layer
// index). In a tensor's If, the kind's name is true in its layers.
type Kind struct{ Name, If string }

// T is one tensor, or with Experts one per expert.
type T struct {
	Name  string   // full, or in a stack relative to its Prefix; "{e}" is the expert index
	Shape []string // each dimension an expression: "H", "heads*d"
	Role  Role
	If    string // the condition for the tensor to exist; "" always
	// Experts, if set, is the number of copies, {e} = 0..n-1 in Name;
	// From, if set, the first index instead of 0.
	Experts, From string
	// AnyDType: the dtype is not checked against config.json's (buffers
	// and routers some checkpoints keep in float32).
	AnyDType bool
	// Optional is a condition under which the tensor may be absent.
	Optional string
	// Each, instead of Experts, is a list expression: one copy per entry,
	// {e} the entry's text (X-MOD's adapters, one per language code).
	Each string
	// PerCopy, with Experts, binds e (the copy's index) in If, Shape and
	// Optional, evaluated for each copy (Transformer-XL's adaptive
	// embeddings: cluster e has its own rows and width).
	PerCopy bool
	// ZeroOK: a dimension may be 0 (transformers builds the module
	// zero-wide: shared experts of n_shared_experts·Im when that is 0).
	ZeroOK bool
	// Alt is the shape another writer gives the same tensor (OLMo
	// Hybrid's original checkpoints split a fused conv by its q, k, v
	// widths, transformers 5.15 in equal thirds): the check takes, for
	// every tensor with an Alt at once, the shapes the files match best
	// (Plan.PickShapes), and says so in Family.AltNote.
	Alt []string
}

// The table is built piece by piece, on first need: a unit is one
// family (or a few built together), and a lookup builds only the units
// it needs (familyOf). Building every family at start-up cost each
// command 75 ms and 19 MB before the first tensor was read; a model's
// lookup builds one to a few.
type unit struct {
	build func() []*Family
	fs    []*Family
	state uint8 // unbuilt, building, built
}

const (
	unbuilt uint8 = iota
	building
	built
)

var (
	// tableMu guards units and byType after package initialization:
	// every entry point that reads the table (lookupFamily,
	// Architectures, CompileFamilies) holds it, and the functions below
	// expect it held (or run during package initialization).
	tableMu sync.Mutex
	units   []*unit
	byType  = map[string]*Family{}
)

// register adds families to the table, each built when first needed;
// it is called from the package variables of the model-group files
// (decoders.go, moe.go, …) with the functions that build them.
func register(builds ...func() *Family) bool {
	for _, b := range builds {
		units = append(units, &unit{build: func() []*Family { return []*Family{b()} }})
	}
	return true
}

// results2 and results3 make a unit of the families one function
// builds together (an audio model and its encoder).
func results2(f func() (*Family, *Family)) func() []*Family {
	return func() []*Family { a, b := f(); return []*Family{a, b} }
}

func results3(f func() (*Family, *Family, *Family)) func() []*Family {
	return func() []*Family { a, b, c := f(); return []*Family{a, b, c} }
}

// registerGroup adds families built together, when first needed. A
// unit's model types are found without building it through familyIndex
// (family_index.go, generated by TestFamilyIndex: a stale index costs
// speed, never a wrong answer).
func registerGroup(build func() []*Family) bool {
	units = append(units, &unit{build: build})
	return true
}

// buildUnit builds u (tableMu held). Two families claiming one
// model_type panic (a programming error every test run catches:
// TestFamilyIndex builds them all), as does a unit whose build needs
// itself.
func buildUnit(u *unit) {
	switch u.state {
	case built:
		return
	case building:
		panic("spec: a family's build needs itself")
	}
	u.state = building
	fs := u.build()
	for _, f := range fs {
		f.defaultNames()
		for _, mt := range f.ModelTypes {
			if other, dup := byType[mt]; dup && other != f {
				panic(fmt.Sprintf("spec: model_type %q in both %s and %s", mt, other.Name, f.Name))
			}
			byType[mt] = f
		}
	}
	u.fs, u.state = fs, built
}

// familyOf is the family registered for model_type mt, or nil (tableMu
// held). It builds the unit the index names; only a type the index does
// not know (or names wrongly) builds the whole table.
func familyOf(mt string) *Family {
	if f := byType[mt]; f != nil {
		return f
	}
	if i, ok := familyIndex[mt]; ok && int(i) < len(units) {
		buildUnit(units[i])
		if f := byType[mt]; f != nil {
			return f
		}
	}
	buildAll()
	return byType[mt]
}

// buildAll builds every unit not being built (tableMu held).
func buildAll() {
	for _, u := range units {
		if u.state == unbuilt {
			buildUnit(u)
		}
	}
}

// allFamilies is every family in registration order (tableMu held).
func allFamilies() []*Family {
	buildAll()
	var out []*Family
	for _, u := range units {
		out = append(out, u.fs...)
	}
	return out
}

// unitTypes is each unit's model types, in registration order (tableMu
// held): what family_index.go records.
func unitTypes() [][]string {
	buildAll()
	out := make([][]string, len(units))
	for i, u := range units {
		for _, f := range u.fs {
			out[i] = append(out[i], f.ModelTypes...)
		}
	}
	return out
}

// Architecture is one row of [Architectures].
type Architecture struct {
	ModelType string
	Class     string // the task class: LlamaForCausalLM
	Family    string // the spec's name
}

// Architectures lists what is fully checked: each model_type with its
// task classes, sorted by model_type.
func Architectures() []Architecture {
	tableMu.Lock()
	fs := allFamilies()
	tableMu.Unlock()
	var out []Architecture
	for _, f := range fs {
		for _, mt := range f.ModelTypes {
			for _, c := range f.classes() {
				out = append(out, Architecture{mt, c, f.Name})
			}
			for _, t := range f.tasks() {
				if c := f.taskClass(&t); listedTask(c) {
					out = append(out, Architecture{mt, c, f.Name})
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Architecture) int {
		if c := strings.Compare(a.ModelType, b.ModelType); c != 0 {
			return c
		}
		return strings.Compare(a.Class, b.Class)
	})
	return out
}

func (f *Family) configClass() string {
	if f.ConfigClass != "" {
		return f.ConfigClass
	}
	return f.Class + "Config"
}

func (f *Family) causal() string { return f.headClass(f.Causal, HeadCausalLM) }

func (f *Family) seqCls() string { return f.headClass(f.SeqCls, HeadSeqCls) }

// headClass is the class of a head the family sets as set: by default
// (set "") the family's class with suffix, none for "-", else set.
func (f *Family) headClass(set, suffix string) string {
	switch set {
	case "":
		return f.Class + suffix
	case "-":
		return ""
	}
	return set
}

func (f *Family) classes() []string {
	var out []string
	for _, c := range []string{f.causal(), f.seqCls()} {
		if c != "" {
			out = append(out, c)
		}
	}
	return out
}

// compiled is a family with its expressions parsed.
type compiled struct {
	defs   []cDef
	global []cT
	stacks []cStack
	final  []cT
	ignore []string
}

type cDef struct {
	Def
	def, null expr
	desc      []descPart
}

type descPart struct {
	text string
	x    expr // nil for text
}

type cStack struct {
	Stack
	layers  expr
	kinds   []cKind
	tensors []cT
}

type cKind struct {
	name string
	cond expr // nil: always
}

type cT struct {
	T
	parts    []string // Name split at {e}
	shape    []expr
	syms     []string // each dimension's legend symbol
	cond     expr     // nil: always
	experts  expr     // nil: one
	from     expr     // nil: 0
	optional expr     // nil: never
	each     expr     // nil: not named by a list's entries
	alt      []expr   // T.Alt
}

func compileExpr(s string) (x expr, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return parseExpr(s), nil
}

// ready compiles f, once; a malformed family (TestFamiliesCompile
// compiles every one) is an error of the check, not a panic.
func (f *Family) ready() error {
	compileMu.Lock()
	defer compileMu.Unlock()
	if f.compiled == nil && f.compileErr == nil {
		if err := f.compile(); err != nil {
			f.compileErr = fmt.Errorf("spec: family %s: %w", f.Name, err)
		}
	}
	return f.compileErr
}

// defaultNames sets the embedding's and the head's usual names where
// the family gives none.
func (f *Family) defaultNames() {
	if f.Embed == "" {
		f.Embed = "model.embed_tokens.weight"
	}
	if f.Head == "" {
		f.Head = "lm_head.weight"
	}
}

func (f *Family) compile() error {
	c := &compiled{ignore: f.Ignore}
	known := map[string]bool{"l": true, "causal": true, "seqcls": true, "C": true, "true": true, "false": true, "empty": true, "tf5": true}
	var err error
	check := func(x expr, where string) {
		if x == nil || err != nil {
			return
		}
		s := map[string]bool{}
		syms(x, s)
		for name := range s {
			if !known[name] {
				err = fmt.Errorf("%s: unknown symbol %s", where, name)
			}
		}
	}
	parse := func(s, where string) expr {
		if s == "" || err != nil {
			return nil
		}
		x, perr := compileExpr(s)
		if perr != nil {
			err = perr
			return nil
		}
		check(x, where)
		return x
	}
	for _, d := range f.Defs {
		if known[d.Sym] {
			return fmt.Errorf("symbol %s defined twice", d.Sym)
		}
		known[d.Sym] = true
	}
	for _, d := range f.Defs {
		cd := cDef{Def: d}
		if d.Default != "" {
			cd.def = parse(d.Default, d.Sym)
		}
		if d.Null != "" && d.Null != "=" {
			cd.null = parse(d.Null, d.Sym)
		}
		if d.Field == "" && d.Default == "" {
			return fmt.Errorf("derived symbol %s has no value", d.Sym)
		}
		for rest := d.Desc; rest != ""; {
			i := strings.IndexByte(rest, '{')
			if i < 0 {
				cd.desc = append(cd.desc, descPart{text: rest})
				break
			}
			j := strings.IndexByte(rest[i:], '}')
			if j < 0 {
				return fmt.Errorf("%s: unclosed { in description", d.Sym)
			}
			cd.desc = append(cd.desc, descPart{text: rest[:i]}, descPart{x: parse(rest[i+1:i+j], d.Sym+" description")})
			rest = rest[i+j+1:]
		}
		c.defs = append(c.defs, cd)
	}
	f.defaultNames()
	tensors := func(ts []T, where string, extra map[string]bool) []cT {
		var out []cT
		for _, t := range ts {
			for k := range extra {
				known[k] = true
			}
			if t.PerCopy {
				if t.Experts == "" || known["e"] {
					err = fmt.Errorf("%s: PerCopy needs Experts and a free symbol e", t.Name)
				}
				known["e"] = true
			}
			ct := cT{T: t, parts: strings.Split(t.Name, "{e}"), cond: parse(t.If, t.Name), experts: parse(t.Experts, t.Name), from: parse(t.From, t.Name), optional: parse(t.Optional, t.Name), each: parse(t.Each, t.Name)}
			if len(ct.parts) > 2 || len(ct.parts) == 2 && (t.Experts == "") == (t.Each == "") {
				err = fmt.Errorf("%s: {e} needs Experts or Each, once", t.Name)
			}
			for _, s := range t.Shape {
				ct.shape = append(ct.shape, parse(s, t.Name))
				ct.syms = append(ct.syms, strings.ReplaceAll(s, "*", "·"))
			}
			if len(t.Alt) > 0 && len(t.Alt) != len(t.Shape) {
				err = fmt.Errorf("%s: Alt shape of another rank", t.Name)
			}
			for _, s := range t.Alt {
				ct.alt = append(ct.alt, parse(s, t.Name))
			}
			for k := range extra {
				delete(known, k)
			}
			if t.PerCopy {
				delete(known, "e")
			}
			out = append(out, ct)
		}
		return out
	}
	c.global = tensors(f.Global, "global", nil)
	for _, s := range f.Stacks {
		cs := cStack{Stack: s, layers: parse(s.Layers, s.Prefix)}
		kinds := map[string]bool{}
		for _, k := range s.Kinds {
			if known[k.Name] {
				return fmt.Errorf("layer kind %s shadows a symbol", k.Name)
			}
			cs.kinds = append(cs.kinds, cKind{k.Name, parse(k.If, k.Name)})
			kinds[k.Name] = true
		}
		if !strings.Contains(s.Prefix, "{l}") {
			return fmt.Errorf("stack prefix %q has no {l}", s.Prefix)
		}
		cs.tensors = tensors(s.Tensors, s.Prefix, kinds)
		c.stacks = append(c.stacks, cs)
	}
	c.final = tensors(f.Final, "final", nil)
	if err != nil {
		return err
	}
	f.compiled = c
	return nil
}

// lookupFamily finds the spec for a config as transformers finds its
// classes: by "model_type" (AutoConfig's CONFIG_MAPPING), and only when
// that is absent or unknown to us by "architectures". The head is the
// task class architectures[0] names (the causal LM when there is none).
// A note says when architectures names another family than model_type.
func lookupFamily(c *Config) (f *Family, head, note string, err error) {
	tableMu.Lock()
	defer tableMu.Unlock()
	arch, mt := c.Architecture(), c.ModelType()
	f = familyOf(mt)
	if f == nil {
		for _, x := range allFamilies() {
			if arch != "" && (slices.Contains(x.classes(), arch) || x.findTask(arch) != nil) {
				f = x
			}
		}
	}
	if f == nil {
		return nil, "", "", &NoSpecError{Arch: arch, ModelType: mt}
	}
	if f.compose != nil {
		if f, err = f.compose(c); err != nil {
			return nil, "", "", err
		}
	}
	if arch == "" {
		// transformers 4.x writes a VLM's base model (Qwen2VLModel) with
		// its class in text_config.architectures only.
		if a := c.subArchitecture("text_config"); a != "" && f.findTask(a) != nil {
			arch = a
		}
	}
	if t := f.findTask(arch); t != nil && arch != f.causal() && arch != f.seqCls() || arch == "" && f.causal() == "" && f.findTask(f.Class+TaskBase) != nil {
		if t == nil {
			t = f.findTask(f.Class + TaskBase)
		}
		g := f.forTask(t)
		if err := g.ready(); err != nil {
			return nil, "", "", err
		}
		return g, t.Suffix, "", nil
	}
	if err := f.ready(); err != nil {
		return nil, "", "", err
	}
	switch {
	case arch == "" || arch == f.causal():
		if f.causal() == "" {
			return nil, "", "", &NoSpecError{Arch: arch, ModelType: mt, Reason: fmt.Sprintf("the %s spec covers %s only", f.Name, strings.Join(f.classes(), " and "))}
		}
		return f, HeadCausalLM, "", nil
	case arch == f.seqCls():
		return f, HeadSeqCls, "", nil
	}
	// architectures names another family's class: the head it names
	// applies to model_type's family, as AutoModelFor* would.
	for _, h := range []string{HeadCausalLM, HeadSeqCls} {
		var own string
		if h == HeadCausalLM {
			own = f.causal()
		} else {
			own = f.seqCls()
		}
		if strings.HasSuffix(arch, h) && own != "" || h == HeadCausalLM && strings.HasSuffix(arch, "LMHeadModel") && own != "" {
			return f, h, fmt.Sprintf("architectures names %s, but model_type %q selects the %s classes, as transformers' AutoConfig does: checked as %s",
				arch, mt, f.Class, own), nil
		}
	}
	return nil, "", "", &NoSpecError{Arch: arch, ModelType: mt,
		Reason: f.coversOnly()}
}

// ignoreRegexps compiles a family's ignore patterns for a model of L
// layers.
func (f *Family) ignoreRegexps(L int64) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, s := range f.compiled.ignore {
		out = append(out, regexp.MustCompile(strings.ReplaceAll(s, "{L}", fmt.Sprint(L))))
	}
	return out
}
