package testmodel

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/safetensors"
)

// WriteRealSharded rebuilds a real sharded model (a directory holding its
// config.json and model.safetensors.index.json) into dir as sparse shards:
// the index's names and shard assignment, with the shapes our spec derives
// from the config, and the quantizers' auxiliary tensors as they store
// them (FP8 block scales in the config dtype, bitsandbytes SCB rows in F32
// and weight_format scalars). It returns the tensor bytes written, which
// for a faithful spec equal the index's metadata.total_size.
func WriteRealSharded(dir, src string) (uint64, error) {
	return writeReal(dir, src, "model.safetensors.index.json", WriteSparseShards)
}

// WriteRealShardedTorch is WriteRealSharded for a real PyTorch index
// (config.json and pytorch_model.bin.index.json): sparse torch.save
// shards with the index's names.
func WriteRealShardedTorch(dir, src string) (uint64, error) {
	return writeReal(dir, src, "pytorch_model.bin.index.json", WriteSparseTorchShards)
}

func writeReal(dir, src, indexName string, write func(string, map[string]string, func(string) (string, []uint64)) (uint64, error)) (uint64, error) {
	for _, f := range []string{"config.json", indexName} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return 0, err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return 0, err
		}
	}
	raw, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return 0, err
	}
	plan, err := Plan(raw)
	if err != nil {
		return 0, err
	}
	raw, err = os.ReadFile(filepath.Join(dir, indexName))
	if err != nil {
		return 0, err
	}
	idx, err := safetensors.ParseIndex(indexName, raw)
	if err != nil {
		return 0, err
	}
	shapes := map[string][]uint64{}
	for _, e := range plan.Tensors {
		shapes[e.Name] = e.ShapeValues()
	}
	dtype := map[string]string{"bfloat16": "BF16", "float16": "F16", "float32": "F32"}[plan.DType]
	if dtype == "" {
		return 0, fmt.Errorf("config dtype %q", plan.DType)
	}
	wm := make(map[string]string, len(idx.Weights))
	for _, w := range idx.Weights {
		wm[w.Name] = w.Shard
	}
	var unknown []string
	total, err := write(dir, wm, func(n string) (string, []uint64) {
		i := strings.LastIndexByte(n, '.')
		base, last := n[:i], n[i+1:]
		w := shapes[base+".weight"]
		switch last {
		case "weight_scale_inv": // FP8: one scale per 128×128 block
			return dtype, []uint64{(w[0] + 127) / 128, (w[1] + 127) / 128}
		case "SCB": // bitsandbytes int8: one scale per output row
			return "F32", []uint64{w[0]}
		case "weight_format":
			return "U8", []uint64{}
		}
		s, ok := shapes[n]
		if !ok {
			unknown = append(unknown, n)
			return "U8", []uint64{0}
		}
		switch {
		case wm[base+".weight_scale_inv"] != "":
			return "F8_E4M3", s
		case wm[base+".SCB"] != "":
			return "I8", s
		}
		return dtype, s
	})
	if err == nil && len(unknown) > 0 {
		err = fmt.Errorf("the index names %d tensors the spec does not, e.g. %q", len(unknown), unknown[0])
	}
	return total, err
}
