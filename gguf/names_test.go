package gguf

import "testing"

func TestNames(t *testing.T) {
	tests := []struct {
		arch, gguf, hf string
	}{
		{"llama", "token_embd.weight", "model.embed_tokens.weight"},
		{"llama", "output.weight", "lm_head.weight"},
		{"llama", "output_norm.weight", "model.norm.weight"},
		{"llama", "blk.0.attn_norm.weight", "model.layers.0.input_layernorm.weight"},
		{"llama", "blk.31.attn_q.weight", "model.layers.31.self_attn.q_proj.weight"},
		{"llama", "blk.1.attn_k.weight", "model.layers.1.self_attn.k_proj.weight"},
		{"llama", "blk.1.attn_v.weight", "model.layers.1.self_attn.v_proj.weight"},
		{"llama", "blk.1.attn_output.weight", "model.layers.1.self_attn.o_proj.weight"},
		{"llama", "blk.2.ffn_norm.weight", "model.layers.2.post_attention_layernorm.weight"},
		{"llama", "blk.2.ffn_gate.weight", "model.layers.2.mlp.gate_proj.weight"},
		{"llama", "blk.2.ffn_up.weight", "model.layers.2.mlp.up_proj.weight"},
		{"llama", "blk.2.ffn_down.weight", "model.layers.2.mlp.down_proj.weight"},
		{"llama", "blk.0.ffn_gate_inp.weight", "model.layers.0.block_sparse_moe.gate.weight"},
		{"qwen2", "blk.5.attn_q.bias", "model.layers.5.self_attn.q_proj.bias"},
		{"qwen3", "blk.0.attn_q_norm.weight", "model.layers.0.self_attn.q_norm.weight"},
		{"qwen3", "blk.0.attn_k_norm.weight", "model.layers.0.self_attn.k_norm.weight"},
		{"qwen3moe", "blk.3.ffn_gate_inp.weight", "model.layers.3.mlp.gate.weight"},
		{"qwen3moe", "blk.3.ffn_down_exps.weight", "model.layers.3.mlp.experts.down_proj.weight"},
		{"gemma2", "blk.0.post_attention_norm.weight", "model.layers.0.post_attention_layernorm.weight"},
		{"gemma2", "blk.0.ffn_norm.weight", "model.layers.0.pre_feedforward_layernorm.weight"},
		{"gemma2", "blk.0.post_ffw_norm.weight", "model.layers.0.post_feedforward_layernorm.weight"},
		{"gemma3", "output.weight", "lm_head.weight"},
		{"gemma3", "blk.4.attn_k_norm.weight", "model.layers.4.self_attn.k_norm.weight"},
		{"qwen2moe", "blk.1.ffn_gate_inp_shexp.weight", "model.layers.1.mlp.shared_expert_gate.weight"},
		{"qwen2moe", "blk.1.ffn_down_shexp.weight", "model.layers.1.mlp.shared_expert.down_proj.weight"},
		{"phi3", "blk.0.attn_qkv.weight", "model.layers.0.self_attn.qkv_proj.weight"},
		{"phi3", "blk.0.ffn_up.weight", "model.layers.0.mlp.gate_up_proj.weight"},
		{"starcoder2", "blk.0.ffn_up.bias", "model.layers.0.mlp.c_fc.bias"},
		{"starcoder2", "output_norm.bias", "model.norm.bias"},
		{"olmo2", "blk.0.post_attention_norm.weight", "model.layers.0.post_attention_layernorm.weight"},
		{"olmo2", "blk.0.post_ffw_norm.weight", "model.layers.0.post_feedforward_layernorm.weight"},
		{"command-r", "blk.0.attn_q_norm.weight", "model.layers.0.self_attn.q_norm.weight"},
		{"granite", "blk.0.ffn_norm.weight", "model.layers.0.post_attention_layernorm.weight"},
	}
	for _, tt := range tests {
		if got, ok := HFName(tt.arch, tt.gguf); !ok || got != tt.hf {
			t.Errorf("HFName(%s, %s) = %q %v, want %q", tt.arch, tt.gguf, got, ok, tt.hf)
		}
		if got, ok := GGUFName(tt.arch, tt.hf); !ok || got != tt.gguf {
			t.Errorf("GGUFName(%s, %s) = %q %v, want %q", tt.arch, tt.hf, got, ok, tt.gguf)
		}
	}
	for _, bad := range []struct{ arch, gguf, hf string }{
		{"gemma", "output.weight", "lm_head.weight"}, // gemma has no output tensor
		{"gemma2", "", "model.layers.0.pre_feedforward_layernorm_x.weight"},
		{"llama", "blk.x.attn_q.weight", "model.layers.x.self_attn.q_proj.weight"},
		{"llama", "blk.01.attn_q.weight", "model.layers.01.self_attn.q_proj.weight"},
		{"llama", "blk.0.nonsense.weight", "model.layers.0.nonsense.weight"},
		{"qwen2", "blk.0.post_ffw_norm.weight", "model.layers.0.post_feedforward_layernorm.weight"},
		{"mamba", "token_embd.weight", "model.embed_tokens.weight"},
		{"phi3", "blk.0.attn_q.weight", "model.layers.0.self_attn.q_proj.weight"}, // fused
		{"olmo2", "blk.0.attn_norm.weight", "model.layers.0.input_layernorm.weight"},
		{"command-r", "blk.0.ffn_norm.weight", "model.layers.0.post_attention_layernorm.weight"},
	} {
		if got, ok := HFName(bad.arch, bad.gguf); ok && bad.gguf != "" {
			t.Errorf("HFName(%s, %s) = %q, want none", bad.arch, bad.gguf, got)
		}
		if got, ok := GGUFName(bad.arch, bad.hf); ok {
			t.Errorf("GGUFName(%s, %s) = %q, want none", bad.arch, bad.hf, got)
		}
	}
}

func TestExpertName(t *testing.T) {
	for _, tt := range []struct {
		arch, hf, gguf string
		expert         int
	}{
		{"qwen3moe", "model.layers.2.mlp.experts.7.up_proj.weight", "blk.2.ffn_up_exps.weight", 7},
		{"qwen2moe", "model.layers.0.mlp.experts.59.gate_proj.weight", "blk.0.ffn_gate_exps.weight", 59},
		{"llama", "model.layers.0.block_sparse_moe.experts.1.w2.weight", "blk.0.ffn_down_exps.weight", 1},
		{"llama", "model.layers.9.block_sparse_moe.experts.3.w1.weight", "blk.9.ffn_gate_exps.weight", 3},
		{"llama", "model.layers.9.block_sparse_moe.experts.3.w3.weight", "blk.9.ffn_up_exps.weight", 3},
	} {
		name, e, ok := ExpertName(tt.arch, tt.hf)
		if !ok || name != tt.gguf || e != tt.expert {
			t.Errorf("ExpertName(%s, %s) = %q %d %v", tt.arch, tt.hf, name, e, ok)
		}
	}
	for _, hf := range []string{"model.layers.0.mlp.experts.x.up_proj.weight", "model.layers.0.mlp.up_proj.weight", "model.layers.0.mlp.experts.1.w9.weight"} {
		if _, _, ok := ExpertName("qwen3moe", hf); ok {
			t.Errorf("ExpertName(%s) ok", hf)
		}
	}
}

// The example of gguf.md §5.3: 2 heads of 8 rows.
func TestRowPermutation(t *testing.T) {
	want := []int{0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15}
	for r, w := range want {
		got, err := HFRow(r, 16, 2)
		if err != nil || got != w {
			t.Errorf("HFRow(%d) = %d %v, want %d", r, got, err, w)
		}
		back, err := GGUFRow(w, 16, 2)
		if err != nil || back != r {
			t.Errorf("GGUFRow(%d) = %d %v, want %d", w, back, err, r)
		}
	}
	// The same as the converter's reshape: W.reshape(heads, 2, hd/2, …)
	// .swapaxes(1, 2): GGUF row (h, b, a) is HF row (h, a, b).
	rows, heads := 4096, 32
	hd := rows / heads
	seen := make([]bool, rows)
	for h := 0; h < heads; h++ {
		for b := 0; b < hd/2; b++ {
			for a := 0; a < 2; a++ {
				g := h*hd + b*2 + a
				got, _ := HFRow(g, rows, heads)
				if want := h*hd + a*(hd/2) + b; got != want {
					t.Fatalf("HFRow(%d) = %d, want %d", g, got, want)
				}
				if back, _ := GGUFRow(got, rows, heads); back != g {
					t.Fatalf("GGUFRow(HFRow(%d)) = %d", g, back)
				}
				seen[got] = true
			}
		}
	}
	for r, ok := range seen {
		if !ok {
			t.Fatalf("row %d never reached: not a permutation", r)
		}
	}
	for _, bad := range [][3]int{{0, 16, 3}, {0, 15, 3}, {16, 16, 2}, {-1, 16, 2}, {0, 16, 0}, {0, 0, 1}} {
		if _, err := HFRow(bad[0], bad[1], bad[2]); err == nil {
			t.Errorf("HFRow%v: no error", bad)
		}
	}
}
