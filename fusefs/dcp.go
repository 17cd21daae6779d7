package fusefs

import (
	"fmt"
	"path"
	"strings"
	"syscall"
	"time"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// dcpItems lays out what a PyTorch Distributed Checkpoint holds besides
// its weights (model.DCPState), among the tensors: optim/PARAM/STATE/, a
// tensor's directory per optimizer tensor, PARAM laid out as the weight's
// own directory (optim/layers/0/mlp/up_proj/exp_avg/); extra/NAME/ per
// other tensor; extra/objects, a line per value that is not a tensor
// (its key, and its item's bytes, file and offset). None for other
// models.
func (t *tree) dcpItems(m *model.Model, mtimes map[source.File]*time.Time, fperm map[source.File]*perm, top *time.Time, all *perm) []item {
	st := m.DCP
	if st == nil {
		return nil
	}
	var items []item
	add := func(tt *tensor.Tensor, p string) {
		base := source.BaseOf(tt.File)
		items = append(items, item{td: tensorDir{t: tt, mtime: mtimes[base], perm: fperm[base], path: p, index: -1}})
	}
	// Each parameter once (its states follow one another), laid out as
	// the weights are.
	var params []string
	for _, o := range st.Optimizer {
		if len(params) == 0 || params[len(params)-1] != o.Param {
			params = append(params, o.Param)
		}
	}
	paths := layout.Tensors(params, nil)
	for _, o := range st.Optimizer {
		add(o.T, layout.Optim+"/"+strings.Join(paths[o.Param], "/")+"/"+strings.Join(layout.Escape(o.State), "/"))
	}
	names := make([]string, len(st.Other))
	for i, o := range st.Other {
		names[i] = o.Name
	}
	for i, p := range layout.TensorPaths(names, nil) {
		add(st.Other[i], layout.Extra+"/"+p)
	}
	if len(st.Objects) > 0 {
		var b strings.Builder
		for _, o := range st.Objects {
			fmt.Fprintf(&b, "%s\t%d bytes\t%s\t%d\n", o.Key, o.Length, path.Base(o.File.Name()), o.Offset)
		}
		e := t.newEntry(layout.Objects, syscall.S_IFREG|0o444, top)
		e.perm, e.content = all, bytesContent(b.String())
		items = append(items, item{td: tensorDir{path: layout.Extra + "/" + layout.Objects, index: -1}, ent: e})
	}
	return items
}
