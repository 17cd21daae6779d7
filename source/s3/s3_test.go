package s3_test

import (
	"bytes"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/s3test"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/source/remote"
	"github.com/fsmount/fsmount/source/s3"
)

func opts(t *testing.T) remote.Options {
	return remote.Options{CacheDir: t.TempDir()}
}

// TestLocationForms opens every form of location on the real store and
// finds the model's tensors, byte for byte those of the local copy.
func TestLocationForms(t *testing.T) {
	server(t)
	local, err := model.Open(shared.tiny)
	require.NoError(t, err)
	defer local.Close()
	for _, c := range []struct {
		loc, root, file string
	}{
		{"s3://models/tiny/", "s3://models/tiny/", ""},
		{"s3://models/tiny", "s3://models/tiny/", ""},
		{"s3://models/deep/er/tiny/", "s3://models/deep/er/tiny/", ""},
		{"s3://models/tiny/model.safetensors", "s3://models/tiny/", "model.safetensors"},
		{"s3://rooted", "s3://rooted/", ""},
		{"s3://rooted/", "s3://rooted/", ""},
		{"s3://rooted/model.safetensors", "s3://rooted/", "model.safetensors"},
	} {
		t.Run(c.loc, func(t *testing.T) {
			fsys, file, ok, err := s3.ParseLocation(c.loc, opts(t))
			require.NoError(t, err)
			require.True(t, ok)
			assert.Equal(t, c.root, fsys.String())
			assert.Equal(t, c.file, file)
			m, err := model.OpenWith(c.loc, &remote.Options{CacheDir: t.TempDir()})
			require.NoError(t, err)
			defer m.Close()
			require.Len(t, m.Tensors(), len(local.Tensors()))
			assert.Equal(t, c.file == "", m.Config != nil, "a directory has its config")
			for i, lt := range local.Tensors() {
				rt := m.Tensors()[i]
				require.Equal(t, lt.Name, rt.Name)
				a, b := make([]byte, lt.Length), make([]byte, rt.Length)
				_, err := lt.Reader().ReadAt(a, 0)
				require.NoError(t, err)
				_, err = rt.Reader().ReadAt(b, 0)
				require.NoError(t, err)
				require.True(t, bytes.Equal(a, b), lt.Name)
			}
			if c.file == "" {
				names, err := fsys.List()
				require.NoError(t, err)
				assert.Equal(t, []string{"config.json", "model.safetensors"}, names)
			}
		})
	}
	_, _, ok, err := s3.ParseLocation("/some/dir", remote.Options{})
	assert.False(t, ok)
	assert.NoError(t, err)
}

// TestPublicBucket reads a public bucket unsigned, and is refused an
// unsigned read of a private one with a hint.
func TestPublicBucket(t *testing.T) {
	srv := server(t)
	srv.Setenv(t, s3test.Key{})
	o := opts(t)
	o.NoSignRequest = true
	m, err := model.OpenWith("s3://"+s3test.Public+"/tiny/", &o)
	require.NoError(t, err)
	m.Close()
	_, err = model.OpenWith("s3://models/tiny/", &o)
	require.Error(t, err)
	assert.True(t, errors.Is(err, s3.ErrDenied), "%v", err)
	assert.Contains(t, err.Error(), "unsigned")
}

// TestErrors: every refusal is one line naming the location, with its
// code, and no secret in it.
func TestErrors(t *testing.T) {
	srv := server(t)
	ngx := nginxtest.Start(t, t.TempDir())
	for _, c := range []struct {
		name string
		key  s3test.Key
		env  []string
		loc  string
		code s3.Code
		want string
	}{
		{"unknown key ID", s3test.Key{ID: "AKIANOSUCHKEY0000000", Secret: "x"}, nil, "s3://models/tiny/", s3.CodeDenied, "s3://models/tiny/: access denied: the store does not know the access key ID"},
		{"wrong secret", s3test.Key{ID: s3test.Reader.ID, Secret: "not-the-secret"}, nil, "s3://models/tiny/", s3.CodeDenied, "s3://models/tiny/: access denied: the secret access key does not match"},
		{"no rights", s3test.Stranger, nil, "s3://models/tiny/model.safetensors", s3.CodeDenied, "s3://models/tiny/model.safetensors: access denied"},
		{"no bucket", s3test.Reader, nil, "s3://nosuchbucket/tiny/", s3.CodeNoBucket, "s3://nosuchbucket/tiny/: no such bucket at " + srv.URL},
		{"no key", s3test.Reader, nil, "s3://models/tiny/nosuch.safetensors", s3.CodeNoKey, "s3://models/tiny/nosuch.safetensors: no such key"},
		{"no prefix", s3test.Reader, nil, "s3://models/nothing/", s3.CodeNoKey, "s3://models/nothing/: no such prefix"},
		{"no object", s3test.Reader, nil, "s3://models/nothing", s3.CodeNoKey, "s3://models/nothing: no such key"},
		{"no credentials", s3test.Key{}, nil, "s3://models/tiny/", s3.CodeNoCredentials, "s3://models/tiny/: no AWS credentials found (set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE); for a public bucket, use --no-sign-request"},
		{"not S3", s3test.Reader, []string{"AWS_ENDPOINT_URL=" + ngx.URL}, "s3://models/tiny/", s3.CodeNotS3, "s3://models/tiny/: " + ngx.URL + " does not answer as an S3 store (HTTP 404 text/html"},
		{"endpoint with a password", s3test.Reader, []string{"AWS_ENDPOINT_URL=http://u:hunter2@127.0.0.1:1"}, "s3://models/tiny/", s3.CodeBadLocation, "carries credentials"},
		{"credentials in the location", s3test.Reader, nil, "s3://AKID:hunter2@models/tiny/", s3.CodeBadLocation, "credentials and ports do not go in an s3:// location"},
		{"bad bucket", s3test.Reader, nil, "s3://a/tiny/", s3.CodeBadLocation, "want s3://BUCKET/PREFIX/"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv.Setenv(t, c.key)
			for _, kv := range c.env {
				k, v, _ := strings.Cut(kv, "=")
				t.Setenv(k, v)
			}
			_, err := model.OpenWith(c.loc, &remote.Options{CacheDir: t.TempDir()})
			require.Error(t, err)
			msg := err.Error()
			assert.Equal(t, c.code, s3.CodeOf(err), msg)
			assert.True(t, strings.HasPrefix(msg, strings.SplitN(c.loc, "@", 2)[0][:5]), msg)
			assert.Contains(t, msg, c.want)
			assert.NotContains(t, msg, "\n")
			for _, secret := range []string{c.key.Secret, "hunter2", s3test.Reader.Secret} {
				if secret != "" {
					assert.NotContains(t, msg, secret)
				}
			}
		})
	}
}

// TestWrongRegion: SeaweedFS serves every region, so AWS's two answers to
// a request signed for the wrong region (a 301 PermanentRedirect with
// x-amz-bucket-region, a 400 AuthorizationHeaderMalformed naming the
// region), recorded from its documentation, are replayed by a stub.
func TestWrongRegion(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		header string
		body   string
	}{
		{"301", http.StatusMovedPermanently, "eu-west-1", `<?xml version="1.0" encoding="UTF-8"?><Error><Code>PermanentRedirect</Code><Message>The bucket you are attempting to access must be addressed using the specified endpoint. Please send all future requests to this endpoint.</Message><Endpoint>models.s3.eu-west-1.amazonaws.com</Endpoint><Bucket>models</Bucket></Error>`},
		{"400", http.StatusBadRequest, "", `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AuthorizationHeaderMalformed</Code><Message>The authorization header is malformed; the region 'us-east-1' is wrong; expecting 'eu-west-1'</Message><Region>eu-west-1</Region></Error>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if c.header != "" {
					w.Header().Set("X-Amz-Bucket-Region", c.header)
				}
				w.Header().Set("Content-Type", "application/xml")
				w.WriteHeader(c.status)
				w.Write([]byte(c.body))
			}))
			defer stub.Close()
			s := &s3test.Server{URL: stub.URL}
			s.Setenv(t, s3test.Reader)
			_, _, _, err := s3.ParseLocation("s3://models/tiny/", opts(t))
			require.Error(t, err)
			assert.Equal(t, s3.CodeWrongRegion, s3.CodeOf(err))
			assert.Equal(t, "s3://models/tiny/: wrong region: the bucket is in eu-west-1, not us-east-1; set AWS_REGION=eu-west-1", err.Error())
		})
	}
}

// proxied returns an FS of s3://models/blobs/ through a counting proxy in
// front of the shared server.
func proxied(t *testing.T, o remote.Options) (*s3.FS, *nginxtest.Proxy) {
	srv := server(t)
	p := nginxtest.NewProxy(t, srv.URL)
	p.KeepHost()
	t.Setenv("AWS_ENDPOINT_URL", p.URL)
	if o.CacheDir == "" {
		o.CacheDir = t.TempDir()
	}
	f, file, err := s3.Open("s3://models/blobs/", o)
	require.NoError(t, err)
	require.Empty(t, file)
	t.Cleanup(func() { f.Close() })
	return f, p
}

// TestLazy: opening a file costs one GET of its first chunk; a read
// further in one ranged GET of the chunks it needs, carrying If-Match.
func TestLazy(t *testing.T) {
	f, p := proxied(t, remote.Options{MaxReadahead: -1})
	n := len(p.Requests())
	file, err := f.Open("big.bin")
	require.NoError(t, err)
	defer file.Close()
	assert.Equal(t, int64(len(shared.big)), file.Size())
	buf := make([]byte, 1000)
	_, err = file.ReadAt(buf, 3<<20+5)
	require.NoError(t, err)
	assert.Equal(t, shared.big[3<<20+5:3<<20+1005], buf)
	reqs := p.Requests()[n:]
	require.Len(t, reqs, 2)
	assert.Equal(t, "bytes=0-1048575", reqs[0].Range)
	assert.Equal(t, "bytes=3145728-4194303", reqs[1].Range)
	for _, r := range reqs {
		assert.True(t, r.Auth, "signed")
		assert.Equal(t, "/models/blobs/big.bin", r.Path)
	}
}

// TestSlowDown: 503s are retried, then the read succeeds.
func TestSlowDown(t *testing.T) {
	f, p := proxied(t, remote.Options{RetryBase: 10 * time.Millisecond})
	p.Inject("/models/blobs/big.bin", nginxtest.Fault{Kind: nginxtest.Status, Status: 503},
		nginxtest.Fault{Kind: nginxtest.Status, Status: 503})
	file, err := f.Open("big.bin")
	require.NoError(t, err)
	defer file.Close()
	assert.Equal(t, int64(len(shared.big)), file.Size())
}

// TestOverwritten: an object overwritten under an open file fails the
// next read with a changed error (EIO), never old and new bytes mixed;
// opened again, it is the new object.
func TestOverwritten(t *testing.T) {
	srv := server(t)
	data := bytes.Repeat([]byte("a"), 3<<20)
	srv.Put(t, "models", "over/x.bin", data)
	f, _, err := s3.Open("s3://models/over/", opts(t))
	require.NoError(t, err)
	defer f.Close()
	file, err := f.Open("x.bin")
	require.NoError(t, err)
	defer file.Close()
	srv.Put(t, "models", "over/x.bin", bytes.Repeat([]byte("b"), 3<<20))
	buf := make([]byte, 10)
	_, err = file.ReadAt(buf, 2<<20)
	require.Error(t, err)
	assert.True(t, errors.Is(err, source.ErrChanged), "%v", err)
	assert.Equal(t, remote.CodeChanged, remote.CodeOf(err))
	assert.Contains(t, err.Error(), "s3://models/over/x.bin")
	again, err := f.Open("x.bin")
	require.NoError(t, err)
	defer again.Close()
	_, err = again.ReadAt(buf, 2<<20)
	require.NoError(t, err)
	assert.Equal(t, bytes.Repeat([]byte("b"), 10), buf)
}

// TestRestart: a read while the store is down fails (after its retries,
// each refused at once: no clock to race), as unavailable; once the store
// is back and serves the object again, the same open file reads it.
func TestRestart(t *testing.T) {
	server(t) // skips without weed
	srv := s3test.Start(t)
	srv.Setenv(t, s3test.Reader)
	srv.CreateBucket(t, "models")
	srv.Put(t, "models", "blobs/big.bin", shared.big)
	f, _, err := s3.Open("s3://models/blobs/", remote.Options{CacheDir: t.TempDir(), MaxRetries: 2, RetryBase: 50 * time.Millisecond, ReadTimeout: 2 * time.Minute})
	require.NoError(t, err)
	defer f.Close()
	file, err := f.Open("big.bin")
	require.NoError(t, err)
	defer file.Close()
	srv.Stop()
	buf := make([]byte, 100)
	_, err = file.ReadAt(buf, 4<<20)
	require.Error(t, err)
	assert.Equal(t, remote.CodeUnavailable, remote.CodeOf(err), "%v", err)
	srv.Restart(t, "models", "blobs/big.bin")
	_, err = file.ReadAt(buf, 4<<20)
	require.NoError(t, err)
	assert.Equal(t, shared.big[4<<20:4<<20+100], buf)
}

// TestNotExist: a missing key matches fs.ErrNotExist, so a model's
// optional files are told apart from errors.
func TestNotExist(t *testing.T) {
	server(t)
	f, _, err := s3.Open("s3://models/tiny/", opts(t))
	require.NoError(t, err)
	defer f.Close()
	_, err = f.Open("model.safetensors.index.json")
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
	assert.Equal(t, "s3://models/tiny/model.safetensors.index.json: no such key", err.Error())
}
