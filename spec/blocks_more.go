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
	for i, t := range ts {
		t.Shape = append([]string(nil), t.Shape...)
		for k := 0; k+1 < len(pairs); k += 2 {
			re := regexp.MustCompile(`\b` + regexp.QuoteMeta(pairs[k]) + `\b`)
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
