package e2e

import (
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// BenchmarkS3HeaderCheck160 checks the 160-shard layout in SeaweedFS
// through a proxy that adds 20 ms to every request, with a fresh cache
// each time, and reports the GETs per shard (counted by the proxy) and
// the wall time of fsinspect.
func BenchmarkS3HeaderCheck160(b *testing.B) {
	srv := s3Server(b)
	root := b.TempDir()
	write160(b, root)
	srv.CreateBucket(b, "b160")
	srv.PutDir(b, "b160", "llama/", root)
	p := nginxtest.NewProxy(b, srv.URL)
	p.KeepHost()
	p.SetDefault(nginxtest.Fault{Kind: nginxtest.Pass, Latency: 20 * time.Millisecond})
	b.Setenv("AWS_ENDPOINT_URL", p.URL)
	fsinspect := filepath.Join(binDir, "fsinspect")
	var wall time.Duration
	n, shards := 0, 0
	for b.Loop() {
		before := len(p.Requests())
		cmd := exec.Command(fsinspect, "s3://b160/llama/")
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+b.TempDir())
		start := time.Now()
		out, err := cmd.CombinedOutput()
		wall += time.Since(start)
		n++
		if err != nil {
			b.Fatalf("fsinspect: %v: %s", err, out)
		}
		shards = 0
		for _, q := range p.Requests()[before:] {
			if strings.HasSuffix(q.Path, "-of-00160.safetensors") {
				shards++
			}
		}
	}
	b.ReportMetric(float64(shards)/160, "requests/shard")
	b.ReportMetric(wall.Seconds()/float64(n), "s/check")
}

// BenchmarkS3FirstCat mounts a single 300 MiB tensor from SeaweedFS with
// a fresh cache and times the first cat of its data, against one ranged
// GET of the same bytes with the same client library (aws-sdk-go-v2's
// SigV4 signer over net/http), read to the end: get/cat is the cat's
// throughput as a fraction of the plain GET's.
func BenchmarkS3FirstCat(b *testing.B) {
	srv := s3Server(b)
	fusetest.RequireFUSE(b)
	const size = 300 << 20
	dir := b.TempDir()
	file := filepath.Join(dir, "model.safetensors")
	writeRandomTensor(b, file, size)
	srv.CreateBucket(b, "big")
	srv.PutFile(b, "big", "one/model.safetensors", file)
	st, err := os.Stat(file)
	if err != nil {
		b.Fatal(err)
	}
	off := st.Size() - size // the data is at the end of the file
	fsmount := filepath.Join(binDir, "fsmount")
	var catT, getT time.Duration
	for b.Loop() {
		mnt := b.TempDir()
		cmd := exec.Command(fsmount, "--cache-dir", b.TempDir(), "s3://big/one/model.safetensors", mnt)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("fsmount: %v: %s", err, out)
		}
		start := time.Now()
		out, err := exec.Command("sh", "-c", "cat "+filepath.Join(mnt, "t", "data")+" | wc -c").Output()
		catT += time.Since(start)
		exec.Command(fsmount, "-u", mnt).Run()
		if err != nil || strings.TrimSpace(string(out)) != "314572800" {
			b.Fatalf("cat: %v: %q", err, out)
		}
		start = time.Now()
		if got := srv.GetRange(b, "big", "one/model.safetensors", off, size, io.Discard); got != size {
			b.Fatalf("GET: %d bytes", got)
		}
		getT += time.Since(start)
	}
	mb := float64(size) / (1 << 20)
	b.ReportMetric(mb*float64(b.N)/catT.Seconds(), "cat-MiB/s")
	b.ReportMetric(mb*float64(b.N)/getT.Seconds(), "get-MiB/s")
	b.ReportMetric(getT.Seconds()/catT.Seconds(), "cat/get")
}

// writeRandomTensor writes a safetensors file of one U8 tensor t of n
// pseudo-random bytes (a store may compress zeros).
func writeRandomTensor(b *testing.B, path string, n int) {
	entries := []testmodel.Entry{{Name: "t", DType: "U8", Shape: []uint64{uint64(n)}, Offsets: [2]uint64{0, uint64(n)}}}
	if err := testmodel.WriteSparse(path, entries, nil); err != nil {
		b.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	r := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 8<<20)
	for pos := st.Size() - int64(n); pos < st.Size(); pos += int64(len(buf)) {
		for i := 0; i < len(buf); i += 8 {
			v := r.Uint64()
			for j := range 8 {
				buf[i+j] = byte(v >> (8 * j))
			}
		}
		if _, err := f.WriteAt(buf[:min(int64(len(buf)), st.Size()-pos)], pos); err != nil {
			b.Fatal(err)
		}
	}
}
