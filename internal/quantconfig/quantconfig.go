// Package quantconfig reads config.json's quantization_config once for
// every package that needs it, and holds its rules: spec reads the
// packing from it, check checks a model against it, and the views and
// compare decode the weights it describes
// with the same block size, bits and groups, so that a tensor's values
// and its delta in compare/ are decoded alike.
//
// [Load] reads every quantizer's section ([Rules]): compressed-tensors
// (each format, strategy, target and ignore), NVIDIA ModelOpt
// (quantization_config or hf_quant_config.json), MLX's quantization
// section (per-module settings, mlx-lm's stacked experts), and
// transformers' own quantizers (GPTQ, AWQ, fp8, fbgemm_fp8, mxfp4,
// bitsandbytes 4- and 8-bit, BitNet, EETQ, AQLM, SpQR, VPTQ, HIGGS,
// FP-Quant, HQQ, AutoRound, Quark's FP8, and quanto, which saves nothing
// quantized; torchao is named, not modelled), and compressed-tensors'
// sparsity_config (2:4 and unstructured bitmasks).
// [Rules.Expect] gives, for each weight of
// the unquantized model, the exact tensors its quantized form stores
// (names, dtypes, shapes), and [Resolve] matches them against the files.
// A method or setting the rules do not model is [Rules.Partial]: named,
// never guessed.
//
// The rule for an FP8 weight's block: weight_block_size when the config
// gives it, else inferred from the shapes of the weight and its scale
// ([Config.FP8Block]). For GPTQ and AWQ: bits 4 and one group over all
// inputs (group_size -1) when the config does not say.
package quantconfig

import (
	"encoding/json"
	"fmt"

	"github.com/fsmount/fsmount/tensor"
)

// Field is the name of the config.json field this package reads.
const Field = "quantization_config"

// Config is what quantization_config says.
type Config struct {
	// Method is quant_method ("fp8", "gptq", "awq", "bitsandbytes", …);
	// "quantized" when the section names none or does not parse; "" when
	// there is no section.
	Method string
	// Bits is the bits per value of the methods that pack values into I32
	// (gptq, awq): 4 when absent (the default of AutoGPTQ, AutoAWQ and the
	// Hub's parameter count); 0 for every other method.
	Bits uint64
	// GroupSize is group_size, or -1 (one group over all inputs) when
	// absent.
	GroupSize int
	// Block is weight_block_size [bn, bk], zero when absent.
	Block [2]uint64
	// Format is checkpoint_format ("gptq_v2", …), Version AWQ's version
	// ("gemm", …).
	Format, Version string
}

// Parse reads the quantization_config of config.json's bytes (nil or
// without the section: a zero Config). A config that is not JSON gives a
// zero Config too: that is spec's to report. The error is for bits that
// the method cannot pack; the Config is returned with it.
func Parse(config []byte) (Config, error) {
	var c struct {
		Q json.RawMessage `json:"quantization_config"`
	}
	if len(config) == 0 || json.Unmarshal(config, &c) != nil || len(c.Q) == 0 || string(c.Q) == "null" {
		return Config{}, nil
	}
	return ParseSection(c.Q)
}

// ParseSection reads the value of the quantization_config field itself.
func ParseSection(section []byte) (Config, error) {
	var q struct {
		Method    string          `json:"quant_method"`
		Bits      json.RawMessage `json:"bits"`
		GroupSize *int            `json:"group_size"`
		Block     []uint64        `json:"weight_block_size"`
		Format    string          `json:"checkpoint_format"`
		Version   string          `json:"version"`
	}
	if err := json.Unmarshal(section, &q); err != nil || q.Method == "" {
		return Config{Method: "quantized", GroupSize: -1}, nil
	}
	out := Config{Method: q.Method, GroupSize: -1, Format: q.Format, Version: q.Version}
	if q.GroupSize != nil {
		out.GroupSize = *q.GroupSize
	}
	if len(q.Block) == 2 {
		out.Block = [2]uint64{q.Block[0], q.Block[1]}
	}
	if q.Method != "gptq" && q.Method != "awq" {
		return out, nil
	}
	out.Bits = 4
	if len(q.Bits) > 0 && string(q.Bits) != "null" {
		var b uint64
		if err := json.Unmarshal(q.Bits, &b); err != nil || b == 0 || 32%b != 0 && b != 3 {
			return out, fmt.Errorf("bits is %s: %s packs 2, 3, 4 or 8 bits into each I32", q.Bits, q.Method)
		}
		out.Bits = b
	}
	return out, nil
}

// FP8Block is the block [bn, bk] of the FP8 weight w with the scale sc:
// weight_block_size when the config gives it; else 128 (every published
// FP8 checkpoint) along each dimension where the scale's grid fits it,
// and the block that gives the grid where it does not.
func (c Config) FP8Block(w, sc *tensor.Tensor) [2]uint64 {
	if c.Block != ([2]uint64{}) {
		return c.Block
	}
	if len(w.Shape) != 2 || len(sc.Shape) != 2 || sc.Shape[0] == 0 || sc.Shape[1] == 0 {
		return [2]uint64{128, 128}
	}
	var b [2]uint64
	for i := range 2 {
		b[i] = 128
		if (w.Shape[i]+127)/128 != sc.Shape[i] {
			b[i] = (w.Shape[i] + sc.Shape[i] - 1) / sc.Shape[i]
		}
	}
	return b
}
