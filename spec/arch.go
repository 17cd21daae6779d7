package spec

import (
	"encoding/json"
	"fmt"
	"regexp"

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
	RoleConv1D                // a weight stored [in, out] (GPT-2's Conv1D)
)

// Linear reports whether a role is a weight matrix a quantizer may pack.
func (r Role) Linear() bool { return r == RoleLinear || r == RoleConv1D }

// ExpectedTensor is one tensor the architecture implies.
type ExpectedTensor struct {
	Name     string
	Shape    []Dim
	Role     Role
	Optional bool // may be absent: a tied lm_head
	Layer    int  // block index, or -1 for global and final tensors
	Stack    int  // the family's stack the layer belongs to (0: the decoder)
	Expert   int  // expert index in an MoE block, or -1
	Final    bool // after the blocks (final norm, head)
	// AnyDType: the dtype is not held to config.json's (routers and
	// buffers that checkpoints keep in float32).
	AnyDType bool
	// Alt is the shape another writer gives it (T.Alt), nil if none.
	Alt []Dim
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
	Name   string // "" when every block of the stack is alike, else "dense", "sparse", …
	Layers []int
	// Stack is the stack's name ("" for the decoder, "vision", …),
	// StackIndex its index in the family, Prefix the name prefix of the
	// kind's first layer ("model.layers.0.").
	Stack      string
	StackIndex int
	Prefix     string
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
	// Embed and HeadName are the token embedding's and the LM head's
	// names, for the tied-head rule.
	Embed, HeadName string
	// BasePrefix is the base model's prefix, which a checkpoint of the
	// base model alone omits ("transformer.").
	BasePrefix string
	// Ignore are the names transformers ignores on load
	// (_keys_to_ignore_on_load_unexpected), for the checker's notes.
	Ignore   []*regexp.Regexp
	variants [][][2]string // the family's other layouts (Family.Variants)
	altNote  string        // Family.AltNote
	// fields are the integer symbols read from config fields, by field
	// name: the dimensions a format that cuts a tensor into parts gives
	// the parts (model.Names.Parts).
	fields map[string]Dim
}

// Heads: the task classes a spec covers, by the suffix of their name.
const (
	HeadCausalLM = "ForCausalLM"
	HeadSeqCls   = "ForSequenceClassification"
)

// NoSpecError is returned by Expect for an architecture without a spec.
type NoSpecError struct {
	Arch, ModelType string
	// Reason, if set, says why the family's spec does not apply.
	Reason string
}

// Name is the architecture, or the model_type, config.json names.
func (e *NoSpecError) Name() string {
	switch {
	case e.Arch != "":
		return e.Arch
	case e.ModelType != "":
		return e.ModelType
	}
	return "(config.json names no architecture)"
}

func (e *NoSpecError) Error() string {
	name := e.Name()
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
