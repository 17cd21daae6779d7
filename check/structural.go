package check

import (
	"fmt"
	"github.com/fsmount/fsmount/spec"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/tensor"
)

// Check depths, for Report.Depth and the JSON's "depth".
const (
	DepthFull       = "full"       // every tensor against the architecture's spec
	DepthStructural = "structural" // no spec: layers, repeating groups, embeddings, tied head
	DepthNone       = "none"       // nothing checked: no config.json
)

// Structure is what the structural check found.
type Structure struct {
	Spec   string // the architecture it stands in for: "DiffLlamaForCausalLM"
	Layers int    // L from config.json, 0 if it gives none
	Field  string // the field L was read from
	Main   string // the prefix of the stack of L layers, "" if none
	Stacks []StackShape
}

// StackShape is one repeated stack of a model's tensors.
type StackShape struct {
	Prefix string // "model.layers"
	Layers int    // distinct indices found
	Kinds  int    // distinct kinds of layer (sets of tensor names)
}

// decoderStack matches the usual names of a decoder's layer list.
var decoderStack = regexp.MustCompile(`(^|\.)(layers|h|layer|blocks)$`)

// towerStack matches the stacks of vision, audio and image-token towers.
var towerStack = regexp.MustCompile(`vision|visual|image|vq|audio|encoder|qformer|patch`)

var layerSegment = regexp.MustCompile(`\.(\d+)\.`)

// layerFields are where configs give the number of decoder layers.
var layerFields = []string{"num_hidden_layers", "n_layer", "n_layers", "num_layers", "text_config.num_hidden_layers", "text_config.num_layers",
	"text_config.layers", "decoder_layers", "num_decoder_layers", "decoder.num_hidden_layers", "decoder.n_layer", "decoder.decoder_layers", "text_config.decoder_layers"}

// structural checks a model whose architecture has no spec: the layers
// are numbered 0..L-1 with L from the config; within each stack, every
// layer of a kind holds the same tensor names and shapes as its peers; the
// token embedding is [vocab_size, …]; a tied head equals the embedding.
// Its problems are the report's; it never claims a full check.
func (r *Report) structural(c *spec.Config, arch string) {
	w := r.Model
	st := &Structure{Spec: arch}
	r.Structure = st

	type layer struct {
		names map[string][]uint64 // suffix → shape
	}
	type stack struct {
		prefix string
		layers map[int]*layer
		count  int
	}
	stacks := map[string]*stack{}
	for _, t := range w.Tensors() {
		m := layerSegment.FindStringSubmatchIndex(t.Name)
		if m == nil {
			continue
		}
		idx, err := strconv.Atoi(t.Name[m[2]:m[3]])
		if err != nil || idx > spec.MaxLayers*64 {
			continue
		}
		prefix := t.Name[:m[0]]
		s := stacks[prefix]
		if s == nil {
			s = &stack{prefix: prefix, layers: map[int]*layer{}}
			stacks[prefix] = s
		}
		ly := s.layers[idx]
		if ly == nil {
			ly = &layer{names: map[string][]uint64{}}
			s.layers[idx] = ly
		}
		ly.names[t.Name[m[1]:]] = t.Shape
		s.count++
	}
	prefixes := make([]string, 0, len(stacks))
	for p := range stacks {
		prefixes = append(prefixes, p)
	}
	sort.Strings(prefixes)

	// The main stack: the one whose last index is L-1 (the most tensors
	// among those); its indices must be exactly 0..L-1.
	// The main stack: the one whose last index is L-1 for an L the config
	// gives (the first field that fits; a stack of exactly L layers, a
	// decoder's name, not a tower's, the most tensors); its indices must
	// be exactly 0..L-1.
	var main *stack
	var L uint64
	var lfield string
	score := func(s *stack, l uint64) int {
		n := 0
		if len(s.layers) == int(l) {
			n += 2
		}
		if decoderStack.MatchString(s.prefix) {
			n++
		}
		if !towerStack.MatchString(s.prefix) {
			n++
		}
		return n
	}
	for _, f := range layerFields {
		l, _ := c.FirstInt(f)
		if l == 0 || l > spec.MaxLayers {
			continue
		}
		if L == 0 {
			L, lfield = l, f
		}
		for _, p := range prefixes {
			s := stacks[p]
			if s.layers[int(l)-1] != nil && (main == nil || score(s, l) > score(main, L) || score(s, l) == score(main, L) && s.count > main.count) {
				main, L, lfield = s, l, f
			}
		}
	}
	st.Layers, st.Field = int(L), lfield
	if main != nil {
		st.Main = main.prefix
	}
	var problems []Problem
	name := func(s *stack, i int, suffix string) string { return s.prefix + "." + strconv.Itoa(i) + "." + suffix }
	for _, p := range prefixes {
		s := stacks[p]
		idx := make([]int, 0, len(s.layers))
		for i := range s.layers {
			idx = append(idx, i)
		}
		sort.Ints(idx)
		// Kinds: layers grouped by their set of names.
		type group struct {
			key    string
			names  []string
			layers []int
		}
		groups := map[string]*group{}
		var order []*group
		for _, i := range idx {
			names := make([]string, 0, len(s.layers[i].names))
			for n := range s.layers[i].names {
				names = append(names, n)
			}
			sort.Strings(names)
			key := strings.Join(names, "\x00")
			g := groups[key]
			if g == nil {
				g = &group{key: key, names: names}
				groups[key] = g
				order = append(order, g)
			}
			g.layers = append(g.layers, i)
		}
		// Within each submodule of a layer (self_attn, mlp, a norm), the
		// layers hold a few variants of names. A variant that lacks a
		// tensor or two of a more common one, or a submodule all other
		// layers have, is that variant with a tensor missing; in the main
		// stack, a rare variant with a tensor or two more has one added.
		if s == main || decoderStack.MatchString(s.prefix) && len(idx) >= 3 {
			problems = append(problems, segmentAnomalies(s.prefix, idx, func(i int) map[string][]uint64 { return s.layers[i].names }, s == main)...)
		}
		anomalous := map[*group]bool{}
		for _, g := range order {
			for _, h := range order {
				if h != g && len(h.layers) > len(g.layers) {
					if miss, add := diffSorted(h.names, g.names); len(miss)+len(add) <= 2 {
						anomalous[g] = true
					}
				}
			}
		}
		// Shapes: within a kind of three or more layers, a shape that one
		// layer alone has, where all others agree.
		kinds := 0
		for _, g := range order {
			if anomalous[g] {
				continue
			}
			kinds++
			if len(g.layers) < 3 || s != main {
				continue
			}
			for _, n := range g.names {
				counts := map[string]int{}
				for _, i := range g.layers {
					counts[fmt.Sprint(s.layers[i].names[n])]++
				}
				if len(counts) != 2 {
					continue
				}
				for _, i := range g.layers {
					shape := s.layers[i].names[n]
					if counts[fmt.Sprint(shape)] != 1 {
						continue
					}
					var want []uint64
					for _, j := range g.layers {
						if counts[fmt.Sprint(s.layers[j].names[n])] > 1 {
							want = s.layers[j].names[n]
							break
						}
					}
					problems = append(problems, Problem{Kind: Misshaped, Tensor: name(s, i, n),
						Detail:   fmt.Sprintf("%s is %s, its %d peers are %s", name(s, i, n), tensor.FormatShape(shape), len(g.layers)-1, tensor.FormatShape(want)),
						Expected: peerDims(want), Shape: shape, HasShape: true})
				}
			}
		}
		st.Stacks = append(st.Stacks, StackShape{Prefix: p, Layers: len(idx), Kinds: kinds})
		if s != main {
			continue
		}
		// Layers 0..L-1, nothing beyond.
		var absent []int
		for i := range int(L) {
			if s.layers[i] == nil {
				absent = append(absent, i)
			}
		}
		if len(absent) > 0 && len(order) == 1 {
			for _, i := range absent {
				for _, n := range order[0].names {
					shape := s.layers[idx[0]].names[n]
					problems = append(problems, Problem{Kind: Missing, Tensor: name(s, i, n),
						Detail: fmt.Sprintf("%s, expected %s as in layer %d (%s is %d)", name(s, i, n), tensor.FormatShape(shape), idx[0], lfield, L), Expected: peerDims(shape)})
				}
			}
		} else {
			for _, i := range absent {
				problems = append(problems, Problem{Kind: Missing, Tensor: fmt.Sprintf("%s.%d", s.prefix, i),
					Detail: fmt.Sprintf("%s.%d: layer %d of %d holds no tensor (%s is %d)", s.prefix, i, i, L, lfield, L)})
			}
		}
	}
	problems = append(problems, r.structuralEmbedding(c)...)
	for _, k := range []ProblemKind{Missing, Misshaped, Unexpected, TiedDiffers} {
		for _, pr := range problems {
			if pr.Kind == k {
				r.Problems = append(r.Problems, pr)
			}
		}
	}
}

// peerDims is a peer's shape as expected dimensions, without symbols.
func peerDims(shape []uint64) []spec.Dim {
	out := make([]spec.Dim, len(shape))
	for i, v := range shape {
		out[i] = spec.Dim{Sym: "peer", Val: v}
	}
	return out
}

// diffSorted returns what a has that b lacks, and what b has that a lacks.
func diffSorted(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || i < len(a) && a[i] < b[j]:
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
		if len(onlyA)+len(onlyB) > 2 {
			return onlyA, onlyB
		}
	}
	return onlyA, onlyB
}

// embedNames are the token embeddings' names across architectures, most
// specific first.
var embedNames = regexp.MustCompile(`^(backbone\.|model\.|transformer\.|gpt_neox\.|model\.decoder\.|model\.language_model\.|language_model\.model\.|model\.text_model\.|language_model\.)?(embed_tokens|wte|word_embeddings|embed_in|tok_embeddings|embeddings|token_embd)\.weight$`)

// emb0 is the name of the first tensor that looks like a token embedding.
func emb0(w interface{ Tensors() []*tensor.Tensor }) string {
	for _, t := range w.Tensors() {
		if embedNames.MatchString(t.Name) {
			return t.Name
		}
	}
	return ""
}

// structuralEmbedding checks the token embedding's rows against
// vocab_size and a tied head against the embedding.
func (r *Report) structuralEmbedding(c *spec.Config) []Problem {
	w := r.Model
	V, vfield := c.FirstInt("vocab_size", "n_vocab")
	if tv, tf := c.FirstInt("text_config.vocab_size"); tv > 0 && strings.Contains(emb0(w), "language_model") {
		V, vfield = tv, tf
	}
	var emb *tensor.Tensor
	for _, t := range w.Tensors() {
		if embedNames.MatchString(t.Name) && len(t.Shape) == 2 && (emb == nil || len(t.Name) < len(emb.Name)) {
			emb = t
		}
	}
	var out []Problem
	if emb == nil {
		return nil
	}
	r.Embeddings = emb.NumElements()
	// More rows than vocab_size is legitimate (added image tokens, a
	// padded vocabulary); fewer is a token that cannot be embedded.
	if V > 0 && emb.Shape[0] < V {
		out = append(out, Problem{Kind: Misshaped, Tensor: emb.Name,
			Detail:   fmt.Sprintf("%s is %s, expected at least %d rows (%s is %d)", emb.Name, tensor.FormatShape(emb.Shape), V, vfield, V),
			Expected: []spec.Dim{{Sym: "V", Val: V}, {Sym: "H", Val: emb.Shape[1]}},
			Shape:    emb.Shape, HasShape: true,
			Mismatches: []DimMismatch{{0, "V", V, emb.Shape[0]}}})
	}
	// Only where config.json says so: the class's default is unknown.
	tied, err := c.BoolOr("tie_word_embeddings", false)
	if err != nil || !tied {
		return out
	}
	if head := w.Tensor("lm_head.weight"); head != nil && !slices.Equal(head.Shape, emb.Shape) {
		out = append(out, Problem{Kind: TiedDiffers, Tensor: head.Name, Detail: fmt.Sprintf("%s is tied (tie_word_embeddings) but %s, %s is %s",
			head.Name, tensor.FormatShape(head.Shape), emb.Name, tensor.FormatShape(emb.Shape)), Shape: head.Shape, HasShape: true})
	}
	return out
}

// segmentAnomalies finds, per submodule of a stack's layers, the layers
// whose tensor names stray from their peers' by one or two (see
// structural).
func segmentAnomalies(prefix string, idx []int, names func(int) map[string][]uint64, main bool) []Problem {
	type variant struct {
		names  []string
		layers []int
	}
	segs := map[string]map[string]*variant{} // segment → key → variant
	var segOrder []string
	has := map[string]map[int]bool{}
	for _, i := range idx {
		bySeg := map[string][]string{}
		for n := range names(i) {
			seg, _, _ := strings.Cut(n, ".")
			bySeg[seg] = append(bySeg[seg], n)
		}
		for seg, ns := range bySeg {
			sort.Strings(ns)
			if segs[seg] == nil {
				segs[seg] = map[string]*variant{}
				has[seg] = map[int]bool{}
				segOrder = append(segOrder, seg)
			}
			key := strings.Join(ns, "\x00")
			v := segs[seg][key]
			if v == nil {
				v = &variant{names: ns}
				segs[seg][key] = v
			}
			v.layers = append(v.layers, i)
			has[seg][i] = true
		}
	}
	sort.Strings(segOrder)
	name := func(i int, n string) string { return prefix + "." + strconv.Itoa(i) + "." + n }
	var out []Problem
	for _, seg := range segOrder {
		// A submodule every layer but one has (not layer 0), where that
		// layer has no submodule of its own (which would make it another
		// kind: an attention layer among mamba layers).
		if len(idx) >= 4 && len(has[seg]) == len(idx)-1 {
			for _, i := range idx {
				if has[seg][i] || i == idx[0] || ownSegment(has, i, len(idx)) {
					continue
				}
				var peer *variant
				for _, v := range segs[seg] {
					if peer == nil || len(v.layers) > len(peer.layers) {
						peer = v
					}
				}
				for _, n := range peer.names {
					shape := names(peer.layers[0])[n]
					out = append(out, Problem{Kind: Missing, Tensor: name(i, n),
						Detail: fmt.Sprintf("%s, expected %s as in layer %d", name(i, n), tensor.FormatShape(shape), peer.layers[0]), Expected: peerDims(shape)})
				}
			}
		}
		vs := make([]*variant, 0, len(segs[seg]))
		for _, v := range segs[seg] {
			vs = append(vs, v)
		}
		sort.Slice(vs, func(a, b int) bool { return vs[a].layers[0] < vs[b].layers[0] })
		for _, g := range vs {
			var best *variant
			var missing, extra []string
			for _, h := range vs {
				if h == g {
					continue
				}
				equal := len(h.layers) == len(g.layers)
				if len(h.layers) < len(g.layers) || equal && len(idx) != 2 {
					continue
				}
				miss, add := diffSorted(h.names, g.names)
				switch n := len(miss) + len(add); {
				case n == 0 || n > 2:
					continue
				case len(add) > 0 && (!main || equal || len(g.layers) != 1 || g.layers[0] == idx[0] || g.layers[0] == idx[len(idx)-1]):
					// An added tensor counts in the main stack only, in
					// one layer, not the first or last (which several
					// architectures make special).
					continue
				case len(miss) > 0 && len(g.layers) == 1 && g.layers[0] == idx[0] && len(idx) > 2:
					continue // layer 0 alone may lack a norm (ModernBERT)
				}
				if best == nil || len(h.layers) > len(best.layers) {
					best, missing, extra = h, miss, add
				}
			}
			if best == nil {
				continue
			}
			peer := best.layers[0]
			for _, i := range g.layers {
				for _, n := range missing {
					shape := names(peer)[n]
					out = append(out, Problem{Kind: Missing, Tensor: name(i, n),
						Detail: fmt.Sprintf("%s, expected %s as in layer %d", name(i, n), tensor.FormatShape(shape), peer), Expected: peerDims(shape)})
				}
				for _, n := range extra {
					shape := names(i)[n]
					out = append(out, Problem{Kind: Unexpected, Tensor: name(i, n),
						Detail: fmt.Sprintf("%s %s is in layer %d only, not in its peers (e.g. layer %d)", name(i, n), tensor.FormatShape(shape), i, peer),
						Shape:  shape, HasShape: true})
				}
			}
		}
	}
	return out
}

// ownSegment reports whether layer i has a submodule that at most half
// of the layers have.
func ownSegment(has map[string]map[int]bool, i, layers int) bool {
	for _, h := range has {
		if h[i] && 2*len(h) <= layers {
			return true
		}
	}
	return false
}
