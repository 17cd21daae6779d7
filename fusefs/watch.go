package fusefs

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/source"
)

// A model's files can change under a live mount: rewritten in place,
// truncated, regrown. The tree describes the files as they were, so once
// one changes, reads of its bytes fail with EIO (never bytes of another
// file at the old offsets), and the verdict and report say so on their
// first line. A change is noticed by the read that meets it, or by the
// watcher within watchEvery.
const watchEvery = time.Second

// dynText is a text file whose content can be replaced: the verdict and
// the report. The kernel caches pages and sizes for an hour, so a change
// is announced to it (NotifyContent) for the inode it last looked up.
// The text is kept as the string it was made as (the report of 500,000
// tensors is tens of MB: no copy of it).
type dynText struct {
	s   atomic.Pointer[string]
	ino atomic.Pointer[fs.Inode]
}

func newDynText(s string) *dynText {
	d := &dynText{}
	d.s.Store(&s)
	return d
}

func (d *dynText) size() int64 { return int64(len(*d.s.Load())) }

func (d *dynText) read(_ *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	s := *d.s.Load()
	if off >= int64(len(s)) {
		return fuse.ReadResultData(nil), fs.OK
	}
	end := min(off+int64(len(dest)), int64(len(s)))
	return fuse.ReadResultData(dest[:copy(dest, s[off:end])]), fs.OK
}

func (d *dynText) replace(s string) {
	d.s.Store(&s)
	if ino := d.ino.Load(); ino != nil {
		// Attributes and every page: the size changed too.
		ino.NotifyContent(0, 0)
	}
}

// changed records the first change of a model file: it logs it and puts
// it on the first line of the verdict and the report.
func (t *tree) changed(f source.File, err error) {
	if !t.hasChanged.CompareAndSwap(false, true) {
		return
	}
	t.logger.Printf("%v: reads of its tensors fail with EIO; remount to see the new files", err)
	line := fmt.Sprintf("✗ files changed since mounting: %s; reads of its tensors fail with EIO — remount to check the new files\n", escapeLine(err.Error()))
	// Not from within the request that noticed it: announcing a change
	// writes to the FUSE device, which must not wait on this request.
	par.Go(func() {
		for _, d := range t.dyn {
			d.replace(line + *d.s.Load())
		}
		// The kernel may hold pages of tensors read before: drop them,
		// so that rereading them fails too.
		if root := t.rootNode.Load(); root != nil {
			invalidateData(&root.Inode, f)
		}
	})
}

// invalidateData drops the kernel's pages of every looked-up file whose
// bytes are in f: tensors' data, and f itself in files/.
func invalidateData(dir *fs.Inode, f source.File) {
	for _, c := range dir.Children() {
		n, ok := c.Operations().(*node)
		if !ok {
			continue
		}
		if n.e.isDir() {
			invalidateData(c, f)
			continue
		}
		if fr, ok := n.e.content.(fileRange); ok && fr.f == f {
			c.NotifyContent(0, 0)
		}
	}
}

// escapeLine keeps a message on one line.
func escapeLine(s string) string {
	b := make([]rune, 0, len(s))
	for _, r := range s {
		if r == '\n' || r == '\r' {
			r = ' '
		}
		b = append(b, r)
	}
	return string(b)
}

// watch checks every file each watchEvery until stop is closed. It also
// hands memory back after a burst of reads: once a second passes without
// a read after some, the buffers the burst left (decoded views, go-fuse's
// request buffers, the arrays a remote file keeps for reuse, the listings
// nodes keep) are returned to the system, so that an idle daemon is
// small again; after lazyIdle seconds without one, by-name/ and
// expected/ too.
func (t *tree) watch(files []source.File, stop <-chan struct{}) {
	tick := time.NewTicker(watchEvery)
	defer tick.Stop()
	checking := true
	var seen int64
	quiet := 0 // ticks since the last request
	for {
		select {
		case <-stop:
			return
		case <-tick.C:
		}
		if !t.live.byHand && t.live.prune() > 0 {
			t.busy = true // what the kernel let go is freed once idle
		}
		if n := t.reads.Load(); n != seen {
			seen, quiet = n, 0
			t.busy = true
		} else if quiet++; quiet == lazyIdle && !t.live.byHand && t.shrink() {
			t.busy = true // freed at the next tick
		} else if t.busy {
			t.busy = false
			t.dropListings()
			for _, f := range files {
				if tr, ok := f.(source.Trimmer); ok {
					tr.Trim()
				}
			}
			// sync.Pools (go-fuse's request buffers, the decoder's) keep
			// what one collection finds as a victim cache until the next:
			// collect once so that FreeOSMemory's collection frees them.
			runtime.GC()
			debug.FreeOSMemory()
		}
		for _, f := range files {
			if !checking {
				break
			}
			if c, ok := f.(source.Checker); ok {
				if err := c.Changed(); err != nil {
					t.changed(f, err)
					checking = false
				}
			}
		}
	}
}

// shrink drops what the tree keeps for a mount in use, once it has been
// idle lazyIdle ticks: by-name/ and expected/, and the looked-up
// directories beyond idleLiveFiles. It reports whether it dropped any.
func (t *tree) shrink() bool {
	lazy := t.dropLazy()
	return t.live.pruneIdle() > 0 || lazy
}
