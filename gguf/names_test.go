package gguf

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

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
		{"deepseek2", "blk.3.attn_kv_a_mqa.weight", "model.layers.3.self_attn.kv_a_proj_with_mqa.weight"},
		{"deepseek2", "blk.3.attn_kv_b.weight", "model.layers.3.self_attn.kv_b_proj.weight"},
		{"deepseek2", "blk.3.exp_probs_b.bias", "model.layers.3.mlp.gate.e_score_correction_bias"},
		{"deepseek2", "blk.3.ffn_down_shexp.weight", "model.layers.3.mlp.shared_experts.down_proj.weight"},
		{"gpt2", "position_embd.weight", "transformer.wpe.weight"},
		{"gpt2", "blk.11.attn_qkv.bias", "transformer.h.11.attn.c_attn.bias"},
		{"starcoder", "blk.0.ffn_down.weight", "transformer.h.0.mlp.c_proj.weight"},
		{"bloom", "token_embd_norm.weight", "transformer.word_embeddings_layernorm.weight"},
		{"bloom", "blk.2.attn_qkv.weight", "transformer.h.2.self_attention.query_key_value.weight"},
		{"falcon", "blk.0.attn_norm.bias", "transformer.h.0.input_layernorm.bias"},
		{"gptneox", "output.weight", "embed_out.weight"},
		{"gptneox", "blk.1.attn_output.weight", "gpt_neox.layers.1.attention.dense.weight"},
		{"phi2", "output_norm.bias", "model.final_layernorm.bias"},
		{"phi2", "blk.0.attn_output.weight", "model.layers.0.self_attn.dense.weight"},
		{"mpt", "blk.0.attn_qkv.weight", "transformer.blocks.0.attn.Wqkv.weight"},
		{"olmoe", "blk.0.ffn_gate_inp.weight", "model.layers.0.mlp.gate.weight"},
		{"smollm3", "blk.2.ffn_norm.weight", "model.layers.2.post_attention_layernorm.weight"},
		{"exaone4", "blk.0.post_attention_norm.weight", "model.layers.0.post_attention_layernorm.weight"},
		{"exaone4", "blk.0.post_ffw_norm.weight", "model.layers.0.post_feedforward_layernorm.weight"},
		{"ernie4_5", "blk.1.attn_k.bias", "model.layers.1.self_attn.k_proj.bias"},
		{"glm4moe", "blk.1.post_attention_norm.weight", "model.layers.1.post_attention_layernorm.weight"},
		{"glm4moe", "blk.1.exp_probs_b.bias", "model.layers.1.mlp.gate.e_score_correction_bias"},
		{"glm4moe", "blk.46.nextn.eh_proj.weight", "model.layers.46.eh_proj.weight"},
		{"glm4moe", "blk.46.nextn.shared_head_norm.weight", "model.layers.46.shared_head.norm.weight"},
		{"gpt-oss", "blk.0.attn_sinks.weight", "model.layers.0.self_attn.sinks"},
		{"lfm2", "token_embd_norm.weight", "model.embedding_norm.weight"},
		{"jamba", "output_norm.weight", "model.final_layernorm.weight"},
		{"jamba", "blk.0.ffn_norm.weight", "model.layers.0.pre_ff_layernorm.weight"},
		{"jamba", "blk.0.ssm_a", "model.layers.0.mamba.A_log"},
		{"jamba", "blk.0.ssm_b_norm.weight", "model.layers.0.mamba.b_layernorm.weight"},
		{"jamba", "blk.1.ffn_gate_inp.weight", "model.layers.1.feed_forward.router.weight"},
		{"lfm2", "blk.0.attn_norm.weight", "model.layers.0.operator_norm.weight"},
		{"lfm2", "blk.0.shortconv.in_proj.weight", "model.layers.0.conv.in_proj.weight"},
		{"lfm2", "blk.1.attn_output.weight", "model.layers.1.self_attn.out_proj.weight"},
		{"lfm2", "blk.1.ffn_up.weight", "model.layers.1.feed_forward.w3.weight"},
		{"gpt-oss", "blk.0.ffn_gate_inp.bias", "model.layers.0.mlp.router.bias"},
		{"gpt-oss", "blk.0.post_attention_norm.weight", "model.layers.0.post_attention_layernorm.weight"},
		{"granitemoe", "blk.0.ffn_down_exps.weight", "model.layers.0.block_sparse_moe.output_linear.weight"},
		{"nemotron", "blk.0.ffn_up.bias", "model.layers.0.mlp.up_proj.bias"},
		{"glm4", "blk.0.post_attention_norm.weight", "model.layers.0.post_self_attn_layernorm.weight"},
		{"glm4", "blk.0.ffn_up.weight", "model.layers.0.mlp.gate_up_proj.weight"},
		{"mamba", "blk.0.ssm_a", "backbone.layers.0.mixer.A_log"},
		{"mamba", "blk.0.ssm_conv1d.bias", "backbone.layers.0.mixer.conv1d.bias"},
		{"mamba", "output_norm.weight", "backbone.norm_f.weight"},
		{"cohere2", "blk.0.attn_norm.weight", "model.layers.0.input_layernorm.weight"},
		{"phimoe", "output.bias", "lm_head.bias"},
		{"phimoe", "blk.0.ffn_gate_inp.weight", "model.layers.0.block_sparse_moe.gate.weight"},
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
		{"internlm2", "token_embd.weight", "model.embed_tokens.weight"},
		{"phi3", "blk.0.attn_q.weight", "model.layers.0.self_attn.q_proj.weight"}, // fused
		{"olmo2", "blk.0.attn_norm.weight", "model.layers.0.input_layernorm.weight"},
		{"command-r", "blk.0.ffn_norm.weight", "model.layers.0.post_attention_layernorm.weight"},
		{"gpt2", "", "model.layers.0.attn.c_attn.weight"}, // GPT-2's layers are transformer.h.N
		{"deepseek2", "blk.0.exp_probs_b.weight", "model.layers.0.mlp.gate.e_score_correction_bias.weight"},
		{"olmo", "blk.0.attn_norm.weight", "model.layers.0.input_layernorm.weight"}, // no norms
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
		{"phimoe", "model.layers.1.block_sparse_moe.experts.2.w3.weight", "blk.1.ffn_up_exps.weight", 2},
		{"deepseek2", "model.layers.5.mlp.experts.255.down_proj.weight", "blk.5.ffn_down_exps.weight", 255},
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

func TestArchFor(t *testing.T) {
	keys := func(kv map[string]uint64) func(string) (uint64, bool) {
		return func(k string) (uint64, bool) { v, ok := kv[k]; return v, ok }
	}
	has := func(names ...string) func(string) bool {
		return func(n string) bool { return slices.Contains(names, n) }
	}
	for _, tt := range []struct {
		arch      string
		kv        map[string]uint64
		tensors   []string
		modelType string
	}{
		{"llama", nil, nil, "llama"},
		{"llama", map[string]uint64{"expert_count": 8}, nil, "mixtral"},
		{"deepseek2", nil, nil, "deepseek_v2"},
		{"deepseek2", map[string]uint64{"expert_gating_func": 1}, nil, "deepseek_v2"},
		{"deepseek2", map[string]uint64{"expert_gating_func": 2}, nil, "deepseek_v3"},
		// No gating function written: the sparse layers' correction
		// bias says V3; a gating function written decides.
		{"deepseek2", nil, []string{"blk.*.exp_probs_b.bias"}, "deepseek_v3"},
		{"deepseek2", map[string]uint64{"expert_gating_func": 1}, []string{"blk.*.exp_probs_b.bias"}, "deepseek_v2"},
		{"deepseek2", map[string]uint64{"expert_gating_func": 2}, []string{"blk.*.exp_probs_b.bias"}, "deepseek_v3"},
		{"granitemoe", nil, nil, "granitemoe"},
		{"granitemoe", nil, []string{"blk.0.ffn_up_shexp.weight"}, "granitemoeshared"},
		{"mamba", nil, nil, "mamba"},
		{"mamba", map[string]uint64{"ssm.dt_b_c_rms": 1}, nil, "falcon_mamba"},
		{"chatglm", nil, nil, "glm"},
		{"chatglm", nil, []string{"blk.0.attn_qkv.weight"}, ""}, // the remote-code layout: no spec
	} {
		a, ok := Architecture(tt.arch)
		if !ok {
			t.Fatalf("%s not covered", tt.arch)
		}
		if got := a.For(keys(tt.kv), has(tt.tensors...)).ModelType; got != tt.modelType {
			t.Errorf("%s %v %v: %s, want %s", tt.arch, tt.kv, tt.tensors, got, tt.modelType)
		}
	}
	f, _ := Architecture("falcon")
	f40 := f.For(keys(nil), has("blk.0.attn_norm_2.weight"))
	if n, _ := f40.GGUFName("transformer.h.0.ln_attn.weight"); n != "blk.0.attn_norm_2.weight" {
		t.Errorf("falcon-40b ln_attn: %q", n)
	}
	if n, _ := f.GGUFName("transformer.h.0.input_layernorm.weight"); n != "blk.0.attn_norm.weight" {
		t.Errorf("falcon-7b input_layernorm: %q", n)
	}
}

func TestFusedExperts(t *testing.T) {
	for name, want := range map[string][2]string{
		"blk.3.ffn_gate_exps.weight": {"blk.3.ffn_gate_up_exps.weight", "blk.3.ffn_up_exps.weight"},
		"blk.0.ffn_gate_exps.bias":   {"blk.0.ffn_gate_up_exps.bias", "blk.0.ffn_up_exps.bias"},
	} {
		f, up, ok := FusedExperts(name)
		if !ok || f != want[0] || up != want[1] {
			t.Errorf("%s: %q %q %v", name, f, up, ok)
		}
	}
	for _, name := range []string{"blk.3.ffn_up_exps.weight", "blk.3.ffn_gate.weight", "ffn_gate_exps.weight", "blk.3.ffn_gate_exps", "blk.x.ffn_gate_exps.weight"} {
		if _, _, ok := FusedExperts(name); ok {
			t.Errorf("%s: fused", name)
		}
	}
}

func TestLayerOf(t *testing.T) {
	if n, ok := LayerOf("blk.12.ffn_gate_inp.weight", "ffn_gate_inp.weight"); !ok || n != 12 {
		t.Errorf("blk.12: %d %v", n, ok)
	}
	for _, name := range []string{"blk.1.ffn_gate_inp.bias", "ffn_gate_inp.weight", "blk.x.ffn_gate_inp.weight", "blk.1.ffn_gate_inp.weight.x"} {
		if _, ok := LayerOf(name, "ffn_gate_inp.weight"); ok {
			t.Errorf("%s: a layer's ffn_gate_inp.weight", name)
		}
	}
}

func TestAnyLayer(t *testing.T) {
	for _, tt := range []struct {
		pattern, name string
		isPattern, ok bool
	}{
		{"blk.*.exp_probs_b.bias", "blk.3.exp_probs_b.bias", true, true},
		{"blk.*.exp_probs_b.bias", "blk.60.exp_probs_b.bias", true, true},
		{"blk.*.exp_probs_b.bias", "blk.3.exp_probs_b.weight", true, false},
		{"blk.*.exp_probs_b.bias", "blk.x.exp_probs_b.bias", true, false},
		{"blk.*.exp_probs_b.bias", "blk.03.exp_probs_b.bias", true, false},
		{"blk.*.exp_probs_b.bias", "exp_probs_b.bias", true, false},
		{"blk.*.exp_probs_b.bias", "", true, false},
		{"blk.0.exp_probs_b.bias", "blk.0.exp_probs_b.bias", false, false},
	} {
		p, ok := AnyLayer(tt.pattern, tt.name)
		if p != tt.isPattern || ok != tt.ok {
			t.Errorf("AnyLayer(%q, %q) = %v, %v; want %v, %v", tt.pattern, tt.name, p, ok, tt.isPattern, tt.ok)
		}
	}
}

func TestParts(t *testing.T) {
	a, _ := Architecture("deepseek2")
	ps, ok := a.Parts("model.layers.4.self_attn.kv_b_proj.weight")
	if !ok || len(ps) != 2 || ps[0].Name != "blk.4.attn_k_b.weight" || ps[1].Name != "blk.4.attn_v_b.weight" ||
		!slices.Equal(ps[0].Shape, []string{"num_attention_heads", "kv_lora_rank", "qk_nope_head_dim"}) ||
		!slices.Equal(ps[1].Shape, []string{"num_attention_heads", "v_head_dim", "kv_lora_rank"}) {
		t.Errorf("kv_b_proj: %v %v", ps, ok)
	}
	for _, hf := range []string{"model.layers.4.self_attn.kv_b_proj.bias", "model.layers.4.self_attn.q_b_proj.weight", "lm_head.weight", "model.layers.x.self_attn.kv_b_proj.weight"} {
		if ps, ok := a.Parts(hf); ok {
			t.Errorf("%s: cut into %v", hf, ps)
		}
	}
	o, _ := Architecture("gpt-oss")
	for hf, want := range map[string][]Part{
		"model.layers.2.mlp.experts.gate_up_proj": {{"blk.2.ffn_gate_exps.weight", []string{"num_local_experts", "intermediate_size", "hidden_size"}},
			{"blk.2.ffn_up_exps.weight", []string{"num_local_experts", "intermediate_size", "hidden_size"}}},
		"model.layers.2.mlp.experts.gate_up_proj_bias": {{"blk.2.ffn_gate_exps.bias", []string{"num_local_experts", "intermediate_size"}},
			{"blk.2.ffn_up_exps.bias", []string{"num_local_experts", "intermediate_size"}}},
		"model.layers.2.mlp.experts.down_proj":      {{"blk.2.ffn_down_exps.weight", []string{"num_local_experts", "hidden_size", "intermediate_size"}}},
		"model.layers.2.mlp.experts.down_proj_bias": {{"blk.2.ffn_down_exps.bias", []string{"num_local_experts", "hidden_size"}}},
	} {
		ps, ok := o.Parts(hf)
		if !ok || !slices.EqualFunc(ps, want, func(a, b Part) bool { return a.Name == b.Name && slices.Equal(a.Shape, b.Shape) }) {
			t.Errorf("gpt-oss %s: %v %v", hf, ps, ok)
		}
	}
	g, _ := Architecture("granitemoe")
	if ps, ok := g.Parts("model.layers.0.block_sparse_moe.input_linear.weight"); !ok || ps[0].Name != "blk.0.ffn_gate_exps.weight" || ps[1].Name != "blk.0.ffn_up_exps.weight" {
		t.Errorf("input_linear: %v %v", ps, ok)
	}
	// A dropped prefix: Chameleon's image tokenizer, every tensor under
	// it cut into no part, and nothing beside it.
	c, _ := Architecture("chameleon")
	for hf, dropped := range map[string]bool{"model.vqmodel.encoder.conv_in.weight": true, "model.vqmodel.quantize.embedding.weight": true,
		"model.vqmodel": false, "model.vqmodelx.weight": false, "model.embed_tokens.weight": false, "model.layers.0.self_attn.q_norm.bias": false} {
		if ps, ok := c.Parts(hf); ok != dropped || ok && len(ps) != 0 {
			t.Errorf("chameleon %s: %v %v, want dropped %v", hf, ps, ok, dropped)
		}
	}
}

// TestArchitecturesDocumented: docs/gguf-architectures.md's table of
// covered architectures has a row naming each architecture of the table
// (as `name` in its first column), and README gives their number.
func TestArchitecturesDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/gguf-architectures.md")
	if err != nil {
		t.Fatal(err)
	}
	covered, _, _ := strings.Cut(string(doc), "Not covered yet")
	documented := map[string]bool{}
	for _, l := range strings.Split(covered, "\n") {
		if first, ok := strings.CutPrefix(l, "| `"); ok {
			first, _, _ = strings.Cut(first, " |")
			for _, n := range strings.Split(first, ", ") {
				documented[strings.Trim(n, "`")] = true
			}
		}
	}
	names := Architectures()
	for _, n := range names {
		if !documented[n] {
			t.Errorf("docs/gguf-architectures.md: no row for %s", n)
		}
	}
	slices.Sort(names)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("GGUFs of %d llama.cpp architectures", len(slices.Compact(names))); !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not say %q", want)
	}
}
