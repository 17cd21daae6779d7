package fusefs

import (
	"errors"
	"log"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/source"
)

// checkFiles compares every entry of files/ with the model file beside
// model, by read(2) and by mmap(2).
func checkFiles(t *testing.T, mnt, model string) {
	t.Helper()
	names, err := os.ReadDir(filepath.Join(mnt, "files"))
	require.NoError(t, err)
	require.NotEmpty(t, names)
	for _, n := range names {
		want, err := os.ReadFile(filepath.Join(model, n.Name()))
		require.NoError(t, err)
		p := filepath.Join(mnt, "files", n.Name())
		got, err := os.ReadFile(p)
		require.NoError(t, err)
		assert.Equal(t, want, got, n.Name())

		f, err := os.Open(p)
		require.NoError(t, err)
		m, err := unix.Mmap(int(f.Fd()), 0, len(want), unix.PROT_READ, unix.MAP_SHARED)
		require.NoError(t, err, "mmap %s", n.Name())
		assert.Equal(t, want, append([]byte(nil), m...), "mmap of %s", n.Name())
		require.NoError(t, unix.Munmap(m))
		require.NoError(t, f.Close())
	}
}

// checkSmallFiles reads small files of every kind twice: the second read
// comes from the kernel's page cache, whichever way OPEN is answered.
func checkSmallFiles(t *testing.T, mnt string) {
	t.Helper()
	for i := 0; i < 2; i++ {
		for p, want := range map[string]string{
			"layers/0/self_attn/q_proj/shape": "[64, 32]\n",
			"layers/0/self_attn/q_proj/dtype": "BF16\n",
			"norm/shape":                      "[32]\n",
		} {
			b, err := os.ReadFile(filepath.Join(mnt, p))
			require.NoError(t, err)
			assert.Equal(t, want, string(b), p)
		}
		b, err := os.ReadFile(filepath.Join(mnt, "verdict"))
		require.NoError(t, err)
		assert.Contains(t, string(b), "✓ all 25 expected tensors present")
	}
}

// TestPassthrough mounts with Options.Passthrough as root: files/ is
// byte for byte the model's files and the daemon serves none of its
// READs (the kernel reads the model files itself), while every other
// file still reads right. Where the kernel refuses passthrough (not root,
// no CONFIG_FUSE_PASSTHROUGH: CI's machine may differ) it checks that
// files/ is served by splicing, right, and skips the rest, also under
// FSMOUNT_REQUIRE_FUSE.
func TestPassthrough(t *testing.T) {
	model := filepath.Join("..", "testdata", "tiny-qwen3")
	mnt, r := mountDirOpts(t, model, &Options{Passthrough: true})
	tr := liveTree(t, mnt)
	checkFiles(t, mnt, model)
	checkSmallFiles(t, mnt)
	for _, tt := range r.Model.Tensors() {
		got, err := os.ReadFile(filepath.Join(mnt, "by-name", tt.Name, "data"))
		require.NoError(t, err)
		assert.Equal(t, testmodel.Bytes(tt), got, tt.Name)
	}
	if err := tr.passthroughErr; err != nil {
		assert.NotZero(t, tr.wholeReads.Load(), "files/ is served by the daemon")
		assert.LessOrEqual(t, tr.opens.Load(), int64(1), "no-open mode: one OPEN, answered ENOSYS")
		t.Skipf("SKIPPING the passthrough checks: %v (files/ was served by splicing, and read right)", err)
	}
	assert.Zero(t, tr.wholeReads.Load(), "with passthrough the kernel reads files/ itself")
	assert.Greater(t, tr.opens.Load(), int64(10), "open mode: every open is an OPEN")
}

// TestPassthroughRefused: a kernel that refuses passthrough (here: not
// negotiated at INIT) leaves the mount exactly as without it: no-open
// mode, files/ spliced and right, and the reason logged.
func TestPassthroughRefused(t *testing.T) {
	model := filepath.Join("..", "testdata", "tiny-qwen3")
	var logged syncBuffer
	mnt, _ := mountDirOpts(t, model, &Options{Passthrough: true, refusePassthrough: true, Logger: log.New(&logged, "", 0)})
	tr := liveTree(t, mnt)
	require.Error(t, tr.passthroughErr)
	checkFiles(t, mnt, model)
	checkSmallFiles(t, mnt)
	assert.NotZero(t, tr.wholeReads.Load(), "files/ is served by the daemon")
	assert.LessOrEqual(t, tr.opens.Load(), int64(1), "no-open mode: one OPEN, answered ENOSYS")
	assert.Contains(t, logged.String(), "kernel passthrough unavailable")
	assert.Contains(t, logged.String(), "files/ is served by the daemon")
}

// syncBuffer is a log's destination that the test reads while the
// daemon may write.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestPassthroughChangedFile: once a model file is rewritten in place,
// an open of it in files/ fails with EIO, as a read does without
// passthrough: the kernel would read bytes the tree does not describe.
func TestPassthroughChangedFile(t *testing.T) {
	model := testmodel.TinyDir(t, nil)
	mnt, _ := mountDirOpts(t, model, &Options{Passthrough: true})
	tr := liveTree(t, mnt)
	if tr.passthroughErr != nil {
		t.Skipf("SKIPPING: %v", tr.passthroughErr)
	}
	p := filepath.Join(mnt, "files", "model.safetensors")
	_, err := os.ReadFile(p)
	require.NoError(t, err)
	file := filepath.Join(model, "model.safetensors")
	later := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(file, later, later))
	_, err = os.Open(p)
	assert.ErrorIs(t, err, syscall.EIO)
	b, err := os.ReadFile(filepath.Join(mnt, "files", "config.json"))
	require.NoError(t, err, "the unchanged file still opens")
	want, err := os.ReadFile(filepath.Join(model, "config.json"))
	require.NoError(t, err)
	assert.Equal(t, want, b)
}

// fakeBacking is a kernel for probePassthrough.
type fakeBacking struct {
	flags      uint64
	refuse     syscall.Errno
	registered []int32
	released   []int32
}

func (f *fakeBacking) KernelSettings() *fuse.InitIn {
	return &fuse.InitIn{Flags: uint32(f.flags), Flags2: uint32(f.flags >> 32)}
}

func (f *fakeBacking) RegisterBackingFd(m *fuse.BackingMap) (int32, syscall.Errno) {
	if f.refuse != 0 {
		return 0, f.refuse
	}
	id := int32(len(f.registered) + 1)
	f.registered = append(f.registered, id)
	return id, 0
}

func (f *fakeBacking) UnregisterBackingFd(id int32) syscall.Errno {
	f.released = append(f.released, id)
	return 0
}

// TestProbePassthrough: passthrough is used only when the kernel offers
// it and takes every local model file, each given back at once.
func TestProbePassthrough(t *testing.T) {
	dir := testmodel.TinyDir(t, nil)
	var files []source.File
	for _, n := range []string{"config.json", "model.safetensors"} {
		f, err := source.OpenLocal(filepath.Join(dir, n))
		require.NoError(t, err)
		t.Cleanup(func() { f.Close() })
		files = append(files, f)
	}
	k := &fakeBacking{flags: fuse.CAP_PASSTHROUGH}
	require.NoError(t, probePassthrough(k, files))
	assert.Equal(t, []int32{1, 2}, k.registered)
	assert.Equal(t, k.registered, k.released)

	err := probePassthrough(&fakeBacking{}, files)
	assert.ErrorIs(t, err, errNoKernelPassthrough)

	err = probePassthrough(&fakeBacking{flags: fuse.CAP_PASSTHROUGH, refuse: syscall.EPERM}, files)
	assert.ErrorIs(t, err, syscall.EPERM)
	var pe *passthroughError
	require.True(t, errors.As(err, &pe))
	assert.Equal(t, files[0].Name(), pe.file)
	if os.Geteuid() != 0 {
		assert.Contains(t, err.Error(), "CAP_SYS_ADMIN")
	} else {
		assert.Contains(t, err.Error(), "did not enable it")
	}

	err = probePassthrough(&fakeBacking{flags: fuse.CAP_PASSTHROUGH, refuse: syscall.ELOOP}, files)
	assert.Contains(t, err.Error(), "overlayfs")

	err = probePassthrough(k, nil)
	assert.ErrorIs(t, err, errNoLocalFiles)
}
