package dcp

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsmount/fsmount/internal/par"
	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// MetadataName is the file every DCP checkpoint has beside its .distcp
// files.
const MetadataName = ".metadata"

// Ext is the extension of the files holding the items.
const Ext = ".distcp"

// Bounds.
const (
	// maxMetadata bounds .metadata, read whole: a 70B model's, thousands
	// of tensors with a few chunks each, is a few MB.
	maxMetadata = 1 << 30
	// maxPairs bounds the chunk pairs compared for overlap over a
	// checkpoint (chunks are sorted first, so real layouts compare each
	// chunk with few others).
	maxPairs = 1 << 26
	// maxCells bounds the grid cells searched for a gap's range, on the
	// error path only.
	maxCells = 1 << 20
	// itemReaders bounds the items read at once (each a few small reads,
	// round trips for a remote file).
	itemReaders = 16
)

// Checkpoint is a validated DCP checkpoint.
type Checkpoint struct {
	// Metadata is the .metadata file; Files are the .distcp files the
	// metadata names, sorted by name. All are open until Close.
	Metadata source.File
	Files    []source.File
	// Tensors are the state dict's tensors, sorted by key, each
	// reassembled from its chunks.
	Tensors []*Tensor
	// Objects are the state dict's other values (torch.save'd objects:
	// ints, strings, lists), sorted by key.
	Objects []*Object
	// Incomplete are the tensors whose chunks leave a gap, with
	// [Options.KeepIncomplete] (each a [*FormatError] of
	// [CodeMissingChunk]); they are not in Tensors.
	Incomplete []*FormatError
	// Version is the metadata's version ("" before torch wrote one).
	Version string
}

// Tensor is one tensor of the state dict.
type Tensor struct {
	// Key is its flattened key ("model.layers.0.mlp.up_proj.weight",
	// "optim.state.model.norm.weight.exp_avg").
	Key string
	// Path is the key's path in the state dict that was saved
	// (planner_data: ["optim", "state", "model.norm.weight", "exp_avg"]),
	// or nil.
	Path []string
	// View is the whole tensor, named Key: one chunk's bytes in its file
	// when one chunk holds it, else a file that reads each chunk's rows
	// in place ([Pieces] says where each run lies).
	View   *tensor.Tensor
	Chunks []Chunk
}

// Chunk is one box of a tensor and where its bytes are.
type Chunk struct {
	Offsets, Sizes []uint64
	File           source.File
	Item, ItemLen  int64 // the item (a torch.save archive) in File
	Data           int64 // File's offset of the chunk's bytes, row-major
}

// Object is a value of the state dict stored as a torch.save'd object.
type Object struct {
	Key    string
	Path   []string
	File   source.File
	Offset int64
	Length int64
}

// Options change what Open accepts.
type Options struct {
	// KeepIncomplete keeps a tensor whose chunks leave a gap out of
	// Tensors and in Incomplete, rather than refusing the checkpoint.
	KeepIncomplete bool
}

// IsCheckpoint reports whether names (a directory's files) hold a DCP
// checkpoint: a .metadata file.
func IsCheckpoint(names []string) bool {
	return slices.Contains(names, MetadataName)
}

// Open reads the checkpoint at the root of fsys: .metadata through the
// restricted reader, then every item it names, checked against its
// chunk. The files are open until Close.
func Open(fsys source.FS, opt Options) (*Checkpoint, error) {
	mf, raw, err := source.ReadAll(fsys, MetadataName, maxMetadata)
	if err != nil {
		return nil, err
	}
	c := &Checkpoint{Metadata: mf}
	if err := c.open(fsys, mf.Name(), raw, opt); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// Close closes the files.
func (c *Checkpoint) Close() error {
	return source.CloseAll(c.Metadata, c.Files...)
}

// item is one item to read: a tensor's chunk or an object.
type item struct {
	key   string
	t     *Tensor // nil for an object
	chunk int
	si    storageInfo
	file  source.File
	es    uint64
	dtype tensor.DType
}

func (c *Checkpoint) open(fsys source.FS, mdName string, raw []byte, opt Options) error {
	md, err := parseMetadata(mdName, raw)
	if err != nil {
		return err
	}
	c.Version = md.version
	// The metadata alone: each tensor's chunks tile it, each item has a
	// storage entry with a bare file name. Nothing is opened before.
	var items []item
	pairs := 0
	for i := range md.entries {
		e := &md.entries[i]
		if e.isBytes {
			si, ok := md.storage[storageKey(e.key, nil)]
			if !ok {
				return formatErr(mdName, CodeMissingStorage, e.key, "%s: the object has no entry in storage_data", pytorch.Printable(e.key))
			}
			if err := checkStorage(mdName, e.key, si); err != nil {
				return err
			}
			o := &Object{Key: e.key, Path: md.paths[e.key], Offset: si.offset, Length: si.length}
			c.Objects = append(c.Objects, o)
			items = append(items, item{key: e.key, si: si, chunk: len(c.Objects) - 1})
			continue
		}
		if err := checkTiling(mdName, e, &pairs); err != nil {
			var fe *FormatError
			if opt.KeepIncomplete && errors.As(err, &fe) && fe.Code == CodeMissingChunk {
				c.Incomplete = append(c.Incomplete, fe)
				continue
			}
			return err
		}
		t := &Tensor{Key: e.key, Path: md.paths[e.key], Chunks: make([]Chunk, len(e.chunks))}
		for j, ch := range e.chunks {
			si, ok := md.storage[storageKey(e.key, ch.offsets)]
			if !ok {
				return formatErr(mdName, CodeMissingStorage, e.key, "%s: chunk %s has no entry in storage_data", pytorch.Printable(e.key), box(ch.offsets, ch.sizes))
			}
			if err := checkStorage(mdName, e.key, si); err != nil {
				return err
			}
			t.Chunks[j] = Chunk{Offsets: ch.offsets, Sizes: ch.sizes, Item: si.offset, ItemLen: si.length}
			items = append(items, item{key: e.key, t: t, chunk: j, si: si, es: uint64(e.dtype.BlockBytes()), dtype: e.dtype})
		}
		t.View = &tensor.Tensor{Name: e.key, DType: e.dtype, Shape: e.size}
		c.Tensors = append(c.Tensors, t)
	}
	// The files, each opened once.
	var names []string
	for _, it := range items {
		names = append(names, it.si.path)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	files := make([]source.File, len(names))
	errs := par.Each(len(names), itemReaders, func(i int) error {
		f, err := fsys.Open(names[i])
		if errors.Is(err, fs.ErrNotExist) {
			return formatErr(mdName, CodeMissingFile, "", "the metadata names %s, which is not in %s", pytorch.Printable(names[i]), fsys)
		}
		files[i] = f
		return err
	})
	for _, f := range files {
		if f != nil {
			c.Files = append(c.Files, f)
		}
	}
	if err := cmp.Or(errs...); err != nil {
		return err
	}
	// Each item inside its file, no two sharing bytes.
	for i := range items {
		it := &items[i]
		k, _ := slices.BinarySearch(names, it.si.path)
		it.file = files[k]
		if size := it.file.Size(); it.si.length > size || it.si.offset > size-it.si.length {
			return formatErr(it.file.Name(), CodeOutOfFile, it.key, "%s: its item claims %d bytes at %d, past the file's end at %d", pytorch.Printable(it.key), it.si.length, it.si.offset, size)
		}
	}
	if err := checkShared(items); err != nil {
		return err
	}
	// The items: each chunk's archive read and checked against its box.
	errs = par.Each(len(items), itemReaders, func(i int) error { return c.readItem(&items[i]) })
	if err := cmp.Or(errs...); err != nil {
		return err
	}
	for _, t := range c.Tensors {
		t.assemble()
	}
	slices.SortFunc(c.Tensors, func(a, b *Tensor) int { return strings.Compare(a.Key, b.Key) })
	slices.SortFunc(c.Objects, func(a, b *Object) int { return strings.Compare(a.Key, b.Key) })
	return nil
}

// checkStorage checks an item's entry: a bare file name, a range that
// can be one, no transform.
func checkStorage(mdName, key string, si storageInfo) error {
	p := si.path
	if p == "" || p == "." || p == ".." || strings.ContainsAny(p, "/\\\x00") || strings.HasPrefix(p, "~") {
		return formatErr(mdName, CodeBadPath, key, "%s: its item is in %s, which is not a file name in the checkpoint's directory; refused before opening anything", pytorch.Printable(key), strconv.Quote(p))
	}
	if si.offset < 0 || si.length < 0 {
		return formatErr(mdName, CodeInvalidMetadata, key, "%s: its item has offset %d and length %d", pytorch.Printable(key), si.offset, si.length)
	}
	if len(si.transforms) > 0 {
		return formatErr(mdName, CodeUnsupported, key, "%s: its item is transformed (%s: compressed or encoded by a DCP extension); not read", pytorch.Printable(key), strings.Join(si.transforms, ", "))
	}
	return nil
}

// checkShared refuses two items that share bytes of a file.
func checkShared(items []item) error {
	order := make([]int, len(items))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		return cmp.Or(strings.Compare(items[a].si.path, items[b].si.path), cmp.Compare(items[a].si.offset, items[b].si.offset))
	})
	for k := 1; k < len(order); k++ {
		a, b := &items[order[k-1]], &items[order[k]]
		if a.si.path == b.si.path && a.si.offset+a.si.length > b.si.offset && b.si.length > 0 && a.si.length > 0 {
			return formatErr(a.file.Name(), CodeSharedItem, b.key, "the items of %s and %s share bytes %d to %d", pytorch.Printable(a.key), pytorch.Printable(b.key), b.si.offset, min(a.si.offset+a.si.length, b.si.offset+b.si.length))
		}
	}
	return nil
}

// readItem reads one item: a chunk's torch.save archive (checked to
// hold one contiguous tensor of the chunk's shape and the tensor's
// dtype), or an object's (only placed).
func (c *Checkpoint) readItem(it *item) error {
	if it.t == nil {
		o := c.Objects[it.chunk]
		o.File = it.file
		return nil
	}
	ch := &it.t.Chunks[it.chunk]
	ch.File = it.file
	name := it.file.Name()
	where := func() string {
		return fmt.Sprintf("%s: chunk %s (item of %d bytes at %d)", pytorch.Printable(it.key), box(ch.Offsets, ch.Sizes), it.si.length, it.si.offset)
	}
	sec := &section{f: it.file, off: it.si.offset, n: it.si.length}
	pf, err := pytorch.NewFile(sec)
	if err != nil {
		var fe *pytorch.FormatError
		if errors.As(err, &fe) {
			return formatErr(name, CodeInvalidItem, it.key, "%s: not the torch.save archive of a tensor: %s", where(), fe.Detail)
		}
		return fmt.Errorf("%s: %s: %w", name, where(), err)
	}
	ts := pf.Tensors()
	if len(ts) != 1 {
		return formatErr(name, CodeInvalidItem, it.key, "%s: the archive holds %d tensors, not one", where(), len(ts))
	}
	t := ts[0]
	if t.DType != it.dtype {
		return formatErr(name, CodePayload, it.key, "%s: the stored tensor is %s, the metadata says %s; the bytes are not reinterpreted", where(), t.DType, it.dtype)
	}
	if !slices.Equal(t.Shape, ch.Sizes) {
		return formatErr(name, CodePayload, it.key, "%s: the stored tensor is %s, the chunk %s", where(), tensor.FormatShape(t.Shape), tensor.FormatShape(ch.Sizes))
	}
	if t.Strides != nil || t.File != source.File(sec) {
		return formatErr(name, CodeInvalidItem, it.key, "%s: the stored tensor is not contiguous in its archive", where())
	}
	n, _ := numel(ch.Sizes)
	if uint64(t.Length) != n*it.es || t.Offset < 0 || t.Offset > it.si.length-t.Length {
		return formatErr(name, CodeInvalidItem, it.key, "%s: the stored tensor's %d bytes at %d do not fit the chunk", where(), t.Length, t.Offset)
	}
	ch.Data = it.si.offset + t.Offset
	return nil
}

// box writes a chunk as Python slices: [0:126, 0:64].
func box(offsets, sizes []uint64) string {
	var b strings.Builder
	b.WriteByte('[')
	for i := range offsets {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatUint(offsets[i], 10))
		b.WriteByte(':')
		if i < len(sizes) {
			b.WriteString(strconv.FormatUint(offsets[i]+sizes[i], 10))
		}
	}
	b.WriteByte(']')
	return b.String()
}

// section is the bytes [off, off+n) of a file, as a file of its own: one
// item, read by package pytorch as a torch.save archive.
type section struct {
	f      source.File
	off, n int64
}

func (s *section) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset", s.f.Name())
	}
	if off >= s.n {
		return 0, io.EOF
	}
	short := false
	if int64(len(p)) > s.n-off {
		p, short = p[:s.n-off], true
	}
	k, err := s.f.ReadAt(p, s.off+off)
	if err == nil && short {
		err = io.EOF
	}
	return k, err
}

func (s *section) Name() string       { return s.f.Name() }
func (s *section) Size() int64        { return s.n }
func (s *section) ModTime() time.Time { return s.f.ModTime() }
func (s *section) Mode() fs.FileMode  { return s.f.Mode() }
func (s *section) Close() error       { return nil }
