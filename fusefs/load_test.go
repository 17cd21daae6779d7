package fusefs

import (
	"fmt"
	"io/fs"
	"math/bits"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/tensor"
)

// loadDuration is how long TestLoad runs: FSMOUNT_LOAD_SECONDS, or 3 s.
// stress.sh runs the long form.
func loadDuration() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("FSMOUNT_LOAD_SECONDS")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 3 * time.Second
}

// openFDs counts this process's descriptors: pipes (go-fuse keeps a pool
// of splice pipes, as large as the peak of concurrent reads) and others.
func openFDs(t *testing.T) (pipes, others int) {
	ents, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	for _, e := range ents {
		if l, _ := os.Readlink("/proc/self/fd/" + e.Name()); strings.HasPrefix(l, "pipe:") {
			pipes++
		} else {
			others++
		}
	}
	return pipes, others
}

// TestLoad runs 32 readers of random ranges of random data files, each
// read checked against pread of the model file, while other goroutines
// walk the tree and cat every small file in a loop. Readers drop the
// file's page cache now and then, so that reads keep reaching the daemon.
// It requires no error, no mismatch, no leaked descriptor or goroutine,
// and a flat heap.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	ts := testmodel.Qwen3Tensors(2048, 256, 4, 4, 2, 64, 512, true)
	for i := range ts {
		ts[i].Data = testmodel.Fill(3, ts[i].Name, testmodel.NBytes(ts[i].DType, ts[i].Shape))
	}
	ts[len(ts)-1].Data = ts[0].Data
	require.NoError(t, testmodel.WriteModelDir(dir, testmodel.TinyQwen3Config, ts))
	// The config says tiny; the tree does not care, and the verdict will
	// list the mismatches, which is fine for a load test.
	mnt, r := mountDir(t, dir)
	raw, err := os.Open(filepath.Join(dir, "model.safetensors"))
	require.NoError(t, err)
	defer raw.Close()
	tensors := r.Model.Tensors()

	var small []string
	require.NoError(t, filepath.WalkDir(mnt, func(p string, d fs.DirEntry, err error) error {
		if err == nil && (d.Name() == "shape" || d.Name() == "dtype") {
			small = append(small, p)
		}
		return err
	}))

	// A warm-up round fills go-fuse's buffer and pipe pools; the measured
	// round must then leave everything as it found it.
	load(mnt, raw, tensors, small, time.Now().Add(loadDuration()/4))
	before := takeSnapshot(t)
	st := load(mnt, raw, tensors, small, time.Now().Add(loadDuration()))
	after := takeSnapshot(t)
	pct := st.lat.percentile
	var b strings.Builder
	fmt.Fprintf(&b, "\n| figure | value |\n|---|---:|\n")
	for _, row := range [][2]string{
		{"duration", loadDuration().String()},
		{"readers", "32 (+ find and cat loops)"},
		{"reads", strconv.FormatInt(st.reads.Load(), 10)},
		{"bytes read", strconv.FormatInt(st.bytesRead.Load(), 10)},
		{"tree walks + small-file passes", strconv.FormatInt(st.metaOps.Load(), 10)},
		{"errors", strconv.FormatInt(st.errs.Load(), 10)},
		{"mismatches", strconv.FormatInt(st.mismatches.Load(), 10)},
		{"read latency p50", pct(0.50).String()},
		{"read latency p99", pct(0.99).String()},
		{"heap in use before → after", fmt.Sprintf("%.1f → %.1f MiB", float64(before.heap)/(1<<20), float64(after.heap)/(1<<20))},
		{"open fds before → after (pipes)", fmt.Sprintf("%d → %d (%d → %d)", before.fds, after.fds, before.pipes, after.pipes)},
		{"goroutines before → after", fmt.Sprintf("%d → %d", before.goroutines, after.goroutines)},
	} {
		fmt.Fprintf(&b, "| %s | %s |\n", row[0], row[1])
	}
	t.Log(b.String())

	select {
	case msg := <-st.firstErr:
		t.Errorf("first error: %s", msg)
	default:
	}
	assert.Zero(t, st.errs.Load(), "errors")
	assert.Zero(t, st.mismatches.Load(), "mismatches")
	assert.Positive(t, st.reads.Load())
	assert.Equal(t, before.fds, after.fds, "file descriptors leaked")
	// go-fuse pools one pipe pair per splice reply in flight, so the pool
	// grows to the peak concurrency, which a loaded machine raises between
	// rounds (a fixed +8 failed on the unchanged code too): at most the
	// 32 readers' synchronous reads plus the kernel's 12 background ones.
	assert.LessOrEqual(t, after.pipes, before.pipes+2*(32+12), "splice pipes grow past the peak concurrency")
	assert.LessOrEqual(t, after.goroutines, before.goroutines+4, "goroutines leaked")
	assert.Less(t, float64(after.heap)-float64(before.heap), float64(16<<20), "heap grew")
}

// snapshot is what must not grow across a load round.
type snapshot struct {
	heap                   uint64
	pipes, fds, goroutines int
}

// takeSnapshot waits for go-fuse's request goroutines to finish (until
// goroutines and descriptors are the same in two samples 50 ms apart, for
// at most 5 s), collects garbage, and records heap, descriptors and
// goroutines.
func takeSnapshot(t *testing.T) snapshot {
	var s snapshot
	for i := 0; i < 100; i++ {
		prev := s
		s.goroutines = runtime.NumGoroutine()
		s.pipes, s.fds = openFDs(t)
		if i > 0 && s == prev {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	s.heap = m.HeapInuse
	return s
}

type loadStats struct {
	reads, bytesRead, errs, mismatches, metaOps atomic.Int64
	lat                                         histogram
	firstErr                                    chan string
}

// histogram counts latencies in buckets of 1/16 of a power of two, so
// that a ten-minute run of millions of reads uses constant memory (the
// heap must stay flat) and percentiles are within 5 %.
type histogram [64 * 16]int64

func bucket(d time.Duration) int {
	n := uint64(max(d, 1))
	e := 63 - bits.LeadingZeros64(n) // n in [2^e, 2^(e+1))
	if e < 4 {
		return int(n)
	}
	return e*16 + int(n>>(e-4))&15
}

func bucketValue(b int) time.Duration {
	if b < 16 {
		return time.Duration(b)
	}
	e := b / 16
	return time.Duration((16 + uint64(b%16)) << (e - 4))
}

func (h *histogram) add(d time.Duration) { h[bucket(d)]++ }

func (h *histogram) merge(o *histogram) {
	for i := range h {
		h[i] += o[i]
	}
}

func (h *histogram) percentile(p float64) time.Duration {
	var total int64
	for _, c := range h {
		total += c
	}
	target := int64(p * float64(total))
	var seen int64
	for i, c := range h {
		if seen += c; seen > target {
			return bucketValue(i)
		}
	}
	return 0
}

// load runs the readers and the metadata loops until deadline.
func load(mnt string, raw *os.File, tensors []*tensor.Tensor, small []string, deadline time.Time) *loadStats {
	st := &loadStats{firstErr: make(chan string, 1)}
	reads, bytesRead, errs, mismatches, metaOps := &st.reads, &st.bytesRead, &st.errs, &st.mismatches, &st.metaOps
	var mu sync.Mutex
	fail := func(msg string) {
		select {
		case st.firstErr <- msg:
		default:
		}
	}
	var wg sync.WaitGroup
	for w := 0; w < 32; w++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, 7))
			got, want := make([]byte, 256<<10), make([]byte, 256<<10)
			var mine histogram
			for time.Now().Before(deadline) {
				tt := tensors[rng.IntN(len(tensors))]
				if tt.Length == 0 {
					continue
				}
				off := rng.Int64N(tt.Length)
				n := 1 + rng.Int64N(min(int64(len(got)), tt.Length-off))
				start := time.Now()
				f, err := os.Open(filepath.Join(mnt, "by-name", tt.Name, "data"))
				if err != nil {
					errs.Add(1)
					fail(err.Error())
					continue
				}
				if rng.IntN(8) == 0 {
					unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
				}
				k, err := f.ReadAt(got[:n], off)
				f.Close()
				mine.add(time.Since(start))
				reads.Add(1)
				bytesRead.Add(int64(k))
				if err != nil || int64(k) != n {
					errs.Add(1)
					fail(fmt.Sprintf("%s [%d,+%d): %d bytes, %v", tt.Name, off, n, k, err))
					continue
				}
				if _, err := raw.ReadAt(want[:n], tt.Offset+off); err != nil {
					errs.Add(1)
					continue
				}
				if string(got[:n]) != string(want[:n]) {
					mismatches.Add(1)
					fail(fmt.Sprintf("%s [%d,+%d): bytes differ from the model file", tt.Name, off, n))
				}
			}
			mu.Lock()
			st.lat.merge(&mine)
			mu.Unlock()
		}(uint64(w))
	}
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func(walk bool) {
			defer wg.Done()
			for time.Now().Before(deadline) {
				if walk {
					err := filepath.WalkDir(mnt, func(p string, d fs.DirEntry, err error) error { return err })
					if err != nil {
						errs.Add(1)
						fail(err.Error())
					}
				} else {
					for _, p := range small {
						if _, err := os.ReadFile(p); err != nil {
							errs.Add(1)
							fail(err.Error())
						}
					}
				}
				metaOps.Add(1)
			}
		}(w == 0)
	}
	wg.Wait()
	return st
}

func TestHistogram(t *testing.T) {
	var h histogram
	for i := 1; i <= 1000; i++ {
		h.add(time.Duration(i) * time.Microsecond)
	}
	for _, c := range []struct {
		p    float64
		want time.Duration
	}{{0.5, 500 * time.Microsecond}, {0.99, 990 * time.Microsecond}} {
		got := h.percentile(c.p)
		assert.InEpsilon(t, float64(c.want), float64(got), 0.07, "p%v = %v", c.p, got)
	}
	for _, d := range []time.Duration{1, 15, 16, 17, 1000, 123456789} {
		assert.LessOrEqual(t, bucketValue(bucket(d)), d)
		assert.Greater(t, float64(bucketValue(bucket(d)))*1.07, float64(d), "%v", d)
	}
}
