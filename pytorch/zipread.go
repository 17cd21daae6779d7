package pytorch

import (
	"errors"
	"io"
)

// windowReader is the io.ReaderAt a local archive's central directory
// (zipdir.go) and local headers are read through. These are small reads:
// the end record, the directory, and each record's local header
// (resolve). On a VM a system call costs microseconds whatever it reads
// (a read of one page costs about what a read of 30 bytes does), so the
// reads are served from a few windows of the file, each read once:
//
//   - the head, read by NewFile to tell the format: the first local
//     header (data.pkl's, as torch.save writes it);
//   - the tail, read when the first read past the head comes: the end
//     record and the central directory of most checkpoints;
//   - data.pkl and a page after it (preload): the small records
//     torch.save writes next to it (byteorder, version);
//   - after a read that follows the previous one, the next 16 KB, twice
//     as much each time, up to 1 MB;
//   - while local headers are read, the span that aheadLen (set by
//     aheadFor for each header) says the coming records cover: a run of
//     small storages and the local header after it. Copying a large
//     storage's bytes costs more than the read it saves (more so over a
//     sparse file's holes), so a storage of more than a page is read
//     past, not through: a 7B checkpoint's local headers are still read
//     one by one. (Reading them in one io_uring batch was tried: setting
//     up a ring and its workers cost more than the 300 reads.)
//
// Every window holds the file's own bytes at its offset, so a read it
// serves returns what reading the file would; what no window holds is
// read from the file. It is not safe for concurrent use.
type windowReader struct {
	src   io.ReaderAt
	size  int64
	head  window
	tail  window
	seq   window
	ahead window
	// next is the read expected next (the end of the last), and aheadLen
	// the window to read at the next local header, 0 for none.
	next     int64
	aheadLen int
	tailRead bool
	seqLen   int
	aheadBuf []byte // ahead's bytes, reused from one window to the next
}

type window struct {
	off int64
	b   []byte
}

func (w *window) serve(p []byte, off int64) bool {
	if off < w.off || off-w.off > int64(len(w.b)) || int64(len(p)) > int64(len(w.b))-(off-w.off) {
		return false
	}
	copy(p, w.b[off-w.off:])
	return true
}

// Sizes of the windows.
const (
	headWindow = 4 << 10
	tailWindow = 16 << 10
	seqWindow  = 16 << 10
	seqMax     = 1 << 20
	// aheadMax bounds the span read for a run of small storages;
	// aheadSmall is the largest storage whose successor's header is read
	// with it, and aheadSlack the room left for a local header's name
	// and extra field.
	aheadMax   = 16 << 10
	aheadSmall = 4 << 10
	aheadSlack = 1 << 10
)

func newWindowReader(src io.ReaderAt, size int64, head []byte) *windowReader {
	return &windowReader{src: src, size: size, head: window{0, head}, next: -1}
}

// view returns the n bytes at off themselves, without a copy, when the
// head, the tail or the sequential window holds them: their buffers are
// never written again once read (only the ahead window's is reused), so
// a view stays the file's bytes. ok is false otherwise.
func (r *windowReader) view(off int64, n int) (b []byte, ok bool) {
	for _, w := range []*window{&r.head, &r.tail, &r.seq} {
		if off >= w.off && off-w.off <= int64(len(w.b)) && int64(n) <= int64(len(w.b))-(off-w.off) {
			at := off - w.off
			return w.b[at : at+int64(n) : at+int64(n)], true
		}
	}
	return nil, false
}

// readView returns the n bytes of ra at off: a view of a window's when
// ra is a windowReader holding them (not to be written to), else read.
func readView(ra io.ReaderAt, off int64, n int) ([]byte, error) {
	if wr, ok := ra.(*windowReader); ok {
		if b, ok := wr.view(off, n); ok {
			return b, nil
		}
	}
	b := make([]byte, n)
	return b, readAtFull(ra, b, off)
}

// fill reads n bytes at off into a window, in buf when it is large
// enough; it fails (leaving the read to the caller) on an error other
// than the end of the file.
func (r *windowReader) fill(off int64, n int, buf []byte) (window, bool) {
	if off < 0 || off >= r.size {
		return window{}, false
	}
	n = int(min(int64(n), r.size-off))
	b := buf[:0]
	if cap(b) < n {
		b = make([]byte, n)
	}
	b = b[:n]
	k, err := r.src.ReadAt(b, off)
	if err != nil && !(errors.Is(err, io.EOF) && k > 0) {
		return window{}, false
	}
	return window{off, b[:k]}, true
}

// preload reads n bytes at off, to serve the reads within them.
func (r *windowReader) preload(off int64, n int) {
	if w, ok := r.fill(off, n, nil); ok {
		r.seq = w
	}
}

func (r *windowReader) ReadAt(p []byte, off int64) (int, error) {
	sequential := off == r.next
	r.next = off + int64(len(p))
	if r.head.serve(p, off) || r.tail.serve(p, off) || r.seq.serve(p, off) || r.ahead.serve(p, off) {
		return len(p), nil
	}
	if !r.tailRead {
		r.tailRead = true
		start := max(r.size-tailWindow, 0)
		if w, ok := r.fill(start, int(r.size-start), nil); ok {
			r.tail = w
			if r.tail.serve(p, off) {
				return len(p), nil
			}
		}
	}
	switch {
	case r.aheadLen > len(p):
		r.ahead = window{} // its bytes are about to be overwritten
		if w, ok := r.fill(off, r.aheadLen, r.aheadBuf); ok {
			r.ahead, r.aheadBuf = w, w.b[:cap(w.b)]
			if r.ahead.serve(p, off) {
				return len(p), nil
			}
		}
	case sequential && len(p) < seqMax:
		r.seqLen = min(max(2*r.seqLen, seqWindow), seqMax)
		if w, ok := r.fill(off, max(r.seqLen, len(p)), nil); ok {
			r.seq = w
			if r.seq.serve(p, off) {
				return len(p), nil
			}
		}
	}
	return r.src.ReadAt(p, off)
}

// aheadFor sets the window read at the next local header that no window
// holds: for entries es (in the archive's order) from i, the run of
// small storages and the header after the last, or nothing when es[i]
// is large.
func (r *windowReader) aheadFor(es []*entry, i int) {
	n := 0
	for j := i; j < len(es) && es[j].size <= aheadSmall; j++ {
		if n+int(es[j].size)+aheadSlack > aheadMax {
			break
		}
		n += int(es[j].size) + aheadSlack
	}
	r.aheadLen = n
}

// holds reports whether a window holds the n bytes at off.
func (r *windowReader) holds(off int64, n int) bool {
	in := func(w window) bool {
		return off >= w.off && off-w.off <= int64(len(w.b)) && int64(n) <= int64(len(w.b))-(off-w.off)
	}
	return in(r.head) || in(r.tail) || in(r.seq) || in(r.ahead)
}
