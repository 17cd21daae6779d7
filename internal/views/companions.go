package views

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/quantconfig"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// Companions is the one place that decides how a quantized weight is
// decoded: which stored tensors are a weight's codes and which its
// companions (scales, zero points, group indices, global scales, MLX's
// biases), as package quantconfig's rules say, and the decoder that
// dequantizes them (package decode). The views, the scan and compare all
// ask it, so a weight's values, its statistics and its delta in compare/
// are decoded alike.
type Companions struct {
	lookup func(name string) *tensor.Tensor
	q      quantconfig.Config
	rules  *quantconfig.Rules
	// Warn, if set, is told why a packed weight is not dequantized.
	Warn func(name string, err error)
}

// NewCompanions looks companions up with lookup (a model's Tensor), and
// decodes them as config.json's quantization section says (config is
// config.json's bytes, or nil; see package quantconfig).
func NewCompanions(lookup func(name string) *tensor.Tensor, config []byte) *Companions {
	return NewCompanionsFiles(lookup, config, nil)
}

// NewCompanionsFS is NewCompanions for a model whose files fsys holds
// (ModelOpt's hf_quant_config.json is read from it), or nil.
func NewCompanionsFS(lookup func(name string) *tensor.Tensor, config []byte, fsys source.FS) *Companions {
	return NewCompanionsFiles(lookup, config, ExtraFiles(fsys))
}

// ExtraFiles reads a model's small files beside config.json (at most
// 4 MiB, as config.json), or gives an error; nil for a nil fsys.
func ExtraFiles(fsys source.FS) func(name string) ([]byte, error) {
	if fsys == nil {
		return nil
	}
	return func(name string) ([]byte, error) {
		f, b, err := source.ReadAll(fsys, name, 4<<20)
		if f != nil {
			_ = f.Close()
		}
		return b, err
	}
}

// NewCompanionsFiles is NewCompanions with a reader of the model's other
// files (ModelOpt's hf_quant_config.json), or nil.
func NewCompanionsFiles(lookup func(name string) *tensor.Tensor, config []byte, extra func(name string) ([]byte, error)) *Companions {
	q, _ := quantconfig.Parse(config) // bad bits are spec's to report; the packed codes then stay undecoded
	rules, _ := quantconfig.Load(config, extra)
	return &Companions{lookup: lookup, q: q, rules: rules}
}

// WithBlock returns companions that decode FP8 block scales with the
// block [bn, bk] whatever the config says (compare's --block).
func (c *Companions) WithBlock(block [2]uint64) *Companions {
	d := *c
	if block != ([2]uint64{}) {
		d.q.Block = block
	}
	return &d
}

// Options returns the options of NewTensor for tt: nil when it has no
// companions.
func (c *Companions) Options(tt *tensor.Tensor) *Options {
	if c == nil {
		return nil
	}
	w, err := c.Weight(tt)
	if err != nil {
		// The views then decode the packed codes as what they are.
		if c.Warn != nil {
			c.Warn(tt.Name, err)
		}
		return nil
	}
	if w == nil {
		return nil
	}
	if w.Scale != nil {
		return &Options{Scale: w.Scale, Block: w.Block}
	}
	return &Options{Decoder: w.Decoder}
}

// Dequantized is a stored tensor's logical weight.
type Dequantized struct {
	// Name is the weight's name: the stored tensor's own, or base.weight
	// for a packed base.qweight or base.weight_packed.
	Name string
	// Decoder decodes its values; or, for transformers' FP8 layout,
	// Scale and Block are its block scales (decode.NewScaled).
	Decoder *decode.Decoder
	Scale   *tensor.Tensor
	Block   [2]uint64
	// How says how the values are made ("dequantized from …").
	How string
}

// Weight returns the logical weight whose values the stored tensor tt
// holds, with its decoder: nil when tt is not a quantized weight's codes
// (its values are its elements); an error when it is, but cannot be
// decoded (the reason).
func (c *Companions) Weight(tt *tensor.Tensor) (*Dequantized, error) {
	if c == nil {
		return nil, nil
	}
	if d, ok, err := c.bnb4(tt); ok {
		return d, err
	}
	if quantconfig.Float(tt.DType) {
		return nil, nil
	}
	w, f, found := c.rules.Find(tt.Name, c.lookup)
	if found && f.Decode != nil {
		return c.quantized(tt, w, f, nil)
	}
	if base, ok := strings.CutSuffix(tt.Name, ".weight"); ok && (tt.DType == tensor.F8_E4M3 || tt.DType == tensor.F8_E5M2) {
		if s := c.lookup(base + ".weight_scale_inv"); s != nil {
			b := c.q.FP8Block(tt, s)
			return &Dequantized{Name: tt.Name, Scale: s, Block: b, How: fmt.Sprintf("dequantized with %s, block [%d, %d]", s.Name, b[0], b[1])}, nil
		}
	}
	base, ok := strings.CutSuffix(tt.Name, ".qweight")
	if !ok {
		if found {
			return nil, fmt.Errorf("%s: the dequantization of %s is not modelled: its stored codes are shown", tt.Name, f.Scheme)
		}
		if b, ok := strings.CutSuffix(tt.Name, ".weight"); ok {
			// Codes beside a scale of a quantization the rules do not
			// model (or its config does not name): not values.
			for _, s := range []string{".weight_scale", ".SCB"} {
				if c.lookup(b+s) != nil {
					return nil, fmt.Errorf("%s: %s of a quantization whose decoding is not modelled: its stored codes are shown", tt.Name, b+s)
				}
			}
		}
		return nil, nil
	}
	if (c.q.Method == "gptq" || c.q.Method == "awq") && (c.lookup(base+".qzeros") == nil || c.lookup(base+".scales") == nil) {
		return nil, fmt.Errorf("%s: its qzeros or scales are missing", tt.Name)
	}
	dec, err := Packed(c.q, c.lookup, base, tt)
	if err != nil {
		return nil, err
	}
	return &Dequantized{Name: base + ".weight", Decoder: dec, How: "dequantized from " + tt.Name}, nil
}

// Aux reports whether the stored tensor is a companion of a quantized
// weight (a scale, a zero point, a global or input scale), read with the
// weight and not a weight of its own.
func (c *Companions) Aux(name string) bool {
	if c == nil || c.rules == nil || !c.rules.Understood() {
		return false
	}
	mod := name[:max(strings.LastIndexByte(name, '.'), 0)]
	if w, _, ok := strings.Cut(name, ".weight."); ok {
		// bitsandbytes 4-bit: weight.absmax, weight.quant_map, …
		if tt := c.lookup(w + ".weight"); tt != nil {
			if _, ok, err := c.bnb4(tt); ok && err == nil {
				return true
			}
		}
	}
	cands := []string{mod + ".weight_packed", mod + ".weight"}
	if p, ok := strings.CutSuffix(name, "_scales"); ok {
		cands = append(cands, p+"_blocks") // GPT-OSS's MXFP4 experts
	}
	for _, v := range cands {
		if _, f, ok := c.rules.Find(v, c.lookup); ok {
			for _, s := range f.Tensors {
				if s.Name == name && !s.Values {
					return true
				}
			}
		}
	}
	return c.rules.KVScale(name)
}

// bnbState is the part of bitsandbytes' quant state (QuantState.as_dict
// packed into the JSON of weight.quant_state.bitsandbytes__TYPE) that
// decoding needs.
type bnbState struct {
	Type      string   `json:"quant_type"`
	Block     uint64   `json:"blocksize"`
	DType     string   `json:"dtype"`
	Shape     []uint64 `json:"shape"`
	NBlock    uint64   `json:"nested_blocksize"`
	NOffset   *float32 `json:"nested_offset"`
	NDType    string   `json:"nested_dtype"`
	NQuantMap any      `json:"nested_quant_map"`
}

// maxStateBytes bounds the quant state's JSON read to decode a weight.
const maxStateBytes = 1 << 16

// bnb4 is the decoder of a bitsandbytes 4-bit weight, whose logical
// shape, block size and dtype only its quant state's JSON gives; ok is
// false when tt is not one.
func (c *Companions) bnb4(tt *tensor.Tensor) (*Dequantized, bool, error) {
	if c.rules == nil || c.rules.Method != "bitsandbytes" || !c.rules.Understood() || !strings.HasSuffix(tt.Name, ".weight") {
		return nil, false, nil
	}
	var st *tensor.Tensor
	for _, k := range []string{"nf4", "fp4"} {
		if st = c.lookup(tt.Name + ".quant_state.bitsandbytes__" + k); st != nil {
			break
		}
	}
	if st == nil {
		return nil, false, nil
	}
	fail := func(why string) (*Dequantized, bool, error) {
		return nil, true, fmt.Errorf("%s: %s %s", tt.Name, st.Name, why)
	}
	if st.DType != tensor.U8 || st.Length > maxStateBytes {
		return fail("is not a quant state's JSON")
	}
	d, err := decode.NewDecoder(st)
	if err != nil {
		return nil, true, err
	}
	raw, err := d.Raw(0, d.Len())
	if err != nil {
		return nil, true, err
	}
	var s bnbState
	if err := json.Unmarshal(raw, &s); err != nil {
		return fail("is not JSON: " + err.Error())
	}
	if len(s.Shape) < 2 || s.Block == 0 {
		return fail("gives no 2-D shape or blocksize")
	}
	kind := quantconfig.Linear
	if strings.HasSuffix(tt.Name, "lm_head.weight") {
		kind = quantconfig.Head
	}
	w := quantconfig.Weight{Name: tt.Name, Kind: kind, Shape: s.Shape}
	f, _ := c.rules.Expect(w)
	if f == nil {
		return fail("is of a weight the config leaves unquantized")
	}
	res := quantconfig.Resolve(w, f, c.lookup)
	if !res.Quantized || len(res.Findings) > 0 || res.Values != tt {
		return fail(fmt.Sprintf("says %s, which its tensors do not fit", tensor.FormatShape(s.Shape)))
	}
	q, err := c.quantized(tt, w, res.Form, &s)
	return q, true, err
}

// quantized builds the decoder of a weight the rules found; st is a
// bitsandbytes quant state, or nil.
func (c *Companions) quantized(tt *tensor.Tensor, w quantconfig.Weight, f *quantconfig.Form, st *bnbState) (*Dequantized, error) {
	if ws := f.Tensor(quantconfig.RoleOther); ws != nil && strings.HasSuffix(ws.Name, ".weight_shape") {
		// compressed-tensors' weight_shape is the truth where packing
		// pads (in·bits not a multiple of 32).
		if t := c.lookup(ws.Name); t != nil {
			if v, err := decode.Values(t); err == nil && len(v) == len(w.Shape) {
				shape := make([]uint64, len(v))
				for i, x := range v {
					shape[i] = uint64(x)
				}
				if !slices.Equal(shape, w.Shape) {
					w.Shape = shape
					f2, _ := c.rules.Expect(w)
					res := quantconfig.Resolve(w, f2, c.lookup)
					if f2 == nil || !res.Quantized || len(res.Findings) > 0 {
						return nil, fmt.Errorf("%s: %s says %s, which its tensors do not fit", tt.Name, ws.Name, tensor.FormatShape(shape))
					}
					f = res.Form
				}
			}
		}
	}
	d := f.Decode
	get := func(r quantconfig.Role) *tensor.Tensor {
		if s := f.Tensor(r); s != nil {
			return c.lookup(s.Name)
		}
		return nil
	}
	q := decode.Quantized{Values: tt, Bits: d.Bits, Signed: d.Signed, Shape: w.Shape,
		Scale: get(quantconfig.RoleScale), ScaleE8M0: d.ScaleE8M0, ScaleE4M3: d.ScaleE4M3,
		Zero: get(quantconfig.RoleZero), ZeroPacked: d.ZeroPacked, GIdx: get(quantconfig.RoleGIdx),
		Biases: get(quantconfig.RoleBiases), Global: get(quantconfig.RoleGlobal), GlobalDivides: d.GlobalDivides,
		Block: d.Block, PostScale: d.PostScale, Transposed: d.Transposed, ColScale: get(quantconfig.RoleCol),
		Table: get(quantconfig.RoleTable)}
	switch d.Code {
	case "int":
		q.Code = decode.CodeInt
	case "fp4":
		q.Code = decode.CodeFP4
	case "int4out":
		q.Code = decode.CodeInt4Out
	case "table4":
		q.Code = decode.CodeTable4
		if st == nil {
			return nil, fmt.Errorf("%s: a bitsandbytes 4-bit weight without its quant state", tt.Name)
		}
		q.FlatBlock = st.Block
		if abs := get(quantconfig.RoleNestedAbsmax); abs != nil {
			if st.NOffset == nil || st.NBlock == 0 {
				return nil, fmt.Errorf("%s: its quant state gives no nested_offset or nested_blocksize", tt.Name)
			}
			q.Nested = &decode.Nested{Table: get(quantconfig.RoleNestedTable), Absmax: abs, Block: st.NBlock, Offset: *st.NOffset}
		}
	default:
		q.Code = decode.CodeElement
	}
	round := func(how string) tensor.DType {
		switch how {
		case "bf16":
			return tensor.BF16
		case "scale":
			if q.Scale != nil {
				return q.Scale.DType
			}
		case "state":
			if st != nil {
				switch strings.TrimPrefix(st.DType, "torch.") {
				case "bfloat16":
					return tensor.BF16
				case "float16":
					return tensor.F16
				}
			}
		}
		return tensor.F32
	}
	q.RoundMul, q.RoundAdd = round(d.Round), round(d.RoundAdd)
	dec, err := decode.NewQuantized(q)
	if err != nil {
		return nil, err
	}
	return &Dequantized{Name: w.Name, Decoder: dec, How: "dequantized from " + tt.Name + " (" + f.Scheme + ")"}, nil
}

// Packed returns the decoder of the GPTQ or AWQ packed weight qw, as
// the quantization config c says, whose companions (base.qzeros, base.scales, base.g_idx for its name
// base.qweight) lookup finds.
func Packed(c quantconfig.Config, lookup func(name string) *tensor.Tensor, base string, qw *tensor.Tensor) (*decode.Decoder, error) {
	zeros, scales := lookup(base+".qzeros"), lookup(base+".scales")
	switch c.Method {
	case "":
		return nil, fmt.Errorf("%s: no %s to decode it", qw.Name, quantconfig.Field)
	case "gptq":
		return decode.NewGPTQ(decode.GPTQ{QWeight: qw, QZeros: zeros, Scales: scales, GIdx: lookup(base + ".g_idx"),
			Bits: int(c.Bits), GroupSize: c.GroupSize, V1: c.Format != "gptq_v2"})
	case "awq":
		if c.Version != "" && !strings.EqualFold(c.Version, "gemm") {
			return nil, fmt.Errorf("%s: AWQ version %q is not decoded", qw.Name, c.Version)
		}
		return decode.NewAWQ(decode.AWQ{QWeight: qw, QZeros: zeros, Scales: scales, GroupSize: c.GroupSize})
	}
	return nil, fmt.Errorf("%s: quant_method %q is not decoded", qw.Name, c.Method)
}
