package model

import (
	"encoding/json"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/gguf"
	"github.com/fsmount/fsmount/source"
)

// Metadata is a GGUF file's key/values, in file order. It is the
// format's own table, not a copy: a million keys cost what the format
// keeps of them.
type Metadata interface {
	Len() int
	Key(i int) string
	Value(i int) MetaValue
}

type ggufMetadata []gguf.KV

func (g ggufMetadata) Len() int              { return len(g) }
func (g ggufMetadata) Key(i int) string      { return g[i].Key }
func (g ggufMetadata) Value(i int) MetaValue { return g[i].Value }

// MetaValue is a metadata value, as the text of its metadata/<key> file:
// a scalar on one line, an array one element per line. Its size is known
// without reading; its bytes are read from the model file when asked
// for, so a large array costs nothing until it is read.
type MetaValue interface {
	TextSize() int64
	ReadTextAt(p []byte, off int64) (int, error)
}

// Names maps between the tensor names of the files and the Hugging Face
// names the checks and the tree use, for a format that names tensors its
// own way (GGUF's "blk.0.attn_q.weight").
type Names interface {
	// HF returns the Hugging Face name of a file's tensor.
	HF(name string) (string, bool)
	// File returns the file's name for a Hugging Face tensor; expert ≥ 0
	// when the format stacks the experts of an MoE layer into one tensor
	// along a new outermost dimension, and name is that tensor's.
	File(hf string) (name string, expert int, ok bool)
	// Parts returns the file's tensors a Hugging Face tensor was cut
	// into, each with its shape outermost first as config.json fields,
	// and false for a tensor kept whole.
	Parts(hf string) ([]Part, bool)
	// Transposed reports whether the format stores the [in, out] weights
	// of GPT-2's Conv1D as [out, in], like every other matrix.
	Transposed() bool
	// Fused returns, for a file's tensor name, the tensor a writer may
	// store in its place and another's, their rows concatenated (GGUF's
	// ffn_gate_exps and ffn_up_exps as ffn_gate_up_exps), and the other's
	// name; false for a tensor never fused.
	Fused(name string) (fused, other string, ok bool)
}

// Part is one of the tensors a format cuts a Hugging Face tensor into
// ([Names.Parts]).
type Part = gguf.Part

// ggufNames are the names of one row of gguf's architecture table.
type ggufNames struct{ a *gguf.Arch }

func (g ggufNames) HF(name string) (string, bool) { return g.a.HFName(name) }

func (g ggufNames) File(hf string) (string, int, bool) {
	if n, e, ok := g.a.ExpertName(hf); ok {
		return n, e, true
	}
	n, ok := g.a.GGUFName(hf)
	return n, -1, ok
}

func (g ggufNames) Parts(hf string) ([]Part, bool) { return g.a.Parts(hf) }

// Transposed: ggml multiplies by matrices stored [out, in] (ne0 = in), so
// llama.cpp's converter transposes GPT-2's Conv1D weights.
func (g ggufNames) Transposed() bool { return true }

func (g ggufNames) Fused(name string) (string, string, bool) { return gguf.FusedExperts(name) }

// isGGUF reports whether a file name is a GGUF file's.
func isGGUF(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".gguf") }

// findGGUF returns the GGUF file of a directory without config.json and
// safetensors weights: its only .gguf file, or the first of a split set.
func findGGUF(fsys source.FS) (string, bool) {
	names, err := fsys.List()
	if err != nil {
		return "", false
	}
	var found []string
	for _, n := range names {
		if !isGGUF(n) {
			continue
		}
		if _, no, _, ok := gguf.ParseSplitName(n); ok && no != 1 {
			continue
		}
		found = append(found, n)
	}
	if len(found) != 1 {
		return "", false
	}
	return found[0], true
}

// openGGUF opens a GGUF model (one file, or a split set from its first):
// its tensors, its metadata, and a config.json derived from the metadata
// so that the architecture's checks apply.
func (m *Model) openGGUF(name string) error {
	gm, err := gguf.OpenModel(m.Source, name)
	if err != nil {
		if f, oerr := m.Source.Open(name); oerr == nil {
			err = Diagnose(f, err)
			f.Close()
		}
		return err
	}
	m.Format = FormatGGUF
	m.closers = append(m.closers, gm)
	for _, f := range gm.Files() {
		m.Files = append(m.Files, f.Source())
	}
	m.warnings = append(m.warnings, gm.Warnings()...)
	m.setTensors(gm.Tensors())
	m.Metadata = ggufMetadata(gm.Metadata())
	arch := gm.Architecture()
	a, known := gguf.Architecture(arch)
	if known {
		a = a.For(func(key string) (uint64, bool) { return metaUint(gm, arch+"."+key) }, func(n string) bool { return hasTensor(gm, n) })
		m.Names = ggufNames{a}
	}
	cfg, why := configFromGGUF(gm, arch, a)
	if cfg == nil {
		m.NoConfig = why
		return nil
	}
	m.Config = cfg
	m.ConfigName = path.Base(filepath.ToSlash(gm.Files()[0].Source().Name())) + " (metadata)"
	return nil
}

// hasTensor reports whether the file holds a tensor name, or, for a
// "blk.*.<name>" pattern, that tensor of any layer.
func hasTensor(gm *gguf.Model, name string) bool {
	if pat, _ := gguf.AnyLayer(name, ""); !pat {
		return gm.Tensor(name) != nil
	}
	for _, t := range gm.Tensors() {
		if _, ok := gguf.AnyLayer(name, t.Name); ok {
			return true
		}
	}
	return false
}

// metaUint reads an integer metadata value, or a boolean as 0 or 1.
func metaUint(gm *gguf.Model, key string) (uint64, bool) {
	v, ok := gm.Lookup(key)
	if !ok {
		return 0, false
	}
	if b, ok := v.Bool(); ok {
		if b {
			return 1, true
		}
		return 0, true
	}
	return v.Uint()
}

// configFromGGUF writes the config.json the converter read, from the
// metadata keys it wrote (one key each, the way llama.cpp reads them
// back) as the architecture's row a of gguf's table says (nil: none), or
// says why it cannot.
func configFromGGUF(gm *gguf.Model, arch string, a *gguf.Arch) ([]byte, string) {
	if a == nil {
		if arch == "" {
			return nil, "the GGUF file names no architecture"
		}
		// No Hugging Face spec: a config of the common keys only, under a
		// class no family has, so the check is the structural one.
		a = &gguf.Arch{Name: arch, Class: arch + " (GGUF, no name map)"}
	}
	u := func(key string) (uint64, bool) { return metaUint(gm, arch+"."+key) }
	c := map[string]any{"architectures": []string{a.Class}}
	if a.ModelType != "" {
		c["model_type"] = a.ModelType
	}
	if experts, moe := u("expert_count"); moe && a.Experts != "" {
		c[a.Experts] = experts
	}
	for _, k := range append(append([]gguf.ConfigKey(nil), gguf.CommonKeys...), a.Keys...) {
		if k.Layers != [2]string{} || k.Period != [2]string{} {
			perLayer(gm, arch+"."+k.Key, k, c)
			continue
		}
		v, ok := u(k.Key)
		if !ok && k.Else != "" {
			v, ok = u(k.Else)
		}
		switch {
		case ok && k.Over != "":
			if d, ok := u(k.Over); ok && d > 0 && v%d == 0 {
				c[k.Field] = v / d
			}
		case !ok:
			if k.Null {
				c[k.Field] = nil
			} else if k.Default != nil {
				c[k.Field] = k.Default
			}
		case k.Is != 0:
			c[k.Field] = v == k.Is
		case k.Minus != "":
			if m, ok := u(k.Minus); ok && m <= v {
				c[k.Field] = v - m
			}
		default:
			c[k.Field] = v
		}
	}
	if _, ok := c["num_key_value_heads"]; !ok {
		// llama.cpp: head_count_kv defaults to head_count.
		if v, ok := c["num_attention_heads"]; ok {
			c["num_key_value_heads"] = v
		}
	}
	if _, ok := c["head_dim"]; !ok {
		h, okH := c["hidden_size"].(uint64)
		n, okN := c["num_attention_heads"].(uint64)
		if okH && okN && n > 0 {
			c["head_dim"] = h / n // llama.cpp's n_embd / n_head
		}
	}
	if a.BiasField != "" {
		c[a.BiasField] = gm.Tensor("blk.0.attn_q.bias") != nil
	}
	if a.QKNormField != "" {
		c[a.QKNormField] = gm.Tensor("blk.0.attn_q_norm.weight") != nil
	}
	if n, ok := u("block_count"); ok && len(a.Periods) > 0 {
		layerPeriods(gm, a, n, c)
	}
	for _, d := range a.Dims {
		if t := gm.Tensor(d.Tensor); t != nil {
			if sh := t.Shape; d.Dim < len(sh) {
				c[d.Field] = sh[d.Dim]
			}
		}
	}
	if n, ok := u("block_count"); ok && len(a.Lists) > 0 {
		layerLists(gm, a, n, c)
	}
	for _, f := range a.Flags {
		yes, no := f.Yes, f.No
		if yes == nil && no == nil {
			yes, no = true, false
		}
		if hasTensor(gm, f.Tensor) {
			c[f.Field] = yes
		} else {
			c[f.Field] = no
		}
	}
	for k, v := range a.Set {
		c[k] = v
	}
	if toks, ok := gm.Lookup("tokenizer.ggml.tokens"); ok {
		c["vocab_size"] = toks.Len()
	} else if v, ok := u("vocab_size"); ok {
		c["vocab_size"] = v
	}
	c["tie_word_embeddings"] = gm.Tensor("output.weight") == nil
	nest(c)
	b, err := json.Marshal(c)
	if err != nil {
		return nil, err.Error()
	}
	return b, ""
}

// nest moves each field "a.b" of c into the object a, as the config of
// a model with nested sub-configs holds it (DBRX's ffn_config.*).
func nest(c map[string]any) {
	for _, k := range slices.Sorted(maps.Keys(c)) {
		head, rest, ok := strings.Cut(k, ".")
		if !ok || head == "" || rest == "" {
			continue
		}
		sub, ok := c[head].(map[string]any)
		if !ok {
			sub = map[string]any{}
			c[head] = sub
		}
		sub[rest] = c[k]
		delete(c, k)
		nest(sub)
	}
}

// perLayer sets k.Field to the list of k.Layers its per-layer array key
// says (and k.Max to its largest value), where the key is an array of
// integers; a scalar key leaves the fields to the others.
func perLayer(gm *gguf.Model, key string, k gguf.ConfigKey, c map[string]any) {
	v, ok := gm.Lookup(key)
	if !ok || v.Len() == 0 {
		return
	}
	es, err := v.Elems() // as many as the file holds
	if err != nil {
		return
	}
	kinds := make([]string, len(es))
	var top uint64
	var at []int
	for i, e := range es {
		n, ok := e.Uint()
		if !ok {
			return
		}
		kinds[i] = k.Layers[0]
		if n > 0 {
			kinds[i] = k.Layers[1]
			at = append(at, i)
		}
		top = max(top, n)
	}
	switch {
	case k.Period != [2]string{}:
		c[k.Field] = top
		setPeriod(c, k.Period[0], k.Period[1], at, len(es))
	default:
		c[k.Field] = kinds
		if k.Max != "" {
			c[k.Max] = top
		}
	}
}

// setPeriod sets the offset and period fields of the layers at (of n):
// the first, and the distance to the next; n for one; none: an offset
// past the last layer.
func setPeriod(c map[string]any, offset, period string, at []int, n int) {
	switch len(at) {
	case 0:
		c[offset], c[period] = n, n+1
	case 1:
		c[offset], c[period] = at[0], n
	default:
		c[offset], c[period] = at[0], at[1]-at[0]
	}
}

// layerPeriods sets a's Periods from the layers (0..n-1) that hold each
// one's tensor.
func layerPeriods(gm *gguf.Model, a *gguf.Arch, n uint64, c map[string]any) {
	for _, lp := range a.Periods {
		seen := map[int]bool{}
		for _, t := range gm.Tensors() {
			if l, ok := gguf.LayerOf(t.Name, lp.Tensor); ok && uint64(l) < n {
				seen[l] = true
			}
		}
		at := slices.Sorted(maps.Keys(seen))
		setPeriod(c, lp.Offset, lp.Period, at, int(n))
	}
}

// layerLists sets a's Lists from the layers (0..n-1) that hold each
// one's tensor.
func layerLists(gm *gguf.Model, a *gguf.Arch, n uint64, c map[string]any) {
	if n > uint64(len(gm.Tensors())) {
		return // more layers than tensors: block_count is wrong, and the check says so
	}
	for _, ll := range a.Lists {
		seen := map[int]bool{}
		for _, t := range gm.Tensors() {
			if l, ok := gguf.LayerOf(t.Name, ll.Tensor); ok && uint64(l) < n {
				seen[l] = true
			}
		}
		vs := make([]any, n)
		for l := range vs {
			vs[l] = ll.No
			if seen[l] {
				vs[l] = ll.Yes
			}
		}
		c[ll.Field] = vs
	}
}

// GGUFRows returns, for the tensor of Hugging Face name hf and shape
// shape, the stored row of each Hugging Face row where llama.cpp's
// converter permuted them (the Q and K projections of the llama family,
// rows permuted within each head: gguf.md §5.3), or nil for any other
// tensor or model.
func (m *Model) GGUFRows(hf string, shape []uint64) func(uint64) uint64 {
	if m.Format != FormatGGUF {
		return nil
	}
	var cfg struct {
		ModelType string `json:"model_type"`
		Heads     int    `json:"num_attention_heads"`
		KVHeads   int    `json:"num_key_value_heads"`
	}
	if json.Unmarshal(m.Config, &cfg) != nil {
		return nil
	}
	if !slices.Contains([]string{"llama", "mistral", "smollm3", "chameleon"}, cfg.ModelType) || len(shape) == 0 {
		return nil
	}
	heads := 0
	switch {
	case strings.HasSuffix(hf, ".self_attn.q_proj.weight") || strings.HasSuffix(hf, ".self_attn.q_proj.bias"):
		heads = cfg.Heads
	case strings.HasSuffix(hf, ".self_attn.k_proj.weight") || strings.HasSuffix(hf, ".self_attn.k_proj.bias"):
		heads = cfg.KVHeads
		if heads == 0 {
			heads = cfg.Heads
		}
	default:
		return nil
	}
	rows := int(shape[0])
	if heads <= 0 || rows%(2*heads) != 0 {
		return nil
	}
	return func(r uint64) uint64 {
		g, _ := gguf.GGUFRow(int(r), rows, heads) // rows and heads checked above
		return uint64(g)
	}
}
