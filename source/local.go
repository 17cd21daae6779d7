package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Dir is a local directory holding a model.
type Dir string

// Open opens a regular file of the directory, following symlinks (the
// Hugging Face cache is made of them). It opens with O_NONBLOCK, so that
// a FIFO planted in the directory cannot block, and refuses anything that
// is not a regular file.
func (d Dir) Open(name string) (File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return OpenLocal(filepath.Join(string(d), filepath.FromSlash(name)))
}

// List returns the names of the directory's entries, sorted.
func (d Dir) List() ([]string, error) {
	entries, err := os.ReadDir(string(d))
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	slices.Sort(names)
	return names, nil
}

func (d Dir) String() string { return string(d) }

// ErrNotRegular is matched by the error of opening anything but a
// regular file (a directory, a FIFO, a device).
var ErrNotRegular = errors.New("not a regular file")

// LocalFile is an open local file.
type LocalFile struct {
	f    *os.File
	name string
	st   unix.Stat_t
	mode fs.FileMode
	mt   time.Time

	closeOnce sync.Once
	closeErr  error

	mapOnce sync.Once
	mapped  []byte
	mapErr  error
}

// OpenLocalWith opens the local regular file at path and parses it with
// parse, which then owns it (a format's NewFile); if parse fails, the
// file is closed.
func OpenLocalWith[T any](path string, parse func(File) (T, error)) (T, error) {
	f, err := OpenLocal(path)
	if err != nil {
		var zero T
		return zero, err
	}
	return parseOwned(f, parse)
}

// OpenWith is [OpenLocalWith] for the file name of fsys.
func OpenWith[T any](fsys FS, name string, parse func(File) (T, error)) (T, error) {
	f, err := fsys.Open(name)
	if err != nil {
		var zero T
		return zero, err
	}
	return parseOwned(f, parse)
}

func parseOwned[T any](f File, parse func(File) (T, error)) (T, error) {
	v, err := parse(f)
	if err != nil {
		f.Close()
	}
	return v, err
}

// OpenLocal opens a local regular file by path.
func OpenLocal(path string) (*LocalFile, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	lf := &LocalFile{f: f, name: path}
	if err := unix.Fstat(int(f.Fd()), &lf.st); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if lf.st.Mode&unix.S_IFMT != unix.S_IFREG {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, kindOf(lf.st.Mode))
	}
	lf.mode = fs.FileMode(lf.st.Mode & 0o7777)
	lf.mt = time.Unix(lf.st.Mtim.Unix())
	return lf, nil
}

func kindOf(mode uint32) string {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return "a directory"
	case unix.S_IFIFO:
		return "a FIFO"
	case unix.S_IFCHR:
		return "a character device"
	case unix.S_IFBLK:
		return "a block device"
	case unix.S_IFSOCK:
		return "a socket"
	}
	return "not a file"
}

func (f *LocalFile) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }
func (f *LocalFile) Name() string                            { return f.name }
func (f *LocalFile) Size() int64                             { return f.st.Size }
func (f *LocalFile) ModTime() time.Time                      { return f.mt }
func (f *LocalFile) Mode() fs.FileMode                       { return f.mode }

// Owner returns the file's uid and gid when it was opened.
func (f *LocalFile) Owner() (uid, gid uint32) { return f.st.Uid, f.st.Gid }

// Fd returns the file's descriptor, for splicing.
func (f *LocalFile) Fd() uintptr { return f.f.Fd() }

// Close unmaps and closes the file. Closing twice is harmless.
func (f *LocalFile) Close() error {
	f.closeOnce.Do(func() {
		if f.mapped != nil {
			unix.Munmap(f.mapped)
			f.mapped = nil
		}
		f.closeErr = f.f.Close()
	})
	return f.closeErr
}

// Mapping maps the whole file read-only (once; later calls return the
// same mapping).
func (f *LocalFile) Mapping() ([]byte, error) {
	f.mapOnce.Do(func() {
		size := f.st.Size
		if size <= 0 || int64(int(size)) != size {
			f.mapErr = fmt.Errorf("%s: cannot map %d bytes", f.name, size)
			return
		}
		f.mapped, f.mapErr = unix.Mmap(int(f.f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
		if f.mapErr != nil {
			f.mapErr = fmt.Errorf("%s: mmap: %w", f.name, f.mapErr)
		}
	})
	return f.mapped, f.mapErr
}

// Release drops the process's page-table entries for data, a slice of the
// mapping, so that pages read once do not stay counted in its RSS; the
// pages stay in the page cache.
func (f *LocalFile) Release(data []byte) {
	if len(data) == 0 || f.mapped == nil {
		return
	}
	page := uintptr(unix.Getpagesize())
	base := uintptr(unsafe.Pointer(unsafe.SliceData(f.mapped)))
	start := uintptr(unsafe.Pointer(unsafe.SliceData(data))) - base
	end := start + uintptr(len(data))
	start, end = start&^(page-1), min((end+page-1)&^(page-1), uintptr(len(f.mapped)))
	if start < end {
		unix.Madvise(f.mapped[start:end], unix.MADV_DONTNEED)
	}
}

// Changed compares the file, as its descriptor sees it now, with what was
// opened: another size or modification time means it was rewritten in
// place. Not ctime: renaming another file over this one changes this
// one's ctime (its link count), and its bytes are still the ones opened.
// It is safe to call while the file is being closed (the watcher of a
// mount may be checking as the mount ends): a closed file is an error.
func (f *LocalFile) Changed() error {
	fi, err := f.f.Stat() // os.File's own locking, unlike a raw Fd
	if err != nil {
		return fmt.Errorf("%s: fstat: %w", f.name, err)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: fstat: no stat_t", f.name)
	}
	if st.Size != f.st.Size || st.Mtim.Sec != f.st.Mtim.Sec || st.Mtim.Nsec != f.st.Mtim.Nsec {
		return &ChangedError{Name: f.name, Was: f.st.Size, Now: st.Size}
	}
	return nil
}
