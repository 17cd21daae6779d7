package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/tensor"
)

// fileName is a Hugging Face tensor name as the model's files name it.
func fileName(m *model.Model, hf string) string {
	if m.Names == nil {
		return hf
	}
	if n, e, ok := m.Names.File(hf); ok && e < 0 {
		return n
	}
	return hf
}

// hfName returns the Hugging Face name of a file's tensor (GGUF's
// "blk.3.attn_q.weight" is "model.layers.3.self_attn.q_proj.weight"), or
// "" for a format that names tensors as Hugging Face does or a name it
// does not map.
func hfName(m *model.Model, name string) string {
	if m.Names == nil {
		return ""
	}
	hf, _ := m.Names.HF(name)
	return hf
}

// layerPrefix returns the prefix of a layer's tensor names as the files
// name them, from one of its tensors: what precedes and includes ".N."
// ("blk.3." of "blk.3.attn_q.weight"), or fallback.
func layerPrefix(name string, layer int, fallback string) string {
	mark := fmt.Sprintf(".%d.", layer)
	if i := strings.Index(name, mark); i >= 0 {
		return name[:i+len(mark)]
	}
	return fallback
}

// quantMix describes a model of block-quantized tensors: each type's
// share of the tensor bytes, and the bits per weight overall.
func quantMix(m *model.Model) string {
	bytes := map[tensor.DType]int64{}
	var total int64
	var params uint64
	quantized := false
	for _, t := range m.Tensors() {
		bytes[t.DType] += t.Length
		total += t.Length
		params += t.NumElements()
		quantized = quantized || t.DType.Quantized()
	}
	if !quantized || total == 0 || params == 0 {
		return ""
	}
	types := make([]tensor.DType, 0, len(bytes))
	for d := range bytes {
		types = append(types, d)
	}
	slices.SortFunc(types, func(a, b tensor.DType) int {
		if bytes[a] != bytes[b] {
			if bytes[a] > bytes[b] {
				return -1
			}
			return 1
		}
		return strings.Compare(a.String(), b.String())
	})
	parts := make([]string, len(types))
	for i, d := range types {
		parts[i] = fmt.Sprintf("%s %.1f%%", d, 100*float64(bytes[d])/float64(total))
	}
	return fmt.Sprintf("quantization mix (share of tensor bytes): %s · %.2f bits per weight", strings.Join(parts, ", "), float64(total)*8/float64(params))
}
