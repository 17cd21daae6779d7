package remote

import "iter"

// span is the buffer of a byte range in pieces, filled in order: the
// chunks of a run, each its own array, so that one request fills them
// without a copy and the memory cache can keep or drop each alone.
//
// The pieces of a lazy span ([lazySpan]) are made only when the bytes
// reach them: a request for a run of chunks then holds arrays for the
// chunks that have arrived, not for all it asked for. A readahead
// window's requests asked for 32 arrays ahead of the reader that way,
// faulting in fresh memory for each (a page fault per 2 MiB, which costs
// a hypervisor exit where the host backs the guest's memory lazily),
// where the chunks that have arrived and wait for the reader are a few.
//
// A span is a view: its slices share its pieces, and a piece made
// through one is the piece of all.
type span struct {
	pieces *[][]byte          // nil where not made yet (a lazy span)
	sizes  []int              // the pieces' lengths, for a lazy span
	alloc  func(i int) []byte // makes piece i, for a lazy span
	lo, hi int                // the bytes of the pieces the view covers
}

// spanOf returns the span of pieces, all made.
func spanOf(pieces ...[]byte) span {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	return span{pieces: &pieces, hi: n}
}

// lazySpan returns a span of pieces of the given sizes, each made by
// alloc when the first byte is about to be written to it (see
// [span.each]). alloc(i) must return sizes[i] bytes.
func lazySpan(sizes []int, alloc func(i int) []byte) span {
	n := 0
	for _, s := range sizes {
		n += s
	}
	pieces := make([][]byte, len(sizes))
	return span{pieces: &pieces, sizes: sizes, alloc: alloc, hi: n}
}

// len is the span's length in bytes.
func (s span) len() int { return s.hi - s.lo }

// slice returns the bytes [from, to) of s, sharing its pieces.
func (s span) slice(from, to int) span {
	s.lo, s.hi = s.lo+from, s.lo+to
	return s
}

// size returns the length of piece i.
func (s span) size(i int) int {
	if p := (*s.pieces)[i]; p != nil || s.sizes == nil {
		return len(p)
	}
	return s.sizes[i]
}

// each yields the span's bytes in order as slices of its pieces, none
// empty, making each piece as it is reached: a reader fills a piece
// before it asks for the next one.
func (s span) each() iter.Seq[[]byte] {
	return func(yield func([]byte) bool) {
		pos := 0
		for i := range *s.pieces {
			n := s.size(i)
			lo, hi := max(s.lo-pos, 0), min(s.hi-pos, n)
			pos += n
			if lo >= hi {
				if pos >= s.hi {
					return
				}
				continue
			}
			p := (*s.pieces)[i]
			if p == nil {
				p = s.alloc(i)
				(*s.pieces)[i] = p
			}
			if !yield(p[lo:hi]) {
				return
			}
		}
	}
}
