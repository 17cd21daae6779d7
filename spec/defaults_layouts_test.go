package spec_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/spec"
)

// capped are the fields the reference's a/ configs set below their
// class's default (fewer layers and experts, README), so removing them
// changes the model; every other field of an a/ config is its class's
// default.
var capped = map[string]bool{
	"num_hidden_layers": true, "num_layers": true, "n_layer": true, "n_layers": true, "layer_types": true,
	"n_routed_experts": true, "num_experts": true, "num_local_experts": true, "moe_num_experts": true,
	"num_experts_per_tok": true, "moe_topk": true, "moe_k": true, "moe_layers": true, "cross_attention_layers": true,
	"ffn_config": true, "attention_layers": true, "no_rope_layers": true, "moe_layer_end_index": true,
	// arch-more: the seq2seq decoders' and Q-Former's layer counts.
	"decoder_layers": true, "num_decoder_layers": true, "encoder_layers": true,
	// arch-last: xLSTM's num_blocks, absent = num_hidden_layers, which a/ caps.
	"num_blocks": true,
	// arch-p1: Zamba2's layers_block_type, cut to the a/ config's 7 layers.
	"layers_block_type": true,
}

// handMade are the architectures whose a/ config is a real model's, not
// the class defaults (the reference README's "hand-made base").
var handMade = map[string]bool{"dots1": true, "hunyuan_v1_dense": true, "hunyuan_v1_moe": true, "ministral": true,
	"nemotron": true, "emu3.Emu3ForCausalLM": true, "mllama.MllamaForCausalLM": true,
	// arch-more's hand-made bases.
	"aya_vision": true, "chameleon": true, "emu3.Emu3ForConditionalGeneration": true, "granitemoehybrid": true, "idefics3": true,
	"mllama.MllamaForConditionalGeneration": true, "musicgen": true, "musicgen_melody": true, "phi4_multimodal": true, "pixtral": true,
	"qwen3_vl": true, "qwen3_vl_moe": true, "reformer": true, "smolvlm": true, "vision-encoder-decoder": true}

// TestLayoutDefaults: every field of a default config (a/) is its class's
// default, so deleting it from config.json must not change the expected
// set: this checks each family's defaults against transformers' own.
func TestLayoutDefaults(t *testing.T) {
	pending := readPending(t)
	for _, l := range readLayouts(t) {
		if l.Variant != "a" || pending[l.Arch] || handMade[l.Arch] {
			continue
		}
		var fields map[string]json.RawMessage
		// Python's Infinity (Mamba2's time_step_limit) as a JSON number, so
		// that encoding/json can take the config apart.
		require.NoError(t, json.Unmarshal(bytes.ReplaceAll(l.Config, []byte("Infinity"), []byte("1e999")), &fields))
		want := plannedSet(t, l.Config)
		for k := range fields {
			// A sub-config (text_config, vision_config, …) holds capped layer
			// counts of its own: removing it whole changes the model.
			if capped[k] || k == "architectures" || k == "model_type" || strings.HasPrefix(strings.TrimSpace(string(fields[k])), "{") {
				continue
			}
			edited := map[string]json.RawMessage{}
			for k2, v := range fields {
				if k2 != k {
					edited[k2] = v
				}
			}
			raw, _ := json.Marshal(edited)
			c, err := spec.ParseConfig("config.json", raw)
			require.NoError(t, err)
			p, err := spec.Expect(c)
			if err != nil {
				assert.Contains(t, err.Error(), "is missing", "%s without %s", l.Arch, k)
				continue
			}
			assert.Equal(t, want, setOf(p), "%s: without %q the expected set changes: the spec's default is not %s's", l.Arch, k, strings.TrimSpace(string(fields[k])))
		}
	}
}

func plannedSet(t *testing.T, config []byte) []string {
	c, err := spec.ParseConfig("config.json", config)
	require.NoError(t, err)
	p, err := spec.Expect(c)
	require.NoError(t, err)
	return setOf(p)
}

func setOf(p *spec.Plan) []string {
	var out []string
	for _, e := range p.Tensors {
		if e.Optional && e.Role == spec.RoleHead {
			continue
		}
		out = append(out, fmt.Sprint(e.Name, e.ShapeValues()))
	}
	slices.Sort(out)
	return out
}
