package pytorch

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memFile is a file in memory whose reads past failAt (when set) fail.
type memFile struct {
	b      []byte
	failAt int64
}

var errInjected = errors.New("injected")

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if f.failAt > 0 && off+int64(len(p)) > f.failAt {
		return copy(p, f.b[min(off, f.failAt):f.failAt]), errInjected
	}
	if off >= int64(len(f.b)) {
		return 0, io.EOF
	}
	n := copy(p, f.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// TestWindowReader: whatever windows it reads, a read through
// windowReader returns the bytes and the error of the same read of the
// file: at random offsets and lengths, near and past its end, with
// windows of every kind set, and over a file whose reads fail past a
// point.
func TestWindowReader(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	b := make([]byte, 300<<10)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	for _, failAt := range []int64{0, 200 << 10} {
		src := &memFile{b: b, failAt: failAt}
		size := int64(len(b))
		head := make([]byte, 1000)
		_, err := src.ReadAt(head, 0)
		require.NoError(t, err)
		w := newWindowReader(src, size, head)
		at := int64(0)
		for i := range 20000 {
			n := r.IntN(5000)
			off := r.Int64N(size + 100)
			switch i % 4 {
			case 0: // sequential, as a central directory is read
				off = at
			case 1: // a local header with a run of small storages ahead
				w.aheadLen = r.IntN(aheadMax)
			case 2:
				w.aheadLen = 0
			}
			want := make([]byte, n)
			wn, werr := src.ReadAt(want, off)
			got := make([]byte, n)
			gn, gerr := w.ReadAt(got, off)
			require.Equal(t, wn, gn, "read %d at %d (failing at %d)", n, off, failAt)
			require.True(t, bytes.Equal(want[:wn], got[:gn]), "read %d at %d (failing at %d): other bytes", n, off, failAt)
			assert.Equal(t, werr, gerr, "read %d at %d (failing at %d)", n, off, failAt)
			at = off + int64(n)
		}
	}
}

// FuzzDirectory: no bytes make readDirectory panic, and whatever it
// reads holds no more records than the directory's length allows, each
// named by bytes of the input. The seeds are a ZIP archive torch wrote
// (a small TorchScript one, whose directory is like a checkpoint's) and
// one with ZIP64 records.
func FuzzDirectory(f *testing.F) {
	if b, err := os.ReadFile("testdata/realworld/CodyRichter+Compsci-528-DeFault-Data-Classification/model.pt"); err == nil {
		f.Add(b)
	}
	f.Add(zip64Archive())
	f.Fuzz(func(t *testing.T, b []byte) {
		recs, err := readDirectory(&memFile{b: b}, int64(len(b)))
		if err != nil {
			return
		}
		if len(recs) > len(b)/dirHeaderLen {
			t.Fatalf("%d records in %d bytes", len(recs), len(b))
		}
		for _, r := range recs {
			if !bytes.Contains(b, []byte(r.name)) {
				t.Fatalf("record %q: a name not in the input", r.name)
			}
		}
	})
}

// zip64Archive is a stored record "a/data/0" of 4 bytes, written with
// ZIP64 fields in its central directory header and a ZIP64 end record,
// as torch.save writes records past 4 GB.
func zip64Archive() []byte {
	le := binary.LittleEndian
	name := "a/data/0"
	b := le.AppendUint32(nil, 0x04034b50)
	b = append(b, make([]byte, 22)...)
	b = le.AppendUint16(b, uint16(len(name)))
	b = le.AppendUint16(b, 0)
	b = append(b, name...)
	b = append(b, 1, 2, 3, 4)
	cd := len(b)
	b = le.AppendUint32(b, 0x02014b50)
	b = append(b, make([]byte, 16)...)
	b = le.AppendUint32(b, 0xFFFFFFFF) // compressed size
	b = le.AppendUint32(b, 0xFFFFFFFF) // size
	b = le.AppendUint16(b, uint16(len(name)))
	b = le.AppendUint16(b, 28)
	b = append(b, make([]byte, 10)...) // comment length, disk, attributes
	b = le.AppendUint32(b, 0xFFFFFFFF) // local header offset
	b = append(b, name...)
	b = le.AppendUint16(b, 1)
	b = le.AppendUint16(b, 24)
	b = le.AppendUint64(b, 4)
	b = le.AppendUint64(b, 4)
	b = le.AppendUint64(b, 0)
	end64 := len(b)
	b = le.AppendUint32(b, 0x06064b50)
	b = le.AppendUint64(b, 44)
	b = append(b, make([]byte, 12)...)
	b = le.AppendUint64(b, 1)
	b = le.AppendUint64(b, 1)
	b = le.AppendUint64(b, uint64(end64-cd))
	b = le.AppendUint64(b, uint64(cd))
	b = le.AppendUint32(b, 0x07064b50)
	b = le.AppendUint32(b, 0)
	b = le.AppendUint64(b, uint64(end64))
	b = le.AppendUint32(b, 1)
	b = le.AppendUint32(b, 0x06054b50)
	b = append(b, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF)
	b = le.AppendUint32(b, 0xFFFFFFFF)
	b = le.AppendUint32(b, 0xFFFFFFFF)
	return append(b, 0, 0)
}

// TestZip64Directory: the ZIP64 seed reads as its one record, with the
// sizes and offset of its ZIP64 field.
func TestZip64Directory(t *testing.T) {
	b := zip64Archive()
	recs, err := readDirectory(&memFile{b: b}, int64(len(b)))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, record{name: "a/data/0", hdr: 0, csize: 4, usize: 4}, recs[0])
}
