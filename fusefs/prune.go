package fusefs

import (
	"container/list"
	"sync"
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

// liveFiles are the file nodes the kernel holds, most recent first.
type liveFiles struct {
	max    int  // 0 means maxLiveFiles
	byHand bool // the watcher does not prune (tests)
	mu     sync.Mutex
	order  list.List
}

func (l *liveFiles) add(n *node) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n.live == nil {
		n.live = l.order.PushFront(n)
	}
}

func (l *liveFiles) remove(n *node) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n.live != nil {
		l.order.Remove(n.live)
		n.live = nil
	}
}

func (l *liveFiles) len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len()
}

// idleLiveFiles is the bound once the mount is idle (watch): the 32,768
// directories a find leaves cost 24 MB of go-fuse's bookkeeping.
const idleLiveFiles = 4096

// prune asks the kernel to drop the oldest files beyond the bound, and
// returns how many. It must not run inside a request: the notification
// waits on the kernel.
func (l *liveFiles) prune() int {
	return l.pruneTo(l.max)
}

// pruneTo is prune to a bound of limit files, or to maxLiveFiles if
// limit is 0.
func (l *liveFiles) pruneTo(limit int) int {
	if limit == 0 {
		limit = maxLiveFiles
	}
	for dropped := 0; ; dropped++ {
		l.mu.Lock()
		if l.order.Len() <= limit {
			l.mu.Unlock()
			return dropped
		}
		n := l.order.Remove(l.order.Back()).(*node)
		n.live = nil
		l.mu.Unlock()
		if name, parent := n.Parent(); parent != nil {
			parent.NotifyEntry(name)
		}
	}
}
