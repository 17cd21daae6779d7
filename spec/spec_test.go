package spec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

const repo = ".."

func TestConfigStrict(t *testing.T) {
	base := map[string]any{
		"architectures": []string{"Qwen3ForCausalLM"}, "model_type": "qwen3",
		"vocab_size": 128, "hidden_size": 32, "num_hidden_layers": 2,
		"num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
		"intermediate_size": 64, "tie_word_embeddings": true, "torch_dtype": "bfloat16",
	}
	cases := []struct {
		name  string
		edit  func(m map[string]any)
		field string // named in the error; "" means no error
		msg   string
	}{
		{"valid", func(m map[string]any) {}, "", ""},
		{"missing hidden_size", func(m map[string]any) { delete(m, "hidden_size") }, "hidden_size", "is missing"},
		{"null vocab_size", func(m map[string]any) { m["vocab_size"] = nil }, "vocab_size", "is missing"},
		{"string layers", func(m map[string]any) { m["num_hidden_layers"] = "28" }, "num_hidden_layers", "must be an integer"},
		{"fractional heads", func(m map[string]any) { m["num_attention_heads"] = 4.5 }, "num_attention_heads", "must be an integer"},
		{"negative intermediate", func(m map[string]any) { m["intermediate_size"] = -64 }, "intermediate_size", "must not be negative"},
		{"absurd layers", func(m map[string]any) { m["num_hidden_layers"] = 1e12 }, "num_hidden_layers", "more than"},
		{"zero hidden", func(m map[string]any) { m["hidden_size"] = 0 }, "hidden_size", "must be positive"},
		{"bool tie as string", func(m map[string]any) { m["tie_word_embeddings"] = "yes" }, "tie_word_embeddings", "must be true or false"},
		{"kv not dividing", func(m map[string]any) { m["num_key_value_heads"] = 3 }, "num_key_value_heads", "does not divide"},
		{"integral float ok", func(m map[string]any) { m["hidden_size"] = 32.0 }, "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := map[string]any{}
			for k, v := range base {
				m[k] = v
			}
			c.edit(m)
			raw, _ := json.Marshal(m)
			cfg, err := spec.ParseConfig("x/config.json", raw)
			require.NoError(t, err)
			err = assertExpectErr(t, cfg, c.field, c.msg)
			if c.field != "" {
				assert.Contains(t, err.Error(), "x/config.json")
			}
		})
	}
	_, err := spec.ParseConfig("c.json", []byte("[1,2]"))
	assert.ErrorContains(t, err, "not a JSON object")
}

func TestHeadDimRule(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["LlamaForCausalLM"],"vocab_size":10,"hidden_size":64,
		"num_hidden_layers":1,"num_attention_heads":8,"intermediate_size":128}`))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	// head_dim absent: H/heads = 8; num_key_value_heads absent: = heads.
	byName := map[string]spec.ExpectedTensor{}
	for _, e := range p.Tensors {
		byName[e.Name] = e
	}
	assert.Equal(t, []uint64{64, 64}, byName["model.layers.0.self_attn.k_proj.weight"].ShapeValues())
	_, hasQNorm := byName["model.layers.0.self_attn.q_norm.weight"]
	assert.False(t, hasQNorm, "Llama has no q_norm")
	assert.Contains(t, p.Legend[3].Desc, "not in config: H/heads = 64/8")
}

func TestExpectQwen3RealConfig(t *testing.T) {
	cfg, err := testmodel.LoadConfig(filepath.Join(repo, "testdata", "qwen3-0.6b-layout", "config.json"))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	assert.Equal(t, "Qwen3", p.Arch)
	assert.Len(t, p.Tensors, 3+11*28)
	var required, params uint64
	for _, e := range p.Tensors {
		if !e.Optional {
			required++
			n := uint64(1)
			for _, d := range e.Shape {
				n *= d.Val
			}
			params += n
		}
	}
	assert.Equal(t, uint64(310), required)
	assert.Equal(t, uint64(596_049_920), params, "logical parameters")
	last := p.Tensors[len(p.Tensors)-1]
	assert.Equal(t, "lm_head.weight", last.Name)
	assert.True(t, last.Optional, "tied head is optional")
}

func TestNoSpec(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["FancyNetForCausalLM"],"model_type":"fancy"}`))
	require.NoError(t, err)
	_, err = spec.Expect(cfg)
	var ns *spec.NoSpecError
	require.True(t, errors.As(err, &ns))
	assert.Equal(t, "no spec for architecture FancyNetForCausalLM", err.Error())
}

func checkDir(t *testing.T, dir string) *check.Report {
	t.Helper()
	_, r := testmodel.Checked(t, dir)
	return r
}

// TestArchitectureCounts checks each spec's tensor count per block against
// the modules of transformers' modeling files: Llama 9L+2, Qwen2 12L+2, Qwen3 11L+2, Gemma2 11L+2
// (plus an untied lm_head), and the switches that add biases.
func TestArchitectureCounts(t *testing.T) {
	const dims = `"vocab_size":16,"hidden_size":8,"num_hidden_layers":3,"num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":12`
	for _, c := range []struct {
		arch, extra string
		perLayer    int
		tied        bool
		spec        string
	}{
		{"LlamaForCausalLM", "", 9, false, "Llama"},
		{"LlamaForCausalLM", `,"attention_bias":true,"mlp_bias":true`, 9 + 4 + 3, false, "Llama"},
		{"MistralForCausalLM", `,"head_dim":16,"attention_bias":true`, 9, false, "Mistral"},
		{"Qwen2ForCausalLM", `,"tie_word_embeddings":true`, 12, true, "Qwen2"},
		{"Qwen3ForCausalLM", "", 11, false, "Qwen3"},
		{"GemmaForCausalLM", `,"head_dim":4`, 9, true, "Gemma"},
		{"Gemma2ForCausalLM", `,"head_dim":4`, 11, true, "Gemma2"},
	} {
		t.Run(c.arch+c.extra, func(t *testing.T) {
			cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["`+c.arch+`"],`+dims+c.extra+`}`))
			require.NoError(t, err)
			p, err := spec.Expect(cfg)
			require.NoError(t, err)
			assert.Equal(t, c.spec, p.Arch)
			assert.Equal(t, c.tied, p.Tied, "the config class's tie_word_embeddings default")
			assert.Len(t, p.Tensors, c.perLayer*3+3)
			if c.arch == "Gemma2ForCausalLM" {
				assert.Equal(t, "model.layers.0.post_feedforward_layernorm.weight", p.Tensors[c.perLayer].Name)
			}
		})
	}
	// model_type alone selects the spec when "architectures" is absent.
	cfg, err := spec.ParseConfig("c", []byte(`{"model_type":"qwen2",`+dims+`}`))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	assert.Equal(t, "Qwen2", p.Arch)
}

// TestAbsurdDimensions: a small config that asks for an enormous expected
// set is refused at once, with a ConfigError naming the field and the
// bound, instead of taking seconds and gigabytes.
func TestAbsurdDimensions(t *testing.T) {
	const dense = `"architectures":["Qwen3ForCausalLM"],"model_type":"qwen3","vocab_size":128,"hidden_size":32,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":64,"tie_word_embeddings":true,"torch_dtype":"bfloat16"`
	const moe = `"architectures":["Qwen3MoeForCausalLM"],"model_type":"qwen3_moe","vocab_size":128,"hidden_size":32,
		"num_attention_heads":4,"num_key_value_heads":2,"head_dim":16,"intermediate_size":64,"moe_intermediate_size":16,
		"num_experts_per_tok":2,"tie_word_embeddings":true,"torch_dtype":"bfloat16"`
	for _, c := range []struct {
		name, config, field, msg string
	}{
		{"262144 layers", `{` + dense + `,"num_hidden_layers":262144}`, "num_hidden_layers",
			`field "num_hidden_layers" is 262144, more than the 1024 layers fsmount accepts`},
		{"100000 experts", `{` + moe + `,"num_hidden_layers":2,"num_experts":100000}`, "num_experts",
			`field "num_experts" is 100000, more than the 4096 experts fsmount accepts`},
		{"set above MaxExpected", `{` + moe + `,"num_hidden_layers":1024,"num_experts":4096}`, "num_experts",
			"1024 layers of 4096 experts imply up to 12,599,300 tensors, more than the 1,048,576 fsmount accepts"},
		{"set far above the files", `{` + moe + `,"num_hidden_layers":1000,"num_experts":300}`, "num_experts",
			"1000 layers of 300 experts imply up to 916,004 tensors, the files hold 25"},
		{"dense set above the files", `{` + dense + `,"num_hidden_layers":1000}`, "num_hidden_layers",
			"1000 layers imply up to 15,004 tensors, the files hold 25"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := testmodel.TinyDir(t, nil)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(c.config), 0o644))
			m, err := model.Open(dir)
			require.NoError(t, err)
			defer m.Close()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, err = check.Check(m)
			runtime.ReadMemStats(&after)
			var ce *spec.ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, c.field, ce.Field)
			assert.Contains(t, err.Error(), c.msg)
			assert.NotContains(t, err.Error(), "\n", "one line")
			assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(1<<20), "bytes allocated")
		})
	}
}

// TestBoundsAdmitRealModels: the real sharded checkpoints, the largest
// expected sets we have, are within the bounds (TestRealShardedIndexes
// checks them whole); here a plan as large as Kimi-K2's is accepted.
func TestBoundsAdmitRealModels(t *testing.T) {
	cfg, err := spec.ParseConfig("c", []byte(`{"architectures":["Qwen3MoeForCausalLM"],"vocab_size":16,"hidden_size":8,
		"num_hidden_layers":61,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12,
		"num_experts":384,"moe_intermediate_size":4,"num_experts_per_tok":8}`))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	assert.Greater(t, len(p.Tensors), 70_000)
	assert.True(t, strings.HasPrefix(p.Tensors[0].Name, "model."))
}

// TestFamiliesCompile: every registered family's expressions parse and
// name only known symbols.
func TestFamiliesCompile(t *testing.T) {
	require.NoError(t, spec.CompileFamilies())
}

func expectJSON(t *testing.T, config string) *spec.Plan {
	t.Helper()
	cfg, err := spec.ParseConfig("c", []byte(config))
	require.NoError(t, err)
	p, err := spec.Expect(cfg)
	require.NoError(t, err)
	return p
}

func legendRow(t *testing.T, p *spec.Plan, field string) spec.LegendRow {
	t.Helper()
	for _, l := range p.Legend {
		if l.Field == field {
			return l
		}
	}
	t.Fatalf("no legend row for %s", field)
	return spec.LegendRow{}
}

func shapeOf(p *spec.Plan, name string) []uint64 {
	for _, e := range p.Tensors {
		if e.Name == name {
			return e.ShapeValues()
		}
	}
	return nil
}

// TestClassDefaults: a key config.json omits takes the config class's
// default, as transformers does (reference §3.2–3.3), not a guess shared
// by every architecture, and the legend says "(default)".
func TestClassDefaults(t *testing.T) {
	// hidden 64 and 8 heads: H/heads would be 8.
	const dims = `"vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":8,"intermediate_size":32`
	for _, c := range []struct {
		arch, extra  string
		headDim, nkv uint64
		hdWhy, kvWhy string
	}{
		{"Qwen3ForCausalLM", `,"num_key_value_heads":4`, 128, 4, "Qwen3Config's 128", ""},
		{"GemmaForCausalLM", `,"num_key_value_heads":4`, 256, 4, "GemmaConfig's 256", ""},
		{"Gemma2ForCausalLM", `,"num_key_value_heads":4`, 256, 4, "Gemma2Config's 256", ""},
		{"LlamaForCausalLM", "", 8, 8, "H/heads = 64/8", "= num_attention_heads"},
		{"MistralForCausalLM", "", 8, 8, "H/heads = 64/8", "MistralConfig's 8"},
		{"GemmaForCausalLM", `,"head_dim":8,"num_attention_heads":16`, 8, 16, "", "GemmaConfig's 16"},
		{"Gemma2ForCausalLM", `,"head_dim":8`, 8, 4, "", "Gemma2Config's 4"},
		{"Qwen2ForCausalLM", `,"num_attention_heads":32`, 2, 32, "H/heads = 64/32", "Qwen2Config's 32"},
		{"LlamaForCausalLM", `,"num_key_value_heads":null,"head_dim":null`, 8, 8, "H/heads = 64/8", "= num_attention_heads"},
	} {
		t.Run(c.arch+c.extra, func(t *testing.T) {
			p := expectJSON(t, `{"architectures":["`+c.arch+`"],`+dims+c.extra+`}`)
			hd, kv := legendRow(t, p, "head_dim"), legendRow(t, p, "num_key_value_heads")
			assert.Equal(t, c.headDim, hd.Value)
			assert.Equal(t, c.nkv, kv.Value)
			assert.Equal(t, c.hdWhy, hd.Default)
			assert.Equal(t, c.kvWhy, kv.Default)
			if c.hdWhy != "" {
				assert.Contains(t, hd.Desc, "(default) not in config: "+c.hdWhy)
			}
			if c.kvWhy != "" {
				assert.Contains(t, kv.Desc, "(default) not in config: "+c.kvWhy)
			}
			assert.Equal(t, []uint64{c.nkv * c.headDim, 64}, shapeOf(p, "model.layers.0.self_attn.k_proj.weight"))
		})
	}
}

func TestClassDefaultsRefused(t *testing.T) {
	const dims = `"vocab_size":16,"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":8,"intermediate_size":32`
	for _, c := range []struct{ config, field, msg string }{
		// Qwen3Config's num_key_value_heads default, 32, does not divide 8 heads.
		{`{"architectures":["Qwen3ForCausalLM"],` + dims + `}`, "num_key_value_heads", "is 32 (not in config: Qwen3Config's 32), which does not divide num_attention_heads 8"},
		{`{"architectures":["Qwen3MoeForCausalLM"],"num_key_value_heads":null,` + dims + `}`, "num_key_value_heads", "is null, which Qwen3MoeConfig does not replace"},
		{`{"architectures":["Qwen3ForCausalLM"],"num_key_value_heads":4,"head_dim":null,` + dims + `}`, "head_dim", "is null, which Qwen3Config does not replace"},
	} {
		cfg, err := spec.ParseConfig("c", []byte(c.config))
		require.NoError(t, err)
		_, err = spec.Expect(cfg)
		var ce *spec.ConfigError
		require.ErrorAs(t, err, &ce, c.config)
		assert.Equal(t, c.field, ce.Field)
		assert.Contains(t, err.Error(), c.msg)
	}
}

// TestDefaultedFlagsShown: absent booleans and MoE fields are listed in
// the legend as defaulted, with the value used.
func TestDefaultedFlagsShown(t *testing.T) {
	p := expectJSON(t, `{"architectures":["Qwen3MoeForCausalLM"],"vocab_size":16,"hidden_size":8,"num_hidden_layers":1,
		"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12,"num_experts":4}`)
	for field, want := range map[string]string{
		"tie_word_embeddings":   "Qwen3MoeConfig's false",
		"attention_bias":        "Qwen3MoeConfig's false",
		"moe_intermediate_size": "Qwen3MoeConfig's 768",
		"num_experts_per_tok":   "Qwen3MoeConfig's 8",
		"decoder_sparse_step":   "Qwen3MoeConfig's 1",
		"mlp_only_layers":       "Qwen3MoeConfig's []",
	} {
		assert.Equal(t, want, legendRow(t, p, field).Default, field)
	}
	assert.Equal(t, "", legendRow(t, p, "num_experts").Default)
	assert.Equal(t, []uint64{768, 8}, shapeOf(p, "model.layers.0.mlp.experts.3.up_proj.weight"))

	// In the report text.
	dir := testmodel.TinyDir(t, nil)
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	require.NoError(t, err)
	raw = []byte(strings.Replace(string(raw), `"attention_bias": false,`, "", 1))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644))
	r := checkDir(t, dir)
	assert.Contains(t, r.Text(), "     attention_bias          false   q, k, v and o projections have biases   (default) not in config: Qwen3Config's false\n")
	assert.Contains(t, string(r.JSON()), `"default": "Qwen3Config's false"`)
}

// capped are the fields the reference's a/ configs set below their
// class's default (fewer layers and experts, README), so removing them
// changes the model; every other field of an a/ config is its class's
// default.
var capped = map[string]bool{
	"num_hidden_layers": true, "num_layers": true, "n_layer": true, "n_layers": true, "layer_types": true,
	"n_routed_experts": true, "num_experts": true, "num_local_experts": true, "moe_num_experts": true,
	"num_experts_per_tok": true, "moe_topk": true, "moe_k": true, "moe_layers": true, "cross_attention_layers": true,
	"ffn_config": true, "attention_layers": true, "no_rope_layers": true, "moe_layer_end_index": true,
	// The seq2seq decoders' and Q-Former's layer counts.
	"decoder_layers": true, "num_decoder_layers": true, "encoder_layers": true,
	// xLSTM's num_blocks, absent = num_hidden_layers, which a/ caps.
	"num_blocks": true,
	// Zamba2's layers_block_type, cut to the a/ config's 7 layers.
	"layers_block_type": true,
}

// handMade are the architectures whose a/ config is a real model's, not
// the class defaults (the reference README's "hand-made base").
var handMade = map[string]bool{"dots1": true, "hunyuan_v1_dense": true, "hunyuan_v1_moe": true, "ministral": true,
	"nemotron": true, "emu3.Emu3ForCausalLM": true, "mllama.MllamaForCausalLM": true,
	// Hand-made bases of multimodal and hybrid models.
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

// tinyConfig returns the tiny model's config.json with edit applied.
func tinyConfig(edit func(string) string) string { return edit(testmodel.TinyQwen3Config) }

// TestModelTypeChoosesSpec: transformers' AutoConfig goes by model_type,
// whatever architectures lists first (reference §3.5).
func TestModelTypeChoosesSpec(t *testing.T) {
	p := expectJSON(t, `{"architectures":["LlamaForCausalLM","Qwen3ForCausalLM"],"model_type":"qwen3","vocab_size":16,
		"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"num_key_value_heads":1,"head_dim":4,"intermediate_size":12}`)
	assert.Equal(t, "Qwen3", p.Arch)
	assert.Equal(t, []uint64{4}, shapeOf(p, "model.layers.0.self_attn.q_norm.weight"), "Qwen3's q_norm")
	require.Len(t, p.Notes, 1)
	assert.Contains(t, p.Notes[0], `architectures names LlamaForCausalLM, but model_type "qwen3" selects the Qwen3 classes`)

	// Without model_type, architectures decides, as before.
	p = expectJSON(t, `{"architectures":["LlamaForCausalLM"],"vocab_size":16,
		"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":2,"num_key_value_heads":1,"intermediate_size":12}`)
	assert.Equal(t, "Llama", p.Arch)
	assert.Empty(t, p.Notes)
}

// seqClsDir writes the tiny model as a Qwen3ForSequenceClassification
// checkpoint: no lm_head, a bias-free score [labels, H].
func seqClsDir(t *testing.T, config string, labels uint64) string {
	t.Helper()
	dir := testmodel.TinyDir(t, func(ts []testmodel.Tensor) []testmodel.Tensor {
		ts = ts[:len(ts)-1] // lm_head
		return append(ts, testmodel.Tensor{Name: "score.weight", DType: "BF16", Shape: []uint64{labels, 32}})
	})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644))
	return dir
}

func seqCls(s string) string {
	return strings.Replace(s, `"Qwen3ForCausalLM"`, `"Qwen3ForSequenceClassification"`, 1)
}

// TestSequenceClassification checks the score head (reference §3.5):
// score.weight [num_labels, H], num_labels from id2label, default 2.
func TestSequenceClassification(t *testing.T) {
	r := checkDir(t, seqClsDir(t, tinyConfig(seqCls), 2))
	require.NotNil(t, r.Plan, r.Skipped)
	assert.True(t, r.Clean(), r.Verdict())
	assert.Equal(t, "Qwen3ForSequenceClassification", r.Plan.Arch)
	text := r.Text()
	assert.Contains(t, text, "  C  num_labels                  2   classes of the score head   (default) not in config: PretrainedConfig's 2, no id2label\n")
	assert.Contains(t, text, "    score.weight                  BF16  [2, 32]                  64  32 ──▶ 2\n")
	assert.Contains(t, text, "✓ all 25 expected tensors present")
	assert.NotContains(t, text, "lm_head")

	three := tinyConfig(func(s string) string {
		return strings.Replace(seqCls(s), "{", `{"id2label":{"0":"neg","1":"neutral","2":"pos"},`, 1)
	})
	r = checkDir(t, seqClsDir(t, three, 3))
	assert.True(t, r.Clean(), r.Verdict())
	assert.Contains(t, r.Text(), "  C  num_labels                  3   classes of the score head\n")

	// Two labels stored where id2label names three.
	r = checkDir(t, seqClsDir(t, three, 2))
	require.Len(t, r.Problems, 1)
	assert.Equal(t, "score.weight is [2, 32], expected [C, H] = [3, 32]: dim 0 is 2, C is 3", r.Problems[0].Detail)

	// An lm_head in a classification checkpoint is not part of it.
	dir := seqClsDir(t, tinyConfig(seqCls), 2)
	require.NoError(t, testmodel.WriteModelDir(dir, tinyConfig(seqCls), append(testmodel.TinyQwen3Tensors(),
		testmodel.Tensor{Name: "score.weight", DType: "BF16", Shape: []uint64{2, 32}})))
	r = checkDir(t, dir)
	require.Len(t, r.Problems, 1)
	assert.Equal(t, "lm_head.weight", r.Problems[0].Tensor)
}

// TestOtherHeadsSaySoWhy: a head we have no spec for is checked
// structurally, with the reason in the verdict.
func TestOtherHeadsSaySoWhy(t *testing.T) {
	config := tinyConfig(func(s string) string {
		return strings.Replace(s, `"Qwen3ForCausalLM"`, `"Qwen3ForTokenClassification"`, 1)
	})
	dir := testmodel.TinyDir(t, nil)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(config), 0o644))
	r := checkDir(t, dir)
	assert.Nil(t, r.Plan)
	assert.Equal(t, check.DepthStructural, r.Depth)
	assert.Contains(t, r.Verdict(), "– structural check only: no spec for architecture Qwen3ForTokenClassification (the Qwen3 spec covers the Qwen3ForCausalLM and Qwen3ForSequenceClassification heads only); its tensors are consistent: layers 0..1 (num_hidden_layers); model.layers: 2 layers in 1 kind; embedding rows = vocab_size\n")
}

// TestConfigJSONStrictness refuses what Python's json.loads refuses or
// what transformers cannot use: trailing garbage after the object, and a
// size written as a float (128.0 or 1e3 is a float to Python).
func TestConfigJSONStrictness(t *testing.T) {
	const body = `"architectures":["Qwen3ForCausalLM"],"hidden_size":32,"num_hidden_layers":2,"num_attention_heads":4,
		"num_key_value_heads":2,"head_dim":16,"intermediate_size":64`
	cases := []struct {
		name, raw string
		parseErr  string // ParseConfig's error, if any
		field     string // Expect's ConfigError field, if any
		msg       string
	}{
		{"valid", `{` + body + `,"vocab_size":128}`, "", "", ""},
		{"trailing whitespace", `{` + body + `,"vocab_size":128}` + " \n\t\r\n", "", "", ""},
		{"trailing garbage", `{` + body + `,"vocab_size":128} x`, "not a JSON object: invalid character 'x' after top-level value", "", ""},
		{"two objects", `{` + body + `,"vocab_size":128}{}`, "not a JSON object: invalid character '{' after top-level value", "", ""},
		{"trailing comma", `{` + body + `,"vocab_size":128,}`, "not a JSON object", "", ""},
		{"float size", `{` + body + `,"vocab_size":128.0}`, "", "vocab_size", "must be an integer, found 128.0, which Python's json reads as a float"},
		{"exponent size", `{` + body + `,"vocab_size":1.28e2}`, "", "vocab_size", "must be an integer, found 1.28e2, which Python's json reads as a float"},
		{"huge float size", `{` + body + `,"vocab_size":1e30}`, "", "vocab_size", "is 1e30, more than the 16777216 any real model uses"},
		{"fraction", `{` + body + `,"vocab_size":127.5}`, "", "vocab_size", "must be an integer, found 127.5"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := spec.ParseConfig("x/config.json", []byte(c.raw))
			if c.parseErr != "" {
				var ce *spec.ConfigError
				require.ErrorAs(t, err, &ce)
				assert.Contains(t, err.Error(), c.parseErr)
				assert.True(t, strings.HasPrefix(err.Error(), "x/config.json: "))
				return
			}
			require.NoError(t, err)
			assertExpectErr(t, cfg, c.field, c.msg)
		})
	}
}

// assertExpectErr checks that spec.Expect(cfg) succeeds when field is
// empty, and otherwise fails with a ConfigError naming field and saying
// msg. It returns Expect's error.
func assertExpectErr(t *testing.T, cfg *spec.Config, field, msg string) error {
	t.Helper()
	_, err := spec.Expect(cfg)
	if field == "" {
		require.NoError(t, err)
		return nil
	}
	var ce *spec.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, field, ce.Field)
	assert.Contains(t, err.Error(), msg)
	return err
}

// TestPythonNonFinite: config.json may hold Python's Infinity, -Infinity
// and NaN, as transformers writes them; they are not integers.
func TestPythonNonFinite(t *testing.T) {
	c, err := spec.ParseConfig("config.json", []byte(`{"time_step_limit": [0.0, Infinity], "x": -Infinity, "y": NaN, "s": "Infinity NaN \" Infinity", "n": 3}`))
	require.NoError(t, err)
	n, err := c.IntOr("n", 0)
	require.NoError(t, err)
	assert.Equal(t, uint64(3), n)
	s, err := c.StringOr("s", "")
	require.NoError(t, err)
	assert.Equal(t, `Infinity NaN " Infinity`, s)
	_, err = c.Int("x")
	assert.ErrorContains(t, err, `field "x" must be an integer, found -Infinity`)
	_, err = c.Int("y")
	assert.ErrorContains(t, err, `found NaN`)

	_, err = spec.ParseConfig("config.json", []byte(`{"x": Infinit}`))
	var ce *spec.ConfigError
	assert.ErrorAs(t, err, &ce)
}
