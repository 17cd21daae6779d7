// Package par is the program's one worker-pool helper: the three ways
// its packages spread work over goroutines.
//
//   - [Each]: a call per item, at most so many at once, every error kept
//     (resolving a remote archive's records: round trips, not CPU);
//     [Limit] the same for items found one by one (a checkpoint's
//     shards, opened as its index names them).
//   - [Do]: a fixed set of workers, each claiming the next item, the
//     first error ending the rest (scanning a tensor's chunks, the
//     model's small tensors, a merge proof's tensors).
//   - [Ranges]: [0, n) cut into equal ranges, one goroutine each
//     (a picture's rows).
//
// It imports nothing but the standard library.
package par

import (
	"context"
	"math/bits"
	"sync"
	"sync/atomic"
)

// Each calls fn(i) for every i in [0, n), at most limit calls at once
// (at least one), waits for them all and returns their errors by i.
func Each(n, limit int, fn func(i int) error) []error {
	errs := make([]error, n)
	l := NewLimit(limit)
	for i := range n {
		l.Go(func() { errs[i] = fn(i) })
	}
	l.Wait()
	return errs
}

// Limit runs calls on goroutines of their own, at most so many at once,
// as they are given: Each for items found one by one (a checkpoint's
// shards, opened as its index names them).
type Limit struct {
	sem chan struct{}
	wg  sync.WaitGroup
}

// NewLimit returns a Limit of n calls at once (at least one).
func NewLimit(n int) *Limit { return &Limit{sem: make(chan struct{}, max(1, n))} }

// Go calls fn on a goroutine, once fewer than the limit are running:
// until then it waits.
func (l *Limit) Go(fn func()) {
	l.sem <- struct{}{}
	l.wg.Go(func() {
		defer func() { <-l.sem }()
		fn()
	})
}

// Wait waits for every call Go made.
func (l *Limit) Wait() { l.wg.Wait() }

// Do runs workers goroutines (at least one) that call fn(ctx, w, i)
// for i in [0, n), each claiming the next i; w, in [0, workers), names
// the goroutine, for state of its own. The first error cancels ctx and
// stops the claims; Do waits for the calls under way and returns that
// error, or ctx's if it ended first, or nil.
func Do(ctx context.Context, workers, n int, fn func(ctx context.Context, w, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		next     atomic.Int64
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	for w := range max(1, workers) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				if err := fn(ctx, w, int(i)); err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					return
				}
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// Ranges calls fn(w, lo, hi) on parts goroutines, the w-th with the w-th
// of parts near-equal ranges [lo, hi) that cut [0, n), and waits.
func Ranges(n, parts int, fn func(w, lo, hi int)) {
	var wg sync.WaitGroup
	for w := range parts {
		lo, hi := int(Cut(uint64(w), uint64(n), uint64(parts))), int(Cut(uint64(w+1), uint64(n), uint64(parts)))
		wg.Go(func() { fn(w, lo, hi) })
	}
	wg.Wait()
}

// Cut returns where the i-th of parts near-equal ranges of [0, n)
// starts: floor(i·n/parts), for i ≤ parts, without overflow.
func Cut(i, n, parts uint64) uint64 {
	hi, lo := bits.Mul64(i, n)
	q, _ := bits.Div64(hi, lo, parts)
	return q
}
