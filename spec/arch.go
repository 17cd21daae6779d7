package spec

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
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
	Desc  string
}

// BlockKind is a distinct kind of transformer block and the layers that
// have it (all layers, or the dense and the sparse layers of an MoE).
type BlockKind struct {
	Name   string // "" when every block is alike, else "dense" or "sparse"
	Layers []int
}

// Plan is what config.json implies: the legend and the expected tensors.
type Plan struct {
	Arch        string // the spec used, e.g. "Qwen3"
	Legend      []LegendRow
	Tensors     []ExpectedTensor // globals, then blocks in layer order, then finals
	Blocks      []BlockKind
	Tied        bool
	DType       string // config's torch_dtype / dtype, "" if unset
	QuantMethod string // quantization_config.quant_method, "" if not quantized
	Experts     int    // experts per sparse block, 0 for dense models
}

// decoder describes one family of decoder-only transformers; the
// architectures differ only in these switches (see the decoders table).
type decoder struct {
	name       string
	archs      []string // "architectures" values
	modelTypes []string // "model_type" values
	qkNorm     bool     // q_norm / k_norm [d] (Qwen3)
	qkvBias    bool     // q/k/v biases always (Qwen2)
	configBias bool     // attention_bias / mlp_bias from config (Llama family)
	ffnNorms   bool     // pre/post feedforward norms (Gemma2)
	moe        bool     // sparse MoE blocks (Qwen3-MoE)
	tiedByDef  bool     // the config class's tie_word_embeddings default
}

var decoders = []*decoder{
	{name: "Qwen3", archs: []string{"Qwen3ForCausalLM"}, modelTypes: []string{"qwen3"}, qkNorm: true, configBias: true},
	{name: "Qwen3-MoE", archs: []string{"Qwen3MoeForCausalLM"}, modelTypes: []string{"qwen3_moe"}, qkNorm: true, configBias: true, moe: true},
	{name: "Qwen2", archs: []string{"Qwen2ForCausalLM"}, modelTypes: []string{"qwen2"}, qkvBias: true},
	{name: "Llama", archs: []string{"LlamaForCausalLM"}, modelTypes: []string{"llama"}, configBias: true},
	{name: "Mistral", archs: []string{"MistralForCausalLM"}, modelTypes: []string{"mistral"}},
	{name: "Gemma", archs: []string{"GemmaForCausalLM"}, modelTypes: []string{"gemma"}, tiedByDef: true},
	{name: "Gemma2", archs: []string{"Gemma2ForCausalLM"}, modelTypes: []string{"gemma2"}, ffnNorms: true, tiedByDef: true},
}

// lookupDecoder finds the spec for a config by "architectures", falling
// back to "model_type".
func lookupDecoder(c *Config) *decoder {
	arch, mt := c.Architecture(), c.ModelType()
	for _, d := range decoders {
		for _, a := range d.archs {
			if a == arch {
				return d
			}
		}
	}
	if arch != "" && !strings.HasSuffix(arch, "ForCausalLM") {
		return nil
	}
	for _, d := range decoders {
		for _, m := range d.modelTypes {
			if m == mt {
				return d
			}
		}
	}
	return nil
}

// NoSpecError is returned by Expect for an architecture without a spec.
type NoSpecError struct{ Arch, ModelType string }

func (e *NoSpecError) Error() string {
	name := e.Arch
	if name == "" {
		name = e.ModelType
	}
	if name == "" {
		name = "(config.json names no architecture)"
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
	d := lookupDecoder(c)
	if d == nil {
		return nil, &NoSpecError{Arch: c.Architecture(), ModelType: c.ModelType()}
	}
	return d.plan(c, held)
}

type dims struct {
	V, H, L, NH, NKV, HD, I uint64
	hdDerived               bool
	E, Im, topK, step       uint64
	mlpOnly                 map[uint64]bool
}

func (d *decoder) readDims(c *Config) (*dims, error) {
	var x dims
	var err error
	get := func(dst *uint64, field string) {
		if err == nil {
			*dst, err = c.Int(field)
			if err == nil && *dst == 0 {
				err = c.errorf(field, "must be positive")
			}
		}
	}
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
	if x.NKV, err = c.IntOr("num_key_value_heads", x.NH); err != nil {
		return nil, err
	}
	if x.NKV == 0 || x.NH%x.NKV != 0 {
		return nil, c.errorf("num_key_value_heads", "is %d, which does not divide num_attention_heads %d", x.NKV, x.NH)
	}
	// transformers: head_dim if present and not null, else H / nh.
	if c.Has("head_dim") {
		if x.HD, err = c.Int("head_dim"); err != nil {
			return nil, err
		}
		if x.HD == 0 {
			return nil, c.errorf("head_dim", "must be positive")
		}
	} else {
		if x.H%x.NH != 0 {
			return nil, c.errorf("head_dim", "is absent and hidden_size %d is not a multiple of num_attention_heads %d", x.H, x.NH)
		}
		x.HD, x.hdDerived = x.H/x.NH, true
	}
	if d.moe {
		get(&x.E, "num_experts")
		if err == nil && x.E > MaxExperts {
			return nil, c.errorf("num_experts", "is %d, more than the %d experts fsmount accepts (the largest real models have 512)", x.E, MaxExperts)
		}
		get(&x.Im, "moe_intermediate_size")
		get(&x.topK, "num_experts_per_tok")
		if err != nil {
			return nil, err
		}
		if x.step, err = c.IntOr("decoder_sparse_step", 1); err != nil {
			return nil, err
		}
		if x.step == 0 {
			return nil, c.errorf("decoder_sparse_step", "must be positive")
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

func (d *decoder) plan(c *Config, held int) (*Plan, error) {
	x, err := d.readDims(c)
	if err != nil {
		return nil, err
	}
	if err := d.bound(c, x, held); err != nil {
		return nil, err
	}
	// Absent, the config class's own default applies, as in transformers.
	tied, err := c.BoolOr("tie_word_embeddings", d.tiedByDef)
	if err != nil {
		return nil, err
	}
	attnBias, err := c.BoolOr("attention_bias", false)
	if err != nil {
		return nil, err
	}
	mlpBias, err := c.BoolOr("mlp_bias", false)
	if err != nil {
		return nil, err
	}
	if !d.configBias {
		attnBias, mlpBias = false, false
	}
	dtype, err := c.DType()
	if err != nil {
		return nil, err
	}
	p := &Plan{Arch: d.name, Tied: tied, DType: dtype, QuantMethod: quantMethod(c), Experts: int(x.E)}

	V, H, I := Dim{"V", x.V}, Dim{"H", x.H}, Dim{"I", x.I}
	q, kv, hd := Dim{"heads·d", x.NH * x.HD}, Dim{"kv·d", x.NKV * x.HD}, Dim{"d", x.HD}

	p.Legend = []LegendRow{
		{"V", "vocab_size", x.V, "distinct tokens"},
		{"H", "hidden_size", x.H, "residual-stream width (the bus)"},
		{"L", "num_hidden_layers", x.L, "transformer blocks"},
		{"d", "head_dim", x.HD, "width of one attention head"},
		{"", "num_attention_heads", x.NH, fmt.Sprintf("query heads → q width = %d·%d = %d", x.NH, x.HD, q.Val)},
		{"", "num_key_value_heads", x.NKV, fmt.Sprintf("kv heads → kv width = %d·%d = %d   (%s)", x.NKV, x.HD, kv.Val, groupLabel(x.NH, x.NKV))},
		{"I", "intermediate_size", x.I, "FFN inner width"},
	}
	if x.hdDerived {
		p.Legend[3].Desc += fmt.Sprintf("   (not in config: H/heads = %d/%d)", x.H, x.NH)
	}
	if d.moe {
		p.Legend = append(p.Legend,
			LegendRow{"E", "num_experts", x.E, fmt.Sprintf("experts per sparse block, %d active per token", x.topK)},
			LegendRow{"Im", "moe_intermediate_size", x.Im, "expert FFN inner width"},
		)
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
	add("lm_head.weight", RoleHead, -1, -1, V, H)
	n := len(p.Tensors)
	p.Tensors[n-2].Final, p.Tensors[n-1].Final = true, true
	p.Tensors[n-1].Optional = tied
	return p, nil
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

// quantMethod returns quantization_config.quant_method ("fp8", "gptq",
// "bitsandbytes", …), "quantized" if the section has no method, or "".
func quantMethod(c *Config) string {
	if !c.Has("quantization_config") {
		return ""
	}
	var q struct {
		Method string `json:"quant_method"`
	}
	if err := json.Unmarshal(c.fields["quantization_config"], &q); err != nil || q.Method == "" {
		return "quantized"
	}
	return q.Method
}

// quantAux matches the auxiliary tensors that quantizers add next to (or
// instead of) a linear layer's weight: FP8 scales, bitsandbytes SCB and
// weight_format, GPTQ/AWQ qweight, qzeros, scales and g_idx.
var quantAux = regexp.MustCompile(`\.(weight_scale_inv|weight_scale|input_scale|SCB|weight_format|qweight|qzeros|scales|g_idx)$`)

// ignorable matches legacy buffers that transformers ignores on load.
var ignorable = regexp.MustCompile(`^model\.layers\.\d+\.self_attn\.rotary_emb\.inv_freq$`)
