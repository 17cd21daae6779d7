package dcp

import (
	"fmt"
	"io"
	"io/fs"
	"slices"
	"time"

	"github.com/fsmount/fsmount/source"
)

// assemble makes the tensor's View read its chunks in place: one chunk's
// bytes when it holds the whole tensor, else an [Assembled] file.
func (t *Tensor) assemble() {
	v := t.View
	n, _ := numel(v.Shape)
	es := uint64(v.DType.BlockBytes())
	v.Length = int64(n * es)
	var full []Chunk
	for _, ch := range t.Chunks {
		if m, _ := numel(ch.Sizes); m > 0 {
			full = append(full, ch)
		}
	}
	if len(full) == 1 {
		v.File, v.Offset = full[0].File, full[0].Data
		return
	}
	if len(full) == 0 { // an empty tensor: any file, no bytes
		v.File, v.Offset = t.Chunks[0].File, t.Chunks[0].Data
		return
	}
	a := &Assembled{key: t.Key, shape: v.Shape, es: es, size: v.Length, chunks: full}
	// Sorted by offsets, so that a run's chunk is found by a search on
	// the first dimension.
	slices.SortFunc(a.chunks, func(x, y Chunk) int { return slices.Compare(x.Offsets, y.Offsets) })
	v.File, v.Offset = a, 0
}

// Assembled is a tensor whose chunks lie in several items, as one file:
// its row-major bytes, each run read in place from the chunk holding it.
// A run is as long as the chunk is contiguous in the whole tensor: a
// chunk of whole rows (a split of the first dimension) is one run, a
// chunk of columns one run per row.
type Assembled struct {
	key    string
	shape  []uint64
	es     uint64
	size   int64
	chunks []Chunk
}

// Name is the first chunk's file's, for messages.
func (a *Assembled) Name() string { return a.chunks[0].File.Name() }

// Size is the tensor's bytes.
func (a *Assembled) Size() int64 { return a.size }

// ModTime is the newest of the chunks' files'.
func (a *Assembled) ModTime() time.Time {
	var t time.Time
	for _, c := range a.chunks {
		if m := c.File.ModTime(); m.After(t) {
			t = m
		}
	}
	return t
}

// Mode is the first chunk's file's.
func (a *Assembled) Mode() fs.FileMode { return a.chunks[0].File.Mode() }

// Close does nothing: the files belong to the checkpoint.
func (a *Assembled) Close() error { return nil }

// Base is the first chunk's file: what the tensor's permissions and
// time derive from.
func (a *Assembled) Base() source.File { return source.BaseOf(a.chunks[0].File) }

// IsRemote reports whether the chunks come over the network.
func (a *Assembled) IsRemote() bool { return source.IsRemote(a.chunks[0].File) }

// Owner is the first chunk's file's, where it has one.
func (a *Assembled) Owner() (uid, gid uint32) {
	if o, ok := a.chunks[0].File.(source.Owned); ok {
		return o.Owner()
	}
	return 0, 0
}

// Chunks returns the chunks, sorted by offsets.
func (a *Assembled) Chunks() []Chunk { return a.chunks }

// run returns where the byte at off of the tensor lies: the chunk's
// file, the file offset, and how many bytes from there are contiguous in
// both the tensor and the file.
func (a *Assembled) run(off int64) (source.File, int64, int64, error) {
	el := uint64(off) / a.es
	skip := uint64(off) % a.es
	// The element's coordinates.
	p := make([]uint64, len(a.shape))
	rem := el
	for d := len(a.shape) - 1; d >= 0; d-- {
		if a.shape[d] > 0 {
			p[d] = rem % a.shape[d]
			rem /= a.shape[d]
		}
	}
	// The chunk holding it: those starting at or before p's first
	// coordinate, from the last.
	hi := len(a.chunks)
	if len(p) > 0 {
		hi, _ = slices.BinarySearchFunc(a.chunks, p[0]+1, func(c Chunk, x uint64) int {
			switch {
			case c.Offsets[0] < x:
				return -1
			case c.Offsets[0] > x:
				return 1
			}
			return 0
		})
	}
	for i := hi - 1; i >= 0; i-- {
		c := &a.chunks[i]
		if !containsPoint(c, p) {
			continue
		}
		// k: the chunk spans whole dimensions after k, so it is
		// contiguous in the tensor from p up to the end of its extent
		// in dimension k.
		k := len(p) - 1
		for k > 0 && c.Sizes[k] == a.shape[k] {
			k--
		}
		inner, local, stride := uint64(1), uint64(0), uint64(1)
		for d := len(p) - 1; d >= 0; d-- {
			local += (p[d] - c.Offsets[d]) * stride
			stride *= c.Sizes[d]
		}
		for d := len(p) - 1; d > k; d-- {
			inner *= a.shape[d]
		}
		var t uint64 // p's place in its block of the dimensions after k
		mul := uint64(1)
		for d := len(p) - 1; d > k; d-- {
			t += p[d] * mul
			mul *= a.shape[d]
		}
		n := uint64(1)
		if len(p) > 0 {
			n = (c.Offsets[k]+c.Sizes[k]-p[k])*inner - t
		}
		return c.File, c.Data + int64(local*a.es+skip), int64(n*a.es - skip), nil
	}
	return nil, 0, 0, fmt.Errorf("%s: tensor %s: no chunk holds byte %d", a.Name(), a.key, off)
}

func containsPoint(c *Chunk, p []uint64) bool {
	for d := range p {
		if p[d] < c.Offsets[d] || p[d] >= c.Offsets[d]+c.Sizes[d] {
			return false
		}
	}
	return true
}

// Pieces calls fn for each run of [off, off+n), in order, with the file
// and offset holding it, until fn returns false: a server hands each
// range to the kernel (splice, a mapping) without copying.
func (a *Assembled) Pieces(off, n int64, fn func(f source.File, at int64, b []byte, k int64) bool) {
	end := min(off+n, a.size)
	for off < end {
		f, at, k, err := a.run(off)
		if err != nil {
			return
		}
		k = min(k, end-off)
		if !fn(f, at, nil, k) {
			return
		}
		off += k
	}
}

// ReadAt reads the tensor's bytes, run by run.
func (a *Assembled) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset", a.Name())
	}
	n := 0
	for len(p) > 0 && off < a.size {
		f, at, k, err := a.run(off)
		if err != nil {
			return n, err
		}
		k = min(k, int64(len(p)), a.size-off)
		m, err := f.ReadAt(p[:k], at)
		n += m
		if int64(m) < k {
			if err == nil || err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return n, err
		}
		off += k
		p = p[k:]
	}
	if len(p) > 0 {
		return n, io.EOF
	}
	return n, nil
}

var (
	_ source.File    = (*Assembled)(nil)
	_ source.Derived = (*Assembled)(nil)
)
