package e2e

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/s3test"
	"github.com/fsmount/fsmount/internal/testmodel"
)

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
