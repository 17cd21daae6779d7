package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// write160 writes a 160-shard layout: a Llama of 158 layers split one
// layer per shard (and the globals in their own), sparse, with its index.
func write160(b *testing.B, dir string) {
	b.Helper()
	const layers = 158
	cfg := fmt.Sprintf(`{"architectures":["LlamaForCausalLM"],"model_type":"llama","vocab_size":256,"hidden_size":64,"num_hidden_layers":%d,"num_attention_heads":4,"num_key_value_heads":2,"intermediate_size":128,"tie_word_embeddings":false,"torch_dtype":"bfloat16"}`, layers)
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	shard := func(i int) string { return fmt.Sprintf("model-%05d-of-00160.safetensors", i) }
	wm := map[string]string{
		"model.embed_tokens.weight": shard(1), "model.norm.weight": shard(160), "lm_head.weight": shard(160),
	}
	shapes := map[string][]uint64{"model.embed_tokens.weight": {256, 64}, "model.norm.weight": {64}, "lm_head.weight": {256, 64}}
	for l := range layers {
		for name, shape := range map[string][]uint64{
			"input_layernorm.weight": {64}, "post_attention_layernorm.weight": {64},
			"self_attn.q_proj.weight": {64, 64}, "self_attn.k_proj.weight": {32, 64}, "self_attn.v_proj.weight": {32, 64}, "self_attn.o_proj.weight": {64, 64},
			"mlp.gate_proj.weight": {128, 64}, "mlp.up_proj.weight": {128, 64}, "mlp.down_proj.weight": {64, 128},
		} {
			n := fmt.Sprintf("model.layers.%d.%s", l, name)
			wm[n], shapes[n] = shard(l+2), shape
		}
	}
	total, err := testmodel.WriteSparseShards(dir, wm, func(n string) (string, []uint64) { return "BF16", shapes[n] })
	if err != nil {
		b.Fatal(err)
	}
	idx, _ := json.Marshal(map[string]any{"metadata": map[string]any{"total_size": total}, "weight_map": wm})
	if err := os.WriteFile(filepath.Join(dir, "model.safetensors.index.json"), idx, 0o644); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRemoteHeaderCheck160 checks a 160-shard layout over HTTP
// through a proxy that adds 20 ms to every request: the requests per
// shard (from nginx's log) and the wall time of fsinspect.
func BenchmarkRemoteHeaderCheck160(b *testing.B) {
	root := b.TempDir()
	write160(b, root)
	srv := nginxtest.Start(b, root)
	proxy := nginxtest.NewProxy(b, srv.URL)
	proxy.SetDefault(nginxtest.Fault{Kind: nginxtest.Pass, Latency: 20 * time.Millisecond})
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	var wall time.Duration
	var perShard float64
	for b.Loop() {
		before := len(srv.Requests(b))
		start := time.Now()
		out, err := exec.Command(filepath.Join(binDir, "fsinspect"), proxy.URL+"/").CombinedOutput()
		wall = time.Since(start)
		if err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		n := 0
		for _, q := range srv.Requests(b)[before:] {
			if strings.HasPrefix(q.Path, "/model-") {
				n++
			}
		}
		perShard = float64(n) / 160
	}
	b.ReportMetric(perShard, "requests/shard")
	b.ReportMetric(wall.Seconds(), "s/check")
}

// BenchmarkRemoteFirstCat reads a 300 MB tensor through a mount of a
// model served by nginx, cold, against curl fetching the same byte range
// from the same server in the same run.
func BenchmarkRemoteFirstCat(b *testing.B) {
	requireFUSE(&testing.T{})
	root := b.TempDir()
	const n = 300 << 20
	p := filepath.Join(root, "big.safetensors")
	if err := testmodel.WriteSparse(p, []testmodel.Entry{{Name: "big", DType: "U8", Shape: []uint64{n}, Offsets: [2]uint64{0, n}}}, nil); err != nil {
		b.Fatal(err)
	}
	srv := nginxtest.Start(b, root)
	var ours, curl float64
	for b.Loop() {
		b.Setenv("XDG_CACHE_HOME", b.TempDir())
		mnt := b.TempDir()
		if out, err := exec.Command(filepath.Join(binDir, "fsmount"), srv.URL+"/big.safetensors", mnt).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		loc, _ := os.ReadFile(filepath.Join(mnt, "big", "location"))
		var name string
		var off, length int64
		fmt.Sscan(string(loc), &name, &off, &length)
		start := time.Now()
		if out, err := exec.Command("sh", "-c", "cat "+filepath.Join(mnt, "big", "data")+" > /dev/null").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		ours = float64(length) / 1e6 / time.Since(start).Seconds()
		if os.Getenv("FSMOUNT_BENCH_DEBUG") != "" {
			reqs := srv.Requests(b)
			sizes := map[int64]int{}
			for _, q := range reqs {
				sizes[q.Bytes>>20]++
			}
			b.Logf("%d requests; by MiB: %v", len(reqs), sizes)
		}
		exec.Command(filepath.Join(binDir, "fsmount"), "-u", mnt).Run()
		start = time.Now()
		if out, err := exec.Command("curl", "-s", "-o", "/dev/null", "-r", fmt.Sprintf("%d-%d", off, off+length-1), srv.URL+"/big.safetensors").CombinedOutput(); err != nil {
			b.Fatalf("curl: %v: %s", err, out)
		}
		curl = float64(length) / 1e6 / time.Since(start).Seconds()
	}
	b.ReportMetric(ours, "MB/s")
	b.ReportMetric(curl, "curl-MB/s")
	b.ReportMetric(ours/curl, "×curl")
}
