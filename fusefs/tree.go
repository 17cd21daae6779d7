package fusefs

import (
	"cmp"
	"fmt"
	"log"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/spec"
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
	children []*entry            // directories: sorted by name
	data     []byte              // files: the content; links: the target
	tensor   *safetensors.Tensor // data files: the tensor, for splicing
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
	uid     uint32
	gid     uint32
	nextIno uint64
}

func (t *tree) newEntry(name string, mode uint32, mtime *time.Time, data []byte) *entry {
	t.nextIno++
	return &entry{name: name, mode: mode, ino: t.nextIno, mtime: mtime, data: data}
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
		d := t.newEntry(c, syscall.S_IFDIR|0o555, mtime, nil)
		dir.children = append(dir.children, d)
		dir = d
	}
	return dir
}

func (t *tree) file(dir *entry, name string, data []byte, mtime *time.Time) {
	dir.children = append(dir.children, t.newEntry(name, syscall.S_IFREG|0o444, mtime, data))
}

// finish sorts every directory's children by name.
func finish(e *entry) {
	slices.SortFunc(e.children, func(a, b *entry) int { return strings.Compare(a.name, b.name) })
	for _, c := range e.children {
		if c.isDir() {
			finish(c)
		}
	}
}

func comparePaths(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a), len(b))
}

// buildTree lays out the tree of SPEC §5 for a checked model.
func buildTree(r *spec.Report, uid, gid uint32) *tree {
	t := &tree{uid: uid, gid: gid}
	w := r.Model.Weights
	top := new(time.Time)
	mtimes := make(map[*safetensors.File]*time.Time, len(w.Files))
	for _, f := range w.Files {
		m := f.ModTime()
		mtimes[f] = &m
		if m.After(*top) {
			*top = m
		}
	}
	t.root = t.newEntry("", syscall.S_IFDIR|0o555, top, nil)
	tensors := w.Tensors()
	expected := r.ExpectedSet()

	names := make([]string, 0, len(tensors)+len(expected))
	for _, tt := range tensors {
		names = append(names, tt.Name)
	}
	for _, e := range expected {
		if w.Tensor(e.Name) == nil {
			names = append(names, e.Name)
		}
	}
	paths := tensorPaths(names)

	var shapes strings.Builder
	for _, tt := range tensors {
		shapeLine(&shapes, tt.Name, tt.Shape)
	}
	t.file(t.root, "verdict", []byte(r.Verdict()), top)
	t.file(t.root, "report", []byte(r.Text()), top)
	if c := r.Model.Config; c != nil {
		t.file(t.root, "config.json", c.Raw, top)
	}
	t.file(t.root, "shapes", []byte(shapes.String()), top)

	// The tensors, in path order.
	type placed struct {
		comps []string
		t     *safetensors.Tensor
	}
	byPath := make([]placed, len(tensors))
	for i, tt := range tensors {
		byPath[i] = placed{paths[tt.Name], tt}
	}
	slices.SortFunc(byPath, func(a, b placed) int { return comparePaths(a.comps, b.comps) })
	for _, p := range byPath {
		tt := p.t
		mtime := mtimes[tt.File()]
		dir := t.mkdirs(t.root, p.comps, mtime)
		t.file(dir, "shape", []byte(safetensors.FormatShape(tt.Shape)+"\n"), mtime)
		t.file(dir, "dtype", []byte(tt.DType.String()+"\n"), mtime)
		t.file(dir, "data", tt.Bytes(), mtime)
		dir.children[len(dir.children)-1].tensor = tt
		t.file(dir, "location", fmt.Appendf(nil, "%s %d %d\n", filepath.Base(tt.File().Name), tt.FileOffset(), tt.Size()), mtime)
	}

	// by-name/: a symlink per tensor, named by its escaped full name.
	byName := t.mkdirs(t.root, []string{"by-name"}, top)
	links := make([][]string, len(tensors))
	for i, tt := range tensors {
		links[i] = escapePart(tt.Name)
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
		dir.children = append(dir.children, t.newEntry(comps[len(comps)-1], syscall.S_IFLNK|0o777, top, []byte(target)))
	}

	// expected/: what the config implies, mirroring the tensor tree.
	exp := t.mkdirs(t.root, []string{"expected"}, top)
	shapes = strings.Builder{}
	for _, e := range expected {
		shapeLine(&shapes, e.Name, e.Shape)
	}
	t.file(exp, "shapes", []byte(shapes.String()), top)
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
		t.file(dir, "shape", []byte(safetensors.FormatShape(e.shape)+"\n"), top)
	}
	finish(t.root)
	return t
}

// shapeLine appends "<name>\t[d0, d1]\n", a line of the shapes files.
func shapeLine(b *strings.Builder, name string, shape []uint64) {
	if b.Len() == 0 {
		b.Grow(64 << 10)
	}
	b.WriteString(name)
	b.WriteByte('\t')
	b.WriteString(safetensors.FormatShape(shape))
	b.WriteByte('\n')
}
