package tensor

import (
	"bytes"
	"fmt"
	"runtime/debug"

	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/source"
)

// FirstDifference compares the bytes of two tensors of the same length
// and returns the offset of the first byte where they differ, or -1 if
// they are identical. Tensors of files that can be mapped are compared in
// place, on two goroutines, with faults turned into errors (a file
// truncated or failing underneath is an error, never a crash) and the
// pages released from the process's RSS afterwards; others are read in
// chunks.
func FirstDifference(t, u *Tensor) (int64, error) {
	if t.Length != u.Length {
		return 0, fmt.Errorf("%s is %d bytes, %s is %d", t.Name, t.Length, u.Name, u.Length)
	}
	mt, okT := t.File.(source.Mappable)
	mu, okU := u.File.(source.Mappable)
	if okT && okU {
		a, errA := mt.Mapping()
		b, errB := mu.Mapping()
		if errA == nil && errB == nil && t.Offset+t.Length <= int64(len(a)) && u.Offset+u.Length <= int64(len(b)) {
			a, b = a[t.Offset:t.Offset+t.Length], b[u.Offset:u.Offset+u.Length]
			defer mt.Release(a)
			defer mu.Release(b)
			return firstDifferenceMapped(a, b, t, u)
		}
	}
	return firstDifferenceRead(t, u)
}

func firstDifferenceMapped(a, b []byte, t, u *Tensor) (int64, error) {
	// Two halves compared at once: the comparison is bound by page
	// faults, and the machines this runs on have at least two cores.
	half := len(a) / 2
	type result struct {
		off int64
		err error
	}
	var r result
	var g par.Group
	g.Go(func() {
		r.off, r.err = compareMapped(a[half:], b[half:], t, u)
		if r.off >= 0 {
			r.off += int64(half)
		}
	})
	off, err := compareMapped(a[:half], b[:half], t, u)
	g.Wait()
	switch {
	case err != nil:
		return 0, err
	case r.err != nil:
		return 0, r.err
	case off >= 0:
		return off, nil
	}
	return r.off, nil
}

// compareMapped compares mapped bytes, turning a fault of the mapping (a
// file truncated or failing underneath) into an error.
func compareMapped(a, b []byte, t, u *Tensor) (off int64, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			off, err = 0, fmt.Errorf("comparing %s with %s: the mapped file failed: %v", t.Name, u.Name, r)
		}
	}()
	const chunk = 1 << 20
	for i := 0; i < len(a); i += chunk {
		j := min(i+chunk, len(a))
		if bytes.Equal(a[i:j], b[i:j]) {
			continue
		}
		for k := i; k < j; k++ {
			if a[k] != b[k] {
				return int64(k), nil
			}
		}
	}
	return -1, nil
}

func firstDifferenceRead(t, u *Tensor) (int64, error) {
	const chunk = 4 << 20
	ra, rb := t.Reader(), u.Reader()
	bufA, bufB := make([]byte, min(chunk, t.Length)), make([]byte, min(chunk, t.Length))
	for off := int64(0); off < t.Length; off += chunk {
		n := min(chunk, t.Length-off)
		if _, err := ra.ReadAt(bufA[:n], off); err != nil {
			return 0, fmt.Errorf("reading %s: %w", t.Name, err)
		}
		if _, err := rb.ReadAt(bufB[:n], off); err != nil {
			return 0, fmt.Errorf("reading %s: %w", u.Name, err)
		}
		if !bytes.Equal(bufA[:n], bufB[:n]) {
			for i := range n {
				if bufA[i] != bufB[i] {
					return off + i, nil
				}
			}
		}
	}
	return -1, nil
}
