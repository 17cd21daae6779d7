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
// each time, and reports the GETs per shard counted by the proxy (the
// mean, and the most any shard took: the target is at most 2) and the
// median wall time of fsinspect (the target is 1.5 s).
func BenchmarkS3HeaderCheck160(b *testing.B) {
	p := s3Proxy160(b, "b160")
	p.SetDefault(nginxtest.Fault{Kind: nginxtest.Pass, Latency: 20 * time.Millisecond})
	fsinspect := filepath.Join(binDir, "fsinspect")
	var walls []float64
	perShard := map[string]int{}
	for b.Loop() {
		before := len(p.Requests())
		cmd := exec.Command(fsinspect, "s3://b160/llama/")
		cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+b.TempDir())
		start := time.Now()
		out, err := cmd.CombinedOutput()
		walls = append(walls, time.Since(start).Seconds())
		if err != nil {
			b.Fatalf("fsinspect: %v: %s", err, out)
		}
		clear(perShard)
		for _, q := range p.Requests()[before:] {
			if strings.HasSuffix(q.Path, "-of-00160.safetensors") {
				perShard[q.Path]++
			}
		}
		if len(perShard) != 160 {
			b.Fatalf("requests for %d shards, want 160", len(perShard))
		}
	}
	total, most := 0, 0
	for _, n := range perShard {
		total += n
		most = max(most, n)
	}
	b.ReportMetric(float64(total)/160, "requests/shard")
	b.ReportMetric(float64(most), "max-requests/shard")
	b.ReportMetric(medianOf(walls), "s/check")
}

// BenchmarkS3FirstCat mounts a single 300 MiB tensor from SeaweedFS with
// a fresh cache and times the first cat of its data (to /dev/null, as
// BenchmarkRemoteFirstCat does), against one ranged GET of the same
// bytes with the same client library (aws-sdk-go-v2's SigV4 signer over
// net/http) read to the end; which of the two goes first alternates. It
// reports the medians over the iterations (run it with -benchtime 5x or
// more): cat/get is the cat's throughput as a fraction of the plain
// GET's, the target 0.6. Nothing of one cat's mount runs under the next
// measure: the daemon's exit is waited for and its cache removed.
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
	mb := float64(size) / (1 << 20)
	cat := func() float64 {
		mnt, cache := b.TempDir(), b.TempDir()
		cmd := exec.Command(fsmount, "--cache-dir", cache, "s3://big/one/model.safetensors", mnt)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("fsmount: %v: %s", err, out)
		}
		data := filepath.Join(mnt, "t", "data")
		if st, err := os.Stat(data); err != nil || st.Size() != size {
			b.Fatalf("%s: %v", data, err)
		}
		start := time.Now()
		err := exec.Command("cat", data).Run() // stdout: /dev/null
		took := time.Since(start)
		pid := fusetest.DaemonPid(mnt)
		exec.Command(fsmount, "-u", mnt).Run()
		for deadline := time.Now().Add(10 * time.Second); pid != 0 && fusetest.Alive(pid) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		os.RemoveAll(cache)
		if err != nil {
			b.Fatalf("cat: %v", err)
		}
		return mb / took.Seconds()
	}
	get := func() float64 {
		start := time.Now()
		if got := srv.GetRange(b, "big", "one/model.safetensors", off, size, io.Discard); got != size {
			b.Fatalf("GET: %d bytes", got)
		}
		return mb / time.Since(start).Seconds()
	}
	var cats, gets, ratios []float64
	for i := 0; b.Loop(); i++ {
		var c, g float64
		if i%2 == 0 {
			c, g = cat(), get()
		} else {
			g, c = get(), cat()
		}
		cats, gets, ratios = append(cats, c), append(gets, g), append(ratios, c/g)
	}
	b.ReportMetric(medianOf(cats), "cat-MiB/s")
	b.ReportMetric(medianOf(gets), "get-MiB/s")
	b.ReportMetric(medianOf(ratios), "cat/get")
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
