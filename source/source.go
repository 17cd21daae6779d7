// Package source reads a model's files from where they live. An [FS] is a
// model's root: a local directory ([Dir]) here, an HTTP server or the
// Hugging Face Hub in package source/remote, an S3 bucket in package
// source/s3; a [File] is one of its files, read with ReadAt. Formats and
// the model opener see only these interfaces.
//
// A File may offer faster paths as extra methods, which consumers test
// for: [Spliceable] (an fd to splice from), [Mappable] (a read-only
// mapping), [Lender] (slices of its own buffers, held until released),
// [Checker] (has the file changed since it was opened), [Owned] (its
// owner, for the mount's permissions), [Remote] and [Trimmer] (gives back
// memory kept for reuse when idle).
package source

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"time"

	"github.com/fsmount/fsmount/internal/numfmt"
)

// FS is the root a model is read from.
type FS interface {
	// Open opens the named file, a slash-separated path relative to the
	// root ("config.json", "model-00001-of-00002.safetensors"). A missing
	// file is an error matching fs.ErrNotExist; anything but a regular
	// file is refused.
	Open(name string) (File, error)
	// List returns the names of the root's files, sorted, or
	// ErrNotListable where the source cannot list (a web server).
	List() ([]string, error)
	// String names the root in messages: a path or a URL.
	String() string
}

// File is one open file of an FS.
type File interface {
	io.ReaderAt
	io.Closer
	// Name is the file's name in messages: its path or URL.
	Name() string
	// Size is the file's size when it was opened.
	Size() int64
	// ModTime is the file's modification time when it was opened.
	ModTime() time.Time
	// Mode is the file's permission bits when it was opened.
	Mode() fs.FileMode
}

// CloseAll closes f and more, passing over nil ones, and returns the
// first error.
func CloseAll(f File, more ...File) error {
	var err error
	for _, f := range append([]File{f}, more...) {
		if f != nil {
			err = cmp.Or(err, f.Close())
		}
	}
	return err
}

// Spliceable is a File whose bytes the kernel can splice from an fd at
// the same offsets.
type Spliceable interface {
	Fd() uintptr
}

// Mappable is a File that can be mapped read-only. The mapping lives until
// the file is closed; reading it may fault if the file shrinks, so
// readers of a mapping must be fault-safe (debug.SetPanicOnFault).
type Mappable interface {
	Mapping() ([]byte, error)
	// Release drops data, a slice of the mapping, from the process's RSS.
	Release(data []byte)
}

// Lender is a File that can lend its bytes instead of copying them out:
// Lend returns [off, off+n) (cut at the end of the file) as pieces that
// stay intact until release is called, once, after their last use. A
// remote file lends its cached chunks, so a FUSE reply is written from
// them directly.
type Lender interface {
	Lend(off int64, n int) (pieces [][]byte, release func(), err error)
}

// Trimmer is a File that keeps memory for reuse (a remote file's chunk
// arrays) and can give it back: a daemon calls Trim once it is idle.
type Trimmer interface {
	Trim()
}

// Remote is a File whose bytes cost a network round trip; checks that
// would read whole tensors skip such files unless asked.
type Remote interface {
	IsRemote() bool
}

// IsRemote reports whether f is a [Remote] file.
func IsRemote(f File) bool {
	r, ok := f.(Remote)
	return ok && r.IsRemote()
}

// Derived is a File computed from another, Base: the row-major bytes of
// a non-contiguous tensor, gathered on read. It has Base's name, time,
// mode and owner, and none of its fast paths.
type Derived interface {
	Base() File
}

// BaseOf returns the model file f is derived from, or f itself.
func BaseOf(f File) File {
	if d, ok := f.(Derived); ok {
		return d.Base()
	}
	return f
}

// Owned is a File that has an owner: a local file's uid and gid.
type Owned interface {
	Owner() (uid, gid uint32)
}

// Versioned is a File that knows what tells it from a file replaced since
// it was opened: a remote file compares the server's validator on every
// answer.
type Versioned interface {
	// Validator names what detects a change ("ETag", "Last-Modified",
	// "weak ETag": compared with every answer, but no request can be
	// made conditional on it), or is "" when nothing does: a file
	// replaced at the same size would be read as a mix of both.
	Validator() string
}

// Warner is an FS with something to say about how it reads that a
// report should show (a remote FS whose disk cache is off).
type Warner interface {
	Warnings() []string
}

// Checker is a File that can tell cheaply (a stat, no request) whether
// it changed since it was opened. A file that cannot, such as a remote
// one, reports a change as a read error matching [ErrChanged].
type Checker interface {
	// Changed returns nil while the file is the one opened, at the size
	// it had, else an error saying what changed.
	Changed() error
}

// ErrChanged is matched by every error that says a file is no longer the
// one opened: a [*ChangedError] of a local file, a remote file's read that
// met another version.
var ErrChanged = errors.New("the file changed since it was opened")

// ChangedError says that a file is no longer what was opened.
type ChangedError struct {
	Name     string
	Was, Now int64 // sizes when opened and now; equal when rewritten in place
}

// Is makes a ChangedError match [ErrChanged].
func (e *ChangedError) Is(target error) bool { return target == ErrChanged }

func (e *ChangedError) Error() string {
	if e.Now != e.Was {
		return e.Name + " changed size since it was opened, from " + numfmt.Commas(e.Was) + " to " + numfmt.Commas(e.Now) + " bytes"
	}
	return e.Name + " was modified since it was opened"
}

// ErrNotListable is returned by List for a source that cannot list.
var ErrNotListable = errors.New("source cannot list its files")

// ReadFile reads a whole file of fsys, refusing one larger than limit.
func ReadFile(fsys FS, name string, limit int64) ([]byte, error) {
	f, b, err := ReadAll(fsys, name, limit)
	if err != nil {
		return nil, err
	}
	f.Close()
	return b, nil
}

// ReadAll opens a file of fsys and reads it whole, refusing one larger
// than limit; the file stays open for the caller to close.
func ReadAll(fsys FS, name string, limit int64) (File, []byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, nil, err
	}
	if f.Size() > limit {
		f.Close()
		return nil, nil, &TooLargeError{Name: f.Name(), Size: f.Size(), Limit: limit}
	}
	buf := make([]byte, f.Size())
	if n, err := f.ReadAt(buf, 0); n < len(buf) {
		f.Close()
		if err == nil || err == io.EOF {
			err = fmt.Errorf("%s: read %d of %d bytes: %w", f.Name(), n, len(buf), io.ErrUnexpectedEOF)
		}
		return nil, nil, err
	}
	return f, buf, nil
}

// TooLargeError is a file refused for its size.
type TooLargeError struct {
	Name        string
	Size, Limit int64
}

func (e *TooLargeError) Error() string {
	return e.Name + ": " + numfmt.Commas(e.Size) + " bytes, more than the " + numfmt.Commas(e.Limit) + " allowed for this file"
}
