package check

import (
	"encoding/json"
	"fmt"
	"github.com/fsmount/fsmount/spec"
	"math"
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

// mtpFields are where configs give the number of multi-token prediction
// layers stored after the decoder's last (model.layers.{L}).
var mtpFields = []string{"num_nextn_predict_layers", "num_mtp_layers", "mtp_num_hidden_layers", "mtp_num_layers", "text_config.num_nextn_predict_layers", "text_config.num_mtp_layers"}

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
		// A stack of one linear (weight and bias) per layer is an MLP
		// head (DETR's bbox_predictor), not the model's layers.
		if s.count > 2*len(s.layers) {
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
	lists := readLayerLists(c)
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
		names := func(i int) map[string][]uint64 { return s.layers[i].names }
		// Layers are peers only where nothing says they differ: their
		// shapes (stages of a hierarchical model widen from one to the
		// next) and the config's per-layer lists (layer_types,
		// global_attn_indexes, reassemble_factors).
		stage := shapeStages(idx, names)
		kind, size, index := lists.keys(idx)
		segKey := func(i int) string { return stage[i] + "\x00" + kind[i] + "\x00" + size[i] }
		shapeKey := func(i int) string { return kind[i] + "\x00" + index[i] }
		if s == main || decoderStack.MatchString(s.prefix) && len(idx) >= 3 {
			problems = append(problems, segmentAnomalies(s.prefix, idx, names, segKey, s == main)...)
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
			// Peers: the kind's layers of one stage; a layer the
			// config's per-layer lists tell apart from those it
			// differs from is not compared.
			peers := map[string][]int{}
			var keys []string
			for _, i := range g.layers {
				k := stage[i]
				if peers[k] == nil {
					keys = append(keys, k)
				}
				peers[k] = append(peers[k], i)
			}
			// Among a stage's layers, and again among those of one
			// key (the windowed layers apart from the global ones).
			flagged := map[string]bool{}
			for _, k := range keys {
				byKey := map[string][]int{}
				for _, i := range peers[k] {
					byKey[shapeKey(i)] = append(byKey[shapeKey(i)], i)
				}
				sets := [][]int{peers[k]}
				if len(byKey) > 1 {
					for _, i := range peers[k] {
						if l := byKey[shapeKey(i)]; l != nil {
							sets = append(sets, l)
							delete(byKey, shapeKey(i))
						}
					}
				}
				for _, set := range sets {
					for _, pr := range shapeAnomalies(s.prefix, g.names, set, names, shapeKey) {
						if !flagged[pr.Tensor] {
							flagged[pr.Tensor] = true
							problems = append(problems, pr)
						}
					}
				}
			}
		}
		st.Stacks = append(st.Stacks, StackShape{Prefix: p, Layers: len(idx), Kinds: kinds})
		if s != main {
			continue
		}
		// Layers 0..L-1, nothing beyond (but the multi-token
		// prediction layers a config declares after them, which
		// transformers ignores on load).
		var absent []int
		for i := range int(L) {
			if s.layers[i] == nil {
				absent = append(absent, i)
			}
		}
		// A stack whose name is not a layer list's (EfficientFormer's
		// intermediate_stages), or whose length the config gives
		// elsewhere, may be counted by another field: only its gaps
		// count.
		extra, efield := c.FirstInt(mtpFields...)
		for _, i := range idx {
			if i < int(L) || !decoderStack.MatchString(s.prefix) || uint64(i) < L+min(extra, spec.MaxLayers) || lists.counts[idx[len(idx)-1]+1] {
				continue
			}
			ns := make([]string, 0, len(s.layers[i].names))
			for n := range s.layers[i].names {
				ns = append(ns, n)
			}
			sort.Strings(ns)
			why := ""
			if extra > 0 {
				why = fmt.Sprintf(" and %s is %d", efield, extra)
			}
			for _, n := range ns {
				shape := s.layers[i].names[n]
				problems = append(problems, Problem{Kind: Unexpected, Tensor: name(s, i, n),
					Detail: fmt.Sprintf("%s %s: layer %d is past the model's last (%s is %d%s)", name(s, i, n), tensor.FormatShape(shape), i, lfield, L, why),
					Shape:  shape, HasShape: true})
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
// peer is the key of a layer's peers: a submodule one layer lacks is
// missing only where a layer of its key has it.
func segmentAnomalies(prefix string, idx []int, names func(int) map[string][]uint64, peer func(int) string, main bool) []Problem {
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
				if has[seg][i] || i == idx[0] || ownSegment(has, i, len(idx)) || !slices.ContainsFunc(idx, func(j int) bool { return has[seg][j] && peer(j) == peer(i) }) {
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

// shapeAnomalies finds, among peer layers (three or more, the same
// names), a tensor shape that one layer alone has where all others
// agree, unless none of the others has the layer's key (the config
// makes it another kind of layer: SAM's global attention).
func shapeAnomalies(prefix string, names []string, layers []int, shapes func(int) map[string][]uint64, key func(int) string) []Problem {
	if len(layers) < 3 {
		return nil
	}
	name := func(i int, n string) string { return prefix + "." + strconv.Itoa(i) + "." + n }
	var out []Problem
	for _, n := range names {
		counts := map[string]int{}
		for _, i := range layers {
			counts[fmt.Sprint(shapes(i)[n])]++
		}
		if len(counts) != 2 {
			continue
		}
		for _, i := range layers {
			shape := shapes(i)[n]
			if counts[fmt.Sprint(shape)] != 1 {
				continue
			}
			var want []uint64
			alike := false
			for _, j := range layers {
				if counts[fmt.Sprint(shapes(j)[n])] > 1 {
					want = shapes(j)[n]
					alike = alike || key(j) == key(i)
				}
			}
			if !alike {
				continue
			}
			out = append(out, Problem{Kind: Misshaped, Tensor: name(i, n),
				Detail:   fmt.Sprintf("%s is %s, its %d peers are %s", name(i, n), tensor.FormatShape(shape), len(layers)-1, tensor.FormatShape(want)),
				Expected: peerDims(want), Shape: shape, HasShape: true})
		}
	}
	return out
}

// maxStages bounds the stages shapeStages tells apart: past it a stack's
// layers are taken as alike, and the work stays linear in the tensors.
const maxStages = 64

// shapeStages groups a stack's layers into stages by their shapes: a
// layer joins the first stage whose first layer has, of the tensor names
// both hold, mostly its shapes (a hierarchical vision model's stages
// widen from one to the next: Swin's downsampling, DPT's reassembled
// sizes). One or two changed shapes (a broken tensor) do not make a
// stage. The key of each layer's stage, "" for all when they are too many.
func shapeStages(idx []int, shapes func(int) map[string][]uint64) map[int]string {
	var firsts []int
	out := make(map[int]string, len(idx))
	for _, i := range idx {
		st := -1
		for k, f := range firsts {
			agree, differ := 0, 0
			for n, shape := range shapes(i) {
				if o, ok := shapes(f)[n]; ok {
					if slices.Equal(o, shape) {
						agree++
					} else {
						differ++
					}
				}
			}
			if differ <= 2 || differ <= agree {
				st = k
				break
			}
		}
		if st < 0 {
			if len(firsts) == maxStages {
				return map[int]string{}
			}
			st = len(firsts)
			firsts = append(firsts, i)
		}
		out[i] = strconv.Itoa(st)
	}
	return out
}

// layerList is a list of config.json (at any depth) that may say how
// layers differ: one value per layer (layer_types, reassemble_factors,
// a stage's num_heads), or the indices of the layers of a kind
// (global_attn_indexes).
type layerList struct {
	field   string
	vals    []string // each entry as JSON
	numbers bool     // all entries are numbers
	ints    []int    // the entries, when all are non-negative integers
}

// layerLists are a config's lists of scalars, and the counts of layers
// it gives for any stack.
type layerLists struct {
	lists []layerList
	// counts are the integers of the fields that count layers, blocks or
	// stages, the lengths and sums of such lists (at any depth): a stack
	// of as many layers is another stack than the main one whose count
	// was taken (xLSTM's num_blocks, Funnel's block_sizes).
	counts map[int]bool
}

// countField matches the fields that count layers, blocks or stages.
var countField = regexp.MustCompile(`(?i)layer|block|stage|depth|stack|cycle`)

// indexListName matches the fields whose lists are layer indices.
var indexListName = regexp.MustCompile(`(^|_)(idx|idxs|index|indexes|indices|ids|layers|blocks)$`)

// outputList matches the fields whose lists select the layers whose
// outputs are read (out_indices, vision_feature_layers): those layers
// are built like the others.
var outputList = regexp.MustCompile(`out|feature|hook|intermediate|extract|deepstack|target`)

// readLayerLists collects a config's lists of scalars, at any depth (a
// backbone_config's depths). A config that is not plain JSON has none.
func readLayerLists(c *spec.Config) layerLists {
	out := layerLists{counts: map[int]bool{}}
	var root any
	if c == nil || json.Unmarshal(c.Raw, &root) != nil {
		return out
	}
	var walk func(field string, v any)
	walk = func(field string, v any) {
		switch v := v.(type) {
		case float64:
			if countField.MatchString(field) && v > 0 && v <= spec.MaxLayers*64 && v == math.Trunc(v) {
				out.counts[int(v)] = true
			}
		case map[string]any:
			for k, x := range v {
				walk(k, x)
			}
		case []any:
			l := layerList{field: field, numbers: true}
			ints := true
			for _, x := range v {
				switch x.(type) {
				case map[string]any, []any:
					for _, x := range v {
						walk(field, x)
					}
					return
				}
			}
			for _, x := range v {
				switch x := x.(type) {
				case float64:
					if x < 0 || x != math.Trunc(x) || x > spec.MaxLayers*64 {
						ints = false
					}
					l.ints = append(l.ints, int(x))
				default:
					ints, l.numbers = false, false
				}
				b, _ := json.Marshal(x)
				l.vals = append(l.vals, string(b))
			}
			if !ints {
				l.ints = nil
			}
			if countField.MatchString(field) {
				out.counts[len(v)] = true
				sum := 0
				for _, x := range l.ints {
					sum += x
				}
				out.counts[sum] = true
			}
			if len(l.vals) > 1 || l.ints != nil {
				out.lists = append(out.lists, l)
			}
		}
	}
	walk("", root)
	return out
}

// keys gives each layer of a stack (its indices idx) three keys from
// the config's lists of as many entries as layers: kind, from the lists
// of names or flags (layer_types); size, from those of numbers
// (per-stage sizes and factors: DPT's reassemble_factors); index, from
// the lists of the indices of a kind of layer (global_attn_indexes).
// Layers of different keys need not be alike. Which stack a list
// describes is not known: a list may describe another stack of as many
// layers, and lose a comparison there, but never make one.
func (ls layerLists) keys(idx []int) (kind, size, index map[int]string) {
	kind, size, index = make(map[int]string, len(idx)), make(map[int]string, len(idx)), make(map[int]string, len(idx))
	if len(idx) == 0 {
		return kind, size, index
	}
	n, last := len(idx), idx[len(idx)-1]
	for _, l := range ls.lists {
		switch {
		case outputList.MatchString(l.field):
		case (len(l.vals) == n || len(l.vals) == last+1) && !allEqual(l.vals):
			to := kind
			if l.numbers {
				to = size
			}
			for _, i := range idx {
				if i < len(l.vals) {
					to[i] += l.vals[i] + "\x00"
				}
			}
		case l.ints != nil && len(l.ints) < n && indexListName.MatchString(l.field) && slices.Max(l.ints) <= last && distinct(l.vals):
			in := map[int]bool{}
			for _, x := range l.ints {
				in[x] = true
			}
			for _, i := range idx {
				index[i] += strconv.FormatBool(in[i]) + "\x00"
			}
		}
	}
	return kind, size, index
}

func allEqual(vs []string) bool {
	for _, v := range vs {
		if v != vs[0] {
			return false
		}
	}
	return true
}

func distinct(vs []string) bool {
	seen := make(map[string]bool, len(vs))
	for _, v := range vs {
		if seen[v] {
			return false
		}
		seen[v] = true
	}
	return true
}
