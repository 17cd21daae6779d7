package model_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/dcp"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
	"github.com/fsmount/fsmount/safetensors"
	"github.com/fsmount/fsmount/source"
	"github.com/fsmount/fsmount/tensor"
)

// virtualTensors parses the virtual model.safetensors of m with package
// safetensors, over its own bytes.
func virtualTensors(t *testing.T, m *model.Model) map[string]*tensor.Tensor {
	t.Helper()
	virtual, err := m.VirtualFiles()
	require.NoError(t, err)
	require.Len(t, virtual, 1)
	assert.Equal(t, model.SingleName, virtual[0].Name())
	b := make([]byte, virtual[0].Size())
	n, err := virtual[0].ReadAt(b, 0)
	require.NoError(t, err)
	require.Equal(t, len(b), n)
	f, err := safetensors.NewFile(source.NewReaderFile("model.safetensors", strings.NewReader(string(b)), int64(len(b))))
	require.NoError(t, err)
	out := map[string]*tensor.Tensor{}
	for _, tt := range f.Tensors() {
		out[tt.Name] = tt
	}
	return out
}

func sha256Of(t *testing.T, tt *tensor.Tensor) string {
	t.Helper()
	h := sha256.New()
	_, err := io.Copy(h, tt.Reader())
	require.NoError(t, err)
	return hex.EncodeToString(h.Sum(nil))
}

// TestDCPRealworld: each checkpoint torch wrote, beside a config.json of
// its model, opens as a model whose weights check clean, named as
// transformers names them (a trainer's "model." root taken off), with
// the optimizer's state and the other values apart; its virtual
// model.safetensors, parsed by package safetensors, holds every weight
// with the SHA-256 of case.json.
func TestDCPRealworld(t *testing.T) {
	for _, name := range testmodel.DCPCases {
		t.Run(name, func(t *testing.T) {
			dir, c := testmodel.DCPCaseDir(t, name)
			m, r := testmodel.Checked(t, dir)
			assert.Equal(t, model.FormatDCP, m.Format)
			assert.Empty(t, r.Problems)
			assert.Equal(t, check.DepthFull, r.Depth)
			require.Len(t, m.Tensors(), 25)
			require.NotNil(t, m.DCP)
			virtual := virtualTensors(t, m)
			optim := 0
			for key, e := range c.Expected {
				w := key
				if strings.HasPrefix(key, "optim.") {
					optim++
					continue
				}
				if key == "rng_state" {
					require.Len(t, m.DCP.Other, 1)
					assert.Equal(t, e.SHA256, sha256Of(t, m.DCP.Other[0]))
					continue
				}
				if _, ok := c.Expected["model.model.norm.weight"]; ok {
					w = strings.TrimPrefix(key, "model.")
				}
				tt := m.Tensor(w)
				require.NotNil(t, tt, w)
				assert.Equal(t, e.SHA256, sha256Of(t, tt), w)
				require.Contains(t, virtual, w)
				assert.Equal(t, e.SHA256, sha256Of(t, virtual[w]), w)
			}
			assert.Len(t, m.DCP.Optimizer, optim)
			assert.Len(t, m.DCP.Objects, len(c.Objects))
			for _, o := range m.DCP.Optimizer {
				assert.NotNil(t, m.Tensor(o.Param), "the optimizer's %s.%s is of a weight", o.Param, o.State)
			}
			if optim > 0 {
				assert.Contains(t, strings.Join(r.Notes, "\n"), "optimizer state: ")
			}
		})
	}
}

// tinyDCP writes the tiny model as a trainer's Distributed Checkpoint
// (testmodel.WriteTinyDCP) into a new directory, and returns it and the
// original model.
func tinyDCP(t *testing.T, edit func([]testmodel.DCPEntry) []testmodel.DCPEntry) (string, *model.Model) {
	t.Helper()
	src, err := model.Open("../testdata/tiny-qwen3")
	require.NoError(t, err)
	t.Cleanup(func() { src.Close() })
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteTinyDCP(dir, edit))
	return dir, src
}

// TestDCPTiny: the tiny model written as a Distributed Checkpoint checks
// clean against its config, each weight (and its virtual safetensors
// copy) byte for byte the original's.
func TestDCPTiny(t *testing.T) {
	dir, src := tinyDCP(t, nil)
	m, r := testmodel.Checked(t, dir)
	assert.Equal(t, model.FormatDCP, m.Format)
	assert.Empty(t, r.Problems)
	assert.True(t, r.Clean())
	require.Len(t, m.Tensors(), len(src.Tensors()))
	virtual := virtualTensors(t, m)
	for _, want := range src.Tensors() {
		got := m.Tensor(want.Name)
		require.NotNil(t, got, want.Name)
		assert.Equal(t, sha256Of(t, want), sha256Of(t, got), want.Name)
		assert.Equal(t, sha256Of(t, want), sha256Of(t, virtual[want.Name]), want.Name)
	}
	assert.Len(t, m.DCP.Optimizer, len(src.Tensors()))
	require.Len(t, m.DCP.Objects, 1)
	assert.Equal(t, "step", m.DCP.Objects[0].Key)
	// Named by its .metadata, the directory is opened.
	m2, err := model.Open(filepath.Join(dir, ".metadata"))
	require.NoError(t, err)
	defer m2.Close()
	assert.Len(t, m2.Tensors(), len(src.Tensors()))
	assert.NotNil(t, m2.Config)
}

// TestDCPMissingChunk: with one chunk of a weight dropped from the
// metadata, the weight is left out, the check finds it missing, and a
// warning names it and the rows no chunk holds; without a config, the
// checkpoint is refused.
func TestDCPMissingChunk(t *testing.T) {
	const victim = "model.model._orig_mod.layers.1.mlp.up_proj.weight"
	dir, _ := tinyDCP(t, func(es []testmodel.DCPEntry) []testmodel.DCPEntry {
		for i := range es {
			if es[i].Key == victim {
				es[i].Chunks = es[i].Chunks[:1]
			}
		}
		return es
	})
	m, r := testmodel.Checked(t, dir)
	assert.False(t, r.Clean())
	require.Len(t, r.Problems, 1)
	assert.Equal(t, "model.layers.1.mlp.up_proj.weight", r.Problems[0].Tensor)
	assert.Equal(t, check.Missing, r.Problems[0].Kind)
	assert.Contains(t, strings.Join(m.Warnings(), "\n"), victim+" [64, 32]: no chunk holds elements [32:64, 0:32] (1,024 of its 2,048 elements are in no chunk)")

	require.NoError(t, os.Remove(filepath.Join(dir, "config.json")))
	_, err := model.Open(dir)
	assert.ErrorIs(t, err, dcp.CodeMissingChunk)
}

// TestDCPMegatron: a Megatron-core torch_dist checkpoint (metadata.json
// says so) stacks each layer's weight on a leading axis
// ("model.layers.mlp.up_proj.weight" [2, 64, 32], here split over 2
// ranks by rows within each layer): it is shown per layer, each layer's
// slice read in place, and checks clean, byte for byte the original's.
func TestDCPMegatron(t *testing.T) {
	src, err := model.Open("../testdata/tiny-qwen3")
	require.NoError(t, err)
	defer src.Close()
	stacked := map[string]*testmodel.DCPTensor{}
	var ts []testmodel.DCPTensor
	for _, tt := range src.Tensors() {
		b, err := io.ReadAll(tt.Reader())
		require.NoError(t, err)
		var layer string
		if rest, ok := strings.CutPrefix(tt.Name, "model.layers."); ok {
			layer = rest[strings.IndexByte(rest, '.')+1:]
		}
		if layer == "" {
			ts = append(ts, testmodel.DCPTensor{Key: tt.Name, DType: tt.DType.String(), Shape: tt.Shape, Data: b, Split: -1})
			continue
		}
		key := "model.layers." + layer
		s := stacked[key]
		if s == nil {
			s = &testmodel.DCPTensor{Key: key, DType: tt.DType.String(), Shape: append([]uint64{0}, tt.Shape...), Split: 1}
			if len(tt.Shape) == 1 {
				s.Split = -1
			}
			stacked[key] = s
		}
		s.Shape[0]++
		s.Data = append(s.Data, b...)
	}
	for _, s := range stacked {
		ts = append(ts, *s)
	}
	dir := t.TempDir()
	require.NoError(t, testmodel.WriteDCP(dir, 2, ts, nil, nil))
	cfg, err := os.ReadFile("../testdata/tiny-qwen3/config.json")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), cfg, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "metadata.json"), []byte(`{"sharded_backend": "torch_dist", "sharded_backend_version": 1, "common_backend": "torch", "common_backend_version": 1}`), 0o644))
	m, r := testmodel.Checked(t, dir)
	assert.True(t, m.DCP.Megatron)
	assert.Empty(t, r.Problems)
	require.Len(t, m.Tensors(), len(src.Tensors()))
	for _, want := range src.Tensors() {
		got := m.Tensor(want.Name)
		require.NotNil(t, got, want.Name)
		assert.Equal(t, want.Shape, got.Shape, want.Name)
		assert.Equal(t, sha256Of(t, want), sha256Of(t, got), want.Name)
	}
	virtual := virtualTensors(t, m)
	for _, want := range src.Tensors() {
		assert.Equal(t, sha256Of(t, want), sha256Of(t, virtual[want.Name]), want.Name)
	}
	assert.Contains(t, strings.Join(r.Notes, "\n"), "Megatron-core torch_dist")
}

// TestDCPVirtualShards: past the shard size, the weights are served as
// model-0000N-of-0000M.safetensors shards of at most that size and their
// index, which package safetensors opens as a sharded model: every
// weight the original's bytes.
func TestDCPVirtualShards(t *testing.T) {
	defer func(old int64) { *model.DCPShardSize = old }(*model.DCPShardSize)
	*model.DCPShardSize = 20000
	dir, src := tinyDCP(t, nil)
	m, _ := testmodel.Checked(t, dir)
	virtual, err := m.VirtualFiles()
	require.NoError(t, err)
	require.Greater(t, len(virtual), 3)
	out := t.TempDir()
	for _, v := range virtual {
		b := make([]byte, v.Size())
		_, err := v.ReadAt(b, 0)
		require.NoError(t, err)
		if v.Name() != model.IndexName {
			assert.LessOrEqual(t, v.Size(), int64(20000+4096), v.Name())
		}
		require.NoError(t, os.WriteFile(filepath.Join(out, v.Name()), b, 0o644))
	}
	cfg, err := os.ReadFile("../testdata/tiny-qwen3/config.json")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(out, "config.json"), cfg, 0o644))
	sh, r := testmodel.Checked(t, out)
	assert.Empty(t, r.Problems)
	assert.NotNil(t, sh.Index)
	for _, want := range src.Tensors() {
		got := sh.Tensor(want.Name)
		require.NotNil(t, got, want.Name)
		assert.Equal(t, sha256Of(t, want), sha256Of(t, got), want.Name)
	}
}
