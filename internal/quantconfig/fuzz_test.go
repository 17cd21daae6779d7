package quantconfig

import (
	"testing"
)

// FuzzLoad: any config.json (a quantization_config of any method, with
// any values) loads without a panic, and its rules give every weight a
// form or a reason, never a panic, whatever its shape.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		`{"quant_method": "aqlm", "in_group_size": 8, "out_group_size": 1, "num_codebooks": 1, "nbits_per_codebook": 16}`,
		`{"quant_method": "spqr", "shapes": {"m.q.dense_weights.shape": 64, "m.q.row_offsets.shape": [5]}}`,
		`{"quant_method": "higgs", "bits": 3, "group_size": 0}`,
		`{"quant_method": "fp_quant", "forward_dtype": "mxfp4", "hadamard_group_size": 128}`,
		`{"quant_method": "hqq", "quant_config": {"weight_quant_params": {"nbits": 3, "group_size": 7, "axis": 0}}}`,
		`{"quant_method": "hqq", "quant_config": {"q": {"weight_quant_params": {"nbits": 4, "group_size": -1}}, "k": null}}`,
		`{"quant_method": "auto-round", "bits": 3, "group_size": -1, "packing_format": "auto_round:auto_awq"}`,
		`{"quant_method": "quark", "global_quant_config": {"weight": {"dtype": "fp8_e4m3", "qscheme": "per_channel"}, "input_tensors": null}, "exclude": ["[", "*"]}`,
		`{"quant_method": "vptq", "config_for_layers": {"m.q": {"vector_lens": [-1, 0], "num_centroids": [0, 3], "num_res_centroids": [-1, -1], "group_num": 0}}}`,
		`{"quant_method": "bitsandbytes", "load_in_4bit": true, "bnb_4bit_quant_storage": "float32", "bnb_4bit_use_double_quant": true}`,
		`{"quant_method": "compressed-tensors", "sparsity_config": {"format": "sparse-bitmask", "targets": ["re:("]}}`,
		`{"quant_method": "modelopt", "quant_algo": "INT4_AWQ", "group_size": 0}`,
	} {
		f.Add([]byte(`{"quantization_config": `+s+`}`), uint64(64), uint64(128))
	}
	f.Fuzz(func(t *testing.T, config []byte, o, i uint64) {
		r, _ := Load(config, nil)
		o, i = o%4096, i%4096
		for _, w := range []Weight{
			{Name: "m.q.weight", Kind: Linear, Shape: []uint64{o, i}},
			{Name: "lm_head.weight", Kind: Head, Shape: []uint64{o, i}},
			{Name: "m.experts.gate_up_proj", Kind: Experts, Shape: []uint64{2, i, o}},
			{Name: "m.e.weight", Kind: Linear, Shape: []uint64{3, o, i}},
		} {
			f, why := r.Expect(w)
			if f == nil && why == "" {
				t.Fatalf("%s: no form and no reason", w.Name)
			}
		}
	})
}
