package fusefs

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"syscall"
)

// The tensors' part of the tree is not built as entries: a
// 500,000-tensor MoE has 670,000 directories, which cost more memory
// than the model and most of mount-ready time. It is a list of items,
// one a tensor's directory, sorted by path component by component, and
// a directory below the root is the range of items whose paths share
// its components: a span. child and list make a span's entries when
// the kernel asks, by binary search within it. Inode numbers are
// reserved for them when the tree is built: each item owns a block of
// stride numbers, the first maxDepth for the directories that begin at
// it (one per depth), the rest for a tensor's files.

// item is one place in the tensor tree: a tensor's directory (td.t
// set), or a directory of the tree's own at a path among them (ent, an
// adapter's lora/), named by the path's last component.
type item struct {
	td  tensorDir // td.path is the item's path
	ent *entry
}

func (it *item) path() string { return it.td.path }

// span is a directory of a tensor tree: items[lo:hi] share the first
// depth components of their paths (the tree's top: depth 0, every
// item).
type span struct {
	tr     *tensorTree
	lo, hi int32
	depth  int32
}

// tensorTree is the tensors' part of a tree, or expected/ (shapes set:
// each item's directory then holds a shape file, the expected shape of
// the tensor td.index).
type tensorTree struct {
	items    []item
	shapes   [][]uint64
	base     uint64 // the first inode number of the items' blocks
	stride   uint64 // inode numbers per item
	maxDepth int
	perm     *perm // every item's, when they share one; nil if not
	links    bool  // by-name/: an item is a link to the tensor td.index's directory
}

// expDir is an expected tensor's directory: its shape file.
type expDir struct {
	shape []uint64
	ino   uint64
}

// comparePathStr orders slash-joined paths by their components (each
// compared as strings.Compare does, fewer components first): a
// component that ends sorts first.
func comparePathStr(a, b string) int {
	for i := range min(len(a), len(b)) {
		x, y := a[i], b[i]
		switch {
		case x == y:
			continue
		case x == '/':
			return -1
		case y == '/':
			return 1
		}
		return cmp.Compare(x, y)
	}
	return cmp.Compare(len(a), len(b))
}

// component returns the d-th component of a path, and false if it has
// none.
func component(path string, d int) (string, bool) {
	for ; d > 0; d-- {
		i := strings.IndexByte(path, '/')
		if i < 0 {
			return "", false
		}
		path = path[i+1:]
	}
	if i := strings.IndexByte(path, '/'); i >= 0 {
		return path[:i], true
	}
	return path, true
}

func depthOf(path string) int { return strings.Count(path, "/") + 1 }

// newTensorTree sorts the items, refuses two at one path, and reserves
// their inode numbers.
func (t *tree) newTensorTree(items []item, shapes [][]uint64) (*tensorTree, error) {
	slices.SortFunc(items, func(a, b item) int { return comparePathStr(a.path(), b.path()) })
	tt := &tensorTree{items: items, shapes: shapes}
	for i := range items {
		it := &items[i]
		if i > 0 && items[i-1].path() == it.path() {
			return nil, fmt.Errorf("fusefs: two entries named %q in /%s", it.path()[strings.LastIndexByte(it.path(), '/')+1:], it.path())
		}
		tt.maxDepth = max(tt.maxDepth, depthOf(it.path()))
	}
	tt.stride = uint64(tt.maxDepth + len(tensorFiles))
	tt.base = t.nextIno + 1
	t.nextIno += uint64(len(items)) * tt.stride
	for i := range items {
		items[i].td.ino = tt.base + uint64(i)*tt.stride + uint64(tt.maxDepth)
		p := items[i].td.perm
		if items[i].ent != nil {
			p = items[i].ent.perm
		}
		if i == 0 {
			tt.perm = p
		} else if tt.perm != p {
			tt.perm = nil
		}
	}
	return tt, nil
}

// spanPerm is the narrowest perm of what a span holds.
func (t *tree) spanPerm(s span) *perm {
	if s.tr.perm != nil {
		return s.tr.perm
	}
	var p *perm
	for _, it := range s.tr.items[s.lo:s.hi] {
		if it.ent != nil {
			p = t.perms.and(p, it.ent.perm)
		} else {
			p = t.perms.and(p, it.td.perm)
		}
	}
	return p
}

// childRange returns the items of s whose component at s's depth is
// name.
func (t *tree) childRange(s span, name string) (span, bool) {
	items := s.tr.items
	lo := int(s.lo)
	if lo < int(s.hi) && depthOf(items[lo].path()) == int(s.depth) {
		lo++ // the directory's own tensor
	}
	d := int(s.depth)
	at := func(i int) string { c, _ := component(items[i].path(), d); return c }
	n := int(s.hi) - lo
	a := lo + sort.Search(n, func(i int) bool { return at(lo+i) >= name })
	if a == int(s.hi) || at(a) != name {
		return span{}, false
	}
	b := a + sort.Search(int(s.hi)-a, func(i int) bool { return at(a+i) > name })
	return span{s.tr, int32(a), int32(b), s.depth + 1}, true
}

// spanEntry makes the entry of the directory s, named name.
func (t *tree) spanEntry(s span, name string) *entry {
	tt := s.tr
	it := &tt.items[s.lo]
	exact := depthOf(it.path()) == int(s.depth)
	if exact && it.ent != nil {
		return it.ent
	}
	var linked *tensorDir // a by-name link too long to read
	if exact && tt.links {
		linked = t.dirs[it.td.index]
		target := strings.Repeat("../", int(s.depth)) + linked.path
		if len(target) <= maxLinkTarget {
			return &entry{name: name, mode: syscall.S_IFLNK | 0o777, ino: it.td.ino, mtime: it.td.mtime, perm: it.td.perm, target: target}
		}
		// The kernel cannot read a link this long: serve the tensor's
		// files here as well, so that by-name reaches every tensor.
	}
	e := &entry{name: name, mode: syscall.S_IFDIR | 0o555, ino: tt.base + uint64(s.lo)*tt.stride + uint64(s.depth-1), mtime: it.td.mtime, perm: t.spanPerm(s)}
	if it.ent != nil {
		e.mtime = it.ent.mtime
	}
	if linked != nil {
		e.td = linked
	} else if exact {
		if tt.shapes != nil {
			e.exp = &expDir{shape: tt.shapes[it.td.index], ino: it.td.ino}
		} else {
			e.td = &it.td
		}
	}
	if s.hi-s.lo > 1 || e.td == nil && e.exp == nil {
		e.span = &s
	}
	return e
}

// spanChild finds a child of the span of e by name.
func (t *tree) spanChild(e *entry, name string) *entry {
	c, ok := t.childRange(*e.span, name)
	if !ok {
		return nil
	}
	return t.spanEntry(c, name)
}

// spanList appends the children of e's span to out, unsorted.
func (t *tree) spanList(e *entry, out []*entry) []*entry {
	s := *e.span
	items := s.tr.items
	d := int(s.depth)
	for i := int(s.lo); i < int(s.hi); {
		name, ok := component(items[i].path(), d)
		if !ok {
			i++ // the directory's own tensor
			continue
		}
		c, _ := t.childRange(span{s.tr, int32(i), s.hi, s.depth}, name)
		ce := t.spanEntry(c, name)
		out = append(out, &entry{name: ce.name, mode: ce.mode, ino: ce.ino})
		i = int(c.hi)
	}
	return out
}
