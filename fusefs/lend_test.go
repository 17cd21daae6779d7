package fusefs

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/source"
)

// lenders is a source.FS whose files are read only by lending: every
// Lend hands out fresh copies of the bytes in two pieces, and release
// poisons them, so a reply written after its pieces were released would
// carry the poison. It counts what it lends, releases and trims.
type lenders struct {
	dir                    source.Dir
	lends, releases, trims atomic.Int64
}

func (l *lenders) Open(name string) (source.File, error) {
	f, err := l.dir.Open(name)
	if err != nil {
		return nil, err
	}
	return &lender{f: f, l: l}, nil
}
func (l *lenders) List() ([]string, error) { return l.dir.List() }
func (l *lenders) String() string          { return l.dir.String() }

// lender offers no fd and no mapping, so fusefs must lend or copy.
type lender struct {
	f source.File
	l *lenders
}

func (f *lender) ReadAt(p []byte, off int64) (int, error) { return f.f.ReadAt(p, off) }
func (f *lender) Close() error                            { return f.f.Close() }
func (f *lender) Name() string                            { return f.f.Name() }
func (f *lender) Size() int64                             { return f.f.Size() }
func (f *lender) ModTime() time.Time                      { return f.f.ModTime() }
func (f *lender) Mode() os.FileMode                       { return f.f.Mode() }
func (f *lender) Trim()                                   { f.l.trims.Add(1) }

func (f *lender) Lend(off int64, n int) ([][]byte, func(), error) {
	n = int(min(int64(n), f.Size()-off))
	b := make([]byte, n)
	if _, err := f.f.ReadAt(b, off); err != nil {
		return nil, nil, err
	}
	f.l.lends.Add(1)
	cut := n / 3
	var once sync.Once
	return [][]byte{b[:cut], b[cut:]}, func() {
		once.Do(func() {
			for i := range b {
				b[i] = 0xa5
			}
			f.l.releases.Add(1)
		})
	}, nil
}

// TestLentReplies: a file that lends its bytes is served from the pieces
// it lends, each lent range released once its reply is written and not
// before, and is told to trim once the mount is idle.
func TestLentReplies(t *testing.T) {
	requireFUSE(t)
	dir := filepath.Join("..", "testdata", "tiny-qwen3")
	fsys := &lenders{dir: source.Dir(dir)}
	m, err := model.OpenFS(dir, fsys, "")
	require.NoError(t, err)
	r, err := check.Check(m)
	require.NoError(t, err)
	mnt := t.TempDir()
	server, _, err := mount(mnt, r, &Options{DirectMount: os.Geteuid() == 0})
	require.NoError(t, err)
	t.Cleanup(func() {
		if err := fusetest.Unmount(server, mnt); err != nil {
			t.Errorf("unmount: %v", err)
		}
		m.Close()
	})

	want, err := os.ReadFile(filepath.Join(dir, "model.safetensors"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(mnt, "files", "model.safetensors"))
	require.NoError(t, err)
	require.True(t, bytes.Equal(got, want), "files/model.safetensors differs from the file")
	data, err := os.ReadFile(filepath.Join(mnt, "embed_tokens", "data"))
	require.NoError(t, err)
	require.Equal(t, testmodel.Bytes(r.Model.Tensor("model.embed_tokens.weight")), data, "a tensor's data")
	require.Greater(t, fsys.lends.Load(), int64(0), "nothing was lent")

	// go-fuse releases a reply's pieces just after writing it, so the
	// last release may trail the read a moment.
	deadline := time.Now().Add(5 * time.Second)
	for fsys.releases.Load() != fsys.lends.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	require.Equal(t, fsys.lends.Load(), fsys.releases.Load(), "lent ranges not released")
	for fsys.trims.Load() == 0 && time.Now().Before(deadline.Add(5*time.Second)) {
		time.Sleep(50 * time.Millisecond)
	}
	require.Greater(t, fsys.trims.Load(), int64(0), "an idle mount did not trim")
}
