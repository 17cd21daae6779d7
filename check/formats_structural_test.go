package check_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/fsmount/fsmount/check"
	"github.com/fsmount/fsmount/internal/testmodel"
	"github.com/fsmount/fsmount/model"
)

// An architecture without a spec is checked structurally whatever the
// format holding its tensors: the same tensors as safetensors and as a
// PyTorch .bin get the same depth and the same problems (the .bin used to
// be "listed, not checked").
func TestStructuralCheckEveryFormat(t *testing.T) {
	cfg := strings.Replace(testmodel.TinyQwen3Config, "Qwen3ForCausalLM", "FancyNetForCausalLM", 1)
	cfg = strings.Replace(cfg, `"qwen3"`, `"fancynet"`, 1)
	for _, drop := range []string{"", "model.layers.1.mlp.up_proj.weight"} {
		st := t.TempDir()
		var kept []testmodel.Tensor
		for _, x := range testmodel.TinyQwen3Tensors() {
			if x.Name != drop {
				kept = append(kept, x)
			}
		}
		require.NoError(t, testmodel.WriteModelDir(st, cfg, kept))
		pt := filepath.Join(t.TempDir(), "pt")
		require.NoError(t, testmodel.ConvertToTorch(st, pt))
		var reports []*check.Report
		for _, dir := range []string{st, pt} {
			m, err := model.Open(dir)
			require.NoError(t, err)
			defer m.Close()
			r, err := check.Check(m)
			require.NoError(t, err)
			assert.Equal(t, check.DepthStructural, r.Depth, "%s (%s)", dir, m.Format)
			assert.NotContains(t, r.Skipped, "listed, not checked")
			assert.Equal(t, drop == "", r.Clean(), r.Text())
			reports = append(reports, r)
		}
		assert.Equal(t, model.FormatPyTorch, reports[1].Model.Format)
		assert.Equal(t, reports[0].Problems, reports[1].Problems, "the same problems from both formats")
	}
}
