package views

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/tensor"
)

// quantConfig is what the views need of config.json's
// quantization_config.
type quantConfig struct {
	QuantMethod      string   `json:"quant_method"`
	WeightBlockSize  []uint64 `json:"weight_block_size"`
	Bits             int      `json:"bits"`
	GroupSize        int      `json:"group_size"`
	CheckpointFormat string   `json:"checkpoint_format"`
}

func parseQuantConfig(config []byte) quantConfig {
	var c struct {
		Q quantConfig `json:"quantization_config"`
	}
	if config != nil {
		// A config that fails here was checked by spec already; without
		// quantization_config the views decode the stored values.
		_ = json.Unmarshal(config, &c)
	}
	return c.Q
}

// Companions finds tensors' companions in a model: the block scales of an
// FP8 weight, or the zeros, scales and group indices of a GPTQ or AWQ
// packed weight, so that values are the dequantized weights.
type Companions struct {
	lookup func(name string) *tensor.Tensor
	q      quantConfig
	// Warn, if set, is told why a packed weight is not dequantized.
	Warn func(name string, err error)
}

// NewCompanions looks companions up with lookup (a model's Tensor), and
// reads quantization_config from config (config.json's bytes, or nil).
func NewCompanions(lookup func(name string) *tensor.Tensor, config []byte) *Companions {
	return &Companions{lookup: lookup, q: parseQuantConfig(config)}
}

// Options returns the options of NewTensor for tt: nil when it has no
// companions.
func (c *Companions) Options(tt *tensor.Tensor) *Options {
	if c == nil {
		return nil
	}
	q := c.q
	if base, ok := strings.CutSuffix(tt.Name, ".weight"); ok && (tt.DType == tensor.F8_E4M3 || tt.DType == tensor.F8_E5M2) {
		if s := c.lookup(base + ".weight_scale_inv"); s != nil {
			block := [2]uint64{128, 128}
			if len(q.WeightBlockSize) == 2 {
				block = [2]uint64{q.WeightBlockSize[0], q.WeightBlockSize[1]}
			}
			return &Options{Scale: s, Block: block}
		}
	}
	base, ok := strings.CutSuffix(tt.Name, ".qweight")
	if !ok {
		return nil
	}
	zeros, scales := c.lookup(base+".qzeros"), c.lookup(base+".scales")
	if zeros == nil || scales == nil {
		return nil
	}
	var (
		dec *decode.Decoder
		err error
	)
	switch q.QuantMethod {
	case "gptq":
		dec, err = decode.NewGPTQ(decode.GPTQ{QWeight: tt, QZeros: zeros, Scales: scales, GIdx: c.lookup(base + ".g_idx"),
			Bits: cmp.Or(q.Bits, 4), GroupSize: q.GroupSize, V1: q.CheckpointFormat != "gptq_v2"})
	case "awq":
		dec, err = decode.NewAWQ(decode.AWQ{QWeight: tt, QZeros: zeros, Scales: scales, GroupSize: q.GroupSize})
	default:
		return nil
	}
	if err != nil {
		// The views then decode the packed codes as what they are (I32).
		if c.Warn != nil {
			c.Warn(tt.Name, err)
		}
		return nil
	}
	return &Options{Decoder: dec}
}
