package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/nginxtest"
	"github.com/fsmount/fsmount/internal/testmodel"
)

// dropChunk drops the second chunk of the tiny DCP's layer-1 up_proj
// (rows 32 to 64 of [64, 32]) from its metadata.
func dropChunk(es []testmodel.DCPEntry) []testmodel.DCPEntry {
	for i := range es {
		if es[i].Key == "model.model._orig_mod.layers.1.mlp.up_proj.weight" {
			es[i].Chunks = es[i].Chunks[:1]
		}
	}
	return es
}

// TestInspectDCP: the tiny model as a 2-rank Distributed Checkpoint
// checks clean against its config (exit 0); with one chunk of a weight
// dropped from its metadata, fsinspect exits 1 naming the weight missing
// and the rows no chunk holds.
func TestInspectDCP(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteTinyDCP(dir, nil))
	r := runCmd(t, "fsinspect", dir)
	require.Equal(t, 0, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✓ all 25 expected tensors present")
	assert.Contains(t, r.stdout, "note: a PyTorch Distributed Checkpoint with optimizer state: 25 tensors (exp_avg) for 25 parameters, in optim/")

	dir = t.TempDir()
	require.NoError(t, testmodel.WriteTinyDCP(dir, dropChunk))
	r = runCmd(t, "fsinspect", dir)
	assert.Equal(t, 1, r.code, r.stdout+r.stderr)
	assert.Contains(t, r.stdout, "✗ missing: model.layers.1.mlp.up_proj.weight, expected [I, H] = [64, 32]")
	assert.Contains(t, r.stdout, "model.model._orig_mod.layers.1.mlp.up_proj.weight [64, 32]: no chunk holds elements [32:64, 0:32] (1,024 of its 2,048 elements are in no chunk) (dcp: missing_chunk)")
}

// TestInspectDCPHostile: every hostile checkpoint of
// ../shared/realworld/dcp/hostile is refused in one line naming the
// file and the code, exit 2, nothing on stdout, nothing run (the
// pickles' command would print DCP-HOSTILE-METADATA-EXECUTED), in little
// memory; the control checks (exit 3: no config.json).
func TestInspectDCPHostile(t *testing.T) {
	root := repoPath("dcp", "testdata", "realworld", "hostile")
	codes := map[string]string{
		"chunk-out-of-bounds": "chunk_out_of_bounds", "length-past-eof": "item_out_of_file", "length-truncated": "invalid_item",
		"missing-chunk": "missing_chunk", "missing-file": "missing_file", "missing-storage-entry": "missing_storage_entry",
		"overlapping-chunks": "overlapping_chunks", "path-traversal": "bad_path", "path-traversal-deep": "bad_path",
		"payload-dtype-mismatch": "payload_mismatch", "payload-shape-mismatch": "payload_mismatch",
		"pickle-rce-builtins": "forbidden_global", "pickle-rce-global": "forbidden_global", "pickle-rce-nested": "forbidden_global",
	}
	for name, code := range codes {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(filepath.Join(binDir, "fsinspect"), filepath.Join(root, name, "checkpoint"))
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			err := cmd.Run()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee)
			assert.Equal(t, 2, ee.ExitCode())
			assert.Empty(t, out.String())
			assert.Equal(t, 1, strings.Count(errb.String(), "\n"), "one line: %q", errb.String())
			assert.Contains(t, errb.String(), filepath.Join(root, name, "checkpoint")+"/")
			assert.Contains(t, errb.String(), "(dcp: "+code+")")
			assert.NotContains(t, out.String()+errb.String(), "DCP-HOSTILE-METADATA-EXECUTED")
			rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB
			assert.Less(t, rss, int64(256<<10), "peak RSS %d KiB", rss)
		})
	}
	r := runCmd(t, "fsinspect", filepath.Join(root, "control-valid", "checkpoint"))
	assert.Equal(t, 3, r.code, r.stderr)
	assert.Contains(t, r.stdout, "w ")
}

// TestDCPRemote: a Distributed Checkpoint over HTTP (nginx, which cannot
// list a directory) checks as the local one: .metadata first, then each
// item's archive by range requests, never a .distcp file whole; mounted,
// a tensor split over the ranks reads back byte for byte.
func TestDCPRemote(t *testing.T) {
	root := t.TempDir()
	local := filepath.Join(root, "tiny")
	require.NoError(t, os.Mkdir(local, 0o755))
	require.NoError(t, testmodel.WriteTinyDCP(local, nil))
	require.NoError(t, os.Chmod(root, 0o755))
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	srv := nginxtest.Start(t, root)
	r := runCmd(t, "fsinspect", srv.URL+"/tiny/")
	require.Equal(t, 0, r.code, r.stderr)
	assert.Contains(t, r.stdout, "✓ all 25 expected tensors present")
	for _, q := range srv.Requests(t) {
		if strings.HasSuffix(q.Path, ".distcp") && q.Method == "GET" {
			assert.NotEmpty(t, q.Range, "%s fetched without a Range", q.Path)
		}
	}
	mnt, _ := mountModel(t, srv.URL+"/tiny/")
	lm, err := os.ReadFile(filepath.Join(mnt, "layers", "1", "mlp", "up_proj", "data"))
	require.NoError(t, err)
	lmLocal, _ := mountModel(t, local)
	want, err := os.ReadFile(filepath.Join(lmLocal, "layers", "1", "mlp", "up_proj", "data"))
	require.NoError(t, err)
	assert.Equal(t, want, lm)
	assert.Len(t, lm, 64*32*2)
}
