package fusefs

import (
	"cmp"
	"fmt"
	"log"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/fsmount/fsmount/internal/compare"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/site"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/spec"
	"github.com/fsmount/fsmount/tensor"
)

// entry is one name in the tree. The whole tree is built once, at mount,
// as plain values; go-fuse inodes are made only for the entries the
// kernel looks up, so a 37,000-tensor checkpoint mounts in milliseconds
// and idle entries cost a few dozen bytes.
type entry struct {
	name     string
	mode     uint32 // S_IFDIR|0555, S_IFREG|0444 or S_IFLNK|0777
	ino      uint64
	mtime    *time.Time
	perm     *perm      // who may read it; mode's permission bits are unused
	td       *tensorDir // a tensor's directory: its files (tensorfiles.go)
	children []*entry   // directories: sorted by name
	content  content    // files
	target   string     // links
}

func (e *entry) isDir() bool { return e.mode&syscall.S_IFMT == syscall.S_IFDIR }

// child finds a directory's child by name.
func (e *entry) child(name string) *entry {
	i, ok := slices.BinarySearchFunc(e.children, name, func(c *entry, n string) int { return strings.Compare(c.name, n) })
	if !ok {
		return nil
	}
	return e.children[i]
}

// tree is a built tree and what its entries share.
type tree struct {
	root    *entry
	splice  bool // serve data with ReadResultFd rather than from the mapping
	logger  *log.Logger
	warned  sync.Map // keys of warnings already logged
	perms   *perms
	nextIno uint64
	bytes   uint64 // of every model file, for statfs

	model      *model.Model
	report     *spec.Report
	companions *views.Companions
	viewCache  viewCache
	dirs       []*tensorDir        // every tensor's, in the model's order
	paths      map[string][]string // tree path of every tensor
	pictures   *render.Cache

	siteOnce sync.Once
	siteV    *site.Site
	siteErr  error

	reads atomic.Int64 // lookups and reads served, for watch
	live  liveFiles    // looked-up files, pruned by watch
	busy  bool         // watch's: reads since the last release

	open           *openMode    // how OPEN is answered (passthrough.go)
	passthroughErr error        // why a mount that asked for passthrough has none
	opens          atomic.Int64 // OPENs answered: one (ENOSYS) in no-open mode
	wholeReads     atomic.Int64 // READs of files/ served here: none with passthrough

	dyn        []*dynText // verdict and report
	hasChanged atomic.Bool
	rootNode   atomic.Pointer[node]
}

func (t *tree) newEntry(name string, mode uint32, mtime *time.Time) *entry {
	t.nextIno++
	return &entry{name: name, mode: mode, ino: t.nextIno, mtime: mtime}
}

// mkdirs returns the directory at comps below dir, creating what is
// missing. Paths must be added in component order (sortPaths), so that an
// existing directory on the way is always its parent's last child.
func (t *tree) mkdirs(dir *entry, comps []string, mtime *time.Time) *entry {
	for _, c := range comps {
		if n := len(dir.children); n > 0 && dir.children[n-1].name == c && dir.children[n-1].isDir() {
			dir = dir.children[n-1]
			continue
		}
		d := t.newEntry(c, syscall.S_IFDIR|0o555, mtime)
		dir.children = append(dir.children, d)
		dir = d
	}
	return dir
}

func (t *tree) file(dir *entry, name string, c content, mtime *time.Time, p *perm) {
	e := t.newEntry(name, syscall.S_IFREG|0o444, mtime)
	e.content, e.perm = c, p
	dir.children = append(dir.children, e)
}

func (t *tree) text(dir *entry, name string, s string, mtime *time.Time, p *perm) {
	t.file(dir, name, bytesContent(s), mtime, p)
}

// finish sorts every directory's children by name and fails if two of
// them share a name: child's binary search relies on names being unique,
// and a tensor path must never shadow a file of the tree. It gives each
// directory the narrowest perm of what it holds.
func (t *tree) finish(e *entry, path string) error {
	slices.SortFunc(e.children, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
	var p *perm
	if e.td != nil {
		p = e.td.perm // its files'
	}
	for i, c := range e.children {
		if i > 0 && e.children[i-1].name == c.name || e.td != nil && tensorFileIndex(c.name) >= 0 {
			return fmt.Errorf("fusefs: two entries named %q in /%s", c.name, path)
		}
		if c.isDir() {
			if err := t.finish(c, strings.TrimPrefix(path+"/"+c.name, "/")); err != nil {
				return err
			}
		}
		p = t.perms.and(p, c.perm)
	}
	if e.perm == nil {
		e.perm = p
	}
	if e.perm == nil {
		e.perm = t.perms.intern(t.perms.owner)
	}
	return nil
}

func comparePaths(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// pictureCache bounds the rendered pictures and pages kept (the largest
// heatmap is 3.9 MB).
const pictureCache = 64 << 20

// sitePath is a tensor's directory in the tree, as the site links it.
func (t *tree) sitePath(name string) string { return strings.Join(t.paths[name], "/") }

// maxLinkTarget is the longest symlink target readlink(2) returns through
// FUSE (a page, less the terminating NUL).
const maxLinkTarget = 4095

// buildTree lays out the tree (README.md, "The tree") for a checked model.
func buildTree(r *spec.Report, uid, gid uint32, cmp *compare.Comparison) (*tree, error) {
	m := r.Model
	t := &tree{perms: newPerms(uid, gid), model: m, report: r, companions: views.NewCompanions(m.Tensor, m.Config),
		pictures: render.NewCache(pictureCache)}
	t.companions.Warn = func(name string, err error) {
		t.warnOnce("quant:"+name, fmt.Sprintf("%s: not dequantized: %v", name, err))
	}
	top := new(time.Time)
	mtimes := make(map[source.File]*time.Time, len(m.Files))
	fperm := make(map[source.File]*perm, len(m.Files))
	var all, cfgPerm *perm // what derives from every file; from config.json
	for _, f := range m.Files {
		mt := f.ModTime()
		mtimes[f] = &mt
		if mt.After(*top) {
			*top = mt
		}
		fperm[f] = t.perms.of(f)
		all = t.perms.and(all, fperm[f])
		t.bytes += uint64(f.Size())
	}
	if m.ConfigFile != nil {
		cfgPerm = t.perms.of(m.ConfigFile)
		all = t.perms.and(all, cfgPerm)
	}
	t.root = t.newEntry("", syscall.S_IFDIR|0o555, top)
	tensors := m.Tensors()
	expected := r.ExpectedSet()
	paths := r.Paths()

	var shapes strings.Builder
	for _, tt := range tensors {
		shapeLine(&shapes, tt.Name, tt.Shape)
	}
	verdict, report := newDynText(r.Verdict()), newDynText(r.Text())
	t.dyn = []*dynText{verdict, report}
	t.file(t.root, layout.Verdict, verdict, top, all)
	t.file(t.root, layout.Report, report, top, all)
	if m.ConfigFile != nil {
		// Not for GGUF: its config is derived from metadata/, not a file.
		t.file(t.root, layout.Config, bytesContent(m.Config), top, cfgPerm)
	}
	t.text(t.root, layout.Shapes, shapes.String(), top, all)

	// The tensors, in path order.
	type placed struct {
		comps []string
		t     *tensor.Tensor
	}
	byPath := make([]placed, len(tensors))
	for i, tt := range tensors {
		byPath[i] = placed{paths[tt.Name], tt}
	}
	slices.SortFunc(byPath, func(a, b placed) int { return comparePaths(a.comps, b.comps) })
	dirOf := make(map[*tensor.Tensor]*tensorDir, len(tensors))
	for _, p := range byPath {
		tt := p.t
		mtime, fp := mtimes[tt.File], fperm[tt.File]
		dir := t.mkdirs(t.root, p.comps, mtime)
		dir.td = t.newTensorDir(tt, mtime, fp)
		dirOf[tt] = dir.td
	}
	t.dirs = make([]*tensorDir, len(tensors))
	for i, tt := range tensors {
		t.dirs[i] = dirOf[tt]
	}
	t.paths = paths
	t.file(t.root, layout.Stats, &rootStats{t: t, dirs: t.dirs}, top, all)
	t.file(t.root, layout.Index, &sitePage{t: t}, top, all)
	t.file(t.root, layout.Overview, &sitePage{t: t, overview: true}, top, all)

	// files/: the model's own files, byte for byte.
	filesDir := t.mkdirs(t.root, []string{layout.Files}, top)
	for _, f := range m.AllFiles() {
		mt := f.ModTime()
		t.file(filesDir, path.Base(filepath.ToSlash(f.Name())), wholeFile(f), &mt, t.perms.of(f))
	}

	if len(m.Metadata) > 0 {
		t.metadata(m, top, all)
	}
	if cmp != nil {
		t.compare(cmp, m, top, all)
	}

	// by-name/: a symlink per tensor, named by its escaped full name.
	byName := t.mkdirs(t.root, []string{layout.ByName}, top)
	links := make([][]string, len(tensors))
	for i, tt := range tensors {
		links[i] = layout.Escape(tt.Name)
	}
	order := make([]int, len(tensors))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return comparePaths(links[a], links[b]) })
	for _, i := range order {
		comps := links[i]
		dir := t.mkdirs(byName, comps[:len(comps)-1], top)
		target := strings.Repeat("../", len(comps)) + strings.Join(paths[tensors[i].Name], "/")
		if len(target) > maxLinkTarget {
			// The kernel cannot read a link this long: serve the tensor's
			// files here as well, so that by-name reaches every tensor.
			d := t.mkdirs(dir, comps[len(comps)-1:], top)
			d.td = dirOf[tensors[i]]
			continue
		}
		link := t.newEntry(comps[len(comps)-1], syscall.S_IFLNK|0o777, top)
		link.target, link.perm = target, fperm[tensors[i].File]
		dir.children = append(dir.children, link)
	}

	// expected/: what the config implies, mirroring the tensor tree.
	exp := t.mkdirs(t.root, []string{layout.Expected}, top)
	shapes = strings.Builder{}
	for _, e := range expected {
		shapeLine(&shapes, e.Name, e.Shape)
	}
	t.text(exp, layout.Shapes, shapes.String(), top, all)
	type expectedAt struct {
		comps []string
		shape []uint64
	}
	expAt := make([]expectedAt, len(expected))
	for i, e := range expected {
		expAt[i] = expectedAt{paths[e.Name], e.Shape}
	}
	slices.SortFunc(expAt, func(a, b expectedAt) int { return comparePaths(a.comps, b.comps) })
	for _, e := range expAt {
		dir := t.mkdirs(exp, e.comps, top)
		t.text(dir, layout.Shape, tensor.FormatShape(e.shape)+"\n", top, all)
	}
	if err := t.finish(t.root, ""); err != nil {
		return nil, err
	}
	return t, nil
}

// shapeLine appends "<name>\t[d0, d1]\n", a line of the shapes files,
// with the name escaped by [spec.Escape]: a tab, a line break or a
// terminal control in a name can neither split the line nor forge one.
func shapeLine(b *strings.Builder, name string, shape []uint64) {
	if b.Len() == 0 {
		b.Grow(64 << 10)
	}
	b.WriteString(spec.Escape(name))
	b.WriteByte('\t')
	b.WriteString(tensor.FormatShape(shape))
	b.WriteByte('\n')
}
