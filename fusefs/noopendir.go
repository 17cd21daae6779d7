package fusefs

import (
	"github.com/hanwen/go-fuse/v2/fuse"
)

// noOpendir puts the kernel in no-opendir mode, which go-fuse's node API
// cannot ask for: OPENDIR is answered ENOSYS, after which the kernel sends
// no OPENDIR or RELEASEDIR for the whole mount and caches listings as if
// FOPEN_CACHE_DIR had been returned. A `find` of a warm tree then costs no
// request at all. READDIR and READDIRPLUS then arrive without a handle;
// each is served by opening the directory in-process, reading at the
// requested offset, and releasing it.
type noOpendir struct {
	fuse.RawFileSystem
}

func (r *noOpendir) OpenDir(cancel <-chan struct{}, in *fuse.OpenIn, out *fuse.OpenOut) fuse.Status {
	return fuse.ENOSYS
}

func (r *noOpendir) ReadDir(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return r.withHandle(cancel, in, func(in *fuse.ReadIn) fuse.Status { return r.RawFileSystem.ReadDir(cancel, in, out) })
}

func (r *noOpendir) ReadDirPlus(cancel <-chan struct{}, in *fuse.ReadIn, out *fuse.DirEntryList) fuse.Status {
	return r.withHandle(cancel, in, func(in *fuse.ReadIn) fuse.Status { return r.RawFileSystem.ReadDirPlus(cancel, in, out) })
}

func (r *noOpendir) withHandle(cancel <-chan struct{}, in *fuse.ReadIn, read func(*fuse.ReadIn) fuse.Status) fuse.Status {
	if in.Fh != 0 {
		return read(in)
	}
	var out fuse.OpenOut
	if st := r.RawFileSystem.OpenDir(cancel, &fuse.OpenIn{InHeader: in.InHeader}, &out); !st.Ok() {
		return st
	}
	own := *in
	own.Fh = out.Fh
	st := read(&own)
	r.RawFileSystem.ReleaseDir(&fuse.ReleaseIn{InHeader: in.InHeader, Fh: out.Fh})
	return st
}
