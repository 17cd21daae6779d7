package fusefs

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// content is what a file entry serves. Its size must be known without
// producing it: the kernel learns sizes from LOOKUP and READDIRPLUS,
// which a listing sends, and listing must stay cheap. read serves
// dest's worth of bytes at off < size().
type content interface {
	size() int64
	read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno)
}

// bytesContent is a file held in memory: the small text files.
type bytesContent []byte

func (b bytesContent) size() int64 { return int64(len(b)) }

func (b bytesContent) read(_ *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	end := min(off+int64(len(dest)), int64(len(b)))
	return fuse.ReadResultData(b[off:end]), fs.OK
}

// fileRange is n bytes at off of a source file: a tensor's bytes, or a
// whole file of files/. It is served by the fastest way the file offers:
// spliced from its fd (the default), handed over as a slice of its
// mapping (--mmap), written from the buffers a source lends (a remote
// file's chunks), or read into dest. Before each read the file is
// checked: a file that changed since mounting fails the read with EIO
// (watch.go).
type fileRange struct {
	f      source.File
	off, n int64
	whole  bool // the whole file: an entry of files/
}

func tensorBytes(t *tensor.Tensor) fileRange { return fileRange{f: t.File, off: t.Offset, n: t.Length} }

func wholeFile(f source.File) fileRange { return fileRange{f: f, n: f.Size(), whole: true} }

func (c fileRange) size() int64 { return c.n }

func (c fileRange) read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	f := c.f
	n := min(int64(len(dest)), c.n-off)
	at := c.off + off
	if errno := t.checkFile(f); errno != 0 {
		return nil, errno
	}
	if c.whole {
		t.wholeReads.Add(1)
	}
	if sp, ok := f.(source.Spliceable); ok && t.splice {
		return fuse.ReadResultFd(sp.Fd(), at, int(n)), fs.OK
	}
	if p, ok := f.(pieced); ok {
		// A tensor in pieces of other files (a Distributed Checkpoint's
		// split over ranks): each piece in place, as a virtual file's.
		return virtualContent{f: f, p: p}.read(t, dest[:n], at)
	}
	if mp, ok := f.(source.Mappable); ok && !t.splice {
		if m, err := mp.Mapping(); err == nil && at+n <= int64(len(m)) {
			return fuse.ReadResultData(m[at : at+n]), fs.OK
		}
	}
	if l, ok := f.(source.Lender); ok {
		pieces, release, err := l.Lend(at, int(n))
		if err != nil || lentLen(pieces) < n {
			if release != nil {
				release()
			}
			return nil, t.readFailed(f, err)
		}
		return &lent{pieces, release}, fs.OK
	}
	k, err := f.ReadAt(dest[:n], at)
	if int64(k) < n {
		return nil, t.readFailed(f, err)
	}
	return fuse.ReadResultData(dest[:n]), fs.OK
}

// readFailed says why a read of f failed, once per file (a changed file
// is marked so in the verdict), and returns EIO for it.
func (t *tree) readFailed(f source.File, err error) syscall.Errno {
	if errors.Is(err, source.ErrChanged) {
		t.changed(f, err)
	} else {
		t.warnOnce(f.Name(), fmt.Sprintf("reading %s: %v", f.Name(), err))
	}
	return syscall.EIO
}

// lent is a reply written straight from a Lender's pieces (one writev of
// them after the header); go-fuse calls Done once it is sent.
type lent struct {
	pieces  [][]byte
	release func()
}

func lentLen(pieces [][]byte) int64 {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	return int64(n)
}

func (r *lent) Size() int                       { return int(lentLen(r.pieces)) }
func (r *lent) Slices() ([][]byte, fuse.Status) { return r.pieces, fuse.OK }
func (r *lent) Done()                           { r.release() }

// Bytes joins the pieces into buf, for a server that writes one buffer.
func (r *lent) Bytes(buf []byte) ([]byte, fuse.Status) {
	buf = buf[:0]
	for _, p := range r.pieces {
		buf = append(buf, p...)
	}
	return buf, fuse.OK
}

// checkFile fails a read with EIO if the file changed since mounting:
// truncated (a mapped page past the new end would fail the reply and
// leave the reader hanging, a splice would return a silent short read),
// or rewritten in place (its bytes are no longer the tensors the tree
// describes).
func (t *tree) checkFile(f source.File) syscall.Errno {
	c, ok := f.(source.Checker)
	if !ok {
		return fs.OK
	}
	if err := c.Changed(); err != nil {
		t.changed(f, err)
		return syscall.EIO
	}
	return fs.OK
}
