package compare

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"

	"github.com/fsmount/fsmount/internal/decode"
)

var decodeFloat64 = decode.Float64

// Float is a float64 whose JSON is a number, or the string "NaN",
// "+Inf" or "-Inf", which JSON numbers cannot express.
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	x := float64(f)
	switch {
	case math.IsNaN(x):
		return []byte(`"NaN"`), nil
	case math.IsInf(x, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(x, -1):
		return []byte(`"-Inf"`), nil
	}
	return strconv.AppendFloat(nil, x, 'g', -1, 64), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		x, err := strconv.ParseFloat(s, 64)
		*f = Float(x)
		return err
	}
	var x float64
	err := json.Unmarshal(b, &x)
	*f = Float(x)
	return err
}

// Result is a finished comparison.
type Result struct {
	// Model and Other are the models' locations.
	Model string `json:"model"`
	Other string `json:"other"`
	// Entries are sorted by Name.
	Entries []Entry `json:"tensors"`
	// AuxModel and AuxOther are the quantization companions (scales,
	// zeros, g_idx, SCB), sorted: read by their weight's decoder, not
	// compared themselves.
	AuxModel []string `json:"aux_model,omitempty"`
	AuxOther []string `json:"aux_other,omitempty"`
}

// Entry returns the entry of name, or nil.
func (r *Result) Entry(name string) *Entry {
	i := sort.Search(len(r.Entries), func(i int) bool { return r.Entries[i].Name >= name })
	if i < len(r.Entries) && r.Entries[i].Name == name {
		return &r.Entries[i]
	}
	return nil
}

// OnlyInModel returns the names only MODEL has, sorted.
func (r *Result) OnlyInModel() []string { return r.names(OnlyModel) }

// OnlyInOther returns the names only OTHER has, sorted.
func (r *Result) OnlyInOther() []string { return r.names(OnlyOther) }

func (r *Result) names(s Status) []string {
	var out []string
	for _, e := range r.Entries {
		if e.Status == s {
			out = append(out, e.Name)
		}
	}
	return out
}

// Within reports whether the models agree to tol: the name sets match
// (a prefix or tied match counts as a match; companions are not names),
// no shape changed, every value was read, and every pair has relative
// L2 ≤ tol and no NaN or infinity where the other has something else.
// Within(0) holds exactly when every pair is equal as numbers.
func (r *Result) Within(tol float64) bool {
	for _, e := range r.Entries {
		if !e.Compared() || e.NonFinite > 0 || !(float64(e.RelL2) <= tol) {
			return false
		}
	}
	return true
}

// Counts are the number of entries of each status.
func (r *Result) Counts() map[Status]int {
	c := map[Status]int{}
	for _, e := range r.Entries {
		c[e.Status]++
	}
	return c
}

// JSON returns the result as indented JSON: the fields of Result and
// Entry as their tags name them, non-finite figures as strings.
func (r *Result) JSON() ([]byte, error) {
	type counts struct {
		Identical int `json:"identical"`
		Equal     int `json:"equal"`
		Differs   int `json:"differs"`
		Shape     int `json:"shape_changed"`
		OnlyModel int `json:"only_model"`
		OnlyOther int `json:"only_other"`
		Error     int `json:"error"`
	}
	c := r.Counts()
	out := struct {
		*Result
		Counts counts `json:"counts"`
		Within bool   `json:"within_0"`
	}{r, counts{c[Identical], c[Equal], c[Differs], c[ShapeChanged], c[OnlyModel], c[OnlyOther], c[Error]}, r.Within(0)}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Text returns the summary table (see the package doc), the bytes of the
// mount's compare/summary.
func (r *Result) Text() string {
	es := make([]*Entry, len(r.Entries))
	for i := range r.Entries {
		es[i] = &r.Entries[i]
	}
	return string(newLayout(es).render(es))
}
