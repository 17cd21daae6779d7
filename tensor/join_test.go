package tensor

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJoin(t *testing.T) {
	a, b, c := &Tensor{Name: "b"}, &Tensor{Name: "a"}, &Tensor{Name: "c"}
	all, dup, _, _ := Join([][]*Tensor{{a, c}, {}, {b}})
	require.Nil(t, dup)
	assert.Equal(t, []*Tensor{b, a, c}, all, "sorted by name")

	again := &Tensor{Name: "c"}
	all, dup, i, j := Join([][]*Tensor{{a, c}, {b}, {again}})
	assert.Nil(t, all)
	assert.Same(t, again, dup)
	assert.Equal(t, [2]int{0, 2}, [2]int{i, j})

	// The empty name is a name like any other.
	e1, e2 := &Tensor{}, &Tensor{}
	all, dup, i, j = Join([][]*Tensor{{e1}, {e2}})
	assert.Nil(t, all)
	assert.Same(t, e2, dup)
	assert.Equal(t, [2]int{0, 1}, [2]int{i, j})
}

// TestJoinMerge joins many sorted lists, as a sharded checkpoint's, and
// unsorted ones: the same order as a sort of all, and a duplicate named
// as a reader of the lists in order meets it.
func TestJoinMerge(t *testing.T) {
	var lists [][]*Tensor
	var want []string
	for k := range 7 {
		var l []*Tensor
		for i := range 5 + k {
			name := string(rune('a'+(i*7+k)%26)) + string(rune('a'+k))
			l = append(l, &Tensor{Name: name})
			want = append(want, name)
		}
		slices.SortFunc(l, compareNames)
		lists = append(lists, l, nil)
	}
	slices.Sort(want)
	all, dup, _, _ := Join(lists)
	require.Nil(t, dup)
	var got []string
	for _, t := range all {
		got = append(got, t.Name)
	}
	assert.Equal(t, want, got)

	// Two repeats: the first met in list order is named, with the list
	// that held it first.
	x1, x2, y1, y2 := &Tensor{Name: "x"}, &Tensor{Name: "x"}, &Tensor{Name: "y"}, &Tensor{Name: "y"}
	_, dup, i, j := Join([][]*Tensor{{x1}, {y1}, {{Name: "a"}, y2}, {x2}})
	assert.Same(t, y2, dup)
	assert.Equal(t, [2]int{1, 2}, [2]int{i, j})

	// A list out of order is joined all the same.
	p, q := &Tensor{Name: "p"}, &Tensor{Name: "q"}
	all, dup, _, _ = Join([][]*Tensor{{q, p}, {{Name: "r"}}})
	require.Nil(t, dup)
	assert.Equal(t, []string{"p", "q", "r"}, []string{all[0].Name, all[1].Name, all[2].Name})
}

// TestJoinFiles joins through the files' own lists and names the two
// files that store one name.
func TestJoinFiles(t *testing.T) {
	type file struct {
		name string
		ts   []*Tensor
	}
	list := func(f *file) []*Tensor { return f.ts }
	x, y := &Tensor{Name: "x"}, &Tensor{Name: "y"}
	f1, f2 := &file{"1", []*Tensor{y}}, &file{"2", []*Tensor{x}}
	all, dup, first, second := JoinFiles([]*file{f1, f2}, list)
	require.Nil(t, dup)
	assert.Nil(t, first)
	assert.Nil(t, second)
	assert.Equal(t, []*Tensor{x, y}, all)

	again := &Tensor{Name: "y"}
	f3 := &file{"3", []*Tensor{again}}
	all, dup, first, second = JoinFiles([]*file{f1, f2, f3}, list)
	assert.Nil(t, all)
	assert.Same(t, again, dup)
	assert.Same(t, f1, first)
	assert.Same(t, f3, second)
}
