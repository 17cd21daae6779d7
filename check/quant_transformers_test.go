package check_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// tfMethod is one of transformers' other quantizers: its
// quantization_config and, for an nn.Linear weight [o, i] of module mod,
// the tensors its library saves, written here from the library's own
// rules (each cited), not from package quantconfig's.
type tfMethod struct {
	name    string
	section func(linears map[string][2]uint64) string
	files   func(mod string, o, i uint64) []testmodel.Tensor
	// scale is the suffix of the tensor the first mutant drops, values
	// the one whose shape the second bends ("" for none: quanto).
	scale, values string
}

func tt(name, dt string, shape ...uint64) testmodel.Tensor {
	return testmodel.Tensor{Name: name, DType: dt, Shape: shape}
}

var tfMethods = []tfMethod{
	{name: "aqlm 1x16 g8", // aqlm/inference.py QuantizedLinear, aqlm/utils.py get_int_dtype
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "aqlm", "in_group_size": 8, "out_group_size": 1, "num_codebooks": 1, "nbits_per_codebook": 16, "linear_weights_not_to_quantize": ["model.embed_tokens.weight", "lm_head.weight"]}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".codes", "I16", o, i/8, 1), tt(mod+".codebooks", "F16", 1, 65536, 1, 8), tt(mod+".scales", "F16", o, 1, 1, 1)}
		},
		scale: ".scales", values: ".codes"},
	{name: "aqlm 2x8 g8", section: func(map[string][2]uint64) string {
		return `{"quant_method": "aqlm", "in_group_size": 8, "out_group_size": 1, "num_codebooks": 2, "nbits_per_codebook": 8}`
	}, files: func(mod string, o, i uint64) []testmodel.Tensor {
		return []testmodel.Tensor{tt(mod+".codes", "I8", o, i/8, 2), tt(mod+".codebooks", "F16", 2, 256, 1, 8), tt(mod+".scales", "F16", o, 1, 1, 1)}
	}, scale: ".codebooks", values: ".codes"},
	{name: "spqr", // integrations/spqr.py:52, spqr_quant/inference.py create_placehodler
		section: func(ls map[string][2]uint64) string {
			shapes := map[string]uint64{}
			for mod, s := range ls {
				o, i := s[0], s[1]
				shapes[mod+".dense_weights.shape"] = (o + 15) / 16 * ((i + 15) / 16) * 16
				shapes[mod+".row_offsets.shape"] = o + 1
				shapes[mod+".col_vals.shape"] = 77
				shapes[mod+".in_perm.shape"] = i / 2
			}
			b, _ := json.Marshal(shapes)
			return `{"quant_method": "spqr", "bits": 3, "beta1": 16, "beta2": 16, "shapes": ` + string(b) + `}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".dense_weights", "I64", (o+15)/16*((i+15)/16)*16), tt(mod+".row_offsets", "I32", o+1),
				tt(mod+".col_vals", "I32", 77), tt(mod+".in_perm", "I32", i/2)}
		},
		scale: ".row_offsets", values: ".dense_weights"},
	{name: "higgs 4-bit g32", // integrations/higgs.py:512-521
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "higgs", "bits": 4, "p": 2, "group_size": 32, "hadamard_size": 512, "modules_to_not_convert": ["lm_head"]}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".weight", "I16", o*4/16, i), tt(mod+".scales", "BF16", o, i/32), tt(mod+".tables", "BF16", 16), tt(mod+".tables2", "BF16", 16, 16, 2)}
		},
		scale: ".scales", values: ".weight"},
	{name: "fp_quant mxfp4", // fp_quant/module/linear.py FPQuantLinear
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "fp_quant", "forward_dtype": "mxfp4", "forward_method": "abs_max", "backward_dtype": "bf16", "store_master_weights": false, "hadamard_group_size": 32, "pseudoquantization": false, "modules_to_not_convert": ["lm_head"]}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".qweight", "U8", o, i/2), tt(mod+".scales", "U8", o, i/32),
				tt(mod+".forward_hadamard_matrix", "BF16", 32, 32), tt(mod+".backward_hadamard_matrix", "BF16", 32, 32)}
		},
		scale: ".scales", values: ".qweight"},
	{name: "fp_quant nvfp4", section: func(map[string][2]uint64) string {
		return `{"quant_method": "fp_quant", "forward_dtype": "nvfp4", "hadamard_group_size": 16}`
	}, files: func(mod string, o, i uint64) []testmodel.Tensor {
		return []testmodel.Tensor{tt(mod+".qweight", "U8", o, i/2), tt(mod+".scales", "U8", o, i/16), tt(mod+".weight_global_scale", "F32", 1),
			tt(mod+".forward_hadamard_matrix", "BF16", 16, 16), tt(mod+".backward_hadamard_matrix", "BF16", 16, 16)}
	}, scale: ".scales", values: ".qweight"},
	{name: "hqq 4-bit g64 axis 1", // hqq/core/quantize.py: W [-1, 64], 4bit_u8 halves the rows
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "hqq", "quant_config": {"weight_quant_params": {"nbits": 4, "channel_wise": true, "group_size": 64, "optimize": true, "round_zero": true, "axis": 1, "view_as_float": false}, "scale_quant_params": null, "zero_quant_params": null, "offload_meta": false}, "skip_modules": ["lm_head"]}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			g := o * i / 64
			return []testmodel.Tensor{tt(mod+".W_q", "U8", g/2, 64), tt(mod+".scale", "BF16", g, 1), tt(mod+".zero", "BF16", g, 1),
				tt(mod+".nbits", "I64"), tt(mod+".shape", "I64", 2), tt(mod+".packing", "U8", 7), tt(mod+".axis", "I64")}
		},
		scale: ".scale", values: ".W_q"},
	{name: "hqq 3-bit per tag", section: func(map[string][2]uint64) string {
		p := `{"weight_quant_params": {"nbits": 3, "group_size": 32, "axis": 0}, "scale_quant_params": null, "zero_quant_params": null}`
		return `{"quant_method": "hqq", "quant_config": {"self_attn.q_proj": ` + p + `, "self_attn.k_proj": ` + p + `, "self_attn.v_proj": ` + p +
			`, "self_attn.o_proj": ` + p + `, "mlp.gate_proj": ` + p + `, "mlp.up_proj": ` + p + `, "mlp.down_proj": null}, "skip_modules": ["lm_head"]}`
	}, files: func(mod string, o, i uint64) []testmodel.Tensor {
		if strings.HasSuffix(mod, "down_proj") {
			return []testmodel.Tensor{tt(mod+".weight", "BF16", o, i)}
		}
		g := o * i / 32 // axis 0: W [32, g]; 3bit_32 packs ceil(32/10) rows
		return []testmodel.Tensor{tt(mod+".W_q", "I32", 4, g), tt(mod+".scale", "F16", 1, g), tt(mod+".zero", "F16", 1, g)}
	}, scale: ".zero", values: ".W_q"},
	{name: "auto-round gptq", // auto_round's auto_gptq packing: GPTQ's qweight [i·b/32, o]
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "auto-round", "bits": 4, "group_size": 32, "sym": true, "data_type": "int", "packing_format": "auto_round:auto_gptq"}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".qweight", "I32", i/8, o), tt(mod+".qzeros", "I32", i/32, o/8), tt(mod+".scales", "F16", i/32, o)}
		},
		scale: ".scales", values: ".qweight"},
	{name: "auto-round awq", section: func(map[string][2]uint64) string {
		return `{"quant_method": "auto-round", "bits": 4, "group_size": 32, "packing_format": "auto_round:auto_awq"}`
	}, files: func(mod string, o, i uint64) []testmodel.Tensor {
		return []testmodel.Tensor{tt(mod+".qweight", "I32", i, o/8), tt(mod+".qzeros", "I32", i/32, o/8), tt(mod+".scales", "F16", i/32, o)}
	}, scale: ".qzeros", values: ".qweight"},
	{name: "quark fp8 per tensor", // quantizers/quantizer_quark.py:30 CHECKPOINT_KEYS
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "fp8_e4m3", "qscheme": "per_tensor", "is_dynamic": false, "symmetric": true}, "input_tensors": {"dtype": "fp8_e4m3", "qscheme": "per_tensor", "is_dynamic": false}, "output_tensors": null, "bias": null}, "layer_quant_config": {}, "layer_type_quant_config": {}, "exclude": ["lm_head"], "export": {"pack_method": "reorder"}}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".weight", "F8_E4M3", o, i), tt(mod+".weight_scale", "F32"), tt(mod+".input_scale", "F32")}
		},
		scale: ".weight_scale", values: ".weight"},
	{name: "eetq", // integrations/eetq.py:74-75
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "eetq", "modules_to_not_convert": ["lm_head"]}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".weight", "I8", i, o), tt(mod+".weight_scales", "F16", o)}
		},
		scale: ".weight_scales", values: ".weight"},
	{name: "bitnet", // integrations/bitnet.py:139-142
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "bitnet", "modules_to_not_convert": ["lm_head"]}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".weight", "U8", o/4, i), tt(mod+".weight_scale", "BF16", 1)}
		},
		scale: ".weight_scale", values: ".weight"},
	{name: "bitsandbytes nf4 double quant", // bitsandbytes/functional.py QuantState.as_dict(packed=True)
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_use_double_quant": true, "llm_int8_skip_modules": null}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			w := mod + ".weight"
			return []testmodel.Tensor{tt(w, "U8", o*i/2, 1), tt(w+".absmax", "U8", o*i/64), tt(w+".quant_map", "F32", 16),
				tt(w+".nested_absmax", "F32", (o*i/64+255)/256), tt(w+".nested_quant_map", "F32", 256), tt(w+".quant_state.bitsandbytes__nf4", "U8", 200)}
		},
		scale: ".weight.absmax", values: ".weight"},
	{name: "bitsandbytes nf4 bfloat16 storage", section: func(map[string][2]uint64) string {
		return `{"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "nf4", "bnb_4bit_quant_storage": "bfloat16"}`
	}, files: func(mod string, o, i uint64) []testmodel.Tensor {
		w := mod + ".weight"
		return []testmodel.Tensor{tt(w, "BF16", o*i/4, 1), tt(w+".absmax", "F32", o*i/64), tt(w+".quant_map", "F32", 16), tt(w+".quant_state.bitsandbytes__nf4", "U8", 150)}
	}, scale: ".weight.absmax", values: ".weight"},
	{name: "bitsandbytes fp4", section: func(map[string][2]uint64) string {
		return `{"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "fp4"}`
	}, files: func(mod string, o, i uint64) []testmodel.Tensor {
		w := mod + ".weight"
		return []testmodel.Tensor{tt(w, "U8", o*i/2, 1), tt(w+".absmax", "F32", o*i/64), tt(w+".quant_map", "F32", 16), tt(w+".quant_state.bitsandbytes__fp4", "U8", 150)}
	}, scale: ".weight.quant_state.bitsandbytes__fp4", values: ".weight"},
	{name: "bitsandbytes int8", // bitsandbytes/nn/modules.py Int8Params: CB int8, SCB [o]
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "bitsandbytes", "load_in_8bit": true}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".weight", "I8", o, i), tt(mod+".SCB", "F32", o), tt(mod+".weight_format", "U8")}
		},
		scale: ".SCB", values: ".weight"},
	{name: "compressed-tensors 2:4 sparse", // sparse_24_bitmask.py Sparse24BitMaskTensor.dict
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "compressed-tensors", "format": "dense", "sparsity_config": {"format": "sparse-24-bitmask", "global_sparsity": 0.45, "ignore": ["lm_head"], "registry_requires_subclass": false, "sparsity_structure": "2:4", "targets": ["Linear"]}}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".compressed", "BF16", o, i/2), tt(mod+".bitmask", "U8", o, (i+7)/8), tt(mod+".shape", "I64", 2, 1)}
		},
		scale: ".bitmask", values: ".compressed"},
	{name: "compressed-tensors 2:4 sparse FP8", section: func(map[string][2]uint64) string {
		return `{"quant_method": "compressed-tensors", "format": "float-quantized", "config_groups": {"group_0": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float", "strategy": "channel", "symmetric": true, "dynamic": false}, "input_activations": {"num_bits": 8, "type": "float", "strategy": "token", "dynamic": true}}}, "ignore": ["lm_head"],
			"sparsity_config": {"format": "sparse-24-bitmask", "ignore": ["lm_head"], "sparsity_structure": "2:4", "targets": ["Linear"]}}`
	}, files: func(mod string, o, i uint64) []testmodel.Tensor {
		return []testmodel.Tensor{tt(mod+".compressed", "F8_E4M3", o, i/2), tt(mod+".bitmask", "U8", o, (i+7)/8), tt(mod+".shape", "I64", 2, 1), tt(mod+".weight_scale", "BF16", o, 1)}
	}, scale: ".weight_scale", values: ".compressed"},
	{name: "compressed-tensors sparse bitmask", // sparse_bitmask.py BitmaskTensor.dict
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "compressed-tensors", "sparsity_config": {"format": "sparse-bitmask", "ignore": ["lm_head"], "targets": ["Linear"]}}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".compressed", "BF16", o*i/3), tt(mod+".bitmask", "U8", o, (i+7)/8), tt(mod+".shape", "I64", 2), tt(mod+".row_offsets", "I64", o)}
		},
		scale: ".row_offsets", values: ".bitmask"},
	{name: "vptq", // vptq/layers/vqlinear.py VQuantLinear, is_indice_packed (integrations/vptq.py:48-63)
		section: func(ls map[string][2]uint64) string {
			layers := map[string]any{}
			for mod, s := range ls {
				layers[mod] = map[string]any{"bias": false, "enable_norm": true, "enable_perm": true, "group_num": 1, "group_size": s[1],
					"in_features": s[1], "out_features": s[0], "indices_as_float": false, "is_indice_packed": true,
					"num_centroids": []int{-1, 65536}, "num_res_centroids": []int{-1, 256}, "outlier_size": 0, "vector_lens": []int{-1, 8}}
			}
			b, _ := json.Marshal(layers)
			return `{"quant_method": "vptq", "enable_proxy_error": false, "shared_layer_config": {}, "config_for_layers": ` + string(b) + `}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".indices", "I32", 1, (o+7)/8, (i*24+31)/32), tt(mod+".centroids.weight", "BF16", 1, 65536*8),
				tt(mod+".res_centroids.weight", "BF16", 1, 256*8), tt(mod+".weight_scale", "BF16", i), tt(mod+".weight_bias", "BF16", i), tt(mod+".perm", "I16", i)}
		},
		scale: ".weight_bias", values: ".indices"},
	{name: "vptq with outliers", section: func(ls map[string][2]uint64) string {
		layers := map[string]any{}
		for mod, s := range ls {
			layers[mod] = map[string]any{"enable_norm": false, "enable_perm": false, "group_num": 2, "group_size": s[1] / 2,
				"num_centroids": []int{1024, 4096}, "num_res_centroids": []int{-1, -1}, "outlier_size": 16, "vector_lens": []int{4, 6}}
		}
		b, _ := json.Marshal(layers)
		return `{"quant_method": "vptq", "config_for_layers": ` + string(b) + `}`
	}, files: func(mod string, o, i uint64) []testmodel.Tensor {
		return []testmodel.Tensor{tt(mod+".indices", "I32", 2, (o+5)/6, (i/2*12+31)/32), tt(mod+".centroids.weight", "F16", 2, 4096*6),
			tt(mod+".outlier_centroids.weight", "F16", 1, 1024*4), tt(mod+".outlier_indices", "I16", 1, (o+3)/4, 16)}
	}, scale: ".outlier_indices", values: ".indices"},
	{name: "quanto", // quantizer_quanto.py:116: not serializable, quantized on load
		section: func(map[string][2]uint64) string {
			return `{"quant_method": "quanto", "weights": "int8", "activations": null, "modules_to_not_convert": null}`
		},
		files: func(mod string, o, i uint64) []testmodel.Tensor {
			return []testmodel.Tensor{tt(mod+".weight", "BF16", o, i)}
		}},
}

// TestTransformersQuantizers builds a Qwen3 layout of each of
// transformers' other quantizers from its library's rules: it checks
// clean and fully, with the unquantized model's logical parameters;
// then a scale dropped, the codes' shape changed and a stray tensor each
// fail naming the tensor.
func TestTransformersQuantizers(t *testing.T) {
	all := readQuantLayouts(t)
	b := all["base/qwen3"]
	mb, err := testmodel.OpenHeaderOnly(b.config, b.tensors)
	logical := testmodel.CheckOpened(t, mb, err).Logical
	linears := map[string][2]uint64{}
	for _, x := range b.tensors {
		if strings.Contains(x.Name, "_proj.weight") && len(x.Shape) == 2 {
			linears[strings.TrimSuffix(x.Name, ".weight")] = [2]uint64{x.Shape[0], x.Shape[1]}
		}
	}
	for _, meth := range tfMethods {
		t.Run(meth.name, func(t *testing.T) {
			var ts []testmodel.Tensor
			first := ""
			for _, x := range b.tensors {
				mod := strings.TrimSuffix(x.Name, ".weight")
				if s, ok := linears[mod]; ok {
					fs := meth.files(mod, s[0], s[1])
					ts = append(ts, fs...)
					if first == "" && (meth.values == "" || len(fs) > 1 && slices.ContainsFunc(fs, func(x testmodel.Tensor) bool { return x.Name == mod+meth.values })) {
						first = mod
					}
					continue
				}
				ts = append(ts, x)
			}
			cfg := strings.Replace(string(b.config), `"model_type"`, `"quantization_config": `+meth.section(linears)+`, "model_type"`, 1)
			m, err := testmodel.OpenHeaderOnly([]byte(cfg), ts)
			r := testmodel.CheckOpened(t, m, err)
			require.Empty(t, problemsOf(r))
			require.True(t, r.Checked(), "%v", r.Notes)
			require.NotNil(t, r.Quant)
			assert.Equal(t, logical, r.Logical, "logical parameters")
			mutate := func(edit func([]testmodel.Tensor) []testmodel.Tensor) *check.Report {
				m, err := testmodel.OpenHeaderOnly([]byte(cfg), edit(slices.Clone(ts)))
				return testmodel.CheckOpened(t, m, err)
			}
			if meth.scale != "" {
				require.NotEmpty(t, r.Quant.Schemes)
				scale, values := first+meth.scale, first+meth.values
				assertProblem(t, mutate(func(ts []testmodel.Tensor) []testmodel.Tensor {
					return slices.DeleteFunc(ts, func(x testmodel.Tensor) bool { return x.Name == scale })
				}), check.Missing, scale)
				assertProblem(t, mutate(func(ts []testmodel.Tensor) []testmodel.Tensor {
					i := slices.IndexFunc(ts, func(x testmodel.Tensor) bool { return x.Name == values })
					require.GreaterOrEqual(t, i, 0, values)
					ts[i].Shape = slices.Clone(ts[i].Shape)
					ts[i].Shape[0]++
					return ts
				}), check.Misshaped, values)
			}
			extra := first + ".weight_bogus"
			assertProblem(t, mutate(func(ts []testmodel.Tensor) []testmodel.Tensor {
				return append(ts, tt(extra, "F32", 1))
			}), check.Unexpected, extra)
		})
	}
}

// TestTransformersQuantizersPartial: the methods or settings the rules
// do not model are a partial check (exit 3) naming them, never a
// failure, whatever the files hold.
func TestTransformersQuantizersPartial(t *testing.T) {
	all := readQuantLayouts(t)
	b := all["base/qwen3"]
	for _, c := range []struct{ section, named string }{
		{`{"quant_method": "torchao", "quant_type": {"default": {"_type": "Int4WeightOnlyConfig"}}}`, "torchao"},
		{`{"quant_method": "vptq", "config_for_layers": {"model.layers.0.mlp.up_proj": {"vector_lens": [8], "num_centroids": [-1, 65536], "num_res_centroids": [-1, -1], "group_num": 1, "group_size": 320}}}`, "VPTQ"},
		{`{"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "uint4", "qscheme": "per_group", "group_size": 128}}}`, "uint4"},
		{`{"quant_method": "auto-round", "bits": 4, "data_type": "mx_fp", "packing_format": "auto_round:llm_compressor"}`, "AutoRound"},
		{`{"quant_method": "hqq", "quant_config": {"weight_quant_params": {"nbits": 4, "group_size": 64}, "scale_quant_params": {"nbits": 8}}}`, "HQQ"},
		{`{"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_type": "int4"}`, "int4"},
	} {
		cfg := strings.Replace(string(b.config), `"model_type"`, `"quantization_config": `+c.section+`, "model_type"`, 1)
		m, err := testmodel.OpenHeaderOnly([]byte(cfg), b.tensors)
		r := testmodel.CheckOpened(t, m, err)
		assert.Empty(t, problemsOf(r), c.section)
		assert.False(t, r.Checked(), c.section)
		require.NotNil(t, r.Quant, c.section)
		assert.Contains(t, r.Quant.Partial, c.named, c.section)
		assert.True(t, r.Clean(), c.section)
	}
}
