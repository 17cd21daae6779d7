package source

import (
	"io"
	"io/fs"
	"time"
)

// readerFile adapts an io.ReaderAt of known size to a File.
type readerFile struct {
	io.ReaderAt
	name string
	size int64
}

// NewReaderFile returns a File reading size bytes from r, named name in
// messages: bytes in memory, a section of another file, a fuzz input.
// Close does nothing; its mode is 0444 and its time the zero time.
func NewReaderFile(name string, r io.ReaderAt, size int64) File {
	return &readerFile{ReaderAt: r, name: name, size: size}
}

func (f *readerFile) Close() error       { return nil }
func (f *readerFile) Name() string       { return f.name }
func (f *readerFile) Size() int64        { return f.size }
func (f *readerFile) ModTime() time.Time { return time.Time{} }
func (f *readerFile) Mode() fs.FileMode  { return 0o444 }
