package fusefs

import (
	"context"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"
)

// Every node type of the tree, and the interfaces each implements.
var (
	_ = (fs.NodeGetattrer)((*dirNode)(nil))
	_ = (fs.NodeOpendirHandler)((*dirNode)(nil))
	_ = (fs.NodeGetattrer)((*fileNode)(nil))
	_ = (fs.NodeOpener)((*fileNode)(nil))
	_ = (fs.NodeReader)((*fileNode)(nil))
	_ = (fs.NodeFlusher)((*fileNode)(nil))
	_ = (fs.NodeGetattrer)((*linkNode)(nil))
	_ = (fs.NodeReadlinker)((*linkNode)(nil))
	_ = (fs.NodeOnAdder)((*rootNode)(nil))
)

// meta is what every node of one tree shares: the owner and, per node, a
// modification time.
type meta struct {
	owner fuse.Owner
}

func (m *meta) fill(a *fuse.Attr, mode uint32, size uint64, mtime time.Time) {
	a.Mode = mode
	a.Size = size
	a.Blocks = (size + 511) / 512
	a.Owner = m.owner
	a.Nlink = 1
	a.SetTimes(&mtime, &mtime, &mtime)
}

// dirNode is a directory. Its listing never changes, so it is built once
// and the kernel may cache it (FOPEN_CACHE_DIR).
type dirNode struct {
	fs.Inode
	meta  *meta
	mtime time.Time

	once    sync.Once
	entries []fuse.DirEntry
}

func (d *dirNode) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	d.meta.fill(&out.Attr, syscall.S_IFDIR|0o555, 0, d.mtime)
	out.Nlink = 2
	return fs.OK
}

func (d *dirNode) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	d.once.Do(func() {
		children := d.Children()
		d.entries = make([]fuse.DirEntry, 0, len(children))
		for name, ch := range children {
			d.entries = append(d.entries, fuse.DirEntry{Name: name, Mode: ch.Mode(), Ino: ch.StableAttr().Ino})
		}
		sort.Slice(d.entries, func(i, j int) bool { return d.entries[i].Name < d.entries[j].Name })
	})
	// Each open gets its own cursor over the shared, immutable list.
	return fs.NewListDirStream(d.entries).(fs.FileHandle), fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE, fs.OK
}

// fileNode is a regular file whose content is a fixed byte slice: a small
// generated text on the heap, or, for data, a slice of the model's
// read-only mapping that is never copied.
type fileNode struct {
	fs.Inode
	meta  *meta
	mtime time.Time
	data  []byte
}

func (f *fileNode) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	f.meta.fill(&out.Attr, syscall.S_IFREG|0o444, uint64(len(f.data)), f.mtime)
	return fs.OK
}

// Open answers ENOSYS: the kernel then stops sending OPEN and RELEASE for
// the whole mount and caches file pages across opens (no-open mode). The
// mount is read-only, so the kernel has already refused any write open.
func (f *fileNode) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	return nil, 0, syscall.ENOSYS
}

// Flush answers ENOSYS, so the kernel stops sending FLUSH on close.
func (f *fileNode) Flush(ctx context.Context, fh fs.FileHandle) syscall.Errno {
	return syscall.ENOSYS
}

// Read returns the requested range, clamped to the file: a read at or past
// the end is an empty read, never an error or a slice out of range.
func (f *fileNode) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if off < 0 {
		return nil, syscall.EINVAL
	}
	size := int64(len(f.data))
	if off >= size {
		return fuse.ReadResultData(nil), fs.OK
	}
	end := min(off+int64(len(dest)), size)
	return fuse.ReadResultData(f.data[off:end]), fs.OK
}

// linkNode is a symbolic link (by-name/ entries).
type linkNode struct {
	fs.Inode
	meta   *meta
	mtime  time.Time
	target []byte
}

func (l *linkNode) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	l.meta.fill(&out.Attr, syscall.S_IFLNK|0o777, uint64(len(l.target)), l.mtime)
	return fs.OK
}

func (l *linkNode) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	return l.target, fs.OK
}
