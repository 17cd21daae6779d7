package views

import (
	"fmt"
	"strings"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/quantconfig"
	"github.com/fsmount/fsmount/tensor"
)

// Companions finds tensors' companions in a model: the block scales of an
// FP8 weight, or the zeros, scales and group indices of a GPTQ or AWQ
// packed weight, so that values are the dequantized weights.
type Companions struct {
	lookup func(name string) *tensor.Tensor
	q      quantconfig.Config
	// Warn, if set, is told why a packed weight is not dequantized.
	Warn func(name string, err error)
}

// NewCompanions looks companions up with lookup (a model's Tensor), and
// decodes them as config.json's quantization section says (config is
// config.json's bytes, or nil; see package quantconfig).
func NewCompanions(lookup func(name string) *tensor.Tensor, config []byte) *Companions {
	q, _ := quantconfig.Parse(config) // bad bits are spec's to report; the packed codes then stay undecoded
	return &Companions{lookup: lookup, q: q}
}

// Options returns the options of NewTensor for tt: nil when it has no
// companions.
func (c *Companions) Options(tt *tensor.Tensor) *Options {
	if c == nil {
		return nil
	}
	if base, ok := strings.CutSuffix(tt.Name, ".weight"); ok && (tt.DType == tensor.F8_E4M3 || tt.DType == tensor.F8_E5M2) {
		if s := c.lookup(base + ".weight_scale_inv"); s != nil {
			return &Options{Scale: s, Block: c.q.FP8Block(tt, s)}
		}
	}
	base, ok := strings.CutSuffix(tt.Name, ".qweight")
	if !ok || c.q.Method != "gptq" && c.q.Method != "awq" {
		return nil
	}
	if c.lookup(base+".qzeros") == nil || c.lookup(base+".scales") == nil {
		return nil
	}
	dec, err := Packed(c.q, c.lookup, base, tt)
	if err != nil {
		// The views then decode the packed codes as what they are (I32).
		if c.Warn != nil {
			c.Warn(tt.Name, err)
		}
		return nil
	}
	return &Options{Decoder: dec}
}

// Packed returns the decoder of the GPTQ or AWQ packed weight qw, as
// the quantization config c says, whose companions (base.qzeros, base.scales, base.g_idx for its name
// base.qweight) lookup finds.
func Packed(c quantconfig.Config, lookup func(name string) *tensor.Tensor, base string, qw *tensor.Tensor) (*decode.Decoder, error) {
	zeros, scales := lookup(base+".qzeros"), lookup(base+".scales")
	switch c.Method {
	case "":
		return nil, fmt.Errorf("%s: no %s to decode it", qw.Name, quantconfig.Field)
	case "gptq":
		return decode.NewGPTQ(decode.GPTQ{QWeight: qw, QZeros: zeros, Scales: scales, GIdx: lookup(base + ".g_idx"),
			Bits: int(c.Bits), GroupSize: c.GroupSize, V1: c.Format != "gptq_v2"})
	case "awq":
		if c.Version != "" && !strings.EqualFold(c.Version, "gemm") {
			return nil, fmt.Errorf("%s: AWQ version %q is not decoded", qw.Name, c.Version)
		}
		return decode.NewAWQ(decode.AWQ{QWeight: qw, QZeros: zeros, Scales: scales, GroupSize: c.GroupSize})
	}
	return nil, fmt.Errorf("%s: quant_method %q is not decoded", qw.Name, c.Method)
}
