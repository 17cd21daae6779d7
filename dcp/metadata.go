package dcp

import (
	"errors"
	"math/bits"
	"strconv"
	"strings"

	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/tensor"
)

// The classes and globals a .metadata pickle is made of (torch 2.6's
// torch/distributed/checkpoint/metadata.py and filesystem.py, and newer
// torch's additions): nothing else is allowed.
const (
	mdModule = "torch.distributed.checkpoint.metadata."
	fsModule = "torch.distributed.checkpoint.filesystem."

	clsMetadata      = mdModule + "Metadata"
	clsTensorStorage = mdModule + "TensorStorageMetadata"
	clsChunk         = mdModule + "ChunkStorageMetadata"
	clsBytesStorage  = mdModule + "BytesStorageMetadata"
	clsIndex         = mdModule + "MetadataIndex"
	clsProperties    = mdModule + "TensorProperties"
	clsStorageMeta   = mdModule + "StorageMeta"
	clsMemFormat     = mdModule + "_MEM_FORMAT_ENCODING"
	clsStorageInfo   = fsModule + "_StorageInfo"
	clsSize          = "torch.Size"
	clsLayout        = "torch.serialization._get_layout"
)

// unreadDTypes are dtypes DCP may name that it does not read (those
// without an element type here, and complex ones): allowed as globals, so
// that the refusal names the tensor. The others are pytorch.DTypeOf's.
var unreadDTypes = map[string]bool{
	"complex64": true, "complex128": true, "cfloat": true, "cdouble": true, "complex32": true,
	"quint8": true, "qint8": true, "qint32": true, "quint4x2": true, "quint2x4": true,
}

// allowGlobal is the list of globals a .metadata pickle may name.
func allowGlobal(module, name string) bool {
	switch module + "." + name {
	case clsMetadata, clsTensorStorage, clsChunk, clsBytesStorage, clsIndex, clsProperties,
		clsStorageMeta, clsMemFormat, clsStorageInfo, clsSize, clsLayout:
		return true
	}
	switch module {
	case "torch":
		_, ok := pytorch.DTypeOf(name)
		return ok || unreadDTypes[name]
	case "pathlib", "pathlib._local":
		switch name {
		case "PosixPath", "WindowsPath", "PurePosixPath", "PureWindowsPath", "Path":
			return true
		}
	}
	return false
}

// metadata is what .metadata says, checked for its types: every entry
// of state_dict_metadata in the stream's order, where each item's bytes
// are, and each key's path in the original state dict.
type metadata struct {
	entries []entry
	storage map[string]storageInfo // by storageKey
	paths   map[string][]string    // planner_data: flat key → path
	version string
}

// entry is one state dict key: a tensor (its dtype, size and chunks) or
// a bytes item (a torch.save'd object).
type entry struct {
	key     string
	isBytes bool
	dtype   tensor.DType
	dtypeOf string // torch's name of the dtype
	size    []uint64
	chunks  []chunkMeta
}

type chunkMeta struct{ offsets, sizes []uint64 }

type storageInfo struct {
	path           string
	offset, length int64
	transforms     []string
}

// storageKey is the key of storage_data's MetadataIndex(fqn, offset):
// the key and the chunk's offsets (none for a bytes item).
func storageKey(fqn string, offsets []uint64) string {
	var b strings.Builder
	b.WriteString(fqn)
	b.WriteByte(0)
	for i, o := range offsets {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(o, 10))
	}
	return b.String()
}

// parseMetadata reads a .metadata pickle (named name in errors).
func parseMetadata(name string, raw []byte) (*metadata, error) {
	root, err := pytorch.Unpickle(name, raw, allowGlobal)
	if err != nil {
		return nil, pickleError(name, err)
	}
	p := &mdParser{name: name}
	top, ok := root.(*pytorch.Object)
	if !ok || top.Class != clsMetadata {
		return nil, formatErr(name, CodeNotDCP, "", "the pickle holds %s, not a %s", pytorch.Describe(root), clsMetadata)
	}
	f, err := p.fields(top)
	if err != nil {
		return nil, err
	}
	md := &metadata{storage: map[string]storageInfo{}, paths: map[string][]string{}}
	sdm, ok := f["state_dict_metadata"].(*pytorch.Dict)
	if !ok {
		return nil, p.bad("state_dict_metadata is %s, not a dict", pytorch.Describe(f["state_dict_metadata"]))
	}
	seen := make(map[string]bool, len(sdm.Keys))
	md.entries = make([]entry, 0, len(sdm.Keys))
	for i, k := range sdm.Keys {
		key, ok := k.(string)
		if !ok {
			return nil, p.bad("a state_dict_metadata key is %s, not a string", pytorch.Describe(k))
		}
		if seen[key] {
			return nil, p.badKey(key, "state_dict_metadata names %s twice", pytorch.Printable(key))
		}
		seen[key] = true
		e, err := p.entry(key, sdm.Values[i])
		if err != nil {
			return nil, err
		}
		md.entries = append(md.entries, e)
	}
	sd, ok := f["storage_data"].(*pytorch.Dict)
	if !ok {
		return nil, p.bad("storage_data is %s, not a dict", pytorch.Describe(f["storage_data"]))
	}
	for i, k := range sd.Keys {
		sk, err := p.index(k)
		if err != nil {
			return nil, err
		}
		si, err := p.storageInfo(sd.Values[i])
		if err != nil {
			return nil, err
		}
		if _, dup := md.storage[sk]; dup {
			return nil, p.bad("storage_data names the item %s twice", pytorch.Printable(strings.ReplaceAll(sk, "\x00", " at ")))
		}
		md.storage[sk] = si
	}
	if pd, ok := f["planner_data"].(*pytorch.Dict); ok {
		for i, k := range pd.Keys {
			key, ok := k.(string)
			if !ok {
				continue
			}
			var path []string
			if items, ok := tupleOrList(pd.Values[i]); ok {
				for _, it := range items {
					switch v := it.(type) {
					case string:
						path = append(path, v)
					case int64:
						path = append(path, strconv.FormatInt(v, 10))
					default:
						path = nil
					}
					if path == nil {
						break
					}
				}
			}
			if path != nil {
				md.paths[key] = path
			}
		}
	}
	if v, ok := f["version"].(string); ok {
		md.version = v
	}
	return md, nil
}

// pickleError turns the restricted reader's refusal into this package's.
func pickleError(name string, err error) error {
	var fe *pytorch.FormatError
	if !errors.As(err, &fe) {
		return err
	}
	code := CodeInvalidPickle
	switch fe.Code {
	case pytorch.CodeForbidden:
		code = CodeForbidden
	case pytorch.CodeLimit:
		code = CodeLimit
	}
	return formatErr(name, code, "", "%s", fe.Detail)
}

type mdParser struct{ name string }

func (p *mdParser) bad(format string, args ...any) error {
	return formatErr(p.name, CodeInvalidMetadata, "", format, args...)
}

func (p *mdParser) badKey(key, format string, args ...any) error {
	return formatErr(p.name, CodeInvalidMetadata, key, format, args...)
}

// fields returns the attributes BUILD gave a dataclass: its __dict__, or
// the (dict, slots) pair of a class with __slots__.
func (p *mdParser) fields(o *pytorch.Object) (map[string]any, error) {
	out := map[string]any{}
	add := func(v any) bool {
		d, ok := v.(*pytorch.Dict)
		if !ok {
			return v == nil
		}
		for i, k := range d.Keys {
			s, ok := k.(string)
			if !ok {
				return false
			}
			out[s] = d.Values[i]
		}
		return true
	}
	switch st := o.State.(type) {
	case pytorch.Tuple:
		if len(st) == 2 && add(st[0]) && add(st[1]) {
			return out, nil
		}
	default:
		if add(st) {
			return out, nil
		}
	}
	return nil, p.bad("a %s whose state is %s", short(o.Class), pytorch.Describe(o.State))
}

func short(class string) string { return class[strings.LastIndexByte(class, '.')+1:] }

func (p *mdParser) entry(key string, v any) (entry, error) {
	e := entry{key: key}
	o, ok := v.(*pytorch.Object)
	if !ok {
		return e, p.badKey(key, "%s: its metadata is %s", pytorch.Printable(key), pytorch.Describe(v))
	}
	switch o.Class {
	case clsBytesStorage:
		e.isBytes = true
		return e, nil
	case clsTensorStorage:
	default:
		return e, p.badKey(key, "%s: its metadata is a %s, not a TensorStorageMetadata or BytesStorageMetadata", pytorch.Printable(key), short(o.Class))
	}
	f, err := p.fields(o)
	if err != nil {
		return e, err
	}
	if e.dtype, e.dtypeOf, err = p.properties(key, f["properties"]); err != nil {
		return e, err
	}
	var ok2 bool
	if e.size, ok2 = sizeOf(f["size"]); !ok2 {
		return e, p.badKey(key, "%s: its size is %s, not a torch.Size", pytorch.Printable(key), pytorch.Describe(f["size"]))
	}
	chunks, ok := f["chunks"].(pytorch.List)
	if !ok {
		return e, p.badKey(key, "%s: its chunks are %s, not a list", pytorch.Printable(key), pytorch.Describe(f["chunks"]))
	}
	e.chunks = make([]chunkMeta, 0, len(chunks))
	for _, c := range chunks {
		co, ok := c.(*pytorch.Object)
		if !ok || co.Class != clsChunk {
			return e, p.badKey(key, "%s: a chunk is %s, not a ChunkStorageMetadata", pytorch.Printable(key), pytorch.Describe(c))
		}
		cf, err := p.fields(co)
		if err != nil {
			return e, err
		}
		off, ok1 := sizeOf(cf["offsets"])
		sz, ok2 := sizeOf(cf["sizes"])
		if !ok1 || !ok2 {
			return e, p.badKey(key, "%s: a chunk's offsets %s and sizes %s are not torch.Sizes", pytorch.Printable(key), pytorch.Describe(cf["offsets"]), pytorch.Describe(cf["sizes"]))
		}
		e.chunks = append(e.chunks, chunkMeta{off, sz})
	}
	return e, nil
}

// properties reads TensorProperties: pickled by its __getstate__ as the
// tuple (dtype, layout, requires_grad, memory_format, pin_memory), or,
// by older torch, as its __dict__.
func (p *mdParser) properties(key string, v any) (tensor.DType, string, error) {
	o, ok := v.(*pytorch.Object)
	if !ok || o.Class != clsProperties {
		return 0, "", p.badKey(key, "%s: its properties are %s, not a TensorProperties", pytorch.Printable(key), pytorch.Describe(v))
	}
	var dt any
	if t, ok := o.State.(pytorch.Tuple); ok && len(t) == 5 {
		dt = t[0]
	} else {
		f, err := p.fields(o)
		if err != nil {
			return 0, "", err
		}
		dt = f["dtype"]
	}
	g, ok := dt.(pytorch.Global)
	name, isTorch := strings.CutPrefix(string(g), "torch.")
	if !ok || !isTorch {
		return 0, "", p.badKey(key, "%s: its dtype is %s, not a torch dtype", pytorch.Printable(key), pytorch.Describe(dt))
	}
	d, ok := pytorch.DTypeOf(name)
	if !ok || unreadDTypes[name] {
		return 0, "", formatErr(p.name, CodeUnsupported, key, "%s: its dtype torch.%s is not read", pytorch.Printable(key), name)
	}
	return d, name, nil
}

// index reads a storage_data key, MetadataIndex(fqn, offset, index).
func (p *mdParser) index(v any) (string, error) {
	o, ok := v.(*pytorch.Object)
	if !ok || o.Class != clsIndex {
		return "", p.bad("a storage_data key is %s, not a MetadataIndex", pytorch.Describe(v))
	}
	f, err := p.fields(o)
	if err != nil {
		return "", err
	}
	fqn, ok := f["fqn"].(string)
	if !ok {
		return "", p.bad("a MetadataIndex's fqn is %s", pytorch.Describe(f["fqn"]))
	}
	if f["offset"] == nil {
		return storageKey(fqn, nil), nil
	}
	off, ok := sizeOf(f["offset"])
	if !ok {
		return "", p.badKey(fqn, "%s: a MetadataIndex's offset is %s", pytorch.Printable(fqn), pytorch.Describe(f["offset"]))
	}
	return storageKey(fqn, off), nil
}

// storageInfo reads _StorageInfo(relative_path, offset, length[,
// transform_descriptors]).
func (p *mdParser) storageInfo(v any) (storageInfo, error) {
	var si storageInfo
	o, ok := v.(*pytorch.Object)
	if !ok || o.Class != clsStorageInfo {
		return si, p.bad("a storage_data value is %s, not a _StorageInfo", pytorch.Describe(v))
	}
	f, err := p.fields(o)
	if err != nil {
		return si, err
	}
	path, ok1 := f["relative_path"].(string)
	off, ok2 := f["offset"].(int64)
	n, ok3 := f["length"].(int64)
	if !ok1 || !ok2 || !ok3 {
		return si, p.bad("a _StorageInfo with relative_path %s, offset %s, length %s", pytorch.Describe(f["relative_path"]), pytorch.Describe(f["offset"]), pytorch.Describe(f["length"]))
	}
	si.path, si.offset, si.length = path, off, n
	if td, ok := tupleOrList(f["transform_descriptors"]); ok {
		for _, t := range td {
			s, ok := t.(string)
			if !ok {
				return si, p.bad("%s: a transform descriptor is %s", pytorch.Printable(path), pytorch.Describe(t))
			}
			si.transforms = append(si.transforms, s)
		}
	}
	return si, nil
}

func tupleOrList(v any) ([]any, bool) {
	switch t := v.(type) {
	case pytorch.Tuple:
		return t, true
	case pytorch.List:
		return t, true
	}
	return nil, false
}

// sizeOf reads a torch.Size (REDUCE(torch.Size, (tuple,))), or a plain
// tuple or list, of non-negative integers.
func sizeOf(v any) ([]uint64, bool) {
	if o, ok := v.(*pytorch.Object); ok {
		if o.Class != clsSize || o.New || len(o.Args) != 1 {
			return nil, false
		}
		v = o.Args[0]
	}
	items, ok := tupleOrList(v)
	if !ok {
		return nil, false
	}
	out := make([]uint64, len(items))
	for i, it := range items {
		n, ok := it.(int64)
		if !ok || n < 0 {
			return nil, false
		}
		out[i] = uint64(n)
	}
	return out, true
}

// numel is the product of a size, and false if it overflows 63 bits.
func numel(size []uint64) (uint64, bool) {
	n := uint64(1)
	for _, d := range size {
		hi, lo := bits.Mul64(n, d)
		if hi != 0 || lo > 1<<62 {
			return 0, false
		}
		n = lo
	}
	return n, true
}
