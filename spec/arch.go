package spec

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/internal/quantconfig"
)

// Dim is one dimension of an expected shape: its value and the legend
// symbol it comes from ("H", "V", "heads·d", …), so that a mismatch can
// name the offending dimension.
type Dim struct {
	Sym string
	Val uint64
}

// Role says what a tensor does, for the report's "in ──▶ out" column.
type Role uint8

// Tensor roles.
const (
	RoleLinear    Role = iota // a weight [out, in]
	RoleBias                  // a bias [out]
	RoleNorm                  // a norm scale [n]
	RoleEmbedding             // the token embedding [V, H]
	RoleHead                  // the output head [V, H]
	RoleRouter                // an MoE router [E, H]
	RoleScore                 // a classification head [labels, H]
)

// ExpectedTensor is one tensor the architecture implies.
type ExpectedTensor struct {
	Name     string
	Shape    []Dim
	Role     Role
	Optional bool // may be absent: a tied lm_head
	Layer    int  // block index, or -1 for global and final tensors
	Expert   int  // expert index in an MoE block, or -1
	Final    bool // after the blocks (final norm, head)
}

// ShapeValues returns the numeric shape.
func (e ExpectedTensor) ShapeValues() []uint64 {
	out := make([]uint64, len(e.Shape))
	for i, d := range e.Shape {
		out[i] = d.Val
	}
	return out
}

// LegendRow is one line of the report's dimension legend.
type LegendRow struct {
	Sym   string // "V", "H", … or "" for a row without a letter
	Field string // the config.json field
	Value uint64
	Text  string // shown instead of Value when set: "false", "[]"
	Desc  string
	// Default, when set, says that config.json does not give the field
	// and what was used instead: "Qwen3Config's 128", "H/heads = 64/8";
	// Desc then ends in "(default) not in config: " and the same.
	Default string
}

// BlockKind is a distinct kind of transformer block and the layers that
// have it (all layers, or the dense and the sparse layers of an MoE).
type BlockKind struct {
	Name   string // "" when every block is alike, else "dense" or "sparse"
	Layers []int
}

// Plan is what config.json implies: the legend and the expected tensors.
type Plan struct {
	Arch        string   // the spec used, e.g. "Qwen3", "Qwen3ForSequenceClassification"
	Head        string   // HeadCausalLM or HeadSeqCls
	Notes       []string // how the spec was chosen, where that is not plain
	Legend      []LegendRow
	Tensors     []ExpectedTensor // globals, then blocks in layer order, then finals
	Blocks      []BlockKind
	Tied        bool
	DType       string // config's torch_dtype / dtype, "" if unset
	QuantMethod string // the quantization section's quant_method, "" if not quantized
	Quant       Quant  // the quantization section's packing
	Experts     int    // experts per sparse block, 0 for dense models
}

// decoder describes one family of decoder-only transformers; the
// architectures differ only in these switches (see the decoders table).
// The defaults are the config classes' own (transformers'
// configuration_*.py), which apply when config.json omits the key.
type decoder struct {
	name       string   // the spec's name, e.g. "Qwen3-MoE"
	prefix     string   // the classes' prefix: Qwen3Moe → Qwen3MoeForCausalLM, Qwen3MoeConfig
	modelTypes []string // "model_type" values
	qkNorm     bool     // q_norm / k_norm [d] (Qwen3)
	qkvBias    bool     // q/k/v biases always (Qwen2)
	attnBias   bool     // attention_bias is a field of the class (default false)
	mlpBias    bool     // mlp_bias is a field of the class (default false; Llama)
	ffnNorms   bool     // pre/post feedforward norms (Gemma2)
	moe        bool     // sparse MoE blocks (Qwen3-MoE)
	tiedByDef  bool     // the config class's tie_word_embeddings default
	// headDim is the class's head_dim default, or 0 when an absent
	// head_dim means hidden_size / num_attention_heads; headDimNull says
	// that an explicit null means that too (else null is refused).
	headDim     uint64
	headDimNull bool
	// kvHeads is the class's num_key_value_heads default, or 0 for
	// num_attention_heads; kvNull says that null means num_attention_heads.
	kvHeads uint64
	kvNull  bool
}

func (d *decoder) class() string { return d.prefix + "Config" }

var decoders = []*decoder{
	{name: "Qwen3", prefix: "Qwen3", modelTypes: []string{"qwen3"}, qkNorm: true, attnBias: true, headDim: 128, kvHeads: 32, kvNull: true},
	{name: "Qwen3-MoE", prefix: "Qwen3Moe", modelTypes: []string{"qwen3_moe"}, qkNorm: true, attnBias: true, moe: true, kvHeads: 4},
	{name: "Qwen2", prefix: "Qwen2", modelTypes: []string{"qwen2"}, qkvBias: true, kvHeads: 32, kvNull: true},
	{name: "Llama", prefix: "Llama", modelTypes: []string{"llama"}, attnBias: true, mlpBias: true, headDimNull: true, kvNull: true},
	{name: "Mistral", prefix: "Mistral", modelTypes: []string{"mistral"}, headDimNull: true, kvHeads: 8, kvNull: true},
	{name: "Gemma", prefix: "Gemma", modelTypes: []string{"gemma"}, attnBias: true, tiedByDef: true, headDim: 256, kvHeads: 16},
	{name: "Gemma2", prefix: "Gemma2", modelTypes: []string{"gemma2"}, attnBias: true, ffnNorms: true, tiedByDef: true, headDim: 256, kvHeads: 4},
}

// Heads: the task classes a spec covers, by the suffix of their name.
const (
	HeadCausalLM = "ForCausalLM"
	HeadSeqCls   = "ForSequenceClassification"
)

var heads = []string{HeadCausalLM, HeadSeqCls}

// lookupDecoder finds the spec for a config as transformers finds its
// classes: by "model_type" (AutoConfig's CONFIG_MAPPING), and only when
// that is absent or unknown to us by "architectures". The head is the
// task class architectures[0] names (ForCausalLM when there is none). A
// note says when architectures names another family than model_type.
func lookupDecoder(c *Config) (d *decoder, head, note string, err error) {
	arch, mt := c.Architecture(), c.ModelType()
	archFamily, archHead := arch, ""
	for _, h := range heads {
		if strings.HasSuffix(arch, h) {
			archFamily, archHead = strings.TrimSuffix(arch, h), h
		}
	}
	for _, x := range decoders {
		if slices.Contains(x.modelTypes, mt) {
			d = x
		}
	}
	if d == nil {
		for _, x := range decoders {
			if archHead != "" && x.prefix == archFamily {
				d = x
			}
		}
	}
	switch {
	case d == nil:
		return nil, "", "", &NoSpecError{Arch: arch, ModelType: mt}
	case arch == "":
		return d, HeadCausalLM, "", nil
	case archHead == "":
		return nil, "", "", &NoSpecError{Arch: arch, ModelType: mt,
			Reason: fmt.Sprintf("the %s spec covers the %s%s and %s%s heads only", d.name, d.prefix, HeadCausalLM, d.prefix, HeadSeqCls)}
	case archFamily != d.prefix:
		note = fmt.Sprintf("architectures names %s, but model_type %q selects the %s classes, as transformers' AutoConfig does: checked as %s%s",
			arch, mt, d.prefix, d.prefix, archHead)
	}
	return d, archHead, note, nil
}

// NoSpecError is returned by Expect for an architecture without a spec.
type NoSpecError struct {
	Arch, ModelType string
	// Reason, if set, says why the family's spec does not apply.
	Reason string
}

func (e *NoSpecError) Error() string {
	name := e.Arch
	if name == "" {
		name = e.ModelType
	}
	if name == "" {
		name = "(config.json names no architecture)"
	}
	if e.Reason != "" {
		return "no spec for architecture " + name + " (" + e.Reason + ")"
	}
	return "no spec for architecture " + name
}

// Bounds on what a config may ask for, so that a 600-byte config cannot
// make the check allocate gigabytes. The largest real models are far
// below: 126 layers (Llama-3.1-405B), 512 experts (Qwen3-Next), an
// expected set of 70,000 tensors (Kimi-K2: 61 layers of 384 experts).
const (
	// MaxLayers bounds num_hidden_layers.
	MaxLayers = 1024
	// MaxExperts bounds num_experts.
	MaxExperts = 4096
	// MaxExpected bounds the expected set, whatever the files hold.
	MaxExpected = 1 << 20
	// The expected set may exceed the tensors the files hold by at most
	// expectedSlack plus expectedFactor times their number: beyond that
	// the files cannot be the model the config describes, and listing
	// every tensor missing would only cost time and memory.
	expectedFactor = 4
	expectedSlack  = 4096
)

// Expect derives the tensor set config.json implies.
func Expect(c *Config) (*Plan, error) { return expect(c, -1) }

// expect derives the plan; held >= 0 is the number of tensors the files
// hold, which bounds the expected set (expectedFactor, expectedSlack).
func expect(c *Config, held int) (*Plan, error) {
	d, head, note, err := lookupDecoder(c)
	if err != nil {
		return nil, err
	}
	p, err := d.plan(c, head, held)
	if err == nil && note != "" {
		p.Notes = append(p.Notes, note)
	}
	return p, err
}

type dims struct {
	V, H, L, NH, NKV, HD, I uint64
	E, Im, topK, step       uint64
	mlpOnly                 map[uint64]bool
	// defaulted maps each field config.json omits (or sets to null) to
	// what was used instead, for the legend: "H/heads = 64/8",
	// "Qwen3Config's 128".
	defaulted map[string]string
}

// intDefault reads an optional positive integer field; absent, def
// applies and the field is recorded as defaulted.
func (x *dims) intDefault(c *Config, d *decoder, dst *uint64, field string, def uint64) error {
	if !c.Has(field) {
		*dst = def
		x.defaulted[field] = fmt.Sprintf("%s's %d", d.class(), def)
		return nil
	}
	v, err := c.Int(field)
	if err == nil && v == 0 {
		err = c.errorf(field, "must be positive")
	}
	*dst = v
	return err
}

// isNull reports whether the field is present and null.
func (c *Config) isNull(field string) bool {
	v, ok := c.fields[field]
	return ok && string(v) == "null"
}

func (d *decoder) readDims(c *Config) (*dims, error) {
	x := dims{defaulted: map[string]string{}}
	var err error
	get := func(dst *uint64, field string) {
		if err == nil {
			*dst, err = c.Int(field)
			if err == nil && *dst == 0 {
				err = c.errorf(field, "must be positive")
			}
		}
	}
	// The core dimensions have class defaults too (a 7B-sized model's),
	// but a config without them describes no model: they are required.
	get(&x.V, "vocab_size")
	get(&x.H, "hidden_size")
	get(&x.L, "num_hidden_layers")
	if err == nil && x.L > MaxLayers {
		return nil, c.errorf("num_hidden_layers", "is %d, more than the %d layers fsmount accepts (the largest real models have 126)", x.L, MaxLayers)
	}
	get(&x.NH, "num_attention_heads")
	get(&x.I, "intermediate_size")
	if err != nil {
		return nil, err
	}
	// num_key_value_heads: the class default when absent; null means
	// num_attention_heads where the class says so, else is refused.
	switch {
	case c.isNull("num_key_value_heads") && !d.kvNull:
		return nil, c.errorf("num_key_value_heads", "is null, which %s does not replace (transformers would fail)", d.class())
	case c.isNull("num_key_value_heads"), !c.Has("num_key_value_heads") && d.kvHeads == 0:
		x.NKV = x.NH
		x.defaulted["num_key_value_heads"] = "= num_attention_heads"
	case !c.Has("num_key_value_heads"):
		x.NKV = d.kvHeads
		x.defaulted["num_key_value_heads"] = fmt.Sprintf("%s's %d", d.class(), d.kvHeads)
	default:
		if x.NKV, err = c.Int("num_key_value_heads"); err != nil {
			return nil, err
		}
	}
	if x.NKV == 0 || x.NH%x.NKV != 0 {
		what := ""
		if why, ok := x.defaulted["num_key_value_heads"]; ok {
			what = " (not in config: " + why + ")"
		}
		return nil, c.errorf("num_key_value_heads", "is %d%s, which does not divide num_attention_heads %d", x.NKV, what, x.NH)
	}
	// head_dim: the class default (Qwen3 128, Gemma 256) when absent,
	// else hidden_size / num_attention_heads.
	switch {
	case c.isNull("head_dim") && !d.headDimNull:
		return nil, c.errorf("head_dim", "is null, which %s does not replace (transformers would fail)", d.class())
	case !c.Has("head_dim") && d.headDim != 0 && !c.isNull("head_dim"):
		x.HD = d.headDim
		x.defaulted["head_dim"] = fmt.Sprintf("%s's %d", d.class(), d.headDim)
	case !c.Has("head_dim"):
		if x.H%x.NH != 0 {
			return nil, c.errorf("head_dim", "is absent and hidden_size %d is not a multiple of num_attention_heads %d", x.H, x.NH)
		}
		x.HD = x.H / x.NH
		x.defaulted["head_dim"] = fmt.Sprintf("H/heads = %d/%d", x.H, x.NH)
	default:
		if x.HD, err = c.Int("head_dim"); err != nil {
			return nil, err
		}
		if x.HD == 0 {
			return nil, c.errorf("head_dim", "must be positive")
		}
	}
	if d.moe {
		// Qwen3MoeConfig's defaults.
		for _, f := range []struct {
			dst   *uint64
			field string
			def   uint64
		}{{&x.E, "num_experts", 128}, {&x.Im, "moe_intermediate_size", 768}, {&x.topK, "num_experts_per_tok", 8}, {&x.step, "decoder_sparse_step", 1}} {
			if err := x.intDefault(c, d, f.dst, f.field, f.def); err != nil {
				return nil, err
			}
		}
		if x.E > MaxExperts {
			return nil, c.errorf("num_experts", "is %d, more than the %d experts fsmount accepts (the largest real models have 512)", x.E, MaxExperts)
		}
		if !c.Has("mlp_only_layers") {
			x.defaulted["mlp_only_layers"] = fmt.Sprintf("%s's []", d.class())
		}
		only, err := c.IntsOr("mlp_only_layers")
		if err != nil {
			return nil, err
		}
		x.mlpOnly = make(map[uint64]bool, len(only))
		for _, l := range only {
			x.mlpOnly[l] = true
		}
	}
	return &x, nil
}

// count returns an upper bound of the expected set's size, computed
// before generating it: 3 global and final tensors, and per block at most
// 16 of attention, norms and a dense MLP, or a router and 3 per expert.
func (d *decoder) count(x *dims) uint64 {
	perLayer := uint64(16)
	if d.moe {
		perLayer += 1 + 3*x.E
	}
	return 3 + x.L*perLayer
}

// bound refuses an expected set too large in itself or, with held >= 0,
// too large for files holding held tensors.
func (d *decoder) bound(c *Config, x *dims, held int) error {
	n := d.count(x)
	field, what := "num_hidden_layers", fmt.Sprintf("%d layers", x.L)
	if d.moe {
		field, what = "num_experts", fmt.Sprintf("%d layers of %d experts", x.L, x.E)
	}
	if n > MaxExpected {
		return c.errorf(field, "is too large: %s imply up to %s tensors, more than the %s fsmount accepts", what, commas(n), commas(MaxExpected))
	}
	if held >= 0 && n > expectedFactor*uint64(held)+expectedSlack {
		return c.errorf(field, "is too large for the files: %s imply up to %s tensors, the files hold %s (at most %d× + %d is checked)",
			what, commas(n), commas(uint64(held)), expectedFactor, expectedSlack)
	}
	return nil
}

func (x *dims) sparse(l uint64) bool {
	return x.E > 0 && !x.mlpOnly[l] && (l+1)%x.step == 0
}

func (d *decoder) plan(c *Config, head string, held int) (*Plan, error) {
	x, err := d.readDims(c)
	if err != nil {
		return nil, err
	}
	if err := d.bound(c, x, held); err != nil {
		return nil, err
	}
	// Absent, the config class's own default applies, as in transformers,
	// and the legend says so.
	var flags []LegendRow
	flag := func(field string, def bool, desc string) (bool, error) {
		if !c.Has(field) {
			flags = append(flags, LegendRow{Field: field, Text: fmt.Sprint(def), Desc: desc,
				Default: fmt.Sprintf("%s's %v", d.class(), def)})
		}
		return c.BoolOr(field, def)
	}
	tied, err := flag("tie_word_embeddings", d.tiedByDef, "lm_head shares embed_tokens' weights")
	if err != nil {
		return nil, err
	}
	var attnBias, mlpBias bool
	if d.attnBias {
		if attnBias, err = flag("attention_bias", false, "q, k, v and o projections have biases"); err != nil {
			return nil, err
		}
	}
	if d.mlpBias {
		if mlpBias, err = flag("mlp_bias", false, "gate, up and down projections have biases"); err != nil {
			return nil, err
		}
	}
	dtype, err := c.DType()
	if err != nil {
		return nil, err
	}
	name := d.name
	if head != HeadCausalLM {
		name = d.prefix + head
		tied = false // the score head has no tie to the embedding
	}
	quant, err := quantConfig(c)
	if err != nil {
		return nil, err
	}
	p := &Plan{Arch: name, Head: head, Tied: tied, DType: dtype, QuantMethod: quant.Method, Quant: quant, Experts: int(x.E)}

	V, H, I := Dim{"V", x.V}, Dim{"H", x.H}, Dim{"I", x.I}
	q, kv, hd := Dim{"heads·d", x.NH * x.HD}, Dim{"kv·d", x.NKV * x.HD}, Dim{"d", x.HD}

	p.Legend = []LegendRow{
		{Sym: "V", Field: "vocab_size", Value: x.V, Desc: "distinct tokens"},
		{Sym: "H", Field: "hidden_size", Value: x.H, Desc: "residual-stream width (the bus)"},
		{Sym: "L", Field: "num_hidden_layers", Value: x.L, Desc: "transformer blocks"},
		{Sym: "d", Field: "head_dim", Value: x.HD, Desc: "width of one attention head"},
		{Field: "num_attention_heads", Value: x.NH, Desc: fmt.Sprintf("query heads → q width = %d·%d = %d", x.NH, x.HD, q.Val)},
		{Field: "num_key_value_heads", Value: x.NKV, Desc: fmt.Sprintf("kv heads → kv width = %d·%d = %d   (%s)", x.NKV, x.HD, kv.Val, groupLabel(x.NH, x.NKV))},
		{Sym: "I", Field: "intermediate_size", Value: x.I, Desc: "FFN inner width"},
	}
	if d.moe {
		p.Legend = append(p.Legend,
			LegendRow{Sym: "E", Field: "num_experts", Value: x.E, Desc: fmt.Sprintf("experts per sparse block, %d active per token", x.topK)},
			LegendRow{Sym: "Im", Field: "moe_intermediate_size", Value: x.Im, Desc: "expert FFN inner width"},
		)
		if why, ok := x.defaulted["num_experts_per_tok"]; ok {
			flags = append(flags, LegendRow{Field: "num_experts_per_tok", Value: x.topK, Desc: "experts active per token", Default: why})
		}
		if why, ok := x.defaulted["decoder_sparse_step"]; ok {
			flags = append(flags, LegendRow{Field: "decoder_sparse_step", Value: x.step, Desc: "every step-th block is sparse", Default: why})
		}
		if why, ok := x.defaulted["mlp_only_layers"]; ok {
			flags = append(flags, LegendRow{Field: "mlp_only_layers", Text: "[]", Desc: "no block is forced dense", Default: why})
		}
	}
	for i := range p.Legend {
		p.Legend[i].Default = x.defaulted[p.Legend[i].Field]
	}
	var labels Dim
	if head == HeadSeqCls {
		n, why, err := numLabels(c)
		if err != nil {
			return nil, err
		}
		labels = Dim{"C", n}
		p.Legend = append(p.Legend, LegendRow{Sym: "C", Field: "num_labels", Value: n, Desc: "classes of the score head", Default: why})
	}
	p.Legend = append(p.Legend, flags...)
	for i := range p.Legend {
		if l := &p.Legend[i]; l.Default != "" {
			l.Desc += "   (default) not in config: " + l.Default
		}
	}

	add := func(name string, role Role, layer, expert int, shape ...Dim) {
		p.Tensors = append(p.Tensors, ExpectedTensor{Name: name, Shape: shape, Role: role, Layer: layer, Expert: expert})
	}
	add("model.embed_tokens.weight", RoleEmbedding, -1, -1, V, H)

	var dense, sparse []int
	for l := uint64(0); l < x.L; l++ {
		li := int(l)
		pre := fmt.Sprintf("model.layers.%d.", l)
		lin := func(name string, out, in Dim, bias bool) {
			add(pre+name+".weight", RoleLinear, li, -1, out, in)
			if bias {
				add(pre+name+".bias", RoleBias, li, -1, out)
			}
		}
		add(pre+"input_layernorm.weight", RoleNorm, li, -1, H)
		lin("self_attn.q_proj", q, H, attnBias || d.qkvBias)
		lin("self_attn.k_proj", kv, H, attnBias || d.qkvBias)
		lin("self_attn.v_proj", kv, H, attnBias || d.qkvBias)
		if d.qkNorm {
			add(pre+"self_attn.q_norm.weight", RoleNorm, li, -1, hd)
			add(pre+"self_attn.k_norm.weight", RoleNorm, li, -1, hd)
		}
		lin("self_attn.o_proj", H, q, attnBias)
		add(pre+"post_attention_layernorm.weight", RoleNorm, li, -1, H)
		if d.ffnNorms {
			add(pre+"pre_feedforward_layernorm.weight", RoleNorm, li, -1, H)
		}
		if d.moe && x.sparse(l) {
			sparse = append(sparse, li)
			Im, E := Dim{"Im", x.Im}, Dim{"E", x.E}
			add(pre+"mlp.gate.weight", RoleRouter, li, -1, E, H)
			for e := 0; e < int(x.E); e++ {
				ep := fmt.Sprintf("%smlp.experts.%d.", pre, e)
				add(ep+"gate_proj.weight", RoleLinear, li, e, Im, H)
				add(ep+"up_proj.weight", RoleLinear, li, e, Im, H)
				add(ep+"down_proj.weight", RoleLinear, li, e, H, Im)
			}
		} else {
			dense = append(dense, li)
			lin("mlp.gate_proj", I, H, mlpBias)
			lin("mlp.up_proj", I, H, mlpBias)
			lin("mlp.down_proj", H, I, mlpBias)
		}
		if d.ffnNorms {
			add(pre+"post_feedforward_layernorm.weight", RoleNorm, li, -1, H)
		}
	}
	switch {
	case len(sparse) == 0:
		p.Blocks = []BlockKind{{Layers: dense}}
	case len(dense) == 0:
		p.Blocks = []BlockKind{{Layers: sparse}}
	default:
		p.Blocks = []BlockKind{{Name: "dense", Layers: dense}, {Name: "sparse", Layers: sparse}}
		if dense[0] > sparse[0] {
			p.Blocks[0], p.Blocks[1] = p.Blocks[1], p.Blocks[0]
		}
	}

	add("model.norm.weight", RoleNorm, -1, -1, H)
	if head == HeadSeqCls {
		// transformers' GenericForSequenceClassification: a bias-free
		// score [num_labels, H] and no lm_head.
		add("score.weight", RoleScore, -1, -1, labels, H)
	} else {
		add("lm_head.weight", RoleHead, -1, -1, V, H)
	}
	n := len(p.Tensors)
	p.Tensors[n-2].Final, p.Tensors[n-1].Final = true, true
	p.Tensors[n-1].Optional = tied
	return p, nil
}

// numLabels returns the number of labels of a classification head, as
// PretrainedConfig derives it: the entries of id2label, else the
// num_labels argument, else 2. The second result says where a value not
// given by id2label came from, for the legend.
func numLabels(c *Config) (uint64, string, error) {
	if c.Has("id2label") {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(c.fields["id2label"], &m); err != nil {
			return 0, "", c.errorf("id2label", "must be an object, found %s", kindOf(c.fields["id2label"]))
		}
		if len(m) == 0 {
			return 0, "", c.errorf("id2label", "is empty: a score head needs at least one label")
		}
		return uint64(len(m)), "", nil
	}
	if c.Has("num_labels") {
		n, err := c.Int("num_labels")
		if err == nil && n == 0 {
			err = c.errorf("num_labels", "must be positive")
		}
		return n, "", err
	}
	return 2, "PretrainedConfig's 2, no id2label", nil
}

func groupLabel(nh, nkv uint64) string {
	switch {
	case nkv == nh:
		return "MHA: one kv head per query head"
	case nkv == 1:
		return "MQA: one kv head for all"
	}
	return fmt.Sprintf("GQA group %d", nh/nkv)
}

// Quant is what the config's quantization section says about packing.
type Quant struct {
	Method string // quant_method: "fp8", "gptq", "awq", "bitsandbytes", …; "quantized" if the section has none
	Bits   uint64 // bits per value of packed formats (GPTQ, AWQ); 0 if not given
}

// quantConfig reads the config's quantization section (package
// quantconfig has its rules).
func quantConfig(c *Config) (Quant, error) {
	if !c.Has(quantconfig.Field) {
		return Quant{}, nil
	}
	q, err := quantconfig.ParseSection(c.fields[quantconfig.Field])
	out := Quant{Method: q.Method, Bits: q.Bits}
	if err != nil {
		return out, c.errorf(quantconfig.Field, "%v", err)
	}
	return out, nil
}

// quantAux matches the auxiliary tensors that quantizers add next to (or
// instead of) a linear layer's weight: FP8 scales, bitsandbytes SCB and
// weight_format, GPTQ/AWQ qweight, qzeros, scales and g_idx.
var quantAux = regexp.MustCompile(`\.(weight_scale_inv|weight_scale|input_scale|SCB|weight_format|qweight|qzeros|scales|g_idx)$`)

// ignorable matches legacy buffers that transformers ignores on load.
var ignorable = regexp.MustCompile(`^model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq$`)
