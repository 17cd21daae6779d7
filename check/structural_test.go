package check_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// structLayer is one layer of a synthetic stack: its tensor suffixes
// and shapes.
type structLayer map[string][]uint64

func structTensors(prefix string, layers []structLayer) []testmodel.Tensor {
	var ts []testmodel.Tensor
	for i, l := range layers {
		names := make([]string, 0, len(l))
		for n := range l {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			ts = append(ts, testmodel.Tensor{Name: fmt.Sprintf("%s.%d.%s", prefix, i, n), DType: "BF16", Shape: l[n]})
		}
	}
	return ts
}

// swinStage is a Swin-like stage of width w (two blocks), with the
// downsampling to 2w after it unless last.
func swinStage(w uint64, heads uint64, last bool) structLayer {
	l := structLayer{}
	for b := range 2 {
		p := fmt.Sprintf("blocks.%d.", b)
		for _, n := range []string{"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense"} {
			l[p+n+".weight"] = []uint64{w, w}
			l[p+n+".bias"] = []uint64{w}
		}
		l[p+"attention.self.relative_position_bias_table"] = []uint64{169, heads}
		l[p+"layernorm_before.weight"] = []uint64{w}
		l[p+"intermediate.dense.weight"] = []uint64{4 * w, w}
		l[p+"output.dense.weight"] = []uint64{w, 4 * w}
	}
	if !last {
		l["downsample.norm.weight"] = []uint64{4 * w}
		l["downsample.norm.bias"] = []uint64{4 * w}
		l["downsample.reduction.weight"] = []uint64{2 * w, 4 * w}
	}
	return l
}

// samLayer is a SAM-like ViT layer: windowed attention's relative
// position tables are 2·window-1 long, a global layer's 2·(image/patch)-1.
func samLayer(global bool) structLayer {
	rel := uint64(27)
	if global {
		rel = 127
	}
	return structLayer{
		"attn.qkv.weight": {192, 64}, "attn.qkv.bias": {192}, "attn.proj.weight": {64, 64}, "attn.proj.bias": {64},
		"attn.rel_pos_h": {rel, 16}, "attn.rel_pos_w": {rel, 16},
		"layer_norm1.weight": {64}, "layer_norm1.bias": {64}, "layer_norm2.weight": {64}, "layer_norm2.bias": {64},
		"mlp.lin1.weight": {256, 64}, "mlp.lin1.bias": {256}, "mlp.lin2.weight": {64, 256}, "mlp.lin2.bias": {64},
	}
}

// reassemble is a DPT-like neck layer of width w: a resize only where
// its factor is not 1.
func reassemble(w uint64, resize bool) structLayer {
	l := structLayer{"projection.weight": {w, 64, 1, 1}, "projection.bias": {w}}
	if resize {
		l["resize.weight"] = []uint64{w, w, 3, 3}
		l["resize.bias"] = []uint64{w}
	}
	return l
}

// decoderLayer is a Llama-like layer whose k/v projections are kv wide.
func decoderLayer(kv uint64) structLayer {
	return structLayer{
		"input_layernorm.weight": {32}, "post_attention_layernorm.weight": {32},
		"self_attn.q_proj.weight": {32, 32}, "self_attn.k_proj.weight": {kv, 32}, "self_attn.v_proj.weight": {kv, 32}, "self_attn.o_proj.weight": {32, 32},
		"mlp.gate_proj.weight": {64, 32}, "mlp.up_proj.weight": {64, 32}, "mlp.down_proj.weight": {32, 64},
	}
}

// TestStructuralStagesAndKinds: the structural check compares a layer
// only with its peers. Hierarchical stages whose widths change (Swin's
// last stage has no downsampling), a DPT neck's reassemble layers
// (a factor of 1 resizes nothing), SAM's global attention layers and a
// config's layer_types are layouts transformers writes: each checks
// clean; and the mutants the check catches among peers are still caught.
func TestStructuralStagesAndKinds(t *testing.T) {
	swin := structTensors("encoder.layers", []structLayer{swinStage(32, 2, false), swinStage(64, 4, false), swinStage(128, 8, false), swinStage(256, 16, true)})
	// Stages of one width: only the config's per-stage lists tell them.
	swinFlat := structTensors("encoder.layers", []structLayer{swinStage(32, 2, false), swinStage(32, 2, false), swinStage(32, 2, false), swinStage(32, 2, true)})
	sam := structTensors("vision_encoder.layers", []structLayer{samLayer(false), samLayer(false), samLayer(true), samLayer(false), samLayer(false)})
	dpt := structTensors("neck.reassemble_stage.layers", []structLayer{reassemble(16, true), reassemble(16, true), reassemble(16, false), reassemble(16, true)})
	ink := structTensors("model.layers", []structLayer{decoderLayer(16), decoderLayer(16), decoderLayer(16), decoderLayer(16), decoderLayer(8)})
	plain := structTensors("model.layers", []structLayer{decoderLayer(16), decoderLayer(16), decoderLayer(16), decoderLayer(16), decoderLayer(16)})
	const (
		swinCfg = `{"architectures":["ZzSwinModel"],"model_type":"zz_swin","num_layers":4,"depths":[2,2,2,2],"num_heads":[2,4,8,16]}`
		samCfg  = `{"architectures":["ZzSamModel"],"model_type":"zz_sam","num_hidden_layers":5,"global_attn_indexes":[2]}`
		dptCfg  = `{"architectures":["ZzDptModel"],"model_type":"zz_dpt","num_hidden_layers":4,"reassemble_factors":[4,2,1,0.5]}`
		inkCfg  = `{"architectures":["ZzInklingForCausalLM"],"model_type":"zz_inkling","num_hidden_layers":5,"layer_types":["sliding","sliding","sliding","sliding","full"]}`
		noKinds = `{"architectures":["ZzLlamaForCausalLM"],"model_type":"zz_llama","num_hidden_layers":5}`
	)
	// DETR's box head: an MLP of as many layers as the encoder, its last
	// one 4 wide; the encoder is the main stack, not the head.
	mlp := append(structTensors("vit.encoder.layer", []structLayer{decoderLayer(16), decoderLayer(16), decoderLayer(16)}),
		structTensors("bbox_predictor.layers", []structLayer{{"weight": {32, 32}, "bias": {32}}, {"weight": {32, 32}, "bias": {32}}, {"weight": {4, 32}, "bias": {4}}})...)
	for _, c := range []struct {
		name, config string
		tensors      []testmodel.Tensor
	}{
		{"mlp head", `{"architectures":["ZzYolosForObjectDetection"],"model_type":"zz_yolos","num_hidden_layers":3}`, mlp},
		{"swin stages", swinCfg, swin},
		{"swin stages of one width", swinCfg, swinFlat},
		{"sam global attention", samCfg, sam},
		{"dpt reassemble", dptCfg, dpt},
		{"layer_types", inkCfg, ink},
	} {
		r := checkLayout(t, []byte(c.config), c.tensors)
		require.Equal(t, check.DepthStructural, r.Depth, c.name)
		assert.Empty(t, problemNames(r), "%s:\n%s", c.name, r.Verdict())
	}

	// What still fails: a tensor dropped from a stage, a changed shape
	// among peers, a global-attention-sized table in a windowed layer,
	// a narrower k_proj in a layer the config does not set apart.
	for _, c := range []struct {
		name, config string
		tensors      []testmodel.Tensor
		edit         func([]testmodel.Tensor) []testmodel.Tensor
		want         string
	}{
		{"swin tensor dropped", swinCfg, swin, drop("encoder.layers.1.blocks.0.attention.self.key.bias"), "encoder.layers.1.blocks.0.attention.self.key.bias"},
		{"swin downsample dropped", swinCfg, swin, drop("encoder.layers.1.downsample.norm.bias"), "encoder.layers.1.downsample.norm.bias"},
		{"sam shape changed", samCfg, sam, reshape("vision_encoder.layers.3.mlp.lin1.weight", 255, 64), "vision_encoder.layers.3.mlp.lin1.weight"},
		{"sam global table in a windowed layer", samCfg, sam, reshape("vision_encoder.layers.1.attn.rel_pos_h", 127, 16), "vision_encoder.layers.1.attn.rel_pos_h"},
		{"dpt resize dropped", dptCfg, dpt, drop("neck.reassemble_stage.layers.1.resize.bias"), "neck.reassemble_stage.layers.1.resize.bias"},
		{"no layer_types", noKinds, ink, nil, "model.layers.4.self_attn.k_proj.weight"},
		{"kind's peer changed", inkCfg, ink, reshape("model.layers.2.self_attn.k_proj.weight", 8, 32), "model.layers.2.self_attn.k_proj.weight"},
		{"plain shape changed", noKinds, plain, reshape("model.layers.2.mlp.up_proj.weight", 65, 32), "model.layers.2.mlp.up_proj.weight"},
	} {
		ts := c.tensors
		if c.edit != nil {
			ts = c.edit(slices.Clone(ts))
		}
		r := checkLayout(t, []byte(c.config), ts)
		assert.Contains(t, problemNames(r), c.want, "%s:\n%s", c.name, r.Verdict())
	}
}

func drop(name string) func([]testmodel.Tensor) []testmodel.Tensor {
	return func(ts []testmodel.Tensor) []testmodel.Tensor {
		return slices.DeleteFunc(ts, func(x testmodel.Tensor) bool { return x.Name == name })
	}
}

func reshape(name string, shape ...uint64) func([]testmodel.Tensor) []testmodel.Tensor {
	return func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i := range ts {
			if ts[i].Name == name {
				ts[i].Shape = shape
			}
		}
		return ts
	}
}

// TestStructuralStrayLayer: a layer past the config's last (a 2-layer
// model holding model.layers.2) is unexpected, each of its tensors named;
// the multi-token prediction layers a config declares after the last are
// not, nor is a stack whose length the config gives in another field.
func TestStructuralStrayLayer(t *testing.T) {
	three := structTensors("model.layers", []structLayer{decoderLayer(16), decoderLayer(16), decoderLayer(16)})
	r := checkLayout(t, []byte(`{"architectures":["ZzLlamaForCausalLM"],"model_type":"zz_llama","num_hidden_layers":2}`), three)
	require.Equal(t, check.DepthStructural, r.Depth)
	assert.Len(t, r.Problems, len(decoderLayer(16)), r.Verdict())
	for _, p := range r.Problems {
		assert.Equal(t, check.Unexpected, p.Kind)
		assert.Regexp(t, `^model\.layers\.2\.`, p.Tensor)
	}
	assert.Contains(t, problemNames(r), "model.layers.2.self_attn.q_proj.weight")
	assert.Contains(t, r.Verdict(), "model.layers.2.self_attn.q_proj.weight [32, 32]: layer 2 is past the model's last (num_hidden_layers is 2)")

	for _, cfg := range []string{
		`{"architectures":["ZzLlamaForCausalLM"],"model_type":"zz_llama","num_hidden_layers":2,"num_nextn_predict_layers":1}`,
		`{"architectures":["ZzLlamaForCausalLM"],"model_type":"zz_llama","num_hidden_layers":2,"num_blocks":3}`,
	} {
		r = checkLayout(t, []byte(cfg), three)
		assert.Empty(t, problemNames(r), "%s:\n%s", cfg, r.Verdict())
	}
	// Two MTP layers declared, three past the last stored: the third is
	// unexpected.
	five := structTensors("model.layers", []structLayer{decoderLayer(16), decoderLayer(16), decoderLayer(16), decoderLayer(16), decoderLayer(16)})
	r = checkLayout(t, []byte(`{"architectures":["ZzLlamaForCausalLM"],"model_type":"zz_llama","num_hidden_layers":2,"num_nextn_predict_layers":2}`), five)
	assert.Contains(t, problemNames(r), "model.layers.4.mlp.up_proj.weight", r.Verdict())
	assert.NotContains(t, problemNames(r), "model.layers.3.mlp.up_proj.weight", r.Verdict())
}
