package model

import (
	"encoding/json"
	"testing"
)

// TestNest: a GGUF's derived config holds a dotted field inside its
// object, as the Hugging Face config of a nested sub-config does (DBRX's
// ffn_config.moe_num_experts), beside the object's other fields.
func TestNest(t *testing.T) {
	c := map[string]any{"d_model": 16, "ffn_config.moe_num_experts": 4, "ffn_config.ffn_hidden_size": 24,
		"attn_config": map[string]any{"clip_qkv": 8}, "attn_config.kv_n_heads": 2, "a.b.c": 1}
	nest(c)
	got, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"a":{"b":{"c":1}},"attn_config":{"clip_qkv":8,"kv_n_heads":2},"d_model":16,"ffn_config":{"ffn_hidden_size":24,"moe_num_experts":4}}`
	if string(got) != want {
		t.Errorf("nest: %s, want %s", got, want)
	}
}

// TestGGUFRowsPermuted: the model types whose converter permutes the q/k
// rows (LlamaModel.permute: Llama, Mistral, SmolLM3, Chameleon) get them
// restored, q by the attention heads and k by the KV heads; others not.
func TestGGUFRowsPermuted(t *testing.T) {
	for mt, permuted := range map[string]bool{"llama": true, "mistral": true, "smollm3": true, "chameleon": true, "qwen2": false, "afmoe": false} {
		m := &Model{Format: FormatGGUF, Config: []byte(`{"model_type":"` + mt + `","num_attention_heads":4,"num_key_value_heads":2}`)}
		q := m.GGUFRows("model.layers.0.self_attn.q_proj.weight", []uint64{16, 16})
		k := m.GGUFRows("model.layers.0.self_attn.k_proj.weight", []uint64{8, 16})
		if (q != nil) != permuted || (k != nil) != permuted {
			t.Errorf("%s: q %v, k %v; want permuted %v", mt, q != nil, k != nil, permuted)
			continue
		}
		if permuted && (q(1) != 2 || q(2) != 1 || k(1) != 2 || k(3) != 3) { // heads of 4 rows: 0 2 1 3
			t.Errorf("%s: q rows 1, 2 → %d, %d; k rows 1, 3 → %d, %d", mt, q(1), q(2), k(1), k(3))
		}
	}
}
