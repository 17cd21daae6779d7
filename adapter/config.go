package adapter

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// ConfigError is an adapter_config.json that cannot be used.
type ConfigError struct {
	Path  string
	Field string // "" when the file as a whole is wrong
	Msg   string
}

func (e *ConfigError) Error() string {
	if e.Field == "" {
		return e.Path + ": " + e.Msg
	}
	return e.Path + ": " + e.Field + " " + e.Msg
}

// Config is the part of adapter_config.json that decides the tensors.
type Config struct {
	Path string
	Raw  []byte

	PeftType string
	TaskType string
	Base     string // base_model_name_or_path
	Revision string

	R     int
	Alpha float64
	// Targets is target_modules as a list; TargetRegex is set instead
	// when it is a string (matched in full), AllLinear when that string
	// is "all-linear".
	Targets     []string
	TargetRegex *regexp.Regexp
	TargetText  string
	AllLinear   bool
	// Excludes is exclude_modules as a list, ExcludeRegex as a string.
	Excludes     []string
	ExcludeRegex *regexp.Regexp
	// Layers is layers_to_transform (nil: every layer); LayersPattern
	// is layers_pattern.
	Layers        []int
	LayersPattern []string
	layerRes      []*regexp.Regexp // LayersPattern compiled, in order (nil: not Go's syntax)

	RankPattern  []Pattern
	AlphaPattern []Pattern

	FanInFanOut   bool
	Bias          string // "none", "all", "lora_only"
	UseDoRA       bool
	UseRSLoRA     bool
	LoRABias      bool // lora_bias: lora_B has a bias
	ModulesToSave []string
	// TargetParameters is target_parameters (LoRA on nn.Parameter),
	// which this package does not derive.
	TargetParameters []string
	// EnableLoRA is an old PEFT's enable_lora (0.1 and 0.2): which of
	// the equal parts of a fused projection's output (query_key_value's
	// q, k, v) a MergedLinear adapts; nil when absent.
	EnableLoRA []bool
}

// MaxEnableLoRA bounds enable_lora's length (real ones have 3 parts).
const MaxEnableLoRA = 64

// Pattern is one key of rank_pattern or alpha_pattern with its value, in
// the file's order (PEFT takes the first key that matches).
type Pattern struct {
	Key   string
	re    *regexp.Regexp
	Value float64
}

// ConfigName is the name of the adapter's config file.
const ConfigName = "adapter_config.json"

// Bounds of the patterns and lists of a config, which are matched
// against every module of the base: a regular expression is at most
// maxPatternLen bytes and compiles to at most maxPatternInsts
// instructions, all of a config's to at most maxPatternsInsts, and a
// list (target_modules, exclude_modules, modules_to_save,
// layers_pattern, the keys of rank_pattern and alpha_pattern) holds at
// most maxListLen names. So the cost of matching a module is bounded
// by its name's length, and a check's by the base's size, whatever the
// config. Real configs are far within: a few names, or one expression
// of a hundred bytes.
const (
	maxPatternLen    = 4 << 10
	maxPatternInsts  = 4 << 10
	maxPatternsInsts = 32 << 10
	maxListLen       = 1 << 10
)

// patternBudget compiles a config's regular expressions within the
// bounds; bad makes the error of a field.
type patternBudget struct {
	insts int
	bad   func(field, format string, args ...any) error
}

// compile compiles expr, of field, as Go's regexp, refusing it past the
// bounds. wrapped is expr with what PEFT adds around it.
func (b *patternBudget) compile(field, expr, wrapped string) (*regexp.Regexp, error) {
	if len(expr) > maxPatternLen {
		return nil, b.bad(field, "is a regular expression of %d bytes; at most %d are read", len(expr), maxPatternLen)
	}
	re, err := syntax.Parse(wrapped, syntax.Perl)
	if err != nil {
		return nil, err
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, err
	}
	if n := len(prog.Inst); n > maxPatternInsts {
		return nil, b.bad(field, "is a regular expression of %d instructions once compiled; at most %d are read", n, maxPatternInsts)
	}
	if b.insts += len(prog.Inst); b.insts > maxPatternsInsts {
		return nil, b.bad(field, "takes the config's regular expressions past %d instructions once compiled; at most %d are read", maxPatternsInsts, maxPatternsInsts)
	}
	return regexp.Compile(wrapped)
}

// checkList refuses a list of more than maxListLen names.
func (b *patternBudget) checkList(field string, l []string) error {
	if len(l) > maxListLen {
		return b.bad(field, "lists %d names; at most %d are read", len(l), maxListLen)
	}
	return nil
}

// ParseConfig parses adapter_config.json strictly: a field that is there
// must have the type PEFT gives it.
func ParseConfig(path string, raw []byte) (*Config, error) {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, &ConfigError{Path: path, Msg: "not a JSON object: " + err.Error()}
	}
	c := &Config{Path: path, Raw: raw, Bias: "none"}
	bad := func(field, format string, args ...any) error {
		return &ConfigError{Path: path, Field: field, Msg: fmt.Sprintf(format, args...)}
	}
	has := func(k string) bool { v, ok := f[k]; return ok && string(bytes.TrimSpace(v)) != "null" }
	// the string and boolean fields: each, if there, of its JSON type
	for _, s := range []struct {
		k    string
		dst  any // *string or *bool
		want string
	}{
		{"peft_type", &c.PeftType, "a string"}, {"task_type", &c.TaskType, "a string"},
		{"base_model_name_or_path", &c.Base, "a string"}, {"revision", &c.Revision, "a string"}, {"bias", &c.Bias, "a string"},
		{"fan_in_fan_out", &c.FanInFanOut, "true or false"}, {"use_dora", &c.UseDoRA, "true or false"},
		{"use_rslora", &c.UseRSLoRA, "true or false"}, {"lora_bias", &c.LoRABias, "true or false"},
	} {
		if has(s.k) && json.Unmarshal(f[s.k], s.dst) != nil {
			return nil, bad(s.k, "must be %s", s.want)
		}
	}
	if c.PeftType == "" {
		return nil, bad("peft_type", "is missing")
	}
	if !strings.EqualFold(c.PeftType, "LORA") {
		return nil, bad("peft_type", "is %q: only LoRA adapters are read", c.PeftType)
	}
	switch c.Bias {
	case "none", "all", "lora_only":
	default:
		return nil, bad("bias", "is %q, not none, all or lora_only", c.Bias)
	}
	c.R = 8 // PEFT's default
	if has("r") {
		var r json.Number
		if json.Unmarshal(f["r"], &r) != nil {
			return nil, bad("r", "must be an integer")
		}
		n, err := r.Int64()
		if err != nil || n <= 0 || n > 1<<20 {
			return nil, bad("r", "must be a positive integer, found %s", r)
		}
		c.R = int(n)
	}
	c.Alpha = 8
	if has("lora_alpha") {
		if json.Unmarshal(f["lora_alpha"], &c.Alpha) != nil {
			return nil, bad("lora_alpha", "must be a number")
		}
	}
	var err error
	pb := &patternBudget{bad: bad}
	if c.Targets, c.TargetText, err = listOrString(f["target_modules"]); err != nil {
		return nil, bad("target_modules", "%v", err)
	}
	switch {
	case c.TargetText != "" && strings.EqualFold(c.TargetText, "all-linear"):
		c.AllLinear = true
	case c.TargetText != "":
		if c.TargetRegex, err = pb.compile("target_modules", c.TargetText, fullWrap(c.TargetText)); err != nil {
			return nil, notGo(bad, "target_modules", err)
		}
	}
	var exText string
	if c.Excludes, exText, err = listOrString(f["exclude_modules"]); err != nil {
		return nil, bad("exclude_modules", "%v", err)
	}
	if exText != "" {
		if c.ExcludeRegex, err = pb.compile("exclude_modules", exText, fullWrap(exText)); err != nil {
			return nil, notGo(bad, "exclude_modules", err)
		}
	}
	if c.ModulesToSave, _, err = listOrString(f["modules_to_save"]); err != nil {
		return nil, bad("modules_to_save", "%v", err)
	}
	if c.TargetParameters, _, err = listOrString(f["target_parameters"]); err != nil {
		return nil, bad("target_parameters", "%v", err)
	}
	for _, l := range []struct {
		field string
		l     []string
	}{{"target_modules", c.Targets}, {"exclude_modules", c.Excludes}, {"modules_to_save", c.ModulesToSave}, {"target_parameters", c.TargetParameters}} {
		if err := pb.checkList(l.field, l.l); err != nil {
			return nil, err
		}
	}
	if has("layers_to_transform") {
		var one int
		if json.Unmarshal(f["layers_to_transform"], &one) == nil {
			c.Layers = []int{one}
		} else if json.Unmarshal(f["layers_to_transform"], &c.Layers) != nil {
			return nil, bad("layers_to_transform", "must be an integer or a list of integers")
		}
	}
	lp, lpText, err := listOrString(f["layers_pattern"])
	if err != nil {
		return nil, bad("layers_pattern", "%v", err)
	}
	c.LayersPattern = lp
	if lpText != "" {
		c.LayersPattern = []string{lpText}
	}
	if err := pb.checkList("layers_pattern", c.LayersPattern); err != nil {
		return nil, err
	}
	for _, p := range c.LayersPattern {
		// Compiled once here, not for each module; a pattern Go cannot
		// run matches nothing, as before.
		re, err := pb.compile("layers_pattern", p, `^.*?\.`+p+`\.(\d+)\.`)
		var ce *ConfigError
		if errors.As(err, &ce) {
			return nil, err
		}
		c.layerRes = append(c.layerRes, re)
	}
	if c.RankPattern, err = patterns(pb, "rank_pattern", f["rank_pattern"]); err != nil {
		return nil, notGo(bad, "rank_pattern", err)
	}
	for _, p := range c.RankPattern {
		if p.Value <= 0 || p.Value != float64(int(p.Value)) {
			return nil, bad("rank_pattern", "gives %q the rank %v, not a positive integer", p.Key, p.Value)
		}
	}
	if c.AlphaPattern, err = patterns(pb, "alpha_pattern", f["alpha_pattern"]); err != nil {
		return nil, notGo(bad, "alpha_pattern", err)
	}
	if has("enable_lora") {
		if json.Unmarshal(f["enable_lora"], &c.EnableLoRA) != nil || len(c.EnableLoRA) == 0 || len(c.EnableLoRA) > MaxEnableLoRA {
			return nil, bad("enable_lora", "must be a list of 1 to %d booleans", MaxEnableLoRA)
		}
	}
	return c, nil
}

// listOrString decodes a field PEFT accepts as a list of strings or one
// string; null and absence give neither.
func listOrString(v json.RawMessage) ([]string, string, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil, "", nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		return nil, s, nil
	}
	var l []string
	if json.Unmarshal(v, &l) != nil {
		return nil, "", fmt.Errorf("must be a string or a list of strings")
	}
	return l, "", nil
}

// notGo returns err if it is a ConfigError (a bound), else the error of
// field, a regular expression Go cannot run.
func notGo(bad func(field, format string, args ...any) error, field string, err error) error {
	var ce *ConfigError
	if errors.As(err, &ce) {
		return err
	}
	if field == "target_modules" || field == "exclude_modules" {
		return bad(field, "is not a regular expression Go can run: %v", err)
	}
	return bad(field, "%v", err)
}

// patterns decodes rank_pattern or alpha_pattern (field) keeping the
// file's key order, which decides which key wins when several match.
func patterns(pb *patternBudget, field string, v json.RawMessage) ([]Pattern, error) {
	v = bytes.TrimSpace(v)
	if len(v) == 0 || string(v) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(v))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("must be an object")
	}
	var out []Pattern
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var val float64
		if err := dec.Decode(&val); err != nil {
			return nil, fmt.Errorf("%q must map to a number", key)
		}
		if len(out) == maxListLen {
			return nil, pb.bad(field, "has more than %d keys; at most %d are read", maxListLen, maxListLen)
		}
		// PEFT: re.match(rf"(.*\.)?({key})$", module_name).
		re, err := pb.compile(field, key, `^(?:.*\.)?(?:`+key+`)$`)
		var ce *ConfigError
		if errors.As(err, &ce) {
			return nil, err
		}
		if err != nil {
			return nil, fmt.Errorf("key %q is not a regular expression Go can run: %v", key, err)
		}
		out = append(out, Pattern{Key: key, re: re, Value: val})
	}
	return out, nil
}

// fullWrap makes s match a whole string, as Python's re.fullmatch.
func fullWrap(s string) string { return `^(?:` + s + `)$` }

// lookup returns the value of the first pattern matching key, as PEFT's
// get_pattern_key, or def.
func lookup(ps []Pattern, key string, def float64) float64 {
	for _, p := range ps {
		if p.re.MatchString(key) {
			return p.Value
		}
	}
	return def
}

// Rank returns the rank of the module key (its name in the model).
func (c *Config) Rank(key string) int { return int(lookup(c.RankPattern, key, float64(c.R))) }

// AlphaOf returns lora_alpha for the module key.
func (c *Config) AlphaOf(key string) float64 { return lookup(c.AlphaPattern, key, c.Alpha) }

// Scale returns the factor of B·A for the module key: alpha/r, or
// alpha/√r with use_rslora.
func (c *Config) Scale(key string) float64 {
	r := float64(c.Rank(key))
	if c.UseRSLoRA {
		return c.AlphaOf(key) / sqrt(r)
	}
	return c.AlphaOf(key) / r
}

// Kind is "LoRA", "DoRA", "rsLoRA" or "DoRA + rsLoRA".
func (c *Config) Kind() string {
	switch {
	case c.UseDoRA && c.UseRSLoRA:
		return "DoRA + rsLoRA"
	case c.UseDoRA:
		return "DoRA"
	case c.UseRSLoRA:
		return "rsLoRA"
	}
	return "LoRA"
}

// excluded reports whether PEFT leaves module key alone whatever the
// targets: exclude_modules, or a module to save.
func (c *Config) excluded(key string, toSave []string) bool {
	if c.ExcludeRegex != nil && c.ExcludeRegex.MatchString(key) {
		return true
	}
	if slices.Contains(c.Excludes, key) || anySuffix(key, c.Excludes) {
		return true
	}
	for _, m := range toSave {
		// PEFT: re.match(rf"(^|.*\.){m}($|\..*)", key)
		if key == m || strings.HasPrefix(key, m+".") || strings.HasSuffix(key, "."+m) || strings.Contains(key, "."+m+".") {
			return true
		}
	}
	return false
}

// anySuffix reports whether key ends with "."+t for some t.
func anySuffix(key string, ts []string) bool {
	for _, t := range ts {
		if strings.HasSuffix(key, "."+t) {
			return true
		}
	}
	return false
}

// anyLayer is PEFT's layer index without layers_pattern: the first
// numbered segment.
var anyLayer = regexp.MustCompile(`^.*?\.[^.]*\.(\d+)\.`)

// layerIndex is the layer number PEFT reads from a module key for
// layers_to_transform: the first numbered segment (after a named
// layers_pattern, if given).
func (c *Config) layerIndex(key string) (int, bool) {
	if len(c.LayersPattern) == 0 {
		m := anyLayer.FindStringSubmatch(key)
		if m == nil {
			return 0, false
		}
		return atoi(m[1])
	}
	for _, re := range c.layerRes {
		if re == nil {
			continue
		}
		if m := re.FindStringSubmatch(key); m != nil {
			return atoi(m[1])
		}
	}
	return 0, false
}

// Targeted reports whether PEFT puts a LoRA layer on the module named key
// (its name in the model, without base_model.model.), as
// check_target_module_exists decides; allLinear is the set "all-linear"
// stands for in this model.
func (c *Config) Targeted(key string, toSave []string, allLinear map[string]bool) bool {
	if c.excluded(key, toSave) {
		return false
	}
	switch {
	case c.AllLinear:
		return allLinear[key]
	case c.TargetRegex != nil:
		return c.TargetRegex.MatchString(key)
	case slices.Contains(c.Targets, key):
		return true
	}
	if !anySuffix(key, c.Targets) {
		return false
	}
	if len(c.Layers) == 0 {
		return true
	}
	i, ok := c.layerIndex(key)
	return ok && slices.Contains(c.Layers, i)
}

// ToSave returns modules_to_save with the task heads PEFT adds for a
// classification adapter (score and classifier; qa_outputs for question
// answering).
func (c *Config) ToSave() []string {
	out := slices.Clone(c.ModulesToSave)
	switch c.TaskType {
	case "SEQ_CLS", "TOKEN_CLS":
		out = append(out, "classifier", "score")
	case "QUESTION_ANS":
		out = append(out, "qa_outputs")
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func sqrt(x float64) float64 { return math.Sqrt(x) }

func atoi(s string) (int, bool) {
	n := 0
	for _, ch := range s {
		if n > 1<<30 {
			return 0, false
		}
		n = n*10 + int(ch-'0')
	}
	return n, true
}
