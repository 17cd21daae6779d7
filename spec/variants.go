package spec

import "strings"

// PickVariant rewrites the plan's names to the layout (Family.Variants)
// the files match best: the one under which most expected tensors exist.
// The family's own layout wins a tie, so a model missing everything is
// reported under the names of transformers 4.x.
func (p *Plan) PickVariant(has func(name string) bool) {
	if len(p.variants) == 0 {
		return
	}
	score := func(v [][2]string) int {
		n := 0
		for i := range p.Tensors {
			if has(rebase(p.Tensors[i].Name, v)) {
				n++
			}
		}
		return n
	}
	best, bestScore := -1, score(nil)
	for i, v := range p.variants {
		if s := score(v); s > bestScore {
			best, bestScore = i, s
		}
	}
	if best < 0 {
		return
	}
	v := p.variants[best]
	for i := range p.Tensors {
		p.Tensors[i].Name = rebase(p.Tensors[i].Name, v)
	}
	for i := range p.Blocks {
		p.Blocks[i].Prefix = rebase(p.Blocks[i].Prefix, v)
	}
	p.Embed, p.HeadName = rebase(p.Embed, v), rebase(p.HeadName, v)
	var from []string
	for _, r := range v {
		from = append(from, strings.TrimSuffix(r[0], ".")+" → "+strings.TrimSuffix(r[1], "."))
	}
	p.Notes = append(p.Notes, "names as transformers 5.x writes them: "+strings.Join(from, ", "))
}

// rebase returns name with its first matching prefix replaced; a pair
// whose first string starts with "*" rewrites that infix wherever it is
// (a weight-normed convolution's parametrizations.weight.original0 saved
// as weight_g by torch before its parametrizations: blocks_codec.go).
func rebase(name string, pairs [][2]string) string {
	for _, p := range pairs {
		if from, ok := strings.CutPrefix(p[0], "*"); ok {
			if i := strings.Index(name, from); i >= 0 {
				return name[:i] + strings.TrimPrefix(p[1], "*") + name[i+len(from):]
			}
			continue
		}
		if strings.HasPrefix(name, p[0]) {
			return p[1] + name[len(p[0]):]
		}
	}
	return name
}

// PickShapes sets the tensors that have another writer's shape (T.Alt)
// to it when the files match those shapes better than the family's own:
// all of them at once, so a file mixing both writers' shapes fails on
// the tensors it gets wrong. shape gives a tensor's shape in the files
// (nil when absent).
func (p *Plan) PickShapes(shape func(name string) []uint64) {
	same := func(a []uint64, b []Dim) bool {
		if len(a) != len(b) {
			return false
		}
		for i := range a {
			if a[i] != b[i].Val {
				return false
			}
		}
		return true
	}
	own, alt := 0, 0
	for i := range p.Tensors {
		e := &p.Tensors[i]
		if e.Alt == nil {
			continue
		}
		s := shape(e.Name)
		if same(s, e.Shape) {
			own++
		} else if same(s, e.Alt) {
			alt++
		}
	}
	if alt <= own {
		return
	}
	for i := range p.Tensors {
		if e := &p.Tensors[i]; e.Alt != nil {
			e.Shape = e.Alt
		}
	}
	if p.altNote != "" {
		p.Notes = append(p.Notes, p.altNote)
	}
}
