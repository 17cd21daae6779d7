package gguf

import (
	"fmt"
	"strconv"
	"strings"
)

// Tensor names of Hugging Face checkpoints and of GGUF (gguf.md §5.1, from
// gguf-py's TensorNameMap). The mapping depends on the architecture: HF
// post_attention_layernorm is GGUF ffn_norm for llama and qwen, but
// post_attention_norm for gemma2 and gemma3, whose ffn_norm is HF
// pre_feedforward_layernorm.

// namePair is a GGUF base name and the HF base name it comes from.
type namePair struct{ gguf, hf string }

var globalNames = []namePair{
	{"token_embd", "model.embed_tokens"},
	{"output_norm", "model.norm"},
	{"output", "lm_head"},
}

// layerNames are the per-layer names common to the architectures, without
// the "blk.N." and "model.layers.N." prefixes.
var layerNames = []namePair{
	{"attn_norm", "input_layernorm"},
	{"attn_q", "self_attn.q_proj"},
	{"attn_k", "self_attn.k_proj"},
	{"attn_v", "self_attn.v_proj"},
	{"attn_output", "self_attn.o_proj"},
	{"attn_q_norm", "self_attn.q_norm"},
	{"attn_k_norm", "self_attn.k_norm"},
	{"ffn_gate", "mlp.gate_proj"},
	{"ffn_up", "mlp.up_proj"},
	{"ffn_down", "mlp.down_proj"},
}

// Per-family additions.
var (
	plainNorms = []namePair{{"ffn_norm", "post_attention_layernorm"}}
	gemmaNorms = []namePair{
		{"post_attention_norm", "post_attention_layernorm"},
		{"ffn_norm", "pre_feedforward_layernorm"},
		{"post_ffw_norm", "post_feedforward_layernorm"},
	}
	// Qwen MoE: the router and the experts stacked by the converter
	// (the merged names of gguf-py's table).
	qwenMoE = []namePair{
		{"ffn_gate_inp", "mlp.gate"},
		{"ffn_gate_exps", "mlp.experts.gate_proj"},
		{"ffn_up_exps", "mlp.experts.up_proj"},
		{"ffn_down_exps", "mlp.experts.down_proj"},
	}
	// Mixtral, converted as llama: the router.
	mixtralMoE = []namePair{{"ffn_gate_inp", "block_sparse_moe.gate"}}
)

type nameTable struct {
	global, layer []namePair
}

// tableFor returns the names of an architecture, and false for one not
// covered.
func tableFor(arch string) (nameTable, bool) {
	layer := func(extra ...[]namePair) []namePair {
		out := append([]namePair(nil), layerNames...)
		for _, e := range extra {
			out = append(out, e...)
		}
		return out
	}
	switch arch {
	case "llama", "mistral3":
		return nameTable{globalNames, layer(plainNorms, mixtralMoE)}, true
	case "qwen2", "qwen3":
		return nameTable{globalNames, layer(plainNorms)}, true
	case "qwen2moe", "qwen3moe":
		return nameTable{globalNames, layer(plainNorms, qwenMoE)}, true
	case "gemma":
		// Gemma never has an output tensor: the head is the embedding.
		return nameTable{globalNames[:2], layer(plainNorms)}, true
	case "gemma2":
		return nameTable{globalNames[:2], layer(gemmaNorms)}, true
	case "gemma3":
		return nameTable{globalNames, layer(gemmaNorms)}, true
	}
	return nameTable{}, false
}

// splitSuffix splits ".weight" or ".bias" off a name.
func splitSuffix(name string) (base, suffix string) {
	for _, s := range []string{".weight", ".bias"} {
		if strings.HasSuffix(name, s) {
			return name[:len(name)-len(s)], s
		}
	}
	return name, ""
}

// splitLayer parses "<prefix><N>.<rest>", returning N and rest.
func splitLayer(name, prefix string) (int, string, bool) {
	s, ok := strings.CutPrefix(name, prefix)
	if !ok {
		return 0, "", false
	}
	num, rest, ok := strings.Cut(s, ".")
	if !ok || num == "" || len(num) > 9 || !allDigits(num) || (len(num) > 1 && num[0] == '0') {
		return 0, "", false
	}
	n, _ := strconv.Atoi(num)
	return n, rest, true
}

// HFName returns the Hugging Face name of a GGUF tensor of an
// architecture ("llama", "qwen3", "gemma2", …): for "llama",
// "blk.3.attn_q.weight" is "model.layers.3.self_attn.q_proj.weight". It
// returns false for a name or architecture not in the table.
func HFName(arch, name string) (string, bool) {
	return translate(arch, name, "blk.", "model.layers.", func(p namePair) (string, string) { return p.gguf, p.hf })
}

// GGUFName returns the GGUF name of a Hugging Face tensor of an
// architecture, the inverse of [HFName]: for "gemma2",
// "model.layers.0.pre_feedforward_layernorm.weight" is
// "blk.0.ffn_norm.weight".
func GGUFName(arch, hf string) (string, bool) {
	return translate(arch, hf, "model.layers.", "blk.", func(p namePair) (string, string) { return p.hf, p.gguf })
}

// translate maps name through arch's table, whose pairs dir turns into
// (from, to); layer tensors are fromLayer+N+"."+… and become
// toLayer+N+"."+….
func translate(arch, name, fromLayer, toLayer string, dir func(namePair) (from, to string)) (string, bool) {
	tab, ok := tableFor(arch)
	if !ok {
		return "", false
	}
	base, suffix := splitSuffix(name)
	pairs, prefix := tab.global, ""
	if n, rest, ok := splitLayer(base, fromLayer); ok {
		pairs, prefix, base = tab.layer, toLayer+strconv.Itoa(n)+".", rest
	}
	for _, p := range pairs {
		if from, to := dir(p); from == base {
			return prefix + to + suffix, true
		}
	}
	return "", false
}

// ExpertName maps one expert's Hugging Face tensor to the GGUF tensor the
// converter stacks the experts into, and the expert's index along its
// outermost dimension: for "qwen3moe",
// "model.layers.2.mlp.experts.7.up_proj.weight" is expert 7 of
// "blk.2.ffn_up_exps.weight"; for "llama" (Mixtral),
// "model.layers.0.block_sparse_moe.experts.1.w2.weight" is expert 1 of
// "blk.0.ffn_down_exps.weight".
func ExpertName(arch, hf string) (name string, expert int, ok bool) {
	base, suffix := splitSuffix(hf)
	n, rest, ok := splitLayer(base, "model.layers.")
	if !ok {
		return "", 0, false
	}
	var kinds map[string]string
	switch arch {
	case "qwen2moe", "qwen3moe":
		rest, ok = strings.CutPrefix(rest, "mlp.experts.")
		kinds = map[string]string{"gate_proj": "ffn_gate_exps", "up_proj": "ffn_up_exps", "down_proj": "ffn_down_exps"}
	case "llama":
		rest, ok = strings.CutPrefix(rest, "block_sparse_moe.experts.")
		kinds = map[string]string{"w1": "ffn_gate_exps", "w3": "ffn_up_exps", "w2": "ffn_down_exps"}
	default:
		return "", 0, false
	}
	if !ok {
		return "", 0, false
	}
	e, kind, ok := strings.Cut(rest, ".")
	if !ok || e == "" || len(e) > 9 || !allDigits(e) {
		return "", 0, false
	}
	g, ok := kinds[kind]
	if !ok {
		return "", 0, false
	}
	expert, _ = strconv.Atoi(e)
	return "blk." + strconv.Itoa(n) + "." + g + suffix, expert, true
}

// The llama converter permutes the rows of the Q and K projections (and
// their biases) so that each head's rotary pairs are adjacent (gguf.md
// §5.3): within a head of hd rows, GGUF row 2b+a holds HF row a*hd/2+b,
// for a in {0, 1} and b < hd/2. Q uses the attention head count, K the
// KV head count. It applies to what LlamaModel converts (Llama, Mistral
// and Mixtral HF checkpoints), not to Qwen, Gemma or Mistral's native
// consolidated files. Rows here are PyTorch rows (output features): the
// outermost dimension of [tensor.Tensor.Shape], ne[1] in GGUF.

// HFRow returns the HF row that GGUF row r holds, in a projection of rows
// rows and heads heads.
func HFRow(r, rows, heads int) (int, error) {
	hd, err := headDim(r, rows, heads)
	if err != nil {
		return 0, err
	}
	h, w := r/hd, r%hd
	return h*hd + (w%2)*(hd/2) + w/2, nil
}

// GGUFRow returns the GGUF row that holds HF row r, the inverse of [HFRow].
func GGUFRow(r, rows, heads int) (int, error) {
	hd, err := headDim(r, rows, heads)
	if err != nil {
		return 0, err
	}
	h, p := r/hd, r%hd
	if p < hd/2 {
		return h*hd + 2*p, nil
	}
	return h*hd + 2*(p-hd/2) + 1, nil
}

func headDim(r, rows, heads int) (int, error) {
	if heads <= 0 || rows <= 0 || rows%heads != 0 || (rows/heads)%2 != 0 {
		return 0, fmt.Errorf("gguf: %d rows do not split into %d heads of an even size", rows, heads)
	}
	if r < 0 || r >= rows {
		return 0, fmt.Errorf("gguf: row %d outside 0..%d", r, rows-1)
	}
	return rows / heads, nil
}
