package spec

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// The shared blocks families are built from: config fields (Def helpers)
// and tensor templates (T helpers). Each returns plain data (Defs or Ts)
// to be concatenated with cat; a family is a table entry listing them (in
// the file of its model group). ADDING.md catalogues them; blocks_*.go
// hold the blocks of one kind of layer (experts, vision towers, BERT-style
// encoders, BART-style decoders).

func cat[E any](parts ...[]E) []E {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if n == 0 {
		return nil // as append builds it: a nil Tasks means the default tasks
	}
	out := make([]E, 0, n)
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// ── definitions ─────────────────────────────────────────────────────────

// dims are the core dimensions every Llama-like config gives: V, H, L,
// heads and I. They are required: the classes' defaults are a 7B model's,
// and a config without them describes no model.
func dims(vocab, hidden, layers, heads, inter string) []Def {
	return []Def{
		{Sym: "V", Field: vocab, Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: hidden, Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
		{Sym: "L", Field: layers, Legend: "L", Desc: "transformer blocks", Show: true, Pos: true, Max: MaxLayers},
		{Sym: "heads", Field: heads, Desc: "attention heads", Show: true, Pos: true},
		{Sym: "I", Field: inter, Legend: "I", Desc: "FFN inner width", Show: true, Pos: true},
	}
}

// llamaDims are dims with Llama's field names, head_dim and
// num_key_value_heads. hd is the class's head_dim default ("H/heads" when
// the class derives it), hdNull what an explicit null means ("" refused);
// kv and kvNull likewise for num_key_value_heads.
func llamaDims(hd, hdNull, kv, kvNull string) []Def {
	d := dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
	d[3].Desc = qWidth
	return []Def{d[0], d[1], d[2],
		{Sym: "d", Field: "head_dim", Default: hd, Null: hdNull, Legend: "d", Desc: "width of one attention head", Show: true, Pos: true},
		d[3],
		kvDef("num_key_value_heads", kv, kvNull),
		d[4],
	}
}

// withDefault gives the definition sym a default (and the same meaning
// for null).
func withDefault(defs []Def, sym, def string) []Def {
	out := append([]Def(nil), defs...)
	for i := range out {
		if out[i].Sym == sym {
			out[i].Default, out[i].Null = def, def
		}
	}
	return out
}

// llamaDimsNoHD are llamaDims for a class without head_dim: d is H/heads.
func llamaDimsNoHD(kv, kvNull string) []Def {
	d := dims("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
	d[3].Desc = qWidth
	return []Def{d[0], d[1], d[2], derived("d", "H/heads"), d[3], kvDef("num_key_value_heads", kv, kvNull), d[4]}
}

const qWidth = "query heads → q width = {heads}·{d} = {heads*d}"

// kvDef is the number of key/value heads: it divides the query heads.
func kvDef(field, def, null string) Def {
	return Def{Sym: "kv", Field: field, Default: def, Null: null, Show: true, Pos: true, Divides: "heads",
		Desc: "kv heads → kv width = {kv}·{d} = {kv*d}   ({gqa(heads, kv)})"}
}

// flag is a boolean field with the class's default (true or false).
func flag(sym, field, def, desc string) Def {
	return Def{Sym: sym, Field: field, Type: Bool, Default: def, Desc: desc}
}

// tie is tie_word_embeddings with the class's default.
func tie(def string) Def {
	return flag("tied", "tie_word_embeddings", def, "lm_head shares embed_tokens' weights")
}

var (
	attnBiasFlag = flag("attention_bias", "attention_bias", "false", "q, k, v and o projections have biases")
	mlpBiasFlag  = flag("mlp_bias", "mlp_bias", "false", "gate, up and down projections have biases")
)

// derived is a value computed from others, not read from the config.
func derived(sym, x string) Def { return Def{Sym: sym, Default: x} }

// field is an optional integer field with its class default.
func field(sym, name, def, desc string) Def {
	return Def{Sym: sym, Field: name, Default: def, Desc: desc}
}

// list is an optional array field, default [].
func list(sym, name, desc string) Def { return listOf(sym, name, "empty", desc) }

// listOf is an optional array field with its class default, a list
// expression ("list(64, 128, 320, 512)"); null reads as the default.
func listOf(sym, name, def, desc string) Def {
	return Def{Sym: sym, Field: name, Type: List, Default: def, Null: "=", Desc: desc}
}

// channels is an image's channel count (num_channels under name), 3 by
// default.
func channels(sym, name string) Def {
	return Def{Sym: sym, Field: name, Default: "3", Desc: "image channels", Pos: true}
}

// ── tensors ─────────────────────────────────────────────────────────────

// embed is the token embedding [V, H] under name.
func embed(name string) []T {
	return []T{{Name: name, Shape: []string{"V", "H"}, Role: RoleEmbedding}}
}

// norm is a norm's scale [dim]; with bias (a condition, "true" always) a
// layer norm's bias too.
func norm(name, dim, bias string) []T {
	out := []T{{Name: name + ".weight", Shape: []string{dim}, Role: RoleNorm}}
	if bias != "" {
		out = append(out, T{Name: name + ".bias", Shape: []string{dim}, Role: RoleBias, If: bias})
	}
	return out
}

// linear is a weight [out, in] and, where bias holds, its bias [out].
func linear(name, out, in, bias string) []T {
	ts := []T{{Name: name + ".weight", Shape: []string{out, in}, Role: RoleLinear}}
	if bias != "" {
		ts = append(ts, T{Name: name + ".bias", Shape: []string{out}, Role: RoleBias, If: bias})
	}
	return ts
}

// when makes every tensor conditional on cond (and on its own If).
func when(cond string, ts ...[]T) []T {
	out := cat(ts...)
	for i := range out {
		if out[i].If == "" {
			out[i].If = cond
		} else {
			out[i].If = "(" + cond + ") && (" + out[i].If + ")"
		}
	}
	return out
}

// attn is the usual attention: q, k, v, o projections under pre with
// heads·d and kv·d widths; qkvBias and oBias are the biases' conditions.
// mid (q/k norms) goes before o_proj, as the modules are declared.
func attn(pre, qkvBias, oBias string, mid ...[]T) []T {
	return cat(
		linear(pre+"q_proj", "heads*d", "H", qkvBias),
		linear(pre+"k_proj", "kv*d", "H", qkvBias),
		linear(pre+"v_proj", "kv*d", "H", qkvBias),
		cat(mid...),
		linear(pre+"o_proj", "H", "heads*d", oBias),
	)
}

// qkNorm are per-head q and k norms [dim] (Qwen3, OLMo 2 use [heads·d]).
func qkNorm(pre, qdim, kdim string) []T {
	return cat(norm(pre+"q_norm", qdim, ""), norm(pre+"k_norm", kdim, ""))
}

// gatedMLP is a SwiGLU MLP: gate and up [I, H], down [H, I].
func gatedMLP(pre, I, bias string) []T {
	return cat(linear(pre+"gate_proj", I, "H", bias), linear(pre+"up_proj", I, "H", bias), linear(pre+"down_proj", "H", I, bias))
}

// plainMLP is an up/down MLP under the given names.
func plainMLP(up, down, I, bias string) []T {
	return cat(linear(up, I, "H", bias), linear(down, "H", I, bias))
}

// squareLinears are biased [H, H] linear layers under pre, one a name
// (an attention's query, key, value and output projections).
func squareLinears(pre string, names ...string) []T {
	var out []T
	for _, n := range names {
		out = append(out, linear(pre+n, "H", "H", "true")...)
	}
	return out
}

// lmHead is the causal LM head [V, H] (absent when tied, where "tied" is
// defined) or the classification score [C, H].
func lmHead(name string) []T {
	return []T{
		{Name: name, Shape: []string{"V", "H"}, Role: RoleHead, If: "causal", Optional: "tied"},
		{Name: "score.weight", Shape: []string{"C", "H"}, Role: RoleScore, If: "seqcls"},
	}
}

// decoderLayers is the usual stack: model.layers.{l}.
func decoderLayers(kinds []Kind, ts ...[]T) []Stack {
	return []Stack{{Prefix: "model.layers.{l}.", Layers: "L", Kinds: kinds, Tensors: cat(ts...)}}
}

// llamaBlock is the pre-norm block of Llama and its kin: input norm,
// attention, post-attention norm, then mlp (the caller's).
func llamaBlock(qkvBias, oBias string, mlp ...[]T) []T {
	return cat(norm("input_layernorm", "H", ""), attn("self_attn.", qkvBias, oBias), norm("post_attention_layernorm", "H", ""), cat(mlp...))
}

// std is a family of the usual layout: model.embed_tokens, the layers
// under model.layers.{l}, model.norm and lm_head (or score).
func std(name, class string, types []string, defs []Def, kinds []Kind, layer ...[]T) *Family {
	return &Family{Name: name, Class: class, ModelTypes: types, Defs: defs,
		Global: embed("model.embed_tokens.weight"),
		Stacks: decoderLayers(kinds, layer...),
		Final:  cat(norm("model.norm", "H", ""), lmHead("lm_head.weight")),
	}
}

// hybridStd is std with the final norm model.final_layernorm, as the
// hybrid state-space models (Jamba, Bamba, Zamba, Falcon-H1) name it.
func hybridStd(name, class string, types []string, defs []Def, kinds []Kind, layer ...[]T) *Family {
	return std(name, class, types, defs, kinds, layer...).withFinal(norm("model.final_layernorm", "H", ""), lmHead("lm_head.weight"))
}

// withFinal replaces a family's final tensors.
func (f *Family) withFinal(ts ...[]T) *Family { f.Final = cat(ts...); return f }

// with sets fields of a family built by std: f.with(func(f *Family) { … }).
func (f *Family) with(edit func(*Family)) *Family { edit(f); return f }

var (
	inNorm   = norm("input_layernorm", "H", "")
	postNorm = norm("post_attention_layernorm", "H", "")
)

// trunkAt is trunk under other field names: vocab, hidden and layers are
// "field=default" (the vocabulary, the residual width, the layer count).
func trunkAt(vocab, hidden, layers, blocks string) []Def {
	d := trunk("", "", "", blocks)
	for i, fd := range []string{vocab, hidden, layers} {
		d[i].Field, d[i].Default, _ = strings.Cut(fd, "=")
	}
	return d
}

// trunk is V, H and L with the class's defaults: the vocabulary, the
// residual width and the number of layers, blocks saying what a layer
// is ("blocks", "mixer blocks", "encoder layers"…).
func trunk(vocab, hidden, layers, blocks string) []Def {
	return []Def{
		{Sym: "V", Field: "vocab_size", Default: vocab, Legend: "V", Desc: "distinct tokens", Show: true, Pos: true},
		{Sym: "H", Field: "hidden_size", Default: hidden, Legend: "H", Desc: "residual-stream width (the bus)", Show: true, Pos: true},
		{Sym: "L", Field: "num_hidden_layers", Default: layers, Legend: "L", Desc: blocks, Show: true, Pos: true, Max: MaxLayers},
	}
}

// renameSyms returns ts with the symbol from replaced by to in every
// expression (shapes, conditions, expert counts): a block written with
// "I" reused where the width is another symbol.
func renameSyms(ts []T, pairs ...string) []T {
	rn := symRenamer(pairs...) // compiled once: at init, for every family
	out := make([]T, len(ts))
	for i, t := range ts {
		t.Shape = append([]string(nil), t.Shape...)
		for j := range t.Shape {
			t.Shape[j] = rn(t.Shape[j])
		}
		t.If, t.Optional, t.Experts = rn(t.If), rn(t.Optional), rn(t.Experts)
		out[i] = t
	}
	return out
}

// renamedStack is s under another name and prefix, its symbols (layer
// count, kinds' conditions, tensors) renamed by pairs.
func renamedStack(s Stack, name, prefix string, pairs ...string) Stack {
	rx := symRenamer(pairs...)
	s.Name, s.Prefix, s.Layers = name, prefix, rx(s.Layers)
	s.Tensors = renameSyms(s.Tensors, pairs...)
	kinds := make([]Kind, len(s.Kinds))
	for i, k := range s.Kinds {
		kinds[i] = Kind{Name: k.Name, If: rx(k.If)}
	}
	s.Kinds = kinds
	return s
}

// symRenamer rewrites the whole-word symbols of an expression by pairs
// (old, new, old, new, …), in their order.
func symRenamer(pairs ...string) func(string) string {
	res := make([]*regexp.Regexp, len(pairs)/2)
	for k := range res {
		res[k] = regexp.MustCompile(`\b` + regexp.QuoteMeta(pairs[2*k]) + `\b`)
	}
	return func(x string) string {
		for k, re := range res {
			x = re.ReplaceAllString(x, pairs[2*k+1])
		}
		return x
	}
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
	out, ok := replaced(defs, d, func(e Def) bool { return e.Sym == d.Sym })
	if !ok {
		panic("replaceDef: no definition " + d.Sym)
	}
	return out
}

// replaced returns a copy of xs with its first element for which same
// holds replaced by x, and whether there was one.
func replaced[E any](xs []E, x E, same func(E) bool) ([]E, bool) {
	out := slices.Clone(xs)
	i := slices.IndexFunc(out, same)
	if i >= 0 {
		out[i] = x
	}
	return out, i >= 0
}

// listAt is the expression for entry i of the list symbol sym, or of def
// (the config class's default list) when the config leaves sym empty or
// absent: "at(sym, i)" guarded by the list's length.
func listAt(sym, i string, def []int) string {
	fallback := "0"
	for k := len(def) - 1; k >= 0; k-- {
		fallback = fmt.Sprintf("(%s) == %d ? %d : (%s)", i, k, def[k], fallback)
	}
	return fmt.Sprintf("(len(%s) > 0 ? at(%s, %s) : (%s))", sym, sym, i, fallback)
}

// withNull returns ds with the definition of sym taking null to mean x
// (decoder_vocab_size: null is vocab_size).
func withNull(ds []Def, sym, x string) []Def {
	out := append([]Def(nil), ds...)
	for i := range out {
		if out[i].Sym == sym {
			out[i].Null = x
		}
	}
	return out
}

// conv1d is GPT-2's Conv1D: a weight stored [in, out] and a bias [out].
func conv1d(name, in, out string) []T {
	return []T{{Name: name + ".weight", Shape: []string{in, out}, Role: RoleConv1D}, {Name: name + ".bias", Shape: []string{out}, Role: RoleBias}}
}

// withoutDefs returns defs less the named symbols.
func withoutDefs(defs []Def, syms ...string) []Def {
	return slices.DeleteFunc(slices.Clone(defs), func(d Def) bool { return slices.Contains(syms, d.Sym) })
}

// opt is an integer field with its class default.
func opt(sym, name, def string) Def { return Def{Sym: sym, Field: name, Default: def} }

// vec is a one-dimensional parameter [dim] (a norm scale, an SSM vector).
func vec(name, dim string) []T { return []T{{Name: name, Shape: []string{dim}, Role: RoleNorm}} }

// vecIf is a vector present where cond holds.
func vecIf(name, dim, cond string) []T {
	return []T{{Name: name, Shape: []string{dim}, Role: RoleBias, If: cond}}
}

// optionalIf makes tensors optional where cond holds.
func optionalIf(cond string, ts []T) []T {
	out := append([]T(nil), ts...)
	for i := range out {
		if o := out[i].Optional; o != "" && o != cond {
			out[i].Optional = "(" + cond + ") || (" + o + ")"
		} else {
			out[i].Optional = cond
		}
	}
	return out
}
