package fusefs

import (
	"errors"
	"os"
	"sync"
	"syscall"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/hanwen/go-fuse/v2/fuse"

	"github.com/fsmount/fsmount/source"
)

// Kernel passthrough serves files/ of a local model: an OPEN reply names
// the model file (a backing id, FOPEN_PASSTHROUGH) and the kernel then
// reads it directly, sending no READ. It needs an OPEN reply, so a mount
// with passthrough answers OPEN for every file (open mode); a mount
// without it answers ENOSYS (no-open mode, nodes.go). Which of the two is
// decided once, after INIT and before the first OPEN is answered, by
// registering every local model file as a backing file and releasing it
// again: the kernel must offer FUSE_PASSTHROUGH, the daemon needs
// CAP_SYS_ADMIN, and each file must be on a filesystem that is not
// stacked (overlayfs).

// openMode is the mount's way of answering OPEN. on is written once,
// before decided is closed; Open waits for decided.
type openMode struct {
	decided chan struct{}
	once    sync.Once
	on      bool
}

// noOpen is decided: no-open mode.
func noOpen() *openMode {
	m := &openMode{decided: make(chan struct{})}
	m.decide(false)
	return m
}

func (m *openMode) decide(on bool) {
	m.once.Do(func() {
		m.on = on
		close(m.decided)
	})
}

func (m *openMode) answersOpen() bool {
	<-m.decided
	return m.on
}

// passthroughError says why a mount that asked for passthrough serves
// files/ through the daemon instead.
type passthroughError struct {
	file string // the model file the kernel refused, if one did
	err  error
}

func (e *passthroughError) Error() string {
	msg := "kernel passthrough unavailable"
	if e.file != "" {
		msg += " for " + e.file
	}
	msg += ": " + e.err.Error()
	switch {
	case errors.Is(e.err, syscall.EPERM) && os.Geteuid() != 0:
		msg += " (it needs root: CAP_SYS_ADMIN)"
	case errors.Is(e.err, syscall.EPERM):
		msg += " (the kernel did not enable it for this mount)"
	case errors.Is(e.err, syscall.ELOOP):
		msg += " (the file is on a stacked filesystem such as overlayfs)"
	}
	return msg
}

func (e *passthroughError) Unwrap() error { return e.err }

// The reasons of a passthroughError other than the kernel's errno.
var (
	errNoKernelPassthrough = errors.New("the kernel does not offer FUSE_PASSTHROUGH")
	errNoLocalFiles        = errors.New("no local model file")
)

// backingServer is what probing needs of a *fuse.Server.
type backingServer interface {
	KernelSettings() *fuse.InitIn
	RegisterBackingFd(*fuse.BackingMap) (int32, syscall.Errno)
	UnregisterBackingFd(int32) syscall.Errno
}

// probePassthrough checks that the kernel takes every local model file as
// a backing file, and gives each back. A nil error means passthrough.
func probePassthrough(s backingServer, files []source.File) error {
	if s.KernelSettings().Flags64()&fuse.CAP_PASSTHROUGH == 0 {
		return &passthroughError{err: errNoKernelPassthrough}
	}
	local := 0
	for _, f := range files {
		lf, ok := f.(*source.LocalFile)
		if !ok {
			continue
		}
		id, errno := s.RegisterBackingFd(&fuse.BackingMap{Fd: int32(lf.Fd())})
		if errno != 0 {
			return &passthroughError{file: lf.Name(), err: errno}
		}
		if errno := s.UnregisterBackingFd(id); errno != 0 {
			return &passthroughError{file: lf.Name(), err: errno}
		}
		local++
	}
	if local == 0 {
		return &passthroughError{err: errNoLocalFiles}
	}
	return nil
}

// backingFile is the handle of an open files/ entry with passthrough:
// go-fuse registers its descriptor with the kernel on the first open of
// the inode and releases it with the last. The descriptor stays the
// model file's; the kernel holds its own reference.
type backingFile struct{ fd int }

var _ = (fs.FilePassthroughFder)((*backingFile)(nil))

func (b *backingFile) PassthroughFd() (int, bool) { return b.fd, true }

// passthroughSource returns the local model file that e serves whole (an
// entry of files/), or nil.
func passthroughSource(e *entry) *source.LocalFile {
	fr, ok := e.content.(fileRange)
	if !ok || !fr.whole {
		return nil
	}
	lf, _ := fr.f.(*source.LocalFile)
	return lf
}
