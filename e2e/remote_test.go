package e2e

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/nginxtest"
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
		if f == "model.safetensors" {
			// Asked first, as transformers does; absent here.
			assert.Equal(t, 404, q.Status, "%+v", q)
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
