package safetensors

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// Virtual is a safetensors file that exists nowhere: its header is
// generated from tensors of another format (a PyTorch checkpoint), and
// its data section is read from their bytes, tensor by tensor, on each
// read. Its size is known when it is made; nothing is read until a read
// asks for it, and a read copies only the bytes it asks for.
type Virtual struct {
	name    string
	header  []byte // the 8-byte length and the padded JSON
	tensors []*tensor.Tensor
	starts  []int64 // file offset of each tensor's data
	size    int64
	base    source.File // time, mode and owner
}

// NewVirtual lays tensors out as a safetensors file called name, in the
// order given, each tensor's bytes right after the previous one's (rule
// S7: no gap, no overlap). A tensor stored twice under two names (a tied
// weight) is written twice, as safetensors has no sharing. base lends
// its time, mode and owner.
func NewVirtual(name string, tensors []*tensor.Tensor, metadata map[string]string, base source.File) (*Virtual, error) {
	v := &Virtual{name: name, tensors: tensors, base: base, starts: make([]int64, len(tensors))}
	var b strings.Builder
	b.WriteByte('{')
	if len(metadata) > 0 {
		keys := make([]string, 0, len(metadata))
		for k := range metadata {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteString(`"__metadata__":{`)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSONString(&b, k)
			b.WriteByte(':')
			writeJSONString(&b, metadata[k])
		}
		b.WriteByte('}')
	}
	var off int64
	for i, t := range tensors {
		d, ok := ParseDType(t.DType.String())
		if !ok {
			return nil, fmt.Errorf("%s: tensor %s is %s, which safetensors has no type for", name, t.Name, t.DType)
		}
		if i > 0 || len(metadata) > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, t.Name)
		b.WriteString(`:{"dtype":"`)
		b.WriteString(d.String())
		b.WriteString(`","shape":[`)
		for j, s := range t.Shape {
			if j > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatUint(s, 10))
		}
		b.WriteString(`],"data_offsets":[`)
		b.WriteString(strconv.FormatInt(off, 10))
		b.WriteByte(',')
		b.WriteString(strconv.FormatInt(off+t.Length, 10))
		b.WriteString("]}")
		v.starts[i] = off
		off += t.Length
	}
	b.WriteByte('}')
	for (b.Len())%8 != 0 {
		b.WriteByte(' ')
	}
	hdr := make([]byte, 8, 8+b.Len())
	putUint64(hdr, uint64(b.Len()))
	v.header = append(hdr, b.String()...)
	for i := range v.starts {
		v.starts[i] += int64(len(v.header))
	}
	v.size = int64(len(v.header)) + off
	return v, nil
}

func putUint64(b []byte, x uint64) {
	for i := range 8 {
		b[i] = byte(x >> (8 * i))
	}
}

func writeJSONString(b *strings.Builder, s string) {
	q, _ := json.Marshal(s)
	b.Write(q)
}

// Name is the file's name, as files/ lists it.
func (v *Virtual) Name() string { return v.name }

// Size is the header's length and every tensor's.
func (v *Virtual) Size() int64 { return v.size }

// ModTime is the base file's.
func (v *Virtual) ModTime() time.Time { return v.base.ModTime() }

// Mode is the base file's.
func (v *Virtual) Mode() fs.FileMode { return v.base.Mode() }

// Owner is the base file's, where it has one.
func (v *Virtual) Owner() (uid, gid uint32) {
	if o, ok := v.base.(source.Owned); ok {
		return o.Owner()
	}
	return 0, 0
}

// IsRemote reports whether the bytes come over the network.
func (v *Virtual) IsRemote() bool { return source.IsRemote(v.base) }

// Close does nothing: the tensors' files belong to the model.
func (v *Virtual) Close() error { return nil }

// HeaderLen is the length of the prefix and the JSON header.
func (v *Virtual) HeaderLen() int64 { return int64(len(v.header)) }

// ReadAt reads the header's bytes and the tensors' as the layout puts them.
func (v *Virtual) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("%s: negative offset", v.name)
	}
	n := 0
	for len(p) > 0 && off < v.size {
		var k int
		var err error
		if off < int64(len(v.header)) {
			k = copy(p, v.header[off:])
		} else {
			i, _ := slices.BinarySearch(v.starts, off+1)
			i-- // the tensor holding off
			t := v.tensors[i]
			rel := off - v.starts[i]
			want := min(int64(len(p)), t.Length-rel)
			if want <= 0 { // cannot be: the tensor holding off is not empty
				return n, io.ErrUnexpectedEOF
			}
			k, err = t.File.ReadAt(p[:want], t.Offset+rel)
			if k < int(want) {
				if err == nil || err == io.EOF {
					err = io.ErrUnexpectedEOF
				}
				return n + k, err
			}
		}
		n += k
		off += int64(k)
		p = p[k:]
	}
	if len(p) > 0 {
		return n, io.EOF
	}
	return n, nil
}

// Pieces returns where the bytes [off, off+n) come from: the header's
// bytes (file nil), or a range of a tensor's file. A server that can
// hand a range of a file to the kernel (splice, a mapping) uses it to
// serve a read without copying.
func (v *Virtual) Pieces(off, n int64, fn func(f source.File, at int64, b []byte, k int64) bool) {
	end := min(off+n, v.size)
	for off < end {
		if off < int64(len(v.header)) {
			k := min(end, int64(len(v.header))) - off
			if !fn(nil, 0, v.header[off:off+k], k) {
				return
			}
			off += k
			continue
		}
		i, _ := slices.BinarySearch(v.starts, off+1)
		i--
		t := v.tensors[i]
		rel := off - v.starts[i]
		k := min(end-off, t.Length-rel)
		if k <= 0 { // cannot be: the tensor holding off is not empty
			return
		}
		if p, ok := t.File.(pieced); ok {
			// A tensor in pieces of other files: its pieces.
			more := true
			p.Pieces(t.Offset+rel, k, func(f source.File, at int64, b []byte, k int64) bool {
				more = fn(f, at, b, k)
				return more
			})
			if !more {
				return
			}
		} else if !fn(t.File, t.Offset+rel, nil, k) {
			return
		}
		off += k
	}
}

// pieced is a file made of pieces of others (a Distributed Checkpoint's
// tensor split over ranks, dcp.Assembled).
type pieced interface {
	Pieces(off, n int64, fn func(f source.File, at int64, b []byte, k int64) bool)
}

// Bytes is a small file held in memory (a generated index).
type Bytes struct {
	name string
	data []byte
	base source.File
}

// NewBytes returns a file of data called name; base lends its time, mode and owner.
func NewBytes(name string, data []byte, base source.File) *Bytes {
	return &Bytes{name, data, base}
}

func (b *Bytes) Name() string       { return b.name }
func (b *Bytes) Size() int64        { return int64(len(b.data)) }
func (b *Bytes) ModTime() time.Time { return b.base.ModTime() }
func (b *Bytes) Mode() fs.FileMode  { return b.base.Mode() }
func (b *Bytes) Close() error       { return nil }
func (b *Bytes) Owner() (uid, gid uint32) {
	if o, ok := b.base.(source.Owned); ok {
		return o.Owner()
	}
	return 0, 0
}

func (b *Bytes) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 || off >= int64(len(b.data)) {
		return 0, io.EOF
	}
	n := copy(p, b.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// IndexJSON writes a model.safetensors.index.json for shards: each
// tensor's name mapped to the shard holding it, and total_size.
func IndexJSON(shards []*Virtual) []byte {
	type index struct {
		Metadata  map[string]uint64 `json:"metadata"`
		WeightMap map[string]string `json:"weight_map"`
	}
	idx := index{Metadata: map[string]uint64{}, WeightMap: map[string]string{}}
	var total uint64
	for _, s := range shards {
		for _, t := range s.tensors {
			idx.WeightMap[t.Name] = s.name
			total += uint64(t.Length)
		}
	}
	idx.Metadata["total_size"] = total
	out, _ := json.MarshalIndent(idx, "", "  ")
	return append(out, '\n')
}

var (
	_ source.File = (*Virtual)(nil)
	_ source.File = (*Bytes)(nil)
)
