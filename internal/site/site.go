package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/tensor"
)

// Options are the options of [New]; nil means defaults.
type Options struct {
	// Path, if non-nil, gives the directory of a tensor's files, relative
	// to the root and slash-separated. The default is the tree's layout
	// (package layout, as [check.Report.Paths] gives it), such as
	// "layers/0/mlp/down_proj".
	Path func(tensorName string) string
	// Cache, if non-nil, keeps the rendered pages and pictures; the
	// default is a cache of render.DefaultCacheBytes of the site's own.
	Cache *render.Cache
}

// Site is the pages and pictures of one model.
type Site struct {
	report   *check.Report
	tensors  []*views.Tensor
	cache    *render.Cache
	root     *RootFile
	overview *render.OverviewFile
	pages    []*Tensor
	byName   map[string]*Tensor
}

// Tensor is the files of one tensor's directory.
type Tensor struct {
	// Dir is the directory, relative to the root, slash-separated.
	Dir     string
	Index   *render.Lazy
	Heatmap *render.Lazy
	Hist    *render.Lazy
	v       *views.Tensor
}

// File is a file of the site and its path relative to the root.
type File struct {
	Path string
	View views.View
}

// withDefaults returns the options with every unset field defaulted.
func (opts *Options) withDefaults(r *check.Report) Options {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Path == nil && r != nil {
		paths := r.Paths()
		o.Path = func(name string) string { return strings.Join(paths[name], "/") }
	}
	if o.Cache == nil {
		o.Cache = render.NewCache(0)
	}
	return o
}

// New returns the site of the report r, whose tensors' views are
// tensors (in the order the table lists them). Nothing is read or
// rendered until a file is read.
func New(r *check.Report, tensors []*views.Tensor, opts *Options) (*Site, error) {
	o := opts.withDefaults(r)
	s := &Site{report: r, tensors: tensors, cache: o.Cache, byName: map[string]*Tensor{}}
	srcs := make([]render.Source, len(tensors))
	seen := map[string]string{}
	for i, v := range tensors {
		srcs[i] = v
		p, err := s.newTensor(v, o.Path)
		if err != nil {
			return nil, err
		}
		name := v.Tensor().Name
		if other, dup := seen[p.Dir]; dup {
			return nil, fmt.Errorf("site: tensors %q and %q have the same directory %q", other, name, p.Dir)
		}
		seen[p.Dir] = name
		s.pages = append(s.pages, p)
		s.byName[name] = p
	}
	s.overview = render.NewOverview(srcs, s.cache)
	s.root = NewRoot(r, RootTensors{
		N:      len(tensors),
		Tensor: func(i int) *tensor.Tensor { return tensors[i].Tensor() },
		Shown:  func(i int) (string, []uint64) { return views.ShownBy(tensors[i].Tensor(), tensors[i].Decoder()) },
		View:   func(i int) *views.Tensor { return tensors[i] },
		Dir:    func(i int) string { return s.pages[i].Dir },
	})
	return s, nil
}

// newTensor makes the files of v's directory.
func (s *Site) newTensor(v *views.Tensor, dirOf func(string) string) (*Tensor, error) {
	name := v.Tensor().Name
	dir := dirOf(name)
	if err := checkDir(dir); err != nil {
		return nil, fmt.Errorf("site: tensor %q: %w", name, err)
	}
	p := &Tensor{Dir: dir, v: v}
	p.Heatmap = render.NewHeatmap(v, s.cache)
	p.Hist = render.NewHist(v, s.cache)
	size := int64(len(s.tensorPage(p, nil)))
	p.Index = render.NewLazy(size, s.cache, func(ctx context.Context) ([]byte, error) {
		st := s.statsOf(ctx, v)
		return s.tensorPage(p, &st), nil
	})
	return p, nil
}

// NewTensor returns the files of one tensor's directory, byte for byte
// those [New] makes for it, without the rest of the site: a tensor's
// page depends on that tensor alone, and its directory on opts.Path,
// which must be set.
func NewTensor(v *views.Tensor, opts *Options) (*Tensor, error) {
	o := opts.withDefaults(nil)
	if o.Path == nil {
		return nil, errors.New("site: NewTensor needs Options.Path")
	}
	s := &Site{cache: o.Cache}
	return s.newTensor(v, o.Path)
}

// checkDir refuses a tensor directory that is not a local relative
// path, or has a component equal to a file name of the site.
func checkDir(dir string) error {
	if dir == "" || !filepath.IsLocal(filepath.FromSlash(dir)) || path.Clean(dir) != dir || strings.Contains(dir, "\\") {
		return fmt.Errorf("directory %q is not a clean relative path", dir)
	}
	for _, c := range strings.Split(dir, "/") {
		switch c {
		case layout.Index, layout.Overview, layout.Heatmap, layout.HistPNG:
			return fmt.Errorf("directory %q has a component named as a file of the site", dir)
		}
	}
	return nil
}

// Root returns the root index.html.
func (s *Site) Root() *RootFile { return s.root }

// Overview returns overview.png.
func (s *Site) Overview() *render.OverviewFile { return s.overview }

// Tensor returns the files of the tensor named name, or nil.
func (s *Site) Tensor(name string) *Tensor { return s.byName[name] }

// Files returns every file of the site: index.html and overview.png,
// then each tensor's index.html, heatmap.png and hist.png.
func (s *Site) Files() []File {
	fs := []File{{layout.Index, s.root}, {layout.Overview, s.overview}}
	for _, p := range s.pages {
		fs = append(fs, File{p.Dir + "/" + layout.Index, p.Index}, File{p.Dir + "/" + layout.Heatmap, p.Heatmap}, File{p.Dir + "/" + layout.HistPNG, p.Hist})
	}
	return fs
}

// Write writes every file of s under dir (created if missing), calling
// progress, if non-nil, after each file with the files done, their
// total and the path written.
func Write(ctx context.Context, dir string, s *Site, progress func(done, total int, path string)) error {
	files := s.Files()
	for i, f := range files {
		if err := ctx.Err(); err != nil {
			return err
		}
		full := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := writeFile(full, f.View); err != nil {
			return fmt.Errorf("site: %s: %w", f.Path, err)
		}
		if progress != nil {
			progress(i+1, len(files), f.Path)
		}
	}
	return nil
}

func writeFile(name string, v views.View) error {
	out, err := os.Create(name)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.NewSectionReader(v, 0, v.Size()))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n != v.Size() {
		err = errors.New("short view")
	}
	return err
}
