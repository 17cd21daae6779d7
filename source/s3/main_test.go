package s3_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/fsmount/fsmount/internal/s3test"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// fixtures uploads the fixtures once.
var fixtures sync.Once

// shared is the SeaweedFS most tests use, started once for the package,
// and the bytes it was given.
var shared struct {
	srv  *s3test.Server
	err  error
	dir  string // the temporary directory of the package's tests
	tiny string // a local copy of the model under models/tiny/
	big  []byte // models/blobs/big.bin
}

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "s3test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	shared.dir = dir
	bin, err := s3test.Find()
	if err == nil {
		shared.srv, err = s3test.New(bin, dir)
	}
	shared.err = err
	if err == nil {
		defer shared.srv.Stop()
	}
	return m.Run()
}

// server returns the shared server with its fixtures uploaded (once), and
// points the AWS variables at it with the reader's key; it skips t without
// a weed binary, or fails it when FSMOUNT_REQUIRE_S3=1.
func server(t *testing.T) *s3test.Server {
	t.Helper()
	if shared.err != nil {
		if os.Getenv(s3test.RequireEnv) == "1" {
			t.Fatalf("SeaweedFS: %v", shared.err)
		}
		t.Skipf("SeaweedFS: %v; set %s=1 to make this a failure", shared.err, s3test.RequireEnv)
	}
	s := shared.srv
	fixtures.Do(func() { upload(t, s) })
	s.Setenv(t, s3test.Reader)
	return s
}

func upload(t *testing.T, s *s3test.Server) {
	tiny := filepath.Join(shared.dir, "tiny")
	if err := testmodel.WriteTiny(tiny, nil); err != nil {
		t.Fatal(err)
	}
	shared.tiny = tiny
	for _, b := range []string{"models", s3test.Public, "rooted"} {
		s.CreateBucket(t, b)
	}
	s.PutDir(t, "models", "tiny/", tiny)
	s.PutDir(t, "models", "deep/er/tiny/", tiny)
	s.PutDir(t, s3test.Public, "tiny/", tiny)
	s.PutDir(t, "rooted", "", tiny)
	shared.big = make([]byte, 5<<20+12345)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range shared.big {
		shared.big[i] = byte(r.Uint32())
	}
	s.Put(t, "models", "blobs/big.bin", shared.big)
}
