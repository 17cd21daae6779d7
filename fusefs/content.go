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

// tensorBytes is a tensor's bytes, served from its source file by the
// fastest way that file offers: spliced from its fd (the default), handed
// over as a slice of its mapping (--mmap), or read into dest (a source
// with neither, such as a remote file). Before each read the file is
// checked: a file that changed since mounting fails the read with EIO
// (watch.go).
type tensorBytes struct {
	t *tensor.Tensor
}

func (c tensorBytes) size() int64 { return c.t.Length }

func (c tensorBytes) read(t *tree, dest []byte, off int64) (fuse.ReadResult, syscall.Errno) {
	tt := c.t
	n := min(int64(len(dest)), tt.Length-off)
	if errno := t.checkFile(tt.File); errno != 0 {
		return nil, errno
	}
	if sp, ok := tt.File.(source.Spliceable); ok && t.splice {
		return fuse.ReadResultFd(sp.Fd(), tt.Offset+off, int(n)), fs.OK
	}
	if mp, ok := tt.File.(source.Mappable); ok && !t.splice {
		if m, err := mp.Mapping(); err == nil && tt.Offset+off+n <= int64(len(m)) {
			return fuse.ReadResultData(m[tt.Offset+off : tt.Offset+off+n]), fs.OK
		}
	}
	k, err := tt.File.ReadAt(dest[:n], tt.Offset+off)
	if int64(k) < n {
		if errors.Is(err, source.ErrChanged) {
			t.changed(tt.File, err)
		} else {
			t.warnOnce(tt.File.Name(), fmt.Sprintf("reading %s: %v", tt.File.Name(), err))
		}
		return nil, syscall.EIO
	}
	return fuse.ReadResultData(dest[:n]), fs.OK
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
