package fusefs

import (
	"slices"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"

	"github.com/fsmount/fsmount/internal/lru"
)

// The kernel keeps the inodes of the files and directories it has looked
// up as long as it likes (until memory pressure), and each costs the
// daemon about 1.2 KB of go-fuse's bookkeeping; a find over a
// 37,000-tensor model looks up 500,000 files, over a 500,000-tensor model
// 700,000 directories. So the daemon keeps a bound: beyond maxLiveFiles
// looked-up entries, the watcher asks the kernel to drop the dentries of
// the least recently looked up (FUSE_NOTIFY_INVAL_ENTRY; for a directory
// the kernel also drops what it holds below it); the kernel then forgets
// their inodes when nothing holds them, and a later lookup asks again.
const maxLiveFiles = 32768

// linkFilesMax is the most inode numbers a tree may have taken when
// mounted for a listing to link its files (tree.linkFiles): with expected/
// (two entries a tensor, against fourteen), all of them stay below
// maxLiveFiles, so the kernel may hold every one and nothing is pruned
// while busy. It links a model of up to about 1,100 tensors (Qwen3-0.6B's
// 311 take 5,000), not the 18,867-tensor MoE or the 500,000-tensor model,
// whose find would make millions of inodes for files it never opens.
// Linked, a walk of Qwen3-0.6B (find, ls -lR, stat of every file) sends
// 4,364 fewer LOOKUPs (#30; `go run ./bench -walk`).
const linkFilesMax = 16384

// liveFiles are the file nodes the kernel holds, most recently looked up
// first (a node's place is its first lookup since it was last dropped).
// The bound is the watcher's (prune), not the cache's: dropping an entry
// waits on the kernel, which must not happen inside a request.
type liveFiles struct {
	max    int  // 0 means maxLiveFiles
	byHand bool // the watcher does not prune (tests)
	mu     sync.Mutex
	order  lru.Cache[*node, struct{}]
}

func (l *liveFiles) add(n *node) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.order.Contains(n) {
		l.order.Add(n, struct{}{})
	}
}

func (l *liveFiles) remove(n *node) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.order.Remove(n)
}

func (l *liveFiles) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len()
}

// idleLiveFiles is the bound once the mount is idle (watch): the 32,768
// directories a find leaves cost 24 MB of go-fuse's bookkeeping. Those
// beyond it are forgotten only where nothing uses them (forget).
const idleLiveFiles = 4096

// prune asks the kernel to drop the oldest files beyond the bound, and
// returns how many. It must not run inside a request: the notification
// waits on the kernel.
func (l *liveFiles) prune() int {
	limit := l.max
	if limit == 0 {
		limit = maxLiveFiles
	}
	for dropped := 0; ; dropped++ {
		l.mu.Lock()
		if l.order.Len() <= limit {
			l.mu.Unlock()
			return dropped
		}
		n, _, _ := l.order.RemoveOldest()
		l.mu.Unlock()
		if name, parent := n.Parent(); parent != nil {
			parent.NotifyEntry(name)
		}
	}
}

// pruneIdle asks the kernel to forget the oldest files beyond
// idleLiveFiles that nothing uses (forget), and returns how many it
// asked for.
func (l *liveFiles) pruneIdle() int {
	var nodes []*fs.Inode
	l.mu.Lock()
	for l.order.Len() > idleLiveFiles {
		n, _, _ := l.order.RemoveOldest()
		nodes = append(nodes, &n.Inode)
	}
	l.mu.Unlock()
	// A directory's children before it: the kernel forgets a directory
	// only once nothing below it is cached.
	depth := func(n *fs.Inode) int {
		d := 0
		for _, p := n.Parent(); p != nil; _, p = p.Parent() {
			d++
		}
		return d
	}
	slices.SortStableFunc(nodes, func(a, b *fs.Inode) int { return depth(b) - depth(a) })
	forget(nodes)
	return len(nodes)
}

// forget asks the kernel to forget the inodes of nodes, children before
// their directories, where nothing uses them (FUSE_NOTIFY_PRUNE, protocol
// 7.45: a shell's working directory stays). A kernel without it drops
// their entries instead (FUSE_NOTIFY_INVAL_ENTRY), as prune does. It must
// not run inside a request.
func forget(nodes []*fs.Inode) {
	if len(nodes) == 0 {
		return
	}
	const batch = 1024
	for i := 0; i < len(nodes); i += batch {
		if nodes[0].NotifyPrune(nodes[i:min(i+batch, len(nodes))]) == syscall.ENOSYS {
			for _, n := range nodes[i:] {
				if name, parent := n.Parent(); parent != nil {
					parent.NotifyEntry(name)
				}
			}
			return
		}
	}
}

// below returns the nodes below dir and dir itself, each after its
// children.
func below(dir *fs.Inode, out []*fs.Inode) []*fs.Inode {
	for _, c := range dir.Children() {
		out = below(c, out)
	}
	return append(out, dir)
}
