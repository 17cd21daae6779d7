package testmodel

import "encoding/binary"

// Pickle builds a pickle stream by hand, protocol 2: the data.pkl of a
// crafted torch.save archive (see WriteTorchZip). Each method appends
// opcodes and returns p, so that a stream reads as one chain.
type Pickle struct{ B []byte }

// NewPickle starts a protocol-2 stream.
func NewPickle() *Pickle { return &Pickle{B: []byte{0x80, 0x02}} }

// Op appends raw opcodes and arguments.
func (p *Pickle) Op(b ...byte) *Pickle { p.B = append(p.B, b...); return p }

// Global pushes mod.name (GLOBAL).
func (p *Pickle) Global(mod, name string) *Pickle {
	return p.Op('c').Op([]byte(mod + "\n" + name + "\n")...)
}

// Str pushes a string (BINUNICODE).
func (p *Pickle) Str(s string) *Pickle {
	p.Op('X')
	p.B = binary.LittleEndian.AppendUint32(p.B, uint32(len(s)))
	return p.Op([]byte(s)...)
}

// Int pushes a 32-bit integer (BININT).
func (p *Pickle) Int(v int) *Pickle {
	p.Op('J')
	p.B = binary.LittleEndian.AppendUint32(p.B, uint32(v))
	return p
}

// Tensor pushes _rebuild_tensor_v2 of a FloatStorage under key of numel
// elements, at offset off with shape and stride.
func (p *Pickle) Tensor(key string, numel, off int, shape, stride []int) *Pickle {
	p.Global("torch._utils", "_rebuild_tensor_v2").Op('(', '(').Str("storage").Global("torch", "FloatStorage").Str(key).Str("cpu").Int(numel).Op('t', 'Q').Int(off).Op('(')
	for _, d := range shape {
		p.Int(d)
	}
	p.Op('t', '(')
	for _, d := range stride {
		p.Int(d)
	}
	return p.Op('t', 0x89, 'N', 't', 'R')
}

// TorchArchive is the entries of a torch.save archive holding pickle as
// its data.pkl and each storage under its key, for WriteTorchZip.
func TorchArchive(pickle []byte, storages map[string][]byte) []ZipEntry {
	recs := []ZipEntry{{Name: "archive/data.pkl", Data: pickle}, {Name: "archive/byteorder", Data: []byte("little")}}
	for k, b := range storages {
		recs = append(recs, ZipEntry{Name: "archive/data/" + k, Data: b})
	}
	return recs
}
