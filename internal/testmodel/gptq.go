package testmodel

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/spec"
)

// GPTQ describes a GPTQ layout: the bits and group size of
// quantization_config (reference §2.3).
type GPTQ struct {
	Bits, GroupSize uint64
}

// gptqShards is how many shards WriteGPTQSharded spreads the tensors over.
const gptqShards = 8

// WriteGPTQSharded writes into dir the config.json at configPath, a
// model.safetensors.index.json and sparse shards in the layout AutoGPTQ
// stores (reference §2.3): every linear layer of the blocks except the MoE
// router becomes qweight I32 [in·bits/32, out], qzeros I32 [groups,
// out·bits/32], scales F16 [groups, out] and g_idx I32 [in], with groups =
// ceil(in / group_size); embeddings, norms, the router and lm_head stay in
// the config dtype. It returns the layout's quantization settings.
func WriteGPTQSharded(dir, configPath string) (GPTQ, error) {
	raw, err := os.ReadFile(configPath)
	if err != nil {
		return GPTQ{}, err
	}
	var q struct {
		QC struct {
			Bits      uint64 `json:"bits"`
			GroupSize int64  `json:"group_size"`
			Method    string `json:"quant_method"`
		} `json:"quantization_config"`
	}
	if err := json.Unmarshal(raw, &q); err != nil {
		return GPTQ{}, err
	}
	if q.QC.Method != "gptq" || q.QC.Bits == 0 || 32%q.QC.Bits != 0 {
		return GPTQ{}, fmt.Errorf("%s: not a GPTQ config with 2, 4 or 8 bits", configPath)
	}
	g := GPTQ{Bits: q.QC.Bits, GroupSize: uint64(max(q.QC.GroupSize, 0))}
	cfg, err := spec.ParseConfig(configPath, raw)
	if err != nil {
		return g, err
	}
	plan, err := spec.Expect(cfg)
	if err != nil {
		return g, err
	}
	dtype := map[string]string{"bfloat16": "BF16", "float16": "F16", "float32": "F32"}[plan.DType]
	type ent struct {
		dtype string
		shape []uint64
	}
	tensors := map[string]ent{}
	for _, e := range plan.Tensors {
		s := e.ShapeValues()
		if e.Role != spec.RoleLinear || e.Layer < 0 {
			if !e.Optional {
				tensors[e.Name] = ent{dtype, s}
			}
			continue
		}
		out, in := s[0], s[1]
		group := g.GroupSize
		if group == 0 {
			group = in
		}
		groups := (in + group - 1) / group
		base := strings.TrimSuffix(e.Name, ".weight")
		tensors[base+".qweight"] = ent{"I32", []uint64{in * g.Bits / 32, out}}
		tensors[base+".qzeros"] = ent{"I32", []uint64{groups, out * g.Bits / 32}}
		tensors[base+".scales"] = ent{"F16", []uint64{groups, out}}
		tensors[base+".g_idx"] = ent{"I32", []uint64{in}}
	}
	wm := make(map[string]string, len(tensors))
	i := 0
	for name := range tensors {
		wm[name] = fmt.Sprintf("model-%05d-of-%05d.safetensors", i%gptqShards+1, gptqShards)
		i++
	}
	total, err := WriteSparseShards(dir, wm, func(n string) (string, []uint64) { return tensors[n].dtype, tensors[n].shape })
	if err != nil {
		return g, err
	}
	idx, err := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": total}, "weight_map": wm})
	if err != nil {
		return g, err
	}
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), idx, 0o644); err != nil {
		return g, err
	}
	return g, os.WriteFile(filepath.Join(dir, "config.json"), raw, 0o644)
}
