package views

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fsmount/fsmount/tensor"
)

// TestShellTools runs head, sed, awk and sort -g on a values file.
func TestShellTools(t *testing.T) {
	for _, tool := range []string{"sh", "sort", "awk", "sed", "head"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("SKIP: %s not installed", tool)
		}
	}
	r := rand.New(rand.NewPCG(9, 9))
	raw := randBytes(r, 2*2000)
	v := NewTensor(memTensor("x", tensor.BF16, []uint64{2000}, raw), nil)
	text := readWhole(t, "values", v.Values())
	dir := t.TempDir()
	path := filepath.Join(dir, "values")
	if err := os.WriteFile(path, text, 0o644); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	run := func(script string) string {
		out, err := exec.Command("sh", "-c", script, "sh", path).Output()
		if err != nil {
			t.Fatalf("%s: %v", script, err)
		}
		return string(out)
	}
	if got := run(`sed -n 5p "$1"`); got != lines[4]+"\n" {
		t.Errorf("sed -n 5p: %q, want %q", got, lines[4])
	}
	if got := run(`head -n 3 "$1"`); got != strings.Join(lines[:3], "\n")+"\n" {
		t.Errorf("head: %q", got)
	}
	// awk sums the finite values as numbers.
	var want float64
	var finite []float64
	for _, l := range lines {
		x, _ := strconv.ParseFloat(strings.TrimSpace(l), 64)
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			want += x
			finite = append(finite, x)
		}
	}
	got, err := strconv.ParseFloat(strings.TrimSpace(run(`awk '$1 != "nan" && $1 != "inf" && $1 != "-inf" { s += $1 } END { printf "%.17g\n", s }' "$1"`)), 64)
	if err != nil || math.Abs(got-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("awk sum %v, want %v (%v)", got, want, err)
	}
	// sort -g orders the finite values numerically.
	sorted := run(`grep -v -e nan -e inf "$1" | sort -g`)
	var seq []float64
	for _, l := range strings.Split(strings.TrimSuffix(sorted, "\n"), "\n") {
		x, _ := strconv.ParseFloat(strings.TrimSpace(l), 64)
		seq = append(seq, x)
	}
	if !slices.IsSorted(seq) || len(seq) != len(finite) {
		t.Errorf("sort -g: %d values, sorted %v", len(seq), slices.IsSorted(seq))
	}
}

// TestConcurrentReads reads every view from many goroutines at once, so
// that the race detector sees the caches and the row index shared.
func TestConcurrentReads(t *testing.T) {
	r := rand.New(rand.NewPCG(10, 10))
	v := NewTensor(memTensor("x", tensor.BF16, []uint64{4, 9000}, randBytes(r, 2*4*9000)), nil)
	m := NewModel([]*Tensor{v})
	files := append(v.Files(), File{"table", m.StatsTable()})
	want := make([][]byte, len(files))
	for i, f := range files {
		want[i] = readWhole(t, f.Name, f.View)
	}
	fresh := NewTensor(v.Tensor(), nil)
	files = append(fresh.Files(), File{"table", NewModel([]*Tensor{fresh}).StatsTable()})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rr := rand.New(rand.NewPCG(uint64(g), 1))
			for range 50 {
				i := rr.IntN(len(files))
				size := files[i].View.Size()
				off := rr.Int64N(size)
				p := make([]byte, rr.IntN(5000)+1)
				n, _ := files[i].View.ReadAt(p, off)
				if !bytes.Equal(p[:n], want[i][off:off+int64(n)]) {
					t.Errorf("%s: concurrent read at %d differs", files[i].Name, off)
					return
				}
			}
		}()
	}
	wg.Wait()
}
