package model_test

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/fsmount/fsmount/source"
)

func writeFile(path string, b []byte) error { return os.WriteFile(path, b, 0o644) }
func removeFile(path string) error          { return os.Remove(path) }

func timeIt(f func()) float64 {
	start := time.Now()
	f()
	return time.Since(start).Seconds()
}

// copyVirtual writes a virtual file out sparsely: the header, then a hole
// over the (all-zero) tensor bytes of a sparse checkpoint.
func copyVirtual(v source.File, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, min(v.Size(), 64<<20))
	if _, err := v.ReadAt(head, 0); err != nil && err != io.EOF {
		return err
	}
	n := 8 + int64(uint64(head[0])|uint64(head[1])<<8|uint64(head[2])<<16|uint64(head[3])<<24)
	if !strings.HasSuffix(path, ".safetensors") {
		n = v.Size()
	}
	if _, err := f.Write(head[:n]); err != nil {
		return err
	}
	return f.Truncate(v.Size())
}

func removeBins(tb testing.TB, dir string) {
	names, _ := filepath.Glob(filepath.Join(dir, "pytorch_model*"))
	for _, n := range names {
		if err := os.Remove(n); err != nil {
			tb.Fatal(err)
		}
	}
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// cpuTime is the process's user and system CPU time, in seconds.
func cpuTime() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// dropCache drops a file's clean pages from the page cache.
func dropCache(tb testing.TB, path string) {
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		tb.Fatal(err)
	}
}
