package fusefs

import (
	"context"
	"log"
	"sync/atomic"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/compare"
	"github.com/fsmount/fsmount/internal/layout"
)

// node is the go-fuse inode of one entry. The kernel asks for nodes by
// LOOKUP and forgets them when it likes; the entry they stand for is
// permanent.
type node struct {
	fs.Inode
	t *tree
	e *entry

	listing atomic.Pointer[[]fuse.DirEntry] // a large directory's, once listed
}

// The operations a node supports; everything else (writes, mkdir,
// setattr, xattrs, …) is refused by the read-only mount or by go-fuse's
// defaults.
var (
	_ = (fs.NodeLookuper)((*node)(nil))
	_ = (fs.NodeGetattrer)((*node)(nil))
	_ = (fs.NodeOpendirHandler)((*node)(nil))
	_ = (fs.NodeOpener)((*node)(nil))
	_ = (fs.NodeReader)((*node)(nil))
	_ = (fs.NodeFlusher)((*node)(nil))
	_ = (fs.NodeReadlinker)((*node)(nil))
	_ = (fs.NodeStatfser)((*node)(nil))
	_ = (fs.NodeOnForgetter)((*node)(nil))
)

// OnForget is called when the kernel forgets the node.
func (n *node) OnForget() { n.t.live.remove(n) }

// Statfs describes the mount as df and getconf see it: 4 KiB blocks, as
// many as the files hold, none free, NAME_MAX 255.
func (n *node) Statfs(ctx context.Context, out *fuse.StatfsOut) syscall.Errno {
	out.Bsize, out.Frsize, out.NameLen = statfsBlock, statfsBlock, layout.MaxComponent
	out.Blocks = (n.t.bytes + statfsBlock - 1) / statfsBlock
	n.t.lazyMu.Lock() // a lazy directory being made takes inode numbers
	out.Files = n.t.nextIno
	n.t.lazyMu.Unlock()
	return fs.OK
}

const statfsBlock = 4096

func newRoot(r *check.Report, uid, gid uint32, splice bool, logger *log.Logger, cmp *compare.Comparison, ar *adapter.Report) (*node, error) {
	return newRootPrepared(r, uid, gid, splice, logger, cmp, ar, nil)
}

// newRootPrepared is newRoot with what Prepare computed, or nil.
func newRootPrepared(r *check.Report, uid, gid uint32, splice bool, logger *log.Logger, cmp *compare.Comparison, ar *adapter.Report, pre *Prepared) (*node, error) {
	t, err := buildTreePrepared(r, uid, gid, cmp, ar, pre)
	if err != nil {
		return nil, err
	}
	t.splice = splice
	t.logger = logger
	t.open = noOpen()
	root := &node{t: t, e: t.root}
	t.rootNode.Store(root)
	return root, nil
}

func (t *tree) fill(a *fuse.Attr, e *entry) {
	a.Ino = e.ino
	typ := e.mode & syscall.S_IFMT
	a.Mode = typ | e.perm.mode(typ)
	switch {
	case e.content != nil:
		a.Size = uint64(e.content.size())
	case e.mode&syscall.S_IFMT == syscall.S_IFLNK:
		a.Size = uint64(len(e.target))
	}
	a.Blocks = (a.Size + 511) / 512
	a.Owner = fuse.Owner{Uid: e.perm.uid, Gid: e.perm.gid}
	a.Nlink = 1
	if e.isDir() {
		a.Size, a.Blocks, a.Nlink = 0, 0, 2
	}
	a.SetTimes(e.mtime, e.mtime, e.mtime)
}

func (n *node) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	n.t.reads.Add(1) // a request: watch frees memory once they stop
	c := n.t.child(n.e, name)
	if c == nil {
		return nil, syscall.ENOENT
	}
	n.t.fill(&out.Attr, c)
	child := &node{t: n.t, e: c}
	ino := n.NewInode(ctx, child, fs.StableAttr{Mode: c.mode & syscall.S_IFMT, Ino: c.ino})
	if d, ok := c.content.(*dynText); ok {
		d.ino.Store(ino)
	}
	if ino.Operations() == child {
		// Directories too: a find over 500,000 tensors looks up as many
		// directories, each an inode go-fuse keeps while the kernel does.
		n.t.live.add(child)
	}
	return ino, fs.OK
}

func (n *node) Getattr(ctx context.Context, fh fs.FileHandle, out *fuse.AttrOut) syscall.Errno {
	n.t.fill(&out.Attr, n.e)
	return fs.OK
}

// OpendirHandle lists the directory. The mount answers OPENDIR with
// ENOSYS (unasked.go), so the kernel caches listings itself and this
// runs only in-process, once per READDIR; the flags are for a server
// without that wrapper.
func (n *node) OpendirHandle(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	if !n.e.isDir() {
		return nil, 0, syscall.ENOTDIR
	}
	n.t.reads.Add(1) // a request: watch frees memory once they stop
	if names, ino, ok := n.t.filesOnly(n.e); ok {
		return &dirHandle{n: n, names: names, ino: ino}, fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE, fs.OK
	}
	var listing []fuse.DirEntry
	if kept := n.listing.Load(); kept != nil {
		listing = *kept
	} else {
		children := n.t.list(n.e)
		listing = make([]fuse.DirEntry, len(children))
		for i, c := range children {
			listing[i] = fuse.DirEntry{Name: c.name, Mode: c.mode, Ino: c.ino}
		}
		if len(listing) > keptListing {
			// A large directory is read in several READDIRs, each
			// reopening it (unasked.go): list it once, until idle.
			n.listing.Store(&listing)
			n.t.keptMu.Lock()
			n.t.kept = append(n.t.kept, n)
			n.t.keptMu.Unlock()
		}
	}
	// Each open gets its own cursor over the shared, immutable list.
	return &dirHandle{n: n, entries: listing}, fuse.FOPEN_CACHE_DIR | fuse.FOPEN_KEEP_CACHE, fs.OK
}

// keptListing is the size above which a directory node keeps its
// listing: a tensor's directory is listed once by a find, and keeping
// its 13 entries would cost every looked-up directory half a kilobyte.
const keptListing = 64

// dropListings drops the listings the nodes keep: once the mount is
// idle, the kernel has cached what it read (FOPEN_CACHE_DIR), and a
// directory listed again is listed anew. by-name/ of a 500,000-tensor
// model kept 24 MB of it for as long as the kernel kept the directory.
func (t *tree) dropListings() {
	t.keptMu.Lock()
	kept := t.kept
	t.kept = nil
	t.keptMu.Unlock()
	for _, n := range kept {
		n.listing.Store(nil)
	}
}

// dirHandle is an open directory: a cursor over its listing. It answers
// READDIRPLUS's lookups itself (fs.FileLookuper): a directory is looked
// up as by LOOKUP, but a file is given without its attributes (node ID
// 0), so the kernel makes no inode for it and go-fuse keeps no node.
// A find lists every file of the tree and opens none: over a
// 500,000-tensor model that is 6.5 million inodes made and forgotten
// for nothing. A stat of a file then costs a LOOKUP of its own. A small
// tree (linkFiles) lists its files with their attributes instead: all
// of them fit the kernel's and go-fuse's caches, and an ls -lR or a
// stat of every file after a find then sends no request.
//
// A directory of files alone (a tensor's, an expected tensor's) is
// listed from the names of its files (names set, entries nil), the i-th
// numbered ino+i: a find lists 1.3 million of them, twice each (the
// second READDIRPLUS finds the end), and made their entries each time.
type dirHandle struct {
	n       *node
	entries []fuse.DirEntry
	names   []string
	ino     uint64
	idx     int
	cur     fuse.DirEntry // the entry Readdirent returned last
}

// len is the number of entries.
func (h *dirHandle) len() int {
	if h.names != nil {
		return len(h.names)
	}
	return len(h.entries)
}

// at returns entry i.
func (h *dirHandle) at(i int) fuse.DirEntry {
	if h.names != nil {
		return fuse.DirEntry{Name: h.names[i], Mode: syscall.S_IFREG | 0o444, Ino: h.ino + uint64(i)}
	}
	return h.entries[i]
}

var (
	_ = (fs.FileReaddirenter)((*dirHandle)(nil))
	_ = (fs.FileSeekdirer)((*dirHandle)(nil))
	_ = (fs.FileReleasedirer)((*dirHandle)(nil))
	_ = (fs.FileLookuper)((*dirHandle)(nil))
)

func (h *dirHandle) Readdirent(ctx context.Context) (*fuse.DirEntry, syscall.Errno) {
	if h.idx >= h.len() {
		return nil, fs.OK
	}
	// go-fuse copies the entry before asking for the next: one per
	// handle, not one allocated per entry.
	h.cur = h.at(h.idx)
	h.idx++
	h.cur.Off = uint64(h.idx)
	return &h.cur, fs.OK
}

func (h *dirHandle) Seekdir(ctx context.Context, off uint64) syscall.Errno {
	if off > uint64(h.len()) {
		return syscall.EINVAL
	}
	h.idx = int(off)
	return fs.OK
}

func (h *dirHandle) Releasedir(ctx context.Context, flags uint32) {}

// Lookup is READDIRPLUS's lookup of the entry last listed.
func (h *dirHandle) Lookup(ctx context.Context, name string, out *fuse.EntryOut) (*fs.Inode, syscall.Errno) {
	if h.idx > 0 && h.idx <= h.len() && !h.n.t.linkFiles {
		if e := h.at(h.idx - 1); e.Name == name && e.Mode&syscall.S_IFMT != syscall.S_IFDIR {
			// Any errno leaves the entry's node ID 0: listed, not linked.
			return nil, syscall.ENOENT
		}
	}
	return h.n.Lookup(ctx, name, out)
}

// Open answers ENOSYS unless the mount uses passthrough: the kernel then
// stops sending OPEN and RELEASE for the whole mount and keeps file pages
// cached across opens (no-open mode). With passthrough (passthrough.go)
// an entry of files/ is opened with the model file as its backing file,
// and every other file with no handle and FOPEN_KEEP_CACHE, which keeps
// its pages as no-open mode does. The mount is read-only, so the kernel
// has already refused any open for writing.
func (n *node) Open(ctx context.Context, flags uint32) (fs.FileHandle, uint32, syscall.Errno) {
	n.t.opens.Add(1)
	if !n.t.open.answersOpen() {
		return nil, 0, syscall.ENOSYS
	}
	if lf := passthroughSource(n.e); lf != nil {
		// A file changed since mounting is not opened: the kernel would
		// read its new bytes, which the tree does not describe.
		if errno := n.t.checkFile(lf); errno != 0 {
			return nil, 0, errno
		}
		// KEEP_CACHE for the case where the kernel refuses the backing
		// file after all and the file is read through the daemon; go-fuse
		// clears it for a passthrough reply.
		return &backingFile{fd: int(lf.Fd())}, fuse.FOPEN_KEEP_CACHE, fs.OK
	}
	return nil, fuse.FOPEN_KEEP_CACHE, fs.OK
}

// Flush answers ENOSYS, so the kernel stops sending FLUSH on close.
func (n *node) Flush(ctx context.Context, fh fs.FileHandle) syscall.Errno {
	return syscall.ENOSYS
}

// Read returns the requested range of the file, clamped: a read at or
// past the end is an empty read. What serves it is the entry's content.
func (n *node) Read(ctx context.Context, fh fs.FileHandle, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	if off < 0 {
		return nil, syscall.EINVAL
	}
	c := n.e.content
	if c == nil {
		return nil, syscall.EISDIR
	}
	n.t.reads.Add(1)
	if off >= c.size() || len(dest) == 0 {
		return fuse.ReadResultData(nil), fs.OK
	}
	return c.read(n.t, dest, off)
}

func (t *tree) warnOnce(key, msg string) {
	if _, seen := t.warned.LoadOrStore(key, true); !seen {
		t.logger.Print(msg)
	}
}

func (n *node) Readlink(ctx context.Context) ([]byte, syscall.Errno) {
	if n.e.mode&syscall.S_IFMT != syscall.S_IFLNK {
		return nil, syscall.EINVAL
	}
	return []byte(n.e.target), fs.OK
}
