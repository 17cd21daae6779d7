package decode

import (
	"github.com/fsmount/fsmount/internal/quant"
	"github.com/fsmount/fsmount/tensor"
)

// The ggml block types package quant dequantizes are decoded through it;
// the others stay "not decoded", with quant's reason.
func init() {
	for dt := tensor.Q4_0; dt.Valid(); dt++ {
		if ok, _ := quant.Supported(dt); ok {
			_ = Register(dt, quant.Dequantize)
		}
	}
}
