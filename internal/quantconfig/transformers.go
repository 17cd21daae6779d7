package quantconfig

import (
	"encoding/json"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/tensor"
)

// The rest of transformers' quantizers (src/transformers/quantizers/
// and integrations/ of transformers 5.15): each replaces nn.Linear by a
// module of its library, whose state dict is what the checkpoint holds.
// The file and line of each rule is given where the form is built.

// tfConfig is one of these quantizers' settings.
type tfConfig struct {
	method string
	// AQLM
	inGroup, outGroup, codebooks, cbBits uint64
	// SpQR
	spqrShapes map[string]json.RawMessage
	// HIGGS
	bits, group uint64
	// FP-Quant
	fwd            string
	hadamard       uint64
	master, pseudo bool
	hqq            map[string]*hqqParams // by linear tag; "" for all
	hqqPerTag      bool
	arFormat       string // AutoRound's packing_format
	arSym          bool
	quark          *quarkArgs
	quarkInput     bool
	quarkExclude   []string
	vptq           map[string]*vptqLayer // config_for_layers
	vptqShared     map[string]*vptqLayer
}

type hqqParams struct {
	NBits       uint64 `json:"nbits"`
	Group       *int64 `json:"group_size"`
	Axis        *int   `json:"axis"`
	ViewAsFloat bool   `json:"view_as_float"`
}

type quarkArgs struct {
	DType   string `json:"dtype"`
	QScheme string `json:"qscheme"`
	Group   *int64 `json:"group_size"`
	ChAxis  *int   `json:"ch_axis"`
	Sym     *bool  `json:"symmetric"`
	Dynamic *bool  `json:"is_dynamic"`
}

func intOr(raw json.RawMessage, def uint64) uint64 {
	var v uint64
	if len(raw) == 0 || string(raw) == "null" || json.Unmarshal(raw, &v) != nil {
		return def
	}
	return v
}

// loadTF reads the section of HQQ, torchao, quanto, HIGGS, VPTQ, AQLM,
// SpQR, FP-Quant, Quark or AutoRound (torchao's only to name it). A setting the rules do not model
// is r.Partial, named.
func (r *Rules) loadTF(section []byte) error {
	var q map[string]json.RawMessage
	if err := json.Unmarshal(section, &q); err != nil {
		return fmt.Errorf("%s config: %v", r.Method, err)
	}
	c := &tfConfig{method: r.Method}
	r.tf = c
	switch r.Method {
	case "higgs", "fp_quant", "spqr", "vptq":
		// No skip list: HIGGS' and FP-Quant's post_init give
		// ["lm_head"]; for the others get_modules_to_not_convert adds
		// the output head (quantizers/base.py:240-241). A list given
		// replaces the default.
		if raw, ok := q["modules_to_not_convert"]; !ok || string(raw) == "null" {
			r.skip = append(r.skip, "lm_head")
		}
	}
	str := func(k, def string) string {
		var s string
		if json.Unmarshal(q[k], &s) != nil || s == "" {
			return def
		}
		return s
	}
	boolean := func(k string, def bool) bool {
		var b bool
		if json.Unmarshal(q[k], &b) != nil {
			return def
		}
		return b
	}
	switch r.Method {
	case "aqlm":
		// utils/quantization_config.py AqlmConfig: in_group_size 8,
		// out_group_size 1, num_codebooks 1, nbits_per_codebook 16;
		// linear_weights_not_to_quantize names weights.
		c.inGroup, c.outGroup = intOr(q["in_group_size"], 8), intOr(q["out_group_size"], 1)
		c.codebooks, c.cbBits = intOr(q["num_codebooks"], 1), intOr(q["nbits_per_codebook"], 16)
		var skip []string
		_ = json.Unmarshal(q["linear_weights_not_to_quantize"], &skip)
		for _, s := range skip {
			r.skip = append(r.skip, strings.TrimSuffix(s, ".weight"))
		}
		if c.inGroup == 0 || c.outGroup == 0 || c.cbBits == 0 || c.cbBits > 64 || c.codebooks == 0 {
			r.Partial = "AQLM with a zero group size or codebook"
		}
	case "spqr":
		// SpQRConfig: bits 3, beta1 = beta2 = 16 (the only ones it
		// accepts) and shapes, each tensor's element count by name.
		_ = json.Unmarshal(q["shapes"], &c.spqrShapes)
		if intOr(q["bits"], 3) != 3 || intOr(q["beta1"], 16) != 16 || intOr(q["beta2"], 16) != 16 {
			r.Partial = "SpQR other than 3 bits in 16×16 tiles"
		}
	case "higgs":
		// HiggsConfig: bits 4, group_size 256, modules_to_not_convert
		// ["lm_head"] (its post_init).
		c.bits, c.group = intOr(q["bits"], 4), intOr(q["group_size"], 256)
		if c.bits < 2 || c.bits > 4 || c.group == 0 {
			r.Partial = fmt.Sprintf("HIGGS with %d bits, group %d", c.bits, c.group)
		}
	case "fp_quant":
		// FPQuantConfig: forward_dtype nvfp4 (groups of 16) or mxfp4
		// (32), store_master_weights, pseudoquantization,
		// hadamard_group_size (16 for nvfp4, else 32).
		c.fwd = str("forward_dtype", "nvfp4")
		c.master, c.pseudo = boolean("store_master_weights", false), boolean("pseudoquantization", false)
		def := uint64(32)
		if c.fwd == "nvfp4" {
			def = 16
		}
		c.hadamard = intOr(q["hadamard_group_size"], def)
		if c.fwd != "nvfp4" && c.fwd != "mxfp4" {
			r.Partial = fmt.Sprintf("FP-Quant forward_dtype %q", c.fwd)
		}
	case "quanto":
		// QuantoHfQuantizer.is_serializable is False
		// (quantizers/quantizer_quanto.py:116): transformers quantizes
		// on load, so the files hold the weights unquantized.
	case "hqq":
		return r.loadHQQ(q)
	case "auto-round", "autoround", "auto_round", "intel/auto-round":
		// AutoRoundConfig: bits 4, group_size 128, sym, packing_format
		// "auto_round:gptq" (or :auto_gptq, :auto_awq, :gptqmodel).
		c.bits, c.arFormat, c.arSym = intOr(q["bits"], 4), str("packing_format", "auto_round:gptq"), boolean("sym", true)
		g := int64(128)
		if raw, ok := q["group_size"]; ok {
			_ = json.Unmarshal(raw, &g)
		}
		if g > 0 {
			c.group = uint64(g)
		}
		if dt := str("data_type", "int"); dt != "int" {
			r.Partial = fmt.Sprintf("AutoRound data_type %q", dt)
		}
		if c.bits != 2 && c.bits != 4 && c.bits != 8 && c.bits != 3 {
			r.Partial = fmt.Sprintf("AutoRound with %d bits", c.bits)
		}
		var extra map[string]map[string]json.RawMessage
		if json.Unmarshal(q["extra_config"], &extra) == nil && len(extra) > 0 {
			for _, e := range extra {
				if _, ok := e["bits"]; ok {
					r.Partial = "AutoRound's per-layer extra_config"
				}
			}
		}
		f := strings.TrimPrefix(c.arFormat, "auto_round:")
		switch {
		case strings.Contains(f, "awq"), strings.Contains(f, "gptq"), f == "auto_round":
		default:
			r.Partial = fmt.Sprintf("AutoRound packing_format %q", c.arFormat)
		}
	case "quark":
		return r.loadQuark(q)
	case "torchao":
		// torchao saves tensor subclasses (quant_type names the
		// workflow), flattened by its own safetensors support: not
		// modelled.
		var qt struct {
			T any `json:"_type"`
		}
		_ = json.Unmarshal(q["quant_type"], &qt)
		what := ""
		if s, ok := qt.T.(string); ok {
			what = " " + s
		} else if s := str("quant_type", ""); s != "" {
			what = " " + s
		}
		r.Partial = "torchao's tensor subclasses" + what + " are not modelled"
	case "vptq":
		// VptqConfig: config_for_layers (a module name → its
		// VptqLayerConfig) and shared_layer_config
		// (integrations/vptq.py:43-46).
		_ = json.Unmarshal(q["config_for_layers"], &c.vptq)
		_ = json.Unmarshal(q["shared_layer_config"], &c.vptqShared)
		for _, l := range append(mapValues(c.vptq), mapValues(c.vptqShared)...) {
			if why := l.understood(); why != "" {
				r.Partial = "VPTQ " + why
				break
			}
		}
	}
	return nil
}

func mapValues(m map[string]*vptqLayer) []*vptqLayer {
	out := make([]*vptqLayer, 0, len(m))
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// vptqLayer is one layer's VptqLayerConfig (utils/quantization_config.py).
type vptqLayer struct {
	VectorLens  []int64 `json:"vector_lens"`
	Centroids   []int64 `json:"num_centroids"`
	ResCentroid []int64 `json:"num_res_centroids"`
	GroupNum    int64   `json:"group_num"`
	GroupSize   int64   `json:"group_size"`
	Outlier     int64   `json:"outlier_size"`
	Norm        bool    `json:"enable_norm"`
	Perm        bool    `json:"enable_perm"`
}

func (l *vptqLayer) understood() string {
	if l == nil {
		return ""
	}
	if len(l.VectorLens) != 2 || len(l.Centroids) != 2 || len(l.ResCentroid) != 2 {
		return "layer config without two vector_lens, num_centroids and num_res_centroids"
	}
	pow2 := func(n int64) bool { return n > 0 && n&(n-1) == 0 }
	if l.VectorLens[1] <= 0 || !pow2(l.Centroids[1]) || l.ResCentroid[1] > 0 && !pow2(l.ResCentroid[1]) || l.GroupNum <= 0 || l.GroupSize <= 0 ||
		l.VectorLens[0] > 1 && l.Centroids[0] > 0 && l.Outlier < 0 {
		return "layer config with a vector length, a group or a centroid count it cannot pack"
	}
	return ""
}

func log2(n int64) uint64 {
	b := uint64(0)
	for n > 1 {
		n >>= 1
		b++
	}
	return b
}

// vptqForm is VPTQ's VQuantLinear (vptq/layers/vqlinear.py) as
// transformers builds it (is_indice_packed true, vector_quant_dim
// "out"): centroids.weight [group_num, num_centroids·vector_len],
// indices I32 [group_num, ceil(out/vector_len), ceil(group_size ·
// index bits/32)] (the index bits of the centroids and the residual
// centroids), res_centroids.weight with residual centroids,
// outlier_centroids.weight [1, n·len] and outlier_indices I16 [1,
// ceil(out/len), outlier_size] with outliers (vector_lens[0] > 1 and
// num_centroids[0] > 0), weight_scale and weight_bias [in] with
// enable_norm, perm I16 [in] with enable_perm.
func (c *tfConfig) vptqForm(w Weight) (*Form, string) {
	base := w.Module()
	_, o, i := outIn(w)
	l := c.vptq[base]
	if l == nil {
		// transformers' lookup: module_name.rsplit(".")[1].
		if parts := strings.Split(base, "."); len(parts) > 1 {
			l = c.vptqShared[parts[1]]
		}
	}
	if l == nil {
		return nil, "config_for_layers does not name it"
	}
	vl := uint64(l.VectorLens[1])
	bits := log2(l.Centroids[1])
	if l.ResCentroid[1] > 0 {
		bits += log2(l.ResCentroid[1])
	}
	g := uint64(l.GroupNum)
	ts := []Stored{
		{Name: base + ".indices", DTypes: i32, Shape: []uint64{g, ceil(o, vl), ceil(uint64(l.GroupSize)*bits, 32)}, Values: true},
		{Name: base + ".centroids.weight", DTypes: floats, Shape: []uint64{g, uint64(l.Centroids[1]) * vl}},
	}
	if l.ResCentroid[1] > 0 {
		ts = append(ts, Stored{Name: base + ".res_centroids.weight", DTypes: floats, Shape: []uint64{g, uint64(l.ResCentroid[1]) * vl}})
	}
	if l.VectorLens[0] > 1 && l.Centroids[0] > 0 {
		ovl := uint64(l.VectorLens[0])
		ts = append(ts, Stored{Name: base + ".outlier_centroids.weight", DTypes: floats, Shape: []uint64{1, uint64(l.Centroids[0]) * ovl}},
			Stored{Name: base + ".outlier_indices", DTypes: []tensor.DType{tensor.I16}, Shape: []uint64{1, ceil(o, ovl), uint64(l.Outlier)}})
	}
	if l.Norm {
		ts = append(ts, Stored{Name: base + ".weight_scale", DTypes: floats, Shape: []uint64{i}},
			Stored{Name: base + ".weight_bias", DTypes: floats, Shape: []uint64{i}})
	}
	if l.Perm {
		ts = append(ts, Stored{Name: base + ".perm", DTypes: []tensor.DType{tensor.I16}, Shape: []uint64{i}})
	}
	return &Form{Scheme: fmt.Sprintf("VPTQ v%d %d-bit", vl, bits), Tensors: ts}, ""
}

// loadHQQ reads HqqConfig.to_dict: quant_config is hqq's
// BaseQuantizeConfig (weight_quant_params …) or, with dynamic_config, a
// map from a linear tag ("self_attn.q_proj") to one; skip_modules
// (utils/quantization_config.py HqqConfig).
func (r *Rules) loadHQQ(q map[string]json.RawMessage) error {
	c := r.tf
	var skip []string
	if err := json.Unmarshal(q["skip_modules"], &skip); err == nil {
		r.skip = append(r.skip, skip...)
	} else if _, ok := q["skip_modules"]; !ok {
		r.skip = append(r.skip, "lm_head")
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(q["quant_config"], &top); err != nil {
		r.Partial = "HQQ without a quant_config"
		return nil
	}
	one := func(raw json.RawMessage) (*hqqParams, string) {
		var b struct {
			W     *hqqParams      `json:"weight_quant_params"`
			Scale json.RawMessage `json:"scale_quant_params"`
			Zero  json.RawMessage `json:"zero_quant_params"`
		}
		if json.Unmarshal(raw, &b) != nil || b.W == nil {
			return nil, "an HQQ layer config without weight_quant_params"
		}
		for _, x := range []json.RawMessage{b.Scale, b.Zero} {
			if len(x) > 0 && string(x) != "null" {
				return nil, "HQQ's quantized scales or zeros (scale_quant_params)"
			}
		}
		switch b.W.NBits {
		case 1, 2, 3, 4, 8:
		default:
			return nil, fmt.Sprintf("HQQ with %d bits", b.W.NBits)
		}
		return b.W, ""
	}
	c.hqq = map[string]*hqqParams{}
	if _, ok := top["weight_quant_params"]; ok {
		p, why := one(q["quant_config"])
		if why != "" {
			r.Partial = why
			return nil
		}
		c.hqq[""] = p
		return nil
	}
	c.hqqPerTag = true
	for tag, raw := range top {
		if string(raw) == "null" {
			c.hqq[tag] = nil
			continue
		}
		p, why := one(raw)
		if why != "" {
			r.Partial = why
			return nil
		}
		c.hqq[tag] = p
	}
	return nil
}

// loadQuark reads Quark's export config (quark's
// torch/export/config: global_quant_config with weight, input_tensors,
// output_tensors; layer_quant_config; exclude). The FP8 schemes are
// modelled; others are named.
func (r *Rules) loadQuark(q map[string]json.RawMessage) error {
	c := r.tf
	var g struct {
		Weight *quarkArgs      `json:"weight"`
		Input  json.RawMessage `json:"input_tensors"`
	}
	if json.Unmarshal(q["global_quant_config"], &g) != nil || g.Weight == nil {
		r.Partial = "Quark without a global weight config"
		return nil
	}
	_ = json.Unmarshal(q["exclude"], &c.quarkExclude)
	for _, k := range []string{"layer_quant_config", "layer_type_quant_config"} {
		var m map[string]json.RawMessage
		if json.Unmarshal(q[k], &m) == nil && len(m) > 0 {
			r.Partial = "Quark's " + k
			return nil
		}
	}
	c.quark = g.Weight
	c.quarkInput = len(g.Input) > 0 && string(g.Input) != "null"
	if c.quarkInput {
		var in quarkArgs
		if json.Unmarshal(g.Input, &in) == nil && in.Dynamic != nil && *in.Dynamic {
			c.quarkInput = false
		}
	}
	switch {
	case g.Weight.DType == "fp8_e4m3" && (g.Weight.QScheme == "per_tensor" || g.Weight.QScheme == "per_channel"):
	default:
		r.Partial = fmt.Sprintf("Quark weights of dtype %q, qscheme %q", g.Weight.DType, g.Weight.QScheme)
	}
	return nil
}

// linearTag is hqq's name_to_linear_tag (hqq/models/base.py): the
// module's name less "model", "layers" and the layer numbers.
func linearTag(mod string) string {
	var keep []string
	for _, p := range strings.Split(mod, ".") {
		if p == "model" || p == "layers" {
			continue
		}
		if _, err := strconv.Atoi(p); err == nil {
			continue
		}
		keep = append(keep, p)
	}
	return strings.Join(keep, ".")
}

func (c *tfConfig) expect(w Weight) (*Form, string) {
	base := w.Module()
	lead, o, i := outIn(w)
	if len(lead) > 0 {
		return nil, "a stacked weight"
	}
	f := func(dims ...uint64) []uint64 { return dims }
	switch c.method {
	case "quanto":
		return nil, "quanto quantizes on load: the files hold the weights unquantized"
	case "aqlm":
		// aqlm/inference.py QuantizedLinear: codes [out/og, in/ig,
		// num_codebooks] of get_int_dtype(nbits) (aqlm/utils.py:
		// int8 to 8 bits, int16 to 16, int32 to 32, int64), codebooks
		// [num_codebooks, 2^nbits, og, ig], scales [out/og, 1, 1, 1].
		if o%c.outGroup != 0 || i%c.inGroup != 0 || c.cbBits > 24 {
			return nil, "its shape is not a multiple of AQLM's groups"
		}
		dt := tensor.I64
		switch {
		case c.cbBits <= 8:
			dt = tensor.I8
		case c.cbBits <= 16:
			dt = tensor.I16
		case c.cbBits <= 32:
			dt = tensor.I32
		}
		return &Form{Scheme: fmt.Sprintf("AQLM %dx%d-bit g%d", c.codebooks, c.cbBits, c.inGroup), Tensors: []Stored{
			{Name: base + ".codes", DTypes: []tensor.DType{dt}, Shape: f(o/c.outGroup, i/c.inGroup, c.codebooks), Values: true},
			{Name: base + ".codebooks", DTypes: floats, Shape: f(c.codebooks, 1<<c.cbBits, c.outGroup, c.inGroup)},
			{Name: base + ".scales", DTypes: floats, Shape: f(o/c.outGroup, 1, 1, 1)},
		}}, ""
	case "spqr":
		// integrations/spqr.py:52 (create_placeholder with the shapes of
		// the config); spqr_quant/inference.py: dense_weights I64
		// [ceil(out/16)·ceil(in/16)·16], row_offsets, col_vals,
		// in_perm I32.
		shape := func(k string) ([]uint64, bool) {
			raw, ok := c.spqrShapes[base+"."+k+".shape"]
			if !ok {
				return nil, false
			}
			var n uint64
			if json.Unmarshal(raw, &n) == nil {
				return []uint64{n}, true
			}
			var s []uint64
			if json.Unmarshal(raw, &s) == nil {
				return s, true
			}
			return nil, false
		}
		if _, ok := shape("dense_weights"); !ok {
			return nil, "SpQR's shapes do not name it"
		}
		st := func(k string, dt tensor.DType, values bool) Stored {
			s, _ := shape(k)
			return Stored{Name: base + "." + k, DTypes: []tensor.DType{dt}, Shape: s, AnyShape: s == nil, Values: values}
		}
		dense := st("dense_weights", tensor.I64, true)
		if want := ceil(o, 16) * ceil(i, 16) * 16; len(dense.Shape) == 1 && dense.Shape[0] != want {
			return nil, fmt.Sprintf("SpQR's shapes give dense_weights %d elements, its %d×%d tiles %d", dense.Shape[0], o, i, want)
		}
		return &Form{Scheme: "SpQR 3-bit 16×16", Tensors: []Stored{dense,
			st("row_offsets", tensor.I32, false), st("col_vals", tensor.I32, false), st("in_perm", tensor.I32, false)}}, ""
	case "higgs":
		// integrations/higgs.py:512-521 HiggsLinear: weight I16
		// [out·bits/16, in], scales [out, in/group], tables [2^bits],
		// tables2 [2^bits, 2^bits, 2].
		if i%c.group != 0 {
			return nil, fmt.Sprintf("its input width %d is not a multiple of HIGGS' group_size %d", i, c.group)
		}
		n := uint64(1) << c.bits
		return &Form{Scheme: fmt.Sprintf("HIGGS %d-bit g%d", c.bits, c.group), Tensors: []Stored{
			{Name: w.Name, DTypes: []tensor.DType{tensor.I16}, Shape: f(o*c.bits/16, i), Values: true},
			{Name: base + ".scales", DTypes: floats, Shape: f(o, i/c.group)},
			{Name: base + ".tables", DTypes: floats, Shape: f(n)},
			{Name: base + ".tables2", DTypes: floats, Shape: f(n, n, 2)},
		}}, ""
	case "fp_quant":
		return c.fpQuant(w)
	case "vptq":
		return c.vptqForm(w)
	case "hqq":
		return c.hqqForm(w)
	case "auto-round", "autoround", "auto_round", "intel/auto-round":
		// auto_round's export: GPTQ's packing (qweight [in·bits/32,
		// out], qzeros, scales [groups, out], g_idx) or, for
		// auto_round:auto_awq, AWQ's.
		ng := groups(i, c.group)
		b := c.bits
		if strings.Contains(c.arFormat, "awq") {
			return &Form{Scheme: fmt.Sprintf("AutoRound int%d (AWQ packing)", b), Tensors: []Stored{
				{Name: base + ".qweight", DTypes: i32, Shape: f(i, ceil(o*b, 32)), Values: true},
				{Name: base + ".qzeros", DTypes: i32, Shape: f(ng, ceil(o*b, 32))},
				{Name: base + ".scales", DTypes: floats, Shape: f(ng, o)},
			}}, ""
		}
		return &Form{Scheme: fmt.Sprintf("AutoRound int%d (GPTQ packing)", b), Tensors: []Stored{
			{Name: base + ".qweight", DTypes: i32, Shape: f(ceil(i*b, 32), o), Values: true},
			{Name: base + ".qzeros", DTypes: i32, Shape: f(ng, ceil(o*b, 32))},
			{Name: base + ".scales", DTypes: floats, Shape: f(ng, o)},
			{Name: base + ".g_idx", DTypes: i32, Shape: f(i), Optional: true},
		}}, ""
	case "quark":
		for _, p := range c.quarkExclude {
			if ok, _ := matchGlob(p, base); ok {
				return nil, "exclude"
			}
		}
		// Quark's export: weight, weight_scale (per tensor [] or per
		// channel [out]), input_scale for static inputs, output_scale
		// where the KV cache is quantized
		// (quantizers/quantizer_quark.py:30 CHECKPOINT_KEYS).
		sc := f()
		if c.quark.QScheme == "per_channel" {
			sc = f(o)
		}
		ts := []Stored{
			{Name: w.Name, DTypes: f8, Shape: f(o, i), Values: true},
			{Name: base + ".weight_scale", DTypes: floats, Shape: sc},
		}
		if c.quarkInput {
			ts = append(ts, Stored{Name: base + ".input_scale", DTypes: floats, Shape: f()})
		}
		ts = append(ts, Stored{Name: base + ".output_scale", DTypes: floats, Shape: f(), Optional: true})
		return &Form{Scheme: "Quark FP8 " + strings.ReplaceAll(c.quark.QScheme, "_", " "), Tensors: ts}, ""
	}
	return nil, "not a weight its quantizer converts"
}

// matchGlob is Quark's exclude match: a name, a name's last
// components, or an fnmatch pattern.
func matchGlob(p, name string) (bool, error) {
	if p == name || strings.HasSuffix(name, "."+p) {
		return true, nil
	}
	return path.Match(p, name)
}

// fpQuant is FP-Quant's FPQuantLinear (fp_quant/module/linear.py):
// qweight U8 [out, in/2], scales U8 [out, in/32] (mxfp4, E8M0) or
// [out, in/16] (nvfp4, E4M3) with weight_global_scale F32 [1], the
// Hadamard matrices [g, g]; weight [out, in] instead with
// store_master_weights, dqweight with pseudoquantization
// (integrations/fp_quant.py:85-90 names the three). transformers
// discards the missing rotations and global scales
// (integrations/fp_quant.py:60-67): they are optional.
func (c *tfConfig) fpQuant(w Weight) (*Form, string) {
	base := w.Module()
	_, o, i := outIn(w)
	g := uint64(32)
	if c.fwd == "nvfp4" {
		g = 16
	}
	had := []Stored{
		{Name: base + ".forward_hadamard_matrix", DTypes: floats, Shape: []uint64{c.hadamard, c.hadamard}, Optional: true},
		{Name: base + ".backward_hadamard_matrix", DTypes: floats, Shape: []uint64{c.hadamard, c.hadamard}, Optional: true},
		{Name: base + ".act_global_scale", DTypes: floats, AnyShape: true, Optional: true},
	}
	if c.fwd == "nvfp4" {
		had = append(had, Stored{Name: base + ".weight_global_scale", DTypes: f32, Shape: []uint64{1}, Optional: true})
	}
	scheme := "FP-Quant " + c.fwd
	switch {
	case c.master:
		return &Form{Scheme: scheme + " (master weights)", Tensors: append([]Stored{{Name: w.Name, DTypes: floats, Shape: []uint64{o, i}, Values: true}}, had...)}, ""
	case c.pseudo:
		return &Form{Scheme: scheme + " (pseudo-quantized)", Tensors: append([]Stored{{Name: base + ".dqweight", DTypes: floats, Shape: []uint64{o, i}, Values: true}}, had...)}, ""
	}
	if i%g != 0 {
		return nil, fmt.Sprintf("its input width %d is not a multiple of %d", i, g)
	}
	return &Form{Scheme: scheme, Tensors: append([]Stored{
		{Name: base + ".qweight", DTypes: u8, Shape: []uint64{o, i / 2}, Values: true},
		{Name: base + ".scales", DTypes: u8, Shape: []uint64{o, i / g}},
	}, had...)}, ""
}

// hqqForm is HQQLinear's encoded state dict (hqq/core/quantize.py
// state_dict_keys): W_q packed, scale and zero, and the metadata each
// saved as a small tensor. Quantizer.quantize groups W [out, in] as
// [-1, group] (axis 1) or [group, -1] (axis 0), scale and zero one per
// group; the packing of nbits (bit_to_packing: 8bit_u8, 4bit_u8,
// 3bit_32, 2bit_u8, 1bit_u8) divides the rows by 1, 2, 10 (ceil), 4, 8.
func (c *tfConfig) hqqForm(w Weight) (*Form, string) {
	base := w.Module()
	_, o, i := outIn(w)
	p, ok := c.hqq[""]
	if c.hqqPerTag {
		p, ok = c.hqq[linearTag(base)]
	}
	if !ok || p == nil {
		return nil, "HQQ's quant_config leaves its linear tag unquantized"
	}
	axis := 1
	if p.Axis != nil {
		axis = *p.Axis
	}
	rows, cols := o, i
	if p.Group != nil && *p.Group > 0 {
		g := uint64(*p.Group)
		if (o*i)%g != 0 {
			return nil, fmt.Sprintf("its %d elements are not a multiple of HQQ's group_size %d", o*i, g)
		}
		rows, cols = o*i/g, g
		if axis == 0 {
			rows, cols = g, o*i/g
		}
	}
	sc := []uint64{rows, 1}
	if axis == 0 {
		sc = []uint64{1, cols}
	}
	qrows, dt := rows, u8
	switch p.NBits {
	case 4:
		qrows = rows / 2
	case 2:
		qrows = rows / 4
	case 1:
		qrows = rows / 8
	case 3:
		qrows, dt = ceil(rows, 10), i32
	}
	wq := Stored{Name: base + ".W_q", DTypes: dt, Shape: []uint64{qrows, cols}, Values: true}
	if p.ViewAsFloat {
		wq.DTypes, wq.AnyShape = floats, true
	}
	ts := []Stored{wq,
		{Name: base + ".scale", DTypes: floats, Shape: sc},
		{Name: base + ".zero", DTypes: floats, Shape: sc},
	}
	for _, k := range []string{"nbits", "group_size", "shape", "axis", "packing", "unpack_view_dtype", "view_as_float",
		"quant_scale", "quant_zero", "compute_dtype", "offload_meta", "encoded_state_dict", "stores_quant_config",
		"channel_wise", "optimize", "round_zero"} {
		ts = append(ts, Stored{Name: base + "." + k, AnyDType: true, AnyShape: true, Optional: true})
	}
	g := "per channel"
	if p.Group != nil && *p.Group > 0 {
		g = fmt.Sprintf("g%d", *p.Group)
	}
	return &Form{Scheme: fmt.Sprintf("HQQ %d-bit %s axis %d", p.NBits, g, axis), Tensors: ts}, ""
}
