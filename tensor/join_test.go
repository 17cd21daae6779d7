package tensor

import (
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
