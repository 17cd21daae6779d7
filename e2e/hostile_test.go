package e2e

import (
	"context"
	"encoding/binary"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/s3test"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// Bounds a hostile input is run under: the address space of fsinspect
// (ulimit -v) and a time past which it counts as hung. A small file
// must not take more than its share of memory, however it is made. The
// Go runtime alone reserves some 1.5 GiB of address space (fsinspect on
// the tiny model needs 1.6 GiB), so 2.5 GiB leaves about one of memory.
const (
	hostileMem     = 2560 << 20 // bytes of address space
	hostileTimeout = 2 * time.Minute
)

// runBounded runs a built command under ulimit -v hostileMem, killed
// after hostileTimeout (a test failure, not an exit code).
func runBounded(t *testing.T, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hostileTimeout)
	defer cancel()
	script := fmt.Sprintf(`ulimit -v %d && exec "$0" "$@"`, hostileMem>>10)
	cmd := exec.CommandContext(ctx, "sh", append([]string{"-c", script, filepath.Join(binDir, name)}, args...)...)
	return runResult(t, cmd, func(stderr string) {
		if ctx.Err() != nil {
			t.Fatalf("%s %v: still running after %v (stderr: %.500s)", name, args, hostileTimeout, stderr)
		}
	})
}

// requireNoCrash fails t if stderr is a Go runtime's fatal error (which
// exits 2 too), a panic or a stack trace.
func requireNoCrash(t *testing.T, stderr string) {
	t.Helper()
	for _, crash := range []string{"fatal error", "goroutine ", "panic", "out of memory", "stack overflow", "SIGABRT"} {
		if strings.Contains(stderr, crash) {
			t.Fatalf("a crash (%q), not a verdict: %.800s", crash, stderr)
		}
	}
}

// assertRefused asserts that r is a refusal of the input file: exit 2
// with one line naming it — not a Go runtime's fatal error (which also
// exits 2), a panic (70) or a kill.
func assertRefused(t *testing.T, r result, file, detail string) {
	t.Helper()
	stderr := strings.TrimSpace(r.stderr)
	requireNoCrash(t, stderr)
	assert.Equal(t, 2, r.code, "stderr: %.500s", stderr)
	assert.NotContains(t, stderr, "\n", "one line")
	assert.Contains(t, stderr, file)
	assert.Contains(t, stderr, detail)
}

// writeTorch writes a torch.save archive of data.pkl and storages.
func writeTorch(t *testing.T, name string, pickle []byte, storages map[string][]byte) string {
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, testmodel.WriteTorchZip(path, testmodel.TorchArchive(pickle, storages)))
	return path
}

// TestHostileTorchBounded (issue 30 items 3, 6): a .pt whose
// _rebuild_from_type_v2 takes arguments that hold the call itself (a
// stack overflow), and a 1 MB .pt that encodes one memoized MiB 3,000
// times (3 GB), are each refused with exit 2 in one line, under 1 GiB
// of address space.
func TestHostileTorchBounded(t *testing.T) {
	rt := testmodel.NewPickle().Global("torch._tensor", "_rebuild_from_type_v2").Op('q', 0).Global("torch", "Tensor").Op('q', 1, '0', '0').
		Op(']', 'q', 2, '(', 'h', 0, 'h', 1, 'h', 2, 'N', 'e'). // L = [rt, Tensor, L, None]
		Op('0', 'h', 0, 'h', 2, 'R', '.')                       // rt(*L)
	selfRef := writeTorch(t, "self-reference.pt", rt.B, nil)
	fi, err := os.Stat(selfRef)
	require.NoError(t, err)
	require.Less(t, fi.Size(), int64(1000))
	enc := testmodel.NewPickle().Global("_codecs", "encode").Op('q', 0, '0').Str(strings.Repeat("x", 1<<20)).Op('q', 1, '0').Str("latin1").Op('q', 2, '0', ']', '(')
	for range 3000 {
		enc.Op('h', 0, 'h', 1, 'h', 2, 0x86, 'R')
	}
	encode := writeTorch(t, "encode.pt", enc.Op('e', '.').B, nil)
	for _, c := range []struct{ path, detail string }{
		{selfRef, "invalid_pickle"},
		{encode, "limit_exceeded"},
	} {
		t.Run(filepath.Base(c.path), func(t *testing.T) {
			assertRefused(t, runBounded(t, "fsinspect", c.path), c.path, c.detail)
		})
	}
}

// TestStridedViewsBounded (issue 30 item 7): 400 transposed views of one
// 8 MiB storage in an 8 MB .pt, every value read by --scan, within 1 GiB
// of address space (each view kept its 8 MiB, 3.2 GB in all): the scan
// ends with a verdict, not a crash.
func TestStridedViewsBounded(t *testing.T) {
	const n, views = 1024, 400
	p := testmodel.NewPickle().Global("collections", "OrderedDict").Op(')', 'R', '(')
	for v := range views {
		p.Str(fmt.Sprintf("view%03d", v)).Global("torch._utils", "_rebuild_tensor_v2").Op('(', '(').Str("storage").Global("torch", "FloatStorage").
			Str("0").Str("cpu").Int(n*n).Op('t', 'Q').Int(0).Op('(').Int(n).Int(n).Op('t', '(').Int(1).Int(n).Op('t', 0x89, 'N', 't', 'R')
	}
	storage := make([]byte, 4*n*n)
	for i := range n * n {
		binary.LittleEndian.PutUint32(storage[4*i:], 0x3f800000) // 1.0
	}
	path := writeTorch(t, "views.pt", p.Op('u', '.').B, map[string][]byte{"0": storage})
	r := runBounded(t, "fsinspect", "--scan", path)
	requireNoCrash(t, r.stderr)
	assert.Contains(t, []int{0, 3}, r.code, "stderr: %.500s", r.stderr)
	assert.Contains(t, r.stdout, "view399")
}

// TestHostileAdapterConfigBounded (issue 30 item 5): an adapter whose
// adapter_config.json sets a 660 KB target_modules expression is
// refused at once, exit 2 in one line, under the bounds.
func TestHostileAdapterConfigBounded(t *testing.T) {
	dir := t.TempDir()
	expr := ".*(" + strings.Repeat("q_proj|", 660<<10/7) + "v_proj)"
	cfg := fmt.Sprintf(`{"peft_type": "LORA", "r": 4, "lora_alpha": 8, "target_modules": %q}`, expr)
	require.NoError(t, testmodel.WriteAdapter(dir, cfg, testmodel.TinyAdapterTensors()))
	r := runBounded(t, "fsinspect", dir)
	assertRefused(t, r, "adapter_config.json", "at most 4096 are read")
}

// TestHostileS3ListingBounded (issue 30 item 4): an endpoint that
// answers ListObjectsV2 with 31 MB of unclosed tags, or with a page of
// 650,000 keys, is refused (exit 2, one line) under the bounds.
func TestHostileS3ListingBounded(t *testing.T) {
	unclosed := []byte("<ListBucketResult>" + strings.Repeat("<a>", 31<<20/3))
	var keys strings.Builder
	keys.WriteString("<ListBucketResult>")
	for i := range 650000 {
		fmt.Fprintf(&keys, "<Contents><Key>m/k%d</Key></Contents>", i) // 23 MB, under the old 32 MiB bound
	}
	keys.WriteString("<IsTruncated>true</IsTruncated><NextContinuationToken>t</NextContinuationToken></ListBucketResult>")
	for _, c := range []struct {
		name   string
		body   []byte
		detail string
	}{
		{"unclosed tags", unclosed, "does not answer as an S3 store"},
		{"650,000 keys a page", []byte(keys.String()), "more than 1000 keys"},
	} {
		t.Run(c.name, func(t *testing.T) {
			stub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/xml")
				w.Write(c.body)
			}))
			defer stub.Close()
			s := &s3test.Server{URL: stub.URL}
			s.Setenv(t, s3test.Reader)
			assertRefused(t, runBounded(t, "fsinspect", "s3://models/m/"), "s3://models/m/", c.detail)
		})
	}
}
