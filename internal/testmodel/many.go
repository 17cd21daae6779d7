package testmodel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ManyTensorsLayers and ManyTensorsExperts shape the model of
// WriteManyTensors: 48 layers of 3,469 experts, each layer 3 × 3,469
// expert matrices and 9 other tensors, and the embedding, final norm and
// head: 499,971 tensors, the half-million-tensor model of #25.
const (
	ManyTensorsLayers  = 48
	ManyTensorsExperts = 3469
)

// WriteManyTensors writes into dir a Qwen3-MoE checkpoint of about half a
// million tensors with small dimensions (hidden 64, 4 heads of 16), one
// sparse shard per layer, its index and its config. It returns the
// number of tensors.
func WriteManyTensors(dir string) (int, error) {
	return WriteMoE(dir, ManyTensorsLayers, ManyTensorsExperts)
}

// WriteMoE is WriteManyTensors with the given numbers of layers and
// experts: 3 × experts + 9 tensors a layer, and 3 more.
func WriteMoE(dir string, layers, experts int) (int, error) {
	cfg := map[string]any{
		"architectures":         []string{"Qwen3MoeForCausalLM"},
		"model_type":            "qwen3_moe",
		"dtype":                 "bfloat16",
		"hidden_size":           64,
		"intermediate_size":     128,
		"moe_intermediate_size": 32,
		"num_hidden_layers":     layers,
		"num_experts":           experts,
		"num_experts_per_tok":   8,
		"num_attention_heads":   4,
		"num_key_value_heads":   2,
		"head_dim":              16,
		"vocab_size":            1024,
		"decoder_sparse_step":   1,
		"mlp_only_layers":       []int{},
		"tie_word_embeddings":   false,
		"rms_norm_eps":          1e-6,
	}
	raw, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return 0, err
	}
	plan, err := Plan(raw)
	if err != nil {
		return 0, err
	}
	shapes := make(map[string][]uint64, len(plan.Tensors))
	wm := make(map[string]string, len(plan.Tensors))
	for _, e := range plan.Tensors {
		shapes[e.Name] = e.ShapeValues()
		layer := 0
		fmt.Sscanf(e.Name, "model.layers.%d.", &layer)
		wm[e.Name] = fmt.Sprintf("model-%05d-of-%05d.safetensors", layer+1, layers)
	}
	total, err := WriteSparseShards(dir, wm, func(n string) (string, []uint64) { return "BF16", shapes[n] })
	if err != nil {
		return 0, err
	}
	idx, err := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": total}, "weight_map": wm})
	if err != nil {
		return 0, err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), idx, 0o644); err != nil {
		return 0, err
	}
	// The config last: its presence says the model is complete.
	return len(plan.Tensors), os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644)
}
