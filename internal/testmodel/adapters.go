package testmodel

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"sort"

	"github.com/fsmount/fsmount/spec"
)

// Bases of the real adapters in testdata/adapters, as header-only
// tensor lists with the shapes of the named checkpoints (their weights
// are not in the repository): GPT-2 small and distilgpt2, whose Hub
// checkpoints name the bare GPT2Model (h.0.attn.c_attn.weight, no
// "transformer."), Conv1D weights stored [in, out]; BLOOM-560m, likewise
// bare; DistilBERT and BERT base as their MaskedLM/PreTraining
// checkpoints.

// GPT2Tensors returns GPT-2's tensors for layers blocks of width 768.
func GPT2Tensors(layers int) []Tensor {
	const H, V, P = 768, 50257, 1024
	ts := []Tensor{{Name: "wte.weight", DType: "F32", Shape: []uint64{V, H}}, {Name: "wpe.weight", DType: "F32", Shape: []uint64{P, H}}}
	for l := range layers {
		p := fmt.Sprintf("h.%d.", l)
		add := func(n string, s ...uint64) { ts = append(ts, Tensor{Name: p + n, DType: "F32", Shape: s}) }
		add("ln_1.weight", H)
		add("ln_1.bias", H)
		add("attn.c_attn.weight", H, 3*H)
		add("attn.c_attn.bias", 3*H)
		add("attn.c_proj.weight", H, H)
		add("attn.c_proj.bias", H)
		add("ln_2.weight", H)
		add("ln_2.bias", H)
		add("mlp.c_fc.weight", H, 4*H)
		add("mlp.c_fc.bias", 4*H)
		add("mlp.c_proj.weight", 4*H, H)
		add("mlp.c_proj.bias", H)
	}
	ts = append(ts, Tensor{Name: "ln_f.weight", DType: "F32", Shape: []uint64{H}}, Tensor{Name: "ln_f.bias", DType: "F32", Shape: []uint64{H}})
	return ts
}

// GPT2Config is GPT2Config()'s config.json, with n_layer layers.
func GPT2Config(layers int) string {
	return fmt.Sprintf(`{"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": %d, "n_positions": 1024, "vocab_size": 50257}`, layers)
}

// BloomTensors returns BLOOM-560m's tensors.
func BloomTensors() []Tensor {
	const H, V, L = 1024, 250880, 24
	ts := []Tensor{{Name: "word_embeddings.weight", DType: "F16", Shape: []uint64{V, H}},
		{Name: "word_embeddings_layernorm.weight", DType: "F16", Shape: []uint64{H}}, {Name: "word_embeddings_layernorm.bias", DType: "F16", Shape: []uint64{H}}}
	for l := range L {
		p := fmt.Sprintf("h.%d.", l)
		add := func(n string, s ...uint64) { ts = append(ts, Tensor{Name: p + n, DType: "F16", Shape: s}) }
		add("input_layernorm.weight", H)
		add("input_layernorm.bias", H)
		add("self_attention.query_key_value.weight", 3*H, H)
		add("self_attention.query_key_value.bias", 3*H)
		add("self_attention.dense.weight", H, H)
		add("self_attention.dense.bias", H)
		add("post_attention_layernorm.weight", H)
		add("post_attention_layernorm.bias", H)
		add("mlp.dense_h_to_4h.weight", 4*H, H)
		add("mlp.dense_h_to_4h.bias", 4*H)
		add("mlp.dense_4h_to_h.weight", H, 4*H)
		add("mlp.dense_4h_to_h.bias", H)
	}
	ts = append(ts, Tensor{Name: "ln_f.weight", DType: "F16", Shape: []uint64{H}}, Tensor{Name: "ln_f.bias", DType: "F16", Shape: []uint64{H}})
	return ts
}

// encoderLayers appends to ts the F32 tensors of n BERT-shaped encoder
// layers, named prefix (a format of the layer's index) and then m: each a
// weight and a bias, query, key, value and output (H×H), the norm after
// attention, the FFN's in (I×H) and out (H×I), the last norm.
func encoderLayers(ts []Tensor, prefix string, n int, H, I uint64, m []string) []Tensor {
	for l := range n {
		p := fmt.Sprintf(prefix, l)
		add := func(n string, s ...uint64) { ts = append(ts, Tensor{Name: p + n, DType: "F32", Shape: s}) }
		for _, q := range m[:4] {
			add(q+".weight", H, H)
			add(q+".bias", H)
		}
		add(m[4]+".weight", H)
		add(m[4]+".bias", H)
		add(m[5]+".weight", I, H)
		add(m[5]+".bias", I)
		add(m[6]+".weight", H, I)
		add(m[6]+".bias", H)
		add(m[7]+".weight", H)
		add(m[7]+".bias", H)
	}
	return ts
}

// BloomConfig is bigscience/bloom-560m's config.json, in part.
const BloomConfig = `{"architectures": ["BloomForCausalLM"], "model_type": "bloom", "hidden_size": 1024, "n_head": 16, "n_layer": 24, "vocab_size": 250880}`

// DistilBERTTensors returns distilbert-base-uncased's tensors.
func DistilBERTTensors() []Tensor {
	const H, V, P, I = 768, 30522, 512, 3072
	ts := []Tensor{{Name: "distilbert.embeddings.word_embeddings.weight", DType: "F32", Shape: []uint64{V, H}},
		{Name: "distilbert.embeddings.position_embeddings.weight", DType: "F32", Shape: []uint64{P, H}},
		{Name: "distilbert.embeddings.LayerNorm.weight", DType: "F32", Shape: []uint64{H}}, {Name: "distilbert.embeddings.LayerNorm.bias", DType: "F32", Shape: []uint64{H}}}
	ts = encoderLayers(ts, "distilbert.transformer.layer.%d.", 6, H, I, []string{"attention.q_lin", "attention.k_lin", "attention.v_lin",
		"attention.out_lin", "sa_layer_norm", "ffn.lin1", "ffn.lin2", "output_layer_norm"})
	for _, t := range []Tensor{{Name: "vocab_transform.weight", Shape: []uint64{H, H}}, {Name: "vocab_transform.bias", Shape: []uint64{H}},
		{Name: "vocab_layer_norm.weight", Shape: []uint64{H}}, {Name: "vocab_layer_norm.bias", Shape: []uint64{H}}, {Name: "vocab_projector.bias", Shape: []uint64{V}}} {
		t.DType = "F32"
		ts = append(ts, t)
	}
	return ts
}

// DistilBERTConfig is distilbert-base-uncased's config.json, in part.
const DistilBERTConfig = `{"architectures": ["DistilBertForMaskedLM"], "model_type": "distilbert", "dim": 768, "hidden_dim": 3072, "n_heads": 12, "n_layers": 6, "vocab_size": 30522}`

// BERTTensors returns bert-base-uncased's encoder tensors.
func BERTTensors() []Tensor {
	const H, V, I = 768, 30522, 3072
	ts := []Tensor{{Name: "bert.embeddings.word_embeddings.weight", DType: "F32", Shape: []uint64{V, H}},
		{Name: "bert.embeddings.position_embeddings.weight", DType: "F32", Shape: []uint64{512, H}},
		{Name: "bert.embeddings.token_type_embeddings.weight", DType: "F32", Shape: []uint64{2, H}},
		{Name: "bert.embeddings.LayerNorm.weight", DType: "F32", Shape: []uint64{H}}, {Name: "bert.embeddings.LayerNorm.bias", DType: "F32", Shape: []uint64{H}}}
	ts = encoderLayers(ts, "bert.encoder.layer.%d.", 12, H, I, []string{"attention.self.query", "attention.self.key", "attention.self.value",
		"attention.output.dense", "attention.output.LayerNorm", "intermediate.dense", "output.dense", "output.LayerNorm"})
	ts = append(ts, Tensor{Name: "bert.pooler.dense.weight", DType: "F32", Shape: []uint64{H, H}}, Tensor{Name: "bert.pooler.dense.bias", DType: "F32", Shape: []uint64{H}})
	return ts
}

// BERTConfig is bert-base-uncased's config.json, in part.
const BERTConfig = `{"architectures": ["BertForMaskedLM"], "model_type": "bert", "hidden_size": 768, "intermediate_size": 3072, "num_attention_heads": 12, "num_hidden_layers": 12, "vocab_size": 30522}`

// WriteHeaderOnly writes config.json and a model.safetensors whose data
// section is a hole: the tensor list of a model whose weights are not at
// hand.
func WriteHeaderOnly(dir, config string, tensors []Tensor) error {
	if err := writeInto(dir, "config.json", []byte(config)); err != nil {
		return err
	}
	entries, _ := Layout(tensors)
	return WriteSparse(filepath.Join(dir, "model.safetensors"), entries, map[string]string{"format": "pt"})
}

// FillF32 returns n/4 deterministic float32 values in [-1, 1), as bytes.
func FillF32(seed uint64, name string, n uint64) []byte {
	out := Fill(seed, name, n)
	for i := 0; i+3 < len(out); i += 4 {
		u := binary.LittleEndian.Uint32(out[i:])
		v := float32(u>>8)/float32(1<<23) - 1
		binary.LittleEndian.PutUint32(out[i:], math.Float32bits(v))
	}
	return out
}

// WriteAdapter writes adapter_config.json and adapter_model.safetensors
// into dir; tensors without data get FillF32 values (F32) or zeros.
func WriteAdapter(dir, config string, tensors []Tensor) error {
	for i := range tensors {
		if tensors[i].Data == nil && tensors[i].DType == "F32" {
			tensors[i].Data = FillF32(7, tensors[i].Name, NBytes("F32", tensors[i].Shape))
		}
	}
	return writeDir(dir, "adapter_config.json", config, "adapter_model.safetensors", tensors)
}

// TinyAdapterConfig is a LoRA adapter's config for the tiny model.
const TinyAdapterConfig = `{"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "testdata/tiny-qwen3", "r": 4, "lora_alpha": 8, "lora_dropout": 0.05, "bias": "none", "target_modules": ["q_proj", "v_proj"]}`

// TinyAdapterTensors are TinyAdapterConfig's tensors.
func TinyAdapterTensors() []Tensor {
	return loraPairs(2, 4, map[string][2]uint64{"self_attn.q_proj": {64, 32}, "self_attn.v_proj": {32, 32}})
}

// Qwen06BAdapterConfig is a LoRA adapter's config for Qwen3-0.6B, on
// every linear layer.
const Qwen06BAdapterConfig = `{"peft_type": "LORA", "task_type": "CAUSAL_LM", "base_model_name_or_path": "Qwen/Qwen3-0.6B", "r": 16, "lora_alpha": 32, "bias": "none", "target_modules": ["q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"]}`

// Qwen06BAdapterTensors are Qwen06BAdapterConfig's tensors.
func Qwen06BAdapterTensors() []Tensor {
	return loraPairs(28, 16, map[string][2]uint64{"self_attn.q_proj": {2048, 1024}, "self_attn.k_proj": {1024, 1024}, "self_attn.v_proj": {1024, 1024},
		"self_attn.o_proj": {1024, 2048}, "mlp.gate_proj": {3072, 1024}, "mlp.up_proj": {3072, 1024}, "mlp.down_proj": {1024, 3072}})
}

// loraPairs returns lora_A [r, in] and lora_B [out, r] of each module
// ([out, in]) in each of layers layers, F32, with PEFT's key prefix.
func loraPairs(layers int, r uint64, mods map[string][2]uint64) []Tensor {
	var ts []Tensor
	for l := range layers {
		for m, s := range mods {
			k := fmt.Sprintf("base_model.model.model.layers.%d.%s", l, m)
			ts = append(ts, Tensor{Name: k + ".lora_A.weight", DType: "F32", Shape: []uint64{r, s[1]}},
				Tensor{Name: k + ".lora_B.weight", DType: "F32", Shape: []uint64{s[0], r}})
		}
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i].Name < ts[j].Name })
	return ts
}

// WriteLlamaBase writes the header-only base of a Llama config (its
// tensors as package spec derives them from config.json, BF16).
func WriteLlamaBase(dir, configPath string) error {
	cfg, err := LoadConfig(configPath)
	if err != nil {
		return err
	}
	plan, err := spec.Expect(cfg)
	if err != nil {
		return err
	}
	var ts []Tensor
	for _, e := range plan.Tensors {
		if !e.Optional {
			ts = append(ts, Tensor{Name: e.Name, DType: "BF16", Shape: e.ShapeValues()})
		}
	}
	return WriteHeaderOnly(dir, string(cfg.Raw), ts)
}
