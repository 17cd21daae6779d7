package dcp

import (
	"cmp"
	"github.com/fsmount/fsmount/internal/numfmt"
	"slices"

	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/tensor"
)

// checkTiling checks that a tensor's chunks tile it exactly: each inside
// the tensor, no two sharing an element, none missing. pairs counts the
// chunk pairs compared over the checkpoint, against maxPairs.
func checkTiling(mdName string, e *entry, pairs *int) error {
	key := pytorch.Printable(e.key)
	total, ok := numel(e.size)
	es := uint64(e.dtype.BlockBytes())
	if !ok || total > (1<<62)/es {
		return formatErr(mdName, CodeInvalidMetadata, e.key, "%s: its size %s overflows", key, tensor.FormatShape(e.size))
	}
	var covered uint64
	for _, ch := range e.chunks {
		if len(ch.offsets) != len(e.size) || len(ch.sizes) != len(e.size) {
			return formatErr(mdName, CodeInvalidMetadata, e.key, "%s %s: a chunk with offsets %s and sizes %s", key, tensor.FormatShape(e.size), tensor.FormatShape(ch.offsets), tensor.FormatShape(ch.sizes))
		}
		for d := range e.size {
			if ch.offsets[d] > e.size[d] || ch.sizes[d] > e.size[d]-ch.offsets[d] {
				return formatErr(mdName, CodeChunkBounds, e.key, "%s: chunk %s reaches past the tensor's size %s", key, box(ch.offsets, ch.sizes), tensor.FormatShape(e.size))
			}
		}
		n, _ := numel(ch.sizes) // at most total: the chunk is inside
		covered += n
		if covered > total {
			break // an overlap, found below
		}
	}
	// Overlaps: the chunks sorted by their first offset, each compared
	// with those starting before it ends.
	order := make([]int, 0, len(e.chunks))
	for i, ch := range e.chunks {
		if n, _ := numel(ch.sizes); n > 0 {
			order = append(order, i)
		}
	}
	first := func(i int) uint64 {
		if len(e.size) == 0 {
			return 0
		}
		return e.chunks[i].offsets[0]
	}
	slices.SortFunc(order, func(a, b int) int { return cmp.Compare(first(a), first(b)) })
	for x, i := range order {
		a := e.chunks[i]
		for _, j := range order[x+1:] {
			b := e.chunks[j]
			if len(e.size) > 0 && b.offsets[0] >= a.offsets[0]+a.sizes[0] {
				break
			}
			*pairs++
			if *pairs > maxPairs {
				return formatErr(mdName, CodeLimit, e.key, "%s: more than %d pairs of chunks to compare", key, maxPairs)
			}
			if lo, hi, ok := intersect(a, b); ok {
				return formatErr(mdName, CodeOverlap, e.key, "%s: chunks %s and %s overlap on %s", key, box(a.offsets, a.sizes), box(b.offsets, b.sizes), box(lo, sub(hi, lo)))
			}
		}
	}
	if covered < total {
		return formatErr(mdName, CodeMissingChunk, e.key, "%s %s: %s", key, tensor.FormatShape(e.size), gap(e, total-covered))
	}
	return nil
}

func sub(a, b []uint64) []uint64 {
	out := make([]uint64, len(a))
	for i := range a {
		out[i] = a[i] - b[i]
	}
	return out
}

// intersect returns the box two chunks share, if any.
func intersect(a, b chunkMeta) (lo, hi []uint64, ok bool) {
	lo, hi = make([]uint64, len(a.offsets)), make([]uint64, len(a.offsets))
	for d := range a.offsets {
		lo[d] = max(a.offsets[d], b.offsets[d])
		hi[d] = min(a.offsets[d]+a.sizes[d], b.offsets[d]+b.sizes[d])
		if lo[d] >= hi[d] {
			return nil, nil, false
		}
	}
	return lo, hi, true
}

// gap says which elements no chunk holds: the first box of the grid the
// chunks' edges cut the tensor into that no chunk covers, and how many
// elements are missing in all.
func gap(e *entry, missing uint64) string {
	counts := func() string {
		total, _ := numel(e.size)
		return numfmt.Commas(missing) + " of its " + numfmt.Commas(total) + " elements are in no chunk"
	}
	if len(e.chunks) == 0 {
		return "no chunk holds any of it (" + counts() + ")"
	}
	edges := make([][]uint64, len(e.size))
	cells := uint64(1)
	for d, s := range e.size {
		cuts := []uint64{0, s}
		for _, ch := range e.chunks {
			cuts = append(cuts, ch.offsets[d], ch.offsets[d]+ch.sizes[d])
		}
		slices.Sort(cuts)
		edges[d] = slices.Compact(cuts)
		cells *= uint64(len(edges[d]) - 1)
		if cells*uint64(len(e.chunks)) > maxCells*16 {
			return counts()
		}
	}
	idx := make([]int, len(e.size))
	lo, hi := make([]uint64, len(e.size)), make([]uint64, len(e.size))
	for {
		empty := false
		for d := range idx {
			lo[d], hi[d] = edges[d][idx[d]], edges[d][idx[d]+1]
			empty = empty || lo[d] == hi[d]
		}
		if !empty && !slices.ContainsFunc(e.chunks, func(ch chunkMeta) bool { return contains(ch, lo) }) {
			return "no chunk holds elements " + box(lo, sub(hi, lo)) + " (" + counts() + ")"
		}
		d := len(idx) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < len(edges[d])-1 {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return counts()
		}
	}
}

func contains(ch chunkMeta, p []uint64) bool {
	for d := range p {
		if p[d] < ch.offsets[d] || p[d] >= ch.offsets[d]+ch.sizes[d] {
			return false
		}
	}
	return true
}
