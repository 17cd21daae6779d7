package e2e

import (
	"fmt"
	"os"
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
