package testmodel

import (
	"encoding/json"
	"maps"
	"testing"

	"encoding/binary"
	"fmt"
	"github.com/stretchr/testify/require"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/tensor"
)

// DCPTensor is a tensor of a Distributed Checkpoint to write: its key,
// its path in the state dict saved (planner_data; nil: the key alone),
// its safetensors dtype, shape and row-major bytes, and how it is
// sharded: Split is the dimension cut over the ranks as torch.chunk
// cuts it (FSDP2's Shard(0), tensor parallelism's Shard(1)), or -1 for
// a replicated tensor, written once by rank 0.
type DCPTensor struct {
	Key   string
	Path  []string
	DType string
	Shape []uint64
	Data  []byte
	Split int
	// Read, if Data is nil, gives the bytes when the tensor is written:
	// one tensor at a time in memory.
	Read func() ([]byte, error)
}

// DCPObject is a non-tensor value: its key and the protocol-2 pickle of
// the object (K\x05. for the int 5).
type DCPObject struct {
	Key    string
	Pickle []byte
}

// DCPChunk is one chunk as the metadata describes it.
type DCPChunk struct {
	Offsets, Sizes []uint64
	// Where its item is.
	File           string
	Offset, Length int64
}

// DCPEntry is one key of the metadata's state_dict_metadata.
type DCPEntry struct {
	Key    string
	Path   []string
	DType  string // torch's name: "bfloat16"
	Size   []uint64
	Chunks []DCPChunk
	// Object is set for a bytes item; File, Offset and Length are then
	// its item's.
	Object         bool
	File           string
	Offset, Length int64
}

// torchDTypeNames are torch's names of the safetensors dtypes.
var torchDTypeNames = map[string]string{
	"BF16": "bfloat16", "F16": "float16", "F32": "float32", "F64": "float64", "I64": "int64",
	"I32": "int32", "I16": "int16", "I8": "int8", "U8": "uint8", "BOOL": "bool",
}

// WriteDCP writes a PyTorch Distributed Checkpoint into dir as torch
// 2.6's FileSystemWriter does with ranks processes
// (the layout package dcp documents): one __<rank>_0.distcp per rank,
// holding its bytes items then its tensor chunks, each a complete
// torch.save archive of the chunk, and .metadata, the protocol-4 pickle
// of the Metadata dataclass. edit, if not nil, changes the entries
// before .metadata is written (a chunk dropped, a path changed).
func WriteDCP(dir string, ranks int, tensors []DCPTensor, objects []DCPObject, edit func([]DCPEntry) []DCPEntry) error {
	files := make([]*os.File, ranks)
	sizes := make([]int64, ranks)
	for r := range files {
		f, err := os.Create(filepath.Join(dir, fmt.Sprintf("__%d_0.distcp", r)))
		if err != nil {
			return err
		}
		defer f.Close()
		files[r] = f
	}
	put := func(r int, item []byte) (int64, error) {
		at := sizes[r]
		if _, err := files[r].Write(item); err != nil {
			return 0, err
		}
		sizes[r] += int64(len(item))
		return at, nil
	}
	var entries []DCPEntry
	for _, o := range objects {
		item, err := torchSaveBytes(o.Pickle, nil)
		if err != nil {
			return err
		}
		at, err := put(0, item)
		if err != nil {
			return err
		}
		entries = append(entries, DCPEntry{Key: o.Key, Object: true, File: "__0_0.distcp", Offset: at, Length: int64(len(item))})
	}
	for _, t := range tensors {
		dt, ok := torchDTypeNames[t.DType]
		if !ok {
			return fmt.Errorf("%s: no torch dtype for %s", t.Key, t.DType)
		}
		data := t.Data
		if data == nil && t.Read != nil {
			var err error
			if data, err = t.Read(); err != nil {
				return err
			}
		}
		e := DCPEntry{Key: t.Key, Path: t.Path, DType: dt, Size: t.Shape}
		es := NBytes(t.DType, []uint64{1})
		parts := 1
		if t.Split >= 0 {
			parts = ranks
		}
		for r := range parts {
			off, size := make([]uint64, len(t.Shape)), append([]uint64(nil), t.Shape...)
			if t.Split >= 0 {
				n := t.Shape[t.Split]
				step := (n + uint64(ranks) - 1) / uint64(ranks)
				lo := min(uint64(r)*step, n)
				hi := min(lo+step, n)
				if hi == lo {
					continue
				}
				off[t.Split], size[t.Split] = lo, hi-lo
			}
			item, err := torchSaveBytes(tensorPickle(t.DType, size), cutBox(data, t.Shape, off, size, es))
			if err != nil {
				return err
			}
			at, err := put(r, item)
			if err != nil {
				return err
			}
			e.Chunks = append(e.Chunks, DCPChunk{Offsets: off, Sizes: size, File: fmt.Sprintf("__%d_0.distcp", r), Offset: at, Length: int64(len(item))})
		}
		entries = append(entries, e)
	}
	if edit != nil {
		entries = edit(entries)
	}
	for _, f := range files {
		if err := f.Close(); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, ".metadata"), DCPMetadata(entries), 0o644)
}

// WriteModelDCP writes the safetensors model in src (config.json and its
// weights) as a Distributed Checkpoint over ranks into dir, as
// dcp.save(model.state_dict()) from FSDP2 writes it: every matrix split
// by rows, vectors replicated; config.json copied beside. One tensor at
// a time is in memory.
func WriteModelDCP(src, dir string, ranks int) error {
	return writeModelDCP(src, dir, ranks, func(tt *tensor.Tensor) ([]DCPTensor, error) {
		split := 0
		if len(tt.Shape) < 2 {
			split = -1
		}
		return []DCPTensor{{Key: tt.Name, DType: tt.DType.String(), Shape: tt.Shape, Split: split,
			Read: func() ([]byte, error) { return io.ReadAll(tt.Reader()) }}}, nil
	}, nil, nil)
}

// writeModelDCP writes the model in src as a Distributed Checkpoint over
// ranks into dir, each of its tensors as the entries entriesOf gives, with
// objs and edit as WriteDCP takes them, and copies config.json beside.
func writeModelDCP(src, dir string, ranks int, entriesOf func(*tensor.Tensor) ([]DCPTensor, error), objs []DCPObject, edit func([]DCPEntry) []DCPEntry) error {
	m, err := model.Open(src)
	if err != nil {
		return err
	}
	defer m.Close()
	var ts []DCPTensor
	for _, tt := range m.Tensors() {
		e, err := entriesOf(tt)
		if err != nil {
			return err
		}
		ts = append(ts, e...)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := WriteDCP(dir, ranks, ts, objs, edit); err != nil {
		return err
	}
	cfg, err := os.ReadFile(filepath.Join(src, "config.json"))
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644)
}

// cutBox copies the box [off, off+size) of a row-major tensor of shape.
func cutBox(data []byte, shape, off, size []uint64, es uint64) []byte {
	if len(shape) == 0 {
		return append([]byte(nil), data...)
	}
	n := es
	for _, s := range size {
		n *= s
	}
	out := make([]byte, 0, n)
	strides := make([]uint64, len(shape))
	st := es
	for d := len(shape) - 1; d >= 0; d-- {
		strides[d] = st
		st *= shape[d]
	}
	idx := make([]uint64, len(shape)-1)
	row := size[len(size)-1] * es
	for {
		at := off[len(shape)-1] * es
		for d, i := range idx {
			at += (off[d] + i) * strides[d]
		}
		out = append(out, data[at:at+row]...)
		d := len(idx) - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < size[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 || row == 0 {
			return out
		}
	}
}

// tensorPickle is the data.pkl of torch.save(chunk) for a contiguous
// chunk of dtype and shape in storage "0": protocol 2,
// _rebuild_tensor_v2(persistent_id, 0, size, stride, False, OrderedDict()).
func tensorPickle(dtype string, shape []uint64) []byte {
	b := []byte{0x80, 0x02}
	global := func(mod, name string) { b = append(b, 'c'); b = append(b, mod+"\n"+name+"\n"...) }
	str := func(s string) {
		b = append(b, 'X')
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	integer := func(v uint64) {
		b = append(b, 'J')
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	n := uint64(1)
	for _, d := range shape {
		n *= d
	}
	global("torch._utils", "_rebuild_tensor_v2")
	b = append(b, '(', '(')
	str("storage")
	global("torch", torchStorage[dtype])
	str("0")
	str("cpu")
	integer(n)
	b = append(b, 't', 'Q')
	integer(0)
	b = append(b, '(')
	for _, d := range shape {
		integer(d)
	}
	b = append(b, 't', '(')
	s := uint64(1)
	strides := make([]uint64, len(shape))
	for j := len(shape) - 1; j >= 0; j-- {
		strides[j] = s
		s *= shape[j]
	}
	for _, d := range strides {
		integer(d)
	}
	b = append(b, 't', 0x89)
	global("collections", "OrderedDict")
	b = append(b, ')', 'R', 't', 'R', '.')
	return b
}

// torchSaveBytes returns the archive torch.save writes to a BytesIO:
// data.pkl, byteorder, the storage data/0 (if data is not nil), version
// and .data/serialization_id.
func torchSaveBytes(pkl, data []byte) ([]byte, error) {
	recs := []ZipEntry{{Name: "archive/data.pkl", Data: pkl}, {Name: "archive/byteorder", Data: []byte("little")}}
	if data != nil {
		recs = append(recs, ZipEntry{Name: "archive/data/0", Data: data})
	}
	recs = append(recs, ZipEntry{Name: "archive/version", Data: []byte("3\n")},
		ZipEntry{Name: "archive/.data/serialization_id", Data: []byte("1234567890123456789012345678901234567890")})
	f, err := os.CreateTemp("", "item-*.pt")
	if err != nil {
		return nil, err
	}
	f.Close()
	defer os.Remove(f.Name())
	if err := WriteTorchZip(f.Name(), recs); err != nil {
		return nil, err
	}
	return os.ReadFile(f.Name())
}

// DCPMetadata is the .metadata pickle of entries, as torch 2.6 writes
// it: protocol 4, each dataclass NEWOBJ'd and BUILT with its __dict__,
// TensorProperties with its 5-tuple, torch.Size as REDUCE.
func DCPMetadata(entries []DCPEntry) []byte {
	const md = "torch.distributed.checkpoint.metadata"
	p := &pickler{b: []byte{0x80, 0x04}}
	p.newObj(md, "Metadata")
	p.b = append(p.b, '}', '(')
	p.str("state_dict_metadata")
	p.b = append(p.b, '}', '(')
	for _, e := range entries {
		p.str(e.Key)
		if e.Object {
			p.newObj(md, "BytesStorageMetadata")
			continue
		}
		p.newObj(md, "TensorStorageMetadata")
		p.b = append(p.b, '}', '(')
		p.str("properties")
		p.newObj(md, "TensorProperties")
		p.b = append(p.b, '(')
		p.global("torch", e.DType)
		p.global("torch.serialization", "_get_layout")
		p.str("torch.strided")
		p.b = append(p.b, 0x85, 'R', 0x89)
		p.global(md, "_MEM_FORMAT_ENCODING")
		p.integer(0)
		p.b = append(p.b, 0x85, 'R', 0x89, 't', 'b')
		p.str("size")
		p.size(e.Size)
		p.str("chunks")
		p.b = append(p.b, ']', '(')
		for _, c := range e.Chunks {
			p.newObj(md, "ChunkStorageMetadata")
			p.b = append(p.b, '}', '(')
			p.str("offsets")
			p.size(c.Offsets)
			p.str("sizes")
			p.size(c.Sizes)
			p.b = append(p.b, 'u', 'b')
		}
		p.b = append(p.b, 'e', 'u', 'b')
	}
	p.b = append(p.b, 'u')
	p.str("planner_data")
	p.b = append(p.b, '}', '(')
	for _, e := range entries {
		p.str(e.Key)
		path := e.Path
		if path == nil {
			path = []string{e.Key}
		}
		p.b = append(p.b, '(')
		for _, s := range path {
			p.str(s)
		}
		p.b = append(p.b, 't')
	}
	p.b = append(p.b, 'u')
	p.str("storage_data")
	p.b = append(p.b, '}', '(')
	index := func(key string, offsets []uint64, i int, file string, off, n int64) {
		p.newObj(md, "MetadataIndex")
		p.b = append(p.b, '}', '(')
		p.str("fqn")
		p.str(key)
		p.str("offset")
		if offsets == nil {
			p.b = append(p.b, 'N')
		} else {
			p.size(offsets)
		}
		p.str("index")
		if offsets == nil {
			p.b = append(p.b, 'N')
		} else {
			p.integer(int64(i))
		}
		p.b = append(p.b, 'u', 'b')
		p.newObj("torch.distributed.checkpoint.filesystem", "_StorageInfo")
		p.b = append(p.b, '}', '(')
		p.str("relative_path")
		p.str(file)
		p.str("offset")
		p.integer(off)
		p.str("length")
		p.integer(n)
		p.b = append(p.b, 'u', 'b')
	}
	for _, e := range entries {
		if e.Object {
			index(e.Key, nil, 0, e.File, e.Offset, e.Length)
		}
		for i, c := range e.Chunks {
			index(e.Key, c.Offsets, i, c.File, c.Offset, c.Length)
		}
	}
	p.b = append(p.b, 'u')
	p.str("storage_meta")
	p.newObj(md, "StorageMeta")
	p.b = append(p.b, '}', '(')
	p.str("checkpoint_id")
	p.global("pathlib", "PosixPath")
	p.str("checkpoint")
	p.b = append(p.b, 0x85, 'R')
	p.str("save_id")
	p.str("00000000-0000-4000-8000-000000000000")
	p.str("load_id")
	p.b = append(p.b, 'N', 'u', 'b')
	p.b = append(p.b, 'u', 'b', '.')
	return p.b
}

// pickler writes the few opcodes .metadata uses.
type pickler struct{ b []byte }

func (p *pickler) str(s string) {
	p.b = append(p.b, 'X')
	p.b = binary.LittleEndian.AppendUint32(p.b, uint32(len(s)))
	p.b = append(p.b, s...)
}

func (p *pickler) global(mod, name string) {
	p.str(mod)
	p.str(name)
	p.b = append(p.b, 0x93)
}

// newObj is cls.__new__(cls): STACK_GLOBAL, EMPTY_TUPLE, NEWOBJ.
func (p *pickler) newObj(mod, name string) {
	p.global(mod, name)
	p.b = append(p.b, ')', 0x81)
}

func (p *pickler) integer(v int64) {
	if v >= -1<<31 && v < 1<<31 {
		p.b = append(p.b, 'J')
		p.b = binary.LittleEndian.AppendUint32(p.b, uint32(int32(v)))
		return
	}
	p.b = append(p.b, 0x8a, 8)
	p.b = binary.LittleEndian.AppendUint64(p.b, uint64(v))
}

// size is torch.Size(tuple): REDUCE(torch.Size, ((d0, d1, …),)).
func (p *pickler) size(dims []uint64) {
	p.global("torch", "Size")
	p.b = append(p.b, '(')
	for _, d := range dims {
		p.integer(int64(d))
	}
	p.b = append(p.b, 't', 0x85, 'R')
}

// WriteTinyDCP writes testdata/tiny-qwen3's weights as a trainer's
// Distributed Checkpoint over 2 ranks into dir, with its config.json:
// under a "model" root, torch.compile's _orig_mod in the names, rows
// split (FSDP2's Shard(0)) but o_proj and down_proj by columns (tensor
// parallelism's Shard(1)), norms replicated; an Adam moment per weight
// under "optim", and a step count. edit changes the metadata's entries
// before it is written.
func WriteTinyDCP(dir string, edit func([]DCPEntry) []DCPEntry) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	return writeModelDCP(filepath.Join(root, "testdata", "tiny-qwen3"), dir, 2, func(tt *tensor.Tensor) ([]DCPTensor, error) {
		b, err := io.ReadAll(tt.Reader())
		if err != nil {
			return nil, err
		}
		split := 0
		switch {
		case len(tt.Shape) == 1:
			split = -1
		case strings.HasSuffix(tt.Name, "o_proj.weight") || strings.HasSuffix(tt.Name, "down_proj.weight"):
			split = 1
		}
		compiled := strings.Replace(tt.Name, "model.", "model._orig_mod.", 1)
		return []DCPTensor{
			{Key: "model." + compiled, Path: []string{"model", compiled},
				DType: tt.DType.String(), Shape: tt.Shape, Data: b, Split: split},
			{Key: "optim.state." + tt.Name + ".exp_avg", Path: []string{"optim", "state", tt.Name, "exp_avg"},
				DType: tt.DType.String(), Shape: tt.Shape, Data: make([]byte, len(b)), Split: split},
		}, nil
	}, []DCPObject{{Key: "step", Pickle: []byte("\x80\x02K\x05.")}}, edit)
}

// DCPCases are the checkpoints torch 2.6 wrote (dcp/testdata/realworld).
var DCPCases = []string{"single", "sharded-2", "sharded-2-tp", "sharded-4-2d", "optim", "optim-sharded-2", "threads-2", "file-per-item"}

// DCPCase is a case.json of dcp/testdata/realworld: the model's config,
// and the dtype and SHA-256 of each full tensor and the value of each
// object the checkpoint holds, by key.
type DCPCase struct {
	Config   map[string]any `json:"model_config"`
	Expected map[string]struct {
		DType  string `json:"dtype"`
		SHA256 string `json:"sha256"`
	} `json:"expected_tensors"`
	Objects map[string]any `json:"expected_objects"`
}

// DCPCaseDir copies the checkpoint of one of [DCPCases] into a new
// directory with a config.json of its model (a Qwen3ForCausalLM in the
// dtype of its final norm), and returns the directory and the case.
func DCPCaseDir(t testing.TB, name string) (string, DCPCase) {
	t.Helper()
	root, err := RepoRoot()
	require.NoError(t, err)
	src := filepath.Join(root, "dcp", "testdata", "realworld", name)
	b, err := os.ReadFile(filepath.Join(src, "case.json"))
	require.NoError(t, err)
	var c DCPCase
	require.NoError(t, json.Unmarshal(b, &c))
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(src, "checkpoint"))))
	cfg := maps.Clone(c.Config)
	cfg["architectures"] = []string{"Qwen3ForCausalLM"}
	cfg["torch_dtype"] = c.Expected["model.norm.weight"].DType
	if _, ok := c.Expected["model.model.norm.weight"]; ok {
		cfg["torch_dtype"] = c.Expected["model.model.norm.weight"].DType
	}
	b, err = json.Marshal(cfg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), b, 0o644))
	return dir, c
}
