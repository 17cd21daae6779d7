package fusefs

import (
	"time"

	"github.com/fsmount/fsmount/internal/compare"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/model"
)

// compare adds compare/: the summary table and the lists of tensors in
// one checkpoint only, and for every tensor both have, compare/<path>/
// with its figures (stats) and MODEL − OTHER (delta.f32, delta.npy). Each
// file's size is known from the names and shapes; its content is computed
// when read, streaming both tensors.
func (t *tree) compare(c *compare.Comparison, m *model.Model, mtime *time.Time, p *perm) {
	dir := t.mkdirs(t.root, []string{layout.Compare}, mtime)
	for _, f := range c.Files() {
		t.file(dir, f.Name, viewContent{f.View, nil}, mtime, p)
	}
	shared := c.Shared()
	paths := layout.Tensors(shared, m.Names)
	for _, name := range shared {
		d := t.mkdirs(dir, paths[name], mtime)
		for _, f := range c.TensorFiles(name) {
			t.file(d, f.Name, viewContent{f.View, nil}, mtime, p)
		}
	}
}

// Comparison is a model's tensors paired by name with another
// checkpoint's, for compare/ (Options.Compare). Nothing is read until a
// file of compare/ is.
type Comparison struct{ c *compare.Comparison }

// NewComparison pairs the tensors of m with those of other, as fsinspect
// --compare does: MODEL's names, other's tensors matched by name (and a
// tied head with its embedding). It fails where the two cannot be
// compared.
func NewComparison(other, m *model.Model) (*Comparison, error) {
	c, err := compare.New(other, m, nil)
	if err != nil {
		return nil, err
	}
	return &Comparison{c}, nil
}

// comparison is the pairing, nil for none.
func (c *Comparison) comparison() *compare.Comparison {
	if c == nil {
		return nil
	}
	return c.c
}
