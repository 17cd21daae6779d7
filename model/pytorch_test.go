package model_test

import (
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRealPyTorchIndex: the real mistral-7b-sft index, rebuilt as sparse
// torch.save shards, opens as one model of 291 tensors whose bytes match
// the index's total_size, checks clean, and is served as two virtual
// safetensors shards and their index.
func TestRealPyTorchIndex(t *testing.T) {
	dir := t.TempDir()
	total, err := testmodel.WriteRealShardedTorch(dir, "../pytorch/testdata/mistral-7b-sft")
	require.NoError(t, err)
	assert.EqualValues(t, 14483464192, total)
	m, r := testmodel.Checked(t, dir)
	assert.Equal(t, model.FormatPyTorch, m.Format)
	assert.Len(t, m.Tensors(), 291)
	require.NotNil(t, m.Index)
	assert.Empty(t, r.Problems)
	virtual, err := m.VirtualFiles()
	require.NoError(t, err)
	require.Len(t, virtual, 3)
	assert.Equal(t, model.IndexName, virtual[2].Name())
	// The virtual shards are valid safetensors files whose tensors are
	// the checkpoint's.
	n := 0
	for _, v := range virtual[:2] {
		f, err := safetensors.NewFile(v)
		require.NoError(t, err, v.Name())
		for _, tt := range f.Tensors() {
			assert.Equal(t, m.Tensor(tt.Name).Shape, tt.Shape)
			assert.Equal(t, m.Tensor(tt.Name).Length, tt.Length)
			n++
		}
	}
	assert.Equal(t, 291, n)
	// Reading a tensor checks the local headers left unread at open
	// (pytorch/lazy.go), those past 4 GB among them: their offsets were
	// predicted right.
	for _, tt := range m.Tensors() {
		_, err := tt.File.ReadAt(make([]byte, 1), tt.Offset+tt.Length-1)
		require.NoError(t, err, tt.Name)
	}
}

// TestPyTorchErrors: a missing shard, or a broken shard, fails the open
// with one line naming the file.
func TestPyTorchErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := testmodel.WriteRealShardedTorch(dir, "../pytorch/testdata/mistral-7b-sft")
	require.NoError(t, err)
	shard := filepath.Join(dir, "pytorch_model-00002-of-000002.bin")
	require.NoError(t, writeFile(shard, []byte("not a zip")))
	_, err = model.Open(dir)
	require.ErrorIs(t, err, pytorch.CodeNotPyTorch)
	assert.Contains(t, err.Error(), "pytorch_model-00002-of-000002.bin")
	require.NoError(t, removeFile(shard))
	_, err = model.Open(dir)
	require.ErrorIs(t, err, safetensors.CodeMissingShard)
	assert.Contains(t, err.Error(), "pytorch_model-00002-of-000002.bin")
}

// BenchmarkCheck7B opens and checks the 291-tensor Mistral 7B layout as
// .bin shards and as safetensors shards in one run, and reports the
// ratio of wall time and of CPU time (issue #24 wants it under 2).
func BenchmarkCheck7B(b *testing.B) {
	st, pt := b.TempDir(), b.TempDir()
	_, err := testmodel.WriteRealShardedTorch(pt, "../pytorch/testdata/mistral-7b-sft")
	require.NoError(b, err)
	_, err = testmodel.WriteRealShardedTorch(st, "../pytorch/testdata/mistral-7b-sft")
	require.NoError(b, err)
	// The same layout as safetensors: convert through the virtual files.
	m, err := model.Open(pt)
	require.NoError(b, err)
	virtual, err := m.VirtualFiles()
	require.NoError(b, err)
	for _, v := range virtual {
		require.NoError(b, copyVirtual(v, filepath.Join(st, v.Name())))
	}
	m.Close()
	removeBins(b, st)
	check := func(dir string) {
		m, err := model.Open(dir)
		require.NoError(b, err)
		_, err = check.Check(m)
		require.NoError(b, err)
		m.Close()
	}
	// The setup's garbage (the virtual files' copies) is collected and
	// returned to the system before the loop, so that neither side pays
	// for it; the two sides run in turn, each first every other
	// iteration, so that a collection one side's garbage causes falls on
	// either as often.
	runtime.GC()
	debug.FreeOSMemory()
	var tst, tpt, cst, cpt float64
	measure := func(dir string, wall, cpu *float64) {
		c0 := cpuTime()
		*wall += timeIt(func() { check(dir) })
		*cpu += cpuTime() - c0
	}
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			measure(st, &tst, &cst)
			measure(pt, &tpt, &cpt)
		} else {
			measure(pt, &tpt, &cpt)
			measure(st, &tst, &cst)
		}
		i++
	}
	b.ReportMetric(tpt/tst, "bin/safetensors")
	// Each side's wall time per open and check (go run ./bench's row).
	b.ReportMetric(tst/float64(i)*1e3, "safetensors-ms/op")
	b.ReportMetric(tpt/float64(i)*1e3, "bin-ms/op")
	// The CPU time of the process, less sensitive to a loaded machine.
	b.ReportMetric(cpt/cst, "bin/safetensors-cpu")
}

// BenchmarkFirstRead06B reads every tensor's bytes of the sparse real
// Qwen3-0.6B layout (1.5 GB) as a torch.save pytorch_model.bin (its data
// files, the tensors), through its virtual model.safetensors, and as the
// real model.safetensors, in turn, and reports the ratios to the last.
func BenchmarkFirstRead06B(b *testing.B) {
	st := testmodel.Sparse06BDir(b)
	pt := b.TempDir()
	entries, err := testmodel.ReadListing("../testdata/qwen3-0.6b-layout/model.safetensors.tensor-listing.tsv")
	require.NoError(b, err)
	require.NoError(b, testmodel.WriteSparseTorch(filepath.Join(pt, model.PyTorchName), entries))
	require.NoError(b, copyFile(filepath.Join(st, model.ConfigName), filepath.Join(pt, model.ConfigName)))
	mp, err := model.Open(pt)
	require.NoError(b, err)
	defer mp.Close()
	ms, err := model.Open(st)
	require.NoError(b, err)
	defer ms.Close()
	require.Equal(b, len(ms.Tensors()), len(mp.Tensors()))
	virtual, err := mp.VirtualFiles()
	require.NoError(b, err)
	buf := make([]byte, 1<<20)
	readAll := func(r io.ReaderAt, off, n int64) {
		for at := int64(0); at < n; at += int64(len(buf)) {
			k := min(int64(len(buf)), n-at)
			_, err := r.ReadAt(buf[:k], off+at)
			require.NoError(b, err)
		}
	}
	// Each pass starts cold: the files' pages are dropped from the page
	// cache first (posix_fadvise DONTNEED, no privilege needed).
	cold := func() {
		dropCache(b, filepath.Join(st, model.SingleName))
		dropCache(b, filepath.Join(pt, model.PyTorchName))
	}
	var tst, tbin, tvirt float64
	for b.Loop() {
		cold()
		tst += timeIt(func() {
			for _, t := range ms.Tensors() {
				readAll(t.File, t.Offset, t.Length)
			}
		})
		cold()
		tbin += timeIt(func() {
			for _, t := range mp.Tensors() {
				readAll(t.File, t.Offset, t.Length)
			}
		})
		cold()
		tvirt += timeIt(func() {
			v := virtual[0]
			readAll(v, 0, v.Size())
		})
	}
	b.ReportMetric(tbin/tst, "bin/safetensors")
	b.ReportMetric(tvirt/tst, "virtual/safetensors")
}

// TestRealPyTorchDirs: real directories no one here wrote. A Hub-style
// pytorch_model.bin of a custom architecture is opened and listed; a
// trainer's checkpoint folder holds no model weights and says so.
func TestRealPyTorchDirs(t *testing.T) {
	m, r := testmodel.Checked(t, "../pytorch/testdata/realworld/Herutriana44+TinyPeLLM")
	assert.Equal(t, model.FormatPyTorch, m.Format)
	assert.Len(t, m.Tensors(), 24)
	assert.NotNil(t, m.Config)
	assert.Len(t, r.Model.Tensors(), 24)

	_, err := model.Open("../pytorch/testdata/realworld/phuongsky+lora-gpt2-pipeline/outputs/checkpoint-3")
	require.ErrorIs(t, err, model.ErrNoWeights)
}

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }
func removeFile(path string) error          { return os.Remove(path) }

func timeIt(f func()) float64 {
	start := time.Now()
	f()
	return time.Since(start).Seconds()
}

// copyVirtual writes a virtual file out sparsely: the header, then a hole
// over the (all-zero) tensor bytes of a sparse checkpoint.
func copyVirtual(v source.File, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, min(v.Size(), 64<<20))
	if _, err := v.ReadAt(head, 0); err != nil && err != io.EOF {
		return err
	}
	n := 8 + int64(uint64(head[0])|uint64(head[1])<<8|uint64(head[2])<<16|uint64(head[3])<<24)
	if !strings.HasSuffix(path, ".safetensors") {
		n = v.Size()
	}
	if _, err := f.Write(head[:n]); err != nil {
		return err
	}
	return f.Truncate(v.Size())
}

func removeBins(tb testing.TB, dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, "pytorch_model*"))
	for _, n := range names {
		if err := os.Remove(n); err != nil {
			tb.Fatal(err)
		}
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// cpuTime is the process's user and system CPU time, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// dropCache drops a file's clean pages from the page cache.
func dropCache(tb testing.TB, path string) {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		tb.Fatal(err)
	}
}
