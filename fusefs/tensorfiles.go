package fusefs

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/lru"
	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/site"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// A tensor's directory holds a fixed set of files (tensorFiles). They are
// not stored as entries: a model of 37,000 tensors would hold 370,000.
// The directory's entry points at a tensorDir, and child and list make
// the file entries when the kernel asks, with inode numbers reserved for
// them when the tree is built. The decoded views (values, stats, …) are
// made on the first lookup of one of them and kept with the tensorDir;
// nothing is decoded until a file is read.
type tensorDir struct {
	t     *tensor.Tensor
	ino   uint64 // the first of len(tensorFiles) inode numbers
	mtime *time.Time
	perm  *perm
	path  string // the directory, from the root ("layers/0/mlp/down_proj")
	index int    // the tensor's in the model's order
}

// tensorFiles are a tensor directory's files, sorted by name.
var tensorFiles = func() []tensorFile {
	fs := []tensorFile{
		{layout.Shape, func(_ *tree, d *tensorDir) content { return bytesContent(tensor.FormatShape(d.t.Shape) + "\n") }},
		{layout.DType, func(_ *tree, d *tensorDir) content { return bytesContent(d.t.DType.String() + "\n") }},
		{layout.Data, func(_ *tree, d *tensorDir) content { return tensorBytes(d.t) }},
		{layout.Location, func(_ *tree, d *tensorDir) content {
			if len(d.t.Strides) > 0 {
				// Not a byte range: a view of a storage, gathered on read.
				return bytesContent(fmt.Sprintf("%s %d %d strides %s\n", path.Base(filepath.ToSlash(d.t.File.Name())), d.t.StorageOffset, d.t.Length, tensor.FormatShape(d.t.Strides)))
			}
			return bytesContent(fmt.Sprintf("%s %d %d\n", path.Base(filepath.ToSlash(d.t.File.Name())), d.t.Offset, d.t.Length))
		}},
		{layout.Values, func(t *tree, d *tensorDir) content { return viewContent{t.views(d).Values(), d.t.File} }},
		{layout.ValuesF32, func(t *tree, d *tensorDir) content { return viewContent{t.views(d).ValuesF32(), d.t.File} }},
		{layout.ValuesNPY, func(t *tree, d *tensorDir) content { return npyContent(t.views(d).NPY(), d.t.File) }},
		{layout.Stats, func(t *tree, d *tensorDir) content { return viewContent{t.views(d).StatsFile(), d.t.File} }},
		{layout.SHA256, func(t *tree, d *tensorDir) content { return viewContent{t.views(d).SHA256File(), d.t.File} }},
		{layout.Hist, func(t *tree, d *tensorDir) content { return viewContent{t.views(d).HistFile(), d.t.File} }},
		{layout.Heatmap, func(t *tree, d *tensorDir) content {
			return viewContent{render.NewHeatmap(t.views(d), t.pictures), d.t.File}
		}},
		{layout.HistPNG, func(t *tree, d *tensorDir) content {
			return viewContent{render.NewHist(t.views(d), t.pictures), d.t.File}
		}},
		{layout.Index, func(t *tree, d *tensorDir) content { return &sitePage{t: t, dir: d, file: d.t.File} }},
	}
	slices.SortFunc(fs, func(a, b tensorFile) int { return strings.Compare(a.name, b.name) })
	return fs
}()

type tensorFile struct {
	name string
	make func(*tree, *tensorDir) content
}

func tensorFileIndex(name string) int {
	i, ok := slices.BinarySearchFunc(tensorFiles, name, func(f tensorFile, n string) int { return strings.Compare(f.name, n) })
	if !ok {
		return -1
	}
	return i
}

// newTensorDir reserves the inode numbers of a tensor's files.
func (t *tree) newTensorDir(tt *tensor.Tensor, mtime *time.Time, p *perm) *tensorDir {
	d := &tensorDir{t: tt, ino: t.nextIno + 1, mtime: mtime, perm: p}
	t.nextIno += uint64(len(tensorFiles))
	return d
}

// tensorFileEntry makes the entry of a tensor's i-th file.
func (t *tree) tensorFileEntry(d *tensorDir, i int) *entry {
	f := tensorFiles[i]
	return &entry{name: f.name, mode: syscall.S_IFREG | 0o444, ino: d.ino + uint64(i), mtime: d.mtime, perm: d.perm, content: f.make(t, d)}
}

// child finds a directory's child by name: a tensor's file, or a stored
// entry.
func (t *tree) child(e *entry, name string) *entry {
	e = t.made(e)
	if e.td != nil {
		if i := tensorFileIndex(name); i >= 0 {
			return t.tensorFileEntry(e.td, i)
		}
	}
	if e.exp != nil && name == layout.Shape {
		return &entry{name: layout.Shape, mode: syscall.S_IFREG | 0o444, ino: e.exp.ino, mtime: e.mtime, perm: e.perm, content: shapeContent(e.exp.shape)}
	}
	if c := e.child(name); c != nil || e.span == nil {
		return c
	}
	return t.spanChild(e, name)
}

// tensorFileNames are the names of tensorFiles; shapeOnly, an expected
// tensor's directory's.
var (
	tensorFileNames = func() []string {
		names := make([]string, len(tensorFiles))
		for i, f := range tensorFiles {
			names[i] = f.name
		}
		return names
	}()
	shapeOnly = []string{layout.Shape}
)

// filesOnly returns the names of the files of a directory that holds its
// own files alone, as list gives them, and the inode number of the first
// (the others follow it); ok is false for any other directory.
func (t *tree) filesOnly(e *entry) (names []string, ino uint64, ok bool) {
	if len(e.children) > 0 || e.span != nil {
		return nil, 0, false
	}
	switch {
	case e.td != nil && e.exp == nil: // never lazy (made)
		return tensorFileNames, e.td.ino, true
	case e.exp != nil && e.td == nil:
		if _, lazy := t.lazy.Load(e); !lazy {
			return shapeOnly, e.exp.ino, true
		}
	}
	return nil, 0, false
}

// list returns a directory's children sorted by name, a tensor's files
// among them. The files' contents are not made.
func (t *tree) list(e *entry) []*entry {
	e = t.made(e)
	if e.td == nil && e.span == nil && e.exp == nil {
		return e.children
	}
	out := make([]*entry, 0, len(e.children)+len(tensorFiles))
	out = append(out, e.children...)
	if e.td != nil {
		for i, f := range tensorFiles {
			out = append(out, &entry{name: f.name, mode: syscall.S_IFREG | 0o444, ino: e.td.ino + uint64(i)})
		}
	}
	if e.exp != nil {
		out = append(out, &entry{name: layout.Shape, mode: syscall.S_IFREG | 0o444, ino: e.exp.ino})
	}
	if e.span != nil {
		out = t.spanList(e, out)
	}
	slices.SortFunc(out, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
	return out
}

// maxViews bounds the tensors whose views (and cached statistics, about
// 1.2 KB and 0.8 KB) the daemon keeps: the kernel may look up every file
// of a 37,000-tensor model and keep the inodes as long as it likes.
// Beyond it the least recently used are dropped, and made again (a
// statistic then costs another scan).
const maxViews = 8192

// viewCache keeps the views of the tensors used last.
type viewCache struct {
	max   int // 0 means maxViews
	mu    sync.Mutex
	views lru.Cache[*tensorDir, *views.Tensor] // bounded by count
}

// views returns the decoded views of a tensor, made on first use.
func (t *tree) views(d *tensorDir) *views.Tensor {
	c := &t.viewCache
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.views.Get(d); ok {
		return v
	}
	c.views.Max = int64(cmp.Or(c.max, maxViews))
	v := views.NewTensor(d.t, t.companions.Options(d.t))
	c.views.Add(d, v)
	return v
}

// viewContent serves a decoded view. A read of a file that changed since
// mounting fails with EIO, like data's.
type viewContent struct {
	v    views.View
	file source.File
}

func (c viewContent) size() int64 { return c.v.Size() }

func (c viewContent) read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if c.file != nil {
		if errno := t.checkFile(c.file); errno != 0 {
			return nil, errno
		}
	}
	n := min(int64(len(dest)), c.v.Size()-off)
	k, err := c.v.ReadAt(dest[:n], off)
	if int64(k) < n || err != nil && !errors.Is(err, io.EOF) {
		if errors.Is(err, source.ErrChanged) {
			t.changed(c.file, err)
		} else {
			t.warnOnce(fmt.Sprintf("view:%v", err), fmt.Sprintf("%v", err))
		}
		return nil, syscall.EIO
	}
	return fuse.ReadResultData(dest[:n]), fs.OK
}

// npyRaw is a values.npy whose data is the tensor's own bytes: the
// generated header from memory, the rest from the model file (spliced,
// when a read lies past the header).
type npyRaw struct {
	hdr []byte
	raw fileRange
}

func npyContent(n *views.NPY, f source.File) content {
	file, off, length, ok := n.Raw()
	if !ok {
		return viewContent{n, f}
	}
	return npyRaw{hdr: n.Header(), raw: fileRange{f: file, off: off, n: length}}
}

func (c npyRaw) size() int64 { return int64(len(c.hdr)) + c.raw.n }

func (c npyRaw) read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	h := int64(len(c.hdr))
	if off >= h {
		return c.raw.read(t, dest, off-h)
	}
	n := min(int64(len(dest)), c.size()-off)
	k := copy(dest[:n], c.hdr[off:])
	if rest := n - int64(k); rest > 0 {
		if errno := t.checkFile(c.raw.f); errno != 0 {
			return nil, errno
		}
		if m, err := c.raw.f.ReadAt(dest[k:n], c.raw.off); int64(m) < rest {
			t.warnOnce(c.raw.f.Name(), fmt.Sprintf("reading %s: %v", c.raw.f.Name(), err))
			return nil, syscall.EIO
		}
	}
	return fuse.ReadResultData(dest[:n]), fs.OK
}

// rootStats is the model's stats table. Its views are made on the first
// lookup: the table needs every tensor's.
type rootStats struct {
	t    *tree
	dirs []*tensorDir
	once sync.Once
	v    views.View
}

func (r *rootStats) view() views.View {
	r.once.Do(func() {
		vs := make([]*views.Tensor, len(r.dirs))
		for i, d := range r.dirs {
			vs[i] = r.t.views(d)
		}
		r.v = views.NewModel(vs).StatsTable()
	})
	return r.v
}

func (r *rootStats) size() int64 { return r.view().Size() }

func (r *rootStats) read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	n := min(int64(len(dest)), r.size()-off)
	k, err := r.view().ReadAt(dest[:n], off)
	if int64(k) < n || err != nil && !errors.Is(err, io.EOF) {
		if errors.Is(err, source.ErrChanged) {
			t.changed(nil, err)
		} else {
			t.warnOnce("stats", fmt.Sprintf("stats: %v", err))
		}
		return nil, syscall.EIO
	}
	return fuse.ReadResultData(dest[:n]), fs.OK
}

// The pages: index.html at the root and in every tensor's directory, and
// overview.png, from package site. The site needs the views of every
// tensor (the root page's table), so it is made on the first lookup of
// one of its files, and keeps those views; the pictures of one tensor
// (heatmap.png, hist.png) are made without it.

// site returns the tree's site, made on first use.
func (t *tree) site() (*site.Site, error) {
	t.siteOnce.Do(func() {
		vs := make([]*views.Tensor, len(t.dirs))
		for i, d := range t.dirs {
			vs[i] = t.views(d)
		}
		t.siteV, t.siteErr = site.New(t.report, vs, &site.Options{Path: t.sitePath, Cache: t.pictures})
	})
	return t.siteV, t.siteErr
}

// sitePage is a page (or overview.png) of the site: a tensor's
// index.html when dir is set, else the root page or the overview. A
// tensor's page depends on that tensor alone, so it is made alone
// (site.NewTensor): listing a tensor directory does not make the views of
// every tensor.
type sitePage struct {
	t        *tree
	dir      *tensorDir
	overview bool
	file     source.File

	once sync.Once
	v    views.View
}

func (p *sitePage) view() views.View {
	p.once.Do(func() {
		if p.dir != nil {
			pg, err := site.NewTensor(p.t.views(p.dir), &site.Options{Path: p.t.sitePath, Cache: p.t.pictures})
			if err != nil {
				p.v = errView{err}
			} else {
				p.v = pg.Index
			}
			return
		}
		if !p.overview {
			// The root page alone, streamed: it keeps no tensor's views,
			// and its own figures of each row, so it makes views outside
			// the cache rather than push out those of the tensors in use.
			t := p.t
			p.v = site.NewRoot(t.report, site.RootTensors{
				N:      len(t.dirs),
				Tensor: func(i int) *tensor.Tensor { return t.dirs[i].t },
				Shown: func(i int) (string, []uint64) {
					d := t.dirs[i]
					return views.Shown(d.t, t.companions.Options(d.t))
				},
				View: func(i int) *views.Tensor {
					d := t.dirs[i]
					return views.NewTensor(d.t, t.companions.Options(d.t))
				},
				Dir: func(i int) string { return t.dirs[i].path },
			})
			return
		}
		s, err := p.t.site()
		if err != nil {
			p.v = errView{err}
		} else {
			p.v = s.Overview()
		}
	})
	return p.v
}

func (p *sitePage) size() int64 { return p.view().Size() }

func (p *sitePage) read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return viewContent{p.view(), p.file}.read(t, dest, off)
}

// errView is an empty file whose reads fail.
type errView struct{ err error }

func (e errView) Size() int64                             { return 0 }
func (e errView) ReadAt(p []byte, off int64) (int, error) { return 0, e.err }
