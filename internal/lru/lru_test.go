package lru_test

import (
	"container/list"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/lru"
)

func keys[K comparable, V any](c *lru.Cache[K, V]) []K {
	var out []K
	for k := range c.All() {
		out = append(out, k)
	}
	return out
}

func TestOrderAndBound(t *testing.T) {
	var evicted []string
	c := &lru.Cache[string, int]{Max: 3, Evicted: func(k string, _ int) { evicted = append(evicted, k) }}
	for _, k := range []string{"a", "b", "c"} {
		require.True(t, c.Add(k, len(k)))
	}
	assert.Equal(t, []string{"c", "b", "a"}, keys(c))
	v, ok := c.Get("a")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	assert.Equal(t, []string{"a", "c", "b"}, keys(c))
	assert.True(t, c.Contains("b"), "Contains does not mark b used")
	assert.False(t, c.Add("a", 9), "a held already")
	v, _ = c.Get("a")
	assert.Equal(t, 1, v, "Add keeps the held value")
	require.True(t, c.Add("d", 1))
	assert.Equal(t, []string{"b"}, evicted)
	assert.Equal(t, []string{"d", "a", "c"}, keys(c))
	assert.Equal(t, 3, c.Len())
	assert.Equal(t, int64(3), c.Used())

	v, ok = c.Remove("a")
	assert.True(t, ok)
	assert.Equal(t, 1, v)
	_, ok = c.Remove("a")
	assert.False(t, ok)
	k, _, ok := c.Oldest()
	assert.True(t, ok)
	assert.Equal(t, "c", k)
	k, _, ok = c.RemoveOldest()
	assert.True(t, ok)
	assert.Equal(t, "c", k)
	assert.Equal(t, []string{"d"}, keys(c))
	assert.Equal(t, []string{"b"}, evicted, "Remove and RemoveOldest do not call Evicted")
}

func TestCost(t *testing.T) {
	c := &lru.Cache[int, []byte]{Max: 10, Cost: func(b []byte) int64 { return int64(len(b)) }}
	assert.False(t, c.Add(1, make([]byte, 11)), "larger than the bound")
	assert.Equal(t, 0, c.Len())
	c.Add(1, make([]byte, 4))
	c.Add(2, make([]byte, 4))
	c.Add(3, make([]byte, 4))
	assert.Equal(t, []int{3, 2}, keys(c))
	assert.Equal(t, int64(8), c.Used())
	c.Add(4, make([]byte, 10))
	assert.Equal(t, []int{4}, keys(c))
	assert.Equal(t, int64(10), c.Used())
}

func TestZeroValueUnbounded(t *testing.T) {
	var c lru.Cache[int, struct{}]
	_, _, ok := c.Oldest()
	assert.False(t, ok)
	_, ok = c.Get(1)
	assert.False(t, ok)
	assert.Empty(t, keys(&c))
	for i := range 1000 {
		c.Add(i, struct{}{})
	}
	assert.Equal(t, 1000, c.Len())
	// Removing the key the loop is given is allowed.
	for k := range c.All() {
		if k%2 == 0 {
			c.Remove(k)
		}
	}
	assert.Equal(t, 500, c.Len())
	k, _, _ := c.Oldest()
	assert.Equal(t, 1, k)
}

// reference is an independent LRU: a slice, most recent first.
type reference struct {
	max   int64
	keys  []int
	costs map[int]int64
	used  int64
}

func (r *reference) get(k int) bool {
	i := slices.Index(r.keys, k)
	if i < 0 {
		return false
	}
	r.keys = append([]int{k}, slices.Delete(r.keys, i, i+1)...)
	return true
}

func (r *reference) add(k int, n int64) {
	if slices.Contains(r.keys, k) || n > r.max {
		return
	}
	r.keys = append([]int{k}, r.keys...)
	r.costs[k] = n
	r.used += n
	for r.used > r.max {
		old := r.keys[len(r.keys)-1]
		r.keys = r.keys[:len(r.keys)-1]
		r.used -= r.costs[old]
	}
}

func (r *reference) remove(k int) {
	if i := slices.Index(r.keys, k); i >= 0 {
		r.keys = slices.Delete(r.keys, i, i+1)
		r.used -= r.costs[k]
	}
}

// TestAgainstReference runs random operations on a Cache and on the
// slice reference and compares the order and the cost after each.
func TestAgainstReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c := &lru.Cache[int, int64]{Max: 50, Cost: func(n int64) int64 { return n }}
	ref := &reference{max: 50, costs: map[int]int64{}}
	for i := range 20000 {
		k := rng.IntN(40)
		switch rng.IntN(4) {
		case 0, 1:
			n := int64(rng.IntN(12) + 1)
			c.Add(k, n)
			ref.add(k, n)
		case 2:
			_, ok := c.Get(k)
			require.Equal(t, ref.get(k), ok, "op %d", i)
		case 3:
			c.Remove(k)
			ref.remove(k)
		}
		require.Equal(t, ref.keys, keys(c), "op %d", i)
		require.Equal(t, ref.used, c.Used(), "op %d", i)
	}
}

// listCache is the container/list cache the package replaced, as a peer
// for the benchmarks.
type listCache struct {
	max   int
	order *list.List
	items map[int]*list.Element
}

type listEntry struct{ k, v int }

func (c *listCache) get(k int) (int, bool) {
	if e, ok := c.items[k]; ok {
		c.order.MoveToFront(e)
		return e.Value.(*listEntry).v, true
	}
	return 0, false
}

func (c *listCache) add(k, v int) {
	if _, ok := c.items[k]; ok {
		return
	}
	c.items[k] = c.order.PushFront(&listEntry{k, v})
	for c.order.Len() > c.max {
		old := c.order.Remove(c.order.Back()).(*listEntry)
		delete(c.items, old.k)
	}
}

// The benchmarks run a cache of 8192 entries with keys drawn from 16384
// (half the gets miss and add): Cache against listCache, its peer in the
// same run (go test -bench . ./internal/lru).
const benchMax, benchKeys = 8192, 16384

func BenchmarkCache(b *testing.B) {
	c := &lru.Cache[int, int]{Max: benchMax}
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		k := rng.IntN(benchKeys)
		if _, ok := c.Get(k); !ok {
			c.Add(k, k)
		}
	}
}

func BenchmarkContainerList(b *testing.B) {
	c := &listCache{max: benchMax, order: list.New(), items: map[int]*list.Element{}}
	rng := rand.New(rand.NewPCG(1, 2))
	for b.Loop() {
		k := rng.IntN(benchKeys)
		if _, ok := c.get(k); !ok {
			c.add(k, k)
		}
	}
}
