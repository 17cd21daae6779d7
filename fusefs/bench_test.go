package fusefs

import (
	"os"
	"testing"
	"time"

	"github.com/hanwen/go-fuse/v2/fs"

	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/spec"
)

// BenchmarkBuildTreeMoE builds the tree of the 18,867-tensor Qwen3-Coder
// MoE layout without mounting it: the part of mount-ready time that is
// ours rather than the kernel's.
func BenchmarkBuildTreeMoE(b *testing.B) {
	dir := b.TempDir()
	if _, err := testmodel.WriteRealSharded(dir, "../testdata/realworld/Qwen3-Coder-30B-A3B-Instruct"); err != nil {
		b.Fatal(err)
	}
	m, err := model.Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	r, err := spec.Check(m)
	if err != nil {
		b.Fatal(err)
	}
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
