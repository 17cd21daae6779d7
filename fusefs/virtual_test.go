package fusefs

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"testing"

	"github.com/hanwen/go-fuse/v2/fuse"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
)

// tinyBin writes the tiny model as a torch.save pytorch_model.bin and
// returns its directory and the bytes its virtual model.safetensors must
// hold: checked here against the safetensors original, tensor by tensor,
// by the header's own offsets.
func tinyBin(t *testing.T) (string, []byte) {
	t.Helper()
	return binOf(t, filepath.Join("..", "testdata", "tiny-qwen3"))
}

// binOf is tinyBin for the safetensors model in tiny.
func binOf(t *testing.T, tiny string) (string, []byte) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, testmodel.ConvertToTorch(tiny, dir))
	m, err := model.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	virtual, err := m.VirtualFiles()
	require.NoError(t, err)
	require.Len(t, virtual, 1)
	want := make([]byte, virtual[0].Size())
	_, err = virtual[0].ReadAt(want, 0)
	require.NoError(t, err)

	orig, err := model.Open(tiny)
	require.NoError(t, err)
	defer orig.Close()
	n := binary.LittleEndian.Uint64(want)
	var hdr map[string]struct {
		Offsets [2]int64 `json:"data_offsets"`
	}
	require.NoError(t, json.Unmarshal(want[8:8+n], &hdr))
	delete(hdr, "__metadata__")
	require.Len(t, hdr, len(orig.Tensors()))
	for _, tt := range orig.Tensors() {
		e, ok := hdr[tt.Name]
		require.True(t, ok, tt.Name)
		require.Equal(t, testmodel.Bytes(tt), want[8+int64(n)+e.Offsets[0]:8+int64(n)+e.Offsets[1]], tt.Name)
	}
	return dir, want
}

// TestVirtualReads reads the virtual model.safetensors of a .bin model
// through the tree's read, the way the kernel asks for it, at offsets
// and lengths that cross the header's end and the tensors' boundaries:
// spliced (the default), from the mapping (--mmap), and from a file
// that lends its bytes (a remote model), and from one that offers none
// of these (copied). Every reply holds exactly the bytes
// asked for.
func TestVirtualReads(t *testing.T) {
	dir, want := tinyBin(t)
	size := int64(len(want))
	lengths := []int64{1, 100, 4096, 8192, 64 << 10, 128 << 10, int64(maxWrite(true))}
	for _, mode := range []string{"splice", "mmap", "lend", "copy"} {
		t.Run(mode, func(t *testing.T) {
			var fsys source.FS = source.Dir(dir)
			switch mode {
			case "lend":
				fsys = &lenders{dir: source.Dir(dir)}
			case "copy":
				fsys = plainFS{source.Dir(dir)}
			}
			m, err := model.OpenFS(dir, fsys, "")
			require.NoError(t, err)
			defer m.Close()
			virtual, err := m.VirtualFiles()
			require.NoError(t, err)
			c := virtualFile(virtual[0])
			require.Equal(t, size, c.size())
			tr := &tree{splice: mode == "splice", logger: log.New(io.Discard, "", 0)}
			dest := make([]byte, maxWrite(false))
			got := make([]byte, maxWrite(false))
			for off := int64(0); off < size; off += 97 {
				for _, n := range lengths {
					n = min(n, size-off)
					r, errno := c.read(tr, dest[:n], off)
					require.Zero(t, errno)
					if pieces(virtual[0], off, n) > 1 {
						// Served the way the mode says, not copied.
						_, spliced := r.(interface{ Stateful() (uintptr, int) })
						_, vector := r.(interface {
							Slices() ([][]byte, fuse.Status)
						})
						_, lent := r.(*lent)
						switch mode {
						case "splice":
							// Spliced, or from the mapping where the pipe
							// buffers would not fit go-fuse's pipe; a read
							// of 128 KiB (the kernel's, as a user) fits.
							require.True(t, spliced || vector && n != 128<<10, "read %d at %d: %T", n, off, r)
						case "mmap":
							require.True(t, vector, "read %d at %d: %T", n, off, r)
						case "lend":
							require.True(t, lent, "read %d at %d: %T", n, off, r)
						case "copy":
							require.False(t, spliced || vector, "read %d at %d: %T", n, off, r)
						}
					}
					require.Equal(t, int(n), r.Size(), "read %d at %d", n, off)
					b, st := r.Bytes(got[:n])
					r.Done()
					require.True(t, st.Ok())
					if !assert.Equal(t, want[off:off+n], b, "read %d at %d", n, off) {
						return
					}
				}
			}
		})
	}
}

// TestVirtualReadsMounted reads the virtual model.safetensors of a
// mounted .bin model with O_DIRECT, so that each read reaches the daemon
// as asked, at every page of the file and with lengths up to the largest
// request: the kernel's readahead sends such reads (128 KiB as a user,
// 1 MiB as root), and a read that began in one tensor and ended in the
// next once came back with the bytes that follow the first tensor in
// the .bin instead of the second tensor's.
func TestVirtualReadsMounted(t *testing.T) {
	dir, want := tinyBin(t)
	for _, mode := range []string{"splice", "mmap"} {
		t.Run(mode, func(t *testing.T) {
			mnt, _ := mountDirOpts(t, dir, &Options{Mmap: mode == "mmap"})
			f, err := os.OpenFile(filepath.Join(mnt, "files", "model.safetensors"), os.O_RDONLY|unix.O_DIRECT, 0)
			require.NoError(t, err)
			defer f.Close()
			size := int64(len(want))
			buf := alignedBuf(t, 1<<20)
			for off := int64(0); off < size; off += 4096 {
				for _, n := range []int{4096, 8192, 64 << 10, 128 << 10, 1 << 20} {
					k, err := unix.Pread(int(f.Fd()), buf[:n], off)
					require.NoError(t, err)
					end := min(off+int64(n), size)
					require.Equal(t, int(end-off), k, "read %d at %d", n, off)
					if !assert.Equal(t, want[off:end], buf[:k], "read %d at %d", n, off) {
						return
					}
				}
			}
		})
	}
}

// TestVirtualReadsSpliced: in splice mode (the default), a read of the
// virtual model.safetensors that crosses tensor boundaries is spliced
// whenever its largest piece holds a whole page (and the read whole
// pages: not the last of the file), even where splicing
// every piece would not fit go-fuse's pipe (a 1 MiB read of root's
// mounts): that piece's whole pages spliced, the rest copied into the
// pipe. The tiny model with tensors of a few hundred KB to 1.3 MB added,
// of lengths that are no multiple of a page, read at offsets that are
// none either, with the kernel's request sizes; every reply holds the
// bytes asked for. Before, such reads were written from the mapping.
func TestVirtualReadsSpliced(t *testing.T) {
	src := t.TempDir()
	require.NoError(t, testmodel.WriteTiny(src, func(ts []testmodel.Tensor) []testmodel.Tensor {
		for i, n := range []uint64{333_331, 75_001, 1_001, 180_017, 3, 262_147} {
			ts = append(ts, testmodel.Tensor{Name: fmt.Sprintf("extra.%d.weight", i), DType: "F32", Shape: []uint64{n}})
		}
		return ts
	}))
	dir, want := binOf(t, src)
	size := int64(len(want))
	m, err := model.Open(dir)
	require.NoError(t, err)
	defer m.Close()
	virtual, err := m.VirtualFiles()
	require.NoError(t, err)
	c := virtualFile(virtual[0])
	tr := &tree{splice: true, logger: log.New(io.Discard, "", 0)}
	dest := make([]byte, maxWrite(false))
	got := make([]byte, maxWrite(false))
	page := int64(os.Getpagesize())
	crossing := 0
	for off := int64(0); off < size; off += 4093 {
		for _, n := range []int64{128 << 10, int64(maxWrite(true))} {
			n = min(n, size-off)
			r, errno := c.read(tr, dest[:n], off)
			require.Zero(t, errno)
			whole := false // the largest file piece holds a whole page
			var largest int64
			k := 0
			virtual[0].(pieced).Pieces(off, n, func(f source.File, at int64, _ []byte, n int64) bool {
				k++
				if f != nil && n > largest {
					largest = n
					whole = (at+n)/page*page-(at+page-1)/page*page >= page
				}
				return true
			})
			if k > 1 && whole && n%page == 0 { // a read at the end of the file may not fit
				crossing++
				_, spliced := r.(interface{ Stateful() (uintptr, int) })
				require.True(t, spliced, "read %d at %d: %T", n, off, r)
			}
			require.Equal(t, int(n), r.Size(), "read %d at %d", n, off)
			b, st := r.Bytes(got[:n])
			r.Done()
			require.True(t, st.Ok())
			require.Equal(t, want[off:off+n], b, "read %d at %d", n, off)
		}
	}
	assert.Greater(t, crossing, 100)
}

// pieces counts the runs of [off, off+n) of a virtual file.
func pieces(f source.File, off, n int64) int {
	k := 0
	f.(pieced).Pieces(off, n, func(source.File, int64, []byte, int64) bool { k++; return true })
	return k
}

// alignedBuf is n bytes at a page boundary, as O_DIRECT wants.
func alignedBuf(t *testing.T, n int) []byte {
	b, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	require.NoError(t, err)
	t.Cleanup(func() { unix.Munmap(b) })
	return b
}

// plainFS opens files that offer none of the fast paths (no fd, no
// mapping, no lending), so that fusefs must copy.
type plainFS struct{ source.Dir }

func (p plainFS) Open(name string) (source.File, error) {
	f, err := p.Dir.Open(name)
	if err != nil {
		return nil, err
	}
	return struct{ source.File }{f}, nil
}
