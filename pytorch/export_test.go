package pytorch

import "io"

// LazyHeaders reports, for tests, how many local headers of f's storages
// are left to check before its bytes are read, and whether its tensors'
// File keeps a local file's fd and mapping.
func LazyHeaders(f *File) (n int, local bool) {
	switch d := f.data.(type) {
	case *lazyLocal:
		return len(d.lazy.ents), true
	case *lazyFile:
		return len(d.lazy.ents), false
	}
	return 0, false
}

// AheadMax is aheadMax, the longest span a windowReader reads ahead.
const AheadMax = aheadMax

// NewWindowReader is newWindowReader for the tests, with a function
// setting the span its next reads may read ahead (as a local header
// with a run of small storages after it does).
func NewWindowReader(src io.ReaderAt, size int64, head []byte) (r io.ReaderAt, ahead func(n int)) {
	w := newWindowReader(src, size, head)
	return w, func(n int) { w.aheadLen = n }
}
