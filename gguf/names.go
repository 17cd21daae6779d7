package gguf

import (
	"fmt"
	"strconv"
	"strings"
)

// Tensor names of Hugging Face checkpoints and of GGUF (gguf.md §5.1,
// learnt from gguf-py's constants.py and tensor_mapping.py). The mapping
// depends on the architecture: HF post_attention_layernorm is GGUF
// ffn_norm for llama and qwen, but post_attention_norm for gemma2, gemma3
// and olmo2; HF mlp.c_fc is ffn_up for starcoder2. Each architecture is
// one row of archs: data, not code.

// namePair is a GGUF base name and the HF base name it comes from.
type namePair struct{ gguf, hf string }

// ConfigKey is a metadata key, without the "<arch>." prefix, and the
// config.json field the converter read it from.
type ConfigKey struct{ Key, Field string }

// Arch is what fsmount knows of a llama.cpp architecture: the Hugging
// Face config its GGUF derives (class, model_type, fields from metadata
// keys), and the tensor names.
type Arch struct {
	Name      string // general.architecture
	Class     string // config.json "architectures"[0]
	ModelType string // config.json "model_type"
	// Keys are the metadata keys read into config fields besides
	// [CommonKeys].
	Keys []ConfigKey
	// BiasField is the config flag set when blk.0.attn_q.bias is present
	// (and cleared when it is absent); QKNormField the same for
	// blk.0.attn_q_norm.weight.
	BiasField, QKNormField string
	// Experts is the config field the expert count goes to.
	Experts string
	// MoE is the architecture to use instead when the file has experts
	// (llama.cpp converts Mixtral as llama).
	MoE *Arch

	global, layer []namePair
	expertPrefix  string            // HF prefix of one layer's experts
	expertKinds   map[string]string // HF projection → stacked GGUF tensor
}

// CommonKeys are the metadata keys every architecture's converter writes
// (llama.cpp's LLM_KV_*), and the config fields they come from.
var CommonKeys = []ConfigKey{
	{"embedding_length", "hidden_size"},
	{"block_count", "num_hidden_layers"},
	{"feed_forward_length", "intermediate_size"},
	{"attention.head_count", "num_attention_heads"},
	{"attention.head_count_kv", "num_key_value_heads"},
	{"attention.key_length", "head_dim"},
	{"context_length", "max_position_embeddings"},
	{"expert_used_count", "num_experts_per_tok"},
	{"expert_feed_forward_length", "moe_intermediate_size"},
}

var globalNames = []namePair{
	{"token_embd", "model.embed_tokens"},
	{"output_norm", "model.norm"},
	{"output", "lm_head"},
}

var (
	inputNorm = []namePair{{"attn_norm", "input_layernorm"}}
	attnNames = []namePair{
		{"attn_q", "self_attn.q_proj"},
		{"attn_k", "self_attn.k_proj"},
		{"attn_v", "self_attn.v_proj"},
		{"attn_output", "self_attn.o_proj"},
	}
	qkNorms   = []namePair{{"attn_q_norm", "self_attn.q_norm"}, {"attn_k_norm", "self_attn.k_norm"}}
	gatedMLP  = []namePair{{"ffn_gate", "mlp.gate_proj"}, {"ffn_up", "mlp.up_proj"}, {"ffn_down", "mlp.down_proj"}}
	plainNorm = []namePair{{"ffn_norm", "post_attention_layernorm"}}
	// Gemma 2 and 3: four norms a layer.
	gemmaNorms = []namePair{
		{"post_attention_norm", "post_attention_layernorm"},
		{"ffn_norm", "pre_feedforward_layernorm"},
		{"post_ffw_norm", "post_feedforward_layernorm"},
	}
	// OLMo 2: norms after attention and MLP only.
	olmo2Norms = []namePair{{"post_attention_norm", "post_attention_layernorm"}, {"post_ffw_norm", "post_feedforward_layernorm"}}
	// Qwen MoE: the router and the experts stacked by the converter
	// (the merged names of gguf-py's table).
	qwenMoE = []namePair{
		{"ffn_gate_inp", "mlp.gate"},
		{"ffn_gate_exps", "mlp.experts.gate_proj"},
		{"ffn_up_exps", "mlp.experts.up_proj"},
		{"ffn_down_exps", "mlp.experts.down_proj"},
	}
	qwenShared = []namePair{
		{"ffn_gate_inp_shexp", "mlp.shared_expert_gate"},
		{"ffn_gate_shexp", "mlp.shared_expert.gate_proj"},
		{"ffn_up_shexp", "mlp.shared_expert.up_proj"},
		{"ffn_down_shexp", "mlp.shared_expert.down_proj"},
	}
	// Mixtral, converted as llama: the router.
	mixtralMoE = []namePair{{"ffn_gate_inp", "block_sparse_moe.gate"}}
	qwenKinds  = map[string]string{"gate_proj": "ffn_gate_exps", "up_proj": "ffn_up_exps", "down_proj": "ffn_down_exps"}
)

func pairs(parts ...[]namePair) []namePair {
	var out []namePair
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var llamaLayer = pairs(inputNorm, attnNames, plainNorm, gatedMLP)

// mixtral is what a llama GGUF with experts was converted from.
var mixtral = &Arch{Name: "llama", Class: "MixtralForCausalLM", ModelType: "mixtral", Experts: "num_local_experts",
	global: globalNames, layer: pairs(llamaLayer, mixtralMoE),
	expertPrefix: "block_sparse_moe.experts.", expertKinds: map[string]string{"w1": "ffn_gate_exps", "w3": "ffn_up_exps", "w2": "ffn_down_exps"}}

// archs are the llama.cpp architectures whose GGUFs check through a
// Hugging Face family of spec. Mistral and Mixtral checkpoints convert as
// "llama"; Command-R is "command-r".
var archs = []*Arch{
	{Name: "llama", Class: "LlamaForCausalLM", ModelType: "llama", BiasField: "attention_bias", MoE: mixtral,
		global: globalNames, layer: mixtral.layer},
	{Name: "mistral3", Class: "MistralForCausalLM", ModelType: "mistral", global: globalNames, layer: llamaLayer},
	{Name: "qwen2", Class: "Qwen2ForCausalLM", ModelType: "qwen2", global: globalNames, layer: llamaLayer},
	{Name: "qwen3", Class: "Qwen3ForCausalLM", ModelType: "qwen3", global: globalNames, layer: pairs(llamaLayer, qkNorms)},
	{Name: "qwen2moe", Class: "Qwen2MoeForCausalLM", ModelType: "qwen2_moe", Experts: "num_experts", BiasField: "qkv_bias",
		Keys:   []ConfigKey{{"expert_shared_feed_forward_length", "shared_expert_intermediate_size"}},
		global: globalNames, layer: pairs(inputNorm, attnNames, plainNorm, qwenMoE, qwenShared),
		expertPrefix: "mlp.experts.", expertKinds: qwenKinds},
	{Name: "qwen3moe", Class: "Qwen3MoeForCausalLM", ModelType: "qwen3_moe", Experts: "num_experts",
		global: globalNames, layer: pairs(inputNorm, attnNames, qkNorms, plainNorm, qwenMoE),
		expertPrefix: "mlp.experts.", expertKinds: qwenKinds},
	// Gemma never has an output tensor: the head is the embedding.
	{Name: "gemma", Class: "GemmaForCausalLM", ModelType: "gemma", global: globalNames[:2], layer: llamaLayer},
	{Name: "gemma2", Class: "Gemma2ForCausalLM", ModelType: "gemma2", global: globalNames[:2],
		layer: pairs(inputNorm, attnNames, gemmaNorms, gatedMLP)},
	{Name: "gemma3", Class: "Gemma3ForCausalLM", ModelType: "gemma3_text", global: globalNames,
		layer: pairs(inputNorm, attnNames, qkNorms, gemmaNorms, gatedMLP)},
	// Phi-3: HF and GGUF both fuse q, k, v and gate, up.
	{Name: "phi3", Class: "Phi3ForCausalLM", ModelType: "phi3", global: globalNames,
		layer: []namePair{{"attn_norm", "input_layernorm"}, {"attn_qkv", "self_attn.qkv_proj"}, {"attn_output", "self_attn.o_proj"},
			{"ffn_norm", "post_attention_layernorm"}, {"ffn_up", "mlp.gate_up_proj"}, {"ffn_down", "mlp.down_proj"}}},
	{Name: "granite", Class: "GraniteForCausalLM", ModelType: "granite", BiasField: "attention_bias",
		global: globalNames, layer: llamaLayer},
	{Name: "olmo2", Class: "Olmo2ForCausalLM", ModelType: "olmo2", BiasField: "attention_bias",
		global: globalNames, layer: pairs(attnNames, qkNorms, olmo2Norms, gatedMLP)},
	{Name: "starcoder2", Class: "Starcoder2ForCausalLM", ModelType: "starcoder2", BiasField: "use_bias",
		global: globalNames, layer: pairs(inputNorm, attnNames, plainNorm, []namePair{{"ffn_up", "mlp.c_fc"}, {"ffn_down", "mlp.c_proj"}})},
	{Name: "stablelm", Class: "StableLmForCausalLM", ModelType: "stablelm", BiasField: "use_qkv_bias",
		global: globalNames, layer: llamaLayer},
	// Command-R: one norm before parallel attention and MLP.
	{Name: "command-r", Class: "CohereForCausalLM", ModelType: "cohere", BiasField: "attention_bias", QKNormField: "use_qk_norm",
		global: globalNames, layer: pairs(inputNorm, attnNames, qkNorms, gatedMLP)},
}

// Architecture returns what fsmount knows of a llama.cpp architecture,
// and false for one not covered.
func Architecture(name string) (*Arch, bool) {
	for _, a := range archs {
		if a.Name == name {
			return a, true
		}
	}
	return nil, false
}

// Architectures returns the names of the covered architectures.
func Architectures() []string {
	out := make([]string, len(archs))
	for i, a := range archs {
		out[i] = a.Name
	}
	return out
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
	a, ok := Architecture(arch)
	if !ok {
		return "", false
	}
	return a.HFName(name)
}

// HFName is [HFName] for this architecture.
func (a *Arch) HFName(name string) (string, bool) {
	return a.translate(name, "blk.", "model.layers.", func(p namePair) (string, string) { return p.gguf, p.hf })
}

// GGUFName returns the GGUF name of a Hugging Face tensor of an
// architecture, the inverse of [HFName]: for "gemma2",
// "model.layers.0.pre_feedforward_layernorm.weight" is
// "blk.0.ffn_norm.weight".
func GGUFName(arch, hf string) (string, bool) {
	a, ok := Architecture(arch)
	if !ok {
		return "", false
	}
	return a.GGUFName(hf)
}

// GGUFName is [GGUFName] for this architecture.
func (a *Arch) GGUFName(hf string) (string, bool) {
	return a.translate(hf, "model.layers.", "blk.", func(p namePair) (string, string) { return p.hf, p.gguf })
}

// translate maps name through arch's table, whose pairs dir turns into
// (from, to); layer tensors are fromLayer+N+"."+… and become
// toLayer+N+"."+….
func (a *Arch) translate(name, fromLayer, toLayer string, dir func(namePair) (from, to string)) (string, bool) {
	tab := a
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
	a, ok := Architecture(arch)
	if !ok {
		return "", 0, false
	}
	if a.MoE != nil {
		a = a.MoE
	}
	return a.ExpertName(hf)
}

// ExpertName is [ExpertName] for this architecture.
func (a *Arch) ExpertName(hf string) (name string, expert int, ok bool) {
	if a.expertPrefix == "" {
		return "", 0, false
	}
	base, suffix := splitSuffix(hf)
	n, rest, ok := splitLayer(base, "model.layers.")
	if !ok {
		return "", 0, false
	}
	rest, ok = strings.CutPrefix(rest, a.expertPrefix)
	if !ok {
		return "", 0, false
	}
	e, kind, ok := strings.Cut(rest, ".")
	if !ok || e == "" || len(e) > 9 || !allDigits(e) {
		return "", 0, false
	}
	g, ok := a.expertKinds[kind]
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
