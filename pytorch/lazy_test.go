package pytorch_test

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/pytorch"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// lazyArchive writes, as torch.save lays it out, a checkpoint of four
// tensors "t0".."t3", each a storage of 64 KB whose bytes are its index:
// large enough that the local headers of all but the first lie in no
// window read at open.
func lazyArchive(t *testing.T) (string, []testmodel.ZipEntry) {
	const n = 16 << 10 // float32 elements
	pk := stateDict(func(p *pkl) {
		for i := range 4 {
			p.str(fmt.Sprintf("t%d", i)).tensor(fmt.Sprint(i), n, 0, []int{n}, []int{1})
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
