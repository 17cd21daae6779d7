package gguf

import (
	"cmp"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// Limits on what a header may declare, beyond fitting in the file.
const (
	// DefaultAlignment is the data alignment of a file without
	// general.alignment.
	DefaultAlignment = 32
	// MaxDims is the most dimensions a tensor may have (GGML_MAX_DIMS).
	MaxDims = 4
	// MaxNameLen is the longest tensor name, in bytes: llama.cpp requires
	// fewer than GGML_MAX_NAME (64) bytes.
	MaxNameLen = 63
	// maxArray is the most elements of one array (GGUF_MAX_ARRAY_ELEMENTS).
	maxArray = 1 << 30
	// maxArrayDepth is how deep arrays may nest: an array of arrays of
	// arrays of arrays, and no deeper.
	maxArrayDepth = 4
	// maxKeyLen is the longest key the GGUF spec allows; longer keys are
	// warned about, not refused (llama.cpp accepts them).
	maxKeyLen = 65535

	// The fewest bytes of one metadata entry (a 1-byte key, its type, a
	// 1-byte value) and of one tensor info (a 1-byte name, n_dims, one
	// dimension, type and offset): counts are checked against them.
	minKVBytes     = 8 + 1 + 4 + 1
	minTensorBytes = 8 + 1 + 4 + 8 + 4 + 8
)

// File is a parsed, validated GGUF file.
type File struct {
	src     source.File
	owned   bool
	version uint32

	kvs   []KV
	keys  []uint32 // indexes of kvs, sorted by key: 4 bytes a key
	align uint64

	dataOffset int64
	infos      []TensorInfo     // in file order
	tensors    []*tensor.Tensor // by name
	byName     map[string]*tensor.Tensor
	warnings   []string
	warnedOnce map[string]bool
}

// TensorInfo is a tensor as the file declares it, in ggml's terms.
type TensorInfo struct {
	Name string
	// Dims is ggml's ne[]: innermost (contiguous) dimension first, the
	// reverse of [tensor.Tensor.Shape].
	Dims []uint64
	Type GGMLType
	// Offset is relative to the start of the data section.
	Offset uint64
	// Tensor is the neutral view of the same tensor.
	Tensor *tensor.Tensor
}

// Open opens and parses a local GGUF file; Close closes it.
func Open(path string) (*File, error) {
	return source.OpenLocalWith(path, owning)
}

// owning parses src as a File that closes src when it is closed (for
// source.OpenWith, which closes src if it does not parse).
func owning(src source.File) (*File, error) {
	f, err := NewFile(src)
	if err != nil {
		return nil, err
	}
	f.owned = true
	return f, nil
}

// Close closes the source file if [Open] opened it; for a File made by
// [NewFile] the caller keeps the source and Close does nothing.
func (f *File) Close() error {
	if f.owned {
		f.owned = false
		return f.src.Close()
	}
	return nil
}

// NewFile parses and validates the GGUF header of src, reading it with
// ReadAt in bounded chunks. Every tensor's File is src. An invalid file is
// a [*FormatError]; an error reading src is returned as it is, wrapped.
func NewFile(src source.File) (*File, error) {
	p := &parser{
		r: newReader(src, src.Name(), src.Size()),
		f: &File{src: src, align: DefaultAlignment},
	}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.f, nil
}

// Source returns the file the tensors are read from.
func (f *File) Source() source.File { return f.src }

// Version returns the GGUF version, 2 or 3.
func (f *File) Version() uint32 { return f.version }

// Metadata returns the metadata entries in file order (shared: do not
// modify).
func (f *File) Metadata() []KV { return f.kvs }

// Lookup returns the value of a metadata key.
func (f *File) Lookup(key string) (Value, bool) {
	i, ok := slices.BinarySearchFunc(f.keys, key, func(k uint32, key string) int { return strings.Compare(f.kvs[k].Key, key) })
	if !ok {
		return Value{}, false
	}
	return f.kvs[f.keys[i]].Value, true
}

// Alignment returns the data alignment: general.alignment, or 32.
func (f *File) Alignment() uint64 { return f.align }

// DataOffset returns the file offset of the data section, which tensor
// offsets are relative to.
func (f *File) DataOffset() int64 { return f.dataOffset }

// Architecture returns general.architecture ("llama"), or "" when the key
// is absent or not a string.
func (f *File) Architecture() string {
	v, _ := f.Lookup("general.architecture")
	s, _ := v.Text()
	return s
}

// Tensors returns the tensors sorted by name (shared: do not modify).
// Each Shape is ggml's ne[] reversed, outermost first as in safetensors
// and numpy: a GGUF tensor of ne [4096, 32000] (a token embedding) has
// Shape [32000, 4096]. Offset is absolute in the file.
func (f *File) Tensors() []*tensor.Tensor { return f.tensors }

// Tensor returns the named tensor, or nil.
func (f *File) Tensor(name string) *tensor.Tensor { return f.byName[name] }

// TensorInfos returns the tensors as declared, in file order.
func (f *File) TensorInfos() []TensorInfo { return f.infos }

// Warnings returns what is legal but odd, or legal here but refused by
// llama.cpp, one sentence each.
func (f *File) Warnings() []string { return f.warnings }

// ParameterCount returns the number of elements over all tensors.
func (f *File) ParameterCount() uint64 {
	return tensor.Elements(f.tensors)
}

func (f *File) warn(format string, args ...any) {
	f.warnings = append(f.warnings, fmt.Sprintf(format, args...))
}

// warnOnce warns once per kind, so a 128k-token vocabulary with odd bytes
// gives one line, not 128k.
func (f *File) warnOnce(kind, format string, args ...any) {
	if f.warnedOnce[kind] {
		return
	}
	if f.warnedOnce == nil {
		f.warnedOnce = map[string]bool{}
	}
	f.warnedOnce[kind] = true
	f.warn(format, args...)
}

type parser struct {
	r   *reader
	f   *File
	ats []int64 // where each key starts, for the duplicate's error
}

func (p *parser) err(code Code, key, format string, args ...any) *FormatError {
	return formatErr(p.r.name, code, key, format, args...)
}

var legacyMagics = map[string]string{"lmgg": "GGML", "fmgg": "GGMF", "tjgg": "GGJT"}

func (p *parser) parse() error {
	r := p.r
	if r.size < 4 {
		return p.err(CodeBadMagic, "", "file is %d bytes, shorter than the magic", r.size)
	}
	magic, err := r.take(4, "magic")
	if err != nil {
		return err
	}
	if string(magic) != "GGUF" {
		if old, ok := legacyMagics[string(magic)]; ok {
			return p.err(CodeBadMagic, "", "magic %q: a legacy %s file, older than GGUF", magic, old)
		}
		return p.err(CodeBadMagic, "", "magic %q, want \"GGUF\"", magic)
	}
	v, err := r.u32("version")
	if err != nil {
		return err
	}
	switch {
	case v == 2 || v == 3:
	case v == 1:
		return p.err(CodeVersion1, "", "version 1 uses 32-bit counts; convert the file again with a current llama.cpp")
	case v&0xFFFF == 0 && v != 0:
		return p.err(CodeByteOrder, "", "version %#x reads as %d byte-swapped", v, bits.ReverseBytes32(v))
	default:
		return p.err(CodeBadVersion, "", "version %d, want 2 or 3", v)
	}
	p.f.version = v

	nTensors, err := r.u64("tensor count")
	if err != nil {
		return err
	}
	nKV, err := r.u64("metadata count")
	if err != nil {
		return err
	}
	left := uint64(r.remaining())
	if nKV > left/minKVBytes || nKV > math.MaxUint32 {
		return p.err(CodeBadCount, "", "%d metadata entries cannot fit in the %d bytes left", nKV, left)
	}
	if nTensors > (left-nKV*minKVBytes)/minTensorBytes {
		return p.err(CodeBadCount, "", "%d tensors and %d metadata entries cannot fit in the %d bytes left", nTensors, nKV, left)
	}

	p.f.kvs = make([]KV, 0, min(nKV, 256))
	for i := uint64(0); i < nKV; i++ {
		if err := p.kv(); err != nil {
			return err
		}
	}
	if err := p.index(); err != nil {
		return err
	}
	if err := p.alignment(); err != nil {
		return err
	}
	if err := p.tensorInfos(nTensors); err != nil {
		return err
	}
	if err := p.layout(); err != nil {
		return err
	}
	p.checks()
	return nil
}

func (p *parser) kv() error {
	r := p.r
	at := r.pos
	key, err := r.str("metadata key", "")
	if err != nil {
		return err
	}
	if key == "" {
		return p.err(CodeBadKey, "", "empty key at byte %#x", at)
	}
	if len(key) > maxKeyLen {
		p.f.warn("metadata key at byte %#x is %d bytes long, more than the %d the GGUF spec allows", at, len(key), maxKeyLen)
	} else if !validKey(key) {
		p.f.warnOnce("key", "metadata key %q is not lower_snake_case ASCII segments separated by dots, as the GGUF spec asks", key)
	}
	t, err := r.u32("value type")
	if err != nil {
		return err
	}
	val, err := p.value(ValueType(t), key, 0)
	if err != nil {
		return err
	}
	p.f.kvs = append(p.f.kvs, KV{Key: key, Value: val})
	p.ats = append(p.ats, at)
	return nil
}

// index sorts the keys for Lookup, refusing a key that appears twice
// (naming the first second entry in file order). A sorted index costs 4
// bytes a key where a map cost ten times that: a million keys are legal.
func (p *parser) index() error {
	f := p.f
	keys := make([]uint32, len(f.kvs))
	for i := range keys {
		keys[i] = uint32(i)
	}
	slices.SortFunc(keys, func(a, b uint32) int {
		if c := strings.Compare(f.kvs[a].Key, f.kvs[b].Key); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	dup := -1
	for k := 1; k < len(keys); k++ {
		if f.kvs[keys[k]].Key == f.kvs[keys[k-1]].Key && (dup < 0 || int(keys[k]) < dup) {
			dup = int(keys[k])
		}
	}
	if dup >= 0 {
		return p.err(CodeDuplicateKey, f.kvs[dup].Key, "second entry at byte %#x", p.ats[dup])
	}
	f.keys, p.ats = keys, nil
	return nil
}

func validKey(k string) bool {
	for _, seg := range strings.Split(k, ".") {
		if seg == "" {
			return false
		}
		for i := 0; i < len(seg); i++ {
			c := seg[i]
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
				return false
			}
		}
	}
	return true
}

// value reads a value of type t; depth is the number of arrays around it.
func (p *parser) value(t ValueType, key string, depth int) (Value, error) {
	r := p.r
	if t >= numValueTypes {
		return Value{}, r.errAt(CodeBadValueType, key, "value type %d", uint32(t))
	}
	switch t {
	case TypeString:
		s, err := r.str("string value", key)
		if err == nil && !utf8.ValidString(s) {
			p.f.warnOnce("utf8", "metadata %s holds a string that is not valid UTF-8", key)
		}
		return Value{typ: TypeString, str: s}, err
	case TypeArray:
		w := &walker{r: r, key: key, f: p.f}
		return w.array(depth + 1)
	}
	b, err := r.take(t.fixedSize(), t.String()+" value")
	if err != nil {
		return Value{}, err
	}
	if t == TypeBool && b[0] > 1 {
		p.f.warnOnce("bool", "metadata %s holds a bool byte %d; the GGUF spec allows only 0 and 1 (read as true)", key, b[0])
	}
	return Value{typ: t, bits: leBits(b)}, nil
}

func (p *parser) alignment() error {
	v, ok := p.f.Lookup("general.alignment")
	if !ok {
		return nil
	}
	if v.Type() != TypeUint32 {
		return p.err(CodeBadAlignment, "general.alignment", "type %s, want u32", v.describe())
	}
	a, _ := v.Uint()
	if a == 0 || a&(a-1) != 0 {
		return p.err(CodeBadAlignment, "general.alignment", "%d is not a non-zero power of two", a)
	}
	if a%8 != 0 {
		p.f.warn("general.alignment %d is not a multiple of 8, as the GGUF spec asks (llama.cpp accepts it)", a)
	}
	p.f.align = a
	return nil
}

func (p *parser) tensorInfos(n uint64) error {
	r := p.r
	f := p.f
	f.infos = make([]TensorInfo, 0, min(n, 1024))
	f.byName = make(map[string]*tensor.Tensor, min(n, 1024))
	for i := uint64(0); i < n; i++ {
		at := r.pos
		name, err := r.str("tensor name", "")
		if err != nil {
			return err
		}
		if name == "" || len(name) > MaxNameLen {
			return p.err(CodeBadTensorName, name, "tensor info at byte %#x: name of %d bytes, want 1 to %d", at, len(name), MaxNameLen)
		}
		if _, dup := f.byName[name]; dup {
			return p.err(CodeDuplicateTensor, name, "second tensor info at byte %#x", at)
		}
		nd, err := r.u32("n_dims")
		if err != nil {
			return err
		}
		if nd < 1 || nd > MaxDims {
			return p.err(CodeBadDims, name, "n_dims %d at byte %#x, want 1 to %d", nd, r.pos-4, MaxDims)
		}
		dims := make([]uint64, nd)
		elems := uint64(1)
		overflow := false
		for j := range dims {
			d, err := r.u64("dimension")
			if err != nil {
				return err
			}
			if d > math.MaxInt64 {
				return p.err(CodeBadDim, name, "ne[%d] = %d at byte %#x, above 2^63-1", j, d, r.pos-8)
			}
			dims[j] = d
			hi, lo := bits.Mul64(elems, d)
			overflow = overflow || hi != 0 || lo > math.MaxInt64
			elems = lo
		}
		tid, err := r.u32("tensor type")
		if err != nil {
			return err
		}
		gt := GGMLType(tid)
		dt, ok := gt.DType()
		if !ok {
			return p.err(CodeBadType, name, "%s at byte %#x", gt, r.pos-4)
		}
		off, err := r.u64("tensor offset")
		if err != nil {
			return err
		}
		for _, d := range dims {
			if d == 0 {
				overflow = false // a zero dimension makes the product 0
				elems = 0
			}
		}
		if overflow {
			return p.err(CodeSizeOverflow, name, "ne %v has more than 2^63-1 elements", dims)
		}
		if blk := dt.BlockElems(); dims[0]%blk != 0 {
			return p.err(CodeBlockMultiple, name, "ne[0] = %d is not a multiple of the %s block of %d", dims[0], dt, blk)
		}
		size, ok := dt.ByteSize(elems)
		if !ok || size > math.MaxInt64 {
			return p.err(CodeSizeOverflow, name, "%d elements of %s overflow 63 bits of bytes", elems, dt)
		}
		if elems == 0 {
			f.warn("tensor %s has a zero dimension (ne %v): no elements", name, dims)
		}
		shape := make([]uint64, nd)
		for j, d := range dims {
			shape[int(nd)-1-j] = d
		}
		t := &tensor.Tensor{Name: name, DType: dt, Shape: shape, File: f.src, Length: int64(size)}
		f.byName[name] = t
		f.infos = append(f.infos, TensorInfo{Name: name, Dims: dims, Type: gt, Offset: off, Tensor: t})
	}
	return nil
}

// layout places the data section and checks every tensor's bytes: aligned,
// inside the file, overlapping no other tensor.
func (p *parser) layout() error {
	f := p.f
	end := uint64(p.r.pos)
	if len(f.infos) > 0 {
		end = alignUp(end, f.align)
	}
	if end > uint64(p.r.size) {
		return p.err(CodeOutOfBounds, "", "data section would start at byte %#x, past the end of the %d-byte file", end, p.r.size)
	}
	f.dataOffset = int64(end)
	dataLen := uint64(p.r.size) - end
	for _, ti := range f.infos {
		if ti.Offset%f.align != 0 {
			return p.err(CodeMisaligned, ti.Name, "offset %d is not a multiple of the alignment %d", ti.Offset, f.align)
		}
		n := uint64(ti.Tensor.Length)
		if ti.Offset > dataLen || n > dataLen-ti.Offset {
			return p.err(CodeOutOfBounds, ti.Name, "bytes [%d, +%d) of the data section, which holds %d (file is %d bytes)", ti.Offset, n, dataLen, p.r.size)
		}
		ti.Tensor.Offset = f.dataOffset + int64(ti.Offset)
	}
	byOff := make([]*TensorInfo, 0, len(f.infos))
	for i := range f.infos {
		if f.infos[i].Tensor.Length > 0 {
			byOff = append(byOff, &f.infos[i])
		}
	}
	slices.SortFunc(byOff, func(a, b *TensorInfo) int {
		if a.Offset != b.Offset {
			if a.Offset < b.Offset {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Name, b.Name)
	})
	for i := 1; i < len(byOff); i++ {
		prev, cur := byOff[i-1], byOff[i]
		if prevEnd := prev.Offset + uint64(prev.Tensor.Length); cur.Offset < prevEnd {
			return p.err(CodeOverlap, cur.Name, "bytes [%d, +%d) overlap %s at [%d, +%d)", cur.Offset, cur.Tensor.Length, prev.Name, prev.Offset, prev.Tensor.Length)
		}
	}
	f.tensors = make([]*tensor.Tensor, len(f.infos))
	for i := range f.infos {
		f.tensors[i] = f.infos[i].Tensor
	}
	slices.SortFunc(f.tensors, func(a, b *tensor.Tensor) int { return strings.Compare(a.Name, b.Name) })
	return nil
}

func alignUp(x, a uint64) uint64 { return x + (a-x%a)%a }

// checks adds the warnings about a valid file: what llama.cpp would
// refuse, or the spec asks for, without making the file unreadable.
func (p *parser) checks() {
	f := p.f
	// llama.cpp wants tensor i exactly at the padded sum of the sizes
	// before it; the spec only asks for alignment.
	var want uint64
	for _, ti := range f.infos {
		if ti.Offset != want {
			f.warn("tensor %s is at data offset %d where llama.cpp expects %d (it requires tensors packed in file order)", ti.Name, ti.Offset, want)
			break
		}
		want += alignUp(uint64(ti.Tensor.Length), f.align)
	}
	if _, ok := f.Lookup("general.architecture"); !ok {
		f.warn("no general.architecture key")
	} else if f.Architecture() == "" {
		f.warn("general.architecture is not a non-empty string")
	}
	quantized := slices.ContainsFunc(f.infos, func(ti TensorInfo) bool { return ti.Tensor.DType.Quantized() })
	if _, ok := f.Lookup("general.quantization_version"); quantized && !ok {
		f.warn("quantized tensors but no general.quantization_version key, which the GGUF spec requires")
	}
}
