package safetensors_test

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
)

// FuzzOpen feeds arbitrary bytes to the parser. Errors are expected; a
// panic, or a file that parses but breaks an invariant, is a failure.
func FuzzOpen(f *testing.F) {
	filepath.WalkDir("testdata", func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".safetensors") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, raw []byte) {
		sf, err := safetensors.NewFile(source.NewReaderFile("fuzz", bytes.NewReader(raw), int64(len(raw))))
		if err != nil {
			if _, ok := err.(*safetensors.FormatError); !ok {
				t.Fatalf("not a *FormatError: %T %v", err, err)
			}
			return
		}
		var total int64
		prev := ""
		for i, tt := range sf.Tensors() {
			if i > 0 && tt.Name <= prev {
				t.Fatalf("tensors not sorted and unique: %q after %q", tt.Name, prev)
			}
			prev = tt.Name
			if tt.Offset < sf.DataStart() || tt.Offset+tt.Length > int64(len(raw)) {
				t.Fatalf("tensor %q range [%d,+%d) outside the data section", tt.Name, tt.Offset, tt.Length)
			}
			if want, ok := tt.DType.ByteSize(tt.NumElements()); !ok || uint64(tt.Length) != want {
				t.Fatalf("tensor %q: %d bytes for %d elements of %s", tt.Name, tt.Length, tt.NumElements(), tt.DType)
			}
			b, err := io.ReadAll(tt.Reader())
			if err != nil || int64(len(b)) != tt.Length {
				t.Fatalf("tensor %q: read %d of %d bytes: %v", tt.Name, len(b), tt.Length, err)
			}
			total += tt.Length
		}
		if sf.DataStart()+total != int64(len(raw)) {
			t.Fatalf("tensors cover %d bytes, data section is %d", total, int64(len(raw))-sf.DataStart())
		}
	})
}
