package model

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// ModulesName is the file that makes a directory a sentence-transformers
// repository: the list of its modules, in the order they run.
const ModulesName = "modules.json"

// maxModules bounds the modules a modules.json may list; real ones have
// two to five.
const maxModules = 64

// Module kinds: the last component of a module's type, as
// sentence_transformers.models names its classes.
const (
	ModuleTransformer = "Transformer"
	ModulePooling     = "Pooling"
	ModuleDense       = "Dense"
	ModuleNormalize   = "Normalize"
)

// Module is one module of a sentence-transformers repository, as
// modules.json lists it. The transformer module's config and tensors are
// the Model's own; another module's are its own directory's.
type Module struct {
	Index int    // modules.json's idx
	Name  string // modules.json's name
	Path  string // its directory, relative to the repository; "" for the root
	Type  string // sentence_transformers.models.Dense, …
	// Config is the module's config.json (Pooling's, Dense's), nil when
	// it has none (Normalize) or for the transformer (the Model's).
	Config     []byte
	ConfigName string
	ConfigFile source.File
	// Files and Tensors are the module's weights (Dense's
	// model.safetensors or pytorch_model.bin), sorted by name.
	Files   []source.File
	Tensors []*tensor.Tensor
}

// Kind is the module's class name: ModuleDense for
// sentence_transformers.models.Dense.
func (m *Module) Kind() string { return m.Type[strings.LastIndexByte(m.Type, '.')+1:] }

// Dir is the module's directory as the report and the tree name it: its
// path, or its name for a module at the root.
func (m *Module) Dir() string {
	if m.Path != "" {
		return m.Path
	}
	return m.Name
}

// ModuleError is a modules.json, or a module's file, that cannot be used.
type ModuleError struct {
	File string
	Msg  string
}

func (e *ModuleError) Error() string { return e.File + ": " + e.Msg }

// readModules reads modules.json: nil, nil when there is none.
func readModules(fsys source.FS) ([]*Module, error) {
	f, raw, err := source.ReadAll(fsys, ModulesName, MaxConfigSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	f.Close()
	name := join(fsys, ModulesName)
	var list []struct {
		Idx  int    `json:"idx"`
		Name string `json:"name"`
		Path string `json:"path"`
		Type string `json:"type"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &ModuleError{name, "not a JSON list of modules: " + err.Error()}
	}
	if len(list) > maxModules {
		return nil, &ModuleError{name, fmt.Sprintf("%d modules, more than %d", len(list), maxModules)}
	}
	mods := make([]*Module, len(list))
	transformers := 0
	for i, e := range list {
		if e.Path != "" && (!fs.ValidPath(e.Path) || strings.Contains(e.Path, "\\")) {
			return nil, &ModuleError{name, fmt.Sprintf("module %d: path %q is not a relative path inside the repository", i, e.Path)}
		}
		if e.Type == "" {
			return nil, &ModuleError{name, fmt.Sprintf("module %d has no type", i)}
		}
		mods[i] = &Module{Index: e.Idx, Name: e.Name, Path: e.Path, Type: e.Type}
		if mods[i].Kind() == ModuleTransformer {
			transformers++
		}
	}
	if transformers > 1 {
		return nil, &ModuleError{name, fmt.Sprintf("%d Transformer modules; one is checked as the model", transformers)}
	}
	return mods, nil
}

// subFS is a directory of an FS as an FS of its own: a module's.
type subFS struct {
	fsys source.FS
	dir  string
}

func (s subFS) Open(name string) (source.File, error) { return s.fsys.Open(s.dir + "/" + name) }
func (s subFS) List() ([]string, error)               { return nil, source.ErrNotListable }
func (s subFS) String() string                        { return join(s.fsys, s.dir) }

// sub is fsys's directory dir, local where fsys is.
func sub(fsys source.FS, dir string) source.FS {
	if d, ok := fsys.(source.Dir); ok {
		return source.Dir(filepath.Join(string(d), filepath.FromSlash(dir)))
	}
	return subFS{fsys, dir}
}

// openSentence opens a directory with modules.json as a
// sentence-transformers repository: the transformer module as the model
// (at the root, or in its module directory, 0_Transformer/), and every
// other module's config and weights. m and err are the root opened as a
// model directory; open opens one, for a transformer in its own.
func openSentence(loc string, fsys source.FS, mods []*Module, m *Model, err error, open func(source.FS) (*Model, error)) (*Model, error) {
	for _, mod := range mods {
		if mod.Kind() == ModuleTransformer && mod.Path != "" {
			if m != nil {
				m.Close()
			}
			m, err = open(sub(fsys, mod.Path))
		}
	}
	if err != nil {
		return nil, err
	}
	m.Location = loc
	m.Modules = mods
	for _, mod := range mods {
		if mod.Kind() == ModuleTransformer {
			continue
		}
		if err := m.openModule(fsys, mod); err != nil {
			m.Close()
			return nil, err
		}
	}
	return m, nil
}

// openModule reads a module's config.json and its weights, if it has
// them: model.safetensors, else pytorch_model.bin, as
// sentence-transformers loads them.
func (m *Model) openModule(fsys source.FS, mod *Module) error {
	dir := fsys
	if mod.Path != "" {
		dir = sub(fsys, mod.Path)
	}
	cf, cfg, err := source.ReadAll(dir, ConfigName, MaxConfigSize)
	switch {
	case err == nil:
		mod.Config, mod.ConfigName, mod.ConfigFile = cfg, cf.Name(), cf
		m.closers = append(m.closers, cf)
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	if mod.Path == "" {
		return nil // weights at the root are the transformer's
	}
	st, err := openSafetensors(dir, SingleName)
	if err == nil {
		m.closers = append(m.closers, st)
		mod.Files, mod.Tensors = []source.File{st.Source()}, sortedTensors(st.Tensors())
		return nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	pt, err := openPyTorch(dir, PyTorchName)
	if err == nil {
		m.closers = append(m.closers, pt)
		mod.Files, mod.Tensors = []source.File{pt.Source()}, sortedTensors(pt.Tensors())
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) && !errors.Is(err, pytorch.ErrFormat) {
		return nil
	}
	return err
}

// sortedTensors is ts sorted by name, in a new slice.
func sortedTensors(ts []*tensor.Tensor) []*tensor.Tensor {
	out := slices.Clone(ts)
	slices.SortFunc(out, func(a, b *tensor.Tensor) int { return strings.Compare(a.Name, b.Name) })
	return out
}
