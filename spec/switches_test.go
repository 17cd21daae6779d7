package spec_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
)

// TestIgnoredOnLoad: what transformers ignores on load (DeepSeek-V3's
// multi-token-prediction layer, legacy attention-mask buffers) is a
// note, not a problem, and not counted.
func TestIgnoredOnLoad(t *testing.T) {
	cfg := []byte(`{"model_type":"deepseek_v3","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24,
		"q_lora_rank":null,"kv_lora_rank":8,"qk_nope_head_dim":4,"qk_rope_head_dim":2,"v_head_dim":3,"first_k_dense_replace":1,"torch_dtype":"bfloat16"}`)
	_, ts := expectedBF16(t, cfg)
	mtp := testmodel.Tensor{Name: "model.layers.1.eh_proj.weight", DType: "BF16", Shape: []uint64{32, 64}}
	r := checkLayout(t, cfg, append(ts, mtp))
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), "note: 1 tensor that DeepSeek-V3 ignores on load (e.g. model.layers.1.eh_proj.weight): not checked, not counted")
	assert.Equal(t, r.Stored-32*64, r.Logical)

	// GPT-2 as openai-community/gpt2 stores it: the base model, without
	// "transformer.", with its attention-mask buffers.
	gcfg := []byte(`{"model_type":"gpt2","architectures":["GPT2LMHeadModel"],"vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4,"n_positions":8}`)
	_, all := expectedBF16(t, gcfg)
	ts = nil
	for _, e := range all {
		if e.Name != "lm_head.weight" {
			e.Name = strings.TrimPrefix(e.Name, "transformer.")
			ts = append(ts, e)
		}
	}
	for l := range 2 {
		ts = append(ts, testmodel.Tensor{Name: fmt.Sprintf("h.%d.attn.bias", l), DType: "BF16", Shape: []uint64{1, 1, 8, 8}})
	}
	r = checkLayout(t, gcfg, ts)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), `a checkpoint of the base model: names without "transformer.", no head required`)
	assert.Contains(t, r.Text(), "each block  × 2   (shown: layer 0)\n    ln_1.weight")

	// A tensor of the base model missing is still missing.
	r = checkLayout(t, gcfg, ts[1:])
	assert.False(t, r.Clean())
}

// TestMXFP4: GPT-OSS as released, its experts packed in MXFP4 blocks and
// scales, checks clean.
func TestMXFP4(t *testing.T) {
	cfg := []byte(`{"model_type":"gpt_oss","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,
		"head_dim":8,"intermediate_size":32,"num_local_experts":2,"torch_dtype":"bfloat16","quantization_config":{"quant_method":"mxfp4"}}`)
	_, all := expectedBF16(t, cfg)
	var ts []testmodel.Tensor
	for _, e := range all {
		switch {
		case strings.HasSuffix(e.Name, "experts.gate_up_proj"):
			ts = append(ts, testmodel.Tensor{Name: e.Name + "_blocks", DType: "U8", Shape: []uint64{2, 64, 1, 16}},
				testmodel.Tensor{Name: e.Name + "_scales", DType: "U8", Shape: []uint64{2, 64, 1}})
		case strings.HasSuffix(e.Name, "experts.down_proj"):
			ts = append(ts, testmodel.Tensor{Name: e.Name + "_blocks", DType: "U8", Shape: []uint64{2, 32, 1, 16}},
				testmodel.Tensor{Name: e.Name + "_scales", DType: "U8", Shape: []uint64{2, 32, 1}})
		default:
			ts = append(ts, e)
		}
	}
	r := checkLayout(t, cfg, ts)
	assert.True(t, r.Clean(), r.Verdict())
	// Both experts' blocks are MXFP4 weights, and their scales the
	// auxiliaries: 2·(64+32) E8M0 scales.
	assert.Contains(t, r.Verdict(), "quantization (mxfp4) checked: MXFP4 (GPT-OSS experts): 2 weights")
	assert.Contains(t, r.Verdict(), "quantization auxiliaries: 192 values")
}

// TestVLMTextSpec: a vision-language model whose language model has no
// spec is not fully checked (it falls back to the structural check),
// and the reason names text_config.model_type.
func TestVLMTextSpec(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"model_type":"llava","text_config":{"model_type":"no_such_lm","vocab_size":16,"hidden_size":32}}`))
	require.NoError(t, err)
	_, err = spec.Expect(cfg)
	var ns *spec.NoSpecError
	require.True(t, errors.As(err, &ns), "%v", err)
	assert.Contains(t, err.Error(), `text_config.model_type "no_such_lm"`)
}

// TestVLMIgnoredOnLoad: what the language model's family ignores on load
// is ignored under the VLM's names too (GLM-4.5V's multi-token-prediction
// layer after the last one).
func TestVLMIgnoredOnLoad(t *testing.T) {
	cfg := []byte(`{"model_type":"glm4v_moe","torch_dtype":"bfloat16","text_config":{"model_type":"Glm4vMoe_text","vocab_size":16,"hidden_size":32,
		"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"moe_intermediate_size":6,"n_routed_experts":2,
		"n_shared_experts":1,"first_k_dense_replace":1},"vision_config":{"hidden_size":16,"depth":1,"intermediate_size":20,"out_hidden_size":32,"image_size":28}}`)
	p, ts := expectedBF16(t, cfg)
	assert.Equal(t, []uint64{16}, shapeOf(p, "model.language_model.layers.0.self_attn.k_proj.bias"))
	mtp := testmodel.Tensor{Name: "model.language_model.layers.2.eh_proj.weight", DType: "BF16", Shape: []uint64{32, 64}}
	r := checkLayout(t, cfg, append(ts, mtp))
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Verdict(), "ignores on load (e.g. model.language_model.layers.2.eh_proj.weight)")
}

// assertExpected checks the plan of config against want: a tensor with a
// shape must be expected with it, one with nil must not be expected. It
// returns the plan for further checks.
func assertExpected(t *testing.T, config string, want map[string][]uint64) *spec.Plan {
	t.Helper()
	p := expectJSON(t, config)
	for name, shape := range want {
		got := shapeOf(p, name)
		if shape == nil {
			assert.Nil(t, got, "%s should not be expected", name)
		} else {
			assert.Equal(t, shape, got, name)
		}
	}
	return p
}

// expectedBF16 returns the plan of config and its tensors as a BF16
// checkpoint would store them.
func expectedBF16(t *testing.T, config []byte) (*spec.Plan, []testmodel.Tensor) {
	t.Helper()
	c, err := spec.ParseConfig("config.json", config)
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err)
	var ts []testmodel.Tensor
	for _, e := range p.Tensors {
		ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "BF16", Shape: e.ShapeValues()})
	}
	return p, ts
}

func optionalIn(p *spec.Plan, name string) bool {
	for _, e := range p.Tensors {
		if e.Name == name {
			return e.Optional
		}
	}
	return false
}

// TestVisionEncoderDecoderParts: an encoder or decoder without a spec is
// named as the reason there is no full check.
func TestVisionEncoderDecoderParts(t *testing.T) {
	for _, c := range []struct{ config, reason string }{
		{`{"model_type":"vision-encoder-decoder","encoder":{"model_type":"beit"},"decoder":{"model_type":"mbart"}}`, `encoder.model_type "beit"`},
		{`{"model_type":"vision-encoder-decoder","encoder":{"model_type":"vit"},"decoder":{"model_type":"llava"}}`, `decoder.model_type "llava"`},
	} {
		cfg, err := spec.ParseConfig("config.json", []byte(c.config))
		require.NoError(t, err)
		_, err = spec.Expect(cfg)
		var ns *spec.NoSpecError
		require.ErrorAs(t, err, &ns)
		assert.Contains(t, ns.Reason, c.reason)
	}
}

// TestAbsurdNestedCounts: the nested counts families read from config.json (a
// VQ-GAN's residual blocks and resolutions, UDOP's bias list, IDEFICS's
// cross-layer interval) cannot ask for an enormous expected set: the
// config is refused at once with a ConfigError.
func TestAbsurdNestedCounts(t *testing.T) {
	many := strings.Repeat("1,", 4000) + "1"
	biases := strings.Repeat(`{"type":"vertical"},`, 5000) + `{"type":"1d"}`
	for _, c := range []struct{ name, config string }{
		{"janus: a million residual blocks", `{"model_type":"janus","vq_config":{"num_res_blocks":1000000}}`},
		{"janus: 4001 resolutions", `{"model_type":"janus","vq_config":{"channel_multiplier":[` + many + `]}}`},
		{"janus: a negative channel multiplier", `{"model_type":"janus","vq_config":{"channel_multiplier":[1,-2]}}`},
		{"udop: 5001 relative biases", `{"model_type":"udop","num_layers":1,"relative_bias_args":[` + biases + `]}`},
		{"udop: a negative bucket count", `{"model_type":"udop","num_layers":1,"relative_bias_args":[{"type":"vertical","relative_attention_num_buckets":-40}]}`},
		{"idefics: cross_layer_interval 0", `{"model_type":"idefics","num_hidden_layers":2,"cross_layer_interval":0}`},
		{"janus: no resolution", `{"model_type":"janus","vq_config":{"channel_multiplier":[]}}`},
		{"phi4: time reduction 2^20", `{"model_type":"phi4_multimodal","num_hidden_layers":1,"audio_config":{"time_reduction":1048576}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := spec.ParseConfig("config.json", []byte(c.config))
			require.NoError(t, err)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = spec.Expect(cfg)
			runtime.ReadMemStats(&after)
			var ce *spec.ConfigError
			require.ErrorAs(t, err, &ce, "%v", err)
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(8<<20), "bytes allocated")
			t.Log(err)
		})
	}
}

// TestSubConfigDefaults: the a/ configs of the architectures in want are their
// classes' defaults (but for capped layer counts), sub-configs included
// (Phi-4-multimodal's and VisionEncoderDecoder's hand-made bases keep
// their sub-configs' defaults too): deleting any one field of a
// sub-config (vision_config, vq_config, perceiver_config, text_config,
// audio_config, encoder, decoder) must not change the expected set. This
// checks the sub-config classes' defaults the families hold, which
// TestLayoutDefaults (top-level fields only) does not reach.
func TestSubConfigDefaults(t *testing.T) {
	want := map[string]bool{"idefics": true, "janus": true, "kosmos-2": true, "kosmos-2.5": true, "phi4_multimodal": true, "vision-encoder-decoder": true}
	for _, l := range readLayouts(t) {
		if l.Variant != "a" || !want[l.Arch] {
			continue
		}
		var fields map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(l.Config, &fields))
		base := plannedSet(t, l.Config)
		for sub, raw := range fields {
			var inner map[string]json.RawMessage
			if json.Unmarshal(raw, &inner) != nil {
				continue
			}
			for k := range inner {
				// A composition's decoder has add_cross_attention set by
				// from_encoder_decoder_configs, not by its class default.
				if capped[k] || k == "model_type" || sub == "decoder" && k == "add_cross_attention" {
					continue
				}
				edited := map[string]json.RawMessage{}
				for k2, v := range inner {
					if k2 != k {
						edited[k2] = v
					}
				}
				top := map[string]json.RawMessage{}
				for k2, v := range fields {
					top[k2] = v
				}
				top[sub], _ = json.Marshal(edited)
				cfg, _ := json.Marshal(top)
				assert.Equal(t, base, plannedSet(t, cfg), "%s: without %s.%s the expected set changes", l.Arch, sub, k)
			}
		}
	}
}

// TestFP8BlockScalesDeepSeekV3: DeepSeek-V3 as released, in FP8 with a
// weight_scale_inv of ceil(out/128)×ceil(in/128) blocks beside every
// linear weight but the router, norms and embeddings (float16, as
// torch_dtype says), a float32 correction bias and YaRN rope_scaling:
// clean, with the scales auxiliaries.
func TestFP8BlockScalesDeepSeekV3(t *testing.T) {
	cfg := []byte(`{"model_type":"deepseek_v3","architectures":["DeepseekV3ForCausalLM"],"vocab_size":300,"hidden_size":200,"num_hidden_layers":2,
		"num_attention_heads":2,"intermediate_size":260,"q_lora_rank":150,"kv_lora_rank":130,"qk_nope_head_dim":64,"qk_rope_head_dim":32,"v_head_dim":64,
		"n_routed_experts":3,"moe_intermediate_size":140,"first_k_dense_replace":1,"torch_dtype":"float16",
		"rope_scaling":{"type":"yarn","factor":40,"original_max_position_embeddings":4096,"mscale":1.0,"mscale_all_dim":1.0,"beta_fast":32,"beta_slow":1},
		"quantization_config":{"quant_method":"fp8","fmt":"e4m3","activation_scheme":"dynamic","weight_block_size":[128,128]}}`)
	c, err := spec.ParseConfig("config.json", cfg)
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err)
	var ts []testmodel.Tensor
	scales := 0
	for _, e := range p.Tensors {
		s := e.ShapeValues()
		switch {
		case e.Role == spec.RoleLinear && len(s) == 2 && !strings.Contains(e.Name, "mlp.gate."):
			ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "F8_E4M3", Shape: s},
				testmodel.Tensor{Name: strings.TrimSuffix(e.Name, ".weight") + ".weight_scale_inv", DType: "F32", Shape: []uint64{(s[0] + 127) / 128, (s[1] + 127) / 128}})
			scales++
		case strings.HasSuffix(e.Name, "e_score_correction_bias"):
			ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "F32", Shape: s})
		default:
			ts = append(ts, testmodel.Tensor{Name: e.Name, DType: "F16", Shape: s})
		}
	}
	require.Greater(t, scales, 20)
	r := checkLayout(t, cfg, ts)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Positive(t, r.Auxiliary)

	// A scale without its weight, or a weight dropped, is still found.
	var dropped []testmodel.Tensor
	for _, x := range ts {
		if x.Name != "model.layers.1.mlp.experts.2.down_proj.weight" {
			dropped = append(dropped, x)
		}
	}
	r = checkLayout(t, cfg, dropped)
	assert.False(t, r.Clean())
	assert.Contains(t, r.Text(), "experts.2.down_proj.weight")
}

// Config switches: configs the reference layouts do not cover (a switch
// flipped, multi-query attention, head_dim ≠ hidden/heads, odd layer
// counts and patterns, a config class's full-size defaults) and the
// tensors transformers' modules have for them, read from its
// configuration_*.py and modeling_*.py, not from the spec. One test per
// model group, as the families are filed (decoders.go, moe.go, …).

const llama = `"vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24`
const bert = `"vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":24,"max_position_embeddings":10,"type_vocab_size":2`
const llamaText = `"text_config":{"model_type":"llama","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":24}`
const doge = `"vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24`
const zamba2 = `"model_type":"zamba2","vocab_size":16,"hidden_size":32,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,
	"mamba_d_state":4,"n_mamba_heads":2,"adapter_rank":8`
const idefics = `{"model_type":"idefics","vocab_size":100,"hidden_size":64,"num_hidden_layers":8,"num_attention_heads":4,"intermediate_size":96,
	"vision_config":{"embed_dim":32,"num_hidden_layers":2,"intermediate_size":48,"image_size":28,"patch_size":14}`
const janusText = `"text_config":{"model_type":"llama","vocab_size":100,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":96}`

// dims of a small model: hidden 32, 4 heads, MQA unless a row says.
const small = `"vocab_size":16,"hidden_size":32,"num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":24`
const ernie = `"model_type":"ernie4_5_moe","vocab_size":16,"hidden_size":32,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"moe_intermediate_size":8,"moe_num_experts":3`

// layers is the num_hidden_layers member of a config.
func layers(n int) string { return fmt.Sprintf(`,"num_hidden_layers":%d`, n) }

// switchCase is a config and what its plan must hold: a tensor of want
// with a shape must be expected with it, one with nil must not be
// expected. With required, want's tensors with a shape must not be
// optional; optional's must be expected and optional (a shared block's
// later uses). total, when not 0, is the number of tensors expected (a
// tied head counted); -1 says config must be refused for a null
// vocab_size.
type switchCase struct {
	name, config string
	want         map[string][]uint64
	optional     []string
	required     bool
	total        int
}

func runSwitches(t *testing.T, cases []switchCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if c.total < 0 {
				cfg, err := spec.ParseConfig("c", []byte(c.config))
				require.NoError(t, err)
				_, err = spec.Expect(cfg)
				assert.ErrorContains(t, err, `"vocab_size" is null`)
				return
			}
			p := assertExpected(t, c.config, c.want)
			if c.total > 0 {
				assert.Len(t, p.Tensors, c.total, "tensors expected (a tied head counted)")
			}
			if c.required {
				for name, shape := range c.want {
					if shape != nil {
						assert.False(t, optionalIn(p, name), "%s should be required", name)
					}
				}
			}
			for _, name := range c.optional {
				assert.NotNil(t, shapeOf(p, name), name)
				assert.True(t, optionalIn(p, name), "%s should be optional", name)
			}
		})
	}
}

// TestSwitchesDecoders: the config switches of the dense decoder LMs (decoders.go).
func TestSwitchesDecoders(t *testing.T) {
	runSwitches(t, []switchCase{
		{name: "llama biases", config: `{"model_type":"llama",` + llama + `,"attention_bias":true,"mlp_bias":true}`, want: map[string][]uint64{
			"model.layers.1.self_attn.q_proj.bias": {32}, "model.layers.1.self_attn.k_proj.bias": {16}, "model.layers.1.self_attn.o_proj.bias": {32},
			"model.layers.1.mlp.down_proj.bias": {32}, "model.layers.1.mlp.gate_proj.bias": {24}}},

		{name: "llama no biases", config: `{"model_type":"llama",` + llama + `}`, want: map[string][]uint64{
			"model.layers.1.self_attn.q_proj.bias": nil, "model.layers.1.mlp.down_proj.bias": nil, "lm_head.weight": {16, 32}}},

		{name: "falcon new architecture", config: `{"model_type":"falcon","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"new_decoder_architecture":true,"num_kv_heads":2,"bias":true}`, want: map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {(4 + 4) * 8, 32}, "transformer.h.0.self_attention.query_key_value.bias": {64},
			"transformer.h.0.ln_attn.weight": {32}, "transformer.h.0.ln_mlp.bias": {32}, "transformer.h.0.input_layernorm.weight": nil,
			"transformer.h.0.mlp.dense_h_to_4h.weight": {128, 32}}},

		{name: "falcon sequential, multi-head", config: `{"model_type":"falcon","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"multi_query":false,"parallel_attn":false}`, want: map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {96, 32}, "transformer.h.0.post_attention_layernorm.weight": {32},
			"transformer.h.0.input_layernorm.weight": {32}, "transformer.h.0.ln_attn.weight": nil, "transformer.h.0.self_attention.dense.bias": nil}},

		{name: "stablelm per-head norms, parallel", config: `{"model_type":"stablelm",` + llama + `,"qk_layernorm":true,"use_parallel_residual":true,"use_qkv_bias":true}`, want: map[string][]uint64{"model.layers.0.self_attn.q_layernorm.norms.3.weight": {8}, "model.layers.0.self_attn.k_layernorm.norms.1.weight": {8},
			"model.layers.0.self_attn.k_layernorm.norms.2.weight": nil, "model.layers.0.post_attention_layernorm.weight": nil, "model.layers.0.self_attn.v_proj.bias": {16}}},

		{name: "phi qk layer norms", config: `{"model_type":"phi",` + llama + `,"qk_layernorm":true}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_layernorm.weight": {8}, "model.layers.0.self_attn.k_layernorm.bias": {8}, "lm_head.bias": {16}}},

		{name: "gpt-bigcode multi-head", config: `{"model_type":"gpt_bigcode","vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4,"multi_query":false}`, want: map[string][]uint64{
			"transformer.h.0.attn.c_attn.weight": {96, 32}, "transformer.h.0.mlp.c_fc.weight": {128, 32}, "transformer.wpe.weight": {1024, 32}}},

		{name: "cohere qk norms", config: `{"model_type":"cohere",` + llama + `,"use_qk_norm":true}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_norm.weight": {4, 8}, "model.layers.0.self_attn.k_norm.weight": {2, 8}, "lm_head.weight": {16, 32}}},

		{name: "opt without projections", config: `{"model_type":"opt","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"ffn_dim":24,
			"word_embed_proj_dim":32,"do_layer_norm_before":false}`, want: map[string][]uint64{
			"model.decoder.project_in.weight": nil, "model.decoder.final_layer_norm.weight": nil, "model.decoder.embed_positions.weight": {2050, 32}}},

		// MptModel ignores no_bias and expansion_ratio (the oracle, 4.57.6 and 5.15.0).
		{name: "mpt ignores no_bias and expansion_ratio", config: `{"model_type":"mpt","vocab_size":16,"d_model":32,"n_layers":2,"n_heads":4,"no_bias":false,"expansion_ratio":2}`, want: map[string][]uint64{
			"transformer.blocks.0.attn.Wqkv.bias": nil, "transformer.blocks.0.norm_1.bias": nil, "transformer.blocks.1.ffn.up_proj.weight": {128, 32}}},

		{name: "gpt-2 classification", config: `{"model_type":"gpt2","architectures":["GPT2ForSequenceClassification"],"vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4,"num_labels":3}`, want: map[string][]uint64{"score.weight": {3, 32}, "lm_head.weight": nil, "transformer.h.1.attn.c_attn.weight": {32, 96}}},

		{name: "doge cross-domain MoE, 10 experts, biases", config: `{"model_type":"doge",` + doge + `,"is_moe":true,"num_experts":10,"attention_bias":true,"mlp_bias":true}`, want: map[string][]uint64{
			"model.layers.1.mlp.router_gate.weight": {2 * 3, 32}, "model.layers.1.mlp.down_embed.weight": {10, 32},
			"model.layers.1.mlp.up_embed.weight": {10, 32}, "model.layers.1.mlp.gate_proj.bias": {24},
			"model.layers.0.self_attn.dt_proj.weight": {2, 16}, "model.layers.0.self_attn.dt_proj.bias": {2},
			"model.layers.0.self_attn.o_proj.bias": {32}}},

		{name: "doge dense", config: `{"model_type":"doge",` + doge + `}`, want: map[string][]uint64{
			"model.layers.1.mlp.router_gate.weight": nil, "model.layers.0.self_attn.dt_proj.bias": nil, "model.layers.0.self_attn.A": {2},
			"model.layers.0.self_attn.q_norm.weight": {8}}},

		{name: "reformer defaults: six layers, local then lsh, 64×64 axial", config: `{"model_type":"reformer"}`, want: map[string][]uint64{
			"reformer.encoder.layers.5.attention.self_attention.query_key.weight": {768, 256}, "reformer.encoder.layers.4.attention.self_attention.key.weight": {768, 256},
			"reformer.encoder.layers.6.attention.layer_norm.weight": nil, "reformer.embeddings.position_embeddings.weights.1": {1, 64, 192},
			"lm_head.decoder.weight": {320, 512}}},

		{name: "reformer three axial axes", config: `{"model_type":"reformer","attn_layers":["lsh"],"axial_pos_shape":[8,4,2],"axial_pos_embds_dim":[100,100,56],"max_position_embeddings":64}`, want: map[string][]uint64{"reformer.embeddings.position_embeddings.weights.2": {1, 1, 2, 56}, "reformer.embeddings.position_embeddings.weights.0": {8, 1, 1, 100},
			"reformer.encoder.layers.0.attention.self_attention.query.weight": nil}},

		{name: "reformer learned positions", config: `{"model_type":"reformer","attn_layers":["local"],"axial_pos_embds":false,"max_position_embeddings":100}`, want: map[string][]uint64{
			"reformer.embeddings.position_embeddings.embedding.weight": {100, 256}, "reformer.embeddings.position_embeddings.weights.0": nil}},

		{name: "transfo-xl one cluster width, d_embed ≠ d_model, shared r biases, untied", config: `{"model_type":"transfo-xl","vocab_size":100,"d_model":32,"d_embed":16,
			"n_layer":2,"n_head":4,"d_head":8,"d_inner":24,"cutoffs":[10,50],"div_val":1,"untie_r":false,"tie_word_embeddings":false,"tie_projs":[false,true,false]}`, want: map[string][]uint64{"transformer.word_emb.emb_layers.0.weight": {100, 16}, "transformer.word_emb.emb_layers.1.weight": nil,
			"transformer.word_emb.emb_projs.0": {32, 16}, "crit.out_layers.0.weight": {100, 16}, "crit.out_layers.0.bias": {100},
			"crit.out_layers.1.bias": nil, "crit.out_projs.2": {32, 16}, "crit.cluster_weight": {2, 16},
			"transformer.r_w_bias": {4, 8}, "transformer.layers.1.dec_attn.r_r_bias": nil, "transformer.pos_emb.inv_freq": {16}}},

		{name: "transfo-xl clusters of their own width", config: `{"model_type":"transfo-xl","vocab_size":100,"d_model":32,"d_embed":32,"n_layer":1,"n_head":4,"d_head":8,
			"d_inner":24,"cutoffs":[10,50],"div_val":2}`, want: map[string][]uint64{
			"transformer.word_emb.emb_layers.1.weight": {40, 16}, "transformer.word_emb.emb_layers.2.weight": {50, 8},
			"transformer.word_emb.emb_projs.2": {32, 8}, "crit.out_layers.2.bias": {50}, "crit.out_projs.0": {32, 32},
			"transformer.layers.0.dec_attn.r_w_bias": {4, 8}, "transformer.word_emb.emb_layers.3.weight": nil}},

		{name: "gemma3n text: kv sharing, one intermediate_size, biases, two AltUp streams, untied", config: `{"model_type":"gemma3n_text","vocab_size":16,
			"hidden_size":32,"num_hidden_layers":6,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"intermediate_size":24,
			"vocab_size_per_layer_input":12,"hidden_size_per_layer_input":4,"laurel_rank":3,"altup_num_inputs":2,"num_kv_shared_layers":2,
			"attention_bias":true,"tie_word_embeddings":false}`, want: map[string][]uint64{
			"model.language_model.layers.3.self_attn.k_proj.weight":       {16, 32},
			"model.language_model.layers.3.self_attn.k_proj.bias":         {16},
			"model.language_model.layers.5.self_attn.o_proj.bias":         {32},
			"model.language_model.layers.5.mlp.down_proj.weight":          {32, 24},
			"model.language_model.layers.5.altup.prediction_coefs.weight": {4, 2},
			"model.language_model.altup_projections.0.weight":             {32, 32},
			"model.language_model.altup_projections.1.weight":             nil,
			"model.language_model.embed_tokens_per_layer.weight":          {12, 24},
			"model.language_model.per_layer_model_projection.weight":      {24, 32},
			"model.language_model.layers.2.laurel.linear_left.weight":     {3, 32},
			"model.language_model.layers.2.self_attn.v_norm.weight":       nil,
			"lm_head.weight": {16, 32},
		}, optional: []string{"model.language_model.layers.4.self_attn.k_proj.weight", "model.language_model.layers.5.self_attn.v_proj.bias",
			"model.language_model.layers.5.self_attn.k_norm.weight"}, required: true},

		{name: "gemma3n text: an intermediate_size per layer", config: `{"model_type":"gemma3n_text","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,
			"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"intermediate_size":[24,40]}`, want: map[string][]uint64{
			"model.language_model.layers.0.mlp.gate_proj.weight": {24, 32}, "model.language_model.layers.1.mlp.up_proj.weight": {40, 32},
			"model.language_model.layers.1.self_attn.k_proj.weight": {16, 32}, "model.language_model.altup_projections.2.weight": {32, 32}}, optional: nil, required: true},

		{name: "blt: encoder cross-attending every layer, no patcher, GQA, token projection, three hashed n-gram sizes × 2 functions", config: `{"model_type":"blt",
			"vocab_size":16,"encoder_hash_byte_group_size":[3,4,5],"encoder_hash_byte_group_vocab":10,"encoder_hash_byte_group_nb_functions":2,
			"patch_in_forward":false,"encoder_config":{"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,
			"intermediate_size":24,"cross_attn_all_layers":true,"vocab_size":20},"decoder_config":{"hidden_size":16,"num_hidden_layers":2,
			"num_attention_heads":2,"intermediate_size":8,"cross_attn_all_layers":false,"hidden_size_global":48},
			"global_config":{"hidden_size":48,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":40}}`, want: map[string][]uint64{
			"model.encoder_hash_tok_embedding.weight":                    {60, 32},
			"model.local_encoder.embed_tokens.weight":                    {20, 32},
			"model.local_encoder.cross_attn_layers.1.k_proj.weight":      {16, 32},
			"model.local_encoder.layers.1.self_attn.v_proj.weight":       {16, 32},
			"model.local_encoder.patch_embedding_projection.weight":      {64, 32},
			"model.global_transformer.token_embedding_projection.weight": {48, 64},
			"model.global_transformer.layers.0.mlp.up_proj.weight":       {40, 48},
			"model.local_decoder.cross_attn_layers.0.q_norm.weight":      {16},
			"model.local_decoder.cross_attn_layers.1.q_norm.weight":      nil,
			"model.local_decoder.patch_embedding_projection.weight":      {32, 48},
			"model.patcher.layers.0.self_attn.q_proj.weight":             nil,
			"model.patcher.lm_head.weight":                               nil,
			"lm_head.weight":                                             {16, 16},
		}, optional: nil, required: true},

		{name: "blt defaults: 1/9/25/14 layers, no token projection", config: `{"model_type":"blt"}`, want: map[string][]uint64{
			"model.local_decoder.layers.8.mlp.down_proj.weight":          {1024, 2816},
			"model.local_decoder.cross_attn_layers.8.o_proj.weight":      {1024, 1024},
			"model.global_transformer.layers.24.self_attn.q_proj.weight": {2048, 2048},
			"model.patcher.layers.13.mlp.gate_proj.weight":               {2048, 768},
			"model.local_encoder.cross_attn_layers.1.q_proj.weight":      nil,
			"model.global_transformer.token_embedding_projection.weight": nil,
			"model.encoder_hash_tok_embedding.weight":                    {3000012, 1024},
		}, optional: nil, required: true},

		// The config classes' defaults alone: the full-size models.
		{name: "gemma3n text defaults: 35 layers, the last 15 kv-shared", config: `{"model_type":"gemma3n_text"}`, want: map[string][]uint64{
			"model.language_model.layers.34.mlp.gate_proj.weight":    {16384, 2048},
			"model.language_model.embed_tokens_per_layer.weight":     {262144, 35 * 256},
			"model.language_model.layers.19.self_attn.k_proj.weight": {512, 2048},
			"model.language_model.layers.35.self_attn.q_proj.weight": nil,
		}, optional: []string{"model.language_model.layers.20.self_attn.k_proj.weight"}, required: true},

		// GPT2Block with add_cross_attention: crossattention (Conv1D c_attn
		// [H, 2H] of k and v, q_attn [H, H], c_proj) and ln_cross_attn.
		{name: "gpt-2 add_cross_attention", config: `{"model_type":"gpt2","vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4,"n_positions":8,"add_cross_attention":true}`, want: map[string][]uint64{
			"transformer.h.1.crossattention.c_attn.weight": {32, 64}, "transformer.h.1.crossattention.c_attn.bias": {64},
			"transformer.h.1.crossattention.q_attn.weight": {32, 32}, "transformer.h.1.crossattention.c_proj.bias": {32},
			"transformer.h.0.ln_cross_attn.weight": {32}, "transformer.h.0.ln_cross_attn.bias": {32}, "transformer.wpe.weight": {8, 32}}, total: 2 + 2*20 + 3},

		{name: "gpt-2 without cross-attention", config: `{"model_type":"gpt2","vocab_size":16,"n_embd":32,"n_layer":2,"n_head":4}`, want: map[string][]uint64{"transformer.h.1.crossattention.c_attn.weight": nil, "transformer.h.0.ln_cross_attn.weight": nil}, total: 2 + 2*12 + 3},

		{name: "llama defaults: Llama-2-7B", config: `{"model_type":"llama"}`, want: map[string][]uint64{
			"model.layers.31.mlp.down_proj.weight": {4096, 11008}, "model.embed_tokens.weight": {32000, 4096}}, total: 32*9 + 3},

		{name: "gemma2 defaults: 26 layers, tied", config: `{"model_type":"gemma2"}`, want: map[string][]uint64{
			"model.layers.25.self_attn.q_proj.weight": {8 * 256, 2304}, "model.layers.25.self_attn.k_proj.weight": {4 * 256, 2304}}},

		{name: "gpt-neox defaults: 44 layers", config: `{"model_type":"gpt_neox"}`, want: map[string][]uint64{
			"gpt_neox.layers.43.attention.query_key_value.weight": {3 * 6144, 6144}, "embed_out.weight": {50432, 6144}}, total: 44*12 + 4},

		{name: "falcon defaults: Falcon-7B, multi-query, parallel", config: `{"model_type":"falcon"}`, want: map[string][]uint64{
			"transformer.h.31.self_attention.query_key_value.weight": {4544 + 2*64, 4544}, "transformer.h.31.input_layernorm.bias": {4544},
			"transformer.h.31.post_attention_layernorm.weight": nil, "transformer.h.0.mlp.dense_h_to_4h.weight": {4 * 4544, 4544}}, total: 32*6 + 4},

		// MllamaTextConfig: cross_attention_layers absent or null is
		// [3, 8, 13, …, 38] of 40 layers (before: no cross-attention).
		{name: "mllama text defaults: 40 layers, cross-attention every 5th from 3", config: `{"model_type":"mllama_text_model"}`, want: map[string][]uint64{
			"model.layers.3.cross_attn.k_norm.weight": {128}, "model.layers.38.cross_attn_mlp_gate": {1}, "model.layers.3.self_attn.q_proj.weight": nil,
			"model.layers.39.self_attn.k_proj.weight": {1024, 4096}, "model.embed_tokens.weight": {128264, 4096}}, total: 32*9 + 8*13 + 3},

		{name: "mllama text, cross_attention_layers null", config: `{"model_type":"mllama_text_model","vocab_size":16,"hidden_size":32,"num_hidden_layers":9,
			"num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":24,"cross_attention_layers":null}`, want: map[string][]uint64{
			"model.layers.3.cross_attn.k_proj.weight": {8, 32}, "model.layers.8.cross_attn.q_norm.weight": {8}, "model.layers.4.self_attn.q_proj.weight": {32, 32}}},

		{name: "mistral MQA, head_dim 16 ≠ 32/4, 3 layers", config: `{"model_type":"mistral",` + small + layers(3) + `,"head_dim":16}`, want: map[string][]uint64{
			"model.layers.2.self_attn.q_proj.weight": {64, 32}, "model.layers.2.self_attn.k_proj.weight": {16, 32},
			"model.layers.2.self_attn.o_proj.weight": {32, 64}, "model.layers.3.self_attn.q_proj.weight": nil, "lm_head.weight": {16, 32}}, total: 3*9 + 3},

		{name: "qwen2 tied, head_dim given", config: `{"model_type":"qwen2",` + small + layers(1) + `,"head_dim":12,"tie_word_embeddings":true}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_proj.bias": {48}, "model.layers.0.self_attn.v_proj.bias": {12}, "model.layers.0.self_attn.o_proj.bias": nil}},

		{name: "qwen3 attention_bias, MQA", config: `{"model_type":"qwen3",` + small + layers(1) + `,"head_dim":12,"attention_bias":true}`, want: map[string][]uint64{
			"model.layers.0.self_attn.o_proj.bias": {32}, "model.layers.0.self_attn.k_proj.bias": {12}, "model.layers.0.self_attn.k_norm.weight": {12}}},

		{name: "gemma with attention biases, untied", config: `{"model_type":"gemma",` + small + layers(1) + `,"head_dim":8,"attention_bias":true,"tie_word_embeddings":false}`, want: map[string][]uint64{"model.layers.0.self_attn.o_proj.bias": {32}, "model.layers.0.self_attn.k_proj.bias": {8}, "lm_head.weight": {16, 32}}, total: 13 + 3},

		{name: "gemma3_text MQA, 7 layers (5 sliding, 1 full, 1 sliding)", config: `{"model_type":"gemma3_text",` + small + layers(7) + `,"head_dim":8}`, want: map[string][]uint64{
			"model.layers.6.self_attn.k_norm.weight": {8}, "model.layers.5.pre_feedforward_layernorm.weight": {32}}, total: 7*13 + 3},

		{name: "phi-3 tied (Phi-4-mini), MQA", config: `{"model_type":"phi3",` + small + layers(1) + `,"tie_word_embeddings":true}`, want: map[string][]uint64{
			"model.layers.0.self_attn.qkv_proj.weight": {(4 + 2) * 8, 32}, "model.layers.0.mlp.gate_up_proj.weight": {48, 32}}},

		{name: "falcon-40b: new architecture, 8 kv heads", config: `{"model_type":"falcon","vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":16,
			"num_kv_heads":2,"new_decoder_architecture":true}`, want: map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {(16 + 4) * 4, 64}, "transformer.h.0.ln_attn.weight": {64},
			"transformer.h.0.input_layernorm.weight": nil, "transformer.h.0.self_attention.query_key_value.bias": nil}},

		{name: "falcon2-11b: new architecture, one norm in parallel", config: `{"model_type":"falcon","vocab_size":16,"hidden_size":64,"num_hidden_layers":1,
			"num_attention_heads":16,"num_kv_heads":2,"new_decoder_architecture":true,"num_ln_in_parallel_attn":1}`, want: map[string][]uint64{
			"transformer.h.0.input_layernorm.weight": {64}, "transformer.h.0.ln_attn.weight": nil, "transformer.h.0.ln_mlp.weight": nil}},

		{name: "falcon new architecture, sequential", config: `{"model_type":"falcon","vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":16,
			"num_kv_heads":1,"new_decoder_architecture":true,"parallel_attn":false}`, want: map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {(16 + 2) * 4, 64}, "transformer.h.0.post_attention_layernorm.weight": {64},
			"transformer.h.0.ln_attn.weight": nil}},

		{name: "gpt-neox without attention biases", config: `{"model_type":"gpt_neox","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,
			"intermediate_size":24,"attention_bias":false,"use_parallel_residual":false}`, want: map[string][]uint64{
			"gpt_neox.layers.0.attention.query_key_value.bias": nil, "gpt_neox.layers.0.attention.dense.bias": nil,
			"gpt_neox.layers.0.mlp.dense_h_to_4h.bias": {24}, "gpt_neox.layers.0.post_attention_layernorm.weight": {32}}},

		{name: "gpt-j n_inner given, untied head with a bias", config: `{"model_type":"gptj","vocab_size":16,"n_embd":32,"n_layer":1,"n_head":4,"n_inner":24}`, want: map[string][]uint64{"transformer.h.0.mlp.fc_in.weight": {24, 32}, "lm_head.bias": {16}, "transformer.h.0.attn.q_proj.bias": nil}},

		{name: "bloom with n_embed", config: `{"model_type":"bloom","vocab_size":16,"n_embed":32,"n_layer":1,"n_head":4}`, want: map[string][]uint64{
			"transformer.h.0.self_attention.query_key_value.weight": {96, 32}, "transformer.word_embeddings_layernorm.bias": {32}}},

		{name: "olmo2 MQA: k_norm over the kv width", config: `{"model_type":"olmo2",` + small + layers(1) + `}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_norm.weight": {32}, "model.layers.0.self_attn.k_norm.weight": {8}, "model.layers.0.input_layernorm.weight": nil}},

		{name: "olmo: parameter-free norms", config: `{"model_type":"olmo",` + small + layers(1) + `,"attention_bias":true}`, want: map[string][]uint64{
			"model.layers.0.self_attn.k_proj.bias": {8}, "model.norm.weight": nil, "model.layers.0.input_layernorm.weight": nil}},

		{name: "granite mlp_bias, attention_bias", config: `{"model_type":"granite",` + small + layers(1) + `,"mlp_bias":true,"attention_bias":true}`, want: map[string][]uint64{
			"model.layers.0.mlp.up_proj.bias": {24}, "model.layers.0.self_attn.v_proj.bias": {8}}},

		{name: "cohere2 untied, biases", config: `{"model_type":"cohere2",` + small + layers(1) + `,"head_dim":12,"attention_bias":true,"tie_word_embeddings":false}`, want: map[string][]uint64{"model.layers.0.self_attn.q_proj.weight": {48, 32}, "model.layers.0.post_attention_layernorm.weight": nil, "lm_head.weight": {16, 32}}},

		{name: "starcoder2 without biases, untied", config: `{"model_type":"starcoder2",` + small + layers(1) + `,"use_bias":false,"tie_word_embeddings":false}`, want: map[string][]uint64{"model.layers.0.mlp.c_fc.bias": nil, "model.layers.0.self_attn.q_proj.bias": nil,
			"model.layers.0.input_layernorm.bias": {32}, "model.norm.bias": {32}, "lm_head.weight": {16, 32}}},

		{name: "ernie4.5 biases, head_dim 12", config: `{"model_type":"ernie4_5",` + small + layers(1) + `,"head_dim":12,"use_bias":true,"tie_word_embeddings":false}`, want: map[string][]uint64{"model.layers.0.self_attn.o_proj.bias": {32}, "model.layers.0.mlp.down_proj.bias": {32}, "lm_head.weight": {16, 32}}},

		{name: "glm4 without biases", config: `{"model_type":"glm4",` + small + layers(1) + `,"head_dim":12,"attention_bias":false}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_proj.bias": nil, "model.layers.0.mlp.gate_up_proj.weight": {48, 32}, "model.layers.0.post_mlp_layernorm.weight": {32}}},

		{name: "exaone4 tied, head_dim 16", config: `{"model_type":"exaone4",` + small + layers(1) + `,"head_dim":16,"tie_word_embeddings":true}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_proj.weight": {64, 32}, "model.layers.0.input_layernorm.weight": nil}},

		{name: "nemotron biases, head_dim 16", config: `{"model_type":"nemotron",` + small + layers(1) + `,"head_dim":16,"attention_bias":true,"mlp_bias":true}`, want: map[string][]uint64{"model.layers.0.self_attn.o_proj.weight": {32, 64}, "model.layers.0.mlp.up_proj.bias": {24}, "model.norm.bias": {32}}},

		// HeliumConfig's head_dim defaults to 128; HeliumAttention's o_proj is Linear(H, H, bias=False).
		{name: "helium attention biases, head_dim by default", config: `{"model_type":"helium","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"attention_bias":true,"mlp_bias":true}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_proj.weight": {512, 32}, "model.layers.0.self_attn.k_proj.bias": {256},
			"model.layers.0.self_attn.o_proj.weight": {32, 32}, "model.layers.0.self_attn.o_proj.bias": nil, "model.layers.0.mlp.down_proj.bias": {32}}},

		{name: "helium head_dim null: H/heads", config: `{"model_type":"helium","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"head_dim":null}`, want: map[string][]uint64{"model.layers.0.self_attn.q_proj.weight": {32, 32}, "model.layers.0.self_attn.v_proj.weight": {16, 32}}},

		{name: "seed_oss attention bias without out bias", config: `{"model_type":"seed_oss","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,
			"head_dim":8,"intermediate_size":24,"attention_bias":true,"attention_out_bias":false}`, want: map[string][]uint64{
			"model.layers.0.self_attn.k_proj.bias": {16}, "model.layers.0.self_attn.o_proj.bias": nil, "model.layers.0.mlp.up_proj.bias": nil}},

		{name: "persimmon without qk layernorm", config: `{"model_type":"persimmon","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24,"qk_layernorm":false}`, want: map[string][]uint64{"model.layers.0.self_attn.q_layernorm.weight": nil, "model.layers.0.self_attn.query_key_value.bias": {96}}},
		{name: "nanochat a (the oracle's, transformers 5.15.0)", config: `{"architectures":["NanoChatForCausalLM"],"attention_bias":false,"attention_dropout":0.0,"bos_token_id":0,"dtype":"bfloat16","eos_token_id":1,"final_logit_softcapping":15.0,"hidden_act":"relu2","hidden_size":768,"initializer_range":0.02,"intermediate_size":8192,"max_position_embeddings":2048,"model_type":"nanochat","num_attention_heads":6,"num_hidden_layers":4,"num_key_value_heads":6,"pad_token_id":1,"rms_norm_eps":1e-06,"rope_parameters":{"rope_theta":10000.0,"rope_type":"default"},"tie_word_embeddings":false,"transformers_version":"5.15.0","use_cache":true,"vocab_size":50304}`,
			want:  map[string][]uint64{"lm_head.weight": {50304, 768}, "model.embed_tokens.weight": {50304, 768}, "model.layers.0.mlp.fc1.weight": {8192, 768}, "model.layers.0.mlp.fc2.weight": {768, 8192}, "model.layers.0.self_attn.k_proj.weight": {768, 768}, "model.layers.0.self_attn.o_proj.weight": {768, 768}, "model.layers.0.self_attn.q_proj.weight": {768, 768}, "model.layers.0.self_attn.v_proj.weight": {768, 768}, "model.layers.1.mlp.fc1.weight": {8192, 768}, "model.layers.1.mlp.fc2.weight": {768, 8192}, "model.layers.1.self_attn.k_proj.weight": {768, 768}, "model.layers.1.self_attn.o_proj.weight": {768, 768}, "model.layers.1.self_attn.q_proj.weight": {768, 768}, "model.layers.1.self_attn.v_proj.weight": {768, 768}, "model.layers.2.mlp.fc1.weight": {8192, 768}, "model.layers.2.mlp.fc2.weight": {768, 8192}, "model.layers.2.self_attn.k_proj.weight": {768, 768}, "model.layers.2.self_attn.o_proj.weight": {768, 768}, "model.layers.2.self_attn.q_proj.weight": {768, 768}, "model.layers.2.self_attn.v_proj.weight": {768, 768}, "model.layers.3.mlp.fc1.weight": {8192, 768}, "model.layers.3.mlp.fc2.weight": {768, 8192}, "model.layers.3.self_attn.k_proj.weight": {768, 768}, "model.layers.3.self_attn.o_proj.weight": {768, 768}, "model.layers.3.self_attn.q_proj.weight": {768, 768}, "model.layers.3.self_attn.v_proj.weight": {768, 768}},
			total: 26},
		{name: "nanochat b (the oracle's, transformers 5.15.0)", config: `{"architectures":["NanoChatForCausalLM"],"attention_bias":false,"attention_dropout":0.0,"bos_token_id":0,"dtype":"bfloat16","eos_token_id":1,"final_logit_softcapping":15.0,"hidden_act":"relu2","hidden_size":320,"initializer_range":0.02,"intermediate_size":736,"max_position_embeddings":2048,"model_type":"nanochat","num_attention_heads":10,"num_hidden_layers":5,"num_key_value_heads":5,"pad_token_id":1,"rms_norm_eps":1e-06,"rope_parameters":{"rope_theta":10000.0,"rope_type":"default"},"tie_word_embeddings":false,"transformers_version":"5.15.0","use_cache":true,"vocab_size":1000}`,
			want:  map[string][]uint64{"lm_head.weight": {1000, 320}, "model.embed_tokens.weight": {1000, 320}, "model.layers.0.mlp.fc1.weight": {736, 320}, "model.layers.0.mlp.fc2.weight": {320, 736}, "model.layers.0.self_attn.k_proj.weight": {160, 320}, "model.layers.0.self_attn.o_proj.weight": {320, 320}, "model.layers.0.self_attn.q_proj.weight": {320, 320}, "model.layers.0.self_attn.v_proj.weight": {160, 320}, "model.layers.1.mlp.fc1.weight": {736, 320}, "model.layers.1.mlp.fc2.weight": {320, 736}, "model.layers.1.self_attn.k_proj.weight": {160, 320}, "model.layers.1.self_attn.o_proj.weight": {320, 320}, "model.layers.1.self_attn.q_proj.weight": {320, 320}, "model.layers.1.self_attn.v_proj.weight": {160, 320}, "model.layers.2.mlp.fc1.weight": {736, 320}, "model.layers.2.mlp.fc2.weight": {320, 736}, "model.layers.2.self_attn.k_proj.weight": {160, 320}, "model.layers.2.self_attn.o_proj.weight": {320, 320}, "model.layers.2.self_attn.q_proj.weight": {320, 320}, "model.layers.2.self_attn.v_proj.weight": {160, 320}, "model.layers.3.mlp.fc1.weight": {736, 320}, "model.layers.3.mlp.fc2.weight": {320, 736}, "model.layers.3.self_attn.k_proj.weight": {160, 320}, "model.layers.3.self_attn.o_proj.weight": {320, 320}, "model.layers.3.self_attn.q_proj.weight": {320, 320}, "model.layers.3.self_attn.v_proj.weight": {160, 320}, "model.layers.4.mlp.fc1.weight": {736, 320}, "model.layers.4.mlp.fc2.weight": {320, 736}, "model.layers.4.self_attn.k_proj.weight": {160, 320}, "model.layers.4.self_attn.o_proj.weight": {320, 320}, "model.layers.4.self_attn.q_proj.weight": {320, 320}, "model.layers.4.self_attn.v_proj.weight": {160, 320}},
			total: 32},
		{name: "nanochat attention_bias, head_dim 16 ≠ 32/4, GQA (the oracle's)", config: `{"architectures":["NanoChatForCausalLM"],"model_type":"nanochat","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":24,"attention_bias":true}`,
			want:  map[string][]uint64{"lm_head.weight": {16, 32}, "model.embed_tokens.weight": {16, 32}, "model.layers.0.mlp.fc1.weight": {24, 32}, "model.layers.0.mlp.fc2.weight": {32, 24}, "model.layers.0.self_attn.k_proj.bias": {32}, "model.layers.0.self_attn.k_proj.weight": {32, 32}, "model.layers.0.self_attn.o_proj.bias": {32}, "model.layers.0.self_attn.o_proj.weight": {32, 64}, "model.layers.0.self_attn.q_proj.bias": {64}, "model.layers.0.self_attn.q_proj.weight": {64, 32}, "model.layers.0.self_attn.v_proj.bias": {32}, "model.layers.0.self_attn.v_proj.weight": {32, 32}, "model.layers.1.mlp.fc1.weight": {24, 32}, "model.layers.1.mlp.fc2.weight": {32, 24}, "model.layers.1.self_attn.k_proj.bias": {32}, "model.layers.1.self_attn.k_proj.weight": {32, 32}, "model.layers.1.self_attn.o_proj.bias": {32}, "model.layers.1.self_attn.o_proj.weight": {32, 64}, "model.layers.1.self_attn.q_proj.bias": {64}, "model.layers.1.self_attn.q_proj.weight": {64, 32}, "model.layers.1.self_attn.v_proj.bias": {32}, "model.layers.1.self_attn.v_proj.weight": {32, 32}},
			total: 22},
		{name: "nanochat tied: no lm_head stored (the oracle's)", config: `{"architectures":["NanoChatForCausalLM"],"model_type":"nanochat","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":24,"tie_word_embeddings":true}`,
			want:  map[string][]uint64{"model.embed_tokens.weight": {16, 32}, "model.layers.0.mlp.fc1.weight": {24, 32}, "model.layers.0.mlp.fc2.weight": {32, 24}, "model.layers.0.self_attn.k_proj.weight": {32, 32}, "model.layers.0.self_attn.o_proj.weight": {32, 32}, "model.layers.0.self_attn.q_proj.weight": {32, 32}, "model.layers.0.self_attn.v_proj.weight": {32, 32}, "model.layers.1.mlp.fc1.weight": {24, 32}, "model.layers.1.mlp.fc2.weight": {32, 24}, "model.layers.1.self_attn.k_proj.weight": {32, 32}, "model.layers.1.self_attn.o_proj.weight": {32, 32}, "model.layers.1.self_attn.q_proj.weight": {32, 32}, "model.layers.1.self_attn.v_proj.weight": {32, 32}},
			total: 14},
	})
}

// TestSwitchesMoE: the config switches of the mixture-of-experts LMs (moe.go).
func TestSwitchesMoE(t *testing.T) {
	runSwitches(t, []switchCase{
		{name: "deepseek-v3 without q_lora_rank, 2 dense first", config: `{"model_type":"deepseek_v3",` + llama + `,"q_lora_rank":null,"kv_lora_rank":8,
			"qk_nope_head_dim":4,"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":4,"moe_intermediate_size":6,"n_shared_experts":2,"first_k_dense_replace":1}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_proj.weight": {4 * 6, 32}, "model.layers.0.self_attn.q_a_proj.weight": nil,
			"model.layers.0.self_attn.kv_a_proj_with_mqa.weight": {10, 32}, "model.layers.0.self_attn.kv_b_proj.weight": {4 * 7, 8},
			"model.layers.0.self_attn.o_proj.weight": {32, 12}, "model.layers.0.mlp.gate_proj.weight": {24, 32},
			"model.layers.1.mlp.experts.3.down_proj.weight": {32, 6}, "model.layers.1.mlp.shared_experts.up_proj.weight": {12, 32},
			"model.layers.1.mlp.gate.e_score_correction_bias": {4}, "model.layers.1.mlp.gate_proj.weight": nil}},

		{name: "deepseek-v2 moe every 2nd layer, no shared experts", config: `{"model_type":"deepseek_v2",` + strings.Replace(llama, `"num_hidden_layers":2`, `"num_hidden_layers":4`, 1) +
			`,"q_lora_rank":null,"kv_lora_rank":8,"qk_nope_head_dim":4,"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":4,"moe_intermediate_size":6,
			"n_shared_experts":null,"first_k_dense_replace":1,"moe_layer_freq":2}`, want: map[string][]uint64{
			"model.layers.1.mlp.gate_proj.weight": {24, 32}, "model.layers.2.mlp.gate.weight": {4, 32}, "model.layers.3.mlp.gate_proj.weight": {24, 32},
			"model.layers.2.mlp.shared_experts.up_proj.weight": nil, "model.layers.2.mlp.gate.e_score_correction_bias": nil}},

		{name: "qwen2-moe mlp_only_layers", config: `{"model_type":"qwen2_moe",` + llama + `,"num_experts":4,"moe_intermediate_size":6,"shared_expert_intermediate_size":10,"mlp_only_layers":[1],"qkv_bias":false}`, want: map[string][]uint64{"model.layers.0.mlp.shared_expert.up_proj.weight": {10, 32}, "model.layers.0.mlp.shared_expert_gate.weight": {1, 32},
			"model.layers.1.mlp.up_proj.weight": {24, 32}, "model.layers.1.mlp.gate.weight": nil, "model.layers.0.self_attn.q_proj.bias": nil}},

		{name: "llama4 interleaved moe", config: `{"model_type":"llama4_text",` + strings.Replace(llama, `"num_hidden_layers":2`, `"num_hidden_layers":4`, 1) +
			`,"head_dim":8,"num_local_experts":3,"intermediate_size_mlp":40,"interleave_moe_layer_step":2}`, want: map[string][]uint64{
			"model.layers.0.feed_forward.gate_proj.weight": {40, 32}, "model.layers.1.feed_forward.experts.gate_up_proj": {3, 32, 48},
			"model.layers.3.feed_forward.router.weight": {3, 32}, "model.layers.2.feed_forward.router.weight": nil}},

		{name: "granitemoe-shared with a shared MLP", config: `{"model_type":"granitemoeshared",` + llama + `,"num_local_experts":3,"shared_intermediate_size":20}`, want: map[string][]uint64{"model.layers.1.shared_mlp.input_linear.weight": {40, 32}, "model.layers.1.block_sparse_moe.input_linear.weight": {3, 48, 32}}},

		{name: "mixtral classification", config: `{"model_type":"mixtral","architectures":["MixtralForSequenceClassification"],` + llama + `,"num_local_experts":2}`, want: map[string][]uint64{"score.weight": {2, 32}, "lm_head.weight": nil, "model.layers.1.block_sparse_moe.experts.1.w2.weight": {32, 24}}},

		// DeepseekV2MLP is LlamaMLP (bias=config.mlp_bias): the dense MLP,
		// every routed expert and the shared experts get biases.
		{name: "deepseek-v2 mlp_bias", config: `{"model_type":"deepseek_v2",` + small + layers(2) + `,"q_lora_rank":null,"kv_lora_rank":8,"qk_nope_head_dim":4,
			"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":2,"moe_intermediate_size":6,"first_k_dense_replace":1,"mlp_bias":true}`, want: map[string][]uint64{
			"model.layers.0.mlp.gate_proj.bias": {24}, "model.layers.0.mlp.down_proj.bias": {32},
			"model.layers.1.mlp.experts.1.up_proj.bias": {6}, "model.layers.1.mlp.experts.0.down_proj.bias": {32},
			"model.layers.1.mlp.shared_experts.gate_proj.bias": {12}, "model.layers.1.mlp.shared_experts.down_proj.bias": {32},
			"model.layers.1.mlp.gate.bias": nil, "model.layers.1.self_attn.o_proj.bias": nil, "model.layers.0.self_attn.q_proj.bias": nil}, total: 13 + 26 + 3},

		{name: "deepseek-v2 without mlp_bias", config: `{"model_type":"deepseek_v2",` + small + layers(2) + `,"q_lora_rank":null,"kv_lora_rank":8,"qk_nope_head_dim":4,
			"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":2,"moe_intermediate_size":6,"first_k_dense_replace":1}`, want: map[string][]uint64{"model.layers.0.mlp.gate_proj.bias": nil, "model.layers.1.mlp.experts.1.up_proj.bias": nil,
			"model.layers.1.mlp.shared_experts.gate_proj.bias": nil}, total: 30},

		// A config of only model_type is the class's full-size model
		// (a missing key takes its config class's default): before, these
		// were refused with "vocab_size is missing".
		{name: "deepseek-v3 defaults: 61 layers, 3 dense, 256 experts", config: `{"model_type":"deepseek_v3","architectures":["DeepseekV3ForCausalLM"]}`, want: map[string][]uint64{
			"model.embed_tokens.weight": {129280, 7168}, "model.layers.2.mlp.down_proj.weight": {7168, 18432},
			"model.layers.3.mlp.experts.255.gate_proj.weight": {2048, 7168}, "model.layers.60.mlp.shared_experts.up_proj.weight": {2048, 7168},
			"model.layers.60.mlp.gate.e_score_correction_bias": {256}, "model.layers.60.self_attn.q_b_proj.weight": {128 * 192, 1536},
			"model.layers.60.self_attn.kv_a_proj_with_mqa.weight": {576, 7168}, "model.layers.60.self_attn.kv_b_proj.weight": {128 * 256, 512},
			"model.layers.60.self_attn.o_proj.weight": {7168, 128 * 128}, "model.layers.61.input_layernorm.weight": nil,
			"model.layers.2.mlp.gate.weight": nil, "lm_head.weight": {129280, 7168}}, total: 3*12 + 58*(9+2+256*3+3) + 3},

		// Qwen3MoeConfig has no head_dim: the attention's getattr falls back
		// to hidden/heads = 64 (Qwen3Config's is 128).
		{name: "qwen3-moe defaults: 24 layers × 128 experts", config: `{"model_type":"qwen3_moe"}`, want: map[string][]uint64{
			"model.layers.23.mlp.experts.127.down_proj.weight": {2048, 768}, "model.layers.23.self_attn.q_proj.weight": {32 * 64, 2048},
			"model.layers.23.self_attn.k_proj.weight": {4 * 64, 2048}, "model.layers.0.self_attn.q_norm.weight": {64},
			"model.embed_tokens.weight": {151936, 2048}, "model.layers.24.input_layernorm.weight": nil}, total: 24*(8+1+128*3) + 3},

		{name: "qwen2-moe defaults: 24 layers × 60 experts and a shared expert", config: `{"model_type":"qwen2_moe"}`, want: map[string][]uint64{
			"model.layers.23.mlp.experts.59.up_proj.weight": {1408, 2048}, "model.layers.23.mlp.shared_expert.up_proj.weight": {5632, 2048},
			"model.layers.23.mlp.shared_expert_gate.weight": {1, 2048}, "model.layers.0.self_attn.k_proj.bias": {2048}}, total: 24*(2+7+1+60*3+3+1) + 3},

		{name: "mixtral defaults: 32 layers × 8 experts", config: `{"model_type":"mixtral"}`, want: map[string][]uint64{
			"model.layers.31.block_sparse_moe.experts.7.w2.weight": {4096, 14336}, "model.layers.31.self_attn.k_proj.weight": {1024, 4096}}, total: 32*(2+4+1+8*3) + 3},

		{name: "gpt-oss defaults: 36 layers × 128 experts", config: `{"model_type":"gpt_oss"}`, want: map[string][]uint64{
			"model.layers.35.mlp.experts.gate_up_proj": {128, 2880, 2 * 2880}, "model.layers.35.self_attn.q_proj.weight": {64 * 64, 2880},
			"model.layers.35.self_attn.k_proj.bias": {8 * 64}, "model.layers.35.self_attn.sinks": {64}, "model.embed_tokens.weight": {201088, 2880}}, total: 36*(2+8+1+2+4) + 3},

		{name: "deepseek-v2 defaults: 32 layers × 64 experts, 2 shared", config: `{"model_type":"deepseek_v2"}`, want: map[string][]uint64{
			"model.layers.31.mlp.experts.63.down_proj.weight": {4096, 1407}, "model.layers.31.mlp.shared_experts.down_proj.weight": {4096, 2 * 1407},
			"model.layers.0.self_attn.q_a_proj.weight": {1536, 4096}, "model.embed_tokens.weight": {32000, 4096}}, total: 32*(9+1+64*3+3) + 3},

		{name: "olmoe defaults", config: `{"model_type":"olmoe"}`, want: map[string][]uint64{"model.layers.15.mlp.experts.63.gate_proj.weight": {2048, 2048},
			"model.layers.15.self_attn.k_norm.weight": {2048}}, total: 16*(1+4+2+1+1+64*3) + 3},

		{name: "phimoe defaults", config: `{"model_type":"phimoe"}`, want: map[string][]uint64{"model.layers.31.block_sparse_moe.experts.15.w1.weight": {6400, 4096},
			"model.layers.31.input_layernorm.bias": {4096}, "model.norm.bias": {4096}}, total: 32*(4+4+1+16*3) + 4},

		{name: "an explicit null is still refused", config: `{"model_type":"deepseek_v3","vocab_size":null}`, want: nil, total: -1},

		{name: "qwen3-moe every 2nd layer sparse, layer 3 forced dense", config: `{"model_type":"qwen3_moe",` + small + layers(5) + `,"head_dim":8,"num_experts":2,
			"moe_intermediate_size":6,"decoder_sparse_step":2,"mlp_only_layers":[3]}`, want: map[string][]uint64{
			"model.layers.0.mlp.gate_proj.weight": {24, 32}, "model.layers.1.mlp.experts.1.down_proj.weight": {32, 6},
			"model.layers.3.mlp.gate.weight": nil, "model.layers.3.mlp.up_proj.weight": {24, 32}, "model.layers.4.mlp.gate.weight": nil}},

		{name: "granitemoe MQA with biases", config: `{"model_type":"granitemoe",` + small + layers(1) + `,"num_local_experts":2,"attention_bias":true}`, want: map[string][]uint64{
			"model.layers.0.block_sparse_moe.input_linear.weight": {2, 48, 32}, "model.layers.0.self_attn.k_proj.bias": {8}}},

		{name: "gpt-oss without attention biases, head_dim 12", config: `{"model_type":"gpt_oss",` + small + layers(1) + `,"head_dim":12,"num_local_experts":2,"attention_bias":false}`, want: map[string][]uint64{"model.layers.0.self_attn.q_proj.weight": {48, 32}, "model.layers.0.self_attn.q_proj.bias": nil,
			"model.layers.0.mlp.router.bias": {2}, "model.layers.0.mlp.experts.down_proj": {2, 24, 32}}},

		{name: "phimoe biased head and attention", config: `{"model_type":"phimoe",` + small + layers(1) + `,"num_local_experts":2,"attention_bias":true,"lm_head_bias":true}`, want: map[string][]uint64{"lm_head.bias": {16}, "model.layers.0.self_attn.k_proj.bias": {8}}},

		{name: "ernie4.5-moe every 2nd layer from 1, no shared experts", config: `{"model_type":"ernie4_5_moe",` + small + layers(4) + `,"moe_num_experts":2,
			"moe_intermediate_size":6,"moe_layer_interval":2,"moe_num_shared_experts":0}`, want: map[string][]uint64{
			"model.layers.0.mlp.gate_proj.weight": {24, 32}, "model.layers.1.mlp.experts.1.up_proj.weight": {6, 32},
			"model.layers.1.mlp.shared_experts.up_proj.weight": nil, "model.layers.2.mlp.gate.weight": nil, "model.layers.3.mlp.moe_statics.e_score_correction_bias": {1, 2}}},

		{name: "deepseek-v3 with q_lora_rank, all sparse, 2 shared, attention biases", config: `{"model_type":"deepseek_v3",` + small + layers(1) + `,"q_lora_rank":6,
			"kv_lora_rank":8,"qk_nope_head_dim":4,"qk_rope_head_dim":2,"v_head_dim":3,"n_routed_experts":2,"moe_intermediate_size":6,"n_shared_experts":2,
			"first_k_dense_replace":0,"attention_bias":true}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_a_proj.bias": {6}, "model.layers.0.self_attn.q_b_proj.weight": {24, 6}, "model.layers.0.self_attn.q_b_proj.bias": nil,
			"model.layers.0.self_attn.kv_a_proj_with_mqa.bias": {10}, "model.layers.0.mlp.shared_experts.down_proj.weight": {32, 12},
			"model.layers.0.mlp.gate_proj.weight": nil}},

		// Ernie4_5_MoeSparseMoeBlock's experts are Ernie4_5_MoeMLP (bias=use_bias); the head is Linear(bias=use_bias), its bias kept when tied.
		{name: "ernie4_5_moe use_bias: expert and head biases", config: `{` + ernie + `,"num_hidden_layers":2,"use_bias":true}`, want: map[string][]uint64{
			"model.layers.1.mlp.experts.2.gate_proj.bias": {8}, "model.layers.1.mlp.experts.0.down_proj.bias": {32},
			"model.layers.1.mlp.shared_experts.up_proj.bias": {16}, "model.layers.0.mlp.down_proj.bias": {32},
			"model.layers.1.self_attn.o_proj.bias": {32}, "lm_head.bias": {16}}},

		{name: "ernie4_5_moe no bias, MoE every 2nd of 0..4, no shared experts", config: `{` + ernie + `,"num_hidden_layers":6,"moe_layer_interval":2,"moe_layer_start_index":0,"moe_layer_end_index":4,"moe_num_shared_experts":0}`, want: map[string][]uint64{"model.layers.1.mlp.experts.2.gate_proj.weight": {8, 32}, "model.layers.3.mlp.moe_statics.e_score_correction_bias": {1, 3},
			"model.layers.5.mlp.gate.weight": nil, "model.layers.5.mlp.down_proj.weight": {32, 24}, "model.layers.0.mlp.gate.weight": nil,
			"model.layers.1.mlp.shared_experts.up_proj.weight": nil, "model.layers.1.mlp.experts.0.gate_proj.bias": nil, "lm_head.bias": nil}},

		// HunYuanMoE: shared_mlp is always HunYuanMoEV1MLP(config) (intermediate_size, bias=False); the class has no
		// num_shared_expert or mlp_bias (a real config's are ignored); num_experts may be a list, one per layer.
		{name: "hunyuan_v1_moe experts per layer, shared MLP of I without biases", config: `{"model_type":"hunyuan_v1_moe","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,
			"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"num_experts":[2,3],"moe_topk":[1,2],"num_shared_expert":2,"mlp_bias":true,"attention_bias":true}`, want: map[string][]uint64{"model.layers.0.mlp.gate.wg.weight": {2, 32}, "model.layers.1.mlp.gate.wg.weight": {3, 32},
			"model.layers.0.mlp.experts.2.up_proj.weight": nil, "model.layers.1.mlp.experts.2.up_proj.weight": {24, 32},
			"model.layers.1.mlp.shared_mlp.gate_proj.weight": {24, 32}, "model.layers.1.mlp.shared_mlp.gate_proj.bias": nil,
			"model.layers.1.mlp.shared_mlp.down_proj.weight": {32, 24}, "model.layers.0.self_attn.o_proj.bias": {32},
			"model.layers.0.self_attn.query_layernorm.weight": {8}}},

		// JetMoeConfig has no num_attention_heads argument (it sets kv·topk): a config without it still checks.
		{name: "jetmoe without num_attention_heads, untied, 3 experts", config: `{"model_type":"jetmoe","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_key_value_heads":2,
			"kv_channels":8,"intermediate_size":24,"num_local_experts":3,"num_experts_per_tok":2,"tie_word_embeddings":false}`, want: map[string][]uint64{
			"model.layers.1.self_attention.experts.input_linear.weight": {3, 16, 32}, "model.layers.1.self_attention.kv_proj.weight": {32, 32},
			"model.layers.1.mlp.input_linear.weight": {3, 48, 32}, "model.layers.1.mlp.bias": {32}, "lm_head.weight": {16, 32}}},

		{name: "dbrx GQA Wqkv, experts flattened", config: `{"model_type":"dbrx","vocab_size":16,"d_model":32,"n_layers":1,"n_heads":4,"attn_config":{"kv_n_heads":2},"ffn_config":{"ffn_hidden_size":24,"moe_num_experts":3}}`, want: map[string][]uint64{"transformer.blocks.0.norm_attn_norm.attn.Wqkv.weight": {64, 32}, "transformer.blocks.0.ffn.experts.mlp.w1": {72, 32},
			"transformer.blocks.0.norm_attn_norm.norm_1.bias": nil, "lm_head.weight": {16, 32}}},
	})
}

// TestSwitchesSSM: the config switches of the state-space, recurrent and hybrid models (ssm.go).
func TestSwitchesSSM(t *testing.T) {
	runSwitches(t, []switchCase{
		{name: "mamba biases, default time-step rank", config: `{"model_type":"mamba","vocab_size":16,"hidden_size":40,"num_hidden_layers":2,"state_size":4,
			"use_bias":true,"use_conv_bias":false}`, want: map[string][]uint64{
			"backbone.layers.1.mixer.in_proj.bias": {160}, "backbone.layers.1.mixer.out_proj.bias": {40}, "backbone.layers.1.mixer.conv1d.bias": nil,
			"backbone.layers.1.mixer.x_proj.weight": {3 + 8, 80}, "backbone.layers.1.mixer.dt_proj.weight": {80, 3}}},

		{name: "mamba2 without conv bias", config: `{"model_type":"mamba2","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_heads":4,"head_dim":16,
			"n_groups":2,"state_size":8,"use_conv_bias":false}`, want: map[string][]uint64{
			"backbone.layers.0.mixer.in_proj.weight": {2*64 + 2*2*8 + 4, 32}, "backbone.layers.0.mixer.conv1d.bias": nil, "backbone.layers.0.mixer.A_log": {4}}},

		{name: "jamba patterns, a single expert", config: `{"model_type":"jamba","vocab_size":16,"hidden_size":32,"num_hidden_layers":4,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"attn_layer_period":2,"attn_layer_offset":1,"num_experts":1,"mamba_dt_rank":4}`, want: map[string][]uint64{
			"model.layers.1.self_attn.k_proj.weight": {16, 32}, "model.layers.3.self_attn.q_proj.weight": {32, 32}, "model.layers.2.mamba.dt_proj.weight": {64, 4},
			"model.layers.1.feed_forward.router.weight": nil, "model.layers.1.feed_forward.gate_proj.weight": {24, 32}}},

		{name: "bamba attention layer", config: `{"model_type":"bamba","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,
			"intermediate_size":24,"attn_layer_indices":[1],"mamba_n_heads":4,"mamba_d_state":8}`, want: map[string][]uint64{
			"model.layers.1.self_attn.v_proj.weight": {16, 32}, "model.layers.1.mamba.in_proj.weight": nil, "model.layers.0.mamba.in_proj.weight": {2*64 + 2*8 + 4, 32}}},

		{name: "granitemoehybrid dense, no shared MLP, all mamba", config: `{"model_type":"granitemoehybrid","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,
			"num_attention_heads":4,"intermediate_size":24,"num_local_experts":0,"shared_intermediate_size":0,"mamba_n_heads":4,"mamba_d_state":8}`, want: map[string][]uint64{
			"model.layers.1.block_sparse_moe.router.layer.weight": nil, "model.layers.1.shared_mlp.input_linear.weight": nil,
			"model.layers.1.self_attn.q_proj.weight": nil, "model.layers.1.mamba.norm.weight": {64}}},

		{name: "lfm2 convolutions, plain FFN", config: `{"model_type":"lfm2","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"full_attn_idxs":[1],"block_auto_adjust_ff_dim":false,"conv_bias":true}`, want: map[string][]uint64{
			"model.layers.0.conv.in_proj.weight": {96, 32}, "model.layers.0.conv.conv.bias": {32}, "model.layers.0.self_attn.q_proj.weight": nil,
			"model.layers.1.self_attn.q_layernorm.weight": {8}, "model.layers.1.feed_forward.w1.weight": {24, 32}, "lm_head.weight": {16, 32}}},

		{name: "xlstm fused with biases, blocks from num_hidden_layers", config: `{"model_type":"xlstm","vocab_size":16,"hidden_size":64,"num_hidden_layers":2,"num_heads":4,
			"weight_mode":"fused","use_bias":true,"qk_dim_factor":0.25,"ffn_proj_factor":1.3,"ffn_round_up_to_multiple_of":32}`, want: map[string][]uint64{
			"backbone.blocks.1.mlstm_layer.qkv_opreact.weight": {2*16 + 2*64, 64}, "backbone.blocks.1.mlstm_layer.qkv_opreact.bias": {160},
			"backbone.blocks.1.mlstm_layer.ifgate_preact.bias": {8}, "backbone.blocks.1.mlstm_layer.q.weight": nil,
			"backbone.blocks.1.ffn.proj_up_gate_z.weight": {2 * 96, 64}, "backbone.blocks.1.ffn.proj_down.bias": {64},
			"backbone.blocks.0.norm_mlstm.bias": {64}, "backbone.blocks.0.mlstm_layer.multihead_norm.bias": {64},
			"backbone.blocks.2.norm_ffn.weight": nil, "backbone.embeddings.weight": {16, 64}}},

		{name: "xlstm embeddings of their own width, 3 blocks", config: `{"model_type":"xlstm","vocab_size":16,"hidden_size":64,"embedding_dim":128,"num_blocks":3,"num_heads":4}`, want: map[string][]uint64{"backbone.embeddings.weight": {16, 128}, "backbone.blocks.2.ffn.proj_up.weight": {192, 64},
			"backbone.blocks.2.mlstm_layer.k.weight": {32, 64}, "lm_head.weight": {16, 64}}},

		{name: "zamba2 two shared blocks over four hybrid layers, attention adapters, biases", config: `{` + zamba2 + `,"num_hidden_layers":7,
			"layers_block_type":["mamba","hybrid","mamba","hybrid","hybrid","mamba","hybrid"],"num_mem_blocks":2,
			"use_shared_attention_adapter":true,"add_bias_linear":true}`, want: map[string][]uint64{
			// Layer 1 uses block 0 (adapters 0 and 2), layer 3 block 1 (1 and 3).
			"model.layers.1.shared_transformer.feed_forward.gate_up_proj_adapter_list.0.0.weight": {8, 32},
			"model.layers.1.shared_transformer.feed_forward.gate_up_proj_adapter_list.2.1.weight": {48, 8},
			"model.layers.1.shared_transformer.feed_forward.gate_up_proj_adapter_list.1.0.weight": nil,
			"model.layers.3.shared_transformer.feed_forward.gate_up_proj_adapter_list.3.0.weight": {8, 32},
			"model.layers.3.shared_transformer.feed_forward.gate_up_proj_adapter_list.0.0.weight": nil,
			"model.layers.3.shared_transformer.self_attn.linear_k_adapter_list.3.1.weight":        {64, 8},
			"model.layers.1.shared_transformer.self_attn.linear_q_adapter_list.2.0.weight":        {8, 64},
			"model.layers.1.shared_transformer.self_attn.k_proj.weight":                           {32, 64},
			"model.layers.1.shared_transformer.self_attn.o_proj.weight":                           {32, 64},
			"model.layers.1.shared_transformer.input_layernorm.weight":                            {64},
			"model.layers.1.shared_transformer.feed_forward.down_proj.bias":                       {32},
			"model.layers.0.mamba.in_proj.bias":                                                   {2*64 + 2*4 + 2},
			"model.layers.6.mamba_decoder.mamba.out_proj.bias":                                    {32},
			"model.layers.6.linear.weight":                                                        {32, 32},
			"model.layers.5.linear.weight":                                                        nil,
		}, optional: []string{"model.layers.4.shared_transformer.self_attn.q_proj.weight", "model.layers.6.shared_transformer.feed_forward.down_proj.weight",
			"model.layers.6.shared_transformer.feed_forward.gate_up_proj_adapter_list.3.1.weight", "lm_head.weight"}, required: true},

		{name: "zamba2 default pattern: 54 layers, hybrid at 6…42, 47, 51", config: `{` + zamba2 + `}`, want: map[string][]uint64{
			"model.layers.6.shared_transformer.feed_forward.gate_up_proj_adapter_list.8.1.weight": {48, 8},
			"model.layers.6.shared_transformer.self_attn.linear_q_adapter_list.0.0.weight":        nil,
			"model.layers.6.shared_transformer.feed_forward.gate_up_proj.weight":                  {48, 32},
			"model.layers.47.linear.weight":                                                       {32, 32},
			"model.layers.51.mamba_decoder.input_layernorm.weight":                                {32},
			"model.layers.48.linear.weight":                                                       nil,
			"model.layers.53.mamba.in_proj.weight":                                                {2*64 + 2*4 + 2, 32},
			"model.layers.54.mamba.in_proj.weight":                                                nil,
			"model.layers.0.mamba.in_proj.bias":                                                   nil,
			"model.layers.0.mamba.conv1d.bias":                                                    {64 + 8},
		}, optional: []string{"model.layers.51.shared_transformer.pre_ff_layernorm.weight"}, required: true},

		{name: "jamba mamba biases, MQA attention, 3 experts every 2nd layer", config: `{"model_type":"jamba",` + small + layers(2) + `,"attn_layer_period":2,
			"attn_layer_offset":1,"expert_layer_period":2,"expert_layer_offset":1,"num_experts":3,"mamba_dt_rank":4,"mamba_proj_bias":true,"mamba_conv_bias":false,
			"mamba_d_state":5,"mamba_expand":3,"mamba_d_conv":3}`, want: map[string][]uint64{
			"model.layers.0.mamba.in_proj.bias": {192}, "model.layers.0.mamba.conv1d.weight": {96, 1, 3}, "model.layers.0.mamba.conv1d.bias": nil,
			"model.layers.0.mamba.x_proj.weight": {4 + 10, 96}, "model.layers.0.mamba.out_proj.bias": {32}, "model.layers.0.mamba.b_layernorm.weight": {5},
			"model.layers.1.self_attn.k_proj.weight": {8, 32}, "model.layers.1.feed_forward.experts.2.down_proj.weight": {32, 24},
			"model.layers.0.feed_forward.router.weight": nil}},

		{name: "mamba2 with biases", config: `{"model_type":"mamba2","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_heads":4,"head_dim":16,"n_groups":2,
			"state_size":8,"use_bias":true,"conv_kernel":3}`, want: map[string][]uint64{
			"backbone.layers.0.mixer.in_proj.bias": {2*64 + 2*2*8 + 4}, "backbone.layers.0.mixer.out_proj.bias": {32},
			"backbone.layers.0.mixer.conv1d.weight": {64 + 2*2*8, 1, 3}}},

		{name: "bamba MQA attention, mamba projection biases", config: `{"model_type":"bamba",` + small + layers(2) + `,"attn_layer_indices":[1],"mamba_n_heads":4,
			"mamba_d_state":8,"mamba_conv_bias":false,"mamba_proj_bias":true,"mamba_n_groups":2,"mamba_d_head":16}`, want: map[string][]uint64{
			"model.layers.0.mamba.in_proj.bias": {164}, "model.layers.0.mamba.conv1d.bias": nil, "model.layers.1.self_attn.k_proj.weight": {8, 32},
			"model.layers.1.mamba.in_proj.weight": nil}},

		{name: "falcon-h1 without the mixer's norm weight", config: `{"model_type":"falcon_h1",` + small + layers(1) + `,"head_dim":12,"mamba_d_ssm":48,"mamba_n_heads":4,
			"mamba_d_head":12,"mamba_n_groups":2,"mamba_d_state":8,"mamba_rms_norm":false}`, want: map[string][]uint64{
			"model.layers.0.mamba.norm.weight": nil, "model.layers.0.mamba.in_proj.weight": {48 + 80 + 4, 32}, "model.layers.0.self_attn.k_proj.weight": {12, 32}}},

		// Covered without a bug (read from the modeling files, checked both ways):
		{name: "zamba hybrid layers: 2, then offset among the rest", config: `{"model_type":"zamba","vocab_size":16,"hidden_size":32,"num_hidden_layers":8,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"attn_layer_offset":1,"attn_layer_period":3,"mamba_d_state":4,"mamba_d_conv":3,"n_mamba_heads":2,"mamba_expand":2}`, want: map[string][]uint64{"model.layers.2.linear.weight": {32, 32}, "model.layers.4.linear.weight": {32, 32}, "model.layers.7.linear.weight": {32, 32},
			"model.layers.1.linear.weight": nil, "model.layers.2.shared_transf.self_attn.q_proj.weight": {64, 64}, "model.layers.2.shared_transf.self_attn.o_proj.weight": {32, 64}}},

		{name: "falcon_mamba biases on, conv bias off", config: `{"model_type":"falcon_mamba","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"state_size":4,"expand":2,"conv_kernel":3,
			"use_bias":true,"use_conv_bias":false,"time_step_rank":5}`, want: map[string][]uint64{"backbone.layers.0.mixer.in_proj.bias": {128},
			"backbone.layers.0.mixer.out_proj.bias": {32}, "backbone.layers.0.mixer.conv1d.bias": nil, "backbone.layers.0.mixer.x_proj.weight": {13, 64}}},

		{name: "recurrent_gemma attention/recurrent cycle, attention biases", config: `{"model_type":"recurrent_gemma","vocab_size":16,"hidden_size":32,"num_hidden_layers":3,
			"num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":24,"lru_width":40,"block_types":["attention","recurrent"],"attention_bias":true,"conv1d_width":3}`, want: map[string][]uint64{"model.layers.0.temporal_block.q_proj.weight": {1024, 32}, "model.layers.0.temporal_block.q_proj.bias": {1024},
			"model.layers.2.temporal_block.k_proj.bias": {256}, "model.layers.1.temporal_block.rg_lru.input_gate_weight": {4, 10, 10},
			"model.layers.1.temporal_block.q_proj.weight": nil, "model.layers.1.mlp_block.down_proj.bias": {32}}},

		{name: "rwkv attention width of its own, intermediate null", config: `{"model_type":"rwkv","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"attention_hidden_size":40,"intermediate_size":null}`, want: map[string][]uint64{"rwkv.blocks.0.attention.key.weight": {40, 32}, "rwkv.blocks.0.attention.output.weight": {32, 40},
			"rwkv.blocks.0.feed_forward.key.weight": {128, 32}, "rwkv.blocks.0.pre_ln.weight": {32}, "head.weight": {16, 32}}},

		{name: "qwen3_next linear/full pattern, sparse step 2, mlp_only_layers", config: `{"model_type":"qwen3_next","vocab_size":16,"hidden_size":32,"num_hidden_layers":4,"num_attention_heads":4,
			"num_key_value_heads":2,"head_dim":8,"intermediate_size":24,"moe_intermediate_size":8,"shared_expert_intermediate_size":12,"num_experts":3,"decoder_sparse_step":2,
			"mlp_only_layers":[3],"layer_types":["full_attention","linear_attention","full_attention","linear_attention"],"linear_num_value_heads":4,"linear_num_key_heads":2,
			"linear_key_head_dim":8,"linear_value_head_dim":6,"linear_conv_kernel_dim":3}`, want: map[string][]uint64{
			"model.layers.0.self_attn.q_proj.weight": {64, 32}, "model.layers.1.linear_attn.in_proj_qkvz.weight": {80, 32}, "model.layers.1.linear_attn.conv1d.weight": {56, 1, 3},
			"model.layers.1.mlp.experts.2.up_proj.weight": {8, 32}, "model.layers.1.mlp.shared_expert_gate.weight": {1, 32}, "model.layers.3.mlp.gate.weight": nil,
			"model.layers.3.mlp.down_proj.weight": {32, 24}, "model.layers.2.mlp.gate.weight": nil, "model.layers.2.linear_attn.A_log": nil}},
	})
}

// TestSwitchesEncoders: the config switches of the encoders (encoders.go).
func TestSwitchesEncoders(t *testing.T) {
	runSwitches(t, []switchCase{
		{name: "bert relative positions and cross-attention", config: `{"model_type":"bert",` + bert + `,"position_embedding_type":"relative_key","add_cross_attention":true}`, want: map[string][]uint64{
			"bert.encoder.layer.1.attention.self.distance_embedding.weight":      {19, 8},
			"bert.encoder.layer.1.crossattention.self.distance_embedding.weight": nil, // 4.57's cross-attention is absolute (oracle)
			"bert.encoder.layer.0.crossattention.output.LayerNorm.bias":          {32},
			"cls.predictions.decoder.weight":                                     {16, 32}}},

		{name: "bert absolute, no cross-attention", config: `{"model_type":"bert",` + bert + `}`, want: map[string][]uint64{
			"bert.encoder.layer.1.attention.self.distance_embedding.weight": nil, "bert.encoder.layer.0.crossattention.self.query.weight": nil}},

		{name: "electra embeddings as wide as the model", config: `{"model_type":"electra",` + bert + `,"embedding_size":32}`, want: map[string][]uint64{
			"electra.embeddings_project.weight": nil, "electra.embeddings.word_embeddings.weight": {16, 32}, "generator_predictions.dense.weight": {32, 32}}},

		{name: "ernie task embeddings", config: `{"model_type":"ernie",` + bert + `,"use_task_id":true,"task_type_vocab_size":5}`, want: map[string][]uint64{
			"ernie.embeddings.task_type_embeddings.weight": {5, 32}}},

		// The tables are built whatever enable_* says (the oracle, both versions).
		{name: "roc_bert without shape embeddings", config: `{"model_type":"roc_bert",` + bert + `,"enable_shape":false,"pronunciation_embed_dim":6}`, want: map[string][]uint64{
			"roc_bert.embeddings.shape_embed.weight": {24858, 512}, "roc_bert.embeddings.map_inputs_layer.weight": {32, 38}}},
		{name: "roc_bert without concat_input", config: `{"model_type":"roc_bert",` + bert + `,"concat_input":false,"enable_pronunciation":false}`, want: map[string][]uint64{
			"roc_bert.embeddings.pronunciation_embed.weight": {910, 768}, "roc_bert.embeddings.map_inputs_layer.weight": nil}},

		{name: "mega batch norm, simple bias, one-way EMA, no FFN, token types", config: `{"model_type":"mega","hidden_size":32,"num_hidden_layers":2,"intermediate_size":24,
			"shared_representation_size":8,"normalization_type":"batchnorm","relative_positional_bias":"simple","max_positions":10,"bidirectional":false,
			"use_normalized_ffn":false,"add_token_type_embeddings":true,"add_lm_hidden_dense_layer":false,"tie_word_embeddings":false}`, want: map[string][]uint64{
			"mega.layers.1.mega_layer.norm.norm.weight": {32}, "mega.layers.1.mega_layer.norm.norm.running_var": {32},
			"mega.layers.1.mega_layer.norm.norm.num_batches_tracked": {}, "mega.layers.1.mega_layer.norm.norm.scalar": nil,
			"mega.layers.1.mega_layer.rel_pos_bias.rel_pos_bias": {19}, "mega.layers.1.mega_layer.rel_pos_bias.alpha": nil,
			"mega.layers.0.mega_layer.ema_gate.decay_factor": {32, 16, 1}, "mega.layers.0.nffn.fc1.weight": nil,
			"mega.embedding_layer.token_type_embeddings.weight": {2, 32}, "dense.weight": nil, "lm_head.weight": {30522, 32}}},

		{name: "mega rms norm without affine, cross-attention", config: `{"model_type":"mega","hidden_size":32,"num_hidden_layers":1,"normalization_type":"rmsnorm",
			"norm_affine":false,"add_cross_attention":true,"shared_representation_size":8}`, want: map[string][]uint64{
			"mega.layers.0.mega_layer.norm.norm.weight": nil, "mega.layers.0.cross_attn.q_proj.weight": {72, 32},
			"mega.layers.0.cross_attn.rel_pos_bias.b_param": {1, 8}, "mega.layers.0.nffn.norm.norm.weight": nil}},

		{name: "xmod two languages, adapter norm, pre-norm", config: `{"model_type":"xmod","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"intermediate_size":24,"languages":["de_DE","fr_XX"],"adapter_reduction_factor":4,"adapter_layer_norm":true,"pre_norm":true}`, want: map[string][]uint64{
			"roberta.encoder.layer.1.output.adapter_modules.de_DE.dense1.weight": {8, 32}, "roberta.encoder.layer.1.output.adapter_modules.fr_XX.dense2.bias": {32},
			"roberta.encoder.layer.1.output.adapter_modules.en_XX.dense1.weight": nil, "roberta.encoder.layer.0.output.adapter_layer_norm.weight": {32},
			"roberta.encoder.LayerNorm.bias": {32}}},

		{name: "xmod without languages: en_XX", config: `{"model_type":"xmod","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24}`, want: map[string][]uint64{"roberta.encoder.layer.0.output.adapter_modules.en_XX.dense2.weight": {32, 16},
			"roberta.encoder.layer.0.output.adapter_layer_norm.weight": nil, "roberta.encoder.LayerNorm.bias": nil}},
	})
}

// TestSwitchesEncoderDecoders: the config switches of the encoder-decoders (encdec.go).
func TestSwitchesEncoderDecoders(t *testing.T) {
	runSwitches(t, []switchCase{
		// MvpForCausalLM builds MvpDecoder(config) without prompts (the oracle, both versions).
		{name: "mvp causal LM has no prompts", config: `{"model_type":"mvp","vocab_size":16,"d_model":32,"decoder_layers":2,"decoder_ffn_dim":24,"max_position_embeddings":10,
			"use_prompt":true,"prompt_length":3,"prompt_mid_dim":7}`, want: map[string][]uint64{
			"model.decoder.self_attn_prompt.prompt_embedding.weight": nil, "model.decoder.cross_attn_prompt.prompt_trans.2.weight": nil,
			"model.decoder.embed_positions.weight": {12, 32}}},

		{name: "trocr sinusoidal positions, no embedding norm", config: `{"model_type":"trocr","vocab_size":16,"d_model":32,"decoder_layers":2,"decoder_ffn_dim":24,
			"use_learned_position_embeddings":false,"layernorm_embedding":false}`, want: map[string][]uint64{
			"model.decoder.embed_positions.weight": nil, "model.decoder.layernorm_embedding.weight": nil, "model.decoder.layers.1.fc1.weight": {24, 32}}},

		{name: "udop gated FFN, prefix buckets, its own decoder depth", config: `{"model_type":"udop","vocab_size":100,"d_model":64,"d_kv":8,"d_ff":96,"num_layers":2,
			"num_decoder_layers":3,"num_heads":4,"feed_forward_proj":"gated-gelu","relative_bias_args":[{"type":"1d"},{"type":"horizontal","prefix_bucket":true},
			{"type":"vertical","relative_attention_num_buckets":16},{"type":"1d"}]}`, want: map[string][]uint64{
			"encoder.block.1.layer.1.DenseReluDense.wi_0.weight": {96, 64}, "encoder.block.1.layer.1.DenseReluDense.wi.weight": nil,
			"decoder.block.2.layer.2.DenseReluDense.wi_1.weight": {96, 64}, "decoder.block.3.layer.0.SelfAttention.q.weight": nil,
			"encoder.relative_bias.biases.1.relative_attention_bias.weight": {34, 4}, "decoder.relative_bias.biases.2.relative_attention_bias.weight": {16, 4},
			"encoder.relative_bias.biases.3.relative_attention_bias.weight": nil, "encoder.relative_bias.biases.0.relative_attention_bias.weight": nil,
			"decoder.block.0.layer.1.EncDecAttention.k.weight": {32, 64}}},

		{name: "udop without relative_bias_args: 1d, horizontal, vertical", config: `{"model_type":"udop","d_model":64,"num_layers":1,"num_heads":4}`, want: map[string][]uint64{
			"encoder.relative_bias.biases.2.relative_attention_bias.weight": {32, 4}, "encoder.relative_bias.biases.3.relative_attention_bias.weight": nil,
			"decoder.block.0.layer.2.DenseReluDense.wi.weight": {4096, 64}}},

		{name: "vision-encoder-decoder: DeiT into a BERT decoder of the same width", config: `{"model_type":"vision-encoder-decoder",
			"encoder":{"model_type":"deit","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":96,"image_size":32,"patch_size":16},
			"decoder":{"model_type":"bert","vocab_size":100,"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"intermediate_size":96,
			"add_cross_attention":true,"is_decoder":true}}`, want: map[string][]uint64{
			"encoder.embeddings.distillation_token": {1, 1, 64}, "encoder.embeddings.position_embeddings": {1, 6, 64},
			"encoder.pooler.dense.weight": {64, 64}, "decoder.bert.encoder.layer.1.crossattention.self.key.weight": {64, 64},
			"enc_to_dec_proj.weight": nil}},

		{name: "vision-encoder-decoder: Donut (a Donut-Swin encoder, an mBART decoder)", config: `{"model_type":"vision-encoder-decoder",
			"encoder":{"model_type":"donut-swin","embed_dim":32,"depths":[1,3],"num_heads":[2,4],"window_size":4,"image_size":[64,48]},
			"decoder":{"model_type":"mbart","vocab_size":100,"d_model":48,"decoder_layers":1,"decoder_attention_heads":4,"decoder_ffn_dim":96,
			"max_position_embeddings":20}}`, want: map[string][]uint64{
			"encoder.embeddings.patch_embeddings.projection.weight": {32, 3, 4, 4}, "encoder.embeddings.norm.weight": {32},
			"encoder.embeddings.position_embeddings":                                        nil,
			"encoder.encoder.layers.0.blocks.0.attention.self.relative_position_bias_table": {49, 2},
			"encoder.encoder.layers.0.blocks.0.attention.self.relative_position_index":      {16, 16},
			"encoder.encoder.layers.0.blocks.1.attention.self.query.weight":                 nil,
			"encoder.encoder.layers.0.downsample.reduction.weight":                          {64, 128}, "encoder.encoder.layers.0.downsample.norm.bias": {128},
			"encoder.encoder.layers.1.blocks.2.intermediate.dense.weight":                   {256, 64},
			"encoder.encoder.layers.1.blocks.2.attention.self.relative_position_bias_table": {49, 4},
			"encoder.encoder.layers.1.downsample.reduction.weight":                          nil, "encoder.layernorm.weight": nil,
			"enc_to_dec_proj.weight": {48, 64}, "decoder.model.decoder.layers.0.encoder_attn.k_proj.weight": {48, 48}}},

		{name: "vision-encoder-decoder: a Swin encoder (final LayerNorm), default stages", config: `{"model_type":"vision-encoder-decoder",
			"encoder":{"model_type":"swin"},"decoder":{"model_type":"gpt2","vocab_size":100,"n_embd":768,"n_layer":1,"n_head":12,"add_cross_attention":true}}`, want: map[string][]uint64{"encoder.encoder.layers.2.blocks.5.attention.self.relative_position_bias_table": {169, 12},
			"encoder.encoder.layers.3.blocks.1.output.dense.weight": {768, 3072}, "encoder.layernorm.weight": {768},
			"encoder.encoder.layers.3.downsample.reduction.weight": nil, "enc_to_dec_proj.weight": nil}},

		{name: "vision-encoder-decoder: TrOCR-base (cross-attention reads the ViT's 768)", config: `{"model_type":"vision-encoder-decoder",
			"encoder":{"model_type":"vit","num_hidden_layers":1,"qkv_bias":false},
			"decoder":{"model_type":"trocr","vocab_size":100,"d_model":1024,"decoder_layers":1,"decoder_attention_heads":16,"decoder_ffn_dim":96,
			"cross_attention_hidden_size":768}}`, want: map[string][]uint64{
			"decoder.model.decoder.layers.0.encoder_attn.k_proj.weight": {1024, 768}, "decoder.model.decoder.layers.0.encoder_attn.q_proj.weight": {1024, 1024},
			"encoder.encoder.layer.0.attention.attention.query.bias": nil, "encoder.embeddings.position_embeddings": {1, 197, 768},
			"enc_to_dec_proj.weight": nil}},

		// MarianDecoder's embed_tokens is [decoder_vocab_size, H]; MarianForCausalLM's lm_head is Linear(H, vocab_size).
		{name: "marian untied, decoder vocabulary of its own", config: `{"model_type":"marian","vocab_size":16,"decoder_vocab_size":20,"d_model":32,"decoder_layers":1,
			"decoder_attention_heads":4,"decoder_ffn_dim":24,"max_position_embeddings":40,"tie_word_embeddings":false}`, want: map[string][]uint64{
			"model.decoder.embed_tokens.weight": {20, 32}, "lm_head.weight": {16, 32}, "model.decoder.embed_positions.weight": {40, 32},
			"model.decoder.layers.0.encoder_attn.k_proj.bias": {32}, "model.decoder.layers.1.fc1.weight": nil, "model.decoder.layer_norm.weight": nil}},
	})
}

// TestSwitchesMultimodal: the config switches of the multimodal models (multimodal.go, multimodal_vq.go).
func TestSwitchesMultimodal(t *testing.T) {
	runSwitches(t, []switchCase{
		{name: "llava with two feature layers, no projector bias, a SigLIP tower", config: `{"model_type":"llava",` + llamaText + `,
			"vision_feature_layer":[-2,-5],"multimodal_projector_bias":false,
			"vision_config":{"model_type":"siglip_vision_model","hidden_size":16,"intermediate_size":20,"num_hidden_layers":2,"image_size":32,"patch_size":8}}`, want: map[string][]uint64{
			"multi_modal_projector.linear_1.weight": {32, 32}, "multi_modal_projector.linear_1.bias": nil,
			"vision_tower.vision_model.embeddings.class_embedding": nil, "vision_tower.vision_model.embeddings.position_embedding.weight": {16, 16},
			"vision_tower.vision_model.head.probe": {1, 1, 16}, "language_model.model.layers.1.mlp.up_proj.weight": {24, 32}}},

		{name: "llava-1.5's text_config, only what differs from LlamaConfig", config: `{"model_type":"llava","text_config":{"model_type":"llama","vocab_size":32064,
			"max_position_embeddings":4096},"vision_config":{"hidden_size":1024,"intermediate_size":4096,"num_hidden_layers":24,"image_size":336,"patch_size":14}}`, want: map[string][]uint64{
			"language_model.model.embed_tokens.weight": {32064, 4096}, "language_model.model.layers.31.mlp.down_proj.weight": {4096, 11008},
			"language_model.model.layers.32.mlp.down_proj.weight": nil, "multi_modal_projector.linear_1.weight": {4096, 1024},
			"vision_tower.vision_model.embeddings.position_embedding.weight": {577, 1024}}},

		{name: "vipllava default feature layers", config: `{"model_type":"vipllava",` + llamaText + `,
			"vision_config":{"model_type":"clip_vision_model","hidden_size":16,"intermediate_size":20,"num_hidden_layers":2,"image_size":32,"patch_size":8}}`, want: map[string][]uint64{"multi_modal_projector.projector_layernorm.weight": {80}, "vision_tower.vision_model.embeddings.position_embedding.weight": {17, 16}}},

		{name: "qwen2-vl flat config", config: `{"model_type":"qwen2_vl","vocab_size":16,"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
			"num_key_value_heads":2,"intermediate_size":24,"vision_config":{"depth":1,"embed_dim":8,"hidden_size":32}}`, want: map[string][]uint64{
			"model.layers.1.self_attn.k_proj.bias": {16}, "visual.merger.mlp.2.weight": {32, 32}, "visual.blocks.0.mlp.fc1.weight": {32, 8}}},

		{name: "internvl RMS norms, qk norms, final norm", config: `{"model_type":"internvl","text_config":{"model_type":"qwen2","vocab_size":16,"hidden_size":32,
			"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24},"downsample_ratio":0.25,
			"vision_config":{"hidden_size":16,"num_hidden_layers":1,"intermediate_size":20,"image_size":[32,32],"patch_size":[8,8],
			"norm_type":"rms_norm","use_qk_norm":true,"use_mean_pooling":false,"layer_scale_init_value":0.0}}`, want: map[string][]uint64{
			"vision_tower.encoder.layer.0.attention.q_norm.weight": {16}, "vision_tower.encoder.layer.0.layernorm_before.bias": nil,
			"vision_tower.encoder.layer.0.lambda_1": {16}, "vision_tower.layernorm.weight": {16}, "vision_tower.layernorm.bias": {16}, "multi_modal_projector.linear_1.weight": {32, 256},
			"vision_tower.embeddings.position_embeddings": {1, 17, 16}}},

		{name: "git video: temporal embeddings", config: `{"model_type":"git","num_hidden_layers":1,"num_image_with_embedding":3,"vision_config":{"hidden_size":16,"num_hidden_layers":1}}`, want: map[string][]uint64{"git.img_temporal_embedding.2": {1, 1, 16}, "git.img_temporal_embedding.3": nil,
			"git.visual_projection.visual_projection.0.weight": {768, 16}}},

		{name: "chameleon: two VQ-GAN levels, attention at 32 px, double latent, biases, tied", config: `{"model_type":"chameleon","vocab_size":16,"hidden_size":32,
			"num_hidden_layers":2,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"attention_bias":true,"mlp_bias":true,
			"tie_word_embeddings":true,"vq_config":{"base_channels":32,"channel_multiplier":[1,2],"num_res_blocks":2,"resolution":64,
			"attn_resolutions":[32],"double_latent":true,"latent_channels":8,"embed_dim":4,"num_embeddings":10}}`, want: map[string][]uint64{
			"model.vqmodel.encoder.down.1.attn.1.q.weight":             {64, 64, 1, 1},
			"model.vqmodel.encoder.down.1.attn.0.norm.bias":            {64},
			"model.vqmodel.encoder.down.0.attn.0.q.weight":             nil,
			"model.vqmodel.encoder.down.0.downsample.conv.weight":      {32, 32, 3, 3},
			"model.vqmodel.encoder.down.1.downsample.conv.weight":      nil,
			"model.vqmodel.encoder.down.1.block.0.nin_shortcut.weight": {64, 32, 1, 1},
			"model.vqmodel.encoder.down.1.block.1.nin_shortcut.weight": nil,
			"model.vqmodel.encoder.down.0.block.0.nin_shortcut.weight": nil,
			"model.vqmodel.encoder.down.2.block.0.conv1.weight":        nil,
			"model.vqmodel.encoder.mid.attn_1.proj_out.weight":         {64, 64, 1, 1},
			"model.vqmodel.encoder.conv_out.weight":                    {16, 64, 3, 3},
			"model.vqmodel.quant_conv.weight":                          {4, 8, 1, 1},
			"model.vqmodel.quantize.embedding.weight":                  {10, 4},
			"model.layers.1.self_attn.k_norm.bias":                     {2, 8},
			"model.layers.1.self_attn.o_proj.bias":                     {32},
			"model.layers.1.mlp.up_proj.bias":                          {24},
		}, optional: []string{"lm_head.weight"}, required: true},

		{name: "chameleon: VQ-GAN without attention", config: `{"model_type":"chameleon","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,
			"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,"vq_config":{"attn_type":"none","attn_resolutions":[32]}}`, want: map[string][]uint64{"model.vqmodel.encoder.mid.attn_1.q.weight": nil, "model.vqmodel.encoder.down.4.attn.0.q.weight": nil,
			"model.vqmodel.encoder.down.4.block.1.conv2.weight": {512, 512, 3, 3}, "model.vqmodel.encoder.down.3.downsample.conv.bias": {256},
			"lm_head.weight": {16, 32}}, optional: nil, required: true},

		{name: "emu3: two levels, no attention, double latent, temporal factor 8", config: `{"model_type":"emu3","text_config":{"vocab_size":16,"hidden_size":32,
			"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24},"vq_config":{"base_channels":32,
			"channel_multiplier":[1,2],"num_res_blocks":1,"attn_resolutions":[],"double_latent":true,"latent_channels":8,"embed_dim":6,
			"codebook_size":10,"temporal_downsample_factor":8,"hidden_size":16,"out_channels":1}}`, want: map[string][]uint64{
			"vqmodel.encoder.down_block.down.1.attn.0.q_proj.weight":    nil,
			"vqmodel.encoder.middle_block.attn_1.q_proj.weight":         {16, 16},
			"vqmodel.encoder.conv_out.weight":                           {16, 64, 3, 3},
			"vqmodel.encoder.time_conv.2.conv.conv.weight":              {16, 16, 4, 3, 3},
			"vqmodel.encoder.time_conv.3.conv.conv.weight":              nil,
			"vqmodel.encoder.time_res_stack.0.norm2.running_var":        {16},
			"vqmodel.encoder.time_res_stack.1.norm2.running_var":        nil,
			"vqmodel.decoder.time_conv.2.conv.conv.weight":              {8, 8, 3, 3, 3},
			"vqmodel.decoder.conv_in.weight":                            {64, 8, 3, 3},
			"vqmodel.decoder.up_block.up.0.block.1.conv1.weight":        {32, 32, 3, 3},
			"vqmodel.decoder.up_block.up.0.block.0.nin_shortcut.weight": {32, 64, 1, 1},
			"vqmodel.decoder.up_block.up.1.block.0.nin_shortcut.weight": nil,
			"vqmodel.decoder.up_block.up.1.upsample.conv.weight":        {64, 64, 3, 3},
			"vqmodel.decoder.up_block.up.0.upsample.conv.weight":        nil,
			"vqmodel.decoder.up_block.up.1.block.1.norm2.conv_y.weight": {64, 6, 1, 1},
			"vqmodel.decoder.conv_out.weight":                           {1, 32, 3, 3},
			"vqmodel.quant_conv.conv.weight":                            {6, 8, 3, 1, 1},
			"vqmodel.quantize.embedding.weight":                         {10, 6},
			"text_model.model.layers.0.self_attn.k_proj.weight":         {16, 32},
			"text_model.lm_head.weight":                                 {16, 32},
		}, optional: nil, required: true},

		{name: "emu3: attention at levels 0 and 1", config: `{"model_type":"emu3","text_config":{"vocab_size":16,"hidden_size":32,"num_hidden_layers":1,
			"num_attention_heads":8,"intermediate_size":24},"vq_config":{"channel_multiplier":[1,2],"attn_resolutions":[0,1],"hidden_size":16}}`, want: map[string][]uint64{"vqmodel.encoder.down_block.down.0.attn.1.out_proj.bias": {16}, "vqmodel.encoder.down_block.down.1.attn_norms.1.weight": {512},
			"vqmodel.decoder.up_block.up.0.attn.2.v_proj.weight": {16, 16}, "vqmodel.decoder.up_block.up.1.attn_norms.2.conv_b.weight": {512, 4, 1, 1},
			"text_model.model.layers.0.self_attn.k_proj.weight": {32, 32}}, optional: nil, required: true},

		{name: "evolla: adapters every 4th of 8 layers, absolute protein positions, embedding norm, out projection without bias", config: `{"model_type":"evolla",
			"vocab_size":16,"hidden_size":32,"num_hidden_layers":8,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":24,
			"aligner_num_add_layers":2,"aligner_enable_bias":false,"aligner_ffn_mult":2,"resampler_depth":1,"resampler_heads":2,"resampler_dim_head":4,
			"resampler_num_latents":3,"protein_encoder_config":{"hidden_size":16,"num_hidden_layers":2,"num_attention_heads":2,"intermediate_size":20,
			"max_position_embeddings":10,"position_embedding_type":"absolute","emb_layer_norm_before":true}}`, want: map[string][]uint64{
			"model.layers.3.adapter.query.bias":                                                     {32},
			"model.layers.7.adapter.ff.fc1.weight":                                                  {64, 32},
			"model.layers.7.adapter.out_proj.bias":                                                  nil,
			"model.layers.2.adapter.query.weight":                                                   nil,
			"model.layers.7.adapter.gate_ffw":                                                       {1},
			"model.layers.0.self_attn.k_proj.weight":                                                {16, 32},
			"model.protein_encoder.model.embeddings.position_embeddings.weight":                     {10, 16},
			"model.protein_encoder.model.embeddings.layer_norm.bias":                                {16},
			"model.protein_encoder.model.encoder.layer.1.attention.self.rotary_embeddings.inv_freq": nil,
			"model.protein_encoder.model.rotary_embeddings.inv_freq":                                nil,
			"model.protein_encoder.model.encoder.layer.1.intermediate.dense.weight":                 {20, 16},
			"model.protein_encoder.sequence_compressor_resampler.layers.0.0.to_kv.weight":           {16, 16},
			"model.protein_encoder.sequence_compressor_resampler.layers.0.1.fc2.weight":             {16, 64},
			"model.protein_encoder.sequence_compressor_resampler.layers.1.1.fc2.weight":             nil,
			"model.protein_encoder.sequence_compressor_resampler.latents":                           {3, 16},
			"model.protein_encoder.sequence_compressor_resampler.protein_projector.weight":          {32, 16},
		}, optional: nil, required: true},

		{name: "evolla: relative-key protein positions", config: `{"model_type":"evolla","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":8,
			"intermediate_size":24,"protein_encoder_config":{"hidden_size":16,"num_hidden_layers":1,"num_attention_heads":2,"max_position_embeddings":10,
			"position_embedding_type":"relative_key"}}`, want: map[string][]uint64{
			"model.protein_encoder.model.encoder.layer.0.attention.self.distance_embedding.weight": {19, 8},
			"model.protein_encoder.model.embeddings.position_embeddings.weight":                    nil,
			"model.layers.0.adapter.out_proj.bias":                                                 {32}}, optional: nil, required: true},

		// Untied by the top level as 5.x writes it (4.x ties by text_config, BART's default true).
		{name: "florence2: two DaViT stages, prenorm first, MLP ratio 2.5, qkv without bias, untied", config: `{"model_type":"florence2","tie_word_embeddings":false,"transformers_version":"5.15.0",
			"text_config":{"model_type":"bart","vocab_size":16,"d_model":32,"encoder_layers":1,"decoder_layers":2,"encoder_ffn_dim":24,"decoder_ffn_dim":40,
			"max_position_embeddings":10},"vision_config":{"depths":[2,1],"embed_dim":[8,16],"patch_size":[5,3],"patch_prenorm":[true,false],
			"mlp_ratio":2.5,"qkv_bias":false,"projection_dim":32,"max_position_embeddings":6,"max_temporal_embeddings":4,"in_channels":1}}`, want: map[string][]uint64{
			"model.vision_tower.convs.0.conv.weight":                                 {8, 1, 5, 5},
			"model.vision_tower.convs.0.norm.weight":                                 {1},
			"model.vision_tower.convs.1.conv.weight":                                 {16, 8, 3, 3},
			"model.vision_tower.convs.1.norm.bias":                                   {16},
			"model.vision_tower.blocks.0.1.spatial_block.ffn.fc1.weight":             {20, 8},
			"model.vision_tower.blocks.0.1.channel_block.channel_attn.qkv.bias":      nil,
			"model.vision_tower.blocks.0.1.channel_block.channel_attn.qkv.weight":    {24, 8},
			"model.vision_tower.blocks.1.1.spatial_block.conv1.weight":               nil,
			"model.vision_tower.blocks.1.0.channel_block.ffn.fc2.weight":             {16, 40},
			"model.multi_modal_projector.image_projection.weight":                    {32, 16},
			"model.multi_modal_projector.image_position_embed.row_embeddings.weight": {6, 8},
			"model.multi_modal_projector.visual_temporal_embed.pos_idx_to_embed":     {4, 16},
			"model.language_model.encoder.layers.0.fc1.weight":                       {24, 32},
			"model.language_model.encoder.layers.0.encoder_attn.q_proj.weight":       nil,
			"model.language_model.decoder.layers.1.encoder_attn.k_proj.bias":         {32},
			"model.language_model.decoder.layers.1.fc2.weight":                       {32, 40},
			"model.language_model.decoder.embed_positions.weight":                    {12, 32},
			"lm_head.weight": {16, 32},
		}, optional: nil, required: true},

		{name: "emu3 defaults", config: `{"model_type":"emu3"}`, want: map[string][]uint64{
			"text_model.model.layers.31.self_attn.k_proj.weight": {1024, 4096},
			"text_model.model.embed_tokens.weight":               {184622, 4096},
			"vqmodel.decoder.up_block.up.3.attn.2.q_proj.weight": {1024, 1024},
			"vqmodel.quantize.embedding.weight":                  {32768, 4},
		}, optional: nil, required: true},

		{name: "evolla defaults: adapters every 4th of 32 layers, 33 SaProt layers", config: `{"model_type":"evolla"}`, want: map[string][]uint64{
			"model.layers.3.adapter.query.weight":                                        {4096, 4096},
			"model.layers.4.adapter.query.weight":                                        nil,
			"model.layers.31.adapter.gate_ffw":                                           {1},
			"model.protein_encoder.model.encoder.layer.32.output.dense.weight":           {1280, 5120},
			"model.protein_encoder.sequence_compressor_resampler.layers.5.0.to_q.weight": {512, 1280},
		}, optional: nil, required: true},

		{name: "florence2 defaults: 12+12 BART layers, DaViT 1/1/9/1", config: `{"model_type":"florence2"}`, want: map[string][]uint64{
			"model.language_model.decoder.layers.11.encoder_attn.v_proj.weight": {1024, 1024},
			"model.vision_tower.blocks.2.8.channel_block.ffn.fc1.weight":        {2048, 512},
			"model.vision_tower.blocks.2.9.channel_block.ffn.fc1.weight":        nil,
		}, optional: []string{"lm_head.weight"}, required: true},

		{name: "idefics as released: resampler, 2 extra tokens, a cross layer every 4", config: idefics + `,"use_resampler":true,"additional_vocab_size":2,"cross_layer_interval":4,
			"perceiver_config":{"resampler_depth":2,"resampler_n_latents":16,"resampler_n_heads":2,"resampler_head_dim":8}}`, want: map[string][]uint64{
			"model.perceiver_resampler.latents": {16, 32}, "model.perceiver_resampler.blocks.1.0.q_proj.weight": {16, 32},
			"model.perceiver_resampler.blocks.1.0.output_proj.weight": {32, 16}, "model.perceiver_resampler.blocks.1.1.fc.weight": {128, 32},
			"model.perceiver_resampler.blocks.1.0.q_layer_norm.weight": nil, "model.perceiver_resampler.blocks.2.0.q_proj.weight": nil,
			"model.perceiver_resampler.layer_norm.bias":                {32},
			"model.gated_cross_attn_layers.1.cross_attn.k_proj.weight": {64, 32}, "model.gated_cross_attn_layers.2.cross_attn.k_proj.weight": nil,
			"model.embed_tokens.additional_embedding.weight": {2, 64}, "lm_head.additional_fc.weight": {2, 64},
			"model.gated_cross_attn_layers.0.alpha_dense": {1}}},

		{name: "idefics 80b: q/k norms, vector gates, perceiver q/k norms", config: idefics + `,"use_resampler":true,"qk_layer_norms":true,"alpha_type":"vector",
			"perceiver_config":{"resampler_depth":1,"qk_layer_norms_perceiver":true}}`, want: map[string][]uint64{
			"model.gated_cross_attn_layers.7.cross_attn.q_layer_norm.weight": {16}, "model.gated_cross_attn_layers.7.alpha_cross_attn": {1, 1, 64},
			"model.perceiver_resampler.blocks.0.0.k_layer_norm.bias": {96}, "model.layers.0.self_attn.q_layer_norm.weight": nil,
			"model.embed_tokens.additional_embedding.weight": nil}},

		{name: "janus: three resolutions, one res block, q/k norms, deeper aligners, double latent", config: `{"model_type":"janus",` + janusText + `,
			"vision_config":{"hidden_size":32,"num_hidden_layers":1,"image_size":32,"patch_size":16,"mlp_ratio":2.5,"use_qk_norm":true,"depth":3,"projection_dim":24},
			"vq_config":{"channel_multiplier":[1,2,4],"num_res_blocks":1,"base_channels":32,"latent_channels":8,"embed_dim":4,"num_embeddings":10,
			"num_hidden_layers":1,"projection_dim":12,"image_token_embed_dim":64,"double_latent":true}}`, want: map[string][]uint64{
			"model.vision_model.encoder.layers.0.mlp.fc1.weight": {80, 32}, "model.vision_model.encoder.layers.0.self_attn.q_norm.bias": {32},
			"model.aligner.hidden_layers.1.weight": {24, 24}, "model.generation_aligner.hidden_layers.0.weight": nil,
			"model.vqmodel.encoder.down.1.block.0.nin_shortcut.weight": {64, 32, 1, 1}, "model.vqmodel.encoder.down.1.block.1.conv1.weight": nil,
			"model.vqmodel.encoder.down.2.attn.0.q.weight": {128, 128, 1, 1}, "model.vqmodel.encoder.down.2.downsample.conv.weight": nil,
			"model.vqmodel.encoder.down.1.downsample.conv.weight": {64, 64, 3, 3}, "model.vqmodel.encoder.conv_out.weight": {16, 128, 3, 3},
			"model.vqmodel.decoder.up.0.block.1.conv2.weight": {128, 128, 3, 3}, "model.vqmodel.decoder.up.0.attn.1.proj_out.weight": {128, 128, 1, 1},
			"model.vqmodel.decoder.up.1.block.0.nin_shortcut.weight": {64, 128, 1, 1}, "model.vqmodel.decoder.up.2.upsample.conv.weight": nil,
			"model.vqmodel.decoder.conv_out.weight": {3, 32, 3, 3}, "model.vqmodel.quantize.embedding.weight": {10, 4},
			"model.generation_head.proj_out.weight": {12, 64}, "model.generation_head.vision_head.weight": {10, 12}}},

		{name: "kosmos-2 text with cross-attention, untied", config: `{"model_type":"kosmos-2","text_config":{"vocab_size":100,"embed_dim":64,"layers":2,"attention_heads":4,
			"ffn_dim":96,"add_cross_attention":true,"tie_word_embeddings":false},"vision_config":{"hidden_size":32,"num_hidden_layers":1,"intermediate_size":48,
			"image_size":28,"patch_size":14},"latent_query_num":8}`, want: map[string][]uint64{
			"text_model.model.layers.1.encoder_attn.k_proj.weight": {64, 64}, "text_model.model.layers.1.encoder_attn_layer_norm.bias": {64},
			"text_model.model.layers.1.encoder_attn.inner_attn_ln.weight": nil, "text_model.model.layers.1.self_attn.inner_attn_ln.weight": {64},
			"image_to_text_projection.latent_query": {8, 64}, "vision_model.model.embeddings.position_embedding.weight": {5, 32}}},

		{name: "kosmos-2.5 vision heads of their own width (d_kv)", config: `{"model_type":"kosmos-2.5","text_config":{"embed_dim":64,"layers":1,"attention_heads":4,"ffn_dim":96},
			"vision_config":{"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":2,"head_dim":8,"intermediate_size":40,"max_num_patches":16}}`, want: map[string][]uint64{
			"vision_model.encoder.layer.0.attention.query.weight": {16, 32}, "vision_model.encoder.layer.0.attention.output.weight": {32, 16},
			"vision_model.embeddings.row_embedder.weight": {16, 32}, "text_model.model.segment_emb.weight": {2, 64}, "image_to_text_projection.latent_query": {2048, 64}}},

		{name: "phi4-multimodal audio: time reduction 4, symmetric bias, depthwise ×2, downsampled", config: `{"model_type":"phi4_multimodal","vocab_size":100,"hidden_size":64,
			"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":96,"vision_config":{"hidden_size":32,"num_hidden_layers":1,"intermediate_size":48},
			"audio_config":{"hidden_size":32,"num_blocks":2,"num_attention_heads":2,"intermediate_size":40,"time_reduction":4,"nemo_conv_channels":16,"input_size":81,
			"bias_symmetric":true,"bias_max_distance":50,"depthwise_multiplier":2,"downsample_rate":3,"ext_pw_out_channel":24,"depthwise_seperable_out_channel":20}}`, want: map[string][]uint64{
			"model.embed_tokens_extend.audio_embed.encoder.embed.conv.0.weight": {16, 1, 3, 3}, "model.embed_tokens_extend.audio_embed.encoder.embed.conv.2.weight": {16, 1, 3, 3},
			"model.embed_tokens_extend.audio_embed.encoder.embed.conv.3.weight": {16, 16, 1, 1}, "model.embed_tokens_extend.audio_embed.encoder.embed.conv.5.weight": nil,
			"model.embed_tokens_extend.audio_embed.encoder.embed.out.weight":                                 {32, 16 * 21},
			"model.embed_tokens_extend.audio_embed.encoder.relative_attention_bias_layer.bias_values.weight": {50, 2},
			"model.embed_tokens_extend.audio_embed.encoder.encoders.1.conv.dw_sep_conv_1d.dw_conv.weight":    {64, 1, 3},
			"model.embed_tokens_extend.audio_embed.encoder.encoders.1.conv.dw_sep_conv_1d.pw_conv.weight":    {20, 64, 1},
			"model.embed_tokens_extend.audio_embed.encoder.encoders.1.conv.glu.ext_pw_conv_1d.weight":        {48, 32, 1},
			"model.embed_tokens_extend.audio_embed.up_proj_for_speech.weight":                                {64, 96},
			"model.embed_tokens_extend.image_embed.img_processor.head.probe":                                 {1, 1, 32},
			"model.layers.0.self_attn.qkv_proj.weight":                                                       {(4 + 2*2) * 16, 64}}},

		{name: "phi4-multimodal audio: one subsampling stage (time reduction 2)", config: `{"model_type":"phi4_multimodal","num_hidden_layers":1,
			"audio_config":{"num_blocks":1,"time_reduction":2}}`, want: map[string][]uint64{
			"model.embed_tokens_extend.audio_embed.encoder.embed.conv.0.weight": {1024, 1, 3, 3},
			"model.embed_tokens_extend.audio_embed.encoder.embed.conv.2.weight": nil,
			"model.embed_tokens_extend.audio_embed.encoder.embed.out.weight":    {1024, 1024 * 40}}},

		{name: "mllama defaults", config: `{"model_type":"mllama"}`, want: map[string][]uint64{
			"language_model.model.layers.33.cross_attn.o_proj.weight": {4096, 4096}, "vision_model.global_transformer.layers.7.gate_ffn": {1},
			"vision_model.gated_positional_embedding.tile_embedding.weight": {9, 4 * 1025 * 1280}, "multi_modal_projector.weight": {4096, 7680}}},

		{name: "mllama: cross-attention at layer 1 of 3, 3 aspect ratios", config: `{"model_type":"mllama","text_config":{"vocab_size":16,"hidden_size":32,
			"num_hidden_layers":3,"num_attention_heads":4,"num_key_value_heads":1,"intermediate_size":24,"cross_attention_layers":[1]},"vision_config":{"hidden_size":16,
			"intermediate_size":20,"num_hidden_layers":1,"num_global_layers":1,"image_size":32,"patch_size":8,"attention_heads":2,"max_num_tiles":2,
			"supported_aspect_ratios":[[1,1],[1,2],[2,1]],"intermediate_layers_indices":[0],"vision_output_dim":48}}`, want: map[string][]uint64{
			"language_model.model.layers.1.cross_attn.k_norm.weight": {8}, "language_model.model.layers.1.self_attn.q_proj.weight": nil,
			"language_model.model.layers.2.cross_attn.q_proj.weight": nil, "language_model.model.embed_tokens.weight": {24, 32},
			"vision_model.gated_positional_embedding.tile_embedding.weight": {4, 2 * 17 * 16}, "vision_model.pre_tile_positional_embedding.embedding.weight": {4, 32},
			"multi_modal_projector.weight": {32, 48}}},

		{name: "llava-next, three feature layers, a Mistral with head_dim", config: `{"model_type":"llava_next","vision_feature_layer":[-1,-2,-3],"text_config":{"model_type":"mistral",` +
			small + layers(1) + `,"head_dim":16},"vision_config":{"hidden_size":16,"intermediate_size":20,"num_hidden_layers":1,"image_size":32,"patch_size":8}}`, want: map[string][]uint64{"multi_modal_projector.linear_1.weight": {32, 48}, "image_newline": {32}, "language_model.model.layers.0.self_attn.q_proj.weight": {64, 32},
			"vision_tower.vision_model.embeddings.position_embedding.weight": {17, 16}}},

		{name: "idefics3 scale factor 3", config: `{"model_type":"idefics3","scale_factor":3,"text_config":{"model_type":"llama",` + small + layers(1) + `},
			"vision_config":{"hidden_size":16,"intermediate_size":20,"num_hidden_layers":1,"image_size":24,"patch_size":8}}`, want: map[string][]uint64{
			"model.connector.modality_projection.proj.weight": {32, 16 * 9}, "model.vision_model.embeddings.position_embedding.weight": {9, 16},
			"model.text_model.layers.0.self_attn.k_proj.weight": {8, 32}}},

		{name: "qwen2.5-vl: gated vision MLP, RMS norms", config: `{"model_type":"qwen2_5_vl","text_config":{` + small + layers(1) + `},"vision_config":{"depth":1,
			"hidden_size":8,"intermediate_size":12,"out_hidden_size":32,"num_heads":2}}`, want: map[string][]uint64{
			"visual.blocks.0.mlp.gate_proj.bias": {12}, "visual.blocks.0.norm1.bias": nil, "visual.merger.mlp.0.weight": {32, 32},
			"visual.merger.ln_q.bias": nil, "model.layers.0.self_attn.k_proj.bias": {8}}},

		{name: "qwen2.5-vl flat config as released: tied, window attention, 2×2 merger", config: `{"model_type":"qwen2_5_vl",` + small + layers(1) + `,
			"tie_word_embeddings":true,"vision_config":{"depth":2,"hidden_act":"silu","hidden_size":40,"intermediate_size":36,"num_heads":4,"in_chans":3,
			"out_hidden_size":32,"patch_size":14,"spatial_merge_size":2,"spatial_patch_size":14,"window_size":112,"fullatt_block_indexes":[1],"temporal_patch_size":2}}`, want: map[string][]uint64{"visual.patch_embed.proj.weight": {40, 3, 2, 14, 14}, "visual.merger.mlp.0.weight": {160, 160}, "visual.merger.mlp.2.weight": {32, 160},
			"visual.blocks.1.mlp.down_proj.weight": {40, 36}, "visual.blocks.1.attn.qkv.bias": {120}, "model.layers.0.self_attn.k_proj.weight": {8, 32}}},

		{name: "gemma-3-4b's config: SigLIP 896/14 without head, text defaults for the rest", config: `{"model_type":"gemma3","text_config":{"hidden_size":2560,
			"intermediate_size":10240,"model_type":"gemma3_text","num_attention_heads":8,"num_hidden_layers":1,"num_key_value_heads":4,"head_dim":256},
			"vision_config":{"hidden_size":1152,"image_size":896,"intermediate_size":4304,"model_type":"siglip_vision_model","num_attention_heads":16,
			"num_hidden_layers":1,"patch_size":14,"vision_use_head":false},"mm_tokens_per_image":256}`, want: map[string][]uint64{
			"vision_tower.vision_model.embeddings.position_embedding.weight": {4096, 1152}, "vision_tower.vision_model.head.probe": nil,
			"multi_modal_projector.mm_input_projection_weight": {1152, 2560}, "language_model.model.embed_tokens.weight": {262208, 2560},
			"language_model.model.layers.0.self_attn.q_proj.weight": {8 * 256, 2560}}},

		{name: "mistral3 two feature layers, projector without bias", config: `{"model_type":"mistral3","vision_feature_layer":[-2,-5],"multimodal_projector_bias":false,
			"text_config":{"model_type":"llama","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24},"vision_config":{"num_hidden_layers":1}}`, want: map[string][]uint64{"multi_modal_projector.linear_1.weight": {32, 2048}, "multi_modal_projector.linear_1.bias": nil, "multi_modal_projector.norm.weight": {1024}}},

		{name: "llava_onevision two feature layers of a SigLIP dict's defaults", config: `{"model_type":"llava_onevision","vision_feature_layer":[-2,-5],"multimodal_projector_bias":false,
			"text_config":{"model_type":"llama","vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"intermediate_size":24},"vision_config":{"num_hidden_layers":1}}`, want: map[string][]uint64{"multi_modal_projector.linear_1.weight": {32, 1536}, "multi_modal_projector.linear_2.bias": nil, "image_newline": {32}}},

		// The ties of 5.x-only VLMs: by the top
		// level, whoever config.json says wrote it (no 4.x writer exists).
		{name: "muse_glimmer tied by the top level, no transformers_version", config: `{"model_type":"muse_glimmer","tie_word_embeddings":true,` + museSmall + `}`,
			want: map[string][]uint64{"model.language_model.layers.0.self_attn.gate_proj.weight": {32, 32}, "model.vision_adapter.fc1.weight": {32, 64}}, optional: []string{"lm_head.weight"}},
		{name: "muse_glimmer's text tie alone does not tie", config: `{"model_type":"muse_glimmer","transformers_version":"5.15.0",` + museSmall[:len(museSmall)-1] + `,"tie_word_embeddings":true}}`,
			want: map[string][]uint64{"lm_head.weight": {16, 32}}, required: true},
		{name: "cosmos3_omni tied by the top level, no transformers_version", config: `{"model_type":"cosmos3_omni","tie_word_embeddings":true,
			"text_config":{"vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"intermediate_size":24},
			"vision_config":{"depth":1,"hidden_size":16,"intermediate_size":20,"num_heads":2,"out_hidden_size":32,"deepstack_visual_indexes":[]}}`,
			want: map[string][]uint64{"layers.0.self_attn.to_q.weight": {32, 32}, "layers.0.self_attn.norm_q.weight": {8}, "blocks.0.attn.qkv.weight": {48, 16},
				"deepstack_merger_list.0.norm.weight": nil}, optional: []string{"lm_head.weight"}},
		{name: "cosmos3_edge never tied", config: `{"model_type":"cosmos3_edge","tie_word_embeddings":true,"transformers_version":"5.15.0",
			"text_config":{"vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"intermediate_size":24,
			"tie_word_embeddings":true,"mlp_bias":true},"vision_config":{"hidden_size":16,"intermediate_size":20,"num_hidden_layers":1,"num_attention_heads":2}}`,
			want: map[string][]uint64{"lm_head.weight": {16, 32}, "layers.0.mlp.up_proj.bias": {24}, "model.visual.encoder.layers.0.mlp.up_proj.weight": {20, 16}}, required: true},
	})
}

// museSmall is a small Muse Glimmer's sub-configs.
const museSmall = `"out_hidden_size":64,"projector_hidden_size":32,
	"vision_config":{"hidden_size":16,"intermediate_size":20,"num_hidden_layers":1,"num_attention_heads":2},
	"text_config":{"vocab_size":16,"hidden_size":32,"num_hidden_layers":1,"num_attention_heads":4,"num_key_value_heads":2,"head_dim":8,"intermediate_size":24}`
