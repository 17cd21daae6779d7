package remote

// span is the buffer of a byte range in pieces, filled in order: the
// chunks of a run, each its own array, so that one request fills them
// without a copy and the memory cache can keep or drop each alone.
type span [][]byte

// len is the span's length in bytes.
func (s span) len() int {
	n := 0
	for _, p := range s {
		n += len(p)
	}
	return n
}

// slice returns the bytes [from, to) of s, sharing its arrays.
func (s span) slice(from, to int) span {
	var out span
	pos := 0
	for _, p := range s {
		lo, hi := max(from-pos, 0), min(to-pos, len(p))
		if lo < hi {
			out = append(out, p[lo:hi])
		}
		pos += len(p)
		if pos >= to {
			break
		}
	}
	return out
}
