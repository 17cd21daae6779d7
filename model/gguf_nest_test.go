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
