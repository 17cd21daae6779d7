package fusefs

import (
	"sync"

	"github.com/hanwen/go-fuse/v2/fuse"
)

// unasked wraps go-fuse's raw filesystem to answer ENOSYS to the requests
// the kernel then stops sending: OPENDIR, and GETXATTR and LISTXATTR.
//
// OPENDIR puts the kernel in no-opendir mode, which go-fuse's node API
// cannot ask for: OPENDIR is answered ENOSYS, after which the kernel sends
// no OPENDIR or RELEASEDIR for the whole mount and caches listings as if
// FOPEN_CACHE_DIR had been returned. A `find` of a warm tree then costs no
// request at all. READDIR and READDIRPLUS then arrive without a handle;
// each is served by opening the directory in-process, reading at the
// requested offset, and releasing it.
//
// It answers GETXATTR and LISTXATTR with ENOSYS too: the mount has no
// extended attributes, and after one ENOSYS the kernel answers every
// later getxattr(2) and listxattr(2) itself (EOPNOTSUPP). `ls -l` asks for
// two or three attributes of every entry, which would otherwise be a
// round trip each: most of a cold `ls -lR`.
type unasked struct {
	fuse.RawFileSystem
}

func (r *unasked) GetXAttr(cancel <-chan struct{}, header *fuse.InHeader, attr string, dest []byte) (uint32, fuse.Status) {
	return 0, fuse.ENOSYS
}

func (r *unasked) ListXAttr(cancel <-chan struct{}, header *fuse.InHeader, dest []byte) (uint32, fuse.Status) {
	return 0, fuse.ENOSYS
}

func (r *unasked) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	return fuse.ENOSYS
}

func (r *unasked) ReadDir(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return r.withHandle(cancel, in, out, false)
}

func (r *unasked) ReadDirPlus(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return r.withHandle(cancel, in, out, true)
}

// dirCall is what withHandle passes go-fuse for one READDIR, kept in a
// pool: a find makes 2.7 million of them over a 500,000-tensor model,
// and each was four allocations.
type dirCall struct {
	open    fuse.OpenIn
	opened  fuse.OpenOut
	read    fuse.ReadIn
	release fuse.ReleaseIn
}

var dirCalls = sync.Pool{New: func() any { return new(dirCall) }}

func (r *unasked) withHandle(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList, plus bool) fuse.Status {
	read := func(in *fuse.ReadIn) fuse.Status {
		if plus {
			return r.RawFileSystem.ReadDirPlus(cancel, in, out)
		}
		return r.RawFileSystem.ReadDir(cancel, in, out)
	}
	if in.Fh != 0 {
		return read(in)
	}
	c := dirCalls.Get().(*dirCall)
	defer dirCalls.Put(c)
	*c = dirCall{open: fuse.OpenIn{InHeader: in.InHeader}, read: *in}
	if st := r.RawFileSystem.OpenDir(cancel, &c.open, &c.opened); !st.Ok() {
		return st
	}
	c.read.Fh = c.opened.Fh
	st := read(&c.read)
	c.release = fuse.ReleaseIn{InHeader: in.InHeader, Fh: c.opened.Fh}
	r.RawFileSystem.ReleaseDir(&c.release)
	return st
}
