package compare

import (
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/internal/decode"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/tensor"
)

// auxSuffixes are the quantization companions: read by the decoder of
// the weight beside them, never compared as tensors of their own.
// Where the quantization rules are understood, views.Companions says
// which tensors are companions; these are for the rest.
var auxSuffixes = []string{
	".weight_scale_inv", ".weight_scale", ".input_scale", ".scales", ".qzeros",
	".g_idx", ".SCB", ".weight_format", ".weight_global_scale", ".input_global_scale",
	".weight_scale_2", ".weight_shape", ".weight_zero_point", ".weight_g_idx",
}

// isAux reports whether name is a quantization companion.
func isAux(name string) bool {
	for _, s := range auxSuffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}

// prefix is the one prefix that checkpoints of one model disagree on:
// transformers' base-model prefix, present when a *ForCausalLM saves and
// absent when the bare model does.
const prefix = "model."

func canonical(name string) string { return strings.TrimPrefix(name, prefix) }

// headNames and embedNames are the canonical names of an output head and
// of the input embedding it may be tied to (transformers, GGUF).
var (
	headNames  = map[string]bool{"lm_head.weight": true, "output.weight": true, "embed_out.weight": true}
	embedNames = map[string]bool{"embed_tokens.weight": true, "token_embd.weight": true,
		"transformer.wte.weight": true, "gpt_neox.embed_in.weight": true, "wte.weight": true}
)

// modelConfig is what the comparison reads of config.json.
type modelConfig struct {
	Tie *bool `json:"tie_word_embeddings"`
}

func readConfig(m *model.Model) modelConfig {
	var c modelConfig
	if len(m.Config) > 0 {
		// A config that does not parse is the report's problem; here it
		// only means no block size and no tie.
		_ = json.Unmarshal(m.Config, &c)
	}
	return c
}

// tied reports whether m may tie its head to its embedding: its config
// does not say tie_word_embeddings false.
func tied(m *model.Model) bool {
	cfg := readConfig(m)
	return cfg.Tie == nil || *cfg.Tie
}

// side is one model's tensor of a pair, with the decoder of its values.
type side struct {
	t     *tensor.Tensor // the stored tensor (an FP8 or packed weight itself)
	dec   *decode.Decoder
	err   error  // why the values cannot be decoded
	plain bool   // the values are the stored elements, esz bytes each
	esz   int    // bytes per element when plain
	how   string // how the values are made, when not plain
}

// shape is the decoded shape (the stored one when not decodable).
func (s *side) shape() []uint64 {
	if s.dec != nil {
		return s.dec.Shape()
	}
	return s.t.Shape
}

// sides builds the sides of one model: a logical name (the weight's,
// for a packed qweight) to its side. Companions are returned apart.
type sideSet struct {
	byName map[string]*side
	names  []string // sorted
	aux    []string // sorted
}

func newSideSet(m *model.Model, block [2]uint64) *sideSet {
	comp := views.NewCompanionsFS(m.Tensor, m.Config, m.Source).WithBlock(block)
	ss := &sideSet{byName: map[string]*side{}}
	for _, t := range m.Tensors() {
		name := t.Name
		if isAux(name) || comp.Aux(name) {
			ss.aux = append(ss.aux, name)
			continue
		}
		s := &side{t: t}
		w, werr := comp.Weight(t)
		switch {
		case werr != nil:
			s.err = werr
			if b, ok := strings.CutSuffix(t.Name, ".qweight"); ok {
				name = b + ".weight"
			} else if b, ok := strings.CutSuffix(t.Name, ".weight_packed"); ok {
				name = b + ".weight"
			}
		case w != nil && w.Scale != nil:
			name = w.Name
			s.dec, s.err = decode.NewScaled(t, w.Scale, w.Block)
			s.how = w.How
		case w != nil:
			name = w.Name
			s.dec, s.how = w.Decoder, w.How
		default:
			s.dec, s.err = decode.NewDecoder(t)
			s.plain = s.err == nil && t.DType.BlockElems() == 1 && !s.dec.Dequantized()
			if s.plain {
				s.esz = int(t.DType.BlockBytes())
			}
		}
		if s.err != nil {
			s.dec = nil
		}
		if m.Names != nil {
			// A GGUF tensor pairs with the Hugging Face tensor it was
			// converted from, its rows restored where the converter
			// permuted them.
			if hf, ok := m.Names.HF(t.Name); ok {
				name = hf
				if s.dec != nil {
					if rowOf := m.GGUFRows(hf, s.dec.Shape()); rowOf != nil {
						s.dec, s.plain = s.dec.WithRows(rowOf), false
						s.how = strings.TrimPrefix(s.how+"; ", "; ") + "rows unpermuted (llama.cpp's Q/K order)"
					}
				}
			}
		}
		if _, dup := ss.byName[name]; dup {
			// A qweight and a weight of one name: keep the stored weight.
			continue
		}
		ss.byName[name] = s
	}
	for n := range ss.byName {
		ss.names = append(ss.names, n)
	}
	sort.Strings(ss.names)
	return ss
}

// How a pair's names were matched.
const (
	MatchExact  = ""       // the same name in both
	MatchPrefix = "prefix" // the same but for the "model." prefix
	MatchTied   = "tied"   // a head against the other's embedding
)

// match pairs the logical names of the two models: exactly; then, among
// the names left, those equal but for the "model." prefix when the
// pairing is one to one; then the tied head.
type matched struct {
	model, other string // "" when only in one
	how          string
}

func matchNames(ms, os *sideSet, modelTied, otherTied bool) []matched {
	var out []matched
	leftM, leftO := map[string]bool{}, map[string]bool{}
	for _, n := range ms.names {
		if os.byName[n] != nil {
			out = append(out, matched{model: n, other: n})
		} else {
			leftM[n] = true
		}
	}
	for _, n := range os.names {
		if ms.byName[n] == nil {
			leftO[n] = true
		}
	}
	byCanon := func(left map[string]bool) map[string][]string {
		c := map[string][]string{}
		for n := range left {
			c[canonical(n)] = append(c[canonical(n)], n)
		}
		return c
	}
	cm, co := byCanon(leftM), byCanon(leftO)
	for c, mn := range cm {
		if on := co[c]; len(mn) == 1 && len(on) == 1 {
			out = append(out, matched{model: mn[0], other: on[0], how: MatchPrefix})
			delete(leftM, mn[0])
			delete(leftO, on[0])
		}
	}
	// The tied head: one side has a head, the other none (and does not
	// declare tie_word_embeddings false) but an embedding.
	find := func(ss *sideSet, names map[string]bool) string {
		for _, n := range ss.names {
			if names[canonical(n)] {
				return n
			}
		}
		return ""
	}
	hm, ho := find(ms, headNames), find(os, headNames)
	switch {
	case hm != "" && ho == "" && leftM[hm] && otherTied:
		if e := find(os, embedNames); e != "" {
			out = append(out, matched{model: hm, other: e, how: MatchTied})
			delete(leftM, hm)
		}
	case ho != "" && hm == "" && leftO[ho] && modelTied:
		if e := find(ms, embedNames); e != "" {
			out = append(out, matched{model: e, other: ho, how: MatchTied})
			delete(leftO, ho)
		}
	}
	for n := range leftM {
		out = append(out, matched{model: n})
	}
	for n := range leftO {
		out = append(out, matched{other: n})
	}
	return out
}

// Groups, in the order of the report: the globals, each layer, the finals.
var layerRe = regexp.MustCompile(`(?:^|\.)(?:layers|layer|h|blk|block|blocks)\.(\d+)\.`)

var finalPrefixes = []string{"norm.", "lm_head.", "output.", "output_norm.", "final_layernorm.", "final_norm.",
	"ln_f.", "transformer.ln_f.", "embed_out.", "gpt_neox.final_layer_norm."}

// group returns the group of a name: -1 globals, a layer number, or
// finalGroup.
func group(name string) int {
	if m := layerRe.FindStringSubmatch(name); m != nil {
		if l, err := strconv.Atoi(m[1]); err == nil && l < finalGroup {
			return l
		}
	}
	c := canonical(name)
	for _, p := range finalPrefixes {
		if strings.HasPrefix(c, p) {
			return finalGroup
		}
	}
	return -1
}

const finalGroup = 1 << 30

func groupLabel(g int) string {
	switch g {
	case -1:
		return "global"
	case finalGroup:
		return "final"
	}
	return "layer " + strconv.Itoa(g)
}
