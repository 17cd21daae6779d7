package pytorch

import (
	"bytes"
	"encoding/binary"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
		recs, err := readDirectory(bytes.NewReader(b), int64(len(b)))
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
	recs, err := readDirectory(bytes.NewReader(b), int64(len(b)))
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.Equal(t, record{name: "a/data/0", hdr: 0, csize: 4, usize: 4}, recs[0])
}
