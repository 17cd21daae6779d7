package e2e

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
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
	raw, err := os.ReadFile(filepath.Join(root, "tiny", "model.safetensors"))
	require.NoError(t, err)
	var name string
	var off, n int64
	loc, err := os.ReadFile(filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "location"))
	require.NoError(t, err)
	_, err = fmt.Sscan(string(loc), &name, &off, &n)
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "data"))
	require.NoError(t, err)
	assert.Equal(t, raw[off:off+n], got)
	v, err := os.ReadFile(filepath.Join(mnt, "verdict"))
	require.NoError(t, err)
	assert.Contains(t, string(v), "✓ all 25 expected tensors present")
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

	got, err := os.ReadFile(filepath.Join(mnt, "a", "data"))
	require.NoError(t, err)
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
			want, err := os.ReadFile(filepath.Join(tiny, n))
			require.NoError(t, err)
			b, err := os.ReadFile(filepath.Join(mnt, "files", n))
			require.NoError(t, err)
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
		_, err := os.ReadFile(filepath.Join(mnt, "layers", "0", "self_attn", "q_proj", "data"))
		require.NoError(t, err)
		r := runCmd(t, "fsmount", "-u", mnt)
		require.Equal(t, 0, r.code, r.stderr)
		n := 0
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				n++
			}
			return nil
		})
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
	summary, err := os.ReadFile(filepath.Join(mnt, "compare", "summary"))
	require.NoError(t, err)
	assert.Contains(t, string(summary), "identical")
	r := runCmd(t, "fsmount", "-u", mnt)
	require.Equal(t, 0, r.code, r.stderr)
	n := 0
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	assert.Positive(t, n, "the other model's chunks are cached in --cache-dir")
}
