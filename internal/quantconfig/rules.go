package quantconfig

import (
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/fsmount/fsmount/tensor"
)

// Kind is the kind of module a weight belongs to: quantizers pick modules
// by their class.
type Kind int

// The kinds of weight a quantizer may replace.
const (
	Linear    Kind = iota // nn.Linear (and Conv1D): [out, in]
	Embedding             // nn.Embedding: [vocab, width], quantized by MLX
	Head                  // the output head, an nn.Linear named lm_head
	Experts               // a 3-D stack of expert weights (GPT-OSS's gate_up_proj [E, in, out])
)

// Weight is one weight of the unquantized model, as the architecture
// implies it.
type Weight struct {
	Name  string // the tensor's name: "model.layers.0.self_attn.q_proj.weight"
	Kind  Kind
	Shape []uint64 // [out, in]; [E, out, in] for stacked experts; Experts: as the plan has it
}

// Module is a weight's module path: its name less ".weight".
func (w Weight) Module() string { return strings.TrimSuffix(w.Name, ".weight") }

// Stored is one tensor a quantized module stores.
type Stored struct {
	Name string
	// DTypes are the accepted dtypes; nil accepts any floating type (a
	// scale saved in the model's dtype or in float32).
	DTypes []tensor.DType
	// Shape is the expected shape; AnyShape when the rule gives none.
	Shape    []uint64
	AnyShape bool
	// AnyDType accepts any dtype (HQQ's metadata, saved as whatever
	// tensor its encoder made of a Python value).
	AnyDType bool
	// Values marks the tensor that holds the weight's values (packed or
	// not): it counts as the weight's parameters, the others are
	// auxiliaries.
	Values bool
	// Optional tensors may be absent (a tensor one version of the
	// library saves and another does not).
	Optional bool
	// Role is what the tensor is to the weight's decoding.
	Role Role
}

// Role is a stored tensor's part in dequantizing its weight.
type Role int

// The roles of a quantized weight's tensors.
const (
	RoleOther  Role = iota // not read to decode the weight (input scales, weight_shape)
	RoleValues             // the codes
	RoleScale
	RoleZero
	RoleGIdx
	RoleGlobal // one float that divides or multiplies the scale
	RoleBiases // MLX affine's offsets
	RoleCol    // one factor an input (ModelOpt AWQ's pre_quant_scale)
	// bitsandbytes 4-bit: the code table, the double quant's absmax and
	// table, and the quant state's JSON.
	RoleTable
	RoleNestedAbsmax
	RoleNestedTable
	RoleState
)

// Decoding is how a form's values are dequantized (package decode
// computes it; see decode.Quantized for the formula).
type Decoding struct {
	Code       string // "int" (dense packed integers), "fp4", "element" (the element type, E4M3 for bytes)
	Bits       int
	Signed     bool
	ZeroPacked bool
	ScaleE8M0  bool // U8 scales are E8M0 exponents
	ScaleE4M3  bool // U8 scales are FP8 E4M3 codes
	// GlobalDivides: the global scale divides (compressed-tensors);
	// else it multiplies (ModelOpt's weight_scale_2).
	GlobalDivides bool
	// Block is [rows, inputs] per scale: [1, group], [bn, bk]; zero
	// for one scale per row or per tensor.
	Block [2]uint64
	// Round is where the product is rounded: "scale" (the scale's
	// dtype, as torch multiplies), "bf16", "state" (bitsandbytes' quant
	// state's dtype), or "" (float32); RoundAdd likewise for MLX's
	// biases.
	Round, RoundAdd string
	// PostScale multiplies each value after its scale (bitsandbytes
	// int8's 1/127).
	PostScale float32
	// Transposed: the weight is [.., in, out], its codes stored [..,
	// out, in] (GPT-OSS's MXFP4 experts).
	Transposed bool
}

// Form is how a quantized weight is stored: the scheme's name (for the
// report's bytes by scheme) and its tensors.
type Form struct {
	Scheme  string
	Tensors []Stored
	// Decode is how to dequantize the values; nil when the values are
	// shown as stored (a scheme whose dequantization is not modelled).
	Decode *Decoding
	// Alt are other forms the same config may have written (another
	// version of the library): the files may hold any one of them.
	Alt []*Form
}

// Tensor returns the form's tensor of the role, or nil.
func (f *Form) Tensor(r Role) *Stored {
	for i := range f.Tensors {
		if f.Tensors[i].Role == r {
			return &f.Tensors[i]
		}
	}
	return nil
}

// Rules is what a model's quantization config implies about its stored
// tensors. The zero Rules (no quantization) expects every weight as it
// is.
type Rules struct {
	// Method is the quantizer: quant_method, "mlx" for MLX's
	// quantization section, "" when the model is not quantized.
	Method string
	// Partial, when set, says what of the method is not understood: its
	// quantized tensors are then allowed by name, not checked, and the
	// check is partial (exit 3), never a false failure.
	Partial string
	// Legacy is the config as [Parse] reads it (GPTQ, AWQ, fp8 settings).
	Legacy Config

	ct   *ctConfig
	mo   *moConfig
	mlx  *mlxConfig
	kv   bool // a KV-cache scheme: k_scale, v_scale allowed
	bnb4 bool // bitsandbytes 4-bit (else 8-bit)
	bnbD bool // bitsandbytes 4-bit double quantization
	bnbT string
	bnbS tensor.DType // bnb_4bit_quant_storage
	tf   *tfConfig    // the other transformers quantizers (transformers.go)
	skip []string
	cfg  modelDims
}

// modelDims are the config.json fields the MLX renames need.
type modelDims struct {
	ModelType string `json:"model_type"`
	Heads     uint64 `json:"num_attention_heads"`
	Nope      uint64 `json:"qk_nope_head_dim"`
	VHead     uint64 `json:"v_head_dim"`
	KVLora    uint64 `json:"kv_lora_rank"`
}

// Understood reports whether the rules check the quantized tensors.
func (r *Rules) Understood() bool { return r.Method != "" && r.Partial == "" }

// Quantized reports whether the config quantizes the model at all.
func (r *Rules) Quantized() bool { return r.Method != "" }

// Load reads the quantization rules of a model: config.json's bytes and,
// through extra (nil, or a reader of the model's other files, giving an
// error when absent), ModelOpt's hf_quant_config.json. An error is a
// config that names a method but cannot be read as that method's.
func Load(config []byte, extra func(name string) ([]byte, error)) (*Rules, error) {
	var top struct {
		Q   json.RawMessage `json:"quantization_config"`
		MLX json.RawMessage `json:"quantization"`
		Txt *modelDims      `json:"text_config"`
	}
	r := &Rules{}
	if len(config) == 0 || json.Unmarshal(config, &top) != nil {
		return r, nil
	}
	_ = json.Unmarshal(config, &r.cfg)
	if top.Txt != nil && r.cfg.Heads == 0 {
		r.cfg = *top.Txt
	}
	section := top.Q
	if len(section) == 0 || string(section) == "null" {
		section = nil
	}
	if section == nil && len(top.MLX) > 0 && string(top.MLX) != "null" {
		return r, r.loadMLX(top.MLX)
	}
	if section == nil && extra != nil {
		if b, err := extra("hf_quant_config.json"); err == nil {
			r.Method = "modelopt"
			return r, r.loadModelOptFile(b)
		}
	}
	if section == nil {
		return r, nil
	}
	legacy, err := ParseSection(section)
	r.Legacy = legacy
	r.Method = legacy.Method
	if err != nil {
		return r, err
	}
	var common struct {
		Skip  []string `json:"modules_to_not_convert"`
		Skip2 []string `json:"llm_int8_skip_modules"`
	}
	_ = json.Unmarshal(section, &common)
	r.skip = append(common.Skip, common.Skip2...)
	switch legacy.Method {
	case "quantized":
		// No quant_method: MLX writes its section under this name too.
		var probe struct {
			Bits *int    `json:"bits"`
			Mode *string `json:"mode"`
		}
		if json.Unmarshal(section, &probe) == nil && probe.Bits != nil {
			return r, r.loadMLX(section)
		}
		r.Partial = "quantization_config names no quant_method"
	case "compressed-tensors":
		return r, r.loadCT(section)
	case "modelopt":
		return r, r.loadModelOpt(section)
	case "gptq", "awq", "fp8", "fbgemm_fp8", "mxfp4", "bitnet", "eetq":
		if legacy.Method == "awq" && legacy.Version != "" && !strings.EqualFold(legacy.Version, "gemm") {
			r.Partial = fmt.Sprintf("AWQ version %q", legacy.Version)
		}
		if legacy.Method == "gptq" && legacy.Bits == 3 {
			r.Partial = "3-bit GPTQ"
		}
	case "bitsandbytes":
		var b struct {
			In4    bool   `json:"load_in_4bit"`
			Double bool   `json:"bnb_4bit_use_double_quant"`
			Type   string `json:"bnb_4bit_quant_type"`
			Store  string `json:"bnb_4bit_quant_storage"`
		}
		_ = json.Unmarshal(section, &b)
		r.bnb4, r.bnbD, r.bnbT = b.In4, b.Double, b.Type
		// The packed codes viewed as bnb_4bit_quant_storage (FSDP
		// QLoRA saves them as bfloat16): Params4bit's quant_storage.
		var ok bool
		if r.bnbS, ok = torchDTypes[strings.TrimPrefix(b.Store, "torch.")]; !ok && b.Store != "" {
			r.Partial = fmt.Sprintf("bitsandbytes bnb_4bit_quant_storage %q", b.Store)
		}
		if b.Store == "" {
			r.bnbS = tensor.U8
		}
		if r.bnbT == "" {
			r.bnbT = "fp4" // BitsAndBytesConfig's default
		}
		if r.bnb4 && r.bnbT != "nf4" && r.bnbT != "fp4" {
			r.Partial = fmt.Sprintf("bitsandbytes bnb_4bit_quant_type %q", r.bnbT)
		}
	case "hqq", "torchao", "quanto", "higgs", "vptq", "aqlm", "spqr", "fp_quant", "quark", "auto-round", "autoround", "auto_round", "intel/auto-round":
		return r, r.loadTF(section)
	case "gptqmodel":
		r.Partial = fmt.Sprintf("quant_method %q is recognised but its tensors are not modelled", legacy.Method)
	default:
		r.Partial = fmt.Sprintf("quant_method %q is not understood", legacy.Method)
	}
	return r, nil
}

// skipped reports whether a transformers quantizer leaves the module
// unconverted (modules_to_not_convert: a name or a name's component).
func (r *Rules) skipped(module string) bool {
	for _, s := range r.skip {
		if s != "" && (module == s || strings.HasSuffix(module, "."+s) || strings.Contains(module+".", s+".") || strings.HasPrefix(module, s+".")) {
			return true
		}
	}
	return false
}

// Expect returns the form the config gives the weight w, or nil and why
// the weight stays unquantized. A weight the config quantizes may still
// be stored unquantized (libraries skip what they cannot quantize); the
// checker accepts that, and only that, besides the form.
func (r *Rules) Expect(w Weight) (*Form, string) {
	f, why := r.expect(w)
	if f != nil {
		f.roles()
		for _, a := range f.Alt {
			a.roles()
		}
	}
	return f, why
}

// roleSuffixes give a stored tensor's role by its name.
var roleSuffixes = []struct {
	suffix string
	role   Role
}{
	{".weight_global_scale", RoleGlobal}, {".weight_scale_2", RoleGlobal},
	{".weight_scale", RoleScale}, {".scales", RoleScale}, {".weight_scale_inv", RoleScale}, {".SCB", RoleScale}, {"_scales", RoleScale}, {".weight_scales", RoleScale},
	{".weight_zero_point", RoleZero}, {".qzeros", RoleZero},
	{".pre_quant_scale", RoleCol},
	{".nested_absmax", RoleNestedAbsmax}, {".nested_quant_map", RoleNestedTable},
	{".absmax", RoleScale}, {".quant_map", RoleTable},
	{".weight_g_idx", RoleGIdx}, {".g_idx", RoleGIdx},
	{".biases", RoleBiases},
}

func (f *Form) roles() {
	for i := range f.Tensors {
		s := &f.Tensors[i]
		if s.Values {
			s.Role = RoleValues
			continue
		}
		if strings.Contains(s.Name, ".quant_state.") {
			s.Role = RoleState
			continue
		}
		for _, rs := range roleSuffixes {
			if strings.HasSuffix(s.Name, rs.suffix) {
				s.Role = rs.role
				break
			}
		}
	}
}

func (r *Rules) expect(w Weight) (*Form, string) {
	if r == nil || r.Method == "" || r.Partial != "" {
		return nil, "not quantized"
	}
	if w.Kind == Experts {
		if r.Method == "mxfp4" {
			return mxfp4Experts(w), ""
		}
		return nil, "a 3-D parameter, not a module the quantizer converts"
	}
	if !strings.HasSuffix(w.Name, ".weight") || len(w.Shape) < 2 {
		return nil, "not a weight matrix"
	}
	switch {
	case r.ct != nil:
		return r.ct.expect(w)
	case r.mo != nil:
		return r.mo.expect(w)
	case r.mlx != nil:
		return r.mlx.expect(w)
	}
	if w.Kind == Embedding || w.Kind == Head && r.Method != "bitsandbytes" && r.tf == nil {
		// transformers' quantizers convert nn.Linear and keep the head.
		return nil, "transformers keeps the output head and the embeddings"
	}
	if r.skipped(w.Module()) || w.Kind == Head && r.tf == nil {
		return nil, "modules_to_not_convert"
	}
	if r.tf != nil {
		// The head is an nn.Linear these quantizers convert unless
		// their skip list names it (transformers 5 adds no default
		// skip when the config gives a list): its form is expected,
		// and a head stored unquantized is accepted as well.
		return r.tf.expect(w)
	}
	return r.legacyForm(w)
}

// groups is the number of quantization groups along a dimension of n:
// one for a group size of 0 (per channel), else ⌈n/size⌉.
func groups(n, size uint64) uint64 {
	if size == 0 {
		return 1
	}
	return ceil(n, size)
}

func ceil(a, b uint64) uint64 {
	if b == 0 {
		return 0
	}
	return (a + b - 1) / b
}

// outIn splits a weight's shape into its leading (stacked) dimensions,
// out and in.
func outIn(w Weight) (lead []uint64, o, i uint64) {
	n := len(w.Shape)
	return w.Shape[:n-2], w.Shape[n-2], w.Shape[n-1]
}

func with(lead []uint64, dims ...uint64) []uint64 {
	return append(append([]uint64{}, lead...), dims...)
}

var (
	floats = []tensor.DType(nil)
	i32    = []tensor.DType{tensor.I32}
	u8     = []tensor.DType{tensor.U8}
	f8     = []tensor.DType{tensor.F8_E4M3}
	f32    = []tensor.DType{tensor.F32}
)

// legacyForm is the form of transformers' own quantizers.
func (r *Rules) legacyForm(w Weight) (*Form, string) {
	base := w.Module()
	lead, o, i := outIn(w)
	if len(lead) > 0 {
		return nil, "a stacked weight"
	}
	q := r.Legacy
	switch r.Method {
	case "gptq":
		b := q.Bits
		ng := groups(i, uint64(max(q.GroupSize, 0)))
		return &Form{Scheme: fmt.Sprintf("GPTQ int%d", b), Tensors: []Stored{
			{Name: base + ".qweight", DTypes: i32, Shape: []uint64{ceil(i*b, 32), o}, Values: true},
			{Name: base + ".qzeros", DTypes: i32, Shape: []uint64{ng, ceil(o*b, 32)}},
			{Name: base + ".scales", DTypes: floats, Shape: []uint64{ng, o}},
			{Name: base + ".g_idx", DTypes: i32, Shape: []uint64{i}, Optional: true},
		}}, ""
	case "awq":
		b := q.Bits
		ng := groups(i, uint64(max(q.GroupSize, 0)))
		return &Form{Scheme: fmt.Sprintf("AWQ int%d", b), Tensors: []Stored{
			{Name: base + ".qweight", DTypes: i32, Shape: []uint64{i, ceil(o*b, 32)}, Values: true},
			{Name: base + ".qzeros", DTypes: i32, Shape: []uint64{ng, ceil(o*b, 32)}},
			{Name: base + ".scales", DTypes: floats, Shape: []uint64{ng, o}},
		}}, ""
	case "fp8":
		bn, bk := q.Block[0], q.Block[1]
		if bn == 0 || bk == 0 {
			bn, bk = 128, 128
		}
		f := &Form{Scheme: fmt.Sprintf("FP8 block %d×%d", bn, bk), Tensors: []Stored{
			{Name: w.Name, DTypes: []tensor.DType{tensor.F8_E4M3, tensor.F8_E5M2}, Shape: []uint64{o, i}, Values: true},
			// The block may be inferred from the scale's grid (FP8Block).
			{Name: base + ".weight_scale_inv", DTypes: floats, Shape: []uint64{ceil(o, bn), ceil(i, bk)}, AnyShape: q.Block == [2]uint64{}},
		}}
		if q.Block == [2]uint64{} {
			// AutoFP8's and vLLM's per-tensor layout under the same
			// quant_method: weight_scale and, for static activations,
			// input_scale.
			f.Alt = append(f.Alt, &Form{Scheme: "FP8 per tensor", Tensors: []Stored{
				{Name: w.Name, DTypes: []tensor.DType{tensor.F8_E4M3, tensor.F8_E5M2}, Shape: []uint64{o, i}, Values: true},
				{Name: base + ".weight_scale", DTypes: floats, Shape: []uint64{1}},
				{Name: base + ".input_scale", DTypes: floats, Shape: []uint64{1}, Optional: true},
			}, Decode: &Decoding{Code: "element"}})
		}
		return f, ""
	case "fbgemm_fp8":
		return &Form{Scheme: "FP8 per channel (fbgemm)", Tensors: []Stored{
			{Name: w.Name, DTypes: f8, Shape: []uint64{o, i}, Values: true},
			{Name: base + ".weight_scale", DTypes: floats, Shape: []uint64{o, 1}},
			{Name: base + ".input_scale_ub", DTypes: floats, AnyShape: true, Optional: true},
		}, Decode: &Decoding{Code: "element"}}, ""
	case "eetq":
		return &Form{Scheme: "EETQ int8", Tensors: []Stored{
			{Name: w.Name, DTypes: []tensor.DType{tensor.I8}, Shape: []uint64{i, o}, Values: true},
			{Name: base + ".weight_scales", DTypes: floats, Shape: []uint64{o}},
		}}, ""
	case "bitnet":
		return &Form{Scheme: "BitNet ternary", Tensors: []Stored{
			{Name: w.Name, DTypes: u8, Shape: []uint64{ceil(o, 4), i}, Values: true},
			{Name: base + ".weight_scale", DTypes: floats, AnyShape: true},
		}}, ""
	case "bitsandbytes":
		if !r.bnb4 {
			return &Form{Scheme: "bitsandbytes int8", Tensors: []Stored{
				{Name: w.Name, DTypes: []tensor.DType{tensor.I8}, Shape: []uint64{o, i}, Values: true},
				{Name: base + ".SCB", DTypes: floats, Shape: []uint64{o}},
				{Name: base + ".weight_format", AnyShape: true, DTypes: []tensor.DType{tensor.U8, tensor.I64, tensor.I32}, Optional: true},
			}, Decode: &Decoding{Code: "element", PostScale: 7.874015718698502e-3}}, "" // functional.py int8_vectorwise_dequant
		}
		ts := []Stored{
			{Name: w.Name, DTypes: []tensor.DType{r.bnbS}, Shape: []uint64{ceil(ceil(o*i, 2), uint64(r.bnbS.BlockBytes())), 1}, Values: true},
			{Name: w.Name + ".absmax", AnyShape: true, DTypes: []tensor.DType{tensor.F32, tensor.U8}},
			{Name: w.Name + ".quant_map", DTypes: f32, Shape: []uint64{16}},
		}
		if r.bnbD {
			ts = append(ts, Stored{Name: w.Name + ".nested_absmax", DTypes: f32, AnyShape: true},
				Stored{Name: w.Name + ".nested_quant_map", DTypes: f32, Shape: []uint64{256}})
		}
		// The quant state's JSON, under the name of its quant type
		// (bitsandbytes/functional.py, QuantState.as_dict(packed=True)).
		ts = append(ts, Stored{Name: w.Name + ".quant_state.bitsandbytes__" + r.bnbT, DTypes: u8, AnyShape: true})
		// The block size and dtype are the quant state's (package
		// views reads them).
		return &Form{Scheme: "bitsandbytes 4-bit " + r.bnbT, Tensors: ts, Decode: &Decoding{Code: "table4", Round: "state"}}, ""
	}
	return nil, "not a weight its quantizer converts"
}

// mxfp4Experts is GPT-OSS's MXFP4 expert stack (transformers' mxfp4
// quantizer): the parameter P [E, in, out] is stored as P_blocks U8 [E,
// out, in/32, 16] and P_scales U8 [E, out, in/32] (E8M0 exponents).
func mxfp4Experts(w Weight) *Form {
	if len(w.Shape) != 3 {
		return nil
	}
	e, in, out := w.Shape[0], w.Shape[1], w.Shape[2]
	// integrations/mxfp4.py convert_moe_packed_tensors: lut[nibble]
	// (low first) ldexp'd by scale − 127 in bf16, then transposed.
	return &Form{Scheme: "MXFP4 (GPT-OSS experts)", Tensors: []Stored{
		{Name: w.Name + "_blocks", DTypes: u8, Shape: []uint64{e, out, ceil(in, 32), 16}, Values: true},
		{Name: w.Name + "_scales", DTypes: u8, Shape: []uint64{e, out, ceil(in, 32)}},
	}, Decode: &Decoding{Code: "fp4", ScaleE8M0: true, Round: "bf16", Block: [2]uint64{1, 32}, Transposed: true}}
}

// KVScale reports whether name is a KV-cache scale the config asks for
// (k_scale, v_scale, and compressed-tensors' q_scale of attention).
func (r *Rules) KVScale(name string) bool {
	if r == nil || !r.kv {
		return false
	}
	for _, s := range []string{".k_scale", ".v_scale", ".q_scale", ".k_zero_point", ".v_zero_point"} {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// ---- compressed-tensors ----

type ctArgs struct {
	NumBits   uint64   `json:"num_bits"`
	Type      string   `json:"type"`
	Strategy  string   `json:"strategy"`
	GroupSize *uint64  `json:"group_size"`
	Block     []uint64 `json:"block_structure"`
	Symmetric *bool    `json:"symmetric"`
	Dynamic   any      `json:"dynamic"`
	Actorder  any      `json:"actorder"`
	ScaleDT   *string  `json:"scale_dtype"`
	ZPDT      *string  `json:"zp_dtype"`
}

type ctGroup struct {
	name    string
	Targets []string `json:"targets"`
	Weights *ctArgs  `json:"weights"`
	Input   *ctArgs  `json:"input_activations"`
	Output  *ctArgs  `json:"output_activations"`
	Format  string   `json:"format"`
	targets []matcher
}

type ctConfig struct {
	groups []*ctGroup
	ignore []matcher
	format string
	sparse *ctSparse
}

// matcher is one of compressed-tensors' targets: a module name, a "re:"
// regular expression (matched at the start of the name, as re.match), or
// a class name.
type matcher struct {
	name  string
	re    *regexp.Regexp
	class string
}

func newMatcher(s string) (matcher, error) {
	if p, ok := strings.CutPrefix(s, "re:"); ok {
		re, err := regexp.Compile(`^(?:` + p + `)`)
		if err != nil {
			return matcher{}, fmt.Errorf("target %q: %v", s, err)
		}
		return matcher{re: re}, nil
	}
	if !strings.Contains(s, ".") && s != "" && s[0] >= 'A' && s[0] <= 'Z' {
		return matcher{class: s, name: s}, nil
	}
	return matcher{name: s}, nil
}

// match reports whether the module of w matches, and how (3 a name, 2 a
// regular expression, 1 a class: the library prefers a name to a
// regular expression to a class).
func (m matcher) match(w Weight) int {
	mod, alias := w.Module(), runtimeName(w.Module())
	switch {
	case m.re != nil:
		if m.re.MatchString(mod) || alias != "" && m.re.MatchString(alias) {
			return 2
		}
	case m.name == mod || alias != "" && m.name == alias:
		return 3
	case m.class == "Linear":
		if w.Kind == Linear || w.Kind == Head {
			return 1
		}
	case m.class == "Embedding":
		if w.Kind == Embedding {
			return 1
		}
	}
	return 0
}

// runtimeNames are transformers' checkpoint conversion mappings of the
// multimodal models (Gemma 3, LLaVA, …): a checkpoint saved by 4.5x
// names a module language_model.model.X where the running model, whose
// names a quantizer's targets and ignore list give, has
// model.language_model.X.
var runtimeNames = [][2]string{
	{"language_model.model.", "model.language_model."},
	{"language_model.lm_head", "lm_head"},
	{"vision_tower.", "model.vision_tower."},
	{"multi_modal_projector.", "model.multi_modal_projector."},
}

// runtimeName is the running model's name of a saved module, or "".
func runtimeName(mod string) string {
	for _, p := range runtimeNames {
		if rest, ok := strings.CutPrefix(mod, p[0]); ok {
			return p[1] + rest
		}
	}
	return ""
}

// knownClasses are the class names a target may give that the rules
// model.
var knownClasses = map[string]bool{"Linear": true, "Embedding": true}

func (r *Rules) loadCT(section []byte) error {
	var q struct {
		Groups   map[string]json.RawMessage `json:"config_groups"`
		Ignore   []string                   `json:"ignore"`
		Format   string                     `json:"format"`
		KV       json.RawMessage            `json:"kv_cache_scheme"`
		Sparsity json.RawMessage            `json:"sparsity_config"`
		Trans    json.RawMessage            `json:"transform_config"`
	}
	if err := json.Unmarshal(section, &q); err != nil {
		return fmt.Errorf("compressed-tensors config: %v", err)
	}
	c := &ctConfig{format: q.Format}
	r.ct = c
	r.kv = len(q.KV) > 0 && string(q.KV) != "null"
	if len(q.Sparsity) > 0 && string(q.Sparsity) != "null" {
		if err := c.loadSparsity(q.Sparsity); err != nil {
			r.Partial = err.Error()
		}
	}
	var tr map[string]any
	if len(q.Trans) > 0 && json.Unmarshal(q.Trans, &tr) == nil && len(tr) > 0 {
		if cfg, ok := tr["config_groups"].(map[string]any); ok && len(cfg) > 0 {
			r.Partial = "compressed-tensors transforms are not modelled"
		}
	}
	for _, s := range q.Ignore {
		m, err := newMatcher(s)
		if err != nil {
			return fmt.Errorf("compressed-tensors ignore: %v", err)
		}
		c.ignore = append(c.ignore, m)
	}
	names := make([]string, 0, len(q.Groups))
	for k := range q.Groups {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		g := &ctGroup{name: k}
		if err := json.Unmarshal(q.Groups[k], g); err != nil {
			return fmt.Errorf("compressed-tensors group %s: %v", k, err)
		}
		if g.Format == "" {
			g.Format = q.Format
		}
		for _, t := range g.Targets {
			m, err := newMatcher(t)
			if err != nil {
				return fmt.Errorf("compressed-tensors group %s: %v", k, err)
			}
			if m.class != "" && !knownClasses[m.class] && r.Partial == "" {
				r.Partial = fmt.Sprintf("compressed-tensors target class %q is not modelled", m.class)
			}
			g.targets = append(g.targets, m)
		}
		if g.Weights != nil {
			if why := g.understood(); why != "" && r.Partial == "" {
				r.Partial = "compressed-tensors " + why
			}
		}
		c.groups = append(c.groups, g)
	}
	return nil
}

// understood says what of the group's scheme the rules do not model.
func (g *ctGroup) understood() string {
	w := g.Weights
	switch g.Format {
	case "pack-quantized", "int-quantized", "naive-quantized", "float-quantized", "nvfp4-pack-quantized", "mxfp4-pack-quantized", "mxfp8-quantized", "dense":
	default:
		return fmt.Sprintf("format %q is not modelled", g.Format)
	}
	switch w.Strategy {
	case "tensor", "channel", "group", "tensor_group", "block":
	default:
		return fmt.Sprintf("weight strategy %q is not modelled", w.Strategy)
	}
	if (w.Strategy == "group" || w.Strategy == "tensor_group") && (w.GroupSize == nil || *w.GroupSize == 0) {
		return "a group strategy without group_size"
	}
	if w.Strategy == "block" && len(w.Block) != 2 {
		return "a block strategy without block_structure [bn, bk]"
	}
	if w.NumBits == 0 || w.NumBits > 8 {
		return fmt.Sprintf("weights of %d bits", w.NumBits)
	}
	return ""
}

func (c *ctConfig) expect(w Weight) (*Form, string) {
	best, how := (*ctGroup)(nil), 0
	for _, g := range c.groups {
		for _, m := range g.targets {
			if k := m.match(w); k > how {
				best, how = g, k
			}
		}
	}
	var f *Form
	why := ""
	switch {
	case best == nil:
		why = "no config group targets it"
	case slices.ContainsFunc(c.ignore, func(m matcher) bool { return m.match(w) > 0 }):
		why = "ignore"
	case best.Weights == nil || best.Format == "dense":
		why = "its group quantizes activations only"
	default:
		f = best.form(w)
	}
	if c.sparse != nil && c.sparse.targets(w) {
		return c.sparse.form(w, f), ""
	}
	return f, why
}

// scaleDTypes reads a scale_dtype ("torch.float8_e4m3fn"); nil accepts
// any float.
func scaleDTypes(s *string) []tensor.DType {
	if s == nil {
		return floats
	}
	switch strings.TrimPrefix(*s, "torch.") {
	case "float8_e4m3fn":
		return f8
	case "uint8":
		return u8
	}
	return floats
}

// scaleShape is the shape of a weight scale (or zero point) of strategy
// st (compressed-tensors' lifecycle/initialize.py).
func scaleShape(a *ctArgs, lead []uint64, o, i uint64) []uint64 {
	switch a.Strategy {
	case "tensor":
		return []uint64{1}
	case "channel":
		return with(lead, o, 1)
	case "group", "tensor_group":
		return with(lead, o, ceil(i, *a.GroupSize))
	case "block":
		return with(lead, ceil(o, a.Block[0]), ceil(i, a.Block[1]))
	}
	return nil
}

func (g *ctGroup) form(w Weight) *Form {
	a := g.Weights
	base := w.Module()
	lead, o, i := outIn(w)
	sym := a.Symmetric == nil || *a.Symmetric
	scale := Stored{Name: base + ".weight_scale", DTypes: scaleDTypes(a.ScaleDT), Shape: scaleShape(a, lead, o, i)}
	var ts []Stored
	scheme := fmt.Sprintf("compressed-tensors %s %s%d %s", g.Format, a.Type, a.NumBits, a.Strategy)
	if a.Strategy == "group" || a.Strategy == "tensor_group" {
		scheme += fmt.Sprintf(" g%d", *a.GroupSize)
	}
	switch g.Format {
	case "pack-quantized":
		ts = append(ts, Stored{Name: base + ".weight_packed", DTypes: i32, Shape: with(lead, o, ceil(i*a.NumBits, 32)), Values: true},
			scale, Stored{Name: base + ".weight_shape", DTypes: []tensor.DType{tensor.I64, tensor.I32}, Shape: []uint64{uint64(len(w.Shape))}})
		if !sym {
			zp := scaleShape(a, lead, o, i)
			if a.Strategy == "group" || a.Strategy == "channel" {
				// Packed along the output dimension.
				zp = with(lead, ceil(o*a.NumBits, 32), zp[len(zp)-1])
				ts = append(ts, Stored{Name: base + ".weight_zero_point", DTypes: i32, Shape: zp})
			} else {
				ts = append(ts, Stored{Name: base + ".weight_zero_point", DTypes: nil, Shape: zp, AnyShape: false})
			}
		}
	case "nvfp4-pack-quantized":
		ts = append(ts, Stored{Name: base + ".weight_packed", DTypes: u8, Shape: with(lead, o, ceil(i, 2)), Values: true},
			Stored{Name: base + ".weight_scale", DTypes: f8, Shape: with(lead, o, ceil(i, *a.GroupSize))},
			Stored{Name: base + ".weight_global_scale", DTypes: f32, Shape: []uint64{1}})
	case "mxfp4-pack-quantized":
		ts = append(ts, Stored{Name: base + ".weight_packed", DTypes: u8, Shape: with(lead, o, ceil(i, 2)), Values: true},
			Stored{Name: base + ".weight_scale", DTypes: u8, Shape: with(lead, o, ceil(i, *a.GroupSize))})
	default: // int-, naive-, float-quantized, mxfp8-quantized: the weight in its 8-bit type
		dt := []tensor.DType{tensor.I8}
		if a.Type == "float" {
			dt = []tensor.DType{tensor.F8_E4M3}
		}
		if g.Format == "mxfp8-quantized" {
			scale.DTypes = scaleDTypes(a.ScaleDT)
			if a.ScaleDT == nil {
				scale.DTypes = u8
			}
		}
		ts = append(ts, Stored{Name: w.Name, DTypes: dt, Shape: w.Shape, Values: true}, scale)
		if !sym {
			ts = append(ts, Stored{Name: base + ".weight_zero_point", Shape: scaleShape(a, lead, o, i), DTypes: []tensor.DType{tensor.I8, tensor.I32, tensor.F8_E4M3, tensor.BF16, tensor.F16, tensor.F32}})
		}
	}
	switch a.Actorder {
	case nil, "weight", false:
	case "group", true:
		ts = append(ts, Stored{Name: base + ".weight_g_idx", DTypes: i32, Shape: []uint64{i}})
	default:
		ts = append(ts, Stored{Name: base + ".weight_g_idx", DTypes: i32, Shape: []uint64{i}, Optional: true})
	}
	if in := g.Input; in != nil {
		switch {
		case in.Strategy == "tensor_group":
			// Saved by 0.18 although the compressor does not list it.
			ts = append(ts, Stored{Name: base + ".input_global_scale", DTypes: f32, Shape: []uint64{1}, Optional: true})
		case in.Dynamic == false:
			sh := []uint64{1}
			if in.Strategy != "tensor" {
				sh = nil
			}
			ts = append(ts, Stored{Name: base + ".input_scale", DTypes: floats, Shape: sh, AnyShape: sh == nil})
			if in.Symmetric != nil && !*in.Symmetric {
				ts = append(ts, Stored{Name: base + ".input_zero_point", Shape: sh, AnyShape: sh == nil, DTypes: []tensor.DType{tensor.I8, tensor.I32, tensor.BF16, tensor.F16, tensor.F32}})
			}
		}
	}
	if out := g.Output; out != nil && out.Dynamic == false {
		ts = append(ts, Stored{Name: base + ".output_scale", DTypes: floats, AnyShape: true})
	}
	f := &Form{Scheme: scheme, Tensors: ts, Decode: g.decoding(lead)}
	if g.Format == "pack-quantized" && !sym && (a.Strategy == "group" || a.Strategy == "channel") {
		// Versions before the zero point was packed saved it as is.
		alt := &Form{Scheme: scheme, Tensors: slices.Clone(ts), Decode: g.decoding(lead)}
		for k := range alt.Tensors {
			if strings.HasSuffix(alt.Tensors[k].Name, ".weight_zero_point") {
				alt.Tensors[k].DTypes = []tensor.DType{tensor.I8, tensor.I32}
				alt.Tensors[k].Shape = scaleShape(a, lead, o, i)
			}
		}
		alt.Decode.ZeroPacked = false
		f.Alt = append(f.Alt, alt)
	}
	return f
}

// decoding is how compressed-tensors decompresses the group's weights:
// dequantize() in the scale's dtype, FP4 formats in BF16.
func (g *ctGroup) decoding(lead []uint64) *Decoding {
	a := g.Weights
	d := &Decoding{Bits: int(a.NumBits), Round: "scale"}
	switch a.Strategy {
	case "group", "tensor_group":
		d.Block = [2]uint64{1, *a.GroupSize}
	case "block":
		if len(lead) > 0 {
			return nil
		}
		d.Block = [2]uint64{a.Block[0], a.Block[1]}
	}
	sym := a.Symmetric == nil || *a.Symmetric
	switch g.Format {
	case "pack-quantized":
		d.Code, d.Signed = "int", true
		d.ZeroPacked = !sym && (a.Strategy == "group" || a.Strategy == "channel")
	case "nvfp4-pack-quantized":
		d.Code, d.GlobalDivides, d.Round = "fp4", true, "bf16"
	case "mxfp4-pack-quantized":
		d.Code, d.ScaleE8M0, d.Round = "fp4", true, "bf16"
	case "mxfp8-quantized":
		d.Code, d.ScaleE8M0, d.Round = "element", true, "bf16"
	case "int-quantized", "naive-quantized", "float-quantized":
		d.Code = "element"
	default:
		return nil
	}
	return d
}

// ---- NVIDIA ModelOpt ----

type moConfig struct {
	algo    string
	group   uint64
	exclude []string
	perMod  map[string]moLayer // MIXED_PRECISION
}

type moLayer struct {
	Algo  string `json:"quant_algo"`
	Group uint64 `json:"group_size"`
}

func (r *Rules) loadModelOptFile(b []byte) error {
	var f struct {
		Q struct {
			Algo    string             `json:"quant_algo"`
			KV      *string            `json:"kv_cache_quant_algo"`
			Group   uint64             `json:"group_size"`
			Exclude []string           `json:"exclude_modules"`
			Layers  map[string]moLayer `json:"quantized_layers"`
		} `json:"quantization"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return fmt.Errorf("hf_quant_config.json: %v", err)
	}
	r.kv = f.Q.KV != nil && *f.Q.KV != ""
	return r.setModelOpt(f.Q.Algo, f.Q.Group, f.Q.Exclude, f.Q.Layers)
}

func (r *Rules) loadModelOpt(section []byte) error {
	var q struct {
		Algo    string             `json:"quant_algo"`
		KVAlgo  *string            `json:"kv_cache_quant_algo"`
		KV      json.RawMessage    `json:"kv_cache_scheme"`
		Group   uint64             `json:"group_size"`
		Ignore  []string           `json:"ignore"`
		Exclude []string           `json:"exclude_modules"`
		Layers  map[string]moLayer `json:"quantized_layers"`
		Groups  map[string]struct {
			W struct {
				Group uint64 `json:"group_size"`
			} `json:"weights"`
		} `json:"config_groups"`
	}
	if err := json.Unmarshal(section, &q); err != nil {
		return fmt.Errorf("modelopt config: %v", err)
	}
	r.kv = q.KVAlgo != nil && *q.KVAlgo != "" || len(q.KV) > 0 && string(q.KV) != "null"
	if q.Group == 0 {
		for _, g := range q.Groups {
			q.Group = g.W.Group
		}
	}
	return r.setModelOpt(q.Algo, q.Group, append(q.Ignore, q.Exclude...), q.Layers)
}

func (r *Rules) setModelOpt(algo string, group uint64, exclude []string, layers map[string]moLayer) error {
	algo = strings.ToUpper(algo)
	r.mo = &moConfig{algo: algo, group: group, exclude: exclude, perMod: layers}
	algos := []string{algo}
	if algo == "MIXED_PRECISION" {
		algos = algos[:0]
		for _, l := range layers {
			algos = append(algos, strings.ToUpper(l.Algo))
		}
	}
	for _, a := range algos {
		if !moKnown[a] {
			r.Partial = fmt.Sprintf("ModelOpt quant_algo %q is not modelled", a)
		}
	}
	return nil
}

var moKnown = map[string]bool{"FP8": true, "NVFP4": true, "NVFP4_AWQ": true, "INT4_AWQ": true, "W4A8_AWQ": true,
	"FP8_PER_CHANNEL_PER_TOKEN": true, "FP8_PB_WO": true, "W4A16_AWQ": true}

// excluded matches ModelOpt's exclude_modules (fnmatch patterns).
func (c *moConfig) excluded(module string) bool {
	alias := runtimeName(module)
	for _, p := range c.exclude {
		for _, m := range []string{module, alias} {
			if m == "" {
				continue
			}
			if ok, _ := path.Match(p, m); ok || p == m {
				return true
			}
		}
	}
	return false
}

func (c *moConfig) expect(w Weight) (*Form, string) {
	if w.Kind == Embedding {
		return nil, "ModelOpt keeps embeddings"
	}
	mod := w.Module()
	if c.excluded(mod) {
		return nil, "exclude_modules"
	}
	algo, group := c.algo, c.group
	if algo == "MIXED_PRECISION" {
		l, ok := c.perMod[mod]
		if !ok {
			return nil, "not in quantized_layers"
		}
		algo, group = strings.ToUpper(l.Algo), l.Group
	}
	lead, o, i := outIn(w)
	if len(lead) > 0 {
		return nil, "a stacked weight"
	}
	if group == 0 {
		group = 16
		if strings.Contains(algo, "AWQ") && !strings.HasPrefix(algo, "NVFP4") {
			group = 128
		}
	}
	f := func(dims ...uint64) []uint64 { return dims }
	scalar := []uint64{}
	switch algo {
	case "FP8":
		return &Form{Scheme: "ModelOpt FP8 per tensor", Tensors: []Stored{
			{Name: w.Name, DTypes: f8, Shape: f(o, i), Values: true},
			{Name: mod + ".weight_scale", DTypes: f32, Shape: scalar},
			{Name: mod + ".input_scale", DTypes: f32, Shape: scalar},
		}, Decode: &Decoding{Code: "element"}}, ""
	case "FP8_PER_CHANNEL_PER_TOKEN":
		return &Form{Scheme: "ModelOpt FP8 per channel", Tensors: []Stored{
			{Name: w.Name, DTypes: f8, Shape: f(o, i), Values: true},
			{Name: mod + ".weight_scale", DTypes: floats, Shape: f(o), AnyShape: true},
		}}, ""
	case "FP8_PB_WO":
		return &Form{Scheme: "ModelOpt FP8 per block", Tensors: []Stored{
			{Name: w.Name, DTypes: f8, Shape: f(o, i), Values: true},
			{Name: mod + ".weight_scale", DTypes: floats, AnyShape: true},
		}}, ""
	case "NVFP4", "NVFP4_AWQ":
		ts := []Stored{
			{Name: w.Name, DTypes: u8, Shape: f(o, ceil(i, 2)), Values: true},
			{Name: mod + ".weight_scale", DTypes: f8, Shape: f(o, ceil(i, group))},
			{Name: mod + ".weight_scale_2", DTypes: f32, Shape: scalar},
			{Name: mod + ".input_scale", DTypes: f32, Shape: scalar},
		}
		if algo == "NVFP4_AWQ" {
			ts = append(ts, Stored{Name: mod + ".pre_quant_scale", DTypes: floats, Shape: f(i)})
		}
		return &Form{Scheme: "ModelOpt " + algo, Tensors: ts, Decode: &Decoding{Code: "fp4", Block: [2]uint64{1, group}}}, ""
	case "INT4_AWQ", "W4A16_AWQ", "W4A8_AWQ":
		ts := []Stored{
			// Packed along the output dimension (pack_int4_in_uint8).
			{Name: w.Name, DTypes: u8, Shape: f(ceil(o, 2), i), Values: true},
			{Name: mod + ".weight_scale", DTypes: floats, Shape: f(o, ceil(i, group))},
			{Name: mod + ".pre_quant_scale", DTypes: floats, Shape: f(i)},
		}
		if algo == "W4A8_AWQ" {
			ts = append(ts, Stored{Name: mod + ".weight_scale_2", DTypes: f32, Shape: scalar},
				Stored{Name: mod + ".input_scale", DTypes: f32, Shape: scalar})
		}
		// code · weight_scale (· weight_scale_2) · pre_quant_scale[i]:
		// the weight the layer applies to its unscaled input.
		return &Form{Scheme: "ModelOpt " + algo, Tensors: ts, Decode: &Decoding{Code: "int4out", Block: [2]uint64{1, group}, Round: "scale"}}, ""
	}
	return nil, "quant_algo " + algo
}

// ---- MLX ----

type mlxSettings struct {
	Group uint64 `json:"group_size"`
	Bits  uint64 `json:"bits"`
	Mode  string `json:"mode"`
}

type mlxConfig struct {
	top   mlxSettings
	paths map[string]*mlxSettings // nil: false (left unquantized)
}

// mlxDefaults are mlx's defaults by mode (group size, bits).
var mlxDefaults = map[string][2]uint64{"affine": {64, 4}, "mxfp4": {32, 4}, "nvfp4": {16, 4}, "mxfp8": {32, 8}}

func (s *mlxSettings) fill(parent mlxSettings) error {
	if s.Mode == "" {
		s.Mode = parent.Mode
	}
	d, ok := mlxDefaults[s.Mode]
	if !ok {
		return fmt.Errorf("MLX quantization mode %q", s.Mode)
	}
	if s.Group == 0 {
		s.Group = parent.Group
		if s.Group == 0 || s.Mode != parent.Mode {
			s.Group = d[0]
		}
	}
	if s.Bits == 0 {
		s.Bits = parent.Bits
		if s.Bits == 0 || s.Mode != parent.Mode {
			s.Bits = d[1]
		}
	}
	return nil
}

func (r *Rules) loadMLX(section []byte) error {
	r.Method = "mlx"
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(section, &raw); err != nil {
		return fmt.Errorf("MLX quantization: %v", err)
	}
	c := &mlxConfig{paths: map[string]*mlxSettings{}}
	if err := json.Unmarshal(section, &c.top); err != nil {
		return fmt.Errorf("MLX quantization: %v", err)
	}
	if c.top.Mode == "" {
		c.top.Mode = "affine"
	}
	if err := c.top.fill(mlxSettings{Mode: c.top.Mode}); err != nil {
		r.Partial = err.Error() + " is not modelled"
		return nil
	}
	if c.top.Mode == "affine" && (c.top.Bits < 2 || c.top.Bits > 8 || c.top.Bits == 7) {
		r.Partial = fmt.Sprintf("MLX affine quantization of %d bits is not modelled", c.top.Bits)
	}
	for k, v := range raw {
		switch k {
		case "group_size", "bits", "mode", "quant_method":
			continue
		}
		if string(v) == "false" {
			c.paths[k] = nil
			continue
		}
		var s mlxSettings
		if json.Unmarshal(v, &s) != nil {
			continue // not a path's settings
		}
		if err := s.fill(c.top); err != nil {
			r.Partial = err.Error() + " is not modelled"
			continue
		}
		c.paths[k] = &s
	}
	r.mlx = c
	return nil
}

func (c *mlxConfig) expect(w Weight) (*Form, string) {
	mod := w.Module()
	s, ok := c.paths[mod]
	switch {
	case ok && s == nil:
		return nil, "false in the quantization section"
	case !ok:
		s = &c.top
	}
	lead, o, i := outIn(w)
	if i%s.Group != 0 {
		return nil, fmt.Sprintf("its input width %d is not a multiple of group_size %d", i, s.Group)
	}
	scheme := fmt.Sprintf("MLX %s %d-bit g%d", s.Mode, s.Bits, s.Group)
	ts := []Stored{{Name: w.Name, DTypes: []tensor.DType{tensor.U32}, Shape: with(lead, o, ceil(i*s.Bits, 32)), Values: true}}
	d := &Decoding{Bits: int(s.Bits), Block: [2]uint64{1, s.Group}}
	switch s.Mode {
	case "affine":
		ts = append(ts, Stored{Name: mod + ".scales", DTypes: floats, Shape: with(lead, o, i/s.Group)},
			Stored{Name: mod + ".biases", DTypes: floats, Shape: with(lead, o, i/s.Group)})
		d.Code, d.Round, d.RoundAdd = "int", "scale", "scale"
	default:
		ts = append(ts, Stored{Name: mod + ".scales", DTypes: u8, Shape: with(lead, o, i/s.Group)})
		d.Code, d.ScaleE8M0 = "fp4", true
		switch s.Mode {
		case "nvfp4":
			d.ScaleE8M0, d.ScaleE4M3 = false, true
		case "mxfp8":
			d.Code = "element"
		}
	}
	return &Form{Scheme: scheme, Tensors: ts, Decode: d}, ""
}

// Restack is mlx-lm's renaming of a model's weights (its models'
// sanitize): an MoE layer's experts stacked into one SwitchLinear
// (mlp.experts.E.X_proj → mlp.switch_mlp.X_proj [E, out, in]) and
// DeepSeek's kv_b_proj split into embed_q [H, kv_lora, nope] and
// unembed_out [H, v_head, kv_lora]. has says whether the files hold a
// tensor: a rename applies only where the files have its result. It
// returns the weights as the files should hold them and, for each new
// weight, the old weights it replaces.
func (r *Rules) Restack(ws []Weight, has func(name string) bool) (out []Weight, from map[string][]string) {
	if r == nil || r.Method != "mlx" {
		return ws, nil
	}
	from = map[string][]string{}
	type stack struct {
		w     Weight
		n     uint64
		names []string
	}
	stacks := map[string]*stack{}
	var order []string
	for _, w := range ws {
		if m := expertRe.FindStringSubmatch(w.Name); m != nil && len(w.Shape) == 2 {
			name := m[1] + "switch_mlp." + m[3]
			if has(name) {
				s := stacks[name]
				if s == nil {
					s = &stack{w: Weight{Name: name, Kind: Linear}}
					stacks[name] = s
					order = append(order, name)
					out = append(out, Weight{Name: name}) // placeholder, filled below
				}
				s.n++
				s.w.Shape = []uint64{s.n, w.Shape[0], w.Shape[1]}
				s.names = append(s.names, w.Name)
				continue
			}
		}
		if pre, ok := strings.CutSuffix(w.Name, ".experts.gate_up_proj"); ok && len(w.Shape) == 3 && has(pre+".experts.gate_proj.weight") {
			// GPT-OSS: [E, H, 2I] split into gate_proj and up_proj
			// [E, I, H] (gpt_oss.py's sanitize, from the MXFP4 blocks).
			e, h, i2 := w.Shape[0], w.Shape[1], w.Shape[2]
			for _, x := range []string{".experts.gate_proj.weight", ".experts.up_proj.weight"} {
				out = append(out, Weight{Name: pre + x, Kind: Linear, Shape: []uint64{e, i2 / 2, h}})
				from[pre+x] = []string{w.Name}
			}
			continue
		}
		if pre, ok := strings.CutSuffix(w.Name, ".experts.down_proj"); ok && len(w.Shape) == 3 && has(pre+".experts.down_proj.weight") {
			out = append(out, Weight{Name: pre + ".experts.down_proj.weight", Kind: Linear, Shape: []uint64{w.Shape[0], w.Shape[2], w.Shape[1]}})
			from[pre+".experts.down_proj.weight"] = []string{w.Name}
			continue
		}
		if strings.HasSuffix(w.Name, ".self_attn.kv_b_proj.weight") && len(w.Shape) == 2 {
			pre := strings.TrimSuffix(w.Name, "kv_b_proj.weight")
			d := r.cfg
			if has(pre+"embed_q.weight") && d.Heads > 0 && d.Nope > 0 && d.VHead > 0 && w.Shape[0] == d.Heads*(d.Nope+d.VHead) {
				kv := w.Shape[1]
				eq, uo := pre+"embed_q.weight", pre+"unembed_out.weight"
				out = append(out, Weight{Name: eq, Kind: Linear, Shape: []uint64{d.Heads, kv, d.Nope}},
					Weight{Name: uo, Kind: Linear, Shape: []uint64{d.Heads, d.VHead, kv}})
				from[eq], from[uo] = []string{w.Name}, []string{w.Name}
				continue
			}
		}
		out = append(out, w)
	}
	for i := range out {
		if s := stacks[out[i].Name]; s != nil && out[i].Shape == nil {
			out[i] = s.w
			from[s.w.Name] = s.names
		}
	}
	_ = order
	return out, from
}

// RenamePlain is Restack for a tensor that is no weight (a bias): the
// tensors the files hold for it under the converter's names, with their
// shapes, and true; false when it keeps its name. GPT-OSS's
// gate_up_proj_bias [E, 2I] becomes gate_proj.bias and up_proj.bias
// [E, I], its down_proj_bias down_proj.bias.
func (r *Rules) RenamePlain(name string, shape []uint64, has func(string) bool) ([]Weight, bool) {
	if r == nil || r.Method != "mlx" {
		return nil, false
	}
	if pre, ok := strings.CutSuffix(name, ".experts.gate_up_proj_bias"); ok && len(shape) == 2 && has(pre+".experts.gate_proj.bias") {
		half := []uint64{shape[0], shape[1] / 2}
		return []Weight{{Name: pre + ".experts.gate_proj.bias", Shape: half}, {Name: pre + ".experts.up_proj.bias", Shape: half}}, true
	}
	if pre, ok := strings.CutSuffix(name, ".experts.down_proj_bias"); ok && has(pre+".experts.down_proj.bias") {
		return []Weight{{Name: pre + ".experts.down_proj.bias", Shape: shape}}, true
	}
	return nil, false
}

var expertRe = regexp.MustCompile(`^(.*\.)experts\.(\d+)\.((?:gate|up|down|w1|w2|w3)_proj\.weight|w[123]\.weight)$`)

// Dropped reports whether a converter drops the tensor: mlx-lm keeps a
// multimodal model's language model only (gemma3's sanitize drops the
// vision tower and the projector).
func (r *Rules) Dropped(name string) bool {
	if r == nil || r.Method != "mlx" {
		return false
	}
	n := strings.TrimPrefix(name, "model.")
	return strings.HasPrefix(n, "vision_tower.") || strings.HasPrefix(n, "multi_modal_projector.") ||
		strings.HasPrefix(n, "vision_model.") || strings.HasPrefix(n, "visual.")
}

// torchDTypes are the torch dtype names a config may give storage in.
var torchDTypes = map[string]tensor.DType{"uint8": tensor.U8, "int8": tensor.I8, "bfloat16": tensor.BF16,
	"float16": tensor.F16, "float32": tensor.F32, "int32": tensor.I32}
