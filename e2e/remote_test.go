package e2e

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/s3test"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source/remote"
)

// remoteRoot serves a directory holding the tiny model (tiny/) and a
// sharded layout rebuilt from the real cogito-v1-preview-qwen-14B index
// (cogito/, 6 sparse shards), with nginx on 127.0.0.1.
func remoteRoot(t *testing.T) (*nginxtest.Server, string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	require.NoError(t, testmodel.WriteTiny(filepath.Join(root, "tiny"), nil))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "cogito"), 0o755))
	_, err := testmodel.WriteRealSharded(filepath.Join(root, "cogito"), repoPath("testdata", "realworld", "cogito-v1-preview-qwen-14B"))
	require.NoError(t, err)
	require.NoError(t, os.Chmod(root, 0o755))
	return nginxtest.Start(t, root), root
}

// localReport is fsinspect's report of a local directory, with the
// tied-head note as the network check words it.
func localReport(t *testing.T, dir string) string {
	t.Helper()
	r := runCmd(t, "fsinspect", dir)
	require.Equal(t, 0, r.code, r.stderr)
	return r.stdout
}

// TestInspectRemote checks a model over HTTP, as a directory URL, as a
// single-file URL and as hf://ORG/NAME through the Hub's redirect: the
// report is the local one, except that the tied head is not compared
// over the network, and the report says so.
func TestInspectRemote(t *testing.T) {
	srv, root := remoteRoot(t)
	local := localReport(t, filepath.Join(root, "tiny"))
	const localTied = "note: lm_head.weight present but tied — a redundant byte-identical copy of embed_tokens (4,096 params counted once)"
	const remoteTied = "note: lm_head.weight present and tied, as tie_word_embeddings says (4,096 params counted once); its bytes are not compared with embed_tokens over the network — compare them by reading the tensors"
	require.Contains(t, local, localTied)
	want := strings.ReplaceAll(local, filepath.Join(root, "tiny"), "LOC")

	r := runCmd(t, "fsinspect", srv.URL+"/tiny/")
	require.Equal(t, 0, r.code, r.stderr)
	got := strings.ReplaceAll(r.stdout, srv.URL+"/tiny/", "LOC")
	assert.Equal(t, strings.Replace(want, localTied, remoteTied, 1), got)

	// The Hub: resolve/ answers 302 to a storage host serving the repo.
	hub := nginxtest.Start(t, filepath.Join(root, "tiny"))
	t.Setenv("HF_ENDPOINT", hub.URL)
	r = runCmd(t, "fsinspect", "hf://org/tiny")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "✓ all 25 expected tensors present")
	redirected := false
	for _, q := range hub.Requests(t) {
		redirected = redirected || q.Status == 302
	}
	assert.True(t, redirected, "the check went through the resolve redirect")

	r = runCmd(t, "fsinspect", srv.URL+"/tiny/model.safetensors")
	require.Equal(t, 3, r.code, r.stderr) // a lone file: listed, not checked
	assert.Contains(t, r.stdout, "model.embed_tokens.weight")

	r = runCmd(t, "fsinspect", srv.URL+"/nope/")
	assert.Equal(t, 2, r.code)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
}

// TestInspectRemoteRequests reads nginx's log: checking the 6-shard real
// layout takes one range request per shard (its header fits in the first
// chunk), one for config.json, one for the index, and one that finds no
// model.safetensors.
func TestInspectRemoteRequests(t *testing.T) {
	srv, root := remoteRoot(t)
	before := len(srv.Requests(t))
	r := runCmd(t, "fsinspect", srv.URL+"/cogito/")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, localReport(t, filepath.Join(root, "cogito")), strings.ReplaceAll(r.stdout, srv.URL+"/cogito/", filepath.Join(root, "cogito")))
	perFile := map[string]int{}
	for _, q := range srv.Requests(t)[before:] {
		f, ok := strings.CutPrefix(q.Path, "/cogito/")
		if !ok {
			continue
		}
		switch f {
		case "model.safetensors", "modules.json", "hf_quant_config.json":
			// Asked for beside the others (a single file as transformers
			// asks first, a sentence-transformers repository's modules,
			// ModelOpt's quantization config): absent here, one request.
			assert.Equal(t, 404, q.Status, "%+v", q)
			if f != "model.safetensors" { // not one of the shards counted below
				perFile[f]++
			}
			continue
		}
		perFile[f]++
		assert.Equal(t, 206, q.Status, "%+v", q)
		assert.NotEmpty(t, q.Range, "%+v", q)
	}
	shards := 0
	for f, n := range perFile {
		if strings.HasSuffix(f, ".safetensors") {
			shards++
			assert.LessOrEqual(t, n, 2, f)
		} else {
			assert.Equal(t, 1, n, f)
		}
	}
	assert.Equal(t, 6, shards)
	t.Logf("requests: %v", perFile)
}

// TestMountRemote mounts the tiny model over HTTP: data reads give the
// file's bytes and the verdict is the local one.
func TestMountRemote(t *testing.T) {
	srv, root := remoteRoot(t)
	mnt, _ := mountModel(t, srv.URL+"/tiny/")
	assertServesTiny(t, mnt, filepath.Join(root, "tiny"))
}

// TestMountRemoteLazyAndReplaced mounts one 192 MiB remote file of three
// tensors: reading the first fetches none of the third; after the file
// is replaced on the server, reading the third fails with EIO (never
// bytes of the new file), the verdict says the files changed, and the
// daemon stays up.
func TestMountRemoteLazyAndReplaced(t *testing.T) {
	srv, root := remoteRoot(t)
	const part = 64 << 20
	entries := []testmodel.Entry{
		{Name: "a", DType: "U8", Shape: []uint64{part}, Offsets: [2]uint64{0, part}},
		{Name: "b", DType: "U8", Shape: []uint64{part}, Offsets: [2]uint64{part, 2 * part}},
		{Name: "c", DType: "U8", Shape: []uint64{part}, Offsets: [2]uint64{2 * part, 3 * part}},
	}
	file := filepath.Join(root, "big.safetensors")
	require.NoError(t, testmodel.WriteSparse(file, entries, nil))
	st, err := os.Stat(file)
	require.NoError(t, err)
	before := len(srv.Requests(t))
	mnt, pid := mountModel(t, srv.URL+"/big.safetensors")

	got := readFile(t, filepath.Join(mnt, "a", "data"))
	assert.Equal(t, make([]byte, part), got)
	cStart := st.Size() - part
	for _, q := range srv.Requests(t)[before:] {
		if q.Path != "/big.safetensors" || q.Range == "" {
			continue
		}
		var lo, hi int64
		_, err := fmt.Sscanf(q.Range, "bytes=%d-%d", &lo, &hi)
		require.NoError(t, err, q.Range)
		assert.Less(t, hi, cStart, "reading tensor a fetched %s, which reaches tensor c", q.Range)
	}

	// nginx's ETag is the mtime in seconds and the size: make it change.
	require.NoError(t, testmodel.WriteSparse(file+".new", entries, map[string]string{"v": "2"}))
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(file+".new", later, later))
	require.NoError(t, os.Rename(file+".new", file))
	_, err = os.ReadFile(filepath.Join(mnt, "c", "data"))
	assert.ErrorIs(t, err, syscall.EIO)
	waitFor(t, "the verdict to say the files changed", func() bool {
		v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
		return err == nil && strings.HasPrefix(string(v), "✗ files changed since mounting")
	})
	assert.True(t, fusetest.Alive(pid))
}

// TestFilesDir: files/ holds the model's own files byte for byte —
// config, weights, the tokenizer beside them — locally and over HTTP,
// and numpy memory-maps a shard from it.
func TestFilesDir(t *testing.T) {
	srv, root := remoteRoot(t)
	tiny := filepath.Join(root, "tiny")
	tok := []byte(`{"model":{"type":"BPE"}}`)
	require.NoError(t, os.WriteFile(filepath.Join(tiny, "tokenizer.json"), tok, 0o644))
	for _, loc := range []string{tiny, srv.URL + "/tiny/"} {
		mnt, _ := mountModel(t, loc)
		names, err := os.ReadDir(filepath.Join(mnt, "files"))
		require.NoError(t, err)
		var got []string
		for _, n := range names {
			got = append(got, n.Name())
		}
		assert.Equal(t, []string{"config.json", "model.safetensors", "tokenizer.json"}, got, loc)
		for _, n := range got {
			want := readFile(t, filepath.Join(tiny, n))
			b := readFile(t, filepath.Join(mnt, "files", n))
			assert.Equal(t, want, b, "%s of %s", n, loc)
		}
		// numpy memory-maps the shard from the mount, as a loader would.
		out, err := exec.Command(testmodel.Numpy(t), "-c", numpyNorm, filepath.Join(mnt, "files", "model.safetensors")).CombinedOutput()
		require.NoError(t, err, string(out))
		f, err := safetensors.Open(filepath.Join(tiny, "model.safetensors"))
		require.NoError(t, err)
		norm := testmodel.Bytes(f.Tensor("model.norm.weight"))
		f.Close()
		assert.Equal(t, fmt.Sprintf("%d %d %d %d\n", binary.LittleEndian.Uint16(norm), binary.LittleEndian.Uint16(norm[2:]), binary.LittleEndian.Uint16(norm[4:]), binary.LittleEndian.Uint16(norm[6:])), string(out), loc)
	}
}

// numpyNorm prints the first four BF16 codes of model.norm.weight, read
// with numpy.memmap from the safetensors file named by argv[1].
const numpyNorm = `
import json, struct, sys, numpy as np
p = sys.argv[1]
with open(p, "rb") as f:
    n = struct.unpack("<Q", f.read(8))[0]
    h = json.loads(f.read(n))
a, b = h["model.norm.weight"]["data_offsets"]
m = np.memmap(p, dtype=np.uint8, mode="r")
print(*m[8 + n + a:8 + n + b].view("<u2")[:4].tolist())
`

// TestMountRemoteCacheFlags: --cache-dir holds the chunks a remote mount
// read; --cache-size 0 keeps none on disk.
func TestMountRemoteCacheFlags(t *testing.T) {
	srv, _ := remoteRoot(t)
	for _, c := range []struct {
		size  string
		files bool
	}{{"1G", true}, {"0", false}} {
		dir := t.TempDir()
		mnt, _ := mountModel(t, srv.URL+"/tiny/", "--cache-dir", dir, "--cache-size", c.size)
		readFile(t, filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "data"))
		r := runCmd(t, "fsmount", "-u", mnt)
		require.Equal(t, 0, r.code, r.stderr)
		n := countFiles(dir)
		assert.Equal(t, c.files, n > 0, "--cache-size %s: %d files in the cache", c.size, n)
	}
	r := runCmd(t, "fsmount", "--cache-size", "lots", srv.URL+"/tiny/", t.TempDir())
	assert.Equal(t, 64, r.code)
}

// TestMountCompareRemoteCacheFlags: --compare opens a remote OTHER as it
// opens a remote MODEL, with --cache-dir (and --timeout): its chunks land
// in the cache the flags name, not in the default one.
func TestMountCompareRemoteCacheFlags(t *testing.T) {
	srv, root := remoteRoot(t)
	dir := t.TempDir()
	mnt, _ := mountModel(t, filepath.Join(root, "tiny"), "--compare", srv.URL+"/tiny/", "--cache-dir", dir, "--timeout", "30s")
	summary := readFile(t, filepath.Join(mnt, "compare", "summary"))
	assert.Contains(t, string(summary), "identical")
	r := runCmd(t, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
	n := countFiles(dir)
	assert.Positive(t, n, "the other model's chunks are cached in --cache-dir")
}

// TestMountRemoteReplacedLastModified mounts a model from Go's
// http.FileServer, which sends Last-Modified and no ETag, and replaces the
// file there (the same size, other values): a read of what was not yet
// fetched fails with EIO and the verdict turns to "files changed", never
// a tensor of old and new bytes. From a server that sends neither
// validator, the verdict warns that a change cannot be detected.
func TestMountRemoteReplacedLastModified(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Chmod(root, 0o755))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ts := []testmodel.Tensor{{Name: "a", DType: "F32", Shape: []uint64{1 << 20}}}
	file := filepath.Join(root, "m.safetensors")
	require.NoError(t, testmodel.WriteFile(file, ts, nil, 1))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(file, old, old))
	srv := httptest.NewServer(http.FileServer(http.Dir(root)))
	t.Cleanup(srv.Close)

	mnt, _ := mountModel(t, srv.URL+"/m.safetensors")
	require.NoError(t, testmodel.WriteFile(file+".new", ts, nil, 2))
	require.NoError(t, os.Rename(file+".new", file))
	_, err := os.ReadFile(filepath.Join(mnt, "a", "data"))
	assert.ErrorIs(t, err, syscall.EIO)
	waitFor(t, "the verdict to say the files changed", func() bool {
		v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
		return err == nil && strings.HasPrefix(string(v), "✗ files changed since mounting")
	})

	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := os.ReadFile(file)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(b))
	}))
	t.Cleanup(bare.Close)
	r := runCmd(t, "fsinspect", bare.URL+"/m.safetensors")
	require.Equal(t, 3, r.code, "a lone file is not checked: %s", r.stderr)
	assert.Contains(t, r.stdout, "warning: "+bare.URL+"/m.safetensors: the server sends neither an ETag nor Last-Modified, so a file replaced there while in use cannot be detected")
}

// The faults of a remote model as a user meets them: the built fsmount
// and fsinspect against nginx through the fault-injecting proxy of
// internal/nginxtest, which answers a request for a path with the next
// fault queued for it (or its default).

// faultTimeout is the --timeout of the mounts that meet stalls and a
// server that is down, and hangBound what "fails rather than hangs"
// allows: a failed read is asked of the daemon up to twice by the kernel
// (its readahead, then the page itself), each within the timeout, and CI
// machines are slow, the race detector slower.
const (
	faultTimeout = 2 * time.Second
	hangBound    = 6*faultTimeout + 10*time.Second
)

// faultSite is a Qwen3 model of about 10 MiB with pseudo-random weights,
// in a directory m/ served by nginx, with the proxy in front.
type faultSite struct {
	srv   *nginxtest.Server
	proxy *nginxtest.Proxy
	url   string  // the model's URL through the proxy
	file  string  // the weight file's path on the server, as the proxy logs it
	spots []*spot // tensors within one chunk past the first, one per chunk
}

// spot is a tensor that a read fetches with one request: it lies within
// one chunk, which no other spot and no header read touches, and is read
// with one FUSE request (so the remote file's readahead, which starts on
// the third sequential read, never fetches another chunk).
type spot struct {
	name        string
	off         int64  // the tensor's first byte in the file
	rng         string // the Range of the request for its chunk
	first, last int64  // the chunk's first and last byte
	want        []byte // its bytes, from the local file
}

// faultConfig scales the tiny Qwen3 config up so that the weights span
// ten 1 MiB chunks.
var faultConfig = strings.NewReplacer(
	`"hidden_size": 32,`, `"hidden_size": 256,`,
	`"head_dim": 16,`, `"head_dim": 64,`,
	`"intermediate_size": 64,`, `"intermediate_size": 1024,`,
	`"num_hidden_layers": 2,`, `"num_hidden_layers": 4,`,
	`"max_window_layers": 2,`, `"max_window_layers": 4,`,
	`"vocab_size": 128`, `"vocab_size": 4096`,
).Replace(testmodel.TinyQwen3Config)

func newFaultSite(t *testing.T) *faultSite {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	root := t.TempDir()
	dir := filepath.Join(root, "m")
	ts := testmodel.Qwen3Tensors(4096, 256, 4, 4, 2, 64, 1024, false)
	for i := range ts {
		ts[i].Data = testmodel.FillBF16(3, ts[i].Name, testmodel.NBytes(ts[i].DType, ts[i].Shape))
	}
	require.NoError(t, testmodel.WriteModelDir(dir, faultConfig, ts))
	require.NoError(t, os.Chmod(root, 0o755))

	s := &faultSite{file: "/m/model.safetensors"}
	f, err := safetensors.Open(filepath.Join(dir, "model.safetensors"))
	require.NoError(t, err)
	defer f.Close()
	st, err := os.Stat(filepath.Join(dir, "model.safetensors"))
	require.NoError(t, err)
	const cs = remote.DefaultChunkSize
	used := map[int64]bool{0: true} // the first chunk is read when the file is opened
	for _, tt := range f.Tensors() {
		c := tt.Offset / cs
		if tt.Length > 4096 || (tt.Offset+tt.Length-1)/cs != c || used[c] {
			continue
		}
		used[c] = true
		sp := &spot{name: tt.Name, off: tt.Offset, first: c * cs, last: min((c+1)*cs, st.Size()) - 1, want: testmodel.Bytes(tt)}
		sp.rng = fmt.Sprintf("bytes=%d-%d", sp.first, sp.last)
		s.spots = append(s.spots, sp)
	}
	require.GreaterOrEqual(t, len(s.spots), 4, "the layout has too few tensors within one chunk")
	s.srv = nginxtest.Start(t, root)
	s.proxy = nginxtest.NewProxy(t, s.srv.URL)
	s.url = s.proxy.URL + "/m/"
	return s
}

// mount mounts the model through the proxy.
func (s *faultSite) mount(t *testing.T, opts ...string) (string, int) {
	t.Helper()
	return mountModel(t, s.url, opts...)
}

// read reads sp's data file from the mount.
func (sp *spot) read(mnt string) ([]byte, error) {
	return os.ReadFile(filepath.Join(mnt, "by-name", sp.name, "data"))
}

// requireRead reads sp through the mount and checks its bytes.
func (sp *spot) requireRead(t *testing.T, mnt string) {
	t.Helper()
	got, err := sp.read(mnt)
	require.NoError(t, err, sp.name)
	require.Equal(t, sp.want, got, "%s: the bytes read are not the file's", sp.name)
}

// since returns the proxy's requests for the weight file after the first
// n it logged.
func (s *faultSite) since(n int) []nginxtest.ProxyRequest {
	var out []nginxtest.ProxyRequest
	for _, r := range s.proxy.Requests()[n:] {
		if r.Path == s.file {
			out = append(out, r)
		}
	}
	return out
}

// requireAlive checks that the daemon still serves the mount.
func requireAlive(t *testing.T, mnt string, pid int) {
	t.Helper()
	require.True(t, fusetest.Alive(pid), "the daemon died")
	v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
	require.NoError(t, err, "cat verdict")
	require.Contains(t, string(v), "✓ all")
}

// TestMountRemoteRetriesStatus: a read through the mount that meets a
// 500 and a 503, or a 429 with Retry-After: 1, gives the file's bytes;
// the proxy saw the same range asked again after each, after the default
// backoff (250 ms, doubling) or the second Retry-After asked for. A
// server that answers 503 to everything makes the read fail with EIO
// after a bounded number of requests.
func TestMountRemoteRetriesStatus(t *testing.T) {
	s := newFaultSite(t)
	mnt, pid := s.mount(t)
	a, b, c := s.spots[0], s.spots[1], s.spots[2]

	n := len(s.proxy.Requests())
	s.proxy.Inject(s.file,
		nginxtest.Fault{Kind: nginxtest.Status, Status: 500},
		nginxtest.Fault{Kind: nginxtest.Status, Status: 503})
	a.requireRead(t, mnt)
	got := s.since(n)
	require.Len(t, got, 3, "%+v", got)
	for i, status := range []int{500, 503, 206} {
		assert.Equal(t, status, got[i].Status, "request %d", i)
		assert.Equal(t, a.rng, got[i].Range, "request %d", i)
	}
	// remote.Options: RetryBase 250 ms, doubled per retry.
	assert.GreaterOrEqual(t, got[1].At.Sub(got[0].At), 250*time.Millisecond, "the first retry's backoff")
	assert.GreaterOrEqual(t, got[2].At.Sub(got[1].At), 500*time.Millisecond, "the second retry's backoff")

	n = len(s.proxy.Requests())
	s.proxy.Inject(s.file, nginxtest.Fault{Kind: nginxtest.Status, Status: 429, RetryAfter: "1"})
	b.requireRead(t, mnt)
	got = s.since(n)
	require.Len(t, got, 2, "%+v", got)
	assert.Equal(t, 429, got[0].Status)
	assert.Equal(t, 206, got[1].Status)
	assert.Equal(t, b.rng, got[1].Range)
	assert.GreaterOrEqual(t, got[1].At.Sub(got[0].At), time.Second, "Retry-After: 1 not honoured")

	// Bounded: remote.Options.MaxRetries is 4 by default.
	n = len(s.proxy.Requests())
	s.proxy.SetDefault(nginxtest.Fault{Kind: nginxtest.Status, Status: 503})
	_, err := c.read(mnt)
	require.ErrorIs(t, err, syscall.EIO)
	got = s.since(n)
	assert.NotEmpty(t, got)
	assert.Zero(t, len(got)%5, "%d requests: not 1 + 4 retries per read the daemon was asked", len(got))
	for _, r := range got {
		assert.Equal(t, c.rng, r.Range)
	}
	s.proxy.SetDefault(nginxtest.Fault{})
	c.requireRead(t, mnt)
	requireAlive(t, mnt, pid)
}

// TestMountRemoteResetMidBody: a connection reset in the middle of a
// tensor's bytes, part-way through its chunk's body, is retried, resuming
// (with If-Range, so never into another version of the file) where the
// body stopped; the read gives the file's bytes, joined across the reset.
func TestMountRemoteResetMidBody(t *testing.T) {
	s := newFaultSite(t)
	mnt, pid := s.mount(t)
	a := s.spots[0]
	after := a.off - a.first + int64(len(a.want))/2
	n := len(s.proxy.Requests())
	before := len(s.srv.Requests(t))
	s.proxy.Inject(s.file, nginxtest.Fault{Kind: nginxtest.Reset, After: after})
	a.requireRead(t, mnt)
	got := s.since(n)
	require.Len(t, got, 2, "%+v", got)
	assert.Equal(t, nginxtest.Reset, got[0].Fault)
	assert.Equal(t, a.rng, got[0].Range)
	var lo, hi int64
	_, err := fmt.Sscanf(got[1].Range, "bytes=%d-%d", &lo, &hi)
	require.NoError(t, err, got[1].Range)
	assert.Equal(t, a.last, hi, "the retry asks for the rest of the chunk")
	assert.True(t, lo >= a.first && lo <= a.first+after, "the retry starts at %d, the chunk at %d, the reset after %d bytes", lo, a.first, after)
	assert.Equal(t, 206, got[1].Status)
	t.Logf("reset after %d bytes of %s, resumed with %s", after, a.rng, got[1].Range)
	resumed := false
	for _, q := range s.srv.Requests(t)[before:] {
		if q.Path == s.file && q.Range == got[1].Range {
			resumed = true
			if lo > a.first {
				assert.NotEmpty(t, q.IfRange, "a resumed request without If-Range: %+v", q)
			}
		}
	}
	assert.True(t, resumed, "nginx did not log the retry")
	requireAlive(t, mnt, pid)
}

// TestMountRemoteTimeouts: with --timeout 2s, a body that stalls, an
// answer whose headers never come and a connection that is never
// accepted each make the read fail with EIO rather than hang; the daemon
// stays up, and once the server answers again, the read gives the file's
// bytes.
func TestMountRemoteTimeouts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		hang, end func(*nginxtest.Proxy, testing.TB)
		requests  bool // whether the proxy logs the requests that hang
	}{
		{"stalled body", func(p *nginxtest.Proxy, _ testing.TB) {
			p.SetDefault(nginxtest.Fault{Kind: nginxtest.Stall, After: 1000, Stall: time.Minute})
		}, passAgain, true},
		{"no response", func(p *nginxtest.Proxy, _ testing.TB) {
			p.SetDefault(nginxtest.Fault{Latency: time.Minute})
		}, passAgain, false},
		{"connection not accepted", (*nginxtest.Proxy).Hang, (*nginxtest.Proxy).Restart, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFaultSite(t)
			mnt, pid := s.mount(t, "--timeout", faultTimeout.String())
			a := s.spots[0]
			n := len(s.proxy.Requests())
			tc.hang(s.proxy, t)
			start := time.Now()
			_, err := a.read(mnt)
			took := time.Since(start)
			require.ErrorIs(t, err, syscall.EIO)
			assert.Less(t, took, hangBound, "--timeout %v", faultTimeout)
			got := s.since(n)
			t.Logf("EIO after %v, %d requests logged", took.Round(time.Millisecond), len(got))
			if tc.requests {
				require.NotEmpty(t, got)
			}
			for _, r := range got {
				assert.Equal(t, nginxtest.Stall, r.Fault)
				assert.Equal(t, a.rng, r.Range)
			}
			requireAlive(t, mnt, pid)

			tc.end(s.proxy, t)
			a.requireRead(t, mnt)
			requireAlive(t, mnt, pid)
		})
	}
}

// passAgain makes the proxy forward requests untouched again.
func passAgain(p *nginxtest.Proxy, _ testing.TB) { p.SetDefault(nginxtest.Fault{}) }

// TestMountRemoteServerDown: with the server down (the proxy stopped),
// reading what the mount has not fetched fails with EIO within the
// timeout, what it has fetched still reads, and the daemon stays up;
// once the server is back, the read gives the file's bytes.
func TestMountRemoteServerDown(t *testing.T) {
	s := newFaultSite(t)
	mnt, pid := s.mount(t, "--timeout", faultTimeout.String())
	a, b := s.spots[0], s.spots[1]
	a.requireRead(t, mnt)

	s.proxy.Stop()
	start := time.Now()
	_, err := b.read(mnt)
	took := time.Since(start)
	require.ErrorIs(t, err, syscall.EIO)
	assert.Less(t, took, hangBound, "a server that is down with --timeout %v", faultTimeout)
	t.Logf("EIO after %v", took.Round(time.Millisecond))
	a.requireRead(t, mnt)
	requireAlive(t, mnt, pid)

	s.proxy.Restart(t)
	b.requireRead(t, mnt)
	requireAlive(t, mnt, pid)
}

// TestMountRemoteBadRanges: a server that answers a range request with
// the whole file (200), or with another range than asked (a Content-Range
// one byte off), makes reads fail with EIO, never give wrong bytes; the
// daemon stays up, and reads work once the server behaves.
func TestMountRemoteBadRanges(t *testing.T) {
	s := newFaultSite(t)
	mnt, pid := s.mount(t)
	for i, fault := range []nginxtest.FaultKind{nginxtest.IgnoreRange, nginxtest.WrongContentRange} {
		sp := s.spots[i]
		n := len(s.proxy.Requests())
		s.proxy.SetDefault(nginxtest.Fault{Kind: fault})
		_, err := sp.read(mnt)
		require.ErrorIs(t, err, syscall.EIO, "%s", sp.name)
		got := s.since(n)
		require.NotEmpty(t, got)
		for _, r := range got {
			assert.Equal(t, fault, r.Fault)
			assert.Equal(t, map[nginxtest.FaultKind]int{nginxtest.IgnoreRange: 200, nginxtest.WrongContentRange: 206}[fault], r.Status)
		}
		requireAlive(t, mnt, pid)
		s.proxy.SetDefault(nginxtest.Fault{})
		sp.requireRead(t, mnt)
	}
}

// TestInspectRemoteBadRanges: fsinspect of a server that ignores Range
// (nginx with max_ranges 0) or sends a wrong Content-Range exits 2, as
// the README documents for unreadable input, with one line naming the
// file's URL and the problem; fsmount of the first mounts nothing and
// exits 2 too.
func TestInspectRemoteBadRanges(t *testing.T) {
	s := newFaultSite(t)
	norange := s.srv.URL + "/norange/m/"
	r := runCmd(t, "fsinspect", norange)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	assert.Contains(t, r.stderr, norange+"model.safetensors: remote: range_ignored (HTTP 200)")
	assert.Empty(t, r.stdout)

	requireFUSE(t)
	mnt := t.TempDir()
	r = runCmd(t, "fsmount", norange, mnt)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Contains(t, r.stderr, "range_ignored")
	assert.False(t, mounted(t, mnt))

	s.proxy.SetDefault(nginxtest.Fault{Kind: nginxtest.WrongContentRange})
	r = runCmd(t, "fsinspect", s.url)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	assert.Regexp(t, `^fsinspect: `+regexp.QuoteMeta(s.url)+`(config\.json|model\.safetensors): remote: bad_content_range \(HTTP 206\): `, r.stderr)
}

// TestInspectRemoteRetried: fsinspect through a proxy that answers the
// first request for each file 503 still checks the model, with the
// report it gives without the fault; each file was asked again after its
// 503.
func TestInspectRemoteRetried(t *testing.T) {
	s := newFaultSite(t)
	direct := runCmd(t, "fsinspect", s.srv.URL+"/m/")
	require.Equal(t, 0, direct.code, direct.stderr)
	files := []string{"/m/config.json", s.file}
	for _, f := range files {
		s.proxy.Inject(f, nginxtest.Fault{Kind: nginxtest.Status, Status: 503})
	}
	r := runCmd(t, "fsinspect", s.url)
	require.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, strings.ReplaceAll(direct.stdout, s.srv.URL+"/m/", "LOC"), strings.ReplaceAll(r.stdout, s.url, "LOC"))
	for _, f := range files {
		var got []nginxtest.ProxyRequest
		for _, q := range s.proxy.Requests() {
			if q.Path == f {
				got = append(got, q)
			}
		}
		require.GreaterOrEqual(t, len(got), 2, "%s: %+v", f, got)
		assert.Equal(t, 503, got[0].Status, f)
		assert.Contains(t, []int{200, 206}, got[1].Status, f)
		assert.Equal(t, got[0].Range, got[1].Range, f)
	}
}

// TestInspectRemoteTimeout: fsinspect --timeout 2s of a server whose
// bodies stall exits 2, rather than hang, with one line naming the URL
// and how far the body came.
func TestInspectRemoteTimeout(t *testing.T) {
	s := newFaultSite(t)
	s.proxy.SetDefault(nginxtest.Fault{Kind: nginxtest.Stall, After: 100, Stall: time.Minute})
	start := time.Now()
	r := runCmd(t, "fsinspect", "--timeout", faultTimeout.String(), s.url)
	took := time.Since(start)
	assert.Less(t, took, hangBound)
	assert.Equal(t, 2, r.code, r.stderr)
	assert.Equal(t, 1, strings.Count(r.stderr, "\n"), "one line: %q", r.stderr)
	// Which of the read's deadline and the stall timer (both --timeout)
	// fires first is a matter of a millisecond.
	d := regexp.QuoteMeta(faultTimeout.String())
	assert.Regexp(t, `^fsinspect: `+regexp.QuoteMeta(s.url)+`(config\.json|model\.safetensors): remote: timeout: (no answer within `+d+` \(with retries\): body cut|body stalled for `+d+`) after 100 of \d+ bytes`, r.stderr)
	assert.Empty(t, r.stdout)
	t.Logf("exit %d after %v: %s", r.code, took.Round(time.Millisecond), r.stderr)

	for _, cmd := range []string{"fsinspect", "fsmount"} {
		assert.Contains(t, runCmd(t, cmd, "--help").stdout, "  --timeout DUR", cmd)
	}
}

// s3Shared is the SeaweedFS of the e2e tests, started by the first test
// that needs it and stopped by TestMain.
var s3Shared struct {
	once sync.Once
	srv  *s3test.Server
	err  error
	dir  string
	tiny string // the local copy of s3://models/tiny/
}

// stopS3 stops the shared SeaweedFS, if one was started.
func stopS3() {
	if s3Shared.srv != nil {
		s3Shared.srv.Stop()
	}
	if s3Shared.dir != "" {
		os.RemoveAll(s3Shared.dir)
	}
}

// s3Server returns the shared SeaweedFS holding the tiny model under
// s3://models/tiny/ and points the AWS variables at it with the reader's
// key (and a cache directory of the test's own); it skips t without a
// weed binary, or fails it when FSMOUNT_REQUIRE_S3=1.
func s3Server(t testing.TB) *s3test.Server {
	t.Helper()
	bin := s3test.Binary(t)
	s3Shared.once.Do(func() {
		s3Shared.dir, s3Shared.err = os.MkdirTemp("", "fsmount-e2e-s3")
		if s3Shared.err != nil {
			return
		}
		s3Shared.srv, s3Shared.err = s3test.New(bin, s3Shared.dir)
		if s3Shared.err != nil {
			return
		}
		s3Shared.tiny = filepath.Join(s3Shared.dir, "tiny")
		if s3Shared.err = testmodel.WriteTiny(s3Shared.tiny, nil); s3Shared.err != nil {
			return
		}
		s3Shared.srv.CreateBucket(t, "models")
		s3Shared.srv.PutDir(t, "models", "tiny/", s3Shared.tiny)
	})
	require.NoError(t, s3Shared.err)
	s3Shared.srv.Setenv(t, s3test.Reader)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	return s3Shared.srv
}

// TestS3Inspect checks the tiny model in the store, as a prefix, as a key
// without its slash and as one file: the report is the local one, but for
// the location and the tied head, which is not compared over the network.
func TestS3Inspect(t *testing.T) {
	s3Server(t)
	local := localReport(t, s3Shared.tiny)
	const localTied = "note: lm_head.weight present but tied — a redundant byte-identical copy of embed_tokens (4,096 params counted once)"
	const remoteTied = "note: lm_head.weight present and tied, as tie_word_embeddings says (4,096 params counted once); its bytes are not compared with embed_tokens over the network — compare them by reading the tensors"
	want := strings.Replace(strings.ReplaceAll(local, s3Shared.tiny, "LOC"), localTied, remoteTied, 1)
	for _, loc := range []string{"s3://models/tiny/", "s3://models/tiny"} {
		r := runCmd(t, "fsinspect", loc)
		require.Equal(t, 0, r.code, r.stderr)
		assert.Equal(t, want, strings.ReplaceAll(r.stdout, "s3://models/tiny/", "LOC"), loc)
	}
	r := runCmd(t, "fsinspect", "s3://models/tiny/model.safetensors")
	require.Equal(t, 3, r.code, r.stderr) // a lone file: listed, not checked
	assert.Contains(t, r.stdout, "model.embed_tokens.weight")
}

// TestS3Compare: the local model and its copy in the store are identical.
func TestS3Compare(t *testing.T) {
	s3Server(t)
	r := runCmd(t, "fsinspect", "--compare", s3Shared.tiny, "--tolerance", "0", "s3://models/tiny/")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	const same = "total: 25 identical,  0 equal,  0 differ,  0 shape changed,  0 only in model,  0 only in other,  0 errors"
	assert.Contains(t, r.stdout, same)
	r = runCmd(t, "fsinspect", "--compare", "s3://models/tiny/", s3Shared.tiny)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, same)
}

// TestS3Errors: refusals are one line naming the location, exit 2, no
// secret in it, and fsmount leaves nothing mounted.
func TestS3Errors(t *testing.T) {
	srv := s3Server(t)
	for _, c := range []struct {
		name string
		key  s3test.Key
		loc  string
		want string
	}{
		{"wrong secret", s3test.Key{ID: s3test.Reader.ID, Secret: "wrong-secret-0000"}, "s3://models/tiny/", "s3://models/tiny/: access denied: the secret access key does not match the access key ID (SignatureDoesNotMatch)"},
		{"unknown key", s3test.Key{ID: "AKIAUNKNOWN000000000", Secret: "wrong-secret-0000"}, "s3://models/tiny/", "s3://models/tiny/: access denied: the store does not know the access key ID in use (InvalidAccessKeyId)"},
		{"no rights", s3test.Stranger, "s3://models/tiny/", "s3://models/tiny/config.json: access denied: the credentials in use may not read it (AccessDenied)"},
		{"no bucket", s3test.Reader, "s3://nosuchbucket/tiny/", "s3://nosuchbucket/tiny/: no such bucket at " + srv.URL},
		{"no key", s3test.Reader, "s3://models/tiny/nope.safetensors", "s3://models/tiny/nope.safetensors: no such key"},
		{"no credentials", s3test.Key{}, "s3://models/tiny/", "s3://models/tiny/: no AWS credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE); for a public bucket, use --no-sign-request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv.Setenv(t, c.key)
			r := runCmd(t, "fsinspect", c.loc)
			assert.Equal(t, 2, r.code, r.stdout+r.stderr)
			assert.Equal(t, "fsinspect: "+c.want+"\n", r.stderr)
			if c.key.Secret != "" {
				assert.NotContains(t, r.stderr, c.key.Secret)
			}
			if c.name == "no bucket" || c.name == "wrong secret" {
				requireFUSE(t)
				mnt := t.TempDir()
				r := runCmd(t, "fsmount", c.loc, mnt)
				assert.Equal(t, 2, r.code, r.stderr)
				assert.Equal(t, "fsmount: "+c.want+"\n", r.stderr)
				assert.False(t, mounted(t, mnt), "nothing mounted")
			}
		})
	}
}

// TestS3Mount mounts the model from the store: data is the file's bytes,
// the verdict the local one; the secret is in neither the daemon's
// command line nor fsmount --list.
func TestS3Mount(t *testing.T) {
	s3Server(t)
	mnt, pid := mountModel(t, "s3://models/tiny/")
	assertServesTiny(t, mnt, s3Shared.tiny)
	cfg, err := os.ReadFile(filepath.Join(mnt, "files", "config.json"))
	require.NoError(t, err)
	local, err := os.ReadFile(filepath.Join(s3Shared.tiny, "config.json"))
	require.NoError(t, err)
	assert.Equal(t, local, cfg)

	cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	require.NoError(t, err)
	assert.Contains(t, string(cmdline), "s3://models/tiny/")
	assert.NotContains(t, string(cmdline), s3test.Reader.Secret)
	assert.NotContains(t, string(cmdline), s3test.Reader.ID)
	r := runCmd(t, "fsmount", "--list")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "s3://models/tiny/")
	assert.NotContains(t, r.stdout, s3test.Reader.Secret)
}

// TestS3MountOverwritten: a file overwritten in the store under a mount
// gives EIO for what was not read yet (tensor c, beyond the readahead of
// reading a), never the new bytes.
func TestS3MountOverwritten(t *testing.T) {
	srv := s3Server(t)
	const part, gap = 8 << 20, 64 << 20
	entries := []testmodel.Entry{
		{Name: "a", DType: "U8", Shape: []uint64{part}, Offsets: [2]uint64{0, part}},
		{Name: "b", DType: "U8", Shape: []uint64{gap}, Offsets: [2]uint64{part, part + gap}},
		{Name: "c", DType: "U8", Shape: []uint64{part}, Offsets: [2]uint64{part + gap, 2*part + gap}},
	}
	file := filepath.Join(t.TempDir(), "three.safetensors")
	require.NoError(t, testmodel.WriteSparse(file, entries, nil))
	data, err := os.ReadFile(file)
	require.NoError(t, err)
	srv.Put(t, "models", "over/three.safetensors", data)
	mnt, pid := mountModel(t, "s3://models/over/three.safetensors")
	got, err := os.ReadFile(filepath.Join(mnt, "a", "data"))
	require.NoError(t, err)
	assert.Equal(t, make([]byte, part), got)
	srv.Put(t, "models", "over/three.safetensors", bytes.Repeat([]byte{1}, len(data)))
	_, err = os.ReadFile(filepath.Join(mnt, "c", "data"))
	assert.ErrorIs(t, err, syscall.EIO)
	assert.True(t, fusetest.Alive(pid))
}

// TestS3HeaderOnly160 checks the 160-shard layout in the store through a
// counting proxy: one ListObjectsV2, one GET each for the config and the
// index, none for model.safetensors (the listing shows there is none),
// and at most two GETs per shard.
func TestS3HeaderOnly160(t *testing.T) {
	p := s3Proxy160(t, "m160")
	r := runCmd(t, "fsinspect", "s3://m160/llama/")
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	perShard := map[string]int{}
	other := map[string]int{}
	for _, q := range p.Requests() {
		if strings.HasSuffix(q.Path, "-of-00160.safetensors") {
			perShard[q.Path]++
			assert.Equal(t, 206, q.Status, "%+v", q)
		} else {
			other[q.Path]++
		}
		assert.True(t, q.Auth, "signed: %+v", q)
	}
	assert.Len(t, perShard, 160)
	for s, n := range perShard {
		assert.LessOrEqual(t, n, 2, s)
	}
	t.Logf("shard GETs %d, other requests %v", sum(perShard), other)
	assert.Equal(t, map[string]int{"/m160/": 1, "/m160/llama/config.json": 1, "/m160/llama/model.safetensors.index.json": 1}, other)
}

// s3Proxy160 puts the 160-shard layout of write160 in a new bucket of
// the store, under llama/, and points AWS_ENDPOINT_URL at a proxy before
// the store that counts the requests (and keeps the Host header, which
// the signatures cover).
func s3Proxy160(tb testing.TB, bucket string) *nginxtest.Proxy {
	srv := s3Server(tb)
	root := tb.TempDir()
	write160(tb, root)
	srv.CreateBucket(tb, bucket)
	srv.PutDir(tb, bucket, "llama/", root)
	p := nginxtest.NewProxy(tb, srv.URL)
	p.KeepHost()
	tb.Setenv("AWS_ENDPOINT_URL", p.URL)
	return p
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

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

// BenchmarkS3HeaderCheck160 checks the 160-shard layout in SeaweedFS
// through a proxy that adds 20 ms to every request, with a fresh cache
// each time, and reports the GETs per shard counted by the proxy (the
// mean, and the most any shard took: the target is at most 2) and the
// median wall time of fsinspect (the target is 1.5 s).
func BenchmarkS3HeaderCheck160(b *testing.B) {
	// A bucket of its own per run: the store outlives a run (-count N).
	bucket := fmt.Sprintf("b160-%d", s3BenchRuns.Add(1))
	p := s3Proxy160(b, bucket)
	p.SetDefault(nginxtest.Fault{Kind: nginxtest.Pass, Latency: 20 * time.Millisecond})
	fsinspect := filepath.Join(binDir, "fsinspect")
	var walls []float64
	perShard := map[string]int{}
	for b.Loop() {
		before := len(p.Requests())
		cmd := exec.Command(fsinspect, "s3://"+bucket+"/llama/")
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
// measure: the daemon's exit is waited for and its cache removed. Before
// it is removed, the bytes the disk cache holds are counted: min-cached
// is the least fraction of the tensor any cat left there (1: a second
// mount would read it all from disk), so that no speed is bought by
// leaving chunks out of the cache.
func BenchmarkS3FirstCat(b *testing.B) {
	srv := s3Server(b)
	fusetest.RequireFUSE(b)
	const size = 300 << 20
	if s3BenchBucket("big") {
		file := filepath.Join(b.TempDir(), "model.safetensors")
		writeRandomTensor(b, file, size)
		srv.CreateBucket(b, "big")
		srv.PutFile(b, "big", "one/model.safetensors", file)
		st, err := os.Stat(file)
		if err != nil {
			b.Fatal(err)
		}
		s3BigSize = st.Size()
	}
	off := s3BigSize - size // the data is at the end of the file
	fsmount := filepath.Join(binDir, "fsmount")
	mb := float64(size) / (1 << 20)
	minCached := 1.0
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
		minCached = min(minCached, float64(cachedBytes(b, cache))/size)
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
	b.ReportMetric(minCached, "min-cached")
}

// cachedBytes returns the bytes allocated to the chunk files (*.data) of
// a disk cache directory: sparse files, so what the chunks written take.
func cachedBytes(b *testing.B, dir string) int64 {
	files, err := filepath.Glob(filepath.Join(dir, "*.data"))
	if err != nil {
		b.Fatal(err)
	}
	var n int64
	for _, f := range files {
		var st syscall.Stat_t
		if err := syscall.Stat(f, &st); err != nil {
			b.Fatal(err)
		}
		n += st.Blocks * 512
	}
	return n
}

// The store outlives a benchmark (s3Server shares one per process), so
// with -count N the 300 MiB tensor's bucket is made and filled once, and
// each run of the 160-shard check (small files) gets a bucket of its own.
var (
	s3BenchMu   sync.Mutex
	s3BenchMade = map[string]bool{}
	s3BigSize   int64 // the size of big/one/model.safetensors
	s3BenchRuns atomic.Int64
)

// s3BenchBucket reports whether bucket is still to be made and filled
// (by the caller, now): true the first time it is asked for.
func s3BenchBucket(bucket string) bool {
	s3BenchMu.Lock()
	defer s3BenchMu.Unlock()
	if s3BenchMade[bucket] {
		return false
	}
	s3BenchMade[bucket] = true
	return true
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
