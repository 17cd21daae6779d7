package main

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// writeDoc writes docs/performance.md: how the figures were measured and
// the tables of this run. Everything in it comes from this run or from
// this file, so that every figure appears once and none is copied by hand.
func writeDoc(path string, b *bench, manyTable []byte) error {
	var w bytes.Buffer
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	fmt.Fprintf(&w, "# Performance\n\n")
	fmt.Fprintf(&w, "Written by `go run ./bench %s` on %s; do not edit: run it again.\n", strings.Join(os.Args[1:], " "), time.Now().UTC().Format("2006-01-02"))
	fmt.Fprintf(&w, "Machine: %d cores, %s of memory, Linux %s, as %s.\n\n", runtime.NumCPU(), memTotal(), strings.TrimSpace(string(kernel)), who())
	w.WriteString(docMethod)
	w.WriteString("\n## Mount, reads and metadata\n\n")
	var tables bytes.Buffer
	b.print(&tables)
	w.Write(tables.Bytes())
	w.WriteString(docViews)
	w.WriteString(docMany)
	w.Write(manyTable)
	w.WriteString(docOther)
	return os.WriteFile(path, w.Bytes(), 0o644)
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "?"
	}
	var kb int64
	fmt.Sscanf(strings.TrimPrefix(strings.SplitN(string(b), "\n", 2)[0], "MemTotal:"), "%d", &kb)
	return fmt.Sprintf("%.0f GiB", float64(kb)/(1<<20))
}

func who() string {
	if os.Geteuid() == 0 {
		return "root"
	}
	return "a user"
}

const docMethod = `The benchmark mounts a model with fsmount (splicing, the default), with
` + "`fsmount --mmap`" + `, with ` + "`fsmount --passthrough`" + ` (its ` + "`files/`" + ` read by the
kernel), and with squashfuse serving the same tree from an uncompressed
squashfs image, and measures each against a baseline taken in the same
run: ` + "`cat`" + ` of model.safetensors with the page cache hot, pread of the same
byte ranges, a copy of the tree on tmpfs, an mmap of the model's range.
First reads are the first after a fresh mount, with the model file in the
page cache. Every figure is the median over the runs; × is the median of
the per-run ratios to the baseline (for times, lower is better). The
full run uses the dense 1.5 GB Qwen3-0.6B layout (real names, offsets and
sizes, random bytes); ` + "`-short`" + ` the tiny model of testdata/.
`

const docViews = `
The second table measures the decoded views against a peer in the same
run: ` + "`fsinspect --scan`" + ` of the whole model against ` + "`bench/scan_numpy.py`" + `
(numpy doing the same statistics the way a careful user would: memmap, 16
M-element chunks, BF16 widened to float32, float64 sums), a first ` + "`cat`" + ` of
every ` + "`values.f32`" + ` against a first ` + "`cat`" + ` of every ` + "`data`" + ` (each through a
fresh mount), ` + "`files/`" + ` against the model file, and the daemon's anonymous
memory after reading every view of every tensor (at once, and 2 s later:
the daemon returns its free heap once idle).
`

const docMany = `
## Half a million tensors

The half-million-tensor model (` + "`go run ./bench -many`" + `, one run
here) is a Qwen3-MoE layout of 48 layers of 3,469 experts with small
dimensions, one sparse shard per layer: it measures what the daemon pays
per tensor, not per byte. Mount-ready is the time ` + "`fsmount`" + ` takes to
return; idle is the daemon's RssAnon 3 s after the last request (its
watcher returns free memory after 1 s); the find walks every directory
and lists every file; the last figure is ` + "`head -c 1048576`" + ` of the root
index.html, the first read of the page. The daemon's CPU time is given
beside each wall time: on a loaded machine it is the steadier figure.
`

const docOther = `
## Measured elsewhere

Each of these prints its figure and the peer's from the same run:

| command | measures |
|---|---|
| ` + "`bench/open_mode.sh 7`" + ` | fsmount with and without --passthrough, back to back |
| ` + "`go test ./gguf -bench Header70B`" + ` | parsing a 70B GGUF header, against gguf-parser-go |
| ` + "`go test ./internal/decode -bench ScanGGUF`" + ` | dequantizing and reducing Q4_K and Q6_K |
| ` + "`go test ./internal/compare -bench Dense`" + ` | comparing two 319 MB BF16 layouts, against numpy and cmp |
| ` + "`go test ./internal/compare -bench Kernel`" + ` | the AVX2 compare kernel against the scalar path |
| ` + "`go test ./internal/render -bench VsScan`" + ` | a heatmap of a 311 MB tensor, against decode.Scan |
| ` + "`go test ./e2e -bench RemoteHeaderCheck160`" + ` | checking 160 remote shards, against @huggingface/hub |
| ` + "`go test ./e2e -bench RemoteFirstCat -benchtime 8x`" + ` | a remote tensor's first read, against curl |
| ` + "`go test ./e2e -run TestMountRealSharded -v`" + ` | mount-ready for the real sharded layouts |
| ` + "`go test ./adapter -bench DeltaF32`" + ` | a LoRA module's ` + "`" + `delta.f32` + "`" + ` against a stored tensor's ` + "`" + `values.f32` + "`" + ` of the same shape |
| ` + "`sh bench/merge_proof.sh`" + ` | a merge proof of the 0.6B layout (` + "`" + `fsinspect --base --compare` + "`" + `), against numpy (` + "`" + `bench/merge_numpy.py` + "`" + `) |
| ` + "`bench/virtual_read.sh`" + ` | the first cat of a ` + "`" + `.bin` + "`" + ` model's virtual ` + "`" + `files/model.safetensors` + "`" + ` against the real one, fresh mounts |
| ` + "`FSMOUNT_REQUIRE_S3=1 go test ./e2e -bench S3 -benchtime 5x`" + ` | S3 (SeaweedFS, [s3.md](s3.md)): GETs per shard of a 160-shard check; a tensor's first cat against one ranged GET |
`
