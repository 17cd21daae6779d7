package check_test

import (
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
	for _, drop := range []string{"", "model.layers.1.mlp.up_proj.weight"} {
		st, pt := testmodel.FancyNetFormats(t, drop)
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
