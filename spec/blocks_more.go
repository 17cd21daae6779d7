package spec

import (
	"encoding/json"
	"math"
	"regexp"
	"strings"
)

// Helpers of the families of families_ssm.go, families_encoder.go and
// families_vision.go, on top of blocks.go.

// renameSyms returns ts with the symbol from replaced by to in every
// expression (shapes, conditions, expert counts): a block written with
// "I" reused where the width is another symbol.
func renameSyms(ts []T, pairs ...string) []T {
	out := make([]T, len(ts))
	res := make([]*regexp.Regexp, len(pairs)/2) // compiled once: at init, for every family
	for k := range res {
		res[k] = regexp.MustCompile(`\b` + regexp.QuoteMeta(pairs[2*k]) + `\b`)
	}
	for i, t := range ts {
		t.Shape = append([]string(nil), t.Shape...)
		for k := 0; k+1 < len(pairs); k += 2 {
			re := res[k/2]
			for j := range t.Shape {
				t.Shape[j] = re.ReplaceAllString(t.Shape[j], pairs[k+1])
			}
			t.If = re.ReplaceAllString(t.If, pairs[k+1])
			t.Optional = re.ReplaceAllString(t.Optional, pairs[k+1])
			t.Experts = re.ReplaceAllString(t.Experts, pairs[k+1])
		}
		out[i] = t
	}
	return out
}

// rebase returns name with its first matching prefix replaced.
func rebase(name string, pairs [][2]string) string {
	for _, p := range pairs {
		if strings.HasPrefix(name, p[0]) {
			return p[1] + name[len(p[0]):]
		}
	}
	return name
}

// Milli is a definition's type: a number read in thousandths (0.5 is 500),
// for the fractional fields shapes depend on (InternVL's
// downsample_ratio).
const Milli = Str + 2

// milliValue reads a Milli: round(1000·x) of a non-negative number.
func (c *Config) milliValue(field string, raw json.RawMessage) (any, error) {
	var x float64
	if err := json.Unmarshal(raw, &x); err != nil || x < 0 || x > 1e12 {
		return nil, c.errorf(field, "must be a non-negative number, found %s", kindOf(raw))
	}
	return int64(math.Round(x * 1000)), nil
}

// Count is a definition's type: the number of entries of an array, 1 for
// a single value (vision_feature_layer: one layer, or several whose
// features are concatenated).
const Count = Str + 1

// IntOrList is a definition's type: a number, or an array of them (one
// per layer: Gemma 3n's intermediate_size); pick(x, l) reads either.
const IntOrList = Str + 3

// countValue reads a Count: an array's length, else 1 for a number.
func (c *Config) countValue(field string, raw json.RawMessage) (any, error) {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) == nil {
		if len(items) == 0 {
			return nil, c.errorf(field, "is an empty array")
		}
		return int64(len(items)), nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, c.errorf(field, "must be a number or an array, found %s", kindOf(raw))
	}
	return int64(1), nil
}

// expertBiases are the biases [Im] and [H] of E expert MLPs of
// expertMLPs' names, where cond holds (DeepSeek-V2's mlp_bias).
func expertBiases(pre, gate, up, down, cond string) []T {
	return []T{
		{Name: pre + "{e}." + gate + ".bias", Shape: []string{"Im"}, Role: RoleBias, Experts: "E", If: cond},
		{Name: pre + "{e}." + up + ".bias", Shape: []string{"Im"}, Role: RoleBias, Experts: "E", If: cond},
		{Name: pre + "{e}." + down + ".bias", Shape: []string{"H"}, Role: RoleBias, Experts: "E", If: cond},
	}
}

// gatedMLPBiases are the biases of gatedMLP(pre, I, …) alone.
func gatedMLPBiases(pre, I string) []T {
	return []T{{Name: pre + "gate_proj.bias", Shape: []string{I}, Role: RoleBias},
		{Name: pre + "up_proj.bias", Shape: []string{I}, Role: RoleBias}, {Name: pre + "down_proj.bias", Shape: []string{"H"}, Role: RoleBias}}
}

// sized gives the core dimensions (V, H, L, heads, I, …: sym, default
// pairs) their config class's defaults, so that a config.json of only
// model_type describes the full-size model, as transformers reads it. An
// explicit null stays refused.
func sized(defs []Def, pairs ...string) []Def {
	out := append([]Def(nil), defs...)
	for k := 0; k+1 < len(pairs); k += 2 {
		found := false
		for i := range out {
			if out[i].Sym == pairs[k] {
				out[i].Default, found = pairs[k+1], true
			}
		}
		if !found {
			panic("sized: no definition " + pairs[k])
		}
	}
	return out
}

// replaceDef returns defs with the definition of d.Sym replaced by d.
func replaceDef(defs []Def, d Def) []Def {
	out := append([]Def(nil), defs...)
	for i := range out {
		if out[i].Sym == d.Sym {
			out[i] = d
			return out
		}
	}
	panic("replaceDef: no definition " + d.Sym)
}

// mllamaCross is MllamaTextConfig's cross_attention_layers when absent.
const mllamaCross = "list(3, 8, 13, 18, 23, 28, 33, 38)"
