package fusefs

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/fusetest"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

// BenchmarkBuildTreeMoE builds the tree of the 18,867-tensor Qwen3-Coder
// MoE layout without mounting it: the part of mount-ready time that is
// ours rather than the kernel's.
func BenchmarkBuildTreeMoE(b *testing.B) {
	dir := b.TempDir()
	_, err := testmodel.WriteRealSharded(dir, "../testdata/realworld/Qwen3-Coder-30B-A3B-Instruct")
	r := checked(b, dir, err)
	t := time.Hour
	b.ReportAllocs()
	for b.Loop() {
		root, err := newRoot(r, uint32(os.Getuid()), uint32(os.Getgid()), true, nil, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		fs.NewNodeFS(root, &fs.Options{EntryTimeout: &t})
	}
}

// BenchmarkOpenManyTensors opens, checks and builds the tree of the
// half-million-tensor model of testmodel.WriteManyTensors (#25), made in
// $FSMOUNT_MANY_TENSORS (once; skipped when unset): the whole of mount-ready
// time that is ours. Run with -benchtime=1x -cpuprofile/-memprofile to
// see where the time and bytes go.
func BenchmarkOpenManyTensors(b *testing.B) {
	dir := os.Getenv("FSMOUNT_MANY_TENSORS")
	if dir == "" {
		b.Skip("FSMOUNT_MANY_TENSORS is not set")
	}
	if _, err := os.Stat(dir + "/config.json"); err != nil {
		if _, err := testmodel.WriteManyTensors(dir); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		m, err := model.Open(dir)
		if err != nil {
			b.Fatal(err)
		}
		r, err := check.Check(m)
		if err != nil {
			b.Fatal(err)
		}
		root, err := newRoot(r, uint32(os.Getuid()), uint32(os.Getgid()), true, nil, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		keptRoot = root // the heap profile shows what a mount keeps
		m.Close()
	}
}

var keptRoot *node

// BenchmarkFindMoE mounts a 12,039-tensor MoE (testmodel.WriteMoE) and
// walks every entry as find does: the daemon's cost per entry of a full
// find, which #25 measured at 288 s for 500,000 tensors.
func BenchmarkFindMoE(b *testing.B) {
	fusetest.RequireFUSE(b)
	dir := b.TempDir()
	_, err := testmodel.WriteMoE(dir, 4, 1000)
	r := checked(b, dir, err)
	b.ReportAllocs()
	for b.Loop() {
		mnt := b.TempDir()
		server, _, err := mount(mnt, r, &Options{DirectMount: os.Geteuid() == 0})
		if err != nil {
			b.Fatal(err)
		}
		if out, err := exec.Command("find", mnt).Output(); err != nil || len(out) == 0 {
			b.Fatal(err)
		}
		server.Unmount()
		server.Wait()
	}
}

// checked opens and checks the model a benchmark wrote into dir (err is
// the writing's), closing it when the benchmark ends.
func checked(tb testing.TB, dir string, err error) *check.Report {
	tb.Helper()
	require.NoError(tb, err)
	_, r := testmodel.Checked(tb, dir)
	return r
}
