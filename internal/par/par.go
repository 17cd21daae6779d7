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
// Every goroutine of the program starts here, so that a panic on any of
// them reads as a crash and never as a verdict (Go's own exit code for
// a panic is 2, which means an invalid model to fsinspect): a panic on
// a goroutine somebody waits for ([Group], and so every helper above)
// is raised again on the waiting goroutine, as a [*Panic] with the
// worker's stack, where the command's guard (cli.Main) turns it into
// exit 70; a goroutine nobody waits for ([Go]) ends the process with
// [CrashCode] itself. A test of this package fails on any go statement
// elsewhere in the program.
//
// It imports nothing but the standard library.
package par

import (
	"context"
	"fmt"
	"math/bits"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
)

// CrashCode is the exit code of a process that panicked on a goroutine
// nobody waits for: cli.ExitInternal, sysexits.h's EX_SOFTWARE.
const CrashCode = 70

// Panic is a panic recovered on a worker goroutine, raised again on the
// goroutine that waited for it.
type Panic struct {
	Value any    // what the worker panicked with
	Stack []byte // the worker's stack when it panicked
}

func (p *Panic) Error() string { return fmt.Sprintf("panic on a worker goroutine: %v", p.Value) }

// String gives the value and the worker's stack, as a crash report.
func (p *Panic) String() string { return fmt.Sprintf("%v\n\nworker goroutine:\n%s", p.Value, p.Stack) }

// recovered turns a recovered value into a *Panic, keeping the first
// worker's stack when a Panic passes through several waits.
func recovered(v any) *Panic {
	if p, ok := v.(*Panic); ok {
		return p
	}
	return &Panic{Value: v, Stack: debug.Stack()}
}

// Group is a sync.WaitGroup that carries its goroutines' panics to
// Wait: the first one is raised again there.
type Group struct {
	wg    sync.WaitGroup
	mu    sync.Mutex
	panic *Panic
}

// Go calls fn on a new goroutine of the group.
func (g *Group) Go(fn func()) {
	g.wg.Go(func() {
		defer func() {
			if v := recover(); v != nil {
				p := recovered(v)
				g.mu.Lock()
				if g.panic == nil {
					g.panic = p
				}
				g.mu.Unlock()
			}
		}()
		fn()
	})
}

// Wait waits for the group's goroutines, then panics with the first
// panic one of them had, if any.
func (g *Group) Wait() {
	g.wg.Wait()
	g.mu.Lock()
	p := g.panic
	g.mu.Unlock()
	if p != nil {
		panic(p)
	}
}

// All calls each fn on a goroutine of its own and waits for them all.
func All(fns ...func()) {
	var g Group
	for _, fn := range fns {
		g.Go(fn)
	}
	g.Wait()
}

// Go calls fn on a goroutine nobody waits for (a server's loop, a
// watcher, a background fill). A panic on it is a bug with no caller to
// report to: it is written to standard error with its stack and the
// process exits with CrashCode.
func Go(fn func()) {
	go func() {
		defer func() {
			if v := recover(); v != nil {
				Crash(recovered(v))
			}
		}()
		fn()
	}()
}

// Crash reports a panic no caller can receive and ends the process with
// CrashCode.
func Crash(p *Panic) {
	fmt.Fprintf(os.Stderr, "%s: internal error, please report: %s\n", progName(), p.String())
	os.Exit(CrashCode)
}

func progName() string {
	name := os.Args[0]
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' {
			return name[i+1:]
		}
	}
	return name
}

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
	g   Group
}

// NewLimit returns a Limit of n calls at once (at least one).
func NewLimit(n int) *Limit { return &Limit{sem: make(chan struct{}, max(1, n))} }

// Go calls fn on a goroutine, once fewer than the limit are running:
// until then it waits.
func (l *Limit) Go(fn func()) {
	l.sem <- struct{}{}
	l.g.Go(func() {
		defer func() { <-l.sem }()
		fn()
	})
}

// Wait waits for every call Go made, and raises again the first panic
// one of them had.
func (l *Limit) Wait() { l.g.Wait() }

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
		g        Group
	)
	for w := range max(1, workers) {
		g.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					cancel() // the others stop claiming; Wait raises it
					panic(v)
				}
			}()
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
	g.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// Ranges calls fn(w, lo, hi) on parts goroutines, the w-th with the w-th
// of parts near-equal ranges [lo, hi) that cut [0, n), and waits.
func Ranges(n, parts int, fn func(w, lo, hi int)) {
	var g Group
	for w := range parts {
		lo, hi := int(Cut(uint64(w), uint64(n), uint64(parts))), int(Cut(uint64(w+1), uint64(n), uint64(parts)))
		g.Go(func() { fn(w, lo, hi) })
	}
	g.Wait()
}

// Cut returns where the i-th of parts near-equal ranges of [0, n)
// starts: floor(i·n/parts), for i ≤ parts, without overflow.
func Cut(i, n, parts uint64) uint64 {
	hi, lo := bits.Mul64(i, n)
	q, _ := bits.Div64(hi, lo, parts)
	return q
}
