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
func Join(lists [][]*Tensor) (all []*Tensor, dup *Tensor, first, second int) {
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	all = make([]*Tensor, 0, n)
	byName := make(map[string]int, n)
	for i, l := range lists {
		for _, t := range l {
			if prev, ok := byName[t.Name]; ok {
				return nil, t, prev, i
			}
			byName[t.Name] = i
			all = append(all, t)
		}
	}
	slices.SortFunc(all, func(a, b *Tensor) int { return strings.Compare(a.Name, b.Name) })
	return all, nil, 0, 0
}
