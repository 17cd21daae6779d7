package spec_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/spec"
	"github.com/fsmount/fsmount/tensor"
)

// hubCount counts parameters as @huggingface/hub's parseSafetensorsMetadata
// does (reference §2.7), for the methods used here: FP8 scales and the
// GPTQ/AWQ qzeros, g_idx and scales are skipped, a GPTQ/AWQ qweight counts
// floor(32/bits) values per element, rank-0 tensors are skipped.
func hubCount(ts []*tensor.Tensor, method string, bits uint64) (params, skipped uint64) {
	skip := map[string]bool{"weight_scale": true, "weight_scale_inv": true, "weight_scale_2": true, "weight_global_scale": true,
		"weight_zero_point": true, "input_scale": true, "input_global_scale": true, "input_zero_point": true, "zero_point": true,
		"weight_shape": true, "weight_g_idx": true}
	for _, t := range ts {
		suffix := t.Name[strings.LastIndexByte(t.Name, '.')+1:]
		n := t.NumElements()
		quantAux := (method == "gptq" || method == "awq") && (suffix == "qzeros" || suffix == "g_idx" || suffix == "scales")
		switch {
		case skip[suffix] || quantAux:
			skipped += n
		case len(t.Shape) == 0:
			skipped += n
		case (method == "gptq" || method == "awq") && suffix == "qweight":
			params += n * max(1, 32/bits)
		default:
			params += n
		}
	}
	return params, skipped
}

// qwen3MoE30B is the model card's count for Qwen3-30B-A3B ("30.5B"), which
// the unquantized Qwen3-Coder-30B-A3B layout also gives (RealShardedModels).
const qwen3MoE30B = 30_532_122_624

// TestGPTQLogicalCount rebuilds the real Qwen3-30B-A3B-GPTQ-Int4 layout
// from its config and checks that packed qweights count as the values
// they pack and that qzeros, scales and g_idx are auxiliaries: logical is
// the model card's 30.5B and the Hub parser's count.
func TestGPTQLogicalCount(t *testing.T) {
	dir := t.TempDir()
	q, err := testmodel.WriteGPTQSharded(dir, realworld("Qwen3-30B-A3B-GPTQ-Int4", "config.json"))
	require.NoError(t, err)
	require.Equal(t, testmodel.GPTQ{Bits: 4, GroupSize: 128}, q)
	r := check(t, dir)
	assert.True(t, r.Clean(), r.Verdict())
	hub, aux := hubCount(r.Model.Tensors(), "gptq", q.Bits)
	assert.Equal(t, hub, r.Logical, "the Hub parser's count")
	assert.Equal(t, uint64(qwen3MoE30B), r.Logical, "the model card's")
	assert.Equal(t, "30.5B", spec.SizeLabel(r.Logical))
	assert.Equal(t, aux, r.Auxiliary)
	assert.Equal(t, r.Stored, stored(r.Model.Tensors()), "stored counts every element")
	assert.Less(t, r.Stored, r.Logical, "packed: fewer stored elements than parameters")

	v := r.Verdict()
	assert.Contains(t, v, `30,532,122,624 logical (the "30.5B")`)
	assert.Contains(t, v, "  quantization auxiliaries: "+commaString(aux)+" values (scales, zero points, group indices), stored but not parameters\n")
	var j struct {
		Params struct {
			Logical uint64 `json:"logical"`
			Aux     uint64 `json:"quantization_auxiliary"`
		} `json:"params"`
	}
	require.NoError(t, json.Unmarshal(r.JSON(), &j))
	assert.Equal(t, r.Logical, j.Params.Logical)
	assert.Equal(t, aux, j.Params.Aux)
}

// TestFP8LogicalCount: the FP8 block scales are auxiliaries, and logical
// is the Hub parser's count and the model card's.
func TestFP8LogicalCount(t *testing.T) {
	dir, _ := writeRealSharded(t, "Qwen3-Coder-30B-A3B-Instruct-FP8")
	r := check(t, dir)
	hub, aux := hubCount(r.Model.Tensors(), "fp8", 0)
	assert.Equal(t, hub, r.Logical)
	assert.Equal(t, uint64(qwen3MoE30B), r.Logical)
	assert.Equal(t, aux, r.Auxiliary)
	assert.Equal(t, uint64(1_824_768), r.Auxiliary)
}

// TestBnbLogicalCount: bitsandbytes SCB and weight_format are auxiliaries;
// logical is Llama-3.1-8B's 8,030,261,248. (The Hub parser counts SCB as
// parameters, 1,376,256 more: we do not follow it there.)
func TestBnbLogicalCount(t *testing.T) {
	dir, _ := writeRealSharded(t, "Llama-3.1-8B-Instruct-bnb8bit-finetune")
	r := check(t, dir)
	assert.Equal(t, uint64(8_030_261_248), r.Logical)
	var scb, wf uint64
	for _, tt := range r.Model.Tensors() {
		switch {
		case strings.HasSuffix(tt.Name, ".SCB"):
			scb += tt.NumElements()
		case strings.HasSuffix(tt.Name, ".weight_format"):
			wf += tt.NumElements()
		}
	}
	assert.Equal(t, scb+wf, r.Auxiliary)
	hub, _ := hubCount(r.Model.Tensors(), "bitsandbytes", 0)
	assert.Equal(t, r.Logical+scb, hub)
}

func stored(ts []*tensor.Tensor) uint64 {
	var n uint64
	for _, t := range ts {
		n += t.NumElements()
	}
	return n
}

// commaString renders 1234567 as "1,234,567".
func commaString(n uint64) string {
	d := strconv.FormatUint(n, 10)
	var b strings.Builder
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
