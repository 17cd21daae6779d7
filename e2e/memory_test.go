package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// rssAnon returns a process's anonymous resident memory in KiB.
func rssAnon(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	require.NoError(t, err)
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssAnon:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
			require.NoError(t, err)
			return n
		}
	}
	t.Fatal("no RssAnon")
	return 0
}

// TestMemoryAfterBurst: 64 concurrent readers of decoded views and data
// of a 512 MiB model; once the burst is over, the idle daemon hands the
// buffers back and its anonymous memory is small again (it stayed at the
// burst's peak for good).
func TestMemoryAfterBurst(t *testing.T) {
	const n, part = 32, 16 << 20
	var entries []testmodel.Entry
	for i := range n {
		entries = append(entries, testmodel.Entry{Name: fmt.Sprintf("t%02d", i), DType: "BF16", Shape: []uint64{part / 2},
			Offsets: [2]uint64{uint64(i) * part, uint64(i+1) * part}})
	}
	p := filepath.Join(t.TempDir(), "m.safetensors")
	require.NoError(t, testmodel.WriteSparse(p, entries, nil))
	mnt, pid := mountModel(t, p)
	before := rssAnon(t, pid)
	var wg sync.WaitGroup
	for r := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 4 {
				name := fmt.Sprintf("t%02d", (r*7+k)%n)
				view := []string{"values.f32", "data", "values.npy", "values"}[k]
				f, err := os.Open(filepath.Join(mnt, name, view))
				if err != nil {
					t.Error(err)
					return
				}
				buf := make([]byte, 1<<20)
				for off := int64(0); off < 4<<20; off += 1 << 20 {
					f.ReadAt(buf, off)
				}
				f.Close()
			}
		}()
	}
	wg.Wait()
	peak := rssAnon(t, pid)
	var idle int
	deadline := time.Now().Add(10 * time.Second)
	for {
		time.Sleep(500 * time.Millisecond)
		idle = rssAnon(t, pid)
		if idle <= 32<<10 || time.Now().After(deadline) {
			break
		}
	}
	t.Logf("RssAnon: %d KiB before, %d KiB after the burst, %d KiB idle", before, peak, idle)
	assert.LessOrEqual(t, idle, 32<<10, "idle daemon RssAnon in KiB (target: 32 MiB)")
}
