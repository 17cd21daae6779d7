package pytorch_test

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

func torchRun(t *testing.T, args ...string) string {
	t.Helper()
	return testmodel.RunTorch(t, append([]string{"testdata/torchfiles.py"}, args...)...)
}

// TestWrittenByTorch opens checkpoints torch.save wrote and compares
// every tensor's bytes, read the way the mount reads them, with what
// torch.load gives.
func TestWrittenByTorch(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		file      string
		dtype     tensor.DType
		tied      bool
		noncontig string
		legacy    bool
		nTensors  int
	}{
		{"bf16/pytorch_model.bin", tensor.BF16, true, "", false, 25},
		{"f16/pytorch_model.bin", tensor.F16, true, "", false, 25},
		{"f32/pytorch_model.bin", tensor.F32, true, "", false, 25},
		{"transposed/pytorch_model.bin", tensor.F32, false, "model.layers.0.self_attn.q_proj.weight", false, 25},
		{"sharded/pytorch_model-00001-of-00002.bin", tensor.BF16, false, "", false, 12},
		{"sharded/pytorch_model-00002-of-00002.bin", tensor.BF16, false, "", false, 13},
		{"legacy/pytorch_model.bin", tensor.BF16, true, "", true, 25},
	}
	var paths []string
	for _, c := range cases {
		paths = append(paths, filepath.Join(dir, c.file))
	}
	// FILE NAME SHA256 DTYPE SHAPE, from torch.load.
	sums := map[string]map[string]string{}
	// One python: write, then read back.
	for _, line := range strings.Split(strings.TrimSpace(torchRun(t, append([]string{"write", dir, "../testdata/tiny-qwen3", "--", "sums"}, paths...)...)), "\n") {
		fields := strings.SplitN(line, " ", 4)
		if sums[fields[0]] == nil {
			sums[fields[0]] = map[string]string{}
		}
		sums[fields[0]][fields[1]] = fields[2] + " " + fields[3]
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			f, err := pytorch.Open(path)
			require.NoError(t, err)
			defer f.Close()
			assert.Equal(t, c.legacy, f.Legacy())
			want := sums[path]
			require.Len(t, f.Tensors(), c.nTensors)
			require.Len(t, want, c.nTensors)
			for _, tt := range f.Tensors() {
				assert.Equal(t, c.dtype, tt.DType, tt.Name)
				b, err := io.ReadAll(tt.Reader())
				require.NoError(t, err)
				sum := sha256.Sum256(b)
				shape := tensor.FormatShape(tt.Shape)
				w, ok := want[tt.Name]
				require.True(t, ok, tt.Name)
				assert.True(t, strings.HasPrefix(w, hex.EncodeToString(sum[:])+" "), "%s: bytes differ from torch.load's", tt.Name)
				assert.True(t, strings.HasSuffix(w, shape), "%s: shape %s, torch %s", tt.Name, shape, w)
				assert.Equal(t, tt.Name == c.noncontig, tt.Strides != nil, tt.Name)
			}
			if c.file[:2] != "sh" {
				head, emb := find(f, "lm_head.weight"), find(f, "model.embed_tokens.weight")
				assert.Equal(t, c.tied, tensor.SameBytes(head, emb), "tied head shares embed_tokens' storage")
			}
		})
	}
}

func find(f *pytorch.File, name string) *tensor.Tensor {
	for _, t := range f.Tensors() {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// TestHostileTorch: pickles torch.save wrote around objects that would
// run code, or are not weights, are refused naming the global, and run
// nothing.
func TestHostileTorch(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "MARKER")
	torchRun(t, "hostile", dir, marker)
	for file, global := range map[string]string{"reduce.pt": "posix.system", "global.pt": "_io.BytesIO"} {
		_, err := pytorch.Open(filepath.Join(dir, file))
		require.ErrorIs(t, err, pytorch.CodeForbidden, file)
		assert.Contains(t, err.Error(), global)
		assert.NotContains(t, err.Error(), "\n")
	}
	assert.NoFileExists(t, marker, "the pickle's command ran")
}

func writeArchive(t *testing.T, pickle []byte, storages map[string]int, extra ...testmodel.ZipEntry) string {
	data := map[string][]byte{}
	for k, n := range storages {
		data[k] = make([]byte, n)
	}
	recs := append(testmodel.TorchArchive(pickle, data), extra...)
	path := filepath.Join(t.TempDir(), "x.bin")
	require.NoError(t, testmodel.WriteTorchZip(path, recs))
	return path
}

func stateDict(items func(p *testmodel.Pickle)) []byte {
	p := testmodel.NewPickle().Global("collections", "OrderedDict").Op(')', 'R', '(')
	items(p)
	return p.Op('u', '.').B
}

// TestMalformed: crafted archives and pickles, each refused with its
// code in one line, never a panic, nothing run.
func TestMalformed(t *testing.T) {
	good := stateDict(func(p *testmodel.Pickle) { p.Str("w").Tensor("0", 4, 0, []int{2, 2}, []int{2, 1}) })
	deep := testmodel.NewPickle()
	for range 300 {
		deep.Op(']')
		deep.Op('(')
	}
	for _, c := range []struct {
		name     string
		path     func(t *testing.T) string
		code     pytorch.Code
		contains string
	}{
		{"os.system", func(t *testing.T) string {
			return writeArchive(t, testmodel.NewPickle().Global("os", "system").Str("touch /tmp/never").Op(0x85, 'R', '.').B, nil)
		}, pytorch.CodeForbidden, "os.system"},
		{"builtins.eval by STACK_GLOBAL", func(t *testing.T) string {
			return writeArchive(t, testmodel.NewPickle().Str("builtins").Str("eval").Op(0x93).Str("1").Op(0x85, 'R', '.').B, nil)
		}, pytorch.CodeForbidden, "builtins.eval"},
		{"numpy global", func(t *testing.T) string {
			return writeArchive(t, testmodel.NewPickle().Global("numpy.core.multiarray", "_reconstruct").Op('.').B, nil)
		}, pytorch.CodeForbidden, "numpy.core.multiarray._reconstruct"},
		{"deep nesting", func(t *testing.T) string { return writeArchive(t, append(deep.B, '.'), nil) }, pytorch.CodeLimit, "MARK"},
		{"huge memo index", func(t *testing.T) string {
			return writeArchive(t, testmodel.NewPickle().Op(']', 'r', 0xff, 0xff, 0xff, 0xff, 'j', 0xfe, 0xff, 0xff, 0xff, '.').B, nil)
		}, pytorch.CodeInvalidPickle, "memo index 4294967294"},
		{"stack underflow", func(t *testing.T) string { return writeArchive(t, testmodel.NewPickle().Op('R', '.').B, nil) }, pytorch.CodeInvalidPickle, "underflow"},
		{"string past the end", func(t *testing.T) string {
			return writeArchive(t, testmodel.NewPickle().Op('X', 0xff, 0xff, 0xff, 0x7f, 'a').B, nil)
		}, pytorch.CodeInvalidPickle, "ends before"},
		{"unknown opcode", func(t *testing.T) string { return writeArchive(t, testmodel.NewPickle().Op('i').B, nil) }, pytorch.CodeInvalidPickle, "opcode 0x69"},
		{"short storage", func(t *testing.T) string {
			return writeArchive(t, stateDict(func(p *testmodel.Pickle) { p.Str("w").Tensor("0", 4, 0, []int{3, 2}, []int{2, 1}) }), map[string]int{"0": 16})
		}, pytorch.CodeShortStorage, "needs 24 bytes"},
		{"offset past the storage", func(t *testing.T) string {
			return writeArchive(t, stateDict(func(p *testmodel.Pickle) { p.Str("w").Tensor("0", 4, 3, []int{2, 2}, []int{2, 1}) }), map[string]int{"0": 16})
		}, pytorch.CodeShortStorage, "from element 3"},
		{"missing storage", func(t *testing.T) string { return writeArchive(t, good, nil) }, pytorch.CodeMissingRecord, "archive/data/0"},
		{"big-endian", func(t *testing.T) string {
			recs := []testmodel.ZipEntry{{Name: "archive/data.pkl", Data: good}, {Name: "archive/byteorder", Data: []byte("big")}, {Name: "archive/data/0", Data: make([]byte, 16)}}
			path := filepath.Join(t.TempDir(), "x.bin")
			require.NoError(t, testmodel.WriteTorchZip(path, recs))
			return path
		}, pytorch.CodeBigEndian, "big-endian"},
		{"compressed storage", func(t *testing.T) string {
			var buf bytes.Buffer
			zw := zip.NewWriter(&buf)
			w, _ := zw.CreateHeader(&zip.FileHeader{Name: "archive/data.pkl", Method: zip.Store})
			w.Write(good)
			w, _ = zw.CreateHeader(&zip.FileHeader{Name: "archive/data/0", Method: zip.Deflate})
			w.Write(make([]byte, 16))
			require.NoError(t, zw.Close())
			path := filepath.Join(t.TempDir(), "x.bin")
			require.NoError(t, os.WriteFile(path, buf.Bytes(), 0o644))
			return path
		}, pytorch.CodeCompressed, "archive/data/0 is compressed"},
		{"overlapping storages", func(t *testing.T) string {
			// Make record 0 256 bytes long (its sizes, in its ZIP64
			// extra field of the central directory): it runs over
			// record 1's header and data.
			return twoStoragesEdited(t, func(raw []byte, zip64 func(name string) int) {
				binary.LittleEndian.PutUint64(raw[zip64("archive/data/0"):], 256)
				binary.LittleEndian.PutUint64(raw[zip64("archive/data/0")+8:], 256)
			})
		}, pytorch.CodeOverlap, "share bytes"},
		{"central directory pointing at another record's header", func(t *testing.T) string {
			// Point record 1's local header offset (in its ZIP64 extra
			// field of the central directory) at record 0's: the two
			// would share bytes, but the header names record 0.
			return twoStoragesEdited(t, func(raw []byte, zip64 func(name string) int) {
				copy(raw[zip64("archive/data/1")+16:][:8], raw[zip64("archive/data/0")+16:][:8])
			})
		}, pytorch.CodeCorruptArchive, "names another record"},
		{"storage record twice", func(t *testing.T) string {
			// Two records of one name: readers of ZIP pick either, so the
			// archive is refused rather than read one way.
			return writeArchive(t, good, map[string]int{"0": 16}, testmodel.ZipEntry{Name: "archive/data/0", Data: make([]byte, 16)})
		}, pytorch.CodeCorruptArchive, "archive/data/0 appears twice"},
		{"tensor named twice", func(t *testing.T) string {
			return writeArchive(t, stateDict(func(p *testmodel.Pickle) {
				p.Str("w").Tensor("0", 4, 0, []int{4}, []int{1})
				p.Str("w").Tensor("1", 4, 0, []int{4}, []int{1})
			}), map[string]int{"0": 16, "1": 16})
		}, pytorch.CodeDuplicate, "tensor w is named twice"},
		{"ZIP64 field too short", func(t *testing.T) string {
			// Record 0's ZIP64 field says 8 bytes: its size, not the
			// compressed size and offset its header says it holds.
			return twoStoragesEdited(t, func(raw []byte, zip64 func(name string) int) {
				binary.LittleEndian.PutUint16(raw[zip64("archive/data/0")-2:], 8)
			})
		}, pytorch.CodeCorruptArchive, "ZIP64 field is too short"},
		{"ZIP64 field past its header", func(t *testing.T) string {
			return twoStoragesEdited(t, func(raw []byte, zip64 func(name string) int) {
				binary.LittleEndian.PutUint16(raw[zip64("archive/data/0")-2:], 200)
			})
		}, pytorch.CodeCorruptArchive, "runs past its header"},
		{"record count", func(t *testing.T) string {
			return twoStoragesEdited(t, func(raw []byte, _ func(string) int) {
				end64 := bytes.LastIndex(raw, []byte("PK\x06\x06"))
				binary.LittleEndian.PutUint64(raw[end64+32:], 5)
			})
		}, pytorch.CodeCorruptArchive, "where its end record declares 5"},
		{"directory past the end", func(t *testing.T) string {
			return twoStoragesEdited(t, func(raw []byte, _ func(string) int) {
				end64 := bytes.LastIndex(raw, []byte("PK\x06\x06"))
				binary.LittleEndian.PutUint64(raw[end64+48:], 1<<40)
			})
		}, pytorch.CodeCorruptArchive, "does not lie before its end record"},
		{"no end record", func(t *testing.T) string {
			return twoStoragesEdited(t, func(raw []byte, _ func(string) int) {
				copy(raw[bytes.LastIndex(raw, []byte("PK\x05\x06")):], "XX")
			})
		}, pytorch.CodeCorruptArchive, "no end of central directory record"},
		{"expanded view", func(t *testing.T) string {
			return writeArchive(t, stateDict(func(p *testmodel.Pickle) { p.Str("w").Tensor("0", 1, 0, []int{1000000, 4}, []int{0, 0}) }), map[string]int{"0": 4})
		}, pytorch.CodeUnsupported, "repeats elements"},
		{"many references to one tensor", func(t *testing.T) string {
			pk := testmodel.NewPickle().Op(']', '(').Tensor("0", 1, 0, []int{1}, []int{1})
			for range 100000 {
				pk.Op('2')
			}
			return writeArchive(t, pk.Op('e', '.').B, map[string]int{"0": 4})
		}, pytorch.CodeLimit, "more than"},
		{"no tensors", func(t *testing.T) string {
			return writeArchive(t, stateDict(func(p *testmodel.Pickle) { p.Str("lr").Int(3) }), nil)
		}, pytorch.CodeNoTensors, "holds no tensor"},
		{"no data.pkl", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "x.bin")
			require.NoError(t, testmodel.WriteTorchZip(path, []testmodel.ZipEntry{{Name: "archive/other", Data: []byte("x")}}))
			return path
		}, pytorch.CodeMissingRecord, "data.pkl"},
		{"not a checkpoint", func(t *testing.T) string {
			path := filepath.Join(t.TempDir(), "x.bin")
			require.NoError(t, os.WriteFile(path, []byte("hello, world"), 0o644))
			return path
		}, pytorch.CodeNotPyTorch, "not a PyTorch checkpoint"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := pytorch.Open(c.path(t))
			require.Error(t, err)
			assert.ErrorIs(t, err, c.code)
			assert.ErrorIs(t, err, pytorch.ErrFormat)
			assert.Contains(t, err.Error(), c.contains)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
	// The good one opens: the table's failures are the faults put in.
	f, err := pytorch.Open(writeArchive(t, good, map[string]int{"0": 16}))
	require.NoError(t, err)
	f.Close()
}

// TestTruncated cuts a checkpoint torch wrote at every length: each is
// refused with a code, none panics.
func TestTruncated(t *testing.T) {
	raw, err := os.ReadFile("testdata/realworld/Herutriana44+TinyPeLLM/pytorch_model.bin")
	require.NoError(t, err)
	legacy, err := os.ReadFile("testdata/realworld/StianHanssen+CNN-Fixations-PyTorch/mnist_cnn.pt")
	require.NoError(t, err)
	for _, src := range [][]byte{raw, legacy} {
		for _, n := range []int{0, 10, 100, 1000, len(src) / 2, len(src) - 100, len(src) - 1} {
			_, err := pytorch.NewFile(&testmodel.MemFile{B: src[:n]})
			require.Error(t, err, n)
			assert.ErrorIs(t, err, pytorch.ErrFormat, "%d: %v", n, err)
		}
	}
}

// TestRealWorld: files no one here wrote (testdata/realworld/SOURCES.md).
func TestRealWorld(t *testing.T) {
	for _, c := range []struct {
		path    string
		code    pytorch.Code
		tensors int
		say     string
	}{
		{"Herutriana44+TinyPeLLM/pytorch_model.bin", "", 24, ""},
		{"StianHanssen+CNN-Fixations-PyTorch/mnist_cnn.pt", "", 8, ""},
		{"LawrenceMMStewart+Adversarial_Attack/Stored_Weights/LeNet_Weights.pt", "", 8, ""},
		{"CodyRichter+Compsci-528-DeFault-Data-Classification/model.pt", pytorch.CodeTorchScript, 0, "TorchScript archive (torch.jit.save)"},
		{"CodyRichter+Compsci-528-DeFault-Data-Classification/model.ptl", pytorch.CodeTorchScript, 0, "lite interpreter"},
		{"phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/optimizer.pt", "", 36, ""},
		{"phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/rng_state.pth", pytorch.CodeForbidden, 0, "numpy._core.multiarray._reconstruct"},
		{"phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/scheduler.pt", pytorch.CodeNoTensors, 0, "holds no tensor"},
		{"phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3/training_args.bin", pytorch.CodeForbidden, 0, "transformers.training_args.TrainingArguments"},
	} {
		t.Run(c.path, func(t *testing.T) {
			f, err := pytorch.Open(filepath.Join("testdata/realworld", c.path))
			if c.code != "" {
				require.ErrorIs(t, err, c.code)
				assert.Contains(t, err.Error(), c.say)
				assert.NotContains(t, err.Error(), "\n")
				return
			}
			require.NoError(t, err)
			defer f.Close()
			assert.Len(t, f.Tensors(), c.tensors)
			for _, tt := range f.Tensors() {
				b, err := io.ReadAll(tt.Reader())
				require.NoError(t, err, tt.Name)
				assert.Len(t, b, int(tt.Length))
			}
		})
	}
}

func ExampleOpen() {
	f, err := pytorch.Open("testdata/realworld/StianHanssen+CNN-Fixations-PyTorch/mnist_cnn.pt")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	for _, t := range f.Tensors()[:2] {
		fmt.Println(t.Name, t.DType, tensor.FormatShape(t.Shape))
	}
	// Output:
	// conv1.bias F32 [20]
	// conv1.weight F32 [20, 1, 5, 5]
}

// countingFile counts the reads of a local file. It offers none of the
// local file's fast ways (fd, mapping), so that its storages are put
// behind a check as a plain file's are.
type countingFile struct {
	lf    *source.LocalFile
	reads int
}

func (c *countingFile) ReadAt(p []byte, off int64) (int, error) {
	c.reads++
	return c.lf.ReadAt(p, off)
}
func (c *countingFile) Name() string       { return c.lf.Name() }
func (c *countingFile) Size() int64        { return c.lf.Size() }
func (c *countingFile) ModTime() time.Time { return c.lf.ModTime() }
func (c *countingFile) Mode() fs.FileMode  { return c.lf.Mode() }
func (c *countingFile) Close() error       { return c.lf.Close() }

// TestOpenReads: opening a local checkpoint laid out as torch.save does
// makes a few reads, whatever its number of storages — the head, data.pkl
// with the records after it, the tail, and the local headers of the
// first storage and the first past 4 GB (lazy.go); the other local
// headers are read on the first read of a tensor, once. Before the
// windows, opening the first shard of the 7B layout read the file 183
// times, and TinyPeLLM 32; with the windows and every local header read
// at open, 173 and 15.
func TestOpenReads(t *testing.T) {
	dir := t.TempDir()
	_, err := testmodel.WriteRealShardedTorch(dir, "testdata/mistral-7b-sft")
	require.NoError(t, err)
	for _, path := range []string{
		filepath.Join(dir, "pytorch_model-00001-of-000002.bin"),
		"testdata/realworld/Herutriana44+TinyPeLLM/pytorch_model.bin",
	} {
		lf, err := source.OpenLocal(path)
		require.NoError(t, err)
		src := &countingFile{lf: lf}
		f, err := pytorch.NewFile(src)
		require.NoError(t, err)
		assert.LessOrEqual(t, src.reads, 5, "%s: %d reads for %d tensors", path, src.reads, len(f.Tensors()))
		left, _ := pytorch.LazyHeaders(f)
		assert.Greater(t, left, len(f.Tensors())/2, path)
		// The first read of a tensor reads the headers left (one read
		// each at most), the next reads none.
		before := src.reads
		tt := f.Tensors()[0]
		_, err = tt.File.ReadAt(make([]byte, 1), tt.Offset)
		require.NoError(t, err)
		assert.LessOrEqual(t, src.reads-before, left+1, path)
		before = src.reads
		_, err = tt.File.ReadAt(make([]byte, 1), tt.Offset)
		require.NoError(t, err)
		assert.Equal(t, 1, src.reads-before, path)
		f.Close()
	}
}

// TestMemo: the memo's indices in any order — a PUT past the next
// index, the next ones, a PUT over an index stored out of order, and
// MEMOIZE, which stores at the count of entries — give what Python's
// pickle gives: the tensors named "a", "b" and "c".
func TestMemo(t *testing.T) {
	p := testmodel.NewPickle().Global("collections", "OrderedDict").Op(')', 'R', '(')
	p.Str("x").Op('q', 1, '0') // memo[1] = "x", out of order
	p.Str("a").Op('q', 0, '0') // memo[0] = "a"
	p.Str("b").Op('q', 1, '0') // memo[1] = "b", over "x"
	p.Str("c").Op(0x94, '0')   // memo[2] = "c": two entries before it
	p.Op('h', 0).Tensor("0", 1, 0, []int{1}, []int{1})
	p.Op('h', 1).Tensor("1", 1, 0, []int{1}, []int{1})
	p.Op('h', 2).Tensor("2", 1, 0, []int{1}, []int{1})
	path := writeArchive(t, p.Op('u', '.').B, map[string]int{"0": 4, "1": 4, "2": 4})
	f, err := pytorch.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var names []string
	for _, tt := range f.Tensors() {
		names = append(names, tt.Name)
	}
	assert.Equal(t, []string{"a", "b", "c"}, names)
}

// twoStoragesEdited writes a checkpoint of two 4-element tensors, "a" in
// storage 0 and "b" in storage 1, lets edit change its bytes, and writes
// them back. zip64(name) is the offset of the named record's ZIP64 extra
// field's values in the central directory: its sizes (uncompressed, then
// compressed), then its local header's offset.
func twoStoragesEdited(t *testing.T, edit func(raw []byte, zip64 func(name string) int)) string {
	pk := stateDict(func(p *testmodel.Pickle) {
		p.Str("a").Tensor("0", 4, 0, []int{4}, []int{1})
		p.Str("b").Tensor("1", 4, 0, []int{4}, []int{1})
	})
	path := writeArchive(t, pk, nil, testmodel.ZipEntry{Name: "archive/data/0", Data: make([]byte, 16)}, testmodel.ZipEntry{Name: "archive/data/1", Data: make([]byte, 16)})
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	cd := bytes.Index(raw, []byte("PK\x01\x02"))
	edit(raw, func(name string) int {
		i := bytes.Index(raw[cd:], []byte(name))
		require.GreaterOrEqual(t, i, 0)
		return cd + i + len(name) + 4
	})
	require.NoError(t, os.WriteFile(path, raw, 0o644))
	return path
}

// lazyArchive writes, as torch.save lays it out, a checkpoint of four
// tensors "t0".."t3", each a storage of 64 KB whose bytes are its index:
// large enough that the local headers of all but the first lie in no
// window read at open.
func lazyArchive(t *testing.T) (string, []testmodel.ZipEntry) {
	const n = 16 << 10 // float32 elements
	pk := stateDict(func(p *testmodel.Pickle) {
		for i := range 4 {
			p.Str(fmt.Sprintf("t%d", i)).Tensor(fmt.Sprint(i), n, 0, []int{n}, []int{1})
		}
	})
	recs := []testmodel.ZipEntry{{Name: "archive/data.pkl", Data: pk}, {Name: "archive/byteorder", Data: []byte("little")}}
	for i := range 4 {
		recs = append(recs, testmodel.ZipEntry{Name: fmt.Sprintf("archive/data/%d", i), Data: bytes.Repeat([]byte{byte(i + 1)}, 4*n)})
	}
	path := filepath.Join(t.TempDir(), "x.bin")
	require.NoError(t, testmodel.WriteTorchZip(path, recs))
	return path, recs
}

// TestLazyHeaders: the storages' local headers of a checkpoint laid out
// as torch.save does are not read at open (their offsets are predicted),
// and the bytes read through the tensors are the storages'.
func TestLazyHeaders(t *testing.T) {
	path, _ := lazyArchive(t)
	f, err := pytorch.Open(path)
	require.NoError(t, err)
	defer f.Close()
	left, local := pytorch.LazyHeaders(f)
	assert.Equal(t, 3, left, "the headers but the first are checked on the first read")
	assert.True(t, local, "a local file keeps its fd and mapping")
	for i, tt := range f.Tensors() {
		b := make([]byte, tt.Length)
		_, err := tt.File.ReadAt(b, tt.Offset)
		require.NoError(t, err)
		assert.Equal(t, bytes.Repeat([]byte{byte(i + 1)}, len(b)), b, tt.Name)
		assert.Same(t, f.Source(), source.BaseOf(tt.File), "the tensor's base is the checkpoint")
	}
}

// TestLazyBadHeader: a local header left unread at open that does not
// match its central directory record — its extra field longer (the data
// elsewhere than predicted), its signature or its name damaged — fails
// every way to the tensors' bytes with one line naming the record,
// before any byte is served: ReadAt, the mapping, the change check the
// mount makes before each read, and the fd (an invalid one).
func TestLazyBadHeader(t *testing.T) {
	for _, c := range []struct {
		name     string
		damage   func(h []byte)
		contains string
	}{
		{"extra field longer", func(h []byte) { binary.LittleEndian.PutUint16(h[28:], binary.LittleEndian.Uint16(h[28:])+64) }, "puts its data at"},
		{"signature", func(h []byte) { h[3] = 0 }, "signature"},
		{"name", func(h []byte) { h[30+len("archive/data/")] = '7' }, "names another record"},
		{"compressed", func(h []byte) { h[8] = 8 }, "compressed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			path, _ := lazyArchive(t)
			raw, err := os.ReadFile(path)
			require.NoError(t, err)
			hdr := bytes.Index(raw, []byte("archive/data/2")) - 30
			require.Equal(t, "PK\x03\x04", string(raw[hdr:hdr+4]))
			c.damage(raw[hdr:])
			require.NoError(t, os.WriteFile(path, raw, 0o644))

			f, err := pytorch.Open(path)
			require.NoError(t, err, "a check reads no header it does not need")
			defer f.Close()
			left, _ := pytorch.LazyHeaders(f)
			require.Equal(t, 3, left)
			check := func(err error) {
				t.Helper()
				require.Error(t, err)
				assert.ErrorIs(t, err, pytorch.CodeCorruptArchive)
				assert.ErrorIs(t, err, pytorch.ErrFormat)
				assert.Contains(t, err.Error(), "archive/data/2")
				assert.Contains(t, err.Error(), c.contains)
				assert.NotContains(t, err.Error(), "\n")
			}
			for _, tt := range f.Tensors() { // t0's header was checked at open: its bytes are refused too
				_, err := tt.File.ReadAt(make([]byte, 4), tt.Offset)
				check(err)
				_, err = tt.File.(source.Mappable).Mapping()
				check(err)
				check(tt.File.(source.Checker).Changed())
				assert.Equal(t, ^uintptr(0), tt.File.(source.Spliceable).Fd())
			}
		})
	}
}

// TestForeignLayout: a valid archive whose records are not laid out as
// torch.save lays them (repacked by another ZIP writer: no alignment)
// is read as before: every local header at open, the same tensors.
func TestForeignLayout(t *testing.T) {
	path, recs := lazyArchive(t)
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, r := range recs {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: r.Name, Method: zip.Store})
		require.NoError(t, err)
		_, err = w.Write(r.Data)
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	repacked := filepath.Join(t.TempDir(), "y.bin")
	require.NoError(t, os.WriteFile(repacked, buf.Bytes(), 0o644))

	want, err := pytorch.Open(path)
	require.NoError(t, err)
	defer want.Close()
	got, err := pytorch.Open(repacked)
	require.NoError(t, err)
	defer got.Close()
	left, _ := pytorch.LazyHeaders(got)
	assert.Zero(t, left, "not torch.save's layout: every header read at open")
	require.Len(t, got.Tensors(), 4)
	for i, tt := range got.Tensors() {
		assert.Equal(t, bytesOf(t, want.Tensors()[i]), bytesOf(t, tt), tt.Name)
		assert.Equal(t, strings.Repeat(string(rune(i+1)), int(tt.Length)), bytesOf(t, tt), tt.Name)
	}
}

func bytesOf(t *testing.T, tt *tensor.Tensor) string {
	b := make([]byte, tt.Length)
	_, err := tt.File.ReadAt(b, tt.Offset)
	require.NoError(t, err)
	return string(b)
}

// TestNestedRebuild: _rebuild_from_type_v2(func, new_type, args, state)
// applies func to args, and a stream can make args hold the call itself
// (a list that contains itself, 60 bytes) or nest the calls as deep as
// its length allows: each is refused with a code, not a stack overflow.
func TestNestedRebuild(t *testing.T) {
	rt := func(p *testmodel.Pickle) *testmodel.Pickle { return p.Global("torch._tensor", "_rebuild_from_type_v2") }
	selfList := rt(testmodel.NewPickle()).Op('q', 0).Global("torch", "Tensor").Op('q', 1, '0', '0').
		Op(']', 'q', 2, '(', 'h', 0, 'h', 1, 'h', 2, 'N', 'e'). // L = [rt, Tensor, L, None]
		Op('0', 'h', 0, 'h', 2, 'R', '.').B                     // rt(*L)
	// T0 = (); Tk+1 = (rt, Tensor, Tk, None); rt(*Tn).
	deep := rt(testmodel.NewPickle()).Op('q', 0).Global("torch", "Tensor").Op('q', 1, '0', '0', ')', 'q', 2)
	for range 100000 {
		// (rt, Tensor, <memo 2>, None), memoized as 2 in its turn
		deep.Op('(', 'h', 0, 'h', 1, 'h', 2, 'N', 't', 'q', 2, '0')
	}
	deep.Op('h', 0, 'h', 2, 'R', '.')
	for _, c := range []struct {
		name   string
		pickle []byte
		code   pytorch.Code
		detail string
	}{
		{"args that hold the call", selfList, pytorch.CodeInvalidPickle, "not a tuple of arguments"},
		{"calls nested 100,000 deep", deep.B, pytorch.CodeLimit, "nests calls more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := pytorch.Open(writeArchive(t, c.pickle, nil))
			require.Error(t, err)
			assert.ErrorIs(t, err, c.code)
			assert.Contains(t, err.Error(), c.detail)
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestAllocationBudget: a stream that refers to one large value it holds
// again and again (through its memo), each time for a few bytes, would
// make the reader allocate far more than the file's size: each kind is
// refused with limit_exceeded once it passes four times the stream.
func TestAllocationBudget(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	repeat := func(p *testmodel.Pickle, n int, each ...byte) *testmodel.Pickle {
		for range n {
			p.Op(each...)
		}
		return p
	}
	// _codecs.encode(s, "latin1") of one memoized MiB, 64 times.
	encode := testmodel.NewPickle().Global("_codecs", "encode").Op('q', 0, '0').Str(big).Op('q', 1, '0').Str("latin1").Op('q', 2, '0', ']', '(')
	repeat(encode, 64, 'h', 0, 'h', 1, 'h', 2, 0x86, 'R').Op('e', '.')
	// OrderedDict(d) of one memoized dict of 100,000 items, 64 times.
	dict := testmodel.NewPickle().Op('}', 'q', 0, '(')
	for i := range 100000 {
		dict.Int(i).Op('N')
	}
	dict.Op('u', '0').Global("collections", "OrderedDict").Op('q', 1, '0', ']', '(')
	repeat(dict, 64, 'h', 1, 'h', 0, 0x85, 'R').Op('e', '.')
	// set(l) of one memoized list of 100,000 items, 64 times.
	set := testmodel.NewPickle().Op(']', 'q', 0, '(')
	repeat(set, 100000, 'N')
	set.Op('e', '0').Global("builtins", "set").Op('q', 1, '0', ']', '(')
	repeat(set, 64, 'h', 1, 'h', 0, 0x85, 'R').Op('e', '.')
	// 64 tensors whose shape and strides are one memoized tuple of
	// 100,000 ones.
	shape := testmodel.NewPickle().Op('(')
	repeat(shape, 100000, 'K', 1).Op('t', 'q', 0, '0').Global("torch._utils", "_rebuild_tensor_v2").Op('q', 1, '0').
		Op('(').Str("storage").Global("torch", "FloatStorage").Str("0").Str("cpu").Int(1).Op('t', 'Q', 'q', 2, '0', '}', '(')
	for i := range 64 {
		shape.Str(fmt.Sprint(i)).Op('h', 1, '(', 'h', 2, 'K', 0, 'h', 0, 'h', 0, 0x89, 'N', 't', 'R')
	}
	shape.Op('u', '.')
	// {"p": {K: t, K: t, …}}: one memoized key of a MiB names 64 tensors
	// "p.K", each a new MiB.
	names := testmodel.NewPickle().Op('}').Str("p").Op('}').Str(big).Op('q', 0).Tensor("0", 1, 0, []int{1}, []int{1}).Op('q', 1, 's', '(')
	repeat(names, 64, 'h', 0, 'h', 1).Op('u', 's', '.')
	for _, c := range []struct {
		name   string
		pickle []byte
	}{
		{"a memoized string encoded again and again", encode.B},
		{"a memoized dict copied again and again", dict.B},
		{"a memoized list made a set again and again", set.B},
		{"a memoized shape read again and again", shape.B},
		{"a memoized key naming many tensors", names.B},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := pytorch.Open(writeArchive(t, c.pickle, map[string]int{"0": 4}))
			require.Error(t, err)
			assert.ErrorIs(t, err, pytorch.CodeLimit)
			assert.Contains(t, err.Error(), "would allocate more than")
			assert.NotContains(t, err.Error(), "\n")
		})
	}
}

// TestStridedBudget: 64 transposed views of one 1 MiB storage, each read
// whole (8 at a time), are laid out right, and what they keep in memory
// while the file is open is one budget of the file's size, not a MiB
// each: the least recently read are evicted, and gathered again when
// read again.
func TestStridedBudget(t *testing.T) {
	const n, views = 512, 64
	storage := make([]byte, 4*n*n)
	for i := range n * n {
		binary.LittleEndian.PutUint32(storage[4*i:], uint32(i))
	}
	sd := stateDict(func(p *testmodel.Pickle) {
		for v := range views {
			p.Str(fmt.Sprintf("t%02d", v)).Tensor("0", n*n, 0, []int{n, n}, []int{1, n})
		}
	})
	path := filepath.Join(t.TempDir(), "views.pt")
	require.NoError(t, testmodel.WriteTorchZip(path, []testmodel.ZipEntry{{Name: "archive/data.pkl", Data: sd},
		{Name: "archive/byteorder", Data: []byte("little")}, {Name: "archive/data/0", Data: storage}}))
	want := make([]byte, 4*n*n)
	for r := range n {
		for c := range n {
			binary.LittleEndian.PutUint32(want[4*(r*n+c):], uint32(c*n+r))
		}
	}
	f, err := pytorch.Open(path)
	require.NoError(t, err)
	defer f.Close()
	require.Len(t, f.Tensors(), views)
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for range 2 { // the second round reads evicted views again
		var wg sync.WaitGroup
		errs := make(chan error, views)
		sem := make(chan struct{}, 8)
		for _, tt := range f.Tensors() {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				got, err := io.ReadAll(tt.Reader())
				if err == nil && !bytes.Equal(got, want) {
					err = fmt.Errorf("%s: not the transpose of its storage", tt.Name)
				}
				errs <- err
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	}
	kept := int64(heap()) - int64(before)
	t.Logf("64 views of a %d-byte storage, each read twice, keep %d bytes", len(storage), kept)
	assert.Less(t, kept, int64(8<<20), "the views keep %d bytes of a %d-byte file", kept, len(storage))
	runtime.KeepAlive(f)
}
