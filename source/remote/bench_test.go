package remote

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmount/fsmount/internal/nginxtest"
)

// BenchmarkFirstRead reads a 64 MiB file from nginx on loopback from a
// cold cache (a new FS per iteration, no disk cache), sequentially in
// 1 MiB reads, as a first read of a tensor's data does. Compare with
// curl -r 0-67108863 of the same file (the log prints the URL).
func BenchmarkFirstRead(b *testing.B) {
	const size = 64 << 20
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), pattern(size, 1), 0o644); err != nil {
		b.Fatal(err)
	}
	s := nginxtest.Start(b, root)
	b.Logf("curl -s -o /dev/null -r 0-%d -w '%%{speed_download}' %s/blob.bin", size-1, s.URL)
	buf := make([]byte, 1<<20)
	b.SetBytes(size)
	for b.Loop() {
		fsys, err := New(s.URL, Options{CacheSize: -1})
		if err != nil {
			b.Fatal(err)
		}
		f, err := fsys.Open("blob.bin")
		if err != nil {
			b.Fatal(err)
		}
		for off := int64(0); off < size; off += int64(len(buf)) {
			if _, err := f.ReadAt(buf, off); err != nil {
				b.Fatal(err)
			}
		}
		f.Close()
		fsys.Close()
	}
	n := nginxtest.Count(s.Requests(b), "/blob.bin", nil)
	b.ReportMetric(float64(n)/float64(b.N), "requests/op")
}

// BenchmarkOpen opens a file, one request for its first 1 MiB, on a
// connection kept alive (one FS for all iterations, no disk cache).
func BenchmarkOpen(b *testing.B) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "blob.bin"), pattern(4<<20, 1), 0o644); err != nil {
		b.Fatal(err)
	}
	s := nginxtest.Start(b, root)
	fsys, err := New(s.URL, Options{CacheSize: -1})
	if err != nil {
		b.Fatal(err)
	}
	defer fsys.Close()
	b.SetBytes(DefaultChunkSize)
	for b.Loop() {
		f, err := fsys.Open("blob.bin")
		if err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
