package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// write160 writes a 160-shard layout: a Llama of 158 layers split one
// layer per shard (and the globals in their own), sparse, with its index.
func write160(b testing.TB, dir string) {
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
// through proxies that add 20 ms to every request, and reports the
// requests per shard (from nginx's log, redirects included) and the wall
// time of each check:
//
//   - requests/shard, s/check: fsinspect of the directory URL;
//   - hf-requests/shard, hf-s/check: fsinspect of hf://org/m160, with
//     HF_ENDPOINT at the proxy, through the Hub's resolve redirect (the
//     storage host behind a proxy of its own, so both hops pay 20 ms);
//   - hub-requests/shard, hub-s/check, hub-call-s: the same repository by
//     the Hub's own JavaScript parser, parseSafetensorsMetadata of the npm
//     package @huggingface/hub (bench/hubparse.mjs; the package installed
//     once under the user's cache directory), pointed at the same proxy
//     with its hubUrl option: the process's wall time, like fsinspect's,
//     and the call's alone (without Node's start and the import);
//   - ours/hub: hf-s/check over hub-s/check.
//
// Times are means over the iterations (ns/op is the three checks
// together); requests are the last iteration's. In every iteration the
// tensors of fsinspect --json hf://org/m160 (names, dtypes, shapes,
// shards, byte lengths) and its parameters by dtype must be the Hub
// parser's: an independent implementation's cross-check. Without node,
// npm or the registry the peer is skipped, with the reason logged.
func BenchmarkRemoteHeaderCheck160(b *testing.B) {
	hubDir := hubPeer(b)
	root := b.TempDir()
	write160(b, root)
	srv := nginxtest.Start(b, root)
	lat := nginxtest.Fault{Kind: nginxtest.Pass, Latency: 20 * time.Millisecond}
	proxy := nginxtest.NewProxy(b, srv.URL)
	storage := nginxtest.NewProxy(b, srv.StorageURL)
	proxy.RewriteLocation(srv.StorageURL, storage.URL)
	proxy.SetDefault(lat)
	storage.SetDefault(lat)
	fsinspect := filepath.Join(binDir, "fsinspect")
	var dir, hf, hub checkRun
	for b.Loop() {
		dir.add(b, srv, exec.Command(fsinspect, proxy.URL+"/"))
		out := hf.add(b, srv, exec.Command(fsinspect, "--json", "hf://org/m160"), "HF_ENDPOINT="+proxy.URL)
		var ours fsinspectJSON
		if err := json.Unmarshal(out, &ours); err != nil {
			b.Fatalf("fsinspect --json: %v", err)
		}
		if !ours.Clean || len(ours.Tensors) != 3+158*9 {
			b.Fatalf("fsinspect hf://: clean %v, %d tensors", ours.Clean, len(ours.Tensors))
		}
		if hubDir == "" {
			continue
		}
		out = hub.add(b, srv, exec.Command("node", hubScript(), "parse", hubDir, proxy.URL, "org/m160"))
		var theirs hubJSON
		if err := json.Unmarshal(out, &theirs); err != nil {
			b.Fatalf("hubparse: %v", err)
		}
		if err := sameTensors(ours, theirs); err != nil {
			b.Fatalf("fsinspect and @huggingface/hub %s disagree: %v", theirs.Version, err)
		}
		hub.call += time.Duration(theirs.MS * float64(time.Millisecond))
	}
	b.ReportMetric(dir.perShard(), "requests/shard")
	b.ReportMetric(dir.seconds(), "s/check")
	b.ReportMetric(hf.perShard(), "hf-requests/shard")
	b.ReportMetric(hf.seconds(), "hf-s/check")
	b.Logf("per shard: directory %s; hf:// %s", dir.statuses(), hf.statuses())
	if hubDir != "" {
		b.ReportMetric(hub.perShard(), "hub-requests/shard")
		b.ReportMetric(hub.seconds(), "hub-s/check")
		b.ReportMetric(hub.call.Seconds()/float64(hub.n), "hub-call-s")
		b.ReportMetric(hf.seconds()/hub.seconds(), "ours/hub")
		b.Logf("per shard: @huggingface/hub %s", hub.statuses())
	}
}

// checkRun sums one kind of check over the benchmark's iterations.
type checkRun struct {
	n      int
	wall   time.Duration
	call   time.Duration // the hub parser's own time for its call
	shards map[int]int   // the last check's requests for shard files, by status
}

// add runs cmd (with a fresh cache directory and env added), fails the
// benchmark unless it exits 0, and counts nginx's requests for shards
// while it ran. It returns the standard output.
func (c *checkRun) add(b *testing.B, srv *nginxtest.Server, cmd *exec.Cmd, env ...string) []byte {
	b.Helper()
	cmd.Env = append(append(os.Environ(), "XDG_CACHE_HOME="+b.TempDir()), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	before := len(srv.Requests(b))
	start := time.Now()
	out, err := cmd.Output()
	c.wall += time.Since(start)
	c.n++
	if err != nil {
		b.Fatalf("%v: %v: %s", cmd.Args, err, stderr.Bytes())
	}
	c.shards = map[int]int{}
	for _, q := range srv.Requests(b)[before:] {
		if strings.HasSuffix(q.Path, "-of-00160.safetensors") {
			c.shards[q.Status]++
		}
	}
	return out
}

func (c *checkRun) seconds() float64 { return c.wall.Seconds() / float64(c.n) }

func (c *checkRun) perShard() float64 {
	n := 0
	for _, k := range c.shards {
		n += k
	}
	return float64(n) / 160
}

// statuses words the last check's requests per shard by status.
func (c *checkRun) statuses() string {
	var parts []string
	for _, st := range slices.Sorted(maps.Keys(c.shards)) {
		parts = append(parts, fmt.Sprintf("%.2f × %d", float64(c.shards[st])/160, st))
	}
	return strings.Join(parts, " + ")
}

// hubScript is the peer's script, kept in the repository.
func hubScript() string {
	p, _ := filepath.Abs(repoPath("bench", "hubparse.mjs"))
	return p
}

// hubPeer installs the Hub's parser under the user's cache directory (once:
// later runs find it there) and returns the install's directory, or ""
// with the reason logged when it cannot run here. It is called by the
// benchmark only: go test without -bench never runs node or npm.
func hubPeer(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		b.Log("@huggingface/hub peer skipped: node is not installed (Debian: apt-get install nodejs npm)")
		return ""
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		b.Logf("@huggingface/hub peer skipped: %v", err)
		return ""
	}
	var stderr bytes.Buffer
	cmd := exec.Command("node", hubScript(), "install", filepath.Join(cache, "fsmount", "npm"))
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		b.Logf("@huggingface/hub peer skipped: %v: %s", err, strings.TrimSpace(stderr.String()))
		return ""
	}
	return strings.TrimSpace(string(out))
}

// tensorJSON is a tensor as both fsinspect --json and bench/hubparse.mjs
// print it.
type tensorJSON struct {
	Name  string   `json:"name"`
	DType string   `json:"dtype"`
	Shape []uint64 `json:"shape"`
	File  string   `json:"file"`
	Bytes int64    `json:"bytes"`
}

// fsinspectJSON is what the cross-check reads of fsinspect --json.
type fsinspectJSON struct {
	Clean   bool         `json:"clean"`
	Tensors []tensorJSON `json:"tensor_list"`
	Params  struct {
		ByDType map[string]int64 `json:"by_dtype"`
	} `json:"params"`
}

// hubJSON is what bench/hubparse.mjs prints.
type hubJSON struct {
	Version        string           `json:"version"`
	MS             float64          `json:"ms"`
	Sharded        bool             `json:"sharded"`
	Shards         int              `json:"shards"`
	Tensors        []tensorJSON     `json:"tensors"`
	ParameterCount map[string]int64 `json:"parameterCount"`
}

// sameTensors compares fsinspect's tensors with the Hub parser's: the
// same names, each with the same dtype, shape, shard and byte length, and
// the same parameters by dtype.
func sameTensors(ours fsinspectJSON, hub hubJSON) error {
	if !hub.Sharded || hub.Shards != 160 {
		return fmt.Errorf("the hub parser read %d shards (sharded %v), want 160", hub.Shards, hub.Sharded)
	}
	byName := map[string]int{}
	for i, t := range hub.Tensors {
		byName[t.Name] = i
	}
	if len(byName) != len(hub.Tensors) || len(hub.Tensors) != len(ours.Tensors) {
		return fmt.Errorf("%d tensors against the hub parser's %d (%d names)", len(ours.Tensors), len(hub.Tensors), len(byName))
	}
	for _, o := range ours.Tensors {
		i, ok := byName[o.Name]
		if !ok {
			return fmt.Errorf("%s: not in the hub parser's list", o.Name)
		}
		h := hub.Tensors[i]
		if o.DType != h.DType || !slices.Equal(o.Shape, h.Shape) || path.Base(o.File) != h.File || o.Bytes != h.Bytes {
			return fmt.Errorf("%s: %s %v in %s (%d bytes), the hub parser: %s %v in %s (%d bytes)",
				o.Name, o.DType, o.Shape, path.Base(o.File), o.Bytes, h.DType, h.Shape, h.File, h.Bytes)
		}
	}
	if !maps.Equal(ours.Params.ByDType, hub.ParameterCount) {
		return fmt.Errorf("parameters by dtype %v, the hub parser: %v", ours.Params.ByDType, hub.ParameterCount)
	}
	return nil
}

// BenchmarkRemoteFirstCat reads a 300 MB tensor through a mount of a
// model served by nginx, cold, against curl fetching the same byte range
// from the same server in the same run, each iteration one of each, and
// reports the medians over the iterations (run it with -benchtime 5x or
// more). Each iteration starts from an empty disk cache, with no earlier
// iteration's cache left to write back.
func BenchmarkRemoteFirstCat(b *testing.B) {
	requireFUSE(&testing.T{})
	root := b.TempDir()
	const n = 300 << 20
	p := filepath.Join(root, "big.safetensors")
	if err := testmodel.WriteSparse(p, []testmodel.Entry{{Name: "big", DType: "U8", Shape: []uint64{n}, Offsets: [2]uint64{0, n}}}, nil); err != nil {
		b.Fatal(err)
	}
	srv := nginxtest.Start(b, root)
	fsmount := filepath.Join(binDir, "fsmount")
	var off, length int64
	catOurs := func() float64 {
		cache := b.TempDir()
		b.Setenv("XDG_CACHE_HOME", cache)
		mnt := b.TempDir()
		if out, err := exec.Command(fsmount, srv.URL+"/big.safetensors", mnt).CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		loc, _ := os.ReadFile(filepath.Join(mnt, "big", "location"))
		var name string
		fmt.Sscan(string(loc), &name, &off, &length)
		start := time.Now()
		if out, err := exec.Command("sh", "-c", "cat "+filepath.Join(mnt, "big", "data")+" > /dev/null").CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		rate := float64(length) / 1e6 / time.Since(start).Seconds()
		if os.Getenv("FSMOUNT_BENCH_DEBUG") != "" {
			sizes := map[int64]int{}
			for _, q := range srv.Requests(b) {
				sizes[q.Bytes>>20]++
			}
			b.Logf("requests so far, by MiB: %v", sizes)
		}
		// Nothing of this mount may run under the next measure: the
		// daemon's exit (it drains its disk-cache queue), nor the
		// writeback of the disk cache this read left dirty (300 MB per
		// iteration, which a first read on a quiet machine never meets).
		pid := fusetest.DaemonPid(mnt)
		exec.Command(fsmount, "-u", mnt).Run()
		for deadline := time.Now().Add(10 * time.Second); pid != 0 && fusetest.Alive(pid) && time.Now().Before(deadline); {
			time.Sleep(5 * time.Millisecond)
		}
		os.RemoveAll(cache)
		return rate
	}
	catCurl := func() float64 {
		start := time.Now()
		if out, err := exec.Command("curl", "-s", "-o", "/dev/null", "-r", fmt.Sprintf("%d-%d", off, off+length-1), srv.URL+"/big.safetensors").CombinedOutput(); err != nil {
			b.Fatalf("curl: %v: %s", err, out)
		}
		return float64(length) / 1e6 / time.Since(start).Seconds()
	}
	var ours, curl, ratio []float64
	for i := 0; b.Loop(); i++ {
		// Which goes first alternates, so that neither always follows
		// the other's leftovers.
		var o, c float64
		if i%2 == 0 || length == 0 {
			o = catOurs()
			c = catCurl()
		} else {
			c = catCurl()
			o = catOurs()
		}
		if os.Getenv("FSMOUNT_BENCH_DEBUG") != "" {
			b.Logf("ours %.0f MB/s, curl %.0f MB/s", o, c)
		}
		ours, curl, ratio = append(ours, o), append(curl, c), append(ratio, o/c)
	}
	b.ReportMetric(medianOf(ours), "MB/s")
	b.ReportMetric(medianOf(curl), "curl-MB/s")
	b.ReportMetric(medianOf(ratio), "×curl")
}

// TestSameTensors checks the benchmark's cross-check itself (it runs no
// node): each kind of disagreement is caught.
func TestSameTensors(t *testing.T) {
	load := func() (fsinspectJSON, hubJSON) {
		var ours fsinspectJSON
		var hub hubJSON
		require.NoError(t, json.Unmarshal([]byte(`{"clean":true,"tensor_list":[
			{"name":"a","dtype":"BF16","shape":[2,3],"file":"http://h/org/m/resolve/main/model-00001-of-00160.safetensors","bytes":12},
			{"name":"b","dtype":"F32","shape":[4],"file":"http://h/org/m/resolve/main/model-00002-of-00160.safetensors","bytes":16}],
			"params":{"by_dtype":{"BF16":6,"F32":4}}}`), &ours))
		require.NoError(t, json.Unmarshal([]byte(`{"version":"x","sharded":true,"shards":160,"tensors":[
			{"name":"b","dtype":"F32","shape":[4],"file":"model-00002-of-00160.safetensors","bytes":16},
			{"name":"a","dtype":"BF16","shape":[2,3],"file":"model-00001-of-00160.safetensors","bytes":12}],
			"parameterCount":{"BF16":6,"F32":4}}`), &hub))
		return ours, hub
	}
	ours, hub := load()
	require.NoError(t, sameTensors(ours, hub))
	for name, spoil := range map[string]func(*fsinspectJSON, *hubJSON){
		"dtype":   func(_ *fsinspectJSON, h *hubJSON) { h.Tensors[0].DType = "F16" },
		"shape":   func(_ *fsinspectJSON, h *hubJSON) { h.Tensors[1].Shape = []uint64{3, 2} },
		"file":    func(_ *fsinspectJSON, h *hubJSON) { h.Tensors[1].File = "model-00003-of-00160.safetensors" },
		"bytes":   func(_ *fsinspectJSON, h *hubJSON) { h.Tensors[0].Bytes = 17 },
		"name":    func(_ *fsinspectJSON, h *hubJSON) { h.Tensors[0].Name = "c" },
		"count":   func(_ *fsinspectJSON, h *hubJSON) { h.Tensors = h.Tensors[:1] },
		"twice":   func(_ *fsinspectJSON, h *hubJSON) { h.Tensors[0].Name = "a" },
		"params":  func(o *fsinspectJSON, _ *hubJSON) { o.Params.ByDType["F32"] = 5 },
		"shards":  func(_ *fsinspectJSON, h *hubJSON) { h.Shards = 159 },
		"sharded": func(_ *fsinspectJSON, h *hubJSON) { h.Sharded = false },
	} {
		ours, hub := load()
		spoil(&ours, &hub)
		assert.Error(t, sameTensors(ours, hub), name)
	}
}

// medianOf is the median of v (the upper one of an even count).
func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
