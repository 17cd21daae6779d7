// Package layout is the path layout of the tree a model is shown as: the
// names of its files and directories, where each tensor's directory is,
// and the reversible escaping that turns any tensor name into safe path
// components. fusefs builds the mount from it, site lays its pages out by
// it, check writes each tensor's path into the JSON report, and fsinspect
// --html writes the same tree to a directory, without linking FUSE.
//
// A tensor's directory drops a leading "model." of its name, splits the
// rest on ".", and drops a final "weight" (model.layers.0.self_attn.
// q_proj.weight is layers/0/self_attn/q_proj); where dropping makes two
// names meet, those keep every part, the dropped ones escaped, so that
// every tensor has exactly one directory. A part that is not a safe file
// name (empty, ".", "..", holding '/', '%' or NUL, longer than NAME_MAX,
// or one of the tree's own names) is percent-escaped, and a long one
// continues in a subdirectory (see [Escape]).
//
// The package imports nothing but the standard library.
package layout

import (
	"fmt"
	"strconv"
	"strings"
)

// The names of the tree's own files and directories. They are reserved:
// a tensor path component equal to one of them is escaped, so that no
// tensor name can shadow them.
const (
	// At the root.
	Verdict   = "verdict"
	Report    = "report"
	Config    = "config.json"
	Shapes    = "shapes"
	ByName    = "by-name"
	Expected  = "expected"
	Files     = "files"
	Stats     = "stats" // also a tensor's, and a compared tensor's
	Metadata  = "metadata"
	Tokenizer = "tokenizer"
	Compare   = "compare"
	Overview  = "overview.png"
	Index     = "index.html" // also a tensor's page
	Modules   = "modules"    // a sentence-transformers repository's

	// In a tensor's directory.
	Shape     = "shape"
	DType     = "dtype"
	Data      = "data"
	Location  = "location"
	Values    = "values"
	ValuesF32 = "values.f32"
	ValuesNPY = "values.npy"
	SHA256    = "sha256"
	Hist      = "hist"
	Heatmap   = "heatmap.png"
	HistPNG   = "hist.png"

	// In compare/ and a compared tensor's directory there.
	Summary     = "summary"
	OnlyInModel = "only-in-model"
	OnlyInOther = "only-in-other"
	DeltaF32    = "delta.f32"
	DeltaNPY    = "delta.npy"

	// A LoRA adapter's: its config at the root, and lora/ in each
	// adapted module's directory.
	AdapterConfig = "adapter_config.json"
	LoRA          = "lora"

	// A Distributed Checkpoint's, at the root: the optimizer's state, the
	// other tensors and the values that are not tensors.
	Optim   = "optim"
	Extra   = "extra"
	Objects = "objects"
)

// Names is every reserved name, at the root first, then a tensor's, then
// compare/'s, then an adapter's.
var Names = []string{Verdict, Report, Config, Shapes, ByName, Expected, Files, Stats, Metadata,
	Tokenizer, Compare, Overview, Index, Modules,
	Shape, DType, Data, Location, Values, ValuesF32, ValuesNPY, SHA256, Hist, Heatmap, HistPNG,
	Summary, OnlyInModel, OnlyInOther, DeltaF32, DeltaNPY, AdapterConfig, LoRA, Optim, Extra, Objects}

// Reserved reports whether name is one of the tree's own names (a
// switch, not a map: it is asked for every part of every tensor name).
func Reserved(name string) bool {
	switch name {
	case Verdict, Report, Config, Shapes, ByName, Expected, Files, Stats, Metadata,
		Tokenizer, Compare, Overview, Index, Modules,
		Shape, DType, Data, Location, Values, ValuesF32, ValuesNPY, SHA256, Hist, Heatmap, HistPNG,
		Summary, OnlyInModel, OnlyInOther, DeltaF32, DeltaNPY, AdapterConfig, LoRA, Optim, Extra, Objects:
		return true
	}
	return false
}

// MaxComponent is the longest path component: NAME_MAX.
const MaxComponent = 255

const (
	chunkLen     = 240       // payload of a continued component
	continued    = "%+"      // suffix of a component continued in a child
	modelPrefix  = "model."  // dropped from tensor names
	weightSuffix = "weight"  // a final part that is dropped
	escModel     = "%6Dodel" // "model" kept, escaped, on a collision
	escWeight    = "%77eight"
)

// Escape turns one part of a name (a tensor's, a metadata key, a model
// file's) into one or more path components. The escape is reversible
// (see [Unescape]): '%', '/' and the control bytes (below 0x20, and 0x7f)
// are percent-encoded, so that no listing written to a terminal carries
// an escape sequence or a line break from a file; the empty part is "%";
// ".", "..", and reserved names get their first byte encoded; a part
// longer than NAME_MAX is split into components ending in "%+", each
// continued in a subdirectory.
func Escape(p string) []string { return appendEscaped(nil, p) }

// EscapeFileName is [Escape] for a name of files/, where the tree's own
// names are not reserved (config.json there is the model's).
func EscapeFileName(p string) []string { return escapeInto(nil, p, false) }

// mustEscape reports whether a byte of a name is percent-encoded.
func mustEscape(c byte) bool { return c == '%' || c == '/' || c < 0x20 || c == 0x7f }

// appendEscaped appends the components of Escape(p) to dst.
func appendEscaped(dst []string, p string) []string { return escapeInto(dst, p, true) }

func escapeInto(dst []string, p string, reserve bool) []string {
	guard := func(s string) string { return guardName(s, reserve) }
	plain := len(p) <= MaxComponent
	for i := 0; plain && i < len(p); i++ {
		plain = !mustEscape(p[i])
	}
	if plain {
		return append(dst, guard(p)) // the common case: nothing to encode
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; mustEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	s := b.String()
	if len(s) <= MaxComponent {
		return append(dst, guard(s))
	}
	out := dst
	for len(s) > MaxComponent {
		cut := chunkLen
		// Never split a %XX escape.
		if i := strings.LastIndexByte(s[cut-2:cut], '%'); i >= 0 {
			cut = cut - 2 + i
		}
		out = append(out, guard(s[:cut])+continued)
		s = s[cut:]
	}
	return append(out, guard(s))
}

// guardName escapes the components that would otherwise mean something
// else: "", "." and "..", and with reserve the tree's own names.
func guardName(s string, reserve bool) string {
	switch {
	case s == "":
		return "%"
	case s == "." || s == ".." || reserve && Reserved(s):
		return fmt.Sprintf("%%%02X", s[0]) + s[1:]
	}
	return s
}

// Unescape reverses [Escape]: it joins continued components and decodes
// the escapes.
func Unescape(comps []string) (string, error) {
	var joined strings.Builder
	for i, c := range comps {
		if strings.HasSuffix(c, continued) {
			joined.WriteString(strings.TrimSuffix(c, continued))
			continue
		}
		if i != len(comps)-1 {
			return "", fmt.Errorf("component %q is not the last and not continued", c)
		}
		joined.WriteString(c)
	}
	s := joined.String()
	if s == "%" {
		return "", nil
	}
	var out strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			out.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("truncated escape in %q", s)
		}
		c, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("bad escape in %q", s)
		}
		out.WriteByte(byte(c))
		i += 2
	}
	return out.String(), nil
}

// HFNamer maps a format's own tensor names to Hugging Face names
// (model.Names does, for GGUF).
type HFNamer interface {
	HF(name string) (string, bool)
}

// Tensors maps every tensor name to its directory's components in the
// tree (see the package comment). With hf non-nil, a name is laid out
// under its Hugging Face name where it has one ("blk.0.attn_q.weight" at
// layers/0/self_attn/q_proj, as the same tensor of a safetensors
// checkpoint), so that two checkpoints of one model compare with diff -r;
// by-name keeps the files' own names.
func Tensors(names []string, hf HFNamer) map[string][]string {
	paths := TensorPaths(names, hf)
	out := make(map[string][]string, len(names))
	for i, n := range names {
		out[n] = strings.Split(paths[i], "/") // no component holds a '/'
	}
	return out
}

// TensorPaths is [Tensors] as a list: the directory of names[i], its
// components joined by '/', at i. The paths are cut from one string.
func TensorPaths(names []string, hf HFNamer) []string {
	if hf == nil {
		return tensorPaths(names)
	}
	hfNames := make([]string, len(names))
	for i, n := range names {
		hfNames[i] = n
		if h, ok := hf.HF(n); ok {
			hfNames[i] = h
		}
	}
	return tensorPaths(hfNames)
}

// tensorPaths is TensorPaths without a mapping of names. A name whose
// parts need no escape (nearly every name) is its key with '.' turned
// into '/', written straight into the arena.
func tensorPaths(names []string) []string {
	type cand struct {
		key            string // the candidate path, joined by "."
		stripped, drop bool
	}
	// count is how many names have each key. A name both stripped and
	// dropped ("model.K.weight", nearly all of them) meets another only
	// if one of the few others has its key, or the name is there twice:
	// so where they are in strictly increasing order (sorted and
	// unique, as a model's tensors are), only the others' keys are
	// counted, and a name of the many looked up in that small map.
	cands := make([]cand, len(names))
	count := map[string]int32{}
	unique, prev := true, ""
	size := 0
	for i, n := range names {
		rest, stripped := strings.CutPrefix(n, modelPrefix)
		key, drop := rest, false
		if k, ok := strings.CutSuffix(rest, "."+weightSuffix); ok {
			key, drop = k, true
		}
		cands[i] = cand{key, stripped, drop}
		size += len(key)
		if !stripped || !drop {
			count[key]++
		} else if unique {
			unique, prev = n > prev, n
		}
	}
	if !unique {
		count = make(map[string]int32, len(names))
		for _, c := range cands {
			count[c.key]++
		}
	} else if len(count) > 0 {
		for _, c := range cands {
			if c.stripped && c.drop {
				if k, ok := count[c.key]; ok {
					count[c.key] = k + 1
				}
			}
		}
	}
	arena := make([]byte, 0, size)
	ends := make([]int, len(names))
	var comps []string
	for i, c := range cands {
		collides := count[c.key] > 1 && (c.stripped || c.drop)
		if !collides && plainParts(c.key) {
			for j := 0; j < len(c.key); j++ {
				if b := c.key[j]; b == '.' {
					arena = append(arena, '/')
				} else {
					arena = append(arena, b)
				}
			}
			ends[i] = len(arena)
			continue
		}
		comps = comps[:0]
		if collides && c.stripped {
			// Spell the name out in full, marking what the short form
			// drops.
			comps = append(comps, escModel)
		}
		for p := range strings.SplitSeq(c.key, ".") {
			comps = appendEscaped(comps, p)
		}
		if collides && c.drop {
			comps = append(comps, escWeight)
		}
		for j, p := range comps {
			if j > 0 {
				arena = append(arena, '/')
			}
			arena = append(arena, p...)
		}
		ends[i] = len(arena)
	}
	all := string(arena)
	out := make([]string, len(names))
	from := 0
	for i, end := range ends {
		out[i] = all[from:end]
		from = end
	}
	return out
}

// plainParts reports whether every part of key (split on '.') is its own
// component: not empty, "." or "..", no byte to escape, not too long,
// not a reserved name.
func plainParts(key string) bool {
	start := 0
	for j := 0; j <= len(key); j++ {
		if j < len(key) && key[j] != '.' {
			if mustEscape(key[j]) {
				return false
			}
			continue
		}
		p := key[start:j]
		if p == "" || len(p) > MaxComponent || Reserved(p) {
			return false
		}
		start = j + 1
	}
	return true
}
