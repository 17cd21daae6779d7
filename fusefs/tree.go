package fusefs

import (
	"fmt"
	"log"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/compare"
	"github.com/fsmount/fsmount/internal/layout"
	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/internal/render"
	"github.com/fsmount/fsmount/internal/site"
	"github.com/fsmount/fsmount/internal/views"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// entry is one name in the tree. The tree's own files and directories
// are built once, at mount, as plain values; the tensors' directories
// are made when the kernel asks for them (tensortree.go); go-fuse
// inodes are made only for the entries the kernel looks up.
type entry struct {
	name     string
	mode     uint32 // S_IFDIR|0555, S_IFREG|0444 or S_IFLNK|0777
	ino      uint64
	mtime    *time.Time
	perm     *perm      // who may read it; mode's permission bits are unused
	td       *tensorDir // a tensor's directory: its files (tensorfiles.go)
	children []*entry   // directories: sorted by name
	span     *span      // directories of a tensor tree (the root, expected/): their tensors
	exp      *expDir    // an expected tensor's directory
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
	report     *check.Report
	companions *views.Companions
	viewCache  viewCache
	dirs       []*tensorDir // every tensor's, in the model's order
	tensors    *tensorTree
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

	lazy sync.Map // *entry → *lazyDir: directories made when first used

	// linkFiles: READDIRPLUS gives files their attributes and node IDs
	// (dirHandle.Lookup), as it does directories; set for a tree of at
	// most linkFilesMax entries.
	linkFiles bool

	keptMu sync.Mutex
	kept   []*node    // the nodes that keep a listing
	noBase bool       // an adapter mounted without its base: no tensors of a model
	lazyMu sync.Mutex // held while one is made (it takes inode numbers)

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
	t.fileEntry(dir, name, mtime, p).content = c
}

// fileEntry adds a file to dir, and returns it for its content to be set.
func (t *tree) fileEntry(dir *entry, name string, mtime *time.Time, p *perm) *entry {
	e := t.newEntry(name, syscall.S_IFREG|0o444, mtime)
	e.perm = p
	dir.children = append(dir.children, e)
	return e
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
	if e.span != nil {
		// The root, expected/: the tensors' top directories beside its own
		// names.
		if c := t.spanList(e, nil); len(c) > 0 {
			for _, c := range c {
				if e.child(c.name) != nil {
					return fmt.Errorf("fusefs: two entries named %q in /%s", c.name, path)
				}
			}
			p = t.perms.and(p, t.spanPerm(*e.span))
		}
	}
	if e.perm == nil {
		e.perm = p
	}
	if e.perm == nil {
		e.perm = t.perms.intern(t.perms.owner)
	}
	return nil
}

// pictureCache bounds the rendered pictures and pages kept (the largest
// heatmap is 3.9 MB).
const pictureCache = 64 << 20

// sitePath is a tensor's directory in the tree, as the site links it.
// The tree keeps it in the tensor's directory, found by name (t.dirs is
// in the model's order, by name): no map of every path is kept.
func (t *tree) sitePath(name string) string {
	i, ok := slices.BinarySearchFunc(t.dirs, name, func(d *tensorDir, n string) int { return strings.Compare(d.t.Name, n) })
	if !ok {
		return ""
	}
	return t.dirs[i].path
}

// maxLinkTarget is the longest symlink target readlink(2) returns through
// FUSE (a page, less the terminating NUL).
const maxLinkTarget = 4095

// pathNames returns the names the tree lays out: the model's tensors',
// in its order, then those of the expected tensors the files lack. Their
// paths depend on each other (two names may meet when "model." and
// "weight" are dropped), so they are laid out together, but the expected
// set itself is not needed for it: expected/ is made when first visited.
func pathNames(r *check.Report) []string {
	tensors := r.Model.Tensors()
	lacking := r.Lacking()
	names := make([]string, len(tensors), len(tensors)+len(lacking))
	for i, tt := range tensors {
		names[i] = tt.Name
	}
	return append(names, lacking...)
}

// hfNames is how the model's names map to Hugging Face names for the
// layout (package layout), or nil where they are the same.
func hfNames(m *model.Model) layout.HFNamer {
	if m.Names == nil {
		return nil
	}
	return m.Names
}

// buildTree lays out the tree (README.md, "The tree") for a checked model.
// With ar set, it lays out an adapter (adapter.go): r is then its base's
// report, or, without a base, that of the adapter's weights file, whose
// tensors appear only under the modules they adapt.
func buildTree(r *check.Report, uid, gid uint32, cmp *compare.Comparison, ar *adapter.Report) (*tree, error) {
	return buildTreePrepared(r, uid, gid, cmp, ar, nil)
}

// buildTreePrepared is buildTree with what Prepare computed, or nil.
func buildTreePrepared(r *check.Report, uid, gid uint32, cmp *compare.Comparison, ar *adapter.Report, pre *Prepared) (*tree, error) {
	m := r.Model
	t := &tree{perms: newPerms(uid, gid), model: m, report: r, companions: views.NewCompanionsFS(m.Tensor, m.Config, m.Source),
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
	if ar != nil && ar.Base == nil {
		tensors = nil // an adapter alone: see below
	}
	// The report's text and the size of the shapes file depend on
	// nothing else the tree makes: on a second core they cost mount-ready
	// no time (a fifth of the tree's for 500,000 tensors).
	var side par.Group
	defer side.Wait() // on an early return too
	var verdictText, reportText string
	side.Go(func() {
		if ar != nil {
			verdictText, reportText = ar.Verdict(), ar.Text()
		} else {
			verdictText, reportText = r.Verdict(), r.Text()
		}
	})
	var shapes *linesContent
	side.Go(func() {
		shapes = newLines(len(tensors), func(b []byte, i int) []byte {
			return appendShapeLine(b, tensors[i].Name, tensors[i].Shape)
		})
	})
	names := pathNames(r)
	paths := pre.pathsFor(m, names) // the tensors' first, in their order
	if paths == nil {
		paths = layout.TensorPaths(names, hfNames(m))
	}
	var extra []item // an adapter's lora/ directories
	if ar != nil {
		var err error
		if extra, err = t.adapterLayer(ar, layout.Tensors(names, hfNames(m))); err != nil {
			return nil, err
		}
	}
	if ar != nil && ar.Base == nil {
		// An adapter alone: no base tensors, nothing expected of them.
		t.noBase = true
	}
	extra = append(extra, t.dcpItems(m, mtimes, fperm, top, all)...)
	// Made in this order (their inode numbers), given their content once
	// the side work is done.
	verdictFile := t.fileEntry(t.root, layout.Verdict, top, all)
	reportFile := t.fileEntry(t.root, layout.Report, top, all)
	if m.ConfigFile != nil {
		// Not for GGUF: its config is derived from metadata/, not a file.
		t.file(t.root, layout.Config, bytesContent(m.Config), top, cfgPerm)
	}
	shapesFile := t.fileEntry(t.root, layout.Shapes, top, all)

	// The tensors, laid out as a sorted list (tensortree.go).
	items := make([]item, len(tensors), len(tensors)+len(extra))
	for i, tt := range tensors {
		base := source.BaseOf(tt.File)
		items[i].td = tensorDir{t: tt, mtime: mtimes[base], perm: fperm[base], path: paths[i], index: i}
	}
	items = append(items, extra...)
	var err error
	if t.tensors, err = t.newTensorTree(items, nil); err != nil {
		return nil, err
	}
	t.root.span = &span{t.tensors, 0, int32(len(items)), 0}
	t.dirs = make([]*tensorDir, len(tensors))
	for i := range t.tensors.items {
		if it := &t.tensors.items[i]; it.ent == nil && it.td.index >= 0 {
			t.dirs[it.td.index] = &it.td
		}
	}

	side.Wait()
	verdict, report := newDynText(verdictText), newDynText(reportText)
	t.dyn = []*dynText{verdict, report}
	verdictFile.content, reportFile.content, shapesFile.content = verdict, report, shapes
	if ar != nil {
		t.adapterRoot(ar, top, all)
	} else {
		t.file(t.root, layout.Stats, &rootStats{t: t, dirs: t.dirs}, top, all)
	}
	t.file(t.root, layout.Index, &sitePage{t: t}, top, all)
	t.file(t.root, layout.Overview, &sitePage{t: t, overview: true}, top, all)

	// files/: the model's own files, byte for byte.
	filesDir := t.mkdirs(t.root, []string{layout.Files}, top)
	files := m.AllFiles()
	if ar != nil && ar.Base != nil {
		files = append(files, ar.Adapter.ConfigFile, ar.Adapter.File)
	} else if ar != nil {
		files = append(files, ar.Adapter.ConfigFile)
	}
	for _, f := range files {
		mt := f.ModTime()
		comps := layout.EscapeFileName(path.Base(filepath.ToSlash(f.Name())))
		dir := t.mkdirs(filesDir, comps[:len(comps)-1], top)
		t.file(dir, comps[len(comps)-1], wholeFile(f), &mt, t.perms.of(f))
	}
	// The safetensors files that serve a PyTorch checkpoint, unless a
	// real file has the name.
	virtual, err := m.VirtualFiles()
	if err != nil {
		return nil, err
	}
	for _, f := range virtual {
		if slices.ContainsFunc(filesDir.children, func(e *entry) bool { return e.name == f.Name() }) {
			continue
		}
		mt := f.ModTime()
		t.file(filesDir, f.Name(), virtualFile(f), &mt, t.perms.of(f))
	}

	if m.Metadata != nil && m.Metadata.Len() > 0 {
		t.metadata(m, top, all)
	}
	if len(m.Modules) > 0 {
		t.modules(m, top)
	}
	if cmp != nil {
		t.compare(cmp, m, top, all)
	}

	// by-name/: a symlink per tensor, named by its escaped full name,
	// made when first used.
	byName := t.mkdirs(t.root, []string{layout.ByName}, top)
	for _, f := range m.Files {
		byName.perm = t.perms.and(byName.perm, fperm[f])
	}
	t.lazy.Store(byName, &lazyDir{dir: byName, build: func(d *entry) error { return t.byName(d, top, fperm) }})

	// expected/: what the config implies, mirroring the tensor tree. It
	// is made when first used: a directory and a file per tensor that
	// most mounts never look at.
	exp := t.mkdirs(t.root, []string{layout.Expected}, top)
	exp.perm = all
	t.lazy.Store(exp, &lazyDir{dir: exp, build: func(d *entry) error { return t.expected(d, top, all) }})
	if err := t.finish(t.root, ""); err != nil {
		return nil, err
	}
	return t, nil
}

// byName fills by-name/: a link per tensor to its directory, or where
// the link would be too long for the kernel, the directory's files; made
// on lookup from the sorted names, as the tensors' directories
// (tensortree.go).
func (t *tree) byName(byName *entry, top *time.Time, fperm map[source.File]*perm) error {
	tensors := t.model.Tensors()
	if t.noBase {
		tensors = nil
	}
	items := make([]item, len(tensors))
	for i, tt := range tensors {
		// A plain name is its own path: Join of one string is that string.
		items[i].td = tensorDir{path: strings.Join(layout.Escape(tt.Name), "/"), mtime: top, perm: fperm[source.BaseOf(tt.File)], index: i}
	}
	tr, err := t.newTensorTree(items, nil)
	if err != nil {
		return err
	}
	tr.links = true
	byName.span = &span{tr, 0, int32(len(items)), 0}
	return t.finish(byName, layout.ByName)
}

// expected fills expected/: the shapes of every expected tensor, and a
// directory with its shape for each, made on lookup as the tensors'
// (tensortree.go).
func (t *tree) expected(exp *entry, top *time.Time, all *perm) error {
	expected := t.report.ExpectedSet()
	if t.noBase {
		expected = nil
	}
	t.file(exp, layout.Shapes, newLines(len(expected), func(b []byte, i int) []byte {
		return appendShapeLine(b, expected[i].Name, expected[i].Shape)
	}), top, all)
	names := pathNames(t.report)
	paths := layout.TensorPaths(names, hfNames(t.model))
	at := make(map[string]int, len(names)-len(t.dirs)) // the lacking ones
	for i, n := range names[len(t.dirs):] {
		at[n] = len(t.dirs) + i
	}
	items := make([]item, len(expected))
	shapes := make([][]uint64, len(expected))
	for k, e := range expected {
		shapes[k] = e.Shape
		path := ""
		if i, ok := at[e.Name]; ok {
			path = paths[i]
		} else if tt := t.model.Tensor(e.Name); tt != nil {
			path = t.sitePath(tt.Name) // the same path as the tensor's
		}
		items[k].td = tensorDir{path: path, mtime: top, perm: all, index: k}
	}
	tr, err := t.newTensorTree(items, shapes)
	if err != nil {
		return err
	}
	exp.span = &span{tr, 0, int32(len(items)), 0}
	return t.finish(exp, layout.Expected)
}

// lazyDir is a directory of the root whose entries are made when first
// used (by-name/, expected/: a list of every tensor, 218 bytes each,
// that most mounts never look at), and dropped again once the mount has
// been idle for lazyIdle (#25: after a find of a 500,000-tensor model
// they kept 110 MB). What is made is a copy of the directory's entry
// holding its entries; the entry in the root stays as it is (its name,
// inode and perm). Made again, it takes the same inode numbers as the
// first time, so that what the kernel still holds keeps its numbers.
type lazyDir struct {
	dir   *entry               // as the root holds it
	build func(d *entry) error // fills d, a copy of dir
	mu    sync.Mutex           // held while it is made or dropped
	made  atomic.Pointer[entry]

	first, end uint64 // the inode numbers it takes, [first, end), once made
}

// lazyIdle is how many of the watcher's ticks the mount must be idle
// before the lazy directories are dropped.
const lazyIdle = 10

// made returns the directory e with its entries: e itself, or for a lazy
// directory the copy that holds them, made if it is not.
func (t *tree) made(e *entry) *entry {
	if e.td != nil || e.span != nil || !e.isDir() {
		return e
	}
	v, ok := t.lazy.Load(e)
	if !ok {
		return e
	}
	l := v.(*lazyDir)
	if d := l.made.Load(); d != nil {
		return d
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if d := l.made.Load(); d == nil {
		l.made.Store(t.makeLazy(l))
	}
	return l.made.Load()
}

// makeLazy makes a lazy directory's entries, with the inode numbers it
// took the first time. A failure (a bug: two entries of one name) is
// logged and leaves it empty.
func (t *tree) makeLazy(l *lazyDir) *entry {
	t.lazyMu.Lock()
	defer t.lazyMu.Unlock()
	next := t.nextIno
	again := l.first != 0
	if again {
		t.nextIno = l.first - 1
	} else {
		l.first = next + 1
	}
	e := l.dir
	d := &entry{name: e.name, mode: e.mode, ino: e.ino, mtime: e.mtime, perm: e.perm}
	if err := l.build(d); err != nil {
		d.children, d.span = nil, nil
		t.warnOnce("lazy:"+e.name, err.Error())
	}
	switch {
	case !again:
		l.end = t.nextIno + 1
	case t.nextIno+1 != l.end:
		t.warnOnce("lazy-ino:"+e.name, fmt.Sprintf("fusefs: /%s made again took inode numbers [%d, %d), not [%d, %d)", e.name, l.first, t.nextIno+1, l.first, l.end))
		fallthrough
	default:
		t.nextIno = next
	}
	return d
}

// dropLazy drops the entries of every lazy directory, and asks the
// kernel to forget the directory and what it holds below it (their
// nodes hold what was made) where nothing uses them (forget). It reports
// whether it dropped any. It must not run inside a request: the
// notification waits on the kernel.
func (t *tree) dropLazy() bool {
	var dropped []string
	t.lazy.Range(func(_, v any) bool {
		l := v.(*lazyDir)
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.made.Load() != nil {
			l.made.Store(nil)
			dropped = append(dropped, l.dir.name)
		}
		return true
	})
	if root := t.rootNode.Load(); root != nil {
		var nodes []*fs.Inode
		for _, name := range dropped {
			if d := root.GetChild(name); d != nil {
				nodes = below(d, nodes)
			}
		}
		forget(nodes)
	}
	return len(dropped) > 0
}

// shapeContent is a shape file: "[d0, d1]\n", rendered when read.
type shapeContent []uint64

func (s shapeContent) size() int64 { return int64(len(tensor.FormatShape(s))) + 1 }

func (s shapeContent) read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	return bytesContent(tensor.FormatShape(s)+"\n").read(t, dest, off)
}

// appendShapeLine appends "<name>\t[d0, d1]\n", a line of the shapes
// files, with the name escaped by [check.Escape]: a tab, a line break or a
// terminal control in a name can neither split the line nor forge one.
func appendShapeLine(b []byte, name string, shape []uint64) []byte {
	b = append(b, check.Escape(name)...)
	b = append(b, '\t')
	b = append(b, tensor.FormatShape(shape)...)
	return append(b, '\n')
}

// linesMark is how many lines of a linesContent lie between two kept
// offsets.
const linesMark = 1024

// linesContent is a text file of n lines, each rendered when read (the
// shapes files): its size is summed when it is made, keeping the offset
// of every linesMark-th line, so a read renders only the lines it covers
// and at most linesMark before them.
type linesContent struct {
	n     int
	line  func(b []byte, i int) []byte
	marks []int64 // marks[k]: offset of line k*linesMark
	total int64
}

func newLines(n int, line func(b []byte, i int) []byte) *linesContent {
	c := &linesContent{n: n, line: line, marks: make([]int64, 0, n/linesMark+1)}
	var b []byte
	for i := range n {
		if i%linesMark == 0 {
			c.marks = append(c.marks, c.total)
		}
		b = line(b[:0], i)
		c.total += int64(len(b))
	}
	return c
}

func (c *linesContent) size() int64 { return c.total }

func (c *linesContent) read(_ *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	want := min(int64(len(dest)), c.total-off)
	k := sort.Search(len(c.marks), func(k int) bool { return c.marks[k] > off }) - 1
	pos := c.marks[k]
	var b []byte // the lines from pos
	for i := k * linesMark; i < c.n && pos+int64(len(b)) < off+want; i++ {
		b = c.line(b, i)
		if pos+int64(len(b)) <= off { // before the range
			pos += int64(len(b))
			b = b[:0]
		}
	}
	n := copy(dest[:want], b[off-pos:])
	return fuse.ReadResultData(dest[:n]), fs.OK
}
