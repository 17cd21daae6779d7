package tensor

import (
	"slices"
	"strings"
)

// Join merges the tensor lists of several files (the shards of one
// checkpoint) into one list sorted by name. A name stored in two lists
// is not merged: Join returns no list, the second tensor of that name
// as dup, and the indexes of the first list that holds the name and of
// the second, for the format to report as its own error.
//
// Lists sorted by name (as every format gives them) are merged pairwise,
// in log2(len(lists)) passes over two buffers: no map of every name is
// made, which for half a million tensors cost more than the rest of the
// join. A name found twice is then reported as the map would.
func Join(lists [][]*Tensor) (all []*Tensor, dup *Tensor, first, second int) {
	n := 0
	sorted := true
	for _, l := range lists {
		n += len(l)
		sorted = sorted && slices.IsSortedFunc(l, compareNames)
	}
	if !sorted {
		return joinMap(lists, n)
	}
	// buf holds the runs one after the other; each pass merges pairs of
	// adjacent runs into out.
	buf, out := make([]*Tensor, 0, n), make([]*Tensor, n)
	var ends []int // where each run ends in buf
	for _, l := range lists {
		if len(l) > 0 {
			buf = append(buf, l...)
			ends = append(ends, len(buf))
		}
	}
	for len(ends) > 1 {
		var next []int
		start := 0
		for r := 0; r < len(ends); r += 2 {
			if r+1 == len(ends) {
				copy(out[start:], buf[start:ends[r]])
				next = append(next, ends[r])
				break
			}
			merge(out[start:ends[r+1]], buf[start:ends[r]], buf[ends[r]:ends[r+1]])
			next = append(next, ends[r+1])
			start = ends[r+1]
		}
		buf, out, ends = out, buf[:n], next
	}
	for i := 1; i < len(buf); i++ {
		if buf[i-1].Name == buf[i].Name {
			return joinMap(lists, n)
		}
	}
	return buf, nil, 0, 0
}

// JoinFiles is [Join] over the tensors of files, list giving each file's;
// a name stored in two files is returned as dup with those two files.
func JoinFiles[F any](files []F, list func(F) []*Tensor) (all []*Tensor, dup *Tensor, first, second F) {
	lists := make([][]*Tensor, len(files))
	for i, f := range files {
		lists[i] = list(f)
	}
	all, dup, i, j := Join(lists)
	if dup != nil {
		return nil, dup, files[i], files[j]
	}
	return all, nil, first, second
}

func compareNames(a, b *Tensor) int { return strings.Compare(a.Name, b.Name) }

// merge merges the sorted a and b into dst, len(a)+len(b) long; of equal
// names, a's first.
func merge(dst, a, b []*Tensor) {
	i, j, k := 0, 0, 0
	for i < len(a) && j < len(b) {
		if b[j].Name < a[i].Name {
			dst[k] = b[j]
			j++
		} else {
			dst[k] = a[i]
			i++
		}
		k++
	}
	k += copy(dst[k:], a[i:])
	copy(dst[k:], b[j:])
}

// joinMap is Join by a map of every name: for lists not sorted, and to
// name the duplicate as a reader of the lists in order meets it.
func joinMap(lists [][]*Tensor, n int) (all []*Tensor, dup *Tensor, first, second int) {
	all = make([]*Tensor, 0, n)
	seen := make(map[string]int, n)
	for i, l := range lists {
		for _, t := range l {
			if prev, ok := seen[t.Name]; ok {
				return nil, t, prev, i
			}
			seen[t.Name] = i
			all = append(all, t)
		}
	}
	slices.SortFunc(all, compareNames)
	return all, nil, 0, 0
}
