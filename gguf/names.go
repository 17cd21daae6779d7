package gguf

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Tensor names of Hugging Face checkpoints and of GGUF (gguf.md §5.1,
// learnt from gguf-py's constants.py and tensor_mapping.py). The mapping
// depends on the architecture: HF post_attention_layernorm is GGUF
// ffn_norm for llama and qwen, but post_attention_norm for gemma2, gemma3
// and olmo2; HF mlp.c_fc is ffn_up for starcoder2. Each architecture is
// one row of archs: data, not code.

// namePair is a GGUF base name and the HF base name it comes from. A
// name that ends in ".weight" or ".bias" on either side is matched whole
// (DeepSeek-V3's HF "mlp.gate.e_score_correction_bias" is GGUF
// "exp_probs_b.bias").
type namePair struct{ gguf, hf string }

// ConfigKey is a metadata key, without the "<arch>." prefix, and the
// config.json field the converter read it from.
type ConfigKey struct {
	Key, Field string
	// Minus, if set, is a key whose value the converter added: the field
	// is the key's value less Minus's (DeepSeek's qk_nope_head_dim is
	// attention.key_length_mla − rope.dimension_count).
	Minus string
	// Is, if nonzero, makes the field a boolean: the key's value is Is
	// (Falcon's multi_query: one KV head).
	Is uint64
	// Null writes null when the key is absent: the converter writes the
	// key only when the field is set (DeepSeek's q_lora_rank).
	Null bool
	// Layers, if set, reads the key as an array of one value a layer: the
	// field is a list of Layers[1] for a nonzero value and Layers[0] for
	// zero (LFM2's head_count_kv is 0 for a short-convolution layer), and
	// Max, if set, gets the largest value.
	Layers [2]string
	Max    string
	// Period, if set, reads the key as an array of one value a layer too:
	// Period[0] gets the first layer with a nonzero value, Period[1] the
	// distance to the next (block_count for one such layer; none: past
	// the last layer). Jamba's attention layers, every
	// attn_layer_period-th from attn_layer_offset, are those whose
	// head_count_kv is nonzero.
	Period [2]string
	// Over, if set, divides the value by this key's (Jamba's mamba_expand
	// is ssm.inner_size / embedding_length).
	Over string
	// Else, if set, is the key read instead when Key is absent: the
	// converter writes no feed_forward_length for a GLM-4.5-style model
	// without dense layers (Solar Open), whose spec still needs a width;
	// where such a file has a dense layer after all, llama.cpp's n_ff of
	// 0 does not fit it, nor does this.
	Else string
	// Default, if set, is the field's value where the key is absent, as
	// llama.cpp's loader takes it (GLM-4.5's leading_dense_block_count:
	// 0, where the config class's default is 1).
	Default any
}

// LayerPeriod is a pair of config fields set from the layers that hold
// a tensor, as [ConfigKey.Period] from an array: the converter writes
// no key for Jamba's expert_layer_offset and expert_layer_period, and its
// MoE layers are those with a router.
type LayerPeriod struct {
	Tensor         string // the tensor's name after "blk.N."
	Offset, Period string
}

// LayerList is a config field set to one value a layer from the layers
// that hold a tensor (its name after "blk.N."): Yes where it is, No where
// not (Mellum's mlp_layer_types: "sparse" where a layer has a router).
type LayerList struct {
	Tensor, Field string
	Yes, No       any
}

// TensorDim is a config field set from a dimension of a tensor the file
// holds (outermost first), where no metadata key says it: BERT's
// type_vocab_size is token_types' row count.
type TensorDim struct {
	Tensor string
	Dim    int
	Field  string
}

// Flag is a config field set from whether a tensor is present: Yes when
// it is, No when not (true and false when both are nil).
type Flag struct {
	Tensor, Field string
	Yes, No       any
}

// Alt is another row of the table a file of the architecture takes when
// its metadata key Key has value Is, or when it holds Tensor: llama.cpp
// converts DeepSeek-V2 and V3 alike, Falcon-7B and Falcon-40B alike. When
// an Alt has both, the key decides where the file has it and the tensor
// where the metadata is silent (a DeepSeek-V3 converted from a config
// without scoring_func has no expert_gating_func, but its sparse layers
// hold exp_probs_b). A Tensor of the form "blk.*.<name>" is a tensor of
// any layer ([AnyLayer]).
type Alt struct {
	Key    string
	Is     uint64
	Tensor string
	// Absent takes the Alt where the file lacks Tensor instead (a
	// DistilBERT GGUF has no token_types).
	Absent bool
	Arch   *Arch
}

// Part is one GGUF tensor of several the converter cuts a Hugging Face
// tensor into, with its shape outermost first as config fields
// (DeepSeek's kv_b_proj becomes attn_k_b [num_attention_heads,
// kv_lora_rank, qk_nope_head_dim] and attn_v_b), or as "#i", the Hugging
// Face tensor's own dimension i (Jamba's conv1d [I, 1, K] is [#0, #2]).
type Part struct {
	Name  string
	Shape []string
}

// split is a Hugging Face tensor of a layer (its name after the layer
// prefix) and the GGUF tensors it is cut into.
type split struct {
	hf    string
	parts []Part
}

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
	// blk.0.attn_q_norm.weight. Flags are other fields set from a
	// tensor's presence, Set fields of fixed value.
	BiasField, QKNormField string
	Flags                  []Flag
	Set                    map[string]any
	// Experts is the config field the expert count goes to.
	Experts string
	// Periods are config fields set from the layers that hold a tensor,
	// Lists too.
	Periods []LayerPeriod
	Lists   []LayerList
	Dims    []TensorDim
	// MoE is the architecture to use instead when the file has experts
	// (llama.cpp converts Mixtral as llama); Alts are others, the first
	// that applies.
	MoE  *Arch
	Alts []Alt
	// Layers is the Hugging Face prefix of the layers, "model.layers."
	// when empty ("transformer.h." for GPT-2, BLOOM and Falcon).
	Layers string

	global, layer []namePair
	stacks        []layerStack // further stacks of layers beside blk.N.
	splits        []split
	dropped       []string          // Hugging Face tensors (outside the layers) the converter drops; one ending in "." a prefix
	expertPrefix  string            // HF prefix of one layer's experts
	expertKinds   map[string]string // HF projection → stacked GGUF tensor
}

// layerStack is a stack of layers besides blk.N. (T5's encoder and
// decoder: enc.blk.N. and dec.blk.N.): GGUF names gguf+N+"."+… are the
// Hugging Face names hf+N+"."+….
type layerStack struct {
	gguf, hf string
	pairs    []namePair
}

// CommonKeys are the metadata keys every architecture's converter writes
// (llama.cpp's LLM_KV_*), and the config fields they come from.
var CommonKeys = []ConfigKey{
	{Key: "embedding_length", Field: "hidden_size"},
	{Key: "block_count", Field: "num_hidden_layers"},
	{Key: "feed_forward_length", Field: "intermediate_size"},
	{Key: "attention.head_count", Field: "num_attention_heads"},
	{Key: "attention.head_count_kv", Field: "num_key_value_heads"},
	{Key: "attention.key_length", Field: "head_dim"},
	{Key: "context_length", Field: "max_position_embeddings"},
	{Key: "expert_used_count", Field: "num_experts_per_tok"},
	{Key: "expert_feed_forward_length", Field: "moe_intermediate_size"},
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

	// DeepSeek's multi-head latent attention: q directly or through a low
	// rank, k and v through kv_lora_rank. kv_b_proj is attn_kv_b in the
	// files of older converters; newer ones cut it into attn_k_b (its k
	// half, each head transposed) and attn_v_b (deepseekSplits).
	mla = []namePair{
		{"attn_q", "self_attn.q_proj"},
		{"attn_q_a", "self_attn.q_a_proj"},
		{"attn_q_a_norm", "self_attn.q_a_layernorm"},
		{"attn_q_b", "self_attn.q_b_proj"},
		{"attn_kv_a_mqa", "self_attn.kv_a_proj_with_mqa"},
		{"attn_kv_a_norm", "self_attn.kv_a_layernorm"},
		{"attn_kv_b", "self_attn.kv_b_proj"},
		{"attn_output", "self_attn.o_proj"},
	}
	deepseekSplits = []split{{"self_attn.kv_b_proj.weight", []Part{
		{"attn_k_b.weight", []string{"num_attention_heads", "kv_lora_rank", "qk_nope_head_dim"}},
		{"attn_v_b.weight", []string{"num_attention_heads", "v_head_dim", "kv_lora_rank"}},
	}}}
	// DeepSeek's sparse blocks: router (V3: with a correction bias),
	// stacked routed experts, one shared MLP.
	deepseekMoE = pairs(qwenMoE, []namePair{
		{"exp_probs_b.bias", "mlp.gate.e_score_correction_bias"},
		{"ffn_gate_shexp", "mlp.shared_experts.gate_proj"},
		{"ffn_up_shexp", "mlp.shared_experts.up_proj"},
		{"ffn_down_shexp", "mlp.shared_experts.down_proj"},
	})
	deepseekKeys = []ConfigKey{
		{Key: "leading_dense_block_count", Field: "first_k_dense_replace"},
		{Key: "expert_count", Field: "n_routed_experts"},
		{Key: "expert_shared_count", Field: "n_shared_experts"},
		{Key: "attention.q_lora_rank", Field: "q_lora_rank", Null: true},
		{Key: "attention.kv_lora_rank", Field: "kv_lora_rank"},
		{Key: "rope.dimension_count", Field: "qk_rope_head_dim"},
		// Older converters: key_length is q/k's per-head width,
		// value_length v's; newer ones write those as *_mla and the
		// latent widths in key_length and value_length.
		{Key: "attention.key_length", Field: "qk_nope_head_dim", Minus: "rope.dimension_count"},
		{Key: "attention.value_length", Field: "v_head_dim"},
		{Key: "attention.key_length_mla", Field: "qk_nope_head_dim", Minus: "rope.dimension_count"},
		{Key: "attention.value_length_mla", Field: "v_head_dim"},
	}

	// GPT-2 and its lineage under transformer.h.N: one fused qkv, plain
	// MLP, layer norms with biases (GPT-2's Conv1D weights are stored
	// transposed, as every ggml matrix, [out, in]).
	gpt2Global = []namePair{
		{"token_embd", "transformer.wte"},
		{"position_embd", "transformer.wpe"},
		{"output_norm", "transformer.ln_f"},
		{"output", "lm_head"},
	}
	gpt2Layer = []namePair{
		{"attn_norm", "ln_1"},
		{"attn_qkv", "attn.c_attn"},
		{"attn_output", "attn.c_proj"},
		{"ffn_norm", "ln_2"},
		{"ffn_up", "mlp.c_fc"},
		{"ffn_down", "mlp.c_proj"},
	}
	gpt2Keys = []ConfigKey{
		{Key: "embedding_length", Field: "n_embd"},
		{Key: "block_count", Field: "n_layer"},
		{Key: "attention.head_count", Field: "n_head"},
		{Key: "feed_forward_length", Field: "n_inner"},
		{Key: "context_length", Field: "n_positions"},
	}
	// BLOOM, Falcon and GPT-NeoX: query_key_value, dense, dense_h_to_4h,
	// dense_4h_to_h.
	neoxAttn = []namePair{{"attn_qkv", "query_key_value"}, {"attn_output", "dense"}}
	neoxMLP  = []namePair{{"ffn_up", "mlp.dense_h_to_4h"}, {"ffn_down", "mlp.dense_4h_to_h"}}
	// An MLP of up and down only; mlp_bias from its bias.
	upDownMLP = []namePair{{"ffn_up", "mlp.up_proj"}, {"ffn_down", "mlp.down_proj"}}
	mlpBias   = []Flag{{Tensor: "blk.0.ffn_up.bias", Field: "mlp_bias"}}
	// GLM: gate and up fused.
	glmMLP = []namePair{{"ffn_up", "mlp.gate_up_proj"}, {"ffn_down", "mlp.down_proj"}}
	// GraniteMoE: the experts come stacked, gate and up fused in
	// input_linear, which the converter cuts in two.
	graniteMoE = []namePair{
		{"ffn_gate_inp", "block_sparse_moe.router.layer"},
		{"ffn_down_exps", "block_sparse_moe.output_linear"},
		{"ffn_down_shexp", "shared_mlp.output_linear"},
	}
	graniteSplits = []split{
		{"block_sparse_moe.input_linear.weight", []Part{
			{"ffn_gate_exps.weight", []string{"num_local_experts", "intermediate_size", "hidden_size"}},
			{"ffn_up_exps.weight", []string{"num_local_experts", "intermediate_size", "hidden_size"}}}},
		{"shared_mlp.input_linear.weight", []Part{
			{"ffn_gate_shexp.weight", []string{"shared_intermediate_size", "hidden_size"}},
			{"ffn_up_shexp.weight", []string{"shared_intermediate_size", "hidden_size"}}}},
	}
)

func pairs(parts ...[]namePair) []namePair {
	var out []namePair
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// prefixed returns ps with prefix before each Hugging Face name.
func prefixed(prefix string, ps []namePair) []namePair {
	out := make([]namePair, len(ps))
	for i, p := range ps {
		out[i] = namePair{p.gguf, prefix + p.hf}
	}
	return out
}

var llamaLayer = pairs(inputNorm, attnNames, plainNorm, gatedMLP)

// mixtral is what a llama GGUF with experts was converted from.
var mixtral = &Arch{Name: "llama", Class: "MixtralForCausalLM", ModelType: "mixtral", Experts: "num_local_experts",
	global: globalNames, layer: pairs(llamaLayer, mixtralMoE),
	expertPrefix: "block_sparse_moe.experts.", expertKinds: map[string]string{"w1": "ffn_gate_exps", "w3": "ffn_up_exps", "w2": "ffn_down_exps"}}

// deepseek is DeepSeek-V2 (and V2-Lite, q_lora_rank absent) or V3 (and
// R1): llama.cpp converts both alike; V3's experts are gated by sigmoid
// (expert_gating_func 2) with a correction bias.
func deepseek(class, modelType string, alts []Alt) *Arch {
	return &Arch{Name: "deepseek2", Class: class, ModelType: modelType, Keys: deepseekKeys, Alts: alts,
		global: globalNames, layer: pairs(inputNorm, mla, plainNorm, gatedMLP, deepseekMoE), splits: deepseekSplits,
		expertPrefix: "mlp.experts.", expertKinds: qwenKinds}
}

// mamba is a Mamba (1) row.
func mamba(class, modelType string, alts []Alt) *Arch {
	return &Arch{Name: "mamba", Class: class, ModelType: modelType, Layers: "backbone.layers.", Alts: alts,
		Keys: []ConfigKey{{Key: "ssm.inner_size", Field: "intermediate_size"}, {Key: "ssm.state_size", Field: "state_size"},
			{Key: "ssm.conv_kernel", Field: "conv_kernel"}, {Key: "ssm.time_step_rank", Field: "time_step_rank"}},
		Flags:  []Flag{{Tensor: "blk.0.ssm_in.bias", Field: "use_bias"}, {Tensor: "blk.0.ssm_conv1d.bias", Field: "use_conv_bias"}},
		global: []namePair{{"token_embd", "backbone.embeddings"}, {"output_norm", "backbone.norm_f"}, {"output", "lm_head"}},
		layer: []namePair{{"attn_norm", "norm"}, {"ssm_in", "mixer.in_proj"}, {"ssm_conv1d", "mixer.conv1d"}, {"ssm_x", "mixer.x_proj"},
			{"ssm_dt", "mixer.dt_proj"}, {"ssm_a", "mixer.A_log"}, {"ssm_d", "mixer.D"}, {"ssm_out", "mixer.out_proj"}},
		splits: []split{{"mixer.conv1d.weight", []Part{{"ssm_conv1d.weight", []string{"intermediate_size", "conv_kernel"}}}}}}
}

// mamba2 is Mamba-2 (Mamba2ForCausalLM): its A_log and D as [heads, 1]
// (ssm_a, ssm_d), the gated norm regrouped [groups, inner/groups], the
// conv [C, 1, K] stored [C, K]; the inner width is ssm.inner_size, the
// heads ssm.time_step_rank.
var mamba2 = &Arch{Name: "mamba2", Class: "Mamba2ForCausalLM", ModelType: "mamba2", Layers: "backbone.layers.",
	Keys: []ConfigKey{{Key: "ssm.inner_size", Field: "expand", Over: "embedding_length"}, {Key: "ssm.state_size", Field: "state_size"},
		{Key: "ssm.conv_kernel", Field: "conv_kernel"}, {Key: "ssm.time_step_rank", Field: "num_heads"},
		{Key: "ssm.group_count", Field: "n_groups"}},
	Flags:  []Flag{{Tensor: "blk.0.ssm_in.bias", Field: "use_bias"}, {Tensor: "blk.0.ssm_conv1d.bias", Field: "use_conv_bias"}},
	global: []namePair{{"token_embd", "backbone.embeddings"}, {"output_norm", "backbone.norm_f"}, {"output", "lm_head"}},
	layer: []namePair{{"attn_norm", "norm"}, {"ssm_in", "mixer.in_proj"}, {"ssm_conv1d", "mixer.conv1d"},
		{"ssm_dt.bias", "mixer.dt_bias"}, {"ssm_a", "mixer.A_log"}, {"ssm_d", "mixer.D"}, {"ssm_norm", "mixer.norm"},
		{"ssm_out", "mixer.out_proj"}},
	splits: []split{
		{"mixer.conv1d.weight", []Part{{"ssm_conv1d.weight", []string{"#0", "#2"}}}},
		{"mixer.A_log", []Part{{"ssm_a", []string{"num_heads", "1"}}}},
		{"mixer.D", []Part{{"ssm_d", []string{"num_heads", "1"}}}},
		{"mixer.norm.weight", []Part{{"ssm_norm.weight", []string{"n_groups", "#0/n_groups"}}}},
	}}

// graniteHybrid is Granite 4.0's hybrid (GraniteMoeHybrid): Mamba-2
// and attention layers, told apart by the per-layer head_count_kv the
// converter writes (0: Mamba-2, whose tensors are mamba2's), GraniteMoE's
// experts and shared MLP cut by the converter; without experts (the
// dense "H" models) the shared MLP is the plain ffn_gate, ffn_up and
// ffn_down. Its bias switches are read from any layer's tensors: the
// first layer may be of either kind.
var graniteHybrid = graniteHybridArch(true)

func graniteHybridArch(moe bool) *Arch {
	a := &Arch{Name: "granitehybrid", Class: "GraniteMoeHybridForCausalLM", ModelType: "granitemoehybrid",
		Keys: []ConfigKey{{Key: "attention.head_count_kv", Field: "layer_types", Layers: [2]string{"mamba", "attention"}, Max: "num_key_value_heads"},
			{Key: "expert_count", Field: "num_local_experts", Default: 0},
			{Key: "expert_shared_feed_forward_length", Field: "shared_intermediate_size"},
			{Key: "ssm.inner_size", Field: "mamba_expand", Over: "embedding_length"}, {Key: "ssm.state_size", Field: "mamba_d_state"},
			{Key: "ssm.conv_kernel", Field: "mamba_d_conv"}, {Key: "ssm.time_step_rank", Field: "mamba_n_heads"},
			{Key: "ssm.group_count", Field: "mamba_n_groups"}},
		Flags: []Flag{{Tensor: "blk.*.attn_q.bias", Field: "attention_bias"}, {Tensor: "blk.*.ssm_conv1d.bias", Field: "mamba_conv_bias"},
			{Tensor: "blk.*.ssm_in.bias", Field: "mamba_proj_bias"}},
		global: globalNames,
		layer: pairs(inputNorm, attnNames, plainNorm, []namePair{{"ssm_in", "mamba.in_proj"}, {"ssm_conv1d", "mamba.conv1d"},
			{"ssm_dt.bias", "mamba.dt_bias"}, {"ssm_a", "mamba.A_log"}, {"ssm_d", "mamba.D"}, {"ssm_norm", "mamba.norm"},
			{"ssm_out", "mamba.out_proj"}}),
		splits: []split{
			{"mamba.conv1d.weight", []Part{{"ssm_conv1d.weight", []string{"#0", "#2"}}}},
			{"mamba.A_log", []Part{{"ssm_a", []string{"mamba_n_heads", "1"}}}},
			{"mamba.D", []Part{{"ssm_d", []string{"mamba_n_heads", "1"}}}},
			{"mamba.norm.weight", []Part{{"ssm_norm.weight", []string{"mamba_n_groups", "#0/mamba_n_groups"}}}},
		}}
	if moe {
		a.layer = pairs(a.layer, graniteMoE)
		a.splits = append(a.splits, graniteSplits...)
		a.Alts = []Alt{{Tensor: "blk.*.ffn_gate_exps.weight", Absent: true, Arch: graniteHybridArch(false)}}
		return a
	}
	a.layer = pairs(a.layer, []namePair{{"ffn_down", "shared_mlp.output_linear"}})
	a.splits = append(a.splits, split{"shared_mlp.input_linear.weight", []Part{
		{"ffn_gate.weight", []string{"shared_intermediate_size", "hidden_size"}},
		{"ffn_up.weight", []string{"shared_intermediate_size", "hidden_size"}}}})
	return a
}

// falcon is Falcon with one norm before the parallel attention and MLP
// (7B, 11B), or two (40B, 180B: gguf-py names ln_mlp attn_norm and ln_attn
// attn_norm_2). Every variant is taken as the new decoder architecture,
// whose fused qkv of (heads + 2·kv)·d rows covers the old one's
// multi-query (kv = 1) and multi-head (kv = heads) layouts.
func falcon(norms []namePair, alts []Alt) *Arch {
	return &Arch{Name: "falcon", Class: "FalconForCausalLM", ModelType: "falcon", Layers: "transformer.h.",
		Keys:  []ConfigKey{{Key: "feed_forward_length", Field: "ffn_hidden_size"}, {Key: "attention.head_count_kv", Field: "num_kv_heads"}},
		Set:   map[string]any{"new_decoder_architecture": true, "parallel_attn": true, "num_ln_in_parallel_attn": len(norms)},
		Flags: []Flag{{Tensor: "blk.0.attn_qkv.bias", Field: "bias"}}, Alts: alts,
		global: []namePair{{"token_embd", "transformer.word_embeddings"}, {"output_norm", "transformer.ln_f"}, {"output", "lm_head"}},
		layer:  pairs(norms, prefixed("self_attention.", neoxAttn), neoxMLP)}
}

// graniteMoEShared is GraniteMoE with a shared MLP.
var graniteMoEShared = &Arch{Name: "granitemoe", Class: "GraniteMoeSharedForCausalLM", ModelType: "granitemoeshared", BiasField: "attention_bias",
	Experts: "num_local_experts", Keys: []ConfigKey{{Key: "expert_shared_feed_forward_length", Field: "shared_intermediate_size"}},
	global: globalNames, layer: pairs(inputNorm, attnNames, plainNorm, graniteMoE), splits: graniteSplits}

// GLM-4.5 (GLM-4-MoE): DeepSeek's sparse blocks after dense ones, its
// post_attention_layernorm as attn_post_norm; the converter counts the
// multi-token-prediction layers (num_nextn_predict_layers, which
// transformers does not build and ignores on load) in block_count and
// names their extra tensors blk.N.nextn.*.
var glm4MoENextN = []namePair{
	{"nextn.eh_proj", "eh_proj"}, {"nextn.enorm", "enorm"}, {"nextn.hnorm", "hnorm"},
	{"nextn.embed_tokens", "embed_tokens"}, {"nextn.shared_head_head", "shared_head.head"}, {"nextn.shared_head_norm", "shared_head.norm"},
}

// gptOSSSplits: GPT-OSS's experts come stacked; the converter cuts the
// interleaved gate_up_proj [E, H, 2·I] (and its bias) into gate and up,
// each transposed to [E, I, H], and transposes down_proj [E, I, H] to
// [E, H, I].
var gptOSSSplits = []split{
	{"mlp.experts.gate_up_proj", []Part{
		{"ffn_gate_exps.weight", []string{"num_local_experts", "intermediate_size", "hidden_size"}},
		{"ffn_up_exps.weight", []string{"num_local_experts", "intermediate_size", "hidden_size"}}}},
	{"mlp.experts.gate_up_proj_bias", []Part{
		{"ffn_gate_exps.bias", []string{"num_local_experts", "intermediate_size"}},
		{"ffn_up_exps.bias", []string{"num_local_experts", "intermediate_size"}}}},
	{"mlp.experts.down_proj", []Part{{"ffn_down_exps.weight", []string{"num_local_experts", "hidden_size", "intermediate_size"}}}},
	{"mlp.experts.down_proj_bias", []Part{{"ffn_down_exps.bias", []string{"num_local_experts", "hidden_size"}}}},
}

// llama4Splits: Llama 4's experts come stacked; the converter cuts
// gate_up_proj [E, H, 2·I] in halves into gate and up, each transposed to
// [E, I, H], and transposes down_proj [E, I, H] to [E, H, I].
var llama4Splits = []split{
	{"feed_forward.experts.gate_up_proj", []Part{
		{"ffn_gate_exps.weight", []string{"num_local_experts", "intermediate_size", "hidden_size"}},
		{"ffn_up_exps.weight", []string{"num_local_experts", "intermediate_size", "hidden_size"}}}},
	{"feed_forward.experts.down_proj", []Part{{"ffn_down_exps.weight", []string{"num_local_experts", "hidden_size", "intermediate_size"}}}},
}

// lfm2 is LFM2: short-convolution and attention layers, told apart by
// the per-layer head_count_kv the converter writes (0: convolution); the
// FFN width it writes is the one after LFM2's auto-adjustment; the final
// norm (embedding_norm) is token_embd_norm; conv.conv [H, 1, K] is
// stored [H, K].
var lfm2 = &Arch{Name: "lfm2", Class: "Lfm2ForCausalLM", ModelType: "lfm2",
	Keys: []ConfigKey{{Key: "attention.head_count_kv", Field: "layer_types", Layers: [2]string{"conv", "full_attention"}, Max: "num_key_value_heads"},
		{Key: "feed_forward_length", Field: "block_ff_dim"}, {Key: "shortconv.l_cache", Field: "conv_L_cache"}},
	Set:    map[string]any{"block_auto_adjust_ff_dim": false},
	Flags:  []Flag{{Tensor: "blk.0.shortconv.in_proj.bias", Field: "conv_bias"}},
	global: []namePair{{"token_embd", "model.embed_tokens"}, {"token_embd_norm", "model.embedding_norm"}, {"output", "lm_head"}},
	layer: []namePair{{"attn_norm", "operator_norm"}, {"attn_q", "self_attn.q_proj"}, {"attn_k", "self_attn.k_proj"}, {"attn_v", "self_attn.v_proj"},
		{"attn_output", "self_attn.out_proj"}, {"attn_q_norm", "self_attn.q_layernorm"}, {"attn_k_norm", "self_attn.k_layernorm"},
		{"shortconv.in_proj", "conv.in_proj"}, {"shortconv.conv", "conv.conv"}, {"shortconv.out_proj", "conv.out_proj"},
		{"ffn_norm", "ffn_norm"}, {"ffn_gate", "feed_forward.w1"}, {"ffn_up", "feed_forward.w3"}, {"ffn_down", "feed_forward.w2"}},
	splits: []split{{"conv.conv.weight", []Part{{"shortconv.conv.weight", []string{"hidden_size", "conv_L_cache"}}}}}}

// jamba is Jamba: Mamba layers with attention every attn_layer_period-th
// (the layers whose head_count_kv is nonzero) and MoE every
// expert_layer_period-th (the layers with a router); conv1d [I, 1, K] is
// stored [I, K].
var jamba = &Arch{Name: "jamba", Class: "JambaForCausalLM", ModelType: "jamba", Experts: "num_experts",
	Keys: []ConfigKey{{Key: "attention.head_count_kv", Field: "num_key_value_heads", Period: [2]string{"attn_layer_offset", "attn_layer_period"}},
		{Key: "ssm.conv_kernel", Field: "mamba_d_conv"}, {Key: "ssm.state_size", Field: "mamba_d_state"},
		{Key: "ssm.time_step_rank", Field: "mamba_dt_rank"}, {Key: "ssm.inner_size", Field: "mamba_expand", Over: "embedding_length"}},
	Periods: []LayerPeriod{{Tensor: "ffn_gate_inp.weight", Offset: "expert_layer_offset", Period: "expert_layer_period"}},
	Flags:   []Flag{{Tensor: "blk.*.ssm_conv1d.bias", Field: "mamba_conv_bias"}, {Tensor: "blk.*.ssm_in.bias", Field: "mamba_proj_bias"}},
	global:  []namePair{{"token_embd", "model.embed_tokens"}, {"output_norm", "model.final_layernorm"}, {"output", "lm_head"}},
	layer: pairs([]namePair{{"attn_norm", "input_layernorm"}, {"ffn_norm", "pre_ff_layernorm"}}, attnNames,
		[]namePair{{"ssm_in", "mamba.in_proj"}, {"ssm_conv1d", "mamba.conv1d"}, {"ssm_x", "mamba.x_proj"}, {"ssm_dt", "mamba.dt_proj"},
			{"ssm_a", "mamba.A_log"}, {"ssm_d", "mamba.D"}, {"ssm_out", "mamba.out_proj"}, {"ssm_dt_norm", "mamba.dt_layernorm"},
			{"ssm_b_norm", "mamba.b_layernorm"}, {"ssm_c_norm", "mamba.c_layernorm"},
			{"ffn_gate_inp", "feed_forward.router"}, {"ffn_gate", "feed_forward.gate_proj"}, {"ffn_up", "feed_forward.up_proj"}, {"ffn_down", "feed_forward.down_proj"}}),
	splits:       []split{{"mamba.conv1d.weight", []Part{{"ssm_conv1d.weight", []string{"#0", "#2"}}}}},
	expertPrefix: "feed_forward.experts.", expertKinds: qwenKinds}

// qwen35 is Qwen3.5 (or, moe, Qwen3.5-MoE): the Gated DeltaNet's
// widths from the ssm keys (key heads as group_count, value heads as
// time_step_rank, their widths as state_size and inner_size over the
// value heads), conv1d [C, 1, K] stored [C, K]; the norm after attention
// is post_attention_norm.
func qwen35(moe bool) *Arch {
	a := &Arch{Name: "qwen35", Class: "Qwen3_5ForCausalLM", ModelType: "qwen3_5_text", BiasField: "attention_bias",
		Keys: []ConfigKey{{Key: "ssm.conv_kernel", Field: "linear_conv_kernel_dim"}, {Key: "ssm.state_size", Field: "linear_key_head_dim"},
			{Key: "ssm.group_count", Field: "linear_num_key_heads"}, {Key: "ssm.time_step_rank", Field: "linear_num_value_heads"},
			{Key: "ssm.inner_size", Field: "linear_value_head_dim", Over: "ssm.time_step_rank"},
			{Key: "full_attention_interval", Field: "full_attention_interval"}},
		Lists:  []LayerList{{Tensor: "attn_q.weight", Field: "layer_types", Yes: "full_attention", No: "linear_attention"}},
		global: globalNames,
		layer: pairs(inputNorm, attnNames, qkNorms, []namePair{{"post_attention_norm", "post_attention_layernorm"},
			{"attn_qkv", "linear_attn.in_proj_qkv"}, {"attn_gate", "linear_attn.in_proj_z"}, {"ssm_beta", "linear_attn.in_proj_b"},
			{"ssm_alpha", "linear_attn.in_proj_a"}, {"ssm_conv1d", "linear_attn.conv1d"}, {"ssm_dt.bias", "linear_attn.dt_bias"},
			{"ssm_a", "linear_attn.A_log"}, {"ssm_norm", "linear_attn.norm"}, {"ssm_out", "linear_attn.out_proj"}}),
		splits: []split{{"linear_attn.conv1d.weight", []Part{{"ssm_conv1d.weight", []string{"#0", "#2"}}}}}}
	if !moe {
		a.layer = pairs(a.layer, gatedMLP)
		return a
	}
	a.Name, a.Class, a.ModelType, a.Experts = "qwen35moe", "Qwen3_5MoeForCausalLM", "qwen3_5_moe_text", "num_experts"
	a.Keys = append(a.Keys, ConfigKey{Key: "expert_shared_feed_forward_length", Field: "shared_expert_intermediate_size"})
	a.layer = pairs(a.layer, qwenMoE, qwenShared)
	a.expertPrefix, a.expertKinds = "mlp.experts.", qwenKinds
	return a
}

// bert is a BERT-family encoder (BERT, RoBERTa, XLM-R, CamemBERT as
// llama.cpp converts them: the converter drops the pooler and the MLM
// head, and strips RoBERTa's two padding rows from the position table,
// writing context_length to match) checked as BertModel; a DistilBERT
// file (no token_types) as DistilBertModel; one with a sequence
// classifier (cls.*) as BERT's or RoBERTa's.
var bert = &Arch{Name: "bert", Class: "BertModel", ModelType: "bert", Layers: "encoder.layer.",
	Dims: []TensorDim{{Tensor: "token_types.weight", Dim: 0, Field: "type_vocab_size"}},
	Alts: []Alt{{Tensor: "cls.output.weight", Arch: robertaSeqCls}, {Tensor: "cls.weight", Arch: bertSeqCls},
		{Tensor: "token_types.weight", Absent: true, Arch: distilBERT}},
	global: bertGlobal, layer: bertLayer,
	dropped: []string{"pooler.dense.weight", "pooler.dense.bias"}}

var (
	bertGlobal = []namePair{{"token_embd", "embeddings.word_embeddings"}, {"position_embd", "embeddings.position_embeddings"},
		{"token_types", "embeddings.token_type_embeddings"}, {"token_embd_norm", "embeddings.LayerNorm"}}
	bertLayer = []namePair{{"attn_q", "attention.self.query"}, {"attn_k", "attention.self.key"}, {"attn_v", "attention.self.value"},
		{"attn_output", "attention.output.dense"}, {"attn_output_norm", "attention.output.LayerNorm"},
		{"ffn_up", "intermediate.dense"}, {"ffn_down", "output.dense"}, {"layer_output_norm", "output.LayerNorm"}}
	// A sequence classifier: BERT's (its pooler dropped too) is cls
	// [C, H]; RoBERTa's and XLM-R's a dense cls [H, H] then cls.output
	// [C, H]. The label count is the classifier's row count.
	bertSeqCls = &Arch{Name: "bert", Class: "BertForSequenceClassification", ModelType: "bert", Layers: "bert.encoder.layer.",
		Dims:   []TensorDim{{Tensor: "token_types.weight", Dim: 0, Field: "type_vocab_size"}, {Tensor: "cls.weight", Dim: 0, Field: "num_labels"}},
		global: pairs(prefixed("bert.", bertGlobal), []namePair{{"cls", "classifier"}}), layer: bertLayer,
		dropped: []string{"bert.pooler.dense.weight", "bert.pooler.dense.bias"}}
	robertaSeqCls = &Arch{Name: "bert", Class: "RobertaForSequenceClassification", ModelType: "roberta", Layers: "roberta.encoder.layer.",
		Dims:   []TensorDim{{Tensor: "token_types.weight", Dim: 0, Field: "type_vocab_size"}, {Tensor: "cls.output.weight", Dim: 0, Field: "num_labels"}},
		global: pairs(prefixed("roberta.", bertGlobal), []namePair{{"cls.output", "classifier.out_proj"}, {"cls", "classifier.dense"}}),
		layer:  bertLayer}
)

var distilBERT = &Arch{Name: "bert", Class: "DistilBertModel", ModelType: "distilbert", Layers: "transformer.layer.",
	Keys: []ConfigKey{{Key: "embedding_length", Field: "dim"}, {Key: "block_count", Field: "n_layers"},
		{Key: "attention.head_count", Field: "n_heads"}, {Key: "feed_forward_length", Field: "hidden_dim"}},
	global: []namePair{{"token_embd", "embeddings.word_embeddings"}, {"position_embd", "embeddings.position_embeddings"},
		{"token_embd_norm", "embeddings.LayerNorm"}},
	layer: []namePair{{"attn_q", "attention.q_lin"}, {"attn_k", "attention.k_lin"}, {"attn_v", "attention.v_lin"},
		{"attn_output", "attention.out_lin"}, {"attn_output_norm", "sa_layer_norm"},
		{"ffn_up", "ffn.lin1"}, {"ffn_down", "ffn.lin2"}, {"layer_output_norm", "output_layer_norm"}}}

// t5 is T5 as llama.cpp converts it ("t5": encoder and decoder;
// "t5encoder": the encoder alone, of T5EncoderModel or of a whole model
// whose decoder was left out): the layers under enc.blk.N. and
// dec.blk.N., the shared embedding as token_embd, an untied head as
// output. A gated FFN (mT5, T5 v1.1) has ffn_gate (wi_0) and ffn_up
// (wi_1); UMT5 a relative-position table in every layer, not only
// the first.
var (
	t5 = &Arch{Name: "t5", Class: "T5ForConditionalGeneration", ModelType: "t5", Keys: t5Keys,
		Flags: t5Flags, Alts: t5Alts(false), global: t5Global, stacks: t5Stacks(t5Plain, true)}
	t5Encoder = &Arch{Name: "t5encoder", Class: "T5EncoderModel", ModelType: "t5", Keys: t5Keys,
		Flags: t5Flags, Alts: t5Alts(true), global: t5Global, stacks: t5Stacks(t5Plain, false)}
	t5Keys = []ConfigKey{{Key: "embedding_length", Field: "d_model"}, {Key: "feed_forward_length", Field: "d_ff"},
		{Key: "block_count", Field: "num_layers"}, {Key: "decoder_block_count", Field: "num_decoder_layers"},
		{Key: "attention.head_count", Field: "num_heads"}, {Key: "attention.key_length", Field: "d_kv"},
		{Key: "attention.relative_buckets_count", Field: "relative_attention_num_buckets"}}
	t5Flags  = []Flag{{Tensor: "enc.blk.0.ffn_gate.weight", Field: "feed_forward_proj", Yes: "gated-gelu", No: "relu"}}
	t5Global = []namePair{{"token_embd", "shared"}, {"enc.output_norm", "encoder.final_layer_norm"},
		{"dec.output_norm", "decoder.final_layer_norm"}, {"output", "lm_head"}}
	t5Plain = []namePair{{"ffn_up", "DenseReluDense.wi"}, {"ffn_down", "DenseReluDense.wo"}}
	t5Gated = []namePair{{"ffn_gate", "DenseReluDense.wi_0"}, {"ffn_up", "DenseReluDense.wi_1"}, {"ffn_down", "DenseReluDense.wo"}}
)

// t5Stacks are T5's encoder (and with decoder its decoder) layers, their
// FFN's pairs ffn.
func t5Stacks(ffn []namePair, decoder bool) []layerStack {
	self := []namePair{{"attn_q", "layer.0.SelfAttention.q"}, {"attn_k", "layer.0.SelfAttention.k"},
		{"attn_v", "layer.0.SelfAttention.v"}, {"attn_o", "layer.0.SelfAttention.o"},
		{"attn_rel_b", "layer.0.SelfAttention.relative_attention_bias"}, {"attn_norm", "layer.0.layer_norm"}}
	enc := pairs(self, prefixed("layer.1.", ffn), []namePair{{"ffn_norm", "layer.1.layer_norm"}})
	out := []layerStack{{"enc.blk.", "encoder.block.", enc}}
	if decoder {
		dec := pairs(self, []namePair{{"cross_attn_q", "layer.1.EncDecAttention.q"}, {"cross_attn_k", "layer.1.EncDecAttention.k"},
			{"cross_attn_v", "layer.1.EncDecAttention.v"}, {"cross_attn_o", "layer.1.EncDecAttention.o"},
			{"cross_attn_norm", "layer.1.layer_norm"}}, prefixed("layer.2.", ffn), []namePair{{"ffn_norm", "layer.2.layer_norm"}})
		out = append(out, layerStack{"dec.blk.", "decoder.block.", dec})
	}
	return out
}

// t5Alts are T5's other rows: UMT5 (a relative-position table in the
// second layer too) and the gated FFN, each of the whole model or of
// the encoder alone.
func t5Alts(encoder bool) []Alt {
	row := func(class, mt string, ffn []namePair) *Arch {
		if encoder {
			class = strings.Replace(class, "ForConditionalGeneration", "EncoderModel", 1)
		}
		return &Arch{Name: map[bool]string{false: "t5", true: "t5encoder"}[encoder], Class: class, ModelType: mt, Keys: t5Keys,
			Flags: t5Flags, global: t5Global, stacks: t5Stacks(ffn, !encoder)}
	}
	umt5 := "enc.blk.1.attn_rel_b.weight"
	gated := "enc.blk.0.ffn_gate.weight"
	return []Alt{
		{Tensor: umt5, Arch: withAlts(row("UMT5ForConditionalGeneration", "umt5", t5Plain), Alt{Tensor: gated, Arch: row("UMT5ForConditionalGeneration", "umt5", t5Gated)})},
		{Tensor: gated, Arch: row("T5ForConditionalGeneration", "t5", t5Gated)},
	}
}

func withAlts(a *Arch, alts ...Alt) *Arch { a.Alts = alts; return a }

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
		Keys:   []ConfigKey{{Key: "expert_shared_feed_forward_length", Field: "shared_expert_intermediate_size"}},
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
	// EmbeddingGemma: Gemma 3's text model without a head
	// (Gemma3TextModel: no model. prefix).
	{Name: "gemma-embedding", Class: "Gemma3TextModel", ModelType: "gemma3_text", Layers: "layers.",
		global: []namePair{{"token_embd", "embed_tokens"}, {"output_norm", "norm"}},
		layer:  pairs(inputNorm, attnNames, qkNorms, gemmaNorms, gatedMLP)},
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
	// V3 by its sigmoid gating (expert_gating_func 2), or, where the
	// converter wrote no gating function, by the correction bias of its
	// sparse layers (the first ones may be dense).
	deepseek("DeepseekV2ForCausalLM", "deepseek_v2", []Alt{{Key: "expert_gating_func", Is: 2, Tensor: "blk.*.exp_probs_b.bias",
		Arch: deepseek("DeepseekV3ForCausalLM", "deepseek_v3", nil)}}),
	{Name: "gpt2", Class: "GPT2LMHeadModel", ModelType: "gpt2", Keys: gpt2Keys, Layers: "transformer.h.",
		global: gpt2Global, layer: gpt2Layer},
	// StarCoder 1 and SantaCoder: GPT-BigCode, GPT-2's names, multi-query.
	{Name: "starcoder", Class: "GPTBigCodeForCausalLM", ModelType: "gpt_bigcode", Layers: "transformer.h.",
		Keys:   append([]ConfigKey{{Key: "attention.head_count_kv", Field: "multi_query", Is: 1}}, gpt2Keys...),
		global: gpt2Global, layer: gpt2Layer},
	{Name: "bloom", Class: "BloomForCausalLM", ModelType: "bloom", Layers: "transformer.h.",
		global: []namePair{{"token_embd", "transformer.word_embeddings"}, {"token_embd_norm", "transformer.word_embeddings_layernorm"},
			{"output_norm", "transformer.ln_f"}, {"output", "lm_head"}},
		layer: pairs(inputNorm, prefixed("self_attention.", neoxAttn), plainNorm, neoxMLP)},
	falcon(inputNorm, []Alt{{Tensor: "blk.0.attn_norm_2.weight", Arch: falcon([]namePair{{"attn_norm", "ln_mlp"}, {"attn_norm_2", "ln_attn"}}, nil)}}),
	{Name: "gptneox", Class: "GPTNeoXForCausalLM", ModelType: "gpt_neox", Layers: "gpt_neox.layers.",
		Flags:  []Flag{{Tensor: "blk.0.attn_qkv.bias", Field: "attention_bias"}},
		global: []namePair{{"token_embd", "gpt_neox.embed_in"}, {"output_norm", "gpt_neox.final_layer_norm"}, {"output", "embed_out"}},
		layer:  pairs(inputNorm, prefixed("attention.", neoxAttn), plainNorm, neoxMLP)},
	// Phi-1, 1.5 and 2 as transformers names them: separate q, k, v.
	{Name: "phi2", Class: "PhiForCausalLM", ModelType: "phi", QKNormField: "qk_layernorm",
		global: []namePair{{"token_embd", "model.embed_tokens"}, {"output_norm", "model.final_layernorm"}, {"output", "lm_head"}},
		layer:  pairs(inputNorm, attnNames[:3], []namePair{{"attn_output", "self_attn.dense"}, {"ffn_up", "mlp.fc1"}, {"ffn_down", "mlp.fc2"}})},
	{Name: "mpt", Class: "MptForCausalLM", ModelType: "mpt", Layers: "transformer.blocks.",
		Keys: []ConfigKey{{Key: "embedding_length", Field: "d_model"}, {Key: "block_count", Field: "n_layers"},
			{Key: "attention.head_count", Field: "n_heads"}},
		Flags:  []Flag{{Tensor: "blk.0.attn_qkv.bias", Field: "no_bias", Yes: false, No: true}},
		global: []namePair{{"token_embd", "transformer.wte"}, {"output_norm", "transformer.norm_f"}, {"output", "lm_head"}},
		layer: []namePair{{"attn_norm", "norm_1"}, {"attn_qkv", "attn.Wqkv"}, {"attn_output", "attn.out_proj"},
			{"ffn_norm", "norm_2"}, {"ffn_up", "ffn.up_proj"}, {"ffn_down", "ffn.down_proj"}}},
	// OLMo: no norm tensors (parameter-free layer norms).
	{Name: "olmo", Class: "OlmoForCausalLM", ModelType: "olmo", BiasField: "attention_bias",
		global: globalNames, layer: pairs(attnNames, gatedMLP)},
	{Name: "olmoe", Class: "OlmoeForCausalLM", ModelType: "olmoe", BiasField: "attention_bias", Experts: "num_experts",
		global: globalNames, layer: pairs(inputNorm, attnNames, qkNorms, plainNorm, qwenMoE),
		expertPrefix: "mlp.experts.", expertKinds: qwenKinds},
	{Name: "granitemoe", Class: "GraniteMoeForCausalLM", ModelType: "granitemoe", BiasField: "attention_bias", Experts: "num_local_experts",
		Alts:   []Alt{{Tensor: "blk.0.ffn_up_shexp.weight", Arch: graniteMoEShared}},
		global: globalNames, layer: pairs(inputNorm, attnNames, plainNorm, graniteMoE), splits: graniteSplits},
	// Command R7B, Command A: Command-R without q/k norms.
	{Name: "cohere2", Class: "Cohere2ForCausalLM", ModelType: "cohere2", BiasField: "attention_bias",
		global: globalNames, layer: pairs(inputNorm, attnNames, gatedMLP)},
	// Phi-3.5-MoE: Mixtral's experts, layer norms and an LM head with
	// biases.
	{Name: "phimoe", Class: "PhimoeForCausalLM", ModelType: "phimoe", BiasField: "attention_bias", Experts: "num_local_experts",
		Flags:  []Flag{{Tensor: "output.bias", Field: "lm_head_bias"}},
		global: globalNames, layer: mixtral.layer, expertPrefix: mixtral.expertPrefix, expertKinds: mixtral.expertKinds},
	// GLM-4-0414: four norms a layer, gate and up fused.
	{Name: "glm4", Class: "Glm4ForCausalLM", ModelType: "glm4", BiasField: "attention_bias",
		global: globalNames, layer: pairs(inputNorm, attnNames, []namePair{{"ffn_norm", "post_attention_layernorm"},
			{"post_attention_norm", "post_self_attn_layernorm"}, {"post_ffw_norm", "post_mlp_layernorm"}}, glmMLP)},
	// GLM-4 (glm-4-9b-chat-hf) as transformers names it. A GGUF of the
	// remote-code ChatGLM layout (one fused attn_qkv) has no spec: the
	// structural check.
	{Name: "chatglm", Class: "GlmForCausalLM", ModelType: "glm", BiasField: "attention_bias",
		Alts:   []Alt{{Tensor: "blk.0.attn_qkv.weight", Arch: &Arch{Name: "chatglm", Class: "ChatGLMModel (GGUF of the remote-code layout, no name map)"}}},
		global: globalNames, layer: pairs(inputNorm, attnNames, plainNorm, glmMLP)},
	// Mamba and Falcon-Mamba (whose converter sets ssm.dt_b_c_rms):
	// conv1d's [I, 1, K] is stored [I, K].
	mamba("MambaForCausalLM", "mamba", []Alt{{Key: "ssm.dt_b_c_rms", Is: 1, Arch: mamba("FalconMambaForCausalLM", "falcon_mamba", nil)}}),
	mamba2, graniteHybrid,
	// SmolLM3: converted as llama (its q/k rows permuted).
	{Name: "smollm3", Class: "SmolLM3ForCausalLM", ModelType: "smollm3", BiasField: "attention_bias",
		Flags:  []Flag{{Tensor: "blk.0.ffn_up.bias", Field: "mlp_bias"}},
		global: globalNames, layer: llamaLayer},
	// EXAONE 4: q/k norms, norms after attention and MLP only (OLMo 2's).
	{Name: "exaone4", Class: "Exaone4ForCausalLM", ModelType: "exaone4",
		global: globalNames, layer: pairs(attnNames, qkNorms, olmo2Norms, gatedMLP)},
	// ERNIE 4.5 (dense): Llama's names; use_bias on every projection.
	{Name: "ernie4_5", Class: "Ernie4_5ForCausalLM", ModelType: "ernie4_5", BiasField: "use_bias",
		global: globalNames, layer: llamaLayer},
	// ERNIE 4.5 MoE: sparse blocks from leading_dense_block_count
	// (moe_layer_start_index) every interleave_moe_layer_step-th, the
	// experts stacked, the correction bias kept [1, E] (ggml [E, 1]), the
	// converter drops the MTP tensors.
	{Name: "ernie4_5-moe", Class: "Ernie4_5_MoeForCausalLM", ModelType: "ernie4_5_moe", BiasField: "use_bias", Experts: "moe_num_experts",
		Keys: []ConfigKey{{Key: "expert_used_count", Field: "moe_k"}, {Key: "leading_dense_block_count", Field: "moe_layer_start_index"},
			{Key: "interleave_moe_layer_step", Field: "moe_layer_interval"}, {Key: "expert_shared_count", Field: "moe_num_shared_experts"}},
		global: globalNames, layer: pairs(llamaLayer, []namePair{{"ffn_gate_inp", "mlp.gate"}, {"exp_probs_b.bias", "mlp.moe_statics.e_score_correction_bias"},
			{"ffn_gate_exps", "mlp.experts.gate_proj"}, {"ffn_up_exps", "mlp.experts.up_proj"}, {"ffn_down_exps", "mlp.experts.down_proj"},
			{"ffn_gate_shexp", "mlp.shared_experts.gate_proj"}, {"ffn_up_shexp", "mlp.shared_experts.up_proj"}, {"ffn_down_shexp", "mlp.shared_experts.down_proj"}}),
		expertPrefix: "mlp.experts.", expertKinds: qwenKinds},
	// Hunyuan dense: Llama's names, its q/k norms named query_layernorm
	// and key_layernorm.
	{Name: "hunyuan-dense", Class: "HunYuanDenseV1ForCausalLM", ModelType: "hunyuan_v1_dense", BiasField: "attention_bias",
		Flags:  []Flag{{Tensor: "blk.0.ffn_up.bias", Field: "mlp_bias"}},
		global: globalNames, layer: pairs(llamaLayer, []namePair{{"attn_q_norm", "self_attn.query_layernorm"}, {"attn_k_norm", "self_attn.key_layernorm"}})},
	{Name: "glm4moe", Class: "Glm4MoeForCausalLM", ModelType: "glm4_moe", BiasField: "attention_bias", QKNormField: "use_qk_norm",
		Keys: []ConfigKey{{Key: "block_count", Field: "num_hidden_layers", Minus: "nextn_predict_layers"},
			{Key: "feed_forward_length", Field: "intermediate_size", Else: "expert_feed_forward_length"},
			{Key: "leading_dense_block_count", Field: "first_k_dense_replace", Default: 0}, {Key: "expert_count", Field: "n_routed_experts"},
			{Key: "expert_shared_count", Field: "n_shared_experts"}},
		global: globalNames, layer: pairs(inputNorm, attnNames, qkNorms, []namePair{{"post_attention_norm", "post_attention_layernorm"}},
			gatedMLP, deepseekMoE, glm4MoENextN),
		expertPrefix: "mlp.experts.", expertKinds: qwenKinds},
	// GPT-OSS: attention sinks, a biased router, stacked experts with
	// biases cut and transposed (gptOSSSplits).
	{Name: "gpt-oss", Class: "GptOssForCausalLM", ModelType: "gpt_oss", BiasField: "attention_bias", Experts: "num_local_experts",
		global: globalNames, layer: pairs(inputNorm, attnNames, []namePair{{"attn_sinks.weight", "self_attn.sinks"},
			{"post_attention_norm", "post_attention_layernorm"}, {"ffn_gate_inp", "mlp.router"}}),
		splits: gptOSSSplits},
	// The language models of Qwen2-VL and Qwen2.5-VL ("qwen2vl"), Qwen3-VL
	// ("qwen3vl") and Qwen3-VL-MoE ("qwen3vlmoe"): the converter writes
	// the vision tower to a separate mmproj file, and the text model's
	// tensors as Qwen2's, Qwen3's and Qwen3-MoE's (the multimodal rotary
	// sections and deepstack count are metadata, no tensor): checked with
	// those specs.
	{Name: "qwen2vl", Class: "Qwen2ForCausalLM", ModelType: "qwen2", global: globalNames, layer: llamaLayer},
	{Name: "qwen3vl", Class: "Qwen3ForCausalLM", ModelType: "qwen3", global: globalNames, layer: pairs(llamaLayer, qkNorms)},
	{Name: "qwen3vlmoe", Class: "Qwen3MoeForCausalLM", ModelType: "qwen3_moe", Experts: "num_experts",
		global: globalNames, layer: pairs(inputNorm, attnNames, qkNorms, plainNorm, qwenMoE),
		expertPrefix: "mlp.experts.", expertKinds: qwenKinds},
	// Llama 4's text model (of Llama4ForConditionalGeneration too: the
	// vision tower goes to the mmproj file): MoE blocks every
	// interleave_moe_layer_step-th with a shared expert, dense ones of
	// intermediate_size_mlp, which the converter writes as
	// feed_forward_length (the experts' width as expert_feed_forward_length).
	{Name: "llama4", Class: "Llama4ForCausalLM", ModelType: "llama4_text", BiasField: "attention_bias", Experts: "num_local_experts",
		Keys: []ConfigKey{{Key: "feed_forward_length", Field: "intermediate_size_mlp"}, {Key: "expert_feed_forward_length", Field: "intermediate_size"},
			{Key: "interleave_moe_layer_step", Field: "interleave_moe_layer_step"}},
		global: globalNames, layer: pairs(inputNorm, attnNames, plainNorm, []namePair{
			{"ffn_gate_inp", "feed_forward.router"},
			{"ffn_gate_shexp", "feed_forward.shared_expert.gate_proj"}, {"ffn_up_shexp", "feed_forward.shared_expert.up_proj"},
			{"ffn_down_shexp", "feed_forward.shared_expert.down_proj"},
			{"ffn_gate", "feed_forward.gate_proj"}, {"ffn_up", "feed_forward.up_proj"}, {"ffn_down", "feed_forward.down_proj"}}),
		splits: llama4Splits},
	lfm2,
	jamba,
	// Arcee (AFM) and Jais 2: Llama's names, an MLP of up and down only
	// (ReLU²); Jais 2's norms have biases.
	{Name: "arcee", Class: "ArceeForCausalLM", ModelType: "arcee", BiasField: "attention_bias", Flags: mlpBias,
		global: globalNames, layer: pairs(inputNorm, attnNames, plainNorm, upDownMLP)},
	{Name: "jais2", Class: "Jais2ForCausalLM", ModelType: "jais2", BiasField: "attention_bias", Flags: mlpBias,
		global: globalNames, layer: pairs(inputNorm, attnNames, plainNorm, upDownMLP)},
	// Seed-OSS: q/k/v biases (o_proj's by attention_out_bias), its
	// post_attention_layernorm as post_attention_norm.
	{Name: "seed_oss", Class: "SeedOssForCausalLM", ModelType: "seed_oss", BiasField: "attention_bias",
		Flags:  append([]Flag{{Tensor: "blk.0.attn_output.bias", Field: "attention_out_bias"}}, mlpBias...),
		global: globalNames, layer: pairs(inputNorm, attnNames, []namePair{{"post_attention_norm", "post_attention_layernorm"}}, gatedMLP)},
	// Mellum: q/k norms, each layer's MLP sparse (stacked experts) or
	// dense, as the layers holding a router say (mlp_layer_types).
	{Name: "mellum", Class: "MellumForCausalLM", ModelType: "mellum", BiasField: "attention_bias", Experts: "num_local_experts",
		Lists:  []LayerList{{Tensor: "ffn_gate_inp.weight", Field: "mlp_layer_types", Yes: "sparse", No: "dense"}},
		global: globalNames, layer: pairs(inputNorm, attnNames, qkNorms, plainNorm, gatedMLP, qwenMoE),
		expertPrefix: "mlp.experts.", expertKinds: qwenKinds},
	// Qwen3.5 and Qwen3.5-MoE (their language model; the vision tower is
	// the mmproj file): Gated DeltaNet layers and gated full attention
	// ones, told apart by the layers holding attn_q (layer_types).
	qwen35(false), qwen35(true),
	bert,
	t5, t5Encoder,
	// ModernBERT (ModernBertModel): a fused Wqkv, a GLU MLP whose fused
	// Wi the converter keeps whole as ffn_up, no attention norm in layer
	// 0 (the model has none there); biases by three switches. Its names
	// are the base model's, without "model.".
	{Name: "modern-bert", Class: "ModernBertModel", ModelType: "modernbert", Layers: "layers.",
		Flags: []Flag{{Tensor: "blk.0.attn_qkv.bias", Field: "attention_bias"}, {Tensor: "blk.0.ffn_up.bias", Field: "mlp_bias"},
			{Tensor: "token_embd_norm.bias", Field: "norm_bias"}},
		global: []namePair{{"token_embd", "embeddings.tok_embeddings"}, {"token_embd_norm", "embeddings.norm"},
			{"output_norm", "final_norm"}},
		layer: []namePair{{"attn_norm", "attn_norm"}, {"attn_qkv", "attn.Wqkv"}, {"attn_output", "attn.Wo"},
			{"ffn_norm", "mlp_norm"}, {"ffn_up", "mlp.Wi"}, {"ffn_down", "mlp.Wo"}}},
	// EuroBERT (EuroBertModel): Llama's layers without the model. prefix,
	// no head.
	{Name: "eurobert", Class: "EuroBertModel", ModelType: "eurobert", BiasField: "attention_bias", Flags: mlpBias, Layers: "layers.",
		global: []namePair{{"token_embd", "embed_tokens"}, {"output_norm", "norm"}}, layer: llamaLayer},
	// MiniCPM3: DeepSeek's multi-head latent attention (kv_b whole, q
	// through q_lora_rank), a dense MLP. The converter writes no
	// value_length: v_head_dim is llama.cpp's default, H/heads.
	{Name: "minicpm3", Class: "MiniCPM3ForCausalLM", ModelType: "minicpm3", BiasField: "attention_bias", Flags: mlpBias,
		Keys: []ConfigKey{{Key: "attention.q_lora_rank", Field: "q_lora_rank", Null: true}, {Key: "attention.kv_lora_rank", Field: "kv_lora_rank"},
			{Key: "rope.dimension_count", Field: "qk_rope_head_dim"},
			{Key: "attention.key_length", Field: "qk_nope_head_dim", Minus: "rope.dimension_count"}},
		global: globalNames, layer: pairs(inputNorm, mla, plainNorm, gatedMLP)},
	// dots.llm1: q/k norms, DeepSeek-V3's sparse blocks after
	// leading_dense_block_count dense ones.
	{Name: "dots1", Class: "Dots1ForCausalLM", ModelType: "dots1", BiasField: "attention_bias",
		Keys: []ConfigKey{{Key: "leading_dense_block_count", Field: "first_k_dense_replace"}, {Key: "expert_count", Field: "n_routed_experts"},
			{Key: "expert_shared_count", Field: "n_shared_experts"}},
		global: globalNames, layer: pairs(llamaLayer, qkNorms, deepseekMoE),
		expertPrefix: "mlp.experts.", expertKinds: qwenKinds},
	// Nemotron: layer norms with biases, a plain MLP.
	{Name: "nemotron", Class: "NemotronForCausalLM", ModelType: "nemotron", BiasField: "attention_bias",
		Flags:  []Flag{{Tensor: "blk.0.ffn_up.bias", Field: "mlp_bias"}},
		global: globalNames, layer: pairs(inputNorm, attnNames, plainNorm, []namePair{{"ffn_up", "mlp.up_proj"}, {"ffn_down", "mlp.down_proj"}})},
	// Chameleon: Llama's names with per-head q/k layer norms (weight and
	// bias [heads, d]); the converter drops the image tokenizer
	// (model.vqmodel.), which llama.cpp does not run.
	{Name: "chameleon", Class: "ChameleonForConditionalGeneration", ModelType: "chameleon", BiasField: "attention_bias", Flags: mlpBias,
		global: globalNames, layer: pairs(llamaLayer, qkNorms), dropped: []string{"model.vqmodel."}},
	dbrx,
	qwen3Next,
	afmoe,
	// DeepSeek-V3.2 and GLM-5: DeepSeek-V3 with the sparse-attention
	// indexer; GLM-5's layers run their own indexer where indexer_types
	// says "full" (the layers holding one).
	dsa("deepseek32", "DeepseekV32ForCausalLM", "deepseek_v32"),
	withLists(dsa("glm-dsa", "GlmMoeDsaForCausalLM", "glm_moe_dsa"),
		LayerList{Tensor: "indexer.proj.weight", Field: "indexer_types", Yes: "full", No: "shared"}),
	// The language models of HunYuan-VL and PaddleOCR-VL: the converter
	// writes the vision tower to the mmproj file, and the text model's
	// tensors as HunYuan dense's and ERNIE 4.5's, whose specs check them.
	{Name: "hunyuan_vl", Class: "HunYuanDenseV1ForCausalLM", ModelType: "hunyuan_v1_dense", BiasField: "attention_bias",
		Flags:  []Flag{{Tensor: "blk.0.ffn_up.bias", Field: "mlp_bias"}},
		global: globalNames, layer: pairs(llamaLayer, []namePair{{"attn_q_norm", "self_attn.query_layernorm"}, {"attn_k_norm", "self_attn.key_layernorm"}})},
	{Name: "paddleocr", Class: "Ernie4_5ForCausalLM", ModelType: "ernie4_5", BiasField: "use_bias",
		global: globalNames, layer: llamaLayer},
}

// dbrx is DBRX: its config fields nested (ffn_config.*, attn_config.*),
// a fused Wqkv, and the experts flattened [E·I, H] per matrix, which the
// converter views as [E, I, H] (w1 gate, v1 up) and, for w2, transposes
// to [E, H, I].
var dbrx = &Arch{Name: "dbrx", Class: "DbrxForCausalLM", ModelType: "dbrx", Layers: "transformer.blocks.", Experts: "ffn_config.moe_num_experts",
	Keys: []ConfigKey{{Key: "embedding_length", Field: "d_model"}, {Key: "block_count", Field: "n_layers"},
		{Key: "attention.head_count", Field: "n_heads"}, {Key: "attention.head_count_kv", Field: "attn_config.kv_n_heads"},
		{Key: "feed_forward_length", Field: "ffn_config.ffn_hidden_size"}, {Key: "context_length", Field: "max_seq_len"},
		{Key: "expert_used_count", Field: "ffn_config.moe_top_k"}},
	global: []namePair{{"token_embd", "transformer.wte"}, {"output_norm", "transformer.norm_f"}, {"output", "lm_head"}},
	layer: []namePair{{"attn_norm", "norm_attn_norm.norm_1"}, {"attn_qkv", "norm_attn_norm.attn.Wqkv"},
		{"attn_output", "norm_attn_norm.attn.out_proj"}, {"attn_output_norm", "norm_attn_norm.norm_2"}, {"ffn_gate_inp", "ffn.router.layer"}},
	splits: []split{
		{"ffn.experts.mlp.w1", []Part{{"ffn_gate_exps.weight", []string{"ffn_config.moe_num_experts", "ffn_config.ffn_hidden_size", "d_model"}}}},
		{"ffn.experts.mlp.v1", []Part{{"ffn_up_exps.weight", []string{"ffn_config.moe_num_experts", "ffn_config.ffn_hidden_size", "d_model"}}}},
		{"ffn.experts.mlp.w2", []Part{{"ffn_down_exps.weight", []string{"ffn_config.moe_num_experts", "d_model", "ffn_config.ffn_hidden_size"}}}},
	}}

// qwen3Next is Qwen3-Next: Gated DeltaNet and gated full attention
// layers told apart by the layers holding attn_q (layer_types), the
// DeltaNet widths from the ssm keys as Qwen3.5's, every layer's MLP
// sparse with a gated shared expert. The converter cuts in_proj_qkvz,
// whose rows are [q, k, v, z] per key head, into attn_qkv (every q,
// then every k, then every v: 2·nk·dk + nv·dv rows) and attn_gate (the
// z rows, nv·dv); in_proj_ba is kept whole as ssm_ba; conv1d [C, 1, K]
// is stored [C, K].
var qwen3Next = &Arch{Name: "qwen3next", Class: "Qwen3NextForCausalLM", ModelType: "qwen3_next", Experts: "num_experts",
	Flags: []Flag{{Tensor: "blk.*.attn_q.bias", Field: "attention_bias"}}, // layer 0 may be a DeltaNet's
	Keys: []ConfigKey{{Key: "ssm.conv_kernel", Field: "linear_conv_kernel_dim"}, {Key: "ssm.state_size", Field: "linear_key_head_dim"},
		{Key: "ssm.group_count", Field: "linear_num_key_heads"}, {Key: "ssm.time_step_rank", Field: "linear_num_value_heads"},
		{Key: "ssm.inner_size", Field: "linear_value_head_dim", Over: "ssm.time_step_rank"},
		{Key: "full_attention_interval", Field: "full_attention_interval"},
		{Key: "expert_shared_feed_forward_length", Field: "shared_expert_intermediate_size"}},
	Lists:  []LayerList{{Tensor: "attn_q.weight", Field: "layer_types", Yes: "full_attention", No: "linear_attention"}},
	global: globalNames,
	layer: pairs(inputNorm, attnNames, qkNorms, []namePair{{"post_attention_norm", "post_attention_layernorm"},
		{"ssm_ba", "linear_attn.in_proj_ba"}, {"ssm_conv1d", "linear_attn.conv1d"}, {"ssm_dt.bias", "linear_attn.dt_bias"},
		{"ssm_a", "linear_attn.A_log"}, {"ssm_norm", "linear_attn.norm"}, {"ssm_out", "linear_attn.out_proj"}}, qwenMoE, qwenShared),
	splits: []split{
		{"linear_attn.conv1d.weight", []Part{{"ssm_conv1d.weight", []string{"#0", "#2"}}}},
		{"linear_attn.in_proj_qkvz.weight", []Part{
			{"attn_qkv.weight", []string{"2*linear_num_key_heads*linear_key_head_dim+linear_num_value_heads*linear_value_head_dim", "hidden_size"}},
			{"attn_gate.weight", []string{"linear_num_value_heads*linear_value_head_dim", "hidden_size"}}}},
	},
	expertPrefix: "mlp.experts.", expertKinds: qwenKinds}

// afmoe is AFMoE (Arcee's Trinity): gated attention (q/k norms, a gate
// projection as attn_gate), norms before and after both attention and
// MLP, num_dense_layers dense layers (leading_dense_block_count), then
// routed experts with an expert bias (exp_probs_b) and shared experts.
var afmoe = &Arch{Name: "afmoe", Class: "AfmoeForCausalLM", ModelType: "afmoe", BiasField: "attention_bias", Experts: "num_experts",
	Keys:   []ConfigKey{{Key: "leading_dense_block_count", Field: "num_dense_layers"}, {Key: "expert_shared_count", Field: "num_shared_experts"}},
	global: globalNames,
	layer: pairs(inputNorm, attnNames, qkNorms, []namePair{{"attn_gate", "self_attn.gate_proj"},
		{"post_attention_norm", "post_attention_layernorm"}, {"ffn_norm", "pre_mlp_layernorm"}, {"post_ffw_norm", "post_mlp_layernorm"}},
		gatedMLP, []namePair{{"ffn_gate_inp", "mlp.router.gate"}, {"exp_probs_b.bias", "mlp.expert_bias"},
			{"ffn_gate_exps", "mlp.experts.gate_proj"}, {"ffn_up_exps", "mlp.experts.up_proj"}, {"ffn_down_exps", "mlp.experts.down_proj"},
			{"ffn_gate_shexp", "mlp.shared_experts.gate_proj"}, {"ffn_up_shexp", "mlp.shared_experts.up_proj"},
			{"ffn_down_shexp", "mlp.shared_experts.down_proj"}}),
	expertPrefix: "mlp.experts.", expertKinds: qwenKinds}

// dsa is a DeepSeek sparse-attention row (DeepSeek-V3.2, GLM-5):
// DeepSeek-V3's, with the lightning indexer of every layer (its q from
// the q low rank, one key head with a LayerNorm, per-head weights); the
// converter keeps the multi-token-prediction layers (transformers
// ignores them on load), counts them in block_count and names their
// extra tensors blk.N.nextn.*, as GLM-4.5's. Their kv_b halves, which
// no Hugging Face tensor of the spec holds whole there, take the
// converter's own names (self_attn.k_b_proj, v_b_proj), so that the
// ignored layer is ignored whole.
func dsa(name, class, modelType string) *Arch {
	a := deepseek(class, modelType, nil)
	a.Name = name
	a.Keys = append(slices.Clone(deepseekKeys), ConfigKey{Key: "block_count", Field: "num_hidden_layers", Minus: "nextn_predict_layers"},
		ConfigKey{Key: "attention.indexer.head_count", Field: "index_n_heads"}, ConfigKey{Key: "attention.indexer.key_length", Field: "index_head_dim"})
	a.layer = pairs(a.layer, []namePair{{"indexer.attn_q_b", "self_attn.indexer.wq_b"}, {"indexer.attn_k", "self_attn.indexer.wk"},
		{"indexer.k_norm", "self_attn.indexer.k_norm"}, {"indexer.proj", "self_attn.indexer.weights_proj"},
		{"attn_k_b", "self_attn.k_b_proj"}, {"attn_v_b", "self_attn.v_b_proj"}}, glm4MoENextN)
	return a
}

func withLists(a *Arch, lists ...LayerList) *Arch { a.Lists = lists; return a }

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

// For returns the row of the table a file takes: a's, or that of the
// first of a's alternatives whose metadata key (read by u, without the
// "<arch>." prefix) has its value, or, where the key is absent, whose
// tensor (has; "blk.*.<name>" asks for any layer's, see [AnyLayer]) is
// there; Mixtral's when a llama file has experts.
func (a *Arch) For(u func(key string) (uint64, bool), has func(name string) bool) *Arch {
	if n, ok := u("expert_count"); ok && n > 0 && a.MoE != nil {
		return a.MoE
	}
	for _, alt := range a.Alts {
		if alt.Key != "" {
			if v, ok := u(alt.Key); ok {
				if v == alt.Is {
					return alt.Arch.For(u, has)
				}
				continue // the metadata decides
			}
		}
		if alt.Tensor != "" && has(alt.Tensor) != alt.Absent {
			return alt.Arch.For(u, has) // an alternative may have its own (UMT5's gated FFN)
		}
	}
	return a
}

// FusedExperts returns, for a layer's stacked gate experts
// ("blk.N.ffn_gate_exps.weight" or ".bias"), the tensor llama.cpp's
// converter writes in their place and the up experts' with
// --fuse-gate-up-exps ("blk.N.ffn_gate_up_exps.weight", gate then up
// along the rows: [E, 2·I, H]) and the up experts' name; false for any
// other name.
func FusedExperts(name string) (fused, up string, ok bool) {
	n, rest, ok := splitLayer(name, "blk.")
	if !ok {
		return "", "", false
	}
	base, suffix := splitSuffix(rest)
	if base != "ffn_gate_exps" || suffix == "" {
		return "", "", false
	}
	p := "blk." + strconv.Itoa(n) + "."
	return p + "ffn_gate_up_exps" + suffix, p + "ffn_up_exps" + suffix, true
}

// LayerOf returns N when name is "blk.N.<base>".
func LayerOf(name, base string) (int, bool) {
	n, rest, ok := splitLayer(name, "blk.")
	return n, ok && rest == base
}

// AnyLayer reports whether pattern is "blk.*.<name>", a tensor of any
// layer, and then whether name is one of its tensors
// ("blk.<N>.<name>"): For's alternatives ask for one so.
func AnyLayer(pattern, name string) (isPattern, matches bool) {
	rest, ok := strings.CutPrefix(pattern, "blk.*.")
	if !ok {
		return false, false
	}
	n, tail, ok := splitLayer(name, "blk.")
	return true, ok && n >= 0 && tail == rest
}

func (a *Arch) layers() string {
	if a.Layers == "" {
		return "model.layers."
	}
	return a.Layers
}

// Parts returns the GGUF tensors the converter cuts a Hugging Face tensor
// into, and false for a tensor it keeps whole.
//
// A tensor the converter drops is cut into no part: one of a's dropped
// names, or under one of its dropped prefixes (those ending in ".":
// Chameleon's image tokenizer, "model.vqmodel.").
func (a *Arch) Parts(hf string) ([]Part, bool) {
	if slices.ContainsFunc(a.dropped, func(d string) bool { return d == hf || strings.HasSuffix(d, ".") && strings.HasPrefix(hf, d) }) {
		return []Part{}, true
	}
	n, rest, ok := splitLayer(hf, a.layers())
	if !ok {
		return nil, false
	}
	for _, s := range a.splits {
		if s.hf == rest {
			out := make([]Part, len(s.parts))
			for i, p := range s.parts {
				out[i] = Part{Name: "blk." + strconv.Itoa(n) + "." + p.Name, Shape: p.Shape}
			}
			return out, true
		}
	}
	return nil, false
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

// hasSuffix reports whether a name ends in ".weight" or ".bias".
func hasSuffix(name string) bool {
	_, s := splitSuffix(name)
	return s != ""
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
	return mapName(arch, name, (*Arch).HFName)
}

// HFName is [HFName] for this architecture.
func (a *Arch) HFName(name string) (string, bool) {
	return a.translate(name, "blk.", a.layers(), func(p namePair) (string, string) { return p.gguf, p.hf })
}

// GGUFName returns the GGUF name of a Hugging Face tensor of an
// architecture, the inverse of [HFName]: for "gemma2",
// "model.layers.0.pre_feedforward_layernorm.weight" is
// "blk.0.ffn_norm.weight".
func GGUFName(arch, hf string) (string, bool) {
	return mapName(arch, hf, (*Arch).GGUFName)
}

// mapName maps name by the method f of arch's table, if arch has one.
func mapName(arch, name string, f func(*Arch, string) (string, bool)) (string, bool) {
	a, ok := Architecture(arch)
	if !ok {
		return "", false
	}
	return f(a, name)
}

// GGUFName is [GGUFName] for this architecture.
func (a *Arch) GGUFName(hf string) (string, bool) {
	return a.translate(hf, a.layers(), "blk.", func(p namePair) (string, string) { return p.hf, p.gguf })
}

// translate maps name through arch's table, whose pairs dir turns into
// (from, to); layer tensors are fromLayer+N+"."+… and become
// toLayer+N+"."+…, and those of a further stack likewise (toHF says
// which side of it is from).
func (a *Arch) translate(name, fromLayer, toLayer string, dir func(namePair) (from, to string)) (string, bool) {
	toHF := fromLayer == "blk."
	pairs, prefix := a.global, ""
	if n, rest, ok := splitLayer(name, fromLayer); ok {
		pairs, prefix, name = a.layer, toLayer+strconv.Itoa(n)+".", rest
	}
	for _, st := range a.stacks {
		from, to := st.hf, st.gguf
		if toHF {
			from, to = to, from
		}
		if n, rest, ok := splitLayer(name, from); ok {
			pairs, prefix, name = st.pairs, to+strconv.Itoa(n)+".", rest
			break
		}
	}
	base, suffix := splitSuffix(name)
	for _, p := range pairs {
		from, to := dir(p)
		if from == name { // a pair of whole names
			return prefix + to, true
		}
		if from == base && !hasSuffix(to) {
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
	n, rest, ok := splitLayer(base, a.layers())
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
// and Mixtral HF checkpoints; SmolLM3; Chameleon, whose converter calls
// LlamaModel.permute), not to Qwen, Gemma or Mistral's native
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
