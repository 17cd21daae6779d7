package testmodel

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/safetensors"
)

// torchStorage names the storage class of a dtype, as torch.save pickles it.
var torchStorage = map[string]string{
	"BF16": "BFloat16Storage", "F16": "HalfStorage", "F32": "FloatStorage", "F64": "DoubleStorage",
	"I64": "LongStorage", "I32": "IntStorage", "I16": "ShortStorage", "I8": "CharStorage",
	"U8": "ByteStorage", "BOOL": "BoolStorage",
}

// TorchPickle returns the data.pkl torch.save (protocol 2) writes for a
// state dict of entries in the order given, tensor i viewing storage
// key "i" whole and contiguous.
func TorchPickle(entries []Entry) ([]byte, error) {
	b := []byte{0x80, 0x02}
	// Globals are memoized, as pickle does: GLOBAL and BINPUT once,
	// LONG_BINGET after.
	memo := map[string]uint32{}
	global := func(mod, name string) {
		if i, ok := memo[mod+"."+name]; ok {
			b = append(b, 'j')
			b = binary.LittleEndian.AppendUint32(b, i)
			return
		}
		b = append(b, 'c')
		b = append(b, mod+"\n"+name+"\n"...)
		i := uint32(len(memo))
		memo[mod+"."+name] = i
		b = append(b, 'r')
		b = binary.LittleEndian.AppendUint32(b, i)
	}
	str := func(s string) {
		b = append(b, 'X')
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	integer := func(v uint64) {
		if v < 1<<31 {
			b = append(b, 'J')
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
			return
		}
		b = append(b, 0x8a, 8)
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	global("collections", "OrderedDict")
	b = append(b, ')', 'R', '(')
	for i, e := range entries {
		st, ok := torchStorage[e.DType]
		if !ok {
			return nil, fmt.Errorf("%s: no torch storage for %s", e.Name, e.DType)
		}
		str(e.Name)
		global("torch._utils", "_rebuild_tensor_v2")
		b = append(b, '(', '(')
		str("storage")
		global("torch", st)
		str(strconv.Itoa(i))
		str("cpu")
		n := uint64(1)
		for _, d := range e.Shape {
			n *= d
		}
		integer(n)
		b = append(b, 't', 'Q')
		integer(0)
		b = append(b, '(')
		for _, d := range e.Shape {
			integer(d)
		}
		b = append(b, 't', '(')
		stride := make([]uint64, len(e.Shape))
		s := uint64(1)
		for j := len(e.Shape) - 1; j >= 0; j-- {
			stride[j] = s
			s *= e.Shape[j]
		}
		for _, d := range stride {
			integer(d)
		}
		b = append(b, 't', 0x89)
		global("collections", "OrderedDict")
		b = append(b, ')', 'R', 't', 'R')
	}
	return append(b, 'u', '.'), nil
}

// ZipEntry is one record of a ZIP archive as torch.save writes it:
// stored, its data 64-byte aligned. With Data nil, Size bytes are left
// as a hole.
type ZipEntry struct {
	Name string
	Data []byte
	Size uint64
}

// WriteTorchZip writes records as an uncompressed ZIP64 archive, the way
// torch.save's writer lays them out, leaving holes for records without
// Data so that a multi-gigabyte checkpoint costs no disk.
func WriteTorchZip(path string, records []ZipEntry) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var pos uint64
	var central []byte
	for _, r := range records {
		size := r.Size
		if r.Data != nil {
			size = uint64(len(r.Data))
		}
		// As torch.save's writer (miniz, through PyTorchStreamWriter's
		// getPadding): a zip64 field only when the size or the header's
		// offset passes 4 GB, with those of the two that do; then a
		// padding field so that the data starts 64-aligned.
		var extra []byte
		localSize := uint32(size)
		if size >= 0xffffffff || pos >= 0xffffffff {
			var z []byte
			if size >= 0xffffffff {
				z = binary.LittleEndian.AppendUint64(z, size)
				z = binary.LittleEndian.AppendUint64(z, size)
				localSize = 0xffffffff
			}
			if pos >= 0xffffffff {
				z = binary.LittleEndian.AppendUint64(z, pos)
			}
			extra = binary.LittleEndian.AppendUint16(extra, 1)
			extra = binary.LittleEndian.AppendUint16(extra, uint16(len(z)))
			extra = append(extra, z...)
		}
		hdrLen := 30 + uint64(len(r.Name)) + uint64(len(extra)) + 4
		pad := (64 - (pos+hdrLen)%64) % 64
		extra = binary.LittleEndian.AppendUint16(extra, 0x4246) // "FB", torch's padding field
		extra = binary.LittleEndian.AppendUint16(extra, uint16(pad))
		extra = append(extra, make([]byte, pad)...)
		h := binary.LittleEndian.AppendUint32(nil, 0x04034b50)
		h = binary.LittleEndian.AppendUint16(h, 45)
		h = append(h, 0, 0, 0, 0, 0, 0, 0, 0)      // flags, method (store), time, date
		h = binary.LittleEndian.AppendUint32(h, 0) // crc32, unchecked by readers of storages
		h = binary.LittleEndian.AppendUint32(h, localSize)
		h = binary.LittleEndian.AppendUint32(h, localSize)
		h = binary.LittleEndian.AppendUint16(h, uint16(len(r.Name)))
		h = binary.LittleEndian.AppendUint16(h, uint16(len(extra)))
		h = append(h, r.Name...)
		h = append(h, extra...)
		if _, err := f.WriteAt(h, int64(pos)); err != nil {
			f.Close()
			return err
		}
		if r.Data != nil {
			if _, err := f.WriteAt(r.Data, int64(pos)+int64(len(h))); err != nil {
				f.Close()
				return err
			}
		}
		cx := binary.LittleEndian.AppendUint16(nil, 1)
		cx = binary.LittleEndian.AppendUint16(cx, 24)
		cx = binary.LittleEndian.AppendUint64(cx, size)
		cx = binary.LittleEndian.AppendUint64(cx, size)
		cx = binary.LittleEndian.AppendUint64(cx, pos)
		c := binary.LittleEndian.AppendUint32(nil, 0x02014b50)
		c = binary.LittleEndian.AppendUint16(c, 45)
		c = binary.LittleEndian.AppendUint16(c, 45)
		c = append(c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) // flags, method, time, date, crc
		c = binary.LittleEndian.AppendUint32(c, 0xffffffff)
		c = binary.LittleEndian.AppendUint32(c, 0xffffffff)
		c = binary.LittleEndian.AppendUint16(c, uint16(len(r.Name)))
		c = binary.LittleEndian.AppendUint16(c, uint16(len(cx)))
		c = append(c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0) // comment, disk, attrs
		c = binary.LittleEndian.AppendUint32(c, 0xffffffff)
		c = append(c, r.Name...)
		central = append(central, append(c, cx...)...)
		pos += uint64(len(h)) + size
	}
	cdOff := pos
	n := uint64(len(records))
	end := binary.LittleEndian.AppendUint32(nil, 0x06064b50)
	end = binary.LittleEndian.AppendUint64(end, 44)
	end = binary.LittleEndian.AppendUint16(end, 45)
	end = binary.LittleEndian.AppendUint16(end, 45)
	end = append(end, 0, 0, 0, 0, 0, 0, 0, 0)
	end = binary.LittleEndian.AppendUint64(end, n)
	end = binary.LittleEndian.AppendUint64(end, n)
	end = binary.LittleEndian.AppendUint64(end, uint64(len(central)))
	end = binary.LittleEndian.AppendUint64(end, cdOff)
	end = binary.LittleEndian.AppendUint32(end, 0x07064b50)
	end = binary.LittleEndian.AppendUint32(end, 0)
	end = binary.LittleEndian.AppendUint64(end, cdOff+uint64(len(central)))
	end = binary.LittleEndian.AppendUint32(end, 1)
	end = binary.LittleEndian.AppendUint32(end, 0x06054b50)
	end = append(end, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff)
	end = binary.LittleEndian.AppendUint32(end, 0xffffffff)
	end = binary.LittleEndian.AppendUint32(end, 0xffffffff)
	end = append(end, 0, 0)
	if _, err := f.WriteAt(append(central, end...), int64(cdOff)); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteSparseTorch writes a torch.save checkpoint of entries (sorted by
// name) over holes: the pickle is real, the storages are zeros.
func WriteSparseTorch(path string, entries []Entry) error {
	sorted := append([]Entry(nil), entries...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	pkl, err := TorchPickle(sorted)
	if err != nil {
		return err
	}
	recs := []ZipEntry{{Name: "archive/data.pkl", Data: pkl}, {Name: "archive/byteorder", Data: []byte("little")}}
	for i, e := range sorted {
		recs = append(recs, ZipEntry{Name: "archive/data/" + strconv.Itoa(i), Size: NBytes(e.DType, e.Shape)})
	}
	recs = append(recs, ZipEntry{Name: "archive/version", Data: []byte("3\n")})
	return WriteTorchZip(path, recs)
}

// WriteSparseTorchShards writes one sparse torch.save shard per file
// named in weightMap, as WriteSparseShards does for safetensors.
func WriteSparseTorchShards(dir string, weightMap map[string]string, entry func(name string) (dtype string, shape []uint64)) (uint64, error) {
	byShard := map[string][]Entry{}
	var total uint64
	for name, shard := range weightMap {
		dt, shape := entry(name)
		byShard[shard] = append(byShard[shard], Entry{Name: name, DType: dt, Shape: shape})
		total += NBytes(dt, shape)
	}
	for shard, es := range byShard {
		if err := WriteSparseTorch(dir+"/"+shard, es); err != nil {
			return 0, err
		}
	}
	return total, nil
}

// ConvertToTorch writes the safetensors model of dir (config.json and
// model.safetensors) into out as config.json and a dense
// pytorch_model.bin holding the same tensors, laid out as torch.save
// lays them out.
func ConvertToTorch(dir, out string) error {
	src, err := safetensors.Open(filepath.Join(dir, "model.safetensors"))
	if err != nil {
		return err
	}
	defer src.Close()
	var entries []Entry
	for _, t := range src.Tensors() {
		entries = append(entries, Entry{Name: t.Name, DType: t.DType.String(), Shape: t.Shape})
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	cfg, err := os.ReadFile(filepath.Join(dir, "config.json"))
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(out, "config.json"), cfg, 0o644); err != nil {
		return err
	}
	path := filepath.Join(out, "pytorch_model.bin")
	if err := WriteSparseTorch(path, entries); err != nil {
		return err
	}
	pt, err := pytorch.Open(path)
	if err != nil {
		return err
	}
	defer pt.Close()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	for _, t := range pt.Tensors() {
		if _, err := io.Copy(io.NewOffsetWriter(f, t.Offset), src.Tensor(t.Name).Reader()); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}
