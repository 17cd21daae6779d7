package safetensors

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// File names a model directory uses.
const (
	SingleFileName = "model.safetensors"
	IndexFileName  = "model.safetensors.index.json"
)

// Checkpoint is the whole of a model's weights: one safetensors file, or
// every shard a model.safetensors.index.json names, joined so that shard
// boundaries do not show.
type Checkpoint struct {
	// Path is what was opened: a file, or a directory.
	Path string
	// Files are the opened files, sorted by name.
	Files []*File
	// Index is the parsed index of a sharded checkpoint, else nil.
	Index *Index

	tensors  []*Tensor // sorted by name
	byName   map[string]*Tensor
	warnings []string
}

// ErrNoWeights is returned by OpenCheckpoint for a directory that has
// neither model.safetensors nor model.safetensors.index.json.
var ErrNoWeights = errors.New("no " + SingleFileName + " or " + IndexFileName)

// OpenCheckpoint opens a model's weights. path is a .safetensors file, or a
// directory holding model.safetensors.index.json (and its shards) or
// model.safetensors.
func OpenCheckpoint(path string) (*Checkpoint, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		f, err := Open(path)
		if err != nil {
			return nil, err
		}
		return newCheckpoint(path, []*File{f}, nil)
	}
	idx := filepath.Join(path, IndexFileName)
	if _, err := os.Stat(idx); err == nil {
		return openIndexed(path, idx)
	}
	single := filepath.Join(path, SingleFileName)
	if _, err := os.Stat(single); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w", path, ErrNoWeights)
		}
		return nil, err
	}
	f, err := Open(single)
	if err != nil {
		return nil, err
	}
	return newCheckpoint(path, []*File{f}, nil)
}

func newCheckpoint(path string, files []*File, idx *Index) (*Checkpoint, error) {
	c := &Checkpoint{Path: path, Files: files, Index: idx}
	n := 0
	for _, f := range files {
		n += len(f.tensors)
		c.warnings = append(c.warnings, f.warnings...)
	}
	c.tensors = make([]*Tensor, 0, n)
	c.byName = make(map[string]*Tensor, n)
	for _, f := range files {
		for _, t := range f.tensors {
			if prev, dup := c.byName[t.Name]; dup {
				err := formatErr(f.Name, CodeDuplicateTensor, t.Name, "tensor %q is stored in both %s and %s",
					t.Name, filepath.Base(prev.file.Name), filepath.Base(f.Name))
				c.Close()
				return nil, err
			}
			c.byName[t.Name] = t
			c.tensors = append(c.tensors, t)
		}
	}
	slices.SortFunc(c.tensors, func(a, b *Tensor) int { return cmp.Compare(a.Name, b.Name) })
	return c, nil
}

// Tensors returns every tensor of every file, sorted by name.
func (c *Checkpoint) Tensors() []*Tensor { return c.tensors }

// Tensor returns the named tensor, or nil.
func (c *Checkpoint) Tensor(name string) *Tensor { return c.byName[name] }

// Warnings returns the files' warnings and the index's.
func (c *Checkpoint) Warnings() []string { return c.warnings }

// Close closes every file.
func (c *Checkpoint) Close() error {
	var err error
	for _, f := range c.Files {
		err = cmp.Or(err, f.Close())
	}
	return err
}
