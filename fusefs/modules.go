package fusefs

import (
	"path"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/tensor"
)

// modules fills modules/ for a sentence-transformers repository: a
// directory per module after the transformer (whose tree is the root's),
// named as in the repository (1_Pooling, 2_Dense), holding its
// config.json and a directory per tensor (linear/ for linear.weight,
// laid out as the model's) with its shape, dtype and data.
func (t *tree) modules(m *model.Model, top *time.Time) {
	root := t.mkdirs(t.root, []string{layout.Modules}, top)
	for _, mod := range m.Modules {
		if mod.Kind() == model.ModuleTransformer {
			continue
		}
		var comps []string
		for _, c := range strings.Split(mod.Dir(), "/") {
			comps = append(comps, layout.EscapeFileName(c)...)
		}
		dir := t.mkdirs(root, comps, top)
		if mod.ConfigFile != nil {
			mt := mod.ConfigFile.ModTime()
			t.file(dir, layout.Config, bytesContent(mod.Config), &mt, t.perms.of(mod.ConfigFile))
		}
		names := make([]string, len(mod.Tensors))
		for i, tt := range mod.Tensors {
			names[i] = tt.Name
		}
		paths := layout.TensorPaths(names, nil)
		for i, tt := range mod.Tensors {
			t.moduleTensor(dir, paths[i], tt)
		}
	}
}

// moduleTensor adds a module's tensor's directory at p below dir: its
// shape, dtype and bytes, as a tensor directory of the model holds them.
func (t *tree) moduleTensor(dir *entry, p string, tt *tensor.Tensor) {
	mt := tt.File.ModTime()
	perm := t.perms.of(tt.File)
	d := dir
	for _, c := range strings.Split(path.Clean(p), "/") {
		// Not child: the children are sorted only once the tree is
		// finished. A module has a handful of tensors.
		if i := slices.IndexFunc(d.children, func(e *entry) bool { return e.name == c && e.isDir() }); i >= 0 {
			d = d.children[i]
			continue
		}
		e := t.newEntry(c, syscall.S_IFDIR|0o555, &mt)
		d.children = append(d.children, e)
		d = e
	}
	t.text(d, layout.Shape, tensor.FormatShape(tt.Shape)+"\n", &mt, perm)
	t.text(d, layout.DType, tt.DType.String()+"\n", &mt, perm)
	t.file(d, layout.Data, tensorBytes(tt), &mt, perm)
}
