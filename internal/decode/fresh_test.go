package decode

import (
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// freshDType names the dtype TestStatsFreshProcess's child scans.
const freshDType = "FSMOUNT_DECODE_FRESH_DTYPE"

// TestStatsFreshProcess scans a tensor of every element type as the
// first thing a process decodes: statistics, histograms and code counts
// must not depend on some earlier call (the values path) having set up
// the decoding tables. Each dtype runs in a child process of this test
// binary, since within one process any earlier test would have.
func TestStatsFreshProcess(t *testing.T) {
	if name := os.Getenv(freshDType); name != "" {
		freshChild(t, name)
		return
	}
	for dt := range tensor.DType(255) {
		if !dt.Valid() || dt.Quantized() {
			continue
		}
		t.Run(dt.String(), func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestStatsFreshProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), freshDType+"="+dt.String())
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("scanning %s first in a fresh process: %v\n%s", dt, err, out)
			}
		})
	}
}

// freshChild scans one tensor of the named dtype, each way a caller
// asks for statistics: the whole scan with a histogram, and the sha256.
func freshChild(t *testing.T, name string) {
	dt, ok := tensor.ParseDType(name)
	if !ok {
		t.Fatalf("unknown dtype %q", name)
	}
	n := uint64(4096) * dt.BlockElems()
	size, ok := dt.ByteSize(n)
	if !ok {
		t.Fatalf("%s: no size for %d elements", dt, n)
	}
	raw := make([]byte, size)
	for i := range raw {
		raw[i] = byte(i*7 + i>>8)
	}
	d, err := NewDecoder(testmodel.MemTensor("x", dt, []uint64{n}, raw))
	if err != nil {
		t.Skipf("%s: %v", dt, err) // a type with no decoder is not scanned
	}
	s, err := d.Scan(context.Background(), &ScanOptions{HistBins: 16, SHA256: true})
	if err != nil {
		t.Fatalf("%s: %v", dt, err)
	}
	if s.Count != n {
		t.Fatalf("%s: counted %d elements, want %d", dt, s.Count, n)
	}
}
