package quantconfig

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/tensor"
)

// testdata/layouts.tar.gz holds the reference quantized layouts
// (quantized/SCHEME/ARCH, described by testdata/layouts-README.md) and
// the unquantized layouts they were made from (base/ARCH: the b configs
// of spec's reference layouts).
const layoutsArchive = "testdata/layouts.tar.gz"

type layoutTensor struct {
	Name  string
	DType string
	Shape []uint64
}

type refLayout struct {
	files   map[string][]byte
	tensors []layoutTensor
}

// rules loads the layout's quantization rules from its config.json and
// the files beside it.
func (l *refLayout) rules(t *testing.T) *Rules {
	t.Helper()
	r, err := Load(l.files["config.json"], func(name string) ([]byte, error) {
		if b, ok := l.files[name]; ok {
			return b, nil
		}
		return nil, os.ErrNotExist
	})
	require.NoError(t, err)
	return r
}

// byName indexes the layout's tensors by name.
func (l *refLayout) byName() map[string]*tensor.Tensor {
	m := make(map[string]*tensor.Tensor, len(l.tensors))
	for _, x := range l.tensors {
		m[x.Name] = toTensor(x)
	}
	return m
}

func readArchive(t *testing.T) map[string]*refLayout {
	t.Helper()
	f, err := os.Open(layoutsArchive)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	out := map[string]*refLayout{}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if h.Typeflag != tar.TypeReg {
			continue
		}
		dir, file := path.Split(h.Name)
		dir = strings.TrimSuffix(dir, "/")
		b, err := io.ReadAll(tr)
		require.NoError(t, err)
		if out[dir] == nil {
			out[dir] = &refLayout{files: map[string][]byte{}}
		}
		out[dir].files[file] = b
		if file == "tensors.tsv" {
			out[dir].tensors = parseTSV(t, b)
		}
	}
	return out
}

func parseTSV(t *testing.T, b []byte) []layoutTensor {
	var out []layoutTensor
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		require.Len(t, cols, 3, sc.Text())
		x := layoutTensor{Name: cols[0], DType: cols[1], Shape: []uint64{}}
		for _, d := range strings.Split(strings.Trim(cols[2], "[]"), ",") {
			if d = strings.TrimSpace(d); d != "" {
				v, err := strconv.ParseUint(d, 10, 64)
				require.NoError(t, err)
				x.Shape = append(x.Shape, v)
			}
		}
		out = append(out, x)
	}
	return out
}

func toTensor(x layoutTensor) *tensor.Tensor {
	dt, _ := tensor.ParseDType(x.DType)
	return &tensor.Tensor{Name: x.Name, DType: dt, Shape: x.Shape}
}

// baseWeights are the weights of an unquantized layout a quantizer may
// replace, with their kinds from their names.
func baseWeights(ts []layoutTensor) []Weight {
	var out []Weight
	for _, x := range ts {
		switch {
		case len(x.Shape) == 3 && strings.Contains(x.Name, ".experts.") && !strings.HasSuffix(x.Name, "_bias"):
			out = append(out, Weight{Name: x.Name, Kind: Experts, Shape: x.Shape})
		case len(x.Shape) != 2 || !strings.HasSuffix(x.Name, ".weight"):
		case strings.HasSuffix(x.Name, "embed_tokens.weight"):
			out = append(out, Weight{Name: x.Name, Kind: Embedding, Shape: x.Shape})
		case strings.HasSuffix(x.Name, "lm_head.weight"):
			out = append(out, Weight{Name: x.Name, Kind: Head, Shape: x.Shape})
		case strings.Contains(x.Name, "norm") || strings.Contains(x.Name, "patch_embedding") || strings.Contains(x.Name, "position_embedding"):
		default:
			out = append(out, Weight{Name: x.Name, Kind: Linear, Shape: x.Shape})
		}
	}
	return out
}

// expectedSet is what the rules say a quantized layout of the base holds:
// each base tensor as it is, or its quantized form where the files hold
// it quantized. It fails the test on any finding.
func expectedSet(t *testing.T, r *Rules, base []layoutTensor, lookup func(string) *tensor.Tensor) map[string]string {
	t.Helper()
	out := map[string]string{}
	has := func(n string) bool { return lookup(n) != nil }
	ws, from := r.Restack(baseWeights(base), has)
	replaced := map[string]bool{}
	for _, olds := range from {
		for _, o := range olds {
			replaced[o] = true
		}
	}
	weights := map[string]bool{}
	for _, w := range ws {
		if r.Dropped(w.Name) {
			continue
		}
		weights[w.Name] = true
		res := Resolve(w, func() *Form { f, _ := r.Expect(w); return f }(), lookup)
		for _, f := range res.Findings {
			t.Errorf("%s", f.Detail)
		}
		if !res.Quantized {
			out[w.Name] = tensor.FormatShape(w.Shape)
			continue
		}
		for _, x := range res.Found {
			out[x.Name] = tensor.FormatShape(x.Shape)
		}
	}
	for _, x := range base {
		if !weights[x.Name] && !replaced[x.Name] && !r.Dropped(x.Name) {
			out[x.Name] = tensor.FormatShape(x.Shape)
		}
	}
	return out
}

// TestReferenceLayouts checks that the rules give exactly the tensors of
// every reference quantized layout, written by compressed-tensors itself
// or by ModelOpt's and mlx-lm's export rules: nothing missing, nothing
// extra, every shape and dtype.
func TestReferenceLayouts(t *testing.T) {
	all := readArchive(t)
	n := 0
	for dir, l := range all {
		scheme, arch, ok := strings.Cut(strings.TrimPrefix(dir, "quantized/"), "/")
		if !strings.HasPrefix(dir, "quantized/") || !ok {
			continue
		}
		n++
		t.Run(scheme+"/"+arch, func(t *testing.T) {
			base := all["base/"+arch]
			require.NotNil(t, base, arch)
			r := l.rules(t)
			require.True(t, r.Understood(), "%s: %s", r.Method, r.Partial)
			byName := l.byName()
			lookup := func(n string) *tensor.Tensor { return byName[n] }
			want := expectedSet(t, r, base.tensors, lookup)
			got := map[string]string{}
			for _, x := range l.tensors {
				got[x.Name] = tensor.FormatShape(x.Shape)
			}
			var missing, extra []string
			for k, v := range want {
				if got[k] != v {
					missing = append(missing, k+" "+v+" (files: "+got[k]+")")
				}
			}
			for k := range got {
				if _, ok := want[k]; !ok {
					extra = append(extra, k)
				}
			}
			sort.Strings(missing)
			sort.Strings(extra)
			assert.Empty(t, missing, "expected, not in the files")
			assert.Empty(t, extra, "in the files, not expected")
		})
	}
	assert.Equal(t, 80, n)
}

// quantizedLayout is a quantized reference layout as the tests below
// take it: its rules, its tensors by name, and its base's weights
// restacked as the layout stores them.
type quantizedLayout struct {
	dir     string
	rules   *Rules
	byName  map[string]*tensor.Tensor
	weights []Weight
}

func (q *quantizedLayout) lookup(n string) *tensor.Tensor { return q.byName[n] }

// quantizedLayouts reads every quantized layout of the archive, in the
// order of their directories.
func quantizedLayouts(t *testing.T) []*quantizedLayout {
	t.Helper()
	all := readArchive(t)
	var out []*quantizedLayout
	for dir, l := range all {
		if !strings.HasPrefix(dir, "quantized/") {
			continue
		}
		q := &quantizedLayout{dir: dir, rules: l.rules(t), byName: l.byName()}
		q.weights, _ = q.rules.Restack(baseWeights(all["base/"+path.Base(dir)].tensors), func(n string) bool { return q.byName[n] != nil })
		out = append(out, q)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	return out
}

// TestMutantsFound drops a scale, changes a packed shape and renames
// a quantized tensor in one module of every layout: Resolve names each.
func TestMutantsFound(t *testing.T) {
	for _, q := range quantizedLayouts(t) {
		dir, r, byName := q.dir, q.rules, q.byName
		var w Weight
		var res Resolution
		for _, c := range q.weights {
			f, _ := r.Expect(c)
			if res = Resolve(c, f, q.lookup); res.Quantized {
				w = c
				break
			}
		}
		require.True(t, res.Quantized, dir)
		var scale, values *Stored
		for i, s := range res.Form.Tensors {
			switch {
			case s.Values:
				values = &res.Form.Tensors[i]
			case scale == nil && !s.Optional && strings.Contains(s.Name, "scale"):
				scale = &res.Form.Tensors[i]
			}
		}
		require.NotNil(t, scale, dir)
		require.NotNil(t, values, dir)
		drop := func(n string) *tensor.Tensor {
			if n == scale.Name {
				return nil
			}
			return byName[n]
		}
		got := Resolve(w, res.Form, drop)
		require.NotEmpty(t, got.Findings, dir)
		assert.Equal(t, "missing", got.Findings[0].Kind, dir)
		assert.Equal(t, scale.Name, got.Findings[0].Tensor, dir)

		bent := *byName[values.Name]
		bent.Shape = slices.Clone(bent.Shape)
		bent.Shape[len(bent.Shape)-1]++
		reshaped := func(n string) *tensor.Tensor {
			if n == values.Name {
				return &bent
			}
			return byName[n]
		}
		got = Resolve(w, res.Form, reshaped)
		require.NotEmpty(t, got.Findings, dir)
		assert.Equal(t, "mis-shaped", got.Findings[0].Kind, dir)
		assert.Equal(t, values.Name, got.Findings[0].Tensor, dir)
	}
}

func TestLoadMethods(t *testing.T) {
	for _, c := range []struct {
		config  string
		method  string
		partial bool
	}{
		{`{}`, "", false},
		{`{"quantization_config": {"quant_method": "bogus"}}`, "bogus", true},
		{`{"quantization_config": {"quant_method": "hqq"}}`, "hqq", true},
		{`{"quantization_config": {"quant_method": "gptq", "bits": 4, "group_size": 128}}`, "gptq", false},
		{`{"quantization_config": {"quant_method": "gptq", "bits": 3}}`, "gptq", true},
		{`{"quantization_config": {"quant_method": "awq", "version": "gemv"}}`, "awq", true},
		{`{"quantization_config": {"quant_method": "compressed-tensors", "format": "marlin-24", "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 4, "strategy": "group", "group_size": 128}}}}}`, "compressed-tensors", true},
		{`{"quantization_config": {"quant_method": "compressed-tensors", "config_groups": {"g": {"format": "pack-quantized", "targets": ["LlamaDecoderLayer"], "weights": {"num_bits": 4, "strategy": "group", "group_size": 128}}}}}`, "compressed-tensors", true},
		{`{"quantization_config": {"quant_method": "compressed-tensors", "sparsity_config": {"format": "sparse-24-bitmask"}}}`, "compressed-tensors", false},
		{`{"quantization_config": {"quant_method": "compressed-tensors", "sparsity_config": {"format": "sparse-24-bitmask", "sparsity_structure": "4:8"}}}`, "compressed-tensors", true},
		{`{"quantization_config": {"quant_method": "compressed-tensors", "sparsity_config": {"format": "marlin-24"}}}`, "compressed-tensors", true},
		{`{"quantization_config": {"quant_method": "modelopt", "quant_algo": "FP8"}}`, "modelopt", false},
		{`{"quantization_config": {"quant_method": "modelopt", "quant_algo": "W8A8_SQ"}}`, "modelopt", true},
		{`{"quantization": {"group_size": 64, "bits": 4}}`, "mlx", false},
		{`{"quantization": {"group_size": 64, "bits": 4, "mode": "weird"}}`, "mlx", true},
	} {
		r, err := Load([]byte(c.config), nil)
		require.NoError(t, err, c.config)
		assert.Equal(t, c.method, r.Method, c.config)
		assert.Equal(t, c.partial, r.Partial != "", "%s: %q", c.config, r.Partial)
	}
}

// TestTargetedButUnquantized lists the weights a reference layout keeps
// unquantized although its config targets them: only DeepSeek-V3's
// router (DeepseekV3TopkRouter is no nn.Linear, so compressed-tensors and
// ModelOpt skip it; its weight is still named like a Linear's) and the
// out_proj of SigLIP's pooling head (an nn.MultiheadAttention, which
// calls its out_proj's weight directly: compressed-tensors leaves it).
func TestTargetedButUnquantized(t *testing.T) {
	for _, q := range quantizedLayouts(t) {
		for _, w := range q.weights {
			f, _ := q.rules.Expect(w)
			if f != nil && !Resolve(w, f, q.lookup).Quantized && !q.rules.Dropped(w.Name) {
				ok := strings.HasSuffix(w.Name, ".mlp.gate.weight") && strings.HasSuffix(q.dir, "deepseek_v3") ||
					strings.HasSuffix(w.Name, ".head.attention.out_proj.weight")
				assert.True(t, ok, "%s: %s targeted, stored unquantized", q.dir, w.Name)
			}
		}
	}
}

// TestFindInvertsExpect: from the stored values tensor alone, Find gives
// back each quantized weight of every reference layout with its logical
// shape (a packed in·bits/32 can stand for several widths: the one whose
// form the files match is the weight's; compressed-tensors' weight_shape
// settles the rest in package views).
func TestFindInvertsExpect(t *testing.T) {
	n := 0
	for _, q := range quantizedLayouts(t) {
		dir, r, lookup := q.dir, q.rules, q.lookup
		for _, w := range q.weights {
			f, _ := r.Expect(w)
			res := Resolve(w, f, lookup)
			if !res.Quantized || r.Dropped(w.Name) {
				continue
			}
			require.NotNil(t, res.Values, "%s: %s %v", dir, w.Name, res.Findings)
			got, gf, ok := r.Find(res.Values.Name, lookup)
			require.True(t, ok, "%s: %s", dir, res.Values.Name)
			assert.Equal(t, w.Name, got.Name, dir)
			if !slices.Equal(w.Shape, got.Shape) {
				// Only where packing pads: the same form.
				assert.Equal(t, f.Tensors, gf.Tensors, "%s: %s %v found as %v", dir, w.Name, w.Shape, got.Shape)
			}
			n++
		}
	}
	assert.Greater(t, n, 3000)
}

// TestOtherVersionsForms: layouts other versions of the libraries
// write under the same config resolve clean; a tensor dropped from them
// still fails.
func TestOtherVersionsForms(t *testing.T) {
	w := Weight{Name: "m.q.weight", Kind: Linear, Shape: []uint64{64, 128}}
	type tt = tensor.Tensor
	for _, c := range []struct {
		name, config string
		files        []*tt
	}{
		{"AutoFP8 per tensor under quant_method fp8", `{"quantization_config": {"quant_method": "fp8", "activation_scheme": "static"}}`, []*tt{
			{Name: "m.q.weight", DType: tensor.F8_E4M3, Shape: []uint64{64, 128}},
			{Name: "m.q.weight_scale", DType: tensor.F32, Shape: []uint64{}},
			{Name: "m.q.input_scale", DType: tensor.F32, Shape: []uint64{}}}},
		{"DeepSeek's blocks under quant_method fp8", `{"quantization_config": {"quant_method": "fp8", "weight_block_size": [128, 128]}}`, []*tt{
			{Name: "m.q.weight", DType: tensor.F8_E4M3, Shape: []uint64{64, 128}},
			{Name: "m.q.weight_scale_inv", DType: tensor.F32, Shape: []uint64{1, 1}}}},
		{"compressed-tensors per tensor scale as a 0-d tensor", `{"quantization_config": {"quant_method": "compressed-tensors", "format": "float-quantized",
			"config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "tensor"}, "input_activations": {"num_bits": 8, "type": "float", "strategy": "tensor", "dynamic": false}}}}}`, []*tt{
			{Name: "m.q.weight", DType: tensor.F8_E4M3, Shape: []uint64{64, 128}},
			{Name: "m.q.weight_scale", DType: tensor.BF16, Shape: []uint64{}},
			{Name: "m.q.input_scale", DType: tensor.BF16, Shape: []uint64{1}}}},
		{"compressed-tensors asymmetric, zero point not packed", `{"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
			"config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 32, "symmetric": false, "actorder": true}}}}}`, []*tt{
			{Name: "m.q.weight_packed", DType: tensor.I32, Shape: []uint64{64, 16}},
			{Name: "m.q.weight_scale", DType: tensor.F16, Shape: []uint64{64, 4}},
			{Name: "m.q.weight_zero_point", DType: tensor.I8, Shape: []uint64{64, 4}},
			{Name: "m.q.weight_g_idx", DType: tensor.I32, Shape: []uint64{128}},
			{Name: "m.q.weight_shape", DType: tensor.I64, Shape: []uint64{2}}}},
		{"compressed-tensors asymmetric, zero point packed", `{"quantization_config": {"quant_method": "compressed-tensors", "format": "pack-quantized",
			"config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int", "strategy": "group", "group_size": 32, "symmetric": false}}}}}`, []*tt{
			{Name: "m.q.weight_packed", DType: tensor.I32, Shape: []uint64{64, 16}},
			{Name: "m.q.weight_scale", DType: tensor.F16, Shape: []uint64{64, 4}},
			{Name: "m.q.weight_zero_point", DType: tensor.I32, Shape: []uint64{8, 4}},
			{Name: "m.q.weight_shape", DType: tensor.I64, Shape: []uint64{2}}}},
	} {
		r, err := Load([]byte(c.config), nil)
		require.NoError(t, err, c.name)
		require.True(t, r.Understood(), "%s: %s", c.name, r.Partial)
		byName := map[string]*tt{}
		for _, x := range c.files {
			byName[x.Name] = x
		}
		f, _ := r.Expect(w)
		res := Resolve(w, f, func(n string) *tensor.Tensor { return byName[n] })
		assert.True(t, res.Quantized, c.name)
		assert.Empty(t, res.Findings, c.name)
		for _, drop := range c.files[1:] {
			if strings.HasSuffix(drop.Name, "input_scale") {
				continue // optional in one form
			}
			res := Resolve(w, f, func(n string) *tensor.Tensor {
				if n == drop.Name {
					return nil
				}
				return byName[n]
			})
			assert.NotEmpty(t, res.Findings, "%s without %s", c.name, drop.Name)
		}
	}
}
