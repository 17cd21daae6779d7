package gguf

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// The keys of a split model, present in every shard (gguf.md §6).
const (
	KeySplitNo           = "split.no"            // u16, 0-based index of the shard
	KeySplitCount        = "split.count"         // u16, number of shards
	KeySplitTensorsCount = "split.tensors.count" // i32, tensors over all shards
)

// SplitName returns the file name of shard no (1-based) of count:
// SplitName("m", 2, 3) is "m-00002-of-00003.gguf", as llama.cpp names them.
func SplitName(prefix string, no, count int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.gguf", prefix, no, count)
}

// ParseSplitName splits a shard's file name (no directory) into its
// prefix, 1-based number and count; ok is false for any other name.
func ParseSplitName(name string) (prefix string, no, count int, ok bool) {
	const tail = len("-00001-of-00003.gguf")
	if len(name) < tail || !strings.HasSuffix(name, ".gguf") {
		return "", 0, 0, false
	}
	s := name[len(name)-tail:]
	if s[0] != '-' || s[6:10] != "-of-" {
		return "", 0, 0, false
	}
	no, err1 := strconv.Atoi(s[1:6])
	count, err2 := strconv.Atoi(s[10:15])
	if err1 != nil || err2 != nil || !allDigits(s[1:6]) || !allDigits(s[10:15]) {
		return "", 0, 0, false
	}
	return name[:len(name)-tail], no, count, true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// Model is a GGUF model: one file, or the shards of a split model joined
// into one tensor set. Each tensor's File is the shard holding it.
type Model struct {
	files    []*File // shard order; files[0] holds the metadata
	opened   []*File // files the Model opened and closes
	tensors  []*tensor.Tensor
	byName   map[string]*tensor.Tensor
	warnings []string
}

// OpenModel opens the GGUF file name of fsys and, when it is the first
// shard of a split model, every other shard, named as llama.cpp names
// them, from the same directory of fsys. Close closes them all.
func OpenModel(fsys source.FS, name string) (*Model, error) {
	first, err := source.OpenWith(fsys, name, owning)
	if err != nil {
		return nil, err
	}
	m, err := join(first, fsys, path.Dir(name), path.Base(name))
	if err != nil {
		first.Close()
		return nil, err
	}
	m.opened = append(m.opened, first)
	return m, nil
}

// Join makes a model of first and, when first is the first shard of a
// split model (split.count > 1), of its siblings, opened from fsys by the
// name of first's source (its last path element) with the shard number
// changed. The shards Join opens are closed by [Model.Close]; first is
// the caller's.
func Join(first *File, fsys source.FS) (*Model, error) {
	return join(first, fsys, ".", path.Base(first.Source().Name()))
}

func join(first *File, fsys source.FS, dir, base string) (*Model, error) {
	m := &Model{files: []*File{first}, warnings: slices.Clone(first.Warnings())}
	name := first.Source().Name()
	sp, err := splitOf(first)
	if err != nil {
		return nil, err
	}
	count, no := sp.count, sp.no
	if !sp.hasCount || count <= 1 {
		if sp.hasNo && no != 0 {
			return nil, formatErr(name, CodeBadSplit, "", "%s is %d in a model of %d file", KeySplitNo, no, max(count, 1))
		}
		if _, n, c, isShard := ParseSplitName(base); isShard && c > 1 {
			m.warnings = append(m.warnings, fmt.Sprintf("%s is named as shard %d of %d but has no split.count > 1: read as a whole model", base, n, c))
		}
		return m, m.index()
	}
	if no != 0 {
		return nil, formatErr(name, CodeBadSplit, "", "%s is %d: a split model must be opened by its first shard (split.no 0)", KeySplitNo, no)
	}
	prefix, n, c, isShard := ParseSplitName(base)
	if !isShard || n != 1 || c != int(count) {
		return nil, formatErr(name, CodeBadSplit, "", "first of %d shards, but its name %q is not PREFIX-00001-of-%05d.gguf", count, base, count)
	}
	ok := false
	defer func() {
		if !ok {
			m.Close()
		}
	}()
	for i := 2; i <= int(count); i++ {
		sib := path.Join(dir, SplitName(prefix, i, int(count)))
		f, err := source.OpenWith(fsys, sib, owning)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, formatErr(name, CodeMissingShard, "", "shard %d of %d, %s: %v", i, count, sib, err)
		}
		if err != nil {
			return nil, err
		}
		src := f.Source()
		m.opened = append(m.opened, f)
		m.files = append(m.files, f)
		s, err := splitOf(f)
		if err != nil {
			return nil, err
		}
		if !s.hasNo || !s.hasCount || int(s.no) != i-1 || s.count != count {
			return nil, formatErr(src.Name(), CodeBadSplit, "", "shard %d of %d has %s %d and %s %d (present: %v, %v); want %d and %d",
				i, count, KeySplitNo, s.no, KeySplitCount, s.count, s.hasNo, s.hasCount, i-1, count)
		}
		for _, w := range f.Warnings() {
			m.warnings = append(m.warnings, path.Base(src.Name())+": "+w)
		}
	}
	if err := m.index(); err != nil {
		return nil, err
	}
	v, has := first.Lookup(KeySplitTensorsCount)
	total, isInt := v.Int()
	switch {
	case !has:
		m.warnings = append(m.warnings, "split model without "+KeySplitTensorsCount)
	case v.Type() != TypeInt32 || !isInt:
		return nil, formatErr(name, CodeBadSplit, KeySplitTensorsCount, "type %s, want i32", v.describe())
	case total != int64(len(m.tensors)):
		return nil, formatErr(name, CodeBadSplit, KeySplitTensorsCount, "%d tensors expected, %d found in %d shards", total, len(m.tensors), count)
	}
	ok = true
	return m, nil
}

// splitU16 reads a split key, which llama.cpp requires to be a u16.
func splitU16(f *File, key string) (uint16, bool, error) {
	v, ok := f.Lookup(key)
	if !ok {
		return 0, false, nil
	}
	if v.Type() != TypeUint16 {
		return 0, false, formatErr(f.Source().Name(), CodeBadSplit, key, "type %s, want u16", v.describe())
	}
	n, _ := v.Uint()
	return uint16(n), true, nil
}

// splitKeys is a file's split.no and split.count, and whether each is set.
type splitKeys struct {
	no, count       uint16
	hasNo, hasCount bool
}

// splitOf reads a file's split keys.
func splitOf(f *File) (s splitKeys, err error) {
	if s.count, s.hasCount, err = splitU16(f, KeySplitCount); err != nil {
		return s, err
	}
	s.no, s.hasNo, err = splitU16(f, KeySplitNo)
	return s, err
}

// index gathers the shards' tensors, refusing a name held by two shards.
func (m *Model) index() error {
	m.byName = map[string]*tensor.Tensor{}
	for _, f := range m.files {
		for _, t := range f.Tensors() {
			if prev, dup := m.byName[t.Name]; dup {
				return formatErr(f.Source().Name(), CodeDuplicateTensor, t.Name, "also in %s", prev.File.Name())
			}
			m.byName[t.Name] = t
			m.tensors = append(m.tensors, t)
		}
	}
	slices.SortFunc(m.tensors, func(a, b *tensor.Tensor) int { return strings.Compare(a.Name, b.Name) })
	return nil
}

// Files returns the shards in order; the first holds the metadata.
func (m *Model) Files() []*File { return m.files }

// Metadata returns the first shard's metadata, where gguf-py writes all of
// it (the other shards carry only the split keys).
func (m *Model) Metadata() []KV { return m.files[0].Metadata() }

// Lookup returns the value of a metadata key of the first shard.
func (m *Model) Lookup(key string) (Value, bool) { return m.files[0].Lookup(key) }

// Architecture returns general.architecture, or "".
func (m *Model) Architecture() string { return m.files[0].Architecture() }

// Tensors returns the tensors of all shards, sorted by name.
func (m *Model) Tensors() []*tensor.Tensor { return m.tensors }

// Tensor returns the named tensor, or nil.
func (m *Model) Tensor(name string) *tensor.Tensor { return m.byName[name] }

// Warnings returns the warnings of every shard, then of the join.
func (m *Model) Warnings() []string { return m.warnings }

// ParameterCount returns the number of elements over all tensors.
func (m *Model) ParameterCount() uint64 {
	return tensor.Elements(m.tensors)
}

// Close closes the files the Model opened.
func (m *Model) Close() error {
	var errs []error
	for _, f := range m.opened {
		errs = append(errs, f.Close())
	}
	m.opened = nil
	return errors.Join(errs...)
}
