// Package lru is the one least-recently-used order of the program: the
// rendered pictures and pages (render.Cache), each tensor's decoded views
// and the inodes the kernel holds (fusefs), the remote chunks kept in
// memory and on disk (source/remote), and the non-contiguous PyTorch
// tensors laid out in memory (pytorch).
//
// A [Cache] maps keys to values in order of use, optionally bounded by
// the sum of their costs. It is not safe for concurrent use: each owner
// holds its own lock, often over more than the cache (a chunk's
// reference count, a version's files). It imports nothing but the
// standard library.
package lru

import "iter"

// Cache holds values by key, most recently used first. The zero value
// is an empty cache with no bound. Set Max, Cost and Evicted before the
// first Add.
type Cache[K comparable, V any] struct {
	// Max bounds the sum of the values' costs; Add evicts the least
	// recently used beyond it. 0 means no bound: the owner evicts, with
	// RemoveOldest.
	Max int64
	// Cost is a value's cost; nil counts each value as 1.
	Cost func(V) int64
	// Evicted, if set, is called with each value Add evicts to keep the
	// bound (not with those Remove and RemoveOldest return).
	Evicted func(K, V)

	items map[K]*entry[K, V]
	root  entry[K, V] // root.next is the most recent, root.prev the oldest
	used  int64
}

type entry[K comparable, V any] struct {
	prev, next *entry[K, V]
	key        K
	val        V
	cost       int64
}

func (c *Cache[K, V]) cost(v V) int64 {
	if c.Cost == nil {
		return 1
	}
	return c.Cost(v)
}

// Len returns how many values the cache holds.
func (c *Cache[K, V]) Len() int { return len(c.items) }

// Used returns the sum of the held values' costs.
func (c *Cache[K, V]) Used() int64 { return c.used }

// Get returns the value of k and marks it the most recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	if c.root.next != e {
		c.unlink(e)
		c.pushFront(e)
	}
	return e.val, true
}

// Contains reports whether k is held, without marking it used.
func (c *Cache[K, V]) Contains(k K) bool {
	_, ok := c.items[k]
	return ok
}

// Add holds v as k, the most recently used, and evicts the least
// recently used values while the costs exceed Max. It adds nothing and
// returns false when k is held already (its value and place are kept)
// or v alone costs more than Max.
func (c *Cache[K, V]) Add(k K, v V) bool {
	if _, ok := c.items[k]; ok {
		return false
	}
	n := c.cost(v)
	if c.Max > 0 && n > c.Max {
		return false
	}
	if c.items == nil {
		c.items = make(map[K]*entry[K, V])
		c.root.next, c.root.prev = &c.root, &c.root
	}
	e := &entry[K, V]{key: k, val: v, cost: n}
	c.items[k] = e
	c.pushFront(e)
	c.used += n
	for c.Max > 0 && c.used > c.Max {
		old := c.root.prev
		c.drop(old)
		if c.Evicted != nil {
			c.Evicted(old.key, old.val)
		}
	}
	return true
}

// Remove drops k and returns its value.
func (c *Cache[K, V]) Remove(k K) (V, bool) {
	e, ok := c.items[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.drop(e)
	return e.val, true
}

// Oldest returns the least recently used key and value, without marking
// them used.
func (c *Cache[K, V]) Oldest() (K, V, bool) {
	if len(c.items) == 0 {
		var k K
		var v V
		return k, v, false
	}
	e := c.root.prev
	return e.key, e.val, true
}

// RemoveOldest drops the least recently used value and returns it.
func (c *Cache[K, V]) RemoveOldest() (K, V, bool) {
	k, v, ok := c.Oldest()
	if ok {
		c.drop(c.root.prev)
	}
	return k, v, ok
}

// All yields the keys and values, most recently used first, marking
// none used. The loop may Remove the key it is given.
func (c *Cache[K, V]) All() iter.Seq2[K, V] {
	return func(yield func(K, V) bool) {
		if len(c.items) == 0 {
			return
		}
		for e := c.root.next; e != &c.root; {
			next := e.next
			if !yield(e.key, e.val) {
				return
			}
			e = next
		}
	}
}

func (c *Cache[K, V]) pushFront(e *entry[K, V]) {
	e.prev, e.next = &c.root, c.root.next
	c.root.next.prev = e
	c.root.next = e
}

func (c *Cache[K, V]) unlink(e *entry[K, V]) {
	e.prev.next = e.next
	e.next.prev = e.prev
	e.prev, e.next = nil, nil
}

func (c *Cache[K, V]) drop(e *entry[K, V]) {
	c.unlink(e)
	delete(c.items, e.key)
	c.used -= e.cost
}
