package fusefs

import (
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/model"
)

// Prepared is the part of a model's tree that needs only its files, not
// its check: the directories of its tensors. [Prepare] computes it on
// another goroutine while the caller checks the model (check.Check runs
// on one core: for 500,000 tensors the paths then cost mount-ready no
// time), and [Options].Prepared hands it to [Mount].
type Prepared struct {
	m     *model.Model
	done  chan struct{}
	paths []string // layout.TensorPaths of the model's tensors, in their order
}

// Prepare starts laying out m's tensors.
func Prepare(m *model.Model) *Prepared {
	p := &Prepared{m: m, done: make(chan struct{})}
	par.Go(func() {
		defer close(p.done)
		tensors := m.Tensors()
		names := make([]string, len(tensors))
		for i, t := range tensors {
			names[i] = t.Name
		}
		p.paths = layout.TensorPaths(names, hfNames(m))
	})
	return p
}

// pathsFor returns the paths of the tree's names (pathNames), waiting
// for them, where p has them: p is of the same model, and the names are
// its tensors' alone (nothing lacking: a lacking name can change the
// path of a tensor it would meet). Otherwise nil.
func (p *Prepared) pathsFor(m *model.Model, names []string) []string {
	if p == nil || p.m != m {
		return nil
	}
	<-p.done
	if len(p.paths) != len(names) {
		return nil
	}
	return p.paths
}
