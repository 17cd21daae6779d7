package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/internal/testmodel"
)

// TestQuantizedExitCodes runs fsinspect on a compressed-tensors NVFP4
// layout (the reference written by compressed-tensors 0.18): clean
// (exit 0) with its scheme in the JSON; with a scale dropped, exit 1
// naming it; under a quant_method nobody models, exit 3 naming the
// method, never 0 or 1.
func TestQuantizedExitCodes(t *testing.T) {
	src := t.TempDir()
	require.NoError(t, testmodel.ExtractLayout(repoPath("internal", "quantconfig", "testdata", "layouts.tar.gz"), "quantized/ct-nvfp4/qwen3/", src))
	dir := filepath.Join(t.TempDir(), "m")
	require.NoError(t, testmodel.WriteLayoutDir(src, dir))
	r := runCmd(t, "fsinspect", "--json", dir)
	require.Equal(t, 0, r.code, r.stderr)
	var j struct {
		Checked bool `json:"checked"`
		Clean   bool `json:"clean"`
		Quant   struct {
			Method  string `json:"method"`
			Schemes []struct {
				Scheme  string `json:"scheme"`
				Weights int    `json:"weights"`
			} `json:"schemes"`
		} `json:"quantization"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &j))
	assert.True(t, j.Checked && j.Clean)
	assert.Equal(t, "compressed-tensors", j.Quant.Method)
	require.Len(t, j.Quant.Schemes, 1)
	assert.Equal(t, 35, j.Quant.Schemes[0].Weights)

	tsv, err := os.ReadFile(filepath.Join(src, "tensors.tsv"))
	require.NoError(t, err)
	const scale = "model.layers.3.self_attn.k_proj.weight_scale"
	var kept []string
	for _, l := range strings.Split(strings.TrimSpace(string(tsv)), "\n") {
		if !strings.HasPrefix(l, scale+"\t") {
			kept = append(kept, l)
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(src, "tensors.tsv"), []byte(strings.Join(kept, "\n")+"\n"), 0o644))
	dropped := filepath.Join(t.TempDir(), "dropped")
	require.NoError(t, testmodel.WriteLayoutDir(src, dropped))
	r = runCmd(t, "fsinspect", dropped)
	assert.Equal(t, 1, r.code)
	assert.Contains(t, r.stdout, "✗ missing: "+scale)

	cfg, err := os.ReadFile(filepath.Join(dir, "config.json"))
	require.NoError(t, err)
	bogus := strings.Replace(string(cfg), `"quant_method": "compressed-tensors"`, `"quant_method": "bogus"`, 1)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(bogus), 0o644))
	r = runCmd(t, "fsinspect", dir)
	assert.Equal(t, 3, r.code, r.stdout)
	assert.Contains(t, r.stdout, `quant_method "bogus" is not understood`)
}
