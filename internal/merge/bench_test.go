package merge_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/adapter"
	"github.com/fsmount/fsmount/internal/merge"
	"github.com/fsmount/fsmount/model"
)

// BenchmarkProve proves the merge bench/merge_proof.sh makes (the 1.5 GB
// Qwen3-0.6B layout and a rank-16 adapter on its 196 linear layers), in
// the directory FSMOUNT_BENCH_MERGE names (base/, adapter/, merged/).
func BenchmarkProve(b *testing.B) {
	dir := os.Getenv("FSMOUNT_BENCH_MERGE")
	if dir == "" {
		b.Skip("FSMOUNT_BENCH_MERGE is not set: run bench/merge_proof.sh first")
	}
	a, err := adapter.Open(filepath.Join(dir, "adapter"), nil)
	require.NoError(b, err)
	defer a.Close()
	base, err := model.Open(filepath.Join(dir, "base"))
	require.NoError(b, err)
	defer base.Close()
	m, err := model.Open(filepath.Join(dir, "merged"))
	require.NoError(b, err)
	defer m.Close()
	r := adapter.Check(a, base, "")
	b.SetBytes(base.Files[0].Size())
	for b.Loop() {
		res, err := merge.Prove(r, m, nil)
		require.NoError(b, err)
		require.True(b, res.OK())
	}
}
