package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// Config is a parsed config.json. Fields are read on demand by the
// architecture that needs them, so that an error names exactly the field
// that is missing or mistyped.
type Config struct {
	// Path is the file the config was read from.
	Path string
	// Raw is the file's bytes, unchanged.
	Raw    []byte
	fields map[string]json.RawMessage
}

// ConfigError reports a config.json field that is missing, of the wrong
// type, or out of range.
type ConfigError struct {
	Path  string
	Field string
	Msg   string
}

func (e *ConfigError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", e.Path, e.Msg)
	}
	return fmt.Sprintf("%s: field %q %s", e.Path, e.Field, e.Msg)
}

// ParseConfig parses config.json bytes; path is used in messages only.
// The file must be one JSON object and nothing after it but whitespace,
// as Python's json.loads requires (encoding/json's Decoder would stop
// after the object and accept trailing garbage).
//
// Python's json writes (and transformers reads back) the non-standard
// Infinity, -Infinity and NaN (Mamba2's time_step_limit is [0.0,
// Infinity]); they are accepted here, and only here, as Python does.
func ParseConfig(path string, raw []byte) (*Config, error) {
	c := &Config{Path: path, Raw: raw}
	if err := json.Unmarshal(raw, &c.fields); err != nil {
		fixed, ok := pythonNonFinite(raw)
		if !ok || json.Unmarshal(fixed, &c.fields) != nil {
			return nil, &ConfigError{Path: path, Msg: "not a JSON object: " + err.Error()}
		}
	}
	if c.fields == nil {
		return nil, &ConfigError{Path: path, Msg: "not a JSON object"}
	}
	return c, nil
}

// Has reports whether the field is present and not null.
func (c *Config) Has(field string) bool {
	v, ok := c.fields[field]
	return ok && string(v) != "null"
}

func (c *Config) errorf(field, format string, args ...any) error {
	return &ConfigError{Path: c.Path, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// maxDim bounds every size read from a config, so that an absurd value is
// an error rather than an attempt to allocate or to loop 10^12 times. The
// largest real vocabularies and widths are below 2^20.
const maxDim = 1 << 24

// Int returns a required non-negative integer field, at most maxDim.
func (c *Config) Int(field string) (uint64, error) {
	v, ok := c.fields[field]
	if !ok || string(v) == "null" {
		return 0, c.errorf(field, "is missing")
	}
	return c.parseInt(field, v)
}

// IntOr returns an optional integer field, or def when it is absent or null.
func (c *Config) IntOr(field string, def uint64) (uint64, error) {
	if !c.Has(field) {
		return def, nil
	}
	return c.parseInt(field, c.fields[field])
}

func (c *Config) parseInt(field string, v json.RawMessage) (uint64, error) {
	var n json.Number
	if t := bytes.TrimSpace(v); len(t) == 0 || t[0] == '"' || json.Unmarshal(t, &n) != nil {
		return 0, c.errorf(field, "must be an integer, found %s", kindOf(v))
	}
	switch string(n) {
	case posInf, negInf, nan:
		return 0, c.errorf(field, "must be an integer, found %s", kindOf(v))
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		// 128.0 or 1e3 is a float to Python's json, and transformers
		// cannot build a layer from a float size: refuse it, saying so.
		f, ferr := strconv.ParseFloat(string(n), 64)
		switch {
		case ferr == nil && f == math.Trunc(f) && math.Abs(f) > maxDim:
			return 0, c.errorf(field, "is %s, more than the %d any real model uses", n, maxDim)
		case ferr == nil && f == math.Trunc(f):
			return 0, c.errorf(field, "must be an integer, found %s, which Python's json reads as a float (transformers cannot use a float size)", n)
		}
		return 0, c.errorf(field, "must be an integer, found %s", n)
	}
	if i < 0 {
		return 0, c.errorf(field, "must not be negative, found %d", i)
	}
	if i > maxDim {
		return 0, c.errorf(field, "is %d, more than the %d any real model uses", i, maxDim)
	}
	return uint64(i), nil
}

// BoolOr returns an optional boolean field, or def when absent or null.
func (c *Config) BoolOr(field string, def bool) (bool, error) {
	if !c.Has(field) {
		return def, nil
	}
	var b bool
	if err := json.Unmarshal(c.fields[field], &b); err != nil {
		return false, c.errorf(field, "must be true or false, found %s", kindOf(c.fields[field]))
	}
	return b, nil
}

// StringOr returns an optional string field, or def when absent or null.
func (c *Config) StringOr(field, def string) (string, error) {
	if !c.Has(field) {
		return def, nil
	}
	var s string
	if err := json.Unmarshal(c.fields[field], &s); err != nil {
		return "", c.errorf(field, "must be a string, found %s", kindOf(c.fields[field]))
	}
	return s, nil
}

// IntsOr returns an optional array of integers, or nil when absent or null.
func (c *Config) IntsOr(field string) ([]uint64, error) {
	if !c.Has(field) {
		return nil, nil
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(c.fields[field], &raw); err != nil {
		return nil, c.errorf(field, "must be an array of integers, found %s", kindOf(c.fields[field]))
	}
	out := make([]uint64, 0, len(raw))
	for _, r := range raw {
		v, err := c.parseInt(field, r)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

// Architecture returns the first entry of "architectures", such as
// "Qwen3ForCausalLM", or "".
func (c *Config) Architecture() string {
	var archs []string
	if v, ok := c.fields["architectures"]; ok && json.Unmarshal(v, &archs) == nil && len(archs) > 0 {
		return archs[0]
	}
	return ""
}

// ModelType returns "model_type", such as "qwen3", or "".
func (c *Config) ModelType() string {
	s, _ := c.StringOr("model_type", "")
	return s
}

// DType returns the declared dtype: "torch_dtype", or "dtype" as written by
// transformers 4.56 and later, or "" if neither is set.
func (c *Config) DType() (string, error) {
	for _, f := range []string{"torch_dtype", "dtype"} {
		if c.Has(f) {
			return c.StringOr(f, "")
		}
	}
	return "", nil
}

// Stand-ins for Python's non-finite literals: numbers no real config
// writes, valid JSON, that no integer field accepts; kindOf names them
// as Python wrote them.
const (
	posInf = "1e999"
	negInf = "-1e999"
	nan    = "1e9999"
)

// pythonNonFinite rewrites the bare tokens Infinity, -Infinity and NaN
// (outside strings) as stand-in numbers; it reports false when there is
// none.
func pythonNonFinite(raw []byte) ([]byte, bool) {
	var out []byte
	found := false
	inString := false
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if inString {
			out = append(out, c)
			switch c {
			case '\\':
				if i+1 < len(raw) {
					i++
					out = append(out, raw[i])
				}
			case '"':
				inString = false
			}
			continue
		}
		rest := raw[i:]
		switch {
		case c == '"':
			inString = true
		case bytes.HasPrefix(rest, []byte("-Infinity")):
			out, found = append(out, negInf...), true
			i += len("-Infinity") - 1
			continue
		case bytes.HasPrefix(rest, []byte("Infinity")):
			out, found = append(out, posInf...), true
			i += len("Infinity") - 1
			continue
		case bytes.HasPrefix(rest, []byte("NaN")):
			out, found = append(out, nan...), true
			i += len("NaN") - 1
			continue
		}
		out = append(out, c)
	}
	return out, found
}

func kindOf(v json.RawMessage) string {
	switch t := bytes.TrimSpace(v); {
	case len(t) == 0:
		return "nothing"
	case t[0] == '"':
		return "a string " + string(t)
	case t[0] == '{':
		return "an object"
	case t[0] == '[':
		return "an array"
	case t[0] == 't' || t[0] == 'f':
		return "a boolean"
	case t[0] == 'n':
		return "null"
	case string(t) == posInf:
		return "Infinity"
	case string(t) == negInf:
		return "-Infinity"
	case string(t) == nan:
		return "NaN"
	default:
		return "the number " + string(t)
	}
}

// FirstInt returns the first of fields (dotted paths) that the config
// sets to a positive integer, and its name; 0 and "" when none does.
func (c *Config) FirstInt(fields ...string) (uint64, string) {
	for _, f := range fields {
		if raw, ok := c.lookup(f); ok && string(raw) != "null" {
			if v, err := c.parseInt(f, raw); err == nil && v > 0 {
				return v, f
			}
		}
	}
	return 0, ""
}

// aliased finds an absent field under another name its config class's
// attribute_map gives it (attributeMaps, read from the object's own
// model_type): transformers 5.x writes some attributes under the other
// name (num_local_experts for Qwen3-MoE's num_experts), and a config.json
// key of the map sets the attribute it names, in both versions.
func aliased(fields map[string]json.RawMessage, key string) (json.RawMessage, bool) {
	var mt string
	if json.Unmarshal(fields["model_type"], &mt) != nil {
		return nil, false
	}
	am := attributeMaps[mt]
	if am == nil {
		return nil, false
	}
	var names []string
	names = append(names, am[key]...)
	for k, attrs := range am {
		if slices.Contains(attrs, key) {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		if v, ok := fields[n]; ok {
			return v, true
		}
	}
	return nil, false
}
