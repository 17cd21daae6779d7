package fusefs

import (
	"context"
	"strings"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"

	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/spec"
)

// rootNode is the top of the tree; it builds everything below it once,
// when go-fuse adds it.
type rootNode struct {
	dirNode
	report *spec.Report
}

// NewRoot returns the root of the tree for a checked model. The model's
// files must stay open while the tree is served.
func NewRoot(r *spec.Report, uid, gid uint32) fs.InodeEmbedder {
	m := &meta{}
	m.owner.Uid, m.owner.Gid = uid, gid
	return &rootNode{dirNode: dirNode{meta: m, mtime: newest(r.Model.Weights)}, report: r}
}

func newest(c *safetensors.Checkpoint) time.Time {
	var t time.Time
	for _, f := range c.Files {
		if f.ModTime().After(t) {
			t = f.ModTime()
		}
	}
	return t
}

// builder adds nodes under the root.
type builder struct {
	ctx  context.Context
	root *rootNode
}

func (b *builder) dir(parent *fs.Inode, name string, mtime time.Time) *fs.Inode {
	if ch := parent.GetChild(name); ch != nil {
		return ch
	}
	ch := parent.NewPersistentInode(b.ctx, &dirNode{meta: b.root.meta, mtime: mtime}, fs.StableAttr{Mode: syscall.S_IFDIR})
	parent.AddChild(name, ch, false)
	return ch
}

func (b *builder) dirs(parent *fs.Inode, comps []string, mtime time.Time) *fs.Inode {
	for _, c := range comps {
		parent = b.dir(parent, c, mtime)
	}
	return parent
}

func (b *builder) file(parent *fs.Inode, name string, data []byte, mtime time.Time) {
	ch := parent.NewPersistentInode(b.ctx, &fileNode{meta: b.root.meta, mtime: mtime, data: data}, fs.StableAttr{Mode: syscall.S_IFREG})
	parent.AddChild(name, ch, false)
}

func (b *builder) link(parent *fs.Inode, name, target string, mtime time.Time) {
	ch := parent.NewPersistentInode(b.ctx, &linkNode{meta: b.root.meta, mtime: mtime, target: []byte(target)}, fs.StableAttr{Mode: syscall.S_IFLNK})
	parent.AddChild(name, ch, false)
}

// OnAdd builds the whole tree (SPEC §5).
func (n *rootNode) OnAdd(ctx context.Context) {
	b := &builder{ctx: ctx, root: n}
	r := n.report
	root := n.EmbeddedInode()
	top := n.mtime
	tensors := r.Model.Weights.Tensors()
	expected := r.ExpectedSet()

	names := make([]string, 0, len(tensors)+len(expected))
	for _, t := range tensors {
		names = append(names, t.Name)
	}
	for _, e := range expected {
		if r.Model.Weights.Tensor(e.Name) == nil {
			names = append(names, e.Name)
		}
	}
	paths := tensorPaths(names)

	b.file(root, "verdict", []byte(r.Verdict()), top)
	b.file(root, "report", []byte(r.Text()), top)
	if c := r.Model.Config; c != nil {
		b.file(root, "config.json", c.Raw, top)
	}
	var shapes strings.Builder
	for _, t := range tensors {
		shapes.WriteString(t.Name + "\t" + safetensors.FormatShape(t.Shape) + "\n")
	}
	b.file(root, "shapes", []byte(shapes.String()), top)

	byName := b.dir(root, "by-name", top)
	for _, t := range tensors {
		mtime := t.File().ModTime()
		dir := b.dirs(root, paths[t.Name], mtime)
		b.file(dir, "shape", []byte(safetensors.FormatShape(t.Shape)+"\n"), mtime)
		b.file(dir, "dtype", []byte(t.DType.String()+"\n"), mtime)
		b.file(dir, "data", t.Bytes(), mtime)

		comps := escapePart(t.Name)
		linkDir := b.dirs(byName, comps[:len(comps)-1], top)
		target := strings.Repeat("../", len(comps)) + strings.Join(paths[t.Name], "/")
		b.link(linkDir, comps[len(comps)-1], target, top)
	}

	exp := b.dir(root, "expected", top)
	shapes.Reset()
	for _, e := range expected {
		shapes.WriteString(e.Name + "\t" + safetensors.FormatShape(e.Shape) + "\n")
		dir := b.dirs(exp, paths[e.Name], top)
		b.file(dir, "shape", []byte(safetensors.FormatShape(e.Shape)+"\n"), top)
	}
	b.file(exp, "shapes", []byte(shapes.String()), top)
}
