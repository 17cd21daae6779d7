package adapter

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/spec"
	"github.com/fsmount/fsmount/tensor"
)

// alone derives what the adapter determines without its base: each
// adapted module's pair with the ranks the config gives it, DoRA's
// magnitude where the config says DoRA, the same modules in every
// adapted layer, and the same shapes for a module in every layer.
func (r *Report) alone(stored map[string]*tensor.Tensor, mods map[string]*Module) []want {
	c := r.Adapter.Config
	toSave := c.ToSave()
	var wants []want
	// template: the key with its layer number replaced by "{}".
	type tmpl struct {
		layers map[int]*Module
	}
	tmpls := map[string]*tmpl{}
	layers := map[int]bool{}
	for _, k := range slices.Sorted(maps.Keys(mods)) {
		m := mods[k]
		if !c.AllLinear && !c.Targeted(k, toSave, nil) {
			continue // its tensors are then unexpected
		}
		wants = append(wants, r.pairWants(m, nil)...)
		if m.Layer < 0 {
			continue
		}
		layers[m.Layer] = true
		t := layerTemplate(k, m.Layer)
		if tmpls[t] == nil {
			tmpls[t] = &tmpl{layers: map[int]*Module{}}
		}
		tmpls[t].layers[m.Layer] = m
	}
	for _, t := range slices.Sorted(maps.Keys(tmpls)) {
		tp := tmpls[t]
		// The shapes of the module in most layers stand for the others.
		ref := majority(tp.layers)
		for _, l := range slices.Sorted(maps.Keys(layers)) {
			key := strings.Replace(t, "{}", strconv.Itoa(l), 1)
			if m := tp.layers[l]; m != nil {
				if ref != nil && m != ref {
					wants = append(wants, r.pairWants(m, ref)...)
				}
				continue
			}
			if !c.AllLinear && !c.Targeted(key, toSave, nil) || ref == nil {
				continue
			}
			// A layer the adapter adapts elsewhere lacks this module.
			mm := &Module{Key: key, Kind: ref.Kind, Layer: l, Rank: c.Rank(key)}
			mm.A, mm.B = ref.A, ref.B
			for _, w := range r.pairWants(mm, ref) {
				if !w.optional {
					wants = append(wants, w)
				}
			}
		}
	}
	// The other tensors PEFT saves: modules_to_save copies, biases the
	// bias mode keeps, an adapted embedding's weight; their shapes are
	// the base's, unknown here.
	for _, k := range slices.Sorted(maps.Keys(stored)) {
		rel, ok := strings.CutPrefix(k, Prefix)
		if _, part := split(rel); !ok || part != "" {
			continue
		}
		t := stored[k]
		mod := rel[:max(0, strings.LastIndexByte(rel, '.'))]
		keep := false
		for _, s := range toSave {
			if strings.HasSuffix(mod, s) || strings.Contains(mod, s+".") {
				keep = true
			}
		}
		switch {
		case strings.HasSuffix(rel, ".bias") && c.Bias == "all":
			keep = true
		case strings.HasSuffix(rel, ".bias") && c.Bias == "lora_only" && mods[strings.TrimSuffix(rel, ".bias")] != nil:
			keep = true // an old PEFT's (see expect)
		case strings.HasSuffix(rel, ".base_layer.weight") && mods[strings.TrimSuffix(rel, ".base_layer.weight")] != nil && mods[strings.TrimSuffix(rel, ".base_layer.weight")].Kind == KindEmbedding:
			keep = true
		}
		if keep {
			wants = append(wants, want{name: k, shape: shapeDims(t.Shape)})
		}
	}
	// pairWants may list a tensor twice (once alone, once against the
	// majority): the shape checked against the majority wins.
	seen := map[string]int{}
	var out []want
	for _, w := range wants {
		if i, ok := seen[w.name]; ok {
			out[i] = w
			continue
		}
		seen[w.name] = len(out)
		out = append(out, w)
	}
	return out
}

// layerTemplate replaces key's layer number by "{}".
func layerTemplate(key string, layer int) string {
	loc := anyLayer.FindStringSubmatchIndex(key)
	if loc == nil {
		return key
	}
	return key[:loc[2]] + "{}" + key[loc[3]:]
}

// majority returns the module whose A and B shapes most layers share.
func majority(ms map[int]*Module) *Module {
	count := map[string]int{}
	var best *Module
	bestN := 0
	for _, l := range slices.Sorted(maps.Keys(ms)) {
		m := ms[l]
		if m.A == nil || m.B == nil {
			continue
		}
		k := fmt.Sprint(m.A.Shape[min(1, len(m.A.Shape)-1):], m.B.Shape[:1])
		count[k]++
		if count[k] > bestN {
			best, bestN = m, count[k]
		}
	}
	return best
}

// pairWants returns the tensors of module m: its A and B with the rank
// the config gives it; their other dimensions m's own, or ref's when ref
// is set (the module in the other layers).
func (r *Report) pairWants(m *Module, ref *Module) []want {
	c := r.Adapter.Config
	p := Prefix + m.Key
	rk := uint64(c.Rank(m.Key))
	src := m
	if ref != nil {
		src = ref
	}
	aName, bName := p+".lora_A.weight", p+".lora_B.weight"
	if m.Kind == KindEmbedding {
		aName, bName = p+".lora_embedding_A", p+".lora_embedding_B"
	}
	var ws []want
	var out uint64
	if c.EnableLoRA != nil && (m.Kind == KindLinear || m.Kind == KindConv1D) {
		// An old PEFT's MergedLinear (see mergedWants).
		n, k := uint64(len(c.EnableLoRA)), enabled(c.EnableLoRA)
		if k == 0 {
			return nil
		}
		var in, o uint64
		if a := src.A; a != nil && len(a.Shape) >= 2 {
			in = a.Shape[1]
		}
		if b := src.B; b != nil && len(b.Shape) >= 1 {
			o = b.Shape[0]
		}
		return []want{
			{name: aName, shape: []spec.Dim{{Sym: fmt.Sprintf("%d·r", k), Val: k * rk}, {Sym: "in", Val: in}}},
			{name: bName, shape: []spec.Dim{{Sym: fmt.Sprintf("%d·out/%d", k, n), Val: o}, {Sym: fmt.Sprintf("%d·r/2", k), Val: k * rk / 2}, {Sym: "1", Val: 1}}},
		}
	}
	if a := src.A; a != nil && len(a.Shape) >= 2 {
		d := dims("r", rk, "in", a.Shape[1])
		for i, k := range a.Shape[2:] {
			d = append(d, spec.Dim{Sym: fmt.Sprintf("k%d", i), Val: k})
		}
		ws = append(ws, want{name: aName, shape: d})
	} else {
		ws = append(ws, want{name: aName, shape: dims("r", rk, "in", 0)})
	}
	if b := src.B; b != nil && len(b.Shape) >= 2 {
		out = b.Shape[0]
		d := dims("out", b.Shape[0], "r", rk)
		for range b.Shape[2:] {
			d = append(d, spec.Dim{Sym: "1", Val: 1})
		}
		ws = append(ws, want{name: bName, shape: d})
	} else {
		ws = append(ws, want{name: bName, shape: dims("out", 0, "r", rk)})
	}
	if c.UseDoRA && m.Kind != KindEmbedding {
		ws = append(ws, want{name: p + ".lora_magnitude_vector", shape: dims("out", out)})
	}
	if c.LoRABias && m.Kind != KindEmbedding {
		ws = append(ws, want{name: p + ".lora_B.bias", shape: dims("out", out)})
	}
	return ws
}
