package gguf

import (
	"encoding/binary"
	"fmt"
	"io"
)

// bufSize is the first window of the buffered reader, and the largest
// piece take returns. Each refill doubles the window, up to maxWindow, so
// that a header of a few MB (a 128k-token vocabulary) costs a handful of
// reads (a handful of range requests on a remote source), while a small
// one reads 64 KiB: never the whole file.
const (
	bufSize   = 64 << 10
	maxWindow = 4 << 20
)

// reader reads a file's header sequentially through ReadAt, a window of
// at most bufSize bytes at a time. Every read is checked against the
// file's size first, so a length from the file is never trusted.
type reader struct {
	f      io.ReaderAt
	name   string
	size   int64
	pos    int64  // file offset of the next byte to read
	buf    []byte // bytes of the file from bufOff
	bufOff int64
	window int // bytes the next refill reads
}

func newReader(f io.ReaderAt, name string, size int64) *reader {
	return &reader{f: f, name: name, size: size, window: bufSize}
}

func (r *reader) remaining() int64 { return r.size - r.pos }

func (r *reader) errAt(code Code, key, format string, args ...any) *FormatError {
	return formatErr(r.name, code, key, "%s at byte %#x", fmt.Sprintf(format, args...), r.pos)
}

// take returns the next n bytes (n <= bufSize) and advances past them. The
// slice is valid until the next call.
func (r *reader) take(n int, what string) ([]byte, error) {
	if int64(n) > r.remaining() {
		return nil, r.errAt(CodeTruncated, "", "%s needs %d bytes, %d left", what, n, r.remaining())
	}
	start := r.pos - r.bufOff
	if r.pos < r.bufOff || start+int64(n) > int64(len(r.buf)) {
		if err := r.fill(n); err != nil {
			return nil, err
		}
		start = 0
	}
	r.pos += int64(n)
	return r.buf[start : start+int64(n)], nil
}

// fill reads the window at pos, at least n bytes (checked by the caller
// to be there).
func (r *reader) fill(n int) error {
	want := int64(max(n, r.window))
	want = min(want, r.remaining())
	r.window = min(2*r.window, maxWindow)
	if cap(r.buf) < int(want) {
		r.buf = make([]byte, want)
	}
	r.buf = r.buf[:want]
	m, err := r.f.ReadAt(r.buf, r.pos)
	if m < int(want) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		r.buf = r.buf[:0]
		return fmt.Errorf("%s: read %d bytes at %#x: %w", r.name, want, r.pos, err)
	}
	r.bufOff = r.pos
	return nil
}

func (r *reader) u32(what string) (uint32, error) {
	b, err := r.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *reader) u64(what string) (uint64, error) {
	b, err := r.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// maxString is the longest string accepted, the limit of llama.cpp
// (GGUF_MAX_STRING_LENGTH); a string must also fit in what is left.
const maxString = 1 << 30

// stringLen reads a string's length and checks it against the cap and
// the bytes left.
func (r *reader) stringLen(what, key string) (int, error) {
	at := r.pos
	n, err := r.u64("string length") // a constant: no allocation per string
	if err != nil {
		return 0, err
	}
	if n > maxString || n > uint64(r.remaining()) {
		return 0, formatErr(r.name, CodeBadString, key, "%s of %d bytes at byte %#x, %d bytes left (cap %d)", what, n, at, r.remaining(), maxString)
	}
	return int(n), nil
}

// str reads a GGUF string: a u64 length and that many bytes.
func (r *reader) str(what, key string) (string, error) {
	n, err := r.stringLen(what, key)
	if err != nil {
		return "", err
	}
	return r.body(n, what)
}

// body reads the n bytes of a string whose length was checked.
func (r *reader) body(n int, what string) (string, error) {
	if n <= bufSize {
		b, err := r.take(n, what)
		return string(b), err
	}
	// A long string (a chat template): read it directly. n was checked
	// against the bytes left, so the allocation is backed by the file.
	b := make([]byte, n)
	if m, err := r.f.ReadAt(b, r.pos); m < n {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return "", fmt.Errorf("%s: read %d bytes at %#x: %w", r.name, n, r.pos, err)
	}
	r.pos += int64(n)
	return string(b), nil
}
