// Package s3test runs SeaweedFS (the `weed` binary), a real S3-compatible
// store, for the tests of s3:// locations: on loopback ports, in a
// temporary directory, with credentials of its own, stopped when the test
// ends. It also uploads objects, signed as any S3 client signs them.
//
// The binary is $FSMOUNT_WEED, else `weed` on PATH, else the one
// .ci/seaweedfs.sh builds into ~/.cache/fsmount-ci. Without one, tests
// skip, or fail when FSMOUNT_REQUIRE_S3=1 (as .ci/run sets).
package s3test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"github.com/fsmount/fsmount/internal/fusetest"
)

// RequireEnv turns a missing weed binary into a test failure.
const RequireEnv = "FSMOUNT_REQUIRE_S3"

// The credentials the server knows. Admin may do anything; Reader may
// read and list every bucket; Stranger may read only a bucket named
// "elsewhere". Anonymous requests may read and list the bucket Public.
var (
	Admin    = Key{ID: "FSMTESTADMIN0000000A", Secret: "admin-secret-0000000000000000000000000a"}
	Reader   = Key{ID: "FSMTESTREADER000000R", Secret: "reader-secret-000000000000000000000000r"}
	Stranger = Key{ID: "FSMTESTSTRANGER0000S", Secret: "stranger-secret-0000000000000000000000s"}
)

// Public is the bucket anonymous requests may read.
const Public = "public"

// Key is an access key ID and its secret.
type Key struct{ ID, Secret string }

// Env returns the environment variables that point an AWS client at s
// with key k (and no profile, no instance metadata).
func (s *Server) Env(k Key) []string {
	env := []string{
		"AWS_ENDPOINT_URL=" + s.URL,
		"AWS_REGION=us-east-1",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_CONFIG_FILE=" + filepath.Join(s.dir, "no-aws-config"),
		"AWS_SHARED_CREDENTIALS_FILE=" + filepath.Join(s.dir, "no-aws-credentials"),
	}
	if k.ID != "" {
		env = append(env, "AWS_ACCESS_KEY_ID="+k.ID, "AWS_SECRET_ACCESS_KEY="+k.Secret)
	}
	return env
}

// Setenv sets s.Env(k) for the rest of the test, and unsets the AWS
// variables it does not set.
func (s *Server) Setenv(t testing.TB, k Key) {
	t.Helper()
	for _, v := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_ENDPOINT_URL_S3", "AWS_DEFAULT_REGION"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	for _, kv := range s.Env(k) {
		name, val, _ := strings.Cut(kv, "=")
		t.Setenv(name, val)
	}
}

// Binary returns the path of the weed binary, or skips the test (fails it
// when FSMOUNT_REQUIRE_S3=1) if there is none.
func Binary(t testing.TB) string {
	t.Helper()
	p, err := Find()
	if err == nil {
		return p
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%v and %s=1", err, RequireEnv)
	}
	t.Skipf("%v; set %s=1 to make this a failure", err, RequireEnv)
	return ""
}

// Find returns the path of the weed binary: $FSMOUNT_WEED, else weed on
// PATH, else the one .ci/seaweedfs.sh keeps in ~/.cache/fsmount-ci.
func Find() (string, error) {
	if p := os.Getenv("FSMOUNT_WEED"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("FSMOUNT_WEED: %w", err)
		}
		return p, nil
	}
	if p, err := exec.LookPath("weed"); err == nil {
		return p, nil
	}
	if home, err := os.UserHomeDir(); err == nil {
		if m, _ := filepath.Glob(filepath.Join(home, ".cache", "fsmount-ci", "weed-v*")); len(m) > 0 {
			return m[len(m)-1], nil
		}
	}
	return "", errors.New("no weed binary (SeaweedFS): .ci/seaweedfs.sh builds one, FSMOUNT_WEED names it")
}

// Server is a running SeaweedFS with its S3 gateway.
type Server struct {
	URL string // http://127.0.0.1:PORT of the S3 gateway, no trailing slash

	bin   string
	dir   string
	args  []string
	mu    sync.Mutex
	cmd   *exec.Cmd
	done  chan struct{}
	out   *fusetest.SyncBuffer
	hc    *http.Client
	sign  *v4.Signer
	ports []int
}

// Start runs SeaweedFS (weed mini: master, volume server, filer and S3
// gateway in one process) until the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary(t)
	s, err := New(bin, t.TempDir())
	if err != nil {
		t.Fatalf("SeaweedFS did not start: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// New runs SeaweedFS from bin with its data under dir (which must exist)
// until Stop, trying three sets of ports.
func New(bin, dir string) (*Server, error) {
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		sub := filepath.Join(dir, strconv.Itoa(attempt))
		if err := os.MkdirAll(sub, 0o700); err != nil {
			return nil, err
		}
		s, err := start(bin, sub)
		if err == nil {
			return s, nil
		}
		last = err
	}
	return nil, last
}

func start(bin, dir string) (*Server, error) {
	ports := make([]int, 9)
	for i := range ports {
		p, err := fusetest.FreePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	conf := map[string]any{"identities": []any{
		map[string]any{"name": "admin", "credentials": []any{map[string]string{"accessKey": Admin.ID, "secretKey": Admin.Secret}},
			"actions": []string{"Admin", "Read", "List", "Tagging", "Write"}},
		map[string]any{"name": "reader", "credentials": []any{map[string]string{"accessKey": Reader.ID, "secretKey": Reader.Secret}},
			"actions": []string{"Read", "List"}},
		map[string]any{"name": "stranger", "credentials": []any{map[string]string{"accessKey": Stranger.ID, "secretKey": Stranger.Secret}},
			"actions": []string{"Read:elsewhere", "List:elsewhere"}},
		map[string]any{"name": "anonymous", "actions": []string{"Read:" + Public, "List:" + Public}},
	}}
	cj, _ := json.Marshal(conf)
	confPath := filepath.Join(dir, "s3.json")
	if err := os.WriteFile(confPath, cj, 0o600); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return nil, err
	}
	p := func(i int) string { return strconv.Itoa(ports[i]) }
	s := &Server{
		URL: "http://127.0.0.1:" + p(0),
		bin: bin, dir: dir, ports: ports,
		args: []string{"mini", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
			"-s3.port=" + p(0), "-s3.port.grpc=" + p(1),
			"-master.port=" + p(2), "-master.port.grpc=" + p(3),
			"-volume.port=" + p(4), "-volume.port.grpc=" + p(5),
			"-filer.port=" + p(6), "-filer.port.grpc=" + p(7),
			"-s3.port.iceberg=0", "-s3.port.lance=0", "-webdav=false", "-admin.ui=false",
			"-master.telemetry=false", "-master.volumeSizeLimitMB=64", "-volume.max=0",
			"-s3.config=" + confPath},
		hc:   &http.Client{Timeout: 5 * time.Minute},
		sign: v4.NewSigner(),
	}
	if err := s.run(); err != nil {
		return nil, err
	}
	return s, nil
}

// run starts the process and waits for the S3 gateway to answer.
func (s *Server) run() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.out = &fusetest.SyncBuffer{}
	cmd := exec.Command(s.bin, s.args...)
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		return err
	}
	s.cmd, s.done = cmd, make(chan struct{})
	done := s.done
	go func() { cmd.Wait(); close(done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		// The gateway is up once a signed ListBuckets answers 200.
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/", nil)
		if resp, err := s.do(req, Admin, nil); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-done:
			return fmt.Errorf("weed exited: %s", tail(s.out))
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.stopLocked()
			return fmt.Errorf("weed's S3 gateway did not answer within 60s: %s", tail(s.out))
		}
	}
}

func tail(w *fusetest.SyncBuffer) string {
	s := w.String()
	if len(s) > 4000 {
		s = s[len(s)-4000:]
	}
	return s
}

// Stop stops the server (its data stays for Restart).
func (s *Server) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *Server) stopLocked() {
	if s.cmd == nil {
		return
	}
	select {
	case <-s.done:
	default:
		s.cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.done:
		case <-time.After(10 * time.Second):
			s.cmd.Process.Kill()
			<-s.done
		}
	}
	s.cmd = nil
}

// Restart starts a stopped server again on the same ports and data, and
// waits until it serves bucket/key, an object stored before the stop:
// the gateway answers before the volume server holding the data has
// registered again, and a read in between fails (under load, for
// seconds).
func (s *Server) Restart(t testing.TB, bucket, key string) {
	t.Helper()
	if err := s.run(); err != nil {
		t.Fatalf("SeaweedFS did not start again: %v", err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequest(http.MethodGet, s.URL+"/"+bucket+"/"+key, nil)
		req.Header.Set("Range", "bytes=0-0")
		resp, err := s.do(req, Admin, nil)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode/100 == 2 {
				return
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("SeaweedFS restarted but did not serve %s/%s within 60s: %v", bucket, key, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// do signs req with k (unsigned for a zero Key) and sends it; body, if
// not nil, is the payload whose hash is signed.
func (s *Server) do(req *http.Request, k Key, body []byte) (*http.Response, error) {
	if k.ID != "" {
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])
		req.Header.Set("X-Amz-Content-Sha256", hash)
		creds := aws.Credentials{AccessKeyID: k.ID, SecretAccessKey: k.Secret}
		if err := s.sign.SignHTTP(context.Background(), creds, req, hash, "s3", "us-east-1", time.Now(),
			func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }); err != nil {
			return nil, err
		}
	}
	return s.hc.Do(req)
}

// CreateBucket creates a bucket.
func (s *Server) CreateBucket(t testing.TB, bucket string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, s.URL+"/"+bucket, nil)
	s.expect(t, req, nil, "create bucket "+bucket)
}

// Put uploads data as bucket/key.
func (s *Server) Put(t testing.TB, bucket, key string, data []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPut, s.URL+"/"+bucket+"/"+key, bytes.NewReader(data))
	req.ContentLength = int64(len(data))
	s.expect(t, req, data, "put "+bucket+"/"+key)
}

// PutFile uploads the file at path as bucket/key, streaming it (its
// payload unsigned, as S3 allows).
func (s *Server) PutFile(t testing.TB, bucket, key, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, s.URL+"/"+bucket+"/"+key, f)
	req.ContentLength = st.Size()
	const unsigned = "UNSIGNED-PAYLOAD"
	req.Header.Set("X-Amz-Content-Sha256", unsigned)
	creds := aws.Credentials{AccessKeyID: Admin.ID, SecretAccessKey: Admin.Secret}
	if err := s.sign.SignHTTP(context.Background(), creds, req, unsigned, "s3", "us-east-1", time.Now(),
		func(o *v4.SignerOptions) { o.DisableURIPathEscaping = true }); err != nil {
		t.Fatal(err)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		t.Fatalf("put %s/%s: %v", bucket, key, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("put %s/%s: HTTP %d: %s", bucket, key, resp.StatusCode, msg)
	}
}

// GetRange reads bytes [off, off+n) of bucket/key with one ranged GET
// signed with the reader's key (the same signer and net/http as the
// reader), into w, and returns how many arrived.
func (s *Server) GetRange(t testing.TB, bucket, key string, off, n int64, w io.Writer) int64 {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/"+bucket+"/"+key, nil)
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+n-1))
	resp, err := s.do(req, Reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent {
		t.Fatalf("get %s/%s: HTTP %d", bucket, key, resp.StatusCode)
	}
	got, err := io.Copy(w, resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// PutDir uploads every regular file under dir as bucket/prefix/NAME.
func (s *Server) PutDir(t testing.TB, bucket, prefix, dir string) {
	t.Helper()
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		s.Put(t, bucket, prefix+filepath.ToSlash(rel), data)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Delete removes bucket/key.
func (s *Server) Delete(t testing.TB, bucket, key string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, s.URL+"/"+bucket+"/"+key, nil)
	s.expect(t, req, nil, "delete "+bucket+"/"+key)
}

// Get reads bucket/key whole with the reader's key.
func (s *Server) Get(t testing.TB, bucket, key string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, s.URL+"/"+bucket+"/"+key, nil)
	resp, err := s.do(req, Reader, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("get %s/%s: HTTP %d %v", bucket, key, resp.StatusCode, err)
	}
	return b
}

func (s *Server) expect(t testing.TB, req *http.Request, body []byte, what string) {
	t.Helper()
	resp, err := s.do(req, Admin, body)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s: HTTP %d: %s", what, resp.StatusCode, msg)
	}
}
